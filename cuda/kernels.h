/* Kernel launchers of the CUDA backend (internal; CUDA C++ only).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each algorithm lives in its own translation unit (kernels_2d.cu,
 * kernels_separable.cu) so they compile in parallel; cuda_backend.cu only
 * sees these launchers.
 */
#ifndef GAUSSBLUR_KERNELS_H
#define GAUSSBLUR_KERNELS_H

#include <cuda_runtime.h>
#include <stdint.h>

#include "gaussblur.h"
#include "multiscale.h"
#include "recursive.h"
#include "sampling.h"

/* One plane on the device: interleaved 8-bit samples, pitches in bytes. */
struct GbDevicePlane
{
  const uint8_t *src;
  size_t src_pitch;
  uint8_t *dst;
  size_t dst_pitch;
  float *intermediate;          /* separable only: row-pass output */
  size_t intermediate_pitch;
  float *transposed;            /* recursive only: the column pass's output, */
  size_t transposed_pitch;      /* one row per frame column (same memory) */
  void *recursive_states;       /* recursive only: gb_recursive_state_bytes() */
  float *multiscale_scratch;    /* multiscale only (the intermediate's memory):
                                 * gb_multiscale_scratch_floats() x channels */
  int width;
  int height;
  int channels;
};

/* The weights, twice: on the device for kernels that read them at run time,
 * on the host for kernels that take them by value as a parameter (parameters
 * live in the constant bank: constant-memory broadcast without a process-wide
 * __constant__ symbol that two element instances would race to overwrite). */
struct GbTaps
{
  const float *device;
  const float *host;
  int radius;
  const GbRecursiveFilter *recursive;   /* host copy, for GB_ALGORITHM_RECURSIVE */
  const GbMultiscalePlan *multiscale;   /* this plane's plan (host copy) */
  const float *multiscale_table;        /* its weights on the device */
};

cudaError_t gb_launch_naive_2d (const GbDevicePlane & plane,
    const GbTaps & taps, GbBorder border, cudaStream_t stream);
cudaError_t gb_launch_shared_2d (const GbDevicePlane & plane,
    const GbTaps & taps, GbBorder border, cudaStream_t stream);
cudaError_t gb_launch_separable (const GbDevicePlane & plane,
    const GbTaps & taps, GbBorder border, cudaStream_t stream);
cudaError_t gb_launch_recursive (const GbDevicePlane & plane,
    const GbTaps & taps, GbBorder border, cudaStream_t stream);
cudaError_t gb_launch_multiscale (const GbDevicePlane & plane,
    const GbTaps & taps, GbBorder border, cudaStream_t stream);
/* Tensor-core kernel for radii 1 .. GB_FUSED_MAX_RADIUS; runs only where
 * gb_fused_available() (sm_80 or later code for the current device). */
cudaError_t gb_launch_fused (const GbDevicePlane & plane, const GbTaps & taps,
    GbBorder border, cudaStream_t stream);

#define GB_FUSED_MAX_RADIUS 56
bool gb_fused_available (void);

/* Segments per line of the recursive passes, and the state buffer a plane
 * of that size needs. */
int gb_recursive_segments (int length);
size_t gb_recursive_state_bytes (int width, int height, int channels);

/* Reads sample s of a row of interleaved pixels, s possibly outside
 * [0, width * channels): the pixel index goes through the border rule, the
 * channel is kept. Shared by the kernels of both translation units. */
template < typename Sample > __device__ __forceinline__ float
gb_load_sample (const Sample * row, int s, int width, int channels,
    GbBorder border)
{
  if (s >= 0 && s < width * channels)
    return (float) row[s];
  {
    int pixel = s >= 0 ? s / channels : -((-s + channels - 1) / channels);
    int channel = s - pixel * channels;
    int mapped = gb_border_index (pixel, width, border);
    return mapped < 0 ? 0.0f : (float) row[mapped * channels + channel];
  }
}

#endif

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
#include <type_traits>

#include "filter.h"
#include "gaussblur.h"
#include "multiscale.h"
#include "recursive.h"
#include "sampling.h"
#include "superposition.h"
#include "superposition_regions.h"
#include "superposition_rows.h"


/* The multi-scale images' rows on the GPU are padded to 4 floats
 * (gb_multiscale_layout) where gb_multiscale_row_align says so; the
 * scratch is sized for that. */
#define GB_MULTISCALE_GPU_ROW_ALIGN 4

/* One plane on the device: interleaved samples of bytes_per_sample bytes
 * (uint8_t or uint16_t; the kernels are templates on the sample type and
 * dispatch on it through gb_dispatch_sample()), pitches in bytes. src and dst
 * point at the plane's filter window (GbPlaneFilter.window), width and
 * height are the window's: a kernel sees the window as its whole frame. */
struct GbDevicePlane
{
  const void *src;
  size_t src_pitch;
  void *dst;
  size_t dst_pitch;
  float *intermediate;          /* separable only: row-pass output (its
                                 * own type: kernels_separable.cu) */
  size_t intermediate_pitch;
  float *transposed;            /* recursive only: the column pass's output, */
  size_t transposed_pitch;      /* one row per frame column (same memory) */
  void *recursive_states;       /* recursive only: gb_recursive_state_bytes() */
  float *multiscale_scratch;    /* multiscale only (the intermediate's memory):
                                 * gb_multiscale_scratch_floats (...,
                                 * GB_MULTISCALE_GPU_ROW_ALIGN) */
  void *edge_aware_scratch;     /* edge-aware only:
                                 * gb_edge_aware_scratch_bytes() */
  void *superposition_scratch;  /* superposition only: each pixel's kernel,
                                 * gb_superposition_scratch_bytes() */
  int width;
  int height;
  int channels;
  int bytes_per_sample;         /* 1 or 2 */
  /* The part of the GPU its kernels may fill: 1 for a frame of one plane;
   * where a frame's planes run side by side on their own streams, the
   * plane's share of the frame's samples, so that a kernel sized to the
   * GPU's resident blocks leaves room for the others. */
  float gpu_share;
  /* Whether a plane of the frame has a multi-scale plan whose axes take
   * different D (its chain is the longer one: kernels_multiscale.cu). */
  bool frame_mixed_factors;
  /* Whether every plane of the frame has a multi-scale plan that may run
   * its small blur along y in its up pass (gb_multiscale_blur_in_up); a
   * plane whose plan `auto` does not take (a small plane) still counts. */
  bool frame_blur_in_up;
  /* The multi-scale images' rows, in floats: gb_multiscale_row_align. */
  int multiscale_row_align;
};

/* Whether the plane has the GPU to itself: no other plane of its frame runs
 * beside it on another stream. */
inline bool
gb_plane_alone (const GbDevicePlane & plane)
{
  return !(plane.gpu_share > 0.0f && plane.gpu_share < 1.0f);
}

/* Row y of the plane's source or destination, as samples. */
template < typename Sample > __device__ __forceinline__ const Sample *
gb_src_row (const GbDevicePlane & plane, int y)
{
  return (const Sample *) ((const char *) plane.src
      + (size_t) y * plane.src_pitch);
}

template < typename Sample > __device__ __forceinline__ Sample *
gb_dst_row (const GbDevicePlane & plane, int y)
{
  return (Sample *) ((char *) plane.dst + (size_t) y * plane.dst_pitch);
}

/* The weights of one axis, twice: on the device for kernels that read them
 * at run time, on the host for kernels that take them by value as a
 * parameter (parameters live in the constant bank: constant-memory broadcast
 * without a process-wide __constant__ symbol that two element instances
 * would race to overwrite). Radius 0 (sigma 0): the single tap 1. */
struct GbAxisTaps
{
  const float *device;
  const float *host;
  int radius;
  const GbRecursiveFilter *recursive;   /* host copy, for GB_ALGORITHM_RECURSIVE */
  /* For the tensor-core kernels (radius up to GB_FUSED_MAX_RADIUS, along y
   * GB_FUSED_MAX_RADIUS_Y): the
   * taps as gb_half_pairs_fill() lays them out, on the device, and the sum
   * of the taps rounded to fp16. */
  const uint32_t *half_pairs;
  float half_sum;
};

/* Everything a plane's launch needs besides the plane: the x taps filter
 * along rows, the y taps along columns. */
struct GbTaps
{
  GbAxisTaps x;
  GbAxisTaps y;
  const GbMultiscalePlan *multiscale;   /* this plane's plan (host copy) */
  const float *multiscale_table;        /* its weights on the device */
  /* the interpolation along y as tensor-core fragments, on the device
   * (gb_multiscale_up_fragments_fill) */
  const uint32_t *multiscale_up_fragments;
};

/* The larger of the two radii: how far the filter reaches along either
 * axis. */
static inline int
gb_taps_radius (const GbTaps & taps)
{
  return taps.x.radius > taps.y.radius ? taps.x.radius : taps.y.radius;
}

/* Calls launch(Sample ()) with Sample uint8_t or uint16_t for the plane's
 * sample size; a generic lambda takes it as
 *   [&] (auto tag) { using Sample = decltype (tag); ... }. */
template < typename Launch > cudaError_t
gb_dispatch_sample (const GbDevicePlane & plane, Launch && launch)
{
  switch (plane.bytes_per_sample) {
    case 1:
      return launch (uint8_t ());
    case 2:
      return launch (uint16_t ());
  }
  return cudaErrorInvalidValue;
}

/* Calls launch(std::integral_constant<int, C> ()) for the plane's channel
 * count C (1 to 4), for kernels that know it at compile time; a generic
 * lambda takes it as [&] (auto c) { ... decltype (c)::value ... }. */
template < typename Launch > cudaError_t
gb_dispatch_channels (const GbDevicePlane & plane, Launch && launch)
{
  switch (plane.channels) {
    case 1:
      return launch (std::integral_constant < int, 1 > ());
    case 2:
      return launch (std::integral_constant < int, 2 > ());
    case 3:
      return launch (std::integral_constant < int, 3 > ());
    case 4:
      return launch (std::integral_constant < int, 4 > ());
  }
  return cudaErrorInvalidValue;
}

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
/* Whether a multi-scale plane of `channels` channels and factor_y along y
 * may run its small blur along y in the up pass: it does where every plane
 * of its frame may (GbDevicePlane's frame_blur_in_up). */
bool gb_multiscale_blur_in_up (int channels, int factor_y);
/* How plane p of the frame aligns its multi-scale images' rows
 * (gb_multiscale_layout's row_align): GB_MULTISCALE_GPU_ROW_ALIGN or 1. */
int gb_multiscale_row_align (const GbGeometry & geometry, int p);
/* The edge-aware filter (edge_aware.h) of the filter's parameters,
 * Algorithm C with its kappa (kernels_edge_aware.cu). */
cudaError_t gb_launch_edge_aware (const GbDevicePlane & plane,
    const GbPlaneFilter * filter, GbBorder border, cudaStream_t stream);
/* Bytes of GbDevicePlane.edge_aware_scratch for a plane of that size. */
size_t gb_edge_aware_scratch_bytes (int width, int height, int channels,
    int bytes_per_sample);
/* Kernel superposition (superposition.h) of the filter's rmax and reach,
 * from the frame's sigma map on the device (map_stride floats per row):
 * prepare computes each window pixel's kernel into the scratch first; false
 * reuses what the last launch of the same map, window and rmax left there
 * (kernels_superposition.cu). */
cudaError_t gb_launch_superposition (const GbDevicePlane & plane,
    const GbPlaneFilter * filter, GbSuperpositionMethod method,
    const float *device_map, size_t map_stride, bool prepare,
    GbBorder border, cudaStream_t stream);
/* The superposition of a regions map by its plan (superposition_regions.h;
 * kernels_superposition_regions.cu): the plan's boxes and its tables (level
 * sigmas, then kernels) on the device, and plan->scratch_floats of sums. */
cudaError_t gb_launch_superposition_regions (const GbDevicePlane & plane,
    const GbRegionPlan * plan, const GbRegionBox * device_boxes,
    const float *device_tables, float *scratch, cudaStream_t stream);
/* The superposition of a map constant along rows by its plan
 * (superposition_rows.h; kernels_superposition_rows.cu): the plan's row
 * kernels, taps and x sums on the device, and
 * gb_superposition_rows_scratch_floats() of H. Not for GB_BORDER_ZERO. */
cudaError_t gb_launch_superposition_rows (const GbDevicePlane & plane,
    const GbRowPlan * plan, const int *device_row_kernel,
    const float *device_kernels, const float *device_weight_x,
    float *scratch, bool normalize, GbBorder border, cudaStream_t stream);
size_t gb_superposition_rows_scratch_floats (int width, int height,
    int channels);
/* Bytes of GbDevicePlane.superposition_scratch for a window of that size. */
size_t gb_superposition_scratch_bytes (int width, int height);
/* The fused separable filter on tensor cores, for 8-bit planes with radii
 * 1 .. GB_FUSED_MAX_RADIUS (along y up to gb_fused_max_radius_y ()); runs
 * only where gb_fused_available() (sm_80 or later code for the current
 * device). Three forms, each measured fastest
 * somewhere (docs/performance.md, issue 3):
 *   registers: one kernel, no shared memory, radii up to
 *     gb_fused_registers_max_radius (channels), both axes' taps may differ
 *     (kernels_fused_registers.cu);
 *   two-pass: the row pass into the plane's intermediate as fp16, then the
 *     column pass; any radii up to GB_FUSED_MAX_RADIUS across and
 *     gb_fused_max_radius_y () down (same file);
 *   shared: one kernel staging tiles in shared memory; the same radius and
 *     taps on both axes, radius past gb_fused_registers_max_radius(), one,
 *     two or four channels (three measured faster in two passes)
 *     (kernels_fused.cu). */
cudaError_t gb_launch_fused_registers (const GbDevicePlane & plane,
    const GbTaps & taps, GbBorder border, cudaStream_t stream);
cudaError_t gb_launch_fused_two_pass (const GbDevicePlane & plane,
    const GbTaps & taps, GbBorder border, cudaStream_t stream);
cudaError_t gb_launch_fused_shared (const GbDevicePlane & plane,
    const GbTaps & taps, GbBorder border, cudaStream_t stream);
int gb_fused_registers_max_radius (int channels);
/* A frame's planes in one launch of the registers form: 8-bit luma of one
 * channel and chroma in one interleaved plane (NV12, NV21, NV24) or two
 * 4:2:0 planes (I420, YV12), each with at most 3 k-steps (radius 16), luma
 * below 2^22 samples (1080p measured faster than a launch each, 4K slower:
 * kernels_fused_registers.cu). Where the planes do not qualify, queues
 * nothing and sets *launched to false. */
cudaError_t gb_launch_fused_registers_planes (const GbDevicePlane * planes,
    const GbTaps * taps, int n_planes, GbBorder border, cudaStream_t stream,
    bool *launched);
/* Whether the shared-memory form has kernels for planes of that many
 * channels (not for three). */
bool gb_fused_shared_has_kernel (int channels);
/* Bytes of the two-pass form's intermediate for a plane. */
size_t gb_fused_two_pass_bytes (int width, int height, int channels);

#define GB_FUSED_MAX_RADIUS 56
/* The two-pass form's column pass on planes of one and two channels reaches
 * further along y: 13 k-steps, past the chroma of 4:2:2 frames below
 * sigma 20 (sigma / 2 across, sigma down, where the multi-scale path
 * does not run: an axis under 10; 21.5 on two-channel chroma under 2^19
 * pixels, gb_multiscale_late_d8). */
#define GB_FUSED_MAX_RADIUS_Y 96
/* The largest radius along y the fused kernels take on a plane of that
 * many channels (along x: GB_FUSED_MAX_RADIUS). */
int gb_fused_max_radius_y (int channels);
bool gb_fused_available (void);

/* The fused separable filter in FP32 for 16-bit planes of one, two or
 * four channels, radii up to 16 on each axis (kernels_fused_float.cu), on
 * any GPU the build has code for whose blocks may opt in to the shared
 * memory the radius needs (shared_per_block: the device's
 * cudaDevAttrMaxSharedMemoryPerBlockOptin; up to 105 KiB, so radius 16
 * not on compute capability 8.6 and 8.9, and up to radius 4 on 7.5). */
bool gb_fused_float_runs (int channels, int bytes_per_sample, int radius_x,
    int radius_y, size_t shared_per_block);
cudaError_t gb_launch_fused_float (const GbDevicePlane & plane,
    const GbTaps & taps, GbBorder border, cudaStream_t stream);

/* The taps of one axis as the tensor-core kernels read them: entry
 * GB_HALF_PAIRS_PAD + i holds taps i and i + 1 (of 0 .. 2 radius, zero
 * elsewhere) as an fp16 pair, so that a lane loads each register of its
 * weight fragments whole, without a bounds check or a conversion; the
 * padding covers the widest apron (8 (K - 1) + 16 columns, K up to 8, of
 * the row pass; the column pass reads within 15 of the taps). Filled on the
 * host when the filter is set; *half_sum is the sum of the taps rounded to
 * fp16. Radius up to GB_FUSED_MAX_RADIUS_Y. */
#define GB_HALF_PAIRS_PAD 72
#define GB_HALF_PAIRS_SIZE \
  (2 * GB_FUSED_MAX_RADIUS_Y + 1 + 2 * GB_HALF_PAIRS_PAD)
void gb_half_pairs_fill (const float *weights, int radius, uint32_t *pairs,
    float *half_sum);

/* The multi-scale interpolation along y (the plan's up_y and its weights
 * in table) as the A fragments of the tensor-core pass in up_kernel
 * (kernels_multiscale.cu), split into fp16 high and low parts: at most
 * GB_MULTISCALE_UP_FRAGMENT_WORDS words. Filled on the host when the
 * filter is set. */
#define GB_MULTISCALE_UP_FRAGMENT_WORDS 512
void gb_multiscale_up_fragments_fill (const GbResample * up_y,
    const float *table, uint32_t *fragments);

/* Segments per line of the recursive passes, and the state buffer a plane
 * of that size needs. */
int gb_recursive_segments (int length);
size_t gb_recursive_state_bytes (int width, int height, int channels);

/* Sharpening (GbPlaneFilter.sharpen > 0): dst = in + amount (in - dst) over
 * the region, after the blur has written dst (kernels_sharpen.cu). */
cudaError_t gb_launch_sharpen (const GbDevicePlane & plane, float amount,
    cudaStream_t stream);

/* A float result stored as an output of type Out: itself in the float
 * intermediates, rounded and saturated (gb_round_sample) in samples. The
 * argument only selects the overload. */
__device__ __forceinline__ float
gb_to_output (float v, float *)
{
  return v;
}

__device__ __forceinline__ uint8_t
gb_to_output (float v, uint8_t *)
{
  return gb_round_u8 (v);
}

__device__ __forceinline__ uint16_t
gb_to_output (float v, uint16_t *)
{
  return gb_round_u16 (v);
}

/* Four neighbouring results in one store: 16, 4 or 8 bytes, which out
 * must be aligned to. */
__device__ __forceinline__ void
gb_store4 (float *out, float4 v)
{
  *reinterpret_cast < float4 * >(out) = v;
}

__device__ __forceinline__ void
gb_store4 (uint8_t * out, float4 v)
{
  *reinterpret_cast < uchar4 * >(out) = make_uchar4 (gb_round_u8 (v.x),
      gb_round_u8 (v.y), gb_round_u8 (v.z), gb_round_u8 (v.w));
}

__device__ __forceinline__ void
gb_store4 (uint16_t * out, float4 v)
{
  *reinterpret_cast < ushort4 * >(out) = make_ushort4 (gb_round_u16 (v.x),
      gb_round_u16 (v.y), gb_round_u16 (v.z), gb_round_u16 (v.w));
}

/* acc += w v, four neighbouring samples at once. */
__device__ __forceinline__ void
gb_fma4 (float4 & acc, float w, const float4 & v)
{
  acc.x += w * v.x;
  acc.y += w * v.y;
  acc.z += w * v.z;
  acc.w += w * v.w;
}

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

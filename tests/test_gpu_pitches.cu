/* GPU kernels on device frames with any alignment: odd base addresses and
 * odd pitches, as buffers from other CUDA code (memory:CUDAMemory) may have.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * gb_blur_process() always stages frames in the backend's own pitched (256-
 * byte aligned) buffers, so the kernels' unaligned paths (byte loads instead
 * of 4- and 16-byte words, byte stores, gray planes not run four lines at a
 * time; for 16-bit samples, per-sample loads and stores instead of four
 * samples at a time) are reached only through gb_cuda_enqueue() on foreign
 * device memory. Every algorithm, channel count and border runs here on
 * misaligned and aligned device frames of 8- and 16-bit samples; each must
 * match the CPU reference within 1 (in the sample's own unit) and leave
 * every byte outside its rows untouched. Exit 77 (skip) without a device.
 *
 * Usage: test-gpu-pitches [--fused-shared | --fused-float]
 *   --fused-shared  only the fused shared-memory kernel's cases, for
 *                   compute-sanitizer racecheck (the parity test's frames
 *                   fit in L2 and take the fused kernel's other forms).
 *   --fused-float   only the 16-bit fused kernel's cases
 *                   (kernels_fused_float.cu), for racecheck likewise.
 */
#include "cuda_backend.h"
#include "filter.h"
#include "gaussblur.h"
#include "kernels.h"

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD_BYTE 0xA5
#define GUARD 64                /* bytes before and after each frame */
#define N_ELEMENTS(a) (sizeof (a) / sizeof (a)[0])

static int failures, cases;

static uint32_t rng_state = 0x9e3779b9u;

static uint8_t
next_byte (void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return (uint8_t) (rng_state >> 11);
}

/* A device frame at `offset` bytes past an allocation's start, rows `pitch`
 * bytes apart, GUARD bytes of GUARD_BYTE around it. */
struct DeviceFrame
{
  uint8_t *allocation;
  uint8_t *data;
  size_t pitch;
  size_t bytes;
};

static int
frame_alloc (DeviceFrame * f, int row_bytes, int height, int offset,
    int pitch_extra)
{
  f->pitch = (size_t) row_bytes + pitch_extra;
  f->bytes = f->pitch * height + 2 * GUARD + offset;
  if (cudaMalloc ((void **) &f->allocation, f->bytes) != cudaSuccess)
    return 0;
  f->data = f->allocation + GUARD + offset;
  return cudaMemset (f->allocation, GUARD_BYTE, f->bytes) == cudaSuccess;
}

/* Every byte of the allocation outside the frame's rows is still GUARD_BYTE. */
static int
guards_intact (const DeviceFrame * f, int row_bytes, int height)
{
  uint8_t *copy = (uint8_t *) malloc (f->bytes);
  const size_t start = f->data - f->allocation;
  int ok = copy && cudaMemcpy (copy, f->allocation, f->bytes,
      cudaMemcpyDeviceToHost) == cudaSuccess;

  for (size_t i = 0; ok && i < f->bytes; i++) {
    const int inside = i >= start && i < start + f->pitch * height
        && (i - start) % f->pitch < (size_t) row_bytes;
    if (!inside && copy[i] != GUARD_BYTE)
      ok = 0;
  }
  free (copy);
  return ok;
}

/* Misaligned frames' offsets from an aligned address and pitch extras
 * (source, destination), by bytes per sample: odd for 8 bits; for 16,
 * multiples of 2 (samples stay aligned, as GStreamer's are) but not of 8,
 * the 16-bit fused kernel's four-sample words. */
static const struct
{
  int offset[2];
  int pitch_extra[2];
} misalignments[2] = { {{1, 3}, {5, 7}}, {{2, 6}, {6, 10}} };

/* Aligned: a pitch of a multiple of 256. Misaligned: never a multiple of
 * 8, which would start every row alike. */
static int
pitch_extra (int row_bytes, int bytes, int misaligned, int frame)
{
  const int extra = misalignments[bytes - 1].pitch_extra[frame];
  if (!misaligned)
    return 256 - row_bytes % 256;
  return (row_bytes + extra) % 8 ? extra : extra + bytes;
}

/* A gradient plus noise in 8-bit levels; 16-bit samples scale it by 257
 * and put noise in the low byte: values span 0 .. 65535. */
static void
fill_source (uint8_t * host, int width, int height, int channels, int bytes)
{
  const int row_samples = width * channels;
  for (int i = 0; i < row_samples * height; i++) {
    const int level = (((i / channels) % width) * 5 + (i / row_samples) * 3
        + (next_byte () & 63)) & 255;
    if (bytes == 1)
      host[i] = (uint8_t) level;
    else
      ((uint16_t *) host)[i] = (uint16_t) ((level * 257) ^ next_byte ());
  }
}

static int
sample_at (const uint8_t * data, int i, int bytes)
{
  return bytes == 1 ? data[i] : ((const uint16_t *) data)[i];
}

static void
run_case (GbCuda * cuda, int width, int height, int channels, int bytes,
    GbAlgorithm algorithm, GbBorder border, double sigma, int misaligned)
{
  const int row_samples = width * channels;
  const int row_bytes = row_samples * bytes;
  GbGeometry geometry = { 1, bytes, {{width, height, channels, 1, 1, 0}} };
  GbParams params = gb_params_make (sigma, 0, algorithm, border);
  GbPlaneFilter *filter = (GbPlaneFilter *) malloc (sizeof *filter);
  uint8_t *host_src = (uint8_t *) malloc ((size_t) row_bytes * height);
  uint8_t *expected = (uint8_t *) malloc ((size_t) row_bytes * height);
  uint8_t *actual = (uint8_t *) malloc ((size_t) row_bytes * height);
  DeviceFrame src = { }, dst = { };
  GbImage host_in = { {0}, {0} }, host_out = { {0}, {0} };
  GbImage device_in = { {0}, {0} }, device_out = { {0}, {0} };
  GbBlur *cpu = NULL;
  GbError error;
  char what[200];
  int worst = 0;

  snprintf (what, sizeof what,
      "%s %s %dx%d channels=%d %d-bit sigma=%g %s",
      gb_algorithm_name (algorithm), gb_border_name (border), width, height,
      channels, 8 * bytes, sigma, misaligned ? "misaligned" : "aligned");
  cases++;
  fill_source (host_src, width, height, channels, bytes);

  /* CPU reference (the same algorithm: its own definition on the CPU). */
  host_in.data[0] = host_src;
  host_in.stride[0] = row_bytes;
  host_out.data[0] = expected;
  host_out.stride[0] = row_bytes;
  if (gb_blur_create (GB_BACKEND_CPU, -1, &geometry, &cpu, &error) != GB_OK
      || gb_blur_set_params (cpu, &params, &error) != GB_OK
      || gb_blur_process (cpu, &host_in, &host_out, &error) != GB_OK) {
    printf ("FAIL: %s: CPU: %s\n", what, error.message);
    failures++;
    goto out;
  }

  if (!frame_alloc (&src, row_bytes, height,
          misaligned ? misalignments[bytes - 1].offset[0] : 0,
          pitch_extra (row_bytes, bytes, misaligned, 0))
      || !frame_alloc (&dst, row_bytes, height,
          misaligned ? misalignments[bytes - 1].offset[1] : 0,
          pitch_extra (row_bytes, bytes, misaligned, 1))
      || cudaMemcpy2D (src.data, src.pitch, host_src, row_bytes, row_bytes,
          height, cudaMemcpyHostToDevice) != cudaSuccess) {
    printf ("FAIL: %s: device frames\n", what);
    failures++;
    goto out;
  }
  device_in.data[0] = src.data;
  device_in.stride[0] = src.pitch;
  device_out.data[0] = dst.data;
  device_out.stride[0] = dst.pitch;

  gb_plane_filters_resolve (&params, &geometry, filter);
  if (gb_cuda_configure (cuda, &geometry, &error) != GB_OK
      || gb_cuda_set_filters (cuda, filter, &error) != GB_OK
      || gb_cuda_enqueue (cuda, &device_in, &device_out, algorithm, border,
          &error) != GB_OK
      || gb_cuda_synchronize (cuda, &error) != GB_OK) {
    printf ("FAIL: %s: GPU: %s\n", what, error.message);
    failures++;
    goto out;
  }
  if (cudaMemcpy2D (actual, row_bytes, dst.data, dst.pitch, row_bytes, height,
          cudaMemcpyDeviceToHost) != cudaSuccess) {
    printf ("FAIL: %s: download\n", what);
    failures++;
    goto out;
  }
  for (int i = 0; i < row_samples * height; i++) {
    const int d = abs (sample_at (actual, i, bytes)
        - sample_at (expected, i, bytes));
    worst = d > worst ? d : worst;
  }
  if (worst > 1) {
    printf ("FAIL: %s: max difference %d\n", what, worst);
    failures++;
  }
  if (!guards_intact (&dst, row_bytes, height)) {
    printf ("FAIL: %s: wrote outside the destination's rows\n", what);
    failures++;
  }
out:
  gb_blur_destroy (cpu);
  cudaFree (src.allocation);
  cudaFree (dst.allocation);
  free (filter);
  free (host_src);
  free (expected);
  free (actual);
}

/* The cases of every combination, aligned then misaligned, all borders. */
struct Sweep
{
  int bytes;
  const int (*sizes)[2];
  size_t n_sizes;
  const int *channels;
  size_t n_channels;
  const GbAlgorithm *algorithms;
  size_t n_algorithms;
  const double *sigmas;
  size_t n_sigmas;
};

static void
run_sweep (GbCuda * cuda, const Sweep * w)
{
  for (int misaligned = 0; misaligned < 2; misaligned++)
    for (size_t s = 0; s < w->n_sizes; s++)
      for (size_t c = 0; c < w->n_channels; c++)
        for (size_t a = 0; a < w->n_algorithms; a++)
          for (int b = GB_BORDER_CLAMP; b <= GB_BORDER_ZERO; b++)
            for (size_t g = 0; g < w->n_sigmas; g++)
              run_case (cuda, w->sizes[s][0], w->sizes[s][1],
                  w->channels[c], w->bytes, w->algorithms[a], (GbBorder) b,
                  w->sigmas[g], misaligned);
}

#define SWEEP(bytes, sizes, n_sizes, channels, algorithms, sigmas) \
  { bytes, sizes, n_sizes, channels, N_ELEMENTS (channels), algorithms, \
    N_ELEMENTS (algorithms), sigmas, N_ELEMENTS (sigmas) }

int
main (int argc, char **argv)
{
  const char *option = argc > 1 ? argv[1] : "";
  const bool fused_shared_only = strcmp (option, "--fused-shared") == 0;
  const bool fused_float_only = strcmp (option, "--fused-float") == 0;
  /* The last is for 16-bit samples only: an odd width past the 16-bit
   * fused kernel's 512-sample strips even in gray. Every height spans
   * several of its 8-row batches and, on frames this small, 16-row
   * chunks. */
  static const int sizes[][2] = { {61, 47}, {256, 64}, {130, 70},
  {517, 45}
  };
  const size_t n_sizes8 = 3;
  static const int channel_counts[] = { 1, 2, 3, 4 };
  static const GbAlgorithm algorithms[] = { GB_ALGORITHM_SEPARABLE,
    GB_ALGORITHM_FUSED, GB_ALGORITHM_RECURSIVE, GB_ALGORITHM_MULTISCALE
  };
  static const double sigmas[] = { 1.0, 3.0, 10.0, 20.0 };
  /* 16-bit fused: its FP32 kernel up to radius 16 (sigma 1, 3, 4.5: radius
   * 4, 11, 16), separable beyond. */
  static const double sigmas16[] = { 1.0, 3.0, 4.5, 10.0, 20.0 };
  /* These planes' fp16 intermediates fit in L2, so 8-bit fused took its
   * registers form (sigma 1, 3) and its two-pass form (10, 20) in the
   * first sweep; the shared-memory kernel, for planes that do not fit, in
   * this one (three channels take the two-pass form at every size): radius
   * 18 to 56, k-steps 4 to 8, the row pass one k-step shorter (radius mod
   * 8 in 1 .. 4: 18, 25, 28, 35) or not (21, 46, 56); 20 is past its
   * reach. */
  static const GbAlgorithm fused[] = { GB_ALGORITHM_FUSED };
  static const double shared_sigmas[] = { 5.0, 6.0, 7.0, 8.0, 10.0, 13.0,
    16.0, 20.0
  };
  /* For racecheck: a frame of one strip and one of two, each a few chunks
   * tall, and the channel counts of the FP32 kernel. */
  static const int float_sizes[][2] = { {61, 47}, {517, 45} };
  static const int float_channels[] = { 1, 2, 4 };
  static const double float_sigmas[] = { 1.0, 3.0 };
  const Sweep all8 = SWEEP (1, sizes, n_sizes8, channel_counts, algorithms,
      sigmas);
  const Sweep all16 = SWEEP (2, sizes, N_ELEMENTS (sizes), channel_counts,
      algorithms, sigmas16);
  const Sweep shared8 = SWEEP (1, sizes, n_sizes8, channel_counts, fused,
      shared_sigmas);
  const Sweep float16 = SWEEP (2, float_sizes, N_ELEMENTS (float_sizes),
      float_channels, fused, float_sigmas);
  GbCuda *cuda;
  GbError error;

  if (*option && !fused_shared_only && !fused_float_only) {
    fprintf (stderr, "usage: %s [--fused-shared | --fused-float]\n",
        argv[0]);
    return 2;
  }
  /* The FP32 kernel's shared memory against the devices' limits (host
   * arithmetic: runs without a GPU too): radius 16 needs 105 KiB, past
   * compute capability 8.6's 99; 7.5's 64 take radius 4, not 8. */
  if (!gb_fused_float_runs (4, 2, 16, 16, 227 * 1024)
      || gb_fused_float_runs (1, 2, 16, 16, 99 * 1024)
      || !gb_fused_float_runs (4, 2, 12, 12, 99 * 1024)
      || !gb_fused_float_runs (4, 2, 4, 4, 64 * 1024)
      || gb_fused_float_runs (1, 2, 5, 5, 64 * 1024)
      || gb_fused_float_runs (4, 2, 17, 1, 227 * 1024)
      || gb_fused_float_runs (3, 2, 4, 4, 227 * 1024)
      || gb_fused_float_runs (1, 1, 4, 4, 227 * 1024)) {
    printf ("FAIL: gb_fused_float_runs () against shared-memory limits\n");
    return 1;
  }
  if (gb_cuda_create (-1, &cuda, &error) != GB_OK) {
    printf ("SKIP: %s\n", error.message);
    return error.status == GB_ERROR_NO_DEVICE ? 77 : 1;
  }
  if (fused_float_only) {
    run_sweep (cuda, &float16);
  } else {
    if (!fused_shared_only) {
      run_sweep (cuda, &all8);
      run_sweep (cuda, &all16);
    }
    gb_cuda_set_fused_two_pass_limit (cuda, 0);
    run_sweep (cuda, &shared8);
  }
  gb_cuda_destroy (cuda);
  printf ("%d cases, %d failures\n", cases, failures);
  return failures ? 1 : 0;
}

/* GPU kernels on device frames with any alignment: odd base addresses and
 * odd pitches, as buffers from other CUDA code (memory:CUDAMemory) may have.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * gb_blur_process() always stages frames in the backend's own pitched (256-
 * byte aligned) buffers, so the kernels' unaligned paths (byte loads instead
 * of 4- and 16-byte words, byte stores, gray planes not run four lines at a
 * time) are reached only through gb_cuda_enqueue() on foreign device
 * memory. Every algorithm, channel count and border runs here on
 * misaligned and aligned device frames; each must match the CPU reference
 * within 1 and leave every byte outside its rows untouched. Exit 77 (skip)
 * without a device.
 *
 * Usage: test-gpu-pitches [--fused-shared]
 *   --fused-shared  only the fused shared-memory kernel's cases, for
 *                   compute-sanitizer racecheck (the parity test's frames
 *                   fit in L2 and take the fused kernel's other forms).
 */
#include "cuda_backend.h"
#include "filter.h"
#include "gaussblur.h"

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUARD_BYTE 0xA5
#define GUARD 64                /* bytes before and after each frame */

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

static void
run_case (GbCuda * cuda, int width, int height, int channels,
    GbAlgorithm algorithm, GbBorder border, double sigma, int misaligned)
{
  const int row_bytes = width * channels;
  GbGeometry geometry = { 1, 1, {{width, height, channels, 1, 1, 0}} };
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

  snprintf (what, sizeof what, "%s %s %dx%d channels=%d sigma=%g %s",
      gb_algorithm_name (algorithm), gb_border_name (border), width, height,
      channels, sigma, misaligned ? "misaligned" : "aligned");
  cases++;
  for (int i = 0; i < row_bytes * height; i++)
    host_src[i] = (uint8_t) ((((i / channels) % width) * 5 + (i / row_bytes)
            * 3 + (next_byte () & 63)) & 255);

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

  if (!frame_alloc (&src, row_bytes, height, misaligned ? 1 : 0,
          misaligned ? 5 : 256 - row_bytes % 256)
      || !frame_alloc (&dst, row_bytes, height, misaligned ? 3 : 0,
          misaligned ? 7 : 256 - row_bytes % 256)
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
  for (int i = 0; i < row_bytes * height; i++) {
    const int d = abs ((int) actual[i] - (int) expected[i]);
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

int
main (int argc, char **argv)
{
  const bool fused_shared_only = argc > 1
      && strcmp (argv[1], "--fused-shared") == 0;
  static const int sizes[][2] = { {61, 47}, {256, 64}, {130, 70} };
  static const int channel_counts[] = { 1, 2, 3, 4 };
  static const GbAlgorithm algorithms[] = { GB_ALGORITHM_SEPARABLE,
    GB_ALGORITHM_FUSED, GB_ALGORITHM_RECURSIVE, GB_ALGORITHM_MULTISCALE
  };
  static const double sigmas[] = { 1.0, 3.0, 10.0, 20.0 };
  GbCuda *cuda;
  GbError error;

  if (gb_cuda_create (-1, &cuda, &error) != GB_OK) {
    printf ("SKIP: %s\n", error.message);
    return error.status == GB_ERROR_NO_DEVICE ? 77 : 1;
  }
  for (int misaligned = 0; misaligned < 2 && !fused_shared_only; misaligned++)
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
      for (int c = 0; c < 4; c++)
        for (int a = 0; a < 4; a++)
          for (int b = GB_BORDER_CLAMP; b <= GB_BORDER_ZERO; b++)
            for (int g = 0; g < 4; g++)
              run_case (cuda, sizes[s][0], sizes[s][1], channel_counts[c],
                  algorithms[a], (GbBorder) b, sigmas[g], misaligned);
  /* These planes' fp16 intermediates fit in L2, so fused took its
   * registers form (sigma 1, 3) and its two-pass form (10, 20) above; the
   * shared-memory kernel, for planes that do not fit, here (three channels
   * take the two-pass form at every size): radius 18 to
   * 56, k-steps 4 to 8, the row pass one k-step shorter (radius mod 8 in
   * 1 .. 4: 18, 25, 28, 35) or not (21, 46, 56); 20 is past its reach. */
  static const double shared_sigmas[] = { 5.0, 6.0, 7.0, 8.0, 10.0, 13.0,
    16.0, 20.0
  };
  gb_cuda_set_fused_two_pass_limit (cuda, 0);
  for (int misaligned = 0; misaligned < 2; misaligned++)
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
      for (int c = 0; c < 4; c++)
        for (int b = GB_BORDER_CLAMP; b <= GB_BORDER_ZERO; b++)
          for (size_t g = 0; g < sizeof shared_sigmas / sizeof
              shared_sigmas[0]; g++)
            run_case (cuda, sizes[s][0], sizes[s][1], channel_counts[c],
                GB_ALGORITHM_FUSED, (GbBorder) b, shared_sigmas[g],
                misaligned);
  gb_cuda_destroy (cuda);
  printf ("%d cases, %d failures\n", cases, failures);
  return failures ? 1 : 0;
}

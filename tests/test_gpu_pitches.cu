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
 * every byte outside its rows untouched. Multi-plane 8-bit frames (NV12,
 * I420, Y444, NV24) run the fused filter likewise, each plane at an offset
 * and pitch of its own, once with the planes in one launch where they
 * qualify (gb_cuda_set_planes_in_one_launch: all but Y444) and once each
 * apart. Exit 77 (skip) without a device.
 *
 * Usage: test-gpu-pitches [--fused-shared | --fused-float | --planes |
 *                          --staged | --down-rows | --separable]
 *   --fused-shared  only the fused shared-memory kernel's cases, for
 *                   compute-sanitizer racecheck (the parity test's frames
 *                   fit in L2 and take the fused kernel's other forms).
 *   --fused-float   only the 16-bit fused kernel's cases
 *                   (kernels_fused_float.cu), for racecheck likewise.
 *   --planes        only the multi-plane cases.
 *   --staged        only the planes of one, three and four channels large
 *                   enough for the fused kernel to stage their rows in
 *                   shared memory (kernels_fused_registers.cu: 2^22
 *                   samples, 16-byte aligned), for racecheck.
 *   --down-rows     only multiscale on planes whose rows go down along x
 *                   first in down_rows_kernel, for racecheck.
 *   --separable     only the separable passes' wide specialisations at
 *                   radius 18, 35 and 46 (run at 20, 36 and 48), 8- and
 *                   16-bit, for memcheck and racecheck.
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

/* Multi-plane 8-bit layouts (as test-gpu-formats' layouts): plane 0 of one
 * channel, the others alike. NV24 is here for the one-launch kernel of two
 * full-size chroma channels at 3 k-steps, which 4:2:0 never takes (its
 * chroma reaches 3 k-steps only where luma is past 3). I420's two chroma
 * planes share one body of the kernel; Y444 launches a plane apart either
 * way. */
struct PlanesLayout
{
  const char *name;
  int n_planes;
  int chroma_channels;
  int subsampling;              /* of the chroma planes, both ways */
};

static const PlanesLayout planes_layouts[] = {
  {"NV12", 2, 2, 2}, {"I420", 3, 1, 2}, {"Y444", 3, 1, 1}, {"NV24", 2, 2, 1}
};

/* Alignment of a multi-plane frame's planes: all aligned, all misaligned,
 * mixed (odd planes misaligned), odd offsets (odd planes at an odd
 * address, every pitch aligned), or last offset (the last plane alone at
 * an odd address, pitches aligned). In the last two I420's chroma planes
 * keep equal pitches and share the one launch's chroma body with different
 * alignments, either way round: each plane's must be its own. */
#define ALIGNMENT_MODES 5

static int
plane_misaligned (int misaligned, int p, int n_planes)
{
  return misaligned == 4 ? p == n_planes - 1 : misaligned >= 2 ? p % 2
      : misaligned;
}

/* ...and its pitch: aligned in the modes of odd offsets. */
static int
pitch_misaligned (int misaligned, int p, int n_planes)
{
  return misaligned >= 3 ? 0 : plane_misaligned (misaligned, p, n_planes);
}

static const char *const alignment_names[ALIGNMENT_MODES] = { "aligned",
  "misaligned", "mixed", "odd offsets", "last offset"
};

static int
k_steps (const GbPlaneFilter * filter)
{
  return 1 + (gb_plane_filter_radius (filter) + 7) / 8;
}

/* One multi-plane frame, blurred twice with the fused filter: its planes
 * in one launch, then each apart; both against one CPU reference. */
static void
run_planes_case (GbCuda * cuda, const PlanesLayout * layout, int width,
    int height, GbBorder border, double sigma, int misaligned)
{
  const int n_planes = layout->n_planes;
  GbGeometry geometry = { };
  GbParams params = gb_params_make (sigma, 0, GB_ALGORITHM_FUSED, border);
  GbPlaneFilter *filters =
      (GbPlaneFilter *) malloc (GB_MAX_PLANES * sizeof *filters);
  int row_bytes[GB_MAX_PLANES] = { }, heights[GB_MAX_PLANES] = { };
  uint8_t *host_src[GB_MAX_PLANES] = { }, *expected[GB_MAX_PLANES] = { };
  uint8_t *actual[GB_MAX_PLANES] = { };
  DeviceFrame src[GB_MAX_PLANES] = { }, dst[GB_MAX_PLANES] = { };
  GbImage host_in = { {0}, {0} }, host_out = { {0}, {0} };
  GbImage device_in = { {0}, {0} }, device_out = { {0}, {0} };
  GbBlur *cpu = NULL;
  GbError error;
  char what[200];
  int length, qualifies;

  geometry.n_planes = n_planes;
  geometry.bytes_per_sample = 1;
  for (int p = 0; p < n_planes; p++) {
    GbPlaneGeometry *plane = &geometry.planes[p];
    const int sub = p ? layout->subsampling : 1;
    /* Chroma planes of odd sizes round up, as GStreamer's do. */
    plane->width = (width + sub - 1) / sub;
    plane->height = (height + sub - 1) / sub;
    plane->channels = p ? layout->chroma_channels : 1;
    plane->subsampling_x = plane->subsampling_y = sub;
    row_bytes[p] = plane->width * plane->channels;
    heights[p] = plane->height;
    host_src[p] = (uint8_t *) malloc ((size_t) row_bytes[p] * heights[p]);
    expected[p] = (uint8_t *) malloc ((size_t) row_bytes[p] * heights[p]);
    actual[p] = (uint8_t *) malloc ((size_t) row_bytes[p] * heights[p]);
    fill_source (host_src[p], plane->width, plane->height, plane->channels,
        1);
    host_in.data[p] = host_src[p];
    host_in.stride[p] = row_bytes[p];
    host_out.data[p] = expected[p];
    host_out.stride[p] = row_bytes[p];
  }
  gb_plane_filters_resolve (&params, &geometry, filters);

  /* The k-steps name the one-launch kernel (k0, k1) the frame takes, if
   * any (at most 3 each). */
  length = snprintf (what, sizeof what, "%s %s %dx%d sigma=%g k=%d",
      layout->name, gb_border_name (border), width, height, sigma,
      k_steps (&filters[0]));
  for (int p = 1; p < n_planes; p++)
    length += snprintf (what + length, sizeof what - length, ",%d",
        k_steps (&filters[p]));
  snprintf (what + length, sizeof what - length, " %s",
      alignment_names[misaligned]);

  if (gb_blur_create (GB_BACKEND_CPU, -1, &geometry, &cpu, &error) != GB_OK
      || gb_blur_set_params (cpu, &params, &error) != GB_OK
      || gb_blur_process (cpu, &host_in, &host_out, &error) != GB_OK) {
    cases++;
    printf ("FAIL: %s: CPU: %s\n", what, error.message);
    failures++;
    goto out;
  }

  for (int p = 0; p < n_planes; p++) {
    const int m = plane_misaligned (misaligned, p, n_planes);
    /* Each plane an odd offset of its own when misaligned. */
    if (!frame_alloc (&src[p], row_bytes[p], heights[p],
            m ? misalignments[0].offset[0] + 2 * p : 0,
            pitch_extra (row_bytes[p], 1, pitch_misaligned (misaligned, p,
                    n_planes), 0))
        || !frame_alloc (&dst[p], row_bytes[p], heights[p],
            m ? misalignments[0].offset[1] + 2 * p : 0,
            pitch_extra (row_bytes[p], 1, pitch_misaligned (misaligned, p,
                    n_planes), 1))
        || cudaMemcpy2D (src[p].data, src[p].pitch, host_src[p],
            row_bytes[p], row_bytes[p], heights[p],
            cudaMemcpyHostToDevice) != cudaSuccess) {
      cases++;
      printf ("FAIL: %s: device frames\n", what);
      failures++;
      goto out;
    }
    device_in.data[p] = src[p].data;
    device_in.stride[p] = src[p].pitch;
    device_out.data[p] = dst[p].data;
    device_out.stride[p] = dst[p].pitch;
  }
  if (gb_cuda_configure (cuda, &geometry, &error) != GB_OK
      || gb_cuda_set_filters (cuda, filters, &error) != GB_OK) {
    cases++;
    printf ("FAIL: %s: GPU: %s\n", what, error.message);
    failures++;
    goto out;
  }

  /* Which frames the backend must blur in one launch (planes_run ()):
   * NV12 and NV24, and I420 whose chroma planes have equal pitches, all
   * planes within 3 k-steps (luma below 2^22 samples, as here). */
  qualifies = layout->n_planes == 2 || (layout->subsampling == 2
      && src[1].pitch == src[2].pitch && dst[1].pitch == dst[2].pitch);
  for (int p = 0; p < n_planes; p++)
    qualifies = qualifies && k_steps (&filters[p]) <= 3;

  for (int one_launch = 1; one_launch >= 0; one_launch--) {
    const char *mode = one_launch ? "one launch" : "planes apart";
    int worst = 0, poisoned = 1, downloaded = 1, intact = 1;

    cases++;
    gb_cuda_set_planes_in_one_launch (cuda, one_launch);
    /* Guard bytes again over the whole destination: the first run's
     * output must not pass for the second's. */
    for (int p = 0; p < n_planes; p++)
      poisoned = poisoned && cudaMemset (dst[p].allocation, GUARD_BYTE,
          dst[p].bytes) == cudaSuccess;
    if (!poisoned) {
      printf ("FAIL: %s %s: device frames\n", what, mode);
      failures++;
      continue;
    }
    if (gb_cuda_enqueue (cuda, &device_in, &device_out, GB_ALGORITHM_FUSED,
            border, &error) != GB_OK
        || gb_cuda_synchronize (cuda, &error) != GB_OK) {
      printf ("FAIL: %s %s: GPU: %s\n", what, mode, error.message);
      failures++;
      continue;
    }
    if (gb_cuda_last_frame_in_one_launch (cuda) != (one_launch && qualifies)) {
      printf ("FAIL: %s %s: %s in one launch\n", what, mode,
          gb_cuda_last_frame_in_one_launch (cuda) ? "blurred" : "not blurred");
      failures++;
    }
    for (int p = 0; p < n_planes; p++) {
      if (cudaMemcpy2D (actual[p], row_bytes[p], dst[p].data, dst[p].pitch,
              row_bytes[p], heights[p], cudaMemcpyDeviceToHost)
          != cudaSuccess) {
        downloaded = 0;
        break;
      }
      for (int i = 0; i < row_bytes[p] * heights[p]; i++) {
        const int d = abs (actual[p][i] - expected[p][i]);
        worst = d > worst ? d : worst;
      }
      intact = intact && guards_intact (&dst[p], row_bytes[p], heights[p]);
    }
    if (!downloaded) {
      printf ("FAIL: %s %s: download\n", what, mode);
      failures++;
      continue;
    }
    if (worst > 1) {
      printf ("FAIL: %s %s: max difference %d\n", what, mode, worst);
      failures++;
    }
    if (!intact) {
      printf ("FAIL: %s %s: wrote outside the destination's rows\n", what,
          mode);
      failures++;
    }
  }
out:
  gb_cuda_set_planes_in_one_launch (cuda, 1);
  gb_blur_destroy (cpu);
  for (int p = 0; p < GB_MAX_PLANES; p++) {
    cudaFree (src[p].allocation);
    cudaFree (dst[p].allocation);
    free (host_src[p]);
    free (expected[p]);
    free (actual[p]);
  }
  free (filters);
}

/* Automatic radius ceil(3.5 sigma): luma 4, 7, 11 and 16 at sigma 1, 2, 3
 * and 4.5 (k-steps 2, 2, 3, 3), 4:2:0 chroma (half the sigma) 2, 4, 6 and
 * 8 (2 each), full-size chroma as luma: the one-launch kernels (k0, k1) =
 * (2, 2), (3, 2) and (3, 3). Sigma 5 (luma radius 18, 4 k-steps) is past
 * them: its planes launch apart either way. A small frame, and one of many
 * blocks each with several units and column groups (sized for memcheck). */
static void
run_planes_sweep (GbCuda * cuda)
{
  static const int sizes[][2] = { {97, 61}, {1283, 723} };
  static const double sigmas[] = { 1.0, 2.0, 3.0, 4.5, 5.0 };

  for (int misaligned = 0; misaligned < ALIGNMENT_MODES; misaligned++)
    for (size_t l = 0; l < N_ELEMENTS (planes_layouts); l++)
      for (size_t s = 0; s < N_ELEMENTS (sizes); s++)
        for (int b = GB_BORDER_CLAMP; b <= GB_BORDER_ZERO; b++)
          for (size_t g = 0; g < N_ELEMENTS (sigmas); g++)
            run_planes_case (cuda, &planes_layouts[l], sizes[s][0],
                sizes[s][1], (GbBorder) b, sigmas[g], misaligned);
}

int
main (int argc, char **argv)
{
  const char *option = argc > 1 ? argv[1] : "";
  const bool fused_shared_only = strcmp (option, "--fused-shared") == 0;
  const bool fused_float_only = strcmp (option, "--fused-float") == 0;
  const bool planes_only = strcmp (option, "--planes") == 0;
  const bool staged_only = strcmp (option, "--staged") == 0;
  const bool down_rows_only = strcmp (option, "--down-rows") == 0;
  const bool separable_only = strcmp (option, "--separable") == 0;
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
   * 4, 11, 16), separable beyond; the separable passes' wide
   * specialisations from radius 17 to 48 (sigma 5, 10, 13: radius 18, 35
   * and 46, run at 20, 36 and 48), their run-time passes past them (20). */
  static const double sigmas16[] = { 1.0, 3.0, 4.5, 5.0, 10.0, 13.0, 20.0 };
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
  /* Planes of at least 2^22 samples, whose aligned frames the fused
   * kernel stages (one and three channels at 2 and 3 k-steps: sigma 1, 3;
   * four channels, on such planes only, at 2) except in their first and
   * last column groups: a last group of one strip (4097) and of part of
   * its strips (2100), odd heights. The misaligned frames load. */
  static const int staged_sizes[][2] = { {2100, 2003}, {4097, 1025} };
  static const int staged_channels[] = { 1, 3, 4 };
  /* multiscale's rows first in down_rows_kernel (one or two 8-bit
   * channels): D = 16 here (sigma 60), D = 8 in the sweep above (20). */
  static const int down_rows_channels[] = { 1, 2 };
  static const GbAlgorithm multiscale[] = { GB_ALGORITHM_MULTISCALE };
  static const double down_rows_sigmas[] = { 60.0 };
  /* For racecheck: down_rows_kernel at both its D, and at D = 8 the
   * column pass that blurs its rows along x (columns_blur_x_kernel): in
   * eight tap parts on the first three sizes' rows (at most 32 runs), in
   * four on the last's (two channels: 276 elements, more runs than a block
   * has threads for). */
  static const int down_rows_sizes[][2] = { {61, 47}, {256, 64}, {130, 70},
  {1024, 64}
  };
  static const double down_rows_both[] = { 20.0, 60.0 };
  /* The separable passes' wide specialisations: radius 18, 35 and 46 (run
   * at 20, 36 and 48). */
  static const GbAlgorithm separable[] = { GB_ALGORITHM_SEPARABLE };
  static const double wide_sigmas[] = { 5.0, 10.0, 13.0 };
  const Sweep all8 = SWEEP (1, sizes, n_sizes8, channel_counts, algorithms,
      sigmas);
  const Sweep all16 = SWEEP (2, sizes, N_ELEMENTS (sizes), channel_counts,
      algorithms, sigmas16);
  const Sweep shared8 = SWEEP (1, sizes, n_sizes8, channel_counts, fused,
      shared_sigmas);
  const Sweep float16 = SWEEP (2, float_sizes, N_ELEMENTS (float_sizes),
      float_channels, fused, float_sigmas);
  const Sweep staged8 = SWEEP (1, staged_sizes, N_ELEMENTS (staged_sizes),
      staged_channels, fused, float_sigmas);
  const Sweep down_rows8 = SWEEP (1, sizes, n_sizes8, down_rows_channels,
      multiscale, down_rows_sigmas);
  const Sweep down_rows_race = SWEEP (1, down_rows_sizes,
      N_ELEMENTS (down_rows_sizes), down_rows_channels, multiscale,
      down_rows_both);
  const Sweep wide8 = SWEEP (1, sizes, n_sizes8, channel_counts, separable,
      wide_sigmas);
  const Sweep wide16 = SWEEP (2, sizes, N_ELEMENTS (sizes), channel_counts,
      separable, wide_sigmas);
  GbCuda *cuda;
  GbError error;

  if (*option && !fused_shared_only && !fused_float_only && !planes_only
      && !staged_only && !down_rows_only && !separable_only) {
    fprintf (stderr, "usage: %s [--fused-shared | --fused-float | --planes "
        "| --staged | --down-rows | --separable]\n", argv[0]);
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
  } else if (planes_only) {
    run_planes_sweep (cuda);
  } else if (staged_only) {
    run_sweep (cuda, &staged8);
  } else if (down_rows_only) {
    run_sweep (cuda, &down_rows_race);
  } else if (separable_only) {
    run_sweep (cuda, &wide8);
    run_sweep (cuda, &wide16);
  } else {
    if (!fused_shared_only) {
      run_sweep (cuda, &all8);
      run_sweep (cuda, &down_rows8);
      run_sweep (cuda, &staged8);
      run_sweep (cuda, &all16);
      /* Before the two-pass limit goes: planes apart as they run. */
      run_planes_sweep (cuda);
    }
    gb_cuda_set_fused_two_pass_limit (cuda, 0);
    run_sweep (cuda, &shared8);
  }
  gb_cuda_destroy (cuda);
  printf ("%d cases, %d failures\n", cases, failures);
  return failures ? 1 : 0;
}

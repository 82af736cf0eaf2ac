/* GPU parity: every CUDA algorithm against the CPU reference, max difference 1.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Exits 77 (skipped under meson) where no CUDA device is usable.
 * Usage: test-gpu-parity [--quick | --race]
 *   --quick  a reduced matrix (small sizes), for compute-sanitizer memcheck;
 *   --race   the shared-memory kernels only (shared, separable), radii that
 *            take the unrolled, generic and multi-strip paths, for
 *            compute-sanitizer racecheck, which is much slower.
 * Both include a 2100x300 frame, large enough for the separable kernels'
 * interior blocks (which skip the border rule); on it they leave out the 2D
 * kernels, which have no interior path and would take minutes there.
 *
 * The reference is the CPU backend running the same algorithm. Where that
 * would take minutes (2D algorithms at large radius on large frames: more
 * than REFERENCE_2D_TAP_LIMIT multiply-adds) the reference is the CPU
 * separable result instead: the same function, since the Gaussian factors
 * per axis for every border mode (docs/algorithms.md); the CPU 2D code itself
 * is checked against the independent reference of test-core.
 */
#include "blur_once.h"
#include "gaussblur.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_ELEMENTS(array) ((int) (sizeof (array) / sizeof ((array)[0])))
#define REFERENCE_2D_TAP_LIMIT 2.0e9
#define SRC_PADDING 13          /* odd paddings: rows start unaligned */
#define DST_PADDING 7
#define PADDING_BYTE 0xA5

typedef struct
{
  int width, height;
} Size;

static uint32_t rng_state = 0x12345678u;

static uint8_t
next_byte (void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return (uint8_t) (rng_state >> 11);
}

typedef struct
{
  uint8_t *memory;
  GbImage image;
  size_t stride;
  int height;
} Frame;

static void
frame_alloc (Frame * frame, int width, int height, int channels, int padding)
{
  frame->stride = (size_t) width * channels + padding;
  frame->height = height;
  frame->memory = malloc (frame->stride * height);
  if (!frame->memory) {
    fprintf (stderr, "out of host memory\n");
    exit (1);
  }
  memset (&frame->image, 0, sizeof frame->image);
  frame->image.data[0] = frame->memory;
  frame->image.stride[0] = frame->stride;
}

/* Random samples with smooth structure too, so that blurs of every radius
 * produce values that do not all round the same way. */
static void
frame_fill (Frame * frame, int width, int channels)
{
  for (int y = 0; y < frame->height; y++)
    for (int s = 0; s < width * channels; s++) {
      int smooth = ((s / channels) * 7 + y * 3) & 255;
      frame->memory[y * frame->stride + s] =
          (uint8_t) ((smooth + (next_byte () & 127)) & 255);
    }
}

static void
frame_poison (Frame * frame)
{
  memset (frame->memory, PADDING_BYTE, frame->stride * frame->height);
}

static int
padding_intact (const Frame * frame, int row_bytes)
{
  for (int y = 0; y < frame->height; y++)
    for (size_t i = row_bytes; i < frame->stride; i++)
      if (frame->memory[y * frame->stride + i] != PADDING_BYTE)
        return 0;
  return 1;
}

static int
max_difference (const Frame * a, const Frame * b, int row_bytes)
{
  int worst = 0;
  for (int y = 0; y < a->height; y++)
    for (int i = 0; i < row_bytes; i++) {
      int d = abs ((int) a->memory[y * a->stride + i]
          - (int) b->memory[y * b->stride + i]);
      if (d > worst)
        worst = d;
    }
  return worst;
}

static int failures, cases;

static void
check (int ok, const char *what)
{
  if (!ok) {
    failures++;
    printf ("FAIL: %s\n", what);
  }
}

/* A one-plane 8-bit geometry's source (poisoned padding, filled) and two
 * destinations, and a CUDA handle for it; NULL (a failure counted and
 * printed) if the handle cannot be made. frames_close() frees the frames
 * either way. */
static GbBlur *
frames_open (const GbGeometry * geometry, Frame * src, Frame * gpu_out,
    Frame * cpu_out)
{
  const GbPlaneGeometry *plane = &geometry->planes[0];
  GbBlur *gpu = NULL;
  GbError error;

  frame_alloc (src, plane->width, plane->height, plane->channels,
      SRC_PADDING);
  frame_alloc (gpu_out, plane->width, plane->height, plane->channels,
      DST_PADDING);
  frame_alloc (cpu_out, plane->width, plane->height, plane->channels,
      DST_PADDING);
  frame_poison (src);
  frame_fill (src, plane->width, plane->channels);
  if (gb_blur_create (GB_BACKEND_CUDA, -1, geometry, &gpu, &error) != GB_OK) {
    printf ("FAIL: create %dx%d: %s\n", plane->width, plane->height,
        error.message);
    failures++;
    return NULL;
  }
  return gpu;
}

static void
frames_close (Frame * src, Frame * gpu_out, Frame * cpu_out)
{
  free (src->memory);
  free (gpu_out->memory);
  free (cpu_out->memory);
}

/* One size and channel count: every algorithm, border and sigma through one
 * CUDA handle (as the element uses it), each against its CPU reference. */
/* Racecheck tracks every shared-memory access: the 2D shared kernel at the
 * largest race radius would take many minutes and runs the same strip loop
 * as at radius 35, so race mode leaves it out. */
#define RACE_2D_RADIUS_LIMIT 40
#define SANITIZER_2D_SAMPLE_LIMIT 100000

static void
run_size (Size size, int channels, const double *sigmas, int n_sigmas,
    int first_algorithm, int last_algorithm, int race, int sanitizer)
{
  const int row_bytes = size.width * channels;
  GbGeometry geometry = { 1, 1, {{size.width, size.height, channels, 1, 1, 0}} };
  Frame src, gpu_out, cpu_out;
  GbBlur *gpu = frames_open (&geometry, &src, &gpu_out, &cpu_out);
  GbError error;
  unsigned allocations;

  if (!gpu)
    goto out;
  allocations = gb_blur_get_allocation_count (gpu);

  for (int a = first_algorithm; a <= last_algorithm; a++)
    for (int b = GB_BORDER_CLAMP; b <= GB_BORDER_ZERO; b++)
      for (int i = 0; i < n_sigmas; i++) {
        GbParams params = gb_params_make (sigmas[i], 0, (GbAlgorithm) a, (GbBorder) b);
        GbParams reference = params;
        int radius = gb_effective_radius (&params);
        double taps_2d = (double) (2 * radius + 1) * (2 * radius + 1)
            * row_bytes * size.height;
        char what[200];
        int diff;

        if (race && a == GB_ALGORITHM_SHARED && radius > RACE_2D_RADIUS_LIMIT)
          continue;
        if (sanitizer && (a == GB_ALGORITHM_NAIVE || a == GB_ALGORITHM_SHARED)
            && row_bytes * size.height > SANITIZER_2D_SAMPLE_LIMIT)
          continue;
        if ((a == GB_ALGORITHM_NAIVE || a == GB_ALGORITHM_SHARED)
            && taps_2d > REFERENCE_2D_TAP_LIMIT)
          reference.algorithm = GB_ALGORITHM_SEPARABLE;
        /* auto: the CPU runs what the GPU chose (the backends' auto rules
         * differ, and recursive and multiscale are other filters). */
        if (a == GB_ALGORITHM_AUTO && gb_blur_set_params (gpu, &params,
                &error) == GB_OK)
          reference.algorithm = gb_blur_get_effective_algorithm (gpu);
        snprintf (what, sizeof what,
            "%s %s %dx%d channels=%d sigma=%g radius=%d (reference %s)",
            gb_algorithm_name (params.algorithm), gb_border_name (params.border),
            size.width, size.height, channels, params.sigma_x, radius,
            gb_algorithm_name (reference.algorithm));
        cases++;

        frame_poison (&gpu_out);
        frame_poison (&cpu_out);
        if (gb_blur_set_params (gpu, &params, &error) != GB_OK
            || gb_blur_process (gpu, &src.image, &gpu_out.image,
                &error) != GB_OK) {
          printf ("FAIL: %s: GPU: %s\n", what, error.message);
          failures++;
          continue;
        }
        if (blur_once (GB_BACKEND_CPU, &geometry, &reference, &src.image,
                &cpu_out.image, &error) != GB_OK) {
          printf ("FAIL: %s: CPU: %s\n", what, error.message);
          failures++;
          continue;
        }
        diff = max_difference (&gpu_out, &cpu_out, row_bytes);
        if (diff > 1)
          printf ("FAIL: %s: max difference %d\n", what, diff);
        failures += diff > 1;
        check (padding_intact (&gpu_out, row_bytes),
            "GPU wrote into the destination's row padding");
      }

  check (gb_blur_get_allocation_count (gpu) == allocations,
      "parameter changes reallocated device buffers");
  gb_blur_destroy (gpu);
  printf ("  %4dx%-4d channels=%d done\n", size.width, size.height, channels);
out:
  frames_close (&src, &gpu_out, &cpu_out);
}

/* The edge-aware filter (issue 7): the GPU's Algorithm C against the CPU's
 * exact Algorithm A. kappa 0 (states carried exactly across segments) is
 * the same filter in float: at most 1 apart. kappa 2 starts segments from an estimated state, within
 * issue 7's bound of 2 (on this frame of noise and 255-to-0 wraps it
 * measured 1 on the H100; the photographs' figures are the edge-aware
 * benchmark's). alpha_mask 0x8 (RGBA): the fourth channel
 * is filtered along the others' edges. */
#define EDGE_AWARE_KAPPA2_BOUND 2

static void
run_edge_aware (Size size, int channels, unsigned alpha_mask,
    const double *sigmas, int n_sigmas)
{
  static const double sigma_ranges[] = { 10.0, 50.0 };
  static const double kappas[] = { 0.0, 2.0 };
  const int row_bytes = size.width * channels;
  GbGeometry geometry = { 1, 1, {{size.width, size.height, channels, 1, 1,
              alpha_mask}}
  };
  Frame src, gpu_out, cpu_out;
  GbBlur *gpu = frames_open (&geometry, &src, &gpu_out, &cpu_out);
  GbError error;

  if (!gpu)
    goto out;
  for (int b = GB_BORDER_CLAMP; b <= GB_BORDER_ZERO; b++)
    for (int i = 0; i < n_sigmas; i++)
      for (int r = 0; r < 2; r++) {
        GbParams params = gb_params_make (sigmas[i], 0,
            GB_ALGORITHM_EDGE_AWARE, (GbBorder) b);
        params.sigma_range = sigma_ranges[r];
        frame_poison (&cpu_out);
        if (blur_once (GB_BACKEND_CPU, &geometry, &params, &src.image,
                &cpu_out.image, &error) != GB_OK) {
          printf ("FAIL: edge-aware CPU: %s\n", error.message);
          failures++;
          continue;
        }
        for (int k = 0; k < 2; k++) {
          const int bound = kappas[k] > 0.0 ? EDGE_AWARE_KAPPA2_BOUND : 1;
          char what[200];
          int diff;

          params.kappa = kappas[k];
          snprintf (what, sizeof what, "edge-aware %s %dx%d channels=%d "
              "alpha=0x%x sigma=%g sigma-range=%g kappa=%g",
              gb_border_name (params.border), size.width, size.height,
              channels, alpha_mask, params.sigma_x, params.sigma_range,
              params.kappa);
          cases++;
          frame_poison (&gpu_out);
          if (gb_blur_set_params (gpu, &params, &error) != GB_OK
              || gb_blur_process (gpu, &src.image, &gpu_out.image,
                  &error) != GB_OK) {
            printf ("FAIL: %s: GPU: %s\n", what, error.message);
            failures++;
            continue;
          }
          diff = max_difference (&gpu_out, &cpu_out, row_bytes);
          if (diff > bound)
            printf ("FAIL: %s: max difference %d (bound %d)\n", what, diff,
                bound);
          else if (kappas[k] > 0.0 && diff > 1)
            printf ("  %s: max difference %d\n", what, diff);
          failures += diff > bound;
          check (padding_intact (&gpu_out, row_bytes),
              "GPU wrote into the destination's row padding");
        }
      }
  gb_blur_destroy (gpu);
  printf ("  edge-aware %4dx%-4d channels=%d done\n", size.width, size.height,
      channels);
out:
  frames_close (&src, &gpu_out, &cpu_out);
}

/* Geometry changes reallocate; identical geometry does not; errors carry text. */
static void
check_handle_behaviour (void)
{
  GbGeometry small = { 1, 1, {{16, 8, 4, 1, 1, 0}} };
  GbGeometry large = { 1, 1, {{64, 32, 4, 1, 1, 0}} };
  GbBlur *blur;
  GbError error;
  unsigned allocations;

  if (gb_blur_create (GB_BACKEND_CUDA, -1, &small, &blur, &error) != GB_OK) {
    printf ("FAIL: create: %s\n", error.message);
    failures++;
    return;
  }
  allocations = gb_blur_get_allocation_count (blur);
  check (gb_blur_set_geometry (blur, &small, &error) == GB_OK
      && gb_blur_get_allocation_count (blur) == allocations,
      "same geometry reallocated");
  check (gb_blur_set_geometry (blur, &large, &error) == GB_OK
      && gb_blur_get_allocation_count (blur) > allocations,
      "new geometry did not reallocate");
  gb_blur_destroy (blur);

  check (gb_blur_create (GB_BACKEND_CUDA, 4096, &small, &blur,
          &error) == GB_ERROR_NO_DEVICE && strstr (error.message, "4096"),
      "a missing device id is not reported as GB_ERROR_NO_DEVICE");

  /* A sigma whose square underflows blurs to the identity, not to black. */
  {
    Frame src, dst;
    GbParams tiny = gb_params_make (1e-200, 0, GB_ALGORITHM_AUTO, GB_BORDER_ZERO);
    frame_alloc (&src, 16, 8, 4, SRC_PADDING);
    frame_alloc (&dst, 16, 8, 4, DST_PADDING);
    frame_fill (&src, 16, 4);
    for (int a = GB_ALGORITHM_NAIVE; a <= GB_ALGORITHM_LAST; a++) {
      tiny.algorithm = (GbAlgorithm) a;
      frame_poison (&dst);
      check (blur_once (GB_BACKEND_CUDA, &small, &tiny, &src.image,
              &dst.image, &error) == GB_OK
          && max_difference (&src, &dst, 16 * 4) == 0,
          "sigma 1e-200 is not the identity on the GPU");
    }
    free (src.memory);
    free (dst.memory);
  }
}

int
main (int argc, char **argv)
{
  static const Size full_sizes[] = { {1, 1}, {7, 3}, {640, 480}, {1921, 1081} };
  static const Size quick_sizes[] = { {1, 1}, {7, 3}, {64, 48}, {161, 93},
    {2100, 300} };
  /* fused: radius 2 .. 56 (k-steps 2 .. 8), then past its reach (30);
   * 7: radius 25, the two-pass form's column ring unrolled on a plane
   * alone at 4 row blocks (ring_steps) */
  static const double full_sigmas[] = { 0.5, 1, 3, 7, 10, 11, 16, 30 };
  static const double quick_sigmas[] = { 0.5, 3, 10, 16 };
  static const double large_sigmas[] = { 60, 150, 250 };
  static const Size race_sizes[] = { {61, 47}, {2100, 300} };
  /* radius 11 (unrolled), 35 (generic), 105 (column pass in two strips) */
  static const double race_sigmas[] = { 3, 10, 30 };
  static const int channel_counts[] = { 1, 3, 4 };
  int quick = argc > 1 && strcmp (argv[1], "--quick") == 0;
  int race = argc > 1 && strcmp (argv[1], "--race") == 0;
  const Size *sizes = quick ? quick_sizes : race ? race_sizes : full_sizes;
  int n_sizes = quick ? N_ELEMENTS (quick_sizes) : race
      ? N_ELEMENTS (race_sizes) : N_ELEMENTS (full_sizes);
  const double *sigmas = quick ? quick_sigmas : race ? race_sigmas
      : full_sigmas;
  int n_sigmas = quick ? N_ELEMENTS (quick_sigmas) : race
      ? N_ELEMENTS (race_sigmas) : N_ELEMENTS (full_sigmas);
  int first_algorithm = race ? GB_ALGORITHM_SHARED : GB_ALGORITHM_AUTO;
  GbGeometry probe = { 1, 1, {{1, 1, 1, 1, 1, 0}} };
  GbBlur *blur;
  GbError error;

  if (gb_blur_create (GB_BACKEND_CUDA, -1, &probe, &blur, &error) != GB_OK) {
    printf ("SKIP: %s\n", error.message);
    return error.status == GB_ERROR_NO_DEVICE ? 77 : 1;
  }
  gb_blur_destroy (blur);

  check_handle_behaviour ();
  for (int s = 0; s < n_sizes; s++)
    for (int c = 0; c < N_ELEMENTS (channel_counts); c++)
      run_size (sizes[s], channel_counts[c], sigmas, n_sigmas,
          first_algorithm, GB_ALGORITHM_MULTISCALE, race, quick || race);
  /* The recursive and multi-scale filters at sigmas the convolutions would
   * take long over (their CPU references are as fast as the GPU's):
   * segments carry their state across whole lines, and mirror warm-ups run
   * past the frame. */
  for (int s = 0; s < n_sizes; s++)
    for (int c = 0; c < N_ELEMENTS (channel_counts); c++)
      run_size (sizes[s], channel_counts[c], large_sigmas,
          race ? 1 : 3, GB_ALGORITHM_RECURSIVE, GB_ALGORITHM_MULTISCALE, race,
          quick || race);
  /* Multi-scale on planes of 2^22 samples and more: their first pass runs
   * down the columns at every factor (kernels_multiscale.cu); D = 8, 16
   * and 64, on an odd width with rows that start unaligned. */
  if (!race) {
    static const Size large_plane = { 2051, 2047 };
    static const double factor_sigmas[] = { 30, 100, 250 };
    for (int c = 0; c < 3; c += 2)
      run_size (large_plane, channel_counts[c], factor_sigmas, quick ? 1 : 3,
          GB_ALGORITHM_MULTISCALE, GB_ALGORITHM_MULTISCALE, 0, quick);
    /* D = 8 there: four channels (2^24 samples and more) down the columns
     * first, one channel through the tile's tensor walk. */
    static const double d8_sigma[] = { 15 };
    for (int c = 0; c < 3; c += 2)
      run_size (large_plane, channel_counts[c], d8_sigma, 1,
          GB_ALGORITHM_MULTISCALE, GB_ALGORITHM_MULTISCALE, 0, quick);
    /* One channel down the columns (D = 64) on rows whose last group of
     * four samples is short by two or three: down_columns_kernel's second
     * thread of that group then stores nothing (2051 above: by one). */
    static const Size short_group_planes[] = { {2050, 2047}, {2053, 2047} };
    static const double d64_sigma[] = { 250 };
    for (int s = 0; s < N_ELEMENTS (short_group_planes); s++)
      run_size (short_group_planes[s], 1, d64_sigma, 1,
          GB_ALGORITHM_MULTISCALE, GB_ALGORITHM_MULTISCALE, 0, quick);
    /* Three channels on 2^24 samples and more: the tile's walk on the
     * tensor cores at D = 8 and 16 (tile_walk), tall tiles, odd sizes. */
    static const Size three_channel_plane = { 2401, 2331 };
    run_size (three_channel_plane, 3, factor_sigmas, quick ? 1 : 2,
        GB_ALGORITHM_MULTISCALE, GB_ALGORITHM_MULTISCALE, 0, quick);
    /* One channel, wide enough for the up pass's wide tile (up_tile_wide:
     * 33 x 17 blocks, 3 or more an SM up to 187 SMs), at D = 8 and 16
     * (22: the early D = 16 with its smallest small blur). */
    if (!quick) {
      static const Size wide_plane = { 4099, 2161 };
      static const double wide_sigmas[] = { 20, 22, 100 };
      run_size (wide_plane, 1, wide_sigmas, 3, GB_ALGORITHM_MULTISCALE,
          GB_ALGORITHM_MULTISCALE, 0, 0);
    }
  }

  /* Edge-aware: its CPU reference is exact and slower, so smaller frames;
   * for racecheck, one frame (the transposes share tiles, the two runs of
   * a segment hand over through a block barrier). */
  if (race) {
    static const double one_sigma[] = { 10 };
    run_edge_aware (race_sizes[0], 4, 0x8, one_sigma, 1);
  } else {
    static const Size ea_sizes[] = { {1, 1}, {7, 3}, {64, 48}, {161, 93},
      {333, 211}
    };
    static const double ea_sigmas[] = { 0.5, 3, 10, 50 };
    for (int s = 0; s < (quick ? 4 : 5); s++)
      for (int c = 0; c < N_ELEMENTS (channel_counts); c++)
        run_edge_aware (ea_sizes[s], channel_counts[c], 0, ea_sigmas,
            quick ? 2 : 4);
    run_edge_aware (ea_sizes[3], 4, 0x8, ea_sigmas, 4);
    if (!quick) {
      static const Size wide = { 1921, 1081 };
      static const double one_sigma[] = { 50 };
      run_edge_aware (wide, 4, 0x8, one_sigma, 1);
    }
  }

  printf ("%d cases, %d failures\n", cases, failures);
  return failures ? 1 : 0;
}

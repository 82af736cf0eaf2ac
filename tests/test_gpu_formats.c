/* GPU parity for the frame layouts and options of issue 4: planar,
 * semi-planar and subsampled YUV, 16-bit samples, anisotropic sigma,
 * sharpening and a blur region. Every CUDA algorithm against the CPU
 * reference, max difference 1 (in the sample's own unit); edge-aware with
 * kappa 0 (exact: states carried across segments).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Exits 77 (skipped under meson) where no CUDA device is usable.
 * Usage: test-gpu-formats [--quick] [--layout NAME[,NAME...]]
 *   --quick   small sizes only, for compute-sanitizer memcheck
 *   --layout  only these layouts (e.g. Y42B,NV16: memcheck of the 4:2:2
 *             chroma's column pass within a device session)
 *
 * test-gpu-parity covers single-plane 8-bit frames in depth; this test runs
 * each layout (the plane structure of a GStreamer format) through every
 * algorithm with a handful of parameter sets, on odd sizes so that chroma
 * planes round up, with odd row paddings so that rows start unaligned.
 */
#include "blur_once.h"
#include "gaussblur.h"
#include "gpu_frames.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REFERENCE_2D_TAP_LIMIT 1.0e9
#define SANITIZER_2D_SAMPLE_LIMIT 100000
#define EDGE_AWARE_SAMPLE_LIMIT 1000000

static const Layout layouts[] = {
  {"NV12", 2, 1, {{1, 1, 1}, {2, 2, 2}}},
  {"I420", 3, 1, {{1, 1, 1}, {1, 2, 2}, {1, 2, 2}}},
  {"Y42B", 3, 1, {{1, 1, 1}, {1, 2, 1}, {1, 2, 1}}},
  {"Y41B", 3, 1, {{1, 1, 1}, {1, 4, 1}, {1, 4, 1}}},
  {"Y444", 3, 1, {{1, 1, 1}, {1, 1, 1}, {1, 1, 1}}},
  {"NV16", 2, 1, {{1, 1, 1}, {2, 2, 1}}},
  {"AYUV", 1, 1, {{4, 1, 1}}},
  {"v308", 1, 1, {{3, 1, 1}}},
  {"GRAY16_LE", 1, 2, {{1, 1, 1}}},
  {"RGBA64_LE", 1, 2, {{4, 1, 1}}},
  {"P016_LE", 2, 2, {{1, 1, 1}, {2, 2, 2}}},
  {"Y444_16LE", 3, 2, {{1, 1, 1}, {1, 1, 1}, {1, 1, 1}}},
};

/* One parameter set: sigma per axis, sharpening, region (frame pixels). */
typedef struct
{
  double sigma_x, sigma_y;
  double sharpen;
  int all_borders;              /* 1: clamp, mirror and zero; 0: clamp */
  int region;                   /* 0: none; 1: inside, odd corners; 2: over
                                 * the bottom-right corner */
  int large_only;               /* 1: auto, recursive and multiscale only
                                 * (the convolutions' CPU references would
                                 * take minutes at this sigma) */
} Variant;

static const Variant variants[] = {
  {1.0, 1.0, 0.0, 1, 0, 0},
  {3.0, 3.0, 0.0, 1, 0, 0},
  /* D = 8 at its least sigma on the luma and on full-size planes (the
   * smallest small blur, 0.661 small samples) */
  {10.0, 10.0, 0.0, 0, 0, 0},
  /* multiscale on the luma, none on the chroma of 4:2:0 and 4:2:2 frames
   * (an axis under 10): the fused kernels there, where auto takes them */
  {15.0, 15.0, 0.0, 1, 0, 0},
  /* multiscale on luma and chroma; on multi-plane 8-bit frames the luma's
   * column pass at D = 16 blurs along x too (columns_blur_x_kernel) */
  {30.0, 30.0, 0.0, 1, 0, 0},
  /* multiscale of D = 16 across and 8 down on full-size planes: the rows
   * first in row_pass_kernel < 16 >, then columns_blur_x_kernel at D = 8
   * (19.5: under the early D = 16's 20, on 8-bit planes of one channel
   * too); at 20 down those planes take D = 16 both ways, at its least
   * sigma (the smallest small blur, 0.661 small samples) */
  {60.0, 19.5, 0.0, 1, 0, 0},
  {60.0, 20.0, 0.0, 1, 0, 0},
  /* no plan on the chroma of 4:2:2 frames (sigma / 2 across, 9.75: under
   * 10), radius 90 down: the fused two-pass form's column pass at its most
   * k-steps (13) on planes of one and two channels; wider ones take
   * separable */
  {19.5, 25.5, 0.0, 1, 0, 0},
  /* the same on full-size planes of one channel (no plan: x under 10) */
  {9.5, 25.5, 0.0, 0, 0, 0},
  /* the column pass's other k-steps past 8 on the 4:2:2 chroma: radius 60
   * (9), 69 (10), 77 (11), 84 (12) */
  {17.0, 17.0, 0.0, 0, 0, 0},
  {19.5, 19.5, 0.0, 1, 0, 0},
  {19.5, 22.0, 0.0, 0, 0, 0},
  {19.5, 24.0, 0.0, 0, 0, 0},
  /* radius 42: the column pass's shifted ring at its fewest row blocks of
   * apron (6) on full-size planes and the 4:2:2 chroma (7: sigma 15) */
  {12.0, 12.0, 0.0, 0, 0, 0},
  /* radius 25: 4 row blocks of apron, where a plane of one channel beside
   * others shifts the ring (ring_steps; test-gpu-parity's sigma 7 runs the
   * plane alone, whose ring is unrolled) */
  {7.0, 7.0, 0.0, 0, 0, 0},
  /* the recursive filter's poles nearest 1: its float rounding on 16-bit
   * samples (real second-order sections were 4 units apart at 60 x 20) */
  {250.0, 100.0, 0.0, 1, 0, 1},
  {2.0, 6.0, 0.0, 0, 0, 0},
  {0.0, 3.0, 0.0, 0, 0, 0},
  {4.0, 0.0, 0.0, 0, 0, 0},
  {2.0, 2.0, 1.0, 1, 0, 0},        /* the element's sigma=-2 */
  {5.0, 5.0, 0.0, 0, 1, 0},
  {3.0, 3.0, 1.0, 0, 2, 0},
};

/* The noise of the source frames (frame_fill). */
static uint32_t rng_state = 0x9e3779b9u;

static int failures, cases;

static void
run_layout (const Layout * layout, Size size, int sanitizer)
{
  GbGeometry geometry;
  Frame src, gpu_out, cpu_out;
  GbBlur *gpu;
  GbError error;
  size_t samples = 0;

  geometry_for (layout, size, &geometry);
  for (int p = 0; p < geometry.n_planes; p++)
    samples += (size_t) geometry.planes[p].width * geometry.planes[p].height
        * geometry.planes[p].channels;
  frame_alloc (&src, &geometry, 13);
  frame_alloc (&gpu_out, &geometry, 7);
  frame_alloc (&cpu_out, &geometry, 7);
  frame_poison (&src, &geometry);
  frame_fill (&src, &geometry, &rng_state);

  if (gb_blur_create (GB_BACKEND_CUDA, -1, &geometry, &gpu, &error) != GB_OK) {
    printf ("FAIL: create %s %dx%d: %s\n", layout->name, size.width,
        size.height, error.message);
    failures++;
    goto out;
  }

  for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
    const Variant *variant = &variants[v];
    const int last_border = variant->all_borders ? GB_BORDER_ZERO
        : GB_BORDER_CLAMP;
    /* The superposition (isotropic per pixel, with its own exact CPU
     * reference of O(rmax^2) per sample) has test-gpu-superposition, its
     * layouts included. */
    for (int a = GB_ALGORITHM_AUTO; a <= GB_ALGORITHM_EDGE_AWARE; a++)
      for (int b = GB_BORDER_CLAMP; b <= last_border; b++) {
        GbParams params;
        GbParams reference;
        const int radius_x = gb_auto_radius (variant->sigma_x);
        const int radius_y = gb_auto_radius (variant->sigma_y);
        const double taps_2d = (double) (2 * radius_x + 1)
            * (2 * radius_y + 1) * samples;
        const int is_2d = a == GB_ALGORITHM_NAIVE || a == GB_ALGORITHM_SHARED;
        char what[256];
        int diff;

        gb_params_init (&params, 1.0);
        params.sigma_x = variant->sigma_x;
        params.sigma_y = variant->sigma_y;
        params.sharpen = variant->sharpen;
        params.algorithm = (GbAlgorithm) a;
        params.border = (GbBorder) b;
        /* Edge-aware: kappa 0 (carried states), the exact filter, so that the
         * bound is 1 here too (test-gpu-parity measures kappa 2), and a
         * range sigma at which edges steer. */
        params.kappa = 0.0;
        params.sigma_range = 20.0;
        if (variant->region == 1) {
          params.region = (GbRect) {
          size.width / 4 + 1, size.height / 3 + 1, size.width / 2 + 1,
                size.height / 3 + 1};
        } else if (variant->region == 2) {
          params.region = (GbRect) {
          size.width / 2 + 1, size.height / 2 + 1, size.width,
                size.height};
        }
        if (sanitizer && is_2d && samples > SANITIZER_2D_SAMPLE_LIMIT)
          continue;
        if (variant->large_only && a != GB_ALGORITHM_AUTO
            && a != GB_ALGORITHM_RECURSIVE && a != GB_ALGORITHM_MULTISCALE)
          continue;
        /* Its exact CPU reference is single-threaded double: the largest
         * frame would take minutes over every layout and variant
         * (test-gpu-parity runs edge-aware at 1921x1081). */
        if (a == GB_ALGORITHM_EDGE_AWARE && samples > EDGE_AWARE_SAMPLE_LIMIT)
          continue;
        reference = params;
        /* the 2D references at large radii would take minutes; the
         * separable filter is the same function (test-core checks the CPU
         * 2D code on its own) */
        if (is_2d && taps_2d > REFERENCE_2D_TAP_LIMIT)
          reference.algorithm = GB_ALGORITHM_SEPARABLE;
        if (gb_blur_set_params (gpu, &params, &error) != GB_OK) {
          printf ("FAIL: %s: set_params: %s\n", layout->name, error.message);
          failures++;
          continue;
        }
        if (a == GB_ALGORITHM_AUTO)
          reference.algorithm = gb_blur_get_effective_algorithm (gpu);
        snprintf (what, sizeof what,
            "%s %dx%d %s %s sigma=%gx%g sharpen=%g region=%d%s%s",
            layout->name, size.width, size.height,
            gb_algorithm_name (params.algorithm),
            gb_border_name (params.border), params.sigma_x, params.sigma_y,
            params.sharpen, variant->region,
            reference.algorithm != params.algorithm ? " reference " : "",
            reference.algorithm != params.algorithm
            ? gb_algorithm_name (reference.algorithm) : "");
        cases++;

        frame_poison (&gpu_out, &geometry);
        frame_poison (&cpu_out, &geometry);
        if (gb_blur_process (gpu, &src.image, &gpu_out.image, &error)
            != GB_OK) {
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
        diff = frame_max_difference (&gpu_out, &cpu_out, &geometry);
        if (diff > 1) {
          printf ("FAIL: %s: max difference %d\n", what, diff);
          failures++;
        }
        if (!frame_padding_intact (&gpu_out, &geometry)) {
          printf ("FAIL: %s: GPU wrote into the row padding\n", what);
          failures++;
        }
      }
  }
  gb_blur_destroy (gpu);
  printf ("  %-10s %4dx%-4d done\n", layout->name, size.width, size.height);
out:
  frame_free (&src);
  frame_free (&gpu_out);
  frame_free (&cpu_out);
}

#define N_LAYOUTS (sizeof layouts / sizeof layouts[0])

/* Marks in chosen[] the layouts named in list (comma-separated); 0 where a
 * name is empty or no layout's. */
static int
choose_layouts (const char *list, int *chosen)
{
  for (const char *p = list;; p++) {
    const size_t length = strcspn (p, ",");
    size_t l = 0;
    while (l < N_LAYOUTS && !(strlen (layouts[l].name) == length
            && strncmp (layouts[l].name, p, length) == 0))
      l++;
    if (l == N_LAYOUTS)         /* also an empty name */
      return 0;
    chosen[l] = 1;
    p += length;
    if (*p == '\0')
      return 1;
  }
}

int
main (int argc, char **argv)
{
  static const Size full_sizes[] = { {1, 1}, {7, 3}, {33, 17}, {641, 359},
    {1921, 1081}
  };
  static const Size quick_sizes[] = { {1, 1}, {7, 3}, {33, 17}, {161, 93} };
  int quick = 0;
  const char *only = NULL;
  int chosen[N_LAYOUTS] = { 0 };
  GbGeometry probe = { 1, 1, {{1, 1, 1, 1, 1, 0}} };
  GbBlur *blur;
  GbError error;

  for (int i = 1; i < argc; i++) {
    if (strcmp (argv[i], "--quick") == 0) {
      quick = 1;
    } else if (strcmp (argv[i], "--layout") == 0 && i + 1 < argc && !only) {
      only = argv[++i];
    } else {
      fprintf (stderr, "usage: %s [--quick] [--layout NAME[,NAME...]]\n",
          argv[0]);
      return 2;
    }
  }
  if (only && !choose_layouts (only, chosen)) {
    fprintf (stderr, "%s: --layout takes layout names, comma-separated:",
        argv[0]);
    for (size_t l = 0; l < N_LAYOUTS; l++)
      fprintf (stderr, " %s", layouts[l].name);
    fprintf (stderr, "\n");
    return 2;
  }
  const Size *sizes = quick ? quick_sizes : full_sizes;
  const int n_sizes = quick ? 4 : 5;

  if (gb_blur_create (GB_BACKEND_CUDA, -1, &probe, &blur, &error) != GB_OK) {
    printf ("SKIP: %s\n", error.message);
    return error.status == GB_ERROR_NO_DEVICE ? 77 : 1;
  }
  gb_blur_destroy (blur);

  for (size_t l = 0; l < N_LAYOUTS; l++)
    if (!only || chosen[l])
      for (int s = 0; s < n_sizes; s++)
        run_layout (&layouts[l], sizes[s], quick);

  printf ("%d cases, %d failures\n", cases, failures);
  return failures ? 1 : 0;
}

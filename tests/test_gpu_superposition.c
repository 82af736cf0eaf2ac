/* GPU parity of the spatially varying blur (issue 8, seed 003's kernel
 * superposition): the CUDA handle against the CPU handle, whose backend
 * runs the exact double reference (superposition.h), max difference 1 in
 * the sample's own unit, the destination's row padding untouched.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Exits 77 (skipped under meson) where no CUDA device is usable.
 * Usage: test-gpu-superposition [--quick | --race]
 *   --quick  a reduced matrix (small sizes, fewer combinations), for
 *            compute-sanitizer memcheck;
 *   --race   gather and scatter on one 40x36 frame of 4 channels, rmax 2
 *            and 32, for compute-sanitizer racecheck.
 *
 * Both handles go through the public API alone: gb_blur_create,
 * gb_blur_set_sigma_map, gb_blur_set_params, gb_blur_process. The CUDA
 * handle lives as long as a geometry (as the element uses it), so that its
 * cached per-pixel kernels are reused or rebuilt between frames; each
 * reference is a fresh CPU handle (blur_once.c with a map). Groups:
 *
 *   matrix     gather and scatter x every border x 1 .. 4 channels x sizes
 *              up to 161x93 x rmax 1, 4, 13, 32, random maps (uniform in
 *              [0, 1.2 rmax / 3]: some above rmax / 3, clamped; a tenth
 *              exact zeros), 8-bit
 *   shapes     all-zero (output = input), uniform 3, a smooth gradient, a
 *              box of sigma 8 (outside its reach output = input), with the
 *              automatic rmax (radius 0) and explicit ones
 *   16-bit     one- and four-channel planes, rmax 4 and 13
 *   planes     NV12, I420, Y42B and P016 layouts at odd sizes: subsampled
 *              planes read the frame's map at (x * sx, y * sy)
 *   regions    inside, at the edge and partly outside the frame: output
 *              = input outside the region; the CPU's region equals its
 *              whole-frame result inside
 *   caching    one handle, maps A, A, B, A, rmax and border and algorithm
 *              changes, the caller's buffer reused, a region, no map, a
 *              geometry change of the same frame size and of another
 *   uniform    no map: every pixel has sigma_x (2.5), as the CPU does, and
 *              as a uniform map does, bit for bit
 *   roi        regions maps (gb_blur_set_sigma_regions): apart and close
 *              (the GPU's decomposed sum), meeting and at an edge (the
 *              map), every
 *              layout, feathers 0 / 3 / 8, plain and normalised
 *   rows       maps of one value per row (tilt-shift at 0 degrees, random
 *              rows): the GPU's separable sum under clamp and mirror, the
 *              map under zero; every layout, plain and normalised
 *   invalid    NaN, negative and infinite map values and a short stride
 *              refused, keeping the previous map; radius 33 refused
 *
 * Maps have padded rows (stride width + 3) filled with NaN: a map row is
 * read only up to the frame's width.
 *
 * Self-check of the test itself: TEST_SUPERPOSITION_CPU_ONLY=1 makes the
 * "GPU" handle a CPU one (no device needed, the probe is skipped), so that
 * the matrix, its bookkeeping and the exact checks run without a GPU;
 * gather and scatter then agree bit for bit (superposition.h), so the
 * bound is 0. It also times the CPU references: the self-check, which runs
 * each reference twice, took 60 to 67 s on one core of the development
 * machine (--quick 7 s, --race 1 s), so the GPU run spends about 35 s on
 * its references.
 */
#include "blur_once.h"
#include "gaussblur.h"
#include "gpu_frames.h"
#include "sigma_map.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SRC_PADDING 13          /* odd paddings: rows start unaligned */
#define DST_PADDING 7
#define MAP_PADDING 3           /* floats after each map row, NaN */
#define MAX_RMAX 32             /* GB_SUPERPOSITION_MAX_RADIUS */

static GbBackend test_backend = GB_BACKEND_CUDA;
static int failures, cases;

static void
check (int ok, const char *what)
{
  if (!ok) {
    failures++;
    printf ("FAIL: %s\n", what);
  }
}

/* A check that is a case of its own (an API call's result). */
static void
check_case (int ok, const char *what)
{
  cases++;
  check (ok, what);
}

static uint32_t rng_state = 0x2545f491u;

static uint32_t
next_random (void)
{
  return xorshift32 (&rng_state);
}

/* Uniform in [0, 1). */
static double
next_unit (void)
{
  return (next_random () >> 8) / 16777216.0;
}

/* --- layouts and frames (gpu_frames.h) --- */

static const Layout layout_nv12 = { "NV12", 2, 1, {{1, 1, 1}, {2, 2, 2}} };
static const Layout layout_i420 =
    { "I420", 3, 1, {{1, 1, 1}, {1, 2, 2}, {1, 2, 2}} };
static const Layout layout_y42b =
    { "Y42B", 3, 1, {{1, 1, 1}, {1, 2, 1}, {1, 2, 1}} };
static const Layout layout_p016 =
    { "P016", 2, 2, {{1, 1, 1}, {2, 2, 2}} };

/* One plane of size x channels samples of bytes_per_sample. */
static void
geometry_single (Size size, int channels, int bytes_per_sample,
    GbGeometry * geometry)
{
  memset (geometry, 0, sizeof *geometry);
  geometry->n_planes = 1;
  geometry->bytes_per_sample = bytes_per_sample;
  geometry->planes[0] = (GbPlaneGeometry) {
  size.width, size.height, channels, 1, 1, 0};
}

/* A source and the two destinations of one geometry. */
typedef struct
{
  GbGeometry geometry;
  Frame src, gpu, cpu;
} Frames;

static void
frames_open (Frames * frames, const GbGeometry * geometry)
{
  frames->geometry = *geometry;
  frame_alloc (&frames->src, geometry, SRC_PADDING);
  frame_alloc (&frames->gpu, geometry, DST_PADDING);
  frame_alloc (&frames->cpu, geometry, DST_PADDING);
  frame_poison (&frames->src, geometry);
  frame_fill (&frames->src, geometry, &rng_state);
}

static void
frames_close (Frames * frames)
{
  frame_free (&frames->src);
  frame_free (&frames->gpu);
  frame_free (&frames->cpu);
}

/* --- sigma maps: frame size (plane 0's), padded rows of NaN --- */

typedef struct
{
  float *data;
  size_t stride;                /* floats */
  int width, height;
} Map;

static void
map_alloc (Map * map, int width, int height)
{
  map->width = width;
  map->height = height;
  map->stride = (size_t) width + MAP_PADDING;
  map->data = malloc (sizeof (float) * map->stride * height);
  if (!map->data) {
    fprintf (stderr, "out of host memory\n");
    exit (1);
  }
  for (size_t i = 0; i < map->stride * height; i++)
    map->data[i] = NAN;
}

static void
map_free (Map * map)
{
  free (map->data);
  map->data = NULL;
}

static float *
map_at (const Map * map, int x, int y)
{
  return map->data + (size_t) y * map->stride + x;
}

/* Uniform in [0, 1.2 rmax / 3]: a sixth above rmax / 3 (clamped by the
 * filter); a tenth exact zeros. */
static void
map_random (Map * map, int rmax)
{
  for (int y = 0; y < map->height; y++)
    for (int x = 0; x < map->width; x++)
      *map_at (map, x, y) = next_random () % 10 == 0 ? 0.0f
          : (float) (next_unit () * 1.2 * rmax / 3.0);
}

static void
map_constant (Map * map, float sigma)
{
  for (int y = 0; y < map->height; y++)
    for (int x = 0; x < map->width; x++)
      *map_at (map, x, y) = sigma;
}

/* 0 at the left edge to `largest` at the right, stronger downwards. */
static void
map_gradient (Map * map, double largest)
{
  for (int y = 0; y < map->height; y++)
    for (int x = 0; x < map->width; x++)
      *map_at (map, x, y) = (float) (largest
          * (map->width > 1 ? (double) x / (map->width - 1) : 1.0)
          * (0.5 + 0.5 * (map->height > 1 ? (double) y / (map->height - 1)
                  : 1.0)));
}

static void
map_box (Map * map, GbRect box, float sigma)
{
  for (int y = 0; y < map->height; y++)
    for (int x = 0; x < map->width; x++)
      *map_at (map, x, y) = x >= box.x && x < box.x + box.width
          && y >= box.y && y < box.y + box.height ? sigma : 0.0f;
}

/* --- the handles --- */

/* The handle under test (CUDA; CPU in the self-check); NULL, counted and
 * printed, if it cannot be made. */
static GbBlur *
open_handle (const GbGeometry * geometry, const char *what)
{
  GbBlur *blur = NULL;
  GbError error;

  if (gb_blur_create (test_backend, -1, geometry, &blur, &error) != GB_OK) {
    printf ("FAIL: create %s: %s\n", what, error.message);
    failures++;
    return NULL;
  }
  return blur;
}

/* The reference: a fresh CPU handle, map (none: NULL), params, one frame. */
static GbStatus
reference (const Frames * frames, const Map * map, const GbParams * params,
    Frame * dst, GbError * error)
{
  GbBlur *blur;
  GbStatus status = gb_blur_create (GB_BACKEND_CPU, -1, &frames->geometry,
      &blur, error);
  if (status != GB_OK)
    return status;
  frame_poison (dst, &frames->geometry);
  if (map)
    status = gb_blur_set_sigma_map (blur, map->data, map->stride, error);
  if (status == GB_OK)
    status = gb_blur_set_params (blur, params, error);
  if (status == GB_OK)
    status = gb_blur_process (blur, &frames->src.image, &dst->image, error);
  gb_blur_destroy (blur);
  return status;
}

/* frames->cpu from the reference; 0 (a failure counted) if it failed. */
static int
cpu_reference (Frames * frames, const Map * map, const GbParams * params,
    const char *what)
{
  GbError error;

  if (reference (frames, map, params, &frames->cpu, &error) != GB_OK) {
    printf ("FAIL: %s: CPU: %s\n", what, error.message);
    failures++;
    return 0;
  }
  return 1;
}

/* How a frame on the handle under test treats the map. */
typedef enum
{
  MAP_KEEP,                     /* no gb_blur_set_sigma_map call */
  MAP_SET,                      /* the map given (NULL: none) */
} MapAction;

/* One frame through the handle under test into frames->gpu: the map set
 * (or kept), params set (unless NULL), processed. 0 (a failure counted) if
 * a call failed. */
static int
gpu_frame (GbBlur * gpu, Frames * frames, MapAction action, const Map * map,
    const GbParams * params, const char *what)
{
  GbError error;

  frame_poison (&frames->gpu, &frames->geometry);
  if (action == MAP_SET && gb_blur_set_sigma_map (gpu, map ? map->data : NULL,
          map ? map->stride : 0, &error) != GB_OK) {
    printf ("FAIL: %s: set_sigma_map: %s\n", what, error.message);
    failures++;
    return 0;
  }
  if (params && gb_blur_set_params (gpu, params, &error) != GB_OK) {
    printf ("FAIL: %s: set_params: %s\n", what, error.message);
    failures++;
    return 0;
  }
  if (gb_blur_process (gpu, &frames->src.image, &frames->gpu.image,
          &error) != GB_OK) {
    printf ("FAIL: %s: GPU: %s\n", what, error.message);
    failures++;
    return 0;
  }
  return 1;
}

/* frames->gpu against frames->cpu: within 1 (float sums against double
 * ones; 0 in the self-check, where both are the CPU's doubles), padding
 * untouched. */
static int
compare (const Frames * frames, const char *what)
{
  const int bound = test_backend == GB_BACKEND_CPU ? 0 : 1;
  const int diff = frame_max_difference (&frames->gpu, &frames->cpu,
      &frames->geometry);
  int ok = 1;

  if (diff > bound) {
    printf ("FAIL: %s: max difference %d (bound %d)\n", what, diff, bound);
    failures++;
    ok = 0;
  }
  if (!frame_padding_intact (&frames->gpu, &frames->geometry)) {
    printf ("FAIL: %s: GPU wrote into the destination's row padding\n", what);
    failures++;
    ok = 0;
  }
  return ok;
}

/* One case: a GPU frame against the reference already in frames->cpu. */
static int
parity_case (GbBlur * gpu, Frames * frames, MapAction action, const Map * map,
    const GbParams * params, const char *what)
{
  cases++;
  return gpu_frame (gpu, frames, action, map, params, what)
      && compare (frames, what);
}

/* One case with its own reference: the map (NULL: none) and params on
 * both handles. */
static int
full_case (GbBlur * gpu, Frames * frames, MapAction action, const Map * map,
    const GbParams * params, const char *what)
{
  if (!cpu_reference (frames, map, params, what)) {
    cases++;
    return 0;
  }
  return parity_case (gpu, frames, action, map, params, what);
}

/* Every sample of out equals the source: out identical to the input. */
static int
equals_source (const Frames * frames, const Frame * out)
{
  return frame_max_difference (out, &frames->src, &frames->geometry) == 0;
}

static GbParams
superposition_params (int rmax, GbAlgorithm algorithm, GbBorder border)
{
  /* sigma_x is not read with a map set, but must be valid (> 0). */
  return gb_params_make (1.0, rmax, algorithm, border);
}

static const GbAlgorithm methods[] = {
  GB_ALGORITHM_SUPERPOSITION_GATHER, GB_ALGORITHM_SUPERPOSITION_SCATTER
};

/* The case's description. */
static void
describe (char *what, size_t n, const char *layout, const Frames * frames,
    const char *map_name, const GbParams * params)
{
  const GbPlaneGeometry *plane = &frames->geometry.planes[0];
  snprintf (what, n, "%s %dx%d channels=%d %d-bit map=%s rmax=%d %s %s",
      layout, plane->width, plane->height, plane->channels,
      frames->geometry.bytes_per_sample * 8, map_name, params->radius,
      gb_algorithm_name (params->algorithm), gb_border_name (params->border));
}

/* --- timing, per group --- */

static double
now (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static double group_start;
static int group_cases, group_failures;

static void
group_begin (void)
{
  group_start = now ();
  group_cases = cases;
  group_failures = failures;
}

static void
group_end (const char *name)
{
  printf ("%-10s %4d cases, %d failures, %.1f s\n", name,
      cases - group_cases, failures - group_failures, now () - group_start);
  fflush (stdout);
}

/* --- the groups --- */

/* Random maps: every rmax, border and method on one geometry, through one
 * handle (a new map per rmax, set again on every frame: unchanged, cheap). */
static void
run_random (const char *layout, const GbGeometry * geometry,
    const int *rmaxes, int n_rmaxes)
{
  const GbPlaneGeometry *plane = &geometry->planes[0];
  Frames frames;
  Map map;
  GbBlur *gpu;

  frames_open (&frames, geometry);
  map_alloc (&map, plane->width, plane->height);
  gpu = open_handle (geometry, layout);
  if (!gpu)
    goto out;
  for (int r = 0; r < n_rmaxes; r++) {
    map_random (&map, rmaxes[r]);
    for (int b = GB_BORDER_CLAMP; b <= GB_BORDER_ZERO; b++)
      for (int m = 0; m < 2; m++) {
        const GbParams params = superposition_params (rmaxes[r], methods[m],
            (GbBorder) b);
        char what[256];
        describe (what, sizeof what, layout, &frames, "random", &params);
        full_case (gpu, &frames, MAP_SET, &map, &params, what);
      }
  }
  gb_blur_destroy (gpu);
out:
  map_free (&map);
  frames_close (&frames);
}

static void
run_matrix (int quick)
{
  static const Size full_sizes[] = { {1, 1}, {7, 3}, {33, 31}, {64, 48},
    {161, 93}
  };
  static const Size quick_sizes[] = { {1, 1}, {7, 3}, {33, 31} };
  static const int rmaxes[] = { 1, 4, 13, 32 };
  const Size *sizes = quick ? quick_sizes : full_sizes;
  const int n_sizes = quick ? 3 : 5;

  group_begin ();
  for (int s = 0; s < n_sizes; s++)
    for (int c = 1; c <= 4; c++) {
      GbGeometry geometry;
      if (quick && (c == 2 || c == 3) && s > 1)
        continue;
      geometry_single (sizes[s], c, 1, &geometry);
      run_random ("gray/rgba", &geometry, rmaxes, 4);
      printf ("  matrix %4dx%-4d channels=%d done\n", sizes[s].width,
          sizes[s].height, c);
    }
  group_end ("matrix");
}

/* Maps of special shape on one 4-channel frame. */
static void
run_shapes (int quick)
{
  const Size size = quick ? (Size) { 64, 48 } : (Size) { 161, 93 };
  /* 0 .. 24 from the box's edge: well inside the frame on both sizes */
  const GbRect box = quick ? (GbRect) { 26, 18, 12, 10 }
      : (GbRect) { 50, 30, 41, 31 };
  GbGeometry geometry;
  Frames frames;
  Map map;
  GbBlur *gpu;
  char what[256];

  group_begin ();
  geometry_single (size, 4, 1, &geometry);
  frames_open (&frames, &geometry);
  map_alloc (&map, size.width, size.height);
  gpu = open_handle (&geometry, "shapes");
  if (!gpu)
    goto out;

  for (int b = GB_BORDER_CLAMP; b <= GB_BORDER_ZERO; b++)
    for (int m = 0; m < 2; m++) {
      /* All zero: the identity, exactly, at the smallest and largest rmax
       * (radius 0: ceil(3 x 0), at least 1). */
      static const int zero_rmaxes[] = { 0, MAX_RMAX };
      for (int r = 0; r < 2; r++) {
        const GbParams params = superposition_params (zero_rmaxes[r],
            methods[m], (GbBorder) b);
        map_constant (&map, 0.0f);
        describe (what, sizeof what, "shapes", &frames, "zero", &params);
        if (full_case (gpu, &frames, MAP_SET, &map, &params, what)) {
          check (equals_source (&frames, &frames.gpu),
              "zero map: the GPU's output is not the input");
          check (equals_source (&frames, &frames.cpu),
              "zero map: the CPU's output is not the input");
        }
      }
      /* Uniform 3: automatic rmax (9) and an explicit larger one. */
      {
        static const int uniform_rmaxes[] = { 0, 13 };
        map_constant (&map, 3.0f);
        for (int r = 0; r < 2; r++) {
          const GbParams params = superposition_params (uniform_rmaxes[r],
              methods[m], (GbBorder) b);
          describe (what, sizeof what, "shapes", &frames, "uniform-3",
              &params);
          full_case (gpu, &frames, MAP_SET, &map, &params, what);
        }
      }
      /* A smooth gradient 0 .. 10: automatic rmax, 30. */
      {
        const GbParams params = superposition_params (0, methods[m],
            (GbBorder) b);
        map_gradient (&map, 10.0);
        describe (what, sizeof what, "shapes", &frames, "gradient",
            &params);
        full_case (gpu, &frames, MAP_SET, &map, &params, what);
      }
      /* A box of sigma 8: automatic rmax, ceil(3 x 8) = 24. Pixels farther
       * than that from the box (Chebyshev) receive nothing but their own
       * sample: on the GPU, from copied tiles or single-term sums. */
      {
        const GbParams params = superposition_params (0, methods[m],
            (GbBorder) b);
        const int reach = 24;
        map_box (&map, box, 8.0f);
        describe (what, sizeof what, "shapes", &frames, "box", &params);
        if (full_case (gpu, &frames, MAP_SET, &map, &params, what)) {
          int far_ok = 1;
          for (int y = 0; y < size.height; y++)
            for (int x = 0; x < size.width; x++) {
              const int dx = x < box.x ? box.x - x
                  : x >= box.x + box.width ? x - (box.x + box.width - 1) : 0;
              const int dy = y < box.y ? box.y - y
                  : y >= box.y + box.height ? y - (box.y + box.height - 1)
                  : 0;
              if ((dx > dy ? dx : dy) <= reach)
                continue;
              for (int c = 0; c < 4; c++)
                far_ok &= frame_sample (&frames.gpu, &geometry, 0, y, x * 4 + c)
                    == frame_sample (&frames.src, &geometry, 0, y, x * 4 + c);
            }
          check (far_ok, "box map: the GPU changed pixels beyond the box's "
              "reach");
        }
      }
      /* Automatic method choice with a map: the CPU runs what the GPU chose. */
      if (m == 0) {
        GbParams params = superposition_params (13, GB_ALGORITHM_AUTO,
            (GbBorder) b);
        GbParams ref;
        GbError error;
        map_random (&map, 13);
        cases++;
        if (gb_blur_set_sigma_map (gpu, map.data, map.stride, &error) != GB_OK
            || gb_blur_set_params (gpu, &params, &error) != GB_OK) {
          printf ("FAIL: auto with a map: %s\n", error.message);
          failures++;
          continue;
        }
        ref = params;
        ref.algorithm = gb_blur_get_effective_algorithm (gpu);
        describe (what, sizeof what, "shapes", &frames, "random", &params);
        check (GB_ALGORITHM_IS_SUPERPOSITION (ref.algorithm),
            "auto with a map is not a superposition");
        if (cpu_reference (&frames, &map, &ref, what)
            && gpu_frame (gpu, &frames, MAP_KEEP, NULL, NULL, what))
          compare (&frames, what);
      }
    }
  /* Sharpening with a map (the element's negative sigma). */
  {
    GbParams params = superposition_params (13,
        GB_ALGORITHM_SUPERPOSITION_SCATTER, GB_BORDER_CLAMP);
    params.sharpen = 1.0;
    map_random (&map, 13);
    describe (what, sizeof what, "shapes", &frames, "random-sharpen-1",
        &params);
    full_case (gpu, &frames, MAP_SET, &map, &params, what);
  }
  gb_blur_destroy (gpu);
out:
  map_free (&map);
  frames_close (&frames);
  group_end ("shapes");
}

static void
run_16bit (int quick)
{
  static const Size full_sizes[] = { {64, 48}, {161, 93} };
  static const Size quick_sizes[] = { {33, 31} };
  static const int rmaxes[] = { 4, 13 };
  const Size *sizes = quick ? quick_sizes : full_sizes;

  group_begin ();
  for (int s = 0; s < (quick ? 1 : 2); s++)
    for (int c = 1; c <= 4; c += 3) {
      GbGeometry geometry;
      geometry_single (sizes[s], c, 2, &geometry);
      run_random (c == 1 ? "GRAY16" : "RGBA64", &geometry, rmaxes, 2);
      printf ("  16-bit %4dx%-4d channels=%d done\n", sizes[s].width,
          sizes[s].height, c);
    }
  group_end ("16-bit");
}

static void
run_planes (int quick)
{
  static const Size full_sizes[] = { {97, 61}, {64, 48} };
  static const Size quick_sizes[] = { {33, 31}, {17, 9} };
  static const int rmaxes[] = { 4, 13, 32 };
  const Layout *layouts[] = { &layout_nv12, &layout_i420, &layout_y42b,
    &layout_p016
  };
  const Size *sizes = quick ? quick_sizes : full_sizes;

  group_begin ();
  for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++)
    for (int s = 0; s < 2; s++) {
      GbGeometry geometry;
      geometry_for (layouts[l], sizes[s], &geometry);
      run_random (layouts[l]->name, &geometry, rmaxes, quick ? 2 : 3);
      printf ("  planes %-4s %4dx%-4d done\n", layouts[l]->name,
          sizes[s].width, sizes[s].height);
    }
  group_end ("planes");
}

/* A region on one geometry (random map, rmax 13): the GPU against the
 * CPU's region; outside it (plane 0; the region widened to the
 * subsampling's grid) the output is the input; the CPU's region result
 * equals its whole-frame result inside (plane 0) and, in every plane, each
 * pixel is either its whole-frame result or the input. */
static void
run_region_layout (const char *layout, const GbGeometry * geometry)
{
  const int rmax = 13;
  const GbPlaneGeometry *plane = &geometry->planes[0];
  const int w = plane->width, h = plane->height;
  const GbRect regions[] = {
    {w / 4 + 1, h / 3 + 1, w / 3 + 2, h / 4 + 3},       /* inside */
    {0, 0, w / 3 + 1, h},       /* along the left edge, top to bottom */
    {w - w / 4, 5, w / 4, h / 2},       /* against the right edge */
    {w - w / 5, h - h / 4, w, h},       /* past the bottom-right corner */
  };
  Frames frames;
  Frame whole;
  Map map;
  GbBlur *gpu;
  int grid_x = 1, grid_y = 1;

  for (int p = 0; p < geometry->n_planes; p++) {
    if (geometry->planes[p].subsampling_x > grid_x)
      grid_x = geometry->planes[p].subsampling_x;
    if (geometry->planes[p].subsampling_y > grid_y)
      grid_y = geometry->planes[p].subsampling_y;
  }
  frames_open (&frames, geometry);
  frame_alloc (&whole, geometry, DST_PADDING);
  map_alloc (&map, w, h);
  map_random (&map, rmax);
  gpu = open_handle (geometry, layout);
  if (!gpu)
    goto out;
  for (int b = GB_BORDER_CLAMP; b <= GB_BORDER_ZERO; b++)
    for (int m = 0; m < 2; m++) {
      GbParams params = superposition_params (rmax, methods[m], (GbBorder) b);
      GbError error;
      if (reference (&frames, &map, &params, &whole, &error) != GB_OK) {
        printf ("FAIL: %s region: whole-frame CPU: %s\n", layout,
            error.message);
        failures++;
        continue;
      }
      for (size_t r = 0; r < sizeof regions / sizeof regions[0]; r++) {
        const GbRect *region = &regions[r];
        /* The core widens the region to the coarsest plane's grid, so
         * that every plane covers the same part of the picture (filter.c). */
        const int rx0 = region->x / grid_x * grid_x;
        const int ry0 = region->y / grid_y * grid_y;
        const int rx1 = (region->x + region->width + grid_x - 1) / grid_x
            * grid_x;
        const int ry1 = (region->y + region->height + grid_y - 1) / grid_y
            * grid_y;
        const int x1 = rx1 < w ? rx1 : w;
        const int y1 = ry1 < h ? ry1 : h;
        int outside_ok = 1, inside_ok = 1, planes_ok = 1;
        char what[300];
        size_t n;

        params.region = *region;
        describe (what, sizeof what, layout, &frames, "random", &params);
        n = strlen (what);
        snprintf (what + n, sizeof what - n, " region=%d,%d %dx%d",
            region->x, region->y, region->width, region->height);
        if (!full_case (gpu, &frames, MAP_SET, &map, &params, what))
          continue;
        for (int y = 0; y < h; y++)
          for (int s = 0; s < w * plane->channels; s++) {
            const int x = s / plane->channels;
            const int in_region = x >= rx0 && x < x1 && y >= ry0 && y < y1;
            const int v = frame_sample (&frames.src, geometry, 0, y, s);
            if (in_region)
              inside_ok &= frame_sample (&frames.cpu, geometry, 0, y, s)
                  == frame_sample (&whole, geometry, 0, y, s);
            else
              outside_ok &= frame_sample (&frames.gpu, geometry, 0, y, s) == v;
          }
        for (int p = 0; p < geometry->n_planes; p++) {
          const GbPlaneGeometry *pl = &geometry->planes[p];
          for (int y = 0; y < pl->height; y++)
            for (int x = 0; x < pl->width; x++) {
              int as_source = 1, as_whole = 1;
              for (int c = 0; c < pl->channels; c++) {
                const int s = x * pl->channels + c;
                const int v = frame_sample (&frames.cpu, geometry, p, y, s);
                as_source &= v == frame_sample (&frames.src, geometry, p, y, s);
                as_whole &= v == frame_sample (&whole, geometry, p, y, s);
              }
              planes_ok &= as_source || as_whole;
            }
        }
        if (!outside_ok)
          printf ("FAIL: %s: the GPU changed pixels outside the region\n",
              what);
        if (!inside_ok)
          printf ("FAIL: %s: the CPU's region differs from its whole-frame "
              "result\n", what);
        if (!planes_ok)
          printf ("FAIL: %s: a CPU pixel is neither the input nor the "
              "whole-frame result\n", what);
        failures += !outside_ok + !inside_ok + !planes_ok;
      }
    }
  gb_blur_destroy (gpu);
out:
  map_free (&map);
  frame_free (&whole);
  frames_close (&frames);
}

/* One handle through a sequence of maps and parameters: every frame
 * against the CPU with that frame's map. */
static void
run_caching_layout (const char *layout, const GbGeometry * geometry)
{
  const GbPlaneGeometry *plane = &geometry->planes[0];
  const int w = plane->width, h = plane->height;
  Frames frames;
  Map a, b, a_again, scratch;
  GbBlur *gpu;
  GbParams params = superposition_params (13,
      GB_ALGORITHM_SUPERPOSITION_GATHER, GB_BORDER_MIRROR);
  GbParams other;
  unsigned allocations = 0;
  char what[300];

#define STEP(text) snprintf (what, sizeof what, "%s %dx%d caching: %s", \
    layout, w, h, text)

  frames_open (&frames, geometry);
  map_alloc (&a, w, h);
  map_alloc (&b, w, h);
  map_alloc (&a_again, w, h);
  map_alloc (&scratch, w, h);
  map_random (&a, 13);
  map_random (&b, 13);
  /* A again, from another buffer */
  memcpy (a_again.data, a.data, sizeof (float) * a.stride * h);
  gpu = open_handle (geometry, layout);
  if (!gpu)
    goto out;

  /* A, A again (an equal map: kept, kernels not rebuilt), no call at all. */
  STEP ("map A");
  full_case (gpu, &frames, MAP_SET, &a, &params, what);
  allocations = gb_blur_get_allocation_count (gpu);
  STEP ("map A set again");
  parity_case (gpu, &frames, MAP_SET, &a_again, NULL, what);
  STEP ("map A kept");
  parity_case (gpu, &frames, MAP_KEEP, NULL, NULL, what);
  /* B, then A. */
  STEP ("map B");
  full_case (gpu, &frames, MAP_SET, &b, &params, what);
  STEP ("map A after B");
  full_case (gpu, &frames, MAP_SET, &a, &params, what);
  /* A with one value changed below the largest: same rmax, new kernels. */
  if (w * h > 1) {
    float largest = 0.0f;
    int x = w / 2, y = h / 2;
    for (int yy = 0; yy < h; yy++)
      for (int xx = 0; xx < w; xx++)
        if (*map_at (&a, xx, yy) > largest)
          largest = *map_at (&a, xx, yy);
    memcpy (scratch.data, a.data, sizeof (float) * a.stride * h);
    *map_at (&scratch, x, y) = *map_at (&a, x, y) == largest ? 0.0f
        : *map_at (&a, x, y) > 1.0f ? 0.0f : largest;
    STEP ("map A with one pixel changed");
    full_case (gpu, &frames, MAP_SET, &scratch, &params, what);
    STEP ("map A after the one pixel");
    full_case (gpu, &frames, MAP_SET, &a, &params, what);
  }
  /* rmax changes with the same map, and back. */
  {
    static const int rmaxes[] = { 32, 4, 1, 13 };
    for (int r = 0; r < 4; r++) {
      char text[64];
      params.radius = rmaxes[r];
      snprintf (text, sizeof text, "map A kept, rmax %d", rmaxes[r]);
      STEP (text);
      full_case (gpu, &frames, MAP_KEEP, &a, &params, what);
    }
  }
  /* The other method and another border on the same kernels. */
  params.algorithm = GB_ALGORITHM_SUPERPOSITION_SCATTER;
  STEP ("map A kept, scatter");
  full_case (gpu, &frames, MAP_KEEP, &a, &params, what);
  params.border = GB_BORDER_ZERO;
  STEP ("map A kept, scatter, zero border");
  full_case (gpu, &frames, MAP_KEEP, &a, &params, what);
  params.algorithm = GB_ALGORITHM_SUPERPOSITION_GATHER;
  STEP ("map A kept, gather, zero border");
  full_case (gpu, &frames, MAP_KEEP, &a, &params, what);
  /* A non-superposition algorithm in between ignores the map. */
  other = gb_params_make (2.0, 0, GB_ALGORITHM_SEPARABLE, GB_BORDER_CLAMP);
  STEP ("map A set, separable");
  full_case (gpu, &frames, MAP_KEEP, &a, &other, what);
  STEP ("map A kept, back to gather");
  full_case (gpu, &frames, MAP_KEEP, &a, &params, what);
  /* The caller reuses its buffer at once: the handle copied the map. */
  memcpy (scratch.data, b.data, sizeof (float) * b.stride * h);
  {
    GbError error;
    check_case (gb_blur_set_sigma_map (gpu, scratch.data, scratch.stride,
            &error) == GB_OK, "set_sigma_map of B from a scratch buffer");
  }
  map_constant (&scratch, 1000.0f);
  STEP ("map B from a buffer overwritten since");
  full_case (gpu, &frames, MAP_KEEP, &b, &params, what);
  /* A region moves the window: new kernels; then none again. */
  params.region = (GbRect) {
  w / 5, h / 4, w / 2 + 1, h / 3 + 1};
  STEP ("map B kept, a region");
  full_case (gpu, &frames, MAP_KEEP, &b, &params, what);
  params.region = (GbRect) {
  0, 0, 0, 0};
  STEP ("map B kept, the region removed");
  full_case (gpu, &frames, MAP_KEEP, &b, &params, what);
  /* No map: every pixel has sigma_x; then A again. */
  params.sigma_x = params.sigma_y = 2.5;
  STEP ("no map, sigma 2.5");
  full_case (gpu, &frames, MAP_SET, NULL, &params, what);
  STEP ("map A after no map");
  full_case (gpu, &frames, MAP_SET, &a, &params, what);
  /* Map and parameter changes allocate nothing past the first frame's. */
  check_case (gb_blur_get_allocation_count (gpu) == allocations,
      "map or parameter changes reallocated buffers");

  /* Another geometry of the same frame size (plane 0's channels change):
   * the map is for the frame size, and stays. */
  {
    GbGeometry same_size = *geometry;
    GbError error;
    same_size.planes[0].channels = plane->channels == 1 ? 2 : 1;
    frames_close (&frames);
    frames_open (&frames, &same_size);
    if (gb_blur_set_geometry (gpu, &same_size, &error) != GB_OK) {
      printf ("FAIL: %s: set_geometry, same frame size: %s\n", layout,
          error.message);
      cases++;
      failures++;
    } else {
      STEP ("map A kept across a geometry change of the same frame size");
      full_case (gpu, &frames, MAP_KEEP, &a, &params, what);
      STEP ("map B after a geometry change of the same frame size");
      full_case (gpu, &frames, MAP_SET, &b, &params, what);
    }
  }
  /* Another frame size: the old map no longer applies (no map: sigma_x);
   * a new map of the new size. */
  {
    GbGeometry larger = *geometry;
    Map c;
    GbError error;
    for (int p = 0; p < larger.n_planes; p++) {
      GbPlaneGeometry *pl = &larger.planes[p];
      const int sx = pl->subsampling_x > 1 ? pl->subsampling_x : 1;
      const int sy = pl->subsampling_y > 1 ? pl->subsampling_y : 1;
      pl->width = (w + 9 + sx - 1) / sx;
      pl->height = (h + 5 + sy - 1) / sy;
    }
    frames_close (&frames);
    frames_open (&frames, &larger);
    map_alloc (&c, w + 9, h + 5);
    map_random (&c, 13);
    if (gb_blur_set_geometry (gpu, &larger, &error) != GB_OK) {
      printf ("FAIL: %s: set_geometry, another size: %s\n", layout,
          error.message);
      cases++;
      failures++;
    } else {
      STEP ("another frame size, no map (sigma 2.5)");
      full_case (gpu, &frames, MAP_KEEP, NULL, &params, what);
      STEP ("another frame size, its map");
      full_case (gpu, &frames, MAP_SET, &c, &params, what);
    }
    map_free (&c);
  }
  gb_blur_destroy (gpu);
#undef STEP
out:
  map_free (&a);
  map_free (&b);
  map_free (&a_again);
  map_free (&scratch);
  frames_close (&frames);
}

/* No map: the superposition with sigma_x everywhere. */
static void
run_uniform_layout (const char *layout, const GbGeometry * geometry)
{
  const GbPlaneGeometry *plane = &geometry->planes[0];
  Frames frames;
  Frame no_map;
  Map map;
  GbBlur *gpu;
  char what[256];

  frames_open (&frames, geometry);
  frame_alloc (&no_map, geometry, DST_PADDING);
  map_alloc (&map, plane->width, plane->height);
  map_constant (&map, 2.5f);
  gpu = open_handle (geometry, layout);
  if (!gpu)
    goto out;
  for (int b = GB_BORDER_CLAMP; b <= GB_BORDER_ZERO; b++)
    for (int m = 0; m < 2; m++) {
      /* radius 0: rmax ceil(3 x 2.5) = 8 with or without the map */
      GbParams params = gb_params_make (2.5, 0, methods[m], (GbBorder) b);
      describe (what, sizeof what, layout, &frames, "none-sigma-2.5",
          &params);
      if (!full_case (gpu, &frames, MAP_SET, NULL, &params, what))
        continue;
      for (int p = 0; p < geometry->n_planes; p++)
        memcpy (no_map.memory[p], frames.gpu.memory[p],
            frames.gpu.image.stride[p] * frames.gpu.heights[p]);
      describe (what, sizeof what, layout, &frames, "uniform-2.5", &params);
      /* Gather sums in a fixed order: the same bits. Scatter's shared
       * atomics add in whatever order they land: within 1. */
      if (full_case (gpu, &frames, MAP_SET, &map, &params, what))
        check (frame_max_difference (&no_map, &frames.gpu, geometry)
            <= (methods[m] == GB_ALGORITHM_SUPERPOSITION_GATHER ? 0 : 1),
            "no map and a uniform map of sigma_x differ on the GPU");
    }
  /* sigma_x != sigma_y without a map: refused, on both backends. */
  {
    GbParams params = gb_params_make (2.5, 0,
        GB_ALGORITHM_SUPERPOSITION_GATHER, GB_BORDER_CLAMP);
    GbError error;
    params.sigma_y = 4.0;
    check_case (gb_blur_set_sigma_map (gpu, NULL, 0, &error) == GB_OK
        && gb_blur_set_params (gpu, &params, &error) == GB_OK
        && gb_blur_process (gpu, &frames.src.image, &frames.gpu.image,
            &error) == GB_ERROR_UNSUPPORTED,
        "anisotropic sigma without a map is not refused (handle under test)");
    check_case (reference (&frames, NULL, &params, &frames.cpu,
            &error) == GB_ERROR_UNSUPPORTED,
        "anisotropic sigma without a map is not refused (CPU)");
  }
  gb_blur_destroy (gpu);
out:
  map_free (&map);
  frame_free (&no_map);
  frames_close (&frames);
}

/* Group `group`: run on an RGBA frame of 161x93 (--quick 64x48), as
 * "PREFIX-rgba", then on an NV12 one of 97x61 (33x31), as "PREFIX-NV12". */
static void
run_rgba_and_nv12 (int quick, const char *group, const char *prefix,
    void (*run) (const char *layout, const GbGeometry * geometry))
{
  GbGeometry geometry;
  char layout[64];

  group_begin ();
  geometry_single (quick ? (Size) { 64, 48 } : (Size) { 161, 93 }, 4, 1,
      &geometry);
  snprintf (layout, sizeof layout, "%s-rgba", prefix);
  run (layout, &geometry);
  geometry_for (&layout_nv12, quick ? (Size) { 33, 31 } : (Size) { 97, 61 },
      &geometry);
  snprintf (layout, sizeof layout, "%s-NV12", prefix);
  run (layout, &geometry);
  group_end (group);
}

/* Refusals keep the previous state: the next frame still matches it. */
static void
run_invalid (void)
{
  const Size size = { 64, 48 };
  GbGeometry geometry;
  Frames frames;
  Map a, bad;
  GbBlur *gpu;
  GbParams params = superposition_params (13,
      GB_ALGORITHM_SUPERPOSITION_SCATTER, GB_BORDER_CLAMP);
  const float bad_values[] = { NAN, -0.5f, -INFINITY, INFINITY };
  const char *bad_names[] = { "NaN", "-0.5", "-inf", "inf" };
  char what[256];
  GbError error;

  group_begin ();
  geometry_single (size, 4, 1, &geometry);
  frames_open (&frames, &geometry);
  map_alloc (&a, size.width, size.height);
  map_alloc (&bad, size.width, size.height);
  map_random (&a, 13);
  gpu = open_handle (&geometry, "invalid");
  if (!gpu)
    goto out;
  snprintf (what, sizeof what, "invalid: map A");
  full_case (gpu, &frames, MAP_SET, &a, &params, what);

  for (size_t v = 0; v < sizeof bad_values / sizeof bad_values[0]; v++) {
    map_random (&bad, 13);
    *map_at (&bad, size.width - 1, size.height / 2) = bad_values[v];
    snprintf (what, sizeof what, "set_sigma_map with %s is not refused "
        "with GB_ERROR_INVALID_ARGUMENT", bad_names[v]);
    check_case (gb_blur_set_sigma_map (gpu, bad.data, bad.stride,
            &error) == GB_ERROR_INVALID_ARGUMENT, what);
    snprintf (what, sizeof what, "invalid: map A kept after a map with %s",
        bad_names[v]);
    parity_case (gpu, &frames, MAP_KEEP, NULL, NULL, what);
  }
  /* A stride below the width. */
  check_case (gb_blur_set_sigma_map (gpu, a.data, size.width - 1,
          &error) == GB_ERROR_INVALID_ARGUMENT,
      "set_sigma_map with a stride below the width is not refused");
  parity_case (gpu, &frames, MAP_KEEP, NULL, NULL,
      "invalid: map A kept after a short stride");
  /* rmax 33: refused with either method; the previous parameters stay. */
  for (int m = 0; m < 2; m++) {
    GbParams too_wide = superposition_params (MAX_RMAX + 1, methods[m],
        GB_BORDER_MIRROR);
    snprintf (what, sizeof what, "%s with radius %d is not refused",
        gb_algorithm_name (methods[m]), MAX_RMAX + 1);
    check_case (gb_blur_set_params (gpu, &too_wide,
            &error) == GB_ERROR_INVALID_ARGUMENT, what);
  }
  parity_case (gpu, &frames, MAP_KEEP, NULL, NULL,
      "invalid: parameters kept after radius 33");
  /* The largest accepted. */
  params.radius = MAX_RMAX;
  full_case (gpu, &frames, MAP_KEEP, &a, &params, "invalid: radius 32");
  gb_blur_destroy (gpu);
out:
  map_free (&a);
  map_free (&bad);
  frames_close (&frames);
  group_end ("invalid");
}

/* For racecheck: both methods on one frame of 2 x 2 tiles (inputs left
 * of, above and past each tile), at a small and the largest rmax.
 * Racecheck tracks every shared-memory access, scatter's atomics
 * included: these four frames took about 90 s under it on the H100, two
 * such frames more than 200 s. */
static void
run_race (void)
{
  static const Size sizes[] = { {40, 36} };
  static const int rmaxes[] = { 2, 32 };

  group_begin ();
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    Frames frames;
    Map map;
    GbGeometry geometry;
    GbBlur *gpu;
    geometry_single (sizes[s], 4, 1, &geometry);
    frames_open (&frames, &geometry);
    map_alloc (&map, sizes[s].width, sizes[s].height);
    gpu = open_handle (&geometry, "race");
    if (gpu) {
      for (int r = 0; r < 2; r++) {
        map_random (&map, rmaxes[r]);
        for (int m = 0; m < 2; m++) {
          const GbParams params = superposition_params (rmaxes[r],
              methods[m], GB_BORDER_CLAMP);
          char what[256];
          describe (what, sizeof what, "race", &frames, "random", &params);
          full_case (gpu, &frames, MAP_SET, &map, &params, what);
        }
      }
      gb_blur_destroy (gpu);
    }
    map_free (&map);
    frames_close (&frames);
    printf ("  race %4dx%-4d done\n", sizes[s].width, sizes[s].height);
  }
  group_end ("race");
}

/* Each of the first n layouts at that size: frames, a map and a handle
 * opened, run (), closed. */
static void
for_each_layout (const Layout * const *layouts, int n, Size size,
    void (*run) (const Layout * layout, GbBlur * gpu, Frames * frames,
        Map * map))
{
  for (int l = 0; l < n; l++) {
    GbGeometry geometry;
    Frames frames;
    Map map;
    GbBlur *gpu;
    geometry_for (layouts[l], size, &geometry);
    frames_open (&frames, &geometry);
    map_alloc (&map, size.width, size.height);
    gpu = open_handle (&geometry, layouts[l]->name);
    if (gpu) {
      run (layouts[l], gpu, &frames, &map);
      gb_blur_destroy (gpu);
    }
    map_free (&map);
    frames_close (&frames);
  }
}

/* One-plane layouts of the roi and rows groups (the planar ones are
 * layout_nv12 and its kin above). */
static const Layout layout_gray8 = { "GRAY8", 1, 1, {{1, 1, 1}} };
static const Layout layout_rgb = { "RGB", 1, 1, {{3, 1, 1}} };
static const Layout layout_rgba = { "RGBA", 1, 1, {{4, 1, 1}} };
static const Layout layout_rgba64 = { "RGBA64", 1, 2, {{4, 1, 1}} };

/* Regions maps through gb_blur_set_sigma_regions: on the GPU the
 * decomposed sum where the regions lie apart and inside (and the map
 * elsewhere), against the CPU reference of the same map; each layout with
 * regions apart (the plan applies on every plane), close (apart, their
 * reaches overlapping), meeting, and at an edge; feathers 0, 3 and 8; plain and normalised; gather, and scatter
 * (which always takes the map). */
static void
roi_layout (const Layout * layout, GbBlur * gpu, Frames * frames,
    Map * map)
{
  static const double feathers[] = { 0.0, 3.0, 8.0 };
  /* Apart: face-sized boxes well inside; meeting: two feathers overlap;
   * edge: one box at the frame's left edge. */
  const GbSigmaRegion apart[] = {
    {{60, 50, 40, 50}, 4.0}, {{150, 60, 30, 30}, 2.5},
    {{230, 90, 41, 37}, 4.0}
  };
  /* Close: apart, but their reaches overlap (outputs summing both). */
  const GbSigmaRegion close_by[] = {
    {{60, 50, 40, 50}, 4.0}, {{126, 55, 30, 30}, 3.0}
  };
  const GbSigmaRegion meeting[] = {
    {{60, 50, 40, 50}, 4.0}, {{104, 60, 30, 30}, 3.0}
  };
  const GbSigmaRegion edge[] = {
    {{0, 50, 40, 50}, 4.0}, {{200, 60, 30, 30}, 2.0}
  };
  const struct
  {
    const char *name;
    const GbSigmaRegion *regions;
    int n;
  } sets[] = { {"apart", apart, 3}, {"close", close_by, 2},
  {"meeting", meeting, 2}, {"edge", edge, 2}
  };
  const int n_sets = sizeof sets / sizeof sets[0];

  for (int r = 0; r < n_sets; r++)
    for (int f = 0; f < 3; f++)
      for (int m = 0; m < 2; m++)
        for (int normalize = 0; normalize < 2; normalize++) {
          GbParams params = superposition_params (0, methods[m],
              GB_BORDER_MIRROR);
          GbError error;
          char what[256];
          if (m == 1 && (f != 2 || normalize))        /* scatter: one each */
            continue;
          params.normalize = normalize;
          gb_sigma_map_regions (map->data, map->width, map->height,
              map->stride, sets[r].regions, sets[r].n, feathers[f]);
          snprintf (what, sizeof what, "roi %s %s feather %g %s %s",
              layout->name, sets[r].name, feathers[f],
              gb_algorithm_name (params.algorithm),
              normalize ? "normalised" : "plain");
          if (!cpu_reference (frames, map, &params, what)) {
            cases++;
            continue;
          }
          cases++;
          frame_poison (&frames->gpu, &frames->geometry);
          if (gb_blur_set_sigma_regions (gpu, sets[r].regions, sets[r].n,
                  feathers[f], &error) != GB_OK
              || gb_blur_set_params (gpu, &params, &error) != GB_OK
              || gb_blur_process (gpu, &frames->src.image,
                  &frames->gpu.image, &error) != GB_OK) {
            printf ("FAIL: %s: %s\n", what, error.message);
            failures++;
            continue;
          }
          compare (frames, what);
        }
}

static void
run_roi (int quick)
{
  const Layout *layouts[] = { &layout_rgba, &layout_gray8, &layout_rgb,
    &layout_rgba64, &layout_nv12, &layout_i420, &layout_y42b, &layout_p016
  };
  const Size size = { 331, 197 };

  group_begin ();
  for_each_layout (layouts, quick ? 2 : 8, size, roi_layout);
  group_end ("roi");
}

/* Maps of one value per row (a horizontal tilt-shift band, and random
 * values per row): on the GPU the gather takes the separable sum
 * (superposition_rows.h) under clamp and mirror, the map under zero;
 * against the CPU reference of the same map, every layout, plain and
 * normalised, rmax 4 and 13, gather and scatter. The random rows are
 * uniform in [0, 1.2 rmax / 3] (above rmax / 3 clamped), a fifth 0. */
static void
rows_layout (const Layout * layout, GbBlur * gpu, Frames * frames,
    Map * map)
{
  static const int rmaxes[] = { 4, 13 };

  for (int kind = 0; kind < 2; kind++)
    for (int r = 0; r < 2; r++)
      for (int b = 0; b < 3; b++)
        for (int m = 0; m < 2; m++)
          for (int normalize = 0; normalize < 2; normalize++) {
            GbParams params = superposition_params (rmaxes[r], methods[m],
                (GbBorder) b);
            char what[256];
            if (m == 1 && (normalize || b != GB_BORDER_MIRROR))
              continue;       /* scatter: one each */
            params.normalize = normalize;
            if (kind == 0)
              gb_sigma_map_tilt_shift (map->data, map->width, map->height,
                  map->stride, rmaxes[r] / 3.0, 0.5, 0.45, 0.0, 0.2, 0.3);
            else
              for (int y = 0; y < map->height; y++) {
                const float sigma = next_random () % 5 == 0 ? 0.0f
                    : (float) (next_unit () * 1.2 * rmaxes[r] / 3.0);
                for (int x = 0; x < map->width; x++)
                  *map_at (map, x, y) = sigma;
              }
            snprintf (what, sizeof what, "rows %s %s rmax %d border %d "
                "%s %s", layout->name, kind ? "random rows"
                : "tilt-shift", rmaxes[r], b,
                gb_algorithm_name (params.algorithm),
                normalize ? "normalised" : "plain");
            cases++;
            if (!cpu_reference (frames, map, &params, what)
                || !gpu_frame (gpu, frames, MAP_SET, map, &params, what))
              continue;
            compare (frames, what);
          }
}

static void
run_rows (int quick)
{
  const Layout *layouts[] = { &layout_rgba, &layout_nv12, &layout_gray8,
    &layout_rgb, &layout_rgba64, &layout_i420, &layout_y42b, &layout_p016
  };
  const Size size = { 203, 117 };

  group_begin ();
  for_each_layout (layouts, quick ? 2 : 8, size, rows_layout);
  group_end ("rows");
}

int
main (int argc, char **argv)
{
  const int quick = argc > 1 && strcmp (argv[1], "--quick") == 0;
  const int race = argc > 1 && strcmp (argv[1], "--race") == 0;
  const char *cpu_only = getenv ("TEST_SUPERPOSITION_CPU_ONLY");
  const double start = now ();

  if (cpu_only && *cpu_only && strcmp (cpu_only, "0") != 0) {
    test_backend = GB_BACKEND_CPU;
    printf ("self-check: TEST_SUPERPOSITION_CPU_ONLY, the handle under test "
        "is a CPU one\n");
  } else {
    GbGeometry probe = { 1, 1, {{1, 1, 1, 1, 1, 0}} };
    GbBlur *blur;
    GbError error;
    if (gb_blur_create (GB_BACKEND_CUDA, -1, &probe, &blur,
            &error) != GB_OK) {
      printf ("SKIP: %s\n", error.message);
      return error.status == GB_ERROR_NO_DEVICE ? 77 : 1;
    }
    gb_blur_destroy (blur);
  }

  if (race) {
    run_race ();
  } else {
    run_matrix (quick);
    run_shapes (quick);
    run_16bit (quick);
    run_planes (quick);
    run_rgba_and_nv12 (quick, "regions", "region", run_region_layout);
    run_rgba_and_nv12 (quick, "caching", "caching", run_caching_layout);
    run_rgba_and_nv12 (quick, "uniform", "uniform", run_uniform_layout);
    run_roi (quick);
    run_rows (quick);
    run_invalid ();
  }
  printf ("total %.1f s\n", now () - start);
  printf ("%d cases, %d failures\n", cases, failures);
  return failures ? 1 : 0;
}

/* The sigma maps (cuda/sigma_map.c): regions, tilt-shift, radial, image.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each map is checked against its documented formula, evaluated here from
 * the header's words (nothing from sigma_map.c), and for the properties the
 * superposition relies on: values in [0, sigma], monotonic transitions,
 * symmetry, clipping at the frame's edges, the returned maximum. Maps have
 * padded rows whose padding must survive. Plain C, no GStreamer; small
 * maps, as the test also runs under valgrind.
 */
#include "sigma_map.h"
#include "check_groups.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Row padding of maps, in floats, and the value it holds. */
#define MAP_PADDING 5
#define PADDING_VALUE -12345.0f
/* Float rounding of values computed here in double against the map's. */
#define TOLERANCE 1e-5
#define N_ELEMENTS(array) ((int) (sizeof (array) / sizeof ((array)[0])))

typedef struct
{
  int width, height;
  size_t stride;                /* floats */
  float *sigma;
} Map;

/* A map full of garbage (the functions must overwrite every value) with
 * its padding set to PADDING_VALUE. */
static Map
map_new (int width, int height)
{
  Map map = { width, height, (size_t) width + MAP_PADDING, NULL };
  int x, y;

  map.sigma = malloc (sizeof (float) * map.stride * height);
  for (y = 0; y < height; y++)
    for (x = 0; x < (int) map.stride; x++)
      map.sigma[(size_t) y * map.stride + x] =
          x < width ? 1000.0f + x + y : PADDING_VALUE;
  return map;
}

static void
map_free (Map * map)
{
  free (map->sigma);
  map->sigma = NULL;
}

static float
at (const Map * map, int x, int y)
{
  return map->sigma[(size_t) y * map->stride + x];
}

static int
inside (const Map * map, int x, int y)
{
  return x >= 0 && y >= 0 && x < map->width && y < map->height;
}

static float
map_largest (const Map * map)
{
  float largest = -INFINITY;
  int x, y;

  for (y = 0; y < map->height; y++)
    for (x = 0; x < map->width; x++)
      if (at (map, x, y) > largest)
        largest = at (map, x, y);
  return largest;
}

/* The padding untouched and every value finite and in [0, sigma]. */
static void
check_map_sane (const Map * map, double sigma, const char *what)
{
  int x, y, padding_ok = 1, range_ok = 1;

  for (y = 0; y < map->height; y++) {
    for (x = 0; x < (int) map->stride; x++) {
      const float value = at (map, x, y);
      if (x >= map->width)
        padding_ok &= value == PADDING_VALUE;
      else
        range_ok &= isfinite (value) && value >= 0.0f
            && value <= (float) sigma;
    }
  }
  check (padding_ok, "%s: row padding was written", what);
  check (range_ok, "%s: a value outside [0, %g]", what, sigma);
}

static void
check_returned_largest (const Map * map, double returned, const char *what)
{
  check (returned == map_largest (map),
      "%s: returned %.9g, the map's maximum is %.9g", what, returned,
      map_largest (map));
}

static double
smoothstep (double t)
{
  t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
  return t * t * (3.0 - 2.0 * t);
}

static double
random_unit (void)
{
  return (random_byte () * 256.0 + random_byte ()) / 65536.0;
}

/* --- regions --- */

/* The header's distance from pixel (x, y)'s centre to a rectangle. */
static double
rect_distance (const GbRect * rect, int x, int y)
{
  const double cx = x + 0.5, cy = y + 0.5;
  const double dx = fmax (0.0, fmax (rect->x - cx, cx - (rect->x +
              (double) rect->width)));
  const double dy = fmax (0.0, fmax (rect->y - cy, cy - (rect->y +
              (double) rect->height)));
  return sqrt (dx * dx + dy * dy);
}

static double
region_formula (const GbSigmaRegion * region, double feather, int x, int y)
{
  const double d = rect_distance (&region->rect, x, y);

  if (d == 0.0)
    return region->sigma;
  if (feather <= 0.0 || d >= feather)
    return 0.0;
  return region->sigma * (1.0 - smoothstep (d / feather));
}

static void
test_regions_formula (void)
{
  static const double feathers[] = { 0.0, 1.0, 2.5, 6.0, 17.0 };
  const GbSigmaRegion regions[] = {
    {{10, 8, 20, 12}, 5.0},
    {{40, 30, 3, 9}, 2.25},
  };
  int f;

  group_begin ("regions: formula");
  for (f = 0; f < N_ELEMENTS (feathers); f++) {
    Map map = map_new (64, 48);
    double returned;
    int x, y, inside_ok = 1, far_ok = 1, formula_ok = 1;

    returned = gb_sigma_map_regions (map.sigma, map.width, map.height,
        map.stride, regions, N_ELEMENTS (regions), feathers[f]);
    check_map_sane (&map, 5.0, "regions");
    check_returned_largest (&map, returned, "regions");
    for (y = 0; y < map.height; y++) {
      for (x = 0; x < map.width; x++) {
        const double d0 = rect_distance (&regions[0].rect, x, y);
        const double d1 = rect_distance (&regions[1].rect, x, y);
        const double expected = fmax (region_formula (&regions[0],
                feathers[f], x, y), region_formula (&regions[1],
                feathers[f], x, y));

        if (d0 == 0.0)
          inside_ok &= at (&map, x, y) == 5.0f;
        if (d0 >= feathers[f] && d1 >= feathers[f] && d0 > 0.0 && d1 > 0.0)
          far_ok &= at (&map, x, y) == 0.0f;
        if (fabs (at (&map, x, y) - expected) > TOLERANCE * 5.0) {
          formula_ok = 0;
          check (0, "feather %g, (%d, %d): %.7g, expected %.7g",
              feathers[f], x, y, at (&map, x, y), expected);
        }
      }
    }
    check (inside_ok, "feather %g: not sigma inside the rectangle",
        feathers[f]);
    check (far_ok, "feather %g: not 0 beyond the feather", feathers[f]);
    check (formula_ok, "feather %g: the formula", feathers[f]);
    map_free (&map);
  }
  group_end ();
}

/* Non-increasing along rays from a pixel inside the rectangle: pixel
 * centres c + k (a, b) lie on a ray from the inside pixel's centre, and a
 * rectangle's distance only grows along such a ray. */
static void
test_regions_monotonic (void)
{
  static const double feathers[] = { 1.0, 3.0, 8.5, 20.0, 40.0 };
  const GbSigmaRegion region = { {30, 20, 11, 7}, 4.0 };
  const int start_x = 35, start_y = 23;
  int f;

  group_begin ("regions: feather monotonic");
  for (f = 0; f < N_ELEMENTS (feathers); f++) {
    Map map = map_new (80, 60);
    int a, b;

    gb_sigma_map_regions (map.sigma, map.width, map.height, map.stride,
        &region, 1, feathers[f]);
    for (a = -5; a <= 5; a++) {
      for (b = -5; b <= 5; b++) {
        float previous = at (&map, start_x, start_y);
        int k, ok = 1, ends_at_zero;

        if (a == 0 && b == 0)
          continue;
        for (k = 1; inside (&map, start_x + k * a, start_y + k * b); k++) {
          const float value = at (&map, start_x + k * a, start_y + k * b);
          ok &= value <= previous;
          previous = value;
        }
        check (ok, "feather %g, ray (%d, %d): increases", feathers[f], a, b);
        /* Rays long enough to leave the feather end at 0. */
        ends_at_zero = rect_distance (&region.rect, start_x + (k - 1) * a,
            start_y + (k - 1) * b) < feathers[f] || previous == 0.0f;
        check (ends_at_zero, "feather %g, ray (%d, %d): ends at %g",
            feathers[f], a, b, previous);
      }
    }
    /* Strictly falling within the feather, right of the rectangle. */
    if (feathers[f] >= 3.0) {
      int x, strictly = 1;
      for (x = 42; x + 0.5 - 41.0 < feathers[f] && x + 1 < map.width; x++)
        strictly &= at (&map, x + 1, 23) < at (&map, x, 23);
      check (strictly, "feather %g: flat within the feather", feathers[f]);
    }
    map_free (&map);
  }
  group_end ();
}

static void
test_regions_hard_edge (void)
{
  const GbSigmaRegion region = { {7, 5, 13, 9}, 3.5 };
  Map map = map_new (32, 24);
  double returned;
  int x, y, ok = 1, count = 0;

  group_begin ("regions: hard edge");
  returned = gb_sigma_map_regions (map.sigma, map.width, map.height,
      map.stride, &region, 1, 0.0);
  for (y = 0; y < map.height; y++) {
    for (x = 0; x < map.width; x++) {
      const int in = x >= 7 && x < 20 && y >= 5 && y < 14;
      ok &= at (&map, x, y) == (in ? 3.5f : 0.0f);
      count += at (&map, x, y) != 0.0f;
    }
  }
  check (ok, "feather 0: not sigma inside and 0 outside");
  check (count == 13 * 9, "feather 0: %d non-zero values, expected %d",
      count, 13 * 9);
  check (returned == 3.5, "feather 0: returned %g", returned);
  check_map_sane (&map, 3.5, "hard edge");

  /* A negative feather is a hard edge too. */
  gb_sigma_map_regions (map.sigma, map.width, map.height, map.stride,
      &region, 1, -4.0);
  count = 0;
  for (y = 0; y < map.height; y++)
    for (x = 0; x < map.width; x++)
      count += at (&map, x, y) != 0.0f;
  check (count == 13 * 9, "feather -4: %d non-zero values", count);
  map_free (&map);
  group_end ();
}

static void
test_regions_overlap (void)
{
  const GbSigmaRegion regions[] = {
    {{10, 10, 20, 16}, 3.0},
    {{22, 18, 14, 12}, 6.0},
    {{5, 30, 8, 8}, 4.5},
  };
  static const double feathers[] = { 0.0, 4.0, 11.0 };
  int f;

  group_begin ("regions: overlap is the max");
  for (f = 0; f < N_ELEMENTS (feathers); f++) {
    Map together = map_new (48, 44);
    Map alone[N_ELEMENTS (regions)];
    int i, x, y, ok = 1;

    for (i = 0; i < N_ELEMENTS (regions); i++) {
      alone[i] = map_new (48, 44);
      gb_sigma_map_regions (alone[i].sigma, alone[i].width, alone[i].height,
          alone[i].stride, &regions[i], 1, feathers[f]);
    }
    gb_sigma_map_regions (together.sigma, together.width, together.height,
        together.stride, regions, N_ELEMENTS (regions), feathers[f]);
    for (y = 0; y < together.height; y++) {
      for (x = 0; x < together.width; x++) {
        float expected = 0.0f;
        for (i = 0; i < N_ELEMENTS (regions); i++)
          expected = fmaxf (expected, at (&alone[i], x, y));
        ok &= at (&together, x, y) == expected;
      }
    }
    check (ok, "feather %g: not the max of the regions alone", feathers[f]);
    check (at (&together, 25, 20) == 6.0f, "feather %g: overlap %g",
        feathers[f], at (&together, 25, 20));
    for (i = 0; i < N_ELEMENTS (regions); i++)
      map_free (&alone[i]);
    map_free (&together);
  }
  group_end ();
}

/* Regions past the frame's edges give exactly the frame's part of the map
 * of a larger frame holding them whole. */
static void
test_regions_clipped (void)
{
  const GbSigmaRegion regions[] = {
    {{-10, -5, 30, 20}, 2.0},
    {{35, 25, 40, 40}, 5.0},
    {{-8, 28, 12, 3}, 3.0},
  };
  const GbSigmaRegion outside[] = {
    {{-50, 5, 20, 10}, 4.0},
    {{100, 100, 5, 5}, 4.0},
    {{10, -30, 5, 10}, 4.0},
  };
  const GbSigmaRegion huge = { {-1000000000, -1000000000, 2000000000,
          2000000000}, 1.5 };
  static const double feathers[] = { 0.0, 3.0, 9.0 };
  const int margin = 60;
  int f;

  group_begin ("regions: clipped");
  for (f = 0; f < N_ELEMENTS (feathers); f++) {
    Map map = map_new (48, 40);
    Map large = map_new (48 + 2 * margin, 40 + 2 * margin);
    GbSigmaRegion shifted[N_ELEMENTS (regions)];
    double returned;
    int i, x, y, ok = 1;

    for (i = 0; i < N_ELEMENTS (regions); i++) {
      shifted[i] = regions[i];
      shifted[i].rect.x += margin;
      shifted[i].rect.y += margin;
    }
    returned = gb_sigma_map_regions (map.sigma, map.width, map.height,
        map.stride, regions, N_ELEMENTS (regions), feathers[f]);
    gb_sigma_map_regions (large.sigma, large.width, large.height,
        large.stride, shifted, N_ELEMENTS (shifted), feathers[f]);
    for (y = 0; y < map.height; y++)
      for (x = 0; x < map.width; x++)
        ok &= at (&map, x, y) == at (&large, x + margin, y + margin);
    check (ok, "feather %g: not the larger frame's map", feathers[f]);
    check_returned_largest (&map, returned, "clipped");
    check_map_sane (&map, 5.0, "clipped");

    /* Wholly outside, beyond the feather: nothing. */
    returned = gb_sigma_map_regions (map.sigma, map.width, map.height,
        map.stride, outside, N_ELEMENTS (outside), feathers[f]);
    check (returned == 0.0 && map_largest (&map) == 0.0f,
        "feather %g: regions outside the frame wrote %g", feathers[f],
        map_largest (&map));

    /* Covering the frame many times over: sigma everywhere. */
    returned = gb_sigma_map_regions (map.sigma, map.width, map.height,
        map.stride, &huge, 1, feathers[f]);
    ok = 1;
    for (y = 0; y < map.height; y++)
      for (x = 0; x < map.width; x++)
        ok &= at (&map, x, y) == 1.5f;
    check (ok && returned == 1.5, "feather %g: a huge region", feathers[f]);
    check_map_sane (&map, 1.5, "huge region");
    map_free (&large);
    map_free (&map);
  }
  group_end ();
}

static void
test_regions_ignored (void)
{
  const GbSigmaRegion ignored[] = {
    {{5, 5, 0, 10}, 3.0},
    {{5, 5, 10, -3}, 3.0},
    {{5, 5, 10, 10}, 0.0},
    {{5, 5, 10, 10}, -2.0},
    {{5, 5, 10, 10}, NAN},
  };
  Map map = map_new (24, 20);
  double returned;

  group_begin ("regions: ignored");
  returned = gb_sigma_map_regions (map.sigma, map.width, map.height,
      map.stride, ignored, N_ELEMENTS (ignored), 4.0);
  check (returned == 0.0, "returned %g", returned);
  check (map_largest (&map) == 0.0f, "wrote %g", map_largest (&map));
  check_map_sane (&map, 0.0, "ignored");
  returned = gb_sigma_map_regions (map.sigma, map.width, map.height,
      map.stride, NULL, 0, 4.0);
  check (returned == 0.0 && map_largest (&map) == 0.0f, "no regions");
  map_free (&map);
  group_end ();
}

static void
test_regions_random (void)
{
  int trial;

  group_begin ("regions: returned maximum");
  random_seed (8);
  for (trial = 0; trial < 400; trial++) {
    GbSigmaRegion regions[6];
    const int n = 1 + random_byte () % 6;
    const double feather = random_byte () % 4 == 0 ? 0.0 : random_unit () * 12;
    Map map = map_new (40 + random_byte () % 20, 30 + random_byte () % 20);
    double returned, largest_sigma = 0.0;
    int i, x, y, formula_ok = 1;

    for (i = 0; i < n; i++) {
      regions[i].rect.x = (int) (random_byte () % 80) - 20;
      regions[i].rect.y = (int) (random_byte () % 70) - 20;
      regions[i].rect.width = random_byte () % 25;
      regions[i].rect.height = random_byte () % 25;
      regions[i].sigma = random_unit () * 10.0;
      largest_sigma = fmax (largest_sigma, regions[i].sigma);
    }
    returned = gb_sigma_map_regions (map.sigma, map.width, map.height,
        map.stride, regions, n, feather);
    check_returned_largest (&map, returned, "random");
    /* Without a map, the same float (the handle's rmax on the GPU). */
    check (gb_sigma_regions_largest (map.width, map.height, regions, n,
            feather) == returned, "trial %d: gb_sigma_regions_largest %g, "
        "the map's largest %g", trial, gb_sigma_regions_largest (map.width,
            map.height, regions, n, feather), returned);
    check_map_sane (&map, largest_sigma, "random");
    for (y = 0; y < map.height; y++) {
      for (x = 0; x < map.width; x++) {
        double expected = 0.0;
        for (i = 0; i < n; i++)
          if (regions[i].rect.width > 0 && regions[i].rect.height > 0)
            expected = fmax (expected, region_formula (&regions[i], feather,
                    x, y));
        formula_ok &= fabs (at (&map, x, y) - expected) <= TOLERANCE * 10.0;
      }
    }
    check (formula_ok, "trial %d: the formula", trial);
    map_free (&map);
  }
  group_end ();
}

/* Not a check: the cost per video frame the element would pay. */
static void
report_regions_speed (void)
{
  GbSigmaRegion regions[8];
  Map map = map_new (1920, 1080);
  struct timespec start, end;
  int i;

  for (i = 0; i < 8; i++) {
    regions[i].rect.x = 100 + 220 * i;
    regions[i].rect.y = 80 + 100 * i;
    regions[i].rect.width = 160;
    regions[i].rect.height = 200;
    regions[i].sigma = 8.0;
  }
  clock_gettime (CLOCK_MONOTONIC, &start);
  gb_sigma_map_regions (map.sigma, map.width, map.height, map.stride,
      regions, 8, 24.0);
  clock_gettime (CLOCK_MONOTONIC, &end);
  printf ("     regions map, 1920x1080, 8 regions of 160x200, feather 24: "
      "%.2f ms\n", (end.tv_sec - start.tv_sec) * 1e3
      + (end.tv_nsec - start.tv_nsec) * 1e-6);
  map_free (&map);
}

/* --- tilt-shift --- */

/* The header's words: the distance d from the band's edge, the distance
 * to the centre line (the cross product with its direction) less half the
 * band. */
static double
tilt_shift_distance (int width, int height, double center_x,
    double center_y, double angle, double band, int x, int y)
{
  const double radians = angle * M_PI / 180.0;
  /* The line runs along (cos, -sin) in image coordinates (y down). */
  const double px = x + 0.5 - center_x * width;
  const double py = y + 0.5 - center_y * height;
  const double distance = fabs (px * -sin (radians) - py * cos (radians));

  return distance - band * height / 2.0;
}

static void
test_tilt_shift (void)
{
  static const struct
  {
    int width, height;
    double center_x, center_y, angle, band, transition;
  } cases[] = {
    {64, 64, 0.5, 0.5, 0.0, 0.2, 0.1},
    {64, 48, 0.4, 0.6, 30.0, 0.1, 0.3},
    {50, 70, 0.5, 0.5, -45.0, 0.0, 0.25},
    {72, 40, 0.2, 0.7, 120.0, 0.3, 0.05},
    {40, 40, 0.5, 0.5, 90.0, 0.25, 0.2},
    {40, 30, 0.5, 0.5, 17.0, 0.2, 0.0},
  };
  const double sigma = 6.0;
  int c;

  group_begin ("tilt-shift: formula");
  for (c = 0; c < N_ELEMENTS (cases); c++) {
    const double ramp = cases[c].transition * cases[c].height;
    Map map = map_new (cases[c].width, cases[c].height);
    double returned;
    int x, y, ok = 1, band_ok = 1, far_ok = 1;

    returned = gb_sigma_map_tilt_shift (map.sigma, map.width, map.height,
        map.stride, sigma, cases[c].center_x, cases[c].center_y,
        cases[c].angle, cases[c].band, cases[c].transition);
    check_map_sane (&map, sigma, "tilt-shift");
    check_returned_largest (&map, returned, "tilt-shift");
    for (y = 0; y < map.height; y++) {
      for (x = 0; x < map.width; x++) {
        const double d = tilt_shift_distance (map.width, map.height,
            cases[c].center_x, cases[c].center_y, cases[c].angle,
            cases[c].band, x, y);
        const float value = at (&map, x, y);

        /* Right on the band's edge a rounding may flip a step. */
        if (fabs (d) < 1e-9)
          continue;
        if (d < 0.0)
          band_ok &= value == 0.0f;
        else if (d >= ramp)
          far_ok &= value == (float) sigma;
        else
          ok &= fabs (value - sigma * smoothstep (d / ramp))
              <= TOLERANCE * sigma;
      }
    }
    check (ok, "case %d: the formula in the transition", c);
    check (band_ok, "case %d: not 0 in the band", c);
    check (far_ok, "case %d: not sigma beyond the transition", c);
    check (returned == (float) sigma, "case %d: returned %g", c, returned);
    map_free (&map);
  }
  group_end ();
}

static void
test_tilt_shift_properties (void)
{
  const double sigma = 4.0;
  Map map = map_new (64, 64);
  Map turned = map_new (64, 64);
  int x, y, ok;

  group_begin ("tilt-shift: properties");
  /* Angle 0: band 0, far away sigma, rows symmetric about the centre. */
  gb_sigma_map_tilt_shift (map.sigma, map.width, map.height, map.stride,
      sigma, 0.5, 0.5, 0.0, 0.25, 0.2);
  ok = 1;
  for (y = 24; y < 40; y++)
    for (x = 0; x < map.width; x++)
      ok &= at (&map, x, y) == 0.0f;
  check (ok, "angle 0: not 0 in the band");
  ok = 1;
  for (y = 0; y < 64; y++)
    if (fabs (y + 0.5 - 32.0) >= 8.0 + 0.2 * 64)
      for (x = 0; x < map.width; x++)
        ok &= at (&map, x, y) == (float) sigma;
  check (ok, "angle 0: not sigma beyond the transition");
  ok = 1;
  for (y = 0; y < 32; y++)
    for (x = 0; x < map.width; x++)
      ok &= at (&map, x, y) == at (&map, x, 63 - y)
          && at (&map, x, y) == at (&map, 0, y);
  check (ok, "angle 0: not symmetric about the band");
  ok = 1;
  for (y = 32; y + 1 < 64; y++)
    ok &= at (&map, 0, y + 1) >= at (&map, 0, y);
  check (ok, "angle 0: not monotonic away from the band");

  /* 90 degrees on a square frame: the transpose, centres swapped. */
  gb_sigma_map_tilt_shift (map.sigma, map.width, map.height, map.stride,
      sigma, 0.5, 0.3, 0.0, 0.1, 0.25);
  gb_sigma_map_tilt_shift (turned.sigma, turned.width, turned.height,
      turned.stride, sigma, 0.3, 0.5, 90.0, 0.1, 0.25);
  ok = 1;
  for (y = 0; y < 64; y++)
    for (x = 0; x < 64; x++)
      ok &= fabs (at (&turned, x, y) - at (&map, y, x)) <= TOLERANCE;
  check (ok, "90 degrees: not the transpose of 0 degrees");
  /* ... and 180 degrees is 0 degrees, 270 is 90. */
  gb_sigma_map_tilt_shift (turned.sigma, turned.width, turned.height,
      turned.stride, sigma, 0.5, 0.3, 180.0, 0.1, 0.25);
  ok = 1;
  for (y = 0; y < 64; y++)
    for (x = 0; x < 64; x++)
      ok &= fabs (at (&turned, x, y) - at (&map, x, y)) <= TOLERANCE;
  check (ok, "180 degrees: not 0 degrees");

  /* Monotonic in the distance from the centre line at an odd angle: pixels
   * sorted by distance carry non-decreasing values. */
  {
    const double angle = 33.0, radians = angle * M_PI / 180.0;
    double distance[64 * 64];
    int order[64 * 64], i, j, n = 64 * 64;

    gb_sigma_map_tilt_shift (map.sigma, map.width, map.height, map.stride,
        sigma, 0.45, 0.55, angle, 0.15, 0.3);
    for (i = 0; i < n; i++) {
      const double px = i % 64 + 0.5 - 0.45 * 64, py = i / 64 + 0.5
          - 0.55 * 64;
      distance[i] = fabs (px * sin (radians) + py * cos (radians));
      order[i] = i;
    }
    /* Insertion sort: 4096 entries, cheap enough. */
    for (i = 1; i < n; i++) {
      const int key = order[i];
      for (j = i - 1; j >= 0 && distance[order[j]] > distance[key]; j--)
        order[j + 1] = order[j];
      order[j + 1] = key;
    }
    ok = 1;
    for (i = 1; i < n; i++) {
      const float previous = map.sigma[(size_t) (order[i - 1] / 64) *
          map.stride + order[i - 1] % 64];
      const float value = map.sigma[(size_t) (order[i] / 64) * map.stride
          + order[i] % 64];
      ok &= value >= previous - TOLERANCE * sigma;
    }
    check (ok, "33 degrees: not monotonic in the distance");
  }

  /* Transition 0: a step, only 0 and sigma. */
  gb_sigma_map_tilt_shift (map.sigma, map.width, map.height, map.stride,
      sigma, 0.5, 0.5, 20.0, 0.3, 0.0);
  ok = 1;
  for (y = 0; y < 64; y++)
    for (x = 0; x < 64; x++)
      ok &= at (&map, x, y) == 0.0f || at (&map, x, y) == (float) sigma;
  check (ok, "transition 0: not a step");
  check_map_sane (&map, sigma, "tilt-shift step");
  map_free (&turned);
  map_free (&map);
  group_end ();
}

/* --- radial --- */

static void
test_radial (void)
{
  const double sigma = 7.5;
  const int width = 61, height = 45;
  const int centre_x = 25, centre_y = 20;
  /* The centre on a pixel centre, so rays run through pixel centres. */
  const double center_x = (centre_x + 0.5) / width;
  const double center_y = (centre_y + 0.5) / height;
  const double half_diagonal = 0.5 * sqrt (width * width + height * height);
  static const double transitions[] = { 0.0, 0.05, 0.3, 1.0 };
  int t;

  group_begin ("radial");
  for (t = 0; t < N_ELEMENTS (transitions); t++) {
    Map map = map_new (width, height);
    double returned;
    int a, b, x, y, ok = 1;

    returned = gb_sigma_map_radial (map.sigma, width, height, map.stride,
        sigma, center_x, center_y, 0.3, transitions[t]);
    check_map_sane (&map, sigma, "radial");
    check_returned_largest (&map, returned, "radial");
    check (at (&map, centre_x, centre_y) == 0.0f,
        "transition %g: %g at the centre", transitions[t],
        at (&map, centre_x, centre_y));
    for (y = 0; y < height; y++) {
      for (x = 0; x < width; x++) {
        const double dx = x + 0.5 - center_x * width;
        const double dy = y + 0.5 - center_y * height;
        const double d = sqrt (dx * dx + dy * dy) - 0.3 * half_diagonal;
        double expected;

        if (fabs (d) < 1e-9)
          continue;
        expected = d <= 0.0 ? 0.0 : transitions[t] == 0.0 ? sigma
            : sigma * smoothstep (d / (transitions[t] * half_diagonal));
        ok &= fabs (at (&map, x, y) - expected) <= TOLERANCE * sigma;
      }
    }
    check (ok, "transition %g: the formula", transitions[t]);
    for (a = -4; a <= 4; a++) {
      for (b = -4; b <= 4; b++) {
        float previous = 0.0f;
        int k, rising = 1;

        if (a == 0 && b == 0)
          continue;
        for (k = 0; inside (&map, centre_x + k * a, centre_y + k * b); k++) {
          const float value = at (&map, centre_x + k * a, centre_y + k * b);
          rising &= value >= previous;
          previous = value;
        }
        check (rising, "transition %g, ray (%d, %d): decreases",
            transitions[t], a, b);
      }
    }
    map_free (&map);
  }

  /* Corners at sigma when the transition is short. */
  {
    Map map = map_new (64, 36);
    gb_sigma_map_radial (map.sigma, 64, 36, map.stride, sigma, 0.5, 0.5,
        0.5, 0.05);
    check (at (&map, 0, 0) == (float) sigma && at (&map, 63, 0) ==
        (float) sigma && at (&map, 0, 35) == (float) sigma
        && at (&map, 63, 35) == (float) sigma, "corners not sigma");
    check (at (&map, 31, 17) == 0.0f && at (&map, 32, 18) == 0.0f,
        "centre not 0");
    map_free (&map);
  }
  group_end ();
}

/* --- image --- */

/* A random image of height rows of stride bytes. */
static uint8_t *
gray_new (size_t stride, int height)
{
  uint8_t *gray = malloc (stride * height);
  size_t i;

  for (i = 0; i < stride * height; i++)
    gray[i] = random_byte ();
  return gray;
}

static void
test_image_constant (void)
{
  const double sigma = 9.0;
  uint8_t *gray = gray_new (7, 3);
  Map map = map_new (64, 48);
  double returned;
  int x, y, ok = 1;

  group_begin ("image: constant");
  for (y = 0; y < 3; y++)
    memset (gray + y * 7, 77, 5);
  returned = gb_sigma_map_image (map.sigma, 64, 48, map.stride, sigma, gray,
      5, 3, 7);
  for (y = 0; y < 48; y++)
    for (x = 0; x < 64; x++)
      ok &= at (&map, x, y) == at (&map, 0, 0);
  check (ok, "not constant");
  check (fabs (at (&map, 0, 0) - sigma * 77 / 255.0) <= TOLERANCE,
      "%g, expected %g", at (&map, 0, 0), sigma * 77 / 255.0);
  check_returned_largest (&map, returned, "constant");
  check_map_sane (&map, sigma, "constant");

  /* 255 is sigma, 0 is 0. */
  memset (gray, 255, 7 * 3);
  returned = gb_sigma_map_image (map.sigma, 64, 48, map.stride, 6.5, gray,
      5, 3, 7);
  ok = 1;
  for (y = 0; y < 48; y++)
    for (x = 0; x < 64; x++)
      ok &= at (&map, x, y) == 6.5f;
  check (ok && returned == 6.5, "255 is not sigma");
  memset (gray, 0, 7 * 3);
  returned = gb_sigma_map_image (map.sigma, 64, 48, map.stride, 6.5, gray,
      5, 3, 7);
  check (returned == 0.0 && map_largest (&map) == 0.0f, "0 is not 0");
  free (gray);
  map_free (&map);
  group_end ();
}

/* Bilinear over one cell is linear along each row and each column: every
 * row and column monotonic one way or the other. */
static int
line_monotonic (const Map * map, int x, int y, int step_x, int step_y,
    int n)
{
  int k, rising = 1, falling = 1;

  for (k = 1; k < n; k++) {
    const float previous = at (map, x + (k - 1) * step_x,
        y + (k - 1) * step_y);
    const float value = at (map, x + k * step_x, y + k * step_y);
    rising &= value >= previous - TOLERANCE;
    falling &= value <= previous + TOLERANCE;
  }
  return rising || falling;
}

static void
test_image_corners (void)
{
  static const uint8_t corners[][4] = {
    {10, 200, 90, 255},
    {200, 10, 90, 255},
    {0, 255, 255, 0},
    {123, 45, 67, 89},
  };
  const double sigma = 255.0;
  int c;

  group_begin ("image: 2x2 to 256x256");
  for (c = 0; c < N_ELEMENTS (corners); c++) {
    Map map = map_new (256, 256);
    int i, rows_ok = 1, columns_ok = 1, inner_ok = 1;

    gb_sigma_map_image (map.sigma, 256, 256, map.stride, sigma,
        corners[c], 2, 2, 2);
    check (at (&map, 0, 0) == corners[c][0] && at (&map, 255, 0) ==
        corners[c][1] && at (&map, 0, 255) == corners[c][2]
        && at (&map, 255, 255) == corners[c][3],
        "case %d: corners %g %g %g %g", c, at (&map, 0, 0),
        at (&map, 255, 0), at (&map, 0, 255), at (&map, 255, 255));
    for (i = 0; i < 256; i++) {
      rows_ok &= line_monotonic (&map, 0, i, 1, 0, 256);
      columns_ok &= line_monotonic (&map, i, 0, 0, 1, 256);
    }
    check (rows_ok, "case %d: a row not monotonic", c);
    check (columns_ok, "case %d: a column not monotonic", c);
    /* The source's centres fall on frame positions 64 and 192: between
     * them, pixel centre x + 0.5 is (x + 0.5 - 64) / 128 of the way. */
    for (i = 64; i < 192; i += 7) {
      const double f = (i + 0.5 - 64.0) / 128.0;
      const double top = corners[c][0] + f * (corners[c][1] - corners[c][0]);
      inner_ok &= fabs (at (&map, i, 0) - top) <= TOLERANCE * 255;
    }
    check (inner_ok, "case %d: not linear between the centres", c);
    check_map_sane (&map, sigma, "corners");
    map_free (&map);
  }
  group_end ();
}

static void
test_image_scales (void)
{
  Map map;
  uint8_t *gray;
  double returned;
  int x, y, ok;

  group_begin ("image: scales");
  random_seed (11);
  /* Identity: the image itself. */
  gray = gray_new (41, 23);
  map = map_new (37, 23);
  returned = gb_sigma_map_image (map.sigma, 37, 23, map.stride, 255.0, gray,
      37, 23, 41);
  ok = 1;
  for (y = 0; y < 23; y++)
    for (x = 0; x < 37; x++)
      ok &= at (&map, x, y) == gray[y * 41 + x];
  check (ok, "identity scale: not the image");
  check_returned_largest (&map, returned, "identity");
  returned = gb_sigma_map_image (map.sigma, 37, 23, map.stride, 3.0, gray,
      37, 23, 41);
  ok = 1;
  for (y = 0; y < 23; y++)
    for (x = 0; x < 37; x++)
      ok &= fabs (at (&map, x, y) - 3.0 * gray[y * 41 + x] / 255.0)
          <= TOLERANCE;
  check (ok, "identity scale, sigma 3: not the image scaled");
  map_free (&map);
  free (gray);

  /* Down (the map within the image's range; reads stay inside the image,
   * which valgrind sees: no padding after the last row) and by 2 exactly
   * (pixel centres between two source centres: their mean). */
  gray = gray_new (100, 80);
  map = map_new (10, 8);
  returned = gb_sigma_map_image (map.sigma, 10, 8, map.stride, 255.0, gray,
      100, 80, 100);
  ok = 1;
  for (y = 0; y < 8; y++) {
    for (x = 0; x < 10; x++) {
      /* Frame pixel x samples source 10 x + 4.5: the mean of four. */
      const int u = 10 * x + 4, v = 10 * y + 4;
      const double expected = (gray[v * 100 + u] + gray[v * 100 + u + 1]
          + gray[(v + 1) * 100 + u] + gray[(v + 1) * 100 + u + 1]) / 4.0;
      ok &= fabs (at (&map, x, y) - expected) <= TOLERANCE * 255;
    }
  }
  check (ok, "down by 10: not the mean of the four nearest");
  check_returned_largest (&map, returned, "down");
  check_map_sane (&map, 255.0, "down");
  map_free (&map);
  free (gray);

  /* Non-uniform: 3x1 to 7x5, every row equal, edges clamped. */
  {
    const uint8_t row[3] = { 0, 150, 30 };
    map = map_new (7, 5);
    gb_sigma_map_image (map.sigma, 7, 5, map.stride, 255.0, row, 3, 1, 3);
    ok = 1;
    for (y = 0; y < 5; y++)
      for (x = 0; x < 7; x++)
        ok &= at (&map, x, y) == at (&map, x, 0);
    check (ok, "3x1: rows differ");
    /* x = 3: centre 3.5 of 7 is source 1 exactly. */
    check (at (&map, 0, 0) == 0.0f && at (&map, 3, 0) == 150.0f
        && at (&map, 6, 0) == 30.0f, "3x1: %g %g %g", at (&map, 0, 0),
        at (&map, 3, 0), at (&map, 6, 0));
    map_free (&map);
  }
  group_end ();
}

int
main (void)
{
  test_regions_formula ();
  test_regions_monotonic ();
  test_regions_hard_edge ();
  test_regions_overlap ();
  test_regions_clipped ();
  test_regions_ignored ();
  test_regions_random ();
  report_regions_speed ();
  test_tilt_shift ();
  test_tilt_shift_properties ();
  test_radial ();
  test_image_constant ();
  test_image_corners ();
  test_image_scales ();

  return checks_summary ();
}

/* The regions map's decomposed superposition (cuda/superposition_regions.c)
 * against the CPU reference (cuda/superposition.c).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Random frames with random regions, sigmas, feathers and rmax; planes of
 * 1 to 4 channels, 8 and 16 bits, subsampled 1 or 2 on each axis, plain
 * and normalised. Where the plan applies, its sums (the GPU's grouping,
 * evaluated here in double) must equal the reference's to the float
 * rounding of the tabulated kernels; where it must not apply (regions that
 * meet, a region within the reach of an edge, a window that is not the
 * plane, a feather past its steps) it must say so. Counts both, so that a
 * run where the plan never applied fails.
 */
#include "superposition_regions.h"
#include "superposition.h"
#include "sigma_map.h"
#include "check_groups.h"
#include "gaussblur.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
random_int (int low, int high)  /* low .. high inclusive */
{
  const unsigned r = (unsigned) random_byte () << 16
      | (unsigned) random_byte () << 8 | random_byte ();
  return low + (int) (r % (unsigned) (high - low + 1));
}

typedef struct {
  int width, height;            /* the frame */
  int n_regions;
  GbSigmaRegion regions[6];
  double feather;
  int rmax;
  int bytes;
  int channels;
  int subsampling_x, subsampling_y;
  int normalize;
} Case;

/* The plane's filter as the core resolves it (gb_plane_filters_resolve,
 * gb_plane_filters_set_superposition) for a two-plane geometry whose plane
 * 1 is the subsampled one. */
static void
plane_filter (const Case * k, const float *map, int p, GbGeometry * geometry,
    GbPlaneFilter * filters)
{
  GbParams params = gb_params_make (k->rmax / 3.0, k->rmax,
      GB_ALGORITHM_SUPERPOSITION_GATHER, GB_BORDER_CLAMP);
  memset (geometry, 0, sizeof *geometry);
  geometry->n_planes = 2;
  geometry->bytes_per_sample = k->bytes;
  geometry->planes[0] = (GbPlaneGeometry) {
  k->width, k->height, 1, 1, 1, 0};
  geometry->planes[1] = (GbPlaneGeometry) {
  (k->width + k->subsampling_x - 1) / k->subsampling_x,
        (k->height + k->subsampling_y - 1) / k->subsampling_y, k->channels,
        k->subsampling_x, k->subsampling_y, 0};
  params.normalize = k->normalize;
  gb_plane_filters_resolve (&params, geometry, filters);
  gb_plane_filters_set_superposition (geometry, k->rmax, map, k->width,
      filters);
  (void) p;
}

/* The reference's sums of src; normalised, divided by those of a plane of
 * ones (the weight that reaches each output). */
static int
reference_sums (const Case * k, const GbPlaneGeometry * plane,
    const float *map, const uint8_t * src, size_t stride, double *sums)
{
  const size_t samples = (size_t) plane->width * plane->height
      * plane->channels;
  GbError error;
  double *weights;
  uint8_t *ones;
  size_t i;
  int x, y, c, ok;

  if (gb_superposition_cpu_sums (GB_SUPERPOSITION_GATHER, plane, k->bytes,
          map, k->width, k->rmax, GB_BORDER_MIRROR, src, stride, sums,
          &error) != GB_OK)
    return check (0, "reference: %s", error.message);
  if (!k->normalize)
    return 1;
  weights = malloc (sizeof (double) * samples);
  ones = calloc (stride, plane->height);
  for (y = 0; y < plane->height; y++)
    for (x = 0; x < plane->width; x++)
      for (c = 0; c < plane->channels; c++) {
        uint8_t *at = ones + (size_t) y * stride
            + ((size_t) x * plane->channels + c) * k->bytes;
        at[0] = 1;              /* little-endian 16-bit 1 too */
      }
  ok = gb_superposition_cpu_sums (GB_SUPERPOSITION_GATHER, plane, k->bytes,
      map, k->width, k->rmax, GB_BORDER_MIRROR, ones, stride, weights,
      &error) == GB_OK;
  for (i = 0; ok && i < samples; i++)
    sums[i] /= weights[i];
  free (weights);
  free (ones);
  return check (ok, "reference weights: %s", ok ? "" : error.message);
}

/* One case, both planes: counts in *applied the planes where the plan
 * applied; expect_applies 0 or 1 says what it must do, -1 either. */
static void
run_case (const Case * k, int expect_applies, int *applied)
{
  const size_t pixels = (size_t) k->width * k->height;
  float *map = malloc (sizeof (float) * pixels);
  GbGeometry geometry;
  GbPlaneFilter filters[GB_MAX_PLANES];
  int p;

  gb_sigma_map_regions (map, k->width, k->height, k->width, k->regions,
      k->n_regions, k->feather);
  plane_filter (k, map, 1, &geometry, filters);
  for (p = 0; p < 2; p++) {
    const GbPlaneGeometry *plane = &geometry.planes[p];
    const size_t samples = (size_t) plane->width * plane->height
        * plane->channels;
    const size_t stride = (size_t) plane->width * plane->channels * k->bytes
        + 6;
    uint8_t *src = malloc (stride * plane->height);
    double *want = malloc (sizeof (double) * samples);
    double *got = malloc (sizeof (double) * samples);
    const double top = k->bytes == 1 ? 255.0 : 65535.0;
    GbRegionPlan plan;
    GbError error;
    double worst = 0.0;
    int applies = 0;
    size_t i;

    for (i = 0; i < stride * plane->height; i++)
      src[i] = random_byte ();
    if (!check (gb_region_plan_build (&plan, &filters[p], plane, k->regions,
                k->n_regions, k->feather, NULL, &applies, &error) == GB_OK,
            "plan: %s", error.message))
      goto next;
    if (expect_applies >= 0)
      check (applies == expect_applies, "%dx%d, %d regions, feather %g, "
          "rmax %d, plane %d: the plan %s", k->width, k->height,
          k->n_regions, k->feather, k->rmax, p,
          applies ? "applies where it must not" : "does not apply");
    if (!applies)
      goto next;
    (*applied)++;
    if (!reference_sums (k, plane, map, src, stride, want)
        || !check (gb_region_plan_cpu_sums (&plan, plane, k->bytes, src,
                stride, got, &error) == GB_OK, "plan sums: %s",
            error.message))
      goto next;
    for (i = 0; i < samples; i++)
      if (fabs (got[i] - want[i]) > worst)
        worst = fabs (got[i] - want[i]);
    /* The tables hold float kernels, the reference double ones. */
    check (worst <= 2e-6 * top, "%dx%d plane %d (%dx%dx%d, %d-bit, "
        "subsampling %dx%d, %s), %d regions, feather %g, rmax %d: largest "
        "difference %g (region 0: %d,%d %dx%d sigma %g)", k->width, k->height, p, plane->width,
        plane->height, plane->channels, 8 * k->bytes, plane->subsampling_x,
        plane->subsampling_y, k->normalize ? "normalised" : "plain",
        k->n_regions, k->feather, k->rmax, worst, k->regions[0].rect.x,
        k->regions[0].rect.y, k->regions[0].rect.width,
        k->regions[0].rect.height, k->regions[0].sigma);
  next:
    gb_region_plan_clear (&plan);
    free (src);
    free (want);
    free (got);
  }
  free (map);
}

static GbSigmaRegion
region (int x, int y, int width, int height, double sigma)
{
  GbSigmaRegion r = { {x, y, width, height}, sigma };
  return r;
}

/* Random regions in a random frame: most far apart and inside (the plan
 * applies), some meeting or near an edge (either). */
static Case
random_case (int bytes)
{
  Case k;
  int i;

  memset (&k, 0, sizeof k);
  k.rmax = random_int (1, 12);
  k.feather = random_int (0, 1) ? random_int (0, 60) / 10.0 : 0.0;
  k.width = random_int (4 * k.rmax + 20, 4 * k.rmax + 120);
  k.height = random_int (4 * k.rmax + 20, 4 * k.rmax + 90);
  k.n_regions = random_int (1, 3);
  for (i = 0; i < k.n_regions; i++)
    k.regions[i] = region (random_int (0, k.width - 1),
        random_int (0, k.height - 1), random_int (1, 20), random_int (1, 20),
        random_int (1, 40) / 10.0);
  if (random_int (0, 4) == 0)
    k.regions[random_int (0, k.n_regions - 1)].sigma = 0.0;     /* skipped */
  k.bytes = bytes;
  k.channels = random_int (1, 4);
  k.subsampling_x = random_int (1, 2);
  k.subsampling_y = random_int (1, 2);
  k.normalize = random_int (0, 1);
  return k;
}

static void
random_cases (void)
{
  int applied = 0, planes = 0, t;

  group_begin ("random regions against the reference");
  random_seed (2026);
  for (t = 0; t < 600; t++) {
    const Case k = random_case (t % 3 == 2 ? 2 : 1);
    run_case (&k, -1, &applied);
    planes += 2;
  }
  /* Not vacuous: most random layouts have separate regions. */
  check (applied >= planes / 8, "the plan applied on %d planes of %d",
      applied, planes);
  printf ("  the plan applied on %d planes of %d\n", applied, planes);
  group_end ();
}

/* Layouts where it must apply, each checked against the reference. */
static void
fixed_cases (void)
{
  int applied = 0;
  Case k;

  group_begin ("regions where the plan applies");
  random_seed (7);
  memset (&k, 0, sizeof k);
  k.width = 160;
  k.height = 120;
  k.rmax = 9;
  k.bytes = 1;
  k.channels = 4;
  k.subsampling_x = k.subsampling_y = 2;
  /* Two faces, a feather of 8 (the element's default), sigma 3 and 2.5;
   * their reaches overlap, their pixels of sigma > 0 do not. */
  k.n_regions = 2;
  k.regions[0] = region (30, 30, 30, 40, 3.0);
  k.regions[1] = region (90, 40, 20, 30, 2.5);
  k.feather = 8.0;
  for (k.normalize = 0; k.normalize < 2; k.normalize++)
    run_case (&k, 1, &applied);
  /* A hard edge, and a feather of a fraction of a pixel. */
  k.feather = 0.0;
  run_case (&k, 1, &applied);
  k.feather = 0.4;
  run_case (&k, 1, &applied);
  /* Rectangles one pixel wide and high, 16-bit. */
  k.bytes = 2;
  k.feather = 3.0;
  k.regions[0] = region (40, 40, 1, 1, 3.0);
  k.regions[1] = region (100, 60, 1, 25, 1.0);
  run_case (&k, 1, &applied);
  check (applied == 10, "applied on %d planes of 10", applied);
  group_end ();
}

/* Layouts where it must not. */
static void
refused_cases (void)
{
  int applied = 0;
  Case k;

  group_begin ("regions where the plan does not apply");
  random_seed (8);
  memset (&k, 0, sizeof k);
  k.width = 120;
  k.height = 100;
  k.rmax = 6;
  k.bytes = 1;
  k.channels = 1;
  k.subsampling_x = k.subsampling_y = 1;
  k.n_regions = 2;
  k.feather = 4.0;
  /* Feathers that meet. */
  k.regions[0] = region (20, 30, 20, 20, 2.0);
  k.regions[1] = region (45, 30, 20, 20, 2.0);
  run_case (&k, 0, &applied);
  /* A region within the reach of the top edge. */
  k.regions[1] = region (70, 8, 10, 10, 2.0);
  run_case (&k, 0, &applied);
  /* A feather past GB_REGIONS_MAX_FEATHER_STEPS. */
  k.n_regions = 1;
  k.regions[0] = region (50, 40, 10, 10, 2.0);
  k.feather = GB_REGIONS_MAX_FEATHER_STEPS + 1.0;
  run_case (&k, 0, &applied);
  /* A region from x = 70 to INT_MAX wide (an upstream meta's fields are
   * clamped one at a time): it reaches the right edge. Its end once
   * overflowed, the region was skipped and the plan applied without it. */
  k.feather = 4.0;
  k.regions[0] = region (70, 40, INT_MAX, 10, 2.0);
  run_case (&k, 0, &applied);
  check (applied == 0, "applied on %d planes", applied);
  group_end ();
}

/* Plane 1 of case k's plan, built from `previous` into *plan; returns
 * whether it applies. */
static int
build_plane (const Case * k, const GbRegionPlan * previous,
    GbRegionPlan * plan)
{
  const size_t pixels = (size_t) k->width * k->height;
  float *map = malloc (sizeof (float) * pixels);
  GbGeometry geometry;
  GbPlaneFilter filters[GB_MAX_PLANES];
  GbError error;
  int applies = 0;

  gb_sigma_map_regions (map, k->width, k->height, k->width, k->regions,
      k->n_regions, k->feather);
  plane_filter (k, map, 1, &geometry, filters);
  check (gb_region_plan_build (plan, &filters[1], &geometry.planes[1],
          k->regions, k->n_regions, k->feather, previous, &applies,
          &error) == GB_OK, "plan: %s", error.message);
  free (map);
  return applies;
}

/* A plan built from an earlier one must equal the one built fresh, and
 * say that its tables are the earlier plan's exactly when they are. */
static void
check_reuse (const char *what, const Case * k, const GbRegionPlan * previous,
    int expect_reused)
{
  GbRegionPlan fresh, reused;
  const int applies = build_plane (k, NULL, &fresh);

  if (check (applies && build_plane (k, previous, &reused), "%s: the plan "
          "does not apply", what)) {
    const size_t table_floats = (size_t) fresh.n_tables * fresh.levels;
    check (reused.n_regions == fresh.n_regions && reused.n_tables
        == fresh.n_tables && !memcmp (reused.boxes, fresh.boxes,
            sizeof fresh.boxes) && !memcmp (reused.table_sigma,
            fresh.table_sigma, sizeof fresh.table_sigma)
        && !memcmp (reused.level_sigma, fresh.level_sigma,
            sizeof (float) * table_floats) && !memcmp (reused.kernels,
            fresh.kernels, sizeof (float) * table_floats
            * fresh.table_stride), "%s: the plan differs from a fresh one",
        what);
    check (reused.tables_reused == expect_reused, "%s: tables_reused %d, "
        "expected %d", what, reused.tables_reused, expect_reused);
    gb_region_plan_clear (&reused);
  }
  gb_region_plan_clear (&fresh);
}

/* Tables copied from the last frame's plan (regions that move, as faces
 * do): the same plan as computed afresh. */
static void
reused_tables (void)
{
  GbRegionPlan first;
  Case k;

  group_begin ("tables reused from an earlier plan");
  memset (&k, 0, sizeof k);
  k.width = 200;
  k.height = 160;
  k.rmax = 9;
  k.bytes = 1;
  k.channels = 2;
  k.subsampling_x = 2;
  k.subsampling_y = 1;
  k.n_regions = 2;
  k.regions[0] = region (40, 40, 30, 40, 3.0);
  k.regions[1] = region (120, 60, 20, 30, 2.0);
  k.feather = 5.0;
  if (check (build_plane (&k, NULL, &first), "the first plan does not "
          "apply")) {
    Case moved = k, other = k, swapped = k, added = k;
    check_reuse ("the same regions", &k, &first, 1);
    moved.regions[0].rect.x += 7;
    moved.regions[1].rect.y -= 3;
    moved.regions[1].rect.width += 4;
    check_reuse ("regions moved and resized", &moved, &first, 1);
    /* The sigmas' order changes the tables' order. */
    swapped.regions[0] = k.regions[1];
    swapped.regions[1] = k.regions[0];
    check_reuse ("the regions swapped", &swapped, &first, 0);
    other.regions[1].sigma = 2.5;
    check_reuse ("one sigma changed", &other, &first, 0);
    added.n_regions = 3;
    added.regions[2] = region (40, 110, 10, 10, 1.5);
    check_reuse ("a region of a new sigma", &added, &first, 0);
    other = k;
    other.feather = 4.0;
    check_reuse ("another feather", &other, &first, 0);
    other = k;
    other.rmax = 8;
    check_reuse ("another rmax", &other, &first, 0);
    other = k;
    other.subsampling_y = 2;
    check_reuse ("another subsampling", &other, &first, 0);
    check_reuse ("no earlier plan", &k, NULL, 0);
  }
  gb_region_plan_clear (&first);
  group_end ();
}

int
main (void)
{
  fixed_cases ();
  refused_cases ();
  reused_tables ();
  random_cases ();
  return checks_summary ();
}

/* The plan of a sigma map constant along rows (cuda/superposition_rows.c):
 * which maps are, and each plane row's kernels.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The GPU's sums with these kernels are checked against the CPU reference
 * by test-gpu-superposition (group rows); here, what CI can check without
 * a GPU: the detection of such maps, and that plane row y gets the axis
 * kernels of the map value its frame row has (subsampled planes read every
 * second row), shared between rows of the same value, with the x kernel's
 * sum for the normalised weight.
 */
#include "superposition_rows.h"
#include "superposition.h"
#include "sigma_map.h"
#include "check_groups.h"
#include "gaussblur.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 97
#define HEIGHT 61
#define RMAX 12

static void
detection (void)
{
  float *map = malloc (sizeof (float) * WIDTH * HEIGHT);
  const GbSigmaRegion region = { {20, 10, 30, 20}, 3.0 };

  group_begin ("maps of one value per row");
  gb_sigma_map_tilt_shift (map, WIDTH, HEIGHT, WIDTH, 4.0, 0.5, 0.4, 0.0,
      0.2, 0.3);
  check (gb_sigma_map_rows_constant (map, WIDTH, HEIGHT, WIDTH),
      "a horizontal tilt-shift band is not one value per row");
  gb_sigma_map_tilt_shift (map, WIDTH, HEIGHT, WIDTH, 4.0, 0.5, 0.4, 180.0,
      0.2, 0.3);
  check (gb_sigma_map_rows_constant (map, WIDTH, HEIGHT, WIDTH),
      "a band at 180 degrees is not one value per row");
  gb_sigma_map_tilt_shift (map, WIDTH, HEIGHT, WIDTH, 4.0, 0.5, 0.4, 30.0,
      0.2, 0.3);
  check (!gb_sigma_map_rows_constant (map, WIDTH, HEIGHT, WIDTH),
      "a band at 30 degrees is taken as one value per row");
  gb_sigma_map_regions (map, WIDTH, HEIGHT, WIDTH, &region, 1, 4.0);
  check (!gb_sigma_map_rows_constant (map, WIDTH, HEIGHT, WIDTH),
      "a regions map is taken as one value per row");
  /* One pixel off in the last row. */
  for (int i = 0; i < WIDTH * HEIGHT; i++)
    map[i] = 2.0f;
  check (gb_sigma_map_rows_constant (map, WIDTH, HEIGHT, WIDTH),
      "a constant map is not one value per row");
  map[WIDTH * HEIGHT - 1] = 2.5f;
  check (!gb_sigma_map_rows_constant (map, WIDTH, HEIGHT, WIDTH),
      "a map with one pixel off is taken as one value per row");
  free (map);
  group_end ();
}

/* The plan of each plane of a frame of that subsampling, against the axis
 * kernels of each row's value. */
static void
plan_of (int subsampling, int channels, const float *row_sigma,
    const float *map)
{
  GbGeometry geometry;
  GbPlaneFilter filters[GB_MAX_PLANES];
  GbParams params = gb_params_make (RMAX / 3.0, RMAX,
      GB_ALGORITHM_SUPERPOSITION_GATHER, GB_BORDER_MIRROR);
  GbError error;
  int p;

  memset (&geometry, 0, sizeof geometry);
  geometry.n_planes = 2;
  geometry.bytes_per_sample = 1;
  geometry.planes[0] = (GbPlaneGeometry) {
  WIDTH, HEIGHT, 1, 1, 1, 0};
  geometry.planes[1] = (GbPlaneGeometry) {
  (WIDTH + subsampling - 1) / subsampling,
        (HEIGHT + subsampling - 1) / subsampling, channels, subsampling,
        subsampling, 0};
  gb_plane_filters_resolve (&params, &geometry, filters);
  gb_plane_filters_set_superposition (&geometry, RMAX, map, WIDTH, filters);
  for (p = 0; p < 2; p++) {
    const GbPlaneGeometry *plane = &geometry.planes[p];
    GbRowPlan plan;
    int applies = 0, y, ok = 1;
    if (!check (gb_row_plan_build (&plan, &filters[p], plane, row_sigma,
                HEIGHT, &applies, &error) == GB_OK, "plan: %s",
            error.message))
      continue;
    if (check (applies, "subsampling %d, plane %d: the plan does not apply",
            subsampling, p)) {
      check (plan.rows == plane->height && plan.reach_x == filters[p].reach_x
          && plan.reach_y == filters[p].reach_y && plan.n_kernels >= 1
          && plan.n_kernels < plane->height, "subsampling %d, plane %d: "
          "%d rows, %d kernels", subsampling, p, plan.rows, plan.n_kernels);
      for (y = 0; y < plane->height; y++) {
        const float sigma = row_sigma[y * plane->subsampling_y];
        const float *taps = plan.kernels + (size_t) plan.row_kernel[y]
            * plan.stride;
        double weights[GB_SUPERPOSITION_MAX_RADIUS + 1], sum;
        int axis, d, radius;
        for (axis = 0; axis < 2; axis++) {
          const int reach = axis ? plan.reach_y : plan.reach_x;
          radius = gb_superposition_axis_kernel (sigma, RMAX, axis
              ? plane->subsampling_y : plane->subsampling_x, weights);
          for (d = 0; d <= reach; d++)
            ok &= taps[(axis ? plan.reach_x + 1 : 0) + d]
                == (d <= radius ? (float) weights[d] : 0.0f);
        }
        sum = taps[0];
        for (d = 1; d <= plan.reach_x; d++)
          sum += 2.0 * taps[d];
        ok &= plan.weight_x[plan.row_kernel[y]] == (float) sum;
        /* Rows of one value share a kernel. */
        if (y > 0 && row_sigma[(y - 1) * plane->subsampling_y] == sigma)
          ok &= plan.row_kernel[y] == plan.row_kernel[y - 1];
      }
      check (ok, "subsampling %d, plane %d: a row's kernels differ from "
          "gb_superposition_axis_kernel of its value", subsampling, p);
    }
    gb_row_plan_clear (&plan);
  }
}

static void
plans (void)
{
  float *map = malloc (sizeof (float) * WIDTH * HEIGHT);
  float row_sigma[HEIGHT];
  GbGeometry geometry;
  GbPlaneFilter filters[GB_MAX_PLANES];
  GbParams params = gb_params_make (2.0, 0, GB_ALGORITHM_SEPARABLE,
      GB_BORDER_MIRROR);
  GbRowPlan plan;
  GbError error;
  int applies = 1;

  group_begin ("each row's kernels");
  gb_sigma_map_tilt_shift (map, WIDTH, HEIGHT, WIDTH, 4.0, 0.5, 0.4, 0.0,
      0.2, 0.3);
  for (int y = 0; y < HEIGHT; y++)
    row_sigma[y] = map[(size_t) y * WIDTH];
  plan_of (1, 3, row_sigma, map);
  plan_of (2, 2, row_sigma, map);
  /* Without a superposition radius the plan does not apply. */
  memset (&geometry, 0, sizeof geometry);
  geometry.n_planes = 1;
  geometry.bytes_per_sample = 1;
  geometry.planes[0] = (GbPlaneGeometry) {
  WIDTH, HEIGHT, 4, 1, 1, 0};
  gb_plane_filters_resolve (&params, &geometry, filters);
  check (gb_row_plan_build (&plan, &filters[0], &geometry.planes[0],
          row_sigma, HEIGHT, &applies, &error) == GB_OK && !applies,
      "a filter without rmax: the plan applies");
  gb_row_plan_clear (&plan);
  free (map);
  group_end ();
}

int
main (void)
{
  detection ();
  plans ();
  return checks_summary ();
}

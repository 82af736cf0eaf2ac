/* The superposition of a sigma map constant along rows
 * (superposition_rows.h).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "superposition_rows.h"

#include "superposition.h"

#include <stdlib.h>
#include <string.h>

int
gb_sigma_map_rows_constant (const float *map, int width, int height,
    size_t stride)
{
  int x, y;

  for (y = 0; y < height; y++) {
    const float *row = map + (size_t) y * stride;
    for (x = 1; x < width; x++)
      if (row[x] != row[0])
        return 0;
  }
  return 1;
}

void
gb_row_plan_clear (GbRowPlan * plan)
{
  free (plan->row_kernel);
  free (plan->kernels);
  free (plan->weight_x);
  memset (plan, 0, sizeof *plan);
}

/* Kernel k's taps for the map value sigma. */
static void
fill_kernel (GbRowPlan * plan, int k, double sigma,
    const GbPlaneFilter * filter)
{
  double weights[GB_SUPERPOSITION_MAX_RADIUS + 1];
  float *taps = plan->kernels + (size_t) k * plan->stride;
  double sum;
  int axis, d;

  for (axis = 0; axis < 2; axis++) {
    const int reach = axis ? plan->reach_y : plan->reach_x;
    const int radius = gb_superposition_axis_kernel (sigma, filter->rmax,
        axis ? filter->step_y : filter->step_x, weights);
    float *out = taps + (axis ? plan->reach_x + 1 : 0);
    for (d = 0; d <= reach; d++)
      out[d] = d <= radius ? (float) weights[d] : 0.0f;
  }
  sum = taps[0];
  for (d = 1; d <= plan->reach_x; d++)
    sum += 2.0 * taps[d];
  plan->weight_x[k] = (float) sum;
}

GbStatus
gb_row_plan_build (GbRowPlan * plan, const GbPlaneFilter * filter,
    const GbPlaneGeometry * plane, const float *row_sigma,
    int frame_height, int *applies, GbError * error)
{
  float *sigmas;
  int y;

  memset (plan, 0, sizeof *plan);
  *applies = 0;
  if (filter->rmax < 1 || !filter->whole
      || filter->window.width != plane->width
      || filter->window.height != plane->height)
    return GB_OK;
  plan->rows = plane->height;
  plan->reach_x = filter->reach_x;
  plan->reach_y = filter->reach_y;
  plan->stride = filter->reach_x + filter->reach_y + 2;
  plan->row_kernel = malloc (sizeof (int) * plane->height);
  sigmas = malloc (sizeof (float) * plane->height);
  if (!plan->row_kernel || !sigmas) {
    free (sigmas);
    gb_row_plan_clear (plan);
    return gb_error_set (error, GB_ERROR_OUT_OF_MEMORY,
        "no memory for a plan of %d rows", plane->height);
  }
  /* One kernel per run of rows of the same sigma (a band's flat parts
   * share theirs). */
  for (y = 0; y < plane->height; y++) {
    const long long frame_row = (long long) (filter->window.y + y)
        * filter->step_y;
    const float sigma = row_sigma[frame_row < frame_height ? frame_row
        : frame_height - 1];
    if (plan->n_kernels == 0 || sigmas[plan->n_kernels - 1] != sigma)
      sigmas[plan->n_kernels++] = sigma;
    plan->row_kernel[y] = plan->n_kernels - 1;
  }
  plan->kernels = malloc (sizeof (float) * plan->n_kernels * plan->stride);
  plan->weight_x = malloc (sizeof (float) * plan->n_kernels);
  if (!plan->kernels || !plan->weight_x) {
    free (sigmas);
    gb_row_plan_clear (plan);
    return gb_error_set (error, GB_ERROR_OUT_OF_MEMORY,
        "no memory for the kernels of %d rows", plane->height);
  }
  for (y = 0; y < plan->n_kernels; y++)
    fill_kernel (plan, y, sigmas[y], filter);
  free (sigmas);
  *applies = 1;
  return GB_OK;
}

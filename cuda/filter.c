/* Resolving the parameters per plane (see filter.h).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "filter.h"
#include "superposition.h"

#include <limits.h>
#include <string.h>

static void
axis_filter (const GbParams * params, double sigma, int subsampling,
    GbAxisFilter * axis)
{
  axis->sigma = sigma / subsampling;
  axis->radius = gb_axis_radius (params, axis->sigma, subsampling);
  gb_gaussian_weights (axis->sigma, axis->radius, axis->weights);
  gb_recursive_filter (axis->sigma, &axis->recursive);
}

/* [first, end) of the frame interval [start, start + length) on a plane axis
 * of n samples that each cover `subsampling` frame pixels: every plane
 * sample touching the interval, clipped to the plane. */
static void
plane_span (int start, int length, int subsampling, int n, int *first,
    int *end)
{
  long lo = start / subsampling;
  long hi = ((long) start + length + subsampling - 1) / subsampling;
  *first = (int) (lo < n ? lo : n);
  *end = (int) (hi < n ? hi : n);
}

static int
apron (const GbAxisFilter * axis)
{
  const int automatic = gb_auto_radius (axis->sigma);
  return axis->radius > automatic ? axis->radius : automatic;
}

/* The planes' multi-scale plans, once every plane's window is known: a
 * plane's rules (multiscale.h) may depend on the frame's other planes. */
static void
plan_multiscale (const GbParams * params, const GbGeometry * geometry,
    GbPlaneFilter * filters)
{
  const int alone = geometry->n_planes == 1;
  int rules[GB_MAX_PLANES], late = 0, p;

  for (p = 0; p < geometry->n_planes; p++) {
    const GbRect *w = &filters[p].window;
    const size_t pixels = (size_t) w->width * w->height;

    rules[p] = gb_multiscale_early_d16 (geometry->planes[p].channels,
        geometry->bytes_per_sample, pixels, alone)
        | gb_multiscale_late_d8 (geometry->planes[p].channels,
        geometry->bytes_per_sample, pixels, alone);
    late |= rules[p] & GB_MULTISCALE_LATE_D8;
  }
  for (p = 0; p < geometry->n_planes; p++) {
    GbPlaneFilter *filter = &filters[p];

    memset (&filter->multiscale, 0, sizeof filter->multiscale);
    if (filter->window.width > 0 && filter->window.height > 0)
      gb_multiscale_plan (filter->x.sigma, filter->y.sigma,
          filter->window.width, filter->window.height, params->border,
          rules[p] | (late && (rules[p] & GB_MULTISCALE_EARLY_D16)
              ? GB_MULTISCALE_EARLY_D16_WITH_CHROMA : 0),
          &filter->multiscale);
  }
}

void
gb_plane_filters_resolve (const GbParams * params, const GbGeometry * geometry,
    GbPlaneFilter * filters)
{
  GbRect region = params->region;
  const int has_region = region.width > 0 && region.height > 0;
  int p, grid_x = 1, grid_y = 1, outside = 0;

  /* The region widens to the coarsest plane's grid, so that every plane
   * covers the same part of the picture. */
  for (p = 0; p < geometry->n_planes; p++) {
    if (geometry->planes[p].subsampling_x > grid_x)
      grid_x = geometry->planes[p].subsampling_x;
    if (geometry->planes[p].subsampling_y > grid_y)
      grid_y = geometry->planes[p].subsampling_y;
  }
  /* A region that starts past the frame (plane 0's extent) is empty: the
   * widening below must not pull it back onto an odd-sized frame's edge. */
  if (has_region && geometry->n_planes > 0) {
    const GbPlaneGeometry *first = &geometry->planes[0];
    const long frame_width = (long) first->width
        * (first->subsampling_x > 0 ? first->subsampling_x : 1);
    const long frame_height = (long) first->height
        * (first->subsampling_y > 0 ? first->subsampling_y : 1);
    outside = region.x >= frame_width || region.y >= frame_height;
  }
  if (has_region) {
    const long x1 = ((long) region.x + region.width + grid_x - 1) / grid_x
        * grid_x;
    const long y1 = ((long) region.y + region.height + grid_y - 1) / grid_y
        * grid_y;
    region.x = region.x / grid_x * grid_x;
    region.y = region.y / grid_y * grid_y;
    region.width = (int) (x1 - region.x < INT_MAX ? x1 - region.x : INT_MAX);
    region.height = (int) (y1 - region.y < INT_MAX ? y1 - region.y : INT_MAX);
  }

  for (p = 0; p < geometry->n_planes; p++) {
    const GbPlaneGeometry *plane = &geometry->planes[p];
    GbPlaneFilter *filter = &filters[p];
    const int sub_x = plane->subsampling_x > 0 ? plane->subsampling_x : 1;
    const int sub_y = plane->subsampling_y > 0 ? plane->subsampling_y : 1;
    int x0 = 0, x1 = plane->width, y0 = 0, y1 = plane->height;
    int apron_x, apron_y;

    axis_filter (params, params->sigma_x, sub_x, &filter->x);
    axis_filter (params, params->sigma_y, sub_y, &filter->y);
    if (outside) {
      x1 = y1 = 0;
    } else if (has_region) {
      plane_span (region.x, region.width, sub_x, plane->width, &x0, &x1);
      plane_span (region.y, region.height, sub_y, plane->height, &y0, &y1);
    }
    filter->region = (GbRect) {
    x0, y0, x1 - x0, y1 - y0};
    filter->whole = x0 == 0 && y0 == 0 && x1 == plane->width
        && y1 == plane->height;
    /* The apron: what the region's outputs read (all of it for the
     * convolutions; for the recursive and multi-scale filters, whose
     * support is unbounded and which ignore the radius, ceil(3.5 sigma),
     * past which the Gaussian keeps under 0.047 % of its weight). */
    apron_x = apron (&filter->x);
    apron_y = apron (&filter->y);
    x0 = x0 - apron_x > 0 ? x0 - apron_x : 0;
    y0 = y0 - apron_y > 0 ? y0 - apron_y : 0;
    x1 = x1 + apron_x < plane->width ? x1 + apron_x : plane->width;
    y1 = y1 + apron_y < plane->height ? y1 + apron_y : plane->height;
    filter->window = (GbRect) {
    x0, y0, x1 - x0, y1 - y0};
    if (filter->region.width == 0 || filter->region.height == 0)
      filter->window = filter->region;
    filter->sharpen = (float) params->sharpen;
    filter->sigma_range = params->sigma_range;
    filter->iterations = params->iterations;
    filter->kappa = params->kappa;
    filter->distance_mask = ((1u << plane->channels) - 1u)
        & ~plane->alpha_mask;
    filter->range_scale = geometry->bytes_per_sample == 2 ? 1.0 / 257.0
        : 1.0;
    filter->rmax = filter->reach_x = filter->reach_y = 0;
    filter->step_x = sub_x;
    filter->step_y = sub_y;
    filter->sigma_map = NULL;
    filter->sigma_stride = 0;
    filter->normalize = params->normalize != 0;
  }
  plan_multiscale (params, geometry, filters);
}

void
gb_plane_filters_set_superposition (const GbGeometry * geometry, int rmax,
    const float *sigma_map, size_t sigma_stride, GbPlaneFilter * filters)
{
  int p;

  for (p = 0; p < geometry->n_planes; p++) {
    const GbPlaneGeometry *plane = &geometry->planes[p];
    GbPlaneFilter *filter = &filters[p];
    const GbRect *region = &filter->region;
    int apron_x, apron_y, x0, y0, x1, y1;

    filter->rmax = rmax;
    filter->reach_x = gb_superposition_reach (rmax, filter->step_x);
    filter->reach_y = gb_superposition_reach (rmax, filter->step_y);
    filter->sigma_map = sigma_map;
    filter->sigma_stride = sigma_stride;
    if (region->width <= 0 || region->height <= 0)
      continue;
    /* The outputs of the region read every input pixel within the reach. */
    apron_x = apron (&filter->x) > filter->reach_x ? apron (&filter->x)
        : filter->reach_x;
    apron_y = apron (&filter->y) > filter->reach_y ? apron (&filter->y)
        : filter->reach_y;
    x0 = region->x - apron_x > 0 ? region->x - apron_x : 0;
    y0 = region->y - apron_y > 0 ? region->y - apron_y : 0;
    x1 = region->x + region->width + apron_x < plane->width
        ? region->x + region->width + apron_x : plane->width;
    y1 = region->y + region->height + apron_y < plane->height
        ? region->y + region->height + apron_y : plane->height;
    filter->window = (GbRect) {
    x0, y0, x1 - x0, y1 - y0};
  }
}


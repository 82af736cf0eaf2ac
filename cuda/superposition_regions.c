/* The superposition of a regions map, decomposed (superposition_regions.h).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "superposition_regions.h"

#include "superposition.h"

#include <stdlib.h>
#include <string.h>

static int
floor_div (long long a, int b)
{
  return (int) (a >= 0 ? a / b : -((-a + b - 1) / b));
}

/* Where a region's side ends (start + length, frame pixels), held to
 * REGION_END_LIMIT: regions from upstream metas may reach INT_MAX field by
 * field, and the sum would overflow. Past any frame (GB_MAX_DIMENSION
 * times the largest subsampling) that changes nothing. */
#define REGION_END_LIMIT (1 << 24)
static int
rect_end (int start, int length)
{
  const long long end = (long long) start + length;
  return end > REGION_END_LIMIT ? REGION_END_LIMIT : (int) end;
}

/* The range of pixels along one axis whose class for [low, high) has a
 * value > 0 on the rectangle's other axis (inside: class -1, or a strip
 * step below `steps`): [*outer0, *outer1), and the inside [*inner0,
 * *inner1) (empty where no pixel centre falls inside). Returns 0 when
 * none has. */
static int
axis_ranges (int size, int window_origin, int step, int low, int high,
    const float *strip_sigma, int steps, int *inner0, int *inner1,
    int *outer0, int *outer1)
{
  /* Only pixels whose left frame edge lies in [low - steps, high + steps)
   * can have a class below steps. */
  const int first = floor_div ((long long) low - steps, step) - window_origin;
  const int end = floor_div ((long long) high + steps, step) + 1
      - window_origin;
  int i;

  *inner0 = *outer0 = size;
  *inner1 = *outer1 = 0;
  for (i = first > 0 ? first : 0; i < size && i < end; i++) {
    const int k = gb_region_class (i, window_origin, step, low, high);
    if (k < 0) {
      if (i < *inner0)
        *inner0 = i;
      *inner1 = i + 1;
    } else if (k >= steps || !(strip_sigma[k] > 0.0f))
      continue;
    if (i < *outer0)
      *outer0 = i;
    *outer1 = i + 1;
  }
  if (*inner0 >= *inner1)
    *inner0 = *inner1 = *outer0;
  return *outer0 < *outer1;
}

static int
boxes_meet (const GbRegionBox * a, const GbRegionBox * b)
{
  return a->outer_x0 < b->outer_x1 && b->outer_x0 < a->outer_x1
      && a->outer_y0 < b->outer_y1 && b->outer_y0 < a->outer_y1;
}

void
gb_region_plan_clear (GbRegionPlan * plan)
{
  free (plan->level_sigma);
  free (plan->kernels);
  memset (plan, 0, sizeof *plan);
}

/* Table t's levels: sigma and kernels of the inside, the strips and the
 * corners of a region of that sigma. */
static void
fill_table (GbRegionPlan * plan, int t, double sigma, double feather,
    const GbPlaneFilter * filter)
{
  const int steps = plan->steps;
  double weights[GB_SUPERPOSITION_MAX_RADIUS + 1];
  int level, axis, d;

  for (level = 0; level < plan->levels; level++) {
    double dx = 0.0, dy = 0.0;
    float value;

    if (level >= 1 + steps) {
      dx = (level - 1 - steps) / steps + 0.5;
      dy = (level - 1 - steps) % steps + 0.5;
    } else if (level >= 1)
      dx = level - 1 + 0.5;
    value = gb_sigma_region_value (sigma, dx, dy, feather);
    plan->level_sigma[(size_t) t * plan->levels + level] = value;
    for (axis = 0; axis < 2; axis++) {
      const int reach = axis ? plan->reach_y : plan->reach_x;
      const int radius = gb_superposition_axis_kernel (value, filter->rmax,
          axis ? filter->step_y : filter->step_x, weights);
      float *kernel = (float *) gb_region_plan_kernel (plan, t, level, axis);
      for (d = 0; d <= reach; d++)
        kernel[d] = d <= radius ? (float) weights[d] : 0.0f;
    }
  }
}

/* Whether `previous` has tables computed as plan's would be (before its
 * sigmas are compared). */
static int
tables_compatible (const GbRegionPlan * plan, const GbRegionPlan * previous)
{
  return previous && previous->n_tables > 0 && previous->levels == plan->levels
      && previous->steps == plan->steps
      && previous->table_stride == plan->table_stride
      && previous->reach_x == plan->reach_x
      && previous->reach_y == plan->reach_y
      && previous->step_x == plan->step_x && previous->step_y == plan->step_y
      && previous->rmax == plan->rmax && previous->feather == plan->feather;
}

GbStatus
gb_region_plan_build (GbRegionPlan * plan, const GbPlaneFilter * filter,
    const GbPlaneGeometry * plane, const GbSigmaRegion * regions,
    int n_regions, double feather, const GbRegionPlan * previous,
    int *applies, GbError * error)
{
  float strip_sigma[GB_REGIONS_MAX_FEATHER_STEPS];
  size_t floats = 0;
  int i, j, t, steps = 0;

  memset (plan, 0, sizeof *plan);
  *applies = 0;
  if (!(feather > 0.0))
    feather = 0.0;
  /* Strip pixels with a value > 0: k + 1/2 < feather. */
  while ((steps + 0.5) < feather)
    if (++steps > GB_REGIONS_MAX_FEATHER_STEPS)
      return GB_OK;
  if (filter->rmax < 1 || !filter->whole
      || filter->window.width != plane->width
      || filter->window.height != plane->height)
    return GB_OK;
  plan->steps = steps;
  plan->levels = 1 + steps + steps * steps;
  plan->reach_x = filter->reach_x;
  plan->reach_y = filter->reach_y;
  plan->step_x = filter->step_x;
  plan->step_y = filter->step_y;
  plan->origin_x = filter->window.x;
  plan->origin_y = filter->window.y;
  plan->channels = plane->channels;
  plan->normalize = filter->normalize;
  plan->table_stride = filter->reach_x + filter->reach_y + 2;
  plan->feather = feather;
  plan->rmax = filter->rmax;

  for (i = 0; i < n_regions; i++) {
    const GbSigmaRegion *region = &regions[i];
    GbRegionBox box;
    int k;

    if (region->rect.width <= 0 || region->rect.height <= 0
        || !(region->sigma > 0.0))
      continue;
    for (k = 0; k < steps; k++)
      strip_sigma[k] = gb_sigma_region_value (region->sigma, k + 0.5, 0.0,
          feather);
    memset (&box, 0, sizeof box);
    box.edge_x0 = region->rect.x;
    box.edge_x1 = rect_end (region->rect.x, region->rect.width);
    box.edge_y0 = region->rect.y;
    box.edge_y1 = rect_end (region->rect.y, region->rect.height);
    if (!axis_ranges (plane->width, filter->window.x, filter->step_x,
            box.edge_x0, box.edge_x1, strip_sigma, steps, &box.inner_x0,
            &box.inner_x1, &box.outer_x0, &box.outer_x1)
        || !axis_ranges (plane->height, filter->window.y, filter->step_y,
            box.edge_y0, box.edge_y1, strip_sigma, steps, &box.inner_y0,
            &box.inner_y1, &box.outer_y0, &box.outer_y1))
      continue;                 /* no pixel of this plane has sigma > 0 */
    /* A pixel the border rule would bring in must have sigma 0: the rules
     * map a pixel up to the reach outside the plane to one within the
     * reach plus one of an edge (mirror reflects about the edge pixel). */
    if (box.outer_x0 <= plan->reach_x
        || box.outer_x1 >= plane->width - plan->reach_x
        || box.outer_y0 <= plan->reach_y
        || box.outer_y1 >= plane->height - plan->reach_y
        || plan->n_regions == GB_REGIONS_MAX)
      return GB_OK;
    for (j = 0; j < plan->n_regions; j++)
      if (boxes_meet (&box, &plan->boxes[j]))
        return GB_OK;
    for (t = 0; t < plan->n_tables; t++)
      if (plan->table_sigma[t] == region->sigma)
        break;
    if (t == plan->n_tables)
      plan->table_sigma[plan->n_tables++] = region->sigma;
    box.table = t;
    if (box.inner_x1 > box.inner_x0)
      box.rows_width = box.inner_x1 - box.inner_x0 + 2 * plan->reach_x;
    if (box.inner_y1 > box.inner_y0)
      box.columns_height = box.inner_y1 - box.inner_y0 + 2 * plan->reach_y;
    box.rows_offset = floats;
    floats += (size_t) (plane->channels + 1) * box.rows_width
        * (box.outer_y1 - box.outer_y0);
    box.columns_offset = floats;
    floats += (size_t) (plane->channels + 1) * box.columns_height
        * (box.outer_x1 - box.outer_x0 - (box.inner_x1 - box.inner_x0));
    plan->boxes[plan->n_regions++] = box;
  }
  plan->scratch_floats = floats;

  plan->level_sigma = malloc (sizeof (float) * (plan->n_tables + 1)
      * plan->levels);
  plan->kernels = malloc (sizeof (float) * (plan->n_tables + 1)
      * plan->levels * plan->table_stride);
  if (!plan->level_sigma || !plan->kernels) {
    gb_region_plan_clear (plan);
    return gb_error_set (error, GB_ERROR_OUT_OF_MEMORY,
        "no memory for the regions' kernels");
  }
  {
    const int compatible = tables_compatible (plan, previous);
    const size_t table_floats = (size_t) plan->levels * plan->table_stride;
    plan->tables_reused = compatible
        && previous->n_tables == plan->n_tables;
    for (t = 0; t < plan->n_tables; t++) {
      int u = compatible ? 0 : -1;
      while (u >= 0 && u < previous->n_tables
          && previous->table_sigma[u] != plan->table_sigma[t])
        u++;
      if (u < 0 || u == previous->n_tables) {
        fill_table (plan, t, plan->table_sigma[t], feather, filter);
        plan->tables_reused = 0;
        continue;
      }
      memcpy (plan->level_sigma + (size_t) t * plan->levels,
          previous->level_sigma + (size_t) u * plan->levels,
          sizeof (float) * plan->levels);
      memcpy (plan->kernels + (size_t) t * table_floats,
          previous->kernels + (size_t) u * table_floats,
          sizeof (float) * table_floats);
      plan->tables_reused &= u == t;
    }
  }
  *applies = 1;
  return GB_OK;
}

/* The strip columns of a box, left then right: the j-th's plane column. */
static inline int
strip_column (const GbRegionBox * box, int j)
{
  const int left = box->inner_x0 - box->outer_x0;
  return j < left ? box->outer_x0 + j : box->inner_x1 + (j - left);
}

static inline double
sample_at (const void *src, size_t src_stride, int bytes_per_sample,
    int channels, int x, int y, int c)
{
  const uint8_t *row = (const uint8_t *) src + (size_t) y * src_stride;
  return bytes_per_sample == 1 ? row[(size_t) x * channels + c]
      : ((const uint16_t *) row)[(size_t) x * channels + c];
}

static inline int
class_x (const GbRegionPlan * plan, const GbRegionBox * box, int x)
{
  return gb_region_class (x, plan->origin_x, plan->step_x, box->edge_x0,
      box->edge_x1);
}

static inline int
class_y (const GbRegionPlan * plan, const GbRegionBox * box, int y)
{
  return gb_region_class (y, plan->origin_y, plan->step_y, box->edge_y0,
      box->edge_y1);
}

static inline int
min_int (int a, int b)
{
  return a < b ? a : b;
}

static inline int
max_int (int a, int b)
{
  return a > b ? a : b;
}

GbStatus
gb_region_plan_cpu_sums (const GbRegionPlan * plan,
    const GbPlaneGeometry * plane, int bytes_per_sample, const void *src,
    size_t src_stride, double *sums, GbError * error)
{
  const int C = plane->channels, P = C + 1;
  const int rx = plan->reach_x, ry = plan->reach_y;
  const int steps = plan->steps;
  double *scratch = calloc (plan->scratch_floats + 1, sizeof (double));
  int r, x, y, c;

  if (!scratch)
    return gb_error_set (error, GB_ERROR_OUT_OF_MEMORY,
        "no memory for the regions' sums");

  /* H: the rows through each rectangle along x, over its inside columns. */
  for (r = 0; r < plan->n_regions; r++) {
    const GbRegionBox *box = &plan->boxes[r];
    const int rows = box->outer_y1 - box->outer_y0;
    double *h = scratch + box->rows_offset;
    for (y = box->outer_y0; y < box->outer_y1 && box->rows_width > 0; y++) {
      const int level = gb_region_level (-1, class_y (plan, box, y), steps);
      const float *k = gb_region_plan_kernel (plan, box->table, level, 0);
      for (x = box->inner_x0 - rx; x < box->inner_x1 + rx; x++) {
        const int col = x - (box->inner_x0 - rx);
        for (int xx = max_int (box->inner_x0, x - rx);
            xx < min_int (box->inner_x1, x + rx + 1); xx++) {
          const double w = k[abs (x - xx)];
          for (c = 0; c < C; c++)
            h[((size_t) c * rows + (y - box->outer_y0)) * box->rows_width
                + col] += w * sample_at (src, src_stride, bytes_per_sample,
                C, xx, y, c);
          h[((size_t) C * rows + (y - box->outer_y0)) * box->rows_width
              + col] += w;
        }
      }
    }
  }
  /* V: the strip columns along y, over the rectangle's inside rows. */
  for (r = 0; r < plan->n_regions; r++) {
    const GbRegionBox *box = &plan->boxes[r];
    const int n = box->outer_x1 - box->outer_x0
        - (box->inner_x1 - box->inner_x0);
    double *v = scratch + box->columns_offset;
    for (int j = 0; j < n && box->columns_height > 0; j++) {
      const int xx = strip_column (box, j);
      const int level = gb_region_level (class_x (plan, box, xx), -1, steps);
      const float *k = gb_region_plan_kernel (plan, box->table, level, 1);
      for (y = box->inner_y0 - ry; y < box->inner_y1 + ry; y++) {
        const int row = y - (box->inner_y0 - ry);
        for (int yy = max_int (box->inner_y0, y - ry);
            yy < min_int (box->inner_y1, y + ry + 1); yy++) {
          const double w = k[abs (y - yy)];
          for (c = 0; c < C; c++)
            v[((size_t) c * n + j) * box->columns_height + row] +=
                w * sample_at (src, src_stride, bytes_per_sample, C, xx, yy,
                c);
          v[((size_t) C * n + j) * box->columns_height + row] += w;
        }
      }
    }
  }
  /* Each output: its own pixel where its sigma is 0, then every region's
   * rows, strip columns and corner pixels within the reach. */
  for (y = 0; y < plane->height; y++)
    for (x = 0; x < plane->width; x++) {
      double acc[GB_MAX_CHANNELS + 1] = { 0 };
      int sigma_zero = 1;
      for (r = 0; r < plan->n_regions; r++) {
        const GbRegionBox *box = &plan->boxes[r];
        const int rows = box->outer_y1 - box->outer_y0;
        const int n = box->outer_x1 - box->outer_x0
            - (box->inner_x1 - box->inner_x0);
        if (x < box->outer_x0 - rx || x >= box->outer_x1 + rx
            || y < box->outer_y0 - ry || y >= box->outer_y1 + ry)
          continue;
        if (x >= box->outer_x0 && x < box->outer_x1 && y >= box->outer_y0
            && y < box->outer_y1) {
          const int level = gb_region_level (class_x (plan, box, x),
              class_y (plan, box, y), steps);
          if (level <= steps || plan->level_sigma[(size_t) box->table
                  * plan->levels + level] > 0.0f)
            sigma_zero = 0;
        }
        if (box->rows_width > 0 && x >= box->inner_x0 - rx
            && x < box->inner_x1 + rx) {
          const double *h = scratch + box->rows_offset;
          const int col = x - (box->inner_x0 - rx);
          for (int yy = max_int (box->outer_y0, y - ry);
              yy < min_int (box->outer_y1, y + ry + 1); yy++) {
            const int level = gb_region_level (-1, class_y (plan, box, yy),
                steps);
            const double w = gb_region_plan_kernel (plan, box->table, level,
                1)[abs (y - yy)];
            for (c = 0; c < P; c++)
              acc[c] += w * h[((size_t) c * rows + (yy - box->outer_y0))
                  * box->rows_width + col];
          }
        }
        if (box->columns_height > 0 && y >= box->inner_y0 - ry
            && y < box->inner_y1 + ry) {
          const double *v = scratch + box->columns_offset;
          const int row = y - (box->inner_y0 - ry);
          for (int j = 0; j < n; j++) {
            const int xx = strip_column (box, j);
            const int level = gb_region_level (class_x (plan, box, xx), -1,
                steps);
            if (abs (x - xx) > rx)
              continue;
            const double w = gb_region_plan_kernel (plan, box->table, level,
                0)[abs (x - xx)];
            for (c = 0; c < P; c++)
              acc[c] += w * v[((size_t) c * n + j) * box->columns_height
                  + row];
          }
        }
        /* Corners: strip columns against strip rows. */
        for (int j = 0; j < n; j++) {
          const int xx = strip_column (box, j);
          const int cx = class_x (plan, box, xx);
          if (abs (x - xx) > rx)
            continue;
          for (int yy = max_int (box->outer_y0, y - ry);
              yy < min_int (box->outer_y1, y + ry + 1); yy++) {
            const int cy = class_y (plan, box, yy);
            int level;
            if (cy < 0)
              continue;
            level = gb_region_level (cx, cy, steps);
            if (!(plan->level_sigma[(size_t) box->table * plan->levels
                        + level] > 0.0f))
              continue;
            const double w = (double) gb_region_plan_kernel (plan,
                box->table, level, 1)[abs (y - yy)]
                * gb_region_plan_kernel (plan, box->table, level, 0)[abs (x
                    - xx)];
            for (c = 0; c < C; c++)
              acc[c] += w * sample_at (src, src_stride, bytes_per_sample, C,
                  xx, yy, c);
            acc[C] += w;
          }
        }
      }
      if (sigma_zero) {
        for (c = 0; c < C; c++)
          acc[c] += sample_at (src, src_stride, bytes_per_sample, C, x, y, c);
        acc[C] += 1.0;
      }
      for (c = 0; c < C; c++)
        sums[((size_t) y * plane->width + x) * C + c] = plan->normalize
            ? acc[c] / acc[C] : acc[c];
    }
  free (scratch);
  return GB_OK;
}

/* The superposition of a regions map (gb_sigma_map_regions), decomposed so
 * that most of it is separable.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The superposition is a sum over input pixels (superposition.h), so it can
 * be summed in any grouping. For rectangles with a feather the map has
 * structure: inside a rectangle sigma is the region's own; beside it (a
 * column left or right of it, on one of its rows) sigma depends on the
 * column alone; above and below it on the row alone; only the corners'
 * pixels depend on both. So, for a region whose pixels of sigma > 0 meet no
 * other region's:
 *
 *   - the rows through the rectangle (its own rows and the strips above and
 *     below, each row with one sigma) are filtered along x first: H(x, y')
 *     = sum over the rectangle's columns x' of in(x', y') K_row(y')(x - x');
 *     an output then adds K_row(y')(y - y') H(x, y') over those rows;
 *   - the strips left and right of it (each column with one sigma) are
 *     filtered along y first: V(x', y) = sum over the rectangle's rows of
 *     in(x', y') K_col(x')(y - y'); an output adds K_col(x')(x - x')
 *     V(x', y) over those columns;
 *   - the corners' pixels are added one by one;
 *   - a pixel of sigma 0 adds itself.
 *
 * That is about 2 rmax + 1 + 4 feather terms per output near a region
 * instead of (2 rmax + 1)^2. The sigmas take few values, all functions of
 * the region's sigma and of half-integer distances (pixel centres against
 * integer edges): level 0 is the inside, level 1 + k a strip pixel k + 1/2
 * from the edge, level 1 + F + kx F + ky a corner pixel; each level's
 * kernels along x and y are tabulated once (gb_superposition_axis_kernel,
 * in double, as the CPU reference computes them).
 *
 * The plan applies to one plane of a filter (its steps and reach) when the
 * window is the whole plane and every region's pixels of sigma > 0 lie
 * more than the reach plus one from the plane's edges (no border rule is needed:
 * the pixels a rule would bring in all have sigma 0 and reach nothing) and
 * apart from every other region's. Otherwise the caller uses the map.
 */
#ifndef GAUSSBLUR_SUPERPOSITION_REGIONS_H
#define GAUSSBLUR_SUPERPOSITION_REGIONS_H

#include "filter.h"
#include "gaussblur.h"
#include "sigma_map.h"

#ifdef __cplusplus
extern "C" {
#endif

/* At most this many regions, and strips of at most this many pixels (the
 * corners cost their pixels' count per output): beyond, the map. */
#define GB_REGIONS_MAX 64
#define GB_REGIONS_MAX_FEATHER_STEPS 16

/* One region in the plane's pixels: half-open ranges. */
typedef struct {
  int inner_x0, inner_x1;       /* columns inside the rectangle */
  int inner_y0, inner_y1;       /* rows inside it */
  int outer_x0, outer_x1;       /* with the strips: columns of sigma > 0 */
  int outer_y0, outer_y1;       /* on the rectangle's rows; rows alike */
  int edge_x0, edge_x1;         /* the rectangle, frame pixels */
  int edge_y0, edge_y1;
  int table;                    /* its level table (one per sigma) */
  size_t rows_offset;           /* floats: its H, (channels + 1) planes of */
  int rows_width;               /* outer rows x rows_width (inner columns
                                 * widened by the reach on both sides) */
  size_t columns_offset;        /* floats: its V, (channels + 1) planes of
                                 * strip columns x columns_height (inner rows
                                 * widened by the reach) */
  int columns_height;
} GbRegionBox;

typedef struct {
  int n_regions;
  GbRegionBox boxes[GB_REGIONS_MAX];
  int steps;                    /* F: strip pixels per side, at most */
  int levels;                   /* 1 + F + F^2 */
  int reach_x, reach_y;         /* the filter's */
  int step_x, step_y;           /* ... and where its plane pixels lie */
  int origin_x, origin_y;       /* in the frame (window, in plane pixels) */
  int channels;
  int normalize;
  int n_tables;
  double feather;               /* what the tables depend on besides the */
  int rmax;                     /* sigmas and the fields above */
  int tables_reused;            /* the tables are `previous`'s, unchanged
                                 * (gb_region_plan_build) */
  /* [n_tables][levels]: the level's sigma (as the map stores it) and its
   * kernels, x then y, (reach_x + 1) + (reach_y + 1) floats, 0 past the
   * radius. */
  double table_sigma[GB_REGIONS_MAX];   /* each table's region sigma */
  float *level_sigma;           /* n_tables * levels */
  float *kernels;               /* n_tables * levels * table_stride */
  int table_stride;
  size_t scratch_floats;        /* H and V of all regions */
} GbRegionPlan;

/* The two helpers below are shared with the GPU's kernels. */
#ifdef __CUDACC__
#define GB_REGION_INLINE static inline __host__ __device__
#else
#define GB_REGION_INLINE static inline
#endif

/* The level of a pixel from its column and row classes (-1: inside the
 * rectangle, k >= 0: k + 1/2 outside). */
GB_REGION_INLINE int
gb_region_level (int class_x, int class_y, int steps)
{
  if (class_x < 0 && class_y < 0)
    return 0;
  if (class_y < 0)
    return 1 + class_x;
  if (class_x < 0)
    return 1 + class_y;
  return 1 + steps + class_x * steps + class_y;
}

/* A plane column's (or row's) class for a region: -1 inside, k for
 * k + 1/2 outside; the pixel's centre in the frame, (window origin +
 * pixel) * step + 1/2, against the edges [low, high): never on one. */
GB_REGION_INLINE int
gb_region_class (int pixel, int window_origin, int step, int edge_low,
    int edge_high)
{
  const long long left = (long long) (window_origin + pixel) * step;

  if (left < edge_low)
    return (int) (edge_low - left - 1);
  if (left >= edge_high)
    return (int) (left - edge_high);
  return -1;
}

/* Builds the plan of plane `filter` (of a geometry's plane with that many
 * channels) for the regions and feather of gb_sigma_map_regions. Returns
 * GB_OK with *applies 0 when the plan does not apply (see above; the plan
 * is then empty), GB_ERROR_OUT_OF_MEMORY when its tables cannot be
 * allocated. Free with gb_region_plan_clear. `previous` (or NULL; not
 * `plan` itself) is an earlier plan: tables of the same sigma, feather and filter are copied
 * from it instead of computed (regions that move keep their tables), and
 * plan->tables_reused says when all of them are its own, in its order. */
GbStatus gb_region_plan_build (GbRegionPlan * plan,
    const GbPlaneFilter * filter, const GbPlaneGeometry * plane,
    const GbSigmaRegion * regions, int n_regions, double feather,
    const GbRegionPlan * previous, int *applies, GbError * error);

void gb_region_plan_clear (GbRegionPlan * plan);

/* A level's kernel along x (axis 0) or y (1) of table t. */
static inline const float *
gb_region_plan_kernel (const GbRegionPlan * plan, int t, int level, int axis)
{
  return plan->kernels + ((size_t) t * plan->levels + level)
      * plan->table_stride + (axis ? plan->reach_x + 1 : 0);
}

/* The plan evaluated on the CPU the way the GPU does (H, V, corners,
 * identity), in double, into doubles, as gb_superposition_cpu_sums (or,
 * with plan->normalize, each output divided by its weight): the test of
 * the decomposition against the reference. */
GbStatus gb_region_plan_cpu_sums (const GbRegionPlan * plan,
    const GbPlaneGeometry * plane, int bytes_per_sample, const void *src,
    size_t src_stride, double *sums, GbError * error);

#ifdef __cplusplus
}
#endif
#endif /* GAUSSBLUR_SUPERPOSITION_REGIONS_H */

/* The superposition of a sigma map that is constant along each row, as a
 * separable filter with a kernel per row.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Where every input pixel of a row has the same sigma (a tilt-shift band
 * at 0 or 180 degrees, any map that varies down the frame only), the
 * superposition (superposition.h) groups by input rows:
 *
 *   out(x, y) = sum_y' K_y'(y - y') H(x, y'),
 *   H(x, y')  = sum_x' K_x'(x - x') in~(x', y'),
 *
 * K_x' and K_y' the axis kernels of row y''s sigma, the rows and columns
 * outside the plane taken through the border rule (their sigma that of
 * the row they map to, as the reference does). That is 2 (2 reach + 1)
 * multiply-adds per output instead of (2 reach + 1)^2. Normalised, the
 * weight of an output is sum_y' K_y'(y - y') W(y'), W(y') the sum of row
 * y''s x kernel over all its taps (under clamp and mirror every tap reads a
 * pixel). Under GB_BORDER_ZERO the weight would depend on x: the caller
 * uses the map there.
 */
#ifndef GAUSSBLUR_SUPERPOSITION_ROWS_H
#define GAUSSBLUR_SUPERPOSITION_ROWS_H

#include "filter.h"
#include "gaussblur.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  int rows;                     /* the plane's */
  int reach_x, reach_y;         /* the filter's */
  int n_kernels;                /* distinct sigmas among the rows */
  int *row_kernel;              /* [rows]: each plane row's kernel */
  float *kernels;               /* [n_kernels][stride]: x taps 0 .. reach_x,
                                 * then y taps 0 .. reach_y */
  int stride;                   /* reach_x + reach_y + 2 */
  float *weight_x;              /* [n_kernels]: the x kernel's sum over
                                 * -reach_x .. reach_x */
} GbRowPlan;

/* Whether every row of the map has one value. */
int gb_sigma_map_rows_constant (const float *map, int width, int height,
    size_t stride);

/* Builds the plan of plane `filter` (rows plane_rows) from the frame's
 * sigma per row, row_sigma[frame_height]: plane row y reads frame row
 * (window.y + y) x step_y, as the reference does. Returns GB_OK with
 * *applies 0 where it does not apply (rmax 0, or a window that is not the
 * plane); GB_ERROR_OUT_OF_MEMORY when its tables cannot be allocated. Free
 * with gb_row_plan_clear. */
GbStatus gb_row_plan_build (GbRowPlan * plan, const GbPlaneFilter * filter,
    const GbPlaneGeometry * plane, const float *row_sigma,
    int frame_height, int *applies, GbError * error);

void gb_row_plan_clear (GbRowPlan * plan);

#ifdef __cplusplus
}
#endif
#endif /* GAUSSBLUR_SUPERPOSITION_ROWS_H */

/* What the handle hands each backend per plane: the parameters resolved for
 * that plane's sampling of the frame (internal to the core).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The handle (gaussblur.c) fills one GbPlaneFilter per plane with
 * gb_plane_filters_resolve() (filter.c) whenever the parameters or the
 * geometry change; the backends only read them. Every length here is in
 * the plane's own pixels.
 */
#ifndef GAUSSBLUR_FILTER_H
#define GAUSSBLUR_FILTER_H

#include "gaussblur.h"
#include "multiscale.h"
#include "recursive.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The Gaussian along one axis of one plane. */
typedef struct {
  double sigma;                 /* 0: this axis is not filtered */
  int radius;                   /* 0 when sigma is 0 */
  float weights[2 * GB_MAX_RADIUS + 1];         /* gb_gaussian_weights() */
  GbRecursiveFilter recursive;  /* gb_recursive_filter() (identity for 0) */
} GbAxisFilter;

typedef struct {
  GbAxisFilter x;               /* along rows */
  GbAxisFilter y;               /* along columns */
  GbMultiscalePlan multiscale;  /* factor 0: multi-scale does not apply
                                 * (either sigma below 10, or 10.75 on
                                 * gb_multiscale_late_d8's planes) */
  /* The part of the plane that is filtered: the region and its apron (the
   * radius of each axis), clipped to the plane. The algorithms see it as
   * their whole frame, so its edges follow the border rule only where they
   * are the plane's edges or the apron is cut short there. */
  GbRect window;
  /* The part that is written; the rest of the plane is copied from the
   * source. Equal to the whole plane without a region; may be empty. */
  GbRect region;
  int whole;                    /* region is the whole plane: nothing to copy */
  float sharpen;                /* GbParams.sharpen */
  /* GB_ALGORITHM_EDGE_AWARE (edge_aware.h), whose spatial sigmas are
   * x.sigma and y.sigma: GbParams' range sigma, iterations and kappa, and
   * what the plane's format adds. */
  double sigma_range;
  int iterations;
  double kappa;
  unsigned distance_mask;       /* the channels that steer (not alpha) */
  double range_scale;           /* samples to 8-bit levels: 1 or 1/257 */
  /* GB_ALGORITHM_SUPERPOSITION_* (superposition.h), set by
   * gb_plane_filters_set_superposition (rmax 0 otherwise): rmax in frame
   * pixels, how far each axis reaches in the plane's pixels (the window's
   * apron is at least that), and the frame's sigma map on the host, read
   * at (x * step_x, y * step_y) for plane pixel (x, y). */
  int rmax;
  int reach_x;
  int reach_y;
  int step_x;
  int step_y;
  const float *sigma_map;
  size_t sigma_stride;          /* floats */
  int normalize;                /* GbParams.normalize */
} GbPlaneFilter;

/* Fills filters[0 .. geometry->n_planes - 1] for valid parameters and
 * geometry (gb_params_validate, gb_geometry_validate). */
void gb_plane_filters_resolve (const GbParams * params,
    const GbGeometry * geometry, GbPlaneFilter * filters);

/* For the superposition algorithms: rmax (frame pixels, 1 ..
 * GB_SUPERPOSITION_MAX_RADIUS) and the frame's sigma map into each plane's
 * filter, each window widened to the reach of its axes. After
 * gb_plane_filters_resolve() of the same parameters and geometry. */
void gb_plane_filters_set_superposition (const GbGeometry * geometry,
    int rmax, const float *sigma_map, size_t sigma_stride,
    GbPlaneFilter * filters);

/* 1 when both axes have the same sigma and radius (the fused kernel needs it). */
static inline int
gb_plane_filter_isotropic (const GbPlaneFilter * filter)
{
  return filter->x.sigma == filter->y.sigma
      && filter->x.radius == filter->y.radius;
}

/* The larger of the two radii: how far the filter reaches along either
 * axis. */
static inline int
gb_plane_filter_radius (const GbPlaneFilter * filter)
{
  return filter->x.radius > filter->y.radius ? filter->x.radius
      : filter->y.radius;
}

#ifdef __cplusplus
}
#endif
#endif /* GAUSSBLUR_FILTER_H */

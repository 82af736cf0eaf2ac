/* Sigma maps for the spatially varying blur (superposition.h): where each
 * pixel's sigma comes from.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each function fills a frame-resolution map of floats (row y at
 * map + y * stride, stride in floats >= width), in frame pixels, every
 * value finite and in [0, sigma]: what gb_blur_set_sigma_map() takes.
 * Plain C, no GStreamer and no CUDA: the element builds its maps with
 * these (from GstVideoRegionOfInterestMeta, its properties, a map file),
 * the tests and the benchmark too.
 *
 * Every transition is the smoothstep s(t) = t^2 (3 - 2 t), t clamped to
 * [0, 1]: continuous with a continuous slope, so the superposition, whose
 * error against a locally uniform blur grows with the map's curvature
 * (docs/algorithms.md section 12), sees no corner in the map.
 */
#ifndef GAUSSBLUR_SIGMA_MAP_H
#define GAUSSBLUR_SIGMA_MAP_H

#include "gaussblur.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A region of interest to blur (a face, a licence plate): its rectangle in
 * frame pixels (may reach past the frame: it is clipped) and its sigma. */
typedef struct {
  GbRect rect;
  double sigma;
} GbSigmaRegion;

/* 0 everywhere, then each region's sigma inside its rectangle, falling to
 * 0 over `feather` pixels outside it: at (Euclidean) distance d from the
 * rectangle, sigma (1 - s(d / feather)); feather 0: a hard edge. Distances
 * are measured from pixel centres to the rectangle [x, x + width) x
 * [y, y + height) of pixel edges. Where regions overlap, the larger value.
 * Regions with width or height <= 0 or sigma <= 0 are skipped. Costs one
 * clearing of the map plus each region's box (rectangle and feather), so
 * it can be rebuilt every frame. Returns the largest value written (0 when
 * no region reaches the frame). Only the frame's width x height values are
 * written, in this function as in the others: row padding is left alone. */
double gb_sigma_map_regions (float *map, int width, int height,
    size_t stride, const GbSigmaRegion * regions, int n_regions,
    double feather);

/* What gb_sigma_map_regions would return, without a map: the largest
 * value over the frame's pixels (the same float), in O(n_regions). */
double gb_sigma_regions_largest (int width, int height,
    const GbSigmaRegion * regions, int n_regions, double feather);

/* One region's value at distances dx, dy (>= 0) of a pixel centre from its
 * rectangle along each axis (0 inside): sigma inside, sigma (1 - s(d /
 * feather)) at d = sqrt(dx^2 + dy^2) < feather, else 0; as stored in the
 * map (float). gb_sigma_map_regions writes the largest over the regions. */
float gb_sigma_region_value (double sigma, double dx, double dy,
    double feather);

/* Sets the handle's sigma map (gb_blur_set_sigma_map) to that of
 * gb_sigma_map_regions for these regions and feather. On the GPU, planes
 * whose regions are apart and away from the edges take a decomposed sum
 * of about 2 rmax + 1 terms per output near a region instead of
 * (2 rmax + 1)^2 (superposition_regions.h), and need no map upload. Cheap
 * when the regions and feather are those of the last call. */
GbStatus gb_blur_set_sigma_regions (GbBlur * blur,
    const GbSigmaRegion * regions, int n_regions, double feather,
    GbError * error);

/* Tilt-shift: a sharp band across the frame through the point
 * (center_x * width, center_y * height) at `angle` degrees (0: horizontal,
 * counter-clockwise positive), `band` * height wide in all (sigma 0 inside);
 * beyond it sigma rises as sigma s(d / (transition * height)), d the
 * distance from the band's edge. band and transition >= 0; transition 0: a
 * step. Returns the largest value written. */
double gb_sigma_map_tilt_shift (float *map, int width, int height,
    size_t stride, double sigma, double center_x, double center_y,
    double angle, double band, double transition);

/* Radial (vignette focus): sharp within `radius` of (center_x * width,
 * center_y * height), radius and transition in units of half the frame's
 * diagonal; beyond, sigma s(d / (transition * half diagonal)), d the
 * distance past the radius. Returns the largest value written. */
double gb_sigma_map_radial (float *map, int width, int height,
    size_t stride, double sigma, double center_x, double center_y,
    double radius, double transition);

/* A grayscale image (8-bit, map_width x map_height, row stride in bytes)
 * scaled to the frame with bilinear interpolation (pixel centres aligned,
 * edges clamped), value v giving sigma * v / 255. Returns the largest value
 * written. */
double gb_sigma_map_image (float *map, int width, int height, size_t stride,
    double sigma, const uint8_t * gray, int map_width, int map_height,
    size_t gray_stride);

#ifdef __cplusplus
}
#endif
#endif /* GAUSSBLUR_SIGMA_MAP_H */

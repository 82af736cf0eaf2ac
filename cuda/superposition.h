/* Spatially varying Gaussian blur by kernel superposition (seed 003): its
 * exact CPU reference, gather and scatter.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every input pixel p' = (x', y') spreads its samples with a Gaussian of its
 * own sigma, sigma(p') from a per-pixel map (seed 003, Eq. 2a: the kernel
 * depends on the input position), separable per input pixel (Eq. 3b):
 *
 *   out(x, y) = sum_{x', y'} in~(x', y') K_{s(x', y')}(x - x') K_{s(x', y')}(y - y')
 *
 * with the pixel-integrated Gaussian of Eq. 4, cut off at r = ceil(3 s):
 *
 *   K_s(k) = 0.5 [erf((k + 0.5) / (sqrt(2) s)) - erf((k - 0.5) / (sqrt(2) s))]
 *            / N_s,   |k| <= r,   0 beyond,
 *
 * N_s the sum of the kept values (= erf((r + 0.5) / (sqrt(2) s))): each input
 * pixel's kernel is renormalised to sum 1, so the pixel's mass is conserved
 * and a constant image stays constant where sigma is constant. Sigma 0 is the
 * identity (r = 0, K = 1: the pixel only contributes to itself).
 *
 * rmax (1 .. GB_SUPERPOSITION_MAX_RADIUS, the seed's template parameter) caps
 * the radius: a sigma above rmax / 3 is taken as rmax / 3, so that
 * ceil(3 sigma) <= rmax and no kernel is cut short of its 3-sigma support.
 *
 * A subsampled plane (a chroma plane of 4:2:0 or 4:2:2 video) reads the
 * frame's map at its own pixels, (x' * subsampling_x, y' * subsampling_y),
 * and blurs each axis with that sigma divided by the axis' subsampling (as
 * the uniform blur does): the kernel of an input pixel is then
 * K_{s_x}(dx) K_{s_y}(dy), each axis reaching at most
 * ceil(rmax / subsampling) plane pixels (gb_superposition_reach).
 *
 * Borders: in~ and s are the plane and its map extended by the border rule
 * (gb_border_index, the same mapped pixel for the sample and its sigma); an
 * input pixel up to rmax outside the plane reaches into it. Under
 * GB_BORDER_ZERO the pixels outside are 0 and contribute nothing.
 *
 * Note that sum_{p'} K_{s(p')}(p - p') is 1 only where sigma is the same
 * over p's (2 rmax + 1)^2 window: where sigma varies, a constant image does
 * not stay constant (the superposition conserves mass, it does not average;
 * docs/algorithms.md section 12).
 */
#ifndef GAUSSBLUR_SUPERPOSITION_H
#define GAUSSBLUR_SUPERPOSITION_H

#include "gaussblur.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest rmax: 65 x 65 taps, the seed's largest template instance. */
#define GB_SUPERPOSITION_MAX_RADIUS 32
/* The kernel's cut-off, in sigmas (the seed's n_sigma). */
#define GB_SUPERPOSITION_CUTOFF 3.0

typedef enum {
  GB_SUPERPOSITION_GATHER = 0,  /* each output sums the input pixels within
                                 * rmax, each with its own kernel */
  GB_SUPERPOSITION_SCATTER,     /* each input pixel adds its kernel's
                                 * contributions to the outputs it reaches */
} GbSuperpositionMethod;

/* The sigma the filter uses for a map value: min(sigma, rmax / 3). */
double gb_superposition_sigma (double sigma, int rmax);

/* Its radius: min(ceil(3 sigma), rmax); 0 for sigma 0. */
int gb_superposition_radius (double sigma, int rmax);

/* The farthest an axis of subsampling 1, 2 or 4 (0 means 1) reaches, in
 * plane pixels: ceil(rmax / subsampling). */
int gb_superposition_reach (int rmax, int subsampling);

/* The kernel along an axis of that subsampling for the map value sigma
 * (frame pixels): gb_superposition_kernel of
 * gb_superposition_sigma (sigma, rmax) / subsampling, cut at the reach.
 * Returns its radius; weights needs reach + 1 entries. */
int gb_superposition_axis_kernel (double sigma, int rmax, int subsampling,
    double *weights);

/* The 1D kernel of a map value sigma (>= 0): weights[k] = K_s(k), k = 0 ..
 * r, s = gb_superposition_sigma (sigma, rmax), normalised so that
 * weights[0] + 2 (weights[1] + ... + weights[r]) = 1 (double). Returns r
 * (gb_superposition_radius); weights needs rmax + 1 entries. The one
 * kernel-weight function of the superposition: gather and scatter both use
 * it. */
int gb_superposition_kernel (double sigma, int rmax, double *weights);

/* The filter on one plane, into doubles: sums[(y * width + x) * channels + c]
 * receives out(x, y) of channel c, unrounded. Both methods add each output's
 * contributions in the same order (input pixels in raster order, from
 * (-rmax, -rmax)), each as (sample * K(dy)) * K(dx), so they give the same
 * doubles, bit for bit; they differ in the loop around it (and in cost,
 * docs/algorithms.md section 12).
 *
 * plane: width, height and channels (1 .. GB_MAX_CHANNELS) of interleaved
 * samples, and its subsampling (above); its alpha mask is not read (every
 * channel is blurred alike). sigma_map: the frame's map, sigma in frame
 * pixels, row Y at sigma_map + Y * sigma_stride (stride in floats), read
 * at (x' * subsampling_x, y' * subsampling_y) for plane pixel (x', y');
 * every value read finite and >= 0. rmax is in frame pixels.
 * src: stride in bytes, at least width * channels * bytes_per_sample (1 or
 * 2). Allocates the kernels of 2 rmax + 1 rows (gather) or one row
 * (scatter), (width + 2 rmax) (rmax + 1) doubles each; single-threaded. */
GbStatus gb_superposition_cpu_sums (GbSuperpositionMethod method,
    const GbPlaneGeometry * plane, int bytes_per_sample,
    const float *sigma_map, size_t sigma_stride, int rmax, GbBorder border,
    const void *src, size_t src_stride, double *sums, GbError * error);

/* The same, rounded once to the sample type (gb_round_u8 / gb_round_u16 of
 * the double sum taken to float). dst may be src, or overlap it: it is
 * written after every source sample has been read. Allocates the sums
 * (8 bytes per sample) besides the kernels. */
GbStatus gb_superposition_cpu (GbSuperpositionMethod method,
    const GbPlaneGeometry * plane, int bytes_per_sample,
    const float *sigma_map, size_t sigma_stride, int rmax, GbBorder border,
    const void *src, size_t src_stride, void *dst, size_t dst_stride,
    GbError * error);

/* The same, each output divided by the weight that reaches it,
 * sum_{p'} K_{s(p')}(p - p') (the sums of a plane of ones, computed the
 * same way): a normalised superposition, which keeps a constant image
 * constant where sigma varies (the plain one conserves each pixel's mass
 * instead; docs/algorithms.md section 12). The output's own pixel always
 * reaches it, so the weight is above 0. */
GbStatus gb_superposition_cpu_normalized (GbSuperpositionMethod method,
    const GbPlaneGeometry * plane, int bytes_per_sample,
    const float *sigma_map, size_t sigma_stride, int rmax, GbBorder border,
    const void *src, size_t src_stride, void *dst, size_t dst_stride,
    GbError * error);

const char *gb_superposition_method_name (GbSuperpositionMethod method);

#ifdef __cplusplus
}
#endif
#endif /* GAUSSBLUR_SUPERPOSITION_H */

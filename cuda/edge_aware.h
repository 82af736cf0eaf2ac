/* The edge-aware Gaussian of seed 004 (domain transform + recursive
 * Gaussian on non-uniform spacing): its exact CPU reference, Algorithm A.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One pass filters every line of a plane (a row, or a column) on its own.
 * A line f[0 .. n-1] (all channels of a pixel at one index) is laid out on
 * the transformed domain of seed 004, eq. (2): between pixels k-1 and k
 *
 *   dt_k = sqrt(1 + (sigma_s / sigma_r)^2 sum_{c steering} (s (f_c[k] - f_c[k-1]))^2)
 *
 * (s = range_scale, bringing the samples to 8-bit units; sigma_s is the
 * params' one for every pass, as in eq. (2)), and filtered by Deriche's
 * fourth-order Gaussian of the pass's sigma evaluated on that spacing
 * (eq. (4), from Gastal and Oliveira's non-uniform recursive filtering:
 * the input linearly interpolated between samples). Eq. (4) rewritten
 * around the steady state of each complex section s (p_s = lambda_s / sigma,
 * c_s = a_s b_s / (1 - b_s)^2 = 1 / r_{s,0}; a, b, r, lambda as in the seed's
 * appendix, alpha1 with the sign of ERRATA.md):
 *
 *   E_s(d)   = exp(-p_s d)                       (b_s^d)
 *   Q_s(d)   = c_s (E_s(d) - 1) / d
 *   causal:     u_s[k] = E_s(dt_k)   u_s[k-1] + Q_s(dt_k)   (f[k] - f[k-1])
 *   anticausal: v_s[k] = E_s(dt_k+1) v_s[k+1] + Q_s(dt_k+1) (f[k] - f[k+1])
 *   out[k] = f[k] + Re{u_0[k] + u_1[k]} + Re{v_0[k] + v_1[k]}
 *
 * which is the seed's g+_s = a_s f / (1 - b_s) + u_s, g-_s = a_s b_s f /
 * (1 - b_s) + v_s exactly (docs/algorithms.md, section 11.1): flat stretches
 * leave u and v at 0, so a constant line stays constant to the last bit.
 *
 * Line ends: the start-up rule of recursive.h. The causal run starts at
 * q = -w (the anticausal at n - 1 + w) with u = 0 (v = 0), the steady state
 * of the constant signal x_ext[q], x_ext the line extended by the border rule
 * (gb_border_index; 0 outside for GB_BORDER_ZERO), and the spacings outside
 * the line computed from x_ext too. w = 1 for clamp and zero (exact: x_ext is
 * constant beyond the edge; the one step puts the zero border's jump in),
 * and w = the recursive filter's warmup of the pass's sigma for mirror
 * (recursive.h: at most GB_RECURSIVE_WARMUP_ERROR 16-bit levels at the
 * line's first output in the uniform case; non-uniform spacings, dt >= 1,
 * only decay faster).
 */
#ifndef GAUSSBLUR_EDGE_AWARE_H
#define GAUSSBLUR_EDGE_AWARE_H

#include "gaussblur.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GB_EDGE_AWARE_MAX_ITERATIONS GB_MAX_ITERATIONS
/* distance_mask of the first n channels (RGB of RGBA: 3; gray: 1). */
#define GB_EDGE_AWARE_LEADING(n) ((1u << (n)) - 1u)

typedef struct {
  double sigma_x;               /* spatial sigma of the rows, plane pixels, */
  double sigma_y;               /* and of the columns: [0, GB_MAX_SIGMA] each,
                                 * not both 0; 0 leaves that axis as it is.
                                 * sigma_s of the seed when they are equal */
  double sigma_r;               /* range sigma, 8-bit levels, > 0 (INFINITY:
                                 * no edge stops the blur) */
  int iterations;               /* N, 1 .. GB_EDGE_AWARE_MAX_ITERATIONS */
} GbEdgeAwareParams;

/* One pass's constants (the GPU kernel takes the same ones). */
typedef struct {
  double sigma;                 /* the pass's Gaussian sigma */
  double pole_re[2], pole_im[2];        /* p_s = lambda_s / sigma */
  double gain_re[2], gain_im[2];        /* c_s = a_s b_s / (1 - b_s)^2 */
  int warmup;                   /* w at a mirror edge (recursive.h) */
} GbEdgeAwarePass;

/* sigma_i = sigma_s sqrt(3) 2^(N - i) / sqrt(4^N - 1), i = 1 .. N: each
 * iteration's sigma half the previous one's, their variances summing to
 * sigma_s^2 (seed 004, section IV-A). */
double gb_edge_aware_sigma (double sigma_s, int iterations, int i);

/* Fills pass for sigma > 0 (double throughout). */
void gb_edge_aware_pass (double sigma, GbEdgeAwarePass * pass);

/* Algorithm A on one plane: for i = 1 .. N, every row filtered whole with
 * sigma_i, then every column of that result filtered whole with sigma_i;
 * each pass takes its spacings from its own input (the previous pass's
 * output), as the seed does. Double arithmetic from the source samples to
 * the end, one rounding to the sample type (gb_round_u8 / gb_round_u16).
 *
 * plane: width, height and channels (1 .. GB_MAX_CHANNELS) of interleaved
 * samples; its subsampling is not read: sigma_s is in the plane's pixels
 * (a caller blurring 4:2:0 chroma divides it by 2, which keeps the
 * transformed domain in frame units). distance_mask: bit c set when channel
 * c steers the distance (RGBA: GB_EDGE_AWARE_LEADING (3); ARGB: 0xe); the
 * other channels are filtered along the same spacings. 0: no channel
 * steers, every dt is 1 (the plain recursive Gaussian, per pass).
 * range_scale (> 0) takes sample differences to the 8-bit units of
 * sigma_r: 1 for 8-bit samples, 1.0 / 257 for 16-bit ones.
 * src and dst (strides in bytes, at least width * channels *
 * bytes_per_sample) may be the same buffer. Allocates a double copy of the
 * plane (8 bytes per sample) and a line's scratch per thread; runs each
 * pass's lines on as many threads as the machine has (up to 16), which does
 * not change the result. */
GbStatus gb_edge_aware_cpu (const GbEdgeAwareParams * params,
    const GbPlaneGeometry * plane, int bytes_per_sample,
    unsigned distance_mask, double range_scale, GbBorder border,
    const void *src, size_t src_stride, void *dst, size_t dst_stride,
    GbError * error);

/* The same on at most `threads` threads (0: as gb_edge_aware_cpu). The
 * result is the same for any count: lines are independent (tests compare
 * 1 against several). */
GbStatus gb_edge_aware_cpu_threads (const GbEdgeAwareParams * params,
    const GbPlaneGeometry * plane, int bytes_per_sample,
    unsigned distance_mask, double range_scale, GbBorder border,
    const void *src, size_t src_stride, void *dst, size_t dst_stride,
    int threads, GbError * error);

#ifdef __cplusplus
}
#endif
#endif /* GAUSSBLUR_EDGE_AWARE_H */

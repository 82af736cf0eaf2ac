/* The 4th-order recursive Gaussian: coefficients shared by both backends.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Deriche's approximation of the Gaussian as a sum of two complex exponentials
 * (seed 004, appendix; alpha1 with the sign of ERRATA.md):
 *   h[n] = Re{ a0 b0^|n| + a1 b1^|n| },  a_i = alpha_i / gamma,
 *   b_i = exp(-lambda_i / sigma),  gamma normalising sum_n h[n] to 1.
 * Each complex term runs as a first-order complex recursion, forward
 * (causal, n >= 0) and backward (anticausal, n >= 1); the output is the sum
 * of the real parts of the four:
 *   causal_s[k]     = b_s causal_s[k-1]     + a_s x[k]
 *   anticausal_s[k] = b_s anticausal_s[k+1] + a_s b_s x[k+1]
 * The complex form, not the equivalent real second-order section
 * (y[k] = n0 x[k] + n1 x[k-1] + 2 Re b y[k-1] - |b|^2 y[k-2]), because its
 * rounding errors grow like 1 / (1 - |b|) rather than 1 / (1 - |b|)^2 as
 * the poles approach 1 with sigma: on 16-bit frames at sigma 60, in float,
 * the section form's output was up to 4.81 units off the filter computed in
 * double, the complex form's is 0.54, half a unit of it the rounding
 * (tests/test_core.c; docs/algorithms.md, section 7.1).
 *
 * Start-up rule at the two ends of a line, the same on the CPU and the GPU:
 * the run starts `warmup` samples outside the line, at q = -warmup (backward:
 * at e = length - 1 + warmup), from the steady state of the constant signal
 * x_ext[q] (recursion states gain * x_ext[q], inputs x_ext[q]), where
 * x_ext is the line extended by the border rule (gb_border_index; zero
 * outside for GB_BORDER_ZERO). For clamp and zero borders x_ext is constant
 * beyond the edge, so this start is exact; only a mirror edge is approximate,
 * leaving at most GB_RECURSIVE_WARMUP_ERROR 16-bit levels at the line's first
 * output. Nowhere else is a state approximated: the CPU runs each line whole,
 * and the GPU, which filters 32-sample segments in parallel, resolves the
 * true state entering every interior segment exactly (kernels_recursive.cu;
 * docs/algorithms.md, section 7.5).
 */
#ifndef GAUSSBLUR_RECURSIVE_H
#define GAUSSBLUR_RECURSIVE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Bound, in 16-bit levels (1/257 of an 8-bit one), on what the approximate
 * start state at a mirror edge leaves in the line's first output after
 * `warmup` samples (per direction and pass). */
#define GB_RECURSIVE_WARMUP_ERROR 0.05

typedef struct {
  float pole_re[2], pole_im[2];         /* b_s */
  float causal_re[2], causal_im[2];     /* a_s, the weight of x[k] */
  float anticausal_re[2], anticausal_im[2];     /* a_s b_s, of x[k+1] */
  /* Steady states for a constant input of 1 (the real parts of the four
   * sum to 1): a_s / (1 - b_s) forward, a_s b_s / (1 - b_s) backward. */
  float causal_gain_re[2], causal_gain_im[2];
  float anticausal_gain_re[2], anticausal_gain_im[2];
  int warmup;                   /* samples run beyond each end of a line
                                 * (only a mirror edge needs them) */
} GbRecursiveFilter;

/* Fills filter for sigma > 0 (computed in double, stored as float); for
 * sigma 0, the identity (an axis that is not filtered). */
void gb_recursive_filter (double sigma, GbRecursiveFilter * filter);

#ifdef __cplusplus
}
#endif
#endif /* GAUSSBLUR_RECURSIVE_H */

/* The 4th-order recursive Gaussian: coefficients shared by both backends.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Deriche's approximation of the Gaussian as a sum of two complex exponentials
 * (seed 004, appendix; alpha1 with the sign of ERRATA.md):
 *   h[n] = Re{ a0 b0^|n| + a1 b1^|n| },  a_i = alpha_i / gamma,
 *   b_i = exp(-lambda_i / sigma),  gamma normalising sum_n h[n] to 1.
 * Each complex pole pair becomes one real second-order section, run forward
 * (causal, n >= 0) and backward (anticausal, n >= 1); the output is the sum of
 * the four section outputs:
 *   causal_s[k]     = n0 x[k]   + n1 x[k-1] + d1 causal_s[k-1]     + d2 causal_s[k-2]
 *   anticausal_s[k] = m1 x[k+1] + m2 x[k+2] + d1 anticausal_s[k+1] + d2 anticausal_s[k+2]
 *
 * Start-up rule at the two ends of a line, the same on the CPU and the GPU:
 * the run starts `warmup` samples outside the line, at q = -warmup (backward:
 * at e = length - 1 + warmup), from the steady state of the constant signal
 * x_ext[q] (section outputs causal_gain * x_ext[q], inputs x_ext[q]), where
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
  float n0[2], n1[2];           /* causal numerators of sections 0 and 1 */
  float m1[2], m2[2];           /* anticausal numerators */
  float d1[2], d2[2];           /* denominators, shared by both directions */
  float causal_gain[2];         /* section outputs for a constant input of 1 */
  float anticausal_gain[2];     /* (the four gains sum to 1) */
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

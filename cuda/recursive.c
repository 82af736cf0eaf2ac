/* The 4th-order recursive Gaussian: coefficients (see recursive.h).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "recursive.h"

#include <complex.h>
#include <math.h>

/* Seed 004, appendix, with alpha1's imaginary sign as the authors' code has it
 * (ERRATA.md: the printed +0.2598j misses the Gaussian by 0.19). */
static const double complex alpha[2] = { 1.6800 + 3.7350 * I,
  -0.6803 - 0.2598 * I
};
static const double complex lambda[2] = { 1.783 + 0.6318 * I,
  1.723 + 1.9970 * I
};

void
gb_recursive_filter (double sigma, GbRecursiveFilter * filter)
{
  double complex a[2], b[2];
  double gamma = 0.0;
  int s, warmup;

  if (!(sigma > 0.0)) {         /* an axis that is not filtered: x itself */
    *filter = (GbRecursiveFilter) {
      .causal_re = {1.0f, 0.0f}, .causal_gain_re = {1.0f, 0.0f}
    };
    return;
  }
  for (s = 0; s < 2; s++) {
    b[s] = cexp (-lambda[s] / sigma);
    gamma += creal (alpha[s] * (1.0 + b[s]) / (1.0 - b[s]));
  }
  for (s = 0; s < 2; s++) {
    a[s] = alpha[s] / gamma;
    const double complex causal_gain = a[s] / (1.0 - b[s]);
    const double complex anticausal_gain = causal_gain * b[s];
    filter->pole_re[s] = (float) creal (b[s]);
    filter->pole_im[s] = (float) cimag (b[s]);
    filter->causal_re[s] = (float) creal (a[s]);
    filter->causal_im[s] = (float) cimag (a[s]);
    filter->anticausal_re[s] = (float) creal (a[s] * b[s]);
    filter->anticausal_im[s] = (float) cimag (a[s] * b[s]);
    filter->causal_gain_re[s] = (float) creal (causal_gain);
    filter->causal_gain_im[s] = (float) cimag (causal_gain);
    filter->anticausal_gain_re[s] = (float) creal (anticausal_gain);
    filter->anticausal_gain_im[s] = (float) cimag (anticausal_gain);
  }

  /* A start state off by at most the whole range decays like |b|^n: after
   * n samples it leaves sum_s range |a_s| |b_s|^n / (1 - |b_s|). The range
   * is the 16-bit one, so 16-bit samples keep their precision too. */
  for (warmup = 0;; warmup++) {
    double left = 0.0;
    for (s = 0; s < 2; s++)
      left += 65535.0 * cabs (a[s]) * pow (cabs (b[s]), warmup)
          / (1.0 - cabs (b[s]));
    if (left <= GB_RECURSIVE_WARMUP_ERROR)
      break;
  }
  filter->warmup = warmup;
}

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
      .n0 = {1.0f, 0.0f}, .causal_gain = {1.0f, 0.0f}
    };
    return;
  }
  for (s = 0; s < 2; s++) {
    b[s] = cexp (-lambda[s] / sigma);
    gamma += creal (alpha[s] * (1.0 + b[s]) / (1.0 - b[s]));
  }
  for (s = 0; s < 2; s++) {
    double r2 = creal (b[s] * conj (b[s]));
    a[s] = alpha[s] / gamma;
    /* Re{a / (1 - b z^-1)} as one real section:
     * (Re a - Re(a conj b) z^-1) / (1 - 2 Re b z^-1 + |b|^2 z^-2). */
    filter->n0[s] = (float) creal (a[s]);
    filter->n1[s] = (float) -creal (a[s] * conj (b[s]));
    /* Re{a b z / (1 - b z)}: the taps n >= 1 going backwards. */
    filter->m1[s] = (float) creal (a[s] * b[s]);
    filter->m2[s] = (float) (-r2 * creal (a[s]));
    filter->d1[s] = (float) (2.0 * creal (b[s]));
    filter->d2[s] = (float) -r2;
    filter->causal_gain[s] = (float) creal (a[s] / (1.0 - b[s]));
    filter->anticausal_gain[s] = (float) creal (a[s] * b[s] / (1.0 - b[s]));
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

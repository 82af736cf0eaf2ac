/* The error down_rows_kernel's 16-bit weights add to the multi-scale path's
 * pass down along x (docs/algorithms.md, section 9.1), over every plan it
 * takes (D = 8 and 16, sigma 12.8 to 102.4 in steps of 0.1, both starts of
 * D = 16). The weights are rounded by the kernel's own host code
 * (gb_fixed_weights_16, cuda/fixed_weights.h). For bytes in [0, 255] the
 * largest error of sum (q_t 2^-shift - w_t) b_t is 255 times the larger of
 * the positive and the negative roundings' sums (in units of 2^-shift).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   gcc -O1 -Icuda docs/down_rows_weights_error.c cuda/multiscale.c -lm \
 *     -o /tmp/down-rows-error && /tmp/down-rows-error
 */
#include <math.h>
#include <stdio.h>

#include "fixed_weights.h"
#include "multiscale.h"

#define MAX_TAPS 96             /* RING D at D = 16 */

/* The worst error in levels of the plan's weights w[0..n) as the kernel
 * rounds them; *residual: the rounded sum's distance from the exact one. */
static double
worst_error (const float *w, int n, double *residual)
{
  int q[MAX_TAPS];
  double positive = 0.0, negative = 0.0, drift = 0.0;
  const int shift = gb_fixed_weights_16 (w, n, q);

  if (shift < 0)
    return 0.0;
  for (int t = 0; t < n; t++) {
    const double delta = q[t] - ldexp ((double) w[t], shift);
    if (delta > 0)
      positive += delta;
    else
      negative -= delta;
    drift += delta;
  }
  *residual = fabs (drift) * ldexp (255.0, -shift);
  return fmax (positive, negative) * ldexp (255.0, -shift);
}

int
main (void)
{
  for (int early = 0; early <= 1; early++) {
    double worst = 0.0, worst_sigma = 0.0, worst_residual = 0.0;
    int worst_d = 0, plans = 0;
    for (int i = 128; i <= 1024; i++) {
      const double sigma = i / 10.0;
      GbMultiscalePlan plan;
      if (!gb_multiscale_plan (sigma, sigma, 3840, 2160, GB_BORDER_CLAMP,
              early, &plan))
        continue;
      const GbResample *r = &plan.down_x;
      const int d = r->step;
      const int n = (GB_MULTISCALE_DOWN_TAPS (d) + d - 1) / d * d;
      if (d > 16)
        continue;               /* not down_rows_kernel's */
      if (n > MAX_TAPS || r->taps > n) {
        fprintf (stderr, "sigma %.1f: %d taps\n", sigma, r->taps);
        return 1;
      }
      float w[MAX_TAPS] = { 0 };
      for (int t = 0; t < r->taps; t++)
        w[t] = plan.table[r->weights + t];
      double residual = 0.0;
      const double error = worst_error (w, n, &residual);
      plans++;
      if (error > worst) {
        worst = error;
        worst_sigma = sigma;
        worst_d = d;
        worst_residual = residual;
      }
    }
    printf ("early D = 16 %s: %d plans, worst error %.4f of a level at "
        "sigma %.1f (D = %d; the rounded sum %.1e of a level off)\n",
        early ? "on" : "off", plans, worst, worst_sigma, worst_d,
        worst_residual);
  }
  return 0;
}

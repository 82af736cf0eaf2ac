/* Filter weights as signed 16-bit integers, for integer dot products
 * (down_rows_kernel's dp2a). Plain C, for the CUDA core's host code and
 * for docs/down_rows_weights_error.c, which bounds the error it adds.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef GAUSSBLUR_FIXED_WEIGHTS_H
#define GAUSSBLUR_FIXED_WEIGHTS_H

#include <math.h>
#include <stdlib.h>

#define GB_FIXED_WEIGHT_MAX 32767
#define GB_FIXED_WEIGHTS_MAX_TAPS 128

/* q[t] = w[t] 2^shift rounded, |q[t]| <= GB_FIXED_WEIGHT_MAX, shift from
 * the largest |w[t]|; then, while the q's sum differs from the weights'
 * sum times 2^shift rounded, one unit onto the tap whose rounding went
 * furthest the other way (never a zero weight's), so that a flat row
 * stays flat. Returns shift, or -1 where every weight is zero (or the
 * largest below 2^-112) or n is above GB_FIXED_WEIGHTS_MAX_TAPS. */
static inline int
gb_fixed_weights_16 (const float *w, int n, int *q)
{
  double scaled[GB_FIXED_WEIGHTS_MAX_TAPS], exact_sum = 0.0;
  long long sum = 0, left;
  float largest = 0.0f;
  int exponent, shift, t;

  if (n > GB_FIXED_WEIGHTS_MAX_TAPS)
    return -1;
  for (t = 0; t < n; t++)
    largest = fmaxf (largest, fabsf (w[t]));
  if (largest == 0.0f)
    return -1;
  frexpf (largest, &exponent);  /* largest < 2^exponent */
  shift = 15 - exponent;
  if (shift > 126)
    return -1;                  /* 2^-shift would not be a normal float */
  for (t = 0; t < n; t++) {
    scaled[t] = ldexp ((double) w[t], shift);   /* |.| < 2^15 */
    q[t] = (int) fmin (fmax (rint (scaled[t]), -GB_FIXED_WEIGHT_MAX),
        GB_FIXED_WEIGHT_MAX);
    exact_sum += scaled[t];
    sum += q[t];
  }
  for (left = llrint (exact_sum) - sum; left != 0;) {
    const int unit = left > 0 ? 1 : -1;
    int best = -1;
    double best_gap = 0.0;
    for (t = 0; t < n; t++) {
      const double gap = (scaled[t] - q[t]) * unit;
      if (w[t] != 0.0f && abs (q[t] + unit) <= GB_FIXED_WEIGHT_MAX
          && (best < 0 || gap > best_gap)) {
        best = t;
        best_gap = gap;
      }
    }
    if (best < 0)
      break;
    q[best] += unit;
    left -= unit;
  }
  return shift;
}

#endif

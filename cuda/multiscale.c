/* Multi-scale Gaussian for large sigma: the plan (see multiscale.h).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "multiscale.h"

#include <math.h>
#include <string.h>

#define SHARE 0.75              /* prefilter and interpolation sigma, in D */
#define REACH 3.5               /* each stage is cut at REACH of its sigma */
#define SMALLEST_SMALL_SIGMA 3.2        /* sigma / D at least this */

/* Appends n weights exp(-d^2 / (2 s^2)) for d = d0, d0 + step..., normalised
 * to sum 1; returns their offset in the table, -1 when it is full. */
static int
append_gaussian (GbMultiscalePlan * plan, int n, double d0, double step,
    double s)
{
  const int at = plan->table_size;
  double sum = 0.0;
  int t;

  if (n < 1 || at + n > GB_MULTISCALE_TABLE)
    return -1;
  for (t = 0; t < n; t++) {
    const double d = d0 + t * step;
    sum += exp (-0.5 * (d / s) * (d / s));
  }
  for (t = 0; t < n; t++) {
    const double d = d0 + t * step;
    plan->table[at + t] = (float) (exp (-0.5 * (d / s) * (d / s)) / sum);
  }
  plan->table_size += n;
  return at;
}

static void
set_axis (GbResample * r, int phases, int taps, int step, int in_length,
    int out_length, int frame_border, int weights)
{
  r->phases = phases;
  r->taps = taps;
  r->step = step;
  r->in_length = in_length;
  r->out_length = out_length;
  r->frame_border = frame_border;
  r->weights = weights;
}

int
gb_multiscale_plan (double sigma, int width, int height,
    GbMultiscalePlan * plan)
{
  int d = GB_MULTISCALE_MAX_FACTOR;
  double sp, ss, centre, rp, ru;
  int rs, margin, lo, hi, down, blur, up, up_taps = 0, ph;

  memset (plan, 0, sizeof *plan);
  if (!(sigma >= GB_MULTISCALE_MIN_SIGMA))
    return 0;
  while (d > GB_MULTISCALE_MIN_FACTOR && sigma / d < SMALLEST_SMALL_SIGMA)
    d /= 2;
  sp = SHARE * d;               /* = su */
  ss = sqrt (sigma * sigma - 2.0 * sp * sp) / d;
  rp = ru = REACH * sp;
  rs = (int) ceil (REACH * ss);
  /* Small samples beyond the frame on each side: the interpolation's reach
   * plus the small blur's, so that the latter never meets the small
   * image's edge for a sample interpolated back into the frame. */
  margin = (int) ceil ((ru + rs * d + d) / d) + 1;
  centre = (d - 1) / 2.0;       /* of a D-block, in frame samples */

  plan->factor = d;
  plan->small_width = (width + d - 1) / d + 2 * margin;
  plan->small_height = (height + d - 1) / d + 2 * margin;

  /* Down: small sample i sits at D (i - margin) + centre of the frame. */
  lo = (int) ceil (centre - rp);
  hi = (int) floor (centre + rp);
  down = append_gaussian (plan, hi - lo + 1, lo - centre, 1.0, sp);
  set_axis (&plan->down_x, 1, hi - lo + 1, d, width, plan->small_width, 1,
      down);
  plan->down_x.first[0] = -margin * d + lo;
  plan->down_y = plan->down_x;
  plan->down_y.in_length = height;
  plan->down_y.out_length = plan->small_height;

  blur = append_gaussian (plan, 2 * rs + 1, -rs, 1.0, ss);
  set_axis (&plan->blur_x, 1, 2 * rs + 1, 1, plan->small_width,
      plan->small_width, 0, blur);
  plan->blur_x.first[0] = -rs;
  plan->blur_y = plan->blur_x;
  plan->blur_y.in_length = plan->blur_y.out_length = plan->small_height;

  /* Up: frame sample x = g D + phase reads small samples from
   * g + first[phase] on, those within ru of it; zero-padded to one count. */
  for (ph = 0; ph < d; ph++) {
    const int first = margin + (int) ceil ((ph - centre - ru) / d);
    const int last = margin + (int) floor ((ph - centre + ru) / d);
    plan->up_x.first[ph] = first;
    if (last - first + 1 > up_taps)
      up_taps = last - first + 1;
  }
  up = plan->table_size;
  for (ph = 0; ph < d; ph++) {
    const int first = plan->up_x.first[ph];
    const int last = margin + (int) floor ((ph - centre + ru) / d);
    const int n = last - first + 1;
    /* distance of small sample first + t from x, in frame samples */
    if (append_gaussian (plan, n, d * (first - margin) + centre - ph, d,
            sp) < 0)
      return 0;
    if (n < up_taps) {
      if (plan->table_size + up_taps - n > GB_MULTISCALE_TABLE)
        return 0;
      memset (plan->table + plan->table_size, 0,
          sizeof (float) * (up_taps - n));
      plan->table_size += up_taps - n;
    }
  }
  set_axis (&plan->up_x, d, up_taps, 1, plan->small_width, width, 0, up);
  plan->up_y = plan->up_x;
  plan->up_y.in_length = plan->small_height;
  plan->up_y.out_length = height;
  return down >= 0 && blur >= 0;
}

size_t
gb_multiscale_scratch_floats (int width, int height)
{
  size_t most = 0;
  int d;

  /* The margin is largest at the largest sigma of each factor. */
  for (d = GB_MULTISCALE_MIN_FACTOR; d <= GB_MULTISCALE_MAX_FACTOR; d *= 2) {
    GbMultiscalePlan plan;
    const double sigma = d == GB_MULTISCALE_MAX_FACTOR ? 250.0
        : 2.0 * SMALLEST_SMALL_SIGMA * d - 1e-6;
    size_t rows, columns, small, need;

    if (!gb_multiscale_plan (sigma, width, height, &plan))
      continue;
    rows = (size_t) height * plan.small_width;
    columns = (size_t) plan.small_height * width;
    small = (size_t) plan.small_height * plan.small_width;
    need = (rows > columns ? rows : columns) + 2 * small;
    if (need > most)
      most = need;
  }
  return most;
}

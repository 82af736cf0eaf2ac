/* multiscale_compose_check.c: down along y, then the small blur along y
 * (the plan's two passes, the small blur with its own rule at the small
 * image's edge), against the one filter they compose into, c_k = sum_j
 * wy_j wd_(k - D j) from row D fy + fd, read through the frame's rule on
 * every row: after the up pass along y (what the frame receives), for
 * every border, four heights, sigma 12.8 to 100 and both D = 16 rules.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   gcc -O2 -std=c11 -Icuda docs/multiscale_compose_check.c cuda/multiscale.c -lm -o compose-check
 *   ./compose-check      # exit 0 where every case agrees within 1e-3 of a level
 *
 * Under the mirror rule the small images differ near their edges (the small
 * blur clamps there, the composed filter mirrors the frame), by up to a few
 * levels: samples that the up pass never reads (algorithms.md, section 9,
 * "Borders"). The seventeenth session's output:
 * measurements/multiscale-compose-y.txt. */
#include "multiscale.h"
#include "sampling.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int src_of (const GbResample * r, int i, GbBorder b)
{
  if (r->frame_border)
    return gb_border_index (i, r->in_length, b);
  return i < 0 ? 0 : i >= r->in_length ? r->in_length - 1 : i;
}

static void resample (const GbResample * r, const float *t, const double *in,
    double *out, GbBorder b)
{
  for (int o = 0; o < r->out_length; o++) {
    const int phase = r->phases == 1 ? 0 : o % r->phases;
    const int first = (r->phases == 1 ? o : o / r->phases) * r->step + r->first[phase];
    double acc = 0;
    for (int k = 0; k < r->taps; k++) {
      const int s = src_of (r, first + k, b);
      if (s >= 0)
        acc += t[r->weights + phase * r->taps + k] * in[s];
    }
    out[o] = acc;
  }
}

int main (void)
{
  static GbMultiscalePlan plan;
  const double sigmas[] = { 12.8, 15, 20, 25.6, 30, 51.2, 60, 100 };
  const int heights[] = { 1080, 2160, 97, 541 };
  double worst = 0;
  int cases = 0;
  for (int bi = 0; bi < 3; bi++)
    for (int hi = 0; hi < 4; hi++)
      for (int si = 0; si < 8; si++)
        for (int e = 0; e < 2; e++) {
          const int H = heights[hi];
          if (!gb_multiscale_plan (sigmas[si], sigmas[si], 64, H, (GbBorder) bi, e, &plan))
            continue;
          const GbResample *dy = &plan.down_y, *by = &plan.blur_y, *uy = &plan.up_y;
          if (dy->step > 16)
            continue;
          const int D = dy->step, Hs = by->out_length;
          double *F = malloc (sizeof (double) * H), *S = malloc (sizeof (double) * Hs),
              *B = malloc (sizeof (double) * Hs), *C = malloc (sizeof (double) * Hs),
              *U1 = malloc (sizeof (double) * H), *U2 = malloc (sizeof (double) * H);
          for (int i = 0; i < H; i++)
            F[i] = rand () % 256;
          resample (dy, plan.table, F, S, (GbBorder) bi);
          resample (by, plan.table, S, B, (GbBorder) bi);
          const int n = D * (by->taps - 1) + dy->taps;
          float *c = calloc (n, sizeof (float));
          for (int k = 0; k < n; k++)
            for (int j = 0; j < by->taps; j++) {
              const int t = k - D * j;
              if (t >= 0 && t < dy->taps)
                c[k] += plan.table[by->weights + j] * plan.table[dy->weights + t];
            }
          for (int o = 0; o < Hs; o++) {
            const int v0 = D * (o + by->first[0]) + dy->first[0];
            double acc = 0;
            for (int k = 0; k < n; k++) {
              const int s = src_of (dy, v0 + k, (GbBorder) bi);
              if (s >= 0)
                acc += c[k] * F[s];
            }
            C[o] = acc;
          }
          resample (uy, plan.table, B, U1, (GbBorder) bi);
          resample (uy, plan.table, C, U2, (GbBorder) bi);
          double d = 0, ds = 0;
          for (int i = 0; i < H; i++)
            d = fmax (d, fabs (U1[i] - U2[i]));
          for (int o = 0; o < Hs; o++)
            ds = fmax (ds, fabs (B[o] - C[o]));
          printf ("border %d H %4d sigma %5.1f early %d D %2d taps %4d: up max |diff| %.2e (small image %.2e)\n",
              bi, H, sigmas[si], e, D, n, d, ds);
          worst = fmax (worst, d);
          cases++;
          free (F); free (S); free (B); free (C); free (U1); free (U2); free (c);
        }
  printf ("%d cases, worst %.3e levels\n", cases, worst);
  return worst < 1e-3 ? 0 : 1;
}

/* Multi-scale Gaussian for large sigma: the plan (see multiscale.h).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "multiscale.h"

#include "gaussblur.h"

#include <math.h>
#include <string.h>

#define SHARE 0.75              /* prefilter and interpolation sigma, in D */
#define REACH 3.5               /* each stage is cut at REACH of its sigma */

/* The least sigma factor d takes: 12.8 for d = 8 (a small blur of at least
 * 1.2 small samples), 25.6 for d = 16 on early_d16 planes (the same), and
 * 3.2 d elsewhere, where D doubles as the small blur's taps require
 * (multiscale.h: the error bound). D = 8 from the least sigma on: frames
 * with D = 4 took 5 to 43 % longer on the GPU at sigma 15, except P016_LE
 * (level), Y42B and NV16 (1 to 2 % shorter; H200, docs/performance.md,
 * "D = 8 from sigma 12.8"). */
static double
smallest_sigma (int d, int early_d16)
{
  if (d == 8)
    return GB_MULTISCALE_MIN_SIGMA;
  return d == 16 && early_d16 ? 2 * GB_MULTISCALE_MIN_SIGMA : 3.2 * d;
}

int
gb_multiscale_early_d16 (int channels, int bytes_per_sample)
{
  return bytes_per_sample == 1 && (channels == 1 || channels == 4);
}

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

/* The three stages of one axis for sigma (see multiscale.h). */
typedef struct
{
  int d;                        /* the factor D */
  double sp;                    /* prefilter = interpolation sigma */
  double ss;                    /* small blur sigma, in small samples */
  double rp;                    /* reach of prefilter and interpolation */
  int rs;                       /* small blur radius, in small samples */
  int margin;                   /* small samples beyond the frame, each side */
  double centre;                /* of a D-block, in frame samples */
} Axis;

static Axis
axis_stages (double sigma, GbBorder border, int early_d16)
{
  Axis a;

  a.d = GB_MULTISCALE_MAX_FACTOR;
  while (a.d > GB_MULTISCALE_MIN_FACTOR
      && sigma < smallest_sigma (a.d, early_d16))
    a.d /= 2;
  a.sp = SHARE * a.d;
  a.ss = sqrt (sigma * sigma - 2.0 * a.sp * a.sp) / a.d;
  a.rp = REACH * a.sp;
  a.rs = (int) ceil (REACH * a.ss);
  a.centre = (a.d - 1) / 2.0;
  if (border == GB_BORDER_MIRROR) {
    /* The interpolation's reach plus the small blur's, so that the latter
     * never meets the small image's edge for a sample interpolated back
     * into the frame. */
    a.margin = (int) ceil ((a.rp + a.rs * a.d + a.d) / a.d) + 1;
  } else {
    /* Clamp and zero: past the first small sample whose prefilter reads
     * only the frame's edge sample (clamp) or only zeros, every sample
     * further out is that one again, bit for bit (the same weights times
     * the same sample), or 0. The small blur's own rule at the small
     * image's edge (clamp, or zero for the zero border) then reads what a
     * wider margin would hold, so the margin stops there: the prefilter's
     * reach, which covers the interpolation's too, plus one sample for
     * the far edge. A side's margin is then 4 or 5 samples instead of up
     * to 30, and the passes at the frame's size no longer filter rows and
     * columns that are copies of its edge. */
    const int hi = (int) floor (a.centre + a.rp);       /* plan_down's */
    a.margin = (hi + a.d) / a.d + 1;
  }
  return a;
}

static int
small_length (const Axis * a, int length)
{
  return (length + a->d - 1) / a->d + 2 * a->margin;
}

/* Down: small sample i sits at D (i - margin) + centre of the frame. The
 * weights depend on D only: those of same (another axis' pass) when given. */
static int
plan_down (GbMultiscalePlan * plan, GbResample * r, const Axis * a,
    int length, int small, const GbResample * same)
{
  const int lo = (int) ceil (a->centre - a->rp);
  const int hi = (int) floor (a->centre + a->rp);
  const int at = same ? same->weights
      : append_gaussian (plan, hi - lo + 1, lo - a->centre, 1.0, a->sp);

  if (at < 0)
    return 0;
  set_axis (r, 1, hi - lo + 1, a->d, length, small, 1, at);
  r->first[0] = -a->margin * a->d + lo;
  return 1;
}

static int
plan_blur (GbMultiscalePlan * plan, GbResample * r, const Axis * a,
    int small, GbBorder border, const GbResample * same)
{
  const int at = same ? same->weights
      : append_gaussian (plan, 2 * a->rs + 1, -a->rs, 1.0, a->ss);

  if (at < 0)
    return 0;
  /* Past the small image's edge: zeros under the zero border (the margin
   * beyond would hold zeros: axis_stages), else its edge sample. */
  set_axis (r, 1, 2 * a->rs + 1, 1, small, small, border == GB_BORDER_ZERO,
      at);
  r->first[0] = -a->rs;
  return 1;
}

/* Up: frame sample x = g D + phase reads small samples from g + first[phase]
 * on, those within the reach of it; zero-padded to one count. The weights
 * depend on D only (first - margin does). */
static int
plan_up (GbMultiscalePlan * plan, GbResample * r, const Axis * a,
    int small, int length, const GbResample * same)
{
  const int d = a->d;
  int up_taps = 0, ph, at;

  for (ph = 0; ph < d; ph++) {
    const int first = a->margin + (int) ceil ((ph - a->centre - a->rp) / d);
    const int last = a->margin + (int) floor ((ph - a->centre + a->rp) / d);
    r->first[ph] = first;
    if (last - first + 1 > up_taps)
      up_taps = last - first + 1;
  }
  at = same ? same->weights : plan->table_size;
  for (ph = 0; ph < d && !same; ph++) {
    const int first = r->first[ph];
    const int last = a->margin + (int) floor ((ph - a->centre + a->rp) / d);
    const int n = last - first + 1;
    /* distance of small sample first + t from x, in frame samples */
    if (append_gaussian (plan, n, d * (first - a->margin) + a->centre - ph, d,
            a->sp) < 0)
      return 0;
    if (n < up_taps) {
      if (plan->table_size + up_taps - n > GB_MULTISCALE_TABLE)
        return 0;
      memset (plan->table + plan->table_size, 0,
          sizeof (float) * (up_taps - n));
      plan->table_size += up_taps - n;
    }
  }
  set_axis (r, d, up_taps, 1, small, length, 0, at);
  return 1;
}

int
gb_multiscale_plan (double sigma_x, double sigma_y, int width, int height,
    GbBorder border, int early_d16, GbMultiscalePlan * plan)
{
  Axis x, y;
  int early, same_d, same_blur, ok;

  memset (plan, 0, sizeof *plan);
  /* Above GB_MAX_SIGMA the margin would outgrow the scratch bound. */
  if (!(sigma_x >= GB_MULTISCALE_MIN_SIGMA)
      || !(sigma_y >= GB_MULTISCALE_MIN_SIGMA) || sigma_x > GB_MAX_SIGMA
      || sigma_y > GB_MAX_SIGMA)
    return 0;
  /* D = 16 early only where both axes reach it: a plane whose axes take
   * different D runs the slower down passes (Y42B's chroma at sigma 30, 15
   * across: 34.7 -> 39.6 us a frame). */
  early = early_d16 && sigma_x >= smallest_sigma (16, 1)
      && sigma_y >= smallest_sigma (16, 1);
  x = axis_stages (sigma_x, border, early);
  y = axis_stages (sigma_y, border, early);
  /* Both axes share what they can: an isotropic plan has one set of
   * weights per stage, in the order down, blur, up. */
  same_d = x.d == y.d;
  same_blur = same_d && x.rs == y.rs && x.ss == y.ss;
  plan->small_width = small_length (&x, width);
  plan->small_height = small_length (&y, height);

  ok = plan_down (plan, &plan->down_x, &x, width, plan->small_width, NULL)
      && plan_down (plan, &plan->down_y, &y, height, plan->small_height,
      same_d ? &plan->down_x : NULL)
      && plan_blur (plan, &plan->blur_x, &x, plan->small_width, border,
      NULL)
      && plan_blur (plan, &plan->blur_y, &y, plan->small_height, border,
      same_blur ? &plan->blur_x : NULL)
      && plan_up (plan, &plan->up_x, &x, plan->small_width, width, NULL)
      && plan_up (plan, &plan->up_y, &y, plan->small_height, height,
      same_d ? &plan->up_x : NULL);
  if (!ok) {                    /* the table is full: not for sigma <= 250 */
    memset (plan, 0, sizeof *plan);
    return 0;
  }
  plan->factor_x = x.d;
  plan->factor_y = y.d;
  return 1;
}

static size_t
round_up (size_t n, size_t align)
{
  return (n + align - 1) / align * align;
}

GbMultiscaleLayout
gb_multiscale_layout (int small_width, int small_height, int width,
    int height, int channels, int row_align)
{
  GbMultiscaleLayout l;
  const size_t rows_first = (size_t) height * round_up ((size_t) small_width
      * channels, row_align);
  const size_t columns_first = (size_t) small_height * width * channels;

  l.small_stride = round_up ((size_t) small_width * channels, row_align);
  l.small = round_up (rows_first > columns_first ? rows_first
      : columns_first, row_align);
  l.small2 = l.small + (size_t) small_height * l.small_stride;
  l.floats = l.small2 + (size_t) small_height * l.small_stride;
  return l;
}

size_t
gb_multiscale_scratch_floats (int width, int height, int channels,
    int row_align)
{
  Axis axes[4];                 /* D = 8 .. 64 */
  int n = 0, d, i, j;
  size_t most = 0;

  /* The margin of a factor is largest at its largest sigma (and under
   * the mirror border, which keeps the widest margin); the layout grows
   * with the margins, the width and the height, so these bound every plan
   * of this plane and of any smaller window (a factor's largest sigma is
   * the same for every plane but at D = 8, whose largest is that of planes
   * whose D = 16 starts late). */
  for (d = GB_MULTISCALE_MIN_FACTOR; d <= GB_MULTISCALE_MAX_FACTOR; d *= 2)
    axes[n++] = axis_stages (d == GB_MULTISCALE_MAX_FACTOR ? GB_MAX_SIGMA
        : smallest_sigma (2 * d, 0) - 1e-6, GB_BORDER_MIRROR, 0);
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      const GbMultiscaleLayout l = gb_multiscale_layout (small_length
          (&axes[i], width), small_length (&axes[j], height), width, height,
          channels, row_align);
      if (l.floats > most)
        most = l.floats;
    }
  return most;
}

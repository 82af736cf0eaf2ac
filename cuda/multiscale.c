/* Multi-scale Gaussian for large sigma: the plan (see multiscale.h).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "multiscale.h"

#include "gaussblur.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

#define SHARE 0.75              /* prefilter and interpolation sigma, in D */
#define REACH 3.5               /* each stage is cut at REACH of its sigma */

/* The least sigma factor d takes: 10 for d = 8 (sigma / D = 1.25, a small
 * blur of 0.661 small samples: 0.234 of a level per axis, under half a
 * level in 2D; at sigma 9.5 it would be 0.43), 10.75 on late_d8 planes
 * (multiscale.h), 20 for d = 16 on early_d16 planes (the same sigma / D
 * and small blur: 0.2496 of a level per axis), and 3.2 d elsewhere, where
 * D doubles as the small blur's taps require (multiscale.h: the error
 * bound). D = 8 from sigma 10 rather than 10.75: at sigma 10 it took RGBA 4K
 * from 98.3 to 65.8 us, RGB 4K from 115.2 to 47.8, RGBA64_LE 4K from 254.7 to
 * 75.1 (H200, docs/performance.md, "Multi-scale from sigma 10"). D = 8 from the
 * least sigma on: frames with D = 4 took 5 to 43 % longer on the GPU at sigma
 * 15, except P016_LE (level), Y42B and NV16 (1 to 2 % shorter; H200,
 * docs/performance.md, "D = 8 from sigma 12.8"). */
static double
smallest_sigma (int d, int rules)
{
  if (d == 8)
    return rules & GB_MULTISCALE_LATE_D8 ? GB_MULTISCALE_LATE_D8_MIN_SIGMA
        : GB_MULTISCALE_MIN_SIGMA;
  if (d == 16 && (rules & GB_MULTISCALE_EARLY_D16))
    return rules & GB_MULTISCALE_EARLY_D16_WITH_CHROMA
        ? GB_MULTISCALE_EARLY_D16_WITH_CHROMA_MIN_SIGMA
        : GB_MULTISCALE_EARLY_D16_MIN_SIGMA;
  return 3.2 * d;
}

/* A plane alone in its frame takes D = 16 early only from these sizes,
 * where it measured faster (multiscale.h). */
#define EARLY_D16_ALONE_ONE_CHANNEL_MIN_PIXELS ((size_t) 3 << 20)
#define EARLY_D16_ALONE_FOUR_CHANNELS_MIN_PIXELS ((size_t) 3 << 19)
#define EARLY_D16_THREE_CHANNELS_MIN_PIXELS ((size_t) 3 << 21)

int
gb_multiscale_early_d16 (int channels, int bytes_per_sample, size_t pixels,
    int alone)
{
  if (bytes_per_sample != 1)
    return 0;
  if (channels == 3)
    return pixels >= EARLY_D16_THREE_CHANNELS_MIN_PIXELS
        ? GB_MULTISCALE_EARLY_D16 : 0;
  if (channels != 1 && channels != 4)
    return 0;
  if (!alone)
    return GB_MULTISCALE_EARLY_D16;
  return pixels >= (channels == 1 ? EARLY_D16_ALONE_ONE_CHANNEL_MIN_PIXELS
      : EARLY_D16_ALONE_FOUR_CHANNELS_MIN_PIXELS) ? GB_MULTISCALE_EARLY_D16
      : 0;
}

/* The planes whose D = 8 starts late (multiscale.h). */
#define LATE_D8_MAX_PIXELS ((size_t) 1 << 19)

int
gb_multiscale_late_d8 (int channels, int bytes_per_sample, size_t pixels,
    int alone)
{
  return bytes_per_sample == 1 && channels == 2 && !alone
      && pixels < LATE_D8_MAX_PIXELS ? GB_MULTISCALE_LATE_D8 : 0;
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
  double sigma;                 /* of the whole blur along this axis */
  int d;                        /* the factor D */
  double sp;                    /* prefilter = interpolation sigma */
  double ss;                    /* small blur sigma, in small samples */
  double rp;                    /* reach of prefilter and interpolation */
  int down_lo, down_hi;         /* the prefilter's taps, in frame samples
                                 * from a D-block's first */
  int rs;                       /* small blur radius, in small samples */
  int margin;                   /* small samples beyond the frame, each side */
  double centre;                /* of a D-block, in frame samples */
} Axis;

static Axis
axis_stages (double sigma, GbBorder border, int rules)
{
  Axis a;

  a.sigma = sigma;
  a.d = GB_MULTISCALE_MAX_FACTOR;
  while (a.d > GB_MULTISCALE_MIN_FACTOR
      && sigma < smallest_sigma (a.d, rules))
    a.d /= 2;
  a.sp = SHARE * a.d;
  a.ss = sqrt (sigma * sigma - 2.0 * a.sp * a.sp) / a.d;
  a.rp = REACH * a.sp;
  a.rs = (int) ceil (REACH * a.ss);
  a.centre = (a.d - 1) / 2.0;
  a.down_lo = (int) ceil (a.centre - a.rp);
  a.down_hi = (int) floor (a.centre + a.rp);
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
    a.margin = (a.down_hi + a.d) / a.d + 1;
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
  const int lo = a->down_lo, hi = a->down_hi;
  const int at = same ? same->weights
      : append_gaussian (plan, hi - lo + 1, lo - a->centre, 1.0, a->sp);

  if (at < 0)
    return 0;
  set_axis (r, 1, hi - lo + 1, a->d, length, small, 1, at);
  r->first[0] = -a->margin * a->d + lo;
  return 1;
}

/* Solves the n x n symmetric positive definite system m x = v in place
 * (Cholesky; m holds the lower factor afterwards); returns 0 where m is not
 * positive definite. */
static int
solve_spd (double m[][GB_MULTISCALE_BLUR_TAPS], double *v, int n)
{
  int i, j, k;

  for (j = 0; j < n; j++) {
    double d = m[j][j];
    for (k = 0; k < j; k++)
      d -= m[j][k] * m[j][k];
    if (!(d > 0.0))
      return 0;
    m[j][j] = sqrt (d);
    for (i = j + 1; i < n; i++) {
      double e = m[i][j];
      for (k = 0; k < j; k++)
        e -= m[i][k] * m[j][k];
      m[i][j] = e / m[j][j];
    }
  }
  for (i = 0; i < n; i++) {
    for (k = 0; k < i; k++)
      v[i] -= m[i][k] * v[k];
    v[i] /= m[i][i];
  }
  for (i = n - 1; i >= 0; i--) {
    for (k = i + 1; k < n; k++)
      v[i] -= m[k][i] * v[k];
    v[i] /= m[i][i];
  }
  return 1;
}

/* Points of the fit on [0, 2 pi) in small-image frequency: the prefilter
 * and the interpolation pass under 3e-10 of 2 pi, so the ends add nothing,
 * and 64 points give the weights of 256 within 1e-8 from sigma 10 to 250. */
#define FIT_POINTS 64

/* The small blur's 2 rs + 1 weights b, appended to the table (their offset,
 * or -1 when it is full). Not the sampled Gaussian of ss: the prefilter and
 * the interpolation, cut at 3.5 of their sigma, blur a little less than
 * their sigma says, and the sampled Gaussian's spectrum is the Gaussian's
 * folded onto [-pi, pi]; below ss 1.2 these cost the whole blur 0.2 to 5
 * levels (docs/multiscale_error.py). Instead b is the symmetric filter,
 * summing to 1, whose response B times the prefilter's and the
 * interpolation's P (the prefilter's taps as the plan has them; the
 * interpolation is the same Gaussian) is nearest the whole Gaussian's in
 * least squares:
 *   min over b of sum over theta of (P(w)^2 B(theta) - exp(-sigma^2 w^2 / 2))^2,
 * w = theta / D. That takes the worst error of the whole filter at
 * sigma / D = 1.6 from 0.197 of a level per axis to 0.134, holds it
 * under 0.2 down to sigma / D = 1.34375 and under 0.25 down to 1.25,
 * where D = 8 (0.234) and the early D = 16 (0.2496) start (the sampled
 * Gaussian: 0.51 there). With B = 1 + sum_k b_k (2 cos k theta - 2), the
 * normal equations need only the cosine moments C(m) of P^4 and E(m) of
 * P^2 times the Gaussian. */
static int
append_small_blur (GbMultiscalePlan * plan, const Axis * a)
{
  const int n = a->rs;          /* unknowns b_1 .. b_rs; b_0 = 1 - 2 sum */
  const int lo = a->down_lo, hi = a->down_hi;
  const int at = plan->table_size;
  const double x0 = lo - a->centre;     /* the first tap's offset */
  double m[GB_MULTISCALE_BLUR_TAPS][GB_MULTISCALE_BLUR_TAPS];
  double v[GB_MULTISCALE_BLUR_TAPS];
  double c_moment[2 * GB_MULTISCALE_BLUR_TAPS] = { 0 };
  double e_moment[GB_MULTISCALE_BLUR_TAPS] = { 0 };
  double prefilter[GB_MULTISCALE_DOWN_TAPS (GB_MULTISCALE_MAX_FACTOR)];
  double prefilter_sum = 0.0, rest = 1.0;
  int i, j, k;

  if (n < 1 || 2 * n + 1 > GB_MULTISCALE_BLUR_TAPS
      || at + 2 * n + 1 > GB_MULTISCALE_TABLE
      || hi - lo + 1 > (int) (sizeof prefilter / sizeof prefilter[0]))
    return -1;
  for (k = 0; k <= hi - lo; k++) {
    const double x = (x0 + k) / a->sp;
    prefilter[k] = exp (-0.5 * x * x);
    prefilter_sum += prefilter[k];
  }
  for (i = 0; i < FIT_POINTS; i++) {
    const double theta = (i + 0.5) * (2.0 * PI / FIT_POINTS);
    const double w = theta / a->d, step_w = 2.0 * cos (w);
    const double step_theta = 2.0 * cos (theta);
    const double target = exp (-0.5 * a->sigma * a->sigma * w * w);
    double c0 = cos (w * x0), c1 = cos (w * (x0 + 1.0)), p = 0.0, pp;

    /* cos (w x) at the taps by the recurrence c(x + 1) = 2 cos (w) c(x)
     * - c(x - 1), over the first half: the taps are symmetric about the
     * centre; cos (k theta) likewise */
    for (k = 0; 2 * k < hi - lo; k++) {
      const double c2 = step_w * c1 - c0;
      p += prefilter[k] * c0;
      c0 = c1;
      c1 = c2;
    }
    p = (2.0 * p + ((hi - lo) % 2 == 0 ? prefilter[k] * c0 : 0.0))
        / prefilter_sum;
    pp = p * p;
    c0 = 1.0;
    c1 = cos (theta);
    for (k = 0; k <= 2 * n; k++) {
      const double c2 = step_theta * c1 - c0;
      c_moment[k] += pp * pp * c0;
      if (k <= n)
        e_moment[k] += pp * target * c0;
      c0 = c1;
      c1 = c2;
    }
  }
  /* m[j][k] = sum P^4 (2 cos j theta - 2) (2 cos k theta - 2), v[j] = sum
   * P^2 (2 cos j theta - 2) (target - P^2), for j, k = 1 .. n */
  for (j = 1; j <= n; j++) {
    v[j - 1] = 2.0 * (e_moment[j] - e_moment[0] - c_moment[j]
        + c_moment[0]);
    for (k = 1; k <= n; k++)
      m[j - 1][k - 1] = 2.0 * (c_moment[abs (j - k)] + c_moment[j + k])
          - 4.0 * (c_moment[j] + c_moment[k] - c_moment[0]);
  }
  if (!solve_spd (m, v, n))
    return -1;
  for (k = 0; k < n; k++)
    rest -= 2.0 * v[k];
  for (k = -n; k <= n; k++)
    plan->table[at + n + k] = (float) (k == 0 ? rest : v[abs (k) - 1]);
  plan->table_size += 2 * n + 1;
  return at;
}

static int
plan_blur (GbMultiscalePlan * plan, GbResample * r, const Axis * a,
    int small, GbBorder border, const GbResample * same)
{
  const int at = same ? same->weights : append_small_blur (plan, a);

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
    GbBorder border, int rules, GbMultiscalePlan * plan)
{
  const double least = smallest_sigma (GB_MULTISCALE_MIN_FACTOR, rules);
  Axis x, y;
  int early, same_d, same_blur, ok;

  memset (plan, 0, sizeof *plan);
  /* Above GB_MAX_SIGMA the margin would outgrow the scratch bound. */
  if (!(sigma_x >= least) || !(sigma_y >= least) || sigma_x > GB_MAX_SIGMA
      || sigma_y > GB_MAX_SIGMA)
    return 0;
  /* D = 16 early only where both axes reach it: a plane whose axes take
   * different D runs the slower down passes (Y42B's chroma at sigma 30, 15
   * across: 34.7 -> 39.6 us a frame). */
  early = (rules & GB_MULTISCALE_EARLY_D16)
      && sigma_x >= smallest_sigma (16, rules)
      && sigma_y >= smallest_sigma (16, rules);
  x = axis_stages (sigma_x, border, early ? GB_MULTISCALE_EARLY_D16 : 0);
  y = axis_stages (sigma_y, border, early ? GB_MULTISCALE_EARLY_D16 : 0);
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

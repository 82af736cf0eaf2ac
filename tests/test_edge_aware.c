/* The edge-aware Gaussian's CPU reference (cuda/edge_aware.c), against
 * references of its own.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The main reference is seed 004's eq. (4) as printed (with ERRATA.md's
 * alpha1 and the anticausal line's misprint g+ -> g- corrected): the
 * sections g+_i, g-_i with a_i, b_i, r_i0, r_i1 and Phi, in complex double,
 * started from the steady state far outside the line (the test's own border
 * rule, no warm-up constant of the core), nothing from edge_aware.c's
 * rewritten recursion. The other checks compare with the core's plain
 * recursive Gaussian (gb_blur_*, GB_ALGORITHM_RECURSIVE) where the
 * edge-aware filter must become it, and check the properties of
 * docs/algorithms.md section 11 (constant images, step edges, alpha,
 * 16-bit, symmetry) with bounds derived here.
 *
 * Plain C, no GStreamer. Prints one line per group (and the measured
 * numbers the documentation quotes); exits 0 when all pass. Images stay
 * small: the test also runs under valgrind.
 */
#include "edge_aware.h"
#include "check_groups.h"
#include "plane_image.h"
#include "gaussblur.h"
#include "recursive.h"

#include <complex.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_ELEMENTS(array) ((int) (sizeof (array) / sizeof ((array)[0])))

static const GbBorder all_borders[] = {
  GB_BORDER_CLAMP, GB_BORDER_MIRROR, GB_BORDER_ZERO
};

/* --- test patterns --- */

/* The test patterns, 8-bit values. */
typedef enum
{
  PATTERN_NOISE,                /* every sample random */
  PATTERN_STEP,                 /* 0 left of the middle column, 200 from it */
  PATTERN_BLOCKS,               /* random flat 8x8 blocks plus noise of +-3:
                                 * edges of every height and texture */
  PATTERN_CONSTANT,             /* 77 + 40 c in channel c */
} Pattern;

static const char *pattern_names[] = { "noise", "step", "blocks", "constant" };

static unsigned
pattern_value (Pattern pattern, int x, int y, int c, int width,
    const unsigned *blocks)
{
  switch (pattern) {
    case PATTERN_NOISE:
      return random_byte ();
    case PATTERN_STEP:
      return x < width / 2 ? 0 : 200;
    case PATTERN_BLOCKS:
      return blocks[((y / 8) * 16 + x / 8) % 256 * 4 + c] + 3
          + random_byte () % 7;
    default:
      return 77 + 40 * c;
  }
}

static Image
image_pattern (int width, int height, int channels, int bytes,
    Pattern pattern, uint64_t seed)
{
  Image image = image_new (width, height, channels, bytes);
  unsigned blocks[256 * 4];
  int x, y, c;

  random_seed (seed);
  for (x = 0; x < 256 * 4; x++)
    blocks[x] = random_byte () % 247;
  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++)
      for (c = 0; c < channels; c++)
        set (&image, x, y, c, pattern_value (pattern, x, y, c, width,
                blocks) * (bytes == 2 ? 257u : 1u));
  return image;
}

static GbStatus
edge_aware (const Image * src, Image * dst, double sigma_s, double sigma_r,
    int iterations, unsigned mask, GbBorder border)
{
  GbEdgeAwareParams params = { sigma_s, sigma_s, sigma_r, iterations };
  GbPlaneGeometry plane = { src->width, src->height, src->channels, 1, 1, 0 };
  GbError error;
  GbStatus status;

  status = gb_edge_aware_cpu (&params, &plane, src->bytes, mask,
      src->bytes == 2 ? 1.0 / 257.0 : 1.0, border, src->data, src->stride,
      dst->data, dst->stride, &error);
  check (status == GB_OK, "gb_edge_aware_cpu (sigma %g, sigma_r %g, N %d): %s",
      sigma_s, sigma_r, iterations, status == GB_OK ? "" : error.message);
  return status;
}

/* The core's plain recursive Gaussian of sigma (CPU backend). */
static void
recursive_blur (const Image * src, Image * dst, double sigma, GbBorder border)
{
  const GbParams params = gb_params_make (sigma, 0, GB_ALGORITHM_RECURSIVE,
      border);
  image_blur_cpu (src, dst, &params);
}


/* --- seed 004's equations, literally --- */

/* Appendix; alpha1 with the sign of ERRATA.md. */
static const double complex seed_alpha[2] = {
  1.6800 + 3.7350 * I, -0.6803 - 0.2598 * I
};
static const double complex seed_lambda[2] = {
  1.783 + 0.6318 * I, 1.723 + 1.9970 * I
};

typedef struct
{
  double sigma;
  double complex a[2], b[2], r0[2], r1[2];
} SeedConstants;

static SeedConstants
seed_constants (double sigma)
{
  SeedConstants k;
  double gamma = 0.0;
  int i;

  k.sigma = sigma;
  for (i = 0; i < 2; i++) {
    k.b[i] = cexp (-seed_lambda[i] / sigma);
    gamma += creal (seed_alpha[i] * (1.0 + k.b[i]) / (1.0 - k.b[i]));
  }
  for (i = 0; i < 2; i++) {
    k.a[i] = seed_alpha[i] / gamma;
    k.r0[i] = (k.b[i] - 1.0) * (k.b[i] - 1.0) / (k.a[i] * k.b[i]);
    k.r1[i] = k.a[i] / (k.b[i] - 1.0);
  }
  return k;
}

/* b_i^delta, meaning exp(-lambda_i delta / sigma) (b_i = exp(-lambda_i /
 * sigma)). */
static double complex
seed_power (const SeedConstants * k, int i, double delta)
{
  return cexp (-seed_lambda[i] * delta / k->sigma);
}

/* Phi^i_{j,k}(delta) of eq. (4), for f[k] = fk, f[j] = fj. */
static double complex
seed_phi (const SeedConstants * k, int i, double delta, double fk, double fj)
{
  const double complex power = seed_power (k, i, delta);
  const double complex ratio = (power - 1.0) / (k->r0[i] * delta);
  return (ratio - k->r1[i] * k->b[i]) * fk - (ratio - k->r1[i] * power) * fj;
}


typedef struct
{
  double sigma_s, sigma_r, range_scale;
  unsigned mask;
  GbBorder border;
} SeedSettings;

/* One line in place: n pixels of `channels` at line[k * step + c]. Both
 * directions start P samples outside the line, P = 40 sigma / 1.72: the
 * start state's error is down by exp(-40) at the line. */
static void
seed_line (const SeedConstants * k, const SeedSettings * settings,
    double *line, int n, int channels, size_t step)
{
  const int pad = (int) ceil (40.0 * k->sigma / 1.72) + 1;
  const int length = n + 2 * pad;
  const double ratio = settings->sigma_s / settings->sigma_r;
  double *f = malloc (sizeof (double) * length * channels);
  double *delta = malloc (sizeof (double) * length);
  double complex *causal = malloc (sizeof (double complex) * length * 2);
  int q, c, i;

  for (q = 0; q < length; q++) {
    int source = reference_source (q - pad, n, settings->border);
    for (c = 0; c < channels; c++)
      f[q * channels + c] = source < 0 ? 0.0 : line[source * step + c];
  }
  /* eq. (2): delta[q] = t(q) - t(q - 1) */
  for (q = 1; q < length; q++) {
    double sum = 0.0;
    for (c = 0; c < channels; c++)
      if ((settings->mask >> c) & 1) {
        double d = settings->range_scale * (f[q * channels + c]
            - f[(q - 1) * channels + c]);
        sum += d * d;
      }
    delta[q] = sqrt (1.0 + ratio * ratio * sum);
  }
  for (c = 0; c < channels; c++) {
#define F(q) f[(q) * channels + c]
    double complex g[2];
    /* g+_i[k] = a_i f[k] + b_i^dt_k g+_i[k-1] + Phi^i_{k-1,k}(dt_k),
     * from the steady state a_i f / (1 - b_i). */
    for (i = 0; i < 2; i++)
      g[i] = k->a[i] / (1.0 - k->b[i]) * F (0);
    for (q = 1; q < length; q++)
      for (i = 0; i < 2; i++) {
        g[i] = k->a[i] * F (q) + seed_power (k, i, delta[q]) * g[i]
            + seed_phi (k, i, delta[q], F (q), F (q - 1));
        causal[q * 2 + i] = g[i];
      }
    /* g-_i[k] = a_i b_i^dt_k+1 f[k+1] + b_i^dt_k+1 g-_i[k+1]
     *           + Phi^i_{k+1,k}(dt_k+1), from a_i b_i f / (1 - b_i). */
    for (i = 0; i < 2; i++)
      g[i] = k->a[i] * k->b[i] / (1.0 - k->b[i]) * F (length - 1);
    for (q = length - 2; q >= pad; q--) {
      for (i = 0; i < 2; i++) {
        const double complex power = seed_power (k, i, delta[q + 1]);
        g[i] = k->a[i] * power * F (q + 1) + power * g[i]
            + seed_phi (k, i, delta[q + 1], F (q), F (q + 1));
      }
      if (q < pad + n)
        line[(size_t) (q - pad) * step + c] = creal (causal[q * 2]
            + causal[q * 2 + 1] + g[0] + g[1]);
    }
#undef F
  }
  free (f);
  free (delta);
  free (causal);
}

/* Algorithm A with the seed's equations: for each iteration, rows then
 * columns, sigma_i = sigma_s sqrt(3) 2^(N-i) / sqrt(4^N - 1) (computed
 * here), rounding once (half up) at the end. */
static Image
seed_reference (const Image * src, const SeedSettings * settings,
    int iterations)
{
  const int width = src->width, height = src->height, channels =
      src->channels;
  const size_t row = (size_t) width * channels;
  double *plane = malloc (sizeof (double) * row * height);
  const double top = src->bytes == 2 ? 65535.0 : 255.0;
  Image out = image_new (width, height, channels, src->bytes);
  int it, x, y, c;

  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++)
      for (c = 0; c < channels; c++)
        plane[y * row + x * channels + c] = get (src, x, y, c);
  for (it = 1; it <= iterations; it++) {
    const double sigma = settings->sigma_s * sqrt (3.0)
        * pow (2.0, iterations - it) / sqrt (pow (4.0, iterations) - 1.0);
    const SeedConstants k = seed_constants (sigma);
    for (y = 0; y < height; y++)
      seed_line (&k, settings, plane + y * row, width, channels, channels);
    for (x = 0; x < width; x++)
      seed_line (&k, settings, plane + (size_t) x * channels, height,
          channels, row);
  }
  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++)
      for (c = 0; c < channels; c++) {
        double v = floor (plane[y * row + x * channels + c] + 0.5);
        set (&out, x, y, c, (unsigned) (v < 0 ? 0 : v > top ? top : v));
      }
  free (plane);
  return out;
}

/* --- the groups --- */

static void
test_constants (void)
{
  static const double sigmas[] = { 0.5, 1.0, 2.5, 7.0, 30.0, 250.0 };
  int n, i, s, t;

  group_begin ("schedule and constants");
  /* The schedule: variances sum to sigma_s^2, each sigma half the last. */
  for (n = 1; n <= GB_EDGE_AWARE_MAX_ITERATIONS; n++) {
    double sum = 0.0;
    for (i = 1; i <= n; i++) {
      double sigma = gb_edge_aware_sigma (10.0, n, i);
      sum += sigma * sigma;
      if (i > 1)
        check (fabs (gb_edge_aware_sigma (10.0, n, i - 1) / sigma - 2.0)
            < 1e-12, "N %d: sigma_%d / sigma_%d is not 2", n, i - 1, i);
    }
    check (fabs (sum - 100.0) < 1e-9, "N %d: variances sum to %.12g, not 100",
        n, sum);
  }
  for (t = 0; t < N_ELEMENTS (sigmas); t++) {
    GbEdgeAwarePass pass;
    GbRecursiveFilter recursive;
    SeedConstants k = seed_constants (sigmas[t]);
    gb_edge_aware_pass (sigmas[t], &pass);
    gb_recursive_filter (sigmas[t], &recursive);
    check (pass.warmup == recursive.warmup, "sigma %g: warm-up %d, not %d",
        sigmas[t], pass.warmup, recursive.warmup);
    for (s = 0; s < 2; s++) {
      /* Against the seed's constants: p = lambda / sigma, c = 1 / r0. */
      const double complex pole = pass.pole_re[s] + I * pass.pole_im[s];
      const double complex gain = pass.gain_re[s] + I * pass.gain_im[s];
      const double complex b = cexp (-pole);
      /* At unit spacing the recursion is recursive.c's: a = c (1 - b)^2 / b,
       * its pole b, its weight a, its backward steady state c (1 - b). */
      const double complex a = gain * (1.0 - b) * (1.0 - b) / b;
      const double complex anticausal_gain = gain * (1.0 - b);
      check (cabs (pole - seed_lambda[s] / sigmas[t]) < 1e-12
          && cabs (gain - 1.0 / k.r0[s]) < 1e-9 * cabs (gain),
          "sigma %g term %d: constants differ from the seed's", sigmas[t],
          s);
      check (fabs (creal (b) - recursive.pole_re[s]) < 1e-6
          && fabs (cimag (b) - recursive.pole_im[s]) < 1e-6
          && fabs (creal (a) - recursive.causal_re[s]) < 1e-6
          && fabs (cimag (a) - recursive.causal_im[s]) < 1e-6
          && cabs (anticausal_gain - (recursive.anticausal_gain_re[s]
                  + I * recursive.anticausal_gain_im[s]))
          < 1e-6 * fmax (1.0, cabs (anticausal_gain)),
          "sigma %g term %d: not recursive.c's recursion at unit spacing",
          sigmas[t], s);
    }
  }
  group_end ();
}

/* Against the seed's equations: every border, 8 and 16 bit, 1 to 4
 * channels, the parameters spread; at most 1 apart (the core rounds its
 * double result through float once). */
static void
test_seed_equations (void)
{
  static const struct
  {
    int width, height, channels, bytes;
    unsigned mask;
    Pattern pattern;
    double sigma_s, sigma_r;
    int iterations;
  } cases[] = {
    {37, 29, 3, 1, 7, PATTERN_BLOCKS, 5.0, 30.0, 2},
    {37, 29, 3, 1, 7, PATTERN_NOISE, 2.0, 50.0, 1},
    {37, 29, 4, 1, 7, PATTERN_BLOCKS, 8.0, 10.0, 3},
    {31, 23, 4, 1, 0xe, PATTERN_BLOCKS, 3.0, 20.0, 2},
    {31, 23, 1, 1, 1, PATTERN_STEP, 4.0, 10.0, 2},
    {31, 23, 1, 1, 1, PATTERN_NOISE, 12.0, 1e6, 2},
    {23, 31, 2, 2, 3, PATTERN_BLOCKS, 6.0, 25.0, 2},
    {23, 31, 3, 2, 7, PATTERN_NOISE, 1.5, 100.0, 1},
    {4, 1080, 1, 1, 1, PATTERN_BLOCKS, 10.0, 40.0, 2},
    {1, 1, 3, 1, 7, PATTERN_NOISE, 3.0, 10.0, 2},
    {1, 9, 1, 1, 1, PATTERN_NOISE, 3.0, 10.0, 1},
  };
  int t, b, worst_all = 0;
  long differing_all = 0, samples_all = 0;

  group_begin ("seed 004 eq. (4)");
  for (t = 0; t < N_ELEMENTS (cases); t++)
    for (b = 0; b < N_ELEMENTS (all_borders); b++) {
      Image src = image_pattern (cases[t].width, cases[t].height,
          cases[t].channels, cases[t].bytes, cases[t].pattern, 100 + t);
      Image got = image_new (src.width, src.height, src.channels, src.bytes);
      SeedSettings settings = { cases[t].sigma_s, cases[t].sigma_r,
        cases[t].bytes == 2 ? 1.0 / 257.0 : 1.0, cases[t].mask,
        all_borders[b]
      };
      Image expected = seed_reference (&src, &settings, cases[t].iterations);
      int differing, worst;
      if (edge_aware (&src, &got, cases[t].sigma_s, cases[t].sigma_r,
              cases[t].iterations, cases[t].mask, all_borders[b]) == GB_OK) {
        worst = max_difference (&got, &expected, &differing);
        check (worst <= 1, "%dx%dx%d %d-bit %s, sigma %g, sigma_r %g, N %d, "
            "%s: %d off the seed's equations", src.width, src.height,
            src.channels, 8 * src.bytes, pattern_names[cases[t].pattern],
            cases[t].sigma_s, cases[t].sigma_r, cases[t].iterations,
            gb_border_name (all_borders[b]), worst);
        worst_all = worst > worst_all ? worst : worst_all;
        differing_all += differing;
        samples_all += (long) src.width * src.height * src.channels;
      }
      image_free (&src);
      image_free (&got);
      image_free (&expected);
    }
  printf ("     largest difference %d, %ld of %ld samples differ\n",
      worst_all, differing_all, samples_all);
  group_end ();
}

/* A constant image stays exactly constant (the zero border brings in the
 * zeros beyond the frame, so it is left out). */
static void
test_constant (void)
{
  static const int sizes[][2] = { {1, 1}, {1, 7}, {7, 1}, {33, 17} };
  static const double sigma_rs[] = { 0.5, 30.0, INFINITY };
  int z, ch, bytes, r, n, b;

  group_begin ("constant image");
  for (z = 0; z < N_ELEMENTS (sizes); z++)
    for (ch = 1; ch <= 4; ch++)
      for (bytes = 1; bytes <= 2; bytes++)
        for (r = 0; r < N_ELEMENTS (sigma_rs); r++)
          for (n = 1; n <= 3; n++)
            for (b = 0; b < 2; b++) {
              Image src = image_pattern (sizes[z][0], sizes[z][1], ch, bytes,
                  PATTERN_CONSTANT, 1);
              Image got = image_new (src.width, src.height, ch, bytes);
              if (edge_aware (&src, &got, 6.0, sigma_rs[r], n,
                      GB_EDGE_AWARE_LEADING (ch), all_borders[b]) == GB_OK)
                check (max_difference (&src, &got, NULL) == 0,
                    "%dx%dx%d %d-bit, sigma_r %g, N %d, %s: changed",
                    src.width, src.height, ch, 8 * bytes, sigma_rs[r], n,
                    gb_border_name (all_borders[b]));
              image_free (&src);
              image_free (&got);
            }
  group_end ();
}

/* sigma_r = 1e6: every dt is 1 within 1e-6, so one iteration is the plain
 * recursive Gaussian of sigma_s (the core's float one: at most 1 apart).
 * N iterations are N Gaussians whose variances sum to sigma_s^2: the same
 * Gaussian up to the fourth-order fit's error (0.12 of a level between the
 * impulse responses), except near a clamp or zero border: each pass
 * extends its own input there (the clamp repeats the blurred edge pixel,
 * the zero border drops what the last pass spread beyond the frame), which
 * one Gaussian of sigma_s does not. A mirror border commutes with the
 * symmetric filter, so it is compared everywhere; clamp and zero at least
 * `margin` pixels inside the frame. */
#define SHRINKING_SIGMAS_BOUND 1

/* Largest difference at least margin pixels inside the frame. */
static int
max_difference_inside (const Image * a, const Image * b, int margin)
{
  int x, y, c, worst = 0;

  for (y = margin; y < a->height - margin; y++)
    for (x = margin; x < a->width - margin; x++)
      for (c = 0; c < a->channels; c++) {
        int d = abs ((int) get (a, x, y, c) - (int) get (b, x, y, c));
        worst = d > worst ? d : worst;
      }
  return worst;
}

static void
test_large_range_sigma (void)
{
  static const Pattern patterns[] = { PATTERN_NOISE, PATTERN_STEP,
    PATTERN_BLOCKS
  };
  static const double sigmas[] = { 2.0, 5.0, 11.0 };
  const int width = 71, height = 53;
  int p, s, b, n, m, worst[4] = { 0 }, by_margin[4][8] = { {0} };

  group_begin ("large sigma_r = recursive");
  for (p = 0; p < N_ELEMENTS (patterns); p++)
    for (s = 0; s < N_ELEMENTS (sigmas); s++)
      for (b = 0; b < N_ELEMENTS (all_borders); b++) {
        Image src = image_pattern (width, height, 3, 1, patterns[p], 7 + p);
        Image expected = image_new (width, height, 3, 1);
        Image got = image_new (width, height, 3, 1);
        recursive_blur (&src, &expected, sigmas[s], all_borders[b]);
        for (n = 1; n <= 3; n++) {
          const int margin = n == 1 || all_borders[b] == GB_BORDER_MIRROR ? 0
              : (int) ceil (2.0 * sigmas[s]);
          if (edge_aware (&src, &got, sigmas[s], 1e6, n, 7,
                  all_borders[b]) == GB_OK) {
            int d = max_difference_inside (&got, &expected, margin);
            check (d <= (n == 1 ? 1 : SHRINKING_SIGMAS_BOUND),
                "%s, sigma %g, N %d, %s: %d off the recursive Gaussian",
                pattern_names[patterns[p]], sigmas[s], n,
                gb_border_name (all_borders[b]), d);
            worst[n] = d > worst[n] ? d : worst[n];
            if (all_borders[b] != GB_BORDER_MIRROR && n > 1)
              for (m = 0; m < 8; m++) {
                d = max_difference_inside (&got, &expected,
                    (int) ceil (0.5 * m * sigmas[s]));
                by_margin[n][m] = d > by_margin[n][m] ? d : by_margin[n][m];
              }
          }
        }
        image_free (&src);
        image_free (&expected);
        image_free (&got);
      }
  for (n = 1; n <= 3; n++)
    printf ("     N %d: largest difference %d\n", n, worst[n]);
  for (n = 2; n <= 3; n++) {
    printf ("     N %d, clamp and zero, margin 0, 0.5, .. 3.5 sigma:", n);
    for (m = 0; m < 8; m++)
      printf (" %d", by_margin[n][m]);
    printf ("\n");
  }
  group_end ();
}

/* How far one pass of sigma mixes the two flat sides of a jump of height
 * `height` (edge_aware.h's recursion, derived from the seed's constants):
 * left and right of the jump u and v stay 0, and the first sample past it
 * gets height |Re sum_s Q_s(D)| <= height sum_s |c_s| (1 + |b_s|^D) / D,
 * D = sqrt(1 + (sigma_s / sigma_r)^2 distance^2) the jump's spacing;
 * further samples get |b_s|^m of it. */
static double
step_mixing_bound (double sigma, double height, double distance,
    double sigma_s, double sigma_r)
{
  const SeedConstants k = seed_constants (sigma);
  const double spacing = sqrt (1.0 + (sigma_s / sigma_r) * (sigma_s / sigma_r)
      * distance * distance);
  double bound = 0.0;
  int s;

  for (s = 0; s < 2; s++)
    bound += height / cabs (k.r0[s]) * (1.0 + pow (cabs (k.b[s]), spacing))
        / spacing;
  return bound;
}

/* A 0/200 step (gray, and RGB with the step in all three channels), the
 * edge along the columns: only the row passes cross it. Each of the N row
 * passes mixes at most step_mixing_bound (sigma_i) across it (the jump
 * stays below 200, and a smaller jump mixes less); what a pass already
 * mixed it only moves around on its side. So the two sides stay within the
 * sum of those bounds of 0 and 200. With sigma_r = 1e6 the step blurs as
 * the Gaussian does (compared with the recursive filter above). */
static void
test_step_edge (void)
{
  static const double sigmas[] = { 3.0, 8.0, 20.0 };
  static const double sigma_rs[] = { 5.0, 10.0, 30.0 };
  int ch, s, r, n, b, x, y, c;

  group_begin ("step edge");
  for (ch = 1; ch <= 3; ch += 2)
    for (s = 0; s < N_ELEMENTS (sigmas); s++)
      for (r = 0; r < N_ELEMENTS (sigma_rs); r++)
        for (n = 1; n <= 3; n++)
          for (b = 0; b < 2; b++) {
            Image src = image_pattern (40, 12, ch, 1, PATTERN_STEP, 0);
            Image got = image_new (40, 12, ch, 1);
            double bound = 0.0, mixed = 0.0;
            int i;
            for (i = 1; i <= n; i++)
              bound += step_mixing_bound (gb_edge_aware_sigma (sigmas[s], n,
                      i), 200.0, 200.0 * sqrt (ch), sigmas[s], sigma_rs[r]);
            if (edge_aware (&src, &got, sigmas[s], sigma_rs[r], n,
                    GB_EDGE_AWARE_LEADING (ch), all_borders[b]) != GB_OK)
              continue;
            for (y = 0; y < 12; y++)
              for (x = 0; x < 40; x++)
                for (c = 0; c < ch; c++) {
                  double v = get (&got, x, y, c);
                  double m = x < 20 ? v : 200.0 - v;
                  mixed = m > mixed ? m : mixed;
                }
            /* + 0.5: the output is rounded. */
            check (mixed <= bound + 0.5, "%d channels, sigma %g, sigma_r %g, "
                "N %d, %s: the sides mix by %g, bound %.2f", ch, sigmas[s],
                sigma_rs[r], n, gb_border_name (all_borders[b]), mixed,
                bound);
            if (sigmas[s] == 8.0 && b == 0)
              printf ("     %d ch, sigma 8, sigma_r %2g, N %d: mixed %3g "
                  "(bound %.2f)\n", ch, sigma_rs[r], n, mixed, bound);
            image_free (&src);
            image_free (&got);
          }
  /* sigma_r = 1e6: the pixels beside the edge take the Gaussian's share of
   * the other side, sum_{k >= 1} g[k] = (1 - g[0]) / 2 of 200 (43 % at
   * sigma 3, more at larger sigma): above 80. */
  for (s = 0; s < N_ELEMENTS (sigmas); s++) {
    Image src = image_pattern (40, 12, 1, 1, PATTERN_STEP, 0);
    Image got = image_new (40, 12, 1, 1);
    if (edge_aware (&src, &got, sigmas[s], 1e6, 2, 1,
            GB_BORDER_MIRROR) == GB_OK)
      check (get (&got, 19, 6, 0) > 80 && 200 - get (&got, 20, 6, 0) > 80,
          "sigma %g, sigma_r 1e6: the step mixed only by %u and %u",
          sigmas[s], get (&got, 19, 6, 0), 200 - get (&got, 20, 6, 0));
    image_free (&src);
    image_free (&got);
  }
  group_end ();
}

/* Alpha does not steer. Flat colour with a 0/255 alpha step: the colour
 * stays as it is and alpha blurs as the plain Gaussian does (N = 1: the
 * recursive filter, at most 1 apart); with alpha in the mask the step stays
 * (mixing bound of the step test). Textured colour: RGBA's colour is RGB's,
 * bit for bit, and ARGB (mask 0xe) is RGBA's, permuted. */
static void
test_alpha (void)
{
  const int width = 36, height = 20;
  Image rgba = image_new (width, height, 4, 1);
  Image alpha = image_new (width, height, 1, 1);
  Image got = image_new (width, height, 4, 1);
  Image expected = image_new (width, height, 1, 1);
  Image got_alpha = image_new (width, height, 1, 1);
  Image textured, rgb, got_rgb, argb, got_argb;
  int b, x, y, c, colour_changed, d;

  group_begin ("alpha does not steer");
  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++) {
      set (&rgba, x, y, 0, 40);
      set (&rgba, x, y, 1, 120);
      set (&rgba, x, y, 2, 220);
      set (&rgba, x, y, 3, x < width / 2 ? 0 : 255);
      set (&alpha, x, y, 0, x < width / 2 ? 0 : 255);
    }
  for (b = 0; b < N_ELEMENTS (all_borders); b++) {
    if (edge_aware (&rgba, &got, 4.0, 10.0, 1, 7, all_borders[b]) != GB_OK)
      continue;
    recursive_blur (&alpha, &expected, 4.0, all_borders[b]);
    colour_changed = 0;
    for (y = 0; y < height; y++)
      for (x = 0; x < width; x++) {
        for (c = 0; c < 3; c++)
          colour_changed += all_borders[b] != GB_BORDER_ZERO
              && get (&got, x, y, c) != get (&rgba, x, y, c);
        set (&got_alpha, x, y, 0, get (&got, x, y, 3));
      }
    check (colour_changed == 0, "%s: flat colour changed in %d samples",
        gb_border_name (all_borders[b]), colour_changed);
    /* (Under the zero border the colour has steps at the frame's edges.) */
    d = max_difference (&got_alpha, &expected, NULL);
    check (all_borders[b] == GB_BORDER_ZERO || d <= 1,
        "%s: alpha %d off the plain Gaussian",
        gb_border_name (all_borders[b]), d);
    check (get (&got, width / 2 - 1, height / 2, 3) > 60,
        "%s: alpha was not blurred across its step",
        gb_border_name (all_borders[b]));
    /* Alpha steering: the step stays. */
    if (edge_aware (&rgba, &got, 4.0, 10.0, 1, 0xf, all_borders[b]) == GB_OK)
      check (get (&got, width / 2 - 1, height / 2, 3)
          <= step_mixing_bound (4.0, 255.0, 255.0, 4.0, 10.0) + 0.5,
          "%s: alpha steering, the alpha step mixed by %u",
          gb_border_name (all_borders[b]),
          get (&got, width / 2 - 1, height / 2, 3));
  }

  textured = image_pattern (width, height, 4, 1, PATTERN_BLOCKS, 5);
  rgb = image_new (width, height, 3, 1);
  argb = image_new (width, height, 4, 1);
  got_rgb = image_new (width, height, 3, 1);
  got_argb = image_new (width, height, 4, 1);
  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++) {
      set (&textured, x, y, 3, x < width / 2 ? 0 : 255);
      for (c = 0; c < 4; c++) {
        if (c < 3)
          set (&rgb, x, y, c, get (&textured, x, y, c));
        set (&argb, x, y, (c + 1) % 4, get (&textured, x, y, c));
      }
    }
  for (b = 0; b < N_ELEMENTS (all_borders); b++) {
    int colour_differs = 0, permuted_differs = 0;
    if (edge_aware (&textured, &got, 6.0, 20.0, 2, 7, all_borders[b]) != GB_OK
        || edge_aware (&rgb, &got_rgb, 6.0, 20.0, 2, 7,
            all_borders[b]) != GB_OK
        || edge_aware (&argb, &got_argb, 6.0, 20.0, 2, 0xe,
            all_borders[b]) != GB_OK)
      continue;
    for (y = 0; y < height; y++)
      for (x = 0; x < width; x++)
        for (c = 0; c < 4; c++) {
          if (c < 3)
            colour_differs += get (&got, x, y, c) != get (&got_rgb, x, y, c);
          permuted_differs += get (&got, x, y, c)
              != get (&got_argb, x, y, (c + 1) % 4);
        }
    check (colour_differs == 0, "%s: RGBA's colour differs from RGB's in %d "
        "samples", gb_border_name (all_borders[b]), colour_differs);
    check (permuted_differs == 0, "%s: ARGB differs from RGBA in %d samples",
        gb_border_name (all_borders[b]), permuted_differs);
  }
  image_free (&rgba);
  image_free (&alpha);
  image_free (&got);
  image_free (&expected);
  image_free (&got_alpha);
  image_free (&textured);
  image_free (&rgb);
  image_free (&argb);
  image_free (&got_rgb);
  image_free (&got_argb);
  group_end ();
}

/* 16-bit = 8-bit x 257 with range_scale 1/257: the same spacings, a result
 * 257 times the 8-bit one before rounding, so |out16 - 257 out8| <= 128.5
 * + 0.5, i.e. <= 129. */
static void
test_16bit (void)
{
  static const Pattern patterns[] = { PATTERN_NOISE, PATTERN_STEP,
    PATTERN_BLOCKS
  };
  int p, b, n, x, y, c, worst = 0, worst_scaled = 0;

  group_begin ("8-bit and 16-bit agree");
  for (p = 0; p < N_ELEMENTS (patterns); p++)
    for (b = 0; b < N_ELEMENTS (all_borders); b++)
      for (n = 1; n <= 3; n++) {
        Image src8 = image_pattern (29, 21, 3, 1, patterns[p], 3 + p);
        Image src16 = image_pattern (29, 21, 3, 2, patterns[p], 3 + p);
        Image got8 = image_new (29, 21, 3, 1), got16 =
            image_new (29, 21, 3, 2);
        if (edge_aware (&src8, &got8, 5.0, 15.0, n, 7, all_borders[b]) == GB_OK
            && edge_aware (&src16, &got16, 5.0, 15.0, n, 7,
                all_borders[b]) == GB_OK) {
          int local = 0;
          for (y = 0; y < 21; y++)
            for (x = 0; x < 29; x++)
              for (c = 0; c < 3; c++) {
                int g16 = (int) get (&got16, x, y, c);
                int d = abs (g16 - 257 * (int) get (&got8, x, y, c));
                /* the 16-bit result rounded to 8 bits */
                int d8 = abs ((g16 + 128) / 257 - (int) get (&got8, x, y, c));
                local = d > local ? d : local;
                worst_scaled = d8 > worst_scaled ? d8 : worst_scaled;
              }
          check (local <= 129, "%s, %s, N %d: 16-bit %d off 257 x 8-bit",
              pattern_names[patterns[p]], gb_border_name (all_borders[b]), n,
              local);
          worst = local > worst ? local : worst;
        }
        image_free (&src8);
        image_free (&src16);
        image_free (&got8);
        image_free (&got16);
      }
  printf ("     |out16 - 257 out8| <= %d; out16 / 257 rounded: %d off out8\n",
      worst, worst_scaled);
  group_end ();
}

/* Mirroring the input mirrors the output: the anticausal recursion is the
 * causal one run on the mirrored line, and the start-up rule is the same at
 * both ends. Exact but for the order of the sums, so within 1. */
static void
test_symmetry (void)
{
  int b, n, flip, x, y, c, worst = 0;

  group_begin ("symmetry");
  for (b = 0; b < N_ELEMENTS (all_borders); b++)
    for (n = 1; n <= 3; n++)
      for (flip = 0; flip < 2; flip++) {
        const int width = 27, height = 19;
        Image src = image_pattern (width, height, 3, 1, PATTERN_BLOCKS, 11);
        Image flipped = image_new (width, height, 3, 1);
        Image got = image_new (width, height, 3, 1);
        Image got_flipped = image_new (width, height, 3, 1);
        int local = 0;
        for (y = 0; y < height; y++)
          for (x = 0; x < width; x++)
            for (c = 0; c < 3; c++)
              set (&flipped, flip ? x : width - 1 - x,
                  flip ? height - 1 - y : y, c, get (&src, x, y, c));
        if (edge_aware (&src, &got, 4.0, 20.0, n, 7, all_borders[b]) == GB_OK
            && edge_aware (&flipped, &got_flipped, 4.0, 20.0, n, 7,
                all_borders[b]) == GB_OK) {
          for (y = 0; y < height; y++)
            for (x = 0; x < width; x++)
              for (c = 0; c < 3; c++) {
                int d = abs ((int) get (&got, x, y, c) - (int)
                    get (&got_flipped, flip ? x : width - 1 - x,
                        flip ? height - 1 - y : y, c));
                local = d > local ? d : local;
              }
          check (local <= 1, "%s, N %d, %s flip: %d apart",
              gb_border_name (all_borders[b]), n,
              flip ? "vertical" : "horizontal", local);
          worst = local > worst ? local : worst;
        }
        image_free (&src);
        image_free (&flipped);
        image_free (&got);
        image_free (&got_flipped);
      }
  printf ("     largest difference %d\n", worst);
  group_end ();
}

/* src == dst gives the result of separate buffers. */
static void
test_in_place (void)
{
  Image src = image_pattern (25, 17, 3, 1, PATTERN_BLOCKS, 9);
  Image got = image_new (25, 17, 3, 1);

  group_begin ("in place");
  if (edge_aware (&src, &got, 5.0, 20.0, 2, 7, GB_BORDER_MIRROR) == GB_OK
      && edge_aware (&src, &src, 5.0, 20.0, 2, 7, GB_BORDER_MIRROR) == GB_OK)
    check (max_difference (&src, &got, NULL) == 0,
        "in place differs from out of place");
  image_free (&src);
  image_free (&got);
  group_end ();
}

/* Lines are split over threads: any count gives the same bits. 1, 2, 3
 * and 7 threads (uneven shares, more threads than the machine's cores) on
 * an 8-bit and a 16-bit plane, both axes and the mirror start-up. */
static void
test_threads (void)
{
  static const int counts[] = { 2, 3, 7 };
  const GbEdgeAwareParams params = { 4.0, 6.0, 20.0, 2 };
  int bytes, k;

  group_begin ("threads");
  for (bytes = 1; bytes <= 2; bytes++) {
    Image src = image_pattern (61, 37, 4, bytes, PATTERN_BLOCKS, 21);
    Image one = image_new (61, 37, 4, bytes);
    Image many = image_new (61, 37, 4, bytes);
    GbPlaneGeometry plane = { 61, 37, 4, 1, 1, 0 };
    GbError error;

    check (gb_edge_aware_cpu_threads (&params, &plane, bytes, 7,
            bytes == 2 ? 1.0 / 257.0 : 1.0, GB_BORDER_MIRROR, src.data,
            src.stride, one.data, one.stride, 1, &error) == GB_OK,
        "one thread: %s", error.message);
    for (k = 0; k < N_ELEMENTS (counts); k++) {
      check (gb_edge_aware_cpu_threads (&params, &plane, bytes, 7,
              bytes == 2 ? 1.0 / 257.0 : 1.0, GB_BORDER_MIRROR, src.data,
              src.stride, many.data, many.stride, counts[k], &error)
          == GB_OK, "%d threads: %s", counts[k], error.message);
      check (max_difference (&one, &many, NULL) == 0,
          "%d-bit, %d threads differ from one", 8 * bytes, counts[k]);
    }
    image_free (&src);
    image_free (&one);
    image_free (&many);
  }
  group_end ();
}

static void
test_invalid_arguments (void)
{
  uint8_t pixels[4 * 4 * 4] = { 0 };
  GbPlaneGeometry plane = { 4, 4, 4, 1, 1, 0 };
  GbEdgeAwareParams good = { 3.0, 3.0, 20.0, 2 };
  const struct
  {
    GbEdgeAwareParams params;
    int bytes;
    unsigned mask;
    double scale;
    int border;
    size_t stride;
    const char *what;
  } cases[] = {
    {{0.0, 0.0, 20.0, 2}, 1, 7, 1.0, 0, 16, "sigma 0 on both axes"},
    {{-1.0, 3.0, 20.0, 2}, 1, 7, 1.0, 0, 16, "negative sigma-x"},
    {{3.0, NAN, 20.0, 2}, 1, 7, 1.0, 0, 16, "sigma-y NaN"},
    {{GB_MAX_SIGMA * 2, 3.0, 20.0, 2}, 1, 7, 1.0, 0, 16, "sigma too large"},
    {{3.0, 3.0, 0.0, 2}, 1, 7, 1.0, 0, 16, "sigma_r 0"},
    {{3.0, 3.0, NAN, 2}, 1, 7, 1.0, 0, 16, "sigma_r NaN"},
    {{3.0, 3.0, 20.0, 0}, 1, 7, 1.0, 0, 16, "0 iterations"},
    {{3.0, 3.0, 20.0, GB_EDGE_AWARE_MAX_ITERATIONS + 1}, 1, 7, 1.0, 0, 16,
        "too many iterations"},
    {{3.0, 3.0, 20.0, 2}, 3, 7, 1.0, 0, 16, "3 bytes per sample"},
    {{3.0, 3.0, 20.0, 2}, 1, 0x10, 1.0, 0, 16, "mask beyond the channels"},
    {{3.0, 3.0, 20.0, 2}, 1, 7, 0.0, 0, 16, "range scale 0"},
    {{3.0, 3.0, 20.0, 2}, 1, 7, 1.0, 3, 16, "border 3"},
    {{3.0, 3.0, 20.0, 2}, 1, 7, 1.0, 0, 15, "short stride"},
  };
  GbError error;
  int t;

  group_begin ("invalid arguments");
  for (t = 0; t < N_ELEMENTS (cases); t++)
    check (gb_edge_aware_cpu (&cases[t].params, &plane, cases[t].bytes,
            cases[t].mask, cases[t].scale, (GbBorder) cases[t].border,
            pixels, cases[t].stride, pixels, cases[t].stride, &error)
        != GB_OK, "%s accepted", cases[t].what);
  check (gb_edge_aware_cpu (NULL, &plane, 1, 7, 1.0, GB_BORDER_CLAMP, pixels,
          16, pixels, 16, &error) != GB_OK, "no parameters accepted");
  check (gb_edge_aware_cpu (&good, &plane, 1, 7, 1.0, GB_BORDER_CLAMP, NULL,
          16, pixels, 16, &error) != GB_OK, "no source accepted");
  plane.width = 0;
  check (gb_edge_aware_cpu (&good, &plane, 1, 7, 1.0, GB_BORDER_CLAMP, pixels,
          16, pixels, 16, &error) != GB_OK, "width 0 accepted");
  plane.width = 4;
  check (gb_edge_aware_cpu (&good, &plane, 1, 0, 1.0, GB_BORDER_CLAMP, pixels,
          16, pixels, 16, &error) == GB_OK, "mask 0 refused: %s",
      error.message);
  {
    GbEdgeAwareParams unbounded = { 3.0, 3.0, INFINITY, 2 };
    check (gb_edge_aware_cpu (&unbounded, &plane, 1, 7, 1.0, GB_BORDER_CLAMP,
            pixels, 16, pixels, 16, &error) == GB_OK,
        "sigma_r infinity refused: %s", error.message);
  }
  group_end ();
}

int
main (void)
{
  test_constants ();
  test_seed_equations ();
  test_constant ();
  test_large_range_sigma ();
  test_step_edge ();
  test_alpha ();
  test_16bit ();
  test_symmetry ();
  test_in_place ();
  test_threads ();
  test_invalid_arguments ();

  return checks_summary ();
}

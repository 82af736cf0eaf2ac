/* The edge-aware Gaussian of seed 004: the CPU reference (see edge_aware.h).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Double precision throughout: this is the oracle that the GPU's float
 * Algorithm C (segments started from an estimated state) is measured
 * against, so its own rounding has to be far below the errors measured
 * (float loses up to a third of a level at sigma 250 in the plain recursive
 * filter, docs/algorithms.md section 7.3; here the poles are the same and
 * b^dt adds an exponential per sample and section).
 */
#include "edge_aware.h"

#include "recursive.h"
#include "sampling.h"

#include <complex.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

/* Most threads a pass runs on, and fewest lines each gets. */
#define GB_EDGE_AWARE_MAX_THREADS 16
#define GB_EDGE_AWARE_MIN_LINES 8

/* Seed 004, appendix, alpha1 with the sign of ERRATA.md: recursive.c's
 * constants (kept there static, stored as float real sections), in the
 * complex form the non-uniform recursion needs. tests/test_edge_aware.c
 * checks that both files give the same filter at unit spacing. */
static const double complex alpha[2] = { 1.6800 + 3.7350 * I,
  -0.6803 - 0.2598 * I
};
static const double complex lambda[2] = { 1.783 + 0.6318 * I,
  1.723 + 1.9970 * I
};

double
gb_edge_aware_sigma (double sigma_s, int iterations, int i)
{
  return sigma_s * sqrt (3.0) * ldexp (1.0, iterations - i)
      / sqrt (ldexp (1.0, 2 * iterations) - 1.0);
}

void
gb_edge_aware_pass (double sigma, GbEdgeAwarePass * pass)
{
  double complex b[2];
  double gamma = 0.0;
  GbRecursiveFilter recursive;
  int s;

  for (s = 0; s < 2; s++) {
    b[s] = cexp (-lambda[s] / sigma);
    gamma += creal (alpha[s] * (1.0 + b[s]) / (1.0 - b[s]));
  }
  pass->sigma = sigma;
  for (s = 0; s < 2; s++) {
    const double complex a = alpha[s] / gamma;
    const double complex pole = lambda[s] / sigma;
    const double complex gain = a * b[s] / ((1.0 - b[s]) * (1.0 - b[s]));
    pass->pole_re[s] = creal (pole);
    pass->pole_im[s] = cimag (pole);
    pass->gain_re[s] = creal (gain);
    pass->gain_im[s] = cimag (gain);
  }
  /* The same poles decay over the same warm-up; dt >= 1 only shortens it. */
  gb_recursive_filter (sigma, &recursive);
  pass->warmup = recursive.warmup;
}

/* E_s(dt) and Q_s(dt) of one spacing (edge_aware.h), both sections. */
typedef struct
{
  double e_re[2], e_im[2];
  double q_re[2], q_im[2];
} GbEdgeAwareStep;

static void
step_coefficients (const GbEdgeAwarePass * pass, double dt,
    GbEdgeAwareStep * step)
{
  int s;

  for (s = 0; s < 2; s++) {
    /* b^dt = exp(-p dt), not cpow (b, dt): the principal branch of log b
     * is -p only while Im p < pi (sigma > 0.64 for lambda1). */
    const double magnitude = exp (-pass->pole_re[s] * dt);
    double e_re = 0.0, e_im = 0.0;
    if (magnitude > 0.0) {      /* dt = infinity (sigma_r -> 0) underflows */
      e_re = magnitude * cos (pass->pole_im[s] * dt);
      e_im = -magnitude * sin (pass->pole_im[s] * dt);
    }
    step->e_re[s] = e_re;
    step->e_im[s] = e_im;
    /* c (E - 1) / dt */
    step->q_re[s] = (pass->gain_re[s] * (e_re - 1.0) - pass->gain_im[s] * e_im)
        / dt;
    step->q_im[s] = (pass->gain_re[s] * e_im + pass->gain_im[s] * (e_re - 1.0))
        / dt;
  }
}

/* What one line pass needs besides the plane. */
typedef struct
{
  const GbEdgeAwarePass *pass;
  int channels;
  double ratio2;                /* (sigma_s / sigma_r)^2, the pass's axis' */
  double weight[GB_MAX_CHANNELS];       /* range_scale^2 if the channel steers, else 0 */
  GbBorder border;
  /* scratch, for the longest line plus its start-up on both sides */
  double *extended;             /* x_ext[-w .. n - 1 + w], channels interleaved */
  GbEdgeAwareStep *steps;       /* steps[j]: spacing between x_ext[j - 1 - w] and x_ext[j - w] */
  double *causal;               /* Re{u_0 + u_1} per output sample */
} GbEdgeAwareLine;

/* Filters the line of n pixels at line[k * step] (channels interleaved,
 * doubles) in place. */
static void
filter_line (GbEdgeAwareLine * l, double *line, int n, size_t step)
{
  const int channels = l->channels;
  const int w = l->border == GB_BORDER_MIRROR ? l->pass->warmup : 1;
  const int length = n + 2 * w;
  double *restrict x = l->extended;
  double u_re[2][GB_MAX_CHANNELS] = { {0} }, u_im[2][GB_MAX_CHANNELS] = { {0} };
  double v_re[2][GB_MAX_CHANNELS] = { {0} }, v_im[2][GB_MAX_CHANNELS] = { {0} };
  int j, c, s;

  for (j = 0; j < length; j++) {
    const int source = gb_border_index (j - w, n, l->border);
    for (c = 0; c < channels; c++)
      x[j * channels + c] = source < 0 ? 0.0 : line[source * step + c];
  }

  /* The spacings, from this pass's input (seed 004, eq. (2)). */
  for (j = 1; j < length; j++) {
    double sum = 0.0, dt = 1.0;
    for (c = 0; c < channels; c++) {
      const double difference = x[j * channels + c] - x[(j - 1) * channels + c];
      sum += l->weight[c] * difference * difference;
    }
    if (sum > 0.0)              /* (0 * infinite ratio2 would be NaN) */
      dt = sqrt (1.0 + l->ratio2 * sum);
    step_coefficients (l->pass, dt, &l->steps[j]);
  }

  /* Causal: u = 0 at j = 0 (q = -w), the steady state of x_ext[-w]. */
  for (j = 1; j < w + n; j++) {
    const GbEdgeAwareStep *e = &l->steps[j];
    for (c = 0; c < channels; c++) {
      const double d = x[j * channels + c] - x[(j - 1) * channels + c];
      for (s = 0; s < 2; s++) {
        const double re = e->e_re[s] * u_re[s][c] - e->e_im[s] * u_im[s][c]
            + e->q_re[s] * d;
        const double im = e->e_re[s] * u_im[s][c] + e->e_im[s] * u_re[s][c]
            + e->q_im[s] * d;
        u_re[s][c] = re;
        u_im[s][c] = im;
      }
      if (j >= w)
        l->causal[(j - w) * channels + c] = u_re[0][c] + u_re[1][c];
    }
  }

  /* Anticausal: v = 0 at j = length - 1 (q = n - 1 + w). */
  for (j = length - 2; j >= w; j--) {
    const GbEdgeAwareStep *e = &l->steps[j + 1];
    for (c = 0; c < channels; c++) {
      const double d = x[j * channels + c] - x[(j + 1) * channels + c];
      for (s = 0; s < 2; s++) {
        const double re = e->e_re[s] * v_re[s][c] - e->e_im[s] * v_im[s][c]
            + e->q_re[s] * d;
        const double im = e->e_re[s] * v_im[s][c] + e->e_im[s] * v_re[s][c]
            + e->q_im[s] * d;
        v_re[s][c] = re;
        v_im[s][c] = im;
      }
      if (j < w + n)
        line[(size_t) (j - w) * step + c] = x[j * channels + c]
            + l->causal[(j - w) * channels + c] + (v_re[0][c] + v_re[1][c]);
    }
  }
}

static GbStatus
validate (const GbEdgeAwareParams * params, const GbPlaneGeometry * plane,
    int bytes_per_sample, unsigned distance_mask, double range_scale,
    GbBorder border, const void *src, size_t src_stride, void *dst,
    size_t dst_stride, GbError * error)
{
  GbStatus status;

  if (!params)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT, "no parameters");
  if (!(params->sigma_x >= 0.0) || params->sigma_x > GB_MAX_SIGMA
      || !(params->sigma_y >= 0.0) || params->sigma_y > GB_MAX_SIGMA
      || (params->sigma_x == 0.0 && params->sigma_y == 0.0))
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "sigma %g x %g is outside [0, %g] or 0 on both axes",
        params->sigma_x, params->sigma_y, GB_MAX_SIGMA);
  if (!(params->sigma_r > 0.0))
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "range sigma %g is not positive", params->sigma_r);
  if (params->iterations < 1
      || params->iterations > GB_EDGE_AWARE_MAX_ITERATIONS)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "%d iterations (1 to %d supported)", params->iterations,
        GB_EDGE_AWARE_MAX_ITERATIONS);
  status = gb_plane_image_validate (plane, bytes_per_sample, border, src,
      src_stride, "source", error);
  if (status != GB_OK)
    return status;
  if (distance_mask >> plane->channels)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "distance mask 0x%x names channels a %d-channel plane lacks",
        distance_mask, plane->channels);
  if (!(range_scale > 0.0) || isinf (range_scale))
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "range scale %g is not a positive number", range_scale);
  return gb_plane_image_validate (plane, bytes_per_sample, border, dst,
      dst_stride, "destination", error);
}

/* One thread's share of a pass: lines [first, end), each n samples long,
 * the line i at plane + i line_step, its samples sample_step apart, with
 * the thread's own scratch. */
typedef struct
{
  GbEdgeAwareLine line;
  double *plane;
  size_t line_step;
  size_t sample_step;
  int n;
  int first;
  int end;
} GbEdgeAwareShare;

static void *
filter_share (void *data)
{
  GbEdgeAwareShare *share = data;
  int i;

  for (i = share->first; i < share->end; i++)
    filter_line (&share->line, share->plane + (size_t) i * share->line_step,
        share->n, share->sample_step);
  return NULL;
}

/* Every line of a pass, spread over the shares' threads (the calling
 * thread takes the first share). Lines are independent, so the result is
 * the same whatever the split; a thread that cannot start runs inline. */
static void
filter_lines (GbEdgeAwareShare * shares, int n_shares, double *plane,
    size_t line_step, size_t sample_step, int n, int lines, double ratio2)
{
  pthread_t threads[GB_EDGE_AWARE_MAX_THREADS];
  int started[GB_EDGE_AWARE_MAX_THREADS] = { 0 };
  int t;

  if (n_shares > lines)
    n_shares = lines;
  for (t = 0; t < n_shares; t++) {
    GbEdgeAwareShare *share = &shares[t];
    share->line.ratio2 = ratio2;
    share->plane = plane;
    share->line_step = line_step;
    share->sample_step = sample_step;
    share->n = n;
    share->first = (int) ((long) lines * t / n_shares);
    share->end = (int) ((long) lines * (t + 1) / n_shares);
  }
  for (t = 1; t < n_shares; t++)
    started[t] = pthread_create (&threads[t], NULL, filter_share,
        &shares[t]) == 0;
  filter_share (&shares[0]);
  for (t = 1; t < n_shares; t++) {
    if (started[t])
      pthread_join (threads[t], NULL);
    else
      filter_share (&shares[t]);
  }
}

GbStatus
gb_edge_aware_cpu (const GbEdgeAwareParams * params,
    const GbPlaneGeometry * plane, int bytes_per_sample,
    unsigned distance_mask, double range_scale, GbBorder border,
    const void *src, size_t src_stride, void *dst, size_t dst_stride,
    GbError * error)
{
  return gb_edge_aware_cpu_threads (params, plane, bytes_per_sample,
      distance_mask, range_scale, border, src, src_stride, dst, dst_stride,
      0, error);
}

GbStatus
gb_edge_aware_cpu_threads (const GbEdgeAwareParams * params,
    const GbPlaneGeometry * plane, int bytes_per_sample,
    unsigned distance_mask, double range_scale, GbBorder border,
    const void *src, size_t src_stride, void *dst, size_t dst_stride,
    int threads, GbError * error)
{
  GbEdgeAwarePass pass;
  GbEdgeAwareShare shares[GB_EDGE_AWARE_MAX_THREADS];
  GbStatus status;
  double *plane_samples;
  size_t row, longest, count;
  int width, height, channels, iteration, x, y, c, t, widest, n_shares;
  int allocated = 0;

  status = validate (params, plane, bytes_per_sample, distance_mask,
      range_scale, border, src, src_stride, dst, dst_stride, error);
  if (status != GB_OK)
    return status;
  width = plane->width;
  height = plane->height;
  channels = plane->channels;
  row = (size_t) width * channels;
  longest = (size_t) (width > height ? width : height);

  /* Threads: as asked, or as many as the machine has; at most
   * GB_EDGE_AWARE_MAX_THREADS, at least GB_EDGE_AWARE_MIN_LINES lines
   * each. */
  n_shares = threads > 0 ? threads : (int) sysconf (_SC_NPROCESSORS_ONLN);
  if (n_shares > GB_EDGE_AWARE_MAX_THREADS)
    n_shares = GB_EDGE_AWARE_MAX_THREADS;
  if ((size_t) n_shares * GB_EDGE_AWARE_MIN_LINES > longest)
    n_shares = (int) (longest / GB_EDGE_AWARE_MIN_LINES);
  if (n_shares < 1)
    n_shares = 1;

  /* The first iteration's sigma is the largest: so is its warm-up. */
  gb_edge_aware_pass (gb_edge_aware_sigma (params->sigma_x > params->sigma_y
          ? params->sigma_x : params->sigma_y, params->iterations, 1), &pass);
  widest = border == GB_BORDER_MIRROR ? pass.warmup : 1;
  count = longest + 2 * (size_t) widest;
  plane_samples = malloc (sizeof (double) * row * height);
  status = plane_samples ? GB_OK : GB_ERROR_OUT_OF_MEMORY;
  for (t = 0; t < n_shares && status == GB_OK; t++, allocated++) {
    GbEdgeAwareLine *line = &shares[t].line;
    line->extended = malloc (sizeof (double) * count * channels);
    line->steps = malloc (sizeof (GbEdgeAwareStep) * count);
    line->causal = malloc (sizeof (double) * longest * channels);
    if (!line->extended || !line->steps || !line->causal)
      status = GB_ERROR_OUT_OF_MEMORY;
    line->pass = &pass;
    line->channels = channels;
    for (c = 0; c < GB_MAX_CHANNELS; c++)
      line->weight[c] = (distance_mask >> c) & 1
          ? range_scale * range_scale : 0.0;
    line->border = border;
  }
  if (status != GB_OK) {
    status = gb_error_set (error, GB_ERROR_OUT_OF_MEMORY,
        "no memory for the edge-aware filter of a %dx%d plane", width,
        height);
    goto out;
  }

  for (y = 0; y < height; y++) {
    const uint8_t *in = (const uint8_t *) src + (size_t) y * src_stride;
    for (x = 0; x < width * channels; x++)
      plane_samples[y * row + x] = bytes_per_sample == 1 ? in[x]
          : ((const uint16_t *) in)[x];
  }

  for (iteration = 1; iteration <= params->iterations; iteration++) {
    /* Each axis its own sigma_s (the seed's one sigma when they are
     * equal), in the spacings and the schedule alike. */
    if (params->sigma_x > 0.0) {
      gb_edge_aware_pass (gb_edge_aware_sigma (params->sigma_x,
              params->iterations, iteration), &pass);
      filter_lines (shares, n_shares, plane_samples, row, channels, width,
          height, (params->sigma_x / params->sigma_r)
          * (params->sigma_x / params->sigma_r));
    }
    if (params->sigma_y > 0.0) {
      gb_edge_aware_pass (gb_edge_aware_sigma (params->sigma_y,
              params->iterations, iteration), &pass);
      filter_lines (shares, n_shares, plane_samples, channels, row, height,
          width, (params->sigma_y / params->sigma_r)
          * (params->sigma_y / params->sigma_r));
    }
  }

  for (y = 0; y < height; y++) {
    uint8_t *out = (uint8_t *) dst + (size_t) y * dst_stride;
    const double *samples = plane_samples + y * row;
    for (x = 0; x < width * channels; x++) {
      if (bytes_per_sample == 1)
        out[x] = gb_round_u8 ((float) samples[x]);
      else
        ((uint16_t *) out)[x] = gb_round_u16 ((float) samples[x]);
    }
  }

out:
  free (plane_samples);
  for (t = 0; t < allocated; t++) {
    free (shares[t].line.extended);
    free (shares[t].line.steps);
    free (shares[t].line.causal);
  }
  return status;
}

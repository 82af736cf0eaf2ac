/* Spatially varying Gaussian blur by kernel superposition (seed 003): the
 * CPU reference, gather and scatter (see superposition.h).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Double precision throughout, one rounding at the end: this is the oracle
 * the GPU's float kernels will be measured against. Both methods read the
 * plane through the same source rows (fill_source_row): each pixel of the
 * plane extended by rmax on every side, its samples and its kernel,
 * computed once. Gather keeps the 2 rmax + 1 rows an output row needs;
 * scatter one row at a time, adding into the sums.
 */
#include "superposition.h"

#include "sampling.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

double
gb_superposition_sigma (double sigma, int rmax)
{
  const double largest = rmax / GB_SUPERPOSITION_CUTOFF;
  return sigma < largest ? sigma : largest;
}

int
gb_superposition_radius (double sigma, int rmax)
{
  double radius;

  if (!(sigma > 0.0))
    return 0;
  radius = ceil (GB_SUPERPOSITION_CUTOFF * sigma);
  return radius < rmax ? (int) radius : rmax;
}

int
gb_superposition_kernel (double sigma, int rmax, double *weights)
{
  const int radius = gb_superposition_radius (sigma, rmax);
  double scale, sum;
  int k;

  if (radius == 0) {
    weights[0] = 1.0;
    return 0;
  }
  /* Seed 003, Eq. 4: the Gaussian integrated over the pixel [k - 1/2, k + 1/2]. */
  scale = 1.0 / (sqrt (2.0) * gb_superposition_sigma (sigma, rmax));
  weights[0] = erf (0.5 * scale);
  sum = weights[0];
  for (k = 1; k <= radius; k++) {
    /* erfc: erf(b) - erf(a) of two values near 1 would cancel. */
    weights[k] = 0.5 * (erfc ((k - 0.5) * scale) - erfc ((k + 0.5) * scale));
    sum += 2.0 * weights[k];
  }
  for (k = 0; k <= radius; k++)
    weights[k] /= sum;
  return radius;
}

const char *
gb_superposition_method_name (GbSuperpositionMethod method)
{
  switch (method) {
    case GB_SUPERPOSITION_GATHER:
      return "gather";
    case GB_SUPERPOSITION_SCATTER:
      return "scatter";
  }
  return "unknown";
}

/* What both methods read. */
typedef struct
{
  int width, height, channels, bytes_per_sample, rmax;
  int step_x, step_y;           /* the plane's subsampling: map pixels per plane pixel */
  int reach_x, reach_y;         /* the largest radius on each axis, plane pixels */
  int extended_width;           /* width + 2 reach_x: x' = -reach_x .. width - 1 + reach_x */
  GbBorder border;
  const float *sigma_map;
  size_t sigma_stride;          /* floats */
  const uint8_t *src;
  size_t src_stride;            /* bytes */
} GbSuperposition;

/* The input pixels of one row y' of the extended plane, ready to spread. */
typedef struct
{
  int *radius_x;                /* per pixel; -1: outside under GB_BORDER_ZERO, no contribution */
  int *radius_y;
  double *weights_x;            /* reach_x + 1 per pixel: its kernel along x, K[0 .. radius_x] */
  double *weights_y;            /* reach_y + 1 per pixel */
  double *samples;              /* channels per pixel */
} GbSourceRow;

int
gb_superposition_reach (int rmax, int subsampling)
{
  const int step = subsampling > 1 ? subsampling : 1;
  return (rmax + step - 1) / step;
}

int
gb_superposition_axis_kernel (double sigma, int rmax, int subsampling,
    double *weights)
{
  const int step = subsampling > 1 ? subsampling : 1;

  return gb_superposition_kernel (gb_superposition_sigma (sigma, rmax) / step,
      gb_superposition_reach (rmax, step), weights);
}

static void
fill_source_row (const GbSuperposition * s, int y, GbSourceRow * row)
{
  const int source_y = gb_border_index (y, s->height, s->border);
  const uint8_t *in = NULL;
  const float *sigma = NULL;
  int i, c;

  if (source_y >= 0) {
    in = s->src + (size_t) source_y * s->src_stride;
    sigma = s->sigma_map + (size_t) source_y * s->step_y * s->sigma_stride;
  }
  for (i = 0; i < s->extended_width; i++) {
    const int source_x = source_y < 0 ? -1
        : gb_border_index (i - s->reach_x, s->width, s->border);
    size_t first;
    double map_sigma;
    if (source_x < 0) {
      row->radius_x[i] = row->radius_y[i] = -1;
      continue;
    }
    first = (size_t) source_x * s->channels;
    /* The sample and its sigma from the same mapped pixel. */
    map_sigma = sigma[(size_t) source_x * s->step_x];
    row->radius_x[i] = gb_superposition_axis_kernel (map_sigma, s->rmax,
        s->step_x, row->weights_x + (size_t) i * (s->reach_x + 1));
    row->radius_y[i] = gb_superposition_axis_kernel (map_sigma, s->rmax,
        s->step_y, row->weights_y + (size_t) i * (s->reach_y + 1));
    for (c = 0; c < s->channels; c++)
      row->samples[(size_t) i * s->channels + c] = s->bytes_per_sample == 1
          ? in[first + c] : ((const uint16_t *) in)[first + c];
  }
}

static void
source_row_clear (GbSourceRow * row)
{
  free (row->radius_x);
  free (row->radius_y);
  free (row->weights_x);
  free (row->weights_y);
  free (row->samples);
}

/* n rows of the extended plane's width; NULL if out of memory. */
static GbSourceRow *
source_rows_new (const GbSuperposition * s, int n)
{
  const size_t width = s->extended_width;
  GbSourceRow *rows = calloc ((size_t) n, sizeof (GbSourceRow));
  int i;

  if (!rows)
    return NULL;
  for (i = 0; i < n; i++) {
    rows[i].radius_x = malloc (sizeof (int) * width);
    rows[i].radius_y = malloc (sizeof (int) * width);
    rows[i].weights_x = malloc (sizeof (double) * width * (s->reach_x + 1));
    rows[i].weights_y = malloc (sizeof (double) * width * (s->reach_y + 1));
    rows[i].samples = malloc (sizeof (double) * width * s->channels);
    if (!rows[i].radius_x || !rows[i].radius_y || !rows[i].weights_x
        || !rows[i].weights_y || !rows[i].samples) {
      do
        source_row_clear (&rows[i]);
      while (i-- > 0);
      free (rows);
      return NULL;
    }
  }
  return rows;
}

static void
source_rows_free (GbSourceRow * rows, int n)
{
  int i;

  for (i = 0; i < n; i++)
    source_row_clear (&rows[i]);
  free (rows);
}

/* Each output sums the pixels of its (2 reach_x + 1) x (2 reach_y + 1)
 * window whose kernels reach it: input rows in order, and in each the
 * pixels in order. The window's rows are a ring: row y' in slot
 * (y' + reach_y) mod (2 reach_y + 1). */
static GbStatus
gather (const GbSuperposition * s, double *sums, GbError * error)
{
  const int reach_x = s->reach_x, reach_y = s->reach_y;
  const int channels = s->channels;
  const int n_rows = 2 * reach_y + 1;
  GbSourceRow *ring = source_rows_new (s, n_rows);
  int x, y, yy, xx, c;

  if (!ring)
    return gb_error_set (error, GB_ERROR_OUT_OF_MEMORY,
        "no memory for the kernels of %d rows of %d pixels", n_rows,
        s->extended_width);
  for (yy = -reach_y; yy < reach_y; yy++)
    fill_source_row (s, yy, &ring[yy + reach_y]);
  for (y = 0; y < s->height; y++) {
    fill_source_row (s, y + reach_y, &ring[(y + 2 * reach_y) % n_rows]);
    for (x = 0; x < s->width; x++) {
      double acc[GB_MAX_CHANNELS] = { 0.0 };
      for (yy = y - reach_y; yy <= y + reach_y; yy++) {
        const GbSourceRow *row = &ring[(yy + reach_y) % n_rows];
        const int dy = abs (y - yy);
        for (xx = x - reach_x; xx <= x + reach_x; xx++) {
          const int i = xx + reach_x, dx = abs (x - xx);
          const double *samples;
          double ky, kx;
          if (row->radius_y[i] < dy || row->radius_x[i] < dx)
            continue;
          ky = row->weights_y[(size_t) i * (reach_y + 1) + dy];
          kx = row->weights_x[(size_t) i * (reach_x + 1) + dx];
          samples = row->samples + (size_t) i * channels;
          for (c = 0; c < channels; c++)
            acc[c] += (samples[c] * ky) * kx;
        }
      }
      for (c = 0; c < channels; c++)
        sums[((size_t) y * s->width + x) * channels + c] = acc[c];
    }
  }
  source_rows_free (ring, n_rows);
  return GB_OK;
}

/* Each input pixel, in raster order, computes its kernels once (in
 * fill_source_row) and adds sample K_y(dy) K_x(dx) to the outputs it
 * reaches: every output receives its terms in gather's order. */
static GbStatus
scatter (const GbSuperposition * s, double *sums, GbError * error)
{
  const int reach_x = s->reach_x, reach_y = s->reach_y;
  const int channels = s->channels;
  GbSourceRow *row = source_rows_new (s, 1);
  int x, y, yy, xx, c;

  if (!row)
    return gb_error_set (error, GB_ERROR_OUT_OF_MEMORY,
        "no memory for the kernels of a row of %d pixels", s->extended_width);
  memset (sums, 0, sizeof (double) * s->width * s->height * channels);
  for (yy = -reach_y; yy < s->height + reach_y; yy++) {
    fill_source_row (s, yy, row);
    for (xx = -reach_x; xx < s->width + reach_x; xx++) {
      const int i = xx + reach_x;
      const int rx = row->radius_x[i], ry = row->radius_y[i];
      const double *weights_x = row->weights_x + (size_t) i * (reach_x + 1);
      const double *weights_y = row->weights_y + (size_t) i * (reach_y + 1);
      const double *samples = row->samples + (size_t) i * channels;
      int x0, x1, y0, y1;
      if (rx < 0)
        continue;
      /* The outputs it reaches, within the plane. */
      x0 = xx - rx < 0 ? 0 : xx - rx;
      x1 = xx + rx >= s->width ? s->width - 1 : xx + rx;
      y0 = yy - ry < 0 ? 0 : yy - ry;
      y1 = yy + ry >= s->height ? s->height - 1 : yy + ry;
      for (y = y0; y <= y1; y++) {
        const double ky = weights_y[abs (y - yy)];
        double *out = sums + (size_t) y * s->width * channels;
        double scaled[GB_MAX_CHANNELS];
        for (c = 0; c < channels; c++)
          scaled[c] = samples[c] * ky;
        for (x = x0; x <= x1; x++) {
          const double kx = weights_x[abs (x - xx)];
          for (c = 0; c < channels; c++)
            out[(size_t) x * channels + c] += scaled[c] * kx;
        }
      }
    }
  }
  source_rows_free (row, 1);
  return GB_OK;
}

static GbStatus
validate (GbSuperpositionMethod method, const GbPlaneGeometry * plane,
    int bytes_per_sample, const float *sigma_map, size_t sigma_stride,
    int rmax, GbBorder border, const void *src, size_t src_stride,
    GbError * error)
{
  GbStatus status;
  int x, y, step_x, step_y;

  if (method != GB_SUPERPOSITION_GATHER && method != GB_SUPERPOSITION_SCATTER)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "unknown superposition method %d", (int) method);
  status = gb_plane_image_validate (plane, bytes_per_sample, border, src,
      src_stride, "source", error);
  if (status != GB_OK)
    return status;
  if (rmax < 1 || rmax > GB_SUPERPOSITION_MAX_RADIUS)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "rmax %d is outside 1 .. %d", rmax, GB_SUPERPOSITION_MAX_RADIUS);
  if (!sigma_map)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT, "no sigma map");
  step_x = plane->subsampling_x > 1 ? plane->subsampling_x : 1;
  step_y = plane->subsampling_y > 1 ? plane->subsampling_y : 1;
  if (step_x == 3 || step_x > 4 || step_y == 3 || step_y > 4)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "subsampling %dx%d (1, 2 or 4 supported)", plane->subsampling_x,
        plane->subsampling_y);
  if (sigma_stride < (size_t) (plane->width - 1) * step_x + 1)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "sigma map stride %zu is below the map's width %d", sigma_stride,
        (plane->width - 1) * step_x + 1);
  for (y = 0; y < plane->height; y++)
    for (x = 0; x < plane->width; x++) {
      const float sigma = sigma_map[(size_t) y * step_y * sigma_stride
          + (size_t) x * step_x];
      if (!(sigma >= 0.0f) || isinf (sigma))
        return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
            "sigma %g at (%d, %d) is not a finite number >= 0",
            (double) sigma, x, y);
    }
  return GB_OK;
}

static GbStatus
run (GbSuperpositionMethod method, const GbPlaneGeometry * plane,
    int bytes_per_sample, const float *sigma_map, size_t sigma_stride,
    int rmax, GbBorder border, const void *src, size_t src_stride,
    double *sums, GbError * error)
{
  const GbSuperposition s = {
    .width = plane->width,
    .height = plane->height,
    .channels = plane->channels,
    .bytes_per_sample = bytes_per_sample,
    .rmax = rmax,
    .step_x = plane->subsampling_x > 1 ? plane->subsampling_x : 1,
    .step_y = plane->subsampling_y > 1 ? plane->subsampling_y : 1,
    .reach_x = gb_superposition_reach (rmax, plane->subsampling_x),
    .reach_y = gb_superposition_reach (rmax, plane->subsampling_y),
    .extended_width = plane->width
        + 2 * gb_superposition_reach (rmax, plane->subsampling_x),
    .border = border,
    .sigma_map = sigma_map,
    .sigma_stride = sigma_stride,
    .src = src,
    .src_stride = src_stride,
  };

  return method == GB_SUPERPOSITION_GATHER ? gather (&s, sums, error)
      : scatter (&s, sums, error);
}

GbStatus
gb_superposition_cpu_sums (GbSuperpositionMethod method,
    const GbPlaneGeometry * plane, int bytes_per_sample,
    const float *sigma_map, size_t sigma_stride, int rmax, GbBorder border,
    const void *src, size_t src_stride, double *sums, GbError * error)
{
  GbStatus status = validate (method, plane, bytes_per_sample, sigma_map,
      sigma_stride, rmax, border, src, src_stride, error);

  if (status != GB_OK)
    return status;
  if (!sums)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT, "no sums");
  return run (method, plane, bytes_per_sample, sigma_map, sigma_stride, rmax,
      border, src, src_stride, sums, error);
}

/* The weight that reaches each output: the sums of a plane of ones. */
static GbStatus
weight_sums (GbSuperpositionMethod method, const GbPlaneGeometry * plane,
    const float *sigma_map, size_t sigma_stride, int rmax, GbBorder border,
    double *weights, GbError * error)
{
  GbPlaneGeometry ones_plane = *plane;
  uint8_t *ones;
  GbStatus status;

  ones_plane.channels = 1;
  ones = malloc ((size_t) plane->width * plane->height);
  if (!ones)
    return gb_error_set (error, GB_ERROR_OUT_OF_MEMORY,
        "no memory for the weights of a %dx%d plane", plane->width,
        plane->height);
  memset (ones, 1, (size_t) plane->width * plane->height);
  status = run (method, &ones_plane, 1, sigma_map, sigma_stride, rmax,
      border, ones, plane->width, weights, error);
  free (ones);
  return status;
}

static GbStatus
superpose (GbSuperpositionMethod method, const GbPlaneGeometry * plane,
    int bytes_per_sample, const float *sigma_map, size_t sigma_stride,
    int rmax, GbBorder border, int normalize, const void *src,
    size_t src_stride, void *dst, size_t dst_stride, GbError * error)
{
  GbStatus status;
  double *sums, *weights = NULL;
  size_t row;
  int x, y;

  status = validate (method, plane, bytes_per_sample, sigma_map,
      sigma_stride, rmax, border, src, src_stride, error);
  if (status != GB_OK)
    return status;
  status = gb_plane_image_validate (plane, bytes_per_sample, border, dst,
      dst_stride, "destination", error);
  if (status != GB_OK)
    return status;

  row = (size_t) plane->width * plane->channels;
  sums = malloc (sizeof (double) * row * plane->height);
  if (normalize)
    weights = malloc (sizeof (double) * plane->width * plane->height);
  if (!sums || (normalize && !weights)) {
    free (sums);
    free (weights);
    return gb_error_set (error, GB_ERROR_OUT_OF_MEMORY,
        "no memory for the sums of a %dx%d plane", plane->width,
        plane->height);
  }
  status = run (method, plane, bytes_per_sample, sigma_map, sigma_stride,
      rmax, border, src, src_stride, sums, error);
  if (status == GB_OK && normalize)
    status = weight_sums (method, plane, sigma_map, sigma_stride, rmax,
        border, weights, error);
  if (status == GB_OK)
    for (y = 0; y < plane->height; y++) {
      uint8_t *out = (uint8_t *) dst + (size_t) y * dst_stride;
      const double *samples = sums + y * row;
      for (x = 0; x < (int) row; x++) {
        /* The output's own pixel always reaches it: the weight is > 0. */
        const double value = normalize ? samples[x]
            / weights[(size_t) y * plane->width + x / plane->channels]
            : samples[x];
        if (bytes_per_sample == 1)
          out[x] = gb_round_u8 ((float) value);
        else
          ((uint16_t *) out)[x] = gb_round_u16 ((float) value);
      }
    }
  free (sums);
  free (weights);
  return status;
}

GbStatus
gb_superposition_cpu (GbSuperpositionMethod method,
    const GbPlaneGeometry * plane, int bytes_per_sample,
    const float *sigma_map, size_t sigma_stride, int rmax, GbBorder border,
    const void *src, size_t src_stride, void *dst, size_t dst_stride,
    GbError * error)
{
  return superpose (method, plane, bytes_per_sample, sigma_map, sigma_stride,
      rmax, border, 0, src, src_stride, dst, dst_stride, error);
}

GbStatus
gb_superposition_cpu_normalized (GbSuperpositionMethod method,
    const GbPlaneGeometry * plane, int bytes_per_sample,
    const float *sigma_map, size_t sigma_stride, int rmax, GbBorder border,
    const void *src, size_t src_stride, void *dst, size_t dst_stride,
    GbError * error)
{
  return superpose (method, plane, bytes_per_sample, sigma_map, sigma_stride,
      rmax, border, 1, src, src_stride, dst, dst_stride, error);
}

/* The CPU reference backend: every algorithm of the CUDA backend, on threads.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each algorithm follows the arithmetic the CUDA kernels follow: the same
 * weights (x along rows, y along columns), gb_border_index() for every
 * sample outside the frame, float accumulation in the same order,
 * gb_round_u8() or gb_round_u16() once at the end. So the GPU output can be
 * checked against this one (at most 1 apart per sample).
 *
 * Each plane is filtered in its window (GbPlaneFilter.window), which the
 * algorithms see as their whole frame; then a finishing pass over the plane
 * sharpens the region and copies the rest of the plane from the source.
 *
 * Work is split by rows: each thread of a small persistent pool (the calling
 * thread included) takes one contiguous band of rows (the recursive filter's
 * vertical pass: one band of columns). The hot loops run over contiguous
 * floats (a border-padded copy of each source row), so the compiler
 * vectorises them. Samples are 8 or 16 bits: only the loads and stores know
 * which (a switch on bytes_per_sample, hoisted out of the loops).
 */
#include "cpu_backend.h"
#include "edge_aware.h"
#include "superposition.h"
#include "sampling.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* At most one band (thread) per online CPU, and never more than this. */
#define GB_CPU_MAX_THREADS 64
/* Multiply-adds below which one more thread costs more than it saves. */
#define GB_CPU_MIN_WORK_PER_BAND (1 << 17)
/* Floats of a row accumulated at a time, so the accumulators stay in L1. */
#define GB_CPU_STRIP 512
/* Taps added per sweep over the accumulators (the sweeps are written out
 * for four; see accumulate_taps). */
#define GB_CPU_TAPS_PER_SWEEP 4
/* Floats of each intermediate row the column pass reads at a time: the
 * 2r + 1 rows of a strip stay in L2 from one output row to the next. */
#define GB_CPU_COLUMN_STRIP 1024
/* The SHARED tile holds this many source rows padded for GB_MAX_RADIUS; at
 * smaller radii the same memory holds more (narrower) rows. */
#define GB_CPU_TILE_ROWS 8
/* Output rows per SHARED tile at most (the CUDA block height analogue). */
#define GB_CPU_SHARED_BAND_ROWS 16
/* Per-thread scratch areas start on their own cache lines (64 bytes). */
#define GB_CPU_ALIGN_FLOATS 16
/* RECURSIVE, vertical pass: columns filtered side by side per sweep down the
 * plane (their states stay in L1), and the unit the columns are shared out
 * between threads in. */
#define GB_CPU_RECURSIVE_COLUMNS 64
#define GB_CPU_RECURSIVE_COLUMN_UNIT 16
/* RECURSIVE, horizontal pass: lines (rows x channels) filtered side by side,
 * at most. */
#define GB_CPU_RECURSIVE_LANES 64
/* Per-lane state arrays of one direction: the real and imaginary parts of
 * both recursions' states, and (backwards) x[k + 1]. */
#define GB_CPU_RECURSIVE_STATES 5
/* Multiply-adds per sample and pass (2 recursions x 2 directions x 6). */
#define GB_CPU_RECURSIVE_WORK 24.0

/* The hot loops get an AVX2 clone picked at load time. Without FMA on
 * purpose: every clone then rounds exactly like the plain build. Not under
 * ThreadSanitizer: the clones' resolvers, instrumented, run while the
 * executable is relocated, before its runtime starts (the tests of a
 * -Db_sanitize=thread build died before main). */
#if defined(__x86_64__) && defined(__has_attribute) \
    && !defined(__SANITIZE_THREAD__)
#if __has_attribute(target_clones)
#define GB_CPU_HOT __attribute__((target_clones ("avx2", "default")))
#endif
#endif
#ifndef GB_CPU_HOT
#define GB_CPU_HOT
#endif

#define GB_CPU_INLINE static inline __attribute__((always_inline))

/* One plane of one frame and the parameters to blur it with. */
typedef struct
{
  const uint8_t *src;           /* the window's first sample */
  size_t src_stride;            /* bytes, as every stride here */
  uint8_t *dst;                 /* the window's first sample */
  size_t dst_stride;
  int width;                    /* the window's: the algorithms' frame */
  int height;
  int channels;
  int bytes_per_sample;         /* 1 or 2 */
  const GbAxisFilter *x;        /* along rows: radius, weights, recursive */
  const GbAxisFilter *y;        /* along columns */
  GbBorder border;
  float *intermediate;          /* SEPARABLE, RECURSIVE: height rows of
                                 * width * channels */
  size_t tile_floats;           /* SHARED: the tile at the start of the scratch */
  const GbMultiscalePlan *multiscale;   /* MULTISCALE: this plane's plan */
  int pass;                     /* MULTISCALE: which of its six passes */
  /* The finishing pass: the whole plane (same strides) and its region. */
  const uint8_t *plane_src;
  uint8_t *plane_dst;
  int plane_width;
  const GbPlaneFilter *filter;
} GbPlaneJob;

/* Blurs rows [row_begin, row_end) of a job; scratch is the band's own. */
typedef void (*GbBandFunction) (const GbPlaneJob * job, float *scratch,
    int row_begin, int row_end);

typedef struct
{
  GbBandFunction function;
  const GbPlaneJob *job;
  int rows;
  int n_bands;
  float *scratch;               /* band b uses scratch + b * scratch_floats */
  size_t scratch_floats;
} GbTask;

typedef struct
{
  GbCpu *cpu;
  int band;                     /* the band of each task this worker runs */
  pthread_t thread;
} GbWorker;

struct GbCpu
{
  GbGeometry geometry;
  int configured;

  /* One allocation: the intermediate (the largest plane, in floats), then
   * one scratch area per band: the SHARED tile (also the SEPARABLE padded
   * row and column-pass accumulator) followed by the SHARED accumulator. */
  float *buffer;
  size_t buffer_floats;
  float *intermediate;
  float *scratch;
  size_t scratch_floats;        /* per band */
  size_t tile_floats;           /* per band, at the start of its scratch */
  unsigned allocation_count;

  /* The pool: workers wait for a new generation, run their band, report. */
  pthread_mutex_t lock;
  pthread_cond_t task_ready;
  pthread_cond_t task_done;
  unsigned generation;
  int pending;
  int quit;
  GbTask task;
  int n_workers;
  GbWorker workers[GB_CPU_MAX_THREADS - 1];
};

/* --- the pool --- */

static void
run_band (const GbTask * task, int band)
{
  int row_begin = (int) ((long long) task->rows * band / task->n_bands);
  int row_end = (int) ((long long) task->rows * (band + 1) / task->n_bands);

  task->function (task->job, task->scratch + band * task->scratch_floats,
      row_begin, row_end);
}

static void *
worker_main (void *data)
{
  GbWorker *worker = data;
  GbCpu *cpu = worker->cpu;
  unsigned seen = 0;

  pthread_mutex_lock (&cpu->lock);
  for (;;) {
    while (cpu->generation == seen && !cpu->quit)
      pthread_cond_wait (&cpu->task_ready, &cpu->lock);
    if (cpu->quit)
      break;
    seen = cpu->generation;
    if (worker->band < cpu->task.n_bands) {
      GbTask task = cpu->task;
      pthread_mutex_unlock (&cpu->lock);
      run_band (&task, worker->band);
      pthread_mutex_lock (&cpu->lock);
      if (--cpu->pending == 0)
        pthread_cond_signal (&cpu->task_done);
    }
  }
  pthread_mutex_unlock (&cpu->lock);
  return NULL;
}

static int
online_cpus (void)
{
  long n = sysconf (_SC_NPROCESSORS_ONLN);
  if (n < 1)
    return 1;
  return n > GB_CPU_MAX_THREADS ? GB_CPU_MAX_THREADS : (int) n;
}

/* Starts one worker per online CPU beyond the calling thread. A worker that
 * cannot be started is not an error: its bands never exist, and with none
 * the calling thread does all the work. */
static void
start_workers (GbCpu * cpu)
{
  int wanted = online_cpus () - 1;
  int i;

  for (i = 0; i < wanted; i++) {
    GbWorker *worker = &cpu->workers[i];
    worker->cpu = cpu;
    worker->band = i + 1;       /* band 0 is the calling thread's */
    if (pthread_create (&worker->thread, NULL, worker_main, worker) != 0)
      break;
    cpu->n_workers++;
  }
}

static void
stop_workers (GbCpu * cpu)
{
  int i;

  pthread_mutex_lock (&cpu->lock);
  cpu->quit = 1;
  pthread_cond_broadcast (&cpu->task_ready);
  pthread_mutex_unlock (&cpu->lock);
  for (i = 0; i < cpu->n_workers; i++)
    pthread_join (cpu->workers[i].thread, NULL);
  cpu->n_workers = 0;
}

/* As many bands as threads, unless the image is too small to share out. */
static int
band_count (const GbCpu * cpu, int rows, double work_per_row)
{
  double work = work_per_row * rows;
  int n = cpu->n_workers + 1;

  if (n > rows)
    n = rows;
  if (work < (double) n * GB_CPU_MIN_WORK_PER_BAND)
    n = (int) (work / GB_CPU_MIN_WORK_PER_BAND);
  return n < 1 ? 1 : n;
}

/* Runs function over rows [0, rows) in n_bands bands and waits for all. */
static void
run_bands (GbCpu * cpu, GbBandFunction function, const GbPlaneJob * job,
    int rows, int n_bands)
{
  GbTask task = { function, job, rows, n_bands, cpu->scratch,
    cpu->scratch_floats
  };

  if (n_bands > 1) {
    pthread_mutex_lock (&cpu->lock);
    cpu->task = task;
    cpu->pending = n_bands - 1;
    cpu->generation++;
    pthread_cond_broadcast (&cpu->task_ready);
    pthread_mutex_unlock (&cpu->lock);
  }
  run_band (&task, 0);
  if (n_bands > 1) {
    pthread_mutex_lock (&cpu->lock);
    while (cpu->pending > 0)
      pthread_cond_wait (&cpu->task_done, &cpu->lock);
    pthread_mutex_unlock (&cpu->lock);
  }
}

/* --- samples --- */

/* Sample i of a row (bytes) of bytes_per_sample-byte samples. */
GB_CPU_INLINE float
load_sample (const uint8_t * row, size_t i, int bytes_per_sample)
{
  return bytes_per_sample == 1 ? (float) row[i]
      : (float) ((const uint16_t *) row)[i];
}

GB_CPU_INLINE void
store_sample (uint8_t * row, size_t i, float value, int bytes_per_sample)
{
  if (bytes_per_sample == 1)
    row[i] = gb_round_u8 (value);
  else
    ((uint16_t *) row)[i] = gb_round_u16 (value);
}

/* out[i] = sample i of row, for i in [0, n). */
GB_CPU_INLINE void
load_samples (float *restrict out, const uint8_t * restrict row, size_t n,
    int bytes_per_sample)
{
  size_t i;

  if (bytes_per_sample == 1) {
    for (i = 0; i < n; i++)
      out[i] = row[i];
  } else {
    const uint16_t *restrict row16 = (const uint16_t *) row;
    for (i = 0; i < n; i++)
      out[i] = row16[i];
  }
}

/* --- rows of floats --- */

static void
fill_border_pixel (float *pixel, const uint8_t * row, int source_x,
    int channels, int bytes_per_sample)
{
  int c;

  for (c = 0; c < channels; c++)
    pixel[c] = source_x < 0 ? 0.0f : load_sample (row,
        (size_t) source_x * channels + c, bytes_per_sample);
}

/* Converts one source row to floats with x.radius border pixels each side,
 * so the convolution reads it without bounds checks. */
static void
fill_padded_row (float *padded, const uint8_t * row, const GbPlaneJob * job)
{
  const int channels = job->channels;
  const int radius = job->x->radius;
  float *interior = padded + (size_t) radius * channels;
  int x;

  load_samples (interior, row, (size_t) job->width * channels,
      job->bytes_per_sample);
  for (x = -radius; x < 0; x++)
    fill_border_pixel (padded + (size_t) (x + radius) * channels, row,
        gb_border_index (x, job->width, job->border), channels,
        job->bytes_per_sample);
  for (x = job->width; x < job->width + radius; x++)
    fill_border_pixel (padded + (size_t) (x + radius) * channels, row,
        gb_border_index (x, job->width, job->border), channels,
        job->bytes_per_sample);
}

/* A padded row for any row index; rows outside a zero border are all 0. */
static void
fill_tile_row (float *padded, int y, const GbPlaneJob * job)
{
  int source_y = gb_border_index (y, job->height, job->border);

  if (source_y < 0) {
    memset (padded, 0, sizeof (float) * (size_t) (job->width
            + 2 * job->x->radius) * job->channels);
    return;
  }
  fill_padded_row (padded, job->src + (size_t) source_y * job->src_stride, job);
}

/* acc[i] += taps[k] * in[i + k * tap_step] for k = 0 .. n_taps - 1 in order,
 * strip by strip so acc stays in L1. Four taps per sweep over the strip
 * (written out, so the additions keep their order) load and store acc once
 * for four multiply-adds. */
GB_CPU_HOT static void
accumulate_taps (float *restrict acc, const float *restrict in, size_t n,
    const float *restrict taps, int n_taps, size_t tap_step)
{
  size_t start, i;
  int k;

  for (start = 0; start < n; start += GB_CPU_STRIP) {
    const size_t len = n - start < GB_CPU_STRIP ? n - start : GB_CPU_STRIP;
    float *restrict out = acc + start;
    const float *restrict s0 = in + start;
    for (k = 0; k + GB_CPU_TAPS_PER_SWEEP <= n_taps;
        k += GB_CPU_TAPS_PER_SWEEP) {
      const float w0 = taps[k], w1 = taps[k + 1];
      const float w2 = taps[k + 2], w3 = taps[k + 3];
      const float *restrict s = s0 + k * tap_step;
      for (i = 0; i < len; i++)
        out[i] = out[i] + w0 * s[i] + w1 * s[i + tap_step]
            + w2 * s[i + 2 * tap_step] + w3 * s[i + 3 * tap_step];
    }
    for (; k < n_taps; k++) {
      const float w = taps[k];
      const float *restrict s = s0 + k * tap_step;
      for (i = 0; i < len; i++)
        out[i] += w * s[i];
    }
  }
}

/* acc[i] += weights[k] * rows[k][i] for k = 0 .. n_rows - 1 in order, four
 * rows per sweep as above. */
GB_CPU_HOT static void
accumulate_rows (float *restrict acc, const float *const *rows,
    const float *restrict weights, int n_rows, size_t n)
{
  size_t i;
  int k;

  for (k = 0; k + GB_CPU_TAPS_PER_SWEEP <= n_rows;
      k += GB_CPU_TAPS_PER_SWEEP) {
    const float w0 = weights[k], w1 = weights[k + 1];
    const float w2 = weights[k + 2], w3 = weights[k + 3];
    const float *restrict r0 = rows[k], *restrict r1 = rows[k + 1];
    const float *restrict r2 = rows[k + 2], *restrict r3 = rows[k + 3];
    for (i = 0; i < n; i++)
      acc[i] = acc[i] + w0 * r0[i] + w1 * r1[i] + w2 * r2[i] + w3 * r3[i];
  }
  for (; k < n_rows; k++) {
    const float w = weights[k];
    const float *restrict row = rows[k];
    for (i = 0; i < n; i++)
      acc[i] += w * row[i];
  }
}

/* The separable passes' kernel is symmetric (w[k] = w[2r - k]), so each pair
 * of taps costs one multiply: acc[i] = w[r] c[i] + sum_k w[k] (a_k[i] +
 * b_k[i]), with c the centre and a_k, b_k the samples k taps before and
 * after it. A quarter fewer operations than tap by tap; the sum's order
 * differs from the GPU's, within float rounding (the outputs agree within
 * one level, as the parity tests require). */
GB_CPU_HOT static void
accumulate_symmetric_taps (float *restrict acc, const float *restrict in,
    size_t n, const float *restrict taps, int radius, size_t tap_step)
{
  size_t start, i;
  int k;

  for (start = 0; start < n; start += GB_CPU_STRIP) {
    const size_t len = n - start < GB_CPU_STRIP ? n - start : GB_CPU_STRIP;
    float *restrict out = acc + start;
    const float *restrict centre = in + start + radius * tap_step;
    const float wc = taps[radius];
    for (i = 0; i < len; i++)
      out[i] = wc * centre[i];
    for (k = 1; k + 1 <= radius; k += 2) {
      const float w1 = taps[radius - k], w2 = taps[radius - k - 1];
      const float *restrict a1 = centre - k * tap_step;
      const float *restrict b1 = centre + k * tap_step;
      const float *restrict a2 = a1 - tap_step, *restrict b2 = b1 + tap_step;
      for (i = 0; i < len; i++)
        out[i] = out[i] + w1 * (a1[i] + b1[i]) + w2 * (a2[i] + b2[i]);
    }
    for (; k <= radius; k++) {
      const float w = taps[radius - k];
      const float *restrict a = centre - k * tap_step;
      const float *restrict b = centre + k * tap_step;
      for (i = 0; i < len; i++)
        out[i] += w * (a[i] + b[i]);
    }
  }
}

/* The same for the column pass: rows[radius] is the centre row. */
GB_CPU_HOT static void
accumulate_symmetric_rows (float *restrict acc, const float *const *rows,
    const float *restrict weights, int radius, size_t n)
{
  const float *restrict centre = rows[radius];
  const float wc = weights[radius];
  size_t i;
  int k;

  for (i = 0; i < n; i++)
    acc[i] = wc * centre[i];
  for (k = 1; k + 1 <= radius; k += 2) {
    const float w1 = weights[radius - k], w2 = weights[radius - k - 1];
    const float *restrict a1 = rows[radius - k], *restrict b1 =
        rows[radius + k];
    const float *restrict a2 = rows[radius - k - 1], *restrict b2 =
        rows[radius + k + 1];
    for (i = 0; i < n; i++)
      acc[i] = acc[i] + w1 * (a1[i] + b1[i]) + w2 * (a2[i] + b2[i]);
  }
  for (; k <= radius; k++) {
    const float w = weights[radius - k];
    const float *restrict a = rows[radius - k], *restrict b = rows[radius + k];
    for (i = 0; i < n; i++)
      acc[i] += w * (a[i] + b[i]);
  }
}

/* Rounds n floats into the samples of out (bytes). */
GB_CPU_HOT static void
round_row (uint8_t * restrict out, const float *restrict acc, size_t n,
    int bytes_per_sample)
{
  size_t i;

  if (bytes_per_sample == 1) {
    for (i = 0; i < n; i++)
      out[i] = gb_round_u8 (acc[i]);
  } else {
    uint16_t *restrict out16 = (uint16_t *) out;
    for (i = 0; i < n; i++)
      out16[i] = gb_round_u16 (acc[i]);
  }
}

/* Buffers inside the scratch start on GB_CPU_ALIGN_FLOATS boundaries. */
static size_t
align_floats (size_t n)
{
  return (n + GB_CPU_ALIGN_FLOATS - 1) / GB_CPU_ALIGN_FLOATS
      * GB_CPU_ALIGN_FLOATS;
}

/* --- NAIVE: the direct 2D sum, every sample through gb_border_index --- */

/* Inlined with a constant bytes_per_sample, so each sample size gets its own
 * loop without a switch per sample. */
GB_CPU_INLINE void
naive_pixel (const GbPlaneJob * job, int x, int y, float *acc,
    int bytes_per_sample)
{
  const int radius_x = job->x->radius;
  const int radius_y = job->y->radius;
  const int channels = job->channels;
  const float *wx = job->x->weights;
  const float *wy = job->y->weights;
  /* Away from the left and right edges no column needs the border rule. */
  const int interior = x >= radius_x && x < job->width - radius_x;
  int dx, dy, c;

  for (dy = -radius_y; dy <= radius_y; dy++) {
    int source_y = gb_border_index (y + dy, job->height, job->border);
    float row_acc[GB_MAX_CHANNELS] = { 0.0f, 0.0f, 0.0f, 0.0f };
    const uint8_t *row;
    if (source_y < 0)
      continue;
    row = job->src + (size_t) source_y * job->src_stride;
    /* Each row summed apart, then weighted: see shared_tile. */
    for (dx = -radius_x; dx <= radius_x; dx++) {
      int source_x = interior ? x + dx
          : gb_border_index (x + dx, job->width, job->border);
      if (source_x < 0)
        continue;
      for (c = 0; c < channels; c++)
        row_acc[c] += wx[dx + radius_x] * load_sample (row,
            (size_t) source_x * channels + c, bytes_per_sample);
    }
    for (c = 0; c < channels; c++)
      acc[c] += wy[dy + radius_y] * row_acc[c];
  }
}

GB_CPU_INLINE void
naive_row (const GbPlaneJob * job, int y, int bytes_per_sample)
{
  uint8_t *out = job->dst + (size_t) y * job->dst_stride;
  int x, c;

  for (x = 0; x < job->width; x++) {
    float acc[GB_MAX_CHANNELS] = { 0.0f, 0.0f, 0.0f, 0.0f };
    naive_pixel (job, x, y, acc, bytes_per_sample);
    for (c = 0; c < job->channels; c++)
      store_sample (out, (size_t) x * job->channels + c, acc[c],
          bytes_per_sample);
  }
}

static void
naive_band (const GbPlaneJob * job, float *scratch, int row_begin, int row_end)
{
  int y;

  (void) scratch;
  for (y = row_begin; y < row_end; y++) {
    if (job->bytes_per_sample == 1)
      naive_row (job, y, 1);
    else
      naive_row (job, y, 2);
  }
}

/* --- SHARED: the 2D sum from a padded tile (the shared-memory analogue) ---
 *
 * A tile is a band of output rows and the source rows around it, border
 * applied once while filling. When the y radius is too large for all
 * 2 ry + 1 kernel rows to fit, the kernel rows go through the tile in
 * chunks, each adding to the float accumulator: every sum keeps NAIVE's
 * order (dy outer, dx inner). Each kernel row is summed apart, then
 * weighted and added: one running sum of (2 rx + 1)(2 ry + 1) products
 * drifts by 2 16-bit levels at radius 105, two sums of 2 r + 1 do not. */

static void
shared_tile (const GbPlaneJob * job, float *tile, size_t padded_floats,
    float *acc, int y0, int band_rows, int chunk_taps)
{
  const int radius_y = job->y->radius;
  const int n_taps_x = 2 * job->x->radius + 1;
  const size_t row_samples = (size_t) job->width * job->channels;
  /* after the band's accumulators (scratch sized in gb_cpu_configure) */
  float *row_acc = acc + align_floats (GB_CPU_SHARED_BAND_ROWS * row_samples);
  size_t i;
  int dy0, dy, j, t;

  memset (acc, 0, sizeof (float) * row_samples * band_rows);
  for (dy0 = -radius_y; dy0 <= radius_y; dy0 += chunk_taps) {
    int chunk = radius_y + 1 - dy0 < chunk_taps ? radius_y + 1 - dy0
        : chunk_taps;
    /* Tile row t is source row y0 + dy0 + t. */
    for (t = 0; t < band_rows + chunk - 1; t++)
      fill_tile_row (tile + t * padded_floats, y0 + dy0 + t, job);
    for (dy = dy0; dy < dy0 + chunk; dy++) {
      const float weight_y = job->y->weights[dy + radius_y];
      for (j = 0; j < band_rows; j++) {
        float *restrict out = acc + j * row_samples;
        memset (row_acc, 0, sizeof (float) * row_samples);
        accumulate_taps (row_acc, tile + (j + dy - dy0) * padded_floats,
            row_samples, job->x->weights, n_taps_x, job->channels);
        for (i = 0; i < row_samples; i++)
          out[i] = out[i] + weight_y * row_acc[i];
      }
    }
  }
  for (j = 0; j < band_rows; j++)
    round_row (job->dst + (size_t) (y0 + j) * job->dst_stride,
        acc + j * row_samples, row_samples, job->bytes_per_sample);
}

static void
shared_band (const GbPlaneJob * job, float *scratch, int row_begin,
    int row_end)
{
  const int radius_y = job->y->radius;
  const size_t padded_floats =
      (size_t) (job->width + 2 * job->x->radius) * job->channels;
  const int tile_rows = (int) (job->tile_floats / padded_floats);
  int band_rows = tile_rows - 2 * radius_y;
  int chunk_taps;
  int y0;

  if (band_rows > GB_CPU_SHARED_BAND_ROWS)
    band_rows = GB_CPU_SHARED_BAND_ROWS;
  if (band_rows < 1)
    band_rows = 1;
  chunk_taps = tile_rows - band_rows + 1;
  if (chunk_taps > 2 * radius_y + 1)
    chunk_taps = 2 * radius_y + 1;

  for (y0 = row_begin; y0 < row_end; y0 += band_rows) {
    int rows = row_end - y0 < band_rows ? row_end - y0 : band_rows;
    shared_tile (job, scratch, padded_floats, scratch + job->tile_floats,
        y0, rows, chunk_taps);
  }
}

/* --- SEPARABLE: row pass (x) into the intermediate, column pass (y) --- */

static void
row_pass_band (const GbPlaneJob * job, float *scratch, int row_begin,
    int row_end)
{
  const size_t row_samples = (size_t) job->width * job->channels;
  float *padded = scratch;
  int y;

  for (y = row_begin; y < row_end; y++) {
    float *inter = job->intermediate + (size_t) y * row_samples;
    fill_padded_row (padded, job->src + (size_t) y * job->src_stride, job);
    accumulate_symmetric_taps (inter, padded, row_samples, job->x->weights,
        job->x->radius, job->channels);
  }
}

/* Strip by strip (outer), so the 2 ry + 1 intermediate rows an output row
 * reads are mostly those the previous output row read, still in cache. */
static void
column_pass_band (const GbPlaneJob * job, float *scratch, int row_begin,
    int row_end)
{
  const int radius = job->y->radius;
  const size_t row_samples = (size_t) job->width * job->channels;
  const size_t sample_bytes = (size_t) job->bytes_per_sample;
  const float *rows[2 * GB_MAX_RADIUS + 1];
  float weights[2 * GB_MAX_RADIUS + 1];
  float *acc = scratch;
  size_t start;
  int y, k;

  for (start = 0; start < row_samples; start += GB_CPU_COLUMN_STRIP) {
    size_t len = row_samples - start < GB_CPU_COLUMN_STRIP
        ? row_samples - start : GB_CPU_COLUMN_STRIP;
    for (y = row_begin; y < row_end; y++) {
      int n_rows = 0;
      /* Rows outside a zero border are left out: their terms are 0. */
      for (k = -radius; k <= radius; k++) {
        int source_y = gb_border_index (y + k, job->height, job->border);
        if (source_y < 0)
          continue;
        rows[n_rows] = job->intermediate + (size_t) source_y * row_samples
            + start;
        weights[n_rows++] = job->y->weights[k + radius];
      }
      if (n_rows == 2 * radius + 1) {
        accumulate_symmetric_rows (acc, rows, weights, radius, len);
      } else {
        memset (acc, 0, sizeof (float) * len);
        accumulate_rows (acc, rows, weights, n_rows, len);
      }
      round_row (job->dst + (size_t) y * job->dst_stride
          + start * sample_bytes, acc, len, job->bytes_per_sample);
    }
  }
}

/* --- RECURSIVE: the 4th-order recursive Gaussian (recursive.h) ---
 *
 * "Algorithm A": every column of the plane filtered whole with the y filter
 * (source samples into the float intermediate), then every row with the x
 * filter, per channel (intermediate into the destination samples). Each
 * line runs the two recursions forward, then the two backward; the output
 * is ((causal 0 + causal 1) + anticausal 0) + anticausal 1 (real parts), in
 * float, with the start-up rule of recursive.h: a direction starts `warmup`
 * samples outside the line, from the steady state of the constant x_ext
 * there. An axis of sigma 0 has the identity filter (warmup 0): its pass
 * copies exactly.
 *
 * A recursion is serial along its line, so the hot loops run across lines:
 * the vertical pass takes up to GB_CPU_RECURSIVE_COLUMNS neighbouring columns
 * side by side (one source row at a time, the per-column states in arrays),
 * the horizontal pass up to GB_CPU_RECURSIVE_LANES lines (rows x channels),
 * gathered one sample of each at a time into a contiguous vector of lanes.
 *
 * Under a zero border the warm-up reads zeros from a zero state, which stays
 * exactly zero, so it is skipped: the result is the same. */

/* The start state for the constant input x[j] on every lane: each
 * recursion's steady state gain * x[j] (gain_re, gain_im: the direction's),
 * and x[j] as the backward direction's previous input. */
GB_CPU_INLINE void
recursive_start (float *restrict re_0, float *restrict im_0,
    float *restrict re_1, float *restrict im_1, float *restrict x1,
    const float *restrict x, size_t lanes, const float *gain_re,
    const float *gain_im)
{
  const float g0 = gain_re[0], h0 = gain_im[0];
  const float g1 = gain_re[1], h1 = gain_im[1];
  size_t j;

  for (j = 0; j < lanes; j++) {
    re_0[j] = g0 * x[j];
    im_0[j] = h0 * x[j];
    re_1[j] = g1 * x[j];
    im_1[j] = h1 * x[j];
    x1[j] = x[j];
  }
}

/* A direction's constants, copied out of the filter before a loop over
 * lanes (a store into a state array could otherwise alias them, and the
 * loop would not vectorise). */
typedef struct
{
  float b_re[2], b_im[2];       /* poles */
  float w_re[2], w_im[2];       /* input weights */
} GbRecursions;

static inline GbRecursions
recursions (const GbRecursiveFilter * f, int anticausal)
{
  GbRecursions r;
  int s;

  for (s = 0; s < 2; s++) {
    r.b_re[s] = f->pole_re[s];
    r.b_im[s] = f->pole_im[s];
    r.w_re[s] = anticausal ? f->anticausal_re[s] : f->causal_re[s];
    r.w_im[s] = anticausal ? f->anticausal_im[s] : f->causal_im[s];
  }
  return r;
}

/* z_s <- b_s z_s + w_s x (complex, z_s = re_s[j] + i im_s[j]) for both
 * recursions s of lane j: a step in either direction. */
GB_CPU_INLINE void
recursions_step (const GbRecursions r, float *restrict re_0,
    float *restrict im_0, float *restrict re_1, float *restrict im_1,
    size_t j, float x)
{
  const float r0 = re_0[j], i0 = im_0[j], r1 = re_1[j], i1 = im_1[j];

  re_0[j] = r.b_re[0] * r0 - r.b_im[0] * i0 + r.w_re[0] * x;
  im_0[j] = r.b_re[0] * i0 + r.b_im[0] * r0 + r.w_im[0] * x;
  re_1[j] = r.b_re[1] * r1 - r.b_im[1] * i1 + r.w_re[1] * x;
  im_1[j] = r.b_re[1] * i1 + r.b_im[1] * r1 + r.w_im[1] * x;
}

/* One forward step on every lane: z_s[k] = b_s z_s[k-1] + a_s x[k];
 * out[j] = Re z_0[k] + Re z_1[k] (out NULL in the warm-up). */
GB_CPU_INLINE void
causal_step (const GbRecursiveFilter * f, float *restrict re_0,
    float *restrict im_0, float *restrict re_1, float *restrict im_1,
    const float *restrict x, float *restrict out, size_t lanes)
{
  const GbRecursions r = recursions (f, 0);
  size_t j;

  for (j = 0; j < lanes; j++) {
    recursions_step (r, re_0, im_0, re_1, im_1, j, x[j]);
    if (out)
      out[j] = re_0[j] + re_1[j];
  }
}

/* One backward step: w_s[k] = b_s w_s[k+1] + (a_s b_s) x[k+1]; y = (io[j] +
 * Re w_0[k]) + Re w_1[k], io holding the forward sum, goes back into io, or
 * rounded into sample j of `samples` (bytes_per_sample, a constant where
 * inlined) when samples is given (io NULL: the warm-up). x1 holds x[k+1]
 * and takes x[k]. */
GB_CPU_INLINE void
anticausal_step (const GbRecursiveFilter * f, float *restrict re_0,
    float *restrict im_0, float *restrict re_1, float *restrict im_1,
    float *restrict x1, const float *restrict x, float *restrict io,
    uint8_t * restrict samples, int bytes_per_sample, size_t lanes)
{
  const GbRecursions r = recursions (f, 1);
  size_t j;

  for (j = 0; j < lanes; j++) {
    recursions_step (r, re_0, im_0, re_1, im_1, j, x1[j]);
    x1[j] = x[j];
    if (io && samples && bytes_per_sample == 1)
      samples[j] = gb_round_u8 (io[j] + re_0[j] + re_1[j]);
    else if (io && samples)
      ((uint16_t *) samples)[j] = gb_round_u16 (io[j] + re_0[j] + re_1[j]);
    else if (io)
      io[j] = io[j] + re_0[j] + re_1[j];
  }
}

/* The scratch of one band: x (the input lanes of a step), the five state
 * arrays, each `stride` floats, then (horizontal pass) the lines' forward
 * sums and their rounded outputs. */
typedef struct
{
  float *x, *re_0, *im_0, *re_1, *im_1, *x1;
  float *sums;
} GbRecursiveScratch;

static GbRecursiveScratch
recursive_scratch (float *scratch, size_t stride)
{
  GbRecursiveScratch r;

  r.x = scratch;
  r.re_0 = scratch + stride;
  r.im_0 = scratch + 2 * stride;
  r.re_1 = scratch + 3 * stride;
  r.im_1 = scratch + 4 * stride;
  r.x1 = scratch + 5 * stride;
  r.sums = scratch + (GB_CPU_RECURSIVE_STATES + 1) * stride;
  return r;
}

/* Row k of x_ext, columns (samples) [j0, j0 + len), as floats. */
GB_CPU_INLINE void
recursive_load_row (float *restrict x, const GbPlaneJob * job, int k,
    size_t j0, size_t len)
{
  const int source = gb_border_index (k, job->height, job->border);

  if (source < 0) {
    memset (x, 0, sizeof (float) * len);
    return;
  }
  load_samples (x, job->src + (size_t) source * job->src_stride
      + j0 * job->bytes_per_sample, len, job->bytes_per_sample);
}

/* The vertical pass over columns [j0, j0 + len): forward sums into the
 * intermediate, then the backward recursions added to them in place. */
GB_CPU_HOT static void
recursive_columns (const GbPlaneJob * job, float *scratch, size_t j0,
    size_t len)
{
  const GbRecursiveFilter *f = &job->y->recursive;
  const int n = job->height;
  const int warmup = f->warmup;
  const int skip_warmup = job->border == GB_BORDER_ZERO;
  const size_t row_samples = (size_t) job->width * job->channels;
  float *const inter = job->intermediate + j0;
  GbRecursiveScratch r = recursive_scratch (scratch,
      GB_CPU_RECURSIVE_COLUMNS);
  int k;

  recursive_load_row (r.x, job, -warmup, j0, len);
  recursive_start (r.re_0, r.im_0, r.re_1, r.im_1, r.x1, r.x, len,
      f->causal_gain_re, f->causal_gain_im);
  for (k = skip_warmup ? 0 : -warmup; k < 0; k++) {
    recursive_load_row (r.x, job, k, j0, len);
    causal_step (f, r.re_0, r.im_0, r.re_1, r.im_1, r.x, NULL, len);
  }
  for (k = 0; k < n; k++) {
    recursive_load_row (r.x, job, k, j0, len);
    causal_step (f, r.re_0, r.im_0, r.re_1, r.im_1, r.x,
        inter + (size_t) k * row_samples, len);
  }

  recursive_load_row (r.x, job, n - 1 + warmup, j0, len);
  recursive_start (r.re_0, r.im_0, r.re_1, r.im_1, r.x1, r.x, len,
      f->anticausal_gain_re, f->anticausal_gain_im);
  for (k = skip_warmup ? n - 1 : n - 1 + warmup; k >= n; k--) {
    recursive_load_row (r.x, job, k, j0, len);
    anticausal_step (f, r.re_0, r.im_0, r.re_1, r.im_1, r.x1, r.x,
        NULL, NULL, 1, len);
  }
  for (k = n - 1; k >= 0; k--) {
    recursive_load_row (r.x, job, k, j0, len);
    anticausal_step (f, r.re_0, r.im_0, r.re_1, r.im_1, r.x1, r.x,
        inter + (size_t) k * row_samples, NULL, 1, len);
  }
}

/* Columns are shared out in units of GB_CPU_RECURSIVE_COLUMN_UNIT. */
static void
recursive_column_band (const GbPlaneJob * job, float *scratch,
    int unit_begin, int unit_end)
{
  const size_t row_samples = (size_t) job->width * job->channels;
  size_t j = (size_t) unit_begin * GB_CPU_RECURSIVE_COLUMN_UNIT;
  size_t end = (size_t) unit_end * GB_CPU_RECURSIVE_COLUMN_UNIT;

  if (end > row_samples)
    end = row_samples;
  for (; j < end; j += GB_CPU_RECURSIVE_COLUMNS)
    recursive_columns (job, scratch, j, end - j < GB_CPU_RECURSIVE_COLUMNS
        ? end - j : GB_CPU_RECURSIVE_COLUMNS);
}

/* Rows of one horizontal block: GB_CPU_RECURSIVE_LANES lines at most. */
static int
recursive_block_rows (int channels)
{
  return GB_CPU_RECURSIVE_LANES / channels;
}

/* Sample k of x_ext of every line of rows [y0, y0 + rows) of the
 * intermediate: lane r * channels + c. */
GB_CPU_INLINE void
recursive_gather (float *restrict x, const GbPlaneJob * job, int y0,
    int rows, int k)
{
  const int channels = job->channels;
  const int source = gb_border_index (k, job->width, job->border);
  const size_t row_samples = (size_t) job->width * channels;
  const float *restrict in;
  int r, c;

  if (source < 0) {
    memset (x, 0, sizeof (float) * rows * channels);
    return;
  }
  in = job->intermediate + (size_t) y0 * row_samples
      + (size_t) source * channels;
  switch (channels) {
    case 1:
      for (r = 0; r < rows; r++)
        x[r] = in[r * row_samples];
      break;
    case 4:
      for (r = 0; r < rows; r++)
        for (c = 0; c < 4; c++)
          x[r * 4 + c] = in[r * row_samples + c];
      break;
    default:
      for (r = 0; r < rows; r++)
        for (c = 0; c < channels; c++)
          x[r * channels + c] = in[r * row_samples + c];
      break;
  }
}

/* The horizontal pass over rows [y0, y0 + rows): all their lines side by
 * side, forward sums into the scratch, then the backward recursions added and
 * rounded, then copied into the destination rows. Inlined into one function
 * per sample size (bytes_per_sample constant). */
GB_CPU_INLINE void
recursive_rows (const GbPlaneJob * job, float *scratch, int y0, int rows,
    int bytes_per_sample)
{
  const GbRecursiveFilter *f = &job->x->recursive;
  const int n = job->width;
  const int channels = job->channels;
  const size_t lanes = (size_t) rows * channels;
  const int warmup = f->warmup;
  const int skip_warmup = job->border == GB_BORDER_ZERO;
  GbRecursiveScratch r = recursive_scratch (scratch, GB_CPU_RECURSIVE_LANES);
  /* The rounded outputs, after the forward sums of the largest block. */
  uint8_t *const samples = (uint8_t *) (r.sums + (size_t) n
      * recursive_block_rows (channels) * channels);
  const size_t pixel_bytes = (size_t) channels * bytes_per_sample;
  const size_t lane_bytes = lanes * bytes_per_sample;
  int k, row, c;

  recursive_gather (r.x, job, y0, rows, -warmup);
  recursive_start (r.re_0, r.im_0, r.re_1, r.im_1, r.x1, r.x, lanes,
      f->causal_gain_re, f->causal_gain_im);
  for (k = skip_warmup ? 0 : -warmup; k < 0; k++) {
    recursive_gather (r.x, job, y0, rows, k);
    causal_step (f, r.re_0, r.im_0, r.re_1, r.im_1, r.x, NULL, lanes);
  }
  for (k = 0; k < n; k++) {
    recursive_gather (r.x, job, y0, rows, k);
    causal_step (f, r.re_0, r.im_0, r.re_1, r.im_1, r.x,
        r.sums + (size_t) k * lanes, lanes);
  }

  recursive_gather (r.x, job, y0, rows, n - 1 + warmup);
  recursive_start (r.re_0, r.im_0, r.re_1, r.im_1, r.x1, r.x, lanes,
      f->anticausal_gain_re, f->anticausal_gain_im);
  for (k = skip_warmup ? n - 1 : n - 1 + warmup; k >= n; k--) {
    recursive_gather (r.x, job, y0, rows, k);
    anticausal_step (f, r.re_0, r.im_0, r.re_1, r.im_1, r.x1, r.x,
        NULL, NULL, bytes_per_sample, lanes);
  }
  for (k = n - 1; k >= 0; k--) {
    recursive_gather (r.x, job, y0, rows, k);
    anticausal_step (f, r.re_0, r.im_0, r.re_1, r.im_1, r.x1, r.x,
        r.sums + (size_t) k * lanes, samples + (size_t) k * lane_bytes,
        bytes_per_sample, lanes);
  }

  /* The rounded lines, lane by lane, back into the rows. */
  for (row = 0; row < rows; row++) {
    uint8_t *restrict out = job->dst + (size_t) (y0 + row) * job->dst_stride;
    const uint8_t *restrict in = samples + (size_t) row * pixel_bytes;
    if (bytes_per_sample == 2) {
      for (k = 0; k < n; k++)
        memcpy (out + k * pixel_bytes, in + (size_t) k * lane_bytes,
            pixel_bytes);
      continue;
    }
    switch (channels) {
      case 1:
        for (k = 0; k < n; k++)
          out[k] = in[(size_t) k * lanes];
        break;
      case 4:
        for (k = 0; k < n; k++)
          memcpy (out + 4 * k, in + (size_t) k * lanes, 4);
        break;
      default:
        for (k = 0; k < n; k++)
          for (c = 0; c < channels; c++)
            out[k * channels + c] = in[(size_t) k * lanes + c];
        break;
    }
  }
}

GB_CPU_HOT static void
recursive_rows_u8 (const GbPlaneJob * job, float *scratch, int y0, int rows)
{
  recursive_rows (job, scratch, y0, rows, 1);
}

GB_CPU_HOT static void
recursive_rows_u16 (const GbPlaneJob * job, float *scratch, int y0, int rows)
{
  recursive_rows (job, scratch, y0, rows, 2);
}

static void
recursive_row_band (const GbPlaneJob * job, float *scratch, int row_begin,
    int row_end)
{
  const int block = recursive_block_rows (job->channels);
  int y;

  for (y = row_begin; y < row_end; y += block) {
    const int rows = row_end - y < block ? row_end - y : block;
    if (job->bytes_per_sample == 1)
      recursive_rows_u8 (job, scratch, y, rows);
    else
      recursive_rows_u16 (job, scratch, y, rows);
  }
}

/* Floats of band scratch the recursive passes need for a plane (or any
 * window of it). */
static uint64_t
recursive_scratch_floats (const GbPlaneGeometry * plane, int bytes_per_sample)
{
  uint64_t columns = (GB_CPU_RECURSIVE_STATES + 1)
      * (uint64_t) GB_CPU_RECURSIVE_COLUMNS;
  uint64_t lines = (uint64_t) plane->width
      * recursive_block_rows (plane->channels) * plane->channels;
  /* x and the states, the forward sums (floats), the outputs (samples). */
  uint64_t rows = (GB_CPU_RECURSIVE_STATES + 1)
      * (uint64_t) GB_CPU_RECURSIVE_LANES + lines
      + (lines * bytes_per_sample + 3) / 4;
  return columns > rows ? columns : rows;
}

/* --- the backend --- */

GbStatus
gb_cpu_create (GbCpu ** out, GbError * error)
{
  GbCpu *cpu;

  if (!out)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "no CPU backend pointer");
  *out = NULL;
  cpu = calloc (1, sizeof *cpu);
  if (!cpu)
    return gb_error_set (error, GB_ERROR_OUT_OF_MEMORY,
        "cannot allocate the CPU backend");
  if (pthread_mutex_init (&cpu->lock, NULL) != 0) {
    free (cpu);
    return gb_error_set (error, GB_ERROR_OUT_OF_MEMORY,
        "cannot create the CPU backend's lock");
  }
  if (pthread_cond_init (&cpu->task_ready, NULL) != 0) {
    pthread_mutex_destroy (&cpu->lock);
    free (cpu);
    return gb_error_set (error, GB_ERROR_OUT_OF_MEMORY,
        "cannot create the CPU backend's condition");
  }
  if (pthread_cond_init (&cpu->task_done, NULL) != 0) {
    pthread_cond_destroy (&cpu->task_ready);
    pthread_mutex_destroy (&cpu->lock);
    free (cpu);
    return gb_error_set (error, GB_ERROR_OUT_OF_MEMORY,
        "cannot create the CPU backend's condition");
  }
  start_workers (cpu);
  *out = cpu;
  return GB_OK;
}

/* The one buffer is sized for the geometry only (never for the radius: any
 * radius up to GB_MAX_RADIUS fits), so parameter changes never reallocate.
 * It is reallocated when a new geometry needs a different size, smaller
 * included, so a stream that shrinks gives its memory back. */
GbStatus
gb_cpu_configure (GbCpu * cpu, const GbGeometry * geometry, GbError * error)
{
  uint64_t plane_floats = 0, row_floats = 0, padded_floats = 0;
  uint64_t recursive_floats = 0;
  uint64_t tile_floats, scratch_floats, total;
  GbStatus status;
  int p;

  if (!cpu)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "no CPU backend");
  status = gb_geometry_validate (geometry, error);
  if (status != GB_OK)
    return status;

  for (p = 0; p < geometry->n_planes; p++) {
    const GbPlaneGeometry *plane = &geometry->planes[p];
    uint64_t row = (uint64_t) plane->width * plane->channels;
    uint64_t padded = (uint64_t) (plane->width + 2 * GB_MAX_RADIUS)
        * plane->channels;
    const uint64_t recursive = recursive_scratch_floats (plane,
        geometry->bytes_per_sample);
    const uint64_t multiscale = gb_multiscale_scratch_floats (plane->width,
        plane->height, plane->channels, 1);
    if (row * plane->height > plane_floats)
      plane_floats = row * plane->height;
    if (row > row_floats)
      row_floats = row;
    if (padded > padded_floats)
      padded_floats = padded;
    if (recursive > recursive_floats)
      recursive_floats = recursive;
    /* MULTISCALE keeps its images in the intermediate too. */
    if (multiscale > plane_floats)
      plane_floats = multiscale;
  }
  tile_floats = align_floats (GB_CPU_TILE_ROWS * padded_floats);
  /* The tile area doubles as the SEPARABLE padded row (at most one row
   * padded for GB_MAX_RADIUS) and column-pass accumulator (one strip). */
  scratch_floats = tile_floats
      + align_floats (GB_CPU_SHARED_BAND_ROWS * row_floats)
      + align_floats (row_floats);      /* SHARED's row sum */
  /* RECURSIVE uses the same area for its states and forward sums. */
  if (align_floats (recursive_floats) > scratch_floats)
    scratch_floats = align_floats (recursive_floats);
  total = align_floats (plane_floats)
      + scratch_floats * (uint64_t) (cpu->n_workers + 1);
  if (total > SIZE_MAX / sizeof (float))
    return gb_error_set (error, GB_ERROR_OUT_OF_MEMORY,
        "%llu floats of CPU buffers do not fit in memory",
        (unsigned long long) total);

  if (total != cpu->buffer_floats) {
    free (cpu->buffer);
    cpu->buffer_floats = 0;
    cpu->configured = 0;
    /* total is a multiple of the alignment, as aligned_alloc wants. */
    cpu->buffer = aligned_alloc (sizeof (float) * GB_CPU_ALIGN_FLOATS,
        sizeof (float) * total);
    if (!cpu->buffer)
      return gb_error_set (error, GB_ERROR_OUT_OF_MEMORY,
          "cannot allocate %llu MiB for the CPU intermediate buffers",
          (unsigned long long) ((sizeof (float) * total) >> 20));
    cpu->buffer_floats = total;
    cpu->allocation_count++;
  }
  cpu->intermediate = cpu->buffer;
  cpu->scratch = cpu->buffer + align_floats (plane_floats);
  cpu->scratch_floats = scratch_floats;
  cpu->tile_floats = tile_floats;
  cpu->geometry = *geometry;
  cpu->configured = 1;
  return GB_OK;
}

/* --- MULTISCALE: six resampling passes in float (multiscale.h) --- */

/* The source index of a resampling tap: the frame's border rule (-1: a zero
 * sample) or clamping to the small image. */
static inline int
resample_source (const GbResample * r, int i, GbBorder border)
{
  if (r->frame_border)
    return gb_border_index (i, r->in_length, border);
  return i < 0 ? 0 : i >= r->in_length ? r->in_length - 1 : i;
}

static inline int
resample_first (const GbResample * r, int o)
{
  return o / r->phases * r->step + r->first[o % r->phases];
}

/* Scratch of a plane in the intermediate: the wide image (the frame's rows
 * at small width, later the small rows at frame width), two small images. */
typedef struct
{
  float *wide, *small, *small2;
} MultiscaleScratch;

static MultiscaleScratch
multiscale_scratch (const GbPlaneJob * job)
{
  const GbMultiscalePlan *plan = job->multiscale;
  const GbMultiscaleLayout l = gb_multiscale_layout (plan->small_width,
      plan->small_height, job->width, job->height, job->channels, 1);
  MultiscaleScratch m;

  m.wide = job->intermediate;
  m.small = m.wide + l.small;
  m.small2 = m.wide + l.small2;
  return m;
}

/* Along rows y in [y0, y1): out[y][o * C + c] = sum_t w[t] in[y][s_t * C + c],
 * from samples (in_samples, of bytes_per_sample; in_stride in bytes) or
 * floats (in; in_stride in floats). */
static void
resample_rows (const GbResample * r, const float *table, GbBorder border,
    int channels, int y0, int y1, const uint8_t * in_samples,
    int bytes_per_sample, const float *in, size_t in_stride, float *out,
    size_t out_stride)
{
  int y, o, c, t;

  for (y = y0; y < y1; y++)
    for (o = 0; o < r->out_length; o++) {
      const int first = resample_first (r, o);
      const float *w = table + r->weights + (o % r->phases) * r->taps;
      for (c = 0; c < channels; c++) {
        float acc = 0.0f;
        for (t = 0; t < r->taps; t++) {
          const int s = resample_source (r, first + t, border);
          const size_t at = (size_t) s * channels + c;
          acc += w[t] * (s < 0 ? 0.0f : in_samples
              ? load_sample (in_samples + (size_t) y * in_stride, at,
                  bytes_per_sample) : in[(size_t) y * in_stride + at]);
        }
        out[(size_t) y * out_stride + (size_t) o * channels + c] = acc;
      }
    }
}

/* Output rows o in [o0, o1): out[o][e] = sum_t w[t] in[s_t][e] for every
 * element e, into floats (out; out_stride in floats) or rounded samples
 * (out_samples, through row; out_stride in bytes). */
static void
resample_columns (const GbResample * r, const float *table, GbBorder border,
    size_t elements, int o0, int o1, const float *in, size_t in_stride,
    float *out, uint8_t * out_samples, int bytes_per_sample,
    size_t out_stride, float *row)
{
  int o, t;
  size_t e;

  for (o = o0; o < o1; o++) {
    const int first = resample_first (r, o);
    const float *w = table + r->weights + (o % r->phases) * r->taps;
    float *acc = out_samples ? row : out + (size_t) o * out_stride;
    for (e = 0; e < elements; e++)
      acc[e] = 0.0f;
    for (t = 0; t < r->taps; t++) {
      const int s = resample_source (r, first + t, border);
      const float *src = in + (size_t) s * in_stride;
      if (s < 0)
        continue;               /* a zero row */
      for (e = 0; e < elements; e++)
        acc[e] += w[t] * src[e];
    }
    if (out_samples)
      round_row (out_samples + (size_t) o * out_stride, acc, elements,
          bytes_per_sample);
  }
}

/* One band of pass job->pass: rows of the pass's output. */
static void
multiscale_band (const GbPlaneJob * job, float *scratch, int row_begin,
    int row_end)
{
  const GbMultiscalePlan *plan = job->multiscale;
  const float *table = plan->table;
  const int c = job->channels;
  const int bps = job->bytes_per_sample;
  /* the layout's stride too: rows are not padded on the CPU (row_align 1,
   * multiscale_scratch) */
  const size_t small_row = (size_t) plan->small_width * c;
  const size_t frame_row = (size_t) job->width * c;
  const MultiscaleScratch m = multiscale_scratch (job);

  switch (job->pass) {
    case 0:                    /* down along x: frame rows -> wide */
      resample_rows (&plan->down_x, table, job->border, c, row_begin,
          row_end, job->src, bps, NULL, job->src_stride, m.wide, small_row);
      break;
    case 1:                    /* down along y: wide -> small */
      resample_columns (&plan->down_y, table, job->border, small_row,
          row_begin, row_end, m.wide, small_row, m.small, NULL, bps,
          small_row, NULL);
      break;
    case 2:                    /* blur along x: small -> small2 */
      resample_rows (&plan->blur_x, table, job->border, c, row_begin,
          row_end, NULL, bps, m.small, small_row, m.small2, small_row);
      break;
    case 3:                    /* blur along y: small2 -> small */
      resample_columns (&plan->blur_y, table, job->border, small_row,
          row_begin, row_end, m.small2, small_row, m.small, NULL, bps,
          small_row, NULL);
      break;
    case 4:                    /* up along x: small -> wide */
      resample_rows (&plan->up_x, table, job->border, c, row_begin, row_end,
          NULL, bps, m.small, small_row, m.wide, frame_row);
      break;
    default:                   /* up along y: wide -> the frame */
      resample_columns (&plan->up_y, table, job->border, frame_row,
          row_begin, row_end, m.wide, frame_row, NULL, job->dst, bps,
          job->dst_stride, scratch);
      break;
  }
}

static void
process_multiscale (GbCpu * cpu, const GbPlaneJob * job)
{
  const GbMultiscalePlan *plan = job->multiscale;
  const int rows[6] = { job->height, plan->small_height, plan->small_height,
    plan->small_height, plan->small_height, job->height
  };
  const GbResample *passes[6] = { &plan->down_x, &plan->down_y,
    &plan->blur_x, &plan->blur_y, &plan->up_x, &plan->up_y
  };
  GbPlaneJob pass_job = *job;

  for (pass_job.pass = 0; pass_job.pass < 6; pass_job.pass++) {
    const GbResample *r = passes[pass_job.pass];
    const double work = (double) r->taps * job->channels
        * (pass_job.pass % 2 == 0 ? r->out_length : (pass_job.pass == 5
            ? job->width : plan->small_width));
    /* Every row of a pass is written before the next pass reads it. */
    run_bands (cpu, multiscale_band, &pass_job, rows[pass_job.pass],
        band_count (cpu, rows[pass_job.pass], work));
  }
}

/* Blurs the window of a plane (job->src, job->dst, job->width, height). */
static void
process_plane (GbCpu * cpu, const GbPlaneJob * job, GbAlgorithm algorithm)
{
  const double row_samples = (double) job->width * job->channels;
  const double taps_x = 2.0 * job->x->radius + 1.0;
  const double taps_y = 2.0 * job->y->radius + 1.0;

  switch (algorithm) {
    case GB_ALGORITHM_NAIVE:
      run_bands (cpu, naive_band, job, job->height,
          band_count (cpu, job->height, row_samples * taps_x * taps_y));
      break;
    case GB_ALGORITHM_SHARED:
      run_bands (cpu, shared_band, job, job->height,
          band_count (cpu, job->height, row_samples * taps_x * taps_y));
      break;
    case GB_ALGORITHM_MULTISCALE:
      process_multiscale (cpu, job);
      break;
    case GB_ALGORITHM_RECURSIVE:{
      /* Every column is finished before any row starts. */
      const int warmup_y = job->y->recursive.warmup;
      const int warmup_x = job->x->recursive.warmup;
      const int units = (job->width * job->channels
          + GB_CPU_RECURSIVE_COLUMN_UNIT - 1) / GB_CPU_RECURSIVE_COLUMN_UNIT;
      run_bands (cpu, recursive_column_band, job, units,
          band_count (cpu, units, GB_CPU_RECURSIVE_COLUMN_UNIT
              * GB_CPU_RECURSIVE_WORK * (job->height + warmup_y)));
      run_bands (cpu, recursive_row_band, job, job->height,
          band_count (cpu, job->height, job->channels
              * GB_CPU_RECURSIVE_WORK * (job->width + warmup_x)));
      break;
    }
    default:
      /* SEPARABLE, and FUSED: the same filter (on the GPU one kernel).
       * Every row of the intermediate is written before any is read. */
      run_bands (cpu, row_pass_band, job, job->height,
          band_count (cpu, job->height, row_samples * taps_x));
      run_bands (cpu, column_pass_band, job, job->height,
          band_count (cpu, job->height, row_samples * taps_y));
      break;
  }
}

/* The edge-aware filter of the window: always exact (Algorithm A; the
 * GPU's kappa only cuts its lines into segments), each pass's lines on
 * threads of its own (edge_aware.c). */
static GbStatus
edge_aware_window (const GbPlaneJob * job, const GbPlaneGeometry * plane,
    GbError * error)
{
  const GbPlaneFilter *filter = job->filter;
  const GbEdgeAwareParams params = { job->x->sigma, job->y->sigma,
    filter->sigma_range, filter->iterations
  };
  GbPlaneGeometry window = *plane;

  window.width = job->width;
  window.height = job->height;
  window.alpha_mask = 0;
  return gb_edge_aware_cpu (&params, &window, job->bytes_per_sample,
      filter->distance_mask, filter->range_scale, job->border, job->src,
      job->src_stride, job->dst, job->dst_stride, error);
}

/* The superposition of the window, exact (superposition.c): the window is
 * its plane, reading the frame's map from the window's corner. */
static GbStatus
superposition_window (const GbPlaneJob * job, const GbPlaneGeometry * plane,
    GbAlgorithm algorithm, GbError * error)
{
  const GbPlaneFilter *filter = job->filter;
  const float *map = filter->sigma_map
      + (size_t) filter->window.y * filter->step_y * filter->sigma_stride
      + (size_t) filter->window.x * filter->step_x;
  GbPlaneGeometry window = *plane;

  if (!filter->sigma_map || filter->rmax < 1)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "the superposition has no sigma map or radius");
  window.width = job->width;
  window.height = job->height;
  return (filter->normalize ? gb_superposition_cpu_normalized
      : gb_superposition_cpu) (algorithm == GB_ALGORITHM_SUPERPOSITION_GATHER
      ? GB_SUPERPOSITION_GATHER : GB_SUPERPOSITION_SCATTER, &window,
      job->bytes_per_sample, map, filter->sigma_stride, filter->rmax,
      job->border, job->src, job->src_stride, job->dst, job->dst_stride,
      error);
}

/* --- finishing: sharpen the region, copy the rest of the plane --- */

/* out = in + amount (in - out) over n samples, out holding the rounded blur:
 * in float exactly so (no fused multiply-add: -ffp-contract=off), as the
 * GPU computes it, so both round the same. */
GB_CPU_HOT static void
sharpen_row (uint8_t * restrict out, const uint8_t * restrict in, size_t n,
    float amount, int bytes_per_sample)
{
  size_t i;

  if (bytes_per_sample == 1) {
    for (i = 0; i < n; i++) {
      const float s = (float) in[i], b = (float) out[i];
      out[i] = gb_round_u8 (s + amount * (s - b));
    }
  } else {
    const uint16_t *restrict in16 = (const uint16_t *) in;
    uint16_t *restrict out16 = (uint16_t *) out;
    for (i = 0; i < n; i++) {
      const float s = (float) in16[i], b = (float) out16[i];
      out16[i] = gb_round_u16 (s + amount * (s - b));
    }
  }
}

/* Rows [row_begin, row_end) of the plane (not of the window). */
static void
finish_band (const GbPlaneJob * job, float *scratch, int row_begin,
    int row_end)
{
  const GbPlaneFilter *filter = job->filter;
  const GbRect *region = &filter->region;
  const size_t pixel_bytes = (size_t) job->channels * job->bytes_per_sample;
  const size_t row_bytes = (size_t) job->plane_width * pixel_bytes;
  const size_t left_bytes = (size_t) region->x * pixel_bytes;
  const size_t region_bytes = (size_t) region->width * pixel_bytes;
  const int empty = region->width <= 0 || region->height <= 0;
  int y;

  (void) scratch;
  for (y = row_begin; y < row_end; y++) {
    const uint8_t *in = job->plane_src + (size_t) y * job->src_stride;
    uint8_t *out = job->plane_dst + (size_t) y * job->dst_stride;
    if (empty || y < region->y || y >= region->y + region->height) {
      if (!filter->whole)
        memcpy (out, in, row_bytes);
      continue;
    }
    if (filter->sharpen > 0.0f)
      sharpen_row (out + left_bytes, in + left_bytes,
          (size_t) region->width * job->channels, filter->sharpen,
          job->bytes_per_sample);
    if (!filter->whole) {
      memcpy (out, in, left_bytes);
      memcpy (out + left_bytes + region_bytes, in + left_bytes
          + region_bytes, row_bytes - left_bytes - region_bytes);
    }
  }
}

/* 1 when rect lies within the rectangle at (x, y) of width x height. The
 * ends in 64 bits: a start near INT_MAX plus a width wraps in int (an
 * AddressSanitizer run read past a frame through such a window). */
static int
rect_inside (const GbRect * rect, int x, int y, int width, int height)
{
  return rect->width >= 0 && rect->height >= 0 && rect->x >= x
      && rect->y >= y
      && (long long) rect->x + rect->width <= (long long) x + width
      && (long long) rect->y + rect->height <= (long long) y + height;
}

/* What the caller resolved for plane p must fit the configured plane. An
 * empty region makes the plane a copy: then its window is never used. */
static GbStatus
check_filter (const GbCpu * cpu, const GbPlaneFilter * filter, int p,
    GbAlgorithm algorithm, GbError * error)
{
  const GbPlaneGeometry *plane = &cpu->geometry.planes[p];
  const GbRect *window = &filter->window;
  const GbRect *region = &filter->region;
  const GbMultiscalePlan *plan = &filter->multiscale;

  if (filter->whole && (region->x != 0 || region->y != 0
          || region->width != plane->width
          || region->height != plane->height))
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "plane %d: marked whole, but its region is not the plane", p);
  if (region->width <= 0 || region->height <= 0)
    return GB_OK;
  if (filter->x.radius < 0 || filter->x.radius > GB_MAX_RADIUS
      || filter->y.radius < 0 || filter->y.radius > GB_MAX_RADIUS)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "plane %d: radius %d x %d is outside [0, %d]", p, filter->x.radius,
        filter->y.radius, GB_MAX_RADIUS);
  if (!rect_inside (window, 0, 0, plane->width, plane->height))
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "plane %d: window %dx%d at (%d, %d) is not within the %dx%d plane",
        p, window->width, window->height, window->x, window->y,
        plane->width, plane->height);
  if (!rect_inside (region, window->x, window->y, window->width,
          window->height))
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "plane %d: region %dx%d at (%d, %d) is not within its window", p,
        region->width, region->height, region->x, region->y);
  if (algorithm == GB_ALGORITHM_MULTISCALE && plan->factor_x
      && (plan->down_x.in_length != window->width
          || plan->down_y.in_length != window->height
          || plan->up_x.out_length != window->width
          || plan->up_y.out_length != window->height))
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "plane %d: the multi-scale plan is not for its %dx%d window", p,
        window->width, window->height);
  return GB_OK;
}

GbStatus
gb_cpu_process (GbCpu * cpu, const GbImage * src, const GbImage * dst,
    const GbPlaneFilter * filters, GbAlgorithm algorithm, GbBorder border,
    GbError * error)
{
  const int bytes_per_sample = cpu ? cpu->geometry.bytes_per_sample : 0;
  GbStatus status;
  int p;

  if (!cpu || !cpu->configured)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "the CPU backend has no geometry");
  if (!src || !dst || !filters)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "no source, destination or filters");
  if (algorithm != GB_ALGORITHM_NAIVE && algorithm != GB_ALGORITHM_SHARED
      && algorithm != GB_ALGORITHM_SEPARABLE
      && algorithm != GB_ALGORITHM_FUSED
      && algorithm != GB_ALGORITHM_RECURSIVE
      && algorithm != GB_ALGORITHM_MULTISCALE
      && algorithm != GB_ALGORITHM_EDGE_AWARE
      && !GB_ALGORITHM_IS_SUPERPOSITION (algorithm))
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "algorithm %d is not one the CPU backend runs (auto is resolved "
        "by the caller)", (int) algorithm);
  if (border < GB_BORDER_CLAMP || border > GB_BORDER_ZERO)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "unknown border %d", (int) border);
  if (bytes_per_sample != 1 && bytes_per_sample != 2)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "%d bytes per sample: the CPU backend takes 1 or 2",
        bytes_per_sample);
  /* Everything is checked before any plane is written. */
  for (p = 0; p < cpu->geometry.n_planes; p++) {
    if (!src->data[p] || !dst->data[p])
      return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
          "plane %d has no data", p);
    status = check_filter (cpu, &filters[p], p, algorithm, error);
    if (status != GB_OK)
      return status;
  }

  for (p = 0; p < cpu->geometry.n_planes; p++) {
    const GbPlaneGeometry *plane = &cpu->geometry.planes[p];
    const GbPlaneFilter *filter = &filters[p];
    const GbRect *window = &filter->window;
    const size_t pixel_bytes = (size_t) plane->channels * bytes_per_sample;
    const int blur = filter->region.width > 0 && filter->region.height > 0;
    GbPlaneJob job;

    job.plane_src = src->data[p];
    job.plane_dst = dst->data[p];
    job.plane_width = plane->width;
    job.filter = filter;
    job.src_stride = src->stride[p];
    job.dst_stride = dst->stride[p];
    /* The algorithms see the window as their frame (unused, and perhaps
     * not meaningful, when the region is empty). */
    job.src = job.plane_src;
    job.dst = job.plane_dst;
    job.width = job.height = 0;
    if (blur) {
      job.src += (size_t) window->y * job.src_stride
          + (size_t) window->x * pixel_bytes;
      job.dst += (size_t) window->y * job.dst_stride
          + (size_t) window->x * pixel_bytes;
      job.width = window->width;
      job.height = window->height;
    }
    job.channels = plane->channels;
    job.bytes_per_sample = bytes_per_sample;
    job.x = &filter->x;
    job.y = &filter->y;
    job.border = border;
    job.intermediate = cpu->intermediate;
    job.tile_floats = cpu->tile_floats;
    job.multiscale = &filter->multiscale;
    job.pass = 0;

    /* An empty region: nothing to blur, the plane is a copy. Without a
     * plan (an axis below GB_MULTISCALE_MIN_SIGMA, or below 10.75 on a
     * plane of gb_multiscale_late_d8) multiscale is the separable
     * convolution, as on the GPU. */
    if (blur && algorithm == GB_ALGORITHM_EDGE_AWARE) {
      status = edge_aware_window (&job, plane, error);
      if (status != GB_OK)
        return status;
    } else if (blur && GB_ALGORITHM_IS_SUPERPOSITION (algorithm)) {
      status = superposition_window (&job, plane, algorithm, error);
      if (status != GB_OK)
        return status;
    } else if (blur)
      process_plane (cpu, &job, algorithm == GB_ALGORITHM_MULTISCALE
          && !filter->multiscale.factor_x ? GB_ALGORITHM_SEPARABLE
          : algorithm);
    /* Every blurred row is written before the finishing pass reads it. */
    if (!filter->whole || filter->sharpen > 0.0f)
      run_bands (cpu, finish_band, &job, plane->height,
          band_count (cpu, plane->height, (double) plane->width
              * plane->channels));
  }
  return GB_OK;
}

unsigned
gb_cpu_allocation_count (const GbCpu * cpu)
{
  return cpu ? cpu->allocation_count : 0;
}

void
gb_cpu_destroy (GbCpu * cpu)
{
  if (!cpu)
    return;
  stop_workers (cpu);
  pthread_cond_destroy (&cpu->task_done);
  pthread_cond_destroy (&cpu->task_ready);
  pthread_mutex_destroy (&cpu->lock);
  free (cpu->buffer);
  free (cpu);
}

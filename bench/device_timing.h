/* What the benchmarks share to time work on the device: rotating frames,
 * event timing, CUDA error checks; and their CSV output (C++, benchmark
 * programs only).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef GB_BENCH_DEVICE_TIMING_H
#define GB_BENCH_DEVICE_TIMING_H

#include "gaussblur.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string>
#include <vector>

/* Runs call, a core function whose last argument is &error_, and exits
 * with the core's message if it fails. */
#define CHECK_GB(call) \
  do { \
    GbError error_; \
    if ((call) != GB_OK) { \
      fprintf (stderr, "%s:%d: %s\n", __FILE__, __LINE__, error_.message); \
      exit (1); \
    } \
  } while (0)

#define CHECK_CUDA(call) \
  do { \
    cudaError_t err_ = (call); \
    if (err_ != cudaSuccess) { \
      fprintf (stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
          cudaGetErrorString (err_)); \
      exit (1); \
    } \
  } while (0)

namespace gb_bench {

constexpr size_t ROTATION_BYTES = 256u << 20;   /* > 5x the 50 MB L2 */
constexpr int MIN_FRAMES = 3;
constexpr int REPETITIONS = 5;                  /* median of these */
constexpr int MAX_BATCH = 2000;                 /* launches per timed batch */
constexpr double SLOW_LAUNCH_MS = 100;          /* beyond: one timed launch */
/* Each plane of a frame starts at a multiple of it (and so do 16-bit rows:
 * a row of 16-bit samples has an even number of bytes). */
constexpr size_t PLANE_ALIGNMENT = 256;

/* Where the planes of a geometry lie in a frame: one block, the planes one
 * after the other, each from a PLANE_ALIGNMENT offset, rows without
 * padding, so that the floor is one flat copy of the frame. */
struct FrameLayout
{
  GbGeometry geometry;
  size_t offset[GB_MAX_PLANES];
  size_t stride[GB_MAX_PLANES];
  size_t bytes;                 /* the planes' bytes (no gaps): GB/s, CSV */
  size_t span;                  /* the block: allocated, copied by the floor */

  explicit FrameLayout (const GbGeometry & g)
  : geometry (g), offset (), stride (), bytes (0), span (0)
  {
    for (int p = 0; p < g.n_planes; p++) {
      const GbPlaneGeometry & pl = g.planes[p];
      stride[p] = (size_t) pl.width * pl.channels * g.bytes_per_sample;
      offset[p] = (span + PLANE_ALIGNMENT - 1) / PLANE_ALIGNMENT
          * PLANE_ALIGNMENT;
      span = offset[p] + stride[p] * pl.height;
      bytes += stride[p] * pl.height;
    }
  }
  /* The frame at base (span bytes). */
  GbImage image (uint8_t * base) const
  {
    GbImage image = { {NULL}, {0} };
    for (int p = 0; p < geometry.n_planes; p++) {
      image.data[p] = base + offset[p];
      image.stride[p] = stride[p];
    }
    return image;
  }
};

/* Per timed repetition; the programs' --batch-ms changes it. 50 ms x 5
 * keeps cudagaussblur-bench's default sweep (4 frame cases x 12 sigmas x 5
 * timings, NPP included) within about 2 minutes on an H100, where NPP alone
 * takes 0.01 to 4.7 s per frame beyond radius 25. */
inline double batch_seconds = 0.05;

/* Frames of `span` bytes without row padding, so that the floor is one flat
 * copy of exactly the frame's bytes (a pitched 2D copy is slower and would
 * flatter the ratio): enough of them that inputs and outputs together
 * cover ROTATION_BYTES, every input a copy of `host`. */
struct DeviceFrames
{
  std::vector < uint8_t * >input, output;
  size_t span;

  DeviceFrames (size_t span_, const uint8_t * host)
  : span (span_)
  {
    const size_t count = std::max ((size_t) MIN_FRAMES,
        (ROTATION_BYTES + 2 * span - 1) / (2 * span));
    for (size_t i = 0; i < count; i++) {
      uint8_t *in, *out;
      CHECK_CUDA (cudaMalloc ((void **) &in, span));
      CHECK_CUDA (cudaMalloc ((void **) &out, span));
      CHECK_CUDA (cudaMemcpy (in, host, span, cudaMemcpyHostToDevice));
      CHECK_CUDA (cudaMemset (out, 0, span));
      input.push_back (in);
      output.push_back (out);
    }
  }
  ~DeviceFrames ()
  {
    for (uint8_t * p : input)
      cudaFree (p);
    for (uint8_t * p : output)
      cudaFree (p);
  }
  DeviceFrames (const DeviceFrames &) = delete;
  DeviceFrames & operator= (const DeviceFrames &) = delete;
  size_t count () const { return input.size (); }
};

/* Milliseconds from an event recorded on `stream` before launch() enqueues
 * its work to one recorded after it (waited for). */
template < class Launch > float
elapsed_ms (cudaStream_t stream, cudaEvent_t start, cudaEvent_t stop,
    Launch launch)
{
  float ms;

  CHECK_CUDA (cudaEventRecord (start, stream));
  launch ();
  CHECK_CUDA (cudaEventRecord (stop, stream));
  CHECK_CUDA (cudaEventSynchronize (stop));
  CHECK_CUDA (cudaEventElapsedTime (&ms, start, stop));
  return ms;
}

/* How time_launches times a batch. EAGER: the launches are enqueued one by
 * one on the stream between two events, as an application would; where
 * the host takes longer to enqueue a launch than the GPU to run it, the GPU
 * waits and the figure is the host's (time_launches then counts the batch
 * as host-bound). GRAPH: the batch is first captured into a CUDA graph and
 * the graph's launch is timed, so the host's cost is outside the figure:
 * the GPU's own time, launch gaps included (cudagaussblur-bench's default;
 * the other benchmarks time eagerly). */
enum class Timing
{ EAGER, GRAPH };
inline Timing timing = Timing::EAGER;

/* Of the last time_launches: the host's wall time to enqueue one launch of
 * the median batch (EAGER only, else -1), in microseconds. */
inline double last_enqueue_us = -1;

/* Median over REPETITIONS of the mean time of one launch, in microseconds.
 * enqueue(i) must enqueue the i-th launch on `stream`. Slow launches get
 * fewer iterations per batch (down to one); a launch over SLOW_LAUNCH_MS is
 * timed once (event noise is nothing there). warmed: the caller has just run
 * it (no warm-up launch needed). */
template < class Enqueue > double
time_launches (cudaStream_t stream, Enqueue enqueue, bool warmed = false)
{
  cudaEvent_t start, stop;
  float ms;
  int iterations;
  std::vector < std::pair < double, double > >samples;  /* GPU, host us */

  CHECK_CUDA (cudaEventCreate (&start));
  CHECK_CUDA (cudaEventCreate (&stop));
  last_enqueue_us = -1;
  /* Warm-up, and a first estimate to size the timed batches. */
  if (!warmed)
    enqueue (0);
  ms = elapsed_ms (stream, start, stop,[&] () {
        enqueue (1);
      });
  if (ms > SLOW_LAUNCH_MS) {
    CHECK_CUDA (cudaGetLastError ());
    cudaEventDestroy (start);
    cudaEventDestroy (stop);
    return 1e3 * ms;
  }
  iterations = std::max (1, std::min (MAX_BATCH,
          (int) (batch_seconds * 1e3 / std::max (ms, 1e-3f))));

  for (int r = 0; r < REPETITIONS; r++) {
    double host_us = -1;
    if (timing == Timing::GRAPH) {
      cudaGraph_t graph;
      cudaGraphExec_t exec;
      CHECK_CUDA (cudaStreamBeginCapture (stream,
              cudaStreamCaptureModeThreadLocal));
      for (int i = 0; i < iterations; i++)
        enqueue (i);
      CHECK_CUDA (cudaStreamEndCapture (stream, &graph));
      CHECK_CUDA (cudaGraphInstantiate (&exec, graph, 0));
      CHECK_CUDA (cudaGraphUpload (exec, stream));
      ms = elapsed_ms (stream, start, stop,[&] () {
            CHECK_CUDA (cudaGraphLaunch (exec, stream));
          });
      CHECK_CUDA (cudaGraphExecDestroy (exec));
      CHECK_CUDA (cudaGraphDestroy (graph));
    } else {
      ms = elapsed_ms (stream, start, stop,[&] () {
            auto t0 = std::chrono::steady_clock::now ();
            for (int i = 0; i < iterations; i++)
              enqueue (i);
            host_us = std::chrono::duration < double, std::micro >
                (std::chrono::steady_clock::now () - t0).count ();
          });
    }
    samples.push_back ({1e3 * ms / iterations, host_us / iterations});
  }
  CHECK_CUDA (cudaGetLastError ());
  cudaEventDestroy (start);
  cudaEventDestroy (stop);
  std::sort (samples.begin (), samples.end ());
  if (timing == Timing::EAGER)
    last_enqueue_us = samples[REPETITIONS / 2].second;
  return samples[REPETITIONS / 2].first;
}

/* Whether the last EAGER time_launches was set by the host: its enqueue
 * took at least 90 % of the GPU time, so the GPU may have waited. */
inline bool
last_host_bound (double gpu_us)
{
  return last_enqueue_us >= 0 && last_enqueue_us >= 0.9 * gpu_us;
}

/* --- CSV output --- */

/* A CSV field: value printed with format; empty where it is negative or NaN
 * (not applicable, not measured). */
inline std::string
num (double value, const char *format = "%.3f")
{
  char text[64];
  if (value < 0 || std::isnan (value))
    return "";
  snprintf (text, sizeof text, format, value);
  return text;
}

/* The CSV file at path, created, its first line header; NULL (perror
 * printed) if it cannot be created. */
inline FILE *
open_csv (const char *path, const char *header)
{
  FILE *file = fopen (path, "w");
  if (!file) {
    perror (path);
    return NULL;
  }
  fprintf (file, "%s\n", header);
  return file;
}

}                               /* namespace gb_bench */

#endif /* GB_BENCH_DEVICE_TIMING_H */

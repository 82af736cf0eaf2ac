/* What moving a frame through the GPU costs, apart from any blur: the
 * floors that the element's system-memory path (issue 5) works against.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Three measurements, plain CUDA runtime (no element, no core):
 *  1. copies of one frame from and to page-locked memory: host to device,
 *     device to host, and both at once on two streams (the two copy
 *     engines; what a banded frame can reach at best);
 *  2. how long the thread takes to learn that the GPU is done, per way of
 *     waiting: a blocking-sync event (the thread sleeps), polling the event
 *     (the thread spins), polling with sched_yield, and a host function
 *     signalling a condition variable; after a kernel of a fixed 100 us;
 *  3. one frame at a time through upload, a stand-in blur (three rows read
 *     per output row, the apron R rows away) and download, cut into bands
 *     whose copies and kernels overlap, as the core's enqueue_host_banded
 *     did before its uploads carried their apron, for band counts 1 to 32
 *     and the waits of 2;
 *  4. where a banded 1080p RGBA frame's time goes (8 bands, polled): timing
 *     events give the GPU's time from the first upload to the last upload
 *     and to the end, beside the thread's latency and its enqueueing time,
 *     for three ways to order the bands: blur k after the upload of the
 *     band its apron reaches (the core's at first), each upload carrying
 *     its band's apron rows (blur k after upload k only: the core's now),
 *     and blur k writing its rows straight into the page-locked output (no
 *     download).
 * Each prints medians and 99th percentiles in microseconds and the process
 * CPU time per frame (the driver's threads included).
 *
 *   cudagaussblur-transfer-bench [--frames N] [--timeline-only (4. alone)]
 */
#include <cuda_runtime.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <vector>

#define CHECK(call) \
  do { \
    cudaError_t err_ = (call); \
    if (err_ != cudaSuccess) { \
      fprintf (stderr, "%s: %s\n", #call, cudaGetErrorString (err_)); \
      exit (1); \
    } \
  } while (0)

namespace {

double
clock_us (clockid_t clock)
{
  timespec t;
  clock_gettime (clock, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

double
now_us ()
{
  return clock_us (CLOCK_MONOTONIC);
}

double
cpu_us ()
{
  return clock_us (CLOCK_PROCESS_CPUTIME_ID);
}

struct Spread
{
  double median, p99;
};

Spread
spread (std::vector < double >v)
{
  std::sort (v.begin (), v.end ());
  return { v[v.size () / 2], v[std::min (v.size () - 1,
                (size_t) (v.size () * 0.99))] };
}

/* Spins for ns nanoseconds of the GPU's clock. */
__global__ void
busy_kernel (long long ns)
{
  long long start, t;
  asm volatile ("mov.u64 %0, %%globaltimer;":"=l" (start));
  do
    asm volatile ("mov.u64 %0, %%globaltimer;":"=l" (t));
  while (t - start < ns);
}

/* Rows [first, first + rows) of a 4-byte-pixel plane: out = (up + 2 here +
 * down) / 4, up and down `apron` rows away (clamped): a stencil that reads
 * its band's apron, as a blur does. */
__global__ void
stand_in_blur (const uchar4 * in, uchar4 * out, size_t pitch_pixels,
    int width, int first, int rows, int height, int apron)
{
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = first + blockIdx.y;
  if (x >= width || blockIdx.y >= rows)
    return;
  const uchar4 a = in[max (y - apron, 0) * pitch_pixels + x];
  const uchar4 b = in[y * pitch_pixels + x];
  const uchar4 c = in[min (y + apron, height - 1) * pitch_pixels + x];
  out[y * pitch_pixels + x] = make_uchar4 ((a.x + 2 * b.x + c.x) / 4,
      (a.y + 2 * b.y + c.y) / 4, (a.z + 2 * b.z + c.z) / 4,
      (a.w + 2 * b.w + c.w) / 4);
}

enum Wait
{ WAIT_BLOCKING, WAIT_POLL, WAIT_POLL_YIELD, WAIT_HOST_FUNCTION, WAIT_COUNT };
const char *const wait_names[WAIT_COUNT] = {
  "blocking-sync event", "poll", "poll + sched_yield", "host function"
};

struct Waiter
{
  cudaEvent_t blocking, polled;
  pthread_mutex_t mutex;
  pthread_cond_t cond;
  bool done;
};

void CUDART_CB
signal_done (void *data)
{
  Waiter *w = (Waiter *) data;
  pthread_mutex_lock (&w->mutex);
  w->done = true;
  pthread_cond_signal (&w->cond);
  pthread_mutex_unlock (&w->mutex);
}

/* Returns when everything enqueued on stream so far has run. */
void
wait_for (Waiter & w, cudaStream_t stream, Wait how)
{
  switch (how) {
    case WAIT_BLOCKING:
      CHECK (cudaEventRecord (w.blocking, stream));
      CHECK (cudaEventSynchronize (w.blocking));
      break;
    case WAIT_POLL:
    case WAIT_POLL_YIELD:
      CHECK (cudaEventRecord (w.polled, stream));
      while (cudaEventQuery (w.polled) == cudaErrorNotReady)
        if (how == WAIT_POLL_YIELD)
          sched_yield ();
      CHECK (cudaEventQuery (w.polled));
      break;
    default:
      w.done = false;
      CHECK (cudaLaunchHostFunc (stream, signal_done, &w));
      pthread_mutex_lock (&w.mutex);
      while (!w.done)
        pthread_cond_wait (&w.cond, &w.mutex);
      pthread_mutex_unlock (&w.mutex);
      break;
  }
}

struct Frame
{
  const char *name;
  int width, height;            /* 4-byte pixels (GRAY8 1080p as 480 wide) */
};

const Frame frames[] = {
  {"1080p RGBA", 1920, 1080},
  {"1080p GRAY8", 480, 1080},
  {"4K RGBA", 3840, 2160},
};

void
copy_floors (cudaStream_t up, cudaStream_t down, int repeats)
{
  printf ("## Copies of one frame, page-locked host memory (median us)\n\n");
  printf ("| frame | bytes | H2D | D2H | both at once | H2D + D2H | overlap |\n");
  printf ("|---|---|---|---|---|---|---|\n");
  for (const Frame & f:frames) {
    const size_t bytes = (size_t) f.width * 4 * f.height;
    void *host_in, *host_out, *dev_in, *dev_out;
    std::vector < double >h2d, d2h, both;
    CHECK (cudaHostAlloc (&host_in, bytes, cudaHostAllocPortable));
    CHECK (cudaHostAlloc (&host_out, bytes, cudaHostAllocPortable));
    CHECK (cudaMalloc (&dev_in, bytes));
    CHECK (cudaMalloc (&dev_out, bytes));
    memset (host_in, 1, bytes);
    /* One untimed round first: the first copies map the memory. */
    CHECK (cudaMemcpy (dev_in, host_in, bytes, cudaMemcpyHostToDevice));
    CHECK (cudaMemcpy (host_out, dev_out, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < repeats; i++) {
      double t = now_us ();
      CHECK (cudaMemcpyAsync (dev_in, host_in, bytes, cudaMemcpyHostToDevice,
              up));
      CHECK (cudaStreamSynchronize (up));
      h2d.push_back (now_us () - t);
      t = now_us ();
      CHECK (cudaMemcpyAsync (host_out, dev_out, bytes,
              cudaMemcpyDeviceToHost, down));
      CHECK (cudaStreamSynchronize (down));
      d2h.push_back (now_us () - t);
      t = now_us ();
      CHECK (cudaMemcpyAsync (dev_in, host_in, bytes, cudaMemcpyHostToDevice,
              up));
      CHECK (cudaMemcpyAsync (host_out, dev_out, bytes,
              cudaMemcpyDeviceToHost, down));
      CHECK (cudaStreamSynchronize (up));
      CHECK (cudaStreamSynchronize (down));
      both.push_back (now_us () - t);
    }
    const double a = spread (h2d).median, b = spread (d2h).median;
    const double c = spread (both).median;
    printf ("| %s | %zu | %.1f (%.1f GB/s) | %.1f (%.1f GB/s) | %.1f | %.1f "
        "| %.2fx |\n", f.name, bytes, a, bytes / a / 1e3, b, bytes / b / 1e3,
        c, a + b, (a + b) / c);
    CHECK (cudaFreeHost (host_in));
    CHECK (cudaFreeHost (host_out));
    CHECK (cudaFree (dev_in));
    CHECK (cudaFree (dev_out));
  }
  printf ("\n(overlap: H2D + D2H over both at once; 2 would be full duplex)\n\n");
}

void
wake_ups (Waiter & w, cudaStream_t stream, int repeats)
{
  const double kernel_us = 100.0;
  printf ("## Waiting for a %.0f us kernel (us beyond the kernel per frame, "
      "its launch included)\n\n", kernel_us);
  printf ("| wait | median | p99 | CPU us per frame |\n|---|---|---|---|\n");
  for (int how = 0; how < WAIT_COUNT; how++) {
    std::vector < double >extra;
    double cpu0 = 0;
    for (int i = -20; i < repeats; i++) {      /* 20 untimed first */
      if (i == 0)
        cpu0 = cpu_us ();
      const double t = now_us ();
      busy_kernel <<< 1, 1, 0, stream >>> ((long long) (kernel_us * 1e3));
      CHECK (cudaGetLastError ());
      wait_for (w, stream, (Wait) how);
      if (i >= 0)
        extra.push_back (now_us () - t - kernel_us);
    }
    const Spread s = spread (extra);
    printf ("| %s | %.1f | %.1f | %.1f |\n", wait_names[how], s.median, s.p99,
        (cpu_us () - cpu0) / repeats);
  }
  printf ("\n");
}

/* The events of n bands: after each upload, after each blur. */
void
create_band_events (cudaEvent_t * uploaded, cudaEvent_t * computed, int n)
{
  for (int i = 0; i < n; i++) {
    CHECK (cudaEventCreateWithFlags (&uploaded[i], cudaEventDisableTiming));
    CHECK (cudaEventCreateWithFlags (&computed[i], cudaEventDisableTiming));
  }
}

void
bands (Waiter & w, cudaStream_t blur, cudaStream_t up, cudaStream_t down,
    int repeats)
{
  const int apron = 12;         /* sigma 3's radius */
  const int counts[] = { 1, 2, 4, 8, 16, 32 };
  const Wait waits[] = { WAIT_BLOCKING, WAIT_POLL_YIELD };
  cudaEvent_t start, uploaded[32], computed[32];

  CHECK (cudaEventCreateWithFlags (&start, cudaEventDisableTiming));
  create_band_events (uploaded, computed, 32);
  printf ("## One frame at a time in bands: upload, stand-in blur (apron %d "
      "rows), download\n\n", apron);
  printf ("| frame | bands | wait | frames/s | latency median | p99 | CPU us "
      "per frame |\n|---|---|---|---|---|---|---|\n");
  for (const Frame & f:frames) {
    const size_t row = (size_t) f.width * 4, bytes = row * f.height;
    char *host_in, *host_out, *dev_in, *dev_out[2];
    CHECK (cudaHostAlloc ((void **) &host_in, bytes, 0));
    CHECK (cudaHostAlloc ((void **) &host_out, bytes, 0));
    CHECK (cudaMalloc ((void **) &dev_in, bytes));
    CHECK (cudaMalloc ((void **) &dev_out[0], bytes));
    CHECK (cudaMalloc ((void **) &dev_out[1], bytes));
    memset (host_in, 7, bytes);
    for (int n:counts) {
      const int band_rows = (f.height + n - 1) / n;
      for (Wait how:waits) {
        std::vector < double >latency;
        double cpu0 = 0, t0 = 0;
        for (int i = -20; i < repeats; i++) {
          if (i == 0) {
            cpu0 = cpu_us ();
            t0 = now_us ();
          }
          const double t = now_us ();
          CHECK (cudaEventRecord (start, blur));
          CHECK (cudaStreamWaitEvent (up, start, 0));
          for (int k = 0; k < n && k * band_rows < f.height; k++) {
            const int rows = std::min (band_rows, f.height - k * band_rows);
            CHECK (cudaMemcpyAsync (dev_in + k * band_rows * row,
                    host_in + k * band_rows * row, rows * row,
                    cudaMemcpyHostToDevice, up));
            CHECK (cudaEventRecord (uploaded[k], up));
          }
          for (int k = 0; k < n && k * band_rows < f.height; k++) {
            const int first = k * band_rows;
            const int rows = std::min (band_rows, f.height - first);
            const int last_read = std::min (first + rows + apron,
                f.height) - 1;
            /* Odd bands write the other buffer: no blur waits for a
             * download (the core's output_odd). */
            char *out = dev_out[k & 1];
            CHECK (cudaStreamWaitEvent (blur, uploaded[last_read / band_rows],
                    0));
            stand_in_blur <<< dim3 ((f.width + 255) / 256, rows), 256, 0,
                blur >>> ((const uchar4 *) dev_in, (uchar4 *) out, f.width,
                f.width, first, rows, f.height, apron);
            CHECK (cudaGetLastError ());
            CHECK (cudaEventRecord (computed[k], blur));
            CHECK (cudaStreamWaitEvent (down, computed[k], 0));
            CHECK (cudaMemcpyAsync (host_out + first * row,
                    out + first * row, rows * row, cudaMemcpyDeviceToHost,
                    down));
          }
          wait_for (w, down, how);
          if (i >= 0)
            latency.push_back (now_us () - t);
        }
        const double total = now_us () - t0;
        const Spread s = spread (latency);
        printf ("| %s | %d | %s | %.0f | %.1f | %.1f | %.1f |\n", f.name, n,
            wait_names[how], repeats / total * 1e6, s.median, s.p99,
            (cpu_us () - cpu0) / repeats);
      }
    }
    CHECK (cudaFreeHost (host_in));
    CHECK (cudaFreeHost (host_out));
    CHECK (cudaFree (dev_in));
    CHECK (cudaFree (dev_out[0]));
    CHECK (cudaFree (dev_out[1]));
  }
  printf ("\n");
}

enum Order
{ ORDER_NEXT_UPLOAD, ORDER_OWN_APRON, ORDER_DIRECT_WRITE, ORDER_COUNT };
const char *const order_names[ORDER_COUNT] = {
  "blur k after the upload its apron reaches",
  "upload k carries its apron rows",
  "blur k writes the host output (no download)"
};

void
band_timeline (cudaStream_t blur, cudaStream_t up, cudaStream_t down,
    int repeats)
{
  const int width = 1920, height = 1080, n = 8, apron = 12;
  const int band_rows = (height + n - 1) / n;
  const size_t row = (size_t) width * 4, bytes = row * height;
  char *host_in, *host_out, *host_out_device, *dev_in, *dev_out[2];
  cudaEvent_t start, uploads_done, end, uploaded[8], computed[8], polled;

  CHECK (cudaHostAlloc ((void **) &host_in, bytes, cudaHostAllocMapped));
  CHECK (cudaHostAlloc ((void **) &host_out, bytes, cudaHostAllocMapped));
  CHECK (cudaHostGetDevicePointer ((void **) &host_out_device, host_out, 0));
  CHECK (cudaMalloc ((void **) &dev_in, bytes));
  CHECK (cudaMalloc ((void **) &dev_out[0], bytes));
  CHECK (cudaMalloc ((void **) &dev_out[1], bytes));
  memset (host_in, 7, bytes);
  CHECK (cudaEventCreate (&start));
  CHECK (cudaEventCreate (&uploads_done));
  CHECK (cudaEventCreate (&end));
  CHECK (cudaEventCreateWithFlags (&polled, cudaEventDisableTiming));
  create_band_events (uploaded, computed, n);
  printf ("## A banded 1080p RGBA frame's time (8 bands, apron %d rows, "
      "polled with sched_yield)\n\n", apron);
  printf ("| order | latency median | p99 | enqueue median | GPU: uploads "
      "done | GPU: end | CPU us per frame |\n|---|---|---|---|---|---|---|\n");
  for (int order = 0; order < ORDER_COUNT; order++) {
    std::vector < double >latency, enqueue, gpu_up, gpu_end;
    double cpu0 = 0;
    for (int i = -20; i < repeats; i++) {
      if (i == 0)
        cpu0 = cpu_us ();
      const double t = now_us ();
      CHECK (cudaEventRecord (start, up));
      for (int k = 0; k < n; k++) {
        const int first = k * band_rows;
        /* with its apron rows: from where the band before stopped */
        const int from = order == ORDER_OWN_APRON && k > 0
            ? std::min (first + apron, height) : first;
        const int to = order == ORDER_OWN_APRON
            ? std::min (first + band_rows + apron, height)
            : std::min (first + band_rows, height);
        if (to > from)
          CHECK (cudaMemcpyAsync (dev_in + from * row, host_in + from * row,
                  (to - from) * row, cudaMemcpyHostToDevice, up));
        CHECK (cudaEventRecord (uploaded[k], up));
      }
      CHECK (cudaEventRecord (uploads_done, up));
      for (int k = 0; k < n; k++) {
        const int first = k * band_rows;
        const int rows = std::min (band_rows, height - first);
        const int last_read = std::min (first + rows + apron, height) - 1;
        const int waits_for = order == ORDER_NEXT_UPLOAD
            ? last_read / band_rows : k;
        CHECK (cudaStreamWaitEvent (blur, uploaded[waits_for], 0));
        if (order == ORDER_DIRECT_WRITE) {
          stand_in_blur <<< dim3 ((width + 255) / 256, rows), 256, 0,
              blur >>> ((const uchar4 *) dev_in, (uchar4 *) host_out_device,
              width, width, first, rows, height, apron);
          CHECK (cudaGetLastError ());
          continue;
        }
        char *out = dev_out[k & 1];
        stand_in_blur <<< dim3 ((width + 255) / 256, rows), 256, 0,
            blur >>> ((const uchar4 *) dev_in, (uchar4 *) out, width, width,
            first, rows, height, apron);
        CHECK (cudaGetLastError ());
        CHECK (cudaEventRecord (computed[k], blur));
        CHECK (cudaStreamWaitEvent (down, computed[k], 0));
        CHECK (cudaMemcpyAsync (host_out + first * row, out + first * row,
                rows * row, cudaMemcpyDeviceToHost, down));
      }
      cudaStream_t last = order == ORDER_DIRECT_WRITE ? blur : down;
      CHECK (cudaEventRecord (end, last));
      const double enqueued = now_us ();
      CHECK (cudaEventRecord (polled, last));
      while (cudaEventQuery (polled) == cudaErrorNotReady)
        sched_yield ();
      const double done = now_us ();
      float up_ms, end_ms;
      CHECK (cudaEventElapsedTime (&up_ms, start, uploads_done));
      CHECK (cudaEventElapsedTime (&end_ms, start, end));
      if (i >= 0) {
        latency.push_back (done - t);
        enqueue.push_back (enqueued - t);
        gpu_up.push_back (up_ms * 1e3);
        gpu_end.push_back (end_ms * 1e3);
      }
    }
    const double cpu = (cpu_us () - cpu0) / repeats;
    const Spread l = spread (latency), e = spread (enqueue),
        u = spread (gpu_up), g = spread (gpu_end);
    printf ("| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n",
        order_names[order], l.median, l.p99, e.median, u.median, g.median,
        cpu);
  }
  printf ("\n");
  CHECK (cudaFreeHost (host_in));
  CHECK (cudaFreeHost (host_out));
  CHECK (cudaFree (dev_in));
  CHECK (cudaFree (dev_out[0]));
  CHECK (cudaFree (dev_out[1]));
}

}                               /* namespace */

int
main (int argc, char **argv)
{
  int repeats = 400, device_count = 0;
  bool timeline_only = false;
  cudaDeviceProp prop;
  cudaStream_t blur, up, down;
  Waiter w;

  for (int i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--frames") && i + 1 < argc
        && (repeats = atoi (argv[++i])) >= 10)
      continue;
    if (!strcmp (argv[i], "--timeline-only")) {
      timeline_only = true;
      continue;
    }
    fprintf (stderr, "usage: %s [--frames N (>= 10, default 400)] "
        "[--timeline-only]\n", argv[0]);
    return 2;
  }
  if (cudaGetDeviceCount (&device_count) != cudaSuccess || device_count < 1) {
    printf ("transfer-bench: skipped, no CUDA device\n");
    return 77;
  }
  CHECK (cudaGetDeviceProperties (&prop, 0));
  printf ("device: %s, %d copy engines; %d frames per row\n\n", prop.name,
      prop.asyncEngineCount, repeats);
  CHECK (cudaStreamCreateWithFlags (&blur, cudaStreamNonBlocking));
  CHECK (cudaStreamCreateWithFlags (&up, cudaStreamNonBlocking));
  CHECK (cudaStreamCreateWithFlags (&down, cudaStreamNonBlocking));
  CHECK (cudaEventCreateWithFlags (&w.blocking,
          cudaEventDisableTiming | cudaEventBlockingSync));
  CHECK (cudaEventCreateWithFlags (&w.polled, cudaEventDisableTiming));
  pthread_mutex_init (&w.mutex, NULL);
  pthread_cond_init (&w.cond, NULL);

  if (!timeline_only) {
    copy_floors (up, down, 60);
    wake_ups (w, blur, repeats);
    bands (w, blur, up, down, repeats);
  }
  band_timeline (blur, up, down, repeats);
  return 0;
}

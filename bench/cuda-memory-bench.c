/* cudagaussblur-cuda-memory-bench: the element with frames already in GPU
 * memory (memory:CUDAMemory), against the kernel time (issue 6).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One GstCudaContext for the whole process (gst_cuda_context_new on the
 * device), given to every element with gst_element_set_context before it
 * starts, as the elements of a real pipeline share theirs. Each stream is a
 * GstHarness around its own `cudagaussblur` (backend cuda, sigma), caps
 * video/x-raw(memory:CUDAMemory) on both sides. Its input is a ring of
 * buffers from a GstCudaBufferPool of the shared context, filled once (a
 * plain GST_MAP_WRITE map, then a CUDA map that uploads it) and pushed
 * again and again; the ring holds at least RING_BYTES of frames over all
 * streams (and RING_MIN buffers a stream), so that the inputs do not stay in
 * the 50 MB L2 between their turns. Each output is pulled and unreffed at
 * once (back to the element's pool: the harness offers none, so the element
 * makes a CUDA pool of its context). Every output is checked: CUDA memory of
 * the shared context, or the run fails (an element that fell back to host
 * memory makes the figures meaningless); so is any warning or error the
 * element posts.
 *
 * The device's figures first, in the same context (the core's CUDA
 * backend made in it, GB_DEVICE_CURRENT_CONTEXT, with the same sigma, border
 * clamp and the algorithm auto picks; frames from a CUDA pool, so laid out
 * as the element's, and the element's own geometry of them
 * (gst/gstblurgeometry.c); inputs and outputs rotating over ROTATION_BYTES,
 * > 5x the L2), for each format below:
 *  - kernel: the time of one frame, many enqueued back-to-back between two
 *    CUDA events, the median of REPETITIONS batches of about BATCH_MS;
 *  - copy: a device-to-device copy of the frame's bytes (one flat
 *    cudaMemcpyAsync), timed the same way;
 *  - the core's round trip, frames one after the other (host clock, wall
 *    and process CPU time): gb_blur_process_device, as the element calls it
 *    (enqueue, then wait as the core does: poll the frame's event for up to
 *    100 us, then sleep on a blocking-sync one), and for comparison the
 *    same enqueue followed by
 *    cudaStreamSynchronize (which spins in GStreamer's context, made with
 *    the default scheduling);
 *  - for 1080p RGBA, the device's rate with 1, 2, ... (--streams) handles of
 *    the core enqueued in turn, each on its own stream (kernels of
 *    different streams overlap: this can beat 1 / kernel).
 *
 * Single stream, for 1920x1080 RGBA, 1920x1080 NV12 and 3840x2160 RGBA
 * (informational): frames/s (N / wall time of the timed loop), latency per
 * frame (gst_harness_push to gst_harness_pull returning the output; the
 * element is synchronous) median and 99th percentile (nearest rank), CPU
 * time per frame (the process's CPU time, every thread, over the timed
 * loop / N), and beside them the device's figures: kernel, copy, core-rt
 * (the core's round trip, above), gst-us = us/frame - core-rt (what
 * GStreamer and the element add to the core's round trip), xkern = us/frame
 * / kernel.
 *
 * Several streams (--streams, default 1,2,4,8,16), 1920x1080 RGBA: K threads,
 * each owning one harness (set up and warmed up beforehand), each pushing N
 * frames as fast as it can from a common start; aggregate frames/s = K x N /
 * (the last thread's end - the start), per-stream = aggregate / K, slowest =
 * N / the slowest thread's own time; latency over every frame of every
 * stream; CPU time per frame over all of them. The kernel-bound rate is
 * 1 / the kernel time of one 1080p RGBA frame (above); %kbound = aggregate /
 * kernel-bound rate (issue 6's measure); device/s: the device's rate with K
 * streams (above), %dev = aggregate / device/s.
 *
 * Then issue 6's targets with met / not met, computed from the figures of
 * this run.
 *
 * Usage: cudagaussblur-cuda-memory-bench [--frames N] [--warmup N]
 *            [--sigma S] [--streams LIST|none] [--device D] [--csv FILE]
 * --sigma defaults to the element's own default, 2.
 * The plugin is found through GST_PLUGIN_PATH (if that is unset, the build
 * tree's gst/ folder). Exits 77 (skip) without the element, without memory
 * support in it (no memory:CUDAMemory on its sink pad template) or without
 * a CUDA device. --backend cpu (hidden, for checking the plumbing without a
 * GPU: harnesses, threads, tables, CSV) runs the element on the CPU with
 * frames in system memory and measures no kernel times; give it a few
 * frames (--frames 3 --warmup 1 --streams 1,2).
 *
 * GStreamer 1.22's CUDA buffer pools find the CUDA allocator by name, which
 * only gst_cuda_memory_init_once registers (nvcodec and cudagaussblur call
 * it before they make pools); the benchmark calls it for its own pools.
 */
#include <gst/gst.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include <cuda_runtime_api.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gaussblur.h"
#include "cuda_backend.h"
#include "filter.h"
#include "gstblurgeometry.h"
#include "bench_common.h"

#define PREFIX "cuda-memory-bench: "
#define CUDA_FEATURE GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY
#define RING_MIN 4              /* input buffers a stream, at least */
#define RING_BYTES (64u << 20)  /* input frames of all streams, at least */
/* Kernel timing, as bench/device_timing.h does it for the .cu benchmarks */
#define ROTATION_BYTES (256u << 20)     /* inputs + outputs, > 5x the L2 */
#define ROTATION_MIN 3
#define REPETITIONS 5           /* median of these batches */
#define MAX_BATCH 2000          /* launches a batch */
#define BATCH_MS 50.0

/* Issue 6's targets (H100, element-level, frames in CUDA memory). */
#define TARGET_1080P_RGBA_FPS 20000.0
#define TARGET_1080P_NV12_FPS 30000.0
#define TARGET_STREAMS 16
#define TARGET_KERNEL_BOUND_FRACTION 0.70

#define CSV_HEADER "kind,format,width,height,bytes,streams,frames," \
  "ring,out_memory,out_shared,frames_per_s,per_stream_frames_per_s," \
  "slowest_stream_frames_per_s,us_per_frame,latency_median_us," \
  "latency_p99_us,cpu_us_per_frame,algorithm,kernel_us,copy_us," \
  "core_round_trip_us,core_round_trip_cpu_us,core_sync_round_trip_us," \
  "core_sync_round_trip_cpu_us,kernel_bound_frames_per_s," \
  "fraction_of_kernel_bound,device_frames_per_s,fraction_of_device"

static const Case default_cases[] = {
  {"RGBA", 1920, 1080},
  {"NV12", 1920, 1080},
  {"RGBA", 3840, 2160},
};

/* The frames of the several-streams run: default_cases[STREAMS_CASE] */
#define STREAMS_CASE 0

/* The device's figures of one frame (measure_kernel), microseconds; valid
 * only with CUDA. */
typedef struct
{
  gboolean valid;
  GbAlgorithm algorithm;        /* what auto runs */
  gdouble kernel_us, copy_us;
  /* the core's round trip a frame (gb_blur_process_device): wall, CPU */
  gdouble round_trip_us, round_trip_cpu_us;
  /* the same waiting with cudaStreamSynchronize (gb_cuda_synchronize:
   * the context's scheduling, spinning) instead of the core's wait */
  gdouble spin_round_trip_us, spin_round_trip_cpu_us;
  gint rotation;                /* input frames rotated over */
} KernelTime;

typedef struct
{
  Case c;
  gint streams;                 /* 0: the single-stream table */
  gint frames;                  /* timed, per stream */
  gint ring;                    /* input buffers per stream */
  gsize bytes;                  /* the caps' frame */
  gchar in_memory[48], out_memory[48];
  gint out_shared;              /* timed outputs in the expected memory */
  gint out_total;
  gdouble fps;                  /* aggregate */
  gdouble per_stream_fps, slowest_fps, us_per_frame;
  gdouble latency_median, latency_p99, cpu_us;
  KernelTime kernel;
  /* several streams: the device's rate with as many of the core's handles
   * enqueued in turn, each on its own stream */
  gdouble device_fps;
} Result;

/* One harness and its input ring. */
typedef struct
{
  GstHarness *h;
  GstBus *bus;
  GstBufferPool *pool;          /* the ring's, with CUDA */
  GstBuffer **ring;
  gint n_ring;
  gdouble *latency;             /* the timed frames' */
  gint out_shared;
  gchar out_memory[48];
  gboolean ok;
  gdouble t_end;                /* CLOCK_MONOTONIC, us */
} Stream;

static struct
{
  gint frames;
  gint warmup;
  gdouble sigma;
  gchar *streams;
  gint device;
  gchar *csv;
  gchar *backend;
} opt = {
5000, 100, 2.0, NULL, -1, NULL, NULL};

static gboolean use_cuda;
static GstCudaContext *cuda_context;    /* the process's, with CUDA */
static GstContext *gst_cuda_context;    /* the same, as a GstContext */

const gchar bench_prefix[] = PREFIX;

/* "video/x-raw(memory:CUDAMemory),format=..." (system memory without CUDA) */
static gchar *
case_caps (const Case * c)
{
  return g_strdup_printf ("video/x-raw%s,format=%s,width=%d,height=%d,"
      "framerate=30/1", use_cuda ? "(" CUDA_FEATURE ")" : "", c->format,
      c->width, c->height);
}

static gboolean
case_info (const Case * c, GstVideoInfo * info)
{
  if (gst_video_info_set_format (info, gst_video_format_from_string
          (c->format), c->width, c->height))
    return TRUE;
  g_printerr (PREFIX "cannot lay out %s %dx%d\n", c->format, c->width,
      c->height);
  return FALSE;
}

/* Input buffers a stream of `streams`: the ring of all of them holds
 * RING_BYTES at least. */
static gint
ring_size (gsize bytes, gint streams)
{
  const gsize per_stream = (RING_BYTES + (gsize) streams * bytes - 1)
      / ((gsize) streams * bytes);

  return MAX (RING_MIN, (gint) per_stream);
}

/* A CUDA pool of the shared context for caps, active; NULL on failure. */
static GstBufferPool *
cuda_pool_new (const gchar * caps_str, gsize size)
{
  GstBufferPool *pool = gst_cuda_buffer_pool_new (cuda_context);
  GstCaps *caps = gst_caps_from_string (caps_str);
  GstStructure *config = gst_buffer_pool_get_config (pool);

  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_params (config, caps, size, 0, 0);
  gst_caps_unref (caps);
  if (!gst_buffer_pool_set_config (pool, config)
      || !gst_buffer_pool_set_active (pool, TRUE)) {
    g_printerr (PREFIX "cannot make a CUDA buffer pool for %s\n", caps_str);
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

static void
cuda_pool_free (GstBufferPool * pool)
{
  if (pool) {
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
  }
}

/* Fills a buffer with the pattern. CUDA memory: through its staging copy
 * (a plain map), then a CUDA map, which uploads it now rather than at the
 * element's first map of it. */
static gboolean
fill_buffer (GstBuffer * buffer)
{
  GstMapInfo map;

  if (!gst_buffer_map (buffer, &map, GST_MAP_WRITE)) {
    g_printerr (PREFIX "cannot map an input buffer\n");
    return FALSE;
  }
  bench_fill_pattern (map.data, map.size);
  gst_buffer_unmap (buffer, &map);
  if (!use_cuda)
    return TRUE;
  if (!gst_buffer_map (buffer, &map, GST_MAP_READ | GST_MAP_CUDA)) {
    g_printerr (PREFIX "cannot upload an input buffer\n");
    return FALSE;
  }
  gst_buffer_unmap (buffer, &map);
  return TRUE;
}

/* CUDA memory of the shared context (with CUDA), else system memory. */
static gboolean
is_expected_memory (GstBuffer * buffer)
{
  GstMemory *mem;

  if (gst_buffer_n_memory (buffer) == 0)
    return FALSE;
  mem = gst_buffer_peek_memory (buffer, 0);
  if (use_cuda)
    return gst_is_cuda_memory (mem)
        && GST_CUDA_MEMORY_CAST (mem)->context == cuda_context;
  return gst_memory_is_type (mem, GST_ALLOCATOR_SYSMEM);
}

/* Short name of a buffer's (first) memory type. */
static void
describe_memory (GstBuffer * buffer, gchar * out, gsize out_size)
{
  GstMemory *mem = gst_buffer_n_memory (buffer) > 0
      ? gst_buffer_peek_memory (buffer, 0) : NULL;

  if (!mem || !mem->allocator)
    g_strlcpy (out, "none", out_size);
  else if (gst_is_cuda_memory (mem))
    g_strlcpy (out, GST_CUDA_MEMORY_CAST (mem)->context == cuda_context
        ? "cuda" : "cuda-other-ctx", out_size);
  else if (gst_memory_is_type (mem, GST_ALLOCATOR_SYSMEM))
    g_strlcpy (out, "system", out_size);
  else
    g_strlcpy (out, mem->allocator->mem_type, out_size);
}

/* --- kernel time: the core in the shared context --- */

/* Frames in CUDA memory laid out as the element's (from a CUDA pool of the
 * shared context), mapped for the device, and handles of the core's CUDA
 * backend to blur them, each on its own stream. */
typedef struct
{
  GstVideoInfo info;
  GbGeometry geometry;
  GstBufferPool *pool;
  gsize bytes;                  /* the frame's: the copy's */
  gint count;                   /* input frames (and as many outputs) */
  GstBuffer **in_buf, **out_buf;
  GstVideoFrame *in, *out;
  GbImage *in_img, *out_img;
  gint n_cuda;
  GbCuda **cuda;
  cudaStream_t *streams;        /* theirs; streams[0] carries the events */
  cudaEvent_t *joins;           /* [h]: streams[h]'s end of a batch */
  gint n_active;                /* handles a batch uses in turn */
  GbAlgorithm algorithm;        /* what auto runs */
  GbError error;
} Rotation;

typedef gboolean (*Enqueue) (Rotation * r, gint i);

/* Frame i % count by handle i % n_active. */
static gboolean
enqueue_blur (Rotation * r, gint i)
{
  const gint k = i % r->count;

  return gb_cuda_enqueue (r->cuda[i % r->n_active], &r->in_img[k],
      &r->out_img[k], r->algorithm, GB_BORDER_CLAMP, &r->error) == GB_OK;
}

/* One flat copy of the frame's bytes. */
static gboolean
enqueue_copy (Rotation * r, gint i)
{
  const gint k = i % r->count;
  cudaError_t err = cudaMemcpyAsync (GST_VIDEO_FRAME_PLANE_DATA (&r->out[k],
          0), GST_VIDEO_FRAME_PLANE_DATA (&r->in[k], 0), r->bytes,
      cudaMemcpyDeviceToDevice, r->streams[0]);

  if (err != cudaSuccess)
    gb_error_set (&r->error, GB_ERROR_CUDA, "copy: %s",
        cudaGetErrorString (err));
  return err == cudaSuccess;
}

/* Milliseconds from an event before `launches` enqueues to one after; with
 * several handles active, their streams start after the first event and
 * the second waits for all of them. */
static gboolean
time_batch (Rotation * r, Enqueue enqueue, gint launches, cudaEvent_t start,
    cudaEvent_t stop, gfloat * ms)
{
  cudaStream_t main_stream = r->streams[0];
  gboolean ok;
  gint i, h;

  ok = bench_cuda_check (cudaEventRecord (start, main_stream), "event");
  for (h = 1; ok && h < r->n_active; h++)
    ok = bench_cuda_check (cudaStreamWaitEvent (r->streams[h], start, 0),
        "fork");
  for (i = 0; ok && i < launches; i++)
    if (!enqueue (r, i)) {
      g_printerr (PREFIX "%s\n", r->error.message);
      ok = FALSE;
    }
  /* joined even after a failure: nothing may run on when the frames go */
  for (h = 1; h < r->n_active; h++)
    if (!bench_cuda_check (cudaEventRecord (r->joins[h], r->streams[h]),
            "join")
        || !bench_cuda_check (cudaStreamWaitEvent (main_stream, r->joins[h],
                0), "join")) {
      cudaStreamSynchronize (r->streams[h]);
      ok = FALSE;
    }
  if (!ok) {
    cudaStreamSynchronize (main_stream);
    return FALSE;
  }
  return bench_cuda_check (cudaEventRecord (stop, main_stream), "event")
      && bench_cuda_check (cudaEventSynchronize (stop), "the timed launches")
      && bench_cuda_check (cudaEventElapsedTime (ms, start, stop),
      "event time");
}

/* Median over REPETITIONS of the mean time of one launch, microseconds:
 * one warm-up launch, one timed to size the batches (BATCH_MS each, at
 * most MAX_BATCH launches). */
static gboolean
time_launches (Rotation * r, Enqueue enqueue, gdouble * us)
{
  cudaEvent_t start = NULL, stop = NULL;
  gdouble samples[REPETITIONS];
  gfloat ms = 0;
  gboolean ok;
  gint iterations, i;

  ok = bench_cuda_check (cudaEventCreate (&start), "event")
      && bench_cuda_check (cudaEventCreate (&stop), "event")
      && time_batch (r, enqueue, r->n_active, start, stop, &ms)
      && time_batch (r, enqueue, r->n_active, start, stop, &ms);
  iterations = CLAMP ((gint) (BATCH_MS * r->n_active / MAX (ms, 1e-3f)),
      r->n_active, MAX_BATCH);
  for (i = 0; ok && i < REPETITIONS; i++) {
    ok = time_batch (r, enqueue, iterations, start, stop, &ms);
    samples[i] = 1e3 * ms / iterations;
  }
  if (start)
    cudaEventDestroy (start);
  if (stop)
    cudaEventDestroy (stop);
  if (ok)
    *us = bench_quantile (samples, REPETITIONS, 0.5);
  return ok;
}

/* The plane auto decides for, as the handle picks it: the first with the
 * most samples. */
static gint
largest_plane (const GbGeometry * geometry)
{
  gsize most = 0;
  gint p, largest = 0;

  for (p = 0; p < geometry->n_planes; p++) {
    const GbPlaneGeometry *g = &geometry->planes[p];
    const gsize samples = (gsize) g->width * g->height * g->channels;

    if (samples > most) {
      most = samples;
      largest = p;
    }
  }
  return largest;
}

/* Maps count buffers of the pool for the device into frames and images. */
static gboolean
rotation_map (GstBufferPool * pool, const GstVideoInfo * info, gint count,
    GstMapFlags flags, gboolean fill, GstBuffer ** buffers,
    GstVideoFrame * frames, GbImage * images)
{
  gint i;
  guint p;

  for (i = 0; i < count; i++) {
    if (gst_buffer_pool_acquire_buffer (pool, &buffers[i], NULL)
        != GST_FLOW_OK) {
      buffers[i] = NULL;
      g_printerr (PREFIX "cannot allocate the timed frames\n");
      return FALSE;
    }
    /* buffers[i] stays set only when mapped */
    if ((fill && !fill_buffer (buffers[i]))
        || !gst_video_frame_map (&frames[i], info, buffers[i],
            (GstMapFlags) (flags | GST_MAP_CUDA))) {
      gst_buffer_unref (buffers[i]);
      buffers[i] = NULL;
      g_printerr (PREFIX "cannot map the timed frames\n");
      return FALSE;
    }
    for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&frames[i]); p++) {
      images[i].data[p] = GST_VIDEO_FRAME_PLANE_DATA (&frames[i], p);
      images[i].stride[p] = GST_VIDEO_FRAME_PLANE_STRIDE (&frames[i], p);
    }
  }
  return TRUE;
}

static void
rotation_unmap (gint count, GstBuffer ** buffers, GstVideoFrame * frames)
{
  gint i;

  for (i = 0; buffers && i < count; i++)
    if (buffers[i]) {
      gst_video_frame_unmap (&frames[i]);
      gst_buffer_unref (buffers[i]);
    }
}

/* Undoes rotation_open, with the shared context current. */
static void
rotation_close (Rotation * r)
{
  gint h;

  for (h = 0; r->cuda && h < r->n_cuda; h++) {
    if (r->joins[h])
      cudaEventDestroy (r->joins[h]);
    if (r->cuda[h])
      gb_cuda_destroy (r->cuda[h]);
  }
  rotation_unmap (r->count, r->in_buf, r->in);
  rotation_unmap (r->count, r->out_buf, r->out);
  cuda_pool_free (r->pool);
  g_free (r->cuda);
  g_free (r->streams);
  g_free (r->joins);
  g_free (r->in_buf);
  g_free (r->out_buf);
  g_free (r->in);
  g_free (r->out);
  g_free (r->in_img);
  g_free (r->out_img);
  memset (r, 0, sizeof *r);
}

/* The case's frames rotating over ROTATION_BYTES (min_count input frames
 * at least), filled, and n_cuda handles made in the current context (the
 * shared one) for filters; FALSE (message printed) on failure, r to be
 * closed all the same. */
static gboolean
rotation_open (Rotation * r, const Case * c, gint min_count, gint n_cuda,
    const GbPlaneFilter * filters)
{
  GstStructure *config;
  gchar *caps_str;
  gsize memory_bytes;
  guint size = 0;
  gint h, largest;

  memset (r, 0, sizeof *r);
  if (!case_info (c, &r->info))
    return FALSE;
  gst_cuda_gauss_blur_geometry_from_info (&r->info, &r->geometry);
  caps_str = case_caps (c);
  r->pool = cuda_pool_new (caps_str, GST_VIDEO_INFO_SIZE (&r->info));
  g_free (caps_str);
  if (!r->pool)
    return FALSE;
  /* the pool's (pitched) size */
  config = gst_buffer_pool_get_config (r->pool);
  gst_buffer_pool_config_get_params (config, NULL, &size, NULL, NULL);
  gst_structure_free (config);
  memory_bytes = MAX (size, GST_VIDEO_INFO_SIZE (&r->info));
  r->bytes = GST_VIDEO_INFO_SIZE (&r->info);
  r->count = MAX (MAX (ROTATION_MIN, min_count),
      (gint) ((ROTATION_BYTES + 2 * memory_bytes - 1) / (2 * memory_bytes)));
  r->in_buf = g_new0 (GstBuffer *, r->count);
  r->out_buf = g_new0 (GstBuffer *, r->count);
  r->in = g_new0 (GstVideoFrame, r->count);
  r->out = g_new0 (GstVideoFrame, r->count);
  r->in_img = g_new0 (GbImage, r->count);
  r->out_img = g_new0 (GbImage, r->count);
  if (!rotation_map (r->pool, &r->info, r->count, GST_MAP_READ, TRUE,
          r->in_buf, r->in, r->in_img)
      || !rotation_map (r->pool, &r->info, r->count, GST_MAP_WRITE, FALSE,
          r->out_buf, r->out, r->out_img))
    return FALSE;

  r->n_cuda = n_cuda;
  r->n_active = 1;
  r->cuda = g_new0 (GbCuda *, n_cuda);
  r->streams = g_new0 (cudaStream_t, n_cuda);
  r->joins = g_new0 (cudaEvent_t, n_cuda);
  for (h = 0; h < n_cuda; h++) {
    if (gb_cuda_create (GB_DEVICE_CURRENT_CONTEXT, &r->cuda[h], &r->error)
        != GB_OK || gb_cuda_configure (r->cuda[h], &r->geometry, &r->error)
        != GB_OK || gb_cuda_set_filters (r->cuda[h], filters, &r->error)
        != GB_OK) {
      g_printerr (PREFIX "the core in the shared context: %s\n",
          r->error.message);
      return FALSE;
    }
    r->streams[h] = (cudaStream_t) gb_cuda_stream (r->cuda[h]);
    if (!bench_cuda_check (cudaEventCreateWithFlags (&r->joins[h],
                cudaEventDisableTiming), "event"))
      return FALSE;
  }
  largest = largest_plane (&r->geometry);
  r->algorithm = gb_cuda_auto_algorithm (r->cuda[0], &filters[largest],
      &r->geometry, largest);
  return TRUE;
}

/* The core's round trip a frame, over the rotation's frames, one after
 * the other: with params, as the element calls it on the device path
 * (gb_blur_process_device: enqueue, then gb_cuda_wait); without, the
 * first handle's enqueue and gb_cuda_synchronize. Wall and CPU time per
 * frame, microseconds. */
static gboolean
time_round_trip (Rotation * r, const GbParams * params, gdouble * us,
    gdouble * cpu_us)
{
  GbBlur *blur = NULL;
  gdouble t_start = 0, cpu_start = 0;
  gboolean ok = TRUE;
  gint i;

  if (params)
    ok = gb_blur_create (GB_BACKEND_CUDA, GB_DEVICE_CURRENT_CONTEXT,
        &r->geometry, &blur, &r->error) == GB_OK
        && gb_blur_set_params (blur, params, &r->error) == GB_OK;
  for (i = -opt.warmup; ok && i < opt.frames; i++) {
    const gint k = (i + opt.warmup) % r->count;

    if (i == 0) {
      t_start = bench_now_us (CLOCK_MONOTONIC);
      cpu_start = bench_now_us (CLOCK_PROCESS_CPUTIME_ID);
    }
    if (blur)
      ok = gb_blur_process_device (blur, &r->in_img[k], &r->out_img[k],
          &r->error) == GB_OK;
    else
      ok = gb_cuda_enqueue (r->cuda[0], &r->in_img[k], &r->out_img[k],
          r->algorithm, GB_BORDER_CLAMP, &r->error) == GB_OK
          && gb_cuda_synchronize (r->cuda[0], &r->error) == GB_OK;
  }
  if (ok) {
    *cpu_us = (bench_now_us (CLOCK_PROCESS_CPUTIME_ID) - cpu_start)
        / opt.frames;
    *us = (bench_now_us (CLOCK_MONOTONIC) - t_start) / opt.frames;
  } else {
    g_printerr (PREFIX "the core's round trip: %s\n", r->error.message);
  }
  if (blur)
    gb_blur_destroy (blur);
  return ok;
}

/* The kernel time, the copy and the core's round trip of one frame of the
 * case, in the shared context, as the header comment says. With
 * stream_counts (n of them), also the device's rate with that many handles
 * enqueued in turn, each on its own stream, into device_fps. */
static gboolean
measure_kernel (const Case * c, const gint * stream_counts, gint n,
    KernelTime * kt, gdouble * device_fps)
{
  /* one per plane; large: not on the stack */
  static GbPlaneFilter filters[GB_MAX_PLANES];
  GstVideoInfo info;
  GbGeometry geometry;
  GbParams params;
  Rotation r;
  gboolean ok;
  gint i, most = 1;

  memset (kt, 0, sizeof *kt);
  memset (&r, 0, sizeof r);
  kt->kernel_us = kt->copy_us = kt->round_trip_us = kt->round_trip_cpu_us =
      kt->spin_round_trip_us = kt->spin_round_trip_cpu_us = NAN;
  for (i = 0; i < n; i++) {
    device_fps[i] = NAN;
    most = MAX (most, stream_counts[i]);
  }
  if (!case_info (c, &info))
    return FALSE;
  gst_cuda_gauss_blur_geometry_from_info (&info, &geometry);
  gb_params_init (&params, opt.sigma);  /* auto, clamp */
  gb_plane_filters_resolve (&params, &geometry, filters);
  if (!gst_cuda_context_push (cuda_context)) {
    g_printerr (PREFIX "cannot make the CUDA context current\n");
    return FALSE;
  }
  /* more frames than handles: kernels enqueued one after the other on
   * different streams write different frames */
  ok = rotation_open (&r, c, most + 1, most, filters);
  if (ok) {
    kt->rotation = r.count;
    kt->algorithm = r.algorithm;
    ok = time_launches (&r, enqueue_copy, &kt->copy_us)
        && time_launches (&r, enqueue_blur, &kt->kernel_us)
        && time_round_trip (&r, &params, &kt->round_trip_us,
        &kt->round_trip_cpu_us)
        && time_round_trip (&r, NULL, &kt->spin_round_trip_us,
        &kt->spin_round_trip_cpu_us);
  }
  for (i = 0; ok && i < n; i++) {
    gdouble us;

    r.n_active = stream_counts[i];
    ok = time_launches (&r, enqueue_blur, &us);
    device_fps[i] = 1e6 / us;
  }
  kt->valid = ok;
  rotation_close (&r);
  gst_cuda_context_pop (NULL);
  return ok;
}

/* --- the element --- */

/* Prints the element's warnings and errors; how many there were. */
static gint
report_bus_messages (GstBus * bus)
{
  gint n = 0;

  while (bench_report_bus_message (bus,
          GST_MESSAGE_ERROR | GST_MESSAGE_WARNING))
    n++;
  return n;
}

static gboolean
push_pull (Stream * s, GstBuffer * input, GstBuffer ** output)
{
  GstFlowReturn flow = gst_harness_push (s->h, gst_buffer_ref (input));

  if (flow != GST_FLOW_OK) {
    g_printerr (PREFIX "push failed: %s\n", gst_flow_get_name (flow));
    report_bus_messages (s->bus);
    return FALSE;
  }
  *output = gst_harness_pull (s->h);
  if (!*output) {
    g_printerr (PREFIX "no output buffer\n");
    return FALSE;
  }
  return TRUE;
}

static void
stream_free (Stream * s)
{
  gint i;

  for (i = 0; s->ring && i < s->n_ring; i++)
    if (s->ring[i])
      gst_buffer_unref (s->ring[i]);
  g_free (s->ring);
  cuda_pool_free (s->pool);
  if (s->h) {
    /* queued messages hold the element */
    gst_bus_set_flushing (s->bus, TRUE);
    gst_harness_teardown (s->h);
  }
  if (s->bus)
    gst_object_unref (s->bus);
  g_free (s->latency);
  memset (s, 0, sizeof *s);
}

/* A harness around a new element (given the shared context before it
 * starts), its ring of n_ring input buffers filled, warmed up; the timed
 * loop's latencies for frames. in_memory: the inputs' memory. */
static gboolean
stream_setup (Stream * s, const Case * c, gint n_ring, gint frames,
    gchar * in_memory, gsize in_memory_size)
{
  GstElement *element = gst_element_factory_make (ELEMENT, NULL);
  GstVideoInfo info;
  gchar *caps_str;
  gboolean ok = TRUE;
  gint i;

  memset (s, 0, sizeof *s);
  if (!element) {
    g_printerr (PREFIX "cannot make a " ELEMENT "\n");
    return FALSE;
  }
  if (!case_info (c, &info)) {
    gst_object_unref (element);
    return FALSE;
  }
  s->bus = gst_bus_new ();
  /* GST_ELEMENT_ERROR and warnings reach us only through a bus */
  gst_element_set_bus (element, s->bus);
  g_object_set (element, "sigma", opt.sigma, "cuda-device-id", opt.device,
      NULL);
  gst_util_set_object_arg (G_OBJECT (element), "backend", opt.backend);
  if (use_cuda)
    gst_element_set_context (element, gst_cuda_context);
  /* starts it */
  s->h = gst_harness_new_with_element (element, "sink", "src");
  gst_object_unref (element);
  caps_str = case_caps (c);
  gst_harness_set_caps_str (s->h, caps_str, caps_str);

  s->n_ring = n_ring;
  s->ring = g_new0 (GstBuffer *, n_ring);
  if (use_cuda && !(s->pool = cuda_pool_new (caps_str,
              GST_VIDEO_INFO_SIZE (&info))))
    ok = FALSE;
  g_free (caps_str);
  for (i = 0; ok && i < n_ring; i++) {
    if (s->pool) {
      ok = gst_buffer_pool_acquire_buffer (s->pool, &s->ring[i], NULL)
          == GST_FLOW_OK;
      if (!ok)
        g_printerr (PREFIX "cannot allocate an input frame\n");
    } else {
      s->ring[i] = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info),
          NULL);
    }
    ok = ok && fill_buffer (s->ring[i]);
  }
  if (ok && in_memory)
    describe_memory (s->ring[0], in_memory, in_memory_size);
  s->latency = g_new (gdouble, MAX (frames, 1));

  for (i = 0; ok && i < opt.warmup; i++) {
    GstBuffer *output = NULL;

    ok = push_pull (s, s->ring[i % s->n_ring], &output);
    if (ok && i == 0)
      describe_memory (output, s->out_memory, sizeof s->out_memory);
    if (output)
      gst_buffer_unref (output);
  }
  if (ok && report_bus_messages (s->bus) > 0)
    ok = FALSE;
  return ok;
}

/* frames pushed and pulled, each timed and its output checked. */
static gboolean
stream_run (Stream * s, gint frames)
{
  gint i;

  s->ok = TRUE;
  s->out_shared = 0;
  for (i = 0; s->ok && i < frames; i++) {
    const gdouble t0 = bench_now_us (CLOCK_MONOTONIC);
    GstBuffer *output = NULL;

    s->ok = push_pull (s, s->ring[i % s->n_ring], &output);
    s->latency[i] = bench_now_us (CLOCK_MONOTONIC) - t0;
    if (s->ok) {
      s->out_shared += is_expected_memory (output);
      if (!s->out_memory[0])
        describe_memory (output, s->out_memory, sizeof s->out_memory);
      gst_buffer_unref (output);
    }
  }
  s->t_end = bench_now_us (CLOCK_MONOTONIC);
  return s->ok;
}

/* Fails loudly where an output was not in the expected memory or the
 * element complained: the figures would say nothing of the device path. */
static gboolean
check_outputs (const Result * r, Stream * streams, gint n)
{
  gint i, messages = 0;

  for (i = 0; i < n; i++)
    messages += report_bus_messages (streams[i].bus);
  if (r->out_shared == r->out_total && messages == 0)
    return TRUE;
  if (r->out_shared != r->out_total)
    g_printerr (PREFIX "FAILED: %d of %d output buffers are not %s (%s): "
        "the element did not blur %s; these figures are meaningless\n",
        r->out_total - r->out_shared, r->out_total,
        use_cuda ? "CUDA memory of the shared context" : "system memory",
        r->out_memory, use_cuda ? "on the device" : "as asked");
  if (messages > 0)
    g_printerr (PREFIX "FAILED: the element posted %d warning(s) or "
        "error(s) (above)\n", messages);
  return FALSE;
}

/* streams 0: the single-stream table (one stream). */
static void
result_init (Result * r, const Case * c, gint streams,
    const KernelTime * kernel)
{
  GstVideoInfo info;

  memset (r, 0, sizeof *r);
  r->c = *c;
  r->streams = streams;
  r->frames = opt.frames;
  r->bytes = case_info (c, &info) ? GST_VIDEO_INFO_SIZE (&info) : 1;
  r->ring = ring_size (r->bytes, MAX (streams, 1));
  r->kernel = *kernel;
  r->fps = r->per_stream_fps = r->slowest_fps = r->us_per_frame = NAN;
  r->latency_median = r->latency_p99 = r->cpu_us = r->device_fps = NAN;
}

/* One stream on this thread. */
static gboolean
run_single (const Case * c, const KernelTime * kernel, Result * r)
{
  Stream s;
  gdouble t_start, cpu_start, wall, cpu;
  gboolean ok;

  result_init (r, c, 0, kernel);
  ok = stream_setup (&s, c, r->ring, opt.frames, r->in_memory,
      sizeof r->in_memory);
  if (ok) {
    t_start = bench_now_us (CLOCK_MONOTONIC);
    cpu_start = bench_now_us (CLOCK_PROCESS_CPUTIME_ID);
    ok = stream_run (&s, opt.frames);
    cpu = bench_now_us (CLOCK_PROCESS_CPUTIME_ID) - cpu_start;
    wall = s.t_end - t_start;
    g_strlcpy (r->out_memory, s.out_memory, sizeof r->out_memory);
    r->out_shared = s.out_shared;
    r->out_total = opt.frames;
    if (ok) {
      r->fps = r->per_stream_fps = r->slowest_fps = opt.frames / (wall * 1e-6);
      r->us_per_frame = wall / opt.frames;
      r->cpu_us = cpu / opt.frames;
      r->latency_p99 = bench_quantile (s.latency, opt.frames, 0.99);
      r->latency_median = bench_quantile (s.latency, opt.frames, 0.5);
      ok = check_outputs (r, &s, 1);
    }
  }
  stream_free (&s);
  return ok;
}

/* The common start of the streams' threads. */
static struct
{
  GMutex lock;
  GCond cond;
  gint ready;
  gboolean go;
} gate;

static gpointer
stream_thread (gpointer data)
{
  Stream *s = data;

  g_mutex_lock (&gate.lock);
  gate.ready++;
  g_cond_broadcast (&gate.cond);
  while (!gate.go)
    g_cond_wait (&gate.cond, &gate.lock);
  g_mutex_unlock (&gate.lock);
  stream_run (s, opt.frames);
  return NULL;
}

/* n streams at once, each on its own thread. */
static gboolean
run_streams (gint n, const KernelTime * kernel, gdouble device_fps,
    Result * r)
{
  const Case *c = &default_cases[STREAMS_CASE];
  Stream *streams = g_new0 (Stream, n);
  GThread **threads = g_new0 (GThread *, n);
  gdouble t_start = 0, cpu_start = 0, t_end = 0, cpu = 0, slowest = 0;
  gdouble *latency = NULL;
  gboolean ok = TRUE;
  gint i, started = 0;

  result_init (r, c, n, kernel);
  r->device_fps = device_fps;
  for (i = 0; ok && i < n; i++)
    ok = stream_setup (&streams[i], c, r->ring, opt.frames,
        i == 0 ? r->in_memory : NULL, sizeof r->in_memory);

  g_mutex_lock (&gate.lock);
  gate.ready = 0;
  gate.go = FALSE;
  g_mutex_unlock (&gate.lock);
  for (i = 0; ok && i < n; i++) {
    gchar name[16];

    g_snprintf (name, sizeof name, "stream-%d", i);
    threads[i] = g_thread_new (name, stream_thread, &streams[i]);
    started++;
  }
  g_mutex_lock (&gate.lock);
  while (gate.ready < started)
    g_cond_wait (&gate.cond, &gate.lock);
  t_start = bench_now_us (CLOCK_MONOTONIC);
  cpu_start = bench_now_us (CLOCK_PROCESS_CPUTIME_ID);
  gate.go = TRUE;
  g_cond_broadcast (&gate.cond);
  g_mutex_unlock (&gate.lock);
  for (i = 0; i < started; i++)
    g_thread_join (threads[i]);
  cpu = bench_now_us (CLOCK_PROCESS_CPUTIME_ID) - cpu_start;

  if (ok) {
    latency = g_new (gdouble, (gsize) n * opt.frames);
    r->out_total = n * opt.frames;
    for (i = 0; i < n; i++) {
      ok = ok && streams[i].ok;
      t_end = MAX (t_end, streams[i].t_end);
      slowest = MAX (slowest, streams[i].t_end - t_start);
      r->out_shared += streams[i].out_shared;
      memcpy (latency + (gsize) i * opt.frames, streams[i].latency,
          sizeof *latency * opt.frames);
    }
    g_strlcpy (r->out_memory, streams[0].out_memory, sizeof r->out_memory);
  }
  if (ok) {
    const gdouble wall = t_end - t_start;

    r->fps = (gdouble) n * opt.frames / (wall * 1e-6);
    r->per_stream_fps = r->fps / n;
    r->slowest_fps = opt.frames / (slowest * 1e-6);
    r->us_per_frame = 1e6 / r->fps;
    r->cpu_us = cpu / ((gdouble) n * opt.frames);
    r->latency_p99 = bench_quantile (latency, n * opt.frames, 0.99);
    r->latency_median = bench_quantile (latency, n * opt.frames, 0.5);
    ok = check_outputs (r, streams, n);
  }
  g_free (latency);
  for (i = 0; i < n; i++)
    stream_free (&streams[i]);
  g_free (threads);
  g_free (streams);
  return ok;
}

/* --- output --- */

static gdouble
kernel_bound_fps (const KernelTime * k)
{
  return k->valid ? 1e6 / k->kernel_us : NAN;
}

static void
print_kernel (const Case * c, const KernelTime * k)
{
  GstVideoInfo info;

  if (!k->valid || !case_info (c, &info))
    return;
  g_print ("kernel %-6s %dx%d, %.2f MB: %s %.1f us (%.0f frames/s), "
      "copy %.1f us (%.0f GB/s read + written), over %d frames\n",
      c->format, c->width, c->height, GST_VIDEO_INFO_SIZE (&info) / 1e6,
      gb_algorithm_name (k->algorithm), k->kernel_us, 1e6 / k->kernel_us,
      k->copy_us, 2.0 * GST_VIDEO_INFO_SIZE (&info) / k->copy_us * 1e-3,
      k->rotation);
  g_print ("       the core's round trip a frame: %.1f us, CPU %.1f us "
      "(gb_blur_process_device, waiting as the element does); %.1f us, CPU "
      "%.1f us (enqueue + cudaStreamSynchronize)\n", k->round_trip_us,
      k->round_trip_cpu_us, k->spin_round_trip_us,
      k->spin_round_trip_cpu_us);
}

static void
print_single_header (void)
{
  g_print ("\n%-6s %-9s %4s %-6s %-16s %9s %8s %8s %8s %7s  %-9s %6s %6s "
      "%7s %6s %6s\n", "format", "size", "ring", "in-mem", "out-mem (ok)",
      "frames/s", "us/frame", "lat-med", "lat-p99", "cpu-us", "algorithm",
      "kernel", "copy", "core-rt", "gst-us", "xkern");
}

static void
print_single (const Result * r)
{
  gchar a[32], b[32], d[32], e[32], f[32];
  gchar out[64];
  const KernelTime *k = &r->kernel;

  g_snprintf (out, sizeof out, "%s %d/%d", r->out_memory, r->out_shared,
      r->out_total);
  g_print ("%-6s %4dx%-4d %4d %-6s %-16s %9.1f %8.1f %8.1f %8.1f %7.1f  "
      "%-9s %6s %6s %7s %6s %6s\n", r->c.format, r->c.width, r->c.height,
      r->ring, r->in_memory, out, r->fps, r->us_per_frame, r->latency_median,
      r->latency_p99, r->cpu_us, k->valid ? gb_algorithm_name (k->algorithm)
      : "-", bench_fmt (a, sizeof a, "%.1f", k->kernel_us),
      bench_fmt (b, sizeof b, "%.1f", k->copy_us),
      bench_fmt (d, sizeof d, "%.1f", k->round_trip_us),
      bench_fmt (f, sizeof f, "%.1f", r->us_per_frame - k->round_trip_us),
      bench_fmt (e, sizeof e, "%.2f", r->us_per_frame / k->kernel_us));
}

static void
print_streams_header (const KernelTime * k)
{
  gchar a[32], b[32];

  g_print ("\nStreams: 1920x1080 RGBA, one element each, one thread each, "
      "%d frames a stream; kernel-bound rate 1 / %s us = %s frames/s (%s, "
      "this run)\n", opt.frames, bench_fmt (a, sizeof a, "%.1f", k->kernel_us),
      bench_fmt (b, sizeof b, "%.0f", kernel_bound_fps (k)),
      k->valid ? gb_algorithm_name (k->algorithm) : "no kernel time");
  g_print ("%7s %4s %-16s %11s %12s %10s %7s %9s %5s %8s %8s %7s\n",
      "streams", "ring", "out-mem (ok)", "aggregate/s", "per-stream/s",
      "slowest/s", "%kbound", "device/s", "%dev", "lat-med", "lat-p99",
      "cpu-us");
}

static void
print_streams (const Result * r)
{
  gchar a[32], b[32], d[32];
  gchar out[64];

  g_snprintf (out, sizeof out, "%s %d/%d", r->out_memory, r->out_shared,
      r->out_total);
  g_print ("%7d %4d %-16s %11.1f %12.1f %10.1f %7s %9s %5s %8.1f %8.1f "
      "%7.1f\n", r->streams, r->ring, out, r->fps, r->per_stream_fps,
      r->slowest_fps, bench_fmt (a, sizeof a, "%.1f", 100.0 * r->fps
          / kernel_bound_fps (&r->kernel)),
      bench_fmt (b, sizeof b, "%.0f", r->device_fps),
      bench_fmt (d, sizeof d, "%.0f", 100.0 * r->fps / r->device_fps),
      r->latency_median, r->latency_p99, r->cpu_us);
}

static const Result *
find_single (const Result * results, gint n, const gchar * format,
    gint width, gint height)
{
  gint i;

  for (i = 0; i < n; i++)
    if (results[i].streams == 0 && g_str_equal (results[i].c.format, format)
        && results[i].c.width == width && results[i].c.height == height)
      return &results[i];
  return NULL;
}

static void
target_rate (const Result * r, const gchar * target, gdouble fps)
{
  gchar measured[64];

  if (!r) {
    bench_target (target, "case not run", BENCH_NA);
    return;
  }
  g_snprintf (measured, sizeof measured, "%.0f frames/s (%.1f us a frame)",
      r->fps, r->us_per_frame);
  bench_target (target, measured, r->fps >= fps);
}

static void
print_targets (const Result * results, gint n)
{
  const Result *multi = NULL;
  gchar measured[64], target[96];
  gint i;

  for (i = 0; i < n; i++)
    if (results[i].streams == TARGET_STREAMS)
      multi = &results[i];

  bench_targets_begin ("issue 6; H100, element-level, frames in CUDA memory",
      !use_cuda, 38);
  target_rate (find_single (results, n, "RGBA", 1920, 1080),
      "1920x1080 RGBA, one element: >= 20000 frames/s (<= 50 us)",
      TARGET_1080P_RGBA_FPS);
  target_rate (find_single (results, n, "NV12", 1920, 1080),
      "1920x1080 NV12, one element: >= 30000 frames/s",
      TARGET_1080P_NV12_FPS);
  g_snprintf (target, sizeof target, "%d streams of 1080p RGBA: >= %.0f%% of "
      "the kernel-bound rate", TARGET_STREAMS,
      100 * TARGET_KERNEL_BOUND_FRACTION);
  if (!multi) {
    bench_target (target, "not run (--streams)", BENCH_NA);
  } else if (!multi->kernel.valid) {
    bench_target (target, "no kernel time", BENCH_NA);
  } else {
    const gdouble bound = kernel_bound_fps (&multi->kernel);

    g_snprintf (measured, sizeof measured, "%.1f%% (%.0f of %.0f frames/s)",
        100.0 * multi->fps / bound, multi->fps, bound);
    bench_target (target, measured,
        multi->fps >= TARGET_KERNEL_BOUND_FRACTION * bound);
  }
  bench_targets_end ();
}

/* A CSV number, or empty where not measured. */
static const gchar *
csv_num (gchar * buf, const gchar * format, gdouble value)
{
  if (isnan (value))
    return "";
  return g_ascii_formatd (buf, G_ASCII_DTOSTR_BUF_SIZE, format, value);
}

static gboolean
write_csv (const gchar * path, const Result * results, gint n)
{
  GString *s = g_string_new (CSV_HEADER "\n");
  gint i;

  for (i = 0; i < n; i++) {
    const Result *r = &results[i];
    const KernelTime *k = &r->kernel;
    const gdouble bound = kernel_bound_fps (k);
    gchar v[18][G_ASCII_DTOSTR_BUF_SIZE];

    g_string_append_printf (s, "%s,%s,%d,%d,%zu,%d,%d,%d,%s,%d,%s,%s,%s,%s,"
        "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n",
        r->streams ? "streams" : "single",
        r->c.format, r->c.width, r->c.height, r->bytes, MAX (r->streams, 1),
        r->frames, r->ring, r->out_memory, r->out_shared,
        csv_num (v[0], "%.1f", r->fps),
        csv_num (v[1], "%.1f", r->per_stream_fps),
        csv_num (v[2], "%.1f", r->slowest_fps),
        csv_num (v[3], "%.2f", r->us_per_frame),
        csv_num (v[4], "%.2f", r->latency_median),
        csv_num (v[5], "%.2f", r->latency_p99),
        csv_num (v[6], "%.2f", r->cpu_us),
        k->valid ? gb_algorithm_name (k->algorithm) : "",
        csv_num (v[7], "%.2f", k->kernel_us),
        csv_num (v[8], "%.2f", k->copy_us),
        csv_num (v[9], "%.2f", k->round_trip_us),
        csv_num (v[10], "%.2f", k->round_trip_cpu_us),
        csv_num (v[11], "%.2f", k->spin_round_trip_us),
        csv_num (v[12], "%.2f", k->spin_round_trip_cpu_us),
        csv_num (v[13], "%.1f", bound),
        csv_num (v[14], "%.4f", r->fps / bound),
        csv_num (v[15], "%.1f", r->device_fps),
        csv_num (v[16], "%.4f", r->fps / r->device_fps));
  }
  return bench_write_file (path, s);
}

/* "1,2,4" into counts; NULL (message printed) if it is not such a list.
 * "none": no streams. */
static GArray *
parse_streams (const gchar * list)
{
  GArray *counts = g_array_new (FALSE, FALSE, sizeof (gint));
  gchar **items;
  gint i;

  if (g_str_equal (list, "none"))
    return counts;
  items = g_strsplit (list, ",", -1);
  for (i = 0; items[i]; i++) {
    gchar *end = NULL;
    gint64 k = g_ascii_strtoll (items[i], &end, 10);

    if (end == items[i] || *end || k < 1 || k > 1024) {
      g_printerr (PREFIX "--streams: \"%s\" is not a count from 1 to 1024 "
          "(e.g. 1,2,4,8,16, or none)\n", items[i]);
      g_array_free (counts, TRUE);
      g_strfreev (items);
      return NULL;
    }
    {
      const gint count = (gint) k;

      g_array_append_val (counts, count);
    }
  }
  g_strfreev (items);
  return counts;
}

/* Whether the factory's sink pad template takes CUDA memory. */
static gboolean
takes_cuda_memory (GstElementFactory * factory)
{
  const GList *l;
  gboolean found = FALSE;

  for (l = gst_element_factory_get_static_pad_templates (factory); l;
      l = l->next) {
    GstStaticPadTemplate *tmpl = l->data;
    GstCaps *caps;
    guint i;

    if (tmpl->direction != GST_PAD_SINK)
      continue;
    caps = gst_static_pad_template_get_caps (tmpl);
    for (i = 0; i < gst_caps_get_size (caps); i++) {
      GstCapsFeatures *features = gst_caps_get_features (caps, i);

      found |= features && !gst_caps_features_is_any (features)
          && gst_caps_features_contains (features, CUDA_FEATURE);
    }
    gst_caps_unref (caps);
  }
  return found;
}

/* The shared context, or a skip (77) or failure (1) status with its
 * message printed; 0 when there is one. */
static gint
open_device (void)
{
  GstAllocator *allocator;
  const gint device = opt.device >= 0 ? opt.device : 0;
  gint count = 0;
  cudaError_t err = cudaGetDeviceCount (&count);

  if (err != cudaSuccess || count == 0) {
    g_print (PREFIX "skipped, no usable CUDA device: %s\n",
        err != cudaSuccess ? cudaGetErrorString (err) : "none found");
    return 77;
  }
  if (device >= count) {
    g_printerr (PREFIX "CUDA device %d does not exist (%d present)\n",
        device, count);
    return 1;
  }
  if (!gst_cuda_load_library ()) {
    g_print (PREFIX "skipped, GStreamer's CUDA library cannot load the CUDA "
        "driver (libcuda)\n");
    return 77;
  }
  /* GStreamer 1.22's CUDA pools find their allocator by name: someone must
   * have registered it (nvcodec does when it loads) */
  allocator = gst_allocator_find (GST_CUDA_MEMORY_TYPE_NAME);
  if (allocator)
    gst_object_unref (allocator);
  else
    g_print ("note: no plugin loaded so far registered GStreamer's CUDA "
        "allocator (gst_cuda_memory_init_once); the benchmark does, for its "
        "pools\n");
  gst_cuda_memory_init_once ();
  cuda_context = gst_cuda_context_new (device);
  if (!cuda_context) {
    g_printerr (PREFIX "cannot make a CUDA context on device %d\n", device);
    return 1;
  }
  return 0;
}

int
main (int argc, char **argv)
{
  GOptionEntry entries[] = {
    {"frames", 'n', 0, G_OPTION_ARG_INT, &opt.frames,
        "Timed frames per case and per stream (default 5000)", "N"},
    {"warmup", 0, 0, G_OPTION_ARG_INT, &opt.warmup,
        "Untimed frames first, per stream (default 100)", "N"},
    {"sigma", 0, 0, G_OPTION_ARG_DOUBLE, &opt.sigma,
        "Sigma (default 2, the element's)", "S"},
    {"streams", 0, 0, G_OPTION_ARG_STRING, &opt.streams,
        "Stream counts of the multi-stream run (default 1,2,4,8,16; none: "
        "no such run)", "LIST"},
    {"device", 0, 0, G_OPTION_ARG_INT, &opt.device,
        "CUDA device of the shared context (the elements' cuda-device-id; "
        "default -1: device 0)", "D"},
    {"csv", 0, 0, G_OPTION_ARG_FILENAME, &opt.csv,
        "Also write every row to FILE", "FILE"},
    {"backend", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, &opt.backend,
        "Element backend (cuda; cpu only to check the plumbing, in system "
        "memory)", "B"},
    {NULL}
  };
  GstElementFactory *factory;
  GstPlugin *plugin;
  GArray *stream_counts;
  Result *results;
  KernelTime *kernels;
  gdouble *device_fps;
  gint n_results = 0, status = 0;
  guint i;

  if (!bench_parse_options ("- cudagaussblur with frames in CUDA memory "
          "against the kernel time", entries, &argc, &argv))
    return 2;
  if (!opt.backend)
    opt.backend = g_strdup ("cuda");
  if (opt.frames < 1 || opt.warmup < 0 || opt.sigma <= 0
      || opt.sigma > GB_MAX_SIGMA) {
    g_printerr (PREFIX "--frames must be >= 1, --warmup >= 0, --sigma in "
        "(0, %g]\n", GB_MAX_SIGMA);
    return 2;
  }
  if (!g_str_equal (opt.backend, "cuda") && !g_str_equal (opt.backend, "cpu")) {
    g_printerr (PREFIX "--backend is cuda or cpu\n");
    return 2;
  }
  stream_counts = parse_streams (opt.streams ? opt.streams : "1,2,4,8,16");
  if (!stream_counts)
    return 2;
  use_cuda = g_str_equal (opt.backend, "cuda");

  factory = bench_find_element ();
  if (!factory)
    return 77;
  if (use_cuda && !takes_cuda_memory (factory)) {
    g_print (PREFIX "skipped, " ELEMENT " was built without CUDA memory "
        "support (no " CUDA_FEATURE " on its sink pad template: meson "
        "option gst_cuda, gstreamer-cuda-1.0)\n");
    gst_object_unref (factory);
    return 77;
  }
  plugin = gst_plugin_feature_get_plugin (GST_PLUGIN_FEATURE (factory));
  if (use_cuda) {
    struct cudaDeviceProp prop;
    gint device = opt.device >= 0 ? opt.device : 0;

    /* loads the plugin: what it registers counts for the note below */
    GstPluginFeature *loaded = gst_plugin_feature_load (GST_PLUGIN_FEATURE
        (factory));

    if (loaded)
      gst_object_unref (loaded);
    status = open_device ();
    if (status != 0) {
      if (plugin)
        gst_object_unref (plugin);
      gst_object_unref (factory);
      return status;
    }
    gst_cuda_context = gst_context_new_cuda_context (cuda_context);
    if (!gst_cuda_context_push (cuda_context)
        || !bench_cuda_check (cudaGetDeviceProperties (&prop, device),
            "cannot read the device's properties"))
      return 1;
    gst_cuda_context_pop (NULL);
    g_print ("device: %s (CUDA device %d, %d SMs, L2 %d MB); one "
        "GstCudaContext shared by every element and the kernel timing\n",
        prop.name, device, prop.multiProcessorCount, prop.l2CacheSize >> 20);
  } else {
    g_print ("device: none, backend %s, frames in system memory: element "
        "plumbing only, no kernel times\n", opt.backend);
  }
  bench_print_element (plugin);
  if (plugin)
    gst_object_unref (plugin);
  gst_object_unref (factory);
  g_print ("backend %s, sigma %g, border clamp, algorithm auto; %d frames "
      "per case and per stream after %d warm-up; input rings of >= %u MB "
      "(>= %d buffers a stream)\n", opt.backend, opt.sigma, opt.frames,
      opt.warmup, RING_BYTES >> 20, RING_MIN);
  if (use_cuda)
    g_print ("kernel times: the core in the shared context, frames from a "
        "CUDA pool rotating over >= %u MB, median of %d batches of ~%.0f ms "
        "between CUDA events\n", ROTATION_BYTES >> 20, REPETITIONS, BATCH_MS);

  results = g_new0 (Result, G_N_ELEMENTS (default_cases) + stream_counts->len);
  kernels = g_new0 (KernelTime, G_N_ELEMENTS (default_cases));
  device_fps = g_new (gdouble, stream_counts->len + 1);
  for (i = 0; i < stream_counts->len; i++)
    device_fps[i] = NAN;

  /* The device's figures first, then one stream */
  if (use_cuda)
    g_print ("\n");
  for (i = 0; i < G_N_ELEMENTS (default_cases); i++) {
    kernels[i].kernel_us = kernels[i].copy_us = NAN;
    kernels[i].round_trip_us = kernels[i].round_trip_cpu_us = NAN;
    kernels[i].spin_round_trip_us = kernels[i].spin_round_trip_cpu_us = NAN;
    if (use_cuda) {
      /* the streams' case: also the device's rate with as many handles */
      const gboolean streams = i == STREAMS_CASE;

      if (!measure_kernel (&default_cases[i], streams
              ? (const gint *) stream_counts->data : NULL,
              streams ? (gint) stream_counts->len : 0, &kernels[i],
              device_fps)) {
        status = 1;
        break;
      }
      print_kernel (&default_cases[i], &kernels[i]);
    }
  }
  for (i = 0; use_cuda && status == 0 && i < stream_counts->len; i++)
    g_print ("%s%d: %.0f frames/s", i == 0 ? "device rate of the core's "
        "1080p RGBA kernels, handles enqueued in turn on their own streams, "
        "by number of streams: " : ", ", g_array_index (stream_counts, gint,
            i), device_fps[i]);
  if (use_cuda && status == 0 && stream_counts->len > 0)
    g_print ("\n");
  if (status == 0)
    print_single_header ();
  for (i = 0; status == 0 && i < G_N_ELEMENTS (default_cases); i++) {
    Result *r = &results[n_results];

    if (!run_single (&default_cases[i], &kernels[i], r)) {
      g_printerr (PREFIX "%s %dx%d failed\n", default_cases[i].format,
          default_cases[i].width, default_cases[i].height);
      status = 1;
      break;
    }
    print_single (r);
    n_results++;
  }
  if (status == 0)
    g_print ("(ring: input buffers; out-mem (ok): the outputs' memory and how "
        "many were %s; lat: push to pull, us; cpu-us: process CPU time per "
        "frame; kernel, copy: one frame on the device, us; core-rt: the "
        "core's round trip a frame (gb_blur_process_device: launch, kernel, "
        "wait); gst-us = us/frame - core-rt: what GStreamer and the "
        "element add; xkern = us/frame / kernel)\n", use_cuda
        ? "CUDA memory of the shared context" : "system memory");

  /* Several streams */
  if (status == 0 && stream_counts->len > 0)
    print_streams_header (&kernels[STREAMS_CASE]);
  for (i = 0; status == 0 && i < stream_counts->len; i++) {
    Result *r = &results[n_results];
    const gint n = g_array_index (stream_counts, gint, i);

    if (!run_streams (n, &kernels[STREAMS_CASE], device_fps[i], r)) {
      g_printerr (PREFIX "%d streams failed\n", n);
      status = 1;
      break;
    }
    print_streams (r);
    n_results++;
  }
  if (status == 0 && stream_counts->len > 0)
    g_print ("(aggregate = streams x frames / (last end - common start); "
        "per-stream = aggregate / streams; slowest: the slowest stream's own "
        "rate; %%kbound = aggregate / kernel-bound rate; device/s: the "
        "core's kernels alone with as many streams (above); %%dev = "
        "aggregate / device/s; lat, cpu-us: over every frame of every "
        "stream)\n");

  if (n_results > 0)
    print_targets (results, n_results);
  if (opt.csv && n_results > 0 && !write_csv (opt.csv, results, n_results))
    status = 1;

  g_free (device_fps);
  g_free (kernels);
  g_free (results);
  g_array_free (stream_counts, TRUE);
  if (gst_cuda_context)
    gst_context_unref (gst_cuda_context);
  if (cuda_context)
    gst_object_unref (cuda_context);
  return status;
}

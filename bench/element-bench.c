/* cudagaussblur-element-bench: the element with frames in system memory,
 * against the PCIe copy floor (issue 5).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Pushes N frames through `cudagaussblur` in a GstHarness (the source costs
 * nothing: a small ring of frames, filled once, pushed again and again) and
 * pulls each output, for every case (format x size) in two modes:
 *  - pool: the input frames come from the harness's allocation query, that
 *    is from the pool the element proposes upstream (page-locked memory with
 *    the CUDA backend);
 *  - pageable: the input frames are plain system memory
 *    (gst_buffer_new_allocate with the default allocator).
 * Output buffers are whatever the element decides (the harness's sink offers
 * no pool, so the element's own pinned pool with the CUDA backend). The
 * memory type of the input and output buffers is checked and printed.
 *
 * Per case: frames/s (N / time from the first timed push to the last
 * output), latency per frame (from the start of its gst_harness_push to its
 * output leaving the element's source pad, seen by a pad probe: with
 * frames-in-flight > 1 the element's own thread pushes it, after the push
 * of a later input may have begun) median and 99th percentile (nearest
 * rank), CPU time per frame
 * (the process's CPU time, every thread, over the timed loop / N), and the
 * copy floors measured in the same run with the CUDA runtime: host-to-device
 * and device-to-host of one frame (its whole size, one flat copy) from
 * page-locked (cudaHostAlloc) and pageable (malloc) memory, each the median
 * of FLOOR_REPETITIONS copies timed with a host clock from the call to the
 * end of cudaStreamSynchronize (what a synchronous element sees). The floor
 * of a case is H2D + D2H: pinned for the pool mode, pageable for the pageable
 * mode (the "pageable copy floor"; the element's output is pinned all
 * the same where its own pool serves, which the "pageable in, pinned out"
 * line shows). Then the issue's targets with met / not met, computed from
 * the figures of this run.
 *
 * Usage: cudagaussblur-element-bench [--frames N] [--warmup N]
 *            [--format F] [--width W [--height H]] [--sigma S]
 *            [--mode pool|pageable|both] [--device D] [--csv FILE]
 *            [--frames-in-flight N] [--rate FPS] [--latencies FILE]
 *            [--roi N]
 * --roi N sets sigma-map=roi and gives every input frame N regions of
 * interest (GstVideoRegionOfInterestMeta, type "face"), 140x180 each at
 * 1920 pixels wide (scaled with the width), on a grid of 4 columns; the
 * ring's frames alternate between two positions 3 pixels right and 2 down
 * of each other, so the regions move every frame, as a detector's do.
 * --frames-in-flight sets the element's property. --rate pushes at a fixed
 * rate (sleeping between pushes), as a live source would: the latency of a
 * frame then has no wait for the frames before it, which pushing as fast as
 * the element takes them adds (at a rate R with n frames queued, each
 * waits about n / R). --latencies writes every timed frame's push time
 * (from the case's first timed push) and latency, in microseconds, one line
 * a frame, to see whether a high percentile comes from a few stalls or from
 * every frame.
 * Default cases: 1920x1080 RGBA, 3840x2160 RGBA, 1920x1080 GRAY8,
 * 1920x1080 NV12. --format keeps that format's cases (1920x1080 if it has
 * none); --width replaces the sizes (height 9/16 of the width unless
 * --height). The plugin is found through GST_PLUGIN_PATH (if that is unset,
 * the build tree's gst/ folder). Exits 77 (skip) without the element or
 * without a CUDA device. --backend cpu (hidden, for checking the plumbing
 * without a GPU) runs the element on the CPU and measures no floors.
 */
#include <gst/gst.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include <cuda_runtime_api.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gaussblur.h"
#include "bench_common.h"

#define PINNED_MEMORY_TYPE "CudaGaussBlurPinnedMemory"
#define RING 4                  /* input frames pushed in turn */
#define FLOOR_WARMUP 3
#define FLOOR_REPETITIONS 25

/* Issue 5's targets (H100, backend cuda). */
#define TARGET_1080P_RGBA_FPS 4000.0
#define TARGET_1080P_RGBA_LATENCY_US 350.0
#define TARGET_4K_RGBA_FPS 1000.0
#define TARGET_GRAY8_OVER_RGBA 3.0
#define TARGET_PAGEABLE_OVER_FLOOR 1.2

#define CSV_HEADER "format,width,height,mode,frames_in_flight,rate," \
  "bytes,frames,in_memory," \
  "in_from_pool,out_memory,out_pinned_frames,frames_per_s,us_per_frame," \
  "latency_median_us,latency_p99_us,cpu_us_per_frame,h2d_pinned_us," \
  "d2h_pinned_us,h2d_pageable_us,d2h_pageable_us,floor_us,ratio_to_floor"

typedef enum
{
  MODE_POOL,
  MODE_PAGEABLE,
} Mode;

static const gchar *const mode_names[] = { "pool", "pageable" };

static const Case default_cases[] = {
  {"RGBA", 1920, 1080},
  {"RGBA", 3840, 2160},
  {"GRAY8", 1920, 1080},
  {"NV12", 1920, 1080},
};

/* Medians of one frame's copies, in microseconds; valid only where the
 * CUDA backend runs. */
typedef struct
{
  gsize bytes;
  gboolean valid;
  gdouble h2d_pinned, d2h_pinned, h2d_pageable, d2h_pageable;
} Floors;

typedef struct
{
  Case c;
  Mode mode;
  gsize bytes;
  gint frames;
  gchar in_memory[48], out_memory[48];
  gboolean in_from_pool;
  gint out_pinned;              /* timed outputs in pinned memory */
  gdouble fps, us_per_frame, latency_median, latency_p99, cpu_us;
  Floors floors;
  gdouble floor_us;             /* the mode's H2D + D2H; NAN without floors */
} Result;

static struct
{
  gint frames;
  gint warmup;
  gchar *format;
  gint width, height;
  gdouble sigma;
  gchar *mode;
  gint device;
  gchar *csv;
  gchar *latencies;
  gchar *backend;
  gint in_flight;
  gdouble rate;
  gint roi;
} opt = {
500, 20, NULL, 0, 0, 3.0, NULL, -1, NULL, NULL, NULL, 1, 0.0, 0};

static gboolean use_cuda;

const gchar bench_prefix[] = "element-bench: ";

typedef enum
{
  H2D,
  D2H,
} Direction;

/* Median time of one copy of bytes between host and device, host clock
 * from the call to the end of the stream's synchronisation. */
static gboolean
time_copy (void *host, void *device, gsize bytes, Direction dir,
    cudaStream_t stream, gdouble * median)
{
  gdouble times[FLOOR_REPETITIONS];
  gint i;

  for (i = -FLOOR_WARMUP; i < FLOOR_REPETITIONS; i++) {
    const gdouble t0 = bench_now_us (CLOCK_MONOTONIC);
    cudaError_t err = dir == H2D
        ? cudaMemcpyAsync (device, host, bytes, cudaMemcpyHostToDevice, stream)
        : cudaMemcpyAsync (host, device, bytes, cudaMemcpyDeviceToHost, stream);
    if (err == cudaSuccess)
      err = cudaStreamSynchronize (stream);
    if (!bench_cuda_check (err, dir == H2D ? "host-to-device copy"
            : "device-to-host copy"))
      return FALSE;
    if (i >= 0)
      times[i] = bench_now_us (CLOCK_MONOTONIC) - t0;
  }
  *median = bench_quantile (times, FLOOR_REPETITIONS, 0.5);
  return TRUE;
}

static gboolean
measure_floors (gsize bytes, Floors * floors)
{
  void *pinned = NULL, *device = NULL;
  guint8 *pageable;
  cudaStream_t stream = NULL;
  gboolean ok;

  memset (floors, 0, sizeof *floors);
  floors->bytes = bytes;
  pageable = malloc (bytes);
  if (!pageable) {
    g_printerr ("element-bench: cannot allocate %zu bytes\n", bytes);
    return FALSE;
  }
  bench_fill_pattern (pageable, bytes); /* faults every page in */
  ok = bench_cuda_check (cudaStreamCreateWithFlags (&stream,
          cudaStreamNonBlocking), "cannot create a stream")
      && bench_cuda_check (cudaHostAlloc (&pinned, bytes, cudaHostAllocDefault),
      "cannot allocate page-locked memory")
      && bench_cuda_check (cudaMalloc (&device, bytes),
      "cannot allocate device memory");
  if (ok) {
    bench_fill_pattern (pinned, bytes);
    ok = time_copy (pinned, device, bytes, H2D, stream, &floors->h2d_pinned)
        && time_copy (pinned, device, bytes, D2H, stream, &floors->d2h_pinned)
        && time_copy (pageable, device, bytes, H2D, stream,
        &floors->h2d_pageable)
        && time_copy (pageable, device, bytes, D2H, stream,
        &floors->d2h_pageable);
  }
  if (device)
    cudaFree (device);
  if (pinned)
    cudaFreeHost (pinned);
  if (stream)
    cudaStreamDestroy (stream);
  free (pageable);
  floors->valid = ok;
  return ok;
}

/* Short name of a buffer's (first) memory type. */
static void
describe_memory (GstBuffer * buffer, gchar * out, gsize out_size)
{
  GstMemory *mem = gst_buffer_n_memory (buffer) > 0
      ? gst_buffer_peek_memory (buffer, 0) : NULL;

  if (!mem || !mem->allocator)
    g_strlcpy (out, "none", out_size);
  else if (gst_memory_is_type (mem, PINNED_MEMORY_TYPE))
    g_strlcpy (out, "pinned", out_size);
  else if (gst_memory_is_type (mem, GST_ALLOCATOR_SYSMEM))
    g_strlcpy (out, "system", out_size);
  else
    g_strlcpy (out, mem->allocator->mem_type, out_size);
}

static gboolean
is_pinned (GstBuffer * buffer)
{
  return gst_buffer_n_memory (buffer) > 0
      && gst_memory_is_type (gst_buffer_peek_memory (buffer, 0),
      PINNED_MEMORY_TYPE);
}

/* When each output left the element (its source pad), in order: k-th
 * output, k-th input. Written by whichever thread pushes (the streaming
 * thread, or the element's own with frames in flight). */
typedef struct
{
  gdouble *at;
  gint capacity;
  gint count;                   /* atomic */
  gint first_timed;             /* outputs before it are the warm-up's */
  gint pinned;                  /* timed outputs in pinned memory */
  gchar memory[48];             /* the first output's memory */
} Arrivals;

static GstPadProbeReturn
arrival_probe (G_GNUC_UNUSED GstPad * pad, GstPadProbeInfo * info,
    gpointer user_data)
{
  Arrivals *arrivals = user_data;
  GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER (info);
  const gint k = g_atomic_int_get (&arrivals->count);

  if (k < arrivals->capacity)
    arrivals->at[k] = bench_now_us (CLOCK_MONOTONIC);
  if (k == 0)
    describe_memory (buffer, arrivals->memory, sizeof arrivals->memory);
  if (k >= arrivals->first_timed)
    arrivals->pinned += is_pinned (buffer);
  g_atomic_int_set (&arrivals->count, k + 1);
  return GST_PAD_PROBE_OK;
}

/* Waits (sleeping) until `count` outputs have left the element. */
static gboolean
wait_arrivals (Arrivals * arrivals, gint count)
{
  const gdouble deadline = bench_now_us (CLOCK_MONOTONIC) + 10e6;

  while (g_atomic_int_get (&arrivals->count) < count)
    if (bench_now_us (CLOCK_MONOTONIC) > deadline) {
      g_printerr ("element-bench: %d of %d outputs after 10 s\n",
          g_atomic_int_get (&arrivals->count), count);
      return FALSE;
    } else {
      g_usleep (50);
    }
  return TRUE;
}

/* --roi: ring frame i's regions of interest (see the usage above). */
static void
add_regions (GstBuffer * buffer, const GstVideoInfo * info, gint i)
{
  const gint width = 140 * GST_VIDEO_INFO_WIDTH (info) / 1920;
  const gint height = 180 * GST_VIDEO_INFO_WIDTH (info) / 1920;
  const gint rows = (opt.roi + 3) / 4;
  gint r;

  for (r = 0; r < opt.roi; r++) {
    const gint cx = (2 * (r % 4) + 1) * GST_VIDEO_INFO_WIDTH (info) / 8;
    const gint cy = (2 * (r / 4) + 1) * GST_VIDEO_INFO_HEIGHT (info)
        / (2 * rows);
    gst_buffer_add_video_region_of_interest_meta (buffer, "face",
        cx - width / 2 + 3 * (i % 2), cy - height / 2 + 2 * (i % 2), width,
        height);
  }
}

/* Pushes n frames of the ring, from frame `first` on; with opt.rate, frame
 * i at start + i / rate. Each push's start into pushed_at (if not NULL). */
static gboolean
push_frames (GstHarness * h, GstBus * bus, GstBuffer ** ring, gint first,
    gint n, gdouble * pushed_at)
{
  const gdouble start = bench_now_us (CLOCK_MONOTONIC);
  gint i;

  for (i = 0; i < n; i++) {
    GstFlowReturn flow;

    if (opt.rate > 0.0)
      bench_sleep_until_us (start + i * 1e6 / opt.rate);
    if (pushed_at)
      pushed_at[i] = bench_now_us (CLOCK_MONOTONIC);
    flow = gst_harness_push (h, gst_buffer_ref (ring[(first + i) % RING]));
    if (flow != GST_FLOW_OK) {
      g_printerr ("element-bench: push failed: %s\n",
          gst_flow_get_name (flow));
      bench_report_bus_message (bus, GST_MESSAGE_ERROR);
      return FALSE;
    }
  }
  return TRUE;
}

/* --latencies: one line per timed frame, appended (a file for all cases). */
static void
write_latencies (const Result * r, const gdouble * pushed_at, gdouble t_start,
    const gdouble * latency)
{
  FILE *file = fopen (opt.latencies, "a");

  if (!file) {
    g_printerr ("element-bench: cannot write %s\n", opt.latencies);
    return;
  }
  fseek (file, 0, SEEK_END);
  if (ftell (file) == 0)
    fprintf (file, "format,width,height,mode,frames_in_flight,rate,frame,"
        "pushed_us,latency_us\n");
  for (gint i = 0; i < r->frames; i++)
    fprintf (file, "%s,%d,%d,%s,%d,%.1f,%d,%.1f,%.1f\n", r->c.format,
        r->c.width, r->c.height, mode_names[r->mode], opt.in_flight,
        opt.rate, i, pushed_at[i] - t_start, latency[i]);
  fclose (file);
}

static gboolean
run_case (const Case * c, Mode mode, const Floors * floors, Result * result)
{
  GstHarness *h = gst_harness_new (ELEMENT);
  GstBus *bus = gst_bus_new ();
  GstBuffer *ring[RING] = { NULL };
  Arrivals arrivals = { 0 };
  GstPad *srcpad;
  gchar *caps_str;
  GstCaps *caps;
  GstVideoInfo info;
  gdouble *latency, *pushed_at, t_start, cpu_start, wall, cpu;
  gboolean ok = TRUE;
  gint i;

  memset (result, 0, sizeof *result);
  result->c = *c;
  result->mode = mode;
  result->frames = opt.frames;
  result->floors = *floors;

  /* GST_ELEMENT_ERROR reaches us only through a bus. */
  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "sigma", opt.sigma, "cuda-device-id", opt.device,
      "frames-in-flight", opt.in_flight, NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "backend", opt.backend);
  if (opt.roi > 0)
    gst_util_set_object_arg (G_OBJECT (h->element), "sigma-map", "roi");
  caps_str = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,"
      "framerate=30/1", c->format, c->width, c->height);
  caps = gst_caps_from_string (caps_str);
  if (!caps || !gst_video_info_from_caps (&info, caps)) {
    g_printerr ("element-bench: bad caps %s\n", caps_str);
    ok = FALSE;
  }
  if (caps)
    gst_caps_unref (caps);
  if (ok)
    gst_harness_set_src_caps_str (h, caps_str);
  g_free (caps_str);
  result->bytes = ok ? GST_VIDEO_INFO_SIZE (&info) : 0;

  /* The ring: from the harness's allocation (the element's proposal) or
   * plain system memory, filled once. */
  for (i = 0; ok && i < RING; i++) {
    GstMapInfo map;

    ring[i] = mode == MODE_POOL
        ? gst_harness_create_buffer (h, GST_VIDEO_INFO_SIZE (&info))
        : gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
    if (!gst_buffer_map (ring[i], &map, GST_MAP_WRITE)) {
      g_printerr ("element-bench: cannot map an input buffer\n");
      ok = FALSE;
      break;
    }
    bench_fill_pattern (map.data, map.size);
    gst_buffer_unmap (ring[i], &map);
    if (opt.roi > 0)
      add_regions (ring[i], &info, i);
  }
  if (ok) {
    describe_memory (ring[0], result->in_memory, sizeof result->in_memory);
    result->in_from_pool = ring[0]->pool != NULL;
  }

  /* Outputs are timed as they leave the element and dropped at once
   * (their pool's buffers go back). */
  arrivals.capacity = opt.warmup + opt.frames;
  arrivals.at = g_new0 (gdouble, arrivals.capacity);
  arrivals.first_timed = opt.warmup;
  srcpad = gst_element_get_static_pad (h->element, "src");
  gst_pad_add_probe (srcpad, GST_PAD_PROBE_TYPE_BUFFER, arrival_probe,
      &arrivals, NULL);
  gst_object_unref (srcpad);
  gst_harness_set_drop_buffers (h, TRUE);
  if (ok)
    ok = push_frames (h, bus, ring, 0, opt.warmup, NULL)
        && wait_arrivals (&arrivals, opt.warmup);

  latency = g_new (gdouble, opt.frames);
  pushed_at = g_new (gdouble, opt.frames);
  t_start = bench_now_us (CLOCK_MONOTONIC);
  cpu_start = bench_now_us (CLOCK_PROCESS_CPUTIME_ID);
  if (ok)
    ok = push_frames (h, bus, ring, opt.warmup, opt.frames, pushed_at)
        && wait_arrivals (&arrivals, opt.warmup + opt.frames);
  cpu = bench_now_us (CLOCK_PROCESS_CPUTIME_ID) - cpu_start;
  wall = (ok ? arrivals.at[opt.warmup + opt.frames - 1]
      : bench_now_us (CLOCK_MONOTONIC)) - t_start;

  if (ok) {
    for (i = 0; i < opt.frames; i++)
      latency[i] = arrivals.at[opt.warmup + i] - pushed_at[i];
    g_strlcpy (result->out_memory, arrivals.memory,
        sizeof result->out_memory);
    result->out_pinned = arrivals.pinned;
    result->fps = opt.frames / (wall * 1e-6);
    result->us_per_frame = wall / opt.frames;
    result->cpu_us = cpu / opt.frames;
    if (opt.latencies)
      write_latencies (result, pushed_at, t_start, latency);
    result->latency_p99 = bench_quantile (latency, opt.frames, 0.99);
    result->latency_median = bench_quantile (latency, opt.frames, 0.5);
    if (floors->valid)
      result->floor_us = mode == MODE_POOL
          ? floors->h2d_pinned + floors->d2h_pinned
          : floors->h2d_pageable + floors->d2h_pageable;
    else
      result->floor_us = NAN;
  }
  g_free (pushed_at);
  g_free (latency);
  for (i = 0; i < RING; i++)
    if (ring[i])
      gst_buffer_unref (ring[i]);
  /* queued messages hold the element */
  gst_bus_set_flushing (bus, TRUE);
  gst_harness_teardown (h);
  gst_object_unref (bus);
  g_free (arrivals.at);
  return ok;
}

static void
print_result (const Result * r)
{
  gchar a[32], b[32], d[32], e[32], f[32];
  gchar out[64];
  const gdouble ratio = r->us_per_frame / r->floor_us;

  g_snprintf (out, sizeof out, "%s %d/%d", r->out_memory, r->out_pinned,
      r->frames);
  g_print ("%-6s %4dx%-4d %-8s %-7s%-4s %-16s %9.1f %8.1f %8.1f %8.1f %8.1f"
      "  %7s %7s %8s %6s\n", r->c.format, r->c.width, r->c.height,
      mode_names[r->mode], r->in_memory, r->in_from_pool ? "(p)" : "", out,
      r->fps, r->us_per_frame, r->latency_median, r->latency_p99, r->cpu_us,
      bench_fmt (a, sizeof a, "%.1f", r->mode == MODE_POOL
          ? r->floors.h2d_pinned : r->floors.h2d_pageable),
      bench_fmt (b, sizeof b, "%.1f", r->mode == MODE_POOL
          ? r->floors.d2h_pinned : r->floors.d2h_pageable),
      bench_fmt (d, sizeof d, "%.1f", r->floor_us),
      bench_fmt (e, sizeof e, "%.2f", ratio));
  if (use_cuda && r->mode == MODE_POOL && !g_str_equal (r->in_memory,
          "pinned"))
    g_print ("  note: the input buffers are not pinned: the element "
        "proposed no pinned pool\n");
  if (use_cuda && r->out_pinned < r->frames)
    g_print ("  note: %d of %d output buffers not pinned\n",
        r->frames - r->out_pinned, r->frames);
  if (r->mode == MODE_PAGEABLE && r->floors.valid && r->out_pinned > 0)
    g_print ("%-6s %4dx%-4d %-8s   (pageable in, pinned out: floor %s us = "
        "pageable H2D + pinned D2H)\n", "", r->c.width, r->c.height, "",
        bench_fmt (f, sizeof f, "%.1f", r->floors.h2d_pageable
            + r->floors.d2h_pinned));
}

/* bytes per microsecond / 1000: GB/s */
static gdouble
gb_per_s (gsize bytes, gdouble us)
{
  return bytes / us * 1e-3;
}

static void
print_floors (const Case * c, const Floors * fl)
{
  g_print ("floor  %-6s %dx%d, %.2f MB: pinned H2D %.1f us (%.1f GB/s), "
      "D2H %.1f us (%.1f GB/s); pageable H2D %.1f us (%.1f GB/s), "
      "D2H %.1f us (%.1f GB/s)\n", c->format, c->width, c->height,
      fl->bytes / 1e6,
      fl->h2d_pinned, gb_per_s (fl->bytes, fl->h2d_pinned),
      fl->d2h_pinned, gb_per_s (fl->bytes, fl->d2h_pinned),
      fl->h2d_pageable, gb_per_s (fl->bytes, fl->h2d_pageable),
      fl->d2h_pageable, gb_per_s (fl->bytes, fl->d2h_pageable));
}

static const Result *
find_result (const Result * results, gint n, const gchar * format,
    gint width, gint height, Mode mode)
{
  gint i;

  for (i = 0; i < n; i++)
    if (g_str_equal (results[i].c.format, format)
        && results[i].c.width == width && results[i].c.height == height
        && results[i].mode == mode)
      return &results[i];
  return NULL;
}

static void
print_targets (const Result * results, gint n)
{
  const Result *rgba = find_result (results, n, "RGBA", 1920, 1080,
      MODE_POOL);
  const Result *rgba4k = find_result (results, n, "RGBA", 3840, 2160,
      MODE_POOL);
  gchar measured[64], target[96];
  gint i;

  bench_targets_begin ("issue 5; H100, backend cuda", !use_cuda, 34);

  if (rgba) {
    g_snprintf (measured, sizeof measured, "%.0f frames/s", rgba->fps);
    bench_target ("1920x1080 RGBA, pool: >= 4000 frames/s", measured,
        rgba->fps >= TARGET_1080P_RGBA_FPS);
    g_snprintf (measured, sizeof measured, "p99 %.1f us (median %.1f)",
        rgba->latency_p99, rgba->latency_median);
    bench_target ("1920x1080 RGBA, pool: each frame out within 350 us (p99)",
        measured, rgba->latency_p99 <= TARGET_1080P_RGBA_LATENCY_US);
  } else {
    bench_target ("1920x1080 RGBA, pool: >= 4000 frames/s", "case not run",
        BENCH_NA);
    bench_target ("1920x1080 RGBA, pool: each frame out within 350 us (p99)",
        "case not run", BENCH_NA);
  }
  if (rgba4k) {
    g_snprintf (measured, sizeof measured, "%.0f frames/s", rgba4k->fps);
    bench_target ("3840x2160 RGBA, pool: >= 1000 frames/s", measured,
        rgba4k->fps >= TARGET_4K_RGBA_FPS);
  } else
    bench_target ("3840x2160 RGBA, pool: >= 1000 frames/s", "case not run",
        BENCH_NA);

  /* GRAY8 against RGBA at each size and mode run for both */
  for (i = 0; i < n; i++) {
    const Result *gray = &results[i];
    const Result *base;

    if (!g_str_equal (gray->c.format, "GRAY8"))
      continue;
    base = find_result (results, n, "RGBA", gray->c.width, gray->c.height,
        gray->mode);
    g_snprintf (target, sizeof target, "%dx%d GRAY8, %s: >= 3x RGBA's "
        "frames/s", gray->c.width, gray->c.height, mode_names[gray->mode]);
    if (!base) {
      bench_target (target, "no RGBA case of that size", BENCH_NA);
      continue;
    }
    g_snprintf (measured, sizeof measured, "%.2fx (%.0f / %.0f)",
        gray->fps / base->fps, gray->fps, base->fps);
    bench_target (target, measured,
        gray->fps >= TARGET_GRAY8_OVER_RGBA * base->fps);
  }

  /* pageable: time per frame (1 / rate) against the pageable floor */
  for (i = 0; i < n; i++) {
    const Result *r = &results[i];

    if (r->mode != MODE_PAGEABLE)
      continue;
    g_snprintf (target, sizeof target, "%s %dx%d, pageable: <= 1.2x pageable "
        "floor", r->c.format, r->c.width, r->c.height);
    if (isnan (r->floor_us)) {
      bench_target (target, "no floor measured", BENCH_NA);
      continue;
    }
    g_snprintf (measured, sizeof measured, "%.2fx (%.1f / %.1f us)",
        r->us_per_frame / r->floor_us, r->us_per_frame, r->floor_us);
    bench_target (target, measured,
        r->us_per_frame <= TARGET_PAGEABLE_OVER_FLOOR * r->floor_us);
  }
  bench_targets_end ();
}

static gboolean
write_csv (const gchar * path, const Result * results, gint n)
{
  GString *s = g_string_new (CSV_HEADER "\n");
  gint i;

  for (i = 0; i < n; i++) {
    const Result *r = &results[i];
    gchar v[8][32];

    g_string_append_printf (s, "%s,%d,%d,%s,%d,%.0f,%zu,%d,%s,%d,%s,%d,%.1f,"
        "%.2f,%.2f,%.2f,%.2f,%s,%s,%s,%s,%s,%s\n", r->c.format, r->c.width,
        r->c.height, mode_names[r->mode], opt.in_flight, opt.rate, r->bytes,
        r->frames, r->in_memory,
        r->in_from_pool, r->out_memory, r->out_pinned, r->fps,
        r->us_per_frame, r->latency_median, r->latency_p99, r->cpu_us,
        r->floors.valid ? g_ascii_formatd (v[0], 32, "%.2f",
            r->floors.h2d_pinned) : "",
        r->floors.valid ? g_ascii_formatd (v[1], 32, "%.2f",
            r->floors.d2h_pinned) : "",
        r->floors.valid ? g_ascii_formatd (v[2], 32, "%.2f",
            r->floors.h2d_pageable) : "",
        r->floors.valid ? g_ascii_formatd (v[3], 32, "%.2f",
            r->floors.d2h_pageable) : "",
        r->floors.valid ? g_ascii_formatd (v[4], 32, "%.2f", r->floor_us) : "",
        r->floors.valid ? g_ascii_formatd (v[5], 32, "%.3f",
            r->us_per_frame / r->floor_us) : "");
  }
  return bench_write_file (path, s);
}

/* The cases to run, from the options. */
static GArray *
select_cases (void)
{
  GArray *cases = g_array_new (FALSE, FALSE, sizeof (Case));
  guint i, j;

  for (i = 0; i < G_N_ELEMENTS (default_cases); i++)
    if (!opt.format || g_str_equal (opt.format, default_cases[i].format))
      g_array_append_val (cases, default_cases[i]);
  if (cases->len == 0) {
    Case c = { opt.format, 1920, 1080 };
    g_array_append_val (cases, c);
  }
  if (opt.width > 0) {
    /* each format once, at the size asked */
    GArray *sized = g_array_new (FALSE, FALSE, sizeof (Case));

    for (i = 0; i < cases->len; i++) {
      Case c = g_array_index (cases, Case, i);
      gboolean seen = FALSE;

      for (j = 0; j < sized->len; j++)
        seen |= g_str_equal (g_array_index (sized, Case, j).format, c.format);
      if (seen)
        continue;
      c.width = opt.width;
      c.height = opt.height > 0 ? opt.height : opt.width * 9 / 16;
      g_array_append_val (sized, c);
    }
    g_array_free (cases, TRUE);
    cases = sized;
  }
  return cases;
}

int
main (int argc, char **argv)
{
  GOptionEntry entries[] = {
    {"frames", 'n', 0, G_OPTION_ARG_INT, &opt.frames,
        "Timed frames per case (default 500)", "N"},
    {"warmup", 0, 0, G_OPTION_ARG_INT, &opt.warmup,
        "Untimed frames first (default 20)", "N"},
    {"format", 0, 0, G_OPTION_ARG_STRING, &opt.format,
        "Only this format's cases (e.g. RGBA, GRAY8, NV12)", "F"},
    {"width", 0, 0, G_OPTION_ARG_INT, &opt.width,
        "Frames of this width (height 9/16 of it unless --height)", "W"},
    {"height", 0, 0, G_OPTION_ARG_INT, &opt.height,
        "Frames of this height (with --width)", "H"},
    {"sigma", 0, 0, G_OPTION_ARG_DOUBLE, &opt.sigma,
        "Sigma (default 3)", "S"},
    {"mode", 0, 0, G_OPTION_ARG_STRING, &opt.mode,
        "Input buffers: pool, pageable or both (default)", "M"},
    {"device", 0, 0, G_OPTION_ARG_INT, &opt.device,
        "CUDA device (the element's cuda-device-id; default -1: device 0)",
        "D"},
    {"csv", 0, 0, G_OPTION_ARG_FILENAME, &opt.csv,
        "Also write every case to FILE", "FILE"},
    {"latencies", 0, 0, G_OPTION_ARG_FILENAME, &opt.latencies,
        "Append every timed frame's push time and latency to FILE", "FILE"},
    {"frames-in-flight", 0, 0, G_OPTION_ARG_INT, &opt.in_flight,
        "The element's frames-in-flight (default 1)", "N"},
    {"rate", 0, 0, G_OPTION_ARG_DOUBLE, &opt.rate,
          "Push frames at this many per second (a paced source; default: "
          "as fast as the element takes them)", "FPS"},
    {"roi", 0, 0, G_OPTION_ARG_INT, &opt.roi,
        "N moving regions of interest per frame, blurred (sigma-map=roi)",
        "N"},
    {"backend", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING, &opt.backend,
        "Element backend (cuda; cpu only to check the plumbing)", "B"},
    {NULL}
  };
  GstElementFactory *factory;
  GstPlugin *plugin;
  GArray *cases;
  Result *results;
  gint n_results = 0, status = 0;
  Floors *floors;
  Mode modes[2];
  gint n_modes = 0;
  gchar pacing[64];
  guint i;
  gint m;

  if (!bench_parse_options ("- cudagaussblur with frames in system memory "
          "against the copy floor", entries, &argc, &argv))
    return 2;
  if (!opt.backend)
    opt.backend = g_strdup ("cuda");
  if (!opt.mode)
    opt.mode = g_strdup ("both");
  if (opt.in_flight < 1 || opt.in_flight > GB_MAX_FRAMES_IN_FLIGHT
      || opt.rate < 0.0) {
    g_printerr ("element-bench: --frames-in-flight must be 1 .. %d, --rate "
        ">= 0\n", GB_MAX_FRAMES_IN_FLIGHT);
    return 2;
  }
  if (opt.frames < 1 || opt.warmup < 0 || opt.width < 0 || opt.height < 0
      || (opt.height > 0 && opt.width == 0)) {
    g_printerr ("element-bench: --frames must be >= 1, --warmup >= 0, "
        "--height needs --width\n");
    return 2;
  }
  if (g_str_equal (opt.mode, "pool") || g_str_equal (opt.mode, "both"))
    modes[n_modes++] = MODE_POOL;
  if (g_str_equal (opt.mode, "pageable") || g_str_equal (opt.mode, "both"))
    modes[n_modes++] = MODE_PAGEABLE;
  if (n_modes == 0) {
    g_printerr ("element-bench: --mode is pool, pageable or both\n");
    return 2;
  }
  if (!g_str_equal (opt.backend, "cuda") && !g_str_equal (opt.backend, "cpu")) {
    g_printerr ("element-bench: --backend is cuda or cpu\n");
    return 2;
  }
  if (opt.format && gst_video_format_from_string (opt.format)
      == GST_VIDEO_FORMAT_UNKNOWN) {
    g_printerr ("element-bench: unknown format %s\n", opt.format);
    return 2;
  }
  use_cuda = g_str_equal (opt.backend, "cuda");

  factory = bench_find_element ();
  if (!factory)
    return 77;
  plugin = gst_plugin_feature_get_plugin (GST_PLUGIN_FEATURE (factory));

  if (use_cuda) {
    GbGeometry geometry = { 1, 1, {{1, 1, 1, 1, 1, 0}} };
    GbError gb_error = { 0 };
    GbBlur *probe = NULL;
    struct cudaDeviceProp prop;
    const gint device = opt.device >= 0 ? opt.device : 0;

    /* as the element makes its handle: tells "no device" apart */
    if (gb_blur_create (GB_BACKEND_CUDA, opt.device, &geometry, &probe,
            &gb_error) != GB_OK) {
      g_print ("element-bench: skipped, %s\n", gb_error.message);
      if (plugin)
        gst_object_unref (plugin);
      gst_object_unref (factory);
      return gb_error.status == GB_ERROR_NO_DEVICE ? 77 : 1;
    }
    gb_blur_destroy (probe);
    if (!bench_cuda_check (cudaSetDevice (device), "cannot select the device")
        || !bench_cuda_check (cudaGetDeviceProperties (&prop, device),
            "cannot read the device's properties"))
      return 1;
    g_print ("device: %s (CUDA device %d)\n", prop.name, device);
  } else {
    g_print ("device: none, backend %s: element plumbing only, no copy "
        "floors\n", opt.backend);
  }
  bench_print_element (plugin);
  if (plugin)
    gst_object_unref (plugin);
  gst_object_unref (factory);
  g_print ("backend %s, sigma %g, %d frames per case after %d warm-up, "
      "ring of %d input buffers\n", opt.backend, opt.sigma, opt.frames,
      opt.warmup, RING);

  cases = select_cases ();
  results = g_new0 (Result, cases->len * n_modes);
  floors = g_new0 (Floors, cases->len);
  g_print ("\n");
  for (i = 0; i < cases->len; i++) {
    const Case *c = &g_array_index (cases, Case, i);
    GstVideoInfo info;

    if (!gst_video_info_set_format (&info, gst_video_format_from_string
            (c->format), c->width, c->height)) {
      g_printerr ("element-bench: cannot lay out %s %dx%d\n", c->format,
          c->width, c->height);
      status = 1;
      continue;
    }
    floors[i].bytes = GST_VIDEO_INFO_SIZE (&info);
    floors[i].h2d_pinned = floors[i].d2h_pinned = NAN;
    floors[i].h2d_pageable = floors[i].d2h_pageable = NAN;
    if (use_cuda) {
      if (!measure_floors (GST_VIDEO_INFO_SIZE (&info), &floors[i])) {
        status = 1;
        break;
      }
      print_floors (c, &floors[i]);
    }
  }

  g_snprintf (pacing, sizeof pacing, "pushed at %.0f frames/s", opt.rate);
  g_print ("\nframes-in-flight %d, %s\n", opt.in_flight, opt.rate > 0.0
      ? pacing : "pushed as fast as the element takes them");
  if (opt.roi > 0)
    g_print ("sigma-map=roi, %d moving regions of interest a frame, sigma "
        "%g\n", opt.roi, opt.sigma);
  g_print ("%-6s %-9s %-8s %-11s %-16s %9s %8s %8s %8s %8s  %7s %7s %8s %6s\n",
      "format", "size", "mode", "in-mem", "out-mem (pinned)", "frames/s",
      "us/frame", "lat-med", "lat-p99", "cpu-us", "H2D", "D2H", "floor",
      "xfloor");
  for (i = 0; status == 0 && i < cases->len; i++) {
    for (m = 0; m < n_modes; m++) {
      Result *r = &results[n_results];

      if (!run_case (&g_array_index (cases, Case, i), modes[m], &floors[i],
              r)) {
        g_printerr ("element-bench: %s %dx%d %s failed\n",
            g_array_index (cases, Case, i).format,
            g_array_index (cases, Case, i).width,
            g_array_index (cases, Case, i).height, mode_names[modes[m]]);
        status = 1;
        break;
      }
      print_result (r);
      n_results++;
    }
  }
  g_print ("(in-mem (p): the input buffers came from the pool the element "
      "proposed; us/frame = 1e6 / frames/s; lat: push to output, us; cpu-us: "
      "process CPU time per frame; floor = H2D + D2H of one frame, pinned "
      "for pool, pageable for pageable; xfloor = us/frame / floor)\n");

  if (n_results > 0)
    print_targets (results, n_results);
  if (opt.csv && n_results > 0 && !write_csv (opt.csv, results, n_results))
    status = 1;

  g_free (floors);
  g_free (results);
  g_array_free (cases, TRUE);
  return status;
}

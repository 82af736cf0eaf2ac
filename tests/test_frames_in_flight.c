/* Frames in flight (issue 5): the element with frames-in-flight > 1, whose
 * host frames are pushed by a thread of the element as each is done.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: test-frames-in-flight cpu|cuda. On the CPU backend (CI) the
 * thread, the order of buffers and events, flushing, failed pushes, state
 * changes and the latency query are checked on small frames; on CUDA (exit
 * 77 without a device) the same, plus frames large enough to be cut into
 * bands, from the proposed pinned pool and from pageable memory. Every
 * output is compared with the CPU core's blur of its input (at most 1
 * apart), and the outputs must come in the order of their inputs, each
 * before the events that followed its input.
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "element_check.h"

#define TOLERANCE 1
#define N_INPUTS 4              /* distinct input frames, pushed in turn */

static const gchar *backend = "cpu";
static GbBackend core_backend = GB_BACKEND_CPU;

typedef struct
{
  const gchar *format;
  gint width;
  gint height;
} Case;

/* Small frames on both backends; on CUDA also frames that are cut into
 * bands (one plane of 4 MB or more) and a multi-plane one of that size. */
static const Case small_cases[] = {
  {"RGBA", 333, 197}, {"GRAY8", 160, 91}, {"NV12", 97, 63}, {"I420", 64, 48},
};
static const Case large_cases[] = {
  {"RGBA", 1920, 1080}, {"NV12", 1920, 1080}, {"GRAY16_LE", 1920, 1080},
};

/* What went through the element's source pad, in order: 'B' a buffer, 'C'
 * caps, 'E' EOS, 'F' a flush, and each buffer's PTS. */
typedef struct
{
  GMutex lock;
  GString *sequence;
  GArray *pts;
  GstFlowReturn fail_with;      /* returned for the buffer number fail_at */
  guint fail_at;
  guint buffers;
} Log;

static GstPadProbeReturn
log_probe (G_GNUC_UNUSED GstPad * pad, GstPadProbeInfo * info,
    gpointer user_data)
{
  Log *log = user_data;
  GstPadProbeReturn result = GST_PAD_PROBE_OK;

  g_mutex_lock (&log->lock);
  if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER) {
    GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER (info);
    g_string_append_c (log->sequence, 'B');
    g_array_append_val (log->pts, GST_BUFFER_PTS (buffer));
    if (log->fail_with != GST_FLOW_OK && log->buffers == log->fail_at) {
      GST_PAD_PROBE_INFO_FLOW_RETURN (info) = log->fail_with;
      gst_buffer_unref (buffer);
      GST_PAD_PROBE_INFO_DATA (info) = NULL;
      result = GST_PAD_PROBE_HANDLED;
    }
    log->buffers++;
  } else if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_EVENT_BOTH) {
    GstEvent *event = GST_PAD_PROBE_INFO_EVENT (info);
    if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS)
      g_string_append_c (log->sequence, 'C');
    else if (GST_EVENT_TYPE (event) == GST_EVENT_EOS)
      g_string_append_c (log->sequence, 'E');
    else if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
      g_string_append_c (log->sequence, 'F');
  }
  g_mutex_unlock (&log->lock);
  return result;
}

static Log *
log_attach (GstHarness * h)
{
  Log *log = g_new0 (Log, 1);
  GstPad *srcpad = gst_element_get_static_pad (h->element, "src");

  g_mutex_init (&log->lock);
  log->sequence = g_string_new (NULL);
  log->pts = g_array_new (FALSE, FALSE, sizeof (GstClockTime));
  gst_pad_add_probe (srcpad, GST_PAD_PROBE_TYPE_BUFFER
      | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM | GST_PAD_PROBE_TYPE_EVENT_FLUSH,
      log_probe, log, NULL);
  gst_object_unref (srcpad);
  return log;
}

static void
log_free (Log * log)
{
  g_string_free (log->sequence, TRUE);
  g_array_unref (log->pts);
  g_mutex_clear (&log->lock);
  g_free (log);
}

static GstHarness *
harness_new (const Case * c, guint frames_in_flight)
{
  GstHarness *h = element_harness_new (backend, c->format, c->width,
      c->height);

  g_object_set (h->element, "frames-in-flight", frames_in_flight, NULL);
  return h;
}

/* Input frame i (of N_INPUTS): from the harness's pool where `pooled` (the
 * pool the element proposed), else plain memory; its PTS is `pts`. */
static GstBuffer *
input_frame (GstHarness * h, const GstVideoInfo * info, guint i,
    gboolean pooled, guint64 pts)
{
  GstBuffer *buffer = pooled ? gst_harness_create_buffer (h, info->size)
      : gst_buffer_new_allocate (NULL, info->size, NULL);

  fail_unless (buffer != NULL);
  fill_frame (buffer, info, 1000 + i);
  if (pooled)
    gst_buffer_add_video_meta_full (buffer, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (info), info->width, info->height,
        GST_VIDEO_INFO_N_PLANES (info), (gsize *) info->offset,
        (gint *) info->stride);
  GST_BUFFER_PTS (buffer) = pts * GST_SECOND / 30;
  GST_BUFFER_DURATION (buffer) = GST_SECOND / 30;
  return buffer;
}

/* The expected output of each distinct input: the CPU core's blur with the
 * algorithm the element's backend picks. */
static void
make_references (const GstVideoInfo * info, GstBuffer ** references)
{
  GbParams params;
  guint i;

  gb_params_init (&params, 2.0);
  params.algorithm = effective_algorithm (core_backend, info, &params);
  for (i = 0; i < N_INPUTS; i++) {
    GstBuffer *input = gst_buffer_new_allocate (NULL, info->size, NULL);
    fill_frame (input, info, 1000 + i);
    references[i] = reference_blur (input, info, &params);
    gst_buffer_unref (input);
  }
}

/* Pulls n outputs; output k must have PTS first_pts + k and be the blur of
 * input (first_pts + k) % N_INPUTS. */
static void
pull_and_check (GstHarness * h, const GstVideoInfo * info,
    GstBuffer ** references, guint n, guint64 first_pts, const gchar * what)
{
  guint k;

  for (k = 0; k < n; k++) {
    GstBuffer *output = gst_harness_pull (h);
    const guint64 pts = first_pts + k;

    fail_unless (output != NULL, "%s: output %u missing", what, k);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (output),
        pts * GST_SECOND / 30);
    fail_unless (max_difference (output, references[pts % N_INPUTS], info)
        <= TOLERANCE, "%s: output %u differs from the reference by %d", what,
        k, max_difference (output, references[pts % N_INPUTS], info));
    gst_buffer_unref (output);
  }
}

/* Frames of every case in every queue depth, from the pool and from plain
 * memory, come out blurred, in order, all before EOS. */
static void
check_order_and_parity (const Case * c, gboolean pooled)
{
  GstVideoInfo info = video_info (c->format, c->width, c->height);
  GstBuffer *references[N_INPUTS];
  const guint n_frames = 10;
  guint depth, i;

  make_references (&info, references);
  for (depth = 1; depth <= GB_MAX_FRAMES_IN_FLIGHT; depth++) {
    GstHarness *h = harness_new (c, depth);
    Log *log = log_attach (h);
    gchar *what = g_strdup_printf ("%s %dx%d, %s, %u in flight", c->format,
        c->width, c->height, pooled ? "pool" : "plain memory", depth);
    /* (the first caps went out before the log began) */
    GString *expected = g_string_new (NULL);

    for (i = 0; i < n_frames; i++)
      fail_unless_equals_int (gst_harness_push (h, input_frame (h, &info,
                  i % N_INPUTS, pooled, i)), GST_FLOW_OK);
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    for (i = 0; i < n_frames; i++)
      g_string_append_c (expected, 'B');
    g_string_append_c (expected, 'E');
    g_mutex_lock (&log->lock);
    fail_unless_equals_string (log->sequence->str, expected->str);
    g_mutex_unlock (&log->lock);
    pull_and_check (h, &info, references, n_frames, 0, what);

    gst_harness_teardown (h);
    log_free (log);
    g_string_free (expected, TRUE);
    g_free (what);
  }
  for (i = 0; i < N_INPUTS; i++)
    gst_buffer_unref (references[i]);
}

GST_START_TEST (test_order_and_parity)
{
  guint c;

  for (c = 0; c < G_N_ELEMENTS (small_cases); c++) {
    check_order_and_parity (&small_cases[c], FALSE);
    check_order_and_parity (&small_cases[c], TRUE);
  }
  if (core_backend == GB_BACKEND_CUDA)
    for (c = 0; c < G_N_ELEMENTS (large_cases); c++) {
      check_order_and_parity (&large_cases[c], FALSE);
      check_order_and_parity (&large_cases[c], TRUE);
    }
}

GST_END_TEST;

/* New caps while frames are in flight: the frames of the old caps go out
 * before the new caps, blurred as they were. */
GST_START_TEST (test_caps_change)
{
  const Case first = { "RGBA", 333, 197 }, second = { "NV12", 97, 63 };
  GstVideoInfo first_info = video_info (first.format, first.width,
      first.height);
  GstVideoInfo second_info = video_info (second.format, second.width,
      second.height);
  GstBuffer *first_references[N_INPUTS], *second_references[N_INPUTS];
  GstHarness *h = harness_new (&first, 3);
  Log *log = log_attach (h);
  guint i;

  make_references (&first_info, first_references);
  make_references (&second_info, second_references);
  for (i = 0; i < 5; i++)
    fail_unless_equals_int (gst_harness_push (h, input_frame (h, &first_info,
                i % N_INPUTS, FALSE, i)), GST_FLOW_OK);
  gst_harness_set_src_caps (h, video_caps (second.format, second.width,
          second.height));
  for (i = 5; i < 10; i++)
    fail_unless_equals_int (gst_harness_push (h, input_frame (h,
                &second_info, i % N_INPUTS, FALSE, i)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));

  g_mutex_lock (&log->lock);
  fail_unless_equals_string (log->sequence->str, "BBBBBCBBBBBE");
  g_mutex_unlock (&log->lock);
  pull_and_check (h, &first_info, first_references, 5, 0, "first caps");
  pull_and_check (h, &second_info, second_references, 5, 5, "second caps");

  gst_harness_teardown (h);
  log_free (log);
  for (i = 0; i < N_INPUTS; i++) {
    gst_buffer_unref (first_references[i]);
    gst_buffer_unref (second_references[i]);
  }
}

GST_END_TEST;

/* A flush drops what is in flight; the stream goes on after it, its frames
 * blurred and in order. */
GST_START_TEST (test_flush)
{
  const Case c = { "RGBA", 333, 197 };
  GstVideoInfo info = video_info (c.format, c.width, c.height);
  GstBuffer *references[N_INPUTS];
  GstHarness *h = harness_new (&c, 4);
  Log *log = log_attach (h);
  GstSegment segment;
  guint i, before;

  make_references (&info, references);
  for (i = 0; i < 6; i++)
    fail_unless_equals_int (gst_harness_push (h, input_frame (h, &info,
                i % N_INPUTS, FALSE, i)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  /* the frames out before the flush */
  g_mutex_lock (&log->lock);
  before = log->pts->len;
  g_mutex_unlock (&log->lock);
  fail_unless (before <= 6);
  pull_and_check (h, &info, references, before, 0, "before the flush");

  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  for (i = 6; i < 12; i++)
    fail_unless_equals_int (gst_harness_push (h, input_frame (h, &info,
                i % N_INPUTS, FALSE, i)), GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  pull_and_check (h, &info, references, 6, 6, "after the flush");
  g_mutex_lock (&log->lock);
  fail_unless (g_str_has_suffix (log->sequence->str, "FBBBBBBE"), "%s",
      log->sequence->str);
  g_mutex_unlock (&log->lock);

  gst_harness_teardown (h);
  log_free (log);
  for (i = 0; i < N_INPUTS; i++)
    gst_buffer_unref (references[i]);
}

GST_END_TEST;

/* A push downstream that fails comes back to upstream with a later
 * buffer, and stays failed until a flush; nothing leaks. */
GST_START_TEST (test_failed_push)
{
  const Case c = { "GRAY8", 160, 91 };
  GstVideoInfo info = video_info (c.format, c.width, c.height);
  GstHarness *h = harness_new (&c, 2);
  Log *log = log_attach (h);
  GstFlowReturn ret = GST_FLOW_OK;
  guint i;

  log->fail_with = GST_FLOW_ERROR;
  log->fail_at = 1;
  for (i = 0; i < 8 && ret == GST_FLOW_OK; i++)
    ret = gst_harness_push (h, input_frame (h, &info, i % N_INPUTS, FALSE,
            i));
  fail_unless_equals_int (ret, GST_FLOW_ERROR);
  /* the frame that failed, at the latest with the second frame after it */
  fail_unless (i <= 4, "the failure came back with frame %u", i - 1);
  fail_unless_equals_int (gst_harness_push (h, input_frame (h, &info, 0,
              FALSE, 20)), GST_FLOW_ERROR);

  gst_harness_teardown (h);
  log_free (log);
}

GST_END_TEST;

/* A push that finds downstream unlinked (a tee's branch with
 * allow-not-linked, a branch being relinked) fails that frame alone: the
 * NOT_LINKED comes back to upstream once, and every later frame is pushed.
 * Before, it stopped the pushes until a flush, every frame after it lost. */
GST_START_TEST (test_not_linked_push)
{
  const Case c = { "GRAY8", 160, 91 };
  GstVideoInfo info = video_info (c.format, c.width, c.height);
  GstHarness *h = harness_new (&c, 2);
  Log *log = log_attach (h);
  guint i, not_linked = 0;

  log->fail_with = GST_FLOW_NOT_LINKED;
  log->fail_at = 1;
  for (i = 0; i < 8; i++) {
    const GstFlowReturn ret = gst_harness_push (h, input_frame (h, &info,
            i % N_INPUTS, FALSE, i));

    fail_unless (ret == GST_FLOW_OK || ret == GST_FLOW_NOT_LINKED,
        "push %u: %s", i, gst_flow_get_name (ret));
    not_linked += ret == GST_FLOW_NOT_LINKED;
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless_equals_int (not_linked, 1);
  /* every frame reached the source pad; all but the one refused arrived */
  g_mutex_lock (&log->lock);
  fail_unless_equals_int (log->buffers, 8);
  g_mutex_unlock (&log->lock);
  fail_unless_equals_int (gst_harness_buffers_received (h), 7);

  gst_harness_teardown (h);
  log_free (log);
}

GST_END_TEST;

/* A NOT_LINKED found while an event waited for the frames in flight is
 * returned with the next frame, not lost to the event (which returns no
 * flow upstream). */
GST_START_TEST (test_not_linked_before_event)
{
  const Case c = { "GRAY8", 160, 91 };
  GstVideoInfo info = video_info (c.format, c.width, c.height);
  GstHarness *h = harness_new (&c, 2);
  Log *log = log_attach (h);

  log->fail_with = GST_FLOW_NOT_LINKED;
  log->fail_at = 0;
  /* the first frame is in flight when its push returns */
  fail_unless_equals_int (gst_harness_push (h, input_frame (h, &info, 0,
              FALSE, 0)), GST_FLOW_OK);
  /* a serialized event waits for it: the push fails meanwhile */
  fail_unless (gst_harness_push_event (h,
          gst_event_new_tag (gst_tag_list_new_empty ())));
  fail_unless_equals_int (gst_harness_push (h, input_frame (h, &info, 1,
              FALSE, 1)), GST_FLOW_NOT_LINKED);
  fail_unless_equals_int (gst_harness_push (h, input_frame (h, &info, 2,
              FALSE, 2)), GST_FLOW_OK);

  gst_harness_teardown (h);
  log_free (log);
}

GST_END_TEST;

/* Holds the first buffer the element pushes until told to let it go. */
typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean held, released;
} Hold;

static GstPadProbeReturn
hold_probe (G_GNUC_UNUSED GstPad * pad, G_GNUC_UNUSED GstPadProbeInfo * info,
    gpointer user_data)
{
  Hold *hold = user_data;

  g_mutex_lock (&hold->lock);
  hold->held = TRUE;
  g_cond_broadcast (&hold->cond);
  while (!hold->released)
    g_cond_wait (&hold->cond, &hold->lock);
  g_mutex_unlock (&hold->lock);
  return GST_PAD_PROBE_REMOVE;
}

/* The hold on `pad`'s first buffer: set, waited for, let go, cleared. */
static void
hold_attach (Hold * hold, GstPad * pad)
{
  g_mutex_init (&hold->lock);
  g_cond_init (&hold->cond);
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, hold_probe, hold, NULL);
}

static void
hold_wait (Hold * hold)
{
  g_mutex_lock (&hold->lock);
  while (!hold->held)
    g_cond_wait (&hold->cond, &hold->lock);
  g_mutex_unlock (&hold->lock);
}

static void
hold_release (Hold * hold)
{
  g_mutex_lock (&hold->lock);
  hold->released = TRUE;
  g_cond_broadcast (&hold->cond);
  g_mutex_unlock (&hold->lock);
}

static void
hold_clear (Hold * hold)
{
  g_cond_clear (&hold->cond);
  g_mutex_clear (&hold->lock);
}

/* Counts the element's set_caps () calls (its debug line on entry). */
static void
count_set_caps (G_GNUC_UNUSED GstDebugCategory * category,
    G_GNUC_UNUSED GstDebugLevel level, G_GNUC_UNUSED const gchar * file,
    const gchar * function, G_GNUC_UNUSED gint line,
    G_GNUC_UNUSED GObject * object, G_GNUC_UNUSED GstDebugMessage * message,
    gpointer user_data)
{
  if (g_strcmp0 (function, "gst_cuda_gauss_blur_set_caps") == 0)
    g_atomic_int_inc ((gint *) user_data);
}

static gpointer
set_null (gpointer data)
{
  gst_element_set_state (GST_ELEMENT (data), GST_STATE_NULL);
  return NULL;
}

/* A serialized query (here upstream's ALLOCATION query, after a property
 * that asks to negotiate again) reaching the sink pad while the element
 * stops: refused before the base class sees it. The base class had
 * negotiated again on the querying thread, set_caps () beside stop (),
 * which destroyed the blur handle twice (a hang or a use after free).
 * stop () here waits for the frame in flight that downstream holds. */
GST_START_TEST (test_serialized_query_while_stopping)
{
  const Case c = { "RGBA", 64, 48 };
  GstVideoInfo info = video_info (c.format, c.width, c.height);
  GstHarness *h = harness_new (&c, 2);
  GstPad *sinkpad = gst_element_get_static_pad (h->element, "sink");
  Hold hold = { 0 };
  GstQuery *query;
  GstCaps *caps;
  GThread *thread;
  gboolean flushing = FALSE;
  gint set_caps_calls = 0;

  hold_attach (&hold, h->sinkpad);
  fail_unless_equals_int (gst_harness_push (h, input_frame (h, &info, 0,
              FALSE, 0)), GST_FLOW_OK);
  hold_wait (&hold);

  thread = g_thread_new ("set-null", set_null, h->element);
  /* deactivation sets the sink pad flushing before stop () */
  while (!flushing) {
    g_usleep (1000);
    GST_OBJECT_LOCK (sinkpad);
    flushing = GST_PAD_IS_FLUSHING (sinkpad);
    GST_OBJECT_UNLOCK (sinkpad);
  }
  gst_util_set_object_arg (G_OBJECT (h->element), "backend", "auto");
  caps = gst_video_info_to_caps (&info);
  query = gst_query_new_allocation (caps, TRUE);
  gst_debug_set_threshold_for_name ("cudagaussblur", GST_LEVEL_DEBUG);
  gst_debug_remove_log_function (gst_debug_log_default);
  gst_debug_add_log_function (count_set_caps, &set_caps_calls, NULL);
  fail_if (gst_pad_peer_query (h->srcpad, query),
      "a serialized query was answered while the element stopped");
  gst_debug_remove_log_function (count_set_caps);
  gst_debug_add_log_function (gst_debug_log_default, NULL, NULL);
  gst_debug_unset_threshold_for_name ("cudagaussblur");
  fail_unless_equals_int (set_caps_calls, 0);

  hold_release (&hold);
  g_thread_join (thread);
  gst_query_unref (query);
  gst_caps_unref (caps);
  gst_object_unref (sinkpad);
  gst_harness_teardown (h);
  hold_clear (&hold);
}

GST_END_TEST;

typedef struct
{
  GstHarness *h;
  GstBuffer *input;
  GstFlowReturn ret;
  gint returned;
} Push;

static gpointer
push_thread (gpointer data)
{
  Push *push = data;

  push->ret = gst_harness_push (push->h, push->input);
  g_atomic_int_set (&push->returned, 1);
  return NULL;
}

/* Downstream asks to negotiate again (a relink marks the source pad) while
 * a frame is in flight: the next input waits for that frame to go out
 * before the base class renegotiates on the streaming thread, as a
 * serialized event would; it had renegotiated beside the frames' thread's
 * push (GStreamer 1.22's caps query then read caps a push replaced). */
GST_START_TEST (test_reconfigure_after_frames_in_flight)
{
  const Case c = { "GRAY8", 160, 91 };
  GstVideoInfo info = video_info (c.format, c.width, c.height);
  GstHarness *h = harness_new (&c, 3);
  GstPad *srcpad = gst_element_get_static_pad (h->element, "src");
  Hold hold = { 0 };
  Push push = { h, NULL, GST_FLOW_ERROR, 0 };
  GThread *thread;
  guint i;

  /* held on the element's side: the harness's stream lock stays free */
  hold_attach (&hold, srcpad);
  fail_unless_equals_int (gst_harness_push (h, input_frame (h, &info, 0,
              FALSE, 0)), GST_FLOW_OK);
  hold_wait (&hold);

  gst_pad_mark_reconfigure (srcpad);
  push.input = input_frame (h, &info, 1, FALSE, 1);
  thread = g_thread_new ("push", push_thread, &push);
  /* a queue of 3 would take the frame at once: it waits for the first */
  g_usleep (100 * 1000);
  fail_if (g_atomic_int_get (&push.returned),
      "renegotiated while a frame was in flight");

  hold_release (&hold);
  g_thread_join (thread);
  fail_unless_equals_int (push.ret, GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  for (i = 0; i < 2; i++) {
    GstBuffer *output = gst_harness_pull (h);

    fail_unless_equals_uint64 (GST_BUFFER_PTS (output), i * GST_SECOND / 30);
    gst_buffer_unref (output);
  }

  gst_object_unref (srcpad);
  gst_harness_teardown (h);
  hold_clear (&hold);
}

GST_END_TEST;

/* Teardown with frames in flight, again and again: valgrind (CI) finds
 * any buffer, mapping or thread left behind. */
GST_START_TEST (test_state_cycles)
{
  const Case c = { "NV12", 97, 63 };
  GstVideoInfo info = video_info (c.format, c.width, c.height);
  guint cycle, i;

  for (cycle = 0; cycle < 20; cycle++) {
    GstHarness *h = harness_new (&c, 3);
    for (i = 0; i < 3; i++)
      fail_unless_equals_int (gst_harness_push (h, input_frame (h, &info,
                  i % N_INPUTS, cycle % 2 == 0, i)), GST_FLOW_OK);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

#define UPSTREAM_MIN (10 * GST_MSECOND)
#define UPSTREAM_MAX (20 * GST_MSECOND)

/* Upstream's latency: live, 10 to 20 ms. */
static GstPadProbeReturn
upstream_latency (G_GNUC_UNUSED GstPad * pad, GstPadProbeInfo * info,
    G_GNUC_UNUSED gpointer user_data)
{
  GstQuery *query = GST_PAD_PROBE_INFO_QUERY (info);

  if (GST_QUERY_TYPE (query) != GST_QUERY_LATENCY)
    return GST_PAD_PROBE_OK;
  gst_query_set_latency (query, TRUE, UPSTREAM_MIN, UPSTREAM_MAX);
  return GST_PAD_PROBE_HANDLED;
}

/* Latency: upstream's minimum unchanged (no frame waits for a later one),
 * the queue's frames beyond one added to the maximum (30 frames/s). */
GST_START_TEST (test_latency)
{
  const Case c = { "GRAY8", 160, 91 };
  guint depth;

  for (depth = 1; depth <= GB_MAX_FRAMES_IN_FLIGHT; depth++) {
    GstHarness *h = harness_new (&c, depth);
    GstQuery *query = gst_query_new_latency ();
    GstClockTime min, max;
    gboolean live;

    gst_pad_add_probe (h->srcpad, GST_PAD_PROBE_TYPE_QUERY_UPSTREAM,
        upstream_latency, NULL, NULL);
    fail_unless (gst_pad_peer_query (h->sinkpad, query));
    gst_query_parse_latency (query, &live, &min, &max);
    fail_unless (live);
    fail_unless_equals_uint64 (min, UPSTREAM_MIN);
    fail_unless_equals_uint64 (max, UPSTREAM_MAX + (depth - 1)
        * gst_util_uint64_scale_int (GST_SECOND, 1, 30));
    gst_query_unref (query);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

GST_START_TEST (test_property)
{
  GstElement *element = gst_element_factory_make (ELEMENT, NULL);
  GParamSpec *spec;
  GParamSpecUInt *uint_spec;
  guint value;

  fail_unless (element != NULL);
  spec = g_object_class_find_property (G_OBJECT_GET_CLASS (element),
      "frames-in-flight");
  fail_unless (spec != NULL && G_IS_PARAM_SPEC_UINT (spec));
  uint_spec = G_PARAM_SPEC_UINT (spec);
  fail_unless_equals_int (uint_spec->minimum, 1);
  fail_unless_equals_int (uint_spec->maximum, GB_MAX_FRAMES_IN_FLIGHT);
  fail_unless_equals_int (uint_spec->default_value, 1);
  fail_unless (spec->flags & G_PARAM_WRITABLE);
  g_object_get (element, "frames-in-flight", &value, NULL);
  fail_unless_equals_int (value, 1);
  g_object_set (element, "frames-in-flight", 3, NULL);
  g_object_get (element, "frames-in-flight", &value, NULL);
  fail_unless_equals_int (value, 3);
  gst_object_unref (element);
}

GST_END_TEST;

static Suite *
frames_in_flight_suite (void)
{
  Suite *s = suite_create ("frames-in-flight");
  TCase *tc = tcase_create ("general");

  tcase_set_timeout (tc, 1200);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_property);
  tcase_add_test (tc, test_latency);
  tcase_add_test (tc, test_order_and_parity);
  tcase_add_test (tc, test_caps_change);
  tcase_add_test (tc, test_flush);
  tcase_add_test (tc, test_failed_push);
  tcase_add_test (tc, test_not_linked_push);
  tcase_add_test (tc, test_not_linked_before_event);
  tcase_add_test (tc, test_reconfigure_after_frames_in_flight);
  tcase_add_test (tc, test_state_cycles);
  tcase_add_test (tc, test_serialized_query_while_stopping);
  return s;
}

int
main (int argc, char **argv)
{
  int result;

  gst_check_init (&argc, &argv);
  if (argc > 1 && g_strcmp0 (argv[1], "cuda") == 0) {
    GbGeometry geometry = { 1, 1, {{1, 1, 1, 1, 1, 0}} };
    GbError error = { 0 };
    GbBlur *probe = NULL;

    if (gb_blur_create (GB_BACKEND_CUDA, -1, &geometry, &probe, &error)
        != GB_OK) {
      g_print ("frames-in-flight (cuda): skipped, %s\n", error.message);
      return error.status == GB_ERROR_NO_DEVICE ? 77 : 1;
    }
    gb_blur_destroy (probe);
    /* CUDA is initialised in this process: no forked children */
    g_setenv ("CK_FORK", "no", TRUE);
    backend = "cuda";
    core_backend = GB_BACKEND_CUDA;
  } else if (argc > 1 && g_strcmp0 (argv[1], "cpu") != 0) {
    g_printerr ("usage: %s cpu|cuda\n", argv[0]);
    return 2;
  }
  result = gst_check_run_suite (frames_in_flight_suite (),
      core_backend == GB_BACKEND_CUDA ? "frames-in-flight-cuda"
      : "frames-in-flight-cpu", __FILE__);
  return result;
}

/* A flush from a second thread while the streaming thread handles the
 * first frame of frames-in-flight 2 (tests/tsan/run.sh runs it under
 * ThreadSanitizer). The first pipelined frame makes the element's
 * frames-in-flight queue; FLUSH_START, which is not serialized, reads it
 * from this program's main thread. Before the queue's pointer was set
 * under the object lock (2026-11-29) TSan reported a data race here on
 * every run. Without TSan it checks only that the stream goes on after the
 * flush.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <gst/gst.h>
#include <gst/check/gstharness.h>

#define WIDTH 1920
#define HEIGHT 1080

static gpointer
push_one (gpointer data)
{
  GstHarness *h = data;
  GstBuffer *buffer = gst_harness_create_buffer (h, WIDTH * HEIGHT * 4);

  GST_BUFFER_PTS (buffer) = 0;
  return GINT_TO_POINTER (gst_harness_push (h, buffer));
}

int
main (int argc, char **argv)
{
  GstHarness *h;
  GThread *thread;
  GstFlowReturn first, after;
  GstSegment segment;
  GstBuffer *buffer;
  gboolean pushed = FALSE;

  gst_init (&argc, &argv);
  h = gst_harness_new ("cudagaussblur");
  g_object_set (h->element, "backend", 2 /* cpu */ , "sigma", 8.0,
      "frames-in-flight", 2, NULL);
  gst_harness_set_src_caps_str (h, "video/x-raw,format=RGBA,width=1920,"
      "height=1080,framerate=30/1");
  thread = g_thread_new ("push", push_one, h);
  g_usleep (G_USEC_PER_SEC / 5);        /* the frame is being blurred */
  gst_harness_push_event (h, gst_event_new_flush_start ());
  first = (GstFlowReturn) GPOINTER_TO_INT (g_thread_join (thread));
  gst_harness_push_event (h, gst_event_new_flush_stop (TRUE));

  gst_segment_init (&segment, GST_FORMAT_TIME);
  gst_harness_push_event (h, gst_event_new_segment (&segment));
  buffer = gst_harness_create_buffer (h, WIDTH * HEIGHT * 4);
  GST_BUFFER_PTS (buffer) = GST_SECOND;
  after = gst_harness_push (h, buffer);
  /* EOS waits for the frames in flight: the second frame is out now */
  gst_harness_push_event (h, gst_event_new_eos ());
  while ((buffer = gst_harness_try_pull (h))) {
    pushed = pushed || GST_BUFFER_PTS (buffer) == GST_SECOND;
    gst_buffer_unref (buffer);
  }
  g_print ("first frame: %s; after the flush: %s, %s\n",
      gst_flow_get_name (first), gst_flow_get_name (after),
      pushed ? "pushed" : "lost");
  gst_harness_teardown (h);
  return after == GST_FLOW_OK && pushed ? 0 : 1;
}

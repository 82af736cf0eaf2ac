/* GStreamer
 * Copyright (C) 2026 The cudagaussblur authors
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "gstframesinflight.h"

struct _GstFramesInFlight
{
  GstPad *srcpad;
  GstFramesInFlightFinish finish;
  gpointer user_data;
  gchar *name;

  GMutex lock;
  GCond cond;                   /* a frame added, pushed, or quit */
  GQueue queue;                 /* oldest first; the head stays until pushed */
  GThread *thread;              /* started with the first frame */
  gboolean quit;
  gboolean flushing;
  GstFlowReturn flow;           /* first failed push, until flushing ends;
                                 * GST_FLOW_NOT_LINKED until reported */
};

/* Downstream unlinked (a tee's branch, a selector, a pad being relinked):
 * said once to upstream, and the frames after it are pushed still, each
 * with its own result. Every other failure stops the pushes until a
 * flush. */
static gboolean
gst_frames_in_flight_goes_on (GstFlowReturn flow)
{
  return flow == GST_FLOW_OK || flow == GST_FLOW_NOT_LINKED;
}

/* The flow for upstream (lock held); a NOT_LINKED is said once. */
static GstFlowReturn
gst_frames_in_flight_report (GstFramesInFlight * frames)
{
  const GstFlowReturn ret = frames->flushing ? GST_FLOW_FLUSHING
      : frames->flow;

  if (frames->flow == GST_FLOW_NOT_LINKED)
    frames->flow = GST_FLOW_OK;
  return ret;
}

static gpointer
gst_frames_in_flight_loop (gpointer data)
{
  GstFramesInFlight *frames = data;

  g_mutex_lock (&frames->lock);
  for (;;) {
    GstBuffer *outbuf = NULL;
    GstFlowReturn ret;
    gpointer frame;
    gboolean push;

    while (g_queue_is_empty (&frames->queue) && !frames->quit)
      g_cond_wait (&frames->cond, &frames->lock);
    if (g_queue_is_empty (&frames->queue))
      break;
    frame = g_queue_peek_head (&frames->queue);
    g_mutex_unlock (&frames->lock);

    ret = frames->finish (frame, &outbuf, frames->user_data);

    g_mutex_lock (&frames->lock);
    push = ret == GST_FLOW_OK && !frames->flushing
        && gst_frames_in_flight_goes_on (frames->flow);
    g_mutex_unlock (&frames->lock);
    if (push)
      ret = gst_pad_push (frames->srcpad, outbuf);
    else if (outbuf)
      gst_buffer_unref (outbuf);

    g_mutex_lock (&frames->lock);
    g_queue_pop_head (&frames->queue);
    if (ret != GST_FLOW_OK && gst_frames_in_flight_goes_on (frames->flow))
      frames->flow = frames->flushing ? GST_FLOW_FLUSHING : ret;
    if (ret != GST_FLOW_OK)
      GST_DEBUG_OBJECT (frames->srcpad, "frame not pushed: %s",
          gst_flow_get_name (ret));
    g_cond_broadcast (&frames->cond);
  }
  g_mutex_unlock (&frames->lock);
  return NULL;
}

GstFramesInFlight *
gst_frames_in_flight_new (GstPad * srcpad, const gchar * name,
    GstFramesInFlightFinish finish, gpointer user_data)
{
  GstFramesInFlight *frames = g_new0 (GstFramesInFlight, 1);

  frames->srcpad = gst_object_ref (srcpad);
  frames->finish = finish;
  frames->user_data = user_data;
  frames->name = g_strdup (name);
  g_mutex_init (&frames->lock);
  g_cond_init (&frames->cond);
  g_queue_init (&frames->queue);
  frames->flow = GST_FLOW_OK;
  return frames;
}

void
gst_frames_in_flight_free (GstFramesInFlight * frames)
{
  if (!frames)
    return;
  g_mutex_lock (&frames->lock);
  frames->flushing = TRUE;
  frames->quit = TRUE;
  g_cond_broadcast (&frames->cond);
  g_mutex_unlock (&frames->lock);
  /* the thread finishes the frames left before it ends */
  if (frames->thread)
    g_thread_join (frames->thread);
  g_queue_clear (&frames->queue);
  g_cond_clear (&frames->cond);
  g_mutex_clear (&frames->lock);
  gst_object_unref (frames->srcpad);
  g_free (frames->name);
  g_free (frames);
}

GstFlowReturn
gst_frames_in_flight_add (GstFramesInFlight * frames, gpointer frame,
    guint limit)
{
  GstFlowReturn ret;

  g_mutex_lock (&frames->lock);
  if (!frames->thread)
    frames->thread = g_thread_new (frames->name, gst_frames_in_flight_loop,
        frames);
  g_queue_push_tail (&frames->queue, frame);
  g_cond_broadcast (&frames->cond);
  while (g_queue_get_length (&frames->queue) >= MAX (limit, 1)
      && !frames->flushing && gst_frames_in_flight_goes_on (frames->flow))
    g_cond_wait (&frames->cond, &frames->lock);
  ret = gst_frames_in_flight_report (frames);
  g_mutex_unlock (&frames->lock);
  return ret;
}

/* Until every frame handed over is pushed or dropped (lock held). */
static void
gst_frames_in_flight_wait_locked (GstFramesInFlight * frames)
{
  while (!g_queue_is_empty (&frames->queue))
    g_cond_wait (&frames->cond, &frames->lock);
}

GstFlowReturn
gst_frames_in_flight_drain (GstFramesInFlight * frames)
{
  GstFlowReturn ret;

  g_mutex_lock (&frames->lock);
  gst_frames_in_flight_wait_locked (frames);
  ret = gst_frames_in_flight_report (frames);
  g_mutex_unlock (&frames->lock);
  return ret;
}

void
gst_frames_in_flight_wait (GstFramesInFlight * frames)
{
  g_mutex_lock (&frames->lock);
  gst_frames_in_flight_wait_locked (frames);
  g_mutex_unlock (&frames->lock);
}

void
gst_frames_in_flight_set_flushing (GstFramesInFlight * frames,
    gboolean flushing)
{
  g_mutex_lock (&frames->lock);
  frames->flushing = flushing;
  if (!flushing)
    frames->flow = GST_FLOW_OK;
  g_cond_broadcast (&frames->cond);
  g_mutex_unlock (&frames->lock);
}

guint
gst_frames_in_flight_count (GstFramesInFlight * frames)
{
  guint count;

  g_mutex_lock (&frames->lock);
  count = g_queue_get_length (&frames->queue);
  g_mutex_unlock (&frames->lock);
  return count;
}

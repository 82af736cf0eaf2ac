/* GStreamer
 * Copyright (C) 2026 The cudagaussblur authors
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Frames in flight: output buffers whose content is still being computed
 * (on the GPU), pushed downstream in their order by a thread of their own
 * as soon as each is done, so that the streaming thread goes on with the
 * next input instead of waiting. Knows GStreamer, not CUDA: the element
 * hands over opaque frames and a function that waits for one and returns
 * its buffer.
 *
 * Ordering: anything the element sends downstream from the streaming
 * thread (a serialized event, a buffer it pushes itself) must come after
 * the frames handed over before it: drain first.
 */
#ifndef __GST_FRAMES_IN_FLIGHT_H__
#define __GST_FRAMES_IN_FLIGHT_H__

#include <gst/gst.h>

G_BEGIN_DECLS

typedef struct _GstFramesInFlight GstFramesInFlight;

/* Waits until `frame` is done and frees it. Returns GST_FLOW_OK with its
 * buffer in *outbuf (transfer full), or a failure (having posted its
 * error) with *outbuf NULL. Runs on the frames' thread. */
typedef GstFlowReturn (*GstFramesInFlightFinish) (gpointer frame,
    GstBuffer ** outbuf, gpointer user_data);

/* Frames pushed on srcpad; `name` names the thread. */
GstFramesInFlight *gst_frames_in_flight_new (GstPad * srcpad,
    const gchar * name, GstFramesInFlightFinish finish, gpointer user_data);

/* Finishes (without pushing) what is left, stops the thread, frees. */
void gst_frames_in_flight_free (GstFramesInFlight * frames);

/* Streaming thread: hands over a frame whose work has started; returns
 * once fewer than `limit` frames are in flight (this one counted), with
 * the flow of the pushes so far: anything but GST_FLOW_OK stops the
 * stream (the frames after a failed push are finished, not pushed), but
 * GST_FLOW_NOT_LINKED, which is returned once and does not stop the
 * pushes (a branch unlinked, then linked again). */
GstFlowReturn gst_frames_in_flight_add (GstFramesInFlight * frames,
    gpointer frame, guint limit);

/* Streaming thread: waits until every frame handed over is pushed (or
 * dropped, when flushing); returns the flow of the pushes, for upstream. */
GstFlowReturn gst_frames_in_flight_drain (GstFramesInFlight * frames);

/* The same wait, where no flow goes upstream (an event, a query): a
 * NOT_LINKED stays to be returned with the next frame. */
void gst_frames_in_flight_wait (GstFramesInFlight * frames);

/* Any thread (FLUSH_START: TRUE): the frames in flight and those handed
 * over from now on are finished and dropped, and gst_frames_in_flight_add
 * returns GST_FLOW_FLUSHING. FALSE (FLUSH_STOP, after a drain): pushing
 * again, the flow back to GST_FLOW_OK. */
void gst_frames_in_flight_set_flushing (GstFramesInFlight * frames,
    gboolean flushing);

/* Frames handed over and not yet pushed or dropped. */
guint gst_frames_in_flight_count (GstFramesInFlight * frames);

G_END_DECLS

#endif /* __GST_FRAMES_IN_FLIGHT_H__ */

/* Helpers shared by the cudagaussblur element tests (test_element.c on the
 * CPU backend, test_element_gpu.c on CUDA): frames, the CPU core's reference
 * blur of a frame, frame comparison, and the property changes both make
 * while playing.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Failed checks in here fail the calling test, as GstCheck assertions do
 * anywhere in the test process.
 */
#ifndef ELEMENT_CHECK_H
#define ELEMENT_CHECK_H

#include <gst/gst.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "gaussblur.h"

#define ELEMENT "cudagaussblur"

/* The layout of a packed format at a size. */
GstVideoInfo video_info (const gchar * format, gint width, gint height);

/* Caps for such a frame at 30 fps (the harness wants a framerate). */
GstCaps *video_caps (const gchar * format, gint width, gint height);

/* info->size random bytes from seed, row padding included: the blur must
 * neither read nor write the padding. */
GstBuffer *random_frame (const GstVideoInfo * info, guint32 seed);

/* The CPU core's blur of input with params, in a new buffer laid out as info
 * says: what the element must output. */
GstBuffer *reference_blur (GstBuffer * input, const GstVideoInfo * info,
    const GbParams * params);

/* Largest difference between two frames' samples, row padding ignored. */
gint max_difference (GstBuffer * a, GstBuffer * b, const GstVideoInfo * info);

/* Sets all of params on the element. */
void element_set_params (GstElement * element, const GbParams * params);

/* A harness of the element on backend ("cpu", "cuda", "auto"), its source
 * caps set to format at width x height. */
GstHarness *element_harness_new (const gchar * backend, const gchar * format,
    gint width, gint height);

/* Pushes input (keeping a ref) and pulls the output, which must be a new
 * buffer: the same buffer back would mean passthrough, not a blur. */
GstBuffer *push_pull (GstHarness * h, GstBuffer * input);

/* Checks one frame: pushes input and checks the output against the CPU
 * core's blur with params, as closely as the test's backend must match it.
 * Returns the output. */
typedef GstBuffer *(*PushAndCheckFunc) (GstHarness * h, GstBuffer * input,
    const GstVideoInfo * info, const GbParams * params);

/* A property set while playing, and what the next frame must show. */
typedef struct
{
  const gchar *property;
  const gchar *value;
  GbParams params;              /* all parameters after the change */
  gboolean output_changes;      /* the pixels must differ from the last frame */
} PropertyStep;

/* Each property changed while playing, one at a time, from sigma 2, radius
 * 0, auto, clamp; every backend must honour them at the next frame. They end
 * at sigma 4, radius 2, separable, mirror. */
extern const PropertyStep common_property_steps[];
extern const guint n_common_property_steps;

/* Applies steps in turn to h, checking the frame after each with
 * push_and_check; where a step says so, that frame must differ from the one
 * before. last is the frame before the first step; it is unreffed and the
 * frame after the last step returned. */
GstBuffer *check_property_steps (GstHarness * h, GstBuffer * input,
    const GstVideoInfo * info, GstBuffer * last, const PropertyStep * steps,
    guint n_steps, PushAndCheckFunc push_and_check);

#endif /* ELEMENT_CHECK_H */

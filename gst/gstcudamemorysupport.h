/* GStreamer
 * Copyright (C) 2026 The cudagaussblur authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 *
 * This library is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
 * Library General Public License for more details.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

/* Frames in GPU memory (memory:CUDAMemory) through GStreamer's CUDA library
 * (gstreamer-cuda-1.0): the CUDA context shared by the elements of a
 * pipeline (GstContext "gst.cuda.context"), CUDA buffer pools and the
 * device pointers of CUDA memory. The element sees contexts as GstObject,
 * so that it needs none of the library's headers (which need CUDA's).
 *
 * Built without the library (meson option gst_cuda), the same functions
 * exist and say "none": no context, no CUDA memory, and the element offers
 * system memory only. */

#ifndef __GST_CUDA_GAUSS_BLUR_MEMORY_SUPPORT_H__
#define __GST_CUDA_GAUSS_BLUR_MEMORY_SUPPORT_H__

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/* The caps feature of frames in CUDA memory. */
#define GST_CUDA_GAUSS_BLUR_CAPS_FEATURE_CUDA "memory:CUDAMemory"

/* Whether the plugin was built with GStreamer's CUDA library. */
gboolean gst_cuda_gauss_blur_cuda_memory_supported (void);

/* The pad template caps: system-memory caps, preceded (with the library)
 * by those of their formats that GStreamer 1.22's CUDA memory can hold,
 * with the CUDA memory feature, preferred where both sides can (decoder to
 * encoder stays on the GPU). Takes caps. */
GstCaps *gst_cuda_gauss_blur_cuda_template_caps (GstCaps * system_caps);

/* Whether caps (fixed) describe frames in CUDA memory. */
gboolean gst_cuda_gauss_blur_caps_in_cuda_memory (const GstCaps * caps);

/* caps with its system-memory structures before its CUDA memory ones.
 * Takes caps. */
GstCaps *gst_cuda_gauss_blur_caps_system_memory_first (GstCaps * caps);

/* The element's CUDA context: the one a neighbour or the application has,
 * else a new one on device_id (-1: device 0), announced to the pipeline.
 * *context stays as it is if it is set. FALSE where none can be had (no
 * library, no driver, no such device). */
gboolean gst_cuda_gauss_blur_context_ensure (GstElement * element,
    gint device_id, GstObject ** context);

/* GstElement::set_context: takes a CUDA context of device_id (-1: any)
 * into *context if it is not set yet. */
void gst_cuda_gauss_blur_context_set (GstElement * element,
    GstContext * gst_context, gint device_id, GstObject ** context);

/* Answers a GST_QUERY_CONTEXT for the CUDA context with context; FALSE for
 * any other query or without a context. */
gboolean gst_cuda_gauss_blur_context_query (GstElement * element,
    GstQuery * query, GstObject * context);

/* Makes context current on the calling thread (the core runs there, with
 * GB_DEVICE_CURRENT_CONTEXT), until the pop. */
gboolean gst_cuda_gauss_blur_context_push (GstObject * context);
void gst_cuda_gauss_blur_context_pop (void);

/* The device of a context (-1 for NULL). */
gint gst_cuda_gauss_blur_context_device (GstObject * context);

/* The CUDA context of the buffer's memory (transfer none), NULL where its
 * first memory is not CUDA memory. */
GstObject *gst_cuda_gauss_blur_buffer_context (GstBuffer * buffer);

/* Map flag that yields device pointers for CUDA memory (with
 * gst_video_frame_map; 0 without the library). */
GstMapFlags gst_cuda_gauss_blur_map_cuda_flag (void);

/* A CUDA buffer pool of context for caps' frames, with video meta,
 * configured with min and max buffers; *size: the size of its buffers
 * (pitched rows make them larger than the caps' frame). NULL on failure. */
GstBufferPool *gst_cuda_gauss_blur_cuda_pool_new (GstObject * context,
    GstCaps * caps, guint min_buffers, guint max_buffers, guint * size);

/* Whether pool is a CUDA buffer pool of context. */
gboolean gst_cuda_gauss_blur_is_cuda_pool (GstBufferPool * pool,
    GstObject * context);

G_END_DECLS

#endif /* __GST_CUDA_GAUSS_BLUR_MEMORY_SUPPORT_H__ */

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

#include "gstcudamemorysupport.h"

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#endif

gboolean
gst_cuda_gauss_blur_cuda_memory_supported (void)
{
#ifdef HAVE_GST_CUDA
  return TRUE;
#else
  return FALSE;
#endif
}

#ifdef HAVE_GST_CUDA
/* The formats GStreamer 1.22's CUDA allocator lays out (any other one
 * aborts it: gst_cuda_allocator_alloc asserts), so the only ones CUDA
 * memory can carry. */
static const GstVideoFormat cuda_memory_formats[] = {
  GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YV12, GST_VIDEO_FORMAT_Y42B,
  GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_NV21, GST_VIDEO_FORMAT_P010_10LE,
  GST_VIDEO_FORMAT_P016_LE, GST_VIDEO_FORMAT_I420_10LE,
  GST_VIDEO_FORMAT_I422_10LE, GST_VIDEO_FORMAT_I422_12LE,
  GST_VIDEO_FORMAT_Y444, GST_VIDEO_FORMAT_Y444_16LE,
  GST_VIDEO_FORMAT_RGBP, GST_VIDEO_FORMAT_BGRP, GST_VIDEO_FORMAT_GBR,
  GST_VIDEO_FORMAT_GBRA, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBA,
  GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_ARGB,
  GST_VIDEO_FORMAT_ABGR, GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGR,
  GST_VIDEO_FORMAT_BGR10A2_LE, GST_VIDEO_FORMAT_RGB10A2_LE,
  GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_UYVY,
};
#endif

GstCaps *
gst_cuda_gauss_blur_cuda_template_caps (GstCaps * system_caps)
{
#ifdef HAVE_GST_CUDA
  GstCaps *caps = gst_caps_copy (system_caps);
  GstCaps *layouts = gst_video_make_raw_caps_with_features
      (cuda_memory_formats, G_N_ELEMENTS (cuda_memory_formats),
      gst_caps_features_new_single (GST_CUDA_GAUSS_BLUR_CAPS_FEATURE_CUDA));
  GstCaps *cuda_caps;

  gst_caps_set_features_simple (caps,
      gst_caps_features_new_single (GST_CUDA_GAUSS_BLUR_CAPS_FEATURE_CUDA));
  cuda_caps = gst_caps_intersect (caps, layouts);
  gst_caps_unref (caps);
  gst_caps_unref (layouts);
  return gst_caps_merge (cuda_caps, system_caps);
#else
  return system_caps;
#endif
}

gboolean
gst_cuda_gauss_blur_caps_in_cuda_memory (const GstCaps * caps)
{
  GstCapsFeatures *features;

  if (!caps || gst_caps_get_size (caps) == 0)
    return FALSE;
  features = gst_caps_get_features (caps, 0);
  return features && gst_caps_features_contains (features,
      GST_CUDA_GAUSS_BLUR_CAPS_FEATURE_CUDA);
}

GstCaps *
gst_cuda_gauss_blur_caps_system_memory_first (GstCaps * caps)
{
  GstCaps *system = gst_caps_new_empty ();
  GstCaps *cuda = gst_caps_new_empty ();
  guint i;

  if (gst_caps_is_any (caps))
    return caps;
  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *features = gst_caps_get_features (caps, i);
    const gboolean in_cuda = features && !gst_caps_features_is_any (features)
        && gst_caps_features_contains (features,
        GST_CUDA_GAUSS_BLUR_CAPS_FEATURE_CUDA);

    gst_caps_append_structure_full (in_cuda ? cuda : system,
        gst_structure_copy (gst_caps_get_structure (caps, i)),
        features ? gst_caps_features_copy (features) : NULL);
  }
  gst_caps_unref (caps);
  return gst_caps_merge (system, cuda);
}

gboolean
gst_cuda_gauss_blur_context_ensure (GstElement * element, gint device_id,
    GstObject ** context)
{
#ifdef HAVE_GST_CUDA
  /* The library loads the driver itself (dlopen): where it cannot, there
   * is no context, whatever the neighbours say. */
  if (!gst_cuda_load_library ())
    return FALSE;
  return gst_cuda_ensure_element_context (element, device_id,
      (GstCudaContext **) context);
#else
  return FALSE;
#endif
}

void
gst_cuda_gauss_blur_context_set (GstElement * element,
    GstContext * gst_context, gint device_id, GstObject ** context)
{
#ifdef HAVE_GST_CUDA
  gst_cuda_handle_set_context (element, gst_context, device_id,
      (GstCudaContext **) context);
#endif
}

gboolean
gst_cuda_gauss_blur_context_query (GstElement * element, GstQuery * query,
    GstObject * context)
{
#ifdef HAVE_GST_CUDA
  return context && gst_cuda_handle_context_query (element, query,
      GST_CUDA_CONTEXT (context));
#else
  return FALSE;
#endif
}

gboolean
gst_cuda_gauss_blur_context_push (GstObject * context)
{
#ifdef HAVE_GST_CUDA
  return context && gst_cuda_context_push (GST_CUDA_CONTEXT (context));
#else
  return FALSE;
#endif
}

void
gst_cuda_gauss_blur_context_pop (void)
{
#ifdef HAVE_GST_CUDA
  gst_cuda_context_pop (NULL);
#endif
}

gint
gst_cuda_gauss_blur_context_device (GstObject * context)
{
  guint device_id = 0;

  if (!context)
    return -1;
  g_object_get (context, "cuda-device-id", &device_id, NULL);
  return (gint) device_id;
}

GstObject *
gst_cuda_gauss_blur_buffer_context (GstBuffer * buffer)
{
#ifdef HAVE_GST_CUDA
  GstMemory *memory;

  if (!buffer || gst_buffer_n_memory (buffer) == 0)
    return NULL;
  memory = gst_buffer_peek_memory (buffer, 0);
  if (!gst_is_cuda_memory (memory))
    return NULL;
  return GST_OBJECT (GST_CUDA_MEMORY_CAST (memory)->context);
#else
  return NULL;
#endif
}

GstMapFlags
gst_cuda_gauss_blur_map_cuda_flag (void)
{
#ifdef HAVE_GST_CUDA
  return (GstMapFlags) GST_MAP_CUDA;
#else
  return (GstMapFlags) 0;
#endif
}

GstBufferPool *
gst_cuda_gauss_blur_cuda_pool_new (GstObject * context, GstCaps * caps,
    guint min_buffers, guint max_buffers, guint * size)
{
#ifdef HAVE_GST_CUDA
  GstBufferPool *pool;
  GstStructure *config;
  GstVideoInfo info;

  if (!context || !gst_video_info_from_caps (&info, caps))
    return NULL;
  /* The pool finds the CUDA allocator by name, which 1.22 registers only
   * here (nvcodec's elements call it too, but may not be loaded). */
  gst_cuda_memory_init_once ();
  pool = gst_cuda_buffer_pool_new (GST_CUDA_CONTEXT (context));
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_params (config, caps, GST_VIDEO_INFO_SIZE (&info),
      min_buffers, max_buffers);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return NULL;
  }
  /* the pool sets the size of its pitched frames */
  config = gst_buffer_pool_get_config (pool);
  if (!gst_buffer_pool_config_get_params (config, NULL, size, NULL, NULL))
    *size = GST_VIDEO_INFO_SIZE (&info);
  gst_structure_free (config);
  return pool;
#else
  return NULL;
#endif
}

gboolean
gst_cuda_gauss_blur_is_cuda_pool (GstBufferPool * pool, GstObject * context)
{
#ifdef HAVE_GST_CUDA
  return pool && context && GST_IS_CUDA_BUFFER_POOL (pool)
      && GST_OBJECT (GST_CUDA_BUFFER_POOL (pool)->context) == context;
#else
  return FALSE;
#endif
}

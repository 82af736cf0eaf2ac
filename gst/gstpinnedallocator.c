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

/* Page-locked system memory for video frames.
 *
 * A GstAllocator whose memory is ordinary mappable host memory, allocated by
 * the core's gb_host_alloc() (cudaHostAlloc, portable): any element can
 * write a frame into it, and the blur copies it to and from the GPU by DMA
 * at the bus's speed, with no staging copy through a driver buffer.
 * Allocating it is slow (pages are locked), so it is meant for buffer pools,
 * which allocate once and recycle.
 */

#include "gstpinnedallocator.h"

#include "gaussblur.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_gauss_blur_pinned_debug);
#define GST_CAT_DEFAULT gst_cuda_gauss_blur_pinned_debug

/* Rows start on 64 bytes: whole cache lines for the copy engines. */
#define PINNED_ROW_ALIGN 63

typedef struct
{
  GstMemory mem;
  guint8 *base;                 /* gb_host_alloc's block; NULL in a share */
  guint8 *data;                 /* the aligned start of maxsize bytes */
} GstPinnedMemory;

struct _GstCudaGaussBlurPinnedAllocator
{
  GstAllocator parent;
};

G_DEFINE_TYPE (GstCudaGaussBlurPinnedAllocator,
    gst_cuda_gauss_blur_pinned_allocator, GST_TYPE_ALLOCATOR);

static GstMemory *
pinned_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  const gsize align = params->align | gst_memory_alignment;
  const gsize maxsize = size + params->prefix + params->padding;
  GbError error = { 0 };
  GstPinnedMemory *mem;
  void *base;

  /* The block is page-aligned; the extra `align` bytes serve larger
   * alignments. */
  if (gb_host_alloc (maxsize + align, &base, &error) != GB_OK) {
    GST_WARNING_OBJECT (allocator, "%s", error.message);
    return NULL;
  }
  mem = g_new0 (GstPinnedMemory, 1);
  gst_memory_init (GST_MEMORY_CAST (mem), params->flags, allocator, NULL,
      maxsize, align, params->prefix, size);
  mem->base = base;
  mem->data = (guint8 *) (((guintptr) base + align) & ~(guintptr) align);
  if (params->prefix && (params->flags & GST_MEMORY_FLAG_ZERO_PREFIXED))
    memset (mem->data, 0, params->prefix);
  if (params->padding && (params->flags & GST_MEMORY_FLAG_ZERO_PADDED))
    memset (mem->data + params->prefix + size, 0, params->padding);
  return GST_MEMORY_CAST (mem);
}

static void
pinned_free (GstAllocator * allocator, GstMemory * memory)
{
  GstPinnedMemory *mem = (GstPinnedMemory *) memory;

  gb_host_free (mem->base);     /* NULL for a share: the parent owns it */
  g_free (mem);
}

static gpointer
pinned_map (GstMemory * memory, gsize maxsize, GstMapFlags flags)
{
  return ((GstPinnedMemory *) memory)->data;
}

static void
pinned_unmap (GstMemory * memory)
{
}

static GstMemory *
pinned_share (GstMemory * memory, gssize offset, gssize size)
{
  GstPinnedMemory *mem = (GstPinnedMemory *) memory;
  GstMemory *parent = memory->parent ? memory->parent : memory;
  GstPinnedMemory *sub;

  if (size == -1)
    size = memory->size - offset;
  sub = g_new0 (GstPinnedMemory, 1);
  gst_memory_init (GST_MEMORY_CAST (sub),
      GST_MINI_OBJECT_FLAGS (parent) | GST_MINI_OBJECT_FLAG_LOCK_READONLY,
      memory->allocator, parent, memory->maxsize, memory->align,
      memory->offset + offset, size);
  sub->data = mem->data;
  return GST_MEMORY_CAST (sub);
}

static GstMemory *
pinned_copy (GstMemory * memory, gssize offset, gssize size)
{
  GstAllocationParams params = { 0, memory->align, 0, 0 };
  GstMemory *copy;
  GstMapInfo in, out;

  if (size == -1)
    size = memory->size > (gsize) offset ? memory->size - offset : 0;
  copy = gst_allocator_alloc (memory->allocator, size, &params);
  if (!copy)                    /* pinning failed: plain memory will do */
    copy = gst_allocator_alloc (NULL, size, &params);
  if (!copy)
    return NULL;
  if (!gst_memory_map (memory, &in, GST_MAP_READ)) {
    gst_memory_unref (copy);
    return NULL;
  }
  if (!gst_memory_map (copy, &out, GST_MAP_WRITE)) {
    gst_memory_unmap (memory, &in);
    gst_memory_unref (copy);
    return NULL;
  }
  memcpy (out.data, in.data + offset, size);
  gst_memory_unmap (copy, &out);
  gst_memory_unmap (memory, &in);
  return copy;
}

static void
gst_cuda_gauss_blur_pinned_allocator_class_init
    (GstCudaGaussBlurPinnedAllocatorClass * klass)
{
  GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS (klass);

  allocator_class->alloc = pinned_alloc;
  allocator_class->free = pinned_free;
  GST_DEBUG_CATEGORY_INIT (gst_cuda_gauss_blur_pinned_debug,
      "cudagaussblurpinned", 0, "Page-locked host memory for cudagaussblur");
}

static void
gst_cuda_gauss_blur_pinned_allocator_init (GstCudaGaussBlurPinnedAllocator *
    self)
{
  GstAllocator *allocator = GST_ALLOCATOR (self);

  allocator->mem_type = GST_CUDA_GAUSS_BLUR_PINNED_MEMORY_TYPE;
  allocator->mem_map = pinned_map;
  allocator->mem_unmap = pinned_unmap;
  allocator->mem_share = pinned_share;
  allocator->mem_copy = pinned_copy;
}

GstAllocator *
gst_cuda_gauss_blur_pinned_allocator_get (void)
{
  static GstAllocator *allocator = NULL;

  if (g_once_init_enter (&allocator)) {
    GstAllocator *made = NULL;
    GbError error = { 0 };
    void *probe;

    /* One page tells whether this process can pin memory at all. */
    if (gb_host_alloc (4096, &probe, &error) == GB_OK) {
      gb_host_free (probe);
      made = g_object_new (GST_TYPE_CUDA_GAUSS_BLUR_PINNED_ALLOCATOR, NULL);
      gst_object_ref_sink (made);
      /* The singleton lives as long as the process (as GStreamer's own
       * default allocators do). */
      GST_OBJECT_FLAG_SET (made, GST_OBJECT_FLAG_MAY_BE_LEAKED);
    } else {
      GST_INFO ("no page-locked memory: %s", error.message);
      made = GINT_TO_POINTER (1);       /* remembered: none */
    }
    g_once_init_leave (&allocator, made);
  }
  if (allocator == GINT_TO_POINTER (1))
    return NULL;
  return gst_object_ref (allocator);
}

GstBufferPool *
gst_cuda_gauss_blur_pinned_pool_new (const GstCaps * caps,
    const GstVideoInfo * info, guint min_buffers, guint max_buffers,
    gboolean with_video_meta)
{
  GstAllocator *allocator = gst_cuda_gauss_blur_pinned_allocator_get ();
  GstAllocationParams params;
  GstBufferPool *pool;
  GstStructure *config;

  if (!allocator)
    return NULL;
  gst_allocation_params_init (&params);
  params.align = PINNED_ROW_ALIGN;
  pool = gst_video_buffer_pool_new ();
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, (GstCaps *) caps,
      GST_VIDEO_INFO_SIZE (info), min_buffers, max_buffers);
  gst_buffer_pool_config_set_allocator (config, allocator, &params);
  if (with_video_meta) {
    /* Rows on 64 bytes, described by the video meta. */
    GstVideoAlignment alignment;
    guint i;

    gst_video_alignment_reset (&alignment);
    for (i = 0; i < GST_VIDEO_MAX_PLANES; i++)
      alignment.stride_align[i] = PINNED_ROW_ALIGN;
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT);
    gst_buffer_pool_config_set_video_alignment (config, &alignment);
  }
  gst_object_unref (allocator);
  if (!gst_buffer_pool_set_config (pool, config)) {
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

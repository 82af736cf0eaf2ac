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

#ifndef __GST_CUDA_GAUSS_BLUR_PINNED_ALLOCATOR_H__
#define __GST_CUDA_GAUSS_BLUR_PINNED_ALLOCATOR_H__

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/* System memory that is page-locked for the GPU (the core's gb_host_alloc):
 * ordinary mappable memory for every element, which the blur copies to and
 * from the GPU at the bus's speed. Memory type name below. */
#define GST_CUDA_GAUSS_BLUR_PINNED_MEMORY_TYPE "CudaGaussBlurPinnedMemory"

#define GST_TYPE_CUDA_GAUSS_BLUR_PINNED_ALLOCATOR \
    (gst_cuda_gauss_blur_pinned_allocator_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaGaussBlurPinnedAllocator,
    gst_cuda_gauss_blur_pinned_allocator, GST, CUDA_GAUSS_BLUR_PINNED_ALLOCATOR,
    GstAllocator);

/* The process-wide allocator (a new reference), or NULL where no CUDA device
 * can pin memory. */
GstAllocator *gst_cuda_gauss_blur_pinned_allocator_get (void);

/* A video buffer pool of pinned memory for info's frames, configured with
 * min and max buffers (inactive: its user activates it). with_video_meta:
 * buffers carry GstVideoMeta and their rows are padded to 64 bytes (only
 * for a user that reads the meta); else the default strides. NULL where
 * memory cannot be pinned. */
GstBufferPool *gst_cuda_gauss_blur_pinned_pool_new (const GstCaps * caps,
    const GstVideoInfo * info, guint min_buffers, guint max_buffers,
    gboolean with_video_meta);

G_END_DECLS

#endif /* __GST_CUDA_GAUSS_BLUR_PINNED_ALLOCATOR_H__ */

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

/* The core's view of a frame (GbGeometry) from its GstVideoInfo, as the
 * element makes its handles. A small static library of its own
 * (gst/meson.build: blur_geometry_dep), so that the CUDA-memory benchmark
 * lays its timed frames out exactly as the element does. The element tests
 * do not use it: tests/element_check.c keeps an independent mapping, to
 * check this one against. */
#ifndef GST_BLUR_GEOMETRY_H
#define GST_BLUR_GEOMETRY_H

#include <gst/video/video.h>

#include "gaussblur.h"

G_BEGIN_DECLS

/* Each plane of the format is one image for the core: the first component
 * in it gives its size and subsampling, and its pixel stride the
 * interleaved samples (NV12's UV plane: 2 channels); its alpha and padding
 * channels are marked as such for the edge-aware filter. */
void gst_cuda_gauss_blur_geometry_from_info (const GstVideoInfo * info,
    GbGeometry * geometry);

G_END_DECLS

#endif /* GST_BLUR_GEOMETRY_H */

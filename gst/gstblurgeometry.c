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

/* The core's geometry of a GstVideoInfo (see gstblurgeometry.h). */
#include "gstblurgeometry.h"

#include <string.h>

/* The channels of plane `plane` (of channels samples a pixel) that do not
 * steer the edge-aware filter: alpha (RGBA's 3, ARGB's and AYUV's 0) and
 * padding (RGBx's x, which no component occupies). A component's channel
 * is its byte offset in the pixel over the sample size. Padding only where
 * the plane has more channels than components: GStreamer 1.22 places
 * P016's V at byte 1, inside U's 16-bit sample, so offsets alone would
 * make its second channel padding. */
static guint
gst_cuda_gauss_blur_alpha_mask (const GstVideoFormatInfo * finfo, guint plane,
    gint channels, gint bytes_per_sample)
{
  guint alpha = 0, colour = 0, n_components = 0, comp;

  for (comp = 0; comp < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo); comp++) {
    guint channel;

    if (GST_VIDEO_FORMAT_INFO_PLANE (finfo, comp) != plane)
      continue;
    n_components++;
    channel = 1u << (GST_VIDEO_FORMAT_INFO_POFFSET (finfo, comp)
        / bytes_per_sample);
    if (GST_VIDEO_FORMAT_INFO_HAS_ALPHA (finfo) && comp == GST_VIDEO_COMP_A)
      alpha |= channel;
    else
      colour |= channel;
  }
  if (n_components >= (guint) channels)
    return alpha;
  return ((1u << channels) - 1u) & ~colour;
}

void
gst_cuda_gauss_blur_geometry_from_info (const GstVideoInfo * info,
    GbGeometry * geometry)
{
  guint plane;

  memset (geometry, 0, sizeof *geometry);
  geometry->n_planes = GST_VIDEO_INFO_N_PLANES (info);
  geometry->bytes_per_sample =
      (GST_VIDEO_FORMAT_INFO_BITS (info->finfo) + 7) / 8;
  for (plane = 0; plane < GST_VIDEO_INFO_N_PLANES (info); plane++) {
    gint components[GST_VIDEO_MAX_COMPONENTS];
    gint comp;

    gst_video_format_info_component (info->finfo, plane, components);
    comp = components[0];
    geometry->planes[plane].width = GST_VIDEO_INFO_COMP_WIDTH (info, comp);
    geometry->planes[plane].height = GST_VIDEO_INFO_COMP_HEIGHT (info, comp);
    geometry->planes[plane].channels = GST_VIDEO_INFO_COMP_PSTRIDE (info, comp)
        / geometry->bytes_per_sample;
    geometry->planes[plane].subsampling_x =
        1 << GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo, comp);
    geometry->planes[plane].subsampling_y =
        1 << GST_VIDEO_FORMAT_INFO_H_SUB (info->finfo, comp);
    geometry->planes[plane].alpha_mask =
        gst_cuda_gauss_blur_alpha_mask (info->finfo, plane,
        geometry->planes[plane].channels, geometry->bytes_per_sample);
  }
}


/* Sigma map regions from GstVideoRegionOfInterestMeta (sigma-map=roi).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef GST_ROI_REGIONS_H
#define GST_ROI_REGIONS_H

#include <gst/gst.h>

#include "sigma_map.h"

G_BEGIN_DECLS

/* The GstStructure a detector (or the application) attaches to a region of
 * interest meta, with gst_video_region_of_interest_meta_add_param(), to
 * give that region its own sigma: a double (or int) field "sigma". */
#define GST_ROI_REGIONS_PARAM_NAME "cudagaussblur"
#define GST_ROI_REGIONS_PARAM_SIGMA "sigma"

/* Appends to regions (a GArray of GbSigmaRegion) one region for each
 * GstVideoRegionOfInterestMeta on buffer whose type name is in types (NULL
 * or empty: every type): its rectangle in frame pixels, and as sigma the
 * meta's "cudagaussblur" parameter's "sigma" where that is present and
 * >= 0, else default_sigma. Returns the number appended. */
guint gst_roi_regions_collect (GstBuffer * buffer, gdouble default_sigma,
    const gchar * const *types, GArray * regions);

/* Splits a comma-separated list of region types ("face, license-plate"):
 * entries trimmed of spaces, empty ones dropped. NULL when nothing is
 * left (list NULL or empty: every type); else free with g_strfreev(). */
gchar **gst_roi_regions_parse_types (const gchar * list);

G_END_DECLS

#endif /* GST_ROI_REGIONS_H */

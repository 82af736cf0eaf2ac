/* Sigma map regions from GstVideoRegionOfInterestMeta (see
 * gstroiregions.h).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "gstroiregions.h"

#include <gst/video/video.h>

#include <math.h>

/* Types are compared by name: a list from a property holds names, and
 * g_quark_to_string() of a meta's type costs nothing. */
static gboolean
type_wanted (GQuark roi_type, const gchar * const *types)
{
  const gchar *name;

  if (!types || !types[0])
    return TRUE;
  name = g_quark_to_string (roi_type);
  for (; *types; types++)
    if (g_strcmp0 (name, *types) == 0)
      return TRUE;
  return FALSE;
}

/* The meta's own sigma, or default_sigma: an absent, negative, NaN,
 * infinite or non-numeric field falls back rather than failing the frame
 * (the core refuses a region's infinite sigma). */
static gdouble
region_sigma (GstVideoRegionOfInterestMeta * roi, gdouble default_sigma)
{
  GstStructure *param =
      gst_video_region_of_interest_meta_get_param (roi,
      GST_ROI_REGIONS_PARAM_NAME);
  const GValue *value;
  gdouble sigma;

  if (!param)
    return default_sigma;
  value = gst_structure_get_value (param, GST_ROI_REGIONS_PARAM_SIGMA);
  if (!value)
    return default_sigma;
  if (G_VALUE_HOLDS_DOUBLE (value))
    sigma = g_value_get_double (value);
  else if (G_VALUE_HOLDS_FLOAT (value))
    sigma = g_value_get_float (value);
  else if (G_VALUE_HOLDS_INT (value))
    sigma = g_value_get_int (value);
  else if (G_VALUE_HOLDS_UINT (value))
    sigma = g_value_get_uint (value);
  else
    return default_sigma;
  return sigma >= 0.0 && isfinite (sigma) ? sigma : default_sigma;
}

/* The meta's unsigned coordinates as GbRect's ints; beyond G_MAXINT the
 * rectangle is past any frame anyway. */
static gint
clamp_to_int (guint value)
{
  return value > G_MAXINT ? G_MAXINT : (gint) value;
}

guint
gst_roi_regions_collect (GstBuffer * buffer, gdouble default_sigma,
    const gchar * const *types, GArray * regions)
{
  gpointer state = NULL;
  GstMeta *meta;
  guint n_appended = 0;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), 0);
  g_return_val_if_fail (regions != NULL, 0);
  g_return_val_if_fail (g_array_get_element_size (regions) ==
      sizeof (GbSigmaRegion), 0);

  while ((meta = gst_buffer_iterate_meta_filtered (buffer, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) meta;
    GbSigmaRegion region;

    if (!type_wanted (roi->roi_type, types))
      continue;
    region.rect.x = clamp_to_int (roi->x);
    region.rect.y = clamp_to_int (roi->y);
    region.rect.width = clamp_to_int (roi->w);
    region.rect.height = clamp_to_int (roi->h);
    region.sigma = region_sigma (roi, default_sigma);
    g_array_append_val (regions, region);
    n_appended++;
  }
  return n_appended;
}

gchar **
gst_roi_regions_parse_types (const gchar * list)
{
  GPtrArray *types;
  gchar **entries;
  guint i;

  if (!list || !list[0])
    return NULL;
  entries = g_strsplit (list, ",", -1);
  types = g_ptr_array_new ();
  for (i = 0; entries[i]; i++) {
    g_strstrip (entries[i]);
    if (entries[i][0])
      g_ptr_array_add (types, g_strdup (entries[i]));
  }
  g_strfreev (entries);
  if (types->len == 0) {
    g_ptr_array_free (types, TRUE);
    return NULL;
  }
  g_ptr_array_add (types, NULL);
  return (gchar **) g_ptr_array_free (types, FALSE);
}

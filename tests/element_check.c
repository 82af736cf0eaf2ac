/* Helpers shared by the cudagaussblur element tests: see element_check.h.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <string.h>

#include <gst/check/gstcheck.h>

#include "element_check.h"

GstVideoInfo
video_info (const gchar * format, gint width, gint height)
{
  GstVideoInfo info;

  fail_unless (gst_video_info_set_format (&info,
          gst_video_format_from_string (format), width, height));
  return info;
}

GstCaps *
video_caps (const gchar * format, gint width, gint height)
{
  GstVideoInfo info = video_info (format, width, height);

  GST_VIDEO_INFO_FPS_N (&info) = 30;
  GST_VIDEO_INFO_FPS_D (&info) = 1;
  return gst_video_info_to_caps (&info);
}

GstBuffer *
random_frame (const GstVideoInfo * info, guint32 seed)
{
  GstBuffer *buffer = gst_buffer_new_allocate (NULL, info->size, NULL);
  GRand *rand = g_rand_new_with_seed (seed);
  GstMapInfo map;
  gsize i;

  fail_unless (gst_buffer_map (buffer, &map, GST_MAP_WRITE));
  /* four bytes a draw: the GPU test's frames are up to 8 MB */
  for (i = 0; i + 4 <= map.size; i += 4) {
    guint32 word = g_rand_int (rand);
    memcpy (map.data + i, &word, 4);
  }
  for (; i < map.size; i++)
    map.data[i] = g_rand_int_range (rand, 0, 256);
  gst_buffer_unmap (buffer, &map);
  g_rand_free (rand);
  return buffer;
}

/* Every accepted format is packed: one plane, pixel stride samples a pixel. */
static GbGeometry
geometry_for (const GstVideoInfo * info)
{
  GbGeometry geometry;

  memset (&geometry, 0, sizeof geometry);
  fail_unless_equals_int (GST_VIDEO_INFO_N_PLANES (info), 1);
  geometry.n_planes = 1;
  geometry.bytes_per_sample = 1;
  geometry.planes[0].width = GST_VIDEO_INFO_WIDTH (info);
  geometry.planes[0].height = GST_VIDEO_INFO_HEIGHT (info);
  geometry.planes[0].channels = GST_VIDEO_INFO_COMP_PSTRIDE (info, 0);
  return geometry;
}

static GbImage
image_of (GstVideoFrame * frame)
{
  GbImage image;

  memset (&image, 0, sizeof image);
  image.data[0] = GST_VIDEO_FRAME_PLANE_DATA (frame, 0);
  image.stride[0] = GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0);
  return image;
}

GstBuffer *
reference_blur (GstBuffer * input, const GstVideoInfo * info,
    const GbParams * params)
{
  GbGeometry geometry = geometry_for (info);
  GstBuffer *expected = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstVideoFrame in_frame, out_frame;
  GbImage src, dst;
  GbError error = { 0 };
  GbBlur *blur = NULL;

  fail_unless (gb_blur_create (GB_BACKEND_CPU, -1, &geometry, &blur,
          &error) == GB_OK, "%s", error.message);
  fail_unless (gb_blur_set_params (blur, params, &error) == GB_OK, "%s",
      error.message);
  fail_unless (gst_video_frame_map (&in_frame, info, input, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&out_frame, info, expected,
          GST_MAP_WRITE));
  src = image_of (&in_frame);
  dst = image_of (&out_frame);
  fail_unless (gb_blur_process (blur, &src, &dst, &error) == GB_OK, "%s",
      error.message);
  gst_video_frame_unmap (&out_frame);
  gst_video_frame_unmap (&in_frame);
  gb_blur_destroy (blur);
  return expected;
}

gint
max_difference (GstBuffer * a, GstBuffer * b, const GstVideoInfo * info)
{
  GstVideoFrame frame_a, frame_b;
  gint row_bytes = GST_VIDEO_INFO_WIDTH (info)
      * GST_VIDEO_INFO_COMP_PSTRIDE (info, 0);
  gint max = 0, x, y;

  fail_unless (gst_video_frame_map (&frame_a, info, a, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&frame_b, info, b, GST_MAP_READ));
  for (y = 0; y < GST_VIDEO_INFO_HEIGHT (info); y++) {
    const guint8 *row_a = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame_a,
        0) + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame_a, 0);
    const guint8 *row_b = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame_b,
        0) + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame_b, 0);
    for (x = 0; x < row_bytes; x++)
      max = MAX (max, ABS ((gint) row_a[x] - (gint) row_b[x]));
  }
  gst_video_frame_unmap (&frame_b);
  gst_video_frame_unmap (&frame_a);
  return max;
}

/* The element's enum values are the core's (test_properties in
 * test_element.c checks it), so they go over as they are. */
void
element_set_params (GstElement * element, const GbParams * params)
{
  g_object_set (element, "sigma", params->sigma, "radius", params->radius,
      "algorithm", (gint) params->algorithm, "border", (gint) params->border,
      NULL);
}

GstHarness *
element_harness_new (const gchar * backend, const gchar * format,
    gint width, gint height)
{
  GstHarness *h = gst_harness_new (ELEMENT);

  gst_util_set_object_arg (G_OBJECT (h->element), "backend", backend);
  gst_harness_set_src_caps (h, video_caps (format, width, height));
  return h;
}

GstBuffer *
push_pull (GstHarness * h, GstBuffer * input)
{
  GstBuffer *output;

  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (input)),
      GST_FLOW_OK);
  output = gst_harness_pull (h);
  fail_unless (output != NULL);
  fail_unless (output != input);
  return output;
}

const PropertyStep common_property_steps[] = {
  {"sigma", "4", {4.0, 0, GB_ALGORITHM_AUTO, GB_BORDER_CLAMP}, TRUE},
  {"algorithm", "naive", {4.0, 0, GB_ALGORITHM_NAIVE, GB_BORDER_CLAMP}, FALSE},
  {"border", "zero", {4.0, 0, GB_ALGORITHM_NAIVE, GB_BORDER_ZERO}, TRUE},
  {"radius", "2", {4.0, 2, GB_ALGORITHM_NAIVE, GB_BORDER_ZERO}, TRUE},
  {"algorithm", "shared", {4.0, 2, GB_ALGORITHM_SHARED, GB_BORDER_ZERO},
      FALSE},
  {"border", "mirror", {4.0, 2, GB_ALGORITHM_SHARED, GB_BORDER_MIRROR}, TRUE},
  {"algorithm", "separable", {4.0, 2, GB_ALGORITHM_SEPARABLE,
          GB_BORDER_MIRROR}, FALSE},
};

const guint n_common_property_steps = G_N_ELEMENTS (common_property_steps);

GstBuffer *
check_property_steps (GstHarness * h, GstBuffer * input,
    const GstVideoInfo * info, GstBuffer * last, const PropertyStep * steps,
    guint n_steps, PushAndCheckFunc push_and_check)
{
  guint i;

  for (i = 0; i < n_steps; i++) {
    GstBuffer *output;

    gst_util_set_object_arg (G_OBJECT (h->element), steps[i].property,
        steps[i].value);
    output = push_and_check (h, input, info, &steps[i].params);
    if (steps[i].output_changes)
      fail_unless (max_difference (output, last, info) > 0,
          "setting %s to %s changed nothing", steps[i].property,
          steps[i].value);
    gst_buffer_unref (last);
    last = output;
  }
  return last;
}

/* Helpers shared by the cudagaussblur element tests: see element_check.h.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <math.h>
#include <string.h>

#include <gst/check/gstcheck.h>

#include "element_check.h"
#include "multiscale.h"

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

/* The first component stored in plane `plane`: its size, pixel stride and
 * subsampling are the plane's (NV12's UV plane: U, 2 samples a pixel). */
static gint
plane_component (const GstVideoInfo * info, guint plane)
{
  guint comp;

  for (comp = 0; comp < GST_VIDEO_INFO_N_COMPONENTS (info); comp++)
    if (GST_VIDEO_INFO_COMP_PLANE (info, comp) == plane)
      return comp;
  fail ("%s has no component in plane %u",
      GST_VIDEO_INFO_NAME (info), plane);
  return 0;
}

static gint
sample_bytes (const GstVideoInfo * info)
{
  return GST_VIDEO_INFO_COMP_DEPTH (info, 0) > 8 ? 2 : 1;
}

/* The channels of plane p that hold no colour component: alpha (where the
 * alpha component's byte offset says), and padding, the channels beyond
 * the plane's components, where no colour component's offset points
 * (offsets do not always name channels: GStreamer 1.22 puts P016's V at
 * byte 1). */
static guint
non_colour_channels (const GstVideoInfo * info, guint p, gint channels,
    gint bytes)
{
  guint alpha = 0, colour = 0, n_components = 0, comp;

  for (comp = 0; comp < GST_VIDEO_INFO_N_COMPONENTS (info); comp++) {
    const guint channel = 1u << (GST_VIDEO_INFO_COMP_POFFSET (info, comp)
        / bytes);

    if (GST_VIDEO_INFO_COMP_PLANE (info, comp) != p)
      continue;
    n_components++;
    if (GST_VIDEO_INFO_HAS_ALPHA (info) && comp == GST_VIDEO_COMP_A)
      alpha |= channel;
    else
      colour |= channel;
  }
  return n_components >= (guint) channels ? alpha
      : ((1u << channels) - 1u) & ~colour;
}

GbGeometry
geometry_for (const GstVideoInfo * info)
{
  GbGeometry geometry;
  guint p;

  memset (&geometry, 0, sizeof geometry);
  geometry.n_planes = GST_VIDEO_INFO_N_PLANES (info);
  geometry.bytes_per_sample = sample_bytes (info);
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    const gint comp = plane_component (info, p);
    GbPlaneGeometry *plane = &geometry.planes[p];

    plane->width = GST_VIDEO_INFO_COMP_WIDTH (info, comp);
    plane->height = GST_VIDEO_INFO_COMP_HEIGHT (info, comp);
    plane->channels = GST_VIDEO_INFO_COMP_PSTRIDE (info, comp)
        / geometry.bytes_per_sample;
    plane->subsampling_x = 1 << GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo, comp);
    plane->subsampling_y = 1 << GST_VIDEO_FORMAT_INFO_H_SUB (info->finfo, comp);
    plane->alpha_mask = non_colour_channels (info, p, plane->channels,
        geometry.bytes_per_sample);
  }
  return geometry;
}

static GbImage
image_of (GstVideoFrame * frame)
{
  GbImage image;
  guint p;

  memset (&image, 0, sizeof image);
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (frame); p++) {
    image.data[p] = GST_VIDEO_FRAME_PLANE_DATA (frame, p);
    image.stride[p] = GST_VIDEO_FRAME_PLANE_STRIDE (frame, p);
  }
  return image;
}

GstBuffer *
blur_frame (GbBlur * blur, GstBuffer * input, const GstVideoInfo * info)
{
  GstBuffer *expected = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstVideoFrame in_frame, out_frame;
  GbImage src, dst;
  GbError error = { 0 };

  fail_unless (gst_video_frame_map (&in_frame, info, input, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&out_frame, info, expected,
          GST_MAP_WRITE));
  src = image_of (&in_frame);
  dst = image_of (&out_frame);
  fail_unless (gb_blur_process (blur, &src, &dst, &error) == GB_OK, "%s",
      error.message);
  gst_video_frame_unmap (&out_frame);
  gst_video_frame_unmap (&in_frame);
  return expected;
}

GstBuffer *
reference_blur (GstBuffer * input, const GstVideoInfo * info,
    const GbParams * params)
{
  return reference_blur_with_map (input, info, NULL, params);
}

GstBuffer *
reference_blur_with_map (GstBuffer * input, const GstVideoInfo * info,
    const gfloat * map, const GbParams * params)
{
  GbGeometry geometry = geometry_for (info);
  GstBuffer *expected;
  GbError error = { 0 };
  GbBlur *blur = NULL;

  fail_unless (gb_blur_create (GB_BACKEND_CPU, -1, &geometry, &blur,
          &error) == GB_OK, "%s", error.message);
  if (map)
    fail_unless (gb_blur_set_sigma_map (blur, map, info->width,
            &error) == GB_OK, "%s", error.message);
  fail_unless (gb_blur_set_params (blur, params, &error) == GB_OK, "%s",
      error.message);
  expected = blur_frame (blur, input, info);
  gb_blur_destroy (blur);
  return expected;
}

/* Sample i of a row of 8- or 16-bit samples. */
static inline gint
sample_at (const guint8 * row, gint i, gint bytes)
{
  return bytes == 1 ? row[i] : ((const guint16 *) row)[i];
}

static gboolean
rect_contains (const GbRect * rect, gint x, gint y)
{
  return x >= rect->x && x < rect->x + rect->width && y >= rect->y
      && y < rect->y + rect->height;
}

/* Largest difference per plane; samples inside plane_region (params) are
 * skipped when outside_of is given. */
static gint
compare_planes (GstBuffer * a, GstBuffer * b, const GstVideoInfo * info,
    const GbParams * outside_of, gint differences[GST_VIDEO_MAX_PLANES])
{
  const gint bytes = sample_bytes (info);
  GstVideoFrame frame_a, frame_b;
  gint max = 0, x, y;
  guint p;

  fail_unless (gst_video_frame_map (&frame_a, info, a, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&frame_b, info, b, GST_MAP_READ));
  for (p = 0; p < GST_VIDEO_MAX_PLANES; p++)
    differences[p] = 0;
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    const gint comp = plane_component (info, p);
    const gint width = GST_VIDEO_INFO_COMP_WIDTH (info, comp);
    const gint height = GST_VIDEO_INFO_COMP_HEIGHT (info, comp);
    const gint channels = GST_VIDEO_INFO_COMP_PSTRIDE (info, comp) / bytes;
    GbRect skip = { 0, 0, 0, 0 };

    if (outside_of)
      skip = plane_region (info, p, outside_of);
    for (y = 0; y < height; y++) {
      const guint8 *row_a = (const guint8 *)
          GST_VIDEO_FRAME_PLANE_DATA (&frame_a, p)
          + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame_a, p);
      const guint8 *row_b = (const guint8 *)
          GST_VIDEO_FRAME_PLANE_DATA (&frame_b, p)
          + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame_b, p);
      for (x = 0; x < width * channels; x++) {
        if (rect_contains (&skip, x / channels, y))
          continue;
        differences[p] = MAX (differences[p], ABS (sample_at (row_a, x, bytes)
                - sample_at (row_b, x, bytes)));
      }
    }
    max = MAX (max, differences[p]);
  }
  gst_video_frame_unmap (&frame_b);
  gst_video_frame_unmap (&frame_a);
  return max;
}

gint
max_plane_differences (GstBuffer * a, GstBuffer * b,
    const GstVideoInfo * info, gint differences[GST_VIDEO_MAX_PLANES])
{
  return compare_planes (a, b, info, NULL, differences);
}

gint
max_difference (GstBuffer * a, GstBuffer * b, const GstVideoInfo * info)
{
  gint differences[GST_VIDEO_MAX_PLANES];

  return compare_planes (a, b, info, NULL, differences);
}

gint
max_difference_outside (GstBuffer * a, GstBuffer * b,
    const GstVideoInfo * info, const GbParams * params)
{
  gint differences[GST_VIDEO_MAX_PLANES];

  return compare_planes (a, b, info, params, differences);
}

/* [*first, *last) of plane samples (each covering `sub` frame pixels) that
 * touch frame pixels [start, end), clipped to the n samples of the plane. */
static void
span (gint64 start, gint64 end, gint sub, gint n, gint * first, gint * last)
{
  *first = (gint) MIN (start / sub, n);
  *last = (gint) MIN ((end + sub - 1) / sub, n);
}

GbRect
plane_region (const GstVideoInfo * info, guint plane, const GbParams * params)
{
  const GbRect *region = &params->region;
  const gint comp = plane_component (info, plane);
  const gint width = GST_VIDEO_INFO_COMP_WIDTH (info, comp);
  const gint height = GST_VIDEO_INFO_COMP_HEIGHT (info, comp);
  gint grid_x = 1, grid_y = 1, x0, x1, y0, y1;
  gint64 left, right, top, bottom;
  guint c;

  if (region->width <= 0 || region->height <= 0) {
    GbRect whole = { 0, 0, width, height };
    return whole;
  }
  /* a region starting past the frame is empty, before any widening */
  if (region->x >= GST_VIDEO_INFO_WIDTH (info)
      || region->y >= GST_VIDEO_INFO_HEIGHT (info)) {
    GbRect none = { 0, 0, 0, 0 };
    return none;
  }
  /* every plane covers the same picture: the coarsest chroma grid's */
  for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info); c++) {
    grid_x = MAX (grid_x, 1 << GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo, c));
    grid_y = MAX (grid_y, 1 << GST_VIDEO_FORMAT_INFO_H_SUB (info->finfo, c));
  }
  left = (gint64) region->x / grid_x * grid_x;
  top = (gint64) region->y / grid_y * grid_y;
  right = ((gint64) region->x + region->width + grid_x - 1) / grid_x * grid_x;
  bottom = ((gint64) region->y + region->height + grid_y - 1) / grid_y
      * grid_y;
  span (left, right, 1 << GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo, comp),
      width, &x0, &x1);
  span (top, bottom, 1 << GST_VIDEO_FORMAT_INFO_H_SUB (info->finfo, comp),
      height, &y0, &y1);
  {
    GbRect rect = { x0, y0, x1 - x0, y1 - y0 };
    return rect;
  }
}

/* The documented border rules, for any distance outside [0, n); -1 reads 0. */
static gint
border_index (gint i, gint n, GbBorder border)
{
  if (i >= 0 && i < n)
    return i;
  if (border == GB_BORDER_ZERO)
    return -1;
  if (border == GB_BORDER_CLAMP || n == 1)
    return CLAMP (i, 0, n - 1);
  while (i < 0 || i >= n)       /* reflect about the edge samples */
    i = i < 0 ? -i : 2 * (n - 1) - i;
  return i;
}

/* The radius of a plane axis and its normalised Gaussian taps. */
static gint
axis_taps (const GbParams * params, gdouble frame_sigma, gint sub,
    gdouble * taps)
{
  const gdouble sigma = frame_sigma / sub;
  gdouble sum = 0.0;
  gint radius, k;

  if (sigma <= 0.0) {
    taps[0] = 1.0;
    return 0;
  }
  if (params->radius > 0)
    radius = (params->radius + sub - 1) / sub;
  else
    radius = CLAMP ((gint) ceil (3.5 * sigma), 1, GB_MAX_RADIUS);
  for (k = -radius; k <= radius; k++)
    sum += taps[k + radius] = exp (-(gdouble) k * k / (2.0 * sigma * sigma));
  for (k = 0; k <= 2 * radius; k++)
    taps[k] /= sum;
  return radius;
}

GstBuffer *
exact_blur (GstBuffer * input, const GstVideoInfo * info,
    const GbParams * params)
{
  const gint bytes = sample_bytes (info);
  const gdouble top = bytes == 1 ? 255.0 : 65535.0;
  GstBuffer *output = gst_buffer_new_allocate (NULL, info->size, NULL);
  gdouble *taps_x = g_new (gdouble, 2 * GB_MAX_RADIUS + 1);
  gdouble *taps_y = g_new (gdouble, 2 * GB_MAX_RADIUS + 1);
  GstVideoFrame in_frame, out_frame;
  guint p;

  fail_unless (gst_video_frame_map (&in_frame, info, input, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&out_frame, info, output,
          GST_MAP_WRITE));
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    const gint comp = plane_component (info, p);
    const gint width = GST_VIDEO_INFO_COMP_WIDTH (info, comp);
    const gint height = GST_VIDEO_INFO_COMP_HEIGHT (info, comp);
    const gint channels = GST_VIDEO_INFO_COMP_PSTRIDE (info, comp) / bytes;
    const guint8 *src = GST_VIDEO_FRAME_PLANE_DATA (&in_frame, p);
    guint8 *dst = GST_VIDEO_FRAME_PLANE_DATA (&out_frame, p);
    const gint src_stride = GST_VIDEO_FRAME_PLANE_STRIDE (&in_frame, p);
    const gint dst_stride = GST_VIDEO_FRAME_PLANE_STRIDE (&out_frame, p);
    const GbRect rect = plane_region (info, p, params);
    const gint radius_x = axis_taps (params, params->sigma_x,
        1 << GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo, comp), taps_x);
    const gint radius_y = axis_taps (params, params->sigma_y,
        1 << GST_VIDEO_FORMAT_INFO_H_SUB (info->finfo, comp), taps_y);
    gint x, y, c, i, j;

    for (y = 0; y < height; y++)
      memcpy (dst + y * dst_stride, src + y * src_stride,
          (gsize) width * channels * bytes);
    for (y = rect.y; y < rect.y + rect.height; y++) {
      for (x = rect.x; x < rect.x + rect.width; x++) {
        for (c = 0; c < channels; c++) {
          const gdouble in = sample_at (src + y * src_stride, x * channels + c,
              bytes);
          gdouble blur = 0.0, value;

          for (j = -radius_y; j <= radius_y; j++) {
            const gint sy = border_index (y + j, height, params->border);
            gdouble row = 0.0;

            if (sy < 0)
              continue;
            for (i = -radius_x; i <= radius_x; i++) {
              const gint sx = border_index (x + i, width, params->border);

              if (sx >= 0)
                row += taps_x[i + radius_x] * sample_at (src + sy * src_stride,
                    sx * channels + c, bytes);
            }
            blur += taps_y[j + radius_y] * row;
          }
          value = params->sharpen > 0.0 ? in + params->sharpen * (in - blur)
              : blur;
          value = CLAMP (floor (value + 0.5), 0.0, top);
          if (bytes == 1)
            dst[y * dst_stride + x * channels + c] = (guint8) value;
          else
            ((guint16 *) (dst + y * dst_stride))[x * channels + c] =
                (guint16) value;
        }
      }
    }
  }
  gst_video_frame_unmap (&out_frame);
  gst_video_frame_unmap (&in_frame);
  g_free (taps_y);
  g_free (taps_x);
  return output;
}

gint
exact_tolerance (const GbParams * params)
{
  return 1 + (gint) (params->sharpen / 2.0);
}

GbAlgorithm
effective_algorithm (GbBackend backend, const GstVideoInfo * info,
    const GbParams * params)
{
  GbGeometry geometry = geometry_for (info);
  GbError error = { 0 };
  GbBlur *blur = NULL;
  GbAlgorithm algorithm;

  fail_unless (gb_blur_create (backend, -1, &geometry, &blur, &error)
      == GB_OK, "%s", error.message);
  fail_unless (gb_blur_set_params (blur, params, &error) == GB_OK, "%s",
      error.message);
  algorithm = gb_blur_get_effective_algorithm (blur);
  gb_blur_destroy (blur);
  return algorithm;
}

gboolean
exact_blur_applies (const GstVideoInfo * info, const GbParams * params)
{
  const GbAlgorithm algorithm = effective_algorithm (GB_BACKEND_CPU, info,
      params);

  /* multiscale is the separable convolution below its smallest sigma */
  return algorithm == GB_ALGORITHM_NAIVE || algorithm == GB_ALGORITHM_SHARED
      || algorithm == GB_ALGORITHM_SEPARABLE
      || algorithm == GB_ALGORITHM_FUSED
      || (algorithm == GB_ALGORITHM_MULTISCALE
      && MAX (params->sigma_x, params->sigma_y) < GB_MULTISCALE_MIN_SIGMA);
}

/* The element's enum values are the core's (test_properties in
 * test_element.c checks it), so they go over as they are. */
void
element_set_params (GstElement * element, const GbParams * params)
{
  /* The element sharpens when a sigma is negative. */
  const gdouble sign = params->sharpen > 0.0 ? -1.0 : 1.0;

  g_object_set (element, "sigma-x", sign * params->sigma_x, "sigma-y",
      sign * params->sigma_y, "amount", params->sharpen > 0.0
      ? params->sharpen : 1.0, "radius", params->radius, "algorithm",
      (gint) params->algorithm, "border", (gint) params->border, "region-x",
      params->region.x, "region-y", params->region.y, "region-width",
      params->region.width, "region-height", params->region.height,
      "sigma-range", params->sigma_range, "iterations", params->iterations,
      "kappa", params->kappa, NULL);
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
  {"sigma", "4",
      PARAMS_STEP (4.0, 4.0, 0, AUTO, CLAMP, 0.0, 0, 0, 0, 0), TRUE},
  {"algorithm", "naive",
      PARAMS_STEP (4.0, 4.0, 0, NAIVE, CLAMP, 0.0, 0, 0, 0, 0), FALSE},
  {"border", "zero",
      PARAMS_STEP (4.0, 4.0, 0, NAIVE, ZERO, 0.0, 0, 0, 0, 0), TRUE},
  {"radius", "2",
      PARAMS_STEP (4.0, 4.0, 2, NAIVE, ZERO, 0.0, 0, 0, 0, 0), TRUE},
  {"algorithm", "shared",
      PARAMS_STEP (4.0, 4.0, 2, SHARED, ZERO, 0.0, 0, 0, 0, 0), FALSE},
  {"border", "mirror",
      PARAMS_STEP (4.0, 4.0, 2, SHARED, MIRROR, 0.0, 0, 0, 0, 0), TRUE},
  {"algorithm", "separable",
      PARAMS_STEP (4.0, 4.0, 2, SEPARABLE, MIRROR, 0.0, 0, 0, 0, 0), FALSE},
  /* one negative sigma sharpens with both (absolute) sigmas, by amount */
  {"sigma-x", "-2",
      PARAMS_STEP (2.0, 4.0, 2, SEPARABLE, MIRROR, 1.0, 0, 0, 0, 0), TRUE},
  {"amount", "0.5",
      PARAMS_STEP (2.0, 4.0, 2, SEPARABLE, MIRROR, 0.5, 0, 0, 0, 0), TRUE},
  {"sigma-y", "-3",
      PARAMS_STEP (2.0, 3.0, 2, SEPARABLE, MIRROR, 0.5, 0, 0, 0, 0), TRUE},
  /* the sign of sigma-y does not matter while sigma-x is negative */
  {"sigma-y", "3",
      PARAMS_STEP (2.0, 3.0, 2, SEPARABLE, MIRROR, 0.5, 0, 0, 0, 0), FALSE},
  /* a region takes effect once it has both a width and a height */
  {"region-x", "3",
      PARAMS_STEP (2.0, 3.0, 2, SEPARABLE, MIRROR, 0.5, 3, 0, 0, 0), FALSE},
  {"region-width", "9",
      PARAMS_STEP (2.0, 3.0, 2, SEPARABLE, MIRROR, 0.5, 3, 0, 9, 0), FALSE},
  {"region-height", "5",
      PARAMS_STEP (2.0, 3.0, 2, SEPARABLE, MIRROR, 0.5, 3, 0, 9, 5), TRUE},
  {"region-y", "2",
      PARAMS_STEP (2.0, 3.0, 2, SEPARABLE, MIRROR, 0.5, 3, 2, 9, 5), TRUE},
  /* a positive sigma blurs again, whatever the amount */
  {"sigma", "4",
      PARAMS_STEP (4.0, 4.0, 2, SEPARABLE, MIRROR, 0.0, 3, 2, 9, 5), TRUE},
  {"region-width", "0",
      PARAMS_STEP (4.0, 4.0, 2, SEPARABLE, MIRROR, 0.0, 0, 0, 0, 0), TRUE},
  {"region-x", "0",
      PARAMS_STEP (4.0, 4.0, 2, SEPARABLE, MIRROR, 0.0, 0, 0, 0, 0), FALSE},
  {"region-y", "0",
      PARAMS_STEP (4.0, 4.0, 2, SEPARABLE, MIRROR, 0.0, 0, 0, 0, 0), FALSE},
  {"region-height", "0",
      PARAMS_STEP (4.0, 4.0, 2, SEPARABLE, MIRROR, 0.0, 0, 0, 0, 0), FALSE},
  {"amount", "1",
      PARAMS_STEP (4.0, 4.0, 2, SEPARABLE, MIRROR, 0.0, 0, 0, 0, 0), FALSE},
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

/* --- allocation: pinned pools --- */

gboolean
allocator_is_pinned (GstAllocator * allocator)
{
  return allocator && g_strcmp0 (allocator->mem_type, PINNED_MEMORY_TYPE) == 0;
}

gboolean
buffer_is_pinned (GstBuffer * buffer)
{
  guint i, n = gst_buffer_n_memory (buffer);

  for (i = 0; i < n; i++)
    if (!gst_memory_is_type (gst_buffer_peek_memory (buffer, i),
            PINNED_MEMORY_TYPE))
      return FALSE;
  return n > 0;
}

void
fill_frame (GstBuffer * buffer, const GstVideoInfo * info, guint32 seed)
{
  GRand *rand = g_rand_new_with_seed (seed);
  GstVideoFrame frame;
  guint p;
  gint y, x;

  fail_unless (gst_video_frame_map (&frame, info, buffer, GST_MAP_WRITE));
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&frame); p++) {
    const gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p);
    const gint rows = GST_VIDEO_FRAME_COMP_HEIGHT (&frame,
        plane_component (info, p));
    guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (&frame, p);

    for (y = 0; y < rows; y++)
      for (x = 0; x < stride; x++)
        data[(gsize) y * stride + x] = g_rand_int_range (rand, 0, 256);
  }
  gst_video_frame_unmap (&frame);
  g_rand_free (rand);
}

GstQuery *
proposed_allocation (GstHarness * h)
{
  GstCaps *caps = gst_pad_get_current_caps (h->srcpad);
  GstQuery *query;

  fail_unless (caps != NULL, "the harness has no source caps");
  query = gst_query_new_allocation (caps, TRUE);
  gst_caps_unref (caps);
  fail_unless (gst_pad_peer_query (h->srcpad, query),
      "the element did not answer the allocation query");
  return query;
}

gboolean
pool_is_pinned (GstBufferPool * pool, guint * size, gboolean * video_meta)
{
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstAllocator *allocator = NULL;
  gboolean pinned;

  fail_unless (gst_buffer_pool_config_get_params (config, NULL, size, NULL,
          NULL));
  gst_buffer_pool_config_get_allocator (config, &allocator, NULL);
  pinned = allocator_is_pinned (allocator);
  if (video_meta)
    *video_meta = gst_buffer_pool_config_has_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_structure_free (config);
  return pinned;
}

gboolean
allocation_offers_pinned (GstQuery * query)
{
  gboolean pinned = FALSE;
  guint i;

  for (i = 0; i < gst_query_get_n_allocation_pools (query); i++) {
    GstBufferPool *pool = NULL;

    gst_query_parse_nth_allocation_pool (query, i, &pool, NULL, NULL, NULL);
    if (pool) {
      pinned |= pool_is_pinned (pool, NULL, NULL);
      gst_object_unref (pool);
    }
  }
  for (i = 0; i < gst_query_get_n_allocation_params (query); i++) {
    GstAllocator *allocator = NULL;

    gst_query_parse_nth_allocation_param (query, i, &allocator, NULL);
    if (allocator) {
      pinned |= allocator_is_pinned (allocator);
      gst_object_unref (allocator);
    }
  }
  return pinned;
}

/* The test allocator: heap memory, aligned as asked, of its own type. */
typedef struct
{
  GstMemory mem;
  guint8 *block;                /* g_malloc's block; NULL in a share */
  guint8 *data;                 /* the aligned start of maxsize bytes */
} TestMemory;

typedef GstAllocator TestAllocator;
typedef GstAllocatorClass TestAllocatorClass;
static GType test_allocator_get_type (void);
G_DEFINE_TYPE (TestAllocator, test_allocator, GST_TYPE_ALLOCATOR);

static GstMemory *
test_memory_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  const gsize align = params->align | gst_memory_alignment;
  const gsize maxsize = size + params->prefix + params->padding;
  TestMemory *mem = g_new0 (TestMemory, 1);

  gst_memory_init (GST_MEMORY_CAST (mem), params->flags, allocator, NULL,
      maxsize, align, params->prefix, size);
  mem->block = g_malloc0 (maxsize + align);
  mem->data = (guint8 *) (((guintptr) mem->block + align) & ~(guintptr) align);
  return GST_MEMORY_CAST (mem);
}

static void
test_memory_free (GstAllocator * allocator G_GNUC_UNUSED, GstMemory * memory)
{
  TestMemory *mem = (TestMemory *) memory;

  g_free (mem->block);
  g_free (mem);
}

static gpointer
test_memory_map (GstMemory * memory, gsize maxsize G_GNUC_UNUSED,
    GstMapFlags flags G_GNUC_UNUSED)
{
  return ((TestMemory *) memory)->data;
}

static void
test_memory_unmap (GstMemory * memory G_GNUC_UNUSED)
{
}

static GstMemory *
test_memory_share (GstMemory * memory, gssize offset, gssize size)
{
  GstMemory *parent = memory->parent ? memory->parent : memory;
  TestMemory *sub = g_new0 (TestMemory, 1);

  if (size == -1)
    size = memory->size - offset;
  gst_memory_init (GST_MEMORY_CAST (sub),
      GST_MINI_OBJECT_FLAGS (parent) | GST_MINI_OBJECT_FLAG_LOCK_READONLY,
      memory->allocator, parent, memory->maxsize, memory->align,
      memory->offset + offset, size);
  sub->data = ((TestMemory *) memory)->data;
  return GST_MEMORY_CAST (sub);
}

static GstMemory *
test_memory_copy (GstMemory * memory, gssize offset, gssize size)
{
  GstAllocationParams params;
  GstMemory *copy;
  GstMapInfo in, out;

  gst_allocation_params_init (&params);
  params.align = memory->align;
  if (size == -1)
    size = memory->size > (gsize) offset ? memory->size - offset : 0;
  copy = gst_allocator_alloc (memory->allocator, size, &params);
  fail_unless (gst_memory_map (memory, &in, GST_MAP_READ));
  fail_unless (gst_memory_map (copy, &out, GST_MAP_WRITE));
  memcpy (out.data, in.data + offset, size);
  gst_memory_unmap (copy, &out);
  gst_memory_unmap (memory, &in);
  return copy;
}

static void
test_allocator_class_init (TestAllocatorClass * klass)
{
  klass->alloc = test_memory_alloc;
  klass->free = test_memory_free;
}

static void
test_allocator_init (TestAllocator * allocator)
{
  allocator->mem_type = TEST_MEMORY_TYPE;
  allocator->mem_map = test_memory_map;
  allocator->mem_unmap = test_memory_unmap;
  allocator->mem_share = test_memory_share;
  allocator->mem_copy = test_memory_copy;
}

GstAllocator *
test_allocator_new (void)
{
  GstAllocator *allocator = g_object_new (test_allocator_get_type (), NULL);

  return gst_object_ref_sink (allocator);
}

/* After the harness has answered (the answer comes back up: PULL), add the
 * pool where there is none. */
static GstPadProbeReturn
offer_pool_probe (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info, gpointer user_data)
{
  GstQuery *query = GST_PAD_PROBE_INFO_QUERY (info);
  GstVideoInfo video;
  GstCaps *caps = NULL;

  if (!(GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_PULL)
      || GST_QUERY_TYPE (query) != GST_QUERY_ALLOCATION)
    return GST_PAD_PROBE_OK;
  gst_query_parse_allocation (query, &caps, NULL);
  if (caps && gst_video_info_from_caps (&video, caps)
      && gst_query_get_n_allocation_pools (query) == 0)
    gst_query_add_allocation_pool (query, GST_BUFFER_POOL (user_data),
        GST_VIDEO_INFO_SIZE (&video), 0, 0);
  return GST_PAD_PROBE_OK;
}

void
harness_offer_pool (GstHarness * h, GstBufferPool * pool)
{
  fail_unless (gst_pad_add_probe (h->sinkpad,
          GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM, offer_pool_probe,
          gst_object_ref (pool), gst_object_unref) != 0);
}

struct _PoolTracker
{
  GMutex lock;
  GHashTable *live;             /* GstBufferPool * (weak) */
  guint seen;
};

static void
pool_gone (gpointer data, GObject * where_the_object_was)
{
  PoolTracker *tracker = data;

  g_mutex_lock (&tracker->lock);
  g_hash_table_remove (tracker->live, where_the_object_was);
  g_mutex_unlock (&tracker->lock);
}

PoolTracker *
pool_tracker_new (void)
{
  PoolTracker *tracker = g_new0 (PoolTracker, 1);

  g_mutex_init (&tracker->lock);
  tracker->live = g_hash_table_new (NULL, NULL);
  return tracker;
}

void
pool_tracker_add (PoolTracker * tracker, GstBufferPool * pool)
{
  g_mutex_lock (&tracker->lock);
  if (!g_hash_table_contains (tracker->live, pool)) {
    g_hash_table_add (tracker->live, pool);
    g_object_weak_ref (G_OBJECT (pool), pool_gone, tracker);
    tracker->seen++;
  }
  g_mutex_unlock (&tracker->lock);
}

guint
pool_tracker_seen (PoolTracker * tracker)
{
  guint seen;

  g_mutex_lock (&tracker->lock);
  seen = tracker->seen;
  g_mutex_unlock (&tracker->lock);
  return seen;
}

guint
pool_tracker_live (PoolTracker * tracker)
{
  guint live;

  g_mutex_lock (&tracker->lock);
  live = g_hash_table_size (tracker->live);
  g_mutex_unlock (&tracker->lock);
  return live;
}

void
pool_tracker_free (PoolTracker * tracker)
{
  GHashTableIter iter;
  gpointer pool;

  /* pools still alive (a failed check) must not call back into freed
   * memory */
  g_mutex_lock (&tracker->lock);
  g_hash_table_iter_init (&iter, tracker->live);
  while (g_hash_table_iter_next (&iter, &pool, NULL))
    g_object_weak_unref (G_OBJECT (pool), pool_gone, tracker);
  g_mutex_unlock (&tracker->lock);
  g_hash_table_unref (tracker->live);
  g_mutex_clear (&tracker->lock);
  g_free (tracker);
}

/* What the pads of the element saw during one cycle (streaming thread;
 * checked by the test's thread after the cycle). */
typedef struct
{
  GMutex lock;
  PoolTracker *pools;
  GstVideoInfo info;
  GbParams params;
  GstBuffer *input;             /* the frame being blurred */
  guint n_in, n_out, n_in_pinned, n_out_pinned, n_in_pooled;
  guint n_unmatched;            /* outputs without an input */
  gint worst;                   /* largest difference from the reference */
} CycleProbes;

static GstPadProbeReturn
cycle_input_probe (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info, gpointer user_data)
{
  CycleProbes *probes = user_data;
  GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER (info);

  g_mutex_lock (&probes->lock);
  probes->n_in++;
  probes->n_in_pinned += buffer_is_pinned (buffer);
  if (buffer->pool) {
    probes->n_in_pooled++;
    pool_tracker_add (probes->pools, buffer->pool);
  }
  gst_buffer_replace (&probes->input, buffer);
  g_mutex_unlock (&probes->lock);
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
cycle_output_probe (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info, gpointer user_data)
{
  CycleProbes *probes = user_data;
  GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER (info);

  g_mutex_lock (&probes->lock);
  probes->n_out++;
  probes->n_out_pinned += buffer_is_pinned (buffer);
  if (buffer->pool)
    pool_tracker_add (probes->pools, buffer->pool);
  if (probes->input) {
    GstBuffer *expected = reference_blur (probes->input, &probes->info,
        &probes->params);

    probes->worst = MAX (probes->worst, max_difference (buffer, expected,
            &probes->info));
    gst_buffer_unref (expected);
    gst_buffer_replace (&probes->input, NULL);
  } else {
    probes->n_unmatched++;
  }
  g_mutex_unlock (&probes->lock);
  return GST_PAD_PROBE_OK;
}

void
add_blur_probes (GstElement * pipeline, GstPadProbeCallback input,
    GstPadProbeCallback output, gpointer user_data)
{
  GstElement *blur = gst_bin_get_by_name (GST_BIN (pipeline), "blur");
  GstPad *pad;

  fail_unless (blur != NULL, "no element named blur");
  pad = gst_element_get_static_pad (blur, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, input, user_data, NULL);
  gst_object_unref (pad);
  pad = gst_element_get_static_pad (blur, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, output, user_data, NULL);
  gst_object_unref (pad);
  gst_object_unref (blur);
}

void
play_to_eos (GstElement * pipeline, GstBus * bus, guint cycle)
{
  GstMessage *message;

  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE, "cycle %u: cannot play", cycle);
  message = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (message != NULL, "cycle %u: no EOS or error within 60 s",
      cycle);
  if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR) {
    GError *failure = NULL;
    gchar *debug = NULL;

    gst_message_parse_error (message, &failure, &debug);
    fail ("cycle %u: error from %s: %s (%s)", cycle,
        GST_OBJECT_NAME (GST_MESSAGE_SRC (message)), failure->message,
        debug ? debug : "");
  }
  gst_message_unref (message);
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
}

void
check_state_cycles (const gchar * backend, const gchar * format,
    gint width, gint height, guint n_cycles, GbAlgorithm reference_algorithm,
    gint tolerance, gboolean expect_pinned)
{
  const guint n_frames = 3;
  gchar *description = g_strdup_printf ("videotestsrc num-buffers=%u "
      "pattern=snow ! video/x-raw,format=%s,width=%d,height=%d,"
      "framerate=30/1 ! " ELEMENT " name=blur backend=%s sigma=2 ! "
      "fakesink enable-last-sample=false", n_frames, format, width, height,
      backend);
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (description, &error);
  CycleProbes probes;
  GstBus *bus;
  guint i;

  fail_unless (pipeline != NULL, "%s", error ? error->message : "");
  memset (&probes, 0, sizeof probes);
  g_mutex_init (&probes.lock);
  probes.pools = pool_tracker_new ();
  probes.info = video_info (format, width, height);
  probes.params = gb_params_make (2.0, 0, reference_algorithm,
      GB_BORDER_CLAMP);

  add_blur_probes (pipeline, cycle_input_probe, cycle_output_probe,
      &probes);
  bus = gst_element_get_bus (pipeline);

  for (i = 0; i < n_cycles; i++) {
    guint seen_before = pool_tracker_seen (probes.pools);

    play_to_eos (pipeline, bus, i);

    /* the streaming thread has stopped: the counts are final */
    g_mutex_lock (&probes.lock);
    gst_buffer_replace (&probes.input, NULL);
    fail_unless_equals_int (probes.n_in, n_frames);
    fail_unless_equals_int (probes.n_out, n_frames);
    fail_unless_equals_int (probes.n_unmatched, 0);
    fail_unless (probes.worst <= tolerance, "cycle %u: %s %dx%d on %s: "
        "%d levels from the CPU core", i, format, width, height, backend,
        probes.worst);
    fail_unless_equals_int (probes.n_in_pinned, expect_pinned ? n_frames : 0);
    fail_unless_equals_int (probes.n_out_pinned, expect_pinned ? n_frames : 0);
    /* videotestsrc allocates from a pool: ours (pinned) or its own */
    fail_unless_equals_int (probes.n_in_pooled, n_frames);
    probes.n_in = probes.n_out = probes.n_unmatched = probes.worst = 0;
    probes.n_in_pinned = probes.n_out_pinned = probes.n_in_pooled = 0;
    g_mutex_unlock (&probes.lock);

    fail_unless (pool_tracker_seen (probes.pools) > seen_before,
        "cycle %u: no buffer pool seen", i);
    fail_unless_equals_int (pool_tracker_live (probes.pools), 0);
  }
  GST_INFO ("%u cycles: %u pools made and released", n_cycles,
      pool_tracker_seen (probes.pools));

  gst_object_unref (bus);
  gst_object_unref (pipeline);
  pool_tracker_free (probes.pools);
  g_mutex_clear (&probes.lock);
  g_free (description);
}

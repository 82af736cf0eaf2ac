/* cudagaussblur element tests on the CUDA backend (GstCheck, suite gpu).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Runs the element with backend=cuda and compares every frame with the CPU
 * core's blur of the same input (same algorithm, border and parameters):
 * at most one level apart per sample. Exits 77 (skipped) without a device.
 */
#include <string.h>

#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "gaussblur.h"

#define ELEMENT "cudagaussblur"
#define TOLERANCE 1

/* A 1x1 CUDA handle: proves a device is usable and tells what
 * GB_ALGORITHM_AUTO resolves to on the GPU. */
static GbBlur *cuda_probe;

/* The parity test's tally, for the summary line. */
static guint n_compared;
static gint worst_difference;

/* --- frames and the reference blur --- */

static GstVideoInfo
video_info (const gchar * format, gint width, gint height)
{
  GstVideoInfo info;

  fail_unless (gst_video_info_set_format (&info,
          gst_video_format_from_string (format), width, height));
  return info;
}

static GstCaps *
video_caps (const gchar * format, gint width, gint height)
{
  GstVideoInfo info = video_info (format, width, height);

  GST_VIDEO_INFO_FPS_N (&info) = 30;
  GST_VIDEO_INFO_FPS_D (&info) = 1;
  return gst_video_info_to_caps (&info);
}

static GstBuffer *
random_frame (const GstVideoInfo * info, guint32 seed)
{
  GstBuffer *buffer = gst_buffer_new_allocate (NULL, info->size, NULL);
  GRand *rand = g_rand_new_with_seed (seed);
  GstMapInfo map;
  gsize i;

  fail_unless (gst_buffer_map (buffer, &map, GST_MAP_WRITE));
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

/* The CPU core's blur of input, in a buffer laid out as info says. */
static GstBuffer *
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

/* Largest difference between two frames' samples, padding ignored. */
static gint
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

/* The element's enum values are the core's (test_element checks it). */
static void
element_set_params (GstElement * element, const GbParams * params)
{
  g_object_set (element, "sigma", params->sigma, "radius", params->radius,
      "algorithm", (gint) params->algorithm, "border", (gint) params->border,
      NULL);
}

static GstHarness *
cuda_harness_new (const gchar * format, gint width, gint height)
{
  GstHarness *h = gst_harness_new (ELEMENT);

  gst_util_set_object_arg (G_OBJECT (h->element), "backend", "cuda");
  gst_harness_set_src_caps (h, video_caps (format, width, height));
  return h;
}

/* The algorithm the CPU reference must run to match the GPU's for params. */
static GbAlgorithm
gpu_algorithm (const GbParams * params)
{
  GbError error = { 0 };

  fail_unless (gb_blur_set_params (cuda_probe, params, &error) == GB_OK, "%s",
      error.message);
  return gb_blur_get_effective_algorithm (cuda_probe);
}

/* Pushes input (keeping a ref) and pulls the GPU's output. */
static GstBuffer *
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

/* Pushes input and checks the output against the CPU core within TOLERANCE.
 * Returns the output. */
static GstBuffer *
push_and_check (GstHarness * h, GstBuffer * input, const GstVideoInfo * info,
    const GbParams * params)
{
  GbParams reference = *params;
  GstBuffer *output = push_pull (h, input);
  GstBuffer *expected;
  gint difference;

  reference.algorithm = gpu_algorithm (params);
  expected = reference_blur (input, info, &reference);
  difference = max_difference (output, expected, info);
  fail_unless (difference <= TOLERANCE, "GPU and CPU differ by %d",
      difference);
  gst_buffer_unref (expected);
  return output;
}

static GList *
template_formats (void)
{
  GstElementFactory *factory = gst_element_factory_find (ELEMENT);
  GList *formats = NULL;
  const GList *item;

  fail_unless (factory != NULL);
  for (item = gst_element_factory_get_static_pad_templates (factory); item;
      item = item->next) {
    GstStaticPadTemplate *template = item->data;
    GstCaps *caps;
    const GValue *list;
    guint i;

    if (template->direction != GST_PAD_SINK)
      continue;
    caps = gst_static_pad_template_get_caps (template);
    list = gst_structure_get_value (gst_caps_get_structure (caps, 0),
        "format");
    for (i = 0; i < gst_value_list_get_size (list); i++)
      formats = g_list_append (formats,
          g_strdup (g_value_get_string (gst_value_list_get_value (list, i))));
    gst_caps_unref (caps);
  }
  gst_object_unref (factory);
  return formats;
}

/* Every format x size x border x sigma x algorithm, one harness per format
 * and size: the parameters change while it plays. */
GST_START_TEST (test_parity)
{
  static const gint sizes[][2] = { {1, 1}, {7, 3}, {640, 480}, {1921, 1081} };
  static const gdouble sigmas[] = { 1.0, 3.0 };
  static const GbAlgorithm algorithms[] = { GB_ALGORITHM_NAIVE,
    GB_ALGORITHM_SHARED, GB_ALGORITHM_SEPARABLE, GB_ALGORITHM_AUTO
  };
  GList *formats = template_formats (), *item;
  guint s, b, g, a, seed = 0;

  fail_unless_equals_int (g_list_length (formats), 11);
  for (item = formats; item; item = item->next) {
    const gchar *format = item->data;

    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      GstVideoInfo info = video_info (format, sizes[s][0], sizes[s][1]);
      GstHarness *h = cuda_harness_new (format, sizes[s][0], sizes[s][1]);
      GstBuffer *input = random_frame (&info, seed++);

      for (b = GB_BORDER_CLAMP; b <= GB_BORDER_ZERO; b++) {
        for (g = 0; g < G_N_ELEMENTS (sigmas); g++) {
          /* one CPU reference per algorithm the GPU may run */
          GstBuffer *references[GB_ALGORITHM_SEPARABLE + 1] = { NULL };

          for (a = 0; a < G_N_ELEMENTS (algorithms); a++) {
            GbParams params = { sigmas[g], 0, algorithms[a], (GbBorder) b };
            GbParams reference_params = params;
            GstBuffer *output;
            gint difference;

            element_set_params (h->element, &params);
            output = push_pull (h, input);
            reference_params.algorithm = gpu_algorithm (&params);
            if (!references[reference_params.algorithm])
              references[reference_params.algorithm] =
                  reference_blur (input, &info, &reference_params);
            difference = max_difference (output,
                references[reference_params.algorithm], &info);
            fail_unless (difference <= TOLERANCE,
                "%s %dx%d %s border, sigma %g, %s: GPU and CPU differ by %d",
                format, sizes[s][0], sizes[s][1],
                gb_border_name ((GbBorder) b), sigmas[g],
                gb_algorithm_name (algorithms[a]), difference);
            worst_difference = MAX (worst_difference, difference);
            n_compared++;
            gst_buffer_unref (output);
          }
          for (a = 0; a < G_N_ELEMENTS (references); a++)
            if (references[a])
              gst_buffer_unref (references[a]);
        }
      }
      gst_buffer_unref (input);
      gst_harness_teardown (h);
    }
  }
  g_list_free_full (formats, g_free);

  g_print ("element-gpu: %u frames (11 formats x 4 sizes x 3 borders x "
      "2 sigmas x 4 algorithms) match the CPU core, largest difference %d "
      "(tolerance %d)\n", n_compared, worst_difference, TOLERANCE);
}

GST_END_TEST;

GST_START_TEST (test_property_changes_while_playing)
{
  static const struct
  {
    const gchar *property;
    const gchar *value;
    GbParams params;            /* all parameters after the change */
    gboolean output_changes;
  } steps[] = {
    {"sigma", "4", {4.0, 0, GB_ALGORITHM_AUTO, GB_BORDER_CLAMP}, TRUE},
    {"algorithm", "naive", {4.0, 0, GB_ALGORITHM_NAIVE, GB_BORDER_CLAMP},
        FALSE},
    {"border", "zero", {4.0, 0, GB_ALGORITHM_NAIVE, GB_BORDER_ZERO}, TRUE},
    {"radius", "2", {4.0, 2, GB_ALGORITHM_NAIVE, GB_BORDER_ZERO}, TRUE},
    {"algorithm", "shared", {4.0, 2, GB_ALGORITHM_SHARED, GB_BORDER_ZERO},
        FALSE},
    {"border", "mirror", {4.0, 2, GB_ALGORITHM_SHARED, GB_BORDER_MIRROR},
        TRUE},
    {"algorithm", "separable", {4.0, 2, GB_ALGORITHM_SEPARABLE,
            GB_BORDER_MIRROR}, FALSE},
    {"radius", "0", {4.0, 0, GB_ALGORITHM_SEPARABLE, GB_BORDER_MIRROR}, TRUE},
    {"sigma", "12", {12.0, 0, GB_ALGORITHM_SEPARABLE, GB_BORDER_MIRROR}, TRUE},
  };
  GstVideoInfo info = video_info ("RGBA", 640, 480);
  GbParams params = { 2.0, 0, GB_ALGORITHM_AUTO, GB_BORDER_CLAMP };
  GstHarness *h = cuda_harness_new ("RGBA", 640, 480);
  GstBuffer *input = random_frame (&info, 1000);
  GstBuffer *last, *output;
  guint i;

  last = push_and_check (h, input, &info, &params);
  for (i = 0; i < G_N_ELEMENTS (steps); i++) {
    gst_util_set_object_arg (G_OBJECT (h->element), steps[i].property,
        steps[i].value);
    output = push_and_check (h, input, &info, &steps[i].params);
    if (steps[i].output_changes)
      fail_unless (max_difference (output, last, &info) > 0,
          "setting %s to %s changed nothing", steps[i].property,
          steps[i].value);
    gst_buffer_unref (last);
    last = output;
  }

  /* sigma 0 lets the buffer through untouched, on the GPU too */
  g_object_set (h->element, "sigma", 0.0, NULL);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (input)),
      GST_FLOW_OK);
  output = gst_harness_pull (h);
  fail_unless (output == input);
  gst_buffer_unref (output);

  gst_buffer_unref (last);
  gst_buffer_unref (input);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_renegotiation)
{
  static const struct
  {
    const gchar *format;
    gint width, height;
  } streams[] = {
    {"RGBA", 640, 480}, {"GRAY8", 1921, 1081}, {"RGB", 7, 3},
    {"xBGR", 1, 1}, {"BGR", 641, 479}, {"RGBA", 640, 480},
  };
  GbParams params = { 3.0, 0, GB_ALGORITHM_AUTO, GB_BORDER_MIRROR };
  GstHarness *h = cuda_harness_new (streams[0].format, streams[0].width,
      streams[0].height);
  guint i;

  element_set_params (h->element, &params);
  for (i = 0; i < G_N_ELEMENTS (streams); i++) {
    GstVideoInfo info = video_info (streams[i].format, streams[i].width,
        streams[i].height);
    GstBuffer *input = random_frame (&info, 2000 + i);

    if (i > 0)
      gst_harness_set_src_caps (h, video_caps (streams[i].format,
              streams[i].width, streams[i].height));
    gst_buffer_unref (push_and_check (h, input, &info, &params));
    gst_buffer_unref (input);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* backend cpu -> cuda -> auto while playing: the handle is re-created at
 * the next frame and the output stays within the tolerance. */
GST_START_TEST (test_backend_change_while_playing)
{
  static const gchar *const backends[] = { "cpu", "cuda", "cpu", "auto" };
  GstVideoInfo info = video_info ("BGRA", 640, 480);
  GbParams params = { 2.0, 0, GB_ALGORITHM_AUTO, GB_BORDER_CLAMP };
  GstHarness *h = cuda_harness_new ("BGRA", 640, 480);
  GstBuffer *input = random_frame (&info, 3000);
  GstBus *bus = gst_bus_new ();
  GstMessage *message;
  guint i;

  gst_element_set_bus (h->element, bus);
  for (i = 0; i < G_N_ELEMENTS (backends); i++) {
    gst_util_set_object_arg (G_OBJECT (h->element), "backend", backends[i]);
    gst_buffer_unref (push_and_check (h, input, &info, &params));
  }
  /* a device is usable: auto neither warns nor fails */
  message = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING |
      GST_MESSAGE_ERROR);
  fail_unless (message == NULL);

  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_buffer_unref (input);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
cudagaussblur_gpu_suite (void)
{
  Suite *s = suite_create ("cudagaussblur-gpu");
  TCase *tc = tcase_create ("cuda");

  tcase_set_timeout (tc, 1800);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_parity);
  tcase_add_test (tc, test_property_changes_while_playing);
  tcase_add_test (tc, test_renegotiation);
  tcase_add_test (tc, test_backend_change_while_playing);
  return s;
}

int
main (int argc, char **argv)
{
  GbGeometry geometry = { 1, 1, {{1, 1, 1}} };
  GbError error = { 0 };
  int result;

  gst_check_init (&argc, &argv);

  if (gb_blur_create (GB_BACKEND_CUDA, -1, &geometry, &cuda_probe,
          &error) != GB_OK) {
    g_print ("element-gpu: skipped, %s\n", error.message);
    return error.status == GB_ERROR_NO_DEVICE ? 77 : 1;
  }
  /* The probe has initialised CUDA in this process, which a forked child
   * cannot inherit: run the tests in this process. */
  g_setenv ("CK_FORK", "no", TRUE);
  result = gst_check_run_suite (cudagaussblur_gpu_suite (), "cudagaussblur-gpu",
      __FILE__);
  gb_blur_destroy (cuda_probe);
  return result;
}

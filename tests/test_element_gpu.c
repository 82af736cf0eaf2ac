/* cudagaussblur element tests on the CUDA backend (GstCheck, suite gpu).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Runs the element with backend=cuda and compares every frame with the CPU
 * core's blur of the same input (same algorithm, border and parameters):
 * at most one level apart per sample. Exits 77 (skipped) without a device.
 */
#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "element_check.h"

#define TOLERANCE 1

/* A 1x1 CUDA handle: proves a device is usable and tells what
 * GB_ALGORITHM_AUTO resolves to on the GPU. */
static GbBlur *cuda_probe;

/* The parity test's tally, for the summary line. */
static guint n_compared;
static gint worst_difference;

/* The algorithm the CPU reference must run to match the GPU's for params. */
static GbAlgorithm
gpu_algorithm (const GbParams * params)
{
  GbError error = { 0 };

  fail_unless (gb_blur_set_params (cuda_probe, params, &error) == GB_OK, "%s",
      error.message);
  return gb_blur_get_effective_algorithm (cuda_probe);
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
    GB_ALGORITHM_SHARED, GB_ALGORITHM_SEPARABLE, GB_ALGORITHM_FUSED,
    GB_ALGORITHM_RECURSIVE, GB_ALGORITHM_MULTISCALE, GB_ALGORITHM_AUTO
  };
  /* The largest size for one format of each kind only: the CPU references
   * of the 2D algorithms cost seconds a frame there. */
  static const gchar *const large_formats[] = { "GRAY8", "RGBA", "NV12",
    "I420", "Y42B", "GRAY16_LE", "RGBA64_LE", "P016_LE", NULL
  };
  GList *formats = template_formats (), *item;
  guint s, b, g, a, seed = 0, n_formats = 0;

  fail_unless_equals_int (g_list_length (formats), 29);
  for (item = formats; item; item = item->next) {
    const gchar *format = item->data;

    n_formats++;
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      if (s == G_N_ELEMENTS (sizes) - 1
          && !g_strv_contains (large_formats, format))
        continue;
      GstVideoInfo info = video_info (format, sizes[s][0], sizes[s][1]);
      GstHarness *h = element_harness_new ("cuda", format, sizes[s][0],
          sizes[s][1]);
      GstBuffer *input = random_frame (&info, seed++);

      for (b = GB_BORDER_CLAMP; b <= GB_BORDER_ZERO; b++) {
        for (g = 0; g < G_N_ELEMENTS (sigmas); g++) {
          /* one CPU reference per algorithm the GPU may run */
          GstBuffer *references[GB_ALGORITHM_LAST + 1] = { NULL };

          for (a = 0; a < G_N_ELEMENTS (algorithms); a++) {
            GbParams params = gb_params_make (sigmas[g], 0, algorithms[a], (GbBorder) b);
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

  g_print ("element-gpu: %u frames (%u formats x 3 or 4 sizes x 3 borders x "
      "2 sigmas x %u algorithms) match the CPU core, largest difference %d "
      "(tolerance %d)\n", n_compared, n_formats,
      (guint) G_N_ELEMENTS (algorithms), worst_difference, TOLERANCE);
}

GST_END_TEST;

GST_START_TEST (test_property_changes_while_playing)
{
  /* after the common steps: the radius from sigma again, then a large one */
  static const PropertyStep gpu_steps[] = {
    {"radius", "0", {4.0, 4.0, 0, GB_ALGORITHM_SEPARABLE, GB_BORDER_MIRROR, 0.0, {0, 0, 0, 0}}, TRUE},
    {"sigma", "12", {12.0, 12.0, 0, GB_ALGORITHM_SEPARABLE, GB_BORDER_MIRROR, 0.0, {0, 0, 0, 0}}, TRUE},
  };
  GstVideoInfo info = video_info ("RGBA", 640, 480);
  GbParams params = gb_params_make (2.0, 0, GB_ALGORITHM_AUTO, GB_BORDER_CLAMP);
  GstHarness *h = element_harness_new ("cuda", "RGBA", 640, 480);
  GstBuffer *input = random_frame (&info, 1000);
  GstBuffer *last, *output;

  last = push_and_check (h, input, &info, &params);
  last = check_property_steps (h, input, &info, last, common_property_steps,
      n_common_property_steps, push_and_check);
  last = check_property_steps (h, input, &info, last, gpu_steps,
      G_N_ELEMENTS (gpu_steps), push_and_check);

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
  GbParams params = gb_params_make (3.0, 0, GB_ALGORITHM_AUTO, GB_BORDER_MIRROR);
  GstHarness *h = element_harness_new ("cuda", streams[0].format,
      streams[0].width, streams[0].height);
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
  GbParams params = gb_params_make (2.0, 0, GB_ALGORITHM_AUTO, GB_BORDER_CLAMP);
  GstHarness *h = element_harness_new ("cuda", "BGRA", 640, 480);
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
  GbGeometry geometry = { 1, 1, {{1, 1, 1, 1, 1}} };
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

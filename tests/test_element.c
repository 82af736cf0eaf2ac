/* cudagaussblur element tests on the CPU backend (GstCheck, runs in CI).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Pixels are checked against the core itself: the expected frame is the CPU
 * core's blur of the same input with the same parameters, so the harness
 * output must match it exactly. Frames are small to keep valgrind quick.
 */
#include <string.h>

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/controller/controller.h>
#include <gst/video/video.h>

#include "element_check.h"

/* The caps both pad templates must have. */
#define TEMPLATE_CAPS "video/x-raw, format = (string) { GRAY8, RGB, BGR, " \
  "RGBA, BGRA, ARGB, ABGR, RGBx, BGRx, xRGB, xBGR }, " \
  "width = (int) [ 1, 8192 ], height = (int) [ 1, 8192 ], " \
  "framerate = (fraction) [ 0/1, 2147483647/1 ]"

/* --- helpers --- */

static GbParams
params_make (gdouble sigma, gint radius, GbAlgorithm algorithm,
    GbBorder border)
{
  GbParams params = { sigma, radius, algorithm, border };
  return params;
}

/* Pushes input (keeping a ref), pulls the output and checks it is the core's
 * blur with params, and a blur indeed. Returns the output. */
static GstBuffer *
push_and_check (GstHarness * h, GstBuffer * input, const GstVideoInfo * info,
    const GbParams * params)
{
  GstBuffer *output = push_pull (h, input);
  GstBuffer *expected = reference_blur (input, info, params);

  fail_unless_equals_int (max_difference (output, expected, info), 0);
  fail_unless (max_difference (output, input, info) > 0,
      "output equals the input: not blurred");
  gst_buffer_unref (expected);
  return output;
}

static gboolean
cuda_device_usable (void)
{
  GbGeometry geometry = { 1, 1, {{1, 1, 1}} };
  GbBlur *blur = NULL;
  GbError error = { 0 };
  GbStatus status;

  status = gb_blur_create (GB_BACKEND_CUDA, -1, &geometry, &blur, &error);
  gb_blur_destroy (blur);
  return status == GB_OK;
}

static guint
count_messages (GstBus * bus, GstMessageType type)
{
  GstMessage *message;
  guint count = 0;

  while ((message = gst_bus_pop_filtered (bus, type))) {
    count++;
    gst_message_unref (message);
  }
  return count;
}

/* --- properties --- */

static void
check_enum_property (GObjectClass * klass, const gchar * name,
    const gchar * default_nick, const gchar * const *nicks, const gint * values)
{
  GParamSpec *pspec = g_object_class_find_property (klass, name);
  GEnumClass *enum_class;
  GEnumValue *default_value;
  guint i;

  fail_unless (G_IS_PARAM_SPEC_ENUM (pspec), "%s", name);
  enum_class = G_PARAM_SPEC_ENUM (pspec)->enum_class;
  fail_unless_equals_int (enum_class->n_values, g_strv_length ((gchar **)
          nicks));
  for (i = 0; nicks[i]; i++) {
    GEnumValue *value = g_enum_get_value_by_nick (enum_class, nicks[i]);
    fail_unless (value != NULL, "%s has no %s", name, nicks[i]);
    if (values)
      fail_unless_equals_int (value->value, values[i]);
  }
  default_value = g_enum_get_value (enum_class,
      G_PARAM_SPEC_ENUM (pspec)->default_value);
  fail_unless_equals_string (default_value->value_nick, default_nick);
}

GST_START_TEST (test_properties)
{
  static const gchar *const algorithms[] =
      { "auto", "naive", "shared", "separable", "fused", "recursive",
    "multiscale", NULL
  };
  static const gint algorithm_values[] = { GB_ALGORITHM_AUTO,
    GB_ALGORITHM_NAIVE, GB_ALGORITHM_SHARED, GB_ALGORITHM_SEPARABLE,
    GB_ALGORITHM_FUSED, GB_ALGORITHM_RECURSIVE, GB_ALGORITHM_MULTISCALE
  };
  static const gchar *const borders[] = { "clamp", "mirror", "zero", NULL };
  static const gint border_values[] = { GB_BORDER_CLAMP, GB_BORDER_MIRROR,
    GB_BORDER_ZERO
  };
  static const gchar *const backends[] = { "auto", "cuda", "cpu", NULL };
  static const gchar *const names[] = { "sigma", "radius", "algorithm",
    "border", "backend", "cuda-device-id", NULL
  };
  const GParamFlags flags = G_PARAM_READWRITE | GST_PARAM_CONTROLLABLE |
      GST_PARAM_MUTABLE_PLAYING;
  GstElement *element = gst_element_factory_make (ELEMENT, NULL);
  GObjectClass *klass = G_OBJECT_GET_CLASS (element);
  GParamSpec *pspec;
  GParamSpecDouble *sigma;
  GParamSpecInt *spec_int;
  gdouble sigma_value;
  gint radius, device_id, algorithm, border, backend;
  guint i;

  fail_unless (element != NULL);

  for (i = 0; names[i]; i++) {
    pspec = g_object_class_find_property (klass, names[i]);
    fail_unless (pspec != NULL, "no property %s", names[i]);
    fail_unless ((pspec->flags & flags) == flags, "%s flags", names[i]);
  }

  pspec = g_object_class_find_property (klass, "sigma");
  fail_unless (G_IS_PARAM_SPEC_DOUBLE (pspec));
  sigma = G_PARAM_SPEC_DOUBLE (pspec);
  fail_unless_equals_float (sigma->minimum, 0.0);
  fail_unless_equals_float (sigma->maximum, GB_MAX_SIGMA);
  fail_unless_equals_float (sigma->default_value, 2.0);

  pspec = g_object_class_find_property (klass, "radius");
  fail_unless (G_IS_PARAM_SPEC_INT (pspec));
  spec_int = G_PARAM_SPEC_INT (pspec);
  fail_unless_equals_int (spec_int->minimum, 0);
  fail_unless_equals_int (spec_int->maximum, GB_MAX_RADIUS);
  fail_unless_equals_int (spec_int->default_value, 0);

  pspec = g_object_class_find_property (klass, "cuda-device-id");
  fail_unless (G_IS_PARAM_SPEC_INT (pspec));
  spec_int = G_PARAM_SPEC_INT (pspec);
  fail_unless_equals_int (spec_int->minimum, -1);
  fail_unless (spec_int->maximum >= 999);
  fail_unless_equals_int (spec_int->default_value, -1);

  check_enum_property (klass, "algorithm", "auto", algorithms,
      algorithm_values);
  check_enum_property (klass, "border", "clamp", borders, border_values);
  check_enum_property (klass, "backend", "auto", backends, NULL);

  /* a new element holds the defaults */
  g_object_get (element, "sigma", &sigma_value, "radius", &radius,
      "algorithm", &algorithm, "border", &border, "backend", &backend,
      "cuda-device-id", &device_id, NULL);
  fail_unless_equals_float (sigma_value, 2.0);
  fail_unless_equals_int (radius, 0);
  fail_unless_equals_int (algorithm, GB_ALGORITHM_AUTO);
  fail_unless_equals_int (border, GB_BORDER_CLAMP);
  fail_unless_equals_int (device_id, -1);

  /* and keeps what it is given, up to the limits */
  gst_util_set_object_arg (G_OBJECT (element), "algorithm", "shared");
  gst_util_set_object_arg (G_OBJECT (element), "border", "mirror");
  gst_util_set_object_arg (G_OBJECT (element), "backend", "cpu");
  g_object_set (element, "sigma", GB_MAX_SIGMA, "radius", GB_MAX_RADIUS,
      "cuda-device-id", 3, NULL);
  g_object_get (element, "sigma", &sigma_value, "radius", &radius,
      "algorithm", &algorithm, "border", &border, "cuda-device-id",
      &device_id, NULL);
  fail_unless_equals_float (sigma_value, GB_MAX_SIGMA);
  fail_unless_equals_int (radius, GB_MAX_RADIUS);
  fail_unless_equals_int (algorithm, GB_ALGORITHM_SHARED);
  fail_unless_equals_int (border, GB_BORDER_MIRROR);
  fail_unless_equals_int (device_id, 3);

  gst_object_unref (element);
}

GST_END_TEST;

GST_START_TEST (test_invalid_values_refused)
{
  GstElement *element = gst_element_factory_make (ELEMENT, NULL);
  gdouble sigma;
  gint radius, device_id, algorithm;

  g_object_set (element, "sigma", 3.0, "radius", 5, "cuda-device-id", 0,
      NULL);
  gst_util_set_object_arg (G_OBJECT (element), "algorithm", "naive");

  /* GObject validation warns and leaves the old value */
  ASSERT_WARNING (g_object_set (element, "sigma", -1.0, NULL));
  ASSERT_WARNING (g_object_set (element, "sigma", GB_MAX_SIGMA + 1, NULL));
  ASSERT_WARNING (g_object_set (element, "radius", 5000, NULL));
  ASSERT_WARNING (g_object_set (element, "radius", -1, NULL));
  ASSERT_WARNING (g_object_set (element, "cuda-device-id", -2, NULL));
  ASSERT_WARNING (g_object_set (element, "algorithm", 17, NULL));

  g_object_get (element, "sigma", &sigma, "radius", &radius,
      "cuda-device-id", &device_id, "algorithm", &algorithm, NULL);
  fail_unless_equals_float (sigma, 3.0);
  fail_unless_equals_int (radius, 5);
  fail_unless_equals_int (device_id, 0);
  fail_unless_equals_int (algorithm, GB_ALGORITHM_NAIVE);

  gst_object_unref (element);
}

GST_END_TEST;

/* --- caps and pixels --- */

GST_START_TEST (test_template_caps)
{
  GstElementFactory *factory = gst_element_factory_find (ELEMENT);
  GstCaps *expected = gst_caps_from_string (TEMPLATE_CAPS);
  const GList *item;
  guint n_templates = 0;

  fail_unless (factory != NULL);
  for (item = gst_element_factory_get_static_pad_templates (factory); item;
      item = item->next) {
    GstCaps *caps = gst_static_pad_template_get_caps (item->data);
    fail_unless (gst_caps_is_equal (caps, expected),
        "template caps %" GST_PTR_FORMAT, caps);
    gst_caps_unref (caps);
    n_templates++;
  }
  fail_unless_equals_int (n_templates, 2);
  gst_caps_unref (expected);
  gst_object_unref (factory);
}

GST_END_TEST;

/* Every format of the template, at odd sizes (odd RGB/BGR rows are padded),
 * with every algorithm and border. */
GST_START_TEST (test_formats)
{
  static const gint sizes[][2] = { {7, 5}, {33, 17} };
  GstCaps *template = gst_caps_from_string (TEMPLATE_CAPS);
  const GValue *formats =
      gst_structure_get_value (gst_caps_get_structure (template, 0), "format");
  guint f, s, a, n_checked = 0;

  for (f = 0; f < gst_value_list_get_size (formats); f++) {
    const gchar *format =
        g_value_get_string (gst_value_list_get_value (formats, f));
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      GstVideoInfo info = video_info (format, sizes[s][0], sizes[s][1]);
      GstHarness *h = element_harness_new ("cpu", format, sizes[s][0],
          sizes[s][1]);
      GstBuffer *input = random_frame (&info, f * 16 + s);
      GstCaps *incaps, *outcaps;

      for (a = GB_ALGORITHM_AUTO; a <= GB_ALGORITHM_LAST; a++) {
        GbParams params = params_make (1.5, 0, (GbAlgorithm) a,
            (GbBorder) ((a + f) % 3));
        element_set_params (h->element, &params);
        gst_buffer_unref (push_and_check (h, input, &info, &params));
        n_checked++;
      }

      /* the format and size go out as they came in */
      incaps = gst_pad_get_current_caps (h->srcpad);
      outcaps = gst_pad_get_current_caps (h->sinkpad);
      fail_unless (gst_caps_is_equal (incaps, outcaps), "%" GST_PTR_FORMAT,
          outcaps);
      gst_caps_unref (outcaps);
      gst_caps_unref (incaps);

      gst_buffer_unref (input);
      gst_harness_teardown (h);
    }
  }
  fail_unless_equals_int (n_checked,
      11 * G_N_ELEMENTS (sizes) * (GB_ALGORITHM_LAST + 1));
  gst_caps_unref (template);
}

GST_END_TEST;

/* Upstream may pad its rows (video meta with larger strides). */
GST_START_TEST (test_padded_input_strides)
{
  static const gchar *const formats[] = { "RGBA", "RGB", "GRAY8" };
  GbParams params = params_make (2.0, 0, GB_ALGORITHM_AUTO, GB_BORDER_CLAMP);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    GstVideoInfo info = video_info (formats[i], 7, 5);
    GstVideoInfo padded = info;
    gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
    gint stride[GST_VIDEO_MAX_PLANES] = { 0 };
    GstHarness *h = element_harness_new ("cpu", formats[i], 7, 5);
    GstBuffer *input;

    stride[0] = GST_VIDEO_INFO_PLANE_STRIDE (&info, 0) + 13;
    padded.size = stride[0] * 5;
    input = random_frame (&padded, i);
    gst_buffer_add_video_meta_full (input, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (&info), 7, 5, 1, offset, stride);

    gst_buffer_unref (push_and_check (h, input, &info, &params));

    gst_buffer_unref (input);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

GST_START_TEST (test_passthrough)
{
  GstVideoInfo info = video_info ("RGBA", 7, 5);
  GbParams params = params_make (2.0, 0, GB_ALGORITHM_AUTO, GB_BORDER_CLAMP);
  GstHarness *h = element_harness_new ("cpu", "RGBA", 7, 5);
  GstBaseTransform *trans = GST_BASE_TRANSFORM (h->element);
  GstBuffer *input = random_frame (&info, 1);
  GstBuffer *output;

  fail_if (gst_base_transform_is_passthrough (trans));
  g_object_set (h->element, "sigma", 0.0, NULL);
  fail_unless (gst_base_transform_is_passthrough (trans));

  /* sigma 0: the input buffer itself goes out */
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (input)),
      GST_FLOW_OK);
  output = gst_harness_pull (h);
  fail_unless (output == input);
  gst_buffer_unref (output);

  /* blurring again from the next frame */
  g_object_set (h->element, "sigma", 2.0, NULL);
  fail_if (gst_base_transform_is_passthrough (trans));
  gst_buffer_unref (push_and_check (h, input, &info, &params));

  g_object_set (h->element, "sigma", 0.0, NULL);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (input)),
      GST_FLOW_OK);
  output = gst_harness_pull (h);
  fail_unless (output == input);
  gst_buffer_unref (output);

  gst_buffer_unref (input);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_property_change_while_playing)
{
  /* after the common steps: a small sigma with an explicit radius */
  static const PropertyStep cpu_steps[] = {
    {"sigma", "0.7", {0.7, 2, GB_ALGORITHM_SEPARABLE, GB_BORDER_MIRROR}, TRUE},
  };
  GstVideoInfo info = video_info ("RGBA", 33, 17);
  GbParams params = params_make (2.0, 0, GB_ALGORITHM_AUTO, GB_BORDER_CLAMP);
  GstHarness *h = element_harness_new ("cpu", "RGBA", 33, 17);
  GstBuffer *input = random_frame (&info, 2);
  GstBuffer *last;

  last = push_and_check (h, input, &info, &params);
  last = check_property_steps (h, input, &info, last, common_property_steps,
      n_common_property_steps, push_and_check);
  last = check_property_steps (h, input, &info, last, cpu_steps,
      G_N_ELEMENTS (cpu_steps), push_and_check);

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
    {"RGBA", 33, 17}, {"GRAY8", 16, 9}, {"RGB", 7, 5}, {"xBGR", 9, 12},
    {"RGBA", 33, 17},
  };
  GbParams params = params_make (1.2, 0, GB_ALGORITHM_AUTO, GB_BORDER_MIRROR);
  GstHarness *h = element_harness_new ("cpu", streams[0].format,
      streams[0].width, streams[0].height);
  guint i;

  gst_util_set_object_arg (G_OBJECT (h->element), "border", "mirror");
  g_object_set (h->element, "sigma", 1.2, NULL);
  for (i = 0; i < G_N_ELEMENTS (streams); i++) {
    GstVideoInfo info = video_info (streams[i].format, streams[i].width,
        streams[i].height);
    GstBuffer *input = random_frame (&info, 100 + i);
    GstCaps *outcaps;

    if (i > 0)
      gst_harness_set_src_caps (h, video_caps (streams[i].format,
              streams[i].width, streams[i].height));
    gst_buffer_unref (push_and_check (h, input, &info, &params));

    outcaps = gst_pad_get_current_caps (h->sinkpad);
    fail_unless (gst_video_info_from_caps (&info, outcaps));
    fail_unless_equals_string (gst_video_format_to_string
        (GST_VIDEO_INFO_FORMAT (&info)), streams[i].format);
    fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&info), streams[i].width);
    fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&info), streams[i].height);
    gst_caps_unref (outcaps);
    gst_buffer_unref (input);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

static GstMessage *
wait_for_end (GstElement * pipeline)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  GstMessage *message = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);

  fail_unless (message != NULL, "no EOS or error within 60 s");
  gst_object_unref (bus);
  return message;
}

GST_START_TEST (test_state_cycles)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=RGBA,width=16,height=8 ! " ELEMENT " backend=cpu ! "
      "fakesink", &error);
  guint i;

  fail_unless (pipeline != NULL, "%s", error ? error->message : "");
  for (i = 0; i < 100; i++) {
    GstMessage *message;

    fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
        GST_STATE_CHANGE_FAILURE);
    message = wait_for_end (pipeline);
    fail_unless_equals_int (GST_MESSAGE_TYPE (message), GST_MESSAGE_EOS);
    gst_message_unref (message);
    fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
        GST_STATE_CHANGE_SUCCESS);
  }
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* A control source on sigma sets the sigma of each frame by its timestamp. */
GST_START_TEST (test_controller)
{
  static const struct
  {
    GstClockTime pts;
    gdouble sigma;
  } keys[] = {
    {0, 1.0}, {GST_SECOND, 4.0}, {2 * GST_SECOND, 0.0}, {3 * GST_SECOND, 2.5},
  };
  GstVideoInfo info = video_info ("GRAY8", 33, 17);
  GstHarness *h = element_harness_new ("cpu", "GRAY8", 33, 17);
  GstControlSource *control = gst_interpolation_control_source_new ();
  guint i;

  g_object_set (control, "mode", GST_INTERPOLATION_MODE_NONE, NULL);
  fail_unless (gst_object_add_control_binding (GST_OBJECT (h->element),
          gst_direct_control_binding_new_absolute (GST_OBJECT (h->element),
              "sigma", control)));
  for (i = 0; i < G_N_ELEMENTS (keys); i++)
    fail_unless (gst_timed_value_control_source_set
        (GST_TIMED_VALUE_CONTROL_SOURCE (control), keys[i].pts,
            keys[i].sigma));

  for (i = 0; i < G_N_ELEMENTS (keys); i++) {
    GstBuffer *input = random_frame (&info, 200 + i);
    gdouble sigma;

    GST_BUFFER_PTS (input) = keys[i].pts;
    GST_BUFFER_DURATION (input) = GST_SECOND;
    if (keys[i].sigma > 0) {
      GbParams params = params_make (keys[i].sigma, 0, GB_ALGORITHM_AUTO,
          GB_BORDER_CLAMP);
      gst_buffer_unref (push_and_check (h, input, &info, &params));
    } else {
      GstBuffer *output;
      fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (input)),
          GST_FLOW_OK);
      output = gst_harness_pull (h);
      fail_unless (output == input, "sigma 0 is not passthrough");
      gst_buffer_unref (output);
    }
    g_object_get (h->element, "sigma", &sigma, NULL);
    fail_unless_equals_float (sigma, keys[i].sigma);
    gst_buffer_unref (input);
  }

  gst_object_unref (control);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* backend=cuda on a device that cannot exist: an element error, in CI
 * (no GPU) and on a GPU machine alike. */
GST_START_TEST (test_cuda_missing_device)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=1 ! "
      "video/x-raw,format=RGBA,width=16,height=8 ! " ELEMENT " name=blur "
      "backend=cuda cuda-device-id=999 ! fakesink", &error);
  GstElement *blur;
  GstMessage *message;
  gchar *debug = NULL;

  fail_unless (pipeline != NULL, "%s", error ? error->message : "");
  blur = gst_bin_get_by_name (GST_BIN (pipeline), "blur");
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  message = wait_for_end (pipeline);
  fail_unless_equals_int (GST_MESSAGE_TYPE (message), GST_MESSAGE_ERROR);
  fail_unless (GST_MESSAGE_SRC (message) == GST_OBJECT (blur));
  gst_message_parse_error (message, &error, &debug);
  fail_unless (g_error_matches (error, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NOT_FOUND), "%s", error->message);
  /* the core's message follows ours */
  fail_unless (g_str_has_prefix (error->message, "Cannot blur with CUDA: "),
      "%s", error->message);
  fail_unless (strlen (error->message) > strlen ("Cannot blur with CUDA: "));
  GST_INFO ("error: %s (%s)", error->message, debug);

  g_clear_error (&error);
  g_free (debug);
  gst_message_unref (message);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (blur);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* Switching to a missing device while playing fails the next frame with
 * GST_FLOW_ERROR; switching back to the CPU recovers. */
GST_START_TEST (test_backend_change_while_playing)
{
  GstVideoInfo info = video_info ("BGRx", 7, 5);
  GbParams params = params_make (2.0, 0, GB_ALGORITHM_AUTO, GB_BORDER_CLAMP);
  GstHarness *h = element_harness_new ("cpu", "BGRx", 7, 5);
  GstBuffer *input = random_frame (&info, 3);
  GstBus *bus = gst_bus_new ();
  GstMessage *message;

  gst_element_set_bus (h->element, bus);
  gst_buffer_unref (push_and_check (h, input, &info, &params));

  g_object_set (h->element, "cuda-device-id", 999, NULL);
  gst_util_set_object_arg (G_OBJECT (h->element), "backend", "cuda");
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (input)),
      GST_FLOW_ERROR);
  message = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (message != NULL, "no error message");
  gst_message_unref (message);

  gst_util_set_object_arg (G_OBJECT (h->element), "backend", "cpu");
  gst_buffer_unref (push_and_check (h, input, &info, &params));
  fail_unless_equals_int (count_messages (bus, GST_MESSAGE_ERROR), 0);

  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_buffer_unref (input);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* backend=auto blurs on the CPU, after one warning, when no device is
 * usable; on a GPU machine it blurs with CUDA (within one level) silently. */
GST_START_TEST (test_auto_backend)
{
  GstVideoInfo info = video_info ("RGBA", 33, 17);
  GbParams params = params_make (2.0, 0, GB_ALGORITHM_AUTO, GB_BORDER_CLAMP);
  GstHarness *h = gst_harness_new (ELEMENT);
  GstBus *bus = gst_bus_new ();
  gboolean have_device = cuda_device_usable ();
  guint i;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps (h, video_caps ("RGBA", 33, 17));
  for (i = 0; i < 3; i++) {
    GstBuffer *input = random_frame (&info, 300 + i);
    GstBuffer *output, *expected;

    if (i == 2) {
      /* a new stream on the same handle warns no more */
      info = video_info ("GRAY8", 16, 9);
      gst_buffer_unref (input);
      input = random_frame (&info, 300 + i);
      gst_harness_set_src_caps (h, video_caps ("GRAY8", 16, 9));
    }
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (input)),
        GST_FLOW_OK);
    output = gst_harness_pull (h);
    expected = reference_blur (input, &info, &params);
    fail_unless (max_difference (output, expected, &info) <=
        (have_device ? 1 : 0));
    fail_unless (max_difference (output, input, &info) > 0);
    gst_buffer_unref (expected);
    gst_buffer_unref (output);
    gst_buffer_unref (input);
  }

  fail_unless_equals_int (count_messages (bus, GST_MESSAGE_WARNING),
      have_device ? 0 : 1);
  fail_unless_equals_int (count_messages (bus, GST_MESSAGE_ERROR), 0);
  if (have_device)
    GST_INFO ("a CUDA device is usable: the CPU fallback was not checked");

  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
cudagaussblur_suite (void)
{
  Suite *s = suite_create ("cudagaussblur");
  TCase *tc = tcase_create ("cpu");

  tcase_set_timeout (tc, 300);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_properties);
  tcase_add_test (tc, test_invalid_values_refused);
  tcase_add_test (tc, test_template_caps);
  tcase_add_test (tc, test_formats);
  tcase_add_test (tc, test_padded_input_strides);
  tcase_add_test (tc, test_passthrough);
  tcase_add_test (tc, test_property_change_while_playing);
  tcase_add_test (tc, test_renegotiation);
  tcase_add_test (tc, test_state_cycles);
  tcase_add_test (tc, test_controller);
  tcase_add_test (tc, test_cuda_missing_device);
  tcase_add_test (tc, test_backend_change_while_playing);
  tcase_add_test (tc, test_auto_backend);
  return s;
}

GST_CHECK_MAIN (cudagaussblur);

/* cudagaussblur element tests on the CPU backend (GstCheck, runs in CI).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Pixels are checked against the core itself: the expected frame is the CPU
 * core's blur of the same input with the same parameters, so the harness
 * output must match it exactly. Where the core runs a truncated convolution,
 * the output is also checked against an independent double-precision
 * convolution written from the documented semantics (exact_blur), within a
 * level. Frames are small to keep valgrind quick.
 */
#include <math.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/controller/controller.h>
#include <gst/video/video.h>

#include "edge_aware.h"
#include "element_check.h"

/* The formats of issue 4: planar, semi-planar and packed YUV, 16-bit. */
#define NEW_FORMATS "NV12, NV21, NV16, NV61, NV24, I420, YV12, Y41B, Y42B, " \
  "Y444, AYUV, VUYA, v308, GRAY16_LE, RGBA64_LE, BGRA64_LE, Y444_16LE, " \
  "P016_LE"
#define N_FORMATS 29

/* The caps both pad templates must have. */
#define TEMPLATE_CAPS "video/x-raw, format = (string) { GRAY8, RGB, BGR, " \
  "RGBA, BGRA, ARGB, ABGR, RGBx, BGRx, xRGB, xBGR, " NEW_FORMATS " }, " \
  "width = (int) [ 1, 8192 ], height = (int) [ 1, 8192 ], " \
  "interlace-mode = (string) progressive, " \
  "framerate = (fraction) [ 0/1, 2147483647/1 ]"

/* Built with GStreamer's CUDA library, the formats its CUDA memory can hold
 * are offered in CUDA memory too. */
#ifdef HAVE_GST_CUDA
#define CUDA_TEMPLATE_CAPS "video/x-raw(memory:CUDAMemory), " \
  "format = (string) { RGB, BGR, RGBA, BGRA, ARGB, ABGR, RGBx, BGRx, NV12, " \
  "NV21, I420, YV12, Y42B, Y444, Y444_16LE, P016_LE }, " \
  "width = (int) [ 1, 8192 ], height = (int) [ 1, 8192 ], " \
  "interlace-mode = (string) progressive, " \
  "framerate = (fraction) [ 0/1, 2147483647/1 ]; "
#else
#define CUDA_TEMPLATE_CAPS ""
#endif

/* --- helpers --- */

static GbParams
params_make (gdouble sigma, gint radius, GbAlgorithm algorithm,
    GbBorder border)
{
  GbParams params = gb_params_make (sigma, radius, algorithm, border);
  return params;
}

/* Checks output, the element's frame for input with params: it is the
 * core's blur, the exact one within a level where that applies, and equal
 * to the input outside the region. */
static void
check_output (GstBuffer * output, GstBuffer * input,
    const GstVideoInfo * info, const GbParams * params)
{
  GstBuffer *expected = reference_blur (input, info, params);
  gint difference;

  fail_unless_equals_int (max_difference (output, expected, info), 0);
  gst_buffer_unref (expected);
  if (exact_blur_applies (info, params)) {
    expected = exact_blur (input, info, params);
    difference = max_difference (output, expected, info);
    fail_unless (difference <= exact_tolerance (params),
        "%s: %d levels from the exact blur (sigma %g x %g, sharpen %g)",
        GST_VIDEO_INFO_NAME (info), difference, params->sigma_x,
        params->sigma_y, params->sharpen);
    gst_buffer_unref (expected);
  }
  fail_unless_equals_int (max_difference_outside (output, input, info,
          params), 0);
}

/* Pushes input (keeping a ref), pulls the output and checks it is the core's
 * blur with params (check_output), and a blur indeed. Returns the output. */
static GstBuffer *
push_and_check (GstHarness * h, GstBuffer * input, const GstVideoInfo * info,
    const GbParams * params)
{
  GstBuffer *output = push_pull (h, input);

  check_output (output, input, info, params);
  fail_unless (max_difference (output, input, info) > 0,
      "output equals the input: not blurred");
  return output;
}

/* Pushes input (keeping a ref) and checks that its pixels come out as they
 * went in; the buffer itself when passthrough says so. what names the case. */
static void
push_unchanged (GstHarness * h, GstBuffer * input, const GstVideoInfo * info,
    gboolean passthrough, const gchar * what)
{
  GstBuffer *output;
  gint difference;

  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (input)),
      GST_FLOW_OK);
  output = gst_harness_pull (h);
  fail_unless (output != NULL);
  if (passthrough)
    fail_unless (output == input, "not passthrough");
  difference = max_difference (output, input, info);
  fail_unless (difference == 0, "%s, %s: the frame changed by %d",
      GST_VIDEO_INFO_NAME (info), what, difference);
  gst_buffer_unref (output);
}

static gboolean
cuda_device_usable (void)
{
  GbGeometry geometry = {.n_planes = 1,.bytes_per_sample = 1,
    .planes = {{.width = 1,.height = 1,.channels = 1}}
  };
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

static void
check_double_property (GObjectClass * klass, const gchar * name,
    gdouble minimum, gdouble maximum, gdouble default_value)
{
  GParamSpec *pspec = g_object_class_find_property (klass, name);
  GParamSpecDouble *spec;

  fail_unless (G_IS_PARAM_SPEC_DOUBLE (pspec), "%s", name);
  spec = G_PARAM_SPEC_DOUBLE (pspec);
  fail_unless_equals_float (spec->minimum, minimum);
  fail_unless_equals_float (spec->maximum, maximum);
  fail_unless_equals_float (spec->default_value, default_value);
}

static void
check_int_property (GObjectClass * klass, const gchar * name, gint minimum,
    gint maximum, gint default_value)
{
  GParamSpec *pspec = g_object_class_find_property (klass, name);
  GParamSpecInt *spec;

  fail_unless (G_IS_PARAM_SPEC_INT (pspec), "%s", name);
  spec = G_PARAM_SPEC_INT (pspec);
  fail_unless_equals_int (spec->minimum, minimum);
  fail_unless_equals_int (spec->maximum, maximum);
  fail_unless_equals_int (spec->default_value, default_value);
}

GST_START_TEST (test_properties)
{
  static const gchar *const algorithms[] =
      { "auto", "naive", "shared", "separable", "fused", "recursive",
    "multiscale", "edge-aware", "superposition-gather",
    "superposition-scatter", NULL
  };
  static const gint algorithm_values[] = { GB_ALGORITHM_AUTO,
    GB_ALGORITHM_NAIVE, GB_ALGORITHM_SHARED, GB_ALGORITHM_SEPARABLE,
    GB_ALGORITHM_FUSED, GB_ALGORITHM_RECURSIVE, GB_ALGORITHM_MULTISCALE,
    GB_ALGORITHM_EDGE_AWARE, GB_ALGORITHM_SUPERPOSITION_GATHER,
    GB_ALGORITHM_SUPERPOSITION_SCATTER
  };
  static const gchar *const sigma_maps[] = { "none", "roi", "tilt-shift",
    "radial", "image", NULL
  };
  static const gchar *const borders[] = { "clamp", "mirror", "zero", NULL };
  static const gint border_values[] = { GB_BORDER_CLAMP, GB_BORDER_MIRROR,
    GB_BORDER_ZERO
  };
  static const gchar *const backends[] = { "auto", "cuda", "cpu", NULL };
  static const gchar *const names[] = { "sigma", "sigma-x", "sigma-y",
    "amount", "region-x", "region-y", "region-width", "region-height",
    "radius", "algorithm", "border", "backend", "cuda-device-id",
    "sigma-range", "iterations", "kappa", "sigma-map", "roi-feather",
    "focus-x", "focus-y", "focus-size", "focus-transition", "focus-angle",
    NULL
  };
  static const gchar *const region_names[] = { "region-x", "region-y",
    "region-width", "region-height", NULL
  };
  const GParamFlags flags = G_PARAM_READWRITE | GST_PARAM_CONTROLLABLE |
      GST_PARAM_MUTABLE_PLAYING;
  GstElement *element = gst_element_factory_make (ELEMENT, NULL);
  GObjectClass *klass;
  GParamSpec *pspec;
  GParamSpecInt *spec_int;
  gdouble sigma_value, sigma_x, sigma_y, amount, sigma_range, kappa;
  gint radius, device_id, algorithm, border, backend, region[4], iterations;
  guint i;

  fail_unless (element != NULL);
  klass = G_OBJECT_GET_CLASS (element);

  for (i = 0; names[i]; i++) {
    pspec = g_object_class_find_property (klass, names[i]);
    fail_unless (pspec != NULL, "no property %s", names[i]);
    fail_unless ((pspec->flags & flags) == flags, "%s flags", names[i]);
  }

  /* negative sigmas sharpen */
  check_double_property (klass, "sigma", -GB_MAX_SIGMA, GB_MAX_SIGMA, 2.0);
  check_double_property (klass, "sigma-x", -GB_MAX_SIGMA, GB_MAX_SIGMA, 2.0);
  check_double_property (klass, "sigma-y", -GB_MAX_SIGMA, GB_MAX_SIGMA, 2.0);
  check_double_property (klass, "amount", 0.0, 20.0, 1.0);
  for (i = 0; region_names[i]; i++)
    check_int_property (klass, region_names[i], 0, G_MAXINT, 0);
  check_int_property (klass, "radius", 0, GB_MAX_RADIUS, 0);
  /* edge-aware: the core's defaults and limits */
  check_double_property (klass, "sigma-range", 0.1, 100000.0,
      GB_DEFAULT_SIGMA_RANGE);
  check_int_property (klass, "iterations", 1, GB_MAX_ITERATIONS,
      GB_DEFAULT_ITERATIONS);
  check_double_property (klass, "kappa", 0.0, GB_MAX_KAPPA, GB_DEFAULT_KAPPA);
  fail_unless_equals_float (GB_DEFAULT_SIGMA_RANGE, 50.0);
  fail_unless_equals_int (GB_DEFAULT_ITERATIONS, 2);
  fail_unless_equals_float (GB_DEFAULT_KAPPA, 2.0);

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
  check_enum_property (klass, "sigma-map", "none", sigma_maps, NULL);
  /* the spatially varying blur's shapes */
  check_double_property (klass, "roi-feather", 0.0, 512.0, 8.0);
  check_double_property (klass, "focus-x", 0.0, 1.0, 0.5);
  check_double_property (klass, "focus-y", 0.0, 1.0, 0.5);
  check_double_property (klass, "focus-size", 0.0, 2.0, 0.2);
  check_double_property (klass, "focus-transition", 0.0, 2.0, 0.3);
  check_double_property (klass, "focus-angle", -180.0, 180.0, 0.0);
  {
    gchar *types = NULL, *location = NULL;
    g_object_get (element, "roi-types", &types, "sigma-map-location",
        &location, NULL);
    fail_unless (types == NULL && location == NULL);
    g_object_set (element, "roi-types", "face, license-plate",
        "sigma-map-location", "/tmp/map.pgm", NULL);
    g_object_get (element, "roi-types", &types, "sigma-map-location",
        &location, NULL);
    fail_unless_equals_string (types, "face, license-plate");
    fail_unless_equals_string (location, "/tmp/map.pgm");
    g_free (types);
    g_free (location);
  }

  /* a new element holds the defaults */
  g_object_get (element, "sigma", &sigma_value, "sigma-x", &sigma_x,
      "sigma-y", &sigma_y, "amount", &amount, "region-x", &region[0],
      "region-y", &region[1], "region-width", &region[2], "region-height",
      &region[3], "radius", &radius, "algorithm", &algorithm, "border",
      &border, "backend", &backend, "cuda-device-id", &device_id,
      "sigma-range", &sigma_range, "iterations", &iterations, "kappa", &kappa,
      NULL);
  fail_unless_equals_float (sigma_value, 2.0);
  fail_unless_equals_float (sigma_x, 2.0);
  fail_unless_equals_float (sigma_y, 2.0);
  fail_unless_equals_float (amount, 1.0);
  for (i = 0; i < 4; i++)
    fail_unless_equals_int (region[i], 0);
  fail_unless_equals_int (radius, 0);
  fail_unless_equals_int (algorithm, GB_ALGORITHM_AUTO);
  fail_unless_equals_int (border, GB_BORDER_CLAMP);
  fail_unless_equals_int (device_id, -1);
  fail_unless_equals_float (sigma_range, 50.0);
  fail_unless_equals_int (iterations, 2);
  fail_unless_equals_float (kappa, 2.0);

  /* and keeps what it is given, up to the limits */
  gst_util_set_object_arg (G_OBJECT (element), "algorithm", "shared");
  gst_util_set_object_arg (G_OBJECT (element), "border", "mirror");
  gst_util_set_object_arg (G_OBJECT (element), "backend", "cpu");
  g_object_set (element, "sigma", GB_MAX_SIGMA, "radius", GB_MAX_RADIUS,
      "cuda-device-id", 3, "amount", 20.0, "region-x", G_MAXINT, "region-y",
      G_MAXINT - 1, "region-width", G_MAXINT - 2, "region-height",
      G_MAXINT - 3, NULL);
  g_object_get (element, "sigma", &sigma_value, "sigma-x", &sigma_x,
      "sigma-y", &sigma_y, "amount", &amount, "region-x", &region[0],
      "region-y", &region[1], "region-width", &region[2], "region-height",
      &region[3], "radius", &radius, "algorithm", &algorithm, "border",
      &border, "cuda-device-id", &device_id, NULL);
  fail_unless_equals_float (sigma_value, GB_MAX_SIGMA);
  fail_unless_equals_float (sigma_x, GB_MAX_SIGMA);
  fail_unless_equals_float (sigma_y, GB_MAX_SIGMA);
  fail_unless_equals_float (amount, 20.0);
  for (i = 0; i < 4; i++)
    fail_unless_equals_int (region[i], G_MAXINT - (gint) i);
  fail_unless_equals_int (radius, GB_MAX_RADIUS);
  fail_unless_equals_int (algorithm, GB_ALGORITHM_SHARED);
  fail_unless_equals_int (border, GB_BORDER_MIRROR);
  fail_unless_equals_int (device_id, 3);

  /* the edge-aware settings at either end of their ranges */
  gst_util_set_object_arg (G_OBJECT (element), "algorithm", "edge-aware");
  g_object_get (element, "algorithm", &algorithm, NULL);
  fail_unless_equals_int (algorithm, GB_ALGORITHM_EDGE_AWARE);
  g_object_set (element, "sigma-range", 100000.0, "iterations",
      GB_MAX_ITERATIONS, "kappa", GB_MAX_KAPPA, NULL);
  g_object_get (element, "sigma-range", &sigma_range, "iterations",
      &iterations, "kappa", &kappa, NULL);
  fail_unless_equals_float (sigma_range, 100000.0);
  fail_unless_equals_int (iterations, GB_MAX_ITERATIONS);
  fail_unless_equals_float (kappa, GB_MAX_KAPPA);
  g_object_set (element, "sigma-range", 0.1, "iterations", 1, "kappa", 0.0,
      NULL);
  g_object_get (element, "sigma-range", &sigma_range, "iterations",
      &iterations, "kappa", &kappa, NULL);
  fail_unless_equals_float (sigma_range, 0.1);
  fail_unless_equals_int (iterations, 1);
  fail_unless_equals_float (kappa, 0.0);

  /* sigma sets both axes and reads back sigma-x */
  g_object_set (element, "sigma", -GB_MAX_SIGMA, NULL);
  g_object_get (element, "sigma-x", &sigma_x, "sigma-y", &sigma_y, NULL);
  fail_unless_equals_float (sigma_x, -GB_MAX_SIGMA);
  fail_unless_equals_float (sigma_y, -GB_MAX_SIGMA);
  g_object_set (element, "sigma-x", 1.5, "sigma-y", -4.0, NULL);
  g_object_get (element, "sigma", &sigma_value, "sigma-x", &sigma_x,
      "sigma-y", &sigma_y, NULL);
  fail_unless_equals_float (sigma_value, 1.5);
  fail_unless_equals_float (sigma_x, 1.5);
  fail_unless_equals_float (sigma_y, -4.0);
  g_object_set (element, "sigma-x", -0.5, NULL);
  g_object_get (element, "sigma", &sigma_value, "sigma-y", &sigma_y, NULL);
  fail_unless_equals_float (sigma_value, -0.5);
  fail_unless_equals_float (sigma_y, -4.0);
  g_object_set (element, "sigma", 3.0, NULL);
  g_object_get (element, "sigma-x", &sigma_x, "sigma-y", &sigma_y, NULL);
  fail_unless_equals_float (sigma_x, 3.0);
  fail_unless_equals_float (sigma_y, 3.0);

  gst_object_unref (element);
}

GST_END_TEST;

GST_START_TEST (test_invalid_values_refused)
{
  static const struct
  {
    const gchar *name;
    gdouble value;
  } doubles[] = {
    {"sigma", -GB_MAX_SIGMA - 1}, {"sigma", GB_MAX_SIGMA + 1},
    {"sigma-x", -GB_MAX_SIGMA - 0.5}, {"sigma-x", GB_MAX_SIGMA + 0.5},
    {"sigma-y", -1000.0}, {"sigma-y", 1000.0},
    {"amount", -0.1}, {"amount", 20.5},
    {"sigma-range", 0.0}, {"sigma-range", -5.0}, {"sigma-range", 0.05},
    {"sigma-range", 100001.0}, {"sigma-range", NAN},
    {"kappa", -0.1}, {"kappa", GB_MAX_KAPPA + 0.5}, {"kappa", NAN},
  };
  static const gchar *const region_names[] = { "region-x", "region-y",
    "region-width", "region-height"
  };
  GstElement *element = gst_element_factory_make (ELEMENT, NULL);
  gdouble sigma, sigma_x, sigma_y, amount, sigma_range, kappa;
  gint radius, device_id, algorithm, region, iterations;
  guint i;

  g_object_set (element, "sigma", 3.0, "radius", 5, "cuda-device-id", 0,
      "sigma-y", -1.5, "amount", 0.7, "sigma-range", 12.5, "iterations", 3,
      "kappa", 0.5, NULL);
  gst_util_set_object_arg (G_OBJECT (element), "algorithm", "naive");
  for (i = 0; i < G_N_ELEMENTS (region_names); i++)
    g_object_set (element, region_names[i], (gint) (i + 1), NULL);

  /* GObject validation warns and leaves the old value */
  for (i = 0; i < G_N_ELEMENTS (doubles); i++)
    ASSERT_WARNING (g_object_set (element, doubles[i].name, doubles[i].value,
            NULL));
  for (i = 0; i < G_N_ELEMENTS (region_names); i++) {
    ASSERT_WARNING (g_object_set (element, region_names[i], -1, NULL));
    ASSERT_WARNING (g_object_set (element, region_names[i], G_MININT, NULL));
  }
  ASSERT_WARNING (g_object_set (element, "radius", 5000, NULL));
  ASSERT_WARNING (g_object_set (element, "radius", -1, NULL));
  ASSERT_WARNING (g_object_set (element, "cuda-device-id", -2, NULL));
  ASSERT_WARNING (g_object_set (element, "algorithm", 17, NULL));
  ASSERT_WARNING (g_object_set (element, "algorithm", GB_ALGORITHM_LAST + 1,
          NULL));
  ASSERT_WARNING (g_object_set (element, "iterations", 0, NULL));
  ASSERT_WARNING (g_object_set (element, "iterations", GB_MAX_ITERATIONS + 1,
          NULL));
  ASSERT_WARNING (g_object_set (element, "iterations", -1, NULL));

  g_object_get (element, "sigma", &sigma, "sigma-x", &sigma_x, "sigma-y",
      &sigma_y, "amount", &amount, "radius", &radius, "cuda-device-id",
      &device_id, "algorithm", &algorithm, "sigma-range", &sigma_range,
      "iterations", &iterations, "kappa", &kappa, NULL);
  fail_unless_equals_float (sigma, 3.0);
  fail_unless_equals_float (sigma_x, 3.0);
  fail_unless_equals_float (sigma_y, -1.5);
  fail_unless_equals_float (amount, 0.7);
  fail_unless_equals_int (radius, 5);
  fail_unless_equals_int (device_id, 0);
  fail_unless_equals_int (algorithm, GB_ALGORITHM_NAIVE);
  fail_unless_equals_float (sigma_range, 12.5);
  fail_unless_equals_int (iterations, 3);
  fail_unless_equals_float (kappa, 0.5);
  for (i = 0; i < G_N_ELEMENTS (region_names); i++) {
    g_object_get (element, region_names[i], &region, NULL);
    fail_unless_equals_int (region, (gint) (i + 1));
  }

  gst_object_unref (element);
}

GST_END_TEST;

/* --- caps and pixels --- */

GST_START_TEST (test_template_caps)
{
  GstElementFactory *factory = gst_element_factory_find (ELEMENT);
  GstCaps *expected = gst_caps_from_string (CUDA_TEMPLATE_CAPS TEMPLATE_CAPS);
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

/* Every format of the template, at odd sizes (odd RGB/BGR rows are padded,
 * subsampled chroma planes round up), with every algorithm and border. */
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
      N_FORMATS * G_N_ELEMENTS (sizes) * (GB_ALGORITHM_LAST + 1));
  gst_caps_unref (template);
}

GST_END_TEST;

/* Each plane's own largest difference between a and b must be above 0. */
static void
check_every_plane_differs (GstBuffer * a, GstBuffer * b,
    const GstVideoInfo * info)
{
  gint differences[GST_VIDEO_MAX_PLANES];
  guint p;

  max_plane_differences (a, b, info, differences);
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++)
    fail_unless (differences[p] > 0, "%s: plane %u is unchanged",
        GST_VIDEO_INFO_NAME (info), p);
}

/* The formats of issue 4 at an odd size (chroma sizes round up): a blur, an
 * anisotropic blur of an odd region, a sharpen; each plane at its own
 * resolution (every plane checked, 16-bit samples as such), exactly the
 * core's and within a level of the exact convolution. */
GST_START_TEST (test_new_formats)
{
  gchar **formats = g_strsplit (NEW_FORMATS, ", ", -1);
  GbParams cases[3];
  guint f, c;

  cases[0] = params_make (2.0, 0, GB_ALGORITHM_AUTO, GB_BORDER_CLAMP);
  cases[1] = params_make (1.5, 0, GB_ALGORITHM_AUTO, GB_BORDER_MIRROR);
  cases[1].sigma_y = 3.0;
  cases[1].region = (GbRect) {
  5, 3, 17, 9};
  cases[2] = params_make (2.0, 0, GB_ALGORITHM_AUTO, GB_BORDER_ZERO);
  cases[2].sharpen = 1.0;

  fail_unless_equals_int (g_strv_length (formats), 18);
  for (f = 0; formats[f]; f++) {
    GstVideoInfo info = video_info (formats[f], 33, 17);
    GstHarness *h = element_harness_new ("cpu", formats[f], 33, 17);
    GstBuffer *input = random_frame (&info, 500 + f);
    GstCaps *incaps, *outcaps;

    for (c = 0; c < G_N_ELEMENTS (cases); c++) {
      GstBuffer *output;

      element_set_params (h->element, &cases[c]);
      output = push_and_check (h, input, &info, &cases[c]);
      check_every_plane_differs (output, input, &info);
      gst_buffer_unref (output);
    }

    /* the format and size go out as they came in */
    incaps = gst_pad_get_current_caps (h->srcpad);
    outcaps = gst_pad_get_current_caps (h->sinkpad);
    fail_unless (gst_caps_is_equal (incaps, outcaps), "%" GST_PTR_FORMAT,
        outcaps);
    fail_unless (gst_video_info_from_caps (&info, outcaps));
    fail_unless_equals_string (GST_VIDEO_INFO_NAME (&info), formats[f]);
    fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&info), 33);
    fail_unless_equals_int (GST_VIDEO_INFO_HEIGHT (&info), 17);
    gst_caps_unref (outcaps);
    gst_caps_unref (incaps);
    gst_buffer_unref (input);
    gst_harness_teardown (h);
  }
  g_strfreev (formats);
}

GST_END_TEST;

/* Caps the element must refuse: not accepted, not set from a caps event,
 * and the frame that follows is not negotiated (and not pushed). Takes
 * input. */
static void
check_caps_refused (GstHarness * h, GstCaps * caps, GstBuffer * input,
    const gchar * what)
{
  GstPad *sinkpad = gst_element_get_static_pad (h->element, "sink");
  GstSegment segment;

  fail_if (gst_pad_query_accept_caps (sinkpad, caps), "%s accepted", what);
  fail_unless (gst_harness_push_event (h,
          gst_event_new_stream_start ("refused")));
  /* a sticky event is stored (and reported handled) even when refused */
  gst_harness_push_event (h, gst_event_new_caps (caps));
  fail_if (gst_pad_has_current_caps (sinkpad), "%s: caps set", what);
  gst_segment_init (&segment, GST_FORMAT_TIME);
  gst_harness_push_event (h, gst_event_new_segment (&segment));
  fail_unless_equals_int (gst_harness_push (h, input),
      GST_FLOW_NOT_NEGOTIATED);
  fail_unless_equals_int (gst_harness_buffers_received (h), 0);
  gst_object_unref (sinkpad);
}

/* Formats the element does not list are refused at negotiation: an
 * accept-caps query says no, the caps event fails and so does the buffer,
 * with not-negotiated rather than a crash or garbage. */
GST_START_TEST (test_unsupported_formats)
{
  static const gchar *const formats[] = { "YUY2", "UYVY", "I420_10LE",
    "P010_10LE", "GRAY16_BE", "RGB16", "v210", "A420"
  };
  guint f;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstVideoInfo info = video_info (formats[f], 16, 8);
    GstHarness *h = gst_harness_new (ELEMENT);
    GstCaps *caps = video_caps (formats[f], 16, 8);

    gst_util_set_object_arg (G_OBJECT (h->element), "backend", "cpu");
    check_caps_refused (h, caps, random_frame (&info, f), formats[f]);
    gst_caps_unref (caps);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* Interlaced video fails negotiation: a blur down the frame would mix its
 * two fields. Caps without interlace-mode (progressive) are taken. */
GST_START_TEST (test_interlaced_refused)
{
  static const gchar *const modes[] = { "interleaved", "mixed" };
  guint m;

  for (m = 0; m < G_N_ELEMENTS (modes); m++) {
    GstVideoInfo info = video_info ("I420", 16, 8);
    GstHarness *h = gst_harness_new (ELEMENT);
    GstCaps *caps = video_caps ("I420", 16, 8);
    GstPad *sinkpad = gst_element_get_static_pad (h->element, "sink");

    gst_util_set_object_arg (G_OBJECT (h->element), "backend", "cpu");
    fail_unless (gst_pad_query_accept_caps (sinkpad, caps));
    gst_object_unref (sinkpad);
    gst_caps_set_simple (caps, "interlace-mode", G_TYPE_STRING, modes[m],
        NULL);
    check_caps_refused (h, caps, random_frame (&info, m), modes[m]);
    gst_caps_unref (caps);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* Frames down to one pixel, whose subsampled chroma planes are a single
 * sample (the border rule everywhere), with and without a region. */
GST_START_TEST (test_tiny_frames)
{
  static const gint sizes[][2] = { {1, 1}, {2, 1}, {1, 2}, {3, 3}, {5, 1} };
  static const gchar *const formats[] = { "I420", "YV12", "Y41B", "NV12",
    "NV61", "P016_LE", "Y444_16LE", "v308", "AYUV"
  };
  guint f, s, b;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      GstVideoInfo info = video_info (formats[f], sizes[s][0], sizes[s][1]);
      GstHarness *h = element_harness_new ("cpu", formats[f], sizes[s][0],
          sizes[s][1]);
      GstBuffer *input = random_frame (&info, 1200 + 8 * f + s);

      for (b = GB_BORDER_CLAMP; b <= GB_BORDER_ZERO; b++) {
        GbParams params = params_make (1.0, 0, GB_ALGORITHM_AUTO,
            (GbBorder) b);
        GstBuffer *output;

        /* clamp: the whole frame; else one pixel, in or out of it */
        params.sigma_y = 2.5;
        if (b != GB_BORDER_CLAMP)
          params.region = (GbRect) {
          b - 1, 1, 1, 1};
        element_set_params (h->element, &params);
        output = push_pull (h, input);
        check_output (output, input, &info, &params);
        gst_buffer_unref (output);
      }

      gst_buffer_unref (input);
      gst_harness_teardown (h);
    }
  }
}

GST_END_TEST;

/* Upstream may pad its rows and space its planes (video meta with larger
 * strides and offsets): odd paddings for 8-bit samples, even for 16-bit. */
GST_START_TEST (test_padded_input_strides)
{
  static const gchar *const formats[] = { "RGBA", "RGB", "GRAY8", "I420",
    "NV21", "Y41B", "P016_LE", "RGBA64_LE"
  };
  GbParams params = params_make (2.0, 0, GB_ALGORITHM_AUTO, GB_BORDER_CLAMP);
  guint i, p;

  for (i = 0; i < G_N_ELEMENTS (formats); i++) {
    GstVideoInfo info = video_info (formats[i], 7, 5);
    GbGeometry geometry = geometry_for (&info);
    GstVideoInfo padded = info;
    gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
    gint stride[GST_VIDEO_MAX_PLANES] = { 0 };
    GstHarness *h = element_harness_new ("cpu", formats[i], 7, 5);
    GstBuffer *input;
    gsize size = 0;

    for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
      stride[p] = GST_VIDEO_INFO_PLANE_STRIDE (&info, p)
          + (geometry.bytes_per_sample == 1 ? 13 : 14);
      offset[p] = size + 2 * geometry.bytes_per_sample;
      size = offset[p] + (gsize) stride[p] * geometry.planes[p].height;
    }
    padded.size = size;
    input = random_frame (&padded, i);
    gst_buffer_add_video_meta_full (input, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (&info), 7, 5, GST_VIDEO_INFO_N_PLANES (&info),
        offset, stride);

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
  /* while playing, passthrough follows sigma at the next frame */
  g_object_set (h->element, "sigma", 0.0, NULL);
  fail_if (gst_base_transform_is_passthrough (trans));

  /* sigma 0: the input buffer itself goes out */
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (input)),
      GST_FLOW_OK);
  output = gst_harness_pull (h);
  fail_unless (output == input);
  gst_buffer_unref (output);
  fail_unless (gst_base_transform_is_passthrough (trans));

  /* blurring again from the next frame */
  g_object_set (h->element, "sigma", 2.0, NULL);
  gst_buffer_unref (push_and_check (h, input, &info, &params));
  fail_if (gst_base_transform_is_passthrough (trans));

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

/* Flips sigma between 0 and 1 until told to stop (the application's thread
 * of test_passthrough_switch_while_streaming). */
static gpointer
flip_sigma (gpointer data)
{
  GstElement *element = data;
  gint *stop = g_object_get_data (G_OBJECT (element), "stop");
  guint i = 0;

  while (!g_atomic_int_get (stop))
    g_object_set (element, "sigma", (i++ & 1) ? 0.0 : 1.0, NULL);
  return NULL;
}

/* Passthrough switching while frames flow: a flat frame is the same
 * blurred or passed through, so every output must equal its input. When
 * set_property switched passthrough from the application's thread, a
 * buffer between GstBaseTransform's two passthrough checks went out as a
 * pool buffer never written (an older frame), or was transformed into
 * itself (a write map of a read-only buffer: flow error). */
GST_START_TEST (test_passthrough_switch_while_streaming)
{
  const gint frames = 20000;
  const gint64 max_us = 3 * G_USEC_PER_SEC;
  GstHarness *h = element_harness_new ("cpu", "GRAY8", 8, 8);
  gint stop = 0;
  GThread *thread;
  gint64 start = g_get_monotonic_time ();
  gint i, stale = 0;

  g_object_set_data (G_OBJECT (h->element), "stop", &stop);
  thread = g_thread_new ("flip-sigma", flip_sigma, h->element);
  for (i = 0; i < frames && (i < 500
          || g_get_monotonic_time () - start < max_us); i++) {
    const guint8 value = (guint8) (i % 251);
    GstBuffer *input = gst_buffer_new_allocate (NULL, 64, NULL);
    GstBuffer *output;
    GstMapInfo map;
    gsize k;

    gst_buffer_memset (input, 0, value, 64);
    fail_unless_equals_int (gst_harness_push (h, input), GST_FLOW_OK);
    output = gst_harness_pull (h);
    fail_unless (output != NULL);
    fail_unless (gst_buffer_map (output, &map, GST_MAP_READ));
    for (k = 0; k < map.size && map.data[k] == value; k++);
    stale += k < map.size;
    gst_buffer_unmap (output, &map);
    gst_buffer_unref (output);
  }
  g_atomic_int_set (&stop, 1);
  g_thread_join (thread);
  fail_unless_equals_int (stale, 0);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Sets sigma-x, sigma-y and amount as the element takes them. */
static void
set_sigmas (GstElement * element, gdouble sigma_x, gdouble sigma_y,
    gdouble amount)
{
  g_object_set (element, "sigma-x", sigma_x, "sigma-y", sigma_y, "amount",
      amount, NULL);
}

/* A negative sigma sharpens with the Gaussian of |sigma|, by amount (1 by
 * default, as gaussianblur); one negative axis is enough, and both axes keep
 * their own |sigma|; 0 on one axis leaves it alone. */
GST_START_TEST (test_sharpen)
{
  static const struct
  {
    gdouble sigma_x, sigma_y, amount;
  } cases[] = {
    {-2.0, -2.0, 1.0}, {-2.0, -2.0, 0.5}, {-2.0, 3.0, 1.0}, {3.0, -2.0, 2.5},
    {-2.0, 0.0, 1.0}, {0.0, -1.5, 20.0},
  };
  static const gchar *const formats[] = { "RGBA", "NV12", "GRAY16_LE" };
  guint f, c;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstVideoInfo info = video_info (formats[f], 33, 17);
    GstHarness *h = element_harness_new ("cpu", formats[f], 33, 17);
    GstBuffer *input = random_frame (&info, 600 + f);
    GbParams params = params_make (2.0, 0, GB_ALGORITHM_AUTO,
        GB_BORDER_CLAMP);
    GstBuffer *blurred, *output;

    /* "sigma=-2" alone: the unsharp mask with amount 1 */
    blurred = push_and_check (h, input, &info, &params);
    g_object_set (h->element, "sigma", -2.0, NULL);
    params.sharpen = 1.0;
    output = push_and_check (h, input, &info, &params);
    fail_unless (max_difference (output, blurred, &info) > 0);
    gst_buffer_unref (output);
    gst_buffer_unref (blurred);

    for (c = 0; c < G_N_ELEMENTS (cases); c++) {
      set_sigmas (h->element, cases[c].sigma_x, cases[c].sigma_y,
          cases[c].amount);
      params.sigma_x = fabs (cases[c].sigma_x);
      params.sigma_y = fabs (cases[c].sigma_y);
      params.sharpen = cases[c].amount;
      gst_buffer_unref (push_and_check (h, input, &info, &params));
      fail_if (gst_base_transform_is_passthrough (GST_BASE_TRANSFORM
              (h->element)));
    }

    gst_buffer_unref (input);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* The settings that leave the frame as it is let the buffers through; a
 * zero sigma on one axis only is a one-dimensional blur, not the identity. */
GST_START_TEST (test_identity_settings)
{
  GstVideoInfo info = video_info ("NV12", 33, 17);
  GstHarness *h = element_harness_new ("cpu", "NV12", 33, 17);
  GstBaseTransform *trans = GST_BASE_TRANSFORM (h->element);
  GstBuffer *input = random_frame (&info, 700);
  GstBuffer *columns = random_frame (&info, 701);
  GbParams params = params_make (2.0, 0, GB_ALGORITHM_AUTO, GB_BORDER_CLAMP);
  GstVideoFrame frame;
  guint p;
  gint y;

  /* amount 0 sharpens by nothing */
  set_sigmas (h->element, -2.0, -2.0, 0.0);
  push_unchanged (h, input, &info, TRUE, "sigma -2, amount 0");
  fail_unless (gst_base_transform_is_passthrough (trans));
  set_sigmas (h->element, -2.0, 3.0, 0.0);
  push_unchanged (h, input, &info, TRUE, "sigma -2 x 3, amount 0");
  fail_unless (gst_base_transform_is_passthrough (trans));

  /* amount is unused while both sigmas are positive */
  set_sigmas (h->element, 2.0, 2.0, 0.0);
  gst_buffer_unref (push_and_check (h, input, &info, &params));
  fail_if (gst_base_transform_is_passthrough (trans));

  /* both sigmas 0, whatever the amount */
  set_sigmas (h->element, 0.0, 0.0, 1.0);
  push_unchanged (h, input, &info, TRUE, "sigma 0 x 0");
  fail_unless (gst_base_transform_is_passthrough (trans));

  /* sigma-x 0, sigma-y 3: columns only */
  set_sigmas (h->element, 0.0, 3.0, 1.0);
  params.sigma_x = 0.0;
  params.sigma_y = 3.0;
  gst_buffer_unref (push_and_check (h, input, &info, &params));
  fail_if (gst_base_transform_is_passthrough (trans));
  /* so a frame whose rows are all alike (every column constant) comes out
   * as it went in (clamp border), though not passed through */
  fail_unless (gst_video_frame_map (&frame, &info, columns, GST_MAP_WRITE));
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&frame); p++) {
    guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (&frame, p);
    const gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p);

    for (y = 1; y < GST_VIDEO_FRAME_COMP_HEIGHT (&frame, p); y++)
      memcpy (data + y * stride, data, stride);
  }
  gst_video_frame_unmap (&frame);
  push_unchanged (h, columns, &info, FALSE, "constant columns, sigma 0 x 3");

  /* and back to the identity, then to a blur */
  set_sigmas (h->element, 0.0, 0.0, 1.0);
  push_unchanged (h, input, &info, TRUE, "sigma 0 x 0 again");
  set_sigmas (h->element, 2.0, 2.0, 1.0);
  params.sigma_x = 2.0;
  params.sigma_y = 2.0;
  gst_buffer_unref (push_and_check (h, input, &info, &params));

  gst_buffer_unref (columns);
  gst_buffer_unref (input);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A region blurs its own pixels only, reading its apron from around it;
 * rounded outwards to the chroma grid, clipped to the frame; width or height
 * 0 means the whole frame. */
GST_START_TEST (test_region)
{
  static const struct
  {
    GbRect region;
    gboolean outside;           /* entirely outside the frame */
  } cases[] = {
    {{5, 3, 11, 7}, FALSE},     /* inside, odd coordinates */
    {{0, 0, 10, 6}, FALSE},     /* at the top left corner */
    {{23, 11, 10, 6}, FALSE},   /* ending at the bottom right corner */
    {{0, 5, 33, 1}, FALSE},     /* one row, edge to edge */
    {{25, 12, 20, 20}, FALSE},  /* partly outside */
    {{30, 10, G_MAXINT, G_MAXINT}, FALSE},
    {{0, 0, 33, 17}, FALSE},    /* the frame itself */
    {{40, 3, 10, 5}, TRUE},
    {{3, 20, 5, 5}, TRUE},
    {{G_MAXINT, G_MAXINT, G_MAXINT, G_MAXINT}, TRUE},
  };
  static const gchar *const formats[] = { "RGBA", "I420", "Y41B", "NV16",
    "P016_LE"
  };
  guint f, c, a;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstVideoInfo info = video_info (formats[f], 33, 17);
    GstHarness *h = element_harness_new ("cpu", formats[f], 33, 17);
    GstBuffer *input = random_frame (&info, 800 + f);
    GstBuffer *flat = gst_buffer_new_allocate (NULL, info.size, NULL);
    GbParams params = params_make (2.0, 0, GB_ALGORITHM_AUTO,
        GB_BORDER_CLAMP);
    GbParams whole = params;
    GstBuffer *output;

    for (c = 0; c < G_N_ELEMENTS (cases); c++) {
      params.region = cases[c].region;
      params.border = (GbBorder) (c % 3);
      element_set_params (h->element, &params);
      if (cases[c].outside) {
        gchar *what = g_strdup_printf ("region %d,%d %dx%d outside",
            params.region.x, params.region.y, params.region.width,
            params.region.height);
        push_unchanged (h, input, &info, FALSE, what);
        g_free (what);
        continue;
      }
      output = push_and_check (h, input, &info, &params);
      fail_unless (max_difference_outside (output, input, &info,
              &params) == 0);
      gst_buffer_unref (output);
    }

    /* width or height 0: the whole frame, wherever x and y are */
    params.border = GB_BORDER_MIRROR;
    whole.border = GB_BORDER_MIRROR;
    for (c = 0; c < 2; c++) {
      params.region = (GbRect) {
      5, 3, c == 0 ? 0 : 11, c == 0 ? 7 : 0};
      element_set_params (h->element, &params);
      gst_buffer_unref (push_and_check (h, input, &info, &whole));
    }

    /* every algorithm, and a sharpened region */
    params.region = (GbRect) {
    5, 3, 11, 7};
    for (a = GB_ALGORITHM_AUTO; a <= GB_ALGORITHM_LAST; a++) {
      params.algorithm = (GbAlgorithm) a;
      element_set_params (h->element, &params);
      gst_buffer_unref (push_and_check (h, input, &info, &params));
    }
    params.algorithm = GB_ALGORITHM_AUTO;
    params.sharpen = 0.8;
    element_set_params (h->element, &params);
    gst_buffer_unref (push_and_check (h, input, &info, &params));
    params.sharpen = 0.0;

    /* the apron is read from around the region, not from the border rule:
     * a flat frame stays flat with zero borders where the region lies at
     * least a radius (4 at sigma 1) from the frame's edges on every plane */
    gst_buffer_memset (flat, 0, 0x80, info.size);
    params = params_make (1.0, 0, GB_ALGORITHM_AUTO, GB_BORDER_ZERO);
    params.region = (GbRect) {
    8, 6, 16, 4};
    element_set_params (h->element, &params);
    push_unchanged (h, flat, &info, FALSE, "flat frame, region, zero border");
    /* while a region at the frame's edge darkens there, as it should */
    params.region.x = 0;
    element_set_params (h->element, &params);
    gst_buffer_unref (push_and_check (h, flat, &info, &params));

    gst_buffer_unref (flat);
    gst_buffer_unref (input);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* On subsampled chroma the region widens to the chroma grid: on I420 the
 * luma column and row just outside odd coordinates change too, as the chroma
 * sample they share does; a region moved while playing applies from the
 * next buffer. */
GST_START_TEST (test_region_chroma_grid)
{
  GstVideoInfo info = video_info ("I420", 33, 17);
  GstHarness *h = element_harness_new ("cpu", "I420", 33, 17);
  GstBuffer *input = random_frame (&info, 900);
  GbParams params = params_make (1.5, 0, GB_ALGORITHM_AUTO, GB_BORDER_CLAMP);
  GbParams exact_region;
  GstBuffer *output, *last;
  GstVideoFrame in_frame, out_frame;
  gint x, y, changed_left = 0, changed_top = 0;

  params.region = (GbRect) {
  5, 3, 9, 7};
  element_set_params (h->element, &params);
  output = push_and_check (h, input, &info, &params);

  /* luma (plane 0) covers [4, 14) x [2, 10): the even grid around it */
  exact_region = params;
  exact_region.region = (GbRect) {
  4, 2, 10, 8};
  fail_unless_equals_int (max_difference_outside (output, input, &info,
          &exact_region), 0);
  fail_unless (gst_video_frame_map (&in_frame, &info, input, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&out_frame, &info, output, GST_MAP_READ));
  for (y = 2; y < 10; y++)
    changed_left += GST_VIDEO_FRAME_COMP_DATA (&in_frame, 0)[y *
        GST_VIDEO_FRAME_COMP_STRIDE (&in_frame, 0) + 4] !=
        GST_VIDEO_FRAME_COMP_DATA (&out_frame, 0)[y *
        GST_VIDEO_FRAME_COMP_STRIDE (&out_frame, 0) + 4];
  for (x = 4; x < 14; x++)
    changed_top += GST_VIDEO_FRAME_COMP_DATA (&in_frame, 0)[2 *
        GST_VIDEO_FRAME_COMP_STRIDE (&in_frame, 0) + x] !=
        GST_VIDEO_FRAME_COMP_DATA (&out_frame, 0)[2 *
        GST_VIDEO_FRAME_COMP_STRIDE (&out_frame, 0) + x];
  gst_video_frame_unmap (&out_frame);
  gst_video_frame_unmap (&in_frame);
  fail_unless (changed_left > 0, "luma column 4 left unblurred");
  fail_unless (changed_top > 0, "luma row 2 left unblurred");

  /* moved while playing: the next buffer has the new region */
  last = output;
  g_object_set (h->element, "region-x", 20, "region-y", 8, NULL);
  params.region.x = 20;
  params.region.y = 8;
  output = push_and_check (h, input, &info, &params);
  fail_unless (max_difference (output, last, &info) > 0);
  gst_buffer_unref (last);
  last = output;
  g_object_set (h->element, "region-height", 0, NULL);
  params.region.height = 0;
  output = push_and_check (h, input, &info, &params);
  fail_unless (max_difference (output, last, &info) > 0);
  gst_buffer_unref (last);
  gst_buffer_unref (output);

  gst_buffer_unref (input);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_property_change_while_playing)
{
  /* after the common steps: a small sigma with an explicit radius, then
   * the edge-aware blur and its settings (kappa changes nothing on the
   * CPU, which is always exact), which other algorithms do not use */
  static const PropertyStep cpu_steps[] = {
    {"sigma", "0.7",
        PARAMS_STEP (0.7, 0.7, 2, SEPARABLE, MIRROR, 0.0, 0, 0, 0, 0), TRUE},
    {"algorithm", "edge-aware",
        PARAMS_EDGE_AWARE (0.7, 0.7, 2, MIRROR, 50.0, 2, 2.0), TRUE},
    {"sigma", "3", PARAMS_EDGE_AWARE (3.0, 3.0, 2, MIRROR, 50.0, 2, 2.0),
        TRUE},
    {"sigma-range", "10",
        PARAMS_EDGE_AWARE (3.0, 3.0, 2, MIRROR, 10.0, 2, 2.0), TRUE},
    {"iterations", "3",
        PARAMS_EDGE_AWARE (3.0, 3.0, 2, MIRROR, 10.0, 3, 2.0), TRUE},
    {"kappa", "0", PARAMS_EDGE_AWARE (3.0, 3.0, 2, MIRROR, 10.0, 3, 0.0),
        FALSE},
    {"sigma-y", "1.5",
        PARAMS_EDGE_AWARE (3.0, 1.5, 2, MIRROR, 10.0, 3, 0.0), TRUE},
    {"border", "zero",
        PARAMS_EDGE_AWARE (3.0, 1.5, 2, ZERO, 10.0, 3, 0.0), TRUE},
    {"algorithm", "recursive", {.sigma_x = 3.0,.sigma_y = 1.5,.radius = 2,
              .algorithm = GB_ALGORITHM_RECURSIVE,.border = GB_BORDER_ZERO,
              .sigma_range = 10.0,.iterations = 3,.kappa = 0.0}, TRUE},
    {"sigma-range", "5", {.sigma_x = 3.0,.sigma_y = 1.5,.radius = 2,
              .algorithm = GB_ALGORITHM_RECURSIVE,.border = GB_BORDER_ZERO,
              .sigma_range = 5.0,.iterations = 3,.kappa = 0.0}, FALSE},
    {"iterations", "1", {.sigma_x = 3.0,.sigma_y = 1.5,.radius = 2,
              .algorithm = GB_ALGORITHM_RECURSIVE,.border = GB_BORDER_ZERO,
              .sigma_range = 5.0,.iterations = 1,.kappa = 0.0}, FALSE},
    {"algorithm", "edge-aware",
        PARAMS_EDGE_AWARE (3.0, 1.5, 2, ZERO, 5.0, 1, 0.0), TRUE},
    {"sigma-range", "100000",
        PARAMS_EDGE_AWARE (3.0, 1.5, 2, ZERO, 100000.0, 1, 0.0), TRUE},
  };
  /* packed, semi-planar and planar subsampled chroma, 16-bit */
  static const gchar *const formats[] = { "RGBA", "NV12", "Y41B",
    "GRAY16_LE"
  };
  guint f;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstVideoInfo info = video_info (formats[f], 33, 17);
    GbParams params = params_make (2.0, 0, GB_ALGORITHM_AUTO,
        GB_BORDER_CLAMP);
    GstHarness *h = element_harness_new ("cpu", formats[f], 33, 17);
    GstBuffer *input = random_frame (&info, 2 + f);
    GstBuffer *last;

    last = push_and_check (h, input, &info, &params);
    last = check_property_steps (h, input, &info, last,
        common_property_steps, n_common_property_steps, push_and_check);
    last = check_property_steps (h, input, &info, last, cpu_steps,
        G_N_ELEMENTS (cpu_steps), push_and_check);

    gst_buffer_unref (last);
    gst_buffer_unref (input);
    gst_harness_teardown (h);
  }
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
    /* planes and sample sizes change too */
    {"I420", 33, 17}, {"P016_LE", 7, 5}, {"NV12", 33, 17}, {"Y41B", 9, 12},
    {"RGBA64_LE", 16, 9}, {"GRAY16_LE", 16, 9}, {"RGBA", 33, 17},
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

/* The new properties are controllable too: amount (to 0, the identity,
 * and back) and the region by timestamp. */
GST_START_TEST (test_controller_sharpen_region)
{
  static const struct
  {
    GstClockTime pts;
    gdouble amount;
    gint region_x;
  } keys[] = {
    {0, 1.0, 0}, {GST_SECOND, 0.0, 4}, {2 * GST_SECOND, 2.5, 20},
    {3 * GST_SECOND, 0.5, 12},
  };
  GstVideoInfo info = video_info ("NV12", 33, 17);
  GstHarness *h = element_harness_new ("cpu", "NV12", 33, 17);
  GstControlSource *amount = gst_interpolation_control_source_new ();
  GstControlSource *region_x = gst_interpolation_control_source_new ();
  guint i;

  g_object_set (h->element, "sigma", -1.5, "region-width", 9,
      "region-height", 7, "region-y", 5, NULL);
  g_object_set (amount, "mode", GST_INTERPOLATION_MODE_NONE, NULL);
  g_object_set (region_x, "mode", GST_INTERPOLATION_MODE_NONE, NULL);
  fail_unless (gst_object_add_control_binding (GST_OBJECT (h->element),
          gst_direct_control_binding_new_absolute (GST_OBJECT (h->element),
              "amount", amount)));
  fail_unless (gst_object_add_control_binding (GST_OBJECT (h->element),
          gst_direct_control_binding_new_absolute (GST_OBJECT (h->element),
              "region-x", region_x)));
  for (i = 0; i < G_N_ELEMENTS (keys); i++) {
    fail_unless (gst_timed_value_control_source_set
        (GST_TIMED_VALUE_CONTROL_SOURCE (amount), keys[i].pts,
            keys[i].amount));
    fail_unless (gst_timed_value_control_source_set
        (GST_TIMED_VALUE_CONTROL_SOURCE (region_x), keys[i].pts,
            keys[i].region_x));
  }

  for (i = 0; i < G_N_ELEMENTS (keys); i++) {
    GstBuffer *input = random_frame (&info, 1100 + i);
    gdouble value;
    gint x;

    GST_BUFFER_PTS (input) = keys[i].pts;
    GST_BUFFER_DURATION (input) = GST_SECOND;
    if (keys[i].amount > 0) {
      GbParams params = params_make (1.5, 0, GB_ALGORITHM_AUTO,
          GB_BORDER_CLAMP);
      params.sharpen = keys[i].amount;
      params.region = (GbRect) {
      keys[i].region_x, 5, 9, 7};
      gst_buffer_unref (push_and_check (h, input, &info, &params));
    } else {
      push_unchanged (h, input, &info, TRUE, "amount 0 by the controller");
    }
    g_object_get (h->element, "amount", &value, "region-x", &x, NULL);
    fail_unless_equals_float (value, keys[i].amount);
    fail_unless_equals_int (x, keys[i].region_x);
    gst_buffer_unref (input);
  }

  gst_object_unref (region_x);
  gst_object_unref (amount);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* --- the edge-aware blur (issue 7) --- */

/* PARAMS_STEP and PARAMS_EDGE_AWARE, the tables' GbParams, are what
 * gb_params_init makes (padding included: static data and the memset of
 * gb_params_init are zero there): a field added to GbParams with a default
 * other than 0 fails here, not in a distant pixel check. */
GST_START_TEST (test_params_tables)
{
  static const GbParams step =
      PARAMS_STEP (2.5, 1.5, 3, SEPARABLE, MIRROR, 0.5, 1, 2, 3, 4);
  static const GbParams edge_aware =
      PARAMS_EDGE_AWARE (2.5, 1.5, 3, ZERO, 12.0, 4, 0.5);
  GbParams expected;

  gb_params_init (&expected, 2.5);
  expected.sigma_y = 1.5;
  expected.radius = 3;
  expected.algorithm = GB_ALGORITHM_SEPARABLE;
  expected.border = GB_BORDER_MIRROR;
  expected.sharpen = 0.5;
  expected.region = (GbRect) {
  1, 2, 3, 4};
  fail_unless (memcmp (&step, &expected, sizeof expected) == 0,
      "PARAMS_STEP differs from gb_params_init's GbParams");

  gb_params_init (&expected, 2.5);
  expected.sigma_y = 1.5;
  expected.radius = 3;
  expected.algorithm = GB_ALGORITHM_EDGE_AWARE;
  expected.border = GB_BORDER_ZERO;
  expected.sigma_range = 12.0;
  expected.iterations = 4;
  expected.kappa = 0.5;
  fail_unless (memcmp (&edge_aware, &expected, sizeof expected) == 0,
      "PARAMS_EDGE_AWARE differs from gb_params_init's GbParams");
}

GST_END_TEST;

/* A frame of three slanted bands, each with its own level in each channel,
 * and a little noise: edges for the edge-aware blur to keep, flat
 * stretches for it to smooth. Row padding stays random. */
static GstBuffer *
banded_frame (const GstVideoInfo * info, guint32 seed)
{
  static const gint levels[] = { 30, 210, 120 };
  GstBuffer *buffer = random_frame (info, seed);
  GbGeometry geometry = geometry_for (info);
  GRand *rand = g_rand_new_with_seed (seed);
  GstVideoFrame frame;
  gint p, x, y, c;

  fail_unless (gst_video_frame_map (&frame, info, buffer, GST_MAP_WRITE));
  for (p = 0; p < geometry.n_planes; p++) {
    const GbPlaneGeometry *plane = &geometry.planes[p];

    for (y = 0; y < plane->height; y++) {
      guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, p)
          + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p);
      for (x = 0; x < plane->width; x++) {
        const gint band = (3 * x + y) * 3 / (3 * plane->width + plane->height);
        for (c = 0; c < plane->channels; c++) {
          const gint i = x * plane->channels + c;
          const gint level = CLAMP ((levels[band] + 50 * c) % 256
              + g_rand_int_range (rand, -6, 7), 0, 255);
          if (geometry.bytes_per_sample == 1)
            row[i] = level;
          else
            ((guint16 *) row)[i] = MIN (level * 257
                + g_rand_int_range (rand, 0, 257), 65535);
        }
      }
    }
  }
  gst_video_frame_unmap (&frame);
  g_rand_free (rand);
  return buffer;
}

/* The edge-aware blur of input with params as documented, one plane at a
 * time through the core's reference filter (gb_edge_aware_cpu): sigma
 * divided by the plane's subsampling, the channels of distance_masks[p]
 * steering its edges, 16-bit differences scaled by 1/257. */
static GstBuffer *
edge_aware_by_plane (GstBuffer * input, const GstVideoInfo * info,
    const GbParams * params, const guint * distance_masks,
    const gint * subsampling)
{
  GbGeometry geometry = geometry_for (info);
  GstBuffer *output = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstVideoFrame in_frame, out_frame;
  gint p;

  fail_unless (gst_video_frame_map (&in_frame, info, input, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&out_frame, info, output,
          GST_MAP_WRITE));
  for (p = 0; p < geometry.n_planes; p++) {
    GbPlaneGeometry plane = geometry.planes[p];
    const GbEdgeAwareParams edge_aware = {
      params->sigma_x / subsampling[p], params->sigma_y / subsampling[p],
      params->sigma_range, params->iterations
    };
    GbError error = { 0 };

    /* distance_masks[p] says which channels steer */
    plane.alpha_mask = 0;
    fail_unless (gb_edge_aware_cpu (&edge_aware, &plane,
            geometry.bytes_per_sample, distance_masks[p],
            geometry.bytes_per_sample == 2 ? 1.0 / 257.0 : 1.0,
            params->border, GST_VIDEO_FRAME_PLANE_DATA (&in_frame, p),
            GST_VIDEO_FRAME_PLANE_STRIDE (&in_frame, p),
            GST_VIDEO_FRAME_PLANE_DATA (&out_frame, p),
            GST_VIDEO_FRAME_PLANE_STRIDE (&out_frame, p), &error) == GB_OK,
        "%s", error.message);
  }
  gst_video_frame_unmap (&out_frame);
  gst_video_frame_unmap (&in_frame);
  return output;
}

/* algorithm=edge-aware on the CPU backend is, bit for bit, the reference
 * filter applied to each plane on its own: RGBA steered by R, G and B (not
 * alpha), gray by its channel, NV12's luma by Y and its UV plane by U and V
 * together, I420's three planes each by itself, chroma with half the
 * sigma; 16-bit samples in 8-bit levels. Every setting (sigmas per axis,
 * sigma-range, iterations, border) reaches the filter; the edges matter
 * (the filter without steering, a plain recursive Gaussian, differs) and
 * for RGBA so does leaving alpha out. Odd sizes: odd chroma planes. */
GST_START_TEST (test_edge_aware_planes)
{
  static const struct
  {
    const gchar *format;
    gint n_planes;
    guint distance_masks[3];
    gint subsampling[3];
  } formats[] = {
    {"RGBA", 1, {0x7}, {1}},
    {"GRAY8", 1, {0x1}, {1}},
    {"NV12", 2, {0x1, 0x3}, {1, 2}},
    {"I420", 3, {0x1, 0x1, 0x1}, {1, 2, 2}},
    {"GRAY16_LE", 1, {0x1}, {1}},
  };
  static const GbParams cases[] = {
    PARAMS_EDGE_AWARE (3.0, 3.0, 0, CLAMP, 20.0, 2, 2.0),
    PARAMS_EDGE_AWARE (2.5, 4.0, 0, MIRROR, 8.0, 3, 0.0),
    PARAMS_EDGE_AWARE (4.0, 1.5, 5, ZERO, 60.0, 1, GB_MAX_KAPPA),
  };
  static const guint no_steering[3] = { 0, 0, 0 };
  static const guint alpha_steering[3] = { 0xf };
  guint f, c;
  gint p;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstVideoInfo info = video_info (formats[f].format, 19, 11);
    GstHarness *h = element_harness_new ("cpu", formats[f].format, 19, 11);
    GstBuffer *input = banded_frame (&info, 1300 + f);

    fail_unless_equals_int (GST_VIDEO_INFO_N_PLANES (&info),
        formats[f].n_planes);
    for (c = 0; c < G_N_ELEMENTS (cases); c++) {
      gint differences[GST_VIDEO_MAX_PLANES];
      GstBuffer *output, *expected, *plain;

      element_set_params (h->element, &cases[c]);
      /* the core's blur too (and outside no region: the whole frame) */
      output = push_and_check (h, input, &info, &cases[c]);
      expected = edge_aware_by_plane (input, &info, &cases[c],
          formats[f].distance_masks, formats[f].subsampling);
      max_plane_differences (output, expected, &info, differences);
      for (p = 0; p < formats[f].n_planes; p++)
        fail_unless (differences[p] == 0, "%s, case %u: plane %d is %d "
            "levels from the reference filter", formats[f].format, c, p,
            differences[p]);

      plain = edge_aware_by_plane (input, &info, &cases[c], no_steering,
          formats[f].subsampling);
      fail_unless (max_difference (output, plain, &info) > 0,
          "%s, case %u: no edge steered the blur", formats[f].format, c);
      gst_buffer_unref (plain);
      if (g_str_equal (formats[f].format, "RGBA")) {
        plain = edge_aware_by_plane (input, &info, &cases[c],
            alpha_steering, formats[f].subsampling);
        fail_unless (max_difference (output, plain, &info) > 0,
            "case %u: alpha steering would change nothing", c);
        gst_buffer_unref (plain);
      }

      gst_buffer_unref (expected);
      gst_buffer_unref (output);
    }
    gst_buffer_unref (input);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* Largest difference between a's and b's samples of plane 0 in the channels
 * of mask (bit c: channel c). */
static gint
max_channel_difference (GstBuffer * a, GstBuffer * b,
    const GstVideoInfo * info, guint mask)
{
  const GbGeometry geometry = geometry_for (info);
  const GbPlaneGeometry *plane = &geometry.planes[0];
  GstVideoFrame frame_a, frame_b;
  gint x, y, c, max = 0;

  fail_unless (gst_video_frame_map (&frame_a, info, a, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&frame_b, info, b, GST_MAP_READ));
  for (y = 0; y < plane->height; y++) {
    const guint8 *row_a = (const guint8 *)
        GST_VIDEO_FRAME_PLANE_DATA (&frame_a, 0)
        + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame_a, 0);
    const guint8 *row_b = (const guint8 *)
        GST_VIDEO_FRAME_PLANE_DATA (&frame_b, 0)
        + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame_b, 0);
    for (x = 0; x < plane->width; x++)
      for (c = 0; c < plane->channels; c++) {
        const gint i = x * plane->channels + c;
        gint difference;

        if (!(mask & (1u << c)))
          continue;
        if (geometry.bytes_per_sample == 1)
          difference = ABS (row_a[i] - row_b[i]);
        else
          difference = ABS (((const guint16 *) row_a)[i]
              - ((const guint16 *) row_b)[i]);
        max = MAX (max, difference);
      }
  }
  gst_video_frame_unmap (&frame_b);
  gst_video_frame_unmap (&frame_a);
  return max;
}

/* A copy of input whose plane-0 channels in mask hold other random bytes. */
static GstBuffer *
with_other_channels (GstBuffer * input, const GstVideoInfo * info,
    guint mask, guint32 seed)
{
  const GbGeometry geometry = geometry_for (info);
  const GbPlaneGeometry *plane = &geometry.planes[0];
  const gint bytes = geometry.bytes_per_sample;
  GstBuffer *copy = gst_buffer_copy_deep (input);
  GRand *rand = g_rand_new_with_seed (seed);
  GstVideoFrame frame;
  gint x, y, c, byte;

  fail_unless (gst_video_frame_map (&frame, info, copy, GST_MAP_WRITE));
  for (y = 0; y < plane->height; y++) {
    guint8 *row = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0)
        + y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
    for (x = 0; x < plane->width; x++)
      for (c = 0; c < plane->channels; c++)
        if (mask & (1u << c))
          for (byte = 0; byte < bytes; byte++)
            row[(x * plane->channels + c) * bytes + byte] =
                g_rand_int_range (rand, 0, 256);
  }
  gst_video_frame_unmap (&frame);
  g_rand_free (rand);
  return copy;
}

/* Alpha and padding channels are blurred along but do not steer the edges:
 * two frames that differ only there come out with the same colour
 * channels, bit for bit, and different alpha. Which channel is alpha (or
 * padding) is written out here for each format that has one, not derived;
 * every other format of the template has none (geometry_for, with which
 * the other tests' references are made, agrees). */
GST_START_TEST (test_edge_aware_alpha)
{
  static const struct
  {
    const gchar *format;
    guint alpha_mask;
  } formats[] = {
    {"RGBA", 0x8}, {"BGRA", 0x8}, {"ARGB", 0x1}, {"ABGR", 0x1},
    {"RGBx", 0x8}, {"BGRx", 0x8}, {"xRGB", 0x1}, {"xBGR", 0x1},
    {"AYUV", 0x1}, {"VUYA", 0x8}, {"RGBA64_LE", 0x8}, {"BGRA64_LE", 0x8},
  };
  static const GbParams params =
      PARAMS_EDGE_AWARE (3.0, 2.0, 0, MIRROR, 15.0, 2, 2.0);
  GstCaps *template = gst_caps_from_string (TEMPLATE_CAPS);
  const GValue *list =
      gst_structure_get_value (gst_caps_get_structure (template, 0), "format");
  guint f, i, n_with_alpha = 0;
  gint p;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstVideoInfo info = video_info (formats[f].format, 17, 9);
    const GbGeometry geometry = geometry_for (&info);
    const guint colour = ((1u << geometry.planes[0].channels) - 1u)
        & ~formats[f].alpha_mask;
    GstHarness *h = element_harness_new ("cpu", formats[f].format, 17, 9);
    GstBuffer *input = banded_frame (&info, 1400 + f);
    GstBuffer *other = with_other_channels (input, &info,
        formats[f].alpha_mask, 1450 + f);
    GstBuffer *output, *other_output;

    fail_unless_equals_int (geometry.n_planes, 1);
    fail_unless_equals_int (geometry.planes[0].alpha_mask,
        formats[f].alpha_mask);
    fail_unless (max_channel_difference (input, other, &info,
            formats[f].alpha_mask) > 0);

    element_set_params (h->element, &params);
    output = push_and_check (h, input, &info, &params);
    other_output = push_and_check (h, other, &info, &params);
    fail_unless_equals_int (max_channel_difference (output, other_output,
            &info, colour), 0);
    fail_unless (max_channel_difference (output, other_output, &info,
            formats[f].alpha_mask) > 0, "%s: alpha not blurred along",
        formats[f].format);

    gst_buffer_unref (other_output);
    gst_buffer_unref (output);
    gst_buffer_unref (other);
    gst_buffer_unref (input);
    gst_harness_teardown (h);
  }

  for (i = 0; i < gst_value_list_get_size (list); i++) {
    const gchar *format =
        g_value_get_string (gst_value_list_get_value (list, i));
    GstVideoInfo info = video_info (format, 17, 9);
    const GbGeometry geometry = geometry_for (&info);
    guint expected = 0;

    for (f = 0; f < G_N_ELEMENTS (formats); f++)
      if (g_str_equal (format, formats[f].format)) {
        expected = formats[f].alpha_mask;
        n_with_alpha++;
      }
    fail_unless_equals_int (geometry.planes[0].alpha_mask, expected);
    for (p = 1; p < geometry.n_planes; p++)
      fail_unless_equals_int (geometry.planes[p].alpha_mask, 0);
  }
  fail_unless_equals_int (n_with_alpha, G_N_ELEMENTS (formats));
  gst_caps_unref (template);
}

GST_END_TEST;

/* The edge-aware blur of a region: exactly the core's, the pixels outside
 * it unchanged (push_and_check), every plane changed inside; sharpening
 * with it too; and a flat frame stays flat (the filter keeps constants to
 * the last bit). */
GST_START_TEST (test_edge_aware_region)
{
  static const GbRect regions[] = {
    {5, 3, 11, 7}, {0, 0, 10, 6}, {25, 12, 20, 20}, {0, 5, 33, 1},
  };
  static const gchar *const formats[] = { "RGBA", "NV12", "I420",
    "GRAY16_LE"
  };
  guint f, r;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstVideoInfo info = video_info (formats[f], 33, 17);
    GstHarness *h = element_harness_new ("cpu", formats[f], 33, 17);
    GstBuffer *input = banded_frame (&info, 1500 + f);
    GstBuffer *flat = gst_buffer_new_allocate (NULL, info.size, NULL);
    GbParams params = PARAMS_EDGE_AWARE (3.0, 3.0, 0, CLAMP, 20.0, 2, 2.0);

    for (r = 0; r < G_N_ELEMENTS (regions); r++) {
      gint differences[GST_VIDEO_MAX_PLANES];
      GstBuffer *output;
      guint p;

      params.region = regions[r];
      params.border = (GbBorder) (r % 3);
      element_set_params (h->element, &params);
      output = push_and_check (h, input, &info, &params);
      fail_unless_equals_int (max_difference_outside (output, input, &info,
              &params), 0);
      max_plane_differences (output, input, &info, differences);
      for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++)
        fail_unless (differences[p] > 0, "%s, region %u: plane %u "
            "unchanged", formats[f], r, p);
      gst_buffer_unref (output);
    }

    /* a negative sigma sharpens with the edge-aware blur */
    params.sharpen = 0.8;
    element_set_params (h->element, &params);
    gst_buffer_unref (push_and_check (h, input, &info, &params));
    params.sharpen = 0.0;

    gst_buffer_memset (flat, 0, 0x80, info.size);
    params.border = GB_BORDER_CLAMP;
    element_set_params (h->element, &params);
    push_unchanged (h, flat, &info, FALSE, "flat frame, edge-aware region");
    params.region.width = 0;
    element_set_params (h->element, &params);
    push_unchanged (h, flat, &info, FALSE, "flat frame, edge-aware");

    gst_buffer_unref (flat);
    gst_buffer_unref (input);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* sigma-range and iterations are controllable: each frame has the values
 * of its timestamp. */
GST_START_TEST (test_controller_edge_aware)
{
  static const struct
  {
    GstClockTime pts;
    gdouble sigma_range;
    gint iterations;
  } keys[] = {
    {0, 50.0, 2}, {GST_SECOND, 5.0, 1}, {2 * GST_SECOND, 400.0, 3},
    {3 * GST_SECOND, 0.5, GB_MAX_ITERATIONS},
  };
  GstVideoInfo info = video_info ("RGBA", 21, 13);
  GstHarness *h = element_harness_new ("cpu", "RGBA", 21, 13);
  GstControlSource *sigma_range = gst_interpolation_control_source_new ();
  GstControlSource *iterations = gst_interpolation_control_source_new ();
  GstBuffer *input = banded_frame (&info, 1600);
  GstBuffer *last = NULL;
  guint i;

  gst_util_set_object_arg (G_OBJECT (h->element), "algorithm", "edge-aware");
  g_object_set (h->element, "sigma", 4.0, NULL);
  g_object_set (sigma_range, "mode", GST_INTERPOLATION_MODE_NONE, NULL);
  g_object_set (iterations, "mode", GST_INTERPOLATION_MODE_NONE, NULL);
  fail_unless (gst_object_add_control_binding (GST_OBJECT (h->element),
          gst_direct_control_binding_new_absolute (GST_OBJECT (h->element),
              "sigma-range", sigma_range)));
  fail_unless (gst_object_add_control_binding (GST_OBJECT (h->element),
          gst_direct_control_binding_new_absolute (GST_OBJECT (h->element),
              "iterations", iterations)));
  for (i = 0; i < G_N_ELEMENTS (keys); i++) {
    fail_unless (gst_timed_value_control_source_set
        (GST_TIMED_VALUE_CONTROL_SOURCE (sigma_range), keys[i].pts,
            keys[i].sigma_range));
    fail_unless (gst_timed_value_control_source_set
        (GST_TIMED_VALUE_CONTROL_SOURCE (iterations), keys[i].pts,
            keys[i].iterations));
  }

  for (i = 0; i < G_N_ELEMENTS (keys); i++) {
    GbParams params = PARAMS_EDGE_AWARE (4.0, 4.0, 0, CLAMP,
        keys[i].sigma_range, keys[i].iterations, GB_DEFAULT_KAPPA);
    GstBuffer *output;
    gdouble range;
    gint n;

    GST_BUFFER_PTS (input) = keys[i].pts;
    GST_BUFFER_DURATION (input) = GST_SECOND;
    output = push_and_check (h, input, &info, &params);
    g_object_get (h->element, "sigma-range", &range, "iterations", &n, NULL);
    fail_unless_equals_float (range, keys[i].sigma_range);
    fail_unless_equals_int (n, keys[i].iterations);
    if (last) {
      fail_unless (max_difference (output, last, &info) > 0,
          "key %u changed nothing", i);
      gst_buffer_unref (last);
    }
    last = output;
  }

  gst_buffer_unref (last);
  gst_buffer_unref (input);
  gst_object_unref (iterations);
  gst_object_unref (sigma_range);
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

  /* the element stopped and started again (a pipeline reused): its warning
   * comes again with its first frame */
  fail_unless (gst_element_set_state (h->element, GST_STATE_NULL)
      == GST_STATE_CHANGE_SUCCESS);
  fail_unless (gst_element_set_state (h->element, GST_STATE_PLAYING)
      == GST_STATE_CHANGE_SUCCESS);
  gst_harness_set_src_caps (h, video_caps ("GRAY8", 16, 9));
  {
    GstBuffer *input = random_frame (&info, 310);

    fail_unless_equals_int (gst_harness_push (h, input), GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (h));
  }
  fail_unless_equals_int (count_messages (bus, GST_MESSAGE_WARNING),
      have_device ? 0 : 1);
  fail_unless_equals_int (count_messages (bus, GST_MESSAGE_ERROR), 0);

  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;


/* --- frames in CUDA memory (issue 6): what CI can check without a GPU --- */

/* Which structures of the caps the sink pad of an element with this
 * backend answers are in CUDA memory: how many, and whether the first is. */
static guint
cuda_memory_structures (const gchar * backend, gboolean * first)
{
  GstElement *element = gst_element_factory_make (ELEMENT, NULL);
  GstPad *pad = gst_element_get_static_pad (element, "sink");
  GstCaps *caps;
  guint i, n = 0;

  gst_util_set_object_arg (G_OBJECT (element), "backend", backend);
  caps = gst_pad_query_caps (pad, NULL);
  for (i = 0; i < gst_caps_get_size (caps); i++) {
    const gboolean cuda = gst_caps_features_contains
        (gst_caps_get_features (caps, i), "memory:CUDAMemory");
    if (i == 0)
      *first = cuda;
    n += cuda;
  }
  gst_caps_unref (caps);
  gst_object_unref (pad);
  gst_object_unref (element);
  return n;
}

/* Built with GStreamer's CUDA library, auto and cuda offer CUDA memory
 * first; backend=cpu offers system memory first (a peer that follows the
 * order gives it) and CUDA memory after, which it maps to the host. */
GST_START_TEST (test_cuda_memory_caps)
{
  /* (not "first": gstcheck's fail_unless_equals_int declares one) */
  gboolean cuda_first = FALSE;
  guint n_cpu = cuda_memory_structures ("cpu", &cuda_first);

  fail_if (cuda_first, "backend=cpu offers CUDA memory first");
#ifdef HAVE_GST_CUDA
  fail_unless (n_cpu > 0);
  fail_unless_equals_int (cuda_memory_structures ("auto", &cuda_first), n_cpu);
  fail_unless (cuda_first, "backend=auto offers system memory first");
  fail_unless_equals_int (cuda_memory_structures ("cuda", &cuda_first), n_cpu);
  fail_unless (cuda_first, "backend=cuda offers system memory first");
#else
  fail_unless_equals_int (n_cpu, 0);
  fail_unless_equals_int (cuda_memory_structures ("auto", &cuda_first), 0);
#endif
}

GST_END_TEST;

#ifdef HAVE_GST_CUDA
/* The bus holds exactly one error, a negotiation error whose text has
 * `text`, and no warning (of a CPU blur that will not happen). */
static void
expect_one_negotiation_error (GstBus * bus, const gchar * text)
{
  GstMessage *message;
  guint errors = 0, warnings = 0;

  while ((message = gst_bus_pop (bus))) {
    if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR) {
      GError *error = NULL;

      gst_message_parse_error (message, &error, NULL);
      fail_unless (g_error_matches (error, GST_CORE_ERROR,
              GST_CORE_ERROR_NEGOTIATION), "%s", error->message);
      fail_unless (strstr (error->message, text) != NULL, "%s",
          error->message);
      g_error_free (error);
      errors++;
    } else if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_WARNING) {
      warnings++;
    }
    gst_message_unref (message);
  }
  fail_unless_equals_int (errors, 1);
  fail_unless_equals_int (warnings, 0);
}
#endif

/* Frames in CUDA memory without a usable device (CI): negotiation fails
 * with an element error that says why, rather than a CPU blur of device
 * memory; one error for the same caps however often the base class tries
 * them (at every buffer), another for another cuda-device-id. Without
 * GStreamer's CUDA library such caps are refused. */
GST_START_TEST (test_cuda_memory_without_device)
{
  GstCaps *caps = gst_caps_from_string ("video/x-raw(memory:CUDAMemory), "
      "format=RGBA, width=16, height=8, framerate=30/1");
  GstVideoInfo info = video_info ("RGBA", 16, 8);
  GstHarness *h = gst_harness_new (ELEMENT);
  GstBus *bus = gst_bus_new ();

  gst_element_set_bus (h->element, bus);
#ifdef HAVE_GST_CUDA
  if (cuda_device_usable ()) {
    /* test-element-cuda checks this machine's CUDA memory */
    GST_INFO ("a CUDA device is usable: nothing to check without one");
    gst_caps_unref (caps);
    goto out;
  }
  gst_harness_set_src_caps (h, caps);
  fail_unless_equals_int (gst_harness_push (h, random_frame (&info, 5)),
      GST_FLOW_NOT_NEGOTIATED);
  fail_unless_equals_int (gst_harness_push (h, random_frame (&info, 6)),
      GST_FLOW_NOT_NEGOTIATED);
  expect_one_negotiation_error (bus, "CUDA memory");
  g_object_set (h->element, "cuda-device-id", 3, NULL);
  fail_unless_equals_int (gst_harness_push (h, random_frame (&info, 7)),
      GST_FLOW_NOT_NEGOTIATED);
  expect_one_negotiation_error (bus, "cuda-device-id 3");
#else
  {
    GstPad *pad = gst_element_get_static_pad (h->element, "sink");
    fail_if (gst_pad_query_accept_caps (pad, caps));
    gst_object_unref (pad);
    gst_caps_unref (caps);
    (void) info;
    goto out;
  }
#endif
out:
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* NV21 of odd height in CUDA memory (GStreamer 1.22's allocator leaves its
 * last chroma row out): refused with one error that says so, with or
 * without a device, however often the base class tries the caps. */
GST_START_TEST (test_cuda_memory_nv21_odd_height)
{
#ifdef HAVE_GST_CUDA
  GstVideoInfo info = video_info ("NV21", 16, 9);
  GstHarness *h = gst_harness_new (ELEMENT);
  GstBus *bus = gst_bus_new ();
  guint i;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps (h, gst_caps_from_string ("video/x-raw(memory:"
          "CUDAMemory), format=NV21, width=16, height=9, framerate=30/1"));
  for (i = 0; i < 3; i++)
    fail_unless_equals_int (gst_harness_push (h, random_frame (&info, i)),
        GST_FLOW_NOT_NEGOTIATED);
  expect_one_negotiation_error (bus, "NV21");

  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
#endif
}

GST_END_TEST;

/* --- allocation (issue 5): no pinned memory without CUDA --- */

/* The element proposes a pinned pool upstream and pins its output only when
 * it blurs with CUDA: with backend=cpu (and auto without a device) neither
 * the allocation query it answers nor the buffers upstream gets from it nor
 * its output buffers are pinned, and the output is the core's blur. With
 * auto on a GPU machine all of them are (the output then within a level). */
GST_START_TEST (test_no_pinned_memory_on_cpu)
{
  static const gchar *const backends[] = { "cpu", "auto" };
  static const gchar *const formats[] = { "RGBA", "I420" };
  const gboolean have_device = cuda_device_usable ();
  guint b, f;

  for (b = 0; b < G_N_ELEMENTS (backends); b++) {
    for (f = 0; f < G_N_ELEMENTS (formats); f++) {
      const gboolean pinned = have_device && g_str_equal (backends[b], "auto");
      GstVideoInfo info = video_info (formats[f], 33, 17);
      GbParams params = params_make (2.0, 0, GB_ALGORITHM_AUTO,
          GB_BORDER_CLAMP);
      GstHarness *h = element_harness_new (backends[b], formats[f], 33, 17);
      GstQuery *query = proposed_allocation (h);
      GstBuffer *input, *output, *expected;
      gint difference;
      guint i;

      fail_unless (allocation_offers_pinned (query) == pinned,
          "backend %s: the element %s pinned memory upstream", backends[b],
          pinned ? "does not offer" : "offers");
      /* it still tells upstream that it reads the video meta */
      fail_unless (gst_query_find_allocation_meta (query,
              GST_VIDEO_META_API_TYPE, NULL));
      for (i = 0; i < gst_query_get_n_allocation_params (query); i++) {
        GstAllocator *allocator = NULL;

        gst_query_parse_nth_allocation_param (query, i, &allocator, NULL);
        fail_unless (allocator_is_pinned (allocator) == pinned);
        if (allocator)
          gst_object_unref (allocator);
      }
      gst_query_unref (query);

      /* the harness asks the element again, as upstream would */
      gst_pad_mark_reconfigure (h->srcpad);
      input = gst_harness_create_buffer (h, info.size);
      fail_unless (buffer_is_pinned (input) == pinned, "backend %s: upstream "
          "buffer %s pinned", backends[b], pinned ? "not" : "");
      fill_frame (input, &info, 500 + b);
      output = push_pull (h, input);
      fail_unless (buffer_is_pinned (output) == pinned, "backend %s: output "
          "buffer %s pinned", backends[b], pinned ? "not" : "");
      expected = reference_blur (input, &info, &params);
      difference = max_difference (output, expected, &info);
      fail_unless (difference <= (pinned ? 1 : 0), "backend %s: %d levels "
          "from the core", backends[b], difference);
      fail_unless (max_difference (output, input, &info) > 0);

      gst_buffer_unref (expected);
      gst_buffer_unref (output);
      gst_buffer_unref (input);
      gst_harness_teardown (h);
    }
  }
}

GST_END_TEST;

/* Downstream's allocator or pool is used as it comes (the element's
 * decide_allocation leaves it alone), and the output is the core's blur. */
GST_START_TEST (test_downstream_allocation)
{
  GstVideoInfo info = video_info ("NV12", 33, 17);
  GbParams params = params_make (2.0, 0, GB_ALGORITHM_AUTO, GB_BORDER_CLAMP);
  GstBuffer *input = random_frame (&info, 600);
  GstBufferPool *pool = gst_video_buffer_pool_new ();
  GstHarness *h;
  GstBuffer *output;

  /* an allocator of downstream's own */
  h = gst_harness_new (ELEMENT);
  gst_util_set_object_arg (G_OBJECT (h->element), "backend", "cpu");
  gst_harness_set_propose_allocator (h, test_allocator_new (), NULL);
  gst_harness_set_src_caps (h, video_caps ("NV12", 33, 17));
  output = push_and_check (h, input, &info, &params);
  fail_unless_equals_int (gst_buffer_n_memory (output), 1);
  fail_unless (gst_memory_is_type (gst_buffer_peek_memory (output, 0),
          TEST_MEMORY_TYPE), "the output is not in downstream's memory");
  gst_buffer_unref (output);
  gst_harness_teardown (h);

  /* a pool of downstream's own */
  h = gst_harness_new (ELEMENT);
  gst_util_set_object_arg (G_OBJECT (h->element), "backend", "cpu");
  harness_offer_pool (h, pool);
  gst_harness_set_src_caps (h, video_caps ("NV12", 33, 17));
  output = push_and_check (h, input, &info, &params);
  fail_unless (output->pool == pool, "the output is not from downstream's "
      "pool");
  fail_if (buffer_is_pinned (output));
  gst_buffer_unref (output);
  gst_harness_teardown (h);
  fail_if (gst_buffer_pool_is_active (pool));

  gst_object_unref (pool);
  gst_buffer_unref (input);
}

GST_END_TEST;

/* 100 cycles NULL -> PLAYING (frames through) -> NULL: every frame is the
 * core's blur, no buffer is pinned on the CPU, and every buffer pool is
 * gone at NULL. */
GST_START_TEST (test_state_cycles_pools)
{
  check_state_cycles ("cpu", "NV12", 33, 17, 100, GB_ALGORITHM_AUTO, 0,
      FALSE);
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
  tcase_add_test (tc, test_new_formats);
  tcase_add_test (tc, test_unsupported_formats);
  tcase_add_test (tc, test_interlaced_refused);
  tcase_add_test (tc, test_tiny_frames);
  tcase_add_test (tc, test_padded_input_strides);
  tcase_add_test (tc, test_passthrough);
  tcase_add_test (tc, test_passthrough_switch_while_streaming);
  tcase_add_test (tc, test_sharpen);
  tcase_add_test (tc, test_identity_settings);
  tcase_add_test (tc, test_region);
  tcase_add_test (tc, test_region_chroma_grid);
  tcase_add_test (tc, test_property_change_while_playing);
  tcase_add_test (tc, test_renegotiation);
  tcase_add_test (tc, test_state_cycles);
  tcase_add_test (tc, test_controller);
  tcase_add_test (tc, test_controller_sharpen_region);
  tcase_add_test (tc, test_params_tables);
  tcase_add_test (tc, test_edge_aware_planes);
  tcase_add_test (tc, test_edge_aware_alpha);
  tcase_add_test (tc, test_edge_aware_region);
  tcase_add_test (tc, test_controller_edge_aware);
  tcase_add_test (tc, test_cuda_missing_device);
  tcase_add_test (tc, test_backend_change_while_playing);
  tcase_add_test (tc, test_auto_backend);
  tcase_add_test (tc, test_cuda_memory_caps);
  tcase_add_test (tc, test_cuda_memory_without_device);
  tcase_add_test (tc, test_cuda_memory_nv21_odd_height);
  tcase_add_test (tc, test_no_pinned_memory_on_cpu);
  tcase_add_test (tc, test_downstream_allocation);
  tcase_add_test (tc, test_state_cycles_pools);
  return s;
}

GST_CHECK_MAIN (cudagaussblur);

/* The element's spatially varying blur (issue 8): sigma-map=roi, tilt-shift,
 * radial and image on the CPU backend.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each output is compared with a reference built independently of the
 * element's own code paths: the map made with the sigma_map.h function
 * and the parameters the element documents, then the CPU core run on it
 * here (gb_blur_set_sigma_map, clamp border). Element and reference are
 * the same CPU core, so they must agree bit for bit. Frames are small and
 * sigma at most 3: the exact superposition costs (2 rmax + 1)^2 a sample,
 * and this suite also runs under valgrind.
 */
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

#include "element_check.h"
#include "sigma_map.h"
#include "superposition.h"

/* The element's param structure (gst/gstroiregions.h). */
#define PARAM_NAME "cudagaussblur"
#define PARAM_SIGMA "sigma"

/* --- maps and references --- */

/* rmax of a map whose largest value is sigma (radius 0): ceil(3 sigma). */
static gint
rmax_of (gdouble sigma)
{
  return (gint) ceil (GB_SUPERPOSITION_CUTOFF * sigma);
}

static gfloat *
map_new (const GstVideoInfo * info)
{
  return g_new0 (gfloat, (gsize) info->width * info->height);
}

static gfloat *
regions_map (const GstVideoInfo * info, const GbSigmaRegion * regions,
    gint n_regions, gdouble feather)
{
  gfloat *map = map_new (info);

  gb_sigma_map_regions (map, info->width, info->height, info->width,
      regions, n_regions, feather);
  return map;
}

static gfloat *
tilt_shift_map (const GstVideoInfo * info, gdouble sigma, gdouble x,
    gdouble y, gdouble angle, gdouble size, gdouble transition)
{
  gfloat *map = map_new (info);

  gb_sigma_map_tilt_shift (map, info->width, info->height, info->width,
      sigma, x, y, angle, size, transition);
  return map;
}

static gfloat *
radial_map (const GstVideoInfo * info, gdouble sigma, gdouble x, gdouble y,
    gdouble size, gdouble transition)
{
  gfloat *map = map_new (info);

  gb_sigma_map_radial (map, info->width, info->height, info->width, sigma,
      x, y, size, transition);
  return map;
}

/* The CPU core's blur of input with map (NULL: none), sigma, radius and
 * algorithm, clamp border, in a new buffer laid out as info says. With a
 * map the algorithm run must be a superposition. */
static GstBuffer *
map_reference (GstBuffer * input, const GstVideoInfo * info,
    const gfloat * map, gdouble sigma, gint radius, GbAlgorithm algorithm)
{
  GbGeometry geometry = geometry_for (info);
  GbParams params = gb_params_make (sigma, radius, algorithm,
      GB_BORDER_CLAMP);
  GstBuffer *expected;
  GbError error = { 0 };
  GbBlur *blur = NULL;

  fail_unless (gb_blur_create (GB_BACKEND_CPU, -1, &geometry, &blur,
          &error) == GB_OK, "%s", error.message);
  if (map)
    fail_unless (gb_blur_set_sigma_map (blur, map, info->width,
            &error) == GB_OK, "%s", error.message);
  fail_unless (gb_blur_set_params (blur, &params, &error) == GB_OK, "%s",
      error.message);
  if (map)
    fail_unless (GB_ALGORITHM_IS_SUPERPOSITION
        (gb_blur_get_effective_algorithm (blur)));
  expected = blur_frame (blur, input, info);
  gb_blur_destroy (blur);
  return expected;
}

/* The superposition of the map: auto, radius 0. Frees map. */
static GstBuffer *
map_reference_take (GstBuffer * input, const GstVideoInfo * info,
    gfloat * map, gdouble sigma)
{
  GstBuffer *expected = map_reference (input, info, map, sigma, 0,
      GB_ALGORITHM_AUTO);

  g_free (map);
  return expected;
}

/* Which pixels of plane 0 differ between a and b (any byte of the pixel):
 * width x height booleans, g_free() them. */
static gboolean *
changed_pixels (GstBuffer * a, GstBuffer * b, const GstVideoInfo * info)
{
  const gint pixel = GST_VIDEO_INFO_COMP_PSTRIDE (info, 0);
  gboolean *changed = g_new0 (gboolean, (gsize) info->width * info->height);
  GstVideoFrame fa, fb;
  gint x, y;

  fail_unless (gst_video_frame_map (&fa, info, a, GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fb, info, b, GST_MAP_READ));
  for (y = 0; y < info->height; y++) {
    const guint8 *ra = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fa, 0)
        + y * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, 0);
    const guint8 *rb = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb, 0)
        + y * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, 0);

    for (x = 0; x < info->width; x++)
      changed[y * info->width + x] =
          memcmp (ra + x * pixel, rb + x * pixel, pixel) != 0;
  }
  gst_video_frame_unmap (&fb);
  gst_video_frame_unmap (&fa);
  return changed;
}

/* Chebyshev distance from the centre of pixel (x, y) to rect's pixel edges
 * [x, x + width) x [y, y + height); 0 inside. */
static gdouble
box_distance (const GbRect * rect, gint x, gint y)
{
  const gdouble cx = x + 0.5, cy = y + 0.5;
  const gdouble dx = MAX (0.0, MAX (rect->x - cx, cx - (rect->x +
              rect->width)));
  const gdouble dy = MAX (0.0, MAX (rect->y - cy, cy - (rect->y +
              rect->height)));

  return MAX (dx, dy);
}

static GstVideoRegionOfInterestMeta *
add_roi (GstBuffer * buffer, const gchar * type, const GbRect * rect)
{
  GstVideoRegionOfInterestMeta *meta =
      gst_buffer_add_video_region_of_interest_meta (buffer, type, rect->x,
      rect->y, rect->width, rect->height);

  fail_unless (meta != NULL);
  return meta;
}

/* A harness of the element on the CPU with sigma-map set. */
static GstHarness *
map_harness_new (const gchar * format, gint width, gint height,
    const gchar * sigma_map)
{
  GstHarness *h = element_harness_new ("cpu", format, width, height);

  gst_util_set_object_arg (G_OBJECT (h->element), "sigma-map", sigma_map);
  return h;
}

/* Pushes input, checks the output equals expected (which it unrefs) and
 * that it is a blur; returns the output. */
static GstBuffer *
push_expect (GstHarness * h, GstBuffer * input, const GstVideoInfo * info,
    GstBuffer * expected, const gchar * what)
{
  GstBuffer *output = push_pull (h, input);
  gint difference = max_difference (output, expected, info);

  fail_unless (difference == 0, "%s (%s %dx%d): %d levels from the "
      "reference", what, GST_VIDEO_INFO_NAME (info), info->width,
      info->height, difference);
  fail_unless (max_difference (output, input, info) > 0,
      "%s: output equals the input", what);
  gst_buffer_unref (expected);
  return output;
}

/* As push_expect, first checking that expected differs from other (which it
 * unrefs): the test tells the two apart. Unrefs the output. */
static void
push_expect_not (GstHarness * h, GstBuffer * input, const GstVideoInfo * info,
    GstBuffer * expected, GstBuffer * other, const gchar * what)
{
  fail_unless (max_difference (expected, other, info) > 0,
      "%s: the reference equals the other one", what);
  gst_buffer_unref (other);
  gst_buffer_unref (push_expect (h, input, info, expected, what));
}

/* Pushes input and checks that the element hands the input buffer itself
 * on, unchanged (its pixels compared with a copy taken before). */
static void
push_expect_same_buffer (GstHarness * h, GstBuffer * input,
    const GstVideoInfo * info, const gchar * what)
{
  GstBuffer *original = gst_buffer_copy_deep (input);
  GstBuffer *output;

  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (input)),
      GST_FLOW_OK);
  output = gst_harness_pull (h);
  fail_unless (output != NULL);
  fail_unless (output == input, "%s: not the input buffer", what);
  fail_unless_equals_int (max_difference (output, original, info), 0);
  gst_buffer_unref (output);
  gst_buffer_unref (original);
}

/* --- 1: roi without regions --- */

GST_START_TEST (test_roi_no_regions_passes_buffer)
{
  static const GbRect box = { 10, 8, 14, 12 };
  GstVideoInfo info = video_info ("RGBA", 64, 48);
  GstHarness *h = map_harness_new ("RGBA", 64, 48, "roi");
  GstBuffer *input = random_frame (&info, 1);
  GstBuffer *car, *face, *output;

  /* no meta at all */
  push_expect_same_buffer (h, input, &info, "no meta");

  /* a region of a type roi-types leaves out */
  gst_util_set_object_arg (G_OBJECT (h->element), "roi-types", "face");
  car = random_frame (&info, 2);
  add_roi (car, "car", &box);
  push_expect_same_buffer (h, car, &info, "car, roi-types=face");

  /* while a face is blurred: the filter, not the meta, passed the car */
  face = random_frame (&info, 3);
  add_roi (face, "face", &box);
  output = push_pull (h, face);
  fail_unless (max_difference (output, face, &info) > 0);
  gst_buffer_unref (output);

  /* and roi-types back to every type blurs the car */
  g_object_set (h->element, "roi-types", NULL, NULL);
  output = push_pull (h, car);
  fail_unless (max_difference (output, car, &info) > 0);
  gst_buffer_unref (output);

  gst_buffer_unref (face);
  gst_buffer_unref (car);
  gst_buffer_unref (input);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* --- 2: one and two regions --- */

static void
check_roi_boxes (const GbRect * boxes, gint n_boxes, guint32 seed)
{
  const gdouble sigma = 2.0, feather = 4.0;
  const gint rmax = rmax_of (sigma);
  GstVideoInfo info = video_info ("RGBA", 80, 60);
  GstHarness *h = map_harness_new ("RGBA", 80, 60, "roi");
  GstBuffer *input = random_frame (&info, seed);
  GbSigmaRegion regions[4];
  GstBuffer *output, *expected;
  gboolean *changed;
  guint n_far = 0;
  gint i, x, y;

  g_object_set (h->element, "sigma", sigma, "roi-feather", feather, NULL);
  for (i = 0; i < n_boxes; i++) {
    add_roi (input, "face", &boxes[i]);
    regions[i].rect = boxes[i];
    regions[i].sigma = sigma;
  }
  expected = map_reference_take (input, &info,
      regions_map (&info, regions, n_boxes, feather), sigma);
  output = push_expect (h, input, &info, expected, "roi");

  changed = changed_pixels (output, input, &info);
  for (y = 0; y < info.height; y++) {
    for (x = 0; x < info.width; x++) {
      gdouble nearest = G_MAXDOUBLE;

      for (i = 0; i < n_boxes; i++)
        nearest = MIN (nearest, box_distance (&boxes[i], x, y));
      if (nearest > feather + rmax) {
        n_far++;
        fail_if (changed[y * info.width + x], "pixel (%d, %d), %g from the "
            "nearest region, changed", x, y, nearest);
      }
    }
  }
  fail_unless (n_far > 0);
  for (i = 0; i < n_boxes; i++) {
    gboolean any = FALSE;

    for (y = boxes[i].y; y < MIN (boxes[i].y + boxes[i].height,
            info.height); y++)
      for (x = boxes[i].x; x < MIN (boxes[i].x + boxes[i].width,
              info.width); x++)
        any = any || changed[y * info.width + x];
    fail_unless (any, "region %d not blurred", i);
  }

  g_free (changed);
  gst_buffer_unref (output);
  gst_buffer_unref (input);
  gst_harness_teardown (h);
}

GST_START_TEST (test_roi_regions)
{
  static const GbRect boxes[] = { {10, 8, 14, 12}, {50, 34, 16, 12} };

  check_roi_boxes (boxes, 1, 11);
  check_roi_boxes (boxes, 2, 12);
  /* one reaching past the frame's corner: clipped */
  {
    static const GbRect corner[] = { {70, 0, 30, 9} };
    check_roi_boxes (corner, 1, 13);
  }
}

GST_END_TEST;

/* --- 3: roi-types --- */

GST_START_TEST (test_roi_types_filter)
{
  static const GbRect face = { 6, 6, 14, 12 }, car = { 40, 4, 20, 14 },
      plate = { 24, 32, 20, 8 };
  const gdouble sigma = 2.0, feather = 4.0;
  GstVideoInfo info = video_info ("RGBA", 64, 48);
  GstHarness *h = map_harness_new ("RGBA", 64, 48, "roi");
  GstBuffer *input = random_frame (&info, 21);
  GbSigmaRegion chosen[2] = { {face, sigma}, {plate, sigma} };
  GbSigmaRegion all[3] = { {face, sigma}, {car, sigma}, {plate, sigma} };
  GstBuffer *expected, *with_car, *output;

  g_object_set (h->element, "sigma", sigma, "roi-feather", feather,
      "roi-types", "face,license-plate", NULL);
  add_roi (input, "face", &face);
  add_roi (input, "car", &car);
  add_roi (input, "license-plate", &plate);

  expected = map_reference_take (input, &info,
      regions_map (&info, chosen, 2, feather), sigma);
  with_car = map_reference_take (input, &info,
      regions_map (&info, all, 3, feather), sigma);
  push_expect_not (h, input, &info, expected, with_car, "face,license-plate");

  /* spaces around the names are trimmed */
  g_object_set (h->element, "roi-types", " license-plate , face ", NULL);
  expected = map_reference_take (input, &info,
      regions_map (&info, chosen, 2, feather), sigma);
  output = push_expect (h, input, &info, expected, "spaced types");
  gst_buffer_unref (output);

  gst_buffer_unref (input);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* --- 4: a region's own sigma --- */

GST_START_TEST (test_roi_param_sigma)
{
  static const GbRect first = { 8, 8, 16, 14 }, second = { 38, 26, 18, 14 };
  const gdouble sigma = 2.5, feather = 3.0;
  GstVideoInfo info = video_info ("RGBA", 64, 48);
  GstHarness *h = map_harness_new ("RGBA", 64, 48, "roi");
  GstBuffer *input = random_frame (&info, 31);
  GbSigmaRegion own[2] = { {first, sigma}, {second, 1.0} };
  GbSigmaRegion uniform[2] = { {first, sigma}, {second, sigma} };
  GstVideoRegionOfInterestMeta *meta;
  GstBuffer *expected, *ignored;

  g_object_set (h->element, "sigma", sigma, "roi-feather", feather, NULL);
  add_roi (input, "face", &first);
  meta = add_roi (input, "face", &second);
  gst_video_region_of_interest_meta_add_param (meta,
      gst_structure_new (PARAM_NAME, PARAM_SIGMA, G_TYPE_DOUBLE, 1.0, NULL));

  expected = map_reference_take (input, &info,
      regions_map (&info, own, 2, feather), sigma);
  ignored = map_reference_take (input, &info,
      regions_map (&info, uniform, 2, feather), sigma);
  push_expect_not (h, input, &info, expected, ignored, "param sigma 1");

  gst_buffer_unref (input);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* --- 5: tilt-shift and radial --- */

GST_START_TEST (test_tilt_shift_radial)
{
  const gdouble sigma = 2.0;
  const gint rmax = rmax_of (sigma);
  GstVideoInfo info = video_info ("RGBA", 96, 72);
  GstHarness *h = map_harness_new ("RGBA", 96, 72, "tilt-shift");
  GstBuffer *input = random_frame (&info, 41);
  GstBuffer *expected, *output;
  gboolean *changed;
  gdouble cy, half_band, cx, radius, half_diagonal;
  guint n_sharp = 0, n_far_changed = 0;
  gint x, y, j;

  /* tilt-shift, horizontal: focus row 32.4, band 28.8 rows */
  g_object_set (h->element, "sigma", sigma, "focus-x", 0.4, "focus-y", 0.45,
      "focus-size", 0.4, "focus-transition", 0.25, NULL);
  expected = map_reference_take (input, &info,
      tilt_shift_map (&info, sigma, 0.4, 0.45, 0.0, 0.4, 0.25), sigma);
  output = push_expect (h, input, &info, expected, "tilt-shift");

  /* rows whose every row within rmax lies inside the band (a pixel of
   * margin) are sigma 0 all round: unchanged, the band's centre row among
   * them */
  changed = changed_pixels (output, input, &info);
  cy = 0.45 * info.height;
  half_band = 0.4 * info.height / 2.0;
  for (y = 0; y < info.height; y++) {
    gboolean sharp = TRUE;

    for (j = y - rmax; j <= y + rmax; j++)
      sharp = sharp && fabs (j + 0.5 - cy) < half_band - 1.0;
    if (!sharp)
      continue;
    n_sharp++;
    for (x = 0; x < info.width; x++)
      fail_if (changed[y * info.width + x], "tilt-shift: (%d, %d) in the "
          "sharp band changed", x, y);
  }
  fail_unless (n_sharp >= 10, "%u sharp rows", n_sharp);
  for (x = 0; x < info.width; x++)
    fail_if (changed[(gint) cy * info.width + x]);
  /* the first and last rows, far from the band, are blurred */
  for (x = 0; x < info.width; x++)
    n_far_changed += changed[x] + changed[(info.height - 1) * info.width + x];
  fail_unless (n_far_changed > 0);
  g_free (changed);
  gst_buffer_unref (output);

  /* at an angle */
  g_object_set (h->element, "focus-angle", 30.0, NULL);
  expected = map_reference_take (input, &info,
      tilt_shift_map (&info, sigma, 0.4, 0.45, 30.0, 0.4, 0.25), sigma);
  gst_buffer_unref (push_expect (h, input, &info, expected,
          "tilt-shift 30 degrees"));

  /* radial: centre (28.8, 43.2), radius 0.35 x 60 = 21 pixels */
  gst_util_set_object_arg (G_OBJECT (h->element), "sigma-map", "radial");
  g_object_set (h->element, "focus-x", 0.3, "focus-y", 0.6, "focus-size",
      0.35, "focus-transition", 0.4, NULL);
  expected = map_reference_take (input, &info,
      radial_map (&info, sigma, 0.3, 0.6, 0.35, 0.4), sigma);
  output = push_expect (h, input, &info, expected, "radial");

  changed = changed_pixels (output, input, &info);
  cx = 0.3 * info.width;
  cy = 0.6 * info.height;
  half_diagonal = hypot (info.width, info.height) / 2.0;
  radius = 0.35 * half_diagonal;
  n_sharp = n_far_changed = 0;
  for (y = 0; y < info.height; y++) {
    for (x = 0; x < info.width; x++) {
      const gdouble d = hypot (x + 0.5 - cx, y + 0.5 - cy);

      if (d < radius - rmax * G_SQRT2 - 1.0) {
        n_sharp++;
        fail_if (changed[y * info.width + x], "radial: (%d, %d) in the "
            "sharp disc changed", x, y);
      } else if (d > radius + 0.4 * half_diagonal + rmax) {
        n_far_changed += changed[y * info.width + x];
      }
    }
  }
  fail_unless (n_sharp > 100, "%u sharp pixels", n_sharp);
  fail_unless (n_far_changed > 0);
  g_free (changed);
  gst_buffer_unref (output);

  gst_buffer_unref (input);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* --- 6: image --- */

/* Writes a P5 PGM of width x height (bytes from gray) to a new temporary
 * file; returns its path (g_free()). */
static gchar *
write_pgm (const guint8 * gray, gint width, gint height)
{
  GError *error = NULL;
  gchar *path = NULL, *header;
  GByteArray *bytes = g_byte_array_new ();
  gint fd = g_file_open_tmp ("cudagaussblur-map-XXXXXX.pgm", &path, &error);

  fail_unless (fd >= 0, "%s", error ? error->message : "");
  g_close (fd, NULL);
  header = g_strdup_printf ("P5\n# sigma map\n%d %d\n255\n", width, height);
  g_byte_array_append (bytes, (const guint8 *) header, strlen (header));
  g_byte_array_append (bytes, gray, width * height);
  fail_unless (g_file_set_contents (path, (const gchar *) bytes->data,
          bytes->len, &error), "%s", error ? error->message : "");
  g_byte_array_unref (bytes);
  g_free (header);
  return path;
}

/* A map image: a bright blob at (bx, by) on a dark ramp. */
static guint8 *
map_image (gint width, gint height, gint bx, gint by)
{
  guint8 *gray = g_new (guint8, width * height);
  gint x, y;

  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++) {
      const gint d2 = (x - bx) * (x - bx) + (y - by) * (y - by);
      gray[y * width + x] = d2 <= 6 ? 255 : (guint8) (x * 60 / width);
    }
  return gray;
}

static GstBuffer *
image_reference (GstBuffer * input, const GstVideoInfo * info,
    gdouble sigma, const guint8 * gray, gint width, gint height)
{
  gfloat *map = map_new (info);

  gb_sigma_map_image (map, info->width, info->height, info->width, sigma,
      gray, width, height, width);
  return map_reference_take (input, info, map, sigma);
}

/* Pops the one message of type (an error or a warning) from element on
 * bus: a resource it cannot read, named location. */
static void
pop_file_message (GstBus * bus, GstElement * element, GstMessageType type,
    const gchar * location)
{
  GstMessage *message = gst_bus_pop_filtered (bus, type);
  GError *error = NULL;
  gchar *debug = NULL;

  fail_unless (message != NULL, "no %s message",
      gst_message_type_get_name (type));
  fail_unless (GST_MESSAGE_SRC (message) == GST_OBJECT (element));
  if (type == GST_MESSAGE_ERROR)
    gst_message_parse_error (message, &error, &debug);
  else
    gst_message_parse_warning (message, &error, &debug);
  fail_unless (g_error_matches (error, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_OPEN_READ), "%s", error->message);
  fail_unless (strstr (error->message, location) != NULL,
      "the message does not name %s: %s", location, error->message);
  GST_INFO ("%s: %s (%s)", gst_message_type_get_name (type), error->message,
      debug);
  g_clear_error (&error);
  g_free (debug);
  gst_message_unref (message);
  fail_unless (gst_bus_pop_filtered (bus, type) == NULL);
}

/* Pushes input, which must fail with GST_FLOW_ERROR and one ERROR message
 * from the element on bus naming location. */
static void
push_expect_file_error (GstHarness * h, GstBus * bus, GstBuffer * input,
    const gchar * location)
{
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (input)),
      GST_FLOW_ERROR);
  pop_file_message (bus, h->element, GST_MESSAGE_ERROR, location);
}

GST_START_TEST (test_image_map)
{
  const gdouble sigma = 3.0;
  const gint mw = 16, mh = 12;
  GstVideoInfo info = video_info ("RGBA", 64, 48);
  GstHarness *h = map_harness_new ("RGBA", 64, 48, "image");
  GstBuffer *input = random_frame (&info, 51);
  guint8 *first = map_image (mw, mh, 4, 3), *second = map_image (mw, mh, 11,
      8);
  gchar *first_path = write_pgm (first, mw, mh);
  gchar *second_path = write_pgm (second, mw, mh);
  gchar *missing = g_strconcat (first_path, ".missing", NULL);
  gchar *location = NULL;
  GstBuffer *expected, *output;
  GstBus *bus = gst_bus_new ();

  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "sigma", sigma, "sigma-map-location", first_path,
      NULL);
  expected = image_reference (input, &info, sigma, first, mw, mh);
  gst_buffer_unref (push_expect (h, input, &info, expected, "image"));

  /* another file while playing: read at the next frame */
  g_object_set (h->element, "sigma-map-location", second_path, NULL);
  expected = image_reference (input, &info, sigma, second, mw, mh);
  output = push_expect (h, input, &info, expected, "second image");
  gst_buffer_unref (output);

  /* the sigma scales the same file */
  g_object_set (h->element, "sigma", 1.5, NULL);
  expected = image_reference (input, &info, 1.5, second, mw, mh);
  gst_buffer_unref (push_expect (h, input, &info, expected, "sigma 1.5"));
  fail_unless_equals_int (gst_bus_have_pending (bus), FALSE);

  /* a file that is not there, while playing: refused with a warning that
   * names it; the property goes back to the file in use, whose map stays,
   * and the frames go on (test_image_missing_file_keeps_failing: with no
   * file read before, an error) */
  g_object_set (h->element, "sigma-map-location", missing, NULL);
  expected = image_reference (input, &info, 1.5, second, mw, mh);
  gst_buffer_unref (push_expect (h, input, &info, expected, "missing file"));
  pop_file_message (bus, h->element, GST_MESSAGE_WARNING, missing);
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL);
  g_object_get (h->element, "sigma-map-location", &location, NULL);
  fail_unless_equals_string (location, second_path);
  g_free (location);
  /* once: the next frame reads nothing */
  expected = image_reference (input, &info, 1.5, second, mw, mh);
  gst_buffer_unref (push_expect (h, input, &info, expected, "after"));
  fail_unless_equals_int (gst_bus_have_pending (bus), FALSE);

  gst_element_set_bus (h->element, NULL);
  gst_harness_teardown (h);

  g_remove (first_path);
  g_remove (second_path);
  g_free (missing);
  g_free (second_path);
  g_free (first_path);
  g_free (second);
  g_free (first);
  gst_object_unref (bus);
  gst_buffer_unref (input);
}

GST_END_TEST;

/* A map file that cannot be read, with none read before, fails every frame
 * until a location can be read, not only the first (test_image_map: one
 * that cannot be read while another's map is in use is refused). The
 * frames fail from the first on: no map may come back from a file that
 * was never read (the second frame had blurred with a stale map, until
 * update_map cleared map_valid on failure). */
GST_START_TEST (test_image_missing_file_keeps_failing)
{
  const gint mw = 16, mh = 12;
  GstVideoInfo info = video_info ("GRAY8", 48, 36);
  GstHarness *h = map_harness_new ("GRAY8", 48, 36, "image");
  GstBuffer *input = random_frame (&info, 52);
  guint8 *gray = map_image (mw, mh, 5, 5);
  gchar *path = write_pgm (gray, mw, mh);
  gchar *missing = g_strconcat (path, ".missing", NULL);
  GstBuffer *expected;
  GstBus *bus = gst_bus_new ();

  gst_element_set_bus (h->element, bus);
  g_object_set (h->element, "sigma-map-location", missing, NULL);
  push_expect_file_error (h, bus, input, missing);
  push_expect_file_error (h, bus, input, missing);

  /* a file that can be read: blurs */
  g_object_set (h->element, "sigma-map-location", path, NULL);
  expected = image_reference (input, &info, 2.0, gray, mw, mh);
  gst_buffer_unref (push_expect (h, input, &info, expected, "image"));

  gst_element_set_bus (h->element, NULL);
  gst_harness_teardown (h);
  g_remove (path);
  g_free (missing);
  g_free (path);
  g_free (gray);
  gst_object_unref (bus);
  gst_buffer_unref (input);
}

GST_END_TEST;

/* --- 7: planar YUV --- */

GST_START_TEST (test_roi_yuv)
{
  static const gchar *const formats[] = { "NV12", "I420" };
  /* odd edges: the chroma planes read the map at even pixels */
  static const GbRect boxes[] = { {11, 7, 21, 15}, {41, 29, 13, 11} };
  const gdouble sigma = 2.0, feather = 3.0;
  guint f;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstVideoInfo info = video_info (formats[f], 64, 48);
    GstHarness *h = map_harness_new (formats[f], 64, 48, "roi");
    GstBuffer *input = random_frame (&info, 61 + f);
    GbSigmaRegion regions[2] = { {boxes[0], sigma}, {boxes[1], sigma} };
    gint differences[GST_VIDEO_MAX_PLANES];
    GstBuffer *expected, *output;
    guint p;

    g_object_set (h->element, "sigma", sigma, "roi-feather", feather, NULL);
    add_roi (input, "face", &boxes[0]);
    add_roi (input, "face", &boxes[1]);
    expected = map_reference_take (input, &info,
        regions_map (&info, regions, 2, feather), sigma);
    output = push_expect (h, input, &info, expected, formats[f]);
    /* every plane blurred */
    max_plane_differences (output, input, &info, differences);
    for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++)
      fail_unless (differences[p] > 0, "%s plane %u unchanged", formats[f],
          p);
    gst_buffer_unref (output);

    /* tilt-shift too */
    gst_util_set_object_arg (G_OBJECT (h->element), "sigma-map",
        "tilt-shift");
    expected = map_reference_take (input, &info,
        tilt_shift_map (&info, sigma, 0.5, 0.5, 0.0, 0.2, 0.3), sigma);
    gst_buffer_unref (push_expect (h, input, &info, expected, "tilt YUV"));

    gst_buffer_unref (input);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* --- 8: changes while playing --- */

/* Pushes input and checks the output equals expected and differs from
 * *last, which it replaces. */
static void
push_step (GstHarness * h, GstBuffer * input, const GstVideoInfo * info,
    GstBuffer * expected, GstBuffer ** last, const gchar * what)
{
  GstBuffer *output = push_expect (h, input, info, expected, what);

  if (*last)
    fail_unless (max_difference (output, *last, info) > 0,
        "%s: the output did not change", what);
  gst_buffer_replace (last, output);
  gst_buffer_unref (output);
}

/* A double property set while playing and the tilt-shift map after it:
 * sigma, focus-x, focus-y, focus-angle, focus-size, focus-transition. */
typedef struct
{
  const gchar *property;
  gdouble value;
  gdouble sigma, x, y, angle, size, transition;
  const gchar *what;
} TiltShiftStep;

/* Applies steps in turn to h (sigma-map=tilt-shift), checking the frame
 * after each with push_step. */
static void
push_tilt_shift_steps (GstHarness * h, GstBuffer * input,
    const GstVideoInfo * info, const TiltShiftStep * steps, guint n_steps,
    GstBuffer ** last)
{
  guint i;

  for (i = 0; i < n_steps; i++) {
    const TiltShiftStep *step = &steps[i];

    g_object_set (h->element, step->property, step->value, NULL);
    push_step (h, input, info, map_reference_take (input, info,
            tilt_shift_map (info, step->sigma, step->x, step->y, step->angle,
                step->size, step->transition), step->sigma), last,
        step->what);
  }
}

/* The element whose sigma-map the test meta's transform sets, once. */
static GstElement *flip_element;
static const gchar *flip_to;

static gboolean
flip_meta_init (G_GNUC_UNUSED GstMeta * meta, G_GNUC_UNUSED gpointer params,
    G_GNUC_UNUSED GstBuffer * buffer)
{
  return TRUE;
}

/* Runs while the base class copies the input's metadata, inside
 * prepare_output_buffer (): after the element read sigma-map there and
 * before transform (), as an application's thread could. */
static gboolean
flip_meta_transform (G_GNUC_UNUSED GstBuffer * dest,
    G_GNUC_UNUSED GstMeta * meta, G_GNUC_UNUSED GstBuffer * buffer,
    G_GNUC_UNUSED GQuark type, G_GNUC_UNUSED gpointer data)
{
  if (flip_to) {
    gst_util_set_object_arg (G_OBJECT (flip_element), "sigma-map", flip_to);
    flip_to = NULL;
  }
  return TRUE;
}

static const GstMetaInfo *
flip_meta_info (void)
{
  static const GstMetaInfo *info;
  static const gchar *tags[] = { NULL };

  if (!info)
    info = gst_meta_register (gst_meta_api_type_register
        ("CudaGaussBlurTestFlipMetaAPI", tags), "CudaGaussBlurTestFlipMeta",
        sizeof (GstMeta), flip_meta_init, NULL, flip_meta_transform);
  return info;
}

/* sigma-map set to roi between prepare_output_buffer () (which collects a
 * frame's regions only under roi) and transform (): the frame is blurred
 * with the setting prepare_output_buffer () saw. transform () had read the
 * new one and applied no regions at all: the frame went out untouched. */
GST_START_TEST (test_sigma_map_switched_during_prepare)
{
  static const GbRect box = { 8, 8, 16, 16 };
  GstVideoInfo info = video_info ("GRAY8", 32, 32);
  GstHarness *h = map_harness_new ("GRAY8", 32, 32, "none");
  GstBuffer *input = random_frame (&info, 81);
  GstBuffer *plain, *roi;

  add_roi (input, "face", &box);
  gst_buffer_add_meta (input, flip_meta_info (), NULL);
  g_object_set (h->element, "sigma", 3.0, NULL);
  /* the frame under sigma-map=none, then under roi (not armed yet) */
  plain = push_pull (h, input);
  gst_util_set_object_arg (G_OBJECT (h->element), "sigma-map", "roi");
  roi = push_pull (h, input);
  fail_unless (max_difference (plain, roi, &info) > 0);
  gst_util_set_object_arg (G_OBJECT (h->element), "sigma-map", "none");

  flip_element = h->element;
  flip_to = "roi";
  gst_buffer_unref (push_expect (h, input, &info, plain, "switched"));
  fail_unless (flip_to == NULL, "the meta's transform did not run");
  /* and the next under roi */
  gst_buffer_unref (push_expect (h, input, &info, roi, "roi"));

  gst_harness_teardown (h);
  gst_buffer_unref (input);
}

GST_END_TEST;

/* Fails the first buffer pushed through the pad with FLUSHING, and says
 * so. */
typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean failed;
} FailOnce;

static GstPadProbeReturn
fail_once_probe (G_GNUC_UNUSED GstPad * pad, GstPadProbeInfo * info,
    gpointer user_data)
{
  FailOnce *once = user_data;
  gboolean failed;

  g_mutex_lock (&once->lock);
  failed = once->failed;
  once->failed = TRUE;
  g_cond_broadcast (&once->cond);
  g_mutex_unlock (&once->lock);
  if (failed)
    return GST_PAD_PROBE_OK;
  gst_buffer_unref (GST_PAD_PROBE_INFO_BUFFER (info));
  GST_PAD_PROBE_INFO_DATA (info) = NULL;
  GST_PAD_PROBE_INFO_FLOW_RETURN (info) = GST_FLOW_FLUSHING;
  return GST_PAD_PROBE_HANDLED;
}

/* A static map's change made while a frame fails before it reaches the map
 * (its wait for the frames in flight returns FLUSHING) applies from the
 * next frame that blurs. transform () had taken the change and lost it:
 * after the flush the old band stayed. */
GST_START_TEST (test_map_change_kept_after_failed_frame)
{
  GstVideoInfo info = video_info ("GRAY8", 32, 32);
  GstHarness *h = map_harness_new ("GRAY8", 32, 32, "tilt-shift");
  GstBuffer *input = random_frame (&info, 91);
  GstPad *srcpad = gst_element_get_static_pad (h->element, "src");
  FailOnce once = { 0 };
  GstSegment segment;
  GstBuffer *output;

  g_mutex_init (&once.lock);
  g_cond_init (&once.cond);
  g_object_set (h->element, "sigma", 5.0, "focus-y", 0.5, "frames-in-flight",
      2, NULL);
  gst_pad_add_probe (srcpad, GST_PAD_PROBE_TYPE_BUFFER, fail_once_probe,
      &once, NULL);
  /* in flight; its push downstream comes back FLUSHING */
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (input)),
      GST_FLOW_OK);
  g_mutex_lock (&once.lock);
  while (!once.failed)
    g_cond_wait (&once.cond, &once.lock);
  g_mutex_unlock (&once.lock);
  /* the band moves; one frame at a time: this frame waits and fails */
  g_object_set (h->element, "focus-y", 0.1, "frames-in-flight", 1, NULL);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (input)),
      GST_FLOW_FLUSHING);
  gst_harness_push_event (h, gst_event_new_flush_start ());
  gst_harness_push_event (h, gst_event_new_flush_stop (TRUE));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  gst_harness_push_event (h, gst_event_new_segment (&segment));
  while ((output = gst_harness_try_pull (h)))
    gst_buffer_unref (output);

  gst_buffer_unref (push_expect (h, input, &info, map_reference_take (input,
              &info, tilt_shift_map (&info, 5.0, 0.5, 0.1, 0.0, 0.2, 0.3),
              5.0), "the new band"));

  gst_object_unref (srcpad);
  gst_harness_teardown (h);
  gst_buffer_unref (input);
  g_cond_clear (&once.cond);
  g_mutex_clear (&once.lock);
}

GST_END_TEST;

GST_START_TEST (test_changes_while_playing)
{
  static const GbRect box = { 12, 10, 18, 14 };
  /* from tilt-shift with sigma 3 and focus 0.5, 0.5, 0, 0.2, 0.3 */
  static const TiltShiftStep tilt_shift_steps[] = {
    {"focus-size", 0.05, 3.0, 0.5, 0.5, 0.0, 0.05, 0.3, "focus-size"},
    {"sigma", 1.5, 1.5, 0.5, 0.5, 0.0, 0.05, 0.3, "tilt-shift sigma"},
    {"focus-transition", 0.1, 1.5, 0.5, 0.5, 0.0, 0.05, 0.1,
        "focus-transition"},
    {"focus-y", 0.7, 1.5, 0.5, 0.7, 0.0, 0.05, 0.1, "focus-y"},
    {"focus-angle", -40.0, 1.5, 0.5, 0.7, -40.0, 0.05, 0.1, "focus-angle"},
  };
  GstVideoInfo info = video_info ("RGBA", 64, 48);
  GstHarness *h = map_harness_new ("RGBA", 64, 48, "roi");
  GstBuffer *input = random_frame (&info, 71);
  GstBuffer *last = NULL, *plain;
  GbSigmaRegion region = { box, 2.0 };

  add_roi (input, "face", &box);
  g_object_set (h->element, "sigma", 2.0, "roi-feather", 4.0, NULL);
  push_step (h, input, &info, map_reference_take (input, &info,
          regions_map (&info, &region, 1, 4.0), 2.0), &last, "roi");

  g_object_set (h->element, "roi-feather", 10.0, NULL);
  push_step (h, input, &info, map_reference_take (input, &info,
          regions_map (&info, &region, 1, 10.0), 2.0), &last, "roi-feather");

  g_object_set (h->element, "sigma", 3.0, NULL);
  region.sigma = 3.0;
  push_step (h, input, &info, map_reference_take (input, &info,
          regions_map (&info, &region, 1, 10.0), 3.0), &last, "roi sigma");

  /* the static maps: each property rebuilds it at the next frame */
  gst_util_set_object_arg (G_OBJECT (h->element), "sigma-map", "tilt-shift");
  push_step (h, input, &info, map_reference_take (input, &info,
          tilt_shift_map (&info, 3.0, 0.5, 0.5, 0.0, 0.2, 0.3), 3.0), &last,
      "tilt-shift");
  /* the same map again */
  gst_buffer_unref (push_expect (h, input, &info, map_reference_take (input,
              &info, tilt_shift_map (&info, 3.0, 0.5, 0.5, 0.0, 0.2, 0.3),
              3.0), "tilt-shift again"));

  push_tilt_shift_steps (h, input, &info, tilt_shift_steps,
      G_N_ELEMENTS (tilt_shift_steps), &last);

  /* no map: the uniform blur, whatever the buffer's metas */
  gst_util_set_object_arg (G_OBJECT (h->element), "sigma-map", "none");
  plain = map_reference (input, &info, NULL, 1.5, 0, GB_ALGORITHM_AUTO);
  push_step (h, input, &info, plain, &last, "none");

  /* radial, made afresh after none */
  gst_util_set_object_arg (G_OBJECT (h->element), "sigma-map", "radial");
  push_step (h, input, &info, map_reference_take (input, &info,
          radial_map (&info, 1.5, 0.5, 0.7, 0.05, 0.1), 1.5), &last,
      "radial");

  g_object_set (h->element, "focus-x", 0.2, NULL);
  push_step (h, input, &info, map_reference_take (input, &info,
          radial_map (&info, 1.5, 0.2, 0.7, 0.05, 0.1), 1.5), &last,
      "radial focus-x");

  /* back to tilt-shift: its map is not the one of before radial */
  gst_util_set_object_arg (G_OBJECT (h->element), "sigma-map", "tilt-shift");
  push_step (h, input, &info, map_reference_take (input, &info,
          tilt_shift_map (&info, 1.5, 0.2, 0.7, -40.0, 0.05, 0.1), 1.5),
      &last, "tilt-shift after radial");

  /* and roi with the region's map */
  gst_util_set_object_arg (G_OBJECT (h->element), "sigma-map", "roi");
  region.sigma = 1.5;
  push_step (h, input, &info, map_reference_take (input, &info,
          regions_map (&info, &region, 1, 10.0), 1.5), &last, "roi again");

  gst_buffer_unref (last);
  gst_buffer_unref (input);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* --- 9: the algorithm and radius properties under a map --- */

GST_START_TEST (test_algorithm_with_map)
{
  const gdouble sigma = 2.0;
  GstVideoInfo info = video_info ("RGBA", 64, 48);
  GstHarness *h = map_harness_new ("RGBA", 64, 48, "tilt-shift");
  GstBuffer *input = random_frame (&info, 81);
  GstBuffer *expected, *separable, *gather;
  gfloat *map = tilt_shift_map (&info, sigma, 0.5, 0.5, 0.0, 0.2, 0.3);
  static const gchar *const others[] = { "separable", "naive", "recursive",
    "edge-aware"
  };
  guint i;

  /* any non-superposition algorithm acts as auto */
  g_object_set (h->element, "sigma", sigma, NULL);
  separable = map_reference (input, &info, NULL, sigma, 0,
      GB_ALGORITHM_SEPARABLE);
  for (i = 0; i < G_N_ELEMENTS (others); i++) {
    gst_util_set_object_arg (G_OBJECT (h->element), "algorithm", others[i]);
    expected = map_reference (input, &info, map, sigma, 0, GB_ALGORITHM_AUTO);
    fail_unless (max_difference (expected, separable, &info) > 0);
    gst_buffer_unref (push_expect (h, input, &info, expected, others[i]));
  }

  /* the superposition ones are run as chosen */
  gst_util_set_object_arg (G_OBJECT (h->element), "algorithm",
      "superposition-scatter");
  expected = map_reference (input, &info, map, sigma, 0,
      GB_ALGORITHM_SUPERPOSITION_SCATTER);
  gst_buffer_unref (push_expect (h, input, &info, expected, "scatter"));

  /* the radius is rmax */
  g_object_set (h->element, "radius", 2, NULL);
  expected = map_reference (input, &info, map, sigma, 2,
      GB_ALGORITHM_SUPERPOSITION_SCATTER);
  gst_buffer_unref (push_expect (h, input, &info, expected, "radius 2"));

  /* without a map, superposition-gather blurs uniformly */
  gst_util_set_object_arg (G_OBJECT (h->element), "sigma-map", "none");
  gst_util_set_object_arg (G_OBJECT (h->element), "algorithm",
      "superposition-gather");
  g_object_set (h->element, "radius", 0, NULL);
  gather = map_reference (input, &info, NULL, sigma, 0,
      GB_ALGORITHM_SUPERPOSITION_GATHER);
  fail_unless (max_difference (gather, separable, &info) > 0);
  gst_buffer_unref (push_expect (h, input, &info, gather, "gather, no map"));

  g_free (map);
  gst_buffer_unref (separable);
  gst_buffer_unref (input);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A radius above 32 is taken as 32 with a map, and without one for the
 * superposition algorithms (the core refuses more). Small gray frames:
 * rmax 32 is 65 x 65 taps. */
GST_START_TEST (test_radius_capped)
{
  const gdouble sigma = 2.0;
  GstVideoInfo info = video_info ("GRAY8", 40, 30);
  GstHarness *h = map_harness_new ("GRAY8", 40, 30, "radial");
  GstBuffer *input = random_frame (&info, 91);
  gfloat *map = radial_map (&info, sigma, 0.5, 0.5, 0.2, 0.3);
  GstBuffer *expected;

  g_object_set (h->element, "sigma", sigma, "radius", 40, NULL);
  expected = map_reference (input, &info, map, sigma,
      GB_SUPERPOSITION_MAX_RADIUS, GB_ALGORITHM_AUTO);
  gst_buffer_unref (push_expect (h, input, &info, expected, "radius 40"));

  gst_util_set_object_arg (G_OBJECT (h->element), "sigma-map", "none");
  gst_util_set_object_arg (G_OBJECT (h->element), "algorithm",
      "superposition-scatter");
  expected = map_reference (input, &info, NULL, sigma,
      GB_SUPERPOSITION_MAX_RADIUS, GB_ALGORITHM_SUPERPOSITION_SCATTER);
  gst_buffer_unref (push_expect (h, input, &info, expected,
          "radius 40, no map"));

  g_free (map);
  gst_buffer_unref (input);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* --- 10: state cycles --- */

typedef struct
{
  GMutex lock;
  GstVideoInfo info;
  GbRect box;
  gdouble sigma, feather;
  GstBuffer *input;             /* the frame in the element */
  gboolean input_has_roi;
  guint n_in, n_out, n_unmatched;
  guint n_blurred, n_passed;    /* outputs as they must be */
  gint worst;
} RoiCycle;

/* Every other frame gets a region of interest. */
static GstPadProbeReturn
roi_cycle_input (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info,
    gpointer user_data)
{
  RoiCycle *cycle = user_data;
  GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER (info);

  g_mutex_lock (&cycle->lock);
  cycle->input_has_roi = cycle->n_in % 2 == 0;
  if (cycle->input_has_roi) {
    buffer = gst_buffer_make_writable (buffer);
    gst_buffer_add_video_region_of_interest_meta (buffer, "face",
        cycle->box.x, cycle->box.y, cycle->box.width, cycle->box.height);
    GST_PAD_PROBE_INFO_DATA (info) = buffer;
  }
  cycle->n_in++;
  gst_buffer_replace (&cycle->input, buffer);
  g_mutex_unlock (&cycle->lock);
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
roi_cycle_output (GstPad * pad G_GNUC_UNUSED, GstPadProbeInfo * info,
    gpointer user_data)
{
  RoiCycle *cycle = user_data;
  GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER (info);

  g_mutex_lock (&cycle->lock);
  cycle->n_out++;
  if (!cycle->input) {
    cycle->n_unmatched++;
  } else if (cycle->input_has_roi) {
    GbSigmaRegion region = { cycle->box, cycle->sigma };
    GstBuffer *expected = map_reference_take (cycle->input, &cycle->info,
        regions_map (&cycle->info, &region, 1, cycle->feather), cycle->sigma);

    cycle->worst = MAX (cycle->worst, max_difference (buffer, expected,
            &cycle->info));
    cycle->n_blurred += buffer != cycle->input
        && max_difference (buffer, cycle->input, &cycle->info) > 0;
    gst_buffer_unref (expected);
  } else {
    cycle->n_passed += buffer == cycle->input;
  }
  gst_buffer_replace (&cycle->input, NULL);
  g_mutex_unlock (&cycle->lock);
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_state_cycles_roi)
{
  const guint n_cycles = 50, n_frames = 2;
  gchar *description = g_strdup_printf ("videotestsrc num-buffers=%u "
      "pattern=snow ! video/x-raw,format=RGBA,width=48,height=32,"
      "framerate=30/1 ! " ELEMENT " name=blur backend=cpu sigma=2 "
      "sigma-map=roi roi-types=face roi-feather=3 ! "
      "fakesink enable-last-sample=false",
      n_frames);
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (description, &error);
  RoiCycle cycle;
  GstBus *bus;
  guint i;

  fail_unless (pipeline != NULL, "%s", error ? error->message : "");
  memset (&cycle, 0, sizeof cycle);
  g_mutex_init (&cycle.lock);
  cycle.info = video_info ("RGBA", 48, 32);
  cycle.box.x = 14;
  cycle.box.y = 9;
  cycle.box.width = 12;
  cycle.box.height = 10;
  cycle.sigma = 2.0;
  cycle.feather = 3.0;

  add_blur_probes (pipeline, roi_cycle_input, roi_cycle_output, &cycle);
  bus = gst_element_get_bus (pipeline);

  for (i = 0; i < n_cycles; i++) {
    play_to_eos (pipeline, bus, i);

    g_mutex_lock (&cycle.lock);
    gst_buffer_replace (&cycle.input, NULL);
    fail_unless_equals_int (cycle.n_in, n_frames);
    fail_unless_equals_int (cycle.n_out, n_frames);
    fail_unless_equals_int (cycle.n_unmatched, 0);
    fail_unless (cycle.worst == 0, "cycle %u: %d levels from the reference",
        i, cycle.worst);
    fail_unless_equals_int (cycle.n_blurred, n_frames / 2);
    fail_unless_equals_int (cycle.n_passed, n_frames / 2);
    cycle.n_in = cycle.n_out = cycle.n_unmatched = 0;
    cycle.n_blurred = cycle.n_passed = 0;
    g_mutex_unlock (&cycle.lock);
  }

  gst_object_unref (bus);
  gst_object_unref (pipeline);
  g_mutex_clear (&cycle.lock);
  g_free (description);
}

GST_END_TEST;

static Suite *
cudagaussblur_sigma_map_suite (void)
{
  Suite *s = suite_create ("cudagaussblur-sigma-map");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_roi_no_regions_passes_buffer);
  tcase_add_test (tc, test_roi_regions);
  tcase_add_test (tc, test_roi_types_filter);
  tcase_add_test (tc, test_roi_param_sigma);
  tcase_add_test (tc, test_tilt_shift_radial);
  tcase_add_test (tc, test_image_map);
  tcase_add_test (tc, test_roi_yuv);
  tcase_add_test (tc, test_changes_while_playing);
  tcase_add_test (tc, test_algorithm_with_map);
  tcase_add_test (tc, test_radius_capped);
  tcase_add_test (tc, test_state_cycles_roi);
  tcase_add_test (tc, test_sigma_map_switched_during_prepare);
  tcase_add_test (tc, test_map_change_kept_after_failed_frame);
  tcase_add_test (tc, test_image_missing_file_keeps_failing);
  return s;
}

GST_CHECK_MAIN (cudagaussblur_sigma_map);

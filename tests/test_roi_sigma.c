/* Where the element's sigma maps come from: regions of interest
 * (gst/gstroiregions.c) and map files (gst/gstsigmamapfile.c), GstCheck,
 * no element.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Both helpers are compiled into this test (the plugin exports neither).
 * Map files are written to temporary files here, PGM by hand and PNG with
 * libpng where the build has it, and removed before each test ends; the
 * expected pixels are written out or computed from the format's own rules.
 */
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

#ifdef HAVE_LIBPNG
#include <png.h>
#endif

#include "gstroiregions.h"
#include "gstsigmamapfile.h"

/* --- regions of interest --- */

static GstVideoRegionOfInterestMeta *
add_roi (GstBuffer * buffer, const gchar * type, guint x, guint y, guint w,
    guint h)
{
  GstVideoRegionOfInterestMeta *meta =
      gst_buffer_add_video_region_of_interest_meta (buffer, type, x, y, w, h);

  fail_unless (meta != NULL);
  return meta;
}

/* The region of regions with rectangle (x, y, w, h), or NULL: metas need
 * not come back in the order they were added. */
static const GbSigmaRegion *
find_region (GArray * regions, gint x, gint y, gint w, gint h)
{
  guint i;

  for (i = 0; i < regions->len; i++) {
    const GbSigmaRegion *region = &g_array_index (regions, GbSigmaRegion, i);
    if (region->rect.x == x && region->rect.y == y && region->rect.width == w
        && region->rect.height == h)
      return region;
  }
  return NULL;
}

static GArray *
regions_new (void)
{
  return g_array_new (FALSE, FALSE, sizeof (GbSigmaRegion));
}

GST_START_TEST (test_collect_no_meta)
{
  GstBuffer *buffer = gst_buffer_new_allocate (NULL, 64, NULL);
  GArray *regions = regions_new ();
  const gchar *const types[] = { "face", NULL };

  fail_unless_equals_int (gst_roi_regions_collect (buffer, 5.0, NULL,
          regions), 0);
  fail_unless_equals_int (gst_roi_regions_collect (buffer, 5.0, types,
          regions), 0);
  fail_unless_equals_int (regions->len, 0);

  /* Other metas are not regions. */
  gst_buffer_add_video_meta (buffer, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_FORMAT_GRAY8, 8, 8);
  fail_unless_equals_int (gst_roi_regions_collect (buffer, 5.0, NULL,
          regions), 0);
  fail_unless_equals_int (regions->len, 0);
  g_array_unref (regions);
  gst_buffer_unref (buffer);
}

GST_END_TEST;

GST_START_TEST (test_collect_types)
{
  GstBuffer *buffer = gst_buffer_new_allocate (NULL, 64, NULL);
  GArray *regions = regions_new ();
  gchar **types = gst_roi_regions_parse_types ("face,license-plate");
  const gchar *const no_types[] = { NULL };
  const gchar *const unknown[] = { "dog", NULL };
  const GbSigmaRegion *region;

  add_roi (buffer, "face", 10, 20, 30, 40);
  add_roi (buffer, "license-plate", 100, 50, 60, 15);
  add_roi (buffer, "car", 0, 0, 320, 200);

  fail_unless_equals_int (gst_roi_regions_collect (buffer, 4.0,
          (const gchar * const *) types, regions), 2);
  fail_unless_equals_int (regions->len, 2);
  region = find_region (regions, 10, 20, 30, 40);
  fail_unless (region != NULL, "the face is missing");
  fail_unless_equals_float (region->sigma, 4.0);
  region = find_region (regions, 100, 50, 60, 15);
  fail_unless (region != NULL, "the license plate is missing");
  fail_unless_equals_float (region->sigma, 4.0);
  fail_unless (find_region (regions, 0, 0, 320, 200) == NULL,
      "the car was taken");

  /* Appends: what was there stays, the count is of the new ones. */
  fail_unless_equals_int (gst_roi_regions_collect (buffer, 2.5, NULL,
          regions), 3);
  fail_unless_equals_int (regions->len, 5);
  fail_unless (find_region (regions, 0, 0, 320, 200) != NULL);
  fail_unless_equals_float (g_array_index (regions, GbSigmaRegion, 4).sigma,
      2.5);

  /* An empty list is every type; an unknown type matches nothing. */
  g_array_set_size (regions, 0);
  fail_unless_equals_int (gst_roi_regions_collect (buffer, 1.0, no_types,
          regions), 3);
  fail_unless_equals_int (gst_roi_regions_collect (buffer, 1.0, unknown,
          regions), 0);
  fail_unless_equals_int (regions->len, 3);

  g_strfreev (types);
  g_array_unref (regions);
  gst_buffer_unref (buffer);
}

GST_END_TEST;

GST_START_TEST (test_collect_sigma_param)
{
  GstBuffer *buffer = gst_buffer_new_allocate (NULL, 64, NULL);
  GArray *regions = regions_new ();
  GstVideoRegionOfInterestMeta *meta;

  /* Each meta at a different x: x identifies it below. */
  meta = add_roi (buffer, "face", 1, 0, 8, 8);
  gst_video_region_of_interest_meta_add_param (meta,
      gst_structure_new ("cudagaussblur", "sigma", G_TYPE_DOUBLE, 7.0,
          NULL));
  meta = add_roi (buffer, "face", 2, 0, 8, 8);
  gst_video_region_of_interest_meta_add_param (meta,
      gst_structure_new ("cudagaussblur", "sigma", G_TYPE_INT, 4, NULL));
  meta = add_roi (buffer, "face", 3, 0, 8, 8);
  gst_video_region_of_interest_meta_add_param (meta,
      gst_structure_new ("cudagaussblur", "sigma", G_TYPE_DOUBLE, -1.0,
          NULL));
  meta = add_roi (buffer, "face", 4, 0, 8, 8);
  gst_video_region_of_interest_meta_add_param (meta,
      gst_structure_new ("other-element", "sigma", G_TYPE_DOUBLE, 9.0,
          NULL));
  meta = add_roi (buffer, "face", 5, 0, 8, 8);
  gst_video_region_of_interest_meta_add_param (meta,
      gst_structure_new ("cudagaussblur", "strength", G_TYPE_DOUBLE, 9.0,
          NULL));
  meta = add_roi (buffer, "face", 6, 0, 8, 8);
  gst_video_region_of_interest_meta_add_param (meta,
      gst_structure_new ("cudagaussblur", "sigma", G_TYPE_STRING, "big",
          NULL));
  meta = add_roi (buffer, "face", 7, 0, 8, 8);
  gst_video_region_of_interest_meta_add_param (meta,
      gst_structure_new ("cudagaussblur", "sigma", G_TYPE_DOUBLE, 0.0,
          NULL));
  add_roi (buffer, "face", 8, 0, 8, 8);
  meta = add_roi (buffer, "face", 9, 0, 8, 8);
  gst_video_region_of_interest_meta_add_param (meta,
      gst_structure_new ("cudagaussblur", "sigma", G_TYPE_DOUBLE, INFINITY,
          NULL));

  fail_unless_equals_int (gst_roi_regions_collect (buffer, 3.0, NULL,
          regions), 9);
  fail_unless_equals_float (find_region (regions, 1, 0, 8, 8)->sigma, 7.0);
  fail_unless_equals_float (find_region (regions, 2, 0, 8, 8)->sigma, 4.0);
  fail_unless_equals_float (find_region (regions, 3, 0, 8, 8)->sigma, 3.0);
  fail_unless_equals_float (find_region (regions, 4, 0, 8, 8)->sigma, 3.0);
  fail_unless_equals_float (find_region (regions, 5, 0, 8, 8)->sigma, 3.0);
  fail_unless_equals_float (find_region (regions, 6, 0, 8, 8)->sigma, 3.0);
  /* 0 is a valid sigma (leave this one sharp), not "absent". */
  fail_unless_equals_float (find_region (regions, 7, 0, 8, 8)->sigma, 0.0);
  fail_unless_equals_float (find_region (regions, 8, 0, 8, 8)->sigma, 3.0);
  /* infinite: the core would refuse it and fail the frame */
  fail_unless_equals_float (find_region (regions, 9, 0, 8, 8)->sigma, 3.0);

  g_array_unref (regions);
  gst_buffer_unref (buffer);
}

GST_END_TEST;

static void
check_types (const gchar * list, const gchar * const *expected)
{
  gchar **types = gst_roi_regions_parse_types (list);
  guint i;

  if (!expected) {
    fail_unless (types == NULL, "\"%s\" gave a list", list);
    return;
  }
  fail_unless (types != NULL, "\"%s\" gave NULL", list);
  fail_unless_equals_int (g_strv_length (types),
      g_strv_length ((gchar **) expected));
  for (i = 0; expected[i]; i++)
    fail_unless_equals_string (types[i], expected[i]);
  g_strfreev (types);
}

GST_START_TEST (test_parse_types)
{
  const gchar *const face[] = { "face", NULL };
  const gchar *const two[] = { "face", "license-plate", NULL };
  const gchar *const three[] = { "face", "license-plate", "car", NULL };
  const gchar *const spaced[] = { "big face", NULL };

  check_types (NULL, NULL);
  check_types ("", NULL);
  check_types (" ", NULL);
  check_types (",", NULL);
  check_types (" , ,, ", NULL);
  check_types ("face", face);
  check_types ("  face\t", face);
  check_types (",face,", face);
  check_types ("face,license-plate", two);
  check_types (" face , license-plate ,, car ", three);
  check_types (" big face ", spaced);
}

GST_END_TEST;

/* --- map files --- */

static gchar *
temp_path (void)
{
  GError *error = NULL;
  gchar *path = NULL;
  gint fd = g_file_open_tmp ("cudagaussblur-map-XXXXXX", &path, &error);

  fail_unless (fd >= 0, "no temporary file: %s",
      error ? error->message : "?");
  g_close (fd, NULL);
  return path;
}

static gchar *
temp_file_with (const gchar * contents, gsize length)
{
  GError *error = NULL;
  gchar *path = temp_path ();

  fail_unless (g_file_set_contents (path, contents, length, &error),
      "could not write %s: %s", path, error ? error->message : "?");
  return path;
}

static void
temp_file_remove (gchar * path)
{
  g_unlink (path);
  g_free (path);
}

/* Loads path and compares with expected, exactly or within tolerance. */
static void
check_file_loads (const gchar * path, gint width, gint height,
    const guint8 * expected, gint tolerance)
{
  GError *error = NULL;
  guint8 *gray = NULL;
  gint loaded_width = 0, loaded_height = 0, i;

  fail_unless (gst_sigma_map_file_load (path, &gray, &loaded_width,
          &loaded_height, &error), "loading failed: %s",
      error ? error->message : "no error");
  fail_unless (error == NULL);
  fail_unless_equals_int (loaded_width, width);
  fail_unless_equals_int (loaded_height, height);
  for (i = 0; i < width * height; i++)
    fail_unless (ABS (gray[i] - expected[i]) <= tolerance,
        "pixel (%d, %d): %u, expected %u", i % width, i / width, gray[i],
        expected[i]);
  g_free (gray);
}

static void
check_loads (const gchar * contents, gsize length, gint width, gint height,
    const guint8 * expected)
{
  gchar *path = temp_file_with (contents, length);

  check_file_loads (path, width, height, expected, 0);
  temp_file_remove (path);
}

/* Loading path fails with a readable error naming the file and containing
 * fragment; the outputs are left alone. */
static void
check_file_fails (const gchar * path, const gchar * fragment)
{
  GError *error = NULL;
  guint8 *gray = (guint8 *) "untouched";
  gint width = -7, height = -7;

  fail_if (gst_sigma_map_file_load (path, &gray, &width, &height, &error),
      "loaded, expected an error about %s", fragment);
  fail_unless (error != NULL);
  fail_unless (error->domain == GST_RESOURCE_ERROR
      || error->domain == G_FILE_ERROR, "error domain %s",
      g_quark_to_string (error->domain));
  fail_unless (strstr (error->message, path) != NULL,
      "the message does not name the file: %s", error->message);
  fail_unless (strstr (error->message, fragment) != NULL,
      "expected \"%s\" in: %s", fragment, error->message);
  fail_unless (strcmp ((const gchar *) gray, "untouched") == 0);
  fail_unless (width == -7 && height == -7);
  g_error_free (error);
}

static void
check_fails (const gchar * contents, gsize length, const gchar * fragment)
{
  gchar *path = temp_file_with (contents, length);

  check_file_fails (path, fragment);
  temp_file_remove (path);
}

GST_START_TEST (test_pgm_binary_8bit)
{
  static const guint8 expected[] = { 0, 1, 127, 128, 254, 255 };
  static const gchar header[] = "P5\n# a comment\n3 # inline\n2\n255\n";
  gchar contents[sizeof (header) - 1 + 6];
  /* maxval 15: each sample v is round (v * 255 / 15) = 17 v. */
  static const gchar small[] = "P5 2 2 15\n\x00\x01\x0e\x0f";
  static const guint8 small_expected[] = { 0, 17, 238, 255 };
  /* maxval 200: round (v * 255 / 200), halves up. */
  static const gchar odd[] = "P5\t3 1\r200\n\x01\x28\x64";
  static const guint8 odd_expected[] = { 1, 51, 128 };

  memcpy (contents, header, sizeof (header) - 1);
  memcpy (contents + sizeof (header) - 1, expected, 6);
  check_loads (contents, sizeof (contents), 3, 2, expected);
  check_loads (small, sizeof (small) - 1, 2, 2, small_expected);
  check_loads (odd, sizeof (odd) - 1, 3, 1, odd_expected);

  /* Data after the image (a second image of the stream) is ignored. */
  {
    static const gchar two[] = "P5 1 1 255\n\x2aP5 1 1 255\n\x01";
    static const guint8 two_expected[] = { 42 };
    check_loads (two, sizeof (two) - 1, 1, 1, two_expected);
  }
}

GST_END_TEST;

GST_START_TEST (test_pgm_binary_16bit)
{
  /* Big-endian samples: 0, 257, 32768, 65535 of 65535; then 1000 of
   * maxval 1000 and 500 (127.5: up to 128). */
  static const gchar full[] = "P5 2 2 65535\n"
      "\x00\x00" "\x01\x01" "\x80\x00" "\xff\xff";
  static const guint8 full_expected[] = { 0, 1, 128, 255 };
  static const gchar partial[] = "P5\n3 1\n1000\n"
      "\x03\xe8" "\x01\xf4" "\x00\x02";
  static const guint8 partial_expected[] = { 255, 128, 1 };

  check_loads (full, sizeof (full) - 1, 2, 2, full_expected);
  check_loads (partial, sizeof (partial) - 1, 3, 1, partial_expected);
}

GST_END_TEST;

GST_START_TEST (test_pgm_ascii)
{
  static const gchar plain[] = "P2\n# written by hand\n4 2\n255\n"
      "0 1 2 3\n252   253\t254\n255";
  static const guint8 plain_expected[] = { 0, 1, 2, 3, 252, 253, 254, 255 };
  static const gchar scaled[] = "P2 3 2 4 0 1 2\n3 4 # comment\n0\n";
  static const guint8 scaled_expected[] = { 0, 64, 128, 191, 255, 0 };
  static const gchar wide[] = "P2 2 1 65535 65535 32768";
  static const guint8 wide_expected[] = { 255, 128 };

  check_loads (plain, sizeof (plain) - 1, 4, 2, plain_expected);
  check_loads (scaled, sizeof (scaled) - 1, 3, 2, scaled_expected);
  check_loads (wide, sizeof (wide) - 1, 2, 1, wide_expected);
}

GST_END_TEST;

GST_START_TEST (test_pgm_malformed)
{
  gchar *path;

  check_fails ("P7 2 2 255\n\x01\x02\x03\x04", 15, "not a PGM");
  check_fails ("GIF89a", 6, "not a PGM");
  check_fails ("", 0, "not a PGM");
  check_fails ("P", 1, "not a PGM");
  check_fails ("P5 4 4 255\n0123456789", 21, "truncated");
  check_fails ("P5 2 2 65535\n\x01\x02\x03\x04\x05\x06", 19, "truncated");
  check_fails ("P5 4 4", 6, "truncated");
  check_fails ("P2 2 2 255 1 2 3", 16, "truncated");
  check_fails ("P5 0 4 255\n", 11, "empty");
  check_fails ("P2 4 0 255\n", 11, "empty");
  check_fails ("P5 20000 1 255\n", 15, "too large");
  check_fails ("P5 1 16385 255\n", 15, "too large");
  check_fails ("P5 99999999999999999999 1 255\n", 30, "width");
  check_fails ("P5 2 2 0\n\x00\x00\x00\x00", 13, "maxval");
  check_fails ("P5 2 2 70000\n", 13, "maxval");
  check_fails ("P5 x 2 255\n", 11, "width");
  check_fails ("P5 2 2 255x\x00\x00\x00\x00", 15, "whitespace");
  check_fails ("P5 2 1 100\n\x10\xc8", 13, "larger than maxval");
  check_fails ("P5 1 1 1000\n\x03\xe9", 14, "larger than maxval");
  check_fails ("P2 2 1 10 3 11", 14, "sample larger than 10");
  check_fails ("P2 2 1 10 3 -1", 14, "sample");

  /* Missing file, a directory: G_FILE_ERROR. */
  path = temp_path ();
  g_unlink (path);
  check_file_fails (path, "Could not open");
  g_free (path);
  path = g_dir_make_tmp ("cudagaussblur-map-XXXXXX", NULL);
  fail_unless (path != NULL);
  check_file_fails (path, path);
  g_rmdir (path);
  g_free (path);
}

GST_END_TEST;

static const guint8 png_signature[8] = {
  0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'
};

#ifdef HAVE_LIBPNG

/* Writes a PNG of width x height rows from data (rows packed, in the
 * colour type's layout; 16-bit samples big-endian). */
static gchar *
write_png (gint width, gint height, gint color_type, gint bit_depth,
    gboolean interlaced, const guint8 * data, const png_color * palette,
    gint n_palette, const guint8 * transparency, gint n_transparency)
{
  gchar *path = temp_path ();
  FILE *file = g_fopen (path, "wb");
  png_structp png;
  png_infop info;
  png_bytep *rows;
  gsize row_bytes;
  gint y, channels;

  fail_unless (file != NULL);
  png = png_create_write_struct (PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  fail_unless (png != NULL);
  info = png_create_info_struct (png);
  fail_unless (info != NULL);
  if (setjmp (png_jmpbuf (png)))
    fail ("libpng could not write %s", path);
  png_init_io (png, file);
  png_set_IHDR (png, info, width, height, bit_depth, color_type,
      interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
      PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (palette)
    png_set_PLTE (png, info, palette, n_palette);
  if (transparency)
    png_set_tRNS (png, info, transparency, n_transparency, NULL);
  /* A gamma chunk, as image editors write one: it must not change how
   * colour becomes gray. */
  png_set_gAMA (png, info, 1.0 / 2.2);
  png_write_info (png, info);

  switch (color_type) {
    case PNG_COLOR_TYPE_RGB:
      channels = 3;
      break;
    case PNG_COLOR_TYPE_RGB_ALPHA:
      channels = 4;
      break;
    case PNG_COLOR_TYPE_GRAY_ALPHA:
      channels = 2;
      break;
    default:
      channels = 1;
      break;
  }
  row_bytes = ((gsize) width * channels * bit_depth + 7) / 8;
  rows = g_new (png_bytep, height);
  for (y = 0; y < height; y++)
    rows[y] = (png_bytep) data + y * row_bytes;
  png_write_image (png, rows);
  png_write_end (png, NULL);
  png_destroy_write_struct (&png, &info);
  g_free (rows);
  fclose (file);
  return path;
}

static guint8
luma (guint r, guint g, guint b)
{
  return (guint8) ((299 * r + 587 * g + 114 * b + 500) / 1000);
}

GST_START_TEST (test_png)
{
  gchar *path;

  /* 8-bit gray, plain and interlaced: exact. */
  {
    static const guint8 gray[] = {
      0, 1, 2, 3, 4, 100, 101, 102, 103, 104, 251, 252, 253, 254, 255
    };
    path = write_png (5, 3, PNG_COLOR_TYPE_GRAY, 8, FALSE, gray, NULL, 0,
        NULL, 0);
    check_file_loads (path, 5, 3, gray, 0);
    temp_file_remove (path);
  }
  {
    guint8 gray[9 * 11];
    gint i;
    for (i = 0; i < 9 * 11; i++)
      gray[i] = (guint8) (i * 37 + 5);
    path = write_png (9, 11, PNG_COLOR_TYPE_GRAY, 8, TRUE, gray, NULL, 0,
        NULL, 0);
    check_file_loads (path, 9, 11, gray, 0);
    temp_file_remove (path);
  }

  /* RGB and RGBA: Rec. 601 luma of the stored values (gray stays gray),
   * alpha ignored. */
  {
    static const guint8 rgb[] = {
      255, 0, 0, 0, 255, 0, 0, 0, 255, 128, 128, 128,
      10, 200, 30, 255, 255, 255, 0, 0, 0, 90, 60, 30
    };
    guint8 expected[8];
    guint8 rgba[8 * 4];
    gint i;
    for (i = 0; i < 8; i++) {
      expected[i] = luma (rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]);
      memcpy (rgba + 4 * i, rgb + 3 * i, 3);
      rgba[4 * i + 3] = (guint8) (i * 31);
    }
    path = write_png (4, 2, PNG_COLOR_TYPE_RGB, 8, FALSE, rgb, NULL, 0,
        NULL, 0);
    check_file_loads (path, 4, 2, expected, 1);
    temp_file_remove (path);
    path = write_png (4, 2, PNG_COLOR_TYPE_RGB_ALPHA, 8, FALSE, rgba, NULL,
        0, NULL, 0);
    check_file_loads (path, 4, 2, expected, 1);
    temp_file_remove (path);
  }

  /* 16-bit gray, gray + alpha: scaled to 8 bits (multiples of 257 are
   * exact), alpha dropped. */
  {
    static const guint8 gray16[] = {
      0x00, 0x00, 0x01, 0x01, 0x80, 0x80, 0xff, 0xff
    };
    static const guint8 expected[] = { 0, 1, 128, 255 };
    static const guint8 gray_alpha[] = { 7, 0, 77, 128, 177, 255 };
    static const guint8 gray_alpha_expected[] = { 7, 77, 177 };
    path = write_png (2, 2, PNG_COLOR_TYPE_GRAY, 16, FALSE, gray16, NULL, 0,
        NULL, 0);
    check_file_loads (path, 2, 2, expected, 0);
    temp_file_remove (path);
    path = write_png (3, 1, PNG_COLOR_TYPE_GRAY_ALPHA, 8, FALSE, gray_alpha,
        NULL, 0, NULL, 0);
    check_file_loads (path, 3, 1, gray_alpha_expected, 0);
    temp_file_remove (path);
  }

  /* 1-bit gray: 0 and 255. Palette (with transparency): the luma of the
   * entries. */
  {
    static const guint8 bits[] = { 0xa0 };    /* 1 0 1 */
    static const guint8 bits_expected[] = { 255, 0, 255 };
    static const png_color palette[] = {
      {0, 0, 0}, {200, 100, 50}, {60, 60, 60}, {0, 0, 255}
    };
    static const guint8 transparency[] = { 0, 128 };
    static const guint8 indices[] = { 3, 2, 1, 0, 1, 2 };
    guint8 expected[6];
    gint i;
    for (i = 0; i < 6; i++)
      expected[i] = luma (palette[indices[i]].red,
          palette[indices[i]].green, palette[indices[i]].blue);
    path = write_png (3, 1, PNG_COLOR_TYPE_GRAY, 1, FALSE, bits, NULL, 0,
        NULL, 0);
    check_file_loads (path, 3, 1, bits_expected, 0);
    temp_file_remove (path);
    path = write_png (3, 2, PNG_COLOR_TYPE_PALETTE, 8, FALSE, indices,
        palette, 4, transparency, 2);
    check_file_loads (path, 3, 2, expected, 1);
    temp_file_remove (path);
  }
}

GST_END_TEST;

GST_START_TEST (test_png_malformed)
{
  gchar junk[sizeof (png_signature) + 32];
  gchar *contents = NULL, *path, *cut;
  gsize length = 0;
  guint8 gray[64 * 64];
  gint i;

  /* A signature and garbage. */
  memcpy (junk, png_signature, sizeof (png_signature));
  memset (junk + sizeof (png_signature), 'x', 32);
  check_fails (junk, sizeof (junk), "bad PNG");
  /* Half a signature. */
  check_fails (junk, 5, "bad PNG signature");

  /* A valid file cut inside its image data (noise: it compresses poorly,
   * so the data spans many bytes). */
  for (i = 0; i < 64 * 64; i++)
    gray[i] = (guint8) (i * 2654435761u >> 24);
  path = write_png (64, 64, PNG_COLOR_TYPE_GRAY, 8, FALSE, gray, NULL, 0,
      NULL, 0);
  fail_unless (g_file_get_contents (path, &contents, &length, NULL));
  fail_unless (length > 1000);
  cut = temp_file_with (contents, length / 2);
  check_file_fails (cut, "bad PNG");
  temp_file_remove (cut);
  temp_file_remove (path);
  g_free (contents);
}

GST_END_TEST;

#else /* !HAVE_LIBPNG */

GST_START_TEST (test_png_not_built)
{
  gchar contents[sizeof (png_signature) + 16];

  memcpy (contents, png_signature, sizeof (png_signature));
  memset (contents + sizeof (png_signature), 0, 16);
  check_fails (contents, sizeof (contents), "without PNG support");
}

GST_END_TEST;

#endif /* HAVE_LIBPNG */

static Suite *
roi_sigma_suite (void)
{
  Suite *s = suite_create ("roi-sigma");
  TCase *tc = tcase_create ("cpu");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_collect_no_meta);
  tcase_add_test (tc, test_collect_types);
  tcase_add_test (tc, test_collect_sigma_param);
  tcase_add_test (tc, test_parse_types);
  tcase_add_test (tc, test_pgm_binary_8bit);
  tcase_add_test (tc, test_pgm_binary_16bit);
  tcase_add_test (tc, test_pgm_ascii);
  tcase_add_test (tc, test_pgm_malformed);
#ifdef HAVE_LIBPNG
  tcase_add_test (tc, test_png);
  tcase_add_test (tc, test_png_malformed);
#else
  tcase_add_test (tc, test_png_not_built);
#endif
  return s;
}

GST_CHECK_MAIN (roi_sigma);

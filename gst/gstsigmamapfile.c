/* Loading a sigma map image (see gstsigmamapfile.h).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The file is read through stdio rather than slurped: its first bytes say
 * which format it is, so a wrong location (a video, say) fails at once
 * instead of being read whole. PGM is parsed here (the format is a few
 * lines of header); PNG goes through libpng when meson found it.
 */
#include "gstsigmamapfile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#ifdef HAVE_LIBPNG
#include <png.h>
#endif

static gboolean format_error (GError ** error, const gchar * location,
    const gchar * format, ...) G_GNUC_PRINTF (3, 4);

/* A malformed file: GST_RESOURCE_ERROR_READ, the file named. Returns
 * FALSE, for `return format_error (...)`. */
static gboolean
format_error (GError ** error, const gchar * location, const gchar * format,
    ...)
{
  gchar *message;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_READ,
      "Sigma map file \"%s\": %s", location, message);
  g_free (message);
  return FALSE;
}

/* After a short read: an I/O error (G_FILE_ERROR from errno) or, if the
 * file simply ended, truncated data. */
static gboolean
read_error (FILE * file, GError ** error, const gchar * location,
    const gchar * what)
{
  if (ferror (file)) {
    const int saved_errno = errno;
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
        "Could not read sigma map file \"%s\": %s", location,
        g_strerror (saved_errno));
    return FALSE;
  }
  return format_error (error, location, "truncated (%s)", what);
}

static gboolean
check_size (guint64 width, guint64 height, GError ** error,
    const gchar * location)
{
  if (width == 0 || height == 0)
    return format_error (error, location, "empty image (%" G_GUINT64_FORMAT
        "x%" G_GUINT64_FORMAT ")", width, height);
  if (width > GST_SIGMA_MAP_FILE_MAX_SIZE
      || height > GST_SIGMA_MAP_FILE_MAX_SIZE)
    return format_error (error, location, "image too large (%"
        G_GUINT64_FORMAT "x%" G_GUINT64_FORMAT ", at most %d on each side)",
        width, height, GST_SIGMA_MAP_FILE_MAX_SIZE);
  return TRUE;
}

static guint8 *
allocate_pixels (guint width, guint height, GError ** error,
    const gchar * location)
{
  guint8 *pixels = g_try_malloc ((gsize) width * height);

  if (!pixels)
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOMEM,
        "Sigma map file \"%s\": not enough memory for %ux%u pixels",
        location, width, height);
  return pixels;
}

/* --- PGM --- */

/* The largest number a header field may hold before it is refused: more
 * than any valid field, small enough not to overflow while parsing. */
#define PGM_NUMBER_LIMIT G_GUINT64_CONSTANT (0xFFFFFFFF)

/* Reads one decimal number of a PGM file, skipping whitespace and '#'
 * comments before it. The character after the digits is left unread: for
 * P5, exactly one whitespace character separates maxval from the data. */
static gboolean
pgm_read_number (FILE * file, const gchar * what, guint64 limit,
    guint64 * value, GError ** error, const gchar * location)
{
  guint64 number = 0;
  int c;

  for (;;) {
    c = getc (file);
    if (c == '#') {
      while (c != '\n' && c != '\r' && c != EOF)
        c = getc (file);
    }
    if (c == EOF)
      return read_error (file, error, location, what);
    if (!g_ascii_isspace (c))
      break;
  }
  if (!g_ascii_isdigit (c))
    return format_error (error, location, "bad %s: '%c' is not a digit",
        what, g_ascii_isprint (c) ? c : '?');
  while (g_ascii_isdigit (c)) {
    number = number * 10 + (c - '0');
    if (number > limit)
      return format_error (error, location, "%s larger than %"
          G_GUINT64_FORMAT, what, limit);
    c = getc (file);
  }
  if (c != EOF)
    ungetc (c, file);
  *value = number;
  return TRUE;
}

static gboolean
load_pgm (FILE * file, gboolean binary, const gchar * location,
    guint8 ** gray, gint * width, gint * height, GError ** error)
{
  guint64 columns, rows, maxval;
  guint8 *pixels = NULL, *scale = NULL, *samples = NULL;
  gsize n_pixels, i;
  guint v;

  if (!pgm_read_number (file, "width", PGM_NUMBER_LIMIT, &columns, error,
          location)
      || !pgm_read_number (file, "height", PGM_NUMBER_LIMIT, &rows, error,
          location)
      || !check_size (columns, rows, error, location)
      || !pgm_read_number (file, "maxval", 65535, &maxval, error, location))
    return FALSE;
  if (maxval == 0)
    return format_error (error, location, "maxval is 0");
  if (binary && !g_ascii_isspace (getc (file)))
    return format_error (error, location,
        "no whitespace between the header and the pixels");

  n_pixels = (gsize) columns * rows;
  pixels = allocate_pixels ((guint) columns, (guint) rows, error, location);
  if (!pixels)
    return FALSE;

  /* Sample to 0..255, rounded: round (v * 255 / maxval). */
  scale = g_malloc (maxval + 1);
  for (v = 0; v <= maxval; v++)
    scale[v] = (guint8) ((v * 255 + maxval / 2) / maxval);

  if (!binary) {
    for (i = 0; i < n_pixels; i++) {
      guint64 sample;
      if (!pgm_read_number (file, "sample", maxval, &sample, error,
              location))
        goto failed;
      pixels[i] = scale[sample];
    }
  } else if (maxval < 256) {
    if (fread (pixels, 1, n_pixels, file) != n_pixels) {
      read_error (file, error, location, "pixel data");
      goto failed;
    }
    for (i = 0; i < n_pixels; i++) {
      if (pixels[i] > maxval) {
        format_error (error, location, "sample %u larger than maxval %"
            G_GUINT64_FORMAT, pixels[i], maxval);
        goto failed;
      }
      pixels[i] = scale[pixels[i]];
    }
  } else {
    /* Two bytes per sample, most significant first; a row at a time. */
    gsize x, y;

    samples = g_malloc (2 * columns);
    for (y = 0; y < rows; y++) {
      if (fread (samples, 2, columns, file) != columns) {
        read_error (file, error, location, "pixel data");
        goto failed;
      }
      for (x = 0; x < columns; x++) {
        const guint sample = (guint) samples[2 * x] << 8 | samples[2 * x + 1];
        if (sample > maxval) {
          format_error (error, location, "sample %u larger than maxval %"
              G_GUINT64_FORMAT, sample, maxval);
          goto failed;
        }
        pixels[y * columns + x] = scale[sample];
      }
    }
  }

  g_free (samples);
  g_free (scale);
  *gray = pixels;
  *width = (gint) columns;
  *height = (gint) rows;
  return TRUE;

failed:
  g_free (samples);
  g_free (scale);
  g_free (pixels);
  return FALSE;
}

/* --- PNG --- */

static const guint8 png_signature[8] = {
  0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'
};

#ifdef HAVE_LIBPNG

/* libpng reports errors through a callback that must not return: the
 * message is kept for the GError and the callback jumps back to
 * load_png's setjmp. */
typedef struct
{
  gchar message[256];
} PngErrorState;

static void
png_error_callback (png_structp png, png_const_charp message)
{
  PngErrorState *state = png_get_error_ptr (png);

  g_strlcpy (state->message, message, sizeof (state->message));
  png_longjmp (png, 1);
}

static void
png_warning_callback (png_structp png, png_const_charp message)
{
  /* Warnings are about ancillary chunks (profiles, text): the pixels are
   * still read, and a map needs nothing else. */
}

static gboolean
load_png (FILE * file, const gchar * location, guint8 ** gray,
    gint * width, gint * height, GError ** error)
{
  PngErrorState state = { "" };
  png_structp png;
  png_infop info;
  /* volatile: changed after setjmp and read after the jump back. */
  guint8 *volatile pixels = NULL;
  png_bytep *volatile rows = NULL;
  png_uint_32 columns, n_rows, y;
  int bit_depth, color_type;

  png = png_create_read_struct (PNG_LIBPNG_VER_STRING, &state,
      png_error_callback, png_warning_callback);
  info = png ? png_create_info_struct (png) : NULL;
  if (!info) {
    png_destroy_read_struct (&png, NULL, NULL);
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOMEM,
        "Sigma map file \"%s\": could not start the PNG reader", location);
    return FALSE;
  }
  if (setjmp (png_jmpbuf (png))) {
    png_destroy_read_struct (&png, &info, NULL);
    g_free (rows);
    g_free (pixels);
    if (ferror (file))
      return read_error (file, error, location, "PNG data");
    return format_error (error, location, "bad PNG: %s", state.message);
  }

  png_init_io (png, file);
  png_set_sig_bytes (png, sizeof (png_signature));
  png_read_info (png, info);
  png_get_IHDR (png, info, &columns, &n_rows, &bit_depth, &color_type, NULL,
      NULL, NULL);
  if (!check_size (columns, n_rows, error, location)) {
    png_destroy_read_struct (&png, &info, NULL);
    return FALSE;
  }

  /* Whatever the colour type, 8-bit gray out. Transparency is no part of
   * a sigma map: alpha is dropped, tRNS left unexpanded. */
  if (color_type == PNG_COLOR_TYPE_PALETTE)
    png_set_palette_to_rgb (png);
  if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8)
    png_set_expand_gray_1_2_4_to_8 (png);
  if (bit_depth == 16) {
#ifdef PNG_READ_SCALE_16_TO_8_SUPPORTED
    png_set_scale_16 (png);
#else
    png_set_strip_16 (png);
#endif
  }
  /* Unconditionally: palette_to_rgb turns a tRNS chunk into alpha. */
  png_set_strip_alpha (png);
  if (color_type & PNG_COLOR_MASK_COLOR) {
    /* Luma of the stored values with Rec. 601 weights (in 1/100000):
     * without a gamma of 1 on both sides libpng would convert in linear
     * light whenever the file has a gAMA or sRGB chunk, so the same
     * colours would give different sigmas from file to file. */
    png_set_gamma_fixed (png, PNG_FP_1, PNG_FP_1);
    png_set_rgb_to_gray_fixed (png, PNG_ERROR_ACTION_NONE, 29900, 58700);
  }
  png_set_interlace_handling (png);
  png_read_update_info (png, info);
  if (png_get_channels (png, info) != 1 || png_get_bit_depth (png, info) != 8)
    png_error (png, "could not convert the image to 8-bit gray");

  pixels = allocate_pixels (columns, n_rows, error, location);
  if (!pixels) {
    png_destroy_read_struct (&png, &info, NULL);
    return FALSE;
  }
  rows = g_new (png_bytep, n_rows);
  for (y = 0; y < n_rows; y++)
    rows[y] = pixels + (gsize) y * columns;
  png_read_image (png, rows);
  /* No png_read_end: the chunks after the pixels (text, IEND) cannot
   * change the map, and a file cut after its last IDAT still has it all. */
  png_destroy_read_struct (&png, &info, NULL);
  g_free (rows);

  *gray = pixels;
  *width = (gint) columns;
  *height = (gint) n_rows;
  return TRUE;
}

#endif /* HAVE_LIBPNG */

gboolean
gst_sigma_map_file_load (const gchar * location, guint8 ** gray,
    gint * width, gint * height, GError ** error)
{
  guint8 magic[sizeof (png_signature)];
  gboolean loaded;
  FILE *file;
  size_t n;

  g_return_val_if_fail (location != NULL, FALSE);
  g_return_val_if_fail (gray != NULL && width != NULL && height != NULL,
      FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  file = g_fopen (location, "rb");
  if (!file) {
    const int saved_errno = errno;
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno),
        "Could not open sigma map file \"%s\": %s", location,
        g_strerror (saved_errno));
    return FALSE;
  }

  n = fread (magic, 1, 2, file);
  if (n == 2 && magic[0] == 'P' && (magic[1] == '2' || magic[1] == '5')) {
    loaded = load_pgm (file, magic[1] == '5', location, gray, width, height,
        error);
  } else if (n == 2 && magic[0] == png_signature[0]
      && magic[1] == png_signature[1]) {
    n += fread (magic + 2, 1, sizeof (magic) - 2, file);
    if (n != sizeof (magic) || memcmp (magic, png_signature, n) != 0) {
      loaded = n != sizeof (magic) && ferror (file)
          ? read_error (file, error, location, "PNG signature")
          : format_error (error, location, "bad PNG signature");
    } else {
#ifdef HAVE_LIBPNG
      loaded = load_png (file, location, gray, width, height, error);
#else
      g_set_error (error, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
          "Sigma map file \"%s\" is a PNG, but this cudagaussblur was built "
          "without PNG support (libpng): use a PGM file", location);
      loaded = FALSE;
#endif
    }
  } else if (n < 2 && ferror (file)) {
    loaded = read_error (file, error, location, "header");
  } else {
    loaded = format_error (error, location,
        "not a PGM (P2, P5) or PNG image");
  }
  fclose (file);
  return loaded;
}

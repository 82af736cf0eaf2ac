/* Loading a sigma map image (sigma-map=image): PGM, and PNG through libpng.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef GST_SIGMA_MAP_FILE_H
#define GST_SIGMA_MAP_FILE_H

#include <gst/gst.h>

G_BEGIN_DECLS

/* Largest width and height accepted: a sigma map is scaled to the frame,
 * and the frame is at most 8192 pixels across. */
#define GST_SIGMA_MAP_FILE_MAX_SIZE 16384

/* Loads the image at location as 8-bit grayscale, rows tightly packed
 * (stride = width); the caller g_free()s *gray. PGM: P2 (ASCII) and P5
 * (binary), maxval up to 65535, scaled to 0..255 with rounding. PNG (when
 * built with libpng, HAVE_LIBPNG): any colour type, palettes expanded,
 * 16-bit samples scaled to 8, alpha dropped, colour converted to Rec. 601
 * luma. On failure returns FALSE, leaves the outputs alone and sets error
 * (G_FILE_ERROR where the file cannot be opened or read, else
 * GST_RESOURCE_ERROR) with a message naming the file. */
gboolean gst_sigma_map_file_load (const gchar * location, guint8 ** gray,
    gint * width, gint * height, GError ** error);

G_END_DECLS

#endif /* GST_SIGMA_MAP_FILE_H */

/* One plane of interleaved 8- or 16-bit samples with padded rows, as the
 * plain-C reference tests build them (test-edge-aware,
 * test-superposition).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef PLANE_IMAGE_H
#define PLANE_IMAGE_H

#include "gaussblur.h"

#include <stddef.h>
#include <stdint.h>

/* Row padding, in bytes: odd for 8-bit rows, so that rows start unaligned;
 * 16-bit rows need an even one. */
#define PADDING_8 3
#define PADDING_16 6

typedef struct
{
  int width, height, channels, bytes;   /* bytes per sample: 1 or 2 */
  size_t stride;
  uint8_t *data;
} Image;

/* Zeroed; data NULL if out of memory. */
Image image_new (int width, int height, int channels, int bytes);
void image_free (Image * image);
unsigned get (const Image * image, int x, int y, int c);
void set (Image * image, int x, int y, int c, unsigned value);

/* The largest difference between two images of one size, and (if
 * differing is not NULL) how many samples differ. */
int max_difference (const Image * a, const Image * b, int *differing);

/* The core's blur of src into dst (the CPU backend) with params; exits
 * with status 2 and the core's message if it fails. */
void image_blur_cpu (const Image * src, Image * dst, const GbParams * params);

/* The tests' own border rule, written apart from the core's
 * gb_border_index: clamp, mirror without repeating the edge, zero (-1). */
int reference_source (int i, int n, GbBorder border);

#endif /* PLANE_IMAGE_H */

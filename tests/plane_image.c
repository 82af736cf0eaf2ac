/* Test planes (see plane_image.h).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "plane_image.h"

#include <stdio.h>
#include <stdlib.h>

Image
image_new (int width, int height, int channels, int bytes)
{
  Image image = { width, height, channels, bytes, 0, NULL };
  image.stride = (size_t) width * channels * bytes
      + (bytes == 1 ? PADDING_8 : PADDING_16);
  image.data = calloc (image.stride * height, 1);
  return image;
}

void
image_free (Image * image)
{
  free (image->data);
  image->data = NULL;
}

unsigned
get (const Image * image, int x, int y, int c)
{
  const uint8_t *row = image->data + (size_t) y * image->stride;
  size_t i = (size_t) x * image->channels + c;
  return image->bytes == 1 ? row[i] : ((const uint16_t *) row)[i];
}

void
set (Image * image, int x, int y, int c, unsigned value)
{
  uint8_t *row = image->data + (size_t) y * image->stride;
  size_t i = (size_t) x * image->channels + c;
  if (image->bytes == 1)
    row[i] = (uint8_t) value;
  else
    ((uint16_t *) row)[i] = (uint16_t) value;
}

int
max_difference (const Image * a, const Image * b, int *differing)
{
  int x, y, c, worst = 0, count = 0;

  for (y = 0; y < a->height; y++)
    for (x = 0; x < a->width; x++)
      for (c = 0; c < a->channels; c++) {
        int d = abs ((int) get (a, x, y, c) - (int) get (b, x, y, c));
        worst = d > worst ? d : worst;
        count += d != 0;
      }
  if (differing)
    *differing = count;
  return worst;
}

int
reference_source (int i, int n, GbBorder border)
{
  if (i >= 0 && i < n)
    return i;
  if (border == GB_BORDER_ZERO)
    return -1;
  if (n == 1 || border == GB_BORDER_CLAMP)
    return i < 0 ? 0 : n - 1;
  while (i < 0 || i >= n)
    i = i < 0 ? -i : 2 * (n - 1) - i;
  return i;
}

void
image_blur_cpu (const Image * src, Image * dst, const GbParams * params)
{
  GbGeometry geometry = { 1, src->bytes, {{src->width, src->height,
                  src->channels, 1, 1, 0}}
  };
  GbImage in = { {src->data}, {src->stride} }, out = { {dst->data},
  {dst->stride}
  };
  GbBlur *blur = NULL;
  GbError error;

  if (gb_blur_create (GB_BACKEND_CPU, -1, &geometry, &blur, &error) != GB_OK
      || gb_blur_set_params (blur, params, &error) != GB_OK
      || gb_blur_process (blur, &in, &out, &error) != GB_OK) {
    fprintf (stderr, "%s blur: %s\n",
        gb_algorithm_name (params->algorithm), error.message);
    exit (2);
  }
  gb_blur_destroy (blur);
}

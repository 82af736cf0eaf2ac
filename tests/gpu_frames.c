/* Host frames of the GPU parity tests (see gpu_frames.h).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "gpu_frames.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t
xorshift32 (uint32_t * state)
{
  *state ^= *state << 13;
  *state ^= *state >> 17;
  *state ^= *state << 5;
  return *state;
}

void
geometry_for (const Layout * layout, Size size, GbGeometry * geometry)
{
  memset (geometry, 0, sizeof *geometry);
  geometry->n_planes = layout->n_planes;
  geometry->bytes_per_sample = layout->bytes_per_sample;
  for (int p = 0; p < layout->n_planes; p++) {
    GbPlaneGeometry *plane = &geometry->planes[p];
    plane->subsampling_x = layout->planes[p].subsampling_x;
    plane->subsampling_y = layout->planes[p].subsampling_y;
    plane->width = (size.width + plane->subsampling_x - 1)
        / plane->subsampling_x;
    plane->height = (size.height + plane->subsampling_y - 1)
        / plane->subsampling_y;
    plane->channels = layout->planes[p].channels;
  }
}

void
frame_alloc (Frame * frame, const GbGeometry * geometry, int padding)
{
  memset (frame, 0, sizeof *frame);
  for (int p = 0; p < geometry->n_planes; p++) {
    const GbPlaneGeometry *plane = &geometry->planes[p];
    frame->row_bytes[p] = (size_t) plane->width * plane->channels
        * geometry->bytes_per_sample;
    frame->heights[p] = plane->height;
    /* 16-bit rows stay 2-byte aligned (as GStreamer's are) */
    frame->image.stride[p] = frame->row_bytes[p] + padding
        * geometry->bytes_per_sample;
    frame->memory[p] = malloc (frame->image.stride[p] * plane->height);
    if (!frame->memory[p]) {
      fprintf (stderr, "out of host memory\n");
      exit (1);
    }
    frame->image.data[p] = frame->memory[p];
  }
}

void
frame_free (Frame * frame)
{
  for (int p = 0; p < GB_MAX_PLANES; p++)
    free (frame->memory[p]);
  memset (frame, 0, sizeof *frame);
}

void
frame_poison (Frame * frame, const GbGeometry * geometry)
{
  for (int p = 0; p < geometry->n_planes; p++)
    memset (frame->memory[p], PADDING_BYTE,
        frame->image.stride[p] * frame->heights[p]);
}

void
frame_fill (Frame * frame, const GbGeometry * geometry, uint32_t * rng_state)
{
  const int bytes = geometry->bytes_per_sample;
  for (int p = 0; p < geometry->n_planes; p++) {
    const GbPlaneGeometry *plane = &geometry->planes[p];
    for (int y = 0; y < plane->height; y++) {
      uint8_t *row = frame->memory[p] + y * frame->image.stride[p];
      for (int s = 0; s < plane->width * plane->channels; s++) {
        const uint32_t smooth = ((s / plane->channels) * 7 + y * 3) & 255;
        const uint32_t value8 = (smooth + (xorshift32 (rng_state) & 127))
            & 255;
        if (bytes == 1)
          row[s] = (uint8_t) value8;
        else
          ((uint16_t *) row)[s] = (uint16_t) (value8 * 257
              + (xorshift32 (rng_state) & 255));
      }
    }
  }
}

int
frame_sample (const Frame * frame, const GbGeometry * geometry, int p, int y,
    int s)
{
  const uint8_t *row = frame->memory[p] + y * frame->image.stride[p];
  return geometry->bytes_per_sample == 1 ? row[s]
      : ((const uint16_t *) row)[s];
}

int
frame_max_difference (const Frame * a, const Frame * b,
    const GbGeometry * geometry)
{
  int worst = 0;
  for (int p = 0; p < geometry->n_planes; p++) {
    const GbPlaneGeometry *plane = &geometry->planes[p];
    for (int y = 0; y < plane->height; y++)
      for (int s = 0; s < plane->width * plane->channels; s++) {
        const int d = abs (frame_sample (a, geometry, p, y, s)
            - frame_sample (b, geometry, p, y, s));
        if (d > worst)
          worst = d;
      }
  }
  return worst;
}

int
frame_padding_intact (const Frame * frame, const GbGeometry * geometry)
{
  for (int p = 0; p < geometry->n_planes; p++)
    for (int y = 0; y < frame->heights[p]; y++)
      for (size_t i = frame->row_bytes[p]; i < frame->image.stride[p]; i++)
        if (frame->memory[p][y * frame->image.stride[p] + i] != PADDING_BYTE)
          return 0;
  return 1;
}

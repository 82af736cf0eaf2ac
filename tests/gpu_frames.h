/* Host frames of the GPU parity tests (test-gpu-formats,
 * test-gpu-superposition): a layout's geometry, planes with odd row
 * paddings poisoned beyond each row, noise fills, plane-by-plane checks.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef GPU_FRAMES_H
#define GPU_FRAMES_H

#include "gaussblur.h"

#include <stddef.h>
#include <stdint.h>

/* What frame_poison writes, and frame_padding_intact expects beyond rows. */
#define PADDING_BYTE 0xA5

/* The plane structure of a GStreamer format. */
typedef struct
{
  const char *name;             /* the GStreamer format it stands for */
  int n_planes;
  int bytes_per_sample;
  struct
  {
    int channels, subsampling_x, subsampling_y;
  } planes[GB_MAX_PLANES];
} Layout;

typedef struct
{
  int width, height;
} Size;

/* A frame of a geometry: planes with odd paddings, poisoned beyond each row. */
typedef struct
{
  uint8_t *memory[GB_MAX_PLANES];
  GbImage image;
  size_t row_bytes[GB_MAX_PLANES];
  int heights[GB_MAX_PLANES];
} Frame;

/* One step of the tests' xorshift generator over *state. */
uint32_t xorshift32 (uint32_t * state);

/* The geometry of layout at size (plane 0's): chroma planes round up. */
void geometry_for (const Layout * layout, Size size, GbGeometry * geometry);

/* Rows of padding samples after each row (16-bit rows stay 2-byte aligned);
 * exits 1 if out of host memory. frame_free zeroes the frame. */
void frame_alloc (Frame * frame, const GbGeometry * geometry, int padding);
void frame_free (Frame * frame);

/* Every byte of every plane, padding included, set to PADDING_BYTE. */
void frame_poison (Frame * frame, const GbGeometry * geometry);

/* Noise over a smooth ramp, over the whole sample range; the noise from
 * xorshift32 (rng_state). */
void frame_fill (Frame * frame, const GbGeometry * geometry,
    uint32_t * rng_state);

/* Sample s of row y of plane p. */
int frame_sample (const Frame * frame, const GbGeometry * geometry, int p,
    int y, int s);

/* The largest difference between two frames of geometry, over all planes. */
int frame_max_difference (const Frame * a, const Frame * b,
    const GbGeometry * geometry);

/* 1 if every padding byte is still PADDING_BYTE. */
int frame_padding_intact (const Frame * frame, const GbGeometry * geometry);

#endif /* GPU_FRAMES_H */

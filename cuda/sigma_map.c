/* Sigma maps for the spatially varying blur (see sigma_map.h).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Positions are pixel centres (x + 0.5, y + 0.5) in double precision; each
 * value is rounded to float once, when it is stored. The largest value is
 * kept as the float stored, so that what a function returns is exactly the
 * map's maximum.
 */
#include "sigma_map.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define DEGREES_TO_RADIANS (3.14159265358979323846 / 180.0)

static double
smoothstep (double t)
{
  if (t <= 0.0)
    return 0.0;
  if (t >= 1.0)
    return 1.0;
  return t * t * (3.0 - 2.0 * t);
}

/* sigma s(d / ramp) for d > 0, 0 for d <= 0; ramp 0 is a step. Shared by the
 * tilt-shift and radial maps, which differ only in how d is measured. */
static double
ramp_value (double sigma, double d, double ramp)
{
  if (!(d > 0.0))
    return 0.0;
  if (!(ramp > 0.0))
    return sigma;
  return sigma * smoothstep (d / ramp);
}

/* Clamps a pixel coordinate computed in double to [0, size] before it
 * becomes an int: rectangles may reach far past the frame. */
static int
clamp_coordinate (double coordinate, int size)
{
  if (!(coordinate > 0.0))
    return 0;
  if (coordinate >= size)
    return size;
  return (int) coordinate;
}

/* The distance along one axis from the centre c to the interval
 * [low, high]: 0 inside. */
static double
axis_distance (double c, double low, double high)
{
  if (c < low)
    return low - c;
  if (c > high)
    return c - high;
  return 0.0;
}

static void
map_clear (float *map, int width, int height, size_t stride)
{
  int y;

  if (stride == (size_t) width) {
    memset (map, 0, sizeof (float) * (size_t) width * height);
    return;
  }
  /* Only the frame's columns: the padding may belong to someone else. */
  for (y = 0; y < height; y++)
    memset (map + (size_t) y * stride, 0, sizeof (float) * width);
}

float
gb_sigma_region_value (double sigma, double dx, double dy, double feather)
{
  const double d2 = dx * dx + dy * dy;

  if (d2 == 0.0)
    return (float) sigma;
  if (!(feather > 0.0) || d2 >= feather * feather)
    return 0.0f;
  return (float) (sigma * (1.0 - smoothstep (sqrt (d2) / feather)));
}

/* The smallest axis_distance of the centres of pixels [first, end) (end >
 * first) from [low, high]: at the pixel nearest the interval. */
static double
nearest_distance (int first, int end, double low, double high)
{
  double best = axis_distance (first + 0.5, low, high);
  int candidates[3], i;

  candidates[0] = end - 1;
  candidates[1] = (int) ceil (low - 0.5);  /* the first centre >= low */
  candidates[2] = candidates[1] - 1;    /* the last one below it */
  for (i = 0; i < 3; i++) {
    const int x = candidates[i] < first ? first : candidates[i] >= end
        ? end - 1 : candidates[i];
    const double d = axis_distance (x + 0.5, low, high);
    if (d < best)
      best = d;
  }
  return best;
}

double
gb_sigma_regions_largest (int width, int height,
    const GbSigmaRegion * regions, int n_regions, double feather)
{
  float largest = 0.0f;
  int i;

  if (!(feather > 0.0))
    feather = 0.0;
  for (i = 0; i < n_regions; i++) {
    const GbSigmaRegion *region = &regions[i];
    const double left = region->rect.x, top = region->rect.y;
    const double right = left + region->rect.width;
    const double bottom = top + region->rect.height;
    int x0, x1, y0, y1;
    float value;

    if (region->rect.width <= 0 || region->rect.height <= 0
        || !(region->sigma > 0.0))
      continue;
    /* The same box of pixels as gb_sigma_map_regions visits; the value
     * falls with the distance, so its largest is at the nearest pixel. */
    x0 = clamp_coordinate (floor (left - feather), width);
    x1 = clamp_coordinate (ceil (right + feather), width);
    y0 = clamp_coordinate (floor (top - feather), height);
    y1 = clamp_coordinate (ceil (bottom + feather), height);
    if (x0 >= x1 || y0 >= y1)
      continue;
    value = gb_sigma_region_value (region->sigma, nearest_distance (x0, x1,
            left, right), nearest_distance (y0, y1, top, bottom), feather);
    if (value > largest)
      largest = value;
  }
  return largest;
}

double
gb_sigma_map_regions (float *map, int width, int height, size_t stride,
    const GbSigmaRegion * regions, int n_regions, double feather)
{
  float largest = 0.0f;
  int i;

  map_clear (map, width, height, stride);
  if (!(feather > 0.0))
    feather = 0.0;

  for (i = 0; i < n_regions; i++) {
    const GbSigmaRegion *region = &regions[i];
    const double sigma = region->sigma;
    double left, right, top, bottom;
    int x0, x1, y0, y1, x, y;

    if (region->rect.width <= 0 || region->rect.height <= 0
        || !(sigma > 0.0))
      continue;
    left = region->rect.x;
    right = left + region->rect.width;
    top = region->rect.y;
    bottom = top + region->rect.height;

    /* The box of pixels whose centre may lie within `feather` of the
     * rectangle (a little generous; the rest get 0 and are skipped):
     * everything outside it stays as cleared. */
    x0 = clamp_coordinate (floor (left - feather), width);
    x1 = clamp_coordinate (ceil (right + feather), width);
    y0 = clamp_coordinate (floor (top - feather), height);
    y1 = clamp_coordinate (ceil (bottom + feather), height);

    for (y = y0; y < y1; y++) {
      const double dy = axis_distance (y + 0.5, top, bottom);
      float *row = map + (size_t) y * stride;

      for (x = x0; x < x1; x++) {
        const double dx = axis_distance (x + 0.5, left, right);
        const float value = gb_sigma_region_value (sigma, dx, dy, feather);

        if (value > row[x]) {
          row[x] = value;
          if (value > largest)
            largest = value;
        }
      }
    }
  }
  return largest;
}

/* sin and cos of an angle in degrees, exact at multiples of 90: an
 * axis-aligned band then measures distances along one axis only, with no
 * 1e-17 share of the other (so a band at 90 degrees is exactly the
 * transpose of one at 0). */
static void
degrees_sincos (double angle, double *sine, double *cosine)
{
  double turn = fmod (angle, 360.0);

  if (turn < 0.0)
    turn += 360.0;
  if (turn == 0.0) {
    *sine = 0.0;
    *cosine = 1.0;
  } else if (turn == 90.0) {
    *sine = 1.0;
    *cosine = 0.0;
  } else if (turn == 180.0) {
    *sine = 0.0;
    *cosine = -1.0;
  } else if (turn == 270.0) {
    *sine = -1.0;
    *cosine = 0.0;
  } else {
    *sine = sin (turn * DEGREES_TO_RADIANS);
    *cosine = cos (turn * DEGREES_TO_RADIANS);
  }
}

double
gb_sigma_map_tilt_shift (float *map, int width, int height, size_t stride,
    double sigma, double center_x, double center_y, double angle,
    double band, double transition)
{
  const double cx = center_x * width;
  const double cy = center_y * height;
  const double half_band = 0.5 * band * height;
  const double ramp = transition * height;
  double normal_x, normal_y;
  float largest = 0.0f;
  int x, y;

  /* Rows grow downwards, so the line's direction, counter-clockwise on
   * screen, is (cos, -sin); its normal is (sin, cos). */
  degrees_sincos (angle, &normal_x, &normal_y);

  for (y = 0; y < height; y++) {
    const double row_offset = (y + 0.5 - cy) * normal_y;
    float *row = map + (size_t) y * stride;

    for (x = 0; x < width; x++) {
      const double distance = fabs ((x + 0.5 - cx) * normal_x + row_offset);
      const float value =
          (float) ramp_value (sigma, distance - half_band, ramp);

      row[x] = value;
      if (value > largest)
        largest = value;
    }
  }
  return largest;
}

double
gb_sigma_map_radial (float *map, int width, int height, size_t stride,
    double sigma, double center_x, double center_y, double radius,
    double transition)
{
  const double cx = center_x * width;
  const double cy = center_y * height;
  const double half_diagonal =
      0.5 * sqrt ((double) width * width + (double) height * height);
  const double sharp_radius = radius * half_diagonal;
  const double ramp = transition * half_diagonal;
  float largest = 0.0f;
  int x, y;

  for (y = 0; y < height; y++) {
    const double dy = y + 0.5 - cy;
    float *row = map + (size_t) y * stride;

    for (x = 0; x < width; x++) {
      const double dx = x + 0.5 - cx;
      const double distance = sqrt (dx * dx + dy * dy);
      const float value =
          (float) ramp_value (sigma, distance - sharp_radius, ramp);

      row[x] = value;
      if (value > largest)
        largest = value;
    }
  }
  return largest;
}

/* Where frame pixel i samples an image of map_size pixels across a frame
 * of size pixels: pixel centres aligned, clamped to the outer centres. */
static void
source_position (int i, int size, int map_size, int *first, int *second,
    double *fraction)
{
  double u = (i + 0.5) * map_size / size - 0.5;
  int index;

  if (u < 0.0)
    u = 0.0;
  if (u > map_size - 1)
    u = map_size - 1;
  index = (int) u;
  *first = index;
  *second = index + 1 < map_size ? index + 1 : index;
  *fraction = u - index;
}

/* a + f (b - a) rather than (1 - f) a + f b: exactly a where a == b (a
 * constant image stays constant) and where f == 0 (pixels on the image's
 * own centres reproduce it), and monotonic in f. */
static double
lerp (double a, double b, double fraction)
{
  return a + fraction * (b - a);
}

double
gb_sigma_map_image (float *map, int width, int height, size_t stride,
    double sigma, const uint8_t * gray, int map_width, int map_height,
    size_t gray_stride)
{
  float largest = 0.0f;
  int x, y;

  for (y = 0; y < height; y++) {
    const uint8_t *upper, *lower;
    float *row = map + (size_t) y * stride;
    double fy;
    int v0, v1;

    source_position (y, height, map_height, &v0, &v1, &fy);
    upper = gray + (size_t) v0 * gray_stride;
    lower = gray + (size_t) v1 * gray_stride;

    for (x = 0; x < width; x++) {
      double fx, top, bottom;
      float value;
      int u0, u1;

      source_position (x, width, map_width, &u0, &u1, &fx);
      top = lerp (upper[u0], upper[u1], fx);
      bottom = lerp (lower[u0], lower[u1], fx);
      value = (float) (sigma * lerp (top, bottom, fy) / 255.0);
      row[x] = value;
      if (value > largest)
        largest = value;
    }
  }
  return largest;
}

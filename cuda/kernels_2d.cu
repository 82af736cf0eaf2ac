/* Direct 2D convolution kernels: naive (global memory) and shared (tile with
 * apron in shared memory).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Both compute out = round(sum_dy wy[dy] (sum_dx wx[dx] in[y+dy][x+dx])) with
 * dy outer (radius_y rows) and dx inner (radius_x columns), the order of the
 * CPU reference. Summing each row apart before weighting it keeps the float
 * error of (2R + 1)^2 terms at that of two sums of 2R + 1: at radius 105 a
 * single running sum of 44,521 products drifts by 2 16-bit levels. They are the baselines of seed 001 (global-memory "edge
 * detection" and shared-memory tiles) with Gaussian weights and our border
 * rules (see ERRATA: 001's filter is a box). Threads work on samples, not
 * pixels: thread s of a row reads samples s + dx * channels, so one kernel
 * serves every interleaved format; each is a template on the sample type
 * (8- or 16-bit).
 */
#include "kernels.h"

namespace {

/* naive: one thread per output sample, every tap read from global memory. */
constexpr int NAIVE_BLOCK_X = 32;
constexpr int NAIVE_BLOCK_Y = 8;

template < typename Sample > __global__ void
naive_2d_kernel (GbDevicePlane plane, const float *__restrict__ weights_x,
    int radius_x, const float *__restrict__ weights_y, int radius_y,
    GbBorder border)
{
  const int row_samples = plane.width * plane.channels;
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (s >= row_samples || y >= plane.height)
    return;

  const int x = s / plane.channels;
  const int channel = s - x * plane.channels;
  float acc = 0.0f;
  for (int dy = -radius_y; dy <= radius_y; dy++) {
    const int sy = gb_border_index (y + dy, plane.height, border);
    if (sy < 0)
      continue;
    const Sample *row = gb_src_row < Sample > (plane, sy);
    float row_acc = 0.0f;
    for (int dx = -radius_x; dx <= radius_x; dx++) {
      const int sx = gb_border_index (x + dx, plane.width, border);
      if (sx < 0)
        continue;
      row_acc += __ldg (&weights_x[dx + radius_x])
          * (float) row[sx * plane.channels + channel];
    }
    acc += __ldg (&weights_y[dy + radius_y]) * row_acc;
  }
  gb_dst_row < Sample > (plane, y)[s] = gb_round_sample < Sample > (acc);
}

/* shared: a block computes SHARED_BLOCK_X samples x SHARED_BLOCK_Y rows. Its
 * source window (plus an apron of radius_x pixels left and right, radius_y
 * rows above and below) is staged through shared memory in strips of rows,
 * as many as fit the budget, so any radius works: small radii take one
 * strip, large ones several. */
constexpr int SHARED_BLOCK_X = 64;
constexpr int SHARED_BLOCK_Y = 8;
constexpr size_t SHARED_BUDGET = 48 * 1024;

template < typename Sample > __global__ void
shared_2d_kernel (GbDevicePlane plane, const float *__restrict__ weights_x,
    int radius_x, const float *__restrict__ weights_y, int radius_y,
    GbBorder border, int strip_rows)
{
  extern __shared__ float strip[];    /* [strip_rows][tile_width] */
  const int apron = radius_x * plane.channels;
  const int tile_width = SHARED_BLOCK_X + 2 * apron;
  const int window_rows = SHARED_BLOCK_Y + 2 * radius_y;
  const int row_samples = plane.width * plane.channels;
  const int s0 = blockIdx.x * SHARED_BLOCK_X;
  const int y0 = blockIdx.y * SHARED_BLOCK_Y;
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const int threads = blockDim.x * blockDim.y;
  /* The output row of this thread is window row ty + radius_y. */
  const int out_row = threadIdx.y;
  float acc = 0.0f;

  for (int first = 0; first < window_rows; first += strip_rows) {
    const int rows = min (strip_rows, window_rows - first);
    for (int i = tid; i < rows * tile_width; i += threads) {
      const int r = i / tile_width;
      const int col = i - r * tile_width;
      const int sy = gb_border_index (y0 - radius_y + first + r,
          plane.height, border);
      strip[i] = sy < 0 ? 0.0f
          : gb_load_sample (gb_src_row < Sample > (plane, sy),
          s0 - apron + col, plane.width, plane.channels, border);
    }
    __syncthreads ();

    /* Window rows out_row .. out_row + 2 radius_y are this thread's taps. */
    const int lo = max (out_row, first);
    const int hi = min (out_row + 2 * radius_y, first + rows - 1);
    for (int t = lo; t <= hi; t++) {
      const float *line = strip + (t - first) * tile_width + threadIdx.x;
      float row_acc = 0.0f;
      for (int k = 0; k <= 2 * radius_x; k++)
        row_acc += __ldg (&weights_x[k]) * line[k * plane.channels];
      acc += __ldg (&weights_y[t - out_row]) * row_acc;
    }
    __syncthreads ();
  }

  const int s = s0 + threadIdx.x;
  const int y = y0 + threadIdx.y;
  if (s < row_samples && y < plane.height)
    gb_dst_row < Sample > (plane, y)[s] = gb_round_sample < Sample > (acc);
}

dim3
grid_for (const GbDevicePlane & plane, int block_x, int block_y)
{
  const int row_samples = plane.width * plane.channels;
  return dim3 ((row_samples + block_x - 1) / block_x,
      (plane.height + block_y - 1) / block_y);
}

}                               /* namespace */

cudaError_t
gb_launch_naive_2d (const GbDevicePlane & plane, const GbTaps & taps,
    GbBorder border, cudaStream_t stream)
{
  return gb_dispatch_sample (plane,[&] (auto tag) {
        using Sample = decltype (tag);
        naive_2d_kernel < Sample > <<< grid_for (plane, NAIVE_BLOCK_X,
                NAIVE_BLOCK_Y), dim3 (NAIVE_BLOCK_X, NAIVE_BLOCK_Y), 0,
            stream >>> (plane, taps.x.device, taps.x.radius, taps.y.device,
            taps.y.radius, border);
        return cudaGetLastError ();
      });
}

cudaError_t
gb_launch_shared_2d (const GbDevicePlane & plane, const GbTaps & taps,
    GbBorder border, cudaStream_t stream)
{
  const int tile_width = SHARED_BLOCK_X + 2 * taps.x.radius * plane.channels;
  const int window_rows = SHARED_BLOCK_Y + 2 * taps.y.radius;
  /* GB_MAX_RADIUS keeps one row of the widest tile within the budget. */
  const int strip_rows = max (1, min (window_rows,
          (int) (SHARED_BUDGET / (tile_width * sizeof (float)))));
  const size_t bytes = (size_t) strip_rows * tile_width * sizeof (float);

  return gb_dispatch_sample (plane,[&] (auto tag) {
        using Sample = decltype (tag);
        shared_2d_kernel < Sample > <<< grid_for (plane, SHARED_BLOCK_X,
                SHARED_BLOCK_Y), dim3 (SHARED_BLOCK_X, SHARED_BLOCK_Y), bytes,
            stream >>> (plane, taps.x.device, taps.x.radius, taps.y.device,
            taps.y.radius, border, strip_rows);
        return cudaGetLastError ();
      });
}

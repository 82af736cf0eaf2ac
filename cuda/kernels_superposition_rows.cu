/* The superposition of a sigma map constant along rows
 * (superposition_rows.h), on the GPU.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Two kernels, as separable passes with a kernel per input row:
 *
 * - rows_h: a block per 128 pixels of a row: the row's span (through the
 *   border rule) staged in shared memory, filtered with the row's x taps
 *   (symmetric: w (a + b)) into H, floats, the channels of a pixel padded
 *   to a vector (3 to 4);
 * - rows_v: a block per 32 x 16 tile: the H rows within the reach (through
 *   the border rule) staged, each with its weight per output row (its own
 *   y taps at the distance); each thread sums 4 outputs of a column, and,
 *   normalising, divides by the same weights times the rows' x sums.
 */
#include "kernels.h"
#include "superposition_rows.h"

namespace {

constexpr int MAX_REACH = GB_SUPERPOSITION_MAX_RADIUS;
constexpr int H_THREADS = 128;
constexpr int TILE_X = 32;
constexpr int TILE_Y = 16;
constexpr int OUTPUTS = 4;              /* a thread's, one above the other */
constexpr int THREAD_ROWS = TILE_Y / OUTPUTS;
constexpr int V_THREADS = TILE_X * THREAD_ROWS;
constexpr int V_SPAN = TILE_Y + 2 * MAX_REACH;

/* A pixel's channels as floats, padded to a vector from 3 on. */
template < int C > struct alignas (C == 1 ? 4 : C == 2 ? 8 : 16) Pixel
{
  float v[C == 3 ? 4 : C];
};

struct Rows
{
  const int *row_kernel;
  const float *kernels;         /* [n][stride]: x taps, then y taps */
  const float *weight_x;
  float *h;                     /* width x height Pixels */
  int stride;
  int reach_x, reach_y;
  GbBorder border;
};

template < typename Sample, int C > __global__ void
__launch_bounds__ (H_THREADS)
rows_h (GbDevicePlane plane, Rows rows)
{
  __shared__ Pixel < C > span[H_THREADS + 2 * MAX_REACH];
  __shared__ float taps[MAX_REACH + 1];
  const int y = blockIdx.y;
  const int x0 = blockIdx.x * H_THREADS;
  const int rx = rows.reach_x;
  const Sample *in = gb_src_row < Sample > (plane, y);
  const float *kernel = rows.kernels + (size_t) rows.row_kernel[y]
      * rows.stride;

  /* span[t]: column x0 - rx + t through the border rule (never zero: the
   * caller takes the map under GB_BORDER_ZERO). */
  for (int t = threadIdx.x; t < H_THREADS + 2 * rx; t += H_THREADS) {
    const int xx = gb_border_index (x0 - rx + t, plane.width, rows.border);
    Pixel < C > p;
    for (int c = 0; c < C; c++)
      p.v[c] = (float) in[(size_t) xx * C + c];
    span[t] = p;
  }
  for (int d = threadIdx.x; d <= rx; d += H_THREADS)
    taps[d] = kernel[d];
  __syncthreads ();

  const int x = x0 + threadIdx.x;
  if (x >= plane.width)
    return;
  const int centre = threadIdx.x + rx;
  Pixel < C > sum;
  for (int c = 0; c < C; c++)
    sum.v[c] = taps[0] * span[centre].v[c];
  for (int d = 1; d <= rx; d++) {
    const float w = taps[d];
    const Pixel < C > a = span[centre - d], b = span[centre + d];
    for (int c = 0; c < C; c++)
      sum.v[c] += w * (a.v[c] + b.v[c]);
  }
  ((Pixel < C > *) rows.h)[(size_t) y * plane.width + x] = sum;
}

template < typename Sample, int C, bool NORM > __global__ void
__launch_bounds__ (V_THREADS)
rows_v (GbDevicePlane plane, Rows rows)
{
  __shared__ Pixel < C > staged[V_SPAN][TILE_X];
  __shared__ float weights[V_SPAN][TILE_Y];     /* [H row][output row] */
  __shared__ float x_sums[V_SPAN];
  const int x0 = blockIdx.x * TILE_X, y0 = blockIdx.y * TILE_Y;
  const int ry = rows.reach_y;
  const int count = TILE_Y + 2 * ry;    /* staged rows: y0 - ry .. */
  const int thread = threadIdx.y * TILE_X + threadIdx.x;
  const int x = x0 + threadIdx.x;
  const Pixel < C > *h = (const Pixel < C > *) rows.h;

  for (int r = threadIdx.y; r < count; r += THREAD_ROWS) {
    const int yy = gb_border_index (y0 - ry + r, plane.height, rows.border);
    Pixel < C > p;
    for (int c = 0; c < (C == 3 ? 4 : C); c++)
      p.v[c] = 0.0f;
    if (x < plane.width)
      p = h[(size_t) yy * plane.width + x];
    staged[r][threadIdx.x] = p;
  }
  for (int e = thread; e < count * TILE_Y; e += V_THREADS) {
    const int r = e / TILE_Y, o = e % TILE_Y;
    const int yy = gb_border_index (y0 - ry + r, plane.height, rows.border);
    const int d = abs (o + ry - r);     /* output y0 + o, input y0 - ry + r */
    const float *kernel = rows.kernels + (size_t) rows.row_kernel[yy]
        * rows.stride + rows.reach_x + 1;
    weights[r][o] = d <= ry ? kernel[d] : 0.0f;
    if (NORM && o == 0)
      x_sums[r] = rows.weight_x[rows.row_kernel[yy]];
  }
  __syncthreads ();

  const int first = threadIdx.y * OUTPUTS;      /* the thread's outputs */
  float acc[OUTPUTS][C], weight[OUTPUTS];
  for (int k = 0; k < OUTPUTS; k++) {
    weight[k] = 0.0f;
    for (int c = 0; c < C; c++)
      acc[k][c] = 0.0f;
  }
  /* Staged rows first .. first + OUTPUTS - 1 + 2 ry reach the outputs. */
  for (int r = first; r < first + OUTPUTS + 2 * ry; r++) {
    const Pixel < C > p = staged[r][threadIdx.x];
    const float4 w = *(const float4 *) &weights[r][first];
    const float ws[OUTPUTS] = { w.x, w.y, w.z, w.w };
    for (int k = 0; k < OUTPUTS; k++) {
      for (int c = 0; c < C; c++)
        acc[k][c] += ws[k] * p.v[c];
      if (NORM)
        weight[k] += ws[k] * x_sums[r];
    }
  }
  if (x >= plane.width)
    return;
  for (int k = 0; k < OUTPUTS; k++) {
    const int y = y0 + first + k;
    if (y >= plane.height)
      break;
    Sample *out = gb_dst_row < Sample > (plane, y) + (size_t) x * C;
    for (int c = 0; c < C; c++)
      out[c] = gb_round_sample < Sample > (NORM ? acc[k][c] / weight[k]
          : acc[k][c]);
  }
}

template < typename Sample, int C > cudaError_t
launch_rows (const GbDevicePlane & plane, const Rows & rows, bool normalize,
    cudaStream_t stream)
{
  rows_h < Sample, C > <<<dim3 ((plane.width + H_THREADS - 1) / H_THREADS,
          plane.height), H_THREADS, 0, stream>>> (plane, rows);
  const dim3 tiles ((plane.width + TILE_X - 1) / TILE_X,
      (plane.height + TILE_Y - 1) / TILE_Y);
  if (normalize)
    rows_v < Sample, C, true > <<<tiles, dim3 (TILE_X, THREAD_ROWS), 0,
        stream>>> (plane, rows);
  else
    rows_v < Sample, C, false > <<<tiles, dim3 (TILE_X, THREAD_ROWS), 0,
        stream>>> (plane, rows);
  return cudaGetLastError ();
}

}                               /* namespace */

size_t
gb_superposition_rows_scratch_floats (int width, int height, int channels)
{
  return (size_t) width * height * (channels == 3 ? 4 : channels);
}

cudaError_t
gb_launch_superposition_rows (const GbDevicePlane & plane,
    const GbRowPlan * plan, const int *device_row_kernel,
    const float *device_kernels, const float *device_weight_x, float *scratch,
    bool normalize, GbBorder border, cudaStream_t stream)
{
  Rows rows;

  if (plane.width <= 0 || plane.height <= 0)
    return cudaSuccess;
  if (border == GB_BORDER_ZERO || plan->reach_x > MAX_REACH
      || plan->reach_y > MAX_REACH || plan->rows != plane.height)
    return cudaErrorInvalidValue;
  rows.row_kernel = device_row_kernel;
  rows.kernels = device_kernels;
  rows.weight_x = device_weight_x;
  rows.h = scratch;
  rows.stride = plan->stride;
  rows.reach_x = plan->reach_x;
  rows.reach_y = plan->reach_y;
  rows.border = border;
  return gb_dispatch_sample (plane,[&](auto tag) {
        using Sample = decltype (tag);
        switch (plane.channels) {
          case 1:
            return launch_rows < Sample, 1 > (plane, rows, normalize, stream);
          case 2:
            return launch_rows < Sample, 2 > (plane, rows, normalize, stream);
          case 3:
            return launch_rows < Sample, 3 > (plane, rows, normalize, stream);
          case 4:
            return launch_rows < Sample, 4 > (plane, rows, normalize, stream);
        }
        return cudaErrorInvalidValue;});
}

/* Separable Gaussian: a row pass into the persistent float intermediate, then
 * a column pass into the output (seeds 000 and 002, after NVIDIA's
 * convolutionSeparable).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each pass stages its tile and apron in shared memory and reads it 2r + 1
 * times; loads and stores are coalesced (threads of a warp touch consecutive
 * samples of one row). For radii up to FIXED_RADIUS_MAX the radius is a
 * template parameter, so the tap loop unrolls and the weights travel by value
 * as a kernel parameter (constant bank); larger radii take the generic
 * kernels, which read the weights from global memory through the read-only
 * cache.
 */
#include "kernels.h"

namespace {

constexpr int FIXED_RADIUS_MAX = 16;

/* Weights known at compile time: passed by value, read from the constant bank. */
template < int R > struct FixedTaps
{
  float w[2 * R + 1];
  __device__ __forceinline__ int radius () const { return R; }
  __device__ __forceinline__ float operator[] (int i) const { return w[i]; }
};

/* Weights known at run time: read through the read-only data cache. */
struct RuntimeTaps
{
  const float *w;
  int r;
  __device__ __forceinline__ int radius () const { return r; }
  __device__ __forceinline__ float operator[] (int i) const
  {
    return __ldg (&w[i]);
  }
};

/* Row pass: a block covers ROW_TILE samples of blockDim.y rows; each thread
 * produces ROW_OUTPUTS samples spaced ROW_THREADS apart (coalesced stores). */
constexpr int ROW_THREADS = 64;
constexpr int ROW_OUTPUTS = 4;
constexpr int ROW_TILE = ROW_THREADS * ROW_OUTPUTS;
constexpr int ROW_MAX_ROWS = 4;
constexpr size_t SHARED_BUDGET = 48 * 1024;

template < class Taps > __global__ void
row_pass_kernel (GbDevicePlane plane, GbBorder border, Taps taps)
{
  extern __shared__ float tile[];       /* [blockDim.y][tile_width] */
  const int radius = taps.radius ();
  const int apron = radius * plane.channels;
  const int tile_width = ROW_TILE + 2 * apron;
  const int row_samples = plane.width * plane.channels;
  const int s0 = blockIdx.x * ROW_TILE;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  float *tile_row = tile + threadIdx.y * tile_width;

  if (y < plane.height) {
    const uint8_t *src_row = plane.src + (size_t) y * plane.src_pitch;
    for (int i = threadIdx.x; i < tile_width; i += ROW_THREADS)
      tile_row[i] = gb_load_sample (src_row, s0 - apron + i, plane.width,
          plane.channels, border);
  }
  __syncthreads ();
  if (y >= plane.height)
    return;

  float *out_row = (float *) ((char *) plane.intermediate
      + (size_t) y * plane.intermediate_pitch);
#pragma unroll
  for (int j = 0; j < ROW_OUTPUTS; j++) {
    const int local = threadIdx.x + j * ROW_THREADS;
    if (s0 + local >= row_samples)
      break;
    const float *centre = tile_row + local + apron;
    float acc = 0.0f;
#pragma unroll
    for (int k = -radius; k <= radius; k++)
      acc += taps[k + radius] * centre[k * plane.channels];
    out_row[s0 + local] = acc;
  }
}

/* Column pass: a block covers COL_THREADS_X samples of COL_ROWS rows; each
 * thread produces COL_OUTPUTS rows spaced COL_THREADS_Y apart. */
constexpr int COL_THREADS_X = 32;
constexpr int COL_THREADS_Y = 8;
constexpr int COL_OUTPUTS = 8;
constexpr int COL_ROWS = COL_THREADS_Y * COL_OUTPUTS;

__device__ __forceinline__ float
load_intermediate (const GbDevicePlane & plane, int s, int y, GbBorder border)
{
  const int sy = gb_border_index (y, plane.height, border);
  if (sy < 0 || s >= plane.width * plane.channels)
    return 0.0f;
  return ((const float *) ((const char *) plane.intermediate
          + (size_t) sy * plane.intermediate_pitch))[s];
}

__device__ __forceinline__ void
store_output (const GbDevicePlane & plane, int s, int y, float value)
{
  if (s < plane.width * plane.channels && y < plane.height)
    plane.dst[(size_t) y * plane.dst_pitch + s] = gb_round_u8 (value);
}

/* Small radii: the whole window (COL_ROWS + 2R rows) in shared memory at once. */
template < int R > __global__ void
column_pass_tile_kernel (GbDevicePlane plane, GbBorder border,
    FixedTaps < R > taps)
{
  __shared__ float tile[COL_ROWS + 2 * R][COL_THREADS_X];
  const int s = blockIdx.x * COL_THREADS_X + threadIdx.x;
  const int y0 = blockIdx.y * COL_ROWS;

  for (int r = threadIdx.y; r < COL_ROWS + 2 * R; r += COL_THREADS_Y)
    tile[r][threadIdx.x] = load_intermediate (plane, s, y0 - R + r, border);
  __syncthreads ();

#pragma unroll
  for (int j = 0; j < COL_OUTPUTS; j++) {
    const int out_row = threadIdx.y + j * COL_THREADS_Y;
    float acc = 0.0f;
#pragma unroll
    for (int k = 0; k <= 2 * R; k++)
      acc += taps[k] * tile[out_row + k][threadIdx.x];
    store_output (plane, s, y0 + out_row, acc);
  }
}

/* Any radius: the window streams through shared memory in strips of
 * COL_STRIP_ROWS rows, each thread accumulating its outputs in registers. */
constexpr int COL_STRIP_ROWS = 256;

__global__ void
column_pass_strips_kernel (GbDevicePlane plane, GbBorder border,
    RuntimeTaps taps)
{
  __shared__ float strip[COL_STRIP_ROWS][COL_THREADS_X];
  const int radius = taps.radius ();
  const int window_rows = COL_ROWS + 2 * radius;
  const int s = blockIdx.x * COL_THREADS_X + threadIdx.x;
  const int y0 = blockIdx.y * COL_ROWS;
  float acc[COL_OUTPUTS];

#pragma unroll
  for (int j = 0; j < COL_OUTPUTS; j++)
    acc[j] = 0.0f;

  for (int first = 0; first < window_rows; first += COL_STRIP_ROWS) {
    const int rows = min (COL_STRIP_ROWS, window_rows - first);
    for (int r = threadIdx.y; r < rows; r += COL_THREADS_Y)
      strip[r][threadIdx.x] = load_intermediate (plane, s,
          y0 - radius + first + r, border);
    __syncthreads ();
#pragma unroll
    for (int j = 0; j < COL_OUTPUTS; j++) {
      /* Window rows out_row .. out_row + 2 radius are output j's taps. */
      const int out_row = threadIdx.y + j * COL_THREADS_Y;
      const int lo = max (out_row, first);
      const int hi = min (out_row + 2 * radius, first + rows - 1);
      for (int t = lo; t <= hi; t++)
        acc[j] += taps[t - out_row] * strip[t - first][threadIdx.x];
    }
    __syncthreads ();
  }

#pragma unroll
  for (int j = 0; j < COL_OUTPUTS; j++)
    store_output (plane, s, y0 + threadIdx.y + j * COL_THREADS_Y, acc[j]);
}

template < class Taps > cudaError_t
launch_row_pass (const GbDevicePlane & plane, GbBorder border,
    const Taps & taps, int radius, cudaStream_t stream)
{
  const int tile_width = ROW_TILE + 2 * radius * plane.channels;
  const size_t row_bytes = (size_t) tile_width * sizeof (float);
  /* GB_MAX_RADIUS keeps at least one row within the budget. */
  const int rows = max (1, min (ROW_MAX_ROWS, (int) (SHARED_BUDGET / row_bytes)));
  const dim3 grid ((plane.width * plane.channels + ROW_TILE - 1) / ROW_TILE,
      (plane.height + rows - 1) / rows);

  row_pass_kernel <<< grid, dim3 (ROW_THREADS, rows), rows * row_bytes,
      stream >>> (plane, border, taps);
  return cudaGetLastError ();
}

dim3
column_grid (const GbDevicePlane & plane)
{
  return dim3 ((plane.width * plane.channels + COL_THREADS_X - 1)
      / COL_THREADS_X, (plane.height + COL_ROWS - 1) / COL_ROWS);
}

template < int R > cudaError_t
launch_fixed (const GbDevicePlane & plane, const GbTaps & taps,
    GbBorder border, cudaStream_t stream)
{
  FixedTaps < R > fixed;
  for (int i = 0; i <= 2 * R; i++)
    fixed.w[i] = taps.host[i];
  cudaError_t err = launch_row_pass (plane, border, fixed, R, stream);
  if (err != cudaSuccess)
    return err;
  column_pass_tile_kernel < R > <<< column_grid (plane),
      dim3 (COL_THREADS_X, COL_THREADS_Y), 0, stream >>> (plane, border,
      fixed);
  return cudaGetLastError ();
}

cudaError_t
launch_runtime (const GbDevicePlane & plane, const GbTaps & taps,
    GbBorder border, cudaStream_t stream)
{
  const RuntimeTaps runtime = { taps.device, taps.radius };
  cudaError_t err = launch_row_pass (plane, border, runtime, taps.radius,
      stream);
  if (err != cudaSuccess)
    return err;
  column_pass_strips_kernel <<< column_grid (plane),
      dim3 (COL_THREADS_X, COL_THREADS_Y), 0, stream >>> (plane, border,
      runtime);
  return cudaGetLastError ();
}

typedef cudaError_t (*SeparableLauncher) (const GbDevicePlane &,
    const GbTaps &, GbBorder, cudaStream_t);

template < int... R > struct FixedLaunchers
{
  static constexpr SeparableLauncher table[] = { launch_fixed < R >... };
};

template < int... R >
constexpr SeparableLauncher FixedLaunchers < R... >::table[];

/* Index r - 1 holds the launcher specialised for radius r. */
using Specialised = FixedLaunchers < 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
    13, 14, 15, 16 >;
static_assert (sizeof (Specialised::table) / sizeof (Specialised::table[0])
    == FIXED_RADIUS_MAX, "one specialisation per radius 1..FIXED_RADIUS_MAX");

}                               /* namespace */

cudaError_t
gb_launch_separable (const GbDevicePlane & plane, const GbTaps & taps,
    GbBorder border, cudaStream_t stream)
{
  if (taps.radius >= 1 && taps.radius <= FIXED_RADIUS_MAX)
    return Specialised::table[taps.radius - 1] (plane, taps, border, stream);
  return launch_runtime (plane, taps, border, stream);
}

/* Fused separable Gaussian for one-channel 8-bit planes on the FP32 units:
 * one kernel, one read and one write of the plane.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * With one channel a tap costs one multiply-add per pixel, so at the radii
 * `fused` serves (up to GB_FUSED_MAX_RADIUS) the FP32 units keep up with
 * memory where the tensor-core kernel (kernels_fused.cu) spends its time
 * staging. A block makes a tile of TILE_WIDTH x tile_rows outputs:
 *
 *   stage:   the weights (zero-padded), and the tile's input rows and
 *            columns plus the apron (and up to 7 more, read with zero
 *            weights), border-mapped, as bytes in shared memory;
 *   rows:    each thread filters RUN neighbouring outputs of one staged row
 *            from a sliding window of 2 * RUN samples, RUN taps a step (the
 *            taps padded with zeros to a multiple of RUN): one byte
 *            conversion per input and RUN x RUN multiply-adds a step; the
 *            results, minus 128, go to shared memory as fp16;
 *   columns: each thread filters RUN rows of two neighbouring columns the
 *            same way down the fp16 rows, adds 128 back, rounds and stores.
 *
 * Every output sums its taps in the order -r..r in float, as the CPU
 * reference does; the fp16 intermediate (samples - 128: at most 1/32 of a
 * level off) is the only other difference, as in the tensor-core kernel
 * (docs/algorithms.md, section 8).
 */
#include "kernels.h"

#include <cuda_fp16.h>

namespace {

constexpr int TILE_WIDTH = 128;         /* output columns of a block */
constexpr int THREADS = 256;
constexpr int RUN = 8;                  /* outputs per thread, taps per step */
constexpr int MAX_TAPS = (2 * GB_FUSED_MAX_RADIUS + 1 + RUN - 1) / RUN * RUN;

struct GrayParams
{
  const uint8_t *src;
  size_t src_pitch;
  uint8_t *dst;
  size_t dst_pitch;
  int width;
  int height;
  int radius;
  int taps;                     /* 2 * radius + 1 rounded up to RUN */
  int tile_rows;                /* a multiple of RUN */
  int stage_pitch;              /* bytes a staged row: TILE_WIDTH + taps */
  GbBorder border;
  const float *weights;         /* 2 * radius + 1 taps, device */
};

/* Byte i (0..3) of word v as a float. */
__device__ __forceinline__ float
byte_float (uint32_t v, int i)
{
  return __uint2float_rn ((v >> (8 * i)) & 0xffu);
}

__global__ void __launch_bounds__ (THREADS)
fused_gray_kernel (const GrayParams p)
{
  extern __shared__ __align__ (16) uint8_t shared[];
  const int staged_rows = p.tile_rows + p.taps;
  /* the taps, then zeros (every thread of a step reads the same one: a
   * broadcast) */
  float *w = reinterpret_cast < float *>(shared);
  uint8_t *stage = shared + MAX_TAPS * sizeof (float);
  __half *rows_out = reinterpret_cast < __half * >(stage
      + (size_t) staged_rows * p.stage_pitch);
  const int x0 = blockIdx.x * TILE_WIDTH;
  const int y0 = blockIdx.y * p.tile_rows;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

  for (int t = threadIdx.x; t < p.taps; t += THREADS)
    w[t] = t <= 2 * p.radius ? __ldg (&p.weights[t]) : 0.0f;

  /* Stage: a warp a row at a time, a lane a byte (coalesced). */
  {
    const int first_x = x0 - p.radius;
    const bool inside_x = first_x >= 0 && first_x + p.stage_pitch <= p.width;
    for (int r = warp; r < staged_rows; r += THREADS / 32) {
      const int y = gb_border_index (y0 - p.radius + r, p.height, p.border);
      const uint8_t *row = y >= 0 ? p.src + (size_t) y * p.src_pitch : NULL;
      uint8_t *out = stage + (size_t) r * p.stage_pitch;
      for (int c = lane; c < p.stage_pitch; c += 32) {
        const int x = inside_x ? first_x + c
            : gb_border_index (first_x + c, p.width, p.border);
        out[c] = row && x >= 0 ? __ldg (row + x) : 0;
      }
    }
  }
  __syncthreads ();

  /* Rows: staged row r, outputs g * RUN .. + RUN - 1 of the tile. */
  for (int item = threadIdx.x; item < staged_rows * (TILE_WIDTH / RUN);
      item += THREADS) {
    const int r = item / (TILE_WIDTH / RUN), g = item % (TILE_WIDTH / RUN);
    const uint8_t *in = stage + (size_t) r * p.stage_pitch + g * RUN;
    float acc[RUN], win[2 * RUN];
    uint2 v = *reinterpret_cast < const uint2 * >(in);

#pragma unroll
    for (int j = 0; j < RUN; j++) {
      acc[j] = 0.0f;
      win[j] = byte_float (j < 4 ? v.x : v.y, j % 4);
    }
    for (int t = 0; t < p.taps; t += RUN) {
      v = *reinterpret_cast < const uint2 * >(in + t + RUN);
#pragma unroll
      for (int j = 0; j < RUN; j++)
        win[RUN + j] = byte_float (j < 4 ? v.x : v.y, j % 4);
#pragma unroll
      for (int k = 0; k < RUN; k++) {
        const float weight = w[t + k];
#pragma unroll
        for (int j = 0; j < RUN; j++)
          acc[j] = fmaf (weight, win[j + k], acc[j]);
      }
#pragma unroll
      for (int j = 0; j < RUN; j++)
        win[j] = win[RUN + j];
    }
    __align__ (16) __half2 h[RUN / 2];
#pragma unroll
    for (int j = 0; j < RUN / 2; j++)
      h[j] = __floats2half2_rn (acc[2 * j] - 128.0f, acc[2 * j + 1] - 128.0f);
    *reinterpret_cast < uint4 * >(rows_out + (size_t) r * TILE_WIDTH
        + g * RUN) = *reinterpret_cast < const uint4 * >(h);
  }
  __syncthreads ();

  /* Columns: two neighbouring columns, output rows g * RUN .. + RUN - 1. */
  for (int item = threadIdx.x; item < (p.tile_rows / RUN) * (TILE_WIDTH / 2);
      item += THREADS) {
    const int pair = item % (TILE_WIDTH / 2), g = item / (TILE_WIDTH / 2);
    const __half2 *in = reinterpret_cast < const __half2 * >(rows_out)
        + (size_t) g * RUN * (TILE_WIDTH / 2) + pair;
    float2 acc[RUN], win[2 * RUN];

#pragma unroll
    for (int j = 0; j < RUN; j++) {
      acc[j] = make_float2 (0.0f, 0.0f);
      win[j] = __half22float2 (in[j * (TILE_WIDTH / 2)]);
    }
    for (int t = 0; t < p.taps; t += RUN) {
#pragma unroll
      for (int j = 0; j < RUN; j++)
        win[RUN + j] = __half22float2 (in[(t + RUN + j) * (TILE_WIDTH / 2)]);
#pragma unroll
      for (int k = 0; k < RUN; k++) {
        const float weight = w[t + k];
#pragma unroll
        for (int j = 0; j < RUN; j++) {
          acc[j].x = fmaf (weight, win[j + k].x, acc[j].x);
          acc[j].y = fmaf (weight, win[j + k].y, acc[j].y);
        }
      }
#pragma unroll
      for (int j = 0; j < RUN; j++)
        win[j] = win[RUN + j];
    }
    const int x = x0 + 2 * pair;
#pragma unroll
    for (int j = 0; j < RUN; j++) {
      const int y = y0 + g * RUN + j;
      if (y >= p.height)
        break;
      uint8_t *out = p.dst + (size_t) y * p.dst_pitch + x;
      if (x < p.width)
        out[0] = gb_round_u8 (acc[j].x + 128.0f);
      if (x + 1 < p.width)
        out[1] = gb_round_u8 (acc[j].y + 128.0f);
    }
  }
}

}                               /* namespace */

cudaError_t
gb_launch_fused_gray (const GbDevicePlane & plane, const GbTaps & taps,
    GbBorder border, cudaStream_t stream)
{
  const int radius = taps.x.radius;
  GrayParams p;

  if (radius < 1 || radius > GB_FUSED_MAX_RADIUS || plane.channels != 1
      || plane.bytes_per_sample != 1 || taps.y.radius != radius)
    return cudaErrorInvalidValue;
  p.src = (const uint8_t *) plane.src;
  p.src_pitch = plane.src_pitch;
  p.dst = (uint8_t *) plane.dst;
  p.dst_pitch = plane.dst_pitch;
  p.width = plane.width;
  p.height = plane.height;
  p.radius = radius;
  p.taps = (2 * radius + 1 + RUN - 1) / RUN * RUN;
  /* Taller tiles for larger radii: the apron rows are filtered along rows
   * once per tile. */
  p.tile_rows = radius <= 16 ? 64 : 128;
  p.stage_pitch = (TILE_WIDTH + p.taps + 15) / 16 * 16;
  p.border = border;
  p.weights = taps.x.device;

  const int staged_rows = p.tile_rows + p.taps;
  const size_t shared = MAX_TAPS * sizeof (float)
      + (size_t) staged_rows * p.stage_pitch
      + (size_t) staged_rows * TILE_WIDTH * sizeof (__half);
  cudaError_t err = cudaFuncSetAttribute (fused_gray_kernel,
      cudaFuncAttributeMaxDynamicSharedMemorySize, (int) shared);
  if (err != cudaSuccess)
    return err;
  const dim3 grid ((plane.width + TILE_WIDTH - 1) / TILE_WIDTH,
      (plane.height + p.tile_rows - 1) / p.tile_rows);
  fused_gray_kernel <<<grid, THREADS, shared, stream>>> (p);
  return cudaGetLastError ();
}

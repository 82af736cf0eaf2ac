/* How far down_tile_kernel's walk along y on the tensor cores (docs/
 * algorithms.md, section 9.1) strays from the exact sum of its own
 * weights: the bytes as 1024 + byte in fp16, the taps' fp16 high and low
 * parts, the accumulators starting at -1024 times the parts' sum, in
 * k-steps of 8 rows (m16n8k8: GPUs before compute capability 8.0) and of
 * 16 (m16n8k16, two staged units; at D = 8 an odd count of units walks
 * one more, with zero taps), against the sum of the same bytes and parts
 * in double. Each warp walks one mma tile, 16
 * samples (M) by 8 small rows (N), down (8 + RING - 1) D frame rows, as a
 * tile of 8 small rows does; its lanes hold the fragments the kernel's
 * lanes hold. The weights are the plan's (multiscale.c) at D = 8 and 16
 * (the prefilter depends on D alone: the sigmas of one D print the same
 * figures); the bytes random, all 255, a 0/255 checkerboard and sparse
 * 255s. The figures are the largest errors these samples meet, not a
 * bound.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 *   nvcc -std=c++17 -O3 -arch=sm_90 -Icuda docs/tensor_walk_error.cu \
 *     cuda/multiscale.c -o /tmp/tensor-walk-error && /tmp/tensor-walk-error
 */
#include <cuda_fp16.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "multiscale.h"

constexpr int MAX_TAPS = 96;    /* RING D at D = 16 */
constexpr int PATTERNS = 4;
constexpr int WARPS = 20000;

struct Taps
{
  __half high[MAX_TAPS], low[MAX_TAPS];
  int d, ring_taps;             /* D, RING D */
  float start;                  /* -1024 x the parts' sum */
};

__device__ unsigned worst_bits[2];      /* k8, k16: |error| as float bits */

__device__ int
sample (int warp, int m, int row, int pattern)
{
  unsigned x = warp * 7919u + m * 104729u + row * 1299709u + pattern;
  x ^= x >> 13;
  x *= 0x5bd1e995u;
  x ^= x >> 15;
  return pattern == 0 ? x & 255 : pattern == 1 ? 255
      : pattern == 2 ? ((m + row) & 1) * 255 : (x & 7) ? 0 : 255;
}

__device__ uint32_t
pair (__half lo, __half hi)
{
  __half2 h = __halves2half2 (lo, hi);
  return *reinterpret_cast < uint32_t * >(&h);
}

/* Tap t of part p (0 high, 1 low), zero outside the taps. */
__device__ __half
tap (const Taps & w, int t, int p)
{
  if (t < 0 || t >= w.ring_taps)
    return __float2half (0.0f);
  return p ? w.low[t] : w.high[t];
}

/* (1024 + the byte) of sample m at rows k and k + 1, as the kernel's A. */
__device__ uint32_t
bytes (int warp, int m, int k, int pattern)
{
  return pair (__float2half (1024.0f + sample (warp, m, k, pattern)),
      __float2half (1024.0f + sample (warp, m, k + 1, pattern)));
}

__global__ void
walk (Taps w, int pattern)
{
  const int lane = threadIdx.x, g = lane >> 2, q = lane & 3;
  const int warp = blockIdx.x;
  const int rows = (8 + w.ring_taps / w.d - 1) * w.d;
  float k8[4], k16[4];
  for (int i = 0; i < 4; i++)
    k8[i] = k16[i] = w.start;
  for (int u = 0; u < rows / 8; u++) {
    const int k = 8 * u + 2 * q;
    const uint32_t a0 = bytes (warp, g, k, pattern);
    const uint32_t a1 = bytes (warp, g + 8, k, pattern);
    for (int p = 0; p < 2; p++) {
      const uint32_t b = pair (tap (w, k - g * w.d, p),
          tap (w, k + 1 - g * w.d, p));
      asm ("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 "
          "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
          :"+f" (k8[0]), "+f" (k8[1]), "+f" (k8[2]), "+f" (k8[3])
          :"r" (a0), "r" (a1), "r" (b));
    }
  }
  /* an odd count of units walks one more, as the kernel does at D = 8:
   * its taps are zero */
  for (int u = 0; u < (rows / 8 + 1) / 2 * 2; u += 2) {
    const int k = 8 * u + 2 * q;
    const uint32_t a0 = bytes (warp, g, k, pattern);
    const uint32_t a1 = bytes (warp, g + 8, k, pattern);
    const uint32_t a2 = bytes (warp, g, k + 8, pattern);
    const uint32_t a3 = bytes (warp, g + 8, k + 8, pattern);
    for (int p = 0; p < 2; p++) {
      const uint32_t b0 = pair (tap (w, k - g * w.d, p),
          tap (w, k + 1 - g * w.d, p));
      const uint32_t b1 = pair (tap (w, k + 8 - g * w.d, p),
          tap (w, k + 9 - g * w.d, p));
      asm ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
          "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
          :"+f" (k16[0]), "+f" (k16[1]), "+f" (k16[2]), "+f" (k16[3])
          :"r" (a0), "r" (a1), "r" (a2), "r" (a3), "r" (b0), "r" (b1));
    }
  }
  /* accumulator i: sample g + 8 (i >> 1), small row 2 q + (i & 1) */
  for (int i = 0; i < 4; i++) {
    const int m = g + 8 * (i >> 1), n = 2 * q + (i & 1);
    double exact = 0.0;
    for (int k = 0; k < rows; k++) {
      const int t = k - n * w.d;
      exact += sample (warp, m, k, pattern) * ((double) __half2float (tap
              (w, t, 0)) + (double) __half2float (tap (w, t, 1)));
    }
    atomicMax (&worst_bits[0], __float_as_uint (fabsf ((float) (k8[i]
                    - exact))));
    atomicMax (&worst_bits[1], __float_as_uint (fabsf ((float) (k16[i]
                    - exact))));
  }
}

int
main (void)
{
  static const double sigmas[] = { 10.75, 15, 20, 30, 51.2, 100 };
  printf ("sigma  D   worst |error|, levels (x 2^13): k-steps of 8 | of 16\n");
  for (size_t s = 0; s < sizeof sigmas / sizeof sigmas[0]; s++) {
    GbMultiscalePlan plan;
    if (!gb_multiscale_plan (sigmas[s], sigmas[s], 3840, 2160,
            GB_BORDER_CLAMP, 1, &plan)) {
      fprintf (stderr, "no plan at sigma %g\n", sigmas[s]);
      return 1;
    }
    const GbResample & r = plan.down_y;
    Taps w;
    w.d = r.step;
    w.ring_taps = (r.taps + w.d - 1) / w.d * w.d;
    if (w.ring_taps > MAX_TAPS || r.phases != 1) {
      fprintf (stderr, "sigma %g: not a tensor walk's pass\n", sigmas[s]);
      return 1;
    }
    double sum = 0.0;
    for (int t = 0; t < MAX_TAPS; t++) {
      const float v = t < r.taps ? plan.table[r.weights + t] : 0.0f;
      w.high[t] = __float2half_rn (v);
      w.low[t] = __float2half_rn (v - __half2float (w.high[t]));
      sum += (double) __half2float (w.high[t]) + __half2float (w.low[t]);
    }
    w.start = (float) (-1024.0 * sum);
    unsigned worst[2] = { 0, 0 };
    for (int pattern = 0; pattern < PATTERNS; pattern++) {
      const unsigned zero[2] = { 0, 0 };
      unsigned got[2];
      cudaError_t err = cudaMemcpyToSymbol (worst_bits, zero, sizeof zero);
      if (err == cudaSuccess) {
        walk <<< WARPS, 32 >>> (w, pattern);
        err = cudaGetLastError ();
      }
      if (err == cudaSuccess)
        err = cudaMemcpyFromSymbol (got, worst_bits, sizeof got);
      if (err != cudaSuccess) {
        fprintf (stderr, "CUDA: %s\n", cudaGetErrorString (err));
        return 1;
      }
      for (int v = 0; v < 2; v++)
        worst[v] = got[v] > worst[v] ? got[v] : worst[v];
    }
    float e[2];
    memcpy (e, worst, sizeof e);
    printf ("%6.2f %2d   %.2e (%.2f) | %.2e (%.2f)\n", sigmas[s], w.d,
        e[0], e[0] * 8192.0f, e[1], e[1] * 8192.0f);
  }
  return 0;
}

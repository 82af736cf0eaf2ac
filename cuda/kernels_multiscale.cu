/* Multi-scale Gaussian on the GPU: the plan's six resampling passes
 * (multiscale.h) in three to five kernels.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every pass is out[o] = sum_t w[phase][t] in[source(first(o) + t)] along
 * rows or along columns, summed in float like the CPU's (cpu_backend.c),
 * in another order (down_rows_kernel: exactly, in integers, with the
 * weights rounded to 16 bits, at most 0.0051 of a level from the float
 * weights' sum; down_tile_kernel's tensor walk: its sums near 1024 in
 * magnitude, docs/algorithms.md, section 9.2). The two down passes
 * commute. On planes of one or two
 * 8-bit channels at D = 16 (and 8 on small planes) the GPU runs down along
 * x first, in a kernel of its own; elsewhere, on large planes, down along
 * y first, so that the pass along x works on an image D times shorter;
 * where both axes share D and it measured faster, one kernel takes both.
 * Where a pass is a small matrix product repeated over the tile (the
 * interpolation along y, and down_tile's walk on 8-bit samples), it runs
 * on the tensor cores with its weights split into fp16 high and low
 * parts. The kernels:
 *   down_tile_kernel   both down passes (templates on D up to 16, the
 *                      sample type and the walk): a block walks the frame
 *                      columns of a
 *                      tile of the small image down its rows, as
 *                      down_columns_kernel does (or on the tensor cores),
 *                      then decimates the rows it finished along x in
 *                      shared memory;
 *   down_columns_kernel  down along y at the frame's size (templates on D
 *                      and the sample type): every pair of threads walks
 *                      four neighbouring samples down a band of rows, each row
 *                      feeding the few outputs whose taps it is, with its
 *                      rows copied ahead into shared memory asynchronously;
 *   down_rows_kernel   down along x at the frame's size, 8-bit samples of
 *                      one or two channels at D = 8 and 16 (templates on
 *                      D, the channels and the outputs a lane): a warp
 *                      stages the bytes of its outputs' taps once, as
 *                      words, then each lane reads its taps as whole
 *                      words into integer dot products; the column pass
 *                      (resample_columns_kernel, or columns_blur_x_kernel)
 *                      follows;
 *   row_pass_kernel    along rows, staging a run of each row in shared
 *                      memory: down along x (templates on D and the input:
 *                      the frame's samples, or the float rows
 *                      down_columns_kernel left), and the small blur along
 *                      x (D = 1);
 *   resample_columns_kernel  down along y after the rows;
 *   columns_blur_x_kernel  down along y after the rows, a whole small row
 *                      a block, and the small blur along x on it in shared
 *                      memory (short rows, where columns_blur_x_pays: one
 *                      kernel fewer);
 *   blur_columns_kernel  the small blur along y: runs of output rows
 *                      sliding over rows staged once per block (not where
 *                      up_kernel does it: gb_multiscale_blur_in_up);
 *   up_kernel          both up passes: reads a patch of the small image
 *                      (or blurs it along y there, up_patch_blurred_y),
 *                      resamples it along x into shared memory, then along
 *                      y on the tensor cores, and writes each frame tile
 *                      once (a template on the sample type, the channel
 *                      count, the tile's width and the blur).
 * The passes at the frame's size read or write each frame sample once; the
 * others work in the plane's float intermediate.
 */
#include "dependent_launch.h"
#include "device_limits.h"
#include "fixed_weights.h"
#include "kernels.h"
#include "tensor_cores.h"

#include <cuda_pipeline.h>
#include <limits.h>
#include <string.h>
#include <type_traits>

namespace {

constexpr int COLUMN_THREADS = 256;

__device__ __forceinline__ int
resample_source (const GbResample & r, int i, GbBorder border)
{
  if (r.frame_border)
    return gb_border_index (i, r.in_length, border);
  return i < 0 ? 0 : i >= r.in_length ? r.in_length - 1 : i;
}

/* Element e of a row of r.in_length pixels of `channels` elements each, e
 * possibly past either end: the element the border rule reads there, or -1
 * where it reads zero. */
__device__ __forceinline__ int
bordered_element (const GbResample & r, int e, int channels, GbBorder border)
{
  const int pixel = e >= 0 ? e / channels : -((channels - 1 - e) / channels);
  const int x = resample_source (r, pixel, border);
  return x < 0 ? -1 : x * channels + (e - pixel * channels);
}

/* Along columns, on the float images (down along y after the rows, and the
 * small blur along y): output row o = blockIdx.y. Each thread takes four
 * neighbouring elements (one 16-byte load per tap where rows are aligned)
 * and a quarter of the taps, four loads in flight; the quarters are added
 * in shared memory. The source rows and weights are resolved once per block (a zero
 * row of the zero border as row 0 with weight 0). These images are small:
 * the pass is bound by latency, hence the split taps. */
constexpr int COLUMN_RUN = 4;
constexpr int COLUMN_SPLIT = 4;
constexpr int COLUMN_RUNS = COLUMN_THREADS / COLUMN_SPLIT;     /* per block */
constexpr int MAX_COLUMN_TAPS = 512;

/* Sources and weights of output row o's taps: a zero row of the zero
 * border as row 0 with weight 0. */
__device__ __forceinline__ void
column_taps (const GbResample & r, const float *weights, GbBorder border,
    int o, const float *in, size_t in_pitch, const float **sources,
    float *taps)
{
  const int phase = r.phases == 1 ? 0 : o % r.phases;
  const int first = (r.phases == 1 ? o : o / r.phases) * r.step
      + r.first[phase];
  for (int t = threadIdx.x; t < r.taps; t += COLUMN_THREADS) {
    const int s = resample_source (r, first + t, border);
    sources[t] = (const float *) ((const char *) in
        + (size_t) max (s, 0) * in_pitch);
    taps[t] = s < 0 ? 0.0f : weights[r.weights + phase * r.taps + t];
  }
}

/* This thread's part (split, of SPLIT) of the taps of n <= 4 elements
 * from e0. */
template < int SPLIT = COLUMN_SPLIT > __device__ __forceinline__ float4
column_sum (const GbResample & r, const float *const *sources,
    const float *taps, int split, int e0, int n, bool vector)
{
  const int per_split = (r.taps + SPLIT - 1) / SPLIT;
  const int t_end = min (r.taps, (split + 1) * per_split);
  float4 acc = make_float4 (0.0f, 0.0f, 0.0f, 0.0f);
  int t = split * per_split;
  if (vector && n == COLUMN_RUN)
    for (; t + 4 <= t_end; t += 4) {
      float4 v[4];
#pragma unroll
      for (int k = 0; k < 4; k++)
        v[k] = __ldg (reinterpret_cast < const float4 * >(sources[t + k]
                + e0));
#pragma unroll
      for (int k = 0; k < 4; k++) {
        const float w = taps[t + k];
        acc.x += w * v[k].x;
        acc.y += w * v[k].y;
        acc.z += w * v[k].z;
        acc.w += w * v[k].w;
      }
    }
  for (; t < t_end && n > 0; t++) {
    const float *src = sources[t] + e0;
    const float w = taps[t];
    acc.x += w * __ldg (src);
    if (n > 1)
      acc.y += w * __ldg (src + 1);
    if (n > 2)
      acc.z += w * __ldg (src + 2);
    if (n > 3)
      acc.w += w * __ldg (src + 3);
  }
  return acc;
}

__global__ void __launch_bounds__ (COLUMN_THREADS)
resample_columns_kernel (GbResample r, const float *weights,
    GbBorder border, int elements, const float *in, size_t in_pitch,
    float *out, size_t out_pitch)
{
  __shared__ const float *sources[MAX_COLUMN_TAPS];
  __shared__ float taps[MAX_COLUMN_TAPS];
  __shared__ float4 partial[COLUMN_SPLIT - 1][COLUMN_RUNS];
  const int o = blockIdx.y;

  column_taps (r, weights, border, o, in, in_pitch, sources, taps);
  __syncthreads ();
  gb_wait_for_previous_kernel ();

  const int run = threadIdx.x % COLUMN_RUNS;
  const int split = threadIdx.x / COLUMN_RUNS;
  const int e0 = (blockIdx.x * COLUMN_RUNS + run) * COLUMN_RUN;
  const int n = e0 < elements ? min (COLUMN_RUN, elements - e0) : 0;
  const bool vector = in_pitch % 16 == 0 && (uintptr_t) in % 16 == 0;
  float4 acc = column_sum (r, sources, taps, split, e0, n, vector);
  if (split > 0)
    partial[split - 1][run] = acc;
  __syncthreads ();
  if (split > 0 || n == 0)
    return;
#pragma unroll
  for (int k = 0; k < COLUMN_SPLIT - 1; k++) {
    const float4 p = partial[k][run];
    acc.x += p.x;
    acc.y += p.y;
    acc.z += p.z;
    acc.w += p.w;
  }
  float *out_row = (float *) ((char *) out + (size_t) o * out_pitch) + e0;
  if (n == COLUMN_RUN && (uintptr_t) out_row % 16 == 0) {
    gb_store4 (out_row, acc);
    return;
  }
  const float v[4] = { acc.x, acc.y, acc.z, acc.w };
  for (int k = 0; k < n; k++)
    out_row[k] = v[k];
}

/* The small blur along y (step 1, one phase): a block stages the rows its
 * outputs read (through the small image's rule: clamp, or zeros under the
 * zero border), GROUPS float4s wide, then each thread takes four
 * neighbouring elements of RUN neighbouring output rows and slides over
 * the staged rows: one 16-byte shared load per row and a new weight per
 * row feeds the run's accumulators (the taps are padded with RUN - 1 zeros
 * on both sides, so no tap needs a bounds check). Runs of 4 on the larger
 * small images (128 elements wide), of 1 where that would leave few
 * blocks (32 elements wide, 32 rows). The generic pass
 * above resolved its sources for every output row and held one output a
 * thread: at D = 4 (which plans took until 2026-11-29) on 4K RGBA it
 * issued 270 instructions an output. */
constexpr int BLUR_THREADS = 256;
/* float4 columns a block of runs of four rows */
constexpr int BLUR_GROUPS = 32;
/* float4 columns a block of runs of one row: narrower blocks of more rows
 * stage fewer apron rows an output (8 + taps - 1 rows for 8 outputs at 32
 * columns: 52 at 45 taps; H200, 32 -> 8 columns: RGB 4K at sigma 100
 * 54.4 -> 53.9 us, NV12 4K 37.7 -> 37.25; 16 columns no faster). A staged
 * row piece is 128 bytes, which the small image's 16-byte row alignment
 * may split over two cache lines. */
constexpr int BLUR_SHORT_GROUPS = 8;
constexpr int BLUR_LOADS = 8;                   /* staging loads in flight */
/* Blocks below which the runs are of one row: two per SM on the H100. */
constexpr int BLUR_MIN_BLOCKS = 264;

/* Output rows of a block of GROUPS float4 columns with runs of RUN rows. */
__host__ __device__ constexpr int
blur_rows (int run, int groups)
{
  return BLUR_THREADS / groups * run;
}

template < int RUN, int GROUPS > __global__ void
__launch_bounds__ (BLUR_THREADS)
blur_columns_kernel (GbResample r, const float *weights, GbBorder border,
    int elements, const float *in, size_t in_pitch, float *out,
    size_t out_pitch)
{
  constexpr int BLUR_RUN = RUN;
  constexpr int BLUR_ROWS = blur_rows (RUN, GROUPS);
  constexpr int BLUR_PADDED_TAPS = GB_MULTISCALE_BLUR_TAPS + 2 * (RUN - 1);
  extern __shared__ float4 staged[];    /* rows x GROUPS */
  __shared__ float taps[BLUR_PADDED_TAPS];
  const int o0 = blockIdx.y * BLUR_ROWS;
  const int e0 = blockIdx.x * GROUPS * 4;
  const int n_rows = BLUR_ROWS + r.taps - 1;
  const bool vector = ((uintptr_t) in | in_pitch) % 16 == 0;

  /* up_kernel's blocks may take the SMs this pass leaves idle from now on.
   * Here, and behind the small blur along x where the up pass blurs along
   * y (row_pass_kernel's and columns_blur_x_kernel's NEXT_EARLY): letting
   * the down passes alone (not with the small blur along x) start their
   * successors early was slower (docs/performance.md, "Passes that start
   * early"). */
  gb_let_next_kernel_start ();
  for (int t = threadIdx.x; t < BLUR_PADDED_TAPS; t += BLUR_THREADS) {
    const int j = t - (BLUR_RUN - 1);
    taps[t] = j >= 0 && j < r.taps ? weights[r.weights + j] : 0.0f;
  }
  gb_wait_for_previous_kernel ();
  for (int i0 = threadIdx.x; i0 < n_rows * GROUPS;
      i0 += BLUR_LOADS * BLUR_THREADS) {
    float4 v[BLUR_LOADS];
#pragma unroll
    for (int k = 0; k < BLUR_LOADS; k++) {
      const int i = i0 + k * BLUR_THREADS;
      const int row = i / GROUPS;
      const int e = e0 + (i % GROUPS) * 4;
      const int y = i < n_rows * GROUPS ? resample_source (r,
          o0 + r.first[0] + row, border) : -1;
      v[k] = make_float4 (0.0f, 0.0f, 0.0f, 0.0f);
      if (y < 0 || e >= elements)
        continue;
      const float *src = (const float *) ((const char *) in
          + (size_t) y * in_pitch) + e;
      if (vector && e + 4 <= elements) {
        v[k] = __ldg (reinterpret_cast < const float4 * >(src));
      } else {
        v[k].x = __ldg (src);
        if (e + 1 < elements)
          v[k].y = __ldg (src + 1);
        if (e + 2 < elements)
          v[k].z = __ldg (src + 2);
        if (e + 3 < elements)
          v[k].w = __ldg (src + 3);
      }
    }
#pragma unroll
    for (int k = 0; k < BLUR_LOADS; k++)
      if (i0 + k * BLUR_THREADS < n_rows * GROUPS)
        staged[i0 + k * BLUR_THREADS] = v[k];
  }
  __syncthreads ();

  const int group = threadIdx.x % GROUPS;
  const int first_row = threadIdx.x / GROUPS * BLUR_RUN;
  float4 acc[BLUR_RUN] = { };
  /* Staged row first_row + i is tap i - m of output m: padded tap
   * i - m + BLUR_RUN - 1. */
  const float4 *column = staged + first_row * GROUPS + group;
  for (int i = 0; i < r.taps + BLUR_RUN - 1; i++) {
    const float4 v = column[i * GROUPS];
#pragma unroll
    for (int m = 0; m < BLUR_RUN; m++) {
      const float w = taps[i - m + BLUR_RUN - 1];
      acc[m].x += w * v.x;
      acc[m].y += w * v.y;
      acc[m].z += w * v.z;
      acc[m].w += w * v.w;
    }
  }

  const int e = e0 + group * 4;
  if (e >= elements)
    return;
#pragma unroll
  for (int m = 0; m < BLUR_RUN; m++) {
    const int o = o0 + first_row + m;
    if (o >= r.out_length)
      break;
    float *dst = (float *) ((char *) out + (size_t) o * out_pitch) + e;
    if (e + 4 <= elements && ((uintptr_t) dst) % 16 == 0) {
      gb_store4 (dst, acc[m]);
    } else {
      const float a[4] = { acc[m].x, acc[m].y, acc[m].z, acc[m].w };
      for (int c = 0; c < 4 && e + c < elements; c++)
        dst[c] = a[c];
    }
  }
}

/* Down along y at the frame's size. Two threads take a group of four
 * neighbouring samples of a row (one 4- or 8-byte group), two samples
 * each, down a band of `band` outputs: twice the warps one thread a group
 * gave (RGBA 4K at sigma 20: 35.2 -> 33.6 us, H200), where the blocks are
 * few and long. Output o's tap t is input row first + o D + t, so input
 * row j of the band (from the first output's first tap) is tap m D + j % D
 * of output j / D - m: it feeds RING outputs, held in a ring of
 * accumulators that moves on every D rows, when the oldest is complete.
 * With D and the taps fixed at compile time (zero-padded to RING D), every
 * weight is a kernel parameter: per row, one shared load and 2 RING
 * multiply-adds a thread. The rows are copied into shared memory
 * asynchronously, STAGES units of UNIT rows ahead of the arithmetic, the
 * two threads of a group copying alternate rows, so a barrier a unit
 * separates the copies from the reads. The input rows the band reaches
 * beyond its own (RING - 1 of D rows) are read again by the next band,
 * mostly from L2. */
constexpr int DOWN_THREADS = 128;
constexpr int DOWN_GROUPS = DOWN_THREADS / 2;   /* groups a block */
/* Bands per plane: at least this many blocks where a shorter band gives
 * them, about two per SM on the GPUs we measure. */
constexpr int DOWN_MIN_BLOCKS = 256;
/* Planes of this many samples and more take it at every D. */
constexpr size_t MULTISCALE_COLUMNS_FIRST_SAMPLES = (size_t) 1 << 22;

template < typename InT > struct SampleGroup;
template <> struct SampleGroup <uint8_t >
{
  using type = uint32_t;
};
template <> struct SampleGroup <uint16_t >
{
  using type = uint2;
};

template < int D, typename InT > struct DownColumns
{
  using Group = typename SampleGroup < InT >::type;
  static constexpr int TAPS = GB_MULTISCALE_DOWN_TAPS (D);
  static constexpr int RING = (TAPS + D - 1) / D;
  static constexpr int UNIT = D < 8 ? D : 8;    /* rows per stage */
  static constexpr int UNITS = D / UNIT;        /* stages per D rows */
  /* stage slots per block, 12 KB of DOWN_GROUPS groups' rows (STAGES - 1
   * units in flight) */
  static constexpr int STAGES_FIT =
      12 * 1024 / (UNIT * DOWN_GROUPS * (int) sizeof (Group));
  static constexpr int STAGES = STAGES_FIT < 2 ? 2 : STAGES_FIT;
};

template < int D > struct DownWeights
{
  float w[DownColumns < D, uint8_t >::RING * D];
};

/* Half a group as exact floats: a sample's bits below the exponent of
 * 2^23, less 2^23 (a byte permute and an add; an int-to-float conversion
 * runs at a quarter of the rate of an add). 8-bit samples (x, y) or
 * (z, w) of the word, 16-bit ones .x or .y of the pair. */
__device__ __forceinline__ float2
unpack_half (uint32_t v, int half)
{
  const float two23 = 8388608.0f;
  const uint32_t lo = half ? 0x7542u : 0x7540u;
  const uint32_t hi = half ? 0x7543u : 0x7541u;
  return make_float2 (__uint_as_float (__byte_perm (v, 0x4B000000u, lo))
      - two23, __uint_as_float (__byte_perm (v, 0x4B000000u, hi)) - two23);
}

__device__ __forceinline__ float2
unpack_half (uint2 v, int half)
{
  const float two23 = 8388608.0f;
  const uint32_t w = half ? v.y : v.x;
  return make_float2 (__uint_as_float (__byte_perm (w, 0x4B000000u,
              0x7510)) - two23, __uint_as_float (__byte_perm (w,
              0x4B000000u, 0x7532)) - two23);
}

/* Four 16-bit samples' exact floats (down_tile_kernel's FP32 walk). */
__device__ __forceinline__ float4
unpack_group (uint2 v)
{
  const float2 low = unpack_half (v, 0);
  const float2 high = unpack_half (v, 1);
  return make_float4 (low.x, low.y, high.x, high.y);
}

/* acc += w v, lane by lane. */
__device__ __forceinline__ void
add_weighted (float4 & acc, float w, float4 v)
{
  acc.x += w * v.x;
  acc.y += w * v.y;
  acc.z += w * v.z;
  acc.w += w * v.w;
}

__device__ __forceinline__ void
add_weighted (float2 & acc, float w, float2 v)
{
  acc.x += w * v.x;
  acc.y += w * v.y;
}

/* One row of a thread's samples (four: float4, or two: float2) into the
 * ring: acc[m] is the output m rows of D back, and the row is its tap
 * m D + phase (phase: a constant once the callers' loops unroll, so each
 * weight is a kernel parameter). */
template < int D, int RING, typename V > __device__ __forceinline__ void
ring_add (V (&acc)[RING], const DownWeights < D > &weights, int phase, V v)
{
#pragma unroll
  for (int m = 0; m < RING; m++)
    add_weighted (acc[m], weights.w[m * D + phase], v);
}

/* After D rows: the oldest output is complete and leaves the ring. */
template < int RING, typename V > __device__ __forceinline__ void
ring_advance (V (&acc)[RING])
{
#pragma unroll
  for (int m = RING - 1; m > 0; m--)
    acc[m] = acc[m - 1];
  acc[0] = V ();
}

/* Up to four samples from e on (those before `elements`), packed as one
 * group; the rest 0. */
template < typename InT > __device__ __forceinline__ typename
SampleGroup < InT >::type
gather_group (const InT * row, int e, int elements)
{
  uint32_t s[4];
#pragma unroll
  for (int k = 0; k < 4; k++)
    s[k] = e + k < elements ? (uint32_t) __ldg (&row[e + k]) : 0u;
  if constexpr (sizeof (InT) == 1) {
    return s[0] | s[1] << 8 | s[2] << 16 | s[3] << 24;
  } else {
    return make_uint2 (s[0] | s[1] << 16, s[2] | s[3] << 16);
  }
}

template < int D, typename InT > __global__ void
__launch_bounds__ (DOWN_THREADS)
down_columns_kernel (GbResample r, DownWeights < D > weights,
    GbBorder border, int elements, int band, const InT * in,
    size_t in_pitch, float *out, size_t out_pitch)
{
  using P = DownColumns < D, InT >;
  using Group = typename P::Group;
  constexpr int G = DOWN_GROUPS;
  __shared__ Group stage[P::STAGES][P::UNIT][G];

  /* thread (h, g): half h of group g */
  const int g = threadIdx.x % G;
  const int h = threadIdx.x / G;
  const int e = (blockIdx.x * G + g) * 4;
  const bool active = e < elements;     /* the others still meet barriers */
  const int o0 = blockIdx.y * band;
  const int n = min (band, r.out_length - o0);
  const int chunks = n + P::RING - 1;   /* D rows each */
  const int units = chunks * P::UNITS;
  const int y0 = r.first[0] + o0 * D;
  const bool inside = y0 >= 0 && y0 + units * P::UNIT <= r.in_length;
  const bool whole = e + 4 <= elements
      && ((uintptr_t) in | in_pitch) % sizeof (Group) == 0;
  const InT *column = in + e;
  /* 8-bit samples, the band inside the plane and the group whole: a row's
   * address one add from the last, with no border rule or test (the
   * general copy took about 15 instructions a row; RGBA 4K at sigma
   * 15-20 1.45 us faster on the H200). 16-bit samples keep the general
   * copy: RGBA64_LE 4K measured 1.05-1.3 us slower this way. */
  static_assert (P::UNIT % 2 == 0, "a unit's rows, two threads a group");
  const bool straight = sizeof (InT) == 1 && inside && whole;
  const char *own_rows = (const char *) column
      + (straight ? (size_t) (y0 + h) * in_pitch : 0);
  const size_t row_step = 2 * in_pitch;

  /* This thread's rows of unit u into its stage, then one commit, empty
   * or not: the wait below counts commits. */
  auto issue =[&](int u) {
    if (u < units && active) {
      Group *slot = &stage[u % P::STAGES][0][g];
      if (straight) {
        const char *src = own_rows + (size_t) u * P::UNIT * in_pitch;
#pragma unroll
        for (int k = 0; k < P::UNIT / 2; k++)
          __pipeline_memcpy_async (&slot[(2 * k + h) * G],
              src + k * row_step, sizeof (Group));
      } else {
#pragma unroll
        for (int i = h; i < P::UNIT; i += 2) {
          const int j = y0 + u * P::UNIT + i;
          const int y = inside ? j : resample_source (r, j, border);
          const InT *src = (const InT *) ((const char *) column
              + (size_t) max (y, 0) * in_pitch);
          if (y < 0)
            slot[i * G] = Group ();
          else if (whole)
            __pipeline_memcpy_async (&slot[i * G], src, sizeof (Group));
          else
            slot[i * G] = gather_group (src - e, e, elements);
        }
      }
    }
    __pipeline_commit ();
  };

  for (int u = 0; u < P::STAGES - 1; u++)
    issue (u);
  float2 acc[P::RING] = { };     /* the ring: zeros */

  int u = 0;
  for (int k = 0; k < chunks; k++) {
#pragma unroll
    for (int q = 0; q < P::UNITS; q++, u++) {
      __pipeline_wait_prior (P::STAGES - 2);
      __syncthreads ();         /* unit u is in; unit u - 1 is read */
      issue (u + P::STAGES - 1);
      const Group *slot = &stage[u % P::STAGES][0][g];
#pragma unroll
      for (int i = 0; i < P::UNIT; i++)
        ring_add (acc, weights, q * P::UNIT + i,
            unpack_half (slot[i * G], h));
    }
    const int o = k - (P::RING - 1);    /* complete now */
    if (o >= 0 && active) {
      float *dst = (float *) ((char *) out + (size_t) (o0 + o) * out_pitch)
          + e + 2 * h;
      const float2 a = acc[P::RING - 1];
      if (e + 4 <= elements && ((uintptr_t) dst) % 8 == 0) {
        *reinterpret_cast < float2 * >(dst) = a;
      } else {
        if (e + 2 * h < elements)
          dst[0] = a.x;
        if (e + 2 * h + 1 < elements)
          dst[1] = a.y;
      }
    }
    ring_advance (acc);
  }
}

/* Output positions a block of RowPass < D > takes by default (row_pass
 * may give the small blur 128: ROW_BLUR_LONG_OUTPUTS): the small
 * blur (D = 1) in runs of 64, not 32: its image is small, but blocks of one
 * warp stop at 32 warps an SM, the most blocks one SM holds (RGBA 4K at
 * sigma 15 ran 16 x 280 of them, 8 x 280 at 64: 73.2 -> 71.5 us, H200). */
__host__ __device__ constexpr int
row_pass_outputs (int d)
{
  return d == 1 ? 64 : d <= 8 ? 128 : d == 16 ? 64 : 32;
}

/* Along rows, with a block's input staged in shared memory: down along x
 * (decimating by D) on the frame's rows or on the rows down_columns_kernel
 * left, or the small image's rows blurred (D = 1). A block takes a run of
 * up to P::OUTPUTS output positions, one per thread, of up to four lanes:
 * the channels of one row (three or four channels), or of two rows (two
 * channels), or four rows (gray), so that every plane keeps the lanes
 * busy. It stages the samples it reads (border
 * rule applied once here) as one float4 per position, split by phase:
 * position q of the run (from the first output's first tap) sits in array
 * q % D at q / D. Output o's tap t then reads array t % D at o + t / D:
 * for one t, neighbouring threads read neighbouring float4s, and with D
 * and the tap count fixed at compile time every offset is an immediate and
 * every weight a kernel parameter: one 16-byte shared load and four
 * multiply-adds per tap. The block writes each row's results as one
 * coalesced run. */
template < int D, int OUT = row_pass_outputs (D) > struct RowPass
{
  /* Taps: the prefilter's or (D = 1) the small blur's bound
   * (multiscale.h); zero-padded to this. */
  static constexpr int TAPS = D == 1 ? GB_MULTISCALE_BLUR_TAPS
      : GB_MULTISCALE_DOWN_TAPS (D);
  static constexpr int OUTPUTS = OUT;
  static constexpr int THREADS = OUTPUTS;
  /* positions each thread stages per round, all loads in flight at once */
  static constexpr int SLOTS_NEEDED =
      ((OUTPUTS - 1) * D + TAPS + THREADS - 1) / THREADS;
  static constexpr int SLOTS = SLOTS_NEEDED < 12 ? SLOTS_NEEDED : 12;
  /* float4s per phase array: odd, so that the phases of neighbouring
   * positions fall in different banks */
  static constexpr int LENGTH = (OUTPUTS + TAPS / D + 2) | 1;
};

/* Whether the small blur (D = 1) leaves at least one group of four of its
 * padded taps unused: row_pass_kernel then sums only its own groups. */
__host__ __device__ constexpr bool
blur_taps_grouped (int taps)
{
  return taps <= RowPass < 1 >::TAPS - 4;
}

template < int D > struct RowWeights
{
  float w[RowPass < D >::TAPS];
};

/* A pass along rows' weights as kernel parameters, zeros past its taps;
 * false where r is no such pass of factor D (no plan makes one:
 * multiscale.c). */
template < int D > bool
row_weights (const GbResample & r, const float *table,
    RowWeights < D > &weights)
{
  if (r.phases != 1 || r.step != D || r.taps > RowPass < D >::TAPS)
    return false;
  weights = { };
  for (int t = 0; t < r.taps; t++)
    weights.w[t] = table[r.weights + t];
  return true;
}


/* Rows one block takes: as many as fill the four lanes. */
__host__ __device__ __forceinline__ int
row_pass_lines (int channels)
{
  return channels >= 3 ? 1 : 4 / channels;
}

/* The line of the row pass's lane a (a float4's component): a staged
 * position holds the channels of one line, two channels of two lines, or
 * one of four (row_pass_lines); the lane's channel is a - line * channels. */
__device__ __forceinline__ int
lane_line (int a, int channels)
{
  return channels == 1 ? a : channels == 2 ? a >> 1 : 0;
}

/* Shared-memory index i stored at i + i / 32: the results, which
 * neighbouring threads write `channels` words apart, then fall in
 * different banks. */
__host__ __device__ constexpr int
swizzle (int i)
{
  return i + (i >> 5);
}

/* Both down passes in one kernel, where both axes share D: a block writes
 * a tile of ty small rows x tx small columns. It walks down the frame
 * columns the tile reaches (through the border rule: only frame columns
 * are staged) UNIT rows at a time. On 16-bit samples, in FP32, each
 * thread takes four samples, each row feeding the RING outputs whose
 * taps it is, as down_columns_kernel does. On 8-bit samples it decimates
 * on the tensor cores, 16 rows a k-step (two staged units; 8 before
 * compute capability 8.0): the staged rows of 16 groups'
 * sample (A, exact in fp16) times the taps of up to 8 small rows at those
 * rows (B, fp16 high and low parts, from a table in shared memory; two
 * n-tiles, the template's NT, for up to 16 small rows), a warp taking 128
 * neighbouring samples as 32 four-sample groups; there the FP32 walk
 * issued 16 instructions per sample and row. Then the block decimates the
 * finished rows along x in shared memory, each tap through a per-tile map
 * of pixels, and writes the tile. The rows are copied 16 bytes at a time
 * by the whole block, STAGES units ahead of the arithmetic. Neither the
 * frame decimated along one axis nor a second kernel's launch sits in
 * between. */
constexpr int TILE_THREADS = 256;
constexpr int TILE_SPAN = TILE_THREADS * 4;     /* samples per staged row */

/* TENSOR_WALK: the walk along y on the tensor cores (8-bit samples), else
 * in FP32 (16-bit samples; tile_walk). */
template < int D, typename InT, bool TENSOR_WALK > struct DownTile
{
  using Group = typename SampleGroup < InT >::type;     /* 4 samples */
  static constexpr int TAPS = GB_MULTISCALE_DOWN_TAPS (D);
  static constexpr int RING = (TAPS + D - 1) / D;
  static constexpr bool TENSOR = TENSOR_WALK;
  static_assert (!TENSOR || (sizeof (InT) == 1 && D % 8 == 0),
      "fp16 holds 8-bit samples; a k-step is 8 frame rows");
  static constexpr int UNIT = D < 8 ? D : 8;    /* rows per stage */
  static constexpr int UNITS = D / UNIT;        /* stages per D rows */
  static constexpr int ROW_BYTES = TILE_SPAN * (int) sizeof (InT);
  /* a staged row in shared memory; 16 bytes more for the tensor-core
   * walk, so that its A loads of rows 2q (four words apart) and groups g
   * fall in different banks */
  static constexpr int ROW_STRIDE = ROW_BYTES + (TENSOR ? 16 : 0);
  static constexpr int PIECES = ROW_BYTES / 16; /* 16-byte copies a row */
  static constexpr int STAGES = UNIT * ROW_BYTES >= 32 * 1024 ? 3 : 4;
  static constexpr size_t STAGE_BYTES = (size_t) STAGES * UNIT * ROW_STRIDE;
  /* The tensor-core walk's taps as fp16 high and low parts, zero-padded
   * below by the 15 D rows small row 15 (of the second n-tile) reaches
   * back, and above to the last unit a tile of 16 rows walks (at D = 8
   * with an odd count of units, the extra one: its taps 8 u + 2 q + 1 of
   * small row 0 reach PAD + (16 + RING) D - 1): entry PAD + i is tap i. */
  static constexpr int PAD = 15 * D;
  static constexpr int TAP_TABLE = PAD + (16 + RING - 1) * D + 8;
  static_assert (!TENSOR || TAP_TABLE >= PAD + (16 + RING - 1) * D + UNIT,
      "the taps of the last unit, the extra one at D = 8 included");
  static constexpr size_t TAP_BYTES = TENSOR ? 2 * sizeof (__half)
      * TAP_TABLE : 0;
};

/* Floats of one row decimated along y: the threads' samples, then a zero
 * pixel (up to four channels) that the zero border's taps read. */
constexpr int TILE_ACROSS_ROW = swizzle (TILE_SPAN + 3) + 1;

/* Rows of those: the tile's, rounded up to pairs (the pass along x takes
 * two rows a thread). */
__host__ __device__ constexpr int
tile_across_rows (int ty)
{
  return (ty + 1) & ~1;
}

struct TileShape
{
  int tx;                       /* small columns per tile */
  int ty;                       /* small rows per tile */
  int tiles_x;
  bool aligned;                 /* frame rows 16-byte aligned */
  float walk_start;             /* tensor walk: -1024 x its taps' sum */
};

template < int D, typename InT, bool TENSOR, int NT > __global__ void
__launch_bounds__ (TILE_THREADS)
down_tile_kernel (GbResample rx, GbResample ry, DownWeights < D > weights,
    GbBorder border, int channels, TileShape shape, const InT * in,
    size_t in_pitch, float *out, size_t out_pitch)
{
  using P = DownTile < D, InT, TENSOR >;
  using Group = typename P::Group;
  extern __shared__ float4 tile_shared[];
  __shared__ int source_range[2];
  unsigned char *stage = reinterpret_cast < unsigned char *>(tile_shared);
  float *across = reinterpret_cast < float *>(stage + P::STAGE_BYTES);
  int *pixel_at = reinterpret_cast < int *>(across
      + tile_across_rows (shape.ty) * TILE_ACROSS_ROW);
  __half *tap_high = reinterpret_cast < __half * >(pixel_at + TILE_SPAN);
  __half *tap_low = tap_high + P::TAP_TABLE;

  const int sx0 = (blockIdx.x % shape.tiles_x) * shape.tx;
  const int sy0 = (blockIdx.x / shape.tiles_x) * shape.ty;
  const int n_x = min (shape.tx, rx.out_length - sx0);
  const int n_y = min (shape.ty, ry.out_length - sy0);

  /* The frame pixels the tile's taps reach (zero-padded ones included),
   * and the range of the pixels the border rule takes them from: the walk
   * stages only those, inside the frame, and the pass along x reads each
   * tap through pixel_at. */
  const int p0 = sx0 * D + rx.first[0];
  const int n_pixels = (n_x + P::RING - 1) * D;
  if (threadIdx.x == 0) {
    source_range[0] = INT_MAX;
    source_range[1] = -1;
  }
  __syncthreads ();
  {
    int lo = INT_MAX, hi = -1;
    for (int p = threadIdx.x; p < n_pixels; p += TILE_THREADS) {
      const int m = resample_source (rx, p0 + p, border);
      if (m >= 0) {
        lo = min (lo, m);
        hi = max (hi, m);
      }
    }
    for (int s = 16; s > 0; s >>= 1) {
      lo = min (lo, __shfl_xor_sync (0xffffffffu, lo, s));
      hi = max (hi, __shfl_xor_sync (0xffffffffu, hi, s));
    }
    if ((threadIdx.x & 31) == 0 && hi >= 0) {
      atomicMin (&source_range[0], lo);
      atomicMax (&source_range[1], hi);
    }
  }
  __syncthreads ();
  const int source_first = source_range[1] < 0 ? 0 : source_range[0];
  const int first_byte = source_first * channels * (int) sizeof (InT);
  const int run_byte = first_byte & ~15;
  const int skew = (first_byte - run_byte) / (int) sizeof (InT);
  /* With one, two or four channels a pixel's samples never straddle the
   * swizzle's 32-float rows (skew is a multiple of the channel count):
   * the map holds swizzled indices and a tap adds its channel. */
  const bool swizzled = channels != 3;
  for (int p = threadIdx.x; p < n_pixels; p += TILE_THREADS) {
    const int m = resample_source (rx, p0 + p, border);
    const int at = m < 0 ? TILE_SPAN : skew + (m - source_first) * channels;
    pixel_at[p] = swizzled ? swizzle (at) : at;
  }
  for (int k = threadIdx.x; k < shape.ty * 4; k += TILE_THREADS)
    across[(k >> 2) * TILE_ACROSS_ROW + swizzle (TILE_SPAN + (k & 3))] = 0.0f;
  for (int k = threadIdx.x; P::TENSOR && k < P::TAP_TABLE;
      k += TILE_THREADS) {
    const int t = k - P::PAD;
    const float w = t >= 0 && t < P::RING * D ? weights.w[t] : 0.0f;
    gb_split_half (w, tap_high[k], tap_low[k]);
  }

  const int row_end = rx.in_length * channels * (int) sizeof (InT);
  const int y0 = sy0 * D + ry.first[0];
  const int chunks = n_y + P::RING - 1;  /* D rows each */
  const int units = chunks * P::UNITS;
  const bool inside_y = y0 >= 0 && y0 + units * P::UNIT <= ry.in_length;
  /* This thread's 16-byte piece of a staged row, and its rows of a unit. */
  constexpr int ROWS_AT_ONCE = TILE_THREADS / P::PIECES;
  const int piece_at = run_byte + (threadIdx.x % P::PIECES) * 16;
  const int piece_row = threadIdx.x / P::PIECES;
  const bool piece_whole = shape.aligned && piece_at + 16 <= row_end;

  /* Unit u's rows into its stage, 16 bytes per copy (byte by byte at the
   * row's end or where rows are not 16-byte aligned; zeros for a row of
   * the zero border). One commit per call, empty or not: the wait counts
   * commits. */
  auto issue =[&](int u) {
    if (u < units) {
      unsigned char *slot = stage + (u % P::STAGES) * P::UNIT * P::ROW_STRIDE
          + (piece_at - run_byte);
#pragma unroll
      for (int i = piece_row; i < P::UNIT; i += ROWS_AT_ONCE) {
        const int j = y0 + u * P::UNIT + i;
        const int y = inside_y ? j : resample_source (ry, j, border);
        unsigned char *dst = slot + i * P::ROW_STRIDE;
        const unsigned char *src = (const unsigned char *) in
            + (size_t) max (y, 0) * in_pitch + piece_at;
        if (y < 0) {
          *reinterpret_cast < uint4 * >(dst) = make_uint4 (0, 0, 0, 0);
        } else if (piece_whole) {
          __pipeline_memcpy_async (dst, src, 16);
        } else {
          for (int b = 0; b < 16 && piece_at + b < row_end; b++)
            dst[b] = __ldg (src + b);
        }
      }
    }
    __pipeline_commit ();
  };

  for (int u = 0; u < P::STAGES - 1; u++)
    issue (u);

  if constexpr (!P::TENSOR) {
    /* Along y in FP32: a thread walks its group of four samples, each row
     * feeding the RING outputs whose taps it is. */
    float4 ring[P::RING] = { };
    const int column = threadIdx.x * (int) sizeof (Group);
    const int across_at = swizzle (threadIdx.x * 4);
    int u = 0;
    for (int k = 0; k < chunks; k++) {
#pragma unroll
      for (int q = 0; q < P::UNITS; q++, u++) {
        __pipeline_wait_prior (P::STAGES - 2);
        __syncthreads ();       /* unit u is in; unit u - 1 is read */
        issue (u + P::STAGES - 1);
        const unsigned char *rows = stage + (u % P::STAGES) * P::UNIT
            * P::ROW_STRIDE + column;
#pragma unroll
        for (int i = 0; i < P::UNIT; i++) {
          const float4 v = unpack_group (*reinterpret_cast < const Group * >
              (rows + i * P::ROW_STRIDE));
          ring_add (ring, weights, q * P::UNIT + i, v);
        }
      }
      const int o = k - (P::RING - 1);  /* complete now */
      if (o >= 0) {
        float *row = across + o * TILE_ACROSS_ROW + across_at;
        row[0] = ring[P::RING - 1].x;
        row[1] = ring[P::RING - 1].y;
        row[2] = ring[P::RING - 1].z;
        row[3] = ring[P::RING - 1].w;
      }
      ring_advance (ring);
    }
  } else {
#ifdef GB_HAVE_MMA_K8
    /* Along y on the tensor cores, the samples as A and the taps as B: an
     * mma takes sample j of 16 groups (M) at 8 frame rows (K; 16, two
     * units, below) for 8 small rows (N; NT such n-tiles up to 16), so a
     * tile of 8 rows or fewer (with_n_tiles) keeps half the accumulators
     * and issues half the mma of the small rows as M (H200, sigma 100:
     * RGBA 1080p, 4 rows, 32.8 -> 31.1 us). Lane (g, q)
     * of a warp holds, for each half h of its 32 groups, sample j and
     * n-tile n, small rows 8 n + 2 q and + 1 of groups 16 h + g and
     * 16 h + g + 8; its A is rows 2q and 2q + 1 of each unit of those
     * groups, its B the taps of small row 8 n + g at those rows. The
     * samples enter as 1024 + byte (exact in fp16, one byte permute a pair
     * and no subtraction) and the accumulators start at -1024 times the
     * taps' sum: every small row the tile writes meets all its taps in the
     * walk (rows of the zero border as zero bytes), so the 1024s cancel,
     * at the cost of sums up to 1024 in magnitude (docs/algorithms.md,
     * section 9.2). RGBA 4K at sigma 100, 15 rows: 68.2 -> 66.2 us. */
    const int lane = threadIdx.x & 31;
    const int g = lane >> 2;
    const int q = lane & 3;
    const int warp_group = (threadIdx.x >> 5) * 32;  /* its first group */
    float acc[NT][2][4][4];
#pragma unroll
    for (int n = 0; n < NT; n++)
#pragma unroll
      for (int h = 0; h < 2; h++)
#pragma unroll
        for (int j = 0; j < 4; j++)
#pragma unroll
          for (int i = 0; i < 4; i++)
            acc[n][h][j][i] = shape.walk_start;

    /* Unit u's fragments, once it is in: B, small row g + 8 n at frame
     * rows 8 u + 2 q and + 1 (taps 8 u + 2 q - (g + 8 n) D), and A,
     * samples j of groups 8 s + g (s = 0 .. 3) at those rows, as fp16
     * pairs. Then unit u + STAGES - 1 is staged into unit u - 1's slot,
     * which every thread has read. */
    auto fragments =[&](int u, uint32_t (&a)[4][4], uint32_t (&b_high)[NT],
        uint32_t (&b_low)[NT]) {
      __pipeline_wait_prior (P::STAGES - 2);
      __syncthreads ();           /* unit u is in; unit u - 1 is read */
      issue (u + P::STAGES - 1);
#pragma unroll
      for (int n = 0; n < NT; n++) {
        const int tap = P::PAD + P::UNIT * u + 2 * q - (g + 8 * n) * D;
        b_high[n] = *reinterpret_cast < const uint32_t * >(tap_high + tap);
        b_low[n] = *reinterpret_cast < const uint32_t * >(tap_low + tap);
      }
      const unsigned char *rows = stage + (u % P::STAGES) * P::UNIT
          * P::ROW_STRIDE + 2 * q * P::ROW_STRIDE;
#pragma unroll
      for (int set = 0; set < 4; set++) {
        const unsigned char *at = rows + (warp_group + 8 * set + g)
            * (int) sizeof (Group);
        const uint32_t r0 = *reinterpret_cast < const uint32_t * >(at);
        const uint32_t r1 = *reinterpret_cast < const uint32_t * >(at
            + P::ROW_STRIDE);
        const uint32_t t01 = __byte_perm (r0, r1, 0x5140);
        const uint32_t t23 = __byte_perm (r0, r1, 0x7362);
        a[set][0] = gb_bytes_plus_1024 (t01, 0, 1);
        a[set][1] = gb_bytes_plus_1024 (t01, 2, 3);
        a[set][2] = gb_bytes_plus_1024 (t23, 0, 1);
        a[set][3] = gb_bytes_plus_1024 (t23, 2, 3);
      }
    };
#ifdef GB_HAVE_MMA
    /* Two units a k-step of 16 (m16n8k16): the first unit's rows are
     * k 0 .. 7, the second's 8 .. 15; half the mma instructions of two
     * k-steps of 8, the first unit's fragments held over the second's
     * barrier (80 registers at NT = 1: three blocks a multiprocessor at
     * most, where shared memory allowed four at 2 to 4 rows; 128 at NT
     * = 2: still two). H200, sigma 100: RGBA 1080p 30.8 -> 30.2 us, RGBA
     * 4K 66.5 -> 63.25, RGB 4K 52.55 -> 50.0; at D = 8, sigma 20: RGB 4K
     * 51.0 -> 50.0. At D = 16 a tile's units pair up (whole blocks of D
     * rows); at D = 8 an odd count walks one unit more, which no issue
     * stages (its slot keeps an older unit's bytes, finite in fp16) and
     * whose taps are zero for every small row the tile writes (the table's
     * zeros past RING D: that unit lies RING blocks of D or more below
     * each such row's first). */
    const int paired_units = P::UNITS % 2 == 0 ? units : (units + 1) & ~1;
    for (int u = 0; u < paired_units; u += 2) {
      uint32_t a0[4][4], a1[4][4], b_high0[NT], b_low0[NT], b_high1[NT],
          b_low1[NT];
      fragments (u, a0, b_high0, b_low0);
      fragments (u + 1, a1, b_high1, b_low1);
#pragma unroll
      for (int n = 0; n < NT; n++)
#pragma unroll
        for (int h = 0; h < 2; h++)
#pragma unroll
          for (int j = 0; j < 4; j++) {
            const uint32_t a[4] = { a0[2 * h][j], a0[2 * h + 1][j],
              a1[2 * h][j], a1[2 * h + 1][j]
            };
            gb_mma_16816 (acc[n][h][j], a, b_high0[n], b_high1[n]);
            gb_mma_16816 (acc[n][h][j], a, b_low0[n], b_low1[n]);
          }
    }
#else
    /* Before compute capability 8.0: one unit a k-step of 8 (m16n8k8). */
    for (int u = 0; u < units; u++) {
      uint32_t a[4][4], b_high[NT], b_low[NT];
      fragments (u, a, b_high, b_low);
#pragma unroll
      for (int n = 0; n < NT; n++)
#pragma unroll
        for (int h = 0; h < 2; h++)
#pragma unroll
          for (int j = 0; j < 4; j++) {
            gb_mma_1688 (acc[n][h][j], a[2 * h][j], a[2 * h + 1][j],
                b_high[n]);
            gb_mma_1688 (acc[n][h][j], a[2 * h][j], a[2 * h + 1][j],
                b_low[n]);
          }
    }
#endif
    /* The finished small rows into across: accumulator i of (n, h, j) is
     * small row 8 n + 2 q + (i & 1), element 4 group + j of group
     * 16 h + g + 8 (i >> 1). */
#pragma unroll
    for (int n = 0; n < NT; n++)
#pragma unroll
      for (int i = 0; i < 4; i++) {
        const int row = 8 * n + 2 * q + (i & 1);
        if (row < n_y)
#pragma unroll
          for (int h = 0; h < 2; h++) {
            const int group = warp_group + 16 * h + g + 8 * (i >> 1);
            float *dst = across + row * TILE_ACROSS_ROW;
#pragma unroll
            for (int j = 0; j < 4; j++)
              dst[swizzle (4 * group + j)] = acc[n][h][j][i];
          }
      }
#else
    __trap ();                  /* no mma: an error, not a blank frame */
#endif
  }
  __syncthreads ();

  /* Along x: output (row r, small column i, channel c) from the finished
   * rows, each tap through the pixel map (four taps per 16-byte load). A
   * thread takes one output column of two rows: each tap's address serves
   * both, a shared load at a constant offset and a multiply-add a row,
   * where one row a thread took about six instructions a tap (the SASS's
   * static count). H200, sigma 20 / 100: GRAY8 4K 34.0-34.1 -> 33.2 us,
   * GRAY16_LE 4K 38.3-38.4 -> 37.4, RGB 4K at 100 74.7-74.9 -> 72.0;
   * RGBA 4K at 100 lost 77.3 -> 78.1-78.2 (docs/performance.md, "The down
   * tile's height").
   * across has an even number of rows: a pair's second row past n_y (one
   * the walk did not write) is read, not stored. */
  const int row_outputs = n_x * channels;
  const int items = (n_y + 1) / 2 * row_outputs;
  for (int k = threadIdx.x; k < items; k += TILE_THREADS) {
    const int pair = k / row_outputs;
    const int e = k - pair * row_outputs;
    const int r = 2 * pair;
    const int i = channels == 4 ? e >> 2 : channels == 2 ? e >> 1
        : channels == 1 ? e : e / 3;
    const int c = e - i * channels;
    const int4 *map = reinterpret_cast < const int4 * >(pixel_at + i * D);
    const float *src = across + r * TILE_ACROSS_ROW;
    float sum0 = 0.0f, sum1 = 0.0f;
    auto add =[&](float w, const float *at) {
      sum0 += w * at[0];
      sum1 += w * at[TILE_ACROSS_ROW];
    };
    if (swizzled) {
      src += c;
#pragma unroll
      for (int t = 0; t < P::RING * D; t += 4) {
        const int4 m = map[t / 4];
        add (weights.w[t], src + m.x);
        add (weights.w[t + 1], src + m.y);
        add (weights.w[t + 2], src + m.z);
        add (weights.w[t + 3], src + m.w);
      }
    } else {
#pragma unroll
      for (int t = 0; t < P::RING * D; t++)
        add (weights.w[t], src + swizzle (pixel_at[i * D + t] + c));
    }
    float *dst = (float *) ((char *) out + (size_t) (sy0 + r) * out_pitch)
        + (size_t) sx0 * channels + e;
    dst[0] = sum0;
    if (r + 1 < n_y)
      *(float *) ((char *) dst + out_pitch) = sum1;
  }
}

template < int D, typename InT, bool NEXT_EARLY, int OUT > __global__ void
__launch_bounds__ (RowPass < D, OUT >::THREADS)
row_pass_kernel (GbResample r, RowWeights < D > weights, GbBorder border,
    int channels, int n_rows, int per_block, const InT * in,
    size_t in_pitch, float *out, size_t out_pitch)
{
  using P = RowPass < D, OUT >;
  extern __shared__ float4 stage[];     /* D * P::LENGTH */
  float *result = reinterpret_cast < float *>(stage + D * P::LENGTH);
  const int lines = row_pass_lines (channels);
  const int lanes = lines * channels;   /* 1 .. 4 */

  const int o0 = blockIdx.x * per_block;
  const int n_out = min (per_block, r.out_length - o0);
  const int x0 = o0 * D + r.first[0];
  const int y0 = blockIdx.y * lines;
  const int n_lines = min (lines, n_rows - y0);
  /* positions read, the zero weights' included: those past the real taps
   * are staged as 0, never as whatever shared memory held */
  const int n_real = (n_out - 1) * D + r.taps;
  const int n_staged = (n_out - 1) * D + P::TAPS;
  const bool inside = x0 >= 0 && x0 + n_real <= r.in_length;
  /* the rows of the lanes, clamped to the last one (held in registers:
   * an array indexed by a run-time lane would live in local memory) */
  const InT *row0 = (const InT *) ((const char *) in + (size_t) y0 * in_pitch);
  const size_t step = n_lines > 1 ? in_pitch : 0;
  const InT *row1 = (const InT *) ((const char *) row0 + step);
  const InT *row2 = (const InT *) ((const char *) row0
      + (n_lines > 2 ? 2 * step : step));
  const InT *row3 = (const InT *) ((const char *) row0
      + (n_lines > 3 ? 3 * step : n_lines > 2 ? 2 * step : step));

  /* The small blur along x before an up pass that blurs along y: its
   * blocks may take the SMs this pass leaves idle (GRAY8 1080p at sigma 15
   * to 100 gained 0.7 to 1.2 us). A template parameter: the small blur
   * along x is row_pass_kernel < 1 >'s only use, and a run-time branch
   * costs the frames that never take it. */
  if constexpr (NEXT_EARLY)
    gb_let_next_kernel_start ();
  /* In is the frame, or the previous pass's image. */
  gb_wait_for_previous_kernel ();
  /* P::SLOTS positions in flight per thread before their stores. */
  const bool pixel_loads = (sizeof (InT) == 1 || sizeof (InT) == 4)
      && channels == 4 && (uintptr_t) row0 % (4 * sizeof (InT)) == 0;
  for (int q0 = threadIdx.x; q0 < n_staged; q0 += P::SLOTS * P::THREADS) {
    float4 v[P::SLOTS];
#pragma unroll
    for (int k = 0; k < P::SLOTS; k++) {
      const int q = q0 + k * P::THREADS;
      const int x = q >= n_real ? -1 : inside ? x0 + q
          : resample_source (r, x0 + q, border);
      float lane[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
      if (pixel_loads && sizeof (InT) == 4) {
        v[k] = x >= 0 ? __ldg (reinterpret_cast < const float4 * >(row0) + x)
            : make_float4 (0.0f, 0.0f, 0.0f, 0.0f);
        continue;
      } else if (pixel_loads) {
        const uchar4 p = x >= 0 ? __ldg (reinterpret_cast < const uchar4 *
            >(row0) + x) : make_uchar4 (0, 0, 0, 0);
        lane[0] = p.x;
        lane[1] = p.y;
        lane[2] = p.z;
        lane[3] = p.w;
      } else {
#pragma unroll
        for (int a = 0; a < 4; a++) {
          const int l = lane_line (a, channels);
          const int c = a - l * channels;
          const InT *row = l == 0 ? row0 : l == 1 ? row1 : l == 2 ? row2
              : row3;
          if (a < lanes && x >= 0)
            lane[a] = (float) __ldg (&row[(size_t) x * channels + c]);
        }
      }
      v[k] = make_float4 (lane[0], lane[1], lane[2], lane[3]);
    }
#pragma unroll
    for (int k = 0; k < P::SLOTS; k++) {
      const int q = q0 + k * P::THREADS;
      if (q < n_staged)
        stage[(q % D) * P::LENGTH + q / D] = v[k];
    }
  }
  __syncthreads ();

  const int o = threadIdx.x;
  if (o < n_out) {
    const float4 *s = stage + o;
    float4 acc = make_float4 (0.0f, 0.0f, 0.0f, 0.0f);
    auto add =[&](float w, const float4 & v) {
      acc.x += w * v.x;
      acc.y += w * v.y;
      acc.z += w * v.z;
      acc.w += w * v.w;
    };
    auto add_all =[&]() {
#pragma unroll
      for (int t = 0; t < P::TAPS; t++)
        add (weights.w[t], s[(t % D) * P::LENGTH + t / D]);
    };
    if constexpr (D == 1) {
      /* The small blur along x: its own taps, four at a time (zeros pad
       * them to P::TAPS, a multiple of four), not all P::TAPS: a warp's
       * instructions are this kernel's critical path where few warps run
       * it (ncu, RGBA 1080p at sigma 30: about 3 a multiprocessor), and at
       * sigma 15 the blur has 13. A blur that needs every group (45 taps
       * at sigma 100) runs straight through: with the tests between the
       * groups there, more frames lost 0.1-0.35 us (H200). */
      static_assert (P::TAPS % 4 == 0, "whole groups of four taps");
      if (!blur_taps_grouped (r.taps))
        add_all ();
      else {
#pragma unroll
        for (int t0 = 0; t0 < P::TAPS; t0 += 4) {
          if (t0 >= r.taps)
            break;
#pragma unroll
          for (int k = 0; k < 4; k++)
            add (weights.w[t0 + k], s[t0 + k]);
        }
      }
    } else
      add_all ();
    const float lane[4] = { acc.x, acc.y, acc.z, acc.w };
#pragma unroll
    for (int a = 0; a < 4; a++) {
      const int l = lane_line (a, channels);
      const int c = a - l * channels;
      if (a < lanes)
        result[swizzle ((l * P::OUTPUTS + o) * channels + c)] = lane[a];
    }
  }
  __syncthreads ();

  for (int l = 0; l < n_lines; l++) {
    float *out_row = (float *) ((char *) out + (size_t) (y0 + l) * out_pitch)
        + (size_t) o0 * channels;
    const int line_result = l * P::OUTPUTS * channels;
    for (int e = threadIdx.x; e < n_out * channels; e += P::THREADS)
      out_row[e] = result[swizzle (line_result + e)];
  }
}

/* Down along y, then the small blur along x on the same row, where the
 * frame went down along x first: a block sums one whole row of the small
 * image (every element, as resample_columns_kernel does a part of one),
 * holds it in shared memory with the small image's rule either side (clamp,
 * or zeros under the zero border), and blurs it along x from there, every
 * tap a kernel parameter. One kernel fewer in the chain than
 * resample_columns_kernel and row_pass_kernel < 1 >, and the small image
 * between them never leaves the SM. */
constexpr int ROW_BLUR_MAX_FLOATS = 8192;       /* partial sums and the row */

template < int SPLIT, bool NEXT_EARLY > __global__ void
__launch_bounds__ (COLUMN_THREADS)
columns_blur_x_kernel (GbResample r, GbResample bx,
    RowWeights < 1 > blur_weights, const float *weights, GbBorder border,
    int channels, const float *in, size_t in_pitch, float *out,
    size_t out_pitch)
{
  constexpr int RUNS = COLUMN_THREADS / SPLIT;
  __shared__ const float *sources[MAX_COLUMN_TAPS];
  __shared__ float taps[MAX_COLUMN_TAPS];
  /* (SPLIT - 1) partial sums a run, then the row and its borders */
  extern __shared__ float4 partial[];
  const int o = blockIdx.x;
  const int elements = bx.in_length * channels;
  const int runs = (elements + COLUMN_RUN - 1) / COLUMN_RUN;
  /* element e (from -left) of the row at row[e]: output e's tap t is
   * element e + (t - left / channels) channels */
  const int left = -bx.first[0] * channels;
  float *row = reinterpret_cast < float *>(partial
      + (SPLIT - 1) * runs) + left;

  /* Before an up pass that blurs along y: its blocks may take the SMs
   * this pass leaves idle (a template parameter: a run-time branch here
   * cost the frames that never take it 0.4 to 0.6 us). */
  if constexpr (NEXT_EARLY)
    gb_let_next_kernel_start ();
  column_taps (r, weights, border, o, in, in_pitch, sources, taps);
  __syncthreads ();
  gb_wait_for_previous_kernel ();

  const int split = threadIdx.x / RUNS;
  const bool vector = in_pitch % 16 == 0 && (uintptr_t) in % 16 == 0;
  for (int run = threadIdx.x % RUNS; run < runs; run += RUNS) {
    const int e0 = run * COLUMN_RUN;
    const int n = min (COLUMN_RUN, elements - e0);
    const float4 acc = column_sum < SPLIT > (r, sources, taps, split, e0, n,
        vector);
    if (split > 0) {
      partial[(split - 1) * runs + run] = acc;
      continue;
    }
    const float v[4] = { acc.x, acc.y, acc.z, acc.w };
    for (int k = 0; k < n; k++)
      row[e0 + k] = v[k];
  }
  __syncthreads ();
  if (split == 0)
    for (int run = threadIdx.x; run < runs; run += RUNS) {
      const int e0 = run * COLUMN_RUN;
      for (int k = 0; k < SPLIT - 1; k++) {
        const float4 p = partial[k * runs + run];
        const float v[4] = { p.x, p.y, p.z, p.w };
        for (int j = 0; j < 4 && e0 + j < elements; j++)
          row[e0 + j] += v[j];
      }
    }
  __syncthreads ();

  /* Past either end, through the rule, as far as the padded taps read
   * (finite values for the zero weights too). */
  const int right = GB_MULTISCALE_BLUR_TAPS * channels - left;
  for (int j = threadIdx.x; j < left + right; j += COLUMN_THREADS) {
    const int e = j < left ? j - left : elements + j - left;
    const int s = bordered_element (bx, e, channels, border);
    row[e] = s < 0 ? 0.0f : row[s];
  }
  __syncthreads ();

  float *dst = (float *) ((char *) out + (size_t) o * out_pitch);
  for (int e = threadIdx.x; e < elements; e += COLUMN_THREADS) {
    const float *src = row + e - left;
    float acc = 0.0f;
#pragma unroll
    for (int t = 0; t < GB_MULTISCALE_BLUR_TAPS; t++)
      acc += blur_weights.w[t] * src[t * channels];
    dst[e] = acc;
  }
}

/* Both up passes in one: a block writes a tile of UP_ROWS frame rows and
 * tile_width pixels. It reads the patch of the small image the tile
 * reaches, resamples it along x into shared memory (every small row of the
 * patch, tile_width pixels), then along y on the tensor cores, and stores
 * each output once. The small image is indexed with the clamp the plan
 * gives it (frame_border 0). Along x every phase's weights are zero-padded
 * to MAX_UP_TAPS and the patch has the columns the padding reads: the tap
 * loop is fixed and branch-free.
 *
 * Along y, 16 frame rows are a matrix product: out (16 rows x 32 elements)
 * = A (16 x 8 STEPS) times 8 STEPS rows of the x-resampled patch, A holding
 * each row's phase weights at the patch rows it reads (zero elsewhere).
 * For D <= 16 every block of 16 rows starts a block of D, so one A serves
 * them all; for D = 32 and 64 there are D / 16 (the variants). The host
 * lays A out as each lane's m16n8k8 fragments, split into an fp16 high and
 * low part so that the weights keep 22 bits (gb_multiscale_up_fragments_
 * fill). The patch values enter as fp16: exact to 1/16 of a level for 8-bit
 * samples (at most 1/16 on the result: docs/algorithms.md, section 9.1);
 * for 16-bit ones, halved into fp16's range and split into high and low
 * parts too. A warp's lane gets eight neighbouring elements of two rows. */
constexpr int UP_THREADS = 256;
constexpr int UP_WARPS = UP_THREADS / 32;
constexpr int UP_ROWS = 128;
/* Taps per phase: the plan's (multiscale.h); a plan with more is refused. */
constexpr int MAX_UP_TAPS = GB_MULTISCALE_UP_TAPS;
constexpr int UP_MMA_ROWS = 16;                 /* M of the y pass */
constexpr int UP_ROW_BLOCKS = UP_ROWS / UP_MMA_ROWS;
constexpr int UP_UNIT_ELEMENTS = 32;            /* four mma of N = 8 */
/* Blocks a multiprocessor holds at 40 registers a thread (ncu, RGBA 4K:
 * six by registers and six by the shared-memory carve-out for the wide
 * tile's 28.5 KB); unrolled, the y pass asked ptxas for 61 registers on
 * RGBA's wide tile (four blocks), 152 on RGBA64_LE's. Compute capability 7.5
 * holds 1024 threads a multiprocessor: four blocks. */
#if defined (__CUDA_ARCH__) && __CUDA_ARCH__ < 800
constexpr int UP_MIN_BLOCKS = 4;
#else
constexpr int UP_MIN_BLOCKS = 6;
#endif

/* k-steps of 8 patch rows that 16 frame rows read: they span 15 / D + 1
 * blocks of D, each phase's first sample is the lowest or one past it
 * (the plan's, checked by up_plan_fits), then the taps. */
__host__ __device__ constexpr int
up_k_steps (int shift)
{
  return ((15 >> shift) + 1 + MAX_UP_TAPS + 7) / 8;
}

/* A fragment sets: blocks of 16 rows at different offsets in a block of
 * D. */
__host__ __device__ constexpr int
up_variants (int shift)
{
  return shift > 4 ? 1 << (shift - 4) : 1;
}

/* Patch rows the y pass reads: the last row block's window. */
__host__ __device__ constexpr int
up_patch_rows (int shift)
{
  return ((UP_ROWS - UP_MMA_ROWS) >> shift) + 8 * up_k_steps (shift);
}

static_assert (up_variants (6) * 32 * 4 * up_k_steps (6)
    <= GB_MULTISCALE_UP_FRAGMENT_WORDS
    && up_variants (3) * 32 * 4 * up_k_steps (3)
    <= GB_MULTISCALE_UP_FRAGMENT_WORDS, "fragment table too small");
/* From D = 8 (GB_MULTISCALE_MIN_FACTOR, which up_plan_fits holds to) to 64
 * one k-step: up_kernel builds up_columns for it alone. */
static_assert (up_k_steps (3) == 1 && up_k_steps (6) == 1,
    "one k-step from D = 8 to 64");

/* The tile's width in pixels: 64 samples or more a row, twice that where
 * the plane gives enough blocks (up_tile_wide). */
template < int C, bool WIDE > struct UpTile
{
  static constexpr int WIDTH = (C <= 2 ? 64 : 32) * (WIDE ? 2 : 1);
  static constexpr int ROW_ELEMENTS = WIDTH * C;
  /* a patch row in shared memory: one word more than a multiple of 32,
   * so that the fragments' loads (rows 2q, elements 8 (g / 2) + g % 2)
   * fall in 32 different banks */
  static constexpr int STRIDE = ROW_ELEMENTS + 1;
  static constexpr int UNITS_X = ROW_ELEMENTS / UP_UNIT_ELEMENTS;
  static_assert (ROW_ELEMENTS <= UP_THREADS
      && ROW_ELEMENTS % UP_UNIT_ELEMENTS == 0,
      "the x pass: a thread an element; the y pass: whole units");
};

/* The small samples frame positions [o0, o0 + n) read along one axis:
 * from o0 / D + lowest first to (o0 + n - 1) / D + highest first + taps.
 * D is a power of two: the kernel shifts where it would divide, which the
 * set-up of a block of short runs would otherwise be made of. */
struct UpReach
{
  int lowest;                   /* min over phases of first[phase] */
  int highest;                  /* max over phases */
  int shift;                    /* log2 D */
};

__host__ inline UpReach
up_reach (const GbResample & r)
{
  UpReach reach = { r.first[0], r.first[0], 0 };
  while ((1 << reach.shift) < r.phases)
    reach.shift++;
  for (int ph = 1; ph < r.phases; ph++) {
    if (r.first[ph] < reach.lowest)
      reach.lowest = r.first[ph];
    if (r.first[ph] > reach.highest)
      reach.highest = r.first[ph];
  }
  return reach;
}

/* Every plan's up pass: D a power of two from GB_MULTISCALE_MIN_FACTOR up
 * to UP_ROWS, the phases' first samples at most one apart, at most
 * MAX_UP_TAPS taps. */
__host__ inline bool
up_plan_fits (const GbResample & r, const UpReach & reach)
{
  return (1 << reach.shift) == r.phases
      && r.phases >= GB_MULTISCALE_MIN_FACTOR && r.phases <= UP_ROWS
      && reach.highest - reach.lowest <= 1 && r.taps <= MAX_UP_TAPS;
}

/* Small samples that n frame positions from o0 read: (o0 % D + n - 1) / D
 * + 1 <= (n - 1) / D + 2 D-blocks, each phase's first sample spread over
 * highest - lowest, then the taps. */
__host__ __device__ inline int
up_patch_length (UpReach reach, int n)
{
  return ((n - 1) >> reach.shift) + 2 + reach.highest - reach.lowest
      + MAX_UP_TAPS;
}

#ifdef GB_HAVE_MMA_K8
/* A y-pass result (biased by + 0.5 through its start value, and halved
 * for 16-bit samples) as a sample: truncated and saturated in one
 * conversion, as gb_round_sample. An 8-bit one stays in the 32-bit word
 * cvt writes, not narrowed to uint8_t, whose widening again took a LOP3 a
 * byte before gb_pack_bytes (H200, RGBA 1080p sigma 20 32.8 -> 32.3 us,
 * RGBA 4K 81.7 -> 80.2; docs/performance.md, "The up pass's tile"). */
__device__ __forceinline__ uint32_t
biased_sample (float v, uint8_t *)
{
  return gb_truncate_u8_word (v);
}

__device__ __forceinline__ uint32_t
biased_sample (float v, uint16_t *)
{
  return gb_truncate_u16 (2.0f * v);
}

/* Along y: the warp's row block (rows r0 .. r0 + 15 of the tile) for each
 * of its UNITS_X 32-element units, from the x-resampled patch (across),
 * stored into the tile at out (row 0, element 0). A FULL tile (every row
 * and element inside the frame, rows aligned) stores without a test, its
 * units unrolled: RGBA 4K's up pass issued about 82 instructions a unit,
 * 30 of them start values, tests, branches, addresses and the loop's
 * (H200, against 8250e7a: RGBA 4K at sigma 15 69.2 -> 68.75 us, at 30
 * 61.0 -> 60.0, RGBA64_LE 4K -2.0, RGB 4K -0.9; NV12 4K +0.35 to +0.6). */
static_assert (UP_WARPS == UP_ROW_BLOCKS, "a warp a row block, every unit");
template < typename OutT, int STEPS, int UNITS_X, bool FULL >
__device__ __forceinline__ void
up_columns (const float *across, int stride, int shift,
    const uint32_t *fragments, int n_y, int n_elements, OutT * out,
    size_t out_pitch, bool aligned)
{
  constexpr bool wide = sizeof (OutT) == 2;
  /* 16-bit samples are halved into fp16's range; the conversion doubles
   * the result, start value included */
  constexpr float scale = wide ? 0.5f : 1.0f;
  constexpr float start = wide ? 0.25f : 0.5f;
  const int warp = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  const int g = lane >> 2;
  const int q = lane & 3;
  const int r0 = (warp % UP_ROW_BLOCKS) * UP_MMA_ROWS;
  if (r0 >= n_y)
    return;
  const int variant = (r0 & ((1 << shift) - 1)) >> 4;
  uint4 a[STEPS];               /* high parts in x, y; low in z, w */
#pragma unroll
  for (int s = 0; s < STEPS; s++)
    a[s] = __ldg (reinterpret_cast < const uint4 * >(fragments)
        + (variant * 32 + lane) * STEPS + s);
  /* B: rows 2q, 2q + 1 of each k-step from the block's first patch row;
   * column g is element 8 (g / 2) + 2 j + g % 2 of the unit, so that C
   * gives lane q elements 8 q .. 8 q + 7 of rows g and g + 8. */
  const float *window = across + ((r0 >> shift) + 2 * q) * stride
      + 8 * (g >> 1) + (g & 1);

#pragma unroll (FULL ? UNITS_X : 1)
  for (int unit = 0; unit < UNITS_X; unit++) {
    const int e0 = unit * UP_UNIT_ELEMENTS;
    float acc[4][4];
#pragma unroll
    for (int j = 0; j < 4; j++)
#pragma unroll
      for (int s = 0; s < STEPS; s++) {
        const float *b = window + e0 + 2 * j + 8 * s * stride;
        const float v0 = scale * b[0];
        const float v1 = scale * b[stride];
        const uint32_t high = gb_pack_half2 (v0, v1);
        if (s == 0)
          gb_mma_1688_from (acc[j], a[s].x, a[s].y, high, start);
        else
          gb_mma_1688 (acc[j], a[s].x, a[s].y, high);
        gb_mma_1688 (acc[j], a[s].z, a[s].w, high);
        if constexpr (wide) {
          const float2 h = __half22float2 (*reinterpret_cast < const
              __half2 * >(&high));
          gb_mma_1688 (acc[j], a[s].x, a[s].y, gb_pack_half2 (v0 - h.x,
                  v1 - h.y));
        }
      }
#pragma unroll
    for (int half = 0; half < 2; half++) {
      const int row = r0 + g + 8 * half;
      if (!FULL && row >= n_y)
        continue;
      uint32_t v[8];            /* the samples, zero-extended */
#pragma unroll
      for (int k = 0; k < 8; k++)
        v[k] = biased_sample (acc[k >> 1][2 * half + (k & 1)], out);
      const int e = e0 + 8 * q;
      OutT *dst = (OutT *) ((char *) out + (size_t) row * out_pitch) + e;
      if (FULL || (aligned && e + 8 <= n_elements)) {
        if constexpr (wide)
          *reinterpret_cast < uint4 * >(dst) = make_uint4 (v[0]
              | v[1] << 16, v[2] | v[3] << 16, v[4] | v[5] << 16, v[6]
              | v[7] << 16);
        else
          *reinterpret_cast < uint2 * >(dst) =
              make_uint2 (gb_pack_bytes (v[0], v[1], v[2], v[3]),
              gb_pack_bytes (v[4], v[5], v[6], v[7]));
      } else {
        for (int k = 0; k < 8 && e + k < n_elements; k++)
          dst[k] = (OutT) v[k];
      }
    }
  }
}
#endif

/* The small blur along y inside the up pass (up_kernel's BLUR): the patch
 * rows are the blur of the x-blurred small image `in` at the rows the
 * patch reads, so that blur_columns_kernel, a chain link of a few blocks,
 * does not run. The rows the clamped patch reads, y_lo .. y_hi, are
 * consecutive; the block stages their taps' source rows (through the
 * blur's border rule), zero rows past them for the padded taps, and each
 * thread slides UP_BLUR_RUN outputs of one element down them, taps
 * UP_BLUR_TAPS at a time with those weights in registers: one shared load
 * per staged row feeds the run. Rows the clamp repeats take the first or
 * last output. */
constexpr int UP_BLUR_RUN = 4;
constexpr int UP_BLUR_TAPS = 16;
constexpr int UP_BLUR_LOADS = 4;
constexpr int UP_PATCH_LOADS = 4;
constexpr int UP_BLUR_PADDED_TAPS = (GB_MULTISCALE_BLUR_TAPS + UP_BLUR_TAPS
    - 1) / UP_BLUR_TAPS * UP_BLUR_TAPS;

/* Staged rows of a patch of `patch_rows` rows: the last run's reads past
 * its last output, through the padded taps, stay inside. */
__host__ __device__ constexpr int
up_blur_staged_rows (int patch_rows)
{
  return (patch_rows + UP_BLUR_RUN - 1) / UP_BLUR_RUN * UP_BLUR_RUN
      + UP_BLUR_PADDED_TAPS - 1;
}

/* Floats before the patch in up_kernel's shared memory: the x pass's rows,
 * and with the small blur along y first its staging. */
__host__ __device__ inline size_t
up_across_floats (int patch_rows, int stride, int patch_elements, bool blur,
    int channels)
{
  const size_t rows = (size_t) patch_rows * stride;
  const size_t staged = (size_t) up_blur_staged_rows (patch_rows)
      * patch_elements;
  const size_t floats = blur && staged > rows ? staged : rows;
  /* four channels: whole float4s, as up_across_pixels loads the patch */
  return channels == 4 ? (floats + 3) & ~(size_t) 3 : floats;
}

template < int C > __device__ __forceinline__ void
up_patch_blurred_y (const GbResample & rx, const GbResample & ry,
    const GbResample & by, GbBorder border, const float *wy, int sx0,
    int sy0, int patch_rows, int patch_elements, int patch_row,
    const float *in, size_t in_pitch, float *staged, float *patch)
{
  const int y_lo = resample_source (ry, sy0, GB_BORDER_CLAMP);
  const int y_hi = resample_source (ry, sy0 + patch_rows - 1,
      GB_BORDER_CLAMP);
  const int n_out = y_hi - y_lo + 1;
  const int n_staged = n_out - 1 + by.taps;
  const int n_padded = up_blur_staged_rows (patch_rows);
  /* UP_BLUR_LOADS loads in flight a thread: the staging is a round trip
   * to L2 on the chain's critical path */
  const int n_elements = n_padded * patch_row;
  for (int i0 = threadIdx.x; i0 < n_elements;
      i0 += UP_BLUR_LOADS * UP_THREADS) {
    float v[UP_BLUR_LOADS];
#pragma unroll
    for (int k = 0; k < UP_BLUR_LOADS; k++) {
      const int i = i0 + k * UP_THREADS;
      const int j = i / patch_row;
      const int e = i - j * patch_row;
      const int sx = e / C;
      const int x = resample_source (rx, sx0 + sx, GB_BORDER_CLAMP);
      const int y = i < n_elements && j < n_staged
          ? resample_source (by, y_lo + by.first[0] + j, border) : -1;
      v[k] = y < 0 ? 0.0f : __ldg ((const float *) ((const char *) in
              + (size_t) y * in_pitch) + x * C + (e - sx * C));
    }
#pragma unroll
    for (int k = 0; k < UP_BLUR_LOADS; k++) {
      const int i = i0 + k * UP_THREADS;
      const int j = i / patch_row;
      if (i < n_elements)
        staged[j * patch_elements + (i - j * patch_row)] = v[k];
    }
  }
  __syncthreads ();
  const int runs = (n_out + UP_BLUR_RUN - 1) / UP_BLUR_RUN;
  for (int i = threadIdx.x; i < runs * patch_row; i += UP_THREADS) {
    const int run = i / patch_row;
    const int e = i - run * patch_row;
    const int m0 = run * UP_BLUR_RUN;
    float acc[UP_BLUR_RUN] = { };
    for (int t0 = 0; t0 < by.taps; t0 += UP_BLUR_TAPS) {
      float w[UP_BLUR_TAPS];
#pragma unroll
      for (int t = 0; t < UP_BLUR_TAPS; t++)
        w[t] = wy[t0 + t];
      /* staged row m0 + t0 + k is tap t0 + k - m of output m0 + m */
      const float *column = staged + (m0 + t0) * patch_elements + e;
#pragma unroll
      for (int k = 0; k < UP_BLUR_TAPS + UP_BLUR_RUN - 1; k++) {
        const float v = column[k * patch_elements];
#pragma unroll
        for (int m = 0; m < UP_BLUR_RUN; m++)
          if (k - m >= 0 && k - m < UP_BLUR_TAPS)
            acc[m] += w[k - m] * v;
      }
    }
#pragma unroll
    for (int m = 0; m < UP_BLUR_RUN; m++) {
      const int o = m0 + m;
      if (o >= n_out)
        break;
      /* patch row sy reads small row clamp (sy0 + sy) */
      const int first = o == 0 ? 0 : y_lo + o - sy0;
      const int last = o == n_out - 1 ? patch_rows - 1 : y_lo + o - sy0;
      for (int sy = first; sy <= last; sy++)
        patch[sy * patch_elements + e] = acc[m];
    }
  }
}

/* up_kernel's pass along x with four channels: a thread a pixel, one
 * float4 load a tap (RGBA 4K at sigma 15-20 0.4-0.55 us faster on the
 * H200). Its stores go in a channel order rotated by the thread's group
 * of eight pixels, so that a warp's stores fall in 32 banks; in channel
 * order (four to a bank) the pass measured slower than a thread an
 * element. Two channels this way lost up to 0.3 us (NV12, NV16, NV24). */
template < int TILE_WIDTH > __device__ __forceinline__ void
up_across_pixels (const float *patch, int patch_rows, int patch_elements,
    const float *wx, const int *first_x, int phases, int shift_x, int x0,
    int n_x, float *across, int stride)
{
  static_assert (UP_THREADS % TILE_WIDTH == 0, "whole rows at once");
  constexpr int rows_at_once = UP_THREADS / TILE_WIDTH;
  const int x = threadIdx.x % TILE_WIDTH;
  const int ph = (x0 + x) & (phases - 1);
  const int g = ((x0 + x) >> shift_x) - (x0 >> shift_x);
  const int turn = (x >> 3) & 3;        /* the channel stored first */
  float w[MAX_UP_TAPS];
#pragma unroll
  for (int t = 0; t < MAX_UP_TAPS; t++)
    w[t] = wx[ph * MAX_UP_TAPS + t];
  const float *in = patch + (g + first_x[ph]) * 4;
  for (int sy = threadIdx.x / TILE_WIDTH; sy < patch_rows;
      sy += rows_at_once) {
    const float *src = in + sy * patch_elements;
    float4 sum = make_float4 (0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
    for (int t = 0; t < MAX_UP_TAPS; t++, src += 4)
      add_weighted (sum, w[t], *reinterpret_cast < const float4 * >(src));
    /* r[c]: channel (c + turn) % 4, by constant register indices */
    const float acc[4] = { sum.x, sum.y, sum.z, sum.w };
    float r[4];
#pragma unroll
    for (int c = 0; c < 4; c++)
      r[c] = x < n_x ? acc[c] : 0.0f;
    if (turn & 1) {
      const float r0 = r[0];
      r[0] = r[1], r[1] = r[2], r[2] = r[3], r[3] = r0;
    }
    if (turn & 2) {
      const float r0 = r[0], r1 = r[1];
      r[0] = r[2], r[1] = r[3], r[2] = r0, r[3] = r1;
    }
    float *dst = across + sy * stride + x * 4;
#pragma unroll
    for (int c = 0; c < 4; c++)
      dst[(c + turn) & 3] = r[c];
  }
}

template < typename OutT, int C, bool WIDE, bool BLUR > __global__ void
__launch_bounds__ (UP_THREADS, UP_MIN_BLOCKS)
up_kernel (GbResample rx, GbResample ry, GbResample by, GbBorder border,
    UpReach reach_x, UpReach reach_y, const float *weights,
    const uint32_t *fragments, const float *small, size_t small_pitch,
    OutT * out, size_t out_pitch)
{
#ifdef GB_HAVE_MMA_K8
  constexpr int channels = C;
  using T = UpTile < C, WIDE >;
  constexpr int tile_width = T::WIDTH;
  constexpr int row_elements = T::ROW_ELEMENTS;
  constexpr int stride = T::STRIDE;
  extern __shared__ float4 shared_vectors[];
  float *shared = reinterpret_cast < float *>(shared_vectors);
  const int patch_width = up_patch_length (reach_x, tile_width);
  const int shift_y = reach_y.shift;
  const int patch_rows = up_patch_rows (shift_y);
  const int patch_elements = patch_width * channels;
  __shared__ float wy[BLUR ? UP_BLUR_PADDED_TAPS : 1];
  float *across = shared;       /* patch_rows x stride; first the staging */
  float *patch = across + up_across_floats (patch_rows, stride,
      patch_elements, BLUR, C);
  float *wx = patch + (size_t) patch_rows * patch_elements;
  int *first_x = (int *) (wx + rx.phases * MAX_UP_TAPS);

  const int x0 = blockIdx.x * tile_width;
  const int y0 = blockIdx.y * UP_ROWS;
  const int n_x = min (tile_width, rx.out_length - x0);
  const int n_y = min (UP_ROWS, ry.out_length - y0);
  const int sx0 = (x0 >> reach_x.shift) + reach_x.lowest;
  const int sy0 = (y0 >> shift_y) + reach_y.lowest;
  const int n_sx = up_patch_length (reach_x, n_x);

  for (int t = threadIdx.x; t < rx.phases * MAX_UP_TAPS; t += UP_THREADS) {
    const int ph = t / MAX_UP_TAPS, k = t % MAX_UP_TAPS;
    wx[t] = k < rx.taps ? weights[rx.weights + ph * rx.taps + k] : 0.0f;
  }
  for (int t = threadIdx.x; t < rx.phases; t += UP_THREADS)
    first_x[t] = rx.first[t] - reach_x.lowest;
  if constexpr (BLUR)
    for (int t = threadIdx.x; t < UP_BLUR_PADDED_TAPS; t += UP_THREADS)
      wy[t] = t < by.taps ? weights[by.weights + t] : 0.0f;
  /* The patch: a thread keeps one element of a row over the rows (a patch
   * row is at most 64 elements: 16 pixels of four channels on a wide tile
   * at D = 8). Every row the y pass reads
   * is loaded (clamped to the small image), also past a short tile's
   * last: finite values that only zero weights or unstored rows see. */
  const unsigned patch_row = n_sx * channels;
  const unsigned rounds = UP_THREADS / patch_row;      /* rows at once */
  gb_wait_for_previous_kernel ();       /* the small image's blur(s) */
  if constexpr (BLUR)
    up_patch_blurred_y < C > (rx, ry, by, border, wy, sx0, sy0, patch_rows,
        patch_elements, patch_row, small, small_pitch, across, patch);
  else if (threadIdx.x < rounds * patch_row) {
    /* UP_PATCH_LOADS loads in flight a thread, then their stores: one
     * load at a time waited a round trip to L2 each (the store's wait was
     * 7 % of up_kernel's stall samples on RGBA 4K, ncu) */
    const int e = threadIdx.x % patch_row;
    const int sx = e / channels;
    const int x = resample_source (rx, sx0 + sx, GB_BORDER_CLAMP);
    const float *src = small + x * channels + (e - sx * channels);
    for (int sy_first = threadIdx.x / patch_row; sy_first < patch_rows;
        sy_first += UP_PATCH_LOADS * rounds) {
      float v[UP_PATCH_LOADS];
#pragma unroll
      for (int k = 0; k < UP_PATCH_LOADS; k++) {
        const int sy = min (sy_first + k * (int) rounds, patch_rows - 1);
        const int y = resample_source (ry, sy0 + sy, GB_BORDER_CLAMP);
        v[k] = __ldg ((const float *) ((const char *) src
                + (size_t) y * small_pitch));
      }
#pragma unroll
      for (int k = 0; k < UP_PATCH_LOADS; k++) {
        const int sy = sy_first + k * (int) rounds;
        if (sy < patch_rows)
          patch[sy * patch_elements + e] = v[k];
      }
    }
  }
  __syncthreads ();

  /* Along x: every patch row, the tile's pixels. A thread keeps one
   * element (its phase, weights and patch column) over the rows, or with
   * four channels one pixel (up_across_pixels); D is a power of two. */
  const int shift_x = reach_x.shift;
  constexpr int rows_at_once = UP_THREADS / row_elements;
  if constexpr (C == 4)
    up_across_pixels < tile_width > (patch, patch_rows, patch_elements, wx,
        first_x, rx.phases, shift_x, x0, n_x, across, stride);
  else if (threadIdx.x < rows_at_once * row_elements) {
    const int e = threadIdx.x % row_elements;
    const int x = e / channels;
    const int ph = (x0 + x) & (rx.phases - 1);
    const int g = ((x0 + x) >> shift_x) - (x0 >> shift_x);
    float w[MAX_UP_TAPS];
#pragma unroll
    for (int t = 0; t < MAX_UP_TAPS; t++)
      w[t] = wx[ph * MAX_UP_TAPS + t];
    const float *in = patch + (g + first_x[ph]) * channels
        + (e - x * channels);
    for (int sy = threadIdx.x / row_elements; sy < patch_rows;
        sy += rows_at_once) {
      const float *src = in + sy * patch_elements;
      float acc = 0.0f;
#pragma unroll
      for (int t = 0; t < MAX_UP_TAPS; t++, src += channels)
        acc += w[t] * *src;
      across[sy * stride + e] = x < n_x ? acc : 0.0f;
    }
  }
  __syncthreads ();

  OutT *tile = (OutT *) ((char *) out + (size_t) y0 * out_pitch)
      + (size_t) x0 * channels;
  const bool aligned = ((uintptr_t) tile | out_pitch) % (8 * sizeof (OutT))
      == 0;
  if (aligned && n_y == UP_ROWS && n_x == tile_width)
    up_columns < OutT, 1, T::UNITS_X, true > (across, stride, shift_y,
        fragments, n_y, n_x * channels, tile, out_pitch, aligned);
  else
    up_columns < OutT, 1, T::UNITS_X, false > (across, stride, shift_y,
        fragments, n_y, n_x * channels, tile, out_pitch, aligned);
#else
  __trap ();                    /* no mma: an error, not a blank frame */
#endif
}

cudaError_t
blur_columns (const GbResample & r, const float *weights, GbBorder border,
    int elements, const float *in, size_t in_pitch, float *out,
    size_t out_pitch, bool overlap, cudaStream_t stream)
{
  if (r.phases != 1 || r.step != 1 || r.taps > GB_MULTISCALE_BLUR_TAPS)
    return cudaErrorInvalidValue;       /* not for any plan (multiscale.c) */
  /* blocks of `groups` float4 columns by blur_rows (run, groups) rows */
  const auto grid_for =[&](int run, int groups) {
    const int rows = blur_rows (run, groups);
    return dim3 ((elements + 4 * groups - 1) / (4 * groups),
        (r.out_length + rows - 1) / rows);
  };
  const dim3 long_grid = grid_for (4, BLUR_GROUPS);
  const bool long_runs = (int) (long_grid.x * long_grid.y) >= BLUR_MIN_BLOCKS;
  const int groups = long_runs ? BLUR_GROUPS : BLUR_SHORT_GROUPS;
  const int rows = blur_rows (long_runs ? 4 : 1, groups);
  const size_t shared = sizeof (float4) * groups * (rows + r.taps - 1);
  const dim3 grid = long_runs ? long_grid : grid_for (1, BLUR_SHORT_GROUPS);
  return gb_launch_after_kernel (overlap, long_runs ? blur_columns_kernel < 4,
      BLUR_GROUPS > : blur_columns_kernel < 1, BLUR_SHORT_GROUPS >, grid,
      BLUR_THREADS, shared, stream, r, weights, border, elements, in,
      in_pitch, out, out_pitch);
}

cudaError_t
columns (const GbResample & r, const float *weights, GbBorder border,
    int elements, const float *in, size_t in_pitch, float *out,
    size_t out_pitch, bool overlap, cudaStream_t stream)
{
  const int runs = (elements + COLUMN_RUN - 1) / COLUMN_RUN;
  const dim3 grid ((runs + COLUMN_RUNS - 1) / COLUMN_RUNS, r.out_length);
  return gb_launch_after_kernel (overlap, resample_columns_kernel, grid,
      COLUMN_THREADS, 0, stream, r, weights, border, elements, in, in_pitch,
      out, out_pitch);
}

/* Where columns_blur_x_kernel measured faster than the two kernels (H200,
 * docs/performance.md, "The small blur along x inside the column pass"):
 * D = 8 along y on rows of up to 320 elements (GRAY8 1080p sigma 15 19.0
 * -> 17.9 us, Y42B 46.3 -> 42.7); D = 16 on rows of up to 160 elements of
 * a plane beside others (alone false: its kernels start without dependent
 * launches, so one kernel fewer saves a whole gap; I420 1080p sigma 30
 * 29.1 -> 27.7), unless a plane of the frame has axes of different D (NV16
 * at sigma 100, whose chroma's chain is then longer: 39.0 -> 42.4). Lost:
 * D = 16 on a plane alone (GRAY8 1080p sigma 30 19.6 -> 20.1) and on NV12
 * 4K's luma (250 elements, 46.4 -> 49.1); rows of 500 elements at D = 8
 * (NV12 4K's chroma, 67.6 -> 68.0). */
bool
columns_blur_x_pays (int factor, int elements, bool alone,
    bool frame_mixed_factors)
{
  return (factor == 8 && elements <= 320)
      || (factor == 16 && !alone && !frame_mixed_factors && elements <= 160);
}

/* Down along y and the small blur along x in columns_blur_x_kernel:
 * cudaErrorNotSupported where that does not pay or the row does not fit
 * its shared memory (then the two kernels). alone: the plane runs by
 * itself, and its passes start early (gb_launch_after_kernel); next_early:
 * the pass after it may also take the SMs its finished blocks free. */
cudaError_t
columns_blur_x (const GbResample & r, const GbResample & bx,
    const float *host_table, const float *weights, GbBorder border,
    int channels, const float *in, size_t in_pitch, float *out,
    size_t out_pitch, bool alone, bool frame_mixed_factors, bool next_early,
    cudaStream_t stream)
{
  /* The kernel pads the row for a blur centred on its output (taps 2 rs +
   * 1 from -rs, plan_blur), within the padded taps. */
  RowWeights < 1 > blur_weights;
  if (!row_weights < 1 > (bx, host_table, blur_weights)
      || bx.in_length != bx.out_length || bx.taps != 1 - 2 * bx.first[0]
      || r.out_length <= 0)
    return cudaErrorInvalidValue;       /* not for any plan (multiscale.c) */
  const int elements = bx.in_length * channels;
  const int runs = (elements + COLUMN_RUN - 1) / COLUMN_RUN;
  /* Short rows in eight parts of the taps (each thread's half as long:
   * I420's chroma at D = 16, 70 elements, sigma 100 30.0 -> 28.3 us), so
   * that every thread has a run. */
  const int split = runs <= COLUMN_THREADS / 8 ? 8 : COLUMN_SPLIT;
  const size_t floats = (size_t) 4 * (split - 1) * runs + elements
      + GB_MULTISCALE_BLUR_TAPS * channels;
  if (!columns_blur_x_pays (r.step, elements, alone, frame_mixed_factors)
      || floats > ROW_BLUR_MAX_FLOATS)
    return cudaErrorNotSupported;
  auto kernel = split == 8
      ? (next_early ? columns_blur_x_kernel < 8, true >
      : columns_blur_x_kernel < 8, false >)
      : (next_early ? columns_blur_x_kernel < COLUMN_SPLIT, true >
      : columns_blur_x_kernel < COLUMN_SPLIT, false >);
  return gb_launch_after_kernel (alone, kernel, dim3 (r.out_length),
      COLUMN_THREADS, sizeof (float) * floats, stream, r, bx, blur_weights,
      weights, border, channels, in, in_pitch, out, out_pitch);
}

/* A down pass's weights as kernel parameters, zeros past its taps; false
 * where r is no down pass of factor D (no plan makes one: multiscale.c). */
template < int D > bool
down_weights (const GbResample & r, const float *table,
    DownWeights < D > &weights)
{
  if (r.phases != 1 || r.step != D || r.taps > GB_MULTISCALE_DOWN_TAPS (D)
      || !r.frame_border)
    return false;
  weights = { };
  for (int t = 0; t < r.taps; t++)
    weights.w[t] = table[r.weights + t];
  return true;
}

template < int D, typename InT > cudaError_t
down_columns (const GbResample & r, const float *host_table, GbBorder border,
    int elements, const InT * in, size_t in_pitch, float *out,
    size_t out_pitch, cudaStream_t stream)
{
  DownWeights < D > weights;
  if (!down_weights < D > (r, host_table, weights))
    return cudaErrorInvalidValue;
  const int groups = (elements + 3) / 4;
  const int blocks = (groups + DOWN_GROUPS - 1) / DOWN_GROUPS;
  int band = 16;
  while (band > 4 && blocks * ((r.out_length + band - 1) / band)
      < DOWN_MIN_BLOCKS)
    band /= 2;
  const dim3 grid (blocks, (r.out_length + band - 1) / band);
  down_columns_kernel < D, InT > <<<grid, DOWN_THREADS, 0, stream>>> (r,
      weights, border, elements, band, in, in_pitch, out, out_pitch);
  return cudaGetLastError ();
}

/* Down along x at the frame's size, 8-bit samples: a warp writes 32 J
 * neighbouring outputs of one frame row, a lane J outputs 32 apart (their
 * C channels). The warp first stages the bytes its outputs read ((32 J -
 * 1) D + RING D pixels) as words in shared memory, each byte once: words
 * inside the row from two aligned loads and a funnel shift, those within
 * 4 bytes of the row's start or 8 of its end (or past them) a byte at a
 * time through the border rule. Output o's taps then start on a word
 * boundary ((o - o0) D C bytes on, o0 the warp's first output), and it
 * reads them as whole words, two taps of a channel at a time in integer
 * dot products of bytes and 16-bit weights (DownRowWeights): no
 * conversion of a byte to float, which took three instructions a tap with
 * its multiply-add (ncu, GRAY8 1080p at sigma 100: 69 % of cycles
 * issuing). Every weight is a kernel parameter once the loop unrolls; no
 * lane takes another path. */
constexpr int DOWN_ROWS_THREADS = 128;
constexpr int DOWN_ROWS_WARPS = DOWN_ROWS_THREADS / 32;

/* J outputs a lane, 32 apart: each weight, loaded from the kernel's
 * parameters for every lane, serves J outputs. */
template < int D, int C, int J > struct DownRows
{
  static constexpr int TAPS = DownColumns < D, uint8_t >::RING * D;
  static constexpr int TAP_WORDS = TAPS * C / 4;
  static constexpr int STEP_WORDS = D * C / 4;  /* from one output to the next */
  static constexpr int OUTPUTS = 32 * J;       /* a warp's */
  static constexpr int SPAN_WORDS = (OUTPUTS - 1) * STEP_WORDS + TAP_WORDS;
  static constexpr int STAGE_LOADS = (SPAN_WORDS + 31) / 32;
  static_assert (TAPS * C % 8 == 0 && D * C % 8 == 0,
      "whole pairs of words");
};

/* down_rows_kernel's weights: each weight w as a signed 16-bit Q, w 2^shift
 * rounded as gb_fixed_weights_16 does; taps 2 p and 2 p + 1 are the low
 * and high halves of q[p]. A byte times a half is exact and so are the
 * int32 sums (at most 2^15 255 TAPS < 2^31). The pass differs from the
 * exact sum of the float weights by their rounding (at most 255 times the
 * larger of the positive and the negative roundings' sums, in units of
 * 2^-shift: 0.0051 of a level over every plan, docs/algorithms.md,
 * section 9.1) and the sum's conversion to float (2^-24 of the value).
 * One dp2a takes two taps: weights of 30 bits as two halves took twice as
 * many (docs/performance.md, "The pass along x with 16-bit weights"). */
template < int D > struct DownRowWeights
{
  static constexpr int TAPS = DownRows < D, 1, 1 >::TAPS;
  static_assert ((long) GB_FIXED_WEIGHT_MAX * 255 * TAPS < (long) INT_MAX,
      "int32 sums");
  uint32_t q[TAPS / 2];
  float scale;                  /* 2^-shift */
};

/* acc + the dot product of taps 2 p .. 2 p + 3 (bytes 0 .. 3 of v) with
 * their weights. */
template < int D > __device__ __forceinline__ void
dot_four_taps (int &acc, const DownRowWeights < D > &weights, int p,
    uint32_t v)
{
  asm ("dp2a.lo.s32.u32 %0, %1, %2, %0;":"+r" (acc):"r" (weights.q[p]),
      "r" (v));
  asm ("dp2a.hi.s32.u32 %0, %1, %2, %0;":"+r" (acc):"r" (weights.q[p + 1]),
      "r" (v));
}

/* Byte b of a row of `bytes` (a pixel's C samples each), through the
 * border rule where b lies outside it. */
template < int C > __device__ __forceinline__ uint32_t
bordered_byte (const GbResample & r, const uint8_t * row, int b,
    GbBorder border)
{
  const int s = bordered_element (r, b, C, border);
  return s < 0 ? 0u : (uint32_t) __ldg (row + s);
}

/* Bytes b .. b + 3 of the row, each through the border rule. */
template < int C > __device__ __forceinline__ uint32_t
bordered_word (const GbResample & r, const uint8_t * row, int b,
    GbBorder border)
{
  return bordered_byte < C > (r, row, b, border)
      | bordered_byte < C > (r, row, b + 1, border) << 8
      | bordered_byte < C > (r, row, b + 2, border) << 16
      | bordered_byte < C > (r, row, b + 3, border) << 24;
}

template < int D, int C, int J, bool LOADS_FIRST > __global__ void
__launch_bounds__ (DOWN_ROWS_THREADS)
down_rows_kernel (GbResample r, DownRowWeights < D > weights,
    GbBorder border, int n_rows, const uint8_t * in, size_t in_pitch,
    float *out, size_t out_pitch)
{
  using P = DownRows < D, C, J >;
  __shared__ uint4 words_shared[DOWN_ROWS_WARPS][(P::SPAN_WORDS + 3) / 4];
  const int warp = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  const int o0 = blockIdx.x * P::OUTPUTS;
  const int y = blockIdx.y * DOWN_ROWS_WARPS + warp;
  if (y >= n_rows)
    return;                     /* the whole warp: no block barrier below */
  uint32_t *words = reinterpret_cast < uint32_t * >(words_shared[warp]);
  const uint8_t *row = in + (size_t) y * in_pitch;
  const int row_bytes = r.in_length * C;
  const int byte0 = (o0 * D + r.first[0]) * C;

  if constexpr (LOADS_FIRST) {
    /* Every load of the staging first, then the stores: with each word
     * stored after its own loads, the next word's loads waited for them, a
     * round trip to memory per word (SASS at D = 16: five a warp). Bytes b ..
     * b + 3 lie in aligned words w and w + 1 of the row's, from its aligned
     * start, skewed alike for every word (b - byte0 is a multiple of 4). */
    const int row_skew = (int) ((uintptr_t) row & 3);
    const uint32_t *row_words = reinterpret_cast < const uint32_t * >(row
        - row_skew);
    const int word0 = (byte0 + row_skew) >> 2;    /* floor */
    const int skew = (byte0 + row_skew) & 3;
    uint32_t low[P::STAGE_LOADS], high[P::STAGE_LOADS];
#pragma unroll
    for (int i = 0; i < P::STAGE_LOADS; i++) {
      const int k = lane + 32 * i;
      const int b = byte0 + 4 * k;
      low[i] = high[i] = 0;
      if (k < P::SPAN_WORDS && b >= 4 && b + 8 <= row_bytes) {
        low[i] = __ldg (row_words + (word0 + k));
        high[i] = __ldg (row_words + (word0 + k + 1));
      }
    }
#pragma unroll
    for (int i = 0; i < P::STAGE_LOADS; i++) {
      const int k = lane + 32 * i;
      const int b = byte0 + 4 * k;
      if (k >= P::SPAN_WORDS)
        break;
      /* both words inside the row, else byte by byte through the border */
      words[k] = b >= 4 && b + 8 <= row_bytes
          ? __funnelshift_r (low[i], high[i], 8 * skew)
          : bordered_word < C > (r, row, b, border);
    }
  } else {
    /* each word's loads, then its store: the next word's loads wait for
     * them (down_rows () says where this measured faster) */
#pragma unroll
    for (int i = 0; i < P::STAGE_LOADS; i++) {
      const int k = lane + 32 * i;
      const int b = byte0 + 4 * k;
      if (k >= P::SPAN_WORDS)
        break;
      uint32_t v;
      /* two aligned words around bytes b .. b + 3, both inside the row */
      if (b >= 4 && b + 8 <= row_bytes) {
        const uint8_t *at = row + b;
        const int skew = (int) ((uintptr_t) at & 3);
        const uint32_t *w = reinterpret_cast < const uint32_t * >(at - skew);
        v = __funnelshift_r (__ldg (w), __ldg (w + 1), 8 * skew);
      } else {
        v = bordered_word < C > (r, row, b, border);
      }
      words[k] = v;
    }
  }
  __syncwarp ();

  if (o0 + lane >= r.out_length)
    return;
  int acc[J][C] = { };
  /* words k and k + 1 of output j's taps (k even): with one channel taps
   * 4 k .. 4 k + 7, with two each channel's taps 2 k .. 2 k + 3 (its bytes
   * gathered into one word) */
  auto add_two_words =[&](int j, int k, uint32_t a, uint32_t b) {
    if constexpr (C == 1) {
      dot_four_taps < D > (acc[j][0], weights, 2 * k, a);
      dot_four_taps < D > (acc[j][0], weights, 2 * k + 2, b);
    } else {
      dot_four_taps < D > (acc[j][0], weights, k, __byte_perm (a, b,
              0x6420));
      dot_four_taps < D > (acc[j][1], weights, k, __byte_perm (a, b,
              0x7531));
    }
  };
  if constexpr (P::STEP_WORDS % 4 == 0 && P::TAP_WORDS % 4 == 0) {
    /* 16 bytes a load where every lane's taps start on 16 bytes */
#pragma unroll
    for (int k = 0; k < P::TAP_WORDS; k += 4)
#pragma unroll
      for (int j = 0; j < J; j++) {
        const uint4 v = *reinterpret_cast < const uint4 * >(words + (lane
                + 32 * j) * P::STEP_WORDS + k);
        add_two_words (j, k, v.x, v.y);
        add_two_words (j, k + 2, v.z, v.w);
      }
  } else {
#pragma unroll
    for (int k = 0; k < P::TAP_WORDS; k += 2)
#pragma unroll
      for (int j = 0; j < J; j++) {
        const uint2 v = *reinterpret_cast < const uint2 * >(words + (lane
                + 32 * j) * P::STEP_WORDS + k);
        add_two_words (j, k, v.x, v.y);
      }
  }
  float *dst = (float *) ((char *) out + (size_t) y * out_pitch);
#pragma unroll
  for (int j = 0; j < J; j++) {
    const int o = o0 + lane + 32 * j;
    if (o < r.out_length)
#pragma unroll
      for (int c = 0; c < C; c++)
        dst[o * C + c] = (float) acc[j][c] * weights.scale;
  }
}

/* Both down passes in down_tile_kernel, where the plan allows: one factor
 * for both axes and tiles of at least MIN_TILE small columns. Returns
 * cudaErrorNotSupported otherwise (the caller runs the two passes). */
constexpr int MIN_TILE = 8;
/* Where the tile measured faster than the two passes on the H100
 * (docs/performance.md, "multiscale: margins cut ..." and "multiscale
 * on the tensor cores"): on planes of fewer samples than
 * TILE_TALL_SAMPLES (RGBA 1080p, GRAY8 4K and 1080p) at every D, on larger
 * planes (RGBA 4K) at D = 16 only, and, on the H200, at D = 8 on large
 * planes of three 8-bit channels with the walk on the tensor cores (RGB 4K
 * at sigma 15 to 45: 72.7-75.5 -> 60.6-63.3 us; 66.8-69.6 in FP32; RGBA
 * 4K lost, 71.75 -> 72.7 at sigma 20 with the walk as it is now:
 * docs/performance.md, "The tensor walk at D = 8 on every 8-bit plane").
 * The walk is on the tensor cores on 8-bit samples; in FP32 on 16-bit
 * ones, which measured faster (four mma a tile; RGBA64_LE 1080p sigma
 * 100: 47.6 against 56.4 us). At D = 8 the FP32 walk was faster on the
 * smaller 8-bit planes until the tensor walk took the small rows as N,
 * k-steps of 16 and the bytes' 1024 in its start (H200, sigma 20: RGBA
 * 1080p 31.4 -> 29.1 us, GRAY8 4K 30.3 -> 27.6, RGB 1080p 25.9 -> 23.6,
 * NV12 4K 50.0 -> 46.0).
 * Its height in small rows trades the rows it reads twice (RING - 1
 * blocks of D a tile) for blocks: on the tensor cores and in FP32 at D =
 * 16 (16-bit samples) 2 to 16, whichever balances the multiprocessors
 * best counting the blocks each holds at once (balanced_tile_rows,
 * weighted); in FP32 at D = 8 2 to 8, whichever balances the
 * multiprocessors best (balanced_tile_rows). */
constexpr size_t TILE_TALL_SAMPLES = (size_t) 1 << 24;

enum class TileWalk
{ NONE, FLOAT, TENSOR };

TileWalk
tile_walk (int factor, int channels, int sample_bytes, size_t samples)
{
  const bool tall = samples >= TILE_TALL_SAMPLES;
  if (sample_bytes == 1)
    return factor >= 16 || !tall || channels == 3 ? TileWalk::TENSOR
        : TileWalk::NONE;
  return tall && factor < 16 ? TileWalk::NONE : TileWalk::FLOAT;
}

/* Small rows per tile: the height from 2 to max_rows whose busiest
 * multiprocessor takes the least time, counted in the frame-row units it
 * walks, ceil (blocks / sms) (ty + RING - 1) (a block walks ty + RING - 1
 * blocks of D frame rows to write ty small rows); the smaller on a tie, 0
 * where none fits.
 *
 * In FP32 at D <= 8 (16-bit samples; 8-bit ones too until the tensor
 * walk took them in the twenty-sixth session; max_rows 8, resident NULL:
 * the count alone), bound by issue (ncu, RGBA 1080p at sigma 20: 74 % of
 * cycles issuing). Past 8, a multiprocessor's one block has too few
 * warps (RGBA 1080p at 12: 33.4 us). Measured on the H200 at sigma 20
 * against 4 everywhere (docs/performance.md, "The down tile's height"):
 * RGBA 1080p 34.1 -> 32.9 us (6), RGBA64_LE 1080p 47.0 -> 37.7 (6),
 * GRAY8 4K 35.7 -> 34.0 (6). Below 4 only where few blocks leave
 * multiprocessors idle at 4: P016_LE 1080p's chroma (960 x 540, two
 * channels) at D = 8 and sigma 50 takes 2, 117 blocks instead of 60
 * (sigma 100: 46.2 -> 37.2 us;
 * docs/performance.md, "Small tiles for small planes"); GRAY16_LE 1080p
 * keeps 4 (111 blocks, where 2 rows would make 219).
 *
 * On the tensor cores, and in FP32 at D = 16 (max_rows 16: on the
 * tensor cores, two n-tiles;
 * the weights were fitted on the tensor walk, and the FP32 one measured
 * faster with them: RGBA64_LE 4K sigma 60 117.4 -> 104.7 us), a unit is
 * worth TILE_ALONE_COST / TILE_SHARED_COST more where that multiprocessor
 * holds a single block (resident[ty]: how many of the height's blocks it
 * can hold at once; 0 where one does not fit, and the height is left
 * out). The down_tile_kernel times of the H200's kernel traces fit that
 * count (docs/performance.md, "The tensor-core tile's height by balance"),
 * at D = 16 and sigma 30, with the heights used before (16 from 2^24
 * samples, 4 from 2^22, else 2): RGBA 1080p, 4 rows, 260 blocks: 18 units,
 * 20.4 us; 2560 x 1440, 4 rows, 425 blocks: 36, 38.0; 3200 x 1800, 16
 * rows, 168 blocks: 42, 45.3; 4K, 16 rows, 250 blocks: 42, 46.8 (1.05 to
 * 1.13 us a unit with two blocks or more a multiprocessor); a block alone
 * took 1.5 times longer a unit (RGBA 1080p at 8 rows, 130 blocks, against
 * 4: 34.6 against 32.9 us the frame). Chosen so, the frames took (H200,
 * sigma 30 / 60): RGBA 2560 x 1440 53.6 / 54.0 -> 43.8 / 44.1 us (7 rows),
 * 3200 x 1800 65.5 / 65.6 -> 56.3 / 56.5 (11), 4K 71.7 / 72.4 -> 69.3 /
 * 70.1 (15); RGB at 60 1080p 31.8 -> 30.1, 4K 66.9 -> 54.3, and at D = 8
 * 3200 x 1800 at sigma 15 50.1 -> 44.3; RGBA 1080p (4 rows) and RGB 4K at
 * D = 8 (16) kept theirs. These costs were fitted on the H200 alone: on
 * GPUs with less shared memory a block (compute capability 8.6 and 8.9: 16
 * rows do not fit, and fewer blocks fit a multiprocessor) the tile now
 * runs at a lower height where it fell back to the two passes, not
 * measured there. They were fitted with the small rows as the mma's M;
 * with them as N the same heights were kept: heights up to 8 alone (one
 * n-tile) lost at 4K (RGBA at sigma 100: 68.2 -> 76.4 us, 525 blocks of
 * 7 rows; docs/performance.md, "The tensor walk's small rows as N"). */
constexpr int TILE_SHARED_COST = 2;
constexpr int TILE_ALONE_COST = 3;

int
balanced_tile_rows (int tiles_x, int small_rows, int ring, int sms,
    int max_rows, const int *resident)
{
  int best = 0;
  long best_cost = 0;
  for (int ty = 2; ty <= max_rows; ty++) {
    if (resident && resident[ty] < 1)
      continue;
    const long blocks = (long) tiles_x * ((small_rows + ty - 1) / ty);
    const long per_sm = (blocks + sms - 1) / (sms > 0 ? sms : 1);
    const bool alone = resident && (per_sm < 2 || resident[ty] < 2);
    const long cost = per_sm * (ty + ring - 1)
        * (alone ? TILE_ALONE_COST : TILE_SHARED_COST);
    if (best == 0 || cost < best_cost) {
      best = ty;
      best_cost = cost;
    }
  }
  return best;
}

/* A tile's dynamic shared memory at ty small rows: the staged rows, the
 * rows decimated along y, the pixel map and the tensor walk's taps. */
template < typename P > size_t
tile_shared_bytes (int ty)
{
  return P::STAGE_BYTES + sizeof (float) * tile_across_rows (ty)
      * TILE_ACROSS_ROW + sizeof (int) * TILE_SPAN + P::TAP_BYTES;
}

/* f (std::integral_constant < int, NT > ()) for the n-tiles of a tile ty
 * small rows tall (the tensor walk: one up to 8 rows, two past; the FP32
 * walk takes no n-tiles: 1): one place for the choice that sizes the
 * kernel and launches it. */
template < bool TENSOR, typename F > auto
with_n_tiles (int ty, F f)
{
  if constexpr (TENSOR)
    if (ty > 8)
      return f (std::integral_constant < int, 2 > ());
  return f (std::integral_constant < int, 1 > ());
}

/* The kernel of a tile ty small rows tall. */
template < int D, typename InT, bool TENSOR > const void *
tile_kernel (int ty)
{
  return with_n_tiles < TENSOR > (ty,[](auto nt) {
        return (const void *) down_tile_kernel < D, InT, TENSOR,
            decltype (nt)::value >;});
}

/* The device's multiprocessors, and for each height ty from 2 to 16 the
 * blocks of down_tile_kernel a multiprocessor holds (0 where one does not
 * fit). Per device, kernel and height, asked once (-1: does not fit) and
 * kept off the per-frame path, as prepare_kernel's counts. The tallest
 * height is asked first: where it fits, that raises the kernel's limit to
 * all a block may have. */
template < int D, typename InT, bool TENSOR > cudaError_t
tile_residents (int *sms, int resident[17])
{
  static std::atomic < int > cached[GB_CACHED_DEVICES][17];
  using P = DownTile < D, InT, TENSOR >;
  int device = -1;
  cudaError_t err = cudaGetDevice (&device);
  if (err == cudaSuccess)
    err = gb_device_multiprocessors (device, sms);
  const bool cache = device >= 0 && device < GB_CACHED_DEVICES;
  for (int ty = 16; err == cudaSuccess && ty >= 2; ty--) {
    const int known = cache ? cached[device][ty].load
        (std::memory_order_relaxed) : 0;
    if (known != 0) {
      resident[ty] = known > 0 ? known : 0;
      continue;
    }
    const size_t bytes = tile_shared_bytes < P > (ty);
    const void *kernel = tile_kernel < D, InT, TENSOR > (ty);
    err = gb_allow_dynamic_shared (kernel, bytes);
    if (err == cudaErrorInvalidValue) {
      err = cudaSuccess;
      resident[ty] = 0;
    } else if (err == cudaSuccess) {
      err = gb_cached_resident_blocks (NULL, kernel, TILE_THREADS, bytes,
          true, &resident[ty]);
    }
    if (err == cudaSuccess && cache)
      cached[device][ty].store (resident[ty] > 0 ? resident[ty] : -1,
          std::memory_order_relaxed);
  }
  return err;
}

constexpr int MAX_TILE_FACTOR = 16;
template < int D, typename InT, bool TENSOR > cudaError_t
down_tile_walk (const GbMultiscalePlan & plan, GbBorder border,
    int channels, const InT * in, size_t in_pitch,
    float *out, size_t out_pitch, cudaStream_t stream)
{
  using P = DownTile < D, InT, TENSOR >;
  const GbResample & rx = plan.down_x;
  const GbResample & ry = plan.down_y;
  /* Both axes one down pass of factor D, with the same weights. */
  DownWeights < D > weights;
  if (!down_weights < D > (rx, plan.table, weights) || ry.step != D
      || ry.phases != 1 || ry.taps != rx.taps || ry.weights != rx.weights
      || !ry.frame_border)
    return cudaErrorNotSupported;
  /* A tile is tx + RING - 1 blocks of D pixels, with room for the
   * skew of its first pixel in 16 bytes. */
  TileShape shape;
  shape.tx = (TILE_SPAN - 16) / (D * channels) - (P::RING - 1);
  if (shape.tx < MIN_TILE)
    return cudaErrorNotSupported;
  shape.tiles_x = (rx.out_length + shape.tx - 1) / shape.tx;
  if constexpr (D <= 8 && !TENSOR) {
    /* All the device's multiprocessors, even where the frame's other
     * planes run beside this one: their kernels finish first (NV12 4K at
     * sigma 20, its luma at 6 rows: 51.7 us; at the 8 its share of the
     * multiprocessors would pick: 56.3; measured when 8-bit planes took
     * the FP32 walk, which 16-bit ones alone take now). */
    int sms;
    const cudaError_t err = gb_current_multiprocessors (&sms);
    if (err != cudaSuccess)
      return err;
    shape.ty = balanced_tile_rows (shape.tiles_x, ry.out_length, P::RING,
        sms, 8, NULL);
  } else {
    /* On the tensor cores, and in FP32 at D = 16 (16-bit samples), whose
     * 16 rows hold one block a multiprocessor (about 134 KB). */
    int sms, resident[17] = { };
    const cudaError_t err = tile_residents < D, InT, TENSOR > (&sms,
        resident);
    if (err != cudaSuccess)
      return err;
    shape.ty = balanced_tile_rows (shape.tiles_x, ry.out_length, P::RING,
        sms, 16, resident);
    if (shape.ty == 0)
      return cudaErrorNotSupported;
  }
  shape.aligned = ((uintptr_t) in | in_pitch) % 16 == 0;
  /* The tensor walk's start: -1024 times the sum of the fp16 parts it
   * multiplies, in double (within 2^-14 of a level). */
  shape.walk_start = 0.0f;
  if constexpr (TENSOR) {
    double sum = 0.0;
    for (int t = 0; t < P::RING * D; t++) {
      __half high, low;
      gb_split_half (weights.w[t], high, low);
      sum += (double) __half2float (high) + (double) __half2float (low);
    }
    shape.walk_start = (float) (-1024.0 * sum);
  }
  /* More than a GPU's blocks may hold (64 KB on compute capability 7.5,
   * 99 KB on 8.6 and 8.9): in FP32 at D <= 8 (16-bit samples) a lower
   * tile, down to 4 rows, else the two passes (the heights of the tensor
   * walk and of the FP32 walk at D = 16 that do not fit are left out
   * above). Not below 4: 2 and 3 rows pay only where blocks are few, and
   * 16-bit samples need about 76 KB even at 2. */
  size_t shared;
  for (;;) {
    shared = tile_shared_bytes < P > (shape.ty);
    const cudaError_t err = gb_allow_dynamic_shared (tile_kernel < D, InT,
        TENSOR > (shape.ty), shared);
    if (err == cudaSuccess)
      break;
    if (err != cudaErrorInvalidValue)
      return err;
    if (TENSOR || D > 8 || shape.ty <= 4)
      return cudaErrorNotSupported;
    shape.ty--;
  }
  const int blocks = shape.tiles_x * ((ry.out_length + shape.ty - 1)
      / shape.ty);
  with_n_tiles < TENSOR > (shape.ty,[&](auto nt) {
        down_tile_kernel < D, InT, TENSOR, decltype (nt)::value >
            <<<blocks, TILE_THREADS, shared, stream>>> (rx, ry, weights,
            border, channels, shape, in, in_pitch, out, out_pitch);
        return 0;});
  return cudaGetLastError ();
}

template < int D, typename InT > cudaError_t
down_tile (const GbMultiscalePlan & plan, GbBorder border, int channels,
    const InT * in, size_t in_pitch, float *out, size_t out_pitch,
    cudaStream_t stream)
{
  const size_t samples = (size_t) plan.down_x.in_length * channels
      * plan.down_y.in_length;
  switch (tile_walk (D, channels, sizeof (InT), samples)) {
    case TileWalk::TENSOR:
      if constexpr (sizeof (InT) == 1)
        return down_tile_walk < D, InT, true > (plan, border, channels,
            in, in_pitch, out, out_pitch, stream);
      break;
    case TileWalk::FLOAT:
      /* never on 8-bit samples: no such kernel is built */
      if constexpr (sizeof (InT) > 1)
        return down_tile_walk < D, InT, false > (plan, border, channels,
            in, in_pitch, out, out_pitch, stream);
      break;
    case TileWalk::NONE:
      break;
  }
  return cudaErrorNotSupported;
}

constexpr size_t DOWN_ROWS_D8_MAX_SAMPLES = (size_t) 1 << 22;

/* Where down_rows_kernel and then the column pass (columns ()) measured
 * faster than the other down paths (H200, docs/performance.md, "The down
 * pass"): planes of one or two 8-bit channels at D = 16 (GRAY8, NV12, I420
 * at sigma 100, 1080p and 4K: 10 to 36 % faster), and at D = 8 below 2^22
 * samples (1080p at sigma 30: 2 to 4 %; 4K lost 4 to 17 %). Four channels
 * lost everywhere, with floats (RGBA 1080p sigma 100: 35.6 against 44.1
 * us) and again with the integer dot products, a channel's two bytes of
 * two pixels a dp2a (H200, sigma 100: RGBA 1080p 33.6 -> 41.7 us, 4K 73.5
 * -> 78.5; two outputs a lane 61.1 and 97.2): the pass along x alone took
 * longer than down_tile_kernel's two (24.4 against 20.7 us at 1080p;
 * docs/performance.md, the seventeenth session's "Tried and not kept"). */
bool
down_rows_pays (int factor, int channels, size_t samples)
{
  if (channels > 2)
    return false;
  return factor == 16 || (factor == 8 && samples < DOWN_ROWS_D8_MAX_SAMPLES);
}

/* The down pass's weights in down_rows_kernel's form; false where
 * down_weights is, or all are zero. */
template < int D > bool
down_row_weights (const GbResample & r, const float *table,
    DownRowWeights < D > &fixed)
{
  DownWeights < D > weights;
  if (!down_weights < D > (r, table, weights))
    return false;
  constexpr int TAPS = DownRowWeights < D >::TAPS;
  static_assert (TAPS <= GB_FIXED_WEIGHTS_MAX_TAPS, "gb_fixed_weights_16");
  int q[TAPS];
  const int shift = gb_fixed_weights_16 (weights.w, TAPS, q);
  if (shift < 0)
    return false;
  fixed = { };
  for (int t = 0; t < TAPS; t++)
    fixed.q[t / 2] |= (uint32_t) (uint16_t) (int16_t) q[t] << 16 * (t % 2);
  fixed.scale = ldexpf (1.0f, -shift);
  return true;
}

/* Down along x with down_rows_kernel: 8-bit samples of one or two
 * channels, D = 8 or 16 (down_rows_pays). Two outputs a lane from
 * DOWN_ROWS_TWO_OUTPUTS_SAMPLES, where the weights' loads weigh more than
 * the warps lost (H200, sigma 100: GRAY8 4K 32.8 -> 31.6 us, NV12 4K
 * 44.0-44.1 -> 42.5-42.7; GRAY8 1080p lost, 20.2 -> 21.3, NV12 1080p 26.7
 * -> 31.1; four outputs lost at 1080p and on NV12 4K, tied on GRAY8 4K:
 * docs/performance.md, "The pass along x in integers"). */
constexpr size_t DOWN_ROWS_TWO_OUTPUTS_SAMPLES = (size_t) 1 << 22;

template < int D, int C, int J, bool LOADS_FIRST > cudaError_t
down_rows_launch (const GbResample & r, const DownRowWeights < D > &weights,
    GbBorder border, int n_rows, const uint8_t * in, size_t in_pitch,
    float *out, size_t out_pitch, cudaStream_t stream)
{
  const dim3 grid ((r.out_length + 32 * J - 1) / (32 * J),
      (n_rows + DOWN_ROWS_WARPS - 1) / DOWN_ROWS_WARPS);
  down_rows_kernel < D, C, J, LOADS_FIRST >
      <<<grid, DOWN_ROWS_THREADS, 0, stream>>> (r, weights, border, n_rows,
      in, in_pitch, out, out_pitch);
  return cudaGetLastError ();
}

template < int D > cudaError_t
down_rows (const GbResample & r, const float *host_table, GbBorder border,
    int channels, int n_rows, const uint8_t * in, size_t in_pitch, float *out,
    size_t out_pitch, bool alone, cudaStream_t stream)
{
  DownRowWeights < D > weights;
  if (!down_row_weights < D > (r, host_table, weights))
    return cudaErrorInvalidValue;
  /* D = 8 runs here only below DOWN_ROWS_D8_MAX_SAMPLES (down_rows_pays):
   * its two-output kernels would never launch. */
  static_assert (DOWN_ROWS_D8_MAX_SAMPLES <= DOWN_ROWS_TWO_OUTPUTS_SAMPLES,
      "D = 8 keeps one output a lane");
  constexpr int J = D == 16 ? 2 : 1;
  const bool two = (size_t) n_rows * r.in_length * channels
      >= DOWN_ROWS_TWO_OUTPUTS_SAMPLES;
  /* The staging's loads all first (down_rows_kernel's LOADS_FIRST) where
   * that measured faster: two outputs a lane, and a plane alone (H200,
   * sigma 100: GRAY8 4K 28.9 -> 25.1 us, NV12 4K 42.3 -> 40.2 by its
   * luma; GRAY8 1080p sigma 15 16.0 -> 15.0). Beside other planes at one
   * output a lane the pass finishing sooner cost the frame (NV12 1080p
   * sigma 15 22.7 -> 25.7 us: columns_blur_x_kernel then shared the SMs
   * with the chroma's passes, 7.6 -> 13.4 us), though there it also took
   * NV12 4K to 37.7 (its chroma is just under 2^22 samples) and NV16 1080p
   * sigma 30 from 30.3 to 27.6: gains this rule leaves (docs/performance.md,
   * "The down pass's loads all at once"). */
  auto launch =[&](auto c) {
    constexpr int C = decltype (c)::value;
    return two ? down_rows_launch < D, C, J, true > (r, weights, border,
        n_rows, in, in_pitch, out, out_pitch, stream)
        : alone ? down_rows_launch < D, C, 1, true > (r, weights, border,
        n_rows, in, in_pitch, out, out_pitch, stream)
        : down_rows_launch < D, C, 1, false > (r, weights, border, n_rows,
        in, in_pitch, out, out_pitch, stream);
  };
  switch (channels) {
    case 1:
      return launch (std::integral_constant < int, 1 > ());
    case 2:
      return launch (std::integral_constant < int, 2 > ());
    default:
      return cudaErrorInvalidValue;     /* not for down_rows_pays */
  }
}

/* The small blur along x in runs of 128 where a row of the small image
 * still takes at least four of them, that leaves two blocks an SM (the
 * H100's 132, as BLUR_MIN_BLOCKS) and the blur takes its groups of taps
 * (up to 44: sigma below about 48.7 at D = 8, 97.5 at D = 16; the runs a
 * row rule out the larger factors). H200 (docs/performance.md, "The small
 * blur along x in runs of 128 by the small image"), one run: where all
 * three hold (the 4K planes of D = 8), GRAY16_LE at sigma 15 36.7 -> 34.6
 * us, RGBA 71.4 -> 71.0, RGBA64_LE 81.9 -> 81.35 (GRAY8, RGB level); with
 * two runs to a row, RGB 4K at sigma 70 (D = 16) lost 0.25 us. The frames
 * where the blocks or the taps fail the test have two runs to a row as
 * well (GRAY16_LE 1080p at sigma 15, 74 blocks; RGB 4K at sigma 100, 45
 * taps: 0.35-0.4 us lost in an earlier run's probe of 128 everywhere):
 * those two bounds were not measured apart from the runs a row. */
constexpr int ROW_BLUR_LONG_OUTPUTS = 128;
constexpr int ROW_BLUR_LONG_MIN_RUNS = 4;
constexpr int ROW_BLUR_LONG_MIN_BLOCKS = BLUR_MIN_BLOCKS;

/* overlap: in is the previous kernel's output, and the pass may start
 * while that kernel finishes (gb_launch_after_kernel); next_early (D = 1
 * only): the pass after it may also take the SMs its finished blocks
 * free. */
template < int D, typename InT > cudaError_t
row_pass (const GbResample & r, const float *host_table, GbBorder border,
    int channels, int n_rows, const InT * in, size_t in_pitch, float *out,
    size_t out_pitch, bool overlap, cudaStream_t stream,
    bool next_early = false)
{
  RowWeights < D > weights;
  if (!row_weights < D > (r, host_table, weights))
    return cudaErrorInvalidValue;       /* not for any plan (multiscale.c) */
  const int lines = row_pass_lines (channels);
  const int line_blocks = (n_rows + lines - 1) / lines;
  auto launch =[&](auto outputs) {
    constexpr int OUT = decltype (outputs)::value;
    using P = RowPass < D, OUT >;
    const size_t shared = sizeof (float4) * D * P::LENGTH
        + sizeof (float) * (swizzle (P::OUTPUTS * lines * channels - 1) + 1);
    /* A row's outputs shared evenly by its blocks: a last block with a
     * few outputs would leave most of its threads idle. */
    const int blocks = (r.out_length + P::OUTPUTS - 1) / P::OUTPUTS;
    const int per_block = (r.out_length + blocks - 1) / blocks;
    const dim3 grid (blocks, line_blocks);
    /* Only the small blur along x (D = 1) lets the next pass start early:
     * no instance of the down passes with it. */
    auto kernel = row_pass_kernel < D, InT, false, OUT >;
    if constexpr (D == 1)
      if (next_early)
        kernel = row_pass_kernel < D, InT, true, OUT >;
    return gb_launch_after_kernel (overlap, kernel, grid, P::THREADS, shared,
        stream, r, weights, border, channels, n_rows, per_block, in,
        in_pitch, out, out_pitch);
  };
  if constexpr (D == 1) {
    const int long_runs = (r.out_length + ROW_BLUR_LONG_OUTPUTS - 1)
        / ROW_BLUR_LONG_OUTPUTS;
    if (blur_taps_grouped (r.taps) && long_runs >= ROW_BLUR_LONG_MIN_RUNS
        && long_runs * line_blocks >= ROW_BLUR_LONG_MIN_BLOCKS)
      return launch (std::integral_constant < int, ROW_BLUR_LONG_OUTPUTS > ());
  }
  return launch (std::integral_constant < int, row_pass_outputs (D) > ());
}

/* Calls launch(std::integral_constant<int, D> ()) for the plan's factor D
 * (8 to 64): a generic lambda takes it as [&] (auto d) { ... d.value ... }. */
template < typename Launch > cudaError_t
dispatch_factor (int factor, Launch && launch)
{
  switch (factor) {             /* GB_MULTISCALE_MIN_FACTOR up */
    case 8:
      return launch (std::integral_constant < int, 8 > ());
    case 16:
      return launch (std::integral_constant < int, 16 > ());
    case 32:
      return launch (std::integral_constant < int, 32 > ());
    case 64:
      return launch (std::integral_constant < int, 64 > ());
  }
  return cudaErrorInvalidValue;
}

template < typename OutT, int C, bool WIDE > cudaError_t
up_tiles (const GbResample & rx, const GbResample & ry,
    const GbResample & by, GbBorder border, const float *weights,
    const uint32_t *fragments, const float *small, size_t small_pitch,
    OutT * out, size_t out_pitch, bool overlap, cudaStream_t stream)
{
  constexpr int channels = C;
  using T = UpTile < C, WIDE >;
  const UpReach reach_x = up_reach (rx);
  const UpReach reach_y = up_reach (ry);
  if (!up_plan_fits (rx, reach_x) || !up_plan_fits (ry, reach_y))
    return cudaErrorInvalidValue;       /* not for any plan */
  const size_t patch_width = up_patch_length (reach_x, T::WIDTH);
  const size_t patch_rows = up_patch_rows (reach_y.shift);
  const size_t shared = sizeof (float) * (up_across_floats (patch_rows,
          T::STRIDE, patch_width * channels, by.taps > 0, C)
      + patch_rows * patch_width * channels + rx.phases * MAX_UP_TAPS)
      + sizeof (int) * rx.phases;
  if (by.taps > GB_MULTISCALE_BLUR_TAPS || (by.taps > 0
          && (by.phases != 1 || by.step != 1)))
    return cudaErrorInvalidValue;       /* not for any plan (multiscale.c) */
  if (shared > 48 * 1024)
    return cudaErrorInvalidValue;       /* not for any plan */
  const dim3 grid ((rx.out_length + T::WIDTH - 1) / T::WIDTH,
      (ry.out_length + UP_ROWS - 1) / UP_ROWS);
  /* Instances with the blur only where gb_multiscale_blur_in_up may take
   * it; the others are compiled without it. */
  if (by.taps > 0) {
    if constexpr (C <= 2)
      return gb_launch_after_kernel (overlap, up_kernel < OutT, C, WIDE,
          true >, grid, UP_THREADS, shared, stream, rx, ry, by, border,
          reach_x, reach_y, weights, fragments, small, small_pitch, out,
          out_pitch);
    return cudaErrorInvalidValue;       /* not gb_multiscale_blur_in_up */
  }
  return gb_launch_after_kernel (overlap, up_kernel < OutT, C, WIDE, false >,
      grid, UP_THREADS, shared, stream, rx, ry, by, border, reach_x, reach_y,
      weights, fragments, small, small_pitch, out, out_pitch);
}

/* The wide tile where its grid still holds UP_WIDE_BLOCKS_PER_SM blocks a
 * multiprocessor: it takes each block's set-up (37 % of up_kernel's
 * instructions on RGBA 1080p, ncu) over twice the pixels, but with fewer
 * blocks the last ones run alone. H200 (132 SMs), sigma 20: RGBA 4K
 * (1020 wide blocks) 80.2 -> 75.3 us, GRAY8 4K (510) 32.8 -> 31.1, RGB 4K
 * 59.7 -> 55.9, RGBA64_LE 4K 90.1 -> 85.3; RGBA 1080p (270) 32.3 ->
 * 37.1, GRAY8 1080p (135) 18.0 -> 18.6 (docs/performance.md, "The up
 * pass's tile"). */
constexpr int UP_WIDE_BLOCKS_PER_SM = 3;

template < int C > cudaError_t
up_tile_wide (const GbResample & rx, const GbResample & ry, bool *wide)
{
  int sms;
  const cudaError_t err = gb_current_multiprocessors (&sms);
  if (err != cudaSuccess)
    return err;
  constexpr int width = UpTile < C, true >::WIDTH;
  const long blocks = (long) ((rx.out_length + width - 1) / width)
      * ((ry.out_length + UP_ROWS - 1) / UP_ROWS);
  *wide = blocks >= (long) UP_WIDE_BLOCKS_PER_SM * sms;
  return cudaSuccess;
}

template < typename OutT, int C > cudaError_t
up (const GbResample & rx, const GbResample & ry, const GbResample & by,
    GbBorder border, const float *weights, const uint32_t *fragments,
    const float *small, size_t small_pitch, OutT * out, size_t out_pitch,
    bool overlap, cudaStream_t stream)
{
  bool wide;
  const cudaError_t err = up_tile_wide < C > (rx, ry, &wide);
  if (err != cudaSuccess)
    return err;
  if (wide)
    return up_tiles < OutT, C, true > (rx, ry, by, border, weights,
        fragments, small, small_pitch, out, out_pitch, overlap, stream);
  return up_tiles < OutT, C, false > (rx, ry, by, border, weights,
      fragments, small, small_pitch, out, out_pitch, overlap, stream);
}

}                               /* namespace */

void
gb_multiscale_up_fragments_fill (const GbResample * up_y, const float *table,
    uint32_t *fragments)
{
  memset (fragments, 0, sizeof (uint32_t) * GB_MULTISCALE_UP_FRAGMENT_WORDS);
  const UpReach reach = up_reach (*up_y);
  if (!up_plan_fits (*up_y, reach))
    return;                     /* up () refuses the plan */
  const int d = up_y->phases;
  const int steps = up_k_steps (reach.shift);
  for (int v = 0; v < up_variants (reach.shift); v++)
    for (int lane = 0; lane < 32; lane++)
      for (int s = 0; s < steps; s++)
        for (int reg = 0; reg < 2; reg++) {
          /* m16n8k8's A: register reg holds row g + 8 reg, columns 2 q and
           * 2 q + 1, as an fp16 pair; the low parts two registers on */
          __half high[2], low[2];
          for (int b = 0; b < 2; b++) {
            const int t = 16 * v + (lane >> 2) + 8 * reg;
            const int ph = t & (d - 1);
            const int k = 8 * s + 2 * (lane & 3) + b;
            const int j = k - ((t >> reach.shift) - ((16 * v) >> reach.shift))
                - (up_y->first[ph] - reach.lowest);
            const float w = j >= 0 && j < up_y->taps
                ? table[up_y->weights + ph * up_y->taps + j] : 0.0f;
            gb_split_half (w, high[b], low[b]);
          }
          uint32_t *lane_words = fragments + ((v * 32 + lane) * steps + s) * 4;
          lane_words[reg] = __half_as_ushort (high[0])
              | (uint32_t) __half_as_ushort (high[1]) << 16;
          lane_words[2 + reg] = __half_as_ushort (low[0])
              | (uint32_t) __half_as_ushort (low[1]) << 16;
        }
}

/* Where the up pass measured faster with the small blur along y inside it
 * (up_patch_blurred_y) than after blur_columns_kernel (H200,
 * docs/performance.md, "The small blur along y inside the up pass"):
 * planes of one channel, and of two at D = 16 along y, where every plane
 * of the frame is such a plane. 1080p: GRAY8 at sigma 100 19.6 -> 18.5
 * us, NV16 34.4 -> 30.9, I420 27.5 -> 25.7. Lost: four channels (RGBA
 * 1080p 33.4 -> 38.4 or more: four times the elements to blur a block),
 * NV12's chroma at D = 8 (NV12 26.5 -> 27.3), and a luma alone taking it
 * beside a chroma that did not (NV12 26.6 -> 28.0, in a build 0.4 us
 * slower on NV12 otherwise). */
bool
gb_multiscale_blur_in_up (int channels, int factor_y)
{
  return channels == 1 || (channels == 2 && factor_y == 16);
}

/* The small images' rows padded to 16 bytes, where the column passes then
 * take their vector loads (H200, docs/performance.md, "The small images'
 * rows padded"; at sigma 100: GRAY8 1080p 17.9 -> 16.8 us, NV16 1080p
 * 33.6 -> 29.0, Y444 1080p 31.9 -> 30.3, NV12 4K 40.7 -> 37.9), except on
 * a plane of one channel beside one of two channels of its size (NV24's
 * luma): its faster chain then reaches its up pass while the longer chroma
 * chain blurs its small image, and takes the SMs from it (sigma 50 32.4 ->
 * 36.9). */
int
gb_multiscale_row_align (const GbGeometry & geometry, int p)
{
  const GbPlaneGeometry & plane = geometry.planes[p];
  for (int q = 0; q < geometry.n_planes; q++)
    if (plane.channels == 1 && geometry.planes[q].channels == 2
        && geometry.planes[q].width == plane.width
        && geometry.planes[q].height == plane.height)
      return 1;
  return GB_MULTISCALE_GPU_ROW_ALIGN;
}

cudaError_t
gb_launch_multiscale (const GbDevicePlane & plane, const GbTaps & taps,
    GbBorder border, cudaStream_t stream)
{
  const GbMultiscalePlan & plan = *taps.multiscale;
  const float *w = taps.multiscale_table;
  const int c = plane.channels;
  const size_t small_row = (size_t) plan.small_width * c;
  const size_t frame_row = (size_t) plane.width * c;
  /* The CPU's layout, its rows padded where gb_multiscale_row_align says. */
  const GbMultiscaleLayout layout = gb_multiscale_layout (plan.small_width,
      plan.small_height, plane.width, plane.height, c,
      plane.multiscale_row_align);
  float *first = plane.multiscale_scratch;
  float *small = first + layout.small;
  float *small2 = first + layout.small2;
  const size_t small_pitch = layout.small_stride * sizeof (float);
  const size_t tall_pitch = frame_row * sizeof (float);
  /* Down along x first in down_rows_kernel where that measured fastest
   * (down_rows_pays, whatever the factor along y: NV16's chroma at sigma
   * 100 takes D = 8 along x and 16 along y); else down along y first where
   * it measured faster (H100, docs/performance.md: 4K planes at every D);
   * elsewhere the frame's rows, whose row pass has more threads for a
   * small plane. */
  const size_t samples = (size_t) plane.height * frame_row;
  const bool down_rows_first = plane.bytes_per_sample == 1
      && down_rows_pays (plan.down_x.step, c, samples);
  const bool columns_first = !down_rows_first
      && samples >= MULTISCALE_COLUMNS_FIRST_SAMPLES;
  /* Each pass after the first starts while the one before finishes, unless
   * the frame's other planes run beside this one: measured there, planar
   * formats gained and NV12 lost (docs/performance.md, "Passes that start
   * early"). */
  const bool alone = gb_plane_alone (plane);
  /* The small blur along y in the up pass where that pays (one kernel
   * fewer); the small blur along x before it (row_pass_kernel < 1 >, or
   * columns_blur_x_kernel on a plane alone) then lets it start early
   * (docs/performance.md, "The small blur along y inside the up pass" and
   * "The early start as a template parameter"). */
  const bool blur_in_up = plane.frame_blur_in_up
      && gb_multiscale_blur_in_up (c, plan.down_y.step);

  if (plan.down_y.taps > MAX_COLUMN_TAPS || plan.blur_y.taps > MAX_COLUMN_TAPS)
    return cudaErrorInvalidValue;
  /* A plan for another window would read and write past this one. */
  if (!plan.factor_x || !plan.factor_y || plan.down_x.in_length != plane.width
      || plan.down_y.in_length != plane.height)
    return cudaErrorInvalidValue;

  /* Both down passes in one kernel where the plan allows it (not where
   * down_rows_kernel's pass along x measured faster), else one after the
   * other. */
  bool blurred_x = false;
  auto two_passes =[&]() {
    /* Only the passes at the frame read or write samples: one instance
     * each per sample type. */
    cudaError_t first_err = gb_dispatch_sample (plane,[&] (auto tag) {
          using Sample = decltype (tag);
          const Sample *src = (const Sample *) plane.src;
          if constexpr (sizeof (Sample) == 1)
            if (down_rows_first)
              return dispatch_factor (plan.down_x.step,[&] (auto d) {
                    constexpr int D = decltype (d)::value;
                    if constexpr (D == 8 || D == 16)
                      return down_rows < D > (plan.down_x, plan.table, border,
                          c, plane.height, src, plane.src_pitch, first,
                          small_pitch, alone, stream);
                    return cudaErrorInvalidValue;  /* down_rows_pays */
                  });
          if (!columns_first)
            return dispatch_factor (plan.down_x.step,[&] (auto d) {
                  return row_pass < decltype (d)::value > (plan.down_x,
                      plan.table, border, c, plane.height, src,
                      plane.src_pitch, first, small_pitch, false, stream);
                });
          return dispatch_factor (plan.down_y.step,[&] (auto d) {
                return down_columns < decltype (d)::value > (plan.down_y,
                    plan.table, border, (int) frame_row, src,
                    plane.src_pitch, first, tall_pitch, stream);
              });
        });
    if (first_err != cudaSuccess)
      return first_err;
    if (columns_first)
      return dispatch_factor (plan.down_x.step,[&] (auto d) {
            return row_pass < decltype (d)::value > (plan.down_x, plan.table,
                border, c, plan.small_height, (const float *) first,
                tall_pitch, small, small_pitch, alone, stream);
          });
    /* Down along y, and the small blur along x with it where the row
     * fits: then the x-blurred image is in small2. */
    cudaError_t err = columns_blur_x (plan.down_y, plan.blur_x, plan.table,
        w, border, c, first, small_pitch, small2, small_pitch, alone,
        plane.frame_mixed_factors, blur_in_up && alone, stream);
    if (err != cudaErrorNotSupported) {
      blurred_x = err == cudaSuccess;
      return err;
    }
    return columns (plan.down_y, w, border, (int) small_row, first,
        small_pitch, small, small_pitch, alone, stream);
  };
  cudaError_t err = cudaErrorNotSupported;
  if (plan.down_x.step == plan.down_y.step && !down_rows_first)
    err = gb_dispatch_sample (plane,[&] (auto tag) {
          using Sample = decltype (tag);
          return dispatch_factor (plan.down_x.step,[&] (auto d) {
                /* D up to 16 (sigma below 102.4): wider factors would
                 * unroll past the registers of 512 threads. */
                if constexpr (decltype (d)::value <= MAX_TILE_FACTOR)
                  return down_tile < decltype (d)::value > (plan, border, c,
                      (const Sample *) plane.src, plane.src_pitch, small,
                      small_pitch, stream);
                return cudaErrorNotSupported;
              });
        });
  if (err == cudaErrorNotSupported)
    err = two_passes ();
  if (err != cudaSuccess)
    return err;
  if (!blurred_x)
    err = row_pass < 1 > (plan.blur_x, plan.table, border, c,
        plan.small_height, (const float *) small, small_pitch, small2,
        small_pitch, alone, stream, blur_in_up);
  if (err != cudaSuccess)
    return err;
  if (!blur_in_up) {
    err = blur_columns (plan.blur_y, w, border, (int) small_row, small2,
        small_pitch, small, small_pitch, alone, stream);
    if (err != cudaSuccess)
      return err;
  }
  GbResample no_blur = { };
  const GbResample & by = blur_in_up ? plan.blur_y : no_blur;
  return gb_dispatch_sample (plane,[&] (auto tag) {
        using Sample = decltype (tag);
        return gb_dispatch_channels (plane,[&] (auto channels) {
              return up < Sample, decltype (channels)::value > (plan.up_x,
                  plan.up_y, by, border, w, taps.multiscale_up_fragments,
                  blur_in_up ? small2 : small, small_pitch,
                  (Sample *) plane.dst, plane.dst_pitch, alone, stream);
            });
      });
}

/* Separable Gaussian: a row pass into the persistent intermediate, then a
 * column pass into the output (seeds 000 and 002, after NVIDIA's
 * convolutionSeparable).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The row pass filters with the x taps and reads 8- or 16-bit samples, the
 * column pass with the y taps and writes them; both compute in float. The
 * intermediate is 16-bit fixed point (Mid below), and the kernels that
 * touch samples are templates on their type. Each pass stages its tile and apron in shared memory; loads
 * and stores of global memory are coalesced (threads of a warp touch
 * consecutive samples of one row). For radii up to FIXED_RADIUS_MAX (and
 * every 4 radii to WIDE_RADIUS_MAX, taps padded by zeros) the radius is a
 * template parameter: the tap loops unroll, the weights travel by value as
 * a kernel parameter (constant bank), and each thread computes a run of
 * neighbouring outputs from one sliding window of the tile (register
 * blocking), so a shared-memory read serves several outputs instead of one:
 * shared-memory reads and instruction issue, not DRAM, bound a tap-per-read
 * pass (docs/performance.md has the ncu figures). Larger radii take the same
 * register blocking with the taps at run time (in shared memory, padded to a
 * multiple of the run), wherever the window fits the block's shared memory;
 * past that the generic kernels, which read the weights from global memory
 * through the read-only cache, and so does radius 0 (an axis with sigma 0,
 * whose single tap 1 makes the pass a copy). Each pass picks its kernel by
 * its own axis' radius. Every output sums its taps in the order k = -r..r,
 * as the CPU reference does.
 */
#include "dependent_launch.h"
#include "device_limits.h"
#include "kernels.h"

namespace {

constexpr int FIXED_RADIUS_MAX = 16;

/* The intermediate's samples: fixed point in 16 bits, 2^F times the row
 * pass's float result, rounded to nearest and saturated. Half the bytes of
 * float, which bound both passes at small radii (a 1080p RGBA frame's
 * intermediate: 16.6 MB instead of 33, within the L2). For 8-bit samples
 * F = 8 (8.8): at most 1/512 of a level off. For 16-bit samples F = 0, the
 * levels themselves: at most half a level off. The column pass's taps sum
 * to 1, so either error reaches the output's sum unchanged, and the
 * rounded output is within one level of the float path's (docs/algorithms.md
 * section 4.3). Four neighbouring samples travel as one 8-byte access. */
template < int F > struct FixedMid
{
  typedef uint16_t Type;
  static __device__ __forceinline__ uint32_t pack (float v)
  {
    unsigned short u;           /* float to integer conversions saturate */
    asm ("cvt.rni.u16.f32 %0, %1;":"=h" (u):"f" (v * (float) (1 << F)));
    return u;
  }
  static __device__ __forceinline__ float unpack (uint32_t u)
  {
    /* The float 2^23 + u, times 2^-F, less 2^(23 - F): u / 2^F, exactly. */
    return fmaf (__uint_as_float (0x4B000000u | u), 1.0f / (float) (1 << F),
        -(float) (1 << (23 - F)));
  }
  static __device__ __forceinline__ void store4 (Type * p, float4 v)
  {
    *reinterpret_cast < uint2 * >(p) = make_uint2 (pack (v.x)
        | pack (v.y) << 16, pack (v.z) | pack (v.w) << 16);
  }
  static __device__ __forceinline__ float4 load4 (const Type * p)
  {
    const uint2 w = *reinterpret_cast < const uint2 * >(p);
    return make_float4 (unpack (w.x & 0xFFFFu), unpack (w.x >> 16),
        unpack (w.y & 0xFFFFu), unpack (w.y >> 16));
  }
};

template < typename Sample > struct Mid;
template <> struct Mid < uint8_t >:FixedMid < 8 > { };
template <> struct Mid < uint16_t >:FixedMid < 0 > { };

/* Row y of the intermediate, whose pitch (bytes) is a multiple of 16. */
template < typename Sample > __device__ __forceinline__
    typename Mid < Sample >::Type * mid_row (const GbDevicePlane & plane,
    int y)
{
  return reinterpret_cast < typename Mid < Sample >::Type * >(reinterpret_cast
      < char *>(plane.intermediate) + (size_t) y * plane.intermediate_pitch);
}

/* Weights known at compile time: passed by value, read from the constant bank. */
template < int R > struct FixedTaps
{
  float w[2 * R + 1];
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

/* Generic row pass: a block covers ROW_TILE samples of blockDim.y rows; each
 * thread produces ROW_OUTPUTS samples spaced ROW_THREADS apart (coalesced
 * stores), one shared-memory read per tap. */
constexpr int ROW_THREADS = 64;
constexpr int ROW_OUTPUTS = 4;
constexpr int ROW_TILE = ROW_THREADS * ROW_OUTPUTS;
constexpr int ROW_MAX_ROWS = 4;
constexpr size_t SHARED_BUDGET = 48 * 1024;

template < typename Sample > __global__ void
row_pass_kernel (GbDevicePlane plane, GbBorder border, RuntimeTaps taps)
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
    const Sample *src_row = gb_src_row < Sample > (plane, y);
    for (int i = threadIdx.x; i < tile_width; i += ROW_THREADS)
      tile_row[i] = gb_load_sample (src_row, s0 - apron + i, plane.width,
          plane.channels, border);
  }
  __syncthreads ();
  if (y >= plane.height)
    return;

  typename Mid < Sample >::Type * out_row = mid_row < Sample > (plane, y);
  for (int j = 0; j < ROW_OUTPUTS; j++) {
    const int local = threadIdx.x + j * ROW_THREADS;
    if (s0 + local >= row_samples)
      break;
    const float *centre = tile_row + local + apron;
    float acc = 0.0f;
    for (int k = -radius; k <= radius; k++)
      acc += taps[k + radius] * centre[k * plane.channels];
    out_row[s0 + local] = Mid < Sample >::pack (acc);
  }
}

/* Four samples as one load (4 or 8 bytes, aligned to its size). */
__device__ __forceinline__ float4
load_four_samples (const uint8_t * p)
{
  const uchar4 v = __ldg (reinterpret_cast < const uchar4 * >(p));
  return make_float4 (v.x, v.y, v.z, v.w);
}

__device__ __forceinline__ float4
load_four_samples (const uint16_t * p)
{
  const ushort4 v = __ldg (reinterpret_cast < const ushort4 * >(p));
  return make_float4 (v.x, v.y, v.z, v.w);
}

/* Floats a staged span may need beyond its own (stage_row_span): up to 3
 * in front of it and up to 3 after it, the last load's tail. */
constexpr int STAGE_SLACK = 6;

/* Stages the samples [span_start, span_start + span) of one row into
 * shared memory and returns where the first one went: tile + lead, lead <
 * 4. Where the row starts at a four-sample boundary, the span goes in
 * four-sample pieces from the boundary at or before span_start (lead
 * samples before it): every thread issues all its loads before it stores
 * any, one trip to memory per block where a sample a load took four, and
 * each piece is one 16-byte shared store. Pieces inside the row load
 * without the border rule (a branch and an integer division per sample,
 * which otherwise cost more than the taps); only those reaching past the
 * row's ends take it, a sample at a time. */
template < typename Sample > __device__ __forceinline__ float *
stage_row_span (float *tile, const Sample * src_row, int span_start,
    int span, const GbDevicePlane & plane, GbBorder border, int threads)
{
  const int row_samples = plane.width * plane.channels;
  if ((uintptr_t) src_row % (4 * sizeof (Sample)) == 0) {
    const int first_piece = span_start >= 0 ? span_start / 4
        : -((-span_start + 3) / 4);
    const int lead = span_start - 4 * first_piece;
    const int pieces = (lead + span + 3) / 4;
    constexpr int UNROLL = 4;
    for (int p0 = threadIdx.x; p0 < pieces; p0 += UNROLL * threads) {
      float4 v[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; u++) {
        const int s = 4 * (first_piece + p0 + u * threads);
        if (p0 + u * threads >= pieces)
          break;
        if (s >= 0 && s + 4 <= row_samples)
          v[u] = load_four_samples (src_row + s);
        else
          v[u] = make_float4 (gb_load_sample (src_row, s, plane.width,
                  plane.channels, border), gb_load_sample (src_row, s + 1,
                  plane.width, plane.channels, border),
              gb_load_sample (src_row, s + 2, plane.width, plane.channels,
                  border), gb_load_sample (src_row, s + 3, plane.width,
                  plane.channels, border));
      }
#pragma unroll
      for (int u = 0; u < UNROLL; u++)
        if (p0 + u * threads < pieces)
          reinterpret_cast < float4 * >(tile)[p0 + u * threads] = v[u];
    }
    return tile + lead;
  }
  if (span_start >= 0 && span_start + span <= row_samples) {
    const Sample *span_src = src_row + span_start;
    for (int i = threadIdx.x; i < span; i += threads)
      tile[i] = span_src[i];
  } else {
    for (int i = threadIdx.x; i < span; i += threads)
      tile[i] = gb_load_sample (src_row, span_start + i, plane.width,
          plane.channels, border);
  }
  return tile;
}

/* The pixel (group of `channels` consecutive threads) this thread works
 * on. A division by a constant is a multiply; by a run-time value, a long
 * sequence. */
__device__ __forceinline__ int
channel_group (int channels)
{
  switch (channels) {
    case 1:
      return threadIdx.x;
    case 2:
      return threadIdx.x / 2;
    case 3:
      return threadIdx.x / 3;
    default:
      return threadIdx.x / 4;
  }
}

/* Writes a block's outputs, staged in `tile`, to intermediate row y four
 * at a time. The intermediate's pitch is a multiple of 16 bytes and s0 of
 * 4 samples; a row's last four may run into its pitch padding, which
 * nothing reads. */
template < typename Sample > __device__ __forceinline__ void
store_row_outputs (const GbDevicePlane & plane, int y, int s0, int outputs,
    const float *tile, int threads)
{
  const int row_samples = plane.width * plane.channels;
  typename Mid < Sample >::Type * out_row = mid_row < Sample > (plane, y);
  for (int i = 4 * threadIdx.x; i < outputs && s0 + i < row_samples;
      i += 4 * threads)
    Mid < Sample >::store4 (out_row + s0 + i, *(const float4 *) (tile + i));
}

/* Blocked row pass (fixed radius): a block covers one row. Thread t owns a
 * run of ROW_RUN outputs of one channel, spaced `channels` apart, and slides
 * one window of ROW_RUN + 2R samples over the tile. ROW_RUN is odd so that,
 * for 1, 2 and 4 channels, the 32 lanes of a warp read 32 distinct banks. The
 * outputs go back through the tile so that the stores stay coalesced. */
constexpr int ROW_BLOCKED_THREADS = 128;
constexpr int ROW_RUN = 15;

/* Runs per block: as many as the threads allow, with a multiple of 4 outputs
 * so the block writes whole float4s (3 channels: 40 runs, 2 threads idle). */
__host__ __device__ constexpr int
row_blocked_runs (int channels)
{
  return (ROW_BLOCKED_THREADS / channels) * ROW_RUN * channels % 4 == 0
      ? ROW_BLOCKED_THREADS / channels
      : (ROW_BLOCKED_THREADS / channels) / 4 * 4;
}

__host__ __device__ constexpr int
row_blocked_outputs (int channels)
{
  return row_blocked_runs (channels) * ROW_RUN * channels;
}

/* C: the plane's channels where known at compile time, else 0 (read from
 * the plane). Known, the window's reads a channel apart take immediate
 * offsets instead of an address computed for each. */
template < int R, int C, typename Sample > __global__ void
__launch_bounds__ (ROW_BLOCKED_THREADS)
row_pass_blocked_kernel (GbDevicePlane plane, GbBorder border,
    FixedTaps < R > taps)
{
  extern __shared__ float4 row_tile[];  /* [outputs + 2 apron + slack] */
  float *tile = reinterpret_cast < float *>(row_tile);
  const int channels = C ? C : plane.channels;
  const int outputs = row_blocked_outputs (channels);
  const int apron = R * channels;
  const int s0 = blockIdx.x * outputs;
  const int y = blockIdx.y;
  const Sample *src_row = gb_src_row < Sample > (plane, y);

  const float *span = stage_row_span (tile, src_row, s0 - apron,
      outputs + 2 * apron, plane, border, ROW_BLOCKED_THREADS);
  __syncthreads ();

  /* The window of output `first` starts at span[first]: its apron. */
  const int group = channel_group (channels);
  const int first = group * ROW_RUN * channels + (threadIdx.x - group * channels);
  const bool active = group < row_blocked_runs (channels);
  float acc[ROW_RUN];
#pragma unroll
  for (int m = 0; m < ROW_RUN; m++)
    acc[m] = 0.0f;
  if (active) {
#pragma unroll
    for (int j = 0; j < ROW_RUN + 2 * R; j++) {
      const float sample = span[first + j * channels];
#pragma unroll
      for (int m = 0; m < ROW_RUN; m++)
        if (j - m >= 0 && j - m <= 2 * R)
          acc[m] += taps[j - m] * sample;
    }
  }
  __syncthreads ();
  if (active) {
#pragma unroll
    for (int m = 0; m < ROW_RUN; m++)
      tile[first + m * channels] = acc[m];
  }
  __syncthreads ();

  store_row_outputs < Sample > (plane, y, s0, outputs, tile,
      ROW_BLOCKED_THREADS);
}

/* Generic column pass: a block covers COL_THREADS_X samples of COL_ROWS
 * rows; each thread produces COL_OUTPUTS rows spaced COL_THREADS_Y apart. */
constexpr int COL_THREADS_X = 32;
constexpr int COL_THREADS_Y = 8;
constexpr int COL_OUTPUTS = 8;
constexpr int COL_ROWS = COL_THREADS_Y * COL_OUTPUTS;

template < typename Sample > __device__ __forceinline__ float
load_intermediate (const GbDevicePlane & plane, int s, int y, GbBorder border)
{
  const int sy = gb_border_index (y, plane.height, border);
  if (sy < 0 || s >= plane.width * plane.channels)
    return 0.0f;
  return Mid < Sample >::unpack (mid_row < Sample > (plane, sy)[s]);
}

template < typename Sample > __device__ __forceinline__ void
store_output (const GbDevicePlane & plane, int s, int y, float value)
{
  if (s < plane.width * plane.channels && y < plane.height)
    gb_dst_row < Sample > (plane, y)[s] = gb_round_sample < Sample > (value);
}

/* Blocked column pass (fixed radius): each thread owns 4 neighbouring
 * samples (a float4) of FIXED_COL_RUN adjacent rows and slides one window
 * down the tile; the whole window (FIXED_COL_ROWS + 2R rows) sits in shared
 * memory at once. Vectors cut the instructions per output (loads, window
 * reads and the 4 output samples stored as one uchar4 or ushort4), which
 * bound this pass. Runs of 4 rows (64 a block) give small planes more
 * blocks than runs of 8 (GRAY8 1080p: 540 instead of 270; at sigma 1 to 4
 * the separable blur took 7 to 9 % less time on 1080p GRAY8 and NV12, 1 to
 * 5 % less on RGBA; docs/performance.md). The run-time pass keeps runs of
 * BLOCKED_COL_RUN, its taps padded to a multiple of it. */
constexpr int BLOCKED_COL_THREADS_X = 16;
constexpr int BLOCKED_COL_THREADS_Y = 16;
constexpr int BLOCKED_COL_RUN = 8;
constexpr int BLOCKED_COL_SAMPLES = 4 * BLOCKED_COL_THREADS_X;
constexpr int BLOCKED_COL_ROWS = BLOCKED_COL_THREADS_Y * BLOCKED_COL_RUN;
constexpr int FIXED_COL_RUN = 4;
constexpr int FIXED_COL_ROWS = BLOCKED_COL_THREADS_Y * FIXED_COL_RUN;

/* Samples s .. s + 3 of intermediate row y (border rule applied; zero past
 * the end of the row). The intermediate's pitch is a multiple of 16 bytes
 * and s of 4, so a four-sample read stays inside the row's pitch; its
 * lanes past the row's end (padding the generic row pass leaves unwritten)
 * only feed outputs that store_output4 drops. */
template < typename Sample > __device__ __forceinline__ float4
load_intermediate4 (const GbDevicePlane & plane, int s, int y,
    GbBorder border)
{
  const int sy = gb_border_index (y, plane.height, border);
  const int row_samples = plane.width * plane.channels;
  if (sy < 0 || s >= row_samples)
    return make_float4 (0.0f, 0.0f, 0.0f, 0.0f);
  return Mid < Sample >::load4 (mid_row < Sample > (plane, sy) + s);
}

/* 4 samples as one store: 4 bytes for 8-bit, 8 for 16-bit samples. */
template < typename Sample > struct Sample4;
template <> struct Sample4 < uint8_t >
{
  typedef uchar4 Type;
  static __device__ __forceinline__ uchar4 make (float4 v)
  {
    return make_uchar4 (gb_round_u8 (v.x), gb_round_u8 (v.y),
        gb_round_u8 (v.z), gb_round_u8 (v.w));
  }
};
template <> struct Sample4 < uint16_t >
{
  typedef ushort4 Type;
  static __device__ __forceinline__ ushort4 make (float4 v)
  {
    return make_ushort4 (gb_round_u16 (v.x), gb_round_u16 (v.y),
        gb_round_u16 (v.z), gb_round_u16 (v.w));
  }
};

template < typename Sample > __device__ __forceinline__ void
store_output4 (const GbDevicePlane & plane, int s, int y, float4 value)
{
  typedef typename Sample4 < Sample >::Type Vector;
  const int row_samples = plane.width * plane.channels;
  if (y >= plane.height || s >= row_samples)
    return;
  Sample *out = gb_dst_row < Sample > (plane, y) + s;
  const Vector samples = Sample4 < Sample >::make (value);
  /* The vector store needs its own size's alignment (4 or 8 bytes). */
  if (s + 4 <= row_samples
      && ((uintptr_t) out & (sizeof (Vector) - 1)) == 0) {
    *(Vector *) out = samples;
  } else {
    const Sample b[4] = { samples.x, samples.y, samples.z, samples.w };
    for (int i = 0; i < 4 && s + i < row_samples; i++)
      out[i] = b[i];
  }
}

template < int R, typename Sample > __global__ void
__launch_bounds__ (BLOCKED_COL_THREADS_X * BLOCKED_COL_THREADS_Y)
column_pass_blocked_kernel (GbDevicePlane plane, GbBorder border,
    FixedTaps < R > taps)
{
  __shared__ float4 tile[FIXED_COL_ROWS + 2 * R][BLOCKED_COL_THREADS_X];
  const int s = blockIdx.x * BLOCKED_COL_SAMPLES + 4 * threadIdx.x;
  const int y0 = blockIdx.y * FIXED_COL_ROWS;

  gb_wait_for_previous_kernel ();       /* the row pass's intermediate */
  /* Interior blocks (uniform test) load without the border rule. */
  if (y0 - R >= 0 && y0 + FIXED_COL_ROWS + R <= plane.height
      && (blockIdx.x + 1) * BLOCKED_COL_SAMPLES
      <= plane.width * plane.channels) {
    const char *column = reinterpret_cast < const char *>(mid_row < Sample >
        (plane, y0 - R + threadIdx.y) + s);
    const size_t step = BLOCKED_COL_THREADS_Y * plane.intermediate_pitch;
    for (int r = threadIdx.y; r < FIXED_COL_ROWS + 2 * R;
        r += BLOCKED_COL_THREADS_Y) {
      tile[r][threadIdx.x] = Mid < Sample >::load4 (reinterpret_cast <
          const typename Mid < Sample >::Type * >(column));
      column += step;
    }
  } else {
    for (int r = threadIdx.y; r < FIXED_COL_ROWS + 2 * R;
        r += BLOCKED_COL_THREADS_Y)
      tile[r][threadIdx.x] = load_intermediate4 < Sample > (plane, s,
          y0 - R + r, border);
  }
  __syncthreads ();

  const int first = threadIdx.y * FIXED_COL_RUN;
  float4 acc[FIXED_COL_RUN];
#pragma unroll
  for (int m = 0; m < FIXED_COL_RUN; m++)
    acc[m] = make_float4 (0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
  for (int j = 0; j < FIXED_COL_RUN + 2 * R; j++) {
    const float4 sample = tile[first + j][threadIdx.x];
#pragma unroll
    for (int m = 0; m < FIXED_COL_RUN; m++)
      if (j - m >= 0 && j - m <= 2 * R)
        gb_fma4 (acc[m], taps[j - m], sample);
  }
#pragma unroll
  for (int m = 0; m < FIXED_COL_RUN; m++)
    store_output4 < Sample > (plane, s, y0 + first + m, acc[m]);
}

/* Any radius: the window streams through shared memory in strips of
 * COL_STRIP_ROWS rows, each thread accumulating its outputs in registers. */
constexpr int COL_STRIP_ROWS = 256;

template < typename Sample > __global__ void
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

  gb_wait_for_previous_kernel ();       /* the row pass's intermediate */
  for (int first = 0; first < window_rows; first += COL_STRIP_ROWS) {
    const int rows = min (COL_STRIP_ROWS, window_rows - first);
    for (int r = threadIdx.y; r < rows; r += COL_THREADS_Y)
      strip[r][threadIdx.x] = load_intermediate < Sample > (plane, s,
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
    store_output < Sample > (plane, s, y0 + threadIdx.y + j * COL_THREADS_Y,
        acc[j]);
}

template < typename Sample > cudaError_t
launch_row_runtime (const GbDevicePlane & plane, const GbAxisTaps & taps,
    GbBorder border, cudaStream_t stream)
{
  const RuntimeTaps runtime = { taps.device, taps.radius };
  const int tile_width = ROW_TILE + 2 * taps.radius * plane.channels;
  const size_t row_bytes = (size_t) tile_width * sizeof (float);
  /* GB_MAX_RADIUS keeps at least one row within the budget. */
  const int rows = max (1, min (ROW_MAX_ROWS, (int) (SHARED_BUDGET / row_bytes)));
  const dim3 grid ((plane.width * plane.channels + ROW_TILE - 1) / ROW_TILE,
      (plane.height + rows - 1) / rows);

  row_pass_kernel < Sample > <<< grid, dim3 (ROW_THREADS, rows),
      rows * row_bytes, stream >>> (plane, border, runtime);
  return cudaGetLastError ();
}

template < typename Sample > cudaError_t
launch_column_runtime (const GbDevicePlane & plane, const GbAxisTaps & taps,
    GbBorder border, cudaStream_t stream)
{
  const RuntimeTaps runtime = { taps.device, taps.radius };
  const dim3 grid ((plane.width * plane.channels + COL_THREADS_X - 1)
      / COL_THREADS_X, (plane.height + COL_ROWS - 1) / COL_ROWS);

  return gb_launch_after_kernel (gb_plane_alone (plane),
      column_pass_strips_kernel < Sample >, grid,
      dim3 (COL_THREADS_X, COL_THREADS_Y), 0, stream, plane, border,
      runtime);
}

/* Run-time radii: the blocked passes' register blocking without compile-time
 * taps, at any radius whose window fits the block's shared memory (the row
 * pass's: under 48 KB up to GB_MAX_RADIUS; the column pass's grows by 512
 * bytes a radius, see its launcher). Each thread slides a window of 2 RUN
 * samples over its RUN outputs, RUN taps a step; the taps, zero-padded to a
 * multiple of RUN, sit in shared memory (every thread of a step reads the
 * same one). Every output still sums its taps in the order -r..r (the
 * padding adds zeros after them). The row pass's run is odd, as ROW_RUN is,
 * so that lanes RUN x channels samples apart read distinct banks (1, 2 and 4
 * channels); with 8, 8 lanes read one bank and the row pass took 2.7 times
 * the column pass's time (RGBA, radius 35). */
constexpr int RUNTIME_RUN = 8;  /* column pass */
constexpr int RUNTIME_ROW_RUN = 9;
constexpr int RUNTIME_ROW_THREADS = 128;

__host__ __device__ __forceinline__ int
padded_taps (int radius, int run = RUNTIME_RUN)
{
  return (2 * radius + 1 + run - 1) / run * run;
}

__device__ __forceinline__ void
stage_weights (float *w, const float *weights, int radius, int taps,
    int thread, int threads)
{
  for (int t = thread; t < taps; t += threads)
    w[t] = t <= 2 * radius ? __ldg (&weights[t]) : 0.0f;
}

/* Row pass: a thread takes a run of RUNTIME_ROW_RUN pixels of one channel of
 * a row, the channels known at compile time (shared-memory reads at constant
 * offsets: the separable blur of RGBA 1080p at radius 35 took 9 % less time
 * than with them at run time; a float4 a pixel took 7 % more, its registers
 * costing occupancy). A block takes as many runs as its threads allow with a
 * multiple of 4 outputs (whole four-sample stores; 3 channels: 40 runs of
 * each channel, 8 threads idle); the results go back through the tile for
 * coalesced stores. The tile follows the taps at a 16-byte boundary. */
__host__ __device__ constexpr int
row_runtime_runs (int channels)
{
  return (RUNTIME_ROW_THREADS / channels) * RUNTIME_ROW_RUN * channels % 4
      == 0 ? RUNTIME_ROW_THREADS / channels
      : (RUNTIME_ROW_THREADS / channels) / 4 * 4;
}

__host__ __device__ __forceinline__ int
row_runtime_pixels (int channels)
{
  return row_runtime_runs (channels) * RUNTIME_ROW_RUN;
}

__host__ __device__ __forceinline__ int
row_runtime_tile_offset (int radius)
{
  return (padded_taps (radius, RUNTIME_ROW_RUN) + 3) / 4 * 4;
}

template < typename Sample, int C > __global__ void
__launch_bounds__ (RUNTIME_ROW_THREADS)
row_pass_runtime_blocked_kernel (GbDevicePlane plane, GbBorder border,
    RuntimeTaps weights)
{
  extern __shared__ float4 row_shared[];
  const int radius = weights.radius ();
  const int taps = padded_taps (radius, RUNTIME_ROW_RUN);
  float *w = reinterpret_cast < float *>(row_shared);
  float *tile = w + row_runtime_tile_offset (radius);
  const int pixels = row_runtime_pixels (C);
  const int outputs = pixels * C;
  const int s0 = blockIdx.x * outputs;
  const Sample *src_row = gb_src_row < Sample > (plane, blockIdx.y);
  const int span_start = s0 - radius * C;
  const int span = (pixels + taps) * C;

  stage_weights (w, weights.w, radius, taps, threadIdx.x,
      RUNTIME_ROW_THREADS);
  const float *staged = stage_row_span (tile, src_row, span_start, span,
      plane, border, RUNTIME_ROW_THREADS);
  __syncthreads ();

  const int run = threadIdx.x / C;
  const int first = run * RUNTIME_ROW_RUN * C + (threadIdx.x - run * C);
  const bool active = run < row_runtime_runs (C);
  float acc[RUNTIME_ROW_RUN], win[2 * RUNTIME_ROW_RUN];
#pragma unroll
  for (int j = 0; j < RUNTIME_ROW_RUN; j++)
    acc[j] = 0.0f;
  if (active) {
    const float *in = staged + first;
#pragma unroll
    for (int j = 0; j < RUNTIME_ROW_RUN; j++)
      win[j] = in[j * C];
    for (int t = 0; t < taps; t += RUNTIME_ROW_RUN) {
#pragma unroll
      for (int j = 0; j < RUNTIME_ROW_RUN; j++)
        win[RUNTIME_ROW_RUN + j] = in[(t + RUNTIME_ROW_RUN + j) * C];
#pragma unroll
      for (int k = 0; k < RUNTIME_ROW_RUN; k++) {
        const float wk = w[t + k];
#pragma unroll
        for (int j = 0; j < RUNTIME_ROW_RUN; j++)
          acc[j] += wk * win[j + k];
      }
#pragma unroll
      for (int j = 0; j < RUNTIME_ROW_RUN; j++)
        win[j] = win[RUNTIME_ROW_RUN + j];
    }
  }
  __syncthreads ();
  if (active) {
#pragma unroll
    for (int j = 0; j < RUNTIME_ROW_RUN; j++)
      tile[first + j * C] = acc[j];
  }
  __syncthreads ();

  store_row_outputs < Sample > (plane, blockIdx.y, s0, outputs, tile,
      RUNTIME_ROW_THREADS);
}

/* Column pass: as column_pass_blocked_kernel (a float4 of samples, a run
 * of BLOCKED_COL_RUN rows a thread, the window in shared memory), with the
 * tile's height and the taps at run time. */
template < typename Sample > __global__ void
__launch_bounds__ (BLOCKED_COL_THREADS_X * BLOCKED_COL_THREADS_Y)
column_pass_runtime_blocked_kernel (GbDevicePlane plane, GbBorder border,
    RuntimeTaps weights)
{
  extern __shared__ float4 column_shared[];
  const int radius = weights.radius ();
  const int taps = padded_taps (radius);
  const int tile_rows = BLOCKED_COL_ROWS + taps;
  float *w = reinterpret_cast < float *>(column_shared);
  float4 *tile = column_shared + taps / 4;
  const int thread = threadIdx.y * BLOCKED_COL_THREADS_X + threadIdx.x;
  const int s = blockIdx.x * BLOCKED_COL_SAMPLES + 4 * threadIdx.x;
  const int y0 = blockIdx.y * BLOCKED_COL_ROWS;

  stage_weights (w, weights.w, radius, taps, thread,
      BLOCKED_COL_THREADS_X * BLOCKED_COL_THREADS_Y);
  gb_wait_for_previous_kernel ();       /* the row pass's intermediate */
  if (y0 - radius >= 0 && y0 - radius + tile_rows <= plane.height
      && (blockIdx.x + 1) * BLOCKED_COL_SAMPLES
      <= plane.width * plane.channels) {
    const char *column = reinterpret_cast < const char *>(mid_row < Sample >
        (plane, y0 - radius + threadIdx.y) + s);
    const size_t step = BLOCKED_COL_THREADS_Y * plane.intermediate_pitch;
    for (int r = threadIdx.y; r < tile_rows; r += BLOCKED_COL_THREADS_Y) {
      tile[r * BLOCKED_COL_THREADS_X + threadIdx.x] = Mid < Sample >::load4
          (reinterpret_cast < const typename Mid < Sample >::Type * >(column));
      column += step;
    }
  } else {
    for (int r = threadIdx.y; r < tile_rows; r += BLOCKED_COL_THREADS_Y)
      tile[r * BLOCKED_COL_THREADS_X + threadIdx.x] =
          load_intermediate4 < Sample > (plane, s, y0 - radius + r, border);
  }
  __syncthreads ();

  const int first = threadIdx.y * BLOCKED_COL_RUN;
  const float4 *in = tile + first * BLOCKED_COL_THREADS_X + threadIdx.x;
  float4 acc[BLOCKED_COL_RUN], win[2 * BLOCKED_COL_RUN];
#pragma unroll
  for (int j = 0; j < BLOCKED_COL_RUN; j++) {
    acc[j] = make_float4 (0.0f, 0.0f, 0.0f, 0.0f);
    win[j] = in[j * BLOCKED_COL_THREADS_X];
  }
  for (int t = 0; t < taps; t += BLOCKED_COL_RUN) {
#pragma unroll
    for (int j = 0; j < BLOCKED_COL_RUN; j++)
      win[BLOCKED_COL_RUN + j] =
          in[(t + BLOCKED_COL_RUN + j) * BLOCKED_COL_THREADS_X];
#pragma unroll
    for (int k = 0; k < BLOCKED_COL_RUN; k++) {
      const float wk = w[t + k];
#pragma unroll
      for (int j = 0; j < BLOCKED_COL_RUN; j++)
        gb_fma4 (acc[j], wk, win[j + k]);
    }
#pragma unroll
    for (int j = 0; j < BLOCKED_COL_RUN; j++)
      win[j] = win[BLOCKED_COL_RUN + j];
  }
#pragma unroll
  for (int m = 0; m < BLOCKED_COL_RUN; m++)
    store_output4 < Sample > (plane, s, y0 + first + m, acc[m]);
}

static_assert (RUNTIME_RUN == BLOCKED_COL_RUN,
    "the taps' padding serves both passes");

template < typename Sample, int C > cudaError_t
launch_row_runtime_blocked (const GbDevicePlane & plane,
    const GbAxisTaps & taps, GbBorder border, cudaStream_t stream)
{
  const RuntimeTaps runtime = { taps.device, taps.radius };
  const int pixels = row_runtime_pixels (C);
  const int outputs = pixels * C;
  const size_t shared = (row_runtime_tile_offset (taps.radius)
      + STAGE_SLACK + (size_t) (pixels + padded_taps (taps.radius,
              RUNTIME_ROW_RUN)) * C) * sizeof (float);

  /* Every radius up to GB_MAX_RADIUS stays within the 48 KB a block has
   * without asking (4 channels at radius 1024: 45.7 KB); past it, the
   * generic pass. */
  if (shared > 48 * 1024)
    return launch_row_runtime < Sample > (plane, taps, border, stream);
  row_pass_runtime_blocked_kernel < Sample, C > <<< dim3 ((plane.width * C
              + outputs - 1) / outputs, plane.height), RUNTIME_ROW_THREADS,
      shared, stream >>> (plane, border, runtime);
  return cudaGetLastError ();
}

template < typename Sample > cudaError_t
launch_row_runtime_blocked (const GbDevicePlane & plane,
    const GbAxisTaps & taps, GbBorder border, cudaStream_t stream)
{
  return gb_dispatch_channels (plane,[&] (auto c) {
        return launch_row_runtime_blocked < Sample, decltype (c)::value >
            (plane, taps, border, stream);
      });
}

template < typename Sample > cudaError_t
launch_column_runtime_blocked (const GbDevicePlane & plane,
    const GbAxisTaps & taps, GbBorder border, cudaStream_t stream)
{
  const RuntimeTaps runtime = { taps.device, taps.radius };
  const int taps_padded = padded_taps (taps.radius);
  const size_t shared = taps_padded * sizeof (float)
      + (size_t) (BLOCKED_COL_ROWS + taps_padded) * BLOCKED_COL_THREADS_X
      * sizeof (float4);
  /* The window takes 128 + padded_taps rows of 256 bytes: past radius 59
   * more than the 64 KB a block may have on compute capability 7.5, past
   * radius 383 more than the H100's 227 KB. Where the device refuses it,
   * the strips kernel, which streams the window, does the pass; the
   * refusal is not sticky. */
  const cudaError_t err = gb_allow_dynamic_shared ((const void *)
      column_pass_runtime_blocked_kernel < Sample >, shared);
  if (err == cudaErrorInvalidValue)
    return launch_column_runtime < Sample > (plane, taps, border, stream);
  if (err != cudaSuccess)
    return err;
  return gb_launch_after_kernel (gb_plane_alone (plane),
      column_pass_runtime_blocked_kernel < Sample >,
      dim3 ((plane.width * plane.channels + BLOCKED_COL_SAMPLES - 1)
          / BLOCKED_COL_SAMPLES,
          (plane.height + BLOCKED_COL_ROWS - 1) / BLOCKED_COL_ROWS),
      dim3 (BLOCKED_COL_THREADS_X, BLOCKED_COL_THREADS_Y), shared, stream,
      plane, border, runtime);
}

/* The taps of a specialised pass, by value (the host copy), centred in
 * R's 2 R + 1 with zeros either side where the filter's radius is smaller
 * (a wide specialisation): each output still sums its taps in the order
 * -r..r, and the zeros add nothing to the sums. */
template < int R > FixedTaps < R >
fixed_taps (const GbAxisTaps & taps)
{
  FixedTaps < R > fixed;
  const int lead = R - taps.radius;
  for (int i = 0; i <= 2 * R; i++)
    fixed.w[i] = i >= lead && i - lead <= 2 * taps.radius
        ? taps.host[i - lead] : 0.0f;
  return fixed;
}

/* The row pass of radius R with C channels (0: read from the plane). */
template < int R, int C, typename Sample > cudaError_t
launch_row_channels (const GbDevicePlane & plane, const GbAxisTaps & taps,
    GbBorder border, cudaStream_t stream)
{
  const int outputs = row_blocked_outputs (plane.channels);
  const size_t row_bytes = (STAGE_SLACK + outputs + 2 * R
      * plane.channels) * sizeof (float);

  row_pass_blocked_kernel < R, C, Sample > <<< dim3 ((plane.width
              * plane.channels + outputs - 1) / outputs, plane.height),
      ROW_BLOCKED_THREADS, row_bytes, stream >>> (plane, border,
      fixed_taps < R > (taps));
  return cudaGetLastError ();
}

/* Up to FIXED_RADIUS_MAX, planes of 1, 2 and 4 channels (every 16-bit
 * layout's) take a row pass compiled for their count; 3 channels and the
 * wide radii read it at run time, which keeps the instantiations (and the
 * build's time) down. */
template < int R, typename Sample > cudaError_t
launch_row_fixed (const GbDevicePlane & plane, const GbAxisTaps & taps,
    GbBorder border, cudaStream_t stream)
{
  if constexpr (R <= FIXED_RADIUS_MAX) {
    switch (plane.channels) {
      case 1:
        return launch_row_channels < R, 1, Sample > (plane, taps, border,
            stream);
      case 2:
        return launch_row_channels < R, 2, Sample > (plane, taps, border,
            stream);
      case 4:
        return launch_row_channels < R, 4, Sample > (plane, taps, border,
            stream);
      default:
        break;
    }
  }
  return launch_row_channels < R, 0, Sample > (plane, taps, border, stream);
}

template < int R, typename Sample > cudaError_t
launch_column_fixed (const GbDevicePlane & plane, const GbAxisTaps & taps,
    GbBorder border, cudaStream_t stream)
{
  return gb_launch_after_kernel (gb_plane_alone (plane),
      column_pass_blocked_kernel < R, Sample >,
      dim3 ((plane.width * plane.channels + BLOCKED_COL_SAMPLES - 1)
          / BLOCKED_COL_SAMPLES,
          (plane.height + FIXED_COL_ROWS - 1) / FIXED_COL_ROWS),
      dim3 (BLOCKED_COL_THREADS_X, BLOCKED_COL_THREADS_Y), 0, stream, plane,
      border, fixed_taps < R > (taps));
}

typedef cudaError_t (*PassLauncher) (const GbDevicePlane &,
    const GbAxisTaps &, GbBorder, cudaStream_t);

/* Row and column launchers apart, so that each pass is specialised for its
 * own axis' radius (R instantiations per pass and sample type, not R^2). */
template < typename Sample, int... R > struct FixedLaunchers
{
  static constexpr PassLauncher row[] = { launch_row_fixed < R, Sample >... };
  static constexpr PassLauncher column[] =
      { launch_column_fixed < R, Sample >... };
};

template < typename Sample, int... R >
constexpr PassLauncher FixedLaunchers < Sample, R... >::row[];
template < typename Sample, int... R >
constexpr PassLauncher FixedLaunchers < Sample, R... >::column[];

/* Index r - 1 holds the launchers specialised for radius r. */
template < typename Sample > using Specialised = FixedLaunchers < Sample,
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 >;
static_assert (sizeof (Specialised < uint8_t >::row)
    / sizeof (Specialised < uint8_t >::row[0]) == FIXED_RADIUS_MAX,
    "one specialisation per radius 1..FIXED_RADIUS_MAX");

/* Radius 0 and radii past FIXED_RADIUS_MAX take the generic kernels. */
bool
specialised (int radius)
{
  return radius >= 1 && radius <= FIXED_RADIUS_MAX;
}

/* Past FIXED_RADIUS_MAX: specialisations every WIDE_STEP radii to
 * WIDE_RADIUS_MAX, a filter taking the first at least its own with its
 * taps padded by zeros (fixed_taps). The run-time passes read a tap from
 * shared memory for every few FMAs; here the taps are operands of the
 * FMAs. Against them on the H200, us (docs/performance.md, "Wide
 * specialisations"), at sigma 10 (radius 35, run at 36), `auto` on 16-bit
 * frames: GRAY16 1080p 30.4 -> 22.0, RGBA64 1080p 87.4 -> 74.5, P016 1080p
 * 38.7 -> 35.0, RGBA64 4K 314.8 -> 253.4; `separable` on 8-bit ones (what
 * `auto` takes before compute capability 8.0): GRAY8 1080p 30.4 -> 21.6,
 * RGBA 1080p 81.9 -> 69.5, NV12 1080p 37.9 -> 28.7, RGBA 4K 301.3 ->
 * 250.4. At sigma 5 (radius 18, run at 20): GRAY16 23.2 -> 16.4, RGBA64
 * 63.9 -> 54.7, GRAY8 23.4 -> 16.4. */
constexpr int WIDE_STEP = 4;
constexpr int WIDE_RADIUS_MAX = 48;
template < typename Sample > using Wide = FixedLaunchers < Sample,
    20, 24, 28, 32, 36, 40, 44, 48 >;
static_assert (sizeof (Wide < uint8_t >::row) / sizeof (Wide < uint8_t
        >::row[0]) == (WIDE_RADIUS_MAX - FIXED_RADIUS_MAX) / WIDE_STEP,
    "one wide specialisation every WIDE_STEP radii");

/* The index into Wide of the specialisation for this radius, or -1. */
int
wide_index (int radius)
{
  if (radius <= FIXED_RADIUS_MAX || radius > WIDE_RADIUS_MAX)
    return -1;
  return (radius - FIXED_RADIUS_MAX + WIDE_STEP - 1) / WIDE_STEP - 1;
}

/* Past the specialisations, the blocked passes with run-time taps, and the
 * generic ones where their window does not fit (and at radius 0: an axis
 * of sigma 0, a copy). */
template < typename Sample > cudaError_t
launch_row (const GbDevicePlane & plane, const GbAxisTaps & taps,
    GbBorder border, cudaStream_t stream)
{
  if (specialised (taps.radius))
    return Specialised < Sample >::row[taps.radius - 1] (plane, taps, border,
        stream);
  if (wide_index (taps.radius) >= 0)
    return Wide < Sample >::row[wide_index (taps.radius)] (plane, taps,
        border, stream);
  if (taps.radius > 0)
    return launch_row_runtime_blocked < Sample > (plane, taps, border,
        stream);
  return launch_row_runtime < Sample > (plane, taps, border, stream);
}

template < typename Sample > cudaError_t
launch_column (const GbDevicePlane & plane, const GbAxisTaps & taps,
    GbBorder border, cudaStream_t stream)
{
  if (specialised (taps.radius))
    return Specialised < Sample >::column[taps.radius - 1] (plane, taps,
        border, stream);
  if (wide_index (taps.radius) >= 0)
    return Wide < Sample >::column[wide_index (taps.radius)] (plane, taps,
        border, stream);
  if (taps.radius > 0)
    return launch_column_runtime_blocked < Sample > (plane, taps, border,
        stream);
  return launch_column_runtime < Sample > (plane, taps, border, stream);
}

}                               /* namespace */

cudaError_t
gb_launch_separable (const GbDevicePlane & plane, const GbTaps & taps,
    GbBorder border, cudaStream_t stream)
{
  return gb_dispatch_sample (plane,[&] (auto tag) {
        using Sample = decltype (tag);
        cudaError_t err = launch_row < Sample > (plane, taps.x, border,
            stream);
        if (err != cudaSuccess)
          return err;
        return launch_column < Sample > (plane, taps.y, border, stream);
      });
}

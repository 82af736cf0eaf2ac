/* Fused separable Gaussian in FP32 for 16-bit samples: one kernel, one read
 * and one write of the frame, the row pass's results kept in shared memory.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The tensor-core kernels (kernels_fused*.cu) hold samples as fp16, exact
 * for 8 bits only; 16-bit samples otherwise take the separable passes,
 * whose float intermediate is written and read back: twice the frame's
 * bytes each way on top of the frame's own read and write. Here a block
 * owns a strip of STRIP samples of a run of rows (a chunk) and walks down
 * it BATCH rows at a time:
 *
 *   stage:   BATCH input rows of the strip plus its apron, border-mapped,
 *            as float, into shared memory (the next batch's loads are in
 *            flight while this one is filtered);
 *   rows:    one warp per row, each lane RUN neighbouring samples from one
 *            sliding window of the staged row, into a ring of row-filtered
 *            rows (float, so 16-bit levels survive);
 *   columns: once the ring holds 2 R rows past them, BATCH output rows,
 *            each thread four neighbouring samples of four rows from one
 *            sliding window of the ring; rounded and stored.
 *
 * The radius R is a template parameter (taps by value, loops unrolled); a
 * filter of a smaller radius on either axis runs in the next kernel up with
 * its taps padded by zeros, which add nothing. Only the first 2 R rows of a
 * chunk (rounded up to whole batches) are row-filtered twice. The shared
 * memory grows with R, to 105 KiB at 16: gb_fused_float_runs() asks
 * whether the device grants it. Every output sums its taps in the order
 * k = -r..r in float, as the separable passes and the CPU reference do: the
 * results differ from theirs only by FMA contraction, far below a 16-bit
 * level.
 */
#include "device_limits.h"
#include "kernels.h"

#include <atomic>

namespace {

constexpr int THREADS = 256;
constexpr int BATCH = THREADS / 32;     /* rows a batch: a warp each */
constexpr int RUN = 16;                 /* row pass: samples per lane */
constexpr int STRIP = 32 * RUN;         /* samples per block */
constexpr int GROUPS = STRIP / 4;       /* column pass: four-sample columns */
constexpr int COL_RUN = BATCH * GROUPS / THREADS;       /* rows per thread */
static_assert (RUN == 16, "ring_quad () swizzles four quads a lane");
static_assert (THREADS % GROUPS == 0 && COL_RUN * THREADS / GROUPS == BATCH,
    "the column pass's threads cover a batch");

/* The radii with kernels; a filter takes the first at least its own. */
constexpr int RADII[] = { 2, 4, 8, 12, 16 };
constexpr int MAX_RADIUS = 16;

template < int R > struct Taps
{
  float w[2 * R + 1];
};

/* Batches the column pass trails the row pass by: 2 R rows, whole batches. */
__host__ __device__ constexpr int
lead_batches (int radius)
{
  return (2 * radius + BATCH - 1) / BATCH;
}

/* A staged row: samples from the strip's start less the apron (rounded to
 * 16), with 4 floats of padding after every 16 so that lanes RUN samples
 * apart read distinct banks. */
__host__ __device__ constexpr int
apron_of (int radius, int channels)
{
  return (radius * channels + 15) / 16 * 16;
}

__host__ __device__ constexpr int
staged_samples (int radius, int channels)
{
  return STRIP + 2 * apron_of (radius, channels);
}

__host__ __device__ constexpr int
padded (int i)
{
  return i + (i >> 4) * 4;
}

__host__ __device__ constexpr int
ring_rows (int radius)
{
  return (lead_batches (radius) + 1) * BATCH;
}

__host__ __device__ constexpr size_t
shared_bytes (int radius, int channels)
{
  return sizeof (float) * ((size_t) ring_rows (radius) * STRIP
      + (size_t) BATCH * padded (staged_samples (radius, channels)));
}

/* Blocks an SM should hold: as many as the shared memory lets in, up to
 * MAX_BLOCKS_PER_SM, which caps the registers at 80 a thread (from 4
 * blocks, 64, the row pass spilled). */
constexpr int MAX_BLOCKS_PER_SM = 3;
constexpr size_t SM_SHARED_BYTES = 227 * 1024;

__host__ __device__ constexpr int
min_blocks (int radius, int channels)
{
  return SM_SHARED_BYTES / shared_bytes (radius, channels) < MAX_BLOCKS_PER_SM
      ? (int) (SM_SHARED_BYTES / shared_bytes (radius, channels))
      : MAX_BLOCKS_PER_SM;
}

struct Params
{
  const uint16_t *src;
  size_t src_pitch;
  uint16_t *dst;
  size_t dst_pitch;
  int width;
  int height;
  int chunk;                    /* output rows per block, multiple of BATCH */
  bool src_aligned;             /* every row starts on 8 bytes */
  bool dst_aligned;
};

/* Four samples s .. s + 3 of a row (NULL: a row of zeros past the border),
 * the pixel index border-mapped where they reach past the row's ends; as
 * they stand, two to a word (half the registers of floats while the loads
 * are in flight). */
template < int C > __device__ __forceinline__ uint2
load_quad (const Params & p, const uint16_t * row, int s, GbBorder border)
{
  const int row_samples = p.width * C;
  if (!row)
    return make_uint2 (0, 0);
  if (p.src_aligned && s >= 0 && s + 4 <= row_samples)
    return __ldg (reinterpret_cast < const uint2 * >(row + s));
  uint32_t v[4];
  for (int i = 0; i < 4; i++)
    v[i] = (uint32_t) gb_load_sample (row, s + i, p.width, C, border);
  return make_uint2 (v[0] | v[1] << 16, v[2] | v[3] << 16);
}

/* Four samples as floats: 2^23 + u by a byte permute, less 2^23 (exact;
 * two full-rate instructions where a conversion is quarter-rate). */
__device__ __forceinline__ float4
samples_as_floats (uint2 v)
{
  const float bias = 8388608.0f;
  return make_float4 (__uint_as_float (__byte_perm (v.x, 0x4B000000u,
              0x7610)) - bias, __uint_as_float (__byte_perm (v.x, 0x4B000000u,
              0x7632)) - bias, __uint_as_float (__byte_perm (v.y,
              0x4B000000u, 0x7610)) - bias,
      __uint_as_float (__byte_perm (v.y, 0x4B000000u, 0x7632)) - bias);
}

/* The quad a lane fetches in each run of 32: blocks of four quads, each
 * quarter-warp taking two blocks four apart, so that its stores to the
 * padded stage (quad q at q + q / 4) hit eight distinct bank groups. */
__device__ __forceinline__ int
fetch_quad (int lane)
{
  return 4 * (lane / 8 + 4 * (lane % 8 / 4)) + lane % 4;
}

/* Where in its run of 16 a ring row keeps the four samples 4 j .. 4 j + 3
 * of row-pass lane `lane`: their quad j, swizzled so that a quarter-warp's
 * stores (lanes 16 samples apart) and loads (neighbouring quads) each hit
 * eight distinct bank groups. */
__device__ __forceinline__ int
ring_quad (int lane, int j)
{
  return j ^ (lane >> 1 & 3);
}

/* Input row y border-mapped, NULL where the border makes it zeros. */
__device__ __forceinline__ const uint16_t *
input_row (const Params & p, int y, GbBorder border)
{
  const int mapped = gb_border_index (y, p.height, border);
  return mapped < 0 ? NULL : reinterpret_cast < const uint16_t * >
      (reinterpret_cast < const char *>(p.src) + (size_t) mapped * p.src_pitch);
}

template < int C, int R > struct Shape
{
  static constexpr int apron = apron_of (R, C);
  static constexpr int quads_per_row = staged_samples (R, C) / 4;
  static constexpr int staged_pitch = padded (staged_samples (R, C));
  static constexpr int lead = lead_batches (R);
  static constexpr int ring = ring_rows (R);
};

template < int C, int R > __global__ void
__launch_bounds__ (THREADS, min_blocks (R, C))
fused_float_kernel (Params p, GbBorder border, Taps < R > wx, Taps < R > wy)
{
  typedef Shape < C, R > S;
  extern __shared__ float4 shared4[];
  float *ring = reinterpret_cast < float *>(shared4);   /* [ring][STRIP] */
  float *stage = ring + S::ring * STRIP;        /* [BATCH][staged_pitch] */

  const int s0 = blockIdx.x * STRIP;
  const int y0 = blockIdx.y * p.chunk;
  const int y_end = min (y0 + p.chunk, p.height);
  const int batches = S::lead + p.chunk / BATCH;
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;

  /* Batch b's staged rows are input rows y0 - R + b BATCH + (0 .. BATCH),
   * one a warp; a lane fetches quads 32 i + lane_quad of its warp's row.
   * Strips clear of the row's ends (all but a frame's first and last) load
   * without the border rule. */
  constexpr int FETCHES = (S::quads_per_row + 31) / 32;
  uint2 ahead[FETCHES];
  const int lane_quad = fetch_quad (lane);
  const int start = s0 - S::apron;
  const bool inside = p.src_aligned && start >= 0
      && s0 + STRIP + S::apron <= p.width * C;
  auto fetch = [&](int b) {
    const uint16_t *row = input_row (p, y0 - R + b * BATCH + warp, border);
    if (inside && row) {
      const uint2 *quads = reinterpret_cast < const uint2 * >(row + start)
          + lane_quad;
#pragma unroll
      for (int i = 0; i < FETCHES; i++)
        if (i < S::quads_per_row / 32 || 32 * i + lane_quad < S::quads_per_row)
          ahead[i] = __ldg (quads + 32 * i);
    } else {
#pragma unroll
      for (int i = 0; i < FETCHES; i++)
        if (32 * i + lane_quad < S::quads_per_row)
          ahead[i] = load_quad < C > (p, row, start + 4 * (32 * i + lane_quad),
              border);
    }
  };
  /* Where quad 32 i + lane_quad goes: padded (4 q) = 160 i + this. */
  float *staged = stage + warp * S::staged_pitch + 4 * lane_quad
      + 4 * (lane_quad / 4);

  fetch (0);
  for (int b = 0; b < batches; b++) {
    __syncthreads ();           /* the stage and the ring's oldest rows are free */
#pragma unroll
    for (int i = 0; i < FETCHES; i++)
      if (32 * i + lane_quad < S::quads_per_row)
        *reinterpret_cast < float4 * >(staged + 160 * i) =
            samples_as_floats (ahead[i]);
    __syncthreads ();
    if (b + 1 < batches)
      fetch (b + 1);

    /* Rows: lane's outputs are staged samples apron + 16 lane + (0 .. 16);
     * output m's tap k reads the one C k samples from it. */
    {
      const float *window = stage + warp * S::staged_pitch + 20 * lane;
      float acc[RUN];
#pragma unroll
      for (int m = 0; m < RUN; m++)
        acc[m] = 0.0f;
#pragma unroll
      for (int quad = (S::apron - R * C) / 4;
          quad <= (S::apron + RUN - 1 + R * C) / 4; quad++) {
        const float4 v4 = *reinterpret_cast < const float4 * >(window
            + padded (4 * quad));
        const float v[4] = { v4.x, v4.y, v4.z, v4.w };
#pragma unroll
        for (int e = 0; e < 4; e++) {
          const int o = 4 * quad + e - S::apron;        /* from the run's start */
#pragma unroll
          for (int m = 0; m < RUN; m++) {
            const int d = o - m;
            if (d % C == 0 && d / C >= -R && d / C <= R)
              acc[m] += wx.w[d / C + R] * v[e];
          }
        }
      }
      float *out = ring + ((b % (S::lead + 1)) * BATCH + warp) * STRIP
          + RUN * lane;
#pragma unroll
      for (int j = 0; j < RUN / 4; j++)
        *reinterpret_cast < float4 * >(out + 4 * ring_quad (lane, j)) =
            make_float4 (acc[4 * j], acc[4 * j + 1], acc[4 * j + 2],
            acc[4 * j + 3]);
    }
    if (b < S::lead)
      continue;
    __syncthreads ();

    /* Columns: output row o of the chunk reads ring rows o .. o + 2 R (the
     * ring's row f is input row y0 - R + f). */
    {
      const int group = threadIdx.x % GROUPS;
      const int ring_offset = RUN * (group / 4) + 4 * ring_quad (group / 4,
          group % 4);
      const int first = (b - S::lead) * BATCH + threadIdx.x / GROUPS * COL_RUN;
      const int base = first % S::ring;
      float4 acc[COL_RUN];
#pragma unroll
      for (int m = 0; m < COL_RUN; m++)
        acc[m] = make_float4 (0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
      for (int j = 0; j < COL_RUN + 2 * R; j++) {
        const int slot = base + j < S::ring ? base + j : base + j - S::ring;
        const float4 v = *reinterpret_cast < const float4 * >(ring
            + slot * STRIP + ring_offset);
#pragma unroll
        for (int m = 0; m < COL_RUN; m++)
          if (j - m >= 0 && j - m <= 2 * R)
            gb_fma4 (acc[m], wy.w[j - m], v);
      }
      const int s = s0 + 4 * group;
      const int row_samples = p.width * C;
      const bool whole = p.dst_aligned && s0 + STRIP <= row_samples;
      char *out = reinterpret_cast < char *>(p.dst) + (size_t) (y0 + first)
          * p.dst_pitch + sizeof (uint16_t) * s;
#pragma unroll
      for (int m = 0; m < COL_RUN; m++, out += p.dst_pitch) {
        if (y0 + first + m >= y_end)
          break;
        if (whole) {
          gb_store4 (reinterpret_cast < uint16_t * >(out), acc[m]);
        } else if (s < row_samples) {
          const float r[4] = { acc[m].x, acc[m].y, acc[m].z, acc[m].w };
          uint16_t *samples = reinterpret_cast < uint16_t * >(out);
          if (p.dst_aligned && s + 4 <= row_samples)
            gb_store4 (samples, acc[m]);
          else
            for (int i = 0; i < 4 && s + i < row_samples; i++)
              samples[i] = gb_round_u16 (r[i]);
        }
      }
    }
  }
}

/* An axis' taps centred in a radius-R table, zeros outside its own. */
template < int R > Taps < R > padded_taps (const GbAxisTaps & axis)
{
  Taps < R > t;
  for (int i = 0; i < 2 * R + 1; i++) {
    const int k = i - R;
    t.w[i] = k >= -axis.radius && k <= axis.radius
        ? axis.host[k + axis.radius] : 0.0f;
  }
  return t;
}

/* Per device, kernel: resident blocks (kept off the per-frame path); the
 * shared memory is allowed on every launch, as kernels_fused.cu explains. */
constexpr int N_RADII = sizeof RADII / sizeof RADII[0];
std::atomic < int > cached_resident[GB_CACHED_DEVICES][5][N_RADII];

template < int C, int R > cudaError_t
launch (const GbDevicePlane & plane, const GbTaps & taps, GbBorder border,
    cudaStream_t stream, int radius_index)
{
  auto kernel = fused_float_kernel < C, R >;
  const size_t shared = shared_bytes (R, C);
  const int strips = (plane.width * C + STRIP - 1) / STRIP;
  int device, sms = 0, resident = 0;
  cudaError_t err = cudaGetDevice (&device);
  if (err == cudaSuccess)
    err = gb_device_multiprocessors (device, &sms);
  if (err == cudaSuccess)
    err = gb_allow_dynamic_shared ((const void *) kernel, shared);
  if (err != cudaSuccess)
    return err;
  const bool cached = device >= 0 && device < GB_CACHED_DEVICES;
  err = gb_cached_resident_blocks (cached ?
      &cached_resident[device][C][radius_index] : NULL,
      (const void *) kernel, THREADS, shared, true, &resident);
  if (err != cudaSuccess)
    return err;
  if (resident < 1)
    return cudaErrorInvalidConfiguration;

  /* Chunks: enough blocks to fill the plane's share of the GPU once, each
   * at least MIN_CHUNK_BATCHES batches (the first 2 R rows are the
   * chunk's overhead). */
  constexpr int MIN_CHUNK_BATCHES = 2;
  const float share = gb_plane_alone (plane) ? 1.0f : plane.gpu_share;
  const int target = max (1, (int) (share * sms * resident + 0.5f));
  const int row_batches = (plane.height + BATCH - 1) / BATCH;
  const int chunks = max (1, target / strips);  /* no second, partial wave */
  const int chunk_batches = max ((row_batches + chunks - 1) / chunks,
      min (MIN_CHUNK_BATCHES, row_batches));
  Params p;
  p.src = static_cast < const uint16_t * >(plane.src);
  p.src_pitch = plane.src_pitch;
  p.dst = static_cast < uint16_t * >(plane.dst);
  p.dst_pitch = plane.dst_pitch;
  p.width = plane.width;
  p.height = plane.height;
  p.chunk = chunk_batches * BATCH;
  p.src_aligned = (uintptr_t) plane.src % 8 == 0 && plane.src_pitch % 8 == 0;
  p.dst_aligned = (uintptr_t) plane.dst % 8 == 0 && plane.dst_pitch % 8 == 0;
  const dim3 grid (strips, (plane.height + p.chunk - 1) / p.chunk);
  kernel <<< grid, THREADS, shared, stream >>> (p, border,
      padded_taps < R > (taps.x), padded_taps < R > (taps.y));
  return cudaGetLastError ();
}

static_assert (RADII[N_RADII - 1] == MAX_RADIUS && N_RADII == 5,
    "the last kernel's radius; launch_channels () has a case for each");

/* The radius of the kernel that runs a filter of that radius; 0: none. */
int
kernel_radius (int radius)
{
  for (int i = 0; i < N_RADII; i++)
    if (radius <= RADII[i])
      return RADII[i];
  return 0;
}

template < int C > cudaError_t
launch_channels (const GbDevicePlane & plane, const GbTaps & taps,
    GbBorder border, cudaStream_t stream)
{
  switch (kernel_radius (gb_taps_radius (taps))) {
    case RADII[0]:
      return launch < C, RADII[0] > (plane, taps, border, stream, 0);
    case RADII[1]:
      return launch < C, RADII[1] > (plane, taps, border, stream, 1);
    case RADII[2]:
      return launch < C, RADII[2] > (plane, taps, border, stream, 2);
    case RADII[3]:
      return launch < C, RADII[3] > (plane, taps, border, stream, 3);
    case RADII[4]:
      return launch < C, RADII[4] > (plane, taps, border, stream, 4);
  }
  return cudaErrorInvalidValue;
}

}                               /* namespace */

bool
gb_fused_float_runs (int channels, int bytes_per_sample, int radius_x,
    int radius_y, size_t shared_per_block)
{
  const int radius = kernel_radius (max (radius_x, radius_y));
  return bytes_per_sample == 2 && (channels == 1 || channels == 2
      || channels == 4) && radius > 0 && (radius_x >= 1 || radius_y >= 1)
      && shared_bytes (radius, channels) <= shared_per_block;
}

cudaError_t
gb_launch_fused_float (const GbDevicePlane & plane, const GbTaps & taps,
    GbBorder border, cudaStream_t stream)
{
  if (plane.bytes_per_sample != 2)
    return cudaErrorInvalidValue;
  switch (plane.channels) {
    case 1:
      return launch_channels < 1 > (plane, taps, border, stream);
    case 2:
      return launch_channels < 2 > (plane, taps, border, stream);
    case 4:
      return launch_channels < 4 > (plane, taps, border, stream);
  }
  return cudaErrorInvalidValue;
}

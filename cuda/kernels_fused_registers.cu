/* Fused separable Gaussian on tensor cores, in registers: one kernel for
 * small radii, and a two-pass form (row pass, fp16 intermediate, column
 * pass) for larger ones. Shared memory only to stage the rows of large
 * one-channel planes (fused_plane_staged).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A 1D convolution is a matrix product with a banded (Toeplitz) weight
 * matrix, which the tensor cores evaluate at many times the rate of the FP32
 * units (mma: fp16 in, fp32 accumulate). Each warp owns a strip of 16
 * output columns (two for one-channel planes) and a run of its rows, and
 * walks down it 8 rows (a row block) at a time:
 *
 *   rows:    m16n8k16 with M = the strip's 16 columns, N = 8 input rows,
 *            K = 16 input columns a step over the strip and its apron.
 *            The weights are A, in registers for the whole kernel; the
 *            pixels are B, loaded from global memory straight into the
 *            fragment's layout: a lane's four k-slots are four neighbouring
 *            pixels of one row, one 4C-byte load (k-slots may be ordered at
 *            will as long as A is built the same way). One-channel planes
 *            of 2^22 samples or more, and smaller ones alone on the GPU at
 *            2 k-steps, read them from rows their block staged in shared
 *            memory, 16 bytes a copy (staged_k ()); so do three-channel
 *            planes up to 3 k-steps, and four-channel ones of 2^22
 *            samples at 2.
 *   columns: m16n8k8, one row block per mma: the row pass's accumulator,
 *            converted to fp16, is the column pass's A fragment as it
 *            stands (M = columns, K = rows), and the weights are B. The
 *            last 2 K row blocks stay in a ring of registers, unrolled 2 K
 *            times so that every index is known at compile time (the
 *            two-pass form from 7 k-steps, and from fewer on some planes,
 *            unrolls 4 or 2 steps and shifts the ring's slots down after
 *            them: ring_steps ()). Its
 *            accumulator holds two neighbouring pixels of two rows, all
 *            channels: one 2C-byte store per row. The two-pass form's
 *            column pass takes up to 13 k-steps (radius 96) on planes of
 *            one and two channels (the chroma of 4:2:2 frames), 8 on
 *            wider ones: at 13 its ring and taps hold 176 registers (one
 *            channel), two blocks an SM, no spills. Two row blocks a
 *            m16n8k16 measured slower (up to 16 %: docs/performance.md,
 *            "The column pass to radius 96").
 *
 * The M slots are ordered so that slot g is column 2g and slot g + 8 column
 * 2g + 1 (hence the neighbouring pixels). Samples enter as the fp16 value
 * 1024 + s (exact: 0x64XX), and the offset leaves through the accumulators'
 * start values: the row pass starts at -1152 Sx and yields the fp16
 * intermediate centred on 0 (s - 128 on average: half the rounding error
 * of an uncentred one), the column pass starts at 128 Sx Sy + 0.5 (Sx, Sy:
 * the sums of the fp16 weights). Error against the float separable path
 * (docs/algorithms.md, section 8): the fp16 weights (relative 2^-11) and
 * the fp16 intermediate (at most 1/32 of a level) move the result by at
 * most about 0.16 of a level; the parity tests bound it by 1.
 *
 * Neighbouring warps of a block take neighbouring strips of the same rows,
 * so that each one's apron is mostly in L1; a lane also prefetches into L2
 * the rows a few steps ahead. A warp's run of rows starts with 2 (K - 1)
 * row blocks filtered only for the column pass's apron: past
 * gb_fused_registers_max_radius() that costs more than the two-pass form's
 * intermediate, which rows_kernel writes and columns_kernel reads back from
 * L2 (docs/performance.md, issue 3).
 */
#include "dependent_launch.h"
#include "device_limits.h"
#include "kernels.h"
#include "tensor_cores.h"

#include <cuda_fp16.h>

#include <atomic>
#include <cstring>

namespace {

constexpr int WARPS = 4;        /* strips per block */
constexpr int STRIP = 16;       /* output columns per warp: the mma's M */
[[maybe_unused]] constexpr int PREFETCH_AHEAD = 4;        /* row blocks */

struct FusedParams
{
  const uint8_t *src;
  size_t src_pitch;
  uint8_t *dst;
  size_t dst_pitch;
  const uint32_t *pairs_x;      /* gb_half_pairs_fill's tables, device, */
  const uint32_t *pairs_y;      /* from tap pair 0 (GB_HALF_PAIRS_PAD in) */
  float sum_x;                  /* the taps' sums in fp16 */
  float sum_y;
  int radius_x;
  int radius_y;
  int width;
  int height;
  int strips;                   /* 16-column strips */
  int groups;                   /* column groups: a block's warps' strips */
  int row_blocks;               /* 8-row blocks */
  float edge_weight;            /* what a unit of the first and last column
                                 * groups costs against the others' 1 */
  float segment_cost;           /* what starting a segment costs, in units:
                                 * its apron row blocks */
  uint8_t *mid;                 /* two-pass form: the fp16 intermediate */
  size_t mid_pitch;
  bool aligned_in;              /* four pixels in one load */
  bool aligned_in16;            /* rows may be staged 16 bytes a copy */
  bool staged;                  /* the block stages its rows
                                 * (fused_plane_staged; staged_k ()) */
  bool aligned_out;             /* two pixels in one store */
  bool aligned_out4;            /* one channel: four pixels in one store */
  float gpu_share;              /* GbDevicePlane.gpu_share, in (0, 1] */
};

#ifdef GB_HAVE_MMA
/* Channel c of pixels a and b of the four a lane loaded (C words, little
 * endian) as the fp16 pair (1024 + sample a, 1024 + sample b). With c, a
 * and b known at compile time this is one or two byte permutations. */
template < int C > __device__ __forceinline__ uint32_t
offset_half2 (const uint32_t (&w)[C], int c, int a, int b)
{
  const int ba = a * C + c;
  const int bb = b * C + c;
  if (ba / 4 == bb / 4)
    return gb_bytes_plus_1024 (w[ba / 4], ba % 4, bb % 4);
  return gb_bytes_plus_1024 (__byte_perm (w[ba / 4], w[bb / 4],
          (ba % 4) | (4 + bb % 4) << 4), 0, 1);
}

/* The B fragments of one k-step, channel by channel: pixels (0, 1) and
 * (2, 3) of the four a lane loaded. Four channels pair up through one
 * shared byte permutation per pixel pair and channel pair (1.5 operations a
 * register instead of 2). */
template < int C > __device__ __forceinline__ void
to_halves (const uint32_t (&w)[C], uint32_t (&h)[C][2])
{
  if constexpr (C == 4) {
#pragma unroll
    for (int pair = 0; pair < 2; pair++)
#pragma unroll
      for (int odd = 0; odd < 2; odd++) {
        /* bytes: channel odd, odd + 2 of pixel 2 pair, then of 2 pair + 1 */
        const uint32_t t = __byte_perm (w[2 * pair], w[(2 * pair + 1) % C],
            odd ? 0x7531 : 0x6420);
        h[odd][pair] = gb_bytes_plus_1024 (t, 0, 2);
        h[(odd + 2) % C][pair] = gb_bytes_plus_1024 (t, 1, 3);
      }
  } else {
#pragma unroll
    for (int c = 0; c < C; c++) {
      h[c][0] = offset_half2 < C > (w, c, 0, 1);
      h[c][1] = offset_half2 < C > (w, c, 2, 3);
    }
  }
}

/* Four pixels starting at p, aligned to their size (C = 3: to 4 bytes). */
template < int C > __device__ __forceinline__ void
load_four (uint32_t (&w)[C], const uint8_t * p)
{
  if (C == 4) {
    const uint4 v = __ldg (reinterpret_cast < const uint4 * >(p));
    w[0] = v.x;
    w[1 % C] = v.y;
    w[2 % C] = v.z;
    w[3 % C] = v.w;
  } else if (C == 2) {
    const uint2 v = __ldg (reinterpret_cast < const uint2 * >(p));
    w[0] = v.x;
    w[1 % C] = v.y;
  } else {
#pragma unroll
    for (int i = 0; i < C; i++)
      w[i] = __ldg (reinterpret_cast < const unsigned int *>(p) + i);
  }
}

template < int C > struct Four
{
  uint32_t w[C];
};

/* The same for pixels x .. x + 3 of a row through the border rule, a byte
 * at a time: groups more than one reflection outside the frame (planes
 * narrower than the apron). Out of line: every step of the unrolled ring
 * would otherwise carry a copy. */
template < int C > __device__ __noinline__ Four < C >
load_four_bordered (const uint8_t * row, int x, int width, GbBorder border)
{
  Four < C > f;
#pragma unroll
  for (int i = 0; i < C; i++)
    f.w[i] = 0;
#pragma unroll
  for (int k = 0; k < 4; k++) {
    const int m = gb_border_index (x + k, width, border);
    if (m >= 0)
#pragma unroll
      for (int c = 0; c < C; c++) {
        const int byte = k * C + c;
        f.w[byte / 4] |= (uint32_t) __ldg (row + (size_t) m * C + c)
            << (8 * (byte % 4));
      }
  }
  return f;
}

/* Row e (0, 1) of a column-pass result, pixels x and x + 1: truncated, the
 * + 0.5 of the rounding being in the accumulator's start value. */
template < int C > __device__ __forceinline__ void
store_two (const FusedParams & p, int y, int x, const float (&d)[C][4],
    int e)
{
  uint8_t *out = p.dst + (size_t) y * p.dst_pitch + (size_t) x * C;
  /* Three and four channels keep the zero-extended words cvt writes and
   * pack them by byte permutes (H200, RGBA 4K sigma 3 48.8 -> 45.2 us);
   * one and two channels lost by it (GRAY8 1080p sigma 1 6.5 -> 6.8, NV16
   * sigma 3 17.8 -> 19) and keep the narrowed byte. */
  uint32_t v[2][C];
#pragma unroll
  for (int k = 0; k < 2; k++)
#pragma unroll
    for (int c = 0; c < C; c++)
      v[k][c] = C >= 3 ? gb_truncate_u8_word (d[c][2 * k + e])
          : gb_truncate_u8 (d[c][2 * k + e]);

  if (p.aligned_out && x + 1 < p.width) {
    if (C == 1) {
      *reinterpret_cast < uint16_t * >(out) = (uint16_t) (v[0][0]
          | v[1][0] << 8);
    } else if (C == 2) {
      *reinterpret_cast < uint32_t * >(out) = v[0][0] | v[0][1 % C] << 8
          | v[1][0] << 16 | v[1][1 % C] << 24;
    } else if (C == 4) {
      *reinterpret_cast < uint2 * >(out) =
          make_uint2 (gb_pack_bytes (v[0][0], v[0][1 % C], v[0][2 % C],
              v[0][3 % C]), gb_pack_bytes (v[1][0], v[1][1 % C],
              v[1][2 % C], v[1][3 % C]));
    } else {
      uint16_t *o = reinterpret_cast < uint16_t * >(out);
      o[0] = (uint16_t) gb_pack_two_bytes (v[0][0], v[0][1 % C]);
      o[1] = (uint16_t) gb_pack_two_bytes (v[0][2 % C], v[1][0]);
      o[2] = (uint16_t) gb_pack_two_bytes (v[1][1 % C], v[1][2 % C]);
    }
    return;
  }
#pragma unroll
  for (int k = 0; k < 2; k++)
    if (x + k < p.width)
#pragma unroll
      for (int c = 0; c < C; c++)
        out[k * C + c] = (uint8_t) v[k][c];
}
#endif

/* Output strips a warp takes side by side: two for one channel, whose
 * registers allow it (half the apron loads per output, two independent
 * mma chains); one for more. */
__host__ __device__ constexpr int
strips_per_warp (int channels)
{
  return channels == 1 ? 2 : 1;
}

/* One channel: a block's four warps read the same rows, each its two strips
 * and their apron, 16 bytes of a row per load instruction (8 rows x 4
 * lanes x 4 bytes), half of each 32-byte sector. The block may instead
 * stage its rows in shared memory together, 16 bytes a thread per cp.async
 * (whole sectors, coalesced), STAGE_DEPTH - 1 row blocks ahead, each lane
 * reading its words from there. The walk alone, without its arithmetic
 * (bench/walk-probe.cu, H200, GRAY8, 2 k-steps, 4 blocks an SM), took
 * 12.9 -> 8.1 us at 4K and 4.8 -> 3.8 at 1080p; the copy 5.4 and 2.8. The
 * deeper stages, two pixel buffers for four channels and 4-byte row stores
 * measured slower or no faster in the kernel (docs/performance.md, "The
 * sigma 1 kernels on the H200"). The kernel itself
 * (docs/performance.md, "Rows staged in shared memory"), GRAY8 4K sigma 1
 * and 3: 16.1 / 18.1 -> 12.4 / 17.6-18.0 us; 1080p sigma 1: 6.9 -> 6.4, but
 * sigma 3 (3 k-steps) 8.4 -> 9.1 (short runs of rows, a barrier each
 * step), and the group kernels were slower at both (NV12 sigma 1: 9.2 ->
 * 10.4). So staged_k (): planes of STAGED_MIN_SAMPLES up to MAX_STAGED_K
 * k-steps, smaller planes alone on the GPU at 2 k-steps; the group
 * kernels never. The cut between 2^21 and 2^23 samples was not measured.
 * At 4 k-steps the two forms in one kernel took 204 registers (166
 * before): not staged. */
constexpr size_t STAGED_MIN_SAMPLES = (size_t) 1 << 22;
constexpr int MAX_STAGED_K = 3;

/* Whether fused_kernel<C, K> has the staged walk: one and three channels
 * up to MAX_STAGED_K k-steps, four channels at 2. Three channels' window
 * (8 rows of 64 pixels and their apron) is 128 chunks at 2 k-steps, 144
 * at 3; four channels' 160 at 2 (at 3, 220 registers and 2 blocks an SM,
 * no faster: RGBA 4K sigma 3 and 4 45.0-45.2 -> 45.2-58.1 us).
 * RGB was waiting on its loads (ncu: long scoreboard, 3.97 of 9.25 cycles
 * an instruction). Staged, on the H200 (docs/performance.md, "Three and
 * four channels staged"), us: RGB 4K at sigma 1 and 2 41.4 -> 29.6, at 3
 * and 4 49.4 -> 41.5; RGB 1080p at sigma 1 and 2 14.7 -> 11.1, at 3 and 4
 * 18.0 -> 15.2-16.5; RGBA 4K at sigma 1 and 2 38.5 -> 33.3, but RGBA 1080p
 * 12.3 -> 12.55: staged_k () stages four channels on large planes only. */
__host__ __device__ constexpr bool
has_staged_walk (int channels, int k)
{
  return ((channels == 1 || channels == 3) && k <= MAX_STAGED_K)
      || (channels == 4 && k == 2);
}

#ifdef GB_HAVE_MMA
/* Row blocks of pixels the fused kernel keeps in registers: the one being
 * filtered and those whose loads are in flight. Four channels take as many
 * as the ring's period allows, up to four (loads issued three row blocks
 * ahead); fewer channels two. Measured on the H100 (docs/performance.md,
 * "Row chains and loads further ahead"): RGBA 4K sigma 1 and 3, 45.0 /
 * 55.8 -> 43.0 / 52.6 us; more were slower for one channel (GRAY8 1080p
 * sigma 1: 7.0 -> 7.7 us) and two (NV12 1080p sigma 1: 10.7 -> 13.5), and
 * in rows_kernel (three, RGBA 1080p sigma 10: 31.2 -> 33.6). On the H200
 * (docs/performance.md, "The sigma 1 kernels on the H200"): two for four
 * channels tied at 2 k-steps and lost at 3 (RGBA 4K sigma 3: 45.4 ->
 * 48.6); the four-channel rule for three channels lost too (RGB 4K sigma
 * 1: 41.6 -> 43.9), though ncu finds RGB waiting on its loads. */
__device__ constexpr int
pixel_buffers (int channels, int period)
{
  return channels != 4 ? 2 : period % 4 == 0 ? 4 : period % 3 == 0 ? 3 : 2;
}

/* The row pass's A per k-step: element (m, k) is the tap from input column
 * x_in(k) to output column x_out(m) of the k-step that starts 8 h columns
 * left of the strip, (tap i, tap i + 1) for i = x_in - x_out + radius: one
 * load from the pairs table each, at a constant offset from the lane's
 * base. */
template < int K > __device__ __forceinline__ void
row_weights (const FusedParams & p, int g, int q, uint32_t (&row_a)[K][4])
{
  const uint32_t *base = p.pairs_x + p.radius_x - 8 * (K - 1) + 4 * q
      - 2 * g;
#pragma unroll
  for (int s = 0; s < K; s++)
#pragma unroll
    for (int r = 0; r < 4; r++)
      row_a[s][r] = __ldg (&base[16 * s + 2 * (r >> 1) - (r & 1)]);
}

/* The column pass's B per row block o of the 2 h + 1 an output block
 * reads: element (k, n) is the tap from row k of block o to output row n. */
template < int TAPS > __device__ __forceinline__ void
column_weights (const FusedParams & p, int g, int q, uint32_t (&b)[TAPS])
{
  const uint32_t *base = p.pairs_y + p.radius_y - 8 * (TAPS / 2) + 2 * q
      - g;
#pragma unroll
  for (int o = 0; o < TAPS; o++)
    b[o] = __ldg (&base[8 * o]);
}

/* The same for a group within one reflection of the frame (x >= 1 -
 * width, x + 3 <= 2 width - 2) or inside an unaligned one, each pixel
 * mapped without a division (gb_border_index_near) and loaded whole where
 * its alignment allows (4 channels: the frame is 16-byte aligned). One
 * channel maps without a branch too (read clamped, zeroed under the zero
 * rule): measured faster there, slower with four channels. Which planes
 * take it: near_edges ().
 * The out-of-line byte-wise rule made the edge strips' blocks the kernel's
 * last by up to a quarter of its time (docs/performance.md, "Edges"). */
template < int C > __device__ __forceinline__ void
load_four_near (uint32_t (&w)[C], const uint8_t * row, int x, int width,
    GbBorder border, bool aligned)
{
#pragma unroll
  for (int i = 0; i < C; i++)
    w[i] = 0;
#pragma unroll
  for (int k = 0; k < 4; k++) {
    const int i = x + k;
    int m;
    uint32_t keep = ~0u;
    if constexpr (C == 1) {
      const int reflected = min (abs (i), 2 * width - 2 - abs (i));
      m = border == GB_BORDER_MIRROR && width > 1 ? reflected
          : min (max (i, 0), width - 1);
      if (border == GB_BORDER_ZERO && (unsigned) i >= (unsigned) width)
        keep = 0;
    } else {
      m = gb_border_index_near (i, width, border);
      if (m < 0)
        continue;
    }
    if (C == 4 && aligned) {
      w[k % C] = __ldg (reinterpret_cast < const unsigned int *>(row) + m);
    } else {
#pragma unroll
      for (int c = 0; c < C; c++) {
        const int byte = k * C + c;
        w[byte / 4] |= ((uint32_t) __ldg (row + (size_t) m * C + c) & keep)
            << (8 * (byte % 4));
      }
    }
  }
}

/* The lane's LOADS groups of four pixels of row y (any integer: the border
 * rule maps it), from x_first on, 16 apart. Strips whose apron lies inside
 * the frame load without looking; at the edges each group checks, and
 * only those reaching outside take the border rule. */
template < int C, int LOADS, bool NEAR > __device__ __forceinline__ void
fetch_row (uint32_t (&px)[LOADS][C], const FusedParams & p, int y,
    int x_first, bool inside, GbBorder border)
{
  if ((unsigned) y >= (unsigned) p.height)
    y = gb_border_index (y, p.height, border);
  if (y < 0) {
#pragma unroll
    for (int s = 0; s < LOADS; s++)
#pragma unroll
      for (int i = 0; i < C; i++)
        px[s][i] = 0;
    return;
  }
  const uint8_t *row = p.src + (size_t) y * p.src_pitch
      + (ptrdiff_t) x_first * C;
  if (inside) {
#pragma unroll
    for (int s = 0; s < LOADS; s++)
      load_four < C > (px[s], row + 16 * s * C);
    return;
  }
  const uint8_t *row_start = row - (ptrdiff_t) x_first * C;
#pragma unroll
  for (int s = 0; s < LOADS; s++) {
    const int x = x_first + 16 * s;
    if (p.aligned_in && x >= 0 && x + 4 <= p.width) {
      load_four < C > (px[s], row + 16 * s * C);
    } else if (NEAR && x >= 1 - p.width && x + 3 <= 2 * p.width - 2) {
      load_four_near < C > (px[s], row_start, x, p.width, border,
          p.aligned_in);
    } else {
      const Four < C > f = load_four_bordered < C > (row_start, x, p.width,
          border);
#pragma unroll
      for (int i = 0; i < C; i++)
        px[s][i] = f.w[i];
    }
  }
}

/* The warp's own columns of row y, into L2 ahead of their loads: its
 * neighbours' aprons are other warps' own columns. */
template < int C, int MB > __device__ __forceinline__ void
prefetch_row (const FusedParams & p, int y, int x0, int q)
{
  if (32 * q < MB * STRIP * C && y >= 0 && y < p.height)
    asm volatile ("prefetch.global.L2 [%0];"::"l" (p.src
            + (size_t) y * p.src_pitch + (size_t) x0 * C + 32 * q));
}

/* The row pass of one row block: strip m's accumulator (element (m, n):
 * column x_out(m), row n) from the k-steps m .. m + K - 1 loaded. */
template < int C, int K, int MB > __device__ __forceinline__ void
row_pass (const uint32_t (&px)[K + MB - 1][C], const uint32_t (&row_a)[K][4],
    float start, float (&acc)[MB][C][4])
{
#pragma unroll
  for (int m = 0; m < MB; m++)
#pragma unroll
    for (int c = 0; c < C; c++)
      acc[m][c][0] = acc[m][c][1] = acc[m][c][2] = acc[m][c][3] = start;
#pragma unroll
  for (int s = 0; s < K + MB - 1; s++) {
    uint32_t h[C][2];
    to_halves < C > (px[s], h);
#pragma unroll
    for (int m = 0; m < MB; m++)
      if (s - m >= 0 && s - m < K)
#pragma unroll
        for (int c = 0; c < C; c++)
          gb_mma_16816 (acc[m][c], row_a[s - m], h[c][0], h[c][1]);
  }
}

/* Pixels x .. x + 3 of row y, packed little endian (one channel). */
__device__ __forceinline__ void
store_four (const FusedParams & p, int y, int x, uint32_t packed)
{
  uint8_t *out = p.dst + (size_t) y * p.dst_pitch + x;

  if (p.aligned_out4 && x + 3 < p.width) {
    *reinterpret_cast < uint32_t * >(out) = packed;
    return;
  }
#pragma unroll
  for (int k = 0; k < 4; k++)
    if (x + k < p.width)
      out[k] = (uint8_t) (packed >> 8 * k);
}

/* The column pass of the output block whose last row block is in ring
 * slot u (known at compile time: the ring is unrolled), from the 2 h + 1
 * row blocks before it, rounded and stored: rows y and y + 1, pixels 2g
 * and 2g + 1 of each strip, or, INTERLEAVED (one channel, two strips),
 * pixels 4g + 2m and 4g + 2m + 1 of strip m, stored four at a time. Two
 * chains (even and odd blocks) for the mma latency. */
template < int C, int MB, int RING, int TAPS, bool INTERLEAVED = false >
    __device__ __forceinline__ void
column_pass (const FusedParams & p, const uint32_t (&ring)[MB][C][RING][2],
    int u, const uint32_t (&column_b)[TAPS], float start, int x0, int y,
    int y_end, int g)
{
  static_assert (!INTERLEAVED || (C == 1 && MB == 2),
      "interleaved strips: two of one channel");
  uint32_t packed[2] = { 0, 0 };        /* INTERLEAVED: rows y, y + 1 */
#pragma unroll
  for (int m = 0; m < MB; m++) {
    float d[C][4], e[C][4];
#pragma unroll
    for (int c = 0; c < C; c++) {
      d[c][0] = d[c][1] = d[c][2] = d[c][3] = start;
      e[c][0] = e[c][1] = e[c][2] = e[c][3] = 0.0f;
#pragma unroll
      for (int o = 0; o < TAPS; o++) {
        const int b = ((u - (TAPS - 1) + o) % RING + RING) % RING;
        gb_mma_1688 (o & 1 ? e[c] : d[c], ring[m][c][b][0], ring[m][c][b][1],
            column_b[o]);
      }
#pragma unroll
      for (int i = 0; i < 4; i++)
        d[c][i] += e[c][i];
    }
    if constexpr (INTERLEAVED) {
      /* Pixels 4g + 2m and 4g + 2m + 1: bytes 2m and 2m + 1. */
#pragma unroll
      for (int r = 0; r < 2; r++)
        packed[r] |= ((uint32_t) gb_truncate_u8 (d[0][r])
            | (uint32_t) gb_truncate_u8 (d[0][2 + r]) << 8)
            << 16 * m;
    } else {
      const int x = x0 + m * STRIP + 2 * g;
      if (x < p.width) {
        if (y < y_end)
          store_two < C > (p, y, x, d, 0);
        if (y + 1 < y_end)
          store_two < C > (p, y + 1, x, d, 1);
      }
    }
  }
  if constexpr (INTERLEAVED) {
    const int x = x0 + 4 * g;
    if (x < p.width) {
      if (y < y_end)
        store_four (p, y, x, packed[0]);
      if (y + 1 < y_end)
        store_four (p, y + 1, x, packed[1]);
    }
  }
}

/* The (column group, row block) unit, in column-group order, at cost c of
 * the plane's work. Each column group costs p.segment_cost (the apron rows
 * of the segment that starts there), then its units: p.edge_weight each in
 * the first and last groups (their strips take the border rule), 1 in the
 * others. Blocks cut at equal costs then finish together: a block whose
 * run crosses into the next group (a second apron) or lies at the frame's
 * edge takes fewer units (docs/performance.md, "Edges"). */
__device__ __forceinline__ int
unit_at_cost (const FusedParams & p, float c)
{
  const float rows = (float) p.row_blocks;
  const float first = p.segment_cost + p.edge_weight * rows;
  const float middle = p.segment_cost + rows;
  int group = 0;
  float offset = c;
  if (c >= first) {
    group = 1 + (int) ((c - first) / middle);
    if (group >= p.groups - 1) {
      group = p.groups - 1;
      offset = c - first - middle * (float) (p.groups - 2);
    } else {
      offset = c - first - middle * (float) (group - 1);
    }
  }
  const float weight = group == 0 || group == p.groups - 1
      ? p.edge_weight : 1.0f;
  const int unit = (int) ((offset - p.segment_cost) / weight + 0.5f);
  return group * p.row_blocks + max (0, min (unit, p.row_blocks));
}

/* Block b's share of the plane among n_blocks: a run of (column group, row
 * block) units in column-group order, of the same cost for every block
 * (unit_at_cost), visited in segments that end at column-group boundaries.
 * For each, the warp's strips' first column x0, the first row y0 and the
 * row blocks; warps past the plane's last strip skip it, unless EVERY_WARP
 * (the block stages its rows together: x0 is then past the plane). */
template < int MB, bool EVERY_WARP = false, typename Segment >
__device__ __forceinline__ void
for_each_segment (const FusedParams & p, int b, int n_blocks,
    Segment && segment)
{
  const int warp = threadIdx.x >> 5;
  const float total = p.groups * p.segment_cost + (float) p.row_blocks
      * ((float) (p.groups - 2) + 2 * p.edge_weight);
  int start = b == 0 ? 0 : unit_at_cost (p, total * b / n_blocks);
  const int end = b + 1 == n_blocks ? p.groups * p.row_blocks
      : unit_at_cost (p, total * (b + 1) / n_blocks);
  while (start < end) {
    const int group = start / p.row_blocks;
    const int first_block = start - group * p.row_blocks;
    const int segment_end = min (end, (group + 1) * p.row_blocks);
    const int warp_strip = (group * WARPS + warp) * MB;
    if (EVERY_WARP || warp_strip < p.strips)
      segment (warp_strip * STRIP, 8 * first_block, segment_end - start);
    start = segment_end;
  }
}

constexpr int STAGE_DEPTH = 4;

/* The staged window of a row block for k-steps K and C channels, in bytes:
 * the block's strips (128 pixels of one channel, 64 of three or four) and
 * APRON either side (8 (K - 1) pixels rounded up to whole 16-byte chunks),
 * in rows PITCH apart. Where a lane reads 4-byte words (one and three
 * channels), a row is 16 bytes longer than the window, so that rows start
 * 12 banks apart (20 at 4 k-steps; 4 and 12 for three channels) and the 8
 * rows' words of a load (4 lanes a row) fall in 32 different banks. Four
 * channels read a pixel quad in one 16-byte load, 8 lanes a pass (two
 * rows): rows of 320 bytes, 16 banks apart, keep those in 32 banks.
 * ROUNDS: the window's chunks a thread stages (2 where it has more than
 * the block's 128 threads). */
template < int K, int C = 1 > struct StagedWindow
{
  static constexpr int APRON = 16 * ((8 * (K - 1) * C + 15) / 16);
  static constexpr int CHUNKS = (WARPS * strips_per_warp (C) * STRIP * C
      + 2 * APRON) / 16;
  static constexpr int PITCH = 16 * CHUNKS + (C == 4 ? 0 : 16);
  static_assert (C != 4 || PITCH % 128 == 64,
      "four channels' rows 16 banks apart (true at 2 k-steps, not at 3)");
  static constexpr int BYTES = 8 * PITCH;
  static constexpr int ROUNDS = (8 * CHUNKS + WARPS * 32 - 1) / (WARPS * 32);
};

/* Thread threadIdx.x's chunks of row block rb (frame rows 8 rb ..) into
 * stage: window bytes from x_window, all inside the frame. Rows outside
 * it go through the border rule (zeros where it gives none). */
template < int K, int C = 1 > __device__ __forceinline__ void
stage_chunk (uint8_t * stage, const FusedParams & p, int rb, int x_window,
    GbBorder border)
{
  using W = StagedWindow < K, C >;
#pragma unroll
  for (int round = 0; round < W::ROUNDS; round++) {
    const int i = threadIdx.x + round * WARPS * 32;
    if (i >= 8 * W::CHUNKS)
      return;
    const int r = i / W::CHUNKS;
    const int c = i - r * W::CHUNKS;
    uint8_t *to = stage + r * W::PITCH + 16 * c;
    int y = 8 * rb + r;
    if ((unsigned) y >= (unsigned) p.height)
      y = gb_border_index (y, p.height, border);
    if (y < 0) {
      *reinterpret_cast < uint4 * >(to) = make_uint4 (0, 0, 0, 0);
      continue;
    }
    const uint32_t address = (uint32_t) __cvta_generic_to_shared (to);
    asm volatile ("cp.async.cg.shared.global [%0], [%1], 16;"::"r" (address),
        "l" (p.src + (size_t) y * p.src_pitch + x_window + 16 * c));
  }
}

__device__ __forceinline__ void
stage_commit ()
{
  asm volatile ("cp.async.commit_group;");
}

/* Waits for all but the last n committed stages. */
template < int N > __device__ __forceinline__ void
stage_wait ()
{
  asm volatile ("cp.async.wait_group %0;"::"n" (N));
}

/* A fused walk's weights (row_weights, column_weights) and the start
 * values of its two passes' accumulators, loaded once a kernel. */
template < int K > struct WalkTaps
{
  uint32_t row_a[K][4];
  uint32_t column_b[2 * K - 1];
  float row_start;
  float column_start;
};

template < int K > __device__ __forceinline__ void
walk_taps (const FusedParams & p, WalkTaps < K > &w)
{
  const int lane = threadIdx.x & 31;
  row_weights < K > (p, lane >> 2, lane & 3, w.row_a);
  column_weights < 2 * K - 1 > (p, lane >> 2, lane & 3, w.column_b);
  w.row_start = -1152.0f * p.sum_x;
  w.column_start = 128.0f * p.sum_x * p.sum_y + 0.5f;
}

/* Calls step (u, t) for the walk's steps t = 0 .. steps - 1, unrolled by
 * RING so that u = t % RING, the ring slot, is known at compile time. */
template < int RING, typename Step > __device__ __forceinline__ void
for_each_step (int steps, Step && step)
{
  for (int t0 = 0; t0 < steps; t0 += RING)
#pragma unroll
    for (int u = 0; u < RING; u++) {
      if (t0 + u >= steps)
        break;
      step (u, t0 + u);
    }
}

/* Step t of a segment's walk from the lane's words px of row block t - H:
 * its row pass into ring slot u, then the column pass of output block
 * t - 2 H from the blocks t - 3 H .. t - H. */
template < int C, int K, int MB, int RING > __device__ __forceinline__ void
walk_step (const FusedParams & p, const uint32_t (&px)[K + MB - 1][C],
    const WalkTaps < K > &w, uint32_t (&ring)[MB][C][RING][2], int u, int t,
    int x0, int y0, int y_end)
{
  const int lane = threadIdx.x & 31;
  float acc[MB][C][4];
  row_pass < C, K, MB > (px, w.row_a, w.row_start, acc);
#pragma unroll
  for (int m = 0; m < MB; m++)
#pragma unroll
    for (int c = 0; c < C; c++) {
      ring[m][c][u][0] = gb_pack_half2 (acc[m][c][0], acc[m][c][1]);
      ring[m][c][u][1] = gb_pack_half2 (acc[m][c][2], acc[m][c][3]);
    }
  if (t >= 2 * (K - 1))
    column_pass < C, MB, RING, 2 * K - 1 > (p, ring, u, w.column_b,
        w.column_start, x0, y0 + 8 * (t - 2 * (K - 1)) + 2 * (lane & 3),
        y_end, lane >> 2);
}

/* One segment of a warp's walk (for_each_segment: its strips from column
 * x0, rows from y0, `blocks` row blocks of output), each lane loading its
 * own words. Each segment filters 2 H row blocks of apron more than it
 * writes. */
template < int C, int K, bool NEAR > __device__ __forceinline__ void
walk_loaded (const FusedParams & p, GbBorder border, int x0, int y0,
    int blocks, const WalkTaps < K > &w)
{
  constexpr int MB = strips_per_warp (C);
  constexpr int H = K - 1;      /* row blocks of apron above and below */
  constexpr int RING = 2 * K;   /* a multiple of the pixel buffers */
  constexpr int LOADS = K + MB - 1;     /* k-steps loaded per row block */
  constexpr int BUFFERS = pixel_buffers (C, RING);
  static_assert (RING % BUFFERS == 0, "the buffers cycle with the ring");
  /* A segment has at least one row block of output, so 1 + 2 H steps: the
   * first BUFFERS - 1 fetches are always within it. */
  static_assert (BUFFERS - 1 <= 1 + 2 * H, "the first fetches are steps");
  const int lane = threadIdx.x & 31;
  const int g = lane >> 2;      /* fragment group: M slots g, g + 8 */
  const int q = lane & 3;       /* fragment pair: k-slots 2q, 2q + 1 (+ 8) */
  const int y_end = min (y0 + 8 * blocks, p.height);
  const int steps = blocks + 2 * H;
  const int x_first = x0 - 8 * H + 4 * q;
  const bool inside = p.aligned_in && x0 - 8 * H >= 0
      && x0 + MB * STRIP + 8 * H <= p.width;

  uint32_t ring[MB][C][RING][2];
  uint32_t pixels[BUFFERS][LOADS][C];
#pragma unroll
  for (int t = 1; t <= PREFETCH_AHEAD; t++)
    prefetch_row < C, MB > (p, y0 + 8 * (t - H) + g, x0, q);
#pragma unroll
  for (int t = 0; t < BUFFERS - 1; t++)
    fetch_row < C, LOADS, NEAR > (pixels[t], p, y0 + 8 * (t - H) + g,
        x_first, inside, border);

  for_each_step < RING > (steps,[&](int u, int t) {
    if (t + BUFFERS - 1 < steps)
      fetch_row < C, LOADS, NEAR > (pixels[(u + BUFFERS - 1) % BUFFERS], p,
          y0 + 8 * (t + BUFFERS - 1 - H) + g, x_first, inside, border);
    if (t + 1 + PREFETCH_AHEAD < steps)
      prefetch_row < C, MB > (p, y0 + 8 * (t + 1 + PREFETCH_AHEAD - H) + g,
          x0, q);
    walk_step < C, K, MB, RING > (p, pixels[u % BUFFERS], w, ring, u, t,
        x0, y0, y_end);
  });
}

/* Block b of the n_blocks that filter plane p, each lane loading its own
 * words. */
template < int C, int K, bool NEAR > __device__ __forceinline__ void
fused_plane (const FusedParams & p, GbBorder border, int b, int n_blocks)
{
  WalkTaps < K > w;
  walk_taps < K > (p, w);

  for_each_segment < strips_per_warp (C) > (p, b, n_blocks,[&](int x0,
          int y0, int blocks) {
    walk_loaded < C, K, NEAR > (p, border, x0, y0, blocks, w);
  });
}

/* fused_plane where p.staged (has_staged_walk ()): segments whose window
 * (StagedWindow) lies inside the frame read rows the block staged
 * together, with the same arithmetic in the same order as walk_loaded ()
 * (the output is the same); the others (the frame's first and last column
 * groups) take walk_loaded (): cp.async has no border rule, and loads
 * made and stored at once would keep the whole block waiting each step. */
template < int C, int K, bool NEAR > __device__ __forceinline__ void
fused_plane_staged (const FusedParams & p, GbBorder border, int b,
    int n_blocks)
{
  constexpr int MB = strips_per_warp (C);
  constexpr int H = K - 1;
  constexpr int RING = 2 * K;
  constexpr int LOADS = K + MB - 1;
  using W = StagedWindow < K, C >;
  __shared__ __align__ (16) uint8_t stages[STAGE_DEPTH][W::BYTES];
  const int warp = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  const int g = lane >> 2;
  const int q = lane & 3;
  WalkTaps < K > w;
  walk_taps < K > (p, w);
  /* The lane's first word in a staged row: 8 H columns left of its
   * warp's strips, 4 q on (bytes). */
  const int word = W::APRON + (warp * MB * STRIP - 8 * H + 4 * q) * C;

  for_each_segment < MB, true > (p, b, n_blocks,[&](int x0, int y0,
          int blocks) {
    const int x_window = (x0 - warp * MB * STRIP) * C - W::APRON;
    if (!p.staged || x_window < 0
        || x_window + 16 * W::CHUNKS > p.width * C) {
      if (x0 < p.width)
        walk_loaded < C, K, NEAR > (p, border, x0, y0, blocks, w);
      return;
    }
    const int y_end = min (y0 + 8 * blocks, p.height);
    const int steps = blocks + 2 * H;
    const int first = y0 / 8 - H;       /* the row block of step 0 */

    /* The previous segment's last reads are done before its slots fill. */
    __syncthreads ();
#pragma unroll
    for (int t = 0; t < STAGE_DEPTH - 1; t++) {
      if (t < steps)
        stage_chunk < K, C > (stages[t], p, first + t, x_window, border);
      stage_commit ();
    }
    uint32_t ring[MB][C][RING][2];
    for_each_step < RING > (steps,[&](int u, int t) {
      /* Step t's stage is in, and every warp is past step t - 1's. */
      stage_wait < STAGE_DEPTH - 2 > ();
      __syncthreads ();
      if (t + STAGE_DEPTH - 1 < steps)
        stage_chunk < K, C > (stages[(t + STAGE_DEPTH - 1) % STAGE_DEPTH],
            p, first + t + STAGE_DEPTH - 1, x_window, border);
      stage_commit ();
      const uint8_t *row = stages[t % STAGE_DEPTH] + g * W::PITCH + word;
      uint32_t px[LOADS][C];
#pragma unroll
      for (int s = 0; s < LOADS; s++)
        if constexpr (C == 4) {
          const uint4 v = *reinterpret_cast < const uint4 * >(row + 64 * s);
          px[s][0] = v.x;
          px[s][1] = v.y;
          px[s][2] = v.z;
          px[s][3] = v.w;
        } else {
#pragma unroll
          for (int i = 0; i < C; i++)
            px[s][i] = *reinterpret_cast < const uint32_t * >(row
                + 16 * C * s + 4 * i);
        }
      walk_step < C, K, MB, RING > (p, px, w, ring, u, t, x0, y0, y_end);
    });
  });
}

#endif

template < int C, int K, bool NEAR > __global__ void
__launch_bounds__ (WARPS * 32)
fused_kernel (FusedParams p, GbBorder border)
{
#ifdef GB_HAVE_MMA
  if constexpr (has_staged_walk (C, K))
    fused_plane_staged < C, K, NEAR > (p, border, blockIdx.x, gridDim.x);
  else
    fused_plane < C, K, NEAR > (p, border, blockIdx.x, gridDim.x);
#endif
}

/* The two-pass form for larger radii, where a warp's apron rows would cost
 * more than they save: the row pass writes the fp16 intermediate (centred,
 * interleaved like the frame: row y, pixel x, channel c at
 * p.mid + y mid_pitch + (x C + c) * 2 bytes, for x up to 16 strips), the
 * column pass reads it back (mostly from L2) a row block at a time. */
template < int C, int K, bool NEAR > __global__ void
__launch_bounds__ (WARPS * 32)
rows_kernel (FusedParams p, GbBorder border)
{
#ifdef GB_HAVE_MMA
  constexpr int MB = strips_per_warp (C);
  constexpr int H = K - 1;
  constexpr int LOADS = K + MB - 1;
  const int lane = threadIdx.x & 31;
  const int g = lane >> 2;
  const int q = lane & 3;
  /* columns_kernel's blocks may take the SMs this pass leaves idle from now
   * on (docs/performance.md, "Passes that start early"). */
  gb_let_next_kernel_start ();
  uint32_t row_a[K][4];
  row_weights < K > (p, g, q, row_a);
  const float row_start = -1152.0f * p.sum_x;

  for_each_segment < MB > (p, blockIdx.x, gridDim.x,[&](int x0, int y0,
          int blocks) {
    const int x_first = x0 - 8 * H + 4 * q;
    const bool inside = p.aligned_in && x0 - 8 * H >= 0
        && x0 + MB * STRIP + 8 * H <= p.width;
    uint32_t pixels[2][LOADS][C];

#pragma unroll
    for (int t = 1; t <= PREFETCH_AHEAD; t++)
      prefetch_row < C, MB > (p, y0 + 8 * t + g, x0, q);
    fetch_row < C, LOADS, NEAR > (pixels[0], p, y0 + g, x_first, inside,
        border);
    for (int t0 = 0; t0 < blocks; t0 += 2) {
#pragma unroll
      for (int u = 0; u < 2; u++) {
        const int t = t0 + u;
        if (t >= blocks)
          break;
        if (t + 1 < blocks)
          fetch_row < C, LOADS, NEAR > (pixels[u ^ 1], p, y0 + 8 * (t + 1) + g,
              x_first, inside, border);
        if (t + 1 + PREFETCH_AHEAD < blocks)
          prefetch_row < C, MB > (p, y0 + 8 * (t + 1 + PREFETCH_AHEAD) + g,
              x0, q);
        float acc[MB][C][4];
        row_pass < C, K, MB > (pixels[u], row_a, row_start, acc);
        /* Rows 2q and 2q + 1, pixels 2g and 2g + 1: 2 C halves each. */
#pragma unroll
        for (int e = 0; e < 2; e++) {
          const int y = y0 + 8 * t + 2 * q + e;
          if (y < p.height)
#pragma unroll
            for (int m = 0; m < MB; m++) {
              uint32_t v[C];
#pragma unroll
              for (int i = 0; i < C; i++) {
                /* halves 2i, 2i + 1 of pixel-major (pixel, channel) */
                const int a = 2 * i, b = 2 * i + 1;
                v[i] = gb_pack_half2 (acc[m][a % C][2 * (a / C) + e],
                    acc[m][b % C][2 * (b / C) + e]);
              }
              uint8_t *out = p.mid + (size_t) y * p.mid_pitch
                  + (size_t) (x0 + m * STRIP + 2 * g) * C * 2;
              if (C == 4)
                *reinterpret_cast < uint4 * >(out) = make_uint4 (v[0],
                    v[1 % C], v[2 % C], v[3 % C]);
              else if (C == 2)
                *reinterpret_cast < uint2 * >(out) = make_uint2 (v[0],
                    v[1 % C]);
              else
#pragma unroll
                for (int i = 0; i < C; i++)
                  reinterpret_cast < uint32_t * >(out)[i] = v[i];
            }
        }
      }
    }
  });
#endif
}

/* From this apron (in row blocks) up, the column pass's ring is unrolled
 * over SHIFTED_RING_STEPS steps and its slots shifted down after them,
 * rather than unrolled over all its 2 H + 2 slots: the loop's code is
 * then a few steps long, not 14 to 26 (ncu on the H200: 39-41 % of the
 * column pass's cycles at 11 row blocks stalled waiting for an
 * instruction), and takes fewer registers (columns_kernel <1, 12> 228 ->
 * 176, <1, 6> 146 -> 116). Measured on the H200 (docs/performance.md,
 * "The column pass's ring, shifted"), us: Y42B 1080p at sigma 25 40.1 ->
 * 35.1, NV16 35.9 -> 33.4, GRAY8 4K at 10 across and 25 down 58.6 ->
 * 43.6; from 6, at sigma 12, I420 1080p 28.6 -> 23.3, RGBA 37.3 -> 34.7
 * (RGB 37.6 -> 38.0). At 4 and 5 row blocks only a plane of one channel
 * beside its frame's other planes takes it (BESIDE_SHIFTED_RING_MIN_H),
 * and four channels at 5 (ring_steps). */
constexpr int SHIFTED_RING_MIN_H = 6;
constexpr int SHIFTED_RING_STEPS = 4;   /* even, as every ring's steps */

/* At 4 and 5 row blocks of apron, shifting the ring of the planes of one
 * channel that run beside their frame's other planes (gpu_share < 1)
 * measured faster on frames with such planes, the rest within 0.1 us;
 * shifting it on a plane alone, or on two channels, slower (H200,
 * docs/performance.md, "The shifted ring beside other planes"), us: NV12
 * 1080p at sigma 7 19.7 -> 18.3, I420 23.0 -> 20.5, NV16 at sigma 10 28.7
 * -> 26.8, Y444 36.5 -> 35.7; GRAY8 alone at sigma 7 13.6 -> 13.8, GRAY8
 * 4K at sigma 10 32.5 -> 33.4, NV24's interleaved chroma at sigma 10 33.5
 * -> 34.0. */
constexpr int BESIDE_SHIFTED_RING_MIN_H = 4;

/* Four channels at 5 row blocks (radius 33-40) shift every 2 steps: RGBA
 * 1080p at sigma 10 31.2 -> 29.8 us, 4K 100.3 -> 100.5 (H200, the same
 * section). The other trials (every 4 steps; every 2 at 3 and 4 row
 * blocks, or on three channels) lost, or gained at 1080p and lost at 4K
 * or the reverse. */
constexpr int FOUR_CHANNEL_SHIFTED_H = 5;
constexpr int FOUR_CHANNEL_RING_STEPS = 2;

/* The column pass's ring for H row blocks of apron: shifted every so many
 * steps, or 0: unrolled over its 2 H + 2 slots. */
__host__ __device__ constexpr int
ring_steps (int channels, int h, bool beside_others)
{
  if (h >= SHIFTED_RING_MIN_H || (channels == 1 && beside_others
          && h >= BESIDE_SHIFTED_RING_MIN_H))
    return SHIFTED_RING_STEPS;
  return channels == 4 && h == FOUR_CHANNEL_SHIFTED_H
      ? FOUR_CHANNEL_RING_STEPS : 0;
}

template < int C, int H, int RING_STEPS > __global__ void
__launch_bounds__ (WARPS * 32)
columns_kernel (FusedParams p, GbBorder border)
{
#ifdef GB_HAVE_MMA
  constexpr int MB = strips_per_warp (C);
  constexpr int TAPS_Y = 2 * H + 1;
  /* Steps unrolled; the ring's slots: unshifted, step t's row block is in
   * slot t mod RING; shifted, in slot TAPS_Y - 1 + (t mod STEPS), the
   * TAPS_Y - 1 before it below. */
  constexpr bool SHIFTED = RING_STEPS > 0;
  constexpr int STEPS = SHIFTED ? RING_STEPS : 2 * H + 2;
  constexpr int RING = SHIFTED ? TAPS_Y - 1 + STEPS : STEPS;
  static_assert (STEPS % 2 == 0, "the raw buffers alternate");
  constexpr bool INTERLEAVED = C == 1;
  const int lane = threadIdx.x & 31;
  const int g = lane >> 2;
  const int q = lane & 3;
  uint32_t column_b[TAPS_Y];
  column_weights < TAPS_Y > (p, g, q, column_b);
  const float column_start = 128.0f * p.sum_x * p.sum_y + 0.5f;
  /* A row outside the frame under the zero border: the row pass of zeros,
   * centred. */
  const uint32_t zero_row = gb_pack_half2 (-128.0f * p.sum_x,
      -128.0f * p.sum_x);
  /* The weights came before the chain; the intermediate is rows_kernel's. */
  gb_wait_for_previous_kernel ();

  for_each_segment < MB > (p, blockIdx.x, gridDim.x,[&](int x0, int y0,
          int blocks) {
    const int y_end = min (y0 + 8 * blocks, p.height);
    const int steps = blocks + 2 * H;

    /* Rows 2q and 2q + 1 of row block t - H, pixels 2g and 2g + 1 of each
     * strip: C words (2 C halves) per row. One channel: the two strips
     * interleave, strip m's pixels are 4g + 2m and 4g + 2m + 1 (the column
     * pass keeps columns apart: any order will do), one 8-byte load a
     * row. */
    auto fetch = [&](uint32_t (&raw)[MB][2][C], int t) {
#pragma unroll
      for (int e = 0; e < 2; e++) {
        int y = y0 + 8 * (t - H) + 2 * q + e;
        if ((unsigned) y >= (unsigned) p.height)
          y = gb_border_index (y, p.height, border);
        if constexpr (INTERLEAVED) {
          if (y < 0) {
            raw[0][e][0] = raw[1 % MB][e][0] = zero_row;
          } else {
            const uint2 v = __ldg (reinterpret_cast < const uint2 * >(p.mid
                    + (size_t) y * p.mid_pitch + (size_t) (x0 + 4 * g) * 2));
            raw[0][e][0] = v.x;
            raw[1 % MB][e][0] = v.y;
          }
        } else {
#pragma unroll
          for (int m = 0; m < MB; m++) {
            if (y < 0) {
#pragma unroll
              for (int i = 0; i < C; i++)
                raw[m][e][i] = zero_row;
              continue;
            }
            const uint8_t *in = p.mid + (size_t) y * p.mid_pitch
                + (size_t) (x0 + m * STRIP + 2 * g) * C * 2;
            if (C == 4) {
              const uint4 v = __ldg (reinterpret_cast < const uint4 * >(in));
              raw[m][e][0] = v.x;
              raw[m][e][1 % C] = v.y;
              raw[m][e][2 % C] = v.z;
              raw[m][e][3 % C] = v.w;
            } else if (C == 2) {
              const uint2 v = __ldg (reinterpret_cast < const uint2 * >(in));
              raw[m][e][0] = v.x;
              raw[m][e][1 % C] = v.y;
            } else {
#pragma unroll
              for (int i = 0; i < C; i++)
                raw[m][e][i] = __ldg (reinterpret_cast < const unsigned int
                    *>(in) + i);
            }
          }
        }
      }
    };

    uint32_t ring[MB][C][RING][2];
    uint32_t raw[2][MB][2][C];
    fetch (raw[0], 0);
    for (int t0 = 0; t0 < steps; t0 += STEPS) {
#pragma unroll
      for (int u = 0; u < STEPS; u++) {
        const int t = t0 + u;
        if (t >= steps)
          break;
        const int slot = SHIFTED ? TAPS_Y - 1 + u : u;
        if (t + 1 < steps)
          fetch (raw[(u + 1) & 1], t + 1);
        /* The A registers of channel c: (row 2q, row 2q + 1) of pixel 2g,
         * then of pixel 2g + 1. */
#pragma unroll
        for (int m = 0; m < MB; m++)
#pragma unroll
          for (int c = 0; c < C; c++)
#pragma unroll
            for (int k = 0; k < 2; k++) {
              const int half = k * C + c;
              const uint32_t selector = half & 1 ? 0x7632 : 0x5410;
              ring[m][c][slot][k] = __byte_perm (raw[u & 1][m][0][half / 2],
                  raw[u & 1][m][1][half / 2], selector);
            }
        if (t >= 2 * H)
          column_pass < C, MB, RING, TAPS_Y, INTERLEAVED > (p, ring, slot,
              column_b, column_start, x0, y0 + 8 * (t - 2 * H) + 2 * q,
              y_end, g);
      }
      /* The last TAPS_Y - 1 row blocks, below the next steps' slots. */
      if constexpr (SHIFTED) {
#pragma unroll
        for (int m = 0; m < MB; m++)
#pragma unroll
          for (int c = 0; c < C; c++)
#pragma unroll
            for (int j = 0; j < TAPS_Y - 1; j++) {
              ring[m][c][j][0] = ring[m][c][j + STEPS][0];
              ring[m][c][j][1] = ring[m][c][j + STEPS][1];
            }
      }
    }
  });
#endif
}

typedef void (*FusedKernel) (FusedParams, GbBorder);

/* The kernels by channels and k-steps (rows: of the x apron, columns: 1 +
 * the row blocks of the y apron; fused: both), fused up to 4 k-steps
 * (radius 24) for one and two channels and 3 (radius 16) for more:
 * gb_fused_registers_max_radius(); rows up to MAX_K, columns up to
 * MAX_COLUMN_K on planes of one and two channels (MAX_K on wider ones,
 * whose ring of 2 K row blocks would not fit in registers). */
enum Kind
{ FUSED, ROWS, COLUMNS, KINDS };

constexpr int MAX_K = 1 + (GB_FUSED_MAX_RADIUS + 7) / 8;
constexpr int MAX_COLUMN_K = 1 + (GB_FUSED_MAX_RADIUS_Y + 7) / 8;
constexpr int MAX_COLUMN_K_CHANNELS = 2;

/* The edge forms compiled for a channel count (near_edges () picks among
 * them): the inline rule (load_four_near) for all but two channels, the
 * out-of-line one for one and two. */
__host__ __device__ constexpr bool
has_inline_form (int channels)
{
  return channels != 2;
}

__host__ __device__ constexpr bool
has_out_of_line_form (int channels)
{
  return channels <= 2;
}

/* A frame's planes in one launch: blocks 0 .. first[0] - 1 filter the
 * luma plane (one channel, K0 k-steps), the rest its chroma (C1 channels,
 * K1): one interleaved plane (NV12), or two planes of one channel and the
 * same shape (I420), the second from block first[1]. One launch instead
 * of one a plane on the plane streams: the planes' blocks share one wave.
 * The second chroma plane differs from the first only in its addresses
 * (planes_run checks the rest, its taps included), so one chroma body
 * serves both and reads every other parameter at a constant index. On
 * I420 1080p at sigma 1 it measured 10.0-10.4 us, where a body indexing
 * its plane's parameters by a register took 10.9-11.1 and a body for each
 * plane 13.1 (docs/performance.md, "A frame's planes in one launch"). */
struct PlaneGroup
{
  FusedParams luma;
  FusedParams chroma;           /* the first chroma plane */
  const uint8_t *src2;          /* the second's addresses, where one is */
  uint8_t *dst2;
  bool aligned_in2;
  bool aligned_out2;
  bool aligned_out4_2;
  int first[2];                 /* each chroma plane's first block */
};

/* Four blocks an SM, as the one-plane kernels hold (up to 128 registers):
 * the two bodies in one kernel took up to 152 and three blocks. */
constexpr int GROUP_MIN_BLOCKS = 4;

template < int C1, int K0, int K1 > __global__ void
__launch_bounds__ (WARPS * 32, GROUP_MIN_BLOCKS)
fused_group_kernel (PlaneGroup group, GbBorder border)
{
#ifdef GB_HAVE_MMA
  const int b = blockIdx.x;
  if (b < group.first[0]) {
    fused_plane < 1, K0, has_inline_form (1) > (group.luma, border, b,
        group.first[0]);
  } else {
    /* Interleaved chroma is one plane (compiled without a second). */
    const bool second = C1 == 1 && b >= group.first[1];
    FusedParams p = group.chroma;
    if (second) {
      p.src = group.src2;
      p.dst = group.dst2;
      p.aligned_in = group.aligned_in2;
      p.aligned_out = group.aligned_out2;
      p.aligned_out4 = group.aligned_out4_2;
    }
    const int first = second ? group.first[1] : group.first[0];
    const int end = second ? gridDim.x : group.first[1];
    /* Beside luma's three k-steps, one-channel chroma takes the border
     * rule out of line: 94 KB of sm_90 code against 107, and I420 1080p
     * at sigma 3 to 4.5 measured 12.6-13.5 us against 13.4-14.0 (H200).
     * Beside two k-steps the inline form measured faster (sigma 1: 10.0
     * against 11.2-11.4). */
    fused_plane < C1, K1, has_inline_form (C1) && K0 < 3 > (p, border,
        b - first, end - first);
  }
#endif
}

/* form: for the fused and row kernels, whether the border rule is inline
 * (near_edges); for the column kernel, whether its plane runs beside its
 * frame's other planes (ring_steps). */
template < int C, int K > FusedKernel
kernel_of (Kind kind, bool form)
{
  /* if constexpr: a form the channel count lacks is not compiled. */
  constexpr bool BOTH = has_inline_form (C) && has_out_of_line_form (C);
  constexpr bool NEAR = has_inline_form (C);    /* the only form, if one */
  switch (kind) {
    case FUSED:
      if constexpr (K > (C <= 2 ? 4 : 3))
        return NULL;
      else if constexpr (BOTH)
        return form ? fused_kernel < C, K, true > : fused_kernel < C, K,
            false >;
      else
        return fused_kernel < C, K, NEAR >;
    case ROWS:
      if constexpr (K > MAX_K)
        return NULL;
      else if constexpr (BOTH)
        return form ? rows_kernel < C, K, true > : rows_kernel < C, K,
            false >;
      else
        return rows_kernel < C, K, NEAR >;
    case COLUMNS:
      if constexpr (K > MAX_K && C > MAX_COLUMN_K_CHANNELS)
        return NULL;
      /* Both rings only where the choice depends on the other planes. */
      else if constexpr (ring_steps (C, K - 1, false) == ring_steps (C, K - 1,
              true))
        return columns_kernel < C, K - 1, ring_steps (C, K - 1, false) >;
      else
        return form ? columns_kernel < C, K - 1, ring_steps (C, K - 1,
            true) > : columns_kernel < C, K - 1, ring_steps (C, K - 1,
            false) >;
    default:
      return NULL;
  }
}

template < int C > FusedKernel
kernel_for (Kind kind, int k, bool form)
{
  switch (k) {
    case 2:
      return kernel_of < C, 2 > (kind, form);
    case 3:
      return kernel_of < C, 3 > (kind, form);
    case 4:
      return kernel_of < C, 4 > (kind, form);
    case 5:
      return kernel_of < C, 5 > (kind, form);
    case 6:
      return kernel_of < C, 6 > (kind, form);
    case 7:
      return kernel_of < C, 7 > (kind, form);
    case 8:
      return kernel_of < C, 8 > (kind, form);
    case 9:
      return kernel_of < C, 9 > (kind, form);
    case 10:
      return kernel_of < C, 10 > (kind, form);
    case 11:
      return kernel_of < C, 11 > (kind, form);
    case 12:
      return kernel_of < C, 12 > (kind, form);
    case 13:
      return kernel_of < C, 13 > (kind, form);
  }
  return NULL;
}

static_assert (MAX_K == 8 && MAX_COLUMN_K == 13,
    "kernel_for covers k-steps 2 .. 13");
/* row_weights reads pairs from radius - 8 (K - 1) - 15 to radius +
 * 8 (K - 1) + 14 of the table. column_weights reads from radius_y - 8 H - 7
 * to radius_y + 8 H + 6, H its row blocks of apron: in the two-pass form
 * ceil (radius_y / 8) (at least 1), so from -15 to 2 radius_y + 13; in the
 * one-kernel form at most 3 (4 k-steps), from -31. */
static_assert (8 * (MAX_K - 1) + 15 <= GB_HALF_PAIRS_PAD,
    "the pairs table's padding covers the widest apron");
static_assert (15 <= GB_HALF_PAIRS_PAD && 8 * 3 + 7 <= GB_HALF_PAIRS_PAD
    && 13 <= GB_HALF_PAIRS_PAD, "and the column pass's reads");
static_assert (8 * (MAX_COLUMN_K - 1) <= GB_FUSED_MAX_RADIUS_Y + 7,
    "the column pass's k-steps follow its radius");

FusedKernel
kernel_for (Kind kind, int channels, int k, bool form)
{
  switch (channels) {
    case 1:
      return kernel_for < 1 > (kind, k, form);
    case 2:
      return kernel_for < 2 > (kind, k, form);
    case 3:
      return kernel_for < 3 > (kind, k, form);
    case 4:
      return kernel_for < 4 > (kind, k, form);
  }
  return NULL;
}

/* Per device and kernel: how many blocks of the kernel each SM holds
 * (resident_blocks). */
std::atomic < int > cached_resident[GB_CACHED_DEVICES][KINDS][5][MAX_COLUMN_K
    + 1][2];

/* The SMs, and how many blocks of `kernel` each holds: asked once per
 * device and kept in slot (device), so that host calls stay off the
 * per-frame path. */
template < typename Kernel, typename Slot > cudaError_t
resident_blocks (Kernel kernel, Slot && slot, int *sms, int *resident)
{
  int device;
  cudaError_t err = cudaGetDevice (&device);
  if (err == cudaSuccess)
    err = gb_device_multiprocessors (device, sms);
  if (err != cudaSuccess)
    return err;
  return gb_cached_resident_blocks (device >= 0 && device < GB_CACHED_DEVICES
      ? &slot (device) : NULL, (const void *) kernel, WARPS * 32, 0, false,
      resident);
}

cudaError_t
residency (FusedKernel kernel, Kind kind, int channels, int k, bool form,
    int *sms, int *resident)
{
  return resident_blocks (kernel,[&](int device) -> std::atomic < int >&{
        return cached_resident[device][kind][channels][k][form];}, sms,
      resident);
}

FusedParams
params_of (const GbDevicePlane & plane, const GbTaps & taps)
{
  const int channels = plane.channels;
  const size_t in_unit = channels == 3 ? 4 : 4 * channels;
  const size_t out_unit = channels == 3 ? 2 : 2 * channels;
  const int per_block = WARPS * strips_per_warp (channels);
  FusedParams p;

  p.src = (const uint8_t *) plane.src;
  p.src_pitch = plane.src_pitch;
  p.dst = (uint8_t *) plane.dst;
  p.dst_pitch = plane.dst_pitch;
  p.pairs_x = taps.x.half_pairs ? taps.x.half_pairs + GB_HALF_PAIRS_PAD
      : NULL;
  p.pairs_y = taps.y.half_pairs ? taps.y.half_pairs + GB_HALF_PAIRS_PAD
      : NULL;
  p.sum_x = taps.x.half_sum;
  p.sum_y = taps.y.half_sum;
  p.radius_x = taps.x.radius;
  p.radius_y = taps.y.radius;
  p.width = plane.width;
  p.height = plane.height;
  p.strips = (plane.width + STRIP - 1) / STRIP;
  p.groups = (p.strips + per_block - 1) / per_block;
  p.row_blocks = (plane.height + 7) / 8;
  p.gpu_share = gb_plane_alone (plane) ? 1.0f : plane.gpu_share;
  p.mid = (uint8_t *) plane.intermediate;
  p.mid_pitch = plane.intermediate_pitch;
  p.aligned_in = (uintptr_t) plane.src % in_unit == 0
      && plane.src_pitch % in_unit == 0;
  p.aligned_in16 = (uintptr_t) plane.src % 16 == 0
      && plane.src_pitch % 16 == 0;
  p.staged = false;             /* launch () decides: staged_k () */
  p.aligned_out = (uintptr_t) plane.dst % out_unit == 0
      && plane.dst_pitch % out_unit == 0;
  p.aligned_out4 = (uintptr_t) plane.dst % 4 == 0 && plane.dst_pitch % 4 == 0;
  return p;
}

/* The cost of a unit of the first and last column groups, whose strips
 * take the border rule, against the others' 1 (rows and fused kernels), and
 * of a segment's apron row block against a unit: swept on the H100 (1, 1.5,
 * 2, 3 and 0, 0.5, 1; 1080p and 4K, one to three channels, sigma 1 to 10;
 * docs/performance.md, "Edges"). */
constexpr float EDGE_WEIGHT = 1.5f;
constexpr float APRON_WEIGHT = 1.0f;
/* Swept again on the H200 (1.5, 2, 2.5, 3; 1080p and 4K, sigma 1 to 4.5;
 * docs/performance.md, "Edge units"): 2.5 measured faster for the
 * one-kernel form (up to 3 k-steps) on planes of two channels, whose edge
 * strips take the border rule out of line (NV12 1080p sigma 1: 10.7 ->
 * 9.4-9.7 us, NV24 15.4 -> 13.7, NV16 sigma 4.5 19.2-19.4 -> 17.3-17.9;
 * NV16 at sigma 3 moves within its noise, 17.3-19.3), on luma
 * beside them at 3 k-steps, and on a plane of one channel alone at 3
 * k-steps below 4K (GRAY8 1080p sigma 3: 8.9 -> 8.4). Elsewhere it was
 * slower or the same (RGBA 1080p sigma 1 12.9 -> 13.2, Y42B and Y444
 * slower, GRAY8 4K the same or slower). */
/* Planes that fused_plane_staged () stages take it too, their edge groups
 * loading as before while the others stage (GRAY8 4K sigma 1 / 3: 13.9 /
 * 20.4 us at 1.5, 12.4 / 17.0 at 2.5, 13.8 / 17.0 at 4), or
 * STAGED_EDGE_WEIGHT below 4K (GRAY8 1080p sigma 1 and 2: 6.5-7.0 at 2.5,
 * 6.4-6.5 at 4). */
constexpr float HEAVY_EDGE_WEIGHT = 2.5f;
constexpr float STAGED_EDGE_WEIGHT = 4.0f;
constexpr size_t HEAVY_EDGE_MAX_SAMPLES = (size_t) 1 << 22;

/* Planes that stage at every k-step up to MAX_STAGED_K. */
bool
staged_size (const FusedParams & p)
{
  return (size_t) p.width * p.height >= STAGED_MIN_SAMPLES;
}

/* Whether the fused kernel of k-steps k stages plane p's rows: where it
 * has the staged walk (has_staged_walk ()), on planes of
 * STAGED_MIN_SAMPLES, and on smaller planes alone on the GPU of three
 * channels, or of one at 2 k-steps. */
bool
staged_k (const FusedParams & p, int channels, int k)
{
  if (!p.aligned_in16 || !has_staged_walk (channels, k))
    return false;
  return staged_size (p) || (p.gpu_share >= 1.0f
      && (channels == 3 || (channels == 1 && k == 2)));
}

/* Whether a plane's edge groups, in the fused and row kernels, take the
 * inline border rule (load_four_near) rather than the out-of-line one
 * (the column kernel reads the intermediate: no border along x). Not for
 * two channels:
 * NV12's chroma measured faster out of line (1080p sigma 10: 24.7 against
 * 26.6 us). One channel has both forms: the inline one costs
 * registers (rows_kernel<1, 6>: 80 -> 128, fused_kernel<1, 4>: 126 -> 166),
 * and a plane beside its frame's other planes (gpu_share < 1) then
 * overlaps them less: with 4 k-steps or more it takes the out-of-line rule
 * (I420 1080p sigma 10: 23.3 against 26.6 us; sigma 1 and 3 faster
 * inline: 10.6 / 14.4 against 11.0 / 15.9). */
bool
near_edges (int k, const FusedParams & p, int channels)
{
  if (!has_inline_form (channels))
    return false;
  return !has_out_of_line_form (channels) || p.gpu_share >= 1.0f || k < 4;
}

/* What for_each_segment () weighs a plane's units by: edge groups (with
 * the border rule along x) and each segment's apron row blocks. A staged
 * plane's edge groups load while the others stage: HEAVY_EDGE_WEIGHT at
 * 4K, STAGED_EDGE_WEIGHT below. */
void
set_costs (FusedParams & p, bool border_along_x, int apron, bool heavy_edges)
{
  p.edge_weight = !border_along_x || p.groups < 3 ? 1.0f
      : p.staged ? (staged_size (p) ? HEAVY_EDGE_WEIGHT : STAGED_EDGE_WEIGHT)
      : heavy_edges ? HEAVY_EDGE_WEIGHT : EDGE_WEIGHT;
  p.segment_cost = 2.0f * apron * APRON_WEIGHT;
}

/* A plane's blocks cut to its units: no more than one a unit, nor (with
 * apron rows) more than one per apron row blocks of output. */
int
within_units (int blocks, int units, int apron)
{
  if (apron > 0 && blocks > units / apron)
    blocks = units / apron;
  if (blocks > units)
    blocks = units;
  return blocks < 1 ? 1 : blocks;
}

/* Whether the column pass's shares may be half as long as its apron (twice
 * the blocks): for a plane alone on the GPU, and for two channels past
 * MAX_K k-steps (the chroma of NV16 from sigma 16.3). Measured on the H200
 * (docs/performance.md, "The column pass to radius 96"), us: GRAY8 1080p
 * at sigma 10 15.7 -> 15.0, at 10 across and 25 down 26.5 -> 24.2; NV16
 * 1080p at sigma 20 / 25 34.6 / 37.9 -> 33.3 / 35.9; GRAY8 and NV12 4K,
 * RGBA and RGB the same. Slower on planes of one channel beside others
 * (Y42B at sigma 25 40.0 -> 44.3, NV12 and I420 at sigma 10 22.4 / 23.4
 * -> 25.3 / 26.3, the luma's column pass) and on two channels within 8
 * k-steps (NV24 at sigma 10 33.7 -> 34.4). */
bool
short_column_shares (const FusedParams & p, int channels, int k)
{
  return p.gpu_share >= 1.0f || (channels == 2 && k > MAX_K);
}

/* Every block takes the same cost of the plane's row blocks
 * (unit_at_cost), and every SM the same number of blocks: equal work
 * everywhere, in one round. A
 * share with apron rows (apron: its row blocks above and below) stays at
 * least apron row blocks long (half that where short_column_shares ()),
 * so that on small planes (the chroma of
 * 4:2:0 frames) the apron does not outweigh the output; more blocks than
 * that measured faster on 1080p and 4K planes, where the GPU needs every
 * resident warp to hide the latency. */
cudaError_t
launch (Kind kind, int k, int apron, const FusedParams & p, int channels,
    GbBorder border, cudaStream_t stream)
{
  const bool form = kind == COLUMNS ? p.gpu_share < 1.0f
      : near_edges (k, p, channels);
  FusedKernel kernel = kernel_for (kind, channels, k, form);
  const int units = p.groups * p.row_blocks;
  int sms = 0, resident = 0, blocks;
  cudaError_t err;

  if (!kernel)
    return cudaErrorInvalidValue;
  err = residency (kernel, kind, channels, k, form, &sms, &resident);
  if (err != cudaSuccess)
    return err;
  blocks = (resident > 0 ? resident : 1) * sms;
  /* A plane that runs beside its frame's other planes (on their own
   * streams) takes only its share of the GPU where, alone, it would give
   * each block little work and the work is short (up to 3 k-steps): the
   * launches' fixed costs then overlap (1080p NV12, I420, Y42B, Y444 at
   * sigma 1 and 3: up to 25 % faster). With more k-steps (NV12 and I420
   * at sigma 5: 16 to 20 % slower), on larger planes (NV12 4K) and in the
   * two-pass passes (NV12 at sigma 10: 24 % slower) a plane keeps every
   * resident block (docs/performance.md). */
  if (kind == FUSED && k <= 3 && p.gpu_share < 1.0f && units < 4 * blocks)
    blocks = (int) (blocks * p.gpu_share + 0.5f);
  blocks = within_units (blocks, units, kind == COLUMNS
      && short_column_shares (p, channels, k) ? (apron + 1) / 2 : apron);
  FusedParams shares = p;
  shares.staged = kind == FUSED && staged_k (p, channels, k);
  /* The column pass reads the intermediate, no border rule along x. */
  set_costs (shares, kind != COLUMNS, apron, kind == FUSED && k <= 3
      && (channels == 2 || (channels == 1 && k == 3 && p.gpu_share >= 1.0f))
      && (size_t) p.width * p.height < HEAVY_EDGE_MAX_SAMPLES);
  /* The column pass starts while the row pass's last blocks finish. */
  if (kind == COLUMNS)
    return gb_launch_after_kernel (p.gpu_share >= 1.0f, kernel, blocks,
        WARPS * 32, 0, stream, shares, border);
  kernel <<<blocks, WARPS * 32, 0, stream>>> (shares, border);
  return cudaGetLastError ();
}

/* The k-steps of the registers kernel for a plane's taps. */
int
k_steps (const GbTaps & taps)
{
  return 1 + (gb_taps_radius (taps) + 7) / 8;
}

/* The group kernels: chroma of C1 channels, k-steps (K0, K1) = (2, 2),
 * (3, 2) or, for interleaved chroma (NV24), (3, 3); NULL for other planes
 * (planes_run). 4:2:0 chroma reaches 3 k-steps only where luma is past 3,
 * so two chroma planes never take (3, 3): not compiled. */
typedef void (*GroupKernel) (const PlaneGroup, GbBorder);

template < int C1 > GroupKernel
group_kernel_for (int k0, int k1)
{
  if (k0 == 2 && k1 == 2)
    return fused_group_kernel < C1, 2, 2 >;
  if (k0 == 3 && k1 == 2)
    return fused_group_kernel < C1, 3, 2 >;
  if constexpr (C1 == 2)
    if (k0 == 3 && k1 == 3)
      return fused_group_kernel < C1, 3, 3 >;
  return NULL;
}

/* Planes of at least this many luma samples keep a launch each: NV12 4K
 * (2^23) at sigma 3 measured 29.3 us in one launch against 27.5 apart,
 * 1080p (2^21) 11.8 against 13.8; the cut between them was not measured. */
constexpr size_t GROUP_MAX_LUMA_SAMPLES = (size_t) 1 << 22;

/* Whether two planes' taps along an axis are the same filter (their fp16
 * tables follow from the weights). */
bool
same_taps (const GbAxisTaps & a, const GbAxisTaps & b)
{
  return a.radius == b.radius && a.half_sum == b.half_sum && a.host && b.host
      && memcmp (a.host, b.host, sizeof (float) * (2 * a.radius + 1)) == 0;
}

/* Measured on the H200 at 1080p (docs/performance.md, "A frame's planes
 * in one launch"), us, one launch against apart, sigma 1 / 3: NV12 10.3 /
 * 11.8 against 10.6 / 13.8, NV24 15.2 / 18.7-19.9 against 16.8 / 23.6,
 * I420 10.0-10.4 / 13.9-14.4 against 10.7 / 14.5. Chroma subsampled along
 * one axis only keeps a launch a plane (NV16 13.2-13.9 / 18.3-19.5 against
 * 11.4-11.5 / 19.4-19.7; Y42B 12.0-12.3 / 19.1-19.2 against 12.2-12.3 /
 * 13.4), and so do three planes of full size (Y444 14.8 / 20.9-21.5
 * against 14.9 / 16.5). */
GroupKernel
planes_run (const GbDevicePlane * planes, const GbTaps * taps, int n_planes)
{
  const int c1 = n_planes == 2 ? 2 : 1;
  if (n_planes < 2 || n_planes > 3 || planes[0].channels != 1
      || (size_t) planes[0].width * planes[0].height
      >= GROUP_MAX_LUMA_SAMPLES
      || (planes[1].width < planes[0].width)
      != (planes[1].height < planes[0].height)
      || (n_planes == 3 && planes[1].width == planes[0].width))
    return NULL;
  for (int i = 0; i < n_planes; i++) {
    if (gb_taps_radius (taps[i]) < 1 || planes[i].bytes_per_sample != 1
        || planes[i].channels != (i ? c1 : 1)
        || !taps[i].x.half_pairs || !taps[i].y.half_pairs
        || planes[i].width < 1 || planes[i].height < 1)
      return NULL;
  }
  /* The second chroma plane runs with the first's parameters but its
   * addresses: the same shape, pitches and taps. */
  if (n_planes == 3 && (planes[2].width != planes[1].width
          || planes[2].height != planes[1].height
          || planes[2].src_pitch != planes[1].src_pitch
          || planes[2].dst_pitch != planes[1].dst_pitch
          || !same_taps (taps[2].x, taps[1].x)
          || !same_taps (taps[2].y, taps[1].y)))
    return NULL;
  return c1 == 2 ? group_kernel_for < 2 > (k_steps (taps[0]),
      k_steps (taps[1])) : group_kernel_for < 1 > (k_steps (taps[0]),
      k_steps (taps[1]));
}

/* Per device: the group kernels' resident blocks, by chroma channels and
 * k-steps. */
std::atomic < int > cached_group_resident[GB_CACHED_DEVICES][3][MAX_K + 1]
    [MAX_K + 1];

/* The planes in one launch: one wave of resident blocks, shared by the
 * planes' units (8 rows of 1024 samples in any), each share cut to the
 * limits of launch () (a block's apron rows; at most one a unit).
 * Weighting the units by their k-steps, or two waves, measured slower
 * (NV12 1080p sigma 3: 11.4-11.7 us; 11.8-13.0 and 14.7). */
cudaError_t
launch_group (GroupKernel kernel, const GbDevicePlane * planes,
    const GbTaps * taps, int n_planes, GbBorder border, cudaStream_t stream)
{
  const int c1 = planes[1].channels;
  const int k[3] = { k_steps (taps[0]), k_steps (taps[1]),
    k_steps (taps[n_planes - 1])
  };
  PlaneGroup group;
  FusedParams params[3];
  int blocks[3] = { 0, 0, 0 };
  int sms = 0, resident = 0;
  cudaError_t err = resident_blocks (kernel,[&](int device) ->
      std::atomic < int >&{
        return cached_group_resident[device][c1][k[0]][k[1]];}, &sms,
      &resident);
  if (err != cudaSuccess)
    return err;
  const int wave = (resident > 0 ? resident : 1) * sms;

  double units = 0;
  for (int i = 0; i < n_planes; i++) {
    params[i] = params_of (planes[i], taps[i]);
    units += (double) params[i].groups * params[i].row_blocks;
  }
  for (int i = 0; i < n_planes; i++) {
    FusedParams & p = params[i];
    const int plane_units = p.groups * p.row_blocks;
    const int apron = k[i] - 1;
    blocks[i] = within_units ((int) (wave * plane_units / units + 0.5),
        plane_units, apron);
    set_costs (p, true, apron, c1 == 2 && (i > 0 || k[0] == 3));
  }
  group.luma = params[0];
  group.chroma = params[1];
  group.src2 = params[n_planes - 1].src;
  group.dst2 = params[n_planes - 1].dst;
  group.aligned_in2 = params[n_planes - 1].aligned_in;
  group.aligned_out2 = params[n_planes - 1].aligned_out;
  group.aligned_out4_2 = params[n_planes - 1].aligned_out4;
  group.first[0] = blocks[0];
  group.first[1] = blocks[0] + blocks[1];
  kernel <<<blocks[0] + blocks[1] + blocks[2], WARPS * 32, 0, stream>>>
      (group, border);
  return cudaGetLastError ();
}

}                               /* namespace */

cudaError_t
gb_launch_fused_registers_planes (const GbDevicePlane * planes,
    const GbTaps * taps, int n_planes, GbBorder border, cudaStream_t stream,
    bool *launched)
{
  GroupKernel kernel = planes_run (planes, taps, n_planes);
  *launched = kernel != NULL;
  if (!kernel)
    return cudaSuccess;
  return launch_group (kernel, planes, taps, n_planes, border, stream);
}

int
gb_fused_max_radius_y (int channels)
{
  return channels <= MAX_COLUMN_K_CHANNELS ? GB_FUSED_MAX_RADIUS_Y
      : GB_FUSED_MAX_RADIUS;
}

int
gb_fused_registers_max_radius (int channels)
{
  /* Measured on the H100 against the shared-memory kernel (1080p and 4K,
   * docs/performance.md): faster up to radius 24 (sigma 6.6) on planes of
   * one and two channels, and up to 16 (sigma 4.5) on wider ones, slower
   * beyond. */
  return channels <= 2 ? 24 : 16;
}

cudaError_t
gb_launch_fused_registers (const GbDevicePlane & plane, const GbTaps & taps,
    GbBorder border, cudaStream_t stream)
{
  const int radius = gb_taps_radius (taps);
  const int k = k_steps (taps);

  /* 8-bit samples only (exact as fp16), both radii within reach. */
  if (radius < 1 || radius > gb_fused_registers_max_radius (plane.channels)
      || plane.bytes_per_sample != 1 || !taps.x.half_pairs
      || !taps.y.half_pairs)
    return cudaErrorInvalidValue;
  return launch (FUSED, k, k - 1, params_of (plane, taps), plane.channels,
      border, stream);
}

void
gb_half_pairs_fill (const float *weights, int radius, uint32_t *pairs,
    float *half_sum)
{
  /* fp16 bits of tap i, 0 outside the kernel. */
  auto tap = [&](int i) -> uint32_t {
    if (i < 0 || i > 2 * radius)
      return 0;
    const __half_raw raw = __float2half_rn (weights[i]);
    return raw.x;
  };
  float sum = 0.0f;

  for (int i = 0; i <= 2 * radius; i++)
    sum += __half2float (__float2half_rn (weights[i]));
  *half_sum = sum;
  for (int e = 0; e < GB_HALF_PAIRS_SIZE; e++) {
    const int i = e - GB_HALF_PAIRS_PAD;
    pairs[e] = tap (i) | tap (i + 1) << 16;
  }
}

size_t
gb_fused_two_pass_bytes (int width, int height, int channels)
{
  return (size_t) (width + STRIP - 1) / STRIP * STRIP * channels * 2
      * height;
}

cudaError_t
gb_launch_fused_two_pass (const GbDevicePlane & plane, const GbTaps & taps,
    GbBorder border, cudaStream_t stream)
{
  /* An axis of radius 0 (sigma 0) takes the smallest kernels, its one tap
   * among zeros. */
  const int kx = taps.x.radius > 8 ? 1 + (taps.x.radius + 7) / 8 : 2;
  const int ky = taps.y.radius > 8 ? 1 + (taps.y.radius + 7) / 8 : 2;
  const FusedParams p = params_of (plane, taps);
  cudaError_t err;

  if (kx > MAX_K || taps.y.radius > gb_fused_max_radius_y (plane.channels)
      || !taps.x.half_pairs || !taps.y.half_pairs
      || plane.bytes_per_sample != 1 || !plane.intermediate
      || plane.intermediate_pitch < (size_t) p.strips * STRIP
      * plane.channels * 2)
    return cudaErrorInvalidValue;
  err = launch (ROWS, kx, 0, p, plane.channels, border, stream);
  if (err == cudaSuccess)
    err = launch (COLUMNS, ky, ky - 1, p, plane.channels, border, stream);
  return err;
}

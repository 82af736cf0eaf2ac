/* Fused separable Gaussian on tensor cores: one kernel, one read, one write,
 * the tile staged in shared memory. The backend takes it for radii past
 * gb_fused_registers_max_radius() on planes whose fp16 intermediate would
 * not stay in L2 (kernels_fused_registers.cu has the other two forms).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A 1D convolution of 16 lines is a matrix product with a banded (Toeplitz)
 * weight matrix, which the tensor cores evaluate at many times the rate of
 * the FP32 units: a tap-per-FMA pass is instruction-bound long before it is
 * memory-bound (docs/performance.md). A work item is a stripe of the frame
 * (Stripe<C>::pixels wide) and a chunk of its rows; the grid holds as many
 * blocks as the SMs keep resident, each taking items in turn and walking
 * down each 16 rows at a time:
 *
 *   load:    16 input rows of the stripe plus its apron, border-mapped, as
 *            fp16 (samples - 128, exact), one plane per channel;
 *   rows:    mma (m16n8k16, fp32 accumulate): 16 lines x 8 outputs per tile,
 *            the input as A, the Toeplitz weights as B, KR k-steps; the
 *            results go to a ring of 16 * KS rows in shared memory (fp16);
 *   columns: once 2 * radius rows lead, the 16 output rows: the Toeplitz
 *            weights as A, the ring as B (ldmatrix.trans), KS k-steps,
 *            rounded to 8 bits and stored.
 *
 * A column tile's 16 outputs read 16 + 2 radius rows, KS k-steps; a row
 * tile's 8 outputs read 8 + 2 radius columns, which is one k-step fewer
 * for half the radii (radius mod 8 in 1 .. 4: sigma 5, 7 and 10 among
 * them): KR is KS or KS - 1.
 *
 * Only the first 16 * lead rows of a chunk are row-filtered twice. Error
 * against the float separable path (docs/algorithms.md, section 8): the
 * fp16 weights (relative 2^-11) and the fp16 intermediate (at most 1/32 of
 * a level) move the result by at most about 0.16 of a level, typically a
 * few hundredths; the parity tests bound it by 1.
 */
#include "device_limits.h"
#include "kernels.h"
#include "tensor_cores.h"

#include <cuda_fp16.h>

#include <atomic>
#include <climits>
#include <type_traits>

namespace {

constexpr int MAX_KSTEPS = 1 + (2 * GB_FUSED_MAX_RADIUS + 15) / 16;

/* Stripe width in pixels and warps per block: 8-pixel groups enough for
 * every warp; wide stripes for one and four channels, where the apron's
 * staging would otherwise dominate. */
template < int C > struct Stripe
{
  static constexpr int pixels = C == 1 ? 128 : C == 4 ? 64 : 32;
  static constexpr int warps = C == 1 || C == 4 ? 8 : 4;
  static constexpr int threads = warps * 32;
};

struct FusedParams
{
  const uint8_t *src;
  unsigned src_pitch;           /* 32 bits: one multiply-add per address */
  uint8_t *dst;
  unsigned dst_pitch;
  const float *weights;         /* 2 * radius + 1 taps, device */
  int radius;
  int width;
  int height;
  int chunk;                    /* output rows per work item, multiple of 16 */
  int stripes;                  /* work items: stripes x chunks */
  int chunks;
  bool aligned_in;              /* 4-byte pixel loads (4 channels) */
  bool aligned_out;             /* 8-byte (4 channels) / 2-byte (1) stores */
};

#ifdef GB_HAVE_MMA
__device__ __forceinline__ void
load_matrix_x4 (uint32_t (&r)[4], const __half * p)
{
  const unsigned address = (unsigned) __cvta_generic_to_shared (p);
  asm volatile ("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
      :"=r" (r[0]), "=r" (r[1]), "=r" (r[2]), "=r" (r[3])
      :"r" (address):"memory");
}

__device__ __forceinline__ void
load_matrix_x2_trans (uint32_t & r0, uint32_t & r1, const __half * p)
{
  const unsigned address = (unsigned) __cvta_generic_to_shared (p);
  asm volatile ("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n"
      :"=r" (r0), "=r" (r1)
      :"r" (address):"memory");
}
#endif

/* Writes the two pixels (x, x + 1) of one row from per-channel values:
 * gb_round_u8 (v + 128), the truncation saturating (one instruction). */
template < int C > __device__ __forceinline__ void
store_pair (const FusedParams & p, int y, int x, const float (&v)[C][2])
{
  uint8_t *out = p.dst + ((size_t) (unsigned) y * p.dst_pitch
      + (unsigned) (x * C));
  uint32_t q[C][2];
#pragma unroll
  for (int c = 0; c < C; c++)
#pragma unroll
    for (int i = 0; i < 2; i++)
      /* four channels packed from the zero-extended words (as store_two
       * in the registers form); others stored a byte at a time or as
       * one channel's pair, which the pack did not speed up */
      q[c][i] = C == 4 ? gb_truncate_u8_word (v[c][i] + 128.5f)
          : gb_truncate_u8 (v[c][i] + 128.5f);

  if (x + 1 < p.width && p.aligned_out && (C == 4 || C == 1)) {
    if (C == 4) {
      *reinterpret_cast < uint2 * >(out) =
          make_uint2 (gb_pack_bytes (q[0][0], q[1 % C][0], q[2 % C][0],
              q[3 % C][0]), gb_pack_bytes (q[0][1], q[1 % C][1],
              q[2 % C][1], q[3 % C][1]));
    } else {
      *reinterpret_cast < uint16_t * >(out) =
          (uint16_t) (q[0][0] | q[0][1] << 8);
    }
    return;
  }
#pragma unroll
  for (int i = 0; i < 2; i++)
    if (x + i < p.width)
#pragma unroll
      for (int c = 0; c < C; c++)
        out[i * C + c] = (uint8_t) q[c][i];
}

/* Columns of the input stage: the row pass reads KR k-steps from each of
 * the stripe's 8-pixel groups (columns past 8 + 2 radius meet zero
 * weights). */
template < int C, int KR > struct Stage
{
  static constexpr int tile = Stripe < C >::pixels;
  static constexpr int columns = tile - 8 + 16 * KR;
  /* An odd number of 16-byte units per row: ldmatrix's eight row reads fall
   * in eight different bank groups. */
  static constexpr int stride = ((columns / 8) | 1) * 8;
  static constexpr int pairs = 16 * columns / 2;        /* pixel pairs */
  static constexpr int items = (pairs + Stripe < C >::threads - 1)
      / Stripe < C >::threads;
  /* Item j of every thread lies in the stage: no bounds check (the
   * compiler cannot tell threadIdx.x below the block size). Up to 6
   * k-steps: at 7 the checks' absence changed ptxas's allocation into
   * more spills (RGBA 4K sigma 12, 120.9 -> 128.2 us). */
  __host__ __device__ static constexpr bool whole (int j, int ksteps)
  {
    return ksteps <= 6 && (j + 1) * Stripe < C >::threads <= pairs;
  }
};

#ifdef GB_HAVE_MMA
/* Byte channel of lo_word and of hi_word as the fp16 pair (lo - 128,
 * hi - 128), exactly. */
__device__ __forceinline__ uint32_t
centred_half2 (uint32_t lo_word, uint32_t hi_word, int channel)
{
  return gb_bytes_less (__byte_perm (lo_word, hi_word,
          channel | (4 + channel) << 4), 0, 1, 128.0f);
}
#endif

/* Pixel x (>= 0) of a row: four channels one 4-byte load where WORDS or
 * aligned, else byte loads. */
template < int C, bool WORDS > __device__ __forceinline__ uint32_t
load_pixel (const uint8_t * row, int x, bool aligned)
{
  const uint8_t *q = row + (unsigned) (x * C);
  if (C == 4 && (WORDS || aligned))
    return __ldg (reinterpret_cast < const unsigned int *>(q));
  uint32_t word = 0;
#pragma unroll
  for (int c = 0; c < C; c++)
    word |= (uint32_t) __ldg (q + c) << (8 * c);
  return word;
}

/* A run of row tiles of one channel: groups group, group + 2, ... */
struct RowChain
{
  int channel;
  int group;
};

/* Blocks per SM the register budget must allow: small radii need fewer
 * registers (fewer k-steps of weights and prefetched pixels). */
template < int C, int KS > struct Residency
{
  /* Measured on the H100 (docs/performance.md, "Steps" and "Row
   * k-steps"): 32 warps per SM (64 registers) pay up to 3 k-steps, 16 (128
   * registers) at 4 and from 6 on (4 k-steps at 24 warps spilled: RGBA 4K
   * sigma 5 / 6, 83.5 / 86.5 us against 80.0 / 84.2). */
  static constexpr int warps = KS <= 3 ? 32 : KS == 5 ? 20 : 16;
  static constexpr int blocks = warps / Stripe < C >::warps;
};

template < int C, int KS, int KR > __global__ void
__launch_bounds__ (Stripe < C >::threads, (Residency < C, KS >::blocks))
fused_kernel (FusedParams p, GbBorder border)
{
  static_assert (KR == KS || KR == KS - 1, "row k-steps: KS or one fewer");
#ifdef GB_HAVE_MMA
  typedef Stage < C, KR > S;
  constexpr int WARPS = Stripe < C >::warps;
  constexpr int THREADS = Stripe < C >::threads;
  constexpr int TILE = S::tile;
  constexpr int GROUPS = TILE / 8;      /* 8-pixel column groups */
  constexpr int ROW_TILES = C * GROUPS / WARPS; /* row-pass tiles per warp */
  constexpr int COLUMN_GROUPS = GROUPS / WARPS;
  constexpr int RING = 16 * KS;         /* rows of row-pass output kept */
  constexpr int RING_STRIDE = TILE + 8; /* odd number of 16-byte units */
  /* Row tiles per chain: as many as a warp's tiles and half a channel's
   * groups both allow (three channels: none). */
  constexpr int CHAIN = ROW_TILES % 4 == 0 && GROUPS % 8 == 0 ? 4
      : ROW_TILES % 2 == 0 && GROUPS % 4 == 0 ? 2 : 1;
  constexpr int CHAINS_PER_CHANNEL = GROUPS / CHAIN;
  static_assert (C * GROUPS % WARPS == 0 && GROUPS % WARPS == 0,
      "tiles divide among the warps");
  /* Chain i of a channel: groups of i's parity, from 2 CHAIN (i / 2). */
  auto row_chain = [](int chain) -> RowChain {
    const int channel = chain / CHAINS_PER_CHANNEL;
    const int i = chain - channel * CHAINS_PER_CHANNEL;
    return RowChain { channel, CHAIN == 1 ? i : 2 * CHAIN * (i / 2) + i % 2 };
  };
  extern __shared__ __align__ (16) unsigned char shared_raw[];
  __half *input = reinterpret_cast < __half * >(shared_raw);
  __half *ring = input + C * 16 * S::stride;

  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int g = lane >> 2;      /* mma fragment row group */
  const int t = lane & 3;       /* mma fragment column pair */
  const int radius = p.radius;
  const int lead = KS - 1;      /* 16-row groups the row pass runs ahead */

  /* The banded weight matrix, k-step by k-step: element (m, k) is w[k - m].
   * Registers 0..2 are the column pass's A (rows g and g + 8; the fourth
   * equals the first); 0 and 2 are the row pass's B. */
  uint32_t band[KS][3];
  {
    auto w = [&](int i) -> float {
      return i >= 0 && i <= 2 * radius ? __ldg (&p.weights[i]) : 0.0f;
    };
#pragma unroll
    for (int j = 0; j < KS; j++) {
      const int k = 16 * j + 2 * t;
      band[j][0] = gb_pack_half2 (w (k - g), w (k + 1 - g));
      band[j][1] = gb_pack_half2 (w (k - g - 8), w (k + 1 - g - 8));
      band[j][2] = gb_pack_half2 (w (k + 8 - g), w (k + 9 - g));
    }
  }

  /* Work items (stripe, chunk), spread over a grid sized to the resident
   * blocks, so that no partial last wave idles most of the GPU. */
  for (int work = blockIdx.x; work < p.stripes * p.chunks;
      work += gridDim.x) {
  const int x0 = (work % p.stripes) * TILE;
  const int y0 = (work / p.stripes) * p.chunk;
  const int rows_out = min (p.chunk, p.height - y0);
  const int steps = (rows_out + 15) / 16 + lead;
  /* Stripes whose apron lies inside the frame skip the border rule. */
  const bool inside_x = x0 - radius >= 0
      && x0 - radius + S::columns <= p.width;
  /* The others within one reflection (gb_border_index_near) unless the
   * plane is narrower than the apron. */
  const bool near_x = x0 - radius >= 1 - p.width
      && x0 - radius + S::columns <= 2 * p.width - 1;

  /* The next step's pixels, two neighbours per item, loaded a step ahead so
   * that their latency hides behind the mma work. */
  uint32_t pixels[S::items][2];
  /* Four channels: two copies of the loads where the registers allow (from
   * 5 k-steps, 128 registers), chosen once per step, since the word and
   * byte loads of one copy, predicated, all take issue slots. */
  constexpr bool TWO_COPIES = C == 4 && KS >= 5;
  const bool aligned = !TWO_COPIES && p.aligned_in;
  auto fetch_as = [&](int step, auto words) {
    constexpr bool WORDS = decltype (words)::value;
    const int top = y0 - radius + 16 * step;
    const bool inside_y = top >= 0 && top + 16 <= p.height;
#pragma unroll
    for (int j = 0; j < S::items; j++) {
      const int item = threadIdx.x + j * THREADS;
      const int r = item / (S::columns / 2);
      const int column = 2 * (item - r * (S::columns / 2));
      const int y = inside_y ? top + r : gb_border_index (top + r, p.height,
          border);
      pixels[j][0] = pixels[j][1] = 0;
      if ((S::whole (j, KS) || item < S::pairs) && y >= 0) {
        const uint8_t *row = p.src + (size_t) (unsigned) y * p.src_pitch;
        const int xa = x0 - radius + column;
        if (inside_x) {
          pixels[j][0] = load_pixel < C, WORDS > (row, xa, aligned);
          pixels[j][1] = load_pixel < C, WORDS > (row, xa + 1, aligned);
        } else {
          const int ma = near_x ? gb_border_index_near (xa, p.width,
              border) : gb_border_index (xa, p.width, border);
          const int mb = near_x ? gb_border_index_near (xa + 1, p.width,
              border) : gb_border_index (xa + 1, p.width, border);
          if (ma >= 0)
            pixels[j][0] = load_pixel < C, WORDS > (row, ma, aligned);
          if (mb >= 0)
            pixels[j][1] = load_pixel < C, WORDS > (row, mb, aligned);
        }
      }
    }
  };
  auto fetch = [&](int step) {
    if (TWO_COPIES && p.aligned_in)
      fetch_as (step, std::true_type ());
    else
      fetch_as (step, std::false_type ());
  };

  fetch (0);
  /* The ring's 16-row block this step's row pass fills: step mod KS. */
  int slot = 0;
  for (int step = 0; step < steps; step++) {
    /* Stage: samples - 128 as fp16, one plane per channel. */
#pragma unroll
    for (int j = 0; j < S::items; j++) {
      const int item = threadIdx.x + j * THREADS;
      if (S::whole (j, KS) || item < S::pairs) {
        const int r = item / (S::columns / 2);
        const int column = 2 * (item - r * (S::columns / 2));
#pragma unroll
        for (int c = 0; c < C; c++)
          *reinterpret_cast < uint32_t * >(&input[(c * 16 + r) * S::stride
                  + column]) = centred_half2 (pixels[j][0], pixels[j][1], c);
      }
    }
    __syncthreads ();
    if (step + 1 < steps)
      fetch (step + 1);

    /* Rows: tiles (channel, group) -> ring rows 16 step .. 16 step + 15.
     * A warp's tiles form chains of one channel's groups g, g + 2, ...:
     * group g's k-step j reads the 16 columns of group g + 2's k-step
     * j - 1, so each fragment is loaded once for every tile it serves. */
    {
      float d[ROW_TILES][4];
#pragma unroll
      for (int q = 0; q < ROW_TILES; q++) {
        d[q][0] = d[q][1] = d[q][2] = d[q][3] = 0.0f;
      }
#pragma unroll
      for (int k = 0; k < ROW_TILES / CHAIN; k++) {
        const RowChain chain = row_chain (warp + k * WARPS);
        const __half *row = input + (chain.channel * 16 + (lane & 7)
            + ((lane >> 3) & 1) * 8) * S::stride + chain.group * 8
            + (lane >> 4) * 8;
#pragma unroll
        for (int m = 0; m < CHAIN + KR - 1; m++) {
          uint32_t a[4];
          load_matrix_x4 (a, row + 16 * m);
#pragma unroll
          for (int i = 0; i < CHAIN; i++)
            if (m - i >= 0 && m - i < KR)
              gb_mma_16816 (d[k * CHAIN + i], a, band[m - i][0],
                  band[m - i][2]);
        }
      }
      __half *block = ring + (16 * slot + g) * RING_STRIDE + 2 * t;
#pragma unroll
      for (int q = 0; q < ROW_TILES; q++) {
        const RowChain chain = row_chain (warp + q / CHAIN * WARPS);
        __half *out = block + chain.channel * RING * RING_STRIDE
            + (chain.group + 2 * (q % CHAIN)) * 8;
        *reinterpret_cast < uint32_t * >(out) =
            gb_pack_half2 (d[q][0], d[q][1]);
        *reinterpret_cast < uint32_t * >(out + 8 * RING_STRIDE) =
            gb_pack_half2 (d[q][2], d[q][3]);
      }
    }
    __syncthreads ();

    /* Columns: output rows 16 (step - lead) .. + 15 of the chunk, whose
     * k-step 0 is the ring block after this step's, (step + 1) mod KS. */
    if (step >= lead) {
      const int first = 16 * (step - lead);
#pragma unroll
      for (int q = 0; q < COLUMN_GROUPS; q++) {
        const int group = warp + q * WARPS;
        const __half *column = ring + (lane & 15) * RING_STRIDE + group * 8;
        /* The k-step's block offset, wrapped by an unsigned minimum. */
        unsigned offset = (slot + 1 == KS ? 0 : slot + 1) * 16 * RING_STRIDE;
        float d[C][4];
#pragma unroll
        for (int c = 0; c < C; c++)
          d[c][0] = d[c][1] = d[c][2] = d[c][3] = 0.0f;
#pragma unroll
        for (int j = 0; j < KS; j++) {
          const uint32_t a[4] = { band[j][0], band[j][1], band[j][2],
            band[j][0]
          };
#pragma unroll
          for (int c = 0; c < C; c++) {
            uint32_t b0, b1;
            load_matrix_x2_trans (b0, b1, column + offset
                + c * RING * RING_STRIDE);
            gb_mma_16816 (d[c], a, b0, b1);
          }
          offset += 16 * RING_STRIDE;
          offset = min (offset, offset - RING * RING_STRIDE);
        }
        const int x = x0 + group * 8 + 2 * t;
        if (x < p.width)
#pragma unroll
          for (int half = 0; half < 2; half++) {
            const int row = first + g + 8 * half;
            if (row < rows_out) {
              float v[C][2];
#pragma unroll
              for (int c = 0; c < C; c++) {
                v[c][0] = d[c][2 * half];
                v[c][1] = d[c][2 * half + 1];
              }
              store_pair < C > (p, y0 + row, x, v);
            }
          }
      }
    }
    slot = slot + 1 == KS ? 0 : slot + 1;
  }
  __syncthreads ();             /* the next item restages the input */
  }
#endif
}

typedef void (*FusedKernel) (FusedParams, GbBorder);

template < int C, int KS > FusedKernel
kernel_for (int row_ksteps)
{
  return row_ksteps < KS ? fused_kernel < C, KS, KS - 1 >
      : fused_kernel < C, KS, KS >;
}

/* k-steps 4 .. 8: smaller radii take the registers kernel
 * (gb_fused_registers_max_radius(): up to radius 24, k-steps 4, on one and
 * two channels; up to 16, k-steps 3, on more). */
template < int C > FusedKernel
kernel_for (int ksteps, int row_ksteps)
{
  switch (ksteps) {
    case 4:
      if constexpr (C > 2)
        return kernel_for < C, 4 > (row_ksteps);
      break;
    case 5:
      return kernel_for < C, 5 > (row_ksteps);
    case 6:
      return kernel_for < C, 6 > (row_ksteps);
    case 7:
      return kernel_for < C, 7 > (row_ksteps);
    case 8:
      return kernel_for < C, 8 > (row_ksteps);
  }
  return NULL;
}

static_assert (MAX_KSTEPS == 8, "kernel_for covers k-steps up to 8");

FusedKernel
kernel_for (int channels, int ksteps, int row_ksteps)
{
  switch (channels) {
    case 1:
      return kernel_for < 1 > (ksteps, row_ksteps);
    case 2:
      return kernel_for < 2 > (ksteps, row_ksteps);
    /* Three channels: none; they measured faster in the two-pass form
     * (cuda_backend.cu, launch_fused, asks gb_fused_shared_has_kernel). */
    case 4:
      return kernel_for < 4 > (ksteps, row_ksteps);
  }
  return NULL;
}

struct StripeShape
{
  int pixels;
  int threads;
};

template < int C > StripeShape
shape_of ()
{
  return StripeShape { Stripe < C >::pixels, Stripe < C >::threads };
}

StripeShape
stripe_shape (int channels)
{
  switch (channels) {
    case 1:
      return shape_of < 1 > ();
    case 2:
      return shape_of < 2 > ();
  }
  return shape_of < 4 > ();
}

/* Per device and kernel, once: how many of its blocks an SM holds (host
 * calls kept off the per-frame path). The shared memory it may use is
 * allowed on every launch (gb_allow_dynamic_shared): the attribute may
 * belong to a context, and a process can blur in several on one device
 * (GStreamer's contexts, the primary one), where a per-device cache would
 * skip a context that never had it set. */
/* [device][channels][ksteps][row k-steps one fewer] */
std::atomic < int > cached_resident[GB_CACHED_DEVICES][5][MAX_KSTEPS + 1][2];

cudaError_t
prepare_kernel (FusedKernel kernel, int device, int channels, int ksteps,
    int row_ksteps, int threads, size_t shared, int *sms, int *resident)
{
  const int fewer_rows = row_ksteps < ksteps;
  const bool cached = device >= 0 && device < GB_CACHED_DEVICES;
  cudaError_t err = gb_device_multiprocessors (device, sms);
  if (err == cudaSuccess)
    err = gb_allow_dynamic_shared ((const void *) kernel, shared);
  if (err != cudaSuccess)
    return err;
  return gb_cached_resident_blocks (cached ?
      &cached_resident[device][channels][ksteps][fewer_rows] : NULL,
      (const void *) kernel, threads, shared, true, resident);
}

}                               /* namespace */

bool
gb_fused_shared_has_kernel (int channels)
{
  return kernel_for (channels, MAX_KSTEPS, MAX_KSTEPS) != NULL;
}

bool
gb_fused_available (void)
{
  /* A build without sm_80+ code (or PTX) would JIT the empty body. */
  cudaFuncAttributes attributes;
  if (cudaFuncGetAttributes (&attributes, fused_kernel < 4, 5, 5 >) != cudaSuccess) {
    cudaGetLastError ();
    return false;
  }
  return attributes.binaryVersion >= 80 || attributes.ptxVersion >= 80;
}

cudaError_t
gb_launch_fused_shared (const GbDevicePlane & plane, const GbTaps & taps,
    GbBorder border, cudaStream_t stream)
{
  const int radius = taps.x.radius;
  const int channels = plane.channels;
  const int lead = (2 * radius + 15) / 16;
  const int ksteps = 1 + lead;
  const int row_ksteps = (8 + 2 * radius + 15) / 16;
  const StripeShape shape = stripe_shape (channels);
  const int tile = shape.pixels;
  const int threads = shape.threads;
  const int stripes = (plane.width + tile - 1) / tile;
  FusedKernel kernel = kernel_for (channels, ksteps, row_ksteps);
  FusedParams p;
  int device, sms = 0;
  cudaError_t err;

  /* 8-bit samples only (staged exactly as fp16), one kernel for both axes. */
  if (!kernel || radius < 1 || radius > GB_FUSED_MAX_RADIUS
      || plane.bytes_per_sample != 1 || taps.y.radius != radius
      || plane.src_pitch > UINT_MAX || plane.dst_pitch > UINT_MAX)
    return cudaErrorInvalidValue;

  p.src = (const uint8_t *) plane.src;
  p.src_pitch = (unsigned) plane.src_pitch;
  p.dst = (uint8_t *) plane.dst;
  p.dst_pitch = (unsigned) plane.dst_pitch;
  p.weights = taps.x.device;
  p.radius = radius;
  p.width = plane.width;
  p.height = plane.height;
  p.aligned_in = ((uintptr_t) plane.src % 4 == 0) && plane.src_pitch % 4 == 0;
  p.aligned_out = channels == 4
      ? ((uintptr_t) plane.dst % 8 == 0 && plane.dst_pitch % 8 == 0)
      : ((uintptr_t) plane.dst % 2 == 0 && plane.dst_pitch % 2 == 0);

  /* As Stage<C, KR>::stride, and the ring of 16 * KS rows. */
  const int stage_stride = (((tile - 8 + 16 * row_ksteps) / 8) | 1) * 8;
  const size_t shared = sizeof (__half) * channels
      * (16 * (size_t) stage_stride + 16 * (size_t) ksteps * (tile + 8));
  int resident = 0;
  err = cudaGetDevice (&device);
  if (err == cudaSuccess)
    err = prepare_kernel (kernel, device, channels, ksteps, row_ksteps,
        threads, shared, &sms, &resident);
  if (err != cudaSuccess)
    return err;

  /* Work items (stripe, chunk of rows): a chunk repeats the row pass over
   * its first 16 * lead rows, so chunks are at least 64 * lead rows (a
   * quarter more rows filtered; measured faster than 32 * lead, as fast as
   * 96 * lead, and faster than 128 * lead at 4K); then as many chunks as
   * fill whole rounds of the resident blocks evenly, so that no last round
   * runs a few blocks alone. */
  const int slots = (resident > 0 ? resident : 1) * sms;
  {
    const int rounded_height = (plane.height + 15) / 16 * 16;
    int chunk = 64 * lead;
    int chunks, rounds, fill;

    if (chunk > rounded_height)
      chunk = rounded_height;
    chunks = (plane.height + chunk - 1) / chunk;
    rounds = (stripes * chunks + slots - 1) / slots;
    fill = rounds * slots / stripes;
    if (fill > chunks) {
      chunk = ((plane.height + fill - 1) / fill + 15) / 16 * 16;
      chunks = (plane.height + chunk - 1) / chunk;
    }
    p.chunk = chunk;
    p.chunks = chunks;
    p.stripes = stripes;
  }
  const int items = p.stripes * p.chunks;
  kernel <<<items < slots ? items : slots, threads, shared, stream>>> (p,
      border);
  return cudaGetLastError ();
}

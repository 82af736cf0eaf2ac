/* walk-probe: what the fused registers kernel's walk over memory costs
 * without its arithmetic, against the copy floor (GRAY8, one plane).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each row is timed as cudagaussblur-bench times (rotating frames past L2,
 * a CUDA graph of launches, the median of 5):
 *  - copy: cudaMemcpyAsync of the frame (the floor), and a copy kernel of
 *    16 bytes a thread;
 *  - walk K: the registers kernel's grid and walk for one channel
 *    (kernels_fused_registers.cu: 4 warps a block, a warp two 16-column
 *    strips, rows 8 at a time, each block an equal run of (column group,
 *    row block) units cut at the groups' ends), each lane loading its row's
 *    K + 1 four-byte words (the strips and their 8 (K - 1) apron columns
 *    either side) a step ahead and writing 2 x 4 bytes a step, with
 *    2 (K - 1) row blocks of lead a segment. The "arithmetic" is a sum and
 *    an xor, so that every load is used. K = 1: no apron, no lead;
 *  - upfront K: the same, each warp issuing all of its segment's loads at
 *    once (cp.async into shared memory);
 *  - staged S= K: the block's rows staged in shared memory 16 bytes a
 *    thread (cp.async), S - 1 row blocks ahead, each block one run of one
 *    column group; "staged W=" the same with W warps a block (a window of
 *    32 W columns), as many warps an SM as 4 blocks of 4 (and twice);
 *    "lines": its output gathered in shared memory and written as whole
 *    rows of the window, 16 bytes a thread ("private": each block's rows
 *    to a contiguous region of its own); "L2::256B": its copies with that
 *    L2 prefetch hint; "reads only", "writes only": one half of its
 *    traffic ("no barrier": without the step's __syncthreads); "runs of
 *    n": n row blocks a block, many short chains in place of one wave;
 *  - the copy's reads alone and writes alone, and copies in tiles of
 *    TW bytes by 8 rows, a block a tile.
 * Blocks an SM: 4 is what the kernel holds (up to 128 registers). The
 * walks' ring shifts in registers, as the kernel's unrolled ring stays in
 * them (until the thirtieth session it was indexed at run time and lived
 * in local memory, which made most walk rows slower and a few faster:
 * docs/performance.md, "The sigma 1 kernels on the H200").
 *
 * Usage: cudagaussblur-walk-probe [--width W] [--height H]
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <functional>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#define CHECK(call) \
  do { \
    cudaError_t e_ = (call); \
    if (e_ != cudaSuccess) { \
      fprintf (stderr, "%s:%d: %s\n", __FILE__, __LINE__, \
          cudaGetErrorString (e_)); \
      exit (1); \
    } \
  } while (0)

/* cp.async (the upfront and staged rows) needs compute capability 8.0:
 * those kernels are empty below it, and their rows are not run. */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#define PROBE_CP_ASYNC 1
#endif

namespace {

constexpr int WARPS = 4;
constexpr int COLS = 32;        /* a warp's columns */

struct Plane
{
  const uint8_t *src;
  uint8_t *dst;
  int width, height, groups, row_blocks;
};

__global__ void
copy16 (const uint4 * src, uint4 * dst, size_t n)
{
  size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    dst[i] = __ldg (&src[i]);
}

/* The copy's halves: its reads alone (16 bytes a thread), its writes
 * alone. */
__global__ void
read16 (const uint4 * src, uint4 * dst, size_t n)
{
  size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const uint4 v = __ldg (&src[i]);
    if ((v.x ^ v.y ^ v.z ^ v.w) == 0x9e3779b9u)   /* keeps the read */
      dst[i] = v;
  }
}

__global__ void
write16 (uint4 * dst, size_t n)
{
  size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    dst[i] = make_uint4 ((uint32_t) i, 0, 0, 0);
}

/* A copy in tiles of TW bytes by 8 rows, a block a tile, 16 bytes a
 * thread (TW / 2 threads): how the tile's width alone moves a copy. */
template < int TW > __global__ void __launch_bounds__ (TW / 2)
copy_tiles (const uint8_t * src, uint8_t * dst, int width, int height)
{
  const int tiles_x = width / TW;
  const int tx = blockIdx.x % tiles_x, ty = blockIdx.x / tiles_x;
  const int row = threadIdx.x / (TW / 16), c = threadIdx.x % (TW / 16);
  const int y = 8 * ty + row;
  if (y < height) {
    const size_t at = (size_t) y * width + (size_t) tx * TW + 16 * c;
    *(uint4 *) (dst + at) = __ldg ((const uint4 *) (src + at));
  }
}

/* Block blockIdx.x's equal share of the (column group, row block) units, in
 * segments that end at column-group boundaries, as the registers kernel
 * cuts them (without its edge weights): segment (x0, first, blocks) for
 * the warp's 32 columns from x0, row blocks first .. first + blocks - 1. */
template < typename Segment > __device__ __forceinline__ void
for_each_segment (const Plane & p, Segment && segment)
{
  const int warp = threadIdx.x >> 5;
  const int units = p.groups * p.row_blocks;
  int start = (int) ((long long) units * blockIdx.x / gridDim.x);
  const int end = (int) ((long long) units * (blockIdx.x + 1) / gridDim.x);
  while (start < end) {
    const int group = start / p.row_blocks;
    const int seg_end = min (end, (group + 1) * p.row_blocks);
    const int x0 = (group * WARPS + warp) * COLS;
    if (x0 < p.width)
      segment (x0, start - group * p.row_blocks, seg_end - start);
    start = seg_end;
  }
}

/* Step t's "row pass" (a sum of the lane's words) into the ring, and from
 * step 2 H on the "column pass" (the ring's xor) written as the kernel
 * writes: 4 bytes a lane, rows 2 q and 2 q + 1 of the output row block.
 * The ring shifts down a slot a step, so that every index is known at
 * compile time and it stays in registers, as the kernel's (unrolled) ring
 * does (indexed by the step, it lived in local memory: the header). */
template < int K > __device__ __forceinline__ void
push_ring (uint32_t (&ring)[2 * K + 2], uint32_t sum)
{
#pragma unroll
  for (int i = 0; i + 1 < 2 * K + 2; i++)
    ring[i] = ring[i + 1];
  ring[2 * K + 1] = sum;
}

/* The "column pass": the xor of the ring. */
template < int K > __device__ __forceinline__ uint32_t
ring_xor (const uint32_t (&ring)[2 * K + 2])
{
  uint32_t o = 0;
#pragma unroll
  for (int i = 0; i < 2 * K + 2; i++)
    o ^= ring[i];
  return o;
}

template < int K > __device__ __forceinline__ void
step_out (const Plane & p, uint32_t (&ring)[2 * K + 2], uint32_t sum, int t,
    int first, int x0)
{
  constexpr int H = K - 1;
  const int lane = threadIdx.x & 31;
  const int g = lane >> 2, q = lane & 3;
  push_ring < K > (ring, sum);
  if (t < 2 * H)
    return;
  const uint32_t o = ring_xor < K > (ring);
  const int y = 8 * (first + t - 2 * H) + 2 * q;
  const int x = x0 + 4 * g;
  if (x < p.width) {
    if (y < p.height)
      *(uint32_t *) (p.dst + (size_t) y * p.width + x) = o;
    if (y + 1 < p.height)
      *(uint32_t *) (p.dst + (size_t) (y + 1) * p.width + x) = o + 1;
  }
}

/* The source address of word j of the lane's row at step t (clamped: the
 * probe times, it does not filter). */
template < int K > __device__ __forceinline__ const uint8_t *
word_at (const Plane & p, int first, int t, int x0, int j)
{
  constexpr int H = K - 1;
  const int lane = threadIdx.x & 31;
  const int g = lane >> 2, q = lane & 3;
  const int y = min (max (8 * (first + t - H) + g, 0), p.height - 1);
  const int x = min (max (x0 - 8 * H + 4 * q + 16 * j, 0), p.width - 4);
  return p.src + (size_t) y * p.width + x;
}

/* The registers kernel's walk: each lane loads its words a step ahead
 * (PF: and prefetches its row into L2 five steps ahead). */
template < int K, bool PF > __global__ void __launch_bounds__ (WARPS * 32)
walk (Plane p)
{
  constexpr int H = K - 1;
  constexpr int LOADS = K + 1;
  for_each_segment (p,[&](int x0, int first, int blocks) {
    const int steps = blocks + 2 * H;
    uint32_t ring[2 * K + 2] = { };
    uint32_t next[LOADS];
#pragma unroll
    for (int j = 0; j < LOADS; j++)
      next[j] = __ldg ((const uint32_t *) word_at < K > (p, first, 0, x0, j));
    for (int t = 0; t < steps; t++) {
      uint32_t sum = 0;
#pragma unroll
      for (int j = 0; j < LOADS; j++)
        sum += next[j];
      if (t + 1 < steps)
#pragma unroll
        for (int j = 0; j < LOADS; j++)
          next[j] = __ldg ((const uint32_t *) word_at < K > (p, first, t + 1,
                  x0, j));
      if (PF && t + 5 < steps)
        asm volatile ("prefetch.global.L2 [%0];"::"l" (word_at < K > (p,
                    first, t + 5, x0, 0)));
      step_out < K > (p, ring, sum, t, first, x0);
    }
  });
}

/* The same walk with every load of a chunk of MAXS steps issued at once
 * (cp.async, 4 bytes, into the warp's shared memory), then the steps from
 * there. */
constexpr int MAXS = 24;
template < int K > __global__ void __launch_bounds__ (WARPS * 32)
walk_upfront (Plane p)
{
#ifdef PROBE_CP_ASYNC
  constexpr int H = K - 1;
  constexpr int LOADS = K + 1;
  extern __shared__ uint32_t smem[];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  uint32_t *mine = smem + (size_t) warp * MAXS * LOADS * 32;
  for_each_segment (p,[&](int x0, int first, int blocks) {
    const int steps = blocks + 2 * H;
    uint32_t ring[2 * K + 2] = { };
    for (int c0 = 0; c0 < steps; c0 += MAXS) {
      const int n = min (MAXS, steps - c0);
      for (int t = 0; t < n; t++)
#pragma unroll
        for (int j = 0; j < LOADS; j++) {
          const uint32_t to = (uint32_t) __cvta_generic_to_shared (mine
              + (t * LOADS + j) * 32 + lane);
          asm volatile ("cp.async.ca.shared.global [%0], [%1], 4;"::"r" (to),
              "l" (word_at < K > (p, first, c0 + t, x0, j)));
        }
      asm volatile ("cp.async.wait_all;");
      __syncwarp ();
      for (int t = 0; t < n; t++) {
        uint32_t sum = 0;
#pragma unroll
        for (int j = 0; j < LOADS; j++)
          sum += mine[(t * LOADS + j) * 32 + lane];
        step_out < K > (p, ring, sum, c0 + t, first, x0);
      }
      __syncwarp ();
    }
  });
#endif
}

/* What a staged walk leaves out or does otherwise (walk_staged's FORM). */
enum StagedForm : unsigned
{
  NO_READS = 1,                 /* no copies: its writes alone */
  NO_WRITES = 2,                /* no stores: its reads alone */
  LINES = 4,                    /* its output gathered in shared memory and
                                 * written as whole rows of the window */
  PRIVATE = 8,                  /* with LINES: each block's rows to a
                                 * contiguous region of its own */
  L2_256 = 16,                  /* copies with the L2::256B prefetch hint */
  NO_BARRIER = 32,              /* no __syncthreads a step */
};

/* The walk with the block's rows staged in shared memory, 16 bytes a
 * thread (coalesced, cp.async), S - 1 steps ahead; each lane then reads its
 * words from there as the registers kernel reads them from memory. A block
 * of W warps takes one run of row blocks of one column group of 32 W
 * columns (`chunks` runs a group), so one segment. */
template < int K, int S, int W = WARPS, unsigned FORM = 0 > __global__ void
__launch_bounds__ (W * 32)
walk_staged (Plane p, int chunks)
{
#ifdef PROBE_CP_ASYNC
  constexpr bool READS = !(FORM & NO_READS), WRITES = !(FORM & NO_WRITES);
  constexpr bool ROWS_OUT = FORM & LINES, SYNC = !(FORM & NO_BARRIER);
  constexpr int ROWB = W * COLS + 32;   /* 16 apron bytes either side */
  constexpr int H = K - 1;
  constexpr int LOADS = K + 1;
  constexpr int STEP_BYTES = 8 * ROWB;
  static_assert (STEP_BYTES / 16 <= W * 32, "a chunk a thread");
  __shared__ __align__ (16) uint8_t stage[S][STEP_BYTES];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int g = lane >> 2, q = lane & 3;
  const int group = blockIdx.x % p.groups;
  const int chunk = blockIdx.x / p.groups;
  const int first = (int) ((long long) p.row_blocks * chunk / chunks);
  const int last = (int) ((long long) p.row_blocks * (chunk + 1) / chunks);
  const int steps = last - first + 2 * H;
  const int xb = group * W * COLS - 16;
  auto issue =[&](int t) {
    const int i = threadIdx.x;
    if (READS && i < STEP_BYTES / 16 && t < steps) {
      const int row = i / (ROWB / 16), c = i % (ROWB / 16);
      int y = min (max (8 * (first + t - H) + row, 0), p.height - 1);
      int x = min (max (xb + 16 * c, 0), p.width - 16);
      const uint32_t to = (uint32_t) __cvta_generic_to_shared (
          &stage[t % S][row * ROWB + 16 * c]);
      if (FORM & L2_256)
        asm volatile ("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;"
            ::"r" (to), "l" (p.src + (size_t) y * p.width + x));
      else
        asm volatile ("cp.async.cg.shared.global [%0], [%1], 16;"::"r" (to),
            "l" (p.src + (size_t) y * p.width + x));
    }
    asm volatile ("cp.async.commit_group;");
  };
#pragma unroll
  for (int t = 0; t < S - 1; t++)
    issue (t);
  uint32_t ring[2 * K + 2] = { };
  const int x0 = group * W * COLS + warp * COLS;
  /* LINES: the step's output rows gathered in shared memory and written
   * after the next barrier as whole rows of the window, 16 bytes a thread. */
  constexpr int OUTB = W * COLS;
  __shared__ __align__ (16) uint8_t out[ROWS_OUT ? 2 : 1][8][OUTB];
  auto flush =[&](int t) {
    const int i = threadIdx.x;
    if (i < 8 * OUTB / 16) {
      const int row = i / (OUTB / 16), c = i % (OUTB / 16);
      const int y = 8 * (first + t - 2 * H) + row;
      const int x = group * OUTB + 16 * c;
      /* PRIVATE: the block's output rows one after another in memory, at
       * the block's own offset (the same bytes, written in the same steps,
       * but each block's writes contiguous). */
      const size_t at = (FORM & PRIVATE) ? (size_t) blockIdx.x * (last - first) * 8
          * OUTB + (size_t) (t - 2 * H) * 8 * OUTB + row * OUTB + 16 * c
          : (size_t) y * p.width + x;
      if (y < p.height && x + 16 <= p.width
          && at + 16 <= (size_t) p.width * p.height)
        *(uint4 *) (p.dst + at) = *(const uint4 *) &out[t % 2][row][16 * c];
    }
  };
  for (int t = 0; t < steps; t++) {
    asm volatile ("cp.async.wait_group %0;"::"n" (S - 2));
    if (SYNC)
      __syncthreads ();
    if (ROWS_OUT && t - 1 >= 2 * H)
      flush (t - 1);
    issue (t + S - 1);
    uint32_t sum = 0;
#pragma unroll
    for (int j = 0; j < LOADS; j++)
      sum += *(const uint32_t *) &stage[t % S][g * ROWB + 16 + warp * COLS
          - 8 * H + 4 * q + 16 * j];
    if (ROWS_OUT) {
      push_ring < K > (ring, sum);
      if (t >= 2 * H) {
        const uint32_t o = ring_xor < K > (ring);
        *(uint32_t *) &out[t % 2][2 * q][warp * COLS + 4 * g] = o;
        *(uint32_t *) &out[t % 2][2 * q + 1][warp * COLS + 4 * g] = o + 1;
      }
    } else if (WRITES) {
      step_out < K > (p, ring, sum, t, first, x0);
    } else if (sum == 0x9e3779b9u && p.height < 0) {    /* keeps the reads */
      p.dst[threadIdx.x] = 1;
    }
  }
  if (ROWS_OUT && steps - 1 >= 2 * H) {
    __syncthreads ();
    flush (steps - 1);
  }
#endif
}

double
time_graph (int frames, size_t frame_bytes, uint8_t * src, uint8_t * dst,
    const std::function < void (const uint8_t *, uint8_t *, cudaStream_t) >
    &launch)
{
  cudaStream_t s;
  CHECK (cudaStreamCreate (&s));
  const int n = 1000;
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK (cudaStreamBeginCapture (s, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < n; i++) {
    const int f = i % frames;
    launch (src + f * frame_bytes, dst + f * frame_bytes, s);
  }
  CHECK (cudaStreamEndCapture (s, &graph));
  CHECK (cudaGraphInstantiate (&exec, graph, 0));
  cudaEvent_t a, b;
  CHECK (cudaEventCreate (&a));
  CHECK (cudaEventCreate (&b));
  CHECK (cudaGraphLaunch (exec, s));
  std::vector < double >t;
  for (int r = 0; r < 5; r++) {
    CHECK (cudaEventRecord (a, s));
    CHECK (cudaGraphLaunch (exec, s));
    CHECK (cudaEventRecord (b, s));
    CHECK (cudaEventSynchronize (b));
    float ms;
    CHECK (cudaEventElapsedTime (&ms, a, b));
    t.push_back (ms * 1000.0 / n);
  }
  std::sort (t.begin (), t.end ());
  CHECK (cudaGraphExecDestroy (exec));
  CHECK (cudaGraphDestroy (graph));
  CHECK (cudaStreamDestroy (s));
  return t[2];
}

}                               /* namespace */

int
main (int argc, char **argv)
{
  int width = 1920, height = 1080;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp (argv[i], "--width"))
      width = atoi (argv[i + 1]);
    else if (!strcmp (argv[i], "--height"))
      height = atoi (argv[i + 1]);
  }
  const size_t frame = (size_t) width * height;
  const size_t frame_span = (frame + 255) / 256 * 256;
  const int frames = (int) std::max < size_t > (3, (256u << 20) / frame_span);
  uint8_t *src, *dst;
  CHECK (cudaMalloc (&src, frame_span * frames));
  CHECK (cudaMalloc (&dst, frame_span * frames));
  CHECK (cudaMemset (src, 7, frame_span * frames));
  int dev, sms, major;
  CHECK (cudaGetDevice (&dev));
  CHECK (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, dev));
  CHECK (cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor,
          dev));

  typedef std::function < void (const Plane &, cudaStream_t) > Launch;
  Plane p;
  p.width = width;
  p.height = height;
  p.groups = (width + WARPS * COLS - 1) / (WARPS * COLS);
  p.row_blocks = (height + 7) / 8;
  double copy = 0;
  /* Times launch on the rotating frames and prints a row. */
  auto row =[&](const char *name, const Launch & launch) {
    const double t = time_graph (frames, frame_span, src, dst,
        [&](const uint8_t * a, uint8_t * b, cudaStream_t s) {
          Plane q = p;
          q.src = a;
          q.dst = b;
          launch (q, s);
        });
    if (copy == 0)
      copy = t;
    printf ("%-30s %8.2f us  %5.2f x copy\n", name, t, t / copy);
  };
  printf ("GRAY8 %dx%d, %d SMs, %d frames\n", width, height, sms, frames);
  row ("copy (cudaMemcpyAsync)",[&](const Plane & q, cudaStream_t s) {
        CHECK (cudaMemcpyAsync (q.dst, q.src, frame,
                cudaMemcpyDeviceToDevice, s));
      });
  row ("copy kernel (16 B a thread)",[&](const Plane & q, cudaStream_t s) {
        const size_t n = frame / 16;
        copy16 <<<(unsigned) ((n + 255) / 256), 256, 0, s>>> (
            (const uint4 *) q.src, (uint4 *) q.dst, n);
      });
  row ("copy's reads alone",[&](const Plane & q, cudaStream_t s) {
        const size_t n = frame / 16;
        read16 <<<(unsigned) ((n + 255) / 256), 256, 0, s>>> (
            (const uint4 *) q.src, (uint4 *) q.dst, n);
      });
  row ("copy's writes alone",[&](const Plane & q, cudaStream_t s) {
        const size_t n = frame / 16;
        write16 <<<(unsigned) ((n + 255) / 256), 256, 0, s>>> (
            (uint4 *) q.dst, n);
      });
  /* Tiled copies (widths that divide the frame's: 1920 = 15 x 128). */
#define TILES(TW) \
  if (width % TW == 0) \
    row ("copy in tiles of " #TW " B x 8 rows",[&](const Plane & q, \
            cudaStream_t s) { \
          copy_tiles < TW > <<<(width / TW) * ((height + 7) / 8), TW / 2, 0, \
              s>>> (q.src, q.dst, width, height); })
  TILES (128);
  TILES (384);
  TILES (640);
  TILES (1280);
  TILES (1920);
  char name[64];
  /* kernel: (blocks an SM, stream) -> launch */
  auto walks =[&](const char *what, int k, auto && launch, const int
      (&per_sm)[3]) {
    for (int n : per_sm) {
      snprintf (name, sizeof name, "%s K=%d, %d blocks/SM", what, k, n);
      row (name,[&](const Plane & q, cudaStream_t s) {
            launch (q, n * sms, s);
          });
    }
  };
  static const int loaded_per_sm[3] = { 4, 8, 16 };
  static const int upfront_per_sm[3] = { 2, 4, 8 };
#define WALK(K, PF) \
  walks (PF ? "walk +L2 prefetch" : "walk", K, \
      [&](const Plane & q, int blocks, cudaStream_t s) { \
        walk < K, PF > <<<blocks, WARPS * 32, 0, s>>> (q); }, loaded_per_sm)
  WALK (1, false);
  WALK (2, false);
  WALK (3, false);
  WALK (1, true);
  WALK (2, true);
  WALK (3, true);
#define UPFRONT(K) \
  do { \
    const int bytes = WARPS * MAXS * (K + 1) * 32 * 4; \
    CHECK (cudaFuncSetAttribute (walk_upfront < K >, \
            cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)); \
    walks ("upfront", K, [&](const Plane & q, int blocks, cudaStream_t s) { \
          walk_upfront < K > <<<blocks, WARPS * 32, bytes, s>>> (q); }, \
        upfront_per_sm); \
  } while (0)
  if (major < 8) {
    printf ("compute capability %d: no cp.async, no upfront and staged "
        "rows\n", major);
    return 0;
  }
  UPFRONT (1);
  UPFRONT (2);
  UPFRONT (3);
  /* A row of a staged walk: kernel with W warps a block, per_sm blocks an
   * SM in runs of whole column groups, or (per_sm 0) runs of `run` row
   * blocks, a block each. */
  typedef void (*StagedKernel) (Plane, int);
  auto staged =[&](const char *label, StagedKernel kernel, int w, int per_sm,
      int run = 0) {
    row (label,[&](const Plane & q, cudaStream_t s) {
          Plane v = q;
          v.groups = (q.width + w * COLS - 1) / (w * COLS);
          const int chunks = per_sm ? std::max (1, per_sm * sms / v.groups)
              : (q.row_blocks + run - 1) / run;
          kernel <<<chunks * v.groups, w * 32, 0, s>>> (v, chunks);
        });
  };
#define STAGED(K, S) \
  for (int per_sm : loaded_per_sm) { \
    snprintf (name, sizeof name, "staged S=" #S " K=%d, %d blocks/SM", K, \
        per_sm); \
    staged (name, walk_staged < K, S >, WARPS, per_sm); \
  }
  STAGED (1, 2);
  STAGED (1, 4);
  STAGED (2, 4);
  STAGED (3, 4);
  STAGED (2, 8);
  STAGED (3, 8);
  /* Wider windows: W warps a block, 16 or 32 warps an SM. */
#define STAGED_WIDE(K, W) \
  for (int warps : { 16, 32 }) { \
    snprintf (name, sizeof name, "staged W=%d K=%d, %d warps/SM", W, K, \
        warps); \
    staged (name, walk_staged < K, 4, W >, W, warps / W); \
  }
  STAGED_WIDE (2, 4);
  STAGED_WIDE (2, 8);
  STAGED_WIDE (2, 16);
  STAGED_WIDE (3, 8);
  STAGED_WIDE (3, 16);
  /* Its output as whole rows, and its copies with a prefetch hint, at 4
   * and 8 blocks an SM. */
#define STAGED_FORM(LABEL, FORM) \
  for (int per_sm : { 4, 8 }) { \
    snprintf (name, sizeof name, "staged " LABEL " K=2, %d blocks/SM", \
        per_sm); \
    staged (name, walk_staged < 2, 4, WARPS, FORM >, WARPS, per_sm); \
  }
  STAGED_FORM ("lines", LINES);
  STAGED_FORM ("lines, no reads", LINES | NO_READS);
  STAGED_FORM ("L2::256B", L2_256);
  STAGED_FORM ("L2::256B lines", L2_256 | LINES);
  /* Its writes alone without the barrier, and in short runs (many short
   * chains of steps in place of one wave of long ones). */
  staged ("staged writes only, no barrier K=2, 4 blocks/SM",
      walk_staged < 2, 4, WARPS, NO_READS | NO_BARRIER >, WARPS, 4);
  staged ("staged writes only, runs of 1 K=2",
      walk_staged < 2, 4, WARPS, NO_READS >, WARPS, 0, 1);
  staged ("staged writes only, runs of 1 K=1",
      walk_staged < 1, 4, WARPS, NO_READS >, WARPS, 0, 1);
  staged ("staged, runs of 1 K=1", walk_staged < 1, 4 >, WARPS, 0, 1);
  staged ("staged, runs of 4 K=1", walk_staged < 1, 4 >, WARPS, 0, 4);
  /* Its whole-row writes alone, each block's to a contiguous region of
   * its own: the same stores in the same order, other addresses. */
  staged ("staged lines, no reads, private K=2, 4 blocks/SM",
      walk_staged < 2, 4, WARPS, LINES | PRIVATE | NO_READS >, WARPS, 4);
  /* The staged walk's reads alone and its writes alone. */
  STAGED_FORM ("reads only", NO_WRITES);
  STAGED_FORM ("writes only", NO_READS);
  CHECK (cudaGetLastError ());
  CHECK (cudaDeviceSynchronize ());
  return 0;
}

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
 *    column group.
 * Blocks an SM: 4 is what the kernel holds (up to 128 registers).
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
 * writes: 4 bytes a lane, rows 2 q and 2 q + 1 of the output row block. */
template < int K > __device__ __forceinline__ void
step_out (const Plane & p, uint32_t (&ring)[2 * K + 2], uint32_t sum, int t,
    int first, int x0)
{
  constexpr int H = K - 1;
  const int lane = threadIdx.x & 31;
  const int g = lane >> 2, q = lane & 3;
  ring[t % (2 * K + 2)] = sum;
  if (t < 2 * H)
    return;
  uint32_t o = 0;
#pragma unroll
  for (int i = 0; i < 2 * K + 2; i++)
    o ^= ring[i];
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
    uint32_t ring[2 * K + 2];
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
    uint32_t ring[2 * K + 2];
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

/* The walk with the block's rows staged in shared memory, 16 bytes a
 * thread (coalesced, cp.async), S - 1 steps ahead; each lane then reads its
 * words from there as the registers kernel reads them from memory. A block
 * takes one run of row blocks of one 128-column group (`chunks` runs a
 * group), so one segment. */
[[maybe_unused]] constexpr int ROWB = WARPS * COLS + 32; /* 16 apron bytes */
template < int K, int S > __global__ void __launch_bounds__ (WARPS * 32)
walk_staged (Plane p, int chunks)
{
#ifdef PROBE_CP_ASYNC
  constexpr int H = K - 1;
  constexpr int LOADS = K + 1;
  constexpr int STEP_BYTES = 8 * ROWB;
  __shared__ __align__ (16) uint8_t stage[S][STEP_BYTES];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int g = lane >> 2, q = lane & 3;
  const int group = blockIdx.x % p.groups;
  const int chunk = blockIdx.x / p.groups;
  const int first = (int) ((long long) p.row_blocks * chunk / chunks);
  const int last = (int) ((long long) p.row_blocks * (chunk + 1) / chunks);
  const int steps = last - first + 2 * H;
  const int xb = group * WARPS * COLS - 16;
  auto issue =[&](int t) {
    const int i = threadIdx.x;
    if (i < STEP_BYTES / 16 && t < steps) {
      const int row = i / (ROWB / 16), c = i % (ROWB / 16);
      int y = min (max (8 * (first + t - H) + row, 0), p.height - 1);
      int x = min (max (xb + 16 * c, 0), p.width - 16);
      const uint32_t to = (uint32_t) __cvta_generic_to_shared (
          &stage[t % S][row * ROWB + 16 * c]);
      asm volatile ("cp.async.cg.shared.global [%0], [%1], 16;"::"r" (to),
          "l" (p.src + (size_t) y * p.width + x));
    }
    asm volatile ("cp.async.commit_group;");
  };
#pragma unroll
  for (int t = 0; t < S - 1; t++)
    issue (t);
  uint32_t ring[2 * K + 2];
  const int x0 = group * WARPS * COLS + warp * COLS;
  for (int t = 0; t < steps; t++) {
    asm volatile ("cp.async.wait_group %0;"::"n" (S - 2));
    __syncthreads ();
    issue (t + S - 1);
    uint32_t sum = 0;
#pragma unroll
    for (int j = 0; j < LOADS; j++)
      sum += *(const uint32_t *) &stage[t % S][g * ROWB + 16 + warp * COLS
          - 8 * H + 4 * q + 16 * j];
    step_out < K > (p, ring, sum, t, first, x0);
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
  /* Whole runs of a column group: blocks rounded down to the groups. */
#define STAGED(K, S) \
  walks ("staged S=" #S, K, [&](const Plane & q, int blocks, \
          cudaStream_t s) { \
        const int chunks = std::max (1, blocks / q.groups); \
        walk_staged < K, S > <<<chunks * q.groups, WARPS * 32, 0, s>>> (q, \
            chunks); }, loaded_per_sm)
  STAGED (1, 2);
  STAGED (1, 4);
  STAGED (2, 4);
  STAGED (3, 4);
  STAGED (2, 8);
  STAGED (3, 8);
  CHECK (cudaGetLastError ());
  CHECK (cudaDeviceSynchronize ());
  return 0;
}

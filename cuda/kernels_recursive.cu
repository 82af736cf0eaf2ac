/* Recursive (Deriche) Gaussian on the GPU: exact block-parallel filtering.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The filter (recursive.h) runs two complex first-order recursions forwards
 * and two backwards along every line. A line is one long dependency chain,
 * so it is cut into segments of SEGMENT samples and the chain is restored
 * exactly, in the manner of Nehab et al. (2011), in three kernels per pass:
 *
 *   local:    every segment runs from a zero state and records the state it
 *             ends in (forward: at its last sample; backward: at its first);
 *   resolve:  per line, the true state entering each segment is the state
 *             left by the previous segment's local run plus the true state
 *             entering that segment carried across it by the homogeneous
 *             recursion, b^SEGMENT (a complex product per recursion); the
 *             frame-edge states follow the start-up rule of recursive.h;
 *   final:    every segment runs again from its true states, both directions
 *             at once (one warp each), and writes the sum.
 *
 * The cost per sample does not depend on sigma (the warm-up at a mirror edge
 * aside, run once per line). Lines are the columns of the pass's input, so
 * a warp's loads are coalesced; the output is written transposed through
 * shared memory: the first pass (columns of the frame) leaves a transposed
 * float intermediate whose columns are the frame's rows, and the second pass
 * transposes back into the frame's samples (8- or 16-bit). The first pass
 * runs the y filter, the second the x filter, each with its own
 * coefficients.
 */
#include "kernels.h"

#include <atomic>

namespace {

constexpr int LINES = 32;       /* lines per block: one warp per direction */
constexpr int SEGMENT = 32;     /* samples per segment */
constexpr int RESOLVE_THREADS = 128;

struct Coefficients
{
  GbRecursiveFilter r;
  /* b^SEGMENT per recursion, as (Re, Im) */
  float2 carry_full[2];
  float2 carry_last[2];         /* b^(length of the last segment) */
};

/* The input side of a pass: `lines` lines of `length` samples of C
 * channels; sample k of line i is at in + k * in_pitch + i * C. The local
 * and resolve kernels see only this, so they are not instantiated once more
 * per output type. */
template < typename InT > struct Lines
{
  const InT *in;
  size_t in_pitch;
  float4 *local;                /* [direction][segment][line][channel] */
  float4 *resolved;             /* the same layout */
  int lines;
  int length;
  int segments;
  bool aligned_in;              /* 4 channels: one 4-, 8- or 16-byte load */
};

/* One pass: line i of the output is row i of out (written transposed). */
template < typename InT, typename OutT > struct Pass:Lines < InT >
{
  OutT *out;
  size_t out_pitch;
  bool aligned_out;             /* 4 channels: one 4-, 8- or 16-byte store */
  bool packed;                  /* 4 channels that are 4 gray lines: line i
                                 * channel c is output row 4 i + c */
};

template < typename InT > __device__ __forceinline__ const InT *
sample_row (const InT * base, size_t pitch, int k)
{
  return (const InT *) ((const char *) base + (size_t) k * pitch);
}

template < int C > __device__ __forceinline__ void
load_vector (const uint8_t * row, float (&x)[C])
{
  const uchar4 v = __ldg (reinterpret_cast < const uchar4 * >(row));
  x[0] = v.x;
  x[1 % C] = v.y;
  x[2 % C] = v.z;
  x[3 % C] = v.w;
}

template < int C > __device__ __forceinline__ void
load_vector (const uint16_t * row, float (&x)[C])
{
  const ushort4 v = __ldg (reinterpret_cast < const ushort4 * >(row));
  x[0] = v.x;
  x[1 % C] = v.y;
  x[2 % C] = v.z;
  x[3 % C] = v.w;
}

template < int C > __device__ __forceinline__ void
load_vector (const float *row, float (&x)[C])
{
  const float4 v = __ldg (reinterpret_cast < const float4 * >(row));
  x[0] = v.x;
  x[1 % C] = v.y;
  x[2 % C] = v.z;
  x[3 % C] = v.w;
}

/* x_ext[k] of line `line`: the border rule along the line. */
template < int C, typename InT > __device__ __forceinline__ void
load_sample (const Lines < InT > &p, int line, int k, GbBorder border,
    float (&x)[C])
{
  const int mapped = gb_border_index (k, p.length, border);
  if (mapped < 0) {
#pragma unroll
    for (int c = 0; c < C; c++)
      x[c] = 0.0f;
    return;
  }
  const InT *row = sample_row (p.in, p.in_pitch, mapped) + (size_t) line * C;
  /* Read-only for the kernel's life: the loads may run ahead of the
   * recursion and of the shared-memory stores. */
  if (C == 4 && p.aligned_in) {
    load_vector (row, x);
    return;
  }
#pragma unroll
  for (int c = 0; c < C; c++)
    x[c] = (float) __ldg (&row[c]);
}

/* Walks `count` samples from k = from in direction dir (+1 or -1), loading
 * BATCH samples ahead of the recursion: a step depends on the previous one,
 * a load on nothing. */
constexpr int BATCH = 8;

template < int C, typename InT, typename Step > __device__ __forceinline__ void
walk (const Lines < InT > &p, int line, int from, int count, int dir,
    GbBorder border, Step step)
{
  for (int done = 0; done < count; done += BATCH) {
    float xs[BATCH][C];
#pragma unroll
    for (int u = 0; u < BATCH; u++)
      if (done + u < count)
        load_sample (p, line, from + dir * (done + u), border, xs[u]);
#pragma unroll
    for (int u = 0; u < BATCH; u++)
      if (done + u < count)
        step (from + dir * (done + u), xs[u]);
  }
}

__device__ __forceinline__ size_t
state_index (int direction, int segment, int line, int channel, int segments,
    int lines, int channels)
{
  return (((size_t) direction * segments + segment) * lines + line) * channels
      + channel;
}

/* State of one direction: per channel and recursion, the complex z[k-1]
 * forwards or w[k+1] backwards. */
template < int C > struct State
{
  float re[C][2];
  float im[C][2];

  __device__ __forceinline__ void clear ()
  {
#pragma unroll
    for (int c = 0; c < C; c++)
#pragma unroll
      for (int s = 0; s < 2; s++)
        re[c][s] = im[c][s] = 0.0f;
  }
  __device__ __forceinline__ void load (const float4 * v)
  {
#pragma unroll
    for (int c = 0; c < C; c++) {
      const float4 s = v[c];
      re[c][0] = s.x;
      im[c][0] = s.y;
      re[c][1] = s.z;
      im[c][1] = s.w;
    }
  }
  __device__ __forceinline__ void store (float4 * v) const
  {
#pragma unroll
    for (int c = 0; c < C; c++)
      v[c] = make_float4 (re[c][0], im[c][0], re[c][1], im[c][1]);
  }
  __device__ __forceinline__ float sum (int c) const
  {
    return re[c][0] + re[c][1];
  }
};

/* z <- b z + (wr + i wi) x, one complex recursion. */
__device__ __forceinline__ void
complex_step (float br, float bi, float wr, float wi, float x, float &re,
    float &im)
{
  const float r = br * re - bi * im + wr * x;
  im = br * im + bi * re + wi * x;
  re = r;
}

/* z_s[k] = b_s z_s[k-1] + a_s x[k], both recursions. */
template < int C > __device__ __forceinline__ void
causal_step (const GbRecursiveFilter & f, State < C > &st,
    const float (&x)[C])
{
#pragma unroll
  for (int c = 0; c < C; c++)
#pragma unroll
    for (int s = 0; s < 2; s++)
      complex_step (f.pole_re[s], f.pole_im[s], f.causal_re[s],
          f.causal_im[s], x[c], st.re[c][s], st.im[c][s]);
}

/* w_s[k] = b_s w_s[k+1] + a_s b_s x[k+1], both recursions. */
template < int C > __device__ __forceinline__ void
anticausal_step (const GbRecursiveFilter & f, State < C > &st,
    const float (&x_next)[C])
{
#pragma unroll
  for (int c = 0; c < C; c++)
#pragma unroll
    for (int s = 0; s < 2; s++)
      complex_step (f.pole_re[s], f.pole_im[s], f.anticausal_re[s],
          f.anticausal_im[s], x_next[c], st.re[c][s], st.im[c][s]);
}

template < int C > __device__ __forceinline__ void
copy (float (&to)[C], const float (&from)[C])
{
#pragma unroll
  for (int c = 0; c < C; c++)
    to[c] = from[c];
}

/* Zero-state runs of every segment; records the states they end in. The
 * last segment's forward end and the first segment's backward end are
 * never needed. */
template < int C, typename InT > __global__ void
recursive_local_kernel (Lines < InT > p, Coefficients f, GbBorder border)
{
  const int line = blockIdx.x * LINES + threadIdx.x;
  const int segment = blockIdx.y;
  const int r0 = segment * SEGMENT;
  const int r1 = min (r0 + SEGMENT, p.length);
  State < C > st;
  float a[C];

  if (line >= p.lines)
    return;
  st.clear ();
  if (threadIdx.y == 0) {
    if (segment == p.segments - 1)
      return;
    walk < C > (p, line, r0, r1 - r0, 1, border,[&](int, const float (&x)[C]) {
          causal_step (f.r, st, x);});
  } else {
    if (segment == 0)
      return;
    load_sample (p, line, r1, border, a);
    walk < C > (p, line, r1 - 1, r1 - r0, -1, border,[&](int, const float (&x)[C]) {
          anticausal_step (f.r, st, a); copy (a, x);});
  }
  st.store (&p.local[state_index (threadIdx.y, segment, line, 0, p.segments,
              p.lines, C)]);
}

/* z <- b^n z + local (bn: b^n), for one recursion. */
__device__ __forceinline__ void
carry_across (float2 bn, float &re, float &im, float local_re,
    float local_im)
{
  const float r = bn.x * re - bn.y * im + local_re;
  im = bn.y * re + bn.x * im + local_im;
  re = r;
}

/* One thread per line, channel and direction: the frame-edge state by the
 * start-up rule, then the true state entering every segment, in order. */
template < int C, typename InT > __global__ void
recursive_resolve_kernel (Lines < InT > p, Coefficients f, GbBorder border)
{
  const int index = blockIdx.x * RESOLVE_THREADS + threadIdx.x;
  const int line = index / C;
  const int channel = index - line * C;
  const int direction = blockIdx.y;
  const int n = p.length;
  const GbRecursiveFilter & r = f.r;
  const int w = r.warmup;
  float re[2], im[2];           /* each recursion's state */

  if (line >= p.lines)
    return;

  /* x_ext of this channel only. */
  auto sample = [&](int k) -> float {
    const int mapped = gb_border_index (k, n, border);
    return mapped < 0 ? 0.0f
        : (float) __ldg (&sample_row (p.in, p.in_pitch, mapped)[(size_t) line
            * C + channel]);
  };

  if (direction == 0) {
    /* Start at q = -warmup from the steady state of x_ext[q]; for clamp and
     * zero borders x_ext is constant before the frame, so that state is
     * already the answer. */
    const float x_start = sample (-w);
    for (int s = 0; s < 2; s++) {
      re[s] = r.causal_gain_re[s] * x_start;
      im[s] = r.causal_gain_im[s] * x_start;
    }
    if (border == GB_BORDER_MIRROR)
      for (int k = -w; k < 0; k++) {
        const float x = sample (k);
        for (int s = 0; s < 2; s++)
          complex_step (r.pole_re[s], r.pole_im[s], r.causal_re[s],
              r.causal_im[s], x, re[s], im[s]);
      }
    /* The local states are independent of the chain: load BATCH ahead. */
    for (int base = 0; base < p.segments; base += BATCH) {
      float4 local[BATCH];
#pragma unroll
      for (int u = 0; u < BATCH; u++) {
        const int segment = base + u;
        if (segment > 0 && segment < p.segments)
          local[u] = __ldg (&p.local[state_index (0, segment - 1, line,
                      channel, p.segments, p.lines, C)]);
      }
#pragma unroll
      for (int u = 0; u < BATCH; u++) {
        const int segment = base + u;
        if (segment >= p.segments)
          break;
        if (segment > 0) {
          carry_across (f.carry_full[0], re[0], im[0], local[u].x,
              local[u].y);
          carry_across (f.carry_full[1], re[1], im[1], local[u].z,
              local[u].w);
        }
        p.resolved[state_index (0, segment, line, channel, p.segments,
                p.lines, C)] = make_float4 (re[0], im[0], re[1], im[1]);
      }
    }
  } else {
    const int e = n - 1 + w;
    float x_next = sample (e);
    for (int s = 0; s < 2; s++) {
      re[s] = r.anticausal_gain_re[s] * x_next;
      im[s] = r.anticausal_gain_im[s] * x_next;
    }
    if (border == GB_BORDER_MIRROR)
      for (int k = e; k >= n; k--) {
        for (int s = 0; s < 2; s++)
          complex_step (r.pole_re[s], r.pole_im[s], r.anticausal_re[s],
              r.anticausal_im[s], x_next, re[s], im[s]);
        x_next = sample (k);
      }
    for (int base = p.segments - 1; base >= 0; base -= BATCH) {
      float4 local[BATCH];
#pragma unroll
      for (int u = 0; u < BATCH; u++) {
        const int segment = base - u;
        if (segment >= 0 && segment < p.segments - 1)
          local[u] = __ldg (&p.local[state_index (1, segment + 1, line,
                      channel, p.segments, p.lines, C)]);
      }
#pragma unroll
      for (int u = 0; u < BATCH; u++) {
        const int segment = base - u;
        if (segment < 0)
          break;
        if (segment < p.segments - 1) {
          const bool last = segment + 1 == p.segments - 1;
          carry_across (last ? f.carry_last[0] : f.carry_full[0], re[0],
              im[0], local[u].x, local[u].y);
          carry_across (last ? f.carry_last[1] : f.carry_full[1], re[1],
              im[1], local[u].z, local[u].w);
        }
        p.resolved[state_index (1, segment, line, channel, p.segments,
                p.lines, C)] = make_float4 (re[0], im[0], re[1], im[1]);
      }
    }
  }
}

/* Both directions of a segment from their true states; the sum is staged in
 * shared memory and written transposed, one output row per line. */
template < int C, typename InT, typename OutT > __global__ void
__launch_bounds__ (2 * LINES)
recursive_final_kernel (Pass < InT, OutT > p, Coefficients f, GbBorder border)
{
  /* LINES + 1: the transposed read-back walks k, which would hit one bank. */
  __shared__ __align__ (16) float partial[2][SEGMENT][LINES + 1][C];
  const int line0 = blockIdx.x * LINES;
  const int line = line0 + threadIdx.x;
  const int segment = blockIdx.y;
  const int r0 = segment * SEGMENT;
  const int r1 = min (r0 + SEGMENT, p.length);

  if (line < p.lines) {
    State < C > st;
    float a[C];
    st.load (&p.resolved[state_index (threadIdx.y, segment, line, 0,
                p.segments, p.lines, C)]);
    if (threadIdx.y == 0) {
      walk < C > (p, line, r0, r1 - r0, 1, border,[&](int k, const float (&x)[C]) {
            causal_step (f.r, st, x);
#pragma unroll
            for (int c = 0; c < C; c++)
            partial[0][k - r0][threadIdx.x][c] = st.sum (c);});
    } else {
      load_sample (p, line, r1, border, a);
      walk < C > (p, line, r1 - 1, r1 - r0, -1, border,[&](int k,
              const float (&x)[C]) {
            anticausal_step (f.r, st, a);
#pragma unroll
            for (int c = 0; c < C; c++)
            partial[1][k - r0][threadIdx.x][c] = st.sum (c); copy (a, x);});
    }
  }
  __syncthreads ();

  /* Line i's samples r0 .. r1-1 are contiguous in output row i. */
  const int count = (r1 - r0) * C;
  const int lines_here = min (LINES, p.lines - line0);
  const int thread = threadIdx.y * LINES + threadIdx.x;
  if (C == 4 && p.packed) {
    const int n = r1 - r0;
    for (int u = thread; u < lines_here * 4 * n; u += 2 * LINES) {
      const int row = n == SEGMENT ? u / SEGMENT : u / n;
      const int k = u - row * n;
      const int i = row >> 2;
      const int c = row & 3;
      OutT *out = (OutT *) ((char *) p.out + (size_t) (4 * (line0 + i) + c)
          * p.out_pitch) + r0 + k;
      *out = gb_to_output (partial[0][k][i][c] + partial[1][k][i][c], out);
    }
    return;
  }
  if (C == 4 && p.aligned_out) {
    /* one pixel per store */
    const int n = r1 - r0;
    for (int u = thread; u < lines_here * n; u += 2 * LINES) {
      const int i = n == SEGMENT ? u / SEGMENT : u / n;
      const int k = u - i * n;
      const float4 c = *reinterpret_cast < const float4 * >(partial[0][k][i]);
      const float4 a = *reinterpret_cast < const float4 * >(partial[1][k][i]);
      OutT *out = (OutT *) ((char *) p.out + (size_t) (line0 + i)
          * p.out_pitch) + (size_t) (r0 + k) * C;
      gb_store4 (out, make_float4 (c.x + a.x, c.y + a.y, c.z + a.z,
              c.w + a.w));
    }
    return;
  }
  for (int i = 0; i < lines_here; i++) {
    OutT *out_row = (OutT *) ((char *) p.out
        + (size_t) (line0 + i) * p.out_pitch) + (size_t) r0 * C;
    for (int e = thread; e < count; e += 2 * LINES) {
      const int k = e / C;
      const int c = e - k * C;
      out_row[e] = gb_to_output (partial[0][k][i][c] + partial[1][k][i][c],
          out_row);
    }
  }
}

/* b^n (b the float pole, as the kernels run it), computed in double. */
float2
carry_power (float pole_re, float pole_im, int n)
{
  double re = 1.0, im = 0.0;
  for (int i = 0; i < n; i++) {
    const double r = re * pole_re - im * pole_im;
    im = re * pole_im + im * pole_re;
    re = r;
  }
  return make_float2 ((float) re, (float) im);
}

Coefficients
coefficients_for (const GbRecursiveFilter & r, int length)
{
  Coefficients f;
  const int segments = (length + SEGMENT - 1) / SEGMENT;
  const int last = length - (segments - 1) * SEGMENT;

  f.r = r;
  for (int s = 0; s < 2; s++) {
    f.carry_full[s] = carry_power (r.pole_re[s], r.pole_im[s], SEGMENT);
    f.carry_last[s] = carry_power (r.pole_re[s], r.pole_im[s], last);
  }
  return f;
}

template < int C, typename InT, typename OutT > cudaError_t
run_pass (const Pass < InT, OutT > &pass, const GbRecursiveFilter & filter,
    GbBorder border, cudaStream_t stream)
{
  const Coefficients f = coefficients_for (filter, pass.length);
  const dim3 block (LINES, 2);
  const dim3 grid ((pass.lines + LINES - 1) / LINES, pass.segments);
  const dim3 resolve_grid ((pass.lines * C + RESOLVE_THREADS - 1)
      / RESOLVE_THREADS, 2);

  /* The final kernel's staging decides its blocks per SM: ask for the
   * largest shared-memory carveout, once per device (a bit each). */
  static std::atomic < unsigned >carveout_set (0);
  int device = 0;
  cudaError_t err = cudaGetDevice (&device);
  const unsigned bit = device < 32 ? 1u << device : 0u;
  if (err == cudaSuccess && !(carveout_set.load () & bit)) {
    err = cudaFuncSetAttribute (recursive_final_kernel < C, InT, OutT >,
        cudaFuncAttributePreferredSharedMemoryCarveout,
        cudaSharedmemCarveoutMaxShared);
    if (err == cudaSuccess)
      carveout_set.fetch_or (bit);
  }
  if (err != cudaSuccess)
    return err;
  recursive_local_kernel < C, InT > <<<grid, block, 0, stream>>> (pass, f,
      border);
  recursive_resolve_kernel < C, InT > <<<resolve_grid, RESOLVE_THREADS, 0,
      stream>>> (pass, f, border);
  recursive_final_kernel < C > <<<grid, block, 0, stream>>> (pass, f, border);
  return cudaGetLastError ();
}

/* Whether 4 samples at p, and at p plus any multiple of pitch, can be
 * moved as one vector (uchar4, ushort4 or float4). */
template < typename Sample > bool
vector_aligned (const void *p, size_t pitch)
{
  const size_t bytes = 4 * sizeof (Sample);
  return (uintptr_t) p % bytes == 0 && pitch % bytes == 0;
}

/* packed: a gray plane (its width and height multiples of 4, its source
 * rows aligned to 4 samples) run as C = 4: four neighbouring lines travel
 * together as the four channels of one, loaded as one vector, and are
 * written back to their own rows. Four independent chains per thread
 * instead of one. The columns run the y filter, the rows the x filter. */
template < int C, typename Sample > cudaError_t
launch_channels (const GbDevicePlane & plane, const GbRecursiveFilter & x,
    const GbRecursiveFilter & y, GbBorder border, cudaStream_t stream,
    bool packed = false)
{
  float4 *states = (float4 *) plane.recursive_states;
  Pass < Sample, float >columns;
  Pass < float, Sample > rows;
  size_t half;
  cudaError_t err;

  /* Columns of the frame, into the transposed intermediate... */
  columns.in = (const Sample *) plane.src;
  columns.in_pitch = plane.src_pitch;
  columns.out = plane.transposed;
  columns.out_pitch = plane.transposed_pitch;
  columns.aligned_in = vector_aligned < Sample > (plane.src, plane.src_pitch);
  columns.aligned_out = true;   /* our intermediate */
  columns.packed = packed;
  columns.lines = packed ? plane.width / 4 : plane.width;
  columns.length = plane.height;
  columns.segments = gb_recursive_segments (plane.height);
  half = (size_t) 2 * columns.segments * columns.lines * C;
  columns.local = states;
  columns.resolved = states + half;
  err = run_pass < C > (columns, y, border, stream);
  if (err != cudaSuccess)
    return err;

  /* ...then its columns (the frame's rows), back into the frame's layout. */
  rows.in = plane.transposed;
  rows.in_pitch = plane.transposed_pitch;
  rows.out = (Sample *) plane.dst;
  rows.out_pitch = plane.dst_pitch;
  rows.aligned_in = true;
  rows.aligned_out = vector_aligned < Sample > (plane.dst, plane.dst_pitch);
  rows.packed = packed;
  rows.lines = packed ? plane.height / 4 : plane.height;
  rows.length = plane.width;
  rows.segments = gb_recursive_segments (plane.width);
  half = (size_t) 2 * rows.segments * rows.lines * C;
  rows.local = states;
  rows.resolved = states + half;
  return run_pass < C > (rows, x, border, stream);
}

}                               /* namespace */

int
gb_recursive_segments (int length)
{
  return (length + SEGMENT - 1) / SEGMENT;
}

size_t
gb_recursive_state_bytes (int width, int height, int channels)
{
  const size_t columns = (size_t) gb_recursive_segments (height) * width;
  const size_t rows = (size_t) gb_recursive_segments (width) * height;
  /* local and resolved, two directions each, one float4 per channel */
  return 4 * (columns > rows ? columns : rows) * channels * sizeof (float4);
}

cudaError_t
gb_launch_recursive (const GbDevicePlane & plane, const GbTaps & taps,
    GbBorder border, cudaStream_t stream)
{
  const GbRecursiveFilter & x = *taps.x.recursive;
  const GbRecursiveFilter & y = *taps.y.recursive;

  return gb_dispatch_sample (plane,[&](auto tag) -> cudaError_t {
        using Sample = decltype (tag);
        switch (plane.channels) {
          case 1:
            if (plane.width % 4 == 0 && plane.height % 4 == 0
                && vector_aligned < Sample > (plane.src, plane.src_pitch))
              return launch_channels < 4, Sample > (plane, x, y, border,
                  stream, true);
            return launch_channels < 1, Sample > (plane, x, y, border,
                stream);
          case 2:
            return launch_channels < 2, Sample > (plane, x, y, border,
                stream);
          case 3:
            return launch_channels < 3, Sample > (plane, x, y, border,
                stream);
          case 4:
            return launch_channels < 4, Sample > (plane, x, y, border,
                stream);
        }
        return cudaErrorInvalidValue;
      });
}

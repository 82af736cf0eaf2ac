/* The edge-aware Gaussian of seed 004 on the GPU: Algorithm C.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The filter is the one of edge_aware.h, whose CPU reference (Algorithm A,
 * double) the tests compare against: for i = 1 .. N a pass along the rows,
 * then one along the columns, each a causal and an anticausal run of the
 * complex-pole recursion on the spacings dt of its own input.
 *
 * Two threads filter one segment of one line, one the causal run and one
 * the anticausal run; a block barrier later they sum their partials
 * (x + Re{u} and Re{v}). As in the seed's Algorithm C, a line of n samples
 * is cut into segments of `segment` samples, and each segment's runs start
 * kappa * sigma samples before it (after it, for the anticausal run) from
 * the zero state, the steady state of the constant signal: the warm-up
 * estimates the state the whole-line run would have at the segment's edge
 * (Algorithm B). A segment that reaches the line's end starts at the
 * border's own start-up instead, as the CPU does.
 *
 * kappa = 0 is exact (Algorithm A's result) without whole lines per
 * thread: a first kernel runs every segment from the zero state and
 * multiplies its steps' E (the state maps through a segment as end =
 * transfer start + zero-run end, per section a complex scalar for every
 * channel, as in Nehab et al.'s block-parallel recursive filters), a
 * second carries the states along each line, and the pass starts every
 * segment from its exact state. Two runs of each segment instead of one
 * run and a warm-up: at sigma 50 about as fast as kappa 2 (whole lines,
 * one thread each, took 6 to 10 ms a frame).
 *
 * What it costs (H100, 2048x2048 RGBA, sigma = sigma_r = 50, kappa 2;
 * docs/performance.md): about 60 M steps of some 200 instructions, 10 of
 * them special-function ones; the steps wait on each other and on their
 * loads, so the SMs must hold many lines at once. So:
 *  - neighbouring threads take neighbouring lines, and every pass walks
 *    lines whose pixels are neighbours in memory: the column passes walk
 *    the frame as it is, the row passes a transposed copy. A row pass
 *    walking the frame itself reads one pixel from each of 32 rows per
 *    load and measured 2.9 times slower than a column pass;
 *  - each pass writes its result in the layout of the pass after it,
 *    through a shared-memory tile in its summing phase (sum_transposed),
 *    so that only the first pass's input is transposed by a kernel of its
 *    own (the others cost about 14 us each at 1080p RGBA); with the line
 *    walks' sample kinds fixed at compile time, RGBA 1080p at kappa 2 went
 *    from 598 to 487 us;
 *  - the two runs of a segment in two threads doubled the lines in flight
 *    without lengthening any warm-up (a pass from 275 to 214 us);
 *  - between passes, the planes of 8-bit frames are 16-bit fixed point
 *    (8.8: a 256th of a level, far below the float filter's own error),
 *    and the partials half precision (summed once, never differenced);
 *    16-bit frames keep float for both.
 * Tried and measured no faster, so not kept: loading four steps ahead
 * instead of one; a warp walking 32 lines through shared-memory tiles
 * (too few warps per SM); warm-ups measured in the transformed domain
 * (the seed's sum of dt >= kappa sigma, shorter at edges: its backward
 * scan cost what it saved, and its error at small kappa was higher);
 * loading four partials at once when summing.
 */
#include "edge_aware.h"
#include "filter.h"
#include "kernels.h"

#include <cuda_fp16.h>
#include <math.h>
#include <stdlib.h>

namespace {

/* What a surface holds, chosen at run time (uniformly for the whole
 * launch), so that only the channel count is a template parameter. */
enum SampleKind
{
  KIND_U8,                      /* the frame's samples */
  KIND_U16,
  KIND_FIXED,                   /* 8.8 unsigned fixed point: planes between
                                 * the passes of 8-bit frames */
  KIND_F32,                     /* ... of 16-bit frames */
  KIND_HALF,                    /* the causal partial of 8-bit frames */
};

__host__ __device__ __forceinline__ int
kind_bytes (SampleKind kind)
{
  return kind == KIND_U8 ? 1 : kind == KIND_F32 ? 4 : 2;
}

/* Pixel (line, position) of a plane at data + line * line_stride +
 * position * position_stride (bytes). */
struct Surface
{
  char *data;
  size_t line_stride;
  size_t position_stride;
  SampleKind kind;
};

__device__ __forceinline__ const char *
pixel_at (const Surface & s, int line, int position)
{
  return s.data + (size_t) line * s.line_stride
      + (size_t) position * s.position_stride;
}

/* Reads the pixel at p as floats, its kind known at compile time (the line
 * walks' loads: a run-time switch there cost instructions every step).
 * kReadOnly: memory that the kernel never writes (ld.global.nc, which the
 * compiler may move above the loop's stores). */
template < int C, SampleKind K, bool kReadOnly > __device__ __forceinline__
    void
load_at (const char *p, float (&x)[C])
{
  if (K == KIND_U8) {
#pragma unroll
    for (int c = 0; c < C; c++)
      x[c] = (float) __ldg ((const unsigned char *) p + c);
  } else if (K == KIND_U16) {
#pragma unroll
    for (int c = 0; c < C; c++)
      x[c] = (float) __ldg ((const unsigned short *) p + c);
  } else if (K == KIND_FIXED) {
    if (C == 4) {               /* internal planes: pixels aligned to their size */
      const ushort4 v = __ldg ((const ushort4 *) p);
      x[0] = v.x * (1.0f / 256.0f);
      x[1 % C] = v.y * (1.0f / 256.0f);
      x[2 % C] = v.z * (1.0f / 256.0f);
      x[3 % C] = v.w * (1.0f / 256.0f);
    } else {
#pragma unroll
      for (int c = 0; c < C; c++)
        x[c] = __ldg ((const unsigned short *) p + c) * (1.0f / 256.0f);
    }
  } else if (K == KIND_HALF) {
    const __half *h = (const __half *) p;
#pragma unroll
    for (int c = 0; c < C; c++)
      x[c] = __half2float (kReadOnly ? __ldg (h + c) : h[c]);
  } else if (C == 4) {
    const float4 v = kReadOnly ? __ldg ((const float4 *) p)
        : *(const float4 *) p;
    x[0] = v.x;
    x[1 % C] = v.y;
    x[2 % C] = v.z;
    x[3 % C] = v.w;
  } else {
#pragma unroll
    for (int c = 0; c < C; c++)
      x[c] = kReadOnly ? __ldg ((const float *) p + c)
          : ((const float *) p)[c];
  }
}

/* The same for a kind chosen at run time (the transposes). */
template < int C, bool kReadOnly > __device__ __forceinline__ void
load_pixel (const Surface & s, int line, int position, float (&x)[C])
{
  const char *p = pixel_at (s, line, position);
  switch (s.kind) {
    case KIND_U8:
      load_at < C, KIND_U8, kReadOnly > (p, x);
      break;
    case KIND_U16:
      load_at < C, KIND_U16, kReadOnly > (p, x);
      break;
    case KIND_FIXED:
      load_at < C, KIND_FIXED, kReadOnly > (p, x);
      break;
    case KIND_HALF:
      load_at < C, KIND_HALF, kReadOnly > (p, x);
      break;
    default:
      load_at < C, KIND_F32, kReadOnly > (p, x);
      break;
  }
}

__device__ __forceinline__ unsigned short
to_fixed (float value)
{
  return (unsigned short) __float2uint_rn (fminf (fmaxf (value * 256.0f,
              0.0f), 65535.0f));
}

template < int C, SampleKind K > __device__ __forceinline__ void
store_at (char *p, const float (&y)[C])
{
  if (K == KIND_U8) {
#pragma unroll
    for (int c = 0; c < C; c++)
      ((uint8_t *) p)[c] = gb_round_u8 (y[c]);
  } else if (K == KIND_U16) {
#pragma unroll
    for (int c = 0; c < C; c++)
      ((uint16_t *) p)[c] = gb_round_u16 (y[c]);
  } else if (K == KIND_FIXED) {
    if (C == 4) {
      *(ushort4 *) p = make_ushort4 (to_fixed (y[0]), to_fixed (y[1 % C]),
          to_fixed (y[2 % C]), to_fixed (y[3 % C]));
    } else {
#pragma unroll
      for (int c = 0; c < C; c++)
        ((unsigned short *) p)[c] = to_fixed (y[c]);
    }
  } else if (K == KIND_HALF) {
#pragma unroll
    for (int c = 0; c < C; c++)
      ((__half *) p)[c] = __float2half_rn (y[c]);
  } else if (C == 4) {
    *(float4 *) p = make_float4 (y[0], y[1 % C], y[2 % C], y[3 % C]);
  } else {
#pragma unroll
    for (int c = 0; c < C; c++)
      ((float *) p)[c] = y[c];
  }
}

template < int C > __device__ __forceinline__ void
store_pixel (const Surface & s, int line, int position, const float (&y)[C])
{
  char *p = (char *) pixel_at (s, line, position);
  switch (s.kind) {
    case KIND_U8:
      store_at < C, KIND_U8 > (p, y);
      break;
    case KIND_U16:
      store_at < C, KIND_U16 > (p, y);
      break;
    case KIND_FIXED:
      store_at < C, KIND_FIXED > (p, y);
      break;
    case KIND_HALF:
      store_at < C, KIND_HALF > (p, y);
      break;
    default:
      store_at < C, KIND_F32 > (p, y);
      break;
  }
}

struct PassArgs
{
  Surface in;
  Surface out;
  Surface causal;               /* x + Re{u}, the causal run's */
  Surface anticausal;           /* Re{v}, the anticausal run's */
  int n;                        /* samples per line */
  int lines;
  int segment;                  /* samples per segment */
  int segments;
  int warmup;                   /* ceil (kappa * sigma); unused at kappa 0 */
  int border_warmup;            /* the CPU's start-up beyond the line's ends */
  GbBorder border;
  float pole_re[2], pole_im[2]; /* p_s = lambda_s / sigma */
  float gain_re[2], gain_im[2]; /* c_s */
  float unit_e_re[2], unit_e_im[2];     /* E_s (1), Q_s (1): flat stretches */
  float unit_q_re[2], unit_q_im[2];
  float ratio2;                 /* (sigma_s / sigma_r)^2 */
  bool out_transposed;          /* out is laid out for the other axis (the
                                 * next pass's layout): its positions, not
                                 * its lines, are neighbours in memory */
  float weight[GB_MAX_CHANNELS];        /* range_scale^2 where the channel steers */
  /* kappa 0 only (else NULL): per direction, segment and line, the
   * segment's transfer (the product of its steps' E, per section) and its
   * state: first the end state of a run from zero, then, carried, the
   * exact state the segment starts from (carry_index). */
  float *transfers;             /* 4 floats: re, im of both sections */
  float *states;                /* 4 C floats: [section][channel][re, im] */
};

/* Entries are laid out line fastest, so that a warp's neighbouring lines
 * read and write neighbouring floats: value k of (direction, segment,
 * line) at ((direction * segments + segment) * count + k) * lines + line. */
__device__ __forceinline__ size_t
carry_index (const PassArgs & a, int direction, int segment, int line,
    int count, int k)
{
  return (((size_t) direction * a.segments + segment) * count + k)
      * a.lines + line;
}

/* A segment's state: value (s C + c) 2 + 0 / 1 is Re / Im of section s,
 * channel c. */
template < int C > __device__ __forceinline__ float *
state_at (const PassArgs & a, int direction, int segment, int line, int k)
{
  return a.states + carry_index (a, direction, segment, line, 4 * C, k);
}

template < int C > __device__ __forceinline__ void
load_state (const PassArgs & a, int direction, int segment, int line,
    float (&re)[2][C], float (&im)[2][C])
{
#pragma unroll
  for (int s = 0; s < 2; s++)
#pragma unroll
    for (int c = 0; c < C; c++) {
      re[s][c] = *state_at < C > (a, direction, segment, line,
          (s * C + c) * 2);
      im[s][c] = *state_at < C > (a, direction, segment, line,
          (s * C + c) * 2 + 1);
    }
}

template < int C > __device__ __forceinline__ void
store_state (const PassArgs & a, int direction, int segment, int line,
    const float (&re)[2][C], const float (&im)[2][C])
{
#pragma unroll
  for (int s = 0; s < 2; s++)
#pragma unroll
    for (int c = 0; c < C; c++) {
      *state_at < C > (a, direction, segment, line, (s * C + c) * 2) =
          re[s][c];
      *state_at < C > (a, direction, segment, line, (s * C + c) * 2 + 1) =
          im[s][c];
    }
}

/* Sample q of a line (its pixel 0 at line_data, kind In), the line
 * extended by the border rule beyond its ends. */
template < int C, SampleKind In > __device__ __forceinline__ void
load_extended (const PassArgs & a, const char *line_data, int q, float (&x)[C])
{
  if (q < 0 || q >= a.n) {
    q = gb_border_index (q, a.n, a.border);
    if (q < 0) {
#pragma unroll
      for (int c = 0; c < C; c++)
        x[c] = 0.0f;
      return;
    }
  }
  load_at < C, In, true > (line_data + (size_t) q * a.in.position_stride, x);
}

/* E_s (dt), Q_s (dt) between two neighbouring pixels. */
struct Step
{
  float e_re[2], e_im[2], q_re[2], q_im[2];
};

template < int C > __device__ __forceinline__ Step
step_between (const PassArgs & a, const float (&x)[C], const float (&y)[C])
{
  Step st;
  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < C; c++) {
    const float d = y[c] - x[c];
    sum += a.weight[c] * d * d;
  }
  if (sum == 0.0f) {            /* dt = 1, as on the CPU (0 * inf is NaN) */
#pragma unroll
    for (int s = 0; s < 2; s++) {
      st.e_re[s] = a.unit_e_re[s];
      st.e_im[s] = a.unit_e_im[s];
      st.q_re[s] = a.unit_q_re[s];
      st.q_im[s] = a.unit_q_im[s];
    }
    return st;
  }
  /* dt and 1 / dt from one reciprocal square root (2 ulp). */
  const float squared = 1.0f + a.ratio2 * sum;
  const float inverse = rsqrtf (squared);
  const float dt = squared * inverse;
#pragma unroll
  for (int s = 0; s < 2; s++) {
    /* exp (-p dt): magnitude and angle apart (as on the CPU), with the
     * special-function unit's exp2, sin and cos. Their error grows with
     * the angle, but the angle is at most 1.2 times the magnitude's
     * exponent (Im p / Re p <= 1.997 / 1.723): where sin is coarse,
     * exp (-Re p dt) has already shrunk it below a thousandth of a level
     * (docs/algorithms.md, section 11). */
    const float magnitude = __expf (-a.pole_re[s] * dt);
    float e_re = 0.0f, e_im = 0.0f;
    if (magnitude > 0.0f) {     /* dt = infinity would give sin (inf) */
      float sine, cosine;
      __sincosf (a.pole_im[s] * dt, &sine, &cosine);
      e_re = magnitude * cosine;
      e_im = -magnitude * sine;
    }
    st.e_re[s] = e_re;
    st.e_im[s] = e_im;
    st.q_re[s] = (a.gain_re[s] * (e_re - 1.0f) - a.gain_im[s] * e_im)
        * inverse;
    st.q_im[s] = (a.gain_re[s] * e_im + a.gain_im[s] * (e_re - 1.0f))
        * inverse;
  }
  return st;
}

/* state = E state + Q d, both sections, every channel. */
template < int C > __device__ __forceinline__ void
advance (const Step & st, const float (&x)[C], const float (&previous)[C],
    float (&re)[2][C], float (&im)[2][C])
{
#pragma unroll
  for (int c = 0; c < C; c++) {
    const float d = x[c] - previous[c];
#pragma unroll
    for (int s = 0; s < 2; s++) {
      const float r = st.e_re[s] * re[s][c] - st.e_im[s] * im[s][c]
          + st.q_re[s] * d;
      const float i = st.e_re[s] * im[s][c] + st.e_im[s] * re[s][c]
          + st.q_im[s] * d;
      re[s][c] = r;
      im[s][c] = i;
    }
  }
}

/* One run of the recursion along a line: from sample q, whose value starts
 * it with the state re, im (zero, carried, or the border's start-up), to
 * sample end (excluded), forwards (kCausal) or backwards. The steps' E and
 * Q only depend on the pair of pixels, not on the direction.
 *  - kStates (kappa 0's first kernel): no output; t multiplies the steps'
 *    E (the run's transfer).
 *  - else the samples from store_from on (causal) or down to it
 *    (anticausal) are written to the line of `partial` (kind Partial):
 *    x + Re{u} for the causal run, Re{v} for the anticausal one.
 * Each pixel is loaded a step ahead, so that its load is in flight while
 * the step before it computes; inside the line the load address moves by
 * one pixel a step, and only samples beyond its ends take the border
 * rule. */
template < int C, SampleKind In, SampleKind Partial, bool kCausal,
    bool kStates > __device__ __forceinline__ void
run_line (const PassArgs & a, int line, int q, int end, int store_from,
    const Surface & partial, float (&re)[2][C], float (&im)[2][C],
    float (&t_re)[2], float (&t_im)[2])
{
  constexpr int step = kCausal ? 1 : -1;
  const char *line_data = a.in.data + (size_t) line * a.in.line_stride;
  const ptrdiff_t in_step = step * (ptrdiff_t) a.in.position_stride;
  const ptrdiff_t out_step = step * (ptrdiff_t) partial.position_stride;
  const char *ahead = line_data + (ptrdiff_t) (q + step)
      * (ptrdiff_t) a.in.position_stride;
  char *out = kStates ? NULL : partial.data + (size_t) line
      * partial.line_stride + (ptrdiff_t) (q + step)
      * (ptrdiff_t) partial.position_stride;
  float previous[C], x[C], next[C];

  load_extended < C, In > (a, line_data, q, previous);
  if (q + step != end) {
    if ((unsigned) (q + step) < (unsigned) a.n)
      load_at < C, In, true > (ahead, next);
    else
      load_extended < C, In > (a, line_data, q + step, next);
  }
  for (q += step; q != end; q += step) {
#pragma unroll
    for (int c = 0; c < C; c++)
      x[c] = next[c];
    ahead += in_step;
    if (q + step != end) {
      if ((unsigned) (q + step) < (unsigned) a.n)
        load_at < C, In, true > (ahead, next);
      else
        load_extended < C, In > (a, line_data, q + step, next);
    }
    const Step st = step_between < C > (a, previous, x);
    advance < C > (st, x, previous, re, im);
    if (kStates) {
#pragma unroll
      for (int s = 0; s < 2; s++) {
        const float r = t_re[s] * st.e_re[s] - t_im[s] * st.e_im[s];
        t_im[s] = t_re[s] * st.e_im[s] + t_im[s] * st.e_re[s];
        t_re[s] = r;
      }
    } else if (kCausal ? q >= store_from : q <= store_from) {
      float y[C];
#pragma unroll
      for (int c = 0; c < C; c++)
        y[c] = (kCausal ? x[c] : 0.0f) + (re[0][c] + re[1][c]);
      store_at < C, Partial > (out, y);
    }
    if (!kStates)
      out += out_step;
#pragma unroll
    for (int c = 0; c < C; c++)
      previous[c] = x[c];
  }
}

/* Lines per block; each has a causal and an anticausal thread. */
constexpr int kBlockLines = 64;
constexpr int kBlockThreads = 2 * kBlockLines;

/* kappa 0, first kernel: each segment's run from the zero state and the
 * product of its E (Nehab et al.'s block-parallel recursive filtering, on
 * the non-uniform spacing: state_end = transfer state_start + zero-run
 * end, per section a complex scalar for every channel). The line's first
 * (causal) and last (anticausal) segments start from the border's start-up,
 * exactly, with transfer 0. Same grid as edge_aware_pass. */
template < int C, SampleKind In > __global__ void
__launch_bounds__ (kBlockThreads)
edge_aware_segment_states (const PassArgs a)
{
  const int groups = (a.lines + kBlockLines - 1) / kBlockLines;
  const int segment = blockIdx.x / groups;
  const int line = (blockIdx.x % groups) * kBlockLines
      + threadIdx.x % kBlockLines;
  const int direction = threadIdx.x < kBlockLines ? 0 : 1;
  const int s0 = segment * a.segment;
  const int s1 = min (s0 + a.segment, a.n);
  float re[2][C], im[2][C];
  float t_re[2] = { 1.0f, 1.0f }, t_im[2] = { 0.0f, 0.0f };

  if (line >= a.lines)
    return;
#pragma unroll
  for (int c = 0; c < C; c++)
    re[0][c] = re[1][c] = im[0][c] = im[1][c] = 0.0f;
  if ((direction == 0 && segment == 0)
      || (direction == 1 && segment == a.segments - 1))
    t_re[0] = t_re[1] = 0.0f;
  if (direction == 0)
    run_line < C, In, KIND_F32, true, true > (a, line,
        segment == 0 ? -a.border_warmup : s0 - 1, s1, 0, a.causal, re, im,
        t_re, t_im);
  else
    run_line < C, In, KIND_F32, false, true > (a, line,
        segment == a.segments - 1 ? a.n - 1 + a.border_warmup : s1, s0 - 1,
        0, a.anticausal, re, im, t_re, t_im);
#pragma unroll
  for (int s = 0; s < 2; s++) {
    a.transfers[carry_index (a, direction, segment, line, 4, 2 * s)] =
        t_re[s];
    a.transfers[carry_index (a, direction, segment, line, 4, 2 * s + 1)] =
        t_im[s];
  }
  store_state < C > (a, direction, segment, line, re, im);
}

/* kappa 0, second kernel: per line, direction, section and channel, the
 * segments in order: start = the state carried so far, carried = transfer
 * carried + end. Each segment's entry is overwritten with the state it
 * starts from. The loads of kCarryBatch segments go out together (they do
 * not depend on the state): one thread per line and direction walking
 * every segment's loads one at a time took about 40 us a 1080p pass,
 * batches of 8 took 11 to 15 us, batches of 32 20 to 28 us. */
constexpr int kCarryBatch = 8;

template < int C > __global__ void
edge_aware_carry (const PassArgs a)
{
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int line = t % a.lines;
  const int c = t / a.lines % C;
  const int section = t / a.lines / C % 2;
  const int direction = t / a.lines / C / 2;
  const int k_re = (section * C + c) * 2;
  float re = 0.0f, im = 0.0f;

  if (direction > 1)
    return;
  for (int k0 = 0; k0 < a.segments; k0 += kCarryBatch) {
    float t_re[kCarryBatch], t_im[kCarryBatch];
    float z_re[kCarryBatch], z_im[kCarryBatch];
#pragma unroll
    for (int b = 0; b < kCarryBatch; b++) {
      const int k = k0 + b;
      const int segment = direction == 0 ? k : a.segments - 1 - k;
      if (k < a.segments) {
        t_re[b] = a.transfers[carry_index (a, direction, segment, line, 4,
                2 * section)];
        t_im[b] = a.transfers[carry_index (a, direction, segment, line, 4,
                2 * section + 1)];
        z_re[b] = *state_at < C > (a, direction, segment, line, k_re);
        z_im[b] = *state_at < C > (a, direction, segment, line, k_re + 1);
      }
    }
#pragma unroll
    for (int b = 0; b < kCarryBatch; b++) {
      const int k = k0 + b;
      const int segment = direction == 0 ? k : a.segments - 1 - k;
      if (k >= a.segments)
        break;
      const float r = t_re[b] * re - t_im[b] * im + z_re[b];
      *state_at < C > (a, direction, segment, line, k_re) = re;
      *state_at < C > (a, direction, segment, line, k_re + 1) = im;
      im = t_re[b] * im + t_im[b] * re + z_im[b];
      re = r;
    }
  }
}

/* The summing phase of a pass whose output is laid out for the next pass
 * (the other axis): the block's lines x segment go through a shared-memory
 * tile, kTileRun positions at a time, read with neighbouring lines side by
 * side and written with neighbouring positions side by side, so that both
 * move runs of memory. This is the transpose that a kernel of its own
 * would otherwise do between the passes, reading and writing every pixel
 * once more (about 14 us a pass on 1080p RGBA). */
constexpr int kTileRun = 16;

template < int C, SampleKind Partial > __device__ __forceinline__ void
sum_transposed (const PassArgs & a, int first_line, int s0, int s1)
{
  /* A line's floats in the tile: an odd count, so that the lines' entries
   * fall in different banks. */
  constexpr int kLineFloats = kTileRun * C + 1;
  __shared__ float tile[kBlockLines * kLineFloats];
  const int t = threadIdx.x;
  const int sum_line = t % kBlockLines;
  constexpr int kSumPositions = kBlockThreads / kBlockLines;
  constexpr int kWriteLines = kBlockThreads / kTileRun;

  for (int run = s0; run < s1; run += kTileRun) {
    const int count = min (kTileRun, s1 - run);
    if (first_line + sum_line < a.lines) {
      for (int k = t / kBlockLines; k < count; k += kSumPositions) {
        float u[C], v[C];
        load_at < C, Partial, false > (pixel_at (a.causal,
                first_line + sum_line, run + k), u);
        load_at < C, Partial, false > (pixel_at (a.anticausal,
                first_line + sum_line, run + k), v);
#pragma unroll
        for (int c = 0; c < C; c++)
          tile[sum_line * kLineFloats + k * C + c] = u[c] + v[c];
      }
    }
    __syncthreads ();
    for (int j = t / kTileRun; j < kBlockLines; j += kWriteLines) {
      const int k = t % kTileRun;
      if (k < count && first_line + j < a.lines) {
        float y[C];
#pragma unroll
        for (int c = 0; c < C; c++)
          y[c] = tile[j * kLineFloats + k * C + c];
        store_pixel < C > (a.out, first_line + j, run + k, y);
      }
    }
    __syncthreads ();
  }
}

template < int C, SampleKind In, SampleKind Partial > __global__ void
__launch_bounds__ (kBlockThreads)
edge_aware_pass (const PassArgs a)
{
  const int groups = (a.lines + kBlockLines - 1) / kBlockLines;
  const int segment = blockIdx.x / groups;
  const int line = (blockIdx.x % groups) * kBlockLines
      + threadIdx.x % kBlockLines;
  const bool causal = threadIdx.x < kBlockLines;        /* warp-uniform */
  const bool active = line < a.lines;
  const int s0 = segment * a.segment;
  const int s1 = min (s0 + a.segment, a.n);
  float re[2][C], im[2][C], t_re[2], t_im[2];
#pragma unroll
  for (int c = 0; c < C; c++)
    re[0][c] = re[1][c] = im[0][c] = im[1][c] = 0.0f;

  /* The two runs of a segment are independent until they are summed: two
   * threads run them at once, each the warm-up on its own side (seed 004,
   * Algorithm B, kappa sigma samples; the line's ends start from the
   * border's start-up instead, exactly). */
  if (active && causal) {
    int q = s0 - a.warmup;
    if (a.states && segment > 0) {      /* kappa 0: the carried state */
      q = s0 - 1;
      load_state < C > (a, 0, segment, line, re, im);
    } else if (segment == 0 || q <= -a.border_warmup) {
      q = -a.border_warmup;
    }
    run_line < C, In, Partial, true, false > (a, line, q, s1, s0, a.causal,
        re, im, t_re, t_im);
  } else if (active) {
    int q = s1 - 1 + a.warmup;
    if (a.states && segment < a.segments - 1) {
      q = s1;
      load_state < C > (a, 1, segment, line, re, im);
    } else if (segment == a.segments - 1
        || q >= a.n - 1 + a.border_warmup) {
      q = a.n - 1 + a.border_warmup;
    }
    run_line < C, In, Partial, false, false > (a, line, q, s0 - 1, s1 - 1,
        a.anticausal, re, im, t_re, t_im);
  }

  /* Both partials of the block's lines are written (__syncthreads makes
   * them visible block-wide): out = (x + Re u) + Re v. */
  __syncthreads ();
  if (a.out_transposed) {
    sum_transposed < C, Partial > (a, line - threadIdx.x % kBlockLines, s0,
        s1);
  } else if (active) {
    /* Each thread of a line sums half of the segment; a warp's stores are
     * neighbouring lines, neighbours in memory. */
    const int middle = s0 + (s1 - s0) / 2;
    const int from = causal ? s0 : middle, to = causal ? middle : s1;
    for (int q = from; q < to; q++) {
      float u[C], v[C];
      load_at < C, Partial, false > (pixel_at (a.causal, line, q), u);
      load_at < C, Partial, false > (pixel_at (a.anticausal, line, q), v);
#pragma unroll
      for (int c = 0; c < C; c++)
        u[c] += v[c];
      store_pixel < C > (a.out, line, q, u);
    }
  }
}

/* A plane of the frame: pixel (x, y) at data + y stride_y + x stride_x. */
struct Image
{
  char *data;
  size_t stride_y;
  size_t stride_x;
  SampleKind kind;
};

/* The image as a pass walks it: lines are rows (position x) or columns. */
Surface
lines_of (const Image & image, bool rows)
{
  const Surface s = { image.data, rows ? image.stride_y : image.stride_x,
    rows ? image.stride_x : image.stride_y, image.kind
  };
  return s;
}

/* Copies every pixel (a, b), a < extent_a, b < extent_b, from `in`, whose
 * neighbours along a are neighbours in memory, to `out`, whose neighbours
 * along b are (each given as a Surface whose lines are b and positions a),
 * converting between kinds: a 32 x 32 tile per block through shared
 * memory, so that both sides move runs of neighbouring pixels. */
constexpr int kTile = 32;
constexpr int kTileRows = 8;

template < int C > __global__ void
transpose_plane (const Surface in, const Surface out, int extent_a,
    int extent_b)
{
  __shared__ float tile[C][kTile][kTile + 1];
  const int a0 = blockIdx.x * kTile, b0 = blockIdx.y * kTile;
  constexpr int kPerThread = kTile / kTileRows;
  float x[kPerThread][C];

  /* Every load first, then the tile: the loads are in flight together. */
#pragma unroll
  for (int k = 0; k < kPerThread; k++) {
    const int a = a0 + threadIdx.x, b = b0 + threadIdx.y + k * kTileRows;
    if (a < extent_a && b < extent_b)
      load_pixel < C, true > (in, b, a, x[k]);
  }
#pragma unroll
  for (int k = 0; k < kPerThread; k++)
#pragma unroll
    for (int c = 0; c < C; c++)
      tile[c][threadIdx.y + k * kTileRows][threadIdx.x] = x[k][c];
  __syncthreads ();
  for (int r = threadIdx.y; r < kTile; r += kTileRows) {
    const int a = a0 + r, b = b0 + threadIdx.x;
    if (a < extent_a && b < extent_b) {
      float y[C];
#pragma unroll
      for (int c = 0; c < C; c++)
        y[c] = tile[c][threadIdx.x][r];
      store_pixel < C > (out, b, a, y);
    }
  }
}

/* A line's segment: short enough that a pass has about kPassThreads
 * segments of lines (twice as many threads), and a multiple of
 * kSegmentGrain; with warm-ups (kappa > 0), kWarmupSegment samples at
 * least where that rule gives 32 or more (a frame large enough to fill the
 * GPU with such segments; 512x512 RGBA at kappa 2 took 244 us with
 * segments of 48 against 182 us with the rule's 16). Shorter segments run
 * their warm-ups (kappa > 0) or carry their states (kappa 0) more often;
 * longer ones leave SMs idle. Measured on the
 * H100 with the passes writing the next pass's layout (sigma = sigma_r =
 * 50, RGBA; docs/performance.md), us for segments of 16 / 24 / 32 / 48 /
 * 64 / 96:
 *   1080p kappa 0:  418 / 441 / 410 / 448 / 492 / 628 (32 chosen)
 *   1080p kappa 2:  652 / 566 / 486 / 457 / 465 / 557 (48 chosen)
 *   2048^2 kappa 0: 786 / 772 / 756 / 846 / 775 / 902 (64 chosen, the
 *                   thread rule's; 32 was 2.5 % faster in this one run)
 *   2048^2 kappa 2: 1227 / 961 / 880 / 832 / 706 / 739 (64 chosen)
 * GB_EDGE_AWARE_SEGMENT=<samples> in the environment replaces the length
 * (kSegmentGrain at least, for which the carried states are sized), for
 * measuring others. */
constexpr int kSegmentGrain = 16;
constexpr double kPassThreads = 65536.0;
constexpr int kWarmupSegment = 48;

int
segment_length (int n, int lines, bool warmups)
{
  static int forced = -1;
  int length;

  if (forced < 0) {
    const char *text = getenv ("GB_EDGE_AWARE_SEGMENT");
    forced = text ? atoi (text) : 0;
    if (forced < 0)
      forced = 0;
  }
  if (forced > 0) {
    length = forced;
  } else {
    length = (int) ((double) n * lines / kPassThreads / kSegmentGrain + 0.5)
        * kSegmentGrain;
    if (warmups && length >= 2 * kSegmentGrain && length < kWarmupSegment)
      length = kWarmupSegment;
  }
  if (length < kSegmentGrain)
    length = kSegmentGrain;
  return length < n ? length : n;
}

template < int C, SampleKind In, SampleKind Partial > cudaError_t
launch_pass_kinds (const PassArgs & a, cudaStream_t stream)
{
  const long blocks = (long) (a.lines + kBlockLines - 1) / kBlockLines
      * a.segments;
  if (a.causal.kind != Partial || a.anticausal.kind != Partial)
    return cudaErrorInvalidValue;
  if (a.states) {               /* kappa 0: carry the exact states first */
    const int threads = 128;
    edge_aware_segment_states < C, In > <<<(unsigned) blocks,
        kBlockThreads, 0, stream>>> (a);
    edge_aware_carry < C > <<<(4 * C * a.lines + threads - 1) / threads,
        threads, 0, stream>>> (a);
  }
  edge_aware_pass < C, In, Partial > <<<(unsigned) blocks, kBlockThreads, 0,
      stream>>> (a);
  return cudaGetLastError ();
}

/* The kinds a pass meets: 8-bit frames read their samples (a pass on the
 * frame as it is) or 8.8 planes, with half partials; 16-bit frames their
 * samples or float planes, with float partials. */
template < int C > cudaError_t
launch_pass_c (const PassArgs & a, cudaStream_t stream)
{
  switch (a.in.kind) {
    case KIND_U8:
      return launch_pass_kinds < C, KIND_U8, KIND_HALF > (a, stream);
    case KIND_FIXED:
      return launch_pass_kinds < C, KIND_FIXED, KIND_HALF > (a, stream);
    case KIND_U16:
      return launch_pass_kinds < C, KIND_U16, KIND_F32 > (a, stream);
    case KIND_F32:
      return launch_pass_kinds < C, KIND_F32, KIND_F32 > (a, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

cudaError_t
launch_pass (const PassArgs & a, int channels, cudaStream_t stream)
{
  switch (channels) {
    case 1:
      return launch_pass_c < 1 > (a, stream);
    case 2:
      return launch_pass_c < 2 > (a, stream);
    case 3:
      return launch_pass_c < 3 > (a, stream);
    default:
      return launch_pass_c < 4 > (a, stream);
  }
}

template < int C > cudaError_t
launch_transpose_c (const Surface & in, const Surface & out, int extent_a,
    int extent_b, cudaStream_t stream)
{
  const dim3 blocks ((extent_a + kTile - 1) / kTile,
      (extent_b + kTile - 1) / kTile);
  transpose_plane < C > <<<blocks, dim3 (kTile, kTileRows), 0,
      stream>>> (in, out, extent_a, extent_b);
  return cudaGetLastError ();
}

/* Copies `from` into `to` (the same width x height pixels), one with
 * neighbours along x next to each other in memory and the other along y;
 * from_rows: `from` is the one along x. */
cudaError_t
copy_transposing (const Image & from, const Image & to, bool from_rows,
    int width, int height, int channels, cudaStream_t stream)
{
  /* a: the axis along which `from` is contiguous; lines are b. */
  const Surface in = lines_of (from, from_rows);
  const Surface out = lines_of (to, from_rows);
  const int extent_a = from_rows ? width : height;
  const int extent_b = from_rows ? height : width;

  switch (channels) {
    case 1:
      return launch_transpose_c < 1 > (in, out, extent_a, extent_b, stream);
    case 2:
      return launch_transpose_c < 2 > (in, out, extent_a, extent_b, stream);
    case 3:
      return launch_transpose_c < 3 > (in, out, extent_a, extent_b, stream);
    default:
      return launch_transpose_c < 4 > (in, out, extent_a, extent_b, stream);
  }
}

/* The pitch of the planes between passes: whole 256-byte blocks, an odd
 * number of them, so that a column of pixels (what a transpose's block or
 * a pass's step touches) does not keep landing in the same memory channel
 * as a power-of-two pitch would make it. */
size_t
plane_pitch (size_t row_bytes)
{
  const size_t blocks = (row_bytes + 255) / 256;
  return (blocks | 1) * 256;
}

/* The pass's constants for the kernel (float) from the CPU's (double). */
void
set_constants (PassArgs * a, const GbEdgeAwarePass * constants)
{
  for (int s = 0; s < 2; s++) {
    /* The unit step, in double as the CPU computes every step. */
    const double magnitude = exp (-constants->pole_re[s]);
    const double e_re = magnitude * cos (constants->pole_im[s]);
    const double e_im = -magnitude * sin (constants->pole_im[s]);
    a->pole_re[s] = (float) constants->pole_re[s];
    a->pole_im[s] = (float) constants->pole_im[s];
    a->gain_re[s] = (float) constants->gain_re[s];
    a->gain_im[s] = (float) constants->gain_im[s];
    a->unit_e_re[s] = (float) e_re;
    a->unit_e_im[s] = (float) e_im;
    a->unit_q_re[s] = (float) (constants->gain_re[s] * (e_re - 1.0)
        - constants->gain_im[s] * e_im);
    a->unit_q_im[s] = (float) (constants->gain_re[s] * e_im
        + constants->gain_im[s] * (e_re - 1.0));
  }
}

}                               /* namespace */

/* One of the four planes of the scratch (two between passes, the causal
 * and the anticausal partials), in either orientation. */
static size_t
scratch_slot (int width, int height, int channels, int bytes_per_sample)
{
  const size_t pixel = (size_t) channels * (bytes_per_sample == 2 ? 4 : 2);
  const size_t rows = plane_pitch ((size_t) width * pixel) * height;
  const size_t columns = plane_pitch ((size_t) height * pixel) * width;
  return rows > columns ? rows : columns;
}

/* kappa 0's carried transfers and states (PassArgs), for the most
 * segments a pass can have. */
static size_t
carry_floats (int width, int height, int channels)
{
  const size_t longest = (size_t) (width > height ? width : height);
  const size_t segments = (longest + kSegmentGrain - 1) / kSegmentGrain;
  return 2 * segments * longest * (4 + 4 * (size_t) channels);
}

size_t
gb_edge_aware_scratch_bytes (int width, int height, int channels,
    int bytes_per_sample)
{
  return 4 * scratch_slot (width, height, channels, bytes_per_sample)
      + carry_floats (width, height, channels) * sizeof (float);
}

cudaError_t
gb_launch_edge_aware (const GbDevicePlane & plane,
    const GbPlaneFilter * filter, GbBorder border, cudaStream_t stream)
{
  const int channels = plane.channels;
  const int width = plane.width, height = plane.height;
  const SampleKind sample = plane.bytes_per_sample == 2 ? KIND_U16 : KIND_U8;
  const SampleKind between = plane.bytes_per_sample == 2 ? KIND_F32
      : KIND_FIXED;
  const SampleKind partial = plane.bytes_per_sample == 2 ? KIND_F32
      : KIND_HALF;
  const size_t sample_pixel = (size_t) channels * plane.bytes_per_sample;
  const double sigmas[2] = { filter->x.sigma, filter->y.sigma };
  const size_t slot = scratch_slot (width, height, channels,
      plane.bytes_per_sample);
  char *buffers[2] = { (char *) plane.edge_aware_scratch,
    (char *) plane.edge_aware_scratch + slot
  };
  char *partials = (char *) plane.edge_aware_scratch + 2 * slot;
  char *anticausal_partials = partials + slot;
  /* kappa 0: the carried states after the four planes (16-byte aligned:
   * slots are whole 256-byte blocks). */
  float *transfers = (float *) (anticausal_partials + slot);
  float *states = transfers + carry_floats (width, height, channels)
      / (4 + 4 * (size_t) channels) * 4;
  const Image source = { (char *) plane.src, plane.src_pitch, sample_pixel,
    sample
  };
  const Image destination = { (char *) plane.dst, plane.dst_pitch,
    sample_pixel, sample
  };
  /* Where the pass before left its result: the source at first. */
  Image current = source;
  bool current_rows = false;    /* neighbours along y are next to each other
                                 * in memory (a row pass's layout) */
  int current_buffer = -1;      /* -1: the source */
  /* The passes in order: axis 0 (rows) or 1 (columns), and iteration. */
  struct
  {
    int axis, iteration;
  } order[2 * GB_MAX_ITERATIONS];
  int passes = 0;
  cudaError_t err;

  if (channels < 1 || channels > GB_MAX_CHANNELS || !plane.edge_aware_scratch)
    return cudaErrorInvalidValue;
  for (int i = 1; i <= filter->iterations; i++)
    for (int axis = 0; axis < 2; axis++)
      if (sigmas[axis] > 0.0) {
        order[passes].axis = axis;
        order[passes++].iteration = i;
      }

  /* A plane of `kind` at data: for a row pass (rows), neighbours along y
   * next to each other in memory, else along x. */
  auto layout =[&](char *data, SampleKind kind, bool rows) {
    const size_t pixel = (size_t) channels * kind_bytes (kind);
    const size_t pitch = plane_pitch ((size_t) (rows ? height : width)
        * pixel);
    const Image image = { data, rows ? pixel : pitch, rows ? pitch : pixel,
      kind
    };
    return image;
  };

  for (int pass = 0; pass < passes; pass++) {
    /* Row passes walk a transposed plane: its rows' pixels are then
     * neighbours across the lines, as the columns' are in the frame. Each
     * pass writes its result in the layout of the pass after it (the
     * frame's, after the last), so that only the first pass's input is
     * transposed by a kernel of its own. */
    const int axis = order[pass].axis;
    const bool rows = axis == 0;
    const bool last = pass == passes - 1;
    const bool next_rows = !last && order[pass + 1].axis == 0;
    int out_buffer;
    GbEdgeAwarePass constants;
    PassArgs a;
    Image out;

    if (current_rows != rows) {
      /* current (the source) is laid out for the other axis: along x for a
       * row pass (from_rows), along y for a column pass */
      const int free_buffer = current_buffer == 0 ? 1 : 0;
      const Image to = layout (buffers[free_buffer], between, rows);
      err = copy_transposing (current, to, rows, width, height, channels,
          stream);
      if (err != cudaSuccess)
        return err;
      current = to;
      current_rows = rows;
      current_buffer = free_buffer;
    }
    out_buffer = current_buffer == 0 ? 1 : 0;
    out = last ? destination : layout (buffers[out_buffer], between,
        next_rows);
    a.in = lines_of (current, rows);
    a.out = lines_of (out, rows);
    /* The destination is laid out along x, as a column pass walks. */
    a.out_transposed = last ? rows : next_rows != rows;
    a.causal = lines_of (layout (partials, partial, rows), rows);
    a.anticausal = lines_of (layout (anticausal_partials, partial, rows),
        rows);
    a.n = rows ? width : height;
    a.lines = rows ? height : width;

    gb_edge_aware_pass (gb_edge_aware_sigma (sigmas[axis],
            filter->iterations, order[pass].iteration), &constants);
    set_constants (&a, &constants);
    a.warmup = (int) ceil (filter->kappa * constants.sigma);
    a.border_warmup = border == GB_BORDER_MIRROR ? constants.warmup : 1;
    a.segment = segment_length (a.n, a.lines, filter->kappa > 0.0);
    a.segments = (a.n + a.segment - 1) / a.segment;
    a.border = border;
    {
      const double ratio = sigmas[axis] / filter->sigma_range;
      a.ratio2 = (float) (ratio * ratio);
    }
    for (int c = 0; c < GB_MAX_CHANNELS; c++)
      a.weight[c] = (filter->distance_mask >> c) & 1
          ? (float) (filter->range_scale * filter->range_scale) : 0.0f;

    if (filter->kappa > 0.0) {
      a.transfers = NULL;
      a.states = NULL;
    } else {
      a.transfers = transfers;
      a.states = states;
    }
    err = launch_pass (a, channels, stream);
    if (err != cudaSuccess)
      return err;
    current = out;
    current_rows = next_rows;
    current_buffer = out_buffer;
  }
  return cudaSuccess;
}

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
 * One thread filters one segment of one line (a row or a column: the same
 * kernel walks either, through a line stride and a position stride). As
 * in the seed's Algorithm C, a line of n samples is cut into segments of
 * `segment` samples, and each segment's runs start kappa * sigma samples
 * before it (after it, for the anticausal run) from the zero state, the
 * steady state of the constant signal: the warm-up estimates the state the
 * whole-line run would have at the segment's edge (Algorithm B). A segment
 * that reaches the line's end starts at the border's own start-up instead,
 * as the CPU does, so kappa = 0 (one segment per line) is Algorithm A.
 *
 * Neighbouring threads take neighbouring lines: a column pass reads whole
 * rows at a time (coalesced); a row pass reads one pixel of 32 rows, and
 * the next pixels from the same cache lines (L1).
 *
 * Passes read and write float planes (the plane's intermediate buffer and
 * a second one of the same size, GbDevicePlane.edge_aware_scratch), except
 * the first, which reads the samples, and the last, which rounds into them.
 * The causal run stores x + Re{u} (in the output when it is float, else in
 * the free float plane), and the anticausal run adds Re{v} to it: the same
 * thread writes and then reads each sample, so no synchronisation is
 * needed.
 */
#include "edge_aware.h"
#include "filter.h"
#include "kernels.h"

#include <math.h>
#include <stdlib.h>

namespace {

/* The sample types a pass reads or writes, chosen at run time (uniformly
 * for the whole launch), so that only the channel count is a template
 * parameter. */
enum SampleKind { KIND_U8, KIND_U16, KIND_F32 };

struct PassArgs
{
  const char *in;
  size_t in_line, in_position;  /* byte strides: next line, next sample */
  SampleKind in_kind;
  char *out;
  size_t out_line, out_position;
  SampleKind out_kind;
  float *causal;                /* x + Re{u}, float, between the runs */
  size_t causal_line, causal_position;
  int n;                        /* samples per line */
  int lines;
  int segment;                  /* samples per segment (n: one segment) */
  int segments;
  int warmup;                   /* ceil (kappa * sigma) */
  int border_warmup;            /* the CPU's start-up beyond the line's ends */
  GbBorder border;
  float pole_re[2], pole_im[2]; /* p_s = lambda_s / sigma */
  float gain_re[2], gain_im[2]; /* c_s */
  float unit_e_re[2], unit_e_im[2];     /* E_s (1), Q_s (1): flat stretches */
  float unit_q_re[2], unit_q_im[2];
  float ratio2;                 /* (sigma_s / sigma_r)^2 */
  float weight[GB_MAX_CHANNELS];        /* range_scale^2 where the channel steers */
};

template < int C > __device__ __forceinline__ void
load_pixel (const PassArgs & a, int line, int q, float (&x)[C])
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
  const char *p = a.in + (size_t) line * a.in_line
      + (size_t) q * a.in_position;
  switch (a.in_kind) {
    case KIND_U8:
#pragma unroll
      for (int c = 0; c < C; c++)
        x[c] = (float) ((const uint8_t *) p)[c];
      break;
    case KIND_U16:
#pragma unroll
      for (int c = 0; c < C; c++)
        x[c] = (float) ((const uint16_t *) p)[c];
      break;
    default:
      if (C == 4) {             /* float planes are 16-byte aligned per pixel */
        const float4 v = *(const float4 *) p;
        x[0] = v.x;
        x[1 % C] = v.y;
        x[2 % C] = v.z;
        x[3 % C] = v.w;
      } else {
#pragma unroll
        for (int c = 0; c < C; c++)
          x[c] = ((const float *) p)[c];
      }
      break;
  }
}

template < int C > __device__ __forceinline__ void
store_pixel (const PassArgs & a, int line, int q, const float (&y)[C])
{
  char *p = a.out + (size_t) line * a.out_line + (size_t) q * a.out_position;
  switch (a.out_kind) {
    case KIND_U8:
#pragma unroll
      for (int c = 0; c < C; c++)
        ((uint8_t *) p)[c] = gb_round_u8 (y[c]);
      break;
    case KIND_U16:
#pragma unroll
      for (int c = 0; c < C; c++)
        ((uint16_t *) p)[c] = gb_round_u16 (y[c]);
      break;
    default:
      if (C == 4) {
        *(float4 *) p = make_float4 (y[0], y[1 % C], y[2 % C], y[3 % C]);
      } else {
#pragma unroll
        for (int c = 0; c < C; c++)
          ((float *) p)[c] = y[c];
      }
      break;
  }
}

template < int C > __device__ __forceinline__ float *
causal_at (const PassArgs & a, int line, int q)
{
  return (float *) ((char *) a.causal + (size_t) line * a.causal_line
      + (size_t) q * a.causal_position);
}

/* E_s (dt), Q_s (dt) between two neighbouring pixels a and b. */
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
  const float dt = sqrtf (1.0f + a.ratio2 * sum);
  const float inverse = 1.0f / dt;
#pragma unroll
  for (int s = 0; s < 2; s++) {
    /* exp (-p dt): magnitude and angle apart (as on the CPU). */
    const float magnitude = expf (-a.pole_re[s] * dt);
    float e_re = 0.0f, e_im = 0.0f;
    if (magnitude > 0.0f) {     /* dt = infinity would give sin (inf) */
      float sine, cosine;
      sincosf (a.pole_im[s] * dt, &sine, &cosine);
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

template < int C > __global__ void
edge_aware_pass (const PassArgs a)
{
  const long t = (long) blockIdx.x * blockDim.x + threadIdx.x;
  const int line = (int) (t % a.lines);
  const int segment = (int) (t / a.lines);
  if (segment >= a.segments)
    return;
  const int s0 = segment * a.segment;
  const int s1 = min (s0 + a.segment, a.n);
  float previous[C], x[C], re[2][C], im[2][C];

  /* Causal run, from the warm-up's start (or the border's start-up). */
  int q = s0 - a.warmup;
  if (segment == 0 || q <= -a.border_warmup)
    q = -a.border_warmup;
#pragma unroll
  for (int c = 0; c < C; c++)
    re[0][c] = re[1][c] = im[0][c] = im[1][c] = 0.0f;
  load_pixel < C > (a, line, q, previous);
  for (q++; q < s1; q++) {
    load_pixel < C > (a, line, q, x);
    advance < C > (step_between < C > (a, previous, x), x, previous, re, im);
    if (q >= s0) {
      float *out = causal_at < C > (a, line, q);
#pragma unroll
      for (int c = 0; c < C; c++)
        out[c] = x[c] + (re[0][c] + re[1][c]);
    }
#pragma unroll
    for (int c = 0; c < C; c++)
      previous[c] = x[c];
  }

  /* Anticausal run, from past the segment's end. */
  q = s1 - 1 + a.warmup;
  if (segment == a.segments - 1 || q >= a.n - 1 + a.border_warmup)
    q = a.n - 1 + a.border_warmup;
#pragma unroll
  for (int c = 0; c < C; c++)
    re[0][c] = re[1][c] = im[0][c] = im[1][c] = 0.0f;
  load_pixel < C > (a, line, q, previous);
  for (q--; q >= s0; q--) {
    load_pixel < C > (a, line, q, x);
    advance < C > (step_between < C > (a, x, previous), x, previous, re, im);
    if (q < s1) {
      const float *causal = causal_at < C > (a, line, q);
      float y[C];
#pragma unroll
      for (int c = 0; c < C; c++)
        y[c] = causal[c] + (re[0][c] + re[1][c]);
      store_pixel < C > (a, line, q, y);
    }
#pragma unroll
    for (int c = 0; c < C; c++)
      previous[c] = x[c];
  }
}

/* Threads per block: small, so that a row pass's 128-byte lines of one
 * block stay in L1 while its threads walk them. */
constexpr int kThreads = 128;

/* A line's segment: whole lines for kappa 0. Else the warm-up rounded up
 * to kSegmentGrain (then a segment's runs read about twice its samples),
 * at least kMinSegment. GB_EDGE_AWARE_SEGMENT=<samples> in the environment
 * replaces that length, for the benchmark's search of the best one. */
constexpr int kSegmentGrain = 32;
constexpr int kMinSegment = 32;

int
segment_length (int n, int warmup, double kappa)
{
  static int forced = -1;
  int length;

  if (!(kappa > 0.0))
    return n;
  if (forced < 0) {
    const char *text = getenv ("GB_EDGE_AWARE_SEGMENT");
    forced = text ? atoi (text) : 0;
    if (forced < 0)
      forced = 0;
  }
  length = forced > 0 ? forced
      : (warmup + kSegmentGrain - 1) / kSegmentGrain * kSegmentGrain;
  if (length < kMinSegment && forced <= 0)
    length = kMinSegment;
  return length < n ? length : n;
}

SampleKind
sample_kind (int bytes_per_sample)
{
  return bytes_per_sample == 2 ? KIND_U16 : KIND_U8;
}

template < int C > cudaError_t
launch_pass (const PassArgs & a, cudaStream_t stream)
{
  const long threads = (long) a.lines * a.segments;
  const long blocks = (threads + kThreads - 1) / kThreads;
  edge_aware_pass < C > <<<(unsigned) blocks, kThreads, 0, stream>>> (a);
  return cudaGetLastError ();
}

}                               /* namespace */

cudaError_t
gb_launch_edge_aware (const GbDevicePlane & plane,
    const GbPlaneFilter * filter, GbBorder border, cudaStream_t stream)
{
  const int channels = plane.channels;
  const size_t pixel_bytes = (size_t) channels * plane.bytes_per_sample;
  const size_t float_pixel = (size_t) channels * sizeof (float);
  const size_t float_pitch = plane.intermediate_pitch;
  float *planes[2] = { plane.intermediate, plane.edge_aware_scratch };
  const double sigmas[2] = { filter->x.sigma, filter->y.sigma };
  int passes = 0, pass = 0;

  if (channels < 1 || channels > GB_MAX_CHANNELS || !plane.edge_aware_scratch
      || (size_t) plane.width * float_pixel > float_pitch)
    return cudaErrorInvalidValue;
  for (int axis = 0; axis < 2; axis++)
    passes += sigmas[axis] > 0.0 ? filter->iterations : 0;

  for (int i = 1; i <= filter->iterations; i++) {
    for (int axis = 0; axis < 2; axis++) {
      /* axis 0 walks rows (lines are rows), axis 1 columns. */
      const bool rows = axis == 0;
      const bool first = pass == 0, last = pass == passes - 1;
      const float *previous = planes[(pass + 1) % 2];   /* pass - 1's output */
      GbEdgeAwarePass constants;
      PassArgs a;
      cudaError_t err;

      if (!(sigmas[axis] > 0.0))
        continue;
      gb_edge_aware_pass (gb_edge_aware_sigma (sigmas[axis],
              filter->iterations, i), &constants);

      a.n = rows ? plane.width : plane.height;
      a.lines = rows ? plane.height : plane.width;
      if (first) {
        a.in = (const char *) plane.src;
        a.in_kind = sample_kind (plane.bytes_per_sample);
        a.in_line = rows ? plane.src_pitch : pixel_bytes;
        a.in_position = rows ? pixel_bytes : plane.src_pitch;
      } else {
        a.in = (const char *) previous;
        a.in_kind = KIND_F32;
        a.in_line = rows ? float_pitch : float_pixel;
        a.in_position = rows ? float_pixel : float_pitch;
      }
      if (last) {
        a.out = (char *) plane.dst;
        a.out_kind = sample_kind (plane.bytes_per_sample);
        a.out_line = rows ? plane.dst_pitch : pixel_bytes;
        a.out_position = rows ? pixel_bytes : plane.dst_pitch;
        /* The float plane this pass does not read. */
        a.causal = planes[pass % 2];
      } else {
        a.out = (char *) planes[pass % 2];
        a.out_kind = KIND_F32;
        a.out_line = rows ? float_pitch : float_pixel;
        a.out_position = rows ? float_pixel : float_pitch;
        a.causal = planes[pass % 2];
      }
      a.causal_line = rows ? float_pitch : float_pixel;
      a.causal_position = rows ? float_pixel : float_pitch;

      a.warmup = (int) ceil (filter->kappa * constants.sigma);
      a.border_warmup = border == GB_BORDER_MIRROR ? constants.warmup : 1;
      a.segment = segment_length (a.n, a.warmup, filter->kappa);
      a.segments = (a.n + a.segment - 1) / a.segment;
      a.border = border;
      /* The unit step's coefficients, in double as the CPU computes
       * every step's. */
      for (int s = 0; s < 2; s++) {
        const double magnitude = exp (-constants.pole_re[s]);
        const double e_re = magnitude * cos (constants.pole_im[s]);
        const double e_im = -magnitude * sin (constants.pole_im[s]);
        a.pole_re[s] = (float) constants.pole_re[s];
        a.pole_im[s] = (float) constants.pole_im[s];
        a.gain_re[s] = (float) constants.gain_re[s];
        a.gain_im[s] = (float) constants.gain_im[s];
        a.unit_e_re[s] = (float) e_re;
        a.unit_e_im[s] = (float) e_im;
        a.unit_q_re[s] = (float) (constants.gain_re[s] * (e_re - 1.0)
            - constants.gain_im[s] * e_im);
        a.unit_q_im[s] = (float) (constants.gain_re[s] * e_im
            + constants.gain_im[s] * (e_re - 1.0));
      }
      {
        const double ratio = sigmas[axis] / filter->sigma_range;
        a.ratio2 = (float) (ratio * ratio);
      }
      for (int c = 0; c < GB_MAX_CHANNELS; c++)
        a.weight[c] = (filter->distance_mask >> c) & 1
            ? (float) (filter->range_scale * filter->range_scale) : 0.0f;

      switch (channels) {
        case 1:
          err = launch_pass < 1 > (a, stream);
          break;
        case 2:
          err = launch_pass < 2 > (a, stream);
          break;
        case 3:
          err = launch_pass < 3 > (a, stream);
          break;
        default:
          err = launch_pass < 4 > (a, stream);
          break;
      }
      if (err != cudaSuccess)
        return err;
      pass++;
    }
  }
  return cudaSuccess;
}

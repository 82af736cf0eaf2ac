/* Multi-scale Gaussian on the GPU: six resampling passes (multiscale.h).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every pass is out[o] = sum_t w[phase][t] in[source(first(o) + t)] along
 * rows or along columns, one thread per output sample, taps summed in order
 * as on the CPU. The passes at the frame's size (down along x reads the
 * frame, up along y writes it; templates on the sample type, uint8_t or
 * uint16_t) touch each frame sample once; the others work
 * on images D times smaller along one or both axes, in the plane's float
 * intermediate. Along columns, a warp's threads read neighbouring samples of
 * one row (coalesced); along rows they read samples D * C apart when
 * decimating, which the L1 cache serves.
 */
#include "kernels.h"

namespace {

constexpr int THREADS = 256;

__device__ __forceinline__ int
resample_source (const GbResample & r, int i, GbBorder border)
{
  if (r.frame_border)
    return gb_border_index (i, r.in_length, border);
  return i < 0 ? 0 : i >= r.in_length ? r.in_length - 1 : i;
}

/* Along rows: row y = blockIdx.y, element o * channels + c. Taps whose
 * sources all lie inside the input (nearly every output) skip the border
 * rule and walk a pointer. */
template < typename InT, typename OutT > __global__ void
__launch_bounds__ (THREADS)
resample_rows_kernel (GbResample r, const float *weights, GbBorder border,
    int channels, const InT * in, size_t in_pitch, OutT * out,
    size_t out_pitch)
{
  const int e = blockIdx.x * THREADS + threadIdx.x;
  const int o = e / channels;
  const int c = e - o * channels;
  if (o >= r.out_length)
    return;
  const int phase = r.phases == 1 ? 0 : o % r.phases;
  const int first = (r.phases == 1 ? o : o / r.phases) * r.step
      + r.first[phase];
  const float *w = weights + r.weights + phase * r.taps;
  const InT *row = (const InT *) ((const char *) in
      + (size_t) blockIdx.y * in_pitch);
  float acc = 0.0f;

  if (first >= 0 && first + r.taps <= r.in_length) {
    /* four partial sums: the taps' loads and multiply-adds overlap */
    const InT *x = row + (size_t) first * channels + c;
    float part[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
    int t = 0;
    for (; t + 4 <= r.taps; t += 4, x += 4 * channels)
#pragma unroll
      for (int k = 0; k < 4; k++)
        part[k] += __ldg (&w[t + k]) * (float) __ldg (x + k * channels);
    for (; t < r.taps; t++, x += channels)
      part[0] += __ldg (&w[t]) * (float) __ldg (x);
    acc = (part[0] + part[1]) + (part[2] + part[3]);
  } else {
    for (int t = 0; t < r.taps; t++) {
      const int s = resample_source (r, first + t, border);
      acc += __ldg (&w[t]) * (s < 0 ? 0.0f
          : (float) __ldg (&row[(size_t) s * channels + c]));
    }
  }
  OutT *out_row = (OutT *) ((char *) out + (size_t) blockIdx.y * out_pitch);
  out_row[e] = gb_to_output (acc, out_row);
}

/* Along columns: output row o = blockIdx.y; each thread COLUMN_RUN
 * neighbouring elements, so that a tap's source row and weight serve
 * several; the block's source rows and weights are resolved once, in
 * shared memory. */
constexpr int COLUMN_RUN = 4;
constexpr int MAX_COLUMN_TAPS = 512;

template < typename OutT > __global__ void __launch_bounds__ (THREADS)
resample_columns_kernel (GbResample r, const float *weights,
    GbBorder border, int elements, const float *in, size_t in_pitch,
    OutT * out, size_t out_pitch)
{
  __shared__ const float *sources[MAX_COLUMN_TAPS];
  __shared__ float taps[MAX_COLUMN_TAPS];
  const int o = blockIdx.y;
  const int phase = r.phases == 1 ? 0 : o % r.phases;
  const int first = (r.phases == 1 ? o : o / r.phases) * r.step
      + r.first[phase];

  for (int t = threadIdx.x; t < r.taps; t += THREADS) {
    const int s = resample_source (r, first + t, border);
    sources[t] = s < 0 ? NULL
        : (const float *) ((const char *) in + (size_t) s * in_pitch);
    taps[t] = weights[r.weights + phase * r.taps + t];
  }
  __syncthreads ();

  const int e0 = (blockIdx.x * THREADS + threadIdx.x) * COLUMN_RUN;
  if (e0 >= elements)
    return;
  const int run = min (COLUMN_RUN, elements - e0);
  float acc[COLUMN_RUN] = { 0.0f, 0.0f, 0.0f, 0.0f };
  OutT *out_row = (OutT *) ((char *) out + (size_t) o * out_pitch) + e0;
  /* Whole runs of aligned rows: one 16-byte load per tap, one store. */
  const bool vector = run == COLUMN_RUN && in_pitch % 16 == 0
      && (uintptr_t) in % 16 == 0
      && (uintptr_t) out_row % (COLUMN_RUN * sizeof (OutT)) == 0;
  for (int t = 0; t < r.taps; t++) {
    const float *src = sources[t];
    if (!src)
      continue;                 /* a zero row */
    const float w = taps[t];
    if (vector) {
      const float4 v = __ldg (reinterpret_cast < const float4 * >(src + e0));
      acc[0] += w * v.x;
      acc[1] += w * v.y;
      acc[2] += w * v.z;
      acc[3] += w * v.w;
    } else {
#pragma unroll
      for (int k = 0; k < COLUMN_RUN; k++)
        if (k < run)
          acc[k] += w * __ldg (src + e0 + k);
    }
  }
  if (vector) {
    gb_store4 (out_row, make_float4 (acc[0], acc[1], acc[2], acc[3]));
    return;
  }
#pragma unroll
  for (int k = 0; k < COLUMN_RUN; k++)
    if (k < run)
      out_row[k] = gb_to_output (acc[k], out_row);
}

template < typename InT, typename OutT > void
rows (const GbResample & r, const float *weights, GbBorder border,
    int channels, int n_rows, const InT * in, size_t in_pitch, OutT * out,
    size_t out_pitch, cudaStream_t stream)
{
  const int elements = r.out_length * channels;
  const dim3 grid ((elements + THREADS - 1) / THREADS, n_rows);
  resample_rows_kernel <<<grid, THREADS, 0, stream>>> (r, weights, border,
      channels, in, in_pitch, out, out_pitch);
}

template < typename OutT > void
columns (const GbResample & r, const float *weights, GbBorder border,
    int elements, const float *in, size_t in_pitch, OutT * out,
    size_t out_pitch, cudaStream_t stream)
{
  const int threads = (elements + COLUMN_RUN - 1) / COLUMN_RUN;
  const dim3 grid ((threads + THREADS - 1) / THREADS, r.out_length);
  resample_columns_kernel <<<grid, THREADS, 0, stream>>> (r, weights, border,
      elements, in, in_pitch, out, out_pitch);
}

}                               /* namespace */

cudaError_t
gb_launch_multiscale (const GbDevicePlane & plane, const GbTaps & taps,
    GbBorder border, cudaStream_t stream)
{
  const GbMultiscalePlan & plan = *taps.multiscale;
  const float *w = taps.multiscale_table;
  const int c = plane.channels;
  const size_t small_row = (size_t) plan.small_width * c;
  const size_t frame_row = (size_t) plane.width * c;
  const size_t wide_rows = (size_t) plane.height * small_row;
  const size_t wide_columns = (size_t) plan.small_height * frame_row;
  /* The same layout as the CPU's (cpu_backend.c, multiscale_scratch). */
  float *wide = plane.multiscale_scratch;
  float *small = wide + (wide_rows > wide_columns ? wide_rows : wide_columns);
  float *small2 = small + (size_t) plan.small_height * small_row;
  const size_t small_pitch = small_row * sizeof (float);
  const size_t frame_pitch = frame_row * sizeof (float);

  if (plan.down_y.taps > MAX_COLUMN_TAPS || plan.blur_y.taps > MAX_COLUMN_TAPS
      || plan.up_y.taps > MAX_COLUMN_TAPS)
    return cudaErrorInvalidValue;
  /* A plan for another window would read and write past this one. */
  if (!plan.factor_x || !plan.factor_y || plan.down_x.in_length != plane.width
      || plan.down_y.in_length != plane.height)
    return cudaErrorInvalidValue;

  /* Only the passes at the frame read or write samples: one instance each
   * per sample type. */
  const cudaError_t err = gb_dispatch_sample (plane,[&] (auto tag) {
        using Sample = decltype (tag);
        rows (plan.down_x, w, border, c, plane.height,
            (const Sample *) plane.src, plane.src_pitch, wide, small_pitch,
            stream);
        return cudaSuccess;
      });
  if (err != cudaSuccess)
    return err;
  columns (plan.down_y, w, border, (int) small_row, wide, small_pitch, small,
      small_pitch, stream);
  rows (plan.blur_x, w, border, c, plan.small_height, (const float *) small,
      small_pitch, small2, small_pitch, stream);
  columns (plan.blur_y, w, border, (int) small_row, small2, small_pitch,
      small, small_pitch, stream);
  rows (plan.up_x, w, border, c, plan.small_height, (const float *) small,
      small_pitch, wide, frame_pitch, stream);
  return gb_dispatch_sample (plane,[&] (auto tag) {
        using Sample = decltype (tag);
        columns (plan.up_y, w, border, (int) frame_row, wide, frame_pitch,
            (Sample *) plane.dst, plane.dst_pitch, stream);
        return cudaGetLastError ();
      });
}

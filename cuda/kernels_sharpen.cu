/* Unsharp mask: the blurred region becomes in + amount (in - blurred).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A pass after the blur, over the plane's region only: it reads the source
 * and the blurred destination and rewrites the destination. The arithmetic
 * is spelled with __fmul_rn/__fadd_rn so nvcc cannot contract it into an
 * FMA: the CPU reference (compiled with -ffp-contract=off) computes the
 * same float operations, and the two agree bit for bit.
 */
#include "kernels.h"

namespace {

constexpr int SHARPEN_THREADS_X = 128;
constexpr int SHARPEN_THREADS_Y = 2;

template < typename Sample > __global__ void
sharpen_kernel (GbDevicePlane plane, float amount)
{
  const int row_samples = plane.width * plane.channels;
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (s >= row_samples || y >= plane.height)
    return;

  const float in = (float) gb_src_row < Sample > (plane, y)[s];
  Sample *out = gb_dst_row < Sample > (plane, y) + s;
  const float blurred = (float) *out;
  *out = gb_round_sample < Sample > (__fadd_rn (in, __fmul_rn (amount,
              __fsub_rn (in, blurred))));
}

}                               /* namespace */

cudaError_t
gb_launch_sharpen (const GbDevicePlane & plane, float amount,
    cudaStream_t stream)
{
  const dim3 block (SHARPEN_THREADS_X, SHARPEN_THREADS_Y);
  const dim3 grid ((plane.width * plane.channels + block.x - 1) / block.x,
      (plane.height + block.y - 1) / block.y);

  if (plane.width <= 0 || plane.height <= 0)
    return cudaSuccess;
  return gb_dispatch_sample (plane,[&](auto tag) {
        using Sample = decltype (tag);
        sharpen_kernel < Sample > <<<grid, block, 0, stream>>> (plane, amount);
        return cudaGetLastError ();});
}

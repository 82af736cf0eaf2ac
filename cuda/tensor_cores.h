/* The tensor-core operations the fused kernels share (internal; CUDA C++
 * only): kernels_fused.cu, kernels_fused_registers.cu and
 * kernels_multiscale.cu.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * mma.sync with k = 16 exists from compute capability 8.0 on: below,
 * GB_HAVE_MMA is undefined and the fused kernels compile to empty bodies
 * (gb_fused_available() keeps them from being launched). The k = 8 shape
 * exists from 7.5, every GPU we build for (GB_HAVE_MMA_K8): the multi-scale
 * interpolation uses that one alone, and the multi-scale down walk takes
 * k = 16 where it exists and k = 8 below.
 */
#ifndef GAUSSBLUR_TENSOR_CORES_H
#define GAUSSBLUR_TENSOR_CORES_H

#include <cuda_fp16.h>
#include <stdint.h>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define GB_HAVE_MMA 1
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
#define GB_HAVE_MMA_K8 1
#endif

/* w as an fp16 high part and the fp16 rounding of what it leaves: 22 bits
 * of w in two fp16 operands (the multi-scale passes' weights, on the host
 * and on the device). */
__host__ __device__ __forceinline__ void
gb_split_half (float w, __half & high, __half & low)
{
  high = __float2half_rn (w);
  low = __float2half_rn (w - __half2float (high));
}

#ifdef GB_HAVE_MMA_K8
/* Two floats as an fp16 pair, lo in the low half (the lower k or n). */
__device__ __forceinline__ uint32_t
gb_pack_half2 (float lo, float hi)
{
  __half2 h = __floats2half2_rn (lo, hi);
  return *reinterpret_cast < uint32_t * >(&h);
}

/* Bytes a and b of w (0 .. 3) as the fp16 pair (1024 + byte a, 1024 +
 * byte b), exactly: 0x64XX is 1024 + XX in fp16. The kernels subtract the
 * offset, or fold it into an accumulator's start value. */
__device__ __forceinline__ uint32_t
gb_bytes_plus_1024 (uint32_t w, int a, int b)
{
  return __byte_perm (w, 0x64646464u, a | 4 << 4 | b << 8 | 4 << 12);
}

/* Bytes a and b of w as the fp16 pair (byte a - bias, byte b - bias),
 * exactly (a whole bias from 0 to 1024). */
__device__ __forceinline__ uint32_t
gb_bytes_less (uint32_t w, int a, int b, float bias)
{
  const uint32_t h = gb_bytes_plus_1024 (w, a, b);
  const __half2 v = __hsub2 (*reinterpret_cast < const __half2 * >(&h),
      __float2half2_rn (1024.0f + bias));
  return *reinterpret_cast < const uint32_t * >(&v);
}

/* d += a b, m16n8k8: A is two registers, B one. */
__device__ __forceinline__ void
gb_mma_1688 (float (&d)[4], uint32_t a0, uint32_t a1, uint32_t b)
{
  asm ("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 "
      "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
      :"+f" (d[0]), "+f" (d[1]), "+f" (d[2]), "+f" (d[3])
      :"r" (a0), "r" (a1), "r" (b));
}

/* d = a b + c, every element of the accumulator starting at c. */
__device__ __forceinline__ void
gb_mma_1688_from (float (&d)[4], uint32_t a0, uint32_t a1, uint32_t b,
    float c)
{
  asm ("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 "
      "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%7,%7,%7};\n"
      :"=f" (d[0]), "=f" (d[1]), "=f" (d[2]), "=f" (d[3])
      :"r" (a0), "r" (a1), "r" (b), "f" (c));
}
#endif

#ifdef GB_HAVE_MMA
/* d += a b, m16n8k16, fp16 operands, fp32 accumulators. Not volatile:
 * independent chains may interleave. */
__device__ __forceinline__ void
gb_mma_16816 (float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
    uint32_t b1)
{
  asm ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
      "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      :"+f" (d[0]), "+f" (d[1]), "+f" (d[2]), "+f" (d[3])
      :"r" (a[0]), "r" (a[1]), "r" (a[2]), "r" (a[3]), "r" (b0), "r" (b1));
}
#endif

#endif /* GAUSSBLUR_TENSOR_CORES_H */

/* Border handling and 8/16-bit rounding, shared by the CPU reference and the CUDA
 * kernels so both read the same samples and round the same way.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef GAUSSBLUR_SAMPLING_H
#define GAUSSBLUR_SAMPLING_H

#include "gaussblur.h"

#ifdef __CUDACC__
#define GB_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define GB_HOST_DEVICE static inline
#endif

/* Maps a coordinate that may lie outside [0, n) to the one whose sample is
 * read, or -1 when the sample is zero (GB_BORDER_ZERO). Works for any
 * distance outside the frame, so any radius works on any size. */
GB_HOST_DEVICE int
gb_border_index (int i, int n, GbBorder border)
{
  if (i >= 0 && i < n)
    return i;
  if (border == GB_BORDER_ZERO)
    return -1;
  if (border == GB_BORDER_CLAMP || n == 1)
    return i < 0 ? 0 : n - 1;
  /* Mirror without repeating the edge (period 2n - 2): -1 -> 1, n -> n - 2. */
  {
    int period = 2 * n - 2;
    int m = i % period;
    if (m < 0)
      m += period;
    return m < n ? m : period - m;
  }
}

/* gb_border_index for a coordinate at most one reflection away, -(n - 1)
 * <= i <= 2 n - 2 (a kernel's apron on a plane wider than the apron):
 * no division, a few instructions, so that the kernels' edge strips cost
 * about what the others do (docs/performance.md, "Edges"). */
GB_HOST_DEVICE int
gb_border_index_near (int i, int n, GbBorder border)
{
  if (border == GB_BORDER_ZERO)
    return (unsigned) i < (unsigned) n ? i : -1;
  if (border == GB_BORDER_CLAMP || n == 1)
    return i < 0 ? 0 : i > n - 1 ? n - 1 : i;
  i = i < 0 ? -i : i;
  return i < 2 * n - 2 - i ? i : 2 * n - 2 - i;
}

#ifdef __CUDA_ARCH__
/* A value already biased by + 0.5 as a sample, in one instruction: the
 * GPU's float-to-integer conversion truncates and saturates to the type's
 * range (NaN to 0). The kernels that fold the 0.5 into an accumulator's
 * start value call these directly. */
__device__ __forceinline__ uint8_t
gb_truncate_u8 (float biased)
{
  unsigned short u;
  asm ("cvt.rzi.u8.f32 %0, %1;":"=h" (u):"f" (biased));
  return (uint8_t) u;
}

/* The same in the 32-bit register cvt writes, zero-extended: packed with
 * byte permutes, it takes no mask, where widening a uint8_t again took a
 * LOP3 a byte. */
__device__ __forceinline__ uint32_t
gb_truncate_u8_word (float biased)
{
  uint32_t u;
  asm ("cvt.rzi.u8.f32 %0, %1;":"=r" (u):"f" (biased));
  return u;
}

/* The low bytes of four such words, a first: three byte permutes. */
__device__ __forceinline__ uint32_t
gb_pack_bytes (uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
  return __byte_perm (__byte_perm (a, b, 0x0040), __byte_perm (c, d, 0x0040),
      0x5410);
}

/* The low bytes of two such words in the low half (the high half is a's
 * byte 1 twice: zero for a zero-extended word; the callers store the low
 * half). */
__device__ __forceinline__ uint32_t
gb_pack_two_bytes (uint32_t a, uint32_t b)
{
  return __byte_perm (a, b, 0x1140);
}

__device__ __forceinline__ uint16_t
gb_truncate_u16 (float biased)
{
  unsigned short u;
  asm ("cvt.rzi.u16.f32 %0, %1;":"=h" (u):"f" (biased));
  return u;
}
#endif

/* Round to nearest and saturate: the one 8-bit conversion of the project. */
GB_HOST_DEVICE uint8_t
gb_round_u8 (float value)
{
  float r = value + 0.5f;
#ifdef __CUDA_ARCH__
  return gb_truncate_u8 (r);
#else
  if (r <= 0.0f)
    return 0;
  if (r >= 255.0f)
    return 255;
  return (uint8_t) (int) r;
#endif
}

/* The same for 16-bit samples. */
GB_HOST_DEVICE uint16_t
gb_round_u16 (float value)
{
  float r = value + 0.5f;
#ifdef __CUDA_ARCH__
  return gb_truncate_u16 (r);
#else
  if (r <= 0.0f)
    return 0;
  if (r >= 65535.0f)
    return 65535;
  return (uint16_t) (int) r;
#endif
}

#ifdef __CUDACC__
/* The conversion for a sample type (the CUDA kernels). */
template < typename Sample > GB_HOST_DEVICE Sample gb_round_sample (float value);
template <> GB_HOST_DEVICE uint8_t
gb_round_sample < uint8_t > (float value)
{
  return gb_round_u8 (value);
}

template <> GB_HOST_DEVICE uint16_t
gb_round_sample < uint16_t > (float value)
{
  return gb_round_u16 (value);
}
#endif

#endif /* GAUSSBLUR_SAMPLING_H */

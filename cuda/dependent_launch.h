/* Programmatic dependent launch: the second and later kernels of one
 * plane's chain (the fused two-pass form's column pass, multiscale's
 * passes after the first, separable's column pass) start while the kernel
 * before them finishes.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A kernel launched through gb_launch_after_kernel() on a GPU of compute
 * capability 9.0 or later is launched while the kernel before it in the
 * stream runs: its blocks are scheduled once every block of that kernel
 * has called gb_let_next_kernel_start () or exited, and run up to
 * gb_wait_for_previous_kernel (). Without the call they start as the
 * previous kernel's blocks exit, which still saves the gap between the two
 * kernels; with it, early in the previous kernel, they also take the SM
 * slots its finished blocks free while its last ones run. Which kernels
 * call it was measured (docs/performance.md, "Passes that start early"):
 * early blocks hold SM slots and were slower behind some passes. Everything
 * before the wait runs early: index arithmetic, and weights that were on
 * the device before the chain began. The wait returns once the previous
 * kernel has completed and its writes are visible, so every read of what
 * the chain produces (and every write) must come after it. In a kernel not
 * launched that way (a chain's first) the wait returns at once; on older
 * GPUs, and in code compiled for them, neither call does anything.
 */
#ifndef GAUSSBLUR_DEPENDENT_LAUNCH_H
#define GAUSSBLUR_DEPENDENT_LAUNCH_H

#include <cuda_runtime.h>

#include <atomic>
#include <utility>

/* Early in a kernel: the next one's blocks may be scheduled now (where it
 * was launched through gb_launch_after_kernel). */
__device__ __forceinline__ void
gb_let_next_kernel_start (void)
{
#if defined (__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile ("griddepcontrol.launch_dependents;":::"memory");
#endif
}

/* Before a kernel's first access to memory the chain writes. */
__device__ __forceinline__ void
gb_wait_for_previous_kernel (void)
{
#if defined (__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile ("griddepcontrol.wait;":::"memory");
#endif
}

/* Whether the current device runs dependent launches (compute capability
 * 9.0 or later), asked once per device. */
inline bool
gb_dependent_launch_supported (void)
{
  constexpr int CACHED = 16;
  static std::atomic < int > known[CACHED];     /* 0 unknown, 1 no, 2 yes */
  int device, major = 0;

  if (cudaGetDevice (&device) != cudaSuccess) {
    cudaGetLastError ();
    return false;
  }
  if (device >= 0 && device < CACHED) {
    const int k = known[device].load (std::memory_order_relaxed);
    if (k != 0)
      return k == 2;
  }
  if (cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor,
          device) != cudaSuccess) {
    cudaGetLastError ();
    return false;
  }
  if (device >= 0 && device < CACHED)
    known[device].store (major >= 9 ? 2 : 1, std::memory_order_relaxed);
  return major >= 9;
}

/* kernel<<<grid, block, shared, stream>>> (args...), allowed to overlap the
 * stream's previous kernel where overlap is asked for and the device
 * supports it. Returns the launch's error. */
template < typename... Params, typename... Args > cudaError_t
gb_launch_after_kernel (bool overlap, void (*kernel) (Params...), dim3 grid,
    dim3 block, size_t shared, cudaStream_t stream, Args &&... args)
{
  if (!overlap || !gb_dependent_launch_supported ()) {
    kernel <<<grid, block, shared, stream>>> (std::forward < Args >
        (args)...);
    return cudaGetLastError ();
  }
  cudaLaunchAttribute early[1];
  early[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  early[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config = { };
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = shared;
  config.stream = stream;
  config.attrs = early;
  config.numAttrs = 1;
  return cudaLaunchKernelEx (&config, kernel, std::forward < Args >
      (args)...);
}

#endif

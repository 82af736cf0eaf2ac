/* The current device's multiprocessors and shared memory limits.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "device_limits.h"

namespace
{

std::atomic < int > cached_sms[GB_CACHED_DEVICES];
std::atomic < int > cached_block_shared[GB_CACHED_DEVICES];

/* One device attribute, cached in cache[device] where the device has a
 * slot (a value of 0 is never cached: it is asked again). */
cudaError_t
cached_attribute (std::atomic < int > *cache, cudaDeviceAttr attribute,
    int device, int *value)
{
  const bool cached = device >= 0 && device < GB_CACHED_DEVICES;
  *value = cached ? cache[device].load (std::memory_order_relaxed) : 0;
  if (*value > 0)
    return cudaSuccess;
  const cudaError_t err = cudaDeviceGetAttribute (value, attribute, device);
  if (err == cudaSuccess && cached)
    cache[device].store (*value, std::memory_order_relaxed);
  return err;
}

}                               /* namespace */

cudaError_t
gb_device_multiprocessors (int device, int *sms)
{
  return cached_attribute (cached_sms, cudaDevAttrMultiProcessorCount,
      device, sms);
}

cudaError_t
gb_current_multiprocessors (int *sms)
{
  int device;
  const cudaError_t err = cudaGetDevice (&device);
  return err == cudaSuccess ? gb_device_multiprocessors (device, sms) : err;
}

cudaError_t
gb_allow_dynamic_shared (const void *kernel, size_t bytes)
{
  if (bytes <= 47 * 1024)
    return cudaSuccess;
  int device, block_shared;
  cudaFuncAttributes attributes;
  cudaError_t err = cudaGetDevice (&device);
  if (err == cudaSuccess)
    err = cached_attribute (cached_block_shared,
        cudaDevAttrMaxSharedMemoryPerBlockOptin, device, &block_shared);
  if (err == cudaSuccess)
    err = cudaFuncGetAttributes (&attributes, kernel);
  if (err != cudaSuccess)
    return err;
  if (bytes <= (size_t) attributes.maxDynamicSharedSizeBytes)
    return cudaSuccess;         /* the default's, or raised before */
  /* The same value from every caller: what the block may have beside the
   * kernel's static shared memory. */
  const int room = block_shared - (int) attributes.sharedSizeBytes;
  if (bytes > (size_t) room)
    return cudaErrorInvalidValue;
  return cudaFuncSetAttribute (kernel,
      cudaFuncAttributeMaxDynamicSharedMemorySize, room);
}

cudaError_t
gb_cached_resident_blocks (std::atomic < int > *slot, const void *kernel,
    int threads, size_t shared, bool max_shared_carveout, int *resident)
{
  *resident = slot ? slot->load (std::memory_order_relaxed) : 0;
  if (*resident > 0)
    return cudaSuccess;
  cudaError_t err = max_shared_carveout ? cudaFuncSetAttribute (kernel,
      cudaFuncAttributePreferredSharedMemoryCarveout,
      cudaSharedmemCarveoutMaxShared) : cudaSuccess;
  if (err == cudaSuccess)
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessor (resident, kernel,
        threads, shared);
  if (err == cudaSuccess && slot && *resident > 0)
    slot->store (*resident, std::memory_order_relaxed);
  return err;
}

/* What the kernels ask of the current device: its multiprocessors, and
 * room for a kernel's dynamic shared memory (internal; CUDA C++ only).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef GAUSSBLUR_DEVICE_LIMITS_H
#define GAUSSBLUR_DEVICE_LIMITS_H

#include <cuda_runtime.h>
#include <stddef.h>

#include <atomic>

/* Devices whose values the kernels' files cache (an ordinal past them is
 * asked every time). */
#define GB_CACHED_DEVICES 16

/* The multiprocessors of `device` (of the current device), asked once per
 * device and cached: no attribute query on the per-frame path. */
cudaError_t gb_device_multiprocessors (int device, int *sms);
cudaError_t gb_current_multiprocessors (int *sms);

/* Lets `kernel` launch with `bytes` of dynamic shared memory on the
 * current device, or returns cudaErrorInvalidValue where the device cannot
 * give a block that much (cudaGetLastError () is left clear; another
 * error, of a query or of the setting, is returned as it is). Up to 47 KB
 * it returns at once: the default 48 KB less the kernel's static shared
 * memory, which is under 1 KB in every kernel here. Past that, the
 * kernel's limit is raised to all the device allows a block beside its
 * static shared memory, never set lower: two element instances launching
 * one kernel with different sizes from two threads cannot undo each
 * other's setting between its call and their launch. Asked on every
 * launch, because the setting belongs to a context and a process may blur
 * in several on one device. */
cudaError_t gb_allow_dynamic_shared (const void *kernel, size_t bytes);

/* How many blocks of `kernel` (`threads` a block, `shared` bytes of
 * dynamic shared memory) a multiprocessor of the current device holds:
 * asked once and kept in *slot (the caller's per-device, per-kernel cache;
 * NULL: asked every time), so that the query stays off the per-frame path.
 * With `max_shared_carveout` the kernel is first set to prefer all the
 * shared memory a multiprocessor has (room for several blocks), before the
 * one query that counts them. */
cudaError_t gb_cached_resident_blocks (std::atomic < int > *slot,
    const void *kernel, int threads, size_t shared, bool max_shared_carveout,
    int *resident);

#endif /* GAUSSBLUR_DEVICE_LIMITS_H */

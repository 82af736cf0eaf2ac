/* The CUDA backend (internal to the core; C interface, no CUDA types).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Owns its CUDA streams and, per plane, a device input, intermediate and
 * output buffer (an input and output per frame in flight), kept between
 * frames and reallocated only when the geometry changes.
 */
#ifndef GAUSSBLUR_CUDA_BACKEND_H
#define GAUSSBLUR_CUDA_BACKEND_H

#include "filter.h"
#include "sigma_map.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct GbCuda GbCuda;

/* GB_ERROR_NO_DEVICE when no usable device (or driver) exists. */
GbStatus gb_cuda_create (int device_id, GbCuda ** cuda, GbError * error);
GbStatus gb_cuda_configure (GbCuda * cuda, const GbGeometry * geometry,
    GbError * error);
/* Keeps the plane filters (one per plane of the configured geometry,
 * filter.h) and uploads their weights and multi-scale tables
 * (stream-ordered, no allocation). Called after every gb_cuda_configure,
 * before the next frame. */
GbStatus gb_cuda_set_filters (GbCuda * cuda, const GbPlaneFilter * filters,
    GbError * error);
/* Host frame in, host frame out: upload, blur, download, wait
 * (submit and complete; no other frame may be in flight). */
GbStatus gb_cuda_process_host (GbCuda * cuda, const GbImage * src,
    const GbImage * dst, GbAlgorithm algorithm, GbBorder border,
    GbError * error);
/* Pipelined host frames (gb_blur_submit, gb_blur_complete): up to
 * `frames` in flight, each with its own device buffers (allocated here for
 * the configured geometry, and by gb_cuda_configure after). None may be in
 * flight. */
GbStatus gb_cuda_set_frames_in_flight (GbCuda * cuda, int frames,
    GbError * error);
/* Queues the upload, blur and download of a host frame and returns. */
GbStatus gb_cuda_submit_host (GbCuda * cuda, const GbImage * src,
    const GbImage * dst, GbAlgorithm algorithm, GbBorder border,
    GbError * error);
/* Waits (sleeping on an event) for the oldest frame in flight. May run on
 * another thread than the submitting one, at the same time. */
GbStatus gb_cuda_complete_host (GbCuda * cuda, GbError * error);
unsigned gb_cuda_frames_in_flight (const GbCuda * cuda);
/* Enqueues the blur of device images on the backend's stream without waiting
 * (the benchmark times this; src and dst are device pointers). */
GbStatus gb_cuda_enqueue (GbCuda * cuda, const GbImage * device_src,
    const GbImage * device_dst, GbAlgorithm algorithm, GbBorder border,
    GbError * error);
GbStatus gb_cuda_synchronize (GbCuda * cuda, GbError * error);
/* Waits for everything enqueued so far, the thread sleeping on an event
 * (blocking sync) rather than spinning: the end of a frame. */
GbStatus gb_cuda_wait (GbCuda * cuda, GbError * error);
/* The same for a short frame (in device memory): the thread polls the end
 * of the frame for up to GB_CUDA_POLL_US (cuda_backend.cu), yielding
 * between queries, and only then sleeps; after frames longer than that
 * (a GPU busy with other streams) it polls less and less. */
GbStatus gb_cuda_wait_short (GbCuda * cuda, GbError * error);
/* The superposition's sigma map (gb_blur_set_sigma_map): the configured
 * frame's plane 0 size, stride in floats, uploaded on the backend's stream;
 * kept until the next one or a geometry change. From pageable memory, map
 * may be reused once this returns; from page-locked memory (the handle's)
 * the copy runs asynchronously: synchronise before writing map again. */
GbStatus gb_cuda_set_sigma_map (GbCuda * cuda, const float *map,
    size_t stride, GbError * error);
/* Writes a regions map into the memory given to gb_cuda_set_sigma_regions,
 * when the backend first needs it. */
typedef GbStatus (*GbSigmaMapFill) (void *data, GbError * error);

/* A regions map (gb_sigma_map_regions of these regions and feather, map
 * as gb_cuda_set_sigma_map takes it): planes where the regions' plan
 * applies (superposition_regions.h) take the decomposed sum and never need
 * the map, which is uploaded only for the others, with the first frame
 * that needs it: map must stay as it is until then, or until the next
 * call. With a fill function, map need not hold the map yet: the backend
 * calls fill (data) before it first reads it, from gb_cuda_enqueue or the
 * host-frame calls, and never when every plane's plan applies. regions are
 * copied. */
GbStatus gb_cuda_set_sigma_regions (GbCuda * cuda, const float *map,
    size_t stride, const GbSigmaRegion * regions, int n_regions,
    double feather, GbSigmaMapFill fill, void *fill_data, GbError * error);
/* The backend's cudaStream_t, for the benchmark's events. */
void *gb_cuda_stream (GbCuda * cuda);
unsigned gb_cuda_allocation_count (const GbCuda * cuda);
/* Page-locked host memory (see gb_host_alloc in gaussblur.h). */
GbStatus gb_cuda_host_alloc (size_t bytes, void **memory, GbError * error);
void gb_cuda_host_free (void *memory);
void gb_cuda_destroy (GbCuda * cuda);

/* The largest intermediate (bytes) of the fused filter's two-pass form:
 * planes whose intermediate is larger take the shared-memory kernel.
 * Half the device's L2 unless a test sets it (0: never two-pass). */
void gb_cuda_set_fused_two_pass_limit (GbCuda * cuda, size_t bytes);

/* Whether the fused filter may blur a frame's planes in one launch where
 * they qualify (gb_launch_fused_registers_planes; the default), or each
 * plane with launches of its own on its stream: the benchmark times both. */
void gb_cuda_set_planes_in_one_launch (GbCuda * cuda, int one_launch);
/* Whether the last frame enqueued had its planes blurred in one launch:
 * for the tests, which check that the frames that qualify take it. */
int gb_cuda_last_frame_in_one_launch (const GbCuda * cuda);

/* The algorithm GB_ALGORITHM_AUTO means on the GPU for plane `plane` of
 * this frame geometry, blurred by `filter` (the handle asks for its largest
 * plane; the choice depends on the plane's size, channels and samples, and
 * on whether the frame's chroma is subsampled on both axes). */
GbAlgorithm gb_cuda_auto_algorithm (const GbCuda * cuda,
    const GbPlaneFilter * filter, const GbGeometry * geometry, int plane);

/* Gather or scatter, whichever is faster on the GPU for a sigma map on
 * frames of this plane (the handle asks for plane 0). */
GbAlgorithm gb_cuda_auto_superposition (const GbCuda * cuda,
    const GbPlaneFilter * filter, const GbPlaneGeometry * plane,
    int bytes_per_sample);

#ifdef __cplusplus
}
#endif
#endif

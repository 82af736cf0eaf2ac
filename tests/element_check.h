/* Helpers shared by the cudagaussblur element tests (test_element.c on the
 * CPU backend, test_element_gpu.c on CUDA): frames of any accepted format,
 * the CPU core's reference blur of a frame, an independent double-precision
 * one, frame comparison over every plane, and the property changes both
 * make while playing.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Failed checks in here fail the calling test, as GstCheck assertions do
 * anywhere in the test process.
 */
#ifndef ELEMENT_CHECK_H
#define ELEMENT_CHECK_H

#include <gst/gst.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "gaussblur.h"

#define ELEMENT "cudagaussblur"

/* The layout of a format at a size (every plane). */
GstVideoInfo video_info (const gchar * format, gint width, gint height);

/* Caps for such a frame at 30 fps (the harness wants a framerate). */
GstCaps *video_caps (const gchar * format, gint width, gint height);

/* info->size random bytes from seed, row padding included: the blur must
 * neither read nor write the padding. */
GstBuffer *random_frame (const GstVideoInfo * info, guint32 seed);

/* The core's view of a frame of info: one image per plane, sized, with the
 * channels and subsampling of the plane's first component (as the element
 * makes it); 16-bit formats have 2 bytes a sample. A plane's alpha_mask
 * marks its channels that hold no colour component: alpha, and padding
 * (RGBx's x). */
GbGeometry geometry_for (const GstVideoInfo * info);

/* The CPU core's blur of input with params, in a new buffer laid out as info
 * says: what the element must output. */
GstBuffer *reference_blur (GstBuffer * input, const GstVideoInfo * info,
    const GbParams * params);

/* The same with the sigma map map (frame resolution, info->width floats a
 * row; NULL: none, as reference_blur): the CPU core's superposition (auto:
 * scatter on the CPU; gather, which the GPU may run, makes the same
 * sums). */
GstBuffer *reference_blur_with_map (GstBuffer * input,
    const GstVideoInfo * info, const gfloat * map, const GbParams * params);

/* The output of blur (a handle made for info and set up) for input, in a
 * new buffer laid out as info says. */
GstBuffer *blur_frame (GbBlur * blur, GstBuffer * input,
    const GstVideoInfo * info);

/* Largest difference between two frames' samples over every plane (16-bit
 * samples compared as such), row padding ignored. */
gint max_difference (GstBuffer * a, GstBuffer * b, const GstVideoInfo * info);

/* The same, and each plane's own largest difference in differences[plane]. */
gint max_plane_differences (GstBuffer * a, GstBuffer * b,
    const GstVideoInfo * info, gint differences[GST_VIDEO_MAX_PLANES]);

/* The part of plane `plane` that params change, in its own pixels: the
 * region widened to the coarsest plane's grid, scaled by the plane's
 * subsampling and clipped (the whole plane without a region; may be
 * empty). Written from the documented semantics, not the core's code. */
GbRect plane_region (const GstVideoInfo * info, guint plane,
    const GbParams * params);

/* Largest difference between a and b outside each plane's plane_region():
 * 0 between input and output, as only the region may change. */
gint max_difference_outside (GstBuffer * a, GstBuffer * b,
    const GstVideoInfo * info, const GbParams * params);

/* An independent reference: the blur (and unsharp mask) of input with
 * params, by direct 2D convolution in double precision, straight from the
 * documented semantics (per-plane sigma and radius scaled by the
 * subsampling, border rule, region), rounded once. It models the truncated
 * convolutions (naive, shared, separable, fused), not the recursive and
 * multi-scale approximations. */
GstBuffer *exact_blur (GstBuffer * input, const GstVideoInfo * info,
    const GbParams * params);

/* How far the CPU core's float arithmetic may stray from exact_blur: one
 * level (the final rounding of a sum that float puts on the other side of
 * .5), plus, when sharpening, amount times the half level by which the
 * rounded blur it sharpens from may miss the exact one. */
gint exact_tolerance (const GbParams * params);

/* What a handle of backend (device -1) made for frames of info runs with
 * params: GB_ALGORITHM_AUTO resolved as that backend resolves it. */
GbAlgorithm effective_algorithm (GbBackend backend, const GstVideoInfo * info,
    const GbParams * params);

/* TRUE when exact_blur models what the CPU core runs for params on info
 * (auto resolved as the core resolves it). */
gboolean exact_blur_applies (const GstVideoInfo * info,
    const GbParams * params);

/* GbParams in tables (static, so no gb_params_init), with designated
 * initializers: fields left out are 0, which is the default of all but
 * those of PARAMS_DEFAULTS. A field added to GbParams whose default
 * (gb_params_init) is not 0 goes there too: test_params_tables in
 * test_element.c checks that PARAMS_STEP matches gb_params_make. */
#define PARAMS_DEFAULTS \
  .sigma_range = GB_DEFAULT_SIGMA_RANGE, .iterations = GB_DEFAULT_ITERATIONS, \
  .kappa = GB_DEFAULT_KAPPA, .normalize = 1

/* Sigma x and y, radius, algorithm and border (the enums' suffixes), sharpen
 * and region x, y, width, height; the edge-aware settings at their
 * defaults. */
#define PARAMS_STEP(sx, sy, taps, alg, bord, amount, rx, ry, rw, rh) \
  { .sigma_x = (sx), .sigma_y = (sy), .radius = (taps), \
    .algorithm = GB_ALGORITHM_ ## alg, .border = GB_BORDER_ ## bord, \
    .sharpen = (amount), .region = { (rx), (ry), (rw), (rh) }, \
    PARAMS_DEFAULTS }

/* The edge-aware blur with sigma x and y, radius (unused by the filter,
 * but what the element holds), border, sigma-range, iterations and kappa;
 * no sharpening, no region. */
#define PARAMS_EDGE_AWARE(sx, sy, taps, bord, range, n, k) \
  { .sigma_x = (sx), .sigma_y = (sy), .radius = (taps), \
    .algorithm = GB_ALGORITHM_EDGE_AWARE, .border = GB_BORDER_ ## bord, \
    .sigma_range = (range), .iterations = (n), .kappa = (k), .normalize = 1 }

/* Sets all of params on the element (the edge-aware ones included). */
void element_set_params (GstElement * element, const GbParams * params);

/* A harness of the element on backend ("cpu", "cuda", "auto"), its source
 * caps set to format at width x height. */
GstHarness *element_harness_new (const gchar * backend, const gchar * format,
    gint width, gint height);

/* Pushes input (keeping a ref) and pulls the output, which must be a new
 * buffer: the same buffer back would mean passthrough, not a blur. */
GstBuffer *push_pull (GstHarness * h, GstBuffer * input);

/* Checks one frame: pushes input and checks the output against the CPU
 * core's blur with params, as closely as the test's backend must match it.
 * Returns the output. */
typedef GstBuffer *(*PushAndCheckFunc) (GstHarness * h, GstBuffer * input,
    const GstVideoInfo * info, const GbParams * params);

/* A property set while playing, and what the next frame must show. */
typedef struct
{
  const gchar *property;
  const gchar *value;
  GbParams params;              /* all parameters after the change */
  gboolean output_changes;      /* the pixels must differ from the last frame */
} PropertyStep;

/* Each property changed while playing, one at a time, from sigma 2, radius
 * 0, auto, clamp; every backend must honour them at the next frame. They
 * include sharpening (sigma-x, sigma-y, amount) and a region, and end at
 * sigma 4, radius 2, separable, mirror, no sharpening, no region. */
extern const PropertyStep common_property_steps[];
extern const guint n_common_property_steps;

/* Applies steps in turn to h, checking the frame after each with
 * push_and_check; where a step says so, that frame must differ from the one
 * before. last is the frame before the first step; it is unreffed and the
 * frame after the last step returned. */
GstBuffer *check_property_steps (GstHarness * h, GstBuffer * input,
    const GstVideoInfo * info, GstBuffer * last, const PropertyStep * steps,
    guint n_steps, PushAndCheckFunc push_and_check);

/* --- allocation: pinned pools (issue 5) --- */

/* The memory type of the element's page-locked memory
 * (GST_CUDA_GAUSS_BLUR_PINNED_MEMORY_TYPE in gst/gstpinnedallocator.h). */
#define PINNED_MEMORY_TYPE "CudaGaussBlurPinnedMemory"

/* The memory type of test_allocator_new()'s memory. */
#define TEST_MEMORY_TYPE "CudaGaussBlurTestMemory"

/* TRUE when buffer has memory and all of it is the element's pinned
 * memory. */
gboolean buffer_is_pinned (GstBuffer * buffer);

/* TRUE when allocator is the element's pinned allocator. */
gboolean allocator_is_pinned (GstAllocator * allocator);

/* Fills buffer, a frame of info mapped as the element maps it (through its
 * video meta where it has one), with random bytes from seed: every row of
 * every plane, row padding included. */
void fill_frame (GstBuffer * buffer, const GstVideoInfo * info, guint32 seed);

/* What the element proposes upstream for the harness's source caps: an
 * allocation query (need-pool) sent from the harness's source pad, answered.
 * Unref it. */
GstQuery *proposed_allocation (GstHarness * h);

/* Whether query offers pinned memory: a pool configured with the pinned
 * allocator, or the pinned allocator as an allocation parameter. */
gboolean allocation_offers_pinned (GstQuery * query);

/* Pool's configuration: TRUE when its allocator is the pinned one; the
 * buffer size it makes (padding included) in size, whether it adds video
 * metas in video_meta (either may be NULL). */
gboolean pool_is_pinned (GstBufferPool * pool, guint * size,
    gboolean * video_meta);

/* A GstAllocator of plain heap memory with a type of its own
 * (TEST_MEMORY_TYPE): a downstream element that has memory of its own. */
GstAllocator *test_allocator_new (void);

/* Makes the harness's sink offer pool in the allocation queries it answers,
 * as a downstream element with a pool of its own does (the harness offers
 * none). Use it with one caps only: the element configures the pool. */
void harness_offer_pool (GstHarness * h, GstBufferPool * pool);

/* Weak references on buffer pools: which of those seen are still alive.
 * Safe from any thread. */
typedef struct _PoolTracker PoolTracker;
PoolTracker *pool_tracker_new (void);
/* Tracks pool (a pool in use: a buffer of it, say, holds a reference). */
void pool_tracker_add (PoolTracker * tracker, GstBufferPool * pool);
guint pool_tracker_seen (PoolTracker * tracker);
guint pool_tracker_live (PoolTracker * tracker);
void pool_tracker_free (PoolTracker * tracker);

/* Adds buffer probes to the sink (input) and source (output) pads of the
 * element named "blur" in pipeline, both called with user_data. */
void add_blur_probes (GstElement * pipeline, GstPadProbeCallback input,
    GstPadProbeCallback output, gpointer user_data);

/* One cycle of pipeline: PLAYING, to EOS (within 60 s; an error message
 * fails the test), back to NULL. cycle numbers the failure messages. */
void play_to_eos (GstElement * pipeline, GstBus * bus, guint cycle);

/* n_cycles times: the pipeline "videotestsrc num-buffers=3 pattern=snow !
 * format at width x height ! element backend=backend sigma=2 ! fakesink"
 * goes to PLAYING, runs to EOS without error and goes back to NULL. Each
 * output frame must be the CPU core's blur of its input (sigma 2, clamp,
 * reference_algorithm) within tolerance; every input and output buffer
 * must be pinned if expect_pinned, none if not; and at NULL every buffer
 * pool that an input or output buffer came from must be gone (the element
 * and its neighbours released them). */
void check_state_cycles (const gchar * backend, const gchar * format,
    gint width, gint height, guint n_cycles, GbAlgorithm reference_algorithm,
    gint tolerance, gboolean expect_pinned);

#endif /* ELEMENT_CHECK_H */

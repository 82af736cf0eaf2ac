/* cudagaussblur core: Gaussian blur of video frames on a CUDA GPU or the CPU.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A plain C API in front of the CUDA kernels and the CPU reference. It knows
 * nothing about GStreamer; the element (gst/) and the tests and benchmark use
 * it alike.
 *
 * Life cycle:
 *   gb_blur_create()        for a frame geometry and a backend
 *   gb_blur_set_params()    sigma, radius, algorithm, border (cheap; any time)
 *   gb_blur_process()       one frame, host memory in and out
 *   gb_blur_set_geometry()  when the caps change (reallocates only if needed)
 *   gb_blur_destroy()
 * or, for host frames in a pipeline, gb_blur_set_frames_in_flight() once,
 * then gb_blur_submit() and gb_blur_complete() in place of
 * gb_blur_process().
 *
 * Every call that can fail returns a GbStatus and, when given a GbError,
 * fills it with a readable message (the CUDA error text included).
 * A handle is not thread-safe: use one handle from one thread at a time
 * (except gb_blur_complete, see there).
 */
#ifndef GAUSSBLUR_H
#define GAUSSBLUR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GB_MAX_PLANES 4
#define GB_MAX_CHANNELS 4
/* Largest radius any algorithm accepts (2 * GB_MAX_RADIUS + 1 taps). */
#define GB_MAX_RADIUS 1024
/* Largest sigma; its automatic radius, ceil(3.5 * sigma), stays within GB_MAX_RADIUS. */
#define GB_MAX_SIGMA 250.0
#define GB_MAX_DIMENSION 16384
/* Edge-aware blur: most iterations, largest warm-up (kappa, in sigmas). */
#define GB_MAX_ITERATIONS 8
#define GB_MAX_KAPPA 16.0
/* Most host frames a handle keeps in flight (gb_blur_set_frames_in_flight). */
#define GB_MAX_FRAMES_IN_FLIGHT 4

typedef enum {
  GB_OK = 0,
  GB_ERROR_INVALID_ARGUMENT,
  GB_ERROR_UNSUPPORTED,
  GB_ERROR_NO_DEVICE,           /* no usable CUDA device (or driver) */
  GB_ERROR_OUT_OF_MEMORY,       /* host or device allocation failed */
  GB_ERROR_CUDA,                /* any other CUDA failure (launch, copy...) */
} GbStatus;

typedef struct {
  GbStatus status;
  char message[256];
} GbError;

typedef enum {
  GB_BACKEND_CPU = 0,
  GB_BACKEND_CUDA,
} GbBackend;

typedef enum {
  GB_ALGORITHM_AUTO = 0,        /* the fastest exact method for the parameters */
  GB_ALGORITHM_NAIVE,           /* direct 2D convolution from global memory */
  GB_ALGORITHM_SHARED,          /* 2D convolution from a shared-memory tile with apron */
  GB_ALGORITHM_SEPARABLE,       /* row pass into the intermediate, then column pass */
  GB_ALGORITHM_FUSED,           /* one kernel: tile + apron read once, rows into
                                 * shared memory, columns from it, one write */
  GB_ALGORITHM_RECURSIVE,       /* 4th-order recursive (Deriche) Gaussian: cost
                                 * independent of sigma; radius is not used */
  GB_ALGORITHM_MULTISCALE,      /* sigma >= 10: prefilter and decimate, blur
                                 * the small image, interpolate; radius is not
                                 * used (multiscale.h) */
  GB_ALGORITHM_EDGE_AWARE,      /* edge-preserving: the domain transform and
                                 * recursive Gaussian of seed 004
                                 * (edge_aware.h); radius is not used, auto
                                 * never picks it */
  GB_ALGORITHM_SUPERPOSITION_GATHER,    /* spatially varying: each pixel's
                                         * sigma from the sigma map
                                         * (gb_blur_set_sigma_map), kernel
                                         * superposition of seed 003
                                         * (superposition.h), each output
                                         * summing its neighbours' kernels */
  GB_ALGORITHM_SUPERPOSITION_SCATTER,   /* the same sums, each input pixel
                                         * spreading its kernel, computed
                                         * once; auto picks one of the two
                                         * when a sigma map is set */
} GbAlgorithm;

#define GB_ALGORITHM_LAST GB_ALGORITHM_SUPERPOSITION_SCATTER

/* 1 for the two kernel-superposition algorithms. */
#define GB_ALGORITHM_IS_SUPERPOSITION(a) \
  ((a) == GB_ALGORITHM_SUPERPOSITION_GATHER \
      || (a) == GB_ALGORITHM_SUPERPOSITION_SCATTER)

typedef enum {
  GB_BORDER_CLAMP = 0,          /* replicate the edge sample: aaa|abcd|ddd */
  GB_BORDER_MIRROR,             /* reflect without repeating the edge: cb|abcd|cb */
  GB_BORDER_ZERO,               /* samples outside the frame are 0 */
} GbBorder;

/* One plane of a frame: its size in pixels, the interleaved samples per
 * pixel, and how it samples the frame. A chroma plane of 4:2:0 video has
 * subsampling 2 both ways: it is blurred with sigma, radius and region
 * divided by 2, so the picture looks as if blurred at full resolution. */
typedef struct {
  int width;
  int height;
  int channels;                 /* 1 (gray) .. 4 (RGBA); every channel is blurred */
  int subsampling_x;            /* 1, 2 or 4 frame pixels per plane pixel; */
  int subsampling_y;            /* 0 means 1 */
  unsigned alpha_mask;          /* bit c: channel c is alpha, blurred like
                                 * the others but not steering the edge-aware
                                 * filter's edges; 0: no alpha */
} GbPlaneGeometry;

typedef struct {
  int n_planes;                 /* 1 .. GB_MAX_PLANES; each plane is blurred on its own */
  int bytes_per_sample;         /* 1 (8-bit) or 2 (16-bit, native byte order) */
  GbPlaneGeometry planes[GB_MAX_PLANES];
} GbGeometry;

/* A frame in memory: per-plane pointer and row stride in bytes.
 * Strides belong to the frame, not the geometry: upstream and downstream
 * buffers of one stream may pad their rows differently. A stride must be at
 * least width * channels * bytes_per_sample. */
typedef struct {
  void *data[GB_MAX_PLANES];
  size_t stride[GB_MAX_PLANES];
} GbImage;

/* A rectangle of the frame, in frame pixels (plane 0's). */
typedef struct {
  int x;
  int y;
  int width;
  int height;
} GbRect;

/* Start from gb_params_init(): it sets every field. */
typedef struct {
  double sigma_x;               /* >= 0 each, not both 0 (both 0 is the */
  double sigma_y;               /* caller's passthrough); 0 leaves that axis as it is */
  int radius;                   /* taps each side on both axes; 0 = automatic,
                                 * gb_auto_radius() of each axis' sigma.
                                 * Superposition: rmax, 1 ..
                                 * GB_SUPERPOSITION_MAX_RADIUS (a larger
                                 * sigma is taken as rmax / 3); 0 =
                                 * ceil(3 x the map's largest sigma),
                                 * capped there */
  GbAlgorithm algorithm;
  GbBorder border;
  double sharpen;               /* 0: blur. > 0: unsharp mask,
                                 * out = in + sharpen * (in - blur), clamped */
  GbRect region;                /* width or height 0: the whole frame. Else only
                                 * the region's pixels (clipped to the frame)
                                 * change; their apron is read from around it */
  /* GB_ALGORITHM_EDGE_AWARE only (edge_aware.h); sigma_x, sigma_y are its
   * spatial sigmas. */
  double sigma_range;           /* > 0, in 8-bit levels (16-bit samples are
                                 * scaled by 1/257); INFINITY: no edge stops
                                 * the blur */
  int iterations;               /* 1 .. GB_MAX_ITERATIONS */
  double kappa;                 /* 0 .. GB_MAX_KAPPA: the GPU cuts lines into
                                 * segments that start kappa * sigma early
                                 * (seed 004's Algorithm C); 0: exact, each
                                 * segment from the state carried across the
                                 * ones before it (Algorithm A's result). The
                                 * CPU is always exact */
  /* Superposition only: 1 divides each output by the weight that reaches
   * it (constant areas stay constant where sigma varies: no halo around a
   * blurred region); 0 is seed 003's plain superposition, which conserves
   * each pixel's mass. gb_params_init sets 1. */
  int normalize;
} GbParams;

/* Defaults of the edge-aware parameters (gb_params_init). */
#define GB_DEFAULT_SIGMA_RANGE 50.0
#define GB_DEFAULT_ITERATIONS 2
#define GB_DEFAULT_KAPPA 2.0

/* Isotropic blur of the whole frame with sigma: automatic radius and
 * algorithm, clamp border, no sharpening; the edge-aware defaults above. */
void gb_params_init (GbParams * params, double sigma);

/* The same with the radius, algorithm and border given. */
GbParams gb_params_make (double sigma, int radius, GbAlgorithm algorithm,
    GbBorder border);

typedef struct GbBlur GbBlur;

/* device_id of gb_blur_create: run in the CUDA context that is current on
 * the calling thread (one the caller created and pushed, such as
 * GStreamer's shared context) rather than the device's primary context.
 * Every later call on the handle, gb_blur_destroy included, must then be
 * made with that same context current; frames in device memory of that
 * context can be blurred in place of host frames (gb_blur_process_device). */
#define GB_DEVICE_CURRENT_CONTEXT (-2)

/* Creates a handle for one geometry. For GB_BACKEND_CUDA, device_id selects the
 * device (-1: the current/default device; or GB_DEVICE_CURRENT_CONTEXT);
 * GB_ERROR_NO_DEVICE when none is usable.
 * The handle starts with sigma 1, automatic radius, auto algorithm, clamp border. */
GbStatus gb_blur_create (GbBackend backend, int device_id,
    const GbGeometry * geometry, GbBlur ** blur, GbError * error);

/* Reallocates the handle's buffers only if the geometry differs from the current one. */
GbStatus gb_blur_set_geometry (GbBlur * blur, const GbGeometry * geometry,
    GbError * error);

/* Recomputes the weights if the parameters changed; never allocates. */
GbStatus gb_blur_set_params (GbBlur * blur, const GbParams * params,
    GbError * error);

/* The per-pixel sigma of the superposition algorithms: a frame-resolution
 * map (plane 0's width x height floats, row y at map + y * stride, stride
 * in floats), sigma in frame pixels, every value finite and >= 0; each
 * plane reads it at its own pixels (superposition.h). Copied: the caller
 * may reuse map at once. NULL: no map, every pixel has GbParams' sigma
 * (sigma_x; the superposition is isotropic per pixel, so sigma_y must then
 * equal it). With a map set, GB_ALGORITHM_AUTO means superposition; the
 * other algorithms ignore the map. Cheap when the map is unchanged from the
 * last call (compared); else it costs a copy here and, on the GPU, an upload
 * with the next frame. Fails (keeping the old map) on a bad value or a size
 * that is not the geometry's. */
GbStatus gb_blur_set_sigma_map (GbBlur * blur, const float *map,
    size_t stride, GbError * error);

/* Blurs every plane of src into dst (host memory; must not overlap). */
GbStatus gb_blur_process (GbBlur * blur, const GbImage * src,
    const GbImage * dst, GbError * error);

/* The same with src and dst in device memory of the handle's context
 * (pitched planes, e.g. a decoder's frames): no copy to or from the host;
 * returns when dst is written (the thread polls for the end of the frame
 * for up to 100 us, yielding the core, then sleeps on an event; less
 * after frames that took longer, as on a GPU that many streams share).
 * GB_ERROR_UNSUPPORTED for a CPU handle. */
GbStatus gb_blur_process_device (GbBlur * blur, const GbImage * src,
    const GbImage * dst, GbError * error);

/* Pipelined host frames: frame k + 1's upload overlaps frame k's download
 * (the two copy engines), and the thread that submits does not wait for
 * the GPU. gb_blur_set_frames_in_flight allocates device buffers for up to
 * `frames` (1 .. GB_MAX_FRAMES_IN_FLIGHT) at once; no frame may be in
 * flight. gb_blur_submit starts a frame like gb_blur_process (the same
 * checks; parameters and sigma map as set when it is called) and returns
 * once it is queued: src must stay unchanged and dst unread until
 * gb_blur_complete has returned for it; GB_ERROR_INVALID_ARGUMENT when
 * `frames` are already in flight. gb_blur_complete waits (the thread
 * sleeps, without spinning) for the oldest frame in flight and reports its
 * failures (the CUDA error of its kernels); GB_ERROR_INVALID_ARGUMENT
 * when none is. It may run on another thread than every other call, at
 * the same time as any but gb_blur_set_geometry,
 * gb_blur_set_frames_in_flight and gb_blur_destroy, which abandon the
 * frames in flight (their dst undefined). gb_blur_process refuses while
 * frames are in flight. The CPU backend blurs each frame in
 * gb_blur_submit; its gb_blur_complete only ends it. */
GbStatus gb_blur_set_frames_in_flight (GbBlur * blur, int frames,
    GbError * error);
GbStatus gb_blur_submit (GbBlur * blur, const GbImage * src,
    const GbImage * dst, GbError * error);
GbStatus gb_blur_complete (GbBlur * blur, GbError * error);
/* Frames submitted and not yet completed. */
int gb_blur_get_frames_in_flight (const GbBlur * blur);

void gb_blur_destroy (GbBlur * blur);

GbBackend gb_blur_get_backend (const GbBlur * blur);

/* The algorithm that GB_ALGORITHM_AUTO resolves to for the current parameters
 * (or the explicitly chosen one). One choice serves every plane of a frame:
 * it is made for the plane with the most samples. */
GbAlgorithm gb_blur_get_effective_algorithm (const GbBlur * blur);

/* Number of device (or host) buffer allocations made since creation; lets the
 * tests check that parameter changes do not reallocate. */
unsigned gb_blur_get_allocation_count (const GbBlur * blur);

/* Page-locked (pinned) host memory, for frames that cross to the GPU: the
 * copies of gb_blur_process() run at the bus's speed from and to it (about
 * 2 to 4 times faster than from ordinary pageable memory) and need no
 * staging. GB_ERROR_NO_DEVICE where no CUDA device is usable; the element
 * then allocates ordinary memory. gb_host_free() takes only what
 * gb_host_alloc() returned (or NULL). Allocating pinned memory is slow
 * (it maps and locks pages): keep and reuse it, as a buffer pool does. */
GbStatus gb_host_alloc (size_t bytes, void **memory, GbError * error);
void gb_host_free (void *memory);

/* --- helpers shared by every backend, the tests and the element --- */

/* ceil(3.5 * sigma), at least 1 (0 for sigma 0: no filtering): the tails
 * cut off hold under 0.047 % of the weight, so the truncation moves an 8-bit
 * 2D blur by less than a quarter of a level (docs/algorithms.md); with the
 * final rounding, the output stays within one level of the untruncated
 * Gaussian. */
int gb_auto_radius (double sigma);

/* The radius of a plane axis whose sigma is `sigma` (already divided by the
 * subsampling): 0 for sigma 0, else the parameters' radius divided by the
 * subsampling (rounded up), or the automatic one. */
int gb_axis_radius (const GbParams * params, double sigma, int subsampling);

/* The frame-level radius of the larger axis (params->radius, or the
 * automatic one of the larger sigma). */
int gb_effective_radius (const GbParams * params);

/* The sampled Gaussian exp(-k^2 / (2 sigma^2)), k = -radius..radius, normalised
 * to sum 1, into weights[0 .. 2 * radius] (sigma 0: the identity). The one
 * kernel-weight function of the project: CPU and CUDA paths both use it. */
void gb_gaussian_weights (double sigma, int radius, float *weights);

/* Validation shared by the handle and the backends; each fills error and
 * returns its status. */
GbStatus gb_geometry_validate (const GbGeometry * geometry, GbError * error);
GbStatus gb_params_validate (const GbParams * params, GbError * error);
/* Every plane of the geometry has data and a stride of at least its row;
 * `which` ("source", "destination") names the image in the message. */
GbStatus gb_image_validate (const GbGeometry * geometry, const GbImage * image,
    const char *which, GbError * error);

/* One plane on its own (its subsampling is not read: the standalone CPU
 * references, edge_aware.h and superposition.h, take sigma in the plane's
 * pixels), a border rule and one image of it; `which` names the image. */
GbStatus gb_plane_image_validate (const GbPlaneGeometry * plane,
    int bytes_per_sample, GbBorder border, const void *data, size_t stride,
    const char *which, GbError * error);

const char *gb_status_name (GbStatus status);
const char *gb_algorithm_name (GbAlgorithm algorithm);
const char *gb_border_name (GbBorder border);

/* Fills error (if not NULL) with printf-style text and returns status. */
GbStatus gb_error_set (GbError * error, GbStatus status, const char *format,
    ...) __attribute__((format (printf, 3, 4)));

#ifdef __cplusplus
}
#endif
#endif /* GAUSSBLUR_H */

/* The CUDA backend: device, stream, persistent buffers, uploads and launches.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "cuda_backend.h"
#include "kernels.h"
#include "superposition_regions.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

/* Bands a host frame is cut into, at most (enqueue_host_banded;
 * GB_CUDA_BANDS may ask for up to this many), and at most by the rule. */
#define GB_CUDA_MAX_BANDS 16
#define GB_CUDA_RULE_MAX_BANDS 8
/* Frames smaller than this are not cut (and have no second output
 * buffer): per-band calls cost more than the overlap saves. Measured
 * through the element on the H100 (element-bench, pool, one run per
 * count; docs/performance.md), 1080p GRAY8 (2 MB) in 1 / 2 / 4 / 8 / 16
 * bands: 6570 / 5634 / 6559 / 6167 / 3771 frames/s. */
#define GB_CUDA_BAND_MIN_BYTES (4u << 20)
/* About this many bytes a band: each band costs a copy call each way, a
 * launch and two events (several microseconds of the thread's time each),
 * and the overlap leaves one band's blur and download after the last
 * upload. Since each upload carries its apron, through the element on the
 * H100 (element-bench, pool, one frame at a time, two runs per count;
 * docs/performance.md), 4 / 8 / 12 / 16 bands: 1080p RGBA 3899, 3888 /
 * 3765, 4041 / 3411, 3397 / 3227, 3077 frames/s, CPU 83-93 / 105-167 /
 * 161-185 / 208-271 us a frame; 4K RGBA (one run) 8 / 12 / 16: 1229 /
 * 1221 / 1090. So 4 bands for 1080p RGBA, 8 for 4K. */
#define GB_CUDA_BAND_BYTES (2u << 20)
/* How long the thread polls for the end of a frame in device memory, at
 * most, before it sleeps on an event: such a frame takes tens of
 * microseconds on the GPU, and waking from the blocking event costs 40 to
 * 60 us more (measured on the H100: 66-87 us a 1080p RGBA frame of 27 us,
 * 35 us polling). */
#define GB_CUDA_POLL_US 100.0
/* After frames that outlast the poll, one in this many polls fully again. */
#define GB_CUDA_POLL_RETRY 32
/* Host frames (gb_cuda_complete_host): the thread sleeps until this long
 * before the frame's expected end, then checks its event every
 * GB_CUDA_CHECK_EVERY_US. Waking from the blocking event instead costs
 * about 47 us (transfer-bench on the H100), a sixth of a 1080p RGBA frame,
 * and polling all along a core (112 us of CPU a frame). */
#define GB_CUDA_WAKE_EARLY_US 20.0
#define GB_CUDA_CHECK_EVERY_US 4.0
/* A frame not done this long after its expected end (or a quarter of its
 * expected time, if longer) is waited for on the blocking event. */
#define GB_CUDA_CHECK_LATE_US 50.0
/* Weight of each frame in the expected time (an exponential average). */
#define GB_CUDA_EXPECTED_WEIGHT 0.125
/* Rows a band has at least. */
#define GB_CUDA_BAND_MIN_ROWS 64

struct GbCudaPlaneBuffers
{
  float gpu_share;              /* GbDevicePlane's, set with the geometry */
  int multiscale_row_align;     /* likewise */
  float *intermediate;          /* row-major for separable, transposed for */
  size_t intermediate_pitch;    /* recursive: sized for both layouts */
  size_t transposed_pitch;
  void *recursive_states;
  /* Edge-aware only (gb_edge_aware_scratch_bytes), allocated with the
   * plane's first edge-aware frame and kept until the geometry changes, so
   * that other algorithms cost no memory for it. */
  void *edge_aware_scratch;
  /* Superposition only (gb_superposition_scratch_bytes of the plane),
   * allocated with the plane's first such frame; and what it holds: the
   * kernels of map `generation` over `window` with `rmax` (0: nothing). */
  void *superposition_scratch;
  unsigned prepared_generation;
  GbRect prepared_window;
  int prepared_rmax;
  /* A regions map (gb_cuda_set_sigma_regions) decomposed for this plane
   * (superposition_regions.h): the plan of regions `plan_generation` (0:
   * none) and whether it applies; its boxes and tables on the device, and
   * its H and V sums, each grown to the largest plan so far. */
  GbRegionPlan plan;
  int plan_applies;
  int boxes_uploaded;           /* its boxes are on the device */
  int tables_uploaded;          /* ... and its tables */
  unsigned plan_generation;
  GbPlaneFilter plan_filter;
  GbRegionBox *device_boxes;
  float *device_tables;
  size_t device_tables_floats;
  float *regions_scratch;
  size_t regions_scratch_floats;
  /* A map constant along rows (superposition_rows.h): the plan of map
   * `row_plan_generation` (0: none) and whether it applies; its row
   * kernels, its taps and x sums, and H on the device. */
  GbRowPlan row_plan;
  int row_plan_applies;
  unsigned row_plan_generation;
  GbPlaneFilter row_plan_filter;
  int *device_row_kernel;
  size_t device_row_kernel_ints;
  float *device_row_tables;
  size_t device_row_tables_floats;
  float *rows_scratch;
  size_t rows_scratch_floats;
};

/* The device copies of one host frame (gb_cuda_submit_host). Each frame in
 * flight has its own, so that frame k + 1's upload and blur never wait for
 * frame k's blur and download to be done with them; the intermediates
 * serve every frame, as the blurs run one after another on `stream`. */
struct GbCudaFrameSlot
{
  uint8_t *input[GB_MAX_PLANES];
  size_t input_pitch[GB_MAX_PLANES];
  uint8_t *output[GB_MAX_PLANES];
  size_t output_pitch[GB_MAX_PLANES];
  /* Banded frames only (one plane of GB_CUDA_BAND_MIN_BYTES or more): the
   * odd bands' output, so that a band's apron rows never land on rows of
   * the band before it that are still being downloaded. */
  uint8_t *output_odd;
  size_t output_odd_pitch;
  /* After the frame's last blur: its input may take the next upload. */
  cudaEvent_t input_read;
  /* After its last download (blocking sync, for wait_for_host_frame's
   * late frames): the frame is done, its output free for the next blur. */
  cudaEvent_t downloaded;
  /* When the frame's last call returned (monotonic_us): its expected end
   * is this plus GbCuda's host_frame_us. */
  double submitted_us;
};

struct GbCuda
{
  int device;
  /* Created with GB_DEVICE_CURRENT_CONTEXT: every call runs in the context
   * the caller made current (GStreamer's shared one), so the backend never
   * selects a device itself (cudaSetDevice would make the device's primary
   * context current instead). */
  bool in_current_context;
  cudaStream_t stream;
  /* Planes 1.. run on their own streams, forked from and joined back into
   * `stream` within every frame, so that a small chroma plane's kernels
   * fill the SMs beside the luma plane's instead of after them. Everything
   * else (uploads, downloads, synchronisation) sees only `stream`. */
  cudaStream_t plane_streams[GB_MAX_PLANES];    /* [0] unused */
  cudaEvent_t fork;
  /* Recorded at the end of a frame in device memory; the thread sleeps on
   * it (blocking sync) instead of spinning in cudaStreamSynchronize. */
  cudaEvent_t frame_done;
  cudaEvent_t frame_polled;     /* the same without blocking sync: polled */
  double poll_us;               /* how long the next device frame polls */
  unsigned frames_polled;       /* device frames waited for */
  /* Banded host frames (enqueue_host_banded): uploads and downloads on
   * streams of their own, so that the two copy engines and the SMs work on
   * different bands at once; the blur stays on `stream`. */
  cudaStream_t upload_stream;
  cudaStream_t download_stream;
  cudaEvent_t uploaded[GB_CUDA_MAX_BANDS];
  cudaEvent_t computed[GB_CUDA_MAX_BANDS];
  cudaEvent_t joins[GB_MAX_PLANES];
  GbGeometry geometry;
  GbCudaPlaneBuffers planes[GB_MAX_PLANES];
  /* Host frames: slot i takes frames i, i + n_slots, ...; `submitted` is
   * written by the submitting thread and `completed` by the completing one
   * (gb_cuda_complete_host may run on another thread), each read by the
   * other with acquire/release atomics. */
  GbCudaFrameSlot slots[GB_MAX_FRAMES_IN_FLIGHT];
  int n_slots;
  unsigned submitted;
  unsigned completed;
  /* How long host frames took from submission to their end, lately (the
   * completing thread's; 0: none yet, or the geometry changed). */
  double host_frame_us;
  GbPlaneFilter filters[GB_MAX_PLANES]; /* host copies, per plane */
  /* Whether any plane of the frame has a multi-scale plan whose axes take
   * different D (GbDevicePlane's field of that name), set with the
   * filters. */
  bool frame_mixed_factors;
  /* GbDevicePlane's field of that name, set with the filters. */
  bool frame_blur_in_up;
  float *device_weights;        /* per plane, x then y: WEIGHTS_STRIDE taps
                                 * each, allocated once */
  /* GB_MAX_PLANES multi-scale tables, allocated once, each
   * MULTISCALE_STRIDE floats: the plan's weights, then its interpolation
   * along y as tensor-core fragments (gb_multiscale_up_fragments_fill,
   * host copies beside). */
  float *device_multiscale;
  uint32_t multiscale_up_fragments[GB_MAX_PLANES]
      [GB_MULTISCALE_UP_FRAGMENT_WORDS];
  /* The fused kernels' taps (gb_half_pairs_fill), per plane, x then y:
   * GB_HALF_PAIRS_SIZE each, on the host and on the device. */
  uint32_t half_pairs[GB_MAX_PLANES][2][GB_HALF_PAIRS_SIZE];
  float half_sum[GB_MAX_PLANES][2];
  uint32_t *device_half_pairs;
  float *device_sigma_map;      /* gb_cuda_set_sigma_map, plane 0's size */
  size_t sigma_map_pitch;       /* bytes */
  unsigned sigma_map_generation;        /* counts uploads, from 1 */
  /* Whether the map uploaded last has one value per row, and those values
   * (frame height), for superposition_rows.h. */
  bool map_rows_constant;
  float *row_sigma;
  /* gb_cuda_set_sigma_regions: the regions the map was made of, and the
   * map on the host, uploaded only when a plane's plan does not apply. */
  GbSigmaRegion *regions;
  int n_regions;                /* -1: the map is not a regions map */
  double feather;
  unsigned regions_generation;  /* counts calls, from 1 */
  const float *pending_map;     /* not yet uploaded; NULL: uploaded */
  size_t pending_map_stride;
  GbSigmaMapFill pending_fill;  /* writes it first; NULL: written */
  void *pending_fill_data;
  bool fused_available;         /* the tensor-core kernel runs on the device */
  size_t shared_per_block;      /* the device's opt-in shared memory a block */
  size_t fused_two_pass_max_bytes;      /* its two-pass form's intermediate
                                         * up to this size (half the L2) */
  bool planes_apart;            /* gb_cuda_set_planes_in_one_launch (false) */
  bool last_in_one_launch;      /* gb_cuda_last_frame_in_one_launch */
  unsigned allocations;
};

#define WEIGHTS_STRIDE (2 * GB_MAX_RADIUS + 1)

static double
monotonic_us (void)
{
  struct timespec now;

  clock_gettime (CLOCK_MONOTONIC, &now);
  return now.tv_sec * 1e6 + now.tv_nsec * 1e-3;
}

static GbStatus
status_for (cudaError_t err)
{
  switch (err) {
    case cudaErrorMemoryAllocation:
      return GB_ERROR_OUT_OF_MEMORY;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice:
    case cudaErrorDevicesUnavailable:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
      return GB_ERROR_NO_DEVICE;
    default:
      return GB_ERROR_CUDA;
  }
}

/* Turns a CUDA failure into a GbError whose message names what failed and
 * carries CUDA's own text. */
static GbStatus
cuda_fail (GbError * error, cudaError_t err, const char *what)
{
  return gb_error_set (error, status_for (err), "%s: %s (%s)", what,
      cudaGetErrorString (err), cudaGetErrorName (err));
}

#define CUDA_TRY(call, what) \
  do { \
    cudaError_t try_err_ = (call); \
    if (try_err_ != cudaSuccess) \
      return cuda_fail (error, try_err_, what); \
  } while (0)

/* Makes the handle's device current, unless the caller owns the context. */
static cudaError_t
select_device (const GbCuda * cuda)
{
  return cuda->in_current_context ? cudaSuccess : cudaSetDevice (cuda->device);
}

/* Whether a filter's taps have tables for the tensor-core kernels
 * (gb_half_pairs_fill), filled when the filter is set. */
static bool
fused_taps (const GbPlaneFilter * filter)
{
  return filter->x.radius <= GB_FUSED_MAX_RADIUS
      && filter->y.radius <= GB_FUSED_MAX_RADIUS_Y;
}

/* The tensor-core kernels: 8-bit planes, radii 1 .. GB_FUSED_MAX_RADIUS
 * (the two axes may differ: the shared-memory form, which needs them the
 * same, then gives way to the two-pass one, whose column pass takes radii
 * up to gb_fused_max_radius_y () along y). */
static bool
fused_runs (const GbCuda * cuda, const GbPlaneFilter * filter, int channels,
    int bytes_per_sample)
{
  return cuda->fused_available && bytes_per_sample == 1
      && (filter->x.radius >= 1 || filter->y.radius >= 1)
      && fused_taps (filter)
      && filter->y.radius <= gb_fused_max_radius_y (channels);
}

/* The device copy of plane p's table for axis 0 (x) or 1 (y). */
static uint32_t *
device_half_pairs (const GbCuda * cuda, int p, int axis)
{
  return cuda->device_half_pairs + (size_t) (2 * p + axis)
      * GB_HALF_PAIRS_SIZE;
}

/* Plane p's multi-scale table on the device, and the fragments after it
 * (a float's size each). */
#define MULTISCALE_STRIDE \
  (GB_MULTISCALE_TABLE + GB_MULTISCALE_UP_FRAGMENT_WORDS)
static float *
device_multiscale (const GbCuda * cuda, int p)
{
  return cuda->device_multiscale + (size_t) p * MULTISCALE_STRIDE;
}

static uint32_t *
device_multiscale_up_fragments (const GbCuda * cuda, int p)
{
  return reinterpret_cast < uint32_t * >(device_multiscale (cuda, p)
      + GB_MULTISCALE_TABLE);
}

/* Largest radius at which the separable passes (kernels_separable.cu)
 * beat the recursive filter where the fused kernel cannot run, by the
 * plane's channels. Measured on the H100 at 1080p (docs/performance.md,
 * "The separable passes"), separable against recursive, us, radius 35 /
 * 46 / 60 / 70 / 88 / 105: GRAY16 31.3 / 37.9 / 45.0 / 50.1 / 62.6 / 70.6
 * against 67.4; P016 39.2 / 44.9 / 51.0 / 56.2 / 72.4 / 82.8 against 86.4;
 * RGBA64 92.5 / 113.7 / 136.9 / 152.4 / 192.0 / 221.0 against 150.2.
 * Three channels are taken as four (not measured). */
#define SEPARABLE_AUTO_MAX_RADIUS_FEW_CHANNELS 88
#define SEPARABLE_AUTO_MAX_RADIUS_MANY_CHANNELS 60
/* ...and where a multi-scale plan exists (sigma >= 10 on both axes), up
 * to this radius, below every plan's automatic radius (35 at sigma 10): at
 * radius 35 the multi-scale path won on every 16-bit frame (H200, us,
 * separable against multiscale: GRAY16 1080p 22.0 against 21.7, 4K 76.0
 * against 34.1; P016 1080p 35.0-35.1 against 28.3-28.4; RGBA64 1080p
 * 74.7-74.8 against 36.1, 4K 254.4-255.0 against 75.1;
 * docs/performance.md, "Multi-scale from sigma 10"), as at 38 before
 * (sigma 10.75, "The small blur's weights fitted"). A radius cut short by
 * hand keeps the separable passes to radius 44, as the fused kernel
 * (below): the multi-scale path would ignore it. */
#define SEPARABLE_AUTO_MAX_RADIUS_BESIDE_MULTISCALE 34
#define SEPARABLE_CUT_SHORT_MAX_RADIUS_BESIDE_MULTISCALE 44
/* Where the multi-scale path runs (sigma >= 10 on both axes, radius 35
 * and more at the automatic radius) it beats the fused kernel on large
 * planes, measured on the H200 at sigma 10 (radius 35; docs/performance.md,
 * "Multi-scale from sigma 10"), us, fused against multiscale: RGBA 4K
 * 97.7-98.1 against 65.8-66.0, GRAY8 4K 32.5-32.6 against 26.6, RGB 4K
 * 114.7-115.4 against 47.6-47.8, RGB 1080p 34.9 against 23.9-24.0, NV12
 * 4K 52.9-53.0 against 46.6, RGBA 1080p 29.0 against 28.3 (which kept
 * the fused kernel to radius 40 until the multi-scale passes' gains of
 * 2026-11-30: 29.1 against 32.3 then). Planes
 * of fewer than FUSED_BESIDE_MULTISCALE_MAX_SAMPLES samples (GRAY8 1080p,
 * the luma of 1080p YUV) take the same rules, but in frames whose chroma is
 * subsampled on both axes: NV12 and I420 1080p took 22.4 / 22.8-22.9 us
 * fused against 28.6-28.7 / 28.2 with the multi-scale luma at sigma 10
 * (22.2-23.1 against 28.0-28.3 at radius 38 and 42 before), so they keep
 * the fused kernel up to radius 48, where it measured faster on the H100
 * (below); at sigma 10 GRAY8 took 15.0 against 14.6, NV16 26.8-26.9
 * against 25.7, Y444 35.7-35.9 against 30.7, NV24 33.4-33.6 against 30.5,
 * Y42B 27.7-27.8 against 28.2 (at radius 38 before: 27.6 against 28.0).
 * So do planes of four
 * channels and planes under FUSED_BESIDE_MULTISCALE_MIN_PIXELS, where the
 * multi-scale path's four or five launches weigh more (H200 at radius 39 /
 * 42 / 48, fused against multiscale, docs/performance.md, "Small planes
 * beside the fused kernel"): RGBA 1280 x 720 18.3 / 20.4 / 20.5
 * against 22.8, at 640 x 360 12.4 / 12.9 / 13.0 against 16.8; GRAY8,
 * RGB and Y444 640 x 360 10.4-15.7 against 11.1-17.1. From 2^19 pixels
 * planes of one to three channels switch with the large ones: GRAY8 1280
 * x 720 12.5 / 13.6 / 13.5 against 12.2 / 12.2 / 12.3, RGB 21.2 / 22.8 /
 * 22.8 against 19.5, Y444 21.6 / 23.9 / 23.8 against 22.6 (its radius 39
 * lost 1 us). Sizes between were not timed and follow the rule: planes of
 * three channels from 349,526 to 2^19 pixels (RGB 960 x 540) now keep the
 * fused kernel, one-channel planes from 2^19 to 2^20 pixels beside
 * chroma not subsampled on both axes (the lumas of Y42B, NV16, NV24 at
 * 720p) no longer do. On the H100
 * from radius 45 (docs/performance.md, "multiscale on the tensor cores"):
 * RGBA 4K 173.8 against 117.7, RGBA 1080p 48.9 against 48.5. A radius below
 * the automatic one (a filter cut short by hand) keeps the fused kernel up
 * to FUSED_CUT_SHORT_MAX_RADIUS_BESIDE_MULTISCALE (48 on planes under 2^22
 * samples): the multi-scale path would ignore it. */
#define FUSED_AUTO_MAX_RADIUS_BESIDE_MULTISCALE 34
#define FUSED_CUT_SHORT_MAX_RADIUS_BESIDE_MULTISCALE 44
#define FUSED_BESIDE_MULTISCALE_SMALL_PLANE_MAX_RADIUS 48
#define FUSED_BESIDE_MULTISCALE_MAX_SAMPLES ((size_t) 1 << 22)
#define FUSED_BESIDE_MULTISCALE_MIN_PIXELS ((size_t) 1 << 19)
/* Largest radius at which one-channel planes take the registers form of
 * the fused kernel rather than its two-pass form, where the latter's
 * intermediate fits: on GRAY8 1080p, us, registers against two-pass,
 * radius 14 (sigma 4) 11.2-11.6 against 13.8-14.0, radius 18 (sigma 5)
 * 18.2-18.6 against 16.8-16.9, radius 21 (sigma 6) 17.8-18.1 against
 * 16.9; GRAY8 4K 23.4 against 29.5-29.9, 37.8-38.4 against 35.5-35.9,
 * 37.9-38.5 against 36.0-36.2 (the same session). Planes of two channels
 * keep the registers form to its end: past radius 16 the two forms were
 * not compared on them; below, the registers form wins (NV12 4K at sigma 5
 * and 6, its chroma at radius 9 and 11: 41 against 46.5-46.8 us). */
#define FUSED_REGISTERS_ONE_CHANNEL_MAX_RADIUS 16
/* ...on planes of at least this many pixels: a smaller plane (the chroma
 * of 1080p I420, 960 x 540, at radius 18) lost more to the second launch
 * than it gained (I420 1080p sigma 10, two runs each: 23.0 us with the
 * registers form for its chroma, 26.1 with the two-pass form; at sigma 13,
 * chroma radius 23, 29.3-29.4 against 28.9). */
#define FUSED_TWO_PASS_ONE_CHANNEL_MIN_PIXELS (1 << 20)

/* 16-bit planes: the fused filter in FP32 (kernels_fused_float.cu, radius
 * up to 16, run at 2, 4, 8, 12 or 16) against the separable passes with
 * their 16-bit intermediate, measured on the H200, us, radius 4 / 7 / 9 /
 * 11 / 16 (docs/performance.md, "A 16-bit intermediate for 16-bit
 * samples"): RGBA64 1080p 23.5 / 31.3 / 38.8 / 38.8 / 45.9 against 29.3 /
 * 33.0 / 35.8 / 38.4 / 43.8, RGBA64 4K 72.2 / 94.0 / 139.8 / 139.7 / 160.6
 * against 104.9 / 116.0 / 126.1 / 134.6 / 157.4: four channels up to
 * radius 8 (the kernel of radius 8 runs 5 to 8). GRAY16 1080p 9.8 / 14.9 /
 * 20.5 at radius 4 / 7 / 9 against 11.0 / 11.9 / 12.5, GRAY16 4K 25.7 /
 * 33.9 / 48.4 against 29.8 / 33.4 / 35.8 (radius 6: 34.1 against 32.1),
 * P016 1080p 14.7 / 18.5 / 23.9 against 15.4 / 16.8 / 17.5: fewer
 * channels up to radius 4. */
#define FUSED_FLOAT_AUTO_MAX_RADIUS 4
#define FUSED_FLOAT_AUTO_MAX_RADIUS_FOUR_CHANNELS 8

void
gb_cuda_set_fused_two_pass_limit (GbCuda * cuda, size_t bytes)
{
  cuda->fused_two_pass_max_bytes = bytes;
}

void
gb_cuda_set_planes_in_one_launch (GbCuda * cuda, int one_launch)
{
  cuda->planes_apart = !one_launch;
}

int
gb_cuda_last_frame_in_one_launch (const GbCuda * cuda)
{
  return cuda->last_in_one_launch;
}

/* Whether the frame has a plane subsampled on both axes (4:2:0 and the
 * like). */
static bool
has_quarter_chroma (const GbGeometry * geometry)
{
  for (int p = 0; p < geometry->n_planes; p++)
    if (geometry->planes[p].subsampling_x >= 2
        && geometry->planes[p].subsampling_y >= 2)
      return true;
  return false;
}

/* Whether the filter's radius is below the automatic one of its sigma (set
 * by hand): the multi-scale path would not honour it. */
static bool
radius_cut_short (const GbPlaneFilter * filter)
{
  const int radius = gb_plane_filter_radius (filter);

  return radius < gb_auto_radius (filter->x.sigma)
      || radius < gb_auto_radius (filter->y.sigma);
}

/* The largest radius at which the fused kernel beats the multi-scale path
 * on this plane (above). */
static int
fused_max_radius_beside_multiscale (const GbPlaneFilter * filter,
    const GbPlaneGeometry * plane, size_t samples, bool quarter_chroma)
{
  const bool cut_short = radius_cut_short (filter);
  const size_t pixels = (size_t) plane->width * plane->height;

  if (samples < FUSED_BESIDE_MULTISCALE_MAX_SAMPLES && (cut_short
          || quarter_chroma || plane->channels == 4
          || pixels < FUSED_BESIDE_MULTISCALE_MIN_PIXELS))
    return FUSED_BESIDE_MULTISCALE_SMALL_PLANE_MAX_RADIUS;
  if (cut_short)
    return FUSED_CUT_SHORT_MAX_RADIUS_BESIDE_MULTISCALE;
  return FUSED_AUTO_MAX_RADIUS_BESIDE_MULTISCALE;
}

GbAlgorithm
gb_cuda_auto_algorithm (const GbCuda * cuda, const GbPlaneFilter * filter,
    const GbGeometry * geometry, int plane_index)
{
  const GbPlaneGeometry *plane = &geometry->planes[plane_index];
  const int bytes_per_sample = geometry->bytes_per_sample;
  const int radius = gb_plane_filter_radius (filter);
  const bool multiscale = filter->multiscale.factor_x != 0;

  /* Measured on an H100 and an H200 (docs/performance.md): for GRAY8 and RGBA,
   * 1080p and 4K, the fused kernel is the fastest wherever it runs (radius
   * up to 56, compute capability 8.0; below) and no multi-scale plan exists;
   * where one does (sigma >= 10 on both axes), the multi-scale path wins
   * from radius 35 but on the small planes of 4:2:0 frames, planes of four
   * channels under 2^22 samples and planes under 2^19 pixels up to radius
   * 48 (above), and it beats the
   * recursive filter on every format measured (all formats at 1080p, sigma
   * 30: 1.2x for I420 to 2.8x for RGBA). On planes of one and two
   * channels without a plan the fused kernels reach radius 96 along y
   * (their two-pass form): on the H200 at sigma 10 across and 25 down
   * (which has a plan since the multi-scale path starts at 10; these were
   * measured before), GRAY8 1080p 24.2 us against 46.8 in the separable
   * passes, GRAY8 4K 58.3 against 127.2, NV12 1080p 36.4 against 57.7; the
   * chroma of 4:2:2 frames below sigma 20 (21.5 on the planes of
   * gb_multiscale_late_d8; 25.6 when these were measured) with it: Y42B
   * 1080p at sigma 20 / 25 36.5 / 39.9 against 47.9 / 57.0, NV16 33.2 /
   * 35.8 against 46.8 / 56.2 (docs/performance.md, "The column pass to
   * radius 96"). 16-bit planes
   * take the fused filter in FP32 where it was measured faster (above).
   * Without a fused kernel (larger radii on 16-bit samples, 8-bit ones on
   * GPUs before compute capability 8.0) the separable passes win up to
   * radius 34 where the multi-scale path runs (44 for a radius cut short by
   * hand), and against the recursive
   * filter up to radius 88 on planes of one or two channels and 60 on
   * wider ones; past those the recursive filter where no multi-scale plan
   * exists (sigma below 10 on an axis). */
  const size_t samples = (size_t) plane->width * plane->height
      * plane->channels;
  if (fused_runs (cuda, filter, plane->channels, bytes_per_sample)
      && (!multiscale || radius <= fused_max_radius_beside_multiscale
          (filter, plane, samples, has_quarter_chroma (geometry))))
    return GB_ALGORITHM_FUSED;
  if (gb_fused_float_runs (plane->channels, bytes_per_sample,
          filter->x.radius, filter->y.radius, cuda->shared_per_block)
      && radius <= (plane->channels == 4
          ? FUSED_FLOAT_AUTO_MAX_RADIUS_FOUR_CHANNELS
          : FUSED_FLOAT_AUTO_MAX_RADIUS))
    return GB_ALGORITHM_FUSED;
  if (radius <= (multiscale ? (radius_cut_short (filter)
              ? SEPARABLE_CUT_SHORT_MAX_RADIUS_BESIDE_MULTISCALE
              : SEPARABLE_AUTO_MAX_RADIUS_BESIDE_MULTISCALE)
          : plane->channels <= 2 ? SEPARABLE_AUTO_MAX_RADIUS_FEW_CHANNELS
          : SEPARABLE_AUTO_MAX_RADIUS_MANY_CHANNELS))
    return GB_ALGORITHM_SEPARABLE;
  return multiscale ? GB_ALGORITHM_MULTISCALE : GB_ALGORITHM_RECURSIVE;
}

GbAlgorithm
gb_cuda_auto_superposition (const GbCuda * cuda, const GbPlaneFilter * filter,
    const GbPlaneGeometry * plane, int bytes_per_sample)
{
  (void) cuda;
  (void) bytes_per_sample;
  /* Measured on an H100 (superposition-bench, 512 x 512, random sigma;
   * docs/performance.md): scatter's shared-memory atomics win only where
   * each input reaches few outputs and there are few channels to add: GRAY8
   * at rmax 1 (1.9x; two channels, not measured, taken alike). Elsewhere the
   * gather, which tabulates each row's kernels once per tile and adds
   * without conflicts, is faster: RGBA from rmax 1 (1.2x), GRAY8 from rmax
   * 2 (1.4x), up to 38x (RGBA) at rmax 32. */
  if (filter->rmax <= 1 && plane->channels <= 2)
    return GB_ALGORITHM_SUPERPOSITION_SCATTER;
  return GB_ALGORITHM_SUPERPOSITION_GATHER;
}

GbStatus
gb_cuda_create (int device_id, GbCuda ** out, GbError * error)
{
  int count = 0;
  cudaError_t err;
  GbCuda *cuda;

  *out = NULL;
  err = cudaGetDeviceCount (&count);
  if (err != cudaSuccess)
    return gb_error_set (error, GB_ERROR_NO_DEVICE,
        "no usable CUDA device: %s (%s)", cudaGetErrorString (err),
        cudaGetErrorName (err));
  if (count == 0)
    return gb_error_set (error, GB_ERROR_NO_DEVICE, "no CUDA device found");
  if (device_id >= count
      || (device_id < -1 && device_id != GB_DEVICE_CURRENT_CONTEXT))
    return gb_error_set (error, GB_ERROR_NO_DEVICE,
        "CUDA device %d does not exist (%d device%s present)", device_id,
        count, count == 1 ? "" : "s");

  cuda = (GbCuda *) calloc (1, sizeof *cuda);
  if (!cuda)
    return gb_error_set (error, GB_ERROR_OUT_OF_MEMORY,
        "cannot allocate the CUDA backend");
  cuda->in_current_context = device_id == GB_DEVICE_CURRENT_CONTEXT;
  cuda->poll_us = GB_CUDA_POLL_US;
  cuda->n_slots = 1;
  if (device_id < 0) {
    /* the current context's device, or the runtime's current device */
    err = cudaGetDevice (&cuda->device);
    if (err != cudaSuccess) {
      free (cuda);
      return cuda_fail (error, err, "cannot query the current CUDA device");
    }
  } else {
    cuda->device = device_id;
  cuda->n_regions = -1;
  }

  err = select_device (cuda);
  if (err == cudaSuccess)
    err = cudaStreamCreateWithFlags (&cuda->stream, cudaStreamNonBlocking);
  if (err == cudaSuccess)
    err = cudaEventCreateWithFlags (&cuda->fork, cudaEventDisableTiming);
  if (err == cudaSuccess)
    err = cudaEventCreateWithFlags (&cuda->frame_done,
        cudaEventDisableTiming | cudaEventBlockingSync);
  if (err == cudaSuccess)
    err = cudaEventCreateWithFlags (&cuda->frame_polled,
        cudaEventDisableTiming);
  if (err == cudaSuccess)
    err = cudaStreamCreateWithFlags (&cuda->upload_stream,
        cudaStreamNonBlocking);
  if (err == cudaSuccess)
    err = cudaStreamCreateWithFlags (&cuda->download_stream,
        cudaStreamNonBlocking);
  for (int i = 0; i < GB_MAX_FRAMES_IN_FLIGHT && err == cudaSuccess; i++) {
    err = cudaEventCreateWithFlags (&cuda->slots[i].input_read,
        cudaEventDisableTiming);
    if (err == cudaSuccess)
      err = cudaEventCreateWithFlags (&cuda->slots[i].downloaded,
          cudaEventDisableTiming | cudaEventBlockingSync);
  }
  for (int b = 0; b < GB_CUDA_MAX_BANDS && err == cudaSuccess; b++) {
    err = cudaEventCreateWithFlags (&cuda->uploaded[b],
        cudaEventDisableTiming);
    if (err == cudaSuccess)
      err = cudaEventCreateWithFlags (&cuda->computed[b],
          cudaEventDisableTiming);
  }
  for (int p = 1; p < GB_MAX_PLANES && err == cudaSuccess; p++) {
    err = cudaStreamCreateWithFlags (&cuda->plane_streams[p],
        cudaStreamNonBlocking);
    if (err == cudaSuccess)
      err = cudaEventCreateWithFlags (&cuda->joins[p],
          cudaEventDisableTiming);
  }
  if (err == cudaSuccess) {
    err = cudaMalloc (&cuda->device_weights,
        sizeof (float) * WEIGHTS_STRIDE * 2 * GB_MAX_PLANES);
    cuda->allocations += err == cudaSuccess;
  }
  if (err == cudaSuccess) {
    err = cudaMalloc (&cuda->device_multiscale,
        sizeof (float) * GB_MAX_PLANES * MULTISCALE_STRIDE);
    cuda->allocations += err == cudaSuccess;
  }
  if (err == cudaSuccess) {
    err = cudaMalloc (&cuda->device_half_pairs, sizeof cuda->half_pairs);
    cuda->allocations += err == cudaSuccess;
  }
  if (err == cudaSuccess)
    cuda->fused_available = gb_fused_available ();
  if (err == cudaSuccess) {
    int shared = 0;
    err = cudaDeviceGetAttribute (&shared,
        cudaDevAttrMaxSharedMemoryPerBlockOptin, cuda->device);
    cuda->shared_per_block = (size_t) shared;
  }
  if (err == cudaSuccess) {
    int l2_bytes = 0;
    err = cudaDeviceGetAttribute (&l2_bytes, cudaDevAttrL2CacheSize,
        cuda->device);
    cuda->fused_two_pass_max_bytes = (size_t) l2_bytes / 2;
  }
  if (err != cudaSuccess) {
    GbStatus status = cuda_fail (error, err, "cannot initialise CUDA device");
    gb_cuda_destroy (cuda);
    return status;
  }
  *out = cuda;
  return GB_OK;
}

/* Waits for everything queued on the backend's streams (the plane streams
 * join into `stream` within each frame): before buffers go, and after a
 * failure, when nothing may still use them as the caller goes on. */
static void
drain_streams (GbCuda * cuda)
{
  if (cuda->upload_stream)
    cudaStreamSynchronize (cuda->upload_stream);
  if (cuda->stream)
    cudaStreamSynchronize (cuda->stream);
  if (cuda->download_stream)
    cudaStreamSynchronize (cuda->download_stream);
}

static void
free_slot (GbCudaFrameSlot * slot)
{
  for (int p = 0; p < GB_MAX_PLANES; p++) {
    cudaFree (slot->input[p]);
    cudaFree (slot->output[p]);
    slot->input[p] = slot->output[p] = NULL;
  }
  cudaFree (slot->output_odd);
  slot->output_odd = NULL;
}

/* A slot's frame buffers for the geometry (and the second output of banded
 * frames). */
static cudaError_t
alloc_slot (GbCuda * cuda, GbCudaFrameSlot * slot, const GbGeometry * geometry)
{
  cudaError_t err = cudaSuccess;

  for (int p = 0; p < geometry->n_planes && err == cudaSuccess; p++) {
    const GbPlaneGeometry *plane = &geometry->planes[p];
    const size_t row_bytes = (size_t) plane->width * plane->channels
        * geometry->bytes_per_sample;

    err = cudaMallocPitch ((void **) &slot->input[p], &slot->input_pitch[p],
        row_bytes, plane->height);
    cuda->allocations += err == cudaSuccess;
    if (err == cudaSuccess) {
      err = cudaMallocPitch ((void **) &slot->output[p],
          &slot->output_pitch[p], row_bytes, plane->height);
      cuda->allocations += err == cudaSuccess;
    }
    if (err == cudaSuccess && geometry->n_planes == 1
        && row_bytes * plane->height >= GB_CUDA_BAND_MIN_BYTES) {
      err = cudaMallocPitch ((void **) &slot->output_odd,
          &slot->output_odd_pitch, row_bytes, plane->height);
      cuda->allocations += err == cudaSuccess;
    }
  }
  if (err != cudaSuccess)
    free_slot (slot);
  return err;
}

static void
free_planes (GbCuda * cuda)
{
  for (int p = 0; p < GB_MAX_PLANES; p++) {
    cudaFree (cuda->planes[p].intermediate);
    cudaFree (cuda->planes[p].recursive_states);
    cudaFree (cuda->planes[p].edge_aware_scratch);
    cudaFree (cuda->planes[p].superposition_scratch);
    cudaFree (cuda->planes[p].device_boxes);
    cudaFree (cuda->planes[p].device_tables);
    cudaFree (cuda->planes[p].regions_scratch);
    gb_region_plan_clear (&cuda->planes[p].plan);
    cudaFree (cuda->planes[p].device_row_kernel);
    cudaFree (cuda->planes[p].device_row_tables);
    cudaFree (cuda->planes[p].rows_scratch);
    gb_row_plan_clear (&cuda->planes[p].row_plan);
  }
  free (cuda->row_sigma);
  cuda->row_sigma = NULL;
  cuda->map_rows_constant = false;
  cuda->pending_map = NULL;
  cuda->pending_fill = NULL;
  for (int i = 0; i < GB_MAX_FRAMES_IN_FLIGHT; i++)
    free_slot (&cuda->slots[i]);
  cudaFree (cuda->device_sigma_map);
  cuda->device_sigma_map = NULL;
  memset (cuda->planes, 0, sizeof cuda->planes);
  memset (&cuda->geometry, 0, sizeof cuda->geometry);
}

static GbStatus upload_sigma_map (GbCuda * cuda, const float *map,
    size_t stride, GbError * error);

GbStatus
gb_cuda_set_sigma_map (GbCuda * cuda, const float *map, size_t stride,
    GbError * error)
{
  const GbPlaneGeometry *frame = &cuda->geometry.planes[0];

  if (cuda->geometry.n_planes == 0)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "the CUDA backend has no geometry");
  if (!map || stride < (size_t) frame->width)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "no sigma map, or its stride %zu is below the width %d", stride,
        frame->width);
  cuda->n_regions = -1;
  cuda->pending_map = NULL;
  cuda->pending_fill = NULL;
  return upload_sigma_map (cuda, map, stride, error);
}

GbStatus
gb_cuda_set_sigma_regions (GbCuda * cuda, const float *map, size_t stride,
    const GbSigmaRegion * regions, int n_regions, double feather,
    GbSigmaMapFill fill, void *fill_data, GbError * error)
{
  const GbPlaneGeometry *frame = &cuda->geometry.planes[0];
  GbSigmaRegion *copy = NULL;

  if (cuda->geometry.n_planes == 0)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "the CUDA backend has no geometry");
  if (!map || stride < (size_t) frame->width || n_regions < 0
      || (n_regions > 0 && !regions))
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "no sigma map or regions, or the map's stride %zu is below the "
        "width %d", stride, frame->width);
  if (n_regions > 0) {
    copy = (GbSigmaRegion *) malloc (sizeof *copy * n_regions);
    if (!copy)
      return gb_error_set (error, GB_ERROR_OUT_OF_MEMORY,
          "no memory for %d regions", n_regions);
    memcpy (copy, regions, sizeof *copy * n_regions);
  }
  free (cuda->regions);
  cuda->regions = copy;
  cuda->n_regions = n_regions;
  cuda->feather = feather;
  cuda->regions_generation++;
  cuda->pending_map = map;
  cuda->pending_map_stride = stride;
  cuda->pending_fill = fill;
  cuda->pending_fill_data = fill_data;
  return GB_OK;
}

/* A regions map not yet on the device: written if it was not, and
 * uploaded now (on `stream`). */
static GbStatus
upload_pending_map (GbCuda * cuda, GbError * error)
{
  GbStatus status;

  if (!cuda->pending_map)
    return GB_OK;
  if (cuda->pending_fill) {
    status = cuda->pending_fill (cuda->pending_fill_data, error);
    if (status != GB_OK)
      return status;
    cuda->pending_fill = NULL;
  }
  status = upload_sigma_map (cuda, cuda->pending_map,
      cuda->pending_map_stride, error);
  if (status == GB_OK)
    cuda->pending_map = NULL;
  return status;
}

/* Before a superposition frame of a regions map: each plane's plan, and the
 * map uploaded (on `stream`, before the planes fork) if a plane cannot use
 * its plan. GB_CUDA_REGIONS=map takes the map everywhere (for A/B runs). */
static GbStatus
prepare_regions (GbCuda * cuda, GbError * error)
{
  static int use_map = -1;
  bool need_map = false;

  if (use_map < 0) {
    const char *env = getenv ("GB_CUDA_REGIONS");
    use_map = env && strcmp (env, "map") == 0;
  }
  for (int p = 0; p < cuda->geometry.n_planes && cuda->n_regions >= 0; p++) {
    GbCudaPlaneBuffers *buffers = &cuda->planes[p];
    const GbPlaneFilter *filter = &cuda->filters[p];
    if (buffers->plan_generation != cuda->regions_generation
        || memcmp (&buffers->plan_filter, filter, sizeof *filter) != 0) {
      GbRegionPlan next;
      int applies = 0;
      if (!use_map) {
        GbStatus status = gb_region_plan_build (&next, filter,
            &cuda->geometry.planes[p], cuda->regions, cuda->n_regions,
            cuda->feather, buffers->plan_applies ? &buffers->plan : NULL,
            &applies, error);
        if (status != GB_OK)
          return status;
      } else
        memset (&next, 0, sizeof next);
      /* Tables the device already holds stay there (regions that move). */
      buffers->tables_uploaded &= applies && next.tables_reused;
      buffers->boxes_uploaded = 0;
      gb_region_plan_clear (&buffers->plan);
      buffers->plan = next;
      buffers->plan_applies = applies;
      buffers->plan_generation = cuda->regions_generation;
      buffers->plan_filter = *filter;
    }
    need_map |= !buffers->plan_applies;
  }
  return cuda->n_regions < 0 || need_map ? upload_pending_map (cuda, error)
      : GB_OK;
}

/* Grows a device buffer of T to hold `count` of them (*have: its count). */
template < typename T > static cudaError_t
grow_device (GbCuda * cuda, T ** buffer, size_t *have, size_t count)
{
  if (*have >= count)
    return cudaSuccess;
  cudaFree (*buffer);
  *buffer = NULL;
  *have = 0;
  cudaError_t err = cudaMalloc ((void **) buffer, count * sizeof (T));
  if (err == cudaSuccess) {
    *have = count;
    cuda->allocations++;
  }
  return err;
}

/* Plane p's superposition by its regions plan (superposition_regions.h):
 * its boxes and tables onto the device (from pageable memory: staged
 * before the call returns), then the kernels, all on `stream`. */
static GbStatus
enqueue_regions (GbCuda * cuda, int p, const GbDevicePlane & plane,
    cudaStream_t stream, GbError * error)
{
  GbCudaPlaneBuffers *buffers = &cuda->planes[p];
  const GbRegionPlan *plan = &buffers->plan;
  const size_t sigmas = (size_t) plan->n_tables * plan->levels;
  const size_t kernels = sigmas * plan->table_stride;
  cudaError_t err;

  if (!buffers->device_boxes) {
    err = cudaMalloc ((void **) &buffers->device_boxes,
        sizeof (GbRegionBox) * GB_REGIONS_MAX);
    if (err != cudaSuccess)
      return cuda_fail (error, err, "cannot allocate the regions on the GPU");
    cuda->allocations++;
  }
  {
    const float *held = buffers->device_tables;
    err = grow_device (cuda, &buffers->device_tables,
        &buffers->device_tables_floats, sigmas + kernels + 1);
    if (buffers->device_tables != held)
      buffers->tables_uploaded = 0;
  }
  if (err == cudaSuccess)
    err = grow_device (cuda, &buffers->regions_scratch,
        &buffers->regions_scratch_floats, plan->scratch_floats + 1);
  if (err != cudaSuccess)
    return cuda_fail (error, err,
        "cannot allocate the regions' kernels and sums on the GPU");
  if (plan->n_regions > 0 && !buffers->boxes_uploaded) {
    err = cudaMemcpyAsync (buffers->device_boxes, plan->boxes,
        sizeof (GbRegionBox) * plan->n_regions, cudaMemcpyHostToDevice,
        stream);
    if (err != cudaSuccess)
      return cuda_fail (error, err, "cannot upload the regions");
    buffers->boxes_uploaded = 1;
  }
  if (plan->n_regions > 0 && !buffers->tables_uploaded) {
    err = cudaMemcpyAsync (buffers->device_tables, plan->level_sigma,
        sigmas * sizeof (float), cudaMemcpyHostToDevice, stream);
    if (err == cudaSuccess)
      err = cudaMemcpyAsync (buffers->device_tables + sigmas, plan->kernels,
          kernels * sizeof (float), cudaMemcpyHostToDevice, stream);
    if (err != cudaSuccess)
      return cuda_fail (error, err, "cannot upload the regions' kernels");
    buffers->tables_uploaded = 1;
  }
  err = gb_launch_superposition_regions (plane, plan, buffers->device_boxes,
      buffers->device_tables, buffers->regions_scratch, stream);
  if (err != cudaSuccess)
    return cuda_fail (error, err,
        "cannot launch the regions' superposition kernels");
  return GB_OK;
}

/* The map onto the device, on the backend's stream (gb_cuda_set_sigma_map
 * says when map may be written again). */
static GbStatus
upload_sigma_map (GbCuda * cuda, const float *map, size_t stride,
    GbError * error)
{
  const GbPlaneGeometry *frame = &cuda->geometry.planes[0];
  const size_t row_bytes = (size_t) frame->width * sizeof (float);

  CUDA_TRY (select_device (cuda), "cannot select the CUDA device");
  if (!cuda->device_sigma_map) {
    CUDA_TRY (cudaMallocPitch ((void **) &cuda->device_sigma_map,
            &cuda->sigma_map_pitch, row_bytes, frame->height),
        "cannot allocate the sigma map on the GPU");
    cuda->allocations++;
  }
  /* From pageable memory the call returns once map has been staged; from
   * page-locked memory it is asynchronous (cuda_backend.h). Ordered before
   * the frames that follow on the stream, after those before (which read
   * the old map). */
  CUDA_TRY (cudaMemcpy2DAsync (cuda->device_sigma_map, cuda->sigma_map_pitch,
          map, stride * sizeof (float), row_bytes, frame->height,
          cudaMemcpyHostToDevice, cuda->stream),
      "cannot upload the sigma map");
  cuda->sigma_map_generation++;
  /* A map of one value per row takes the separable sum (enqueue_rows). */
  cuda->map_rows_constant = false;
  if (!cuda->row_sigma)
    cuda->row_sigma = (float *) malloc (sizeof (float) * frame->height);
  if (cuda->row_sigma && gb_sigma_map_rows_constant (map, frame->width,
          frame->height, stride)) {
    for (int y = 0; y < frame->height; y++)
      cuda->row_sigma[y] = map[(size_t) y * stride];
    cuda->map_rows_constant = true;
  }
  return GB_OK;
}

GbStatus
gb_cuda_configure (GbCuda * cuda, const GbGeometry * geometry, GbError * error)
{
  cudaError_t err = cudaSuccess;

  CUDA_TRY (select_device (cuda), "cannot select the CUDA device");
  /* Frames still in flight may use the old buffers; they are abandoned. */
  drain_streams (cuda);
  free_planes (cuda);
  cuda->completed = cuda->submitted = 0;

  for (int p = 0; p < geometry->n_planes && err == cudaSuccess; p++) {
    const GbPlaneGeometry *plane = &geometry->planes[p];
    GbCudaPlaneBuffers *buffers = &cuda->planes[p];
    const size_t samples = (size_t) plane->width * plane->channels;
    /* One float buffer, two layouts: rows of the frame (separable) or
     * rows that are the frame's columns (recursive). */
    const size_t align = 512;
    size_t bytes, transposed_bytes;

    buffers->intermediate_pitch = (samples * sizeof (float) + align - 1)
        / align * align;
    buffers->transposed_pitch = ((size_t) plane->height * plane->channels
        * sizeof (float) + align - 1) / align * align;
    bytes = buffers->intermediate_pitch * plane->height;
    transposed_bytes = buffers->transposed_pitch * plane->width;
    if (transposed_bytes > bytes)
      bytes = transposed_bytes;
    /* ...and the multi-scale images, larger than the frame only for
     * small frames, where the margins dominate. */
    const size_t multiscale_bytes = gb_multiscale_scratch_floats
        (plane->width, plane->height, plane->channels,
        GB_MULTISCALE_GPU_ROW_ALIGN) * sizeof (float);
    if (multiscale_bytes > bytes)
      bytes = multiscale_bytes;
    err = cudaMalloc ((void **) &buffers->intermediate, bytes);
    cuda->allocations += err == cudaSuccess;
    if (err == cudaSuccess) {
      err = cudaMalloc (&buffers->recursive_states,
          gb_recursive_state_bytes (plane->width, plane->height,
              plane->channels));
      cuda->allocations += err == cudaSuccess;
    }
  }
  for (int i = 0; i < cuda->n_slots && err == cudaSuccess; i++)
    err = alloc_slot (cuda, &cuda->slots[i], geometry);
  if (err != cudaSuccess) {
    free_planes (cuda);
    return cuda_fail (error, err, "cannot allocate frame buffers on the GPU");
  }
  cuda->geometry = *geometry;
  {
    double samples = 0;
    for (int p = 0; p < geometry->n_planes; p++)
      samples += (double) geometry->planes[p].width
          * geometry->planes[p].height * geometry->planes[p].channels;
    for (int p = 0; p < geometry->n_planes; p++) {
      cuda->planes[p].gpu_share = samples > 0 ? (float) ((double)
          geometry->planes[p].width * geometry->planes[p].height
          * geometry->planes[p].channels / samples) : 1.0f;
      cuda->planes[p].multiscale_row_align = gb_multiscale_row_align
          (*geometry, p);
    }
  }
  cuda->host_frame_us = 0;
  return GB_OK;
}

GbStatus
gb_cuda_set_frames_in_flight (GbCuda * cuda, int frames, GbError * error)
{
  cudaError_t err = cudaSuccess;

  if (frames < 1 || frames > GB_MAX_FRAMES_IN_FLIGHT)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "frames in flight %d is not within 1 .. %d", frames,
        GB_MAX_FRAMES_IN_FLIGHT);
  if (cuda->submitted != __atomic_load_n (&cuda->completed, __ATOMIC_ACQUIRE))
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "frames are in flight: complete them first");
  CUDA_TRY (select_device (cuda), "cannot select the CUDA device");
  /* The slots keep their frame order from 0 on. */
  cuda->completed = cuda->submitted = 0;
  for (int i = frames; i < cuda->n_slots; i++)
    free_slot (&cuda->slots[i]);
  for (int i = cuda->n_slots; i < frames && cuda->geometry.n_planes > 0; i++) {
    err = alloc_slot (cuda, &cuda->slots[i], &cuda->geometry);
    if (err != cudaSuccess) {
      for (int j = cuda->n_slots; j < i; j++)
        free_slot (&cuda->slots[j]);
      return cuda_fail (error, err,
          "cannot allocate frame buffers on the GPU for the frames in flight");
    }
  }
  cuda->n_slots = frames;
  cuda->host_frame_us = 0;
  return GB_OK;
}

GbStatus
gb_cuda_set_filters (GbCuda * cuda, const GbPlaneFilter * filters,
    GbError * error)
{
  CUDA_TRY (select_device (cuda), "cannot select the CUDA device");
  /* A launch already queued may still read the device copies. */
  CUDA_TRY (cudaStreamSynchronize (cuda->stream), "blur stream failed");
  cuda->frame_mixed_factors = false;
  cuda->frame_blur_in_up = cuda->geometry.n_planes > 0;
  for (int p = 0; p < cuda->geometry.n_planes; p++) {
    const GbPlaneFilter *filter = &cuda->filters[p];
    float *weights = cuda->device_weights + (size_t) 2 * p * WEIGHTS_STRIDE;

    cuda->filters[p] = filters[p];
    if (filter->multiscale.factor_x != filter->multiscale.factor_y)
      cuda->frame_mixed_factors = true;
    if (!filter->multiscale.factor_x
        || !gb_multiscale_blur_in_up (cuda->geometry.planes[p].channels,
            filter->multiscale.factor_y))
      cuda->frame_blur_in_up = false;
    CUDA_TRY (cudaMemcpyAsync (weights, filter->x.weights,
            sizeof (float) * (2 * filter->x.radius + 1),
            cudaMemcpyHostToDevice, cuda->stream),
        "cannot upload the weights");
    CUDA_TRY (cudaMemcpyAsync (weights + WEIGHTS_STRIDE, filter->y.weights,
            sizeof (float) * (2 * filter->y.radius + 1),
            cudaMemcpyHostToDevice, cuda->stream),
        "cannot upload the weights");
    if (fused_taps (filter))
      for (int axis = 0; axis < 2; axis++) {
        const GbAxisFilter *taps = axis ? &filter->y : &filter->x;
        gb_half_pairs_fill (taps->weights, taps->radius,
            cuda->half_pairs[p][axis], &cuda->half_sum[p][axis]);
        CUDA_TRY (cudaMemcpyAsync (device_half_pairs (cuda, p, axis),
                cuda->half_pairs[p][axis], sizeof cuda->half_pairs[p][axis],
                cudaMemcpyHostToDevice, cuda->stream),
            "cannot upload the weights");
      }
    if (filter->multiscale.factor_x) {
      uint32_t *fragments = cuda->multiscale_up_fragments[p];
      gb_multiscale_up_fragments_fill (&filter->multiscale.up_y,
          filter->multiscale.table, fragments);
      CUDA_TRY (cudaMemcpyAsync (device_multiscale (cuda, p),
              filter->multiscale.table,
              sizeof (float) * filter->multiscale.table_size,
              cudaMemcpyHostToDevice, cuda->stream),
          "cannot upload the multi-scale weights");
      CUDA_TRY (cudaMemcpyAsync (device_multiscale_up_fragments (cuda, p),
              fragments, sizeof cuda->multiscale_up_fragments[p],
              cudaMemcpyHostToDevice, cuda->stream),
          "cannot upload the multi-scale weights");
    }
  }
  return GB_OK;
}

/* The rectangle rect of a plane image (a source or destination of
 * enqueue_planes), as a GbDevicePlane's pointers and size. */
static const void *
offset_in (const GbImage * image, int p, const GbRect & rect, size_t pixel)
{
  return (const char *) image->data[p] + (size_t) rect.y * image->stride[p]
      + (size_t) rect.x * pixel;
}

/* Copies the plane's pixels outside filter->region from src to dst: the
 * rows above and below it, and both sides of its rows. */
static cudaError_t
copy_outside_region (const GbImage * src, const GbImage * dst, int p,
    const GbPlaneGeometry * geometry, const GbPlaneFilter * filter,
    size_t pixel, cudaStream_t stream)
{
  const GbRect &r = filter->region;
  const bool empty = r.width <= 0 || r.height <= 0;
  /* An empty region: the whole plane, once. */
  const GbRect parts[4] = {
    {0, 0, geometry->width, empty ? geometry->height : r.y},
    {0, r.y + r.height, geometry->width, empty ? 0
          : geometry->height - r.y - r.height},
    {0, r.y, empty ? 0 : r.x, r.height},
    {r.x + r.width, r.y, empty ? 0 : geometry->width - r.x - r.width,
        r.height},
  };

  for (const GbRect & part:parts) {
    cudaError_t err;
    if (part.width <= 0 || part.height <= 0)
      continue;
    err = cudaMemcpy2DAsync ((void *) offset_in (dst, p, part, pixel),
        dst->stride[p], offset_in (src, p, part, pixel), src->stride[p],
        (size_t) part.width * pixel, part.height, cudaMemcpyDeviceToDevice,
        stream);
    if (err != cudaSuccess)
      return err;
  }
  return cudaSuccess;
}

/* The blur of one plane's window (filter.h) with the algorithm. */

/* The fused filter's form for a plane (kernels.h): registers for small
 * radii; past them the two-pass form while its fp16 intermediate stays in
 * half the L2, the shared-memory kernel beyond (measured on the H100:
 * docs/performance.md, issue 3). Three channels take the two-pass form at
 * any size: RGB 4K at sigma 5 / 10 / 12, 151 / 231 / 300 us in the
 * shared-memory kernel, 92 / 118 / 125 in two passes (its byte loads and
 * narrow stripes; four channels measured the other way round). */
static cudaError_t
launch_fused (const GbCuda * cuda, const GbPlaneFilter * filter,
    const GbDevicePlane & plane, const GbTaps & taps, GbBorder border,
    cudaStream_t stream)
{
  const int radius = gb_taps_radius (taps);
  const bool two_pass = gb_fused_two_pass_bytes (plane.width, plane.height,
      plane.channels) <= cuda->fused_two_pass_max_bytes
      || !gb_plane_filter_isotropic (filter)
      || !gb_fused_shared_has_kernel (plane.channels);

  if (radius <= gb_fused_registers_max_radius (plane.channels)
      && !(two_pass && plane.channels == 1
          && radius > FUSED_REGISTERS_ONE_CHANNEL_MAX_RADIUS
          && (size_t) plane.width * plane.height
          >= FUSED_TWO_PASS_ONE_CHANNEL_MIN_PIXELS))
    return gb_launch_fused_registers (plane, taps, border, stream);
  if (two_pass)
    return gb_launch_fused_two_pass (plane, taps, border, stream);
  return gb_launch_fused_shared (plane, taps, border, stream);
}

/* What auto takes for a plane without a multi-scale plan. */
static GbAlgorithm
no_plan_algorithm (const GbCuda * cuda, const GbPlaneFilter * filter,
    const GbDevicePlane & plane)
{
  GbGeometry geometry = { };

  geometry.n_planes = 1;
  geometry.bytes_per_sample = plane.bytes_per_sample;
  geometry.planes[0].width = plane.width;
  geometry.planes[0].height = plane.height;
  geometry.planes[0].channels = plane.channels;
  return gb_cuda_auto_algorithm (cuda, filter, &geometry, 0);
}

static cudaError_t
launch_blur (GbCuda * cuda, const GbDevicePlane & plane, const GbTaps & taps,
    const GbPlaneFilter * filter, GbAlgorithm algorithm, GbBorder border,
    cudaStream_t stream)
{
  switch (algorithm) {
    case GB_ALGORITHM_NAIVE:
      return gb_launch_naive_2d (plane, taps, border, stream);
    case GB_ALGORITHM_SHARED:
      return gb_launch_shared_2d (plane, taps, border, stream);
    case GB_ALGORITHM_SEPARABLE:
      return gb_launch_separable (plane, taps, border, stream);
    case GB_ALGORITHM_FUSED:
      /* The same filter as separable: on the tensor cores for 8-bit
       * samples, in FP32 for 16-bit ones; where neither kernel runs (before
       * compute capability 8.0 for 8 bits, past their radii), separable
       * computes it. */
      if (fused_runs (cuda, filter, plane.channels, plane.bytes_per_sample))
        return launch_fused (cuda, filter, plane, taps, border, stream);
      if (gb_fused_float_runs (plane.channels, plane.bytes_per_sample,
              taps.x.radius, taps.y.radius, cuda->shared_per_block))
        return gb_launch_fused_float (plane, taps, border, stream);
      return gb_launch_separable (plane, taps, border, stream);
    case GB_ALGORITHM_RECURSIVE:
      return gb_launch_recursive (plane, taps, border, stream);
    case GB_ALGORITHM_MULTISCALE:
      if (filter->multiscale.factor_x)
        return gb_launch_multiscale (plane, taps, border, stream);
      /* Below its sigma (no plan: an axis under 10, or under 10.75 on the
       * planes of gb_multiscale_late_d8, as on the chroma of a frame whose
       * luma takes the plan) the separable convolution's
       * filter, as on the CPU; by the fused kernels where auto takes them
       * for such a plane (the same filter, docs/algorithms.md section 8):
       * on the H200, NV12 1080p at sigma 15 28.3 -> 23.5 us, NV16 41.5 ->
       * 29.2, NV12 4K 67.5 -> 52.3 (docs/performance.md). */
      if (no_plan_algorithm (cuda, filter, plane) == GB_ALGORITHM_FUSED)
        return launch_blur (cuda, plane, taps, filter, GB_ALGORITHM_FUSED,
            border, stream);
      return gb_launch_separable (plane, taps, border, stream);
    case GB_ALGORITHM_EDGE_AWARE:
      return gb_launch_edge_aware (plane, filter, border, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

/* The rectangle rect of plane p of the device images src and dst, with the
 * plane's buffers, for a kernel that sees it as its whole frame. */
static GbDevicePlane
device_plane (const GbCuda * cuda, int p, const GbImage * src,
    const GbImage * dst, const GbRect & rect)
{
  const GbPlaneGeometry *geometry = &cuda->geometry.planes[p];
  const size_t pixel = (size_t) geometry->channels
      * cuda->geometry.bytes_per_sample;
  GbDevicePlane plane;

  plane.src = offset_in (src, p, rect, pixel);
  plane.src_pitch = src->stride[p];
  plane.dst = (void *) offset_in (dst, p, rect, pixel);
  plane.dst_pitch = dst->stride[p];
  plane.intermediate = cuda->planes[p].intermediate;
  plane.intermediate_pitch = cuda->planes[p].intermediate_pitch;
  plane.transposed = cuda->planes[p].intermediate;
  plane.transposed_pitch = cuda->planes[p].transposed_pitch;
  plane.recursive_states = cuda->planes[p].recursive_states;
  plane.multiscale_scratch = cuda->planes[p].intermediate;
  plane.edge_aware_scratch = cuda->planes[p].edge_aware_scratch;
  plane.width = rect.width;
  plane.height = rect.height;
  plane.channels = geometry->channels;
  plane.bytes_per_sample = cuda->geometry.bytes_per_sample;
  plane.gpu_share = cuda->planes[p].gpu_share;
  plane.frame_mixed_factors = cuda->frame_mixed_factors;
  plane.frame_blur_in_up = cuda->frame_blur_in_up;
  plane.multiscale_row_align = cuda->planes[p].multiscale_row_align;
  return plane;
}

/* Plane p's filter as the launchers take it. */
static GbTaps
plane_taps (const GbCuda * cuda, int p)
{
  const GbPlaneFilter *filter = &cuda->filters[p];
  const float *weights = cuda->device_weights
      + (size_t) 2 * p * WEIGHTS_STRIDE;
  const bool fused = fused_taps (filter);
  const GbTaps taps = {
    {weights, filter->x.weights, filter->x.radius, &filter->x.recursive,
        fused ? device_half_pairs (cuda, p, 0) : NULL,
        cuda->half_sum[p][0]},
    {weights + WEIGHTS_STRIDE, filter->y.weights, filter->y.radius,
          &filter->y.recursive, fused ? device_half_pairs (cuda, p, 1) : NULL,
        cuda->half_sum[p][1]},
    &filter->multiscale,
    device_multiscale (cuda, p),
    device_multiscale_up_fragments (cuda, p)
  };
  return taps;
}

/* Plane p's gather by the separable sum of a map constant along rows
 * (superposition_rows.h), its plan built when the map or the filter
 * changed. Sets *done to false where the plan does not apply. */
static GbStatus
enqueue_rows (GbCuda * cuda, int p, const GbDevicePlane & plane,
    GbBorder border, cudaStream_t stream, bool *done, GbError * error)
{
  GbCudaPlaneBuffers *buffers = &cuda->planes[p];
  const GbPlaneFilter *filter = &cuda->filters[p];
  GbRowPlan *plan = &buffers->row_plan;
  cudaError_t err;

  *done = false;
  if (buffers->row_plan_generation != cuda->sigma_map_generation
      || memcmp (&buffers->row_plan_filter, filter, sizeof *filter) != 0) {
    int applies = 0;
    gb_row_plan_clear (plan);
    buffers->row_plan_generation = 0;
    GbStatus status = gb_row_plan_build (plan, filter,
        &cuda->geometry.planes[p], cuda->row_sigma,
        cuda->geometry.planes[0].height, &applies, error);
    if (status != GB_OK)
      return status;
    if (applies) {
      const size_t tables = (size_t) plan->n_kernels * (plan->stride + 1);
      err = grow_device (cuda, &buffers->device_row_kernel,
          &buffers->device_row_kernel_ints, plan->rows);
      if (err == cudaSuccess)
        err = grow_device (cuda, &buffers->device_row_tables,
            &buffers->device_row_tables_floats, tables);
      if (err == cudaSuccess)
        err = cudaMemcpyAsync (buffers->device_row_kernel, plan->row_kernel,
            sizeof (int) * plan->rows, cudaMemcpyHostToDevice, stream);
      if (err == cudaSuccess)
        err = cudaMemcpyAsync (buffers->device_row_tables, plan->kernels,
            sizeof (float) * plan->n_kernels * plan->stride,
            cudaMemcpyHostToDevice, stream);
      if (err == cudaSuccess)
        err = cudaMemcpyAsync (buffers->device_row_tables
            + (size_t) plan->n_kernels * plan->stride, plan->weight_x,
            sizeof (float) * plan->n_kernels, cudaMemcpyHostToDevice, stream);
      if (err != cudaSuccess)
        return cuda_fail (error, err,
            "cannot allocate or upload the rows' kernels on the GPU");
    }
    buffers->row_plan_applies = applies;
    buffers->row_plan_generation = cuda->sigma_map_generation;
    buffers->row_plan_filter = *filter;
  }
  if (!buffers->row_plan_applies)
    return GB_OK;
  err = grow_device (cuda, &buffers->rows_scratch,
      &buffers->rows_scratch_floats, gb_superposition_rows_scratch_floats
      (plane.width, plane.height, plane.channels));
  if (err != cudaSuccess)
    return cuda_fail (error, err, "cannot allocate the rows' sums on the GPU");
  err = gb_launch_superposition_rows (plane, plan, buffers->device_row_kernel,
      buffers->device_row_tables, buffers->device_row_tables
      + (size_t) plan->n_kernels * plan->stride, buffers->rows_scratch,
      filter->normalize != 0, border, stream);
  if (err != cudaSuccess)
    return cuda_fail (error, err,
        "cannot launch the rows' superposition kernels");
  *done = true;
  return GB_OK;
}

/* The superposition of plane p's window (plane), its kernels prepared from
 * the map unless the last frame left the same ones. */
static GbStatus
enqueue_superposition (GbCuda * cuda, int p, GbDevicePlane plane,
    GbAlgorithm algorithm, GbBorder border, cudaStream_t stream,
    GbError * error)
{
  const GbPlaneGeometry *geometry = &cuda->geometry.planes[p];
  const GbPlaneFilter *filter = &cuda->filters[p];
  GbCudaPlaneBuffers *buffers = &cuda->planes[p];
  bool prepare;
  cudaError_t err;

  /* A regions map whose plan applies: the decomposed sum, equal to the
   * gather's (scatter stays the seed's method, for comparisons). */
  if (cuda->n_regions >= 0 && buffers->plan_applies
      && buffers->plan_generation == cuda->regions_generation
      && algorithm == GB_ALGORITHM_SUPERPOSITION_GATHER)
    return enqueue_regions (cuda, p, plane, stream, error);
  /* (the scatter of a plane whose plan applies) */
  GbStatus status = upload_pending_map (cuda, error);
  if (status != GB_OK)
    return status;
  if (!cuda->device_sigma_map)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "the superposition needs a sigma map (none uploaded)");
  /* A map of one value per row (a horizontal tilt-shift band): the
   * separable sum, equal to the gather's. */
  if (cuda->map_rows_constant && border != GB_BORDER_ZERO
      && algorithm == GB_ALGORITHM_SUPERPOSITION_GATHER) {
    bool done;
    status = enqueue_rows (cuda, p, plane, border, stream, &done, error);
    if (status != GB_OK || done)
      return status;
  }
  if (filter->rmax < 1)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "plane %d: the filter has no superposition radius", p);
  if (!buffers->superposition_scratch) {
    err = cudaMalloc (&buffers->superposition_scratch,
        gb_superposition_scratch_bytes (geometry->width, geometry->height));
    if (err != cudaSuccess)
      return cuda_fail (error, err,
          "cannot allocate the superposition's kernels on the GPU");
    cuda->allocations++;
    buffers->prepared_rmax = 0;
  }
  plane.superposition_scratch = buffers->superposition_scratch;
  prepare = buffers->prepared_rmax != filter->rmax
      || buffers->prepared_generation != cuda->sigma_map_generation
      || memcmp (&buffers->prepared_window, &filter->window,
      sizeof filter->window) != 0;
  /* Until this launch is queued, the scratch holds nothing known. */
  buffers->prepared_rmax = 0;
  err = gb_launch_superposition (plane, filter,
      algorithm == GB_ALGORITHM_SUPERPOSITION_GATHER
      ? GB_SUPERPOSITION_GATHER : GB_SUPERPOSITION_SCATTER,
      cuda->device_sigma_map, cuda->sigma_map_pitch / sizeof (float),
      prepare, border, stream);
  if (err != cudaSuccess)
    return cuda_fail (error, err, "cannot launch the superposition kernels");
  buffers->prepared_rmax = filter->rmax;
  buffers->prepared_generation = cuda->sigma_map_generation;
  buffers->prepared_window = filter->window;
  return GB_OK;
}

static GbStatus finish_plane (GbCuda * cuda, int p, const GbImage * src,
    const GbImage * dst, cudaStream_t stream, GbError * error);

/* Everything one plane needs, on `stream`. */
static GbStatus
enqueue_plane (GbCuda * cuda, int p, const GbImage * src, const GbImage * dst,
    GbAlgorithm algorithm, GbBorder border, cudaStream_t stream,
    GbError * error)
{
  const GbPlaneGeometry *geometry = &cuda->geometry.planes[p];
  const GbPlaneFilter *filter = &cuda->filters[p];
  const GbTaps taps = plane_taps (cuda, p);
  GbDevicePlane plane = device_plane (cuda, p, src, dst, filter->window);
  cudaError_t err;

  if (plane.width > 0 && plane.height > 0
      && algorithm == GB_ALGORITHM_EDGE_AWARE
      && !cuda->planes[p].edge_aware_scratch) {
    GbCudaPlaneBuffers *buffers = &cuda->planes[p];
    err = cudaMalloc (&buffers->edge_aware_scratch,
        gb_edge_aware_scratch_bytes (geometry->width, geometry->height,
            geometry->channels, cuda->geometry.bytes_per_sample));
    if (err != cudaSuccess)
      return cuda_fail (error, err,
          "cannot allocate the edge-aware filter's buffer on the GPU");
    cuda->allocations++;
    plane.edge_aware_scratch = buffers->edge_aware_scratch;
  }
  if (plane.width > 0 && plane.height > 0
      && GB_ALGORITHM_IS_SUPERPOSITION (algorithm)) {
    GbStatus status = enqueue_superposition (cuda, p, plane, algorithm,
        border, stream, error);
    if (status != GB_OK)
      return status;
  } else if (plane.width > 0 && plane.height > 0) {
    err = launch_blur (cuda, plane, taps, filter, algorithm, border, stream);
    if (err != cudaSuccess)
      return cuda_fail (error, err, "cannot launch the blur kernel");
  }
  return finish_plane (cuda, p, src, dst, stream, error);
}

/* After plane p's blur, on `stream`: the sharpening and the copy around
 * the region, where the filter has them. */
static GbStatus
finish_plane (GbCuda * cuda, int p, const GbImage * src, const GbImage * dst,
    cudaStream_t stream, GbError * error)
{
  const GbPlaneGeometry *geometry = &cuda->geometry.planes[p];
  const GbPlaneFilter *filter = &cuda->filters[p];
  const size_t pixel = (size_t) geometry->channels
      * cuda->geometry.bytes_per_sample;
  cudaError_t err;

  if (filter->sharpen > 0.0f && filter->region.width > 0
      && filter->region.height > 0) {
    const GbDevicePlane plane = device_plane (cuda, p, src, dst,
        filter->region);
    err = gb_launch_sharpen (plane, filter->sharpen, stream);
    if (err != cudaSuccess)
      return cuda_fail (error, err, "cannot launch the sharpen kernel");
  }
  if (!filter->whole) {
    err = copy_outside_region (src, dst, p, geometry, filter, pixel, stream);
    if (err != cudaSuccess)
      return cuda_fail (error, err, "cannot copy around the region");
  }
  return GB_OK;
}

/* The fused filter of a frame's planes in one launch, on `stream`, where
 * they qualify (gb_launch_fused_registers_planes: NV12, NV21, NV24, I420
 * and YV12 at 1080p, not 4K, at sigma up to 4.5): NV12 1080p at sigma 1 /
 * 3 on the H200, 10.3 / 11.8 us against 10.6 / 13.8 with a launch a plane
 * on the plane streams (docs/performance.md, "A frame's planes in one
 * launch"). Sets *one_launch to false, having queued nothing, where the
 * planes do not qualify. */
static GbStatus
enqueue_planes_fused (GbCuda * cuda, const GbImage * src,
    const GbImage * dst, GbBorder border, bool *one_launch, GbError * error)
{
  const int n_planes = cuda->geometry.n_planes;
  GbDevicePlane planes[GB_MAX_PLANES];
  GbTaps taps[GB_MAX_PLANES];
  cudaError_t err;

  *one_launch = false;
  for (int p = 0; p < n_planes; p++) {
    const GbPlaneFilter *filter = &cuda->filters[p];
    if (!fused_runs (cuda, filter, cuda->geometry.planes[p].channels,
            cuda->geometry.bytes_per_sample))
      return GB_OK;
    planes[p] = device_plane (cuda, p, src, dst, filter->window);
    taps[p] = plane_taps (cuda, p);
  }
  err = gb_launch_fused_registers_planes (planes, taps, n_planes, border,
      cuda->stream, one_launch);
  if (err != cudaSuccess)
    return cuda_fail (error, err, "cannot launch the blur kernel");
  if (!*one_launch)
    return GB_OK;
  for (int p = 0; p < n_planes; p++) {
    GbStatus status = finish_plane (cuda, p, src, dst, cuda->stream, error);
    if (status != GB_OK)
      return status;
  }
  return GB_OK;
}

static GbStatus
enqueue_planes (GbCuda * cuda, const GbImage * src, const GbImage * dst,
    GbAlgorithm algorithm, GbBorder border, GbError * error)
{
  const int n_planes = cuda->geometry.n_planes;
  GbStatus status = GB_OK;
  int forked = 0;

  if (algorithm <= GB_ALGORITHM_AUTO || algorithm > GB_ALGORITHM_LAST)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "algorithm %s is not a kernel", gb_algorithm_name (algorithm));

  if (GB_ALGORITHM_IS_SUPERPOSITION (algorithm)) {
    status = prepare_regions (cuda, error);
    if (status != GB_OK)
      return status;
  }
  cuda->last_in_one_launch = false;
  if (algorithm == GB_ALGORITHM_FUSED && n_planes > 1 && !cuda->planes_apart) {
    bool one_launch = false;
    status = enqueue_planes_fused (cuda, src, dst, border, &one_launch,
        error);
    cuda->last_in_one_launch = one_launch;
    if (status != GB_OK || one_launch)
      return status;
  }
  /* Fork: planes 1.. start after what `stream` holds (the upload, the
   * weights, the map). */
  if (n_planes > 1)
    CUDA_TRY (cudaEventRecord (cuda->fork, cuda->stream),
        "cannot fork the plane streams");
  for (int p = 1; p < n_planes; p++, forked++) {
    cudaError_t err = cudaStreamWaitEvent (cuda->plane_streams[p],
        cuda->fork, 0);
    if (err != cudaSuccess) {
      status = cuda_fail (error, err, "cannot fork the plane streams");
      break;
    }
  }
  for (int p = 0; p < n_planes && status == GB_OK; p++)
    status = enqueue_plane (cuda, p, src, dst, algorithm, border,
        p == 0 ? cuda->stream : cuda->plane_streams[p], error);
  /* Join, even after a failure: whatever was queued on the plane streams
   * is then ordered before anything later on `stream`, which is all the
   * rest of the backend synchronises with. */
  for (int p = 1; p <= forked; p++) {
    cudaError_t err = cudaEventRecord (cuda->joins[p],
        cuda->plane_streams[p]);
    if (err == cudaSuccess)
      err = cudaStreamWaitEvent (cuda->stream, cuda->joins[p], 0);
    if (err != cudaSuccess) {
      /* No join: wait here, so that nothing of this plane outlives the
       * frame (buffers and weights are only guarded by `stream`). */
      cudaStreamSynchronize (cuda->plane_streams[p]);
      if (status == GB_OK)
        status = cuda_fail (error, err, "cannot join the plane streams");
    }
  }
  return status;
}

GbStatus
gb_cuda_enqueue (GbCuda * cuda, const GbImage * device_src,
    const GbImage * device_dst, GbAlgorithm algorithm, GbBorder border,
    GbError * error)
{
  GbStatus status = gb_image_validate (&cuda->geometry, device_src,
      "source", error);
  if (status == GB_OK)
    status = gb_image_validate (&cuda->geometry, device_dst, "destination",
        error);
  if (status != GB_OK)
    return status;
  CUDA_TRY (select_device (cuda), "cannot select the CUDA device");
  return enqueue_planes (cuda, device_src, device_dst, algorithm, border,
      error);
}

/* GB_CUDA_BANDS=<n> in the environment replaces the band count (at most
 * GB_CUDA_MAX_BANDS, and rows permitting), for measuring others. */
static int
forced_bands (void)
{
  static int forced = -1;
  if (forced < 0) {
    const char *text = getenv ("GB_CUDA_BANDS");
    forced = text && atoi (text) > 0 ? atoi (text) : 0;
  }
  return forced;
}

/* Rows a band has at least: twice the apron (so that a band's apron rows
 * fall on its neighbours' rows only), and GB_CUDA_BAND_MIN_ROWS. */
static int
band_min_rows (const GbPlaneFilter * filter)
{
  return 2 * filter->y.radius > GB_CUDA_BAND_MIN_ROWS ? 2 * filter->y.radius
      : GB_CUDA_BAND_MIN_ROWS;
}

/* How many bands a host frame is cut into: 1 (not cut) unless it is one
 * plane, large, blurred over its whole area without sharpening, by a
 * convolution (whose output rows depend on the radius' rows around them
 * only, so that a band computed from its rows and an apron of radius rows
 * is exactly the whole frame's), and tall enough for bands of at least
 * twice the apron. */
static int
band_count (const GbCuda * cuda, GbAlgorithm algorithm)
{
  const GbPlaneGeometry *plane = &cuda->geometry.planes[0];
  const GbPlaneFilter *filter = &cuda->filters[0];
  const size_t bytes = (size_t) plane->width * plane->height
      * plane->channels * cuda->geometry.bytes_per_sample;
  int rows, bands;

  if (cuda->geometry.n_planes != 1 || !filter->whole
      || filter->sharpen > 0.0f || bytes < GB_CUDA_BAND_MIN_BYTES
      || !cuda->slots[0].output_odd)
    return 1;
  if (algorithm != GB_ALGORITHM_NAIVE && algorithm != GB_ALGORITHM_SHARED
      && algorithm != GB_ALGORITHM_SEPARABLE
      && algorithm != GB_ALGORITHM_FUSED)
    return 1;
  rows = band_min_rows (filter);
  bands = forced_bands () > 0 ? forced_bands ()
      : (int) ((bytes + GB_CUDA_BAND_BYTES / 2) / GB_CUDA_BAND_BYTES);
  if (bands > plane->height / rows)
    bands = plane->height / rows;
  if (bands < 1)
    bands = 1;
  if (forced_bands () == 0 && bands > GB_CUDA_RULE_MAX_BANDS)
    bands = GB_CUDA_RULE_MAX_BANDS;
  return bands > GB_CUDA_MAX_BANDS ? GB_CUDA_MAX_BANDS : bands;
}

/* Where band k of `bands` starts (k = bands: the height). Even bands of
 * at least height / bands rows (band_count keeps that >= band_min_rows).
 * Bands tapered at both ends (weights 1, 2, 4, ..., 4, 2, 1, so that the
 * download lags the upload less at the start and outlasts it less at the
 * end) measured the same through the element on the H100: 1080p RGBA at
 * 4000 frames/s, latency median 255-259 us against 258-261, p99 283-409
 * against 287-353 (three runs each). */
static int
band_start (int height, int bands, int k)
{
  return (int) ((long long) height * k / bands);
}

#define HOST_TRY(call, what) \
  do { \
    cudaError_t host_err_ = (call); \
    if (host_err_ != cudaSuccess) \
      return cuda_fail (error, host_err_, what); \
  } while (0)

/* The device images of a slot's frame buffers; dst_odd: the odd bands'
 * output instead of the output. */
static void
slot_images (const GbCuda * cuda, const GbCudaFrameSlot * slot,
    GbImage * device_src, GbImage * device_dst, bool dst_odd)
{
  memset (device_src, 0, sizeof *device_src);
  memset (device_dst, 0, sizeof *device_dst);
  for (int p = 0; p < cuda->geometry.n_planes; p++) {
    device_src->data[p] = slot->input[p];
    device_src->stride[p] = slot->input_pitch[p];
    device_dst->data[p] = dst_odd ? slot->output_odd : slot->output[p];
    device_dst->stride[p] = dst_odd ? slot->output_odd_pitch
        : slot->output_pitch[p];
  }
}

/* Every plane of `from` into `to`, one 2D copy each, on `stream`. */
static cudaError_t
copy_planes_async (const GbCuda * cuda, const GbImage * to,
    const GbImage * from, cudaMemcpyKind kind, cudaStream_t stream)
{
  cudaError_t err = cudaSuccess;

  for (int p = 0; p < cuda->geometry.n_planes && err == cudaSuccess; p++) {
    const GbPlaneGeometry *plane = &cuda->geometry.planes[p];
    err = cudaMemcpy2DAsync (to->data[p], to->stride[p], from->data[p],
        from->stride[p], (size_t) plane->width * plane->channels
        * cuda->geometry.bytes_per_sample, plane->height, kind, stream);
  }
  return err;
}

/* A host frame in one piece, every plane, on three streams: the upload
 * (after the slot's last frame was read), the blur (after the upload and
 * the slot's last download) and the download (after the blur). Frames in
 * flight in other slots overlap it: one's download with the next one's
 * upload, on the two copy engines. */
static GbStatus
enqueue_host_whole (GbCuda * cuda, GbCudaFrameSlot * slot, const GbImage * src,
    const GbImage * dst, GbAlgorithm algorithm, GbBorder border,
    GbError * error)
{
  GbImage device_src, device_dst;
  GbStatus status;

  slot_images (cuda, slot, &device_src, &device_dst, false);
  HOST_TRY (cudaStreamWaitEvent (cuda->upload_stream, slot->input_read, 0),
      "cannot order the frames");
  HOST_TRY (copy_planes_async (cuda, &device_src, src, cudaMemcpyHostToDevice,
          cuda->upload_stream), "cannot upload the frame");
  HOST_TRY (cudaEventRecord (cuda->uploaded[0], cuda->upload_stream),
      "cannot order the frames");
  HOST_TRY (cudaStreamWaitEvent (cuda->stream, cuda->uploaded[0], 0),
      "cannot order the frames");
  HOST_TRY (cudaStreamWaitEvent (cuda->stream, slot->downloaded, 0),
      "cannot order the frames");
  status = enqueue_planes (cuda, &device_src, &device_dst, algorithm, border,
      error);
  if (status != GB_OK)
    return status;
  HOST_TRY (cudaEventRecord (slot->input_read, cuda->stream),
      "cannot order the frames");
  HOST_TRY (cudaStreamWaitEvent (cuda->download_stream, slot->input_read, 0),
      "cannot order the frames");
  HOST_TRY (copy_planes_async (cuda, dst, &device_dst, cudaMemcpyDeviceToHost,
          cuda->download_stream), "cannot download the frame");
  return GB_OK;
}

/* One plane in `bands` horizontal bands of h >= 2 R rows: band k's upload,
 * blur and download overlap those of its neighbours (issue 5), on the same
 * three streams:
 *   upload:   rows of band 0, 1, 2 ..., each with the R rows below it
 *             not yet uploaded (uploaded[j] after band j);
 *   blur:     band k over its rows and an apron of the y radius R above
 *             and below (waits for uploaded[k]);
 *   download: band k's rows (waits for computed[k]).
 * Measured on the H100 with plain CUDA
 * (transfer-bench, 1080p RGBA, 8 even bands, polled): the GPU's end came
 * 225 us after the first upload's start with each upload carrying its
 * apron, against 242-254 us with blur k waiting for upload k + 1.
 * The blur of band k sees its window as a whole frame: its apron rows come
 * out wrong, and only band k's own rows are downloaded. Even bands write
 * the slot's output buffer, odd ones `output_odd`: the apron rows of band k
 * fall on rows of bands k - 1 and k + 1 only (h >= 2 R), which use the
 * other buffer, so no blur waits for a download. */
static GbStatus
enqueue_host_banded (GbCuda * cuda, GbCudaFrameSlot * slot,
    const GbImage * src, const GbImage * dst, GbAlgorithm algorithm,
    GbBorder border, int bands, GbError * error)
{
  const GbPlaneGeometry *geometry = &cuda->geometry.planes[0];
  const GbPlaneFilter *filter = &cuda->filters[0];
  const size_t row_bytes = (size_t) geometry->width * geometry->channels
      * cuda->geometry.bytes_per_sample;
  const int height = geometry->height;
  const int apron = filter->y.radius;
  const GbTaps taps = plane_taps (cuda, 0);
  GbImage device_src, device_dst[2];
  int uploaded_to = 0;

  slot_images (cuda, slot, &device_src, &device_dst[0], false);
  slot_images (cuda, slot, &device_src, &device_dst[1], true);

  HOST_TRY (cudaStreamWaitEvent (cuda->upload_stream, slot->input_read, 0),
      "cannot order the frames");
  /* Upload j carries band j's rows and the apron below it, so that blur j
   * waits for upload j alone (not for the next band's whole upload). */
  for (int j = 0; j < bands; j++) {
    const int end = band_start (height, bands, j + 1);
    const int to = end + apron < height ? end + apron : height;
    if (to > uploaded_to)
      HOST_TRY (cudaMemcpy2DAsync (slot->input[0] + uploaded_to
              * slot->input_pitch[0], slot->input_pitch[0],
              (const char *) src->data[0] + uploaded_to * src->stride[0],
              src->stride[0], row_bytes, to - uploaded_to,
              cudaMemcpyHostToDevice, cuda->upload_stream),
          "cannot upload the frame");
    uploaded_to = to > uploaded_to ? to : uploaded_to;
    HOST_TRY (cudaEventRecord (cuda->uploaded[j], cuda->upload_stream),
        "cannot upload the frame");
  }

  HOST_TRY (cudaStreamWaitEvent (cuda->stream, slot->downloaded, 0),
      "cannot order the frames");
  for (int k = 0; k < bands; k++) {
    const int first = band_start (height, bands, k);
    const int end = band_start (height, bands, k + 1);
    const int top = first - apron > 0 ? first - apron : 0;
    const int bottom = end + apron < height ? end + apron : height;
    const GbRect window = { 0, top, geometry->width, bottom - top };
    const GbImage *out = &device_dst[k & 1];
    const GbDevicePlane plane = device_plane (cuda, 0, &device_src, out,
        window);

    HOST_TRY (cudaStreamWaitEvent (cuda->stream, cuda->uploaded[k], 0),
        "cannot order the bands");
    HOST_TRY (launch_blur (cuda, plane, taps, filter, algorithm, border,
            cuda->stream), "cannot launch the blur kernel");
    HOST_TRY (cudaEventRecord (cuda->computed[k], cuda->stream),
        "cannot order the bands");
    HOST_TRY (cudaStreamWaitEvent (cuda->download_stream, cuda->computed[k],
            0), "cannot order the bands");
    HOST_TRY (cudaMemcpy2DAsync ((char *) dst->data[0]
            + first * dst->stride[0], dst->stride[0],
            (const char *) out->data[0] + first * out->stride[0],
            out->stride[0], row_bytes, end - first, cudaMemcpyDeviceToHost,
            cuda->download_stream), "cannot download the frame");
  }
  HOST_TRY (cudaEventRecord (slot->input_read, cuda->stream),
      "cannot order the frames");
  return GB_OK;
}

unsigned
gb_cuda_frames_in_flight (const GbCuda * cuda)
{
  return __atomic_load_n (&cuda->submitted, __ATOMIC_ACQUIRE)
      - __atomic_load_n (&cuda->completed, __ATOMIC_ACQUIRE);
}

GbStatus
gb_cuda_submit_host (GbCuda * cuda, const GbImage * src, const GbImage * dst,
    GbAlgorithm algorithm, GbBorder border, GbError * error)
{
  const unsigned submitted = cuda->submitted;
  GbCudaFrameSlot *slot = &cuda->slots[submitted % cuda->n_slots];
  GbStatus status;
  cudaError_t err;
  int bands;

  CUDA_TRY (select_device (cuda), "cannot select the CUDA device");
  if (algorithm <= GB_ALGORITHM_AUTO || algorithm > GB_ALGORITHM_LAST)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "algorithm %s is not a kernel", gb_algorithm_name (algorithm));
  if (submitted - __atomic_load_n (&cuda->completed, __ATOMIC_ACQUIRE)
      >= (unsigned) cuda->n_slots)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "%d frame%s already in flight: complete one first", cuda->n_slots,
        cuda->n_slots == 1 ? "" : "s");
  bands = band_count (cuda, algorithm);
  status = bands > 1 ? enqueue_host_banded (cuda, slot, src, dst, algorithm,
      border, bands, error) : enqueue_host_whole (cuda, slot, src, dst,
      algorithm, border, error);
  /* The last download follows every blur and upload of the frame: its end
   * is the frame's. */
  if (status == GB_OK
      && (err = cudaEventRecord (slot->downloaded, cuda->download_stream))
      != cudaSuccess)
    status = cuda_fail (error, err, "cannot record the end of the frame");
  if (status != GB_OK) {
    /* Nothing of the frame may run on once the caller has it back. */
    drain_streams (cuda);
    return status;
  }
  slot->submitted_us = monotonic_us ();
  __atomic_store_n (&cuda->submitted, submitted + 1, __ATOMIC_RELEASE);
  return GB_OK;
}

/* GB_CUDA_HOST_WAIT=block in the environment makes host frames wait on the
 * blocking event alone, for measuring the difference. */
static bool
host_wait_blocks (void)
{
  static int blocks = -1;
  if (blocks < 0) {
    const char *text = getenv ("GB_CUDA_HOST_WAIT");
    blocks = text && strcmp (text, "block") == 0;
  }
  return blocks;
}

static void
sleep_until_us (double deadline)
{
  struct timespec until;

  until.tv_sec = (time_t) (deadline * 1e-6);
  until.tv_nsec = (long) ((deadline - until.tv_sec * 1e6) * 1e3);
  /* the seconds rounded at a second's edge */
  if (until.tv_nsec >= 1000000000L) {
    until.tv_sec++;
    until.tv_nsec -= 1000000000L;
  } else if (until.tv_nsec < 0) {
    until.tv_sec--;
    until.tv_nsec += 1000000000L;
  }
  while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &until,
          NULL) == EINTR);
}

/* Waits for a host frame's last download without spinning: it sleeps until
 * shortly before the frame's expected end, checks its event every few
 * microseconds from there, and sleeps on the blocking event when the frame
 * is late. The thread's timer slack (50 us by default on Linux, which
 * every sleep would add) is lowered for the wait and put back after.
 *
 * The expected time (from submission to the end) learns from the frames
 * whose end a check caught, which is exact to a check's interval, and from
 * late ones (at most twice the expectation: one stall moves it little). A
 * frame found done at the first check ended at some unknown time before
 * it, so the expectation shrinks by a quarter: a guess too long, such as
 * the first frame's (which loads the kernels), wears off in a few frames
 * (a tenfold guess in eight), and one too short grows by up to an eighth a
 * frame (after a larger sigma, say). It starts again from the blocking
 * event when the geometry or the depth changes. */
static cudaError_t
wait_for_host_frame (GbCuda * cuda, GbCudaFrameSlot * slot)
{
  const double expected = cuda->host_frame_us;
  const double wake = slot->submitted_us + expected - GB_CUDA_WAKE_EARLY_US;
  const double late = slot->submitted_us + expected
      + fmax (GB_CUDA_CHECK_LATE_US, expected / 4);
  cudaError_t err = cudaEventQuery (slot->downloaded);
  int checks = 0, slack;
  double now, observed;

  if (err != cudaErrorNotReady)
    return err;                 /* done already (or failed) */
  if (expected <= 0 || host_wait_blocks ()) {
    err = cudaEventSynchronize (slot->downloaded);
    if (err == cudaSuccess && !host_wait_blocks ())
      cuda->host_frame_us = monotonic_us () - slot->submitted_us;
    return err;
  }
#ifdef __linux__
  slack = prctl (PR_GET_TIMERSLACK, 0, 0, 0, 0);
  if (slack >= 0)
    prctl (PR_SET_TIMERSLACK, 1000, 0, 0, 0);
#else
  slack = -1;
#endif
  if (monotonic_us () < wake)
    sleep_until_us (wake);
  while ((err = cudaEventQuery (slot->downloaded)) == cudaErrorNotReady
      && (now = monotonic_us ()) < late) {
    sleep_until_us (now + GB_CUDA_CHECK_EVERY_US);
    checks++;
  }
#ifdef __linux__
  if (slack >= 0)
    prctl (PR_SET_TIMERSLACK, (unsigned long) slack, 0, 0, 0);
#endif
  if (err == cudaErrorNotReady) {
    err = cudaEventSynchronize (slot->downloaded);      /* late */
    checks++;
  }
  if (err != cudaSuccess)
    return err;
  observed = fmin (monotonic_us () - slot->submitted_us, 2 * expected);
  cuda->host_frame_us = checks == 0 ? expected * 0.75
      : expected + GB_CUDA_EXPECTED_WEIGHT * (observed - expected);
  return err;
}

GbStatus
gb_cuda_complete_host (GbCuda * cuda, GbError * error)
{
  const unsigned completed = cuda->completed;
  GbCudaFrameSlot *slot;
  cudaError_t err;

  if (completed == __atomic_load_n (&cuda->submitted, __ATOMIC_ACQUIRE))
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "no frame in flight");
  slot = &cuda->slots[completed % cuda->n_slots];
  CUDA_TRY (select_device (cuda), "cannot select the CUDA device");
  /* Kernel faults surface here, with the kernel's own error. */
  err = wait_for_host_frame (cuda, slot);
  __atomic_store_n (&cuda->completed, completed + 1, __ATOMIC_RELEASE);
  if (err != cudaSuccess)
    return cuda_fail (error, err, "blur on the GPU failed");
  return GB_OK;
}

GbStatus
gb_cuda_process_host (GbCuda * cuda, const GbImage * src, const GbImage * dst,
    GbAlgorithm algorithm, GbBorder border, GbError * error)
{
  GbStatus status;

  if (gb_cuda_frames_in_flight (cuda) != 0)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "frames are in flight: complete them first");
  status = gb_cuda_submit_host (cuda, src, dst, algorithm, border, error);
  return status == GB_OK ? gb_cuda_complete_host (cuda, error) : status;
}

GbStatus
gb_cuda_wait (GbCuda * cuda, GbError * error)
{
  CUDA_TRY (select_device (cuda), "cannot select the CUDA device");
  /* Kernel faults surface here, with the kernel's own error. The event
   * blocks the thread (no busy wait: the CPU time per frame stays that of
   * the enqueueing). */
  CUDA_TRY (cudaEventRecord (cuda->frame_done, cuda->stream),
      "cannot record the end of the frame");
  CUDA_TRY (cudaEventSynchronize (cuda->frame_done), "blur on the GPU failed");
  return GB_OK;
}

GbStatus
gb_cuda_wait_short (GbCuda * cuda, GbError * error)
{
  const double start = monotonic_us ();
  GbStatus status;
  cudaError_t err;

  CUDA_TRY (select_device (cuda), "cannot select the CUDA device");
  CUDA_TRY (cudaEventRecord (cuda->frame_polled, cuda->stream),
      "cannot record the end of the frame");
  if (++cuda->frames_polled % GB_CUDA_POLL_RETRY == 0)
    cuda->poll_us = GB_CUDA_POLL_US;
  /* Yielding between queries leaves the core to other runnable threads
   * (a decoder's) while the GPU works. */
  while ((err = cudaEventQuery (cuda->frame_polled)) == cudaErrorNotReady
      && monotonic_us () < start + cuda->poll_us)
    sched_yield ();
  if (err == cudaSuccess) {
    /* ended within the poll: the next polls fully */
    cuda->poll_us = GB_CUDA_POLL_US;
    return GB_OK;
  }
  if (err != cudaErrorNotReady)
    return cuda_fail (error, err, "blur on the GPU failed");
  /* Not ended within the poll: a long frame, or one waiting behind other
   * work (many streams on one GPU), where polling only burns a core. The
   * next frame polls half as long, and a full poll now and then finds out
   * whether frames got short again. */
  status = gb_cuda_wait (cuda, error);
  cuda->poll_us /= 2;
  return status;
}

GbStatus
gb_cuda_synchronize (GbCuda * cuda, GbError * error)
{
  CUDA_TRY (select_device (cuda), "cannot select the CUDA device");
  CUDA_TRY (cudaStreamSynchronize (cuda->stream), "blur on the GPU failed");
  return GB_OK;
}

void *
gb_cuda_stream (GbCuda * cuda)
{
  return cuda->stream;
}

GbStatus
gb_cuda_host_alloc (size_t bytes, void **memory, GbError * error)
{
  int count = 0;
  cudaError_t err = cudaGetDeviceCount (&count);

  *memory = NULL;
  if (err != cudaSuccess || count == 0)
    return gb_error_set (error, GB_ERROR_NO_DEVICE,
        "no usable CUDA device for page-locked memory: %s",
        err != cudaSuccess ? cudaGetErrorString (err) : "none found");
  /* Portable: pinned for every device and context of the process, so a
   * buffer serves any element instance whatever its cuda-device-id. */
  err = cudaHostAlloc (memory, bytes ? bytes : 1, cudaHostAllocPortable);
  if (err != cudaSuccess) {
    *memory = NULL;
    return cuda_fail (error, err, "cannot allocate page-locked host memory");
  }
  return GB_OK;
}

void
gb_cuda_host_free (void *memory)
{
  if (memory)
    cudaFreeHost (memory);
}

unsigned
gb_cuda_allocation_count (const GbCuda * cuda)
{
  return cuda->allocations;
}

void
gb_cuda_destroy (GbCuda * cuda)
{
  if (!cuda)
    return;
  select_device (cuda);
  drain_streams (cuda);
  free_planes (cuda);
  cudaFree (cuda->device_weights);
  cudaFree (cuda->device_multiscale);
  cudaFree (cuda->device_half_pairs);
  for (int p = 1; p < GB_MAX_PLANES; p++) {
    if (cuda->plane_streams[p])
      cudaStreamDestroy (cuda->plane_streams[p]);
    if (cuda->joins[p])
      cudaEventDestroy (cuda->joins[p]);
  }
  if (cuda->fork)
    cudaEventDestroy (cuda->fork);
  if (cuda->frame_done)
    cudaEventDestroy (cuda->frame_done);
  if (cuda->frame_polled)
    cudaEventDestroy (cuda->frame_polled);
  for (int b = 0; b < GB_CUDA_MAX_BANDS; b++) {
    if (cuda->uploaded[b])
      cudaEventDestroy (cuda->uploaded[b]);
    if (cuda->computed[b])
      cudaEventDestroy (cuda->computed[b]);
  }
  for (int i = 0; i < GB_MAX_FRAMES_IN_FLIGHT; i++) {
    if (cuda->slots[i].input_read)
      cudaEventDestroy (cuda->slots[i].input_read);
    if (cuda->slots[i].downloaded)
      cudaEventDestroy (cuda->slots[i].downloaded);
  }
  if (cuda->upload_stream)
    cudaStreamDestroy (cuda->upload_stream);
  if (cuda->download_stream)
    cudaStreamDestroy (cuda->download_stream);
  if (cuda->stream)
    cudaStreamDestroy (cuda->stream);
  free (cuda->regions);
  free (cuda);
}

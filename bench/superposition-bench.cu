/* cudagaussblur-superposition-bench: the spatially varying Gaussian blur by
 * kernel superposition (seed 003, issue 8) on the GPU: gather against
 * scatter as in the seed, and the issue's target for blurring regions of a
 * 1080p frame.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The superposition's kernels are driven through the core's internal
 * launcher, gb_launch_superposition() (kernels.h), on device frames, with
 * the filter from gb_plane_filters_resolve() and
 * gb_plane_filters_set_superposition() (filter.h), the device scratch of
 * gb_superposition_scratch_bytes() and device sigma maps of the bench's
 * own. That lets it time the two variants separately: "prepare + kernel"
 * (prepare = true: the per-pixel kernels computed from the map first, the
 * cost of a map that changes every frame) and "kernel" (prepare = false:
 * a static map, whose kernels the last launch left in the scratch). The
 * uniform blur, the copy floor and the map uploads go through the CUDA
 * backend (cuda_backend.h) and raw CUDA copies, on the backend's stream.
 * The border is clamp throughout.
 *
 * Timing: CUDA events around batches of launches; a batch is about
 * --batch-ms (default 5, --quick 0.5) of launches, at least one; after two
 * warm-up launches, TIMED_BATCHES (21) batches are timed and the median of
 * their mean launch time is reported (so at least 21 timed launches). The
 * launches rotate through >= 256 MB of input and output frames (the 50 MB
 * L2 keeps none), and the "prepare" variants through >= 128 MB of device
 * maps with the same content, so the prepare kernel reads its map from
 * memory too.
 *
 * 1. The seed's comparison: 512x512 RGBA8 and GRAY8, input samples uniform
 *    random bytes (the seed: uniform floats in [0, 1)), sigma per pixel
 *    uniform in [0, rmax / 3) (the seed's [0, rmax / n_sigma), n_sigma = 3;
 *    24-bit uniforms from a fixed-seed mt19937, one field scaled for every
 *    rmax), rmax = 1 .. 32. Per rmax: gather and scatter, prepare + kernel
 *    and kernel alone, and the speed-up gather / scatter; the seed measured
 *    2.1-14.5x (GTX 580) and 1.3-4.9x (GTX 680) for its fastest scatter
 *    over its fastest gather (kernel only: it timed the kernels, not the
 *    memory transfers). At rmax 4 and 32 the output of both methods,
 *    through the launcher and through the backend (gb_cuda_set_sigma_map +
 *    gb_cuda_enqueue), is compared with gb_superposition_cpu(): the largest
 *    difference must be <= 1 level.
 * 2. The issue's target: 1920x1080 RGBA8 with 8 face-sized regions (boxes
 *    of 140x180 on a 4 x 2 grid, sigma 10, feather 8, gb_sigma_map_regions;
 *    rmax = ceil(3 x 10) = 30, what the element derives). A ROI map changes
 *    every frame, so gather and scatter are timed with prepare; against
 *    (a) a uniform blur of the whole frame at sigma 10 with the algorithm
 *    GB_ALGORITHM_AUTO picks on the GPU (gb_cuda_auto_algorithm) plus a
 *    device-to-device copy of the frame, both measured in the same run:
 *    ratio = superposition / (blur + copy), target <= 1.5. Beside them, for
 *    information: the kernels alone, the map's upload (gb_cuda_set_sigma_map
 *    from pageable memory, as the element does, and from pinned memory),
 *    the whole per-frame GPU work through the backend (upload + prepare +
 *    kernel, the method gb_cuda_auto_superposition picks) and building the
 *    map on the CPU; and the regions plan (superposition_regions.h), as
 *    the element runs a roi map: with regions that move every frame, with
 *    the same regions (kernels only), and normalised (the element's
 *    default). (b) Frames without regions: the element passes them
 *    through untouched, so they cost nothing on the GPU; the copy floor is
 *    printed for scale. Both methods' outputs are compared with the CPU
 *    reference (<= 1 level).
 * 3. Tilt-shift at 1080p RGBA (gb_sigma_map_tilt_shift: sigma 10, centre
 *    of the frame, horizontal, band 0.2, transition 0.3; rmax 30), a static
 *    map: gather and scatter, kernel only; and through the backend, where
 *    the band's map (one value per row) takes the separable sum
 *    (superposition_rows.h). All outputs are compared with the CPU
 *    reference (<= 1 level).
 *
 * The CPU references (gb_superposition_cpu, scatter: the same doubles as
 * gather, faster) run on threads, all at once, before any timing; the
 * tilt-shift one, the longest, took about 10 s on the development machine.
 *
 * Usage: cudagaussblur-superposition-bench [--quick] [--batch-ms MS]
 *            [--csv FILE] [--roi-only]
 * --roi-only runs part 2 alone (and its CPU reference alone): the run to
 * put under a profiler.
 * --csv also writes every row to FILE (CSV_HEADER below; an empty field was
 * not measured; ratio is defined by ratio_def on each row).
 * Exit status: 0; 1 when a check fails (a difference above 1) or on an
 * error; 2 on bad options; 77 without a CUDA device. A missed target is
 * reported, not an exit status.
 */
#include "gaussblur.h"
#include "cuda_backend.h"
#include "filter.h"
#include "kernels.h"
#include "sigma_map.h"
#include "superposition.h"
#include "device_timing.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <random>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace gb_bench;

constexpr int SEED_SIZE = 512;
constexpr int SEED_MAX_RMAX = GB_SUPERPOSITION_MAX_RADIUS;      /* 32 */
constexpr int CHECK_RMAX_SMALL = 4, CHECK_RMAX_LARGE = 32;
constexpr int MAX_DIFF_ALLOWED = 1;
constexpr int TIMED_BATCHES = 21;       /* odd: the median is one of them */
constexpr int WARMUP_LAUNCHES = 2;
constexpr double DEFAULT_BATCH_MS = 5, QUICK_BATCH_MS = 0.5;
constexpr size_t MAP_ROTATION_BYTES = 128u << 20;
constexpr int HD_WIDTH = 1920, HD_HEIGHT = 1080;
constexpr int ROI_COUNT = 8, ROI_WIDTH = 140, ROI_HEIGHT = 180;
constexpr double ROI_SIGMA = 10, ROI_FEATHER = 8, ROI_TARGET = 1.5;
constexpr double TILT_SIGMA = 10, TILT_BAND = 0.2, TILT_TRANSITION = 0.3;
constexpr double BASELINE_SIGMA = 10;
constexpr unsigned RANDOM_SEED = 3;
constexpr const char *CSV_HEADER = "section,format,width,height,map,rmax,"
    "method,prepare,us,ratio,ratio_def,max_diff";

double batch_ms = DEFAULT_BATCH_MS;
FILE *csv = NULL;

void
check_gb (GbStatus status, const GbError & error, const char *what)
{
  if (status != GB_OK) {
    fprintf (stderr, "%s: %s (%s)\n", what, error.message,
        gb_status_name (status));
    exit (1);
  }
}

/* prepare: 1, 0, or -1 (not applicable); max_diff -1: not measured. */
void
csv_row (const char *section, const char *format, int width, int height,
    const char *map, int rmax, const char *method, int prepare, double us,
    double ratio, const char *ratio_def, int max_diff)
{
  if (!csv)
    return;
  fprintf (csv, "%s,%s,%d,%d,%s,%s,%s,%s,%s,%s,%s,%s\n", section, format,
      width, height, map, rmax > 0 ? std::to_string (rmax).c_str () : "",
      method, prepare >= 0 ? std::to_string (prepare).c_str () : "",
      num (us).c_str (), num (ratio, "%.4f").c_str (), ratio_def,
      max_diff >= 0 ? std::to_string (max_diff).c_str () : "");
  fflush (csv);
}

/* Median over TIMED_BATCHES of the mean launch time in a batch, in
 * microseconds. enqueue(i) enqueues launch i on `stream` (i counts on
 * across warm-up and batches, for the rotation). */
template < class Enqueue > double
time_median (cudaStream_t stream, Enqueue enqueue)
{
  cudaEvent_t start, stop;
  float ms = 0;
  int next = 0;
  std::vector < double >samples;

  CHECK_CUDA (cudaEventCreate (&start));
  CHECK_CUDA (cudaEventCreate (&stop));
  for (int i = 0; i < WARMUP_LAUNCHES; i++)
    enqueue (next++);
  /* One launch alone, to size the batches. */
  ms = elapsed_ms (stream, start, stop,[&] () {
        enqueue (next++);
      });
  const int iterations = std::max (1, std::min (MAX_BATCH,
          (int) (batch_ms / std::max (ms, 1e-3f))));
  for (int r = 0; r < TIMED_BATCHES; r++) {
    ms = elapsed_ms (stream, start, stop,[&] () {
          for (int i = 0; i < iterations; i++)
            enqueue (next++);
        });
    samples.push_back (1e3 * ms / iterations);
  }
  CHECK_CUDA (cudaGetLastError ());
  cudaEventDestroy (start);
  cudaEventDestroy (stop);
  std::sort (samples.begin (), samples.end ());
  return samples[TIMED_BATCHES / 2];
}

GbGeometry
one_plane (int width, int height, int channels)
{
  GbGeometry g;
  memset (&g, 0, sizeof g);
  g.n_planes = 1;
  g.bytes_per_sample = 1;
  g.planes[0].width = width;
  g.planes[0].height = height;
  g.planes[0].channels = channels;
  g.planes[0].subsampling_x = 1;
  g.planes[0].subsampling_y = 1;
  /* RGBA as the element sees it: alpha is channel 3 (the superposition
   * blurs every channel alike). */
  g.planes[0].alpha_mask = channels == 4 ? 0x8u : 0u;
  return g;
}

const char *
format_name (int channels)
{
  return channels == 4 ? "RGBA" : "GRAY8";
}

std::vector < uint8_t > random_bytes (size_t n, unsigned seed)
{
  std::mt19937 rng (seed);
  std::vector < uint8_t > v (n);
  for (uint8_t & b : v)
    b = (uint8_t) (rng () >> 24);
  return v;
}

/* Uniform in [0, 1), 24 bits. */
std::vector < float > random_unit_field (size_t n, unsigned seed)
{
  std::mt19937 rng (seed);
  std::vector < float > v (n);
  for (float & f : v)
    f = (float) (rng () >> 8) * (1.0f / 16777216.0f);
  return v;
}

/* The seed's map for rmax: sigma uniform in [0, rmax / 3). */
std::vector < float > seed_map (const std::vector < float > &unit, int rmax)
{
  const double top = rmax / GB_SUPERPOSITION_CUTOFF;
  std::vector < float > map (unit.size ());
  for (size_t i = 0; i < unit.size (); i++)
    map[i] = (float) (unit[i] * top);
  return map;
}

/* rmax as the element derives it: ceil(3 x the largest sigma), 1 .. 32. */
int
rmax_for (double largest)
{
  const double r = std::ceil (GB_SUPERPOSITION_CUTOFF * largest);
  return (int) std::max (1.0, std::min ((double) GB_SUPERPOSITION_MAX_RADIUS,
          r));
}

struct Diff
{
  int max = 0;
  size_t over_1 = 0;
};

Diff
compare (const uint8_t * a, const uint8_t * b, size_t n)
{
  Diff d;
  for (size_t i = 0; i < n; i++) {
    const int e = std::abs ((int) a[i] - (int) b[i]);
    d.max = std::max (d.max, e);
    d.over_1 += e > 1;
  }
  return d;
}

/* gb_superposition_cpu (scatter) of one packed plane, clamp border. */
struct Reference
{
  GbPlaneGeometry plane;
  const uint8_t *src = NULL;
  const float *map = NULL;
  int rmax = 0;
  std::vector < uint8_t > out;
  GbStatus status = GB_OK;
  std::string message;
  double seconds = 0;

  void run ()
  {
    const size_t row = (size_t) plane.width * plane.channels;
    GbError e;
    const auto t0 = std::chrono::steady_clock::now ();
    out.assign (row * plane.height, 0);
    status = gb_superposition_cpu (GB_SUPERPOSITION_SCATTER, &plane, 1, map,
        plane.width, rmax, GB_BORDER_CLAMP, src, row, out.data (), row, &e);
    if (status != GB_OK)
      message = e.message;
    seconds = std::chrono::duration < double >(std::chrono::steady_clock::
        now () - t0).count ();
  }
};

/* One plane of 8-bit samples on the device for the superposition
 * launcher: rotating frames, rotating maps (same content), the kernels'
 * scratch and the filter. */
struct SuperCase
{
  FrameLayout layout;
  DeviceFrames frames;
  cudaStream_t stream;
  int width, height, channels;
  size_t map_bytes;
  std::vector < float *>maps;
  void *scratch = NULL;
  std::unique_ptr < GbPlaneFilter > filter;
  std::vector < float >host_map;        /* filter->sigma_map points here */
  int rmax = 0;

  SuperCase (const GbGeometry & g, const uint8_t * host, cudaStream_t s)
  : layout (g), frames (layout.span, host), stream (s),
      width (g.planes[0].width), height (g.planes[0].height),
      channels (g.planes[0].channels),
      map_bytes ((size_t) g.planes[0].width * g.planes[0].height
          * sizeof (float)), filter (new GbPlaneFilter ())
  {
    const size_t n = std::min (frames.count (),
        std::max ((size_t) MIN_FRAMES,
            (MAP_ROTATION_BYTES + map_bytes - 1) / map_bytes));
    for (size_t i = 0; i < n; i++) {
      float *m;
      CHECK_CUDA (cudaMalloc ((void **) &m, map_bytes));
      maps.push_back (m);
    }
    CHECK_CUDA (cudaMalloc (&scratch,
            gb_superposition_scratch_bytes (width, height)));
  }
  ~SuperCase ()
  {
    for (float *m : maps)
      cudaFree (m);
    cudaFree (scratch);
  }
  SuperCase (const SuperCase &) = delete;
  SuperCase & operator= (const SuperCase &) = delete;

  /* A packed width x height map and rmax: uploaded to every rotating map,
   * the filter resolved as the handle does (whole frame, clamp). */
  void set_map (const std::vector < float >&map, int rmax_)
  {
    GbError e;
    host_map = map;
    rmax = rmax_;
    CHECK_CUDA (cudaStreamSynchronize (stream));
    CHECK_CUDA (cudaMemcpy (maps[0], host_map.data (), map_bytes,
            cudaMemcpyHostToDevice));
    for (size_t i = 1; i < maps.size (); i++)
      CHECK_CUDA (cudaMemcpy (maps[i], maps[0], map_bytes,
              cudaMemcpyDeviceToDevice));
    GbParams params = gb_params_make (rmax / GB_SUPERPOSITION_CUTOFF, rmax,
        GB_ALGORITHM_SUPERPOSITION_SCATTER, GB_BORDER_CLAMP);
    /* Seed 003's plain superposition (Eq. 2a), as gb_superposition_cpu
     * computes it; the element's default, normalize, adds one accumulator
     * (the weight) to each output. */
    params.normalize = 0;
    check_gb (gb_params_validate (&params, &e), e, "superposition parameters");
    gb_plane_filters_resolve (&params, &layout.geometry, filter.get ());
    gb_plane_filters_set_superposition (&layout.geometry, rmax,
        host_map.data (), (size_t) width, filter.get ());
  }

  /* Frame k's window (the whole plane) as the backend hands it over. */
  GbDevicePlane plane (size_t k) const
  {
    const GbRect & w = filter->window;
    const size_t pixel = (size_t) channels;     /* 8-bit samples */
    const size_t offset = (size_t) w.y * layout.stride[0]
        + (size_t) w.x * pixel;
    GbDevicePlane p {
    };
    p.src = frames.input[k] + offset;
    p.src_pitch = layout.stride[0];
    p.dst = frames.output[k] + offset;
    p.dst_pitch = layout.stride[0];
    p.superposition_scratch = scratch;
    p.width = w.width;
    p.height = w.height;
    p.channels = channels;
    p.bytes_per_sample = 1;
    return p;
  }

  void launch (size_t k, GbSuperpositionMethod method, bool prepare)
  {
    CHECK_CUDA (gb_launch_superposition (plane (k), filter.get (), method,
            maps[k % maps.size ()], (size_t) width, prepare,
            GB_BORDER_CLAMP, stream));
  }

  double time (GbSuperpositionMethod method, bool prepare)
  {
    /* The scratch holds this map's kernels for the "kernel" variant. */
    if (!prepare)
      launch (0, method, true);
    return time_median (stream,[&](int i) {
          launch ((size_t) i % frames.count (), method, prepare);
        });
  }

  double time_copy ()
  {
    return time_median (stream,[&](int i) {
          const size_t k = (size_t) i % frames.count ();
          CHECK_CUDA (cudaMemcpyAsync (frames.output[k], frames.input[k],
                  frames.span, cudaMemcpyDeviceToDevice, stream));
        });
  }

  /* Frame 0's output. */
  std::vector < uint8_t > download0 ()
  {
    std::vector < uint8_t > host (layout.span);
    CHECK_CUDA (cudaStreamSynchronize (stream));
    CHECK_CUDA (cudaMemcpy (host.data (), frames.output[0], layout.span,
            cudaMemcpyDeviceToHost));
    return host;
  }

  void clear_output0 ()
  {
    CHECK_CUDA (cudaStreamSynchronize (stream));
    CHECK_CUDA (cudaMemset (frames.output[0], 0, layout.span));
  }
};

const char *
method_name (GbSuperpositionMethod m)
{
  return gb_superposition_method_name (m);
}

GbSuperpositionMethod
method_of (GbAlgorithm a)
{
  return a == GB_ALGORITHM_SUPERPOSITION_GATHER ? GB_SUPERPOSITION_GATHER
      : GB_SUPERPOSITION_SCATTER;
}

/* Checks one GPU output (packed plane) against a reference; prints a "#"
 * line and a CSV row; false when the difference is above the limit. */
bool
report_check (const char *section, const char *format, int width, int height,
    const char *map, int rmax, const char *path, const uint8_t * gpu,
    const Reference & ref)
{
  const Diff d = compare (gpu, ref.out.data (), ref.out.size ());
  const bool ok = d.max <= MAX_DIFF_ALLOWED;
  printf ("# check %s %s %dx%d %s rmax %d, %s: max |GPU - CPU| = %d, "
      "%zu samples > 1 of %zu: %s\n", section, format, width, height, map,
      rmax, path, d.max, d.over_1, ref.out.size (), ok ? "ok" : "FAILED");
  fflush (stdout);
  csv_row ("check", format, width, height, map, rmax, path, 1, -1, -1, "",
      d.max);
  return ok;
}

}                               /* namespace */

int
main (int argc, char **argv)
{
  bool quick = false, batch_given = false, roi_only = false;
  const char *csv_path = NULL;

  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const bool has_value = i + 1 < argc;
    bool ok = true;
    if (!strcmp (a, "--quick"))
      quick = true;
    else if (!strcmp (a, "--batch-ms") && has_value) {
      ok = (batch_ms = atof (argv[++i])) > 0;
      batch_given = true;
    } else if (!strcmp (a, "--csv") && has_value)
      csv_path = argv[++i];
    else if (!strcmp (a, "--roi-only"))
      roi_only = true;
    else
      ok = false;
    if (!ok) {
      fprintf (stderr, "usage: %s [--quick] [--batch-ms MS] [--csv FILE] "
          "[--roi-only]\n", argv[0]);
      return 2;
    }
  }
  if (quick && !batch_given)
    batch_ms = QUICK_BATCH_MS;

  /* The device first: without one nothing runs. */
  GbCuda *cuda = NULL;
  {
    GbError error;
    if (gb_cuda_create (-1, &cuda, &error) != GB_OK) {
      printf ("no CUDA device (%s): skipped\n", error.message);
      return error.status == GB_ERROR_NO_DEVICE ? 77 : 1;
    }
  }
  const cudaStream_t stream = (cudaStream_t) gb_cuda_stream (cuda);

  if (csv_path && !(csv = open_csv (csv_path, CSV_HEADER))) {
    gb_cuda_destroy (cuda);
    return 1;
  }

  /* --- inputs, maps and the CPU references (all before any timing) --- */
  const int seed_channels[] = { 4, 1 };
  const size_t seed_pixels = (size_t) SEED_SIZE * SEED_SIZE;
  const std::vector < float >unit = random_unit_field (seed_pixels,
      RANDOM_SEED);
  std::vector < uint8_t > seed_input[2];
  for (int f = 0; f < 2; f++)
    seed_input[f] = random_bytes (seed_pixels * seed_channels[f],
        RANDOM_SEED + 1 + f);
  const int check_rmax[2] = { CHECK_RMAX_SMALL, CHECK_RMAX_LARGE };
  const std::vector < float >check_map[2] = {
    seed_map (unit, check_rmax[0]), seed_map (unit, check_rmax[1])
  };

  GbSigmaRegion regions[ROI_COUNT];
  for (int i = 0; i < ROI_COUNT; i++) {
    const int col = i % 4, row = i / 4;
    const int cx = (2 * col + 1) * HD_WIDTH / 8;
    const int cy = (2 * row + 1) * HD_HEIGHT / 4;
    regions[i].rect.x = cx - ROI_WIDTH / 2;
    regions[i].rect.y = cy - ROI_HEIGHT / 2;
    regions[i].rect.width = ROI_WIDTH;
    regions[i].rect.height = ROI_HEIGHT;
    regions[i].sigma = ROI_SIGMA;
  }
  const size_t hd_pixels = (size_t) HD_WIDTH * HD_HEIGHT;
  std::vector < float >roi_map (hd_pixels);
  const double roi_largest = gb_sigma_map_regions (roi_map.data (), HD_WIDTH,
      HD_HEIGHT, HD_WIDTH, regions, ROI_COUNT, ROI_FEATHER);
  const int roi_rmax = rmax_for (roi_largest);
  std::vector < float >tilt_map (hd_pixels);
  const double tilt_largest = gb_sigma_map_tilt_shift (tilt_map.data (),
      HD_WIDTH, HD_HEIGHT, HD_WIDTH, TILT_SIGMA, 0.5, 0.5, 0.0, TILT_BAND,
      TILT_TRANSITION);
  const int tilt_rmax = rmax_for (tilt_largest);
  const std::vector < uint8_t > hd_input = random_bytes (hd_pixels * 4,
      RANDOM_SEED + 10);

  /* refs[f * 2 + c]: seed format f at check_rmax[c]; refs[4]: the ROI
   * frame; refs[5]: the tilt-shift frame. */
  std::vector < Reference > refs (6);
  for (int f = 0; f < 2; f++)
    for (int c = 0; c < 2; c++) {
      Reference & r = refs[f * 2 + c];
      r.plane = one_plane (SEED_SIZE, SEED_SIZE, seed_channels[f]).planes[0];
      r.src = seed_input[f].data ();
      r.map = check_map[c].data ();
      r.rmax = check_rmax[c];
    }
  refs[4].plane = one_plane (HD_WIDTH, HD_HEIGHT, 4).planes[0];
  refs[4].src = hd_input.data ();
  refs[4].map = roi_map.data ();
  refs[4].rmax = roi_rmax;
  refs[5].plane = refs[4].plane;
  refs[5].src = hd_input.data ();
  refs[5].map = tilt_map.data ();
  refs[5].rmax = tilt_rmax;
  {
    fprintf (stderr, "%zu CPU references on %zu threads...\n", refs.size (),
        refs.size ());
    const auto t0 = std::chrono::steady_clock::now ();
    std::vector < std::thread > threads;
    for (size_t i = 0; i < refs.size (); i++)
      if (!roi_only || i == 4)
        threads.emplace_back ([&refs, i] () {
              refs[i].run ();
            });
    for (std::thread & t : threads)
      t.join ();
    fprintf (stderr, "CPU references: %.1f s\n",
        std::chrono::duration < double >(std::chrono::steady_clock::now ()
            - t0).count ());
    for (const Reference & r : refs)
      if (r.status != GB_OK) {
        fprintf (stderr, "CPU reference failed: %s\n", r.message.c_str ());
        gb_cuda_destroy (cuda);
        return 1;
      }
  }

  {
    int device;
    cudaDeviceProp props;
    CHECK_CUDA (cudaGetDevice (&device));
    CHECK_CUDA (cudaGetDeviceProperties (&props, device));
    printf ("GPU: %s, %d SMs, L2 %d MB\n", props.name,
        props.multiProcessorCount, props.l2CacheSize >> 20);
  }
  printf ("Timed: GPU time of the superposition kernels "
      "(gb_launch_superposition on device frames, clamp border), CUDA "
      "events; median of %d batches of about %g ms of launches (at least "
      "one each) after %d warm-up launches; frames rotate over >= %zu MB, "
      "maps over >= %zu MB. \"prep\" = the prepare kernel (each pixel's "
      "kernel from the map, as for a map that changes every frame) + the "
      "method's kernel; \"kernel\" = the method's kernel alone (static "
      "map). Times in us.\n", TIMED_BATCHES, batch_ms, WARMUP_LAUNCHES,
      ROTATION_BYTES >> 20, MAP_ROTATION_BYTES >> 20);
  fflush (stdout);

  bool all_ok = true;

  /* --- 1. The seed's comparison --- */
  if (!roi_only) {
    printf ("\n## 1. Seed 003's comparison: %dx%d, random sigma map (each "
        "pixel uniform in [0, rmax/3), fixed seed), random 8-bit samples, "
        "rmax 1..%d\n", SEED_SIZE, SEED_SIZE, SEED_MAX_RMAX);
    printf ("Seed 003 (CUDA 6.0, kernels only): the fastest scatter was "
        "2.1-14.5x faster than the fastest gather on a GTX 580 (Fermi), "
        "1.3-4.9x on a GTX 680 (Kepler); the low end at small rmax.\n");
    for (int f = 0; f < 2; f++) {
      const int channels = seed_channels[f];
      const char *format = format_name (channels);
      const GbGeometry g = one_plane (SEED_SIZE, SEED_SIZE, channels);
      SuperCase sc (g, seed_input[f].data (), stream);
      GbError e;
      check_gb (gb_cuda_configure (cuda, &g, &e), e, "gb_cuda_configure");
      const double copy_us = sc.time_copy ();
      csv_row ("seed", format, SEED_SIZE, SEED_SIZE, "random", 0, "copy", -1,
          copy_us, -1, "", -1);

      printf ("\n### %s %dx%d (D2D copy of the frame: %.1f us)\n\n", format,
          SEED_SIZE, SEED_SIZE, copy_us);
      printf ("| rmax | gather prep | scatter prep | gather/scatter "
          "| gather kernel | scatter kernel | gather/scatter |\n");
      printf ("|------|-------------|--------------|----------------"
          "|---------------|----------------|----------------|\n");
      fflush (stdout);
      double lo_prep = 1e30, hi_prep = 0, lo_kernel = 1e30, hi_kernel = 0;
      for (int rmax = 1; rmax <= SEED_MAX_RMAX; rmax++) {
        fprintf (stderr, "%s rmax %d\n", format, rmax);
        sc.set_map (seed_map (unit, rmax), rmax);
        for (int c = 0; c < 2; c++) {
          if (check_rmax[c] != rmax)
            continue;
          const Reference & ref = refs[f * 2 + c];
          check_gb (gb_cuda_set_filters (cuda, sc.filter.get (), &e), e,
              "gb_cuda_set_filters");
          check_gb (gb_cuda_set_sigma_map (cuda, sc.host_map.data (),
                  SEED_SIZE, &e), e, "gb_cuda_set_sigma_map");
          for (GbSuperpositionMethod m : {
                GB_SUPERPOSITION_GATHER, GB_SUPERPOSITION_SCATTER}) {
            std::string path = std::string (method_name (m)) + "-launcher";
            sc.clear_output0 ();
            sc.launch (0, m, true);
            all_ok &= report_check ("seed", format, SEED_SIZE, SEED_SIZE,
                "random", rmax, path.c_str (), sc.download0 ().data (), ref);
            path = std::string (method_name (m)) + "-backend";
            sc.clear_output0 ();
            const GbImage in0 = sc.layout.image (sc.frames.input[0]);
            const GbImage out0 = sc.layout.image (sc.frames.output[0]);
            check_gb (gb_cuda_enqueue (cuda, &in0, &out0,
                    m == GB_SUPERPOSITION_GATHER
                    ? GB_ALGORITHM_SUPERPOSITION_GATHER
                    : GB_ALGORITHM_SUPERPOSITION_SCATTER, GB_BORDER_CLAMP,
                    &e), e, "gb_cuda_enqueue");
            check_gb (gb_cuda_synchronize (cuda, &e), e, "gb_cuda_synchronize");
            all_ok &= report_check ("seed", format, SEED_SIZE, SEED_SIZE,
                "random", rmax, path.c_str (), sc.download0 ().data (), ref);
          }
        }
        const double gp = sc.time (GB_SUPERPOSITION_GATHER, true);
        const double sp = sc.time (GB_SUPERPOSITION_SCATTER, true);
        const double gk = sc.time (GB_SUPERPOSITION_GATHER, false);
        const double sk = sc.time (GB_SUPERPOSITION_SCATTER, false);
        lo_prep = std::min (lo_prep, gp / sp);
        hi_prep = std::max (hi_prep, gp / sp);
        lo_kernel = std::min (lo_kernel, gk / sk);
        hi_kernel = std::max (hi_kernel, gk / sk);
        printf ("| %4d | %11.1f | %12.1f | %13.2fx | %13.1f | %14.1f "
            "| %13.2fx |\n", rmax, gp, sp, gp / sp, gk, sk, gk / sk);
        fflush (stdout);
        csv_row ("seed", format, SEED_SIZE, SEED_SIZE, "random", rmax,
            "gather", 1, gp, -1, "", -1);
        csv_row ("seed", format, SEED_SIZE, SEED_SIZE, "random", rmax,
            "scatter", 1, sp, gp / sp, "gather/scatter", -1);
        csv_row ("seed", format, SEED_SIZE, SEED_SIZE, "random", rmax,
            "gather", 0, gk, -1, "", -1);
        csv_row ("seed", format, SEED_SIZE, SEED_SIZE, "random", rmax,
            "scatter", 0, sk, gk / sk, "gather/scatter", -1);
      }
      printf ("\n%s: gather/scatter over rmax 1..%d: %.2f-%.2fx with prepare, "
          "%.2f-%.2fx kernel only (seed 003: 2.1-14.5x GTX 580, 1.3-4.9x "
          "GTX 680; below 1: gather is faster)\n", format, SEED_MAX_RMAX,
          lo_prep, hi_prep, lo_kernel, hi_kernel);
      fflush (stdout);
    }
  }

  /* --- 2. The issue's target, and 3. tilt-shift: 1080p RGBA --- */
  {
    const GbGeometry g = one_plane (HD_WIDTH, HD_HEIGHT, 4);
    const char *format = "RGBA";
    SuperCase sc (g, hd_input.data (), stream);
    GbError e;
    check_gb (gb_cuda_configure (cuda, &g, &e), e, "gb_cuda_configure");
    const double copy_us = sc.time_copy ();

    /* (a) The baseline: a uniform blur of the whole frame, auto's choice. */
    std::unique_ptr < GbPlaneFilter[] > blur_filters (new GbPlaneFilter
        [GB_MAX_PLANES] ());
    GbParams blur_params = gb_params_make (BASELINE_SIGMA, 0,
        GB_ALGORITHM_AUTO, GB_BORDER_CLAMP);
    check_gb (gb_params_validate (&blur_params, &e), e, "blur parameters");
    gb_plane_filters_resolve (&blur_params, &g, blur_filters.get ());
    const GbAlgorithm blur_algorithm = gb_cuda_auto_algorithm (cuda,
        &blur_filters[0], &g, 0);
    check_gb (gb_cuda_set_filters (cuda, blur_filters.get (), &e), e,
        "gb_cuda_set_filters");
    /* Launch i of a timed loop: frame i of the rotation through the
     * backend. */
    auto enqueue_frame =[&](int i, GbAlgorithm algorithm) {
      const size_t k = (size_t) i % sc.frames.count ();
      const GbImage in = sc.layout.image (sc.frames.input[k]);
      const GbImage out = sc.layout.image (sc.frames.output[k]);
      GbError e2;
      check_gb (gb_cuda_enqueue (cuda, &in, &out, algorithm,
              GB_BORDER_CLAMP, &e2), e2, "gb_cuda_enqueue");
    };
    const double blur_us = time_median (stream,[&](int i) {
          enqueue_frame (i, blur_algorithm);
        });
    const double baseline_us = blur_us + copy_us;

    /* The ROI map, every frame new: prepare + kernel. */
    sc.set_map (roi_map, roi_rmax);
    const double gp = sc.time (GB_SUPERPOSITION_GATHER, true);
    const double sp = sc.time (GB_SUPERPOSITION_SCATTER, true);
    const double gk = sc.time (GB_SUPERPOSITION_GATHER, false);
    const double sk = sc.time (GB_SUPERPOSITION_SCATTER, false);
    const GbAlgorithm auto_superposition = gb_cuda_auto_superposition (cuda,
        sc.filter.get (), &g.planes[0], g.bytes_per_sample);

    /* The map's upload, and the backend's whole frame. */
    check_gb (gb_cuda_set_filters (cuda, sc.filter.get (), &e), e,
        "gb_cuda_set_filters");
    const double upload_pageable_us = time_median (stream,[&](int) {
          GbError e2;
          check_gb (gb_cuda_set_sigma_map (cuda, roi_map.data (), HD_WIDTH,
                  &e2), e2, "gb_cuda_set_sigma_map");
        });
    double upload_pinned_us = -1;
    {
      void *pinned = NULL;
      GbError e2;
      if (gb_cuda_host_alloc (hd_pixels * sizeof (float), &pinned, &e2)
          == GB_OK) {
        memcpy (pinned, roi_map.data (), hd_pixels * sizeof (float));
        upload_pinned_us = time_median (stream,[&](int) {
              GbError e3;
              check_gb (gb_cuda_set_sigma_map (cuda, (const float *) pinned,
                      HD_WIDTH, &e3), e3, "gb_cuda_set_sigma_map (pinned)");
            });
        CHECK_CUDA (cudaStreamSynchronize (stream));
        gb_cuda_host_free (pinned);
      } else {
        printf ("# no pinned memory: %s\n", e2.message);
      }
    }
    const double frame_us = time_median (stream,[&](int i) {
          GbError e2;
          check_gb (gb_cuda_set_sigma_map (cuda, roi_map.data (), HD_WIDTH,
                  &e2), e2, "gb_cuda_set_sigma_map");
          enqueue_frame (i, auto_superposition);
        });
    CHECK_CUDA (cudaStreamSynchronize (stream));

    /* The regions' decomposed sum (superposition_regions.h), as the
     * element runs it (gb_blur_set_sigma_regions): new regions each frame,
     * moving as faces do (every other frame 3 pixels right and 2 down: the
     * plan built on the CPU, its boxes uploaded, its tables kept; the map
     * not uploaded); the same regions again (kernels only); and, for
     * information, the element's default, each output normalised by its
     * weight (one more sum per pixel), also with moving regions. */
    GbSigmaRegion moved[ROI_COUNT];
    for (int r = 0; r < ROI_COUNT; r++) {
      moved[r] = regions[r];
      moved[r].rect.x += 3;
      moved[r].rect.y += 2;
    }
    std::vector < float >moved_map (hd_pixels);
    gb_sigma_map_regions (moved_map.data (), HD_WIDTH, HD_HEIGHT, HD_WIDTH,
        moved, ROI_COUNT, ROI_FEATHER);
    auto regions_frame =[&](int i) {
      GbError e2;
      check_gb (gb_cuda_set_sigma_regions (cuda, i % 2 ? moved_map.data ()
              : roi_map.data (), HD_WIDTH, i % 2 ? moved : regions,
              ROI_COUNT, ROI_FEATHER, NULL, NULL, &e2), e2,
          "gb_cuda_set_sigma_regions");
      enqueue_frame (i, GB_ALGORITHM_SUPERPOSITION_GATHER);
    };
    const double regions_frame_us = time_median (stream, regions_frame);
    {
      GbError e2;
      check_gb (gb_cuda_set_sigma_regions (cuda, roi_map.data (), HD_WIDTH,
              regions, ROI_COUNT, ROI_FEATHER, NULL, NULL, &e2), e2,
          "gb_cuda_set_sigma_regions");
    }
    const double regions_kernels_us = time_median (stream,[&](int i) {
          enqueue_frame (i, GB_ALGORITHM_SUPERPOSITION_GATHER);
        });
    double regions_normalised_us;
    {
      std::unique_ptr < GbPlaneFilter[] > normalised (new GbPlaneFilter
          [GB_MAX_PLANES] ());
      normalised[0] = *sc.filter;       /* one plane */
      normalised[0].normalize = 1;
      check_gb (gb_cuda_set_filters (cuda, normalised.get (), &e), e,
          "gb_cuda_set_filters");
      regions_normalised_us = time_median (stream, regions_frame);
      CHECK_CUDA (cudaStreamSynchronize (stream));
      check_gb (gb_cuda_set_filters (cuda, sc.filter.get (), &e), e,
          "gb_cuda_set_filters");
      check_gb (gb_cuda_set_sigma_regions (cuda, roi_map.data (), HD_WIDTH,
              regions, ROI_COUNT, ROI_FEATHER, NULL, NULL, &e), e,
          "gb_cuda_set_sigma_regions");
    }
    CHECK_CUDA (cudaStreamSynchronize (stream));
    /* The backend's gather of frame 0 against a CPU reference of the same
     * map. */
    auto check_backend =[&](const char *section, const char *map_name,
        int rmax, const char *path, const Reference & ref) {
      sc.clear_output0 ();
      enqueue_frame (0, GB_ALGORITHM_SUPERPOSITION_GATHER);
      CHECK_CUDA (cudaStreamSynchronize (stream));
      all_ok &= report_check (section, format, HD_WIDTH, HD_HEIGHT, map_name,
          rmax, path, sc.download0 ().data (), ref);
    };
    check_backend ("roi", "regions", roi_rmax, "regions-plan", refs[4]);

    /* Building the map on the CPU, as the element does per frame. */
    double build_us;
    {
      std::vector < float >scratch_map (hd_pixels);
      std::vector < double >samples;
      for (int r = 0; r < TIMED_BATCHES; r++) {
        const auto t0 = std::chrono::steady_clock::now ();
        gb_sigma_map_regions (scratch_map.data (), HD_WIDTH, HD_HEIGHT,
            HD_WIDTH, regions, ROI_COUNT, ROI_FEATHER);
        samples.push_back (1e6 * std::chrono::duration < double >(std::
                chrono::steady_clock::now () - t0).count ());
      }
      std::sort (samples.begin (), samples.end ());
      build_us = samples[TIMED_BATCHES / 2];
    }

    printf ("\n## 2. Issue 8's target: %s %dx%d, %d regions of %dx%d on a "
        "4x2 grid, sigma %g, feather %g (gb_sigma_map_regions; largest %g, "
        "rmax %d); a ROI map changes every frame, so prepare + kernel\n",
        format, HD_WIDTH, HD_HEIGHT, ROI_COUNT, ROI_WIDTH, ROI_HEIGHT,
        ROI_SIGMA, ROI_FEATHER, roi_largest, roi_rmax);
    printf ("(a) baseline, same run: uniform blur of the whole frame at "
        "sigma %g (auto: %s) %.1f us + D2D copy of the frame %.1f us = "
        "%.1f us; ratio = time / (blur + copy), target <= %g\n\n",
        BASELINE_SIGMA, gb_algorithm_name (blur_algorithm), blur_us,
        copy_us, baseline_us, ROI_TARGET);
    printf ("| what                                              |       us "
        "| x (blur+copy) | verdict |\n");
    printf ("|---------------------------------------------------|----------"
        "|---------------|---------|\n");
    struct Row
    {
      const char *what;
      const char *method;
      int prepare;
      double us;
      bool judged;
    };
    char frame_what[96];
    snprintf (frame_what, sizeof frame_what,
        "backend frame: upload + prepare + %s",
        method_name (method_of (auto_superposition)));
    const Row rows[] = {
      {"gather, prepare + kernel", "gather", 1, gp, true},
      {"scatter, prepare + kernel", "scatter", 1, sp, true},
      {"gather, kernel only (info)", "gather", 0, gk, false},
      {"scatter, kernel only (info)", "scatter", 0, sk, false},
      {"map upload H2D, pageable (gb_cuda_set_sigma_map)", "upload-pageable",
          -1, upload_pageable_us, false},
      {"map upload H2D, pinned (info)", "upload-pinned", -1,
          upload_pinned_us, false},
      {frame_what, "backend-frame", 1, frame_us, false},
      {"regions plan: backend frame, moving regions", "regions-plan",
          1, regions_frame_us, true},
      {"regions plan: backend frame, same regions (info)",
          "regions-plan-kernels", 0, regions_kernels_us, false},
      {"regions plan: moving regions, normalised (info)",
          "regions-plan-normalised", 1, regions_normalised_us, false},
      {"map build on the CPU, wall (info)", "map-build-cpu", -1, build_us,
          false},
    };
    bool best_met = false;
    for (const Row & r : rows) {
      if (r.us < 0)
        continue;
      const double ratio = r.us / baseline_us;
      const char *verdict = "-";
      if (r.judged) {
        verdict = ratio <= ROI_TARGET ? "met" : "MISSED";
        best_met = best_met || ratio <= ROI_TARGET;
      }
      printf ("| %-49s | %8.1f | %12.2fx | %-7s |\n", r.what, r.us, ratio,
          verdict);
      csv_row ("roi", format, HD_WIDTH, HD_HEIGHT, "regions", roi_rmax,
          r.method, r.prepare, r.us, ratio, "us/(blur+copy)", -1);
    }
    csv_row ("roi", format, HD_WIDTH, HD_HEIGHT, "uniform", 0,
        gb_algorithm_name (blur_algorithm), -1, blur_us, -1, "", -1);
    csv_row ("roi", format, HD_WIDTH, HD_HEIGHT, "none", 0, "copy", -1,
        copy_us, -1, "", -1);
    printf ("\nTarget (superposition <= %gx uniform blur + copy): %s with "
        "the faster method (%s, %.2fx); gb_cuda_auto_superposition picks "
        "%s. The upload (%.1f us from pageable memory) and the CPU's map "
        "build come on top each frame; the backend row includes the "
        "upload. The regions plan needs no map upload.\n", ROI_TARGET,
        best_met ? "met" : "MISSED",
        std::min (gp, sp) <= regions_frame_us ? (gp <= sp ? "gather"
            : "scatter") : "regions plan",
        std::min (std::min (gp, sp), regions_frame_us) / baseline_us,
        gb_algorithm_name (auto_superposition), upload_pageable_us);
    printf ("(b) frames without regions: the element passes them through "
        "untouched, no GPU work at all; for scale, the copy floor of a "
        "%dx%d %s frame is %.1f us.\n", HD_WIDTH, HD_HEIGHT, format,
        copy_us);
    fflush (stdout);

    /* Both methods against the CPU on the ROI frame. */
    for (GbSuperpositionMethod m : {
          GB_SUPERPOSITION_GATHER, GB_SUPERPOSITION_SCATTER}) {
      const std::string path = std::string (method_name (m)) + "-launcher";
      sc.clear_output0 ();
      sc.launch (0, m, true);
      all_ok &= report_check ("roi", format, HD_WIDTH, HD_HEIGHT, "regions",
          roi_rmax, path.c_str (), sc.download0 ().data (), refs[4]);
    }

    /* 3. Tilt-shift: a static map, kernels only. */
    if (!roi_only) {
      sc.set_map (tilt_map, tilt_rmax);
      const double tg = sc.time (GB_SUPERPOSITION_GATHER, false);
      const double ts = sc.time (GB_SUPERPOSITION_SCATTER, false);
      /* Through the backend, as the element runs it: a band at 0 degrees
       * is one value per row, and the gather takes the separable sum
       * (superposition_rows.h). */
      check_gb (gb_cuda_set_sigma_map (cuda, tilt_map.data (), HD_WIDTH, &e),
          e, "gb_cuda_set_sigma_map (tilt-shift)");
      const double tr = time_median (stream,[&](int i) {
            enqueue_frame (i, GB_ALGORITHM_SUPERPOSITION_GATHER);
          });

      printf ("\n## 3. Tilt-shift: %s %dx%d, gb_sigma_map_tilt_shift sigma %g, "
          "centre 0.5,0.5, angle 0, band %g, transition %g (largest %g, rmax "
          "%d); static map: kernel only\n\n", format, HD_WIDTH, HD_HEIGHT,
          TILT_SIGMA, TILT_BAND, TILT_TRANSITION, tilt_largest, tilt_rmax);
      printf ("| method  |       us | x (blur+copy) | x blur  |\n");
      printf ("|---------|----------|---------------|---------|\n");
      printf ("| gather  | %8.1f | %12.2fx | %6.2fx |\n", tg, tg / baseline_us,
          tg / blur_us);
      printf ("| scatter | %8.1f | %12.2fx | %6.2fx |\n", ts, ts / baseline_us,
          ts / blur_us);
      printf ("| rows plan (backend) | %8.1f | %12.2fx | %6.2fx |\n", tr,
          tr / baseline_us, tr / blur_us);
      fflush (stdout);
      csv_row ("tilt-shift", format, HD_WIDTH, HD_HEIGHT, "tilt-shift",
          tilt_rmax, "rows-plan", 0, tr, tr / baseline_us, "us/(blur+copy)",
          -1);
      csv_row ("tilt-shift", format, HD_WIDTH, HD_HEIGHT, "tilt-shift",
          tilt_rmax, "gather", 0, tg, tg / baseline_us, "us/(blur+copy)", -1);
      csv_row ("tilt-shift", format, HD_WIDTH, HD_HEIGHT, "tilt-shift",
          tilt_rmax, "scatter", 0, ts, ts / baseline_us, "us/(blur+copy)", -1);
      for (GbSuperpositionMethod m : {
            GB_SUPERPOSITION_GATHER, GB_SUPERPOSITION_SCATTER}) {
        const std::string path = std::string (method_name (m)) + "-launcher";
        sc.clear_output0 ();
        sc.launch (0, m, true);
        all_ok &= report_check ("tilt-shift", format, HD_WIDTH, HD_HEIGHT,
            "tilt-shift", tilt_rmax, path.c_str (), sc.download0 ().data (),
            refs[5]);
      }
      check_backend ("tilt-shift", "tilt-shift", tilt_rmax, "rows-plan",
          refs[5]);
    }
  }

  CHECK_CUDA (cudaStreamSynchronize (stream));
  if (csv)
    fclose (csv);
  gb_cuda_destroy (cuda);
  if (!all_ok) {
    printf ("\nFAILED: a GPU output differs from gb_superposition_cpu by "
        "more than %d level\n", MAX_DIFF_ALLOWED);
    return 1;
  }
  printf ("\nAll checks passed (GPU within %d level of gb_superposition_cpu)"
      "\n", MAX_DIFF_ALLOWED);
  return 0;
}

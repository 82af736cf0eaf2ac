/* cudagaussblur-bench: kernel time of every algorithm against the copy floor
 * and against NPP.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * By default for GRAY8 and RGBA at 1920x1080 and 3840x2160 (the cases of
 * docs/performance.md), and with --format or --formats all for the frame
 * layouts of several planes, subsampled chroma and 16-bit samples too (NV12,
 * I420, Y444, GRAY16_LE, P016_LE...: the table `cases` below), and sigma
 * from 1 to 100:
 *  - GPU time of each algorithm, input and output already on the GPU, timed
 *    with CUDA events over many launches that rotate through enough frames to
 *    defeat the L2 cache (a 4K RGBA frame fits in the H100's 50 MB L2); each
 *    batch of launches is captured into a CUDA graph and the graph's launch
 *    timed, so that the figure is the GPU's and not the host's pace of
 *    enqueueing (an eager cudaMemcpyAsync of a 1080p GRAY8 frame costs the
 *    host longer than the GPU); --eager times the launches enqueued one by
 *    one instead, as an application makes them, and flags the batches the
 *    host held back ("# host-bound");
 *  - a device-to-device copy of the same frame in the same run, the floor
 *    (one read and one write), and the ratio to it; GB/s is the bytes read
 *    and written per second (2 x the frame's bytes / time), the per-byte
 *    figure that compares formats;
 *  - where the benchmark was built with NPP (GB_HAVE_NPP), for frames of one
 *    8-bit plane of 1 or 4 channels (GRAY8, RGBA): the time of
 *    nppiFilterGaussAdvancedBorder_8u_C1R/C4R on the same rotating frames with
 *    our own 2 * radius + 1 taps and a replicated border (our clamp), the
 *    speed-up over it (NPP time / ours), and once per configuration the
 *    largest difference between NPP's output and each of ours (a "#" line);
 *  - the CPU reference's time for the same frame (every algorithm, the 2D
 *    ones only where they finish in reasonable time).
 * Without a CUDA device it prints the CPU figures alone.
 *
 * A frame is one allocation holding its planes one after the other, each
 * from an offset aligned to PLANE_ALIGNMENT and without row padding (stride
 * = row bytes), so the floor is one flat copy of the whole frame. Each plane
 * is blurred with the parameters resolved for its sampling (a 4:2:0 chroma
 * plane: sigma / 2); the radius column is the frame's (plane 0's).
 *
 * naive and shared cost (2 radius + 1)^2 per sample: on the GPU they run only
 * up to sigma GPU_2D_MAX_SIGMA unless --algorithm names them.
 *
 * Usage: cudagaussblur-bench [--quick] [--no-cpu] [--cpu-only] [--no-npp]
 *                             [--format F[,F...]] [--formats all] [--width W]
 *                             [--size WxH] [--sigma S] [--sigma-x SX]
 *                             [--algorithm A] [--batch-ms MS] [--eager]
 *                             [--planes-apart] [--csv FILE]
 * --format runs every case of the named formats (e.g. NV12: 1080p and 4K),
 * --formats all every case; --quick keeps the 1080p cases and four sigmas.
 * --width and --algorithm keep only the matching rows (e.g. to profile one
 * case); --size WxH runs the chosen formats at that size instead of their
 * cases' (each format once: e.g. --format GRAY8 --size 1280x720; not with
 * --width or --quick); --sigma S runs that sigma alone (any value);
 * --sigma-x SX blurs across with SX instead (anisotropic; the sigma and radius columns are
 * then down's; GPU rows only, not with --csv). --csv also writes every
 * GPU row to FILE (columns: CSV_HEADER below, bytes: the frame's; an empty
 * field was not measured), for docs/plot_performance.py. --planes-apart
 * blurs each plane of a frame with launches of its own even where the fused
 * filter could take them all in one (gb_cuda_set_planes_in_one_launch), to
 * time the two against each other.
 */
#include "gaussblur.h"
#include "cuda_backend.h"
#include "filter.h"
#include "device_timing.h"

#include <cuda_runtime.h>
#ifdef GB_HAVE_NPP
#include <nppcore.h>
#include <nppi_filtering_functions.h>
#endif

#include <algorithm>
#include <chrono>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using namespace gb_bench;

constexpr double CPU_2D_TAP_LIMIT = 5.0e9;       /* skip slower CPU 2D runs */
constexpr double GPU_2D_MAX_SIGMA = 5;           /* naive/shared beyond: skipped */
constexpr const char *CSV_HEADER = "algorithm,format,width,height,sigma,radius,"
    "us,copy_us,ratio,npp_us,npp_speedup,bytes,timing";


/* One plane of a format: interleaved channels and frame pixels per plane
 * pixel on each axis. */
struct PlaneLayout
{
  int channels;
  int subsampling_x, subsampling_y;
};

struct Case
{
  const char *format;
  int bytes_per_sample;         /* 1 or 2 */
  int n_planes;
  PlaneLayout planes[GB_MAX_PLANES];
  int width, height;
  bool standard;                /* in the run without --format / --formats */
};

/* The default run is the four standard cases, in this order. */
const Case cases[] = {
  {"GRAY8", 1, 1, {{1, 1, 1}}, 1920, 1080, true},
  {"RGBA", 1, 1, {{4, 1, 1}}, 1920, 1080, true},
  {"GRAY8", 1, 1, {{1, 1, 1}}, 3840, 2160, true},
  {"RGBA", 1, 1, {{4, 1, 1}}, 3840, 2160, true},
  {"RGB", 1, 1, {{3, 1, 1}}, 1920, 1080, false},
  {"NV12", 1, 2, {{1, 1, 1}, {2, 2, 2}}, 1920, 1080, false},
  {"I420", 1, 3, {{1, 1, 1}, {1, 2, 2}, {1, 2, 2}}, 1920, 1080, false},
  {"Y42B", 1, 3, {{1, 1, 1}, {1, 2, 1}, {1, 2, 1}}, 1920, 1080, false},
  {"Y444", 1, 3, {{1, 1, 1}, {1, 1, 1}, {1, 1, 1}}, 1920, 1080, false},
  {"NV16", 1, 2, {{1, 1, 1}, {2, 2, 1}}, 1920, 1080, false},
  {"NV24", 1, 2, {{1, 1, 1}, {2, 1, 1}}, 1920, 1080, false},
  {"GRAY16_LE", 2, 1, {{1, 1, 1}}, 1920, 1080, false},
  {"RGBA64_LE", 2, 1, {{4, 1, 1}}, 1920, 1080, false},
  {"P016_LE", 2, 2, {{1, 1, 1}, {2, 2, 2}}, 1920, 1080, false},
  {"NV12", 1, 2, {{1, 1, 1}, {2, 2, 2}}, 3840, 2160, false},
  {"GRAY16_LE", 2, 1, {{1, 1, 1}}, 3840, 2160, false},
  {"RGBA64_LE", 2, 1, {{4, 1, 1}}, 3840, 2160, false},
  /* Three channels at 4K, where the fused filter's fp16 intermediate does
   * not stay in L2: they take its two-pass form all the same, measured
   * faster there than the shared-memory form (docs/performance.md). */
  {"RGB", 1, 1, {{3, 1, 1}}, 3840, 2160, false},
};

/* A case's planes: chroma sizes round up. */
GbGeometry
case_geometry (const Case & c)
{
  GbGeometry geometry;

  memset (&geometry, 0, sizeof geometry);
  geometry.n_planes = c.n_planes;
  geometry.bytes_per_sample = c.bytes_per_sample;
  for (int p = 0; p < c.n_planes; p++) {
    const PlaneLayout & l = c.planes[p];
    GbPlaneGeometry & g = geometry.planes[p];
    g.width = (c.width + l.subsampling_x - 1) / l.subsampling_x;
    g.height = (c.height + l.subsampling_y - 1) / l.subsampling_y;
    g.channels = l.channels;
    g.subsampling_x = l.subsampling_x;
    g.subsampling_y = l.subsampling_y;
  }
  return geometry;
}

/* A case's frame (FrameLayout, device_timing.h) and what the report says
 * of it. */
struct CaseFrame : FrameLayout
{
  explicit CaseFrame (const Case & c)
  : FrameLayout (case_geometry (c))
  {
  }
  /* The plane auto decides for, as the handle picks it: the first with the
   * most samples (plane 0, luma, for every case here). */
  int largest_plane () const
  {
    size_t most = 0;
    int largest = 0;
    for (int p = 0; p < geometry.n_planes; p++) {
      const GbPlaneGeometry & g = geometry.planes[p];
      const size_t samples = (size_t) g.width * g.height * g.channels;
      if (samples > most) {
        most = samples;
        largest = p;
      }
    }
    return largest;
  }
#ifdef GB_HAVE_NPP
  /* NPP's 8u_C1R / C4R: one full-resolution 8-bit plane of 1 or 4 channels. */
  bool npp_supported () const
  {
    return geometry.n_planes == 1 && geometry.bytes_per_sample == 1
        && (geometry.planes[0].channels == 1
        || geometry.planes[0].channels == 4);
  }
#endif
  /* "1920x1080x1, 960x540x2 (2x2)", for the case's "#" line. */
  std::string describe () const
  {
    std::string text;
    char part[80];
    for (int p = 0; p < geometry.n_planes; p++) {
      const GbPlaneGeometry & g = geometry.planes[p];
      snprintf (part, sizeof part, "%s%dx%dx%d", p ? ", " : "", g.width,
          g.height, g.channels);
      text += part;
      if (g.subsampling_x > 1 || g.subsampling_y > 1) {
        snprintf (part, sizeof part, " (%dx%d)", g.subsampling_x,
            g.subsampling_y);
        text += part;
      }
    }
    return text;
  }
};

/* Never time on zeros: frames hold this pattern. */
void
fill_pattern (uint8_t * data, size_t bytes)
{
  for (size_t i = 0; i < bytes; i++)
    data[i] = (uint8_t) ((i * 2654435761u) >> 13);
}

int
max_abs_difference (const std::vector < uint8_t > &a,
    const std::vector < uint8_t > &b)
{
  int worst = 0;
  for (size_t i = 0; i < a.size (); i++)
    worst = std::max (worst, abs ((int) a[i] - (int) b[i]));
  return worst;
}

bool
is_2d (GbAlgorithm algorithm)
{
  return algorithm == GB_ALGORITHM_NAIVE || algorithm == GB_ALGORITHM_SHARED;
}

/* CPU reference time of one frame in milliseconds: median of 5, after one
 * warm-up frame (first-touch page faults, thread start). Negative (and a
 * message) when the CPU backend refuses the algorithm or the format. */
double
time_cpu (const FrameLayout & layout, GbAlgorithm algorithm, double sigma)
{
  GbParams params = gb_params_make (sigma, 0, algorithm, GB_BORDER_CLAMP);
  std::vector < uint8_t > src (layout.span), dst (layout.span);
  const GbImage in = layout.image (src.data ());
  const GbImage out = layout.image (dst.data ());
  GbBlur *blur;
  GbError error;
  double times[5];

  fill_pattern (src.data (), src.size ());
  if (gb_blur_create (GB_BACKEND_CPU, -1, &layout.geometry, &blur,
          &error) != GB_OK) {
    fprintf (stderr, "CPU: %s\n", error.message);
    return -1;
  }
  if (gb_blur_set_params (blur, &params, &error) != GB_OK
      || gb_blur_process (blur, &in, &out, &error) != GB_OK) {
    fprintf (stderr, "CPU %s: %s\n", gb_algorithm_name (algorithm),
        error.message);
    gb_blur_destroy (blur);
    return -1;
  }
  for (double &t : times) {
    auto begin = std::chrono::steady_clock::now ();
    CHECK_GB (gb_blur_process (blur, &in, &out, &error_));
    t = std::chrono::duration < double, std::milli > (
        std::chrono::steady_clock::now () - begin).count ();
  }
  gb_blur_destroy (blur);
  std::sort (times, times + 5);
  return times[2];
}

/* filters: the case's, resolved for sigma (each plane's own radii). */
void
print_cpu_cell (const FrameLayout & layout, const GbPlaneFilter * filters,
    GbAlgorithm algorithm, double sigma, bool run)
{
  double taps = 0;
  double ms;
  for (int p = 0; p < layout.geometry.n_planes; p++) {
    const GbPlaneGeometry & g = layout.geometry.planes[p];
    taps += (double) g.width * g.height * g.channels
        * (2.0 * filters[p].x.radius + 1) * (2.0 * filters[p].y.radius + 1);
  }
  if (!run)
    printf (" %10s |\n", "-");
  else if (is_2d (algorithm) && taps > CPU_2D_TAP_LIMIT)
    printf (" %10s |\n", "(too slow)");
  else if ((ms = time_cpu (layout, algorithm, sigma)) < 0)
    printf (" %10s |\n", "(error)");
  else
    printf (" %10.2f |\n", ms);
}

/* "%.1f", or "" for a value not measured (negative). */
std::string
csv_number (double value, const char *format = "%.3f")
{
  char text[64];
  if (value < 0)
    return "";
  snprintf (text, sizeof text, format, value);
  return text;
}

#ifdef GB_HAVE_NPP
/* NPP's FilterGaussAdvancedBorder: the separable Gaussian with caller-given
 * taps, which it reads from device memory (as NVIDIA's own samples pass
 * them). It takes no scratch buffer (the API has no GetBufferSize for it). */
struct Npp
{
  NppStreamContext context;
  Npp32f *taps = NULL;          /* device, 2 * GB_MAX_RADIUS + 1 */

  explicit Npp (cudaStream_t stream)
  {
    cudaDeviceProp props;
    memset (&context, 0, sizeof context);       /* hWorkspace = 0: none */
    context.hStream = stream;
    CHECK_CUDA (cudaGetDevice (&context.nCudaDeviceId));
    CHECK_CUDA (cudaGetDeviceProperties (&props, context.nCudaDeviceId));
    context.nMultiProcessorCount = props.multiProcessorCount;
    context.nMaxThreadsPerMultiProcessor = props.maxThreadsPerMultiProcessor;
    context.nMaxThreadsPerBlock = props.maxThreadsPerBlock;
    context.nSharedMemPerBlock = props.sharedMemPerBlock;
    context.nCudaDevAttrComputeCapabilityMajor = props.major;
    context.nCudaDevAttrComputeCapabilityMinor = props.minor;
    CHECK_CUDA (cudaStreamGetFlags (stream, &context.nStreamFlags));
    CHECK_CUDA (cudaMalloc ((void **) &taps,
            (2 * GB_MAX_RADIUS + 1) * sizeof (Npp32f)));
  }
  ~Npp ()
  {
    cudaFree (taps);
  }
  /* Stream-ordered before the filter calls that read them. */
  void set_taps (const float *weights, int radius)
  {
    CHECK_CUDA (cudaMemcpyAsync (taps, weights,
            (2 * radius + 1) * sizeof (Npp32f), cudaMemcpyHostToDevice,
            context.hStream));
    CHECK_CUDA (cudaStreamSynchronize (context.hStream));
  }
  NppStatus filter (const uint8_t * src, uint8_t * dst, size_t pitch,
      int width, int height, int channels, int radius) const
  {
    NppiSize size = { width, height };
    NppiPoint origin = { 0, 0 };
    if (channels == 1)
      return nppiFilterGaussAdvancedBorder_8u_C1R_Ctx (src, (Npp32s) pitch,
          size, origin, dst, (Npp32s) pitch, size, 2 * radius + 1, taps,
          NPP_BORDER_REPLICATE, context);
    if (channels == 4)
      return nppiFilterGaussAdvancedBorder_8u_C4R_Ctx (src, (Npp32s) pitch,
          size, origin, dst, (Npp32s) pitch, size, 2 * radius + 1, taps,
          NPP_BORDER_REPLICATE, context);
    return NPP_NOT_SUPPORTED_MODE_ERROR;
  }
};
#endif

/* "NV12,I420" into its names. */
std::vector < std::string > split_names (const char *list)
{
  std::vector < std::string > names;
  std::string name;
  for (const char *c = list;; c++) {
    if (*c == ',' || *c == '\0') {
      if (!name.empty ())
        names.push_back (name);
      name.clear ();
      if (*c == '\0')
        break;
    } else {
      name += *c;
    }
  }
  return names;
}

bool
format_known (const std::string & name)
{
  for (const Case & c : cases)
    if (name == c.format)
      return true;
  return false;
}

}                               /* namespace */

int
main (int argc, char **argv)
{
  static const double full_sigmas[] = {
    1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100
  };
  static const double quick_sigmas[] = { 1, 3, 10, 30 };
  static const GbAlgorithm algorithms[] = { GB_ALGORITHM_NAIVE,
    GB_ALGORITHM_SHARED, GB_ALGORITHM_SEPARABLE, GB_ALGORITHM_FUSED,
    GB_ALGORITHM_RECURSIVE, GB_ALGORITHM_MULTISCALE, GB_ALGORITHM_AUTO
  };
  /* One per plane; large: not on the stack. */
  static GbPlaneFilter filters[GB_MAX_PLANES];
  bool quick = false, with_cpu = true, gpu = true, with_npp = true;
  bool all_formats = false, planes_apart = false;
  std::vector < std::string > only_formats;
  const char *only_algorithm = NULL, *csv_path = NULL;
  int only_width = 0, size_width = 0, size_height = 0;
  std::vector < Case > sized;   /* --size: the chosen formats at that size */
  double only_sigma = 0, sigma_x = 0;
  bool anisotropic = false;
  std::vector < double >sigmas;
  std::vector < const Case *>selected;
  int format_width = 6;         /* the table's format column */
  GbCuda *cuda = NULL;
  GbError error;
  cudaDeviceProp props;
  FILE *csv = NULL;

  /* The GPU's own time, as the floor's: an eagerly enqueued copy of a small
   * frame is timed at the host's pace (docs/performance.md). */
  timing = Timing::GRAPH;
  for (int i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--quick"))
      quick = true;
    else if (!strcmp (argv[i], "--no-cpu"))
      with_cpu = false;
    else if (!strcmp (argv[i], "--cpu-only"))
      gpu = false;
    else if (!strcmp (argv[i], "--no-npp"))
      with_npp = false;
    else if (!strcmp (argv[i], "--format") && i + 1 < argc) {
      std::vector < std::string > names = split_names (argv[++i]);
      only_formats.insert (only_formats.end (), names.begin (), names.end ());
    } else if (!strcmp (argv[i], "--formats") && i + 1 < argc
        && !strcmp (argv[i + 1], "all")) {
      all_formats = true;
      i++;
    } else if (!strcmp (argv[i], "--width") && i + 1 < argc)
      only_width = atoi (argv[++i]);
    else if (!strcmp (argv[i], "--size") && i + 1 < argc) {
      int end = 0;
      if (sscanf (argv[++i], "%dx%d%n", &size_width, &size_height, &end) != 2
          || argv[i][end] != '\0' || size_width < 1 || size_height < 1
          || size_width > 16384 || size_height > 16384) {
        fprintf (stderr, "--size %s: not WxH (1 to 16384 each)\n", argv[i]);
        return 2;
      }
    }
    else if (!strcmp (argv[i], "--sigma") && i + 1 < argc)
      only_sigma = atof (argv[++i]);
    else if (!strcmp (argv[i], "--sigma-x") && i + 1 < argc) {
      sigma_x = atof (argv[++i]);
      anisotropic = true;
    }
    else if (!strcmp (argv[i], "--algorithm") && i + 1 < argc)
      only_algorithm = argv[++i];
    else if (!strcmp (argv[i], "--batch-ms") && i + 1 < argc)
      batch_seconds = atof (argv[++i]) / 1e3;
    else if (!strcmp (argv[i], "--csv") && i + 1 < argc)
      csv_path = argv[++i];
    else if (!strcmp (argv[i], "--planes-apart"))
      planes_apart = true;
    else if (!strcmp (argv[i], "--eager"))
      timing = Timing::EAGER;
    else {
      fprintf (stderr, "usage: %s [--quick] [--no-cpu] [--cpu-only] "
          "[--no-npp] [--format F[,F...]] [--formats all] [--width W] "
          "[--size WxH] [--sigma S] [--sigma-x SX] [--algorithm A] [--batch-ms MS] "
          "[--eager] [--planes-apart] [--csv FILE]\n", argv[0]);
      return 2;
    }
  }
  if (size_width && (only_width || quick)) {
    fprintf (stderr, "--size picks the size: not with --width or --quick\n");
    return 2;
  }
  if (only_sigma < 0 || only_sigma > GB_MAX_SIGMA || sigma_x < 0
      || sigma_x > GB_MAX_SIGMA || batch_seconds <= 0) {
    fprintf (stderr, "--sigma must be in (0, %g], --sigma-x in [0, %g], "
        "--batch-ms above 0\n", GB_MAX_SIGMA, GB_MAX_SIGMA);
    return 2;
  }
  /* NPP and the CPU cells blur isotropically; the CSV has one sigma. */
  if (anisotropic && (!gpu || csv_path)) {
    fprintf (stderr, "--sigma-x times the GPU rows only, without --csv\n");
    return 2;
  }
  if (anisotropic) {
    with_npp = false;
    with_cpu = false;
    printf ("sigma across: %g\n", sigma_x);
  }
  for (const std::string & name : only_formats)
    if (!format_known (name)) {
      fprintf (stderr, "--format %s: not a case; the cases are:",
          name.c_str ());
      for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        bool first = true;
        for (size_t cj = 0; cj < ci; cj++)
          first = first && strcmp (cases[ci].format, cases[cj].format);
        if (first)
          fprintf (stderr, " %s", cases[ci].format);
      }
      fprintf (stderr, "\n");
      return 2;
    }
  /* --format picks by name (any case), --formats all takes every case, and
   * neither the standard ones; --quick keeps the 1080p ones, --width its
   * width; --size takes each chosen format once, at that size. */
  /* selected keeps pointers into sized: room for every case up front, so
   * that no push_back moves them */
  sized.reserve (sizeof cases / sizeof cases[0]);
  for (const Case & c : cases) {
    bool listed = false, seen = false;
    for (const std::string & name : only_formats)
      listed = listed || name == c.format;
    if (!only_formats.empty () ? !listed : !(all_formats || c.standard))
      continue;
    if (size_width) {
      for (const Case & s : sized)
        seen = seen || !strcmp (s.format, c.format);
      if (seen)
        continue;
      sized.push_back (c);
      sized.back ().width = size_width;
      sized.back ().height = size_height;
      selected.push_back (&sized.back ());
    } else if ((quick && c.height > 1080)
        || (only_width && only_width != c.width)) {
      continue;
    } else {
      selected.push_back (&c);
    }
    format_width = std::max (format_width, (int) strlen (c.format));
  }
  if (only_sigma > 0)
    sigmas.assign (1, only_sigma);
  else if (quick)
    sigmas.assign (quick_sigmas, quick_sigmas + 4);
  else
    sigmas.assign (full_sigmas,
        full_sigmas + sizeof full_sigmas / sizeof full_sigmas[0]);
  if (csv_path && !(csv = open_csv (csv_path, CSV_HEADER)))
    return 1;

  if (gpu && gb_cuda_create (-1, &cuda, &error) != GB_OK) {
    printf ("no CUDA device (%s): CPU figures only\n", error.message);
    gpu = false;
  }
  if (gpu)
    gb_cuda_set_planes_in_one_launch (cuda, !planes_apart);
  if (gpu) {
    int device;
    CHECK_CUDA (cudaGetDevice (&device));
    CHECK_CUDA (cudaGetDeviceProperties (&props, device));
    printf ("GPU: %s, %d SMs, L2 %d MB; rotating over >= %zu MB of frames; "
        "median of %d batches of %.0f ms (a launch over %.0f ms: timed once)"
        "\n", props.name, props.multiProcessorCount,
        props.l2CacheSize >> 20, ROTATION_BYTES >> 20, REPETITIONS,
        batch_seconds * 1e3, SLOW_LAUNCH_MS);
    printf ("%s\n", timing == Timing::GRAPH
        ? "Each batch captured into a CUDA graph, the graph's launch timed "
        "(the GPU's time; the host's enqueue outside it)"
        : "Each batch enqueued launch by launch between two events (a "
        "\"# host-bound\" line: the host's enqueue took >= 90 % of it)");
  }
#ifdef GB_HAVE_NPP
  if (gpu && with_npp) {
    const NppLibraryVersion *v = nppGetLibVersion ();
    printf ("NPP %d.%d.%d: nppiFilterGaussAdvancedBorder_8u_C1R/C4R_Ctx, "
        "our 2 radius + 1 taps (device), NPP_BORDER_REPLICATE (GRAY8 and "
        "RGBA only)\n", v->major, v->minor, v->build);
  }
#else
  if (gpu && with_npp)
    printf ("NPP: not compiled in (build with -Dnpp=enabled or "
        "-DGB_HAVE_NPP)\n");
#endif
  if (gpu)
    printf ("naive and shared: sigma <= %g only, unless --algorithm names "
        "them\n", GPU_2D_MAX_SIGMA);
  printf ("CPU reference: %ld threads\n\n", sysconf (_SC_NPROCESSORS_ONLN));
  printf ("| %-*s | size      | sigma | radius | algorithm        "
      "| GPU us    | copy us | x copy  | GB/s  | NPP us     | x NPP    "
      "| CPU ms     |\n", format_width, "format");
  printf ("|%s|-----------|-------|--------|------------------"
      "|-----------|---------|---------|-------|------------|----------"
      "|------------|\n", std::string (format_width + 2, '-').c_str ());

  for (const Case * cp : selected) {
    const Case & c = *cp;
    const CaseFrame layout (c);
    const GbGeometry & geometry = layout.geometry;
    const int largest = layout.largest_plane ();
    DeviceFrames *frames = NULL;
#ifdef GB_HAVE_NPP
    Npp *npp = NULL;
#endif
    cudaStream_t stream = NULL;
    double copy_us = 0;
    std::vector < uint8_t > npp_reference, ours;

    if (c.n_planes > 1 || c.bytes_per_sample > 1)
      printf ("# %s %dx%d: %d-bit, planes %s; %zu bytes a frame\n", c.format,
          c.width, c.height, 8 * c.bytes_per_sample,
          layout.describe ().c_str (), layout.bytes);
    if (gpu) {
      GbError e;
      if (gb_cuda_configure (cuda, &geometry, &e) != GB_OK) {
        printf ("# %s %dx%d: the CUDA backend refuses it: %s\n", c.format,
            c.width, c.height, e.message);
        continue;
      }
      {
        std::vector < uint8_t > host (layout.span);
        fill_pattern (host.data (), host.size ());
        frames = new DeviceFrames (layout.span, host.data ());
      }
      stream = (cudaStream_t) gb_cuda_stream (cuda);
      copy_us = time_launches (stream,[&](int i) {
            size_t k = i % frames->count ();
            CHECK_CUDA (cudaMemcpyAsync (frames->output[k], frames->input[k],
                    frames->span, cudaMemcpyDeviceToDevice, stream));
          });
      if (last_host_bound (copy_us))
        printf ("# host-bound: copy %s %dx%d, %.1f us GPU, %.1f us host "
            "enqueue a launch\n", c.format, c.width, c.height, copy_us,
            last_enqueue_us);
#ifdef GB_HAVE_NPP
      if (with_npp && layout.npp_supported ())
        npp = new Npp (stream);
#endif
    }

    for (double sigma : sigmas) {
      const int radius = gb_auto_radius (sigma);
      GbParams params = gb_params_make (sigma, 0, GB_ALGORITHM_AUTO,
          GB_BORDER_CLAMP);
      double npp_us = -1;

      if (anisotropic)
        params.sigma_x = sigma_x;
      std::string check, host_note;

      gb_plane_filters_resolve (&params, &geometry, filters);
      if (gpu)
        CHECK_GB (gb_cuda_set_filters (cuda, filters, &error_));

#ifdef GB_HAVE_NPP
      /* NPP on the same frames, with the same taps; its output on frame 0
       * is the reference the rows below are compared with. One plane, full
       * resolution: plane 0's taps are the frame's. */
      if (npp) {
        const int npp_radius = filters[0].x.radius;
        const int channels = geometry.planes[0].channels;
        const size_t pitch = layout.stride[0];
        npp->set_taps (filters[0].x.weights, npp_radius);
        NppStatus status = npp->filter (frames->input[0], frames->output[0],
            pitch, c.width, c.height, channels, npp_radius);
        cudaError_t cuda_status = cudaStreamSynchronize (stream);
        if (status < 0 || cuda_status != cudaSuccess) {
          printf ("# NPP %s %dx%d sigma %g radius %d (%d taps): NPP status "
              "%d, CUDA %s: not timed\n", c.format, c.width, c.height, sigma,
              npp_radius, 2 * npp_radius + 1, (int) status,
              cudaGetErrorString (cuda_status));
          CHECK_CUDA (cudaGetLastError ());
        } else {
          if (status != NPP_SUCCESS)
            printf ("# NPP %s %dx%d sigma %g: warning status %d\n",
                c.format, c.width, c.height, sigma, (int) status);
          npp_reference.resize (layout.bytes);
          CHECK_CUDA (cudaMemcpy (npp_reference.data (), frames->output[0],
                  layout.bytes, cudaMemcpyDeviceToHost));
          npp_us = time_launches (stream,[&](int i) {
                size_t k = i % frames->count ();
                npp->filter (frames->input[k], frames->output[k], pitch,
                    c.width, c.height, channels, npp_radius);
              }, true);
        }
      }
#endif

      for (GbAlgorithm algorithm : algorithms) {
        if (only_algorithm && strcmp (only_algorithm,
                gb_algorithm_name (algorithm)))
          continue;
        /* The 2D references cost (2R + 1)^2: minutes per row beyond small
         * sigma. The CPU columns keep their own tap limit. */
        if (gpu && is_2d (algorithm) && sigma > GPU_2D_MAX_SIGMA
            && !only_algorithm)
          continue;
        GbAlgorithm kernel = algorithm;
        if (algorithm == GB_ALGORITHM_AUTO)
          kernel = gpu ? gb_cuda_auto_algorithm (cuda, &filters[largest],
              &geometry, largest)
              : GB_ALGORITHM_SEPARABLE;
        char name[32];
        if (algorithm == GB_ALGORITHM_AUTO && gpu)
          snprintf (name, sizeof name, "auto (%s)", gb_algorithm_name (kernel));
        else
          snprintf (name, sizeof name, "%s", gb_algorithm_name (algorithm));
        printf ("| %-*s | %4dx%-4d | %5g | %6d | %-16s |", format_width,
            c.format, c.width, c.height, sigma, radius, name);
        if (gpu) {
          const GbImage in0 = layout.image (frames->input[0]);
          const GbImage out0 = layout.image (frames->output[0]);
          GbError e;
          /* One launch first: an algorithm may refuse these parameters. */
          if (gb_cuda_enqueue (cuda, &in0, &out0, kernel, GB_BORDER_CLAMP,
                  &e) != GB_OK || gb_cuda_synchronize (cuda, &e) != GB_OK) {
            printf (" %9s | %7.1f | %7s | %5s | %10s | %8s |", "(error)",
                copy_us, "-", "-", "-", "-");
            print_cpu_cell (layout, filters, kernel, sigma, false);
            printf ("# %s %s %dx%d sigma %g: %s\n", name, c.format, c.width,
                c.height, sigma, e.message);
            continue;
          }
          if (npp_us >= 0) {
            ours.resize (layout.bytes);
            CHECK_CUDA (cudaMemcpy (ours.data (), frames->output[0],
                    layout.bytes, cudaMemcpyDeviceToHost));
            check += " " + std::string (gb_algorithm_name (algorithm)) + " "
                + std::to_string (max_abs_difference (ours, npp_reference));
          }
          double us = time_launches (stream,[&](int i) {
                size_t k = i % frames->count ();
                const GbImage in = layout.image (frames->input[k]);
                const GbImage out = layout.image (frames->output[k]);
                CHECK_GB (gb_cuda_enqueue (cuda, &in, &out, kernel,
                        GB_BORDER_CLAMP, &error_));
              }, true);
          if (last_host_bound (us))
            host_note += " " + std::string (name) + " "
                + csv_number (us, "%.1f") + "/"
                + csv_number (last_enqueue_us, "%.1f");
          printf (" %9.1f | %7.1f | %7.2f | %5.0f |", us, copy_us,
              us / copy_us, 2.0 * layout.bytes / (us * 1e3));
          if (npp_us >= 0)
            printf (" %10.1f | %8.2f |", npp_us, npp_us / us);
          else
            printf (" %10s | %8s |", "-", "-");
          if (csv) {
            fprintf (csv, "%s,%s,%d,%d,%g,%d,%s,%s,%s,%s,%s,%zu,%s\n",
                gb_algorithm_name (algorithm), c.format, c.width, c.height,
                sigma, radius, csv_number (us).c_str (),
                csv_number (copy_us).c_str (),
                csv_number (us / copy_us, "%.4f").c_str (),
                csv_number (npp_us).c_str (),
                csv_number (npp_us >= 0 ? npp_us / us : -1, "%.4f").c_str (),
                layout.bytes, timing == Timing::GRAPH ? "graph" : "eager");
            fflush (csv);
          }
        } else {
          printf (" %9s | %7s | %7s | %5s | %10s | %8s |", "-", "-", "-", "-",
              "-", "-");
        }
        fflush (stdout);
        print_cpu_cell (layout, filters, kernel, sigma, with_cpu
            && algorithm != GB_ALGORITHM_AUTO);
      }
      if (!host_note.empty ())
        printf ("# host-bound %s %dx%d sigma %g (us GPU/host enqueue a "
            "launch):%s\n", c.format, c.width, c.height, sigma,
            host_note.c_str ());
      if (npp_us >= 0 && !check.empty ())
        printf ("# NPP check %s %dx%d sigma %g radius %d: max |NPP - ours| "
            "(levels):%s\n", c.format, c.width, c.height, sigma, radius,
            check.c_str ());
      fflush (stdout);
    }
#ifdef GB_HAVE_NPP
    delete npp;
#endif
    delete frames;
  }
  if (csv)
    fclose (csv);
  gb_cuda_destroy (cuda);
  return 0;
}

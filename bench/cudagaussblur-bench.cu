/* cudagaussblur-bench: kernel time of every algorithm against the copy floor
 * and against NPP.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * For GRAY8 and RGBA at 1920x1080 and 3840x2160 and sigma from 1 to 100:
 *  - GPU time of each algorithm, input and output already on the GPU, timed
 *    with CUDA events over many launches that rotate through enough frames to
 *    defeat the L2 cache (a 4K RGBA frame fits in the H100's 50 MB L2);
 *  - a device-to-device copy of the same frame in the same run, the floor
 *    (one read and one write), and the ratio to it;
 *  - where the benchmark was built with NPP (GB_HAVE_NPP): the time of
 *    nppiFilterGaussAdvancedBorder_8u_C1R/C4R on the same rotating frames with
 *    our own 2 * radius + 1 taps and a replicated border (our clamp), the
 *    speed-up over it (NPP time / ours), and once per configuration the
 *    largest difference between NPP's output and each of ours (a "#" line);
 *  - the CPU reference's time for the same frame (every algorithm, the 2D
 *    ones only where they finish in reasonable time).
 * Without a CUDA device it prints the CPU figures alone.
 *
 * naive and shared cost (2 radius + 1)^2 per sample: on the GPU they run only
 * up to sigma GPU_2D_MAX_SIGMA unless --algorithm names them.
 *
 * Usage: cudagaussblur-bench [--quick] [--no-cpu] [--cpu-only] [--no-npp]
 *                             [--format F] [--width W] [--sigma S]
 *                             [--algorithm A] [--batch-ms MS] [--csv FILE]
 * --format, --width and --algorithm keep only the matching rows (e.g. to
 * profile one case); --sigma S runs that sigma alone (any value). --csv also
 * writes every GPU row to FILE (columns: CSV_HEADER below; an empty field was
 * not measured), for docs/plot_performance.py.
 */
#include "gaussblur.h"
#include "cuda_backend.h"
#include "recursive.h"

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

constexpr size_t ROTATION_BYTES = 256u << 20;   /* > 5x the 50 MB L2 */
constexpr int MIN_FRAMES = 3;
constexpr int REPETITIONS = 5;                  /* median of these */
constexpr int MAX_BATCH = 2000;                 /* launches per timed batch */
constexpr double SLOW_LAUNCH_MS = 100;           /* beyond: one timed launch */
constexpr double CPU_2D_TAP_LIMIT = 5.0e9;       /* skip slower CPU 2D runs */
constexpr double GPU_2D_MAX_SIGMA = 5;           /* naive/shared beyond: skipped */
constexpr const char *CSV_HEADER = "algorithm,format,width,height,sigma,radius,"
    "us,copy_us,ratio,npp_us,npp_speedup";

/* Per timed repetition; --batch-ms changes it. 50 ms x 5 keeps the default
 * sweep (4 frame cases x 12 sigmas x 5 timings, NPP included) within about
 * 2 minutes on an H100, where NPP alone takes 0.01 to 4.7 s per frame beyond
 * radius 25. */
double batch_seconds = 0.05;

struct Case
{
  const char *format;
  int channels;
  int width, height;
};

#define CHECK_CUDA(call) \
  do { \
    cudaError_t err_ = (call); \
    if (err_ != cudaSuccess) { \
      fprintf (stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
          cudaGetErrorString (err_)); \
      exit (1); \
    } \
  } while (0)

#define CHECK_GB(call) \
  do { \
    GbError error_; \
    if ((call) != GB_OK) { \
      fprintf (stderr, "%s:%d: %s\n", __FILE__, __LINE__, error_.message); \
      exit (1); \
    } \
  } while (0)

/* Frames without row padding, so the floor is one flat copy of exactly the
 * frame's bytes (a pitched 2D copy is slower and would flatter the ratio). */
struct DeviceFrames
{
  std::vector < uint8_t * >input, output;
  size_t pitch;
  size_t bytes;

  DeviceFrames (int width, int height, int channels)
  : pitch ((size_t) width * channels), bytes (pitch * height)
  {
    const size_t count = std::max ((size_t) MIN_FRAMES,
        ROTATION_BYTES / (2 * bytes));
    for (size_t i = 0; i < count; i++) {
      uint8_t *in, *out;
      CHECK_CUDA (cudaMalloc ((void **) &in, bytes));
      CHECK_CUDA (cudaMalloc ((void **) &out, bytes));
      input.push_back (in);
      output.push_back (out);
    }
    /* Never time on zeros: fill the inputs with a pattern. */
    std::vector < uint8_t > host (bytes);
    for (size_t i = 0; i < bytes; i++)
      host[i] = (uint8_t) ((i * 2654435761u) >> 13);
    for (uint8_t * in : input)
      CHECK_CUDA (cudaMemcpy (in, host.data (), bytes, cudaMemcpyHostToDevice));
  }
  ~DeviceFrames ()
  {
    for (uint8_t * p : input)
      cudaFree (p);
    for (uint8_t * p : output)
      cudaFree (p);
  }
  size_t count () const { return input.size (); }
};

/* Median over REPETITIONS of the mean time of one launch, in microseconds.
 * enqueue(i) must enqueue the i-th launch on `stream`. Slow launches get
 * fewer iterations per batch (down to one); a launch over SLOW_LAUNCH_MS is
 * timed once (event noise is nothing there). warmed: the caller has just run
 * it (no warm-up launch needed). */
template < class Enqueue > double
time_launches (cudaStream_t stream, Enqueue enqueue, bool warmed = false)
{
  cudaEvent_t start, stop;
  float ms;
  int iterations;
  std::vector < double >samples;

  CHECK_CUDA (cudaEventCreate (&start));
  CHECK_CUDA (cudaEventCreate (&stop));
  /* Warm-up, and a first estimate to size the timed batches. */
  if (!warmed)
    enqueue (0);
  CHECK_CUDA (cudaEventRecord (start, stream));
  enqueue (1);
  CHECK_CUDA (cudaEventRecord (stop, stream));
  CHECK_CUDA (cudaEventSynchronize (stop));
  CHECK_CUDA (cudaEventElapsedTime (&ms, start, stop));
  if (ms > SLOW_LAUNCH_MS) {
    CHECK_CUDA (cudaGetLastError ());
    cudaEventDestroy (start);
    cudaEventDestroy (stop);
    return 1e3 * ms;
  }
  iterations = std::max (1, std::min (MAX_BATCH,
          (int) (batch_seconds * 1e3 / std::max (ms, 1e-3f))));

  for (int r = 0; r < REPETITIONS; r++) {
    CHECK_CUDA (cudaEventRecord (start, stream));
    for (int i = 0; i < iterations; i++)
      enqueue (i);
    CHECK_CUDA (cudaEventRecord (stop, stream));
    CHECK_CUDA (cudaEventSynchronize (stop));
    CHECK_CUDA (cudaEventElapsedTime (&ms, start, stop));
    samples.push_back (1e3 * ms / iterations);
  }
  CHECK_CUDA (cudaGetLastError ());
  cudaEventDestroy (start);
  cudaEventDestroy (stop);
  std::sort (samples.begin (), samples.end ());
  return samples[REPETITIONS / 2];
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
 * message) when the CPU backend refuses the algorithm. */
double
time_cpu (const Case & c, GbAlgorithm algorithm, double sigma)
{
  GbGeometry geometry = { 1, 1, {{c.width, c.height, c.channels}} };
  GbParams params = { sigma, 0, algorithm, GB_BORDER_CLAMP };
  const size_t stride = (size_t) c.width * c.channels;
  std::vector < uint8_t > src (stride * c.height), dst (stride * c.height);
  GbImage in = { {src.data ()}, {stride} }, out = { {dst.data ()}, {stride} };
  GbBlur *blur;
  GbError error;
  double times[5];

  for (size_t i = 0; i < src.size (); i++)
    src[i] = (uint8_t) ((i * 2654435761u) >> 13);
  CHECK_GB (gb_blur_create (GB_BACKEND_CPU, -1, &geometry, &blur, &error_));
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

void
print_cpu_cell (const Case & c, GbAlgorithm algorithm, double sigma, bool run)
{
  int radius = gb_auto_radius (sigma);
  double taps = (double) c.width * c.height * c.channels
      * (2.0 * radius + 1) * (2 * radius + 1);
  double ms;
  if (!run)
    printf (" %10s |\n", "-");
  else if (is_2d (algorithm) && taps > CPU_2D_TAP_LIMIT)
    printf (" %10s |\n", "(too slow)");
  else if ((ms = time_cpu (c, algorithm, sigma)) < 0)
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

}                               /* namespace */

int
main (int argc, char **argv)
{
  static const Case full_cases[] = {
    {"GRAY8", 1, 1920, 1080}, {"RGBA", 4, 1920, 1080},
    {"GRAY8", 1, 3840, 2160}, {"RGBA", 4, 3840, 2160},
  };
  static const double full_sigmas[] = {
    1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100
  };
  static const double quick_sigmas[] = { 1, 3, 10, 30 };
  static const GbAlgorithm algorithms[] = { GB_ALGORITHM_NAIVE,
    GB_ALGORITHM_SHARED, GB_ALGORITHM_SEPARABLE, GB_ALGORITHM_FUSED,
    GB_ALGORITHM_RECURSIVE, GB_ALGORITHM_MULTISCALE, GB_ALGORITHM_AUTO
  };
  bool quick = false, with_cpu = true, gpu = true, with_npp = true;
  int n_cases = 4;
  const char *only_format = NULL, *only_algorithm = NULL, *csv_path = NULL;
  int only_width = 0;
  double only_sigma = 0;
  std::vector < double >sigmas;
  GbCuda *cuda = NULL;
  GbError error;
  cudaDeviceProp props;
  FILE *csv = NULL;

  for (int i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--quick"))
      quick = true;
    else if (!strcmp (argv[i], "--no-cpu"))
      with_cpu = false;
    else if (!strcmp (argv[i], "--cpu-only"))
      gpu = false;
    else if (!strcmp (argv[i], "--no-npp"))
      with_npp = false;
    else if (!strcmp (argv[i], "--format") && i + 1 < argc)
      only_format = argv[++i];
    else if (!strcmp (argv[i], "--width") && i + 1 < argc)
      only_width = atoi (argv[++i]);
    else if (!strcmp (argv[i], "--sigma") && i + 1 < argc)
      only_sigma = atof (argv[++i]);
    else if (!strcmp (argv[i], "--algorithm") && i + 1 < argc)
      only_algorithm = argv[++i];
    else if (!strcmp (argv[i], "--batch-ms") && i + 1 < argc)
      batch_seconds = atof (argv[++i]) / 1e3;
    else if (!strcmp (argv[i], "--csv") && i + 1 < argc)
      csv_path = argv[++i];
    else {
      fprintf (stderr, "usage: %s [--quick] [--no-cpu] [--cpu-only] "
          "[--no-npp] [--format F] [--width W] [--sigma S] [--algorithm A] "
          "[--batch-ms MS] [--csv FILE]\n", argv[0]);
      return 2;
    }
  }
  if (only_sigma < 0 || only_sigma > GB_MAX_SIGMA || batch_seconds <= 0) {
    fprintf (stderr, "--sigma must be in (0, %g], --batch-ms above 0\n",
        GB_MAX_SIGMA);
    return 2;
  }
  if (quick)
    n_cases = 2;
  if (only_sigma > 0)
    sigmas.assign (1, only_sigma);
  else if (quick)
    sigmas.assign (quick_sigmas, quick_sigmas + 4);
  else
    sigmas.assign (full_sigmas,
        full_sigmas + sizeof full_sigmas / sizeof full_sigmas[0]);
  if (csv_path) {
    csv = fopen (csv_path, "w");
    if (!csv) {
      perror (csv_path);
      return 1;
    }
    fprintf (csv, "%s\n", CSV_HEADER);
  }

  if (gpu && gb_cuda_create (-1, &cuda, &error) != GB_OK) {
    printf ("no CUDA device (%s): CPU figures only\n", error.message);
    gpu = false;
  }
  if (gpu) {
    int device;
    CHECK_CUDA (cudaGetDevice (&device));
    CHECK_CUDA (cudaGetDeviceProperties (&props, device));
    printf ("GPU: %s, %d SMs, L2 %d MB; rotating over >= %zu MB of frames; "
        "median of %d batches of %.0f ms (a launch over %.0f ms: timed once)"
        "\n", props.name, props.multiProcessorCount,
        props.l2CacheSize >> 20, ROTATION_BYTES >> 20, REPETITIONS,
        batch_seconds * 1e3, SLOW_LAUNCH_MS);
  }
#ifdef GB_HAVE_NPP
  if (gpu && with_npp) {
    const NppLibraryVersion *v = nppGetLibVersion ();
    printf ("NPP %d.%d.%d: nppiFilterGaussAdvancedBorder_8u_C1R/C4R_Ctx, "
        "our 2 radius + 1 taps (device), NPP_BORDER_REPLICATE\n",
        v->major, v->minor, v->build);
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
  printf ("| format | size      | sigma | radius | algorithm        "
      "| GPU us    | copy us | x copy  | GB/s  | NPP us     | x NPP    "
      "| CPU ms     |\n");
  printf ("|--------|-----------|-------|--------|------------------"
      "|-----------|---------|---------|-------|------------|----------"
      "|------------|\n");

  for (int ci = 0; ci < n_cases; ci++) {
    const Case & c = full_cases[ci];
    if ((only_format && strcmp (only_format, c.format))
        || (only_width && only_width != c.width))
      continue;
    GbGeometry geometry = { 1, 1, {{c.width, c.height, c.channels}} };
    DeviceFrames *frames = NULL;
#ifdef GB_HAVE_NPP
    Npp *npp = NULL;
#endif
    cudaStream_t stream = NULL;
    double copy_us = 0;
    const size_t row = (size_t) c.width * c.channels;
    std::vector < uint8_t > npp_reference, ours;

    if (gpu) {
      CHECK_GB (gb_cuda_configure (cuda, &geometry, &error_));
      frames = new DeviceFrames (c.width, c.height, c.channels);
      stream = (cudaStream_t) gb_cuda_stream (cuda);
      copy_us = time_launches (stream,[&](int i) {
            size_t k = i % frames->count ();
            CHECK_CUDA (cudaMemcpyAsync (frames->output[k], frames->input[k],
                    frames->bytes, cudaMemcpyDeviceToDevice, stream));
          });
#ifdef GB_HAVE_NPP
      if (with_npp)
        npp = new Npp (stream);
#endif
    }

    for (double sigma : sigmas) {
      const int radius = gb_auto_radius (sigma);
      float weights[2 * GB_MAX_RADIUS + 1];
      GbRecursiveFilter recursive;
      GbMultiscalePlan multiscale;   /* one plane */
      double npp_us = -1;
      std::string check;

      gb_gaussian_weights (sigma, radius, weights);
      gb_recursive_filter (sigma, &recursive);
      gb_multiscale_plan (sigma, c.width, c.height, &multiscale);
      if (gpu)
        CHECK_GB (gb_cuda_set_weights (cuda, weights, radius, &recursive,
                &multiscale, &error_));

#ifdef GB_HAVE_NPP
      /* NPP on the same frames, with the same taps; its output on frame 0
       * is the reference the rows below are compared with. */
      if (npp) {
        npp->set_taps (weights, radius);
        NppStatus status = npp->filter (frames->input[0], frames->output[0],
            frames->pitch, c.width, c.height, c.channels, radius);
        cudaError_t cuda_status = cudaStreamSynchronize (stream);
        if (status < 0 || cuda_status != cudaSuccess) {
          printf ("# NPP %s %dx%d sigma %g radius %d (%d taps): NPP status "
              "%d, CUDA %s: not timed\n", c.format, c.width, c.height, sigma,
              radius, 2 * radius + 1, (int) status,
              cudaGetErrorString (cuda_status));
          CHECK_CUDA (cudaGetLastError ());
        } else {
          if (status != NPP_SUCCESS)
            printf ("# NPP %s %dx%d sigma %g: warning status %d\n",
                c.format, c.width, c.height, sigma, (int) status);
          npp_reference.resize (frames->bytes);
          CHECK_CUDA (cudaMemcpy (npp_reference.data (), frames->output[0],
                  frames->bytes, cudaMemcpyDeviceToHost));
          npp_us = time_launches (stream,[&](int i) {
                size_t k = i % frames->count ();
                npp->filter (frames->input[k], frames->output[k],
                    frames->pitch, c.width, c.height, c.channels, radius);
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
          kernel = gpu ? gb_cuda_auto_algorithm (cuda, sigma, radius)
              : GB_ALGORITHM_SEPARABLE;
        char name[32];
        if (algorithm == GB_ALGORITHM_AUTO && gpu)
          snprintf (name, sizeof name, "auto (%s)", gb_algorithm_name (kernel));
        else
          snprintf (name, sizeof name, "%s", gb_algorithm_name (algorithm));
        printf ("| %-6s | %4dx%-4d | %5g | %6d | %-16s |", c.format, c.width,
            c.height, sigma, radius, name);
        if (gpu) {
          GbImage in0 = { {frames->input[0]}, {frames->pitch} };
          GbImage out0 = { {frames->output[0]}, {frames->pitch} };
          GbError e;
          /* One launch first: an algorithm may refuse these parameters. */
          if (gb_cuda_enqueue (cuda, &in0, &out0, kernel, GB_BORDER_CLAMP,
                  &e) != GB_OK || gb_cuda_synchronize (cuda, &e) != GB_OK) {
            printf (" %9s | %7.1f | %7s | %5s | %10s | %8s |", "(error)",
                copy_us, "-", "-", "-", "-");
            print_cpu_cell (c, kernel, sigma, false);
            printf ("# %s %s %dx%d sigma %g: %s\n", name, c.format, c.width,
                c.height, sigma, e.message);
            continue;
          }
          if (npp_us >= 0) {
            ours.resize (frames->bytes);
            CHECK_CUDA (cudaMemcpy (ours.data (), frames->output[0],
                    frames->bytes, cudaMemcpyDeviceToHost));
            check += " " + std::string (gb_algorithm_name (algorithm)) + " "
                + std::to_string (max_abs_difference (ours, npp_reference));
          }
          double us = time_launches (stream,[&](int i) {
                size_t k = i % frames->count ();
                GbImage in = { {frames->input[k]}, {frames->pitch} };
                GbImage out = { {frames->output[k]}, {frames->pitch} };
                CHECK_GB (gb_cuda_enqueue (cuda, &in, &out, kernel,
                        GB_BORDER_CLAMP, &error_));
              }, true);
          printf (" %9.1f | %7.1f | %7.2f | %5.0f |", us, copy_us,
              us / copy_us, 2.0 * row * c.height / (us * 1e3));
          if (npp_us >= 0)
            printf (" %10.1f | %8.2f |", npp_us, npp_us / us);
          else
            printf (" %10s | %8s |", "-", "-");
          if (csv) {
            fprintf (csv, "%s,%s,%d,%d,%g,%d,%s,%s,%s,%s,%s\n",
                gb_algorithm_name (algorithm), c.format, c.width, c.height,
                sigma, radius, csv_number (us).c_str (),
                csv_number (copy_us).c_str (),
                csv_number (us / copy_us, "%.4f").c_str (),
                csv_number (npp_us).c_str (),
                csv_number (npp_us >= 0 ? npp_us / us : -1, "%.4f").c_str ());
            fflush (csv);
          }
        } else {
          printf (" %9s | %7s | %7s | %5s | %10s | %8s |", "-", "-", "-", "-",
              "-", "-");
        }
        fflush (stdout);
        print_cpu_cell (c, kernel, sigma, with_cpu
            && algorithm != GB_ALGORITHM_AUTO);
      }
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

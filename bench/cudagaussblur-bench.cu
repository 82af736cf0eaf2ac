/* cudagaussblur-bench: kernel time of every algorithm against the copy floor.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * For GRAY8 and RGBA at 1920x1080 and 3840x2160 and sigma {1, 3, 10, 30}:
 *  - GPU time of each algorithm, input and output already on the GPU, timed
 *    with CUDA events over many launches that rotate through enough frames to
 *    defeat the L2 cache (a 4K RGBA frame fits in the H100's 50 MB L2);
 *  - a device-to-device copy of the same frame in the same run, the floor
 *    (one read and one write), and the ratio to it;
 *  - the CPU reference's time for the same frame (every algorithm, the 2D
 *    ones only where they finish in reasonable time).
 * Without a CUDA device it prints the CPU figures alone.
 *
 * Usage: cudagaussblur-bench [--quick] [--no-cpu] [--cpu-only]
 *                             [--format F] [--width W] [--sigma S]
 *                             [--algorithm A]
 * The last four keep only the matching rows (e.g. to profile one case).
 */
#include "gaussblur.h"
#include "cuda_backend.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vector>

namespace {

constexpr size_t ROTATION_BYTES = 256u << 20;   /* > 5x the 50 MB L2 */
constexpr int MIN_FRAMES = 3;
constexpr double TARGET_SECONDS = 0.15;         /* per timed repetition */
constexpr int REPETITIONS = 5;                  /* median of these */
constexpr double CPU_2D_TAP_LIMIT = 5.0e9;       /* skip slower CPU 2D runs */

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
 * enqueue(i) must enqueue the i-th launch on `stream`. */
template < class Enqueue > double
time_launches (cudaStream_t stream, Enqueue enqueue)
{
  cudaEvent_t start, stop;
  float ms;
  int iterations;
  std::vector < double >samples;

  CHECK_CUDA (cudaEventCreate (&start));
  CHECK_CUDA (cudaEventCreate (&stop));
  /* Warm-up, and a first estimate to size the timed batches. */
  enqueue (0);
  CHECK_CUDA (cudaEventRecord (start, stream));
  enqueue (1);
  CHECK_CUDA (cudaEventRecord (stop, stream));
  CHECK_CUDA (cudaEventSynchronize (stop));
  CHECK_CUDA (cudaEventElapsedTime (&ms, start, stop));
  iterations = std::max (1, std::min (2000, (int) (TARGET_SECONDS * 1e3 / ms)));

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

/* CPU reference time of one frame in milliseconds: median of 5, after one
 * warm-up frame (first-touch page faults, thread start). */
double
time_cpu (const Case & c, GbAlgorithm algorithm, double sigma)
{
  GbGeometry geometry = { 1, 1, {{c.width, c.height, c.channels}} };
  GbParams params = { sigma, 0, algorithm, GB_BORDER_CLAMP };
  const size_t stride = (size_t) c.width * c.channels;
  std::vector < uint8_t > src (stride * c.height), dst (stride * c.height);
  GbImage in = { {src.data ()}, {stride} }, out = { {dst.data ()}, {stride} };
  GbBlur *blur;
  double times[5];

  for (size_t i = 0; i < src.size (); i++)
    src[i] = (uint8_t) ((i * 2654435761u) >> 13);
  CHECK_GB (gb_blur_create (GB_BACKEND_CPU, -1, &geometry, &blur, &error_));
  CHECK_GB (gb_blur_set_params (blur, &params, &error_));
  CHECK_GB (gb_blur_process (blur, &in, &out, &error_));
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
      * (algorithm == GB_ALGORITHM_SEPARABLE ? 2.0 * (2 * radius + 1)
      : (2.0 * radius + 1) * (2 * radius + 1));
  if (!run)
    printf (" %10s |\n", "-");
  else if (algorithm != GB_ALGORITHM_SEPARABLE && taps > CPU_2D_TAP_LIMIT)
    printf (" %10s |\n", "(too slow)");
  else
    printf (" %10.2f |\n", time_cpu (c, algorithm, sigma));
}

}                               /* namespace */

int
main (int argc, char **argv)
{
  static const Case full_cases[] = {
    {"GRAY8", 1, 1920, 1080}, {"RGBA", 4, 1920, 1080},
    {"GRAY8", 1, 3840, 2160}, {"RGBA", 4, 3840, 2160},
  };
  static const double sigmas[] = { 1, 3, 10, 30 };
  static const GbAlgorithm algorithms[] = { GB_ALGORITHM_NAIVE,
    GB_ALGORITHM_SHARED, GB_ALGORITHM_SEPARABLE, GB_ALGORITHM_AUTO
  };
  bool quick = false, with_cpu = true, gpu = true;
  int n_cases = 4;
  const char *only_format = NULL, *only_algorithm = NULL;
  int only_width = 0;
  double only_sigma = 0;
  GbCuda *cuda = NULL;
  GbError error;
  cudaDeviceProp props;

  for (int i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--quick"))
      quick = true;
    else if (!strcmp (argv[i], "--no-cpu"))
      with_cpu = false;
    else if (!strcmp (argv[i], "--cpu-only"))
      gpu = false;
    else if (!strcmp (argv[i], "--format") && i + 1 < argc)
      only_format = argv[++i];
    else if (!strcmp (argv[i], "--width") && i + 1 < argc)
      only_width = atoi (argv[++i]);
    else if (!strcmp (argv[i], "--sigma") && i + 1 < argc)
      only_sigma = atof (argv[++i]);
    else if (!strcmp (argv[i], "--algorithm") && i + 1 < argc)
      only_algorithm = argv[++i];
    else {
      fprintf (stderr, "usage: %s [--quick] [--no-cpu] [--cpu-only] "
          "[--format F] [--width W] [--sigma S] [--algorithm A]\n", argv[0]);
      return 2;
    }
  }
  if (quick)
    n_cases = 2;

  if (gpu && gb_cuda_create (-1, &cuda, &error) != GB_OK) {
    printf ("no CUDA device (%s): CPU figures only\n", error.message);
    gpu = false;
  }
  if (gpu) {
    int device;
    CHECK_CUDA (cudaGetDevice (&device));
    CHECK_CUDA (cudaGetDeviceProperties (&props, device));
    printf ("GPU: %s, %d SMs, L2 %d MB; rotating over >= %zu MB of frames\n",
        props.name, props.multiProcessorCount, props.l2CacheSize >> 20,
        ROTATION_BYTES >> 20);
  }
  printf ("CPU reference: %ld threads\n\n", sysconf (_SC_NPROCESSORS_ONLN));
  printf ("| format | size      | sigma | radius | algorithm | GPU us   "
      "| copy us | x copy | GB/s  | CPU ms     |\n");
  printf ("|--------|-----------|-------|--------|-----------|----------"
      "|---------|--------|-------|------------|\n");

  for (int ci = 0; ci < n_cases; ci++) {
    const Case & c = full_cases[ci];
    if ((only_format && strcmp (only_format, c.format))
        || (only_width && only_width != c.width))
      continue;
    GbGeometry geometry = { 1, 1, {{c.width, c.height, c.channels}} };
    DeviceFrames *frames = NULL;
    cudaStream_t stream = NULL;
    double copy_us = 0;
    const size_t row = (size_t) c.width * c.channels;

    if (gpu) {
      CHECK_GB (gb_cuda_configure (cuda, &geometry, &error_));
      frames = new DeviceFrames (c.width, c.height, c.channels);
      stream = (cudaStream_t) gb_cuda_stream (cuda);
      copy_us = time_launches (stream,[&](int i) {
            size_t k = i % frames->count ();
            CHECK_CUDA (cudaMemcpyAsync (frames->output[k], frames->input[k],
                    frames->bytes, cudaMemcpyDeviceToDevice, stream));
          });
    }

    for (double sigma : sigmas) {
      if (only_sigma && only_sigma != sigma)
        continue;
      const int radius = gb_auto_radius (sigma);
      float weights[2 * GB_MAX_RADIUS + 1];
      gb_gaussian_weights (sigma, radius, weights);
      if (gpu)
        CHECK_GB (gb_cuda_set_weights (cuda, weights, radius, &error_));

      for (GbAlgorithm algorithm : algorithms) {
        if (only_algorithm && strcmp (only_algorithm,
                gb_algorithm_name (algorithm)))
          continue;
        GbAlgorithm kernel = algorithm == GB_ALGORITHM_AUTO
            ? gb_cuda_auto_algorithm (radius) : algorithm;
        printf ("| %-6s | %4dx%-4d | %5g | %6d | %-9s |", c.format, c.width,
            c.height, sigma, radius, gb_algorithm_name (algorithm));
        if (gpu) {
          double us = time_launches (stream,[&](int i) {
                size_t k = i % frames->count ();
                GbImage in = { {frames->input[k]}, {frames->pitch} };
                GbImage out = { {frames->output[k]}, {frames->pitch} };
                CHECK_GB (gb_cuda_enqueue (cuda, &in, &out, kernel,
                        GB_BORDER_CLAMP, &error_));
              });
          printf (" %8.1f | %7.1f | %6.2f | %5.0f |", us, copy_us,
              us / copy_us, 2.0 * row * c.height / (us * 1e3));
        } else {
          printf (" %8s | %7s | %6s | %5s |", "-", "-", "-", "-");
        }
        fflush (stdout);
        print_cpu_cell (c, kernel, sigma, with_cpu
            && algorithm != GB_ALGORITHM_AUTO);
      }
    }
    delete frames;
  }
  gb_cuda_destroy (cuda);
  return 0;
}

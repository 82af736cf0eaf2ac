/* cudagaussblur core: the handle, parameter handling and the kernel weights.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "gaussblur.h"
#include "cpu_backend.h"
#include "cuda_backend.h"
#include "filter.h"
#include "superposition.h"
#include "sigma_map.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ceil (3.5 * 3.5): the CPU's separable/recursive crossover, sigma 3.5. */
#define GB_CPU_AUTO_SEPARABLE_MAX_RADIUS 13
/* Largest unsharp-mask amount: beyond it every edge clips. */
#define GB_MAX_SHARPEN 20.0

struct GbBlur
{
  GbBackend backend;
  GbCpu *cpu;                   /* exactly one of cpu / cuda is set */
  GbCuda *cuda;
  GbGeometry geometry;          /* n_planes 0: a geometry change failed */
  GbParams params;
  GbPlaneFilter filters[GB_MAX_PLANES]; /* params resolved per plane */
  int weights_stale;            /* the last upload failed: retry, refuse frames */
  /* The superposition's sigma map (gb_blur_set_sigma_map), plane 0's size,
   * stride = its width; or, without one, a uniform map of sigma_x made when
   * a superposition algorithm first needs it. */
  float *sigma_map;
  size_t sigma_map_floats;      /* allocated */
  int sigma_map_set;            /* the caller's map */
  int sigma_map_uniform;        /* filled with uniform_sigma */
  double uniform_sigma;
  double sigma_map_max;         /* its largest value */
  /* gb_blur_set_sigma_regions: the regions the map was made of (n_regions
   * -1: the map is not a regions map). */
  GbSigmaRegion *regions;
  int n_regions;
  int regions_capacity;
  double feather;
  /* gb_blur_set_frames_in_flight; on the CPU, the frames submitted and
   * completed (written by one thread each, atomics: gb_blur_complete may
   * run on another thread). */
  int frames_in_flight;
  unsigned cpu_submitted;
  unsigned cpu_completed;
};

GbStatus
gb_error_set (GbError * error, GbStatus status, const char *format, ...)
{
  if (error) {
    va_list args;
    error->status = status;
    va_start (args, format);
    vsnprintf (error->message, sizeof error->message, format, args);
    va_end (args);
  }
  return status;
}

const char *
gb_status_name (GbStatus status)
{
  switch (status) {
    case GB_OK:
      return "ok";
    case GB_ERROR_INVALID_ARGUMENT:
      return "invalid argument";
    case GB_ERROR_UNSUPPORTED:
      return "unsupported";
    case GB_ERROR_NO_DEVICE:
      return "no CUDA device";
    case GB_ERROR_OUT_OF_MEMORY:
      return "out of memory";
    case GB_ERROR_CUDA:
      return "CUDA error";
  }
  return "unknown status";
}

const char *
gb_algorithm_name (GbAlgorithm algorithm)
{
  switch (algorithm) {
    case GB_ALGORITHM_AUTO:
      return "auto";
    case GB_ALGORITHM_NAIVE:
      return "naive";
    case GB_ALGORITHM_SHARED:
      return "shared";
    case GB_ALGORITHM_SEPARABLE:
      return "separable";
    case GB_ALGORITHM_FUSED:
      return "fused";
    case GB_ALGORITHM_RECURSIVE:
      return "recursive";
    case GB_ALGORITHM_MULTISCALE:
      return "multiscale";
    case GB_ALGORITHM_EDGE_AWARE:
      return "edge-aware";
    case GB_ALGORITHM_SUPERPOSITION_GATHER:
      return "superposition-gather";
    case GB_ALGORITHM_SUPERPOSITION_SCATTER:
      return "superposition-scatter";
  }
  return "unknown";
}

const char *
gb_border_name (GbBorder border)
{
  switch (border) {
    case GB_BORDER_CLAMP:
      return "clamp";
    case GB_BORDER_MIRROR:
      return "mirror";
    case GB_BORDER_ZERO:
      return "zero";
  }
  return "unknown";
}

void
gb_params_init (GbParams * params, double sigma)
{
  memset (params, 0, sizeof *params);
  params->sigma_x = sigma;
  params->sigma_y = sigma;
  params->algorithm = GB_ALGORITHM_AUTO;
  params->border = GB_BORDER_CLAMP;
  params->sigma_range = GB_DEFAULT_SIGMA_RANGE;
  params->iterations = GB_DEFAULT_ITERATIONS;
  params->kappa = GB_DEFAULT_KAPPA;
  params->normalize = 1;
}

GbParams
gb_params_make (double sigma, int radius, GbAlgorithm algorithm,
    GbBorder border)
{
  GbParams params;

  gb_params_init (&params, sigma);
  params.radius = radius;
  params.algorithm = algorithm;
  params.border = border;
  return params;
}

int
gb_auto_radius (double sigma)
{
  int radius;

  if (!(sigma > 0.0))
    return 0;
  radius = (int) ceil (3.5 * sigma);
  if (radius < 1)
    radius = 1;
  return radius > GB_MAX_RADIUS ? GB_MAX_RADIUS : radius;
}

int
gb_axis_radius (const GbParams * params, double sigma, int subsampling)
{
  if (!(sigma > 0.0))
    return 0;
  if (params->radius > 0)
    return (params->radius + subsampling - 1) / subsampling;
  return gb_auto_radius (sigma);
}

int
gb_effective_radius (const GbParams * params)
{
  return gb_axis_radius (params, params->sigma_x > params->sigma_y
      ? params->sigma_x : params->sigma_y, 1);
}

void
gb_gaussian_weights (double sigma, int radius, float *weights)
{
  /* Sum in double and normalise once, so the float taps sum to 1 within
   * float rounding whatever the radius. */
  double taps[2 * GB_MAX_RADIUS + 1];
  double sum = 0.0;
  int k;

  if (!(sigma > 0.0)) {         /* an axis that is not filtered */
    for (k = 0; k <= 2 * radius; k++)
      weights[k] = k == radius ? 1.0f : 0.0f;
    return;
  }
  for (k = -radius; k <= radius; k++) {
    /* (k / sigma)^2 rather than k^2 / sigma^2: for a tiny sigma the latter
     * divides by an underflowed 0 and the centre tap becomes NaN; this
     * form gives the identity kernel, the limit of the Gaussian. */
    double u = k / sigma;
    double t = exp (-0.5 * u * u);
    taps[k + radius] = t;
    sum += t;
  }
  for (k = 0; k <= 2 * radius; k++)
    weights[k] = (float) (taps[k] / sum);
}

GbStatus
gb_geometry_validate (const GbGeometry * geometry, GbError * error)
{
  int p;

  if (!geometry)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT, "no geometry");
  if (geometry->n_planes < 1 || geometry->n_planes > GB_MAX_PLANES)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "%d planes (1 to %d supported)", geometry->n_planes, GB_MAX_PLANES);
  if (geometry->bytes_per_sample != 1 && geometry->bytes_per_sample != 2)
    return gb_error_set (error, GB_ERROR_UNSUPPORTED,
        "%d bytes per sample (8-bit and 16-bit samples are supported)",
        geometry->bytes_per_sample);
  for (p = 0; p < geometry->n_planes; p++) {
    const GbPlaneGeometry *plane = &geometry->planes[p];
    if (plane->width < 1 || plane->height < 1
        || plane->width > GB_MAX_DIMENSION || plane->height > GB_MAX_DIMENSION)
      return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
          "plane %d is %dx%d (1 to %d pixels each way supported)", p,
          plane->width, plane->height, GB_MAX_DIMENSION);
    if (plane->channels < 1 || plane->channels > GB_MAX_CHANNELS)
      return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
          "plane %d has %d channels (1 to %d supported)", p, plane->channels,
          GB_MAX_CHANNELS);
    if (plane->alpha_mask >> plane->channels)
      return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
          "plane %d: alpha mask 0x%x names channels its %d lack", p,
          plane->alpha_mask, plane->channels);
    if (plane->subsampling_x < 0 || plane->subsampling_x > 4
        || plane->subsampling_x == 3 || plane->subsampling_y < 0
        || plane->subsampling_y > 4 || plane->subsampling_y == 3)
      return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
          "plane %d has subsampling %dx%d (1, 2 or 4 supported)", p,
          plane->subsampling_x, plane->subsampling_y);
  }
  return GB_OK;
}

GbStatus
gb_params_validate (const GbParams * params, GbError * error)
{
  if (!params)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT, "no parameters");
  if (!(params->sigma_x >= 0.0) || params->sigma_x > GB_MAX_SIGMA
      || !(params->sigma_y >= 0.0) || params->sigma_y > GB_MAX_SIGMA)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "sigma %g x %g is outside [0, %g]", params->sigma_x,
        params->sigma_y, GB_MAX_SIGMA);
  if (!(params->sigma_x > 0.0) && !(params->sigma_y > 0.0))
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "sigma is 0 on both axes (nothing to blur)");
  if (!(params->sharpen >= 0.0) || params->sharpen > GB_MAX_SHARPEN)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "sharpen amount %g is outside [0, %g]", params->sharpen,
        GB_MAX_SHARPEN);
  if (params->region.x < 0 || params->region.y < 0
      || params->region.width < 0 || params->region.height < 0)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "region %d,%d %dx%d has a negative coordinate or size",
        params->region.x, params->region.y, params->region.width,
        params->region.height);
  if (params->radius < 0 || params->radius > GB_MAX_RADIUS)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "radius %d is outside [0, %d]", params->radius, GB_MAX_RADIUS);
  if (params->algorithm < GB_ALGORITHM_AUTO
      || params->algorithm > GB_ALGORITHM_LAST)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "unknown algorithm %d", (int) params->algorithm);
  if (params->border < GB_BORDER_CLAMP || params->border > GB_BORDER_ZERO)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "unknown border %d", (int) params->border);
  if (GB_ALGORITHM_IS_SUPERPOSITION (params->algorithm)
      && params->radius > GB_SUPERPOSITION_MAX_RADIUS)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "radius %d is above the superposition's largest, %d",
        params->radius, GB_SUPERPOSITION_MAX_RADIUS);
  if (!(params->sigma_range > 0.0))
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "range sigma %g is not positive", params->sigma_range);
  if (params->iterations < 1 || params->iterations > GB_MAX_ITERATIONS)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "%d iterations (1 to %d supported)", params->iterations,
        GB_MAX_ITERATIONS);
  if (!(params->kappa >= 0.0) || params->kappa > GB_MAX_KAPPA)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "kappa %g is outside [0, %g]", params->kappa, GB_MAX_KAPPA);
  return GB_OK;
}

GbStatus
gb_image_validate (const GbGeometry * geometry, const GbImage * image,
    const char *which, GbError * error)
{
  int p;

  if (!image)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT, "no %s image",
        which);
  for (p = 0; p < geometry->n_planes; p++) {
    const GbPlaneGeometry *plane = &geometry->planes[p];
    size_t row_bytes = (size_t) plane->width * plane->channels
        * geometry->bytes_per_sample;
    if (!image->data[p])
      return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
          "%s plane %d has no data", which, p);
    if (geometry->bytes_per_sample == 2
        && (((uintptr_t) image->data[p] | image->stride[p]) & 1))
      return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
          "%s plane %d: 16-bit samples need 2-byte aligned rows (data %p, "
          "stride %zu)", which, p, image->data[p], image->stride[p]);
    if (image->stride[p] < row_bytes)
      return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
          "%s plane %d stride %zu is less than its row of %zu bytes", which,
          p, image->stride[p], row_bytes);
  }
  return GB_OK;
}

GbStatus
gb_plane_image_validate (const GbPlaneGeometry * plane, int bytes_per_sample,
    GbBorder border, const void *data, size_t stride, const char *which,
    GbError * error)
{
  GbGeometry geometry = {.n_planes = 1,.bytes_per_sample = bytes_per_sample };
  GbImage image = { {0}, {0} };
  GbStatus status;

  if (!plane)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT, "no plane");
  geometry.planes[0] = *plane;
  geometry.planes[0].subsampling_x = geometry.planes[0].subsampling_y = 1;
  status = gb_geometry_validate (&geometry, error);
  if (status != GB_OK)
    return status;
  if (border < GB_BORDER_CLAMP || border > GB_BORDER_ZERO)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "unknown border %d", (int) border);
  image.data[0] = (void *) data;
  image.stride[0] = stride;
  return gb_image_validate (&geometry, &image, which, error);
}

static void
sigma_map_free (GbBlur * blur)
{
  if (blur->cuda)
    gb_cuda_host_free (blur->sigma_map);
  else
    free (blur->sigma_map);
  blur->sigma_map = NULL;
  blur->sigma_map_floats = 0;
}

/* 1 when the frames go through a superposition algorithm. */
static int
uses_superposition (const GbBlur * blur)
{
  return GB_ALGORITHM_IS_SUPERPOSITION (blur->params.algorithm)
      || (blur->params.algorithm == GB_ALGORITHM_AUTO && blur->sigma_map_set);
}

/* rmax: the parameters' radius, or ceil(3 x the largest sigma), within
 * 1 .. GB_SUPERPOSITION_MAX_RADIUS. */
static int
superposition_rmax (const GbBlur * blur)
{
  const double largest = blur->sigma_map_set ? blur->sigma_map_max
      : blur->params.sigma_x;
  double rmax;

  if (blur->params.radius > 0)
    return blur->params.radius < GB_SUPERPOSITION_MAX_RADIUS
        ? blur->params.radius : GB_SUPERPOSITION_MAX_RADIUS;
  rmax = ceil (GB_SUPERPOSITION_CUTOFF * largest);
  return rmax < 1 ? 1 : rmax > GB_SUPERPOSITION_MAX_RADIUS
      ? GB_SUPERPOSITION_MAX_RADIUS : (int) rmax;
}

/* Makes the handle's map buffer hold `floats` values: page-locked with the
 * CUDA backend, so that the upload runs at the bus's speed (1080p: 154 us
 * against 774 us from pageable memory on the H100, docs/performance.md).
 * Sets *reallocated when it made a new one. */
static GbStatus
sigma_map_reserve (GbBlur * blur, size_t floats, int *reallocated,
    GbError * error)
{
  *reallocated = 0;
  if (blur->sigma_map_floats >= floats)
    return GB_OK;
  *reallocated = 1;
  sigma_map_free (blur);
  if (blur->cuda) {
    void *memory = NULL;
    GbStatus status = gb_cuda_synchronize (blur->cuda, error);
    if (status == GB_OK)
      status = gb_cuda_host_alloc (floats * sizeof (float), &memory, error);
    if (status != GB_OK)
      return status;
    blur->sigma_map = memory;
  } else {
    blur->sigma_map = malloc (floats * sizeof (float));
    if (!blur->sigma_map)
      return gb_error_set (error, GB_ERROR_OUT_OF_MEMORY,
          "no memory for a sigma map of %zu values", floats);
  }
  blur->sigma_map_floats = floats;
  return GB_OK;
}

/* The same, and safe to write: as an upload from page-locked memory is
 * asynchronous, the stream is waited for before the buffer is written
 * again. */
static GbStatus
sigma_map_prepare_write (GbBlur * blur, size_t floats, GbError * error)
{
  int reallocated;
  GbStatus status = sigma_map_reserve (blur, floats, &reallocated, error);

  if (status == GB_OK && blur->cuda && !reallocated)
    status = gb_cuda_synchronize (blur->cuda, error);
  return status;
}

/* The map a superposition reads: the caller's, or a uniform one of
 * sigma_x (made here, once per sigma). */
static GbStatus
ensure_sigma_map (GbBlur * blur, GbError * error)
{
  const GbPlaneGeometry *frame = &blur->geometry.planes[0];
  const size_t floats = (size_t) frame->width * frame->height;
  GbStatus status;
  size_t i;

  if (blur->sigma_map_set || (blur->sigma_map_uniform
          && blur->uniform_sigma == blur->params.sigma_x))
    return GB_OK;
  status = sigma_map_prepare_write (blur, floats, error);
  if (status != GB_OK)
    return status;
  for (i = 0; i < floats; i++)
    blur->sigma_map[i] = (float) blur->params.sigma_x;
  blur->sigma_map_uniform = 1;
  blur->uniform_sigma = blur->params.sigma_x;
  blur->sigma_map_max = (float) blur->params.sigma_x;
  return blur->cuda ? gb_cuda_set_sigma_map (blur->cuda, blur->sigma_map,
      frame->width, error) : GB_OK;
}

/* GbSigmaMapFill of a regions map: the backend needs the map after all (a
 * plane where the regions' plan does not apply, or the scatter). An upload
 * of the last map may still be reading the buffer. */
static GbStatus
fill_regions_map (void *data, GbError * error)
{
  GbBlur *blur = data;
  const GbPlaneGeometry *frame = &blur->geometry.planes[0];
  GbStatus status = gb_cuda_synchronize (blur->cuda, error);

  if (status == GB_OK)
    gb_sigma_map_regions (blur->sigma_map, frame->width, frame->height,
        frame->width, blur->regions, blur->n_regions, blur->feather);
  return status;
}

/* The caller's map to the CUDA backend: as a regions map where it is one,
 * written only if the backend asks for it. */
static GbStatus
send_sigma_map (GbBlur * blur, int stride, GbError * error)
{
  if (blur->n_regions >= 0)
    return gb_cuda_set_sigma_regions (blur->cuda, blur->sigma_map, stride,
        blur->regions, blur->n_regions, blur->feather, fill_regions_map,
        blur, error);
  return gb_cuda_set_sigma_map (blur->cuda, blur->sigma_map, stride, error);
}

/* Resolves the parameters for every plane and hands them to the backend. */
static GbStatus
upload_filters (GbBlur * blur, const GbGeometry * geometry, GbError * error)
{
  GbStatus status = GB_OK;

  gb_plane_filters_resolve (&blur->params, geometry, blur->filters);
  if (uses_superposition (blur))
    gb_plane_filters_set_superposition (geometry, superposition_rmax (blur),
        blur->sigma_map, geometry->planes[0].width, blur->filters);
  if (blur->cuda)
    status = gb_cuda_set_filters (blur->cuda, blur->filters, error);
  blur->weights_stale = status != GB_OK;
  return status;
}

GbStatus
gb_blur_create (GbBackend backend, int device_id, const GbGeometry * geometry,
    GbBlur ** out, GbError * error)
{
  GbBlur *blur;
  GbStatus status;

  if (!out)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT, "no handle pointer");
  *out = NULL;
  status = gb_geometry_validate (geometry, error);
  if (status != GB_OK)
    return status;
  if (backend != GB_BACKEND_CPU && backend != GB_BACKEND_CUDA)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "unknown backend %d", (int) backend);

  blur = calloc (1, sizeof *blur);
  if (!blur)
    return gb_error_set (error, GB_ERROR_OUT_OF_MEMORY,
        "cannot allocate the blur handle");
  blur->backend = backend;
  blur->frames_in_flight = 1;
  blur->n_regions = -1;
  gb_params_init (&blur->params, 1.0);

  if (backend == GB_BACKEND_CUDA) {
    status = gb_cuda_create (device_id, &blur->cuda, error);
    if (status == GB_OK)
      status = gb_cuda_configure (blur->cuda, geometry, error);
  } else {
    status = gb_cpu_create (&blur->cpu, error);
    if (status == GB_OK)
      status = gb_cpu_configure (blur->cpu, geometry, error);
  }
  if (status == GB_OK)
    status = upload_filters (blur, geometry, error);
  if (status != GB_OK) {
    gb_blur_destroy (blur);
    return status;
  }
  blur->geometry = *geometry;
  *out = blur;
  return GB_OK;
}

static int
geometry_equal (const GbGeometry * a, const GbGeometry * b)
{
  int p;

  if (a->n_planes != b->n_planes || a->bytes_per_sample != b->bytes_per_sample)
    return 0;
  for (p = 0; p < a->n_planes; p++)
    if (a->planes[p].width != b->planes[p].width
        || a->planes[p].height != b->planes[p].height
        || a->planes[p].channels != b->planes[p].channels
        || a->planes[p].subsampling_x != b->planes[p].subsampling_x
        || a->planes[p].subsampling_y != b->planes[p].subsampling_y
        || a->planes[p].alpha_mask != b->planes[p].alpha_mask)
      return 0;
  return 1;
}

GbStatus
gb_blur_set_geometry (GbBlur * blur, const GbGeometry * geometry,
    GbError * error)
{
  GbStatus status;

  if (!blur)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT, "no handle");
  status = gb_geometry_validate (geometry, error);
  if (status != GB_OK || geometry_equal (&blur->geometry, geometry))
    return status;
  /* A map is for one frame size. */
  if (geometry->planes[0].width != blur->geometry.planes[0].width
      || geometry->planes[0].height != blur->geometry.planes[0].height) {
    blur->sigma_map_set = blur->sigma_map_uniform = 0;
    blur->n_regions = -1;
  }
  /* (abandons the frames in flight) */
  blur->cpu_completed = blur->cpu_submitted;
  status = blur->cuda ? gb_cuda_configure (blur->cuda, geometry, error)
      : gb_cpu_configure (blur->cpu, geometry, error);
  /* The backend dropped its device copy of the map with its buffers. */
  blur->sigma_map_uniform = 0;
  if (status == GB_OK && blur->sigma_map_set && blur->cuda)
    status = send_sigma_map (blur, geometry->planes[0].width, error);
  if (status == GB_OK)          /* the filters follow the planes' sizes */
    status = upload_filters (blur, geometry, error);
  if (status == GB_OK)
    blur->geometry = *geometry;
  else    /* the backend dropped its buffers: no geometry matches any more */
    memset (&blur->geometry, 0, sizeof blur->geometry);
  return status;
}

GbStatus
gb_blur_set_params (GbBlur * blur, const GbParams * params, GbError * error)
{
  GbStatus status;
  int filters_change;

  if (!blur)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT, "no handle");
  status = gb_params_validate (params, error);
  if (status != GB_OK)
    return status;
  /* Every parameter that the filters hold: the border too, which shapes
   * the multi-scale plan's margins (multiscale.c). */
  filters_change = params->sigma_x != blur->params.sigma_x
      || params->sigma_y != blur->params.sigma_y
      || params->algorithm != blur->params.algorithm
      || params->border != blur->params.border
      || params->radius != blur->params.radius
      || params->sharpen != blur->params.sharpen
      || params->sigma_range != blur->params.sigma_range
      || params->iterations != blur->params.iterations
      || params->kappa != blur->params.kappa
      || params->normalize != blur->params.normalize
      || memcmp (&params->region, &blur->params.region,
      sizeof params->region) != 0 || blur->weights_stale;
  blur->params = *params;
  return filters_change ? upload_filters (blur, &blur->geometry, error)
      : GB_OK;
}

GbAlgorithm
gb_blur_get_effective_algorithm (const GbBlur * blur)
{
  const GbPlaneFilter *filter;
  size_t most = 0;
  int p, largest = 0;

  if (blur->params.algorithm != GB_ALGORITHM_AUTO)
    return blur->params.algorithm;
  if (blur->sigma_map_set)
    return blur->cuda ? gb_cuda_auto_superposition (blur->cuda,
        &blur->filters[0], &blur->geometry.planes[0],
        blur->geometry.bytes_per_sample)
        : GB_ALGORITHM_SUPERPOSITION_SCATTER;
  /* The plane that costs the most decides for all (luma, for YUV). */
  for (p = 0; p < blur->geometry.n_planes; p++) {
    const GbPlaneGeometry *plane = &blur->geometry.planes[p];
    const size_t samples = (size_t) plane->width * plane->height
        * plane->channels;
    if (samples > most) {
      most = samples;
      largest = p;
    }
  }
  filter = &blur->filters[largest];
  if (blur->cuda)     /* measured on the GPU (docs/performance.md) */
    return gb_cuda_auto_algorithm (blur->cuda, filter, &blur->geometry,
        largest);
  /* On the CPU the separable passes beat both 2D convolutions at every
   * radius, and the recursive filter beats them from about sigma 3.5
   * (1080p RGBA on 16 threads: 3.2 ms against 4.2 ms at sigma 5;
   * docs/algorithms.md, section 7). */
  return filter->x.radius > GB_CPU_AUTO_SEPARABLE_MAX_RADIUS
      || filter->y.radius > GB_CPU_AUTO_SEPARABLE_MAX_RADIUS
      ? GB_ALGORITHM_RECURSIVE : GB_ALGORITHM_SEPARABLE;
}

/* What every frame needs before its planes are blurred: a valid handle and
 * images, and for the superposition its map and kernels; the algorithm to
 * run into *algorithm. */
static GbStatus
prepare_frame (GbBlur * blur, const GbImage * src, const GbImage * dst,
    GbAlgorithm * algorithm, GbError * error)
{
  GbStatus status;

  if (!blur)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT, "no handle");
  /* Never a silent no-op: a handle whose last geometry change or weight
   * upload failed has nothing valid to blur with. */
  if (blur->geometry.n_planes == 0)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "no frame buffers: the last geometry change failed");
  if (blur->weights_stale)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "no kernel weights: their last upload failed");
  status = gb_image_validate (&blur->geometry, src, "source", error);
  if (status == GB_OK)
    status = gb_image_validate (&blur->geometry, dst, "destination", error);
  if (status != GB_OK)
    return status;

  *algorithm = gb_blur_get_effective_algorithm (blur);
  if (GB_ALGORITHM_IS_SUPERPOSITION (*algorithm)) {
    if (!blur->sigma_map_set && blur->params.sigma_y != blur->params.sigma_x)
      return gb_error_set (error, GB_ERROR_UNSUPPORTED,
          "the superposition blurs each pixel alike on both axes: sigma "
          "%g x %g needs a sigma map or sigma-x = sigma-y",
          blur->params.sigma_x, blur->params.sigma_y);
    status = ensure_sigma_map (blur, error);
    if (status == GB_OK && (!blur->filters[0].rmax
            || blur->filters[0].sigma_map != blur->sigma_map))
      status = upload_filters (blur, &blur->geometry, error);
  }
  return status;
}

GbStatus
gb_blur_process (GbBlur * blur, const GbImage * src, const GbImage * dst,
    GbError * error)
{
  GbAlgorithm algorithm = GB_ALGORITHM_AUTO;
  GbStatus status;

  if (blur && gb_blur_get_frames_in_flight (blur) != 0)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "frames are in flight: complete them first");
  status = prepare_frame (blur, src, dst, &algorithm, error);
  if (status != GB_OK)
    return status;
  if (blur->cuda)
    return gb_cuda_process_host (blur->cuda, src, dst, algorithm,
        blur->params.border, error);
  return gb_cpu_process (blur->cpu, src, dst, blur->filters, algorithm,
      blur->params.border, error);
}

int
gb_blur_get_frames_in_flight (const GbBlur * blur)
{
  if (blur->cuda)
    return (int) gb_cuda_frames_in_flight (blur->cuda);
  return (int) (__atomic_load_n (&blur->cpu_submitted, __ATOMIC_ACQUIRE)
      - __atomic_load_n (&blur->cpu_completed, __ATOMIC_ACQUIRE));
}

GbStatus
gb_blur_set_frames_in_flight (GbBlur * blur, int frames, GbError * error)
{
  GbStatus status = GB_OK;

  if (!blur)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT, "no handle");
  if (frames < 1 || frames > GB_MAX_FRAMES_IN_FLIGHT)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "frames in flight %d is not within 1 .. %d", frames,
        GB_MAX_FRAMES_IN_FLIGHT);
  if (gb_blur_get_frames_in_flight (blur) != 0)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "frames are in flight: complete them first");
  if (blur->cuda)
    status = gb_cuda_set_frames_in_flight (blur->cuda, frames, error);
  if (status == GB_OK)
    blur->frames_in_flight = frames;
  return status;
}

GbStatus
gb_blur_submit (GbBlur * blur, const GbImage * src, const GbImage * dst,
    GbError * error)
{
  GbAlgorithm algorithm = GB_ALGORITHM_AUTO;
  GbStatus status = prepare_frame (blur, src, dst, &algorithm, error);

  if (status != GB_OK)
    return status;
  if (blur->cuda)
    return gb_cuda_submit_host (blur->cuda, src, dst, algorithm,
        blur->params.border, error);
  if (gb_blur_get_frames_in_flight (blur) >= blur->frames_in_flight)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "%d frame%s already in flight: complete one first",
        blur->frames_in_flight, blur->frames_in_flight == 1 ? "" : "s");
  status = gb_cpu_process (blur->cpu, src, dst, blur->filters, algorithm,
      blur->params.border, error);
  if (status == GB_OK)
    __atomic_store_n (&blur->cpu_submitted, blur->cpu_submitted + 1,
        __ATOMIC_RELEASE);
  return status;
}

GbStatus
gb_blur_complete (GbBlur * blur, GbError * error)
{
  if (!blur)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT, "no handle");
  if (blur->cuda)
    return gb_cuda_complete_host (blur->cuda, error);
  if (gb_blur_get_frames_in_flight (blur) == 0)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "no frame in flight");
  __atomic_store_n (&blur->cpu_completed, blur->cpu_completed + 1,
      __ATOMIC_RELEASE);
  return GB_OK;
}

GbStatus
gb_blur_process_device (GbBlur * blur, const GbImage * src,
    const GbImage * dst, GbError * error)
{
  GbAlgorithm algorithm = GB_ALGORITHM_AUTO;
  GbStatus status;

  if (blur && !blur->cuda)
    return gb_error_set (error, GB_ERROR_UNSUPPORTED,
        "frames in device memory need the CUDA backend");
  status = prepare_frame (blur, src, dst, &algorithm, error);
  if (status != GB_OK)
    return status;
  status = gb_cuda_enqueue (blur->cuda, src, dst, algorithm,
      blur->params.border, error);
  if (status != GB_OK) {
    /* planes already launched must not write dst once the caller has it */
    gb_cuda_wait (blur->cuda, NULL);
    return status;
  }
  return gb_cuda_wait_short (blur->cuda, error);
}

GbStatus
gb_host_alloc (size_t bytes, void **memory, GbError * error)
{
  if (!memory)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "no memory pointer");
  return gb_cuda_host_alloc (bytes, memory, error);
}

void
gb_host_free (void *memory)
{
  gb_cuda_host_free (memory);
}

GbBackend
gb_blur_get_backend (const GbBlur * blur)
{
  return blur->backend;
}

unsigned
gb_blur_get_allocation_count (const GbBlur * blur)
{
  return blur->cuda ? gb_cuda_allocation_count (blur->cuda)
      : gb_cpu_allocation_count (blur->cpu);
}

void
gb_blur_destroy (GbBlur * blur)
{
  if (!blur)
    return;
  sigma_map_free (blur);
  free (blur->regions);
  if (blur->cuda)
    gb_cuda_destroy (blur->cuda);
  if (blur->cpu)
    gb_cpu_destroy (blur->cpu);
  free (blur);
}

GbStatus
gb_blur_set_sigma_regions (GbBlur * blur, const GbSigmaRegion * regions,
    int n_regions, double feather, GbError * error)
{
  const GbPlaneGeometry *frame;
  const int was_set = blur ? blur->sigma_map_set : 0;
  const double old_rmax_source = blur ? blur->sigma_map_max : 0.0;
  GbStatus status;
  double largest;
  int i;

  if (!blur)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT, "no handle");
  if (blur->geometry.n_planes == 0)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "no geometry: the last geometry change failed");
  if (n_regions < 0 || (n_regions > 0 && !regions) || !(feather >= 0.0)
      || isinf (feather))
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "regions: %d of them, feather %g", n_regions, feather);
  for (i = 0; i < n_regions; i++)
    if (!(regions[i].sigma >= 0.0) || isinf (regions[i].sigma))
      return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
          "region %d: sigma %g is not a finite number >= 0", i,
          regions[i].sigma);
  /* The same regions as the last call: the same map. */
  if (was_set && blur->n_regions == n_regions && blur->feather == feather
      && (n_regions == 0 || memcmp (blur->regions, regions,
              sizeof *regions * n_regions) == 0))
    return GB_OK;
  if (n_regions > blur->regions_capacity) {
    GbSigmaRegion *grown = realloc (blur->regions,
        sizeof *regions * n_regions);
    if (!grown)
      return gb_error_set (error, GB_ERROR_OUT_OF_MEMORY,
          "no memory for %d regions", n_regions);
    blur->regions = grown;
    blur->regions_capacity = n_regions;
  }
  frame = &blur->geometry.planes[0];
  if (blur->cuda) {
    /* The map is written only if the backend needs it (fill_regions_map):
     * where every plane's plan applies, a frame's regions cost no map and
     * no wait for the stream. */
    int reallocated;
    status = sigma_map_reserve (blur, (size_t) frame->width * frame->height,
        &reallocated, error);
    largest = gb_sigma_regions_largest (frame->width, frame->height,
        regions, n_regions, feather);
  } else {
    status = sigma_map_prepare_write (blur, (size_t) frame->width
        * frame->height, error);
    largest = gb_sigma_map_regions (blur->sigma_map, frame->width,
        frame->height, frame->width, regions, n_regions, feather);
  }
  if (status != GB_OK)
    return status;
  if (n_regions > 0)
    memcpy (blur->regions, regions, sizeof *regions * n_regions);
  blur->n_regions = n_regions;
  blur->feather = feather;
  blur->sigma_map_set = 1;
  blur->sigma_map_uniform = 0;
  blur->sigma_map_max = largest;
  if (blur->cuda) {
    status = send_sigma_map (blur, frame->width, error);
    if (status != GB_OK) {
      blur->sigma_map_set = 0;
      blur->n_regions = -1;
      return status;
    }
  }
  if (!was_set || largest != old_rmax_source || !blur->filters[0].rmax
      || blur->filters[0].sigma_map != blur->sigma_map)
    return upload_filters (blur, &blur->geometry, error);
  return GB_OK;
}

GbStatus
gb_blur_set_sigma_map (GbBlur * blur, const float *map, size_t stride,
    GbError * error)
{
  const GbPlaneGeometry *frame;
  const int was_set = blur ? blur->sigma_map_set : 0;
  const double old_rmax_source = blur ? blur->sigma_map_max : 0.0;
  GbStatus status;
  size_t floats;
  double largest = 0.0;
  int x, y, same;

  if (!blur)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT, "no handle");
  if (blur->geometry.n_planes == 0)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "no geometry: the last geometry change failed");
  if (!map) {
    blur->sigma_map_set = blur->sigma_map_uniform = 0;
    blur->n_regions = -1;
    return was_set ? upload_filters (blur, &blur->geometry, error) : GB_OK;
  }
  frame = &blur->geometry.planes[0];
  if (stride < (size_t) frame->width)
    return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
        "sigma map stride %zu is below the frame's width %d", stride,
        frame->width);
  same = was_set && blur->n_regions < 0;
  for (y = 0; y < frame->height; y++) {
    const float *row = map + (size_t) y * stride;
    for (x = 0; x < frame->width; x++) {
      if (!(row[x] >= 0.0f) || isinf (row[x]))
        return gb_error_set (error, GB_ERROR_INVALID_ARGUMENT,
            "sigma %g at (%d, %d) is not a finite number >= 0",
            (double) row[x], x, y);
      if (row[x] > largest)
        largest = row[x];
    }
    if (same)
      same = memcmp (row, blur->sigma_map + (size_t) y * frame->width,
          (size_t) frame->width * sizeof (float)) == 0;
  }
  if (same)
    return GB_OK;
  floats = (size_t) frame->width * frame->height;
  status = sigma_map_prepare_write (blur, floats, error);
  if (status != GB_OK)
    return status;
  for (y = 0; y < frame->height; y++)
    memcpy (blur->sigma_map + (size_t) y * frame->width,
        map + (size_t) y * stride, (size_t) frame->width * sizeof (float));
  blur->sigma_map_set = 1;
  blur->sigma_map_uniform = 0;
  blur->sigma_map_max = largest;
  blur->n_regions = -1;
  if (blur->cuda) {
    status = gb_cuda_set_sigma_map (blur->cuda, blur->sigma_map,
        frame->width, error);
    if (status != GB_OK) {
      blur->sigma_map_set = 0;
      return status;
    }
  }
  /* A new largest sigma may change rmax, and a first map the windows. */
  if (!was_set || largest != old_rmax_source || !blur->filters[0].rmax
      || blur->filters[0].sigma_map != blur->sigma_map)
    return upload_filters (blur, &blur->geometry, error);
  return GB_OK;
}

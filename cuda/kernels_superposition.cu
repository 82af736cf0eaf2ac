/* Spatially varying blur by kernel superposition (seed 003) on the GPU:
 * gather and scatter, against the CPU reference of superposition.c.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Three kernels per plane, over 32 x 32 tiles of the window:
 *
 * - superposition_prepare turns the sigma map into each pixel's kernel:
 *   per axis its radius, the erf argument scale 1 / (sqrt 2 sigma) and
 *   1 / N (the sum of its kept weights, erf((r + 1/2) scale)), computed in
 *   double as the CPU does, and the largest radius of each tile. It depends
 *   on the map alone, so a map that did not change since the last frame
 *   skips it.
 * - superposition_gather: a thread per output, summing every input pixel
 *   within the reach whose kernel reaches it, each weight evaluated where it
 *   is used (Eq. 4: two erfc per axis), as seed 003's gather does.
 * - superposition_scatter: each input pixel within the reach of the block's
 *   tile computes its x kernel once (r + 1 erfc) and its y weights once per
 *   row, and adds its terms to the tile's sums in shared memory with
 *   shared-memory atomics (seed 003's volatile warp-synchronous adds assume
 *   a lock-step Volta dropped; ERRATA.md). Each block owns its tile: the
 *   terms that fall outside are left to the neighbouring blocks, so no
 *   global atomics and no second pass are needed, at the price of
 *   computing the kernels of the apron's pixels in up to 9 blocks.
 *
 * With GbPlaneFilter.normalize, each also sums the weights that reach an
 * output (one more accumulator) and divides by them at the end.
 *
 * Both bound their loops by the largest radius of the tiles around them
 * (a tile whose neighbourhood has sigma 0 everywhere copies its pixels):
 * a map that blurs a few regions costs little more than a copy outside
 * them. Float sums (the CPU's are double) round to the same sample or one
 * level off.
 */
#include "kernels.h"
#include "superposition.h"

#include <math.h>

namespace {

constexpr int TILE = 32;                /* outputs per tile side */
constexpr int GATHER_ROWS = 8;          /* thread rows of a gather block */
constexpr int SCATTER_THREADS = 192;    /* its kernel tables fit 48 KB */

/* The kernel of one input pixel along one axis (as
 * gb_superposition_axis_kernel, in double). Radius 0: scale infinity, so
 * that the one weight erf(inf) / 1 is 1. */
__device__ void
axis_kernel (double map_sigma, int rmax, int step, int reach, float *scale,
    float *inv_norm, int *radius)
{
  const double largest = rmax / GB_SUPERPOSITION_CUTOFF;
  const double sigma = (map_sigma < largest ? map_sigma : largest) / step;
  double r, s;

  if (!(sigma > 0.0)) {
    *radius = 0;
    *scale = INFINITY;
    *inv_norm = 1.0f;
    return;
  }
  r = ceil (GB_SUPERPOSITION_CUTOFF * sigma);
  *radius = r < reach ? (int) r : reach;
  s = 1.0 / (sqrt (2.0) * (sigma < reach / GB_SUPERPOSITION_CUTOFF
          ? sigma : reach / GB_SUPERPOSITION_CUTOFF));
  *scale = (float) s;
  /* The kept weights telescope: K(0) + 2 sum K(k) = erf((r + 1/2) s). */
  *inv_norm = (float) (1.0 / erf ((*radius + 0.5) * s));
}

/* K(d), d >= 0 within the radius: the Gaussian integrated over the pixel
 * [d - 1/2, d + 1/2] (seed 003, Eq. 4), normalised; erfc, as erf(b) -
 * erf(a) of two values near 1 would cancel. */
__device__ __forceinline__ float
kernel_weight (int d, float scale, float inv_norm)
{
  if (d == 0)
    return erff (0.5f * scale) * inv_norm;
  return 0.5f * (erfcf ((d - 0.5f) * scale) - erfcf ((d + 0.5f) * scale))
      * inv_norm;
}

/* What the prepare kernel leaves for the other two. */
struct Kernels
{
  float4 *params;               /* per window pixel: scale_x, 1/N_x, scale_y, 1/N_y */
  uchar2 *radii;                /* per window pixel: radius_x, radius_y */
  int2 *tile_radius;            /* per tile: the largest of each */
  int tiles_x;
  int tiles_y;
};

__global__ void
superposition_prepare (const float *map, size_t map_stride, int step_x,
    int step_y, int width, int height, int rmax, int reach_x, int reach_y,
    Kernels kernels)
{
  __shared__ int largest_x, largest_y;
  const int x = blockIdx.x * TILE + threadIdx.x;
  int local_x = 0, local_y = 0;

  if (threadIdx.x == 0 && threadIdx.y == 0)
    largest_x = largest_y = 0;
  __syncthreads ();
  if (x < width)
    for (int y = blockIdx.y * TILE + threadIdx.y;
        y < height && y < (int) (blockIdx.y + 1) * TILE; y += GATHER_ROWS) {
      const double sigma = map[(size_t) y * step_y * map_stride
          + (size_t) x * step_x];
      float4 p;
      int rx, ry;
      axis_kernel (sigma, rmax, step_x, reach_x, &p.x, &p.y, &rx);
      axis_kernel (sigma, rmax, step_y, reach_y, &p.z, &p.w, &ry);
      kernels.params[(size_t) y * width + x] = p;
      kernels.radii[(size_t) y * width + x] = make_uchar2 (rx, ry);
      local_x = max (local_x, rx);
      local_y = max (local_y, ry);
    }
  atomicMax (&largest_x, local_x);
  atomicMax (&largest_y, local_y);
  __syncthreads ();
  if (threadIdx.x == 0 && threadIdx.y == 0)
    kernels.tile_radius[blockIdx.y * kernels.tiles_x + blockIdx.x] =
        make_int2 (largest_x, largest_y);
}

/* The largest radii of the pixels that can reach tile (tx, ty): those of
 * the tiles within the reach (one tile each way, as reach <= TILE; indices
 * past the grid are the edge tiles, which hold every pixel a border rule
 * maps there). */
__device__ int2
reach_of_tile (const Kernels & kernels, int tx, int ty)
{
  int2 r = make_int2 (0, 0);
  for (int j = max (ty - 1, 0); j <= min (ty + 1, kernels.tiles_y - 1); j++)
    for (int i = max (tx - 1, 0); i <= min (tx + 1, kernels.tiles_x - 1);
        i++) {
      const int2 t = kernels.tile_radius[j * kernels.tiles_x + i];
      r.x = max (r.x, t.x);
      r.y = max (r.y, t.y);
    }
  return r;
}

/* Where nothing reaches a tile with a sigma above 0: its pixels, copied. */
template < typename Sample, int C > __device__ void
copy_tile (const GbDevicePlane & plane, int x0, int y0, int thread,
    int threads)
{
  const int w = min (TILE, plane.width - x0) * C;
  const int h = min (TILE, plane.height - y0);
  for (int i = thread; i < w * h; i += threads) {
    const int y = y0 + i / w, s = x0 * C + i % w;
    gb_dst_row < Sample > (plane, y)[s] = gb_src_row < Sample > (plane, y)[s];
  }
}

/* Gather, a block per output tile and a thread per column of it (4 rows,
 * GATHER_ROWS apart). Input rows are taken in order, as the CPU sums them:
 * for each, the block first tabulates the kernels of the row's inputs
 * within the reach (each input's x and y weights, zero past its radius, and
 * its samples) in shared memory, once for all the tile's outputs; then
 * every output adds the inputs of that row within its reach, in order. Each
 * weight is then an erfc pair per (block, input, axis) instead of per
 * (output, input): the seed's "compute the kernel once" without its
 * scatter's write conflicts. */
constexpr int GATHER_SPAN = TILE + 2 * GB_SUPERPOSITION_MAX_RADIUS;
constexpr int GATHER_TABLE = GB_SUPERPOSITION_MAX_RADIUS + 1;

template < int C > struct GatherRow
{
  float kx[GATHER_SPAN][GATHER_TABLE];  /* K_x(d), 0 past the radius */
  float ky[GATHER_SPAN][GATHER_TABLE];
  float sample[GATHER_SPAN][C];
};

template < typename Sample, int C > __global__ void
__launch_bounds__ (TILE * GATHER_ROWS)
superposition_gather (GbDevicePlane plane, Kernels kernels, bool normalize,
    GbBorder border)
{
  extern __shared__ float4 gather_shared[];
  GatherRow < C > &table = *reinterpret_cast < GatherRow < C > *>(gather_shared);
  constexpr int OUTPUTS = TILE / GATHER_ROWS;
  const int x0 = blockIdx.x * TILE, y0 = blockIdx.y * TILE;
  const int2 reach = reach_of_tile (kernels, blockIdx.x, blockIdx.y);
  const int thread = threadIdx.y * TILE + threadIdx.x;
  const int x = x0 + threadIdx.x;

  if (reach.x == 0 && reach.y == 0) {
    copy_tile < Sample, C > (plane, x0, y0, thread, TILE * GATHER_ROWS);
    return;
  }
  const int span = TILE + 2 * reach.x;
  float acc[OUTPUTS][C], weight[OUTPUTS];
  for (int k = 0; k < OUTPUTS; k++) {
    weight[k] = 0.0f;
    for (int c = 0; c < C; c++)
      acc[k][c] = 0.0f;
  }

  for (int yy = y0 - reach.y; yy < y0 + TILE + reach.y; yy++) {
    const int sy = gb_border_index (yy, plane.height, border);
    /* The row's kernels: a thread per (input, d), d up to the larger
     * reach (no output reads past it). */
    const int entries = max (reach.x, reach.y) + 1;
    for (int i = thread; i < span * entries; i += TILE * GATHER_ROWS) {
      const int at = i / entries, d = i % entries;
      const int sx = gb_border_index (x0 - reach.x + at, plane.width, border);
      const bool inside = sx >= 0 && sy >= 0;   /* not cut by the zero border */
      float kx = 0.0f, ky = 0.0f;
      if (inside) {
        const size_t p = (size_t) sy * plane.width + sx;
        const uchar2 r = kernels.radii[p];
        const float4 k = kernels.params[p];
        if (d <= r.x)
          kx = kernel_weight (d, k.x, k.y);
        if (d <= r.y)
          ky = kernel_weight (d, k.z, k.w);
      }
      if (d == 0)               /* (entries may be fewer than C) */
        for (int c = 0; c < C; c++)
          table.sample[at][c] = inside
              ? (float) gb_src_row < Sample > (plane, sy)[(size_t) sx * C + c]
              : 0.0f;
      table.kx[at][d] = kx;
      table.ky[at][d] = ky;
    }
    __syncthreads ();
    if (x < plane.width) {
      /* Outputs farther than reach.y from this row take none of it (an
       * index past the table, not its last entry). */
      int dy[OUTPUTS];
      bool near[OUTPUTS];
      for (int k = 0; k < OUTPUTS; k++) {
        dy[k] = abs (y0 + (int) threadIdx.y + k * GATHER_ROWS - yy);
        near[k] = dy[k] <= reach.y;
        dy[k] = min (dy[k], GATHER_TABLE - 1);
      }
      for (int xx = x - reach.x; xx <= x + reach.x; xx++) {
        const int at = xx - (x0 - reach.x);
        const float kx = table.kx[at][abs (x - xx)];
        float sample[C];
        for (int c = 0; c < C; c++)
          sample[c] = table.sample[at][c];
        /* sample (ky kx), not the CPU's (sample ky) kx: one product per
         * term and channel (the float results differ in the last bits). */
        for (int k = 0; k < OUTPUTS; k++) {
          const float w = (near[k] ? table.ky[at][dy[k]] : 0.0f) * kx;
          for (int c = 0; c < C; c++)
            acc[k][c] += sample[c] * w;
          if (normalize)
            weight[k] += w;
        }
      }
    }
    __syncthreads ();
  }
  if (x >= plane.width)
    return;
  for (int k = 0; k < OUTPUTS; k++) {
    const int y = y0 + threadIdx.y + k * GATHER_ROWS;
    if (y >= plane.height)
      break;
    Sample *out = gb_dst_row < Sample > (plane, y) + (size_t) x * C;
    for (int c = 0; c < C; c++)
      out[c] = gb_round_sample < Sample > (normalize ? acc[k][c] / weight[k]
          : acc[k][c]);
  }
}

template < typename Sample, int C > __global__ void
__launch_bounds__ (SCATTER_THREADS)
superposition_scatter (GbDevicePlane plane, Kernels kernels, int reach_x,
    bool normalize, GbBorder border)
{
  __shared__ float sums[TILE * TILE * C];
  __shared__ float weights[TILE * TILE];        /* normalize only */
  extern __shared__ float kernel_x[];   /* (reach_x + 1) per thread */
  const int x0 = blockIdx.x * TILE, y0 = blockIdx.y * TILE;
  const int x1 = min (x0 + TILE, plane.width) - 1;
  const int y1 = min (y0 + TILE, plane.height) - 1;
  const int2 reach = reach_of_tile (kernels, blockIdx.x, blockIdx.y);
  float *my_kernel = kernel_x + threadIdx.x * (reach_x + 1);

  if (reach.x == 0 && reach.y == 0) {
    copy_tile < Sample, C > (plane, x0, y0, threadIdx.x, SCATTER_THREADS);
    return;
  }
  for (int i = threadIdx.x; i < TILE * TILE * C; i += SCATTER_THREADS)
    sums[i] = 0.0f;
  for (int i = threadIdx.x; i < TILE * TILE; i += SCATTER_THREADS)
    weights[i] = 0.0f;
  __syncthreads ();

  /* Every input pixel within the reach of the tile; consecutive threads
   * take consecutive pixels of a row, so that a warp's adds of one (dx, dy)
   * fall on consecutive sums. */
  const int span_x = TILE + 2 * reach.x, span_y = TILE + 2 * reach.y;
  for (int i = threadIdx.x; i < span_x * span_y; i += SCATTER_THREADS) {
    const int xx = x0 - reach.x + i % span_x;
    const int yy = y0 - reach.y + i / span_x;
    const int sx = gb_border_index (xx, plane.width, border);
    const int sy = gb_border_index (yy, plane.height, border);
    if (sx < 0 || sy < 0)
      continue;
    const size_t at = (size_t) sy * plane.width + sx;
    const uchar2 r = kernels.radii[at];
    /* The outputs of this tile it reaches. */
    const int dx0 = max (-(int) r.x, x0 - xx), dx1 = min ((int) r.x, x1 - xx);
    const int dy0 = max (-(int) r.y, y0 - yy), dy1 = min ((int) r.y, y1 - yy);
    if (dx0 > dx1 || dy0 > dy1)
      continue;
    const float4 p = kernels.params[at];
    const Sample *in = gb_src_row < Sample > (plane, sy) + (size_t) sx * C;
    float sample[C];
    for (int c = 0; c < C; c++)
      sample[c] = (float) in[c];
    /* Its x kernel, once. */
    for (int d = 0; d <= max (-dx0, dx1); d++)
      my_kernel[d] = kernel_weight (d, p.x, p.y);
    for (int dy = dy0; dy <= dy1; dy++) {
      const float ky = kernel_weight (abs (dy), p.z, p.w);
      /* The first output it reaches on this row (an index, never a
       * pointer before the array: an input left of the tile would make
       * one, which the compiler may assume does not exist). */
      const int first = (yy + dy - y0) * TILE + (xx + dx0 - x0);
      float scaled[C];
      for (int c = 0; c < C; c++)
        scaled[c] = sample[c] * ky;
      for (int k = 0; k <= dx1 - dx0; k++) {
        const float kx = my_kernel[abs (dx0 + k)];
        for (int c = 0; c < C; c++)
          atomicAdd (&sums[(first + k) * C + c], scaled[c] * kx);
        if (normalize)
          atomicAdd (&weights[first + k], ky * kx);
      }
    }
  }
  __syncthreads ();
  const int w = (x1 - x0 + 1) * C;
  for (int i = threadIdx.x; i < w * (y1 - y0 + 1); i += SCATTER_THREADS) {
    const int y = i / w, s = i % w;
    const float sum = sums[y * TILE * C + s];
    gb_dst_row < Sample > (plane, y0 + y)[x0 * C + s] =
        gb_round_sample < Sample > (normalize
        ? sum / weights[y * TILE + s / C] : sum);
  }
}

template < typename Sample, int C > cudaError_t
launch_method (const GbDevicePlane & plane, const Kernels & kernels,
    GbSuperpositionMethod method, int reach_x, bool normalize,
    GbBorder border, cudaStream_t stream)
{
  const dim3 grid (kernels.tiles_x, kernels.tiles_y);
  if (method == GB_SUPERPOSITION_GATHER) {
    /* (27 KB of tables with 4 channels) */
    superposition_gather < Sample, C > <<<grid, dim3 (TILE, GATHER_ROWS),
        sizeof (GatherRow < C >), stream>>> (plane, kernels, normalize,
        border);
  }
  else
    superposition_scatter < Sample, C > <<<grid, SCATTER_THREADS,
        SCATTER_THREADS * (reach_x + 1) * sizeof (float), stream>>> (plane,
        kernels, reach_x, normalize, border);
  return cudaGetLastError ();
}

Kernels
kernels_in (void *scratch, int width, int height)
{
  const size_t pixels = (size_t) width * height;
  Kernels kernels;
  kernels.params = (float4 *) scratch;
  kernels.radii = (uchar2 *) (kernels.params + pixels);
  /* int2 alignment after 2-byte entries. */
  kernels.tile_radius = (int2 *) (((uintptr_t) (kernels.radii + pixels) + 7)
      & ~(uintptr_t) 7);
  kernels.tiles_x = (width + TILE - 1) / TILE;
  kernels.tiles_y = (height + TILE - 1) / TILE;
  return kernels;
}

}                               /* namespace */

size_t
gb_superposition_scratch_bytes (int width, int height)
{
  const size_t pixels = (size_t) width * height;
  const size_t tiles = (size_t) ((width + TILE - 1) / TILE)
      * ((height + TILE - 1) / TILE);
  return pixels * (sizeof (float4) + sizeof (uchar2)) + 8
      + tiles * sizeof (int2);
}

cudaError_t
gb_launch_superposition (const GbDevicePlane & plane,
    const GbPlaneFilter * filter, GbSuperpositionMethod method,
    const float *device_map, size_t map_stride, bool prepare,
    GbBorder border, cudaStream_t stream)
{
  const Kernels kernels = kernels_in (plane.superposition_scratch,
      plane.width, plane.height);
  cudaError_t err = cudaSuccess;

  if (plane.width <= 0 || plane.height <= 0)
    return cudaSuccess;
  if (filter->reach_x > GB_SUPERPOSITION_MAX_RADIUS
      || filter->reach_y > GB_SUPERPOSITION_MAX_RADIUS || filter->rmax < 1)
    return cudaErrorInvalidValue;
  if (prepare) {
    /* The window's map: frame pixel (window.x * step_x, ...) onwards. */
    const float *map = device_map
        + (size_t) filter->window.y * filter->step_y * map_stride
        + (size_t) filter->window.x * filter->step_x;
    superposition_prepare <<<dim3 (kernels.tiles_x, kernels.tiles_y),
        dim3 (TILE, GATHER_ROWS), 0, stream>>> (map, map_stride,
        filter->step_x, filter->step_y, plane.width, plane.height,
        filter->rmax, filter->reach_x, filter->reach_y, kernels);
    err = cudaGetLastError ();
    if (err != cudaSuccess)
      return err;
  }
  return gb_dispatch_sample (plane,[&](auto tag) {
        using Sample = decltype (tag);
        switch (plane.channels) {
          case 1:
            return launch_method < Sample, 1 > (plane, kernels, method,
                filter->reach_x, filter->normalize != 0, border, stream);
          case 2:
            return launch_method < Sample, 2 > (plane, kernels, method,
                filter->reach_x, filter->normalize != 0, border, stream);
          case 3:
            return launch_method < Sample, 3 > (plane, kernels, method,
                filter->reach_x, filter->normalize != 0, border, stream);
          case 4:
            return launch_method < Sample, 4 > (plane, kernels, method,
                filter->reach_x, filter->normalize != 0, border, stream);
        }
        return cudaErrorInvalidValue;});
}

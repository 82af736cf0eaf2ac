/* The superposition of a regions map, decomposed (superposition_regions.h),
 * on the GPU.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Three kernels, as gb_region_plan_cpu_sums sums:
 *
 * - regions_rows: a block per row through a rectangle (its own rows and
 *   the strips above and below): the row filtered along x over the
 *   rectangle's columns, into H, with the weight as one more channel;
 * - regions_columns: a block per strip column beside a rectangle, filtered
 *   along y over the rectangle's rows, into V;
 * - regions_outputs: a block per 32 x 32 tile of the plane. A tile that no
 *   region reaches copies its pixels; the others add, per output, its own
 *   pixel where its sigma is 0, then for each region that reaches it the H
 *   rows within the reach (one weight each), the V columns and the corner
 *   pixels.
 *
 * Float sums; the kernels are the CPU's double ones rounded to float once
 * (the plan's tables), so outputs round to the CPU reference's sample or
 * one level off.
 */
#include "kernels.h"
#include "superposition_regions.h"

namespace {

constexpr int LINE_THREADS = 128;
constexpr int TILE = 32;
constexpr int TILE_ROWS = 8;            /* thread rows of an output block */
constexpr int OUTPUTS = TILE / TILE_ROWS;

/* The plan as the kernels read it: its scalars by value, its boxes and
 * tables in device memory. */
struct Regions
{
  const GbRegionBox *boxes;
  const float *level_sigma;
  const float *kernels;
  float *scratch;
  int n_regions;
  int steps;
  int levels;
  int reach_x, reach_y;
  int step_x, step_y;
  int origin_x, origin_y;
  int table_stride;
  int max_rows;                 /* of the boxes' H */
  int max_strip_columns;        /* of their V */
};

__device__ __forceinline__ const float *
level_kernel (const Regions & regions, int table, int level, int axis)
{
  return regions.kernels + ((size_t) table * regions.levels + level)
      * regions.table_stride + (axis ? regions.reach_x + 1 : 0);
}

__device__ __forceinline__ int
strip_columns (const GbRegionBox & box)
{
  return box.outer_x1 - box.outer_x0 - (box.inner_x1 - box.inner_x0);
}

__device__ __forceinline__ int
strip_column (const GbRegionBox & box, int j)
{
  const int left = box.inner_x0 - box.outer_x0;
  return j < left ? box.outer_x0 + j : box.inner_x1 + (j - left);
}

template < typename Sample, int C > __global__ void
__launch_bounds__ (LINE_THREADS)
regions_rows (GbDevicePlane plane, Regions regions)
{
  const GbRegionBox box = regions.boxes[blockIdx.y];
  const int rows = box.outer_y1 - box.outer_y0;
  const int i = blockIdx.x;
  if (i >= rows || box.rows_width == 0)
    return;
  const int y = box.outer_y0 + i;
  const int level = gb_region_level (-1, gb_region_class (y, regions.origin_y,
          regions.step_y, box.edge_y0, box.edge_y1), regions.steps);
  const float *kernel = level_kernel (regions, box.table, level, 0);
  const int rx = regions.reach_x;
  const Sample *in = gb_src_row < Sample > (plane, y);
  float *h = regions.scratch + box.rows_offset;

  for (int col = threadIdx.x; col < box.rows_width; col += LINE_THREADS) {
    const int x = box.inner_x0 - rx + col;
    float acc[C + 1];
    for (int c = 0; c <= C; c++)
      acc[c] = 0.0f;
    for (int xx = max (box.inner_x0, x - rx);
        xx < min (box.inner_x1, x + rx + 1); xx++) {
      const float w = __ldg (&kernel[abs (x - xx)]);
      for (int c = 0; c < C; c++)
        acc[c] += w * (float) in[(size_t) xx * C + c];
      acc[C] += w;
    }
    for (int c = 0; c <= C; c++)
      h[((size_t) c * rows + i) * box.rows_width + col] = acc[c];
  }
}

template < typename Sample, int C > __global__ void
__launch_bounds__ (LINE_THREADS)
regions_columns (GbDevicePlane plane, Regions regions)
{
  const GbRegionBox box = regions.boxes[blockIdx.y];
  const int n = strip_columns (box);
  const int j = blockIdx.x;
  if (j >= n || box.columns_height == 0)
    return;
  const int xx = strip_column (box, j);
  const int level = gb_region_level (gb_region_class (xx, regions.origin_x,
          regions.step_x, box.edge_x0, box.edge_x1), -1, regions.steps);
  const float *kernel = level_kernel (regions, box.table, level, 1);
  const int ry = regions.reach_y;
  float *v = regions.scratch + box.columns_offset;

  for (int row = threadIdx.x; row < box.columns_height; row += LINE_THREADS) {
    const int y = box.inner_y0 - ry + row;
    float acc[C + 1];
    for (int c = 0; c <= C; c++)
      acc[c] = 0.0f;
    for (int yy = max (box.inner_y0, y - ry);
        yy < min (box.inner_y1, y + ry + 1); yy++) {
      const float w = __ldg (&kernel[abs (y - yy)]);
      const Sample *in = gb_src_row < Sample > (plane, yy) + (size_t) xx * C;
      for (int c = 0; c < C; c++)
        acc[c] += w * (float) in[c];
      acc[C] += w;
    }
    for (int c = 0; c <= C; c++)
      v[((size_t) c * n + j) * box.columns_height + row] = acc[c];
  }
}

/* One region's terms for the output (x, y), added to acc; clears
 * *sigma_zero where the output is one of its pixels of sigma > 0. */
template < typename Sample, int C > __device__ void
add_region (const GbDevicePlane & plane, const Regions & regions,
    const GbRegionBox & box, int x, int y, float *acc, bool *sigma_zero)
{
  const int rx = regions.reach_x, ry = regions.reach_y;
  const int rows = box.outer_y1 - box.outer_y0;
  const int n = strip_columns (box);
  const float *level_sigma = regions.level_sigma
      + (size_t) box.table * regions.levels;

  if (x >= box.outer_x0 && x < box.outer_x1 && y >= box.outer_y0
      && y < box.outer_y1) {
    const int level = gb_region_level (gb_region_class (x, regions.origin_x,
            regions.step_x, box.edge_x0, box.edge_x1), gb_region_class (y,
            regions.origin_y, regions.step_y, box.edge_y0, box.edge_y1),
        regions.steps);
    if (level <= regions.steps || level_sigma[level] > 0.0f)
      *sigma_zero = false;
  }
  /* The rows through the rectangle, filtered along x. */
  if (box.rows_width > 0 && x >= box.inner_x0 - rx && x < box.inner_x1 + rx) {
    const float *h = regions.scratch + box.rows_offset
        + (x - (box.inner_x0 - rx));
    for (int yy = max (box.outer_y0, y - ry);
        yy < min (box.outer_y1, y + ry + 1); yy++) {
      const int level = gb_region_level (-1, gb_region_class (yy, regions.origin_y,
              regions.step_y, box.edge_y0, box.edge_y1), regions.steps);
      const float w = __ldg (&level_kernel (regions, box.table, level,
              1)[abs (y - yy)]);
      const size_t at = (size_t) (yy - box.outer_y0) * box.rows_width;
      for (int c = 0; c <= C; c++)
        acc[c] += w * h[(size_t) c * rows * box.rows_width + at];
    }
  }
  /* The strip columns, filtered along y; then the corners' pixels. */
  for (int j = 0; j < n; j++) {
    const int xx = strip_column (box, j);
    if (abs (x - xx) > rx)
      continue;
    const int cx = gb_region_class (xx, regions.origin_x, regions.step_x,
        box.edge_x0, box.edge_x1);
    if (box.columns_height > 0 && y >= box.inner_y0 - ry
        && y < box.inner_y1 + ry) {
      const float w = __ldg (&level_kernel (regions, box.table,
              gb_region_level (cx, -1, regions.steps), 0)[abs (x - xx)]);
      const float *v = regions.scratch + box.columns_offset
          + (size_t) j * box.columns_height + (y - (box.inner_y0 - ry));
      for (int c = 0; c <= C; c++)
        acc[c] += w * v[(size_t) c * n * box.columns_height];
    }
    /* Only the strip rows (above and below the rectangle) within the
     * reach: none for an output away from the corners. */
    const int first = max (box.outer_y0, y - ry);
    const int end = min (box.outer_y1, y + ry + 1);
    const int top_end = min (box.inner_y0, end);
    const int bottom_first = max (box.inner_y1, first);
    for (int yy = first; yy < end; yy++) {
      if (yy >= top_end && yy < bottom_first)
        yy = bottom_first;
      if (yy >= end)
        break;
      const int cy = gb_region_class (yy, regions.origin_y, regions.step_y,
          box.edge_y0, box.edge_y1);
      if (cy < 0)
        continue;
      const int level = gb_region_level (cx, cy, regions.steps);
      if (!(level_sigma[level] > 0.0f))
        continue;
      const float w = __ldg (&level_kernel (regions, box.table, level,
              1)[abs (y - yy)]) * __ldg (&level_kernel (regions, box.table,
              level, 0)[abs (x - xx)]);
      const Sample *in = gb_src_row < Sample > (plane, yy) + (size_t) xx * C;
      for (int c = 0; c < C; c++)
        acc[c] += w * (float) in[c];
      acc[C] += w;
    }
  }
}

constexpr int TILE_REGIONS = GB_REGIONS_MAX;

template < typename Sample, int C > __global__ void
__launch_bounds__ (TILE * TILE_ROWS)
regions_outputs (GbDevicePlane plane, Regions regions, bool normalize)
{
  __shared__ int reaching[TILE_REGIONS];
  __shared__ int n_reaching;
  const int x0 = blockIdx.x * TILE, y0 = blockIdx.y * TILE;
  const int thread = threadIdx.y * TILE + threadIdx.x;
  const int x = x0 + threadIdx.x;

  if (thread == 0)
    n_reaching = 0;
  __syncthreads ();
  /* The regions whose reach meets the tile, in the plan's order. */
  if (thread < regions.n_regions) {
    const GbRegionBox box = regions.boxes[thread];
    if (box.outer_x0 - regions.reach_x < x0 + TILE
        && box.outer_x1 + regions.reach_x > x0
        && box.outer_y0 - regions.reach_y < y0 + TILE
        && box.outer_y1 + regions.reach_y > y0)
      reaching[atomicAdd (&n_reaching, 1)] = thread;
  }
  __syncthreads ();
  const int count = n_reaching;
  if (x >= plane.width)
    return;
  for (int k = 0; k < OUTPUTS; k++) {
    const int y = y0 + threadIdx.y + k * TILE_ROWS;
    if (y >= plane.height)
      break;
    const Sample *in = gb_src_row < Sample > (plane, y) + (size_t) x * C;
    Sample *out = gb_dst_row < Sample > (plane, y) + (size_t) x * C;
    if (count == 0) {
      for (int c = 0; c < C; c++)
        out[c] = in[c];
      continue;
    }
    float acc[C + 1];
    bool sigma_zero = true;
    for (int c = 0; c <= C; c++)
      acc[c] = 0.0f;
    /* (the atomic order above is arbitrary: sum in the plan's order, so
     * that a frame gives the same floats every time) */
    for (int r = 0; r < regions.n_regions; r++) {
      bool listed = false;
      for (int i = 0; i < count; i++)
        listed |= reaching[i] == r;
      if (listed)
        add_region < Sample, C > (plane, regions, regions.boxes[r], x, y,
            acc, &sigma_zero);
    }
    if (sigma_zero) {
      for (int c = 0; c < C; c++)
        acc[c] += (float) in[c];
      acc[C] += 1.0f;
    }
    for (int c = 0; c < C; c++)
      out[c] = gb_round_sample < Sample > (normalize ? acc[c] / acc[C]
          : acc[c]);
  }
}

template < typename Sample, int C > cudaError_t
launch_regions (const GbDevicePlane & plane, const Regions & regions,
    bool normalize, cudaStream_t stream)
{
  if (regions.n_regions > 0) {
    if (regions.max_rows > 0)
      regions_rows < Sample, C > <<<dim3 (regions.max_rows,
          regions.n_regions), LINE_THREADS, 0, stream>>> (plane, regions);
    if (regions.max_strip_columns > 0)
      regions_columns < Sample, C > <<<dim3 (regions.max_strip_columns,
          regions.n_regions), LINE_THREADS, 0, stream>>> (plane, regions);
  }
  regions_outputs < Sample, C > <<<dim3 ((plane.width + TILE - 1) / TILE,
      (plane.height + TILE - 1) / TILE), dim3 (TILE, TILE_ROWS), 0,
      stream>>> (plane, regions, normalize);
  return cudaGetLastError ();
}

}                               /* namespace */

cudaError_t
gb_launch_superposition_regions (const GbDevicePlane & plane,
    const GbRegionPlan * plan, const GbRegionBox * device_boxes,
    const float *device_tables, float *scratch, cudaStream_t stream)
{
  Regions regions;

  if (plane.width <= 0 || plane.height <= 0)
    return cudaSuccess;
  if (plan->n_regions > GB_REGIONS_MAX)
    return cudaErrorInvalidValue;
  regions.boxes = device_boxes;
  regions.level_sigma = device_tables;
  regions.kernels = device_tables + (size_t) plan->n_tables * plan->levels;
  regions.scratch = scratch;
  regions.n_regions = plan->n_regions;
  regions.steps = plan->steps;
  regions.levels = plan->levels;
  regions.reach_x = plan->reach_x;
  regions.reach_y = plan->reach_y;
  regions.step_x = plan->step_x;
  regions.step_y = plan->step_y;
  regions.origin_x = plan->origin_x;
  regions.origin_y = plan->origin_y;
  regions.table_stride = plan->table_stride;
  regions.max_rows = regions.max_strip_columns = 0;
  for (int r = 0; r < plan->n_regions; r++) {
    const GbRegionBox *box = &plan->boxes[r];
    regions.max_rows = max (regions.max_rows, box->rows_width > 0
        ? box->outer_y1 - box->outer_y0 : 0);
    regions.max_strip_columns = max (regions.max_strip_columns,
        box->columns_height > 0 ? box->outer_x1 - box->outer_x0
        - (box->inner_x1 - box->inner_x0) : 0);
  }
  return gb_dispatch_sample (plane,[&](auto tag) {
        using Sample = decltype (tag);
        const bool normalize = plan->normalize != 0;
        switch (plane.channels) {
          case 1:
            return launch_regions < Sample, 1 > (plane, regions, normalize,
                stream);
          case 2:
            return launch_regions < Sample, 2 > (plane, regions, normalize,
                stream);
          case 3:
            return launch_regions < Sample, 3 > (plane, regions, normalize,
                stream);
          case 4:
            return launch_regions < Sample, 4 > (plane, regions, normalize,
                stream);
        }
        return cudaErrorInvalidValue;});
}

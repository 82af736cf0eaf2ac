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

constexpr int MAX_REACH = GB_SUPERPOSITION_MAX_RADIUS;
constexpr int MAX_STRIP = GB_REGIONS_MAX_FEATHER_STEPS;  /* columns a side */
constexpr int ROW_CHUNK = 128;          /* H columns per block */
constexpr int COLUMN_ROWS = 32;         /* V rows per block */
constexpr int COLUMN_THREADS = 256;
constexpr int TILE = 32;                /* outputs: 32 x 32 per block, */
constexpr int TILE_ROWS = 8;            /* 8 thread rows of 4 outputs */
constexpr int OUTPUTS = TILE / TILE_ROWS;
constexpr int TILE_THREADS = TILE * TILE_ROWS;
constexpr int PIXEL_CHUNK = 32;         /* corner pixels staged at once */

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
};

__device__ __forceinline__ const float *
level_kernel (const Regions & regions, int table, int level, int axis)
{
  return regions.kernels + ((size_t) table * regions.levels + level)
      * regions.table_stride + (axis ? regions.reach_x + 1 : 0);
}

/* A kernel's weight at distance d, 0 beyond the reach. */
__device__ __forceinline__ float
weight_at (const float *kernel, int d, int reach)
{
  d = abs (d);
  return d <= reach ? __ldg (&kernel[d]) : 0.0f;
}

__device__ __forceinline__ int
class_x (const Regions & regions, const GbRegionBox & box, int x)
{
  return gb_region_class (x, regions.origin_x, regions.step_x, box.edge_x0,
      box.edge_x1);
}

__device__ __forceinline__ int
class_y (const Regions & regions, const GbRegionBox & box, int y)
{
  return gb_region_class (y, regions.origin_y, regions.step_y, box.edge_y0,
      box.edge_y1);
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

/* H: each row through a rectangle filtered along x over the rectangle's
 * columns (pixels outside them count 0), plus, when normalising, the
 * weight. A block per 128 H columns of one row: the row's span staged in
 * shared memory as floats, the taps of the row's level beside it. */
template < typename Sample, int C, bool NORM > __global__ void
__launch_bounds__ (ROW_CHUNK)
regions_rows (GbDevicePlane plane, Regions regions)
{
  constexpr int NC = C + NORM;
  __shared__ float span[NC][ROW_CHUNK + 2 * MAX_REACH];
  __shared__ float taps[2 * MAX_REACH + 1];
  const GbRegionBox box = regions.boxes[blockIdx.z];
  const int rows = box.outer_y1 - box.outer_y0;
  const int i = blockIdx.y;
  const int col0 = blockIdx.x * ROW_CHUNK;
  if (i >= rows || col0 >= box.rows_width)
    return;
  const int y = box.outer_y0 + i;
  const int rx = regions.reach_x;
  const float *kernel = level_kernel (regions, box.table,
      gb_region_level (-1, class_y (regions, box, y), regions.steps), 0);
  const Sample *in = gb_src_row < Sample > (plane, y);
  /* span[t]: column inner_x0 - 2 rx + col0 + t, so that H column col0 + k
   * sums span[k .. k + 2 rx]. */
  const int first = box.inner_x0 - 2 * rx + col0;

  for (int t = threadIdx.x; t < ROW_CHUNK + 2 * rx; t += ROW_CHUNK) {
    const int xx = first + t;
    const bool inside = xx >= box.inner_x0 && xx < box.inner_x1;
    for (int c = 0; c < C; c++)
      span[c][t] = inside ? (float) in[(size_t) xx * C + c] : 0.0f;
    if (NORM)
      span[NC - 1][t] = inside ? 1.0f : 0.0f;
  }
  for (int t = threadIdx.x; t <= 2 * rx; t += ROW_CHUNK)
    taps[t] = __ldg (&kernel[abs (t - rx)]);
  __syncthreads ();

  const int col = col0 + threadIdx.x;
  if (col >= box.rows_width)
    return;
  float acc[NC];
  for (int c = 0; c < NC; c++)
    acc[c] = 0.0f;
  for (int t = 0; t <= 2 * rx; t++) {
    const float w = taps[t];
    for (int c = 0; c < NC; c++)
      acc[c] += w * span[c][threadIdx.x + t];
  }
  float *h = regions.scratch + box.rows_offset;
  for (int c = 0; c < NC; c++)
    h[((size_t) c * rows + i) * box.rows_width + col] = acc[c];
}

/* V: the strip columns left and right of a rectangle filtered along y over
 * the rectangle's rows. A block per side and 32 V rows: the columns' spans
 * staged in shared memory (column-major, so a warp's 32 rows read
 * consecutive words), each column's taps beside them. */
template < typename Sample, int C, bool NORM > __global__ void
__launch_bounds__ (COLUMN_THREADS)
regions_columns (GbDevicePlane plane, Regions regions)
{
  constexpr int NC = C + NORM;
  constexpr int SPAN = COLUMN_ROWS + 2 * MAX_REACH;
  __shared__ float span[NC][MAX_STRIP][SPAN];
  __shared__ float taps[MAX_STRIP][2 * MAX_REACH + 1];
  const GbRegionBox box = regions.boxes[blockIdx.z];
  const int left = box.inner_x0 - box.outer_x0;
  const bool right_side = blockIdx.y == 1;
  const int n = right_side ? box.outer_x1 - box.inner_x1 : left;
  const int row0 = blockIdx.x * COLUMN_ROWS;
  if (n == 0 || row0 >= box.columns_height)
    return;
  const int x0 = right_side ? box.inner_x1 : box.outer_x0;
  const int j0 = right_side ? left : 0;      /* the first column's V index */
  const int ry = regions.reach_y;
  /* span[..][t]: row inner_y0 - 2 ry + row0 + t; V row row0 + k sums
   * span[k .. k + 2 ry]. */
  const int first = box.inner_y0 - 2 * ry + row0;
  const int span_rows = COLUMN_ROWS + 2 * ry;

  for (int e = threadIdx.x; e < n * span_rows; e += COLUMN_THREADS) {
    const int j = e / span_rows, t = e % span_rows;
    const int yy = first + t;
    const bool inside = yy >= box.inner_y0 && yy < box.inner_y1;
    const Sample *in = gb_src_row < Sample > (plane, inside ? yy
        : box.inner_y0) + (size_t) (x0 + j) * C;
    for (int c = 0; c < C; c++)
      span[c][j][t] = inside ? (float) in[c] : 0.0f;
    if (NORM)
      span[NC - 1][j][t] = inside ? 1.0f : 0.0f;
  }
  for (int e = threadIdx.x; e < n * (2 * ry + 1); e += COLUMN_THREADS) {
    const int j = e / (2 * ry + 1), t = e % (2 * ry + 1);
    const float *kernel = level_kernel (regions, box.table,
        gb_region_level (class_x (regions, box, x0 + j), -1, regions.steps),
        1);
    taps[j][t] = __ldg (&kernel[abs (t - ry)]);
  }
  __syncthreads ();

  const int total = strip_columns (box);
  float *v = regions.scratch + box.columns_offset;
  for (int e = threadIdx.x; e < n * COLUMN_ROWS; e += COLUMN_THREADS) {
    const int j = e / COLUMN_ROWS, k = e % COLUMN_ROWS;
    const int row = row0 + k;
    if (row >= box.columns_height)
      continue;
    float acc[NC];
    for (int c = 0; c < NC; c++)
      acc[c] = 0.0f;
    for (int t = 0; t <= 2 * ry; t++) {
      const float w = taps[j][t];
      for (int c = 0; c < NC; c++)
        acc[c] += w * span[c][j][k + t];
    }
    for (int c = 0; c < NC; c++)
      v[((size_t) c * total + j0 + j) * box.columns_height + row] = acc[c];
  }
}

/* What an output block stages, one part of one region at a time. */
template < int NC > union OutputStage
{
  struct
  {
    float h[NC][TILE][TILE];    /* [channel][H row - first][output column] */
    float w[TILE][TILE];        /* [H row - first][output row]: its weight */
  } rows;
  struct
  {
    float v[NC][2 * MAX_STRIP][TILE];   /* [channel][strip column][out row] */
    float w[2 * MAX_STRIP][TILE];       /* [strip column][output column] */
  } columns;
  struct
  {
    float value[PIXEL_CHUNK][NC];       /* a corner pixel's samples */
    float wx[PIXEL_CHUNK][TILE];        /* its weight per output column */
    float wy[PIXEL_CHUNK][TILE];        /* ... and per output row */
  } corners;
};

/* Adds acc[k][c] += weight(k) * value[c] for the thread's outputs. */
template < int NC > __device__ __forceinline__ void
accumulate (float (&acc)[OUTPUTS][NC], const float (&value)[NC],
    const float *weights_by_row)
{
  for (int k = 0; k < OUTPUTS; k++) {
    const float w = weights_by_row[threadIdx.y + k * TILE_ROWS];
    for (int c = 0; c < NC; c++)
      acc[k][c] += w * value[c];
  }
}

/* The rows through region `box`'s rectangle, filtered along x (H), summed
 * along y into the tile's outputs: 32 H rows at a time. */
template < int NC > __device__ void
add_rows (const Regions & regions, const GbRegionBox & box, int x0, int y0,
    OutputStage < NC > &stage, float (&acc)[OUTPUTS][NC])
{
  const int rx = regions.reach_x, ry = regions.reach_y;
  const int thread = threadIdx.y * TILE + threadIdx.x;
  const int rows = box.outer_y1 - box.outer_y0;
  const int first = max (box.outer_y0, y0 - ry);
  const int end = min (box.outer_y1, y0 + TILE + ry);
  const int col = x0 + threadIdx.x - (box.inner_x0 - rx);
  const bool in_h = col >= 0 && col < box.rows_width;
  const float *h = regions.scratch + box.rows_offset;

  for (int base = first; base < end; base += TILE) {
    const int count = min (TILE, end - base);
    __syncthreads ();           /* the stage's last readers are done */
    for (int r = threadIdx.y; r < count; r += TILE_ROWS)
      for (int c = 0; c < NC; c++)
        stage.rows.h[c][r][threadIdx.x] = in_h ? h[((size_t) c * rows
                + base + r - box.outer_y0) * box.rows_width + col] : 0.0f;
    for (int e = thread; e < count * TILE; e += TILE_THREADS) {
      const int r = e / TILE, out_row = e % TILE;
      const int yy = base + r;
      const float *kernel = level_kernel (regions, box.table,
          gb_region_level (-1, class_y (regions, box, yy), regions.steps),
          1);
      stage.rows.w[r][out_row] = weight_at (kernel, y0 + out_row - yy, ry);
    }
    __syncthreads ();
    for (int r = 0; r < count; r++) {
      float value[NC];
      for (int c = 0; c < NC; c++)
        value[c] = stage.rows.h[c][r][threadIdx.x];
      accumulate < NC > (acc, value, stage.rows.w[r]);
    }
  }
}

/* The strip columns beside the rectangle, filtered along y (V), summed
 * along x into the tile's outputs. */
template < int NC > __device__ void
add_columns (const Regions & regions, const GbRegionBox & box, int x0,
    int y0, OutputStage < NC > &stage, float (&acc)[OUTPUTS][NC])
{
  const int rx = regions.reach_x, ry = regions.reach_y;
  const int thread = threadIdx.y * TILE + threadIdx.x;
  const int n = strip_columns (box);
  const float *v = regions.scratch + box.columns_offset;

  __syncthreads ();
  for (int e = thread; e < NC * n * TILE; e += TILE_THREADS) {
    const int out_row = e % TILE, j = (e / TILE) % n, c = e / (TILE * n);
    const int row = y0 + out_row - (box.inner_y0 - ry);
    stage.columns.v[c][j][out_row] = row >= 0 && row < box.columns_height
        ? v[((size_t) c * n + j) * box.columns_height + row] : 0.0f;
  }
  for (int e = thread; e < n * TILE; e += TILE_THREADS) {
    const int j = e / TILE, out_col = e % TILE;
    const int xx = strip_column (box, j);
    const float *kernel = level_kernel (regions, box.table,
        gb_region_level (class_x (regions, box, xx), -1, regions.steps), 0);
    stage.columns.w[j][out_col] = weight_at (kernel, x0 + out_col - xx, rx);
  }
  __syncthreads ();
  for (int j = 0; j < n; j++) {
    const float w = stage.columns.w[j][threadIdx.x];
    for (int k = 0; k < OUTPUTS; k++)
      for (int c = 0; c < NC; c++)
        acc[k][c] += w * stage.columns.v[c][j][threadIdx.y + k * TILE_ROWS];
  }
}

/* The pixels of one corner (columns [cx0, cx1) x rows [cy0, cy1)), each
 * with its own level, 32 at a time. */
template < typename Sample, int C, int NC > __device__ void
add_corner (const GbDevicePlane & plane, const Regions & regions,
    const GbRegionBox & box, int cx0, int cx1, int cy0, int cy1, int x0,
    int y0, OutputStage < NC > &stage, float (&acc)[OUTPUTS][NC])
{
  const int rx = regions.reach_x, ry = regions.reach_y;
  const int thread = threadIdx.y * TILE + threadIdx.x;
  const int width = cx1 - cx0, count = width * (cy1 - cy0);
  const float *level_sigma = regions.level_sigma
      + (size_t) box.table * regions.levels;

  for (int base = 0; base < count; base += PIXEL_CHUNK) {
    const int chunk = min (PIXEL_CHUNK, count - base);
    __syncthreads ();
    for (int e = thread; e < chunk * 2 * TILE; e += TILE_THREADS) {
      const int p = e / (2 * TILE), o = e % TILE;
      const bool along_y = (e / TILE) % 2;
      const int xx = cx0 + (base + p) % width, yy = cy0 + (base + p) / width;
      const int level = gb_region_level (class_x (regions, box, xx),
          class_y (regions, box, yy), regions.steps);
      /* A pixel of sigma 0 adds only itself (the caller's identity). */
      const bool spreads = level_sigma[level] > 0.0f;
      if (along_y)
        stage.corners.wy[p][o] = spreads ? weight_at (level_kernel (regions,
                box.table, level, 1), y0 + o - yy, ry) : 0.0f;
      else
        stage.corners.wx[p][o] = spreads ? weight_at (level_kernel (regions,
                box.table, level, 0), x0 + o - xx, rx) : 0.0f;
      if (o == 0 && !along_y) {
        const Sample *in = gb_src_row < Sample > (plane, yy) + (size_t) xx * C;
        for (int c = 0; c < C; c++)
          stage.corners.value[p][c] = (float) in[c];
        if (NC > C)
          stage.corners.value[p][NC - 1] = 1.0f;
      }
    }
    __syncthreads ();
    for (int p = 0; p < chunk; p++) {
      const float wx = stage.corners.wx[p][threadIdx.x];
      float value[NC];
      for (int c = 0; c < NC; c++)
        value[c] = wx * stage.corners.value[p][c];
      accumulate < NC > (acc, value, stage.corners.wy[p]);
    }
  }
}

/* Whether rectangle [ax0, ax1) x [ay0, ay1) widened by the reach meets the
 * tile. */
__device__ __forceinline__ bool
reaches_tile (int ax0, int ax1, int ay0, int ay1, int rx, int ry, int x0,
    int y0)
{
  return ax0 < ax1 && ay0 < ay1 && ax0 - rx < x0 + TILE && ax1 + rx > x0
      && ay0 - ry < y0 + TILE && ay1 + ry > y0;
}

/* Copies the tile's pixels, in the widest unit that the rows' alignment
 * allows. */
template < typename Sample, int C > __device__ void
copy_tile (const GbDevicePlane & plane, int x0, int y0)
{
  const int rows = min (TILE, plane.height - y0);
  const size_t bytes = (size_t) min (TILE, plane.width - x0) * C
      * sizeof (Sample);
  const size_t offset = (size_t) x0 * C * sizeof (Sample);
  const char *src = (const char *) plane.src + (size_t) y0 * plane.src_pitch
      + offset;
  char *dst = (char *) plane.dst + (size_t) y0 * plane.dst_pitch + offset;
  const size_t alignment = (size_t) src | (size_t) dst | plane.src_pitch
      | plane.dst_pitch | bytes;
  const int thread = threadIdx.y * TILE + threadIdx.x;

  if (alignment % 16 == 0) {
    const int units = (int) (bytes / 16);
    for (int e = thread; e < rows * units; e += TILE_THREADS) {
      const int r = e / units, u = e % units;
      ((uint4 *) (dst + r * plane.dst_pitch))[u] =
          ((const uint4 *) (src + r * plane.src_pitch))[u];
    }
  } else if (alignment % 4 == 0) {
    const int units = (int) (bytes / 4);
    for (int e = thread; e < rows * units; e += TILE_THREADS) {
      const int r = e / units, u = e % units;
      ((uint32_t *) (dst + r * plane.dst_pitch))[u] =
          ((const uint32_t *) (src + r * plane.src_pitch))[u];
    }
  } else {
    const int units = (int) bytes;
    for (int e = thread; e < rows * units; e += TILE_THREADS) {
      const int r = e / units, u = e % units;
      dst[r * plane.dst_pitch + u] = src[r * plane.src_pitch + u];
    }
  }
}

/* A block per 32 x 32 tile of the plane. A tile that no region reaches
 * copies its pixels; the others add, per output, each reaching region's
 * H rows, V columns and corner pixels (in the plan's order, so that a
 * frame gives the same floats every time), then its own pixel where its
 * sigma is 0. */
template < typename Sample, int C, bool NORM > __global__ void
__launch_bounds__ (TILE_THREADS, 2)
regions_outputs (GbDevicePlane plane, Regions regions)
{
  constexpr int NC = C + NORM;
  __shared__ OutputStage < NC > stage;
  __shared__ unsigned reaching[GB_REGIONS_MAX / 32];
  const int x0 = blockIdx.x * TILE, y0 = blockIdx.y * TILE;
  const int thread = threadIdx.y * TILE + threadIdx.x;
  const int rx = regions.reach_x, ry = regions.reach_y;

  /* The regions whose reach meets the tile, as a bit set. */
  if (thread < GB_REGIONS_MAX) {
    bool meets = false;
    if (thread < regions.n_regions) {
      const GbRegionBox & box = regions.boxes[thread];
      meets = reaches_tile (box.outer_x0, box.outer_x1, box.outer_y0,
          box.outer_y1, rx, ry, x0, y0);
    }
    const unsigned bits = __ballot_sync (0xffffffffu, meets);
    if (threadIdx.x == 0)
      reaching[thread / 32] = bits;
  }
  __syncthreads ();
  bool any = false;
  for (int w = 0; w < GB_REGIONS_MAX / 32; w++)
    any |= reaching[w] != 0;
  if (!any) {
    copy_tile < Sample, C > (plane, x0, y0);
    return;
  }

  const int x = x0 + threadIdx.x;
  float acc[OUTPUTS][NC];
  bool sigma_zero[OUTPUTS];
  for (int k = 0; k < OUTPUTS; k++) {
    sigma_zero[k] = true;
    for (int c = 0; c < NC; c++)
      acc[k][c] = 0.0f;
  }
  for (int r = 0; r < regions.n_regions; r++) {
    if (!(reaching[r / 32] >> (r % 32) & 1u))
      continue;
    const GbRegionBox box = regions.boxes[r];
    const float *level_sigma = regions.level_sigma
        + (size_t) box.table * regions.levels;
    for (int k = 0; k < OUTPUTS; k++) {
      const int y = y0 + threadIdx.y + k * TILE_ROWS;
      if (x >= box.outer_x0 && x < box.outer_x1 && y >= box.outer_y0
          && y < box.outer_y1) {
        const int level = gb_region_level (class_x (regions, box, x),
            class_y (regions, box, y), regions.steps);
        if (level <= regions.steps || level_sigma[level] > 0.0f)
          sigma_zero[k] = false;
      }
    }
    if (box.rows_width > 0 && reaches_tile (box.inner_x0, box.inner_x1,
            box.outer_y0, box.outer_y1, rx, ry, x0, y0))
      add_rows < NC > (regions, box, x0, y0, stage, acc);
    if (box.columns_height > 0 && strip_columns (box) > 0
        && reaches_tile (box.outer_x0, box.outer_x1,
            box.inner_y0, box.inner_y1, rx, ry, x0, y0))
      add_columns < NC > (regions, box, x0, y0, stage, acc);
#pragma unroll
    for (int corner = 0; corner < 4; corner++) {
      const bool right = corner % 2, bottom = corner / 2;
      const int cx0 = right ? box.inner_x1 : box.outer_x0;
      const int cx1 = right ? box.outer_x1 : box.inner_x0;
      const int cy0 = bottom ? box.inner_y1 : box.outer_y0;
      const int cy1 = bottom ? box.outer_y1 : box.inner_y0;
      if (reaches_tile (cx0, cx1, cy0, cy1, rx, ry, x0, y0))
        add_corner < Sample, C, NC > (plane, regions, box, cx0, cx1, cy0,
            cy1, x0, y0, stage, acc);
    }
  }
  if (x >= plane.width)
    return;
  for (int k = 0; k < OUTPUTS; k++) {
    const int y = y0 + threadIdx.y + k * TILE_ROWS;
    if (y >= plane.height)
      break;
    const Sample *in = gb_src_row < Sample > (plane, y) + (size_t) x * C;
    Sample *out = gb_dst_row < Sample > (plane, y) + (size_t) x * C;
    if (sigma_zero[k]) {
      for (int c = 0; c < C; c++)
        acc[k][c] += (float) in[c];
      if (NORM)
        acc[k][NC - 1] += 1.0f;
    }
    for (int c = 0; c < C; c++)
      out[c] = gb_round_sample < Sample > (NORM ? acc[k][c] / acc[k][NC - 1]
          : acc[k][c]);
  }
}

template < typename Sample, int C, bool NORM > cudaError_t
launch_regions (const GbDevicePlane & plane, const Regions & regions,
    int max_rows, int max_rows_width, int max_columns_height,
    cudaStream_t stream)
{
  if (max_rows > 0 && max_rows_width > 0)
    regions_rows < Sample, C, NORM > <<<dim3 ((max_rows_width + ROW_CHUNK
                - 1) / ROW_CHUNK, max_rows, regions.n_regions), ROW_CHUNK,
        0, stream>>> (plane, regions);
  if (max_columns_height > 0)
    regions_columns < Sample, C, NORM > <<<dim3 ((max_columns_height
                + COLUMN_ROWS - 1) / COLUMN_ROWS, 2, regions.n_regions),
        COLUMN_THREADS, 0, stream>>> (plane, regions);
  regions_outputs < Sample, C, NORM > <<<dim3 ((plane.width + TILE - 1)
          / TILE, (plane.height + TILE - 1) / TILE), dim3 (TILE, TILE_ROWS),
      0, stream>>> (plane, regions);
  return cudaGetLastError ();
}

template < typename Sample, int C > cudaError_t
launch_channels (const GbDevicePlane & plane, const Regions & regions,
    bool normalize, int max_rows, int max_rows_width, int max_columns_height,
    cudaStream_t stream)
{
  return normalize ? launch_regions < Sample, C, true > (plane, regions,
      max_rows, max_rows_width, max_columns_height, stream)
      : launch_regions < Sample, C, false > (plane, regions, max_rows,
      max_rows_width, max_columns_height, stream);
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
  int max_rows = 0, max_rows_width = 0, max_columns_height = 0;
  for (int r = 0; r < plan->n_regions; r++) {
    const GbRegionBox *box = &plan->boxes[r];
    max_rows = max (max_rows, box->outer_y1 - box->outer_y0);
    max_rows_width = max (max_rows_width, box->rows_width);
    if (box->outer_x1 - box->outer_x0 > box->inner_x1 - box->inner_x0)
      max_columns_height = max (max_columns_height, box->columns_height);
  }
  return gb_dispatch_sample (plane,[&](auto tag) {
        using Sample = decltype (tag);
        const bool normalize = plan->normalize != 0;
        switch (plane.channels) {
          case 1:
            return launch_channels < Sample, 1 > (plane, regions, normalize,
                max_rows, max_rows_width, max_columns_height, stream);
          case 2:
            return launch_channels < Sample, 2 > (plane, regions, normalize,
                max_rows, max_rows_width, max_columns_height, stream);
          case 3:
            return launch_channels < Sample, 3 > (plane, regions, normalize,
                max_rows, max_rows_width, max_columns_height, stream);
          case 4:
            return launch_channels < Sample, 4 > (plane, regions, normalize,
                max_rows, max_rows_width, max_columns_height, stream);
        }
        return cudaErrorInvalidValue;});
}

/* The superposition of a regions map, decomposed (superposition_regions.h),
 * on the GPU.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Two kernels, summing as gb_region_plan_cpu_sums does:
 *
 * - regions_sums: H, the rows through each rectangle (its own rows and the
 *   strips above and below) filtered along x over the rectangle's columns,
 *   and V, the strip columns beside it filtered along y over its rows;
 *   with the weight as one more channel when normalising;
 * - regions_outputs: a block per 32 x 32 tile of the plane. A tile that no
 *   region reaches copies its pixels; the others add, per output, for each
 *   region that reaches it the H rows within the reach (one weight each),
 *   the V columns and the corner pixels, then its own pixel where its
 *   sigma is 0.
 *
 * Every pass stages what its block reads in shared memory (as floats, a
 * pixel's sums in one or two vector loads) and weights beside them.
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
constexpr int COLUMN_ROWS = 32;         /* V rows per block */
constexpr int SUM_THREADS = 128;        /* a block of the H and V sums */
constexpr int COLUMN_GROUP = 8;         /* strip columns per block */
constexpr int COLUMN_GROUPS = 2 * MAX_STRIP / COLUMN_GROUP;     /* a region */
constexpr int TILE_X = 32;              /* outputs: 32 x 32 per block, */
constexpr int TILE_Y = 32;
constexpr int OUTPUTS = 4;              /* a thread's, one above the other */
constexpr int THREAD_ROWS = TILE_Y / OUTPUTS;
constexpr int TILE_THREADS = TILE_X * THREAD_ROWS;
constexpr int H_CHUNK = 32;             /* H rows staged at once */
constexpr int V_CHUNK = MAX_STRIP;      /* V columns staged at once */
constexpr int PIXEL_CHUNK = 32;         /* corner pixels staged at once */

/* A pixel's NC sums (its channels, then the weight when normalising) as
 * shared memory holds them: one vector load for 1, 2 and 4 sums (3 padded
 * to 4); 5 (RGBA normalised) as five words, which measured faster on the
 * H100 than padding to 8 (71 against 82 us a frame, superposition-bench). */
template < int NC > struct alignas (NC == 1 ? 4 : NC == 2 ? 8 : NC == 5 ? 4 : 16) Sums
{
  float v[NC == 3 ? 4 : NC];
};

template < int NC > __device__ __forceinline__ Sums < NC > zero_sums ()
{
  Sums < NC > s;
  for (int c = 0; c < NC; c++)
    s.v[c] = 0.0f;
  return s;
}

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

/* A pixel's samples as floats, and 1 for the weight when normalising;
 * zero where it is not summed. */
template < typename Sample, int C, int NC > __device__ __forceinline__
    Sums < NC > load_pixel (const Sample * pixel, bool summed)
{
  Sums < NC > s = zero_sums < NC > ();
  if (summed) {
    for (int c = 0; c < C; c++)
      s.v[c] = (float) pixel[c];
    if (NC > C)
      s.v[NC - 1] = 1.0f;
  }
  return s;
}

/* sum += w * (a + b) (the symmetric kernel's two taps at once). */
template < int NC > __device__ __forceinline__ void
add_pair (float (&sum)[NC], float w, const Sums < NC > &a,
    const Sums < NC > &b)
{
  for (int c = 0; c < NC; c++)
    sum[c] += w * (a.v[c] + b.v[c]);
}

/* H: each row through a rectangle filtered along x over the rectangle's
 * columns (pixels outside them count 0), plus, when normalising, the
 * weight. A block per 128 H columns of 4 rows, a thread per 4 neighbouring
 * columns: the rows' spans staged in shared memory split by position
 * modulo 4 (so that the 32 threads of a warp, 4 positions apart, read
 * neighbouring words), each staged pixel read once per thread and used by
 * all 4 of its outputs; the taps of each row's level beside them, padded
 * with zeros, slide through registers. */
constexpr int ROW_OUTPUTS = 4;          /* H columns per thread */
constexpr int ROW_LINES = 4;            /* H rows per block */
constexpr int ROW_CHUNK = 32 * ROW_OUTPUTS;     /* H columns per block */
constexpr int ROW_SPAN = (ROW_CHUNK + 2 * MAX_REACH) / ROW_OUTPUTS + 1;

template < int NC > struct RowStage
{
  Sums < NC > span[ROW_LINES][ROW_OUTPUTS][ROW_SPAN];
  /* taps[line][t + K - 1]: tap t of the line's kernel (t = 0 .. 2 rx, the
   * centre at rx), 0 outside. */
  float taps[ROW_LINES][2 * MAX_REACH + 2 * ROW_OUTPUTS - 1];
};

/* Block (chunk, group) of region r's H. */
template < typename Sample, int C, int NC > __device__ void
sum_rows (const GbDevicePlane & plane, const Regions & regions, int r,
    int chunk, int group, RowStage < NC > &stage)
{
  constexpr int K = ROW_OUTPUTS;
  auto & span = stage.span;
  auto & taps = stage.taps;
  const GbRegionBox box = regions.boxes[r];
  const int rows = box.outer_y1 - box.outer_y0;
  const int lane = threadIdx.x % 32;
  const int line = threadIdx.x / 32;
  const int i = group * ROW_LINES + line;
  const int col0 = chunk * ROW_CHUNK;
  if (group * ROW_LINES >= rows || col0 >= box.rows_width)
    return;
  const int rx = regions.reach_x;
  const bool row_valid = i < rows;
  const int y = box.outer_y0 + (row_valid ? i : 0);
  /* Element p of the span: column inner_x0 - 2 rx + col0 + p, so that H
   * column col0 + q sums elements q .. q + 2 rx. */
  const int first = box.inner_x0 - 2 * rx + col0;
  const Sample *in = gb_src_row < Sample > (plane, y);

  for (int p = lane; p < ROW_CHUNK + 2 * rx; p += 32) {
    const int xx = first + p;
    const bool inside = row_valid && xx >= box.inner_x0 && xx < box.inner_x1;
    span[line][p % K][p / K] = load_pixel < Sample, C, NC > (in
        + (size_t) (inside ? xx : box.inner_x0) * C, inside);
  }
  {
    const float *kernel = level_kernel (regions, box.table,
        gb_region_level (-1, class_y (regions, box, y), regions.steps), 0);
    for (int t = lane; t < 2 * rx + 2 * K - 1; t += 32) {
      const int d = t - (K - 1) - rx;
      taps[line][t] = abs (d) <= rx ? __ldg (&kernel[abs (d)]) : 0.0f;
    }
  }
  __syncthreads ();
  if (!row_valid)
    return;

  /* Position j = o + t of output o's tap t: element 4 tx + j. w[o] holds
   * tap j - o. */
  float sum[K][NC];
  float w[K];
  for (int o = 0; o < K; o++) {
    w[o] = 0.0f;                /* tap -1 - o */
    for (int c = 0; c < NC; c++)
      sum[o][c] = 0.0f;
  }
  for (int jq = 0; jq * K <= 2 * rx + K - 1; jq++) {
#pragma unroll
    for (int p = 0; p < K; p++) {
      const int j = jq * K + p;
      for (int o = K - 1; o > 0; o--)
        w[o] = w[o - 1];
      w[0] = taps[line][j + K - 1];
      const Sums < NC > e = span[line][p][lane + jq];
      for (int o = 0; o < K; o++)
        for (int c = 0; c < NC; c++)
          sum[o][c] += w[o] * e.v[c];
    }
  }
  float *h = regions.scratch + box.rows_offset;
  for (int o = 0; o < K; o++) {
    const int col = col0 + K * lane + o;
    if (col < box.rows_width)
      for (int c = 0; c < NC; c++)
        h[((size_t) c * rows + i) * box.rows_width + col] = sum[o][c];
  }
}

/* V: the strip columns left and right of a rectangle filtered along y over
 * the rectangle's rows. A block per 8 columns of a side and 32 V rows: the
 * columns' spans
 * staged in shared memory (column-major, so a warp's 32 rows read
 * consecutive pixels), each column's taps beside them. */
template < int NC > struct ColumnStage
{
  Sums < NC > span[COLUMN_GROUP][COLUMN_ROWS + 2 * MAX_REACH];
  float taps[COLUMN_GROUP][MAX_REACH + 1];
};

/* Block (chunk, side_group) of region r's V. */
template < typename Sample, int C, int NC > __device__ void
sum_columns (const GbDevicePlane & plane, const Regions & regions, int r,
    int chunk, int side_group, ColumnStage < NC > &stage)
{
  auto & span = stage.span;
  auto & taps = stage.taps;
  const GbRegionBox box = regions.boxes[r];
  const int left = box.inner_x0 - box.outer_x0;
  const bool right_side = side_group >= COLUMN_GROUPS / 2;
  const int group = side_group % (COLUMN_GROUPS / 2) * COLUMN_GROUP;
  const int n = min (COLUMN_GROUP, (right_side ? box.outer_x1 - box.inner_x1
          : left) - group);
  const int row0 = chunk * COLUMN_ROWS;
  if (n <= 0 || row0 >= box.columns_height)
    return;
  const int x0 = (right_side ? box.inner_x1 : box.outer_x0) + group;
  const int j0 = (right_side ? left : 0) + group;   /* x0's V index */
  const int ry = regions.reach_y;
  /* span[j][t]: row inner_y0 - 2 ry + row0 + t; V row row0 + k sums
   * span[j][k .. k + 2 ry]. */
  const int first = box.inner_y0 - 2 * ry + row0;
  const int span_rows = COLUMN_ROWS + 2 * ry;

  for (int e = threadIdx.x; e < n * span_rows; e += SUM_THREADS) {
    const int j = e / span_rows, t = e % span_rows;
    const int yy = first + t;
    const bool inside = yy >= box.inner_y0 && yy < box.inner_y1;
    span[j][t] = load_pixel < Sample, C, NC > (gb_src_row < Sample >
        (plane, inside ? yy : box.inner_y0) + (size_t) (x0 + j) * C, inside);
  }
  for (int e = threadIdx.x; e < n * (ry + 1); e += SUM_THREADS) {
    const int j = e / (ry + 1), d = e % (ry + 1);
    taps[j][d] = __ldg (&level_kernel (regions, box.table,
            gb_region_level (class_x (regions, box, x0 + j), -1,
                regions.steps), 1)[d]);
  }
  __syncthreads ();

  const int total = strip_columns (box);
  float *v = regions.scratch + box.columns_offset;
  for (int e = threadIdx.x; e < n * COLUMN_ROWS; e += SUM_THREADS) {
    const int j = e / COLUMN_ROWS, k = e % COLUMN_ROWS;
    const int row = row0 + k;
    if (row >= box.columns_height)
      continue;
    const int centre = k + ry;
    float sum[NC];
    for (int c = 0; c < NC; c++)
      sum[c] = taps[j][0] * span[j][centre].v[c];
    for (int d = 1; d <= ry; d++)
      add_pair < NC > (sum, taps[j][d], span[j][centre - d],
          span[j][centre + d]);
    for (int c = 0; c < NC; c++)
      v[((size_t) c * total + j0 + j) * box.columns_height + row] = sum[c];
  }
}

/* How the sums' launch splits into blocks: first H's (chunks of 128
 * columns x groups of 4 rows x regions), then V's (chunks of 32 rows x
 * column groups x regions). */
struct SumBlocks
{
  int row_chunks, row_groups;
  int column_chunks;
  int n_regions;

  __host__ __device__ int rows () const
  {
    return row_chunks * row_groups * n_regions;
  }
  __host__ __device__ int columns () const
  {
    return column_chunks * COLUMN_GROUPS * n_regions;
  }
};

/* H and V in one launch: they are independent, and neither fills the GPU
 * alone. */
template < typename Sample, int C, bool NORM > __global__ void
__launch_bounds__ (SUM_THREADS)
regions_sums (GbDevicePlane plane, Regions regions, SumBlocks blocks)
{
  constexpr int NC = C + NORM;
  __shared__ union
  {
    RowStage < NC > rows;
    ColumnStage < NC > columns;
  } stage;
  int b = blockIdx.x;

  if (b < blocks.rows ()) {
    const int chunk = b % blocks.row_chunks;
    b /= blocks.row_chunks;
    sum_rows < Sample, C, NC > (plane, regions, b / blocks.row_groups,
        chunk, b % blocks.row_groups, stage.rows);
  } else {
    b -= blocks.rows ();
    const int chunk = b % blocks.column_chunks;
    b /= blocks.column_chunks;
    sum_columns < Sample, C, NC > (plane, regions, b / COLUMN_GROUPS, chunk,
        b % COLUMN_GROUPS, stage.columns);
  }
}

/* What an output block stages, one part of one region at a time. */
template < int NC > union OutputStage
{
  struct
  {
    Sums < NC > h[H_CHUNK][TILE_X];     /* [H row - base][output column] */
    float w[H_CHUNK][TILE_Y];   /* [H row - base][output row]: its weight */
  } rows;
  struct
  {
    Sums < NC > v[V_CHUNK][TILE_Y];     /* [strip column][output row] */
    float w[V_CHUNK][TILE_X];   /* [strip column][output column] */
  } columns;
  struct
  {
    Sums < NC > value[PIXEL_CHUNK];     /* a corner pixel's samples */
    float wx[PIXEL_CHUNK][TILE_X];      /* its weight per output column */
    float wy[PIXEL_CHUNK][TILE_Y];      /* ... and per output row */
    int x[PIXEL_CHUNK], y[PIXEL_CHUNK], level[PIXEL_CHUNK];
  } corners;
};

/* A thread's outputs: column threadIdx.x, rows threadIdx.y * OUTPUTS + k. */
template < int NC > using Outputs = float[OUTPUTS][NC];

/* acc[k] += weights[k] * value, weights the thread's OUTPUTS consecutive
 * rows of a [TILE_Y] array (two vector loads). */
template < int NC > __device__ __forceinline__ void
accumulate (Outputs < NC > &acc, const Sums < NC > &value,
    const float *weights)
{
  const float4 *w4 = (const float4 *) (weights + threadIdx.y * OUTPUTS);
  for (int q = 0; q < OUTPUTS / 4; q++) {
    const float4 w = w4[q];
    const float ws[4] = { w.x, w.y, w.z, w.w };
    for (int k = 0; k < 4; k++)
      for (int c = 0; c < NC; c++)
        acc[4 * q + k][c] += ws[k] * value.v[c];
  }
}

/* The H rows of a region's rectangle within the reach of the tile, summed
 * along y into its outputs, 32 rows at a time. */
template < int NC > __device__ void
add_rows (const Regions & regions, const GbRegionBox & box, int x0, int y0,
    OutputStage < NC > &stage, Outputs < NC > &acc)
{
  const int rx = regions.reach_x, ry = regions.reach_y;
  const int thread = threadIdx.y * TILE_X + threadIdx.x;
  const int rows = box.outer_y1 - box.outer_y0;
  const int first = max (box.outer_y0, y0 - ry);
  const int end = min (box.outer_y1, y0 + TILE_Y + ry);
  const int col = x0 + threadIdx.x - (box.inner_x0 - rx);
  const bool in_h = col >= 0 && col < box.rows_width;
  const size_t plane_floats = (size_t) rows * box.rows_width;
  const float *h = regions.scratch + box.rows_offset
      + (size_t) (in_h ? col : 0);
  const float *inside = level_kernel (regions, box.table, 0, 1);

  for (int base = first; base < end; base += H_CHUNK) {
    const int count = min (H_CHUNK, end - base);
    __syncthreads ();           /* the stage's last readers are done */
    for (int r = threadIdx.y; r < count; r += THREAD_ROWS) {
      Sums < NC > s = zero_sums < NC > ();
      if (in_h)
        for (int c = 0; c < NC; c++)
          s.v[c] = h[c * plane_floats + (size_t) (base + r - box.outer_y0)
              * box.rows_width];
      stage.rows.h[r][threadIdx.x] = s;
    }
    for (int e = thread; e < count * TILE_Y; e += TILE_THREADS) {
      const int r = e / TILE_Y, out_row = e % TILE_Y;
      const int yy = base + r;
      /* (most rows are the rectangle's own: level 0) */
      const float *kernel = yy >= box.inner_y0 && yy < box.inner_y1
          ? inside : level_kernel (regions, box.table, gb_region_level (-1,
              class_y (regions, box, yy), regions.steps), 1);
      stage.rows.w[r][out_row] = weight_at (kernel, y0 + out_row - yy, ry);
    }
    __syncthreads ();
    /* Only the rows within the reach of the thread's outputs: the same for
     * the whole warp (one thread row), about half of the staged ones. */
    const int own_first = y0 + threadIdx.y * OUTPUTS - ry - base;
    const int own_end = own_first + OUTPUTS + 2 * ry;
    for (int r = max (0, own_first); r < min (count, own_end); r++)
      accumulate < NC > (acc, stage.rows.h[r][threadIdx.x],
          stage.rows.w[r]);
  }
}

/* The V columns beside a region's rectangle, summed along x into the
 * tile's outputs, 16 columns at a time. */
template < int NC > __device__ void
add_columns (const Regions & regions, const GbRegionBox & box, int x0,
    int y0, OutputStage < NC > &stage, Outputs < NC > &acc)
{
  const int rx = regions.reach_x, ry = regions.reach_y;
  const int thread = threadIdx.y * TILE_X + threadIdx.x;
  const int n = strip_columns (box);
  const size_t plane_floats = (size_t) n * box.columns_height;
  const float *v = regions.scratch + box.columns_offset;

  for (int base = 0; base < n; base += V_CHUNK) {
    const int count = min (V_CHUNK, n - base);
    __syncthreads ();
    for (int e = thread; e < count * TILE_Y; e += TILE_THREADS) {
      const int j = e / TILE_Y, out_row = e % TILE_Y;
      const int row = y0 + out_row - (box.inner_y0 - ry);
      Sums < NC > s = zero_sums < NC > ();
      if (row >= 0 && row < box.columns_height)
        for (int c = 0; c < NC; c++)
          s.v[c] = v[c * plane_floats + (size_t) (base + j)
              * box.columns_height + row];
      stage.columns.v[j][out_row] = s;
    }
    for (int e = thread; e < count * TILE_X; e += TILE_THREADS) {
      const int j = e / TILE_X, out_col = e % TILE_X;
      const int xx = strip_column (box, base + j);
      const float *kernel = level_kernel (regions, box.table,
          gb_region_level (class_x (regions, box, xx), -1, regions.steps),
          0);
      stage.columns.w[j][out_col] = weight_at (kernel, x0 + out_col - xx,
          rx);
    }
    __syncthreads ();
    for (int j = 0; j < count; j++) {
      const float w = stage.columns.w[j][threadIdx.x];
      for (int k = 0; k < OUTPUTS; k++) {
        const Sums < NC > s = stage.columns.v[j][threadIdx.y * OUTPUTS + k];
        for (int c = 0; c < NC; c++)
          acc[k][c] += w * s.v[c];
      }
    }
  }
}

/* The pixels of one corner (columns [cx0, cx1) x rows [cy0, cy1)), each
 * with its own level, 32 at a time. */
template < typename Sample, int C, int NC > __device__ void
add_corner (const GbDevicePlane & plane, const Regions & regions,
    const GbRegionBox & box, int cx0, int cx1, int cy0, int cy1, int x0,
    int y0, OutputStage < NC > &stage, Outputs < NC > &acc)
{
  const int rx = regions.reach_x, ry = regions.reach_y;
  const int thread = threadIdx.y * TILE_X + threadIdx.x;
  const int width = cx1 - cx0, count = width * (cy1 - cy0);
  const float *level_sigma = regions.level_sigma
      + (size_t) box.table * regions.levels;

  for (int base = 0; base < count; base += PIXEL_CHUNK) {
    const int chunk = min (PIXEL_CHUNK, count - base);
    __syncthreads ();
    if (thread < chunk) {
      const int xx = cx0 + (base + thread) % width;
      const int yy = cy0 + (base + thread) / width;
      const int level = gb_region_level (class_x (regions, box, xx),
          class_y (regions, box, yy), regions.steps);
      /* A pixel of sigma 0 adds only itself (the caller's identity). */
      const bool spreads = level_sigma[level] > 0.0f;
      stage.corners.x[thread] = xx;
      stage.corners.y[thread] = yy;
      stage.corners.level[thread] = spreads ? level : -1;
      stage.corners.value[thread] = load_pixel < Sample, C, NC >
          (gb_src_row < Sample > (plane, yy) + (size_t) xx * C, spreads);
    }
    __syncthreads ();
    for (int e = thread; e < chunk * (TILE_X + TILE_Y); e += TILE_THREADS) {
      const int p = e / (TILE_X + TILE_Y), o = e % (TILE_X + TILE_Y);
      const int level = stage.corners.level[p];
      if (o < TILE_X)
        stage.corners.wx[p][o] = level < 0 ? 0.0f
            : weight_at (level_kernel (regions, box.table, level, 0),
            x0 + o - stage.corners.x[p], rx);
      else
        stage.corners.wy[p][o - TILE_X] = level < 0 ? 0.0f
            : weight_at (level_kernel (regions, box.table, level, 1),
            y0 + o - TILE_X - stage.corners.y[p], ry);
    }
    __syncthreads ();
    const int own_y = y0 + threadIdx.y * OUTPUTS;
    for (int p = 0; p < chunk; p++) {
      /* (a pixel out of the reach of the warp's rows adds nothing) */
      if (stage.corners.y[p] < own_y - ry
          || stage.corners.y[p] >= own_y + OUTPUTS + ry)
        continue;
      const float wx = stage.corners.wx[p][threadIdx.x];
      Sums < NC > value = stage.corners.value[p];
      for (int c = 0; c < NC; c++)
        value.v[c] *= wx;
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
  return ax0 < ax1 && ay0 < ay1 && ax0 - rx < x0 + TILE_X && ax1 + rx > x0
      && ay0 - ry < y0 + TILE_Y && ay1 + ry > y0;
}

/* Copies the tile's pixels, in the widest unit that the rows' alignment
 * allows. */
template < typename Sample, int C > __device__ void
copy_tile (const GbDevicePlane & plane, int x0, int y0)
{
  const int rows = min (TILE_Y, plane.height - y0);
  const size_t bytes = (size_t) min (TILE_X, plane.width - x0) * C
      * sizeof (Sample);
  const size_t offset = (size_t) x0 * C * sizeof (Sample);
  const char *src = (const char *) plane.src + (size_t) y0 * plane.src_pitch
      + offset;
  char *dst = (char *) plane.dst + (size_t) y0 * plane.dst_pitch + offset;
  const size_t alignment = (size_t) src | (size_t) dst | plane.src_pitch
      | plane.dst_pitch | bytes;
  const int thread = threadIdx.y * TILE_X + threadIdx.x;

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
__launch_bounds__ (TILE_THREADS, 4)
regions_outputs (GbDevicePlane plane, Regions regions)
{
  constexpr int NC = C + NORM;
  __shared__ OutputStage < NC > stage;
  __shared__ unsigned reaching[GB_REGIONS_MAX / 32];
  const int x0 = blockIdx.x * TILE_X, y0 = blockIdx.y * TILE_Y;
  const int thread = threadIdx.y * TILE_X + threadIdx.x;
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
  const int out_y0 = y0 + threadIdx.y * OUTPUTS;
  Outputs < NC > acc;
  unsigned sigma_zero = (1u << OUTPUTS) - 1;    /* bit k: output k */
  for (int k = 0; k < OUTPUTS; k++)
    for (int c = 0; c < NC; c++)
      acc[k][c] = 0.0f;
  for (int r = 0; r < regions.n_regions; r++) {
    if (!(reaching[r / 32] >> (r % 32) & 1u))
      continue;
    const GbRegionBox box = regions.boxes[r];
    const float *level_sigma = regions.level_sigma
        + (size_t) box.table * regions.levels;
    if (x >= box.outer_x0 && x < box.outer_x1) {
      const int cx = class_x (regions, box, x);
      for (int k = 0; k < OUTPUTS; k++) {
        const int y = out_y0 + k;
        if (y >= box.outer_y0 && y < box.outer_y1) {
          const int level = gb_region_level (cx, class_y (regions, box, y),
              regions.steps);
          if (level <= regions.steps || level_sigma[level] > 0.0f)
            sigma_zero &= ~(1u << k);
        }
      }
    }
    if (box.rows_width > 0 && reaches_tile (box.inner_x0, box.inner_x1,
            box.outer_y0, box.outer_y1, rx, ry, x0, y0))
      add_rows < NC > (regions, box, x0, y0, stage, acc);
    if (box.columns_height > 0 && strip_columns (box) > 0
        && reaches_tile (box.outer_x0, box.outer_x1, box.inner_y0,
            box.inner_y1, rx, ry, x0, y0))
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
    const int y = out_y0 + k;
    if (y >= plane.height)
      break;
    const Sample *in = gb_src_row < Sample > (plane, y) + (size_t) x * C;
    Sample *out = gb_dst_row < Sample > (plane, y) + (size_t) x * C;
    if (sigma_zero >> k & 1u) {
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
  SumBlocks blocks;
  blocks.row_chunks = (max_rows_width + ROW_CHUNK - 1) / ROW_CHUNK;
  blocks.row_groups = (max_rows + ROW_LINES - 1) / ROW_LINES;
  blocks.column_chunks = (max_columns_height + COLUMN_ROWS - 1)
      / COLUMN_ROWS;
  blocks.n_regions = regions.n_regions;
  if (blocks.rows () + blocks.columns () > 0)
    regions_sums < Sample, C, NORM > <<<blocks.rows () + blocks.columns (),
        SUM_THREADS, 0, stream>>> (plane, regions, blocks);
  regions_outputs < Sample, C, NORM > <<<dim3 ((plane.width + TILE_X - 1)
          / TILE_X, (plane.height + TILE_Y - 1) / TILE_Y), dim3 (TILE_X,
          TILE_Y / OUTPUTS), 0, stream>>> (plane, regions);
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

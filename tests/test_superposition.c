/* The kernel superposition's CPU reference (cuda/superposition.c), against
 * references of its own.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Gather and scatter are checked against each other (bit for bit), against
 * seed 003's Eq. 2a and Eq. 4 evaluated here in long double (the printed
 * erf difference, the test's own border rule, cut-off and clamp: nothing
 * from superposition.c), against a direct 2D convolution where sigma is
 * constant, and against the core's uniform blur (gb_blur_*, GB_ALGORITHM_
 * SEPARABLE), which samples the Gaussian where Eq. 4 integrates it. Then
 * the properties of docs/algorithms.md section 12: identity, constants,
 * mass, locality, in place, invalid arguments.
 *
 * Plain C, no GStreamer. Prints one line per group (and the measured
 * numbers the documentation quotes); exits 0 when all pass. Images stay
 * small: the test also runs under valgrind.
 */
#include "superposition.h"
#include "check_groups.h"
#include "plane_image.h"
#include "gaussblur.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Row padding of sigma maps, in floats (images: plane_image.h). */
#define MAP_PADDING 3
#define N_ELEMENTS(array) ((int) (sizeof (array) / sizeof ((array)[0])))

static const GbBorder all_borders[] = {
  GB_BORDER_CLAMP, GB_BORDER_MIRROR, GB_BORDER_ZERO
};

static const GbSuperpositionMethod both_methods[] = {
  GB_SUPERPOSITION_GATHER, GB_SUPERPOSITION_SCATTER
};

/* --- images and maps --- */


static unsigned
top (const Image * image)
{
  return image->bytes == 1 ? 255u : 65535u;
}

static Image
image_noise (int width, int height, int channels, int bytes, uint64_t seed)
{
  Image image = image_new (width, height, channels, bytes);
  int x, y, c;

  random_seed (seed);
  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++)
      for (c = 0; c < channels; c++)
        set (&image, x, y, c, bytes == 1 ? random_byte ()
            : (unsigned) random_byte () << 8 | random_byte ());
  return image;
}

static Image
image_constant (int width, int height, int channels, int bytes,
    unsigned value)
{
  Image image = image_new (width, height, channels, bytes);
  int x, y, c;

  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++)
      for (c = 0; c < channels; c++)
        set (&image, x, y, c, value + 13 * c);
  return image;
}

typedef struct
{
  int width, height;
  size_t stride;                /* floats */
  float *sigma;
} Map;

static Map
map_new (int width, int height, double sigma)
{
  Map map = { width, height, (size_t) width + MAP_PADDING, NULL };
  size_t i;

  map.sigma = malloc (sizeof (float) * map.stride * height);
  for (i = 0; i < map.stride * height; i++)
    map.sigma[i] = (float) sigma;
  return map;
}

static float *
at (Map * map, int x, int y)
{
  return &map->sigma[(size_t) y * map->stride + x];
}

static double
random_unit (void)
{
  return (random_byte () * 256.0 + random_byte ()) / 65536.0;
}

/* Random sigma in [0, 1.25 rmax / 3) (a fifth of them above the clamp), an
 * eighth of the pixels 0. */
static Map
map_random (int width, int height, int rmax, uint64_t seed)
{
  Map map = map_new (width, height, 0.0);
  int x, y;

  random_seed (seed);
  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++)
      *at (&map, x, y) = random_byte () % 8 == 0 ? 0.0f
          : (float) (1.25 * rmax / 3.0 * random_unit ());
  return map;
}

static void
map_free (Map * map)
{
  free (map->sigma);
  map->sigma = NULL;
}

static GbPlaneGeometry
plane_of (const Image * image)
{
  GbPlaneGeometry plane = { image->width, image->height, image->channels, 1,
    1, 0
  };
  return plane;
}

static GbStatus
superpose (GbSuperpositionMethod method, const Image * src, const Map * map,
    int rmax, GbBorder border, Image * dst)
{
  GbPlaneGeometry plane = plane_of (src);
  GbError error;
  GbStatus status;

  status = gb_superposition_cpu (method, &plane, src->bytes, map->sigma,
      map->stride, rmax, border, src->data, src->stride, dst->data,
      dst->stride, &error);
  check (status == GB_OK, "gb_superposition_cpu (%s, %dx%dx%d, rmax %d, %s): "
      "%s", gb_superposition_method_name (method), src->width, src->height,
      src->channels, rmax, gb_border_name (border),
      status == GB_OK ? "" : error.message);
  return status;
}

/* The unrounded sums, width * height * channels doubles; NULL on failure. */
static double *
superpose_sums (GbSuperpositionMethod method, const Image * src,
    const Map * map, int rmax, GbBorder border)
{
  GbPlaneGeometry plane = plane_of (src);
  double *sums = malloc (sizeof (double) * src->width * src->height
      * src->channels);
  GbError error;
  GbStatus status;

  status = gb_superposition_cpu_sums (method, &plane, src->bytes, map->sigma,
      map->stride, rmax, border, src->data, src->stride, sums, &error);
  check (status == GB_OK, "gb_superposition_cpu_sums (%s, %dx%dx%d, rmax %d, "
      "%s): %s", gb_superposition_method_name (method), src->width,
      src->height, src->channels, rmax, gb_border_name (border),
      status == GB_OK ? "" : error.message);
  if (status != GB_OK) {
    free (sums);
    return NULL;
  }
  return sums;
}


/* --- seed 003's equations, here --- */


/* Eq. 4 as printed, 0.5 [erf((k + 1/2) / (sqrt(2) s)) - erf((k - 1/2) /
 * (sqrt(2) s))], for k = 0 .. r: s = sigma clamped to rmax / 3, r =
 * ceil(3 sigma) capped at rmax, normalised over -r .. r. Returns r. */
static int
reference_kernel (double sigma, int rmax, long double *kernel)
{
  const long double s = sigma < rmax / 3.0L ? (long double) sigma
      : rmax / 3.0L;
  long double sum = 0.0L;
  int r, k;

  if (sigma == 0.0) {
    kernel[0] = 1.0L;
    return 0;
  }
  r = 3.0L * sigma >= rmax ? rmax : (int) ceill (3.0L * sigma);
  for (k = 0; k <= r; k++) {
    kernel[k] = 0.5L * (erfl ((k + 0.5L) / (sqrtl (2.0L) * s))
        - erfl ((k - 0.5L) / (sqrtl (2.0L) * s)));
    sum += k == 0 ? kernel[k] : 2.0L * kernel[k];
  }
  for (k = 0; k <= r; k++)
    kernel[k] /= sum;
  return r;
}

/* Eq. 2a with Eq. 3b: every pixel of the plane extended by rmax (by the
 * test's border rule) adds its sample times its kernel to every output
 * within its radius. out: width * height * channels long doubles. */
static void
reference_superposition (const Image * src, const Map * map, int rmax,
    GbBorder border, long double *out)
{
  long double kernel[GB_SUPERPOSITION_MAX_RADIUS + 1];
  int xs, ys, x, y, c;

  memset (out, 0, sizeof (long double) * src->width * src->height
      * src->channels);
  for (ys = -rmax; ys < src->height + rmax; ys++)
    for (xs = -rmax; xs < src->width + rmax; xs++) {
      const int sx = reference_source (xs, src->width, border);
      const int sy = reference_source (ys, src->height, border);
      int r;
      if (sx < 0 || sy < 0)
        continue;
      r = reference_kernel (map->sigma[(size_t) sy * map->stride + sx], rmax,
          kernel);
      for (y = 0; y < src->height; y++)
        for (x = 0; x < src->width; x++)
          if (abs (x - xs) <= r && abs (y - ys) <= r)
            for (c = 0; c < src->channels; c++)
              out[((size_t) y * src->width + x) * src->channels + c] +=
                  get (src, sx, sy, c) * kernel[abs (x - xs)]
                  * kernel[abs (y - ys)];
    }
}

/* Constant sigma: the plain 2D convolution with the separable kernel,
 * out(x, y) = sum_{dx, dy} K(dx) K(dy) in~(x - dx, y - dy). */
static void
reference_convolution (const Image * src, double sigma, int rmax,
    GbBorder border, long double *out)
{
  long double kernel[GB_SUPERPOSITION_MAX_RADIUS + 1];
  const int r = reference_kernel (sigma, rmax, kernel);
  int x, y, dx, dy, c;

  for (y = 0; y < src->height; y++)
    for (x = 0; x < src->width; x++)
      for (c = 0; c < src->channels; c++) {
        long double sum = 0.0L;
        for (dy = -r; dy <= r; dy++)
          for (dx = -r; dx <= r; dx++) {
            const int sx = reference_source (x - dx, src->width, border);
            const int sy = reference_source (y - dy, src->height, border);
            if (sx >= 0 && sy >= 0)
              sum += kernel[abs (dx)] * kernel[abs (dy)] * get (src, sx, sy,
                  c);
          }
        out[((size_t) y * src->width + x) * src->channels + c] = sum;
      }
}

/* Rounds the reference (half up, saturated) into an image. */
static Image
reference_image (const Image * like, const long double *values)
{
  Image image = image_new (like->width, like->height, like->channels,
      like->bytes);
  int x, y, c;

  for (y = 0; y < like->height; y++)
    for (x = 0; x < like->width; x++)
      for (c = 0; c < like->channels; c++) {
        long double v = floorl (values[((size_t) y * like->width + x)
                * like->channels + c] + 0.5L);
        set (&image, x, y, c, (unsigned) (v < 0 ? 0 : v > top (like)
                ? top (like) : v));
      }
  return image;
}

/* The core's uniform blur: separable, sampled Gaussian; radius 0: the
 * automatic one, ceil(3.5 sigma). */
static void
uniform_blur (const Image * src, Image * dst, double sigma, int radius,
    GbBorder border)
{
  const GbParams params = gb_params_make (sigma, radius,
      GB_ALGORITHM_SEPARABLE, border);
  image_blur_cpu (src, dst, &params);
}

/* --- the groups --- */

static void
test_kernel (void)
{
  static const double sigmas[] = { 0.0, 1e-30, 1e-6, 0.1, 1.0 / 3.0, 0.34,
    0.5, 1.0, 2.7, 5.0, 10.0, 32.0 / 3.0, 11.0, 100.0, 1e30
  };
  static const int rmaxes[] = { 1, 3, 8, 32 };
  double weights[GB_SUPERPOSITION_MAX_RADIUS + 1];
  long double expected[GB_SUPERPOSITION_MAX_RADIUS + 1];
  double worst = 0.0;
  int s, m, k;

  group_begin ("kernel (Eq. 4)");
  for (s = 0; s < N_ELEMENTS (sigmas); s++)
    for (m = 0; m < N_ELEMENTS (rmaxes); m++) {
      const double sigma = sigmas[s];
      const int rmax = rmaxes[m];
      const int r = gb_superposition_kernel (sigma, rmax, weights);
      const int r_expected = reference_kernel (sigma, rmax, expected);
      double sum = weights[0];
      check (r == r_expected && r == gb_superposition_radius (sigma, rmax)
          && r <= rmax, "sigma %g, rmax %d: radius %d, not %d", sigma, rmax,
          r, r_expected);
      check (gb_superposition_sigma (sigma, rmax) == fmin (sigma, rmax / 3.0),
          "sigma %g, rmax %d: clamped to %g", sigma, rmax,
          gb_superposition_sigma (sigma, rmax));
      if (r != r_expected)
        continue;
      for (k = 0; k <= r; k++) {
        const double d = fabs (weights[k] - (double) expected[k]);
        worst = d > worst ? d : worst;
        check (d < 1e-15, "sigma %g, rmax %d: K(%d) = %.17g, not %.17Lg",
            sigma, rmax, k, weights[k], expected[k]);
        if (k > 0) {
          sum += 2.0 * weights[k];
          check (weights[k] <= weights[k - 1], "sigma %g, rmax %d: K(%d) > "
              "K(%d)", sigma, rmax, k, k - 1);
        }
      }
      check (fabs (sum - 1.0) < 1e-15, "sigma %g, rmax %d: sums to %.17g",
          sigma, rmax, sum);
    }
  printf ("     largest difference from the long double kernel %.2g\n",
      worst);
  group_end ();
}

/* The cases of the gather / scatter / Eq. 2a groups: every size, rmax and
 * border; channels and sample size cycle so that each pair occurs. */
static const int case_sizes[][2] = { {1, 1}, {7, 3}, {3, 7}, {13, 11},
{24, 17}
};
static const int case_rmaxes[] = { 1, 3, 8, 32 };

#define N_CASES (N_ELEMENTS (case_sizes) * N_ELEMENTS (case_rmaxes) \
    * N_ELEMENTS (all_borders))

typedef struct
{
  Image src;
  Map map;
  int rmax;
  GbBorder border;
} Case;

static Case
case_make (int t)
{
  const int z = t % N_ELEMENTS (case_sizes);
  const int m = t / N_ELEMENTS (case_sizes) % N_ELEMENTS (case_rmaxes);
  const int b = t / (N_ELEMENTS (case_sizes) * N_ELEMENTS (case_rmaxes));
  Case c;

  c.rmax = case_rmaxes[m];
  c.border = all_borders[b];
  c.src = image_noise (case_sizes[z][0], case_sizes[z][1], 1 + t % 4,
      1 + t / 4 % 2, 200 + t);
  c.map = map_random (case_sizes[z][0], case_sizes[z][1], c.rmax, 300 + t);
  return c;
}

static void
case_free (Case * c)
{
  image_free (&c->src);
  map_free (&c->map);
}

static void
test_gather_scatter (void)
{
  int t;

  group_begin ("gather equals scatter");
  for (t = 0; t < N_CASES; t++) {
    Case c = case_make (t);
    const size_t n = (size_t) c.src.width * c.src.height * c.src.channels;
    double *gathered = superpose_sums (GB_SUPERPOSITION_GATHER, &c.src,
        &c.map, c.rmax, c.border);
    double *scattered = superpose_sums (GB_SUPERPOSITION_SCATTER, &c.src,
        &c.map, c.rmax, c.border);
    Image a = image_new (c.src.width, c.src.height, c.src.channels,
        c.src.bytes);
    Image b = image_new (c.src.width, c.src.height, c.src.channels,
        c.src.bytes);
    if (gathered && scattered) {
      size_t i, differing = 0;
      for (i = 0; i < n; i++)
        differing += gathered[i] != scattered[i];
      check (differing == 0, "%dx%dx%d %d-bit, rmax %d, %s: %zu sums differ",
          c.src.width, c.src.height, c.src.channels, 8 * c.src.bytes, c.rmax,
          gb_border_name (c.border), differing);
    }
    if (superpose (GB_SUPERPOSITION_GATHER, &c.src, &c.map, c.rmax, c.border,
            &a) == GB_OK
        && superpose (GB_SUPERPOSITION_SCATTER, &c.src, &c.map, c.rmax,
            c.border, &b) == GB_OK)
      check (max_difference (&a, &b, NULL) == 0, "%dx%dx%d %d-bit, rmax %d, "
          "%s: the rounded outputs differ", c.src.width, c.src.height,
          c.src.channels, 8 * c.src.bytes, c.rmax, gb_border_name (c.border));
    free (gathered);
    free (scattered);
    image_free (&a);
    image_free (&b);
    case_free (&c);
  }
  group_end ();
}

/* Against Eq. 2a in long double: the sums within 1e-10 of the sample range
 * (double against long double over at most 65^2 terms), the rounded
 * outputs within 1 (a sum within that of a half may round either way). */
static void
test_equations (void)
{
  double worst = 0.0;
  long differing_all[2] = { 0, 0 }, samples_all[2] = { 0, 0 };
  int t, worst_rounded = 0;

  group_begin ("seed 003 Eq. 2a, 3b, 4");
  for (t = 0; t < N_CASES; t++) {
    Case c = case_make (t);
    const size_t n = (size_t) c.src.width * c.src.height * c.src.channels;
    long double *expected = malloc (sizeof (long double) * n);
    double *sums = superpose_sums (GB_SUPERPOSITION_SCATTER, &c.src, &c.map,
        c.rmax, c.border);
    Image got = image_new (c.src.width, c.src.height, c.src.channels,
        c.src.bytes);
    Image rounded;
    double local = 0.0;
    size_t i;
    int differing, d;

    reference_superposition (&c.src, &c.map, c.rmax, c.border, expected);
    rounded = reference_image (&c.src, expected);
    if (sums) {
      for (i = 0; i < n; i++) {
        double e = fabs ((double) (sums[i] - expected[i]));
        local = e > local ? e : local;
      }
      check (local <= 1e-10 * top (&c.src), "%dx%dx%d %d-bit, rmax %d, %s: "
          "sums %.3g off", c.src.width, c.src.height, c.src.channels,
          8 * c.src.bytes, c.rmax, gb_border_name (c.border), local);
      local /= top (&c.src);
      worst = local > worst ? local : worst;
    }
    if (superpose (GB_SUPERPOSITION_GATHER, &c.src, &c.map, c.rmax, c.border,
            &got) == GB_OK) {
      d = max_difference (&got, &rounded, &differing);
      check (d <= 1, "%dx%dx%d %d-bit, rmax %d, %s: %d off",
          c.src.width, c.src.height, c.src.channels, 8 * c.src.bytes, c.rmax,
          gb_border_name (c.border), d);
      worst_rounded = d > worst_rounded ? d : worst_rounded;
      differing_all[c.src.bytes - 1] += differing;
      samples_all[c.src.bytes - 1] += (long) n;
    }
    free (expected);
    free (sums);
    image_free (&got);
    image_free (&rounded);
    case_free (&c);
  }
  printf ("     sums within %.2g of the range; rounded: %d off at most, in "
      "%ld of %ld 8-bit and %ld of %ld 16-bit samples\n", worst,
      worst_rounded, differing_all[0], samples_all[0], differing_all[1],
      samples_all[1]);
  group_end ();
}

/* Constant sigma is a convolution: the direct 2D sum of the test. rmax
 * beyond ceil(3 sigma) changes nothing (bit for bit); sigma above rmax / 3
 * is the convolution of rmax / 3. */
static void
test_constant_sigma (void)
{
  static const double sigmas[] = { 0.3, 0.5, 1.0, 2.0, 3.5, 6.0, 10.0 };
  int s, b, bytes, worst = 0;

  group_begin ("constant sigma: 2D convolution");
  for (s = 0; s < N_ELEMENTS (sigmas); s++)
    for (b = 0; b < N_ELEMENTS (all_borders); b++)
      for (bytes = 1; bytes <= 2; bytes++) {
        const int rmax = (int) ceil (3.0 * sigmas[s]);
        Image src = image_noise (23, 19, 3, bytes, 400 + s);
        Map map = map_new (23, 19, sigmas[s]);
        Map above = map_new (23, 19, sigmas[s] * 1.7);
        long double *expected = malloc (sizeof (long double) * 23 * 19 * 3);
        Image rounded, got = image_new (23, 19, 3, bytes);
        Image wide = image_new (23, 19, 3, bytes);
        Image clamped = image_new (23, 19, 3, bytes);
        int d;

        reference_convolution (&src, sigmas[s], rmax, all_borders[b],
            expected);
        rounded = reference_image (&src, expected);
        if (superpose (GB_SUPERPOSITION_SCATTER, &src, &map, rmax,
                all_borders[b], &got) == GB_OK) {
          d = max_difference (&got, &rounded, NULL);
          check (d <= 1, "sigma %g, %s, %d-bit: %d off the convolution",
              sigmas[s], gb_border_name (all_borders[b]), 8 * bytes, d);
          worst = d > worst ? d : worst;
        }
        if (superpose (GB_SUPERPOSITION_GATHER, &src, &map,
                GB_SUPERPOSITION_MAX_RADIUS, all_borders[b], &wide) == GB_OK)
          check (max_difference (&got, &wide, NULL) == 0, "sigma %g, %s: "
              "rmax %d differs from rmax %d", sigmas[s],
              gb_border_name (all_borders[b]), GB_SUPERPOSITION_MAX_RADIUS,
              rmax);
        reference_convolution (&src, sigmas[s] * 1.7, rmax, all_borders[b],
            expected);
        image_free (&rounded);
        rounded = reference_image (&src, expected);
        if (superpose (GB_SUPERPOSITION_GATHER, &src, &above, rmax,
                all_borders[b], &clamped) == GB_OK) {
          d = max_difference (&clamped, &rounded, NULL);
          check (d <= 1, "sigma %g at rmax %d, %s, %d-bit: %d off the "
              "convolution of sigma %d / 3", sigmas[s] * 1.7, rmax,
              gb_border_name (all_borders[b]), 8 * bytes, d, rmax);
          worst = d > worst ? d : worst;
        }
        free (expected);
        image_free (&src);
        image_free (&got);
        image_free (&wide);
        image_free (&clamped);
        image_free (&rounded);
        map_free (&map);
        map_free (&above);
      }
  printf ("     largest difference %d\n", worst);
  group_end ();
}

/* Constant sigma against the core's uniform blur of the same sigma, radius
 * ceil(3 sigma) (the same truncation and normalisation) and the automatic
 * one: the Gaussian sampled at the integers, where Eq. 4 integrates it
 * over the pixel (about a Gaussian of variance sigma^2 + 1/12). Noise, the
 * input most sensitive to the kernel's shape; within 1 from sigma 2 on
 * (measured; the smaller sigmas are printed for the documentation). */
static void
test_uniform_blur (void)
{
  static const double sigmas[] = { 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0 };
  int s, b, bytes;

  group_begin ("constant sigma: uniform blur");
  printf ("     max |superposition - separable|, 8-bit (16-bit / 257)\n"
      "     sigma  radius ceil(3 sigma)  automatic radius\n");
  for (s = 0; s < N_ELEMENTS (sigmas); s++) {
    int worst[2][2] = { {0, 0}, {0, 0} };       /* [automatic][bytes - 1] */
    int a;
    for (bytes = 1; bytes <= 2; bytes++)
      for (b = 0; b < N_ELEMENTS (all_borders); b++) {
        const int rmax = (int) ceil (3.0 * sigmas[s]);
        Image src = image_noise (64, 48, 3, bytes, 500 + s);
        Map map = map_new (64, 48, sigmas[s]);
        Image got = image_new (64, 48, 3, bytes);
        Image expected = image_new (64, 48, 3, bytes);
        int d;

        if (superpose (GB_SUPERPOSITION_SCATTER, &src, &map, rmax,
                all_borders[b], &got) == GB_OK)
          for (a = 0; a < 2; a++) {
            uniform_blur (&src, &expected, sigmas[s], a ? 0 : rmax,
                all_borders[b]);
            d = max_difference (&got, &expected, NULL);
            worst[a][bytes - 1] = d > worst[a][bytes - 1] ? d
                : worst[a][bytes - 1];
            if (sigmas[s] >= 2.0)
              check (d <= (bytes == 1 ? 1 : 257), "sigma %g, %s, %d-bit, "
                  "radius %s: %d off the uniform blur", sigmas[s],
                  gb_border_name (all_borders[b]), 8 * bytes,
                  a ? "automatic" : "ceil(3 sigma)", d);
          }
        image_free (&src);
        image_free (&got);
        image_free (&expected);
        map_free (&map);
      }
    printf ("     %5g  %9d (%6.2f)  %9d (%6.2f)\n", sigmas[s], worst[0][0],
        worst[0][1] / 257.0, worst[1][0], worst[1][1] / 257.0);
  }
  group_end ();
}

/* Sigma 0 is the identity; a constant image stays constant under a
 * constant sigma (at every pixel for clamp and mirror, at least ceil(3
 * sigma) from the frame's edge for zero, whose edge pixels lose weight to
 * the zeros beyond). */
static void
test_identity_constant (void)
{
  static const double sigmas[] = { 0.4, 1.3, 2.0, 50.0 };
  int z, bytes, b, m, s, x, y, c;

  group_begin ("identity, constant image");
  for (z = 0; z < N_ELEMENTS (case_sizes); z++)
    for (bytes = 1; bytes <= 2; bytes++)
      for (b = 0; b < N_ELEMENTS (all_borders); b++)
        for (m = 0; m < 2; m++) {
          const int width = case_sizes[z][0], height = case_sizes[z][1];
          const int channels = 1 + (z + b) % 4;
          Image src = image_noise (width, height, channels, bytes, 600 + z);
          Image got = image_new (width, height, channels, bytes);
          Map zero = map_new (width, height, 0.0);
          if (superpose (both_methods[m], &src, &zero, 5, all_borders[b],
                  &got) == GB_OK)
            check (max_difference (&src, &got, NULL) == 0, "%dx%dx%d %d-bit, "
                "%s, %s: sigma 0 is not the identity", width, height, channels,
                8 * bytes, gb_border_name (all_borders[b]),
                gb_superposition_method_name (both_methods[m]));
          image_free (&src);
          map_free (&zero);
          for (s = 0; s < N_ELEMENTS (sigmas); s++) {
            const int rmax = 6;
            const int r = gb_superposition_radius (sigmas[s], rmax);
            Image flat = image_constant (width, height, channels, bytes,
                bytes == 1 ? 97 : 40000);
            Map map = map_new (width, height, sigmas[s]);
            int changed = 0;
            if (superpose (both_methods[m], &flat, &map, rmax, all_borders[b],
                    &got) == GB_OK) {
              for (y = 0; y < height; y++)
                for (x = 0; x < width; x++)
                  for (c = 0; c < channels; c++)
                    changed += get (&got, x, y, c) != get (&flat, x, y, c)
                        && (all_borders[b] != GB_BORDER_ZERO
                        || (x >= r && y >= r && x < width - r
                            && y < height - r));
              check (changed == 0, "%dx%dx%d %d-bit, sigma %g, %s, %s: %d "
                  "samples changed", width, height, channels, 8 * bytes,
                  sigmas[s], gb_border_name (all_borders[b]),
                  gb_superposition_method_name (both_methods[m]), changed);
            }
            image_free (&flat);
            map_free (&map);
          }
          image_free (&got);
        }
  group_end ();
}

/* Where sigma varies, a constant image does not stay constant: a pixel
 * beside a blurred area keeps its own value and receives what the area
 * spreads onto it. Pixels whose (2 rmax + 1)^2 window has one sigma do
 * stay constant. A map of columns: sigma 0 on the left, s on the right,
 * with a linear ramp of `feather` columns between (0: a hard edge); the
 * extremes are printed for the documentation. */
static void
test_varying_sigma (void)
{
  static const int feathers[] = { 0, 4, 8, 16 };
  const int width = 72, height = 9, rmax = 15, value = 100;
  const double s = 5.0;
  int f, b, x, y;

  group_begin ("constant image, varying sigma");
  printf ("     sigma 0 | 5, value 100: feather  lowest  highest\n");
  for (f = 0; f < N_ELEMENTS (feathers); f++)
    for (b = 0; b < 2; b++) {
      const int start = 24, end = start + feathers[f];
      Image flat = image_constant (width, height, 1, 1, value);
      Image got = image_new (width, height, 1, 1);
      Map map = map_new (width, height, 0.0);
      int lowest = 255, highest = 0, uniform_changed = 0;
      for (y = 0; y < height; y++)
        for (x = 0; x < width; x++)
          *at (&map, x, y) = x < start ? 0.0f : x >= end ? (float) s
              : (float) (s * (x - start + 0.5) / feathers[f]);
      if (superpose (GB_SUPERPOSITION_SCATTER, &flat, &map, rmax,
              all_borders[b], &got) == GB_OK) {
        for (y = 0; y < height; y++)
          for (x = 0; x < width; x++) {
            const int v = (int) get (&got, x, y, 0);
            lowest = v < lowest ? v : lowest;
            highest = v > highest ? v : highest;
            /* The window x - rmax .. x + rmax within one sigma. */
            if (x + rmax < start || x - rmax >= end)
              uniform_changed += v != value;
          }
        check (uniform_changed == 0, "feather %d, %s: %d pixels of uniform "
            "sigma changed", feathers[f], gb_border_name (all_borders[b]),
            uniform_changed);
        /* The hard edge: the first sharp pixel takes about half of what
         * its blurred neighbour spreads. */
        check (feathers[f] > 0 || highest > value, "hard edge, %s: no halo "
            "(highest %d)", gb_border_name (all_borders[b]), highest);
        if (b == 0)
          printf ("     %28d  %6d  %7d\n", feathers[f], lowest, highest);
      }
      image_free (&flat);
      image_free (&got);
      map_free (&map);
    }
  group_end ();
}

/* The normalised superposition: each output is its sums over the weight
 * that reaches it, so a constant image stays constant wherever sigma
 * changes (halo-free region edges), the sums divided by those of a plane of
 * ones, pixel by pixel; where sigma is uniform within rmax the weight is 1
 * and it is the plain superposition; gather and scatter agree. */
static void
test_normalized (void)
{
  static const int feathers[] = { 0, 4, 16 };
  const int width = 72, height = 21, rmax = 15, value = 100;
  int f, b, x, y, c;

  group_begin ("normalized superposition");
  for (f = 0; f < N_ELEMENTS (feathers); f++)
    for (b = 0; b < 3; b++) {
      const int start = 24, end = start + feathers[f];
      Image flat = image_constant (width, height, 3, 1, value);
      Image random = image_noise (width, height, 3, 1, 7u + f);
      Image got = image_new (width, height, 3, 1);
      Image plain = image_new (width, height, 3, 1);
      Image scattered = image_new (width, height, 3, 1);
      Map map = map_new (width, height, 0.0);
      GbPlaneGeometry plane = plane_of (&flat);
      GbError error;
      int changed = 0, unlike_plain = 0, unlike_scatter = 0, ok;
      double worst = 0.0;
      double *sums, *ones;
      for (y = 0; y < height; y++)
        for (x = 0; x < width; x++)
          *at (&map, x, y) = x < start ? 0.0f : x >= end ? 5.0f
              : (float) (5.0 * (x - start + 0.5) / feathers[f]);
      ok = gb_superposition_cpu_normalized (GB_SUPERPOSITION_GATHER, &plane,
          1, map.sigma, map.stride, rmax, all_borders[b], flat.data,
          flat.stride, got.data, got.stride, &error) == GB_OK;
      check (ok, "normalized: %s", error.message);
      for (y = 0; ok && y < height; y++)
        for (x = 0; x < width; x++)
          for (c = 0; c < 3; c++)
            changed += (int) get (&got, x, y, c) != value + 13 * c;
      check (changed == 0, "feather %d, %s: %d samples of a constant image "
          "changed", feathers[f], gb_border_name (all_borders[b]), changed);

      /* A random image: plain where sigma is uniform within rmax; the
       * sums over the weights (those of ones) everywhere, within
       * rounding; scatter = gather. */
      ok = gb_superposition_cpu_normalized (GB_SUPERPOSITION_GATHER, &plane,
          1, map.sigma, map.stride, rmax, all_borders[b], random.data,
          random.stride, got.data, got.stride, &error) == GB_OK
          && gb_superposition_cpu_normalized (GB_SUPERPOSITION_SCATTER,
          &plane, 1, map.sigma, map.stride, rmax, all_borders[b],
          random.data, random.stride, scattered.data, scattered.stride,
          &error) == GB_OK
          && superpose (GB_SUPERPOSITION_GATHER, &random, &map, rmax,
          all_borders[b], &plain) == GB_OK;
      check (ok, "normalized random: %s", error.message);
      sums = ok ? superpose_sums (GB_SUPERPOSITION_GATHER, &random, &map,
          rmax, all_borders[b]) : NULL;
      ones = ok ? superpose_sums (GB_SUPERPOSITION_GATHER, &flat, &map, rmax,
          all_borders[b]) : NULL;
      for (y = 0; sums && ones && y < height; y++)
        for (x = 0; x < width; x++)
          for (c = 0; c < 3; c++) {
            const size_t i = ((size_t) y * width + x) * 3 + c;
            /* flat's sums are its value x the weight */
            const double expected = sums[i] / (ones[i] / (value + 13 * c));
            const double d = fabs (get (&got, x, y, c) - expected);
            worst = d > worst ? d : worst;
            unlike_scatter += get (&got, x, y, c) != get (&scattered, x, y,
                c);
            /* (under the zero border, the weight that the frame's edge
             * cuts off is made up: no dark edge) */
            if ((x + rmax < start || x - rmax >= end)
                && all_borders[b] != GB_BORDER_ZERO)
              unlike_plain += get (&got, x, y, c) != get (&plain, x, y, c);
          }
      check (worst <= 0.5 + 1e-6, "feather %d, %s: %g from sums / weights",
          feathers[f], gb_border_name (all_borders[b]), worst);
      check (unlike_plain == 0, "feather %d, %s: %d samples of uniform sigma "
          "differ from the plain superposition", feathers[f],
          gb_border_name (all_borders[b]), unlike_plain);
      check (unlike_scatter == 0, "feather %d, %s: scatter differs from "
          "gather in %d samples", feathers[f],
          gb_border_name (all_borders[b]), unlike_scatter);
      free (sums);
      free (ones);
      image_free (&flat);
      image_free (&random);
      image_free (&got);
      image_free (&plain);
      image_free (&scattered);
      map_free (&map);
    }
  group_end ();
}

static double
sum_of (const double *sums, size_t n)
{
  double total = 0.0;
  size_t i;

  for (i = 0; i < n; i++)
    total += sums[i];
  return total;
}

static double
sum_of_image (const Image * image)
{
  double total = 0.0;
  int x, y, c;

  for (y = 0; y < image->height; y++)
    for (x = 0; x < image->width; x++)
      for (c = 0; c < image->channels; c++)
        total += get (image, x, y, c);
  return total;
}

/* Every kernel sums to 1, so the sum of the unrounded outputs is the sum of
 * the inputs wherever no kernel reaches beyond the frame: here sigma is 0
 * within rmax of the edge (its rmax + 1 outer pixels), which also makes
 * every pixel outside the frame, a copy of one of those under clamp and
 * mirror, contribute nothing. With sigma > 0 at the edge, the zero border
 * loses what falls outside. */
static void
test_mass (void)
{
  const int width = 30, height = 26, rmax = 6;
  double worst = 0.0, lost = 0.0;
  int ch, b, m, x, y;

  group_begin ("mass conservation");
  for (ch = 1; ch <= 3; ch += 2) {
    Image src = image_noise (width, height, ch, 2, 700 + ch);
    Map inside = map_random (width, height, rmax, 710 + ch);
    Map everywhere = map_random (width, height, rmax, 720 + ch);
    const size_t n = (size_t) width * height * ch;
    const double mass = sum_of_image (&src);
    for (y = 0; y < height; y++)
      for (x = 0; x < width; x++)
        if (x <= rmax || y <= rmax || x >= width - 1 - rmax
            || y >= height - 1 - rmax)
          *at (&inside, x, y) = 0.0f;
    for (b = 0; b < N_ELEMENTS (all_borders); b++)
      for (m = 0; m < 2; m++) {
        double *sums = superpose_sums (both_methods[m], &src, &inside, rmax,
            all_borders[b]);
        if (sums) {
          const double e = fabs (sum_of (sums, n) - mass) / mass;
          worst = e > worst ? e : worst;
          check (e < 1e-12, "%d channels, %s, %s: mass off by %.3g (relative)",
              ch, gb_border_name (all_borders[b]),
              gb_superposition_method_name (both_methods[m]), e);
        }
        free (sums);
      }
    {
      double *sums = superpose_sums (GB_SUPERPOSITION_SCATTER, &src,
          &everywhere, rmax, GB_BORDER_ZERO);
      if (sums) {
        const double e = (mass - sum_of (sums, n)) / mass;
        lost = e;
        check (e > 1e-4, "%d channels, zero border, sigma at the edges: "
            "only %.3g of the mass lost", ch, e);
      }
      free (sums);
    }
    image_free (&src);
    map_free (&inside);
    map_free (&everywhere);
  }
  printf ("     kernels inside: off by %.2g (relative); sigma at the edges, "
      "zero border: %.3g %% lost\n", worst, 100.0 * lost);
  group_end ();
}

/* Only pixels within rmax (indeed within the radius) of a nonzero sigma
 * change: outside a region of the map, the output is the input, bit for
 * bit. A region inside the frame and one in its corner (whose mirrored and
 * clamped copies outside the frame reach no farther in). */
static void
test_locality (void)
{
  static const int regions[][4] = { {15, 12, 8, 9}, {0, 0, 6, 5} };
  static const int rmaxes[] = { 3, 8 };
  const int width = 40, height = 36;
  int g, m, b, bytes, method, x, y, c;

  group_begin ("locality");
  for (g = 0; g < N_ELEMENTS (regions); g++)
    for (m = 0; m < N_ELEMENTS (rmaxes); m++)
      for (b = 0; b < N_ELEMENTS (all_borders); b++)
        for (bytes = 1; bytes <= 2; bytes++)
          for (method = 0; method < 2; method++) {
            const int *region = regions[g];
            const int rmax = rmaxes[m];
            Image src = image_noise (width, height, 2, bytes, 800 + g);
            Image got = image_new (width, height, 2, bytes);
            Map map = map_new (width, height, 0.0);
            int reach = 0, outside_changed = 0, inside_changed = 0;
            random_seed (810 + m);
            for (y = region[1]; y < region[1] + region[3]; y++)
              for (x = region[0]; x < region[0] + region[2]; x++) {
                *at (&map, x, y) = (float) (0.1 + rmax / 3.0 * random_unit ());
                reach = gb_superposition_radius (*at (&map, x, y), rmax) > reach
                    ? gb_superposition_radius (*at (&map, x, y), rmax) : reach;
              }
            if (superpose (both_methods[method], &src, &map, rmax,
                    all_borders[b], &got) == GB_OK) {
              for (y = 0; y < height; y++)
                for (x = 0; x < width; x++) {
                  const int dx = x < region[0] ? region[0] - x
                      : x >= region[0] + region[2]
                      ? x - (region[0] + region[2] - 1) : 0;
                  const int dy = y < region[1] ? region[1] - y
                      : y >= region[1] + region[3]
                      ? y - (region[1] + region[3] - 1) : 0;
                  for (c = 0; c < 2; c++) {
                    const int changed = get (&got, x, y, c) != get (&src, x, y,
                        c);
                    if (dx > reach || dy > reach)
                      outside_changed += changed;
                    if (dx == 0 && dy == 0)
                      inside_changed += changed;
                  }
                }
              check (outside_changed == 0, "region %d, rmax %d, %s, %d-bit, "
                  "%s: %d samples beyond %d pixels changed", g, rmax,
                  gb_border_name (all_borders[b]), 8 * bytes,
                  gb_superposition_method_name (both_methods[method]),
                  outside_changed, reach);
              check (inside_changed > region[2] * region[3], "region %d, "
                  "rmax %d, %s: only %d samples inside changed", g, rmax,
                  gb_border_name (all_borders[b]), inside_changed);
            }
            image_free (&src);
            image_free (&got);
            map_free (&map);
          }
  group_end ();
}

/* src == dst gives the result of separate buffers. */
static void
test_in_place (void)
{
  int m;

  group_begin ("in place");
  for (m = 0; m < 2; m++) {
    Image src = image_noise (21, 16, 3, 1, 900);
    Image got = image_new (21, 16, 3, 1);
    Map map = map_random (21, 16, 6, 901);
    if (superpose (both_methods[m], &src, &map, 6, GB_BORDER_MIRROR,
            &got) == GB_OK
        && superpose (both_methods[m], &src, &map, 6, GB_BORDER_MIRROR,
            &src) == GB_OK)
      check (max_difference (&src, &got, NULL) == 0, "%s: in place differs "
          "from out of place", gb_superposition_method_name (both_methods[m]));
    image_free (&src);
    image_free (&got);
    map_free (&map);
  }
  group_end ();
}

static void
test_invalid_arguments (void)
{
  uint8_t pixels[4 * 4 * 4] = { 0 };
  float sigma[4 * 4];
  double sums[4 * 4 * 4];
  GbPlaneGeometry plane = { 4, 4, 4, 1, 1, 0 };
  const struct
  {
    int method, bytes, rmax, border;
    size_t stride, sigma_stride;
    float bad_sigma;            /* written at (2, 1); 0: none */
    const char *what;
  } cases[] = {
    {2, 1, 3, 0, 16, 4, 0.0f, "method 2"},
    {-1, 1, 3, 0, 16, 4, 0.0f, "method -1"},
    {0, 3, 3, 0, 16, 4, 0.0f, "3 bytes per sample"},
    {0, 1, 0, 0, 16, 4, 0.0f, "rmax 0"},
    {1, 1, GB_SUPERPOSITION_MAX_RADIUS + 1, 0, 16, 4, 0.0f, "rmax 33"},
    {0, 1, 3, 3, 16, 4, 0.0f, "border 3"},
    {1, 1, 3, 0, 15, 4, 0.0f, "short stride"},
    {0, 1, 3, 0, 16, 3, 0.0f, "short sigma stride"},
    {1, 1, 3, 0, 16, 4, NAN, "sigma NaN"},
    {0, 1, 3, 0, 16, 4, -0.5f, "negative sigma"},
    {1, 1, 3, 0, 16, 4, INFINITY, "infinite sigma"},
  };
  GbError error;
  int t, i;

  group_begin ("invalid arguments");
  for (t = 0; t < N_ELEMENTS (cases); t++) {
    for (i = 0; i < 16; i++)
      sigma[i] = 1.0f;
    if (cases[t].bad_sigma != 0.0f)
      sigma[1 * 4 + 2] = cases[t].bad_sigma;
    check (gb_superposition_cpu ((GbSuperpositionMethod) cases[t].method,
            &plane, cases[t].bytes, sigma, cases[t].sigma_stride,
            cases[t].rmax, (GbBorder) cases[t].border, pixels,
            cases[t].stride, pixels, cases[t].stride, &error) != GB_OK,
        "%s accepted", cases[t].what);
    check (gb_superposition_cpu_sums ((GbSuperpositionMethod) cases[t].method,
            &plane, cases[t].bytes, sigma, cases[t].sigma_stride,
            cases[t].rmax, (GbBorder) cases[t].border, pixels,
            cases[t].stride, sums, &error) != GB_OK,
        "%s accepted (sums)", cases[t].what);
  }
  for (i = 0; i < 16; i++)
    sigma[i] = 1.0f;
  check (gb_superposition_cpu (0, NULL, 1, sigma, 4, 3, 0, pixels, 16, pixels,
          16, &error) != GB_OK, "no plane accepted");
  check (gb_superposition_cpu (0, &plane, 1, NULL, 4, 3, 0, pixels, 16, pixels,
          16, &error) != GB_OK, "no sigma map accepted");
  check (gb_superposition_cpu (0, &plane, 1, sigma, 4, 3, 0, NULL, 16, pixels,
          16, &error) != GB_OK, "no source accepted");
  check (gb_superposition_cpu (0, &plane, 1, sigma, 4, 3, 0, pixels, 16, NULL,
          16, &error) != GB_OK, "no destination accepted");
  check (gb_superposition_cpu (0, &plane, 1, sigma, 4, 3, 0, pixels, 16,
          pixels, 15, &error) != GB_OK, "short destination stride accepted");
  check (gb_superposition_cpu_sums (0, &plane, 1, sigma, 4, 3, 0, pixels, 16,
          NULL, &error) != GB_OK, "no sums accepted");
  plane.width = 0;
  check (gb_superposition_cpu (0, &plane, 1, sigma, 4, 3, 0, pixels, 16,
          pixels, 16, &error) != GB_OK, "width 0 accepted");
  plane.width = 4;
  plane.channels = 5;
  check (gb_superposition_cpu (0, &plane, 1, sigma, 4, 3, 0, pixels, 16,
          pixels, 16, &error) != GB_OK, "5 channels accepted");
  plane.channels = 4;
  /* Large sigmas are clamped, not refused. */
  sigma[5] = 1e30f;
  check (gb_superposition_cpu (1, &plane, 1, sigma, 4, 3, 0, pixels, 16,
          pixels, 16, &error) == GB_OK, "sigma 1e30 refused: %s",
      error.message);
  group_end ();
}

int
main (void)
{
  test_kernel ();
  test_gather_scatter ();
  test_equations ();
  test_constant_sigma ();
  test_uniform_blur ();
  test_identity_constant ();
  test_varying_sigma ();
  test_normalized ();
  test_mass ();
  test_locality ();
  test_in_place ();
  test_invalid_arguments ();

  return checks_summary ();
}

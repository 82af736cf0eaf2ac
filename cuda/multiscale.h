/* Multi-scale Gaussian for large sigma: shared plan of both backends.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A Gaussian of sigma is three Gaussians in a row, sigma^2 = sp^2 + (D ss)^2
 * + su^2: a prefilter (sp = 0.75 D) evaluated only every D samples, a blur
 * of that D-times smaller image (D = 8 from sigma 10, where ss =
 * sqrt (1.25^2 - 1.125) = 0.661 small samples; D = 16 from 20 on some
 * planes, the same sigma / D; D = 8 from 10.75 on others; elsewhere the
 * largest D with sigma / D >= 3.2, ss >= 3.0), and
 * an interpolating Gaussian (su = 0.75 D) back to every sample.
 * The small blur's weights are not the sampled Gaussian of ss but fitted,
 * in least squares, so that the three stages' response is the Gaussian's
 * (multiscale.c, append_small_blur). The prefilter
 * leaves at most exp(-2 pi^2 0.75^2) = 1.5e-5 of any frequency that would
 * alias; the interpolation as little of the spectral images. Each stage is
 * cut at 3.5 of its sigma, like the convolutions. The small image covers the
 * frame plus a margin of G samples on each side, filled through the frame's
 * border rule by the prefilter. Under mirror the blur of the small image
 * never reaches its own edge for any sample that is interpolated back; under
 * clamp and zero the margin ends where its samples become copies of the edge
 * one (or zeros), which the small blur's clamp (or zero) rule at the small
 * image's edge reproduces exactly. The result is the Gaussian of the
 * border-extended frame either way. Measured against the exact sampled
 * Gaussian (docs/multiscale_error.py, clamp border): at most 0.25 of a
 * level per axis before rounding, for sigma 10 to 250 (0.234 at 10, 0.18 at
 * 10.75; 0.2496 at the early D = 16's 20, 0.208 at 21; at most 0.15 from
 * sigma / D = 1.6; the sampled Gaussian of ss kept 0.214 from 12.8). In 2D
 * that is under half a level, so the output stays within one level of the
 * exact Gaussian's.
 * Six separable passes, each out[o] = sum_t w[phase][t] in[map(first(o) + t)]
 * with phase = o % phases and first(o) = (o / phases) * step + first[phase]:
 *   down along x (frame -> small columns), down along y, blur along x and y
 *   (small), up along x (small -> frame columns), up along y.
 */
#ifndef GAUSSBLUR_MULTISCALE_H
#define GAUSSBLUR_MULTISCALE_H

#include "gaussblur.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The factor D is a power of two from 8 (sigma >= 10) to 64; D = 16 from
 * sigma 20 on the planes gb_multiscale_early_d16 names, D = 8 from 10.75
 * on those gb_multiscale_late_d8 names. */
#define GB_MULTISCALE_MIN_SIGMA 10.0
#define GB_MULTISCALE_EARLY_D16_MIN_SIGMA 20.0
#define GB_MULTISCALE_LATE_D8_MIN_SIGMA 10.75

/* A plane's rules (gb_multiscale_plan's last but one argument): */
#define GB_MULTISCALE_EARLY_D16 1       /* D = 16 from sigma 20 */
#define GB_MULTISCALE_LATE_D8 2 /* D = 8 from sigma 10.75 */
/* With GB_MULTISCALE_EARLY_D16, on a plane beside one that takes
 * GB_MULTISCALE_LATE_D8: D = 16 from sigma 21.5, where that plane's plan
 * starts on 4:2:0 chroma. On the H200, the luma at D = 8 (its chroma in
 * the fused kernel) against D = 16, us: NV12 1080p at sigma 20 24.0
 * against 24.5, at 21 24.0-24.1 against 24.5-24.6, NV12 720p at 20 19.2
 * against 20.7 (docs/performance.md, "A 16-bit intermediate for 16-bit
 * samples, and NV12's luma at D = 8 to sigma 21.5"). */
#define GB_MULTISCALE_EARLY_D16_WITH_CHROMA 4
#define GB_MULTISCALE_EARLY_D16_WITH_CHROMA_MIN_SIGMA 21.5
#define GB_MULTISCALE_MIN_FACTOR 8
#define GB_MULTISCALE_MAX_FACTOR 64
#define GB_MULTISCALE_TABLE 2048    /* floats of all weights of a plan */

/* Tap counts every plan keeps (the GPU kernels are sized by them and refuse
 * a plan beyond; tests/test_core.c checks them over the whole sigma range):
 * the prefilter of factor D spans 2 * 2.625 D + 1 samples at most, the
 * small blur 2 ceil (3.5 * 6.4) + 1 (sigma / D < 6.4 once D may double),
 * and each phase of the interpolation reaches 2.625 D either side of its
 * sample: 6 small samples for every D, the phases' first ones at most one
 * apart. */
#define GB_MULTISCALE_DOWN_TAPS(d) (21 * (d) / 4 + 2)
#define GB_MULTISCALE_BLUR_TAPS 48
#define GB_MULTISCALE_UP_TAPS 6

typedef struct {
  int phases;                   /* 1, or D for the up passes */
  int taps;                     /* per phase (zero-padded) */
  int step;                     /* input advance per `phases` outputs */
  int first[GB_MULTISCALE_MAX_FACTOR];
  int in_length;
  int out_length;
  int frame_border;             /* 1: the frame's border rule; 0: clamp */
  int weights;                  /* offset of phase 0, tap 0 in the table */
} GbResample;

typedef struct {
  int factor_x;                 /* D along rows; 0: the plan does not apply */
  int factor_y;                 /* D along columns */
  int small_width;
  int small_height;
  GbResample down_x, down_y, blur_x, blur_y, up_x, up_y;
  int table_size;
  float table[GB_MULTISCALE_TABLE];
} GbMultiscalePlan;

/* Fills plan for sigma_x, sigma_y >= GB_MULTISCALE_MIN_SIGMA (each axis has
 * its own factor) on a width x height plane; returns 0 (plan unusable, both
 * factors 0) when either is below it. rules, GB_MULTISCALE_EARLY_D16
 * (gb_multiscale_early_d16): D = 16 from sigma 20 instead of 51.2, where
 * both axes reach 20; GB_MULTISCALE_LATE_D8 (gb_multiscale_late_d8): no
 * plan below sigma 10.75 on either axis. */
int gb_multiscale_plan (double sigma_x, double sigma_y, int width, int height,
    GbBorder border, int rules, GbMultiscalePlan * plan);

/* GB_MULTISCALE_EARLY_D16 where a plane's D = 16 starts at sigma 20 (sigma
 * / D = 1.25, as D = 8's start; 21.5 before 2026-12-01: at sigma 20 the
 * 4K frames gained, GRAY8 27.2 -> 22.6 us, RGBA 67.4 -> 58.9, NV12 41.9 ->
 * 36.1-36.5, and Y42B and Y444 1080p 28.4 -> 25.7, 31.0 -> 29.7, while
 * RGBA and NV12 1080p lost 0.7 and I420 0.2; H200, docs/performance.md,
 * "The early D = 16 from sigma 20"), else 0: 8-bit planes of one or
 * four channels, where that measured faster on the GPU (docs/performance.md,
 * "D = 8 from sigma 12.8"); GRAY16 and two-channel planes lost (RGBA64
 * gained at 1080p, not timed at 4K: left out), and so did the 2-channel
 * chroma of NV16 and NV12 once it reaches the start (H200, sigma 50: 29.1 ->
 * 31.3 and 24.2 -> 28.0 us) and RGB (sigma 30, with the balanced tensor
 * tile: 1080p 27.5 -> 29.9 us, 2560 x 1440 36.0 -> 36.8), but from 3 x
 * 2^21 pixels, where it gained (4K 57.2 -> 54.4, and 57.2 -> 54.1 as
 * committed; docs/performance.md, "The early D = 16 by size" and "The
 * twentieth session's branch, measured and merged").
 * A plane alone in its frame (`alone`) of `pixels` (the window the plan
 * covers) takes it from 3 x 2^20 pixels with one channel and 3 x 2^19 with
 * four: smaller ones were faster at D = 8 (H200, sigma 22 to 50, D = 8
 * against 16: GRAY8 640 x 360 11.3 against 13.7 us, 1280 x 720 12.4
 * against 14.4, 1920 x 1080 14.8 against 16.3; 2560 x 1440 20.6 against
 * 19.3; RGBA 1280 x 720 23.3 against 24.8, 1920 x 1080 33.1 against 32.8).
 * Planes of frames with others keep it at every size: the frame's planes
 * share the GPU, and NV12, Y42B and Y444 1080p were faster with their
 * lumas at D = 16 (23.8 against 25.5, 25.8 against 28.4, 29.6 against
 * 31.1 us), I420 even; NV16 and NV24 lost 1.5 and 0.7 us. Both backends
 * take the same plan. */
int gb_multiscale_early_d16 (int channels, int bytes_per_sample,
    size_t pixels, int alone);

/* GB_MULTISCALE_LATE_D8 where a plane's D = 8 starts at sigma 10.75, else 0:
 * 8-bit planes of two channels under 2^19 pixels (their window) beside
 * other planes: the chroma of NV12 and NV21 up to 1080p, of NV16 and NV61
 * up to 720p, of NV24 and NV42 under 2^19 pixels. Measured on NV12's: its
 * fused kernel beat the plan at sigma 10 to
 * 10.7 (H200, NV12 1080p at sigma 20 / 21: 24.0 / 24.0 us with the chroma
 * fused, 25.7 / 25.7 with its plan at D = 8; larger chroma gained by the
 * plan: NV16 1080p 30.4 / 31.6 -> 27.4, NV12 4K 46.9 / 47.0 -> 42.0, and
 * I420's one-channel chroma 26.3 -> 22.8; docs/performance.md, "Multi-scale
 * from sigma 10"). Both backends take the same plan. */
int gb_multiscale_late_d8 (int channels, int bytes_per_sample,
    size_t pixels, int alone);

/* Where a plan's images lie in a plane's scratch, in floats from its
 * start: the first image (the frame decimated along one axis, the larger of
 * the two orders' images), then two small images. Rows of the small images
 * (and of the first, when it is the frame's rows decimated) are
 * small_stride floats apart: the small row rounded up to row_align floats,
 * 1 on the CPU and on the GPU where gb_multiscale_row_align says so (NV24's
 * luma), else 4: the GPU's column passes read 16-byte words only from rows
 * that keep them aligned (GRAY8 1080p at sigma 100 has rows of 130 floats;
 * docs/performance.md, "The small images' rows padded"). */
typedef struct
{
  size_t small_stride;
  size_t small, small2;         /* where the small images start */
  size_t floats;                /* the whole layout */
} GbMultiscaleLayout;

GbMultiscaleLayout gb_multiscale_layout (int small_width, int small_height,
    int width, int height, int channels, int row_align);

/* Floats of scratch (all channels) any plan of this plane size (or of any
 * smaller window of it) needs under row_align (gb_multiscale_layout). */
size_t gb_multiscale_scratch_floats (int width, int height, int channels,
    int row_align);

#ifdef __cplusplus
}
#endif
#endif /* GAUSSBLUR_MULTISCALE_H */

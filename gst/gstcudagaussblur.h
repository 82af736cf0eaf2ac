/* GStreamer
 * Copyright (C) 2026 The cudagaussblur authors
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 *
 * This library is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
 * Library General Public License for more details.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#ifndef __GST_CUDA_GAUSS_BLUR_H__
#define __GST_CUDA_GAUSS_BLUR_H__

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

/**
 * GstCudaGaussBlurAlgorithm:
 * @GST_CUDA_GAUSS_BLUR_ALGORITHM_AUTO: the fastest exact method for the
 *   parameters
 * @GST_CUDA_GAUSS_BLUR_ALGORITHM_NAIVE: direct 2D convolution
 * @GST_CUDA_GAUSS_BLUR_ALGORITHM_SHARED: 2D convolution from a shared-memory
 *   tile
 * @GST_CUDA_GAUSS_BLUR_ALGORITHM_SEPARABLE: a row pass, then a column pass
 * @GST_CUDA_GAUSS_BLUR_ALGORITHM_FUSED: both passes in one tensor-core kernel
 *   (radius up to 56, down to 96 on planes of one or two channels, compute
 *   capability 8.0; otherwise as separable)
 * @GST_CUDA_GAUSS_BLUR_ALGORITHM_RECURSIVE: the recursive (Deriche) Gaussian,
 *   whose cost does not grow with sigma; radius is not used
 * @GST_CUDA_GAUSS_BLUR_ALGORITHM_MULTISCALE: for sigma >= 10, blur an image
 *   8 to 64 times smaller and interpolate (otherwise as separable); radius is
 *   not used
 * @GST_CUDA_GAUSS_BLUR_ALGORITHM_EDGE_AWARE: edge-preserving: the domain
 *   transform and recursive Gaussian of seed 004, steered by
 *   #GstCudaGaussBlur:sigma-range, #GstCudaGaussBlur:iterations and
 *   #GstCudaGaussBlur:kappa; radius is not used, auto never picks it
 * @GST_CUDA_GAUSS_BLUR_ALGORITHM_SUPERPOSITION_GATHER: spatially varying
 *   (kernel superposition, seed 003): each output sums its neighbours, each
 *   with the kernel of its own sigma (#GstCudaGaussBlur:sigma-map); radius
 *   is rmax, at most 32
 * @GST_CUDA_GAUSS_BLUR_ALGORITHM_SUPERPOSITION_SCATTER: the same blur, each
 *   input pixel spreading its kernel, computed once
 */
typedef enum
{
  GST_CUDA_GAUSS_BLUR_ALGORITHM_AUTO = 0,
  GST_CUDA_GAUSS_BLUR_ALGORITHM_NAIVE = 1,
  GST_CUDA_GAUSS_BLUR_ALGORITHM_SHARED = 2,
  GST_CUDA_GAUSS_BLUR_ALGORITHM_SEPARABLE = 3,
  GST_CUDA_GAUSS_BLUR_ALGORITHM_FUSED = 4,
  GST_CUDA_GAUSS_BLUR_ALGORITHM_RECURSIVE = 5,
  GST_CUDA_GAUSS_BLUR_ALGORITHM_MULTISCALE = 6,
  GST_CUDA_GAUSS_BLUR_ALGORITHM_EDGE_AWARE = 7,
  GST_CUDA_GAUSS_BLUR_ALGORITHM_SUPERPOSITION_GATHER = 8,
  GST_CUDA_GAUSS_BLUR_ALGORITHM_SUPERPOSITION_SCATTER = 9,
} GstCudaGaussBlurAlgorithm;

/**
 * GstCudaGaussBlurSigmaMap:
 * @GST_CUDA_GAUSS_BLUR_SIGMA_MAP_NONE: one sigma for the whole frame
 * @GST_CUDA_GAUSS_BLUR_SIGMA_MAP_ROI: blur the regions of interest that
 *   GstVideoRegionOfInterestMeta marks on each buffer (faces, plates...)
 * @GST_CUDA_GAUSS_BLUR_SIGMA_MAP_TILT_SHIFT: a sharp band across the frame,
 *   blurred more and more away from it
 * @GST_CUDA_GAUSS_BLUR_SIGMA_MAP_RADIAL: a sharp centre, blurred more and
 *   more away from it
 * @GST_CUDA_GAUSS_BLUR_SIGMA_MAP_IMAGE: a grayscale image file scaled to the
 *   frame, white = sigma
 */
typedef enum
{
  GST_CUDA_GAUSS_BLUR_SIGMA_MAP_NONE = 0,
  GST_CUDA_GAUSS_BLUR_SIGMA_MAP_ROI,
  GST_CUDA_GAUSS_BLUR_SIGMA_MAP_TILT_SHIFT,
  GST_CUDA_GAUSS_BLUR_SIGMA_MAP_RADIAL,
  GST_CUDA_GAUSS_BLUR_SIGMA_MAP_IMAGE,
} GstCudaGaussBlurSigmaMap;

/**
 * GstCudaGaussBlurBorder:
 * @GST_CUDA_GAUSS_BLUR_BORDER_CLAMP: replicate the edge sample
 * @GST_CUDA_GAUSS_BLUR_BORDER_MIRROR: reflect without repeating the edge
 * @GST_CUDA_GAUSS_BLUR_BORDER_ZERO: samples outside the frame are 0
 */
typedef enum
{
  GST_CUDA_GAUSS_BLUR_BORDER_CLAMP = 0,
  GST_CUDA_GAUSS_BLUR_BORDER_MIRROR = 1,
  GST_CUDA_GAUSS_BLUR_BORDER_ZERO = 2,
} GstCudaGaussBlurBorder;

/**
 * GstCudaGaussBlurBackend:
 * @GST_CUDA_GAUSS_BLUR_BACKEND_AUTO: CUDA when a device is usable, else the
 *   CPU reference (with a warning)
 * @GST_CUDA_GAUSS_BLUR_BACKEND_CUDA: CUDA only; an error without a device
 * @GST_CUDA_GAUSS_BLUR_BACKEND_CPU: the CPU reference
 */
typedef enum
{
  GST_CUDA_GAUSS_BLUR_BACKEND_AUTO,
  GST_CUDA_GAUSS_BLUR_BACKEND_CUDA,
  GST_CUDA_GAUSS_BLUR_BACKEND_CPU,
} GstCudaGaussBlurBackend;

#define GST_TYPE_CUDA_GAUSS_BLUR_ALGORITHM \
    (gst_cuda_gauss_blur_algorithm_get_type ())
GType gst_cuda_gauss_blur_algorithm_get_type (void);

#define GST_TYPE_CUDA_GAUSS_BLUR_SIGMA_MAP \
    (gst_cuda_gauss_blur_sigma_map_get_type ())
GType gst_cuda_gauss_blur_sigma_map_get_type (void);

#define GST_TYPE_CUDA_GAUSS_BLUR_BORDER (gst_cuda_gauss_blur_border_get_type ())
GType gst_cuda_gauss_blur_border_get_type (void);

#define GST_TYPE_CUDA_GAUSS_BLUR_BACKEND \
    (gst_cuda_gauss_blur_backend_get_type ())
GType gst_cuda_gauss_blur_backend_get_type (void);

#define GST_TYPE_CUDA_GAUSS_BLUR (gst_cuda_gauss_blur_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaGaussBlur, gst_cuda_gauss_blur,
    GST, CUDA_GAUSS_BLUR, GstBaseTransform);

GST_ELEMENT_REGISTER_DECLARE (cudagaussblur);

G_END_DECLS

#endif /* __GST_CUDA_GAUSS_BLUR_H__ */

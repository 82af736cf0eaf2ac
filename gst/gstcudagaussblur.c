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

/**
 * SECTION:element-cudagaussblur
 * @title: cudagaussblur
 *
 * Blurs (or sharpens) video with a Gaussian kernel on a CUDA GPU, or on the
 * CPU when no device is usable. Every channel is blurred, alpha included;
 * the output has the format and size of the input. Gray, RGB, YUV (planar,
 * semi-planar and packed 4:4:4) and 16-bit formats are taken as they come:
 * each plane is blurred at its own resolution, subsampled chroma with sigma,
 * radius and region scaled to it, so the picture looks as if blurred in RGB.
 *
 * #GstCudaGaussBlur:sigma is the standard deviation in pixels, on both axes
 * (#GstCudaGaussBlur:sigma-x and #GstCudaGaussBlur:sigma-y set them apart);
 * 0 on both lets the buffers through untouched. A negative sigma sharpens:
 * out = in + amount (in - blur(|sigma|)), clamped, with
 * #GstCudaGaussBlur:amount 1 by default, as gaussianblur's negative sigma
 * does. #GstCudaGaussBlur:radius bounds the kernel (0 picks ceil(3.5 sigma)).
 * #GstCudaGaussBlur:region-x, -y, -width and -height limit the effect to a
 * rectangle (rounded outwards to the chroma grid); the rest of the frame is
 * copied, and the rectangle's blur reads its surroundings, so its edges stay
 * clean. All properties may change while playing and apply from the next
 * frame; they can be driven by a #GstControlSource.
 *
 * ## Edge-aware blur
 *
 * #GstCudaGaussBlur:algorithm edge-aware smooths within regions of similar
 * colour and stops at edges (skin smoothing, a cartoon or painted look): the
 * domain transform with a recursive Gaussian (seed 004; docs/algorithms.md,
 * section 11). sigma-x and sigma-y are its spatial sigmas;
 * #GstCudaGaussBlur:sigma-range says how large a difference of intensity
 * is an edge (in 8-bit levels; 16-bit samples are scaled to 8-bit levels
 * first), #GstCudaGaussBlur:iterations how many times the rows and columns
 * are filtered and #GstCudaGaussBlur:kappa how the GPU cuts lines into
 * segments (0: exact, states carried across segments). Each plane is
 * filtered on its own and its edges come from its own channels: RGB by the distance
 * over R, G and B together, alpha (and RGBx's padding byte) filtered along
 * but not steering; gray by its one channel; YUV planes by what they hold:
 * the luma plane by Y, an interleaved chroma plane (NV12's UV) by U and V
 * together, I420's U and V planes each by itself, and packed 4:4:4
 * (AYUV, VUYA, v308) by Y, U and V together. The CPU fallback computes the
 * exact filter, lines spread over the cores: about 0.6 s per 1080p RGBA
 * frame on one core.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=RGBA ! cudagaussblur sigma=4 ! videoconvert ! autovideosink
 * ]| Blurs the test pattern with sigma 4 pixels on the default CUDA device.
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=GRAY8 ! cudagaussblur sigma=2 border=mirror backend=cpu ! videoconvert ! autovideosink
 * ]| Blurs on the CPU, mirroring the frame at its edges.
 * |[
 * gst-launch-1.0 filesrc location=in.mp4 ! decodebin ! cudagaussblur sigma=12 region-x=600 region-y=200 region-width=320 region-height=240 ! autovideosink
 * ]| Blurs a privacy box of the decoded NV12 or I420 video, without conversion.
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=NV12 ! cudagaussblur sigma=-1.5 amount=0.8 ! autovideosink
 * ]| Sharpens (unsharp mask).
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=RGBA ! cudagaussblur algorithm=edge-aware sigma=12 sigma-range=30 ! videoconvert ! autovideosink
 * ]| Smooths the picture while keeping its edges (edge-aware blur).
 */

#include "gstcudagaussblur.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include <gst/video/video.h>

#include "gaussblur.h"
#include "sigma_map.h"
#include "superposition.h"
#include "gstblurgeometry.h"
#include "gstcudamemorysupport.h"
#include "gstframesinflight.h"
#include "gstpinnedallocator.h"
#include "gstroiregions.h"
#include "gstsigmamapfile.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_gauss_blur_debug);
#define GST_CAT_DEFAULT gst_cuda_gauss_blur_debug

/* The element's enums pass straight to the core. */
G_STATIC_ASSERT ((int) GST_CUDA_GAUSS_BLUR_ALGORITHM_AUTO == GB_ALGORITHM_AUTO);
G_STATIC_ASSERT ((int) GST_CUDA_GAUSS_BLUR_ALGORITHM_NAIVE ==
    GB_ALGORITHM_NAIVE);
G_STATIC_ASSERT ((int) GST_CUDA_GAUSS_BLUR_ALGORITHM_SHARED ==
    GB_ALGORITHM_SHARED);
G_STATIC_ASSERT ((int) GST_CUDA_GAUSS_BLUR_ALGORITHM_SEPARABLE ==
    GB_ALGORITHM_SEPARABLE);
G_STATIC_ASSERT ((int) GST_CUDA_GAUSS_BLUR_ALGORITHM_FUSED ==
    GB_ALGORITHM_FUSED);
G_STATIC_ASSERT ((int) GST_CUDA_GAUSS_BLUR_ALGORITHM_RECURSIVE ==
    GB_ALGORITHM_RECURSIVE);
G_STATIC_ASSERT ((int) GST_CUDA_GAUSS_BLUR_ALGORITHM_MULTISCALE ==
    GB_ALGORITHM_MULTISCALE);
G_STATIC_ASSERT ((int) GST_CUDA_GAUSS_BLUR_ALGORITHM_EDGE_AWARE ==
    GB_ALGORITHM_EDGE_AWARE);
G_STATIC_ASSERT ((int) GST_CUDA_GAUSS_BLUR_ALGORITHM_SUPERPOSITION_GATHER ==
    GB_ALGORITHM_SUPERPOSITION_GATHER);
G_STATIC_ASSERT ((int) GST_CUDA_GAUSS_BLUR_ALGORITHM_SUPERPOSITION_SCATTER ==
    GB_ALGORITHM_SUPERPOSITION_SCATTER);
G_STATIC_ASSERT (GB_ALGORITHM_LAST == GB_ALGORITHM_SUPERPOSITION_SCATTER);
G_STATIC_ASSERT ((int) GST_CUDA_GAUSS_BLUR_BORDER_CLAMP == GB_BORDER_CLAMP);
G_STATIC_ASSERT ((int) GST_CUDA_GAUSS_BLUR_BORDER_MIRROR == GB_BORDER_MIRROR);
G_STATIC_ASSERT ((int) GST_CUDA_GAUSS_BLUR_BORDER_ZERO == GB_BORDER_ZERO);

enum
{
  PROP_0,
  PROP_SIGMA,
  PROP_RADIUS,
  PROP_ALGORITHM,
  PROP_BORDER,
  PROP_BACKEND,
  PROP_CUDA_DEVICE_ID,
  PROP_SIGMA_X,
  PROP_SIGMA_Y,
  PROP_AMOUNT,
  PROP_REGION_X,
  PROP_REGION_Y,
  PROP_REGION_WIDTH,
  PROP_REGION_HEIGHT,
  PROP_SIGMA_RANGE,
  PROP_ITERATIONS,
  PROP_KAPPA,
  PROP_SIGMA_MAP,
  PROP_ROI_FEATHER,
  PROP_ROI_TYPES,
  PROP_FOCUS_X,
  PROP_FOCUS_Y,
  PROP_FOCUS_SIZE,
  PROP_FOCUS_TRANSITION,
  PROP_FOCUS_ANGLE,
  PROP_SIGMA_MAP_LOCATION,
  PROP_NORMALIZE,
  PROP_FRAMES_IN_FLIGHT,
};

#define DEFAULT_SIGMA 2.0
#define DEFAULT_AMOUNT 1.0
#define MAX_AMOUNT 20.0
#define DEFAULT_REGION 0
#define DEFAULT_RADIUS 0
#define DEFAULT_ALGORITHM GST_CUDA_GAUSS_BLUR_ALGORITHM_AUTO
#define DEFAULT_BORDER GST_CUDA_GAUSS_BLUR_BORDER_CLAMP
#define DEFAULT_BACKEND GST_CUDA_GAUSS_BLUR_BACKEND_AUTO
#define DEFAULT_CUDA_DEVICE_ID -1
/* Edge-aware: sigma-range in 8-bit levels. At 0.1 a step of one level is
 * an edge; at 100000 the largest colour step (441 levels) stretches a
 * pixel by under 1 % up to sigma 20: hardly an edge. */
#define DEFAULT_SIGMA_RANGE GB_DEFAULT_SIGMA_RANGE
#define MIN_SIGMA_RANGE 0.1
#define MAX_SIGMA_RANGE 100000.0
#define DEFAULT_ITERATIONS GB_DEFAULT_ITERATIONS
#define DEFAULT_KAPPA GB_DEFAULT_KAPPA

/* Spatially varying blur: the sigma map and its shapes. */
#define DEFAULT_SIGMA_MAP GST_CUDA_GAUSS_BLUR_SIGMA_MAP_NONE
#define DEFAULT_ROI_FEATHER 8.0
#define MAX_ROI_FEATHER 512.0
#define DEFAULT_FOCUS_X 0.5
#define DEFAULT_FOCUS_Y 0.5
#define DEFAULT_FOCUS_SIZE 0.2
#define DEFAULT_FOCUS_TRANSITION 0.3
#define DEFAULT_FOCUS_ANGLE 0.0
#define DEFAULT_NORMALIZE TRUE
/* One frame at a time: a frame is out before the next one comes in. */
#define DEFAULT_FRAMES_IN_FLIGHT 1

#define MAX_DIMENSION 8192

/* The formats the element accepts: those whose planes each hold whole
 * pixels of 8-bit or full-range 16-bit samples. How many planes each has,
 * their channels and subsampling come from its GstVideoFormatInfo (see
 * gstblurgeometry.c). Not here: packed 4:2:2 (YUY2, UYVY: luma and chroma
 * share a plane at two resolutions) and 10/12-bit formats (a sharpened
 * sample would overflow their range). 16-bit samples in the host's byte
 * order only: the core reads them natively. */
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
#define FORMAT_16(name) GST_VIDEO_FORMAT_ ## name ## LE
#else
#define FORMAT_16(name) GST_VIDEO_FORMAT_ ## name ## BE
#endif
static const GstVideoFormat gst_cuda_gauss_blur_formats[] = {
  GST_VIDEO_FORMAT_GRAY8,
  GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGR,
  GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA,
  GST_VIDEO_FORMAT_ARGB, GST_VIDEO_FORMAT_ABGR,
  GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx,
  GST_VIDEO_FORMAT_xRGB, GST_VIDEO_FORMAT_xBGR,
  GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_NV21,
  GST_VIDEO_FORMAT_NV16, GST_VIDEO_FORMAT_NV61, GST_VIDEO_FORMAT_NV24,
  GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YV12,
  GST_VIDEO_FORMAT_Y41B, GST_VIDEO_FORMAT_Y42B, GST_VIDEO_FORMAT_Y444,
  GST_VIDEO_FORMAT_AYUV, GST_VIDEO_FORMAT_VUYA, GST_VIDEO_FORMAT_v308,
  FORMAT_16 (GRAY16_), FORMAT_16 (RGBA64_), FORMAT_16 (BGRA64_),
  FORMAT_16 (Y444_16), FORMAT_16 (P016_),
};

struct _GstCudaGaussBlur
{
  GstBaseTransform parent;

  /* properties, under the object lock */
  gdouble sigma_x;              /* negative: sharpen */
  gdouble sigma_y;
  gdouble amount;
  GbRect region;
  gint radius;
  gdouble sigma_range;          /* edge-aware only */
  gint iterations;
  gdouble kappa;
  GstCudaGaussBlurAlgorithm algorithm;
  GstCudaGaussBlurBorder border;
  GstCudaGaussBlurBackend backend;
  gint cuda_device_id;
  GstCudaGaussBlurSigmaMap sigma_map;
  gdouble roi_feather;
  gchar *roi_types;             /* as set; NULL: every type */
  gchar **roi_type_list;        /* parsed */
  gdouble focus_x;
  gdouble focus_y;
  gdouble focus_size;
  gdouble focus_transition;
  gdouble focus_angle;
  gchar *sigma_map_location;
  gboolean normalize;
  guint frames_in_flight;
  gboolean map_changed;         /* a property the static maps depend on */
  GstClockTime frame_duration;  /* of the caps (none: no frame rate), for
                                 * latency queries from any thread */

  /* streaming thread only (set_caps, transform) and stop */
  float *map;                   /* the frame's sigma map, width floats a row */
  gboolean map_valid;           /* a static map (tilt-shift, radial, image)
                                 * built for the current settings and
                                 * handed to the core */
  GArray *regions;              /* GbSigmaRegion of the buffer at hand */
  guint8 *map_image;            /* sigma-map=image: the file, 8-bit gray */
  gint map_image_width;
  gint map_image_height;
  gchar *map_image_location;    /* the file map_image was read from */
  gboolean core_has_map;        /* the handle holds a map of ours */
  gboolean pass_buffer;         /* this buffer goes out as it came (no
                                 * region of interest on it) */
  GstCudaGaussBlurSigmaMap frame_sigma_map;    /* the sigma-map prepare_output_buffer read
                                 * for the buffer at hand, which transform
                                 * keeps (regions collected or not) */
  GstVideoInfo info;            /* of both pads: in and out caps are equal */
  GbGeometry geometry;
  GbBlur *blur;
  /* The CUDA context (a GstCudaContext) shared with the pipeline's other
   * CUDA elements, from start() (or the first frame) to stop(); NULL where
   * none can be had (no driver, no such device, or the plugin built
   * without GStreamer's CUDA library). Frames in CUDA memory of this
   * context are blurred where they are. */
  GstObject *cuda_context;
  gint cuda_context_device;      /* cuda_context's, when checked_context */
  GstObject *checked_context;   /* (no reference: compared only) */
  gboolean context_tried;       /* for context_tried_device: no retry */
  gint context_tried_device;
  gboolean host_path_warned;
  /* the backend, cuda-device-id and CUDA context the handle was made for,
   * or failed for; the handle's CUDA calls run with blur_context pushed */
  GstCudaGaussBlurBackend blur_backend;
  gint blur_device_id;
  GstObject *blur_context;
  gboolean blur_failed;         /* its error is posted: do not retry */
  gboolean cpu_fallback_warned;
  GstCaps *refused_caps;        /* caps whose error is posted, and why */
  gchar *refused_why;
  /* Frames in flight (frames-in-flight > 1): host frames whose blur was
   * submitted, pushed by in_flight's thread as each is done; `submitted`
   * hands the frame transform() started to generate_output(). in_flight
   * is set (streaming thread) and cleared (stop) under the object lock,
   * which FLUSH_START, from any thread, takes to read it; the streaming
   * thread reads it without. */
  GstFramesInFlight *in_flight;
  gboolean in_flight_error_posted;      /* (the frames' thread's) */
  gpointer submitted;
  gint blur_frames_in_flight;   /* the handle's setting */
};

/* A host frame being blurred: both frames stay mapped (the GPU reads and
 * writes their memory) until the blur is complete. */
typedef struct
{
  GstVideoFrame in_frame;
  GstVideoFrame out_frame;
  GstBuffer *outbuf;
} GstCudaGaussBlurFrame;

#define gst_cuda_gauss_blur_parent_class parent_class
G_DEFINE_TYPE (GstCudaGaussBlur, gst_cuda_gauss_blur, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (cudagaussblur, "cudagaussblur", GST_RANK_NONE,
    GST_TYPE_CUDA_GAUSS_BLUR);

GType
gst_cuda_gauss_blur_algorithm_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CUDA_GAUSS_BLUR_ALGORITHM_AUTO,
        "The fastest exact method for the parameters", "auto"},
    {GST_CUDA_GAUSS_BLUR_ALGORITHM_NAIVE,
        "Direct 2D convolution", "naive"},
    {GST_CUDA_GAUSS_BLUR_ALGORITHM_SHARED,
        "2D convolution from a shared-memory tile", "shared"},
    {GST_CUDA_GAUSS_BLUR_ALGORITHM_SEPARABLE,
        "A row pass, then a column pass", "separable"},
    {GST_CUDA_GAUSS_BLUR_ALGORITHM_FUSED,
        "Row and column passes in one kernel (tensor cores for 8-bit "
        "samples, FP32 for 16-bit)", "fused"},
    {GST_CUDA_GAUSS_BLUR_ALGORITHM_RECURSIVE,
        "Recursive (Deriche) filter: cost independent of sigma, "
        "radius unused", "recursive"},
    {GST_CUDA_GAUSS_BLUR_ALGORITHM_MULTISCALE,
        "Large sigma (>= 10): blur a smaller image and interpolate, "
        "radius unused", "multiscale"},
    {GST_CUDA_GAUSS_BLUR_ALGORITHM_EDGE_AWARE,
        "Edge-preserving (domain transform, recursive Gaussian): see "
        "sigma-range, iterations, kappa; radius unused", "edge-aware"},
    {GST_CUDA_GAUSS_BLUR_ALGORITHM_SUPERPOSITION_GATHER,
          "Spatially varying (sigma-map), each output summing its "
          "neighbours' kernels; radius = rmax <= 32",
        "superposition-gather"},
    {GST_CUDA_GAUSS_BLUR_ALGORITHM_SUPERPOSITION_SCATTER,
          "Spatially varying (sigma-map), each input spreading its kernel; "
          "radius = rmax <= 32", "superposition-scatter"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType new_type = g_enum_register_static ("GstCudaGaussBlurAlgorithm",
        values);
    g_once_init_leave (&type, new_type);
  }
  return type;
}

GType
gst_cuda_gauss_blur_sigma_map_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CUDA_GAUSS_BLUR_SIGMA_MAP_NONE, "One sigma for the whole frame",
        "none"},
    {GST_CUDA_GAUSS_BLUR_SIGMA_MAP_ROI,
          "Blur the buffer's regions of interest (GstVideoRegionOfInterestMeta)",
        "roi"},
    {GST_CUDA_GAUSS_BLUR_SIGMA_MAP_TILT_SHIFT,
        "Sharp band (focus-*), blurred away from it", "tilt-shift"},
    {GST_CUDA_GAUSS_BLUR_SIGMA_MAP_RADIAL,
        "Sharp centre (focus-*), blurred away from it", "radial"},
    {GST_CUDA_GAUSS_BLUR_SIGMA_MAP_IMAGE,
        "Grayscale image (sigma-map-location), white = sigma", "image"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType new_type = g_enum_register_static ("GstCudaGaussBlurSigmaMap",
        values);
    g_once_init_leave (&type, new_type);
  }
  return type;
}

GType
gst_cuda_gauss_blur_border_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CUDA_GAUSS_BLUR_BORDER_CLAMP, "Replicate the edge sample", "clamp"},
    {GST_CUDA_GAUSS_BLUR_BORDER_MIRROR,
        "Reflect without repeating the edge", "mirror"},
    {GST_CUDA_GAUSS_BLUR_BORDER_ZERO, "Samples outside the frame are 0",
        "zero"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType new_type = g_enum_register_static ("GstCudaGaussBlurBorder", values);
    g_once_init_leave (&type, new_type);
  }
  return type;
}

GType
gst_cuda_gauss_blur_backend_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CUDA_GAUSS_BLUR_BACKEND_AUTO,
        "CUDA when a device is usable, else the CPU", "auto"},
    {GST_CUDA_GAUSS_BLUR_BACKEND_CUDA, "CUDA (error without a device)",
        "cuda"},
    {GST_CUDA_GAUSS_BLUR_BACKEND_CPU, "The CPU reference", "cpu"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType new_type = g_enum_register_static ("GstCudaGaussBlurBackend",
        values);
    g_once_init_leave (&type, new_type);
  }
  return type;
}

static void gst_cuda_gauss_blur_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_cuda_gauss_blur_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_cuda_gauss_blur_finalize (GObject * object);

static void gst_cuda_gauss_blur_set_context (GstElement * element,
    GstContext * context);
static gboolean gst_cuda_gauss_blur_start (GstBaseTransform * trans);
static gboolean gst_cuda_gauss_blur_stop (GstBaseTransform * trans);
static gboolean gst_cuda_gauss_blur_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query);
static GstCaps *gst_cuda_gauss_blur_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter);
static gboolean gst_cuda_gauss_blur_set_caps (GstBaseTransform * trans,
    GstCaps * incaps, GstCaps * outcaps);
static gboolean gst_cuda_gauss_blur_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size, GstCaps * othercaps,
    gsize * othersize);
static gboolean gst_cuda_gauss_blur_propose_allocation (GstBaseTransform *
    trans, GstQuery * decide_query, GstQuery * query);
static gboolean gst_cuda_gauss_blur_decide_allocation (GstBaseTransform *
    trans, GstQuery * query);
static gboolean gst_cuda_gauss_blur_transform_meta (GstBaseTransform * trans,
    GstBuffer * outbuf, GstMeta * meta, GstBuffer * inbuf);
static GstFlowReturn gst_cuda_gauss_blur_submit_input_buffer
    (GstBaseTransform * trans, gboolean is_discont, GstBuffer * input);
static void gst_cuda_gauss_blur_before_transform (GstBaseTransform * trans,
    GstBuffer * buffer);
static GstFlowReturn gst_cuda_gauss_blur_transform (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer * outbuf);
static GstFlowReturn gst_cuda_gauss_blur_prepare_output_buffer
    (GstBaseTransform * trans, GstBuffer * inbuf, GstBuffer ** outbuf);
static GstFlowReturn gst_cuda_gauss_blur_generate_output (GstBaseTransform *
    trans, GstBuffer ** outbuf);
static gboolean gst_cuda_gauss_blur_sink_event (GstBaseTransform * trans,
    GstEvent * event);
static GstFlowReturn gst_cuda_gauss_blur_drain (GstCudaGaussBlur * self);
static void gst_cuda_gauss_blur_wait_for_frames (GstCudaGaussBlur * self);

/* Every format in CUDA memory (with GStreamer's CUDA library) and in
 * system memory; the output's memory is the input's. Progressive only: a
 * blur down an interlaced frame would mix its two fields, which are two
 * moments (blurring each field alone is not implemented). */
static GstCaps *
gst_cuda_gauss_blur_make_caps (void)
{
  GstCaps *caps = gst_video_make_raw_caps (gst_cuda_gauss_blur_formats,
      G_N_ELEMENTS (gst_cuda_gauss_blur_formats));

  gst_caps_set_simple (caps,
      "width", GST_TYPE_INT_RANGE, 1, MAX_DIMENSION,
      "height", GST_TYPE_INT_RANGE, 1, MAX_DIMENSION,
      "interlace-mode", G_TYPE_STRING, "progressive", NULL);
  return gst_cuda_gauss_blur_cuda_template_caps (caps);
}

static void
gst_cuda_gauss_blur_class_init (GstCudaGaussBlurClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_CONTROLLABLE | GST_PARAM_MUTABLE_PLAYING;
  GstCaps *caps;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_gauss_blur_debug, "cudagaussblur", 0,
      "CUDA Gaussian blur");

  gobject_class->set_property = gst_cuda_gauss_blur_set_property;
  gobject_class->get_property = gst_cuda_gauss_blur_get_property;
  gobject_class->finalize = gst_cuda_gauss_blur_finalize;

  /**
   * GstCudaGaussBlur:sigma:
   *
   * Standard deviation of the Gaussian in pixels, on both axes (sets
   * #GstCudaGaussBlur:sigma-x and #GstCudaGaussBlur:sigma-y; reads back
   * sigma-x). 0 passes the buffers through untouched; a negative sigma
   * sharpens with the Gaussian of |sigma| (see #GstCudaGaussBlur:amount).
   */
  g_object_class_install_property (gobject_class, PROP_SIGMA,
      g_param_spec_double ("sigma", "Sigma",
          "Standard deviation of the Gaussian in pixels, both axes "
          "(0 = passthrough, negative = sharpen)",
          -GB_MAX_SIGMA, GB_MAX_SIGMA, DEFAULT_SIGMA, flags));

  /**
   * GstCudaGaussBlur:sigma-x:
   *
   * Standard deviation along rows (horizontal). 0 leaves rows as they are
   * (a vertical-only blur if sigma-y is not 0). Negative sharpens, as for
   * #GstCudaGaussBlur:sigma: when either sigma-x or sigma-y is negative, the
   * frame is sharpened with the blur of |sigma-x| by |sigma-y|.
   */
  g_object_class_install_property (gobject_class, PROP_SIGMA_X,
      g_param_spec_double ("sigma-x", "Sigma X",
          "Horizontal standard deviation in pixels (negative = sharpen)",
          -GB_MAX_SIGMA, GB_MAX_SIGMA, DEFAULT_SIGMA, flags));

  /**
   * GstCudaGaussBlur:sigma-y:
   *
   * Standard deviation along columns (vertical), as
   * #GstCudaGaussBlur:sigma-x.
   */
  g_object_class_install_property (gobject_class, PROP_SIGMA_Y,
      g_param_spec_double ("sigma-y", "Sigma Y",
          "Vertical standard deviation in pixels (negative = sharpen)",
          -GB_MAX_SIGMA, GB_MAX_SIGMA, DEFAULT_SIGMA, flags));

  /**
   * GstCudaGaussBlur:amount:
   *
   * Strength of the sharpening when a sigma is negative:
   * out = in + amount (in - blur), clamped. The default, 1, doubles the
   * detail finer than sigma, the unsharp mask that gaussianblur's negative
   * sigma applies (gaussianblur filters each axis with 2 delta - Gaussian;
   * this is 2 delta - Gaussian in 2D). 0 leaves the frame as it is. Unused
   * while both sigmas are positive.
   */
  g_object_class_install_property (gobject_class, PROP_AMOUNT,
      g_param_spec_double ("amount", "Amount",
          "Sharpening strength for negative sigma: out = in + amount * "
          "(in - blur)", 0.0, MAX_AMOUNT, DEFAULT_AMOUNT, flags));

  /**
   * GstCudaGaussBlur:region-x:
   *
   * Left edge of the region that is blurred, in pixels. With
   * #GstCudaGaussBlur:region-width or #GstCudaGaussBlur:region-height 0
   * (the default) the whole frame is. The region is clipped to the frame
   * and, for subsampled chroma, widened to the chroma grid; pixels outside
   * it are copied unchanged.
   */
  g_object_class_install_property (gobject_class, PROP_REGION_X,
      g_param_spec_int ("region-x", "Region X",
          "Left edge of the blurred region in pixels", 0, G_MAXINT,
          DEFAULT_REGION, flags));
  /**
   * GstCudaGaussBlur:region-y:
   *
   * Top edge of the blurred region, in pixels.
   */
  g_object_class_install_property (gobject_class, PROP_REGION_Y,
      g_param_spec_int ("region-y", "Region Y",
          "Top edge of the blurred region in pixels", 0, G_MAXINT,
          DEFAULT_REGION, flags));
  /**
   * GstCudaGaussBlur:region-width:
   *
   * Width of the blurred region in pixels (0 = the whole frame).
   */
  g_object_class_install_property (gobject_class, PROP_REGION_WIDTH,
      g_param_spec_int ("region-width", "Region width",
          "Width of the blurred region in pixels (0 = whole frame)", 0,
          G_MAXINT, DEFAULT_REGION, flags));
  /**
   * GstCudaGaussBlur:region-height:
   *
   * Height of the blurred region in pixels (0 = the whole frame).
   */
  g_object_class_install_property (gobject_class, PROP_REGION_HEIGHT,
      g_param_spec_int ("region-height", "Region height",
          "Height of the blurred region in pixels (0 = whole frame)", 0,
          G_MAXINT, DEFAULT_REGION, flags));

  /**
   * GstCudaGaussBlur:radius:
   *
   * Taps on each side of the centre; 0 picks ceil(3.5 sigma).
   */
  g_object_class_install_property (gobject_class, PROP_RADIUS,
      g_param_spec_int ("radius", "Radius",
          "Kernel taps on each side of the centre (0 = automatic, "
          "ceil(3.5 * sigma))", 0, GB_MAX_RADIUS, DEFAULT_RADIUS, flags));

  /**
   * GstCudaGaussBlur:algorithm:
   *
   * How the blur is computed. The convolutions (naive, shared, separable,
   * fused) give the same output within one level per sample; recursive
   * approximates the untruncated Gaussian within one level and ignores
   * radius. They differ in speed (docs/performance.md). edge-aware is
   * another filter, which keeps edges sharp (#GstCudaGaussBlur:sigma-range,
   * #GstCudaGaussBlur:iterations, #GstCudaGaussBlur:kappa); auto never
   * picks it. Without a GPU it runs the exact filter on the CPU's cores,
   * about 0.6 s per 1080p RGBA frame on one core.
   */
  g_object_class_install_property (gobject_class, PROP_ALGORITHM,
      g_param_spec_enum ("algorithm", "Algorithm",
          "How the convolution is computed",
          GST_TYPE_CUDA_GAUSS_BLUR_ALGORITHM, DEFAULT_ALGORITHM, flags));

  /**
   * GstCudaGaussBlur:sigma-range:
   *
   * Edge-aware blur only: the range sigma, how large a difference between
   * neighbouring pixels counts as an edge, in 8-bit intensity levels (0 to
   * 255; 16-bit formats are scaled by 1/257 first, so one value suits
   * both). Each pixel step is stretched to sqrt(1 + (sigma / sigma-range)^2
   * d^2) pixels, d the step's distance over the plane's colour channels:
   * small values keep more edges (a cartoon look at large sigma), large
   * ones blur across them, approaching the plain Gaussian.
   */
  g_object_class_install_property (gobject_class, PROP_SIGMA_RANGE,
      g_param_spec_double ("sigma-range", "Range sigma",
          "Edge-aware: intensity difference that counts as an edge, in 8-bit "
          "levels (16-bit samples scaled by 1/257); smaller keeps more edges",
          MIN_SIGMA_RANGE, MAX_SIGMA_RANGE, DEFAULT_SIGMA_RANGE, flags));

  /**
   * GstCudaGaussBlur:iterations:
   *
   * Edge-aware blur only: how many times the rows, then the columns, are
   * filtered, each time with half the previous sigma (their variances sum
   * to sigma squared). More iterations leave fewer streaks along edges; the
   * cost grows in proportion.
   */
  g_object_class_install_property (gobject_class, PROP_ITERATIONS,
      g_param_spec_int ("iterations", "Iterations",
          "Edge-aware: row and column passes, each with half the previous "
          "sigma", 1, GB_MAX_ITERATIONS, DEFAULT_ITERATIONS, flags));

  /**
   * GstCudaGaussBlur:kappa:
   *
   * Edge-aware blur on the GPU only: lines are cut into segments, so that
   * more of the GPU works at once, and each is started kappa * sigma
   * pixels early from an estimated state (seed 004's Algorithm C). Larger
   * values are closer to the exact filter and slower (seed 004 finds 2
   * free of visible artefacts). 0 is exact: each segment starts from the
   * state carried exactly across the ones before it, at about the speed
   * of 1.5 (docs/performance.md). The CPU always computes the exact
   * filter.
   */
  g_object_class_install_property (gobject_class, PROP_KAPPA,
      g_param_spec_double ("kappa", "Kappa",
          "Edge-aware on the GPU: warm-up of each line segment, in sigmas "
          "(0 = exact: states carried across segments)", 0.0, GB_MAX_KAPPA,
          DEFAULT_KAPPA, flags));

  /**
   * GstCudaGaussBlur:sigma-map:
   *
   * Where each pixel's sigma comes from. none: #GstCudaGaussBlur:sigma
   * everywhere. Otherwise the blur varies over the frame, from 0 (sharp)
   * to sigma, by kernel superposition (seed 003; the algorithm is then
   * superposition-gather or -scatter, auto picking the faster, and any
   * other choice acts as auto): roi blurs the rectangles of the buffer's
   * GstVideoRegionOfInterestMeta (#GstCudaGaussBlur:roi-types,
   * #GstCudaGaussBlur:roi-feather), and lets buffers without any through
   * untouched; tilt-shift and radial keep a band or a disc sharp
   * (#GstCudaGaussBlur:focus-x and the other focus properties); image reads
   * a grayscale file (#GstCudaGaussBlur:sigma-map-location).
   */
  g_object_class_install_property (gobject_class, PROP_SIGMA_MAP,
      g_param_spec_enum ("sigma-map", "Sigma map",
          "Where each pixel's sigma comes from (spatially varying blur)",
          GST_TYPE_CUDA_GAUSS_BLUR_SIGMA_MAP, DEFAULT_SIGMA_MAP, flags));

  /**
   * GstCudaGaussBlur:roi-feather:
   *
   * sigma-map=roi: how many pixels outside each region the blur fades out
   * over (smoothly; 0: a hard edge). The region itself is blurred with
   * its full sigma up to its edge.
   */
  g_object_class_install_property (gobject_class, PROP_ROI_FEATHER,
      g_param_spec_double ("roi-feather", "ROI feather",
          "sigma-map=roi: pixels outside each region over which the blur "
          "fades out", 0.0, MAX_ROI_FEATHER, DEFAULT_ROI_FEATHER, flags));

  /**
   * GstCudaGaussBlur:roi-types:
   *
   * sigma-map=roi: a comma-separated list of the region types to blur (the
   * meta's roi_type, e.g. "face,license-plate"); empty or unset: every
   * region. A region whose meta carries a "cudagaussblur" parameter with a
   * "sigma" field is blurred with that sigma instead of
   * #GstCudaGaussBlur:sigma.
   */
  g_object_class_install_property (gobject_class, PROP_ROI_TYPES,
      g_param_spec_string ("roi-types", "ROI types",
          "sigma-map=roi: comma-separated region types to blur "
          "(empty = all)", NULL, flags & ~GST_PARAM_CONTROLLABLE));

  /**
   * GstCudaGaussBlur:focus-x:
   *
   * sigma-map=tilt-shift or radial: the horizontal position of the sharp
   * band's centre line or of the sharp disc's centre, as a fraction of the
   * width (#GstCudaGaussBlur:focus-y: of the height).
   */
  g_object_class_install_property (gobject_class, PROP_FOCUS_X,
      g_param_spec_double ("focus-x", "Focus x",
          "tilt-shift/radial: centre of the sharp part, fraction of the width",
          0.0, 1.0, DEFAULT_FOCUS_X, flags));
  g_object_class_install_property (gobject_class, PROP_FOCUS_Y,
      g_param_spec_double ("focus-y", "Focus y",
          "tilt-shift/radial: centre of the sharp part, fraction of the "
          "height", 0.0, 1.0, DEFAULT_FOCUS_Y, flags));

  /**
   * GstCudaGaussBlur:focus-size:
   *
   * The sharp part: for tilt-shift the band's width as a fraction of the
   * frame's height, for radial the disc's radius as a fraction of half the
   * frame's diagonal.
   */
  g_object_class_install_property (gobject_class, PROP_FOCUS_SIZE,
      g_param_spec_double ("focus-size", "Focus size",
          "tilt-shift: band width / height; radial: radius / half diagonal",
          0.0, 2.0, DEFAULT_FOCUS_SIZE, flags));

  /**
   * GstCudaGaussBlur:focus-transition:
   *
   * How far beyond the sharp part the blur takes to reach sigma, in the
   * units of #GstCudaGaussBlur:focus-size (0: at once).
   */
  g_object_class_install_property (gobject_class, PROP_FOCUS_TRANSITION,
      g_param_spec_double ("focus-transition", "Focus transition",
          "tilt-shift/radial: distance over which the blur grows to sigma, "
          "in focus-size's units", 0.0, 2.0, DEFAULT_FOCUS_TRANSITION, flags));

  /**
   * GstCudaGaussBlur:focus-angle:
   *
   * sigma-map=tilt-shift: the band's angle in degrees (0: horizontal,
   * counter-clockwise positive).
   */
  g_object_class_install_property (gobject_class, PROP_FOCUS_ANGLE,
      g_param_spec_double ("focus-angle", "Focus angle",
          "tilt-shift: angle of the sharp band in degrees", -180.0, 180.0,
          DEFAULT_FOCUS_ANGLE, flags));

  /**
   * GstCudaGaussBlur:sigma-map-location:
   *
   * sigma-map=image: a grayscale PGM or PNG file (PNG where the plugin was
   * built with libpng), scaled to the frame; a value v gives sigma * v /
   * 255. Read when the first frame needs it and again when this changes; a
   * file that cannot be read is an element error.
   */
  g_object_class_install_property (gobject_class, PROP_SIGMA_MAP_LOCATION,
      g_param_spec_string ("sigma-map-location", "Sigma map location",
          "sigma-map=image: grayscale PGM or PNG file, white = sigma", NULL,
          flags & ~GST_PARAM_CONTROLLABLE));

  /**
   * GstCudaGaussBlur:normalize:
   *
   * Spatially varying blur: divide each output by the weight of the kernels
   * that reach it, so that flat areas stay flat where sigma changes (no
   * bright or dark halo around a blurred region). FALSE gives seed 003's
   * plain superposition, in which every pixel keeps its mass: a sharp pixel
   * beside a blurred one also receives what the blurred one spreads.
   */
  g_object_class_install_property (gobject_class, PROP_NORMALIZE,
      g_param_spec_boolean ("normalize", "Normalize",
          "Spatially varying blur: divide by the weight reaching each pixel "
          "(no halo where sigma changes; FALSE: seed 003's plain "
          "superposition)", DEFAULT_NORMALIZE, flags));

  /**
   * GstCudaGaussBlur:frames-in-flight:
   *
   * How many frames in system memory may be on the GPU at once. With 1
   * (the default) each frame is blurred and pushed before the next is
   * taken. With more, the streaming thread only starts a frame's upload,
   * blur and download and goes on with the next input, while a thread of
   * the element pushes each frame as soon as it is done: one frame's
   * download overlaps the next one's upload on the GPU's two copy engines
   * (docs/performance.md has the frames per second it gives). A frame
   * still goes out as soon as it is blurred, never waiting for a later
   * input, so the element adds no latency; what the queue can hold is
   * added to the maximum latency it reports. Frames in CUDA memory and the
   * CPU backend's frames are blurred one at a time whatever this says
   * (the CPU's are pushed by the element's thread all the same).
   */
  g_object_class_install_property (gobject_class, PROP_FRAMES_IN_FLIGHT,
      g_param_spec_uint ("frames-in-flight", "Frames in flight",
          "Frames in system memory on the GPU at once (1: each is out "
          "before the next comes in; more overlap their copies)",
          1, GB_MAX_FRAMES_IN_FLIGHT, DEFAULT_FRAMES_IN_FLIGHT, flags));

  /**
   * GstCudaGaussBlur:border:
   *
   * Which samples stand in for those outside the frame.
   */
  g_object_class_install_property (gobject_class, PROP_BORDER,
      g_param_spec_enum ("border", "Border",
          "Which samples stand in for those outside the frame",
          GST_TYPE_CUDA_GAUSS_BLUR_BORDER, DEFAULT_BORDER, flags));

  /**
   * GstCudaGaussBlur:backend:
   *
   * Where the blur runs. With auto, the CPU stands in (after one element
   * warning) when no CUDA device is usable; with cuda, that is an error.
   */
  g_object_class_install_property (gobject_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend", "Where the blur runs",
          GST_TYPE_CUDA_GAUSS_BLUR_BACKEND, DEFAULT_BACKEND, flags));

  /**
   * GstCudaGaussBlur:cuda-device-id:
   *
   * The CUDA device to blur on; -1 takes the device of the CUDA context
   * the pipeline shares (upstream's frames in CUDA memory stay where they
   * are), or device 0. Frames in CUDA memory of another device cross
   * through host memory (with a warning).
   */
  g_object_class_install_property (gobject_class, PROP_CUDA_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA device ID",
          "The CUDA device to blur on (-1 = the pipeline's CUDA context, "
          "or the default device)",
          -1, G_MAXINT, DEFAULT_CUDA_DEVICE_ID, flags));

  gst_element_class_set_static_metadata (element_class,
      "CUDA Gaussian blur", "Filter/Effect/Video",
      "Blurs video with a Gaussian kernel on a CUDA GPU or the CPU",
      "The cudagaussblur authors");

  caps = gst_cuda_gauss_blur_make_caps ();
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);

  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_cuda_gauss_blur_set_context);

  trans_class->start = GST_DEBUG_FUNCPTR (gst_cuda_gauss_blur_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_gauss_blur_stop);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_cuda_gauss_blur_query);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_gauss_blur_transform_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cuda_gauss_blur_set_caps);
  trans_class->transform_size =
      GST_DEBUG_FUNCPTR (gst_cuda_gauss_blur_transform_size);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_gauss_blur_propose_allocation);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_gauss_blur_decide_allocation);
  trans_class->transform_meta =
      GST_DEBUG_FUNCPTR (gst_cuda_gauss_blur_transform_meta);
  trans_class->before_transform =
      GST_DEBUG_FUNCPTR (gst_cuda_gauss_blur_before_transform);
  trans_class->submit_input_buffer =
      GST_DEBUG_FUNCPTR (gst_cuda_gauss_blur_submit_input_buffer);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cuda_gauss_blur_transform);
  trans_class->prepare_output_buffer =
      GST_DEBUG_FUNCPTR (gst_cuda_gauss_blur_prepare_output_buffer);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_cuda_gauss_blur_generate_output);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cuda_gauss_blur_sink_event);

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_GAUSS_BLUR_ALGORITHM, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_GAUSS_BLUR_BORDER, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_GAUSS_BLUR_SIGMA_MAP, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_GAUSS_BLUR_BACKEND, 0);
}

static void
gst_cuda_gauss_blur_init (GstCudaGaussBlur * self)
{
  self->sigma_x = DEFAULT_SIGMA;
  self->sigma_y = DEFAULT_SIGMA;
  self->amount = DEFAULT_AMOUNT;
  self->radius = DEFAULT_RADIUS;
  self->sigma_range = DEFAULT_SIGMA_RANGE;
  self->iterations = DEFAULT_ITERATIONS;
  self->kappa = DEFAULT_KAPPA;
  self->algorithm = DEFAULT_ALGORITHM;
  self->border = DEFAULT_BORDER;
  self->backend = DEFAULT_BACKEND;
  self->cuda_device_id = DEFAULT_CUDA_DEVICE_ID;
  self->sigma_map = DEFAULT_SIGMA_MAP;
  self->roi_feather = DEFAULT_ROI_FEATHER;
  self->focus_x = DEFAULT_FOCUS_X;
  self->focus_y = DEFAULT_FOCUS_Y;
  self->focus_size = DEFAULT_FOCUS_SIZE;
  self->focus_transition = DEFAULT_FOCUS_TRANSITION;
  self->focus_angle = DEFAULT_FOCUS_ANGLE;
  self->normalize = DEFAULT_NORMALIZE;
  self->frames_in_flight = DEFAULT_FRAMES_IN_FLIGHT;
  self->blur_frames_in_flight = 1;
  self->regions = g_array_new (FALSE, FALSE, sizeof (GbSigmaRegion));
  gst_video_info_init (&self->info);
  self->frame_duration = GST_CLOCK_TIME_NONE;
}

/* The core's CUDA calls run in the handle's context (it was made with
 * GB_DEVICE_CURRENT_CONTEXT): enter pushes it, leave pops it. Without a
 * context (CPU, or no GStreamer CUDA library) both do nothing. */
static gboolean
gst_cuda_gauss_blur_enter (GstCudaGaussBlur * self)
{
  if (!self->blur_context)
    return FALSE;
  if (!gst_cuda_gauss_blur_context_push (self->blur_context)) {
    GST_ERROR_OBJECT (self, "cannot make the CUDA context current");
    return FALSE;
  }
  return TRUE;
}

/* A handle of a context that could not be made current must not run: its
 * streams and memory belong to that context. Posts the error. */
static gboolean
gst_cuda_gauss_blur_entered_or_fail (GstCudaGaussBlur * self,
    gboolean entered)
{
  if (entered || !self->blur_context)
    return TRUE;
  GST_ELEMENT_ERROR (self, LIBRARY, FAILED,
      ("Cannot make the pipeline's CUDA context current"), (NULL));
  return FALSE;
}

static void
gst_cuda_gauss_blur_leave (gboolean entered)
{
  if (entered)
    gst_cuda_gauss_blur_context_pop ();
}

static void
gst_cuda_gauss_blur_destroy_blur (GstCudaGaussBlur * self)
{
  if (self->blur) {
    gboolean entered = gst_cuda_gauss_blur_enter (self);

    /* outside its context the handle's memory is lost rather than freed
     * in the wrong one */
    if (entered || !self->blur_context)
      gb_blur_destroy (self->blur);
    gst_cuda_gauss_blur_leave (entered);
    self->blur = NULL;
  }
  gst_clear_object (&self->blur_context);
}

/* Takes the pipeline's CUDA context for device_id (-1: any device), or
 * makes one and announces it; once per device_id when none can be had. */
static void
gst_cuda_gauss_blur_ensure_context (GstCudaGaussBlur * self, gint device_id)
{
  /* the device read once per context (a property, not per frame) */
  if (self->cuda_context && self->checked_context != self->cuda_context) {
    self->cuda_context_device =
        gst_cuda_gauss_blur_context_device (self->cuda_context);
    self->checked_context = self->cuda_context;
  }
  if (self->cuda_context && device_id >= 0
      && self->cuda_context_device != device_id) {
    GST_OBJECT_LOCK (self);
    gst_clear_object (&self->cuda_context);
    self->checked_context = NULL;
    GST_OBJECT_UNLOCK (self);
  }
  if (self->cuda_context || (self->context_tried
          && self->context_tried_device == device_id))
    return;
  self->context_tried = TRUE;
  self->context_tried_device = device_id;
  if (gst_cuda_gauss_blur_context_ensure (GST_ELEMENT (self), device_id,
          &self->cuda_context))
    GST_INFO_OBJECT (self, "CUDA context %" GST_PTR_FORMAT " (device %d)",
        self->cuda_context,
        gst_cuda_gauss_blur_context_device (self->cuda_context));
  else if (gst_cuda_gauss_blur_cuda_memory_supported ())
    GST_INFO_OBJECT (self, "no CUDA context for device %d", device_id);
}

static void
gst_cuda_gauss_blur_finalize (GObject * object)
{
  GstCudaGaussBlur *self = GST_CUDA_GAUSS_BLUR (object);

  gst_cuda_gauss_blur_destroy_blur (self);
  gst_clear_object (&self->cuda_context);
  self->checked_context = NULL;
  g_free (self->roi_types);
  g_strfreev (self->roi_type_list);
  g_free (self->sigma_map_location);
  g_free (self->map);
  g_free (self->map_image);
  g_free (self->map_image_location);
  g_array_unref (self->regions);
  gst_clear_caps (&self->refused_caps);
  g_free (self->refused_why);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* Whether the settings leave every frame as it is: both sigmas 0, or a
 * sharpening of amount 0. Call with the object lock held. */
static gboolean
gst_cuda_gauss_blur_is_identity (GstCudaGaussBlur * self)
{
  /* amount as the core stores it (a float): a tiny one is 0 there */
  return (self->sigma_x == 0.0 && self->sigma_y == 0.0)
      || ((self->sigma_x < 0.0 || self->sigma_y < 0.0)
      && (gfloat) self->amount == 0.0f);
}

/* The identity lets the input buffers through. */
static void
gst_cuda_gauss_blur_update_passthrough (GstCudaGaussBlur * self)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  gboolean passthrough;

  GST_OBJECT_LOCK (self);
  passthrough = gst_cuda_gauss_blur_is_identity (self);
  GST_OBJECT_UNLOCK (self);

  if (passthrough != gst_base_transform_is_passthrough (trans)) {
    GST_DEBUG_OBJECT (self, "passthrough %s", passthrough ? "on" : "off");
    gst_base_transform_set_passthrough (trans, passthrough);
    /* Leaving passthrough needs an output pool of our own, and upstream
     * should take our (pinned) pool rather than downstream's; entering it
     * lets upstream allocate from downstream again. */
    gst_base_transform_reconfigure_src (trans);
    gst_base_transform_reconfigure_sink (trans);
  }
}

static void
gst_cuda_gauss_blur_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaGaussBlur *self = GST_CUDA_GAUSS_BLUR (object);
  gboolean streaming;

  GST_OBJECT_LOCK (self);
  streaming = GST_STATE (self) >= GST_STATE_PAUSED
      || GST_STATE_PENDING (self) >= GST_STATE_PAUSED;
  switch (prop_id) {
    case PROP_SIGMA:
      GST_DEBUG_OBJECT (self, "sigma %g x %g -> %g", self->sigma_x,
          self->sigma_y, g_value_get_double (value));
      self->sigma_x = self->sigma_y = g_value_get_double (value);
      break;
    case PROP_SIGMA_X:
      self->sigma_x = g_value_get_double (value);
      break;
    case PROP_SIGMA_Y:
      self->sigma_y = g_value_get_double (value);
      break;
    case PROP_AMOUNT:
      self->amount = g_value_get_double (value);
      break;
    case PROP_REGION_X:
      self->region.x = g_value_get_int (value);
      break;
    case PROP_REGION_Y:
      self->region.y = g_value_get_int (value);
      break;
    case PROP_REGION_WIDTH:
      self->region.width = g_value_get_int (value);
      break;
    case PROP_REGION_HEIGHT:
      self->region.height = g_value_get_int (value);
      break;
    case PROP_RADIUS:
      self->radius = g_value_get_int (value);
      break;
    case PROP_SIGMA_RANGE:
      self->sigma_range = g_value_get_double (value);
      break;
    case PROP_ITERATIONS:
      self->iterations = g_value_get_int (value);
      break;
    case PROP_KAPPA:
      self->kappa = g_value_get_double (value);
      break;
    case PROP_ALGORITHM:
      self->algorithm = g_value_get_enum (value);
      break;
    case PROP_BORDER:
      self->border = g_value_get_enum (value);
      break;
    case PROP_BACKEND:
      /* the handle is re-created at the next frame */
      self->backend = g_value_get_enum (value);
      break;
    case PROP_CUDA_DEVICE_ID:
      self->cuda_device_id = g_value_get_int (value);
      break;
    case PROP_SIGMA_MAP:
      self->sigma_map = g_value_get_enum (value);
      break;
    case PROP_ROI_FEATHER:
      self->roi_feather = g_value_get_double (value);
      break;
    case PROP_ROI_TYPES:
      g_free (self->roi_types);
      g_strfreev (self->roi_type_list);
      self->roi_types = g_value_dup_string (value);
      self->roi_type_list = gst_roi_regions_parse_types (self->roi_types);
      break;
    case PROP_FOCUS_X:
      self->focus_x = g_value_get_double (value);
      break;
    case PROP_FOCUS_Y:
      self->focus_y = g_value_get_double (value);
      break;
    case PROP_FOCUS_SIZE:
      self->focus_size = g_value_get_double (value);
      break;
    case PROP_FOCUS_TRANSITION:
      self->focus_transition = g_value_get_double (value);
      break;
    case PROP_FOCUS_ANGLE:
      self->focus_angle = g_value_get_double (value);
      break;
    case PROP_SIGMA_MAP_LOCATION:
      g_free (self->sigma_map_location);
      self->sigma_map_location = g_value_dup_string (value);
      break;
    case PROP_NORMALIZE:
      self->normalize = g_value_get_boolean (value);
      break;
    case PROP_FRAMES_IN_FLIGHT:
      self->frames_in_flight = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  /* The static maps follow the sigma and their shapes. */
  self->map_changed = TRUE;
  GST_OBJECT_UNLOCK (self);

  /* While frames may flow, passthrough changes on the streaming thread
   * only (before_transform): switched from here, a buffer between
   * GstBaseTransform's two looks at it went out as an output buffer never
   * written, or was transformed into itself (a flow error). */
  if (!streaming && (prop_id == PROP_SIGMA || prop_id == PROP_SIGMA_X
          || prop_id == PROP_SIGMA_Y || prop_id == PROP_AMOUNT))
    gst_cuda_gauss_blur_update_passthrough (self);
  /* Where the blur runs decides the memory it takes (backend=cpu: system
   * memory only) and the context of its pools: negotiate again. */
  if (prop_id == PROP_BACKEND || prop_id == PROP_CUDA_DEVICE_ID) {
    gst_base_transform_reconfigure_sink (GST_BASE_TRANSFORM (self));
    gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
  }
}

static void
gst_cuda_gauss_blur_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaGaussBlur *self = GST_CUDA_GAUSS_BLUR (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_SIGMA:
    case PROP_SIGMA_X:
      g_value_set_double (value, self->sigma_x);
      break;
    case PROP_SIGMA_Y:
      g_value_set_double (value, self->sigma_y);
      break;
    case PROP_AMOUNT:
      g_value_set_double (value, self->amount);
      break;
    case PROP_REGION_X:
      g_value_set_int (value, self->region.x);
      break;
    case PROP_REGION_Y:
      g_value_set_int (value, self->region.y);
      break;
    case PROP_REGION_WIDTH:
      g_value_set_int (value, self->region.width);
      break;
    case PROP_REGION_HEIGHT:
      g_value_set_int (value, self->region.height);
      break;
    case PROP_RADIUS:
      g_value_set_int (value, self->radius);
      break;
    case PROP_SIGMA_RANGE:
      g_value_set_double (value, self->sigma_range);
      break;
    case PROP_ITERATIONS:
      g_value_set_int (value, self->iterations);
      break;
    case PROP_KAPPA:
      g_value_set_double (value, self->kappa);
      break;
    case PROP_ALGORITHM:
      g_value_set_enum (value, self->algorithm);
      break;
    case PROP_BORDER:
      g_value_set_enum (value, self->border);
      break;
    case PROP_BACKEND:
      g_value_set_enum (value, self->backend);
      break;
    case PROP_CUDA_DEVICE_ID:
      g_value_set_int (value, self->cuda_device_id);
      break;
    case PROP_SIGMA_MAP:
      g_value_set_enum (value, self->sigma_map);
      break;
    case PROP_ROI_FEATHER:
      g_value_set_double (value, self->roi_feather);
      break;
    case PROP_ROI_TYPES:
      g_value_set_string (value, self->roi_types);
      break;
    case PROP_FOCUS_X:
      g_value_set_double (value, self->focus_x);
      break;
    case PROP_FOCUS_Y:
      g_value_set_double (value, self->focus_y);
      break;
    case PROP_FOCUS_SIZE:
      g_value_set_double (value, self->focus_size);
      break;
    case PROP_FOCUS_TRANSITION:
      g_value_set_double (value, self->focus_transition);
      break;
    case PROP_FOCUS_ANGLE:
      g_value_set_double (value, self->focus_angle);
      break;
    case PROP_SIGMA_MAP_LOCATION:
      g_value_set_string (value, self->sigma_map_location);
      break;
    case PROP_NORMALIZE:
      g_value_set_boolean (value, self->normalize);
      break;
    case PROP_FRAMES_IN_FLIGHT:
      g_value_set_uint (value, self->frames_in_flight);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* Posts a core failure as an element error carrying the core's message. */
static void
gst_cuda_gauss_blur_post_error (GstCudaGaussBlur * self, const gchar * what,
    const GbError * error)
{
  switch (error->status) {
    case GB_ERROR_NO_DEVICE:
      GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
          ("%s: %s", what, error->message),
          ("core status: %s", gb_status_name (error->status)));
      break;
    case GB_ERROR_OUT_OF_MEMORY:
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("%s: %s", what, error->message),
          ("core status: %s", gb_status_name (error->status)));
      break;
    default:
      GST_ELEMENT_ERROR (self, LIBRARY, FAILED,
          ("%s: %s", what, error->message),
          ("core status: %s", gb_status_name (error->status)));
      break;
  }
}

/* Makes sure a core handle exists for the negotiated geometry and for the
 * current backend, cuda-device-id and CUDA context, re-creating it when
 * those changed. With the CUDA backend it runs in the pipeline's shared
 * CUDA context (or, without GStreamer's CUDA library, in the device's
 * primary context). A failure is posted once; the same settings then fail
 * quietly (upstream retries negotiation) until they change or the element
 * stops. */
static gboolean
gst_cuda_gauss_blur_ensure_blur (GstCudaGaussBlur * self)
{
  GstCudaGaussBlurBackend backend;
  GstObject *context = NULL;
  gint device_id;
  GbError error = { 0 };
  GbStatus status;

  GST_OBJECT_LOCK (self);
  backend = self->backend;
  device_id = self->cuda_device_id;
  GST_OBJECT_UNLOCK (self);

  if (backend != GST_CUDA_GAUSS_BLUR_BACKEND_CPU) {
    gst_cuda_gauss_blur_ensure_context (self, device_id);
    context = self->cuda_context;
  }
  if (backend == self->blur_backend && device_id == self->blur_device_id
      && context == self->blur_context) {
    if (self->blur)
      return TRUE;
    if (self->blur_failed)
      return FALSE;
  }

  /* The frames in flight need the old handle until they are out (or
   * dropped: a failed push comes back with the next frame). */
  gst_cuda_gauss_blur_wait_for_frames (self);
  gst_cuda_gauss_blur_destroy_blur (self);
  self->blur_frames_in_flight = 1;
  self->map_valid = self->core_has_map = FALSE;
  self->blur_backend = backend;
  self->blur_device_id = device_id;
  self->blur_context = context ? gst_object_ref (context) : NULL;
  self->blur_failed = TRUE;

  if (backend != GST_CUDA_GAUSS_BLUR_BACKEND_CPU) {
    if (context) {
      gboolean entered = gst_cuda_gauss_blur_enter (self);

      status = entered ? gb_blur_create (GB_BACKEND_CUDA,
          GB_DEVICE_CURRENT_CONTEXT, &self->geometry, &self->blur, &error)
          : gb_error_set (&error, GB_ERROR_CUDA,
          "cannot make the pipeline's CUDA context current");
      gst_cuda_gauss_blur_leave (entered);
    } else {
      /* No shared context: the runtime's own, whose failure says best
       * why no device is usable. */
      status = gb_blur_create (GB_BACKEND_CUDA, device_id, &self->geometry,
          &self->blur, &error);
    }
    if (status == GB_OK) {
      GST_INFO_OBJECT (self, "blurring on CUDA device %d (%s context)",
          context ? gst_cuda_gauss_blur_context_device (context) : device_id,
          context ? "the pipeline's" : "the primary");
      self->blur_failed = FALSE;
      return TRUE;
    }
    if (backend == GST_CUDA_GAUSS_BLUR_BACKEND_CUDA
        || status != GB_ERROR_NO_DEVICE) {
      gst_cuda_gauss_blur_post_error (self, "Cannot blur with CUDA", &error);
      return FALSE;
    }
    if (!self->cpu_fallback_warned) {
      GST_ELEMENT_WARNING (self, RESOURCE, NOT_FOUND,
          ("Blurring on the CPU: %s", error.message), (NULL));
      self->cpu_fallback_warned = TRUE;
    }
  }

  status = gb_blur_create (GB_BACKEND_CPU, -1, &self->geometry, &self->blur,
      &error);
  if (status != GB_OK) {
    gst_cuda_gauss_blur_post_error (self, "Cannot blur on the CPU", &error);
    return FALSE;
  }
  GST_INFO_OBJECT (self, "blurring on the CPU");
  self->blur_failed = FALSE;
  return TRUE;
}

/* Whether an error about these caps, for this reason, is news, recorded
 * if so: the base class tries the same caps again at every buffer
 * (set_caps (), decide_allocation ()), and the application has its error
 * already. Until the element stops. */
static gboolean
gst_cuda_gauss_blur_caps_error_is_new (GstCudaGaussBlur * self,
    GstCaps * caps, const gchar * why)
{
  if (self->refused_caps && gst_caps_is_equal (caps, self->refused_caps)
      && g_strcmp0 (why, self->refused_why) == 0) {
    GST_DEBUG_OBJECT (self, "refused again: %s", why);
    return FALSE;
  }
  gst_caps_replace (&self->refused_caps, caps);
  g_free (self->refused_why);
  self->refused_why = g_strdup (why);
  return TRUE;
}

/* Refuses caps with a negotiation error saying why (a printf format),
 * once. */
static void G_GNUC_PRINTF (3, 4)
gst_cuda_gauss_blur_refuse_caps (GstCudaGaussBlur * self, GstCaps * caps,
    const gchar * format, ...)
{
  va_list args;
  gchar *why;

  va_start (args, format);
  why = g_strdup_vprintf (format, args);
  va_end (args);
  if (gst_cuda_gauss_blur_caps_error_is_new (self, caps, why))
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s", why), (NULL));
  g_free (why);
}

static gboolean
gst_cuda_gauss_blur_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstCudaGaussBlur *self = GST_CUDA_GAUSS_BLUR (trans);
  GstVideoInfo in_info, out_info;
  GbGeometry geometry;
  GbError error = { 0 };
  gboolean in_cuda_memory;

  GST_DEBUG_OBJECT (self, "in %" GST_PTR_FORMAT " out %" GST_PTR_FORMAT,
      incaps, outcaps);

  if (!gst_video_info_from_caps (&in_info, incaps)
      || !gst_video_info_from_caps (&out_info, outcaps)) {
    GST_ERROR_OBJECT (self, "invalid caps");
    return FALSE;
  }
  if (GST_VIDEO_INFO_FORMAT (&in_info) != GST_VIDEO_INFO_FORMAT (&out_info)
      || in_info.width != out_info.width
      || in_info.height != out_info.height) {
    GST_ERROR_OBJECT (self, "input and output differ in format or size");
    return FALSE;
  }
  /* (the templates take progressive video only) */
  if (GST_VIDEO_INFO_IS_INTERLACED (&in_info)) {
    GST_ERROR_OBJECT (self, "interlaced video is not supported");
    return FALSE;
  }

  if (in_info.width != self->info.width
      || in_info.height != self->info.height) {
    /* (made again at the size of the first frame that needs one) */
    g_clear_pointer (&self->map, g_free);
    /* the core drops a map of another size */
    self->map_valid = self->core_has_map = FALSE;
  }
  self->info = in_info;
  GST_OBJECT_LOCK (self);
  self->frame_duration = GST_VIDEO_INFO_FPS_N (&in_info) > 0
      ? gst_util_uint64_scale_int (GST_SECOND, GST_VIDEO_INFO_FPS_D (&in_info),
      GST_VIDEO_INFO_FPS_N (&in_info)) : GST_CLOCK_TIME_NONE;
  GST_OBJECT_UNLOCK (self);
  gst_cuda_gauss_blur_geometry_from_info (&in_info, &geometry);
  /* a failure for another geometry says nothing about this one */
  if (memcmp (&geometry, &self->geometry, sizeof geometry) != 0)
    self->blur_failed = FALSE;
  self->geometry = geometry;

  in_cuda_memory = gst_cuda_gauss_blur_caps_in_cuda_memory (incaps);
  if (in_cuda_memory && GST_VIDEO_INFO_FORMAT (&in_info)
      == GST_VIDEO_FORMAT_NV21 && in_info.height % 2) {
    /* GStreamer 1.22's CUDA allocator rounds odd heights up for I420,
     * YV12, NV12 and P016, not for NV21: its last chroma row would lie
     * beyond the allocation */
    gst_cuda_gauss_blur_refuse_caps (self, incaps, "NV21 frames of odd "
        "height (%d) do not fit GStreamer's CUDA memory: use NV12, an even "
        "height, or system memory", in_info.height);
    return FALSE;
  }

  /* Frames in CUDA memory need a context for the output pool, with
   * backend=cpu too (which maps them to the host); without one no device
   * is usable, and such frames cannot exist. Checked before the handle is
   * made, which would warn of a CPU blur that will not happen. */
  if (in_cuda_memory) {
    gint device_id;

    GST_OBJECT_LOCK (self);
    device_id = self->cuda_device_id;
    GST_OBJECT_UNLOCK (self);
    gst_cuda_gauss_blur_ensure_context (self, device_id);
    if (!self->cuda_context) {
      gst_cuda_gauss_blur_refuse_caps (self, incaps, "Frames in CUDA memory "
          "(memory:CUDAMemory) need a usable CUDA device, and there is none "
          "(cuda-device-id %d)", device_id);
      return FALSE;
    }
  }
  if (!gst_cuda_gauss_blur_ensure_blur (self))
    return FALSE;
  {
    /* A handle made before keeps its buffers where the geometry allows;
     * one just made has this geometry already, and this does nothing. */
    gboolean entered = gst_cuda_gauss_blur_enter (self);
    GbStatus status;

    if (!gst_cuda_gauss_blur_entered_or_fail (self, entered))
      return FALSE;
    status = gb_blur_set_geometry (self->blur, &self->geometry, &error);
    gst_cuda_gauss_blur_leave (entered);
    if (status != GB_OK) {
      if (gst_cuda_gauss_blur_caps_error_is_new (self, incaps, error.message))
        gst_cuda_gauss_blur_post_error (self, "Cannot blur this video",
            &error);
      return FALSE;
    }
  }
  return TRUE;
}

/* The output's caps are the input's. backend=cpu prefers system memory
 * (frames in CUDA memory are mapped to the host for it, through
 * GStreamer's copies), so that upstream gives system memory where it can. */
static GstCaps *
gst_cuda_gauss_blur_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCudaGaussBlur *self = GST_CUDA_GAUSS_BLUR (trans);
  GstCaps *result = filter ? gst_caps_intersect_full (filter, caps,
      GST_CAPS_INTERSECT_FIRST) : gst_caps_ref (caps);
  gboolean cpu;

  GST_OBJECT_LOCK (self);
  cpu = self->backend == GST_CUDA_GAUSS_BLUR_BACKEND_CPU;
  GST_OBJECT_UNLOCK (self);
  if (cpu)
    result = gst_cuda_gauss_blur_caps_system_memory_first (result);
  return result;
}

/* The output buffer has the output caps' size, whatever padding the input
 * buffer's video meta describes. */
static gboolean
gst_cuda_gauss_blur_transform_size (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, gsize size, GstCaps * othercaps,
    gsize * othersize)
{
  GstVideoInfo info;

  if (!gst_video_info_from_caps (&info, othercaps))
    return FALSE;
  *othersize = GST_VIDEO_INFO_SIZE (&info);
  return TRUE;
}

/* Pinned memory pays where frames cross to the GPU: with the CUDA backend. */
static gboolean
gst_cuda_gauss_blur_wants_pinned (GstCudaGaussBlur * self)
{
  return self->blur && gb_blur_get_backend (self->blur) == GB_BACKEND_CUDA;
}

/* Buffers a pool of ours keeps at least: one being filled, one being
 * blurred. */
#define PINNED_POOL_MIN_BUFFERS 2

/* The buffer size a configured pool makes (or fallback). */
static guint
gst_cuda_gauss_blur_pool_size (GstBufferPool * pool, guint fallback)
{
  GstStructure *config = gst_buffer_pool_get_config (pool);
  guint size = fallback;

  if (!gst_buffer_pool_config_get_params (config, NULL, &size, NULL, NULL))
    size = fallback;
  gst_structure_free (config);
  return size;
}

static gboolean
gst_cuda_gauss_blur_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstCudaGaussBlur *self = GST_CUDA_GAUSS_BLUR (trans);
  GstCaps *caps;
  GstVideoInfo info;

  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->propose_allocation (trans,
          decide_query, query))
    return FALSE;

  /* In passthrough (no decide_query) downstream answered for us. */
  if (!decide_query)
    return TRUE;
  /* Upstream may pad its rows: we map through its video meta. */
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);

  gst_query_parse_allocation (query, &caps, NULL);
  /* Frames in CUDA memory: a CUDA pool of our context, so that upstream's
   * frames are ours to read without a copy. */
  if (caps && gst_cuda_gauss_blur_caps_in_cuda_memory (caps)) {
    guint size = 0;
    GstBufferPool *pool = self->cuda_context ?
        gst_cuda_gauss_blur_cuda_pool_new (self->cuda_context, caps, 0, 0,
        &size) : NULL;

    if (pool) {
      gst_query_add_allocation_pool (query, pool, size, 0, 0);
      gst_object_unref (pool);
      GST_DEBUG_OBJECT (self, "proposed a CUDA pool upstream");
    }
    return TRUE;
  }

  /* Upstream writes its frames straight into pinned memory: the upload is
   * DMA at the bus's speed, no staging. A pool for elements that take one,
   * the allocator for those that make their own. The pool's rows are the
   * caps' own: whether to add video meta and pad is upstream's choice, and
   * one that never reads a meta writes packed rows. */
  if (caps && gst_cuda_gauss_blur_wants_pinned (self)
      && gst_video_info_from_caps (&info, caps)) {
    GstBufferPool *pool = gst_cuda_gauss_blur_pinned_pool_new (caps, &info,
        PINNED_POOL_MIN_BUFFERS, 0, FALSE);
    GstAllocator *allocator = gst_cuda_gauss_blur_pinned_allocator_get ();

    if (pool && allocator) {
      GstAllocationParams params;
      gst_allocation_params_init (&params);
      gst_query_add_allocation_pool (query, pool, GST_VIDEO_INFO_SIZE (&info),
          PINNED_POOL_MIN_BUFFERS, 0);
      gst_query_add_allocation_param (query, allocator, &params);
      GST_DEBUG_OBJECT (self, "proposed a pinned pool upstream");
    }
    if (pool)
      gst_object_unref (pool);
    if (allocator)
      gst_object_unref (allocator);
  }
  return TRUE;
}

/* A plain pool: GStreamer's generic ones, which take any allocator. */
static gboolean
gst_cuda_gauss_blur_is_plain_pool (GstBufferPool * pool)
{
  return !pool || G_OBJECT_TYPE (pool) == GST_TYPE_BUFFER_POOL
      || G_OBJECT_TYPE (pool) == GST_TYPE_VIDEO_BUFFER_POOL;
}

/* Output frames in CUDA memory: downstream's CUDA pool where it is of our
 * context, else one of ours; never a pool of system memory. */
static gboolean
gst_cuda_gauss_blur_decide_cuda_allocation (GstCudaGaussBlur * self,
    GstQuery * query, GstCaps * caps)
{
  GstBufferPool *pool = NULL;
  guint size = 0, min = 0, max = 0;
  gboolean have_pool = gst_query_get_n_allocation_pools (query) > 0;

  if (!self->cuda_context) {
    gst_cuda_gauss_blur_refuse_caps (self, caps,
        "Frames in CUDA memory out, but no CUDA context");
    return FALSE;
  }
  if (have_pool) {
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
    if (pool && !gst_cuda_gauss_blur_is_cuda_pool (pool, self->cuda_context))
      gst_clear_object (&pool);
  }
  if (pool) {
    GstStructure *config = gst_buffer_pool_get_config (pool);

    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
    gst_buffer_pool_config_set_params (config, caps, size, min, max);
    if (!gst_buffer_pool_set_config (pool, config))
      gst_clear_object (&pool);
    else
      size = gst_cuda_gauss_blur_pool_size (pool, size);
  }
  if (!pool) {
    min = MAX (min, PINNED_POOL_MIN_BUFFERS);
    if (max != 0 && max < min)
      max = min;
    pool = gst_cuda_gauss_blur_cuda_pool_new (self->cuda_context, caps, min,
        max, &size);
  }
  if (!pool) {
    if (gst_cuda_gauss_blur_caps_error_is_new (self, caps,
            "no CUDA output pool"))
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Cannot allocate output frames in CUDA memory"), (NULL));
    return FALSE;
  }
  if (have_pool)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
  gst_object_unref (pool);
  GST_DEBUG_OBJECT (self, "output frames from a CUDA pool");
  return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation
      (GST_BASE_TRANSFORM (self), query);
}

/* Output buffers: downstream's memory where it offers its own (a sink knows
 * its memory best); where it offers only plain system memory (no allocator,
 * or the system one, and no pool or a generic one, as video filters do),
 * pinned memory, so that the download is DMA too: the pinned allocator
 * first (the base class configures the first pool with the first
 * allocator), and a pinned pool of ours where downstream has none. */
static gboolean
gst_cuda_gauss_blur_decide_allocation (GstBaseTransform * trans,
    GstQuery * query)
{
  GstCudaGaussBlur *self = GST_CUDA_GAUSS_BLUR (trans);
  GstAllocator *offered = NULL, *allocator = NULL;
  GstBufferPool *offered_pool = NULL;
  GstAllocationParams params;
  GstCaps *caps;
  GstVideoInfo info;
  gboolean plain = TRUE;

  gst_query_parse_allocation (query, &caps, NULL);
  if (caps && gst_cuda_gauss_blur_caps_in_cuda_memory (caps))
    return gst_cuda_gauss_blur_decide_cuda_allocation (self, query, caps);

  gst_allocation_params_init (&params);
  if (gst_query_get_n_allocation_params (query) > 0) {
    gst_query_parse_nth_allocation_param (query, 0, &offered, &params);
    plain = !offered || g_strcmp0 (offered->mem_type,
        GST_ALLOCATOR_SYSMEM) == 0;
    if (offered)
      gst_object_unref (offered);
  }
  if (gst_query_get_n_allocation_pools (query) > 0) {
    gst_query_parse_nth_allocation_pool (query, 0, &offered_pool, NULL, NULL,
        NULL);
    plain = plain && gst_cuda_gauss_blur_is_plain_pool (offered_pool);
  }
  if (plain && caps && gst_cuda_gauss_blur_wants_pinned (self)
      && gst_video_info_from_caps (&info, caps)
      && (allocator = gst_cuda_gauss_blur_pinned_allocator_get ())) {
    /* downstream's alignment, prefix and padding kept */
    if (gst_query_get_n_allocation_params (query) > 0)
      gst_query_set_nth_allocation_param (query, 0, allocator, &params);
    else
      gst_query_add_allocation_param (query, allocator, &params);
    if (gst_query_get_n_allocation_pools (query) == 0) {
      /* Padded rows only where downstream reads the video meta. */
      const gboolean meta = gst_query_find_allocation_meta (query,
          GST_VIDEO_META_API_TYPE, NULL);
      GstBufferPool *pool = gst_cuda_gauss_blur_pinned_pool_new (caps, &info,
          PINNED_POOL_MIN_BUFFERS, 0, meta);
      if (pool) {
        gst_query_add_allocation_pool (query, pool,
            gst_cuda_gauss_blur_pool_size (pool, GST_VIDEO_INFO_SIZE (&info)),
            PINNED_POOL_MIN_BUFFERS, 0);
        gst_object_unref (pool);
      }
      GST_DEBUG_OBJECT (self, "output buffers from a pinned pool (video "
          "meta %s)", meta ? "yes" : "no");
    } else {
      GST_DEBUG_OBJECT (self, "downstream's generic pool, with pinned "
          "memory");
    }
    gst_object_unref (allocator);
  }
  if (offered_pool)
    gst_object_unref (offered_pool);
  return GST_BASE_TRANSFORM_CLASS (parent_class)->decide_allocation (trans,
      query);
}

/* Metas that only describe the video (and not its memory layout, size or
 * orientation) still hold for the blurred frame. */
static gboolean
gst_cuda_gauss_blur_transform_meta (GstBaseTransform * trans,
    GstBuffer * outbuf, GstMeta * meta, GstBuffer * inbuf)
{
  const gchar *const *tags = gst_meta_api_type_get_tags (meta->info->api);

  if (!tags || (g_strv_length ((gchar **) tags) == 1
          && gst_meta_api_type_has_tag (meta->info->api,
              g_quark_from_static_string (GST_META_TAG_VIDEO_STR))))
    return TRUE;

  return GST_BASE_TRANSFORM_CLASS (parent_class)->transform_meta (trans,
      outbuf, meta, inbuf);
}

/* Frames in CUDA memory of another context than ours, on a device we may
 * use (cuda-device-id -1, or theirs): we take their context, so that they
 * are read where they are; the handle is re-made in it at this frame,
 * and the output pool is decided again (reconfigure) before it. */
static void
gst_cuda_gauss_blur_follow_input_context (GstCudaGaussBlur * self,
    GstBuffer * buffer)
{
  GstObject *context = gst_cuda_gauss_blur_buffer_context (buffer);
  gint device_id;
  gboolean cpu;

  if (!context || context == self->cuda_context)
    return;
  GST_OBJECT_LOCK (self);
  device_id = self->cuda_device_id;
  cpu = self->backend == GST_CUDA_GAUSS_BLUR_BACKEND_CPU;
  GST_OBJECT_UNLOCK (self);
  if (cpu || (device_id >= 0
          && gst_cuda_gauss_blur_context_device (context) != device_id))
    return;
  GST_INFO_OBJECT (self, "taking the input's CUDA context %" GST_PTR_FORMAT,
      context);
  GST_OBJECT_LOCK (self);
  gst_object_replace (&self->cuda_context, context);
  self->checked_context = NULL;
  GST_OBJECT_UNLOCK (self);
  gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
}

static void
gst_cuda_gauss_blur_before_transform (GstBaseTransform * trans,
    GstBuffer * buffer)
{
  GstClockTime stream_time = gst_segment_to_stream_time (&trans->segment,
      GST_FORMAT_TIME, GST_BUFFER_PTS (buffer));

  if (GST_CLOCK_TIME_IS_VALID (stream_time))
    gst_object_sync_values (GST_OBJECT (trans), stream_time);
  gst_cuda_gauss_blur_follow_input_context (GST_CUDA_GAUSS_BLUR (trans),
      buffer);
  /* Passthrough follows the settings here, on the streaming thread, before
   * the base class negotiates again for this buffer (submit_input_buffer)
   * and prepares its output (set_property switches it only while no frame
   * can flow): it then matches the sigma this frame uses. */
  gst_cuda_gauss_blur_update_passthrough (GST_CUDA_GAUSS_BLUR (trans));
}

/* Downstream asked to negotiate again (relinked, reconfigured): the base
 * class does it now, on this thread, and pushes what it decides (caps, a
 * new pool's buffers). That goes after the frames in flight, as a
 * serialized event does, and never beside the frames' thread's pushes:
 * GStreamer 1.22's caps query reads a pad's current caps without a
 * reference while a push may replace them (criticals, then not-negotiated,
 * in a helper's stress runs that relinked the source pad every few ms). */
static GstFlowReturn
gst_cuda_gauss_blur_submit_input_buffer (GstBaseTransform * trans,
    gboolean is_discont, GstBuffer * input)
{
  GstCudaGaussBlur *self = GST_CUDA_GAUSS_BLUR (trans);

  if (self->in_flight && gst_pad_needs_reconfigure (trans->srcpad))
    gst_cuda_gauss_blur_wait_for_frames (self);
  return GST_BASE_TRANSFORM_CLASS (parent_class)->submit_input_buffer (trans,
      is_discont, input);
}

/* The shapes a static sigma map is made from (under the object lock). */
typedef struct
{
  GstCudaGaussBlurSigmaMap kind;
  gdouble sigma;
  gdouble feather;
  gdouble focus_x, focus_y, focus_size, focus_transition, focus_angle;
  gchar *location;
  gboolean changed;
} GstCudaGaussBlurMapSettings;

/* sigma-map=image: the file, read again when its location changed. A file
 * that cannot be read, where one was read before, is refused: a warning,
 * sigma-map-location back to the file in use, whose map stays. With none
 * read yet there is no map to blur with: an element error (every frame
 * until a location can be read). */
static gboolean
gst_cuda_gauss_blur_load_map_image (GstCudaGaussBlur * self,
    const gchar * location)
{
  GError *error = NULL;
  guint8 *image = NULL;
  gint width = 0, height = 0;
  gboolean refused = FALSE;

  if (!location || !*location) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("sigma-map=image needs sigma-map-location"), (NULL));
    return FALSE;
  }
  if (self->map_image && g_strcmp0 (location, self->map_image_location) == 0)
    return TRUE;
  if (gst_sigma_map_file_load (location, &image, &width, &height, &error)) {
    g_free (self->map_image);
    g_free (self->map_image_location);
    self->map_image = image;
    self->map_image_width = width;
    self->map_image_height = height;
    self->map_image_location = g_strdup (location);
    return TRUE;
  }
  if (!self->map_image) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ,
        ("Cannot read the sigma map: %s", error->message), (NULL));
    g_clear_error (&error);
    return FALSE;
  }
  GST_ELEMENT_WARNING (self, RESOURCE, OPEN_READ,
      ("Cannot read the sigma map: %s; keeping the map of %s",
          error->message, self->map_image_location), (NULL));
  g_clear_error (&error);
  /* (unless the application set another location meanwhile) */
  GST_OBJECT_LOCK (self);
  if (g_strcmp0 (self->sigma_map_location, location) == 0) {
    g_free (self->sigma_map_location);
    self->sigma_map_location = g_strdup (self->map_image_location);
    refused = TRUE;
  }
  GST_OBJECT_UNLOCK (self);
  if (refused)
    g_object_notify (G_OBJECT (self), "sigma-map-location");
  return TRUE;
}

/* Hands the core this frame's sigma map: the regions of interest collected
 * from the buffer, or the static map, rebuilt when its settings changed. */
static gboolean
gst_cuda_gauss_blur_update_map (GstCudaGaussBlur * self,
    const GstCudaGaussBlurMapSettings * settings)
{
  const gint width = self->info.width, height = self->info.height;
  GbError error = { 0 };

  if (settings->kind == GST_CUDA_GAUSS_BLUR_SIGMA_MAP_NONE) {
    if (self->core_has_map
        && gb_blur_set_sigma_map (self->blur, NULL, 0, &error) != GB_OK)
      goto failed;
    self->core_has_map = self->map_valid = FALSE;
    return TRUE;
  }
  if (settings->kind != GST_CUDA_GAUSS_BLUR_SIGMA_MAP_ROI && self->map_valid
      && !settings->changed)
    return TRUE;

  /* The static maps' buffer: a float a pixel, only where one is used. */
  if (settings->kind != GST_CUDA_GAUSS_BLUR_SIGMA_MAP_ROI && !self->map
      && !(self->map = g_try_new (float, (gsize) width * height))) {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Cannot allocate the sigma map (%d x %d floats)", width, height),
        (NULL));
    self->map_valid = FALSE;
    return FALSE;
  }

  switch (settings->kind) {
    case GST_CUDA_GAUSS_BLUR_SIGMA_MAP_ROI:
      /* The core makes the map, and on the GPU sums the regions without it
       * where they lie apart (superposition_regions.h). */
      if (gb_blur_set_sigma_regions (self->blur,
              (const GbSigmaRegion *) self->regions->data,
              self->regions->len, settings->feather, &error) != GB_OK)
        goto failed;
      self->core_has_map = TRUE;
      self->map_valid = FALSE;
      return TRUE;
    case GST_CUDA_GAUSS_BLUR_SIGMA_MAP_TILT_SHIFT:
      gb_sigma_map_tilt_shift (self->map, width, height, width,
          settings->sigma, settings->focus_x, settings->focus_y,
          settings->focus_angle, settings->focus_size,
          settings->focus_transition);
      break;
    case GST_CUDA_GAUSS_BLUR_SIGMA_MAP_RADIAL:
      gb_sigma_map_radial (self->map, width, height, width, settings->sigma,
          settings->focus_x, settings->focus_y, settings->focus_size,
          settings->focus_transition);
      break;
    case GST_CUDA_GAUSS_BLUR_SIGMA_MAP_IMAGE:
      /* With no file read yet, every frame fails (and retries the file)
       * until one is read. */
      if (!gst_cuda_gauss_blur_load_map_image (self, settings->location)) {
        self->map_valid = FALSE;
        return FALSE;
      }
      gb_sigma_map_image (self->map, width, height, width, settings->sigma,
          self->map_image, self->map_image_width, self->map_image_height,
          self->map_image_width);
      break;
    default:
      g_assert_not_reached ();
  }
  if (gb_blur_set_sigma_map (self->blur, self->map, width, &error) != GB_OK)
    goto failed;
  self->core_has_map = TRUE;
  self->map_valid = settings->kind != GST_CUDA_GAUSS_BLUR_SIGMA_MAP_ROI;
  return TRUE;

failed:
  self->map_valid = FALSE;
  gst_cuda_gauss_blur_post_error (self, "Cannot use the sigma map", &error);
  return FALSE;
}

/* sigma-map=roi: the buffer's regions of interest, collected before its
 * output buffer is made; a buffer without any goes out as it came, at no
 * cost (the base class pushes the input buffer itself). */
static GstFlowReturn
gst_cuda_gauss_blur_prepare_output_buffer (GstBaseTransform * trans,
    GstBuffer * inbuf, GstBuffer ** outbuf)
{
  GstCudaGaussBlur *self = GST_CUDA_GAUSS_BLUR (trans);
  gboolean roi;
  gdouble sigma;
  gchar **types;

  self->pass_buffer = FALSE;
  g_array_set_size (self->regions, 0);
  GST_OBJECT_LOCK (self);
  self->frame_sigma_map = self->sigma_map;
  roi = self->sigma_map == GST_CUDA_GAUSS_BLUR_SIGMA_MAP_ROI;
  sigma = fabs (self->sigma_x);
  types = roi ? g_strdupv (self->roi_type_list) : NULL;
  GST_OBJECT_UNLOCK (self);

  if (roi && !gst_base_transform_is_passthrough (trans)) {
    gst_roi_regions_collect (inbuf, sigma, (const gchar * const *) types,
        self->regions);
    if (self->regions->len == 0) {
      g_strfreev (types);
      self->pass_buffer = TRUE;
      *outbuf = inbuf;
      return GST_FLOW_OK;
    }
  }
  g_strfreev (types);
  return GST_BASE_TRANSFORM_CLASS (parent_class)->prepare_output_buffer (trans,
      inbuf, outbuf);
}

static GstFlowReturn
gst_cuda_gauss_blur_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstCudaGaussBlurMapSettings map = { 0 };
  GstCudaGaussBlur *self = GST_CUDA_GAUSS_BLUR (trans);
  GstVideoFrame in_frame, out_frame;
  GbParams params;
  GbImage src = { {NULL}, {0} }, dst = { {NULL}, {0} };
  GbError error = { 0 };
  GstFlowReturn ret = GST_FLOW_OK;
  GstMapFlags map_flags = 0;
  gboolean identity, on_device, entered, pipelined, map_updated = FALSE;
  GstObject *in_context, *out_context;
  GbStatus status;
  guint plane, frames_in_flight;

  if (self->pass_buffer && inbuf == outbuf)
    return GST_FLOW_OK;
  if (!gst_cuda_gauss_blur_ensure_blur (self))
    return GST_FLOW_ERROR;

  GST_OBJECT_LOCK (self);
  /* as prepare_output_buffer saw it: sigma-map set to roi since then would
   * take this buffer's regions, never collected, as none at all */
  map.kind = self->frame_sigma_map;
  map.sigma = fabs (self->sigma_x);
  map.feather = self->roi_feather;
  map.focus_x = self->focus_x;
  map.focus_y = self->focus_y;
  map.focus_size = self->focus_size;
  map.focus_transition = self->focus_transition;
  map.focus_angle = self->focus_angle;
  map.location = g_strdup (self->sigma_map_location);
  map.changed = self->map_changed;
  self->map_changed = FALSE;
  gb_params_init (&params, 0.0);
  params.sigma_x = fabs (self->sigma_x);
  params.sigma_y = fabs (self->sigma_y);
  if (self->sigma_x < 0.0 || self->sigma_y < 0.0)
    params.sharpen = self->amount;
  params.region = self->region;
  params.radius = self->radius;
  params.sigma_range = self->sigma_range;
  params.iterations = self->iterations;
  params.kappa = self->kappa;
  params.normalize = self->normalize;
  params.algorithm = (GbAlgorithm) self->algorithm;
  params.border = (GbBorder) self->border;
  identity = gst_cuda_gauss_blur_is_identity (self);
  frames_in_flight = self->frames_in_flight;
  GST_OBJECT_UNLOCK (self);

  if (map.kind != GST_CUDA_GAUSS_BLUR_SIGMA_MAP_NONE) {
    /* A map is blurred by superposition (whose rmax is at most 32). */
    if (!GB_ALGORITHM_IS_SUPERPOSITION (params.algorithm))
      params.algorithm = GB_ALGORITHM_AUTO;
    if (params.radius > GB_SUPERPOSITION_MAX_RADIUS)
      params.radius = GB_SUPERPOSITION_MAX_RADIUS;
  } else if (GB_ALGORITHM_IS_SUPERPOSITION (params.algorithm)
      && params.radius > GB_SUPERPOSITION_MAX_RADIUS)
    params.radius = GB_SUPERPOSITION_MAX_RADIUS;

  /* Frames in CUDA memory of the handle's context are blurred where they
   * are (device pointers, no copy). Any other memory is mapped to the host:
   * system memory, and CUDA memory of another device, which GStreamer then
   * downloads and uploads (slow: warned once). */
  in_context = gst_cuda_gauss_blur_buffer_context (inbuf);
  out_context = gst_cuda_gauss_blur_buffer_context (outbuf);
  on_device = !identity && self->blur_context
      && gb_blur_get_backend (self->blur) == GB_BACKEND_CUDA
      && in_context == self->blur_context && out_context == self->blur_context;
  /* Host frames may overlap on the GPU; any other goes after the frames
   * in flight, one at a time. */
  pipelined = frames_in_flight > 1 && !on_device && !identity;
  if (!pipelined && (ret = gst_cuda_gauss_blur_drain (self)) != GST_FLOW_OK)
    goto out;
  if (on_device)
    map_flags = gst_cuda_gauss_blur_map_cuda_flag ();
  else if (in_context && in_context != self->blur_context && !identity
      && gb_blur_get_backend (self->blur) == GB_BACKEND_CUDA
      && !self->host_path_warned) {
    /* (only the input's context counts: an output of another context is
     * a pool of ours from before the element took its input's context) */
    GST_ELEMENT_WARNING (self, STREAM, FAILED,
        ("Frames in CUDA memory cross through host memory (slow)"),
        ("input's CUDA device %d, output's %d, the blur's %d: set "
            "cuda-device-id to the input's device, or share one CUDA "
            "context", gst_cuda_gauss_blur_context_device (in_context),
            gst_cuda_gauss_blur_context_device (out_context),
            gst_cuda_gauss_blur_context_device (self->blur_context)));
    self->host_path_warned = TRUE;
  }

  if (!gst_video_frame_map (&in_frame, &self->info, inbuf,
          GST_MAP_READ | map_flags)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL),
        ("Cannot map the input buffer"));
    ret = GST_FLOW_ERROR;
    goto out;
  }
  if (!gst_video_frame_map (&out_frame, &self->info, outbuf,
          GST_MAP_WRITE | map_flags)) {
    gst_video_frame_unmap (&in_frame);
    GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL),
        ("Cannot map the output buffer"));
    ret = GST_FLOW_ERROR;
    goto out;
  }

  if (identity) {
    /* the settings became the identity after this buffer missed the switch
     * to passthrough */
    if (!gst_video_frame_copy (&out_frame, &in_frame)) {
      GST_ELEMENT_ERROR (self, STREAM, FAILED, (NULL),
          ("Cannot copy the frame"));
      ret = GST_FLOW_ERROR;
    }
    goto done;
  }

  for (plane = 0; plane < GST_VIDEO_FRAME_N_PLANES (&in_frame); plane++) {
    src.data[plane] = GST_VIDEO_FRAME_PLANE_DATA (&in_frame, plane);
    src.stride[plane] = GST_VIDEO_FRAME_PLANE_STRIDE (&in_frame, plane);
    dst.data[plane] = GST_VIDEO_FRAME_PLANE_DATA (&out_frame, plane);
    dst.stride[plane] = GST_VIDEO_FRAME_PLANE_STRIDE (&out_frame, plane);
  }

  /* The handle's frames in flight change with nothing in flight. */
  if (pipelined && (gint) frames_in_flight != self->blur_frames_in_flight
      && (ret = gst_cuda_gauss_blur_drain (self)) != GST_FLOW_OK)
    goto done;

  entered = gst_cuda_gauss_blur_enter (self);
  if (!gst_cuda_gauss_blur_entered_or_fail (self, entered)) {
    ret = GST_FLOW_ERROR;
  } else if (!(map_updated = gst_cuda_gauss_blur_update_map (self, &map))) {
    ret = GST_FLOW_ERROR;
  } else {
    status = gb_blur_set_params (self->blur, &params, &error);
    if (status == GB_OK && pipelined
        && (gint) frames_in_flight != self->blur_frames_in_flight
        && (status = gb_blur_set_frames_in_flight (self->blur,
                frames_in_flight, &error)) == GB_OK)
      self->blur_frames_in_flight = frames_in_flight;
    if (status == GB_OK && on_device)
      status = gb_blur_process_device (self->blur, &src, &dst, &error);
    else if (status == GB_OK && pipelined)
      status = gb_blur_submit (self->blur, &src, &dst, &error);
    else if (status == GB_OK)
      status = gb_blur_process (self->blur, &src, &dst, &error);
    if (status != GB_OK) {
      gst_cuda_gauss_blur_post_error (self, "Cannot blur the frame", &error);
      ret = GST_FLOW_ERROR;
    }
  }
  gst_cuda_gauss_blur_leave (entered);

  if (ret == GST_FLOW_OK && pipelined) {
    /* In flight: the frames stay mapped until it is done;
     * generate_output hands it to the frames' thread. */
    GstCudaGaussBlurFrame *frame = g_new0 (GstCudaGaussBlurFrame, 1);
    frame->in_frame = in_frame;
    frame->out_frame = out_frame;
    self->submitted = frame;
    goto out;
  }

done:
  gst_video_frame_unmap (&out_frame);
  gst_video_frame_unmap (&in_frame);
out:
  /* A frame that ends before update_map () leaves the static map's change
   * for the next (the snapshot above took it from map_changed). */
  if (!map_updated && map.changed) {
    GST_OBJECT_LOCK (self);
    self->map_changed = TRUE;
    GST_OBJECT_UNLOCK (self);
  }
  g_free (map.location);
  return ret;
}

/* On the frames' thread: waits for a frame's blur, in the handle's
 * context, and unmaps its buffers. */
static GstFlowReturn
gst_cuda_gauss_blur_finish_frame (gpointer data, GstBuffer ** outbuf,
    gpointer user_data)
{
  GstCudaGaussBlur *self = GST_CUDA_GAUSS_BLUR (user_data);
  GstCudaGaussBlurFrame *frame = data;
  GbError error = { 0 };
  gboolean entered = gst_cuda_gauss_blur_enter (self);
  GbStatus status;

  if (!gst_cuda_gauss_blur_entered_or_fail (self, entered)) {
    /* The GPU may still write the output: leave it mapped (lost) rather
     * than let its memory go back to a pool. */
    *outbuf = NULL;
    return GST_FLOW_ERROR;
  }
  status = gb_blur_complete (self->blur, &error);
  gst_cuda_gauss_blur_leave (entered);
  gst_video_frame_unmap (&frame->out_frame);
  gst_video_frame_unmap (&frame->in_frame);
  *outbuf = frame->outbuf;
  g_free (frame);
  if (status != GB_OK) {
    /* the frames queued behind it fail alike (a CUDA error is sticky):
     * one error for the stream */
    if (!self->in_flight_error_posted)
      gst_cuda_gauss_blur_post_error (self, "Cannot blur the frame", &error);
    self->in_flight_error_posted = TRUE;
    gst_clear_buffer (outbuf);
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

/* Streaming thread: every frame in flight pushed (or dropped), before
 * anything else goes downstream from this thread; the flow for upstream. */
static GstFlowReturn
gst_cuda_gauss_blur_drain (GstCudaGaussBlur * self)
{
  return self->in_flight ? gst_frames_in_flight_drain (self->in_flight)
      : GST_FLOW_OK;
}

/* The same before an event, a query or a new handle, whose callers return
 * no flow upstream: a failed push is left for the next frame to return. */
static void
gst_cuda_gauss_blur_wait_for_frames (GstCudaGaussBlur * self)
{
  if (self->in_flight)
    gst_frames_in_flight_wait (self->in_flight);
}

/* The base class's output (prepare_output_buffer, transform), except that
 * a frame transform() left in flight goes to the frames' thread, and a
 * buffer the base class pushes itself waits for the frames before it. */
static GstFlowReturn
gst_cuda_gauss_blur_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf)
{
  GstCudaGaussBlur *self = GST_CUDA_GAUSS_BLUR (trans);
  GstCudaGaussBlurFrame *frame;
  GstFlowReturn ret, drained;
  guint limit;

  ret = GST_BASE_TRANSFORM_CLASS (parent_class)->generate_output (trans,
      outbuf);
  frame = self->submitted;
  self->submitted = NULL;
  if (frame) {
    frame->outbuf = *outbuf;
    *outbuf = NULL;
    if (!self->in_flight) {
      GstFramesInFlight *in_flight = gst_frames_in_flight_new (trans->srcpad,
          "cudagaussblur-out", gst_cuda_gauss_blur_finish_frame, self);
      GST_OBJECT_LOCK (self);
      self->in_flight = in_flight;
      GST_OBJECT_UNLOCK (self);
    }
    GST_OBJECT_LOCK (self);
    limit = self->frames_in_flight;
    GST_OBJECT_UNLOCK (self);
    /* (never more than the handle takes) */
    return gst_frames_in_flight_add (self->in_flight, frame,
        MIN (limit, (guint) self->blur_frames_in_flight));
  }
  if (*outbuf && (drained = gst_cuda_gauss_blur_drain (self)) != GST_FLOW_OK) {
    gst_clear_buffer (outbuf);
    return drained;
  }
  return ret;
}

/* Serialized events follow the frames in flight downstream; a flush drops
 * them. */
static gboolean
gst_cuda_gauss_blur_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCudaGaussBlur *self = GST_CUDA_GAUSS_BLUR (trans);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_START:
      /* Not serialized: any thread, beside the streaming thread making the
       * queue and stop () freeing it, hence the object lock (the queue's
       * own lock nests inside it, and nothing takes them the other way). */
      GST_OBJECT_LOCK (self);
      if (self->in_flight)
        gst_frames_in_flight_set_flushing (self->in_flight, TRUE);
      GST_OBJECT_UNLOCK (self);
      break;
    case GST_EVENT_FLUSH_STOP:
      if (self->in_flight) {
        gst_frames_in_flight_drain (self->in_flight);
        gst_frames_in_flight_set_flushing (self->in_flight, FALSE);
      }
      break;
    default:
      if (GST_EVENT_IS_SERIALIZED (event))
        gst_cuda_gauss_blur_wait_for_frames (self);
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

/* The CUDA context is had before caps, as the other CUDA elements do, so
 * that the pipeline's elements settle on one before their first frame. */
static gboolean
gst_cuda_gauss_blur_start (GstBaseTransform * trans)
{
  GstCudaGaussBlur *self = GST_CUDA_GAUSS_BLUR (trans);
  gboolean cpu;
  gint device_id;

  GST_OBJECT_LOCK (self);
  cpu = self->backend == GST_CUDA_GAUSS_BLUR_BACKEND_CPU;
  device_id = self->cuda_device_id;
  GST_OBJECT_UNLOCK (self);
  if (!cpu)
    gst_cuda_gauss_blur_ensure_context (self, device_id);
  return TRUE;
}

static gboolean
gst_cuda_gauss_blur_stop (GstBaseTransform * trans)
{
  GstCudaGaussBlur *self = GST_CUDA_GAUSS_BLUR (trans);
  GstFramesInFlight *in_flight;

  /* The pads are inactive: what is still in flight is finished, not
   * pushed, before the handle goes. Taken under the object lock, freed
   * outside it (the frames' thread takes it as it finishes them): a late
   * FLUSH_START sees the queue whole or not at all. */
  GST_OBJECT_LOCK (self);
  in_flight = self->in_flight;
  self->in_flight = NULL;
  GST_OBJECT_UNLOCK (self);
  gst_frames_in_flight_free (in_flight);
  self->in_flight_error_posted = FALSE;
  gst_cuda_gauss_blur_destroy_blur (self);
  self->blur_frames_in_flight = 1;
  GST_OBJECT_LOCK (self);
  gst_clear_object (&self->cuda_context);
  self->checked_context = NULL;
  GST_OBJECT_UNLOCK (self);
  self->context_tried = FALSE;
  self->host_path_warned = FALSE;
  self->blur_failed = FALSE;
  self->cpu_fallback_warned = FALSE;
  gst_clear_caps (&self->refused_caps);
  g_clear_pointer (&self->refused_why, g_free);
  self->map_valid = self->core_has_map = FALSE;
  g_clear_pointer (&self->map, g_free);
  g_clear_pointer (&self->map_image, g_free);
  g_clear_pointer (&self->map_image_location, g_free);
  gst_video_info_init (&self->info);
  GST_OBJECT_LOCK (self);
  self->frame_duration = GST_CLOCK_TIME_NONE;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static void
gst_cuda_gauss_blur_set_context (GstElement * element, GstContext * context)
{
  GstCudaGaussBlur *self = GST_CUDA_GAUSS_BLUR (element);
  gint device_id;

  GST_OBJECT_LOCK (self);
  device_id = self->cuda_device_id;
  gst_cuda_gauss_blur_context_set (element, context, device_id,
      &self->cuda_context);
  GST_OBJECT_UNLOCK (self);

  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

/* Upstream's latency, and ours: none added to the minimum (a frame goes
 * out as soon as it is blurred, never waiting for a later input), and the
 * frames the queue holds beyond one added to the maximum (upstream may run
 * that far ahead before it blocks). */
static gboolean
gst_cuda_gauss_blur_query_latency (GstCudaGaussBlur * self, GstQuery * query)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  GstClockTime min, max, frame_duration;
  gboolean live;
  guint frames;

  if (!gst_pad_peer_query (trans->sinkpad, query))
    return FALSE;
  gst_query_parse_latency (query, &live, &min, &max);
  GST_OBJECT_LOCK (self);
  frames = self->frames_in_flight;
  frame_duration = self->frame_duration;
  GST_OBJECT_UNLOCK (self);
  if (frames > 1 && GST_CLOCK_TIME_IS_VALID (max)) {
    /* without a frame rate the queue's span in time is unknown */
    max = GST_CLOCK_TIME_IS_VALID (frame_duration)
        ? max + (frames - 1) * frame_duration : GST_CLOCK_TIME_NONE;
  }
  GST_DEBUG_OBJECT (self, "latency: live %d, min %" GST_TIME_FORMAT ", max %"
      GST_TIME_FORMAT, live, GST_TIME_ARGS (min), GST_TIME_ARGS (max));
  gst_query_set_latency (query, live, min, max);
  return TRUE;
}

static gboolean
gst_cuda_gauss_blur_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query)
{
  GstCudaGaussBlur *self = GST_CUDA_GAUSS_BLUR (trans);

  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT) {
    /* any thread may ask while the streaming thread changes the context */
    GstObject *context = NULL;
    gboolean answered;

    GST_OBJECT_LOCK (self);
    if (self->cuda_context)
      context = gst_object_ref (self->cuda_context);
    GST_OBJECT_UNLOCK (self);
    answered = gst_cuda_gauss_blur_context_query (GST_ELEMENT (self), query,
        context);
    gst_clear_object (&context);
    if (answered)
      return TRUE;
  }
  if (direction == GST_PAD_SINK && GST_QUERY_IS_SERIALIZED (query)) {
    gboolean flushing;

    /* Refused while the sink pad flushes (going inactive): stop () may be
     * running on the state-change thread, and the base class would apply
     * a pending reconfigure here, set_caps () beside it (the handle
     * destroyed twice). The query holds the pad's stream lock, which
     * deactivation takes after it sets flushing and before stop (): none
     * can start while this one runs. */
    GST_OBJECT_LOCK (trans->sinkpad);
    flushing = GST_PAD_IS_FLUSHING (trans->sinkpad);
    GST_OBJECT_UNLOCK (trans->sinkpad);
    if (flushing)
      return FALSE;
    /* It comes after the frames in flight, as a serialized event does. */
    gst_cuda_gauss_blur_wait_for_frames (self);
  }
  if (direction == GST_PAD_SRC && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY)
    return gst_cuda_gauss_blur_query_latency (self, query);
  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
}

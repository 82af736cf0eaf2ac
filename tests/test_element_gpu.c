/* cudagaussblur element tests on the CUDA backend (GstCheck, suite gpu).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Runs the element with backend=cuda and compares every frame with the CPU
 * core's blur of the same input (same algorithm, border and parameters):
 * at most one level apart per sample. Exits 77 (skipped) without a device.
 */
#include <string.h>

#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "element_check.h"
#include "sigma_map.h"

#define TOLERANCE 1

/* A CUDA handle: proves a device is usable and tells what
 * GB_ALGORITHM_AUTO resolves to on the GPU for a frame's geometry. */
static GbBlur *cuda_probe;

/* The parity test's tally, for the summary line. */
static guint n_compared;
static gint worst_difference;

/* The algorithm the CPU reference must run to match the GPU's for params
 * on frames of info: `auto` resolves by the format, the size and sigma,
 * so the probe takes the frame's geometry first (by auto's rules a 1x1
 * plane takes `fused` at sigma 12, where RGBA 1080p takes `multiscale`). */
static GbAlgorithm
gpu_algorithm (const GstVideoInfo * info, const GbParams * params)
{
  GbGeometry geometry = geometry_for (info);
  GbError error = { 0 };

  fail_unless (gb_blur_set_geometry (cuda_probe, &geometry, &error) == GB_OK,
      "%s", error.message);
  fail_unless (gb_blur_set_params (cuda_probe, params, &error) == GB_OK, "%s",
      error.message);
  return gb_blur_get_effective_algorithm (cuda_probe);
}

/* Pushes input and checks the output against the CPU core within TOLERANCE.
 * Returns the output. */
static GstBuffer *
push_and_check (GstHarness * h, GstBuffer * input, const GstVideoInfo * info,
    const GbParams * params)
{
  GbParams reference = *params;
  GstBuffer *output = push_pull (h, input);
  GstBuffer *expected;
  gint difference;

  reference.algorithm = gpu_algorithm (info, params);
  expected = reference_blur (input, info, &reference);
  difference = max_difference (output, expected, info);
  fail_unless (difference <= TOLERANCE, "GPU and CPU differ by %d",
      difference);
  gst_buffer_unref (expected);
  return output;
}

static GList *
template_formats (void)
{
  GstElementFactory *factory = gst_element_factory_find (ELEMENT);
  GList *formats = NULL;
  const GList *item;

  fail_unless (factory != NULL);
  for (item = gst_element_factory_get_static_pad_templates (factory); item;
      item = item->next) {
    GstStaticPadTemplate *template = item->data;
    GstCaps *caps;
    const GValue *list;
    guint i;

    if (template->direction != GST_PAD_SINK)
      continue;
    caps = gst_static_pad_template_get_caps (template);
    /* the system-memory structure, the last: CUDA memory (first, where
     * built with it) holds fewer formats */
    list = gst_structure_get_value (gst_caps_get_structure (caps,
            gst_caps_get_size (caps) - 1), "format");
    for (i = 0; i < gst_value_list_get_size (list); i++)
      formats = g_list_append (formats,
          g_strdup (g_value_get_string (gst_value_list_get_value (list, i))));
    gst_caps_unref (caps);
  }
  gst_object_unref (factory);
  return formats;
}

/* Every format x size x border x sigma x algorithm, one harness per format
 * and size: the parameters change while it plays. */
GST_START_TEST (test_parity)
{
  static const gint sizes[][2] = { {1, 1}, {7, 3}, {640, 480}, {1921, 1081} };
  static const gdouble sigmas[] = { 1.0, 3.0 };
  static const GbAlgorithm algorithms[] = { GB_ALGORITHM_NAIVE,
    GB_ALGORITHM_SHARED, GB_ALGORITHM_SEPARABLE, GB_ALGORITHM_FUSED,
    GB_ALGORITHM_RECURSIVE, GB_ALGORITHM_MULTISCALE, GB_ALGORITHM_AUTO,
    GB_ALGORITHM_EDGE_AWARE
  };
  /* The largest size for one format of each kind only: the CPU references
   * of the 2D algorithms cost seconds a frame there. */
  static const gchar *const large_formats[] = { "GRAY8", "RGBA", "NV12",
    "I420", "Y42B", "GRAY16_LE", "RGBA64_LE", "P016_LE", NULL
  };
  GList *formats = template_formats (), *item;
  guint s, b, g, a, seed = 0, n_formats = 0;

  fail_unless_equals_int (g_list_length (formats), 29);
  for (item = formats; item; item = item->next) {
    const gchar *format = item->data;

    n_formats++;
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      if (s == G_N_ELEMENTS (sizes) - 1
          && !g_strv_contains (large_formats, format))
        continue;
      GstVideoInfo info = video_info (format, sizes[s][0], sizes[s][1]);
      GstHarness *h = element_harness_new ("cuda", format, sizes[s][0],
          sizes[s][1]);
      GstBuffer *input = random_frame (&info, seed++);

      for (b = GB_BORDER_CLAMP; b <= GB_BORDER_ZERO; b++) {
        for (g = 0; g < G_N_ELEMENTS (sigmas); g++) {
          /* one CPU reference per algorithm the GPU may run */
          GstBuffer *references[GB_ALGORITHM_LAST + 1] = { NULL };

          for (a = 0; a < G_N_ELEMENTS (algorithms); a++) {
            GbParams params = gb_params_make (sigmas[g], 0, algorithms[a], (GbBorder) b);
            GbParams reference_params;
            GstBuffer *output;
            gint difference;

            /* Edge-aware: kappa 0 (carried states, the exact filter in float,
             * within 1 of the CPU), with edges that steer (sigma-range 20);
             * not at the largest size, where its exact reference takes
             * most of a second a frame. */
            if (algorithms[a] == GB_ALGORITHM_EDGE_AWARE) {
              if (s == G_N_ELEMENTS (sizes) - 1)
                continue;
              params.kappa = 0.0;
              params.sigma_range = 20.0;
            }
            reference_params = params;

            element_set_params (h->element, &params);
            output = push_pull (h, input);
            reference_params.algorithm = gpu_algorithm (&info, &params);
            if (!references[reference_params.algorithm])
              references[reference_params.algorithm] =
                  reference_blur (input, &info, &reference_params);
            difference = max_difference (output,
                references[reference_params.algorithm], &info);
            fail_unless (difference <= TOLERANCE,
                "%s %dx%d %s border, sigma %g, %s: GPU and CPU differ by %d",
                format, sizes[s][0], sizes[s][1],
                gb_border_name ((GbBorder) b), sigmas[g],
                gb_algorithm_name (algorithms[a]), difference);
            worst_difference = MAX (worst_difference, difference);
            n_compared++;
            gst_buffer_unref (output);
          }
          for (a = 0; a < G_N_ELEMENTS (references); a++)
            if (references[a])
              gst_buffer_unref (references[a]);
        }
      }
      gst_buffer_unref (input);
      gst_harness_teardown (h);
    }
  }
  g_list_free_full (formats, g_free);

  g_print ("element-gpu: %u frames (%u formats x 3 or 4 sizes x 3 borders x "
      "2 sigmas x %u algorithms, edge-aware not at the largest) match the CPU core, largest difference %d "
      "(tolerance %d)\n", n_compared, n_formats,
      (guint) G_N_ELEMENTS (algorithms), worst_difference, TOLERANCE);
}

GST_END_TEST;

GST_START_TEST (test_property_changes_while_playing)
{
  /* after the common steps: the radius from sigma again, then a large one */
  static const PropertyStep gpu_steps[] = {
    {"radius", "0",
        PARAMS_STEP (4.0, 4.0, 0, SEPARABLE, MIRROR, 0.0, 0, 0, 0, 0), TRUE},
    {"sigma", "12",
        PARAMS_STEP (12.0, 12.0, 0, SEPARABLE, MIRROR, 0.0, 0, 0, 0, 0), TRUE},
  };
  GstVideoInfo info = video_info ("RGBA", 640, 480);
  GbParams params = gb_params_make (2.0, 0, GB_ALGORITHM_AUTO, GB_BORDER_CLAMP);
  GstHarness *h = element_harness_new ("cuda", "RGBA", 640, 480);
  GstBuffer *input = random_frame (&info, 1000);
  GstBuffer *last, *output;

  last = push_and_check (h, input, &info, &params);
  last = check_property_steps (h, input, &info, last, common_property_steps,
      n_common_property_steps, push_and_check);
  last = check_property_steps (h, input, &info, last, gpu_steps,
      G_N_ELEMENTS (gpu_steps), push_and_check);

  /* sigma 0 lets the buffer through untouched, on the GPU too */
  g_object_set (h->element, "sigma", 0.0, NULL);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (input)),
      GST_FLOW_OK);
  output = gst_harness_pull (h);
  fail_unless (output == input);
  gst_buffer_unref (output);

  gst_buffer_unref (last);
  gst_buffer_unref (input);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* `auto` at sigma 12 and 30 on 1080p-sized frames of each kind, where it
 * resolves by format and size to `fused` or `multiscale`:
 * the element's output within TOLERANCE of the CPU core running what the
 * probe says the GPU ran. */
GST_START_TEST (test_auto_large_sigma)
{
  static const gchar *const formats[] = { "GRAY8", "RGBA", "RGB", "NV12",
    "I420", "Y42B", "GRAY16_LE", "RGBA64_LE"
  };
  static const gdouble sigmas[] = { 12.0, 30.0 };
  guint f, g, seen[G_N_ELEMENTS (sigmas)][GB_ALGORITHM_LAST + 1] = { {0} };

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstVideoInfo info = video_info (formats[f], 1921, 1081);
    GstHarness *h = element_harness_new ("cuda", formats[f], 1921, 1081);
    GstBuffer *input = random_frame (&info, 4000 + f);

    for (g = 0; g < G_N_ELEMENTS (sigmas); g++) {
      GbParams params = gb_params_make (sigmas[g], 0, GB_ALGORITHM_AUTO,
          GB_BORDER_CLAMP);

      element_set_params (h->element, &params);
      seen[g][gpu_algorithm (&info, &params)]++;
      gst_buffer_unref (push_and_check (h, input, &info, &params));
    }
    gst_buffer_unref (input);
    gst_harness_teardown (h);
  }
  /* At sigma 12 (radius 42) auto's rules give a 1x1 plane `fused` and
   * most of these frames `multiscale` (all but NV12's and I420's, whose
   * small chroma keep `fused` to radius 48): a probe that did not take
   * the frame's geometry fails here. The tolerance alone could not tell,
   * `multiscale` being within a level of the exact Gaussian on random
   * 8-bit frames. */
  fail_unless (seen[0][GB_ALGORITHM_MULTISCALE] > 0);
  g_print ("element-gpu: auto on 8 formats at 1921x1081 within %d of the "
      "CPU core: sigma 12 %u multiscale, %u fused, %u separable; sigma 30 "
      "%u multiscale, %u fused, %u separable\n", TOLERANCE,
      seen[0][GB_ALGORITHM_MULTISCALE], seen[0][GB_ALGORITHM_FUSED],
      seen[0][GB_ALGORITHM_SEPARABLE], seen[1][GB_ALGORITHM_MULTISCALE],
      seen[1][GB_ALGORITHM_FUSED], seen[1][GB_ALGORITHM_SEPARABLE]);
}

GST_END_TEST;

GST_START_TEST (test_renegotiation)
{
  static const struct
  {
    const gchar *format;
    gint width, height;
  } streams[] = {
    {"RGBA", 640, 480}, {"GRAY8", 1921, 1081}, {"RGB", 7, 3},
    {"xBGR", 1, 1}, {"BGR", 641, 479}, {"RGBA", 640, 480},
  };
  GbParams params = gb_params_make (3.0, 0, GB_ALGORITHM_AUTO, GB_BORDER_MIRROR);
  GstHarness *h = element_harness_new ("cuda", streams[0].format,
      streams[0].width, streams[0].height);
  guint i;

  element_set_params (h->element, &params);
  for (i = 0; i < G_N_ELEMENTS (streams); i++) {
    GstVideoInfo info = video_info (streams[i].format, streams[i].width,
        streams[i].height);
    GstBuffer *input = random_frame (&info, 2000 + i);

    if (i > 0)
      gst_harness_set_src_caps (h, video_caps (streams[i].format,
              streams[i].width, streams[i].height));
    gst_buffer_unref (push_and_check (h, input, &info, &params));
    gst_buffer_unref (input);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* backend cpu -> cuda -> auto while playing: the handle is re-created at
 * the next frame and the output stays within the tolerance. */
GST_START_TEST (test_backend_change_while_playing)
{
  static const gchar *const backends[] = { "cpu", "cuda", "cpu", "auto" };
  GstVideoInfo info = video_info ("BGRA", 640, 480);
  GbParams params = gb_params_make (2.0, 0, GB_ALGORITHM_AUTO, GB_BORDER_CLAMP);
  GstHarness *h = element_harness_new ("cuda", "BGRA", 640, 480);
  GstBuffer *input = random_frame (&info, 3000);
  GstBus *bus = gst_bus_new ();
  GstMessage *message;
  guint i;

  gst_element_set_bus (h->element, bus);
  for (i = 0; i < G_N_ELEMENTS (backends); i++) {
    gst_util_set_object_arg (G_OBJECT (h->element), "backend", backends[i]);
    gst_buffer_unref (push_and_check (h, input, &info, &params));
  }
  /* a device is usable: auto neither warns nor fails */
  message = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING |
      GST_MESSAGE_ERROR);
  fail_unless (message == NULL);

  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_buffer_unref (input);
  gst_harness_teardown (h);
}

GST_END_TEST;


/* --- pinned memory (issue 5) --- */

/* The formats and sizes of the pinned-memory tests: one of each kind of
 * layout, at an odd size (rows padded to 64 bytes in the pinned pools) and
 * at 1920x1080. */
static const gchar *const pinned_formats[] = { "RGBA", "GRAY8", "NV12",
  "I420", "GRAY16_LE"
};

static const gint pinned_sizes[][2] = { {333, 197}, {1920, 1080} };

/* The output against the CPU core, plane by plane, within TOLERANCE. */
static void
check_planes (GstBuffer * output, GstBuffer * input, const GstVideoInfo * info,
    const GbParams * params, const gchar * what)
{
  GbParams reference = *params;
  gint differences[GST_VIDEO_MAX_PLANES];
  GstBuffer *expected;
  guint p;

  reference.algorithm = gpu_algorithm (info, params);
  expected = reference_blur (input, info, &reference);
  max_plane_differences (output, expected, info, differences);
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++)
    fail_unless (differences[p] <= TOLERANCE, "%s %dx%d, %s: plane %u "
        "differs from the CPU core by %d", GST_VIDEO_INFO_NAME (info),
        GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info), what, p,
        differences[p]);
  gst_buffer_unref (expected);
}

/* Packed bytes of the caps' layout copied into a buffer of the pool: what an
 * upstream element that never reads a video meta writes. The returned frame
 * holds the same bytes with no meta, the picture that element meant. */
static GstBuffer *
fill_as_caps_say (GstBuffer * input, const GstVideoInfo * info, guint32 seed)
{
  GstBuffer *packed = random_frame (info, seed);
  GstMapInfo from, to;

  fail_unless (gst_buffer_map (packed, &from, GST_MAP_READ));
  fail_unless (gst_buffer_map (input, &to, GST_MAP_WRITE));
  fail_unless (to.size >= from.size);
  memcpy (to.data, from.data, from.size);
  gst_buffer_unmap (input, &to);
  gst_buffer_unmap (packed, &from);
  return packed;
}

/* Upstream that takes the proposed pool: the element answers the allocation
 * query with a pinned video pool and the pinned allocator.
 * - As proposed, the pool's buffers have the caps' own layout (no padding,
 *   first plane on 64 bytes), so an upstream that writes packed rows and
 *   never reads a video meta (the harness is one) gets the picture it means.
 * - An upstream that reads video meta and asks the pool for padded rows
 *   (video meta and alignment options, as decoders do) gets them, and the
 *   element reads its rows through the meta.
 * Both blur as the CPU core does. */
GST_START_TEST (test_pinned_upstream_pool)
{
  GbParams params = gb_params_make (2.0, 0, GB_ALGORITHM_AUTO,
      GB_BORDER_CLAMP);
  guint f, s, i, p;

  for (f = 0; f < G_N_ELEMENTS (pinned_formats); f++) {
    for (s = 0; s < G_N_ELEMENTS (pinned_sizes); s++) {
      const gchar *format = pinned_formats[f];
      const gint width = pinned_sizes[s][0], height = pinned_sizes[s][1];
      GstVideoInfo info = video_info (format, width, height);
      GstHarness *h = element_harness_new ("cuda", format, width, height);
      GstQuery *query = proposed_allocation (h);
      GstBufferPool *pool = NULL;
      GstAllocator *allocator = NULL;
      GstStructure *config;
      GstVideoAlignment alignment;
      gboolean video_meta = TRUE;
      guint size = 0;

      /* the proposal */
      fail_unless (gst_query_get_n_allocation_pools (query) > 0,
          "%s %dx%d: no pool proposed", format, width, height);
      gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, NULL, NULL);
      fail_unless (pool != NULL, "%s %dx%d: no pool proposed", format, width,
          height);
      fail_unless (pool_is_pinned (pool, &size, &video_meta),
          "%s %dx%d: the proposed pool is not pinned", format, width, height);
      fail_unless (!video_meta, "%s %dx%d: the proposed pool already adds "
          "video meta; upstream decides that", format, width, height);
      fail_unless_equals_int (size, info.size);
      gst_object_unref (pool);
      fail_unless (gst_query_get_n_allocation_params (query) > 0);
      gst_query_parse_nth_allocation_param (query, 0, &allocator, NULL);
      fail_unless (allocator_is_pinned (allocator), "%s %dx%d: the proposed "
          "allocator is not pinned", format, width, height);
      gst_object_unref (allocator);

      /* an upstream that writes packed rows: the harness asks the element
       * again and makes its buffers from the proposed pool */
      gst_pad_mark_reconfigure (h->srcpad);
      for (i = 0; i < 3; i++) {
        GstBuffer *input = gst_harness_create_buffer (h, size);
        GstBuffer *meant, *output;
        GstMapInfo map;

        fail_unless (input->pool != NULL, "%s %dx%d: not a pool's buffer",
            format, width, height);
        fail_unless (buffer_is_pinned (input), "%s %dx%d: the pool's buffer "
            "is not pinned", format, width, height);
        fail_unless (gst_buffer_map (input, &map, GST_MAP_READ));
        fail_unless ((guintptr) map.data % 64 == 0, "%s %dx%d: not on 64 "
            "bytes", format, width, height);
        gst_buffer_unmap (input, &map);

        meant = fill_as_caps_say (input, &info, 4000 + 10 * f + i);
        output = push_pull (h, input);
        /* downstream (the harness) offers nothing: pinned output too */
        fail_unless (buffer_is_pinned (output), "%s %dx%d: output not pinned",
            format, width, height);
        check_planes (output, meant, &info, &params, "packed upstream");
        gst_buffer_unref (output);
        gst_buffer_unref (meant);
        gst_buffer_unref (input);
      }

      /* an upstream that reads video meta and pads its rows */
      gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, NULL, NULL);
      config = gst_buffer_pool_get_config (pool);
      gst_buffer_pool_config_add_option (config,
          GST_BUFFER_POOL_OPTION_VIDEO_META);
      gst_buffer_pool_config_add_option (config,
          GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT);
      gst_video_alignment_reset (&alignment);
      alignment.padding_right = 7;
      for (p = 0; p < GST_VIDEO_MAX_PLANES; p++)
        alignment.stride_align[p] = 63;
      gst_buffer_pool_config_set_video_alignment (config, &alignment);
      fail_unless (gst_buffer_pool_set_config (pool, config));
      fail_unless (gst_buffer_pool_set_active (pool, TRUE));
      for (i = 0; i < 2; i++) {
        GstBuffer *input = NULL, *output;
        GstVideoMeta *meta;

        fail_unless (gst_buffer_pool_acquire_buffer (pool, &input, NULL) ==
            GST_FLOW_OK);
        fail_unless (buffer_is_pinned (input));
        meta = gst_buffer_get_video_meta (input);
        fail_unless (meta != NULL, "%s %dx%d: padded rows without a video "
            "meta", format, width, height);
        for (p = 0; p < meta->n_planes; p++)
          fail_unless (meta->stride[p] % 64 == 0
              && meta->stride[p] > GST_VIDEO_INFO_PLANE_STRIDE (&info, p),
              "%s %dx%d: plane %u stride %d", format, width, height, p,
              meta->stride[p]);
        fill_frame (input, &info, 4100 + 10 * f + i);
        output = push_pull (h, input);
        check_planes (output, input, &info, &params, "padded upstream");
        gst_buffer_unref (output);
        gst_buffer_unref (input);
      }
      fail_unless (gst_buffer_pool_set_active (pool, FALSE));
      gst_object_unref (pool);
      gst_query_unref (query);
      gst_harness_teardown (h);
    }
  }
}

GST_END_TEST;

/* Output buffers: pinned where downstream offers nothing or only system
 * memory (a generic pool gets our allocator), padded rows only where it
 * reads the video meta; downstream's own allocator where it has one ("a
 * pipeline whose downstream refuses our pool still works"). Every output is
 * the CPU core's blur. */
GST_START_TEST (test_pinned_output)
{
  GbParams params = gb_params_make (2.0, 0, GB_ALGORITHM_AUTO,
      GB_BORDER_CLAMP);
  guint f, p;

  for (f = 0; f < G_N_ELEMENTS (pinned_formats); f++) {
    const gchar *format = pinned_formats[f];
    GstVideoInfo info = video_info (format, 333, 197);
    GstBuffer *input = random_frame (&info, 5000 + f);
    GstBufferPool *pool = gst_video_buffer_pool_new ();
    GstVideoMeta *meta;
    GstBuffer *output;
    GstHarness *h;

    /* nothing offered (the harness offers no allocator, no pool and no
     * video meta): pinned, rows as the caps say */
    h = element_harness_new ("cuda", format, 333, 197);
    output = push_pull (h, input);
    fail_unless (buffer_is_pinned (output), "%s: output not pinned", format);
    meta = gst_buffer_get_video_meta (output);
    if (meta)
      for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++)
        fail_unless_equals_int (meta->stride[p],
            GST_VIDEO_INFO_PLANE_STRIDE (&info, p));
    check_planes (output, input, &info, &params, "nothing offered");
    gst_buffer_unref (output);
    gst_harness_teardown (h);

    /* plain system memory offered: pinned */
    h = gst_harness_new (ELEMENT);
    gst_util_set_object_arg (G_OBJECT (h->element), "backend", "cuda");
    gst_harness_set_propose_allocator (h,
        gst_allocator_find (GST_ALLOCATOR_SYSMEM), NULL);
    gst_harness_set_src_caps (h, video_caps (format, 333, 197));
    output = push_pull (h, input);
    fail_unless (buffer_is_pinned (output), "%s: output not pinned", format);
    check_planes (output, input, &info, &params, "system memory offered");
    gst_buffer_unref (output);
    gst_harness_teardown (h);

    /* downstream reads the video meta: pinned, rows on 64 bytes */
    h = gst_harness_new (ELEMENT);
    gst_util_set_object_arg (G_OBJECT (h->element), "backend", "cuda");
    gst_harness_add_propose_allocation_meta (h, GST_VIDEO_META_API_TYPE,
        NULL);
    gst_harness_set_src_caps (h, video_caps (format, 333, 197));
    output = push_pull (h, input);
    fail_unless (buffer_is_pinned (output), "%s: output not pinned", format);
    meta = gst_buffer_get_video_meta (output);
    fail_unless (meta != NULL, "%s: no video meta on the output", format);
    for (p = 0; p < meta->n_planes; p++)
      fail_unless (meta->stride[p] % 64 == 0, "%s: plane %u stride %d",
          format, p, meta->stride[p]);
    check_planes (output, input, &info, &params, "video meta read");
    gst_buffer_unref (output);
    gst_harness_teardown (h);

    /* an allocator of downstream's own: used, not ours */
    h = gst_harness_new (ELEMENT);
    gst_util_set_object_arg (G_OBJECT (h->element), "backend", "cuda");
    gst_harness_set_propose_allocator (h, test_allocator_new (), NULL);
    gst_harness_set_src_caps (h, video_caps (format, 333, 197));
    output = push_pull (h, input);
    fail_unless (gst_memory_is_type (gst_buffer_peek_memory (output, 0),
            TEST_MEMORY_TYPE), "%s: downstream's allocator not used", format);
    fail_if (buffer_is_pinned (output));
    check_planes (output, input, &info, &params, "downstream's allocator");
    gst_buffer_unref (output);
    gst_harness_teardown (h);

    /* a generic pool of downstream's (as video filters propose): used,
     * filled with pinned memory (the allocator is ours) */
    h = gst_harness_new (ELEMENT);
    gst_util_set_object_arg (G_OBJECT (h->element), "backend", "cuda");
    harness_offer_pool (h, pool);
    gst_harness_set_src_caps (h, video_caps (format, 333, 197));
    output = push_pull (h, input);
    fail_unless (output->pool == pool, "%s: downstream's pool not used",
        format);
    fail_unless (buffer_is_pinned (output), "%s: downstream's generic pool "
        "without pinned memory", format);
    check_planes (output, input, &info, &params, "downstream's pool");
    gst_buffer_unref (output);
    gst_harness_teardown (h);

    gst_object_unref (pool);
    gst_buffer_unref (input);
  }
}

GST_END_TEST;

/* Real neighbours: videotestsrc writes into the proposed pool (odd size:
 * padded rows), videoconvert downstream offers its own pool; the pipeline
 * runs to EOS without error. */
GST_START_TEST (test_pinned_pipeline)
{
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=10 ! "
      "video/x-raw,format=NV12,width=333,height=197 ! " ELEMENT " "
      "backend=cuda ! videoconvert ! video/x-raw,format=RGBA ! "
      "fakesink", &error);
  GstBus *bus;
  GstMessage *message;

  fail_unless (pipeline != NULL, "%s", error ? error->message : "");
  bus = gst_element_get_bus (pipeline);
  fail_if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE);
  message = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (message != NULL, "no EOS or error within 60 s");
  if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR) {
    gchar *debug = NULL;

    gst_message_parse_error (message, &error, &debug);
    fail ("error from %s: %s (%s)", GST_OBJECT_NAME (GST_MESSAGE_SRC
            (message)), error->message, debug ? debug : "");
  }
  gst_message_unref (message);
  fail_unless_equals_int (gst_element_set_state (pipeline, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* Buffers that did not come from the proposed pool: pageable system memory
 * (an upstream that ignores our pool), and rows and planes at odd strides and
 * offsets described by a video meta (as test_padded_input_strides of the CPU
 * suite makes them). */
GST_START_TEST (test_foreign_buffers)
{
  static const gchar *const padded_formats[] = { "RGBA", "RGB", "GRAY8",
    "I420", "NV21", "Y41B", "P016_LE", "RGBA64_LE", "GRAY16_LE", "NV12"
  };
  static const gint padded_sizes[][2] = { {7, 5}, {333, 197} };
  GbParams params = gb_params_make (2.0, 0, GB_ALGORITHM_AUTO,
      GB_BORDER_CLAMP);
  guint f, s, p;

  for (f = 0; f < G_N_ELEMENTS (pinned_formats); f++) {
    for (s = 0; s < G_N_ELEMENTS (pinned_sizes); s++) {
      const gint width = pinned_sizes[s][0], height = pinned_sizes[s][1];
      GstVideoInfo info = video_info (pinned_formats[f], width, height);
      GstHarness *h = element_harness_new ("cuda", pinned_formats[f], width,
          height);
      GstBuffer *input = random_frame (&info, 6000 + f);
      GstBuffer *output;

      fail_if (buffer_is_pinned (input));
      output = push_pull (h, input);
      fail_unless (buffer_is_pinned (output));
      check_planes (output, input, &info, &params, "pageable input");
      gst_buffer_unref (output);
      gst_buffer_unref (input);
      gst_harness_teardown (h);
    }
  }

  for (f = 0; f < G_N_ELEMENTS (padded_formats); f++) {
    for (s = 0; s < G_N_ELEMENTS (padded_sizes); s++) {
      const gint width = padded_sizes[s][0], height = padded_sizes[s][1];
      GstVideoInfo info = video_info (padded_formats[f], width, height);
      GbGeometry geometry = geometry_for (&info);
      GstVideoInfo padded = info;
      gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
      gint stride[GST_VIDEO_MAX_PLANES] = { 0 };
      GstHarness *h = element_harness_new ("cuda", padded_formats[f], width,
          height);
      GstBuffer *input, *output;
      gsize size = 0;

      /* odd paddings for 8-bit samples, even for 16-bit (whose rows must
       * stay 2-byte aligned) */
      for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
        stride[p] = GST_VIDEO_INFO_PLANE_STRIDE (&info, p)
            + (geometry.bytes_per_sample == 1 ? 13 : 14);
        offset[p] = size + 2 * geometry.bytes_per_sample;
        size = offset[p] + (gsize) stride[p] * geometry.planes[p].height;
      }
      padded.size = size;
      input = random_frame (&padded, 7000 + f);
      gst_buffer_add_video_meta_full (input, GST_VIDEO_FRAME_FLAG_NONE,
          GST_VIDEO_INFO_FORMAT (&info), width, height,
          GST_VIDEO_INFO_N_PLANES (&info), offset, stride);

      output = push_pull (h, input);
      check_planes (output, input, &info, &params, "padded strides");
      gst_buffer_unref (output);
      gst_buffer_unref (input);
      gst_harness_teardown (h);
    }
  }
}

GST_END_TEST;

/* Pools go when the caps change and when the element stops: the output pool
 * of the first caps is gone once the second caps' frame is out, and every
 * pool (the proposed one the harness took, the output pools) is gone after
 * the teardown. */
GST_START_TEST (test_pinned_pools_released)
{
  GbParams params = gb_params_make (2.0, 0, GB_ALGORITHM_AUTO,
      GB_BORDER_CLAMP);
  GstVideoInfo info = video_info ("RGBA", 333, 197);
  GstVideoInfo info2 = video_info ("GRAY8", 64, 48);
  PoolTracker *pools = pool_tracker_new ();
  GstHarness *h = element_harness_new ("cuda", "RGBA", 333, 197);
  GstQuery *query = proposed_allocation (h);
  GstBufferPool *pool = NULL;
  GstBuffer *input, *output;
  guint size = 0;

  /* a buffer of the proposed pool, which the harness takes */
  fail_unless (gst_query_get_n_allocation_pools (query) > 0);
  gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, NULL, NULL);
  fail_unless (pool != NULL && pool_is_pinned (pool, &size, NULL));
  gst_object_unref (pool);
  gst_query_unref (query);
  gst_pad_mark_reconfigure (h->srcpad);
  input = gst_harness_create_buffer (h, size);
  fail_unless (buffer_is_pinned (input));
  fail_unless (input->pool != NULL, "not a buffer of the proposed pool");
  pool_tracker_add (pools, input->pool);
  fill_frame (input, &info, 8000);
  output = push_pull (h, input);
  fail_unless (buffer_is_pinned (output));
  fail_unless (output->pool != NULL, "the output is not from a pool");
  pool_tracker_add (pools, output->pool);
  check_planes (output, input, &info, &params, "first caps");
  gst_buffer_unref (output);
  gst_buffer_unref (input);
  fail_unless_equals_int (pool_tracker_live (pools),
      pool_tracker_seen (pools));

  /* new caps: a new output pool, the old one gone */
  gst_harness_set_src_caps (h, video_caps ("GRAY8", 64, 48));
  input = random_frame (&info2, 8001);
  output = push_pull (h, input);
  fail_unless (buffer_is_pinned (output));
  fail_unless (output->pool != NULL, "the output is not from a pool");
  pool_tracker_add (pools, output->pool);
  check_planes (output, input, &info2, &params, "second caps");
  gst_buffer_unref (output);
  gst_buffer_unref (input);
  /* alive: the second output pool, and the proposed pool that the harness
   * keeps (it asks again only when its pad is marked for reconfiguration) */
  fail_unless_equals_int (pool_tracker_seen (pools), 3);
  fail_unless_equals_int (pool_tracker_live (pools), 2);

  gst_harness_teardown (h);
  fail_unless_equals_int (pool_tracker_live (pools), 0);
  pool_tracker_free (pools);
}

GST_END_TEST;

/* 100 state cycles of videotestsrc ! cudagaussblur ! fakesink: upstream's
 * buffers come from the proposed pinned pool, the output from a pinned
 * pool (fakesink offers nothing), every frame within a level of the CPU
 * core, no error, and every pool gone at NULL each time. */
GST_START_TEST (test_pinned_state_cycles)
{
  GbParams params = gb_params_make (2.0, 0, GB_ALGORITHM_AUTO,
      GB_BORDER_CLAMP);
  GstVideoInfo info = video_info ("NV12", 333, 197);

  check_state_cycles ("cuda", "NV12", 333, 197, 100, gpu_algorithm (&info,
          &params), TOLERANCE, TRUE);
}

GST_END_TEST;

/* --- sigma maps (issue 8) --- */

/* The CPU core's superposition of input with map (frame resolution, owned
 * by the caller), sigma, rmax from the map (radius 0), algorithm (auto:
 * scatter on the CPU; gather and scatter give the same sums there) and the
 * element's defaults otherwise (clamp border, normalize). */
static GstBuffer *
sigma_map_reference (GstBuffer * input, const GstVideoInfo * info,
    const gfloat * map, gdouble sigma, GbAlgorithm algorithm)
{
  GbGeometry geometry = geometry_for (info);
  GbParams params = gb_params_make (sigma, 0, algorithm, GB_BORDER_CLAMP);
  GstBuffer *expected;
  GbError error = { 0 };
  GbBlur *blur = NULL;

  fail_unless (params.normalize);
  fail_unless (gb_blur_create (GB_BACKEND_CPU, -1, &geometry, &blur,
          &error) == GB_OK, "%s", error.message);
  fail_unless (gb_blur_set_sigma_map (blur, map, info->width,
          &error) == GB_OK, "%s", error.message);
  fail_unless (gb_blur_set_params (blur, &params, &error) == GB_OK, "%s",
      error.message);
  fail_unless (GB_ALGORITHM_IS_SUPERPOSITION
      (gb_blur_get_effective_algorithm (blur)));
  expected = blur_frame (blur, input, info);
  gb_blur_destroy (blur);
  return expected;
}

/* Pushes input and checks the output against expected (which it unrefs)
 * within TOLERANCE, and that it is a blur (not the input's pixels).
 * Returns the difference. */
static gint
push_expect_map (GstHarness * h, GstBuffer * input, const GstVideoInfo * info,
    GstBuffer * expected, const gchar * what)
{
  GstBuffer *output = push_pull (h, input);
  gint difference = max_difference (output, expected, info);

  fail_unless (difference <= TOLERANCE, "%s %dx%d, %s: GPU and CPU differ "
      "by %d", GST_VIDEO_INFO_NAME (info), info->width, info->height, what,
      difference);
  fail_unless (max_difference (output, input, info) > 0, "%s %dx%d, %s: "
      "the output equals the input", GST_VIDEO_INFO_NAME (info), info->width,
      info->height, what);
  gst_buffer_unref (output);
  gst_buffer_unref (expected);
  return difference;
}

/* Every format with backend=cuda and a sigma map, against the CPU core run
 * on the same map: tilt-shift (sigma 3, focus-size 0.2, focus-transition
 * 0.3, focus-angle 20; RGBA also with superposition-gather and -scatter
 * chosen), and roi (one "face" region of interest, roi-feather 4), whose
 * buffers without a region go through as they came. The GPU may run
 * gather where the CPU's auto runs scatter: both are the same exact sums,
 * within a level of each other once rounded from float and double. Small
 * frames: the CPU's superposition costs (2 rmax + 1)^2 a sample, rmax 9. */
GST_START_TEST (test_sigma_map_formats)
{
  static const gint sizes[][2] = { {67, 45}, {161, 93} };
  static const gchar *const large_formats[] = { "RGBA", "NV12", NULL };
  static const GbRect box = { 10, 8, 20, 16 };
  static const struct
  {
    const gchar *nick;
    GbAlgorithm algorithm;
  } chosen[] = {
    {"superposition-gather", GB_ALGORITHM_SUPERPOSITION_GATHER},
    {"superposition-scatter", GB_ALGORITHM_SUPERPOSITION_SCATTER},
  };
  const gdouble sigma = 3.0, feather = 4.0;
  const gdouble focus_size = 0.2, focus_transition = 0.3, focus_angle = 20.0;
  GList *formats = template_formats (), *item;
  guint s, a, n_frames = 0, n_passed = 0, n_formats = 0, seed = 9000;
  gint worst = 0;

  fail_unless_equals_int (g_list_length (formats), 29);
  for (item = formats; item; item = item->next) {
    const gchar *format = item->data;
    gint format_worst = 0;

    n_formats++;
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      const gint width = sizes[s][0], height = sizes[s][1];
      GstVideoInfo info;
      GstHarness *h;
      GstBuffer *input, *with_roi, *output;
      GbSigmaRegion region;
      gfloat *map;
      gint difference;

      if (s > 0 && !g_strv_contains (large_formats, format))
        continue;
      info = video_info (format, width, height);
      h = element_harness_new ("cuda", format, width, height);
      input = random_frame (&info, seed++);
      map = g_new0 (gfloat, (gsize) width * height);

      /* (a) tilt-shift, the algorithm left at auto */
      g_object_set (h->element, "sigma", sigma, "focus-size", focus_size,
          "focus-transition", focus_transition, "focus-angle", focus_angle,
          "roi-feather", feather, NULL);
      gst_util_set_object_arg (G_OBJECT (h->element), "sigma-map",
          "tilt-shift");
      gb_sigma_map_tilt_shift (map, width, height, width, sigma, 0.5, 0.5,
          focus_angle, focus_size, focus_transition);
      difference = push_expect_map (h, input, &info,
          sigma_map_reference (input, &info, map, sigma, GB_ALGORITHM_AUTO),
          "tilt-shift");
      format_worst = MAX (format_worst, difference);
      n_frames++;

      /* (c) RGBA: gather and scatter chosen */
      if (g_str_equal (format, "RGBA")) {
        for (a = 0; a < G_N_ELEMENTS (chosen); a++) {
          gst_util_set_object_arg (G_OBJECT (h->element), "algorithm",
              chosen[a].nick);
          difference = push_expect_map (h, input, &info,
              sigma_map_reference (input, &info, map, sigma,
                  chosen[a].algorithm), chosen[a].nick);
          format_worst = MAX (format_worst, difference);
          n_frames++;
        }
        gst_util_set_object_arg (G_OBJECT (h->element), "algorithm", "auto");
      }

      /* (b) roi: one face */
      gst_util_set_object_arg (G_OBJECT (h->element), "sigma-map", "roi");
      with_roi = gst_buffer_copy (input);
      fail_unless (gst_buffer_add_video_region_of_interest_meta (with_roi,
              "face", box.x, box.y, box.width, box.height) != NULL);
      region.rect = box;
      region.sigma = sigma;
      gb_sigma_map_regions (map, width, height, width, &region, 1, feather);
      difference = push_expect_map (h, with_roi, &info,
          sigma_map_reference (with_roi, &info, map, sigma,
              GB_ALGORITHM_AUTO), "roi");
      format_worst = MAX (format_worst, difference);
      n_frames++;

      /* a buffer without a region: the buffer itself, untouched */
      fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (input)),
          GST_FLOW_OK);
      output = gst_harness_pull (h);
      fail_unless (output == input, "%s %dx%d, roi: a buffer without a "
          "region of interest came out as another buffer", format, width,
          height);
      gst_buffer_unref (output);
      n_passed++;

      g_free (map);
      gst_buffer_unref (with_roi);
      gst_buffer_unref (input);
      gst_harness_teardown (h);
    }
    g_print ("element-gpu sigma-map: %-9s largest difference %d\n", format,
        format_worst);
    worst = MAX (worst, format_worst);
  }
  g_list_free_full (formats, g_free);

  g_print ("element-gpu sigma-map: %u frames (%u formats at 67x45, RGBA and "
      "NV12 at 161x93 too; tilt-shift and roi, RGBA also gather and scatter "
      "chosen) match the CPU core, %u buffers without a region passed on, "
      "largest difference %d (tolerance %d)\n", n_frames, n_formats,
      n_passed, worst, TOLERANCE);
}

GST_END_TEST;

static Suite *
cudagaussblur_gpu_suite (void)
{
  Suite *s = suite_create ("cudagaussblur-gpu");
  TCase *tc = tcase_create ("cuda");

  tcase_set_timeout (tc, 1800);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_parity);
  tcase_add_test (tc, test_property_changes_while_playing);
  tcase_add_test (tc, test_auto_large_sigma);
  tcase_add_test (tc, test_renegotiation);
  tcase_add_test (tc, test_backend_change_while_playing);
  tcase_add_test (tc, test_pinned_upstream_pool);
  tcase_add_test (tc, test_pinned_output);
  tcase_add_test (tc, test_pinned_pipeline);
  tcase_add_test (tc, test_foreign_buffers);
  tcase_add_test (tc, test_pinned_pools_released);
  tcase_add_test (tc, test_pinned_state_cycles);
  tcase_add_test (tc, test_sigma_map_formats);
  return s;
}

int
main (int argc, char **argv)
{
  GbGeometry geometry = { 1, 1, {{1, 1, 1, 1, 1, 0}} };
  GbError error = { 0 };
  int result;

  gst_check_init (&argc, &argv);

  if (gb_blur_create (GB_BACKEND_CUDA, -1, &geometry, &cuda_probe,
          &error) != GB_OK) {
    g_print ("element-gpu: skipped, %s\n", error.message);
    return error.status == GB_ERROR_NO_DEVICE ? 77 : 1;
  }
  /* The probe has initialised CUDA in this process, which a forked child
   * cannot inherit: run the tests in this process. */
  g_setenv ("CK_FORK", "no", TRUE);
  result = gst_check_run_suite (cudagaussblur_gpu_suite (), "cudagaussblur-gpu",
      __FILE__);
  gb_blur_destroy (cuda_probe);
  return result;
}

/* cudagaussblur with frames in CUDA memory (GstCheck, suite gpu).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Real pipelines around the element with memory:CUDAMemory on both sides:
 * videotestsrc through cudaupload and cudadownload (gst-plugins-bad's
 * nvcodec), and nvh264dec's frames (NVDEC). Every output frame is compared
 * with the CPU core's blur of the same input, at most one level apart; pad
 * probes on the element show that every buffer it took and gave was CUDA
 * memory of the pipeline's one CUDA context (no trip through the host).
 * Also: passthrough, a cuda-device-id naming no device, 100 state cycles
 * against device memory leaks. Exits 77 (skipped) without a CUDA device or
 * without cudaupload and cudadownload.
 */
#include <string.h>

#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>

#include <cuda_runtime_api.h>

#include "element_check.h"
#include "sigma_map.h"

#define TOLERANCE 1
#define N_FRAMES 3
/* Per bus message: generous for a cold CUDA context on a loaded machine. */
#define MESSAGE_TIMEOUT (60 * GST_SECOND)
#define TEST_VIDEO "smpte-320x240-30f.mp4"
#define TEST_VIDEO_FRAMES 30
#define MIB (1024.0 * 1024.0)

/* The formats GStreamer 1.22's CUDA allocator lays out that the element
 * takes: its CUDA memory caps. */
static const gchar *const cuda_formats[] = { "RGB", "BGR", "RGBA", "BGRA",
  "ARGB", "ABGR", "RGBx", "BGRx", "NV12", "NV21", "I420", "YV12", "Y42B",
  "Y444", "Y444_16LE", "P016_LE"
};

static int n_devices;

/* The tally of the whole run, for the summary line. */
static guint n_checks;
static guint n_frames_compared;
static gint worst_difference;

#define CHECK(condition, ...) G_STMT_START { \
    fail_unless (condition, __VA_ARGS__); \
    n_checks++; \
  } G_STMT_END

/* --- what the appsinks received --- */

typedef struct
{
  GMutex lock;
  GPtrArray *buffers;           /* copies, in arrival order */
  GstCaps *caps;
} FrameSink;

static GstFlowReturn
frame_sink_new_sample (GstElement * appsink, gpointer user_data)
{
  FrameSink *sink = user_data;
  GstSample *sample = NULL;

  g_signal_emit_by_name (appsink, "pull-sample", &sample);
  if (!sample)
    return GST_FLOW_ERROR;
  g_mutex_lock (&sink->lock);
  /* a copy: holding a pool's buffers could starve the element upstream */
  g_ptr_array_add (sink->buffers,
      gst_buffer_copy_deep (gst_sample_get_buffer (sample)));
  gst_caps_replace (&sink->caps, gst_sample_get_caps (sample));
  g_mutex_unlock (&sink->lock);
  gst_sample_unref (sample);
  return GST_FLOW_OK;
}

/* Collects what the appsink named name receives, if pipeline has one. */
static void
frame_sink_init (FrameSink * sink, GstElement * pipeline, const gchar * name)
{
  GstElement *appsink = gst_bin_get_by_name (GST_BIN (pipeline), name);

  g_mutex_init (&sink->lock);
  sink->buffers = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  if (appsink) {
    g_signal_connect (appsink, "new-sample",
        G_CALLBACK (frame_sink_new_sample), sink);
    gst_object_unref (appsink);
  }
}

static void
frame_sink_clear (FrameSink * sink)
{
  g_ptr_array_unref (sink->buffers);
  gst_clear_caps (&sink->caps);
  g_mutex_clear (&sink->lock);
}

/* --- what went through the element's pads --- */

typedef struct
{
  guint n;                      /* buffers */
  guint n_cuda;                 /* of them in CUDA memory */
  guint n_cuda_caps;            /* of them under caps with memory:CUDAMemory */
  guint n_other_context;        /* in CUDA memory of another context than
                                 * the first one's */
  GstCudaContext *context;      /* of the first buffer in CUDA memory */
} PadTally;

typedef struct
{
  GMutex lock;
  PadTally in, out;
  GstBuffer *last_in;           /* identity only (no reference) */
  guint n_passed;               /* outputs that are the input buffer itself */
} BlurProbes;

static gboolean
caps_in_cuda_memory (GstCaps * caps)
{
  GstCapsFeatures *features = caps && gst_caps_get_size (caps) > 0 ?
      gst_caps_get_features (caps, 0) : NULL;

  return features && gst_caps_features_contains (features,
      GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
}

static void
pad_tally_add (PadTally * tally, GstPad * pad, GstBuffer * buffer)
{
  GstMemory *memory = gst_buffer_n_memory (buffer) > 0 ?
      gst_buffer_peek_memory (buffer, 0) : NULL;
  GstCaps *caps = gst_pad_get_current_caps (pad);

  tally->n++;
  tally->n_cuda_caps += caps_in_cuda_memory (caps);
  gst_clear_caps (&caps);
  if (!memory || !gst_is_cuda_memory (memory))
    return;
  tally->n_cuda++;
  if (!tally->context)
    tally->context = gst_object_ref (GST_CUDA_MEMORY_CAST (memory)->context);
  else if (tally->context != GST_CUDA_MEMORY_CAST (memory)->context)
    tally->n_other_context++;
}

/* The probe of both the element's pads: a buffer on its sink pad is an
 * input, on its source pad an output (passed through where it is the last
 * input itself). */
static GstPadProbeReturn
blur_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  BlurProbes *probes = user_data;
  GstBuffer *buffer = GST_PAD_PROBE_INFO_BUFFER (info);

  g_mutex_lock (&probes->lock);
  if (GST_PAD_IS_SINK (pad)) {
    pad_tally_add (&probes->in, pad, buffer);
    probes->last_in = buffer;
  } else {
    pad_tally_add (&probes->out, pad, buffer);
    probes->n_passed += buffer == probes->last_in;
  }
  g_mutex_unlock (&probes->lock);
  return GST_PAD_PROBE_OK;
}

static void
blur_probes_reset (BlurProbes * probes)
{
  gst_clear_object (&probes->in.context);
  gst_clear_object (&probes->out.context);
  memset (&probes->in, 0, sizeof probes->in);
  memset (&probes->out, 0, sizeof probes->out);
  probes->last_in = NULL;
  probes->n_passed = 0;
}

/* --- one run of a pipeline --- */

/* A pipeline with the element named "blur" (probed) and, where it has them,
 * appsinks "in" and "out"; the WARNING and ERROR messages it posted. */
typedef struct
{
  gchar *description;
  GstElement *pipeline;
  GstElement *blur;
  FrameSink in, out;
  BlurProbes probes;
  GPtrArray *messages;
  gboolean error;               /* it ended in an ERROR, not at EOS */
} Run;

static void
run_init (Run * run, gchar * description)
{
  GError *error = NULL;

  memset (run, 0, sizeof *run);
  run->description = description;
  run->pipeline = gst_parse_launch (description, &error);
  fail_unless (run->pipeline != NULL && error == NULL, "%s: %s",
      description, error ? error->message : "");
  run->blur = gst_bin_get_by_name (GST_BIN (run->pipeline), "blur");
  fail_unless (run->blur != NULL, "%s: no element named blur", description);
  frame_sink_init (&run->in, run->pipeline, "in");
  frame_sink_init (&run->out, run->pipeline, "out");
  g_mutex_init (&run->probes.lock);
  add_blur_probes (run->pipeline, blur_probe, blur_probe, &run->probes);
  run->messages = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_message_unref);
}

static gchar *
message_text (GstMessage * message)
{
  GError *error = NULL;
  gchar *debug = NULL, *text;

  if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR)
    gst_message_parse_error (message, &error, &debug);
  else
    gst_message_parse_warning (message, &error, &debug);
  text = g_strdup_printf ("%s: %s (%s)",
      GST_OBJECT_NAME (GST_MESSAGE_SRC (message)), error->message,
      debug ? debug : "");
  g_error_free (error);
  g_free (debug);
  return text;
}

/* Plays until EOS or the first ERROR and stays in PLAYING, so that the
 * elements still hold their contexts. An ERROR fails the test unless
 * expect_error; so does neither coming. */
static void
run_play (Run * run, gboolean expect_error)
{
  GstBus *bus = gst_element_get_bus (run->pipeline);
  gboolean ended = FALSE;
  GstMessage *message;

  gst_element_set_state (run->pipeline, GST_STATE_PLAYING);
  while (!ended && (message = gst_bus_timed_pop_filtered (bus,
              MESSAGE_TIMEOUT, GST_MESSAGE_EOS | GST_MESSAGE_ERROR
              | GST_MESSAGE_WARNING))) {
    ended = GST_MESSAGE_TYPE (message) != GST_MESSAGE_WARNING;
    if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_EOS) {
      gst_message_unref (message);
      continue;
    }
    run->error = GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR;
    g_ptr_array_add (run->messages, message);
  }
  gst_object_unref (bus);
  fail_unless (ended, "%s: no EOS or error within %d s", run->description,
      (gint) (MESSAGE_TIMEOUT / GST_SECOND));
  if (run->error && !expect_error) {
    gchar *text = message_text (g_ptr_array_index (run->messages,
            run->messages->len - 1));
    fail ("%s: %s", run->description, text);
  }
}

/* The first message of type posted by the element named source whose text
 * or debug text contains needle (NULL: any); NULL if none. */
static GstMessage *
run_find_message (Run * run, GstMessageType type, const gchar * source,
    const gchar * needle)
{
  guint i;

  for (i = 0; i < run->messages->len; i++) {
    GstMessage *message = g_ptr_array_index (run->messages, i);
    gchar *text;
    gboolean found;

    if (!(GST_MESSAGE_TYPE (message) & type)
        || g_strcmp0 (GST_OBJECT_NAME (GST_MESSAGE_SRC (message)), source))
      continue;
    text = message_text (message);
    found = !needle || strstr (text, needle) != NULL;
    g_free (text);
    if (found)
      return message;
  }
  return NULL;
}

/* The element's warnings fail the test (a frame through the host warns). */
static void
check_no_blur_warning (Run * run)
{
  GstMessage *message = run_find_message (run, GST_MESSAGE_WARNING, "blur",
      NULL);
  gchar *text = message ? message_text (message) : NULL;

  CHECK (message == NULL, "%s: %s", run->description, text);
  g_free (text);
}

static void
run_clear (Run * run)
{
  fail_unless_equals_int (gst_element_set_state (run->pipeline,
          GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
  gst_object_unref (run->blur);
  gst_object_unref (run->pipeline);
  frame_sink_clear (&run->in);
  frame_sink_clear (&run->out);
  blur_probes_reset (&run->probes);
  g_mutex_clear (&run->probes.lock);
  g_ptr_array_unref (run->messages);
  g_free (run->description);
}

/* --- the checks --- */

/* What the GPU runs for params on frames of info: GB_ALGORITHM_AUTO
 * resolved as a CUDA handle of that geometry resolves it; the CPU
 * reference must run the same. */
static GbAlgorithm
gpu_algorithm (const GstVideoInfo * info, const GbParams * params)
{
  return effective_algorithm (GB_BACKEND_CUDA, info, params);
}

/* Each output frame against the CPU core's blur (reference: resolved
 * parameters; map: the element's sigma map, or NULL) of the input with the
 * same timestamp: n_frames of each, within TOLERANCE, and blurred (not the
 * input). Returns the largest difference. */
static gint
check_frames (Run * run, guint n_frames, const GbParams * reference,
    const gfloat * map)
{
  GstVideoInfo info;
  gint worst = 0;
  guint i;

  CHECK (run->in.buffers->len == n_frames
      && run->out.buffers->len == n_frames, "%s: %u frames in, %u out, "
      "expected %u", run->description, run->in.buffers->len,
      run->out.buffers->len, n_frames);
  fail_unless (gst_video_info_from_caps (&info, run->out.caps));
  for (i = 0; i < n_frames; i++) {
    GstBuffer *input = g_ptr_array_index (run->in.buffers, i);
    GstBuffer *output = g_ptr_array_index (run->out.buffers, i);
    GstBuffer *expected = reference_blur_with_map (input, &info, map,
        reference);
    gint difference = max_difference (output, expected, &info);

    CHECK (GST_BUFFER_PTS (input) == GST_BUFFER_PTS (output), "%s: frame %u "
        "at %" GST_TIME_FORMAT " came out at %" GST_TIME_FORMAT,
        run->description, i, GST_TIME_ARGS (GST_BUFFER_PTS (input)),
        GST_TIME_ARGS (GST_BUFFER_PTS (output)));
    CHECK (difference <= TOLERANCE, "%s: frame %u differs from the CPU core "
        "(%s) by %d", run->description, i,
        gb_algorithm_name (reference->algorithm), difference);
    CHECK (max_difference (output, input, &info) > 0, "%s: frame %u came "
        "out unblurred", run->description, i);
    worst = MAX (worst, difference);
    n_frames_compared++;
    gst_buffer_unref (expected);
  }
  worst_difference = MAX (worst_difference, worst);
  return worst;
}

/* n_frames went in and out of the element, every one in CUDA memory under
 * memory:CUDAMemory caps, each in and out of one context: nothing crossed
 * the host. */
static void
check_pads_in_cuda_memory (Run * run, guint n_frames)
{
  const BlurProbes *p = &run->probes;

  CHECK (p->in.n == n_frames && p->out.n == n_frames, "%s: %u buffers in, "
      "%u out, expected %u", run->description, p->in.n, p->out.n, n_frames);
  CHECK (p->in.n_cuda == n_frames && p->out.n_cuda == n_frames, "%s: %u "
      "input and %u output buffers of %u in CUDA memory", run->description,
      p->in.n_cuda, p->out.n_cuda, n_frames);
  CHECK (p->in.n_cuda_caps == n_frames && p->out.n_cuda_caps == n_frames,
      "%s: the sink pad's caps had memory:CUDAMemory for %u buffers, the "
      "source pad's for %u, of %u", run->description, p->in.n_cuda_caps,
      p->out.n_cuda_caps, n_frames);
  CHECK (p->in.n_other_context == 0 && p->out.n_other_context == 0
      && p->in.context == p->out.context, "%s: buffers of several CUDA "
      "contexts at the element's pads", run->description);
}

/* The CUDA context of element's "gst.cuda.context" GstContext (a
 * reference), NULL without one. */
static GstCudaContext *
element_cuda_context (GstElement * element)
{
  GstContext *context = gst_element_get_context (element,
      GST_CUDA_CONTEXT_TYPE);
  GstCudaContext *cuda = NULL;

  if (context) {
    gst_structure_get (gst_context_get_structure (context),
        GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT, &cuda, NULL);
    gst_context_unref (context);
  }
  return cuda;
}

/* The elements named in names (NULL-terminated) and the element hold one
 * CUDA context, the one of the memory that left the element. */
static void
check_shared_context (Run * run, const gchar * const *names)
{
  GstCudaContext *blur = element_cuda_context (run->blur);
  guint i;

  CHECK (blur != NULL, "%s: the element has no CUDA context",
      run->description);
  CHECK (blur == run->probes.out.context, "%s: the element's output is CUDA "
      "memory of another context than the element's", run->description);
  for (i = 0; names[i]; i++) {
    GstElement *element = gst_bin_get_by_name (GST_BIN (run->pipeline),
        names[i]);
    GstCudaContext *other;

    fail_unless (element != NULL, "%s: no element named %s",
        run->description, names[i]);
    other = element_cuda_context (element);
    CHECK (other == blur, "%s: %s's CUDA context %p is not the element's %p",
        run->description, names[i], (gpointer) other, (gpointer) blur);
    gst_clear_object (&other);
    gst_object_unref (element);
  }
  gst_object_unref (blur);
}

/* videotestsrc's frames through cudaupload, the element and cudadownload,
 * its input beside through a tee; upload_props and blur_props are added to
 * those elements. */
static gchar *
upload_pipeline_frames (guint n_frames, const gchar * format, gint width,
    gint height, const gchar * upload_props, const gchar * blur_props)
{
  return g_strdup_printf ("videotestsrc pattern=snow num-buffers=%u ! "
      "video/x-raw,format=%s,width=%d,height=%d,framerate=30/1 ! tee name=t "
      "t. ! queue ! appsink name=in sync=false emit-signals=true "
      "t. ! queue ! cudaupload name=upload %s ! "
      "video/x-raw(memory:CUDAMemory) ! " ELEMENT " name=blur %s ! "
      "video/x-raw(memory:CUDAMemory) ! cudadownload name=download ! "
      "video/x-raw,format=%s ! appsink name=out sync=false emit-signals=true",
      n_frames, format, width, height, upload_props, blur_props, format);
}

static gchar *
upload_pipeline (const gchar * format, gint width, gint height,
    const gchar * upload_props, const gchar * blur_props)
{
  return upload_pipeline_frames (N_FRAMES, format, width, height,
      upload_props, blur_props);
}

/* An even size and an odd one. GStreamer 1.22's CUDA allocator rounds an
 * odd height up for the 4:2:0 formats' chroma, but not for NV21, whose last
 * chroma row would lie past the allocation: NV21 takes the next even
 * height. */
static const gint sizes[][2] = { {64, 48}, {33, 17} };

static gint
height_for (const gchar * format, gint height)
{
  return g_str_equal (format, "NV21") ? GST_ROUND_UP_2 (height) : height;
}

/* --- the tests --- */

/* The element offers exactly the 16 formats in CUDA memory, both ways. */
GST_START_TEST (test_cuda_template)
{
  GstElementFactory *factory = gst_element_factory_find (ELEMENT);
  const GList *item;
  guint i, n_templates = 0;

  fail_unless (factory != NULL);
  for (item = gst_element_factory_get_static_pad_templates (factory); item;
      item = item->next) {
    GstCaps *caps = gst_static_pad_template_get_caps (item->data);
    GHashTable *offered = g_hash_table_new (g_str_hash, g_str_equal);

    for (i = 0; i < gst_caps_get_size (caps); i++) {
      const GValue *formats;
      guint f;

      if (!gst_caps_features_contains (gst_caps_get_features (caps, i),
              GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY))
        continue;
      formats = gst_structure_get_value (gst_caps_get_structure (caps, i),
          "format");
      if (G_VALUE_HOLDS_STRING (formats))
        g_hash_table_add (offered, (gpointer) g_value_get_string (formats));
      else
        for (f = 0; f < gst_value_list_get_size (formats); f++)
          g_hash_table_add (offered, (gpointer) g_value_get_string
              (gst_value_list_get_value (formats, f)));
    }
    CHECK (g_hash_table_size (offered) == G_N_ELEMENTS (cuda_formats),
        "%s template: %u formats in CUDA memory, expected %u",
        ((GstStaticPadTemplate *) item->data)->name_template,
        g_hash_table_size (offered), (guint) G_N_ELEMENTS (cuda_formats));
    for (i = 0; i < G_N_ELEMENTS (cuda_formats); i++)
      CHECK (g_hash_table_contains (offered, cuda_formats[i]), "%s template: "
          "no %s in CUDA memory",
          ((GstStaticPadTemplate *) item->data)->name_template,
          cuda_formats[i]);
    g_hash_table_unref (offered);
    gst_caps_unref (caps);
    n_templates++;
  }
  fail_unless_equals_int (n_templates, 2);
  gst_object_unref (factory);
}

GST_END_TEST;

/* Every CUDA format at both sizes with each setting: every frame within a
 * level of the CPU core, every buffer at the element's pads CUDA memory of
 * the context that cudaupload, the element and cudadownload share. */
GST_START_TEST (test_cuda_formats)
{
  static const gchar *const neighbours[] = { "upload", "download", NULL };
  /* Edge-aware with kappa 0: the GPU's exact filter (the CPU is always
   * exact), with edges that steer (sigma-range 20). */
  static const struct
  {
    const gchar *name;
    GbParams params;
    gboolean tilt_shift;
  } settings[] = {
    {"auto", PARAMS_STEP (2.0, 2.0, 0, AUTO, CLAMP, 0.0, 0, 0, 0, 0), FALSE},
    /* fused at radius 28: over 48 KB of shared memory for 4-byte pixels,
     * a kernel attribute set in each pipeline's own new context */
    {"auto-8", PARAMS_STEP (8.0, 8.0, 0, AUTO, CLAMP, 0.0, 0, 0, 0, 0),
        FALSE},
    {"separable", PARAMS_STEP (3.0, 3.0, 0, SEPARABLE, MIRROR, 0.0, 0, 0, 0,
            0), FALSE},
    {"recursive", PARAMS_STEP (3.0, 3.0, 0, RECURSIVE, ZERO, 0.0, 0, 0, 0,
            0), FALSE},
    {"edge-aware", PARAMS_EDGE_AWARE (3.0, 3.0, 0, CLAMP, 20.0, 2, 0.0),
        FALSE},
    {"tilt-shift", PARAMS_STEP (3.0, 3.0, 0, AUTO, CLAMP, 0.0, 0, 0, 0, 0),
        TRUE},
  };
  const gdouble focus_size = 0.2, focus_transition = 0.3, focus_angle = 20.0;
  guint f, z, s, n_runs = 0;

  for (f = 0; f < G_N_ELEMENTS (cuda_formats); f++) {
    const gchar *format = cuda_formats[f];
    gint format_worst = 0;

    for (z = 0; z < G_N_ELEMENTS (sizes); z++) {
      const gint width = sizes[z][0];
      const gint height = height_for (format, sizes[z][1]);
      GstVideoInfo info = video_info (format, width, height);

      for (s = 0; s < G_N_ELEMENTS (settings); s++) {
        GbParams reference = settings[s].params;
        gfloat *map = NULL;
        Run run;

        run_init (&run, upload_pipeline (format, width, height, "", ""));
        element_set_params (run.blur, &settings[s].params);
        if (settings[s].tilt_shift) {
          g_object_set (run.blur, "focus-size", focus_size,
              "focus-transition", focus_transition, "focus-angle",
              focus_angle, NULL);
          gst_util_set_object_arg (G_OBJECT (run.blur), "sigma-map",
              "tilt-shift");
          map = g_new (gfloat, (gsize) width * height);
          gb_sigma_map_tilt_shift (map, width, height, width,
              reference.sigma_x, 0.5, 0.5, focus_angle, focus_size,
              focus_transition);
        } else {
          reference.algorithm = gpu_algorithm (&info, &reference);
        }
        run_play (&run, FALSE);

        format_worst = MAX (format_worst, check_frames (&run, N_FRAMES,
                &reference, map));
        check_pads_in_cuda_memory (&run, N_FRAMES);
        CHECK (run.probes.n_passed == 0, "%s: %u buffers went out as they "
            "came in", run.description, run.probes.n_passed);
        check_shared_context (&run, neighbours);
        check_no_blur_warning (&run);
        g_free (map);
        run_clear (&run);
        n_runs++;
      }
    }
    g_print ("element-cuda: %-9s at %dx%d and %dx%d: largest difference "
        "%d\n", format, sizes[0][0], sizes[0][1], sizes[1][0],
        height_for (format, sizes[1][1]), format_worst);
  }
  g_print ("element-cuda: %u pipelines (%u formats x %u sizes x %u "
      "settings: auto, auto at sigma 8, separable, recursive, edge-aware, "
      "tilt-shift), %u "
      "frames within %d of the CPU core (largest difference %d), every "
      "buffer at the element's pads CUDA memory of the context it shares "
      "with cudaupload and cudadownload\n", n_runs,
      (guint) G_N_ELEMENTS (cuda_formats), (guint) G_N_ELEMENTS (sizes),
      (guint) G_N_ELEMENTS (settings), n_runs * N_FRAMES, TOLERANCE,
      worst_difference);
}

GST_END_TEST;

/* sigma=0: the buffer that enters goes out, still CUDA memory, untouched. */
GST_START_TEST (test_passthrough)
{
  guint f, i, n_passed = 0;

  for (f = 0; f < G_N_ELEMENTS (cuda_formats); f++) {
    GstVideoInfo info;
    Run run;

    run_init (&run, upload_pipeline (cuda_formats[f], sizes[0][0],
            sizes[0][1], "", "sigma=0"));
    run_play (&run, FALSE);
    check_pads_in_cuda_memory (&run, N_FRAMES);
    CHECK (run.probes.n_passed == N_FRAMES, "%s: %u of %u buffers went out "
        "as they came in", run.description, run.probes.n_passed, N_FRAMES);
    CHECK (run.in.buffers->len == N_FRAMES
        && run.out.buffers->len == N_FRAMES, "%s: %u frames in, %u out",
        run.description, run.in.buffers->len, run.out.buffers->len);
    fail_unless (gst_video_info_from_caps (&info, run.out.caps));
    for (i = 0; i < N_FRAMES; i++)
      CHECK (max_difference (g_ptr_array_index (run.out.buffers, i),
              g_ptr_array_index (run.in.buffers, i), &info) == 0,
          "%s: frame %u changed", run.description, i);
    check_no_blur_warning (&run);
    n_passed += run.probes.n_passed;
    run_clear (&run);
  }
  g_print ("element-cuda: passthrough: %u buffers in CUDA memory went out "
      "as they came in (%u formats)\n", n_passed,
      (guint) G_N_ELEMENTS (cuda_formats));
}

GST_END_TEST;

/* backend=cpu from the 5th frame on, while frames arrive in CUDA memory:
 * the element negotiates again, keeps taking them (cudaupload gives no
 * other memory) and blurs them on the CPU through host maps; every frame
 * comes out blurred, no error, no warning. */
static GstPadProbeReturn
switch_to_cpu_probe (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  guint *n = user_data;

  (void) info;
  if (++*n == 5)
    gst_util_set_object_arg (G_OBJECT (GST_PAD_PARENT (pad)), "backend",
        "cpu");
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_backend_switch)
{
  const guint n_frames = 12;
  GbParams reference = PARAMS_STEP (2.0, 2.0, 0, SEPARABLE, CLAMP, 0.0, 0,
      0, 0, 0);
  GstPad *pad;
  guint n_seen = 0;
  Run run;

  run_init (&run, upload_pipeline_frames (n_frames, "NV12", 64, 48, "",
          "sigma=2"));
  pad = gst_element_get_static_pad (run.blur, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, switch_to_cpu_probe,
      &n_seen, NULL);
  gst_object_unref (pad);
  run_play (&run, FALSE);
  check_frames (&run, n_frames, &reference, NULL);
  check_pads_in_cuda_memory (&run, n_frames);
  check_no_blur_warning (&run);
  CHECK (n_seen == n_frames, "%s: %u frames reached the element",
      run.description, n_seen);
  g_print ("element-cuda: backend switched to cpu at frame 5 of %u in CUDA "
      "memory: every frame blurred, within %d of the CPU\n", n_frames,
      TOLERANCE);
  run_clear (&run);
}

GST_END_TEST;

/* cuda-device-id naming no device: an ERROR (CUDA memory cannot be blurred
 * on the CPU) and a message of the element that names the device, no
 * frame out. With two devices, frames of device 0 blurred on device 1 cross
 * through host memory, with a warning, and still match the CPU. */
GST_START_TEST (test_device_id_mismatch)
{
  gchar *device = g_strdup_printf ("device %d", n_devices);
  gchar *property = g_strdup_printf ("cuda-device-id %d", n_devices);
  Run run;

  run_init (&run, g_strdup_printf ("videotestsrc num-buffers=%d ! "
          "video/x-raw,format=RGBA,width=64,height=48,framerate=30/1 ! "
          "cudaupload ! video/x-raw(memory:CUDAMemory) ! " ELEMENT " "
          "name=blur cuda-device-id=%d ! video/x-raw(memory:CUDAMemory) ! "
          "cudadownload ! fakesink", N_FRAMES, n_devices));
  run_play (&run, TRUE);
  CHECK (run.error, "%s: ended without an error", run.description);
  CHECK (run_find_message (&run, GST_MESSAGE_WARNING | GST_MESSAGE_ERROR,
          "blur", device) != NULL || run_find_message (&run,
          GST_MESSAGE_WARNING | GST_MESSAGE_ERROR, "blur", property) != NULL,
      "%s: no message of the element names %s", run.description, device);
  CHECK (run.probes.out.n == 0, "%s: %u frames left the element",
      run.description, run.probes.out.n);
  g_print ("element-cuda: cuda-device-id=%d (%d device%s): an error, the "
      "element's messages name the device\n", n_devices, n_devices,
      n_devices == 1 ? "" : "s");
  run_clear (&run);

  if (n_devices < 2) {
    g_print ("element-cuda: one CUDA device: frames of device 0 blurred on "
        "device 1 (through host memory) not checked\n");
  } else {
    const gchar *format = "RGBA";
    GstVideoInfo info = video_info (format, sizes[0][0], sizes[0][1]);
    GbParams reference = gb_params_make (2.0, 0, GB_ALGORITHM_AUTO,
        GB_BORDER_CLAMP);

    run_init (&run, upload_pipeline (format, sizes[0][0], sizes[0][1],
            "cuda-device-id=0", "cuda-device-id=1"));
    element_set_params (run.blur, &reference);
    reference.algorithm = gpu_algorithm (&info, &reference);
    run_play (&run, FALSE);
    check_frames (&run, N_FRAMES, &reference, NULL);
    CHECK (run_find_message (&run, GST_MESSAGE_WARNING, "blur",
            "Frames in CUDA memory cross through host memory") != NULL,
        "%s: no warning that frames cross through host memory",
        run.description);
    g_print ("element-cuda: frames of device 0 blurred on device 1 match "
        "the CPU, with the host-memory warning\n");
    run_clear (&run);
  }
  g_free (property);
  g_free (device);
}

GST_END_TEST;

/* 100 cycles NULL -> PLAYING -> EOS -> NULL of 1080p RGBA through the
 * element in CUDA memory: frames flow every cycle, and the device's free
 * memory after cycle 100 is within 16 MB of that after cycle 2 (one leaked
 * frame is 8 MB). */
GST_START_TEST (test_state_cycles)
{
  const guint n_cycles = 100, n_frames = 4;
  const gdouble limit = 16.0 * MIB;
  BlurProbes probes;
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch ("videotestsrc num-buffers=4 ! "
      "video/x-raw,format=RGBA,width=1920,height=1080,framerate=30/1 ! "
      "cudaupload ! video/x-raw(memory:CUDAMemory) ! " ELEMENT " name=blur "
      "sigma=3 ! video/x-raw(memory:CUDAMemory) ! cudadownload ! "
      "fakesink enable-last-sample=false", &error);
  size_t baseline = 0, free_bytes = 0, total = 0;
  GstBus *bus;
  guint i;

  fail_unless (pipeline != NULL && error == NULL, "%s",
      error ? error->message : "");
  memset (&probes, 0, sizeof probes);
  g_mutex_init (&probes.lock);
  add_blur_probes (pipeline, blur_probe, blur_probe, &probes);
  bus = gst_element_get_bus (pipeline);

  for (i = 0; i < n_cycles; i++) {
    play_to_eos (pipeline, bus, i);
    /* the streaming thread has stopped: the counts are final */
    CHECK (probes.in.n == n_frames && probes.out.n == n_frames
        && probes.in.n_cuda == n_frames && probes.out.n_cuda == n_frames,
        "cycle %u: %u frames in (%u in CUDA memory), %u out (%u), expected "
        "%u", i + 1, probes.in.n, probes.in.n_cuda, probes.out.n,
        probes.out.n_cuda, n_frames);
    blur_probes_reset (&probes);
    if (i == 1 || i == n_cycles - 1) {
      fail_unless (cudaMemGetInfo (&free_bytes, &total) == cudaSuccess);
      if (i == 1)
        baseline = free_bytes;
    }
  }
  g_print ("element-cuda: free device memory after cycle 2: %.1f MiB, "
      "after cycle %u: %.1f MiB (of %.1f MiB)\n", baseline / MIB, n_cycles,
      free_bytes / MIB, total / MIB);
  CHECK ((gdouble) baseline - (gdouble) free_bytes <= limit, "%u state "
      "cycles: free device memory dropped by %.1f MiB (limit %.0f)",
      n_cycles, ((gdouble) baseline - (gdouble) free_bytes) / MIB,
      limit / MIB);

  gst_object_unref (bus);
  gst_object_unref (pipeline);
  g_mutex_clear (&probes.lock);
}

GST_END_TEST;

/* The test video: in the source folder the build was made from; where that
 * path does not exist (the GPU machine's checkout lies elsewhere), under
 * the working directory, the project root (tests/gpu-check.sh). */
static gchar *
test_video_path (void)
{
  gchar *path = g_build_filename (GB_VIDEO_DIR, TEST_VIDEO, NULL);

  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR)) {
    g_free (path);
    path = g_build_filename ("tests", "data", "video", TEST_VIDEO, NULL);
  }
  fail_unless (g_file_test (path, G_FILE_TEST_IS_REGULAR), "no %s in %s "
      "nor in tests/data/video", TEST_VIDEO, GB_VIDEO_DIR);
  return path;
}

/* NVDEC's frames blurred where the decoder leaves them: all 30 within a
 * level of the CPU core's blur of the decoded frames, in CUDA memory of the
 * context the decoder shares, never through the host. */
GST_START_TEST (test_nvdec)
{
  static const gchar *const needed[] = { "qtdemux", "h264parse", "nvh264dec"
  };
  static const gchar *const neighbours[] = { "dec", "download_in",
    "download", NULL
  };
  GbParams reference = gb_params_make (2.0, 0, GB_ALGORITHM_AUTO,
      GB_BORDER_CLAMP);
  GstVideoInfo info;
  gchar *location;
  gint worst;
  guint i;
  Run run;

  for (i = 0; i < G_N_ELEMENTS (needed); i++) {
    GstElementFactory *factory = gst_element_factory_find (needed[i]);

    if (!factory) {
      g_print ("element-cuda: no %s element: the NVDEC case is skipped\n",
          needed[i]);
      return;
    }
    gst_object_unref (factory);
  }

  /* nvh264dec writes NV12 for 8-bit 4:2:0; cudadownload keeps the format */
  location = test_video_path ();
  run_init (&run, g_strdup_printf ("filesrc location=\"%s\" ! qtdemux ! "
          "h264parse ! nvh264dec name=dec ! "
          "video/x-raw(memory:CUDAMemory),format=NV12 ! tee name=t "
          "t. ! queue ! cudadownload name=download_in ! "
          "video/x-raw,format=NV12 ! appsink name=in sync=false "
          "emit-signals=true "
          "t. ! queue ! " ELEMENT " name=blur ! "
          "video/x-raw(memory:CUDAMemory) ! cudadownload name=download ! "
          "video/x-raw,format=NV12 ! appsink name=out sync=false "
          "emit-signals=true", location));
  g_free (location);
  element_set_params (run.blur, &reference);
  run_play (&run, FALSE);

  fail_unless (gst_video_info_from_caps (&info, run.out.caps));
  reference.algorithm = gpu_algorithm (&info, &reference);
  worst = check_frames (&run, TEST_VIDEO_FRAMES, &reference, NULL);
  check_pads_in_cuda_memory (&run, TEST_VIDEO_FRAMES);
  check_shared_context (&run, neighbours);
  check_no_blur_warning (&run);
  g_print ("element-cuda: nvh264dec: %d frames %dx%d %s blurred in CUDA "
      "memory of the decoder's context, largest difference %d\n",
      TEST_VIDEO_FRAMES, info.width, info.height,
      GST_VIDEO_INFO_NAME (&info), worst);
  run_clear (&run);
}

GST_END_TEST;

static Suite *
cudagaussblur_cuda_suite (void)
{
  Suite *s = suite_create ("cudagaussblur-cuda");
  TCase *tc = tcase_create ("cuda-memory");

  tcase_set_timeout (tc, 1800);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_cuda_template);
  tcase_add_test (tc, test_cuda_formats);
  tcase_add_test (tc, test_passthrough);
  tcase_add_test (tc, test_backend_switch);
  tcase_add_test (tc, test_device_id_mismatch);
  tcase_add_test (tc, test_state_cycles);
  tcase_add_test (tc, test_nvdec);
  return s;
}

int
main (int argc, char **argv)
{
  static const gchar *const needed[] = { "cudaupload", "cudadownload" };
  cudaError_t status;
  guint i;
  int result;

  gst_check_init (&argc, &argv);

  status = cudaGetDeviceCount (&n_devices);
  if (status != cudaSuccess || n_devices == 0) {
    g_print ("element-cuda: skipped, no usable CUDA device (%s)\n",
        status != cudaSuccess ? cudaGetErrorString (status) : "none found");
    return 77;
  }
  for (i = 0; i < G_N_ELEMENTS (needed); i++) {
    GstElementFactory *factory = gst_element_factory_find (needed[i]);

    if (!factory) {
      g_print ("element-cuda: skipped, no %s element (gst-plugins-bad's "
          "nvcodec plugin registers it only where it finds a working CUDA "
          "driver)\n", needed[i]);
      return 77;
    }
    gst_object_unref (factory);
  }
  g_print ("element-cuda: %d CUDA device%s\n", n_devices,
      n_devices == 1 ? "" : "s");

  /* CUDA is initialised in this process, which a forked child cannot
   * inherit: run the tests in this process. */
  g_setenv ("CK_FORK", "no", TRUE);
  result = gst_check_run_suite (cudagaussblur_cuda_suite (),
      "cudagaussblur-cuda", __FILE__);
  g_print ("element-cuda: %u checks passed, %u frames compared with the CPU "
      "core (largest difference %d, tolerance %d)\n", n_checks,
      n_frames_compared, worst_difference, TOLERANCE);
  return n_checks > 0 ? result : 1;
}

/* Helpers that the element benchmarks share (see bench_common.h).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "bench_common.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

gdouble
bench_now_us (clockid_t clock)
{
  struct timespec ts;

  clock_gettime (clock, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

void
bench_sleep_until_us (gdouble at_us)
{
  struct timespec t;

  t.tv_sec = (time_t) (at_us * 1e-6);
  t.tv_nsec = (long) ((at_us - t.tv_sec * 1e6) * 1e3);
  /* the seconds rounded at a second's edge */
  if (t.tv_nsec >= 1000000000L) {
    t.tv_sec++;
    t.tv_nsec -= 1000000000L;
  } else if (t.tv_nsec < 0) {
    t.tv_sec--;
    t.tv_nsec += 1000000000L;
  }
  while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR);
}

static int
compare_doubles (const void *a, const void *b)
{
  const gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;
  return x < y ? -1 : x > y;
}

gdouble
bench_quantile (gdouble * values, gint n, gdouble q)
{
  gint rank = (gint) ceil (q * n);

  qsort (values, n, sizeof *values, compare_doubles);
  return values[CLAMP (rank, 1, n) - 1];
}

void
bench_fill_pattern (guint8 * data, gsize size)
{
  gsize i;

  for (i = 0; i < size; i++)
    data[i] = (guint8) ((i * 2654435761u) >> 13) ^ (guint8) (i / 4093) ^ 0x5a;
}

gboolean
bench_cuda_check (cudaError_t err, const gchar * what)
{
  if (err == cudaSuccess)
    return TRUE;
  g_printerr ("%s%s: %s\n", bench_prefix, what, cudaGetErrorString (err));
  return FALSE;
}

gboolean
bench_report_bus_message (GstBus * bus, GstMessageType types)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, types);
  GError *err = NULL;
  gchar *debug = NULL;
  gboolean error;

  if (!msg)
    return FALSE;
  error = GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR;
  if (error)
    gst_message_parse_error (msg, &err, &debug);
  else
    gst_message_parse_warning (msg, &err, &debug);
  g_printerr ("%selement %s: %s (%s)\n", bench_prefix,
      error ? "error" : "warning", err->message, debug ? debug : "");
  g_clear_error (&err);
  g_free (debug);
  gst_message_unref (msg);
  return TRUE;
}

gboolean
bench_parse_options (const gchar * summary, const GOptionEntry * entries,
    int *argc, char ***argv)
{
  GOptionContext *context;
  GError *error = NULL;

  /* The build tree's plugin where no path is given. */
  if (!g_getenv ("GST_PLUGIN_PATH") && !g_getenv ("GST_PLUGIN_PATH_1_0"))
    g_setenv ("GST_PLUGIN_PATH", GB_BUILD_PLUGIN_DIR, TRUE);

  context = g_option_context_new (summary);
  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_add_group (context, gst_init_get_option_group ());
  if (!g_option_context_parse (context, argc, argv, &error)) {
    g_printerr ("%s%s\n", bench_prefix, error->message);
    g_clear_error (&error);
    g_option_context_free (context);
    return FALSE;
  }
  g_option_context_free (context);
  return TRUE;
}

GstElementFactory *
bench_find_element (void)
{
  GstElementFactory *factory = gst_element_factory_find (ELEMENT);

  if (!factory)
    g_print ("%sskipped, no element " ELEMENT " (GST_PLUGIN_PATH = %s; "
        "point it at the build's gst/ folder, e.g. source .gpu/env.sh "
        "build)\n", bench_prefix, g_getenv ("GST_PLUGIN_PATH")
        ? g_getenv ("GST_PLUGIN_PATH") : "unset");
  return factory;
}

void
bench_print_element (GstPlugin * plugin)
{
  gchar *version = gst_version_string ();

  g_print ("element: %s from %s (%s)\n", ELEMENT,
      plugin ? gst_plugin_get_filename (plugin) : "?", version);
  g_free (version);
}

gboolean
bench_write_file (const gchar * path, GString * contents)
{
  GError *error = NULL;
  gboolean ok = g_file_set_contents (path, contents->str, contents->len,
      &error);

  if (!ok) {
    g_printerr ("%s%s\n", bench_prefix, error->message);
    g_clear_error (&error);
  }
  g_string_free (contents, TRUE);
  return ok;
}

const gchar *
bench_fmt (gchar * buf, gsize size, const gchar * format, gdouble value)
{
  if (isnan (value))
    g_strlcpy (buf, "-", size);
  else
    g_snprintf (buf, size, format, value);
  return buf;
}

/* The table of targets now printed. */
static struct
{
  gint measured_width;
  gint n_met, n_not_met, n_na;
} targets;

void
bench_targets_begin (const gchar * what, gboolean plumbing_only,
    gint measured_width)
{
  targets.measured_width = measured_width;
  targets.n_met = targets.n_not_met = targets.n_na = 0;
  g_print ("\nTargets (%s)%s\n", what, plumbing_only
      ? "  [backend is not cuda: for the plumbing only]" : "");
  g_print ("  %-58s %-*s %s\n", "target", measured_width, "measured",
      "verdict");
}

void
bench_target (const gchar * target, const gchar * measured, gint verdict)
{
  static const gchar *const verdicts[] = { "not met", "met", "n/a" };

  g_print ("  %-58s %-*s %s\n", target, targets.measured_width, measured,
      verdicts[verdict]);
  if (verdict == 0)
    targets.n_not_met++;
  else if (verdict == 1)
    targets.n_met++;
  else
    targets.n_na++;
}

void
bench_targets_end (void)
{
  g_print ("  %d met, %d not met, %d not applicable\n", targets.n_met,
      targets.n_not_met, targets.n_na);
}

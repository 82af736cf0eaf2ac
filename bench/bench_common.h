/* Helpers that the element benchmarks share (element-bench.c: frames in
 * system memory; cuda-memory-bench.c: frames in CUDA memory): the clocks,
 * the quantiles of the timed frames and the pattern of their inputs, the
 * reports of CUDA runtime errors and of the element's bus messages, option
 * parsing with the build tree's plugin, finding the element, the cases'
 * type, writing the CSV file, "-" for a figure not measured, and the table
 * of targets with its verdicts.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Compiled into each benchmark (bench/meson.build), which defines
 * bench_prefix and GB_BUILD_PLUGIN_DIR.
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <gst/gst.h>

#include <cuda_runtime_api.h>

#include <time.h>

#define ELEMENT "cudagaussblur"

/* A case: frames of a format at a size. */
typedef struct
{
  const gchar *format;
  gint width, height;
} Case;

/* What the program's messages start with ("element-bench: "): each
 * benchmark defines it. */
extern const gchar bench_prefix[];

/* The clock's time (CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID) in
 * microseconds. */
gdouble bench_now_us (clockid_t clock);

/* Sleeps until CLOCK_MONOTONIC reads at_us (at once if it has passed). */
void bench_sleep_until_us (gdouble at_us);

/* Sorts values; the q-quantile by nearest rank. */
gdouble bench_quantile (gdouble * values, gint n, gdouble q);

/* Fills data with bytes neither zeros nor constant: every byte from its
 * index. */
void bench_fill_pattern (guint8 * data, gsize size);

/* TRUE on cudaSuccess; else prints what failed, with the error. */
gboolean bench_cuda_check (cudaError_t err, const gchar * what);

/* Pops the bus's first message of types (GST_MESSAGE_ERROR and/or
 * GST_MESSAGE_WARNING) and prints it ("element error: ..."); FALSE when
 * there was none. */
gboolean bench_report_bus_message (GstBus * bus, GstMessageType types);

/* Parses the command line with entries and GStreamer's options (summary:
 * the help's first line), GST_PLUGIN_PATH first set to the build tree's
 * gst/ folder where neither it nor GST_PLUGIN_PATH_1_0 is set; FALSE with
 * the error printed on a bad option. */
gboolean bench_parse_options (const gchar * summary,
    const GOptionEntry * entries, int *argc, char ***argv);

/* ELEMENT's factory; NULL with the skip message printed (the benchmark
 * then exits 77) where no plugin on the path has it. */
GstElementFactory *bench_find_element (void);

/* Prints the element's line: its plugin's file (of plugin, which may be
 * NULL) and GStreamer's version. */
void bench_print_element (GstPlugin * plugin);

/* Writes contents (a CSV table) to the file at path and frees it; FALSE
 * with the error printed where it cannot. */
gboolean bench_write_file (const gchar * path, GString * contents);

/* value with format ("12.3"), or "-" for a figure not measured (NaN), in
 * buf; returns buf. */
const gchar *bench_fmt (gchar * buf, gsize size, const gchar * format,
    gdouble value);

/* The table of targets: bench_targets_begin prints its title (issue and
 * conditions in what; plumbing_only: the backend is not CUDA) and header,
 * with measured_width characters for the measured column; bench_target a
 * row, its verdict FALSE (not met), TRUE (met) or BENCH_NA;
 * bench_targets_end how many of each there were. One table a run. */
#define BENCH_NA 2

void bench_targets_begin (const gchar * what, gboolean plumbing_only,
    gint measured_width);
void bench_target (const gchar * target, const gchar * measured,
    gint verdict);
void bench_targets_end (void);

#endif /* BENCH_COMMON_H */

/* kernel-trace: every kernel's and copy's start and end on the GPU, as text,
 * for a timeline of the frame's planes where nsys is not installed (the GPU
 * machine has ncu, which runs each kernel alone, so it cannot show how the
 * planes' kernels share the GPU).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A CUPTI injection library: the CUDA driver loads it into any CUDA program
 * named by CUDA_INJECTION64_PATH and calls InitializeInjection first.
 *
 *   GB_TRACE=trace.txt CUDA_INJECTION64_PATH=build/bench/libgb-kernel-trace.so \
 *     build/bench/cudagaussblur-bench --no-cpu --no-npp --batch-ms 2 \
 *     --format I420 --width 1920 --sigma 15 --algorithm multiscale
 *   bench/kernel-timeline.py trace.txt down_rows_kernel
 *
 * Lines: "K start end sSTREAM gNODE GRIDXxGRIDY bBLOCK rREGISTERS NAME" for
 * a kernel (graph node 0: launched eagerly), "M start end sSTREAM BYTES" for
 * a copy; times in ns, CUPTI's (the GPU's timestamps brought to the host's
 * clock). Concurrent-kernel records do not serialise the kernels. CUPTI's
 * bookkeeping widens the gaps between frames, so the benchmark's own
 * figure is slower under the trace (GRAY8 1080p sigma 100: 24.3 against
 * 17.8 us), while a frame's span on the timeline stayed within about 0.4
 * us of the plain figure (docs/measurements/timeline-h200-target-frames.txt).
 * The records arrive in buffers, written as each fills and at exit. */
#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>

#define BUFFER_BYTES (16u << 20)

static FILE *trace;

static void CUPTIAPI
buffer_requested (uint8_t ** buffer, size_t *size, size_t *max_records)
{
  *buffer = aligned_alloc (ACTIVITY_RECORD_ALIGNMENT, BUFFER_BYTES);
  *size = *buffer ? BUFFER_BYTES : 0;
  *max_records = 0;             /* as many as fit */
}

static void CUPTIAPI
buffer_completed (CUcontext context, uint32_t stream, uint8_t * buffer,
    size_t size, size_t valid)
{
  CUpti_Activity *record = NULL;

  (void) size;
  if (!trace) {                 /* after flush_at_exit */
    free (buffer);
    return;
  }
  while (cuptiActivityGetNextRecord (buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
      const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *) record;
      fprintf (trace, "K %llu %llu s%u g%llu %dx%d b%d r%u %s\n",
          (unsigned long long) k->start, (unsigned long long) k->end,
          k->streamId, (unsigned long long) k->graphNodeId, k->gridX,
          k->gridY, k->blockX, (unsigned) k->registersPerThread, k->name);
    } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *) record;
      fprintf (trace, "M %llu %llu s%u %llu\n", (unsigned long long) m->start,
          (unsigned long long) m->end, m->streamId,
          (unsigned long long) m->bytes);
    }
  }
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords (context, stream, &dropped)
      == CUPTI_SUCCESS && dropped > 0)
    fprintf (stderr, "kernel-trace: %zu records dropped\n", dropped);
  free (buffer);
}

static void
flush_at_exit (void)
{
  cuptiActivityFlushAll (CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  /* a buffer CUPTI hands back after this (at the context's teardown) is
   * dropped, not written to a closed file */
  FILE *done = trace;
  trace = NULL;
  fclose (done);
}

static int
failed (CUptiResult result, const char *what)
{
  const char *text = NULL;
  if (result == CUPTI_SUCCESS)
    return 0;
  cuptiGetResultString (result, &text);
  fprintf (stderr, "kernel-trace: %s: %s\n", what, text ? text : "?");
  return 1;
}

int
InitializeInjection (void)
{
  const char *path = getenv ("GB_TRACE");
  trace = fopen (path ? path : "trace.txt", "w");
  if (!trace) {
    perror ("kernel-trace");
    return 0;
  }
  if (failed (cuptiActivityEnable (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL),
          "kernels")
      || failed (cuptiActivityEnable (CUPTI_ACTIVITY_KIND_MEMCPY), "copies")
      || failed (cuptiActivityRegisterCallbacks (buffer_requested,
              buffer_completed), "buffers")) {
    fclose (trace);
    return 0;
  }
  atexit (flush_at_exit);
  return 1;
}

/* The CPU reference backend (internal to the core).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Implements every algorithm of the CUDA backend from the same weights and the
 * same border and rounding rules (sampling.h), split over threads by rows. It
 * is the oracle of the GPU tests and the element's fallback.
 */
#ifndef GAUSSBLUR_CPU_BACKEND_H
#define GAUSSBLUR_CPU_BACKEND_H

#include "filter.h"

typedef struct GbCpu GbCpu;

GbStatus gb_cpu_create (GbCpu ** cpu, GbError * error);
/* (Re)allocates the intermediate buffers for a geometry. */
GbStatus gb_cpu_configure (GbCpu * cpu, const GbGeometry * geometry,
    GbError * error);
/* filters: one per plane of the configured geometry (filter.h): each plane's
 * window is blurred with its x and y taps (or recursive filters, or
 * multi-scale plan), sharpened over its region if asked, and the rest of the
 * plane is copied from src. algorithm is never GB_ALGORITHM_AUTO here (the
 * caller resolves it). */
GbStatus gb_cpu_process (GbCpu * cpu, const GbImage * src, const GbImage * dst,
    const GbPlaneFilter * filters, GbAlgorithm algorithm, GbBorder border,
    GbError * error);
unsigned gb_cpu_allocation_count (const GbCpu * cpu);
void gb_cpu_destroy (GbCpu * cpu);

#endif

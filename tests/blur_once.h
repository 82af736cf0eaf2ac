/* One frame through a fresh handle: the reference blur of the GPU tests.
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef BLUR_ONCE_H
#define BLUR_ONCE_H

#include "gaussblur.h"

/* Creates a handle on backend for geometry, sets params, blurs src into dst
 * and destroys the handle; the first failure's status (error filled). */
GbStatus blur_once (GbBackend backend, const GbGeometry * geometry,
    const GbParams * params, const GbImage * src, const GbImage * dst,
    GbError * error);

#endif

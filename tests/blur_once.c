/* One frame through a fresh handle (see blur_once.h).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "blur_once.h"

GbStatus
blur_once (GbBackend backend, const GbGeometry * geometry,
    const GbParams * params, const GbImage * src, const GbImage * dst,
    GbError * error)
{
  GbBlur *blur;
  GbStatus status = gb_blur_create (backend, -1, geometry, &blur, error);
  if (status != GB_OK)
    return status;
  status = gb_blur_set_params (blur, params, error);
  if (status == GB_OK)
    status = gb_blur_process (blur, src, dst, error);
  gb_blur_destroy (blur);
  return status;
}

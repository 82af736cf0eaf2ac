#!/usr/bin/env bash
# Live preview of a V4L2 camera through cudagaussblur (Ctrl-C stops it).
#
# Copyright (C) 2026 The cudagaussblur authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
#   pipelines/camera-preview.sh [DEVICE]        DEVICE defaults to /dev/video0
#
# Environment: CAMERA (the device, if not given as argument), CAMERA_CAPS
# (e.g. video/x-raw,width=1280,height=720 to pick a camera mode), SINK (default
# autovideosink; fakesink runs headless), and SIGMA, BACKEND, RADIUS, ALGORITHM,
# BORDER, CUDA_DEVICE_ID, BUILD_DIR (see pipelines/common.sh). The blur
# properties are live-changeable; this script sets them once at start.
#   SIGMA=10 pipelines/camera-preview.sh /dev/video2
set -euo pipefail
# shellcheck source=pipelines/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

device=${1:-${CAMERA:-/dev/video0}}
SINK=${SINK:-autovideosink}

[ -c "$device" ] || die "no camera at $device (give the device: $0 /dev/videoN)"
use_plugin

camera=(v4l2src "device=$device")
if [ -n "${CAMERA_CAPS:-}" ]; then
  camera+=(! "$CAMERA_CAPS")
fi

# -e: on Ctrl-C send EOS so the sink shuts down cleanly.
run_pipeline -e "${camera[@]}" ! videoconvert ! "${blur_element[@]}" \
  ! videoconvert ! "$SINK"

# shellcheck shell=bash
# Sourced by the scripts in pipelines/ (not run on its own): finds the plugin,
# builds the cudagaussblur element from the environment and runs pipelines.
#
# Copyright (C) 2026 The cudagaussblur authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Environment (all optional):
#   SIGMA           Gaussian sigma in pixels (default 4; 0 = passthrough)
#   BACKEND         auto | cuda | cpu (default auto: CUDA if usable, else CPU)
#   RADIUS          taps each side (default: the element's, 0 = ceil(3.5 sigma))
#   ALGORITHM       auto | naive | shared | separable
#   BORDER          clamp | mirror | zero
#   CUDA_DEVICE_ID  CUDA device index (default: the element's, -1)
#   BUILD_DIR       meson build folder whose plugin is used (default build/);
#                   when it holds no plugin, the installed one is used

project_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$project_root/build}
SIGMA=${SIGMA:-4}
BACKEND=${BACKEND:-auto}

die() {
  echo "$(basename "$0"): $*" >&2
  exit 1
}

have_element() {
  # Without --atleast-version, --exists also demands the plugin's version be
  # GStreamer's own; cudagaussblur has its own version.
  gst-inspect-1.0 --exists --atleast-version=0.0 "$1" 2>/dev/null
}

# Points GStreamer at the plugin in BUILD_DIR, or checks that it is installed.
use_plugin() {
  command -v gst-launch-1.0 >/dev/null 2>&1 ||
    die "gst-launch-1.0 not found (apt-get install gstreamer1.0-tools)"
  if [ -f "$BUILD_DIR/gst/libgstcudagaussblur.so" ]; then
    export GST_PLUGIN_PATH=$BUILD_DIR/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}
  fi
  have_element cudagaussblur ||
    die "the cudagaussblur plugin is neither built in $BUILD_DIR nor installed;" \
        "run pipelines/demo.sh, or: meson setup build && ninja -C build"
}

# The blur element with its properties, as gst-launch-1.0 words.
blur_element=(cudagaussblur "sigma=$SIGMA" "backend=$BACKEND")
[ -n "${RADIUS:-}" ] && blur_element+=("radius=$RADIUS")
[ -n "${ALGORITHM:-}" ] && blur_element+=("algorithm=$ALGORITHM")
[ -n "${BORDER:-}" ] && blur_element+=("border=$BORDER")
[ -n "${CUDA_DEVICE_ID:-}" ] && blur_element+=("cuda-device-id=$CUDA_DEVICE_ID")

# Prints and runs gst-launch-1.0 with the given words (one word per argument:
# gst-launch-1.0 escapes the spaces inside one, so paths may hold spaces).
run_pipeline() {
  local word shown=gst-launch-1.0
  for word in "$@"; do
    if [[ $word =~ ^[][A-Za-z0-9_.,:/=+!@%~-]+$ ]]; then
      shown+=" $word"
    elif [[ $word != *"'"* ]]; then
      shown+=" '$word'"
    else
      shown+=" $(printf %q "$word")"
    fi
  done
  echo "+ $shown"
  gst-launch-1.0 "$@"
}

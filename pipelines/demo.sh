#!/usr/bin/env bash
# The cudagaussblur demo: installs what is missing, builds, blurs a test card.
#
# Copyright (C) 2026 The cudagaussblur authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
#   pipelines/demo.sh [IMAGE]
#
# For Debian bookworm (or Ubuntu) with the CUDA toolkit (nvcc, looked for on
# PATH and in /usr/local/cuda/bin):
#   1. apt-get installs the build tools and GStreamer packages that are missing
#      (with sudo unless run as root; nothing when all are present);
#   2. configures build/ (meson setup build) if needed and builds it (ninja);
#   3. runs pipelines/blur-still.sh: the test card (or IMAGE) before and after
#      the blur, as out/before.png and out/after.png.
# Without a usable GPU the element falls back to its CPU reference (one
# warning) and the demo still runs. Environment: CUDA_ARCHITECTURES (e.g. 90:
# build for that GPU only, much faster than the default list), BUILD_DIR, and
# those of blur-still.sh (OUT_DIR, PATTERN, SIGMA, BACKEND...).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$root/build}
export BUILD_DIR

packages=(
  meson ninja-build pkg-config gcc g++
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
)

echo "=== 1/3 packages"
if command -v dpkg-query >/dev/null 2>&1; then
  missing=()
  for package in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)
    [ "$status" = installed ] || missing+=("$package")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    as_root=()
    [ "$(id -u)" = 0 ] || as_root=(sudo)
    echo "installing: ${missing[*]}"
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq --no-install-recommends "${missing[@]}"
  else
    echo "all present"
  fi
else
  echo "not a Debian system: install meson, ninja, a C compiler and the" \
    "GStreamer 1.22+ development files, tools and base/good plugins yourself"
fi

if ! command -v nvcc >/dev/null 2>&1; then
  [ -x /usr/local/cuda/bin/nvcc ] || {
    echo "demo.sh: nvcc not found; install the CUDA toolkit" >&2
    exit 1
  }
  export PATH=/usr/local/cuda/bin:$PATH
fi

echo "=== 2/3 build ($BUILD_DIR)"
if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  setup_options=()
  if [ -n "${CUDA_ARCHITECTURES:-}" ]; then
    setup_options=("-Dgpu_architectures=$CUDA_ARCHITECTURES")
  fi
  meson setup "$BUILD_DIR" "$root" "${setup_options[@]}"
elif [ -n "${CUDA_ARCHITECTURES:-}" ]; then
  # as tests/run.sh: the architectures asked for, on an existing build too
  meson configure "$BUILD_DIR" "-Dgpu_architectures=$CUDA_ARCHITECTURES"
fi
ninja -C "$BUILD_DIR"

echo "=== 3/3 blur"
"$root/pipelines/blur-still.sh" "$@"
echo "Open the two PNGs above to compare. More: pipelines/blur-file.sh" \
  "(video file to file), pipelines/camera-preview.sh, tests/run.sh (tests)."

#!/usr/bin/env bash
# The edge-aware blur: smooths skin and flat areas (or, stronger, gives a
# cartoon look) while edges stay sharp. A still image before and after as
# PNG, or a video file re-encoded.
#
# Copyright (C) 2026 The cudagaussblur authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
#   pipelines/edge-aware.sh [INPUT]
#
# INPUT (default tests/data/photos/grace-hopper.ppm) is a still image or a
# video file, told apart by its extension:
#   .ppm .pgm .pnm  pnmdec (gstreamer1.0-plugins-bad)
#   .png            pngdec
#   .jpg .jpeg      jpegdec
# A tee sends the image to OUT_DIR/edge-aware-before.png and, through
# cudagaussblur algorithm=edge-aware, to OUT_DIR/edge-aware-after.png.
# Anything else is a video that decodebin plays (only its video is kept):
# blurred into OUT_DIR/edge-aware.mkv (H.264 if x264enc is installed, else
# VP8). Frames are blurred as RGB (video as BGRx), so that an edge is a
# difference of colour over R, G and B together; in I420 each chroma plane
# would find its edges on its own.
#
# LOOK picks the settings (each may be overridden by its variable):
#   smooth   (default) SIGMA 10, SIGMA_RANGE 20, ITERATIONS 2: skin and flat
#            areas smoothed, wrinkles softened, edges and eyes kept
#   cartoon  SIGMA 50, SIGMA_RANGE 30, ITERATIONS 3: flat patches of colour
#            with sharp outlines
# SIGMA is the spatial sigma in pixels, SIGMA_RANGE the intensity difference
# (in 8-bit levels) that counts as an edge: smaller keeps more edges.
# Without a GPU the element computes the exact filter on the CPU, one
# thread: fine for an image, about a second per 1080p frame of video.
#
# Environment: OUT_DIR (default out/), LOOK, SIGMA_RANGE, ITERATIONS, KAPPA
# (the GPU's warm-up in sigmas; 0 exact, slower), SIZE (WIDTHxHEIGHT: scale
# the input first, e.g. 320x320 for small PNGs), and SIGMA, BACKEND, BORDER,
# CUDA_DEVICE_ID, BUILD_DIR (see pipelines/common.sh); ALGORITHM (default
# edge-aware; recursive, say, shows the plain Gaussian of the same SIGMA).
#   pipelines/edge-aware.sh
#   LOOK=cartoon pipelines/edge-aware.sh portrait.png
#   SIGMA_RANGE=15 pipelines/edge-aware.sh interview.mp4
set -euo pipefail

# The look's settings before common.sh, which builds the element with
# $SIGMA and $ALGORITHM (another LOOK fails after the arguments' check).
LOOK=${LOOK:-smooth}
case $LOOK in
  smooth) look=(10 20 2) ;;
  cartoon) look=(50 30 3) ;;
  *) look=() ;;
esac
SIGMA=${SIGMA:-${look[0]:-}}
SIGMA_RANGE=${SIGMA_RANGE:-${look[1]:-}}
ITERATIONS=${ITERATIONS:-${look[2]:-}}
ALGORITHM=${ALGORITHM:-edge-aware}
# shellcheck source=pipelines/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
one_input_args "$@"
[ ${#look[@]} -gt 0 ] || die "LOOK must be smooth or cartoon, not '$LOOK'"

in=${1:-$project_root/tests/data/photos/grace-hopper.ppm}
OUT_DIR=${OUT_DIR:-out}

number "$SIGMA" 0 250 || die "SIGMA must be a number from 0 to 250, not '$SIGMA'"
number "$SIGMA_RANGE" 0.1 100000 ||
  die "SIGMA_RANGE must be a number from 0.1 to 100000, not '$SIGMA_RANGE'"
[[ $ITERATIONS =~ ^[1-8]$ ]] ||
  die "ITERATIONS must be 1 to 8, not '$ITERATIONS'"
blur_element+=("sigma-range=$SIGMA_RANGE" "iterations=$ITERATIONS")
if [ -n "${KAPPA:-}" ]; then
  number "$KAPPA" 0 16 || die "KAPPA must be a number from 0 to 16, not '$KAPPA'"
  blur_element+=("kappa=$KAPPA")
fi
scale_to_size 384x384

use_plugin
[ -r "$in" ] || die "cannot read $in"

decoder=$(image_decoder "$in")
mkdir -p "$OUT_DIR"
settings="sigma=$SIGMA sigma-range=$SIGMA_RANGE iterations=$ITERATIONS"

if [ -n "$decoder" ]; then
  need_decoder "$decoder" "$in"
  have_element pngenc || die "the PNGs need the pngenc element"
  before=$OUT_DIR/edge-aware-before.png
  after=$OUT_DIR/edge-aware-after.png
  check_outputs "$in" "$before" "$after"
  # RGB for RGB images, which the element takes as they are; gray stays
  # gray; the rest (palette PNGs, JPEG's I420) becomes RGB.
  image_before_after "$before" "$after" run_pipeline \
    filesrc "location=$in" ! "$decoder" ! videoconvert \
    ! "video/x-raw,format={RGB,RGBA,GRAY8,GRAY16_LE}" ! "${scale[@]}"
  echo "before: $(realpath "$before")"
  echo "after:  $(realpath "$after")  (cudagaussblur algorithm=$ALGORITHM" \
    "$settings backend=$BACKEND)"
  exit 0
fi

choose_encoder
out=$OUT_DIR/edge-aware.mkv
check_outputs "$in" "$out"
rm -f "$out"
run_pipeline filesrc "location=$in" ! decodebin ! video/x-raw ! videoconvert \
  ! video/x-raw,format=BGRx ! "${scale[@]}" "${blur_element[@]}" \
  ! videoconvert ! video/x-raw,format=I420 ! "${encode[@]}" \
  ! filesink "location=$out"
[ -s "$out" ] || die "the pipeline wrote nothing to $out"
echo "video: $(realpath "$out")  (${encode[0]}, cudagaussblur" \
  "algorithm=$ALGORITHM $settings backend=$BACKEND)"

#!/usr/bin/env bash
# Tilt-shift ("miniature") look: a sharp band across the picture, blurred more
# and more away from it, with cudagaussblur sigma-map=tilt-shift. A still
# image before and after as PNG, or a video file re-encoded, with one frame of
# it before and after as PNG.
#
# Copyright (C) 2026 The cudagaussblur authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
#   pipelines/tilt-shift.sh [INPUT]
#
# INPUT (default tests/data/photos/stm32f3-board.ppm) is a still image or a
# video file, told apart by its extension:
#   .ppm .pgm .pnm  pnmdec (gstreamer1.0-plugins-bad)
#   .png            pngdec
#   .jpg .jpeg      jpegdec
# A tee sends the image to OUT_DIR/tilt-shift-before.png and, through the
# blur, to OUT_DIR/tilt-shift-after.png (the result); images are blurred as
# RGB. Anything else is a video that decodebin plays (only its video is
# kept): blurred in the decoder's format (no conversion unless the element
# does not take it) into OUT_DIR/tilt-shift.mkv (H.264 if x264enc is
# installed, else VP8), and frame FRAME (default 30; the last frame of a
# shorter clip) written before and after the blur as
# OUT_DIR/tilt-shift-before.png and tilt-shift-after.png.
#
# The band (the element's focus-* properties):
#   FOCUS_X, FOCUS_Y  a point on its centre line, about which FOCUS_ANGLE turns
#                     it, as fractions of the width and the height (default
#                     0.5, 0.5: the middle; FOCUS_Y 0 = the top)
#   FOCUS_SIZE        its width, a fraction of the frame's height (default 0.2)
#   FOCUS_TRANSITION  the distance beyond its edges over which the blur grows
#                     from 0 to SIGMA, in the same units (default 0.3)
#   FOCUS_ANGLE       its angle in degrees (default 0, level; positive turns
#                     it counter-clockwise)
#   SIGMA             the blur far from the band, in pixels (default 8)
# The blur is the element's spatially varying one (kernel superposition),
# whose kernels reach at most 32 pixels: a SIGMA above 10.67 blurs as 10.67.
# Without a GPU the element blurs on the CPU, about a second per 512x400
# frame at SIGMA 8, and more the larger the frame.
#
# Environment: OUT_DIR (default out/), the FOCUS_* above, SIZE (WIDTHxHEIGHT:
# scale the input first), FRAME, and SIGMA, BACKEND, BORDER, CUDA_DEVICE_ID,
# BUILD_DIR (see pipelines/common.sh).
#   pipelines/tilt-shift.sh
#   FOCUS_Y=0.6 FOCUS_ANGLE=-15 pipelines/tilt-shift.sh street.jpg
#   BACKEND=cpu SIZE=640x360 FOCUS_SIZE=0.15 pipelines/tilt-shift.sh aerial.mp4
set -euo pipefail

# Before common.sh, which builds the element with $SIGMA.
SIGMA=${SIGMA:-8}
# shellcheck source=pipelines/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
one_input_args "$@"

in=${1:-$project_root/tests/data/photos/stm32f3-board.ppm}
OUT_DIR=${OUT_DIR:-out}
FOCUS_X=${FOCUS_X:-0.5}
FOCUS_Y=${FOCUS_Y:-0.5}
FOCUS_SIZE=${FOCUS_SIZE:-0.2}
FOCUS_TRANSITION=${FOCUS_TRANSITION:-0.3}
FOCUS_ANGLE=${FOCUS_ANGLE:-0}
FRAME=${FRAME:-30}

number "$SIGMA" 0.1 250 ||
  die "SIGMA must be a number from 0.1 to 250, not '$SIGMA'"
number "$FOCUS_X" 0 1 || die "FOCUS_X must be from 0 to 1, not '$FOCUS_X'"
number "$FOCUS_Y" 0 1 || die "FOCUS_Y must be from 0 to 1, not '$FOCUS_Y'"
number "$FOCUS_SIZE" 0 2 ||
  die "FOCUS_SIZE must be from 0 to 2, not '$FOCUS_SIZE'"
number "$FOCUS_TRANSITION" 0 2 ||
  die "FOCUS_TRANSITION must be from 0 to 2, not '$FOCUS_TRANSITION'"
number "$FOCUS_ANGLE" -180 180 ||
  die "FOCUS_ANGLE must be degrees from -180 to 180, not '$FOCUS_ANGLE'"
[[ $FRAME =~ ^[0-9]+$ ]] || die "FRAME must be a frame number, not '$FRAME'"
scale_to_size 640x360

use_plugin
have_element pngenc || die "the PNGs need the pngenc element"
[ -r "$in" ] || die "cannot read $in"

blur_element+=(sigma-map=tilt-shift "focus-x=$FOCUS_X" "focus-y=$FOCUS_Y"
  "focus-size=$FOCUS_SIZE" "focus-transition=$FOCUS_TRANSITION"
  "focus-angle=$FOCUS_ANGLE")
settings="sigma=$SIGMA focus-y=$FOCUS_Y focus-size=$FOCUS_SIZE"
settings+=" focus-transition=$FOCUS_TRANSITION focus-angle=$FOCUS_ANGLE"

media_outputs "$in" tilt-shift tilt-shift
if [ -n "$decoder" ]; then
  need_decoder "$decoder" "$in"
  # RGB for RGB images, which the element takes as they are; gray stays
  # gray; the rest (palette PNGs, JPEG's I420) becomes RGB.
  image_before_after "$before" "$after" run_pipeline \
    filesrc "location=$in" ! "$decoder" ! videoconvert ! videoscale \
    ! "video/x-raw,format={RGB,RGBA,GRAY8,GRAY16_LE}$size_caps" !
  echo "before: $(realpath "$before")"
  echo "after:  $(realpath "$after")  (cudagaussblur sigma-map=tilt-shift" \
    "$settings backend=$BACKEND)"
  exit 0
fi

choose_encoder
rm -f "$out" "$before" "$after"
# videoconvert in front of the blur only converts when the element does not
# take the decoder's format.
run_pipeline filesrc "location=$in" ! decodebin ! video/x-raw \
  ! "${scale[@]}" videoconvert ! "${blur_element[@]}" \
  ! videoconvert ! video/x-raw,format=I420 ! "${encode[@]}" \
  ! filesink "location=$out"
[ -s "$out" ] || die "the pipeline wrote nothing to $out"

# Frame FRAME before and after the blur, decoded again, as blur-region.sh
# does: identity ends the stream after FRAME + 1 frames, a tee hands each
# frame to both branches, multifilesink keeps the last few of each.
shots=$(mktemp -d "${TMPDIR:-/tmp}/tilt-shift.XXXXXX")
trap 'rm -rf "$shots"' EXIT
shot=(videoconvert ! pngenc compression-level=9 ! multifilesink max-files=8)
run_pipeline filesrc "location=$in" ! decodebin ! video/x-raw \
  ! identity "eos-after=$((FRAME + 2))" ! "${scale[@]}" tee name=split \
  split. ! queue ! "${shot[@]}" "location=${shots//%/%%}/before-%d.png" \
  split. ! queue ! videoconvert ! "${blur_element[@]}" \
    ! "${shot[@]}" "location=${shots//%/%%}/after-%d.png"
keep_frame "$shots" "$FRAME" "$before" "$after"
echo "video:  $(realpath "$out")  (${encode[0]}, cudagaussblur" \
  "sigma-map=tilt-shift $settings backend=$BACKEND)"
echo "before: $(realpath "$before")  (frame $frame)"
echo "after:  $(realpath "$after")"

#!/usr/bin/env bash
# Privacy blur: finds faces with facedetect (OpenCV) and blurs only them with
# cudagaussblur sigma-map=roi. A still image before and after as PNG, or a
# video file re-encoded, with one frame of it before and after as PNG.
#
# Copyright (C) 2026 The cudagaussblur authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
#   pipelines/privacy-blur.sh [INPUT]
#
# facedetect (gst-plugins-bad's OpenCV plugin; Debian and Ubuntu:
# apt-get install gstreamer1.0-opencv) attaches a GstVideoRegionOfInterestMeta
# of type "face" to each frame for each face it finds, whatever its display
# and updates properties say. cudagaussblur sigma-map=roi roi-types=face blurs
# these rectangles with SIGMA; the blur fades out over FEATHER pixels around
# each; a frame without a face passes through untouched. facedetect takes RGB
# only, so frames are blurred as RGB.
#
# INPUT (default tests/data/photos/grace-hopper.ppm) is a still image or a
# video file, told apart by its extension:
#   .ppm .pgm .pnm  pnmdec (gstreamer1.0-plugins-bad)
#   .png            pngdec
#   .jpg .jpeg      jpegdec
# A tee sends the image to OUT_DIR/privacy-blur-before.png and, through the
# blur, to OUT_DIR/privacy-blur-after.png (the result). Anything else is a
# video that decodebin plays (only its video is kept): blurred into
# OUT_DIR/privacy-blurred.mkv (H.264 if x264enc is installed, else VP8), and
# frame FRAME (default 30; the last frame of a shorter clip) written before
# and after the blur as OUT_DIR/privacy-blur-before.png and
# privacy-blur-after.png.
# The script says in how many frames facedetect found a face, and fails when
# it found none (the output is then the input, unblurred).
#
# The blur is the element's spatially varying one (kernel superposition),
# whose kernels reach at most 32 pixels: a SIGMA above 10.67 blurs as 10.67.
# The element normalises the superposition (normalize=true, its default), so
# the fade leaves no bright or dark halo beside a face (the plain
# superposition, normalize=false, put the sky beside the sample photo's face
# up to 67 levels off at FEATHER 12; docs/algorithms.md, section 12.1).
# Frontal faces only, as the cascade
# FACE_PROFILE finds them. Without a GPU the element blurs on the CPU, under
# a second per 512x512 frame with a face.
#
# Environment: OUT_DIR (default out/), SIGMA (default 10), FEATHER (default
# 12, roi-feather in pixels), ROI_TYPES (default face; empty = every region
# of interest on the buffer), FACE_PROFILE (facedetect's Haar cascade,
# default /usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml
# from the opencv-data package), MIN_FACE (smallest face found, in pixels;
# default 30), SIZE (WIDTHxHEIGHT: scale the input first), FRAME, and
# BACKEND, CUDA_DEVICE_ID, BUILD_DIR (see pipelines/common.sh).
#   pipelines/privacy-blur.sh
#   BACKEND=cpu SIZE=384x384 pipelines/privacy-blur.sh
#   SIGMA=8 FEATHER=32 pipelines/privacy-blur.sh interview.mp4
set -euo pipefail

# Before common.sh, which builds the element with $SIGMA.
SIGMA=${SIGMA:-10}
# shellcheck source=pipelines/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
one_input_args "$@"

in=${1:-$project_root/tests/data/photos/grace-hopper.ppm}
OUT_DIR=${OUT_DIR:-out}
FEATHER=${FEATHER:-12}
ROI_TYPES=${ROI_TYPES-face}
cascades=/usr/share/opencv4/haarcascades
FACE_PROFILE=${FACE_PROFILE:-$cascades/haarcascade_frontalface_default.xml}
MIN_FACE=${MIN_FACE:-30}
FRAME=${FRAME:-30}

number "$SIGMA" 0.1 250 ||
  die "SIGMA must be a number from 0.1 to 250, not '$SIGMA'"
number "$FEATHER" 0 512 ||
  die "FEATHER must be a number of pixels from 0 to 512, not '$FEATHER'"
[[ $ROI_TYPES =~ ^[A-Za-z0-9_.,:-]*$ ]] ||
  die "ROI_TYPES must be a comma-separated list of names, not '$ROI_TYPES'"
[[ $MIN_FACE =~ ^[0-9]+$ ]] || die "MIN_FACE must be pixels, not '$MIN_FACE'"
[[ $FRAME =~ ^[0-9]+$ ]] || die "FRAME must be a frame number, not '$FRAME'"
scale_to_size 384x384

use_plugin
have_element facedetect ||
  die "the facedetect element is not installed: it is gst-plugins-bad's" \
      "OpenCV plugin (Debian, Ubuntu: apt-get install gstreamer1.0-opencv)"
# Without its cascade facedetect finds nothing and says so only in the log.
[ -r "$FACE_PROFILE" ] ||
  die "facedetect's face cascade $FACE_PROFILE is missing" \
      "(Debian, Ubuntu: apt-get install opencv-data), or set FACE_PROFILE"
have_element pngenc || die "the PNGs need the pngenc element"
[ -r "$in" ] || die "cannot read $in"
# facedetect also loads nose, mouth and eye-pair cascades (haarcascade_mcs_*,
# which Debian's opencv-data lacks) and, through OpenCV's log, reports each
# missing one as an error. It does not need them to find faces: quiet OpenCV,
# unless the user asked for its log.
if [ -z "${OPENCV_LOG_LEVEL:-}" ]; then
  export OPENCV_LOG_LEVEL=FATAL
fi

blur_element+=(sigma-map=roi "roi-feather=$FEATHER")
[ -n "$ROI_TYPES" ] && blur_element+=("roi-types=$ROI_TYPES")
detect=(facedetect name=faces display=false "profile=$FACE_PROFILE"
  "min-size-width=$MIN_FACE" "min-size-height=$MIN_FACE")
rgb=(videoconvert ! videoscale ! "video/x-raw,format=RGB$size_caps")
settings="sigma=$SIGMA roi-feather=$FEATHER roi-types=${ROI_TYPES:-(all)}"

media_outputs "$in" privacy-blur privacy-blurred
work=$(mktemp -d "${TMPDIR:-/tmp}/privacy-blur.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Runs gst-launch-1.0 -m with the given words; facedetect's messages (one a
# frame) are counted into $work/faces as "FRAMES FRAMES_WITH_A_FACE", the
# bus's other messages dropped and the rest shown.
run_counting_faces() {
  run_pipeline -m "$@" | awk -v counts="$work/faces" '
    /^Got message .*"faces" \(element\): facedetect,/ {
      frames++
      if ($0 ~ /faces=\(structure\)\{ *"/) faced++
      next
    }
    /^Got message / { next }
    { print; fflush() }
    END { print frames + 0, faced + 0 > counts }'
}

# "N of M frames", and fails when facedetect found no face at all.
report_faces() {
  local frames faced
  read -r frames faced <"$work/faces"
  [ "$frames" -gt 0 ] || die "facedetect saw no frame"
  [ "$faced" -gt 0 ] ||
    die "facedetect found no face in $in: nothing was blurred" \
        "(frontal faces of at least MIN_FACE=$MIN_FACE pixels; try SIZE or" \
        "MIN_FACE)"
  echo "faces found in $faced of $frames frame(s)"
}

if [ -n "$decoder" ]; then
  need_decoder "$decoder" "$in"
  image_before_after "$before" "$after" run_counting_faces \
    filesrc "location=$in" ! "$decoder" ! "${rgb[@]}" ! "${detect[@]}" !
  report_faces
  echo "before: $(realpath "$before")"
  echo "after:  $(realpath "$after")  (cudagaussblur sigma-map=roi" \
    "$settings backend=$BACKEND)"
  exit 0
fi

choose_encoder
rm -f "$out" "$before" "$after"
run_counting_faces filesrc "location=$in" ! decodebin ! video/x-raw \
  ! "${rgb[@]}" ! "${detect[@]}" ! "${blur_element[@]}" \
  ! videoconvert ! video/x-raw,format=I420 ! "${encode[@]}" \
  ! filesink "location=$out"
[ -s "$out" ] || die "the pipeline wrote nothing to $out"
report_faces

# Frame FRAME before and after the blur, decoded again, as blur-region.sh
# does: identity ends the stream after FRAME + 1 frames, a tee hands each
# frame to both branches, multifilesink keeps the last few of each.
shot=(videoconvert ! pngenc compression-level=9 ! multifilesink max-files=8)
run_pipeline filesrc "location=$in" ! decodebin ! video/x-raw \
  ! identity "eos-after=$((FRAME + 2))" ! "${rgb[@]}" ! "${detect[@]}" \
  ! tee name=split \
  split. ! queue ! "${shot[@]}" "location=${work//%/%%}/before-%d.png" \
  split. ! queue ! "${blur_element[@]}" \
    ! "${shot[@]}" "location=${work//%/%%}/after-%d.png"
keep_frame "$work" "$FRAME" "$before" "$after"
echo "video:  $(realpath "$out")  (${encode[0]}, cudagaussblur sigma-map=roi" \
  "$settings backend=$BACKEND)"
echo "before: $(realpath "$before")  (frame $frame)"
echo "after:  $(realpath "$after")"

#!/usr/bin/env bash
# Blurs a video file into another: decode, cudagaussblur, encode.
#
# Copyright (C) 2026 The cudagaussblur authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
#   pipelines/blur-file.sh [IN|-] [OUT]
#
# IN is any file decodebin can play (only its video is kept); without IN, or
# with "-", the input is a synthetic 1280x720 clip (videotestsrc, FRAMES frames,
# default 150 = 5 s at 30 fps; PATTERN picks its pattern, default smpte).
# OUT (default out/blurred.mkv) picks the encoder by its extension:
#   .mkv        H.264 (x264enc, gstreamer1.0-plugins-ugly) if installed, else VP8
#   .mp4 .mov   H.264, needs x264enc
#   .webm       VP8 (vp8enc, gstreamer1.0-plugins-good)
#   .avi        Motion JPEG (jpegenc, gstreamer1.0-plugins-good)
#   .ogv        Theora (theoraenc, gstreamer1.0-plugins-base)
#
# Environment: FRAMES, PATTERN, and SIGMA, BACKEND, RADIUS, ALGORITHM, BORDER,
# CUDA_DEVICE_ID, BUILD_DIR (see pipelines/common.sh).
#   BACKEND=cpu SIGMA=6 pipelines/blur-file.sh clip.mp4 out/clip-blurred.webm
set -euo pipefail
# shellcheck source=pipelines/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

in=${1:--}
out=${2:-out/blurred.mkv}
FRAMES=${FRAMES:-150}
PATTERN=${PATTERN:-smpte}

use_plugin

h264=(x264enc speed-preset=faster)
vp8=(vp8enc deadline=1 cpu-used=4 target-bitrate=4000000)
case ${out,,} in
  *.mkv)
    if have_element x264enc; then encode=("${h264[@]}" ! matroskamux)
    else encode=("${vp8[@]}" ! matroskamux); fi ;;
  *.mp4 | *.mov | *.m4v)
    have_element x264enc || die "$out needs x264enc (apt-get install" \
      "gstreamer1.0-plugins-ugly); or write .mkv, .webm, .avi or .ogv"
    encode=("${h264[@]}" ! mp4mux) ;;
  *.webm) encode=("${vp8[@]}" ! webmmux) ;;
  *.avi) encode=(jpegenc quality=90 ! avimux) ;;
  *.ogv | *.ogg) encode=(theoraenc ! oggmux) ;;
  *) die "unknown extension of $out (.mkv, .mp4, .mov, .webm, .avi, .ogv)" ;;
esac
have_element "${encode[0]}" || die "$out needs the ${encode[0]} element"

if [ "$in" = - ]; then
  source=(videotestsrc "num-buffers=$FRAMES" "pattern=$PATTERN"
    ! "video/x-raw,width=1280,height=720,framerate=30/1")
  in_name="videotestsrc pattern=$PATTERN ($FRAMES frames)"
else
  [ -r "$in" ] || die "cannot read $in"
  [ "$(realpath "$in")" != "$(realpath -m "$out")" ] ||
    die "$in would be overwritten: give another OUT"
  source=(filesrc "location=$in" ! decodebin)
  in_name=$in
fi

mkdir -p "$(dirname "$out")"
# 4:2:0 before the encoder: from RGB, videoconvert would otherwise hand x264enc
# 4:4:4, which few players decode.
run_pipeline "${source[@]}" ! videoconvert ! "${blur_element[@]}" \
  ! videoconvert ! video/x-raw,format=I420 ! "${encode[@]}" \
  ! filesink "location=$out"

[ -s "$out" ] || die "the pipeline wrote nothing to $out"
echo "blurred $in_name"
echo "   into $(realpath "$out")  (${encode[0]}, cudagaussblur sigma=$SIGMA backend=$BACKEND)"

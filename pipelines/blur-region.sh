#!/usr/bin/env bash
# Blurs a rectangle (a privacy box) of a video file: decode, cudagaussblur with
# a region, encode; and one frame of it before and after as PNG.
#
# Copyright (C) 2026 The cudagaussblur authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
#   pipelines/blur-region.sh [INPUT|-] [X Y W H] [SIGMA]
#
# INPUT is any file decodebin can play (only its video is kept); without it, or
# with "-", the script first encodes a synthetic clip to OUT_DIR/region-input.mkv
# (videotestsrc PATTERN, default smpte, scrolling sideways, with the running
# time written in the middle when timeoverlay is installed; SIZE, default
# 1280x720, FRAMES frames, default 150 = 5 s at 30 fps; VP8) and blurs that.
# X Y W H is the box in frame pixels (X, Y its top left corner; the element
# clips it to the frame; W or H 0 blurs the whole frame); default: centred,
# a third of the frame's width and height. SIGMA (default 12, or $SIGMA) is the
# blur's; negative sharpens instead. Pixels outside the box are copied
# unchanged, and the box's blur reads its surroundings (no dark edges).
#
# The frames stay in the decoder's format (I420, NV12...) through the blur:
# there is no videoconvert before cudagaussblur (unless the decoder's format is
# one the element does not take), only before the encoder and the PNGs.
# Written to OUT_DIR (default out/):
#   region-blurred.mkv   the video: H.264 (x264enc) if installed, else VP8
#   region-before.png    frame FRAME (default 30, 1 s at 30 fps; the last
#   region-after.png     frame of a shorter clip) before and after the blur
#
# Environment: OUT_DIR, FRAME, SIZE, FRAMES, PATTERN, and SIGMA, BACKEND,
# RADIUS, ALGORITHM, BORDER, CUDA_DEVICE_ID, BUILD_DIR (see pipelines/common.sh).
#   pipelines/blur-region.sh
#   BACKEND=cpu pipelines/blur-region.sh clip.mp4 600 200 320 240 16
set -euo pipefail

usage="usage: $(basename "$0") [INPUT|-] [X Y W H] [SIGMA]"
if [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
  echo "$usage"
  exit 0
fi

# The arguments before common.sh, which builds the element with $SIGMA.
in=${1:--}
box=()
sigma_arg=
args_ok=true
case $# in
  0 | 1) ;;
  2) sigma_arg=$2 ;;
  5) box=("$2" "$3" "$4" "$5") ;;
  6) box=("$2" "$3" "$4" "$5"); sigma_arg=$6 ;;
  *) args_ok=false ;;
esac
SIGMA=${sigma_arg:-${SIGMA:-12}}
# shellcheck source=pipelines/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

$args_ok || die "$# arguments; $usage (INPUT - for the test clip)"
OUT_DIR=${OUT_DIR:-out}
FRAME=${FRAME:-30}
SIZE=${SIZE:-1280x720}
FRAMES=${FRAMES:-150}
PATTERN=${PATTERN:-smpte}

for value in "${box[@]}"; do
  [[ $value =~ ^[0-9]+$ ]] ||
    die "the box X Y W H must be whole numbers of pixels, not '$value'"
done
number "$SIGMA" -250 250 ||
  die "SIGMA must be a number from -250 to 250, not '$SIGMA'"
[[ $FRAME =~ ^[0-9]+$ ]] || die "FRAME must be a frame number, not '$FRAME'"
[[ $SIZE =~ ^[1-9][0-9]*x[1-9][0-9]*$ ]] ||
  die "SIZE must be WIDTHxHEIGHT, e.g. 640x360, not '$SIZE'"
[[ $FRAMES =~ ^[1-9][0-9]*$ ]] || die "FRAMES must be a positive number"

use_plugin

vp8=(vp8enc deadline=1 cpu-used=4 target-bitrate=4000000)
# As blur-file.sh writes .mkv; 4:2:0 only, which every player decodes.
if have_element x264enc; then
  encode=(x264enc speed-preset=faster ! matroskamux)
  encoder_caps="video/x-raw,format={I420,NV12}"
else
  encode=("${vp8[@]}" ! matroskamux)
  encoder_caps=video/x-raw,format=I420
fi
have_element "${encode[0]}" || die "writing video needs the ${encode[0]} element"
have_element pngenc || die "the PNGs need the pngenc element"

mkdir -p "$OUT_DIR"
out=$OUT_DIR/region-blurred.mkv
before=$OUT_DIR/region-before.png
after=$OUT_DIR/region-after.png

if [ "$in" = - ]; then
  in=$OUT_DIR/region-input.mkv
  in_name="videotestsrc pattern=$PATTERN ($SIZE, $FRAMES frames)"
  clock=()
  if have_element timeoverlay; then
    clock=(timeoverlay halignment=center valignment=center
      "font-desc=Sans Bold 24" !)
  fi
  # VP8: its encoder and decoder both come with plugins-good.
  run_pipeline videotestsrc "num-buffers=$FRAMES" "pattern=$PATTERN" \
      horizontal-speed=4 \
    ! "video/x-raw,width=${SIZE%x*},height=${SIZE#*x},framerate=30/1" \
    ! "${clock[@]}" videoconvert ! video/x-raw,format=I420 ! "${vp8[@]}" \
    ! matroskamux ! filesink "location=$in"
  [ -s "$in" ] || die "the pipeline wrote no test clip to $in"
else
  [ -r "$in" ] || die "cannot read $in"
  check_outputs "$in" "$out" "$before" "$after"
  in_name=$in
fi

# The decoder's format and frame size, from one decoded frame. (gst-launch-1.0
# -v now and then leaves out the caps line, with files that also hold audio:
# ask again.)
for _ in 1 2 3 4 5; do
  caps=$(gst-launch-1.0 -v filesrc "location=$in" ! decodebin ! video/x-raw \
    ! fakesink name=probe num-buffers=1 2>&1 |
    grep -m1 'probe.GstPad:sink: caps' || true)
  [ -z "$caps" ] || break
done
[[ $caps =~ format=\(string\)([A-Za-z0-9_]+) ]] ||
  die "found no video that decodebin decodes in $in"
format=${BASH_REMATCH[1]}
[[ $caps =~ width=\(int\)([0-9]+) ]] || die "no frame width in: $caps"
width=${BASH_REMATCH[1]}
[[ $caps =~ height=\(int\)([0-9]+) ]] || die "no frame height in: $caps"
height=${BASH_REMATCH[1]}

convert=()
blurred_as="blurred as $format, unconverted"
if ! gst-inspect-1.0 cudagaussblur | sed -n '/SINK template/,/SRC template/p' |
  grep -q "(string)$format\b"; then
  echo "cudagaussblur does not take $format: videoconvert picks a format it does"
  convert=(videoconvert !)
  blurred_as="converted for the blur"
fi

if [ ${#box[@]} -eq 0 ]; then
  # A third of the frame each way, centred, on even pixels (the chroma grid).
  box_w=$((width / 3 & ~1))
  box_h=$((height / 3 & ~1))
  box=($(((width - box_w) / 2 & ~1)) $(((height - box_h) / 2 & ~1))
    "$box_w" "$box_h")
fi
if [ "${box[0]}" -ge "$width" ] || [ "${box[1]}" -ge "$height" ]; then
  die "the box at ${box[0]},${box[1]} lies outside the ${width}x$height frame"
fi
blur_element+=("region-x=${box[0]}" "region-y=${box[1]}"
  "region-width=${box[2]}" "region-height=${box[3]}")
box_name="${box[2]}x${box[3]} at ${box[0]},${box[1]}"
if [ "${box[2]}" = 0 ] || [ "${box[3]}" = 0 ]; then
  box_name="the whole frame (W or H 0)"
elif [ $((box[0] + box[2])) -gt "$width" ] ||
  [ $((box[1] + box[3])) -gt "$height" ]; then
  box_name+=" (clipped to the frame)"
fi

rm -f "$out" "$before" "$after"
run_pipeline filesrc "location=$in" ! decodebin ! video/x-raw \
  ! "${convert[@]}" "${blur_element[@]}" \
  ! videoconvert ! "$encoder_caps" ! "${encode[@]}" ! filesink "location=$out"
[ -s "$out" ] || die "the pipeline wrote nothing to $out"

# Frame FRAME before and after the blur, decoded again: identity ends the
# stream after FRAME + 1 frames (its eos-after counts the buffer it stops on),
# a tee behind it hands each frame to both branches, and multifilesink writes
# them as shots/before-N.png and after-N.png, keeping the last few. Past an
# early EOS a frame or so more may still come through (the same one to both
# branches); only frame FRAME, or the last frame of a shorter clip, is kept.
shots=$(mktemp -d "${TMPDIR:-/tmp}/blur-region.XXXXXX")
trap 'rm -rf "$shots"' EXIT
shot=(videoconvert ! pngenc ! multifilesink max-files=8)
run_pipeline filesrc "location=$in" ! decodebin ! video/x-raw \
  ! identity "eos-after=$((FRAME + 2))" ! tee name=decoded \
  decoded. ! queue ! "${shot[@]}" "location=${shots//%/%%}/before-%d.png" \
  decoded. ! queue ! "${convert[@]}" "${blur_element[@]}" \
    ! "${shot[@]}" "location=${shots//%/%%}/after-%d.png"
keep_frame "$shots" "$FRAME" "$before" "$after"

echo "blurred $box_name of $in_name"
echo "   (${width}x$height $format from the decoder, $blurred_as)"
echo "   into $(realpath "$out")  (${encode[0]}, cudagaussblur sigma=$SIGMA backend=$BACKEND)"
echo "before: $(realpath "$before")  (frame $frame)"
echo "after:  $(realpath "$after")"

#!/usr/bin/env bash
# Blurs one still frame with cudagaussblur and writes it before and after as PNG.
#
# Copyright (C) 2026 The cudagaussblur authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
#   pipelines/blur-still.sh [IMAGE]
#
# Without IMAGE the frame is a 1280x720 test card composed of four
# videotestsrc patterns (colour bars, zone plate, pinwheel, a ball with text
# when textoverlay is installed): sharp edges and every spatial frequency, so
# the blur is plain to see. With IMAGE (any format decodebin reads: PNG, JPEG...)
# that image is blurred instead. A tee sends the same RGBA frame to
# OUT_DIR/before.png and, through cudagaussblur, to OUT_DIR/after.png.
#
# Environment: OUT_DIR (default out/), PATTERN (one videotestsrc pattern, e.g.
# pinwheel or smpte, instead of the test card), and SIGMA, BACKEND, RADIUS,
# ALGORITHM, BORDER, CUDA_DEVICE_ID, BUILD_DIR (see pipelines/common.sh).
#   SIGMA=8 BACKEND=cpu pipelines/blur-still.sh photo.jpg
set -euo pipefail
# shellcheck source=pipelines/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

OUT_DIR=${OUT_DIR:-out}
width=1280
height=720
image=${1:-}

use_plugin
mkdir -p "$OUT_DIR"
before=$OUT_DIR/before.png
after=$OUT_DIR/after.png
if [ -n "$image" ]; then
  [ -r "$image" ] || die "cannot read $image"
  for output in "$before" "$after"; do
    [ "$(realpath "$image")" != "$(realpath -m "$output")" ] ||
      die "$image would be overwritten: give another OUT_DIR"
  done
fi
rm -f "$before" "$after"

rgba=video/x-raw,format=RGBA
outputs=(
  tee name=split
  split. ! queue ! videoconvert ! pngenc ! filesink "location=$before"
  split. ! queue ! "${blur_element[@]}" ! videoconvert ! pngenc
    ! filesink "location=$after"
)

if [ -n "$image" ]; then
  run_pipeline filesrc "location=$image" ! decodebin ! videoconvert ! "$rgba" \
    ! "${outputs[@]}"
elif [ -n "${PATTERN:-}" ]; then
  run_pipeline videotestsrc num-buffers=1 "pattern=$PATTERN" \
    ! "$rgba,width=$width,height=$height" ! "${outputs[@]}"
else
  # Four 640x360 quadrants mixed into one frame.
  quadrant=video/x-raw,width=$((width / 2)),height=$((height / 2))
  label=()
  if have_element textoverlay; then
    label=(textoverlay text=cudagaussblur "font-desc=Sans Bold 40" !)
  fi
  run_pipeline compositor name=card background=black \
      sink_1::xpos=$((width / 2)) sink_2::ypos=$((height / 2)) \
      sink_3::xpos=$((width / 2)) sink_3::ypos=$((height / 2)) \
    ! "$rgba,width=$width,height=$height" ! "${outputs[@]}" \
    videotestsrc num-buffers=1 pattern=smpte ! "$quadrant" ! card. \
    videotestsrc num-buffers=1 pattern=zone-plate kx2=40 ky2=40 \
      ! "$quadrant" ! card. \
    videotestsrc num-buffers=1 pattern=pinwheel ! "$quadrant" ! card. \
    videotestsrc num-buffers=1 pattern=ball ! "$quadrant" ! "${label[@]}" card.
fi

if [ ! -s "$before" ] || [ ! -s "$after" ]; then
  die "the pipeline wrote no PNG"
fi
echo "before: $(realpath "$before")"
echo "after:  $(realpath "$after")  (cudagaussblur sigma=$SIGMA backend=$BACKEND)"

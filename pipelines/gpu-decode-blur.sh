#!/usr/bin/env bash
# Decodes H.264 on the GPU (NVDEC), blurs the frames where the decoder leaves
# them, in CUDA memory, and downloads only the result: the zero-copy path of
# memory:CUDAMemory (no frame crosses to the host before the blur).
#
# Copyright (C) 2026 The cudagaussblur authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
#   pipelines/gpu-decode-blur.sh [INPUT]
#
# INPUT: an MP4 (or QuickTime) file with H.264 video; default the project's
# 30-frame test clip tests/data/video/smpte-320x240-30f.mp4. Needs
# gst-plugins-bad's nvcodec plugin with a working NVIDIA driver (nvh264dec,
# cudadownload) and the plugin built with GStreamer's CUDA library (meson
# option gst_cuda). nvh264dec, cudagaussblur and cudadownload share one CUDA
# context (GstContext), so the decoder's frames are the blur's input as they
# are. Written to OUT_DIR (default out/):
#   gpu-blurred.mkv      the video: H.264 (x264enc) if installed, else VP8
#                        (neither installed: the PNGs only)
#   gpu-before.png       frame FRAME (default 15; the last frame of a shorter
#   gpu-after.png        clip) before and after the blur
#
# Environment: OUT_DIR, FRAME, and SIGMA, RADIUS, ALGORITHM, BORDER,
# CUDA_DEVICE_ID, BUILD_DIR (see pipelines/common.sh); BACKEND is cuda here.
#   pipelines/gpu-decode-blur.sh
#   SIGMA=8 pipelines/gpu-decode-blur.sh clip.mp4
set -euo pipefail

usage="usage: $(basename "$0") [INPUT]"
if [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
  echo "$usage"
  exit 0
fi
[ $# -le 1 ] || { echo "$usage" >&2; exit 2; }

BACKEND=cuda
# shellcheck source=pipelines/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
in=${1:-$project_root/tests/data/video/smpte-320x240-30f.mp4}
OUT_DIR=${OUT_DIR:-out}
FRAME=${FRAME:-15}
[[ $FRAME =~ ^[0-9]+$ ]] || die "FRAME must be a frame number, not '$FRAME'"

use_plugin
[ -r "$in" ] || die "cannot read $in"
for element in qtdemux h264parse nvh264dec cudadownload pngenc; do
  have_element "$element" || die "this pipeline needs the $element element" \
    "(nvh264dec and cudadownload: gst-plugins-bad's nvcodec, with an NVIDIA" \
    "driver)"
done
# (the caps read whole first: grep -q stopping early would fail the pipe)
blur_caps=$(gst-inspect-1.0 cudagaussblur)
[[ $blur_caps == *"memory:CUDAMemory"* ]] ||
  die "this cudagaussblur was built without CUDA memory (meson option gst_cuda)"
video=()
if have_element x264enc || have_element vp8enc; then
  choose_encoder
  video=(b. ! queue ! videoconvert ! video/x-raw,format=I420 ! "${encode[@]}"
    ! filesink "location=$OUT_DIR/gpu-blurred.mkv")
else
  echo "neither x264enc nor vp8enc is installed: no video, the PNGs only"
fi
mkdir -p "$OUT_DIR"
frames=$(mktemp -d "$OUT_DIR/.frames.XXXXXX")
trap 'rm -rf "$frames"' EXIT

# One decode feeds both branches; the blur's caps keep its input and output
# in CUDA memory, so negotiation fails rather than quietly copying.
cuda_caps="video/x-raw(memory:CUDAMemory)"
run_pipeline filesrc "location=$in" ! qtdemux ! h264parse ! nvh264dec \
  ! "$cuda_caps" ! tee name=t \
  t. ! queue ! cudadownload ! videoconvert ! pngenc \
  ! multifilesink "location=$frames/before-%d.png" max-files=40 \
  t. ! queue ! "${blur_element[@]}" ! "$cuda_caps" ! cudadownload \
  ! tee name=b \
  b. ! queue ! videoconvert ! pngenc \
  ! multifilesink "location=$frames/after-%d.png" max-files=40 \
  "${video[@]}"
keep_frame "$frames" "$FRAME" "$OUT_DIR/gpu-before.png" "$OUT_DIR/gpu-after.png"
echo "decoded on the GPU and blurred in CUDA memory (sigma $SIGMA):"
[ ${#video[@]} -eq 0 ] || echo "  $OUT_DIR/gpu-blurred.mkv"
echo "  $OUT_DIR/gpu-before.png, $OUT_DIR/gpu-after.png (frame $frame)"

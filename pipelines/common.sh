# shellcheck shell=bash
# Sourced by the scripts in pipelines/ (not run on its own): finds the plugin,
# builds the cudagaussblur element from the environment and runs pipelines;
# and the checks and steps that the scripts of one INPUT, an image or a video
# (edge-aware.sh, privacy-blur.sh, tilt-shift.sh), share.
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

# --- for the scripts that take one INPUT, an image or a video file ---

# Handles the arguments of such a script: -h or --help prints its usage line
# and exits; more than one argument prints it to stderr and fails.
one_input_args() {
  local usage
  usage="usage: $(basename "$0") [INPUT]"
  if [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
    echo "$usage"
    exit 0
  fi
  [ $# -le 1 ] || {
    echo "$usage" >&2
    exit 1
  }
}

# number VALUE LO HI: succeeds when VALUE is a decimal number from LO to HI
# (with a minus sign only where LO is negative).
number() {
  awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN {
    sign = lo < 0 ? "^[-+]?" : "^[+]?"
    exit !(v ~ (sign "([0-9]+[.]?[0-9]*|[.][0-9]+)$") && v >= lo && v <= hi) }'
}

# scale_to_size EXAMPLE: SIZE (WIDTHxHEIGHT; EXAMPLE is the one the error
# shows) as caps fields in size_caps (",width=W,height=H") and as scaling
# words in scale (videoscale ! video/x-raw,width=W,height=H !); both empty
# without SIZE.
scale_to_size() {
  size_caps=
  scale=()
  if [ -n "${SIZE:-}" ]; then
    [[ $SIZE =~ ^[1-9][0-9]*x[1-9][0-9]*$ ]] ||
      die "SIZE must be WIDTHxHEIGHT, e.g. $1, not '$SIZE'"
    size_caps=",width=${SIZE%x*},height=${SIZE#*x}"
    # shellcheck disable=SC2034 # read by the scripts
    scale=(videoscale ! "video/x-raw$size_caps" !)
  fi
}

# image_decoder FILE: the decoder of an image file, by its extension: pnmdec
# (.ppm .pgm .pnm), pngdec, jpegdec; nothing for anything else (a video).
image_decoder() {
  case ${1,,} in
    *.ppm | *.pgm | *.pnm) echo pnmdec ;;
    *.png) echo pngdec ;;
    *.jpg | *.jpeg) echo jpegdec ;;
  esac
}

# need_decoder DECODER FILE: fails unless DECODER, to read FILE, is installed.
need_decoder() {
  have_element "$1" || die "reading $2 needs the $1 element" \
    "(pnmdec: apt-get install gstreamer1.0-plugins-bad); or give a PNG"
}

# check_outputs INPUT OUTPUT...: fails when an OUTPUT is INPUT itself.
check_outputs() {
  local input=$1 output
  shift
  for output in "$@"; do
    [ "$(realpath "$input")" != "$(realpath -m "$output")" ] ||
      die "$input would be overwritten: give another OUT_DIR"
  done
}

# media_outputs INPUT STEM VIDEO: what the script writes into OUT_DIR (made)
# for INPUT: before and after (STEM-before.png, STEM-after.png) and, for a
# video, out (VIDEO.mkv); decoder is set to INPUT's image_decoder (empty for
# a video). Fails when one of them is INPUT itself.
media_outputs() {
  decoder=$(image_decoder "$1")
  mkdir -p "$OUT_DIR"
  before=$OUT_DIR/$2-before.png
  after=$OUT_DIR/$2-after.png
  out=$OUT_DIR/$3.mkv
  if [ -n "$decoder" ]; then
    check_outputs "$1" "$before" "$after"
  else
    check_outputs "$1" "$before" "$after" "$out"
  fi
}

# image_before_after BEFORE AFTER RUNNER WORDS...: runs RUNNER (run_pipeline,
# or a function that calls it) with WORDS, which decode an image up to a tee
# (they end in "!"), and the tee: the frame as it is into the PNG BEFORE and
# through $blur_element into the PNG AFTER. Fails unless both are written.
image_before_after() {
  local before=$1 after=$2 runner=$3
  shift 3
  rm -f "$before" "$after"
  "$runner" "$@" tee name=split \
    split. ! queue ! videoconvert ! pngenc compression-level=9 \
      ! filesink "location=$before" \
    split. ! queue ! "${blur_element[@]}" ! videoconvert \
      ! pngenc compression-level=9 ! filesink "location=$after"
  if [ ! -s "$before" ] || [ ! -s "$after" ]; then
    die "the pipeline wrote no PNG"
  fi
}

# The video encoder, in encode: H.264 (x264enc) if installed, else VP8, into
# Matroska; fails when it is not installed either.
choose_encoder() {
  if have_element x264enc; then
    encode=(x264enc speed-preset=faster ! matroskamux)
  else
    encode=(vp8enc deadline=1 cpu-used=4 target-bitrate=4000000 ! matroskamux)
  fi
  have_element "${encode[0]}" ||
    die "writing video needs the ${encode[0]} element"
}

# keep_frame DIR FRAME BEFORE AFTER: after a pipeline wrote frames N as
# DIR/before-N.png and DIR/after-N.png (multifilesink, keeping the last few),
# moves frame FRAME's, or where the clip ended before it the last frame with
# both, to BEFORE and AFTER; frame is set to the frame kept.
keep_frame() {
  local dir=$1 file index
  frame=$2
  if [ ! -s "$dir/before-$frame.png" ] || [ ! -s "$dir/after-$frame.png" ]; then
    frame=-1
    for file in "$dir"/after-*.png; do
      index=${file##*-}
      index=${index%.png}
      if [[ $index =~ ^[0-9]+$ ]] && [ "$index" -gt "$frame" ] &&
        [ -s "$dir/before-$index.png" ]; then
        frame=$index
      fi
    done
    [ "$frame" -ge 0 ] || die "the pipeline wrote no PNG"
  fi
  mv "$dir/before-$frame.png" "$3"
  mv "$dir/after-$frame.png" "$4"
}

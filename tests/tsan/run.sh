#!/usr/bin/env bash
# ThreadSanitizer run of the element's CPU tests: a manual check, not in CI
# (a TSan build of everything takes some 10 minutes on 2 cores).
#
# Copyright (C) 2026 The cudagaussblur authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
#   tests/tsan/run.sh [BUILD_DIR]     BUILD_DIR defaults to build-tsan/
#
# Configures BUILD_DIR with -Db_sanitize=thread if needed (one GPU
# architecture, $CUDA_ARCHITECTURES or 75: no GPU code runs), builds it,
# then runs test-frames-in-flight (cpu), test-element, test-element-sigma-map
# and flush_vs_first_frame with:
#   - gsync_tsan.c preloaded: GLib's GMutex and GCond are futexes TSan does
#     not see (without it every access under a GLib lock is reported);
#   - CK_FORK=no (TSan does not follow a fork of a threaded process) and
#     GST_REGISTRY_FORK=no (the plugin scanner cannot load a TSan plugin);
#   - setarch -R (TSan's fixed memory layout).
# GLib and GStreamer are not instrumented: reports whose only accesses are
# theirs (frees ordered by their atomic reference counts, GType's locks)
# are noise. Prints, per program, its result, its reports, and the data
# races with one of our source files (gst/, cuda/) on a stack, which are
# the ones to read; the logs stay in BUILD_DIR/tsan/. One such race is
# known noise, in some runs of test-element: an element error's message
# freed on the streaming thread (gstcudagaussblur.c, ensure_blur) after
# test_cuda_missing_device read it, the two ordered by the message's
# reference count inside GStreamer. flush_vs_first_frame reported a race
# on every run before the frames-in-flight queue's pointer was set under
# the object lock (2026-11-29), and none after.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(realpath -m -- "${1:-$root/build-tsan}")
out=$build/tsan
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi

if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" "$root" -Db_sanitize=thread \
    -Dbuildtype=debugoptimized \
    -Dgpu_architectures="${CUDA_ARCHITECTURES:-75}" || exit 1
fi
ninja -C "$build" -j2 || exit 1
mkdir -p "$out"
cc -shared -fPIC -O1 -o "$out/libgsync_tsan.so" "$root/tests/tsan/gsync_tsan.c" \
  $(pkg-config --cflags --libs glib-2.0) -ldl || exit 1
cc -fsanitize=thread -O1 -g -o "$out/flush_vs_first_frame" \
  "$root/tests/tsan/flush_vs_first_frame.c" \
  $(pkg-config --cflags --libs gstreamer-check-1.0) || exit 1

ours='(/gst/|/cuda/)[a-z_]+\.(c|cu)'
run() {
  local name=$1
  shift
  rm -f "$out/log-$name".*
  GST_PLUGIN_PATH=$build/gst GST_REGISTRY=$out/registry-$name.bin \
    CK_FORK=no GST_REGISTRY_FORK=no G_SLICE=always-malloc \
    TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1 history_size=7 log_path=$out/log-$name" \
    setarch "$(uname -m)" -R env LD_PRELOAD="$out/libgsync_tsan.so" "$@" \
    > "$out/out-$name.txt" 2>&1
  local reports races
  reports=$(cat "$out/log-$name".* 2>/dev/null | grep -c 'WARNING: ThreadSanitizer')
  races=$(cat "$out/log-$name".* 2>/dev/null | awk -v ours="$ours" '
    /WARNING: ThreadSanitizer: data race/ { inrace = 1; hit = 0; next }
    inrace && $0 ~ ours { hit = 1 }
    inrace && /^SUMMARY/ { if (hit) n++; inrace = 0 }
    END { print n + 0 }')
  echo "$name: $(grep -E 'Checks:|first frame' "$out/out-$name.txt" | tail -n 1)"
  echo "  $reports TSan reports, $races data races with our code on a stack (logs: $out/log-$name.*)"
}

run frames-in-flight "$build/tests/test-frames-in-flight" cpu
run element "$build/tests/test-element"
run sigma-map "$build/tests/test-element-sigma-map"
run flush "$out/flush_vs_first_frame"

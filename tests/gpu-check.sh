#!/bin/bash
# Runs everything that needs a GPU, on the GPU machine, from the project root:
#   tests/gpu-check.sh [BUILD_DIR] [LOG_DIR] [tests|race|bench|all]
# BUILD_DIR (default build) is a build made on a development machine with sm_90
# among its architectures; .gpu/ comes from ../shared/gpu/prepare.sh. Logs go
# to LOG_DIR (default $OUT, else gpu-logs). Prints a summary last.
set -u
build=${1:-build}
logs=${2:-${OUT:-gpu-logs}}
mkdir -p "$logs"
source .gpu/env.sh "$build/gst"
summary=()

step() {                        # step NAME SECONDS COMMAND...: run, log, remember
  local name=$1 limit=$2; shift 2
  echo "=== $name: $*"
  local start=$SECONDS
  timeout "$limit" "$@" > "$logs/$name.log" 2>&1
  local rc=$?
  tail -n 15 "$logs/$name.log"
  summary+=("$(printf '%-22s rc=%-3s %4ss' "$name" "$rc" $((SECONDS - start)))")
}

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv > "$logs/gpu.txt" 2>&1
cat "$logs/gpu.txt"
# What to run: "tests" (default: the tests and both sanitizers), "race"
# (racecheck alone), "bench", or "all".
what=${3:-tests}
case $what in
  tests|race|bench|all) ;;
  *) echo "usage: $0 [BUILD_DIR] [LOG_DIR] [tests|race|bench|all]" >&2; exit 2 ;;
esac
if [ "$what" = tests ] || [ "$what" = all ]; then
  step inspect 30 gst-inspect-1.0 cudagaussblur
  step pipeline 60 gst-launch-1.0 -q videotestsrc num-buffers=30 ! video/x-raw,format=RGBA,width=1920,height=1080 ! cudagaussblur sigma=3 backend=cuda ! fakesink
  step parity 240 "$build/tests/test-gpu-parity"
  step element-gpu 120 "$build/tests/test-element-gpu"
  step memcheck 100 compute-sanitizer --tool memcheck --error-exitcode 1 "$build/tests/test-gpu-parity" --quick
fi
if [ "$what" != bench ]; then
  step racecheck 400 compute-sanitizer --tool racecheck --error-exitcode 1 "$build/tests/test-gpu-parity" --race
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  step bench 400 "$build/bench/cudagaussblur-bench" --no-cpu
fi
echo "=== summary"
printf '%s\n' "${summary[@]}" | tee "$logs/summary.txt"

#!/bin/bash
# Runs everything that needs a GPU, on the GPU machine, from the project root:
#   tests/gpu-check.sh [BUILD_DIR] [LOG_DIR] [tests|race|bench|all]
# BUILD_DIR (default build) is a build made on a development machine with sm_90
# among its architectures; .gpu/ comes from ../shared/gpu/prepare.sh. Logs go
# to LOG_DIR (default $OUT, else gpu-logs). Prints a summary last. The bench
# step also writes LOG_DIR/bench.csv (and bench.png where python3 has
# matplotlib), and times NPP beside ours where this machine has NPP; the
# element-bench step writes LOG_DIR/element-bench.csv.
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
  rc_last=$rc
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
  step formats 240 "$build/tests/test-gpu-formats"
  step superposition 300 "$build/tests/test-gpu-superposition"
  step pipeline-nv12 60 gst-launch-1.0 -q videotestsrc num-buffers=30 ! video/x-raw,format=NV12,width=1920,height=1080 ! cudagaussblur sigma=-2 region-x=101 region-y=51 region-width=640 region-height=360 backend=cuda ! fakesink
  step pipeline-edge-aware 60 gst-launch-1.0 -q videotestsrc num-buffers=30 ! video/x-raw,format=NV12,width=1920,height=1080 ! cudagaussblur algorithm=edge-aware sigma=10 sigma-range=30 backend=cuda ! fakesink
  step pipeline-tilt-shift 60 gst-launch-1.0 -q videotestsrc num-buffers=30 ! video/x-raw,format=NV12,width=1920,height=1080 ! cudagaussblur sigma-map=tilt-shift sigma=8 focus-angle=20 backend=cuda ! fakesink
  step element-gpu 120 "$build/tests/test-element-gpu"
  # Frames in CUDA memory: cudaupload, nvh264dec, cudadownload around the
  # element (reads tests/data/video from this, the project root).
  step element-cuda 300 "$build/tests/test-element-cuda"
  step pitches 200 "$build/tests/test-gpu-pitches"
  step memcheck 100 compute-sanitizer --tool memcheck --error-exitcode 1 "$build/tests/test-gpu-parity" --quick
  # In two halves: every layout in one run takes more than 200 s.
  step memcheck-formats-yuv8 200 compute-sanitizer --tool memcheck --error-exitcode 1 "$build/tests/test-gpu-formats" --quick --layout NV12,I420,Y42B,Y41B,Y444,NV16
  step memcheck-formats-packed-16 200 compute-sanitizer --tool memcheck --error-exitcode 1 "$build/tests/test-gpu-formats" --quick --layout AYUV,v308,GRAY16_LE,RGBA64_LE,P016_LE,Y444_16LE
  step memcheck-superposition 300 compute-sanitizer --tool memcheck --error-exitcode 1 "$build/tests/test-gpu-superposition" --quick
  step memcheck-pitches 300 compute-sanitizer --tool memcheck --error-exitcode 1 "$build/tests/test-gpu-pitches"
fi
if [ "$what" != bench ]; then
  step racecheck 400 compute-sanitizer --tool racecheck --error-exitcode 1 "$build/tests/test-gpu-parity" --race
  step racecheck-fused-shared 300 compute-sanitizer --tool racecheck --error-exitcode 1 "$build/tests/test-gpu-pitches" --fused-shared
  step racecheck-fused-float 200 compute-sanitizer --tool racecheck --error-exitcode 1 "$build/tests/test-gpu-pitches" --fused-float
  step racecheck-staged 300 compute-sanitizer --tool racecheck --error-exitcode 1 "$build/tests/test-gpu-pitches" --staged
  step racecheck-down-rows 300 compute-sanitizer --tool racecheck --error-exitcode 1 "$build/tests/test-gpu-pitches" --down-rows
  step racecheck-superposition 400 compute-sanitizer --tool racecheck --error-exitcode 1 "$build/tests/test-gpu-superposition" --race
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  # The benchmark times NPP's Gaussian beside ours where it was built with
  # NPP. A build from a machine without NPP lacks it: then, where this
  # machine has nvcc and the NPP headers, build an NPP-enabled benchmark here
  # from the build folder's core library, and run that one. (meson's static
  # library is a thin archive, which nvlink cannot read: it goes to the host
  # linker alone, as in meson's own link line.)
  bench="$build/bench/cudagaussblur-bench"
  nvcc_bin=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  cuda_root=$(dirname "$(dirname "$(readlink -f "$nvcc_bin")")")
  npp_inc= npp_lib=
  for d in include targets/x86_64-linux/include; do
    [ -f "$cuda_root/$d/nppi_filtering_functions.h" ] && { npp_inc=$cuda_root/$d; break; }
  done
  for d in lib64 targets/x86_64-linux/lib lib; do
    ls "$cuda_root/$d"/libnppif.so* > /dev/null 2>&1 && { npp_lib=$cuda_root/$d; break; }
  done
  if grep -q nppiFilterGaussAdvancedBorder "$bench" 2> /dev/null; then
    echo "=== bench: $bench has NPP"
  elif [ -x "$nvcc_bin" ] && [ -n "$npp_inc" ] && [ -n "$npp_lib" ] \
      && [ -f "$build/cuda/libgaussblur-core.a" ]; then
    rm -f "$build/bench/cudagaussblur-bench-npp"
    step bench-npp-build 300 "$nvcc_bin" -std=c++17 -O3 -arch=sm_90 -DGB_HAVE_NPP \
      -Icuda -I"$npp_inc" bench/cudagaussblur-bench.cu -Xlinker "$build/cuda/libgaussblur-core.a" \
      -L"$npp_lib" -Xlinker -rpath="$npp_lib" -lnppif -lnppc -lcudart -lpthread -lm \
      -o "$build/bench/cudagaussblur-bench-npp"
    [ "$rc_last" = 0 ] && bench="$build/bench/cudagaussblur-bench-npp"
  else
    echo "=== bench: no NPP here (nvcc ${nvcc_bin}, header ${npp_inc:-none}, libraries ${npp_lib:-none}): without NPP"
  fi
  step bench 400 "$bench" --no-cpu --csv "$logs/bench.csv"
  if [ "$rc_last" != 0 ] && [ "$bench" != "$build/bench/cudagaussblur-bench" ]; then
    # The NPP-enabled build failed at run time: keep what it wrote, and take
    # the figures without NPP.
    mv "$logs/bench.csv" "$logs/bench-npp-failed.csv" 2> /dev/null
    step bench-without-npp 400 "$build/bench/cudagaussblur-bench" --no-cpu --csv "$logs/bench.csv"
  fi
  # Frames in system memory through the element (issue 5): frames/s,
  # latency and CPU time against the pinned and pageable copy floors.
  step element-bench 200 "$build/bench/cudagaussblur-element-bench" --frames 1000 --csv "$logs/element-bench.csv"
  step transfer-bench 200 "$build/bench/cudagaussblur-transfer-bench"
  # The edge-aware filter (issue 7): kernel time against the copy floor,
  # and kappa against error and time on the photographs.
  step edge-aware-bench 300 "$build/bench/cudagaussblur-edge-aware-bench" --photos tests/data/photos --csv "$logs/edge-aware.csv"
  # The spatially varying blur (issue 8): gather against scatter as in
  # seed 003, the 1080p regions target, tilt-shift; exits 1 when a GPU
  # output differs from the CPU reference by more than 1.
  step superposition-bench 300 "$build/bench/cudagaussblur-superposition-bench" --csv "$logs/superposition.csv"
  if python3 -c 'import matplotlib' 2> /dev/null; then
    step plot 60 python3 docs/plot_performance.py "$logs/bench.csv" "$logs/bench.png"
  else
    echo "=== plot: python3 has no matplotlib, skipped (docs/plot_performance.py $logs/bench.csv OUT.png elsewhere)"
  fi
fi
echo "=== summary"
printf '%s\n' "${summary[@]}" | tee "$logs/summary.txt"

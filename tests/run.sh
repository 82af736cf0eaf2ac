#!/usr/bin/env bash
# The test command of cudagaussblur (README gives it, CI runs it).
#
# Copyright (C) 2026 The cudagaussblur authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
#   tests/run.sh [BUILD_DIR]          BUILD_DIR defaults to build/ in the project
#
# Configures BUILD_DIR if needed (with -Dgpu_architectures=$CUDA_ARCHITECTURES
# when that variable is set, e.g. CUDA_ARCHITECTURES=90 for a quick build),
# builds it with ninja, runs every test suite (the GPU tests exit 77, i.e. skip,
# where no CUDA device is usable), then the cpu suite again under valgrind when
# valgrind is installed. Ends with one line "N passed, N failed", counted from
# meson's test logs over both runs; the exit status is non-zero if any failed.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ $# -ge 1 ]; then
  build_dir=$(realpath -m -- "$1")
else
  build_dir=$root/build
fi
cd "$root" || exit 1

# The CUDA toolkit's default location is often not on PATH.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi

# Failures that happen before any test runs (setup, build, meson itself);
# each counts as one failed item in the summary.
extra_failures=0
fail_step() {
  echo "run.sh: $*" >&2
  extra_failures=$((extra_failures + 1))
}

summarise() {
  # meson writes one JSON object per test and line; a setup gets its own file
  # (testlog-valgrind.json).
  python3 - "$build_dir" "$extra_failures" <<'EOF'
import glob, json, os, sys

build_dir, extra_failures = sys.argv[1], int(sys.argv[2])
passed = failed = skipped = 0
failed_names = []
for path in sorted(glob.glob(os.path.join(build_dir, "meson-logs", "testlog*.json"))):
    setup = os.path.basename(path)[len("testlog"):-len(".json")].lstrip("-")
    with open(path, encoding="utf-8", errors="replace") as log:
        for line in log:
            line = line.strip()
            if not line:
                continue
            try:
                test = json.loads(line)
            except ValueError:
                continue
            result = test.get("result")
            if result in ("OK", "EXPECTEDFAIL"):
                passed += 1
            elif result == "SKIP":
                skipped += 1
            else:   # FAIL, TIMEOUT, ERROR, INTERRUPT, UNEXPECTEDPASS
                failed += 1
                failed_names.append("%s%s: %s" % (test.get("name", "?"),
                    " (%s)" % setup if setup else "", result))
for name in failed_names:
    print("FAILED " + name)
print("%d skipped (exit 77: no usable CUDA device)" % skipped)
print("%d passed, %d failed" % (passed, failed + extra_failures))
sys.exit(1 if failed + extra_failures else 0)
EOF
}

# Counts only this invocation's runs.
rm -f "$build_dir"/meson-logs/testlog*.json

# --- configure and build ---
arch_option=()
if [ -n "${CUDA_ARCHITECTURES:-}" ]; then
  arch_option=("-Dgpu_architectures=$CUDA_ARCHITECTURES")
fi
built=1
if [ ! -f "$build_dir/meson-private/coredata.dat" ]; then
  echo "=== meson setup $build_dir ${arch_option[*]}"
  meson setup "$build_dir" "${arch_option[@]}" || { fail_step "meson setup failed"; built=0; }
elif [ ! -f "$build_dir/build.ninja" ]; then
  echo "=== meson setup --reconfigure $build_dir ${arch_option[*]}"
  meson setup --reconfigure "$build_dir" "${arch_option[@]}" ||
    { fail_step "meson setup --reconfigure failed"; built=0; }
elif [ ${#arch_option[@]} -gt 0 ]; then
  meson configure "$build_dir" "${arch_option[@]}" ||
    { fail_step "meson configure failed"; built=0; }
fi
if [ $built = 1 ]; then
  echo "=== ninja -C $build_dir"
  ninja -C "$build_dir" || { fail_step "the build failed"; built=0; }
fi

# --- tests ---
if [ $built = 1 ]; then
  echo "=== meson test (all suites)"
  meson test -C "$build_dir" --print-errorlogs
  status=$?
  if [ $status -ne 0 ] && [ ! -s "$build_dir/meson-logs/testlog.json" ]; then
    fail_step "meson test exited with $status before running any test"
  fi

  if command -v valgrind >/dev/null 2>&1; then
    echo "=== meson test --setup valgrind --suite cpu"
    meson test -C "$build_dir" --setup valgrind --suite cpu --print-errorlogs
    status=$?
    if [ ! -s "$build_dir/meson-logs/testlog-valgrind.json" ]; then
      fail_step "the valgrind run (exit $status) ran no test of suite cpu"
    fi
  else
    echo "=== valgrind is not installed: skipping the valgrind run of suite cpu"
  fi
fi

echo "=== summary"
summarise

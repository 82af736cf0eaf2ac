#!/usr/bin/env bash
# Times two or more builds of the benchmark against each other, alternately.
#
# Copyright (C) 2026 The cudagaussblur authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
#   bench/ab.sh [-r REPS] LABEL=BENCH [LABEL=BENCH ...] -- BENCH_ARGS...
#
# Runs each BENCH (a cudagaussblur-bench binary, or a script that runs one,
# e.g. with an environment variable set) with BENCH_ARGS, in turn, REPS
# times (default 2): A B A B, so that a drift of the GPU's clocks or of the
# machine between runs touches every build alike. Prints each run's table
# rows under a "### LABEL rep R" line, then a summary: for every row
# (format, size, sigma, algorithm), each build's times in run order and
# the copy floors the runs measured. Compare figures of one such run only:
# the copy floor of the same frame moves by up to 10 % between runs
# (docs/performance.md, "How it measures").
#
#   bench/ab.sh A=old/cudagaussblur-bench B=build/bench/cudagaussblur-bench \
#     -- --no-cpu --no-npp --format NV12,I420 --width 1920 --sigma 3
set -uo pipefail

reps=2
if [ "${1:-}" = -r ] && [ $# -ge 2 ]; then
  reps=$2
  shift 2
fi
labels=()
benches=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  case $1 in
    ?*=?*) labels+=("${1%%=*}"); benches+=("${1#*=}") ;;
    *) echo "ab.sh: not LABEL=BENCH: $1" >&2; exit 2 ;;
  esac
  shift
done
if [ $# -eq 0 ] || [ ${#labels[@]} -lt 1 ] || ! [ "$reps" -ge 1 ] 2>/dev/null; then
  echo "usage: $0 [-r REPS] LABEL=BENCH [LABEL=BENCH ...] -- BENCH_ARGS..." >&2
  exit 2
fi
shift                           # the --

raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
status=0
for ((rep = 1; rep <= reps; rep++)); do
  for i in "${!labels[@]}"; do
    echo "### ${labels[$i]} rep $rep" | tee -a "$raw"
    # Table rows only ("| FORMAT | ..."), not the header.
    if ! "${benches[$i]}" "$@" > "$raw.out" 2>&1; then
      echo "ab.sh: ${labels[$i]} failed; its output:" >&2
      cat "$raw.out" >&2
      status=1
    fi
    grep '^| [A-Z]' "$raw.out" | grep -v '^| format' | tee -a "$raw"
  done
done
rm -f "$raw.out"

echo
echo "# summary: GPU us of each build, in run order; copy us"
awk -F'|' '
  /^### / { label = $0; sub(/^### /, "", label); sub(/ rep [0-9]+$/, "", label); next }
  NF > 8 {
    for (i = 2; i <= 8; i++) gsub(/^ +| +$/, "", $i)
    key = $2 " " $3 " sigma " $4 " " $6
    if (!(key in seen)) { seen[key] = 1; keys[++n] = key }
    if (!((key, label) in times)) {
      if (!(label in known)) { known[label] = 1; order[++m] = label }
      times[key, label] = $7
    } else {
      times[key, label] = times[key, label] "/" $7
    }
    if (key in copies) copies[key] = copies[key] "/" $8
    else copies[key] = $8
  }
  END {
    for (k = 1; k <= n; k++) {
      line = keys[k] ":"
      for (j = 1; j <= m; j++)
        line = line "  " order[j] " " ((keys[k], order[j]) in times ? times[keys[k], order[j]] : "-")
      print line "  copy " copies[keys[k]]
    }
  }' "$raw"
exit $status

#!/usr/bin/env python3
# A typical frame's kernels, from a bench/kernel-trace.c trace.
#
# Copyright (C) 2026 The cudagaussblur authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
#   bench/kernel-timeline.py TRACE STARTER [--skip REGEX]
#
# A frame starts at each kernel whose short name (e.g.
# "down_rows_kernel<8,1,1>") contains STARTER, the first kernel of one
# plane's chain, and holds every kernel that starts from 3 us before it to
# 3 us before the next; starters within 3 us of the one before (the
# planes' first kernels, where STARTER names them all) start one frame.
# Over the second half of the frames (the first half holds the warm-up
# and the eager runs), less the last (open-ended) one, prints the frame's
# span (median, 10th and 90th percentiles) and each kernel's median start,
# end and duration from the frame's first start, with its grid; a kernel
# that occurs twice in a frame (a frame's U and V planes) is numbered
# "#2". --skip drops kernels whose full name matches REGEX (e.g. the other
# algorithms of a run without --algorithm).
"""A typical frame's kernels, from a bench/kernel-trace.c trace."""
import argparse
import collections
import re
import statistics


def short(name):
    m = re.search(r'\d+([a-z][a-z_]*kernel)I(.*?)EEv', name)
    if not m:
        m = re.search(r'\d+([a-z][a-z_]*kernel)', name)
        return m.group(1) if m else name[:40]
    args = re.sub(r'Li(\d+)E', r'\1,', m.group(2))
    args = args.replace('Lb1E', 'T,').replace('Lb0E', 'F,')
    args = re.sub(r'NS_\d+[A-Za-z_]+.*$', '', args)
    return m.group(1) + '<' + args.rstrip(',')[:24] + '>'


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('trace')
    parser.add_argument('starter')
    parser.add_argument('--skip', default=None)
    a = parser.parse_args()
    skip = re.compile(a.skip) if a.skip else None
    kernels = []
    with open(a.trace) as f:
        for line in f:
            field = line.split()
            if not field or field[0] != 'K' or (skip and skip.search(field[-1])):
                continue
            kernels.append((int(field[1]), int(field[2]),
                            short(field[-1]) + ' ' + field[5]))
    kernels.sort()
    starts = []
    for k in kernels:
        if a.starter in k[2] and (not starts or k[0] - starts[-1] >= 3000):
            starts.append(k[0])
    if len(starts) < 4:
        raise SystemExit(f'{a.trace}: {len(starts)} kernels match {a.starter!r}')
    frames, i = [], 0
    for n, start in enumerate(starts):
        end = starts[n + 1] - 3000 if n + 1 < len(starts) else None
        while i < len(kernels) and kernels[i][0] < start - 3000:
            i += 1
        frame = []
        while i < len(kernels) and (end is None or kernels[i][0] < end):
            frame.append(kernels[i])
            i += 1
        frames.append(frame)
    frames = [f for f in frames[len(frames) // 2:-1] if f]
    if not frames:
        raise SystemExit(f'{a.trace}: no whole frame from {a.starter!r}')
    spans, offsets = [], collections.defaultdict(list)
    for frame in frames:
        t0 = min(k[0] for k in frame)
        spans.append((max(k[1] for k in frame) - t0) / 1000)
        seen = collections.Counter()
        for k in frame:
            seen[k[2]] += 1
            key = k[2] + (f' #{seen[k[2]]}' if seen[k[2]] > 1 else '')
            offsets[key].append(((k[0] - t0) / 1000, (k[1] - t0) / 1000))
    spans.sort()
    print(f'{a.trace}: {len(frames)} frames from {a.starter!r}, span median '
          f'{statistics.median(spans):.1f} us (10 % {spans[len(spans) // 10]:.1f}, '
          f'90 % {spans[9 * len(spans) // 10]:.1f})')
    print(f'  {"kernel grid":44s} frames  start    end  duration')
    rows = [(statistics.median(s for s, _ in v), k, v)
            for k, v in offsets.items() if len(v) >= len(frames) // 2]
    for start, key, v in sorted(rows):
        print(f'  {key:44s} {len(v):6d} {start:6.1f} '
              f'{statistics.median(e for _, e in v):6.1f} '
              f'{statistics.median(e - s for s, e in v):9.1f}')


if __name__ == '__main__':
    main()

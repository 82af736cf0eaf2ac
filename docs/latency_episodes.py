#!/usr/bin/env python3
"""Per-run latency figures from cudagaussblur-element-bench --latencies.

    python3 docs/latency_episodes.py FILE.csv[.xz] [--over US]

A file holds one run after another (frame numbers start again at 0). For each
run: the median, p99, p99.9 and maximum latency, how many frames took longer
than --over microseconds (default 350, issue 5's bound), in how many
episodes (frames over the bound at most 5 apart), and the longest episode:
whether a high percentile comes from a few slow frames or from a long stretch
of them.
"""
import csv
import lzma
import sys


def runs_of(path):
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt") as f:
        run = []
        for row in csv.DictReader(f):
            if row["frame"] == "0" and run:
                yield run
                run = []
            run.append(row)
        if run:
            yield run


def quantile(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    over = float(argv[argv.index("--over") + 1]) if "--over" in argv else 350.0
    print("| run | format | depth | rate | median | p99 | p99.9 | max | "
          f"frames over {over:g} us | episodes | longest (frames) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for n, run in enumerate(runs_of(argv[1]), 1):
        lat = [float(r["latency_us"]) for r in run]
        slow = [i for i, v in enumerate(lat) if v > over]
        episodes = []
        for i in slow:
            if episodes and i - episodes[-1][-1] <= 5:
                episodes[-1].append(i)
            else:
                episodes.append([i])
        r = run[0]
        print(f"| {n} | {r['format']} {r['width']}x{r['height']} | "
              f"{r['frames_in_flight']} | {float(r['rate']):g} | "
              f"{quantile(lat, 0.5):.0f} | {quantile(lat, 0.99):.0f} | "
              f"{quantile(lat, 0.999):.0f} | {max(lat):.0f} | {len(slow)} | "
              f"{len(episodes)} | {max((len(e) for e in episodes), default=0)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

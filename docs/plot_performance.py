#!/usr/bin/env python3
"""Plot the benchmark's CSV: GPU time against sigma, one panel per frame.

Usage: docs/plot_performance.py BENCH.csv OUT.png

BENCH.csv is what `cudagaussblur-bench --csv BENCH.csv` writes (columns
algorithm,format,width,height,sigma,radius,us,copy_us,ratio,npp_us,
npp_speedup,bytes,timing; an empty field was not measured; CSVs from before
the last two columns plot the same, their title without the timing). Each panel, one per (format,
size), shows the time in microseconds (log scale) against sigma (log scale)
of our `auto`, `separable`, `fused`, `recursive` and `multiscale`, of NPP's
FilterGaussAdvancedBorder where the run measured it, and of the
device-to-device copy of the same frame (the floor).

Needs matplotlib. Without it the script prints the same series as text and
writes no PNG (exit status 0, so a script that runs it still goes on).
"""

import csv
import sys
from collections import OrderedDict, defaultdict

OURS = ["auto", "separable", "fused", "recursive", "multiscale"]
STYLE = {
    # Hollow rings over the algorithm auto chose, drawn last.
    "auto": dict(color="black", marker="o", markersize=10,
                 markerfacecolor="none", linewidth=1.2, zorder=5),
    "separable": dict(color="tab:blue", marker="s"),
    "fused": dict(color="tab:orange", marker="^"),
    "recursive": dict(color="tab:green", marker="D"),
    "multiscale": dict(color="tab:purple", marker="v"),
    "NPP": dict(color="tab:red", marker="x", linestyle="--"),
    "copy floor": dict(color="grey", linestyle=":", linewidth=1.5),
}


def number(text):
    """The field as a float, or None where it is empty or not a number."""
    try:
        return float(text) if text not in (None, "") else None
    except ValueError:
        return None


def read_panels(path):
    """{(format, width, height): {series name: {sigma: us}}}, in file order."""
    panels = OrderedDict()
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        missing = {"algorithm", "format", "width", "height", "sigma", "us",
                   "copy_us", "npp_us"} - set(reader.fieldnames or [])
        if missing:
            raise SystemExit("%s: not a benchmark CSV (missing columns: %s)"
                             % (path, ", ".join(sorted(missing))))
        for row in reader:
            key = (row["format"], int(row["width"]), int(row["height"]))
            series = panels.setdefault(key, defaultdict(dict))
            sigma = number(row["sigma"])
            if sigma is None:
                continue
            us = number(row["us"])
            if row["algorithm"] in OURS and us is not None:
                series[row["algorithm"]][sigma] = us
            # NPP and the copy do not depend on our algorithm: any row will do.
            npp = number(row["npp_us"])
            if npp is not None:
                series["NPP"].setdefault(sigma, npp)
            copy = number(row["copy_us"])
            if copy is not None:
                series["copy floor"].setdefault(sigma, copy)
    return panels


TIMING = {
    "graph": "launches timed in CUDA graphs",
    "eager": "launches enqueued one by one",
}


def read_timing(path):
    """How the CSV's rows were timed (its `timing` column), as words for the
    title; "" for a CSV from before the column, or of mixed timings."""
    with open(path, newline="") as f:
        values = {row.get("timing") or "" for row in csv.DictReader(f)}
    return TIMING.get(values.pop(), "") if len(values) == 1 else ""


def print_text(panels):
    names = OURS + ["NPP", "copy floor"]
    for (fmt, width, height), series in panels.items():
        print("%s %dx%d (us)" % (fmt, width, height))
        sigmas = sorted({s for points in series.values() for s in points})
        print("  %6s" % "sigma" + "".join(" %10s" % n for n in names))
        for s in sigmas:
            cells = []
            for n in names:
                v = series.get(n, {}).get(s)
                cells.append(" %10s" % ("-" if v is None else "%.1f" % v))
            print("  %6g" % s + "".join(cells))


def plot(panels, out_path, timing=""):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, NullLocator, ScalarFormatter

    n = len(panels)
    columns = 2 if n > 1 else 1
    rows = (n + columns - 1) // columns
    fig, axes = plt.subplots(rows, columns, figsize=(6.4 * columns, 4.6 * rows),
                             squeeze=False)
    for ax, ((fmt, width, height), series) in zip(axes.flat, panels.items()):
        sigmas = sorted({s for points in series.values() for s in points})
        for name in OURS[1:] + ["NPP", "copy floor", "auto"]:
            points = series.get(name)
            if not points:
                continue
            xs = sorted(points)
            ax.plot(xs, [points[x] for x in xs], label=name,
                    **STYLE.get(name, {}))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.xaxis.set_major_locator(FixedLocator(sigmas))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.set_xlabel("sigma (pixels; radius ceil(3.5 sigma))")
        ax.set_ylabel("GPU time per frame (us, log)")
        ax.set_title("%s %dx%d" % (fmt, width, height))
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize="small")
    for ax in list(axes.flat)[n:]:
        ax.set_visible(False)
    fig.suptitle("cudagaussblur: time against sigma (clamp border%s)"
                 % ("; " + timing if timing else ""))
    fig.tight_layout()
    fig.savefig(out_path, dpi=110)
    plt.close(fig)


def main(argv):
    if len(argv) != 3:
        print("usage: %s BENCH.csv OUT.png" % argv[0], file=sys.stderr)
        return 2
    panels = read_panels(argv[1])
    if not panels:
        print("%s: no rows to plot" % argv[1], file=sys.stderr)
        return 1
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("matplotlib is not installed: no PNG written; the series:")
        print_text(panels)
        return 0
    plot(panels, argv[2], read_timing(argv[1]))
    print("wrote %s (%d panels)" % (argv[2], len(panels)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

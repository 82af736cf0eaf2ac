#!/usr/bin/env python3
# Truncation error of the automatic radius, ceil(3.5 sigma), for docs/algorithms.md.
#
# Copyright (C) 2026 The cudagaussblur authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Compares the project's kernel (the sampled Gaussian exp(-k^2 / 2 sigma^2),
# k = -R..R, normalised to sum 1: gb_gaussian_weights) with the untruncated
# sampled Gaussian (all integers k, normalised). Plain Python, no numpy.
#
#   docs/truncation_error.py                 the table of docs/algorithms.md
#   docs/truncation_error.py SIGMA RADIUS    one (sigma, radius) pair, e.g. a
#                                            radius set by hand
import math
import sys

SIGMAS = (0.5, 1, 2, 3, 5, 10, 30, 100, 250)
MAX_LEVEL = 255.0


def auto_radius(sigma):
    """gb_auto_radius(): ceil(3.5 sigma), at least 1."""
    return max(1, math.ceil(3.5 * sigma))


def dropped_mass(sigma, radius):
    """Weight of the untruncated sampled Gaussian outside [-radius, radius]."""
    def g(k):
        return math.exp(-k * k / (2.0 * sigma * sigma))
    # Beyond 40 sigma the terms are below 1e-300: they no longer count.
    far = radius + 1 + int(40 * sigma) + 40
    tail = math.fsum(g(k) for k in range(radius + 1, far))
    kept = math.fsum(g(k) for k in range(-radius, radius + 1))
    return 2.0 * tail / (kept + 2.0 * tail)


def worst_case_errors(mass):
    """Largest |truncated - untruncated| output for inputs in [0, 255].

    Renormalising scales every kept tap by 1 / (1 - m), which moves mass m
    from the dropped tails onto the kept taps. An input at 255 under the kept
    taps and 0 under the dropped ones sees all of it: 255 m per pass. In 2D
    the kept square holds (1 - m)^2 of the untruncated weight and is scaled by
    1 / (1 - m)^2, so the moved mass is 1 - (1 - m)^2 = 2m - m^2.
    """
    return MAX_LEVEL * mass, MAX_LEVEL * (1.0 - (1.0 - mass) ** 2)


def step_edge_error(sigma, radius):
    """Largest error on a 0 -> 255 step edge (a typical sharp edge, 1D or 2D:
    the pass along the edge sees a constant and is exact)."""
    def g(k):
        return math.exp(-k * k / (2.0 * sigma * sigma))
    # Both filters are symmetric and sum to 1; at distance p from the edge the
    # output is 255 times the weight on the bright side, k <= p.
    tail = math.fsum(g(k) for k in range(radius + 1, radius + int(40 * sigma) + 40))
    kept = [g(k) for k in range(-radius, radius + 1)]
    kept_sum = math.fsum(kept)
    full_sum = kept_sum + 2.0 * tail
    worst, bright = 0.0, 0.0
    for p in range(-radius, radius + 1):
        bright += kept[p + radius]
        error = abs((tail + bright) / full_sum - bright / kept_sum)
        worst = max(worst, error * MAX_LEVEL)
    return worst


def row(sigma, radius):
    mass = dropped_mass(sigma, radius)
    per_pass, two_d = worst_case_errors(mass)
    return (f"| {sigma:g} | {radius} | {100 * mass:.3g} % | {per_pass:.3g} "
            f"| {two_d:.3g} | {step_edge_error(sigma, radius):.3g} |")


def main(argv):
    print("| sigma | radius | dropped mass m | worst case, one pass (levels) "
          "| worst case, 2D (levels) | step edge (levels) |")
    print("|---|---|---|---|---|---|")
    if len(argv) == 3:
        print(row(float(argv[1]), int(argv[2])))
        return
    for sigma in SIGMAS:
        print(row(sigma, auto_radius(sigma)))
    # The continuous Gaussian's mass beyond 3.5 sigma, for comparison.
    print(f"\ncontinuous Gaussian beyond 3.5 sigma: "
          f"{100 * math.erfc(3.5 / math.sqrt(2)):.4f} %")


if __name__ == "__main__":
    main(sys.argv)

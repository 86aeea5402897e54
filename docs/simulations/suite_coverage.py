"""Coverage of the fixed-suite and the population intervals of repeated trials
(docs/trials.md, "Two estimands").

60 items x 8 trials; A's per-item success rate Beta(2, 2), B's A's plus N(0.05, 0.2)
per item (clipped to [0, 1]).  Items fixed (one draw, seed 12345): the trials redrawn;
items redrawn: the items and the trials.  Each simulated evaluation is compared with
``estimand="suite"`` and ``"population"`` (percentile bootstrap, R = 999), and each
interval is checked against the suite's true value (its items' mean difference) and
the population's (from 2,000,000 items).  Run:

    python docs/simulations/suite_coverage.py [METRIC ...] [--n-data 2000]
"""

from __future__ import annotations

import argparse
import math
import warnings

import numpy as np

import pairboot

N, T = 60, 8


def truth(metric: str):
    """The metric's value on k fresh trials of an item of success rate p."""
    if metric == "mean":
        return lambda p: p
    k = int(metric[-1])
    if metric.startswith("pass^"):
        return lambda p: p ** k
    if metric.startswith("pass@"):
        return lambda p: 1 - (1 - p) ** k
    return lambda p: sum(math.comb(k, x) * p ** x * (1 - p) ** (k - x)
                         for x in range(k // 2 + 1, k + 1))


def items(rng, n=N):
    pa = rng.beta(2, 2, n)
    return pa, np.clip(pa + rng.normal(0.05, 0.2, n), 0, 1)


def coverage(metric: str, fixed: bool, n_data: int, seed: int) -> dict:
    g = truth(metric)
    pa_all, pb_all = items(np.random.default_rng(99), 2_000_000)
    population = float(np.mean(g(pb_all) - g(pa_all)))
    rng = np.random.default_rng(seed)
    pa, pb = items(np.random.default_rng(12345))
    hits = {(e, t): 0 for e in ("suite", "population") for t in ("suite", "population")}
    for s in range(n_data):
        if not fixed:
            pa, pb = items(rng)
        suite = float(np.mean(g(pb) - g(pa)))
        a = (rng.random((N, T)) < pa[:, None]).astype(float)
        b = (rng.random((N, T)) < pb[:, None]).astype(float)
        for estimand, r in (("suite", 100), ("population", 999)):
            low, high = pairboot.compare(a, b, runs="samples", metric=metric,
                                         estimand=estimand, n_resamples=r,
                                         seed=s).confidence_interval
            hits[estimand, "suite"] += low <= suite <= high
            hits[estimand, "population"] += low <= population <= high
    return {key: count / n_data for key, count in hits.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("metrics", nargs="*", default=["mean", "pass^2", "pass@2", "maj@3"])
    parser.add_argument("--n-data", type=int, default=2000)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    print("| metric | items | suite interval: suite value | population value "
          "| population interval: suite value | population value |")
    print("|---|---|---|---|---|---|")
    for metric in args.metrics:
        for fixed, seed in ((True, 1), (False, 2)):
            c = coverage(metric, fixed, args.n_data, seed)
            print(f"| {metric} | {'fixed' if fixed else 'redrawn'} "
                  f"| {c['suite', 'suite']:.3f} | {c['suite', 'population']:.3f} "
                  f"| {c['population', 'suite']:.3f} | {c['population', 'population']:.3f} |")


if __name__ == "__main__":
    main()

"""How often an A/A comparison of two runs of the same simulated system rejects
(docs/trials.md, "The noise floor").

Each simulated evaluation draws N items with success rates p_i ~ Beta(2, 2) and two
independent runs of T trials each (every trial a Bernoulli(p_i)), and compares them
with :func:`pairboot.noise_floor` (the population interval: percentile bootstrap,
R = 999; the suite interval: its closed form).  The rate at which the A/A interval
excludes 0 should be the level's alpha, 0.05.  Run:

    python docs/simulations/aa_rejection.py [--n-data 2000] [--items 100] [--trials 4]
"""

from __future__ import annotations

import argparse
import math
import warnings

import numpy as np

import pairboot


def rate(metric: str, estimand: str, n_data: int, n_items: int, n_trials: int,
         seed: int = 7) -> float:
    rng = np.random.default_rng(seed)
    rejected = 0
    for s in range(n_data):
        p = rng.beta(2.0, 2.0, size=n_items)
        base, rerun = ((rng.random((n_items, n_trials)) < p[:, None]) * 1.0
                       for _ in range(2))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            floor = pairboot.noise_floor(base, rerun, runs="samples", metric=metric,
                                         estimand=estimand, seed=s,
                                         n_resamples=999 if estimand == "population" else 99)
        rejected += floor.rejects
    return rejected / n_data


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n-data", type=int, default=2000)
    parser.add_argument("--items", type=int, default=100)
    parser.add_argument("--trials", type=int, default=4)
    args = parser.parse_args()
    mc = math.sqrt(0.05 * 0.95 / args.n_data)
    print(f"{args.items} items x {args.trials} trials, {args.n_data} A/A comparisons "
          f"each (Monte Carlo standard error {mc:.4f})")
    print("| metric | estimand | A/A rejection rate at 0.05 |")
    print("|--------|----------|------|")
    for metric in ("mean", "pass^2", "pass@2"):
        for estimand in ("population", "suite"):
            r = rate(metric, estimand, args.n_data, args.items, args.trials)
            print(f"| {metric} | {estimand} | {r:.3f} |", flush=True)


if __name__ == "__main__":
    main()

"""compare_many against compare on the same data: the cost of a family on shared draws.

Issue 13's target: ten systems on 100,000 items, 10,000 resamples, all 45 pairs, at most
3x the time of one two-system compare (the draws are shared; only the sums grow).

    python benchmarks/many.py [--n 100000] [--systems 10] [--resamples 10000]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

import pairboot


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    base = rng.random(args.n)
    scores = {f"s{j}": base + rng.normal(0.001 * j, 0.1, args.n) for j in range(args.systems)}
    warnings.simplefilter("ignore")
    # (the numba kernels loaded or compiled before timing: small jobs would take numpy)
    pairboot.compare(scores["s0"], scores["s1"], n_resamples=100, seed=1, backend="numba")
    pairboot.compare_many(scores, n_resamples=100, seed=1, backend="numba")

    def best(run) -> float:
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        return min(times)

    one = best(lambda: pairboot.compare(scores["s0"], scores["s1"],
                                        n_resamples=args.resamples, seed=1))
    family = best(lambda: pairboot.compare_many(scores, n_resamples=args.resamples, seed=1))
    pairs = args.systems * (args.systems - 1) // 2
    print(f"n = {args.n:,}, {args.systems} systems ({pairs} pairs), R = {args.resamples:,}")
    print(f"compare (2 systems)       {one:8.2f} s")
    print(f"compare_many (all pairs)  {family:8.2f} s   {family / one:5.2f}x  (target <= 3x)")


if __name__ == "__main__":
    main()

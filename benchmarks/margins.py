"""What a margin, a one-sided alternative and the false discovery rate cost.

Issue 24's targets: a margin's test (non-inferiority, superiority, equivalence) or a
one-sided alternative costs nothing measurable over the default run of the same data
(the draws are the same; only the reading of the interval differs), and BH or BY on
1,000 comparisons is instant.  Peers side by side in one process: statsmodels'
``multipletests`` for the q-values, ``ttost_paired`` for TOST (a t test, not a
bootstrap: its time is the floor of any TOST).

    python benchmarks/margins.py [--n 100000] [--resamples 10000] [--repeat 3]
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from timing import best, size_arguments  # (benchmarks/timing.py, beside this script)

import pairboot
from pairboot.stats.fdr import benjamini_hochberg, benjamini_yekutieli


def main() -> None:
    args = size_arguments(__doc__)

    rng = np.random.default_rng(0)
    a = rng.random(args.n)
    b = a + rng.normal(0.001, 0.1, args.n)
    warnings.simplefilter("ignore")
    pairboot.compare(a, b, n_resamples=100, seed=1)  # (kernels loaded or compiled first)

    configs = [
        ("compare (two-sided, no margin)", {}),
        ("alternative='greater'", {"alternative": "greater"}),
        ("non-inferiority, margin 0.01", {"hypothesis": "non-inferiority", "margin": 0.01}),
        ("superiority, margin 0.01", {"hypothesis": "superiority", "margin": 0.01}),
        ("equivalence, margin 0.01", {"hypothesis": "equivalence", "margin": 0.01}),
    ]
    # interleaved (every configuration once per round, best of the rounds), so that a
    # machine that slows down or speeds up during the run favours none of them
    times = {label: [] for label, _ in configs}
    for _ in range(args.repeat):
        for label, keywords in configs:
            start = time.perf_counter()
            pairboot.compare(a, b, n_resamples=args.resamples, seed=1, **keywords)
            times[label].append(time.perf_counter() - start)
    print(f"n = {args.n:,}, R = {args.resamples:,}, best of {args.repeat} interleaved rounds")
    default = min(times[configs[0][0]])
    for label, _ in configs:
        t = min(times[label])
        print(f"  {label:<32} {t:8.3f} s   {t / default:5.2f}x")

    p = rng.random(1000) ** 3
    ours_bh = best(lambda: benjamini_hochberg(p), 20)
    ours_by = best(lambda: benjamini_yekutieli(p), 20)
    print("q-values of 1,000 p-values (best of 20)")
    print(f"  pairboot BH                      {ours_bh * 1e6:8.1f} us")
    print(f"  pairboot BY                      {ours_by * 1e6:8.1f} us")
    try:
        from statsmodels.stats.multitest import multipletests
        from statsmodels.stats.weightstats import ttost_paired
    except ImportError:
        print("  (statsmodels is not installed: no peer)")
        return
    theirs = best(lambda: multipletests(p, method="fdr_bh"), 20)
    print(f"  statsmodels multipletests BH     {theirs * 1e6:8.1f} us   "
          f"pairboot {theirs / ours_bh:5.2f}x faster")
    tost = best(lambda: ttost_paired(b, a, -0.01, 0.01), args.repeat)
    print(f"  statsmodels ttost_paired (t)     {tost:8.4f} s (no resampling)")


if __name__ == "__main__":
    main()

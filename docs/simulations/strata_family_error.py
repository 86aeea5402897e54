"""The family-wise error of a family over small strata, and its partial conjunction
(docs/small_samples.md, "Families over small strata").

K = 20 strata of ``size`` items each, A and B independent standard normals (no
difference anywhere), ``compare_strata`` with 999 resamples: how often some stratum is
flagged (its adjusted p below 0.05) and how often the partial conjunction counts at
least one stratum.  100 data sets per cell (a count of 100 has a Monte Carlo error of
about 4 points at 18%).  Run:

    python docs/simulations/strata_family_error.py [SIZE ...] [--correction max-t]
        [--method studentized] [--n-data 300]
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np

import pairboot


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[8, 12, 30])
    parser.add_argument("--correction", default="max-t")
    parser.add_argument("--method", default="percentile")
    parser.add_argument("--strata", type=int, default=20)
    parser.add_argument("--n-data", type=int, default=100)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    for size in args.sizes:
        rng = np.random.default_rng(5)
        flagged = counted = 0
        for r in range(args.n_data):
            a, b = rng.normal(size=(2, size * args.strata))
            strata = np.repeat([f"s{k:02d}" for k in range(args.strata)], size)
            res = pairboot.compare_strata(a, b, strata=strata, n_resamples=999, seed=r,
                                          correction=args.correction,
                                          method=args.method)
            flagged += any(bool(c.significant) for c in res.comparisons)
            counted += res.partial_conjunction.count >= 1
        print(f"{size:4d} items x {args.strata} strata, {args.correction}, {args.method}: "
              "some stratum "
              f"flagged {flagged / args.n_data:.2f}, conjunction >= 1 "
              f"{counted / args.n_data:.2f}")


if __name__ == "__main__":
    main()

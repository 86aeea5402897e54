"""The permutation test on parts: what carrying its sums costs a part, and finishing.

Issue 25: a part built with ``test="permutation"`` sums the swapped rows in a second
pass over its items (the swap kernel beside the Poisson kernel), so the cost is the
Poisson part's plus about the in-memory test's sums.  Times ``part_from_arrays`` with
and without the test (numba backend), and ``finish`` with and without it.

    python benchmarks/permutation_parts.py [--n 100000] [--resamples 10000] [--repeat 3]
"""

from __future__ import annotations

import warnings

import numpy as np
from timing import best, size_arguments  # (benchmarks/timing.py, beside this script)

from pairboot.partitioned import finish, part_from_arrays


def main() -> None:
    args = size_arguments(__doc__)
    rng = np.random.default_rng(0)
    a = rng.random(args.n)
    b = a + rng.normal(0.001, 0.1, args.n)
    ids = np.arange(args.n)
    warnings.simplefilter("ignore")

    def part(test, n_resamples=args.resamples):
        return part_from_arrays({"A": a, "B": b}, ids=ids, n_resamples=n_resamples, seed=1,
                                backend="numba", test=test)

    for test in (None, "permutation"):  # (kernels loaded or compiled first)
        finish(part(test, 100))
    plain = best(lambda: part(None), args.repeat)
    tested = best(lambda: part("permutation"), args.repeat)
    p0, p1 = part(None), part("permutation")
    end0 = best(lambda: finish(p0), args.repeat)
    end1 = best(lambda: finish(p1), args.repeat)
    print(f"n = {args.n:,}, R = {args.resamples:,}, numba, best of {args.repeat}")
    print(f"  part_from_arrays                  {plain:8.2f} s")
    print(f"  ... with test='permutation'       {tested:8.2f} s   +{tested - plain:.2f} s = "
          f"{tested / plain:4.2f}x")
    print(f"  finish                            {end0 * 1e3:8.1f} ms")
    print(f"  ... with the test                 {end1 * 1e3:8.1f} ms")
    print(f"  sums a part carries: {p0.sums.nbytes / 1e6:.1f} MB, with the test "
          f"{(p1.sums.nbytes + p1.swapped.nbytes + p1.swapped_units.nbytes) / 1e6:.1f} MB")


if __name__ == "__main__":
    main()

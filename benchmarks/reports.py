"""What writing a family's reports costs: the HTML page beside the text and the run.

A family of 45 pairs (ten systems on 120 items, 2,000 resamples) as the notebook and
``--format html`` write it: the page with its two inline SVG plots (the forest of the
45 intervals and the matrix) and its text report, each against the run itself.  The
target (once a test's limit; a wall-clock limit is no test): the page in well under a
second.  ``--repeat`` rounds, each writer once per round (interleaved: a machine that
slows down during the run favours none), the best of each.

    python benchmarks/reports.py [--systems 10] [--n 120] [--resamples 2000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

import pairboot


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--n", type=int, default=120)
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    base = rng.random(args.n)
    scores = {f"system-{k}": base + rng.normal(0.01 * k, 0.1, args.n)
              for k in range(args.systems)}
    warnings.simplefilter("ignore")

    def run():
        return pairboot.compare_many(scores, n_resamples=args.resamples, seed=1)

    family = run()
    family.to_html()  # (matplotlib's imports and font cache, once)
    writers = [
        ("compare_many (the run)", run),
        ("text report (str)", lambda: str(family)),
        ("HTML page (to_html)", family.to_html),
        ("notebook fragment (_repr_html_)", family._repr_html_),
    ]
    times = {label: [] for label, _ in writers}
    for _ in range(args.repeat):
        for label, write in writers:
            start = time.perf_counter()
            write()
            times[label].append(time.perf_counter() - start)
    run_time = min(times["compare_many (the run)"])
    print(f"{family.family_size} pairs ({args.systems} systems, {args.n:,} items, "
          f"R = {args.resamples:,}), best of {args.repeat} interleaved rounds")
    print(f"  {'':<34} {'time':>9}   {'/ run':>7}")
    for label, _ in writers:
        t = min(times[label])
        print(f"  {label:<34} {t:8.3f} s   {t / run_time:6.2f}x")
    page = min(times["HTML page (to_html)"])
    print(f"target: the page in well under 1 s: {'met' if page < 1.0 else 'NOT met'} "
          f"({page:.3f} s)")


if __name__ == "__main__":
    main()

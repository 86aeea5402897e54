"""What checking a planned size by simulation costs: the exact 0/1 path and compare().

Issue 26's target: 1,000 simulated evaluations of 10,000 0/1 items in seconds.  Side by
side in one process, on the same pilot and options (percentile, R resamples, two-sided
95%):

- the exact 0/1 path of ``simulate_power`` (a 2 x 2 table per evaluation, bootstrapped by
  the engine's multinomial path over its 4 cells);
- the general path on the same 0/1 data (items drawn and flipped one by one, compare()
  on each: here compare() itself takes the engine's exact path, so what it adds is the
  items, the design and the checks of every run), forced by giving every item its own
  group (the same distribution);
- the general path on continuous scores of the same size (compare() resamples n items
  per replicate: O(R n) per evaluation), timed on a few simulations and scaled.

    python benchmarks/power_simulation.py [--n 10000] [--resamples 2000] [--repeat 1]
        [--simulations 1000] [--continuous 20]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

import pairboot
from pairboot.planning.simulation import simulate_power


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--simulations", type=int, default=1000)
    parser.add_argument("--continuous", type=int, default=20,
                        help="simulations timed on continuous scores (then scaled)")
    args = parser.parse_args()
    n, r, s = args.n, args.resamples, args.simulations

    rng = np.random.default_rng(0)
    pilot = 2000
    a = (rng.random(pilot) < 0.7).astype(int)
    b = np.where(rng.random(pilot) < 0.2, 1 - a, a)
    x = rng.normal(size=pilot)
    y = x + rng.normal(size=pilot)
    warnings.simplefilter("ignore")
    pairboot.compare(rng.normal(size=n), rng.normal(size=n), n_resamples=r, seed=1)  # (warm)

    def timed(run) -> tuple[float, object]:
        times, out = [], None
        for _ in range(args.repeat):
            start = time.perf_counter()
            out = run()
            times.append(time.perf_counter() - start)
        return min(times), out

    kw = dict(delta=0.02, n_resamples=r, seed=1)
    fast, res_fast = timed(lambda: simulate_power(a, b, n_items=n, n_simulations=s, **kw))
    general, res_general = timed(lambda: simulate_power(
        a, b, groups=np.arange(pilot), n_groups=n, n_simulations=s, **kw))
    c = args.continuous
    part, _ = timed(lambda: simulate_power(x, y, n_items=n, delta=0.05, n_simulations=c,
                                           n_resamples=r, seed=1))
    continuous = part * s / c

    print(f"{s:,} simulated evaluations of n = {n:,} items, R = {r:,}, "
          f"best of {args.repeat}")
    print(f"  exact 0/1 path (tables)          {fast:8.2f} s   1.00x   "
          f"power {res_fast.power:.3f} +- {res_fast.monte_carlo_error:.3f}")
    print(f"  general path, same 0/1 data      {general:8.2f} s   {general / fast:5.1f}x   "
          f"power {res_general.power:.3f} +- {res_general.monte_carlo_error:.3f}")
    print(f"  general path, continuous scores  {continuous:8.2f} s   "
          f"{continuous / fast:5.1f}x   (timed on {c} simulations, scaled)")
    print(f"  per evaluation: {fast / s * 1e3:.2f} ms, {general / s * 1e3:.2f} ms, "
          f"{continuous / s * 1e3:.1f} ms")


if __name__ == "__main__":
    main()

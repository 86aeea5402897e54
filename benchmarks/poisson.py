"""The Poisson producer against the classic fused kernel, per unit and replicate.

Issue 14's target: Poisson throughput within 2x of the classic kernel on one machine
(hashing costs something: this shows how much).  Both engines run on the same units in
one process, taking turns; times are the best of ``--repeat``.  Also the cost of the
ids' keys (hashing every id's text once, from Arrow's buffers and from Python strings).

    python benchmarks/poisson.py [--n 100000] [--resamples 10000] [--repeat 3]
"""

from __future__ import annotations

import numpy as np
from timing import best, size_arguments  # (benchmarks/timing.py, beside this script)

from pairboot.engine import DrawPlan, resample_sums
from pairboot.engine.keys import id_keys, position_keys, text_keys


def main() -> None:
    args = size_arguments(__doc__)
    n, R = args.n, args.resamples
    rng = np.random.default_rng(0)
    print(f"n = {n:,} units, R = {R:,} replicates, numba kernels (2 threads)")
    print(f"{'columns':>8} {'classic ns':>11} {'poisson ns':>11} {'poisson / classic':>18}")
    for k in (1, 2, 10):
        x = rng.normal(size=(n, k))
        plan = DrawPlan.from_columns(np.hstack([x, np.ones((n, 1))]), [0], [n],
                                     keys=position_keys(0, n))
        for scheme in ("classic", "poisson"):  # compile or load both first
            resample_sums(plan, 64, 1, scheme=scheme, backend="numba")
        classic, poisson = (
            best(lambda s=scheme, p=plan: resample_sums(p, R, 1, scheme=s, backend="numba"),
                 args.repeat)
            for scheme in ("classic", "poisson"))
        per = 1e9 / (n * R)
        print(f"{k:>8} {classic * per:>11.3f} {poisson * per:>11.3f} "
              f"{poisson / classic:>17.2f}x")
    texts = [f"item-{i:09d}" for i in range(1_000_000)]
    python = best(lambda: id_keys(texts), args.repeat)
    try:
        import pyarrow as pa  # noqa: PLC0415
    except ImportError:
        arrow = None
    else:
        column = pa.array(texts)
        offsets = np.frombuffer(column.buffers()[1], dtype=np.int32).astype(np.int64)
        data = np.frombuffer(column.buffers()[2], dtype=np.uint8)
        arrow = best(lambda: text_keys(offsets, data), args.repeat)
    print("ids' keys (once per item, 1,000,000 ids of 14 bytes):")
    print(f"  from Python strings  {python:6.2f} s  ({1e6 / python:,.0f} ids/s)")
    if arrow is not None:
        print(f"  from Arrow buffers   {arrow:6.2f} s  ({1e6 / arrow:,.0f} ids/s)")


if __name__ == "__main__":
    main()

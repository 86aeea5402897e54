"""The Poisson bootstrap on Dask against the same run in one process.

Issue 14's target: on a LocalCluster of this machine, ``pairboot.dask.compare`` takes at
most 1.5x the time of the single-process ``pairboot.compare(..., resampling="poisson")``
at 10 million rows.  The data are generated in chunks (one per partition) and held in the
workers' memory before the clock starts, as the single process holds its arrays; both
runs must give the same interval (0/1 scores: bit for bit).

    python benchmarks/dask_poisson.py [--n 10000000] [--resamples 1000] [--partitions 8]
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np


def chunk(i: int, rows: int, n: int):
    """Partition ``i``: items ``i * rows ..`` (ids are their numbers), 0/1 scores."""
    import pandas as pd  # noqa: PLC0415

    lo, hi = i * rows, min((i + 1) * rows, n)
    rng = np.random.default_rng([2026, i])
    a = (rng.random(hi - lo) < 0.70).astype(np.float64)
    b = np.where(rng.random(hi - lo) < 0.9, a, 1.0 - a)
    return pd.DataFrame({"id": np.arange(lo, hi, dtype=np.int64), "a": a, "b": b})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000_000)
    parser.add_argument("--resamples", type=int, default=1_000)
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1, help="threads per worker")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()

    import dask.dataframe as dd  # noqa: PLC0415
    import pandas as pd  # noqa: PLC0415
    from distributed import Client, LocalCluster, wait  # noqa: PLC0415

    import pairboot  # noqa: PLC0415
    import pairboot.dask  # noqa: PLC0415

    warnings.simplefilter("ignore")
    rows = -(-args.n // args.partitions)
    frame = pd.concat([chunk(i, rows, args.n) for i in range(args.partitions)],
                      ignore_index=True)
    data = {"a": frame["a"].to_numpy(), "b": frame["b"].to_numpy(),
            "ids": frame["id"].to_numpy()}
    del frame
    kw = dict(resampling="poisson", seed=1, n_resamples=args.resamples)
    pairboot.compare(*(data[c][:100_000] for c in "ab"), ids=data["ids"][:100_000],
                     **kw)  # (numba compiled)

    def best(run):
        times, out = [], None
        for _ in range(args.repeat):
            start = time.perf_counter()
            out = run()
            times.append(time.perf_counter() - start)
        return min(times), out

    single, ref = best(lambda: pairboot.compare(data["a"], data["b"], ids=data["ids"], **kw))
    data.clear()
    print(f"rows {args.n:,}, resamples {args.resamples:,}, cores {os.cpu_count()}")
    print(f"single process (pairboot.compare, {ref.engine}): {single:.2f} s")

    with LocalCluster(n_workers=args.workers, threads_per_worker=args.threads,
                      processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        ddf = dd.from_map(chunk, range(args.partitions), rows=rows, n=args.n)
        ddf = client.persist(ddf)
        wait(ddf)
        small = dd.from_map(chunk, range(2), rows=1000, n=2000)
        pairboot.dask.compare(small, "a", "b", id="id", seed=1, n_resamples=args.resamples,
                              timeout=600)  # (the workers load the kernels)
        distributed, res = best(lambda: pairboot.dask.compare(
            ddf, "a", "b", id="id", seed=1, n_resamples=args.resamples, timeout=3600))
        unchecked, _ = best(lambda: pairboot.dask.compare(
            ddf, "a", "b", id="id", seed=1, n_resamples=args.resamples, timeout=3600,
            check_ids=False))
    same = np.array_equal(res.bootstrap_distribution, ref.bootstrap_distribution)
    print(f"dask, {args.workers} workers x {args.threads} thread(s), {args.partitions} "
          f"partitions: {distributed:.2f} s ({unchecked:.2f} s with check_ids=False)")
    print(f"ratio dask / single: {distributed / single:.2f} "
          f"({unchecked / single:.2f} without the id check); same distribution: {same}")


if __name__ == "__main__":
    main()

"""What the benchmark scripts share: their size arguments, the best of several runs."""

from __future__ import annotations

import argparse
import time


def size_arguments(doc: str, *, repeat: int = 3) -> argparse.Namespace:
    """``--n`` (items, default 100,000), ``--resamples`` (10,000) and ``--repeat``, parsed
    from the command line; ``doc`` (the script's docstring) describes the script."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=repeat)
    return parser.parse_args()


def best(run, repeat: int) -> float:
    """The shortest wall time of ``repeat`` calls of ``run()``, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)

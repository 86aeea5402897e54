"""What the benchmark scripts share: the best of several timed runs."""

from __future__ import annotations

import time


def best(run, repeat: int) -> float:
    """The shortest wall time of ``repeat`` calls of ``run()``, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)

"""How much memory the resampled sums need, checked before any is drawn."""

from __future__ import annotations

import os

from pairboot.errors import InputError

__all__ = ["memory_limit", "check_memory"]


def memory_limit() -> int | None:
    """The bytes this process may hold: the machine's memory, or a lower limit set on
    the process (``ulimit -v`` / ``-d``); None where it cannot be read."""
    limits = []
    try:
        limits.append(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, OSError, ValueError):
        pass
    try:
        import resource  # noqa: PLC0415  (POSIX only)

        for which in (resource.RLIMIT_AS, resource.RLIMIT_DATA):
            soft = resource.getrlimit(which)[0]
            if soft != resource.RLIM_INFINITY and soft > 0:
                limits.append(soft)
    except (ImportError, AttributeError, OSError, ValueError):
        pass
    return min(limits) if limits else None


def check_memory(n_resamples: int, per_resample: int) -> None:
    """Refuse, before any is drawn, resamples whose sums cannot fit in memory: each
    holds ``per_resample`` numbers, and what is computed from them about as much
    again twice (the metric's values, the contrasts, the sorted distribution)."""
    needed = 8 * n_resamples * (3 * per_resample + 16)
    limit = memory_limit()
    if limit is not None and needed > limit:
        raise InputError(
            f"`n_resamples={n_resamples}` needs about {needed / 2**30:,.1f} GiB for the "
            f"resampled sums ({per_resample} numbers per resample, and what is computed "
            f"from them), more than the {limit / 2**30:,.1f} GiB this process may use: "
            "give fewer resamples", param="n_resamples")

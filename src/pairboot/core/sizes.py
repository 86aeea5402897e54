"""The size of a family, checked before it is computed: comparisons x resamples and the
memory they take to read off (docs/performance.md, "The size of a family")."""

from __future__ import annotations

from pairboot.engine.memory import memory_limit, resident_bytes
from pairboot.errors import InputError

__all__ = ["MAX_CONTRAST_REPLICATES", "check_family_size", "some_names"]

MAX_CONTRAST_REPLICATES = 100_000_000
"""The most comparisons x resamples a family is read off (all 19,900 pairs of 200
systems at 5,000 resamples): every row's interval, test and Monte Carlo error is a pass
over its resamples, so past this a family takes minutes and gigabytes
(docs/performance.md, "The size of a family")."""

MIN_FAMILY_RESAMPLES = 1000
"""Fewer resamples than this are not offered as a way to make a family smaller."""

CONTRAST_BYTES = 64
"""Bytes a family holds per comparison and resample while it is read off (its
replicates, their sorted copy, the max-t roots), and 16 per system and resample besides
(a mean's sums): measured in docs/performance.md, "The size of a family"."""


def check_family_size(n_systems: int, n_contrasts: int, n_resamples, *,
                      all_pairs: bool) -> None:
    """Refuse, before it is computed, a family whose comparisons x resamples pass
    :data:`MAX_CONTRAST_REPLICATES` or whose read-off would not fit in the memory this
    process may use (:func:`pairboot.engine.memory.memory_limit`), saying what would
    make it smaller: a baseline (M - 1 comparisons instead of M (M - 1) / 2), the
    pairs needed, fewer resamples."""
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        return  # (the options' own check names a bad value)
    cells = n_contrasts * n_resamples
    needed = CONTRAST_BYTES * cells + 16 * n_systems * n_resamples  # (+ a mean's sums)
    limit = memory_limit()
    if limit is not None:  # (what this process may still take)
        limit = max(limit - (resident_bytes() or 0), 0)
    if cells <= MAX_CONTRAST_REPLICATES and (limit is None or needed <= limit):
        return
    ways = []
    if all_pairs and n_systems > 2:
        ways.append(f"`baseline` (every system against one: {n_systems - 1:,} comparisons)")
    per_resample = CONTRAST_BYTES * n_contrasts + 16 * n_systems
    most = min(MAX_CONTRAST_REPLICATES // max(n_contrasts, 1),
               n_resamples if limit is None else limit // per_resample)
    if most >= MIN_FAMILY_RESAMPLES:
        ways.append(f"fewer `n_resamples` (at most {most:,})")
    ways.append("fewer systems")
    over = (f"more than the {limit / 2**30:,.1f} GiB this process may still use"
            if limit is not None and needed > limit else
            f"past the {MAX_CONTRAST_REPLICATES:,} a family takes (minutes of computing)")
    raise InputError(
        f"a family of {n_systems:,} systems{' (all pairs)' if all_pairs else ''} makes "
        f"{n_contrasts:,} comparisons x {n_resamples:,} resamples = {cells:,} resampled "
        f"contrasts (about {needed / 2**30:,.1f} GiB), {over}: give {' or '.join(ways)}",
        param="baseline" if all_pairs else "n_resamples")


def some_names(names: list[str], shown: int = 20) -> str:
    """The systems' names for a message: the first ``shown`` and how many more."""
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f", ... ({more:,} more)" if more > 0 else "")

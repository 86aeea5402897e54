"""The flaky items of ``runs="samples"`` with 0/1 trials (:class:`FlakyItems`).

Computed from the items x trials tables themselves, beside the comparison: every item's
trials and successes per system, its exact interval (:func:`clopper_pearson`, once per
distinct count), Fisher's exact test of A's trials against B's, and the lists
(stochastic: ``0 < c < n``; flipped: ``p <= alpha``).  Any other table (a score that is
not 0 or 1, a pooled metric, ``runs="seeds"``) has none: None.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from pairboot.metrics.trials import per_item_ids
from pairboot.options import Arguments, Data
from pairboot.results.compare import CompareResult
from pairboot.results.items import FlakyItems
from pairboot.stats.binomial import clopper_pearson, fisher_exact, fisher_size
from pairboot.stats.fdr import benjamini_hochberg

__all__ = ["flaky_items", "with_flaky"]


def with_flaky(result: CompareResult, a, b, args: Arguments, data: Data,
               top_items: int | None) -> CompareResult:
    """``result`` with its :attr:`~CompareResult.flaky` items when ``a`` and ``b`` are
    items x trials tables of 0/1 scores under ``runs="samples"`` (else unchanged)."""
    if args.runs != "samples" or top_items is None:
        return result
    tables = [_zero_one(x) for x in (a, b)]
    if any(t is None for t in tables) or len(tables[0]) != len(tables[1]):
        return result
    ids = data.ids if per_item_ids(data.ids, len(tables[0])) else None
    flaky = flaky_items(*tables, ids=ids, confidence_level=args.confidence_level,
                        top=top_items)
    return dataclasses.replace(result, flaky=flaky)


def _zero_one(x) -> np.ndarray | None:
    """``x`` as an items x trials float table when every trial is 0, 1 or NaN (missing)
    and every item has one, else None."""
    try:
        y = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    if y.ndim != 2 or y.shape[1] == 0:
        return None
    done = ~np.isnan(y)
    if not done.any(axis=1).all() or ((y != 0) & (y != 1) & done).any():
        return None
    return y




def flaky_items(a: np.ndarray, b: np.ndarray, *, ids=None, confidence_level: float = 0.95,
                top: int = 5) -> FlakyItems:
    """The flaky items of two items x trials tables of 0/1 scores (NaN: no trial)."""
    trials = np.stack([(~np.isnan(t)).sum(axis=1) for t in (a, b)], axis=1).astype(np.int64)
    successes = np.stack([np.nansum(t, axis=1) for t in (a, b)], axis=1).astype(np.int64)
    n = len(trials)
    low, high = np.empty((n, 2)), np.empty((n, 2))
    intervals: dict = {}
    for i in range(n):
        for s in range(2):
            key = (int(successes[i, s]), int(trials[i, s]))
            if key not in intervals:
                intervals[key] = clopper_pearson(*key, confidence_level)
            low[i, s], high[i, s] = intervals[key]
    alpha = round(1.0 - confidence_level, 12)  # (FlakyItems.alpha)
    tests: dict = {}
    sizes: dict = {}
    p = np.empty(n)
    expected = 0.0
    for i in range(n):
        (ca, cb), (na, nb) = successes[i].tolist(), trials[i].tolist()
        if (ca, na, cb, nb) not in tests:
            tests[ca, na, cb, nb] = fisher_exact(ca, na, cb, nb)
        if (ca + cb, na, nb) not in sizes:
            sizes[ca + cb, na, nb] = fisher_size(ca + cb, na, nb, alpha)
        p[i] = tests[ca, na, cb, nb]
        expected += sizes[ca + cb, na, nb]
    rates = successes / trials
    order = np.arange(n)
    stochastic = []
    for s in range(2):
        chosen = np.flatnonzero((successes[:, s] > 0) & (successes[:, s] < trials[:, s]))
        # nearest 1/2 first, then more trials, then the order given
        keys = (order[chosen], -trials[chosen, s], np.abs(rates[chosen, s] - 0.5))
        stochastic.append(chosen[np.lexsort(keys)])
    near = np.where((successes > 0) & (successes < trials), np.abs(rates - 0.5), np.inf)
    nearest = near.min(axis=1)
    chosen = np.flatnonzero(np.isfinite(nearest))
    either = chosen[np.lexsort((order[chosen], -trials[chosen].max(axis=1),
                                nearest[chosen]))]
    flagged = np.flatnonzero(p <= alpha)
    change = np.abs(rates[:, 1] - rates[:, 0])
    flipped = flagged[np.lexsort((order[flagged], -change[flagged], p[flagged]))]
    return FlakyItems(
        confidence_level=float(confidence_level), top=int(top),
        ids=np.arange(n) if ids is None else np.asarray(list(ids), dtype=object),
        trials=trials, successes=successes, low=low, high=high, p_values=p,
        q_values=benjamini_hochberg(p), expected_flips=float(expected),
        stochastic=tuple(stochastic), stochastic_any=either, flipped=flipped)

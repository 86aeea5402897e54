"""A judge's scores and gold labels checked before a prediction-powered comparison.

Every item has the judge's score for every system (A and B, or M of a family); the
items of a random subset also have the gold (human) score for all, NaN elsewhere.  A
pooled metric's scores are items x statistics (a NaN row where unlabelled); several
judge calls per item, items x calls.  Refused, each in one line naming the argument: a
table of the wrong shape, lengths that differ, a NaN or infinite judge score (the judge
must score every item; with calls, every item at least once), gold on some systems but
not others for an item (the difference needs both), some of a labelled item's
statistics and not others, an infinite gold label, statistics the metric refuses
(negative counts), fewer than :data:`MIN_GOLD` labelled or unlabelled items.  And two
raters' ratings as categories (:func:`check_ratings`), for their agreement.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pairboot.errors import InputError
from pairboot.inputs.pairing import check_indexes

__all__ = ["MAX_CATEGORIES", "MIN_GOLD", "GoldScores", "check_gold", "check_judged", "score_array",
           "check_ratings"]

MIN_GOLD = 2
"""The fewest labelled (and unlabelled) items: a variance needs two."""


@dataclass(frozen=True, slots=True)
class GoldScores:
    """The checked scores of M systems: the judge's for every item, the gold labels
    where given, each as ``k`` per-item statistics (one, the score, for a mean)."""

    judge: np.ndarray
    """(n, M, k) float64: every system's judge statistics (the mean of its calls)."""
    gold: np.ndarray
    """(n, M, k) float64: every system's gold statistics, NaN where unlabelled."""
    labelled: np.ndarray
    """(n,) bool: the items with gold labels."""
    calls: tuple | None = None
    """With runs: every system's (n, c, k) statistics of each judge call (NaN where
    an item has fewer calls); None with one call per item."""


def score_array(values, name: str, ndim: int = 1) -> np.ndarray:
    """Scores as float64 (a pandas or polars column's missing values NaN): ``ndim``
    dimensions, or one more for a pooled metric's statistics; an error naming ``name``
    otherwise."""
    if hasattr(values, "to_numpy"):
        values = values.to_numpy(dtype=np.float64, na_value=np.nan)
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"`{name}` must be numbers, one per item", param=name) from None
    if arr.ndim not in (ndim, ndim + 1) or arr.size == 0:
        shape = {1: "one score per item (1-D), or items x statistics (2-D) for a pooled "
                    "metric", 2: "items x calls (2-D), or items x calls x statistics "
                    "(3-D) for a pooled metric"}[ndim]
        raise InputError(f"`{name}` must be {shape}, not empty; got shape {arr.shape}",
                         param=name)
    return arr


def _stats(arr: np.ndarray, name: str, prepare) -> np.ndarray:
    """``arr`` (rows x statistics) through the metric's ``prepare`` (its checks), the
    error naming ``name``."""
    if prepare is None:
        return arr
    try:
        return prepare(arr)
    except InputError as exc:
        raise InputError(f"`{name}`: {exc}", param=name) from None


def check_judged(judges, golds, groups=None, strata=None, *, k: int | None = None,
                 prepare=None, runs: str | None = None) -> GoldScores:
    """M systems' judge and gold scores checked (see the module): ``judges`` and
    ``golds`` are ``(argument, values)`` pairs, system by system.  ``k``: the
    statistics per item (None: one score, 1-D inputs); ``prepare``: the metric's
    per-item statistics from its input columns (None: as given); ``runs="samples"``:
    the judge's values are items x calls (x statistics), an item's statistic the mean
    of its calls (NaN where an item has fewer calls; every item needs one)."""
    check_indexes(list(judges) + list(golds), [("groups", groups), ("strata", strata)])
    width = 1 if k is None else k
    arrays = {}
    for name, v in judges:
        arr = score_array(v, name, 2 if runs else 1)
        if runs and arr.ndim == 2:
            arr = arr[:, :, None]
        elif not runs and arr.ndim == 1:
            arr = arr[:, None]
        arrays[name] = arr
    for name, v in golds:
        arr = score_array(v, name)
        arrays[name] = arr[:, None] if arr.ndim == 1 else arr
    first = judges[0][0]
    n = len(arrays[first])
    for name, arr in arrays.items():
        if len(arr) != n:
            raise InputError(f"`{name}` has {len(arr)} items and `{first}` {n}: every "
                             "column holds one score per item, in the same order",
                             param=name)
        if arr.shape[-1] != width:
            raise InputError(f"`{name}` has {arr.shape[-1]} statistic(s) per item and the "
                             f"metric reads {width}", param=name)
    judge, calls = [], []
    for name, _ in judges:
        arr = arrays[name]
        if runs:
            present = ~np.isnan(arr).all(axis=2)
            half = np.isnan(arr).any(axis=2) & present
            bad = ~np.isfinite(np.where(np.isnan(arr), 0.0, arr)).all(axis=2) | half
            if bad.any():
                i, c = (int(x) for x in np.argwhere(bad)[0])
                raise InputError(f"`{name}` has no finite score at item {i}, call {c}: a "
                                 "call scores all of an item's statistics, or is NaN (not "
                                 "made)", param=name)
            none = ~present.any(axis=1)
            if none.any():
                i = int(np.argmax(none))
                raise InputError(f"`{name}` has no call at item {i}: the judge must "
                                 "score every item at least once", param=name)
            flat = _stats(arr[present], name, prepare)
            each = np.full(arr.shape[:2] + (flat.shape[1],), np.nan)
            each[present] = flat
            calls.append(each)
            judge.append(np.nanmean(each, axis=1))
            continue
        bad = ~np.isfinite(arr).all(axis=1)
        if bad.any():
            i = int(np.argmax(bad))
            raise InputError(f"`{name}` has no finite score at item {i} "
                             f"({arr[i].tolist() if width > 1 else arr[i, 0]}): the judge "
                             "must score every item", param=name)
        judge.append(_stats(arr, name, prepare))
    for name, arr in ((name, arrays[name]) for name, _ in golds):
        if np.isinf(arr).any():
            i = int(np.argwhere(np.isinf(arr))[0][0])
            raise InputError(f"`{name}` is infinite at item {i}: a gold label is a number, "
                             "NaN where the item is unlabelled", param=name)
        half = np.isnan(arr).any(axis=1) & ~np.isnan(arr).all(axis=1)
        if half.any():
            i = int(np.argmax(half))
            raise InputError(f"`{name}` has some statistics of item {i} and not others: "
                             "give all of a labelled item's, NaN for all elsewhere",
                             param=name)
    labelled = ~np.isnan(arrays[golds[0][0]][:, 0])
    for name, _ in golds[1:]:
        one = np.isnan(arrays[name][:, 0]) == labelled
        if one.any():
            i = int(np.argmax(one))
            lacking = name if labelled[i] else golds[0][0]
            some = "one system" if len(golds) == 2 else "some systems"
            raise InputError(f"item {i} has a gold label for {some} only (`{lacking}` is "
                             "NaN there): label every system's output of an item, or none",
                             param=lacking)
    n_gold = int(labelled.sum())
    if n_gold < MIN_GOLD:
        raise InputError(f"`{golds[0][0]}` has {n_gold} labelled item{'s' * (n_gold != 1)}: "
                         f"a prediction-powered interval needs at least {MIN_GOLD} (and "
                         "tens for a useful one)", param=golds[0][0])
    if n - n_gold < MIN_GOLD:
        raise InputError(f"`{golds[0][0]}` labels {n_gold} of {n} items: with fewer than "
                         f"{MIN_GOLD} unlabelled ones the judge adds nothing; compare the "
                         "gold labels themselves (pairboot.compare(gold_a, gold_b))",
                         param=golds[0][0])
    gold = []
    for name, _ in golds:
        g = np.full((n, judge[0].shape[1]), np.nan)
        g[labelled] = _stats(arrays[name][labelled], name, prepare)
        gold.append(g)
    return GoldScores(np.stack(judge, axis=1), np.stack(gold, axis=1), labelled,
                      tuple(calls) if runs else None)


def check_gold(judge_a, judge_b, gold_a, gold_b, groups=None, strata=None, *,
               k: int | None = None, prepare=None, runs: str | None = None) -> GoldScores:
    """Two systems' four score columns checked (see the module): :class:`GoldScores`;
    ``k``, ``prepare`` and ``runs`` as :func:`check_judged`'s."""
    return check_judged([("judge_a", judge_a), ("judge_b", judge_b)],
                        [("gold_a", gold_a), ("gold_b", gold_b)], groups, strata, k=k,
                        prepare=prepare, runs=runs)


MAX_CATEGORIES = 100
"""The most categories an agreement statistic takes: more are continuous scores (their
table would have more cells than most test sets have items)."""


def _labels(values, name: str) -> list:
    if hasattr(values, "to_numpy"):
        values = values.to_numpy()
    out = list(np.asarray(values, dtype=object).ravel()) if not isinstance(
        values, (list, tuple)) else list(values)
    for i, v in enumerate(out):
        if v is None or (isinstance(v, (float, np.floating)) and np.isnan(v)):
            raise InputError(f"`{name}` has no rating at item {i}: both raters must rate "
                             "every item", param=name)
        if isinstance(v, np.generic):
            out[i] = v.item()
    return out


def check_ratings(rater_a, rater_b, categories=None) -> tuple[np.ndarray, np.ndarray, list]:
    """Two raters' ratings of the same items as category codes ``(codes_a, codes_b,
    categories)``: ``categories`` in order as given, else the sorted ratings seen.
    Refused: lengths that differ, a missing rating, a rating outside ``categories``,
    ratings of mixed kinds (numbers and text), fewer than 2 items or categories, more
    than :data:`MAX_CATEGORIES`."""
    check_indexes([("rater_a", rater_a), ("rater_b", rater_b)])
    a, b = _labels(rater_a, "rater_a"), _labels(rater_b, "rater_b")
    if len(a) != len(b):
        raise InputError(f"`rater_b` has {len(b)} items and `rater_a` {len(a)}: the raters "
                         "rate the same items, in the same order", param="rater_b")
    if len(a) < MIN_GOLD:
        raise InputError(f"`rater_a` has {len(a)} items: agreement needs at least "
                         f"{MIN_GOLD}", param="rater_a")
    if categories is None:
        kinds = {isinstance(v, str) for v in a + b}
        if len(kinds) > 1:
            raise InputError("`rater_a` and `rater_b` mix numbers and text: give "
                             "`categories` in order", param="rater_b")
        categories = sorted(set(a) | set(b))
    else:
        categories = _labels(categories, "categories")
        if len(set(categories)) != len(categories):
            raise InputError("`categories` repeats a category", param="categories")
    if not 2 <= len(categories) <= MAX_CATEGORIES:
        raise InputError(f"{len(categories)} categories: agreement needs 2 to "
                         f"{MAX_CATEGORIES} (continuous scores are compared with "
                         "compare_ppi, not by agreement)", param="categories")
    index = {c: k for k, c in enumerate(categories)}
    codes = []
    for name, values in (("rater_a", a), ("rater_b", b)):
        out = np.empty(len(values), dtype=np.int64)
        for i, v in enumerate(values):
            if v not in index:
                raise InputError(f"`{name}`: item {i} is rated {v!r}, not one of the "
                                 "`categories`", param=name)
            out[i] = index[v]
        codes.append(out)
    return codes[0], codes[1], list(categories)

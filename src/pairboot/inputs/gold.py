"""A judge's scores and gold labels checked before a prediction-powered comparison.

Every item has the judge's score for A and for B; the items of a random subset also
have the gold (human) score for both, NaN elsewhere.  Refused, each in one line naming
the argument: a table that is not one score per item, lengths that differ, a NaN or
infinite judge score (the judge must score every item), gold on one system but not the
other for an item (the difference needs both), an infinite gold label, fewer than
:data:`MIN_GOLD` labelled or unlabelled items.  And two raters' ratings as categories
(:func:`check_ratings`), for their agreement.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pairboot.errors import InputError
from pairboot.inputs.pairing import check_indexes

__all__ = ["MAX_CATEGORIES", "MIN_GOLD", "GoldScores", "check_gold", "check_ratings"]

MIN_GOLD = 2
"""The fewest labelled (and unlabelled) items: a variance needs two."""


@dataclass(frozen=True, slots=True)
class GoldScores:
    """The checked scores: the judge's for every item, the gold labels where given."""

    judge: np.ndarray
    """(n, 2) float64: A's and B's judge scores."""
    gold: np.ndarray
    """(n, 2) float64: A's and B's gold scores, NaN where unlabelled."""
    labelled: np.ndarray
    """(n,) bool: the items with gold labels."""


def _scores(values, name: str) -> np.ndarray:
    if hasattr(values, "to_numpy"):
        values = values.to_numpy(dtype=np.float64, na_value=np.nan)
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"`{name}` must be numbers, one per item", param=name) from None
    if arr.ndim != 1 or arr.size == 0:
        raise InputError(f"`{name}` must be one score per item (1-D, not empty), got shape "
                         f"{arr.shape}", param=name)
    return arr


def check_gold(judge_a, judge_b, gold_a, gold_b, groups=None, strata=None) -> GoldScores:
    """The four score columns checked (see the module): :class:`GoldScores`."""
    named = (("judge_a", judge_a), ("judge_b", judge_b), ("gold_a", gold_a),
             ("gold_b", gold_b))
    check_indexes(named, [("groups", groups), ("strata", strata)])
    arrays = {name: _scores(v, name) for name, v in named}
    n = len(arrays["judge_a"])
    for name, arr in arrays.items():
        if len(arr) != n:
            raise InputError(f"`{name}` has {len(arr)} items and `judge_a` {n}: every "
                             "column holds one score per item, in the same order",
                             param=name)
    for name in ("judge_a", "judge_b"):
        bad = ~np.isfinite(arrays[name])
        if bad.any():
            i = int(np.argmax(bad))
            raise InputError(f"`{name}` has no finite score at item {i} "
                             f"({arrays[name][i]}): the judge must score every item",
                             param=name)
    ga, gb = arrays["gold_a"], arrays["gold_b"]
    for name, arr in (("gold_a", ga), ("gold_b", gb)):
        if np.isinf(arr).any():
            i = int(np.argmax(np.isinf(arr)))
            raise InputError(f"`{name}` is infinite at item {i}: a gold label is a number, "
                             "NaN where the item is unlabelled", param=name)
    one = np.isnan(ga) != np.isnan(gb)
    if one.any():
        i = int(np.argmax(one))
        name = "gold_b" if np.isnan(gb[i]) else "gold_a"
        raise InputError(f"item {i} has a gold label for one system only (`{name}` is NaN "
                         "there): label both systems' outputs of an item, or neither",
                         param=name)
    labelled = ~np.isnan(ga)
    n_gold = int(labelled.sum())
    if n_gold < MIN_GOLD:
        raise InputError(f"`gold_a` has {n_gold} labelled item{'s' * (n_gold != 1)}: "
                         f"a prediction-powered interval needs at least {MIN_GOLD} (and "
                         "tens for a useful one)", param="gold_a")
    if n - n_gold < MIN_GOLD:
        raise InputError(f"`gold_a` labels {n_gold} of {n} items: with fewer than "
                         f"{MIN_GOLD} unlabelled ones the judge adds nothing; compare the "
                         "gold labels themselves (pairboot.compare(gold_a, gold_b))",
                         param="gold_a")
    return GoldScores(np.column_stack([arrays["judge_a"], arrays["judge_b"]]),
                      np.column_stack([ga, gb]), labelled)


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
                raise InputError(f"`{name}` rates item {i} {v!r}, not one of the "
                                 "`categories`", param=name)
            out[i] = index[v]
        codes.append(out)
    return codes[0], codes[1], list(categories)

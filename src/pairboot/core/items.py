"""The items behind the number (:class:`pairboot.results.items.ItemsSummary`): wins, ties
and losses of B against A, the 2 x 2 table of 0/1 scores, the largest differences each
way, per stratum and per group, from the items' scores kept by the design
(:class:`pairboot.core.design.ItemScores`, ``build_design(..., keep_items=True)``)."""

from __future__ import annotations

import numpy as np

from pairboot.core.design import ItemScores
from pairboot.core.paired_tests import table_of
from pairboot.errors import InputError
from pairboot.inputs.labels import item_labels, plain
from pairboot.results.items import ItemCounts, ItemRow, ItemsSummary

DEFAULT_TOP = 5
"""How many of the largest differences each way compare() keeps by default."""


def check_top(top) -> int:
    """``top_items`` checked: a whole number >= 0."""
    if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 0:
        raise InputError(f"`top_items` must be a whole number >= 0, got {top!r}",
                         param="top_items")
    return int(top)


def items_summary(scores: ItemScores, *, top: int, group_weighting: str) -> ItemsSummary:
    """The summary of ``scores``; a group's scores are its items' sum
    (``group_weighting="items"``) or mean (``"groups"``)."""
    a = np.array(scores.a, dtype=np.float64)
    b = np.array(scores.b, dtype=np.float64)
    n = len(a)
    ids = None
    if scores.ids is not None:  # (as given; a row's id as a Python value: plain)
        ids = scores.ids.to_numpy() if hasattr(scores.ids, "to_numpy") else scores.ids
        ids = np.array(ids, dtype=object) if isinstance(ids, (list, tuple)) else np.asarray(ids)
    scodes = snames = gcodes = gnames = None
    if scores.strata is not None:
        scodes, snames = item_labels(scores.strata, "strata", n)
        snames = tuple(str(plain(s)) for s in snames)
    if scores.groups is not None:
        gcodes, gnames = item_labels(scores.groups, "groups", n)
        gnames = tuple(plain(g) for g in gnames)
    zero_one = bool(np.isin(a, (0.0, 1.0)).all() and np.isin(b, (0.0, 1.0)).all())

    def label(i):
        return int(i) if ids is None else plain(ids[i])

    def stratum_of(codes):
        return (lambda i: None) if scodes is None else (lambda i: snames[codes[i]])

    everything = np.arange(n)
    item_stratum = stratum_of(scodes)
    items = counts(a, b, everything, top, label, item_stratum, zero_one)
    strata = ()
    if scodes is not None:
        strata = tuple(
            counts(a, b, np.flatnonzero(scodes == h), top, label, item_stratum, zero_one,
                   name=snames[h])
            for h in range(len(snames)))

    groups, group_strata, statistic = None, (), None
    if gcodes is not None:
        statistic = "mean" if group_weighting == "groups" else "sum"
        size = np.bincount(gcodes, minlength=len(gnames))
        ga = np.bincount(gcodes, weights=a, minlength=len(gnames))
        gb = np.bincount(gcodes, weights=b, minlength=len(gnames))
        if statistic == "mean":
            ga, gb = ga / size, gb / size
        gstrata = None
        if scodes is not None:  # (a group lies within one stratum: the design checks it)
            gstrata = np.zeros(len(gnames), dtype=np.intp)
            gstrata[gcodes] = scodes
        group_stratum = stratum_of(gstrata)
        all_groups = np.arange(len(gnames))
        groups = counts(ga, gb, all_groups, top, lambda g: gnames[g], group_stratum,
                        False, sizes=size)
        if gstrata is not None:
            group_strata = tuple(
                counts(ga, gb, np.flatnonzero(gstrata == h), top, lambda g: gnames[g],
                       group_stratum, False, sizes=size, name=snames[h])
                for h in range(len(snames)))

    return ItemsSummary(
        items=items, strata=strata, groups=groups, group_strata=group_strata,
        group_statistic=statistic, top=top, scores=np.column_stack([a, b]), ids=ids,
        stratum_codes=scodes, stratum_names=snames, group_codes=gcodes, group_names=gnames,
    )


def counts(a: np.ndarray, b: np.ndarray, where: np.ndarray, top: int, label, stratum,
           zero_one: bool, *, sizes: np.ndarray | None = None,
           name: str | None = None) -> ItemCounts:
    """Wins, ties and losses of the units ``where`` (indices into ``a`` and ``b``), their
    2 x 2 table when ``zero_one``, and the ``top`` largest differences each way."""
    d = b[where] - a[where]
    wins, losses = int(np.count_nonzero(d > 0)), int(np.count_nonzero(d < 0))
    table = None
    if zero_one:
        c = np.zeros((2, 2), dtype=np.int64)
        np.add.at(c, (a[where].astype(np.int64), b[where].astype(np.int64)), 1)
        table = table_of(c)

    def rows(sign: float) -> tuple[ItemRow, ...]:
        chosen = largest(sign * d, top)
        return tuple(
            ItemRow(id=label(i), a=float(a[i]), b=float(b[i]), stratum=stratum(i),
                    size=None if sizes is None else int(sizes[i]))
            for i in where[chosen])

    return ItemCounts(n=len(where), wins=wins, ties=len(where) - wins - losses,
                      losses=losses, table=table, top_wins=rows(1.0),
                      top_losses=rows(-1.0), name=name)


def largest(values: np.ndarray, k: int) -> np.ndarray:
    """The positions of the ``k`` largest positive ``values``, largest first, equal
    values in their order (without sorting them all)."""
    positive = np.flatnonzero(values > 0)
    if k == 0 or positive.size == 0:
        return positive[:0]
    v = values[positive]
    if v.size > k:  # (the k-th largest, then every value at least as large: ties kept)
        kth = np.partition(v, v.size - k)[v.size - k]
        keep = v >= kth
        positive, v = positive[keep], v[keep]
    order = np.lexsort((positive, -v))  # (by value, then position)
    return positive[order][:k]

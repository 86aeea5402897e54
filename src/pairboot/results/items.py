"""The items behind a comparison's number (:attr:`pairboot.CompareResult.items_summary`):
data only, as :mod:`pairboot.results.compare`; the reports write it (:mod:`pairboot.report.items`)
and :mod:`pairboot.core.items` computes it.

A per-item score exists for ``metric="mean"`` (an item's score is its value), so the
summary is there for a paired mean of two systems in memory; a pooled metric (F1, BLEU,
a ratio, accuracy with totals) has per-item statistics but no per-item score, and a
comparison of parts (files streamed in chunks, Dask), runs or unpaired samples has no
items in one place: ``items_summary`` is None there.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np


@dataclass(frozen=True, slots=True)
class ItemRow:
    """One item (or group) among the largest differences.

    Attributes
    ----------
    id : object
        The item's id (``compare(..., ids=...)``, the command line's ``--id``), or its
        position (0-based) without ids; a group's label for a group.
    a, b : float
        The two systems' scores (a group's: the sum or the mean of its items' scores,
        :attr:`ItemsSummary.group_statistic`).
    stratum : str or None
        The item's (group's) stratum, None without strata.
    size : int or None
        A group's items (None for an item).
    """

    id: object
    a: float
    b: float
    stratum: str | None = None
    size: int | None = None

    @property
    def difference(self) -> float:
        """``b - a``."""
        return self.b - self.a

    def to_dict(self) -> dict:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["difference"] = self.difference
        return out


@dataclass(frozen=True, slots=True)
class ItemCounts:
    """Wins, ties and losses of B against A among some units: all the items, one
    stratum's items, the groups or one stratum's groups.

    Attributes
    ----------
    n : int
        Units counted; ``wins + ties + losses == n``.
    wins, ties, losses : int
        Units with ``b > a``, ``b == a`` (exactly) and ``b < a``.
    table : Table2x2 or None
        For 0/1 scores (items only): the paired 2 x 2 table
        (:class:`pairboot.stats.proportions.Table2x2`: both right, only A, only B,
        neither); None for other scores and for groups.
    top_wins, top_losses : tuple of ItemRow
        The units where B gains most (largest ``b - a > 0``, largest first) and loses
        most (most negative first), at most :attr:`ItemsSummary.top` each; equal
        differences in the items' order.
    name : str or None
        The stratum's name (None for all the units).
    """

    n: int
    wins: int
    ties: int
    losses: int
    table: object | None
    top_wins: tuple[ItemRow, ...]
    top_losses: tuple[ItemRow, ...]
    name: str | None = None

    def to_dict(self) -> dict:
        t = self.table
        return {
            "name": self.name, "n": self.n, "wins": self.wins, "ties": self.ties,
            "losses": self.losses,
            "table": None if t is None else {"both": t.both, "only_a": t.only_a,
                                             "only_b": t.only_b, "neither": t.neither},
            "top_wins": [r.to_dict() for r in self.top_wins],
            "top_losses": [r.to_dict() for r in self.top_losses],
        }


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class ItemsSummary:
    """The items behind a comparison of two systems (B against A).

    Attributes
    ----------
    items : ItemCounts
        Every item.
    strata : tuple of ItemCounts
        The same within each stratum (empty without strata).
    groups : ItemCounts or None
        With ``groups``: the groups as units.  A group's scores are the sum of its
        items' scores with ``group_weighting="items"`` (its share of the mean over
        items) and their mean with ``"groups"`` (its share of the mean of group means),
        so its rank among the groups is its weight in the estimate; a group wins when
        B's sum (equally, its mean) is larger.
    group_strata : tuple of ItemCounts
        The groups within each stratum (with groups and strata; else empty).
    group_statistic : str or None
        ``"sum"`` or ``"mean"``: what a group's scores are (None without groups).
    top : int
        How many of the largest differences each way were kept (``top_items``).
    scores : numpy.ndarray
        ``(n, 2)``: every item's scores, A's and B's, in the order given.  Memory: the
        summary keeps them (16 bytes an item, as the inputs' scores) with the ids and
        labels so that :meth:`frame` needs no inputs; nothing else is per item.
    ids : numpy.ndarray or None
        The items' ids (None: their positions).
    stratum_codes, group_codes : numpy.ndarray or None
        Each item's stratum and group as an index into ``stratum_names`` and
        ``group_names``.
    """

    items: ItemCounts
    strata: tuple[ItemCounts, ...]
    groups: ItemCounts | None
    group_strata: tuple[ItemCounts, ...]
    group_statistic: str | None
    top: int
    scores: np.ndarray
    ids: np.ndarray | None = None
    stratum_codes: np.ndarray | None = None
    stratum_names: tuple | None = None
    group_codes: np.ndarray | None = None
    group_names: tuple | None = None

    @property
    def n(self) -> int:
        return self.items.n

    def __eq__(self, other) -> bool:
        """Equal counts, rows and per-item arrays (arrays compared element by element)."""
        if not isinstance(other, ItemsSummary):
            return NotImplemented
        for f in fields(self):
            x, y = getattr(self, f.name), getattr(other, f.name)
            if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
                if x is None or y is None or not np.array_equal(x, y):
                    return False
            elif x != y:
                return False
        return True

    __hash__ = None  # (arrays: not hashable)

    def frame(self):
        """Every item as a pandas DataFrame: ``id``, ``a``, ``b``, ``difference``,
        ``stratum``, ``group`` (the last two only with strata and groups)."""
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - depends on the environment
            raise ImportError("items() needs pandas: pip install pandas") from None
        a, b = self.scores[:, 0], self.scores[:, 1]
        columns = {
            "id": (np.arange(len(a)) if self.ids is None else self.ids),
            "a": a, "b": b, "difference": b - a,
        }
        if self.stratum_codes is not None:
            columns["stratum"] = np.asarray(self.stratum_names, dtype=object)[
                self.stratum_codes]
        if self.group_codes is not None:
            columns["group"] = np.asarray(self.group_names, dtype=object)[self.group_codes]
        return pd.DataFrame(columns)

    def to_dict(self) -> dict:
        """Counts, tables and the largest differences, per stratum and group (not the
        per-item arrays: :meth:`frame` has every item)."""
        return {
            "n": self.n,
            "top": self.top,
            "items": self.items.to_dict(),
            "strata": [s.to_dict() for s in self.strata],
            "group_statistic": self.group_statistic,
            "groups": None if self.groups is None else self.groups.to_dict(),
            "group_strata": [s.to_dict() for s in self.group_strata],
        }

    def __repr__(self) -> str:
        i = self.items
        return (f"ItemsSummary(n={i.n}, wins={i.wins}, ties={i.ties}, losses={i.losses}, "
                f"top={self.top}, strata={len(self.strata)}, "
                f"groups={None if self.groups is None else self.groups.n})")

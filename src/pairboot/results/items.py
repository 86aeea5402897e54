"""The items behind a comparison's number (:attr:`pairboot.CompareResult.items_summary`):
data only, as :mod:`pairboot.results.compare`; the reports write it (:mod:`pairboot.report.items`)
and :mod:`pairboot.core.items` computes it.

A per-item score exists for ``metric="mean"`` (an item's score is its value), so the
summary is there for a paired mean of two systems in memory; a pooled metric (F1, BLEU,
a ratio, accuracy with totals) has per-item statistics but no per-item score, and a
comparison of parts (files streamed in chunks, Dask), runs or unpaired samples has no
items in one place: ``items_summary`` is None there.

:class:`FlakyItems` (:attr:`pairboot.CompareResult.flaky`) is the items of repeated 0/1
trials (``runs="samples"``): every item's success rate per system, with the exact
(Clopper-Pearson) interval at the comparison's level.  An item is *stochastic* for a
system when ``0 < c < n`` (it both succeeded and failed: its outcome is not fixed,
whatever the interval); it *flipped* when Fisher's exact two-sided test of A's trials
against B's is at most ``1 - confidence_level``: a per-item screen, not a claim about
the family (the count expected by chance and Benjamini-Hochberg q-values are beside it).
:mod:`pairboot.comparisons.runs.flaky` computes it.
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


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class FlakyItems:
    """Per item and system, the trials' success rate; the stochastic and flipped items.

    Attributes
    ----------
    confidence_level : float
        The level of every rate's interval and the screen's ``alpha = 1 - level``.
    top : int
        How many items the text formats list (``top_items``); :meth:`to_dict` has all.
    ids : numpy.ndarray
        Every item's id (its 0-based position without ``ids``).
    trials, successes : numpy.ndarray
        ``(n, 2)`` integers: A's and B's trials and successes of each item.
    low, high : numpy.ndarray
        ``(n, 2)``: the exact (Clopper-Pearson) interval of each rate.
    p_values, q_values : numpy.ndarray
        Fisher's exact two-sided p-value of each item's A against B, and its
        Benjamini-Hochberg q-value over the items.
    expected_flips : float
        The items expected to be flagged by chance alone if no item's rate differed:
        the sum over items of Fisher's exact rejection probability at ``alpha`` given
        the item's total successes (at most ``alpha`` an item, 0 for an item all of
        whose trials agree).
    stochastic : tuple of (numpy.ndarray, numpy.ndarray)
        A's and B's stochastic items (``0 < c < n``) as indices, worst first: the rate
        nearest 1/2 first (the least predictable outcome), then more trials, then the
        order given; ``stochastic_any``: the items stochastic for either system, by
        the same rule on the rate nearest 1/2 of the two (where stochastic).
    flipped : numpy.ndarray
        The indices of the items with ``p <= alpha``, smallest p first, then the larger
        change of rate, then the order given.
    """

    confidence_level: float
    top: int
    ids: np.ndarray
    trials: np.ndarray
    successes: np.ndarray
    low: np.ndarray
    high: np.ndarray
    p_values: np.ndarray
    q_values: np.ndarray
    expected_flips: float
    stochastic: tuple
    stochastic_any: np.ndarray
    flipped: np.ndarray

    @property
    def n(self) -> int:
        return len(self.ids)

    @property
    def rates(self) -> np.ndarray:
        """``(n, 2)``: each item's success rate, A's and B's."""
        return self.successes / self.trials

    @property
    def alpha(self) -> float:
        return round(1.0 - self.confidence_level, 12)

    def row(self, i: int) -> dict:
        """Item ``i`` as a dict: its id, each system's trials, successes, rate and
        interval, the test's p and q."""
        out = {"id": _plain(self.ids[i])}
        for s, name in enumerate(("a", "b")):
            out[name] = {"trials": int(self.trials[i, s]),
                         "successes": int(self.successes[i, s]),
                         "rate": float(self.successes[i, s] / self.trials[i, s]),
                         "low": float(self.low[i, s]), "high": float(self.high[i, s]),
                         "stochastic": bool(0 < self.successes[i, s] < self.trials[i, s])}
        out["p_value"] = float(self.p_values[i])
        out["q_value"] = float(self.q_values[i])
        out["flipped"] = bool(self.p_values[i] <= self.alpha)
        return out

    def to_dict(self) -> dict:
        """Every item (not only the listed ones), the lists in order, as ids."""
        return {
            "interval": "clopper-pearson",
            "confidence_level": self.confidence_level,
            "test": "fisher-exact",
            "alpha": self.alpha,
            "n": self.n,
            "top": self.top,
            "stochastic_a": [_plain(self.ids[i]) for i in self.stochastic[0]],
            "stochastic_b": [_plain(self.ids[i]) for i in self.stochastic[1]],
            "flipped": [_plain(self.ids[i]) for i in self.flipped],
            "expected_flips": self.expected_flips,
            "flipped_bh": int((self.q_values <= self.alpha).sum()),
            "items": [self.row(i) for i in range(self.n)],
        }

    def frame(self):
        """Every item as a pandas DataFrame: ``id``, per system ``trials_a``,
        ``successes_a``, ``rate_a``, ``low_a``, ``high_a`` (and B's), ``p_value``,
        ``q_value``."""
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - depends on the environment
            raise ImportError("frame() needs pandas: pip install pandas") from None
        columns = {"id": self.ids}
        for s, name in enumerate(("a", "b")):
            columns[f"trials_{name}"] = self.trials[:, s]
            columns[f"successes_{name}"] = self.successes[:, s]
            columns[f"rate_{name}"] = self.rates[:, s]
            columns[f"low_{name}"] = self.low[:, s]
            columns[f"high_{name}"] = self.high[:, s]
        columns["p_value"], columns["q_value"] = self.p_values, self.q_values
        return pd.DataFrame(columns)

    def __eq__(self, other) -> bool:
        if not isinstance(other, FlakyItems):
            return NotImplemented
        for f in fields(self):
            x, y = getattr(self, f.name), getattr(other, f.name)
            if f.name == "stochastic":  # (a pair of arrays)
                if not all(np.array_equal(u, v) for u, v in zip(x, y)):
                    return False
            elif isinstance(x, np.ndarray):
                if not np.array_equal(x, y):
                    return False
            elif x != y:
                return False
        return True

    __hash__ = None  # (arrays: not hashable)

    def __repr__(self) -> str:
        return (f"FlakyItems(n={self.n}, stochastic_a={len(self.stochastic[0])}, "
                f"stochastic_b={len(self.stochastic[1])}, flipped={len(self.flipped)}, "
                f"expected_flips={self.expected_flips:.3g})")


def _plain(v):
    return v.item() if isinstance(v, np.generic) else v

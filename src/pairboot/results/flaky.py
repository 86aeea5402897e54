"""Flaky items of repeated 0/1 trials (:attr:`pairboot.CompareResult.flaky`): data only.

With ``runs="samples"`` and 0/1 trials, every item has, for each system, ``n`` trials
and ``c`` successes: its success rate ``c / n`` with the exact (Clopper-Pearson)
interval at the comparison's level.  An item is *stochastic* for a system when ``0 < c
< n``: it both succeeded and failed, so its outcome is not fixed whatever the interval;
an item *flipped* when Fisher's exact test of A's trials against B's (two-sided) is at
most ``1 - confidence_level``: a per-item screen, not a claim about the family (the
count expected by chance and Benjamini-Hochberg q-values are kept beside it).
:mod:`pairboot.comparisons.runs.flaky` computes it; :mod:`pairboot.report.items` writes it.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

__all__ = ["FlakyItems"]


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
        order given.
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
            if f.name == "stochastic":
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

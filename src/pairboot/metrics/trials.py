"""Metrics of k repeated trials per item (pass@k, pass^k, maj@k): a :class:`Trials`.

A :class:`~pairboot.metrics.Metric` is a formula on summed statistics; these are not:
each item's trials (an items x trials table of 0/1 scores, NaN where an item has fewer)
become one unbiased estimate per item (:mod:`pairboot.stats.trials`), and the items'
estimates are then compared as any per-item score is, by their mean.  So a
:class:`Trials` makes the per-item values (:meth:`Trials.values`) and names the mean
they are compared by (:meth:`Trials.metric`, a Metric called ``"pass^4"``), and is
taken with ``runs="samples"`` only.  Spelled ``"pass@4"``, ``"pass^4"``, ``"maj@5"``
or built by :func:`pass_at`, :func:`pass_hat`, :func:`maj_at`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from pairboot.errors import InputError
from pairboot.metrics.base import Metric, ratio_of_sums, with_count
from pairboot.stats.trials import ESTIMATORS, check_counts

__all__ = ["Trials", "pass_at", "pass_hat", "maj_at", "trials_metric", "NEEDS_SAMPLES"]

_WORDS = {"pass@": "at least one of {k} trials succeeds",
          "pass^": "all {k} trials succeed",
          "maj@": "a strict majority of {k} trials succeeds"}

_NAME = re.compile(r"^\s*(pass@|pass\^|maj@)\s*(\S*)\s*$", re.IGNORECASE)

NEEDS_SAMPLES = "`runs='samples'`: an items x trials table of 0/1 scores per system"


@dataclass(frozen=True, slots=True)
class Trials:
    """pass@k, pass^k or maj@k: ``kind`` is ``"pass@"``, ``"pass^"`` or ``"maj@"``.

    >>> pass_hat(4).name, Trials("maj@", 3).metric().name
    ('pass^4', 'maj@3')
    """

    kind: str
    k: int

    def __post_init__(self) -> None:
        if self.kind not in ESTIMATORS:
            raise InputError(f"a trials metric is one of {', '.join(ESTIMATORS)}, got "
                             f"{self.kind!r}", param="metric")
        problem = check_counts([self.k], [0], self.k)
        if problem is not None and problem[0] < 0:
            raise InputError(f"metric {self.kind}{self.k!r}: {problem[1]}", param="metric")
        object.__setattr__(self, "k", int(self.k))

    @property
    def name(self) -> str:
        return f"{self.kind}{self.k}"

    def metric(self) -> Metric:
        """The mean of the items' estimates, named as this metric (reports, JSON)."""
        return Metric(self.name, ("score",), ratio_of_sums,
                      prepare=with_count, mean_like=True, span=1.0,
                      description="mean over items of the unbiased estimate that "
                      + _WORDS[self.kind].format(k=self.k))

    def values(self, table, name: str = "a", ids=None) -> np.ndarray:
        """Every item's unbiased estimate from its row of ``table`` (items x trials, 0/1,
        NaN for a missing trial).  An item with no trial or fewer than k, or a score
        other than 0 and 1, is refused in one line naming ``name`` and the item (its
        id when ``ids`` holds one per item, else its 0-based position)."""
        y = np.asarray(table, dtype=np.float64)
        if y.ndim == 1:
            y = y[:, None]
        label = (lambda i: repr(_plain(ids[i]))) if per_item_ids(ids, len(y)) else str
        done = ~np.isnan(y)
        bad = done & (y != 0) & (y != 1)
        if bad.any():
            i, j = (int(v) for v in np.argwhere(bad)[0])
            raise InputError(f"`{name}` item {label(i)}, trial {j} is {float(y[i, j])!r}: metric "
                             f"{self.name!r} takes 0/1 scores", param=name)
        n, c = done.sum(axis=1), np.where(done, y, 0.0).sum(axis=1).astype(np.int64)
        problem = check_counts(n, c, self.k)
        if problem is not None:
            i, why = problem
            raise InputError(f"`{name}` item {label(i)} {why}: metric {self.name!r} needs "
                             f"at least {self.k} trials of every item", param=name)
        return ESTIMATORS[self.kind](n, c, self.k)


def per_item_ids(ids, n: int) -> bool:
    """Whether ``ids`` name the ``n`` items one by one (a sequence of their length)."""
    if ids is None or isinstance(ids, str):
        return False
    try:
        return len(ids) == n
    except TypeError:
        return False


def _plain(v):
    return v.item() if isinstance(v, np.generic) else v


def pass_at(k: int) -> Trials:
    """pass@k: the chance that at least one of k trials succeeds (Chen et al. 2021)."""
    return Trials("pass@", k)


def pass_hat(k: int) -> Trials:
    """pass^k: the chance that all k trials succeed (Yao et al. 2024, tau-bench)."""
    return Trials("pass^", k)


def maj_at(k: int) -> Trials:
    """maj@k: the chance that a strict majority of k trials succeeds (a tie fails)."""
    return Trials("maj@", k)


def trials_metric(metric) -> Trials | None:
    """The :class:`Trials` that ``metric`` names (``"pass^4"``, ``"pass@4"``,
    ``"maj@5"``, any case) or is, None for any other metric; a trials name with a bad k
    (``"pass^0"``, ``"pass^x"``) is refused in one line.

    >>> trials_metric("Pass^4"), trials_metric("mean")
    (Trials(kind='pass^', k=4), None)
    """
    if isinstance(metric, Trials):
        return metric
    if not isinstance(metric, str):
        return None
    found = _NAME.match(metric)
    if found is None:
        return None
    kind, k = found.group(1).lower(), found.group(2)
    if not re.fullmatch(r"[0-9]+", k):
        raise InputError(f"metric {metric.strip()!r}: k must be a whole number >= 1 "
                         f"(e.g. {kind}4)", param="metric")
    return Trials(kind, int(k))

"""Errors and missing outcomes of harness logs: counted per system, settled by a named
policy, tested for a difference between systems, and bounded.

A reader marks each item of each system (``Scores.outcomes``): scored (None), errored
(the log's category: ``error``, ``infrastructure``, ...), ``no score``, or absent from
the log (``missing``, found when several logs are joined).  :func:`settle` applies
``errors=`` before :func:`pairboot.io.harness.join` aligns the logs:

- None (the default): as the harness recorded them: an errored item keeps the score its
  log gives it; an item without a score is refused, naming the policies;
- ``"exclude"``: the items any system errored on (or has no score for) are left out;
- ``"fail"``: every unscored item (errored, without a score, or missing from a log)
  counts as a failure (0, or the lowest score seen when scores leave [0, 1]);
- ``"common"``: only the items every system scored are compared.

:class:`Outcomes` holds the counts (attempted, scored, errored by category, without a
score, missing), the paired exact test that two systems' rates of unscored items differ
(McNemar on unscored or not, :meth:`Outcomes.rate_test`), and the worst and best cases of
B - A with every unscored item a failure or a success (:meth:`Outcomes.bounds`), so that
a verdict the unscored items could overturn says so.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pairboot.errors import InputError
from pairboot.options import ERRORS
from pairboot.stats.proportions import mcnemar_exact

__all__ = ["ERRORS", "Outcomes", "SystemOutcomes", "RateTest", "Bounds", "settle"]

MISSING = "missing"
UNSCORED = "no score"


@dataclass(frozen=True)
class SystemOutcomes:
    """One system's items: attempted (a record in its log), scored, errored (by
    category), without a score (a record with neither), and missing (no record)."""

    name: str
    attempted: int
    scored: int
    errored: dict
    unscored: int
    missing: int

    @property
    def n_errored(self) -> int:
        return sum(self.errored.values())

    def line(self) -> str:
        kinds = ", ".join(f"{k} {v}" for k, v in self.errored.items()
                          if list(self.errored) != ["error"])  # (no category: no list)
        errored = f"{self.n_errored} errored" + (f" ({kinds})" if kinds else "")
        parts = [f"{self.attempted} attempted", f"{self.scored} scored", errored]
        if self.unscored:
            parts.append(f"{self.unscored} without a score")
        parts.append(f"{self.missing} missing")
        return f"{self.name}: " + ", ".join(parts)


@dataclass(frozen=True)
class RateTest:
    """The paired exact test that two systems leave different shares of the items
    unscored: McNemar on the items only A left unscored and only B did."""

    only_a: int
    only_b: int
    both: int
    n: int
    p_value: float


@dataclass(frozen=True)
class Bounds:
    """B - A with every unscored item a failure of B and a success of A (``worst``),
    or the reverse (``best``), and the interval's ends moved by as much."""

    estimate: float
    worst: float
    best: float
    worst_interval: tuple[float, float]
    best_interval: tuple[float, float]
    overturn: bool
    """The interval excludes 0 but a moved one does not, or the reverse."""
    note: str


@dataclass(frozen=True)
class Outcomes:
    """The outcomes of every system on the items of all the logs joined, and the policy
    that settled them."""

    policy: str | None
    systems: tuple[SystemOutcomes, ...]
    ids: np.ndarray
    unscored: tuple[np.ndarray, ...]
    """Per system, over ``ids``: True where it has no clean score."""
    values: tuple | None
    """Per system, over ``ids``: its recorded score (NaN where none); None for pooled
    statistics."""
    low: float
    high: float
    kept: int

    @property
    def any(self) -> bool:
        return any(bool(u.any()) for u in self.unscored)

    def renamed(self, names: Sequence[str]) -> Outcomes:
        systems = tuple(dataclasses.replace(s, name=n) for s, n in zip(self.systems, names))
        return dataclasses.replace(self, systems=systems)

    def policy_line(self) -> str:
        if self.policy is None:
            return ("errors: as the harness recorded them (an errored item keeps the score "
                    "its log gives it); `errors` can exclude them, fail them, or keep the "
                    "common items")
        what = {"exclude": "the items any system errored on left out",
                "fail": f"every unscored item counted as a failure ({self.low:g})",
                "common": "only the items every system scored compared"}[self.policy]
        return (f"errors: `errors='{self.policy}'`: {what}; {self.kept} of {len(self.ids)} "
                "items compared")

    def notes(self) -> list[str]:
        """The per-system counts, the policy, and for two systems the rate test."""
        if not self.any:
            return []
        out = ["outcomes per system: " + "; ".join(s.line() for s in self.systems),
               self.policy_line()]
        if len(self.systems) == 2:
            t = self.rate_test()
            out.append(f"unscored items: {self.systems[0].name} {int(self.unscored[0].sum())}"
                       f", {self.systems[1].name} {int(self.unscored[1].sum())} of "
                       f"{t.n}; paired exact McNemar test of a difference in these rates: "
                       f"p = {t.p_value:.4g} ({t.only_a} unscored only by the first, "
                       f"{t.only_b} only by the second)")
        return out

    def rate_test(self, a: int = 0, b: int = 1) -> RateTest:
        """McNemar's exact test on the systems ``a`` and ``b`` (positions) unscored or
        not, item by item over every item of the logs."""
        ua, ub = self.unscored[a], self.unscored[b]
        only_a, only_b = int((ua & ~ub).sum()), int((ub & ~ua).sum())
        return RateTest(only_a, only_b, int((ua & ub).sum()), len(ua),
                        mcnemar_exact(only_a, only_b))

    def bounds(self, estimate: float, low: float, high: float, a: int = 0,
               b: int = 1) -> Bounds | None:
        """The worst and best cases of B - A (B = ``b``, A = ``a``) over every item of
        the logs, each unscored item a failure or a success, with the interval
        ``(low, high)`` moved by each case's distance from ``estimate``; None when the
        scores are pooled statistics (no score per item to replace)."""
        if self.values is None:
            return None
        va, vb = self.values[a], self.values[b]
        ua, ub = self.unscored[a], self.unscored[b]
        worst = float(np.mean(np.where(ub, self.low, vb) - np.where(ua, self.high, va)))
        best = float(np.mean(np.where(ub, self.high, vb) - np.where(ua, self.low, va)))
        w = (low + worst - estimate, high + worst - estimate)
        bb = (low + best - estimate, high + best - estimate)
        lo, hi = w[0], bb[1]
        excludes = low > 0 or high < 0
        overturn = (excludes and lo <= 0 <= hi) or (not excludes and (w[0] > 0 or bb[1] < 0
                                                                       or bb[0] > 0 or w[1] < 0))
        n = int((ua | ub).sum())
        note = (f"bounds: with the {n} unscored item{'s' * (n != 1)} failures of "
                f"{self.systems[b].name} and successes of {self.systems[a].name}, B - A would "
                f"be {worst:.4g} (interval moved to [{w[0]:.4g}, {w[1]:.4g}]); the reverse "
                f"{best:.4g} ([{bb[0]:.4g}, {bb[1]:.4g}])")
        if overturn:
            note += ("; the unscored items could overturn the verdict" if excludes else
                     "; the unscored items could decide the verdict")
        else:
            note += "; the unscored items cannot overturn the verdict"
        return Bounds(estimate, worst, best, w, bb, overturn, note)


def _values(r) -> dict:
    return {name: np.asarray(v, dtype=np.float64) for name, v in r.systems.items()}


def _marks(r, name: str, n: int) -> np.ndarray:
    values = np.asarray(r.systems[name], dtype=np.float64)
    if r.outcomes is not None and name in r.outcomes:
        return np.asarray(r.outcomes[name], dtype=object)
    flat = values if values.ndim == 1 else values.reshape(n, -1)
    nan = np.isnan(flat) if flat.ndim == 1 else np.isnan(flat).any(axis=1)
    return np.where(nan, UNSCORED, None).astype(object)


def _scale(values: list[np.ndarray], unscored: list[np.ndarray]) -> tuple[float, float]:
    """A failure's and a success's score: 0 and 1, or the lowest and highest score seen
    when the scores leave [0, 1]."""
    seen = np.concatenate([v[~u] for v, u in zip(values, unscored)]) if values else []
    seen = np.asarray(seen, dtype=np.float64)
    seen = seen[np.isfinite(seen)]
    if len(seen) == 0 or (seen.min() >= 0 and seen.max() <= 1):
        return 0.0, 1.0
    return float(seen.min()), float(seen.max())


def _labels(reads, union: list, attr: str) -> np.ndarray | None:
    if all(getattr(r, attr) is None for r in reads):
        return None
    found: dict = {}
    for r in reads:
        labels = getattr(r, attr)
        if labels is None:
            continue
        for v, label in zip(r.ids.tolist(), labels.tolist()):
            found.setdefault(v, label)
    return np.array([found.get(v) for v in union], dtype=object)


def settle(reads: Sequence, errors: str | None) -> tuple[list, Outcomes | None]:
    """``reads`` with ``errors`` applied (see the module), and their :class:`Outcomes`
    (None when no read marks any outcome and every item is scored in every log)."""
    if errors is not None and errors not in ERRORS:
        raise InputError(f"`errors` must be one of {', '.join(ERRORS)}, got {errors!r}",
                         param="errors")
    reads = list(reads)
    union: dict = {}
    for r in reads:
        for v in r.ids.tolist():
            union.setdefault(v, len(union))
    n = len(union)
    names, values, marks, pooled = [], [], [], False
    for r in reads:
        index = np.array([union[v] for v in r.ids.tolist()], dtype=np.intp)
        for name, v in _values(r).items():
            pooled |= v.ndim > 1
            full = np.full((n, *v.shape[1:]), np.nan)
            full[index] = v
            mark = np.full(n, MISSING, dtype=object)
            mark[index] = _marks(r, name, len(r.ids))
            names.append(name)
            values.append(full)
            marks.append(mark)
    unscored = [np.array([m is not None for m in mark]) for mark in marks]
    if errors is None and not any(u.any() for u in unscored):
        return reads, None
    if pooled and errors == "fail":
        raise InputError("`errors='fail'` needs one score per item; these logs hold "
                         "statistics of a pooled metric: give 'exclude' or 'common'",
                         param="errors")
    if any(r.runs is not None for r in reads) and errors is not None:
        raise InputError("`errors` with runs kept per item (epochs, trials) is not "
                         "supported yet", param="errors")
    ids = list(union)
    flat = None if pooled else values
    low, high = _scale(values, unscored) if not pooled else (0.0, 1.0)
    counts = []
    for name, mark in zip(names, marks):
        tally = Counter(m for m in mark.tolist() if m is not None)
        errored = {k: c for k, c in tally.items() if k not in (MISSING, UNSCORED)}
        counts.append(SystemOutcomes(name, n - tally[MISSING], n - sum(tally.values()),
                                     errored, tally[UNSCORED], tally[MISSING]))
    blank = [np.array([m is not None and m != MISSING and not _has(values[i], j)
                       for j, m in enumerate(marks[i].tolist())]) for i in range(len(marks))]
    if errors is None:
        if any(b.any() for b in blank):
            i = next(i for i, b in enumerate(blank) if b.any())
            count = int(blank[i].sum())
            raise InputError(
                f"{count} item{'s' * (count > 1)} of {names[i]} "
                f"(e.g. {ids[int(np.argmax(blank[i]))]!r}) errored with no score recorded: "
                f"give `errors` ({', '.join(ERRORS)}) to say how they count", param="errors")
        kept = n
        out_reads = reads
    elif errors == "fail":
        out_reads, kept = _expand(reads, ids, names, values, unscored, low), n
    else:
        drop = np.zeros(n, dtype=bool)
        for mark in marks:
            drop |= np.array([m is not None and (errors == "common" or m != MISSING)
                              for m in mark.tolist()])
        keep_ids = {v for v, d in zip(ids, drop) if not d}
        if not keep_ids:
            raise InputError(f"`errors='{errors}'` leaves no item: every item is unscored by "
                             "some system", param="errors")
        out_reads = [_cut(r, keep_ids) for r in reads]
        kept = len(keep_ids)
    outcomes = Outcomes(errors, tuple(counts), np.array(ids, dtype=object),
                        tuple(unscored), None if flat is None else tuple(flat), low, high,
                        kept)
    return out_reads, outcomes


def _has(values: np.ndarray, j: int) -> bool:
    v = values[j]
    return bool(np.all(np.isfinite(v)))


def _cut(r, keep: set):
    rows = np.array([i for i, v in enumerate(r.ids.tolist()) if v in keep], dtype=np.intp)

    def cut(values):
        return None if values is None else np.asarray(values)[rows]

    return dataclasses.replace(
        r, ids=r.ids[rows], systems={k: cut(v) for k, v in r.systems.items()},
        groups=cut(r.groups), strata=cut(r.strata),
        columns=None if r.columns is None else
        {k: {c: cut(x) for c, x in cols.items()} for k, cols in r.columns.items()},
        outcomes=None if r.outcomes is None else {k: cut(v) for k, v in r.outcomes.items()})


def _expand(reads, ids: list, names: list, values: list, unscored: list, low: float):
    """Every read over every item, each unscored item ``low`` (``errors='fail'``)."""
    out, i = [], 0
    union = {v: j for j, v in enumerate(ids)}
    groups, strata = _labels(reads, ids, "groups"), _labels(reads, ids, "strata")
    for r in reads:
        systems, columns = {}, {}
        index = np.array([union[v] for v in r.ids.tolist()], dtype=np.intp)
        for name in r.systems:
            systems[name] = np.where(unscored[i], low, values[i])
            if r.columns is not None and name in r.columns:
                cols = {}
                for c, x in r.columns[name].items():
                    full = np.full(len(ids), np.nan)
                    full[index] = x
                    cols[c] = full
                columns[name] = cols
            i += 1
        out.append(dataclasses.replace(
            r, ids=np.array(ids, dtype=object), systems=systems, groups=groups,
            strata=strata, columns=columns or None, outcomes=None))
    return out


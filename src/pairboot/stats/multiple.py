"""Many comparisons on shared draws, with the family-wise error rate controlled.

Every comparison's replicates come from the same resamples, so their joint distribution is
known.  ``max_t`` standardises each comparison's roots by its bootstrap standard error
(metrics on other scales must not dominate the maximum) and reads the simultaneous
critical value, single-step and Romano-Wolf stepdown p-values off the maximum of the
absolute roots.  ``holm`` and ``bonferroni`` adjust given p-values.  p-values here use the
``(1 + count) / (B + 1)`` convention, so none is 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pairboot.stats.hypotheses import tie_tolerance


@dataclass(frozen=True, slots=True)
class MaxT:
    """The max-t procedure's answer for m comparisons.

    Attributes
    ----------
    critical_value : float
        ``c``: the simultaneous intervals are ``estimate +- c * se``.  Infinite when
        there are too few resamples for the level.
    t : numpy.ndarray
        The observed statistics ``estimate / se``.
    p_single_step, p_stepdown : numpy.ndarray
        Adjusted p-values; ``p_single_step < alpha`` exactly when the simultaneous
        interval excludes 0.
    p_marginal : numpy.ndarray
        Each comparison's own ``(1 + #{|T*| >= |t|}) / (B + 1)``, below ``p_stepdown``.
    """

    critical_value: float
    t: np.ndarray
    p_single_step: np.ndarray
    p_stepdown: np.ndarray
    p_marginal: np.ndarray
    marginal_critical: np.ndarray
    """Each comparison's own ``c_j`` (the same rule on its ``|T*_j|`` alone): the
    symmetric bootstrap-t interval ``estimate +- c_j se`` excludes 0 exactly when
    ``p_marginal < alpha``."""
    n_used: int
    """Replicates used: those where every comparison is defined."""
    maxima: np.ndarray | None = None
    """Every replicate's largest root, sorted: ``c`` is their quantile (its Monte Carlo
    error is read off them)."""


_BLOCK = 1 << 22
"""Roots per block of columns read at once (a count, an order statistic): 32 MiB."""


def exceed(maxima: np.ndarray, t: float) -> int:
    """How many of the sorted ``maxima`` are >= ``t``."""
    return len(maxima) - int(np.searchsorted(maxima, t, side="left"))


def statistic(estimate: float, se: float, null: float = 0.0, tol: float = 0.0) -> float:
    """``(estimate - null) / se``, 0 when the estimate is within ``tol`` of its null (on
    it), and 0 or infinite without spread (``se`` 0 or undefined)."""
    gap = 0.0 if abs(estimate - null) <= tol else estimate - null
    if math.isfinite(se) and se > 0:
        return gap / se
    return 0.0 if gap == 0 else math.copysign(math.inf, gap)


def single_step_p(result: MaxT, estimate: float, se: float, null: float, tol: float,
                  alternative: str = "two-sided") -> float:
    """The single-step p-value of ``estimate`` against ``null`` on max-t's maxima (a
    claim beyond a row's own test: "better" under non-inferiority): below alpha exactly
    when the row's simultaneous interval lies beyond ``null``."""
    stat = tested_statistic(statistic(estimate, se, null, tol), se, tol, alternative)
    return (1 + exceed(result.maxima, stat)) / (result.n_used + 1)


def tested_statistic(t: float, se: float, tol: float, alternative: str = "two-sided"
                     ) -> float:
    """The statistic ``t = (estimate - null) / se`` as max-t tests it: on its sides
    (``|t|``, or ``t`` for "greater", ``-t`` for "less"), less the tie tolerance ``tol /
    se`` -- an estimate within ``tol`` of an end of its interval (``estimate -+ c se``)
    does not exclude the null, as an end within ``tol`` of a boundary is on it
    (:func:`pairboot.stats.hypotheses.snap`).  Without spread (``se`` 0), ``t`` itself (0
    or infinite)."""
    stat = {"greater": t, "less": -t}.get(alternative, abs(t))
    if not (math.isfinite(se) and se > 0) or not math.isfinite(stat):
        return float(stat)
    return float(stat - tol / se)


def max_t(estimates: np.ndarray, se: np.ndarray, replicates: np.ndarray, alpha: float,
          alternative: str = "two-sided", null=None, tol=None, *,
          studentized: bool = False) -> MaxT:
    """Max-t on ``replicates`` (B, m) of m comparisons with ``estimates`` and standard
    errors ``se`` (m,), each tested against its ``null`` (m,; default 0: a margin's
    boundary otherwise; the roots do not move with it), an estimate within ``tol``
    (m,; default: each comparison's :attr:`pairboot.stats.intervals.Bootstrap.tolerance`)
    of it being on it.  Replicates where some
    comparison is undefined (NaN) are left out, as compare() leaves them out.  A
    comparison without spread (``se`` 0: constant differences) has roots 0, and ``t``
    0 or infinite as its estimate is on its null or not.  ``studentized``: the
    replicates are the roots themselves, each resample's ``(theta* - estimate) / se*``
    with its own standard error (infinite where ``se*`` is 0 and ``theta*`` is not the
    estimate: such a root exceeds every statistic; NaN ones are left out).

    ``c`` is the ``(m* + 1)``-th largest maximum, ``m*`` the most maxima that may reach a
    statistic whose single-step p-value is below ``alpha``: ``|t| > c`` exactly when
    ``(1 + #{max >= |t|}) / (B + 1) < alpha``, ties included, ``|t|`` as
    :func:`tested_statistic` gives it (less the tie tolerance).  ``alpha`` is taken to 12
    decimals, as the level is written (a p of exactly 0.05 does not reject at 95%).
    One-sided (``alternative`` "greater" or "less"), the roots and statistics are signed
    (negated for "less") instead of absolute: simultaneous lower (upper) bounds.
    """
    alpha = round(float(alpha), 12)  # (1 - 0.95 is 0.050000000000000044 in binary)
    estimates = np.asarray(estimates, dtype=np.float64)
    se = np.asarray(se, dtype=np.float64)
    replicates = np.asarray(replicates, dtype=np.float64)
    # a comparison's roots side by side in memory (rows of ``roots``): every pass below
    # reads one comparison's at a time
    kept = (~np.isnan(replicates) if studentized else np.isfinite(replicates)).all(axis=1)
    roots = np.ascontiguousarray(replicates[kept].T)
    del replicates
    m, n = roots.shape
    null = np.zeros_like(estimates) if null is None else np.asarray(null, dtype=np.float64)
    if tol is None:  # (each comparison's estimate and replicates, as its Bootstrap's)
        if studentized:
            raise ValueError("studentized roots need the tie tolerances `tol`")
        tol = [tie_tolerance(e, roots[j].min(initial=0.0), roots[j].max(initial=0.0))
               for j, e in enumerate(estimates)]
    t = np.array([statistic(e, s, b, d) for e, s, b, d in zip(estimates, se, null, tol)])
    spread = np.isfinite(se) & (se > 0)
    if not studentized:
        with np.errstate(divide="ignore", invalid="ignore"):
            roots -= estimates[:, None]
            roots /= np.where(spread, se, 1.0)[:, None]
    roots[~spread] = 0.0
    sign = {"greater": 1.0, "less": -1.0}.get(alternative)
    if sign is None:
        np.abs(roots, out=roots)
    elif sign < 0:
        np.negative(roots, out=roots)
    at = np.array([tested_statistic(v, s, d, alternative) for v, s, d in zip(t, se, tol)])

    # the most maxima >= |t| with p < alpha (the product rounded: 0.1 * 140 is not 14)
    most = math.ceil(round(alpha * (n + 1), 9)) - 2

    def critical_of(sorted_values: np.ndarray) -> float:
        return math.inf if most < 0 or n == 0 else float(sorted_values[n - 1 - most])

    maxima = np.sort(roots.max(axis=0)) if m else np.zeros(n)
    critical = critical_of(maxima)
    single = (1 + n - np.searchsorted(maxima, at, side="left")) / (n + 1)
    # each comparison's own p and c: a count and an order statistic of its roots (no
    # sort), a block of comparisons at a time so that the scratch stays small
    marginal = np.empty(m)
    marginal_critical = np.full(m, math.inf)
    step = max(1, _BLOCK // max(n, 1))
    for lo in range(0, m, step):
        block = roots[lo : lo + step]
        marginal[lo : lo + step] = (1 + np.count_nonzero(
            block >= at[lo : lo + step, None], axis=1)) / (n + 1)
        if most >= 0 and n > 0:
            marginal_critical[lo : lo + step] = np.partition(block, n - 1 - most,
                                                             axis=1)[:, n - 1 - most]
    # Romano-Wolf: the largest |t| first, each against the maximum over the comparisons
    # not yet rejected, the p-values made non-decreasing along the way.  The maxima over
    # the comparisons from the k-th on are built from the last one back (one comparison
    # added per step): O(B m), where a maximum taken afresh at every step is O(B m^2)
    order = np.argsort(-at, kind="stable")
    raw = np.empty(m)
    rest = np.full(n, -math.inf)
    for k in range(m - 1, -1, -1):
        j = order[k]
        np.maximum(rest, roots[j], out=rest)
        raw[k] = (1 + np.count_nonzero(rest >= at[j])) / (n + 1)
    stepdown = np.empty(m)
    stepdown[order] = np.maximum.accumulate(raw) if m else raw
    return MaxT(critical, t, single, stepdown, marginal, marginal_critical, n, maxima)


def holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (capped at 1, non-decreasing in p's order).

    >>> holm(np.array([0.01, 0.04, 0.03])).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(p, dtype=np.float64)
    m = len(p)
    out = np.empty(m)
    previous = 0.0
    for k, j in enumerate(np.argsort(p, kind="stable")):
        previous = max(previous, min(1.0, (m - k) * p[j]))
        out[j] = previous
    return out


def bonferroni(p: np.ndarray) -> np.ndarray:
    """``min(1, m p)``.

    >>> bonferroni(np.array([0.01, 0.4])).tolist()
    [0.02, 0.8]
    """
    p = np.asarray(p, dtype=np.float64)
    return np.minimum(1.0, len(p) * p)


def rank_intervals(names, better: np.ndarray) -> dict[str, tuple[int, int]]:
    """Simultaneous confidence sets for ranks (Mogstad, Romano, Shaikh & Wilhelm, 2024):
    ``better[i, j]`` is True when system i is surely better than system j (from all-pairs
    simultaneous decisions); a system's rank lies between 1 + the number of systems
    surely better than it and M - the number surely worse (rank 1 is the best).

    >>> better = np.array([[False, True, True], [False, False, False], [False, False, False]])
    >>> rank_intervals(["a", "b", "c"], better)
    {'a': (1, 1), 'b': (2, 3), 'c': (2, 3)}
    """
    m = len(names)
    return {name: (1 + int(better[:, i].sum()), m - int(better[i, :].sum()))
            for i, name in enumerate(names)}

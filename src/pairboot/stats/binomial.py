"""Exact binomial and hypergeometric tails for the trials of one item, without scipy.

:func:`clopper_pearson` is the exact interval of a success rate from ``c`` successes in
``n`` trials (the rates whose one-sided binomial tail at ``c`` is above ``alpha / 2``,
found by bisection on the tail, which is monotone in the rate); :func:`fisher_exact` is
Fisher's two-sided test of two rates (A's and B's trials of one item), and
:func:`fisher_size` its exact rejection probability when the two rates are equal, given
the item's total successes (the hypergeometric law does not depend on the common rate).
Tails are summed term by term from log-binomials (``math.lgamma``), never as a
difference ``1 - cdf``; tested against scipy (tests/stats/test_binomial.py).
"""

from __future__ import annotations

import math
import operator

import numpy as np

__all__ = ["binomial_tail", "check_count", "clopper_pearson", "fisher_exact", "fisher_size"]

_STEPS = 2_000
"""Bisection steps at most: a float in (0, 1) is reached in under 1,100 halvings."""

_RELATIVE = 1e-7
"""Tables whose probability is within this factor of the observed one count as equally
extreme in Fisher's two-sided p-value (rounding in the log-binomials; scipy's rule)."""


def check_count(value, name: str) -> int:
    """``value`` as a non-negative int, refused unless it is one (a bool or 2.0 is not)."""
    if isinstance(value, bool):
        raise ValueError(f"`{name}` must be a non-negative integer, got {value!r}")
    try:
        value = operator.index(value)
    except TypeError:
        raise ValueError(f"`{name}` must be a non-negative integer, got {value!r}") from None
    if value < 0:
        raise ValueError(f"`{name}` must be a non-negative integer, got {value}")
    return value


def _counts(successes, n, name: str = "successes") -> tuple[int, int]:
    successes, n = check_count(successes, name), check_count(n, "n")
    if n == 0:
        raise ValueError("`n` must be a positive integer, got 0")
    if successes > n:
        raise ValueError(f"`{name}` must be at most `n`={n}, got {successes}")
    return successes, n


def _log_choose(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def binomial_tail(lo: int, hi: int, n: int, p: float) -> float:
    """``P(lo <= X <= hi)`` for ``X ~ Binomial(n, p)``, its terms summed (so a small
    upper tail keeps its relative precision)."""
    lo, hi = max(lo, 0), min(hi, n)
    if lo > hi:
        return 0.0
    if p <= 0.0:
        return 1.0 if lo == 0 else 0.0
    if p >= 1.0:
        return 1.0 if hi == n else 0.0
    lp, lq = math.log(p), math.log1p(-p)
    terms = [_log_choose(n, i) + i * lp + (n - i) * lq for i in range(lo, hi + 1)]
    top = max(terms)
    return min(1.0, math.exp(top) * math.fsum(math.exp(t - top) for t in terms))


def _root(tail, target: float) -> float:
    """The rate in (0, 1) where ``tail`` (increasing in the rate) crosses ``target``,
    bisected until the two ends are adjacent floats (bounded)."""
    lo, hi = 0.0, 1.0
    for _ in range(_STEPS):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if tail(mid) < target:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def clopper_pearson(successes: int, n: int,
                    confidence_level: float = 0.95) -> tuple[float, float]:
    """The exact (Clopper-Pearson) interval ``(low, high)`` of a success rate: ``low``
    solves ``P(X >= c) = alpha / 2`` and ``high`` ``P(X <= c) = alpha / 2`` for ``X ~
    Binomial(n, rate)`` (0 at ``c = 0``, 1 at ``c = n``; closed forms at the ends), as
    ``scipy.stats.binomtest(c, n).proportion_ci(method="exact")``.  It covers at least
    the level at every rate (Wilson's may cover less at a few trials).

    >>> low, high = clopper_pearson(0, 5)
    >>> low, round(high, 4)
    (0.0, 0.5218)
    """
    c, n = _counts(successes, n)
    try:
        level = float(confidence_level)
    except (TypeError, ValueError):
        raise ValueError("`confidence_level` must be a number between 0 and 1, "
                         f"got {confidence_level!r}") from None
    if not 0.0 < level < 1.0:
        raise ValueError(f"`confidence_level` must be between 0 and 1, got {level}")
    half = (1.0 - level) / 2.0
    if c == 0:
        low = 0.0
    elif c == n:
        low = half ** (1.0 / n)
    else:
        low = _root(lambda p: binomial_tail(c, n, n, p), half)
    if c == n:
        high = 1.0
    elif c == 0:
        high = -math.expm1(math.log(half) / n)  # 1 - half ** (1 / n), without cancelling
    else:
        high = _root(lambda p: -binomial_tail(0, c, n, p), -half)
    return low, high


def _hypergeometric(total: int, na: int, nb: int) -> tuple[np.ndarray, np.ndarray]:
    """A's successes ``x`` given ``total`` successes among ``na + nb`` trials, and their
    probabilities when A and B have the same rate."""
    x = np.arange(max(0, total - nb), min(total, na) + 1)
    log_p = np.array([_log_choose(na, int(i)) + _log_choose(nb, total - int(i))
                      for i in x]) - _log_choose(na + nb, total)
    return x, np.exp(log_p)


def _two_sided(pmf: np.ndarray) -> np.ndarray:
    """Every table's two-sided p-value: the probability of the tables no more likely."""
    at_most = pmf[None, :] <= pmf[:, None] * (1.0 + _RELATIVE)
    return np.minimum(1.0, (at_most * pmf[None, :]).sum(axis=1))


def fisher_exact(successes_a: int, n_a: int, successes_b: int, n_b: int) -> float:
    """Fisher's exact two-sided p-value that A's and B's success rates are equal, from
    ``successes_a`` of ``n_a`` and ``successes_b`` of ``n_b`` trials, as
    ``scipy.stats.fisher_exact([[ca, na - ca], [cb, nb - cb]])``.

    >>> round(fisher_exact(0, 5, 5, 5), 6)
    0.007937
    """
    ca, na = _counts(successes_a, n_a, "successes_a")
    cb, nb = _counts(successes_b, n_b, "successes_b")
    x, pmf = _hypergeometric(ca + cb, na, nb)
    return float(_two_sided(pmf)[ca - x[0]])


def fisher_size(total: int, n_a: int, n_b: int, alpha: float) -> float:
    """The chance that :func:`fisher_exact` is at most ``alpha`` when the two rates are
    equal, given ``total`` successes among the ``n_a + n_b`` trials: at most ``alpha``,
    and 0 when no split of ``total`` can reach it (all trials succeeded, or none)."""
    na, nb = check_count(n_a, "n_a"), check_count(n_b, "n_b")
    total = check_count(total, "total")
    if na == 0 or nb == 0 or total > na + nb:
        raise ValueError(f"`total` must be at most `n_a + n_b`={na + nb} with both "
                         f"positive, got {total} of {na} + {nb}")
    _, pmf = _hypergeometric(total, na, nb)
    return float(pmf[_two_sided(pmf) <= alpha].sum())

"""Unbiased per-item estimators of k repeated trials, from an item's n trials and c
successes (0/1 outcomes), vectorised over items.

Each is the mean, over all ``C(n, k)`` subsets of k of the item's n trials, of an
event on the subset, hence unbiased for that event's probability on k fresh trials
(the U-statistic of the n trials):

- ``pass_at_k``: some trial of the k succeeds, ``1 - C(n - c, k) / C(n, k)`` (Chen et
  al. 2021, "Evaluating Large Language Models Trained on Code");
- ``pass_hat_k``: all k succeed, ``C(c, k) / C(n, k)`` (Yao et al. 2024, tau-bench's
  pass^k);
- ``maj_at_k``: a strict majority of the k succeeds, the hypergeometric tail
  ``P(X > k / 2)``, ``X`` the successes among k trials drawn without replacement.  For
  an even k a tie (k / 2 successes) counts as a failure: a majority vote that is split
  has not chosen the right answer, so maj@2 is pass^2, and maj@k never exceeds the
  chance that more than half the k trials are right.

Products of ratios and log-factorial differences, never the binomials themselves, so
nothing overflows at large n; exact in value (to rounding) for ``1 <= k <= n``.  Raising
``c / n`` to the power k instead is biased (Jensen) and is never used.  Pure functions:
the caller checks the counts (:func:`check_counts` says what is wrong, and where).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["pass_at_k", "pass_hat_k", "maj_at_k", "check_counts", "ESTIMATORS"]


def check_counts(n, c, k: int) -> tuple[int, str] | None:
    """The first item whose counts do not allow the estimate, and why, or None: ``k``
    must be a whole number >= 1 (item -1 then), every ``n >= k`` and ``0 <= c <= n``."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        return -1, f"k must be a whole number >= 1, got {k!r}"
    n, c = np.asarray(n), np.asarray(c)
    for bad in (n < 1, n < k, (c < 0) | (c > n)):
        if bad.any():
            i = int(np.argmax(bad))
            ni, ci = int(n[i]), int(c[i])
            return i, ("has no trial" if ni < 1
                       else f"has {ni} trial(s), fewer than k = {k}" if ni < k
                       else f"has {ci} successes in {ni} trials")
    return None


def _counts(n, c, k: int) -> tuple[np.ndarray, np.ndarray]:
    problem = check_counts(n, c, k)
    if problem is not None:
        item, why = problem
        raise ValueError(why if item < 0 else f"item {item} {why}")
    return np.asarray(n, dtype=np.float64), np.asarray(c, dtype=np.float64)


def _none_of(n: np.ndarray, m: np.ndarray, k: int) -> np.ndarray:
    """``C(m, k) / C(n, k)``, the chance that k of n trials drawn without replacement
    all fall among m of them: ``prod_j (m - j) / (n - j)``, 0 once ``m < k``."""
    out = np.ones(np.broadcast(n, m).shape)
    for j in range(k):
        out *= np.maximum(m - j, 0.0) / (n - j)
    return out


def pass_at_k(n, c, k: int) -> np.ndarray:
    """Unbiased pass@k of items with ``n`` trials and ``c`` successes each.

    >>> pass_at_k([4, 4, 10], [0, 1, 3], 2).round(6).tolist()
    [0.0, 0.5, 0.533333]
    """
    n, c = _counts(n, c, k)
    return 1.0 - _none_of(n, n - c, k)


def pass_hat_k(n, c, k: int) -> np.ndarray:
    """Unbiased pass^k (every one of k trials succeeds) of items with ``n`` trials and
    ``c`` successes each.

    >>> pass_hat_k([4, 4, 10], [4, 3, 3], 2).round(6).tolist()
    [1.0, 0.5, 0.066667]
    """
    n, c = _counts(n, c, k)
    return _none_of(n, c, k)


def _log_factorials(top: int) -> np.ndarray:
    """``log(m!)`` for ``m = 0 ... top`` (math.lgamma: a few ulps each)."""
    return np.array([math.lgamma(m + 1.0) for m in range(top + 1)])


def maj_at_k(n, c, k: int) -> np.ndarray:
    """Unbiased maj@k, the chance that a strict majority of k trials drawn without
    replacement from an item's ``n`` succeeds (an even k's tie is a failure).

    The hypergeometric terms ``C(c, x) C(n - c, k - x) / C(n, k)`` for ``x > k / 2``,
    each from log-factorial differences (exponents <= 0: no overflow).

    >>> maj_at_k([4, 4, 5], [4, 2, 3], 3).round(6).tolist()
    [1.0, 0.5, 0.7]
    >>> maj_at_k([4], [2], 2).round(12).tolist()  # a 1-1 tie fails: maj@2 is pass^2
    [0.166666666667]
    """
    n, c = _counts(n, c, k)
    ni, ci = n.astype(np.int64), c.astype(np.int64)
    lf = _log_factorials(int(ni.max(initial=0)))
    log_all = lf[ni] - lf[k] - lf[ni - k]
    out = np.zeros(n.shape)
    for x in range(k // 2 + 1, k + 1):
        ok = (ci >= x) & (ni - ci >= k - x)
        s, f = np.where(ok, ci, x), np.where(ok, ni - ci, k - x)  # (valid placeholders)
        term = (lf[s] - lf[x] - lf[s - x]) + (lf[f] - lf[k - x] - lf[f - k + x]) - log_all
        out += np.where(ok, np.exp(np.minimum(term, 0.0)), 0.0)
    # every possible draw a majority (fewest successes max(0, k - (n - c)) > k / 2): 1
    # exactly, not a sum of rounded terms
    return np.where(2 * np.maximum(0, k - (ni - ci)) > k, 1.0, np.minimum(out, 1.0))


ESTIMATORS = {"pass@": pass_at_k, "pass^": pass_hat_k, "maj@": maj_at_k}
"""The estimators by the prefix of their names (``pass^4`` is ``pass_hat_k(n, c, 4)``)."""

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

__all__ = ["pass_at_k", "pass_hat_k", "maj_at_k", "check_counts", "ESTIMATORS",
           "estimate_variance", "KERNELS"]


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
    lf = _log_factorials(max(int(ni.max(initial=0)), k))  # (k's too: no item at all)
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


KERNELS = {"pass@": lambda x, k: x >= 1, "pass^": lambda x, k: x == k,
           "maj@": lambda x, k: 2 * x > k}
"""Each estimator's event on k trials of which ``x`` succeed (its kernel ``h(x)``)."""


def estimate_variance(kind: str, n, c, k: int) -> np.ndarray:
    """The unbiased estimate of the variance of an item's estimate (``ESTIMATORS[kind]``
    of ``n`` trials, ``c`` successes) over redraws of its trials, the item fixed; it
    needs ``n >= 2 k`` (the caller checks).

    The estimate ``f(c)`` has mean ``g(p) = sum_x h(x) C(k, x) p^x (1 - p)^(k - x)`` and
    variance ``E f(c)^2 - g(p)^2``: ``f(c)^2`` is unbiased for the first term and the
    U-statistic of ``h(S) h(S')`` over disjoint k-subsets ``S, S'`` of the trials for
    ``g(p)^2``, which is ``sum_j B_j P(j)`` with ``P(j)`` the hypergeometric chance of
    j successes among 2k of the n trials and ``B_j = sum_{x + y = j} h(x) h(y) C(k, x)
    C(k, y) / C(2k, j)`` (the chance that 2k trials with j successes split into two
    halves of x and y).  ``c`` is complete and sufficient for a binomial ``p``, so this
    is the only unbiased estimate; a polynomial of degree 2k in ``p`` has none with
    fewer than 2k trials.  k = 1 gives ``c (n - c) / (n^2 (n - 1))``, ``s^2 / n``.

    >>> estimate_variance("pass^", [4, 10], [2, 7], 1).round(6).tolist()
    [0.083333, 0.023333]
    """
    n, c = _counts(n, c, 2 * k)
    est = ESTIMATORS[kind](n, c, k)
    ni, ci = n.astype(np.int64), c.astype(np.int64)
    h = [bool(KERNELS[kind](x, k)) for x in range(k + 1)]
    lf = _log_factorials(max(int(ni.max(initial=0)), 2 * k))
    log_all = lf[ni] - lf[2 * k] - lf[ni - 2 * k]
    square = np.zeros(n.shape)
    for j in range(2 * k + 1):
        b = sum(math.comb(k, x) * math.comb(k, j - x) for x in range(max(0, j - k),
                min(j, k) + 1) if h[x] and h[j - x]) / math.comb(2 * k, j)
        if b == 0:
            continue
        ok = (ci >= j) & (ni - ci >= 2 * k - j)
        s, f = np.where(ok, ci, j), np.where(ok, ni - ci, 2 * k - j)
        term = ((lf[s] - lf[j] - lf[s - j]) + (lf[f] - lf[2 * k - j] - lf[f - 2 * k + j])
                - log_all)
        square += np.where(ok, b * np.exp(np.minimum(term, 0.0)), 0.0)
    return np.maximum(est * est - square, 0.0)  # (below 0 by rounding only)

"""False discovery rates, false coverage rates and partial conjunctions of p-values.

Where :mod:`pairboot.stats.multiple` controls the chance of any false rejection, this
module controls rates that grow with the family: ``benjamini_hochberg`` and
``benjamini_yekutieli`` adjust p-values for the false discovery rate, ``fcr_alpha`` gives
the level of the intervals of the selected comparisons (the false coverage rate), and
``partial_conjunction`` / ``partial_conjunction_count`` say on how many of K test sets
(or metrics) a system is better.  Pure functions of numpy arrays: nothing here resamples.

NaN p-values: the FDR adjustments leave them NaN and count only the finite ones in m
(a comparison that could not be tested is not part of the family); the partial
conjunction reads a NaN as 1 (no evidence), as its K sets are fixed in advance.
"""

from __future__ import annotations

import operator

import numpy as np

COMBINATIONS = ("simes", "bonferroni")
"""How ``partial_conjunction`` combines the K - u + 1 largest p-values: Simes' (valid
for independent or positively dependent (PRDS) p-values) or Bonferroni's (any
dependence)."""


def _p_values(p) -> np.ndarray:
    """``p`` as a 1-D float array, refused unless every non-NaN value is in [0, 1]."""
    p = np.asarray(p, dtype=np.float64)
    if p.ndim != 1:
        raise ValueError(f"`p` must be 1-D (one p-value per comparison), got shape {p.shape}")
    bad = ~np.isnan(p) & ~((p >= 0.0) & (p <= 1.0))
    if bad.any():
        raise ValueError(f"`p` must be between 0 and 1 (or NaN), got {p[bad][0]}")
    return p


def _integer(value, name: str) -> int:
    """``value`` as an int, refused unless it is one (a bool or 2.0 is not)."""
    if isinstance(value, bool):
        raise ValueError(f"`{name}` must be an integer, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise ValueError(f"`{name}` must be an integer, got {value!r}") from None


def _step_up(p, factor_of_m) -> np.ndarray:
    """The step-up adjustment ``min_{j >= i} factor(m) m p_(j) / j`` (capped at 1) of
    the finite p's, put back in place; NaN stays NaN."""
    p = _p_values(p)
    out = np.full(p.shape, np.nan)
    finite = np.flatnonzero(~np.isnan(p))
    m = len(finite)
    if m == 0:
        return out
    order = finite[np.argsort(p[finite], kind="stable")]
    # p / (i / m / factor), as statsmodels divides, so that the two agree to the last bits
    raw = p[order] / (np.arange(1, m + 1) / m / factor_of_m(m))
    out[order] = np.minimum(1.0, np.minimum.accumulate(raw[::-1])[::-1])
    return out


def benjamini_hochberg(p) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (q-values): ``q_(i) = min_{j >= i} m p_(j) / j``,
    capped at 1; rejecting ``q < alpha`` controls the false discovery rate at
    ``alpha m0 / m`` for independent or positively dependent (PRDS) p-values.

    NaN p-values stay NaN and are left out of the family: m is the number of finite
    p-values.  Ties get equal q-values.

    >>> benjamini_hochberg(np.array([0.01, 0.04, 0.03, np.nan, 0.005])).tolist()
    [0.02, 0.04, 0.04, nan, 0.02]
    """
    return _step_up(p, lambda m: 1.0)


def benjamini_yekutieli(p) -> np.ndarray:
    """Benjamini-Yekutieli adjusted p-values: Benjamini-Hochberg's times the harmonic sum
    ``c(m) = 1 + 1/2 + ... + 1/m`` (capped at 1), which control the false discovery rate
    under any dependence among the p-values.  NaN p-values as in
    :func:`benjamini_hochberg`.

    >>> benjamini_yekutieli(np.array([0.01, 0.02])).round(12).tolist()  # c(2) = 1.5
    [0.03, 0.03]
    """
    return _step_up(p, lambda m: float(np.sum(1.0 / np.arange(1, m + 1))))


def fcr_alpha(n_selected: int, m: int, alpha: float) -> float:
    """The miscoverage ``R alpha / m`` of the marginal intervals of R selected comparisons
    out of m (Benjamini & Yekutieli, 2005): the intervals at level ``1 - R alpha / m``
    have a false coverage rate (the expected share of the selected intervals that miss
    their parameter) of at most ``alpha`` when the R are selected by Benjamini-Hochberg
    at ``alpha`` on independent or PRDS statistics.

    With nothing selected there is nothing to cover: R is taken to be at least 1, so
    the answer is ``alpha / m``, the level of the first comparison one would select.

    >>> fcr_alpha(5, 20, 0.1), fcr_alpha(0, 20, 0.1)
    (0.025, 0.005)
    """
    m_int = _integer(m, "m")
    if m_int < 1:
        raise ValueError(f"`m` must be a positive integer, got {m}")
    r = _integer(n_selected, "n_selected")
    if not 0 <= r <= m_int:
        raise ValueError(f"`n_selected` must be between 0 and `m`={m_int}, got {r}")
    alpha = float(alpha)
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"`alpha` must be between 0 and 1, got {alpha}")
    return max(r, 1) * alpha / m_int


def fdr_family(p, alpha: float, correction: str) -> tuple[np.ndarray, float]:
    """A family's false-discovery-rate decisions: ``(q, miscoverage)``, the q-values of
    ``correction`` ("bh" or "by") and the miscoverage of the intervals of its
    discoveries (:func:`fcr_alpha` with BY's factor for "by", so that a discovery's
    interval excludes its null and a non-discovery's does not).  m is the number of
    finite p-values: a comparison that could not be tested is not in the family.
    ``alpha`` is taken to 12 decimals, as the level is written."""
    adjust = benjamini_hochberg if correction == "bh" else benjamini_yekutieli
    q = adjust(p)
    alpha = round(float(alpha), 12)
    m = int(np.count_nonzero(~np.isnan(q)))
    if m == 0:
        return q, alpha
    selected = int(np.count_nonzero(q < alpha))
    factor = 1.0 if correction == "bh" else float(np.sum(1.0 / np.arange(1, m + 1)))
    return q, fcr_alpha(selected, m, alpha / factor)


def _check_combination(combination) -> None:
    if combination not in COMBINATIONS:
        raise ValueError(f"`combination` must be one of {', '.join(map(repr, COMBINATIONS))}, "
                         f"got {combination!r}")


def _conjunctions(p, combination: str) -> np.ndarray:
    """``p^{u/K}`` for u = 1..K (NaN read as 1), from the sorted p-values: the Simes or
    Bonferroni combination of the K - u + 1 largest."""
    _check_combination(combination)
    if len(p) == 0:
        return np.empty(0)
    s = np.sort(np.where(np.isnan(p), 1.0, p))
    k = len(s)
    size = k - np.arange(k)  # K - u + 1 for u = 1..K
    if combination == "bonferroni":
        return np.minimum(1.0, size * s)
    # Simes on the K - u + 1 largest, s[u-1:] (one row at a time: O(K) memory for any K)
    return np.array([min(1.0, float((s[u - 1:] * (k - u + 1) / np.arange(1, k - u + 2)).min()))
                     for u in range(1, k + 1)])


def partial_conjunction(p, u: int, *, combination: str = "simes") -> float:
    """Benjamini & Heller's (2008) p-value for "fewer than u of the K nulls are false",
    from K one-sided p-values: the combination of the K - u + 1 largest, so that a small
    value says that at least u of the K effects are real.

    Simes (``combination="simes"``): ``min_{i=1..K-u+1} (K-u+1) / i * p_(u-1+i)``, valid
    for independent or PRDS p-values; Bonferroni: ``(K-u+1) p_(u)``, valid under any
    dependence.  Capped at 1.  u = 1 is the global test (Simes': ``min_i K p_(i) / i``),
    u = K is the largest p.  A NaN p-value counts as 1: no evidence.

    >>> p = np.array([0.001, 0.01, 0.02, 0.5])
    >>> partial_conjunction(p, 2), partial_conjunction(p, 2, combination="bonferroni")
    (0.03, 0.03)
    >>> partial_conjunction(p, 4)
    0.5
    """
    p = _p_values(p)
    k = len(p)
    u = _integer(u, "u")
    if not 1 <= u <= k:
        raise ValueError(f"`u` must be between 1 and K={k} (the number of p-values), "
                         f"got {u}")
    return float(_conjunctions(p, combination)[u - 1])


def partial_conjunction_count(p, alpha: float, *,
                              combination: str = "simes") -> tuple[int, np.ndarray]:
    """How many of the K effects are surely real: the largest ``u`` whose monotone partial
    conjunction p-value is below ``alpha``, with those p-values (length K).

    The nulls "fewer than u are false" are nested (each implies the next), so they are
    tested in order u = 1, 2, ... with ``pmono_u = max_{v <= u} p^{v/K}`` until the first
    that is not rejected: the chance that the count exceeds the true number of real
    effects is at most ``alpha``.  ``u_star`` is 0 when nothing is rejected.  A p-value
    rejects when ``pmono < alpha``, ``alpha`` taken to 12 decimals as the level is written
    (a p of exactly 0.05 does not reject at 95%).  ``combination`` as in
    :func:`partial_conjunction`.

    >>> u_star, pmono = partial_conjunction_count(np.array([0.001, 0.01, 0.02, 0.5]), 0.05)
    >>> u_star, pmono.tolist()
    (3, [0.004, 0.03, 0.04, 0.5])
    """
    p = _p_values(p)
    alpha = round(float(alpha), 12)  # (1 - 0.95 is 0.050000000000000044 in binary)
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"`alpha` must be between 0 and 1, got {alpha}")
    pmono = np.maximum.accumulate(_conjunctions(p, combination))
    return int(np.count_nonzero(pmono < alpha)), pmono


"""The power of a t test: the noncentral t distribution's tails, with numpy alone.

``T' = (Z + lam) / sqrt(V / df)`` with ``Z`` standard normal and ``V`` chi-square with
``df`` degrees of freedom, so ``P(T' > c) = E[Phi(lam - c X / sqrt(df))]`` over ``X =
sqrt(V)``, which has the chi distribution.  The expectation is a smooth one-dimensional
integral: Gauss-Legendre quadrature on 12 of the chi's units either side of its mode
(the mass beyond is below 1e-30), cut where ``Phi`` turns (a tiny level at few degrees
of freedom), the density taken relative to its mode and normalised on the nodes
themselves (no gamma function, and no digit lost at large ``df``).  Tested against
``scipy.stats.nct`` to 1e-10 and, through :func:`t_power`, against statsmodels'
``TTestPower`` (tests/planning/test_sizes.py).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from pairboot.stats.intervals import normal_quantile
from pairboot.stats.tdist import t_quantile

__all__ = ["nct_sf", "normal_cdf", "t_critical", "t_power"]


@functools.cache
def _rule() -> tuple[np.ndarray, np.ndarray]:
    """The 600-node Gauss-Legendre rule on [-1, 1], built on first use (not at import)."""
    return np.polynomial.legendre.leggauss(600)


_ERFC = np.vectorize(math.erfc, otypes=[float])
_SPAN = 12.0
"""How many of the chi distribution's units (its sd is about 1/sqrt(2)) either side of
its mode the integral covers."""


def normal_cdf(z):
    """The standard normal distribution function, elementwise (float or array)."""
    if np.ndim(z) == 0:
        return 0.5 * math.erfc(-float(z) / math.sqrt(2.0))
    return 0.5 * _ERFC(-np.asarray(z, dtype=np.float64) / math.sqrt(2.0))


def _log_density(u: np.ndarray, df: float, mode: float) -> np.ndarray:
    """The chi density's log at ``x = mode + u``, up to a constant: relative to the
    mode, ``(df - 1) log1p(u / mode) - u (u + 2 mode) / 2``, so that no digit is lost to
    the size of ``(df - 1) log x`` at large ``df`` (``x`` itself is never formed)."""
    if mode > 0.0:
        with np.errstate(divide="ignore"):  # (u = -mode: log1p(-1), a density of 0)
            return (df - 1.0) * np.log1p(u / mode) - u * (u + 2.0 * mode) / 2.0
    return (df - 1.0) * np.log(u) - u * u / 2.0 if df != 1.0 else -u * u / 2.0


def nct_sf(c: float, df: float, lam: float) -> float:
    """``P(T' > c)`` for the noncentral t with ``df`` degrees of freedom (a positive
    real; infinite: the normal) and noncentrality ``lam``.

    The integrand ``Phi(lam - c x / sqrt(df))`` turns from 1 to 0 around ``x* = lam
    sqrt(df) / c`` over a few ``sqrt(df) / c``: where that is narrow (a large critical
    value at few degrees of freedom: a tiny level), the span is cut there, and each
    piece has its own 600 nodes; the weights are normalised over the pieces."""
    if math.isinf(df):
        return normal_cdf(lam - c)
    mode, root = math.sqrt(max(df - 1.0, 0.0)), math.sqrt(df)
    cuts = [max(-mode, -_SPAN), _SPAN]  # (u = x - mode)
    if c != 0:
        centre, width = lam * root / c - mode, 40.0 * root / abs(c)
        cuts += [v for v in (centre - width, centre + width) if cuts[0] < v < cuts[1]]
    cuts.sort()
    nodes, weights = _rule()
    u = np.concatenate([lo + (hi - lo) * (nodes + 1.0) / 2.0
                        for lo, hi in zip(cuts, cuts[1:])])
    w = np.concatenate([weights * (hi - lo) / 2.0 for lo, hi in zip(cuts, cuts[1:])])
    log_f = _log_density(u, df, mode)
    w = w * np.exp(log_f - log_f.max())
    return float(w @ normal_cdf(lam - c * (mode / root) - c * u / root) / w.sum())


def t_critical(p: float, df: float) -> float:
    """Student's t ``p`` quantile (``p >= 1/2``) with ``df`` degrees of freedom
    (:func:`pairboot.stats.tdist.t_quantile`: its expansion in ``1 / df`` at a very
    large ``df``)."""
    return t_quantile(p, df)


def t_power(lam: float, df: float, alpha: float, two_sided: bool) -> float:
    """The power of a t test at level ``alpha`` when ``T`` is noncentral t with ``df``
    degrees of freedom and noncentrality ``lam`` (the true shift over its standard
    error, positive on the side tested): one-sided, ``P(T > t_{1-alpha})``; two-sided,
    ``P(T > t_{1-alpha/2}) + P(T < -t_{1-alpha/2})`` (statsmodels' ``ttest_power``,
    both tails).  ``df`` infinite: the z test."""
    a = alpha / 2.0 if two_sided else alpha
    c = -normal_quantile(a) if math.isinf(df) else t_critical(1.0 - a, df)
    out = nct_sf(c, df, lam)
    if two_sided:  # P(T < -c) = P(-T > c), -T noncentral with -lam
        out += nct_sf(c, df, -lam)
    return min(1.0, out)

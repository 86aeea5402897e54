"""Student's t and the chi-square quantile with ``math`` alone (scipy is not a dependency).

:func:`t_sf` and :func:`t_quantile` from the regularised incomplete beta function (its
continued fraction, Lentz's method) up to :data:`EXPANDED_DF` degrees of freedom, and
beyond it from the quantile's expansion in ``1 / df`` (Abramowitz and Stegun 26.7.5),
where the continued fraction no longer converges in its bounded steps and the log-gamma
differences lose digits (at 10^12 degrees of freedom the 0.975 quantile was 1.75);
:func:`chi2_quantile` from the regularised incomplete gamma functions.  Tested against
``scipy.stats`` to 1e-10 relative (tests/comparisons/runs/test_runs.py,
tests/stats/test_tdist.py).
"""

from __future__ import annotations

import math

from pairboot.stats.intervals import normal_quantile

__all__ = ["EXPANDED_DF", "chi2_quantile", "t_quantile", "t_sf"]

EXPANDED_DF = 1e4
"""Above this many degrees of freedom the t's quantile and tail are its expansion in
``1 / df`` to ``1 / df^4`` (:func:`_expanded_quantile`): within 1e-13 of scipy there,
where the continued fraction is within 1e-11 and loses digits as ``df`` grows."""


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (Lentz's method)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c if abs(1.0 + aa / c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c if abs(1.0 + aa / c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function ``I_x(a, b)``."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                     + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def _expanded_quantile(z: float, df: float) -> float:
    """The t quantile whose normal quantile is ``z``, to ``1 / df^4`` (Abramowitz and
    Stegun 26.7.5; the error is of order ``z^11 / df^5``)."""
    z2 = z * z
    g1 = (z2 + 1.0) * z / 4.0
    g2 = ((5.0 * z2 + 16.0) * z2 + 3.0) * z / 96.0
    g3 = (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) * z / 384.0
    g4 = ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) * z / 92160.0
    return z + (g1 + (g2 + (g3 + g4 / df) / df) / df) / df


def _expanded_sf(t: float, df: float) -> float:
    """``P(T > t)`` beyond :data:`EXPANDED_DF`: the normal tail at the ``z`` whose
    expanded quantile is ``t`` (a fixed point: ``z = t - (expansion(z) - z)``, a
    contraction by about ``3 z^2 / (4 df)``, so a few steps; at most 50).  Past ``|t| =
    df^(1/4)`` (10 at 10^4 degrees of freedom, where the tail is about 1e-23) the
    expansion's error grows as ``t^11 / df^5``, and the continued fraction answers."""
    z = t
    for _ in range(50):
        step = t - (_expanded_quantile(z, df) - z)
        if step == z:
            break
        z = step
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def t_sf(t: float, df: float) -> float:
    """``P(T > t)`` for Student's t with ``df`` (real, > 0) degrees of freedom."""
    if math.isinf(df):
        return 0.5 * math.erfc(t / math.sqrt(2.0))
    if df > EXPANDED_DF and abs(t) < df ** 0.25:
        return _expanded_sf(t, df)
    tail = 0.5 * _incomplete_beta(df / 2.0, 0.5, df / (df + t * t))
    return tail if t >= 0 else 1.0 - tail


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t (bisection on :func:`t_sf`, to 1e-12)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    if p == 0.5:
        return 0.0
    if df > EXPANDED_DF:
        z = normal_quantile(p)
        if abs(z) < df ** 0.25:  # (beyond, the bisection on the continued fraction)
            return _expanded_quantile(z, df)
    # bisect on the upper tail ``P(T > t) = tail``: ``1 - p`` is exact for p >= 0.5, and
    # below 0.5 the tail is p itself (``1 - (1 - p)`` would lose digits for small p)
    if p < 0.5:
        sign, tail = -1.0, p
    else:
        sign, tail = 1.0, 1.0 - p
    lo, hi = 0.0, 1.0
    while t_sf(hi, df) > tail:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_sf(mid, df) > tail:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return sign * 0.5 * (lo + hi)


def _gamma_tails(a: float, x: float) -> tuple[float, float]:
    """The regularised incomplete gamma functions ``(P(a, x), Q(a, x))``, each computed
    directly (series below ``a + 1``, Lentz's continued fraction for ``Q`` above) so that
    neither tail loses digits to ``1 - other``."""
    if x <= 0.0:
        return 0.0, 1.0
    front = math.exp(a * math.log(x) - x - math.lgamma(a))
    if x < a + 1.0:
        term = total = 1.0 / a
        for k in range(1, 1000):
            term *= x / (a + k)
            total += term
            if abs(term) < abs(total) * 1e-16:
                break
        lower = front * total
        return lower, 1.0 - lower
    tiny = 1e-300
    b = x + 1.0 - a
    c, d = 1.0 / tiny, 1.0 / b
    h = d
    for k in range(1, 1000):
        an = -k * (k - a)
        b += 2.0
        d = an * d + b
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = b + an / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        if abs(d * c - 1.0) < 1e-16:
            break
    upper = front * h
    return 1.0 - upper, upper


def chi2_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of the chi-square distribution, to 1e-12 relative: Newton's
    method from the Wilson-Hilferty guess, on the nearer tail, kept inside a bracket that
    halves whenever a step would leave it (a few steps; p-values bisect over it)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), got {p}")
    a = df / 2.0
    upper = p > 0.5  # solve on the smaller tail probability, as t_quantile does
    target = 1.0 - p if upper else p

    def excess(x: float) -> float:  # tail(x) - target, increasing in x
        lower_tail, upper_tail = _gamma_tails(a, x / 2.0)
        return target - upper_tail if upper else lower_tail - target

    log_norm = -a * math.log(2.0) - math.lgamma(a)
    z = -normal_quantile(target) if upper else normal_quantile(target)
    h = 2.0 / (9.0 * df)
    x = df * max(1e-3, 1.0 - h + z * math.sqrt(h)) ** 3
    lo, hi = 0.0, math.inf
    for _ in range(200):
        e = excess(x)
        if e == 0.0:
            return x
        if e < 0.0:
            lo = x
        else:
            hi = x
        density = math.exp(log_norm + (a - 1.0) * math.log(x) - x / 2.0) if x > 0 else 0.0
        step = x - e / density if density > 0 else math.nan
        if not lo < step < hi:  # outside the bracket: bisect (or widen it)
            step = 0.5 * (lo + hi) if math.isfinite(hi) else 2.0 * x
        if abs(step - x) <= 1e-13 * x:
            return step
        x = step
    return x

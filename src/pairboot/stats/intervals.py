"""Confidence intervals from a bootstrap distribution, and the p-values that invert them.

Every method is a function of the level through ``alpha = 1 - level`` alone, with nested
intervals (a higher level never gives a shorter interval).  The p-value is the smallest
``alpha`` at which the ``1 - alpha`` interval of the *same* method excludes 0, found by
bisection on that very function (in the bracket a closed form per method gives), so
``p < 1 - level`` exactly when the interval at ``level`` excludes 0.  A null value (0, or a
margin's boundary) is excluded only by an end beyond it by more than the bootstrap's
:attr:`Bootstrap.tolerance`: an end or a replicate that differs from it by rounding alone
is on it, and a tie goes to H0 (:func:`pairboot.stats.hypotheses.tie_tolerance`).  A
p-value of 0 means that no resample fell on the other side of 0: report it as
``p < 1 / n_resamples``.

Quantiles of the bootstrap distribution use linear interpolation between order statistics
(numpy's default ``np.quantile``, as ``scipy.stats.bootstrap``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pairboot.stats import normal
from pairboot.stats.hypotheses import less_tie, tie_tolerance


def normal_quantile(p: float) -> float:
    """The standard normal quantile, with -inf and inf at 0 and 1."""
    if p <= 0.0:
        return -math.inf
    if p >= 1.0:
        return math.inf
    return normal.inv_cdf(p)


def _cdf(z: float) -> float:
    return normal.cdf(z)


def quantile_sorted(sorted_values: np.ndarray, p: float) -> float:
    """np.quantile's linear interpolation on an already sorted array, for one ``p``.

    Next to an infinite value (a studentized replicate whose standard error is 0) the
    interpolation is that value for any positive weight on it: ``-inf`` up to the next
    order statistic, ``inf`` from the previous one (NaN between ``-inf`` and ``inf``).
    """
    n = len(sorted_values)
    if n == 0 or math.isnan(p):
        return math.nan
    h = min(max(p, 0.0), 1.0) * (n - 1)
    i = int(math.floor(h))
    if i >= n - 1:
        return float(sorted_values[-1])
    lo, hi = float(sorted_values[i]), float(sorted_values[i + 1])
    if hi == lo or h == i:
        return lo
    if math.isinf(lo) or math.isinf(hi):
        return math.nan if math.isinf(lo) and math.isinf(hi) else (
            lo if math.isinf(lo) else hi)
    return lo + (h - i) * (hi - lo)


def bca_constants(theta: np.ndarray, estimate: float, influence: list[np.ndarray]):
    """BCa's bias correction ``z0`` and acceleration ``a`` (:func:`acceleration`).

    ``z0`` uses the mid-rank proportion of replicates below the estimate (scipy's
    convention, robust to ties).  Either is NaN when undefined (constant data).
    """
    r = len(theta)
    if r == 0 or theta.min() == theta.max():
        return math.nan, math.nan  # a point distribution: no bias to correct, no skew
    prop = (np.count_nonzero(theta < estimate) + np.count_nonzero(theta <= estimate)) / (2 * r)
    z0 = normal_quantile(prop) if 0.0 < prop < 1.0 else math.nan
    return z0, acceleration(influence)


def acceleration(influence: list[np.ndarray]) -> float:
    """BCa's acceleration: ``influence`` holds, per draw stratum, the jackknife values
    ``theta_(-u)`` of its units; Davison & Hinkley's stratified form,
    ``a = sum_h n_h^-3 sum l^3 / (6 (sum_h n_h^-2 sum l^2)^1.5)`` with
    ``l = (n_h - 1) (mean(theta_(-u)) - theta_(-u))``; with one stratum the usual
    jackknife acceleration, the skewness of the estimate over six.  NaN when every l is
    0 (constant data) or not finite."""
    parts = [((len(jack) - 1) * (jack.mean() - jack), len(jack))
             for jack in influence if len(jack) >= 2]
    # a does not change with the scale of l: divide by the largest |l|, so that cubes of
    # huge scores do not overflow
    scale = max((float(np.abs(lv).max()) for lv, _ in parts), default=0.0)
    if not (0.0 < scale < math.inf):
        return math.nan
    num = den = 0.0
    for lv, m in parts:
        lv = lv / scale
        num += float(np.sum(lv**3)) / m**3
        den += float(np.sum(lv**2)) / m**2
    return num / (6.0 * den**1.5)  # den > 0: some l / scale is +-1


@dataclass(slots=True, eq=False)
class Bootstrap:
    """What every interval method needs: the estimate and its bootstrap replicates."""

    estimate: float
    theta: np.ndarray
    """Sorted finite replicates."""
    z0: float = math.nan
    acceleration: float = math.nan
    se_hat: float = math.nan
    t_sorted: np.ndarray | None = None
    """Sorted studentized replicates ``(theta* - estimate) / se*``: ``-inf`` or ``inf``
    where ``se*`` is 0 and theta* != estimate (too few distinct units drawn: the value
    is infinite, and stays in the tails where it belongs), 0 where both are 0."""
    t_dropped: int = 0
    """Replicates left out of ``t_sorted``: an undefined (NaN) standard error."""
    sd: float = math.nan
    """Standard deviation of the replicates (ddof 1; exactly 0 when they are all equal,
    NaN for fewer than two)."""
    mean: float = math.nan
    """Mean of the replicates (NaN for none)."""
    tolerance: float = 0.0
    """How close to a null value an end or a replicate counts as on it: the
    :func:`~pairboot.stats.hypotheses.tie_tolerance` of the estimate and the replicates
    (0 when they are all 0: nothing was rounded)."""

    @classmethod
    def from_replicates(cls, estimate, theta, *, influence=None, se_hat=math.nan, se_star=None):
        theta = np.asarray(theta, dtype=np.float64)
        z0 = a = math.nan
        if influence is not None:
            z0, a = bca_constants(theta, estimate, influence)
        t_sorted, t_dropped = None, 0
        if se_star is not None:
            se_star = np.asarray(se_star, dtype=np.float64)
            with np.errstate(divide="ignore", invalid="ignore"):
                t = (theta - estimate) / se_star
            # 0/0, a replicate equal to the estimate, is 0; a NaN standard error is dropped
            t = np.where((se_star == 0) & (theta == estimate), 0.0, t)
            kept = ~np.isnan(t)
            t_dropped = int(len(t) - kept.sum())
            t_sorted = np.sort(t[kept])
        theta = np.sort(theta)
        if len(theta) < 2:
            sd = math.nan
        elif theta[0] == theta[-1]:
            sd = 0.0  # exactly: np.std of equal values can be off by rounding
        else:
            # scaled by the largest |value|: squares of 1e160 overflow, of 1e-170 underflow
            scale = max(abs(float(theta[0])), abs(float(theta[-1])))
            sd = scale * float(np.std(theta / scale, ddof=1))
        mean = float(theta.mean()) if len(theta) else math.nan
        tol = tie_tolerance(float(estimate), *(float(theta[i]) for i in (0, -1) if len(theta)))
        return cls(float(estimate), theta, z0, a, float(se_hat), t_sorted, t_dropped, sd, mean,
                   tol)


def _two_sided(method: str, boot: Bootstrap, alpha: float) -> tuple[float, float]:
    """The two-sided ``1 - alpha`` interval of ``method``."""
    q = boot.theta
    lo_p, hi_p = alpha / 2.0, 1.0 - alpha / 2.0
    est = boot.estimate
    if method == "percentile":
        return quantile_sorted(q, lo_p), quantile_sorted(q, hi_p)
    if method == "basic":
        return 2 * est - quantile_sorted(q, hi_p), 2 * est - quantile_sorted(q, lo_p)
    if method == "normal":
        sd = boot.sd
        center = 2 * est - boot.mean
        z = normal_quantile(hi_p)
        if sd == 0.0:
            return center, center
        return center - z * sd, center + z * sd
    if method == "bca":
        z0, a = boot.z0, boot.acceleration
        if not (math.isfinite(z0) and math.isfinite(a)):
            return math.nan, math.nan
        return quantile_sorted(q, bca_level(z0, a, normal_quantile(lo_p))), quantile_sorted(
            q, bca_level(z0, a, normal_quantile(hi_p))
        )
    if method == "studentized":
        t, se = boot.t_sorted, boot.se_hat
        if t is None or not math.isfinite(se):
            return math.nan, math.nan
        t_hi, t_lo = quantile_sorted(t, hi_p), quantile_sorted(t, lo_p)
        if not (math.isfinite(t_hi) and math.isfinite(t_lo)):
            # the quantile reaches replicates of zero standard error: the interval rests
            # on resamples that cannot say how variable the statistic is
            return math.nan, math.nan
        return est - se * t_hi, est - se * t_lo
    raise ValueError(f"unknown method {method!r}")


def bca_level(z0: float, a: float, z: float) -> float:
    """BCa's adjusted probability, clamped past the pole so it stays monotone in ``z``."""
    if math.isinf(z):
        z = math.copysign(40.0, z)
    y = z0 + z
    denom = 1.0 - a * y
    if denom <= 0.0:
        return 1.0 if y > 0 else 0.0
    frac = y / denom
    return _cdf(z0 + frac) if math.isfinite(frac) else (1.0 if frac > 0 else 0.0)


def _p_two_sided(method: str, boot: Bootstrap, null: float = 0.0) -> float:
    """Two-sided p-value: the smallest alpha whose interval excludes ``null`` (0).

    :func:`closed_form_p_value` brackets the answer: when :func:`bounds` excludes 0 just
    above it and not just below, a bisection of that bracket on :func:`bounds` finds the
    switch to adjacent doubles (the closed form rounds otherwise than the interval: a
    far BCa tail, ``1 - alpha/2``).  Where they disagree (rounding makes an interpolated
    end exactly 0 over a stretch of alpha, as with replicates one ulp from ``2 est``),
    the bisection of [0, 1] as before.
    """

    tol = boot.tolerance

    def excluded(alpha: float) -> bool:
        lo, hi = _two_sided(method, boot, alpha)
        return lo > null + tol or hi < null - tol

    p = closed_form_p_value(method, boot, null)
    if p == 0.0 and excluded(0.0):
        return p
    if 0.0 < p < 1.0:
        # the closed form brackets the switch; bisect the bracket down to adjacent doubles
        lo_a, hi_a = p * (1 - 1e-9), min(1.0, p * (1 + 1e-9))
        if excluded(hi_a) and not excluded(lo_a):
            while lo_a < (mid := 0.5 * (lo_a + hi_a)) < hi_a:
                if excluded(mid):
                    hi_a = mid
                else:
                    lo_a = mid
            return hi_a
    lo_a, hi_a = 0.0, 1.0
    if math.isnan(_two_sided(method, boot, 0.5)[0]):
        return math.nan
    if excluded(lo_a) and excluded(hi_a):
        return 0.0
    return _smallest_excluding(excluded, lo_a, hi_a)


def _smallest_excluding(excluded, lo_a: float, hi_a: float) -> float:
    """The smallest alpha in ``(lo_a, hi_a]`` at which ``excluded`` holds (it is
    monotone: once 0 is excluded, at every larger alpha), bisected to 60 halvings; 1
    when it does not hold at ``hi_a``."""
    if not excluded(hi_a):
        return 1.0
    for _ in range(60):
        mid = 0.5 * (lo_a + hi_a)
        if excluded(mid):
            hi_a = mid
        else:
            lo_a = mid
    return hi_a


def closed_form_p_value(method: str, boot: Bootstrap, null: float = 0.0) -> float:
    """The p-value of ``method`` in exact arithmetic (NaN when there is none to give),
    of the null value ``null`` (0: no difference; a margin's boundary otherwise).

    Percentile: the interval is ``[Q(alpha/2), Q(1 - alpha/2)]``, ``Q`` the replicates'
    quantile function; it excludes 0 once ``alpha / 2`` passes the last ``p`` with
    ``Q(p) <= 0``, or ``1 - alpha / 2`` falls below the first ``p`` with ``Q(p) >= 0``
    (:func:`_crossings`).  Basic: the same with ``2 est`` for 0; studentized: with the
    t-statistics and ``est / se``.  BCa: the same crossings, mapped back through the
    BCa level function.  Normal: ``2 Phi(-|center| / sd)``.
    """
    est, tol = boot.estimate, boot.tolerance
    if method in ("percentile", "basic"):
        c = null if method == "percentile" else 2 * est - null
        low, high = _tied_crossings(boot.theta, c, tol)
    elif method == "studentized":
        t, se = boot.t_sorted, boot.se_hat
        if t is None or not (math.isfinite(se) and se > 0.0):
            return math.nan
        low, high = _tied_crossings(t, (est - null) / se, tol / se)
    elif method == "bca":
        z0, a = boot.z0, boot.acceleration
        if not (math.isfinite(z0) and math.isfinite(a)):
            return math.nan
        low, high = _tied_crossings(boot.theta, null, tol)
        low, high = _bca_inverse(z0, a, low), _bca_inverse(z0, a, high)
    elif method == "normal":
        sd = boot.sd
        center = 2 * est - boot.mean - null
        if not (math.isfinite(sd) and math.isfinite(center)):
            return math.nan
        if sd == 0.0:
            return 0.0 if abs(center) > tol else 1.0
        return min(1.0, 2 * _cdf(-less_tie(abs(center), tol) / sd))
    else:
        return math.nan
    if math.isnan(low) or math.isnan(high):
        return math.nan
    # one end excludes 0 once alpha / 2 > low, the other once 1 - alpha / 2 < high
    return min(max(2 * low, 0.0), max(2 * (1 - high), 0.0), 1.0)


def _tied_crossings(q: np.ndarray, c: float, tol: float) -> tuple[float, float]:
    """:func:`_crossings` of ``c`` where an end excludes ``c`` only beyond ``tol``: the
    first from ``c + tol``, the second from ``c - tol`` (the same crossing with ``tol``
    0)."""
    if not tol > 0:
        return _crossings(q, c)
    return _crossings(q, c + tol)[0], _crossings(q, c - tol)[1]


def _crossings(q: np.ndarray, c: float) -> tuple[float, float]:
    """``(sup{p : Q(p) <= c}, inf{p : Q(p) >= c})`` for the quantile function ``Q`` of the
    sorted ``q`` (:func:`quantile_sorted`) in exact arithmetic, over ``p`` in [0, 1]:
    ``-inf`` for an empty first set and ``inf`` for an empty second (so the ends they
    govern exclude ``c`` at every alpha); NaN for no replicates, NaN ``c``, or overflow.
    """
    n = len(q)
    if n == 0 or math.isnan(c):
        return math.nan, math.nan
    at_most = int(np.searchsorted(q, c, side="right"))  # how many q <= c
    below = int(np.searchsorted(q, c, side="left"))  # how many q < c
    if at_most == 0:
        low = -math.inf
    elif at_most == n:
        low = math.inf  # (alpha / 2 never passes it: capped at 1 by the caller)
    else:
        low = _quantile_crossing(q, at_most, c) / (n - 1)
    if below == n:
        high = math.inf
    elif below == 0:
        high = -math.inf
    else:
        high = _quantile_crossing(q, below, c) / (n - 1)
    return low, high


def _bca_inverse(z0: float, a: float, level: float) -> float:
    """The ``p`` whose BCa level (:func:`bca_level` of ``z = Phi^-1(p)``) is ``level``;
    infinities pass through, NaN past the pole."""
    if math.isinf(level) or math.isnan(level):
        return level
    if level <= 0.0:
        return 0.0
    if level >= 1.0:
        return 1.0
    u = normal_quantile(level) - z0
    denom = 1.0 + a * u
    if denom <= 0.0:
        return math.nan
    return _cdf(u / denom - z0)


def _quantile_crossing(q: np.ndarray, j: int, c: float) -> float:
    """Where (as ``p (n - 1)``) the interpolation between ``q[j - 1] <= c`` and
    ``q[j] >= c`` (not both equal to c) equals ``c`` (:func:`quantile_sorted` next to an
    infinite value: ``-inf`` up to ``q[j]``, ``inf`` from ``q[j - 1]``)."""
    lo, hi = float(q[j - 1]), float(q[j])
    if math.isinf(lo) or math.isinf(hi):
        return math.nan if math.isinf(lo) and math.isinf(hi) else (
            float(j) if math.isinf(lo) else float(j - 1))
    return j - 1 + (c - lo) / (hi - lo)


_Z_LEVEL = np.linspace(-6.0, 6.0, 241)
"""Where the level that R replicates' quantile hits lies, in its standard deviations."""
_W_LEVEL = np.exp(-0.5 * _Z_LEVEL**2) / np.exp(-0.5 * _Z_LEVEL**2).sum()
_Z_SHIFT = np.linspace(-4.0, 4.0, 33)
"""How far the replicates' own quantile function may be shifted, in the same units."""
_W_SHIFT = np.exp(-0.5 * _Z_SHIFT**2) / np.exp(-0.5 * _Z_SHIFT**2).sum()


def order_statistic_error(sorted_values: np.ndarray, level: float,
                          spread: float | None = None) -> float:
    """Monte Carlo standard error of :func:`quantile_sorted` at ``level``: how much the
    endpoint read off these replicates would move, as a standard deviation, with
    another seed.

    The quantile of R replicates is the ideal one at a level that misses ``level`` by
    about ``s Z`` (``s = sqrt(level (1 - level) / R)``, or ``spread``; Z standard
    normal, taken on the log-odds scale), so its spread is that of ``Q(level + s Z)``.
    The replicates' quantile function ``Q`` stands in for the ideal one, whose levels
    it gets wrong by as much again; so the variance is averaged over ``Q``'s level
    shifted by ``s Z'``.  On a smooth distribution this is the familiar ``s /
    density``; on a lattice (0/1 scores: differences are multiples of ``1/n``) it is
    the chance that the endpoint falls on the next point, weighed over where the level
    may sit between two points, where a 68% band of order statistics often says 0.
    Infinite studentized values (resamples without a standard error) are left out of
    the window; infinite if it holds nothing else; NaN for fewer than two values.
    """
    n = len(sorted_values)
    if n < 2 or not 0.0 <= level <= 1.0:
        return math.nan
    # The level's error on the log-odds scale (the delta method: sd / (p (1 - p))), so
    # that near 0 or 1 it is skewed as a quantile's is (a Beta law), not spilt past the
    # end onto the extreme order statistics; at level 0 or 1, the extreme order
    # statistic, whose rank still moves by about one.
    level = min(max(level, 0.5 / n), 1.0 - 0.5 / n)
    if spread is None:
        spread = math.sqrt(level * (1.0 - level) / n)
    spread = max(spread, 1.0 / n)
    z = math.log(level / (1.0 - level)) + spread / (level * (1.0 - level)) * (
        _Z_SHIFT[:, None] + _Z_LEVEL[None, :])
    pos = (n - 1) / (1.0 + np.exp(-z))
    i = np.minimum(pos.astype(np.int64), n - 2)
    window = sorted_values[int(i.min()) : int(i.max()) + 2]
    if window[0] == window[-1]:
        return 0.0 if math.isfinite(window[0]) else math.inf
    lo, hi = sorted_values[i], sorted_values[i + 1]
    with np.errstate(invalid="ignore"):
        vals = np.where(hi == lo, lo, lo + (pos - i) * (hi - lo))
    w = _W_LEVEL * np.ones_like(vals)
    finite = np.isfinite(vals)
    if not finite.all():
        # studentized values of resamples without a standard error: the spread of the
        # endpoint where it is finite (where it is not, the interval is undefined)
        w = np.where(finite, w, 0.0)
        vals = np.where(finite, vals, 0.0)
        held = w.sum(axis=1)
        if not held.any():
            return math.inf
        w = w / np.where(held > 0, held, 1.0)[:, None]
        shift = _W_SHIFT * (held > 0)
        shift = shift / shift.sum()
    else:
        shift = _W_SHIFT
    dev = vals - (vals * w).sum(axis=1, keepdims=True)
    dev = np.where(w > 0, dev, 0.0)
    scale = float(np.abs(dev).max())  # (squares of 1e160 overflow)
    if scale == 0.0:
        return 0.0
    var = ((dev / scale) ** 2 * w).sum(axis=1)
    return scale * math.sqrt(float((var * shift).sum()))


def _bca_level_error(z0: float, a: float, z: float, level: float, r: int) -> float:
    """The standard deviation of BCa's quantile level over seeds: the level of the
    quantile read (as for every quantile) together with ``z0``'s own error, which comes
    from the share of replicates below the estimate and moves the level it asks for.
    Both are errors of the replicates' distribution function at two points, whose
    covariance is a Brownian bridge's."""
    share = _cdf(z0)
    y = z0 + z
    denom = 1.0 - a * y
    if not (math.isfinite(z) and denom > 0.0):
        gain = 0.0  # (past the pole the level is clamped to 0 or 1)
    else:
        # d level / d z0, over the density at z0: d z0 = d share / phi(z0)
        gain = normal.pdf(z0 + y / denom) * (1.0 + 1.0 / denom**2) / normal.pdf(z0)
    var = (gain**2 * share * (1.0 - share) + level * (1.0 - level)
           - 2.0 * gain * (min(share, level) - share * level)) / r
    return math.sqrt(max(var, 0.0))


def _normal_errors(theta: np.ndarray, alpha: float) -> tuple[float, float]:
    """The normal interval's ``2 est - mean -+ z sd``: the errors of the replicates'
    mean and standard deviation and their covariance, from the replicates' moments."""
    r = len(theta)
    center = float(theta.mean())
    scale = max(abs(float(theta[0]) - center), abs(float(theta[-1]) - center))
    if scale == 0.0:
        return 0.0, 0.0
    d = (theta - center) / scale
    d2 = d * d  # (products: numpy's d**3 and d**4 are a pow per element)
    m2, m3, m4 = float(np.mean(d2)), float(np.mean(d2 * d)), float(np.mean(d2 * d2))
    z = normal_quantile(1.0 - alpha / 2.0)
    # Var(mean) = m2 / R, Var(sd) = (m4 - m2^2) / (4 m2 R), Cov = m3 / (2 sqrt(m2) R)
    var_mean, var_sd = m2 / r, (m4 - m2 * m2) / (4.0 * m2 * r)
    cov = m3 / (2.0 * math.sqrt(m2) * r)
    low = var_mean + z * z * var_sd + 2.0 * z * cov
    high = var_mean + z * z * var_sd - 2.0 * z * cov
    return scale * math.sqrt(max(low, 0.0)), scale * math.sqrt(max(high, 0.0))


def sd_error(theta: np.ndarray) -> float:
    """Monte Carlo standard error of the replicates' standard deviation, from their
    kurtosis: ``sd sqrt((kurtosis - 1) / (4 R))`` (``sd / sqrt(2 R)`` for normal ones)."""
    r = len(theta)
    if r < 2:
        return math.nan
    center = float(theta.mean())
    scale = float(np.abs(theta - center).max())
    if scale == 0.0:
        return 0.0
    d = (theta - center) / scale
    d2 = d * d  # (products: numpy's d**4 is a pow per element, 200 times slower)
    m2, m4 = float(np.mean(d2)), float(np.mean(d2 * d2))
    return scale * math.sqrt(max(m4 - m2 * m2, 0.0) / (4.0 * m2 * r))


def _errors_two_sided(method: str, boot: Bootstrap, alpha: float) -> tuple[float, float]:
    """Monte Carlo standard errors of the two endpoints: how much each would move, as a
    standard deviation over seeds, on the same data with as many resamples.

    A quantile-based endpoint (percentile, basic, BCa, studentized) takes
    :func:`order_statistic_error` of its quantile; BCa's level carries ``z0``'s error
    too (its acceleration, from the jackknife, has none), the studentized interval's
    the observed standard error as a factor.  The normal interval's centre and
    half-width carry the errors of the replicates' mean and standard deviation (from
    their skewness and kurtosis, so a heavy-tailed distribution is not taken for a
    normal one).  Infinite where an endpoint's window holds nothing but replicates
    without a standard error; NaN where the interval is undefined.
    """
    r = len(boot.theta)
    if r < 2:
        return math.nan, math.nan
    lo_p, hi_p = alpha / 2.0, 1.0 - alpha / 2.0
    if method in ("percentile", "basic"):
        e_lo = order_statistic_error(boot.theta, lo_p)
        e_hi = order_statistic_error(boot.theta, hi_p)
        return (e_lo, e_hi) if method == "percentile" else (e_hi, e_lo)
    if method == "normal":
        return _normal_errors(boot.theta, alpha)
    if method == "bca":
        z0, a = boot.z0, boot.acceleration
        if not (math.isfinite(z0) and math.isfinite(a)):
            return math.nan, math.nan
        out = []
        for p in (lo_p, hi_p):
            z = normal_quantile(p)
            level = bca_level(z0, a, z)
            spread = _bca_level_error(z0, a, z, level, r)
            out.append(order_statistic_error(boot.theta, level, spread))
        return out[0], out[1]
    if method == "studentized" and boot.t_sorted is not None and len(boot.t_sorted) > 1:
        se = boot.se_hat
        if not math.isfinite(se):
            return math.nan, math.nan
        if se == 0.0:
            return 0.0, 0.0
        t = boot.t_sorted
        return se * order_statistic_error(t, hi_p), se * order_statistic_error(t, lo_p)
    return math.nan, math.nan


def bounds(method: str, boot: Bootstrap, alpha: float, alternative: str = "two-sided"
           ) -> tuple[float, float]:
    """The ``1 - alpha`` interval of ``method``: two-sided, or one-sided as scipy's
    ``alternative`` ("greater": ``[low, inf)``, "less": ``(-inf, high]``), whose finite
    end is that of the two-sided interval at ``1 - 2 alpha``."""
    if alternative == "two-sided":
        return _two_sided(method, boot, alpha)
    low, high = _two_sided(method, boot, 2.0 * alpha)
    return (low, math.inf) if alternative == "greater" else (-math.inf, high)


def p_value(method: str, boot: Bootstrap, alternative: str = "two-sided",
            null: float = 0.0) -> float:
    """The smallest alpha whose interval (:func:`bounds` with ``alternative``) excludes
    ``null``: 0, or a margin's boundary (H0: B - A <= -margin for non-inferiority).  An
    end excludes ``null`` only when it lies beyond it by more than ``boot.tolerance``
    (an end on it by rounding does not), and replicates within it count as on it.

    One-sided, the finite end at ``alpha`` is the two-sided one at ``2 alpha``: the side
    that decides the two-sided p-value ``p`` switches at ``p / 2``; the other side later,
    found by bisection above it (the complement of ``p / 2`` when no replicate ties 0).
    """
    p = _p_two_sided(method, boot, null)
    if alternative == "two-sided" or math.isnan(p):
        return p

    def excluded(alpha: float) -> bool:
        low, high = bounds(method, boot, alpha, alternative)
        return low > null + boot.tolerance or high < null - boot.tolerance

    if excluded(0.5 * p):  # (this side decided the two-sided p: nothing excluded below)
        return 0.5 * p
    return _smallest_excluding(excluded, 0.5 * p, 1.0)


def monte_carlo_error(method: str, boot: Bootstrap, alpha: float,
                      alternative: str = "two-sided") -> tuple[float, float]:
    """Monte Carlo standard errors of the interval's ends (:func:`_errors_two_sided`);
    a one-sided interval's open end does not move (0)."""
    if alternative == "two-sided":
        return _errors_two_sided(method, boot, alpha)
    low, high = _errors_two_sided(method, boot, 2.0 * alpha)
    return (low, 0.0) if alternative == "greater" else (0.0, high)

"""Exact tests and score intervals for 0/1 scores: the paired 2 x 2 table, McNemar's
exact test (and its mid-p), Wilson's interval (with a design effect for clustered items)
and score intervals for the paired difference of proportions.

Two systems scored right (1) or wrong (0) on the same n items give a :class:`Table2x2`;
only its two discordant cells say which system is better.  ``mcnemar_exact`` is the
binomial test on them, exact at any n: the binomial tail is summed term by term, in
integers up to 10,000 discordant pairs and beyond from Loader's saddle-point form of each
term (R's ``dbinom``), so no normal or beta approximation enters.
Two intervals for the difference ``p_B - p_A = (only_b - only_a) / n``:

- ``paired_score_interval``: Newcombe's (1998) hybrid score interval for paired data,
  his method 10: the two Wilson intervals combined with the phi correlation of the
  table.  Closed form.
- ``tango_interval``: Tango's (1998) score interval, the set of differences that the
  score test does not reject, found by bisection.  ``paired_score_p_value`` is that
  test's p-value (against 0, or any ``null``: a margin's boundary), so ``p < 1 - level``
  exactly when ``tango_interval`` at ``level`` excludes the null.  Both take a
  ``design_effect`` for items in groups (Rao and Scott's division of the counts).

Pure functions of counts and numpy arrays; nothing here resamples.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pairboot.stats import normal
from pairboot.stats.binomial import check_count

ALTERNATIVES = ("two-sided", "greater", "less")
"""The alternatives of the tests: "greater" is B better (``only_b`` large, ``p_B > p_A``),
"less" is A better."""

_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
_EXACT_BELOW = 16
"""Binomial terms whose smaller index is below this are computed from ``math.comb``."""
_EXACT_N = 10_000
"""Up to this many discordant pairs the binomial tail is summed in integers (a few ms at
the largest); beyond, in floats from Loader's formula (relative error about 1e-15 per unit
of ``-log P``: under 1e-12 for any P above 1e-300, under 1e-13 above 1e-50)."""
_BD0_TERMS = 10
"""Terms of the series of ``bd0`` (each at least 100 times smaller than the one before)."""


# --- validation ---------------------------------------------------------------------------


def _level(confidence_level) -> float:
    """``confidence_level`` as a float strictly between 0 and 1."""
    try:
        level = float(confidence_level)
    except (TypeError, ValueError):
        raise ValueError(f"`confidence_level` must be a number between 0 and 1, "
                         f"got {confidence_level!r}") from None
    if not 0.0 < level < 1.0:
        raise ValueError(f"`confidence_level` must be between 0 and 1, got {level}")
    return level


def _z(level: float) -> float:
    """The two-sided critical value ``z_{1 - alpha/2}``, from the small tail (accurate
    for levels near 1)."""
    return -normal.inv_cdf((1.0 - level) / 2.0)


def _alternative(alternative) -> str:
    if alternative not in ALTERNATIVES:
        raise ValueError(f"`alternative` must be one of {', '.join(map(repr, ALTERNATIVES))}, "
                         f"got {alternative!r}")
    return alternative


def _zero_one(x, name: str) -> np.ndarray:
    """``x`` as a 1-D bool array, refused unless every value is 0 or 1 (or a bool)."""
    x = np.asarray(x)
    if x.ndim != 1:
        raise ValueError(f"`{name}` must be 1-D (one score per item), got shape {x.shape}")
    if x.dtype == bool:
        return x
    if not (np.issubdtype(x.dtype, np.number) and not np.iscomplexobj(x)):
        raise ValueError(f"`{name}` must hold only 0 and 1 (wrong or right), got dtype "
                         f"{x.dtype}")
    bad = ~((x == 0) | (x == 1))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"`{name}` must hold only 0 and 1 (wrong or right), got {x[i].item()!r} "
                         f"at index {i}")
    return x == 1


# --- the paired table ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Table2x2:
    """The paired 2 x 2 table of two systems' 0/1 scores on the same items.

    Attributes
    ----------
    both : int
        Items both systems got right.
    only_a : int
        Items only A got right.
    only_b : int
        Items only B got right.
    neither : int
        Items both got wrong.
    n : int
        All items (property).
    discordant : int
        ``only_a + only_b``, the items on which the systems disagree (property).

    >>> t = Table2x2(both=5, only_a=1, only_b=3, neither=1)
    >>> t.n, t.discordant
    (10, 4)
    """

    both: int
    only_a: int
    only_b: int
    neither: int

    def __post_init__(self) -> None:
        for name in ("both", "only_a", "only_b", "neither"):
            object.__setattr__(self, name, check_count(getattr(self, name), name))

    @property
    def n(self) -> int:
        return self.both + self.only_a + self.only_b + self.neither

    @property
    def discordant(self) -> int:
        return self.only_a + self.only_b


def discordance(a, b) -> Table2x2:
    """The paired 2 x 2 table of two 0/1 score arrays of equal length (item i of ``a`` and
    item i of ``b`` are the same item): both right, only A right, only B right, both wrong.

    Values must be 0 or 1 (or bools); anything else is refused with the first bad index.

    >>> discordance([1, 1, 0, 0, 1], [1, 0, 1, 0, 1])
    Table2x2(both=2, only_a=1, only_b=1, neither=1)
    """
    a, b = _zero_one(a, "a"), _zero_one(b, "b")
    if len(a) != len(b):
        raise ValueError(f"`a` and `b` must have the same length (one score per item each), "
                         f"got {len(a)} and {len(b)}")
    both = int(np.count_nonzero(a & b))
    only_a = int(np.count_nonzero(a)) - both
    only_b = int(np.count_nonzero(b)) - both
    return Table2x2(both, only_a, only_b, len(a) - both - only_a - only_b)


def _table(table) -> Table2x2:
    if not isinstance(table, Table2x2):
        raise ValueError(f"`table` must be a Table2x2, got {type(table).__name__}")
    if table.n == 0:
        raise ValueError("`table` must have at least one item, got an empty table")
    return table


# --- the binomial distribution with p = 1/2 -----------------------------------------------


def _stirlerr(k: np.ndarray) -> np.ndarray:
    """``log(k!) - log(sqrt(2 pi k) (k/e)^k)`` for ``k >= 16``: the Stirling series, as in
    R's ``stirlerr`` (its terms past these are below 1e-16 there)."""
    kk = k * k
    return (1 / 12 - (1 / 360 - (1 / 1260 - (1 / 1680 - 1 / 1188 / kk) / kk) / kk) / kk) / k


def _bd0(x: np.ndarray, m: float) -> np.ndarray:
    """``x log(x / m) + m - x`` without its cancellation near ``x = m`` (Loader, 2000)."""
    d = x - m
    direct = x * np.log(x / m) + m - x
    v = d / (x + m)
    near = np.abs(v) < 0.1
    s = d * v
    ej = 2.0 * x * v
    v2 = v * v
    for j in range(1, _BD0_TERMS + 1):
        ej = ej * v2
        s = s + ej / (2 * j + 1)
    return np.where(near, s, direct)


def _half_binomial_pmf(i: np.ndarray, n: int) -> np.ndarray:
    """``P(X = i)`` for ``X ~ Binomial(n, 1/2)`` at integers ``0 <= i <= n``:
    ``comb(n, m) / 2^n`` (correctly rounded) where ``m = min(i, n - i)`` is small, else
    Loader's (2000) saddle-point form ``exp(stirlerr(n) - stirlerr(i) - stirlerr(n-i)
    - bd0(i, n/2) - bd0(n-i, n/2)) / sqrt(2 pi i (n-i) / n)`` (R's ``dbinom``), which is
    exact up to rounding: no asymptotic approximation, the Stirling remainders are summed
    to 1e-16.  Its relative error is that of the exponent, about 1e-15 per unit of
    ``-log P``."""
    i = np.asarray(i, dtype=np.int64)
    m = np.minimum(i, n - i)
    out = np.empty(i.shape)
    small = m < _EXACT_BELOW
    for j in np.flatnonzero(small):
        out[j] = math.ldexp(float(math.comb(n, int(m[j]))), -n)
    big = ~small
    if big.any():
        x = i[big].astype(np.float64)
        y = float(n) - x
        half = n / 2.0
        lc = (_stirlerr(np.array(float(n))) - _stirlerr(x) - _stirlerr(y)
              - _bd0(x, half) - _bd0(y, half))
        lf = np.log(x) + np.log1p(-x / n)  # log(i (n - i) / n)
        out[big] = np.exp(lc - 0.5 * lf - _HALF_LOG_2PI)
    return out


def _half_binomial_cdf(k: int, n: int) -> tuple[float, float]:
    """``(P(X <= k), P(X = k))`` for ``X ~ Binomial(n, 1/2)``.

    For ``2k <= n`` the terms ``i = k, k-1, ...`` are summed until they are below 1e-21 of
    the first: they fall at least as fast as ``exp(-2 j (j-1) / n)`` after j steps, so
    ``5 sqrt(n)`` of them suffice, at any n.  Up to :data:`_EXACT_N` trials the binomial
    coefficients are Python integers and the sum is divided by ``2^n`` once (correctly
    rounded); beyond, each term is :func:`_half_binomial_pmf`'s and the sum ``math.fsum``'s.
    For ``2k > n``, ``1 - P(X <= n-k-1)`` by symmetry (the answer is then above 1/2: no
    relative precision is lost)."""
    if 2 * k > n:
        point = _half_binomial_cdf(n - k, n)[1]  # P(X = k) = P(X = n - k)
        return (1.0 if k >= n else 1.0 - _half_binomial_cdf(n - k - 1, n)[0]), point
    lo = max(0, k - int(5.0 * math.sqrt(n)) - 2)
    if n <= _EXACT_N:
        first = term = total = math.comb(n, k)
        for i in range(k, lo, -1):  # comb(n, i - 1) = comb(n, i) i / (n - i + 1), exactly
            term = term * i // (n - i + 1)
            total += term
        scale = 1 << n
        return total / scale, first / scale
    terms = _half_binomial_pmf(np.arange(lo, k + 1), n)
    return math.fsum(terms.tolist()), float(terms[-1])


# --- McNemar ------------------------------------------------------------------------------


def mcnemar_exact(only_a: int, only_b: int, *, alternative: str = "two-sided",
                  mid_p: bool = False) -> float:
    """McNemar's exact test: under the null that A and B are equally good, each of the
    ``only_a + only_b`` discordant items is B's with probability 1/2, so ``only_b`` is
    Binomial(only_a + only_b, 1/2); the concordant items say nothing.

    Two-sided, as statsmodels' ``mcnemar(table, exact=True)``: twice the smaller tail,
    capped at 1.  "greater" (B better): ``P(X >= only_b)``; "less" (A better):
    ``P(X <= only_b)``, as ``scipy.stats.binomtest(only_b, only_a + only_b, 0.5)``.

    ``mid_p=True`` gives the mid-p version: the probability of a more extreme outcome plus
    half that of one as extreme as the observed, which is less conservative than the exact
    test and keeps its level closely at any n (Fagerland, Lydersen & Laake, 2013).  One-sided:
    the tail minus half the point probability; two-sided: ``2 * (P(X <= k) - P(X = k) / 2)``
    with ``k = min(only_a, only_b)``, and ``1 - P(X = k) / 2`` when ``only_a == only_b``
    (then the observed outcome is the only one as extreme, as in Fagerland et al.).

    No discordant items: p = 1 (no evidence either way), for every variant.

    >>> mcnemar_exact(2, 8)  # 2 * P(X <= 2), X ~ Binomial(10, 1/2) = 2 * 56 / 1024
    0.109375
    >>> mcnemar_exact(2, 8, alternative="greater"), mcnemar_exact(2, 8, mid_p=True)
    (0.0546875, 0.0654296875)
    """
    only_a, only_b = check_count(only_a, "only_a"), check_count(only_b, "only_b")
    alternative = _alternative(alternative)
    n = only_a + only_b
    if n == 0:
        return 1.0
    if alternative == "two-sided":
        if mid_p and only_a == only_b:
            return 1.0 - 0.5 * _half_binomial_cdf(only_a, n)[1]
        tail, point = _half_binomial_cdf(min(only_a, only_b), n)
        return min(1.0, 2.0 * (tail - 0.5 * point if mid_p else tail))
    # P(X >= only_b) = P(X <= n - only_b) = P(X <= only_a), by symmetry
    tail, point = _half_binomial_cdf(only_a if alternative == "greater" else only_b, n)
    return min(1.0, tail - 0.5 * point if mid_p else tail)


# --- Wilson and the design effect ---------------------------------------------------------


def wilson_interval(successes: int, n: int, confidence_level: float = 0.95, *,
                    design_effect: float = 1.0) -> tuple[float, float]:
    """Wilson's score interval ``(low, high)`` for a proportion ``successes / n``: the
    proportions that the score test does not reject,
    ``(p + z^2/2n -+ z sqrt(p (1-p) / n + z^2/4n^2)) / (1 + z^2/n)``, equal to statsmodels'
    ``proportion_confint(method="wilson")``.  Unlike a percentile bootstrap it is never
    ``(1, 1)`` at 100%: the upper end is 1 and the lower below 1 (and symmetrically at 0%).

    ``design_effect`` (deff) makes it cluster-aware: with items in groups the
    information is that of ``n / deff`` independent items, so n and successes are both
    divided by deff (Kish's effective sample size) and the proportion is unchanged.  deff
    may be any positive number (see :func:`design_effect`); one below 1 narrows the
    interval, so pass ``max(deff, 1)`` for the conservative form.

    >>> low, high = wilson_interval(20, 20)
    >>> round(low, 4), high
    (0.8389, 1.0)
    """
    successes, n = check_count(successes, "successes"), check_count(n, "n")
    if n == 0:
        raise ValueError("`n` must be a positive integer, got 0")
    if successes > n:
        raise ValueError(f"`successes` must be at most `n`={n}, got {successes}")
    z = _z(_level(confidence_level))
    deff = _deff(design_effect)
    n_eff = n / deff
    p = successes / n
    z2 = z * z
    denom = 1.0 + z2 / n_eff
    center = (p + z2 / (2.0 * n_eff)) / denom
    dist = z * math.sqrt(p * (1.0 - p) / n_eff + z2 / (4.0 * n_eff * n_eff)) / denom
    low = 0.0 if successes == 0 else min(max(center - dist, 0.0), 1.0)
    high = 1.0 if successes == n else min(max(center + dist, 0.0), 1.0)
    return low, high


def design_effect(values, groups) -> float:
    """The design effect of the mean of per-item ``values`` (0/1 or any) whose items come in
    ``groups`` (one label per item): the cluster-robust variance of the mean over the
    simple-random-sampling one,

        ``deff = [G / (G-1) * sum_g (sum_{i in g} (y_i - ybar))^2 / n^2] / [s^2 / n]``,

    with G groups and ``s^2`` the sample variance (ddof 1).  This is the squared ratio of
    the standard errors of an intercept-only regression with cluster-robust (CR1, as
    statsmodels' ``cov_type="cluster"``) and ordinary standard errors.  It handles groups of
    unequal sizes and needs no ANOVA; with equal sizes m it estimates Kish's
    ``1 + (m - 1) ICC``.  Singleton groups give exactly 1.

    It is near 1 for independent items, above 1 when items of a group tend to agree, and may
    be below 1 (negative intra-group correlation).  Constant values have no variance to
    inflate: 1.0 is returned.

    >>> design_effect([1, 1, 1, 0, 0, 0], ["a", "a", "a", "b", "b", "b"])  # groups agree
    5.0
    >>> design_effect([1, 0, 1, 0, 1, 0], ["a", "a", "b", "b", "c", "c"])  # groups balanced
    0.0
    """
    y = np.asarray(values, dtype=np.float64)
    if y.ndim != 1:
        raise ValueError(f"`values` must be 1-D (one value per item), got shape {y.shape}")
    if not np.isfinite(y).all():
        i = int(np.flatnonzero(~np.isfinite(y))[0])
        raise ValueError(f"`values` must be finite, got {y[i]} at index {i}")
    g = np.asarray(groups)
    if g.shape != y.shape:
        raise ValueError(f"`groups` must have one label per value ({len(y)}), "
                         f"got shape {g.shape}")
    _, inverse = np.unique(g, return_inverse=True)
    inverse = inverse.reshape(-1)
    n = len(y)
    n_groups = int(inverse.max()) + 1 if n else 0
    if n_groups < 2:
        raise ValueError(f"`groups` must have at least 2 distinct labels, got {n_groups}")
    r = y - y.mean()
    ss = float(r @ r)
    if ss == 0.0:
        return 1.0
    sums = np.bincount(inverse, weights=r, minlength=n_groups)
    return float(n_groups / (n_groups - 1) * (n - 1) / n * (sums @ sums) / ss)


# --- the paired difference of proportions -------------------------------------------------


def paired_score_interval(table: Table2x2,
                          confidence_level: float = 0.95) -> tuple[float, float]:
    """Newcombe's (1998) hybrid score interval (his method 10) for the paired difference
    ``p_B - p_A = (only_b - only_a) / n``.

    With ``(l_B, u_B)`` and ``(l_A, u_A)`` the Wilson intervals of each system's accuracy:
    ``low = d - sqrt((p_B - l_B)^2 - 2 phi (p_B - l_B)(u_A - p_A) + (u_A - p_A)^2)`` and
    ``high = d + sqrt((u_B - p_B)^2 - 2 phi (u_B - p_B)(p_A - l_A) + (p_A - l_A)^2)``.
    ``phi`` is the correlation of the two systems' scores with Newcombe's correction:
    ``(both * neither - only_a * only_b - n/2) / sqrt(product of the margins)`` when the
    cross-product difference exceeds n/2, 0 when it is between 0 and n/2, uncorrected when
    negative, and 0 when a margin is 0 (a system all right or all wrong).

    Closed form, inside [-1, 1], never of width 0; its coverage is close to the level even
    for small n.  It is not the inversion of a test: for a p-value that matches an interval,
    use :func:`tango_interval` and :func:`paired_score_p_value`.

    >>> low, high = paired_score_interval(Table2x2(both=36, only_a=2, only_b=12, neither=0))
    >>> round(low, 4), round(high, 4)  # Newcombe (1998), Table II
    (0.0569, 0.3404)
    """
    t = _table(table)
    level = _level(confidence_level)
    n = t.n
    right_b, right_a = t.both + t.only_b, t.both + t.only_a
    p_b, p_a = right_b / n, right_a / n
    l_b, u_b = wilson_interval(right_b, n, level)
    l_a, u_a = wilson_interval(right_a, n, level)
    margins = right_b * (n - right_b) * right_a * (n - right_a)
    phi = 0.0
    if margins > 0:
        cross = t.both * t.neither - t.only_a * t.only_b
        corrected = cross - n / 2 if cross > n / 2 else (0.0 if cross >= 0 else cross)
        phi = corrected / math.sqrt(margins)
    d = (t.only_b - t.only_a) / n
    down_b, up_a = p_b - l_b, u_a - p_a
    up_b, down_a = u_b - p_b, p_a - l_a
    low = d - math.sqrt(max(0.0, down_b**2 - 2 * phi * down_b * up_a + up_a**2))
    high = d + math.sqrt(max(0.0, up_b**2 - 2 * phi * up_b * down_a + down_a**2))
    return max(low, -1.0), min(high, 1.0)


def _tango_statistic(t: Table2x2, delta: float, deff: float = 1.0) -> float:
    """Tango's score statistic for ``p_B - p_A = delta`` (``-1 <= delta <= 1``):
    ``(only_b - only_a - n delta) / sqrt(n (2 q + delta (1 - delta)))``, with ``q`` the
    maximum-likelihood ``P(only A right)`` under the constraint, the root of
    ``2n q^2 + w q - only_a delta (1 - delta) = 0``,
    ``w = delta (2n - only_b + only_a) - only_a - only_b``.  ``deff``: the counts are
    divided by it first (Rao and Scott's adjustment; the statistic is divided by
    ``sqrt(deff)``)."""
    n, b, c = t.n / deff, t.only_b / deff, t.only_a / deff
    w = delta * (2 * n - b + c) - b - c
    k = c * delta * (1.0 - delta)
    root = math.sqrt(max(0.0, w * w + 8.0 * n * k))
    q = (root - w) / (4.0 * n) if w <= 0 else 2.0 * k / (w + root)  # (no cancellation)
    var = n * (2.0 * q + delta * (1.0 - delta))
    num = b - c - n * delta
    if var <= 0.0:
        return math.copysign(math.inf, num) if num else 0.0
    return num / math.sqrt(var)


def _deff(design_effect) -> float:
    try:
        deff = float(design_effect)
    except (TypeError, ValueError):
        raise ValueError(f"`design_effect` must be a positive number, "
                         f"got {design_effect!r}") from None
    if not (deff > 0.0 and math.isfinite(deff)):
        raise ValueError(f"`design_effect` must be a positive number, got {deff}")
    return deff


def _bisect(f, lo: float, hi: float) -> tuple[float, float]:
    """The bracket ``(lo, hi)`` around the sign change of ``f`` (``f(lo) > 0 >= f(hi)``),
    narrowed to adjacent floats."""
    for _ in range(2100):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    return lo, hi


def tango_interval(table: Table2x2, confidence_level: float = 0.95, *,
                   design_effect: float = 1.0) -> tuple[float, float]:
    """Tango's (1998) score interval for the paired difference ``p_B - p_A``: every
    ``delta`` at which Tango's score statistic (see :func:`paired_score_p_value`) is within
    ``z_{1 - alpha/2}`` of 0, its ends found by bisection to adjacent floats.

    The statistic decreases in ``delta``, so the interval is its two roots; at 0 it is
    McNemar's ``(only_b - only_a) / sqrt(only_a + only_b)``, so the interval excludes 0
    exactly when :func:`paired_score_p_value` is below ``1 - confidence_level`` (each end
    is searched on the side of 0 that the statistic at 0 says), and any other ``delta``
    exactly when ``paired_score_p_value(..., null=delta)`` is.  An end is -1 or 1 only
    when the estimate is.

    ``design_effect`` (deff) makes it cluster-aware, as Rao and Scott (1992) adjust a
    chi-square test and Obuchowski (1998) McNemar's for clustered pairs: the table's
    counts are divided by the design effect of the per-item differences (the
    information is that of ``n / deff`` independent items), the estimate unchanged.

    >>> low, high = tango_interval(Table2x2(both=59, only_a=16, only_b=6, neither=80))
    >>> round(low, 4), round(high, 4)  # Fagerland et al. (2017), chapter 8
    (-0.124, -0.0054)
    """
    t = _table(table)
    z = _z(_level(confidence_level))
    deff = _deff(design_effect)
    d = (t.only_b - t.only_a) / t.n
    at_zero = _tango_statistic(t, 0.0, deff)

    def above(delta):  # decreasing in delta; the lower end is where it crosses 0
        return _tango_statistic(t, delta, deff) - z

    def below(delta):  # the upper end is where this crosses 0
        return _tango_statistic(t, delta, deff) + z

    if d == -1.0:
        low = -1.0
    elif at_zero > z:  # 0 is below the interval: the lower end is in (0, d)
        low = _bisect(above, 0.0, d)[1]
    else:
        low = _bisect(above, -1.0, min(d, 0.0))[1]
    if d == 1.0:
        high = 1.0
    elif at_zero < -z:
        high = _bisect(below, d, 0.0)[0]
    else:
        high = _bisect(below, max(d, 0.0), 1.0)[0]
    return low, high


def paired_score_p_value(table: Table2x2, alternative: str = "two-sided", *,
                         null: float = 0.0, design_effect: float = 1.0) -> float:
    """The p-value of Tango's score test of ``p_B - p_A = null``, the test that
    :func:`tango_interval` inverts: at ``null`` 0 its statistic is McNemar's
    ``Z = (only_b - only_a) / sqrt(only_a + only_b)``, referred to the normal
    distribution (the asymptotic McNemar test without continuity correction); at another
    ``null`` (a margin's boundary, ``-1 <= null <= 1``) it is Tango's statistic there.

    Two-sided ``P(|N| >= |Z|)``; "greater" (B better, H0 ``p_B - p_A <= null``)
    ``P(N >= Z)``; "less" ``P(N <= Z)``.  So ``p < alpha`` exactly when
    ``tango_interval`` at ``1 - alpha`` (two-sided) or at ``1 - 2 alpha`` (one-sided,
    its lower or upper end) excludes ``null``.  No discordant items and ``null`` 0:
    p = 1.  ``design_effect``: as :func:`tango_interval`'s.

    >>> round(paired_score_p_value(Table2x2(both=59, only_a=16, only_b=6, neither=80)), 6)
    0.033006
    """
    t = _table(table)
    alternative = _alternative(alternative)
    deff = _deff(design_effect)
    try:
        null = float(null)
    except (TypeError, ValueError):
        raise ValueError(f"`null` must be a number between -1 and 1, got {null!r}") from None
    if not -1.0 <= null <= 1.0:
        raise ValueError(f"`null` must be between -1 and 1, got {null}")
    if t.discordant == 0 and null == 0.0:
        return 1.0
    z = _tango_statistic(t, null, deff)
    if alternative == "two-sided":
        return math.erfc(abs(z) / math.sqrt(2.0))
    return 0.5 * math.erfc((z if alternative == "greater" else -z) / math.sqrt(2.0))

"""Shared test set-up: the ``oracle`` of exact references, and a check that no test
leaves a matplotlib figure open.

The oracle holds independent re-implementations used as references by the statistical
tests: exact enumeration of tiny bootstrap distributions, the Monte Carlo standard errors
that every tolerance is derived from, and BCa's bias correction and jackknife
acceleration computed from the data.  None of it calls pairboot.
"""

from __future__ import annotations

import itertools
import math
import sys
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats

K_SIGMA = 4.5
"""Tolerances are K_SIGMA Monte Carlo standard errors: a two-sided false alarm rate of
about 7e-6 per check, so a failure means a real discrepancy, not bad luck."""


# --- exact bootstrap distributions ---------------------------------------------------------


def multisets(m: int):
    """Every multiset of ``m`` draws with replacement from ``m`` units.

    Yields ``(counts, probability)``: ``counts[u]`` is how often unit ``u`` was drawn and
    the probability is the multinomial one, ``m! / prod(counts!) / m**m``.
    """
    for combo in itertools.combinations_with_replacement(range(m), m):
        counts = np.bincount(combo, minlength=m)
        ways = math.factorial(m) // math.prod(math.factorial(int(c)) for c in counts)
        yield counts, ways / m**m


def merge_atoms(values, probs, rel=1e-9):
    """Sort atoms and merge the ones equal up to float rounding."""
    values, probs = np.asarray(values, float), np.asarray(probs, float)
    order = np.argsort(values, kind="stable")
    values, probs = values[order], probs[order]
    scale = max(1.0, float(np.max(np.abs(values)))) * rel
    out_v, out_p = [values[0]], [probs[0]]
    for v, p in zip(values[1:], probs[1:]):
        if v - out_v[-1] <= scale:
            out_p[-1] += p
        else:
            out_v.append(v)
            out_p.append(p)
    return np.array(out_v), np.array(out_p)


def moments(values, probs):
    """Mean, variance and fourth central moment of a discrete distribution."""
    mean = float(probs @ values)
    var = float(probs @ (values - mean) ** 2)
    mu4 = float(probs @ (values - mean) ** 4)
    return mean, var, mu4


# --- checks of a bootstrap sample against an exact distribution ---------------------------


def check_against_exact(sample, values, probs, *, levels=(0.025, 0.975), endpoints=None):
    """Compare a bootstrap sample with its exact discrete distribution.

    - every resampled value is one of the exact atoms (float rounding aside);
    - mean within K_SIGMA * sqrt(var / R);
    - variance (ddof=1) within K_SIGMA * sqrt((mu4 - var**2) / R), the large-R standard
      error of a sample variance (mu4 the exact fourth central moment);
    - a chi-square goodness-of-fit test over the atoms (expected counts >= 5, smaller
      ones pooled) with p > 1e-6;
    - each endpoint ``e`` at probability ``p``: P(X < e) <= p + tol and P(X <= e) >= p - tol
      with tol = K_SIGMA * sqrt(p (1 - p) / R), which is how a sample quantile of a
      discrete distribution behaves (it may sit on an atom or between two).
    """
    sample = np.asarray(sample, float)
    r = len(sample)
    mean, var, mu4 = moments(values, probs)
    scale = max(1.0, float(np.max(np.abs(values))))
    eps = 1e-9 * scale

    idx = np.clip(np.searchsorted(values, sample), 1, len(values) - 1)
    nearest = np.where(
        np.abs(values[idx - 1] - sample) <= np.abs(values[idx] - sample), idx - 1, idx
    )
    off = np.abs(values[nearest] - sample)
    assert off.max() <= eps, f"a resampled value {sample[off.argmax()]!r} is not a possible one"

    assert abs(sample.mean() - mean) <= K_SIGMA * math.sqrt(var / r), (sample.mean(), mean)
    var_se = math.sqrt(max(mu4 - var**2, 0.0) / r)
    assert abs(sample.var(ddof=1) - var) <= K_SIGMA * var_se, (sample.var(ddof=1), var, var_se)

    observed = np.bincount(nearest, minlength=len(values)).astype(float)
    expected = probs * r
    small = expected < 5
    if small.any():
        observed = np.append(observed[~small], observed[small].sum())
        expected = np.append(expected[~small], expected[small].sum())
    if len(expected) > 1:
        pval = stats.chisquare(observed, expected).pvalue
        assert pval > 1e-6, f"resampled values do not follow the exact distribution (p={pval})"

    if endpoints is not None:
        for e, p in zip(endpoints, levels):
            tol = K_SIGMA * math.sqrt(p * (1 - p) / r)
            below = float(probs[values < e - eps].sum())
            at_or_below = float(probs[values <= e + eps].sum())
            assert below <= p + tol and at_or_below >= p - tol, (e, p, below, at_or_below)


# --- Monte Carlo standard errors ------------------------------------------------------------


def quantile_se(sample, value, n_resamples=None):
    """Monte Carlo s.e. of a sample quantile located at ``value`` of ``sample``'s distribution.

    sqrt(p (1 - p) / R) / f(value), with p the empirical CDF at ``value`` and the density f
    from the spread of the quantiles at p -/+ 0.01 (a distribution-free estimate).
    ``n_resamples`` is the R of the quantile whose error is wanted (default len(sample)).
    """
    sample = np.asarray(sample, float)
    r = n_resamples or len(sample)
    p = float(np.mean(sample <= value))
    p = min(max(p, 1.0 / len(sample)), 1 - 1.0 / len(sample))
    lo_p, hi_p = max(p - 0.01, 0.0), min(p + 0.01, 1.0)
    q_lo, q_hi = np.quantile(sample, [lo_p, hi_p])
    if q_hi <= q_lo:
        return 0.0
    density = (hi_p - lo_p) / (q_hi - q_lo)
    return math.sqrt(p * (1 - p) / r) / density


# --- BCa's constants from the data -----------------------------------------------------------


def bca_z0(boot, estimate):
    """Bias correction from the mid-rank proportion below the estimate (scipy's)."""
    r = len(boot)
    prop = (np.count_nonzero(boot < estimate) + np.count_nonzero(boot <= estimate)) / (2 * r)
    return float(stats.norm.ppf(prop))


def jackknife_acceleration(jack_by_stratum):
    """Davison & Hinkley's stratified jackknife acceleration.

    ``jack_by_stratum``: per stratum, the statistic with each of that stratum's units left
    out (population weights held fixed).  With ``l = (m - 1) (mean(theta_(-u)) - theta_(-u))``
    over the m units of a stratum, ``a = sum_h m^-3 sum l^3 / (6 (sum_h m^-2 sum l^2)^1.5)``;
    with one stratum it is the usual ``sum l^3 / (6 (sum l^2)^1.5)``.
    """
    num = den = 0.0
    for jack in jack_by_stratum:
        jack = np.asarray(jack, float)
        m = len(jack)
        if m < 2:
            continue
        lv = (m - 1) * (jack.mean() - jack)
        num += float(np.sum(lv**3)) / m**3
        den += float(np.sum(lv**2)) / m**2
    return num / (6.0 * den**1.5)


def bca_interval(boot, estimate, jack_by_stratum, level):
    """The BCa interval read off ``boot`` with numpy's linear-interpolation quantiles."""
    z0 = bca_z0(boot, estimate)
    acc = jackknife_acceleration(jack_by_stratum)
    z = stats.norm.ppf([(1 - level) / 2, (1 + level) / 2])
    adjusted = stats.norm.cdf(z0 + (z0 + z) / (1 - acc * (z0 + z)))
    return np.quantile(boot, adjusted)


def kappa4(x) -> float:
    """The fourth cumulant of the values ``x`` taken as a population."""
    c = np.asarray(x, dtype=float) - np.mean(x)
    return float(np.mean(c**4) - 3 * np.mean(c**2) ** 2)


def var_se(var: float, k4: float, r: int) -> float:
    """Monte Carlo s.e. of a sample variance of ``r`` values with variance ``var`` and
    fourth cumulant ``k4``: sqrt((mu4 - var**2) / r), mu4 = 3 var**2 + k4.

    For a bootstrap mean of ``n`` independent draws from a population, ``var`` is
    var_pop / n and ``k4`` is kappa4_pop / n**3."""
    return math.sqrt((2 * var**2 + k4) / r)


@pytest.fixture(scope="session")
def oracle():
    """Independent references for the statistical tests (see this module's docstring)."""
    return SimpleNamespace(
        K=K_SIGMA,
        multisets=multisets,
        merge_atoms=merge_atoms,
        moments=moments,
        check_against_exact=check_against_exact,
        quantile_se=quantile_se,
        bca_z0=bca_z0,
        jackknife_acceleration=jackknife_acceleration,
        bca_interval=bca_interval,
        kappa4=kappa4,
        var_se=var_se,
    )


# --- no figure left open ---------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _no_figure_left_open(request):
    """Fail a test that leaves a matplotlib figure open (it, or a fixture it set up).

    An open figure is state the next test on the worker sees (``plt.gcf()``, the figure
    count), so a test could pass or fail by the order the tests ran in.  Checked only
    where pyplot has been imported; the figures are closed, so the next test starts clean.
    """
    yield
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is None:
        return
    left = plt.get_fignums()
    if left:
        plt.close("all")
        pytest.fail(f"{request.node.nodeid} left {len(left)} matplotlib figure(s) open "
                    "(close what the test or its fixtures open: plt.close(fig))",
                    pytrace=False)

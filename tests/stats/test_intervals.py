"""The Monte Carlo error of the endpoints, and the studentized interval's replicates
without a standard error.

The Monte Carlo error is checked against exact references where there are some (the
spread over seeds of an order statistic of R draws from a lattice, by the binomial law
of the counts; the delta method of the normal interval) and against the spread over
seeds of pairboot's own endpoints (the slow tests, many seeds).  The data of the lattice
case are those of issue 21: 53 items of 0/1 scores, 20,001 resamples (so that the 2.5%
and 97.5% quantiles are single order statistics), where the old 68% band of order
statistics said 0 for a third of the seeds while the endpoint moved a whole step.
"""

from __future__ import annotations

import math
import warnings
from statistics import NormalDist

import numpy as np
import pytest

import pairboot
from pairboot.stats.intervals import (
    Bootstrap,
    bounds,
    monte_carlo_error,
    normal_quantile,
    order_statistic_error,
    p_value,
    quantile_sorted,
)

N, R = 53, 20_001
DISCORDANT = (5, 6)  # items where only A is right, where only B is
A01 = np.r_[np.ones(20), np.ones(5), np.zeros(6), np.zeros(22)]
B01 = np.r_[np.ones(20), np.zeros(5), np.ones(6), np.zeros(22)]


def lattice_cdf(n10: int, n01: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The exact bootstrap distribution of the mean difference of 0/1 pairs: the values
    ``k / n`` and ``P(D <= k / n)``, from the multinomial law of the discordant pairs
    drawn."""
    i = np.arange(n + 1)[:, None]
    j = np.arange(n + 1)[None, :]
    c = n - i - j
    ok = c >= 0
    c = np.where(ok, c, 0)
    lg = np.vectorize(math.lgamma)

    def times_log(count, p):  # count * log(p), 0 where count is 0
        return np.where(count == 0, 0.0, count * math.log(p) if p > 0 else -np.inf)

    p10, p01 = n10 / n, n01 / n
    logp = (math.lgamma(n + 1) - lg(i + 1) - lg(j + 1) - lg(c + 1) + times_log(i, p10)
            + times_log(j, p01) + times_log(c, 1.0 - p10 - p01))
    pmf = np.where(ok, np.exp(np.where(ok, logp, 0.0)), 0.0)
    k = np.broadcast_to(j - i + n, pmf.shape)
    dist = np.bincount(k[ok], weights=pmf[ok], minlength=2 * n + 1)
    return np.arange(-n, n + 1) / n, np.cumsum(dist)


def order_statistic_sd(values: np.ndarray, cdf: np.ndarray, r: int, h: int) -> float:
    """The exact standard deviation over seeds of the (h + 1)-th smallest of ``r`` draws
    from the lattice: it is at most ``x`` when at least ``h + 1`` draws are, a binomial
    count."""
    k = np.arange(r + 1)
    lg = np.array([math.lgamma(x + 1) for x in k])
    below = []
    for f in np.clip(cdf, 0.0, 1.0):
        if f in (0.0, 1.0):
            below.append(f)
            continue
        log_pmf = lg[-1] - lg - lg[::-1] + k * math.log(f) + (r - k) * math.log1p(-f)
        below.append(float(np.exp(log_pmf[h + 1:]).sum()))
    p = np.diff(np.r_[0.0, below])
    mean = float(p @ values)
    return math.sqrt(max(float(p @ (values - mean) ** 2), 0.0))


@pytest.fixture(scope="module")
def exact_lattice_sd() -> tuple[float, float]:
    """The exact Monte Carlo standard deviations of the 95% percentile endpoints."""
    values, cdf = lattice_cdf(*DISCORDANT, N)
    return tuple(order_statistic_sd(values, cdf, R, round(p * (R - 1))) for p in (0.025, 0.975))


@pytest.mark.slow
def test_the_lattice_reference_is_the_spread_over_seeds(exact_lattice_sd):
    """The exact reference against the spread of numpy's own quantiles over 300 seeds
    (3 standard errors of a standard deviation from 300 values: 12%)."""
    ends = []
    for s in range(300):
        w = np.random.default_rng(s).multinomial(N, [5 / N, 6 / N, 42 / N], size=R)
        ends.append(np.quantile((w[:, 1] - w[:, 0]) / N, [0.025, 0.975]))
    spread = np.std(ends, axis=0, ddof=1)
    np.testing.assert_allclose(spread, exact_lattice_sd, rtol=0.12)
    assert min(exact_lattice_sd) > 0.4 / N  # the endpoints move by about half a step


def test_zero_one_data_have_a_monte_carlo_error(exact_lattice_sd):
    """Issue 21: seed 4 is one where the old estimator (half the distance between the
    quantiles at p -/+ sqrt(p (1 - p) / R)) gave exactly 0 at both ends, its quantiles
    on the same lattice point; the endpoints move by 0.44 and 0.50 of a step (1/53)."""
    res = pairboot.compare(A01, B01, seed=4, n_resamples=R)
    # the old estimator, on the same replicates: 0 (so that this test fails with it)
    theta = np.sort(res.bootstrap_distribution)
    for p in (0.025, 0.975):
        s = math.sqrt(p * (1 - p) / R)
        assert quantile_sorted(theta, p + s) == quantile_sorted(theta, p - s)
    for got, want in zip(res.monte_carlo_error, exact_lattice_sd):
        assert 0.5 * want < got < 2.0 * want
    # printed with the interval's digits (3 here, the standard error being 0.06)
    assert "Monte Carlo error of the endpoints +/-0.006 / +/-0.006" in str(res)


@pytest.mark.slow
def test_the_lattice_error_matches_the_spread_over_seeds(exact_lattice_sd):
    """Over 120 seeds: the spread of the endpoints within 3 standard errors of the exact
    one; the estimate never 0 (the old one was, for a third of the seeds), rarely below
    half the truth, and its root mean square 0.65-1.1 of the exact spread.  (Here the
    upper end's level sits right on a jump of the distribution, the estimator's worst
    case: one run cannot tell where the level sits between two points, and averaging
    over where it may sit gives sqrt(0.134) / 0.5 = 0.73 of the truth there, the
    bivariate normal integral of q (1 - q); away from a jump it is above the truth.)"""
    ends, errors = [], []
    for s in range(120):
        res = pairboot.compare(A01, B01, seed=1000 + s, n_resamples=R)
        ends.append(res.confidence_interval)
        errors.append(res.monte_carlo_error)
    errors = np.array(errors)
    spread = np.std(ends, axis=0, ddof=1)
    np.testing.assert_allclose(spread, exact_lattice_sd, rtol=3 / math.sqrt(2 * 119))
    ratio = np.sqrt(np.mean(errors**2, axis=0)) / np.array(exact_lattice_sd)
    assert ((0.65 < ratio) & (ratio < 1.1)).all(), ratio
    assert errors.min() > 0
    assert np.mean(errors < 0.5 * np.array(exact_lattice_sd)) < 0.1


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:the per-item differences are skewed"
                            ":pairboot.SmallSampleWarning")
@pytest.mark.parametrize("method", ["percentile", "bca", "studentized", "normal"])
def test_the_error_matches_the_spread_over_seeds_on_continuous_data(method):
    """Skewed scores, 2,000 resamples, 200 seeds: the estimate's root mean square within
    20% of the endpoints' spread over the seeds (which itself carries 3 / sqrt(2 * 199)
    = 15% at 3 standard errors); BCa's includes its bias correction's own error."""
    rng = np.random.default_rng(5)
    a = rng.uniform(0, 1, 60)
    b = a + rng.lognormal(-2.5, 1.0, 60) - 0.05
    ends, errors = [], []
    for s in range(200):
        res = pairboot.compare(a, b, seed=s, n_resamples=2000, method=method)
        ends.append(res.confidence_interval)
        errors.append(res.monte_carlo_error)
    spread = np.std(ends, axis=0, ddof=1)
    rms = np.sqrt(np.mean(np.square(errors), axis=0))
    np.testing.assert_allclose(rms, spread, rtol=0.2 + 3 / math.sqrt(2 * 199))


def test_a_smooth_distribution_gives_the_familiar_error():
    """Normal replicates: the quantile's Monte Carlo error is sqrt(p (1 - p) / R) over
    the density (the estimator's own noise: a few percent with 100,000 replicates)."""
    theta = np.sort(np.random.default_rng(0).normal(size=100_000))
    for p in (0.025, 0.5, 0.9):
        want = math.sqrt(p * (1 - p) / len(theta)) / (
            math.exp(-normal_quantile(p) ** 2 / 2) / math.sqrt(2 * math.pi))
        assert order_statistic_error(theta, p) == pytest.approx(want, rel=0.06)


def test_the_error_is_the_same_on_any_scale():
    theta = np.sort(np.random.default_rng(1).normal(size=5000))
    ref = order_statistic_error(theta, 0.025)
    for scale in (1e-170, 1e160):
        assert order_statistic_error(theta * scale, 0.025) == pytest.approx(ref * scale,
                                                                             rel=1e-9)
    assert order_statistic_error(np.full(50, 3.0), 0.5) == 0.0
    assert math.isnan(order_statistic_error(np.array([1.0]), 0.5))


def test_the_normal_intervals_error_follows_the_replicates_moments():
    """The delta method on the replicates' mean and standard deviation: for normal
    replicates sd sqrt((1 + z^2 / 2) / R) at both ends; for right-skewed ones the low
    end (centre - z sd, where the mean and the sd err together) errs more."""
    z = normal_quantile(0.975)
    theta = np.sort(np.random.default_rng(2).normal(size=200_000))
    boot = Bootstrap.from_replicates(0.0, theta)
    want = boot.sd * math.sqrt((1 + z * z / 2) / len(theta))
    for got in monte_carlo_error("normal", boot, 0.05):
        assert got == pytest.approx(want, rel=0.02)
    skewed = Bootstrap.from_replicates(1.0, np.random.default_rng(3).exponential(size=100_000))
    low, high = monte_carlo_error("normal", skewed, 0.05)
    # exponential: skewness 2, kurtosis 9; Var = (1 + z^2 (9 - 1) / 4 -+ 2 z) / R
    r = 100_000
    assert low == pytest.approx(math.sqrt((1 + 2 * z * z + 2 * z) / r), rel=0.05)
    assert high == pytest.approx(math.sqrt((1 + 2 * z * z - 2 * z) / r), rel=0.05)


def test_bca_carries_the_error_of_its_bias_correction():
    """BCa's level moves with z0, which is read off the same replicates: for normal
    replicates with the estimate above their median (z0 = 0.15, no acceleration) the
    ends' spread over 400 seeds is about 1.4 times a quantile's at the same level, and
    the estimate follows it (within 15%: 3 standard errors of a spread over 400 seeds,
    and the estimate's own noise)."""
    jack = [np.linspace(-1.0, 1.0, 41)]  # (symmetric: acceleration 0)
    ends, errors = [], []
    for s in range(400):
        theta = np.random.default_rng(100 + s).normal(0.0, 1.0, 4000)
        boot = Bootstrap.from_replicates(0.15, theta, influence=jack)
        ends.append(bounds("bca", boot, 0.05))
        errors.append(monte_carlo_error("bca", boot, 0.05))
    assert boot.acceleration == pytest.approx(0.0, abs=1e-12)
    spread = np.std(ends, axis=0, ddof=1)
    np.testing.assert_allclose(np.sqrt(np.mean(np.square(errors), axis=0)), spread, rtol=0.15)
    # a quantile alone at BCa's level, Phi(2 z0 + z), errs less: 1.38 times less at
    # the low end, 1.15 at the high end (the delta method of the level on z0's share)
    for p, e, ratio in zip((0.025, 0.975), spread, (1.38, 1.15)):
        level = NormalDist().cdf(2 * 0.15 + normal_quantile(p))
        alone = math.sqrt(level * (1 - level) / 4000) / NormalDist().pdf(
            normal_quantile(level))
        assert e / alone == pytest.approx(ratio, rel=0.1)


# --- the studentized interval's resamples without a standard error ---------------------------


def test_quantiles_next_to_infinite_values():
    q = np.array([-np.inf, -np.inf, 1.0, 2.0, np.inf])
    assert quantile_sorted(q, 0.0) == -np.inf
    assert quantile_sorted(q, 0.3) == -np.inf  # between -inf and 1: -inf
    assert quantile_sorted(q, 0.5) == 1.0
    assert quantile_sorted(q, 0.8) == np.inf  # between 2 and inf: inf
    assert math.isnan(quantile_sorted(np.array([-np.inf, np.inf]), 0.5))


def _studentized(share_infinite: float, r: int = 4000) -> Bootstrap:
    """Replicates whose standard error is 0 on ``share_infinite`` of them (half below
    the estimate, half above)."""
    rng = np.random.default_rng(6)
    theta = rng.normal(0.3, 0.1, r)
    se = np.full(r, 0.1)
    bad = rng.random(r) < share_infinite
    se[bad] = 0.0
    return Bootstrap.from_replicates(0.3, theta, se_hat=0.1, se_star=se)


def test_zero_standard_errors_stay_in_the_tails():
    """A resample without a standard error has t = +-inf (it is no longer dropped): 1%
    of them leave the 95% interval defined, a little wider than without them."""
    boot = _studentized(0.01)
    assert np.isinf(boot.t_sorted).sum() == pytest.approx(40, abs=15)
    assert boot.t_dropped == 0
    low, high = bounds("studentized", boot, 0.05)
    clean = bounds("studentized", _studentized(0.0), 0.05)
    assert low < clean[0] and high > clean[1]
    assert all(math.isfinite(e) for e in monte_carlo_error("studentized", boot, 0.05))


def test_an_interval_resting_on_zero_standard_errors_is_undefined():
    """With 10% of the resamples without a standard error, the 2.5% and 97.5% quantiles
    of t are infinite: the interval is undefined (NaN), not unbounded; its p-value,
    the smallest alpha whose interval excludes 0, is still consistent with it."""
    boot = _studentized(0.10)
    assert all(math.isnan(v) for v in bounds("studentized", boot, 0.05))
    assert all(math.isfinite(v) for v in bounds("studentized", boot, 0.5))
    p = p_value("studentized", boot)
    for alpha in (0.05, 0.2, 0.5, 0.8):
        low, high = bounds("studentized", boot, alpha)
        assert (low > 0 or high < 0) == (p < alpha), alpha


def test_two_items_studentized_is_undefined():
    """Issue 22: two items with the studentized interval gave a confident 'worse by
    -0.10 [-0.10, -0.10]' (the resamples of one item twice were dropped, leaving t = 0
    only); half the resamples have no standard error, so it is undefined."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = pairboot.compare([0.1, 0.5], [0.3, 0.3], seed=1, method="studentized")
    assert all(math.isnan(v) for v in res.confidence_interval)
    assert math.isnan(res.p_value)
    assert res.verdict() == "undefined"
    texts = [str(w.message) for w in caught]
    assert any("too few distinct items" in t and "undefined (NaN)" in t for t in texts)

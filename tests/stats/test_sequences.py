"""Confidence sequences (pairboot.stats.sequences): the published boundaries recomputed
independently, batch and item-by-item updates alike, and the error rate under
continuous monitoring by simulation (checked after every item)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pairboot.stats import sequences as cs

ALPHA = 0.05


def reference_asymptotic(x, n_target, alpha, one_sided=False):
    """Waudby-Smith et al.'s asymptotic CS from the formula, loop by loop: the sample
    mean +- the sample sd times the normal-mixture margin, rho^2 from the paper's
    approximation; one-sided, Howard et al.'s closed form in their own parametrisation
    (v = t, rho_H = 1 / rho^2): sqrt(2 (v + rho_H) log(sqrt((v + rho_H) / rho_H) /
    (2 alpha) + 1)) / v."""
    la = -2 * math.log(alpha)
    rho2 = (la + math.log(1 + la)) / n_target
    out = []
    for t in range(2, len(x) + 1):
        m = sum(x[:t]) / t
        sd = math.sqrt(sum((v - m) ** 2 for v in x[:t]) / (t - 1))
        if one_sided:
            rh = 1 / rho2
            r = math.sqrt(2 * (t + rh) * math.log(math.sqrt((t + rh) / rh) / (2 * alpha) + 1)) / t
        else:
            r = math.sqrt(2 * (t * rho2 + 1) / (t * t * rho2)
                          * math.log(math.sqrt(t * rho2 + 1) / alpha))
        out.append((m - sd * r, m + sd * r))
    return np.array(out)


@pytest.mark.parametrize("one_sided", [False, True])
def test_asymptotic_sequence_is_the_published_boundary(one_sided):
    x = np.random.default_rng(1).standard_t(4, 300)
    rho2 = cs.rho2_for(100, ALPHA)
    sides = "greater" if one_sided else "two-sided"
    _, mean, low, high = cs.asymptotic_path((0, 0.0, 0.0), x, rho2, ALPHA, sides)
    ref = reference_asymptotic(list(x), 100, ALPHA, one_sided)
    np.testing.assert_allclose(low[1:], ref[:, 0], rtol=1e-10, atol=1e-12)
    if not one_sided:
        np.testing.assert_allclose(high[1:], ref[:, 1], rtol=1e-10, atol=1e-12)
    else:
        assert np.isinf(high).all()
    assert np.isinf(low[0])  # (one value: no standard deviation yet)


def test_rho_makes_the_sequence_tightest_near_its_target():
    grid = np.linspace(1e-4, 0.05, 20_000)
    widths = cs.mixture_radius(400, grid, ALPHA)
    best = grid[np.argmin(widths)]  # (the paper's rho^2 is an approximation of it,
    assert cs.rho2_for(400, ALPHA) == pytest.approx(best, rel=0.05)  # and so the width:)
    assert cs.mixture_radius(400, cs.rho2_for(400, ALPHA), ALPHA) <= widths.min() * 1.001


def test_asymptotic_path_by_batch_or_by_item_agrees():
    x = np.random.default_rng(2).normal(3, 2, 200)
    rho2 = cs.rho2_for(50, ALPHA)
    state, _, low, high = cs.asymptotic_path((0, 0.0, 0.0), x, rho2, ALPHA)
    one = (0, 0.0, 0.0)
    lows = []
    for v in x:
        one, _, lo, _ = cs.asymptotic_path(one, [v], rho2, ALPHA)
        lows.append(lo[0])
    np.testing.assert_allclose(lows, low, rtol=1e-9)
    np.testing.assert_allclose(state, one, rtol=1e-9)


def reference_log_capital(x, m, alpha):
    """The hedged capital of Waudby-Smith & Ramdas (2024) with predictable plug-in bets,
    written out step by step (the paper's mu_hat, sigma_hat^2, lambda_t, c = 1/2)."""
    k_up = k_down = 1.0
    total = spread = 0.0
    out = []
    for t, v in enumerate(x, start=1):
        var = (0.25 + spread) / t  # sigma^2_{t-1}
        lam = math.sqrt(2 * math.log(2 / alpha) / (var * t * math.log(1 + t)))
        k_up *= 1 + min(lam, 0.5 / m) * (v - m)
        k_down *= 1 - min(lam, 0.5 / (1 - m)) * (v - m)
        total += v
        spread += (v - (0.5 + total) / (t + 1)) ** 2
        out.append(math.log((k_up + k_down) / 2))
    return np.array(out)


@pytest.mark.parametrize("m", [0.3, 0.5, 0.62])
def test_betting_capital_is_the_published_process(m):
    x = np.random.default_rng(3).beta(2, 3, 400)
    np.testing.assert_allclose(cs.log_capital(x, m, ALPHA), reference_log_capital(x, m, ALPHA),
                               rtol=1e-9, atol=1e-9)


def test_betting_sequence_excludes_exactly_the_candidates_whose_capital_crossed():
    x = (np.random.default_rng(4).random(600) < 0.7).astype(float)
    state, low, high = cs.betting_update(cs.betting_start(ALPHA, grid_size=200, target=None), x)
    crossed = np.array([(cs.log_capital(x, m, ALPHA) >= math.log(1 / ALPHA)).any()
                        for m in state.grid])
    np.testing.assert_array_equal(state.first_out != cs.NEVER, crossed)
    kept = state.grid[~crossed]
    assert low[-1] == pytest.approx(kept[0] - 1 / 200)
    assert high[-1] == pytest.approx(kept[-1] + 1 / 200)
    assert np.all(np.diff(low) >= 0) and np.all(np.diff(high) <= 0)  # (nested)


def test_betting_by_batch_or_by_item_agrees():
    x = np.random.default_rng(5).random(150)
    state, low, high = cs.betting_update(cs.betting_start(ALPHA, grid_size=300, target=50), x)
    one = cs.betting_start(ALPHA, grid_size=300, target=50)
    lows, highs = [], []
    for v in x:
        one, lo, hi = cs.betting_update(one, [v])
        lows.append(lo[0])
        highs.append(hi[0])
    np.testing.assert_allclose(lows, low)
    np.testing.assert_allclose(highs, high)
    np.testing.assert_array_equal(one.first_out, state.first_out)


def paired_01(rng, size, discordant=0.2, delta=0.0):
    u = rng.random(size)
    return np.where(u < (discordant - delta) / 2, -1.0, np.where(u < discordant, 1.0, 0.0))


def _bound(rate_alpha, reps):
    return rate_alpha + 3 * math.sqrt(rate_alpha * (1 - rate_alpha) / reps)


def _monitor(kind, rng, n, reps, groups=False):
    """The share of null streams (B - A = 0) whose sequence ever excludes 0, checked
    after every unit: betting (at 0, the candidate 1/2) and asymptotic (from 30 units);
    and a fixed-size 95% normal interval checked the same way (from 30 units)."""
    seq = fixed = 0
    t = np.arange(1, n + 1)
    z = 1.959963984540054
    for _ in range(reps):
        if kind == "01":
            d = paired_01(rng, n * (5 if groups else 1))
        elif kind == "bounded":
            d = rng.beta(2, 5, n * (5 if groups else 1)) - rng.beta(2, 5, n * (5 if groups else 1))
        else:  # heavy tails: Student's t with 3 degrees of freedom
            d = rng.standard_t(3, n * (5 if groups else 1))
        if groups:  # (whole groups of 5 correlated items: the group's mean is the unit)
            d = (d.reshape(n, 5) + rng.normal(0, 0.3, (n, 1)) * (kind == "heavy")).mean(axis=1)
        if kind == "heavy":
            rho2 = cs.rho2_for(500, ALPHA)
            _, mean, low, high = cs.asymptotic_path((0, 0.0, 0.0), d, rho2, ALPHA)
            seq += bool((((low > 0) | (high < 0)) & (t >= 30)).any())
        else:
            seq += bool((cs.log_capital((d + 1) / 2, 0.5, ALPHA, target=500)
                         >= math.log(1 / ALPHA)).any())
            mean = np.cumsum(d) / t
        sd = np.sqrt(np.maximum(np.cumsum(d * d) - t * mean ** 2, 0) / np.maximum(t - 1, 1))
        fixed += bool(((np.abs(mean) > z * sd / np.sqrt(t)) & (t >= 30)).any())
    return seq / reps, fixed / reps


@pytest.mark.parametrize("kind,groups", [("01", False), ("bounded", False), ("heavy", False),
                                         ("01", True), ("heavy", True)])
def test_error_rate_under_continuous_monitoring(kind, groups):
    reps = 300
    seq, fixed = _monitor(kind, np.random.default_rng(40), 2000, reps, groups)
    assert seq <= _bound(ALPHA, reps)
    assert fixed > 0.2  # (the fixed-size interval read after every item: far above 5%)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["01", "heavy"])
def test_error_rate_under_continuous_monitoring_10000(kind):
    reps = 300
    seq, fixed = _monitor(kind, np.random.default_rng(41), 10_000, reps)
    assert seq <= _bound(ALPHA, reps)
    assert fixed > 0.3


def test_betting_is_at_least_as_tight_as_asymptotic_on_01_data_near_its_target():
    rng = np.random.default_rng(6)
    ratios = []
    for _ in range(12):
        d = paired_01(rng, 500, discordant=0.2, delta=0.04)
        _, lo, hi = cs.betting_update(cs.betting_start(ALPHA, target=500), (d + 1) / 2)
        _, _, alo, ahi = cs.asymptotic_path((0, 0.0, 0.0), d, cs.rho2_for(500, ALPHA), ALPHA)
        ratios.append(2 * (hi[-1] - lo[-1]) / (ahi[-1] - alo[-1]))
    assert np.median(ratios) <= 1.0


def test_ratio_sequence_is_the_delta_method_at_every_size():
    """Each size's estimate and standard deviation recomputed from scratch: the plug-in
    difference of ratios and the sample sd of the influence values at it."""
    rng = np.random.default_rng(8)
    den = rng.poisson(5, (300, 2)) + 1
    num = rng.binomial(den, 0.4)
    stats = np.column_stack([num[:, 1], den[:, 1], num[:, 0], den[:, 0]]).astype(float)
    rho2 = cs.rho2_for(100, ALPHA)
    _, est, sd, low, high = cs.ratio_path(cs.ratio_start(), stats, rho2, ALPHA)
    for t in (2, 17, 150, 300):
        nb, db, na, da = stats[:t].T
        rb, ra = nb.sum() / db.sum(), na.sum() / da.sum()
        psi = (nb - rb * db) / db.mean() - (na - ra * da) / da.mean()
        assert est[t - 1] == pytest.approx(rb - ra, rel=1e-12)
        assert sd[t - 1] == pytest.approx(psi.std(ddof=1), rel=1e-9)
        r = psi.std(ddof=1) * cs.mixture_radius(t, rho2, ALPHA)
        assert (low[t - 1], high[t - 1]) == pytest.approx((rb - ra - r, rb - ra + r), rel=1e-9)
    state, *_ = cs.ratio_path(cs.ratio_start(), stats[:100], rho2, ALPHA)
    _, est2, *_ = cs.ratio_path(state, stats[100:], rho2, ALPHA)
    np.testing.assert_allclose(est2, est[100:], rtol=1e-12)


def test_ratio_sequence_error_rate_under_continuous_monitoring():
    rng = np.random.default_rng(9)
    reps, n = 300, 2000
    t = np.arange(1, n + 1)
    wrong = 0
    for _ in range(reps):
        den = rng.poisson(4, (n, 2)) + 1  # (items of 1 to ~12 parts, as tokens or spans)
        num = rng.binomial(den, 0.3)
        stats = np.column_stack([num[:, 1], den[:, 1], num[:, 0], den[:, 0]])
        *_, low, high = cs.ratio_path(cs.ratio_start(), stats, cs.rho2_for(500, ALPHA), ALPHA)
        wrong += bool((((low > 0) | (high < 0)) & (t >= 30)).any())
    assert wrong / reps <= _bound(ALPHA, reps)


def test_one_sided_betting_sequence_error_rate_and_shape():
    rng = np.random.default_rng(10)
    reps = 300
    wrong = 0
    for _ in range(reps):
        x = (paired_01(rng, 2000) + 1) / 2
        wrong += bool((cs.log_capital(x, 0.5, ALPHA, "greater", target=500)
                       >= math.log(1 / ALPHA)).any())
    assert wrong / reps <= _bound(ALPHA, reps)
    x = (paired_01(rng, 800, delta=0.05) + 1) / 2
    _, lo1, hi1 = cs.betting_update(cs.betting_start(ALPHA, "greater", 500, 500), x)
    _, lo2, _ = cs.betting_update(cs.betting_start(ALPHA, "two-sided", 500, 500), x)
    assert (hi1 == 1).all()
    assert lo1[-1] >= lo2[-1]  # (all of alpha on one side: at least as high a lower end)

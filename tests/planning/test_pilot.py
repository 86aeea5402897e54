"""Plans from a pilot: the variance read off the engine's design, by hand; strata; a
pooled metric's delta method against the bootstrap; seeds against docs/runs.md."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import pairboot
from pairboot.comparisons.runs.analysis import analyse

K_SIGMA = 4.5


def test_a_pilot_s_variance_is_the_differences():
    rng = np.random.default_rng(5)
    a = rng.normal(0.5, 0.2, 300)
    b = a + rng.normal(0.02, 0.1, 300)
    res = pairboot.power(a, b, delta=0.01, power=0.8)
    d = b - a
    assert res.unit_variance == pytest.approx(np.var(d, ddof=1), rel=1e-9)
    assert res.sd == pytest.approx(np.std(d, ddof=1), rel=1e-9)
    assert res.correlation == pytest.approx(np.corrcoef(a, b)[0, 1])
    assert res.source == "pilot" and res.pilot_items == 300
    assert res.n_items == pairboot.power(sd=np.std(d, ddof=1), delta=0.01, power=0.8).n_items
    # unpaired: the systems' own variances, two samples
    assert res.n_items_unpaired == pairboot.power(
        sd_a=np.std(a, ddof=1), sd_b=np.std(b, ddof=1), correlation=0.0, delta=0.01,
        power=0.8).n_items_unpaired
    assert res.n_items_unpaired > 3 * res.n_items


def test_strata_plan_the_stratified_variance():
    rng = np.random.default_rng(6)
    n = 600
    strata = np.repeat(["easy", "hard", "mid"], [300, 100, 200])
    sd = np.where(strata == "easy", 0.05, np.where(strata == "hard", 0.4, 0.15))
    a = rng.normal(0.5, 0.2, n)
    shift = np.where(strata == "easy", 0.1, np.where(strata == "hard", -0.2, 0.0))
    b = a + shift + rng.normal(0.0, 1.0, n) * sd
    res = pairboot.power(a, b, strata=strata, delta=0.02, power=0.8)
    d = b - a
    by_name = {s.name: s for s in res.strata}
    expected = 0.0
    for name in ("easy", "hard", "mid"):
        own = d[strata == name]
        w = len(own) / n
        assert by_name[name].variance == pytest.approx(np.var(own, ddof=1), rel=1e-9)
        assert by_name[name].weight == pytest.approx(w) and by_name[name].share == pytest.approx(w)
        expected += w * np.var(own, ddof=1)  # sum_h W_h sigma_h^2, proportional allocation
    assert res.unit_variance == pytest.approx(expected, rel=1e-9)
    assert res.unit_variance < np.var(d, ddof=1)  # (strata explain part of the spread)
    assert res.model == "stratified"
    # population weights other than the shares: sum_h W_h^2 sigma_h^2 / f_h
    weights = {"easy": 0.2, "hard": 0.5, "mid": 0.3}
    other = pairboot.power(a, b, strata=strata, strata_weights=weights, delta=0.02,
                           power=0.8)
    shares = {"easy": 0.5, "hard": 1 / 6, "mid": 1 / 3}
    assert other.unit_variance == pytest.approx(sum(
        weights[h] ** 2 * np.var(d[strata == h], ddof=1) / shares[h] for h in weights),
        rel=1e-9)


def test_a_pooled_metric_s_delta_method_variance_is_the_bootstrap_s():
    # F1 on per-item (tp, fp, fn): the delta method's variance against the bootstrap's.
    # The bootstrap sd's relative Monte Carlo error is about 1/sqrt(2 R) (0.5% at R =
    # 20,000); the delta method and the bootstrap also differ by O(1/n): tolerance
    # K_SIGMA Monte Carlo errors plus 1%.
    rng = np.random.default_rng(7)
    n = 3000
    truth = rng.random(n) < 0.4
    pred_a = np.where(rng.random(n) < 0.8, truth, ~truth)
    pred_b = np.where(rng.random(n) < 0.85, truth, ~truth)

    def counts(pred):
        return np.column_stack([pred & truth, pred & ~truth, ~pred & truth]).astype(float)

    xa, xb = counts(pred_a), counts(pred_b)
    res = pairboot.power(xa, xb, metric="f1", delta=0.02, power=0.8)
    assert res.model == "delta method" and res.metric == "f1"
    boot = pairboot.compare(xa, xb, metric="f1", n_resamples=20_000, seed=1)
    ours = math.sqrt(res.unit_variance / n)
    tol = K_SIGMA / math.sqrt(2 * 20_000) + 0.01
    assert ours == pytest.approx(boot.standard_error, rel=tol)


def test_0_1_pilots_plan_with_connor():
    rng = np.random.default_rng(8)
    a = (rng.random(1000) < 0.7).astype(float)
    b = np.where(rng.random(1000) < 0.15, 1 - a, a)
    res = pairboot.power(a, b, delta=0.02, power=0.8)
    psi = float(np.mean(a != b))
    assert res.model == "connor" and res.discordant == psi
    assert res.n_items == pairboot.power(accuracy_a=a.mean(), delta=0.02, discordant=psi,
                                         power=0.8).n_items


def seeds_table(rng, n=400, r=3, seed_sd=0.3):
    item = rng.normal(0, 1, (n, 1))
    ya = item + rng.normal(0, seed_sd, (1, r)) + rng.normal(0, 1, (n, r))
    yb = (item + rng.normal(0.1, 0.5, (n, 1)) + rng.normal(0, seed_sd, (1, r))
          + rng.normal(0, 1, (n, r)))
    return ya, yb


def test_seeds_from_a_pilot_follow_the_two_way_variance():
    rng = np.random.default_rng(9)
    ya, yb = seeds_table(rng, r=5)
    info = analyse(ya, yb, "seeds", False)
    res = pairboot.power(ya, yb, runs="seeds", n_runs=4, n_items=1000, delta=0.3)
    assert res.run_variance == pytest.approx(info.run_parts)
    assert res.residual_variance == pytest.approx(info.residual_parts)
    # docs/runs.md: var(delta)/n + sum var(b_s)/R + sum var(e_s)/(n R); the floor its
    # second term (RunsInfo.projection's)
    expected = (info.item_part * 400 / 1000 + sum(info.run_parts) / 4
                + sum(info.residual_parts) / (1000 * 4))
    assert res.variance == pytest.approx(expected, rel=1e-12)
    assert res.variance == pytest.approx(info.projection(n_items=1000, n_runs=4)["variance"])
    assert res.floor == pytest.approx(info.projection(n_items=1000, n_runs=4)["floor"])


def test_seeds_say_when_no_number_of_items_is_enough_and_how_many_runs_are():
    # the issue-16 design of docs/runs.md: item-difference sd 0.5, seed sd 0.3, noise sd
    # 1, 3 seeds: the floor is 2 x 0.09 / 3 = 0.06 and at 200 items the variance 0.0646
    at200 = pairboot.power(sd=0.5, run_sd=0.3, residual_sd=1.0, n_runs=3, n_items=200,
                           delta=0.5)
    assert at200.floor == pytest.approx(0.06)
    assert at200.variance == pytest.approx(0.25 / 200 + 0.06 + 2.0 / 600)
    res = pairboot.power(sd=0.5, run_sd=0.3, residual_sd=1.0, n_runs=3, delta=0.3,
                         power=0.8)
    assert res.n_items is None and res.n_runs_needed is not None
    assert "no number of items reaches it with 3 runs" in res.summary()
    enough = pairboot.power(sd=0.5, run_sd=0.3, residual_sd=1.0, n_runs=res.n_runs_needed,
                            delta=0.3, power=0.8)
    fewer = pairboot.power(sd=0.5, run_sd=0.3, residual_sd=1.0,
                           n_runs=res.n_runs_needed - 1, delta=0.3, power=0.8)
    assert enough.n_items is not None and fewer.n_items is None
    # the floor alone: with the runs needed, the power at items without end reaches 0.8
    assert enough.power == 0.8 and enough.floor == pytest.approx(0.06 * 3 / enough.n_runs)
    # runs for a given number of items
    runs = pairboot.power(sd=0.5, run_sd=0.3, residual_sd=1.0, n_items=2000, delta=0.3,
                          power=0.8)
    assert runs.solved == "n_runs" and runs.n_runs >= res.n_runs_needed
    assert pairboot.power(sd=0.5, run_sd=0.3, residual_sd=1.0, n_items=2000,
                          n_runs=runs.n_runs - 1, delta=0.3).power < 0.8


# --- a pilot too small to trust (issue 33) ----------------------------------------------


def test_a_tiny_pilot_warns_and_says_how_far_the_plan_can_be_off():
    # a 3-item pilot planned 1,045 items without a word, where compare() warns
    from scipy import stats  # noqa: PLC0415
    from statsmodels.stats.power import TTestPower  # noqa: PLC0415

    a, b = np.array([0.2, 0.5, 0.9]), np.array([0.3, 0.45, 1.0])
    with pytest.warns(pairboot.SmallSampleWarning, match="a pilot of only 3 items") as seen:
        res = pairboot.power(a, b, delta=0.02, power=0.8)
    assert "42 to 5,815 items" in str(seen[0].message)
    # the sizes at the ends of the variance's 95% chi-square interval (2 df), by hand
    s2 = np.var(b - a, ddof=1)
    ends = [s2 * 2 / stats.chi2.ppf(q, 2) for q in (0.975, 0.025)]
    ref = [math.ceil(TTestPower().solve_power(effect_size=0.02 / math.sqrt(v), alpha=0.05,
                                              power=0.8)) for v in ends]
    assert list(res.pilot_range) == ref == [42, 5815]
    assert res.pilot_range[0] < res.n_items < res.pilot_range[1]
    assert "95% range from the pilot    42 to 5,815 items" in pairboot.report.render_power(
        res, "text")


def test_a_large_pilot_is_quiet_and_its_range_is_narrow():
    rng = np.random.default_rng(0)
    a = rng.normal(0, 1, 200)
    b = a + rng.normal(0.1, 0.5, 200)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        size = pairboot.power(a, b, delta=0.1, power=0.8)
        mde = pairboot.power(a, b, n_items=100, power=0.8)
        power = pairboot.power(a, b, n_items=100, delta=0.1)
    assert size.pilot_range[0] < size.n_items < size.pilot_range[1] < 1.3 * size.n_items
    assert mde.pilot_range[0] < mde.delta < mde.pilot_range[1]
    assert power.pilot_range[0] < power.power < power.pilot_range[1]
    assert pairboot.power(sd=0.5, delta=0.1, power=0.8).pilot_range is None


def test_a_0_1_pilot_with_few_discordant_items_warns():
    a = np.r_[np.ones(60), np.zeros(30), 1, 0, 1]
    b = np.r_[np.ones(60), np.zeros(30), 0, 1, 1]  # 2 of 93 items discordant
    with pytest.warns(pairboot.SmallSampleWarning, match="differ on only 2 of its 93"):
        res = pairboot.power(a, b, delta=0.02, power=0.8)
    lo, hi = res.pilot_range
    assert lo <= res.n_items < hi

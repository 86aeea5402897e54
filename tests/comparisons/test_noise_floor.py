"""The noise floor (pairboot.noise_floor, compare(..., noise_floor=...)): A/A comparisons of
simulated identical systems reject at the nominal rate, the floor's width equals an
independent normal computation, it scales with the units, and bad input is one line."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from scipy import stats

import pairboot
from pairboot.errors import InputError
from pairboot.report import render


def _two_runs(rng, n_items: int, n_trials: int, shift: float = 0.0):
    """Two independent runs of one system: each item's success rate p_i ~ Beta(2, 2),
    every trial a Bernoulli(p_i) (the second run's rate moved by ``shift``)."""
    p = rng.beta(2.0, 2.0, size=n_items)
    base = (rng.random((n_items, n_trials)) < p[:, None]) * 1.0
    rerun = (rng.random((n_items, n_trials)) < np.clip(p + shift, 0, 1)[:, None]) * 1.0
    return base, rerun


def _rejection_rate(simulations: int, *, n_items: int, n_trials: int, seed: int,
                    **options) -> float:
    """How often the A/A interval of identical systems excludes 0."""
    rng = np.random.default_rng(seed)
    rejected = 0
    for s in range(simulations):
        base, rerun = _two_runs(rng, n_items, n_trials)
        with warnings.catch_warnings():  # (small-sample notes: the rate is what is read)
            warnings.simplefilter("ignore")
            floor = pairboot.noise_floor(base, rerun, runs="samples", seed=s, **options)
        rejected += floor.rejects
        assert floor.rejects == (floor.p_value < 0.05)  # (the test and the interval agree)
    return rejected / simulations


def _check_rate(rate: float, simulations: int, alpha: float = 0.05) -> None:
    """Within 3.5 Monte Carlo standard errors of the nominal rate."""
    mc = math.sqrt(alpha * (1 - alpha) / simulations)
    assert abs(rate - alpha) <= 3.5 * mc, (rate, mc)


def test_a_a_of_identical_systems_rejects_at_about_the_nominal_rate():
    """Fast: 300 A/A comparisons of 80 items x 4 trials, the item bootstrap (R = 199)."""
    _check_rate(_rejection_rate(300, n_items=80, n_trials=4, seed=11, n_resamples=199), 300)


@pytest.mark.slow
@pytest.mark.parametrize("options", [
    {"n_resamples": 999},
    {"n_resamples": 999, "metric": "pass^2"},
    {"estimand": "suite", "n_resamples": 99},  # (a closed form: the resamples unread)
    {"estimand": "suite", "n_resamples": 99, "metric": "pass^2"},
], ids=["mean", "pass^2", "suite-mean", "suite-pass^2"])
def test_a_a_rejects_at_the_nominal_rate(options):
    """2,000 A/A comparisons of 100 items x 4 trials each (Monte Carlo standard error of
    the rate 0.0049): both estimands, pass@1 and pass^2."""
    _check_rate(_rejection_rate(2000, n_items=100, n_trials=4, seed=7, **options), 2000)


def test_a_a_of_different_systems_rejects():
    """The test can fail: a rerun 0.15 better is not the same build."""
    base, rerun = _two_runs(np.random.default_rng(3), 200, 4, shift=0.15)
    floor = pairboot.noise_floor(base, rerun, runs="samples", seed=1, n_resamples=999)
    assert floor.rejects and floor.p_value < 0.05
    assert "more than re-running explains" in " ".join(str(floor).split())


def test_the_floor_is_the_normal_interval_of_the_item_differences():
    """method="normal": the floor is +- z times the bootstrap's standard error of the
    mean item difference, which is ``sd(d) / sqrt(N)`` (divisor N) to its Monte Carlo
    error; the minimum detectable difference is (z_0.975 + z_0.8) times it (scipy)."""
    base, rerun = _two_runs(np.random.default_rng(5), 150, 5)
    floor = pairboot.noise_floor(base, rerun, runs="samples", method="normal", seed=2,
                                 n_resamples=20_000)
    d = rerun.mean(axis=1) - base.mean(axis=1)
    se = d.std(ddof=0) / math.sqrt(len(d))
    z = stats.norm.ppf(0.975)
    assert floor.estimate == pytest.approx(d.mean(), abs=1e-12)
    # (the bootstrap SD's relative Monte Carlo error is 1 / sqrt(2 R) = 0.5%: 4 of them)
    assert floor.standard_error == pytest.approx(se, rel=0.02)
    assert floor.half_width == pytest.approx(z * se, rel=0.02)
    assert floor.floor.high - floor.floor.low == pytest.approx(  # (its own se, exactly)
        2 * z * floor.standard_error, rel=1e-9)
    assert floor.floor.low < 0 < floor.floor.high
    assert floor.minimum_detectable == pytest.approx(
        (z + stats.norm.ppf(0.8)) * floor.standard_error, rel=1e-9)


def test_the_suite_floor_is_the_closed_form_of_the_trials_variance():
    """estimand="suite": the floor is +- z sqrt(sum_i (v_base,i + v_rerun,i)) / N, v =
    c (n - c) / (n^2 (n - 1)) of each item's n trials and c successes, computed here."""
    base, rerun = _two_runs(np.random.default_rng(6), 90, 6)
    floor = pairboot.noise_floor(base, rerun, runs="samples", estimand="suite")

    def v(t):
        n, c = t.shape[1], t.sum(axis=1)
        return c * (n - c) / (n**2 * (n - 1))

    se = math.sqrt(np.sum(v(base) + v(rerun))) / len(base)
    assert floor.half_width == pytest.approx(stats.norm.ppf(0.975) * se, rel=1e-9)
    assert floor.standard_error == pytest.approx(se, rel=1e-9)


def test_a_floor_of_other_units_is_scaled_by_the_root_of_their_ratio():
    rng = np.random.default_rng(8)
    base, rerun = _two_runs(rng, 200, 4)
    a, b = _two_runs(rng, 50, 4)
    floor = pairboot.noise_floor(base, rerun, runs="samples", seed=1, n_resamples=999)
    res = pairboot.compare(a, b, runs="samples", seed=1, n_resamples=999, noise_floor=floor)
    stated = res.noise_floor
    assert (stated.n_units, stated.measured_units, stated.scale) == (50, 200, 2.0)
    assert stated.floor.low == pytest.approx(2 * floor.floor.low, rel=1e-12)
    assert stated.floor.high == pytest.approx(2 * floor.floor.high, rel=1e-12)
    assert stated.standard_error == pytest.approx(2 * floor.standard_error, rel=1e-12)
    assert stated.minimum_detectable == pytest.approx(2 * floor.minimum_detectable, rel=1e-12)
    assert stated.estimate == floor.estimate  # (the A/A as measured)
    text = str(res)
    assert "Measured on 200 items and scaled to 50 by sqrt(200 / 50) = 2" in text


def test_two_runs_given_to_compare_are_its_noise_floor():
    """compare(noise_floor=(base, rerun)) measures them with its design: the same as
    noise_floor() with the same options; one-sided, the detectable difference is."""
    rng = np.random.default_rng(9)
    base, rerun = _two_runs(rng, 100, 4)
    _, b = _two_runs(rng, 100, 4)
    kw = dict(runs="samples", metric="pass^2", seed=4, n_resamples=999)
    res = pairboot.compare(base, b, noise_floor=(base, rerun), alternative="greater", **kw)
    alone = pairboot.noise_floor(base, rerun, alternative="greater", **kw)
    assert res.noise_floor == alone
    assert alone.minimum_detectable == pytest.approx(
        (stats.norm.ppf(0.95) + stats.norm.ppf(0.8)) * alone.standard_error, rel=1e-9)
    assert alone.confidence_interval.high < math.inf  # (the A/A is two-sided)


def test_every_report_states_the_floor_beside_the_verdict():
    rng = np.random.default_rng(10)
    base, rerun = _two_runs(rng, 60, 4)
    b = _two_runs(rng, 60, 4)[0]
    res = pairboot.compare(base, b, runs="samples", seed=1, n_resamples=499,
                           noise_floor=(base, rerun))
    for fmt in ("text", "markdown", "github", "latex", "html"):
        assert "re-running alone moves a difference by" in render(res, fmt), fmt
    loaded = json.loads(render(res, "json"))
    assert loaded["noise_floor"]["half_width"] == pytest.approx(res.noise_floor.half_width)
    assert loaded["noise_floor"]["n_units"] == 60
    plain = pairboot.compare(base, b, runs="samples", seed=1, n_resamples=499)
    assert "noise_floor" not in json.loads(render(plain, "json"))
    assert "re-running" not in str(plain)
    floor = res.noise_floor
    inside = "inside it" if floor.within(res.estimate) else "outside it"
    assert f"lies {inside}" in str(res)
    # the floor's own report: text and markdown state the interval and its half-width,
    # the JSON record carries the numbers
    stated = (f"re-running alone moves a difference by [{floor.floor.low:+.3f}, "
              f"{floor.floor.high:+.3f}] at 60 items (95%; +-{floor.half_width:.3f})")
    for fmt in ("text", "markdown"):
        assert stated in " ".join(render(floor, fmt).split()), fmt
    record = json.loads(render(floor, "json"))
    assert record["schema"] == "pairboot.noise/1"
    assert record["half_width"] == pytest.approx(floor.half_width, rel=1e-12)
    assert (record["floor"]["low"], record["floor"]["high"]) == pytest.approx(
        (floor.floor.low, floor.floor.high), rel=1e-12)


def test_a_floor_without_runs_is_that_of_one_score_per_item():
    rng = np.random.default_rng(12)
    base = rng.random(80)
    rerun = base + rng.normal(0, 0.05, 80)
    floor = pairboot.noise_floor(base, rerun, seed=1, n_resamples=999)
    assert floor.n_trials is None and floor.runs is None and floor.n_units == 80


@pytest.mark.parametrize("call, param, words", [
    (lambda a, b: pairboot.noise_floor(a[:50], b, runs="samples"), "rerun",
     "`base` and `rerun` must score the same items"),
    (lambda a, b: pairboot.noise_floor(a, b[:, :3], runs="samples"), "rerun",
     "`base` has 4 trials per item and `rerun` 3"),
    (lambda a, b: pairboot.noise_floor(a, b * 2, runs="samples", metric="pass^2"), "rerun",
     "`rerun` item 0"),
    (lambda a, b: pairboot.compare(a, b, runs="samples", noise_floor=a), "noise_floor",
     "must be two runs of A"),
    (lambda a, b: pairboot.compare(a, b, runs="samples", noise_floor=(a[:50], b[:50]),
                                   groups=np.arange(60) // 2), "noise_floor",
     "its runs have 50 items and `a` 60"),
    (lambda a, b: pairboot.compare(a, b, runs="samples", noise_floor=(a[:, :3], b)),
     "noise_floor", "`noise_floor[0]` has 3 trials per item and `noise_floor[1]` 4"),
    (lambda a, b: pairboot.compare(a, b, runs="samples", metric="pass^2",
                                   noise_floor=pairboot.noise_floor(a, b, runs="samples")),
     "noise_floor", "measured with `metric='mean'`"),
    (lambda a, b: pairboot.compare(a[:, :3], b[:, :3], runs="samples",
                                   noise_floor=pairboot.noise_floor(a, b, runs="samples")),
     "noise_floor", "measured with 4 trials per item and `a` has 3"),
    (lambda a, b: pairboot.compare(a, b, runs="samples", groups=np.arange(60) // 3,
                                   noise_floor=pairboot.noise_floor(a, b, runs="samples")),
     "noise_floor", "measured over items and the comparison resamples groups"),
], ids=["lengths", "trials", "scores", "type", "labels", "shorthand-trials", "metric",
        "floor-trials", "units"])
def test_bad_input_is_one_line_naming_the_argument(call, param, words):
    a, b = _two_runs(np.random.default_rng(1), 60, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(InputError) as err:
            call(a, b)
    assert err.value.param == param
    assert words in str(err.value) and "\n" not in str(err.value)


def test_runs_that_agree_on_every_item_have_no_floor():
    """A deterministic evaluation: re-running moved nothing, and the report says so
    instead of a floor of +-0."""
    a = np.random.default_rng(13).random(40)
    with pytest.warns(pairboot.DegenerateDataWarning):
        floor = pairboot.noise_floor(a, a.copy(), seed=1, n_resamples=999)
    assert floor.half_width == 0 and not floor.rejects and floor.minimum_detectable is None
    assert "the two runs agree on every item" in " ".join(str(floor).split())

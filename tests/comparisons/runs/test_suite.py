"""compare(..., runs="samples", estimand="suite"): the fixed-suite interval of repeated
trials (pairboot.comparisons.runs.suite), its variance by hand, its refusals, and its
coverage by simulation against the population interval's."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest

import pairboot
from pairboot.errors import InputError
from pairboot.rendering import rendered
from pairboot.stats.trials import estimate_variance, pass_hat_k


def tables(seed=0, n=40, trials=6, shift=0.1):
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 2, n)
    a = (rng.random((n, trials)) < p[:, None]).astype(float)
    b = (rng.random((n, trials)) < np.clip(p + shift, 0, 1)[:, None]).astype(float)
    return a, b


def test_the_mean_s_standard_error_is_the_trials_variance_by_hand():
    a, b = tables()
    a[3, 5] = np.nan  # (an item with fewer trials)
    res = pairboot.compare(a, b, runs="samples", estimand="suite", seed=1)
    n_a, n_b = (~np.isnan(a)).sum(1), (~np.isnan(b)).sum(1)
    v = np.nanvar(a, 1, ddof=1) / n_a + np.nanvar(b, 1, ddof=1) / n_b
    se = math.sqrt(v.sum()) / len(a)
    assert res.estimand == "suite" and res.method == "normal"
    assert res.standard_error == pytest.approx(se, rel=1e-12)
    est = np.nanmean(b, 1).mean() - np.nanmean(a, 1).mean()
    assert res.estimate == pytest.approx(est, rel=1e-12)
    z = 1.959963984540054
    assert res.confidence_interval.low == pytest.approx(est - z * se, rel=1e-9)
    assert res.p_value == pytest.approx(math.erfc(abs(est / se) / math.sqrt(2)), rel=1e-9)


def test_pass_hat_k_with_strata_weighs_the_items_as_compare_does():
    a, b = tables(seed=3, n=60, trials=6)
    strata = ["x"] * 30 + ["y"] * 30
    weights = {"x": 0.7, "y": 0.3}
    res = pairboot.compare(a, b, runs="samples", metric="pass^3", estimand="suite",
                           strata=strata, strata_weights=weights, seed=1)
    n, ca, cb = np.full(60, 6), a.sum(1), b.sum(1)
    w = np.r_[np.full(30, 0.7 / 30), np.full(30, 0.3 / 30)]
    d = pass_hat_k(n, cb, 3) - pass_hat_k(n, ca, 3)
    var = w ** 2 @ (estimate_variance("pass^", n, ca, 3) + estimate_variance("pass^", n, cb, 3))
    assert res.estimate == pytest.approx(w @ d, rel=1e-12)
    assert res.standard_error == pytest.approx(math.sqrt(var), rel=1e-12)
    population = pairboot.compare(a, b, runs="samples", metric="pass^3", strata=strata,
                                  strata_weights=weights, seed=1)
    assert population.estimand == "population"
    assert population.estimate == pytest.approx(res.estimate, rel=1e-12)
    first = res.strata[0]
    assert first.estimate == pytest.approx(d[:30].mean(), rel=1e-12)


def test_the_reports_name_the_estimand_and_the_population_json_is_unchanged():
    a, b = tables()
    res = pairboot.compare(a, b, runs="samples", metric="pass^2", estimand="suite", seed=1)
    out = json.loads(rendered(res, "json"))
    assert out["estimand"] == "suite" and "fixed suite" in out["method_text"]
    assert "fixed-suite" in str(res) and "generalized accuracy" in str(res)
    for fmt in ("markdown", "latex", "html"):
        assert "fixed suite" in rendered(res, fmt)
    population = pairboot.compare(a, b, runs="samples", metric="pass^2", seed=1)
    assert "estimand" not in json.loads(rendered(population, "json"))
    assert "fixed" not in str(population)


@pytest.mark.parametrize("kwargs, param, words", [
    ({"estimand": "suite"}, "estimand", "needs `runs='samples'`"),
    ({"runs": "seeds", "estimand": "suite"}, "estimand", "needs `runs='samples'`"),
    ({"runs": "samples", "estimand": "fixed"}, "estimand", "must be one of"),
    ({"runs": "samples", "estimand": "suite", "metric": "pass^4"}, "a", "needs 8 per item"),
    ({"runs": "samples", "estimand": "suite", "method": "bca"}, "method", "normal one"),
    ({"runs": "samples", "estimand": "suite", "test": "permutation", "metric": "pass^2"},
     "test", "population estimand"),
    ({"runs": "samples", "estimand": "suite", "paired": False}, "paired", "paired=False"),
    ({"runs": "samples", "estimand": "suite", "paired_runs": True}, "paired_runs",
     "runs='seeds'"),
    ({"runs": "samples", "estimand": "suite", "metric": "median"}, "metric", "takes the mean"),
])
def test_what_the_suite_interval_does_not_take_is_one_line(kwargs, param, words):
    a, b = tables()
    with pytest.raises(InputError, match=words) as info:
        pairboot.compare(a, b, **kwargs)
    assert info.value.param == param and "\n" not in str(info.value)


def test_a_family_without_runs_refuses_the_suite_in_one_line():
    a, b = tables()  # (a family's suite intervals: tests/comparisons/runs/test_suite_family.py)
    with pytest.raises(InputError, match="needs `runs='samples'`") as info:
        pairboot.compare_many({"a": a, "b": b, "c": b}, estimand="suite")
    assert info.value.param == "estimand"


# --- coverage by simulation -------------------------------------------------------
# 60 items, 8 trials each, pass^2; A's item success rates Beta(2, 2), B's A's plus a
# difference N(0.05, 0.2) per item (clipped to [0, 1]): the items' true differences
# vary, so the two targets differ.  400 simulated evaluations each: a coverage's Monte
# Carlo standard error is sqrt(0.95 * 0.05 / 400) = 0.011; the tolerance is 3 of them.
# (docs/trials.md's table: the same design, 2,000 evaluations and four metrics.)

N, T, S, TOL = 60, 8, 400, 0.033


def _items(rng):
    pa = rng.beta(2, 2, N)
    return pa, np.clip(pa + rng.normal(0.05, 0.2, N), 0, 1)


def _coverage(fixed: bool, seed: int):
    """How often each interval covers the suite's value (its items' mean pass^2
    difference) and the population's, with the items fixed or redrawn."""
    rng = np.random.default_rng(seed)
    big = np.random.default_rng(99)
    pa_all, pb_all = (lambda p: (p, np.clip(p + big.normal(0.05, 0.2, 10**6), 0, 1)))(
        big.beta(2, 2, 10**6))
    population_value = float(np.mean(pb_all ** 2 - pa_all ** 2))  # (MC error ~ 2e-4)
    pa, pb = _items(np.random.default_rng(12345))
    hits = {(e, t): 0 for e in ("suite", "population") for t in ("suite", "population")}
    for s in range(S):
        if not fixed:
            pa, pb = _items(rng)
        suite_value = float(np.mean(pb ** 2 - pa ** 2))
        a = (rng.random((N, T)) < pa[:, None]).astype(float)
        b = (rng.random((N, T)) < pb[:, None]).astype(float)
        for estimand, r in (("suite", 100), ("population", 999)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                low, high = pairboot.compare(a, b, runs="samples", metric="pass^2",
                                             estimand=estimand, n_resamples=r,
                                             seed=s).confidence_interval
            hits[estimand, "suite"] += low <= suite_value <= high
            hits[estimand, "population"] += low <= population_value <= high
    return {key: count / S for key, count in hits.items()}


@pytest.mark.slow
def test_items_fixed_the_suite_interval_covers_the_suite_and_the_population_one_over_covers():
    cover = _coverage(fixed=True, seed=1)
    assert abs(cover["suite", "suite"] - 0.95) < TOL
    # too wide for a fixed suite: it also covers a redraw of the items that did not happen
    assert cover["population", "suite"] > 0.95 + TOL


@pytest.mark.slow
def test_items_redrawn_the_population_interval_covers_and_the_suite_one_under_covers():
    cover = _coverage(fixed=False, seed=2)
    assert abs(cover["population", "population"] - 0.95) < TOL
    assert abs(cover["suite", "suite"] - 0.95) < TOL  # (each draw's own suite)
    assert cover["suite", "population"] < 0.95 - TOL

"""compare(..., test="permutation"): the paired permutation test beside the interval.

References: a brute-force enumeration of every swap written here (the mean, pooled F1,
whole groups, strata), scipy's ``permutation_test(..., permutation_type="samples")``
within Monte Carlo error, and the swaps' independence of the items' order.
"""

from __future__ import annotations

import itertools
import json
import math
import warnings

import numpy as np
import pytest
from scipy.stats import permutation_test as scipy_permutation_test

import pairboot
from pairboot.errors import InputError
from pairboot.report import render

quiet = pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")


def brute(a, b, statistic, units, side="two-sided"):
    """Every swap of the units (lists of item rows), exactly."""
    t = statistic(a, b)
    count = 0
    for pattern in itertools.product([0, 1], repeat=len(units)):
        swap = np.zeros(len(a), dtype=bool)
        for on, rows in zip(pattern, units):
            swap[rows] = bool(on)
        s = swap.reshape(-1, *([1] * (a.ndim - 1)))
        ap, bp = np.where(s, b, a), np.where(s, a, b)
        v = statistic(ap, bp)
        count += {"greater": v >= t - 1e-12, "less": v <= t + 1e-12}.get(
            side, abs(v) >= abs(t) - 1e-12)
    return count / 2 ** len(units)


def mean_diff(a, b):
    return float(np.mean(b - a))


def f1_diff(a, b):
    def f1(x):
        tp, fp, fn = x.sum(axis=0)
        return 2 * tp / (2 * tp + fp + fn)
    return f1(b) - f1(a)


@quiet
@pytest.mark.parametrize("side", ["two-sided", "greater", "less"])
def test_exact_enumeration_of_a_mean_is_brute_force(side):
    rng = np.random.default_rng(1)
    a = rng.random(12)
    b = a + rng.normal(0.05, 0.1, 12)
    res = pairboot.compare(a, b, test="permutation", alternative=side, seed=1,
                           n_resamples=200)
    assert res.test.exact and res.test.n == 12
    assert len(res.test.null_distribution) == 2 ** 12
    assert res.test.p_value == pytest.approx(
        brute(a, b, mean_diff, [[i] for i in range(12)], side), abs=1e-12)


@quiet
def test_exact_enumeration_of_pooled_f1_is_brute_force():
    rng = np.random.default_rng(2)
    a = rng.integers(0, 4, (10, 3)).astype(float)
    b = rng.integers(0, 4, (10, 3)).astype(float)
    res = pairboot.compare(a, b, metric="f1", test="permutation", seed=1, n_resamples=200)
    assert res.test.p_value == pytest.approx(
        brute(a, b, f1_diff, [[i] for i in range(10)]), abs=1e-12)


@quiet
def test_whole_groups_swap_together():
    rng = np.random.default_rng(3)
    groups = np.repeat(np.arange(8), 3)
    a = rng.random(24)
    b = a + rng.normal(0.05, 0.1, 24)
    res = pairboot.compare(a, b, groups=groups, test="permutation", seed=1, n_resamples=200)
    units = [list(np.flatnonzero(groups == g)) for g in range(8)]
    assert res.test.n == 8 and res.test.p_value == pytest.approx(
        brute(a, b, mean_diff, units), abs=1e-12)


@quiet
def test_strata_restrict_nothing_but_weigh_the_statistic():
    rng = np.random.default_rng(4)
    strata = np.repeat(["x", "y"], [6, 8])
    a = rng.random(14)
    b = a + rng.normal(0.05, 0.1, 14)
    weights = {"x": 0.7, "y": 0.3}

    def weighted(x, y):
        d = y - x
        return 0.7 * d[strata == "x"].mean() + 0.3 * d[strata == "y"].mean()

    res = pairboot.compare(a, b, strata=strata, strata_weights=weights, test="permutation",
                           seed=1, n_resamples=200)
    assert res.test.p_value == pytest.approx(
        brute(a, b, weighted, [[i] for i in range(14)]), abs=1e-12)


def test_random_swaps_of_a_mean_agree_with_scipy():
    rng = np.random.default_rng(5)
    a = rng.random(400)
    b = a + rng.normal(0.004, 0.1, 400)
    r = 4000
    ours = pairboot.compare(a, b, test="permutation", seed=2, n_resamples=r).test
    assert not ours.exact and len(ours.null_distribution) == r
    ref = scipy_permutation_test((b - a,), np.mean, permutation_type="samples",
                                 n_resamples=20_000, random_state=3).pvalue
    # the two Monte Carlo errors, in quadrature, 4.5 of them (conftest's K_SIGMA)
    se = math.sqrt(ref * (1 - ref) / r + ref * (1 - ref) / 20_000)
    assert 0.05 < ref < 0.95  # (a p-value with room on both sides)
    assert abs(ours.p_value - ref) <= 4.5 * se, (ours.p_value, ref, se)


def test_the_swaps_do_not_depend_on_the_items_order():
    rng = np.random.default_rng(6)
    n = 300
    a = rng.random(n)
    b = a + rng.normal(0.01, 0.1, n)
    ids = np.array([f"q{i}" for i in range(n)])
    order = rng.permutation(n)
    first = pairboot.compare(a, b, ids=ids, test="permutation", seed=9, n_resamples=500)
    again = pairboot.compare(a[order], b[order], ids=ids[order], test="permutation",
                             seed=9, n_resamples=500)
    assert first.test.p_value == again.test.p_value
    np.testing.assert_allclose(np.sort(first.test.null_distribution),
                               np.sort(again.test.null_distribution), rtol=0, atol=1e-12)


@quiet
def test_the_null_is_symmetric_for_any_metric():
    # (the complement of a swap pattern flips the statistic's sign: exactly symmetric)
    rng = np.random.default_rng(7)
    a = rng.integers(0, 5, (9, 3)).astype(float)
    b = rng.integers(0, 5, (9, 3)).astype(float)
    null = pairboot.compare(a, b, metric="f1", test="permutation", seed=1,
                            n_resamples=100).test.null_distribution
    np.testing.assert_allclose(np.sort(null), np.sort(-null), rtol=0, atol=1e-12)


@pytest.mark.parametrize("kwargs, words", [
    ({"paired": False}, "not `paired=False`"),
    ({"hypothesis": "non-inferiority", "margin": 0.1}, "not a margin"),
])
def test_where_the_permutation_test_does_not_hold_it_is_refused(kwargs, words):
    rng = np.random.default_rng(8)
    a, b = rng.random(40), rng.random(40)
    with pytest.raises(InputError) as info:
        pairboot.compare(a, b, test="permutation", n_resamples=99, **kwargs)
    assert info.value.param == "test" and words in str(info.value)


def test_runs_refuse_it_because_seeds_are_not_exchangeable():
    rng = np.random.default_rng(9)
    a, b = rng.random((40, 3)), rng.random((40, 3))
    with pytest.raises(InputError) as info:
        pairboot.compare(a, b, runs="seeds", test="permutation")
    assert info.value.param == "test" and "not exchangeable" in str(info.value)


def test_the_reports_say_it():
    rng = np.random.default_rng(10)
    a = rng.random(200)
    b = a + rng.normal(0.02, 0.1, 200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = pairboot.compare(a, b, test="permutation", seed=1, n_resamples=999)
    text = " ".join(render(res, "text").split())
    assert "Paired permutation test (two-sided, 999 random swaps of A and B per item)" in text
    out = json.loads(render(res, "json"))
    assert out["test"]["name"] == "permutation" and out["test"]["permutations"] == 999
    assert out["test"]["p_value"] == pytest.approx(res.test.p_value)


def test_without_a_seed_the_swaps_still_follow_the_ids():
    # (the test derives its own seed from the keyed design: the same for any row order)
    rng = np.random.default_rng(12)
    n = 200
    a = rng.random(n)
    b = a + rng.normal(0.02, 0.1, n)
    ids = np.array([f"q{i}" for i in range(n)])
    order = rng.permutation(n)
    first = pairboot.compare(a, b, ids=ids, test="permutation", n_resamples=500)
    again = pairboot.compare(a[order], b[order], ids=ids[order], test="permutation",
                             n_resamples=500)
    assert first.test.p_value == again.test.p_value


@quiet
def test_swaps_that_leave_the_metric_undefined_are_counted_out_and_said():
    a = np.array([[1, 1], [1, 1], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0]], dtype=float)
    b = np.array([[0, 0], [0, 0], [1, 1], [0, 1], [1, 1], [0, 1], [1, 1]], dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = pairboot.compare(a, b, metric="ratio", test="permutation", seed=1,
                               n_resamples=100)
    t = res.test
    assert t.exact and len(t.null_distribution) == 126  # (2 of the 128 are 0/0)
    assert "2 of 128 swaps left the metric undefined" in t.method


def test_a_random_permutation_p_prints_as_it_is_in_every_format():
    """(1 + c) / (R + 1) is a p-value, never 0: the text prints it, not a bound, and the
    JSON carries the same number."""
    rng = np.random.default_rng(2)
    a = rng.random(200)
    b = a + 0.2 + rng.normal(0, 0.05, 200)
    res = pairboot.compare(a, b, test="permutation", seed=1, n_resamples=9999)
    assert res.test.p_value == pytest.approx(1 / 10_000)
    text = " ".join(render(res, "text").split())
    assert "random swaps of A and B per item): p = 0.0001." in text
    assert json.loads(render(res, "json"))["test"]["p_value"] == pytest.approx(1e-4)

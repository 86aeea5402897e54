"""Pooled metrics with several runs: the linearised two-way variance.

The mean, given as a Metric object, takes the pooled path (items x runs x statistics):
its estimate, variance and degrees of freedom must equal the mean's own path; F1 on
items x runs x (tp, fp, fn) pools every item-run, and its variance is the two-way
variance of the linearised values computed independently here.
"""

from __future__ import annotations

import numpy as np
import pytest

import pairboot
from pairboot.metrics import resolve_metric
from pairboot.runs import analyse

pytestmark = pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")


def test_mean_through_the_pooled_path_equals_the_mean():
    rng = np.random.default_rng(3)
    ya = rng.normal(size=(60, 3))
    yb = ya + 0.2 + rng.normal(0, 0.5, (60, 3)) + rng.normal(0, 0.3, 3)
    pooled = pairboot.compare(ya[:, :, None], yb[:, :, None], runs="seeds",
                              metric=resolve_metric("mean", 1), seed=1, n_resamples=500)
    plain = pairboot.compare(ya, yb, runs="seeds", seed=1, n_resamples=500)
    assert pooled.estimate == pytest.approx(plain.estimate, abs=1e-15)
    assert pooled.runs.variance == pytest.approx(plain.runs.variance, rel=1e-9)
    assert pooled.runs.degrees_of_freedom == pytest.approx(plain.runs.degrees_of_freedom,
                                                           rel=1e-9)


def test_f1_pools_item_runs_and_linearises():
    rng = np.random.default_rng(4)
    n, r = 80, 4

    def counts(p):
        tp = rng.binomial(4, p, (n, r))
        return np.stack([tp, rng.binomial(2, 0.3, (n, r)), 4 - tp], axis=2).astype(float)

    a, b = counts(0.55), counts(0.65)
    res = pairboot.compare(a, b, runs="seeds", metric="f1", seed=2, n_resamples=500)

    def f1(s):
        return 2 * s[0] / (2 * s[0] + s[1] + s[2])

    assert res.estimate == pytest.approx(f1(b.sum((0, 1))) - f1(a.sum((0, 1))), abs=1e-12)
    linear = []
    for x in (a, b):  # the analytic gradient of F1 at the pooled sums
        tp, fp, fn = x.sum((0, 1))
        den = 2 * tp + fp + fn
        grad = np.array([2 * (fp + fn) / den**2, -2 * tp / den**2, -2 * tp / den**2])
        linear.append((x @ grad) * (n * r))
    expected = analyse(linear[0], linear[1], "seeds", False)
    assert res.runs.variance == pytest.approx(expected.variance, rel=1e-6)
    assert res.standard_error == pytest.approx(np.sqrt(expected.variance), rel=1e-6)
    with pytest.raises(pairboot.InputError, match="items x runs x statistics"):
        pairboot.compare(a[:, :, 0], b[:, :, 0], runs="seeds", metric="f1")


def _systems(k=3, n=120, r=4, seed=5):
    rng = np.random.default_rng(seed)
    item = rng.normal(size=n)
    return {f"s{j}": item[:, None] + 0.15 * j + rng.normal(0, 0.3, r)
            + rng.normal(0, 1, (n, r)) for j in range(k)}


def test_a_family_with_seeds_is_compares_rows_corrected():
    from pairboot.multiple import holm  # noqa: PLC0415

    systems = _systems()
    none = pairboot.compare_many(systems, runs="seeds", correction="none", seed=1)
    for c in none.comparisons:
        one = pairboot.compare(systems[c.a], systems[c.b], runs="seeds", seed=1)
        assert tuple(c.confidence_interval) == tuple(one.confidence_interval)
        assert c.p_value == one.p_value and c.standard_error == one.standard_error
    fam = pairboot.compare_many(systems, runs="seeds", correction="holm", seed=1)
    p = np.array([c.p_value for c in fam.comparisons])
    np.testing.assert_array_equal([c.p_adjusted for c in fam.comparisons], holm(p))
    for c, c0 in zip(fam.comparisons, none.comparisons):  # Bonferroni's t intervals: wider
        assert c.confidence_interval.low < c0.confidence_interval.low
        assert tuple(c.marginal_interval) == tuple(c0.confidence_interval)


def test_a_family_with_samples_compares_item_means():
    systems = _systems()
    fam = pairboot.compare_many(systems, runs="samples", seed=2, n_resamples=500)
    means = {k: v.mean(axis=1) for k, v in systems.items()}
    plain = pairboot.compare_many(means, seed=2, n_resamples=500)
    assert fam.to_dict()["comparisons"] == plain.to_dict()["comparisons"]


@pytest.mark.parametrize(("keywords", "param"), [
    ({"paired": False}, "paired"),
    ({"resampling": "poisson"}, "resampling"),  # t intervals: no items are drawn
    ({"metric": "f1"}, "metric"),
    ({"method": "bca"}, "method"),
])
def test_a_seeds_family_refuses_what_it_would_ignore(keywords, param):
    with pytest.raises(pairboot.InputError) as info:
        pairboot.compare_many(_systems(), runs="seeds", **keywords)
    assert info.value.param == param

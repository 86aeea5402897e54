"""Pooled metrics with several runs: the linearised two-way variance.

The mean, given as a Metric object, takes the pooled path (items x runs x statistics):
its estimate, variance and degrees of freedom must equal the mean's own path; F1 on
items x runs x (tp, fp, fn) pools every item-run, and its variance is the two-way
variance of the linearised values computed independently here.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import f1_counts

import pairboot
from pairboot.comparisons.runs.analysis import analyse
from pairboot.metrics import resolve_metric

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
    a, b = f1_counts(rng, n, r, 0.55), f1_counts(rng, n, r, 0.65)
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
    from pairboot.stats.multiple import holm  # noqa: PLC0415

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


@pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")
def test_pooled_f1_with_groups_and_strata():
    """Estimate and strata against compare() on the runs' summed counts (the engine's own
    pooling and reweighting); V, with runs that all agree, against the cluster bootstrap
    of those counts (only the items vary then)."""
    rng = np.random.default_rng(8)
    n = 120
    groups = [f"d{i // 4}" for i in range(n)]
    strata = [f"s{(i // 4) % 3}" for i in range(n)]
    weights = {"s0": 1.0, "s1": 3.0, "s2": 2.0}
    a, b = f1_counts(rng, n, 3, 0.55), f1_counts(rng, n, 3, 0.62)
    keywords = {"groups": groups, "strata": strata, "strata_weights": weights}
    res = pairboot.compare(a, b, runs="seeds", metric="f1", seed=3, n_resamples=2000,
                           **keywords)
    summed = pairboot.compare(a.sum(axis=1), b.sum(axis=1), metric="f1", seed=3,
                              n_resamples=2000, **keywords)
    assert res.estimate == pytest.approx(summed.estimate, rel=1e-12)
    assert res.n_groups == 30 and res.n_strata == 3
    for mine, theirs in zip(res.strata, summed.strata, strict=True):
        assert mine.name == theirs.name and mine.weight == pytest.approx(theirs.weight)
        assert mine.estimate == pytest.approx(theirs.estimate, rel=1e-12)
    # every run the same: no run or residual variance, V is the items' (groups') term
    same_a, same_b = np.repeat(a[:, :1], 3, axis=1), np.repeat(b[:, :1], 3, axis=1)
    res = pairboot.compare(same_a, same_b, runs="seeds", metric="f1", seed=3,
                           n_resamples=2000, **keywords)
    boot = pairboot.compare(a[:, 0], b[:, 0], metric="f1", seed=4, n_resamples=20_000,
                            **keywords)
    # the cluster bootstrap's variance is sum_h (G_h - 1) / G_h of the design variance
    # (10 groups a stratum); linearisation and Monte Carlo error: well under 10%
    assert res.runs.variance * 0.9 == pytest.approx(boot.standard_error ** 2, rel=0.10)

"""A family's sizes (max-t against Bonferroni) and the planner's refusals."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import pairboot
from pairboot.errors import InputError
from pairboot.planning.family import FamilyPlanner
from pairboot.planning.model import Test

K_SIGMA = 4.5


def test_max_t_is_sidak_for_independent_contrasts_and_one_for_identical_ones():
    m, alpha = 4, 0.05
    independent = FamilyPlanner(np.ones(m), np.eye(m), Test(alpha, True))
    sidak = stats.norm.isf((1 - (1 - alpha) ** (1 / m)) / 2)
    assert independent.max_t == pytest.approx(sidak, abs=K_SIGMA * independent.max_t_error)
    assert 0 < independent.max_t_error < 0.02
    assert independent.max_t < independent.bonferroni == pytest.approx(
        stats.norm.isf(alpha / (2 * m)))
    same = FamilyPlanner(np.ones(m), np.ones((m, m)), Test(alpha, True))
    assert same.max_t == pytest.approx(stats.norm.isf(alpha / 2),
                                       abs=K_SIGMA * same.max_t_error)
    one_sided = FamilyPlanner(np.ones(m), np.eye(m), Test(alpha, False))
    assert one_sided.max_t == pytest.approx(stats.norm.isf(1 - (1 - alpha) ** (1 / m)),
                                            abs=K_SIGMA * one_sided.max_t_error)


def test_the_joint_power_of_independent_contrasts_is_the_product():
    planner = FamilyPlanner(np.array([1.0, 2.0, 0.5]), np.eye(3), Test(0.05, True))
    n, delta = 300, 0.15
    lam = delta / np.sqrt(planner.variances / n)
    exact = float(np.prod(stats.norm.cdf(lam - planner.max_t)))
    p = planner.power_all("max-t", n, delta)
    assert p == pytest.approx(exact, abs=K_SIGMA * planner.power_error(exact) + 1e-12)


def family_pilot(n=500):
    rng = np.random.default_rng(12)
    item = rng.normal(0.5, 0.2, n)  # (each system its own noise: baseline contrasts
    return {name: item + shift + rng.normal(0, 0.1, n)  # correlate about 1/2)
            for name, shift in (("base", 0.0), ("v1", 0.02), ("v2", 0.01), ("v3", 0.0))}


def test_a_family_s_sizes_per_comparison_and_jointly():
    scores = family_pilot()
    maxt = pairboot.power(scores=scores, baseline="base", delta=0.02, power=0.8)
    bonf = pairboot.power(scores=scores, baseline="base", delta=0.02, power=0.8,
                          correction="bonferroni")
    f = maxt.family
    assert f.comparisons == (("base", "v1"), ("base", "v2"), ("base", "v3"))
    # baseline comparisons share the baseline: correlated about 1/2
    assert f.correlations[0, 1] == pytest.approx(0.5, abs=0.1)
    assert f.critical_value < f.bonferroni_critical_value
    assert f.n_each_max_t <= f.n_each_bonferroni and f.n_all_max_t <= f.n_all_bonferroni
    assert f.n_each <= f.n_all and maxt.n_items == f.n_each == f.n_each_max_t
    assert bonf.n_items == bonf.family.n_each_bonferroni
    assert bonf.family.alpha_per_comparison == pytest.approx(0.05 / 3)
    # the largest variance decides each comparison's size: the paired t at alpha / m
    worst = max(np.var(scores[k] - scores["base"], ddof=1) for k in ("v1", "v2", "v3"))
    assert bonf.n_items == pairboot.power(sd=math.sqrt(worst), delta=0.02, power=0.8,
                                          confidence_level=1 - 0.05 / 3).n_items
    assert f.power_all == pytest.approx(0.8, abs=0.02) or f.power_all < 0.8
    assert "for each of 3 comparisons (max-t)" in maxt.summary()
    every = pairboot.power(scores=scores, delta=0.02, power=0.8)
    assert len(every.family.comparisons) == 6
    assert every.family.n_each_bonferroni >= bonf.n_items  # (alpha / 6)


@pytest.mark.parametrize("kwargs,param", [
    (dict(sd=1.0, delta=0.0, power=0.8), "delta"),
    (dict(sd=1.0, delta=0.1, power=1.2), "power"),
    (dict(sd=1.0, delta=0.1, power=0.0), "power"),
    (dict(sd=1.0, delta=0.1, power=0.8, confidence_level=1.0), "confidence_level"),
    (dict(sd=1.0, delta=0.1), None),  # two unknowns: size and power
    (dict(sd=1.0, delta=0.1, power=0.8, n_items=100), None),  # none unknown
    (dict(sd=1.0, power=0.8), None),
    (dict(sd=-1.0, delta=0.1, power=0.8), "sd"),
    (dict(delta=0.1, power=0.8), "sd"),
    (dict(accuracy_a=0.7, delta=1.5, discordant=0.2, power=0.8), "delta"),
    (dict(accuracy_a=0.7, delta=0.3, discordant=0.2, power=0.8), "discordant"),
    (dict(accuracy_a=0.7, accuracy_b=0.75, delta=0.02, discordant=0.2, power=0.8), "delta"),
    (dict(accuracy_a=0.7, delta=0.1, discordant=0.0, power=0.8), "discordant"),
    (dict(accuracy_a=1.3, delta=0.1, discordant=0.2, power=0.8), "accuracy_a"),
    (dict(sd=1.0, delta=-0.1, power=0.8, alternative="greater"), "delta"),
    (dict(sd=1.0, delta=0.1, power=0.8, hypothesis="equivalence", margin=0.1), "hypothesis"),
    (dict(sd=1.0, delta=0.1, power=0.8, hypothesis="non-inferiority"), "margin"),
    (dict(sd=1.0, delta=0.1, power=0.8, n_groups=10), "n_groups"),
    (dict(sd=1.0, delta=0.1, power=0.8, n_runs=3), "n_runs"),
    (dict(sd=1.0, delta=0.1, power=0.8, group_size=10), "icc"),
    (dict(sd=1.0, delta=0.1, n_items=1.5), "n_items"),
    (dict(sd=1.0, sd_a=1.0, sd_b=1.0, correlation=0.5, delta=0.1, power=0.8), "sd"),
])
def test_bad_input_is_a_one_line_error_naming_the_argument(kwargs, param):
    with pytest.raises(InputError) as info:
        pairboot.power(**kwargs)
    assert "\n" not in str(info.value)
    if param is not None:
        assert info.value.param == param and f"`{param}" in str(info.value)


def test_two_unknowns_and_none_are_refused_by_name():
    with pytest.raises(InputError, match="`power` and `n_items` are not given"):
        pairboot.power(sd=1.0, delta=0.1)
    with pytest.raises(InputError, match="every one is given"):
        pairboot.power(sd=1.0, delta=0.1, power=0.8, n_items=100)


def test_pilots_refused():
    a = np.linspace(0.0, 1.0, 50)
    with pytest.raises(InputError, match="no size can be planned") as info:
        pairboot.power(a, a + 0.1, delta=0.1, power=0.8)
    assert "\n" not in str(info.value)
    with pytest.raises(InputError, match="beyond what the metric allows") as info:
        pairboot.power(a, a[::-1], delta=2.0, power=0.8)
    assert info.value.param == "delta"
    with pytest.raises(InputError) as info:
        pairboot.power(a, a[::-1], sd=1.0, delta=0.1, power=0.8)
    assert info.value.param == "sd"
    with pytest.raises(InputError) as info:
        pairboot.power(a, None, delta=0.1, power=0.8)
    assert info.value.param == "b"
    scores = family_pilot(50)
    with pytest.raises(InputError, match="not one of the systems") as info:
        pairboot.power(scores=scores, baseline="v9", delta=0.1, power=0.8)
    assert info.value.param == "baseline"
    with pytest.raises(InputError) as info:
        pairboot.power(scores=scores, pairs=[("base", "nope")], delta=0.1, power=0.8)
    assert info.value.param == "pairs"
    with pytest.raises(InputError) as info:
        pairboot.power(scores=scores, correction="holm", delta=0.1, power=0.8)
    assert info.value.param == "correction"
    with pytest.raises(InputError, match="no size can be planned"):
        pairboot.power(scores={"x": a, "y": a + 1.0}, delta=0.1, power=0.8)

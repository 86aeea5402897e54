"""The M-system core: one draw of units for every system, contrasts read off it."""

from __future__ import annotations

import numpy as np
import pytest

import pairboot
from pairboot.core.design import build_design
from pairboot.core.estimands import Estimands, observed_sums
from pairboot.engine import resample_sums

RNG = np.random.default_rng(21)
N = 90
BASE = RNG.random(N)
SYSTEMS = [BASE + RNG.normal(shift, 0.1, N) for shift in (0.0, 0.03, -0.02)]
GROUPS = np.repeat(np.arange(30), 3)
STRATA = np.where(np.arange(N) < 42, "web", "news")  # (groups of 3 stay whole)


def core(systems, *, n_resamples=400, seed=3, backend="numpy", **design):
    keywords = {"groups": None, "group_weighting": "items", "strata": None,
                "strata_weights": None, "paired": True, **design}
    d = build_design(systems, names=tuple(f"s{j}" for j in range(len(systems))),
                     metric="mean", **keywords)
    sums, _ = resample_sums(d.plan, n_resamples, seed, backend=backend)
    return Estimands(d, sums, observed_sums(d.plan), names=("s0", "s1", "s2")[: len(systems)])


@pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")  # (400 resamples)
@pytest.mark.parametrize("design", [{}, {"groups": GROUPS}, {"strata": STRATA},
                                    {"groups": GROUPS, "strata": STRATA}])
def test_a_contrast_among_three_systems_is_compare_on_the_same_draws(design):
    c = core(SYSTEMS, **design)
    coef = c.design.weights
    for i, j in ((0, 1), (0, 2), (1, 2)):
        est = c.estimate((i, j), coef, bca=False, combined=False)
        res = pairboot.compare(SYSTEMS[i], SYSTEMS[j], n_resamples=400, seed=3,
                               backend="numpy", **design)
        # the same units drawn: the sums differ only in the order of additions
        np.testing.assert_allclose(est.replicates, res.bootstrap_distribution,
                                   rtol=0, atol=1e-13)
        assert est.boot.estimate == pytest.approx(res.estimate, abs=1e-15)


def test_contrasts_are_differences_of_the_systems_values():
    c = core(SYSTEMS, strata=STRATA)
    coef = c.design.weights
    values = c.systems(coef, combined=False)
    assert values.shape == (400, 3)
    for i, j in ((0, 1), (2, 0)):
        ij = c.estimate((i, j), coef, bca=False, combined=False).replicates
        ji = c.estimate((j, i), coef, bca=False, combined=False).replicates
        np.testing.assert_array_equal(ij, -ji)
        np.testing.assert_allclose(ij, values[:, j] - values[:, i], rtol=0, atol=1e-15)
    observed = c.systems(coef, combined=False, observed=True)[0]
    np.testing.assert_allclose(observed, [s.mean() for s in SYSTEMS], rtol=1e-14)


def test_unpaired_draws_every_system_on_its_own():
    c = core(SYSTEMS, paired=False)
    assert len(c.design.draw_to_stratum) == 3  # one draw stratum per system
    coef = c.design.weights
    values = c.systems(coef, combined=False)
    # independent draws: the systems' resampled means are (nearly) uncorrelated, unlike
    # the paired draw where they share the items' difficulty
    paired = core(SYSTEMS).systems(coef, combined=False)
    assert abs(np.corrcoef(values[:, 0], values[:, 1])[0, 1]) < 0.2
    assert np.corrcoef(paired[:, 0], paired[:, 1])[0, 1] > 0.8


def test_jackknife_and_standard_errors_work_per_contrast():
    d = build_design(SYSTEMS, names=("s0", "s1", "s2"), metric="mean", paired=True,
                     groups=None, group_weighting="items", strata=None, strata_weights=None)
    from pairboot.core.studentized import with_cross_products

    plan, cross = with_cross_products(d.plan)
    sums, _ = resample_sums(plan, 400, 3, backend="numpy")
    c = Estimands(d, sums, observed_sums(plan), cross, names=("s0", "s1", "s2"))
    est = c.estimate((0, 2), d.weights, bca=True, combined=False)
    diff = SYSTEMS[2] - SYSTEMS[0]
    # the mean's delta-method standard error is the plug-in one, sd(d) / sqrt(n)
    assert est.boot.se_hat == pytest.approx(diff.std() / np.sqrt(N), rel=1e-9)
    # the jackknife: leave-one-out means of the differences, and of one system's scores
    (jack,) = c.jackknife((0, 2), d.weights, False, est.boot.estimate)
    np.testing.assert_allclose(jack, (diff.sum() - diff) / (N - 1), rtol=0, atol=1e-14)
    (jack,) = c.jackknife(1, d.weights, False, float(SYSTEMS[1].mean()))
    np.testing.assert_allclose(jack, (SYSTEMS[1].sum() - SYSTEMS[1]) / (N - 1), atol=1e-14)


@pytest.mark.parametrize(("kwargs", "param"), [
    ({"confidence_level": 2.0}, "confidence_level"),
    ({"n_resamples": 0}, "n_resamples"),
    ({"method": "magic"}, "method"),
    ({"seed": -1}, "seed"),
    ({"metric": "nope"}, "metric"),
    ({"group_weighting": "groups"}, "group_weighting"),
    ({"strata": ["x"] * 89 + ["y"], "strata_weights": {"x": 1}}, "strata_weights"),
    ({"groups": [1] * 89 + [None]}, "groups"),
])
def test_argument_errors_carry_the_argument(kwargs, param):
    with pytest.raises(pairboot.InputError) as info:
        pairboot.compare(SYSTEMS[0], SYSTEMS[1], **kwargs)
    assert info.value.param == param
    if param != "metric":  # (which names the metric itself)
        assert f"`{param}" in str(info.value)  # named as the API spells it, in backticks


def test_stratum_scores_are_system_scores_with_their_own_interval():
    res = pairboot.compare(SYSTEMS[0], SYSTEMS[1], strata=STRATA, n_resamples=2000, seed=4)
    for s in res.strata:
        mask = STRATA == s.name
        for score, x in ((s.score_a, SYSTEMS[0][mask]), (s.score_b, SYSTEMS[1][mask])):
            assert isinstance(score, pairboot.SystemScore)
            assert float(score) == pytest.approx(x.mean(), abs=1e-14)
            # the stratum's own bootstrap: its resampled means have sd sqrt(var / n)
            # exactly; the estimate of it over R resamples has relative s.e. 1/sqrt(2R)
            R, sd = 2000, x.std() / np.sqrt(len(x))
            assert score.standard_error == pytest.approx(sd, rel=4.5 / np.sqrt(2 * R))
            # its percentile interval: about the mean +- 1.96 sd, each end to 4.5 Monte
            # Carlo s.e. of a 2.5% quantile (sqrt(p (1 - p) / R) / phi(1.96) sd), plus
            # 5% of the half-width for the means' skewness at n ~ 45
            mc = np.sqrt(0.025 * 0.975 / R) / 0.05844 * sd
            low, high = score.confidence_interval
            tol = 4.5 * mc + 0.05 * 1.96 * sd
            assert low == pytest.approx(x.mean() - 1.96 * sd, abs=tol)
            assert high == pytest.approx(x.mean() + 1.96 * sd, abs=tol)


@pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")  # (400 resamples)
def test_seed_sequence_is_turned_into_the_reported_seed():
    ss = np.random.SeedSequence(2024).spawn(3)[1]
    res = pairboot.compare(SYSTEMS[0], SYSTEMS[1], n_resamples=400, seed=ss)
    assert res.seed == int(ss.generate_state(1, np.uint64)[0])
    again = pairboot.compare(SYSTEMS[0], SYSTEMS[1], n_resamples=400, seed=res.seed)
    np.testing.assert_array_equal(res.bootstrap_distribution, again.bootstrap_distribution)


def test_standard_error_is_the_distributions_without_undefined_values():
    metric = pairboot.Metric("ratio_of_sums", ("n", "d"), lambda S: S[..., 0] / S[..., 1])
    d = np.r_[np.ones(3), np.zeros(27)]  # resamples without the first three: 0/0
    a = np.column_stack([d * 0.5, d])
    b = np.column_stack([d * 0.8, d])
    with pytest.warns(pairboot.DegenerateDataWarning):
        res = pairboot.compare(a, b, metric=metric, n_resamples=1000, seed=2)
    assert np.isnan(res.bootstrap_distribution).any()
    assert res.standard_error == pytest.approx(
        np.nanstd(res.bootstrap_distribution, ddof=1), rel=1e-12)


def test_three_unpaired_systems_of_different_sizes_are_warned_about_by_name():
    from pairboot.core.diagnostics import design_notes
    from pairboot.options import Arguments

    systems = [RNG.random(50), RNG.random(40), RNG.random(20)]
    d = build_design(systems, names=("base", "v1", "v2"), metric="mean", paired=False,
                     groups=None, group_weighting="items", strata=None, strata_weights=None)
    args = Arguments(paired=False, n_resamples=1000, seed=1)
    (note,) = [text for _, text in design_notes(d, args, d.names)]
    assert note.startswith("only 20 items in v2's sample")


def test_a_family_of_contrasts_counts_each_systems_undefined_values_once():
    from pairboot.core.diagnostics import undefined_notes

    metric = pairboot.Metric("ratio_of_sums", ("n", "d"), lambda S: S[..., 0] / S[..., 1])
    d = np.r_[np.ones(3), np.zeros(27)]
    stats = [np.column_stack([d * v, d]) for v in (0.2, 0.5, 0.9)]
    design = build_design(stats, names=("x", "y", "z"), metric=metric, paired=True,
                          groups=None, group_weighting="items", strata=None,
                          strata_weights=None)
    sums, _ = resample_sums(design.plan, 1000, 5, backend="numpy")
    c = Estimands(design, sums, observed_sums(design.plan))
    assert c.names == ("x", "y", "z")
    for target in ((0, 1), (0, 2), (1, 2)):  # contrasts only, each system twice
        c.estimate(target, design.weights, bca=False, combined=False, count=True)
    notes = [text for _, text in undefined_notes(c)]
    # a resample without the first three items is 0/0 for every system alike
    n_bad = int(np.isnan(c.value(0, design.weights, False)).sum())
    assert n_bad > 0
    assert notes == [f"metric 'ratio_of_sums' was undefined (e.g. 0/0) for system {s} in "
                     f"{n_bad} of 1000 resamples; left out of the interval" for s in "xyz"]


def test_another_systems_scale_does_not_snap_a_contrast():
    # the rounding tolerance of contrast (0, 1) is judged on systems 0 and 1 alone
    huge = SYSTEMS[2] * 1e13
    with_huge = core([SYSTEMS[0], SYSTEMS[1], huge])
    alone = core(SYSTEMS[:2])
    coef = alone.design.weights
    spread = with_huge.estimate((0, 1), coef, bca=False, combined=False).boot.sd
    assert spread == pytest.approx(
        alone.estimate((0, 1), coef, bca=False, combined=False).boot.sd, rel=1e-9)
    assert spread > 0

"""Planning a k-trial metric (pass@k, pass^k, maj@k with runs="samples"): the
within-task variance against enumeration, the pilot's components unbiased (exactly,
over every count of successes), the plans against the per-item planner and against
simulated evaluations analysed by the test itself (fixed seeds; tolerances from the
Monte Carlo error)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import pairboot
from pairboot.errors import InputError
from pairboot.planning.trials import (
    BetaTasks,
    components,
    hoeffding_weights,
    pilot_components,
    within_variance,
)
from pairboot.planning.trials_plan import task_parts
from pairboot.stats.trials import ESTIMATORS, estimate_variance

KINDS = ("pass^", "pass@", "maj@")
K_SIGMA = 4.0


def binomial(n: int, p: float) -> np.ndarray:
    return np.array([math.comb(n, c) * p ** c * (1 - p) ** (n - c) for c in range(n + 1)])


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("k", [1, 2, 3])
def test_the_within_variance_is_the_estimates_variance_over_the_binomial(kind, k):
    # an independent reference: the variance of f(c) summed over c ~ Binomial(n, p)
    for n in range(k, 9):
        c = np.arange(n + 1)
        f = ESTIMATORS[kind](np.full(n + 1, n), c, k)
        for p in (0.0, 0.07, 0.5, 0.81, 1.0):
            w = binomial(n, p)
            mean = w @ f
            assert within_variance(kind, k, n, [p])[0] == pytest.approx(
                w @ (f - mean) ** 2, abs=1e-14)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("k", [1, 2, 3])
def test_the_pilots_components_are_unbiased_and_give_estimate_variance(kind, k):
    for n0 in (2 * k, 2 * k + 3):
        s = np.arange(n0 + 1)
        z = pilot_components(kind, k, np.full(n0 + 1, n0), s)
        # at the pilot's own trials, Hoeffding's sum is the unbiased variance estimate
        assert z @ hoeffding_weights(n0, k) == pytest.approx(
            estimate_variance(kind, np.full(n0 + 1, n0), s, k), abs=1e-14)
        for p in (0.1, 0.5, 0.93):  # E over s ~ Binomial(n0, p) is the components at p
            assert binomial(n0, p) @ z == pytest.approx(components(kind, k, [p])[0],
                                                        abs=1e-13)


def test_hoeffdings_weights_at_k_trials_leave_the_kernels_variance():
    g = 0.6 ** 3
    assert within_variance("pass^", 3, 3, [0.6])[0] == pytest.approx(g * (1 - g), abs=1e-15)
    assert hoeffding_weights(7, 3).sum() == pytest.approx(1.0)


def pilot_tables(seed: int, tasks: int = 80, trials: int = 5, gain: float = 0.5):
    """A pilot whose tasks' gains vary (logit sd 2): its between part is well above 0."""
    rng = np.random.default_rng(seed)
    pa = rng.beta(0.6, 0.6, tasks)
    u = np.log(pa) - np.log1p(-pa)
    pb = 1.0 / (1.0 + np.exp(-(u + gain + 2.0 * rng.standard_normal(tasks))))
    return ((rng.random((tasks, trials)) < pa[:, None]).astype(float),
            (rng.random((tasks, trials)) < pb[:, None]).astype(float))


def test_at_the_pilots_trials_the_plan_is_the_per_item_plan():
    a, b = pilot_tables(3)
    # pass@1 is the items' mean: the same size as planning the per-item means
    trials = pairboot.power(a, b, runs="samples", metric="pass@1", delta=0.05, power=0.8)
    means = pairboot.power(a, b, runs="samples", delta=0.05, power=0.8)
    assert trials.n_items == means.n_items
    assert trials.pilot_range == means.pilot_range  # (S^2's chi-square interval)
    # pass^2 at the pilot's 5 trials: the variance per task is the estimates' S^2
    res = pairboot.power(a, b, runs="samples", metric="pass^2", delta=0.05, power=0.8)
    d = ESTIMATORS["pass^"](np.full(80, 5), b.sum(1), 2) - ESTIMATORS["pass^"](
        np.full(80, 5), a.sum(1), 2)
    assert res.n_runs == 5 and res.between_variance > 0
    assert res.variance * res.n_items == pytest.approx(np.var(d, ddof=1), rel=1e-12)
    assert "unbiased" in res.assumptions[-1]
    low, high = res.pilot_range
    assert low < res.n_items < high


def test_more_trials_shrink_only_the_within_part():
    a, b = pilot_tables(4)
    res = pairboot.power(a, b, runs="samples", metric="pass^2", delta=0.1, power=0.8)
    grid = res.trials_grid
    assert [g.trials for g in grid] == [2, 3, 4, 5, 6, 8]
    within = [g.within_variance for g in grid]
    tasks = [g.n_items for g in grid]
    assert all(x > y for x, y in zip(within, within[1:]))
    assert all(x >= y for x, y in zip(tasks, tasks[1:]))
    # tasks alone cannot beat the between part: the size at infinitely many trials
    floor = pairboot.power(sd=math.sqrt(res.between_variance), delta=0.1, power=0.8)
    assert tasks[-1] >= floor.n_items
    # fewer than 2k trials per task: the Beta's posterior, said so
    five = pairboot.power(a, b, runs="samples", metric="pass^5", delta=0.1, power=0.8)
    assert "posterior" in five.assumptions[-1] and five.n_runs == 5


def test_the_three_questions_agree():
    kw = dict(rate_a=0.4, rate_sd=0.3, shift_sd=0.5, runs="samples", metric="pass^3",
              n_runs=6)
    size = pairboot.power(**kw, delta=0.08, power=0.8)
    at = pairboot.power(**kw, delta=0.08, n_items=size.n_items)
    below = pairboot.power(**kw, delta=0.08, n_items=size.n_items - 1)
    assert below.power < 0.8 <= at.power
    mde = pairboot.power(**kw, n_items=size.n_items, power=0.8)
    assert mde.delta <= 0.08 and mde.delta == pytest.approx(0.08, rel=0.02)
    runs = pairboot.power(**{**kw, "n_runs": None}, n_items=size.n_items, delta=0.08,
                          power=0.8)
    assert runs.solved == "n_runs" and runs.n_runs <= 6
    assert str(runs).endswith("trials per task")


def test_the_beta_tasks_against_monte_carlo():
    tasks = BetaTasks("pass^", 3, 0.45, 0.3, 0.8)
    between, zeta = tasks.parts(0.06)
    rng = np.random.default_rng(7)
    m = 400_000
    total = 0.45 * 0.55 / 0.09 - 1
    pa = rng.beta(0.45 * total, 0.55 * total, m)
    u = np.log(pa) - np.log1p(-pa)
    pb = 1 / (1 + np.exp(-(u + tasks.theta(0.06) + 0.8 * rng.standard_normal(m))))
    d = pb ** 3 - pa ** 3
    assert d.mean() == pytest.approx(0.06, abs=K_SIGMA * d.std() / math.sqrt(m))
    sq = (d - d.mean()) ** 2
    assert between == pytest.approx(sq.mean(), abs=K_SIGMA * sq.std() / math.sqrt(m))
    both = components("pass^", 3, pa) + components("pass^", 3, pb)
    for c in range(1, 4):
        assert zeta[c] == pytest.approx(both[:, c].mean(),
                                        abs=K_SIGMA * both[:, c].std() / math.sqrt(m))


def simulated(res, kw, n_sim: int, seed: int):
    """``n_sim`` evaluations of the planned tasks and trials drawn from the parameters'
    model: (A's, B's) items x trials tables, one pair at a time."""
    tasks = BetaTasks("pass^", 2, kw["rate_a"], kw["rate_sd"], kw["shift_sd"])
    theta = tasks.theta(kw["delta"])
    total = kw["rate_a"] * (1 - kw["rate_a"]) / kw["rate_sd"] ** 2 - 1
    rng = np.random.default_rng(seed)
    n, r = res.n_items, res.n_runs
    for _ in range(n_sim):
        pa = rng.beta(kw["rate_a"] * total, (1 - kw["rate_a"]) * total, n)
        u = np.log(pa) - np.log1p(-pa)
        pb = 1 / (1 + np.exp(-(u + theta + kw["shift_sd"] * rng.standard_normal(n))))
        yield ((rng.random((n, r)) < pa[:, None]).astype(float),
               (rng.random((n, r)) < pb[:, None]).astype(float))


PLAN = dict(rate_a=0.5, rate_sd=0.3, shift_sd=0.5, runs="samples", metric="pass^2",
            n_runs=4, delta=0.1)


def test_the_planned_power_is_the_t_tests_on_simulated_tasks():
    res = pairboot.power(**PLAN, power=0.8)
    n, n_sim = res.n_items, 3000
    crit = stats.t.isf(0.025, n - 1)
    hits = 0
    for a, b in simulated(res, PLAN, n_sim, 11):
        d = (ESTIMATORS["pass^"](np.full(n, 4), b.sum(1), 2)
             - ESTIMATORS["pass^"](np.full(n, 4), a.sum(1), 2))
        hits += abs(d.mean()) > crit * d.std(ddof=1) / math.sqrt(n)
    planned = pairboot.power(**PLAN, n_items=n).power
    assert 0.8 <= planned < 0.82
    se = math.sqrt(planned * (1 - planned) / n_sim)
    assert hits / n_sim == pytest.approx(planned, abs=K_SIGMA * se)


@pytest.mark.slow
def test_the_planned_power_is_compares_on_simulated_tasks():
    # compare(runs="samples", metric="pass^2")'s percentile interval, 999 resamples
    res = pairboot.power(**PLAN, power=0.8)
    n_sim = 1000
    hits = sum(pairboot.compare(a, b, runs="samples", metric="pass^2", n_resamples=999,
                                seed=i).excludes_zero
               for i, (a, b) in enumerate(simulated(res, PLAN, n_sim, 12)))
    planned = pairboot.power(**PLAN, n_items=res.n_items).power
    se = math.sqrt(planned * (1 - planned) / n_sim)
    assert hits / n_sim == pytest.approx(planned, abs=K_SIGMA * se)


def test_the_pilots_parts_are_unbiased_over_pilots():
    # pilots of 60 tasks x 4 trials from the parameters' model (A's rates uniform: a
    # Beta(1, 1), sd sqrt(1/12); gains spread, logit sd 1.5, so that the between part is
    # rarely truncated at 0): the mean of their between part and of their within part at
    # 8 trials is the model's
    tasks = BetaTasks("pass^", 2, 0.5, math.sqrt(1 / 12), 1.5)
    between, zeta = tasks.parts(0.1)
    truth_within = float(hoeffding_weights(8, 2) @ zeta)
    rng = np.random.default_rng(13)
    theta = tasks.theta(0.1)
    got_b, got_w = [], []
    for _ in range(300):
        pa = rng.beta(1.0, 1.0, 60)
        u = np.log(pa) - np.log1p(-pa)
        pb = 1 / (1 + np.exp(-(u + theta + 1.5 * rng.standard_normal(60))))
        a = (rng.random((60, 4)) < pa[:, None]).astype(float)
        b = (rng.random((60, 4)) < pb[:, None]).astype(float)
        raw, zeta_hat, priors = task_parts("pass^", 2, np.full(60, 4), a.sum(1),
                                           np.full(60, 4), b.sum(1))
        got_b.append(raw)  # (before its truncation at 0, which only the plan makes)
        got_w.append(float(hoeffding_weights(8, 2) @ zeta_hat))
    assert priors == ()
    for got, truth in ((got_w, truth_within), (got_b, between)):
        got = np.array(got)
        assert got.mean() == pytest.approx(truth, abs=K_SIGMA * got.std() / math.sqrt(300))


@pytest.mark.parametrize("kw, param", [
    (dict(n_runs=1), "n_runs"),
    (dict(runs=None), "runs"),
    (dict(rate_sd=0.6), "rate_sd"),
    (dict(rate_a=1.0), "rate_a"),
    (dict(rate_a=None), "rate_a"),
    (dict(sd=0.3), "sd"),
    (dict(delta=0.9), "delta"),
    (dict(shift_sd=-1), "shift_sd"),
    (dict(n_groups=10), "n_groups"),
    (dict(test="mcnemar"), "test"),
])
def test_bad_parameters_are_one_line(kw, param):
    base = dict(rate_a=0.5, rate_sd=0.3, runs="samples", metric="pass^2", delta=0.1,
                power=0.8)
    with pytest.raises(InputError) as err:
        pairboot.power(**{**base, **kw})
    assert err.value.param == param and "\n" not in str(err.value)


def test_bad_pilots_are_one_line():
    a, b = pilot_tables(5, tasks=20, trials=3)
    cases = [
        (dict(metric="pass^4"), "a"),  # fewer trials than k, naming the item
        (dict(groups=np.arange(20) // 2), "groups"),
        (dict(simulate=True), "simulate"),
        (dict(rate_a=0.5), "rate_a"),
    ]
    for kw, param in cases:
        with pytest.raises(InputError) as err:
            pairboot.power(a, b, **{**dict(runs="samples", metric="pass^2", delta=0.1,
                                           power=0.8), **kw})
        assert err.value.param == param and "\n" not in str(err.value)
    with pytest.raises(InputError, match="item 0 has 3 trial"):
        pairboot.power(a, b, runs="samples", metric="pass^4", delta=0.1, power=0.8)
    with pytest.raises(InputError) as err:
        pairboot.power(rate_a=0.5, rate_sd=0.2, delta=0.1, power=0.8)
    assert err.value.param == "rate_a"


def test_the_curve_and_the_reports_of_a_trials_plan():
    res = pairboot.power(rate_a=0.5, rate_sd=0.3, runs="samples", metric="pass^4",
                         n_items=300, delta=0.1, power=0.8)
    assert res.solved == "n_runs" and res.n_runs == 4
    curve = res.curve()  # (in trials per task: none below k)
    low = [p for s, p in zip(curve["values"], curve["power"]) if s < 4]
    assert low and all(math.isnan(p) for p in low)
    assert all(0.8 <= p <= 1 for s, p in zip(curve["values"], curve["power"]) if s >= 4)
    html = res.to_html()
    assert "trials per task" in html and "between-task variance" in html

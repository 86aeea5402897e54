"""simulate_power: a planned size checked by simulation.

References and the tolerance each takes (``S`` simulations: the Monte Carlo standard
error of a power ``p`` is ``sqrt(p (1 - p) / S)``; checks are at 3 of them, plus the
stated slack of the percentile interval where it is not zero):

1. nulls: a tiny delta rejects at about alpha; at the closed-form paired-z size for a
   normal pilot the power is 0.80 (slack: the percentile interval is a z interval with
   the plug-in standard deviation, so it rejects when the t statistic exceeds
   ``z sqrt((n - 1) / n)``: the power is the noncentral t's tail there, a little above
   0.80 at n = 60; computed, not guessed);
2. 0/1 scores at Connor (1987)'s size for paired proportions give 80% (slack: the
   bootstrap's variance is the alternative's, ``(psi - delta^2) / n``, where Connor's
   critical value uses the null's ``psi / n``; the Wald power at Connor's n, computed);
3. groups: the design-effect size gives 80% on clustered data (slack as in 1, with
   ``G - 1`` degrees of freedom);
4. seeds: with 3 runs the power stops rising with items (the floor of docs/runs.md), and
   rises with runs;
5. the exact 0/1 path: the interval equals compare()'s on the table's items to the last
   bits (the same draws: the engine's multinomial streams), for every method it takes and
   every hypothesis; and the power equals the general path's within Monte Carlo error;
6. the draws: cells of the flipped tables and the simulated true difference;
7. reproducibility, progress, and the refusals (one line, naming the argument).
"""

from __future__ import annotations

import math
import warnings
from statistics import NormalDist

import numpy as np
import pytest
from scipy import stats

import pairboot
from pairboot.options import check_options
from pairboot.planning.simulated_data import (
    CELLS,
    difference_shift,
    draw_evaluation,
    moved_counts,
    planned_size,
    read_pilot,
)
from pairboot.planning.simulation import (
    CompilingOnly,
    binary_interval,
    binary_items,
    check_metric,
    simulate_power,
)

Z = NormalDist().inv_cdf
K = 3.0
"""Tolerances are K Monte Carlo standard errors."""


def mc_se(p: float, s: int) -> float:
    return math.sqrt(max(p * (1 - p), 0.01 * 0.99) / s)


def binary_pilot(cells, n):
    """A 0/1 pilot of ``n`` items whose (A, B) cells have exactly the shares ``cells``
    (both wrong, only B right, only A right, both right)."""
    counts = np.round(np.asarray(cells) * n).astype(int)
    a, b = binary_items(counts)
    order = np.random.default_rng(0).permutation(len(a))
    return a[order].astype(int), b[order].astype(int)


# --- 1. nulls and the paired-z size --------------------------------------------------------


@pytest.mark.slow
def test_a_tiny_delta_rejects_at_about_alpha():
    a, b = binary_pilot([0.15, 0.10, 0.10, 0.65], 4000)
    s = 2000
    res = simulate_power(a, b, n_items=3000, delta=1e-9, n_simulations=s, seed=3,
                         n_resamples=999)
    assert abs(res.power - 0.05) <= K * mc_se(0.05, s)
    rng = np.random.default_rng(1)
    x = rng.normal(size=1000)
    y = x + rng.normal(0.3, 1.0, 1000)  # (its own difference is removed)
    res = simulate_power(x, y, n_items=200, delta=1e-9, n_simulations=1000, seed=4,
                         n_resamples=999)
    # the percentile interval's slack at n = 200 (t with the plug-in sd): about +0.002
    level = 2 * stats.t.sf(1.96 * math.sqrt(199 / 200), 199)
    assert abs(res.power - level) <= K * mc_se(level, 1000)


def noncentral_power(n: int, ncp: float, z: float) -> float:
    """P(|T| > z sqrt((n - 1) / n)), T noncentral t with n - 1 degrees of freedom: the
    percentile interval's rejection rate for a normal mean (module docstring)."""
    c = z * math.sqrt((n - 1) / n)
    return float(stats.nct.sf(c, n - 1, ncp) + stats.nct.cdf(-c, n - 1, ncp))


@pytest.mark.slow
def test_the_paired_z_size_gives_80_percent_on_a_normal_pilot():
    rng = np.random.default_rng(7)
    a = rng.normal(0.0, 1.0, 3000)
    b = a + rng.normal(0.0, 1.0, 3000)
    sigma = float(np.std(b - a))  # (the simulated population's: the pilot's, plug-in)
    delta = sigma / 2.75
    n = math.ceil(((Z(0.975) + Z(0.8)) * sigma / delta) ** 2)
    assert n == 60
    s = 1000
    res = simulate_power(a, b, n_items=n, delta=delta, n_simulations=s, seed=11,
                         n_resamples=999)
    expected = noncentral_power(n, delta * math.sqrt(n) / sigma, Z(0.975))
    slack = abs(expected - 0.80)
    assert slack < 0.02  # (0.807 at n = 60)
    assert abs(res.power - 0.80) <= K * mc_se(0.80, s) + slack
    assert abs(res.power - expected) <= K * mc_se(expected, s)


# --- 2. 0/1 scores at Connor's size -------------------------------------------------------


def connor_n(p01: float, p10: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """Connor, R. J. (1987), Sample size for testing differences in proportions for the
    paired-sample design, Biometrics 43, 207-211, eq. (3): with the discordant share
    ``psi = p01 + p10`` and ``delta = p01 - p10``,
    ``n = (z_{1-alpha/2} sqrt(psi) + z_{power} sqrt(psi - delta^2))^2 / delta^2``."""
    psi, d = p01 + p10, p01 - p10
    return (Z(1 - alpha / 2) * math.sqrt(psi) + Z(power) * math.sqrt(psi - d * d)) ** 2 / d**2


def test_connor_reproduces_a_worked_value():
    # The worked example of the "McNemar's Z-test, 2-sided equality" calculator
    # (powerandsamplesize.com / zarathucorp open-powersamplesize, citing Connor 1987,
    # p. 209): p01 = 0.45, p10 = 0.05, alpha 0.05 two-sided, power 0.80 -> 23 pairs.
    assert math.ceil(connor_n(0.45, 0.05)) == 23


@pytest.mark.slow
def test_binary_scores_at_connors_size_give_80_percent():
    cells = [0.15, 0.10, 0.10, 0.65]  # A and B both right 75% of the time
    a, b = binary_pilot(cells, 4000)
    delta = 0.03
    # the simulated population: B's wrong answers flipped with q = delta / (1 - p_B)
    q = delta / 0.25
    p01, p10 = 0.10 + q * 0.15, 0.10 * (1 - q)
    assert math.isclose(p01 - p10, delta)
    n = math.ceil(connor_n(p01, p10))
    psi = p01 + p10
    wald = NormalDist().cdf(delta * math.sqrt(n) / math.sqrt(psi - delta**2) - Z(0.975))
    slack = abs(wald - 0.80)
    s = 2000
    res = simulate_power(a, b, n_items=n, delta=delta, n_simulations=s, seed=5,
                         n_resamples=999)
    assert "exact 0/1 path" in res.method_words
    assert abs(res.power - 0.80) <= K * mc_se(0.80, s) + slack


# --- 3. groups: the design-effect size ----------------------------------------------------


@pytest.mark.slow
def test_the_design_effect_size_gives_80_percent_on_clustered_data():
    rng = np.random.default_rng(21)
    g_pilot, m = 800, 5
    groups = np.repeat(np.arange(g_pilot), m)
    d = np.repeat(rng.normal(0, 0.5, g_pilot), m) + rng.normal(0, 1.0, g_pilot * m)
    a = rng.normal(0, 1.0, g_pilot * m)
    b = a + d
    sigma2 = float(np.var(d))
    deff = m * float(np.var(d.reshape(g_pilot, m).mean(axis=1))) / sigma2
    assert 1.5 < deff < 2.1  # (1 + (m - 1) icc, icc = 0.25 / 1.25)
    delta = 0.25
    n_srs = ((Z(0.975) + Z(0.8)) ** 2) * sigma2 / delta**2
    n_groups = math.ceil(n_srs * deff / m)
    s = 1000
    res = simulate_power(a, b, groups=groups, n_groups=n_groups, delta=delta,
                         n_simulations=s, seed=8, n_resamples=999)
    assert res.n_groups == n_groups and res.n_items == n_groups * m
    # slack: the cluster bootstrap's plug-in variance over G groups, t with G - 1 df
    sd_means = math.sqrt(deff * sigma2 / m)
    expected = noncentral_power(n_groups, delta * math.sqrt(n_groups) / sd_means, Z(0.975))
    slack = abs(expected - 0.80)
    assert abs(res.power - 0.80) <= K * mc_se(0.80, s) + slack


# --- 4. seeds: the floor ---------------------------------------------------------------


@pytest.mark.slow
def test_with_few_runs_the_power_stops_rising_with_items():
    rng = np.random.default_rng(5)
    n, k = 400, 3
    item = rng.normal(0, 1, n)
    d = rng.normal(0, 0.5, n)
    a = item[:, None] + rng.normal(0, 0.3, k)[None, :] + rng.normal(0, 1, (n, k))
    b = item[:, None] + d[:, None] + rng.normal(0, 0.3, k)[None, :] + rng.normal(0, 1, (n, k))
    s = 300
    kw = dict(delta=0.4, n_simulations=s, seed=2, runs="seeds", n_resamples=200)
    p400 = simulate_power(a, b, n_items=400, n_runs=3, **kw)
    p1600 = simulate_power(a, b, n_items=1600, n_runs=3, **kw)
    se = math.hypot(p400.monte_carlo_error, p1600.monte_carlo_error)
    assert p1600.power <= p400.power + K * max(se, mc_se(0.3, s))  # (no rise: the floor)
    assert p1600.power < 0.80 - K * mc_se(0.80, s)  # (below the target)
    more_runs = simulate_power(a, b, n_items=400, n_runs=8, **kw)
    assert more_runs.n_runs == (8, 8)
    assert more_runs.power > p400.power + K * max(se, mc_se(0.3, s))  # (runs lift it)


# --- pooled metrics: counts moved -------------------------------------------------------


def f1_pilot(n=3000, seed=0):
    """Per-item (tp, fp, fn) of two taggers: B finds most of A's hits and some of its
    misses."""
    rng = np.random.default_rng(seed)
    gold = rng.poisson(3, n)
    tp_a = rng.binomial(gold, 0.7)
    tp_b = rng.binomial(tp_a, 0.95) + rng.binomial(gold - tp_a, 0.3)
    return (np.c_[tp_a, rng.poisson(0.6, n), gold - tp_a],
            np.c_[tp_b, rng.poisson(0.5, n), gold - tp_b])


def f1_influence(x):
    """Per-item influence of pooled F1 (its delta-method linearisation), and F1."""
    tp, fp, fn = x.sum(axis=0)
    d = 2 * tp + fp + fn
    f = 2 * tp / d
    return (2 * x[:, 0] - f * (2 * x[:, 0] + x[:, 1] + x[:, 2])) / (d / len(x)), f


@pytest.mark.parametrize(("metric", "columns", "delta"), [
    ("f1", [0, 1, 2], 0.03), ("f1", [0, 1, 2], -0.05), ("precision", [0, 1], 0.02),
    ("recall", [0, 2], -0.03), ("accuracy", None, 0.04)])
def test_moved_counts_set_the_pooled_metric_to_delta(metric, columns, delta):
    a, b = f1_pilot()
    if columns is None:  # (correct, total): the tp of the gold entities
        keep = a[:, 0] + a[:, 2] > 0
        a, b = np.c_[a[:, 0], a[:, 0] + a[:, 2]][keep], np.c_[b[:, 0], b[:, 0] + b[:, 2]][keep]
    else:
        a, b = a[:, columns], b[:, columns]
    m = check_metric(metric)
    pilot = read_pilot(a, b, metric=m)
    shift = difference_shift(pilot, delta)
    value = lambda x: float(m.evaluate(x.sum(axis=0))[0][0])  # noqa: E731
    # the population's (the metric of the expected sums): exactly A's plus delta
    expected = moved_counts(b.sum(axis=0), shift.moves, shift.share)
    assert math.isclose(float(m.evaluate(expected)[0][0]) - value(a), delta, abs_tol=1e-9)
    # a large simulated evaluation: within its Monte Carlo error of delta
    size = planned_size(pilot, 40_000, None, None)
    sa, sb, _, _ = draw_evaluation(pilot, size, shift, np.random.default_rng(1))
    assert np.all(sb >= 0) and np.all(sb == np.round(sb))
    diff = value(sb) - value(sa)
    se = 0.6 / math.sqrt(40_000)  # (the influence sd of these metrics is below 0.6)
    assert abs(diff - delta) <= K * se


@pytest.mark.slow
def test_the_delta_method_size_of_f1_gives_80_percent():
    a, b = f1_pilot()
    f1 = check_metric("f1")
    pilot = read_pilot(a, b, metric=f1)
    delta = 0.03
    shift = difference_shift(pilot, delta)
    # the simulated population's influence sd, from one very large draw of it
    big = planned_size(pilot, 200_000, None, None)
    sa, sb, _, _ = draw_evaluation(pilot, big, shift, np.random.default_rng(2))
    sd = float(np.std(f1_influence(sb)[0] - f1_influence(sa)[0]))
    n = math.ceil(((Z(0.975) + Z(0.8)) * sd / delta) ** 2)
    s = 1000
    res = simulate_power(a, b, n_items=n, delta=delta, metric="f1", n_simulations=s,
                         seed=3, n_resamples=999)
    expected = noncentral_power(n, delta * math.sqrt(n) / sd, Z(0.975))
    slack = abs(expected - 0.80)
    assert abs(res.power - 0.80) <= K * mc_se(0.80, s) + slack


# --- 5. the exact 0/1 path -------------------------------------------------------------


TABLES = ([300, 120, 90, 1490], [0, 200, 150, 650], [500, 64, 70, 1000])
HYPOTHESES = (("two-sided", "difference", None), ("less", "difference", None),
              ("two-sided", "non-inferiority", 0.01), ("two-sided", "equivalence", 0.05))


@pytest.mark.parametrize("method", ["percentile", "basic", "normal", "bca"])
def test_the_exact_path_gives_compares_interval(method):
    """Identical draws (the engine's multinomial streams with compare()'s seed), so
    identical intervals up to the rounding of the jackknife's sums."""
    warnings.simplefilter("ignore")
    for alternative, hypothesis, margin in HYPOTHESES:
        args, _ = check_options(dict(n_resamples=999, method=method, seed=7,
                                     alternative=alternative, hypothesis=hypothesis,
                                     margin=margin))
        for table in TABLES:
            got = binary_interval(table, seed=7, args=args)
            a, b = binary_items(table)
            res = pairboot.compare(a, b, seed=7, n_resamples=999, method=method,
                                   alternative=alternative, hypothesis=hypothesis,
                                   margin=margin)
            assert res.engine == "multinomial"
            np.testing.assert_allclose(got, tuple(res.confidence_interval), rtol=0,
                                       atol=1e-12)


@pytest.mark.slow
def test_the_exact_path_and_the_general_path_give_the_same_power():
    """Groups of one item each take the general path (compare() on drawn items, flipped
    one by one) with the same distribution as the tables: powers within MC error."""
    a, b = binary_pilot([0.15, 0.10, 0.10, 0.65], 2000)
    s = 1000
    kw = dict(delta=0.03, n_simulations=s, seed=9, n_resamples=999)
    fast = simulate_power(a, b, n_items=1500, **kw)
    general = simulate_power(a, b, groups=np.arange(len(a)), n_groups=1500, **kw)
    assert "exact 0/1 path" in fast.method_words
    assert "compare() on each" in general.method_words
    se = math.hypot(fast.monte_carlo_error, general.monte_carlo_error)
    assert abs(fast.power - general.power) <= K * se
    assert 0.4 < fast.power < 0.9


def test_too_few_items_for_any_verdict_reject_nothing_on_both_paths():
    a, b = binary_pilot([0.15, 0.10, 0.10, 0.65], 400)
    kw = dict(n_items=5, delta=0.2, n_simulations=30, seed=1, n_resamples=99)
    assert simulate_power(a, b, **kw).power == 0.0  # (5 items: below units_for(0.95))
    kw["n_items"] = None
    assert simulate_power(a, b, groups=np.arange(400), n_groups=5, **kw).power == 0.0


# --- 6. the draws ----------------------------------------------------------------------


@pytest.mark.parametrize("delta", [0.04, -0.3])
def test_flipped_items_have_the_cells_of_the_exact_path(delta):
    a, b = binary_pilot([0.15, 0.10, 0.10, 0.65], 1000)
    pilot = read_pilot(a, b)
    shift = difference_shift(pilot, delta)
    expected = shift.cells
    assert math.isclose(expected @ CELLS[:, 1] - expected @ CELLS[:, 0], delta)
    # the general path: items drawn, B flipped item by item
    size = planned_size(pilot, 500, None, None)
    rng = np.random.default_rng(3)
    reps = 400
    cells = np.zeros(4)
    for _ in range(reps):
        sa, sb, _, _ = draw_evaluation(pilot, size, shift, rng)
        assert set(np.unique(sb)) <= {0.0, 1.0}
        cells += np.bincount((2 * sa + sb).astype(int), minlength=4)
    share = cells / (reps * 500)
    se = np.sqrt(expected * (1 - expected) / (reps * 500))
    assert np.all(np.abs(share - expected) <= K * se + 1e-12)


def test_a_mean_is_shifted_to_the_true_difference():
    rng = np.random.default_rng(2)
    a = rng.normal(size=300)
    b = a + rng.normal(0.5, 1.0, 300)  # (the pilot's own difference, about 0.5)
    groups = np.repeat(np.arange(100), 3)
    strata = groups % 2
    pilot = read_pilot(a, b, groups=groups, strata=strata)
    shift = difference_shift(pilot, 0.1)
    size = planned_size(pilot, None, 40, None)
    assert size.per_stratum == (20, 20)
    diffs = []
    for _ in range(2000):
        sa, sb, sg, sh = draw_evaluation(pilot, size, shift, rng)
        assert len(np.unique(sg)) == 40 and len(sa) == 120
        assert np.all(np.bincount(sh) == 60)
        diffs.append(np.mean(sb - sa))
    sd = float(np.std(b - a)) * math.sqrt(1.5 / 120)  # (a generous design effect)
    assert abs(np.mean(diffs) - 0.1) <= K * sd / math.sqrt(2000)


def test_runs_draw_new_run_effects():
    rng = np.random.default_rng(4)
    a = rng.normal(size=(50, 3)) + rng.normal(0, 2.0, 3)
    b = a + 0.2
    b[:, 0] += 0.1  # (spread)
    pilot = read_pilot(a, b, runs="seeds")
    size = planned_size(pilot, 80, None, 6)
    assert size.n_runs == (6, 6)
    sa, sb, _, _ = draw_evaluation(pilot, size, difference_shift(pilot, 0.5), rng)
    assert sa.shape == sb.shape == (80, 6)
    assert len(np.unique(np.round(sa.mean(axis=0), 9))) == 6  # (new effects, no repeats)


# --- 7. reproducible, progress, refusals --------------------------------------------------


def test_the_same_seed_gives_the_same_power():
    a, b = binary_pilot([0.15, 0.10, 0.10, 0.65], 400)
    kw = dict(n_items=300, delta=0.05, n_simulations=40, n_resamples=199)
    first = simulate_power(a, b, seed=12, **kw)
    assert simulate_power(a, b, seed=12, **kw).power == first.power
    unseeded = simulate_power(a, b, **kw)
    assert isinstance(unseeded.seed, int)
    assert simulate_power(a, b, seed=unseeded.seed, **kw).power == unseeded.power
    rng = np.random.default_rng(0)
    x = rng.normal(size=40)
    y = x + rng.normal(size=40)
    kw = dict(n_items=30, delta=0.5, n_simulations=8, n_resamples=199, method="basic")
    assert (simulate_power(x, y, seed=3, **kw).power
            == simulate_power(x, y, seed=3, **kw).power)


def test_progress_counts_the_simulations():
    a, b = binary_pilot([0.15, 0.10, 0.10, 0.65], 400)
    seen = []
    res = simulate_power(a, b, n_items=300, delta=0.05, n_simulations=7, n_resamples=99,
                         seed=1, progress=seen.append)
    assert seen == list(range(1, 8))
    assert res.n_simulations == 7
    assert math.isclose(res.monte_carlo_error,
                        math.sqrt(res.power * (1 - res.power) / 7))


def test_a_progress_display_hears_only_of_compiling_from_compare():
    heard = []

    class Display(pairboot.Progress):
        def __call__(self, done: int) -> None:
            heard.append(done)

        def compiling(self) -> None:
            heard.append("compiling")

    inner = CompilingOnly(Display())
    inner(500)  # (compare()'s resamples are not the simulations)
    inner.compiling()
    assert heard == ["compiling"]
    rng = np.random.default_rng(0)
    x = rng.normal(size=40)
    simulate_power(x, x + rng.normal(size=40), n_items=30, delta=0.5, n_simulations=3,
                   n_resamples=99, seed=1, progress=Display())
    assert heard == ["compiling", 1, 2, 3]


REFUSALS = [
    (dict(n_simulations=0), "n_simulations", "n_simulations"),
    (dict(n_items=1), "n_items", "n_items"),
    (dict(delta=0.0), "delta", "delta != 0"),
    (dict(delta=0.3), "delta", r"beyond \[0, 1\]"),  # A's accuracy 0.75 + 0.3
    (dict(delta=-0.8), "delta", r"beyond \[0, 1\]"),
    (dict(metric="bleu"), "metric", "closed forms"),
    (dict(metric="ratio"), "metric", "closed forms"),
    (dict(metric=pairboot.Metric("f1", ("tp", "fp", "fn"), lambda s: s[..., 0])),
     "metric", "closed forms"),
    (dict(n_groups=10), "n_groups", "needs `groups`"),
    (dict(n_runs=3), "n_runs", "needs `runs='seeds'`"),
    (dict(confidence_level=1.5), "confidence_level", "confidence_level"),
    (dict(strata=np.r_[np.zeros(398), 1, 1]), "n_items", "fewer than 2"),
    (dict(groups=np.arange(400) // 4, n_groups=20), "n_items", "not both"),
    (dict(groups=np.arange(400) // 4, n_items=None), "n_groups", "n_groups"),
    (dict(n_items=None), "n_items", "n_items"),
    (dict(runs="seeds"), "a", "items x runs"),
    (dict(b=np.zeros(300)), "b", "paired"),
]


@pytest.mark.parametrize(("change", "param", "words"), REFUSALS)
def test_bad_input_is_a_one_line_error_naming_the_argument(change, param, words):
    a, b = binary_pilot([0.15, 0.10, 0.10, 0.65], 400)
    kw = dict(n_items=100, delta=0.05, n_simulations=10, seed=1) | change
    b = kw.pop("b", b)
    with pytest.raises(pairboot.InputError, match=words) as info:
        simulate_power(a, b, **kw)
    assert info.value.param == param
    assert "\n" not in str(info.value)


def test_a_pilot_without_spread_and_a_delta_beyond_the_range_are_refused():
    x = np.linspace(0, 1, 50)
    with pytest.raises(pairboot.InputError, match="no size can be planned") as info:
        simulate_power(x, x + 0.1, n_items=100, delta=0.05)
    assert info.value.param == "b"
    y = x + np.linspace(0, 0.1, 50)
    with pytest.raises(pairboot.InputError, match="beyond the scores' range") as info:
        simulate_power(x, y, n_items=100, delta=2.0)
    assert info.value.param == "delta"
    with pytest.raises(pairboot.InputError, match="at least 2 runs") as info:
        simulate_power(x[:, None], y[:, None], n_items=100, delta=0.05, runs="seeds")
    assert info.value.param == "runs"


def test_pooled_metrics_refuse_what_cannot_be_moved():
    a, b = f1_pilot(200)
    kw = dict(n_items=100, delta=0.02, metric="f1", n_simulations=5, seed=1)
    with pytest.raises(pairboot.InputError, match="whole numbers") as info:
        simulate_power(a + 0.5, b, **kw)
    assert info.value.param == "a"
    with pytest.raises(pairboot.InputError, match="with `runs`") as info:
        simulate_power(a, b, **kw | dict(runs="seeds"))
    assert info.value.param == "metric"
    with pytest.raises(pairboot.InputError, match="takes 3 columns") as info:
        simulate_power(a[:, :2], b[:, :2], **kw)
    assert info.value.param == "metric"
    with pytest.raises(pairboot.InputError, match="beyond what moving") as info:
        simulate_power(a, b, **kw | dict(delta=0.9))  # (F1 of A + 0.9 > 1)
    assert info.value.param == "delta"
    with pytest.raises(pairboot.InputError, match="no spread"):
        simulate_power(a, a, **kw)

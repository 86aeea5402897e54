"""Margins end to end: non-inferiority, superiority and equivalence (TOST) in compare(),
compare_many(), compare_strata() and with runs.

References and the tolerance each takes:

1. consistency: the verdict and ``p_value < 1 - confidence_level`` never disagree
   (rejection exactly when the verdict is in ``SHOWN[hypothesis]``), for every method,
   on many small data sets (ties included) with the margin placed on the interval's end
   and a hair either side of it -- the hard cases, where a p-value bisected to adjacent
   doubles and an interval read at the level could part;
2. exact identities: non-inferiority's finite end at level L is the two-sided end at
   ``2L - 1``, TOST's interval is the two-sided ``1 - 2 alpha`` one, TOST's two p-values
   are the two non-inferiority p-values (one each way), same seed (dyadic levels, so
   that ``1 - L`` and ``(1 - (2L - 1)) / 2`` are the same double);
3. ``statsmodels.stats.weightstats.ttost_paired`` on 2,000 normal items, within the
   Monte Carlo error of a bootstrap tail proportion plus the computed t-vs-bootstrap gap;
4. simulations at the boundary of each null (type I error at most alpha + K_SIGMA
   binomial standard errors), power rising with n, the false discovery rate of BH, the
   partial conjunction's error rate (slow);
5. families: BH and BY q-values against ``statsmodels.stats.multitest.multipletests``,
   the false-coverage level, per-pair margins, max-t's verdicts;
6. refusals, each an InputError naming its option.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from conftest import K_SIGMA
from scipy import stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.weightstats import ttost_paired

import pairboot
from pairboot.errors import InputError, PairbootWarning
from pairboot.stats.hypotheses import SHOWN, claim_points, tie_tolerance, verdict_of

METHODS = ("percentile", "basic", "normal", "bca", "studentized")
MARGINS = ("non-inferiority", "superiority", "equivalence")
ALPHA = 0.05
# small data sets, few resamples and far levels on purpose: the notes about them are not
# what these tests are about (tests/core/test_diagnostics.py checks them)
pytestmark = pytest.mark.filterwarnings("ignore::pairboot.errors.PairbootWarning")


def quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PairbootWarning)
        return call(*args, **kwargs)


def rejects(res) -> bool:
    """The test's decision as its p-value says it."""
    return bool(res.p_value < 1 - res.confidence_level)


def shown(res) -> bool:
    """The test's decision as its verdict says it."""
    return res.verdict() in SHOWN[res.hypothesis]


def binomial_bound(alpha: float, n_sim: int) -> float:
    """The largest rejection rate of n_sim simulations consistent with a true rate of
    ``alpha``: alpha + K_SIGMA binomial standard errors."""
    return alpha + K_SIGMA * math.sqrt(alpha * (1 - alpha) / n_sim)


# --- 1. the verdict and the p-value never disagree --------------------------------------------


def boundary_of(hypothesis: str, lower_is_better: bool, interval) -> list[float]:
    """The margins that put the null's boundary exactly on the interval's end(s): the
    hard cases.  NI: -d on the low end ([low, inf)), +d on the high end with lower is
    better; superiority: +d on the low end, -d on the high end; TOST: either end."""
    low, high = interval
    if hypothesis == "non-inferiority":
        return [high] if lower_is_better else [-low]
    if hypothesis == "superiority":
        return [-high] if lower_is_better else [low]
    return [-low, high]


def shift_for(hypothesis: str, lower_is_better: bool) -> float:
    """A true difference that puts the boundary's margin above 0 most of the time."""
    if hypothesis == "superiority":
        return -1.0 if lower_is_better else 1.0
    return 0.0


def small_data(seed: int, shift: float):
    """A small paired data set (8 to 30 items); every other seed rounded to 0.1, so that
    replicates tie and the quantile function has flat stretches."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 31))
    a = rng.normal(0.0, 1.0, n)
    b = a + rng.normal(shift + rng.normal(0.0, 0.3), 1.0, n)
    if seed % 2:
        a, b = a.round(1), b.round(1)
    return a, b


def assert_same_or_on_boundary(res, ref) -> None:
    """``res``'s interval is ``ref``'s, but for ends within the tie tolerance of one of
    ``res``'s boundaries (0, +-margin), which are that boundary."""
    theta = res.bootstrap_distribution[np.isfinite(res.bootstrap_distribution)]
    tol = tie_tolerance(res.estimate, float(theta.min()), float(theta.max()))
    for got, was in zip(res.confidence_interval, ref.confidence_interval):
        if got != was:
            assert got in claim_points(res.margin) and abs(got - was) <= tol, (got, was)


def check_consistency(method: str, seeds, perturbations, n_resamples: int) -> int:
    """Every (hypothesis, lower_is_better, data set, margin at an end +- a perturbation):
    p < alpha exactly when the verdict rejects; the p-value monotone in the margin.
    Returns the number of comparisons checked."""
    checked = 0
    for hypothesis in MARGINS:
        for lower_is_better in (False, True):
            for seed in seeds:
                a, b = small_data(seed, shift_for(hypothesis, lower_is_better))
                kw = {"hypothesis": hypothesis, "lower_is_better": lower_is_better,
                      "method": method, "seed": seed, "n_resamples": n_resamples}
                ref = pairboot.compare(a, b, margin=0.05, **kw)
                by_margin = []
                for end in boundary_of(hypothesis, lower_is_better, ref.confidence_interval):
                    for eps in perturbations:
                        margin = end * (1 + eps)
                        if not (math.isfinite(margin) and margin > 0):
                            continue
                        res = pairboot.compare(a, b, margin=margin, **kw)
                        # the interval does not depend on the margin (same draws), but
                        # for an end on a boundary by rounding alone, put on it
                        assert_same_or_on_boundary(res, ref)
                        assert rejects(res) == shown(res), (
                            hypothesis, lower_is_better, seed, margin, eps,
                            res.confidence_interval, res.p_value, res.p_values,
                            res.verdict())
                        if hypothesis == "equivalence" and not math.isnan(res.p_value):
                            assert res.p_value == max(res.p_values)
                        by_margin.append((margin, res.p_value))
                        checked += 1
                # a wider margin makes NI and TOST easier to reject, superiority harder
                by_margin.sort()
                p = np.array([q for _, q in by_margin if not math.isnan(q)])
                steps = np.diff(p)
                if hypothesis == "superiority":
                    assert np.all(steps >= 0), by_margin
                else:
                    assert np.all(steps <= 0), by_margin
    return checked


@pytest.mark.parametrize("method", METHODS)
def test_the_verdict_and_the_p_value_agree_at_the_interval_ends(method):
    # (1e-9 of the end: a tie, within the tolerance; 1e-7: a hair beyond it)
    n = check_consistency(method, seeds=(0, 1),
                          perturbations=(0.0, 1e-9, -1e-9, 1e-7, -1e-7), n_resamples=199)
    assert n >= 25  # (the skips for a margin <= 0 did not empty the check)


@pytest.mark.slow
@pytest.mark.parametrize("method", METHODS)
def test_the_verdict_and_the_p_value_agree_on_many_data_sets(method):
    eps = (0.0, 1e-13, -1e-13, 1e-11, -1e-11, 1e-8, -1e-8, 1e-5, -1e-5, 1e-2, -1e-2, 0.2,
           -0.2)
    n = check_consistency(method, seeds=range(2, 14), perturbations=eps, n_resamples=199)
    assert n >= 800


@pytest.mark.parametrize("hypothesis", MARGINS)
def test_the_verdict_is_read_off_the_reported_interval(hypothesis):
    # verdict() is verdict_of on the result's own interval and margin, at every margin
    a, b = small_data(3, 0.0)
    for margin in (0.05, 0.2, 0.5, 1.0):
        res = pairboot.compare(a, b, hypothesis=hypothesis, margin=margin, seed=1,
                               n_resamples=499)
        assert res.margin == margin and res.hypothesis == hypothesis
        assert res.verdict() == verdict_of(hypothesis, margin, res.confidence_interval)
        # a margin's test cannot be read the other way round
        with pytest.raises(ValueError, match="lower_is_better"):
            res.verdict(lower_is_better=True)


@pytest.mark.parametrize("hypothesis", ["superiority", "equivalence"])
def test_a_margin_of_zero_is_refused_where_it_cannot_be_tested(hypothesis):
    # superiority at 0 would reject (p < alpha) with no verdict in SHOWN to say so, and
    # nothing lies within +-0: both are refused, in every entry point
    a, b = small_data(5, 0.5)
    runs_a, runs_b = np.stack([a, a + 0.01], axis=1), np.stack([b, b - 0.01], axis=1)
    strata = np.arange(len(a)) % 2
    for call, args, extra in ((pairboot.compare, (a, b), {}),
                              (pairboot.compare_many, ({"a": a, "b": b},), {}),
                              (pairboot.compare_strata, (a, b), {"strata": strata}),
                              (pairboot.compare, (runs_a, runs_b), {"runs": "seeds"})):
        with pytest.raises(InputError) as info:
            call(*args, hypothesis=hypothesis, margin=0.0, seed=1, n_resamples=99, **extra)
        assert info.value.param == "margin", (call.__name__, extra)


@pytest.mark.parametrize("runs", [None, "seeds"])
@pytest.mark.parametrize("hypothesis", ["superiority", "equivalence"])
def test_a_per_pair_margin_of_zero_is_refused_too(hypothesis, runs):
    # with {("a", "b"): 0.0, ...} the row (a, b) is superiority at 0: p = 0 while its
    # verdict_of is "inconclusive", and the row's note says its interval "includes the
    # margin's boundary" when the interval's low end is far above 0
    rng = np.random.default_rng(0)
    a = rng.normal(0, 1, 100)
    scores = {"a": a, "b": a + rng.normal(0.5, 1, 100), "c": a + rng.normal(0.5, 1, 100)}
    if runs is not None:
        scores = {k: np.stack([v, v + 0.01], axis=1) for k, v in scores.items()}
    with pytest.raises(InputError) as info:
        pairboot.compare_many(scores, baseline="a", hypothesis=hypothesis, runs=runs,
                              margin={("a", "b"): 0.0, ("a", "c"): 0.1}, correction="holm",
                              seed=1, n_resamples=199)
    assert info.value.param == "margin"


# --- 2. which interval each hypothesis is read off --------------------------------------------

_rng = np.random.default_rng(40)
A = _rng.random(80)
B = A + _rng.normal(0.03, 0.15, 80)
DYADIC = (0.75, 0.875, 0.9375)  # 2L - 1 and 1 - L exact in binary


@pytest.mark.parametrize("level", DYADIC)
@pytest.mark.parametrize("method", METHODS)
def test_a_one_sided_margin_reads_the_two_sided_end_at_2l_minus_1(method, level):
    kw = {"seed": 4, "n_resamples": 1000, "method": method}
    two = pairboot.compare(A, B, confidence_level=2 * level - 1, **kw)
    for hypothesis in ("non-inferiority", "superiority"):
        for lower_is_better in (False, True):
            one = pairboot.compare(A, B, hypothesis=hypothesis, margin=0.05,
                                   lower_is_better=lower_is_better, confidence_level=level,
                                   **kw)
            np.testing.assert_array_equal(one.bootstrap_distribution,
                                          two.bootstrap_distribution)
            low, high = one.confidence_interval
            assert one.interval_level == level
            if lower_is_better:
                assert low == -math.inf and one.alternative == "less"
                assert high == two.confidence_interval.high
            else:
                assert high == math.inf and one.alternative == "greater"
                assert low == two.confidence_interval.low


@pytest.mark.parametrize("level", DYADIC)
@pytest.mark.parametrize("method", METHODS)
def test_tost_reads_the_two_sided_interval_at_1_minus_2_alpha(method, level):
    kw = {"seed": 5, "n_resamples": 1000, "method": method}
    d = 0.1
    eq = pairboot.compare(A, B, hypothesis="equivalence", margin=d, confidence_level=level,
                          **kw)
    two = pairboot.compare(A, B, confidence_level=2 * level - 1, **kw)
    assert eq.interval_level == 2 * level - 1 and eq.alternative == "two-sided"
    assert tuple(eq.confidence_interval) == tuple(two.confidence_interval)
    # the two one-sided p-values are the two non-inferiority tests, one each way:
    # H0 B - A <= -d (lower is better off) and H0 B - A >= d (lower is better on)
    lower = pairboot.compare(A, B, hypothesis="non-inferiority", margin=d,
                             confidence_level=level, **kw)
    upper = pairboot.compare(A, B, hypothesis="non-inferiority", margin=d,
                             lower_is_better=True, confidence_level=level, **kw)
    assert eq.p_values == (lower.p_value, upper.p_value)
    assert eq.p_value == max(eq.p_values)
    # TOST's interval ends are the two one-sided bounds at the level
    assert eq.confidence_interval.low == lower.confidence_interval.low
    assert eq.confidence_interval.high == upper.confidence_interval.high


@pytest.mark.parametrize("method", METHODS)
def test_at_95_percent_the_interval_level_is_90(method):
    # 1 - 0.95 doubled and 1 - 0.9 differ by rounding: equal far below the Monte Carlo error
    kw = {"seed": 6, "n_resamples": 1000, "method": method}
    eq = pairboot.compare(A, B, hypothesis="equivalence", margin=0.1, **kw)
    two = pairboot.compare(A, B, confidence_level=0.9, **kw)
    assert eq.interval_level == 0.9 and eq.confidence_level == 0.95
    np.testing.assert_allclose(eq.confidence_interval, two.confidence_interval, rtol=1e-9,
                               atol=1e-9 * two.standard_error)
    ni = pairboot.compare(A, B, hypothesis="non-inferiority", margin=0.1, **kw)
    assert ni.interval_level == 0.95
    assert ni.confidence_interval.low == pytest.approx(two.confidence_interval.low,
                                                       rel=1e-9, abs=1e-9 * two.standard_error)
    assert eq.to_dict()["interval_level"] == 0.9


def test_detectable_compares_the_reach_with_the_margin():
    res = pairboot.compare(A, B, hypothesis="non-inferiority", margin=0.1, seed=1,
                           n_resamples=999)
    reach = res.estimate - res.confidence_interval.low
    assert 0 < reach < 0.1 and res.detectable is True
    small = pairboot.compare(A, B, hypothesis="non-inferiority", margin=reach * 0.99, seed=1,
                             n_resamples=999)
    assert small.detectable is False
    eq = pairboot.compare(A, B, hypothesis="equivalence", margin=0.2, seed=1, n_resamples=999)
    half = 0.5 * (eq.confidence_interval.high - eq.confidence_interval.low)
    assert eq.detectable is (half < 0.2)
    plain = pairboot.compare(A, B, seed=1, n_resamples=999)
    assert plain.detectable is None
    assert pairboot.compare(A, B, margin=0.3, seed=1, n_resamples=999).detectable is True


# --- 3. TOST against statsmodels' paired t TOST -----------------------------------------------


def tost_reference_tolerance(diff, d, r, method, p_t, side):
    """How far pairboot's one-sided p may be from the t test's, on these data.

    The ideal bootstrap (infinitely many resamples) of a mean of n items has the
    standard deviation s0 / sqrt(n) (s0 with ddof 0) where the t test has s1 / sqrt(n)
    (ddof 1) and t quantiles: that gap is computed, not bounded.  The percentile
    p-value is also off a normal tail by the bootstrap distribution's skewness, by
    Edgeworth ``g (z^2 - 1) phi(z) / 6`` with ``g`` the data's skewness over sqrt(n).  On
    top, the Monte Carlo error of R resamples: a tail proportion's sqrt(p (1 - p) / R)
    for percentile; for normal, ``phi(z) sqrt(1 / R + z^2 / (2 R))`` from the errors of
    the replicates' mean and standard deviation."""
    n = len(diff)
    est = float(diff.mean())
    s0, s1 = float(diff.std(ddof=0)), float(diff.std(ddof=1))
    boundary = -d if side == "lower" else d
    # the statistic on the side that rejects: (est - (-d)) or (d - est)
    z = (est - boundary) / (s0 / math.sqrt(n)) * (1 if side == "lower" else -1)
    p_ideal = stats.norm.sf(z)
    t_stat = (est - boundary) / (s1 / math.sqrt(n)) * (1 if side == "lower" else -1)
    assert stats.t.sf(t_stat, n - 1) == pytest.approx(p_t, rel=1e-9)  # (the reference's)
    gap = abs(p_ideal - p_t)
    phi = stats.norm.pdf(z)
    if method == "percentile":
        g = float(stats.skew(diff)) / math.sqrt(n)
        gap += abs(g * (z * z - 1) * phi / 6)
        mc = math.sqrt(p_ideal * (1 - p_ideal) / r)
    else:
        mc = phi * math.sqrt(1 / r + z * z / (2 * r))
    return gap + K_SIGMA * mc


@pytest.mark.parametrize("method", ["normal", "percentile"])
def test_tost_against_statsmodels_ttost_paired(method):
    rng = np.random.default_rng(7)
    n, r, d = 2000, 20_000, 0.06
    a = rng.normal(0.5, 1.0, n)
    b = a + rng.normal(0.01, 1.0, n)
    res = pairboot.compare(a, b, hypothesis="equivalence", margin=d, method=method, seed=3,
                           n_resamples=r)
    # ttost_paired(x1, x2, low, upp) tests the mean of x1 - x2: B - A is (b, a)
    p_t, (_, p_low, _), (_, p_high, _) = ttost_paired(b, a, -d, d)
    # the references are informative: one p near 0.02, neither 0 nor 1
    assert 1e-4 < p_low < 0.01 and 0.01 < p_high < 0.05 and p_t == p_high
    diff = b - a
    for got, want, side in ((res.p_values[0], p_low, "lower"),
                            (res.p_values[1], p_high, "upper")):
        tol = tost_reference_tolerance(diff, d, r, method, want, side)
        assert tol < 0.01  # (the tolerance is tight enough to mean something)
        assert abs(got - want) <= tol, (side, got, want, tol)
    assert res.p_value == max(res.p_values)
    assert abs(res.p_value - p_t) <= tost_reference_tolerance(diff, d, r, method, p_t, "upper")
    # the argument order matters: the other order swaps the two tests, far beyond the
    # tolerance (so the check above would catch a B - A read as A - B)
    _, (_, swapped_low, _), _ = ttost_paired(a, b, -d, d)
    assert swapped_low == pytest.approx(p_high, rel=1e-9)
    assert abs(res.p_values[0] - swapped_low) > 0.01
    assert res.verdict() == ("equivalent" if p_t < ALPHA else "inconclusive")


# --- 4. error rates at the boundary of each null (simulations) --------------------------------


def rejection_rate(make, n_sim: int, **kwargs) -> float:
    """The share of ``n_sim`` simulated data sets (``make(rng)`` gives the compare()
    arguments) on which the test rejects at 95%, one seed per simulation."""
    hits = 0
    for s in range(n_sim):
        args, extra = make(np.random.default_rng(1000 + s))
        res = quiet(pairboot.compare, *args, seed=s, n_resamples=999, **kwargs, **extra)
        hits += rejects(res)
    return hits / n_sim


@pytest.mark.slow
@pytest.mark.parametrize("lower_is_better", [False, True])
def test_non_inferiority_type_one_error_on_normal_scores(lower_is_better):
    d, n, n_sim = 0.2, 100, 800
    true = d if lower_is_better else -d  # the boundary: B worse than A by exactly d

    def make(rng):
        a = rng.normal(0.0, 1.0, n)
        return (a, a + rng.normal(true, 1.0, n)), {}

    rate = rejection_rate(make, n_sim, hypothesis="non-inferiority", margin=d,
                          lower_is_better=lower_is_better)
    assert rate <= binomial_bound(ALPHA, n_sim), rate
    assert rate > 0.01  # (an answer that never rejects would pass the bound)


@pytest.mark.slow
def test_non_inferiority_type_one_error_on_zero_one_scores():
    # accuracy pairs: A alone right on 15% of items, B alone on 10%: B - A = -0.05 exactly
    d, n, n_sim = 0.05, 300, 800
    p10, p01 = 0.15, 0.10

    def make(rng):
        kind = rng.choice(4, size=n, p=[p10, p01, 0.45, 0.30])  # 10, 01, 11, 00
        a = np.isin(kind, (0, 2)).astype(float)
        b = np.isin(kind, (1, 2)).astype(float)
        return (a, b), {}

    rate = rejection_rate(make, n_sim, hypothesis="non-inferiority", margin=d)
    assert rate <= binomial_bound(ALPHA, n_sim), rate
    assert rate > 0.01


def clustered(rng, true: float, n_groups: int = 40, size: int = 10):
    """Items in groups of ``size`` sharing a large group effect on B - A (an intraclass
    correlation of 0.8): an item bootstrap that ignored the groups would reject a true
    null about 30% of the time."""
    groups = np.repeat(np.arange(n_groups), size)
    a = rng.normal(0.0, 1.0, n_groups * size)
    effect = rng.normal(0.0, 1.0, n_groups)[groups]
    b = a + true + effect + rng.normal(0.0, 0.5, n_groups * size)
    return a, b, groups


@pytest.mark.slow
def test_non_inferiority_type_one_error_with_clusters():
    d, n_sim = 0.3, 600

    def make(rng):
        a, b, groups = clustered(rng, -d)
        return (a, b), {"groups": groups}

    rate = rejection_rate(make, n_sim, hypothesis="non-inferiority", margin=d)
    assert rate <= binomial_bound(ALPHA, n_sim), rate
    assert rate > 0.01


@pytest.mark.slow
def test_ignoring_the_clusters_would_fail_the_bound():
    # the cluster test above can fail: the same data without `groups` reject far too often
    d, n_sim = 0.3, 200

    def make(rng):
        a, b, _ = clustered(rng, -d)
        return (a, b), {}

    rate = rejection_rate(make, n_sim, hypothesis="non-inferiority", margin=d)
    assert rate > binomial_bound(ALPHA, 600), rate


def f1_counts(rng, n: int, probs):
    """Items as one of tp, fp, fn, tn (probabilities ``probs``): rows of (tp, fp, fn)."""
    kind = rng.choice(4, size=n, p=probs)
    return np.stack([kind == 0, kind == 1, kind == 2], axis=1).astype(float)


@pytest.mark.slow
def test_non_inferiority_type_one_error_on_pooled_f1():
    # population F1: A 2 (.4) / (2 (.4) + .1 + .1) = 0.8, B 2 (.375) / (.75 + .125 + .125)
    # = 0.75: B - A = -0.05, the boundary of a 0.05 margin
    d, n, n_sim = 0.05, 400, 600
    pa, pb = [0.4, 0.1, 0.1, 0.4], [0.375, 0.125, 0.125, 0.375]
    for p in (pa, pb):
        assert math.isclose(2 * p[0] / (2 * p[0] + p[1] + p[2]), 0.8 if p is pa else 0.75)

    def make(rng):
        return (f1_counts(rng, n, pa), f1_counts(rng, n, pb)), {"metric": "f1"}

    rate = rejection_rate(make, n_sim, hypothesis="non-inferiority", margin=d)
    assert rate <= binomial_bound(ALPHA, n_sim), rate
    assert rate > 0.01


@pytest.mark.slow
@pytest.mark.parametrize("true_sign", [1, -1])
def test_tost_type_one_error_at_either_boundary(true_sign):
    # |B - A| = d exactly, with d five standard errors wide: the far test always rejects,
    # so the near one alone decides and its rate is alpha (not alpha / 2 nor below)
    d, n, n_sim = 0.5, 100, 800

    def make(rng):
        a = rng.normal(0.0, 1.0, n)
        return (a, a + rng.normal(true_sign * d, 1.0, n)), {}

    rate = rejection_rate(make, n_sim, hypothesis="equivalence", margin=d)
    assert rate <= binomial_bound(ALPHA, n_sim), rate
    assert rate > 0.01


@pytest.mark.slow
def test_non_inferiority_power_rises_with_the_items():
    # true B - A = 0, margin 0.2, sd 1: power about 0.64 at 100 items, 0.99 at 400
    d, n_sim = 0.2, 200
    rates = {}
    for n in (100, 400):
        def make(rng, n=n):
            a = rng.normal(0.0, 1.0, n)
            return (a, a + rng.normal(0.0, 1.0, n)), {}

        rates[n] = rejection_rate(make, n_sim, hypothesis="non-inferiority", margin=d)
    se = math.sqrt(sum(p * (1 - p) for p in rates.values()) / n_sim)
    assert rates[400] - rates[100] > K_SIGMA * se, rates
    assert rates[400] > 0.9, rates


# --- 5. families --------------------------------------------------------------------------


def family_scores(seed: int = 3, n: int = 80, shifts=(-0.3, -0.1, 0.0, 0.05, 0.1, 0.2, 0.3,
                                                          0.5)):
    rng = np.random.default_rng(seed)
    base = rng.normal(0.0, 1.0, n)
    scores = {"base": base}
    for k, s in enumerate(shifts):
        scores[f"s{k}"] = base + rng.normal(s, 1.0, n)
    return scores


SCORES = family_scores()
R_FAMILY = 999


def row_shows(row, hypothesis, lower_is_better=False) -> bool:
    return verdict_of(hypothesis, row.margin, row.confidence_interval,
                      lower_is_better) in SHOWN[hypothesis]


@pytest.mark.parametrize(("hypothesis", "margin"), [("difference", None),
                                                    ("non-inferiority", 0.1),
                                                    ("superiority", 0.05),
                                                    ("equivalence", 0.4)])
@pytest.mark.parametrize("correction", ["bh", "by"])
def test_fdr_q_values_are_statsmodels(correction, hypothesis, margin):
    fam = pairboot.compare_many(SCORES, baseline="base", correction=correction,
                                hypothesis=hypothesis, margin=margin, seed=2,
                                n_resamples=R_FAMILY)
    p_raw = np.array([c.p_value for c in fam.comparisons])
    used = np.array([c.p_value_used for c in fam.comparisons])
    q = np.array([c.p_adjusted for c in fam.comparisons])
    method = {"bh": "fdr_bh", "by": "fdr_by"}[correction]
    np.testing.assert_array_equal(used, np.maximum(p_raw, 1 / (R_FAMILY + 1)))
    want = multipletests(used, method=method)[1]
    np.testing.assert_allclose(q, want, rtol=0, atol=1e-12)
    m = len(q)
    selected = sum(c.significant for c in fam.comparisons)
    assert selected == int(np.sum(q < ALPHA))
    c_m = 1.0 if correction == "bh" else sum(1 / k for k in range(1, m + 1))
    # (fcr_level is the level of the intervals shown: equivalence's are at 1 - 2 a)
    tests = 2 if hypothesis == "equivalence" else 1
    assert fam.fcr_level == pytest.approx(1 - tests * max(selected, 1) * ALPHA / c_m / m,
                                          abs=1e-12)
    # the discoveries' intervals, at the FCR level, show what they claim; the rest say
    # "inconclusive"
    for c in fam.comparisons:
        if c.significant:
            assert row_shows(c, hypothesis), (c.confidence_interval, c.p_value, c.p_adjusted)
            assert c.note is None and c.verdict in SHOWN[hypothesis]
        else:
            assert c.verdict == "inconclusive"


@pytest.mark.parametrize("correction", ["bh", "by", "holm", "bonferroni"])
def test_the_p_value_a_correction_used_is_on_the_row(correction):
    # a p-value of 0 (no resample beyond the boundary) enters the correction as
    # 1 / (B + 1): the row says so, and statsmodels on that value gives p_adjusted
    fam = pairboot.compare_many(SCORES, baseline="base", correction=correction, seed=2,
                                n_resamples=R_FAMILY)
    zero = [c for c in fam.comparisons if c.p_value == 0]
    assert zero  # (the case that matters is in the data)
    for c in zero:
        assert c.p_value_used == 1 / (R_FAMILY + 1)
    method = {"bh": "fdr_bh", "by": "fdr_by"}.get(correction, correction)
    want = multipletests([c.p_value_used for c in fam.comparisons], method=method)[1]
    np.testing.assert_allclose([c.p_adjusted for c in fam.comparisons], want, rtol=0,
                               atol=1e-12)
    # uncorrected, and under max-t (whose p-values count maxima, never 0): p_value itself
    for other in ("none", "max-t"):
        fam = pairboot.compare_many(SCORES, baseline="base", correction=other, seed=2,
                                    n_resamples=R_FAMILY)
        assert all(c.p_value_used == c.p_value for c in fam.comparisons)


@pytest.mark.parametrize("correction", ["bh", "by"])
def test_fdr_selects_something_in_these_data(correction):
    # (the checks above are only as good as the rows they select)
    for hypothesis, margin in (("difference", None), ("non-inferiority", 0.1)):
        fam = pairboot.compare_many(SCORES, baseline="base", correction=correction,
                                    hypothesis=hypothesis, margin=margin, seed=2,
                                    n_resamples=R_FAMILY)
        n_sig = sum(c.significant for c in fam.comparisons)
        assert 0 < n_sig < len(fam.comparisons), (hypothesis, n_sig)


@pytest.mark.parametrize("hypothesis", ["non-inferiority", "equivalence"])
def test_fdr_intervals_are_the_marginal_ones_at_the_fcr_level(hypothesis):
    margin = 0.1 if hypothesis == "non-inferiority" else 0.4
    kw = {"baseline": "base", "hypothesis": hypothesis, "margin": margin, "seed": 2,
          "n_resamples": R_FAMILY}
    fam = pairboot.compare_many(SCORES, correction="bh", **kw)
    # (fcr_level is the level of the intervals shown: for equivalence the two-sided one
    # at 1 - 2 R q / m, of TOST at 1 - R q / m)
    level = fam.fcr_level if hypothesis != "equivalence" else (1 + fam.fcr_level) / 2
    plain = pairboot.compare_many(SCORES, correction="none", confidence_level=level, **kw)
    for c, ref in zip(fam.comparisons, plain.comparisons):
        np.testing.assert_allclose(c.confidence_interval, ref.marginal_interval, rtol=1e-9,
                                   atol=1e-9 * c.standard_error)
        assert c.p_value == ref.p_value  # (the raw p-value does not depend on the level)


def test_per_pair_margins_are_each_rows_own():
    scores = {k: SCORES[k] for k in ("base", "s2", "s4", "s6")}
    margins = {("base", "s2"): 0.02, ("base", "s4"): 0.2, ("base", "s6"): 0.1}
    kw = {"baseline": "base", "hypothesis": "non-inferiority", "seed": 9, "n_resamples": 999}
    fam = pairboot.compare_many(scores, margin=margins, correction="none", **kw)
    assert fam.margin is None  # (they differ: no single one to report)
    for c in fam.comparisons:
        assert c.margin == margins[(c.a, c.b)]
        # each row is the row of a family given its own margin for all
        alone = pairboot.compare_many(scores, margin=c.margin, correction="none", **kw)
        ref = next(x for x in alone.comparisons if x.b == c.b)
        assert (c.p_value, c.verdict) == (ref.p_value, ref.verdict)
        assert tuple(c.confidence_interval) == tuple(ref.confidence_interval)
        assert alone.margin == c.margin
    # under holm, each row still takes its own margin: the raw p-values are those above
    holm = pairboot.compare_many(scores, margin=margins, correction="holm", **kw)
    for c, ref in zip(holm.comparisons, fam.comparisons):
        assert c.margin == ref.margin and c.p_value == ref.p_value
    # each row's margin decides its verdict: no single margin gives these three (at 0.02
    # s4 is better by the margin, at 0.2 s2 is non-inferior)
    assert [c.verdict for c in fam.comparisons] == ["inconclusive", "better",
                                                    "better-by-margin"]


@pytest.mark.parametrize("margin", [
    {("base", "s2"): 0.05},  # one missing
    {("base", "s2"): 0.05, ("base", "s4"): 0.1, ("base", "s6"): 0.1, ("s2", "s4"): 0.1},
    {("base", "s2"): 0.05, ("base", "s4"): 0.1, ("s4", "base"): 0.1},  # reversed: unknown
    {("base", "s2"): 0.05, ("base", "s4"): 0.1, "base-s6": 0.1},  # not a pair
    {("base", "s2"): 0.05, ("base", "s4"): 0.1, ("base", "s6"): -0.1},  # a bad value
    {("base", "s2"): 0.05, ("base", "s4"): 0.1, ("base", "s6"): float("nan")},
    {},
])
def test_a_bad_margin_mapping_is_refused_naming_margin(margin):
    scores = {k: SCORES[k] for k in ("base", "s2", "s4", "s6")}
    with pytest.raises(InputError) as info:
        pairboot.compare_many(scores, baseline="base", hypothesis="non-inferiority",
                              margin=margin, seed=1, n_resamples=99)
    assert info.value.param == "margin", str(info.value)


@pytest.mark.parametrize("lower_is_better", [False, True])
@pytest.mark.parametrize(("correction", "hypothesis"), [
    ("none", "non-inferiority"), ("bonferroni", "non-inferiority"), ("none", "superiority"),
    ("none", "equivalence"), ("bonferroni", "equivalence")])
def test_family_rows_agree_with_their_verdicts_at_the_ends(correction, hypothesis,
                                                           lower_is_better):
    # the family reads its rows (family_result's own read()) as compare() does: with each
    # row's margin on its family interval's end, or a hair either side, the decision and
    # the interval never part (no row needs a note); on the end and 1e-9 of it off are
    # ties (not rejected), 1e-7 is beyond the tie tolerance
    scores = {k: SCORES[k] for k in ("base", "s1", "s2", "s4", "s6")}
    kw = {"baseline": "base", "hypothesis": hypothesis, "lower_is_better": lower_is_better,
          "correction": correction, "seed": 8, "n_resamples": 299}
    ref = pairboot.compare_many(scores, margin=0.05, **kw)
    seen = set()
    for eps in (0.0, 1e-9, 1e-7):
        margins = {}
        for c in ref.comparisons:
            ends = [e for e in boundary_of(hypothesis, lower_is_better, c.confidence_interval)
                    if e > 0]
            margins[(c.a, c.b)] = (max(ends) if ends else 0.05) * (1 + eps)
        fam = pairboot.compare_many(scores, margin=margins, **kw)
        for c in fam.comparisons:
            assert c.note is None, c
            assert c.significant == row_shows(c, hypothesis, lower_is_better), c
            seen.add(c.significant)
    assert True in seen or hypothesis == "superiority"


@pytest.mark.parametrize("lower_is_better", [False, True])
@pytest.mark.parametrize("hypothesis", ["non-inferiority", "superiority"])
def test_max_t_verdicts_follow_significance(hypothesis, lower_is_better):
    sign = -1.0 if lower_is_better else 1.0
    shifts = sign * np.array([-0.3, -0.15, -0.05, 0.0, 0.05, 0.1, 0.2, 0.35, 0.5])
    scores = family_scores(seed=11, shifts=tuple(shifts))
    seen = set()
    for margin in (0.05, 0.1, 0.2):
        fam = pairboot.compare_many(scores, baseline="base", hypothesis=hypothesis,
                                    margin=margin, lower_is_better=lower_is_better,
                                    correction="max-t", seed=3, n_resamples=999)
        assert fam.critical_value is not None and math.isfinite(fam.critical_value)
        for c in fam.comparisons:
            low, high = c.confidence_interval
            # one-sided simultaneous bounds, on B's better side, wider than the row's own
            if lower_is_better:
                assert low == -math.inf and high >= c.marginal_interval.high
            else:
                assert high == math.inf and low <= c.marginal_interval.low
            interval_says = row_shows(c, hypothesis, lower_is_better)
            if c.note is None:
                assert c.significant == interval_says, (margin, c)
            else:  # (the stepdown may reject what the single-step interval does not)
                assert c.significant and not interval_says, c.note
            assert c.p_value <= c.p_adjusted <= c.p_single_step
            assert c.significant == (c.p_adjusted < ALPHA)
            assert (c.verdict in SHOWN[hypothesis]) == c.significant
            seen.add(c.significant)
    assert seen == {True, False}


@pytest.mark.parametrize("seed", range(4))
def test_equivalence_max_t_single_step_is_the_simultaneous_interval(seed):
    scores = family_scores(seed=20 + seed, n=60, shifts=(-0.2, -0.1, 0.0, 0.05, 0.1, 0.3))
    base = pairboot.compare_many(scores, baseline="base", hypothesis="equivalence",
                                 margin=0.5, seed=seed, n_resamples=999)
    # margins on the simultaneous interval's far end, and a hair either side: the hard
    # cases (the interval does not depend on the margins: est +- c se)
    ends = [max(-c.confidence_interval.low, c.confidence_interval.high)
            for c in base.comparisons]
    seen = set()
    for eps in (-1e-3, -1e-9, 1e-9, 1e-3, 0.2):
        margins = {(c.a, c.b): e * (1 + eps) for c, e in zip(base.comparisons, ends)}
        fam = pairboot.compare_many(scores, baseline="base", hypothesis="equivalence",
                                    margin=margins, seed=seed, n_resamples=999)
        assert fam.critical_value == base.critical_value
        for c in fam.comparisons:
            low, high = c.confidence_interval
            within = -c.margin < low and high < c.margin
            assert (c.p_single_step < ALPHA) == within, (eps, c)
            assert c.p_adjusted == c.p_single_step and c.significant == within
            assert c.verdict == ("equivalent" if within else "inconclusive")
            assert c.note is None
            seen.add(within)
    assert seen == {True, False}


def test_a_family_of_one_is_compares_answer():
    scores = {"base": SCORES["base"], "s4": SCORES["s4"]}
    for hypothesis, margin in (("non-inferiority", 0.1), ("equivalence", 0.4)):
        one = pairboot.compare(scores["base"], scores["s4"], hypothesis=hypothesis,
                               margin=margin, seed=5, n_resamples=999)
        for correction in ("max-t", "bh", "holm"):
            fam = pairboot.compare_many(scores, hypothesis=hypothesis, margin=margin,
                                        correction=correction, seed=5, n_resamples=999)
            (c,) = fam.comparisons
            assert c.p_value == one.p_value
            assert tuple(c.confidence_interval) == tuple(one.confidence_interval)
            assert c.verdict == one.verdict()


@pytest.mark.slow
def test_bh_false_discovery_rate_with_true_nulls():
    # non-inferiority against a shared baseline: 5 systems at the null's boundary (B - A
    # = -d), 5 with B - A = +d.  Every system is the item's difficulty plus its own
    # noise, so every difference holds the baseline's noise: the one-sided statistics are
    # positively correlated (PRDS), and BH holds the FDR at alpha m0 / m
    d, n, n_sim = 0.2, 80, 200
    m0, m1 = 5, 5
    fdp = []
    for s in range(n_sim):
        rng = np.random.default_rng(5000 + s)
        item = rng.normal(0.0, 1.0, n)
        scores = {"base": item + rng.normal(0.0, 0.7, n)}
        for k in range(m0):
            scores[f"null{k}"] = item + rng.normal(-d, 0.7, n)
        for k in range(m1):
            scores[f"alt{k}"] = item + rng.normal(d, 0.7, n)
        fam = quiet(pairboot.compare_many, scores, baseline="base", correction="bh",
                    hypothesis="non-inferiority", margin=d, seed=s, n_resamples=499)
        sig = [c.b for c in fam.comparisons if c.significant]
        false = sum(name.startswith("null") for name in sig)
        fdp.append(false / max(len(sig), 1))
    fdp = np.array(fdp)
    fdr, se = fdp.mean(), fdp.std(ddof=1) / math.sqrt(n_sim)
    # (the floor on se: a rate near 0 has a tiny sample sd, not a tiny error)
    assert fdr <= ALPHA * m0 / (m0 + m1) + K_SIGMA * max(se, 0.005), (fdr, se)
    assert fdp.max() > 0  # (the nulls were tested at their boundary, not far inside)


# --- partial conjunction ------------------------------------------------------------------


def strata_data(rng, effects, n_per: int = 60, lower_is_better: bool = False):
    """Paired scores in one stratum per effect (B - A's mean there)."""
    k = len(effects)
    strata = np.repeat([f"t{h}" for h in range(k)], n_per)
    a = rng.normal(0.0, 1.0, k * n_per)
    shift = np.repeat(np.asarray(effects, float), n_per) * (-1 if lower_is_better else 1)
    b = a + shift + rng.normal(0.0, 1.0, k * n_per)
    return a, b, strata


@pytest.mark.slow
@pytest.mark.parametrize(("hypothesis", "margin", "null", "lower_is_better", "first"),
                         [("difference", None, 0.0, False, 7000),
                          ("non-inferiority", 0.2, -0.2, True, 8000)])
def test_partial_conjunction_error_rate(hypothesis, margin, null, lower_is_better, first):
    # u - 1 = 2 strata with a big true gain, 3 at the null (its boundary: B - A = 0, or
    # B worse by the margin exactly): "at least 3" is false, and is claimed (count >= 3)
    # with probability at most alpha
    u, n_sim = 3, 300
    effects = [1.5, 1.5, null, null, null]
    wrong = 0
    for s in range(n_sim):
        a, b, strata = strata_data(np.random.default_rng(first + s), effects,
                                   lower_is_better=lower_is_better)
        fam = quiet(pairboot.compare_strata, a, b, strata=strata, hypothesis=hypothesis,
                    margin=margin, lower_is_better=lower_is_better, correction="holm",
                    seed=s, n_resamples=499)
        pc = fam.partial_conjunction
        assert pc.of == len(effects)
        wrong += pc.count >= u
    assert wrong / n_sim <= binomial_bound(ALPHA, n_sim), wrong / n_sim


@pytest.mark.slow
def test_partial_conjunction_finds_the_big_gains():
    # the error-rate test above is idle if the count never reaches u - 1
    effects = [1.5, 1.5, 0.0, 0.0, 0.0]
    counts = []
    for s in range(40):
        a, b, strata = strata_data(np.random.default_rng(7000 + s), effects)
        fam = quiet(pairboot.compare_strata, a, b, strata=strata, correction="holm",
                    seed=s, n_resamples=499)
        counts.append(fam.partial_conjunction.count)
    assert np.mean(np.array(counts) >= 2) > 0.9, counts


def simes_by_hand(p, alpha):
    """Benjamini & Heller's Simes partial conjunction p-values, made monotone, and the
    count of leading rejections, written out from the definition."""
    s = np.sort(p)
    k = len(s)
    raw = []
    for u in range(1, k + 1):
        tail = s[u - 1:]
        size = k - u + 1
        raw.append(min(1.0, min(size / i * tail[i - 1] for i in range(1, size + 1))))
    mono = np.maximum.accumulate(raw)
    count = 0
    while count < k and mono[count] < alpha:
        count += 1
    return mono, count


@pytest.mark.parametrize("lower_is_better", [False, True])
def test_partial_conjunction_of_non_inferiority_is_simes_of_the_rows(lower_is_better):
    rng = np.random.default_rng(31)
    effects = [0.8, 0.6, 0.1, -0.1, -0.5]
    a, b, strata = strata_data(rng, effects, lower_is_better=lower_is_better)
    r = 999
    fam = pairboot.compare_strata(a, b, strata=strata, hypothesis="non-inferiority",
                                  margin=0.2, correction="none", seed=4, n_resamples=r,
                                  lower_is_better=lower_is_better)
    pc = fam.partial_conjunction
    assert pc.claim == "non-inferior" and pc.of == 5 and pc.combination == "simes"
    # non-inferiority's rows' p-values are the one-sided p-values the conjunction reads
    p = np.maximum([c.p_value for c in fam.comparisons], 1 / (r + 1))
    mono, count = simes_by_hand(p, ALPHA)
    np.testing.assert_allclose(pc.p_values, mono, rtol=0, atol=1e-12)
    assert pc.count == count
    assert 0 < count < 5  # (informative: neither nothing nor everything)


def test_partial_conjunction_of_a_difference_is_consistent():
    # the rows of a difference hold two-sided p-values; the conjunction reads one-sided
    # ones on B's better side, which are not shown: check what can be checked from the
    # outside, against one-sided paired t tests by hand on each stratum
    rng = np.random.default_rng(32)
    effects = [0.9, 0.7, 0.35, 0.0, -0.4]
    a, b, strata = strata_data(rng, effects)
    fam = pairboot.compare_strata(a, b, strata=strata, correction="holm", seed=4,
                                  n_resamples=1999)
    pc = fam.partial_conjunction
    assert pc.claim == "better" and pc.alpha == pytest.approx(ALPHA)
    p = np.array(pc.p_values)
    assert np.all(np.diff(p) >= 0)
    leading = 0
    while leading < len(p) and p[leading] < ALPHA:
        leading += 1
    assert pc.count == leading
    # count >= u needs p_(u) < alpha (Simes' u-th value is at least the u-th smallest p)
    strong = 0
    for h in range(len(effects)):
        mask = strata == f"t{h}"
        t_p = stats.ttest_rel(b[mask], a[mask], alternative="greater").pvalue
        strong += t_p < ALPHA
    assert pc.count <= strong  # (no more strata counted than have strong evidence)
    assert pc.count >= 2  # (the two big gains are found: informative)
    # the count never exceeds the strata whose own interval shows B better one-sided
    rows_better = sum(c.estimate > 0 and c.p_value / 2 < ALPHA for c in fam.comparisons)
    assert pc.count <= rows_better


def test_a_small_stratum_counts_no_more_than_an_exact_test_of_its_units_could():
    """4 items whose differences are all +0.2: every resample of them is +0.2, so its
    bootstrap p is at the resolution, but no test of 4 items can go below 2**-4 = 0.0625
    one-sided (the sign-flip test's, every item on B's side). The conjunction counted it
    ("on at least 2 of 2 strata B is better"); it now counts the big stratum only."""
    rng = np.random.default_rng(0)
    a = rng.random(40)
    b = a + rng.normal(0.05, 0.1, 40)
    b[36:] = a[36:] + 0.2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fam = pairboot.compare_strata(a, b, strata=["big"] * 36 + ["tiny"] * 4, seed=1)
    assert fam.comparisons[1].verdict == "undefined"  # (its row: too few for a decision)
    pc = fam.partial_conjunction
    assert (pc.count, pc.of) == (1, 2)
    assert pc.task_p_values[1] == 2.0**-4 and pc.task_p_values[0] < ALPHA


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_the_count_does_not_depend_on_the_intervals_sides(alternative):
    """Four strata of 5 items, B ahead on every item: each one-sided p is at least 2**-5
    (below 0.05), whatever sides the rows' intervals have, so all four count."""
    a = np.arange(20.0) % 7
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fam = pairboot.compare_strata(a, a + 2.0, strata=np.repeat(list("wxyz"), 5),
                                      n_resamples=1999, seed=1, alternative=alternative)
    pc = fam.partial_conjunction
    assert pc.task_p_values == (2.0**-5,) * 4
    assert pc.count == 4


@pytest.mark.parametrize(("size", "warned"), [(8, True), (29, True), (30, False)])
def test_a_family_over_small_strata_says_it_does_not_hold_its_level(size, warned):
    """Below 30 units per stratum a family over strata flags some stratum far more often
    than its level under no difference (docs/small_samples.md: 44% at 8 items, 18% at 30
    in 20 strata); it says so, naming the smallest stratum's size."""
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(2, 3 * size))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pairboot.compare_strata(a, b, strata=np.repeat(["x", "y", "z"], size),
                                n_resamples=999, seed=1)
    said = [str(w.message) for w in caught if "does not hold its error rate" in str(w.message)]
    assert bool(said) == warned
    if warned:
        assert f"(the smallest has {size})" in said[0] and "max-t" in said[0]
        assert "method='studentized'" in said[0]
    # max-t on the studentized roots holds the level there: no such warning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pairboot.compare_strata(a, b, strata=np.repeat(["x", "y", "z"], size),
                                n_resamples=999, seed=1, method="studentized")
    assert not [w for w in caught if "does not hold its error rate" in str(w.message)]


# --- 6. refusals --------------------------------------------------------------------------


def param_of(call, *args, **kwargs) -> str:
    with pytest.raises(InputError) as info:
        call(*args, **kwargs)
    return info.value.param


@pytest.mark.parametrize("margin", [-0.1, float("nan"), float("inf"), -float("inf"), True,
                                    False, "0.1", [0.1], np.nan])
def test_a_bad_margin_is_refused_naming_margin(margin):
    for call, data in ((pairboot.compare, (A, B)),
                       (pairboot.compare_many, ({"a": A, "b": B},))):
        for hypothesis in ("non-inferiority", "equivalence", "difference"):
            assert param_of(call, *data, hypothesis=hypothesis, margin=margin, seed=1,
                            n_resamples=99) == "margin", (call.__name__, hypothesis, margin)
    strata = np.repeat(["x", "y"], len(A) // 2)
    assert param_of(pairboot.compare_strata, A, B, strata=strata, hypothesis="equivalence",
                    margin=margin, seed=1, n_resamples=99) == "margin"


def test_numpy_margins_are_numbers():
    # (a float64 or an int64 from an array is a margin like any other)
    for margin in (np.float64(0.05), np.int64(0), np.float32(0.05)):
        res = pairboot.compare(A, B, hypothesis="non-inferiority", margin=margin, seed=1,
                               n_resamples=99)
        assert res.margin == float(margin) and isinstance(res.margin, float)


def test_a_margin_beyond_the_scores_range_is_refused():
    a = np.linspace(0.0, 0.5, 40)
    b = np.linspace(0.2, 0.7, 40)[::-1].copy()
    span = 0.7 - 0.0  # (from the lowest score of either system to the highest)
    ok = pairboot.compare(a, b, hypothesis="non-inferiority", margin=span, seed=1,
                          n_resamples=99)
    assert ok.margin == span
    for hypothesis in MARGINS + ("difference",):
        assert param_of(pairboot.compare, a, b, hypothesis=hypothesis, margin=span * 1.01,
                        seed=1, n_resamples=99) == "margin"
    assert param_of(pairboot.compare_many, {"a": a, "b": b, "c": b}, margin=0.8,
                    hypothesis="equivalence", seed=1, n_resamples=99) == "margin"
    # a per-pair mapping is checked by its largest value
    assert param_of(pairboot.compare_many, {"a": a, "b": b, "c": b}, baseline="a",
                    margin={("a", "b"): 0.1, ("a", "c"): 0.9}, hypothesis="equivalence",
                    seed=1, n_resamples=99) == "margin"


def test_a_margin_beyond_a_bounded_metric_is_refused():
    rng = np.random.default_rng(2)
    correct_a = rng.integers(0, 2, 60)
    correct_b = rng.integers(0, 2, 60)
    acc_a = np.stack([correct_a, np.ones(60)], axis=1)
    acc_b = np.stack([correct_b, np.ones(60)], axis=1)
    res = pairboot.compare(acc_a, acc_b, metric="accuracy", hypothesis="equivalence",
                           margin=1.0, seed=1, n_resamples=99)
    assert res.metric == "accuracy" and res.margin == 1.0
    assert param_of(pairboot.compare, acc_a, acc_b, metric="accuracy",
                    hypothesis="non-inferiority", margin=1.5, seed=1,
                    n_resamples=99) == "margin"
    f1_a, f1_b = f1_counts(rng, 60, [0.4, 0.1, 0.1, 0.4]), f1_counts(rng, 60, [0.3] * 3 + [0.1])
    assert param_of(pairboot.compare, f1_a, f1_b, metric="f1", hypothesis="superiority",
                    margin=1.01, seed=1, n_resamples=99) == "margin"


@pytest.mark.parametrize("hypothesis", MARGINS)
def test_a_margin_hypothesis_without_margin_is_refused_everywhere(hypothesis):
    strata = np.repeat(["x", "y"], len(A) // 2)
    assert param_of(pairboot.compare, A, B, hypothesis=hypothesis, n_resamples=99) == "margin"
    assert param_of(pairboot.compare_many, {"a": A, "b": B, "c": B + 0.1},
                    hypothesis=hypothesis, n_resamples=99) == "margin"
    assert param_of(pairboot.compare_strata, A, B, strata=strata, hypothesis=hypothesis,
                    n_resamples=99) == "margin"
    runs_a, runs_b = np.stack([A, A + 0.01], axis=1), np.stack([B, B - 0.01], axis=1)
    assert param_of(pairboot.compare, runs_a, runs_b, runs="seeds", hypothesis=hypothesis,
                    n_resamples=99) == "margin"


# --- runs="seeds": the t interval -----------------------------------------------------------


def seeds_data(seed: int, n: int = 30, runs: int = 4, shift: float = 0.1):
    rng = np.random.default_rng(seed)
    item = rng.normal(0.0, 1.0, (n, 1))
    a = item + rng.normal(0.0, 0.5, (n, runs)) + rng.normal(0.0, 0.1, (1, runs))
    b = item + shift + rng.normal(0.0, 0.5, (n, runs)) + rng.normal(0.0, 0.1, (1, runs))
    return a, b


@pytest.mark.parametrize("lower_is_better", [False, True])
@pytest.mark.parametrize("hypothesis", MARGINS)
def test_runs_seeds_verdict_and_p_agree(hypothesis, lower_is_better):
    checked = set()
    for seed in range(2):
        a, b = seeds_data(seed, shift=shift_for(hypothesis, lower_is_better) * 0.5)
        kw = {"runs": "seeds", "hypothesis": hypothesis, "lower_is_better": lower_is_better,
              "seed": seed, "n_resamples": 199}
        ref = pairboot.compare(a, b, margin=0.05, **kw)
        assert ref.runs is not None
        for end in boundary_of(hypothesis, lower_is_better, ref.confidence_interval):
            for eps in (-1e-7, -1e-9, 0.0, 1e-9, 1e-7):  # (1e-9: a tie; 1e-7: beyond)
                margin = end * (1 + eps)
                if not margin > 0:
                    continue
                res = pairboot.compare(a, b, margin=margin, **kw)
                assert rejects(res) == shown(res), (seed, margin, res.confidence_interval,
                                                    res.p_value, res.verdict())
                if hypothesis == "equivalence":
                    assert res.p_value == max(res.p_values)
                    assert res.interval_level == 0.9
                checked.add(rejects(res))
    assert checked == {True, False}


def test_runs_seeds_equivalence_refuses_max_t():
    a, b = seeds_data(1)
    scores = {"a": a, "b": b, "c": b + 0.05}
    kw = {"runs": "seeds", "hypothesis": "equivalence", "margin": 0.5, "seed": 1,
          "n_resamples": 199}
    assert param_of(pairboot.compare_many, scores, **kw) == "correction"
    # Holm is taken, and its rows agree with their verdicts
    fam = pairboot.compare_many(scores, correction="holm", **kw)
    for c in fam.comparisons:
        assert c.significant == (c.verdict in SHOWN["equivalence"])
        assert c.margin == 0.5
    # a family of one (nothing to correct) and non-inferiority under max-t are taken
    pairboot.compare_many({"a": a, "b": b}, **kw)
    pairboot.compare_many(scores, **{**kw, "hypothesis": "non-inferiority"})


@pytest.mark.parametrize("correction", ["bh", "by"])
def test_an_untestable_row_is_not_in_the_fdr_family(correction):
    # a copy of the baseline has no BCa interval (constant differences): its p is NaN,
    # and m counts the other rows, or a discovery's interval could include its boundary
    rng = np.random.default_rng(5)
    base = rng.random(300)
    scores = {"base": base, "same": base.copy(),
              **{f"v{j}": base + rng.normal(0.01 * j, 0.05, 300) for j in range(1, 5)}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fam = pairboot.compare_many(scores, baseline="base", correction=correction,
                                    method="bca", hypothesis="non-inferiority", margin=0.02,
                                    seed=5, n_resamples=999)
    rows = [c for c in fam.comparisons if c.b != "same"]
    assert math.isnan(next(c for c in fam.comparisons if c.b == "same").p_value)
    assert all(c.note is None for c in rows), [c.note for c in rows]
    found = sum(c.significant for c in rows)
    factor = 1.0 if correction == "bh" else sum(1 / k for k in range(1, 5))
    assert fam.fcr_level == pytest.approx(1 - max(found, 1) * ALPHA / factor / 4, abs=1e-12)


# --- the p-value of a claim beyond the hypothesis, in a family's rows ----------------------


@pytest.mark.parametrize("correction", ["none", "holm", "bonferroni", "bh", "max-t"])
def test_a_rows_better_verdict_carries_the_p_value_of_better(correction):
    # under non-inferiority a row whose family interval lies above 0 says "better": its
    # p-value is that of H0 b - a <= 0, adjusted as the row's interval is, and below
    # alpha exactly when that interval shows it (the p columns are non-inferiority's)
    kw = {"baseline": "base", "correction": correction, "seed": 2, "n_resamples": R_FAMILY}
    fam = pairboot.compare_many(SCORES, hypothesis="non-inferiority", margin=0.3, **kw)
    better = [c for c in fam.comparisons if c.verdict in ("better", "better-by-margin")]
    assert better and any(c.verdict == "non-inferior" for c in fam.comparisons)
    for c in fam.comparisons:
        if c.verdict == "better":
            assert c.claim_p_value is not None and c.claim_p_value < ALPHA
            assert c.confidence_interval.low > 0
        elif c.verdict == "better-by-margin":
            assert c.claim_p_value < ALPHA and c.confidence_interval.low > 0.3
        else:
            assert c.claim_p_value is None
    # uncorrected, "better"'s p is the one-sided p of a difference on the same draws; Holm
    # and Bonferroni read their interval at alpha / m: its p times m
    plain = pairboot.compare_many(SCORES, alternative="greater", **{**kw,
                                  "correction": "none"})
    raw = {c.b: c.p_value for c in plain.comparisons}
    m = len(fam.comparisons)
    floor = 1 / (R_FAMILY + 1)
    for c in (c for c in better if c.verdict == "better"):
        want = {"none": raw[c.b], "holm": min(1.0, m * max(raw[c.b], floor)),
                "bonferroni": min(1.0, m * max(raw[c.b], floor))}.get(correction)
        if want is not None:
            assert c.claim_p_value == pytest.approx(want, rel=1e-12)

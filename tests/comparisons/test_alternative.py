"""One-sided tests and intervals: scipy's ``alternative`` ("two-sided", "greater", "less").

"greater": the alternative hypothesis is B - A > 0, the interval ``[low, inf)`` at
``confidence_level``; "less": ``(-inf, high]``.  The p-value is the smallest alpha at which
the one-sided interval excludes 0.  References, exact where there is one:

1. exact: the whole bootstrap distribution of five paired items (all 5^5 draws, equally
   likely), its share ``<= 0`` (``>= 0``) against the one-sided percentile p-value, within
   4 binomial standard deviations of the resampled share;
2. ``scipy.stats.bootstrap(..., paired=True, alternative=...)``, percentile and BCa, the
   finite end within 4 Monte Carlo standard deviations (derived below);
3. exact identities: the one-sided end at ``1 - alpha`` is the two-sided end at
   ``1 - 2 alpha`` for every method, same seed (dyadic levels, so that ``1 - L`` and
   ``(1 - L2) / 2`` are the same double), in compare() and in compare_many()'s rows;
   the replicates do not depend on ``alternative``;
4. ``scipy.stats.t`` for ``runs="seeds"``;
5. consistency: ``p < alpha`` exactly when the one-sided interval at ``1 - alpha`` excludes
   0, on a grid of alpha and just either side of p;
6. the default is today's two-sided answer, field by field;

and end to end: compare_many (Holm, Bonferroni on the one-sided p-values; max-t on the
signed maximum, against a plain-Python reference on compare()'s replicates), the Poisson
bootstrap of files and of Dask frames against memory, the command line, and the refusal
of a bad value.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import warnings
from statistics import NormalDist

import numpy as np
import pytest
from helpers import error, run_in_process
from scipy import stats

import pairboot
from pairboot.errors import PairbootWarning

METHODS = ("percentile", "basic", "normal", "bca", "studentized")
ONE_SIDED = ("greater", "less")
K = 4.0  # Monte Carlo standard deviations allowed
small = pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")
pytestmark = small  # (few resamples, far levels and five-item tables, on purpose)


def paired_data(seed: int, n: int = 60, shift: float = 0.03):
    """Two systems' continuous scores sharing an item difficulty (no ties)."""
    rng = np.random.default_rng(seed)
    base = rng.random(n)
    return base + rng.normal(0, 0.1, n), base + rng.normal(shift, 0.15, n)


# seed 14: the two-sided 95% percentile interval includes 0, p about 0.089, so the
# one-sided 95% interval ("greater") excludes it (checked in the tests that use it)
A, B = paired_data(14)


def quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PairbootWarning)
        return call(*args, **kwargs)


def one_sided_end(ci, alternative: str) -> float:
    """The finite end of a one-sided interval, after checking the open one."""
    low, high = ci
    if alternative == "greater":
        assert high == math.inf, ci
        return low
    assert low == -math.inf, ci
    return high


def excludes_zero(ci) -> bool:
    return ci[0] > 0 or ci[1] < 0


def two_sided_end(ci, alternative: str) -> float:
    return ci[0] if alternative == "greater" else ci[1]


# --- 6. the default is today's answer --------------------------------------------------------


def _same_result(r1, r2):
    for f in dataclasses.fields(r1):
        v1, v2 = getattr(r1, f.name), getattr(r2, f.name)
        if f.name == "bootstrap_distribution":
            np.testing.assert_array_equal(v1, v2)
        else:
            np.testing.assert_equal(v1, v2, err_msg=f.name)  # (NaN equals NaN)


@pytest.mark.parametrize("method", METHODS)
def test_two_sided_is_the_default_field_by_field(method):
    default = pairboot.compare(A, B, seed=1, n_resamples=1000, method=method)
    named = pairboot.compare(A, B, seed=1, n_resamples=1000, method=method,
                             alternative="two-sided")
    assert default.alternative == named.alternative == "two-sided"
    _same_result(default, named)
    assert default.to_dict() == named.to_dict() or (
        json.dumps(default.to_dict(), sort_keys=True, default=str)
        == json.dumps(named.to_dict(), sort_keys=True, default=str))
    # both ends finite: the default did not turn one-sided
    assert all(math.isfinite(x) for x in default.confidence_interval)


def test_two_sided_family_is_the_default():
    scores = {"base": A, "v1": B, "v2": B + 0.01}
    kw = {"baseline": "base", "seed": 3, "n_resamples": 500, "backend": "numpy"}
    for correction in ("max-t", "holm"):
        default = pairboot.compare_many(scores, correction=correction, **kw)
        named = pairboot.compare_many(scores, correction=correction, alternative="two-sided",
                                      **kw)
        assert default.critical_value == named.critical_value
        for c1, c2 in zip(default.comparisons, named.comparisons):
            np.testing.assert_equal(c1.to_dict(), c2.to_dict())


# --- the open end, the field, the verdict ------------------------------------------------------


@pytest.mark.parametrize("alternative", ONE_SIDED)
def test_the_interval_is_open_on_one_side(alternative):
    res = pairboot.compare(A, B, seed=2, n_resamples=1000, alternative=alternative)
    assert res.alternative == alternative
    assert isinstance(res.confidence_interval, pairboot.ConfidenceInterval)
    end = one_sided_end(res.confidence_interval, alternative)
    assert math.isfinite(end)
    # one-sided at 95% is tighter on its side than two-sided at 95% (z 1.645 vs 1.960)
    two = pairboot.compare(A, B, seed=2, n_resamples=1000)
    if alternative == "greater":
        assert two.confidence_interval.low < end < res.estimate
    else:
        assert res.estimate < end < two.confidence_interval.high


def test_excludes_zero_and_the_verdict_follow_the_one_sided_interval():
    kw = {"seed": 1, "n_resamples": 2000}
    two = pairboot.compare(A, B, **kw)
    greater = pairboot.compare(A, B, alternative="greater", **kw)
    less = pairboot.compare(A, B, alternative="less", **kw)
    # the data were chosen so: two-sided p between 0.05 and 0.1, the estimate positive
    assert 0.05 < two.p_value < 0.1 and two.estimate > 0
    assert not two.excludes_zero and two.verdict() == "inconclusive"
    assert greater.confidence_interval.low > 0 and greater.p_value < 0.05
    assert greater.excludes_zero
    assert greater.verdict() == "better"
    assert greater.verdict(lower_is_better=True) == "worse"
    assert less.p_value > 0.5
    assert not less.excludes_zero and less.verdict() == "inconclusive"
    # swapping the systems mirrors it: "less" on (B, A) is "greater" on (A, B)
    swapped = pairboot.compare(B, A, alternative="less", **kw)
    assert swapped.confidence_interval.high < 0 and swapped.excludes_zero
    assert swapped.verdict() == "worse"


def test_the_to_dict_names_the_alternative():
    res = pairboot.compare(A, B, seed=1, n_resamples=500, alternative="greater")
    out = res.to_dict()
    assert out["alternative"] == "greater"
    assert out["confidence_interval"]["high"] in (None, "inf")
    assert out["confidence_interval"]["low"] == res.confidence_interval.low
    json.dumps(out, allow_nan=False)  # JSON-ready: the open end is not a bare Infinity


# --- 3. one-sided at 1 - alpha is two-sided at 1 - 2 alpha, exactly ----------------------------


@pytest.mark.parametrize("level", [0.75, 0.875, 0.9375])  # 2L - 1 and 1 - L exact in binary
@pytest.mark.parametrize("alternative", ONE_SIDED)
@pytest.mark.parametrize("method", METHODS)
def test_one_sided_end_is_the_two_sided_end_at_twice_alpha(method, alternative, level):
    kw = {"seed": 4, "n_resamples": 1000, "method": method}
    one = pairboot.compare(A, B, confidence_level=level, alternative=alternative, **kw)
    two = pairboot.compare(A, B, confidence_level=2 * level - 1, **kw)
    assert one.confidence_level == level
    np.testing.assert_array_equal(one.bootstrap_distribution, two.bootstrap_distribution)
    assert (one.estimate, one.standard_error) == (two.estimate, two.standard_error)
    end = one_sided_end(one.confidence_interval, alternative)
    assert end == two_sided_end(two.confidence_interval, alternative)


@pytest.mark.parametrize("alternative", ONE_SIDED)
@pytest.mark.parametrize("method", METHODS)
def test_one_sided_95_is_the_two_sided_90(method, alternative):
    # 1 - 0.95 and (1 - 0.9) / 2 differ by rounding: equal to far below the Monte Carlo error
    kw = {"seed": 5, "n_resamples": 1000, "method": method}
    one = pairboot.compare(A, B, alternative=alternative, **kw)
    two = pairboot.compare(A, B, confidence_level=0.9, **kw)
    np.testing.assert_array_equal(one.bootstrap_distribution, two.bootstrap_distribution)
    end = one_sided_end(one.confidence_interval, alternative)
    assert end == pytest.approx(two_sided_end(two.confidence_interval, alternative),
                                rel=1e-9, abs=1e-9 * two.standard_error)


# --- 5. the p-value and the interval agree at every level --------------------------------------

GRID = (0.001, 0.01, 0.02, 0.03, 0.04, 0.05, 0.07, 0.1, 0.2, 0.3, 0.5)


@pytest.mark.parametrize("alternative", ONE_SIDED)
@pytest.mark.parametrize("method", METHODS)
def test_p_below_alpha_exactly_when_the_interval_excludes_zero(method, alternative):
    # (A, B) for "greater" and (B, A) for "less": p about 0.045 either way, inside the grid
    a, b = (A, B) if alternative == "greater" else (B, A)
    kw = {"seed": 6, "n_resamples": 1000, "method": method, "alternative": alternative}
    p = pairboot.compare(a, b, **kw).p_value
    assert 0.005 < p < 0.2, p  # the grid straddles it: the check below can fail both ways
    alphas = [*GRID, p * (1 - 1e-6), p * (1 + 1e-6)]
    seen = set()
    for alpha in alphas:
        res = pairboot.compare(a, b, confidence_level=1 - alpha, **kw)
        assert res.p_value == p  # the p-value does not depend on the level
        one_sided_end(res.confidence_interval, alternative)
        excluded = excludes_zero(res.confidence_interval)
        assert (p < alpha) == excluded, (alpha, p, res.confidence_interval)
        assert res.excludes_zero == excluded
        seen.add(excluded)
    assert seen == {True, False}


@pytest.mark.parametrize("method", METHODS)
def test_the_far_side_p_value_is_large(method):
    # "less" with B ahead: nothing suggests B < A; p above 1/2, the interval holds 0
    res = pairboot.compare(A, B, seed=6, n_resamples=1000, method=method, alternative="less")
    assert res.p_value > 0.5
    assert res.confidence_interval.high > 0 and not res.excludes_zero


def test_percentile_one_sided_p_values_are_halves_and_complements():
    # Percentile, no replicate exactly 0 (continuous scores): the two-sided p is
    # 2 min(share <= 0, share >= 0), "greater"'s is share <= 0, "less"'s is share >= 0:
    # "greater" + "less" == 1 and "greater" == two-sided / 2 (the estimate is positive)
    kw = {"seed": 8, "n_resamples": 2000}
    two = pairboot.compare(A, B, **kw)
    greater = pairboot.compare(A, B, alternative="greater", **kw)
    less = pairboot.compare(A, B, alternative="less", **kw)
    assert not np.any(two.bootstrap_distribution == 0)
    assert 0 < greater.p_value < 0.5
    assert greater.p_value == pytest.approx(two.p_value / 2, rel=1e-9, abs=1e-12)
    # (to the tie window: an end within 1e-9 of the replicates' scale of 0 excludes it on
    # neither side, so the two add to a hair over 1)
    assert greater.p_value + less.p_value == pytest.approx(1.0, abs=1e-8)
    share = np.mean(two.bootstrap_distribution <= 0)
    assert greater.p_value == pytest.approx(share, abs=1.0 / kw["n_resamples"])


# --- 1. the exact bootstrap distribution of five items ----------------------------------------

# dyadic scores: every resampled mean difference is exact, and 0 (an atom of mass 0.093)
# is one of them, so the convention (<= 0 for "greater", >= 0 for "less") matters
TINY_A = np.array([0.5, 0.25, 0.375, 0.5, 0.125])
TINY_B = TINY_A + np.array([0.25, 0.0, 0.125, -0.25, 0.125])


def exact_shares(a, b):
    """(P(theta* <= 0), P(theta* >= 0)) over all n^n equally likely draws of n items."""
    d = np.asarray(b) - np.asarray(a)
    n = len(d)
    draws = np.array(list(itertools.product(range(n), repeat=n)))
    theta = d[draws].sum(axis=1) / n  # (exact: dyadic values)
    return float(np.mean(theta <= 0)), float(np.mean(theta >= 0))


def test_the_exact_shares_of_the_tiny_sample():
    # the reference itself: 3125 draws, counted by hand for the atom at 0
    at_most, at_least = exact_shares(TINY_A, TINY_B)
    assert at_most == pytest.approx(937 / 3125, abs=1e-15)
    assert at_least == pytest.approx(2479 / 3125, abs=1e-15)
    assert at_most + at_least - 1 == pytest.approx(291 / 3125, abs=1e-15)  # P(theta* == 0)


@small
@pytest.mark.parametrize("backend", ["numpy", "auto"])
def test_percentile_p_against_the_exact_bootstrap(backend):
    r = 20_000
    at_most, at_least = exact_shares(TINY_A, TINY_B)
    kw = {"seed": 11, "n_resamples": r, "backend": backend}
    greater = pairboot.compare(TINY_A, TINY_B, alternative="greater", **kw)
    less = pairboot.compare(TINY_A, TINY_B, alternative="less", **kw)
    two = pairboot.compare(TINY_A, TINY_B, **kw)
    for p, share in ((greater.p_value, at_most), (less.p_value, at_least)):
        sd = math.sqrt(share * (1 - share) / r)  # binomial sd of the resampled share
        assert abs(p - share) <= K * sd + 1.0 / r, (p, share, sd)
    # the two-sided convention these follow: min(2 share<=0, 2 share>=0, 1), same draws
    assert two.p_value == pytest.approx(min(2 * greater.p_value, 2 * less.p_value, 1.0),
                                        abs=2.0 / r)
    assert greater.p_value == pytest.approx(two.p_value / 2, abs=1e-12)
    # with the atom at 0 the two one-sided p-values add to more than 1 (both count it)
    assert greater.p_value + less.p_value > 1 + 0.08


# --- 2. scipy.stats.bootstrap ------------------------------------------------------------------


def _mean_difference(x, y, axis=-1):
    return np.mean(y, axis=axis) - np.mean(x, axis=axis)


def scipy_end(a, b, alternative, method, seed, r):
    ref = stats.bootstrap((a, b), _mean_difference, paired=True, vectorized=True,
                          alternative=alternative, method=method, n_resamples=r,
                          confidence_level=0.95, random_state=np.random.default_rng(seed))
    return one_sided_end(ref.confidence_interval, alternative)


@pytest.mark.parametrize("alternative", ONE_SIDED)
@pytest.mark.parametrize(("method", "scipy_method"), [("percentile", "percentile"),
                                                       ("bca", "BCa")])
def test_against_scipy_bootstrap(method, scipy_method, alternative):
    a, b = paired_data(3, n=50, shift=0.02)
    r = 20_000
    res = pairboot.compare(a, b, n_resamples=r, method=method, seed=21,
                           alternative=alternative)
    ends = [scipy_end(a, b, alternative, scipy_method, seed, r) for seed in range(8)]
    # the Monte Carlo sd of a 5% quantile of R replicates: sqrt(p (1 - p) / R) / density,
    # the density of the near-normal replicates phi(z) / se; and at least the spread of
    # scipy's end over its seeds (BCa adds z0's error)
    z = NormalDist().inv_cdf(0.95)
    asymptotic = math.sqrt(0.05 * 0.95 / r) / (math.exp(-z * z / 2) / math.sqrt(2 * math.pi))
    sd = max(asymptotic * res.standard_error, float(np.std(ends, ddof=1)))
    tolerance = K * math.sqrt(2) * sd  # both ends carry Monte Carlo error
    end = one_sided_end(res.confidence_interval, alternative)
    assert abs(end - np.mean(ends)) <= tolerance, (end, ends, tolerance)
    # the check can fail: the two-sided 95% end (z 1.96 for 1.645) lies outside the tolerance
    two = pairboot.compare(a, b, n_resamples=r, method=method, seed=21)
    assert abs(two_sided_end(two.confidence_interval, alternative) - np.mean(ends)) > tolerance


# --- 4. several training seeds: Student's t ----------------------------------------------------

# 5 items; A has 3 runs, B has 4 (tests/comparisons/runs/test_runs.py's hand tables)
RUNS_A = np.array([
    [0.61, 0.70, 0.52],
    [0.33, 0.41, 0.30],
    [0.90, 0.95, 0.81],
    [0.12, 0.26, 0.07],
    [0.55, 0.71, 0.49],
])
RUNS_B = np.array([
    [0.72, 0.60, 0.83, 0.70],
    [0.41, 0.29, 0.52, 0.33],
    [0.88, 0.80, 0.97, 0.91],
    [0.30, 0.15, 0.39, 0.22],
    [0.69, 0.52, 0.80, 0.61],
])


def seeds_compare(alternative, level=0.95, swap=False):
    a, b = (RUNS_B, RUNS_A) if swap else (RUNS_A, RUNS_B)
    return pairboot.compare(a, b, runs="seeds", n_resamples=500, seed=1,
                            confidence_level=level, alternative=alternative)


def seeds_dfs(level, swap=False):
    """Satterthwaite's degrees of freedom of the two-sided interval at ``level`` and at
    ``2 level - 1`` (the level whose end the one-sided interval shares): they move a
    little with the level, and "the same df" may be either."""
    return (seeds_compare("two-sided", level, swap).runs.degrees_of_freedom,
            seeds_compare("two-sided", 2 * level - 1, swap).runs.degrees_of_freedom)


@small
@pytest.mark.parametrize("alternative", ONE_SIDED)
def test_seeds_give_the_one_sided_t_interval(alternative):
    level = 0.95
    swap = alternative == "less"  # (B behind A: p near 0.2 either way, below 1/2)
    res = seeds_compare(alternative, level, swap)
    two = seeds_compare("two-sided", level, swap)
    assert res.alternative == alternative
    assert (res.estimate, res.standard_error) == (two.estimate, two.standard_error)
    assert res.runs.variance == two.runs.variance
    se = res.standard_error
    assert se == pytest.approx(math.sqrt(res.runs.variance), rel=1e-12)
    # the end is the two-sided end at 2L - 1 (the identity of every method)
    end = one_sided_end(res.confidence_interval, alternative)
    wider = seeds_compare("two-sided", 2 * level - 1, swap)
    assert end == pytest.approx(two_sided_end(wider.confidence_interval, alternative),
                                rel=1e-12)
    # scipy's one-sided t quantile on V, with one of the two-sided intervals' df
    sign = -1.0 if alternative == "greater" else 1.0
    ends = [res.estimate + sign * stats.t.ppf(level, df) * se for df in seeds_dfs(level, swap)]
    assert any(end == pytest.approx(e, rel=1e-9) for e in ends), (end, ends)
    # the p-value: P(T > t) for "greater", P(T < t) for "less", t = estimate / sqrt(V),
    # with the df of the interval whose end is at 0 (level 1 - p)
    t = res.estimate / se
    p = res.p_value
    assert 0.1 < p < 0.3, p
    at_p = seeds_compare(alternative, 1 - p, swap)
    assert at_p.p_value == pytest.approx(p, rel=1e-12)
    assert one_sided_end(at_p.confidence_interval, alternative) == pytest.approx(
        0.0, abs=1e-6 * se)
    tails = [stats.t.sf(t, df) if alternative == "greater" else stats.t.cdf(t, df)
             for df in seeds_dfs(1 - p, swap)]
    assert any(p == pytest.approx(tail, rel=1e-6) for tail in tails), (p, tails)
    assert p == pytest.approx(two.p_value / 2, rel=0.05)  # (the near half)


@small
@pytest.mark.parametrize("alternative", ONE_SIDED)
def test_seeds_report_the_df_of_their_interval(alternative):
    # result.runs.degrees_of_freedom is the df of result.confidence_interval: the
    # interval is estimate -+ t(L; df) sqrt(V) with the df the result reports
    level = 0.95
    res = seeds_compare(alternative, level)
    df, se = res.runs.degrees_of_freedom, res.standard_error
    half = stats.t.ppf(level, df) * se
    want = res.estimate - half if alternative == "greater" else res.estimate + half
    assert one_sided_end(res.confidence_interval, alternative) == pytest.approx(want,
                                                                                rel=1e-9)


@small
@pytest.mark.parametrize("alternative", ONE_SIDED)
def test_seeds_p_below_alpha_exactly_when_the_interval_excludes_zero(alternative):
    p = seeds_compare(alternative).p_value
    seen = set()
    for alpha in (*GRID, 0.7, 0.9, 0.99, p * (1 - 1e-6), p * (1 + 1e-6)):
        res = seeds_compare(alternative, 1 - alpha)
        excluded = excludes_zero(res.confidence_interval)
        assert (p < alpha) == excluded, (alpha, p, res.confidence_interval)
        seen.add(excluded)
    assert seen == {True, False}


# --- compare_many ------------------------------------------------------------------------------

RNG = np.random.default_rng(1313)
N = 90
BASE = RNG.random(N)
SCORES = {name: BASE + RNG.normal(shift, 0.1, N)
          for name, shift in (("base", 0.0), ("v1", 0.03), ("v2", -0.02), ("v3", 0.01))}
MANY = {"seed": 7, "n_resamples": 1000, "backend": "numpy"}


def own_holm(p):
    """Holm's adjusted p-values from the definition (capped at 1, monotone in p's order)."""
    p = [float(x) for x in p]
    m = len(p)
    out, running = [0.0] * m, 0.0
    for k, j in enumerate(sorted(range(m), key=lambda j: p[j])):
        running = max(running, min(1.0, (m - k) * p[j]))
        out[j] = running
    return out


def pair_compare(c, **kw):
    return pairboot.compare(SCORES[c.a], SCORES[c.b], **MANY, **kw)


@pytest.mark.parametrize("alternative", ONE_SIDED)
@pytest.mark.parametrize("correction", ["holm", "bonferroni", "none"])
def test_family_adjusts_the_one_sided_p_values(correction, alternative):
    level = 0.875
    res = pairboot.compare_many(SCORES, baseline="base", correction=correction,
                                confidence_level=level, alternative=alternative, **MANY)
    m = len(res.comparisons)
    assert m == 3
    refs = [pair_compare(c, confidence_level=level, alternative=alternative)
            for c in res.comparisons]
    p = [r.p_value for r in refs]
    for c, ref in zip(res.comparisons, refs):
        assert c.p_value == pytest.approx(ref.p_value, rel=1e-12, abs=1e-15)
        end = one_sided_end(c.marginal_interval, alternative)
        assert end == pytest.approx(one_sided_end(ref.confidence_interval, alternative),
                                    rel=1e-12)
    # adjusted from the one-sided p-values floored at 1 / (R + 1), as two-sided (no
    # adjusted p of 0: the (1 + count) / (B + 1) convention)
    floored = [max(x, 1.0 / (MANY["n_resamples"] + 1)) for x in p]
    want = {"holm": own_holm(floored), "bonferroni": [min(1.0, m * x) for x in floored],
            "none": p}
    np.testing.assert_allclose([c.p_adjusted for c in res.comparisons], want[correction],
                               rtol=1e-12, atol=1e-15)
    alpha = 1 - level
    for c in res.comparisons:
        assert c.significant == (c.p_adjusted < alpha)
    # the family's interval: Bonferroni's one-sided one (level 1 - alpha / m) under holm and
    # bonferroni, the marginal one under none
    family_level = level if correction == "none" else 1 - alpha / m
    for c in res.comparisons:
        ref = pair_compare(c, confidence_level=family_level, alternative=alternative)
        assert one_sided_end(c.confidence_interval, alternative) == pytest.approx(
            one_sided_end(ref.confidence_interval, alternative), rel=1e-12)
    # one-sided really: "greater" rejects only positive differences, "less" negative ones
    for c in res.comparisons:
        if c.significant:
            assert (c.estimate > 0) == (alternative == "greater")
    assert any(c.p_value < 0.05 for c in res.comparisons)


@pytest.mark.parametrize("level", [0.75, 0.875])
@pytest.mark.parametrize("alternative", ONE_SIDED)
@pytest.mark.parametrize("method", METHODS)
def test_family_rows_one_sided_end_is_the_two_sided_end_at_twice_alpha(method, alternative,
                                                                        level):
    kw = {**MANY, "baseline": "base", "correction": "holm", "method": method}
    one = pairboot.compare_many(SCORES, confidence_level=level, alternative=alternative, **kw)
    two = pairboot.compare_many(SCORES, confidence_level=2 * level - 1, **kw)
    for c1, c2 in zip(one.comparisons, two.comparisons):
        assert (c1.a, c1.b, c1.estimate) == (c2.a, c2.b, c2.estimate)
        assert one_sided_end(c1.marginal_interval, alternative) == two_sided_end(
            c2.marginal_interval, alternative)
        # Bonferroni's interval: level 1 - alpha / m one-sided, 1 - 2 alpha / m two-sided
        assert one_sided_end(c1.confidence_interval, alternative) == pytest.approx(
            two_sided_end(c2.confidence_interval, alternative), rel=1e-12)


def signed_max_t(estimates, se, replicates, alpha, alternative):
    """One-sided max-t from the definitions, in plain Python: for "greater" the roots
    ``(theta*_k - theta_k) / se_k`` with their sign, for "less" their negatives; the
    critical value ``c`` is the ``(k + 1)``-th largest maximum over the family for the
    largest ``k`` with ``(1 + k) / (B + 1) < alpha`` (two-sided max-t's convention), the
    single-step p-value ``(1 + #{max >= t_k}) / (B + 1)`` with ``t_k`` the signed
    statistic.  Returns ``(c, bounds, p_single)``: bounds ``theta_k - c se_k`` ("greater")
    or ``theta_k + c se_k`` ("less")."""
    sign = 1.0 if alternative == "greater" else -1.0
    est = [float(e) for e in estimates]
    se = [float(s) for s in se]
    rows = [[float(v) for v in row] for row in np.asarray(replicates)]
    b = len(rows)
    maxima = [max(sign * (row[j] - est[j]) / se[j] for j in range(len(est))) for row in rows]
    k_best = None
    for k in range(b):
        if (1 + k) / (b + 1) < round(alpha, 12):
            k_best = k
    c = math.inf if k_best is None else sorted(maxima, reverse=True)[k_best]
    t = [sign * e / s for e, s in zip(est, se)]
    p_single = [(1 + sum(1 for v in maxima if v >= tk)) / (b + 1) for tk in t]
    bounds = [e - sign * c * s for e, s in zip(est, se)]
    return c, bounds, p_single


@pytest.mark.parametrize("level", [0.95, 0.9])
@pytest.mark.parametrize("alternative", ONE_SIDED)
def test_max_t_uses_the_signed_maximum(alternative, level):
    res = pairboot.compare_many(SCORES, baseline="base", correction="max-t",
                                confidence_level=level, alternative=alternative, **MANY)
    refs = [pair_compare(c) for c in res.comparisons]  # the replicates: alternative-free
    est = [r.estimate for r in refs]
    se = [r.standard_error for r in refs]
    reps = np.column_stack([r.bootstrap_distribution for r in refs])
    alpha = 1 - level
    c, bounds, p_single = signed_max_t(est, se, reps, alpha, alternative)
    assert abs(res.critical_value) == pytest.approx(c, rel=1e-12)
    for k, (row, bound, p) in enumerate(zip(res.comparisons, bounds, p_single)):
        assert row.estimate == pytest.approx(est[k], rel=1e-12)
        end = one_sided_end(row.confidence_interval, alternative)
        assert end == pytest.approx(bound, rel=1e-12, abs=1e-15)
        assert row.p_single_step == pytest.approx(p, rel=1e-12)
        assert (row.p_single_step < alpha) == excludes_zero(row.confidence_interval)
        assert row.p_adjusted <= row.p_single_step <= 1.0
        assert row.significant == (row.p_adjusted < alpha)
    # the signed critical value is below the two-sided (|root|) one at the same level
    two = pairboot.compare_many(SCORES, baseline="base", correction="max-t",
                                confidence_level=level, **MANY)
    assert c < two.critical_value


# --- the Poisson bootstrap of files and of Dask frames -------------------------------------------


@pytest.fixture(scope="module")
def poisson_data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("alternative")
    rng = np.random.default_rng(0)
    n = 400
    a = np.round(rng.random(n), 6)
    b = np.round(a + rng.normal(0.01, 0.1, n), 6)
    ids = np.array([f"q{i}" for i in range(n)])
    one = folder / "one.csv"
    one.write_text("id,a,b\n" + "".join(f"{i},{x},{y}\n" for i, x, y in zip(ids, a, b)))
    return {"a": a, "b": b, "ids": ids, "one": str(one)}


@pytest.mark.parametrize("alternative", ONE_SIDED)
@pytest.mark.parametrize("method", ["percentile", "basic", "normal"])
def test_files_give_the_in_memory_one_sided_interval(poisson_data, method, alternative):
    pytest.importorskip("pyarrow")
    d = poisson_data
    kw = {"seed": 3, "n_resamples": 400, "method": method, "alternative": alternative}
    memory = pairboot.compare(d["a"], d["b"], ids=d["ids"], resampling="poisson", **kw)
    streamed = pairboot.compare_files([d["one"]], a="a", b="b", id="id", chunk_rows=150, **kw)
    assert streamed.alternative == alternative and streamed.resampling == "poisson"
    np.testing.assert_allclose(streamed.bootstrap_distribution, memory.bootstrap_distribution,
                               rtol=1e-12, atol=1e-15)
    end = one_sided_end(streamed.confidence_interval, alternative)
    assert end == pytest.approx(one_sided_end(memory.confidence_interval, alternative),
                                rel=1e-12)
    assert streamed.p_value == pytest.approx(memory.p_value, rel=1e-9, abs=1e-12)
    # and that is the two-sided end at 1 - 2 alpha of the same files
    two = pairboot.compare_files([d["one"]], a="a", b="b", id="id", chunk_rows=150,
                                 seed=3, n_resamples=400, method=method, confidence_level=0.9)
    assert end == pytest.approx(two_sided_end(two.confidence_interval, alternative),
                                rel=1e-9, abs=1e-9 * two.standard_error)


@pytest.mark.slow  # (importing dask.dataframe takes about 2 s)
@pytest.mark.parametrize("alternative", ONE_SIDED)
def test_dask_gives_the_in_memory_one_sided_interval(poisson_data, alternative):
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    pbd = pytest.importorskip("pairboot.dask")
    d = poisson_data
    frame = pd.DataFrame({"id": d["ids"], "a": d["a"], "b": d["b"]})
    kw = {"seed": 3, "n_resamples": 300, "alternative": alternative}
    memory = pairboot.compare(d["a"], d["b"], ids=d["ids"], resampling="poisson", **kw)
    with dask.config.set(scheduler="synchronous"):
        res = pbd.compare(dd.from_pandas(frame, npartitions=3), "a", "b", id="id", **kw)
    assert res.alternative == alternative
    np.testing.assert_allclose(res.bootstrap_distribution, memory.bootstrap_distribution,
                               rtol=1e-12, atol=1e-15)
    end = one_sided_end(res.confidence_interval, alternative)
    assert end == pytest.approx(one_sided_end(memory.confidence_interval, alternative),
                                rel=1e-12)
    assert res.p_value == pytest.approx(memory.p_value, rel=1e-9, abs=1e-12)


# --- the command line ------------------------------------------------------------------------

CLI_FAST = ("--resamples", "1000", "--seed", "7", "--no-progress")


@pytest.fixture(scope="module")
def cli_files(tmp_path_factory):
    """A.csv and B.csv (columns id, score) of A and B, rounded to 6 decimals, B in
    reverse row order (joined on id)."""
    folder = tmp_path_factory.mktemp("alternative_cli")
    a, b = np.round(A, 6), np.round(B, 6)
    ids = [f"q{i:03d}" for i in range(len(a))]
    fa, fb = folder / "A.csv", folder / "B.csv"
    fa.write_text("id,score\n" + "".join(f"{i},{float(x):.17g}\n" for i, x in zip(ids, a)))
    fb.write_text("id,score\n" + "".join(f"{i},{float(y):.17g}\n" for i, y in
                                         reversed(list(zip(ids, b)))))
    return str(fa), str(fb), a, b


def _cli(files, *args):
    return run_in_process("compare", files[0], files[1], "--id", "id", "--score", "score",
                          *CLI_FAST, *args)


def _not_a_finite_number(value) -> bool:
    return value is None or value in ("inf", "-inf", "Infinity", "-Infinity") or (
        isinstance(value, float) and math.isinf(value))


@pytest.mark.parametrize("alternative", ONE_SIDED)
def test_cli_json_gives_the_one_sided_interval(cli_files, alternative):
    proc = _cli(cli_files, "--alternative", alternative, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert got["alternative"] == alternative
    ci = got["confidence_interval"]
    api = quiet(pairboot.compare, cli_files[2], cli_files[3], seed=7, n_resamples=1000,
                alternative=alternative)
    finite, open_end = ("low", "high") if alternative == "greater" else ("high", "low")
    assert _not_a_finite_number(ci[open_end]), ci
    assert isinstance(ci[finite], float)
    assert ci[finite] == pytest.approx(
        one_sided_end(api.confidence_interval, alternative), rel=1e-12)
    assert got["p_value"] == pytest.approx(api.p_value, rel=1e-12, abs=1e-15)
    assert got["excludes_zero"] == api.excludes_zero
    # the same end as the command line's own two-sided 90% interval
    two = json.loads(_cli(cli_files, "--format", "json", "--level", "0.9").stdout)
    assert ci[finite] == pytest.approx(two["confidence_interval"][finite], rel=1e-9)


def test_cli_text_gives_the_one_sided_interval_and_p(cli_files):
    from pairboot.report.numbers import decimals  # noqa: PLC0415

    proc = _cli(cli_files, "--alternative", "greater")
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.decode()
    api = quiet(pairboot.compare, cli_files[2], cli_files[3], seed=7, n_resamples=1000,
                alternative="greater")
    d = decimals(api.standard_error)
    assert f"{api.confidence_interval.low:+.{d}f}" in text  # B - A's one-sided lower end
    assert "two-sided" not in text
    assert "one-sided" in text or "greater" in text
    # two-sided 95% includes 0 for these data, one-sided 95% does not: the headline says so
    assert api.excludes_zero
    assert text.splitlines()[0].startswith("B ")  # (files A.csv, B.csv: named A and B)
    assert " is better than " in text.splitlines()[0]
    plain = _cli(cli_files).stdout.decode()
    assert " is better than " not in plain.splitlines()[0]


@pytest.mark.parametrize("gate", ["worse", "not-better"])
@pytest.mark.parametrize("alternative", ONE_SIDED)
def test_cli_fail_if_with_an_alternative_is_refused_or_consistent(cli_files, gate,
                                                                  alternative):
    proc = _cli(cli_files, "--alternative", alternative, "--fail-if", gate,
                "--format", "json")
    err = proc.stderr.decode()
    if proc.returncode == 2:
        assert "Traceback" not in err
        assert any(line.startswith("error: ") for line in err.splitlines()), err
        assert "alternative" in err or "fail-if" in err, err
        return
    assert proc.returncode in (0, 1), err
    got = json.loads(proc.stdout)
    api = quiet(pairboot.compare, cli_files[2], cli_files[3], seed=7, n_resamples=1000,
                alternative=alternative)
    verdict = api.verdict()
    assert got["decision"]["verdict"] == verdict
    # "greater": low > 0 here, B better; "less": the interval holds 0 (high = +...)
    assert verdict == ("better" if alternative == "greater" else "inconclusive")
    fails = {"worse": {"worse", "undefined"},
             "not-better": {"worse", "inconclusive", "undefined"}}[gate]
    assert proc.returncode == (1 if verdict in fails else 0), err


# --- bad values ------------------------------------------------------------------------------


def _check_message(message):
    assert "`alternative`" in message, message
    for word in ("two-sided", "greater", "less"):
        assert word in message, message


@pytest.mark.parametrize("value", ["bigger", "two_sided", "", 1])
def test_a_bad_alternative_is_refused_naming_the_choices(value):
    message = error(pairboot.compare, A, B, n_resamples=100, alternative=value)
    assert "`alternative`" in message, message
    for word in ("two-sided", "greater", "less"):
        assert word in message, message


def test_a_bad_alternative_is_refused_everywhere(poisson_data):
    _check_message(error(pairboot.compare, A, B, n_resamples=100, alternative="bigger"))
    _check_message(error(pairboot.compare_many, SCORES, n_resamples=100,
                         alternative="bigger"))
    _check_message(error(pairboot.compare, RUNS_A, RUNS_B, runs="seeds", n_resamples=100,
                         alternative="bigger"))
    pytest.importorskip("pyarrow")
    _check_message(error(pairboot.compare_files, [poisson_data["one"]], a="a", b="b",
                         id="id", n_resamples=100, alternative="bigger"))


def test_cli_refuses_a_bad_alternative(cli_files):
    proc = _cli(cli_files, "--alternative", "bigger")
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert "Traceback" not in err and proc.stdout == b""
    assert "alternative" in err and "bigger" in err, err
    for word in ("two-sided", "greater", "less"):
        assert word in err, err


# --- what the review found: gates, ranks and words on the untested side ------------------

@pytest.mark.parametrize("fail_if, alternative, lower_is_better, refused", [
    ("worse", "greater", False, True), ("worse", "less", False, False),
    ("worse", "less", True, True), ("worse", "greater", True, False),
    ("not-better", "greater", False, False), ("not-better", "less", False, True),
    ("different", "greater", False, True), ("different", "two-sided", False, False),
    (None, "less", False, False),
])
def test_a_gate_that_a_one_sided_test_cannot_trip_is_refused(fail_if, alternative,
                                                             lower_is_better, refused):
    from pairboot.report import gate_conflict  # noqa: PLC0415

    why = gate_conflict(fail_if, alternative, lower_is_better)
    assert (why is not None) == refused
    if refused:
        assert f"`fail_if={fail_if!r}`" in why and "`alternative='two-sided'`" in why


def test_a_one_sided_family_has_no_ranks():
    rng = np.random.default_rng(4)
    base = rng.random(80)
    fam = pairboot.compare_many({"x": base, "y": base + 0.1, "z": base - 0.1},
                                alternative="greater", seed=1, n_resamples=500)
    assert fam.rank_intervals is None and fam.best_set is None
    assert "could be best" not in fam.summary()
    assert ", one-sided (B - A > 0), " in fam.summary().splitlines()[0]


def test_the_untested_side_is_not_called_no_difference():
    rng = np.random.default_rng(5)
    a = rng.random(90)
    res = pairboot.compare(a, a - 1 + rng.normal(0, 0.3, 90), alternative="greater",
                           seed=1, n_resamples=500)
    first = res.summary().splitlines()[0]
    assert first.startswith("Not shown: B - A > 0 (one-sided)")
    assert "the estimate lies on the other side" in first
    assert "do not show B - A > 0" in res.reading and not hasattr(res, "items_needed")


@pytest.mark.parametrize("alternative", ONE_SIDED)
def test_too_few_resamples_are_said_for_a_one_sided_interval_too(alternative):
    rng = np.random.default_rng(6)
    a = rng.random(60)
    b = a + rng.normal(0.1, 0.3, 60)
    for r, said in ((60, True), (20_000, False)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            pairboot.compare(a, b, n_resamples=r, seed=1, alternative=alternative)
        notes = [str(w.message) for w in caught if "Monte Carlo error" in str(w.message)]
        assert bool(notes) == said, (r, notes)


def test_five_items_can_decide_one_sided_at_95_percent():
    # n items all favouring B arise by chance with probability 2^-n one-sided (2^(1-n)
    # two-sided): 5 items are enough at 95% one-sided (1/32 < 0.05), not two-sided
    a = np.array([0.1, 0.2, 0.3, 0.4, 0.5])
    b = a + np.array([0.3, 0.2, 0.25, 0.35, 0.3])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PairbootWarning)
        one = pairboot.compare(a, b, alternative="greater", seed=1, n_resamples=2000)
        two = pairboot.compare(a, b, seed=1, n_resamples=2000)
    assert one.enough_units and one.verdict() == "better"
    assert not two.enough_units and two.verdict() == "undefined"
    from pairboot.stats.pvalues import units_for  # noqa: PLC0415

    assert [units_for(level, "less") for level in (0.9, 0.95, 0.99)] == [4, 5, 7]
    assert [units_for(level) for level in (0.9, 0.95, 0.99)] == [5, 6, 8]

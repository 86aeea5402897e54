"""compare_many(): a family of comparisons on shared draws, with the error rate controlled.

References are exact or independent of the code under test:

- with ``correction="none"`` every row is :func:`pairboot.compare` on the same draws (the
  index path: continuous scores, where the units drawn do not depend on the other systems);
- ``max_t`` against a plain-Python re-implementation (roots, maxima, critical value,
  single-step and Romano-Wolf stepdown p-values with ``(1 + count) / (B + 1)``), exactly;
  and compare_many's max-t rows against that reference applied to the replicates that
  ``compare`` gives for each pair;
- Holm and Bonferroni against hand-computed values (and statsmodels when installed);
- family-wise error under a global null by simulation (slow).
"""

from __future__ import annotations

import json
import math
import warnings
from statistics import NormalDist

import numpy as np
import pytest

import pairboot
from pairboot.stats.multiple import bonferroni, holm, max_t

RNG = np.random.default_rng(1313)
N = 90
BASE = RNG.random(N)
# continuous scores (the index path), correlated through the items' difficulty
SCORES = {name: BASE + RNG.normal(shift, 0.1, N)
          for name, shift in (("base", 0.0), ("v1", 0.03), ("v2", -0.02))}
FOUR = {**SCORES, "v3": BASE + RNG.normal(0.01, 0.1, N)}
GROUPS = np.repeat(np.arange(30), 3)
STRATA = np.where(np.arange(N) < 42, "web", "news")  # (groups of 3 stay whole)
R = 400
SEED = 7

quiet = pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")


# --- an independent max-t -------------------------------------------------------------------


def reference_max_t(estimates, se, replicates, alpha):
    """Max-t in plain Python, from the definitions.

    Returns ``(critical, t, p_single, p_stepdown, p_marginal)``.  A comparison without
    spread (se 0 or undefined) has roots 0; its statistic is 0 for a zero estimate and
    +-inf otherwise.  A replicate with a NaN for some comparison is left out, as
    compare() leaves undefined replicates out.  The critical value is the
    ``(k + 1)``-th largest maximum for the largest count ``k`` with
    ``(1 + k) / (B + 1) < alpha`` (infinite when there is none).
    """
    estimates = [float(e) for e in estimates]
    se = [float(s) for s in se]
    rows = [[float(v) for v in row] for row in np.asarray(replicates)
            if not any(math.isnan(float(v)) for v in row)]
    b, m = len(rows), len(estimates)
    spread = [math.isfinite(s) and s > 0 for s in se]
    t = []
    for e, s, ok in zip(estimates, se, spread):
        if ok:
            t.append(e / s)
        else:
            t.append(0.0 if e == 0 else math.copysign(math.inf, e))
    roots = [[abs((row[j] - estimates[j]) / se[j]) if spread[j] else 0.0 for j in range(m)]
             for row in rows]

    def maxima(columns):
        out = []
        for row in roots:
            values = [row[j] for j in columns if row[j] is not None]
            out.append(max(values) if values else -math.inf)
        return out

    def p(values, x):
        return (1 + sum(1 for v in values if v >= x)) / (b + 1)

    alpha = round(alpha, 12)  # (as the level is written: 1 - 0.95 is not 0.05 in binary)
    everything = maxima(range(m))
    k_best = None
    for k in range(b):
        if (1 + k) / (b + 1) < alpha:
            k_best = k
    critical = math.inf if k_best is None else sorted(everything, reverse=True)[k_best]
    single = [p(everything, abs(x)) for x in t]
    marginal = [p(maxima([j]), abs(t[j])) for j in range(m)]
    order = sorted(range(m), key=lambda j: -abs(t[j]))  # (ties: any order gives the same)
    stepdown = [0.0] * m
    running = 0.0
    for k, j in enumerate(order):
        running = max(running, p(maxima(order[k:]), abs(t[j])))
        stepdown[j] = running
    return critical, t, single, stepdown, marginal


def check_max_t_against_reference(est, se, reps, alpha):
    res = max_t(est, se, reps, alpha)
    critical, t, single, stepdown, marginal = reference_max_t(est, se, reps, alpha)
    assert res.critical_value == critical
    np.testing.assert_array_equal(res.t, t)
    np.testing.assert_array_equal(res.p_single_step, single)
    np.testing.assert_array_equal(res.p_stepdown, stepdown)
    np.testing.assert_array_equal(res.p_marginal, marginal)
    return res


def check_max_t_properties(res, alpha):
    """The exact properties every max-t answer has."""
    at = np.abs(res.t)
    assert np.all(res.p_marginal <= res.p_stepdown)
    assert np.all(res.p_stepdown <= res.p_single_step)
    assert np.all(res.p_single_step <= 1.0)
    order = np.argsort(-at, kind="stable")
    assert np.all(np.diff(res.p_stepdown[order]) >= 0), (at[order], res.p_stepdown[order])
    # ties in |t| get the same stepdown p-value
    for i in range(len(at)):
        for j in range(len(at)):
            if at[i] == at[j]:
                assert res.p_stepdown[i] == res.p_stepdown[j]
    np.testing.assert_array_equal(res.p_single_step < alpha, at > res.critical_value)


@pytest.mark.parametrize("case", range(40))
def test_max_t_equals_a_plain_python_reference(case):
    rng = np.random.default_rng(case)
    b = int(rng.choice([9, 19, 39, 99, 199, 400]))
    m = int(rng.integers(1, 6))
    level = float(rng.choice([0.5, 0.8, 0.9, 0.95, 0.99]))
    alpha = 1.0 - level
    # values on a grid of quarters: many ties among replicates, maxima and statistics
    reps = rng.integers(-8, 9, size=(b, m)) / 4.0
    est = rng.integers(-4, 5, size=m) / 4.0
    se = rng.choice([0.25, 0.5, 1.0, 0.75], size=m)
    reps[rng.random((b, m)) < 0.06] = np.nan
    if case % 5 == 0:
        se[0] = 0.0  # no spread: no roots, statistic 0 or infinite
    if case % 7 == 0:
        se[-1] = np.nan
    if case % 11 == 0:
        reps[: b // 3] = np.nan  # whole replicates undefined for every comparison
    res = check_max_t_against_reference(est, se, reps, alpha)
    check_max_t_properties(res, alpha)


@pytest.mark.parametrize("case", range(20))
def test_max_t_on_continuous_replicates_with_several_levels(case):
    rng = np.random.default_rng(100 + case)
    b, m = int(rng.integers(20, 300)), int(rng.integers(2, 8))
    cov = 0.7 * np.ones((m, m)) + 0.3 * np.eye(m)
    reps = rng.multivariate_normal(np.zeros(m), cov, size=b) * rng.uniform(0.5, 3, m)
    est = rng.normal(0, 2, m) * reps.std(axis=0, ddof=1)
    se = reps.std(axis=0, ddof=1)
    reps = reps + est
    for level in (0.5, 0.75, 0.9, 0.95, 0.975, 0.99):
        alpha = 1.0 - level
        res = check_max_t_against_reference(est, se, reps, alpha)
        check_max_t_properties(res, alpha)


def test_max_t_statistic_exactly_at_the_critical_value():
    # B = 19, alpha = 0.25: (1 + k) / 20 < 0.25 for k <= 3, so c is the 4th largest maximum
    b, alpha = 19, 0.25
    est, se = np.array([0.3, -0.7]), np.array([0.1, 0.2])
    t0 = abs(0.3 / 0.1)
    reps = np.tile(est, (b, 1)) + 0.01  # tiny roots
    reps[:3, 0] = -1.0                   # three maxima above |t0|
    reps[3, 0] = 0.0                     # a root exactly |t0|: the 4th largest maximum
    res = check_max_t_against_reference(est, se, reps, alpha)
    assert res.critical_value == t0
    assert res.p_single_step[0] == 5 / 20  # not below alpha: |t| = c is no rejection
    check_max_t_properties(res, alpha)
    # one maximum fewer above |t0|: the tie is now the 3rd largest, c the 4th (smaller)
    reps[0, 0] = est[0] + 0.01
    res = check_max_t_against_reference(est, se, reps, alpha)
    assert res.critical_value < t0
    assert res.p_single_step[0] == 4 / 20 < alpha
    check_max_t_properties(res, alpha)
    # two comparisons tied at the same |t|, the tie on the other comparison's root
    est2, se2 = np.array([0.5, -0.5]), np.array([0.25, 0.25])
    reps2 = np.tile(est2, (b, 1))
    reps2[:3, 1] = 5.0
    reps2[3, 1] = 0.0
    res = check_max_t_against_reference(est2, se2, reps2, alpha)
    assert res.critical_value == 2.0 == abs(res.t[0]) == abs(res.t[1])
    assert res.p_stepdown[0] == res.p_stepdown[1]
    check_max_t_properties(res, alpha)


def test_max_t_too_few_resamples_for_the_level_gives_an_infinite_critical_value():
    reps = np.random.default_rng(2).normal(size=(19, 3))
    res = check_max_t_against_reference(np.ones(3), np.ones(3), reps, 0.04)  # 1/20 >= 0.04
    assert res.critical_value == math.inf
    assert np.all(res.p_single_step >= 0.04)


# --- correction="none": each row is compare() on the same draws ------------------------------


DESIGNS = {"plain": {}, "groups": {"groups": GROUPS}, "strata": {"strata": STRATA},
           "groups+strata": {"groups": GROUPS, "strata": STRATA}}


@quiet
@pytest.mark.parametrize("method", ["percentile", "basic", "bca", "studentized"])
@pytest.mark.parametrize("design", list(DESIGNS))
def test_uncorrected_rows_are_compare_on_the_same_draws(method, design):
    keywords = {"seed": SEED, "n_resamples": R, "method": method, "backend": "numpy",
                **DESIGNS[design]}
    families = {
        "all": ({}, [("base", "v1"), ("base", "v2"), ("v1", "v2")]),
        "baseline": ({"baseline": "v1"}, [("v1", "base"), ("v1", "v2")]),  # b - baseline
        "pairs": ({"pairs": [("v2", "base"), ("v1", "v2")]}, [("v2", "base"), ("v1", "v2")]),
    }
    for family, order in families.values():
        res = pairboot.compare_many(SCORES, correction="none", **family, **keywords)
        assert [(c.a, c.b) for c in res.comparisons] == order
        assert res.seed == SEED and res.method == method and res.correction == "none"
        assert res.critical_value is None
        for c in res.comparisons:
            ref = pairboot.compare(SCORES[c.a], SCORES[c.b], **keywords)
            assert c.estimate == ref.estimate
            np.testing.assert_allclose(c.marginal_interval, ref.confidence_interval,
                                       rtol=0, atol=1e-12)
            assert c.confidence_interval == c.marginal_interval
            assert c.p_value == pytest.approx(ref.p_value, rel=0, abs=1e-12)
            assert c.p_adjusted == c.p_value and c.p_single_step is None
            assert c.standard_error == pytest.approx(ref.standard_error, rel=1e-12)
            assert c.significant == (c.p_value < 0.05)
            for name, score in ((c.a, ref.score_a), (c.b, ref.score_b)):
                own = res.systems[name]
                assert own.estimate == pytest.approx(score.estimate, rel=0, abs=1e-14)
                np.testing.assert_allclose(own.confidence_interval, score.confidence_interval,
                                           rtol=0, atol=1e-12)


# --- max-t rows against the reference on compare()'s replicates ------------------------------


def replicate_matrix(scores, res, **keywords):
    """Each comparison's estimate, standard error and replicates, from compare()."""
    refs = [pairboot.compare(scores[c.a], scores[c.b], **keywords) for c in res.comparisons]
    est = np.array([r.estimate for r in refs])
    se = np.array([r.standard_error for r in refs])
    reps = np.column_stack([r.bootstrap_distribution for r in refs])
    return est, se, reps


def check_family(res, alpha):
    """Exact properties of every max-t family's rows."""
    for c in res.comparisons:
        low, high = c.confidence_interval
        excludes = low > 0 or high < 0
        assert c.p_adjusted <= c.p_single_step <= 1.0
        assert (c.p_single_step < alpha) == excludes, c
        assert c.significant == (c.p_adjusted < alpha)
        assert (c.note is None) == (c.significant == excludes), c
        # the simultaneous interval is estimate +- c se, and holds the marginal one's centre
        assert low == pytest.approx(c.estimate - res.critical_value * c.standard_error,
                                    rel=1e-12, abs=1e-15)
        assert high == pytest.approx(c.estimate + res.critical_value * c.standard_error,
                                     rel=1e-12, abs=1e-15)
    t = np.array([abs(c.estimate / c.standard_error) for c in res.comparisons])
    p = np.array([c.p_adjusted for c in res.comparisons])
    order = np.argsort(-t, kind="stable")
    assert np.all(np.diff(p[order]) >= 0)


@quiet
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
@pytest.mark.parametrize("family", ["baseline", "all pairs"])
def test_max_t_rows_match_the_reference_on_compares_replicates(seed, family):
    rng = np.random.default_rng(seed)
    n = 80
    difficulty = rng.normal(0, 1, n)
    # effects of several sizes, so that some comparisons are rejected and some are not
    scores = {f"s{k}": difficulty + rng.normal(shift, 0.4, n)
              for k, shift in enumerate((0.0, 0.02, 0.08, 0.15, 0.3))}
    fam = {"baseline": "s0"} if family == "baseline" else {}
    keywords = {"seed": seed, "n_resamples": R, "backend": "numpy"}
    for level in (0.95, 0.9):
        res = pairboot.compare_many(scores, confidence_level=level, **fam, **keywords)
        alpha = 1.0 - level
        assert res.correction == "max-t" and res.family_size == len(res.comparisons)
        assert res.family_size == (4 if family == "baseline" else 10)
        est, se, reps = replicate_matrix(scores, res, **keywords)
        critical, t, single, stepdown, marginal = reference_max_t(est, se, reps, alpha)
        assert res.critical_value == pytest.approx(critical, rel=1e-12)
        np.testing.assert_array_equal([c.p_single_step for c in res.comparisons], single)
        np.testing.assert_array_equal([c.p_adjusted for c in res.comparisons], stepdown)
        assert all(m <= s for m, s in zip(marginal, stepdown))
        check_family(res, alpha)
        check_max_t_properties(max_t(est, se, reps, alpha), alpha)
        if level == 0.95:
            assert any(c.significant for c in res.comparisons)
            assert not all(c.significant for c in res.comparisons)


@quiet
@pytest.mark.parametrize(("level", "seed"), [(0.75, 1), (0.5, 8)])
def test_an_adjusted_p_value_equal_to_alpha_is_not_significant(level, seed):
    # 19 resamples: p-values are multiples of 1/20, and 1 - level is exactly 0.25 or 0.5
    rng = np.random.default_rng(seed)
    n = 60
    difficulty = rng.normal(0, 1, n)
    scores = {f"s{k}": difficulty + rng.normal(0.1 * k, 0.5, n) for k in range(4)}
    res = pairboot.compare_many(scores, seed=seed, n_resamples=19, confidence_level=level,
                                backend="numpy")
    alpha = 1.0 - level
    at_alpha = [c for c in res.comparisons if c.p_adjusted == alpha]
    assert at_alpha, "these data no longer give p_adjusted == alpha: pick others"
    assert not any(c.significant for c in at_alpha)
    check_family(res, alpha)


def _binary_case(s, n=20):
    rng = np.random.default_rng(s)
    a = (rng.random(n) < 0.5).astype(float)
    b = np.where(rng.random(n) < 0.75, a, 1 - a)
    return a, b


def test_the_simultaneous_interval_follows_the_single_step_test_at_ties():
    # est - c se rounds past 0 at |t| == c for many (est, se); the interval must then
    # include 0, and exclude it whenever |t| > c, whatever the rounding
    from pairboot.core.family import simultaneous

    rng = np.random.default_rng(7)
    rounded = 0
    for _ in range(2000):
        est, se = rng.uniform(0.01, 1.0), rng.uniform(0.001, 0.5)
        c = est / se
        rounded += est - c * se != 0.0
        low, high = simultaneous(est, se, est / se, c)
        assert low <= 0.0 <= high
        c_below = np.nextafter(c, 0.0)
        low, high = simultaneous(-est, se, -est / se, c_below)
        assert high < 0.0 or est / se <= c_below
    assert rounded > 100  # (the guard was needed)


@quiet
def test_single_step_and_interval_agree_on_binary_families():
    # 0/1 scores: replicates exactly 0 are common, and their roots tie with |t| and c
    for s in (354, 503, 1592, 1608):
        a, b = _binary_case(s)
        rng = np.random.default_rng(s + 1)
        c3 = np.where(rng.random(len(a)) < 0.8, a, 1 - a)
        res = pairboot.compare_many({"a": a, "b": b, "c": c3}, seed=s, n_resamples=99,
                                    backend="numpy")
        for c in res.comparisons:
            low, high = c.confidence_interval
            assert (c.p_single_step < 0.05) == (low > 0 or high < 0), (s, c)


# --- holm and bonferroni ---------------------------------------------------------------------


def test_holm_and_bonferroni_by_hand():
    p = np.array([0.01, 0.04, 0.03, 0.2, 0.5])
    # Holm: sorted 0.01, 0.03, 0.04, 0.2, 0.5 times 5, 4, 3, 2, 1, then running maxima
    expected = [5 * 0.01, 3 * 0.04, 4 * 0.03, 2 * 0.2, 1 * 0.5]
    expected = [expected[0], max(expected[2], expected[1]), expected[2],
                max(expected[3], expected[1]), max(expected[4], expected[3])]
    np.testing.assert_allclose(holm(p), [0.05, 0.12, 0.12, 0.4, 0.5], rtol=1e-15)
    np.testing.assert_array_equal(holm(p), expected)
    np.testing.assert_allclose(bonferroni(p), [0.05, 0.2, 0.15, 1.0, 1.0], rtol=1e-15)
    # ties, zeros and the cap at 1
    np.testing.assert_array_equal(holm(np.array([0.3, 0.0, 0.3, 0.9])),
                                  [3 * 0.3, 0.0, 3 * 0.3, 0.9])
    np.testing.assert_array_equal(holm(np.array([0.6, 0.6])), [1.0, 1.0])
    np.testing.assert_array_equal(holm(np.array([0.7])), [0.7])
    np.testing.assert_array_equal(bonferroni(np.array([0.0, 0.25, 0.5])), [0.0, 0.75, 1.0])


def test_holm_and_bonferroni_match_statsmodels(monkeypatch):
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    import gc

    # each multipletests call runs gc.collect (0.1-0.5 s in this suite's heap, 24 calls);
    # a collection changes no p-value, so it is skipped here
    monkeypatch.setattr(gc, "collect", lambda *args, **kwargs: 0)
    rng = np.random.default_rng(5)
    for _ in range(12):
        m = int(rng.integers(1, 12))
        p = rng.choice(np.r_[rng.random(m), [0.0, 0.01, 0.5, 1.0]], size=m)  # (ties)
        np.testing.assert_allclose(holm(p), multitest.multipletests(p, method="holm")[1],
                                   rtol=1e-15, atol=0)
        np.testing.assert_allclose(bonferroni(p),
                                   multitest.multipletests(p, method="bonferroni")[1],
                                   rtol=1e-15, atol=0)


@quiet
@pytest.mark.parametrize("correction", ["holm", "bonferroni"])
@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_holm_and_bonferroni_rows(correction, method):
    keywords = {"seed": SEED, "n_resamples": R, "method": method, "backend": "numpy"}
    for family in ({}, {"baseline": "base"}):
        res = pairboot.compare_many(FOUR, correction=correction, **family, **keywords)
        m = res.family_size
        assert m == len(res.comparisons) == (6 if not family else 3)
        assert res.critical_value is None
        # adjusted from compare()'s p-values, floored at 1 / (R + 1) (no adjusted p of 0)
        p = np.maximum([c.p_value for c in res.comparisons], 1.0 / (R + 1))
        expected = holm(p) if correction == "holm" else np.minimum(1.0, m * p)
        # (holm's reference: the hand-checked one above; and by definition here)
        by_definition = np.empty(m)
        running = 0.0
        for k, j in enumerate(sorted(range(m), key=lambda j: p[j])):
            running = max(running, min(1.0, (m - k) * p[j]))
            by_definition[j] = running
        if correction == "holm":
            np.testing.assert_array_equal(expected, by_definition)
        np.testing.assert_array_equal([c.p_adjusted for c in res.comparisons], expected)
        for c in res.comparisons:
            assert c.p_single_step is None
            low, high = c.confidence_interval
            # Holm may reject where the Bonferroni interval includes 0; the row says so
            assert (c.note is not None) == (c.significant != (low > 0 or high < 0))
            assert c.significant == (c.p_adjusted < 0.05)
            # Bonferroni's interval: compare's at level 1 - alpha / m, on the same draws
            wide = pairboot.compare(FOUR[c.a], FOUR[c.b], confidence_level=1 - 0.05 / m,
                                    **keywords)
            np.testing.assert_allclose(c.confidence_interval, wide.confidence_interval,
                                       rtol=0, atol=1e-12)
            own = pairboot.compare(FOUR[c.a], FOUR[c.b], **keywords)
            np.testing.assert_allclose(c.marginal_interval, own.confidence_interval,
                                       rtol=0, atol=1e-12)
            assert c.p_value == pytest.approx(own.p_value, rel=0, abs=1e-12)


@quiet
@pytest.mark.parametrize("correction", [
    "none", "holm", "bonferroni",
    "max-t",
])
def test_one_comparison_is_compare_whatever_the_correction(correction):
    keywords = {"seed": SEED, "n_resamples": R, "backend": "numpy"}
    res = pairboot.compare_many({"a": SCORES["base"], "b": SCORES["v1"]},
                                correction=correction, **keywords)
    (c,) = res.comparisons
    ref = pairboot.compare(SCORES["base"], SCORES["v1"], **keywords)
    assert c.estimate == ref.estimate
    np.testing.assert_allclose(c.confidence_interval, ref.confidence_interval,
                               rtol=0, atol=1e-12)
    assert c.p_adjusted == pytest.approx(ref.p_value, rel=0, abs=1e-12)


# --- rank intervals and the best set ---------------------------------------------------------


def _levels():
    rng = np.random.default_rng(8)
    n = 200
    difficulty = rng.random(n)
    noise = {k: rng.normal(0, 0.05, n) for k in range(4)}
    return {"low": difficulty + noise[0],
            "mid1": difficulty + 0.5 + noise[1],
            "mid2": difficulty + 0.5 + noise[2],
            "top": difficulty + 1.5 + noise[3]}


@quiet
@pytest.mark.parametrize("correction", ["max-t", "holm", "bonferroni"])
def test_a_clearly_best_system_is_the_best_set(correction):
    scores = _levels()
    res = pairboot.compare_many(scores, correction=correction, seed=3, n_resamples=R,
                                backend="numpy")
    assert res.best_set == ("top",)
    assert res.rank_intervals["top"] == (1, 1)
    assert res.rank_intervals["low"] == (4, 4)
    # mid1 and mid2 differ by noise only: they may swap, but sit between the others
    assert res.rank_intervals["mid1"][0] >= 2 and res.rank_intervals["mid1"][1] <= 3
    assert res.rank_intervals["mid2"][0] >= 2 and res.rank_intervals["mid2"][1] <= 3
    flipped = pairboot.compare_many(scores, correction=correction, seed=3, n_resamples=R,
                                    backend="numpy", lower_is_better=True)
    assert flipped.lower_is_better is True
    assert flipped.best_set == ("low",)
    assert flipped.rank_intervals["low"] == (1, 1)
    assert flipped.rank_intervals["top"] == (4, 4)
    for name in ("mid1", "mid2"):
        assert flipped.rank_intervals[name] == (5 - res.rank_intervals[name][1],
                                                5 - res.rank_intervals[name][0])


@quiet
def test_equal_systems_can_each_be_anywhere():
    rng = np.random.default_rng(9)
    n = 150
    difficulty = rng.random(n)
    e = rng.normal(0, 0.2, n)
    e -= e.mean()
    f = rng.permutation(e)
    # the same mean (to rounding), very different items
    scores = {"w": difficulty + e, "x": difficulty - e, "y": difficulty + f,
              "z": difficulty - f}
    for correction in ("max-t", "holm"):
        res = pairboot.compare_many(scores, correction=correction, seed=4, n_resamples=R,
                                    backend="numpy")
        assert not any(c.significant for c in res.comparisons)
        assert res.rank_intervals == {name: (1, 4) for name in scores}
        assert res.best_set == ("w", "x", "y", "z")


@quiet
def test_rank_intervals_only_for_all_pairs():
    scores = _levels()
    keywords = {"seed": 3, "n_resamples": R, "backend": "numpy"}
    res = pairboot.compare_many(scores, baseline="low", **keywords)
    assert res.rank_intervals is None and res.best_set is None
    res = pairboot.compare_many(scores, pairs=[("low", "top"), ("mid1", "mid2")], **keywords)
    assert res.rank_intervals is None and res.best_set is None


# --- input errors, DataFrames ----------------------------------------------------------------


@pytest.mark.parametrize(("scores", "kwargs", "param"), [
    (SCORES, {"baseline": "nope"}, "baseline"),
    (SCORES, {"baseline": "base", "pairs": [("base", "v1")]}, "pairs"),
    (SCORES, {"pairs": [("base", "nope")]}, "pairs"),
    (SCORES, {"pairs": [("base", "v1", "v2")]}, "pairs"),
    (SCORES, {"pairs": [("v1", "v1")]}, "pairs"),
    (SCORES, {"pairs": [("base", "v1"), ("base", "v1")]}, "pairs"),
    (SCORES, {"pairs": [("base", "v1"), ("v1", "base")]}, "pairs"),
    (SCORES, {"pairs": []}, "pairs"),
    ({"only": SCORES["base"]}, {}, "scores"),
    ({}, {}, "scores"),
    ([SCORES["base"], SCORES["v1"]], {}, "scores"),
    ({1: SCORES["base"], "1": SCORES["v1"]}, {}, "scores"),
    (SCORES, {"correction": "sidak"}, "correction"),
    (SCORES, {"confidence_level": 1.5}, "confidence_level"),
    (SCORES, {"method": "magic"}, "method"),
])
def test_input_errors_carry_the_argument(scores, kwargs, param):
    with pytest.raises(pairboot.InputError) as info:
        pairboot.compare_many(scores, n_resamples=50, seed=1, **kwargs)
    assert isinstance(info.value, ValueError)
    assert info.value.param == param
    assert f"`{param}" in str(info.value)


@quiet
@pytest.mark.parametrize("seed", [SEED, None])
def test_a_dataframe_gives_the_dict_answer(seed):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(FOUR)
    keywords = {"seed": seed, "n_resamples": R, "backend": "numpy", "strata": STRATA}
    for family in ({}, {"baseline": "v2"}):
        from_dict = pairboot.compare_many(FOUR, **family, **keywords)
        from_frame = pairboot.compare_many(frame, **family, **keywords)
        assert from_frame.to_dict() == from_dict.to_dict()
        assert [c.b for c in from_frame.comparisons] == [c.b for c in from_dict.comparisons]


# --- output ----------------------------------------------------------------------------------


@quiet
@pytest.mark.parametrize("correction", ["max-t", "holm", "bonferroni", "none"])
def test_to_dict_is_json_and_to_frame_has_a_row_per_comparison(correction):
    pd = pytest.importorskip("pandas")
    res = pairboot.compare_many(SCORES, correction=correction, seed=SEED, n_resamples=R,
                                backend="numpy", strata=STRATA)
    out = res.to_dict()
    again = json.loads(json.dumps(out, allow_nan=False))
    assert again == out
    assert len(out["comparisons"]) == res.family_size == 3
    assert set(out["systems"]) == set(SCORES)
    assert out["correction"] == correction and out["seed"] == SEED
    assert out["rank_intervals"] == {k: list(v) for k, v in res.rank_intervals.items()}
    frame = res.to_frame()
    assert isinstance(frame, pd.DataFrame)
    assert len(frame) == res.family_size
    assert list(frame["a"]) == [c.a for c in res.comparisons]
    assert list(frame["b"]) == [c.b for c in res.comparisons]
    np.testing.assert_array_equal(frame["estimate"], [c.estimate for c in res.comparisons])
    np.testing.assert_array_equal(frame["p_adjusted"], [c.p_adjusted for c in res.comparisons])
    np.testing.assert_array_equal(frame["low"],
                                  [c.confidence_interval.low for c in res.comparisons])


@quiet
def test_to_dict_spells_an_infinite_critical_value_as_null():
    # 99 resamples cannot reach a 99.9% level: c is infinite, intervals unbounded
    res = pairboot.compare_many(SCORES, seed=SEED, n_resamples=99, backend="numpy",
                                confidence_level=0.999)
    assert res.critical_value == math.inf
    out = json.loads(json.dumps(res.to_dict(), allow_nan=False))
    assert out["critical_value"] is None
    assert not any(c.significant for c in res.comparisons)


# --- the uncorrected warning -----------------------------------------------------------------


@quiet
def test_more_than_three_uncorrected_comparisons_warn():
    keywords = {"seed": SEED, "n_resamples": R, "backend": "numpy"}
    with pytest.warns(pairboot.PairbootWarning, match="6 comparisons without a correction"):
        res = pairboot.compare_many(FOUR, correction="none", **keywords)
    assert any("without a correction" in w for w in res.warnings)
    # three are fine, and so is any number with a correction (warnings are errors here;
    # 400 resamples do not settle Holm's and Bonferroni's intervals at alpha / 6: said)
    with warnings.catch_warnings():
        warnings.simplefilter("error", pairboot.PairbootWarning)
        warnings.filterwarnings("ignore", "the Monte Carlo error", pairboot.SmallSampleWarning)
        pairboot.compare_many(FOUR, baseline="base", correction="none", **keywords)
        for correction in ("max-t", "holm", "bonferroni"):
            res = pairboot.compare_many(FOUR, correction=correction, **keywords)
            assert not any("without a correction" in w for w in res.warnings)


# --- family-wise error under a global null ---------------------------------------------------


@pytest.mark.slow
@quiet
def test_family_wise_error_under_a_global_null():
    alpha, n, m_systems, n_sims = 0.05, 100, 5, 300
    rng = np.random.default_rng(20240613)
    rejections = {}
    criticals = {}
    for sim in range(n_sims):
        # equal in expectation, correlated as real systems are: a shared item difficulty
        # and per-system noise (of different sizes)
        difficulty = rng.normal(0, 1, n)
        scores = {f"s{k}": difficulty + rng.normal(0, 0.3 + 0.1 * k, n)
                  for k in range(m_systems)}
        for family in ("baseline", "all pairs"):
            fam = {"baseline": "s0"} if family == "baseline" else {}
            for correction in ("max-t", "holm"):
                res = pairboot.compare_many(scores, correction=correction, seed=sim,
                                            n_resamples=R, backend="numpy", **fam)
                key = (correction, family)
                rejections[key] = rejections.get(key, 0) + any(
                    c.significant for c in res.comparisons)
                if correction == "max-t":
                    criticals.setdefault(family, []).append(res.critical_value)
    allowance = 3 * math.sqrt(alpha * (1 - alpha) / n_sims)
    rates = {key: count / n_sims for key, count in rejections.items()}
    for key, rate in rates.items():
        assert rate <= alpha + allowance, (key, rates)
    # strongly correlated comparisons (the baseline's noise dominates every difference):
    # max-t's critical value is well below Bonferroni's normal quantile
    ratios = []
    for sim in range(20):
        difficulty = rng.normal(0, 1, n)
        scores = {f"s{k}": difficulty + rng.normal(0, 1.0 if k == 0 else 0.1, n)
                  for k in range(m_systems)}
        res = pairboot.compare_many(scores, baseline="s0", seed=sim, n_resamples=R,
                                    backend="numpy")
        m = res.family_size
        ratios.append(res.critical_value / NormalDist().inv_cdf(1 - alpha / (2 * m)))
    ratio = float(np.mean(ratios))
    null_ratios = {family: np.mean(c) / NormalDist().inv_cdf(
        1 - alpha / (2 * (4 if family == "baseline" else 10))) for family, c in criticals.items()}
    assert ratio < 0.9, (f"max-t c / Bonferroni z = {ratio:.3f} for strongly correlated "
                         f"comparisons; {null_ratios} under the null; FWER {rates}")


# --- from the review of the first version ------------------------------------------------


@quiet
def test_identical_systems_are_not_significant():
    # (their comparisons had no roots: c was -inf, every p 1/(B+1), intervals NaN)
    x = np.random.default_rng(1).random(200)
    res = pairboot.compare_many({"a": x, "b": x.copy(), "c": x.copy()}, seed=1,
                                n_resamples=999, backend="numpy")
    for c in res.comparisons:
        assert not c.significant and c.p_adjusted == 1.0
        assert tuple(c.confidence_interval) == (0.0, 0.0)
    mixed = pairboot.compare_many(
        {"a": x, "b": x + np.random.default_rng(2).normal(0.2, 0.1, 200), "c": x.copy()},
        baseline="a", seed=1, n_resamples=999, backend="numpy")
    (_, same) = mixed.comparisons
    assert not same.significant and same.p_adjusted == 1.0 and same.p_single_step == 1.0


def test_undefined_replicates_are_left_out_of_max_t():
    rng = np.random.default_rng(3)
    replicates = rng.normal(0, 1, (400, 2))
    full = max_t(np.array([1.8, 0.0]), np.ones(2), replicates[:200], 0.05)
    holed = replicates.copy()
    holed[200:, 0] = np.nan  # half the rows undefined for one comparison
    half = max_t(np.array([1.8, 0.0]), np.ones(2), holed, 0.05)
    assert half.n_used == 200
    assert half.critical_value == full.critical_value
    np.testing.assert_array_equal(half.p_stepdown, full.p_stepdown)


def test_a_p_value_of_exactly_alpha_does_not_reject():
    # B = 999 replicates whose maxima are 1, 2, ..., 999: a statistic equal to the 49th
    # largest is reached by 49 maxima, p = (1 + 49) / 1000 = 0.05 exactly, which does not
    # reject at 95% (1 - 0.95 is 0.050000000000000044 in binary: it once did)
    maxima = np.arange(1, 1000, dtype=float)
    t = float(maxima[-49])
    reps = np.column_stack([maxima + t, np.zeros(999)])  # roots |rep - t| = maxima
    res = max_t(np.array([t, 0.0]), np.ones(2), reps, 1 - 0.95)
    assert res.p_single_step[0] == pytest.approx(0.05, abs=1e-15)
    assert not abs(res.t[0]) > res.critical_value
    assert res.critical_value == maxima[-49]


@quiet
def test_max_t_rows_keep_p_value_below_adjusted_below_single_step():
    for seed in range(4):
        rng = np.random.default_rng(seed)
        base = rng.random(120)
        scores = {f"s{j}": base + rng.normal(0.01 * j, 0.08, 120) for j in range(4)}
        res = pairboot.compare_many(scores, seed=seed, n_resamples=999, backend="numpy")
        for c in res.comparisons:
            assert c.p_value <= c.p_adjusted <= c.p_single_step <= 1.0
            low, high = c.marginal_interval
            assert (c.p_value < 0.05) == (low > 0 or high < 0)


@quiet
def test_ranks_follow_the_same_decisions_as_the_letters():
    from pairboot.report.family import better_than

    rng = np.random.default_rng(5)
    base = rng.random(150)
    scores = {f"s{j}": base + rng.normal(0.02 * j, 0.1, 150) for j in range(4)}
    res = pairboot.compare_many(scores, seed=5, n_resamples=999, backend="numpy")
    beats = better_than(res)
    for name, (low, high) in res.rank_intervals.items():
        surely_better = sum(name in beaten for beaten in beats.values())
        assert low == 1 + surely_better
        assert high == len(scores) - len(beats[name])


# --- sizes refused up front, and no pass over every pair where none is needed (issue 33) ---


def _many_systems(m: int, n: int = 3, seed: int = 5) -> dict:
    rng = np.random.default_rng(seed)
    return {f"s{j}": rng.integers(0, 2, n).astype(float) for j in range(m)}


def test_a_family_too_large_is_refused_before_anything_is_computed(monkeypatch):
    """200 systems' 19,900 pairs at 10,000 resamples (11 GiB, minutes: a run of the
    issue went past 120 s) and 10^5 systems against a baseline are refused at once,
    with the count, the estimate and what would make them smaller; nothing is
    resampled (the engine is never reached)."""
    import pairboot.core.pipeline as pipeline

    def no_resampling(*args, **kwargs):
        raise AssertionError("resampled a family that is refused")

    monkeypatch.setattr(pipeline, "resample_sums", no_resampling, raising=False)
    monkeypatch.setattr("pairboot.core.sizes.memory_limit", lambda: 8 << 30)
    monkeypatch.setattr("pairboot.core.sizes.resident_bytes", lambda: 0)
    with pytest.raises(pairboot.InputError) as err:
        pairboot.compare_many(_many_systems(200), seed=1)
    text = str(err.value)
    for words in ("200 systems (all pairs)", "19,900 comparisons x 10,000 resamples",
                  "199,000,000", "GiB", "`baseline` (every system against one: 199",
                  "fewer `n_resamples` (at most 5,025)"):
        assert words in text, (words, text)
    assert err.value.param == "baseline"
    with pytest.raises(pairboot.InputError) as err:
        pairboot.compare_many(_many_systems(100_000), baseline="s0", seed=1)
    assert "99,999 comparisons" in str(err.value) and "more than the 8.0 GiB" in str(err.value)
    assert "fewer `n_resamples` (at most" in str(err.value)
    monkeypatch.undo()
    with warnings.catch_warnings():  # under the bound: answered
        warnings.simplefilter("ignore")
        result = pairboot.compare_many(_many_systems(12), seed=1, n_resamples=200)
    assert len(result.comparisons) == 66


def test_a_family_reads_each_row_once_not_once_per_pair(monkeypatch):
    """Whether some system has too few units is asked once per stratum, not once per
    row (it was M^2 / 2 questions of M systems each: most of the 200-system run)."""
    import pairboot.core.family as family

    calls = []
    real = family.too_few_units
    monkeypatch.setattr(family, "too_few_units",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pairboot.compare_many(_many_systems(12, 30), seed=1, n_resamples=200)
    assert len(calls) == 1


def test_the_stepdown_takes_one_pass_per_comparison():
    """Romano-Wolf's maxima over the comparisons not yet rejected are built one
    comparison at a time (O(B m)): the answer is the maxima taken afresh at each step,
    here with many ties and comparisons."""
    rng = np.random.default_rng(9)
    b, m = 300, 60
    reps = rng.integers(-6, 7, size=(b, m)) / 4.0
    est = rng.integers(-3, 4, size=m) / 4.0
    se = rng.choice([0.5, 1.0], size=m)
    res = max_t(est, se, reps, 0.05)
    roots = np.abs((reps - est) / se)
    at = np.abs(est / se)
    order = np.argsort(-at, kind="stable")
    previous, expected = 0.0, np.empty(m)
    for k, j in enumerate(order):
        rest = roots[:, order[k:]].max(axis=1)
        previous = max(previous, (1 + int((rest >= at[j]).sum())) / (b + 1))
        expected[j] = previous
    np.testing.assert_array_equal(res.p_stepdown, expected)


# --- max-t of the studentized method: each resample's own standard error -------------------


@quiet
@pytest.mark.parametrize("family", [{}, {"baseline": "base"}])
def test_studentized_max_t_reads_each_resamples_own_standard_error(family):
    # The reference builds every resample's studentized root of a mean difference from
    # compare()'s replicates on the same draws: the mean of d* (compare(a, b)) and the
    # mean of d*^2 (compare(0, d^2)), so se* = sqrt((mean d*^2 - mean(d*)^2) / n), the
    # delta method's (plug-in) standard error of a mean, and se_hat the same on the data
    keywords = {"seed": SEED, "n_resamples": R, "backend": "numpy"}
    res = pairboot.compare_many(FOUR, method="studentized", **family, **keywords)
    est, se, roots = [], [], []
    zero = np.zeros(N)
    for c in res.comparisons:
        d = FOUR[c.b] - FOUR[c.a]
        first = pairboot.compare(FOUR[c.a], FOUR[c.b], **keywords).bootstrap_distribution
        second = pairboot.compare(zero, d**2, **keywords).bootstrap_distribution
        se_star = np.sqrt((second - first**2) / N)
        est.append(d.mean())
        se.append(math.sqrt(((d - d.mean()) ** 2).mean() / N))
        roots.append((first - d.mean()) / se_star)
    est, se = np.array(est), np.array(se)
    reps = est + np.column_stack(roots) * se  # (the reference divides by se again)
    critical, _, single, stepdown, _ = reference_max_t(est, se, reps, 0.05)
    assert res.critical_value == pytest.approx(critical, rel=1e-9)
    np.testing.assert_allclose([c.standard_error for c in res.comparisons], se, rtol=1e-9)
    np.testing.assert_array_equal([c.p_single_step for c in res.comparisons], single)
    np.testing.assert_array_equal([c.p_adjusted for c in res.comparisons], stepdown)
    check_family(res, 0.05)
    # and not the percentile method's roots, on the replicates' own spread
    plain = pairboot.compare_many(FOUR, **family, **keywords)
    assert abs(plain.critical_value - res.critical_value) > 1e-3

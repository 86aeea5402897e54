"""Statistical references for compare() on per-item scores (the paired bootstrap of issue 2).

Three tiers, as STYLE.md asks: exact references (enumeration of tiny bootstrap
distributions, analytic variances, R's ``boot`` values, the spec's worked example),
oracle re-implementations of the deterministic parts (every interval formula recomputed
by hand from ``result.bootstrap_distribution``, the p-value by inverting the interval), and
invariances.  Every tolerance is derived from the Monte Carlo error and stated where used;
``K`` (in ``oracle.K``, 4.5) is the number of Monte Carlo standard errors allowed.
"""

from __future__ import annotations

import importlib.util
import math
import runpy
import sys
import warnings

import numpy as np
import pytest
from helpers import PROJECT_ROOT
from scipy import stats

import pairboot
from pairboot.errors import DegenerateDataWarning, PairbootWarning, SmallSampleWarning

METHODS = ("percentile", "basic", "normal", "bca", "studentized")
EXAMPLE = PROJECT_ROOT / "examples" / "spec_example.py"


def quiet_compare(*args, **kwargs):
    """compare() with pairboot's warnings silenced (for tests about something else)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PairbootWarning)
        return pairboot.compare(*args, **kwargs)


def excludes(ci) -> bool:
    return ci.low > 0 or ci.high < 0


def paired_data(n, shift, seed, skew=False):
    """Per-item scores of two systems sharing an item difficulty; continuous, no ties."""
    rng = np.random.default_rng(seed)
    difficulty = rng.beta(2, 2, n)
    a = difficulty + rng.normal(0, 0.1, n)
    noise = rng.exponential(0.2, n) - 0.2 if skew else rng.normal(0, 0.2, n)
    return a, difficulty + shift + noise


# --- 1. exact enumeration -------------------------------------------------------------------


@pytest.mark.parametrize("backend", ["numpy", "auto"])
def test_exact_enumeration_tiny_n(oracle, backend):
    # n = 5 items: the C(9, 5) = 126 multisets of drawn items with their multinomial
    # probabilities are the exact bootstrap distribution of the mean difference.
    a = np.array([0.50, 0.25, 0.75, 0.10, 0.40])
    b = np.array([0.55, 0.20, 0.95, 0.45, 0.40])
    d = b - a
    vals, probs = [], []
    for counts, prob in oracle.multisets(len(d)):
        vals.append(counts @ d / len(d))
        probs.append(prob)
    values, probs = oracle.merge_atoms(vals, probs)
    mean, var, _ = oracle.moments(values, probs)
    # The exact distribution has the analytic moments: mean(d) and var_pop(d) / n.
    assert mean == pytest.approx(d.mean(), abs=1e-14)
    assert var == pytest.approx(np.var(d) / len(d), rel=1e-12)

    r = 20_000
    res = quiet_compare(a, b, n_resamples=r, seed=11, backend=backend)
    boot = res.bootstrap_distribution
    assert boot.shape == (r,)
    assert res.estimate == pytest.approx(d.mean(), abs=1e-15)
    # Values, mean, variance, chi-square over the atoms and the percentile endpoints:
    # tolerances are K Monte Carlo standard errors (see conftest.check_against_exact).
    oracle.check_against_exact(boot, values, probs, endpoints=res.confidence_interval)
    assert res.standard_error == pytest.approx(np.std(boot, ddof=1), rel=1e-12)


def test_exact_enumeration_multinomial_path(oracle):
    # 0/1 correctness for 240 items: 4 distinct (a, b) rows, so the exact multinomial
    # path runs.  The exact distribution of the mean difference (N+ - N-) / n, with
    # (N+, N-, N0) ~ Multinomial(n; p+, p-, p0), is enumerated over (N+, N-).
    rng = np.random.default_rng(5)
    n = 240
    a = (rng.random(n) < 0.6).astype(float)
    b = np.where(rng.random(n) < 0.3, 1.0 - a, a)
    d = b - a
    p_plus, p_minus = np.mean(d == 1), np.mean(d == -1)
    p_zero = 1 - p_plus - p_minus
    n_plus, n_minus = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    ok = n_plus + n_minus <= n
    n_plus, n_minus = n_plus[ok], n_minus[ok]
    pmf = stats.multinomial.pmf(
        np.column_stack([n_plus, n_minus, n - n_plus - n_minus]), n, [p_plus, p_minus, p_zero]
    )
    keep = pmf > 1e-15  # atoms too rare to matter at R = 20,000 (total mass < 1e-10)
    values, probs = oracle.merge_atoms(((n_plus - n_minus) / n)[keep], pmf[keep])
    mean, var, _ = oracle.moments(values, probs)
    assert var == pytest.approx(np.var(d) / n, rel=1e-9)

    res = quiet_compare(a, b, n_resamples=20_000, seed=3)
    assert "multinomial" in res.engine
    oracle.check_against_exact(
        res.bootstrap_distribution, values, probs, endpoints=res.confidence_interval
    )


@pytest.mark.parametrize("paired", [True, False])
def test_analytic_bootstrap_variance(oracle, paired):
    # The bootstrap variance of a mean of n draws is var_pop / n exactly: for the paired
    # difference var_pop(b - a) / n; unpaired var_pop(a) / n + var_pop(b) / n.
    # standard_error**2 is a sample variance of R values: its Monte Carlo s.e. is
    # sqrt((mu4 - var**2) / R) with mu4 = 3 var**2 + kappa4, kappa4 being the fourth
    # cumulant of the bootstrap mean, sum of kappa4_pop / n**3 over the independent means.
    a, b = paired_data(50, 0.03, seed=1)
    n = len(a)
    r = 20_000
    res = quiet_compare(a, b, paired=paired, n_resamples=r, seed=2)

    kappa4 = oracle.kappa4
    if paired:
        d = b - a
        var, k4 = np.var(d) / n, kappa4(d) / n**3
    else:
        var = (np.var(a) + np.var(b)) / n
        k4 = (kappa4(a) + kappa4(b)) / n**3
    assert abs(res.standard_error**2 - var) <= oracle.K * oracle.var_se(var, k4, r)
    # The bootstrap mean is unbiased for the observed difference.
    assert abs(res.bootstrap_distribution.mean() - res.estimate) <= oracle.K * math.sqrt(var / r)
    # Each system's own standard error: var_pop(x) / n, same kind of tolerance.
    for x, score in ((a, res.score_a), (b, res.score_b)):
        assert score.estimate == pytest.approx(x.mean(), rel=1e-12)
        v = np.var(x) / n
        k4 = kappa4(x) / n**3
        assert abs(score.standard_error**2 - v) <= oracle.K * oracle.var_se(v, k4, r)


def test_unpaired_different_lengths_variance(oracle):
    # Unpaired samples of different sizes: var_pop(a) / n_a + var_pop(b) / n_b.
    rng = np.random.default_rng(8)
    a, b = rng.normal(0.5, 0.2, 40), rng.normal(0.6, 0.3, 70)
    r = 20_000
    res = quiet_compare(a, b, paired=False, n_resamples=r, seed=4)
    assert res.estimate == pytest.approx(b.mean() - a.mean(), rel=1e-12)
    var = np.var(a) / len(a) + np.var(b) / len(b)
    k4 = oracle.kappa4(a) / len(a) ** 3 + oracle.kappa4(b) / len(b) ** 3
    assert abs(res.standard_error**2 - var) <= oracle.K * oracle.var_se(var, k4, r)


# --- 4. the spec's worked example --------------------------------------------------------------


def spec_scores():
    """The spec's per-query scores, by the spec's own program (Python's random, seed 7)."""
    import random
    import statistics as st  # noqa: F401  (as in the spec)

    random.seed(7)
    n = 60
    difficulty = [random.betavariate(2, 2) for _ in range(n)]
    clip = lambda x: min(1, max(0, x))  # noqa: E731  (the spec's line, verbatim)
    A = [clip(d + random.gauss(0.00, 0.08)) for d in difficulty]
    B = [clip(d + random.gauss(0.04, 0.08)) for d in difficulty]
    return A, B


SPEC_PAIRED = (-0.002, 0.056)
SPEC_UNPAIRED = (-0.060, 0.114)


def spec_tolerance(oracle, boot, value):
    """Allowed distance between our endpoint and the spec's printed one.

    Both are Monte Carlo estimates of the same bootstrap quantile: ours with len(boot)
    resamples, the spec's with 5,000 (its order statistic out[int(0.025 R)] differs from
    np.quantile's interpolation by about one order statistic, well below its error).  The
    spec rounds to 3 decimals (+0.0005).  Tolerance: K * sqrt(se_ours**2 + se_spec**2)
    + 0.0005, about 0.003 for the paired and 0.009 for the unpaired endpoints.
    """
    se_ours = oracle.quantile_se(boot, value)
    se_spec = oracle.quantile_se(boot, value, n_resamples=5000)
    return oracle.K * math.hypot(se_ours, se_spec) + 0.0005


def test_spec_worked_example(oracle):
    A, B = spec_scores()
    paired = pairboot.compare(A, B, n_resamples=20_000, seed=7)
    unpaired = pairboot.compare(A, B, paired=False, n_resamples=20_000, seed=7)
    # The means are exact.
    assert f"{paired.score_a.estimate:.3f}" == "0.520"
    assert f"{paired.score_b.estimate:.3f}" == "0.547"
    assert f"{paired.estimate:.3f}" == "0.027"
    assert unpaired.estimate == pytest.approx(paired.estimate, abs=1e-15)
    assert paired.n_items == 60
    for res, spec in ((paired, SPEC_PAIRED), (unpaired, SPEC_UNPAIRED)):
        for ours, theirs in zip(res.confidence_interval, spec):
            tol = spec_tolerance(oracle, res.bootstrap_distribution, ours)
            assert abs(ours - theirs) <= tol, (res.paired, ours, theirs, tol)
    w_paired = paired.confidence_interval.high - paired.confidence_interval.low
    w_unpaired = unpaired.confidence_interval.high - unpaired.confidence_interval.low
    assert 2.5 <= w_unpaired / w_paired <= 3.5
    # The paired interval nearly excludes zero, the unpaired one is far from it.
    assert not paired.excludes_zero and not unpaired.excludes_zero
    assert paired.p_value < 0.2 < unpaired.p_value


@pytest.mark.slow
def test_spec_example_script(oracle, capsys, monkeypatch):
    spec = importlib.util.spec_from_file_location("spec_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.spec_scores() == spec_scores()  # the same data as the spec's program

    # Run it as `python examples/spec_example.py` does, in this process (a subprocess
    # would pay numba's compilation again).
    monkeypatch.setattr(sys, "argv", [str(EXAMPLE)])
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "mean A 0.520  mean B 0.547  mean diff 0.027"
    assert out[1].startswith("paired   95% interval: [")
    assert out[2].startswith("unpaired 95% interval: [")
    paired, unpaired = module.run()  # what the script printed (same defaults)
    assert out[:3] == module.spec_lines(paired, unpaired)
    for res, spec_ci in ((paired, SPEC_PAIRED), (unpaired, SPEC_UNPAIRED)):
        for ours, theirs in zip(res.confidence_interval, spec_ci):
            tol = spec_tolerance(oracle, res.bootstrap_distribution, ours)
            assert abs(ours - theirs) <= tol
    assert paired.reading.strip() in "\n".join(out)


# --- 5. invariances ----------------------------------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
def test_swap_mirrors_interval(method):
    # b - a -> a - b negates every resampled difference (same draws, same sums), so every
    # interval is mirrored and the p-value is unchanged; float rounding of the
    # interpolation weights aside, exactly.
    a, b = paired_data(45, 0.04, seed=21, skew=True)
    ab = pairboot.compare(a, b, method=method, n_resamples=3000, seed=5)
    ba = pairboot.compare(b, a, method=method, n_resamples=3000, seed=5)
    np.testing.assert_array_equal(ba.bootstrap_distribution, -ab.bootstrap_distribution)
    assert ba.estimate == -ab.estimate
    assert ba.confidence_interval.low == pytest.approx(-ab.confidence_interval.high, abs=1e-12)
    assert ba.confidence_interval.high == pytest.approx(-ab.confidence_interval.low, abs=1e-12)
    assert ba.p_value == pytest.approx(ab.p_value, abs=1e-9)
    assert ba.score_a == ab.score_b and ba.score_b == ab.score_a


def test_swap_mirrors_interval_binary_scores():
    # The same invariance for 0/1 correctness, where the exact multinomial path runs:
    # swapping the systems must still negate the resampled differences exactly.
    rng = np.random.default_rng(9)
    a = (rng.random(300) < 0.55).astype(float)
    b = np.where(rng.random(300) < 0.35, 1.0 - a, a)
    ab = pairboot.compare(a, b, n_resamples=2000, seed=5)
    ba = pairboot.compare(b, a, n_resamples=2000, seed=5)
    np.testing.assert_array_equal(ba.bootstrap_distribution, -ab.bootstrap_distribution)
    assert tuple(ba.confidence_interval) == pytest.approx(
        (-ab.confidence_interval.high, -ab.confidence_interval.low), abs=1e-12
    )


def test_same_seed_same_answer():
    a, b = paired_data(50, 0.02, seed=3)
    r1 = pairboot.compare(a, b, n_resamples=2000, seed=123, method="bca")
    r2 = pairboot.compare(list(a), list(b), n_resamples=2000, seed=123, method="bca")
    np.testing.assert_array_equal(r1.bootstrap_distribution, r2.bootstrap_distribution)
    assert r1.confidence_interval == r2.confidence_interval
    assert r1.p_value == r2.p_value and r1.standard_error == r2.standard_error
    assert r1.score_a == r2.score_a and r1.score_b == r2.score_b
    r3 = pairboot.compare(a, b, n_resamples=2000, seed=124, method="bca")
    assert not np.array_equal(r1.bootstrap_distribution, r3.bootstrap_distribution)


@pytest.mark.parametrize("binary", [False, True])
def test_shift_both_systems(binary):
    # Adding a constant to both systems' scores leaves every per-item difference, hence
    # the draws and the difference's interval, unchanged up to float rounding.
    rng = np.random.default_rng(13)
    if binary:
        a = (rng.random(200) < 0.5).astype(float)
        b = np.where(rng.random(200) < 0.3, 1.0 - a, a)
    else:
        a, b = paired_data(50, 0.02, seed=13)
    c = 0.37
    r1 = pairboot.compare(a, b, n_resamples=2000, seed=9)
    r2 = pairboot.compare(a + c, b + c, n_resamples=2000, seed=9)
    np.testing.assert_allclose(r2.bootstrap_distribution, r1.bootstrap_distribution, atol=1e-12)
    assert tuple(r2.confidence_interval) == pytest.approx(tuple(r1.confidence_interval), abs=1e-12)
    assert r2.estimate == pytest.approx(r1.estimate, abs=1e-12)
    assert r2.score_a.estimate == pytest.approx(r1.score_a.estimate + c, abs=1e-12)


def test_seed_none_is_reported_and_reproduces():
    a, b = paired_data(40, 0.02, seed=4)
    r1 = pairboot.compare(a, b, n_resamples=1000, seed=None)
    assert isinstance(r1.seed, int) and r1.seed >= 0
    r2 = pairboot.compare(a, b, n_resamples=1000, seed=r1.seed)
    np.testing.assert_array_equal(r1.bootstrap_distribution, r2.bootstrap_distribution)
    assert r1.confidence_interval == r2.confidence_interval


CONSISTENCY_DATA = [(40, 0.0, 31), (40, 0.03, 32), (60, 0.05, 33), (30, 0.08, 34)]
LEVELS = (0.5, 0.8, 0.9, 0.95, 0.99)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("n, shift, seed", CONSISTENCY_DATA)
def test_p_value_matches_interval(method, n, shift, seed):
    # The p-value is the smallest alpha whose (1 - alpha) interval of the same method
    # excludes 0: at every level L the interval excludes 0 exactly when p < 1 - L, and
    # the p-value does not depend on the level asked for.
    a, b = paired_data(n, shift, seed, skew=True)
    p_values = []
    for level in LEVELS:
        res = quiet_compare(
            a, b, method=method, confidence_level=level, n_resamples=2000, seed=seed
        )
        p_values.append(res.p_value)
        assert res.excludes_zero == excludes(res.confidence_interval)
        if abs(res.p_value - (1 - level)) > 1e-12:  # an exact tie may go either way
            assert res.excludes_zero == (res.p_value < 1 - level), (level, res.p_value)
    assert max(p_values) - min(p_values) <= 1e-12
    # Inverting: just above alpha = p the interval excludes 0, just below it does not.
    p = p_values[0]
    if 0.002 < p < 0.9:
        above = quiet_compare(
            a, b, method=method, confidence_level=1 - 1.01 * p, n_resamples=2000, seed=seed
        )
        below = quiet_compare(
            a, b, method=method, confidence_level=1 - 0.99 * p, n_resamples=2000, seed=seed
        )
        assert excludes(above.confidence_interval)
        assert not excludes(below.confidence_interval)


def _crossing(sorted_x, c):
    """The position h where np.quantile's interpolation of sorted_x crosses c."""
    r = len(sorted_x)
    i = int(np.searchsorted(sorted_x, c, side="right")) - 1  # last x[i] <= c
    if i < 0:
        return 0.0
    if i >= r - 1:
        return float(r - 1)
    return i + (c - sorted_x[i]) / (sorted_x[i + 1] - sorted_x[i])


@pytest.mark.parametrize("method", ["percentile", "basic", "normal"])
@pytest.mark.parametrize("n, shift, seed", CONSISTENCY_DATA)
def test_p_value_exact_inversion(method, n, shift, seed):
    # Closed-form inversions of the interval (continuous data, no ties), as the oracle:
    # percentile: low(alpha) = Q(alpha / 2) > 0 iff alpha > 2 h0 / (R - 1), with h0 the
    #   interpolation position of 0; high(alpha) < 0 iff alpha > 2 (1 - h0 / (R - 1));
    # basic: the same with 2 * estimate in place of 0;
    # normal: p = 2 (1 - Phi(|2 est - mean(boot)| / sd)).
    # An end excludes 0 only beyond the tie tolerance tol = 1e-9 max(|est|, |replicates|)
    # (docs/decisions.md, "Ties at a boundary"): the crossings are of +tol and -tol.
    a, b = paired_data(n, shift, seed, skew=True)
    res = quiet_compare(a, b, method=method, n_resamples=2000, seed=seed)
    boot = np.sort(res.bootstrap_distribution)
    r = len(boot)
    tol = 1e-9 * max(abs(res.estimate), abs(boot[0]), abs(boot[-1]))
    if method == "normal":
        z = max(0.0, abs(2 * res.estimate - boot.mean()) - tol) / np.std(boot, ddof=1)
        expected = 2 * stats.norm.sf(z)
    else:
        c = 0.0 if method == "percentile" else 2 * res.estimate
        # (the first candidate's end moves up with Q(alpha / 2), the other's down)
        low, high = _crossing(boot, c + tol), _crossing(boot, c - tol)
        candidates = [2 * low / (r - 1), 2 * (1 - high / (r - 1)), 1.0]
        expected = min(x for x in candidates if x <= 1.0)
    assert res.p_value == pytest.approx(expected, abs=1e-9)


def constant_difference_data(kind):
    """Every per-item difference equal: exactly (dyadic scores) or as floats make it."""
    if kind == "dyadic":  # b - a is exactly 0.25 for every item, no rounding anywhere
        a = np.arange(40) / 8.0
        return a, a + 0.25, 0.25
    # b = a + 0.1 with arbitrary floats: b - a is 0.1 up to an ulp, which is how constant
    # differences arrive from real scores.
    a = np.random.default_rng(1).uniform(0, 1, 40)
    return a, a + 0.1, 0.1


@pytest.mark.parametrize("kind", ["dyadic", "float"])
@pytest.mark.parametrize("method", METHODS)
def test_constant_differences(method, kind):
    # The bootstrap distribution is a point (float rounding aside): a DegenerateDataWarning
    # whatever the method; BCa bounds are NaN (z0 and the acceleration are undefined); the
    # other intervals collapse onto the difference, which they exclude at every level.
    a, b, c = constant_difference_data(kind)
    with pytest.warns(DegenerateDataWarning):
        res = pairboot.compare(a, b, method=method, n_resamples=1000, seed=1)
    assert res.warnings
    assert res.estimate == pytest.approx(c, abs=1e-12)
    np.testing.assert_allclose(res.bootstrap_distribution, c, atol=1e-12)
    assert res.standard_error <= 1e-12
    if method == "bca":
        assert math.isnan(res.confidence_interval.low)
        assert math.isnan(res.confidence_interval.high)
    elif method in ("percentile", "basic", "normal"):
        assert tuple(res.confidence_interval) == pytest.approx((c, c), abs=1e-12)
        # Every interval excludes 0, so the smallest such alpha is 0.
        assert res.excludes_zero and res.p_value == 0.0


def test_identical_systems():
    # b == a: every difference is 0; the interval is [0, 0], it never excludes 0, p = 1.
    a = np.arange(40) / 8.0
    with pytest.warns(DegenerateDataWarning):
        res = pairboot.compare(a, a.copy(), n_resamples=1000, seed=1)
    assert tuple(res.confidence_interval) == (0.0, 0.0)
    assert not res.excludes_zero and res.p_value == 1.0


def test_small_n_is_rough():
    a, b = paired_data(20, 0.05, seed=6)
    with pytest.warns(SmallSampleWarning, match="rough"):
        res = pairboot.compare(a, b, n_resamples=2000, seed=1)
    assert any("rough" in w for w in res.warnings)
    a, b = paired_data(200, 0.05, seed=6)
    res = quiet_compare(a, b, n_resamples=2000, seed=1)
    assert not any("rough" in w for w in res.warnings)


# --- 6. interval formulas recomputed by hand ----------------------------------------------------


@pytest.mark.parametrize("level", [0.9, 0.95])
@pytest.mark.parametrize("method", ["percentile", "basic", "normal", "bca"])
def test_interval_formulas_by_hand(oracle, method, level):
    # Each interval recomputed from result.bootstrap_distribution with the documented
    # conventions (arch's test style); only float rounding separates the two.
    a, b = paired_data(40, 0.03, seed=17, skew=True)
    d = b - a
    res = pairboot.compare(a, b, method=method, confidence_level=level, n_resamples=4000, seed=23)
    boot = res.bootstrap_distribution
    est = d.mean()
    alpha = 1 - level
    assert res.estimate == pytest.approx(est, abs=1e-15)
    assert res.standard_error == pytest.approx(np.std(boot, ddof=1), rel=1e-12)
    q_lo, q_hi = np.quantile(boot, [alpha / 2, 1 - alpha / 2])
    if method == "percentile":
        expected = (q_lo, q_hi)
    elif method == "basic":
        expected = (2 * est - q_hi, 2 * est - q_lo)
    elif method == "normal":
        bias = boot.mean() - est
        half = stats.norm.ppf(1 - alpha / 2) * np.std(boot, ddof=1)
        expected = (est - bias - half, est - bias + half)
    else:
        jack = (d.sum() - d) / (len(d) - 1)  # the mean difference without item i
        expected = oracle.bca_interval(boot, est, [jack], level)
    np.testing.assert_allclose(tuple(res.confidence_interval), expected, rtol=1e-10, atol=1e-14)
    assert res.confidence_level == level and res.method == method


def test_acceleration_does_not_depend_on_the_scale():
    # a is a ratio of third to 3/2-th powers: the same for scores a factor 1e150 apart
    # (whose cubes overflow a double), and no OverflowError.
    from pairboot.stats.intervals import bca_constants

    rng = np.random.default_rng(2)
    theta, jack = rng.normal(size=99), [rng.exponential(size=30), rng.exponential(size=7)]
    _, a = bca_constants(theta, 0.0, jack)
    _, big = bca_constants(theta * 1e150, 0.0, [j * 1e150 for j in jack])
    assert a != 0 and big == pytest.approx(a, rel=1e-13)


def test_acceleration_reference_value(oracle):
    # The oracle's jackknife acceleration against a published value: an R package's
    # testthat suite (calcBCa tests) asserts calcBCaA(respVec, mean) == 0.1102757.
    resp = [0.096888, 0.115579, 0.13671, 0.086497, 0.5248, 1.676752, 0.46717, 0.360975, 0.118718]
    x = np.array(resp)
    jack = (x.sum() - x) / (len(x) - 1)
    assert oracle.jackknife_acceleration([jack]) == pytest.approx(0.1102757, abs=5e-8)


def test_studentized_against_own_bootstrap_t(oracle):
    # Bootstrap-t by hand with numpy's generator: t* = (mean(d*) - est) / se*, se* the
    # plug-in sqrt(var_pop(d*) / n); interval est - se_hat * (t*_{1-a/2}, t*_{a/2}).
    # Different random numbers, so the endpoints agree within Monte Carlo error:
    # se_hat * s.e. of each t-quantile (from its density), for both runs, K of them.
    a, b = paired_data(40, 0.03, seed=19, skew=True)
    d = b - a
    n, r = len(d), 20_000
    res = pairboot.compare(a, b, method="studentized", n_resamples=r, seed=29)

    rng = np.random.default_rng(0)
    ds = d[rng.integers(0, n, size=(r, n))]
    se_star = np.sqrt(ds.var(axis=1) / n)
    t_star = (ds.mean(axis=1) - d.mean()) / se_star
    se_hat = math.sqrt(np.var(d) / n)
    t_lo, t_hi = np.quantile(t_star, [0.025, 0.975])
    expected = (d.mean() - se_hat * t_hi, d.mean() - se_hat * t_lo)
    for ours, ref, t_q in zip(res.confidence_interval, expected, (t_hi, t_lo)):
        tol = oracle.K * math.sqrt(2) * se_hat * oracle.quantile_se(t_star, t_q)
        assert abs(ours - ref) <= tol, (ours, ref, tol)
    # The bootstrap distribution is still the resampled differences: its variance is
    # var_pop(d) / n within K s.e. of a sample variance (with the skewed differences'
    # fourth cumulant).
    var = np.var(d) / n
    k4 = oracle.kappa4(d) / n**3
    assert abs(res.standard_error**2 - var) <= oracle.K * oracle.var_se(var, k4, r)


def assert_p_is_the_switch(a, b, p, **kwargs):
    """The interval at level 1 - p(1 + 1e-9) excludes 0, the one at 1 - p(1 - 1e-9) not
    (the same replicates: the same seed in ``kwargs``)."""
    for level, excludes in ((1 - p * (1 + 1e-9), True), (1 - p * (1 - 1e-9), False)):
        ci = quiet_compare(a, b, confidence_level=level, **kwargs).confidence_interval
        assert (ci.low > 0 or ci.high < 0) is excludes, (p, level, ci)


@pytest.mark.parametrize("method", METHODS)
def test_p_value_is_the_smallest_level_that_excludes_zero(method):
    # By definition, for every method: the interval at 1 - p(1 + 1e-9) excludes 0 and
    # the one at 1 - p(1 - 1e-9) does not (the same replicates: the same seed).  Data
    # with ties (accuracy) put the crossing on replicates themselves.
    rng = np.random.default_rng(4)
    cases = [paired_data(40, 0.03, seed=5, skew=True),
             (rng.integers(0, 2, 60).astype(float), rng.integers(0, 2, 60).astype(float))]
    for a, b in cases:
        p = quiet_compare(a, b, method=method, n_resamples=999, seed=3).p_value
        assert 0 < p < 1, p
        assert_p_is_the_switch(a, b, p, method=method, n_resamples=999, seed=3)


@pytest.mark.parametrize(("a", "b", "r", "seed"), [
    ([0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0],
     [0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 1, 1, 0, 1], 20, 3196),
    ([0, 0, 0, 0, 0.1, 0], [0, 0, 0, 0.2, 0.1, 0], 50, 497),
])
def test_basic_p_value_where_rounding_ties_an_end_to_zero(a, b, r, seed):
    # Replicates one ulp from 2 est: the interpolated basic end rounds to exactly 0 over
    # a stretch of alpha, where the interval does not exclude 0; the p-value follows the
    # interval (the closed form alone said 0 and 0.082; the interval says 0.053, 0.102).
    p = quiet_compare(a, b, method="basic", n_resamples=r, seed=seed).p_value
    assert_p_is_the_switch(a, b, p, method="basic", n_resamples=r, seed=seed)


def _p_value_cases():
    """Replicates with 0 in the lower tail, in the upper tail (a negative centre), and far
    in BCa's tail (z0 about 2.6, where inverting its level function magnifies rounding)."""
    from pairboot.stats.intervals import Bootstrap

    rng = np.random.default_rng(6)
    out = []
    for sign in (1, -1):
        theta = sign * rng.normal(0.3, 0.2, 999)
        out.append(Bootstrap.from_replicates(
            sign * 0.29, theta, influence=[sign * rng.normal(0.29, 0.01, 50)], se_hat=0.21,
            se_star=np.abs(rng.normal(0.2, 0.02, 999)),
        ))
    rng = np.random.default_rng(1176)
    theta = rng.normal(0, 1, 999) - rng.uniform(2.0, 3.6)
    est = float(np.quantile(theta, rng.uniform(0.95, 0.998)))
    out.append(Bootstrap.from_replicates(est, theta, influence=[rng.normal(est, 0.1, 40)]))
    return out


@pytest.mark.parametrize("method", METHODS)
def test_closed_form_p_value_is_the_bisection(method):
    # p_value equals a 60-step bisection on the interval function itself (to the double
    # next to it), and each method's closed form, which brackets it, is within 1e-9 of it
    # (a wrong closed form falls back to the whole bisection: the same value, and this
    # fails).
    from pairboot.stats.intervals import bounds, closed_form_p_value, p_value

    for k, boot in enumerate(_p_value_cases()):
        if method == "studentized" and boot.t_sorted is None:
            continue
        lo_a, hi_a = 0.0, 1.0
        for _ in range(60):
            mid = 0.5 * (lo_a + hi_a)
            lo, hi = bounds(method, boot, mid)
            # (an end excludes 0 beyond the tie tolerance: docs/decisions.md)
            beyond = lo > boot.tolerance or hi < -boot.tolerance
            lo_a, hi_a = (lo_a, mid) if beyond else (mid, hi_a)
        p = p_value(method, boot)
        assert 0 < p < 1, (k, p)
        assert abs(p - hi_a) <= 2 * math.ulp(p) + 2**-59, (k, p, hi_a)
        assert abs(closed_form_p_value(method, boot) - p) <= 1e-9 * p, k


def test_p_value_near_the_largest_doubles():
    from pairboot.stats.intervals import Bootstrap, p_value

    boot = Bootstrap.from_replicates(7.5e307, [-1e308, 1.6e308])  # inf / inf in the form
    assert 0.0 <= p_value("basic", boot) < 1e-15


@pytest.mark.filterwarnings("ignore:strata with fewer than 30 items:pairboot.SmallSampleWarning")
def test_stratified_studentized_against_own_bootstrap_t(oracle):
    # The stratified bootstrap-t by hand: within each stratum (sizes 15, 40 and 90,
    # population weights 0.5, 0.3, 0.2) the items are drawn with numpy's generator;
    # theta* = sum_h w_h mean(d*_h), se*^2 = sum_h w_h^2 var_pop(d*_h) / n_h (the delta
    # method's variance of a weighted mean).  Endpoints within Monte Carlo error.
    a, b = paired_data(145, 0.03, seed=23, skew=True)
    d = b - a
    strata = np.repeat(["x", "y", "z"], [15, 40, 90])
    weights = {"x": 0.5, "y": 0.3, "z": 0.2}
    r = 20_000
    res = pairboot.compare(a, b, strata=strata, strata_weights=weights, method="studentized",
                           n_resamples=r, seed=31)

    rng = np.random.default_rng(1)
    theta, var, est, var_hat = np.zeros(r), np.zeros(r), 0.0, 0.0
    for h, w in weights.items():
        dh = d[strata == h]
        draws = dh[rng.integers(0, len(dh), size=(r, len(dh)))]
        theta += w * draws.mean(axis=1)
        var += w**2 * draws.var(axis=1) / len(dh)
        est += w * dh.mean()
        var_hat += w**2 * dh.var() / len(dh)
    t_star = (theta - est) / np.sqrt(var)
    se_hat = math.sqrt(var_hat)
    t_lo, t_hi = np.quantile(t_star, [0.025, 0.975])
    assert res.estimate == pytest.approx(est, rel=1e-12)
    expected = (est - se_hat * t_hi, est - se_hat * t_lo)
    for ours, ref, t_q in zip(res.confidence_interval, expected, (t_hi, t_lo)):
        tol = oracle.K * math.sqrt(2) * se_hat * oracle.quantile_se(t_star, t_q)
        assert abs(ours - ref) <= tol, (ours, ref, tol)


# --- 7. external references ------------------------------------------------------------------


R_BOOT = {"basic": (23.77, 79.12), "percentile": (28.86, 84.21), "bca": (32.31, 91.43)}


@pytest.mark.slow
@pytest.mark.parametrize("method", R_BOOT)
def test_against_R_boot(method):
    # Port of scipy's test_bootstrap_against_R (scipy/stats/tests/test_resampling.py):
    # R's boot.ci on boot(x, function(x, i) mean(x[i]), R = 1e6), printed to 2 decimals.
    # A one-sample mean is the paired difference against a = 0.  scipy's tolerance,
    # rtol = 0.005 (0.14 at the lower end), with 1e6 resamples as R used: the Monte
    # Carlo s.e. of each endpoint is about 0.04 (lower) to 0.1 (upper) in both runs.
    x = np.array([10, 12, 12.5, 12.5, 13.9, 15, 21, 22, 23, 34, 50, 81, 89, 121, 134, 213])
    res = quiet_compare(np.zeros_like(x), x, method=method, n_resamples=1_000_000, seed=0)
    np.testing.assert_allclose(tuple(res.confidence_interval), R_BOOT[method], rtol=0.005)


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
def test_against_scipy_bootstrap(oracle, method):
    # scipy.stats.bootstrap of the mean of d = b - a (what the paired bootstrap resamples),
    # 20,000 resamples each.  Endpoints agree within K * sqrt(2) Monte Carlo s.e. of a
    # quantile at that endpoint; BCa doubled, since its z0 is estimated from the same
    # resamples and moves the quantile level by about as much again.
    a, b = paired_data(50, 0.03, seed=41, skew=True)
    d = b - a
    r = 20_000
    res = pairboot.compare(a, b, method=method, n_resamples=r, seed=43)
    ref = stats.bootstrap(
        (d,),
        np.mean,
        n_resamples=r,
        method="BCa" if method == "bca" else method,
        rng=np.random.default_rng(0),
    )
    boot = res.bootstrap_distribution
    factor = 2.0 if method == "bca" else 1.0
    for ours, theirs in zip(res.confidence_interval, ref.confidence_interval):
        value = ours if method != "basic" else 2 * res.estimate - ours
        tol = factor * oracle.K * math.sqrt(2) * oracle.quantile_se(boot, value)
        assert abs(ours - theirs) <= tol, (ours, theirs, tol)
    # Standard errors: each has Monte Carlo s.e. ~ se / sqrt(2 R).
    se_tol = oracle.K * res.standard_error / math.sqrt(r)
    assert abs(res.standard_error - ref.standard_error) <= se_tol

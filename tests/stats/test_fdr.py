"""False discovery rates, false coverage rates and partial conjunctions.

Three tiers: the adjusted p-values against statsmodels' ``multipletests`` (an external
reference, to 1e-12); the partial conjunction p-values against a loop that writes
Benjamini & Heller's formulas out; and simulations of the error rates each procedure
promises (FDR, FCR, the error of the count), under fixed seeds, with tolerances of
``SIGMAS`` Monte Carlo standard errors.  Where the rate is known exactly (BH's FDR under
independence, Simes' level), the simulation is checked from both sides, so that a
procedure that is too conservative fails too.
"""

from __future__ import annotations

import ast
import math
import sys
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from pairboot.stats import fdr
from pairboot.stats.fdr import (
    COMBINATIONS,
    benjamini_hochberg,
    benjamini_yekutieli,
    fcr_alpha,
    partial_conjunction,
    partial_conjunction_count,
)

SIGMAS = 3.0
"""Simulated rates are within this many Monte Carlo standard errors of their bound (each
simulation has a fixed seed, so each check is deterministic)."""

ADJUST = {"fdr_bh": benjamini_hochberg, "fdr_by": benjamini_yekutieli}


def mc_se(x) -> float:
    """The Monte Carlo standard error of the mean of ``x``."""
    x = np.asarray(x, dtype=np.float64)
    return float(x.std(ddof=1) / math.sqrt(len(x)))


def fdp(reject: np.ndarray, null: np.ndarray) -> float:
    """The false discovery proportion ``V / max(R, 1)``."""
    return int((reject & null).sum()) / max(int(reject.sum()), 1)


# --- the adjusted p-values against statsmodels ----------------------------------------------


def p_samples():
    """Named p-value arrays: several sizes, ties, exact 0s and 1s."""
    rng = np.random.default_rng(20240611)
    for m in (1, 2, 7, 50, 1_000, 100_000):
        yield f"uniform-{m}", rng.uniform(size=m)
        yield f"small-{m}", rng.beta(0.2, 1.0, size=m)
    yield "ties", np.round(rng.uniform(size=200), 2)
    yield "ties-small", np.round(rng.beta(0.3, 1.0, size=200), 3)
    with_ends = rng.uniform(size=100)
    with_ends[rng.choice(100, 15, replace=False)] = 0.0
    with_ends[rng.choice(100, 15, replace=False)] = 1.0
    yield "zeros-and-ones", with_ends
    yield "all-zero", np.zeros(5)
    yield "all-one", np.ones(5)
    yield "one-zero", np.array([0.0])
    yield "one-one", np.array([1.0])


SAMPLES = dict(p_samples())


@pytest.mark.parametrize("method", sorted(ADJUST))
@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_adjusted_p_values_equal_statsmodels(method, name):
    p = SAMPLES[name]
    expected = multipletests(p, method=method)[1]
    got = ADJUST[method](p)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0)


@pytest.mark.parametrize("method", sorted(ADJUST))
def test_adjusted_p_values_are_capped_monotone_and_permutation_equivariant(method):
    rng = np.random.default_rng(7)
    p = np.round(rng.beta(0.5, 1.0, size=300), 2)
    q = ADJUST[method](p)
    order = np.argsort(p, kind="stable")
    assert np.all(np.diff(q[order]) >= 0)
    assert np.all((q >= p) & (q <= 1.0))
    assert np.all(q[p == 1.0] == 1.0)
    if method == "fdr_by":  # BH's times c(m) >= 1
        assert np.all(q >= benjamini_hochberg(p))
    for a, b in zip(*np.nonzero(p[:, None] == p[None, :])):  # ties get equal q-values
        assert q[a] == q[b]
    perm = rng.permutation(len(p))
    np.testing.assert_array_equal(ADJUST[method](p[perm]), q[perm])


@pytest.mark.parametrize("method", sorted(ADJUST))
def test_nan_p_values_stay_nan_and_leave_the_family(method):
    rng = np.random.default_rng(11)
    p = rng.beta(0.3, 1.0, size=40)
    p[[0, 7, 8, 39]] = np.nan
    q = ADJUST[method](p)
    finite = ~np.isnan(p)
    assert np.array_equal(np.isnan(q), ~finite)
    # m is the number of finite p's: the same as adjusting the finite ones alone
    np.testing.assert_allclose(q[finite], multipletests(p[finite], method=method)[1],
                               rtol=1e-12, atol=0)
    assert np.isnan(ADJUST[method](np.array([np.nan, np.nan]))).all()
    assert ADJUST[method](np.array([])).shape == (0,)


@pytest.mark.parametrize("bad", [[0.1, 1.5], [-0.01], [np.inf], [[0.1, 0.2]], 0.3])
def test_p_values_outside_0_1_or_not_1d_are_refused(bad):
    for call in (benjamini_hochberg, benjamini_yekutieli,
                 lambda p: partial_conjunction(p, 1), lambda p: partial_conjunction_count(p, 0.05)):
        with pytest.raises(ValueError, match="`p` must be"):
            call(bad)


def test_the_module_imports_only_numpy_and_the_standard_library():
    tree = ast.parse(Path(fdr.__file__).read_text(encoding="utf-8"))
    names = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
             for alias in node.names}
    names |= {node.module.split(".")[0] for node in ast.walk(tree)
              if isinstance(node, ast.ImportFrom) and node.module}
    assert names - {"numpy", "__future__"} <= set(sys.stdlib_module_names), names


# --- the false discovery rate, simulated ----------------------------------------------------

M, M1, Q, FAMILIES = 50, 10, 0.1, 2_000
"""50 one-sided comparisons, 10 of them real (mean 3), BH or BY at q = 0.1."""


def simulated_fdr(z: np.ndarray, adjust) -> tuple[np.ndarray, np.ndarray]:
    """Every family's false discovery proportion and number of rejections; the first
    ``M1`` columns of ``z`` are the real effects."""
    null = np.arange(z.shape[1]) >= M1
    reject = [adjust(p) < Q for p in stats.norm.sf(z)]
    return (np.array([fdp(r, null) for r in reject]), np.array([r.sum() for r in reject]))


EFFECTS = np.r_[np.full(M1, 3.0), np.zeros(M - M1)]
"""The means of the one-sided z statistics."""


def test_benjamini_hochberg_controls_the_fdr_at_q_m0_over_m_under_independence():
    rng = np.random.default_rng(101)
    z = EFFECTS + rng.standard_normal((FAMILIES, M))
    proportions, rejections = simulated_fdr(z, benjamini_hochberg)
    bound = Q * (M - M1) / M
    rate, se = proportions.mean(), mc_se(proportions)
    assert rate <= bound + SIGMAS * se, (rate, bound, se)
    # independent uniform nulls: BH's FDR is exactly q m0 / m, so not far below it either
    assert rate >= bound - SIGMAS * se, (rate, bound, se)
    assert rejections.mean() > M1 / 2  # it finds the effects


@pytest.mark.parametrize("rho", [0.8, -1 / (M - 1)], ids=["positive", "negative"])
def test_benjamini_yekutieli_controls_the_fdr_under_equicorrelation(rho):
    rng = np.random.default_rng(202 if rho > 0 else 303)
    e = rng.standard_normal((FAMILIES, M))
    if rho > 0:
        noise = math.sqrt(rho) * rng.standard_normal((FAMILIES, 1)) + math.sqrt(1 - rho) * e
    else:  # the most negative equicorrelation: centred, rescaled to unit variance
        noise = (e - e.mean(axis=1, keepdims=True)) * math.sqrt(M / (M - 1))
    assert abs(np.corrcoef(noise[:, :2].T)[0, 1] - rho) < 0.1
    proportions, rejections = simulated_fdr(EFFECTS + noise, benjamini_yekutieli)
    rate, se = proportions.mean(), mc_se(proportions)
    assert rate <= Q * (M - M1) / M + SIGMAS * se, (rate, se)
    assert rejections.mean() > 1  # (not vacuous: it does reject)


def test_benjamini_yekutieli_holds_where_benjamini_hochberg_fails():
    # The dependence that is BH's worst case (Guo & Rao, 2008), all m nulls: with chance
    # q / k (k = 1..m), k of the p's are uniform on ((k-1) q/m, k q/m] and the others on
    # (q, 1], otherwise all are on (q, 1]; each p is uniform on (0, 1), BH rejects exactly
    # the k, and its FDR is q c(m), 0.45 here.  BY's is q / c(m).
    rng = np.random.default_rng(808)
    c = float(np.sum(1.0 / np.arange(1, M + 1)))
    k = rng.choice(M + 1, size=FAMILIES, p=np.r_[1 - Q * c, Q / np.arange(1, M + 1)])
    p = rng.uniform(Q, 1.0, size=(FAMILIES, M))
    for f in np.flatnonzero(k):
        low = rng.choice(M, size=k[f], replace=False)
        p[f, low] = rng.uniform((k[f] - 1) * Q / M, k[f] * Q / M, size=k[f])
    assert abs(p.mean() - 0.5) < 0.01 and abs((p < Q).mean() - Q) < 0.01  # uniform p's
    null = np.ones(M, dtype=bool)
    by = np.array([fdp(benjamini_yekutieli(row) < Q, null) for row in p])
    bh = np.array([fdp(benjamini_hochberg(row) < Q, null) for row in p])
    assert by.mean() <= Q + SIGMAS * mc_se(by), by.mean()
    assert bh.mean() > Q + SIGMAS * mc_se(bh), bh.mean()  # (the check can fail)
    assert abs(bh.mean() - Q * c) <= SIGMAS * mc_se(bh)


# --- the false coverage rate ----------------------------------------------------------------


def simulated_fcr(theta: np.ndarray, alpha: float, seed: int, *, adjusted: bool = True):
    """Each family's false coverage proportion of the BH-selected (two-sided, at
    ``alpha``) comparisons' marginal normal intervals ``x +- z_{1 - a/2}``, with ``a`` from
    :func:`fcr_alpha` (or ``alpha`` itself when not ``adjusted``)."""
    rng = np.random.default_rng(seed)
    x = theta + rng.standard_normal((FAMILIES, len(theta)))
    p = 2 * stats.norm.sf(np.abs(x))
    out = np.empty(FAMILIES)
    for f in range(FAMILIES):
        selected = benjamini_hochberg(p[f]) < alpha
        r = int(selected.sum())
        a = fcr_alpha(r, len(theta), alpha) if adjusted else alpha
        miss = np.abs(x[f] - theta)[selected] > NormalDist().inv_cdf(1 - a / 2)
        out[f] = miss.sum() / max(r, 1)
    return out


def test_fcr_adjusted_intervals_of_bh_selections_control_the_false_coverage_rate():
    alpha = 0.1
    theta = np.r_[np.full(10, 3.0), np.full(10, -2.0), np.linspace(-1, 1, 10), np.zeros(20)]
    proportions = simulated_fcr(theta, alpha, seed=404)
    assert proportions.mean() <= alpha + SIGMAS * mc_se(proportions), proportions.mean()
    # the unadjusted intervals of the same selections do not: the check can fail
    naive = simulated_fcr(theta, alpha, seed=404, adjusted=False)
    assert naive.mean() > alpha + SIGMAS * mc_se(naive), naive.mean()


def test_fcr_is_exactly_alpha_when_every_parameter_is_0():
    # every selected interval then misses 0, so the FCR is BH's chance of any selection:
    # Simes' level, alpha
    alpha = 0.1
    proportions = simulated_fcr(np.zeros(M), alpha, seed=505)
    assert abs(proportions.mean() - alpha) <= SIGMAS * mc_se(proportions), proportions.mean()


def test_fcr_alpha_is_r_alpha_over_m_with_r_at_least_1():
    assert fcr_alpha(5, 20, 0.1) == pytest.approx(0.025, rel=1e-15)
    assert fcr_alpha(20, 20, 0.1) == pytest.approx(0.1, rel=1e-15)
    assert fcr_alpha(0, 20, 0.1) == fcr_alpha(1, 20, 0.1) == pytest.approx(0.005, rel=1e-15)
    assert fcr_alpha(np.int64(3), 10, 0.05) == pytest.approx(0.015, rel=1e-15)


@pytest.mark.parametrize("args, word", [((2.0, 3, 0.1), "n_selected"), ((4, 3, 0.1), "n_selected"),
                                        ((-1, 3, 0.1), "n_selected"), ((1, 0, 0.1), "`m`"),
                                        ((1, 3, 0.0), "alpha"), ((1, 3, 1.0), "alpha"),
                                        ((True, 3, 0.1), "n_selected")])
def test_fcr_alpha_refuses_bad_arguments(args, word):
    with pytest.raises(ValueError, match=word):
        fcr_alpha(*args)


# --- partial conjunctions -------------------------------------------------------------------


def brute_partial_conjunction(p, u, combination):
    """Benjamini & Heller's formulas, written out."""
    s = sorted(1.0 if math.isnan(v) else float(v) for v in p)
    k = len(s)
    if combination == "bonferroni":
        return min(1.0, (k - u + 1) * s[u - 1])
    return min(1.0, min((k - u + 1) / i * s[u - 2 + i] for i in range(1, k - u + 2)))


def small_arrays():
    rng = np.random.default_rng(606)
    for _ in range(200):
        k = int(rng.integers(1, 8))
        p = rng.beta(0.4, 1.0, size=k)
        kind = rng.integers(4)
        if kind == 1:
            p = np.round(p, 1)  # ties
        elif kind == 2:
            p[rng.integers(k)] = rng.choice([0.0, 1.0])
        elif kind == 3:
            p[rng.integers(k)] = np.nan
        yield p


@pytest.mark.parametrize("combination", COMBINATIONS)
def test_partial_conjunction_equals_the_formulas(combination):
    for p in small_arrays():
        for u in range(1, len(p) + 1):
            got = partial_conjunction(p, u, combination=combination)
            expected = brute_partial_conjunction(p, u, combination)
            assert got == pytest.approx(expected, rel=1e-12, abs=0), (p, u)
            assert got == partial_conjunction(p[::-1], u, combination=combination)


def test_partial_conjunction_at_1_is_simes_and_at_k_the_largest_p():
    for p in small_arrays():
        k = len(p)
        s = np.sort(np.where(np.isnan(p), 1.0, p))
        simes = min(1.0, float((k * s / np.arange(1, k + 1)).min()))
        assert partial_conjunction(p, 1) == pytest.approx(simes, rel=1e-12, abs=0)
        # Simes' global p-value is the smallest BH q-value (statsmodels)
        bh = multipletests(s, method="fdr_bh")[1].min()
        assert partial_conjunction(p, 1) == pytest.approx(bh, rel=1e-12, abs=0)
        assert partial_conjunction(p, 1, combination="bonferroni") == pytest.approx(
            min(1.0, k * s[0]), rel=1e-12, abs=0)
        for combination in COMBINATIONS:
            assert partial_conjunction(p, k, combination=combination) == s[-1]


def test_a_nan_p_value_is_no_evidence():
    p = np.array([0.001, 0.002, np.nan])
    for combination in COMBINATIONS:
        for u in (1, 2, 3):
            assert partial_conjunction(p, u, combination=combination) == partial_conjunction(
                np.array([0.001, 0.002, 1.0]), u, combination=combination)
    assert partial_conjunction(p, 3) == 1.0


def test_partial_conjunction_refuses_bad_u_and_combination():
    p = np.array([0.01, 0.2, 0.3])
    for u in (0, 4, 1.5, True):
        with pytest.raises(ValueError, match="`u`"):
            partial_conjunction(p, u)
    for call in (lambda: partial_conjunction(p, 1, combination="fisher"),
                 lambda: partial_conjunction_count(p, 0.05, combination="fisher")):
        with pytest.raises(ValueError, match="`combination`"):
            call()
    with pytest.raises(ValueError, match="`alpha`"):
        partial_conjunction_count(p, 0.0)


@pytest.mark.parametrize("combination", COMBINATIONS)
def test_the_count_tests_the_nested_nulls_in_order(combination):
    for alpha in (0.05, 0.1, 0.2):
        for p in small_arrays():
            k = len(p)
            raw = [brute_partial_conjunction(p, u, combination) for u in range(1, k + 1)]
            expected = np.maximum.accumulate(raw)
            u_star, pmono = partial_conjunction_count(p, alpha, combination=combination)
            np.testing.assert_allclose(pmono, expected, rtol=1e-12, atol=0)
            stop = next((u for u in range(1, k + 1) if not expected[u - 1] < alpha), k + 1)
            assert u_star == stop - 1


def test_the_count_is_monotonised_and_strict():
    # Bonferroni's (K - u + 1) p_(u) falls with u here: 0.12, 0.08, 0.04; monotone, none
    u_star, pmono = partial_conjunction_count(np.full(3, 0.04), 0.05, combination="bonferroni")
    assert u_star == 0 and np.allclose(pmono, 0.12)
    # a p of exactly 0.05 does not reject at 95% (alpha 1 - 0.95 = 0.050000000000000044)
    u_star, pmono = partial_conjunction_count(np.array([0.01, 0.05]), 1 - 0.95)
    assert u_star == 1 and pmono.tolist() == pytest.approx([0.02, 0.05], rel=1e-12)
    assert partial_conjunction_count(np.array([0.05]), 1 - 0.95)[0] == 0
    assert partial_conjunction_count(np.array([0.0499999]), 1 - 0.95)[0] == 1
    assert partial_conjunction_count(np.array([]), 0.05)[0] == 0


@pytest.mark.parametrize("combination", COMBINATIONS)
def test_the_count_exceeds_the_true_count_at_most_alpha_of_the_time(combination):
    # K = 10: u - 1 = 3 huge effects and K - u + 1 = 7 nulls at the boundary
    k, u, alpha, sims = 10, 4, 0.05, 4_000
    rng = np.random.default_rng(707)
    z = rng.standard_normal((sims, k))
    z[:, : u - 1] += 20.0
    counts = np.array([partial_conjunction_count(p, alpha, combination=combination)[0]
                       for p in stats.norm.sf(z)])
    over = counts >= u
    rate = over.mean()
    assert rate <= alpha + SIGMAS * math.sqrt(alpha * (1 - alpha) / sims), rate
    assert (counts >= u - 1).all()  # the real effects are always counted
    # the rate is known exactly: P(p^{u/K} < alpha) over the 7 uniform nulls, which is
    # Simes' level alpha, or Bonferroni's 1 - (1 - alpha / 7)^7
    exact = alpha if combination == "simes" else 1 - (1 - alpha / (k - u + 1)) ** (k - u + 1)
    assert abs(rate - exact) <= SIGMAS * math.sqrt(exact * (1 - exact) / sims), (rate, exact)


@pytest.mark.parametrize("correction", ["bh", "by"])
def test_fdr_family_counts_the_finite_p_values_only(correction):
    # a comparison that could not be tested (NaN) is not in the family: m, BY's factor
    # and the FCR level all count the finite ones, as the q-values do
    p = np.array([0.001, 0.01, np.nan, 0.03, 0.4])
    q, miss = fdr.fdr_family(p, 0.05, correction)
    finite = p[~np.isnan(p)]
    method = {"bh": "fdr_bh", "by": "fdr_by"}[correction]
    np.testing.assert_allclose(q[~np.isnan(p)], multipletests(finite, method=method)[1],
                               rtol=0, atol=1e-12)
    assert np.isnan(q[2])
    m, selected = 4, int(np.sum(q[~np.isnan(p)] < 0.05))
    factor = 1.0 if correction == "bh" else sum(1 / k for k in range(1, m + 1))
    assert miss == pytest.approx(max(selected, 1) * 0.05 / factor / m, abs=1e-15)
    # every discovery's p lies below the miscoverage, every other p above it
    assert all((pv < miss) == (qv < 0.05) for pv, qv in zip(finite, q[~np.isnan(p)]))

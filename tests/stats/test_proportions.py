"""Exact McNemar, Wilson, the design effect and the paired score intervals.

Three tiers: external references (statsmodels' ``mcnemar`` and ``proportion_confint``,
scipy's ``binomtest`` and ``binom``, a cluster-robust regression in statsmodels, and the
published worked examples of Newcombe (1998) and Fagerland, Lydersen & Laake (2017)),
each with an explicit tolerance; oracles that write the definitions out (exact binomial
sums in fractions, the mid-p as the probability of a more extreme outcome plus half that
of an equally extreme one, the design effect by a loop over groups, Tango's statistic at
the interval's ends); and the exact coverage of both paired intervals, summed over every
table of n = 20 and 50 pairs (no Monte Carlo error).
"""

from __future__ import annotations

import itertools
import math
import time
from fractions import Fraction
from statistics import NormalDist

import numpy as np
import pytest
from scipy import stats
from statsmodels.regression.linear_model import OLS
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.proportion import proportion_confint

from pairboot.options import ALTERNATIVES as OPTION_ALTERNATIVES
from pairboot.stats.proportions import (
    ALTERNATIVES,
    Table2x2,
    design_effect,
    discordance,
    mcnemar_exact,
    paired_score_interval,
    paired_score_p_value,
    tango_interval,
    wilson_interval,
)

LEVELS = (0.5, 0.8, 0.9, 0.95, 0.99, 0.999)


def exact_tail(k: int, n: int) -> Fraction:
    """``P(X <= k)`` for ``X ~ Binomial(n, 1/2)``, in exact arithmetic."""
    return Fraction(sum(math.comb(n, i) for i in range(k + 1)), 2**n)


def exact_point(k: int, n: int) -> Fraction:
    return Fraction(math.comb(n, k), 2**n)


def sm_mcnemar(t: Table2x2) -> float:
    return float(mcnemar([[t.both, t.only_a], [t.only_b, t.neither]], exact=True).pvalue)


# --- the table ------------------------------------------------------------------------------


def test_discordance_counts_every_cell():
    rng = np.random.default_rng(1)
    a, b = rng.integers(0, 2, 500), rng.integers(0, 2, 500)
    t = discordance(a, b)
    pairs = list(zip(a.tolist(), b.tolist()))
    assert (t.both, t.only_a, t.only_b, t.neither) == (
        pairs.count((1, 1)), pairs.count((1, 0)), pairs.count((0, 1)), pairs.count((0, 0)))
    assert t.n == 500 and t.discordant == t.only_a + t.only_b
    assert discordance(a.astype(bool), b.astype(float)) == t
    assert discordance([], []) == Table2x2(0, 0, 0, 0)


@pytest.mark.parametrize("a, b, match", [
    ([0, 1, 2], [0, 1, 1], r"`a` must hold only 0 and 1.*2 at index 2"),
    ([0, 1, 1], [0, 0.5, 1], r"`b` must hold only 0 and 1.*0.5 at index 1"),
    ([0, 1, 1], [np.nan, 1, 1], r"`b` must hold only 0 and 1.*nan at index 0"),
    ([0, 1], [0, 1, 1], r"same length"),
    ([[0, 1]], [[0, 1]], r"`a` must be 1-D"),
    (["1", "0"], [1, 0], r"`a` must hold only 0 and 1"),
])
def test_discordance_refuses_other_scores(a, b, match):
    with pytest.raises(ValueError, match=match):
        discordance(a, b)


def test_table_refuses_non_counts():
    assert Table2x2(np.int64(2), 1, 0, 3).both == 2
    assert type(Table2x2(np.int64(2), 1, 0, 3).both) is int  # no int64 overflow in products
    for bad in (-1, 1.0, True, "3"):
        with pytest.raises(ValueError, match="`only_b` must be a non-negative integer"):
            Table2x2(1, 1, bad, 1)


# --- McNemar --------------------------------------------------------------------------------


def mcnemar_tables():
    """Tables with 0 discordant pairs, ties, one empty discordant cell, and up to 10^5."""
    yield Table2x2(10, 0, 0, 5)
    yield Table2x2(0, 0, 0, 1)
    rng = np.random.default_rng(7)
    for n in (1, 2, 3, 10, 25, 101, 1_000, 10_000, 100_000):
        for k in {0, 1, n // 2, (n + 1) // 2, n - 1, n}:
            if 0 <= k <= n:
                yield Table2x2(3, k, n - k, 4)
        sd = math.sqrt(n) / 2
        for offset in (1.0, 2.0, 3.0, 5.0, 8.0, 12.0):
            k = int(n / 2 - offset * sd)
            if 0 <= k <= n:
                yield Table2x2(int(rng.integers(0, 50)), k, n - k, 0)
                yield Table2x2(0, n - k, k, int(rng.integers(0, 50)))


@pytest.mark.parametrize("t", list(mcnemar_tables()), ids=str)
def test_mcnemar_two_sided_equals_statsmodels(t):
    # statsmodels: min(1, 2 * binom.cdf(min(b, c), b + c, 0.5)); scipy's cdf is good to
    # about 1e-13 relative here (ours is to 1e-15: see the exact tests below)
    np.testing.assert_allclose(mcnemar_exact(t.only_a, t.only_b), sm_mcnemar(t),
                               rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_mcnemar_one_sided_equals_binomtest(alternative):
    for t in mcnemar_tables():
        if t.discordant == 0:  # binomtest needs n >= 1
            assert mcnemar_exact(t.only_a, t.only_b, alternative=alternative) == 1.0
            continue
        expected = stats.binomtest(t.only_b, t.discordant, 0.5, alternative=alternative).pvalue
        np.testing.assert_allclose(
            mcnemar_exact(t.only_a, t.only_b, alternative=alternative), expected,
            rtol=1e-12, atol=1e-300, err_msg=str(t))


def test_mcnemar_is_exact_against_fractions():
    """Every table of up to 60 discordant pairs (and some of 400 and 1,000), the three
    alternatives, against exact rational sums: correctly rounded (to 1e-15 relative)."""
    cases = [(a, n - a) for n in range(0, 61) for a in range(n + 1)]
    cases += [(a, 400 - a) for a in range(0, 201, 7)] + [(a, 1000 - a) for a in (0, 5, 300, 480)]
    for only_a, only_b in cases:
        n = only_a + only_b
        if n == 0:
            continue
        k = min(only_a, only_b)
        two = min(Fraction(1), 2 * exact_tail(k, n))
        greater = exact_tail(only_a, n)  # P(X >= only_b) = P(X <= only_a)
        less = exact_tail(only_b, n)
        got = (mcnemar_exact(only_a, only_b),
               mcnemar_exact(only_a, only_b, alternative="greater"),
               mcnemar_exact(only_a, only_b, alternative="less"))
        np.testing.assert_allclose(got, [float(two), float(greater), float(less)],
                                   rtol=1e-15, atol=0, err_msg=str((only_a, only_b)))


def exact_tail_from(k: int, n: int) -> float:
    """``P(X <= k)`` for ``X ~ Binomial(n, 1/2)``, in integers from ``comb(n, k)`` down,
    until the terms are below 1e-40 of the sum (a relative error far below a float's)."""
    term = total = math.comb(n, k)
    for i in range(k, 0, -1):
        term = term * i // (n - i + 1)
        total += term
        if term * 10**40 < total:
            break
    return total / (1 << n)


@pytest.mark.parametrize("n", [10_001, 23_456, pytest.param(100_000, marks=pytest.mark.slow)])
def test_mcnemar_beyond_the_integer_sums_is_exact_to_its_exponent(n):
    """Past 10,000 discordant pairs the tail is summed in floats from Loader's formula:
    against integer sums its relative error is below ``2e-15 (1 + |log P|)`` -- under 1e-13
    for any P above 1e-40 and under 1e-12 down to 1e-300."""
    sd = math.sqrt(n) / 2
    for c in (0.0, 0.3, 1.0, 2.5, 5.0, 9.0, 14.0, 18.0, 24.0, 30.0):
        k = int(n / 2 - c * sd)
        expected = exact_tail_from(k, n)
        if expected < 1e-300:
            continue
        got = mcnemar_exact(k, n - k, alternative="greater")
        bound = 2e-15 * (1 - math.log(expected))
        assert abs(got / expected - 1) <= min(bound, 1e-12), (n, k, got, expected)


def test_mid_p_against_its_definition():
    """The mid-p written out over the outcomes: two-sided, the probability of an outcome
    farther from n/2 than the observed plus half that of one as far; one-sided, the same
    with "farther" on one side.  Equal to ``2 (P(X <= k) - P(X = k) / 2)`` off the tie."""
    for n in range(1, 41):
        pmf = [exact_point(j, n) for j in range(n + 1)]
        for only_b in range(n + 1):
            only_a = n - only_b
            far = abs(2 * only_b - n)
            two = (sum(p for j, p in enumerate(pmf) if abs(2 * j - n) > far)
                   + sum(p for j, p in enumerate(pmf) if abs(2 * j - n) == far) / 2)
            greater = sum(pmf[only_b + 1:]) + pmf[only_b] / 2
            less = sum(pmf[:only_b]) + pmf[only_b] / 2
            got = [mcnemar_exact(only_a, only_b, alternative=alt, mid_p=True)
                   for alt in ALTERNATIVES]
            np.testing.assert_allclose(got, [float(two), float(greater), float(less)],
                                       rtol=1e-14, atol=0, err_msg=str((only_a, only_b)))
            if only_a != only_b:
                k = min(only_a, only_b)
                assert got[0] == pytest.approx(
                    float(2 * (exact_tail(k, n) - pmf[k] / 2)), rel=1e-14)
            else:
                assert got[0] == pytest.approx(float(1 - pmf[only_b] / 2), rel=1e-14)


def test_mcnemar_published_values():
    """Cavo et al. (2012) in Fagerland, Lydersen & Laake (2017), chapter 8, to the 6
    decimals printed (as the R package contingencytables checks them): exact conditional
    P = 0.052479, mid-P = 0.034690 (16 pairs only A, 6 only B)."""
    assert mcnemar_exact(16, 6) == pytest.approx(0.052479, abs=5e-7)
    assert mcnemar_exact(16, 6, mid_p=True) == pytest.approx(0.034690, abs=5e-7)


def test_alternatives_are_the_options():
    """One declaration per option: the module keeps its own copy (it imports only numpy and
    the standard library), equal to the one the options declare."""
    assert ALTERNATIVES == OPTION_ALTERNATIVES


def test_mcnemar_sides_and_edges():
    for only_a, only_b in [(0, 5), (3, 9), (40, 12), (7, 7)]:
        for mid in (False, True):
            assert (mcnemar_exact(only_a, only_b, alternative="greater", mid_p=mid)
                    == mcnemar_exact(only_b, only_a, alternative="less", mid_p=mid))
            assert (mcnemar_exact(only_a, only_b, mid_p=mid)
                    == mcnemar_exact(only_b, only_a, mid_p=mid))
            assert mcnemar_exact(only_a, only_b, mid_p=True) <= mcnemar_exact(only_a, only_b)
    assert mcnemar_exact(0, 0, mid_p=True) == 1.0
    assert mcnemar_exact(0, 0, alternative="less", mid_p=True) == 1.0
    assert mcnemar_exact(0, 10) == 2 / 1024
    assert mcnemar_exact(0, 10, alternative="less") == 1.0
    with pytest.raises(ValueError, match="`alternative` must be one of"):
        mcnemar_exact(1, 2, alternative="larger")
    with pytest.raises(ValueError, match="`only_a` must be a non-negative integer"):
        mcnemar_exact(1.5, 2)


def test_mcnemar_at_ten_million_pairs():
    """Speed and sanity at n = 10^7 (no timing asserted; it takes milliseconds): ties give
    1, the tails are monotone, and the answer is scipy's to 1e-11."""
    n = 10_000_000
    start = time.perf_counter()
    assert mcnemar_exact(n // 2, n // 2) == 1.0
    ks = [n // 2 - int(c * math.sqrt(n) / 2) for c in (0.5, 2, 4, 6)]
    ps = [mcnemar_exact(k, n - k) for k in ks]
    elapsed = time.perf_counter() - start
    assert all(1 > p > q > 0 for p, q in zip(ps, ps[1:]))
    np.testing.assert_allclose(ps, [min(1.0, 2 * stats.binom.cdf(k, n, 0.5)) for k in ks],
                               rtol=1e-11)
    print(f"mcnemar_exact at n = 1e7: {elapsed / 5 * 1e3:.1f} ms a call")


# --- Wilson ---------------------------------------------------------------------------------


def wilson_cases():
    for n in (1, 2, 3, 7, 20, 100, 1_001, 10**6):
        for x in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            for level in LEVELS:
                yield x, n, level


def test_wilson_equals_statsmodels():
    for x, n, level in wilson_cases():
        expected = proportion_confint(x, n, alpha=1 - level, method="wilson")
        np.testing.assert_allclose(wilson_interval(x, n, level), expected,
                                   rtol=1e-12, atol=1e-15, err_msg=str((x, n, level)))


def test_wilson_never_collapses_at_the_ends():
    for n in range(1, 301):
        for level in (0.9, 0.95, 0.99):
            low, high = wilson_interval(n, n, level)
            assert high == 1.0 and low < 1.0
            low, high = wilson_interval(0, n, level)
            assert low == 0.0 and high > 0.0
    assert wilson_interval(20, 20)[0] == pytest.approx(20 / (20 + NormalDist().inv_cdf(0.975)**2))


def test_wilson_design_effect_is_the_effective_sample_size():
    for x, n, level in wilson_cases():
        for deff in (1.0, 1.7, 4.0, 0.8):
            expected = proportion_confint(x / deff, n / deff, alpha=1 - level,
                                          method="wilson")
            np.testing.assert_allclose(wilson_interval(x, n, level, design_effect=deff),
                                       expected, rtol=1e-12, atol=1e-15,
                                       err_msg=str((x, n, level, deff)))
    # a larger design effect never gives a shorter interval
    last = wilson_interval(30, 80)
    for deff in (1.5, 2.0, 5.0, 20.0):
        low, high = wilson_interval(30, 80, design_effect=deff)
        assert low < last[0] and high > last[1]
        last = (low, high)
    assert wilson_interval(80, 80, design_effect=3.0)[1] == 1.0


@pytest.mark.parametrize("args, kwargs, match", [
    ((5, 4), {}, r"`successes` must be at most `n`=4, got 5"),
    ((0, 0), {}, r"`n` must be a positive integer"),
    ((1, 4, 1.0), {}, r"`confidence_level` must be between 0 and 1, got 1.0"),
    ((1, 4, "high"), {}, r"`confidence_level` must be a number"),
    ((1, 4), {"design_effect": 0.0}, r"`design_effect` must be a positive number"),
    ((1, 4), {"design_effect": math.nan}, r"`design_effect` must be a positive number"),
    ((1.5, 4), {}, r"`successes` must be a non-negative integer"),
])
def test_wilson_refuses(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        wilson_interval(*args, **kwargs)


# --- the design effect ----------------------------------------------------------------------


def design_effect_by_loop(values, groups) -> float:
    """The ratio of the CR1 cluster-robust variance of the mean to s^2 / n, one group at
    a time."""
    values = [float(v) for v in values]
    n = len(values)
    mean = sum(values) / n
    by_group: dict = {}
    for v, g in zip(values, groups):
        by_group[g] = by_group.get(g, 0.0) + (v - mean)
    n_groups = len(by_group)
    var_cluster = n_groups / (n_groups - 1) * sum(s * s for s in by_group.values()) / n**2
    var_srs = sum((v - mean) ** 2 for v in values) / (n - 1) / n
    return var_cluster / var_srs


def clustered(rng, sizes, icc):
    """0/1 values with a latent-normal random intercept per group (intra-class correlation
    ``icc`` on the latent scale), and their group labels."""
    groups = np.repeat(np.arange(len(sizes)), sizes)
    latent = (math.sqrt(icc) * rng.standard_normal(len(sizes))[groups]
              + math.sqrt(1 - icc) * rng.standard_normal(len(groups)))
    return (latent > 0.3).astype(float), groups


def test_design_effect_against_a_loop_and_statsmodels():
    rng = np.random.default_rng(11)
    for icc in (0.0, 0.2, 0.6):
        sizes = rng.integers(1, 12, size=60)  # unequal sizes, some singletons
        y, g = clustered(rng, sizes, icc)
        labels = np.array([f"task-{i}" for i in g])  # any labels, not only integers
        got = design_effect(y, labels)
        assert got == pytest.approx(design_effect_by_loop(y, labels.tolist()), rel=1e-12)
        # statsmodels' intercept-only regression: (cluster-robust se / ordinary se)^2
        x = np.ones((len(y), 1))
        robust = OLS(y, x).fit(cov_type="cluster", cov_kwds={"groups": g}).bse[0]
        plain = OLS(y, x).fit().bse[0]
        assert got == pytest.approx((robust / plain) ** 2, rel=1e-10)
        values = rng.normal(size=len(g))  # not only 0/1
        assert design_effect(values, g) == pytest.approx(design_effect_by_loop(values, g),
                                                         rel=1e-12)


def test_design_effect_independent_and_clustered():
    rng = np.random.default_rng(12)
    sizes = np.full(3000, 5)
    y, g = clustered(rng, sizes, 0.0)
    assert design_effect(y, g) == pytest.approx(1.0, abs=0.12)  # its sd is about sqrt(2/G)
    y, g = clustered(rng, np.full(2000, 10), 0.5)
    deff = design_effect(y, g)
    # Kish's 1 + (m - 1) ICC with the ICC of the 0/1 values (one-way ANOVA estimator)
    groups = y.reshape(2000, 10)
    msb = 10 * groups.mean(axis=1).var(ddof=1)
    msw = groups.var(axis=1, ddof=1).mean()
    icc = (msb - msw) / (msb + 9 * msw)
    assert deff > 2.0
    assert deff == pytest.approx(1 + 9 * icc, rel=0.01)  # equal sizes: the two forms agree
    assert design_effect(y, np.arange(len(y))) == pytest.approx(1.0, rel=1e-12)  # singletons


def test_design_effect_edges():
    assert design_effect([1, 1, 1, 1], [0, 0, 1, 1]) == 1.0  # no variance to inflate
    assert design_effect([1, 0, 1, 0], [0, 0, 1, 1]) == 0.0  # each group is balanced
    assert design_effect([1, 1, 1, 0, 0, 0], list("aaabbb")) == pytest.approx(5.0)
    with pytest.raises(ValueError, match="`groups` must have at least 2 distinct labels"):
        design_effect([0, 1, 1], [7, 7, 7])
    with pytest.raises(ValueError, match="`groups` must have one label per value"):
        design_effect([0, 1, 1], [1, 2])
    with pytest.raises(ValueError, match=r"`values` must be finite, got nan at index 1"):
        design_effect([0, np.nan, 1], [1, 2, 2])


# --- the paired difference ------------------------------------------------------------------

# Newcombe (1998), Statistics in Medicine 17:2635-2650, Table II, method 10, as transcribed
# (4 decimals) in the tests of the R package propint (m-Py/propint,
# tests/testthat/test_Two_Dependent_Props_CI.R).  Newcombe's (e, f, g, h) are (both,
# only B, only A, neither): his difference (f - g) / n is p_B - p_A.
NEWCOMBE_TABLE_II = [
    ((36, 12, 2, 0), (0.0569, 0.3404)),
    ((18, 12, 2, 18), (0.0562, 0.3290)),
    ((53, 0, 0, 1), (-0.0729, 0.0729)),
    ((0, 30, 0, 0), (0.8395, 1.0)),
]

# Fagerland, Lydersen & Laake (2017), Statistical Analysis of Contingency Tables, chapter 8,
# as the R package contingencytables checks them (ocbe-uio/contingencytables,
# tests/testthat/test-ch8.R, 4 decimals).  Their n12 is only B, n21 only A: their
# (n12 - n21) / N is p_B - p_A.  Cavo et al. (2012): n11 = 59, n12 = 6, n21 = 16, n22 = 80.
CAVO = Table2x2(both=59, only_a=16, only_b=6, neither=80)
FAGERLAND_NEWCOMBE = [(CAVO, (-0.1186, -0.0046)), (Table2x2(1, 0, 0, 1), (-0.5734, 0.5734))]
FAGERLAND_TANGO = [
    (CAVO, (-0.1240, -0.0054)),
    (Table2x2(0, 0, 3, 0), (-0.1230, 1.0)),
    (Table2x2(0, 3, 0, 0), (-1.0, 0.1230)),
]


def from_newcombe(e, f, g, h) -> Table2x2:
    return Table2x2(both=e, only_a=g, only_b=f, neither=h)


@pytest.mark.parametrize("cells, expected", NEWCOMBE_TABLE_II, ids=str)
def test_newcombe_published_table_ii(cells, expected):
    np.testing.assert_allclose(paired_score_interval(from_newcombe(*cells)), expected,
                               atol=5e-5, rtol=0)


@pytest.mark.parametrize("table, expected", FAGERLAND_NEWCOMBE, ids=str)
def test_newcombe_published_fagerland(table, expected):
    np.testing.assert_allclose(paired_score_interval(table), expected, atol=5e-5, rtol=0)


@pytest.mark.parametrize("table, expected", FAGERLAND_TANGO, ids=str)
def test_tango_published_fagerland(table, expected):
    np.testing.assert_allclose(tango_interval(table), expected, atol=5e-5, rtol=0)


def test_tango_score_p_value_published():
    """Fagerland et al. (2017): the McNemar asymptotic test on Cavo's table, P = 0.033006,
    Z = -2.132 (A - B in their orientation): Tango's score statistic at 0."""
    assert paired_score_p_value(CAVO) == pytest.approx(0.033006, abs=5e-7)


def tango_statistic(t: Table2x2, delta: float) -> float:
    """Tango's statistic from its constrained maximum likelihood, by maximising the
    profile log-likelihood of q = P(only A) numerically (not from the closed-form root)."""
    from scipy.optimize import minimize_scalar

    n, b, c = t.n, t.only_b, t.only_a
    lo, hi = max(0.0, -delta), (1.0 - delta) / 2

    def nll(q):
        terms = [(b, q + delta), (c, q), (t.both + t.neither, 1 - 2 * q - delta)]
        return -sum(k * math.log(p) for k, p in terms if k)

    eps = 1e-13
    q = minimize_scalar(nll, bounds=(lo + eps, hi - eps), method="bounded",
                        options={"xatol": 1e-14}).x
    return (b - c - n * delta) / math.sqrt(n * (2 * q + delta * (1 - delta)))


def test_tango_ends_solve_the_score_equation():
    z = NormalDist().inv_cdf(0.975)
    for t in [CAVO, Table2x2(10, 3, 9, 8), Table2x2(0, 4, 1, 0), Table2x2(100, 40, 60, 300),
              Table2x2(5, 0, 7, 2)]:
        low, high = tango_interval(t)
        if low > -1:
            assert tango_statistic(t, low) == pytest.approx(z, abs=1e-6)
        if high < 1:
            assert tango_statistic(t, high) == pytest.approx(-z, abs=1e-6)


def all_tables(n):
    for both in range(n + 1):
        for only_a in range(n + 1 - both):
            for only_b in range(n + 1 - both - only_a):
                yield Table2x2(both, only_a, only_b, n - both - only_a - only_b)


def test_paired_intervals_are_sound():
    """Inside [-1, 1], around the estimate, of positive width, nested in the level, and
    mirrored when A and B swap; both agree with each other on large tables."""
    for t in itertools.chain(all_tables(6), [CAVO, Table2x2(0, 0, 0, 9)]):
        d = (t.only_b - t.only_a) / t.n
        mirror = Table2x2(t.both, t.only_b, t.only_a, t.neither)
        for interval in (paired_score_interval, tango_interval):
            low, high = interval(t)
            assert -1 <= low <= d <= high <= 1 and high > low, (t, interval)
            m_low, m_high = interval(mirror)
            assert (m_low, m_high) == pytest.approx((-high, -low), abs=1e-12)
            wide = interval(t, 0.99)
            assert wide[0] <= low and wide[1] >= high
    for t in [Table2x2(3000, 400, 520, 1080), Table2x2(8000, 150, 100, 1750),
              Table2x2(40_000, 2_500, 2_900, 54_600)]:
        newcombe, tango = paired_score_interval(t), tango_interval(t)
        np.testing.assert_allclose(newcombe, tango, atol=0.002 * (tango[1] - tango[0]) + 1e-4)


def test_p_value_matches_the_interval_on_a_grid():
    """``p < alpha`` exactly when Tango's ``1 - alpha`` interval excludes 0 (two-sided), and
    when its ``1 - 2 alpha`` interval's lower (upper) end is above (below) 0 for "greater"
    ("less"); checked at fixed levels and just either side of each p-value."""
    tables = [Table2x2(1, a, b, 2) for a in range(13) for b in range(13)]
    tables += [Table2x2(0, a, b, 0) for a in range(6) for b in range(6) if a + b]
    tables += [Table2x2(50, a, b, 150) for a in (0, 3, 20, 41) for b in (1, 9, 30, 44)]
    for t in tables:
        p = paired_score_p_value(t)
        for alpha in (0.01, 0.05, 0.1, 0.2):
            low, high = tango_interval(t, 1 - alpha)
            assert (p < alpha) == (low > 0 or high < 0), (t, alpha)
            for side, end in (("greater", 0), ("less", 1)):
                one = paired_score_p_value(t, side)
                bound = tango_interval(t, 1 - 2 * alpha)[end]
                assert (one < alpha) == (bound > 0 if side == "greater" else bound < 0)
        if 1e-8 < p < 0.9:
            for factor, excludes in ((1 + 1e-7, True), (1 - 1e-7, False)):
                low, high = tango_interval(t, 1 - p * factor)
                assert (low > 0 or high < 0) == excludes, (t, factor)


def test_p_value_is_the_asymptotic_mcnemar_test():
    """statsmodels' ``mcnemar(exact=False, correction=False)``: chi-square on
    ``(b - c)^2 / (b + c)``, the square of Tango's statistic at 0."""
    for t in [CAVO, Table2x2(3, 1, 9, 0), Table2x2(0, 40, 12, 3), Table2x2(2, 5, 5, 2)]:
        expected = mcnemar([[t.both, t.only_a], [t.only_b, t.neither]], exact=False,
                           correction=False).pvalue
        assert paired_score_p_value(t) == pytest.approx(expected, rel=1e-12)
        greater = paired_score_p_value(t, "greater")
        assert greater + paired_score_p_value(t, "less") == pytest.approx(1.0)
        assert (greater < 0.5) == (t.only_b > t.only_a)
    assert paired_score_p_value(Table2x2(5, 0, 0, 5), "less") == 1.0


def test_paired_functions_refuse():
    for fn in (paired_score_interval, tango_interval, paired_score_p_value):
        with pytest.raises(ValueError, match="`table` must be a Table2x2"):
            fn((1, 2, 3, 4))
        with pytest.raises(ValueError, match="`table` must have at least one item"):
            fn(Table2x2(0, 0, 0, 0))
    with pytest.raises(ValueError, match="`confidence_level` must be between 0 and 1"):
        tango_interval(CAVO, 95)
    with pytest.raises(ValueError, match="`alternative` must be one of"):
        paired_score_p_value(CAVO, "two_sided")


# --- coverage -------------------------------------------------------------------------------


def exact_coverage(n: int, points, intervals) -> list[float]:
    """The exact coverage of each interval (a dict table -> (low, high) over every table
    of n pairs) at each point of cell probabilities (both, only A, only B, neither): the
    multinomial probability of the tables whose interval holds ``p_B - p_A``."""
    coverage = []
    for probs in points:
        delta = probs[2] - probs[1]
        log_p = [math.log(p) for p in probs]
        covered = 0.0
        for t, (low, high) in intervals.items():
            cells = (t.both, t.only_a, t.only_b, t.neither)
            log_w = math.lgamma(n + 1) + sum(k * lp - math.lgamma(k + 1)
                                             for k, lp in zip(cells, log_p))
            covered += math.exp(log_w) * (low <= delta <= high)
        coverage.append(covered)
    return coverage


@pytest.mark.slow
@pytest.mark.parametrize("n", [20, 50])
def test_paired_intervals_cover(n):
    """Exact coverage at 95% over every table of n pairs, at five parameter points (high
    and low agreement, effects of 0 to 0.1): at least 0.94 at each, 0.945 on average, and
    not wildly conservative (below 0.99 on average)."""
    points = [(0.4, 0.1, 0.1, 0.4), (0.6, 0.05, 0.15, 0.2), (0.7, 0.1, 0.1, 0.1),
              (0.3, 0.2, 0.3, 0.2), (0.8, 0.02, 0.08, 0.1)]
    tables = list(all_tables(n))
    tango = {}  # Tango's interval depends on the discordant cells only
    for t in tables:
        if (t.only_a, t.only_b) not in tango:
            tango[t.only_a, t.only_b] = tango_interval(t)
    for intervals in ({t: paired_score_interval(t) for t in tables},
                      {t: tango[t.only_a, t.only_b] for t in tables}):
        coverage = exact_coverage(n, points, intervals)
        assert min(coverage) >= 0.94, coverage
        assert 0.945 <= np.mean(coverage) <= 0.99, coverage


# --- against a margin's boundary, and with a design effect --------------------------------


@pytest.mark.parametrize("t", [CAVO, Table2x2(10, 3, 9, 8), Table2x2(100, 40, 60, 300),
                               Table2x2(5, 0, 7, 2)], ids=str)
def test_p_value_at_a_null_is_tango_s_statistic_there_and_inverts_the_interval(t):
    """At ``null=delta`` the p-value is the normal tail of Tango's statistic at delta
    (the numerical maximum-likelihood oracle above); ``p < alpha`` exactly when delta is
    outside the ``1 - alpha`` interval (one-sided: the ``1 - 2 alpha`` interval's end)."""
    for delta in (-0.3, -0.05, 0.02, 0.1, 0.25):
        z = tango_statistic(t, delta)
        p = paired_score_p_value(t, null=delta)
        assert p == pytest.approx(math.erfc(abs(z) / math.sqrt(2)), rel=1e-6, abs=1e-12)
        greater = paired_score_p_value(t, "greater", null=delta)
        assert greater == pytest.approx(NormalDist().cdf(-z), rel=1e-6, abs=1e-12)
        assert greater + paired_score_p_value(t, "less", null=delta) == pytest.approx(1.0)
        for alpha in (0.01, 0.05, 0.2):
            low, high = tango_interval(t, 1 - alpha)
            assert (p < alpha) == (delta < low or delta > high), (delta, alpha)
            low, high = tango_interval(t, 1 - 2 * alpha)
            assert (greater < alpha) == (low > delta), (delta, alpha)
            less = paired_score_p_value(t, "less", null=delta)
            assert (less < alpha) == (high < delta), (delta, alpha)


def test_p_value_at_the_ends_of_the_range():
    """``null`` -1 or 1: rejected (p 0 one-sided) unless the estimate is that end."""
    t = Table2x2(10, 3, 9, 8)
    assert paired_score_p_value(t, "greater", null=-1.0) == 0.0
    assert paired_score_p_value(t, "less", null=1.0) == 0.0
    all_b = Table2x2(0, 0, 6, 0)  # (p_B - p_A = 1)
    assert paired_score_p_value(all_b, "less", null=1.0) == 0.5
    with pytest.raises(ValueError, match="`null` must be between -1 and 1"):
        paired_score_p_value(t, null=1.5)


@pytest.mark.parametrize("t", [CAVO, Table2x2(10, 3, 9, 8), Table2x2(0, 4, 1, 0)], ids=str)
@pytest.mark.parametrize("k", [2, 3, 7])
def test_a_design_effect_divides_the_table(t, k):
    """Tango's interval and test of a table whose counts are k times larger, with a design
    effect of k, are those of the table itself (Rao and Scott's adjustment), to rounding."""
    big = Table2x2(k * t.both, k * t.only_a, k * t.only_b, k * t.neither)
    np.testing.assert_allclose(tango_interval(big, 0.9, design_effect=k),
                               tango_interval(t, 0.9), rtol=0, atol=1e-12)
    for side in ALTERNATIVES:
        assert paired_score_p_value(big, side, null=-0.05, design_effect=k) == pytest.approx(
            paired_score_p_value(t, side, null=-0.05), rel=1e-12)
    # and a design effect above 1 widens the interval
    low, high = tango_interval(t, design_effect=1.5)
    plain = tango_interval(t)
    assert low <= plain[0] and high >= plain[1] and (low, high) != plain

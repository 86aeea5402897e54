"""compare_many(..., runs="samples", estimand="suite"): every row is compare()'s
fixed-suite interval, the corrections read those; max-t's critical value against the
normal law's own quantile (scipy), and the family-wise coverage of the suite's true
differences by simulation (slow)."""

from __future__ import annotations

import numpy as np
import pytest

import pairboot
from pairboot.comparisons.runs.suite_family import suite_covariance
from pairboot.errors import InputError

N = 70
T = 6


def tables(seed=3, shifts=(0.0, 0.06, 0.12)):
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 2, N)
    out = {}
    for name, d in zip("abc", shifts):
        out[name] = (rng.random((N, T)) < np.clip(p + d, 0, 1)[:, None]).astype(float)
    out["b"][5, 5] = np.nan  # (an item with five trials)
    return out


@pytest.mark.filterwarnings("ignore::pairboot.errors.SmallSampleWarning")  # (compare's)
def test_a_family_of_one_is_compares_suite_interval():
    t = tables()
    groups = np.arange(N) // 2
    strata = np.where(groups % 3 == 0, "x", "y")
    kw = dict(runs="samples", metric="pass^2", estimand="suite", strata=strata,
              groups=groups, hypothesis="non-inferiority", margin=0.02)
    ref = pairboot.compare(t["a"], t["b"], **kw)
    res = pairboot.compare_many({"a": t["a"], "b": t["b"]}, **kw)
    [row] = res.comparisons
    assert (row.estimate, row.standard_error, row.p_value) == (
        ref.estimate, ref.standard_error, ref.p_value)
    assert row.confidence_interval == ref.confidence_interval
    assert res.systems["a"] == ref.score_a and res.systems["b"] == ref.score_b
    assert res.estimand == "suite" and res.to_dict()["estimand"] == "suite"
    assert (res.n_items, res.n_groups, res.n_strata) == (N, N // 2, 2)


def test_bonferroni_and_holm_read_compares_intervals_and_p_values():
    t = tables()
    m = 3  # (all pairs)
    for correction in ("bonferroni", "holm"):
        res = pairboot.compare_many(t, runs="samples", metric="pass@2", estimand="suite",
                                    correction=correction)
        raw = []
        for row in res.comparisons:
            ref = pairboot.compare(t[row.a], t[row.b], runs="samples", metric="pass@2",
                                   estimand="suite", confidence_level=1 - 0.05 / m)
            np.testing.assert_allclose(row.confidence_interval, ref.confidence_interval,
                                       rtol=1e-13)
            raw.append(row.p_value)
        want = np.minimum(1.0, m * np.array(raw)) if correction == "bonferroni" else \
            pairboot.stats.multiple.holm(np.array(raw))
        np.testing.assert_allclose([r.p_adjusted for r in res.comparisons], want,
                                   rtol=1e-13)


def test_the_rows_correlate_through_the_systems_they_share():
    cov = suite_covariance([(0, 1), (0, 2), (1, 2)], [1.0, 2.0, 4.0])
    # Var(b - a) = 3, Var(c - a) = 5, Var(c - b) = 6; Cov(b - a, c - a) = Var(a) = 1,
    # Cov(b - a, c - b) = -Var(b) = -2, Cov(c - a, c - b) = Var(c) = 4
    np.testing.assert_array_equal(cov, [[3, 1, -2], [1, 5, 4], [-2, 4, 6]])


def test_max_t_critical_value_is_the_normal_laws_quantile():
    """c against scipy's bivariate normal: P(|Z1| <= c, |Z2| <= c) = 0.95, Z's
    correlation from the rows' shared baseline; the tolerance is 4 Monte Carlo standard
    errors of the quantile of 20,000 draws (its density at c is about 0.13: 0.012)."""
    stats = pytest.importorskip("scipy.stats")
    optimize = pytest.importorskip("scipy.optimize")
    t = tables()
    res = pairboot.compare_many(t, runs="samples", metric="pass^2", estimand="suite",
                                baseline="a", n_resamples=20_000, seed=1)
    (_, ab), (_, ac) = [(r.b, r.standard_error) for r in res.comparisons]
    va = res.systems["a"].standard_error ** 2
    rho = va / (ab * ac)
    law = stats.multivariate_normal(mean=[0, 0], cov=[[1, rho], [rho, 1]])

    def inside(c):
        return (law.cdf([c, c]) - law.cdf([-c, c]) - law.cdf([c, -c])
                + law.cdf([-c, -c]) - 0.95)

    c = optimize.brentq(inside, 1.5, 3.5, xtol=1e-6)
    assert abs(res.critical_value - c) < 0.05
    for row in res.comparisons:  # (the simultaneous interval: estimate +- c se)
        half = res.critical_value * row.standard_error
        np.testing.assert_allclose(row.confidence_interval,
                                   [row.estimate - half, row.estimate + half], rtol=1e-9)


@pytest.mark.parametrize("kw, param", [
    (dict(estimand="suite"), "estimand"),
    (dict(runs="samples", estimand="suite", test="permutation", metric="pass^2"), "test"),
    (dict(runs="samples", estimand="suite", method="bca"), "method"),
    (dict(runs="samples", estimand="suite", hypothesis="equivalence", margin=0.1),
     "correction"),
    (dict(runs="samples", estimand="suite", metric="pass^4"), "a"),  # (needs 8 trials)
])
def test_what_a_suite_family_cannot_take_is_one_line(kw, param):
    with pytest.raises(InputError) as err:
        pairboot.compare_many(tables(), **kw)
    assert err.value.param == param and "\n" not in str(err.value)


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::pairboot.errors.PairbootWarning")  # (uncorrected)
def test_max_t_covers_the_suites_true_differences_together():
    """Items fixed (their success rates), trials redrawn 400 times: the max-t
    simultaneous intervals of pass^2 cover every row's true suite difference (the mean
    over items of p_j^2 - p_i^2) in about 95% of the evaluations (Monte Carlo standard
    error 0.011; tolerance 3 of them), where the uncorrected intervals do not."""
    rng = np.random.default_rng(2026)
    n, trials = 60, 8
    p = np.clip(rng.beta(2, 2, n)[:, None] + np.array([0.0, 0.03, 0.06, 0.0]), 0, 1)
    truth = (p ** 2).mean(axis=0)
    hits = {"max-t": 0, "none": 0}
    for _ in range(400):
        scores = {f"s{j}": (rng.random((n, trials)) < p[:, j][:, None]).astype(float)
                  for j in range(4)}
        for correction in hits:
            res = pairboot.compare_many(scores, runs="samples", metric="pass^2",
                                        estimand="suite", correction=correction,
                                        n_resamples=2000, seed=int(rng.integers(2**31)))
            hits[correction] += all(
                row.confidence_interval.low <= truth[int(row.b[1])] - truth[int(row.a[1])]
                <= row.confidence_interval.high for row in res.comparisons)
    assert abs(hits["max-t"] / 400 - 0.95) < 3 * 0.011
    assert hits["none"] / 400 < 0.95 - 3 * 0.011

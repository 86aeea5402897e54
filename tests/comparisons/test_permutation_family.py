"""compare_many(..., test="permutation"): Westfall and Young's max-T permutation test.

References written here, not read off pairboot: a brute-force enumeration of every
relabelling of the M systems within every unit (itertools.product over the M!
permutations per unit: items, whole groups, pooled F1), the free stepdown of Westfall
and Young (1993, algorithm 2.8) on it, a naive randomised Tukey HSD on numpy's own
generator, and the two-system test of compare() for a family of two.
"""

from __future__ import annotations

import itertools
import json
import math
import re

import numpy as np
import pytest
from helpers import assert_one_line_error, run_in_process

import pairboot
from pairboot.errors import InputError
from pairboot.report import render_family

quiet = pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")

SIDES = ["two-sided", "greater", "less"]


# --- the oracle ----------------------------------------------------------------------------


def mean_metric(totals, n_items):
    """(N, M) the systems' means from their relabelled sums (N, M, 1)."""
    return totals[..., 0] / n_items


def f1_metric(totals, n_items):
    """(N, M) the systems' pooled F1 from their relabelled tp, fp, fn sums (N, M, 3)."""
    tp, fp, fn = totals[..., 0], totals[..., 1], totals[..., 2]
    return 2 * tp / (2 * tp + fp + fn)


def every_relabelling(scores, units, metric):
    """The observed contrasts' systems and every relabelling's metric values.

    ``scores`` the M systems' (n,) or (n, k) arrays, ``units`` lists of item rows that
    relabel together.  Returns (observed (M,), relabelled (N, M)) with N = (M!)**units:
    in each relabelling every unit gives system position j the rows of the system its
    own permutation puts there."""
    arrays = [np.asarray(s, dtype=float).reshape(len(s), -1) for s in scores]
    m, n_items = len(arrays), len(arrays[0])
    unit_sums = np.array([[a[rows].sum(axis=0) for a in arrays] for rows in units])
    observed = metric(np.array([a.sum(axis=0) for a in arrays])[None], n_items)[0]
    perms = np.array(list(itertools.permutations(range(m))))
    choice = np.array(list(itertools.product(range(len(perms)), repeat=len(units))))
    taken = perms[choice]  # (N, units, M): the system whose rows position j takes
    totals = unit_sums[np.arange(len(units))[None, :, None], taken].sum(axis=1)
    return observed, metric(totals, n_items)


def oriented(t, side):
    return {"greater": t, "less": -t}.get(side, np.abs(t))


def stepdown(t_obs, t_null, side, exact):
    """Raw and free-stepdown adjusted p-values of the rows (columns of ``t_null``)."""
    a, s = oriented(np.asarray(t_obs), side), oriented(np.asarray(t_null), side)
    tol = 1e-9 * max(np.abs(t_obs).max(), np.abs(t_null).max())
    n = len(s)

    def p(count):
        return count / n if exact else (1 + count) / (n + 1)

    raw = np.array([p(np.sum(s[:, k] >= a[k] - tol)) for k in range(len(a))])
    order = sorted(range(len(a)), key=lambda k: -a[k])
    adjusted, previous = np.empty(len(a)), 0.0
    for pos, k in enumerate(order):
        q = s[:, order[pos:]].max(axis=1)
        previous = max(previous, p(np.sum(q >= a[k] - tol)))
        adjusted[k] = previous
    return raw, adjusted


def family_oracle(result, scores, units, metric, side, exact=True):
    """The oracle's raw and adjusted p of ``result``'s rows (in its order)."""
    names = list(scores)
    observed, values = every_relabelling([scores[k] for k in names], units, metric)
    rows = [(names.index(c.a), names.index(c.b)) for c in result.comparisons]
    t_obs = np.array([observed[j] - observed[i] for i, j in rows])
    t_null = np.column_stack([values[:, j] - values[:, i] for i, j in rows])
    return (t_obs, t_null) + stepdown(t_obs, t_null, side, exact)


def check_against_oracle(result, scores, units, metric, side):
    t_obs, t_null, raw, adjusted = family_oracle(result, scores, units, metric, side)
    got_raw = [c.test_p_value for c in result.comparisons]
    got_adj = [c.test_p_adjusted for c in result.comparisons]
    np.testing.assert_allclose(got_raw, raw, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got_adj, adjusted, rtol=0, atol=1e-12)
    np.testing.assert_allclose([c.estimate for c in result.comparisons], t_obs,
                               rtol=0, atol=1e-12)
    t = result.test
    assert t.exact is True and t.alternative == side
    assert len(t.null_distribution) == len(t_null)
    assert t.p_value == pytest.approx(min(got_adj), abs=1e-12)
    assert t.p_value == pytest.approx(adjusted.min(), abs=1e-12)
    return raw, adjusted


def three_systems(seed, n, shift=(0.0, 0.12, 0.03), noise=0.1):
    rng = np.random.default_rng(seed)
    base = rng.random(n)
    return {name: base + rng.normal(d, noise, n) for name, d in zip("abc", shift)}


def items(n):
    return [[i] for i in range(n)]


# --- 1. exact enumeration = brute force ----------------------------------------------------


@quiet
@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("n", [5, 6])
@pytest.mark.parametrize("family", ["all pairs", "baseline"])
def test_exact_enumeration_is_brute_force(side, n, family):
    scores = three_systems(n, n)
    extra = {"baseline": "a"} if family == "baseline" else {}
    res = pairboot.compare_many(scores, test="permutation", alternative=side, seed=3,
                                n_resamples=200, **extra)
    assert len(res.comparisons) == (2 if family == "baseline" else 3)
    assert res.test.n == n and len(res.test.null_distribution) == 6 ** n
    raw, adjusted = check_against_oracle(res, scores, items(n), mean_metric, side)
    assert (adjusted >= raw - 1e-15).all()


def single_step(t_obs, t_null, side):
    a, s = oriented(np.asarray(t_obs), side), oriented(np.asarray(t_null), side)
    tol = 1e-9 * max(np.abs(t_obs).max(), np.abs(t_null).max())
    q = s.max(axis=1)
    return np.array([np.mean(q >= x - tol) for x in a])


@quiet
def test_the_adjusted_p_is_the_stepdown_not_the_single_step():
    # a data set where the two differ: the small row's max runs over itself alone
    scores = three_systems(6, 6)
    res = pairboot.compare_many(scores, test="permutation", seed=3, n_resamples=200)
    t_obs, t_null, raw, adjusted = family_oracle(res, scores, items(6), mean_metric,
                                                 "two-sided")
    single = single_step(t_obs, t_null, "two-sided")
    assert np.abs(single - adjusted).max() > 0.05  # (the oracle tells them apart)
    got = np.array([c.test_p_adjusted for c in res.comparisons])
    np.testing.assert_allclose(got, adjusted, rtol=0, atol=1e-12)
    # the largest |T| is adjusted against the whole family's maxima: equal there
    top = int(np.argmax(np.abs(t_obs)))
    assert got[top] == pytest.approx(single[top], abs=1e-12)


@quiet
@pytest.mark.parametrize("side", SIDES)
def test_exact_enumeration_of_ties_and_equal_systems(side):
    # two identical systems and 0/1 scores: many relabellings tie with the observed |T|
    rng = np.random.default_rng(11)
    a = rng.integers(0, 2, 6).astype(float)
    scores = {"a": a, "b": a.copy(), "c": rng.integers(0, 2, 6).astype(float)}
    res = pairboot.compare_many(scores, test="permutation", alternative=side, seed=1,
                                n_resamples=200)
    check_against_oracle(res, scores, items(6), mean_metric, side)


# --- 2. whole groups; a pooled metric ----------------------------------------------------


@quiet
@pytest.mark.parametrize("side", SIDES)
def test_whole_groups_relabel_together(side):
    rng = np.random.default_rng(21)
    groups = np.array([0, 0, 0, 1, 1, 2, 2, 2, 3, 4, 4, 4])  # 12 items in 5 groups
    order = rng.permutation(12)  # (a group's items need not be adjacent)
    groups = groups[order]
    scores = three_systems(22, 12, shift=(0.0, 0.15, 0.05), noise=0.08)
    res = pairboot.compare_many(scores, groups=groups, test="permutation",
                                alternative=side, seed=2, n_resamples=200)
    assert res.test.n == 5 and len(res.test.null_distribution) == 6 ** 5
    units = [list(np.flatnonzero(groups == g)) for g in range(5)]
    check_against_oracle(res, scores, units, mean_metric, side)
    assert "5 groups" in res.test.method


@quiet
@pytest.mark.parametrize("side", SIDES)
def test_pooled_f1_is_recomputed_on_the_relabelled_sums(side):
    rng = np.random.default_rng(23)
    scores = {name: rng.integers(0, 4, (5, 3)).astype(float) for name in "abc"}
    scores["b"][:, 0] += 2  # (more true positives: a difference to test)
    res = pairboot.compare_many(scores, metric="f1", test="permutation", alternative=side,
                                seed=1, n_resamples=200)
    check_against_oracle(res, scores, items(5), f1_metric, side)



@quiet
@pytest.mark.parametrize("side", SIDES)
def test_lower_is_better_leaves_the_sides_on_b_minus_a(side):
    # (as scipy's and compare()'s: "greater" is B - A > 0 whichever way is better)
    scores = three_systems(5, 6)
    res = pairboot.compare_many(scores, test="permutation", lower_is_better=True,
                                alternative=side, seed=1, n_resamples=200)
    check_against_oracle(res, scores, items(6), mean_metric, side)


@quiet
def test_four_systems_and_a_subset_of_pairs():
    rng = np.random.default_rng(24)
    scores = {k: rng.random(3) for k in "abcd"}
    res = pairboot.compare_many(scores, test="permutation", seed=1, n_resamples=200)
    assert len(res.comparisons) == 6 and len(res.test.null_distribution) == 24 ** 3
    check_against_oracle(res, scores, items(3), mean_metric, "two-sided")
    # two rows of three systems: all three still relabel (they are all exchangeable)
    three = {k: scores[k] for k in "abc"}
    res = pairboot.compare_many(three, pairs=[("a", "b"), ("b", "c")], test="permutation",
                                seed=1, n_resamples=200)
    assert [(c.a, c.b) for c in res.comparisons] == [("a", "b"), ("b", "c")]
    check_against_oracle(res, three, items(3), mean_metric, "two-sided")


@quiet
def test_groups_weighted_equally_relabel_their_means():
    groups = np.array([0, 0, 0, 1, 1, 2, 2, 2, 3, 4, 4, 4])
    scores = three_systems(22, 12)
    res = pairboot.compare_many(scores, groups=groups, group_weighting="groups",
                                test="permutation", seed=1, n_resamples=200)
    # (each group's mean is its unit's score: a mean of the 5 groups' means)
    means = {k: np.array([v[groups == g].mean() for g in range(5)])
             for k, v in scores.items()}
    check_against_oracle(res, means, items(5), mean_metric, "two-sided")


@quiet
def test_strata_restrict_nothing_but_weigh_the_statistic():
    strata = np.repeat(["x", "y"], [2, 4])
    scores = three_systems(7, 6)
    res = pairboot.compare_many(scores, strata=strata, strata_weights={"x": 0.7, "y": 0.3},
                                test="permutation", seed=1, n_resamples=200)
    # 0.7 mean_x + 0.3 mean_y is the mean of the items' scores scaled by n w_h / n_h
    scale = np.where(strata == "x", 0.7 / 2, 0.3 / 4) * 6
    check_against_oracle(res, {k: v * scale for k, v in scores.items()}, items(6),
                         mean_metric, "two-sided")


def ratio_metric(totals, n_items):
    with np.errstate(invalid="ignore", divide="ignore"):
        return totals[..., 0] / totals[..., 1]


@quiet
@pytest.mark.filterwarnings("ignore::pairboot.errors.DegenerateDataWarning")
def test_relabellings_that_leave_a_contrast_undefined_are_counted_out():
    a = np.array([[1, 1], [1, 1], [0, 0], [0, 0], [0, 0]], dtype=float)
    b = np.array([[0, 0], [0, 0], [1, 1], [0, 1], [1, 1]], dtype=float)
    c = np.array([[0, 0], [1, 1], [0, 0], [1, 1], [0, 1]], dtype=float)
    scores = {"a": a, "b": b, "c": c}
    res = pairboot.compare_many(scores, metric="ratio", test="permutation", seed=1,
                                n_resamples=200)
    t_obs, t_null, _, _ = family_oracle(res, scores, items(5), ratio_metric, "two-sided")
    defined = np.isfinite(t_null).all(axis=1)
    assert defined.sum() == 7392 and len(defined) == 7776  # (the oracle's own count)
    raw, adjusted = stepdown(t_obs, t_null[defined], "two-sided", exact=True)
    np.testing.assert_allclose([c.test_p_value for c in res.comparisons], raw, atol=1e-12)
    np.testing.assert_allclose([c.test_p_adjusted for c in res.comparisons], adjusted,
                               atol=1e-12)
    assert len(res.test.null_distribution) == 7392
    assert "384 of 7,776 relabellings left a contrast undefined" in res.test.method
    # all 7,776 were enumerated (as compare() says "all 128 swaps" with 2 undefined)
    assert "in all 7,776 relabellings of the 3 systems" in res.test.method
    assert "(two-sided, all 7,776 relabellings, exact)" in " ".join(str(res).split())


# --- 3. random relabellings --------------------------------------------------------------


@quiet
@pytest.mark.parametrize("side", SIDES)
def test_random_relabellings_are_within_monte_carlo_error_of_the_exact_p(side):
    scores = three_systems(37, 6, shift=(0.0, 0.06, 0.02), noise=0.1)
    r = 20_000
    res = pairboot.compare_many(scores, test="permutation", exact=False, alternative=side,
                                seed=4, n_resamples=r)
    assert res.test.exact is False and len(res.test.null_distribution) == r
    _, _, raw, adjusted = family_oracle(res, scores, items(6), mean_metric, side)
    got_raw = np.array([c.test_p_value for c in res.comparisons])
    got_adj = np.array([c.test_p_adjusted for c in res.comparisons])
    for got, want in [(got_raw, raw), (got_adj, adjusted)]:
        se = np.sqrt(np.maximum(want * (1 - want), 1 / r) / r)
        assert (np.abs(got - want) <= 4.5 * se).all(), (got, want, se)
    assert 0.05 < adjusted.max() < 0.95  # (a p-value with room on both sides)
    assert res.test.p_value == pytest.approx(got_adj.min(), abs=1e-15)
    # every random p is (1 + count) / (R + 1)
    counts = got_raw * (r + 1) - 1
    np.testing.assert_allclose(counts, np.round(counts), rtol=0, atol=1e-6)


@quiet
def test_the_relabellings_do_not_depend_on_the_items_order():
    rng = np.random.default_rng(32)
    n = 60
    scores = three_systems(33, n, shift=(0.0, 0.02, 0.01), noise=0.1)
    ids = np.array([f"q{i}" for i in range(n)])
    order = rng.permutation(n)
    shuffled = {k: v[order] for k, v in scores.items()}
    for seed in (9, None):  # (None: the seed derived from the keyed data)
        first = pairboot.compare_many(scores, ids=ids, test="permutation", seed=seed,
                                      n_resamples=500)
        again = pairboot.compare_many(shuffled, ids=ids[order], test="permutation",
                                      seed=seed, n_resamples=500)
        assert not first.test.exact
        assert [c.test_p_value for c in first.comparisons] == [
            c.test_p_value for c in again.comparisons]
        assert [c.test_p_adjusted for c in first.comparisons] == [
            c.test_p_adjusted for c in again.comparisons]
        np.testing.assert_allclose(first.test.null_distribution,
                                   again.test.null_distribution, rtol=0, atol=1e-12)


@quiet
def test_a_seed_reproduces_the_relabellings_and_another_changes_them():
    scores = three_systems(34, 40, shift=(0.0, 0.02, 0.01))

    def run(seed):
        return pairboot.compare_many(scores, test="permutation", seed=seed,
                                     n_resamples=999).test.null_distribution

    np.testing.assert_array_equal(run(5), run(5))
    assert not np.array_equal(run(5), run(6))


# --- 4. a family of two is compare()'s test ----------------------------------------------


def two_system_cases():
    rng = np.random.default_rng(41)
    for n, exact in [(12, True), (50, False)]:
        a = rng.random(n)
        yield f"mean-{n}", dict(a=a, b=a + rng.normal(0.03, 0.1, n)), {}, exact
    groups = np.repeat(np.arange(10), 3)
    a = rng.random(30)
    yield "groups", dict(a=a, b=a + rng.normal(0.03, 0.1, 30)), {"groups": groups}, True
    a = rng.integers(0, 4, (14, 3)).astype(float)
    b = rng.integers(0, 4, (14, 3)).astype(float)
    yield "f1", dict(a=a, b=b), {"metric": "f1"}, True


CASES = list(two_system_cases())


@quiet
@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_a_family_of_two_is_the_two_system_test(case, side):
    _, scores, extra, exact = case
    fam = pairboot.compare_many(scores, test="permutation", alternative=side, seed=7,
                                n_resamples=999, **extra)
    two = pairboot.compare(scores["a"], scores["b"], test="permutation", alternative=side,
                           seed=7, n_resamples=999, **extra)
    assert fam.test.exact is exact and two.test.exact is exact
    (row,) = fam.comparisons
    assert (row.a, row.b) == ("a", "b")
    assert fam.test.p_value == two.test.p_value
    assert row.test_p_value == two.test.p_value == row.test_p_adjusted
    assert fam.test.statistic == pytest.approx(two.test.statistic, abs=1e-12)
    # the same swaps, in the same order: the family's maxima are compare()'s T* turned
    np.testing.assert_allclose(fam.test.null_distribution,
                               oriented(two.test.null_distribution, side),
                               rtol=0, atol=1e-12)


@quiet
@pytest.mark.slow
def test_a_family_of_two_at_twenty_items_enumerates_as_compare_does():
    rng = np.random.default_rng(42)
    a = rng.random(20)
    b = a + rng.normal(0.03, 0.1, 20)
    fam = pairboot.compare_many({"a": a, "b": b}, test="permutation", seed=1,
                                n_resamples=200)
    two = pairboot.compare(a, b, test="permutation", seed=1, n_resamples=200)
    assert fam.test.exact and len(fam.test.null_distribution) == 2 ** 20
    assert fam.test.p_value == two.test.p_value


# --- 5. family-wise error, power, and a naive randomised Tukey HSD -----------------------


def exchangeable(rng, n=30, m=4, shift=None):
    """M systems exchangeable on every item (an item effect and iid noise), or with
    ``shift`` added to the systems' scores."""
    base = rng.random(n)
    shift = np.zeros(m) if shift is None else np.asarray(shift)
    return {f"s{j}": base + rng.normal(shift[j], 0.1, n) for j in range(m)}


def simulate(n_sets, shift=None, seed=0):
    """(n_sets, rows) adjusted and raw p, and the global p, of data sets drawn afresh."""
    rng = np.random.default_rng(seed)
    adjusted, raw, global_p, rows = [], [], [], None
    for d in range(n_sets):
        scores = exchangeable(rng, shift=shift)
        res = pairboot.compare_many(scores, test="permutation", seed=1000 + d,
                                    n_resamples=199)
        assert not res.test.exact and len(res.test.null_distribution) == 199
        rows = [(c.a, c.b) for c in res.comparisons]
        adjusted.append([c.test_p_adjusted for c in res.comparisons])
        raw.append([c.test_p_value for c in res.comparisons])
        global_p.append(res.test.p_value)
    return np.array(adjusted), np.array(raw), np.array(global_p), rows


@quiet
@pytest.mark.slow
def test_the_family_wise_error_is_controlled_under_the_complete_null():
    n_sets, alpha = 400, 0.05
    adjusted, raw, global_p, rows = simulate(n_sets, seed=51)
    assert len(rows) == 6  # (all pairs of 4 systems)
    any_rejected = (adjusted < alpha).any(axis=1)
    np.testing.assert_array_equal(global_p, adjusted.min(axis=1))
    fwer = any_rejected.mean()
    se = math.sqrt(alpha * (1 - alpha) / n_sets)
    assert fwer <= alpha + 3 * se, (fwer, se)
    # (a max-T test is exact under exchangeability: not conservative to nothing either)
    assert fwer >= alpha - 4.5 * se, (fwer, se)
    # each row's own p is a valid p-value too (the six rows pooled: correlated, so the
    # binomial SE of one row is the conservative yardstick)
    per_row = (raw < alpha).mean()
    assert per_row <= alpha + 3 * se, (per_row, se)
    assert (adjusted >= raw - 1e-15).all()


@quiet
@pytest.mark.slow
def test_a_clearly_better_system_is_detected():
    n_sets, alpha = 100, 0.05
    adjusted, _, _, rows = simulate(n_sets, shift=[0.0, 0.0, 0.0, 0.12], seed=52)
    better = np.array(["s3" in row for row in rows])
    assert better.sum() == 3
    power = (adjusted[:, better] < alpha).mean()
    assert power >= 0.9, power
    # the true nulls among the rest (a shift only inflates their permutation spread)
    false = (adjusted[:, ~better] < alpha).any(axis=1).mean()
    se = math.sqrt(alpha * (1 - alpha) / n_sets)
    assert false <= alpha + 3 * se, (false, se)


def naive_tukey_hsd(scores, r, seed):
    """Carterette's randomised Tukey HSD on numpy's own generator: every item permutes
    its M scores at random; the rows' T* from the permuted means; raw and stepdown p."""
    names = list(scores)
    x = np.column_stack([scores[k] for k in names])  # (n, M)
    rng = np.random.default_rng(seed)
    perm = rng.permuted(np.broadcast_to(x, (r,) + x.shape), axis=2)  # (R, n, M)
    means, observed = perm.mean(axis=1), x.mean(axis=0)
    pairs = list(itertools.combinations(range(len(names)), 2))
    t_obs = np.array([observed[j] - observed[i] for i, j in pairs])
    t_null = np.column_stack([means[:, j] - means[:, i] for i, j in pairs])
    raw, adjusted = stepdown(t_obs, t_null, "two-sided", exact=False)
    return {(names[i], names[j]): (raw[k], adjusted[k]) for k, (i, j) in enumerate(pairs)}


@quiet
@pytest.mark.slow
def test_random_relabellings_agree_with_a_naive_randomised_tukey_hsd():
    rng = np.random.default_rng(53)
    scores = exchangeable(rng, n=30, m=4, shift=[0.0, 0.03, 0.05, 0.0])
    r = 20_000
    res = pairboot.compare_many(scores, test="permutation", seed=8, n_resamples=r)
    ref = naive_tukey_hsd(scores, r, seed=9)
    assert 0.02 < res.test.p_value < 0.9, res.test.p_value  # (room on both sides)
    for c in res.comparisons:
        for got, want in zip((c.test_p_value, c.test_p_adjusted), ref[(c.a, c.b)]):
            se = math.sqrt(2 * max(want * (1 - want), 1 / r) / r)  # (two MC errors)
            assert abs(got - want) <= 4.5 * se, (c.a, c.b, got, want, se)



@quiet
@pytest.mark.filterwarnings("ignore:6 comparisons without a correction")
def test_the_test_does_not_depend_on_the_intervals_options():
    # (the relabellings are the test's own stream: no correction, interval method,
    # bootstrap scheme or level changes them)
    rng = np.random.default_rng(36)
    scores = exchangeable(rng, n=30, m=4, shift=[0.0, 0.03, 0.05, 0.0])

    def rows(**options):
        res = pairboot.compare_many(scores, test="permutation", seed=2, n_resamples=999,
                                    **options)
        return res.test.p_value, [(c.a, c.b, c.test_p_value, c.test_p_adjusted)
                                  for c in res.comparisons]

    first = rows()
    for options in [{"correction": "holm"}, {"correction": "bh"}, {"correction": "none"},
                    {"method": "bca"}, {"method": "studentized"},
                    {"resampling": "poisson"}, {"confidence_level": 0.9}]:
        assert rows(**options) == first, options


# --- 6. refusals ---------------------------------------------------------------------------


RNG = np.random.default_rng(61)
FAMILY = {k: RNG.random(20) for k in "abc"}
RUNS = {k: RNG.random((20, 3)) for k in "abc"}
STRATA = np.repeat(["x", "y"], 10)


@pytest.mark.parametrize("call, param, words", [
    (lambda: pairboot.compare_many(FAMILY, test="mcnemar"), "test", "compares two systems"),
    (lambda: pairboot.compare_many(RUNS, runs="seeds", test="permutation"), "test",
     "not exchangeable"),
    (lambda: pairboot.compare_many(RUNS, runs="samples", test="permutation"), "test",
     "not exchangeable"),
    (lambda: pairboot.compare_strata(FAMILY["a"], FAMILY["b"], strata=STRATA,
                                     test="permutation"), "test", "family of strata"),
    (lambda: pairboot.compare_strata(FAMILY["a"], FAMILY["b"], strata=STRATA,
                                     exact=True), "exact", "family of strata"),
    (lambda: pairboot.compare_many(FAMILY, test="permutation", paired=False), "test",
     "not `paired=False`"),
    (lambda: pairboot.compare_many(FAMILY, test="permutation", hypothesis="non-inferiority",
                                   margin=0.01), "test", "not a margin"),
    (lambda: pairboot.compare_many(FAMILY, test="permutation", exact=True), "exact",
     "(3!)**20 relabellings"),
    (lambda: pairboot.compare_many({k: v[:8] for k, v in FAMILY.items()},
                                   test="permutation", exact=True), "exact",
     "(3!)**8 relabellings"),
    (lambda: pairboot.compare(RNG.random(21), RNG.random(21), test="permutation",
                              exact=True), "exact", "2**21 swaps"),
    (lambda: pairboot.compare_many(FAMILY, exact=True), "exact", "test='permutation'"),
    (lambda: pairboot.compare_many(FAMILY, exact=False), "exact", "test='permutation'"),
    (lambda: pairboot.compare(FAMILY["a"], FAMILY["b"], exact=True), "exact",
     "test='permutation'"),
    (lambda: pairboot.compare_many(FAMILY, test="permutation", exact="yes"), "exact",
     "None, True or False"),
], ids=["mcnemar", "runs-seeds", "runs-samples", "compare_strata", "compare_strata-exact",
        "unpaired", "margin", "exact-3x20", "exact-3x8", "exact-compare-21", "exact-no-test",
        "no-exact-no-test", "exact-compare-no-test", "exact-not-bool"])
def test_refusals_name_the_option_in_one_line(call, param, words):
    with pytest.raises(InputError) as info:
        call()
    message = str(info.value)
    assert info.value.param == param, message
    assert words in message and "\n" not in message, message


def test_exact_without_test_is_refused_as_such_even_with_runs():
    with pytest.raises(InputError) as info:
        pairboot.compare_many(RUNS, runs="seeds", exact=False)
    assert info.value.param == "exact", str(info.value)


@quiet
def test_the_size_decides_exact_enumeration_at_two_to_the_twenty():
    # (3!)**7 = 279,936 relabellings are enumerated; (3!)**8 = 1,679,616 are not
    seven = pairboot.compare_many({k: v[:7] for k, v in FAMILY.items()},
                                  test="permutation", exact=True, seed=1, n_resamples=200)
    assert seven.test.exact and len(seven.test.null_distribution) == 6 ** 7
    eight = pairboot.compare_many({k: v[:8] for k, v in FAMILY.items()},
                                  test="permutation", seed=1, n_resamples=200)
    assert not eight.test.exact and len(eight.test.null_distribution) == 200
    small = pairboot.compare_many({k: v[:5] for k, v in FAMILY.items()},
                                  test="permutation", exact=False, seed=1, n_resamples=300)
    assert not small.test.exact and len(small.test.null_distribution) == 300


# --- 7. reports ----------------------------------------------------------------------------


def p_after(text, label):
    """The sign and number written after ``label`` (``"b - a p = 0.011"``)."""
    match = re.search(re.escape(label) + r" p (=|<|\\textless\{\}) ([0-9]*\.?[0-9]+(?:e-?[0-9]+)?)",
                      text)
    assert match, (label, text)
    return match.group(1).replace("\\textless{}", "<"), float(match.group(2))


def check_p_text(text, label, p):
    sign, number = p_after(text, label)
    if sign == "=":
        digits = len(str(number).split(".")[1]) if "." in str(number) else 0
        assert abs(number - p) <= 0.5 * 10 ** -digits + 1e-12, (label, number, p)
    else:  # ("< bound": the bound above the p-value)
        assert sign == "<" and p < number, (label, number, p)


@quiet
@pytest.mark.parametrize("n, exact", [(6, True), (40, False)])
def test_the_reports_say_it(n, exact):
    scores = three_systems(35, n, shift=(0.0, 0.1, 0.02))
    res = pairboot.compare_many(scores, test="permutation", seed=1, n_resamples=999)
    assert res.test.exact is exact
    size = 6 ** n if exact else 999
    sentence = (f"Westfall-Young permutation test (two-sided, all {size:,} relabellings, "
                "exact)" if exact else
                f"Westfall-Young permutation test (two-sided, {size:,} random relabellings "
                "of the 3 systems per item)")
    text = " ".join(str(res).split())
    markdown = " ".join(render_family(res, "markdown").split())
    latex = " ".join(render_family(res, "latex").split())
    for out in (text, markdown, latex):
        assert sentence in out, out
        assert 'H0 "the systems are exchangeable on every item"' in out
    for c in res.comparisons:  # (LaTeX: in the caption's sentence)
        check_p_text(latex, f"{c.b} - {c.a}", c.test_p_adjusted)
    # text and Markdown: a column of the comparisons table, the row's last number cell
    for out, split in ((str(res), r"\s{2,}"), (render_family(res, "markdown"), r"\s*\|\s*")):
        assert "permutation p (adj.)" in out
        for c in res.comparisons:
            row = next(line for line in out.splitlines()
                       if line.strip().lstrip("| ").startswith(f"{c.b} - {c.a}"))
            cells = [x for x in re.split(split, row.strip()) if x]
            numbers = [x for x in cells if re.fullmatch(r"(< )?\d*\.?\d+", x)]
            sign, value = ("<", numbers[-1][2:]) if numbers[-1].startswith("<") else (
                "=", numbers[-1])
            number = float(value)
            if sign == "=":
                digits = len(value.split(".")[1]) if "." in value else 0
                assert abs(number - c.test_p_adjusted) <= 0.5 * 10 ** -digits + 1e-12, row
            else:
                assert c.test_p_adjusted < number, row
    data = json.loads(render_family(res, "json"))
    assert data["test"]["name"] == "permutation"
    assert data["test"]["p_value"] == pytest.approx(res.test.p_value, abs=1e-15)
    assert data["test"]["exact"] is exact
    assert data["test"]["permutations"] == size
    for got, c in zip(data["comparisons"], res.comparisons):
        assert (got["a"], got["b"]) == (c.a, c.b)
        assert got["test_p_value"] == c.test_p_value
        assert got["test_p_adjusted"] == c.test_p_adjusted
    frame = res.to_frame()
    assert {"test_p_value", "test_p_adjusted"} <= set(frame.columns)
    np.testing.assert_array_equal(frame["test_p_adjusted"],
                                  [c.test_p_adjusted for c in res.comparisons])
    # without the test: none of it
    plain = pairboot.compare_many(scores, seed=1, n_resamples=999)
    assert plain.test is None and "Westfall-Young" not in str(plain)
    assert json.loads(render_family(plain, "json")).get("test") is None
    assert "test_p_value" not in plain.to_frame().columns


@quiet
def test_where_the_test_and_the_intervals_disagree_the_report_says_so():
    # 8 items: the bootstrap's max-t is bolder than the permutation test
    rng = np.random.default_rng(0)
    x = rng.random(8)
    scores = {"a": x, "b": x + rng.normal(0.05, 0.1, 8), "c": x + rng.normal(0, 0.1, 8)}
    res = pairboot.compare_many(scores, test="permutation", seed=1, n_resamples=999)
    for c in res.comparisons:
        assert c.test_disagrees == ((c.test_p_adjusted < 0.05) != c.significant)
    split = [f"{c.b} - {c.a}" for c in res.comparisons if c.test_disagrees]
    assert split  # (the data were picked for it)
    text = " ".join(str(res).split())
    assert f"The test and the family's decision disagree at 5% on {', '.join(split)}." in text


# --- 8. the command line -----------------------------------------------------------------


CLI_N = 40
CLI_SCORES = three_systems(81, CLI_N, shift=(0.0, 0.08, 0.0), noise=0.05)
CLI_IDS = np.array([f"q{i}" for i in range(CLI_N)])


def write_wide(folder):
    path = folder / "wide.csv"
    rows = "".join(",".join([CLI_IDS[i], *(repr(float(v[i])) for v in CLI_SCORES.values())])
                   + "\n" for i in range(CLI_N))
    path.write_text("id," + ",".join(CLI_SCORES) + "\n" + rows)
    return [str(path), "--systems", ",".join(CLI_SCORES), "--id", "id"]


def file_order(k):
    return np.random.default_rng(k).permutation(CLI_N)


def write_files(folder):
    paths = []
    for name, values in CLI_SCORES.items():
        order = file_order(len(paths))  # (rows in another order in every file)
        path = folder / f"{name}.csv"
        path.write_text("id,score\n" + "".join(f"{CLI_IDS[i]},{float(values[i])!r}\n"
                                               for i in order))
        paths.append(str(path))
    return [*paths, "--id", "id"]


@quiet
@pytest.mark.parametrize("layout", [write_wide, write_files], ids=["wide", "files"])
def test_the_command_line_runs_the_family_test(tmp_path, layout):
    inputs = layout(tmp_path)
    fast = ("--resamples", "999", "--seed", "3")
    proc = run_in_process("compare", *inputs, "--test", "permutation", *fast,
                          "--format", "json")
    assert proc.returncode == 0, proc.stderr.decode()
    data = json.loads(proc.stdout)
    # (the scores aligned on the first file's rows; the relabellings keyed by --id, so
    # that any row order gives the same p-values: the API's with ids=)
    order = file_order(0) if layout is write_files else np.arange(CLI_N)
    aligned = {k: v[order] for k, v in CLI_SCORES.items()}
    want = pairboot.compare_many(aligned, test="permutation", seed=3, n_resamples=999,
                                 ids=CLI_IDS[order])
    unordered = pairboot.compare_many(CLI_SCORES, test="permutation", seed=3,
                                      n_resamples=999, ids=CLI_IDS)
    assert want.test.p_value == unordered.test.p_value
    assert data["test"]["p_value"] == want.test.p_value and not data["test"]["exact"]
    assert [(c["a"], c["b"], c["test_p_value"], c["test_p_adjusted"])
            for c in data["comparisons"]] == [
        (c.a, c.b, c.test_p_value, c.test_p_adjusted) for c in want.comparisons]
    text = run_in_process("compare", *inputs, "--test", "permutation", *fast)
    assert text.returncode == 0, text.stderr.decode()
    out = " ".join(text.stdout.decode().split())
    assert ("Westfall-Young permutation test (two-sided, 999 random relabellings of the 3 "
            "systems per item)") in out
    no_exact = run_in_process("compare", *inputs, "--test", "permutation", "--no-exact",
                              *fast, "--format", "json")
    assert json.loads(no_exact.stdout)["test"]["p_value"] == want.test.p_value


@pytest.mark.parametrize("extra, words", [
    (["--test", "mcnemar"], ["--test mcnemar compares two systems"]),
    (["--test", "permutation", "--exact"], ["--exact", "(3!)**40 relabellings"]),
    (["--exact"], ["--exact", "--test permutation"]),
])
def test_the_command_line_refuses_in_one_line(tmp_path, extra, words):
    assert_one_line_error(run_in_process("compare", *write_wide(tmp_path), "--resamples",
                                         "999", "--seed", "3", *extra), *words)


@quiet
def test_the_command_line_enumerates_a_few_items(tmp_path):
    small = {k: v[:6] for k, v in CLI_SCORES.items()}
    path = tmp_path / "small.csv"
    path.write_text("a,b,c\n" + "".join(",".join(repr(float(v[i])) for v in small.values())
                                        + "\n" for i in range(6)))
    proc = run_in_process("compare", str(path), "--systems", "a,b,c", "--test",
                          "permutation", "--exact", "--resamples", "999", "--seed", "3",
                          "--format", "json")
    assert proc.returncode == 0, proc.stderr.decode()
    data = json.loads(proc.stdout)
    assert data["test"]["exact"] is True and data["test"]["permutations"] == 6 ** 6
    res = pairboot.compare_many(small, test="permutation", seed=3, n_resamples=999)
    _, _, raw, adjusted = family_oracle(res, small, items(6), mean_metric, "two-sided")
    np.testing.assert_allclose([c["test_p_value"] for c in data["comparisons"]], raw,
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose([c["test_p_adjusted"] for c in data["comparisons"]],
                               adjusted, rtol=0, atol=1e-12)

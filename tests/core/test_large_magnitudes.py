"""Differences keep their precision whatever the systems' common level (issue 22).

A common offset of the scores (latencies in nanoseconds, 1e9) or an outlier on which both
systems score alike (a perplexity blow-up, 1e17) must not erase a difference of 0.01 per
item.  The references are exact: the per-item differences of the float64 inputs as
fractions (:mod:`fractions`), and the same comparison run on those differences alone,
whose sums carry no common level (a system scoring 0 everywhere against the differences).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import pairboot

R = 2000
N = 400


def scores(offset: float, outlier: float | None = None, seed: int = 3):
    rng = np.random.default_rng(seed)
    base = rng.random(N)
    a = base + offset
    b = base + rng.normal(0.01, 0.02, N) + offset
    if outlier is not None:
        a[7] = b[7] = outlier
    return a, b


def exact_mean_difference(a, b) -> Fraction:
    return sum((Fraction(float(y)) - Fraction(float(x)) for x, y in zip(a, b)),
               Fraction(0)) / len(a)


def differences(a, b) -> np.ndarray:
    """b - a per item, exactly (checked): what the comparison is about."""
    d = np.asarray(b) - np.asarray(a)
    for x, y, z in zip(a[:50], b[:50], d[:50]):
        assert Fraction(float(y)) - Fraction(float(x)) == Fraction(float(z))
    return d


CASES = [(1e9, None), (1e12, None), (0.0, 1e12), (0.0, 1e17), (1e9, 1e17)]


# An outlier of 1e12 or more leaves A's and B's own studentized intervals without the
# digits of the other items' spread (their standard errors are centred at the outlier's
# level): said so, for the systems only; the difference's interval is the point here.
@pytest.mark.filterwarnings("ignore:.*A's and B's studentized intervals rest on them")
@pytest.mark.parametrize(("offset", "outlier"), CASES)
@pytest.mark.parametrize("method", ["percentile", "studentized", "bca"])
def test_a_common_level_does_not_erase_the_difference(offset, outlier, method):
    a, b = scores(offset, outlier)
    d = differences(a, b)
    res = pairboot.compare(a, b, n_resamples=R, seed=11, method=method)
    ref = pairboot.compare(np.zeros(N), d, n_resamples=R, seed=11, method=method)
    spread = float(np.std(d))
    tol = 1e-12 * spread
    assert abs(res.estimate - float(exact_mean_difference(a, b))) <= tol
    assert res.standard_error == pytest.approx(ref.standard_error, rel=1e-9)
    assert res.standard_error > 0.1 * spread / math.sqrt(N)
    np.testing.assert_allclose(res.bootstrap_distribution, ref.bootstrap_distribution,
                               rtol=0, atol=tol)
    assert res.confidence_interval.low == pytest.approx(ref.confidence_interval.low, abs=tol)
    assert res.confidence_interval.high == pytest.approx(ref.confidence_interval.high,
                                                         abs=tol)
    assert res.p_value == ref.p_value
    assert not any("constant" in w for w in res.warnings)


@pytest.mark.parametrize("method", ["percentile", "studentized"])
def test_an_offset_of_1e15_leaves_the_resamples_on_their_lattice(method):
    """Near 1e15 float64 holds scores to 1/8: every per-item difference is a multiple of
    1/8, so every resampled mean difference is a multiple of 1/(8 n), exactly; summed
    apart the systems' sums (4e17) round to 64 and leave no difference at all."""
    a, b = scores(1e15, None)
    d = differences(a, b)
    assert np.all(d * 8 == np.round(d * 8))
    with pytest.warns(pairboot.DegenerateDataWarning, match="held to steps of 0.125"):
        res = pairboot.compare(a, b, n_resamples=R, seed=11, method=method)
    assert abs(res.estimate - float(exact_mean_difference(a, b))) <= 1e-15
    steps = res.bootstrap_distribution * 8 * N
    np.testing.assert_allclose(steps, np.round(steps), rtol=0, atol=1e-6)
    sd = float(np.std(d, ddof=1)) / math.sqrt(N)
    assert 0.8 * sd < res.standard_error < 1.25 * sd  # (R = 2000: the SD to 2 %)
    assert res.confidence_interval.high - res.confidence_interval.low > 2 * sd


@pytest.mark.parametrize(("offset", "outlier"), [(1e12, None), (0.0, 1e17)])
def test_the_systems_own_means_keep_their_level(offset, outlier):
    """Each system's mean is its own level plus its part: right to its own rounding."""
    a, b = scores(offset, outlier)
    res = pairboot.compare(a, b, n_resamples=R, seed=11)
    for score, values in ((res.score_a, a), (res.score_b, b)):
        exact = float(sum(map(Fraction, map(float, values)), Fraction(0)) / N)
        assert score.estimate == pytest.approx(exact, rel=1e-14)


@pytest.mark.parametrize(("offset", "outlier"), [(1e9, None), (1e12, None), (0.0, 1e17)])
def test_families_and_contrasts_between_non_baselines(offset, outlier):
    """Every contrast of a family, also v2 - v1 (neither the first system), keeps the
    precision of its own differences."""
    a, b = scores(offset, outlier)
    c = b + np.random.default_rng(8).normal(0.005, 0.01, N)
    if outlier is not None:
        c[7] = outlier
    res = pairboot.compare_many({"a": a, "b": b, "c": c}, n_resamples=R, seed=5)
    by_pair = {(x.a, x.b): x for x in res.comparisons}
    for (i, j), (u, v) in {("a", "b"): (a, b), ("a", "c"): (a, c), ("b", "c"): (b, c)}.items():
        got = by_pair[(i, j)]
        assert abs(got.estimate - float(exact_mean_difference(u, v))) <= 1e-12 * np.std(v - u)
        assert got.confidence_interval.high - got.confidence_interval.low > 0


@pytest.mark.parametrize(("offset", "outlier"), [(1e12, None), (0.0, 1e17)])
def test_poisson_and_parts_keep_the_precision(offset, outlier):
    a, b = scores(offset, outlier)
    d = differences(a, b)
    ids = [f"q{i}" for i in range(N)]
    res = pairboot.compare(a, b, ids=ids, resampling="poisson", n_resamples=R, seed=2)
    ref = pairboot.compare(np.zeros(N), d, ids=ids, resampling="poisson", n_resamples=R,
                           seed=2)
    tol = 1e-12 * float(np.std(d))
    assert abs(res.estimate - float(exact_mean_difference(a, b))) <= tol
    np.testing.assert_allclose(res.bootstrap_distribution, ref.bootstrap_distribution,
                               rtol=0, atol=tol)
    from pairboot.partitioned.parts import finish, merge, part_from_arrays

    parts = [part_from_arrays({"a": a[s], "b": b[s]}, ids=ids[s], n_resamples=R, seed=2)
             for s in (slice(0, 150), slice(150, N))]
    total = finish(merge(parts))
    assert abs(total.estimate - float(exact_mean_difference(a, b))) <= tol
    np.testing.assert_allclose(total.bootstrap_distribution, ref.bootstrap_distribution,
                               rtol=0, atol=tol)


def test_one_file_streamed_keeps_the_precision(tmp_path):
    a, b = scores(0.0, 1e17)
    path = tmp_path / "both.csv"
    path.write_text("id,a,b\n" + "".join(f"q{i},{x!r},{y!r}\n"
                                         for i, (x, y) in enumerate(zip(a.tolist(),
                                                                        b.tolist()))))
    res = pairboot.compare_files([str(path)], a="a", b="b", id="id", n_resamples=R, seed=2)
    assert abs(res.estimate - float(exact_mean_difference(a, b))) <= 1e-12 * np.std(b - a)
    assert res.confidence_interval.low > 0


def test_a_tiny_difference_on_a_large_level_is_not_taken_for_rounding():
    """The snap-to-the-estimate tolerance follows the differences' spread: a real
    spread of 1e-6 on scores of 1e6 is a spread, not rounding."""
    rng = np.random.default_rng(4)
    a = 1e6 + rng.random(N)
    b = a + rng.normal(1e-6, 1e-6, N)
    res = pairboot.compare(a, b, n_resamples=R, seed=1)
    assert res.standard_error > 0
    assert np.ptp(res.bootstrap_distribution) > 0
    assert not any("constant" in w for w in res.warnings)


@pytest.mark.parametrize(("scale", "problem"), [(1e300, "overflow"), (1e-300, "underflow")])
def test_squares_beyond_double_precision_are_said_so(scale, problem):
    """The studentized interval squares the scores: near 1e+-300 it says so, rather than
    blaming too few distinct items, and no raw numpy warning escapes."""
    import warnings

    rng = np.random.default_rng(1)
    a = rng.random(50) * scale
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(pairboot.errors.InputError, match=problem) as err:
            pairboot.compare(a, a * 1.1, method="studentized", seed=1, n_resamples=1000)
        assert err.value.param == "method"
        res = pairboot.compare(a, a * 1.1, seed=1, n_resamples=1000)  # percentile: fine
    assert res.confidence_interval.low > 0


def test_sums_that_overflow_are_said_so():
    import warnings

    a = np.random.default_rng(1).random(50) * 1e308
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(pairboot.errors.InputError, match="overflow double precision"):
            pairboot.compare(a, a * 1.5, seed=1, n_resamples=1000)


@pytest.mark.slow
def test_a_file_per_system_that_loses_the_digits_says_so(tmp_path):
    """A file per system is summed system by system: an outlier both score at 1e17 takes
    every digit of the difference.  That is an undefined verdict with the reason, never
    "no difference" with an interval [0, 0]."""
    a, b = scores(0.0, 1e17)
    paths = []
    for name, values in (("a.csv", a), ("b.csv", b), ("c.csv", b + 0.01)):
        (tmp_path / name).write_text("id,score\n" + "".join(
            f"q{i},{x!r}\n" for i, x in enumerate(values.tolist())))
        paths.append(str(tmp_path / name))
    with pytest.warns(pairboot.DegenerateDataWarning, match="takes its digits"):
        res = pairboot.compare_files(paths[:2], id="id", n_resamples=R, seed=2)
    assert res.verdict() == "undefined" and math.isnan(res.p_value)
    assert math.isnan(res.standard_error)
    # the estimate itself is checked against the files' exact sums: it is the exact one
    assert res.estimate == pytest.approx(float(exact_mean_difference(a, b)), abs=1e-15)
    with pytest.warns(pairboot.DegenerateDataWarning, match=r"b - a \(and 2 more\)"):
        fam = pairboot.compare_files(paths, id="id", n_resamples=R, seed=2)
    assert all(math.isnan(c.p_adjusted) for c in fam.comparisons)
    # the same two systems side by side in one file keep every digit (their differences)
    both = tmp_path / "both.csv"
    both.write_text("id,a,b\n" + "".join(f"q{i},{x!r},{y!r}\n" for i, (x, y)
                                         in enumerate(zip(a.tolist(), b.tolist()))))
    res = pairboot.compare_files([str(both)], a="a", b="b", id="id", n_resamples=R, seed=2)
    assert res.verdict() == "better"


@pytest.mark.filterwarnings("ignore::pairboot.errors.PairbootWarning")  # (the outlier's own)
def test_an_outlier_of_one_system_leaves_the_others_digits():
    """One system scores 1e17 on one item, the others do not: each system keeps its own
    score and interval, and a contrast between two others keeps its digits (a reference
    taken from the first system, or from two systems' midpoint, took them)."""
    rng = np.random.default_rng(6)
    base = rng.random(N)
    a = base.copy()
    a[0] = 1e17
    b = base + rng.normal(0.01, 0.02, N)
    c = b + rng.normal(0.01, 0.02, N)
    plain = pairboot.compare(base, b, n_resamples=R, seed=4)
    res = pairboot.compare(a, b, n_resamples=R, seed=4)
    assert res.score_b.estimate == pytest.approx(plain.score_b.estimate, rel=1e-14)
    np.testing.assert_allclose(res.score_b.confidence_interval,
                               plain.score_b.confidence_interval, rtol=1e-12)
    fam = pairboot.compare_many({"a": a, "b": b, "c": c}, n_resamples=R, seed=4)
    ref = pairboot.compare_many({"a": base, "b": b, "c": c}, n_resamples=R, seed=4)
    got = {(x.a, x.b): x for x in fam.comparisons}
    want = {(x.a, x.b): x for x in ref.comparisons}
    assert got["b", "c"].estimate == pytest.approx(float(exact_mean_difference(b, c)),
                                                   abs=1e-14)
    np.testing.assert_allclose(got["b", "c"].marginal_interval,
                               want["b", "c"].marginal_interval, rtol=1e-9)
    for name in ("b", "c"):
        assert fam.systems[name].estimate == pytest.approx(ref.systems[name].estimate,
                                                           rel=1e-14)


def test_most_items_huge_in_both_is_no_rounding_note():
    """600 of 1000 items scored 1e17 by both: their differences are exactly 0, the
    others' vary genuinely; no note says the differences are rounding."""
    rng = np.random.default_rng(7)
    a = rng.random(1000)
    b = a + rng.normal(0.01, 0.05, 1000)
    a[:600] = b[:600] = 1e17
    import warnings

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        res = pairboot.compare(a, b, n_resamples=R, seed=1)
    assert not any("rounding" in str(w.message) for w in seen)
    assert abs(res.estimate - float(exact_mean_difference(a, b))) <= 1e-15
    assert res.standard_error > 0


def test_the_differences_are_carried_only_where_the_digits_need_them():
    """Scores in [0, 1]: the systems' own sums, as always (the same bits as before the
    differences existed); an offset of 1e9 or a shared outlier: the differences too; with
    Poisson weights always (as the parts of partitioned data carry them)."""
    from pairboot.core.design import build_design

    def design(*systems, **kw):
        return build_design(list(systems), names=tuple("abc"[: len(systems)]), metric="mean",
                            paired=True, groups=None, group_weighting="items", strata=None,
                            strata_weights=None, **kw)

    a, b = scores(0.0)
    assert design(a, b).differences == 0
    assert design(*scores(1e9)).differences == 1
    assert design(*scores(0.0, 1e17)).differences == 1
    assert design(a, b, b + 0.01, ids=None, poisson=True).differences == 3
    assert design(a, b, ids=None, poisson=True).differences == 1


def test_the_same_scores_in_two_files_are_no_difference_not_lost_digits(tmp_path):
    """A file compared with a copy in another row order (a rerun that changed nothing):
    the separate sums differ by rounding, and the exact sums say the difference is 0:
    no difference, not an undefined verdict."""
    a, _ = scores(0.0)
    rows = [f"q{i},{x!r}\n" for i, x in enumerate(a.tolist())]
    (tmp_path / "a.csv").write_text("id,score\n" + "".join(rows))
    (tmp_path / "b.csv").write_text("id,score\n" + "".join(rows[::-1]))
    with pytest.warns(pairboot.DegenerateDataWarning, match="differences are constant"):
        res = pairboot.compare_files([str(tmp_path / "a.csv"), str(tmp_path / "b.csv")],
                                     id="id", n_resamples=R, seed=2)
    assert res.verdict() == "inconclusive" and res.estimate == 0

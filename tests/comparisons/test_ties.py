"""Ties at a boundary: a value that differs from a margin's boundary (or 0) by rounding
alone is on it, and a tie goes to H0 (docs/decisions.md, "Ties at a boundary").

With 0/1 scores every resampled difference is a multiple of 1/n, and a margin that is
one too (0.05 at n = 60) is met exactly by many replicates and interval ends -- but
``5/60 - 8/60`` is -0.049999999999999996 in binary, which lies above -0.05.  Each case
here is built so that an end or a replicate falls on the boundary exactly in exact
arithmetic (checked on the replicates as integers over n) and one ulp off it in floating
point; the reference for each p-value is counted on those integers, never on floats.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import pairboot
from pairboot.stats.intervals import Bootstrap, p_value
from pairboot.stats.multiple import max_t

pytestmark = pytest.mark.filterwarnings("ignore::pairboot.errors.PairbootWarning")

N = 60
R = 1000
ALPHA = 0.05


def discordant(only_a: int, only_b: int, n: int = N):
    """0/1 scores of A and B on ``n`` items: ``only_a`` items A alone gets right,
    ``only_b`` B alone, the rest both wrong."""
    a = np.r_[np.ones(only_a), np.zeros(only_b), np.zeros(n - only_a - only_b)]
    b = np.r_[np.zeros(only_a), np.ones(only_b), np.zeros(n - only_a - only_b)]
    return a, b


def lattice(replicates) -> np.ndarray:
    """The resampled differences as the integers (times n) they are exactly."""
    k = np.round(np.asarray(replicates) * N)
    assert np.allclose(k, np.asarray(replicates) * N, atol=1e-9)  # (on the lattice)
    return k.astype(np.int64)


def percentile_p_greater(k: np.ndarray, boundary: int) -> float:
    """The one-sided ("greater") percentile p-value of the boundary ``boundary / n``, on
    the exact lattice: the lower end at alpha is numpy's linear quantile at alpha, which
    lies above the boundary once ``alpha (R - 1)`` passes the last of the replicates at
    or below it (index ``count - 1``)."""
    count = int(np.count_nonzero(k <= boundary))
    return (count - 1) / (len(k) - 1)


def test_the_issues_example_is_a_tie_and_not_non_inferior():
    # B - A has its one-sided 95% lower bound on -0.05 exactly (3 of 60 items): H0
    # B - A <= -0.05 stands; it was declared non-inferior at -0.049999999999999996
    b, a = discordant(5, 3)  # (B alone right on 5, A alone on 3)
    res = pairboot.compare(a, b, hypothesis="non-inferiority", margin=0.05, n_resamples=R,
                           seed=67)
    k = lattice(res.bootstrap_distribution)
    assert res.confidence_interval.low == -0.05  # on the boundary, not a hair above it
    assert res.verdict() == "inconclusive"
    assert "ends on -0.05 (a tie, which does not exclude it)" in res.reading
    assert res.p_value >= ALPHA
    assert res.p_value == pytest.approx(percentile_p_greater(k, -3), abs=1e-9)
    # one-sided at 95% reads the replicates' 5% quantile: an order statistic on -3/60
    assert np.sort(k)[int(ALPHA * (R - 1))] == -3


def test_lower_is_better_ties_at_plus_the_margin():
    # the same data the other way round: H0 B - A >= +0.05, the upper bound on +0.05
    b, a = discordant(5, 3)
    res = pairboot.compare(b, a, hypothesis="non-inferiority", margin=0.05, n_resamples=R,
                           seed=67, lower_is_better=True)
    k = lattice(res.bootstrap_distribution)
    assert res.confidence_interval.high == 0.05
    assert res.verdict() == "inconclusive" and res.p_value >= ALPHA
    assert res.p_value == pytest.approx(percentile_p_greater(-k, -3), abs=1e-9)


def test_an_equivalence_end_on_the_margin_is_not_within_it():
    # TOST's 90% interval reaches +0.1 exactly (6 of 60): not within (-0.1, 0.1)
    a, b = discordant(3, 4)
    res = pairboot.compare(a, b, hypothesis="equivalence", margin=0.1, n_resamples=R, seed=0)
    k = lattice(res.bootstrap_distribution)
    low, high = res.confidence_interval
    assert high == 0.1 and -0.1 < low
    assert res.verdict() == "inconclusive"
    assert "ends on +-0.1 (a tie, which is not within)" in res.reading
    assert res.p_value >= ALPHA and res.p_value == max(res.p_values)
    # the upper test's p-value (H0 B - A >= 0.1) counts the replicates at or above 6/60
    assert res.p_values[1] == pytest.approx(percentile_p_greater(-k, -6), abs=1e-9)


def test_a_family_row_on_its_boundary_is_not_significant():
    # the row B - A of the issue's data ends on -0.05 exactly: p >= alpha, the row not
    # significant and inconclusive (it was significant, p = 0.042, at -0.049999999999999996)
    b, a = discordant(5, 3)
    c = np.r_[np.zeros(8), np.ones(10), np.zeros(N - 18)]  # (clearly non-inferior to A)
    fam = pairboot.compare_many({"A": a, "B": b, "C": c}, baseline="A",
                                hypothesis="non-inferiority", margin=0.05, n_resamples=R,
                                seed=3, correction="none")
    row = next(r for r in fam.comparisons if r.b == "B")
    assert row.confidence_interval.low == -0.05
    assert row.p_value >= ALPHA and not row.significant
    assert row.verdict == "inconclusive" and row.note is None


def test_a_p_value_counts_the_replicates_on_the_boundary_as_on_it():
    # the same lattice replicates computed two ways: as B's share minus A's share
    # (rounded as the engine rounds them) and as the difference of the counts over n
    # (the double nearest each multiple of 1/60, as the margin 0.05 is): one p-value
    rng = np.random.default_rng(3)
    wins, losses = rng.binomial(N, 5 / N, R), rng.binomial(N, 3 / N, R)
    rounded = wins / N - losses / N
    exact = (wins - losses) / N
    assert np.any(rounded != exact) and np.any((wins - losses == -3) & (rounded > -0.05))
    k = np.sort(wins - losses)
    est = 2 / N
    for alternative in ("greater", "two-sided"):
        got = p_value("percentile", Bootstrap.from_replicates(est, rounded), alternative,
                      null=-0.05)
        want = p_value("percentile", Bootstrap.from_replicates(est, exact), alternative,
                       null=-0.05)
        assert got == want
    one_sided = p_value("percentile", Bootstrap.from_replicates(est, rounded), "greater",
                        null=-0.05)
    assert one_sided == pytest.approx(percentile_p_greater(k, -3), abs=1e-9)


def test_max_t_counts_an_estimate_on_its_boundary_as_on_it():
    # a comparison without spread whose estimate is the boundary but for rounding: its
    # statistic is 0, not +-infinity, and the test does not reject
    est = float(np.nextafter(-0.05, 0.0))  # (-0.049999999999999996, as 5/60 - 8/60 rounds)
    reps = np.full((199, 1), est)
    res = max_t(np.array([est]), np.array([0.0]), reps, ALPHA, "greater", null=[-0.05])
    assert res.t[0] == 0.0 and res.p_single_step[0] == 1.0


def test_a_family_under_max_t_ties_at_its_boundary():
    # each item of B is A's score less 0.05 (as a double): every resampled difference is
    # -0.05 but for rounding, and no tie may count as "not worse by 0.05 or more"
    rng = np.random.default_rng(1)  # (B - A is -0.04999999999999999: it was "non-inferior")
    a = rng.random(40)
    scores = {"A": a, "B": a - 0.05, "C": a + rng.normal(0.1, 0.05, 40)}
    fam = pairboot.compare_many(scores, baseline="A", hypothesis="non-inferiority",
                                margin=0.05, n_resamples=199, seed=2, correction="max-t")
    row = next(r for r in fam.comparisons if r.b == "B")
    assert math.isclose(row.estimate, -0.05, rel_tol=1e-12)
    assert not row.significant and row.verdict == "inconclusive" and row.note is None
    assert row.confidence_interval.low == -0.05

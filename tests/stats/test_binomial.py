"""The exact binomial interval and Fisher's test of one item's trials
(:mod:`pairboot.stats.binomial`) against scipy, and Fisher's size by enumeration."""

from __future__ import annotations

import math

import pytest
from scipy import stats

from pairboot.stats.binomial import binomial_tail, clopper_pearson, fisher_exact, fisher_size


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 16, 50, 200])
@pytest.mark.parametrize("level", [0.9, 0.95, 0.999])
def test_clopper_pearson_is_scipys_exact_interval(n, level):
    half = (1.0 - level) / 2.0
    counts = range(n + 1) if n <= 50 else [0, 1, 2, 37, 100, 163, 198, 199, 200]
    for c in counts:
        low, high = clopper_pearson(c, n, level)
        ref = stats.binomtest(c, n).proportion_ci(level, method="exact")
        # scipy's beta quantile is good to ~1e-9 relative here; ours solves the tail
        assert low == pytest.approx(ref.low, rel=1e-8, abs=1e-300)
        assert high == pytest.approx(ref.high, rel=1e-8)
        # the defining equations, with scipy's binomial law as the oracle
        if c > 0:
            assert stats.binom.sf(c - 1, n, low) == pytest.approx(half, rel=1e-11)
        else:
            assert low == 0.0
        if c < n:
            assert stats.binom.cdf(c, n, high) == pytest.approx(half, rel=1e-11)
        else:
            assert high == 1.0


def test_binomial_tail_keeps_a_small_tail():
    assert binomial_tail(0, 3, 1000, 0.2) == pytest.approx(stats.binom.cdf(3, 1000, 0.2),
                                                         rel=1e-11)
    assert binomial_tail(990, 1000, 1000, 0.5) == pytest.approx(
        stats.binom.sf(989, 1000, 0.5), rel=1e-10)


@pytest.mark.parametrize("na, nb", [(5, 5), (3, 7), (16, 16), (1, 4), (10, 3)])
def test_fisher_exact_is_scipys(na, nb):
    for ca in range(na + 1):
        for cb in range(nb + 1):
            ref = stats.fisher_exact([[ca, na - ca], [cb, nb - cb]])[1]
            assert fisher_exact(ca, na, cb, nb) == pytest.approx(ref, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("na, nb", [(5, 5), (4, 6), (8, 8)])
def test_fisher_size_is_the_null_chance_of_rejecting(na, nb):
    alpha = 0.05
    for total in range(na + nb + 1):
        law = stats.hypergeom(na + nb, na, total)  # A's successes given the total
        want = math.fsum(
            law.pmf(x) for x in range(max(0, total - nb), min(total, na) + 1)
            if stats.fisher_exact([[x, na - x], [total - x, nb - total + x]])[1] <= alpha)
        assert fisher_size(total, na, nb, alpha) == pytest.approx(want, abs=1e-14)
        assert fisher_size(total, na, nb, alpha) <= alpha
    assert fisher_size(5, 5, 5, 0.05) == pytest.approx(2 / math.comb(10, 5))
    assert fisher_size(0, 5, 5, 0.05) == fisher_size(10, 5, 5, 0.05) == 0.0


@pytest.mark.parametrize("call, message", [
    (lambda: clopper_pearson(6, 5), "`successes` must be at most `n`=5, got 6"),
    (lambda: clopper_pearson(1, 0), "`n` must be a positive integer, got 0"),
    (lambda: clopper_pearson(1.0, 5), "`successes` must be a non-negative integer"),
    (lambda: clopper_pearson(1, 5, 1.5), "`confidence_level` must be between 0 and 1"),
    (lambda: fisher_exact(1, 5, -1, 5), "`successes_b` must be a non-negative integer"),
    (lambda: fisher_size(11, 5, 5, 0.05), "`total` must be at most `n_a + n_b`=10"),
])
def test_bad_input_is_one_line(call, message):
    with pytest.raises(ValueError) as caught:
        call()
    assert message in str(caught.value) and "\n" not in str(caught.value)

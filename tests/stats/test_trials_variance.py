"""The unbiased variance of an item's pass@k, pass^k and maj@k estimate over its trials
(pairboot.stats.trials.estimate_variance) against exact enumeration of every 0/1
sequence of n trials, the estimate itself brute-forced over every k-subset."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from pairboot.stats.trials import ESTIMATORS, estimate_variance

EVENTS = {"pass@": lambda s, k: sum(s) >= 1, "pass^": lambda s, k: sum(s) == k,
          "maj@": lambda s, k: 2 * sum(s) > k}


def brute_estimate(seq, kind, k):
    """The mean of the event over every k-subset of the trials, in fractions."""
    subsets = list(itertools.combinations(seq, k))
    return Fraction(sum(EVENTS[kind](s, k) for s in subsets), len(subsets))


@pytest.mark.parametrize("kind", list(ESTIMATORS))
@pytest.mark.parametrize("k,n", [(1, 2), (1, 5), (2, 4), (2, 6), (3, 6), (3, 7)])
def test_the_variance_estimate_is_unbiased_by_exact_enumeration(kind, k, n):
    for p in (Fraction(1, 5), Fraction(1, 2), Fraction(7, 9)):
        mean = second = expected_v = Fraction(0)
        for seq in itertools.product((0, 1), repeat=n):
            c = sum(seq)
            prob = p ** c * (1 - p) ** (n - c)
            f = brute_estimate(seq, kind, k)
            mean += prob * f
            second += prob * f * f
            expected_v += prob * Fraction(float(estimate_variance(kind, [n], [c], k)[0]))
        true = second - mean * mean
        assert abs(float(expected_v - true)) < 1e-12, (kind, k, n, p)


def test_one_trial_each_is_s_squared_over_n():
    n = np.array([2, 5, 10, 10, 37])
    c = np.array([1, 2, 0, 7, 20])
    s2 = c * (n - c) / (n * (n - 1.0))  # the 0/1 trials' sample variance
    for kind in ("pass@", "pass^", "maj@"):
        assert np.allclose(estimate_variance(kind, n, c, 1), s2 / n, rtol=1e-11, atol=0)


def test_never_negative_and_zero_where_the_trials_agree():
    for kind, k in itertools.product(ESTIMATORS, (1, 2, 3, 5)):
        n = np.full(30, 2 * k + 7)
        c = np.arange(30) % (n[0] + 1)
        v = estimate_variance(kind, n, c, k)
        assert (v >= 0).all()
        assert estimate_variance(kind, [12, 12], [0, 12], min(k, 6)).tolist() == [0.0, 0.0]


def test_fewer_than_2k_trials_is_refused():
    with pytest.raises(ValueError, match="fewer than k = 6"):
        estimate_variance("pass^", [5], [3], 3)
    assert math.isfinite(float(estimate_variance("pass^", [6], [3], 3)[0]))

"""The per-item estimators of k trials against brute-force enumeration of every k-subset
of an item's trials (exact fractions) and Chen et al.'s numpy reference."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from pairboot.stats.trials import check_counts, maj_at_k, pass_at_k, pass_hat_k

EVENTS = {  # what each estimator averages over the k-subsets of an item's trials
    pass_at_k: lambda sub: any(sub),
    pass_hat_k: lambda sub: all(sub),
    maj_at_k: lambda sub: 2 * sum(sub) > len(sub),  # an even k's tie fails
}


def _enumerated(trials: list[int], k: int, event) -> Fraction:
    subsets = list(itertools.combinations(trials, k))
    return Fraction(sum(bool(event(s)) for s in subsets), len(subsets))


def _items(seed: int, count: int, top: int = 8):
    """Items with 1 ... top trials of 0/1 outcomes, success rates all over [0, 1]."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n = int(rng.integers(1, top + 1))
        out.append([int(v) for v in rng.random(n) < rng.random()])
    return out


@pytest.mark.parametrize("estimator", list(EVENTS), ids=lambda f: f.__name__)
def test_equals_enumeration_of_every_subset(estimator):
    items = _items(7, 60) + [[0] * 5, [1] * 5, [1, 0], [0, 1, 1, 0]]
    n = np.array([len(t) for t in items])
    c = np.array([sum(t) for t in items])
    for k in range(1, 9):
        rows = np.flatnonzero(n >= k)
        got = estimator(n[rows], c[rows], k)
        want = [_enumerated(items[i], k, EVENTS[estimator]) for i in rows]
        # the floats are the fractions to rounding: a few ulps, never a wrong term
        assert got == pytest.approx([float(w) for w in want], rel=1e-13, abs=1e-15)
        exact = [w in (0, 1) for w in want]
        assert all(got[j] == float(want[j]) for j in np.flatnonzero(exact))


def test_pass_at_k_is_chen_et_al_reference():
    def chen(n, c, k):  # the Codex paper's numerically stable estimator
        if n - c < k:
            return 1.0
        return 1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1))

    rng = np.random.default_rng(3)
    n = rng.integers(1, 200, size=300)
    c = rng.integers(0, n + 1)
    for k in (1, 2, 5, 10, 50):
        rows = n >= k
        want = [chen(int(a), int(b), k) for a, b in zip(n[rows], c[rows])]
        assert pass_at_k(n[rows], c[rows], k) == pytest.approx(want, rel=1e-12, abs=1e-14)


def test_k_one_is_the_success_rate_and_not_a_power():
    n, c = np.array([4, 8, 10]), np.array([2, 6, 7])
    for f in (pass_at_k, pass_hat_k, maj_at_k):
        assert f(n, c, 1) == pytest.approx(c / n, rel=1e-14)
    # pass^2 of 2 successes in 4 trials is 1/6, not (1/2)**2 (biased upward)
    assert pass_hat_k([4], [2], 2)[0] == pytest.approx(1 / 6, rel=1e-14)


def test_large_counts_stay_finite_and_in_range():
    n = np.array([5000, 5000, 2000, 3])
    c = np.array([4999, 1, 1000, 3])
    for f in (pass_at_k, pass_hat_k, maj_at_k):
        v = f(n, c, 3)
        assert np.isfinite(v).all() and (v >= 0).all() and (v <= 1).all()
    # by symmetry a coin-flip item's majority of an odd k is 1/2
    assert maj_at_k([2000], [1000], 1001)[0] == pytest.approx(0.5, abs=1e-9)
    assert pass_hat_k([5000], [4999], 64)[0] == pytest.approx(1 - 64 / 5000, rel=1e-12)


@pytest.mark.parametrize(("n", "c", "k", "item", "words"), [
    ([3, 2], [1, 1], 3, 1, "has 2 trial(s), fewer than k = 3"),
    ([3, 0], [1, 0], 1, 1, "has no trial"),
    ([3, 3], [1, 4], 2, 1, "has 4 successes in 3 trials"),
    ([3], [1], 0, -1, "k must be a whole number >= 1"),
    ([3], [1], 2.0, -1, "k must be a whole number >= 1"),
    ([3], [1], True, -1, "k must be a whole number >= 1"),
])
def test_bad_counts_are_named(n, c, k, item, words):
    found = check_counts(n, c, k)
    assert found is not None and found[0] == item and words in found[1]
    with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
        pass_hat_k(n, c, k)

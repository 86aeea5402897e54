"""The permutation test's swaps: the numba kernel and the numpy reference give the same
bits and sums, half the units swap on average, and a split of the units adds up.

Reference: the numpy reference's bits from :func:`pairboot.engine.swaps.swap_bits`, summed
by hand.
"""

from __future__ import annotations

import numpy as np
import pytest

from pairboot.engine import DrawPlan
from pairboot.engine.keys import position_keys, seed_word
from pairboot.engine.swaps import swap_bits, swap_sums_numpy, swapped_unit_sums

RNG = np.random.default_rng(11)
N, R = 700, 300


def plan_of(x, sizes):
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    return DrawPlan.from_columns(x, starts, sizes, keys=position_keys(0, len(x)))


def test_the_reference_sums_its_own_bits():
    x = np.column_stack([RNG.random(N), np.ones(N), RNG.random(N)])
    plan = plan_of(x, [N])
    word = seed_word(5, 1)
    got, name = swapped_unit_sums(plan, word, 0, R, "numpy")
    bits = swap_bits(plan.keys, word, np.arange(R))
    np.testing.assert_allclose(got[:, 0], bits @ x, rtol=1e-12)
    assert name == "numpy"
    assert abs(bits.mean() - 0.5) < 4.5 * np.sqrt(0.25 / bits.size)


def test_numba_gives_the_reference_s_sums():
    pytest.importorskip("numba")
    x = np.column_stack([RNG.random(N), np.ones(N), RNG.random(N) * 10])
    plan = plan_of(x, [300, 400])
    word = seed_word(7, 2)
    ref, _ = swapped_unit_sums(plan, word, 50, 50 + R, "numpy")
    got, name = swapped_unit_sums(plan, word, 50, 50 + R, "numba")
    assert name == "numba"
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)


def test_a_split_of_the_units_adds_up():
    x = RNG.random((N, 2))
    keys = position_keys(0, N)
    word = seed_word(3, 0)
    whole, totals = np.empty((R, 1, 2)), np.empty((R, 1))
    swap_sums_numpy(x, keys, np.array([0]), np.array([N]), word, 0, R, whole, totals)
    parts = np.zeros((R, 1, 2))
    for lo, hi in ((0, 123), (123, N)):
        out, tot = np.empty((R, 1, 2)), np.empty((R, 1))
        swap_sums_numpy(x[lo:hi], keys[lo:hi], np.array([0]), np.array([hi - lo]), word, 0,
                        R, out, tot)
        parts += out
    np.testing.assert_allclose(parts, whole, rtol=1e-12)

"""A family's relabellings: the table of the shuffle's first steps, and the numba kernels'
sums against the plain loop (bit for bit) and the numpy reference (to rounding).

References: :func:`pairboot.engine.permutations.permutation_indices` (the shuffle step
by step, numpy), the plain loop ``_plain_sums`` (the kernel before issue 35, which the
golden digests of tests/comparisons/test_permutation_golden.py pin) and the numpy
reference ``relabelled_sums_numpy``.
"""

from __future__ import annotations

import types

import numpy as np
import pytest

from pairboot.engine.keys import position_keys, seed_word
from pairboot.engine.permutations import (
    first_steps_table,
    permutation_indices,
    relabelled_row_sums,
)
from pairboot.engine.spec import GAMMA, bounded, mix64

RNG = np.random.default_rng(35)


def unpack(packed, m):
    return (np.asarray(packed, dtype=np.uint64)[..., None]
            >> (np.uint64(4) * np.arange(m, dtype=np.uint64))) & np.uint64(15)


@pytest.mark.parametrize("m", [1, 2, 3, 5, 8, 9])
def test_the_first_steps_table_is_the_shuffle_step_by_step(m):
    keys = position_keys(1, 500)
    word = seed_word(4, 0)
    want = permutation_indices(keys, word, np.arange(7), m)  # (7, 500, m)
    with np.errstate(over="ignore"):
        h = mix64(mix64(keys ^ word)[None, :]
                  + (np.arange(7, dtype=np.uint64)[:, None] + np.uint64(1)) * GAMMA)
    code = bounded(h, np.uint64(np.prod(np.arange(1, m + 1))))
    got = unpack(first_steps_table(m)[code.astype(np.int64)], m)
    np.testing.assert_array_equal(got, want)
    assert len(np.unique(first_steps_table(m))) == len(first_steps_table(m))  # (m! distinct)


def test_the_table_refuses_more_steps_than_one_word_holds():
    with pytest.raises(ValueError, match="one word"):
        first_steps_table(10)


def table_of(n, m, k, differences, *, same=(), zeros=False):
    """Rows of ``m`` systems' ``k`` columns and ``differences`` more; the columns in
    ``same`` equal for every system (a count), varying from unit to unit unless 1."""
    own = RNG.normal(0, 1, (n, m, k))
    for c in same:
        own[:, :, c] = RNG.integers(1, 4, n)[:, None] if c else 1.0
    if zeros:  # (-0.0 in one system, +0.0 in the others: still the same)
        own[::7, :, same[0]] = 0.0
        own[::7, 0, same[0]] = -0.0
    return np.column_stack([own.reshape(n, m * k), RNG.normal(0, 1, (n, differences))])


CASES = [  # (m, k, differences, same columns, strata sizes, r0, r1)
    (2, 2, 1, (1,), [150, 90], 3, 100),
    (2, 1, 0, (), [200], 0, 70),
    (3, 2, 0, (1,), [1, 0, 250], 64, 200),
    (3, 3, 3, (), [120, 80], 5, 77),
    (5, 2, 5, (1,), [300], 0, 129),
    (6, 2, 0, (0, 1), [90, 60], 0, 40),
    (8, 3, 0, (2,), [200], 17, 90),
    (9, 1, 0, (), [160], 0, 64),
    (10, 2, 10, (1,), [100, 7, 93], 0, 65),
    (16, 2, 0, (1,), [120], 0, 33),
    (17, 1, 0, (), [50], 0, 20),
]


def run(backend, rows, m, k, differences, sizes, r0, r1):
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    keys = position_keys(9, len(rows))
    return relabelled_row_sums(rows, keys, starts, np.array(sizes), seed_word(2, 7), r0, r1,
                               m, k, differences, backend)


def plain(rows, m, k, differences, sizes, r0, r1):
    from pairboot.engine import permutation_kernels as pk
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    out = np.zeros((r1 - r0, len(sizes), rows.shape[1]))
    mode = 0 if not differences else (1 if m == 2 and differences == 1 else 2)
    pk._plain_sums(rows, position_keys(9, len(rows)), starts, np.array(sizes, np.int64),
                   np.uint64(seed_word(2, 7)), np.int64(r0), np.int64(r1), np.int64(m),
                   np.int64(k), np.int64(mode), out)
    return out


@pytest.mark.parametrize("case", CASES, ids=[f"m{c[0]}-k{c[1]}-d{c[2]}" for c in CASES])
def test_numba_gives_the_plain_loop_s_bits_and_the_reference_s_sums(case):
    pytest.importorskip("numba")
    m, k, differences, same, sizes, r0, r1 = case
    rows = table_of(sum(sizes), m, k, differences, same=same, zeros=bool(same))
    got, name = run("numba", rows, m, k, differences, sizes, r0, r1)
    assert name == "numba"
    np.testing.assert_array_equal(got, plain(rows, m, k, differences, sizes, r0, r1))
    ref, name = run("numpy", rows, m, k, differences, sizes, r0, r1)
    assert name == "numpy"
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)


@pytest.mark.slow  # (over 2 s: a numba kernel compiled)
def test_the_gather_gives_the_permute_s_bits():
    """On a processor with AVX-512 the lane kernel permutes in registers; the kernel
    every other processor compiles (a gather) is compiled here too and must agree."""
    numba = pytest.importorskip("numba")
    from pairboot.engine import permutation_kernels as pk
    from pairboot.engine.relabel_ir import make_relabel_unit

    source = pk._lane_sums.py_func
    scope = {**source.__globals__, "_relabel_unit": make_relabel_unit(False)}
    gathers = numba.njit(parallel=True)(types.FunctionType(source.__code__, scope))
    for m, kv in [(3, 1), (7, 2), (10, 3), (16, 1)]:
        x = np.concatenate([RNG.normal(0, 1, 300 * m * kv), np.zeros(16)])
        first = min(m, pk.FIRST_STEPS)
        args = (x, position_keys(5, 300), np.array([0, 100]), np.array([100, 200]),
                np.uint64(seed_word(3, 1)), np.int64(6), np.int64(90), np.int64(m),
                np.int64(kv), first_steps_table(first),
                np.uint64(np.prod(np.arange(1, first + 1))), np.int64(first))
        want, got = np.empty((84, 2, m * kv)), np.empty((84, 2, m * kv))
        pk._lane_sums(*args, want)
        gathers(*args, got)
        np.testing.assert_array_equal(got, want)


def test_a_kernel_that_does_not_compile_leaves_the_plain_loop(monkeypatch):
    pytest.importorskip("numba")
    from numba.core.errors import LoweringError

    from pairboot.engine import permutation_kernels as pk

    def broken(*args):
        raise LoweringError("an llvmlite without this intrinsic")

    broken.signatures = []
    monkeypatch.setattr(pk, "_lane_sums", broken)
    monkeypatch.setitem(pk._lanes, "compiles", True)
    rows = table_of(120, 4, 2, 0, same=(1,))
    got, _ = run("numba", rows, 4, 2, 0, [120], 0, 50)
    assert pk._lanes["compiles"] is False
    np.testing.assert_array_equal(got, plain(rows, 4, 2, 0, [120], 0, 50))


def test_the_sums_do_not_depend_on_the_batches():
    pytest.importorskip("numba")
    rows = table_of(400, 5, 2, 0, same=(1,))
    whole, _ = run("numba", rows, 5, 2, 0, [400], 0, 300)
    parts = np.concatenate([run("numba", rows, 5, 2, 0, [400], a, b)[0]
                            for a, b in [(0, 37), (37, 64), (64, 300)]])
    np.testing.assert_array_equal(parts, whole)


@pytest.mark.parametrize("backend", ["numba", "numpy"])
def test_columns_not_needed_are_nan_and_the_others_the_same_bits(backend):
    """``needed``: the kernel skips a block of columns no caller reads (a mean's own
    scores, when every contrast is read off the differences); the rest keep their bits."""
    if backend == "numba":
        pytest.importorskip("numba")
    m, k, sizes = 10, 2, [100, 7, 93]
    rows = table_of(sum(sizes), m, k, m, same=(1,))
    whole, _ = run(backend, rows, m, k, m, sizes, 0, 65)
    needed = np.ones(m * k + m, dtype=bool)
    needed[0:m * k:k] = False  # (every system's score)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    part, _ = relabelled_row_sums(rows, position_keys(9, len(rows)), starts, np.array(sizes),
                                  seed_word(2, 7), 0, 65, m, k, m, backend, needed)
    assert np.isnan(part[..., ~needed]).all()
    np.testing.assert_array_equal(part[..., needed], whole[..., needed])

"""The resampling kernels: same draws, same distribution, reproducible bit for bit.

Timing does not belong here (see ``benchmarks/bench.py``); these tests check that every
fast path computes what the simple one does:

- the numba kernel (both its gather and its counting path) against the numpy reference
  kernel, to rounding, on unequal strata and 1 to 5 columns; exact wrap-around of the
  byte counts; the vector sweep's documented order of addition, bit for bit;
- bit-identical sums for 1 and 2 threads and for any split of the replicates into calls;
- uniform draws (chi-square at p = 1e-6, so only a real bug fails);
- the exact multinomial path against the index path: mean, variance and covariance of
  the sums against their analytic values, within five Monte Carlo standard errors.
"""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
from scipy import stats

from pairboot import Progress
from pairboot.engine import DrawPlan, multinomial, resample_sums, spec
from pairboot.engine.numpy_kernel import index_sums_numpy, tree_cells, tree_draws
from pairboot.engine.spec import replicate_keys

P_FAIL = 1e-6
"""Chance that a statistical check fails without a bug."""

Z = 5.0
"""Monte Carlo tolerance in standard errors (two-sided tail about 6e-7)."""

# (starts, sizes): one stratum; unequal strata, a stratum of 1 and 3 units, one longer
# than a vectorised block (256) with a ragged tail, and an empty stratum.
LAYOUTS = [
    ([0], [1000]),
    ([0, 100, 1100, 1103, 1104], [100, 1000, 3, 1, 2897]),
    ([0, 517, 517], [517, 0, 3483]),
]


@pytest.fixture(scope="module")
def nb():
    """The numba kernel module (the tests using it skip when numba is missing)."""
    pytest.importorskip("numba")
    from pairboot.engine import numba_kernels  # noqa: PLC0415

    return numba_kernels


TREE = {"tree_units": 256, "cell_bits": 5}
"""Small strata drawn top bits first (1,000 units: 32 cells), for the tree path's tests."""

PATHS = {
    "gather": {"count_bytes": 1 << 60},
    "count": {"count_bytes": 0},
    "tree": TREE,
    "tree+count": {"count_bytes": 0, **TREE},
}
"""Keyword arguments of ``index_sums`` that select each path (tree strata are counted;
with "tree" the small strata are gathered, with "tree+count" counted: both kernels run)."""


def _reference(x, starts, sizes, keys, **tree):
    out = np.empty((len(keys), len(starts), x.shape[1]))
    index_sums_numpy(x, np.asarray(starts), np.asarray(sizes), keys, out, **tree)
    return out


def _kernel(nb, x, starts, sizes, keys, count_bytes=None, **tree):
    out = np.full((len(keys), len(starts), x.shape[1]), np.nan)
    nb.index_sums(
        x, np.asarray(starts), np.asarray(sizes), keys, out, count_bytes=count_bytes, **tree
    )
    return out


# --- same numbers as the numpy reference -----------------------------------------------------


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("layout", range(len(LAYOUTS)))
@pytest.mark.parametrize("path", list(PATHS))
def test_numba_matches_numpy_reference(nb, k, layout, path):
    starts, sizes = LAYOUTS[layout]
    n = starts[-1] + sizes[-1]
    rng = np.random.default_rng(100 * k + layout)
    # Scores in [0, 1] with a column of larger values: sums far from cancellation, so a
    # relative tolerance on rounding is meaningful.
    x = rng.uniform(size=(n, k))
    x[:, -1] *= 1000.0
    keys = replicate_keys(7 + layout, 0, 67)
    tree = TREE if path.startswith("tree") else {}
    got = _kernel(nb, x, starts, sizes, keys, **PATHS[path])
    expected = _reference(x, starts, sizes, keys, **tree)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0)
    if tree:  # the strata of TREE_UNITS units or more draw other units
        flat = _reference(x, starts, sizes, keys)
        for d, size in enumerate(sizes):
            assert np.array_equal(expected[:, d], flat[:, d]) == (size < TREE["tree_units"])


def test_default_tree_threshold(nb):
    """A stratum of TREE_UNITS units is drawn top bits first, one unit fewer is not."""
    big = spec.TREE_UNITS
    starts, sizes = [0, big], [big, big - 1]
    x = np.random.default_rng(8).uniform(size=(2 * big - 1, 1))
    keys = replicate_keys(12, 0, 2)
    got = _kernel(nb, x, starts, sizes, keys)
    np.testing.assert_allclose(got, _reference(x, starts, sizes, keys), rtol=1e-12)
    # the flat draws, for contrast: the same for the smaller stratum only
    flat = _reference(x, starts, sizes, keys, tree_units=2 * big)
    assert not np.allclose(got[:, 0], flat[:, 0]) and np.allclose(got[:, 1], flat[:, 1])


@pytest.mark.parametrize("k", [2, 3])
def test_default_threshold_uses_both_paths(nb, k):
    """A stratum above the threshold is counted, a small one gathered: same draws."""
    threshold = nb.COUNT_PATH_BYTES if k <= 2 else nb.COUNT_PATH_BYTES_WIDE
    big = threshold // (8 * k) + 1
    starts, sizes = [0, 50], [50, big]
    x = np.random.default_rng(3).uniform(size=(50 + big, k))
    keys = replicate_keys(11, 0, 3)
    got = _kernel(nb, x, starts, sizes, keys)
    np.testing.assert_allclose(got, _reference(x, starts, sizes, keys), rtol=1e-12)
    # The paths round differently: the default must match the gathered small stratum
    # and the counted big one bit for bit.
    np.testing.assert_array_equal(got[:, 0], _kernel(nb, x, starts, sizes, keys, 1 << 60)[:, 0])
    np.testing.assert_array_equal(got[:, 1], _kernel(nb, x, starts, sizes, keys, 0)[:, 1])


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("n", [600, 613])
def test_count_overflow_is_exact(nb, k, n):
    """Counts are bytes; a count passing 255 must still contribute exactly.

    Starting the counts at 0, 3, 254 or 255 (the kernel expects 0 and leaves 0) makes
    the counts of the units started high wrap, some twice or more (counts from 254 wrap
    at the second draw); the result must then be the reference sums plus the start
    counts times the rows.  k = 1 and 2 use the vector sweeps of the counting path, k = 3
    the wide path (three replicates counted together); 613 units leave a tail after the
    sweep's whole vector steps.
    """
    rng = np.random.default_rng(5)
    x = rng.uniform(size=(n + 7, k))
    xt = np.ascontiguousarray(x.T)
    n_keys = 1 if k <= 2 else 3
    keys = replicate_keys(13, 0, n_keys)
    buf = np.empty(256, dtype=np.uint64)
    start_counts = rng.choice(np.array([0, 3, 254, 255], dtype=np.uint8), size=n)
    planes = np.zeros((n_keys, n + 5), dtype=np.uint8)
    planes[:, :n] = start_counts
    accs = np.empty((n_keys, k))
    wraps = np.empty(n + 1, dtype=np.uint64)  # with counts started high: up to n wraps
    lanes = np.empty((n_keys, k, 16))
    if k <= 2:
        nb._count(x, xt, 7, n, keys[0], buf, planes[0], wraps, accs[0], lanes[0, 0])
    else:
        nb._block(x, xt, 7, n, keys, buf, planes, wraps, lanes, accs)
    drawn = _reference(x, [7], [n], keys)[:, 0]
    expected = drawn + start_counts.astype(float) @ x[7:]
    np.testing.assert_allclose(accs, expected, rtol=1e-12)
    assert not planes.any(), "the counts must be left at zero"
    # Enough wraps happened for the test to mean something.
    draws = spec.draw_units(keys[0], np.arange(7, 7 + n), n)
    per_unit = np.bincount(draws, minlength=n)
    assert ((start_counts.astype(int) + per_unit) >= 256).sum() > n // 5


@pytest.mark.parametrize("path", ["count", "tree+count"])
@pytest.mark.parametrize("k", [3, 7])
def test_wide_columns_sum_as_one_column(nb, path, k):
    """Three columns or more are counted column by column, each exactly as a one-column
    stratum is (the vector sweep's lanes and order), bit for bit, in every group of
    replicates (67 keys: eight groups and a ragged one)."""
    starts, sizes = [0, 1000, 1003], [1000, 3, 2113]
    x = np.random.default_rng(21).normal(size=(3116, k))
    keys = replicate_keys(22, 0, 67)
    got = _kernel(nb, x, starts, sizes, keys, **PATHS[path])
    for c in range(k):
        one = _kernel(nb, x[:, [c]], starts, sizes, keys, **PATHS[path])
        np.testing.assert_array_equal(got[:, :, c], one[:, :, 0])


@pytest.mark.parametrize("k", [1, 2, 3])
def test_tree_count_overflow_is_exact(nb, k):
    """The tree path, with counts started at 255 on the first cell's units.

    Every draw that lands there wraps, including draws of the straddling unit ``lo1``
    (the first unit of the second cell, whose count moves to the next cell's plane at
    offset 0, and wraps there, with the window offset by ``lo1``); each of eight
    replicates, taken together, must get the reference sums plus 255 times those units'
    rows.
    """
    n, h, n_keys = 613, 3, 8
    rng = np.random.default_rng(6)
    x = rng.uniform(size=(n + 7, k))
    keys = replicate_keys(14, 0, n_keys)
    lo1 = n >> h  # first unit of the second cell: floor(1 * n / 2**h)
    planes = np.zeros((n_keys, -(-n >> h) + 2), dtype=np.uint8)
    planes[:, : lo1 + 1] = 255
    accs = np.empty((n_keys, k))
    nb._tree(
        x, np.ascontiguousarray(x.T), 7, n, h, keys, np.empty(256, dtype=np.uint64), planes,
        np.empty(n + 1, dtype=np.uint64),  # with counts started high: up to n wraps
        np.empty((2, 1 << h), dtype=np.int64), np.empty((n_keys, 1 << h), dtype=np.int64),
        np.empty(n_keys, dtype=np.uint64), accs, np.empty(16),
    )
    tree = {"tree_units": n, "cell_bits": (n - 1).bit_length() - h}
    drawn = _reference(x, [7], [n], keys, **tree)[:, 0]
    expected = drawn + 255 * x[7 : 7 + lo1 + 1].sum(axis=0)
    np.testing.assert_allclose(accs, expected, rtol=1e-12)
    assert not planes.any(), "the planes must be left at zero"
    # Wraps did happen in the first cell, and of unit lo1 in the second one.
    cells = [tree_cells(key, 7, n, h) for key in keys]
    assert all(c[0] > 0 for c in cells)
    second = [tree_draws(key, 7, n, h)[c[0] : c[0] + c[1]] for key, c in zip(keys, cells)]
    assert any((units == lo1).any() for units in second)


@pytest.mark.parametrize("k", [1, 2])
def test_vector_sweep_is_the_documented_sum(nb, k):
    """The vector sweep adds in the order its docstring gives, bit for bit."""
    from numba import njit  # noqa: PLC0415

    sweep = {1: nb._sweep_1, 2: nb._sweep_2}[k]
    call = njit(lambda cnt, x, start, size, acc: sweep(cnt, x, start, size, acc))
    g = 8 // k
    step = 2 * g
    for size in (0, 1, step - 1, step, 5 * step + 3):
        rng = np.random.default_rng(size)
        x = rng.normal(size=(size + 3, k))
        counts = rng.integers(0, 256, size=size).astype(np.uint8)
        cnt = np.concatenate([counts, np.full(4, 9, dtype=np.uint8)])
        acc = np.full(k, 0.25)
        call(cnt, x, 3, size, acc)
        w, xs = counts.astype(float), x[3:]
        n_main = size // step * step
        for c in range(k):
            lanes = [[0.0] * g for _ in range(2)]
            for u in range(n_main):
                lanes[(u // g) % 2][u % g] += w[u] * xs[u, c]
            total = lanes[0][0] + lanes[1][0]
            for slot in range(1, g):
                total += lanes[0][slot] + lanes[1][slot]
            tail = 0.0
            for u in range(n_main, size):
                tail += w[u] * xs[u, c]
            assert acc[c] == 0.25 + (total + tail), (size, c)
        assert not cnt[:size].any() and (cnt[size:] == 9).all()


def test_large_sizes_use_the_exact_multiply_high(nb):
    """The kernels' draws bounded by sizes near 2**32 equal spec.bounded's exact arithmetic."""
    keys = replicate_keys(17, 0, 5)
    draws = 1000
    buf = np.empty(draws, dtype=np.uint64)
    for size in (3, 1000, 2**31 + 11, 2**32 - 1):
        for key in keys:
            units = spec.draw_units(key, np.arange(draws), size)
            assert units.min() >= 0 and units.max() < size
            with np.errstate(over="ignore"):
                first = key + spec.GAMMA  # the counter of draw 0
            nb._fill(buf, draws, first, np.uint64(size), np.uint64(0))
            np.testing.assert_array_equal(buf, units)


def test_out_may_be_any_float_array(nb):
    x = np.random.default_rng(1).uniform(size=(300, 2))
    keys = replicate_keys(1, 0, 4)
    expected = _kernel(nb, x, [0], [300], keys)
    out = np.zeros((1, 2, 4)).transpose(2, 0, 1)  # (4, 1, 2), not contiguous
    nb.index_sums(x, np.array([0]), np.array([300]), keys, out)
    np.testing.assert_array_equal(out, expected)


def test_bad_layouts_are_refused(nb):
    x = np.zeros((10, 1))
    keys = replicate_keys(0, 0, 2)
    out = np.empty((2, 1, 1))
    with pytest.raises(ValueError, match="within the rows"):
        nb.index_sums(x, np.array([5]), np.array([6]), keys, out)
    with pytest.raises(ValueError, match="shape"):
        nb.index_sums(x, np.array([0]), np.array([10]), keys, np.empty((3, 1, 1)))


# --- reproducible whatever the threads and batches --------------------------------------------


def test_bit_identical_for_any_thread_count(nb):
    import numba  # noqa: PLC0415

    if numba.config.NUMBA_NUM_THREADS < 2:  # a 1-CPU runner: rerun with three threads
        import os  # noqa: PLC0415
        import subprocess  # noqa: PLC0415
        import sys  # noqa: PLC0415

        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
             f"{__file__}::test_bit_identical_for_any_thread_count"],
            env={**os.environ, "NUMBA_NUM_THREADS": "3"}, capture_output=True, text=True,
            check=False,
        )
        assert proc.returncode == 0 and "1 passed" in proc.stdout, proc.stdout + proc.stderr
        return
    starts, sizes = LAYOUTS[1]
    before = numba.get_num_threads()
    for k in (1, 2, 3):  # k = 1 and 2 have their own gather and sweep code
        x = np.random.default_rng(2).normal(size=(starts[-1] + sizes[-1], k))
        keys = replicate_keys(5, 0, 203)
        try:
            results = {}
            for threads in (1, 2):
                numba.set_num_threads(threads)
                for path, kwargs in PATHS.items():
                    results[threads, path] = _kernel(nb, x, starts, sizes, keys, **kwargs)
        finally:
            numba.set_num_threads(before)
        for path in PATHS:
            np.testing.assert_array_equal(results[1, path], results[2, path])


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("path", ["gather", "count", "tree"])
def test_bit_identical_for_any_split_of_the_replicates(nb, k, path):
    starts, sizes = LAYOUTS[1]
    x = np.random.default_rng(4).normal(size=(starts[-1] + sizes[-1], k))
    keys = replicate_keys(9, 3, 300)
    whole = _kernel(nb, x, starts, sizes, keys, **PATHS[path])
    cuts = [0, 1, 64, 65, 77, 200, 300]
    parts = [
        _kernel(nb, x, starts, sizes, keys[a:b], **PATHS[path]) for a, b in zip(cuts, cuts[1:])
    ]
    np.testing.assert_array_equal(np.concatenate(parts), whole)


@pytest.mark.parametrize("backend", ["numba", "numpy"])
def test_resample_sums_do_not_depend_on_batches(backend):
    """R = 100 (one memory batch) is a prefix of R = 2100 (several batches)."""
    if backend == "numba":
        pytest.importorskip("numba")
    x = np.random.default_rng(6).normal(size=(500, 2))
    plan = DrawPlan.from_columns(x, [0, 200], [200, 300])
    short, path = resample_sums(plan, 100, seed=42, backend=backend)
    long, _ = resample_sums(plan, 2100, seed=42, backend=backend)
    assert path == backend
    np.testing.assert_array_equal(long[:100], short)


def test_keys_are_a_prefix():
    np.testing.assert_array_equal(replicate_keys(3, 0, 1000)[:100], replicate_keys(3, 0, 100))
    assert not np.array_equal(replicate_keys(3, 0, 64), replicate_keys(3, 1, 64))
    assert not np.array_equal(replicate_keys(3, 0, 64), replicate_keys(4, 0, 64))


@pytest.mark.slow
def test_import_pairboot_does_not_import_numba():
    code = "import sys, pairboot; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --- uniform draws -------------------------------------------------------------------------


def _chi2_uniform_pvalue(counts):
    counts = np.asarray(counts, dtype=float)
    expected = counts.sum() / len(counts)
    chi2 = float(((counts - expected) ** 2).sum() / expected)
    return stats.chi2.sf(chi2, len(counts) - 1)


@pytest.mark.parametrize("size", [7, 13, 16])
@pytest.mark.parametrize("path", ["gather", "count", "tree"])
def test_numba_draws_are_uniform(nb, size, path):
    """One-hot rows make the sums the counts of each unit: pooled, they are uniform.

    The stratum sits after another one, so the counters do not start at 0.  The tree
    path splits the 7 to 16 units into 2 or 4 cells.
    """
    x = np.zeros((5 + size, size))
    x[5:] = np.eye(size)
    keys = replicate_keys(21, 0, 20_000)
    kwargs = {"tree_units": 7, "cell_bits": 2} if path == "tree" else PATHS[path]
    counts = _kernel(nb, x, [0, 5], [5, size], keys, **kwargs)
    per_unit = counts[:, 1].sum(axis=0)
    assert per_unit.sum() == size * len(keys)
    assert _chi2_uniform_pvalue(per_unit) > P_FAIL
    # Each replicate draws exactly `size` units.
    np.testing.assert_array_equal(counts[:, 1].sum(axis=1), size)


@pytest.mark.parametrize("draw", [
    lambda key, size: spec.draw_units(key, np.arange(size), size),  # flat
    lambda key, size: tree_draws(key, 3, size, 4),  # tree, 16 cells
], ids=["flat", "tree"])
def test_engine_draws_are_uniform_over_many_units(draw):
    size = 1000
    keys = replicate_keys(23, 0, 200)
    counts = np.zeros(size)
    for key in keys:
        counts += np.bincount(draw(key, size), minlength=size)
    assert counts.sum() == size * len(keys)
    assert _chi2_uniform_pvalue(counts) > P_FAIL


@pytest.mark.slow
@pytest.mark.parametrize("size", [1, 63, 64, 65, 1000])
def test_tree_split_is_binomial_and_cells_are_windows(size):
    """Each split is Binomial(c, 1/2); cell j's draws lie in its window of units.

    The first split over 4,000 keys: mean size / 2 and variance size / 4 within Z
    standard errors.
    """
    h = 3
    keys = replicate_keys(31, 0, 4000)
    cells = np.array([tree_cells(key, 11, size, h) for key in keys])
    assert (cells.sum(axis=1) == size).all() and (cells >= 0).all()
    right = cells[:, 4:].sum(axis=1).astype(float)
    r, var = len(keys), size / 4
    assert abs(right.mean() - size / 2) <= Z * math.sqrt(var / r)
    sq = (right - size / 2) ** 2  # centred at the true mean: its mean estimates var
    assert abs(sq.mean() - var) <= Z * math.sqrt(sq.var() / r) + 1e-12
    # windows: the units of cell j are those whose interval of 64-bit numbers meets j's
    draws = tree_draws(keys[0], 11, size, h)
    cell_of_draw = np.repeat(np.arange(1 << h), cells[0])
    lo = (np.arange(1 << h) * size) >> h  # floor(j * 2**(64-h) * size / 2**64)
    hi = ((np.arange(1, (1 << h) + 1) * size) - 1) >> h
    assert ((draws >= lo[cell_of_draw]) & (draws <= hi[cell_of_draw])).all()


def test_tree_draws_in_pieces_are_the_whole():
    """The numpy kernel draws a big stratum in pieces: any cut gives the same draws."""
    size, h, key = 1000, 5, replicate_keys(37, 0, 1)[0]
    whole = tree_draws(key, 4, size, h)
    cells = tree_cells(key, 4, size, h)
    cuts = [0, 1, 2, 31, 32, 500, 999, 1000]
    parts = [tree_draws(key, 4, size, h, a, b, cells) for a, b in zip(cuts, cuts[1:])]
    np.testing.assert_array_equal(np.concatenate(parts), whole)
    assert len(tree_draws(key, 4, size, h, 7, 7)) == 0


@pytest.mark.parametrize("sorted_rows", [False, True])
def test_tree_sums_have_the_multinomial_moments(nb, sorted_rows):
    """The tree path's sums: mean and covariance of size uniform draws, exactly.

    With rows sorted by value, neighbouring units (one cell) are alike, so the variance
    is mostly between cells: a split that is not Binomial(c, 1/2), or splits that are
    not independent, would show.
    """
    n, n_rep = 1000, 4000
    x = np.random.default_rng(9).gamma(2.0, size=(n, 2))
    if sorted_rows:
        x = x[np.argsort(x[:, 0])]
    sums = _kernel(nb, x, [0], [n], replicate_keys(19, 0, n_rep), **TREE)
    _moment_checks(sums[:, 0, :], x, n)


@pytest.mark.slow
def test_tree_cell_counts_are_multinomial():
    """All 2**h cell counts of the split: Multinomial(size, 2**-h) means and covariances.

    Var = n p (1 - p), Cov = -n p**2 with p = 2**-h, each within Z standard errors (from
    the sample's fourth moments) over 4,000 keys: a split reusing words between nodes,
    or levels not independent, makes neighbouring cells correlate.
    """
    size, h = 200, 3
    keys = replicate_keys(41, 0, 4000)
    cells = np.array([tree_cells(key, 5, size, h) for key in keys], dtype=float)
    # cell counts are sums of one-hot rows: the moments of draws from the rows of eye(2**h)
    _moment_checks(cells, np.eye(1 << h), size)


def test_numba_split_equals_numpy_split(nb):
    """Numba's split, node by node, on sizes around whole 64-bit words."""
    levels = np.empty((2, 1 << 4), dtype=np.int64)
    for size in (1, 2, 63, 64, 65, 127, 128, 129, 1000):
        for h in (1, 2, 4):
            for key in replicate_keys(43, 0, 3):
                got = nb._split(9, size, key, h, levels)[: 1 << h]
                np.testing.assert_array_equal(got, tree_cells(key, 9, size, h))


@pytest.mark.parametrize("kwargs", [{"tree_units": 1}, {"cell_bits": 1}, {"cell_bits": 0}])
def test_tree_settings_that_could_empty_cells_are_refused(nb, kwargs):
    x, keys, out = np.zeros((10, 1)), replicate_keys(0, 0, 2), np.empty((2, 1, 1))
    with pytest.raises(ValueError, match="tree_units >= 2 and cell_bits >= 2"):
        nb.index_sums(x, np.array([0]), np.array([10]), keys, out, **kwargs)
    with pytest.raises(ValueError, match="tree_units >= 2 and cell_bits >= 2"):
        index_sums_numpy(x, np.array([0]), np.array([10]), keys, out, **kwargs)


def test_tree_path_on_the_smallest_strata(nb):
    """Strata of 2 to 40 units with cell_bits = 2 (cells of 1 to 4 units): every draw counts."""
    sizes = list(range(2, 41))
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    x = np.ones((sum(sizes), 1))
    keys = replicate_keys(47, 0, 9)
    tree = {"tree_units": 2, "cell_bits": 2}
    got = _kernel(nb, x, starts, sizes, keys, **tree)
    np.testing.assert_array_equal(got[:, :, 0], np.broadcast_to(sizes, (9, len(sizes))))
    x = np.random.default_rng(2).normal(size=(sum(sizes), 2))
    np.testing.assert_allclose(
        _kernel(nb, x, starts, sizes, keys, **tree),
        _reference(x, starts, sizes, keys, **tree),
        rtol=1e-12,
        atol=1e-12,
    )


def test_replicates_are_independent():
    """Counts of one unit in consecutive replicates are uncorrelated (|r| < Z / sqrt(R))."""
    size, n_rep = 50, 4000
    keys = replicate_keys(29, 0, n_rep)
    first = np.array(
        [np.count_nonzero(spec.draw_units(k, np.arange(size), size) == 0) for k in keys],
        dtype=float,
    )
    r = np.corrcoef(first[:-1], first[1:])[0, 1]
    assert abs(r) < Z / math.sqrt(n_rep - 1)


# --- the exact multinomial path and the index path: one distribution ----------------------------


def _moment_checks(sums, x, size):
    """Mean, variances and covariance of the (R, k) sums against their exact values.

    For ``size`` uniform draws from the rows of ``x``: E[S] = size * mean(x) and
    Cov[S] = size * Cov_pop(x).  Standard errors are estimated from the sample:
    sqrt(var / R) for a mean and sqrt((m4 - var**2) / R) for a (co)variance.
    """
    r = len(sums)
    mean = x.mean(axis=0)
    cov = np.cov(x, rowvar=False, ddof=0) * size
    centered = sums - size * mean
    for j in range(x.shape[1]):
        se = math.sqrt(cov[j, j] / r)
        assert abs(sums[:, j].mean() - size * mean[j]) <= Z * se, ("mean", j)
    for i in range(x.shape[1]):
        for j in range(i, x.shape[1]):
            prod = centered[:, i] * centered[:, j]
            se = math.sqrt(max(prod.var(), 1e-300) / r)
            assert abs(prod.mean() - cov[i, j]) <= Z * se, ("cov", i, j, prod.mean(), cov[i, j])


def _binary_scores(n, seed):
    """Correlated 0/1 scores of two systems: few distinct rows."""
    rng = np.random.default_rng(seed)
    a = (rng.uniform(size=n) < 0.7).astype(float)
    b = np.where(rng.uniform(size=n) < 0.8, a, 1.0 - a)
    return np.column_stack([a, b])


@pytest.mark.parametrize("backend", ["numba", "numpy"])
def test_multinomial_and_index_paths_give_the_same_distribution(backend, monkeypatch):
    if backend == "numba":
        pytest.importorskip("numba")
    n, n_rep = 3000, 4000
    x = _binary_scores(n, 1)
    plan = DrawPlan.from_columns(x, [0], [n])
    exact, path = resample_sums(plan, n_rep, seed=5, backend=backend)
    assert path == "multinomial"
    monkeypatch.setattr(multinomial, "MULTINOMIAL_RATIO", 10**12)
    drawn, path = resample_sums(plan, n_rep, seed=5, backend=backend)
    assert path == backend
    for sums in (exact, drawn):
        _moment_checks(sums[:, 0, :], x, n)
    # The two samples against each other, too: Welch's test on the difference b - a.
    da, db = (s[:, 0, 1] - s[:, 0, 0] for s in (exact, drawn))
    assert stats.ttest_ind(da, db, equal_var=False).pvalue > P_FAIL


def test_jitter_takes_the_index_path_with_the_same_distribution():
    """0/1 scores plus a tiny jitter have no repeated rows: index path, same moments."""
    pytest.importorskip("numba")
    n, n_rep = 3000, 4000
    x = _binary_scores(n, 2)
    x_jit = x + np.random.default_rng(3).uniform(-1e-9, 1e-9, size=x.shape)
    exact, p1 = resample_sums(DrawPlan.from_columns(x, [0], [n]), n_rep, seed=8, backend="numba")
    drawn, p2 = resample_sums(
        DrawPlan.from_columns(x_jit, [0], [n]), n_rep, seed=8, backend="numba"
    )
    assert (p1, p2) == ("multinomial", "numba")
    _moment_checks(exact[:, 0, :], x, n)
    _moment_checks(drawn[:, 0, :], x_jit, n)


def test_strata_mix_paths_with_the_right_moments():
    """One stratum of 0/1 rows (multinomial), one continuous (index): each is right."""
    pytest.importorskip("numba")
    n0, n1, n_rep = 2000, 500, 4000
    x0 = _binary_scores(n0, 4)
    x1 = np.random.default_rng(5).gamma(2.0, size=(n1, 2))
    plan = DrawPlan.from_columns(np.concatenate([x0, x1]), [0, n0], [n0, n1])
    sums, path = resample_sums(plan, n_rep, seed=3, backend="numba")
    assert path == "multinomial+numba"
    _moment_checks(sums[:, 0, :], x0, n0)
    _moment_checks(sums[:, 1, :], x1, n1)


# --- the compile notice -----------------------------------------------------------------------


class _Recorder(Progress):
    def __init__(self):
        self.calls = []

    def __call__(self, done):
        self.calls.append(done)

    def compiling(self):
        self.calls.append("compiling")


def _fresh(func):
    """A new dispatcher of one of the kernel module's functions: compiling it is a real,
    short compile (no cache)."""
    from numba import njit  # noqa: PLC0415

    return njit(cache=False)(func.py_func)


@pytest.mark.slow
def test_compile_notice_hears_compiles_of_the_kernels_only(nb):
    from numba import njit  # noqa: PLC0415

    heard = []
    add_wraps = _fresh(nb._add_wraps)
    args = (np.ones((4, 2)), 0, np.array([1, 3], np.uint64), 2, np.zeros(2))
    with nb.compile_notice(lambda: heard.append("compiling")):
        njit(cache=False)(lambda v: v + 1)(1)  # not a kernel of the module: nothing said
        assert heard == []
        add_wraps(*args)  # compiles
        assert heard == ["compiling"]
        _fresh(nb._tally)(np.zeros(4, np.uint8), np.zeros(2, np.uint64), 2,
                          np.zeros(2, np.uint64), 0)
        assert heard == ["compiling"]  # once per notice
    with nb.compile_notice(lambda: heard.append("again")):
        add_wraps(*args)  # compiled already: nothing to say
    assert heard == ["compiling"]


@pytest.mark.parametrize("cold", [True, False])
def test_progress_hears_when_numba_compiles(nb, monkeypatch, cold):
    """``progress.compiling()`` comes before the first ``progress(done)`` when a kernel
    compiles, and not at all when none does (here: a real compile stands in for it)."""
    flat_sums = nb._flat_sums
    add_wraps = _fresh(nb._add_wraps)

    def kernel(*args):
        if cold:
            add_wraps(np.ones((2, 1)), 0, np.zeros(1, np.uint64), 0, np.zeros(1))
        return flat_sums(*args)

    monkeypatch.setattr(nb, "_flat_sums", kernel)
    plan = DrawPlan.from_columns(np.arange(40.0)[:, None], [0], [40])
    progress = _Recorder()
    resample_sums(plan, 10, 0, backend="numba", progress=progress)
    assert (progress.calls[0] == "compiling") is cold
    assert progress.calls.count("compiling") == int(cold)
    assert progress.calls[-1] == 10
    # numpy never compiles; a plain function as progress has no compiling() to call
    progress = _Recorder()
    resample_sums(plan, 10, 0, backend="numpy", progress=progress)
    assert "compiling" not in progress.calls
    resample_sums(plan, 10, 0, backend="numba", progress=lambda done: None)


def test_no_strata(nb, monkeypatch):
    """No strata: no kernel runs (nor compiles), and nothing fails."""
    def boom(*args):
        raise AssertionError("a kernel ran for no strata")

    monkeypatch.setattr(nb, "_flat_sums", boom)
    monkeypatch.setattr(nb, "_tree_sums", boom)
    out = np.empty((3, 0, 2))
    nb.index_sums(np.zeros((5, 2)), np.array([], np.int64), np.array([], np.int64),
                  replicate_keys(0, 0, 3), out)


_COLD_RUN = """
import numpy as np
from pairboot import Progress
from pairboot.engine import DrawPlan, resample_sums

class Recorder(Progress):
    calls = []
    def __call__(self, done):
        self.calls.append(done)
    def compiling(self):
        self.calls.append("compiling")

progress = Recorder()
plan = DrawPlan.from_columns(np.arange(40.0)[:, None], [0], [40])
resample_sums(plan, 10, 0, backend="numba", progress=progress)
print(progress.calls[0])
"""


@pytest.mark.slow
def test_compile_is_announced_with_an_empty_cache_only(nb, tmp_path):
    """A new process with an empty numba cache compiles the flat kernel and says so
    first; the next one loads it from the cache and says nothing (about 15 s)."""
    import os  # noqa: PLC0415

    # (pairboot's kernels are cached in PAIRBOOT_CACHE_DIR; NUMBA_CACHE_DIR for the rest)
    env = dict(os.environ, PAIRBOOT_CACHE_DIR=str(tmp_path / "pairboot"),
               NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    for expected in ("compiling", "10"):
        out = subprocess.run([sys.executable, "-c", _COLD_RUN], env=env, capture_output=True,
                             text=True, check=True).stdout.strip()
        assert out == expected

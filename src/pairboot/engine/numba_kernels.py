"""The numba kernels: draw a unit and add its statistics in one pass, on every core.

:func:`index_sums` computes exactly the draws of :mod:`.spec` (those of
:func:`.numpy_kernel.index_sums_numpy`) without an index or weight array.  Each replicate's
sum over a stratum is computed by one thread in a fixed order, so the sums are
bit-identical for any number of threads and any split of the replicates into calls; they
agree with the numpy kernel to rounding.  Each draw stratum takes one of four paths,
chosen by its size and width alone (never by the machine, so rounding is the same
everywhere):

* *gather*: draw a block of indices, then add the drawn rows into independent
  accumulators.  For small strata, whose rows stay in L1.
* *count*: draw 16 indices at a time and increment a per-unit byte count (a count passing
  255 is recorded and added back exactly), then add ``count * x`` in one sequential sweep
  (:func:`.llvm_ir.make_sweep`).  Random access touches a byte per unit, not a row.
* *wide*, the counting path for three columns or more (many systems, pooled metrics):
  count eight replicates, each in its own plane, then sweep the planes together tile by
  tile of ``x`` transposed, one column at a time (:func:`.llvm_ir.dot_lanes`).  Each
  column's sum is the one the counting path gives that column alone, bit for bit.
* *tree*, for strata of ``TREE_UNITS`` units or more: count cell by cell of the split, for
  eight replicates together, so the counts sit in L1 or L2 and each cell's rows are read
  from memory once per eight replicates (three columns or more: column by column).

The flat paths and the tree path are two kernels, ``_flat_sums`` and ``_tree_sums``, each
compiled (or loaded from numba's cache) when first needed.  numba freezes the constants of
:mod:`.spec` into the compiled kernels and its cache does not see a change to spec.py: the
constants define the draws and do not change (the tests compare both kernels).  Timings
and the variants tried: docs/performance.md, "The resampling kernel".
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numba
import numpy as np
from numba import njit, prange
from numba.core import event

from pairboot.engine import kernel_cache, spec
from pairboot.engine.llvm_ir import DOT_STEP, dot_lanes, make_sweep, popcount
from pairboot.engine.spec import (
    CELL_BITS,
    GAMMA,
    LO32,
    SPLIT_COUNTER,
    TREE_UNITS,
    check_tree,
    kernel_strata,
    tree_levels,
)

__all__ = ["index_sums", "compile_notice", "COUNT_PATH_BYTES", "COUNT_PATH_BYTES_WIDE"]

_U1 = np.uint64(1)
_B1 = np.uint8(1)
_B255 = np.uint8(255)

_BLOCK = 256
"""Draws per vectorised step of the gather path (a 2 KiB index buffer, in L1)."""

_COUNT_BLOCK = 16
"""Draws per step of the counting path: small on purpose, so that the processor overlaps
one block's counting (scalar) with the next block's drawing (vector arithmetic)."""

_BLOCK_GROUP = 8
"""Replicates counted together by the wide counting path before one sweep of their planes:
a tile of ``x`` is then read from the cache once per 8 replicates."""

_BLOCK_TILE = 1024
"""Units per tile of the wide path's sweep (a multiple of the sweep's 16-unit step): one
column's tile (8 KiB) and the planes' tiles stay in L1 while the replicates take turns."""

_TREE_GROUP = 8
"""Replicates taken together through a tree stratum's cells: a cell's rows of ``x`` are
then read from memory once per 8 replicates, and the 8 planes of counts (4 KiB each at
the default cell size) stay in L1 and L2 with the cell's rows."""

COUNT_PATH_BYTES = 1 << 16
"""A draw stratum of one or two columns whose rows take more bytes than this is counted
(the two paths are even at about 4,000 units of two columns).  Constants, not properties
of the machine, so that the rounding of the sums is the same everywhere."""

COUNT_PATH_BYTES_WIDE = 1 << 13
"""The same for three columns or more (the wide path, :func:`_block`): it is faster than
gathering from about 200 units of three columns or 100 of ten."""

kernel_cache.install()  # (before the first kernel: pairboot's cache directory)

_OPTS = dict(cache=True, nogil=True, boundscheck=False, error_model="numpy")

# The generator of spec.py, compiled for scalars: the same functions, one definition.
mix = njit(inline="always", **_OPTS)(spec.mix64)
_bounded = njit(inline="always", **_OPTS)(spec.bounded)


@njit(inline="always", **_OPTS)
def draw_unit(z, m):
    """``floor(mix64(z) * m / 2**64)``: the flat scheme's draw."""
    return _bounded(mix(z), m)


@njit(inline="always", **_OPTS)
def _fill(buf, n, z, m, base):
    """Draw ``n`` units (offset by ``base``) into ``buf``; return the advanced counter.

    The counter is advanced by adding ``GAMMA`` (wrapping), which equals ``(t + 1) *
    GAMMA`` modulo 2**64 exactly.
    """
    m = m & LO32  # sizes are below 2**32; knowing it, the compiler draws 1.2x faster
    for j in range(n):
        buf[j] = draw_unit(z, m) + base
        z += GAMMA
    return z


@njit(inline="always", **_OPTS)
def _fill_leaf(buf, n, z, m, prefix, h, base):
    """Draw ``n`` units of a tree cell (``prefix``: its top ``h`` bits) into ``buf``."""
    m = m & LO32
    for j in range(n):
        buf[j] = _bounded(prefix | (mix(z) >> h), m) + base
        z += GAMMA
    return z


@njit(**_OPTS)
def _split(start, size, key, h, levels):
    """Divide a tree stratum's draws among its ``2**h`` cells; return their counts.

    Level by level, a node's ``c`` draws go right as many times as ``c`` random bits
    have ones (see :mod:`.spec`).  ``levels`` is (2, 2**h) scratch.
    """
    z = key + (SPLIT_COUNTER + np.uint64(start) + _U1) * GAMMA
    levels[0, 0] = size
    row = 0
    for level in range(h):
        for i in range(1 << level):
            c = levels[row, i]
            ones = np.uint64(0)
            for _ in range(c >> 6):
                ones += popcount(mix(z))
                z += GAMMA
            rem = np.uint64(c & 63)
            if rem:
                ones += popcount(mix(z) & ((_U1 << rem) - _U1))
                z += GAMMA
            levels[1 - row, 2 * i] = c - np.int64(ones)
            levels[1 - row, 2 * i + 1] = np.int64(ones)
        row = 1 - row
    return levels[row]


@njit(inline="always", **_OPTS)
def _tally(cnt, buf, n, wraps, n_wraps):
    """Add one to the count of each unit in ``buf[:n]``; record wraps; return their number."""
    for j in range(n):
        i = buf[j]
        c = cnt[i]
        cnt[i] = c + _B1  # wraps to 0 after 255
        if c == _B255:
            wraps[n_wraps] = i
            n_wraps += 1
    return n_wraps


@njit(inline="always", **_OPTS)
def _add_wraps(x, row0, wraps, n_wraps, acc):
    """``acc += 256 * x[row0 + u]`` for each unit ``u`` whose byte count wrapped, in order."""
    for w in range(n_wraps):
        for col in range(x.shape[1]):
            acc[col] += 256.0 * x[row0 + wraps[w], col]


@njit(**_OPTS)
def _gather_1(xf, start, size, key, buf):
    z = key + (np.uint64(start) + _U1) * GAMMA
    m, base = np.uint64(size), np.uint64(start)
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
    for c0 in range(0, size, _BLOCK):
        n = min(_BLOCK, size - c0)
        z = _fill(buf, n, z, m, base)
        n8 = n & ~7
        for j in range(0, n8, 8):
            s0 += xf[buf[j]]
            s1 += xf[buf[j + 1]]
            s2 += xf[buf[j + 2]]
            s3 += xf[buf[j + 3]]
            s4 += xf[buf[j + 4]]
            s5 += xf[buf[j + 5]]
            s6 += xf[buf[j + 6]]
            s7 += xf[buf[j + 7]]
        for j in range(n8, n):
            s0 += xf[buf[j]]
    return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))


@njit(**_OPTS)
def _gather_2(xf, start, size, key, buf):
    z = key + (np.uint64(start) + _U1) * GAMMA
    m, base = np.uint64(size), np.uint64(start)
    a0 = a1 = a2 = a3 = 0.0
    b0 = b1 = b2 = b3 = 0.0
    for c0 in range(0, size, _BLOCK):
        n = min(_BLOCK, size - c0)
        z = _fill(buf, n, z, m, base)
        n4 = n & ~3
        for j in range(0, n4, 4):
            i0, i1 = buf[j] << _U1, buf[j + 1] << _U1
            i2, i3 = buf[j + 2] << _U1, buf[j + 3] << _U1
            a0 += xf[i0]
            b0 += xf[i0 + _U1]
            a1 += xf[i1]
            b1 += xf[i1 + _U1]
            a2 += xf[i2]
            b2 += xf[i2 + _U1]
            a3 += xf[i3]
            b3 += xf[i3 + _U1]
        for j in range(n4, n):
            i0 = buf[j] << _U1
            a0 += xf[i0]
            b0 += xf[i0 + _U1]
    return (a0 + a1) + (a2 + a3), (b0 + b1) + (b2 + b3)


@njit(**_OPTS)
def _gather_k(x, start, size, key, buf, acc):
    """Any number of columns: one four-lane pass over the index block per column."""
    z = key + (np.uint64(start) + _U1) * GAMMA
    m, base = np.uint64(size), np.uint64(start)
    k = x.shape[1]
    acc[:] = 0.0
    for c0 in range(0, size, _BLOCK):
        n = min(_BLOCK, size - c0)
        z = _fill(buf, n, z, m, base)
        n4 = n & ~3
        for c in range(k):
            s0 = s1 = s2 = s3 = 0.0
            for j in range(0, n4, 4):
                s0 += x[buf[j], c]
                s1 += x[buf[j + 1], c]
                s2 += x[buf[j + 2], c]
                s3 += x[buf[j + 3], c]
            for j in range(n4, n):
                s0 += x[buf[j], c]
            acc[c] += (s0 + s1) + (s2 + s3)


_sweep_1 = make_sweep(1)
_sweep_2 = make_sweep(2)


@njit(inline="always", **_OPTS)
def _lane_total(lane, cnt, xc, start, full, size):
    """Finish a column's sum as ``make_sweep(1)`` does: the two lane sets added, then
    the eight lanes in order, plus the tail ``full <= u < size`` in order."""
    s = lane[0] + lane[8]
    for i in range(1, 8):
        s += lane[i] + lane[8 + i]
    tail = 0.0
    for u in range(full, size):
        tail += np.float64(cnt[u]) * xc[start + u]
    return s + tail


@njit(**_OPTS)
def _sweep(cnt, x, xt, start, size, acc, lane):
    """``acc[c] += sum_u cnt[u] * x[start + u, c]`` for ``u < size``; zero ``cnt[:size]``.

    Three columns or more are swept one column of ``xt`` (``x`` transposed) at a time,
    each exactly as ``make_sweep(1)`` sweeps one column; ``lane`` is scratch.
    """
    k = x.shape[1]
    if k == 1:
        _sweep_1(cnt, x, start, size, acc)
    elif k == 2:
        _sweep_2(cnt, x, start, size, acc)
    else:
        full = size - size % DOT_STEP
        for c in range(k):
            lane[:] = 0.0
            dot_lanes(cnt, 0, xt[c], start, full, lane)
            acc[c] += _lane_total(lane, cnt, xt[c], start, full, size)
        cnt[:size] = 0


@njit(inline="always", **_OPTS)
def _count_draws(x, start, size, key, buf, cnt, wraps, acc):
    """Count one replicate's draws of a stratum in ``cnt``; ``acc = 256 x_u`` for each
    count that wrapped past 255, in draw order (the sweep adds the rest)."""
    z = key + (np.uint64(start) + _U1) * GAMMA
    m = np.uint64(size)
    zero = np.uint64(0)
    n_wraps = 0
    # Whole blocks, a constant trip count: the draws compile to straight vector code,
    # and the counting to a few scalar instructions per draw.
    for _ in range(size // _COUNT_BLOCK):
        z = _fill(buf, _COUNT_BLOCK, z, m, zero)
        n_wraps = _tally(cnt, buf, _COUNT_BLOCK, wraps, n_wraps)
    n = size % _COUNT_BLOCK
    z = _fill(buf, n, z, m, zero)
    n_wraps = _tally(cnt, buf, n, wraps, n_wraps)
    acc[:] = 0.0
    _add_wraps(x, start, wraps, n_wraps, acc)


@njit(**_OPTS)
def _count(x, xt, start, size, key, buf, cnt, wraps, acc, lane):
    """Count the draws of one stratum per unit, then ``acc = sum_u count_u * x_u``.

    ``cnt[:size]`` is zero on entry and left zero.  A count that wraps past 255 records
    its unit in ``wraps`` (room for ``size // 256`` units), and ``256 * x_u`` is added
    for each record, in draw order, before the sweep: the sum is exact for any count.
    """
    _count_draws(x, start, size, key, buf, cnt, wraps, acc)
    _sweep(cnt, x, xt, start, size, acc, lane)


@njit(**_OPTS)
def _block(x, xt, start, size, keys, buf, planes, wraps, lanes, accs):
    """``accs[g] = sum of x over the units replicate g draws`` in a wide stratum.

    One replicate per key (at most ``len(planes)``): each counts its draws in its own
    plane of byte counts (as :func:`_count` does), then the planes are swept together,
    tile by tile of units and column by column of ``xt`` (``x`` transposed), so that a
    tile of ``x`` is read once for all the replicates and every loop runs over contiguous
    memory.  Each column's sum takes the lanes and order of ``make_sweep(1)`` over that
    column alone, so it is the sum the counting path gives a one-column stratum, bit for
    bit, whatever ``k`` and the number of keys.
    """
    n_keys, k = keys.shape[0], x.shape[1]
    for g in range(n_keys):
        _count_draws(x, start, size, keys[g], buf, planes[g], wraps, accs[g])
    lanes[:n_keys] = 0.0
    full = size - size % DOT_STEP
    for t0 in range(0, full, _BLOCK_TILE):
        tn = min(_BLOCK_TILE, full - t0)
        for c in range(k):
            for g in range(n_keys):
                dot_lanes(planes[g], t0, xt[c], start + t0, tn, lanes[g, c])
    for g in range(n_keys):
        for c in range(k):
            accs[g, c] += _lane_total(lanes[g, c], planes[g], xt[c], start, full, size)
        planes[g, :size] = 0


@njit(**_OPTS)
def _tree(x, xt, start, size, h, keys, buf, planes, wraps, levels, cells, counters, accs, lane):
    """``accs[g] = sum of x over the units replicate g draws`` in a tree stratum.

    One replicate per key (at most ``len(planes)``), all taken cell by cell together:
    for cell ``j``, each replicate counts its draws there in its own plane of byte
    counts, offset to the cell's first unit ``lo_j = floor(j * size / 2**h)``, and
    sweeps the units ``lo_j <= u < lo_(j+1)``.  The cell's rows of ``x`` are read from
    memory once for all the replicates, and the planes stay in L1.  A draw of cell
    ``j`` can fall on unit ``lo_(j+1)`` (its interval of 64-bit numbers straddles the
    cells): that count moves to the next cell's plane offset 0.  Wrapped counts add
    ``256 * x_u`` when their cell is done.  Each replicate's sum is the same whatever
    the other keys, so any grouping gives the same result, bit for bit.
    """
    m = np.uint64(size)
    shift, hh = np.uint64(64 - h), np.uint64(h)
    n_keys, n_cells = keys.shape[0], 1 << h
    for g in range(n_keys):
        cells[g, :n_cells] = _split(start, size, keys[g], h, levels)[:n_cells]
        counters[g] = keys[g] + (np.uint64(start) + _U1) * GAMMA
        accs[g, :] = 0.0
    lo = 0
    for j in range(n_cells):
        nxt = (j + 1) * size >> h
        prefix = np.uint64(j) << shift
        base = np.uint64(0) - np.uint64(lo)  # wrapping: draws become offsets from lo
        for g in range(n_keys):
            cnt = planes[g]
            z = counters[g]
            c = cells[g, j]
            n_wraps = 0
            for _ in range(c // _COUNT_BLOCK):
                z = _fill_leaf(buf, _COUNT_BLOCK, z, m, prefix, hh, base)
                n_wraps = _tally(cnt, buf, _COUNT_BLOCK, wraps, n_wraps)
            n = c % _COUNT_BLOCK
            z = _fill_leaf(buf, n, z, m, prefix, hh, base)
            n_wraps = _tally(cnt, buf, n, wraps, n_wraps)
            counters[g] = z
            _add_wraps(x, start + lo, wraps, n_wraps, accs[g])
            _sweep(cnt, x, xt, start + lo, nxt - lo, accs[g], lane)
            if nxt > lo:  # (an empty window, possible only with 2**h > size, keeps its count)
                cnt[0] = cnt[nxt - lo]  # the straddling unit, if drawn, starts the next cell
                cnt[nxt - lo] = 0
        lo = nxt


@njit(parallel=True, **_OPTS)
def _flat_sums(x, xt, starts, sizes, strata, keys, out, count_bytes, n_runs):
    """``out[:, d]`` for the flat strata ``d`` in ``strata``: gathered or counted.

    Strata of three columns or more that are counted take the wide path (:func:`_block`),
    ``_BLOCK_GROUP`` replicates at a time; ``xt`` is ``x`` transposed (an empty array for
    one or two columns, which never read it).
    """
    n_rep, k = keys.shape[0], x.shape[1]
    xf = x.reshape(-1)
    counted = np.zeros(starts.shape[0], dtype=np.bool_)
    longest = 0
    for d in strata:
        if sizes[d] * k * 8 > count_bytes:
            counted[d] = True
            longest = max(longest, sizes[d])
    wide = k > 2
    group = _BLOCK_GROUP if wide else 1
    # Contiguous runs of replicates (several per thread), each with its own buffers.
    n_runs = max(1, min(n_rep, n_runs))
    for run in prange(n_runs):
        buf = np.empty(max(_BLOCK, _COUNT_BLOCK), dtype=np.uint64)  # (the paths')
        planes = np.zeros((group, longest), dtype=np.uint8)
        wraps = np.empty(longest // 256 + 1, dtype=np.uint64)
        lanes = np.empty((group, k, DOT_STEP))
        accs = np.empty((group, k))
        acc = accs[0]
        r_end = (run + 1) * n_rep // n_runs
        for r0 in range(run * n_rep // n_runs, r_end, group):
            r1 = min(r0 + group, r_end)
            for d in strata:
                start, size = starts[d], sizes[d]
                if counted[d] and wide:
                    _block(x, xt, start, size, keys[r0:r1], buf, planes, wraps, lanes, accs)
                    out[r0:r1, d, :] = accs[: r1 - r0]
                    continue
                for r in range(r0, r1):
                    key = keys[r]
                    if counted[d]:
                        _count(x, xt, start, size, key, buf, planes[0], wraps, acc, lanes[0, 0])
                        for c in range(k):
                            out[r, d, c] = acc[c]
                    elif k == 1:
                        out[r, d, 0] = _gather_1(xf, start, size, key, buf)
                    elif k == 2:
                        out[r, d, 0], out[r, d, 1] = _gather_2(xf, start, size, key, buf)
                    else:
                        _gather_k(x, start, size, key, buf, acc)
                        for c in range(k):
                            out[r, d, c] = acc[c]


@njit(parallel=True, **_OPTS)
def _tree_sums(x, xt, starts, sizes, tree_h, strata, keys, out, n_runs):
    """``out[:, d]`` for the tree strata ``d`` in ``strata``, ``_TREE_GROUP`` replicates
    at a time."""
    n_rep, k = keys.shape[0], x.shape[1]
    plane, h_max, longest = 1, 0, 0
    for d in strata:
        plane = max(plane, -(-sizes[d] >> tree_h[d]) + 2)
        h_max = max(h_max, tree_h[d])
        longest = max(longest, sizes[d])  # any cell may (in principle) hold all
    n_runs = max(1, min(n_rep, n_runs))
    for run in prange(n_runs):
        buf = np.empty(_COUNT_BLOCK, dtype=np.uint64)
        wraps = np.empty(longest // 256 + 1, dtype=np.uint64)
        planes = np.zeros((_TREE_GROUP, plane), dtype=np.uint8)
        levels = np.empty((2, 1 << h_max), dtype=np.int64)
        cells = np.empty((_TREE_GROUP, 1 << h_max), dtype=np.int64)
        counters = np.empty(_TREE_GROUP, dtype=np.uint64)
        accs = np.empty((_TREE_GROUP, k))
        lane = np.empty(DOT_STEP)
        r_end = (run + 1) * n_rep // n_runs
        for r0 in range(run * n_rep // n_runs, r_end, _TREE_GROUP):
            r1 = min(r0 + _TREE_GROUP, r_end)
            for d in strata:
                _tree(x, xt, starts[d], sizes[d], tree_h[d], keys[r0:r1], buf, planes, wraps,
                      levels, cells, counters, accs, lane)
                out[r0:r1, d, :] = accs[: r1 - r0]


def index_sums(
    x: np.ndarray,
    starts: np.ndarray,
    sizes: np.ndarray,
    keys: np.ndarray,
    out: np.ndarray,
    *,
    count_bytes: int | None = None,
    tree_units: int = TREE_UNITS,
    cell_bits: int = CELL_BITS,
) -> None:
    """``out[r, d] = sum of x over the units drawn for replicate r in draw stratum d``.

    Same arguments and draws as :func:`.numpy_kernel.index_sums_numpy`: ``x`` is
    (n, k) float64, draw stratum ``d`` is the rows ``starts[d] : starts[d] + sizes[d]``
    (each size below 2**32), ``keys`` the replicates' 64-bit keys, and ``out``
    (len(keys), len(starts), k) is overwritten.  ``count_bytes`` is the stratum size
    (rows times 8k bytes) above which the counting path is used (default
    :data:`COUNT_PATH_BYTES` for one or two columns, :data:`COUNT_PATH_BYTES_WIDE` for
    more); it changes rounding only, never the draws.  ``tree_units`` and ``cell_bits``
    are for the tests.
    """
    x = np.ascontiguousarray(x, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"`x` must be 2-D, got {x.ndim}-D")
    starts = np.ascontiguousarray(starts, dtype=np.int64)
    sizes = np.ascontiguousarray(sizes, dtype=np.int64)
    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    shape = (len(keys), len(starts), x.shape[1])
    if out.shape != shape:
        raise ValueError(f"`out` must have shape {shape}, got {out.shape}")
    if len(starts) and (sizes.min() < 0 or sizes.max() >= 1 << 32):
        raise ValueError("draw strata sizes must be between 0 and 2**32 - 1")
    if len(starts) and (starts.min() < 0 or (starts + sizes).max() > len(x)):
        raise ValueError("draw strata must lie within the rows of `x`")
    if count_bytes is None:
        count_bytes = COUNT_PATH_BYTES if x.shape[1] <= 2 else COUNT_PATH_BYTES_WIDE
    check_tree(tree_units, cell_bits)
    flat, tree = kernel_strata(sizes, tree_units)
    tree_h = np.zeros(len(sizes), dtype=np.int64)
    tree_h[tree] = [tree_levels(n, cell_bits) for n in sizes[tree].tolist()]
    target = out if out.dtype == np.float64 and out.flags.c_contiguous else np.empty(shape)
    # Several runs per thread balance the load; any partition gives the same sums.
    runs = 4 * numba.get_num_threads()
    # The wide paths read x by columns: xt whenever there are three columns or more, not
    # only when a stratum is counted (the kernels decide that, and read xt unchecked).
    xt = np.ascontiguousarray(x.T) if x.shape[1] > 2 else np.empty((x.shape[1], 0))
    if len(flat):
        _flat_sums(x, xt, starts, sizes, flat, keys, target, int(count_bytes), runs)
    if len(tree):
        _tree_sums(x, xt, starts, sizes, tree_h, tree, keys, target, runs)
    if target is not out:
        out[...] = target


# --- saying when a kernel compiles ------------------------------------------------------------


class _CompileListener(event.Listener):
    """Calls ``callback()`` at the first compile of one of this module's functions in
    the thread that opened the notice (numba compiles in the calling thread)."""

    def __init__(self, callback: Callable[[], None], thread: int) -> None:
        self.callback = callback
        self.thread = thread
        self.told = False

    def on_start(self, ev: event.Event) -> None:
        if self.told or threading.get_ident() != self.thread:
            return
        func = getattr(ev.data.get("dispatcher"), "py_func", None)
        if getattr(func, "__module__", None) == __name__:
            self.told = True
            self.callback()

    def on_end(self, ev: event.Event) -> None:
        pass


@contextmanager
def compile_notice(callback: Callable[[], None]) -> Iterator[None]:
    """While open, call ``callback()`` once if numba starts compiling a kernel of this module.

    Loading a kernel from numba's on-disk cache is not compiling and calls nothing, so the
    callback hears exactly of the slow first run after installing (about 10 s for the flat
    kernel, 12 s for the tree kernel).  It listens to the "numba:compile" events of numba's
    documented event API (``numba.core.event``), which numba sends on a cache miss only.
    """
    with event.install_listener("numba:compile", _CompileListener(callback, threading.get_ident())):
        yield

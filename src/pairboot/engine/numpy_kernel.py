"""The numpy kernel: the reference implementation of the draws, and the fallback without numba.

It computes the draws of :mod:`.spec` in vectorised steps of ``CHUNK`` counters and sums
the drawn rows with ``np.take``; tree-drawn strata go through :func:`tree_cells` and
:func:`tree_draws`, which the tests also use to check the numba kernels draw for draw.
"""

from __future__ import annotations

import functools

import numpy as np

from pairboot.engine.spec import (
    BLOCK,
    CELL_BITS,
    SPLIT_COUNTER,
    TREE_UNITS,
    bounded,
    check_tree,
    kernel_strata,
    tree_levels,
    words,
)

CHUNK = 1 << 14
"""Draws per vectorised step (fixed: it sets the order of the additions, hence rounding)."""


@functools.cache
def _popcount16() -> np.ndarray:
    """Ones in each 16-bit value, a table built on first use (not at import)."""
    bits = np.unpackbits(np.arange(1 << 16, dtype=np.uint16).view(np.uint8))
    return bits.reshape(-1, 16).sum(axis=1, dtype=np.uint8)


def _popcount(values: np.ndarray) -> np.ndarray:
    """Ones in each uint64 (numpy >= 2 has ``bitwise_count``; this works from 1.24)."""
    return _popcount16()[values.view(np.uint16)].reshape(-1, 4).sum(axis=1, dtype=np.int64)


def tree_cells(key: np.uint64, start: int, size: int, h: int) -> np.ndarray:
    """The number of draws in each of the ``2**h`` cells (step 1 of :mod:`.spec`'s text)."""
    counts = np.array([size], dtype=np.int64)
    used = SPLIT_COUNTER + np.uint64(start)
    for _ in range(h):
        n_words = (counts + 63) // 64
        ends = np.cumsum(n_words)
        total = int(ends[-1])
        bits = words(np.uint64(key), used + np.arange(total, dtype=np.uint64))
        used += np.uint64(total)
        rem = counts % 64
        partial = rem > 0
        last = ends[partial] - 1
        bits[last] &= (np.uint64(1) << rem[partial].astype(np.uint64)) - np.uint64(1)
        cum = np.concatenate([[0], np.cumsum(_popcount(bits))])
        ones = cum[ends] - cum[ends - n_words]
        counts = np.stack([counts - ones, ones], axis=1).reshape(-1)
    return counts


def tree_draws(
    key: np.uint64, start: int, size: int, h: int, t0: int = 0, t1: int | None = None,
    cells: np.ndarray | None = None,
) -> np.ndarray:
    """Unit offsets of draws ``t0 <= t < t1`` of a tree-drawn stratum (step 2).

    ``cells`` is ``tree_cells(key, start, size, h)``, computed when not given.
    """
    t1 = size if t1 is None else t1
    if cells is None:
        cells = tree_cells(key, start, size, h)
    # the cell of each draw t0 <= t < t1, from the cells' cumulative counts
    ends = np.cumsum(cells)
    first = int(np.searchsorted(ends, t0, side="right"))
    last = int(np.searchsorted(ends, t1 - 1, side="right")) + 1 if t1 > t0 else first
    part = np.minimum(ends[first:last], t1) - np.maximum(ends[first:last] - cells[first:last], t0)
    prefix = np.arange(first, last, dtype=np.uint64) << np.uint64(64 - h)
    v = np.repeat(prefix, part)
    v |= words(np.uint64(key), np.arange(start + t0, start + t1, dtype=np.uint64)) >> np.uint64(h)
    return bounded(v, size).astype(np.intp)


def index_sums_numpy(
    x: np.ndarray,
    starts: np.ndarray,
    sizes: np.ndarray,
    keys: np.ndarray,
    out: np.ndarray,
    *,
    tree_units: int = TREE_UNITS,
    cell_bits: int = CELL_BITS,
) -> None:
    """Reference kernel: ``out[r, d] = sum of x over the units drawn in stratum d``.

    ``x`` is (n, k) float64; the units of draw stratum ``d`` are the rows
    ``starts[d] : starts[d] + sizes[d]``, and its draws use the counters with the same
    numbers.  ``out`` is (len(keys), len(starts), k) and is overwritten.  The numba
    kernels compute the same draws; they sum them in another order, so the two agree to
    rounding, not bit for bit.  ``tree_units`` and ``cell_bits`` are for the tests,
    which draw small strata top bits first with them.
    """
    check_tree(tree_units, cell_bits)
    out[...] = 0.0
    flat, tree = kernel_strata(sizes, tree_units)
    for d in tree.tolist():
        start, size = int(starts[d]), int(sizes[d])
        h = tree_levels(size, cell_bits)
        cols = [np.ascontiguousarray(x[start : start + size, j]) for j in range(x.shape[1])]
        step = CHUNK * BLOCK
        for r, key in enumerate(keys.astype(np.uint64)):
            cells = tree_cells(key, start, size, h)
            for t0 in range(0, size, step):
                idx = tree_draws(key, start, size, h, t0, min(t0 + step, size), cells)
                for j, col in enumerate(cols):
                    out[r, d, j] += np.take(col, idx).sum()
    keys2 = keys.astype(np.uint64)[:, None]  # (replicates, 1): broadcasts over counters
    for d in flat.tolist():
        start, size = int(starts[d]), int(sizes[d])
        # the stratum's columns, contiguous: gathered from faster than a strided column
        cols = [np.ascontiguousarray(x[start : start + size, j]) for j in range(x.shape[1])]
        for c0 in range(start, start + size, CHUNK):
            counters = np.arange(c0, min(c0 + CHUNK, start + size), dtype=np.uint64)
            idx = bounded(words(keys2, counters), size).view(np.int64)  # (below 2**32)
            for j, col in enumerate(cols):
                out[:, d, j] += np.take(col, idx).sum(axis=1)

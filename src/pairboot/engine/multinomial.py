"""The exact fast path: draw the counts of a stratum's few distinct rows, not its units.

When a draw stratum's units take few distinct statistic vectors (0/1 correctness), the
counts of the distinct vectors among ``size`` uniform draws are ``Multinomial(size,
counts / size)``: drawing them is exactly the same distribution as drawing the units, at
a cost that does not grow with the number of units.  The draws use numpy's
``Generator(PCG64(SeedSequence(seed, spawn_key=(stream, j, 1 + d))))`` for block ``j`` of
replicates and draw stratum ``d``.
"""

from __future__ import annotations

import numpy as np

from pairboot.engine.spec import BLOCK

MULTINOMIAL_RATIO = 16
"""A draw stratum takes this path when its distinct rows * this <= its size."""


def sorted_distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values in increasing order, NaNs as one at the end: what
    ``np.unique(values)`` holds (of 0.0 and -0.0, either), without its check for a
    masked array, which imports numpy.ma (10 ms or more of a small command)."""
    ordered = np.sort(values)
    if ordered.size < 2:
        return ordered
    keep = np.empty(ordered.size, dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    if ordered.dtype.kind in "fc" and np.isnan(ordered[-1]):
        keep[1:] &= ~np.isnan(ordered[:-1])  # (NaNs sort last: keep the first)
    return ordered[keep]


def distinct_rows(xd: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Distinct rows and their counts, or None when there are more than ``limit``.

    Rows come in the order of their first appearance: the same whichever order the
    columns (systems) come in, so swapping A and B negates the resampled differences
    exactly.  Cost O(n) passes for few distinct values: each column is coded against
    its distinct values, and the codes are counted, with no sort of the rows.
    """
    n = len(xd)
    if limit < 1 or n == 0:
        return None
    codes = np.zeros(n, dtype=np.int64)
    radix = 1
    for j in range(xd.shape[1]):
        col = xd[:, j]
        values = sorted_distinct(col[: 2 * limit + 1])  # a cheap look at the head first
        if values.size > limit:
            return None
        idx = np.minimum(np.searchsorted(values, col), values.size - 1)
        if not np.array_equal(values[idx], col):  # values the head did not show
            values = sorted_distinct(col)
            if values.size > limit:
                return None
            idx = np.searchsorted(values, col)
        codes += idx * radix
        radix *= values.size
        if radix > (1 << 20):  # keep the code space small: renumber the codes seen
            _, codes = np.unique(codes, return_inverse=True)
            codes = codes.reshape(-1)
            radix = int(codes.max()) + 1
            if radix > limit:
                return None
    if radix <= (1 << 20):
        counts = np.bincount(codes, minlength=radix)
        present = np.flatnonzero(counts)
        if len(present) > limit:
            return None
        if len(present) <= 64:
            first = np.array([np.argmax(codes == c) for c in present.tolist()], dtype=np.int64)
        else:
            first = np.full(radix, n, dtype=np.int64)
            np.minimum.at(first, codes, np.arange(n, dtype=np.int64))
            first = first[present]
        counts = counts[present]
    else:
        _, first, counts = np.unique(codes, return_index=True, return_counts=True)
        if len(first) > limit:
            return None
    order = np.argsort(first)
    return xd[first[order]], counts[order]


def stratum_rows(xd: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """``distinct_rows`` of a draw stratum's varying columns, when few enough for this path."""
    return distinct_rows(xd, len(xd) // MULTINOMIAL_RATIO)


def multinomial_sums(
    rows: np.ndarray, counts: np.ndarray, n_resamples: int, seed: int, stream: int, d: int,
) -> np.ndarray:
    """(n_resamples, k) sums over ``counts.sum()`` draws from the distinct ``rows``.

    ``d`` is the draw stratum's index, which keys its random numbers.
    """
    size = int(counts.sum())
    probs = counts / size
    out = np.empty((n_resamples, rows.shape[1]))
    for j0 in range(0, n_resamples, BLOCK):
        j1 = min(j0 + BLOCK, n_resamples)
        seq = np.random.SeedSequence(seed, spawn_key=(stream, j0 // BLOCK, 1 + d))
        rng = np.random.Generator(np.random.PCG64(seq))
        draws = rng.multinomial(size, probs, size=j1 - j0)
        out[j0:j1] = row_sums(draws, rows)
    return out


ORDERED_ROWS = 64
"""Up to this many distinct rows, the counts times the rows are summed row by row in
order, the same bits on every processor; beyond, by numpy's matrix product (BLAS, whose
kernel and so whose last bits depend on the processor), much faster there."""


def row_sums(draws: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``draws @ rows``: (B, K) counts times the (K, k) distinct rows."""
    if len(rows) > ORDERED_ROWS:
        return draws @ rows
    out = np.zeros((len(draws), rows.shape[1]))
    for j in range(len(rows)):
        out += draws[:, j, None] * rows[j]
    return out

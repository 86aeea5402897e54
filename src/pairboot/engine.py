"""The resampling engine: weights for every unit, and the only pass over the data.

Every bootstrap pairboot runs is the same computation (README, "The method"): units carry a
vector of sufficient statistics ``x_u``; each replicate ``r`` draws a weight ``w_ru`` for
every unit, independently within each *draw stratum*; and the engine returns the sums
``S[r, d] = sum_{u in d} w_ru * x_u``.  Everything downstream (metrics, intervals) works
on ``S`` alone.

Random numbers
--------------
Replicate ``r`` has a 64-bit key taken from ``SeedSequence(seed, spawn_key=(stream, j))``
for its fixed block ``j = r // BLOCK`` of replicates.  The ``t``-th draw of replicate
``r`` (counters run over all units, stratum after stratum) is the unit::

    start[d] + floor(mix64(key_r + (t + 1) * GAMMA) * size[d] / 2**64)

``mix64`` is the SplitMix64 finaliser (Stafford's variant 13) and ``GAMMA`` the golden
ratio increment: this is the output function of Java's ``SplittableRandom``, evaluated at
a counter, so the draw is a pure function of ``(seed, r, t)``.  Results therefore do not
depend on how replicates are split into memory batches or threads.  The multiply-high
bounded draw has a bias below ``size / 2**64`` (under 1e-9 for a billion units).

A draw stratum of ``TREE_UNITS`` units or more draws its uniform 64-bit numbers top
bits first (other numbers than the flat scheme's, with the same distribution), so that
each unit's count is touched while it is in the processor's cache:

1. *Split*: the ``size`` draws are divided among ``2**h`` cells, cell ``j`` holding the
   draws whose top ``h`` bits are ``j`` (``h = bit_length(size - 1) - CELL_BITS``, at least
   1: cells of at most ``2**CELL_BITS`` units).  Level by level, a node holding ``c`` draws
   sends ``K ~ Binomial(c, 1/2)`` of them to its right child (next bit 1) and ``c - K`` to
   its left: ``K`` is the number of ones among ``c`` random bits, the words
   ``mix64(key_r + (2**63 + start + 1 + i) * GAMMA)`` for ``i = 0, 1, ...`` taken in order
   (levels, then nodes left to right, ``ceil(c / 64)`` words each; of a last partial word
   only the low ``c % 64`` bits count).
2. *Leaves*: the ``t``-th draw, counting cell after cell, is the unit
   ``start + floor(v * size / 2**64)`` with ``v = j * 2**(64 - h) + (mix64(key_r + (start +
   t + 1) * GAMMA) >> h)``: its top bits are the cell's, the rest uniform.

Given the cell counts, each cell's ``v`` are independent and uniform on the cell's
numbers, and the counts are those of ``size`` independent uniform numbers (binary
splitting, the classic way to draw a multinomial): as a multiset, the ``v`` have the law
of ``size`` independent uniform 64-bit numbers, so the units drawn have the same
distribution as in the flat scheme (with the same generator, and the same bias below
``size / 2**64``).  The numbers themselves differ from the flat scheme's: a stratum of
``TREE_UNITS`` units or more resamples differently, for a given seed, than it did before
pairboot 0.2 introduced the tree (see CHANGELOG.md).  Each cell's draws fall among about
``size / 2**h`` consecutive units.  The split costs ``h / 64`` extra words per draw
(about 13% at a million units), and the counting then runs at cache speed: at a million
units 1.4 to 1.6x faster, at ten million about 6x.

When a draw stratum's units take few distinct statistic vectors (0/1 correctness), the
engine draws ``Multinomial(size, counts / size)`` over the distinct vectors instead, with
numpy's ``Generator(PCG64(SeedSequence(seed, spawn_key=(stream, j, 1 + d))))``.  That is
exactly the distribution of the counts induced by ``size`` uniform draws, at a cost that
does not grow with the number of units.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

BLOCK = 64
"""Replicates per SeedSequence child: fixed, so the answer never depends on batching."""

CHUNK = 1 << 14
"""Draws per vectorised step of the numpy kernel (fixed for the same reason)."""

GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_LO32 = np.uint64(0xFFFFFFFF)
_S30, _S27, _S31, _S32 = (np.uint64(s) for s in (30, 27, 31, 32))

MULTINOMIAL_RATIO = 16
"""A draw stratum uses the exact multinomial path when distinct rows * this <= its size."""

MAX_UNITS_PER_STRATUM = (1 << 32) - 1

TREE_UNITS = 1 << 19
"""Draw strata of this many units or more draw top bits first (see the module's text).

Below it the units' byte counts fit in a core's L2 cache and the flat scheme is as fast;
from it, they do not.  A constant, not a property of the machine: it decides which
units are drawn, so it must be the same everywhere."""

CELL_BITS = 12
"""A cell of the split covers at most ``2**CELL_BITS`` units (4 KiB of byte counts)."""

SPLIT_COUNTER = np.uint64(1 << 63)
"""First counter of the split words (stratum ``start``'s begin at ``SPLIT_COUNTER + start
+ 1``).  The draws' counters stay below it, and a stratum uses fewer split words than it
has units (at most ``h * size / 64 + 2**h``, under ``size`` when ``cell_bits >= 2``; about
``size / 3`` at the default), so strata never share split words either."""


def check_tree(tree_units: int, cell_bits: int) -> None:
    """Refuse tree settings with empty cells (2**h > size) or overlapping split words."""
    if tree_units < 2 or cell_bits < 2:
        raise ValueError(f"need tree_units >= 2 and cell_bits >= 2, got {tree_units}, {cell_bits}")

AUTO_NUMBA_DRAWS = 30_000_000
"""Below this many draws the numpy kernel finishes before numba would have loaded."""


def replicate_keys(seed: int, stream: int, n_resamples: int) -> np.ndarray:
    """The 64-bit key of every replicate, block by block from the SeedSequence."""
    n_blocks = -(-n_resamples // BLOCK)
    keys = np.empty(n_blocks * BLOCK, dtype=np.uint64)
    for j in range(n_blocks):
        seq = np.random.SeedSequence(seed, spawn_key=(stream, j))
        keys[j * BLOCK : (j + 1) * BLOCK] = seq.generate_state(BLOCK, np.uint64)
    return keys[:n_resamples]


def mix64(z: np.ndarray) -> np.ndarray:
    """SplitMix64's output function on uint64 arrays (wrapping arithmetic)."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


def bounded(u: np.ndarray, m: int) -> np.ndarray:
    """``floor(u * m / 2**64)`` for uint64 ``u`` and ``m < 2**32``, exactly."""
    m64 = np.uint64(m)
    return ((u >> _S32) * m64 + (((u & _LO32) * m64) >> _S32)) >> _S32


def words(key, counters: np.ndarray) -> np.ndarray:
    """The generator's 64-bit outputs ``mix64(key + (counter + 1) * GAMMA)``.

    ``key`` is a uint64 or an array of them that broadcasts against ``counters``.
    """
    with np.errstate(over="ignore"):
        return mix64(key + (counters.astype(np.uint64) + np.uint64(1)) * GAMMA)


def draw_units(key: np.uint64, counters: np.ndarray, size: int) -> np.ndarray:
    """Unit offsets (0 <= i < size) drawn by one replicate at the given counters."""
    return bounded(words(key, counters), size).astype(np.intp)


def tree_levels(size: int, cell_bits: int = CELL_BITS) -> int:
    """``h``: the split of a tree-drawn stratum has ``2**h`` cells."""
    return max(1, (int(size) - 1).bit_length() - cell_bits)


_POPCOUNT16 = np.array([bin(i).count("1") for i in range(1 << 16)], dtype=np.uint8)


def _popcount(words: np.ndarray) -> np.ndarray:
    """Ones in each uint64 (numpy >= 2 has ``bitwise_count``; this works from 1.24)."""
    return _POPCOUNT16[words.view(np.uint16)].reshape(-1, 4).sum(axis=1, dtype=np.int64)


def tree_cells(key: np.uint64, start: int, size: int, h: int) -> np.ndarray:
    """The number of draws in each of the ``2**h`` cells (step 1 of the module's text)."""
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
    kernel computes the same draws; it sums them in another order, so the two agree to
    rounding, not bit for bit.  ``tree_units`` and ``cell_bits`` are for the tests,
    which draw small strata top bits first with them.
    """
    check_tree(tree_units, cell_bits)
    out[...] = 0.0
    keys2 = keys.astype(np.uint64)[:, None]  # (replicates, 1): broadcasts over counters
    for d, (start, size) in enumerate(zip(starts.tolist(), sizes.tolist())):
        if size >= tree_units:
            h = tree_levels(size, cell_bits)
            cols = [np.ascontiguousarray(x[start : start + size, j]) for j in range(x.shape[1])]
            step = CHUNK * BLOCK
            for r, key in enumerate(keys.astype(np.uint64)):
                cells = tree_cells(key, start, size, h)
                for t0 in range(0, size, step):
                    idx = tree_draws(key, start, size, h, t0, min(t0 + step, size), cells)
                    for j, col in enumerate(cols):
                        out[r, d, j] += np.take(col, idx).sum()
            continue
        for c0 in range(start, start + size, CHUNK):
            counters = np.arange(c0, min(c0 + CHUNK, start + size), dtype=np.uint64)
            idx = bounded(words(keys2, counters), size).astype(np.intp)
            idx += start
            for j in range(x.shape[1]):
                out[:, d, j] += np.take(x[:, j], idx).sum(axis=1)


def _numba_module():
    """``pairboot._numba``, or None without numba (heavy: imported on demand only)."""
    try:
        from pairboot import _numba  # noqa: PLC0415
    except ImportError:
        return None
    return _numba


def split_constant(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(varying columns of x, constant)``: ``constant`` holds each column's common
    value, NaN where the column varies (the layout of :class:`DrawPlan`)."""
    constant = np.full(x.shape[1], np.nan)
    if len(x):
        same = (x == x[:1]).all(axis=0)
        constant[same] = x[0, same]
    varying = np.isnan(constant)
    return (x if varying.all() else x[:, varying]), constant


@dataclass(frozen=True, slots=True)
class DrawPlan:
    """How the units are laid out for drawing: contiguous draw strata of ``x``'s rows.

    A unit's logical statistic vector has ``len(constant)`` entries; the columns where
    ``constant`` is NaN vary and are stored, in order, in ``x``; the others hold the same
    value for every unit (the count column of a plain mean) and are never stored or
    accumulated: their sum is the value times the number of draws, exactly.
    """

    x: np.ndarray
    """(n_units, n_varying) float64, rows grouped by draw stratum."""
    starts: np.ndarray
    sizes: np.ndarray
    constant: np.ndarray
    """(k,) float64: each logical column's common value, NaN where it varies."""

    @classmethod
    def from_columns(cls, x: np.ndarray, starts, sizes) -> DrawPlan:
        """A plan for a full (n_units, k) matrix, with its constant columns factored out."""
        xv, constant = split_constant(np.asarray(x, dtype=np.float64))
        return cls(np.ascontiguousarray(xv), np.asarray(starts, np.int64),
                   np.asarray(sizes, np.int64), constant)

    @property
    def n_columns(self) -> int:
        return len(self.constant)

    def rows(self, lo: int, hi: int) -> np.ndarray:
        """Rows ``lo:hi`` with every logical column, constants filled in."""
        out = np.empty((hi - lo, self.n_columns))
        varying = np.isnan(self.constant)
        out[:, varying] = self.x[lo:hi]
        out[:, ~varying] = self.constant[~varying]
        return out


def _distinct_rows(xd: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray] | None:
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
        values = np.unique(col[: 2 * limit + 1])  # a cheap look at the head first
        if values.size > limit:
            return None
        idx = np.minimum(np.searchsorted(values, col), values.size - 1)
        if not np.array_equal(values[idx], col):  # values the head did not show
            values = np.unique(col)
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


def resample_sums(
    plan: DrawPlan,
    n_resamples: int,
    seed: int,
    stream: int = 0,
    *,
    backend: str = "auto",
    progress: Callable[[int], None] | None = None,
) -> tuple[np.ndarray, str]:
    """Bootstrap sums ``S`` of shape (n_resamples, n_draw_strata, k), and the path used.

    The plan's constant columns are not accumulated: their sum is the constant times
    the stratum size, exactly.  ``backend`` is ``"auto"`` (numba when installed and
    the job is large enough to repay its start-up), ``"numba"`` or ``"numpy"``.
    """
    x, starts, sizes = plan.x, plan.starts, plan.sizes
    n_strata, k = len(starts), plan.n_columns
    out = np.zeros((n_resamples, n_strata, k))
    if n_strata == 0 or n_resamples == 0:
        return out, "none"
    constant = ~np.isnan(plan.constant)
    varying = np.flatnonzero(~constant)
    out[:, :, constant] = sizes[None, :, None] * plan.constant[constant]

    paths = set()
    index_strata = []
    for d, (start, size) in enumerate(zip(starts.tolist(), sizes.tolist())):
        if varying.size == 0:
            break
        distinct = _distinct_rows(x[start : start + size], size // MULTINOMIAL_RATIO)
        if distinct is None:
            index_strata.append(d)
            continue
        rows, counts = distinct
        probs = counts / size
        for j0 in range(0, n_resamples, BLOCK):
            j1 = min(j0 + BLOCK, n_resamples)
            seq = np.random.SeedSequence(seed, spawn_key=(stream, j0 // BLOCK, 1 + d))
            rng = np.random.Generator(np.random.PCG64(seq))
            draws = rng.multinomial(size, probs, size=j1 - j0)
            out[j0:j1, d, varying] = draws @ rows
        paths.add("multinomial")

    if index_strata and varying.size:
        if max(int(sizes[d]) for d in index_strata) > MAX_UNITS_PER_STRATUM:
            raise ValueError(
                f"a draw stratum has more than {MAX_UNITS_PER_STRATUM} units; "
                "resample groups of items instead (groups=)"
            )
        small = n_resamples * int(sizes[np.asarray(index_strata)].sum()) < AUTO_NUMBA_DRAWS
        fast = None if backend == "numpy" or (backend == "auto" and small) else _numba_module()
        if fast is None and backend == "numba":
            raise ImportError('the numba backend needs numba: pip install "pairboot[fast]"')
        name = "numba" if fast is not None else "numpy"
        kernel = fast.index_sums if fast is not None else index_sums_numpy
        sel = np.asarray(index_strata)
        st, sz = starts[sel].astype(np.int64), sizes[sel].astype(np.int64)
        if fast is not None and callable(getattr(progress, "compiling", None)):
            if fast.needs_compile(sz):
                progress.compiling()
        keys = replicate_keys(seed, stream, n_resamples)
        # Memory batches hold whole BLOCKs; every replicate's draws depend on its key only.
        batch = BLOCK * max(1, 16 if name == "numba" else 1)
        buf = np.empty((batch, len(sel), varying.size))
        for r0 in range(0, n_resamples, batch):
            r1 = min(r0 + batch, n_resamples)
            part = buf[: r1 - r0]
            kernel(x, st, sz, keys[r0:r1], part)
            out[r0:r1, sel[:, None], varying[None, :]] = part
            if progress is not None:
                progress(r1)
        paths.add(name)
    if progress is not None:
        progress(n_resamples)
    return out, "+".join(sorted(paths)) or "constant"

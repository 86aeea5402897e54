"""The draw specification: which units every replicate draws, as pure functions of the seed.

Both kernels (:mod:`.numpy_kernel`, :mod:`.numba_kernels`) import their constants and rules
from here, so they draw the same units; this module imports numpy
(and :mod:`.seedseq`) only.

Replicate ``r`` has a 64-bit key from ``SeedSequence(seed, spawn_key=(stream, j))`` for its
fixed block ``j = r // BLOCK`` of replicates.  The ``t``-th draw of replicate ``r``
(counters run over all units, stratum after stratum) is the unit::

    start[d] + floor(mix64(key_r + (t + 1) * GAMMA) * size[d] / 2**64)

``mix64`` is the SplitMix64 finaliser (Stafford's variant 13), ``GAMMA`` the golden-ratio
increment: the output function of Java's ``SplittableRandom`` at a counter.  A draw is a
pure function of ``(seed, r, t)``, so no batching or thread count changes it; the
multiply-high bound has a bias below ``size / 2**64``.

A draw stratum of ``TREE_UNITS`` units or more draws the same law in another order, top
bits first, so that the kernels count each unit while it is in the cache:

1. *Split*: the ``size`` draws go to ``2**h`` cells (``h = tree_levels(size)``), cell ``j``
   holding the draws whose top ``h`` bits are ``j``.  Level by level, a node with ``c``
   draws sends ``K ~ Binomial(c, 1/2)`` to its right child: the ones among ``c`` random
   bits, the words ``mix64(key_r + (SPLIT_COUNTER + start + 1 + i) * GAMMA)`` for ``i = 0,
   1, ...`` in order (levels, then nodes left to right, ``ceil(c / 64)`` words each; of a
   last partial word only the low ``c % 64`` bits count).
2. *Leaves*: the ``t``-th draw, cell after cell, is ``start + floor(v * size / 2**64)`` with
   ``v = j * 2**(64 - h) + (mix64(key_r + (start + t + 1) * GAMMA) >> h)``.

Given the cell counts each cell's ``v`` are uniform on the cell's numbers, and the counts
are those of ``size`` uniform numbers (binary splitting draws a multinomial), so the units
drawn have the flat scheme's distribution.  Why and how fast: docs/performance.md.
"""

from __future__ import annotations

import numpy as np

from pairboot.engine.seedseq import spawned_words

BLOCK = 64
"""Replicates per SeedSequence child: fixed, so the answer never depends on batching."""

GAMMA = np.uint64(0x9E3779B97F4A7C15)
"""The counter's increment (SplitMix64's golden-ratio gamma)."""

MIX_M1 = np.uint64(0xBF58476D1CE4E5B9)
MIX_M2 = np.uint64(0x94D049BB133111EB)
LO32 = np.uint64(0xFFFFFFFF)
# Shift counts as uint64, so that numba keeps every operand of the mixer unsigned.
S27, S30, S31, S32 = (np.uint64(s) for s in (27, 30, 31, 32))

MAX_UNITS_PER_STRATUM = (1 << 32) - 1
"""The bounded draw is exact for sizes below 2**32."""

TREE_UNITS = 1 << 19
"""Draw strata of this many units or more are drawn top bits first (the tree scheme).

A constant, not a property of the machine: it decides which units are drawn, so it must
be the same everywhere."""

CELL_BITS = 12
"""A cell of the split covers at most ``2**CELL_BITS`` units (4 KiB of byte counts)."""

SPLIT_COUNTER = np.uint64(1 << 63)
"""First counter of the split words (stratum ``start``'s begin at ``SPLIT_COUNTER + start
+ 1``).  The draws' counters stay below it, and a stratum uses fewer split words than it
has units (at most ``h * size / 64 + 2**h``, under ``size`` when ``cell_bits >= 2``; about
``size / 3`` at the default), so strata never share split words either."""


def replicate_keys(seed: int, stream: int, n_resamples: int) -> np.ndarray:
    """The 64-bit key of every replicate, block by block from the SeedSequence
    (:func:`~pairboot.engine.seedseq.spawned_words`: numpy's words, all blocks at once)."""
    n_blocks = -(-n_resamples // BLOCK)
    keys = spawned_words(seed, stream, np.arange(n_blocks), BLOCK).reshape(-1)
    return keys[:n_resamples]


def mix64(z):
    """SplitMix64's output function, with wrapping arithmetic.

    On uint64 arrays here; the numba kernels compile this same function for scalars.
    """
    z = (z ^ (z >> S30)) * MIX_M1
    z = (z ^ (z >> S27)) * MIX_M2
    return z ^ (z >> S31)


def bounded(u, m):
    """``floor(u * m / 2**64)`` for uint64 ``u`` and ``m < 2**32``, exactly.

    On arrays here; the numba kernels compile this same function for scalars.
    """
    m64 = np.uint64(m)
    return ((u >> S32) * m64 + (((u & LO32) * m64) >> S32)) >> S32


def words(key, counters: np.ndarray) -> np.ndarray:
    """The generator's 64-bit outputs ``mix64(key + (counter + 1) * GAMMA)``.

    ``key`` is a uint64 or an array of them that broadcasts against ``counters``.
    """
    with np.errstate(over="ignore"):
        return mix64(key + (counters.astype(np.uint64) + np.uint64(1)) * GAMMA)


def draw_units(key: np.uint64, counters: np.ndarray, size: int) -> np.ndarray:
    """Unit offsets (0 <= i < size) drawn by one replicate at the given counters."""
    return bounded(words(key, counters), size).astype(np.intp)


def check_tree(tree_units: int, cell_bits: int) -> None:
    """Refuse tree settings with empty cells (2**h > size) or overlapping split words."""
    if tree_units < 2 or cell_bits < 2:
        raise ValueError(f"need tree_units >= 2 and cell_bits >= 2, got {tree_units}, {cell_bits}")


def kernel_strata(sizes, tree_units: int = TREE_UNITS) -> tuple[np.ndarray, np.ndarray]:
    """The draw strata each scheme draws: ``(flat, tree)`` indices into ``sizes``.

    The one rule both kernels follow (``tree_units`` other than :data:`TREE_UNITS` is for
    the tests, which draw small strata top bits first with it).
    """
    big = np.asarray(sizes, dtype=np.int64) >= tree_units
    return np.flatnonzero(~big), np.flatnonzero(big)


def tree_levels(size: int, cell_bits: int = CELL_BITS) -> int:
    """``h``: the split of a tree-drawn stratum has ``2**h`` cells (at least 2)."""
    return max(1, (int(size) - 1).bit_length() - cell_bits)

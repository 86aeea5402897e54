"""A family's permutation test, numba kernels: hash, shuffle and add, unit by unit, on
every core.

:func:`relabelled_sums` draws the relabellings of :func:`.permutations.permutation_indices`
(the same permutations) and adds each unit's permuted row into each permutation's sums:
blocks of permutations, one thread each, walking the units in row order, so every sum
adds its units in their order and the sums are the same bits on any number of threads.

Up to :data:`.relabel_ir.MAX_SYSTEMS` systems, the *lane* kernel: eight permutations to
a vector (:mod:`.relabel_ir`), the shuffle's first steps looked up in a table of the 8!
permutations of eight systems (:func:`.permutations.first_steps_table`), and each row
laid out column by column, the systems' values side by side, so that a position's value
is one permute (or gather) of the row.  Columns that are the same for every system (a
mean's count) take no part: their sums are the same for every permutation.  More
systems, or two with the one B - A column, take the plain loop (:func:`_plain_sums`),
which adds the same values in the same order.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange
from numba.core import codegen, config
from numba.core.errors import NumbaError

from pairboot.engine import kernel_cache, spec
from pairboot.engine.permutations import STEPS_PER_WORD, first_steps_table
from pairboot.engine.relabel_ir import BLOCK, LANES, MAX_SYSTEMS, make_relabel_unit
from pairboot.engine.spec import GAMMA

__all__ = ["relabelled_sums", "IN_REGISTERS"]

_REPS = 32
"""Permutations per block of the plain loop."""

_BLOCK = BLOCK
"""Permutations per block of the lane kernel (64: eight vectors; its sums stay in L1)."""

FIRST_STEPS = 8
"""The shuffle's first seven steps come from a table of 8! = 40,320 permutations (315 KiB:
it stays in L2, where 9! would not)."""


def _avx512() -> bool:
    """Whether numba compiles for a processor with AVX-512 (its own rule: the host's
    features unless ``NUMBA_CPU_FEATURES`` names them)."""
    features = config.CPU_FEATURES
    if features is None:
        features = codegen.get_host_cpu_features()
    flags = set(features.split(","))
    return "+avx512f" in flags and "-evex512" not in flags


IN_REGISTERS = _avx512()
"""The lane kernel permutes a row in registers (AVX-512), else it gathers."""

kernel_cache.install()  # (before the first kernel: pairboot's cache directory)

_OPTS = dict(cache=True, nogil=True, boundscheck=False, error_model="numpy")
_mix = njit(inline="always", **_OPTS)(spec.mix64)
_bounded = njit(inline="always", **_OPTS)(spec.bounded)
_relabel_unit = make_relabel_unit(IN_REGISTERS)


@njit(parallel=True, **_OPTS)
def _lane_sums(x, keys, starts, sizes, word, r0, r1, m, kv, table, fact, first, out):
    n_rep, n_strata, width = r1 - r0, starts.shape[0], m * kv
    n_blocks = -(-n_rep // _BLOCK)
    for job in prange(n_blocks * n_strata):
        b, d = job // n_strata, job % n_strata
        lo = b * _BLOCK
        nr = min(_BLOCK, n_rep - lo)
        acc = np.zeros(width * _BLOCK)
        counters = np.empty(_BLOCK, dtype=np.uint64)
        for r in range(_BLOCK):
            counters[r] = np.uint64(r0 + lo + r + 1) * GAMMA
        for u in range(starts[d], starts[d] + sizes[d]):
            _relabel_unit(x, u * width, _mix(keys[u] ^ word), counters, table, fact, first,
                          m, kv, acc)
        for r in range(nr):
            for c in range(width):
                out[lo + r, d, c] = acc[c * _BLOCK + r]


@njit(parallel=True, **_OPTS)
def _plain_sums(rows, keys, starts, sizes, word, r0, r1, m, k, mode, out):
    n_rep, n_strata, width = r1 - r0, starts.shape[0], rows.shape[1]
    n_blocks = -(-n_rep // _REPS)
    for job in prange(n_blocks * n_strata):
        b, d = job // n_strata, job % n_strata
        lo = b * _REPS
        nr = min(_REPS, n_rep - lo)
        acc = np.zeros((_REPS, width))
        perm = np.empty(m, dtype=np.int64)
        for u in range(starts[d], starts[d] + sizes[d]):
            z = _mix(keys[u] ^ word)
            for r in range(nr):
                h = _mix(z + np.uint64(r0 + lo + r + 1) * GAMMA)
                for j in range(m):
                    perm[j] = j
                for i in range(1, m):
                    if i > 1 and (i - 1) % STEPS_PER_WORD == 0:
                        h = _mix(h + GAMMA)
                    t = i - np.int64(_bounded(h, np.uint64(i + 1)))
                    h = h * np.uint64(i + 1)
                    here = perm[i]
                    perm[i] = perm[t]
                    perm[t] = here
                for j in range(m):
                    s = perm[j]
                    for c in range(k):
                        acc[r, j * k + c] += rows[u, s * k + c]
                    if mode == 2:
                        acc[r, m * k + j] += rows[u, m * k + s]
                if mode == 1:
                    acc[r, m * k] += rows[u, m * k] if perm[1] == 1 else -rows[u, m * k]
        for r in range(nr):
            for c in range(width):
                out[lo + r, d, c] = acc[r, c]


_lanes = {"compiles": True}
"""False once the lane kernel has failed to compile (an llvmlite it was not tried with):
the plain loop then takes every job, with the same sums."""


def relabelled_sums(rows, keys, starts, sizes, word, r0: int, r1: int, m: int, k: int,
                    differences: int, out, needed=None) -> None:
    """``out[r - r0, d]``: stratum d's sums of its units' rows relabelled in permutation
    r (as :func:`.permutations.relabelled_sums_numpy`, with the same permutations).
    ``needed`` (bool, one per column, or None for all): a block of columns (one column
    of every system's, or the differences) none of whose sums is needed is not
    relabelled, and its entries of ``out`` are left as they are."""
    mode = 0 if not differences else (1 if m == 2 and differences == 1 else 2)
    rows = np.ascontiguousarray(rows, dtype=np.float64)
    args = (keys, starts, sizes, np.uint64(word), np.int64(r0), np.int64(r1), np.int64(m))
    if mode == 1 or m > MAX_SYSTEMS or not _lanes["compiles"]:
        _plain_sums(rows, *args, np.int64(k), np.int64(mode), out)
        return
    own = rows[:, : m * k].reshape(len(rows), m, k)
    same = [bool((own[:, :, c] == own[:, :1, c]).all()) for c in range(k)]
    width = m * k + (m if mode == 2 else 0)
    wanted = np.ones(width, dtype=bool) if needed is None else np.asarray(needed, dtype=bool)
    moving = [c for c in range(k) if not same[c] and wanted[c:m * k:k].any()]
    diffs = mode == 2 and bool(wanted[m * k:].any())
    blocks = [own[:, :, c] for c in moving] + ([rows[:, m * k:]] if diffs else [])
    if blocks:
        kv = len(blocks)
        # (n, kv, m), and 16 values past the end for the last row's permute
        x = np.zeros(len(rows) * kv * m + 2 * LANES)
        x[: len(rows) * kv * m] = np.stack(blocks, axis=1).reshape(-1)
        first = min(m, FIRST_STEPS)
        sums = np.empty((r1 - r0, len(starts), kv * m))
        try:
            _lane_sums(x, *args, np.int64(kv), first_steps_table(first),
                       np.uint64(math.factorial(first)), np.int64(first), sums)
        except (NumbaError, RuntimeError):  # (llvmlite's verifier raises RuntimeError)
            if _lane_sums.signatures:
                raise
            _lanes["compiles"] = False
            _plain_sums(rows, *args, np.int64(k), np.int64(mode), out)
            return
        positions = np.arange(m)
        columns = [positions * k + c for c in moving] + ([m * k + positions] * diffs)
        out[:, :, np.concatenate(columns)] = sums
    for c in (c for c in range(k) if same[c]):
        # (a column the same for every system: its sum is the same for every
        # permutation, added one by one from 0.0 as the kernels add it)
        total = [np.cumsum(np.r_[0.0, rows[s:s + n, c]])[-1]
                 for s, n in zip(starts.tolist(), sizes.tolist())]
        out[:, :, c:m * k:k] = np.asarray(total)[None, :, None]

"""A family's permutation test, numba kernel: hash, shuffle and add, unit by unit, on
every core.

:func:`relabelled_sums` draws the relabellings of :func:`.permutations.permutation_indices`
(the same permutations) and adds each unit's permuted row into each permutation's sums,
as the swap kernel (:mod:`.swap_kernels`) adds swapped rows: blocks of :data:`_REPS`
permutations, one thread each, walking the units in row order.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from pairboot.engine import spec
from pairboot.engine.permutations import STEPS_PER_WORD
from pairboot.engine.spec import GAMMA

__all__ = ["relabelled_sums"]

_REPS = 32
"""Permutations per block."""

_OPTS = dict(cache=True, nogil=True, boundscheck=False, error_model="numpy")
_mix = njit(inline="always", **_OPTS)(spec.mix64)
_bounded = njit(inline="always", **_OPTS)(spec.bounded)


@njit(parallel=True, **_OPTS)
def _sums(rows, keys, starts, sizes, word, r0, r1, m, k, mode, out):
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


def relabelled_sums(rows, keys, starts, sizes, word, r0: int, r1: int, m: int, k: int,
                    differences: int, out) -> None:
    """``out[r - r0, d]``: stratum d's sums of its units' rows relabelled in permutation
    r (as :func:`.permutations.relabelled_sums_numpy`, with the same permutations)."""
    mode = 0 if not differences else (1 if m == 2 and differences == 1 else 2)
    _sums(np.ascontiguousarray(rows, dtype=np.float64), keys, starts, sizes,
          np.uint64(word), np.int64(r0), np.int64(r1), np.int64(m), np.int64(k),
          np.int64(mode), out)

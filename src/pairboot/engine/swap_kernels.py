"""The permutation test's numba kernel: hash, swap and add, unit by unit, on every core.

:func:`swap_sums` gives the swaps of :func:`.swaps.swap_bits` (the same bits) and adds
the swapped units' rows into each permutation's sums, as the Poisson kernel
(:mod:`.poisson_kernels`) adds weighted rows: blocks of :data:`_REPS` permutations, one
thread each, walking the units in row order.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from pairboot.engine import kernel_cache, spec
from pairboot.engine.spec import GAMMA

__all__ = ["swap_sums"]

_REPS = 64
"""Permutations per block (their sums stay in L1)."""

kernel_cache.install()  # (before the first kernel: pairboot's cache directory)

_OPTS = dict(cache=True, nogil=True, boundscheck=False, error_model="numpy")
_mix = njit(inline="always", **_OPTS)(spec.mix64)


@njit(parallel=True, **_OPTS)
def _sums(x, keys, starts, sizes, word, r0, r1, out, totals):
    n_rep, n_strata, k = r1 - r0, starts.shape[0], x.shape[1]
    n_blocks = -(-n_rep // _REPS)
    for job in prange(n_blocks * n_strata):
        b, d = job // n_strata, job % n_strata
        lo = b * _REPS
        nr = min(_REPS, n_rep - lo)
        acc = np.zeros((k, _REPS))
        tot = np.zeros(_REPS)
        w = np.empty(_REPS)
        steps = np.empty(_REPS, dtype=np.uint64)
        for r in range(_REPS):
            steps[r] = np.uint64(r0 + lo + r + 1) * GAMMA
        for u in range(starts[d], starts[d] + sizes[d]):
            z = _mix(keys[u] ^ word)
            for r in range(_REPS):
                w[r] = np.float64(_mix(z + steps[r]) >> np.uint64(63))
                tot[r] += w[r]
            for c in range(k):
                xc = x[u, c]
                for r in range(_REPS):
                    acc[c, r] += w[r] * xc
        for r in range(nr):
            totals[lo + r, d] = tot[r]
            for c in range(k):
                out[lo + r, d, c] = acc[c, r]


def swap_sums(x, keys, starts, sizes, word, r0: int, r1: int, out, totals) -> None:
    """``out[r - r0, d] = sum_u s_ru x_u``, ``totals[r - r0, d] = sum_u s_ru`` (as
    :func:`.swaps.swap_sums_numpy`, with the same swaps)."""
    _sums(np.ascontiguousarray(x, dtype=np.float64), keys, starts, sizes, np.uint64(word),
          np.int64(r0), np.int64(r1), out, totals)

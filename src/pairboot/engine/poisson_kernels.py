"""The Poisson producer's numba kernel: hash, weigh and add, unit by unit, on every core.

:func:`weight_sums` gives the weights of :func:`.keys.poisson_weights` (the same numbers)
and adds ``w * x_u`` into each replicate's sums.  The replicates are split into blocks
of :data:`_REPS`, one thread each; a block walks the units in row order, computing a
unit's weights for the whole block (straight vector code: the count of the first six
thresholds as a sum of comparisons, the others looked at only for the 0.06% of draws
that pass the sixth) and adding them to the block's accumulators, which
stay in L1.  Each replicate's sum runs over the units in row order, whatever the threads.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from pairboot.engine import kernel_cache, spec
from pairboot.engine.keys import POISSON_THRESHOLDS
from pairboot.engine.spec import GAMMA

__all__ = ["weight_sums"]

_REPS = 64
"""Replicates per block: a unit's row is read once per block, its weights computed as
one vector loop, and the block's sums (k + 1 columns of 64) stay in L1."""

kernel_cache.install()  # (before the first kernel: pairboot's cache directory)

_OPTS = dict(cache=True, nogil=True, boundscheck=False, error_model="numpy")
_mix = njit(inline="always", **_OPTS)(spec.mix64)

_T0, _T1, _T2, _T3, _T4, _T5 = (np.uint64(t) for t in POISSON_THRESHOLDS[:6].tolist())
_TAIL = tuple(np.uint64(t) for t in POISSON_THRESHOLDS[6:].tolist())


@njit(inline="always", **_OPTS)
def _head(v):
    """The number of thresholds ``T_0..T_5`` at or below ``v`` (all but 0.06% of draws)."""
    return (np.uint64(v >= _T0) + np.uint64(v >= _T1) + np.uint64(v >= _T2)
            + np.uint64(v >= _T3) + np.uint64(v >= _T4) + np.uint64(v >= _T5))


@njit(**_OPTS)
def _tail(v):
    """The number of thresholds ``T_6..T_19`` at or below ``v``."""
    n = 0
    for t in _TAIL:
        n += v >= t
    return n


@njit(parallel=True, **_OPTS)
def _sums(x, keys, starts, sizes, words, r0, r1, out, totals):
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
        word = words[d]
        v = np.empty(_REPS, dtype=np.uint64)
        for u in range(starts[d], starts[d] + sizes[d]):
            z = _mix(keys[u] ^ word)
            high = np.uint64(0)
            for r in range(_REPS):
                v[r] = _mix(z + steps[r])
                high |= np.uint64(v[r] >= _T5)
            for r in range(_REPS):
                w[r] = np.float64(_head(v[r]))
            if high:  # a weight of 6 or more in the block: rare
                for r in range(_REPS):
                    if v[r] >= _T5:
                        w[r] += _tail(v[r])
            for r in range(_REPS):
                tot[r] += w[r]
            for c in range(k):
                xc = x[u, c]
                for r in range(_REPS):
                    acc[c, r] += w[r] * xc
        for r in range(nr):
            totals[lo + r, d] = tot[r]
            for c in range(k):
                out[lo + r, d, c] = acc[c, r]


def weight_sums(x, keys, starts, sizes, words, r0: int, r1: int, out, totals) -> None:
    """``out[r - r0, d] = sum_u w_ru x_u``, ``totals[r - r0, d] = sum_u w_ru`` (as
    :func:`.poisson.weight_sums_numpy`, with the same weights)."""
    _sums(np.ascontiguousarray(x, dtype=np.float64), keys, starts, sizes, words,
          np.int64(r0), np.int64(r1), out, totals)

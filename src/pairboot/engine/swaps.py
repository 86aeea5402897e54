"""The permutation test's swaps: in permutation r, unit u swaps its two systems'
statistics when the top bit of ``mix64(mix64(key_u ^ word) + (r + 1) GAMMA)`` is set (a
pure function of the seed's word, the unit's key and r, as the Poisson weights of
:mod:`.keys` are), and the sums of the swapped units' rows.

:func:`swapped_unit_sums` returns, for permutations ``r0 <= r < r1``, every draw
stratum's sum of the swapped units' full rows (constant columns included); the numba
kernel (:mod:`.swap_kernels`) and the numpy reference here give the same bits and sums
that agree to rounding.
"""

from __future__ import annotations

import numpy as np

from pairboot.engine.backends import choose
from pairboot.engine.spec import GAMMA, mix64

__all__ = ["swap_bits", "swap_sums", "swapped_unit_sums"]

AUTO_NUMBA_SWAPS = 5_000_000
"""Below this many swaps the numpy reference finishes before numba would have loaded."""

_CHUNK = 2048
"""Units per step of the numpy reference."""


def swap_bits(keys: np.ndarray, word: np.uint64, permutations: np.ndarray) -> np.ndarray:
    """(len(permutations), len(keys)) 0/1 floats: whether each unit swaps."""
    with np.errstate(over="ignore"):
        z = mix64(np.asarray(keys, dtype=np.uint64) ^ np.uint64(word))
        r = np.asarray(permutations, dtype=np.uint64)[:, None]
        v = mix64(z[None, :] + (r + np.uint64(1)) * GAMMA)
    return (v >> np.uint64(63)).astype(np.float64)


def swap_sums_numpy(x, keys, starts, sizes, word, r0: int, r1: int, out, totals) -> None:
    """``out[r - r0, d] = sum_u s_ru x_u``, ``totals[r - r0, d] = sum_u s_ru``."""
    reps = np.arange(r0, r1)
    out[:] = 0.0
    totals[:] = 0.0
    for d, (s, m) in enumerate(zip(starts.tolist(), sizes.tolist())):
        for c in range(s, s + m, _CHUNK):
            e = min(c + _CHUNK, s + m)
            bits = swap_bits(keys[c:e], word, reps)
            out[:, d] += bits @ x[c:e]
            totals[:, d] += bits.sum(axis=1)


def _kernel(backend: str, n_swaps: int):
    """The swap-sum function for ``backend``, and its name."""
    return choose(backend, n_swaps, AUTO_NUMBA_SWAPS, swap_sums_numpy, "swap_kernels",
                  "swap_sums")


def swap_sums(x, keys, starts, sizes, word, r0: int, r1: int, backend: str = "auto"
              ) -> tuple[np.ndarray, np.ndarray, str]:
    """For permutations ``r0 <= r < r1`` and the row ranges ``starts``/``sizes`` of
    ``x`` (one per draw stratum): the sums of the swapped rows (r1 - r0, D, x's
    width), how many rows swapped (r1 - r0, D), and the kernel's name."""
    kernel, name = _kernel(backend, (r1 - r0) * len(x))
    d = len(starts)
    out = np.empty((r1 - r0, d, x.shape[1]))
    totals = np.empty((r1 - r0, d))
    kernel(x, np.asarray(keys, dtype=np.uint64), np.asarray(starts, dtype=np.int64),
           np.asarray(sizes, dtype=np.int64), word, r0, r1, out, totals)
    return out, totals, name


def swapped_unit_sums(plan, word, r0: int, r1: int, backend: str = "auto"
                      ) -> tuple[np.ndarray, str]:
    """(r1 - r0, n_draw_strata, width) sums of the swapped units' full rows, and the
    kernel's name."""
    d = len(plan.starts)
    varying = np.isnan(plan.constant)
    out, totals, name = swap_sums(plan.x, plan.keys, plan.starts, plan.sizes, word, r0, r1,
                                  backend)
    full = np.empty((r1 - r0, d, len(plan.constant)))
    full[..., varying] = out
    full[..., ~varying] = totals[..., None] * plan.constant[~varying]
    return full, name

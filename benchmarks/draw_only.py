"""The machine's limit for pairboot's generator: the kernels' draws and nothing else.

``draw_only(n, keys)`` draws ``n`` units per key with the numba kernels' own draw code
(:func:`pairboot.engine.numba_kernels.draw_unit`), on every core, and returns a checksum.
``bench.py`` divides the kernel's time by this one: the fused kernel makes these draws
plus the additions.  Needs numba.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from pairboot.engine.numba_kernels import draw_unit
from pairboot.engine.spec import GAMMA, LO32


@njit(parallel=True, cache=True, nogil=True, boundscheck=False, error_model="numpy")
def _draw_only(n, m, keys):
    sums = np.zeros(keys.shape[0], dtype=np.uint64)
    for r in prange(keys.shape[0]):
        z = keys[r] + GAMMA
        mr = m & LO32  # as in the kernels' _fill: the compiler then knows m < 2**32
        s = np.uint64(0)
        for _ in range(n):
            s += draw_unit(z, mr)
            z += GAMMA
        sums[r] = s
    return sums.sum()


def draw_only(n: int, keys: np.ndarray, *, size: int | None = None) -> int:
    """Draw ``n`` units per key (counters 0 to n - 1) and return a checksum.

    Units are drawn among ``size`` (default ``n``).  The checksum, the sum of the drawn
    offsets modulo 2**64, keeps the compiler from skipping the work.
    """
    m = n if size is None else size
    if not 0 <= m < 1 << 32:
        raise ValueError(f"`size` must be between 0 and 2**32 - 1, got {m}")
    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    return int(_draw_only(int(n), np.uint64(m), keys))

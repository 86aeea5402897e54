"""A family's permutation test: in permutation r, unit u relabels its M systems by a
random permutation, a pure function of the seed's word, the unit's key and r (keyed as
the Poisson weights and the two-system swaps of :mod:`.swaps` are), and the permuted
sums of every system's statistics.

The permutation is a forward Fisher-Yates shuffle driven by one word per unit and
permutation, ``h_1 = mix64(mix64(key_u ^ word) + (r + 1) GAMMA)``: for ``i = 1, ...,
M - 1``, position ``i`` trades places with position ``i - floor(h_i (i + 1) / 2**64)``,
and the next word is the product's low half, ``h_{i+1} = h_i (i + 1) mod 2**64`` (its
top bits are uniform again: Lemire's batched draws), fresh from ``mix64(h_i + GAMMA)``
every :data:`STEPS_PER_WORD` steps.  With two systems that is :func:`.swaps.swap_bits`'
rule (swap when the top bit of ``h_1`` is set), so a family of two systems draws the
two-system test's swaps.

``perm[p, u, j]`` is the system whose statistics position ``j`` takes; the permuted sums
of position ``j`` are ``sum_u x_u[perm[p, u, j]]``.  A mean's units also carry, per
system, its score less the unit's median score (:func:`pairboot.core.design.difference_block`):
a relabelling moves those columns with their systems (the median stays).
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np

from pairboot.engine.backends import choose
from pairboot.engine.spec import GAMMA, bounded, mix64

__all__ = ["permutation_indices", "all_permutations", "enumerated_indices",
           "first_steps_table", "permuted_sums", "relabelled_sums", "relabelled_row_sums"]

STEPS_PER_WORD = 8
"""Shuffle steps drawn from one word before it is mixed again (8 steps of at most 16
choices spend 32 of its 64 bits)."""

AUTO_NUMBA_PERMUTATIONS = 2_000_000
"""Below this many unit relabellings the numpy reference finishes before numba loads."""

_CHUNK = 1024
"""Units per step."""


def permutation_indices(keys: np.ndarray, word: np.uint64, permutations: np.ndarray,
                        m: int) -> np.ndarray:
    """(len(permutations), len(keys), m) system indices: ``out[p, u, j]`` is the system
    whose statistics position ``j`` of unit ``u`` takes in permutation ``permutations[p]``."""
    with np.errstate(over="ignore"):
        z = mix64(np.asarray(keys, dtype=np.uint64) ^ np.uint64(word))
        r = np.asarray(permutations, dtype=np.uint64)[:, None]
        h = mix64(z[None, :] + (r + np.uint64(1)) * GAMMA)
        perm = np.broadcast_to(np.arange(m, dtype=np.int16), h.shape + (m,)).copy()
        for i in range(1, m):
            if i > 1 and (i - 1) % STEPS_PER_WORD == 0:
                h = mix64(h + GAMMA)
            j = (i - bounded(h, i + 1).astype(np.int64))[..., None]
            h = h * np.uint64(i + 1)
            here = perm[..., i].copy()
            perm[..., i] = np.take_along_axis(perm, j, axis=2)[..., 0]
            np.put_along_axis(perm, j, here[..., None], axis=2)
    return perm


@functools.lru_cache(maxsize=4)
def first_steps_table(m: int) -> np.ndarray:
    """(m!,) uint64: the permutation of positions ``0 .. m - 1`` after the shuffle's
    first ``m - 1`` steps, four bits per position (position j's system in bits ``4 j``
    up), by ``floor(h_1 m! / 2**64)`` (``m <= 9``, one word).

    That number is the steps' draws in mixed radix, the first step's the most
    significant: ``floor(h (i + 1) / 2**64)`` and ``h (i + 1) mod 2**64`` are a
    multiplication's carry and remainder, so ``floor(h_1 2 3 ... m / 2**64) = (...(d_1 3
    + d_2) 4 + ...) m + d_{m-1}``.  The kernels look the steps up instead of taking
    them one by one; the word after them is ``h_1 m! mod 2**64``."""
    if not 1 <= m <= STEPS_PER_WORD + 1:
        raise ValueError(f"the first steps come from one word: m from 1 to "
                         f"{STEPS_PER_WORD + 1}, got {m}")
    size = math.factorial(m)
    digits = np.zeros((size, m), dtype=np.int64)  # (digits[:, i]: step i's draw)
    rest = np.arange(size, dtype=np.int64)
    for i in range(m - 1, 0, -1):
        rest, digits[:, i] = np.divmod(rest, i + 1)
    perm = np.broadcast_to(np.arange(m, dtype=np.uint64), (size, m)).copy()
    rows = np.arange(size)
    for i in range(1, m):
        t = i - digits[:, i]
        here = perm[:, i].copy()
        perm[:, i] = perm[rows, t]
        perm[rows, t] = here
    table = (perm << (np.uint64(4) * np.arange(m, dtype=np.uint64))).sum(axis=1,
                                                                         dtype=np.uint64)
    table.flags.writeable = False  # (shared by every call)
    return table


def all_permutations(m: int) -> np.ndarray:
    """(m!, m) every permutation of m systems, the identity first."""
    return np.array(list(itertools.permutations(range(m))), dtype=np.int16)


def enumerated_indices(n_units: int, m: int, codes: np.ndarray) -> np.ndarray:
    """(len(codes), n_units, m) the relabellings numbered ``codes``: unit u takes
    permutation ``(code // (m!)**u) % m!`` of :func:`all_permutations`."""
    table = all_permutations(m)
    base = math.factorial(m)
    digits = (np.asarray(codes, dtype=np.int64)[:, None]
              // base ** np.arange(n_units, dtype=np.int64)[None, :]) % base
    return table[digits]


def permuted_sums(rows: np.ndarray, perm: np.ndarray, m: int, k: int,
                  differences: int) -> np.ndarray:
    """(P, width) the sums over units of their permuted rows: ``rows`` (n, width) the
    units' statistics (every system's k columns, then ``differences`` columns: one per
    system, B - A for two systems, or none), ``perm`` (P, n, m) from
    :func:`permutation_indices`."""
    pair = m == 2 and differences == 1  # (B - A changes sign where the two swap)
    if differences not in (0, m) and not pair:
        raise ValueError(f"a relabelling moves one difference column per system, got "
                         f"{differences} for {m} systems")
    p = perm.shape[0]
    out = np.zeros((p, rows.shape[1]))
    for lo in range(0, len(rows), _CHUNK):
        hi = min(lo + _CHUNK, len(rows))
        block = perm[:, lo:hi]
        own = rows[lo:hi, : m * k].reshape(hi - lo, m, k)
        diff = rows[lo:hi, m * k:]
        for source in range(m):
            taken = (block == source)  # (P, c, m): where position j takes system `source`
            for j in range(m):
                mask = taken[..., j].astype(np.float64)
                out[:, j * k:(j + 1) * k] += mask @ own[:, source]
                if differences and not pair:
                    out[:, m * k + j] += mask @ diff[:, source]
        if pair:
            out[:, m * k] += (2.0 * (block[..., 1] == 1) - 1.0) @ diff[:, 0]
    return out


def relabelled_sums_numpy(rows, keys, starts, sizes, word, r0: int, r1: int, m: int, k: int,
                          differences: int, out, needed=None) -> None:
    """``out[r - r0, d]``: stratum d's sums of its units' ``rows`` relabelled in
    permutation r (:func:`permutation_indices`); every column, whatever ``needed`` says."""
    reps = np.arange(r0, r1)
    for d, (s, n) in enumerate(zip(starts.tolist(), sizes.tolist())):
        out[:, d] = 0.0
        for c in range(s, s + n, _CHUNK * 8):
            e = min(c + _CHUNK * 8, s + n)
            perm = permutation_indices(keys[c:e], word, reps, m)
            out[:, d] += permuted_sums(rows[c:e], perm, m, k, differences)


def relabelled_sums(plan, word, r0: int, r1: int, m: int, k: int, differences: int,
                    backend: str = "auto", needed=None) -> tuple[np.ndarray, str]:
    """(r1 - r0, n_draw_strata, width) every draw stratum's sums of its units' rows
    relabelled in permutations ``r0 <= r < r1``, and the kernel's name; ``needed`` as
    :func:`relabelled_row_sums` has it."""
    return relabelled_row_sums(plan.rows(0, len(plan.x)), plan.keys, plan.starts,
                               plan.sizes, word, r0, r1, m, k, differences, backend, needed)


def relabelled_row_sums(rows, keys, starts, sizes, word, r0: int, r1: int, m: int, k: int,
                        differences: int, backend: str = "auto", needed=None
                        ) -> tuple[np.ndarray, str]:
    """As :func:`relabelled_sums`, of the full ``rows`` (n, width) keyed by ``keys``, in
    draw strata of ``sizes`` rows from ``starts`` (a part's items, or a plan's units).
    ``needed`` (bool, one per column; None: all): the columns the caller reads; the
    others are NaN, and the numba kernel need not relabel them (the needed ones are the
    same bits either way)."""
    kernel, name = choose(backend, (r1 - r0) * len(rows), AUTO_NUMBA_PERMUTATIONS,
                          relabelled_sums_numpy, "permutation_kernels", "relabelled_sums")
    out = np.zeros((r1 - r0, len(starts), rows.shape[1]))
    kernel(np.ascontiguousarray(rows, dtype=np.float64), np.asarray(keys, dtype=np.uint64),
           np.asarray(starts, dtype=np.int64), np.asarray(sizes, dtype=np.int64), word, r0,
           r1, m, k, differences, out, needed)
    if needed is not None:
        out[..., ~np.asarray(needed, dtype=bool)] = np.nan
    return out, name

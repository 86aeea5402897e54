"""numpy's ``SeedSequence`` words for many spawn keys at once, without numpy.random.

``SeedSequence(seed, spawn_key=(stream, j)).generate_state(n, np.uint64)`` for every
``j`` of a range: the same hash as numpy's (``numpy/random/bit_generator.pyx``: the
entropy words hashed into a pool of four 32-bit words, then the pool hashed into the
output words), computed with uint32 arrays over ``j``.  The words that do not depend
on ``j`` (the seed's and the stream's) are hashed once.  A small command makes about
150 keys' blocks: numpy.random's import and a ``SeedSequence`` per block cost it about
10 ms (docs/performance.md, "Start-up").  ``tests/engine/test_seedseq.py`` compares the
words with numpy's.
"""

from __future__ import annotations

import functools
import sys

import numpy as np

POOL = 4
"""``SeedSequence``'s default pool size, in 32-bit words."""

_MASK = 0xFFFFFFFF
_INIT_A, _MULT_A = 0x43B0D7E5, 0x931E8875
_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715


def _words32(n: int) -> list[int]:
    """A non-negative integer as 32-bit words, least significant first (0 is one word)."""
    out = [n & _MASK]
    n >>= 32
    while n:
        out.append(n & _MASK)
        n >>= 32
    return out


def _hash_consts(start: int, mult: int):
    """numpy's running hash constant, as ``(before, after)`` pairs: a hash step xors
    its value with the constant, multiplies the constant by ``mult``, then the value by
    the new constant."""
    c = start
    while True:
        after = c * mult & _MASK
        yield c, after
        c = after


def _mix(x, y):
    """numpy's ``mix``: works on Python ints (masked) and on uint32 arrays (wrapping)."""
    r = (_MIX_L * x - _MIX_R * y) & _MASK if isinstance(x, int) and isinstance(y, int) \
        else np.uint32(_MIX_L) * x - np.uint32(_MIX_R) * y
    return r ^ (r >> 16)


@functools.cache
def _output_consts(n_words: int) -> tuple[np.ndarray, np.ndarray]:
    """``generate_state``'s constants: the one xored into word ``i`` and the one it is
    then multiplied by."""
    steps = _hash_consts(_INIT_B, _MULT_B)
    before, after = zip(*(next(steps) for _ in range(n_words)))
    return np.array(before, dtype=np.uint32), np.array(after, dtype=np.uint32)


def spawned_words(seed: int, stream: int, blocks: np.ndarray, n_words: int) -> np.ndarray:
    """``SeedSequence(seed, spawn_key=(stream, j)).generate_state(n_words, np.uint64)``
    for each ``j`` of ``blocks``, as an array (len(blocks), n_words).

    ``seed`` and ``stream`` are non-negative integers, ``blocks`` integers below
    ``2**32``; ``SeedSequence`` itself makes any other (and refuses what it refuses).
    """
    blocks = np.asarray(blocks)
    if blocks.size == 0:
        return np.empty((0, n_words), dtype=np.uint64)
    if (not isinstance(seed, int) or not isinstance(stream, int) or seed < 0 or stream < 0
            or blocks.ndim != 1 or not 0 <= blocks.min() <= blocks.max() <= _MASK):
        out = np.empty((len(blocks), n_words), dtype=np.uint64)
        for row, j in enumerate(blocks.tolist()):
            seq = np.random.SeedSequence(seed, spawn_key=(stream, j))
            out[row] = seq.generate_state(n_words, np.uint64)
        return out
    run = _words32(seed)
    run += [0] * (POOL - len(run))  # (a spawn key follows: the pool is filled with zeros)
    fixed = run + _words32(stream)  # every word but the block's
    steps = _hash_consts(_INIT_A, _MULT_A)

    def hashed(value):
        before, after = next(steps)
        if isinstance(value, int):
            value = (value ^ before) * after & _MASK
        else:
            value = (value ^ np.uint32(before)) * np.uint32(after)
        return value ^ (value >> 16)

    pool = [hashed(fixed[i]) for i in range(POOL)]
    for src in range(POOL):
        for dst in range(POOL):
            if src != dst:
                pool[dst] = _mix(pool[dst], hashed(pool[src]))
    for word in fixed[POOL:]:
        for dst in range(POOL):
            pool[dst] = _mix(pool[dst], hashed(word))
    j = blocks.astype(np.uint32)
    columns = [_mix(np.full(len(j), pool[dst], dtype=np.uint32), hashed(j))
               for dst in range(POOL)]
    xor, mult = _output_consts(2 * n_words)
    state = np.ascontiguousarray(np.stack(columns, axis=1)[:, np.arange(2 * n_words) % POOL])
    state ^= xor
    state *= mult
    state ^= state >> np.uint32(16)
    if sys.byteorder == "little":
        return state.view(np.uint64)
    return state.astype("<u4").view("<u8").astype(np.uint64)

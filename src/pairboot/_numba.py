"""The fused numba kernel: draw a unit and add its statistics in one pass, on every core.

``index_sums`` computes exactly the draws of :func:`pairboot.engine.index_sums_numpy`
(the ``t``-th draw of replicate ``r`` is unit ``start[d] + floor(mix64(key_r + (t + 1) *
GAMMA) * size[d] / 2**64)``, ``t`` counting over all units, stratum after stratum)
without an index or weight array: indices live in a 256-entry buffer (2 KiB, in L1), and
the counting path below holds one byte per unit per thread.  Each replicate
is summed by one thread in a fixed order, so the result is bit-identical for any number
of threads and any split of the replicates into calls; it agrees with the numpy kernel
to rounding (the two add the same numbers in different orders).

Two ways of adding, chosen per draw stratum by its size alone (never by the machine):

* *gather*: draw a block of indices (a loop the compiler vectorises), then add the drawn
  rows into independent accumulators (four or eight).  Best while the rows fit in cache.
* *count*: draw a block of indices and increment a per-unit count (one byte per unit,
  overflow past 255 handled exactly), then add ``count * x`` in one sequential sweep of
  the rows.  Random access then touches one byte per unit instead of a row of ``x``, and
  the rows stream from memory once per replicate: faster once the rows outgrow the
  caches.

The counter is advanced by adding ``GAMMA`` (wrapping), which equals ``(t + 1) * GAMMA``
modulo 2**64 exactly.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

__all__ = ["index_sums", "draw_only", "COUNT_PATH_BYTES"]

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_LO32 = np.uint64(0xFFFFFFFF)
_S27, _S30, _S31, _S32 = (np.uint64(s) for s in (27, 30, 31, 32))
_U1 = np.uint64(1)
_B1 = np.uint8(1)
_B255 = np.uint8(255)

_BLOCK = 256
"""Draws per vectorised step (a 2 KiB index buffer that stays in L1)."""

COUNT_PATH_BYTES = 1 << 23
"""A draw stratum whose rows take more bytes than this is summed by counting.

Measured on a 2-core AMD EPYC (1 MiB L2 per core, 32 MiB L3): gathering is faster up to
about 8-12 MiB of rows, counting beyond (1.7x faster at 16 MiB).  A constant, not a
property of the machine, so that the rounding of the sums is the same everywhere."""

_OPTS = dict(cache=True, nogil=True, boundscheck=False, error_model="numpy")


@njit(inline="always", **_OPTS)
def _unit(z, m):
    """``floor(mix64(z) * m / 2**64)`` with the multiply-high from 32-bit halves."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    z = z ^ (z >> _S31)
    return ((z >> _S32) * m + (((z & _LO32) * m) >> _S32)) >> _S32


@njit(inline="always", **_OPTS)
def _fill(buf, n, z, m, base):
    """Draw ``n`` units (offset by ``base``) into ``buf``; return the advanced counter."""
    for j in range(n):
        buf[j] = _unit(z, m) + base
        z += _GAMMA
    return z


@njit(**_OPTS)
def _gather_1(xf, start, size, key, buf):
    z = key + (np.uint64(start) + _U1) * _GAMMA
    m, base = np.uint64(size), np.uint64(start)
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
    for c0 in range(0, size, _BLOCK):
        n = min(_BLOCK, size - c0)
        z = _fill(buf, n, z, m, base)
        n8 = n & ~7
        for j in range(0, n8, 8):
            s0 += xf[buf[j]]
            s1 += xf[buf[j + 1]]
            s2 += xf[buf[j + 2]]
            s3 += xf[buf[j + 3]]
            s4 += xf[buf[j + 4]]
            s5 += xf[buf[j + 5]]
            s6 += xf[buf[j + 6]]
            s7 += xf[buf[j + 7]]
        for j in range(n8, n):
            s0 += xf[buf[j]]
    return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))


@njit(**_OPTS)
def _gather_2(xf, start, size, key, buf):
    z = key + (np.uint64(start) + _U1) * _GAMMA
    m, base = np.uint64(size), np.uint64(start)
    a0 = a1 = a2 = a3 = 0.0
    b0 = b1 = b2 = b3 = 0.0
    for c0 in range(0, size, _BLOCK):
        n = min(_BLOCK, size - c0)
        z = _fill(buf, n, z, m, base)
        n4 = n & ~3
        for j in range(0, n4, 4):
            i0, i1 = buf[j] << _U1, buf[j + 1] << _U1
            i2, i3 = buf[j + 2] << _U1, buf[j + 3] << _U1
            a0 += xf[i0]
            b0 += xf[i0 + _U1]
            a1 += xf[i1]
            b1 += xf[i1 + _U1]
            a2 += xf[i2]
            b2 += xf[i2 + _U1]
            a3 += xf[i3]
            b3 += xf[i3 + _U1]
        for j in range(n4, n):
            i0 = buf[j] << _U1
            a0 += xf[i0]
            b0 += xf[i0 + _U1]
    return (a0 + a1) + (a2 + a3), (b0 + b1) + (b2 + b3)


@njit(**_OPTS)
def _gather_k(x, start, size, key, buf, acc):
    """Any number of columns: one four-lane pass over the index block per column."""
    z = key + (np.uint64(start) + _U1) * _GAMMA
    m, base = np.uint64(size), np.uint64(start)
    k = x.shape[1]
    acc[:] = 0.0
    for c0 in range(0, size, _BLOCK):
        n = min(_BLOCK, size - c0)
        z = _fill(buf, n, z, m, base)
        n4 = n & ~3
        for c in range(k):
            s0 = s1 = s2 = s3 = 0.0
            for j in range(0, n4, 4):
                s0 += x[buf[j], c]
                s1 += x[buf[j + 1], c]
                s2 += x[buf[j + 2], c]
                s3 += x[buf[j + 3], c]
            for j in range(n4, n):
                s0 += x[buf[j], c]
            acc[c] += (s0 + s1) + (s2 + s3)


@njit(**_OPTS)
def _count(x, start, size, key, buf, cnt, acc):
    """Count the draws of one stratum per unit, then ``acc = sum_u count_u * x_u``.

    ``cnt[:size]`` is zero on entry and left zero.  A count that wraps past 255 adds
    ``256 * x_u`` to the result right away, so the sum is exact for any count.
    """
    z = key + (np.uint64(start) + _U1) * _GAMMA
    m = np.uint64(size)
    k = x.shape[1]
    acc[:] = 0.0
    for c0 in range(0, size, _BLOCK):
        n = min(_BLOCK, size - c0)
        z = _fill(buf, n, z, m, np.uint64(0))
        for j in range(n):
            i = buf[j]
            c = cnt[i]
            if c == _B255:
                cnt[i] = 0
                for col in range(k):
                    acc[col] += 256.0 * x[start + i, col]
            else:
                cnt[i] = c + _B1
    if k == 1:
        s0 = s1 = s2 = s3 = 0.0
        n4 = size & ~3
        for u in range(0, n4, 4):
            s0 += np.float64(cnt[u]) * x[start + u, 0]
            s1 += np.float64(cnt[u + 1]) * x[start + u + 1, 0]
            s2 += np.float64(cnt[u + 2]) * x[start + u + 2, 0]
            s3 += np.float64(cnt[u + 3]) * x[start + u + 3, 0]
        for u in range(n4, size):
            s0 += np.float64(cnt[u]) * x[start + u, 0]
        acc[0] += (s0 + s1) + (s2 + s3)
    elif k == 2:
        a0 = a1 = b0 = b1 = 0.0
        n2 = size & ~1
        for u in range(0, n2, 2):
            w0 = np.float64(cnt[u])
            w1 = np.float64(cnt[u + 1])
            a0 += w0 * x[start + u, 0]
            b0 += w0 * x[start + u, 1]
            a1 += w1 * x[start + u + 1, 0]
            b1 += w1 * x[start + u + 1, 1]
        for u in range(n2, size):
            w0 = np.float64(cnt[u])
            a0 += w0 * x[start + u, 0]
            b0 += w0 * x[start + u, 1]
        acc[0] += a0 + a1
        acc[1] += b0 + b1
    else:
        for col in range(k):
            s0 = s1 = s2 = s3 = 0.0
            n4 = size & ~3
            for u in range(0, n4, 4):
                s0 += np.float64(cnt[u]) * x[start + u, col]
                s1 += np.float64(cnt[u + 1]) * x[start + u + 1, col]
                s2 += np.float64(cnt[u + 2]) * x[start + u + 2, col]
                s3 += np.float64(cnt[u + 3]) * x[start + u + 3, col]
            for u in range(n4, size):
                s0 += np.float64(cnt[u]) * x[start + u, col]
            acc[col] += (s0 + s1) + (s2 + s3)
    for u in range(size):
        cnt[u] = 0


@njit(parallel=True, **_OPTS)
def _index_sums(x, starts, sizes, keys, out, count_bytes, n_runs):
    n_rep, n_strata, k = keys.shape[0], starts.shape[0], x.shape[1]
    xf = x.reshape(-1)
    counted = np.zeros(n_strata, dtype=np.bool_)
    longest = 0
    for d in range(n_strata):
        if sizes[d] * k * 8 > count_bytes:
            counted[d] = True
            longest = max(longest, sizes[d])
    # Contiguous runs of replicates (several per thread), each with its own buffers.
    n_runs = max(1, min(n_rep, n_runs))
    for run in prange(n_runs):
        buf = np.empty(_BLOCK, dtype=np.uint64)
        cnt = np.zeros(longest, dtype=np.uint8)
        acc = np.empty(k)
        for r in range(run * n_rep // n_runs, (run + 1) * n_rep // n_runs):
            key = keys[r]
            for d in range(n_strata):
                start, size = starts[d], sizes[d]
                if counted[d]:
                    _count(x, start, size, key, buf, cnt, acc)
                    for c in range(k):
                        out[r, d, c] = acc[c]
                elif k == 1:
                    out[r, d, 0] = _gather_1(xf, start, size, key, buf)
                elif k == 2:
                    out[r, d, 0], out[r, d, 1] = _gather_2(xf, start, size, key, buf)
                else:
                    _gather_k(x, start, size, key, buf, acc)
                    for c in range(k):
                        out[r, d, c] = acc[c]


def index_sums(
    x: np.ndarray,
    starts: np.ndarray,
    sizes: np.ndarray,
    keys: np.ndarray,
    out: np.ndarray,
    *,
    count_bytes: int = COUNT_PATH_BYTES,
) -> None:
    """``out[r, d] = sum of x over the units drawn for replicate r in draw stratum d``.

    Same arguments and draws as :func:`pairboot.engine.index_sums_numpy`: ``x`` is
    (n, k) float64, draw stratum ``d`` is the rows ``starts[d] : starts[d] + sizes[d]``
    (each size below 2**32), ``keys`` the replicates' 64-bit keys, and ``out``
    (len(keys), len(starts), k) is overwritten.  ``count_bytes`` is the stratum size
    (rows times 8k bytes) above which the counting path is used; it changes rounding
    only, never the draws.
    """
    x = np.ascontiguousarray(x, dtype=np.float64)
    if x.ndim != 2:
        raise ValueError(f"`x` must be 2-D, got {x.ndim}-D")
    starts = np.ascontiguousarray(starts, dtype=np.int64)
    sizes = np.ascontiguousarray(sizes, dtype=np.int64)
    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    shape = (len(keys), len(starts), x.shape[1])
    if out.shape != shape:
        raise ValueError(f"`out` must have shape {shape}, got {out.shape}")
    if len(starts) and (sizes.min() < 0 or sizes.max() >= 1 << 32):
        raise ValueError("draw strata sizes must be between 0 and 2**32 - 1")
    if len(starts) and (starts.min() < 0 or (starts + sizes).max() > len(x)):
        raise ValueError("draw strata must lie within the rows of `x`")
    runs = 4 * numba.get_num_threads()
    if out.dtype == np.float64 and out.flags.c_contiguous:
        _index_sums(x, starts, sizes, keys, out, int(count_bytes), runs)
    else:
        tmp = np.empty(shape)
        _index_sums(x, starts, sizes, keys, tmp, int(count_bytes), runs)
        out[...] = tmp


@njit(parallel=True, **_OPTS)
def _draw_only(n, m, keys):
    sums = np.zeros(keys.shape[0], dtype=np.uint64)
    for r in prange(keys.shape[0]):
        z = keys[r] + _GAMMA
        s = np.uint64(0)
        for _ in range(n):
            s += _unit(z, m)
            z += _GAMMA
        sums[r] = s
    return sums.sum()


def draw_only(n: int, keys: np.ndarray, *, size: int | None = None) -> int:
    """Draw ``n`` units per key (counters 0 to n - 1) and return a checksum.

    Units are drawn among ``size`` (default ``n``) with the kernel's generator.  The
    time this takes is the machine's limit for the generator: the fused kernel does
    these draws plus the additions.  The checksum, the sum of the drawn offsets modulo
    2**64, keeps the compiler from skipping the work.
    """
    m = n if size is None else size
    if not 0 <= m < 1 << 32:
        raise ValueError(f"`size` must be between 0 and 2**32 - 1, got {m}")
    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    return int(_draw_only(int(n), np.uint64(m), keys))

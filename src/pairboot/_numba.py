"""The fused numba kernel: draw a unit and add its statistics in one pass, on every core.

``index_sums`` computes exactly the draws of :func:`pairboot.engine.index_sums_numpy`
(the ``t``-th draw of replicate ``r`` is unit ``start[d] + floor(mix64(key_r + (t + 1) *
GAMMA) * size[d] / 2**64)``, ``t`` counting over all units, stratum after stratum; strata
of ``TREE_UNITS`` units or more draw by the tree scheme of :mod:`pairboot.engine`)
without an index or weight array: indices live in a small buffer in L1, and the
counting path below holds one byte per unit per thread.  Each replicate's sum over a
stratum is computed by one thread in a fixed order, so the result is bit-identical for
any number of threads and any split of the replicates into calls; it agrees with the
numpy kernel to rounding (the two add the same numbers in different orders).

Two ways of adding, chosen per draw stratum by its size and width alone (never by the
machine):

* *gather*: draw a block of indices (a loop the compiler vectorises), then add the drawn
  rows into independent accumulators (four or eight).  Best for small strata, whose
  rows stay in L1.
* *count*: draw 16 indices at a time and increment a per-unit byte count (a count
  passing 255 is recorded and added back exactly), then add ``count * x`` in one
  sequential sweep of the rows, written as vector code (see ``_make_sweep``).  Random
  access touches one byte per unit instead of a row of ``x``, and the drawing (vector
  arithmetic) overlaps the counting (scalar loads and stores).  For one or two columns
  it wins from about 64 KiB of rows (4,096 units of two columns) up; the generic sweep
  for three or more columns is scalar, and is used from 8 MiB of rows.

A draw stratum of :data:`pairboot.engine.TREE_UNITS` units or more (524,288) takes a
third way, *tree* (``_tree``), cell by cell of the split described in
:mod:`pairboot.engine`: each cell's draws fall among a few thousand consecutive units,
so the counts being incremented sit in L1 or L2 instead of L3 or memory, and the cell's
rows are swept at once, for eight replicates together, so that ``x`` streams from memory
once per eight replicates.  The split draws ``Binomial(c, 1/2)`` as the number of ones
in ``c`` random bits (LLVM's ``ctpop``).

The flat paths and the tree path are two parallel kernels, ``_flat_sums`` and
``_tree_sums``, each compiled (or loaded from numba's cache) when first needed.  Compiled
from cold here, the flat one takes about 10 s and the tree one 12 s; as one function,
which every first run compiled whole, they took 16-18 s.  A job with strata of both kinds
compiles both (about 21 s, once).

The counter is advanced by adding ``GAMMA`` (wrapping), which equals ``(t + 1) * GAMMA``
modulo 2**64 exactly.

Tried and measured on the 2-core EPYC (512 KiB L2 per core, 32 MiB L3), and not kept:
counting several replicates per sweep of the *whole* stratum (interleaved or one byte
plane per replicate, 2 to 16 replicates: below a million units the sweep is not limited
by the rows, and the planes outgrow L2; the tree path does this per cell, where it pays),
4-bit and 2-bit counts (more instructions per draw than the smaller footprint saves),
bucketing the draws by unit range before counting (1.7x slower), software prefetching
of the counts (slower), drawing one block ahead of the counting (no gain), counting
without the wrap check (no gain), huge pages for the counts and rows (slower), the
tree path below ``TREE_UNITS`` (slower at 100,000 and 262,144 units for any cell size),
the drawing and counting written as one straight block of LLVM IR (vector draws, counts
from their lanes, the previous block's counting software-pipelined behind the next
block's drawing, no wrap branch: the same sums, no gain at 20,000 or 100,000 units), and
two draws from the 32-bit halves of each word (drawing alone 27% faster, the kernel
slower).  The sweep costs the same whether the rows sit in L1, L2 or L3 below a million
units, and counting among 1,000 rows (all in L1) takes about as long per draw as at
100,000: what is left is the core's own work per index, not memory.
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils
from numba.core.extending import intrinsic

from pairboot.engine import CELL_BITS, SPLIT_COUNTER, TREE_UNITS, check_tree, tree_levels

__all__ = [
    "index_sums", "draw_only", "needs_compile", "COUNT_PATH_BYTES", "COUNT_PATH_BYTES_WIDE"
]

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_LO32 = np.uint64(0xFFFFFFFF)
_S27, _S30, _S31, _S32 = (np.uint64(s) for s in (27, 30, 31, 32))
_U1 = np.uint64(1)
_B1 = np.uint8(1)
_B255 = np.uint8(255)

_BLOCK = 256
"""Draws per vectorised step of the gather path (a 2 KiB index buffer, in L1)."""

_COUNT_BLOCK = 16
"""Draws per step of the counting path: small on purpose.

Drawing is vector arithmetic and counting is scalar loads and stores; the processor
overlaps one block's counting with the next block's drawing only when a block is a few
dozen instructions long (at 100,000 units, 16 is 1.15x faster than 64 or 256, and 8 is
much slower; at 1,000,000 units, where counting waits on L3, they are even)."""

_TREE_GROUP = 8
"""Replicates taken together through a tree stratum's cells: a cell's rows of ``x`` are
then read from memory once per 8 replicates, and the 8 planes of counts (4 KiB each at
the default cell size) stay in L1 and L2 with the cell's rows."""

COUNT_PATH_BYTES = 1 << 16
"""A draw stratum of one or two columns whose rows take more bytes than this is counted.

Measured on a 2-core AMD EPYC (512 KiB L2 per core, 32 MiB L3): the two paths are even
at about 4,000 units of two columns, and counting is 1.2x faster at 16,000 units, 1.4x
at 100,000 and 2x at 1,000,000.  Constants, not properties of the machine, so that the
rounding of the sums is the same everywhere."""

COUNT_PATH_BYTES_WIDE = 1 << 23
"""The same for three columns or more, whose sweep is scalar code: counting wins from
about 8 MiB of rows (2x faster at 1,000,000 units of three columns)."""

_OPTS = dict(cache=True, nogil=True, boundscheck=False, error_model="numpy")


@njit(inline="always", **_OPTS)
def _mix(z):
    """SplitMix64's output function."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(inline="always", **_OPTS)
def _mulhi(v, m):
    """``floor(v * m / 2**64)`` for ``m < 2**32``, from 32-bit halves."""
    return ((v >> _S32) * m + (((v & _LO32) * m) >> _S32)) >> _S32


@njit(inline="always", **_OPTS)
def _unit(z, m):
    """``floor(mix64(z) * m / 2**64)``: the flat scheme's draw."""
    return _mulhi(_mix(z), m)


@intrinsic
def _popcount(typingctx, v):
    """The number of ones in a uint64 (LLVM's ctpop: one instruction on x86-64-v2)."""
    if v != types.uint64:
        return None

    def codegen(context, builder, sig, args):
        fn = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)])
        return builder.call(fn, [args[0]])

    return types.uint64(types.uint64), codegen


@njit(inline="always", **_OPTS)
def _fill(buf, n, z, m, base):
    """Draw ``n`` units (offset by ``base``) into ``buf``; return the advanced counter."""
    m = m & _LO32  # sizes are below 2**32; knowing it, the compiler draws 1.2x faster
    for j in range(n):
        buf[j] = _unit(z, m) + base
        z += _GAMMA
    return z


@njit(inline="always", **_OPTS)
def _fill_leaf(buf, n, z, m, prefix, h, base):
    """Draw ``n`` units of a tree cell (``prefix``: its top ``h`` bits) into ``buf``."""
    m = m & _LO32
    for j in range(n):
        buf[j] = _mulhi(prefix | (_mix(z) >> h), m) + base
        z += _GAMMA
    return z


@njit(**_OPTS)
def _split(start, size, key, h, levels):
    """Divide a tree stratum's draws among its ``2**h`` cells; return their counts.

    Level by level, a node's ``c`` draws go right as many times as ``c`` random bits
    have ones (see :mod:`pairboot.engine`).  ``levels`` is (2, 2**h) scratch.
    """
    z = key + (SPLIT_COUNTER + np.uint64(start) + _U1) * _GAMMA
    levels[0, 0] = size
    row = 0
    for level in range(h):
        for i in range(1 << level):
            c = levels[row, i]
            ones = np.uint64(0)
            for _ in range(c >> 6):
                ones += _popcount(_mix(z))
                z += _GAMMA
            rem = np.uint64(c & 63)
            if rem:
                ones += _popcount(_mix(z) & ((_U1 << rem) - _U1))
                z += _GAMMA
            levels[1 - row, 2 * i] = c - np.int64(ones)
            levels[1 - row, 2 * i + 1] = np.int64(ones)
        row = 1 - row
    return levels[row]


@njit(inline="always", **_OPTS)
def _tally(cnt, buf, n, wraps, n_wraps):
    """Add one to the count of each unit in ``buf[:n]``; record wraps; return their number."""
    for j in range(n):
        i = buf[j]
        c = cnt[i]
        cnt[i] = c + _B1  # wraps to 0 after 255
        if c == _B255:
            wraps[n_wraps] = i
            n_wraps += 1
    return n_wraps


@njit(inline="always", **_OPTS)
def _add_wraps(x, row0, wraps, n_wraps, acc):
    """``acc += 256 * x[row0 + u]`` for each unit ``u`` whose byte count wrapped, in order."""
    for w in range(n_wraps):
        for col in range(x.shape[1]):
            acc[col] += 256.0 * x[row0 + wraps[w], col]


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


# --- the counting path's sweep, as explicit vector code ---------------------------------------
#
# numba runs LLVM without its SLP vectoriser, and LLVM may not reorder floating-point sums,
# so ``sum_u count_u * x_u`` written in Python compiles to one scalar multiply-add chain.
# These intrinsics write the loop in LLVM IR over vectors of eight doubles: ``G = 8 // k``
# units per step, each product in its own vector lane, two independent lane sets.  Every
# lane is an ordinary IEEE sum over a fixed subset of units, combined in a fixed order at
# the end, so the result depends on the stratum's size only: not on the machine's vector
# width (LLVM splits or joins the vectors without changing a lane's arithmetic), the
# threads or the batches.

_LANE_SETS = 2


def _make_sweep(k):
    """``sweep(cnt, x, start, size, acc)``: ``acc[c] += sum_u cnt[u] * x[start + u, c]``.

    Also sets ``cnt[:size]`` to zero.  Units are summed per lane: in lane set ``s``, the
    vector lane of unit slot ``g`` and column ``c`` adds the units ``u = (2 j + s) G + g``
    for j = 0, 1, ... in order; the two lane sets are added, then the ``G`` unit slots in
    order, then the tail (the last ``size % 2G`` units, in order), and that total is
    added to ``acc[c]`` (which holds the counts' wrap-arounds).
    """
    group = 8 // k
    width = group * k
    step = group * _LANE_SETS
    f64, i8, i32, i64 = ir.DoubleType(), ir.IntType(8), ir.IntType(32), ir.IntType(64)
    vec_w = ir.VectorType(f64, width)
    vec_c = ir.VectorType(i8, group)
    spread = ir.Constant(ir.VectorType(i32, width), [g for g in range(group) for _ in range(k)])

    @intrinsic
    def sweep(typingctx, cnt, x, start, size, acc):
        arrays = ((cnt, types.uint8, 1), (x, types.float64, 2), (acc, types.float64, 1))
        ok = all(
            isinstance(a, types.Array) and a.dtype == dt and a.ndim == nd and a.layout == "C"
            for a, dt, nd in arrays
        ) and all(isinstance(v, types.Integer) for v in (start, size))
        if not ok:
            return None

        def codegen(context, builder, sig, args):
            cnt_a = context.make_array(sig.args[0])(context, builder, args[0])
            x_a = context.make_array(sig.args[1])(context, builder, args[1])
            acc_a = context.make_array(sig.args[4])(context, builder, args[4])
            start_v = context.cast(builder, args[2], sig.args[2], types.int64)
            size_v = context.cast(builder, args[3], sig.args[3], types.int64)
            cp = cnt_a.data
            xp = builder.gep(x_a.data, [builder.mul(start_v, i64(k))])
            zero = ir.Constant(vec_w, [0.0] * width)
            lanes = [cgutils.alloca_once_value(builder, zero) for _ in range(_LANE_SETS)]
            n_steps = builder.sdiv(size_v, i64(step))
            with cgutils.for_range(builder, n_steps) as loop:
                u0 = builder.mul(loop.index, i64(step))
                for s, slot in enumerate(lanes):
                    u = builder.add(u0, i64(s * group))
                    pc = builder.bitcast(builder.gep(cp, [u]), vec_c.as_pointer())
                    c = builder.load(pc, align=1)
                    builder.store(ir.Constant(vec_c, [0] * group), pc, align=1)
                    w = builder.uitofp(c, ir.VectorType(f64, group))
                    if k > 1:
                        w = builder.shuffle_vector(w, w, spread)
                    px = builder.gep(xp, [builder.mul(u, i64(k))])
                    xv = builder.load(builder.bitcast(px, vec_w.as_pointer()), align=8)
                    builder.store(builder.fadd(builder.load(slot), builder.fmul(w, xv)), slot)
            total = builder.load(lanes[0])
            for slot in lanes[1:]:
                total = builder.fadd(total, builder.load(slot))
            sums = [builder.extract_element(total, i64(c)) for c in range(k)]
            for g in range(1, group):
                sums = [
                    builder.fadd(sums[c], builder.extract_element(total, i64(g * k + c)))
                    for c in range(k)
                ]
            tails = [cgutils.alloca_once_value(builder, f64(0.0)) for _ in range(k)]
            done = builder.mul(n_steps, i64(step))
            with cgutils.for_range_slice(builder, done, size_v, i64(1)) as (u, _):
                pc = builder.gep(cp, [u])
                w = builder.uitofp(builder.load(pc), f64)
                builder.store(i8(0), pc)
                row = builder.mul(u, i64(k))
                for c in range(k):
                    xc = builder.load(builder.gep(xp, [builder.add(row, i64(c))]))
                    tail = builder.fadd(builder.load(tails[c]), builder.fmul(w, xc))
                    builder.store(tail, tails[c])
            for c in range(k):
                pa = builder.gep(acc_a.data, [i64(c)])
                total_c = builder.fadd(sums[c], builder.load(tails[c]))
                builder.store(builder.fadd(builder.load(pa), total_c), pa)
            return context.get_dummy_value()

        return types.void(cnt, x, start, size, acc), codegen

    return sweep


_sweep_1 = _make_sweep(1)
_sweep_2 = _make_sweep(2)


@njit(**_OPTS)
def _sweep(cnt, x, start, size, acc):
    """``acc[c] += sum_u cnt[u] * x[start + u, c]`` for ``u < size``; zero ``cnt[:size]``."""
    k = x.shape[1]
    if k == 1:
        _sweep_1(cnt, x, start, size, acc)
    elif k == 2:
        _sweep_2(cnt, x, start, size, acc)
    else:
        # Scalar: the vector sweeps need 8 // k units per step.
        n4 = size & ~3
        for col in range(k):
            s0 = s1 = s2 = s3 = 0.0
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


@njit(**_OPTS)
def _count(x, start, size, key, buf, cnt, wraps, acc):
    """Count the draws of one stratum per unit, then ``acc = sum_u count_u * x_u``.

    ``cnt[:size]`` is zero on entry and left zero.  A count that wraps past 255 records
    its unit in ``wraps`` (room for ``size // 256`` units), and ``256 * x_u`` is added
    for each record, in draw order, before the sweep: the sum is exact for any count.
    """
    z = key + (np.uint64(start) + _U1) * _GAMMA
    m = np.uint64(size)
    zero = np.uint64(0)
    n_wraps = 0
    # Whole blocks, a constant trip count: the draws compile to straight vector code,
    # and the counting to a few scalar instructions per draw.
    for _ in range(size // _COUNT_BLOCK):
        z = _fill(buf, _COUNT_BLOCK, z, m, zero)
        n_wraps = _tally(cnt, buf, _COUNT_BLOCK, wraps, n_wraps)
    n = size % _COUNT_BLOCK
    z = _fill(buf, n, z, m, zero)
    n_wraps = _tally(cnt, buf, n, wraps, n_wraps)
    acc[:] = 0.0
    _add_wraps(x, start, wraps, n_wraps, acc)
    _sweep(cnt, x, start, size, acc)


@njit(**_OPTS)
def _tree(x, start, size, h, keys, buf, planes, wraps, levels, cells, counters, accs):
    """``accs[g] = sum of x over the units replicate g draws`` in a tree stratum.

    One replicate per key (at most ``len(planes)``), all taken cell by cell together:
    for cell ``j``, each replicate counts its draws there in its own plane of byte
    counts, offset to the cell's first unit ``lo_j = floor(j * size / 2**h)``, and
    sweeps the units ``lo_j <= u < lo_(j+1)``.  The cell's rows of ``x`` are read from
    memory once for all the replicates, and the planes stay in L1.  A draw of cell
    ``j`` can fall on unit ``lo_(j+1)`` (its interval of 64-bit numbers straddles the
    cells): that count moves to the next cell's plane offset 0.  Wrapped counts add
    ``256 * x_u`` when their cell is done.  Each replicate's sum is the same whatever
    the other keys, so any grouping gives the same result, bit for bit.
    """
    m = np.uint64(size)
    shift, hh = np.uint64(64 - h), np.uint64(h)
    n_keys, n_cells = keys.shape[0], 1 << h
    for g in range(n_keys):
        cells[g, :n_cells] = _split(start, size, keys[g], h, levels)[:n_cells]
        counters[g] = keys[g] + (np.uint64(start) + _U1) * _GAMMA
        accs[g, :] = 0.0
    lo = 0
    for j in range(n_cells):
        nxt = (j + 1) * size >> h
        prefix = np.uint64(j) << shift
        base = np.uint64(0) - np.uint64(lo)  # wrapping: draws become offsets from lo
        for g in range(n_keys):
            cnt = planes[g]
            z = counters[g]
            c = cells[g, j]
            n_wraps = 0
            for _ in range(c // _COUNT_BLOCK):
                z = _fill_leaf(buf, _COUNT_BLOCK, z, m, prefix, hh, base)
                n_wraps = _tally(cnt, buf, _COUNT_BLOCK, wraps, n_wraps)
            n = c % _COUNT_BLOCK
            z = _fill_leaf(buf, n, z, m, prefix, hh, base)
            n_wraps = _tally(cnt, buf, n, wraps, n_wraps)
            counters[g] = z
            _add_wraps(x, start + lo, wraps, n_wraps, accs[g])
            _sweep(cnt, x, start + lo, nxt - lo, accs[g])
            if nxt > lo:  # (an empty window, possible only with 2**h > size, keeps its count)
                cnt[0] = cnt[nxt - lo]  # the straddling unit, if drawn, starts the next cell
                cnt[nxt - lo] = 0
        lo = nxt


@njit(parallel=True, **_OPTS)
def _flat_sums(x, starts, sizes, strata, keys, out, count_bytes, n_runs):
    """``out[:, d]`` for the flat strata ``d`` in ``strata``: gathered or counted."""
    n_rep, k = keys.shape[0], x.shape[1]
    xf = x.reshape(-1)
    counted = np.zeros(starts.shape[0], dtype=np.bool_)
    longest = 0
    for d in strata:
        if sizes[d] * k * 8 > count_bytes:
            counted[d] = True
            longest = max(longest, sizes[d])
    # Contiguous runs of replicates (several per thread), each with its own buffers.
    n_runs = max(1, min(n_rep, n_runs))
    for run in prange(n_runs):
        buf = np.empty(max(_BLOCK, _COUNT_BLOCK), dtype=np.uint64)  # (the two paths')
        cnt = np.zeros(longest, dtype=np.uint8)
        wraps = np.empty(longest // 256 + 1, dtype=np.uint64)
        acc = np.empty(k)
        for r in range(run * n_rep // n_runs, (run + 1) * n_rep // n_runs):
            key = keys[r]
            for d in strata:
                start, size = starts[d], sizes[d]
                if counted[d]:
                    _count(x, start, size, key, buf, cnt, wraps, acc)
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


@njit(parallel=True, **_OPTS)
def _tree_sums(x, starts, sizes, tree_h, strata, keys, out, n_runs):
    """``out[:, d]`` for the tree strata ``d`` in ``strata``, ``_TREE_GROUP`` replicates
    at a time."""
    n_rep, k = keys.shape[0], x.shape[1]
    plane, h_max, longest = 1, 0, 0
    for d in strata:
        plane = max(plane, -(-sizes[d] >> tree_h[d]) + 2)
        h_max = max(h_max, tree_h[d])
        longest = max(longest, sizes[d])  # any cell may (in principle) hold all
    n_runs = max(1, min(n_rep, n_runs))
    for run in prange(n_runs):
        buf = np.empty(_COUNT_BLOCK, dtype=np.uint64)
        wraps = np.empty(longest // 256 + 1, dtype=np.uint64)
        planes = np.zeros((_TREE_GROUP, plane), dtype=np.uint8)
        levels = np.empty((2, 1 << h_max), dtype=np.int64)
        cells = np.empty((_TREE_GROUP, 1 << h_max), dtype=np.int64)
        counters = np.empty(_TREE_GROUP, dtype=np.uint64)
        accs = np.empty((_TREE_GROUP, k))
        r_end = (run + 1) * n_rep // n_runs
        for r0 in range(run * n_rep // n_runs, r_end, _TREE_GROUP):
            r1 = min(r0 + _TREE_GROUP, r_end)
            for d in strata:
                _tree(x, starts[d], sizes[d], tree_h[d], keys[r0:r1], buf, planes, wraps,
                      levels, cells, counters, accs)
                out[r0:r1, d, :] = accs[: r1 - r0]


def index_sums(
    x: np.ndarray,
    starts: np.ndarray,
    sizes: np.ndarray,
    keys: np.ndarray,
    out: np.ndarray,
    *,
    count_bytes: int | None = None,
    tree_units: int = TREE_UNITS,
    cell_bits: int = CELL_BITS,
) -> None:
    """``out[r, d] = sum of x over the units drawn for replicate r in draw stratum d``.

    Same arguments and draws as :func:`pairboot.engine.index_sums_numpy`: ``x`` is
    (n, k) float64, draw stratum ``d`` is the rows ``starts[d] : starts[d] + sizes[d]``
    (each size below 2**32), ``keys`` the replicates' 64-bit keys, and ``out``
    (len(keys), len(starts), k) is overwritten.  ``count_bytes`` is the stratum size
    (rows times 8k bytes) above which the counting path is used (default
    :data:`COUNT_PATH_BYTES` for one or two columns, :data:`COUNT_PATH_BYTES_WIDE` for
    more); it changes rounding only, never the draws.  ``tree_units`` and ``cell_bits``
    (see :func:`pairboot.engine.index_sums_numpy`) are for the tests.
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
    if count_bytes is None:
        count_bytes = COUNT_PATH_BYTES if x.shape[1] <= 2 else COUNT_PATH_BYTES_WIDE
    check_tree(tree_units, cell_bits)
    flat, tree = _kernel_strata(sizes, tree_units)
    tree_h = np.zeros(len(sizes), dtype=np.int64)
    tree_h[tree] = [tree_levels(n, cell_bits) for n in sizes[tree].tolist()]
    target = out if out.dtype == np.float64 and out.flags.c_contiguous else np.empty(shape)
    # Several runs per thread balance the load; any partition gives the same sums.
    runs = 4 * numba.get_num_threads()
    if len(flat):
        _flat_sums(x, starts, sizes, flat, keys, target, int(count_bytes), runs)
    if len(tree):
        _tree_sums(x, starts, sizes, tree_h, tree, keys, target, runs)
    if target is not out:
        out[...] = target


@njit(parallel=True, **_OPTS)
def _draw_only(n, m, keys):
    sums = np.zeros(keys.shape[0], dtype=np.uint64)
    for r in prange(keys.shape[0]):
        z = keys[r] + _GAMMA
        mr = m & _LO32  # as in _fill: the compiler then knows m < 2**32
        s = np.uint64(0)
        for _ in range(n):
            s += _unit(z, mr)
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


def needs_compile(sizes=None) -> bool:
    """Whether :func:`index_sums` on draw strata of these sizes (default: of any size)
    compiles a kernel first (once each: about 10 s for strata under ``TREE_UNITS`` units,
    12 s for the others).

    True when this process has not compiled that kernel and numba's on-disk cache has
    no entry for this version of the source (a fresh install, or a read-only install
    folder without a usable ``NUMBA_CACHE_DIR``).  Best effort: it reads numba's cache
    index, which is not a public interface, and says False when it cannot.
    """
    if sizes is None:
        return _compiles(_flat_sums) or _compiles(_tree_sums)
    flat, tree = _kernel_strata(np.asarray(sizes, dtype=np.int64))
    return bool((len(flat) and _compiles(_flat_sums)) or (len(tree) and _compiles(_tree_sums)))


def _kernel_strata(sizes: np.ndarray, tree_units: int = TREE_UNITS):
    """The strata each kernel draws: ``(flat, tree)`` indices (tree from ``tree_units``)."""
    big = sizes >= tree_units
    return np.flatnonzero(~big), np.flatnonzero(big)


def _compiles(kernel) -> bool:
    if kernel.signatures:
        return False
    try:
        return not kernel._cache._cache_file._load_index()
    except Exception:  # noqa: BLE001  (numba internals changed: no notice, no harm)
        return False

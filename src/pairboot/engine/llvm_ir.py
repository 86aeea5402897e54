"""Hand-written LLVM IR for the numba kernels: a popcount, and the counting path's sweep.

A reader can skip this file: ``popcount(v)`` is the number of ones in a uint64, and
``make_sweep(k)`` returns ``sweep(cnt, x, start, size, acc)``, which does
``acc[c] += sum_u cnt[u] * x[start + u, c]`` for ``u < size`` and zeroes ``cnt[:size]``.

numba runs LLVM without its SLP vectoriser, and LLVM may not reorder floating-point sums,
so that loop written in Python compiles to one scalar multiply-add chain per column.  The
sweep writes it over vectors of eight doubles instead, which makes the whole kernel
1.45-2.35x faster on the counting and tree paths (docs/performance.md, "The resampling
kernel").
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.extending import intrinsic

__all__ = ["popcount", "make_sweep", "dot_lanes", "DOT_STEP"]


@intrinsic
def popcount(typingctx, v):
    """The number of ones in a uint64 (LLVM's ctpop: one instruction on x86-64-v2)."""
    if v != types.uint64:
        return None

    def codegen(context, builder, sig, args):
        fn = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)])
        return builder.call(fn, [args[0]])

    return types.uint64(types.uint64), codegen


_LANE_SETS = 2


def make_sweep(k):
    """``sweep(cnt, x, start, size, acc)`` for ``x`` of ``k`` columns (the kernels use 1, 2).

    ``G = 8 // k`` units per vector step, each product in its own vector lane, two
    independent lane sets.  Units are summed per lane: in lane set ``s``, the lane of
    unit slot ``g`` and column ``c`` adds the units ``u = (2 j + s) G + g`` for j = 0, 1,
    ... in order; the two lane sets are added, then the ``G`` unit slots in order, then
    the tail (the last ``size % 2G`` units, in order), and that total is added to
    ``acc[c]`` (which holds the counts' wrap-arounds).  Every lane is an ordinary IEEE
    sum over a fixed subset of units, combined in a fixed order, so the result depends
    on the stratum's size only: not on the machine's vector width (LLVM splits or joins
    the vectors without changing a lane's arithmetic), the threads or the batches.
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


_DOT_GROUP = 8
DOT_STEP = _DOT_GROUP * _LANE_SETS
"""Units per step of :func:`dot_lanes`: ranges passed to it start and end on a multiple."""


@intrinsic
def dot_lanes(typingctx, cnt, c0, x, x0, n, lanes):
    """``lanes`` += the per-lane products of ``cnt[c0 : c0 + n]`` and ``x[x0 : x0 + n]``.

    The inner step of ``make_sweep(1)``, with its sixteen lanes kept in ``lanes`` (float64,
    16) between calls: lane ``8 s + g`` adds the unit at offset ``16 j + 8 s + g``.  ``n``
    is a multiple of :data:`DOT_STEP`, and calls over consecutive ranges starting at a
    multiple of it add each unit to the lane one call over the whole range would, in the
    same order.  The counts are read, not zeroed.
    """
    arrays = ((cnt, types.uint8, 1), (x, types.float64, 1), (lanes, types.float64, 1))
    ok = all(
        isinstance(a, types.Array) and a.dtype == dt and a.ndim == nd and a.layout == "C"
        for a, dt, nd in arrays
    ) and all(isinstance(v, types.Integer) for v in (c0, x0, n))
    if not ok:
        return None
    f64, i8, i64 = ir.DoubleType(), ir.IntType(8), ir.IntType(64)
    vec_w = ir.VectorType(f64, _DOT_GROUP)
    vec_c = ir.VectorType(i8, _DOT_GROUP)

    def codegen(context, builder, sig, args):
        cnt_a = context.make_array(sig.args[0])(context, builder, args[0])
        x_a = context.make_array(sig.args[2])(context, builder, args[2])
        lanes_a = context.make_array(sig.args[5])(context, builder, args[5])
        c0_v = context.cast(builder, args[1], sig.args[1], types.int64)
        x0_v = context.cast(builder, args[3], sig.args[3], types.int64)
        n_v = context.cast(builder, args[4], sig.args[4], types.int64)
        cp = builder.gep(cnt_a.data, [c0_v])
        xp = builder.gep(x_a.data, [x0_v])
        state = builder.bitcast(lanes_a.data, vec_w.as_pointer())
        slots = [
            cgutils.alloca_once_value(builder, builder.load(builder.gep(state, [i64(s)]), align=8))
            for s in range(_LANE_SETS)
        ]
        n_steps = builder.sdiv(n_v, i64(DOT_STEP))
        with cgutils.for_range(builder, n_steps) as loop:
            u0 = builder.mul(loop.index, i64(DOT_STEP))
            for s, slot in enumerate(slots):
                u = builder.add(u0, i64(s * _DOT_GROUP))
                pc = builder.bitcast(builder.gep(cp, [u]), vec_c.as_pointer())
                w = builder.uitofp(builder.load(pc, align=1), vec_w)
                px = builder.bitcast(builder.gep(xp, [u]), vec_w.as_pointer())
                xv = builder.load(px, align=8)
                builder.store(builder.fadd(builder.load(slot), builder.fmul(w, xv)), slot)
        for s, slot in enumerate(slots):
            builder.store(builder.load(slot), builder.gep(state, [i64(s)]), align=8)
        return context.get_dummy_value()

    return types.void(cnt, c0, x, x0, n, lanes), codegen

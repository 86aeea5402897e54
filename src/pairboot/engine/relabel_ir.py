"""Hand-written LLVM IR for a family's permutation kernel: one unit's relabelled rows
added into the sums of a block of permutations, eight permutations to a vector.

A reader can skip this file: ``make_relabel_unit(permute)`` returns
``relabel_unit(x, row, z, counters, table, fact, first, m, kv, acc)``, which does for
every permutation ``r`` of the block what :mod:`.permutation_kernels`' plain loop does
unit by unit: hash ``h = mix64(z + counters[r])``, shuffle the ``m`` systems as
:func:`.permutations.permutation_indices` does, and add the row's values where the
shuffle puts them, ``acc[(c m + j) R + r] += x[row + c m + perm[j]]`` (``R`` the
block's size, a multiple of :data:`BLOCK`; the row holds ``kv`` columns one after the
other, each with the ``m`` systems' values side by side).

numba's loop vectoriser does not vectorise that loop (the shuffle's steps depend on
``m``), and one vectorised loop per step, through memory, was about twice as slow
(docs/performance.md, "A family's permutation test").  Here the shuffle of eight
permutations lives in two vector registers: ``h`` and the permutation packed four bits
per position (so ``m <= 16``).  Its first ``first - 1`` steps come from one table
lookup (:func:`.permutations.first_steps_table`); each later step is a few shifts.  The
shuffles of eight such vectors are drawn together, step by step across the vectors
(each is a long chain of multiplies, a table lookup and shifts, independent of the
others, which the processor then runs side by side), before their rows are added.  A
position's value is then one in-register permute of the row (``permute``: AVX-512's
``vpermi2pd``, from 16 values) or a gather (any processor).  Each ``acc`` lane adds the
units in their order, one value each, so the sums are the plain loop's, bit for bit.
"""

from __future__ import annotations

import llvmlite.binding as llvm
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.extending import intrinsic

from pairboot.engine.permutations import STEPS_PER_WORD
from pairboot.engine.spec import GAMMA, MIX_M1, MIX_M2

__all__ = ["make_relabel_unit", "LANES", "BLOCK", "MAX_SYSTEMS"]

LANES = 8
"""Permutations per vector."""

MAX_SYSTEMS = 16
"""A permutation packed four bits per position in a 64-bit lane."""

_GROUPS = 8
"""Vectors of permutations shuffled together before their rows are added."""

BLOCK = LANES * _GROUPS
"""A block's size is a multiple of this many permutations."""

_I1, _I32, _I64, _F64 = ir.IntType(1), ir.IntType(32), ir.IntType(64), ir.DoubleType()
_VI, _VF = ir.VectorType(_I64, LANES), ir.VectorType(_F64, LANES)
_LO32 = 0xFFFFFFFF


def _const(v: int) -> ir.Constant:
    return ir.Constant(_VI, [v] * LANES)


def _splat(b: ir.IRBuilder, v, vt=_VI):
    undef = ir.Constant(vt, ir.Undefined)
    one = b.insert_element(undef, v, _I32(0))
    return b.shuffle_vector(one, undef, ir.Constant(ir.VectorType(_I32, LANES), [0] * LANES))


def _small(b: ir.IRBuilder, v):
    """``v`` (i64, below 2**32) splat so that LLVM knows its high half is zero: the
    products below are then 32 x 32 -> 64-bit multiplies."""
    return _splat(b, b.zext(b.trunc(v, _I32), _I64))


def _mix(b: ir.IRBuilder, z):
    """:func:`.spec.mix64` on a vector."""
    z = b.mul(b.xor(z, b.lshr(z, _const(30))), _const(int(MIX_M1)))
    z = b.mul(b.xor(z, b.lshr(z, _const(27))), _const(int(MIX_M2)))
    return b.xor(z, b.lshr(z, _const(31)))


def _draw(b: ir.IRBuilder, h, k):
    """``(floor(h k / 2**64), h k mod 2**64)`` for ``k`` below 2**32: :func:`.spec.bounded`
    and the next word of the shuffle, from the same two products."""
    hi = b.mul(b.lshr(h, _const(32)), k)
    lo = b.mul(b.and_(h, _const(_LO32)), k)
    return b.lshr(b.add(hi, b.lshr(lo, _const(32))), _const(32)), b.add(b.shl(hi, _const(32)), lo)


def _declare(b: ir.IRBuilder, name: str, fnty: ir.FunctionType) -> ir.Function:
    found = b.module.globals.get(name)
    return found if found is not None else ir.Function(b.module, fnty, name)


def _gather(b: ir.IRBuilder, base, index, elt):
    """``base[index]`` for each lane (LLVM's masked gather, all lanes on)."""
    vt, pvt = ir.VectorType(elt, LANES), ir.VectorType(elt.as_pointer(), LANES)
    addr = b.add(_splat(b, b.ptrtoint(base, _I64)), b.shl(index, _const(3)))
    # (the name carries the pointer's type: "p0" since LLVM's pointers are opaque)
    ptr = "p0" if llvm.llvm_version_info[0] >= 17 else f"p0{elt.intrinsic_name}"
    name = f"llvm.masked.gather.v{LANES}{elt.intrinsic_name}.v{LANES}{ptr}"
    mask = ir.VectorType(_I1, LANES)
    fn = _declare(b, name, ir.FunctionType(vt, [pvt, _I32, mask, vt]))
    return b.call(fn, [b.inttoptr(addr, pvt), _I32(8), ir.Constant(mask, [1] * LANES),
                       ir.Constant(vt, ir.Undefined)])


def make_relabel_unit(permute: bool):
    """The intrinsic ``relabel_unit`` (see the module's docstring); ``permute`` picks
    AVX-512's in-register permute (only on a processor that has it) over a gather."""

    @intrinsic
    def relabel_unit(typingctx, x, row, z, counters, table, fact, first, m, kv, acc):
        arrays = ((x, types.float64), (counters, types.uint64), (table, types.uint64),
                  (acc, types.float64))
        ok = all(isinstance(a, types.Array) and a.dtype == dt and a.ndim == 1
                 and a.layout == "C" for a, dt in arrays)
        ok = ok and all(isinstance(v, types.Integer) for v in (row, z, fact, first, m, kv))
        if not ok:
            return None
        sig = types.void(x, row, z, counters, table, fact, first, m, kv, acc)

        def codegen(context, b, sig, args):
            xa, ca, ta, aa = (context.make_array(sig.args[i])(context, b, args[i])
                              for i in (0, 3, 4, 9))
            row_v, z_v, fact_v, first_v, m_v, kv_v = (
                context.cast(b, args[i], sig.args[i], types.int64) for i in (1, 2, 5, 6, 7, 8))
            n_rep = b.extract_value(ca.shape, 0)
            xrow = b.gep(xa.data, [row_v])
            zs, fact_s = _splat(b, z_v), _small(b, fact_v)
            qs = cgutils.alloca_once(b, _VI, size=_GROUPS)
            hs = cgutils.alloca_once(b, _VI, size=_GROUPS)
            ps = cgutils.alloca_once(b, _VI, size=_GROUPS)
            n_groups = b.udiv(n_rep, _I64(LANES))
            with cgutils.for_range_slice(b, _I64(0), n_groups, _I64(_GROUPS)) as (g0, _):
                # the shuffles of _GROUPS vectors first, step by step across the vectors
                # (independent chains, run side by side), then each position's values
                for g in range(_GROUPS):
                    at = b.gep(ca.data, [b.mul(b.add(g0, _I64(g)), _I64(LANES))])
                    counter = b.load(b.bitcast(at, _VI.as_pointer()), align=8)
                    code, h = _draw(b, _mix(b, b.add(zs, counter)), fact_s)
                    b.store(_gather(b, ta.data, code, _I64), b.gep(ps, [_I64(g)]))
                    b.store(h, b.gep(hs, [_I64(g)]))
                with cgutils.for_range_slice(b, first_v, m_v, _I64(1)) as (i, _):
                    fresh = b.and_(
                        b.icmp_unsigned(">", i, _I64(1)),
                        b.icmp_unsigned("==", b.urem(b.sub(i, _I64(1)),
                                                     _I64(STEPS_PER_WORD)), _I64(0)))
                    with b.if_then(fresh, likely=False):
                        for g in range(_GROUPS):
                            at = b.gep(hs, [_I64(g)])
                            b.store(_mix(b, b.add(b.load(at), _const(int(GAMMA)))), at)
                    iv, k = _splat(b, i), _small(b, b.add(i, _I64(1)))
                    i4 = b.shl(iv, _const(2))
                    for g in range(_GROUPS):
                        h_at, p_at = b.gep(hs, [_I64(g)]), b.gep(ps, [_I64(g)])
                        d, h = _draw(b, b.load(h_at), k)
                        b.store(h, h_at)
                        # position i takes position t's system, position t takes system i
                        t4 = b.shl(b.sub(iv, d), _const(2))
                        p = b.load(p_at)
                        moved = b.and_(b.lshr(p, t4), _const(15))
                        p = b.add(p, b.shl(moved, i4))
                        b.store(b.xor(p, b.shl(b.xor(moved, iv), t4)), p_at)
                with cgutils.for_range(b, kv_v) as col:
                    base = b.gep(xrow, [b.mul(col.index, m_v)])
                    if permute:  # (16 values from the row: padded past its end)
                        lo = b.load(b.bitcast(base, _VF.as_pointer()), align=8)
                        hi = b.load(b.bitcast(b.gep(base, [_I64(LANES)]), _VF.as_pointer()),
                                    align=8)
                        vperm = _declare(b, "llvm.x86.avx512.vpermi2var.pd.512",
                                         ir.FunctionType(_VF, [_VF, _VI, _VF]))
                    for g in range(_GROUPS):
                        b.store(b.load(b.gep(ps, [_I64(g)])), b.gep(qs, [_I64(g)]))
                    out0 = b.add(b.mul(b.mul(col.index, m_v), n_rep), b.mul(g0, _I64(LANES)))
                    with cgutils.for_range(b, m_v) as pos:
                        at = b.add(out0, b.mul(pos.index, n_rep))
                        for g in range(_GROUPS):
                            q_at = b.gep(qs, [_I64(g)])
                            q = b.load(q_at)
                            if permute:  # (it reads the low four bits of each lane)
                                v = b.call(vperm, [lo, q, hi])
                            else:
                                v = _gather(b, base, b.and_(q, _const(15)), _F64)
                            b.store(b.lshr(q, _const(4)), q_at)
                            pa = b.bitcast(b.gep(aa.data, [b.add(at, _I64(g * LANES))]),
                                           _VF.as_pointer())
                            b.store(b.fadd(b.load(pa, align=8), v), pa, align=8)
            return context.get_dummy_value()

        return sig, codegen

    return relabel_unit

"""The engine: the bootstrap sums ``S``, the only pass over the data.

Units carry a vector of sufficient statistics ``x_u``; each replicate ``r`` draws a weight
``w_ru`` for every unit, independently within each *draw stratum*; the engine returns
``S[r, d] = sum_{u in d} w_ru * x_u``, and everything downstream works on ``S`` alone.

:func:`resample_sums` is the one entry point.  It hands the plan to a *producer* of sums
named in :data:`PRODUCERS`: ``"classic"``, multinomial weights (``size`` draws with
replacement per stratum), drawn by :mod:`.multinomial` when a stratum has few distinct
rows and otherwise by a kernel (:mod:`.numba_kernels`, or :mod:`.numpy_kernel` without
numba or for small jobs), :mod:`.spec` saying which units every replicate draws; and
``"poisson"`` (:mod:`.poisson`) gives every unit an independent Poisson(1) weight that is a
pure function of the seed, the unit's key and the replicate (:mod:`.keys`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from pairboot.engine import multinomial
from pairboot.engine.memory import check_memory
from pairboot.engine.numpy_kernel import index_sums_numpy
from pairboot.engine.spec import BLOCK, MAX_UNITS_PER_STRATUM, replicate_keys
from pairboot.errors import InputError
from pairboot.progress import Progress

__all__ = ["DrawPlan", "split_constant", "weighted_sum", "resample_sums", "PRODUCERS", "Producer"]

AUTO_NUMBA_DRAWS = 30_000_000
"""Below this many draws the numpy kernel finishes before numba would have loaded."""


def weighted_sum(values: np.ndarray, coef: np.ndarray, axis: int = -1) -> np.ndarray:
    """``sum_h coef[h] * values[..., h, ...]`` over ``axis``, the strata in order and the
    zero coefficients skipped (another stratum's NaN must not reach this one).  Written
    out rather than a matrix product, whose BLAS kernel, and so its last bits, depend on
    the processor: the same seed gives the same bits on every machine."""
    values = np.moveaxis(values, axis, 0)
    out = None
    for h in np.flatnonzero(coef).tolist():
        term = values[h] * coef[h]
        out = term if out is None else out + term
    return np.zeros(values.shape[1:]) if out is None else out


def split_constant(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(varying columns of x, constant)``: ``constant`` holds each column's common
    value, NaN where the column varies (the layout of :class:`DrawPlan`)."""
    constant = np.full(x.shape[1], np.nan)
    if len(x):
        same = (x == x[:1]).all(axis=0)
        constant[same] = x[0, same]
    varying = np.isnan(constant)
    return (x if varying.all() else x[:, varying]), constant


@dataclass(slots=True, eq=False)
class DrawPlan:
    """How the units are laid out for drawing: contiguous draw strata of ``x``'s rows.

    A unit's logical statistic vector has ``len(constant)`` entries; the columns where
    ``constant`` is NaN vary and are stored, in order, in ``x``; the others hold the same
    value for every unit (the count column of a plain mean) and are never stored or
    accumulated: their sum is the value times the number of draws, exactly.
    """

    x: np.ndarray
    """(n_units, n_varying) float64, rows grouped by draw stratum."""
    starts: np.ndarray
    sizes: np.ndarray
    constant: np.ndarray
    """(k,) float64: each logical column's common value, NaN where it varies."""
    keys: np.ndarray | None = None
    """(n_units,) uint64: every unit's key (:mod:`.keys`), for the Poisson producer."""
    salts: np.ndarray | None = None
    """(n_draw_strata,) int64: which independent draw each stratum takes under Poisson
    weights (0 when paired; the system's number for an unpaired draw)."""

    @classmethod
    def from_columns(cls, x: np.ndarray, starts, sizes, keys=None, salts=None) -> DrawPlan:
        """A plan for a full (n_units, k) matrix, with its constant columns factored out."""
        xv, constant = split_constant(np.asarray(x, dtype=np.float64))
        return cls(np.ascontiguousarray(xv), np.asarray(starts, np.int64),
                   np.asarray(sizes, np.int64), constant, keys, salts)

    @property
    def n_columns(self) -> int:
        return len(self.constant)

    def rows(self, lo: int, hi: int) -> np.ndarray:
        """Rows ``lo:hi`` with every logical column, constants filled in."""
        out = np.empty((hi - lo, self.n_columns))
        varying = np.isnan(self.constant)
        out[:, varying] = self.x[lo:hi]
        out[:, ~varying] = self.constant[~varying]
        return out


class Producer(Protocol):
    """Computes the sums of a plan: ``(S of shape (n_resamples, n_draw_strata, k), the
    name of the path taken)``, calling ``progress(done)`` as replicates finish."""

    def __call__(
        self, plan: DrawPlan, n_resamples: int, seed: int, *, backend: str,
        progress: Callable[[int], None] | None,
    ) -> tuple[np.ndarray, str]: ...


def resample_sums(
    plan: DrawPlan,
    n_resamples: int,
    seed: int,
    *,
    scheme: str = "classic",
    backend: str = "auto",
    progress: Callable[[int], None] | None = None,
) -> tuple[np.ndarray, str]:
    """Bootstrap sums ``S`` of shape (n_resamples, n_draw_strata, k), and the path used.

    ``scheme`` names the producer (:data:`PRODUCERS`).  ``backend`` is ``"auto"`` (numba
    when installed and the job is large enough to repay its start-up), ``"numba"`` or
    ``"numpy"``.  ``progress(done)`` is called with the number of finished replicates; a
    :class:`pairboot.Progress` is also told, by ``compiling()``, when numba starts
    compiling a kernel (not when it loads one from its cache).
    """
    if scheme not in PRODUCERS:
        raise ValueError(f"`scheme` must be one of {sorted(PRODUCERS)}, got {scheme!r}")
    check_memory(n_resamples, len(plan.starts) * plan.n_columns)
    with np.errstate(over="ignore", invalid="ignore"):  # (sums beyond float64 are said later)
        return PRODUCERS[scheme](plan, n_resamples, seed, backend=backend, progress=progress)


def _numba_kernels():
    """:mod:`.numba_kernels`, or None without numba (heavy: imported on demand only)."""
    try:
        from pairboot.engine import numba_kernels
    except ImportError:
        return None
    return numba_kernels


def classic_sums(
    plan: DrawPlan,
    n_resamples: int,
    seed: int,
    *,
    backend: str = "auto",
    progress: Callable[[int], None] | None = None,
) -> tuple[np.ndarray, str]:
    """The classic bootstrap: every draw stratum draws its size in units, with replacement.

    The plan's constant columns are not accumulated: their sum is the constant times
    the stratum size, exactly.
    """
    stream = 0
    x, starts, sizes = plan.x, plan.starts, plan.sizes
    n_strata, k = len(starts), plan.n_columns
    out = np.zeros((n_resamples, n_strata, k))
    if n_strata == 0 or n_resamples == 0:
        return out, "none"
    constant = ~np.isnan(plan.constant)
    varying = np.flatnonzero(~constant)
    out[:, :, constant] = sizes[None, :, None] * plan.constant[constant]

    paths = set()
    index_strata = []
    for d, (start, size) in enumerate(zip(starts.tolist(), sizes.tolist())):
        if varying.size == 0:
            break
        distinct = multinomial.stratum_rows(x[start : start + size])
        if distinct is None:
            index_strata.append(d)
            continue
        rows, counts = distinct
        out[:, d, varying] = multinomial.multinomial_sums(rows, counts, n_resamples, seed,
                                                          stream, d)
        paths.add("multinomial")

    if index_strata and varying.size:
        if max(int(sizes[d]) for d in index_strata) > MAX_UNITS_PER_STRATUM:
            raise InputError(
                f"a draw stratum has more than {MAX_UNITS_PER_STRATUM} units; "
                "resample groups of items instead (`groups`)", param="groups",
            )
        small = n_resamples * int(sizes[np.asarray(index_strata)].sum()) < AUTO_NUMBA_DRAWS
        fast = None if backend == "numpy" or (backend == "auto" and small) else _numba_kernels()
        if fast is None and backend == "numba":
            raise ImportError('the numba backend needs numba: pip install "pairboot[fast]"')
        name = "numba" if fast is not None else "numpy"
        kernel = fast.index_sums if fast is not None else index_sums_numpy
        sel = np.asarray(index_strata)
        st, sz = starts[sel].astype(np.int64), sizes[sel].astype(np.int64)
        keys = replicate_keys(seed, stream, n_resamples)
        notice = (fast.compile_notice(progress.compiling)
                  if fast is not None and isinstance(progress, Progress)
                  else contextlib.nullcontext())
        # Memory batches hold whole BLOCKs; every replicate's draws depend on its key only.
        batch = BLOCK * max(1, 16 if name == "numba" else 1)
        buf = np.empty((batch, len(sel), varying.size))
        with notice:
            for r0 in range(0, n_resamples, batch):
                r1 = min(r0 + batch, n_resamples)
                part = buf[: r1 - r0]
                kernel(x, st, sz, keys[r0:r1], part)
                out[r0:r1, sel[:, None], varying[None, :]] = part
                if progress is not None:
                    progress(r1)
        paths.add(name)
    if progress is not None:
        progress(n_resamples)
    return out, "+".join(sorted(paths)) or "constant"


def _poisson(plan, n_resamples, seed, *, backend="auto", progress=None):
    from pairboot.engine.poisson import poisson_sums

    return poisson_sums(plan, n_resamples, seed, backend=backend, progress=progress)


PRODUCERS: dict[str, Producer] = {"classic": classic_sums, "poisson": _poisson}
"""The producers of sums by scheme name, each called as ``producer(plan, n_resamples,
seed, *, backend, progress) -> (sums, path)``."""

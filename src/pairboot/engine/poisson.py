"""The Poisson producer: every unit an independent Poisson(1) weight in every replicate.

``S[r, d] = sum_u w_ru x_u`` over the units of draw stratum ``d``, where ``w_ru`` is a pure
function of the seed, the unit's key and ``r`` (:mod:`.keys`), so the sums of any split of
the units add up to the sums of the whole (:func:`partial_sums` computes one part's; this
is how files larger than memory and Dask partitions are resampled).  A constant column
(the count of a mean) sums to the constant times the replicate's total weight, which
varies: a mean is then ``sum w x / sum w``, the Poisson bootstrap's ratio form.

The numba kernel (:mod:`.poisson_kernels`) and the numpy reference here give the same
weights; their sums agree to rounding.  Each replicate's sum runs over the units in row
order, so it is the same for any number of threads or batches of replicates.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np

from pairboot.engine.backends import choose
from pairboot.engine.keys import poisson_weights, seed_word
from pairboot.engine.memory import check_memory

__all__ = ["poisson_sums", "partial_sums", "weight_sums_numpy"]

AUTO_NUMBA_WEIGHTS = 5_000_000
"""Below this many weights the numpy reference finishes before numba would have loaded."""

_BATCH = 1024
"""Replicates per batch: the unit of progress and of the output's memory."""

_CALL_WEIGHTS = 1 << 26
"""Weights drawn per call of the kernel and per core, about (a tenth of a second or
so): between calls the interpreter runs, so a signal (Ctrl-C, a CI job's SIGTERM) is
acted on within one call, not after every replicate of a chunk of a million rows."""


def _batch(n_units: int) -> int:
    """Replicates per kernel call for ``n_units`` units: at most :data:`_BATCH`, about
    :data:`_CALL_WEIGHTS` weights per core, and at least a block of 64 (the kernel's)
    for every core."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return min(_BATCH, 64 * max(cores, _CALL_WEIGHTS * cores // max(n_units, 1) // 64))

_CHUNK = 2048
"""Units per step of the numpy reference (a (batch x chunk) matrix of weights)."""


def weight_sums_numpy(x, keys, starts, sizes, words, r0: int, r1: int, out, totals) -> None:
    """``out[r - r0, d] = sum_u w_ru x_u`` and ``totals[r - r0, d] = sum_u w_ru`` for
    replicates ``r0 <= r < r1``: the reference, with numpy's matrix products."""
    reps = np.arange(r0, r1)
    out[:] = 0.0
    totals[:] = 0.0
    for d, (s, m) in enumerate(zip(starts.tolist(), sizes.tolist())):
        for c in range(s, s + m, _CHUNK):
            e = min(c + _CHUNK, s + m)
            w = poisson_weights(keys[c:e], words[d], reps).astype(np.float64)
            out[:, d] += w @ x[c:e]
            totals[:, d] += w.sum(axis=1)


def preload(backend: str) -> None:
    """Load the compiled kernel now, as a run over files in chunks starts: numba's first
    compile (or load from its cache) imports scipy's BLAS, which under a memory limit
    spins forever where it cannot allocate its buffers, instead of failing; before the
    first chunk is read the memory is still there."""
    if backend == "numpy":
        return
    try:
        from pairboot.engine import poisson_kernels
    except ImportError:
        return  # (the numpy reference; the backend's own check says more, later)
    one = np.zeros(1, dtype=np.int64)
    poisson_kernels.weight_sums(np.zeros((1, 1)), np.zeros(1, dtype=np.uint64), one,
                                one + 1, np.zeros(1, dtype=np.uint64), 0, 1,
                                np.zeros((1, 1, 1)), np.zeros((1, 1)))


def _kernel(backend: str, n_weights: int):
    """The weight-sum function for ``backend``, and its name."""
    return choose(backend, n_weights, AUTO_NUMBA_WEIGHTS, weight_sums_numpy,
                  "poisson_kernels", "weight_sums")


def poisson_sums(
    plan,
    n_resamples: int,
    seed: int,
    *,
    backend: str = "auto",
    progress: Callable[[int], None] | None = None,
) -> tuple[np.ndarray, str]:
    """The Poisson bootstrap's sums of a :class:`~pairboot.engine.DrawPlan` with keys.

    Draw stratum ``d`` takes the seed word of salt ``plan.salts[d]`` (0 by default), so
    the draw strata of one salt weigh a key alike: an item in two of them would get the
    same weights.
    """
    if plan.keys is None:
        raise ValueError("the Poisson producer needs the units' keys (`plan.keys`)")
    salts = np.zeros(len(plan.starts), dtype=np.int64) if plan.salts is None else plan.salts
    words = np.array([seed_word(seed, s) for s in salts.tolist()], dtype=np.uint64)
    n_strata, k = len(plan.starts), plan.n_columns
    out = np.zeros((n_resamples, n_strata, k))
    if n_strata == 0 or n_resamples == 0:
        return out, "poisson"
    kernel, name = _kernel(backend, n_resamples * len(plan.x))
    varying = np.flatnonzero(np.isnan(plan.constant))
    constant = np.flatnonzero(~np.isnan(plan.constant))
    x = np.ascontiguousarray(plan.x, dtype=np.float64)
    keys = np.ascontiguousarray(plan.keys, dtype=np.uint64)
    starts = np.ascontiguousarray(plan.starts, dtype=np.int64)
    sizes = np.ascontiguousarray(plan.sizes, dtype=np.int64)
    batch = _batch(len(x))
    part = np.empty((min(batch, n_resamples), n_strata, x.shape[1]))
    totals = np.empty((min(batch, n_resamples), n_strata))
    for r0 in range(0, n_resamples, batch):
        r1 = min(r0 + batch, n_resamples)
        kernel(x, keys, starts, sizes, words, r0, r1, part[: r1 - r0], totals[: r1 - r0])
        out[r0:r1, :, varying] = part[: r1 - r0]
        out[r0:r1, :, constant] = totals[: r1 - r0, :, None] * plan.constant[constant]
        if progress is not None:
            progress(r1)
    return out, f"poisson+{name}"


def partial_sums(x, keys, codes, n_strata: int, words, n_resamples: int, *,
                 backend: str = "auto") -> tuple[np.ndarray, np.ndarray]:
    """One part's Poisson sums: ``(S (R, n_strata, k), totals (R, n_strata))`` for units
    ``x`` (n, k) with ``keys`` in strata ``codes`` (0..n_strata-1), with the seed words
    ``words`` (one per stratum).  The parts of a split of the units add up to the sums of
    the whole, to rounding (exactly for integer-valued statistics)."""
    x = np.ascontiguousarray(x, dtype=np.float64)
    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    codes = np.asarray(codes, dtype=np.int64)
    order = np.argsort(codes, kind="stable")
    sizes = np.bincount(codes, minlength=n_strata).astype(np.int64)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    if not np.all(order[1:] > order[:-1]):
        x, keys = x[order], keys[order]
    check_memory(n_resamples, n_strata * (x.shape[1] + 1))
    kernel, _ = _kernel(backend, n_resamples * len(x))
    out = np.zeros((n_resamples, n_strata, x.shape[1]))
    totals = np.zeros((n_resamples, n_strata))
    words = np.asarray(words, dtype=np.uint64)
    batch = _batch(len(x))
    for r0 in range(0, n_resamples, batch):  # (a replicate's sum is the same in any batch)
        r1 = min(r0 + batch, n_resamples)
        kernel(x, keys, starts, sizes, words, r0, r1, out[r0:r1], totals[r0:r1])
    return out, totals

"""A family's permutation test: Westfall and Young's (1993) max-T over relabellings of
the M systems within every unit.

Under the null that the M systems are exchangeable within every unit (an item, or a
whole group with ``groups``) -- no system differs from another -- every relabelling of
a unit's systems is as likely as the data.  In permutation r each unit relabels its
systems by a keyed random permutation (:mod:`pairboot.engine.permutations`; two systems:
the two-system test's swaps), the metric is recomputed on the permuted sums, and every
contrast of the family is read off them, as the bootstrap reads them off its resamples.
A relabelling maps one contrast onto another, so every contrast has the same null
distribution and the raw differences need no studentizing (Carterette's 2012
randomised Tukey HSD is this test with all pairs).

A row's adjusted p-value is Westfall and Young's free stepdown (their algorithm 2.8):
the rows in decreasing order of ``|T|``, each compared with the maximum of ``|T*|`` over
itself and the rows below it, monotonised.  It controls the family-wise error under the
complete null, and under any partial null where the true nulls' joint permutation
distribution is the same as under the complete null (subset pivotality): when a
system differs from the others, it can also change the others' permutation
distribution (its variance enters them), which docs/tests.md states.  One-sided
alternatives take the signed maximum.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pairboot.core.design import Design
from pairboot.core.estimands import Estimands, observed_sums
from pairboot.engine.keys import seed_word
from pairboot.engine.permutations import (
    enumerated_indices,
    permuted_sums,
    relabelled_row_sums,
)
from pairboot.errors import InputError
from pairboot.options import Arguments
from pairboot.results.compare import TestResult
from pairboot.stats.hypotheses import tie_tolerance

EXACT_PATTERNS = 1 << 20
"""Up to this many relabellings ((M!)**n), every one is enumerated."""

SALT = 0x70657270  # "perp": the permutations' own stream of the seed
"""Salt of the permutations' seed word (the two-system test's too)."""

_BATCH = 4096
"""Permutations per step."""


@dataclass(frozen=True, slots=True)
class PermutationNull:
    """Every system's values under the relabellings, ready for any contrast: ``core``
    reads the contrasts of the permuted sums as the bootstrap's estimands read those of
    the resamples; ``exact`` when every relabelling was enumerated."""

    core: Estimands
    exact: bool
    n_units: int
    n_systems: int
    note: str = ""
    """Added to the test's words (parts: why the relabellings are random)."""


def exact_size(n_units: int, n_systems: int) -> int:
    """The number of relabellings of ``n_units`` units of ``n_systems`` systems."""
    return math.factorial(n_systems) ** n_units


def use_exact(exact: bool | None, n_units: int, n_systems: int) -> bool:
    """Whether to enumerate every relabelling: ``exact`` None, when there are at most
    :data:`EXACT_PATTERNS`; True is refused beyond that."""
    small = n_units <= 64 and exact_size(n_units, n_systems) <= EXACT_PATTERNS
    if exact and not small:
        what = (f"2**{n_units} swaps" if n_systems == 2 else
                f"({n_systems}!)**{n_units} relabellings")
        raise InputError(
            f"`exact=True`: {n_units} units have {what}, more than the "
            f"{EXACT_PATTERNS:,} that can be enumerated; leave `exact` unset for random "
            "permutations", param="exact")
    return small if exact is None else bool(exact)


def refuse_margin(args: Arguments) -> None:
    """The permutation tests test for a difference: a margin's hypothesis is refused."""
    if args.hypothesis != "difference":
        raise InputError("`test='permutation'` tests for a difference, not a margin: use "
                         "`hypothesis='difference'`", param="test")


def permutation_null(design: Design, args: Arguments, seed: int) -> PermutationNull:
    """The relabelled sums of ``design`` (its units keyed) for ``args.n_resamples``
    random permutations, or every one (``args.exact``)."""
    if not args.paired or design.plan.keys is None:
        raise InputError("`test='permutation'` relabels the systems within each unit: it "
                         "needs paired items, not `paired=False`", param="test")
    refuse_margin(args)
    plan = design.plan
    m, k = design.n_systems, design.k
    n_units = len(plan.x)
    exact = use_exact(args.exact, n_units, m)
    total = exact_size(n_units, m) if exact else args.n_resamples
    word = seed_word(seed, SALT)
    observed = observed_sums(plan)
    needed = read_columns(Estimands(design, np.empty((0,) + observed.shape[1:]), observed,
                                    None))
    out = np.empty((total, len(plan.starts), plan.n_columns))
    rows = plan.rows(0, n_units) if not exact else None  # (once, for every batch)
    for p0 in range(0, total, _BATCH):
        p1 = min(p0 + _BATCH, total)
        if not exact:
            out[p0:p1] = relabelled_row_sums(rows, plan.keys, plan.starts, plan.sizes, word,
                                             p0, p1, m, k, design.differences, args.backend,
                                             needed)[0]
            continue
        for d, (start, size) in enumerate(zip(plan.starts.tolist(), plan.sizes.tolist())):
            # (unit u's digit of the pattern's number, over all units)
            perm = enumerated_indices(n_units, m, np.arange(p0, p1))[:, start:start + size]
            out[p0:p1, d] = permuted_sums(plan.rows(start, start + size), perm, m, k,
                                          design.differences)
    core = Estimands(design, out, observed, None)
    return PermutationNull(core, exact, n_units, m)


def read_columns(core: Estimands) -> np.ndarray | None:
    """Which of the design's columns any contrast (i, j) reads (:meth:`Estimands.metric_sums`),
    or None for all: one read off the differences reads theirs and system j's columns but
    its score, which the differences' contrast replaces; another, both systems' own.  A
    mean's contrasts are read off the differences unless a system's scores dwarf them, so
    the relabellings need not move the systems' own scores (half the kernel's columns)."""
    design = core.design
    if not design.differences or design.n_systems == 2:
        return None
    m, k = design.n_systems, design.k
    needed = np.zeros(design.width, dtype=bool)
    for i in range(m):
        for j in range(m):
            if i == j:
                continue
            if core.through_differences((i, j)):
                needed[[m * k + i, m * k + j]] = True
                needed[j * k + 1:(j + 1) * k] = True
            else:
                needed[design.columns(i)] = needed[design.columns(j)] = True
    return needed


@dataclass(frozen=True, slots=True)
class FamilyTest:
    """A family's permutation test: every row's own p-value under the relabellings
    (``p_values``) and its Westfall-Young stepdown p-value (``p_adjusted``), and the
    family's global test (``test``: the largest |T| against the maxima)."""

    test: TestResult
    p_values: np.ndarray
    p_adjusted: np.ndarray


def westfall_young(null: PermutationNull, targets, alternative: str) -> FamilyTest:
    """Every row's raw and stepdown p-values for the contrasts ``targets`` ((i, j): j -
    i), on ``alternative``'s sides (strata combined as the design's estimands combine
    them)."""
    design = null.core.design
    coef, combined = design.combination()
    metric, grouped = design.metric.name, design.n_groups is not None
    estimates = [null.core.estimate(t, coef, bca=False, combined=combined) for t in targets]
    rows = np.column_stack([e.replicates for e in estimates])
    t = np.array([e.boot.estimate for e in estimates])
    ok = np.isfinite(rows).all(axis=1)
    undefined = int(np.count_nonzero(~ok))
    rows = rows[ok]
    sign = {"greater": 1.0, "less": -1.0}.get(alternative)
    a, perm = (np.abs(t), np.abs(rows)) if sign is None else (sign * t, sign * rows)
    # (the permuted sums are the observed ones rearranged: a hair of rounding either way)
    a = a - tie_tolerance(float(np.abs(t).max(initial=0.0)),
                          float(np.abs(rows).max(initial=0.0)))
    n = len(perm)
    if not n or not np.isfinite(t).all():  # (no statistic to test)
        nan = np.full(len(targets), math.nan)
        return FamilyTest(_global(null, math.nan, math.nan, np.zeros(0), alternative, metric,
                                  grouped, undefined + n), nan, nan.copy())

    def p_of(counts):
        return counts / n if null.exact else (1.0 + counts) / (n + 1.0)

    raw = p_of((perm >= a[None, :]).sum(axis=0))
    order = np.argsort(-a, kind="stable")
    # successive maxima from the bottom: q[:, s] = max over rows order[s:]
    q = np.maximum.accumulate(perm[:, order[::-1]], axis=1)[:, ::-1]
    stepped = np.maximum.accumulate(p_of((q >= a[order][None, :]).sum(axis=0)))
    adjusted = np.empty_like(stepped)
    adjusted[order] = stepped
    raw, adjusted = np.minimum(raw, 1.0), np.minimum(adjusted, 1.0)
    test = _global(null, float(adjusted.min()), float(t[order[0]]), q[:, 0] + 0.0,
                   alternative, metric, grouped, undefined)
    return FamilyTest(test, raw, adjusted)


def _global(null: PermutationNull, p: float, statistic: float, maxima: np.ndarray,
            alternative: str, metric: str, grouped: bool, undefined: int) -> TestResult:
    """The family's test as one :class:`TestResult`: the smallest adjusted p-value,
    the most extreme contrast, and the maxima under the relabellings."""
    n = len(maxima)
    unit = "groups" if grouped else "items"
    rule = {"greater": "max T*", "less": "max -T*"}.get(alternative, "max |T*|")
    how = (f"all {n + undefined:,} relabellings of the {null.n_systems} systems within "
           f"each of the "
           f"{null.n_units} {unit} (exact)" if null.exact else
           f"{n:,} random relabellings of the {null.n_systems} systems within each of the "
           f"{null.n_units:,} {unit}, p = (1 + count) / (R + 1)")
    how += null.note
    if undefined:
        how += (f"; {undefined:,} of {n + undefined:,} relabellings left a contrast "
                "undefined and are left out")
    return TestResult(
        name="permutation", p_value=p, p_value_mid=None, statistic=statistic,
        exact=null.exact, alternative=alternative, n=null.n_units,
        method=(f"Westfall-Young max-T permutation test: in {how}, {metric} is recomputed "
                f"on the relabelled sums; a row's adjusted p counts {rule} over itself and "
                "the rows with smaller |T| (the free stepdown), under the null that the "
                "systems are exchangeable within each unit"),
        null_distribution=maxima,
    )

"""The tests beside the interval (``test=``) on parts of the data: what a part carries
for them, and the test read off the added parts.

*Permutation* (:mod:`pairboot.core.permutation`): the swap of unit u in permutation r
is a pure function of the seed, the unit's key (its id, or its group's label) and r, so
every part adds the sums of its own swapped items' rows, for every permutation and
stratum (R, H, width, as the Poisson sums), and the parts' sums add up to the whole
data's: the same swapped sums, the same null distribution and p-value as in memory.  A
group spread over several parts swaps as one (its key is its label).  In memory 20
units or fewer are enumerated (2**n swaps); the units of parts are never in one place,
so parts always draw ``n_resamples`` random swaps.

*McNemar* (:mod:`pairboot.core.paired_tests`): the paired 2 x 2 table of 0/1 scores
adds across parts.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from pairboot.core.design import Design
from pairboot.core.estimands import Estimands
from pairboot.core.paired_tests import (
    mcnemar_refusal,
    mcnemar_result,
    table_of,
    zero_one_counts,
)
from pairboot.core.permutation import (
    permutation_result,
    swap_word,
    swapped_sums,
)
from pairboot.core.westfall_young import PermutationNull, refuse_margin
from pairboot.engine.permutations import relabelled_row_sums
from pairboot.engine.swaps import swap_sums
from pairboot.errors import InputError
from pairboot.options import Arguments
from pairboot.results.compare import TestResult
from pairboot.stats.proportions import Table2x2

__all__ = ["check_part_test", "check_test_arguments", "part_test_sums", "add_tables",
           "finished_test", "refuse_family_test", "family_null"]

_BATCH = 8192
"""Permutations whose swapped sums are evaluated at once."""

ON_PARTS = ("; on parts the swaps are always random, never enumerated (the units are "
            "never in one place)")


def refuse_family_test(test, *, apart: bool = False) -> None:
    """What a family's test on parts cannot be: McNemar's (two systems), or the
    permutation test when every system's scores lie in a file of their own (``apart``:
    a relabelling needs every system's row of an item in one place)."""
    if test == "mcnemar":
        raise InputError("`test='mcnemar'` compares two systems; for a family, use "
                         "`test='permutation'` (Westfall-Young's max-T)", param="test")
    if test == "permutation" and apart:
        raise InputError("`test='permutation'` for a family relabels every item's systems, "
                         "and a file per system holds them apart: put the systems' columns "
                         "in one file", param="test")


def check_part_test(test, *, names, grouped: bool, stratified: bool, zero_one: bool = True):
    """The checked ``test`` for a part of the systems ``names`` (before any sum; before
    any file is read, where ``zero_one``, whether the metric is a mean of one score per
    item, is not known yet): the test, or None; what a part cannot carry is refused with
    the reason."""
    if test is None:
        return None
    if len(names) > 2:
        refuse_family_test(test)
    if test == "mcnemar":
        if len(names) != 2:
            raise InputError("`test='mcnemar'` needs both systems' scores of every item in "
                             "one part (its 2 x 2 table): a part of one system holds one "
                             "score", param="test")
        why = mcnemar_refusal(paired=True, grouped=grouped, stratified=stratified,
                              zero_one=zero_one,
                              hypothesis="difference")
        if why is not None:
            raise InputError(f"`test='mcnemar'`: {why}", param="test")
    return test


def part_test_sums(test, *, x, xv, constant, keys, scodes, n_strata: int, seed: int,
                   n_resamples: int, backend: str, k: int, ids=None, n_systems: int = 2,
                   differences: int = 0) -> dict:
    """What a part carries for ``test`` (the fields of
    :class:`~pairboot.partitioned.parts.PoissonPart`): the swapped sums and counts
    (R, H, width) and (R, H) for the permutation test (a family of ``n_systems`` > 2:
    the sums of every item's row with its systems relabelled, and no counts), the 2 x 2
    table for McNemar's.
    ``x``: the items' full rows, ``xv`` and ``constant`` as
    :func:`pairboot.engine.split_constant` splits them; ``ids`` name an item in
    messages (else its row in the part)."""
    if test == "mcnemar":
        def where(i: int) -> str:
            if ids is None:
                return f"the part's row {i}"
            return f"id {np.asarray(getattr(ids, 'to_numpy', lambda: ids)()).tolist()[i]!r}"
        return {"table": table_of(zero_one_counts(x[:, 0], x[:, k], where))}
    if test != "permutation":
        return {}
    order = np.argsort(scodes, kind="stable") if n_strata > 1 else slice(None)
    sizes = np.bincount(scodes, minlength=n_strata).astype(np.int64)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    if n_systems > 2:  # (a family: every item's systems relabelled, the rows summed)
        sums, _ = relabelled_row_sums(x[order], keys[order], starts, sizes,
                                      swap_word(seed), 0, n_resamples, n_systems, k,
                                      differences, backend)
        return {"swapped": sums, "swapped_units": np.zeros((n_resamples, n_strata))}
    out, counts, _ = swap_sums(np.ascontiguousarray(xv[order]), keys[order], starts, sizes,
                               swap_word(seed), 0, n_resamples, backend)
    varying = np.isnan(constant)
    full = np.empty((n_resamples, n_strata, len(constant)))
    full[..., varying] = out
    full[..., ~varying] = counts[..., None] * constant[~varying]
    return {"swapped": full, "swapped_units": counts}


def add_tables(tables) -> Table2x2:
    """The sum of parts' 2 x 2 tables."""
    tables = list(tables)
    return Table2x2(*(sum(getattr(t, f) for t in tables)
                      for f in ("both", "only_a", "only_b", "neither")))


def check_test_arguments(args: Arguments) -> None:
    """Refuse what ``args.test`` cannot test on parts (a margin's hypothesis)."""
    if args.test == "permutation":
        refuse_margin(args)
    elif args.test == "mcnemar":
        why = mcnemar_refusal(paired=True, grouped=False, stratified=False, zero_one=True,
                              hypothesis=args.hypothesis)
        if why is not None:
            raise InputError(f"`test='mcnemar'`: {why}", param="test")


def finished_test(part, design: Design, args: Arguments, observed: np.ndarray,
                  absolute: np.ndarray) -> TestResult:
    """The test ``part.test`` of the added ``part``: what ``compare(..., test=...)``
    reports on the whole data (``design``, ``observed`` and ``absolute`` as
    :func:`pairboot.partitioned.parts.finish` reads them off the part)."""
    check_test_arguments(dataclasses.replace(args, test=part.test))
    if part.test == "mcnemar":
        return mcnemar_result(part.table, args.alternative)
    swaps = _swapped_totals(part, design, observed)
    return permutation_result(design, args, observed, swaps, exact=False,
                              absolute=absolute, exact_sums=part.exact, note=ON_PARTS)


def family_null(part, design: Design, args: Arguments, observed: np.ndarray,
                absolute: np.ndarray) -> PermutationNull:
    """A family's permutation null from the added ``part``: every system's sums under
    the relabellings (two systems: the swapped sums), for
    :func:`pairboot.core.westfall_young.westfall_young` to read the rows off, as
    ``compare_many(..., test="permutation")`` does in memory."""
    refuse_family_test(part.test)
    refuse_margin(args)
    if len(part.names) > 2:
        totals = part.swapped
    else:
        totals = np.concatenate(list(_swapped_totals(part, design, observed)))
    core = Estimands(design, totals, observed, None, absolute=absolute, exact=part.exact)
    units = part.n_groups if part.n_groups is not None else part.n_items
    return PermutationNull(core, False, units, len(part.names), note=ON_PARTS.replace(
        "swaps", "relabellings"))


def _swapped_totals(part, design: Design, observed: np.ndarray):
    """The two systems' sums under the swaps, in batches (constant columns filled)."""
    unit_sums = part.swapped
    fixed = ~np.isnan(design.plan.constant)
    if fixed.any():  # (a column constant over every item: its value times the count)
        unit_sums = unit_sums.copy()
        unit_sums[..., fixed] = part.swapped_units[..., None] * design.plan.constant[fixed]
    return (swapped_sums(observed[0], part.k, unit_sums[r0:r0 + _BATCH])
            for r0 in range(0, part.n_resamples, _BATCH))

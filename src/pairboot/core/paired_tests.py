"""Tests reported beside the bootstrap interval (``compare(..., test=...)``): the exact
McNemar test of two systems' 0/1 scores on the same items.

The test reads the design's units (each an item, with its two scores); what it assumes
is checked there and refused with the reason: scores of 0 and 1 only, paired items, no
groups (McNemar takes the items as independent) and no strata (it pools them).
"""

from __future__ import annotations

import math

import numpy as np

from pairboot.core.design import Design
from pairboot.errors import InputError
from pairboot.options import Arguments
from pairboot.results.compare import TestResult
from pairboot.stats.proportions import Table2x2, mcnemar_exact

_CHUNK = 65_536
"""Units read at a time."""


def paired_test(design: Design, args: Arguments) -> TestResult | None:
    """The test ``args.test`` asks for on ``design`` (None without one)."""
    if args.test != "mcnemar":  # (the permutation test: core.permutation)
        return None
    return mcnemar(design, args)


def mcnemar(design: Design, args: Arguments) -> TestResult:
    """The exact McNemar test (and its mid-p) of B against A, with ``args.alternative``."""
    return mcnemar_result(zero_one_table(design, args), args.alternative)


def mcnemar_result(table: Table2x2, alternative: str) -> TestResult:
    """The exact McNemar test (and its mid-p) of B against A on the paired ``table``
    (however it was counted: in memory, or added from parts)."""
    side = alternative
    p = mcnemar_exact(table.only_a, table.only_b, alternative=side)
    mid = mcnemar_exact(table.only_a, table.only_b, alternative=side, mid_p=True)
    words = {"greater": "one-sided, B - A > 0", "less": "one-sided, B - A < 0"}.get(
        side, "two-sided")
    return TestResult(
        name="mcnemar", p_value=p, p_value_mid=mid, statistic=float(table.only_b),
        exact=True, alternative=side, n=table.discordant,
        method=(f"exact McNemar test ({words}): the {table.discordant:,} items on which "
                "the systems disagree, each B's with probability 1/2 under the null "
                "(binomial); the items both got right or wrong say nothing"),
        table=table,
    )


def mcnemar_refusal(*, paired: bool, grouped: bool, stratified: bool, zero_one: bool,
                    hypothesis: str) -> str | None:
    """Why McNemar's test cannot run (None when it can): ``zero_one`` says whether the
    metric is a mean of one score per item of two systems."""
    if not paired:
        return "it compares the same items of both systems, not `paired=False`"
    if grouped:
        return ("it takes the items as independent, and `groups` says they are not: use "
                "the cluster bootstrap's interval")
    if stratified:
        return "it pools the items: leave out `strata`"
    if not zero_one:
        return "it compares 0/1 scores: use `metric='mean'`, one score per item"
    if hypothesis != "difference":
        return "it tests for a difference, not a margin: use `hypothesis='difference'`"
    return None


def zero_one_table(design: Design, args: Arguments) -> Table2x2:
    """The paired 2 x 2 table of the design's two systems, refused unless every unit is
    one item with a score of 0 or 1 of each system."""
    why = mcnemar_refusal(
        paired=args.paired, grouped=design.n_groups is not None,
        stratified=design.strata_names is not None,
        zero_one=design.metric.mean_like and design.k == 2 and design.n_systems == 2,
        hypothesis=args.hypothesis)
    if why is not None:
        raise InputError(f"`test='mcnemar'`: {why}", param="test")
    return unit_table(design, "`test='mcnemar'`", "test", "use the bootstrap's interval")


def unit_table(design: Design, what: str, param: str, instead: str) -> Table2x2:
    """The paired 2 x 2 table of the design's two systems, each unit one item scored 0
    or 1 by each (a count of 1 beside each score: ``metric='mean'``, or ``'accuracy'``
    with ``total`` 1); the first unit that is not is refused in one line that starts
    with ``what`` (the option asking, as ``"`test='mcnemar'`"``), names ``param`` and
    suggests ``instead``."""
    plan = design.plan
    counts = np.zeros((2, 2), dtype=np.int64)  # [A right][B right]
    for lo in range(0, len(plan.x), _CHUNK):
        rows = plan.rows(lo, min(lo + _CHUNK, len(plan.x)))
        counts += zero_one_counts(rows[:, 0], rows[:, 2], lambda i, lo=lo: f"item {lo + i}",
                                  what=what, param=param, instead=instead,
                                  counted=(rows[:, 1] == 1) & (rows[:, 3] == 1))
    return table_of(counts)


def table_of(counts: np.ndarray) -> Table2x2:
    """The :class:`Table2x2` of counts ``[A right][B right]``."""
    return Table2x2(both=int(counts[1, 1]), only_a=int(counts[1, 0]),
                    only_b=int(counts[0, 1]), neither=int(counts[0, 0]))


def zero_one_counts(a: np.ndarray, b: np.ndarray, where, *, what: str = "`test='mcnemar'`",
                    param: str = "test", instead: str = "use the bootstrap's interval",
                    counted: np.ndarray | None = None) -> np.ndarray:
    """The (2, 2) counts ``[A right][B right]`` of the 0/1 scores ``a`` and ``b``; a
    score that is not 0 or 1 (or an item whose count is not 1: ``counted`` False) is
    refused in one line that starts with ``what``, names its item by ``where(i)`` and
    ``param``, and suggests ``instead``."""
    ok = np.isin(a, (0.0, 1.0)) & np.isin(b, (0.0, 1.0))
    if counted is not None:
        ok &= counted
    if not ok.all():
        at = int(np.argmin(ok))
        bad = a[at] if a[at] not in (0.0, 1.0) else b[at]
        raise InputError(f"{what} needs 0/1 scores (wrong or right); {where(at)} "
                         f"scores {_shown(bad)}: {instead}, or score the items 0 or 1",
                         param=param)
    counts = np.zeros((2, 2), dtype=np.int64)
    np.add.at(counts, (a.astype(np.int64), b.astype(np.int64)), 1)
    return counts


def _shown(x: float) -> str:
    return f"{x:g}" if math.isfinite(x) else str(x)

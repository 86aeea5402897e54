"""Skewed differences: where the percentile, basic and normal intervals cover less than
their level, told from the data (the note of :func:`skew_notes`).

The statistic is the skewness of the estimate, ``6 a``: BCa's acceleration times six, the
skewness of the units' influence values over the square root of their number (for a mean
of items, the sample skewness g1 of the per-item differences over sqrt(n); for groups, of
the groups' linearised differences; strata combine as the stratified acceleration does).
The Edgeworth expansion of a mean puts these intervals' coverage error in powers of
g1 / sqrt(n).  The limit, and what the note says, come from the simulated coverage table
of docs/small_samples.md (docs/simulations/skew_coverage.py).
"""

from __future__ import annotations

import math

import numpy as np

from pairboot.core.design import Design
from pairboot.core.diagnostics import SMALL_N
from pairboot.core.estimands import Estimands
from pairboot.errors import SmallSampleWarning
from pairboot.options import Arguments

Note = tuple[type[Warning], str]

SKEW_LIMIT = 0.2
"""``|6 a|`` (``|g1| / sqrt(n)``) above which the percentile, basic and normal intervals
are said to cover less than their level, two-sided or one-sided (a margin's test), on
either side: a skewed population makes the bound on the side of its tail too bold, a
few extreme items of a heavy-tailed one the bound on the other (docs/small_samples.md)."""

AFFECTED = ("percentile", "basic", "normal")
"""The methods the note is about: BCa and the studentized interval take the skew into
account (docs/small_samples.md says how far); the score method is a closed form."""

_CHUNK = 1 << 16
"""Units read at a time (no copy of all of them)."""


def skewness(core: Estimands, target, coef, combined: bool) -> float | None:
    """``6 a`` of ``target`` (a contrast ``(i, j)`` or a system) with the strata's
    coefficients ``coef``, from the jackknife of its estimate; None where it is undefined
    (constant differences) or the design does not hold its units (parts' sums)."""
    plan = core.design.plan
    if len(plan.x) < int(plan.sizes.sum()):
        return None
    a = core.estimate(target, coef, bca=True, combined=combined, count=False).boot.acceleration
    return 6.0 * a if math.isfinite(a) else None


def binary(design: Design) -> bool:
    """Whether every statistic of every item is 0 or 1 (0/1 scores; a binary
    classifier's tp, fp, fn), items not groups: there the coverage follows the few items
    on which the systems differ, not the skewness (docs/small_samples.md: the note
    fired as often where the percentile covered as where it did not), and the 0/1 notes
    (:func:`pairboot.core.diagnostics.zero_one_notes`) speak for the mean."""
    plan = design.plan
    if design.n_groups is not None:
        return False
    width = design.n_systems * design.k
    for c in range(0, len(plan.x), _CHUNK):
        rows = plan.rows(c, min(c + _CHUNK, len(plan.x)))[:, :width]
        if not np.isin(rows, (0.0, 1.0)).all():
            return False
    return True


def skew_notes(core: Estimands, rows, args: Arguments, correction: str | None = None
               ) -> list[Note]:
    """One note for the comparisons ``(label, target, coef, combined, units)`` whose
    skewness is beyond :data:`SKEW_LIMIT` (``label`` "" for compare()'s one; ``units``
    their number, None for the design's); nothing for 0/1 data (:func:`binary`) nor
    below :data:`~pairboot.core.diagnostics.SMALL_N` units, where the small-sample notes
    say the interval is rough.
    ``correction``: a family's of more than one comparison, whose max-t intervals are
    symmetric whatever the method."""
    symmetric = correction == "max-t"
    if args.method not in AFFECTED and not symmetric:
        return []
    design = core.design
    unit = "groups" if design.n_groups is not None else "items"
    total = design.n_groups if design.n_groups is not None else design.n_items
    over = []
    for label, target, coef, combined, units in rows:
        units = total if units is None else units
        if units < SMALL_N:  # (the small-sample notes speak there)
            continue
        skew = skewness(core, target, coef, combined)
        if skew is not None and abs(skew) > SKEW_LIMIT:
            over.append((label, skew * math.sqrt(units)))
    if not over or binary(design):  # (read only when the note would be given)
        return []
    many = len(over) > 1
    method = "max-t" if symmetric else args.method
    level = f"{args.confidence_level:.0%}"
    if not many and not over[0][0]:
        what = (f"the per-{unit[:-1]} differences" if design.metric.mean_like and args.paired
                else f"the {unit}' contributions to the difference")
        what += f" are skewed (skewness {over[0][1]:.2g} over {total:,} {unit})"
    elif not many:
        what = f"the differences of {over[0][0]} are skewed (skewness {over[0][1]:.2g})"
    else:
        shown = ", ".join(f"{label}: {g:.2g}" for label, g in over[:5])
        what = (f"the differences of {len(over)} comparisons are skewed (skewness "
                f"{shown}{', ...' if len(over) > 5 else ''})")
    fix = (f"`method='studentized'` comes closer to {level} when the population itself "
           "is skewed (a long tail on one side), but not when a few extreme "
           f"{unit} make the sample look so: then only more {unit} help")
    if symmetric:
        fix += ("; max-t's intervals are symmetric whatever the method: use it with "
                "`correction='holm'`")
    return [(SmallSampleWarning,
             f"{what}: with this few {unit} the {method} interval{'s' if many else ''} "
             f"likely cover{'' if many else 's'} less than {level} on such data, and "
             f"{'their' if many else 'its'} p-value{'s run' if many else ' runs'} too "
             f"small (docs/small_samples.md); {fix}")]

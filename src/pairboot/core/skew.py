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
from pairboot.stats.intervals import acceleration

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

KEPT_VALUES = 1 << 25
"""A family keeps its systems' jackknives (units x systems values, 256 MB) up to this
many values, and reads each comparison's own beyond."""


def skewness(core: Estimands, target, coef, combined: bool, kept: dict | None = None
             ) -> float | None:
    """``6 a`` of ``target`` (a contrast ``(i, j)`` or a system) with the strata's
    coefficients ``coef``, from the jackknife of its estimate; None where it is undefined
    (constant differences) or the design does not hold its units (parts' sums).
    ``kept``: the systems' jackknives, kept across a family's rows (:func:`influence`)."""
    jack = influence(core, target, coef, combined, kept)
    a = math.nan if jack is None else acceleration(jack)
    return 6.0 * a if math.isfinite(a) else None


def influence(core: Estimands, target, coef, combined: bool, kept: dict | None = None
              ) -> list[np.ndarray] | None:
    """The jackknife values of ``target`` per draw stratum (None without the units).  A
    contrast not read off the items' differences takes the difference of its systems'
    jackknives, kept in ``kept`` for the next rows of a family."""
    plan = core.design.plan
    if len(plan.x) < int(plan.sizes.sum()):
        return None
    if kept is not None and isinstance(target, tuple) and not core.through_differences(target):
        i, j = (_jackknife(core, system, coef, combined, kept) for system in target)
        return [b - a for a, b in zip(i, j)]
    return _jackknife(core, target, coef, combined, {})


def _jackknife(core: Estimands, target, coef, combined: bool, kept: dict) -> list[np.ndarray]:
    key = (target, coef.tobytes(), combined)
    if key not in kept:
        est = float(core.value(target, coef, combined, observed=True)[0])
        kept[key] = core.jackknife(target, coef, combined, est)
    return kept[key]


def skew_bound(jack: list[np.ndarray]) -> float:
    """An upper bound of ``|6 a|`` (:func:`~pairboot.stats.intervals.acceleration`) from
    the largest ``|l|``: ``|sum_h m_h^-3 sum l^3| <= max_h (max |l| / m_h) sum_h m_h^-2
    sum l^2``, so ``|6 a| <= max_h (max |l| / m_h) / sqrt(sum_h m_h^-2 sum l^2)``; cheaper
    than the cubes, and below the limit for most comparisons of many items."""
    top = den = 0.0
    for x in jack:
        m = len(x)
        if m < 2:
            continue
        c = x - x.mean()  # (l = -(m - 1) c)
        top = max(top, (m - 1) * max(float(c.max()), -float(c.min())) / m)
        den += (m - 1) ** 2 * float(np.einsum("i,i->", c, c)) / m**2  # (no BLAS threads)
    return top / math.sqrt(den) if den > 0 and math.isfinite(den) else math.inf


def binary(design: Design) -> bool:
    """Whether every statistic of every item is 0 or 1 (0/1 scores; a binary
    classifier's tp, fp, fn), items not groups: there the coverage follows the few items
    on which the systems differ, not the skewness (docs/small_samples.md: on 0/1 scores
    the rule fired on data sets the percentile covered and missed many it did not), and
    the 0/1 notes (:func:`pairboot.core.diagnostics.zero_one_notes`) speak for the mean."""
    plan = design.plan
    if design.n_groups is not None:
        return False
    width = design.n_systems * design.k
    for c in range(0, len(plan.x), _CHUNK):
        rows = plan.rows(c, min(c + _CHUNK, len(plan.x)))[:, :width]
        if not np.isin(rows, (0.0, 1.0)).all():
            return False
    return True


SYMMETRIC_FIX = "use it with `correction='holm'`"
"""What the skew note advises where max-t's symmetric intervals are read: a family's
correction that reads the method's own intervals."""


def skew_notes(core: Estimands, rows, args: Arguments, correction: str | None = None,
               symmetric_fix: str = SYMMETRIC_FIX) -> list[Note]:
    """One note for the comparisons ``(label, target, coef, combined, units)`` whose
    skewness is beyond :data:`SKEW_LIMIT` (``label`` "" for compare()'s one; ``units``
    their number, None for the design's); nothing for 0/1 data (:func:`binary`) nor
    below :data:`~pairboot.core.diagnostics.SMALL_N` units, where the small-sample notes
    say the interval is rough.
    ``correction``: a family's of more than one comparison, whose max-t intervals are
    symmetric whatever the method; ``symmetric_fix``: what to do about that (a curve has
    no correction to choose)."""
    symmetric = correction == "max-t"
    if args.method not in AFFECTED and not symmetric:
        return []
    design = core.design
    unit = "groups" if design.n_groups is not None else "items"
    total = design.n_groups if design.n_groups is not None else design.n_items
    over = []
    size = int(design.plan.sizes.sum()) * design.n_systems
    kept = {} if len(rows) > 1 and size <= KEPT_VALUES else None
    for label, target, coef, combined, units in rows:
        units = total if units is None else units
        if units < SMALL_N:  # (the small-sample notes speak there)
            continue
        jack = influence(core, target, coef, combined, kept)
        if jack is None or skew_bound(jack) <= SKEW_LIMIT:
            continue
        a = acceleration(jack)
        if math.isfinite(a) and abs(6.0 * a) > SKEW_LIMIT:
            over.append((label, 6.0 * a * math.sqrt(units)))
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
        fix += f"; max-t's intervals are symmetric whatever the method: {symmetric_fix}"
    return [(SmallSampleWarning,
             f"{what}: with this few {unit} the {method} interval{'s' if many else ''} "
             f"likely cover{'' if many else 's'} less than {level} on such data, and "
             f"{'their' if many else 'its'} p-value{'s run' if many else ' runs'} too "
             f"small (docs/small_samples.md); {fix}")]

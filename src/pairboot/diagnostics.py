"""What a result should warn about, and how large a test set would be needed.

Each function returns ``(category, text)`` pairs; compare() issues them as warnings and
keeps their texts on the result.  Arguments are written in backticks
(`` `n_resamples=100` ``), so that the command line can spell them as its options.
"""

from __future__ import annotations

import math

import numpy as np

from pairboot.design import Arguments, Design
from pairboot.errors import DegenerateDataWarning, SmallSampleWarning
from pairboot.estimands import Estimands, Estimate
from pairboot.intervals import normal_quantile

Note = tuple[type[Warning], str]

SMALL_N = 30
"""Below this many independent units the interval is rough (the spec: 'a few dozen')."""

POISSON_MIN_UNITS = 50
"""Below this many units in a draw stratum, Poisson weights' intervals may differ from the
classic bootstrap's by more than Monte Carlo error: the resample's size varies (its sd is
sqrt(m)), and with few units that spread is not negligible.  From 50 units the coverages
agreed within half a point in simulation (docs/poisson.md)."""

POWER_Z = 0.8416212335729143
"""The standard normal quantile at 0.8: 80% power for the test-set size needed."""


def design_notes(design: Design, args: Arguments, names: tuple[str, ...]) -> list[Note]:
    """Too few units (overall, per stratum, in the smallest unpaired sample), very
    unequal groups, too few resamples for the level; ``names`` name the systems."""
    notes = []
    unit = "groups" if design.n_groups is not None else "items"
    n_units = design.n_groups if design.n_groups is not None else design.n_items
    where = ""
    sizes = design.plan.sizes
    if not args.paired and design.strata_names is None and sizes.min() != sizes.max():
        # unpaired samples of different sizes (n_items counts both): the smaller one
        n_units, where = int(sizes.min()), f" in {names[int(sizes.argmin())]}'s sample"
    smallest = int(sizes.min()) if len(sizes) else 0
    if args.resampling == "poisson" and smallest < POISSON_MIN_UNITS:
        notes.append((
            SmallSampleWarning,
            f"Poisson weights on {smallest} {unit} (in the smallest draw): below about "
            f"{POISSON_MIN_UNITS} the resamples' sizes vary enough for the interval to "
            "differ from the classic bootstrap's; prefer `resampling='classic'` when the "
            f"{unit} fit in memory",
        ))
    if n_units < SMALL_N:
        notes.append((
            SmallSampleWarning,
            f"only {n_units} {unit}{where}: with fewer than a few dozen independent {unit} the "
            "bootstrap interval and p-value are rough (treat as rough: they tend to be too "
            "narrow and too small)",
        ))
    if design.strata_names is not None:
        small = []
        for name, m in zip(design.strata_names, design.units_per_stratum.tolist()):
            if m == 1:
                notes.append((
                    SmallSampleWarning,
                    f"stratum {name!r} has a single {unit[:-1]}: its variance cannot be "
                    "estimated, so it adds nothing to the interval's width",
                ))
            elif m < SMALL_N:
                small.append(f"{name} ({m})")
        if small and n_units >= SMALL_N:  # (below, the overall warning says it all)
            notes.append((
                SmallSampleWarning,
                f"strata with fewer than {SMALL_N} {unit}: {', '.join(small[:10])}"
                + (" ..." if len(small) > 10 else "")
                + "; their own intervals (`result.strata`) are rough",
            ))
    sizes = design.group_sizes
    if sizes is not None and len(sizes) > 1:
        cv = float(sizes.std() / sizes.mean())
        if sizes.max() > 10 * np.median(sizes) or cv > 1.0:
            spread = (f"group sizes are very unequal (from {sizes.min():,} to "
                      f"{sizes.max():,} items, coefficient of variation {cv:.2f})")
            if args.group_weighting == "items":
                advice = ("the largest groups dominate; consider whether "
                          "`group_weighting='groups'` is the estimand you want")
            else:
                advice = ("each group's mean counts the same however few items it has; "
                          "consider whether `group_weighting='items'` is the estimand you want")
            notes.append((SmallSampleWarning, f"{spread}: {advice}"))
    tail = args.n_resamples * (1 - args.confidence_level) / 2
    if tail < 10:
        notes.append((
            SmallSampleWarning,
            f"{args.n_resamples} resamples leave only {tail:.3g} beyond each end of the "
            f"{args.confidence_level:g} interval; use at least "
            f"{math.ceil(20 / (1 - args.confidence_level)):,} resamples",
        ))
    return notes


def undefined_notes(estimands: Estimands) -> list[Note]:
    """How often each system's metric was undefined on the resamples, and what became of
    those values."""
    m = estimands.design.metric
    notes = []
    for name, (n_bad, total) in zip(estimands.names, estimands.undefined.tolist()):
        if not n_bad:
            continue
        where = "resamples" if total == estimands.M.shape[0] else "resampled strata"
        if m.partly_undefined is not None:
            what = "partly undefined (e.g. a class with no tp, fp or fn)"
            fate = f"that part was taken as {m.undefined:g} (the metric's convention)"
        else:
            what = "undefined (e.g. 0/0)"
            fate = (
                f"taken as {m.undefined:g} (the metric's convention)"
                if not math.isnan(m.undefined)
                else "left out of the interval"
            )
        notes.append((
            DegenerateDataWarning,
            f"metric {m.name!r} was {what} for system {name} in "
            f"{n_bad} of {total} {where}; {fate}",
        ))
    return notes


def interval_notes(diff: Estimate, design: Design, args: Arguments, interval, mc,
                   systems: dict[str, Estimate] | None = None) -> list[Note]:
    """Undefined or dropped resamples, an unbounded or undefined interval, constant
    differences, and a Monte Carlo error too large for the interval's width.
    ``systems``: each system's own estimate, by name, whose studentized interval may
    have dropped resamples too."""
    notes = []
    theta = diff.boot.theta
    n_dropped = len(diff.replicates) - len(theta)
    if n_dropped:
        notes.append((
            DegenerateDataWarning,
            f"{n_dropped} of {len(diff.replicates)} resampled differences were undefined "
            "and are left out of the interval",
        ))
    units = "groups" if design.n_groups is not None else "items"
    # the studentized interval's dropped resamples: the difference's, else a system's
    for which, est in (("the", diff), *((f"{n}'s", e) for n, e in (systems or {}).items())):
        if est.boot.t_dropped:
            notes.append((
                DegenerateDataWarning,
                f"{est.boot.t_dropped} of {len(est.boot.theta)} resamples drew too few "
                f"distinct {units} to estimate a standard error (or their differences vary "
                "below what double precision resolves next to the scores) and are left out "
                f"of {which} studentized interval; prefer `method='bca'` or 'percentile'",
            ))
            break
    if any(math.isinf(v) for v in interval):
        notes.append((
            DegenerateDataWarning,
            f"the {args.method} interval is unbounded for these data; prefer "
            "`method='bca'` or 'percentile'",
        ))
    if len(theta) > 1 and theta[0] == theta[-1]:  # (one resample: the tail warning says it)
        notes.append((
            DegenerateDataWarning,
            f"every resampled difference equals {theta[0]:.6g}: the per-item differences "
            "are constant, so the interval has no width"
            + ("; BCa bounds are undefined (NaN)" if args.method == "bca" else ""),
        ))
    elif any(math.isnan(v) for v in interval):
        notes.append((
            DegenerateDataWarning,
            f"the {args.method} interval is undefined for these data (NaN); "
            "its bias correction or acceleration cannot be computed",
        ))
    low, high = interval
    if all(math.isfinite(v) for v in (*mc, low, high)) and high > low:
        if max(mc) > 0.05 * (high - low):
            notes.append((
                SmallSampleWarning,
                f"the Monte Carlo error of the endpoints (about ±{max(mc):.2g}) is over 5% of "
                f"the interval's width; increase the number of resamples (now "
                f"{args.n_resamples})",
            ))
    return notes


def units_needed(design: Design, estimate: float, se: float, alpha: float
                 ) -> tuple[int | None, int | None]:
    """Items (and groups) a test set would need for an 80% chance that the interval
    excludes 0 if the true difference were ``estimate``: the width shrinks like
    ``1/sqrt(n)``.  None when it cannot be said (a zero estimate, no spread)."""
    if estimate == 0 or not (math.isfinite(se) and se > 0):
        return None, None
    factor = ((normal_quantile(1 - alpha / 2) + POWER_Z) * se / abs(estimate)) ** 2
    items = math.ceil(design.n_items * factor)
    groups = math.ceil(design.n_groups * factor) if design.n_groups is not None else None
    return items, groups

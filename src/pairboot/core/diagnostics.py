"""What a result should warn about, and how large a test set would be needed.

Each function returns ``(category, text)`` pairs; compare() issues them as warnings and
keeps their texts on the result.  Arguments are written in backticks
(`` `n_resamples=100` ``), so that the command line can spell them as its options.
"""

from __future__ import annotations

import math

import numpy as np

from pairboot.core.design import Design
from pairboot.core.estimands import Estimands, Estimate
from pairboot.core.scales import CHUNK, rounding_notes
from pairboot.errors import (
    DegenerateDataWarning,
    InputError,
    SmallSampleWarning,
)
from pairboot.options import Arguments
from pairboot.stats.intervals import bounds, normal_quantile
from pairboot.stats.proportions import Table2x2, tango_interval, wilson_interval
from pairboot.stats.pvalues import units_for

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


MIN_UNITS = 2
"""Fewer units than this in every draw of a system (one item, or one group, in each
stratum) leave every resample equal to the data: nothing can be said of the spread, so
the interval and p-value are undefined (NaN), not a point."""


def _plural(n: int, unit: str) -> str:
    """``"1 item"``, ``"5 items"`` (``unit`` in the plural)."""
    return f"{n:,} {unit[:-1] if n == 1 else unit}"


def too_few_units(design: Design, names: tuple[str, ...], stratum: int | None = None
                  ) -> str | None:
    """Why no interval can be read off the resamples (of stratum ``stratum`` alone):
    some system is drawn from fewer than :data:`MIN_UNITS` units in every one of its
    draw strata, so its value is the same in every resample whatever the data's
    spread.  None when every system's value can vary."""
    unit = "groups" if design.n_groups is not None else "items"
    sizes = design.plan.sizes
    draws = np.arange(len(sizes))
    if stratum is not None:
        draws = draws[design.draw_to_stratum == stratum]
    # paired: every draw holds every system; unpaired: draw d holds system d % M
    owners = [draws] * design.n_systems if design.paired else [
        draws[draws % design.n_systems == j] for j in range(design.n_systems)]
    for j, own in enumerate(owners):
        if len(own) and int(sizes[own].max()) >= MIN_UNITS:
            continue
        n = int(sizes[own].sum()) if len(own) else 0
        if design.paired:
            what = f"only {_plural(n, unit)}"
            if stratum is not None:
                what += f" in stratum {design.strata_names[stratum]!r}"
            elif design.strata_names is not None and design.n_strata > 1:
                what = f"every stratum has a single {unit[:-1]}"
        else:
            what = f"{names[j]}'s sample has only {_plural(n, unit)}"
            if design.strata_names is not None and design.n_strata > 1:
                what = f"{names[j]}'s sample has a single {unit[:-1]} in every stratum"
        return (f"{what}: every resample draws the data again unchanged, so the resamples "
                "cannot say how much the result varies; the interval and p-value are "
                "undefined (NaN)")
    return None


def empty_draws(estimands: Estimands, args: Arguments) -> int:
    """Resamples that drew no unit in some draw stratum (Poisson weights all 0), where
    every sum is 0; 0 for the classic bootstrap, which draws every stratum's size."""
    if args.resampling != "poisson":
        return 0
    sums = estimands.draw_sums
    return int(np.count_nonzero((sums == 0).all(axis=-1).any(axis=-1)))


def design_notes(design: Design, args: Arguments, names: tuple[str, ...],
                 empty: int = 0) -> list[Note]:
    """Too few units (overall, per stratum, in the smallest unpaired sample; too few for
    any interval), very unequal groups, too few resamples for the level; ``names`` name
    the systems.  ``empty``: the resamples that drew no unit (Poisson weights), said in
    the small-sample note when the metric leaves them out."""
    notes = []
    unit = "groups" if design.n_groups is not None else "items"
    n_units = design.n_groups if design.n_groups is not None else design.n_items
    where = ""
    sizes = design.plan.sizes
    if not args.paired and design.strata_names is None and sizes.min() != sizes.max():
        # unpaired samples of different sizes (n_items counts both): the smaller one
        n_units, where = int(sizes.min()), f" in {names[int(sizes.argmin())]}'s sample"
    smallest = int(sizes.min()) if len(sizes) else 0
    poisson = args.resampling == "poisson" and smallest < POISSON_MIN_UNITS
    undefined = too_few_units(design, names)
    if undefined is not None:
        notes.append((DegenerateDataWarning, undefined))  # (it says all there is to say)
    elif n_units < units_for(args.confidence_level, args.alternative) and not where:
        text = no_verdict_text(n_units, unit, args)
        if poisson:  # (one note for both)
            if empty and math.isnan(design.metric.undefined):
                text += (f"; with Poisson weights {empty:,} of the {args.n_resamples:,} "
                         f"resamples drew no {unit[:-1]} at all and are left out")
            text += f"; prefer `resampling='classic'` when the {unit} fit in memory"
        notes.append((SmallSampleWarning, text))
    elif n_units < SMALL_N and args.method == "score":  # (closed forms: fine at small n)
        if design.n_groups is not None:
            notes.append((SmallSampleWarning, (
                f"only {_plural(n_units, unit)}: the design effects that adjust the score "
                "intervals for them are rough from so few groups")))
    elif n_units < SMALL_N:
        text = (f"only {_plural(n_units, unit)}{where}: with fewer than a few dozen "
                f"independent {unit} the bootstrap interval and p-value are rough (treat "
                "as rough: they tend to be too narrow and too small)")
        if poisson:  # one note for both, and for the resamples left empty
            text = (f"only {_plural(n_units, unit)}{where}, with Poisson weights: the "
                    f"interval and p-value are rough (with fewer than a few dozen "
                    f"independent {unit} they tend to be too narrow and too small), more "
                    "so than the classic bootstrap's, since the resamples' sizes vary")
            if empty and math.isnan(design.metric.undefined):
                text += (f"; {empty:,} of the {args.n_resamples:,} resamples drew no "
                         f"{unit[:-1]} at all{' in some stratum' if design.n_strata > 1 else ''}"
                         " and are left out")
            text += f"; prefer `resampling='classic'` when the {unit} fit in memory"
        notes.append((SmallSampleWarning, text))
    elif poisson:
        notes.append((
            SmallSampleWarning,
            f"Poisson weights on {smallest} {unit} (in the smallest draw): below about "
            f"{POISSON_MIN_UNITS} the resamples' sizes vary enough for the interval to "
            "differ from the classic bootstrap's; prefer `resampling='classic'` when the "
            f"{unit} fit in memory",
        ))
    if design.strata_names is not None and undefined is None:
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
    notes += group_size_notes(design, args)
    tail = args.n_resamples * (1 - args.confidence_level) / 2
    if tail < 10 and args.method != "score":  # (the score interval reads no resample)
        notes.append((
            SmallSampleWarning,
            f"{args.n_resamples} resamples leave only {tail:.3g} beyond each end of the "
            f"{args.confidence_level:g} interval; use at least "
            f"{math.ceil(20 / (1 - args.confidence_level)):,} resamples",
        ))
    return notes


def no_verdict_text(n_units: int, unit: str, args: Arguments) -> str:
    """Why ``n_units`` units (fewer than :func:`~pairboot.stats.pvalues.units_for`) leave
    the verdict undefined (:attr:`pairboot.CompareResult.enough_units`)."""
    two = args.alternative == "two-sided"
    chance = 2.0 ** ((1 if two else 0) - n_units)
    return (f"only {_plural(n_units, unit)}: even {unit} that all favour one system do "
            f"so by chance with probability {'2^(1 - n)' if two else '2^-n'} = "
            f"{chance:.3g}, more than {1 - args.confidence_level:.3g}, so no test at level "
            f"{args.confidence_level:g} can show a difference; the interval is shown, but "
            f"the verdict is undefined (at least "
            f"{units_for(args.confidence_level, args.alternative)} {unit} are needed)")


def group_size_notes(design: Design, args: Arguments) -> list[Note]:
    """Very unequal groups: which estimand ``group_weighting`` chooses matters then."""
    sizes = design.group_sizes
    if sizes is None or len(sizes) < 2:
        return []
    cv = float(sizes.std() / sizes.mean())
    if not (sizes.max() > 10 * np.median(sizes) or cv > 1.0):
        return []
    spread = (f"group sizes are very unequal (from {sizes.min():,} to "
              f"{sizes.max():,} items, coefficient of variation {cv:.2f})")
    if args.group_weighting == "items":
        advice = ("the largest groups dominate; consider whether "
                  "`group_weighting='groups'` is the estimand you want")
    else:
        advice = ("each group's mean counts the same however few items it has; "
                  "consider whether `group_weighting='items'` is the estimand you want")
    return [(SmallSampleWarning, f"{spread}: {advice}")]


def undefined_notes(estimands: Estimands, empty: int = 0) -> list[Note]:
    """How often each system's metric was undefined on the resamples, and what became of
    those values.  ``empty``: resamples that drew no unit, already said by the
    small-sample note (:func:`design_notes`); a system undefined on those alone (the
    metric's 0 / 0 there) is not said again."""
    m = estimands.design.metric
    notes = []
    r = estimands.M.shape[0]
    for name, (n_bad, total) in zip(estimands.names, estimands.undefined.tolist()):
        if not n_bad or (n_bad == empty and total == r
                          and _nan_on_nothing(m, estimands.design.k)):
            continue
        where = "resamples" if total == r else "resampled strata"
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


def _nan_on_nothing(metric, k: int) -> bool:
    """Whether ``metric`` leaves out (NaN) a resample that drew nothing (its ``k`` sums
    all 0): then a system undefined as often as there are such resamples is undefined
    on those."""
    if not math.isnan(metric.undefined):
        return False
    try:
        values, _ = metric.evaluate(np.zeros((1, k)))
    except InputError:  # (a user's formula that fails on zeros)
        return False
    return bool(np.isnan(values).all())


def interval_notes(diff: Estimate, design: Design, args: Arguments, interval, mc,
                   systems: dict[str, Estimate] | None = None, empty: int = 0) -> list[Note]:
    """Undefined or dropped resamples, resamples without a standard error (studentized),
    an unbounded or undefined interval, constant differences, and a Monte Carlo error
    too large for the interval's width.  ``systems``: each system's own estimate, by
    name, whose studentized interval may rest on such resamples too; ``empty``: the
    resamples that drew no unit, said already (:func:`design_notes`).  Nothing when
    there are too few units for any interval (:func:`design_notes` says so)."""
    if too_few_units(design, design.names) is not None:
        return []
    notes = []
    theta = diff.boot.theta
    n_dropped = len(diff.replicates) - len(theta)
    if n_dropped and n_dropped != empty:
        notes.append((
            DegenerateDataWarning,
            f"{n_dropped} of {len(diff.replicates)} resampled differences were undefined "
            "and are left out of the interval",
        ))
    notes += _studentized_notes(diff, design, args, systems or {})
    finite_ends = {"greater": interval[:1], "less": interval[1:]}.get(args.alternative,
                                                                       interval)
    if any(math.isinf(v) for v in finite_ends):  # (not a one-sided interval's open end)
        notes.append((
            DegenerateDataWarning,
            f"the {args.method} interval is unbounded for these data; prefer "
            "`method='bca'` or 'percentile'",
        ))
    constant = len(theta) > 1 and theta[0] == theta[-1]  # (one resample: the tail note)
    if diff.digits_lost:
        notes.append((DegenerateDataWarning, lost_digits_text(diff, "the difference")))
    elif constant:
        if diff.snapped and not diff.checked and not design.differences:  # (two sums)
            what = (f"to within the rounding of the systems' sums ({diff.rounding:.2g}): "
                    "the per-item differences are constant, or the systems' common level "
                    "(an offset, or items both score hugely) takes their digits; compare "
                    "the scores side by side (one table), where each item's difference is "
                    "summed")
        else:
            what = "the per-item differences are constant, so the interval has no width"
        notes.append((
            DegenerateDataWarning,
            f"every resampled difference equals {theta[0]:.6g}: {what}"
            + ("; BCa bounds are undefined (NaN)" if args.method == "bca" else ""),
        ))
    elif any(math.isnan(v) for v in interval) and args.method != "studentized":
        why = ("its bias correction or acceleration cannot be computed"
               if args.method == "bca" else "no resample gave a defined difference")
        notes.append((
            DegenerateDataWarning,
            f"the {args.method} interval is undefined for these data (NaN); {why}",
        ))
    if not (diff.digits_lost or constant):
        notes += rounding_notes(design, tuple(systems) if systems else design.names)
    sd = diff.boot.sd
    if (not design.differences and len(theta) > 1 and theta[0] != theta[-1]
            and diff.rounding > LOST_DIGITS * sd):
        notes.append((
            DegenerateDataWarning,
            f"the systems' sums round by up to {diff.rounding:.2g}, "
            f"{diff.rounding / sd:.0%} of the difference's standard error: their common "
            "level (an offset, or items both systems score hugely) takes the difference's "
            "digits; compare the systems' scores side by side (one table, or `paired` "
            "arrays), where each item's difference is summed",
        ))
    notes += monte_carlo_notes([("", interval, mc, diff.boot.estimate)], args)
    return notes


def lost_digits_text(estimate: Estimate, what: str) -> str:
    """The note of a contrast whose digits went to the systems' level (``what`` names
    it: "the difference", "the comparison B - A")."""
    return (f"the systems' sums round by up to {estimate.rounding:.2g}, more than "
            f"{what} can show (estimate {estimate.boot.estimate:.3g}): their common level "
            "(an offset, or items both systems score hugely) takes its digits, so its "
            "interval and p-value are undefined (NaN); compare the scores side by side "
            "(one table, or both systems in memory), where each item's difference is summed")


LOST_DIGITS = 0.01
"""The rounding of the resampled differences, as a share of their standard deviation,
above which the difference is said to lose digits to the systems' level."""


def _studentized_notes(diff: Estimate, design: Design, args: Arguments,
                       systems: dict[str, Estimate]) -> list[Note]:
    """Resamples whose standard error is 0 (or undefined): their studentized values are
    infinite; an interval whose quantiles reach them is undefined."""
    alpha = 1.0 - args.confidence_level
    units = "groups" if design.n_groups is not None else "items"
    found, undefined = None, []
    for which, est in (("the difference's", diff), *((f"{n}'s", e) for n, e in systems.items())):
        t = est.boot.t_sorted
        if t is None:
            continue
        n_bad = int(np.count_nonzero(np.isinf(t))) + est.boot.t_dropped
        if n_bad and found is None:
            found = (n_bad, len(est.boot.theta))
        if n_bad and math.isnan(bounds("studentized", est.boot, alpha)[0]):
            undefined.append(which)
    if found is None:
        return []
    n_bad, total = found
    text = (f"{n_bad} of {total} resamples drew too few distinct {units} to estimate a "
            "standard error (or their differences vary below what double precision "
            "resolves next to the scores): their studentized values are infinite")
    if undefined:
        many = len(undefined) > 1
        text += (f", and {' and '.join(undefined)} studentized interval{'s' if many else ''} "
                 f"rest{'' if many else 's'} on them: undefined (NaN)")
    else:
        text += ", in the interval's tails"
    return [(DegenerateDataWarning, text + "; prefer `method='bca'` or 'percentile'")]


MC_SHARE = 0.05
"""A Monte Carlo error of the endpoints above this share of the interval's width is
warned about: the resamples do not settle the endpoints at the digits shown."""


def monte_carlo_notes(rows, args: Arguments) -> list[Note]:
    """One note for the intervals ``(label, (low, high), (e_low, e_high), estimate)``
    whose endpoints' Monte Carlo error exceeds :data:`MC_SHARE` of their width (``label``
    names a family's comparison; "" for compare()'s one interval).  A one-sided
    interval's width is twice its finite end's distance from the estimate."""
    over = []
    for label, (low, high), errors, estimate in rows:
        if math.isinf(low) != math.isinf(high) and math.isfinite(estimate):
            end = high if math.isinf(low) else low
            low, high = estimate - abs(estimate - end), estimate + abs(estimate - end)
        if not (math.isfinite(low) and math.isfinite(high) and high > low):
            continue
        worst = max(errors)
        if math.isnan(worst):
            continue
        if worst > MC_SHARE * (high - low):
            over.append((label, worst))
    if not over:
        return []
    about = ", ".join(f"{label} ±{e:.2g}" if label else f"±{e:.2g}" for label, e in over[:5])
    if len(over) > 5:
        about += ", ..."
    if len(over) == 1 and not over[0][0]:
        what = (f"the Monte Carlo error of the endpoints (about {about}) is over "
                f"{MC_SHARE:.0%} of the interval's width")
    else:
        what = (f"the Monte Carlo error of the endpoints is over {MC_SHARE:.0%} of the "
                f"interval's width for {len(over)} comparison{'s' if len(over) > 1 else ''}"
                f" (about {about})")
    return [(SmallSampleWarning,
             f"{what}; increase `n_resamples` (now {args.n_resamples:,})")]


def minimum_detectable(se: float, alpha: float, alternative: str = "two-sided",
                       power_z: float = POWER_Z) -> float | None:
    """The smallest difference a test at ``alpha`` (on ``alternative``'s sides) detects
    with 80% power when the estimate's standard error is ``se``: ``(z_{1-alpha/2} +
    z_{0.8}) se`` (one-sided: ``z_{1-alpha}``).  None without a standard error."""
    if not (math.isfinite(se) and se > 0):
        return None
    tail = alpha / 2 if alternative == "two-sided" else alpha
    return (normal_quantile(1 - tail) + power_z) * se


def pairing_effect(a: np.ndarray, b: np.ndarray, diff: np.ndarray
                   ) -> tuple[float | None, float | None]:
    """The correlation of A's and B's replicates, and how many times narrower the paired
    spread of B - A is than an unpaired one, ``sqrt(var A + var B) / sd(B - A)`` (None
    where a variance is 0 or undefined)."""
    ok = np.isfinite(a) & np.isfinite(b) & np.isfinite(diff)
    if ok.sum() < 3:
        return None, None
    a, b, diff = a[ok], b[ok], diff[ok]
    with np.errstate(over="ignore", invalid="ignore"):  # (scores near 1e308: no answer)
        va, vb, vd = float(np.var(a)), float(np.var(b)), float(np.var(diff))
        cov = float(np.mean((a - a.mean()) * (b - b.mean())))
    if not all(math.isfinite(v) for v in (va, vb, vd, cov, va + vb)):
        return None, None
    r = cov / math.sqrt(va) / math.sqrt(vb) if va > 0 and vb > 0 else None
    gain = math.sqrt((va + vb) / vd) if vd > 0 and va + vb > 0 else None
    return (None if r is None else max(-1.0, min(1.0, r))), gain


FEW_DISCORDANT = 10
"""Fewer items than this on which two 0/1 systems differ are said to make the
bootstrap's interval and p-value rough (the exact tests hold at any number)."""


def zero_one_notes(design: Design, args: Arguments, names) -> list[Note]:
    """Two systems' paired 0/1 scores (each item one unit): a system right (or wrong) on
    every item, whose bootstrap interval is then the point [1, 1] ([0, 0]) that no test
    set supports, and few items on which the systems differ, where the bootstrap's
    p-value of 0/1 scores runs smaller than the exact McNemar test's; each note names
    what holds there (Wilson's interval through ``method='score'``, ``test='mcnemar'``)."""
    plan = design.plan
    if (args.method == "score" or not args.paired or design.n_systems != 2
            or design.n_groups is not None or not design.metric.mean_like or design.k != 2
            or len(plan.x) < int(plan.sizes.sum())):
        return []
    counts = np.zeros(4, dtype=np.int64)  # (both wrong, only B, only A, both right)
    for c in range(0, len(plan.x), CHUNK):
        rows = plan.rows(c, min(c + CHUNK, len(plan.x)))
        a, b = rows[:, 0], rows[:, 2]
        if not (np.isin(a, (0.0, 1.0)).all() and np.isin(b, (0.0, 1.0)).all()
                and (rows[:, 1] == 1).all() and (rows[:, 3] == 1).all()):
            return []
        counts += np.bincount((2 * a + b).astype(np.int64), minlength=4)
    n = int(counts.sum())
    notes = []
    for name, right in ((names[0], counts[2] + counts[3]), (names[1], counts[1] + counts[3])):
        if right in (0, n):
            low, high = wilson_interval(int(right), n, args.confidence_level)
            notes.append((SmallSampleWarning, (
                f"{name} scored {1 if right else 0} on all {n:,} items: its bootstrap "
                f"interval is the point [{1 if right else 0}, {1 if right else 0}], which "
                f"no test set supports; Wilson's interval ([{low:.3f}, {high:.3f}]) with "
                "`method='score'` holds at any accuracy")))
    differ = int(counts[1] + counts[2])
    if differ == 0:  # (every resample: B - A = 0, a point that no test set supports)
        table = Table2x2(both=int(counts[3]), only_a=0, only_b=0, neither=int(counts[0]))
        low, high = tango_interval(table, args.confidence_level)
        notes.append((DegenerateDataWarning, (
            f"{names[0]} and {names[1]} agree on all {n:,} items: every resample gives "
            "B - A = 0, so the bootstrap interval is the point [0, 0], which is degenerate "
            "and no evidence that they do not differ; Tango's interval "
            f"([{low:+.3f}, {high:+.3f}]) with `method='score'` holds")))
    if 0 < differ < FEW_DISCORDANT and args.test != "mcnemar":
        notes.append((SmallSampleWarning, (
            f"the systems differ on only {differ} of the {n:,} items: with so few, the "
            "bootstrap's p-value and interval of 0/1 scores are rough (its p-value runs "
            "smaller than the exact McNemar test's); add `test='mcnemar'`, or use "
            "`method='score'`")))
    return notes

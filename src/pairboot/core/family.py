"""A family of contrasts read off one run of M systems: the systems and contrasts of a
family (:func:`family_systems`, :func:`family_targets`), each row's interval under the
correction, the ranks (:func:`family_result`); :func:`compare_family` runs the pipeline
for a family, for compare_many() and the runs' families alike."""

from __future__ import annotations

import math
import warnings as _warnings
from collections.abc import Mapping

import numpy as np

from pairboot._version import __version__
from pairboot.core.diagnostics import (
    empty_draws,
    lost_digits_text,
    monte_carlo_notes,
    rounding_notes,
    too_few_units,
    undefined_notes,
)
from pairboot.core.intervals import (
    bounds,
    monte_carlo_error,
    order_statistic_error,
    p_value,
    sd_error,
)
from pairboot.core.multiple import bonferroni, check_correction, holm, max_t, rank_intervals
from pairboot.core.pipeline import Run, resample, stratum_score, system_score
from pairboot.core.pvalues import units_for
from pairboot.errors import DegenerateDataWarning, InputError, PairbootWarning
from pairboot.result import Comparison, ConfidenceInterval, FamilyResult

UNCORRECTED_MAX = 3
"""More uncorrected comparisons than this are warned about."""


def compare_family(scores, *, baseline, pairs, correction: str, lower_is_better: bool,
                   stacklevel: int = 2, **options) -> FamilyResult:
    """A family of one run per system: its systems and contrasts, then
    :func:`pairboot.core.pipeline.resample` and :func:`family_result` (``options``: the
    resample keywords but ``names``); notes are warned ``stacklevel`` frames up."""
    names, systems = family_systems(scores)
    targets = family_targets(names, baseline, pairs)
    check_correction(correction)
    run = resample(systems, names=names, **options)
    return family_result(run, targets, correction, lower_is_better,
                         stacklevel=stacklevel + 1)


def family_result(run: Run, targets: list[tuple[int, int]], correction: str,
                  lower_is_better: bool, *, stacklevel: int = 2,
                  within: list[int] | None = None) -> FamilyResult:
    """compare_many()'s result read off a :class:`~pairboot.core.pipeline.Run` of M systems:
    the contrasts ``targets`` ((i, j): system j minus system i) under ``correction``;
    its notes are issued as warnings ``stacklevel`` frames up.  ``within``: row ``k`` is
    its contrast within stratum ``within[k]`` alone (systems named ``"name [stratum]"``)."""
    args, design, core, notes = run.args, run.design, run.core, run.notes
    alpha = 1.0 - args.confidence_level
    side = args.alternative
    bca = args.method == "bca"
    # a row without two units to draw from (one item; within a stratum, one there) has
    # no interval; design_notes says why for the whole design, the note below for strata
    defined = [too_few_units(design, design.names, h) is None
               for h in (within or [None] * len(targets))]
    if within is None:
        names = list(design.names)
        rows = [(t, run.coef, run.combined) for t in targets]
        scores_by_name = {name: system_score(core.estimate(
            j, run.coef, bca=bca, combined=run.combined, count=False), args.method, alpha,
            all(defined)) for j, name in enumerate(design.names)}
    else:
        names, rows, scores_by_name = [], [], {}
        for (i, j), h, ok in zip(targets, within, defined):
            w = np.zeros(design.n_strata)
            w[h] = 1.0
            label = [f"{n} [{design.strata_names[h]}]" for n in design.names]
            for s in (i, j):
                scores_by_name[label[s]] = stratum_score(core, s, w, args.method, alpha, bca,
                                                          ok)
            names += [label[i], label[j]]
            rows.append(((i, j), w, False))
        targets = [(2 * k, 2 * k + 1) for k in range(len(rows))]
        lonely = [names[2 * k + 1] for k, ok in enumerate(defined) if not ok]
        if lonely and too_few_units(design, design.names) is None:
            unit = "group" if design.n_groups is not None else "item"
            many = len(lonely) > 1
            notes.append((
                DegenerateDataWarning,
                f"the comparison{'s' if many else ''} of "
                f"{', '.join(lonely[:5])}{', ...' if len(lonely) > 5 else ''} "
                f"rest{'' if many else 's'} on a single {unit}: every resample draws it "
                "again, so the interval and p-value are undefined (NaN)",
            ))
    estimates = [core.estimate(t, w, bca=bca, combined=c, count=True) for t, w, c in rows]
    notes += undefined_notes(core, empty_draws(core, args))
    if within is None and len(targets) == 1:  # (two systems: the note of compare())
        e = estimates[0]
        if not e.digits_lost and np.ptp(e.boot.theta) > 0:
            notes += rounding_notes(design, tuple(names))
    lost = [k for k, e in enumerate(estimates) if e.digits_lost and defined[k]]
    for k in lost:
        defined[k] = False
    if lost:  # (one note: the first such comparison, and how many there are)
        (i, j), more = targets[lost[0]], len(lost) - 1
        notes.append((DegenerateDataWarning, lost_digits_text(
            estimates[lost[0]], f"the comparison {names[j]} - {names[i]}"
            + (f" (and {more} more)" if more else ""))))

    m = len(targets)
    est = np.array([e.boot.estimate for e in estimates])
    se = np.array([e.boot.sd for e in estimates])
    marginal = [bounds(args.method, e.boot, alpha, side) for e in estimates]
    p_raw = np.array([p_value(args.method, e.boot, side) if ok and not np.isnan(b).any() else np.nan
                      for e, b, ok in zip(estimates, marginal, defined)])
    p_single = [None] * m
    critical = None
    floor = 1.0 / (args.n_resamples + 1)  # (the (1 + count) / (B + 1) convention)
    # The family's decisions compare p-values with the level's complement as written
    # (1 - 0.95 is 0.050000000000000044 in binary: a p of exactly 0.05 is no rejection).
    family_alpha = round(alpha, 12)
    errors = [monte_carlo_error(args.method, e.boot, alpha, side) for e in estimates]
    if m == 1:  # a family of one needs no correction: compare()'s answer
        intervals, p_adjusted = marginal, p_raw
    elif correction == "max-t":
        # Max-t is a bootstrap-t procedure: each comparison's own interval and p are the
        # symmetric bootstrap-t ones on the same roots, so that
        # p_value <= p_stepdown <= p_single_step holds exactly.
        replicates = np.column_stack([e.replicates for e in estimates])
        mt = max_t(est, se, replicates, family_alpha, side)
        critical = mt.critical_value
        intervals = [open_end(simultaneous(e, s, t, critical, side), side)
                     for e, s, t in zip(est, se, mt.t)]
        # the ends are estimate -+ c se: c is a quantile of the largest roots, se the
        # replicates' sd; their errors added in quadrature (se's partly cancels in c)
        c_error = order_statistic_error(mt.maxima, 1.0 - family_alpha)
        errors = [open_end((e,) * 2, side, 0.0) if math.isfinite(critical)
                  else (math.nan, math.nan)
                  for e in (math.hypot(s * c_error, critical * sd_error(x.boot.theta))
                            for s, x in zip(se, estimates))]
        marginal = [open_end(simultaneous(e, s, t, c, side), side)
                    for e, s, t, c in zip(est, se, mt.t, mt.marginal_critical)]
        p_raw = mt.p_marginal
        p_adjusted, p_single = mt.p_stepdown, mt.p_single_step.tolist()
    elif correction in ("holm", "bonferroni"):
        intervals = [bounds(args.method, e.boot, alpha / m, side) for e in estimates]
        errors = [monte_carlo_error(args.method, e.boot, alpha / m, side) for e in estimates]
        adjust = holm if correction == "holm" else bonferroni
        p_adjusted = adjust(np.maximum(p_raw, floor))
    else:
        intervals, p_adjusted = marginal, p_raw
        if m > UNCORRECTED_MAX:
            notes.append((
                PairbootWarning,
                f"{m} comparisons without a correction: the chance that one of them "
                f"excludes 0 by luck is well above {alpha:g}; use `correction='max-t'`",
            ))

    nan2 = (math.nan, math.nan)
    for k in np.flatnonzero(~np.array(defined)).tolist():  # (nothing to decide there)
        intervals[k] = marginal[k] = errors[k] = nan2
        p_raw[k] = p_adjusted[k] = math.nan
        if p_single[k] is not None:
            p_single[k] = math.nan
    errors = [nan2 if np.isnan(b).any() else e for b, e in zip(intervals, errors)]
    blank = [f"{names[j]} - {names[i]}" for k, (i, j) in enumerate(targets)
             if defined[k] and np.isnan(intervals[k]).any()]
    if blank:
        why = {"bca": "their bias correction or acceleration cannot be computed",
               "studentized": "their quantiles reach resamples that drew too few distinct "
                              "units to estimate a standard error; prefer `method='bca'` "
                              "or 'percentile'"}.get(args.method, "no resample is defined")
        notes.append((
            DegenerateDataWarning,
            f"the intervals of {', '.join(blank[:5])}{', ...' if len(blank) > 5 else ''} "
            f"are undefined for these data (NaN): {why}",
        ))
    notes += monte_carlo_notes([(f"{names[j]} - {names[i]}", intervals[k], errors[k],
                                 float(est[k])) for k, (i, j) in enumerate(targets)], args)

    comparisons = []
    n_units = design.n_groups if design.n_groups is not None else design.n_items
    fewest = units_for(args.confidence_level, side)
    for k, (i, j) in enumerate(targets):
        low, high = intervals[k]
        significant = bool(p_adjusted[k] < family_alpha)
        excludes = bool(low > 0 or high < 0)
        note = None
        units = n_units if within is None else int(design.units_per_stratum[within[k]])
        if units < fewest:  # (too few for any test at the level: design_notes says why)
            significant = False
            note = f"{units} units are too few for a decision at this level"
        elif significant != excludes:
            test, interval = ROW_WORDS[correction if m > 1 else "none"]
            note = (f"{test} rejects, but {interval} includes 0" if significant else
                    f"{interval} excludes 0, but {test} does not reject")
        comparisons.append(Comparison(
            a=names[i], b=names[j], estimate=float(est[k]),
            confidence_interval=ConfidenceInterval(float(low), float(high)),
            marginal_interval=ConfidenceInterval(*map(float, marginal[k])),
            standard_error=float(se[k]), p_value=float(p_raw[k]),
            p_adjusted=float(p_adjusted[k]),
            p_single_step=None if p_single[k] is None else float(p_single[k]),
            significant=significant, note=note,
            monte_carlo_error=ConfidenceInterval(*map(float, errors[k])),
        ))

    ranks = best = None
    if within is None and side == "two-sided":  # (one-sided rows cannot rank both ways)
        ranks, best = family_ranks(names, targets, comparisons, lower_is_better)

    for category, text in notes:
        _warnings.warn(text, category, stacklevel=stacklevel)

    return FamilyResult(
        comparisons=tuple(comparisons),
        systems=scores_by_name,
        rank_intervals=ranks,
        best_set=best,
        correction=correction,
        family_size=m,
        critical_value=critical,
        confidence_level=args.confidence_level,
        n_resamples=args.n_resamples,
        seed=run.seed,
        method=args.method,
        metric=design.metric.name,
        lower_is_better=bool(lower_is_better),
        paired=args.paired,
        group_weighting=args.group_weighting if design.n_groups is not None else None,
        n_items=design.n_items,
        n_groups=design.n_groups,
        n_strata=len(design.strata_names) if design.strata_names is not None else None,
        engine=run.engine,
        resampling=run.args.resampling,
        alternative=side,
        strata_family=None if within is None else tuple(
            design.strata_names[h] for h in within),
        version=__version__,
        warnings=tuple(text for _, text in notes),
    )


def family_ranks(names, targets, comparisons, lower_is_better: bool):
    """``(rank intervals, best set)`` when every pair was decided, else ``(None, None)``:
    a system's rank lies between 1 + the systems surely better and M - the systems surely
    worse (the family's decisions, as the report's letters)."""
    all_pairs = {frozenset((i, j)) for i in range(len(names)) for j in range(i + 1, len(names))}
    if {frozenset(t) for t in targets} != all_pairs:
        return None, None
    better = np.zeros((len(names), len(names)), dtype=bool)
    for (i, j), c in zip(targets, comparisons):
        if c.significant and c.estimate != 0:
            b_wins = (c.estimate > 0) != lower_is_better
            better[(j, i) if b_wins else (i, j)] = True
    ranks = rank_intervals(names, better)
    return ranks, tuple(name for name in names if ranks[name][0] == 1)


ROW_WORDS = {
    "max-t": ("the stepdown", "the simultaneous interval"),
    "holm": ("Holm's test", "the Bonferroni interval"),
    "bonferroni": ("the Bonferroni test", "the Bonferroni interval"),
    "none": ("the test", "the interval"),
}
"""How a row's note names its test and its interval, by correction."""


def simultaneous(estimate: float, se: float, t: float, c: float,
                 alternative: str = "two-sided") -> tuple[float, float]:
    """``estimate +- c se``, excluding 0 exactly when ``|t| > c`` (the single-step test;
    one-sided, when ``t > c`` for "greater" and ``-t > c`` for "less"): at the switch
    rounding could put the near end a hair past 0 either way.  Without spread (``se``
    0) the interval is the estimate itself."""
    if se == 0 or not np.isfinite(se):
        low = high = estimate
    else:
        low, high = estimate - c * se, estimate + c * se
    stat = {"greater": t, "less": -t}.get(alternative, abs(t))
    if not stat > c:
        return min(low, 0.0), max(high, 0.0)
    if low <= 0.0 <= high:  # (|t| > c: the near end belongs on the far side of 0)
        if estimate > 0:
            low = np.nextafter(0.0, 1.0)
        else:
            high = np.nextafter(0.0, -1.0)
    return low, high


def open_end(interval, alternative: str, value: float = math.inf):
    """``interval`` with the end a one-sided ``alternative`` leaves open set to
    ``value`` (``inf`` for the upper end of "greater", ``-inf`` for the lower of
    "less"; the Monte Carlo error of an open end is 0)."""
    low, high = interval
    if alternative == "greater":
        return low, value
    if alternative == "less":  # (an open lower end is -inf; an error of 0 stays 0)
        return (-value if math.isinf(value) else value), high
    return low, high


def family_systems(scores, minimum: int = 2) -> tuple[list[str], list]:
    """The systems' names and scores, from a mapping or a DataFrame's columns (at least
    ``minimum`` of them)."""
    if hasattr(scores, "columns") and hasattr(scores, "__getitem__") and not isinstance(
            scores, Mapping):
        names = [str(c) for c in scores.columns]
        systems = [scores[c] for c in scores.columns]
    elif isinstance(scores, Mapping):
        names = [str(k) for k in scores]
        systems = list(scores.values())
    else:
        raise InputError(
            "`scores` must be a mapping from system name to per-item scores, or a "
            f"DataFrame with a column per system; got {type(scores).__name__}",
            param="scores",
        )
    if len(names) < minimum:
        what = "two systems" if minimum == 2 else "one system"
        raise InputError(f"`scores` must hold at least {what}, got {len(names)}",
                         param="scores")
    if len(set(names)) != len(names):
        raise InputError("`scores` names a system twice (as text)", param="scores")
    return names, systems


def family_targets(names: list[str], baseline, pairs) -> list[tuple[int, int]]:
    """The comparisons as (i, j): system j minus system i."""
    index = {name: j for j, name in enumerate(names)}
    if baseline is not None and pairs is not None:
        raise InputError("give `baseline` or `pairs`, not both", param="pairs")
    if baseline is not None:
        if baseline not in index:
            raise InputError(f"`baseline` {baseline!r} is not one of the systems "
                             f"({', '.join(names)})", param="baseline")
        b = index[baseline]
        return [(b, j) for j in range(len(names)) if j != b]
    if pairs is None:
        return [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]
    out = []
    for pair in pairs:
        if len(pair) != 2 or any(p not in index for p in pair):
            raise InputError(f"`pairs`: {pair!r} must name two of the systems "
                             f"({', '.join(names)})", param="pairs")
        i, j = index[pair[0]], index[pair[1]]
        if i == j:
            raise InputError(f"`pairs`: {pair!r} compares a system with itself",
                             param="pairs")
        if (i, j) in out or (j, i) in out:
            raise InputError(f"`pairs`: {pair!r} is in the family twice", param="pairs")
        out.append((i, j))
    if not out:
        raise InputError("`pairs` is empty: no comparison to make", param="pairs")
    return out

"""A family of contrasts read off one run of M systems: the systems and contrasts of a
family (:func:`family_systems`, :func:`family_targets`), each row's interval under the
correction, the ranks (:func:`family_result`); :func:`compare_family` runs the pipeline
for a family, for compare_many() and the runs' families alike."""

from __future__ import annotations

import dataclasses
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
from pairboot.core.fdr import fdr_family, partial_conjunction_count
from pairboot.core.hypotheses import (
    SHOWN,
    claim_boundary,
    claim_points,
    claim_tests,
    interval_alpha,
    nulls,
    read_test,
    snap_interval,
    verdict_of,
)
from pairboot.core.intervals import (
    bounds,
    monte_carlo_error,
    order_statistic_error,
    p_value,
    sd_error,
)
from pairboot.core.multiple import (
    bonferroni,
    exceed,
    holm,
    max_t,
    rank_intervals,
    single_step_p,
    tested_statistic,
)
from pairboot.core.pipeline import Run, resample, stratum_score, system_score
from pairboot.core.pvalues import units_for
from pairboot.core.sizes import check_family_size, some_names
from pairboot.core.skew import skew_notes
from pairboot.core.westfall_young import PermutationNull, westfall_young
from pairboot.errors import DegenerateDataWarning, InputError, PairbootWarning
from pairboot.family_result import Comparison, FamilyResult, PartialConjunction
from pairboot.options import Arguments, Data
from pairboot.result import ConfidenceInterval

UNCORRECTED_MAX = 3
"""More uncorrected comparisons than this are warned about."""


def compare_family(scores, args: Arguments, data: Data, *, stacklevel: int = 2
                   ) -> FamilyResult:
    """A family of one run per system: its systems and contrasts, then
    :func:`pairboot.core.pipeline.resample` and :func:`family_result`; notes are warned
    ``stacklevel`` frames up."""
    names, systems = family_systems(scores)
    targets = family_targets(names, data.baseline, data.pairs, args.n_resamples)
    margins = row_margins(args, names, targets)
    run = resample(systems, args, dataclasses.replace(data, names=tuple(names)), family=True)
    return family_result(run, targets, stacklevel=stacklevel + 1, margins=margins)


def row_margins(args: Arguments, names, targets: list[tuple[int, int]]) -> list:
    """Each comparison's margin: ``args.margin`` for all, or a family's margins by
    ``(a, b)`` (B - A, by the systems' names), every comparison of the family among
    them (:attr:`pairboot.options.Arguments.margins`)."""
    if args.margins is None:
        return [args.margin] * len(targets)
    given = dict(args.margins)
    pairs = [(names[i], names[j]) for i, j in targets]
    unknown = [k for k in given if k not in pairs]
    if unknown:
        raise InputError(f"`margin`: {unknown[0]!r} is not a comparison of the family",
                         param="margin")
    missing = [k for k in pairs if k not in given]
    if missing:
        raise InputError(f"`margin` has no value for the comparison {missing[0]!r}",
                         param="margin")
    return [given[k] for k in pairs]


def family_result(run: Run, targets: list[tuple[int, int]], *, stacklevel: int = 2,
                  within: list[int] | None = None, margins: list | None = None
                  ) -> FamilyResult:
    """compare_many()'s result read off a :class:`~pairboot.core.pipeline.Run` of M systems:
    the contrasts ``targets`` ((i, j): system j minus system i) under the run's
    correction, each tested as ``run.args.hypothesis`` says with its margin
    (``margins``, default ``run.args.margin`` for all); its notes are issued as warnings
    ``stacklevel`` frames up.  ``within``: row ``k`` is its contrast within stratum
    ``within[k]`` alone (systems named ``"name [stratum]"``)."""
    args, design, core, notes = run.args, run.design, run.core, run.notes
    correction, lower_is_better = args.correction, args.lower_is_better
    n_systems = len(design.names)
    check_family_size(n_systems, len(targets), args.n_resamples,
                      all_pairs=within is None and n_systems > 2
                      and len(targets) == n_systems * (n_systems - 1) // 2)
    alpha = 1.0 - args.confidence_level
    side = args.alternative
    hyp = args.hypothesis
    margins = [args.margin] * len(targets) if margins is None else list(margins)
    bca = args.method == "bca"
    # a row without two units to draw from (one item; within a stratum, one there) has
    # no interval; design_notes says why for the whole design, the note below for strata
    # (asked once per stratum, not once per row: an all-pairs family has M^2 / 2 rows)
    few = {h: too_few_units(design, design.names, h) is None
           for h in set(within or [None])}
    defined = [few[h] for h in (within or [None] * len(targets))]
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

    # a margin's test cannot be read off a point at 0 (every resample: b - a = 0)
    point = [k for k, e in enumerate(estimates) if hyp != "difference" and defined[k]
             and e.boot.sd == 0.0 and e.boot.estimate == 0.0]
    for k in point:
        defined[k] = False
    if point:
        which = ", ".join(f"{names[targets[k][1]]} - {names[targets[k][0]]}" for k in point)
        notes.append((DegenerateDataWarning, f"every resample gives {which} = 0: a margin's "
                      "test cannot be read off a point interval, so the row is undefined "
                      "(NaN)"))

    m = len(targets)
    est = np.array([e.boot.estimate for e in estimates])
    se = np.array([e.boot.sd for e in estimates])

    def read(at: float):  # every row's interval, p and TOST parts at 1 - at
        return [read_test(hyp, mk, side, at,
                          lambda a, s, e=e: bounds(args.method, e.boot, a, s),
                          lambda s, v, e=e: p_value(args.method, e.boot, s, v),
                          args.lower_is_better, tol=e.boot.tolerance)
                for e, mk in zip(estimates, margins)]

    def errors_at(at: float):
        return [monte_carlo_error(args.method, e.boot, interval_alpha(hyp, at), side)
                for e in estimates]

    own = read(alpha)
    marginal = [r[0] for r in own]
    p_raw = np.array([r[1] if ok and not np.isnan(b).any() else np.nan
                      for r, b, ok in zip(own, marginal, defined)])
    p_own = p_raw.copy()  # (the method's own p-values, whatever the correction)
    p_single = [None] * m
    critical = None
    fcr = None
    floor = 1.0 / (args.n_resamples + 1)  # (the (1 + count) / (B + 1) convention)
    # The family's decisions compare p-values with the level's complement as written
    # (1 - 0.95 is 0.050000000000000044 in binary: a p of exactly 0.05 is no rejection).
    family_alpha = round(alpha, 12)
    errors = errors_at(alpha)
    tol = [e.boot.tolerance for e in estimates]
    mt = None
    # a claim beyond the hypothesis ("better" under non-inferiority) is read off the row's
    # interval at the family's level: its p-value times this is below alpha exactly then
    claim_scale = 1.0
    p_used = None  # (the p-values a correction adjusts, where it adjusts p-values)
    if m == 1:  # a family of one needs no correction: compare()'s answer
        intervals, p_adjusted = marginal, p_raw
    elif correction == "max-t":
        # Max-t is a bootstrap-t procedure: each comparison's own interval and p are the
        # symmetric bootstrap-t ones on the same roots, so that
        # p_value <= p_stepdown <= p_single_step holds exactly.  A margin's test is the
        # same on B - A less its boundary (the roots do not move).  Equivalence keeps
        # the method's own TOST rows beside the single-step max-t (no such order).
        replicates = np.column_stack([e.replicates for e in estimates])
        if hyp == "equivalence":
            mt, p_single_eq = equivalence_max_t(est, se, replicates, margins, family_alpha,
                                                tol)
        else:
            shift = np.array([nulls(hyp, mk, side, args.lower_is_better)[0][1]
                              for mk in margins])
            mt = max_t(est, se, replicates, family_alpha, side, null=shift, tol=tol)
        critical = mt.critical_value
        # the ends are estimate -+ c se: c is a quantile of the largest roots, se the
        # replicates' sd; their errors added in quadrature (se's partly cancels in c)
        c_error = order_statistic_error(mt.maxima, 1.0 - family_alpha)
        errors = [open_end((e,) * 2, side, 0.0) if math.isfinite(critical)
                  else (math.nan, math.nan)
                  for e in (math.hypot(s * c_error, critical * sd_error(x.boot.theta))
                            for s, x in zip(se, estimates))]
        if hyp == "equivalence":
            intervals = [snap_interval((e - critical * s, e + critical * s) if s > 0
                                       else (e, e), claim_points(mk), d)
                         for e, s, mk, d in zip(est, se, margins, tol)]
            p_adjusted = p_single_eq
            p_single = p_single_eq.tolist()
            p_raw = p_own
        else:
            intervals = [shifted(open_end(simultaneous(e - b, s, t, critical, side, d),
                                          side), b)
                         for e, s, t, b, d in zip(est, se, mt.t, shift, tol)]
            marginal = [shifted(open_end(simultaneous(e - b, s, t, c, side, d), side), b)
                        for e, s, t, c, b, d in zip(est, se, mt.t, mt.marginal_critical,
                                                    shift, tol)]
            intervals, marginal = ([snap_interval(x, claim_points(mk), d)
                                    for x, mk, d in zip(ends, margins, tol)]
                                   for ends in (intervals, marginal))
            p_raw = mt.p_marginal
            p_adjusted, p_single = mt.p_stepdown, mt.p_single_step.tolist()
    elif correction in ("holm", "bonferroni"):
        intervals = [r[0] for r in read(alpha / m)]
        errors = errors_at(alpha / m)
        adjust = holm if correction == "holm" else bonferroni
        p_used = np.maximum(p_raw, floor)
        p_adjusted = adjust(p_used)
        claim_scale = float(m)
    elif correction in ("bh", "by"):
        # Benjamini & Yekutieli (2005): the R discoveries' intervals at 1 - R q / m keep
        # their false coverage rate at q (BY's dependence factor for "by")
        p_used = np.maximum(p_raw, floor)
        p_adjusted, fcr = fdr_family(p_used, family_alpha, correction)
        intervals = [r[0] for r in read(fcr)]
        errors = errors_at(fcr)
        claim_scale = family_alpha / fcr
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
        if p_used is not None:
            p_used[k] = math.nan
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

    notes += skew_notes(core, [  # (skewed differences at this n: coverage below level)
        (f"{names[j]} - {names[i]}", *rows[k],
         None if within is None else int(design.units_per_stratum[within[k]]))
        for k, (i, j) in enumerate(targets) if defined[k]], args, correction if m > 1 else None)

    def claim_p(k: int, boundary: float) -> float:
        """The p-value of row ``k``'s claim against ``boundary``, adjusted as its
        interval is (max-t: single-step on the same maxima)."""
        if mt is not None:
            return single_step_p(mt, float(est[k]), float(se[k]), boundary, tol[k], side)
        ((sides, _),) = [t for t in claim_tests(hyp, margins[k], side, args.lower_is_better)
                         if t[1] == boundary]
        raw = p_value(args.method, estimates[k].boot, sides, boundary)
        return raw if claim_scale == 1.0 else min(1.0, max(raw, floor) * claim_scale)

    family_test = None
    if isinstance(run.test, PermutationNull) and within is None:
        family_test = westfall_young(run.test, targets, side)
    comparisons = []
    n_units = design.n_groups if design.n_groups is not None else design.n_items
    fewest = units_for(args.confidence_level, side)
    for k, (i, j) in enumerate(targets):
        low, high = intervals[k]
        significant = bool(p_adjusted[k] < family_alpha)
        verdict = verdict_of(hyp, margins[k], intervals[k], args.lower_is_better)
        excludes = verdict in SHOWN[hyp]
        note = None
        units = n_units if within is None else int(design.units_per_stratum[within[k]])
        if units < fewest:  # (too few for any test at the level: design_notes says why)
            significant = False
            note = (f"{units} unit{' is' if units == 1 else 's are'} too few for a "
                    "decision at this level")
        elif significant != excludes:
            test, interval = ROW_WORDS[correction if m > 1 else "none"]
            what = "0" if hyp == "difference" else "the margin's boundary"
            note = (f"{test} rejects, but {interval} includes {what}" if significant else
                    f"{interval} excludes {what}, but {test} does not reject")
        if units < fewest or np.isnan(intervals[k]).any():
            verdict = "undefined"
        elif not significant:
            verdict = "inconclusive"
        elif not excludes:  # (the test's claim, which its interval does not show)
            verdict = claim_of(hyp, est[k], args.lower_is_better)
        boundary = claim_boundary(verdict, hyp, margins[k], args.lower_is_better)
        claimed = None if boundary is None else float(claim_p(k, boundary))
        tested = {}
        if family_test is not None:
            adjusted = float(family_test.p_adjusted[k])
            # (an uncorrected family is set beside the test's own p, not its adjusted one)
            held = float(family_test.p_values[k]) if correction == "none" else adjusted
            tested = dict(test_p_value=float(family_test.p_values[k]),
                          test_p_adjusted=adjusted,
                          test_disagrees=bool(math.isfinite(held) and defined[k]
                                              and (held < family_alpha) != significant))
        comparisons.append(Comparison(
            a=names[i], b=names[j], estimate=float(est[k]),
            confidence_interval=ConfidenceInterval(float(low), float(high)),
            marginal_interval=ConfidenceInterval(*map(float, marginal[k])),
            standard_error=float(se[k]), p_value=float(p_raw[k]),
            p_value_used=float(p_raw[k] if p_used is None else p_used[k]),
            p_adjusted=float(p_adjusted[k]),
            p_single_step=None if p_single[k] is None else float(p_single[k]),
            significant=significant, note=note,
            monte_carlo_error=ConfidenceInterval(*map(float, errors[k])),
            margin=margins[k], verdict=verdict, claim_p_value=claimed, **tested,
        ))

    ranks = best = None
    if within is None and side == "two-sided" and hyp == "difference":
        # (one-sided rows cannot rank both ways; equivalence says nothing of order)
        ranks, best = family_ranks(names, targets, comparisons, lower_is_better)
    conjunction = None
    if within is not None and m > 1:
        conjunction = tasks_conjunction(estimates, p_own, hyp, margins, args, family_alpha)

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
        hypothesis=hyp,
        margin=margins[0] if len(set(margins)) == 1 else None,
        fcr_level=None if fcr is None else round(1.0 - interval_alpha(hyp, fcr), 12),
        partial_conjunction=conjunction,
        test=None if family_test is None else family_test.test,
        strata_family=None if within is None else tuple(
            design.strata_names[h] for h in within),
        version=__version__,
        warnings=tuple(text for _, text in notes),
    )


def family_ranks(names, targets, comparisons, lower_is_better: bool):
    """``(rank intervals, best set)`` when every pair was decided, else ``(None, None)``:
    a system's rank lies between 1 + the systems surely better and M - the systems surely
    worse (the family's decisions, as the report's letters)."""
    m = len(names)
    if len(targets) != m * (m - 1) // 2 or len({frozenset(t) for t in targets}) != len(
            targets):  # (every pair once: M(M-1)/2 distinct pairs of M systems)
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
    "bh": ("Benjamini-Hochberg", "the FCR-adjusted interval"),
    "by": ("Benjamini-Yekutieli", "the FCR-adjusted interval"),
    "none": ("the test", "the interval"),
}
"""How a row's note names its test and its interval, by correction."""


def simultaneous(estimate: float, se: float, t: float, c: float,
                 alternative: str = "two-sided", tol: float = 0.0) -> tuple[float, float]:
    """``estimate +- c se``, excluding 0 exactly when the single-step test rejects:
    :func:`~pairboot.core.multiple.tested_statistic` of ``t`` (``|t|``; one-sided, ``t``
    for "greater" and ``-t`` for "less"; less the tie tolerance ``tol``) exceeds ``c``.
    At the switch rounding could put the near end a hair past 0 either way.  Without
    spread (``se`` 0) the interval is the estimate itself."""
    if se == 0 or not np.isfinite(se):
        low = high = estimate
    else:
        low, high = estimate - c * se, estimate + c * se
    if not tested_statistic(t, se, tol, alternative) > c:
        return min(low, 0.0), max(high, 0.0)
    if low <= 0.0 <= high:  # (the test rejects: the near end belongs on the far side of 0)
        if estimate > 0:
            low = np.nextafter(0.0, 1.0)
        else:
            high = np.nextafter(0.0, -1.0)
    return low, high


def claim_of(hypothesis: str, estimate: float, lower_is_better: bool) -> str:
    """The verdict a rejection of ``hypothesis``'s null claims, whatever the interval
    shows beyond it (a difference: better or worse by the estimate's sign)."""
    if hypothesis == "difference":
        return "better" if (estimate > 0) != lower_is_better else "worse"
    return {"non-inferiority": "non-inferior", "superiority": "better-by-margin",
            "equivalence": "equivalent"}[hypothesis]


def shifted(interval, by: float):
    """``interval`` moved by ``by`` (infinite ends stay)."""
    return interval[0] + by, interval[1] + by


def equivalence_max_t(est, se, replicates, margins, alpha: float, tol=None):
    """Max-t for a family of equivalence tests: the two-sided simultaneous interval
    ``estimate +- c se`` at the family's level, and each row's single-step p-value, the
    larger of its two one-sided tests against the maximum of ``|T*|`` (so ``p < alpha``
    exactly when the interval lies within +-margin).  Each row's null lies on one side,
    unknown, so the maximum is over both: this keeps the family's error at alpha
    whatever the sides, and costs up to a factor of two in alpha against one row's TOST."""
    mt = max_t(est, se, replicates, alpha, "two-sided", tol=tol)
    d = np.array(margins, dtype=np.float64)
    tol = np.zeros(len(d)) if tol is None else np.asarray(tol, dtype=np.float64)
    # (an estimate within the tolerance of a boundary is on it: no evidence either way)
    above = np.where(np.abs(est + d) <= tol, 0.0, est + d)
    below = np.where(np.abs(d - est) <= tol, 0.0, d - est)
    with np.errstate(divide="ignore", invalid="ignore"):
        t_low = np.where(se > 0, above / np.where(se > 0, se, 1.0),
                         np.where(above > 0, np.inf, -np.inf))
        t_high = np.where(se > 0, below / np.where(se > 0, se, 1.0),
                          np.where(below > 0, np.inf, -np.inf))
    n = mt.n_used
    worst = np.minimum(t_low, t_high)
    count = np.array([exceed(mt.maxima, tested_statistic(w, s, d, "greater"))
                      for w, s, d in zip(worst, se, tol)])
    return mt, (1.0 + count) / (n + 1)


def tasks_conjunction(estimates, p_own, hypothesis: str, margins, args, alpha: float
                      ) -> PartialConjunction:
    """On how many tasks (strata) at least B is better (Benjamini & Heller 2008): the
    rows' one-sided p-values of ``method`` on B's better side (a margin's test: its own
    marginal ones, not max-t's), combined by
    Simes' rule -- the strata are drawn independently, so their p-values are -- and the
    largest count whose monotone partial-conjunction p-value is below alpha."""
    if hypothesis == "difference":
        better = "less" if args.lower_is_better else "greater"
        p = np.array([p_value(args.method, e.boot, better) if np.isfinite(q) else np.nan
                      for e, q in zip(estimates, p_own)])
        claim = "better"
    else:
        p = np.asarray(p_own, dtype=np.float64)
        claim = claim_of(hypothesis, 0.0, args.lower_is_better)
    p = np.maximum(p, 1.0 / (args.n_resamples + 1))
    count, mono = partial_conjunction_count(p, alpha, combination="simes")
    return PartialConjunction(count=int(count), of=len(p), claim=claim,
                              p_values=tuple(float(x) for x in mono),
                              combination="simes", alpha=float(alpha),
                              task_p_values=tuple(float(x) for x in p))


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


def family_targets(names: list[str], baseline, pairs, n_resamples=None
                   ) -> list[tuple[int, int]]:
    """The comparisons as (i, j): system j minus system i; with ``n_resamples``, a
    family too large to compute is refused before its list is built
    (:func:`check_family_size`)."""
    index = {name: j for j, name in enumerate(names)}
    if baseline is not None and pairs is not None:
        raise InputError("give `baseline` or `pairs`, not both", param="pairs")
    if n_resamples is not None and pairs is None:  # (pairs given: as many as listed)
        m = len(names)
        check_family_size(m, m - 1 if baseline is not None else m * (m - 1) // 2,
                          n_resamples, all_pairs=baseline is None)
    if baseline is not None:
        if baseline not in index:
            raise InputError(f"`baseline` {baseline!r} is not one of the systems "
                             f"({some_names(names)})", param="baseline")
        b = index[baseline]
        return [(b, j) for j in range(len(names)) if j != b]
    if pairs is None:
        return [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]
    out, seen = [], set()
    for pair in pairs:
        if len(pair) != 2 or any(p not in index for p in pair):
            raise InputError(f"`pairs`: {pair!r} must name two of the systems "
                             f"({some_names(names)})", param="pairs")
        i, j = index[pair[0]], index[pair[1]]
        if i == j:
            raise InputError(f"`pairs`: {pair!r} compares a system with itself",
                             param="pairs")
        if frozenset((i, j)) in seen:
            raise InputError(f"`pairs`: {pair!r} is in the family twice", param="pairs")
        seen.add(frozenset((i, j)))
        out.append((i, j))
    if not out:
        raise InputError("`pairs` is empty: no comparison to make", param="pairs")
    return out


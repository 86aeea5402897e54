"""A family of contrasts read off one run of M systems: the systems and contrasts of a
family (:func:`family_systems`, :func:`family_targets`), each row's interval under the
correction, the ranks (:func:`family_result`); :func:`compare_family` runs the pipeline
for a family, for compare_many() and the runs' families alike."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping

import numpy as np

from pairboot.core.corrections import (
    Decision,
    Ran,
    Rows,
    claim_of,
    decide,
    decide_rows,
    family_answer,
)
from pairboot.core.diagnostics import (
    SMALL_N,
    empty_draws,
    lost_digits_text,
    monte_carlo_notes,
    too_few_units,
    undefined_notes,
)
from pairboot.core.pipeline import Run, resample, stratum_score, system_score
from pairboot.core.scales import rounding_notes
from pairboot.core.sizes import check_family_size, some_names
from pairboot.core.skew import SYMMETRIC_FIX, skew_notes
from pairboot.core.westfall_young import PermutationNull, westfall_young
from pairboot.errors import DegenerateDataWarning, InputError, SmallSampleWarning
from pairboot.options import Arguments, Data
from pairboot.results.family import FamilyResult, PartialConjunction
from pairboot.stats.fdr import partial_conjunction_count
from pairboot.stats.hypotheses import (
    claim_points,
    claim_tests,
    interval_alpha,
    nulls,
    read_test,
    snap_interval,
)
from pairboot.stats.intervals import (
    bounds,
    monte_carlo_error,
    order_statistic_error,
    p_value,
    sd_error,
)
from pairboot.stats.multiple import (
    exceed,
    max_t,
    single_step_p,
    tested_statistic,
)
from pairboot.stats.pvalues import units_for


def compare_family(scores, args: Arguments, data: Data, *, stacklevel: int = 2,
                   symmetric_fix: str = SYMMETRIC_FIX) -> FamilyResult:
    """A family of one run per system: its systems and contrasts, then
    :func:`pairboot.core.pipeline.resample` and :func:`family_result`; notes are warned
    ``stacklevel`` frames up (``symmetric_fix``: as :func:`family_result`)."""
    names, systems = family_systems(scores)
    targets = family_targets(names, data.baseline, data.pairs, args.n_resamples)
    margins = row_margins(args, names, targets)
    run = resample(systems, args, dataclasses.replace(data, names=tuple(names)), family=True)
    return family_result(run, targets, stacklevel=stacklevel + 1, margins=margins,
                         symmetric_fix=symmetric_fix)


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
                  within: list[int] | None = None, margins: list | None = None,
                  estimates_into: list | None = None,
                  symmetric_fix: str = SYMMETRIC_FIX, turned: list | None = None
                  ) -> FamilyResult:
    """compare_many()'s result read off a :class:`~pairboot.core.pipeline.Run` of M systems:
    the contrasts ``targets`` ((i, j): system j minus system i) under the run's
    correction, each tested as ``run.args.hypothesis`` says with its margin
    (``margins``, default ``run.args.margin`` for all); its notes are issued as warnings
    ``stacklevel`` frames up.  ``within``: row ``k`` is its contrast within stratum
    ``within[k]`` alone (systems named ``"name [stratum]"``).  ``estimates_into``: a list
    each row's :class:`~pairboot.core.estimands.Estimate` is appended to (its
    replicates, for a caller that reads them).  ``symmetric_fix``: what the note on
    skewed differences advises against max-t's symmetric intervals
    (:func:`pairboot.core.skew.skew_notes`).  ``turned``: rows the notes name (and sign)
    as system i minus system j, the other way round (compare_metrics' lower-is-better
    rows, computed as A - B so that a gain is positive, are B - A in its reports)."""
    args, design, core, notes = run.args, run.design, run.core, run.notes
    correction = args.correction
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
        contrasts = [(t, run.coef, run.combined) for t in targets]
        scores_by_name = {name: system_score(core.estimate(
            j, run.coef, bca=bca, combined=run.combined, count=False), args.method, alpha,
            all(defined)) for j, name in enumerate(design.names)}
    else:
        names, contrasts, scores_by_name = [], [], {}
        for (i, j), h, ok in zip(targets, within, defined):
            w = np.zeros(design.n_strata)
            w[h] = 1.0
            label = [f"{n} [{design.strata_names[h]}]" for n in design.names]
            for s in (i, j):
                scores_by_name[label[s]] = stratum_score(core, s, w, args.method, alpha, bca,
                                                          ok)
            names += [label[i], label[j]]
            contrasts.append(((i, j), w, False))
        targets = [(2 * k, 2 * k + 1) for k in range(len(contrasts))]
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
    estimates = [core.estimate(t, w, bca=bca, combined=c, count=True)
                 for t, w, c in contrasts]
    if estimates_into is not None:
        estimates_into.extend(estimates)
    notes += undefined_notes(core, empty_draws(core, args))
    if within is None and len(targets) == 1:  # (two systems: the note of compare())
        e = estimates[0]
        if not e.digits_lost and np.ptp(e.boot.theta) > 0:
            notes += rounding_notes(design, tuple(names))
    lost = [k for k, e in enumerate(estimates) if e.digits_lost and defined[k]]
    for k in lost:
        defined[k] = False
    def label(k: int) -> str:  # (row k's difference as the notes name it)
        i, j = targets[k]
        return f"{names[i]} - {names[j]}" if turned and turned[k] else \
            f"{names[j]} - {names[i]}"

    if lost:  # (one note: the first such comparison, and how many there are)
        k, more = lost[0], len(lost) - 1
        e = estimates[k]
        if turned and turned[k]:
            e = dataclasses.replace(e, boot=dataclasses.replace(
                e.boot, estimate=-e.boot.estimate))
        notes.append((DegenerateDataWarning, lost_digits_text(
            e, f"the comparison {label(k)}" + (f" (and {more} more)" if more else ""))))

    # a margin's test cannot be read off a point at 0 (every resample: b - a = 0)
    point = [k for k, e in enumerate(estimates) if hyp != "difference" and defined[k]
             and e.boot.sd == 0.0 and e.boot.estimate == 0.0]
    for k in point:
        defined[k] = False
    if point:
        which = ", ".join(label(k) for k in point)
        notes.append((DegenerateDataWarning, f"every resample gives {which} = 0: a margin's "
                      "test cannot be read off a point interval, so the row is undefined "
                      "(NaN)"))

    est = np.array([e.boot.estimate for e in estimates])
    se = np.array([e.boot.sd for e in estimates])
    # max-t of the studentized method: its roots and its standard error on the data
    roots = studentized_roots(estimates) if correction == "max-t" else None
    if roots is not None:
        se = roots[0]

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
    floor = 1.0 / (args.n_resamples + 1)  # (the (1 + count) / (B + 1) convention)
    rows = Rows(est, se, [e.boot.tolerance for e in estimates], margins, hyp, side,
                args.lower_is_better, alpha, round(alpha, 12), read,
                lambda marginal, p_raw: _max_t_rows(rows, estimates, marginal, p_own,
                                                    roots),
                floor, errors_at)
    decision = decide(correction, rows, marginal, p_raw, defined)
    notes += decision.notes
    blank = [label(k) for k in range(len(targets))
             if defined[k] and np.isnan(decision.intervals[k]).any()]
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
    notes += monte_carlo_notes([(label(k), decision.intervals[k], decision.errors[k],
                                 float(est[k])) for k in range(len(targets))], args)

    notes += small_strata_notes(design, within, correction, args.method)
    notes += skew_notes(core, [  # (skewed differences at this n: coverage below level)
        (label(k), *((t[::-1], *rest) if turned and turned[k] else (t, *rest)),
         None if within is None else int(design.units_per_stratum[within[k]]))
        for k, (t, *rest) in enumerate(contrasts) if defined[k]], args,
        correction if len(targets) > 1 else None, symmetric_fix)

    def claim_p(k: int, boundary: float) -> float:
        """The p-value of row ``k``'s claim against ``boundary``, adjusted as its
        interval is (max-t: single-step on the same maxima)."""
        if decision.max_t is not None:
            return single_step_p(decision.max_t, float(est[k]), float(se[k]), boundary,
                                 rows.tol[k], side)
        ((sides, _),) = [t for t in claim_tests(hyp, margins[k], side, args.lower_is_better)
                         if t[1] == boundary]
        raw = p_value(args.method, estimates[k].boot, sides, boundary)
        scale = decision.claim_scale
        return raw if scale == 1.0 else min(1.0, max(raw, floor) * scale)

    family_test = None
    if isinstance(run.test, PermutationNull) and within is None:
        family_test = westfall_young(run.test, targets, side)
    n_units = design.n_groups if design.n_groups is not None else design.n_items
    units = [n_units if within is None else int(design.units_per_stratum[h])
             for h in (within or [None] * len(targets))]
    fewest = units_for(args.confidence_level, side)
    comparisons = decide_rows(
        names, targets, rows, decision, correction, claim_p, units=units, fewest=fewest,
        family_test=family_test, defined=defined)
    conjunction = None
    if within is not None and len(targets) > 1:
        conjunction = tasks_conjunction(estimates, p_own, hyp, margins, args,
                                        rows.family_alpha, units, defined)
    ran = Ran(seed=run.seed, method=args.method, metric=design.metric.name,
              paired=args.paired,
              group_weighting=args.group_weighting if design.n_groups is not None else None,
              n_items=design.n_items, n_groups=design.n_groups,
              n_strata=len(design.strata_names) if design.strata_names is not None else None,
              engine=run.engine, test=None if family_test is None else family_test.test)
    return family_answer(
        comparisons, names, targets, rows, decision, notes, args=args, ran=ran,
        systems=scores_by_name, stacklevel=stacklevel + 1, ranked=within is None,
        partial_conjunction=conjunction,
        strata_family=None if within is None else tuple(
            design.strata_names[h] for h in within))


def studentized_roots(estimates) -> tuple[np.ndarray, np.ndarray] | None:
    """With the studentized method's sums: every row's standard error on the data
    (``se_hat``) and every resample's studentized roots ``(theta* - estimate) / se*``
    (B, m), for max-t: 0 where ``se*`` is 0 and ``theta*`` the estimate, infinite where
    it is not, NaN where ``theta*`` or ``se*`` is undefined (as the studentized interval
    reads them).  None without those sums.

    Max-t on the bootstrap's own spread reads roots of a normal shape; the studentized
    roots carry the t-like tails of a mean of a few units (docs/small_samples.md,
    "Families over small strata")."""
    if not estimates or any(e.se_star is None for e in estimates):
        return None
    se_hat = np.array([e.boot.se_hat for e in estimates])
    columns = []
    for e in estimates:
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (e.replicates - e.boot.estimate) / e.se_star
        columns.append(np.where((e.se_star == 0) & (e.replicates == e.boot.estimate),
                                0.0, t))
    return se_hat, np.column_stack(columns)


def _max_t_rows(rows: Rows, estimates, marginal, p_own, roots=None) -> Decision:
    """The bootstrap's max-t: a bootstrap-t procedure, so that each comparison's own
    interval and p are the symmetric bootstrap-t ones on the same roots and
    ``p_value <= p_stepdown <= p_single_step`` holds exactly.  A margin's test is the
    same on B - A less its boundary (the roots do not move).  Equivalence keeps the
    method's own TOST rows beside the single-step max-t (no such order).  ``roots``
    (:func:`studentized_roots`, whose scale ``rows.se`` is then): the studentized roots in
    place of the replicates'."""
    est, se, tol, margins = rows.est, rows.se, rows.tol, rows.margins
    hyp, side, family_alpha = rows.hypothesis, rows.alternative, rows.family_alpha
    replicates = (np.column_stack([e.replicates for e in estimates]) if roots is None
                  else roots[1])
    studentized = roots is not None
    if hyp == "equivalence":
        mt, p_single_eq = equivalence_max_t(est, se, replicates, margins, family_alpha, tol,
                                            studentized=studentized)
    else:
        shift = np.array([nulls(hyp, mk, side, rows.lower_is_better)[0][1]
                          for mk in margins])
        mt = max_t(est, se, replicates, family_alpha, side, null=shift, tol=tol,
                   studentized=studentized)
    critical = mt.critical_value
    # the ends are estimate -+ c se: c is a quantile of the largest roots, se the
    # replicates' sd; their errors added in quadrature (se's partly cancels in c).
    # Studentized, se is the data's own and has no Monte Carlo error
    c_error = order_statistic_error(mt.maxima, 1.0 - family_alpha)
    errors = [open_end((e,) * 2, side, 0.0) if math.isfinite(critical)
              else (math.nan, math.nan)
              for e in (math.hypot(s * c_error,
                                   0.0 if studentized else critical * sd_error(x.boot.theta))
                        for s, x in zip(se, estimates))]
    if hyp == "equivalence":
        intervals = [snap_interval((e - critical * s, e + critical * s) if s > 0
                                   else (e, e), claim_points(mk), d)
                     for e, s, mk, d in zip(est, se, margins, tol)]
        return Decision(intervals, marginal, p_own, p_single_eq, family_alpha,
                        errors=errors, p_single=p_single_eq.tolist(), critical=critical,
                        max_t=mt)
    intervals = [shifted(open_end(simultaneous(e - b, s, t, critical, side, d), side), b)
                 for e, s, t, b, d in zip(est, se, mt.t, shift, tol)]
    marginal = [shifted(open_end(simultaneous(e - b, s, t, c, side, d), side), b)
                for e, s, t, c, b, d in zip(est, se, mt.t, mt.marginal_critical, shift, tol)]
    intervals, marginal = ([snap_interval(x, claim_points(mk), d)
                            for x, mk, d in zip(ends, margins, tol)]
                           for ends in (intervals, marginal))
    return Decision(intervals, marginal, mt.p_marginal, mt.p_stepdown, family_alpha,
                    errors=errors, p_single=mt.p_single_step.tolist(), critical=critical,
                    max_t=mt)


def simultaneous(estimate: float, se: float, t: float, c: float,
                 alternative: str = "two-sided", tol: float = 0.0) -> tuple[float, float]:
    """``estimate +- c se``, excluding 0 exactly when the single-step test rejects:
    :func:`~pairboot.stats.multiple.tested_statistic` of ``t`` (``|t|``; one-sided, ``t``
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


def shifted(interval, by: float):
    """``interval`` moved by ``by`` (infinite ends stay)."""
    return interval[0] + by, interval[1] + by


def equivalence_max_t(est, se, replicates, margins, alpha: float, tol=None, *,
                      studentized: bool = False):
    """Max-t for a family of equivalence tests: the two-sided simultaneous interval
    ``estimate +- c se`` at the family's level, and each row's single-step p-value, the
    larger of its two one-sided tests against the maximum of ``|T*|`` (so ``p < alpha``
    exactly when the interval lies within +-margin).  Each row's null lies on one side,
    unknown, so the maximum is over both: this keeps the family's error at alpha
    whatever the sides, and costs up to a factor of two in alpha against one row's TOST.
    ``studentized``: ``replicates`` are the roots (:func:`studentized_roots`)."""
    mt = max_t(est, se, replicates, alpha, "two-sided", tol=tol, studentized=studentized)
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


def small_strata_notes(design, within, correction: str, method: str) -> list:
    """A family over strata (one comparison per stratum) with a stratum of fewer than
    :data:`~pairboot.core.diagnostics.SMALL_N` units: its error rate is not held (the
    bootstrap's intervals of so few units are too narrow in their tails, and a family
    reads them far out), as docs/small_samples.md measures, unless its max-t reads the
    studentized roots (``method="studentized"``), which hold it there."""
    if within is None or len(within) < 2 or (correction, method) == ("max-t", "studentized"):
        return []
    smallest = min(int(design.units_per_stratum[h]) for h in within)
    if smallest >= SMALL_N:
        return []
    unit = "groups" if design.n_groups is not None else "items"
    claims = ("its partial conjunction" if correction == "none" else
              f"its {correction} adjusted p-values and its partial conjunction")
    return [(SmallSampleWarning,
             f"a family over strata of fewer than {SMALL_N} {unit} (the smallest has "
             f"{smallest}) does not hold its error rate: {claims} claim too much "
             "(with no difference anywhere, 20 strata of 8 items had some stratum flagged "
             "in 44% of simulated data sets, of 30 items in 18%: docs/small_samples.md, "
             "\"Families over small strata\"); `correction='max-t', "
             "method='studentized'` holds it (1% and 4%), or compare the whole test set")]


def tasks_conjunction(estimates, p_own, hypothesis: str, margins, args, alpha: float,
                      units=None, defined=None) -> PartialConjunction:
    """On how many tasks (strata) at least B is better (Benjamini & Heller 2008): the
    rows' one-sided p-values of ``method`` on B's better side (a margin's test: its own
    marginal ones, not max-t's), combined by
    Simes' rule -- the strata are drawn independently, so their p-values are -- and the
    largest count whose monotone partial-conjunction p-value is below alpha.

    A task's p-value is at least ``2**-units``, the smallest an exact test of its units
    can give (the sign-flip test's: all of them on B's side), where a bootstrap's
    reaches ``1 / (B + 1)`` however few they are; a task not ``defined`` has p 1."""
    if hypothesis == "difference":
        better = "less" if args.lower_is_better else "greater"
        p = np.array([p_value(args.method, e.boot, better) if np.isfinite(q) else np.nan
                      for e, q in zip(estimates, p_own)])
        claim = "better"
    else:
        p = np.asarray(p_own, dtype=np.float64)
        claim = claim_of(hypothesis, 0.0, args.lower_is_better)
    p = np.maximum(p, 1.0 / (args.n_resamples + 1))
    if units is not None:
        p = np.maximum(p, np.exp2(-np.asarray(units, dtype=np.float64)))
    if defined is not None:
        p = np.where(np.asarray(defined, dtype=bool), p, 1.0)
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


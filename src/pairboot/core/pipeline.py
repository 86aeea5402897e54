"""The pipeline every in-memory comparison runs on its checked options: build the design,
draw the sums, set up the estimands (:func:`resample`, giving a :class:`Run`), then read
the answer and its notes off the run (:func:`compare_result` for two systems;
:func:`pairboot.core.family.family_result` for a family).  The Poisson parts finish through
:func:`make_run` and :func:`compare_result` too."""

from __future__ import annotations

import dataclasses
import importlib.util
import math
import warnings as _warnings
from dataclasses import dataclass

import numpy as np

from pairboot._version import __version__
from pairboot.core.design import Design, build_design, derived_seed
from pairboot.core.diagnostics import (
    design_notes,
    empty_draws,
    interval_notes,
    minimum_detectable,
    pairing_effect,
    too_few_units,
    undefined_notes,
    zero_one_notes,
)
from pairboot.core.estimands import Estimands, Estimate, observed_sums
from pairboot.core.items import items_summary
from pairboot.core.paired_tests import paired_test
from pairboot.core.scales import scale_notes, score_ranges
from pairboot.core.score import ScoreMethod, score_method
from pairboot.core.skew import skew_notes
from pairboot.core.studentized import with_cross_products
from pairboot.engine import resample_sums
from pairboot.errors import DegenerateDataWarning, InputError, PairbootWarning
from pairboot.options import Arguments, Data
from pairboot.results.compare import CompareResult, ConfidenceInterval, StratumResult, SystemScore
from pairboot.stats.hypotheses import claim_p_values, interval_alpha, read_test, snap_interval
from pairboot.stats.intervals import bounds, monte_carlo_error, normal_quantile, p_value

_SLOW_DRAWS = 50_000_000  # draws above which the numpy kernel takes seconds


def compare_items(a, b, args: Arguments, data: Data, *, stacklevel: int = 2,
                  top_items: int | None = None) -> CompareResult:
    """Two systems of one run each, B minus A: :func:`resample` then
    :func:`compare_result`; ``top_items`` (None: no items summary) the largest
    differences kept each way."""
    run = resample((a, b), args, dataclasses.replace(data, names=("a", "b"), display=("A", "B")),
                   keep_items=top_items is not None)
    return compare_result(run, stacklevel=stacklevel + 1, top_items=top_items)


def compare_result(run: Run, *, stacklevel: int = 2,
                   top_items: int | None = None) -> CompareResult:
    """compare()'s result read off a :class:`Run` of two systems (B minus A); its notes
    are issued as warnings ``stacklevel`` frames up.  The items behind the number
    (:mod:`pairboot.core.items`) when the design kept them and ``top_items`` is given
    (parts have no items in one place: None)."""
    args, design, core, notes = run.args, run.design, run.core, run.notes
    coef, combined = run.coef, run.combined
    alpha = 1.0 - args.confidence_level
    bca = args.method == "bca"
    diff = core.estimate(B_MINUS_A, coef, bca=bca, combined=combined)
    score_a = core.estimate(0, coef, bca=bca, combined=combined)
    score_b = core.estimate(1, coef, bca=bca, combined=combined)
    empty = empty_draws(core, args)
    notes += undefined_notes(core, empty)

    score = run.score
    if score is not None:  # (closed forms on the 2 x 2 table: no Monte Carlo error)
        p_at = score.p_value
        (low, high), p, parts = read_test(
            args.hypothesis, args.margin, args.alternative, alpha, score.interval,
            p_at, args.lower_is_better)
        mc = (0.0, 0.0)
    else:
        def p_at(sides, null):
            return p_value(args.method, diff.boot, sides, null)

        (low, high), p, parts = read_test(
            args.hypothesis, args.margin, args.alternative, alpha,
            lambda at, sides: bounds(args.method, diff.boot, at, sides),
            p_at, args.lower_is_better, tol=diff.boot.tolerance)
        mc = monte_carlo_error(args.method, diff.boot,
                               interval_alpha(args.hypothesis, alpha), args.alternative)
        notes += interval_notes(diff, design, args, (low, high), mc,
                                dict(zip(core.names, (score_a, score_b))), empty)
    notes += zero_one_notes(design, args, core.names)
    # (design_notes, or the note on lost digits, said why not)
    defined = too_few_units(design, core.names) is None and not diff.digits_lost
    # (the score interval needs no resample: defined at any n)
    claims = claim_p_values(args.hypothesis, args.margin, args.alternative, p_at,
                            args.lower_is_better)
    # every resample gives B - A = 0 (the systems score the same on every unit): a point
    # interval, which says nothing of how far apart they could be -- no margin's test
    point = (score is None and defined and args.hypothesis != "difference"
             and diff.boot.sd == 0.0 and diff.boot.estimate == 0.0)
    if point:
        notes.append((DegenerateDataWarning, POINT_AT_ZERO))
    if score is None and defined:  # (skewed differences at this n: coverage below level)
        notes += skew_notes(core, [("", B_MINUS_A, coef, combined, None)], args)
    if score is None and (not defined or point or math.isnan(low) or math.isnan(high)):
        # (an undefined interval has no p-value that inverts it, and no Monte Carlo error)
        p = math.nan
        claims = tuple((b, math.nan) for b, _ in claims)
        mc = (math.nan, math.nan)
        parts = None if parts is None else (math.nan, math.nan)
        if not defined or point:
            low = high = math.nan

    strata_results = ()
    if design.strata_names is not None:
        strata_results = tuple(
            stratum_result(core, design, h, args.method, alpha, bca, args.alternative)
            for h in range(len(design.strata_names))
        )

    estimate = diff.boot.estimate
    se = diff.boot.sd if defined else math.nan  # (no spread to speak of: said why)
    mde = minimum_detectable(se, alpha, args.alternative)
    if score is not None and mde is not None:  # (the score interval's own spread)
        s_low, s_high = score.interval(alpha)
        mde = minimum_detectable((s_high - s_low) / (2.0 * normal_quantile(1.0 - alpha / 2.0)),
                                 alpha, args.alternative)
    r, gain = (pairing_effect(score_a.replicates, score_b.replicates, diff.replicates)
               if args.paired and defined else (None, None))

    return compare_answer(
        run, notes, stacklevel=stacklevel, estimate=estimate, interval=(low, high), se=se,
        p=p, boot=diff.replicates,
        scores=(system_score(score_a, args.method, alpha, defined, score, 0),
                system_score(score_b, args.method, alpha, defined, score, 1)),
        strata=strata_results, mc=mc, p_values=parts, mde=mde, claims=claims,
        correlation=r, pairing_gain=gain, test=run.test,
        items_summary=None if design.items is None or top_items is None else items_summary(
            design.items, top=top_items, group_weighting=args.group_weighting))


def compare_answer(run: Run, notes, *, stacklevel: int, estimate: float, interval, se: float,
                   p: float, boot, scores, strata, mc, p_values, mde, claims,
                   method: str | None = None, metric: str | None = None, runs=None,
                   correlation=None, pairing_gain=None, test=None, items_summary=None
                   ) -> CompareResult:
    """The one assembly of compare()'s answer, for the bootstrap (:func:`compare_result`)
    and the runs' t interval alike: what was read off ``run`` (the interval, its p-value
    and claims, the systems' ``scores``, the strata), what ran (``run``'s options and
    design; ``method`` and ``metric`` where they are not the run's own); ``notes`` are
    issued as warnings ``stacklevel`` frames up."""
    args, design = run.args, run.design
    for category, text in notes:
        _warnings.warn(text, category, stacklevel=stacklevel + 1)
    return CompareResult(
        estimate=estimate, confidence_interval=ConfidenceInterval(*interval),
        confidence_level=args.confidence_level,
        method=args.method if method is None else method, standard_error=se, p_value=p,
        bootstrap_distribution=boot, score_a=scores[0], score_b=scores[1],
        n_items=design.n_items, n_groups=design.n_groups,
        n_strata=len(design.strata_names) if design.strata_names is not None else None,
        n_resamples=args.n_resamples, seed=run.seed,
        warnings=tuple(text for _, text in notes),
        metric=design.metric.name if metric is None else metric, paired=args.paired,
        group_weighting=args.group_weighting if design.n_groups is not None else None,
        strata=strata, monte_carlo_error=ConfidenceInterval(*mc), engine=run.engine,
        version=__version__, resampling=args.resampling, runs=runs,
        alternative=args.alternative, hypothesis=args.hypothesis, margin=args.margin,
        lower_is_better=args.lower_is_better, p_values=p_values, minimum_detectable=mde,
        correlation=correlation, pairing_gain=pairing_gain, test=test,
        items_summary=items_summary, claim_p_values=claims,
    )


POINT_AT_ZERO = (
    "every resample gives B - A = 0: a margin's test cannot be read off a point interval "
    "(it would show any margin, yet says nothing of how far apart the systems could be), "
    "so the interval and p-value are undefined (NaN)")
"""Why a margin's test is undefined when the bootstrap has no spread at 0."""

B_MINUS_A = (0, 1)
"""compare()'s contrast: system B (1) minus system A (0)."""


@dataclass(slots=True, eq=False)
class Run:
    """Systems resampled once: what compare() and compare_many() read their answers off.

    ``coef`` are the strata's coefficients and ``combined`` says how they combine: a
    mean combines the strata's means with the population weights (the spec's rule); a
    pooled metric is computed once on the statistics reweighted to the population."""

    args: Arguments
    design: Design
    seed: int
    engine: str
    core: Estimands
    notes: list
    coef: np.ndarray
    combined: bool
    test: object | None = None
    """The test ``args.test`` asks for, read off the design before the resampling (a
    :class:`pairboot.results.compare.TestResult`; for a family of more than two systems, the
    :class:`pairboot.core.westfall_young.PermutationNull` its rows are read off)."""
    score: ScoreMethod | None = None
    """``method="score"``'s closed forms on the 2 x 2 table (read off the design before
    the resampling), else None."""


def resample(systems, args: Arguments, data: Data, *, family: bool = False,
             keep_items: bool = False) -> Run:
    """Build the design of ``systems`` (named ``data.names``, and in messages
    ``data.display``), draw the resamples (seed derived when none is given) and set up
    the estimands.  ``family``: the permutation test relabels all the systems for a
    family's rows (else it swaps two systems' for compare()).  ``keep_items``: the
    design keeps the items' scores (:attr:`Design.items`)."""
    names = tuple(data.names)
    design = design_of(systems, args, data, keep_items=keep_items)
    test = paired_test(design, args)  # (refused, when it cannot run, before the draws)
    score = score_method(design, args, lambda: build_design(
        systems, names=names, metric=data.metric, paired=True, groups=None,
        group_weighting="items", strata=None, strata_weights=None, ids=data.ids,
        poisson=args.resampling == "poisson"))
    seed = args.seed if args.seed is not None else derived_seed(design, args)
    if args.test == "permutation":  # (its swaps are keyed by the units, as Poisson's)
        from pairboot.core.permutation import permutation_test  # (on first use: a test's
        from pairboot.core.westfall_young import permutation_null  # modules and kernels)

        keyed = design if args.resampling == "poisson" or not args.paired else build_design(
            systems, names=names, metric=data.metric, paired=args.paired, groups=data.groups,
            group_weighting=args.group_weighting, strata=data.strata,
            strata_weights=data.strata_weights, ids=data.ids, poisson=True)
        # (its own seed, from the keyed design when none is given: the same swaps for
        # any order of the items)
        own = args.seed if args.seed is not None else derived_seed(keyed, args)
        test = (permutation_null(keyed, args, own) if family
                else permutation_test(keyed, args, own))
    plan, cross = design.plan, None
    if args.method == "studentized":
        plan, cross = with_cross_products(design.plan)
    sums, engine = resample_sums(
        plan, args.n_resamples, seed, scheme=args.resampling, backend=args.backend,
        progress=args.progress,
    )
    core = Estimands(design, sums, observed_sums(plan), cross, names=data.display)
    run = dataclasses.replace(make_run(args, design, seed, engine, core), test=test,
                              score=score)
    draws = args.n_resamples * len(plan.x)
    slow = "numpy" in engine and args.backend == "auto" and draws > _SLOW_DRAWS
    if slow and importlib.util.find_spec("numba") is None:  # (numpy may be the engine's choice)
        run.notes.append((
            PairbootWarning,
            "numba is not installed, so the pure-numpy kernel ran (several times slower, "
            'same draws); for the fast path: pip install "pairboot[fast]"',
        ))
    return run


def design_of(systems, args: Arguments, data: Data, *, keep_items: bool = False) -> Design:
    """The design :func:`resample` draws from (its margin checked), for a result that
    reads the design but draws nothing (compare()'s fixed-suite interval): the same
    design, so the same derived seed."""
    design = build_design(
        systems, names=tuple(data.names), metric=data.metric, paired=args.paired,
        groups=data.groups, group_weighting=args.group_weighting, strata=data.strata,
        strata_weights=data.strata_weights, ids=data.ids,
        poisson=args.resampling == "poisson", keep_items=keep_items,
    )
    check_margin(args.margin, design)
    return design


def check_margin(margin: float | None, design: Design, ranges=None) -> None:
    """Refuse a margin no difference of the metric can reach: beyond the span of the
    units' scores for a mean (``ranges``: each system's, when the design has no units:
    parts), beyond a bounded metric's range (:attr:`pairboot.Metric.span`: accuracy,
    F1: 1; BLEU: 100); such a margin makes every test pass or fail whatever the data."""
    if margin is None:
        return
    ranges = score_ranges(design) if ranges is None else ranges
    if ranges is not None:
        span = max(h for _, h in ranges) - min(lo for lo, _ in ranges)
        what = f"the scores' range ({span:g})"
    elif design.metric.span is not None:
        span = design.metric.span
        what = f"{design.metric.name}'s range ({span:g})"
    else:
        return
    if margin > span:
        raise InputError(f"`margin` {margin:g} is larger than {what}: no difference "
                         "between the systems can reach it", param="margin")


def make_run(args: Arguments, design: Design, seed: int, engine: str, core: Estimands) -> Run:
    """A :class:`Run` of estimands already set up: the design's notes, and how the
    strata combine."""
    notes = design_notes(design, args, core.names, empty_draws(core, args))
    ranges = score_ranges(design)
    if ranges is not None:
        notes += scale_notes(zip(core.names, ranges), "scores" if design.n_groups is None
                             else "groups' mean scores")
    coef, combined = design.combination()
    return Run(args, design, seed, engine, core, notes, coef, combined)


def system_score(e: Estimate, method: str, alpha: float, defined: bool = True,
                 score: ScoreMethod | None = None, system: int = 0) -> SystemScore:
    """A system's own value and interval (NaN when there are too few units for any:
    ``defined`` False); with the score method, its Wilson interval."""
    if score is not None:
        low, high = score.system_interval(system, alpha)
    else:
        low, high = bounds(method, e.boot, alpha) if defined else (math.nan, math.nan)
    return SystemScore(e.boot.estimate, ConfidenceInterval(low, high), e.boot.sd)


def stratum_result(core: Estimands, design: Design, h: int, method, alpha, bca,
                   alternative: str = "two-sided"):
    """The difference within stratum ``h``, and each system's own value there, on the
    same resamples."""
    w = np.zeros(len(design.weights))
    w[h] = 1.0
    e = core.estimate(B_MINUS_A, w, bca=bca, combined=False)
    defined = too_few_units(design, core.names, h) is None
    low, high = (snap_interval(bounds(method, e.boot, alpha, alternative), (0.0,),
                               e.boot.tolerance) if defined else (math.nan, math.nan))
    p = (p_value(method, e.boot, alternative)
         if defined and not (math.isnan(low) or math.isnan(high)) else math.nan)
    return StratumResult(
        name=design.strata_names[h],
        weight=float(design.weights[h]),
        n_items=int(design.items_per_stratum[h]),
        n_groups=int(design.units_per_stratum[h]) if design.n_groups is not None else None,
        estimate=e.boot.estimate,
        confidence_interval=ConfidenceInterval(low, high),
        standard_error=e.boot.sd,
        p_value=p,
        score_a=stratum_score(core, 0, w, method, alpha, bca, defined),
        score_b=stratum_score(core, 1, w, method, alpha, bca, defined),
    )


def stratum_score(core: Estimands, system: int, w: np.ndarray, method, alpha, bca,
                   defined: bool = True) -> SystemScore:
    """A system's own value and interval within one stratum (NaN where its metric is
    undefined on the stratum's data: a stratum with no predicted positive has no
    precision, and that is no error)."""
    est = float(core.value(system, w, False, observed=True)[0])
    if not math.isfinite(est):
        nan = math.nan
        return SystemScore(est, ConfidenceInterval(nan, nan), nan)
    e = core.estimate(system, w, bca=bca, combined=False, count=False)
    return system_score(e, method, alpha, defined)

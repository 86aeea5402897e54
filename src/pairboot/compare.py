"""compare(): one system against another on the same test set, with a bootstrap interval."""

from __future__ import annotations

import importlib.util
import math
import warnings as _warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pairboot._version import __version__
from pairboot.design import Arguments, Design, build_design, check_arguments, derived_seed
from pairboot.diagnostics import (
    design_notes,
    empty_draws,
    interval_notes,
    scale_notes,
    score_ranges,
    too_few_units,
    undefined_notes,
    units_needed,
)
from pairboot.engine import resample_sums
from pairboot.errors import InputError, PairbootWarning
from pairboot.estimands import Estimands, Estimate, observed_sums
from pairboot.intervals import bounds, monte_carlo_error, p_value
from pairboot.metrics import Metric
from pairboot.pairing import check_indexes
from pairboot.progress import Progress
from pairboot.result import CompareResult, ConfidenceInterval, StratumResult, SystemScore
from pairboot.studentized import with_cross_products

_SLOW_DRAWS = 50_000_000  # draws above which the numpy kernel takes seconds


def compare(
    a,
    b,
    *,
    paired: bool = True,
    groups=None,
    group_weighting: str = "items",
    strata=None,
    strata_weights=None,
    metric: str | Metric = "mean",
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    method: str = "percentile",
    seed: int | str | None = None,
    resampling: str = "classic",
    ids=None,
    runs: str | None = None,
    paired_runs: bool = False,
    backend: str = "auto",
    progress: Callable[[int], None] | Progress | None = None,
) -> CompareResult:
    """Bootstrap confidence interval for the difference ``metric(b) - metric(a)``.

    The paired bootstrap of the spec: resample the test items (or whole groups, within
    strata) with replacement, with the *same* draws for both systems, recompute the
    metric of each system on every resample, and read the interval off the resampled
    differences.

    Parameters
    ----------
    a, b : array_like
        Per-item scores of systems A and B, paired by position: item ``i`` is the
        ``i``-th value of each, in the order passed.  1-D (one score per item, for
        ``metric="mean"``) or 2-D (items x sufficient statistics, e.g. the ``tp, fp,
        fn`` columns for ``metric="f1"``).  Lists, numpy arrays and pandas or polars
        Series/DataFrames are accepted; a DataFrame whose columns carry the metric's
        statistic names is read by name (other columns are left out), any other in
        column order.  A pandas index never re-pairs items: inputs (``groups``,
        ``strata`` and ``ids`` too) whose indexes hold the same labels at other
        positions are refused; pass ``b.reindex(a.index)`` to pair by label, or
        ``.reset_index(drop=True)`` to pair by position.  Two DataFrames with an id
        column are joined on it with ``ids="id"``; without ``ids``, a column both
        carry besides the scores that shows their rows are other items (ids or
        questions in another order) is refused, as for two files.
    paired : bool, default True
        ``False`` draws A's and B's items independently (the unpaired bootstrap, for
        contrast; then ``a`` and ``b`` may have different lengths).
    groups : array_like, optional
        One group label per item (document, conversation, user...).  Whole groups are
        resampled (the cluster bootstrap): items of a group are not independent.  A
        pandas ``Categorical`` (or category Series) is read as its labels, without a
        Python object per item.
    group_weighting : {"items", "groups"}
        With ``groups``: ``"items"`` estimates the mean over items (each drawn group
        carries the sum of its items' statistics and its item count); ``"groups"`` the
        mean of the group means (``metric="mean"`` only).  They differ when group sizes
        differ.
    strata : array_like, optional
        One stratum label per item (as for ``groups``): resampling is done within each
        stratum (groups kept whole inside their stratum) and the stratum differences are
        combined with ``strata_weights``.
    strata_weights : mapping, optional
        Population weight of every stratum (normalised).  Default: the sample shares,
        which reproduce the plain estimate.
    metric : str or Metric, default "mean"
        ``"mean"``, ``"ratio"``, ``"accuracy"`` or another built-in name (see
        :func:`pairboot.builtin_metrics`), or a :class:`pairboot.Metric`.  The metric is
        recomputed on every resample from the summed statistics.
    n_resamples : int, default 10_000
    confidence_level : float, default 0.95
    method : {"percentile", "basic", "normal", "bca", "studentized"}
        ``percentile`` is the spec's.  ``bca`` corrects bias and skewness (acceleration
        from the jackknife over units); ``studentized`` is the bootstrap-t with a
        delta-method standard error per resample; both help for skewed or bounded
        metrics and small samples.
    seed : int or "random", optional
        Non-negative.  Without one, the seed is derived from a hash of the data and the
        options, so the same inputs give the same answer on every run; ``"random"``
        draws a fresh one.  Either way it is reported as ``result.seed``.  The same seed
        gives the same answer whatever the machine's thread count.
    resampling : {"classic", "poisson"}
        ``"classic"`` draws ``n`` units with replacement (the spec's bootstrap).
        ``"poisson"`` gives every unit an independent Poisson(1) weight that depends only
        on the seed, the unit's key and the replicate (Chamandy et al. 2012): the same
        answer for any order of the items, and what :mod:`pairboot.dask` and files
        larger than memory compute.  Its intervals agree with the classic ones within
        half a point of coverage from 50 units per stratum (docs/poisson.md; a warning
        says when there are fewer).
    ids : array_like or str, optional
        One id per item (text or integers; no two alike): the keys of the Poisson
        weights (default: the items' positions).  With ``groups``, a group's key is its
        label.  With ``"classic"`` they are only checked.  A column name: ``a`` and
        ``b`` are DataFrames holding that column, and B's rows are joined to A's on it
        (each id once in each, the same ids in both), as the command line's ``--id``;
        ``groups`` and ``strata`` are then in A's row order.
    runs : {None, "seeds", "samples"}
        Several runs per system: ``a`` and ``b`` are items x runs (the two may have
        different numbers of runs).  ``"seeds"``: separate training (or evaluation)
        runs that scored every item; the interval covers the run-to-run variation too
        (a t interval on the two-way variance, Satterthwaite's degrees of freedom).
        ``"samples"``: sampled generations per item (NaN where an item has fewer); the
        items' mean scores are compared.  ``result.runs`` holds the variance
        components and ``result.projection(n_items=, n_runs=)`` what more items or runs
        would give.  Pooled metrics take items x runs x statistics; with one run each, exactly
        the plain comparison.
    paired_runs : bool, default False
        With ``runs="seeds"``: run r of A and run r of B share their seed (or data
        order), so the run effect of the difference is what varies.
    backend : {"auto", "numba", "numpy"}
        The resampling kernel; ``auto`` uses numba when it is installed and the job is
        large enough to repay its start-up (a deterministic rule on the job's size).
        Both draw the same items; their sums differ only by rounding.
    progress : callable or Progress, optional
        Called as ``progress(done)`` with the number of finished resamples.  A
        :class:`pairboot.Progress` is also told, by its ``compiling()``, when numba is
        about to compile its kernel (the first large run after installing: about 10 s).

    Returns
    -------
    CompareResult

    Examples
    --------
    >>> import pairboot
    >>> a = [0.61, 0.42, 0.55, 0.70, 0.38, 0.49, 0.66, 0.58] * 5
    >>> b = [0.66, 0.45, 0.57, 0.74, 0.37, 0.55, 0.69, 0.61] * 5
    >>> res = pairboot.compare(a, b, seed=1)
    >>> round(res.estimate, 5)
    0.03125
    >>> res.excludes_zero
    True
    """
    if runs is not None or paired_runs:
        from pairboot.multirun import compare_runs  # noqa: PLC0415

        if runs is None:
            raise InputError("`paired_runs` needs `runs='seeds'`", param="paired_runs")
        check_indexes([("a", a), ("b", b)], [("groups", groups), ("strata", strata),
                                             ("ids", ids)])
        return compare_runs(
            a, b, runs=runs, paired_runs=bool(paired_runs), groups=groups, strata=strata,
            metric=metric, n_resamples=n_resamples, confidence_level=confidence_level,
            method=method, seed=seed, paired=paired, group_weighting=group_weighting,
            strata_weights=strata_weights, resampling=resampling, ids=ids,
            backend=backend, progress=progress)
    run = resample(
        (a, b), names=("a", "b"), display=("A", "B"), paired=paired, groups=groups,
        group_weighting=group_weighting, strata=strata, strata_weights=strata_weights,
        metric=metric, n_resamples=n_resamples, confidence_level=confidence_level,
        method=method, seed=seed, backend=backend, progress=progress,
        resampling=resampling, ids=ids,
    )
    return compare_result(run, stacklevel=3)


def compare_result(run: Run, *, stacklevel: int = 2) -> CompareResult:
    """compare()'s result read off a :class:`Run` of two systems (B minus A); its notes
    are issued as warnings ``stacklevel`` frames up."""
    args, design, core, notes = run.args, run.design, run.core, run.notes
    seed, engine, coef, combined = run.seed, run.engine, run.coef, run.combined
    alpha = 1.0 - args.confidence_level
    bca = args.method == "bca"
    diff = core.estimate(_B_MINUS_A, coef, bca=bca, combined=combined)
    score_a = core.estimate(0, coef, bca=bca, combined=combined)
    score_b = core.estimate(1, coef, bca=bca, combined=combined)
    empty = empty_draws(core, args)
    notes += undefined_notes(core, empty)

    low, high = bounds(args.method, diff.boot, alpha)
    p = p_value(args.method, diff.boot)
    mc = monte_carlo_error(args.method, diff.boot, alpha)
    notes += interval_notes(diff, design, args, (low, high), mc,
                            dict(zip(core.names, (score_a, score_b))), empty)
    # (design_notes, or the note on lost digits, said why not)
    defined = too_few_units(design, core.names) is None and not diff.digits_lost
    if not defined:
        low = high = p = math.nan
        mc = (math.nan, math.nan)
    elif math.isnan(low) or math.isnan(high):
        # (an undefined interval has no p-value that inverts it, and no Monte Carlo error)
        p = math.nan
        mc = (math.nan, math.nan)

    strata_results = ()
    if design.strata_names is not None:
        strata_results = tuple(
            _stratum_result(core, design, h, args.method, alpha, bca)
            for h in range(len(design.strata_names))
        )

    estimate = diff.boot.estimate
    se = diff.boot.sd if defined else math.nan  # (no spread to speak of: said why)
    excludes = low > 0 or high < 0
    items_needed, groups_needed = (None, None) if excludes else units_needed(
        design, estimate, se, alpha)

    for category, text in notes:
        _warnings.warn(text, category, stacklevel=stacklevel)

    return CompareResult(
        estimate=estimate,
        confidence_interval=ConfidenceInterval(low, high),
        confidence_level=args.confidence_level,
        method=args.method,
        standard_error=se,
        p_value=p,
        bootstrap_distribution=diff.replicates,
        score_a=system_score(score_a, args.method, alpha, defined),
        score_b=system_score(score_b, args.method, alpha, defined),
        n_items=design.n_items,
        n_groups=design.n_groups,
        n_strata=len(design.strata_names) if design.strata_names is not None else None,
        n_resamples=args.n_resamples,
        seed=seed,
        warnings=tuple(text for _, text in notes),
        metric=design.metric.name,
        paired=args.paired,
        group_weighting=args.group_weighting if design.n_groups is not None else None,
        strata=strata_results,
        monte_carlo_error=ConfidenceInterval(*mc),
        items_needed=items_needed,
        groups_needed=groups_needed,
        engine=engine,
        version=__version__,
        resampling=args.resampling,
    )


_B_MINUS_A = (0, 1)
"""compare()'s contrast: system B (1) minus system A (0)."""


@dataclass(frozen=True, slots=True)
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


def resample(systems, *, names, display=None, paired, groups, group_weighting, strata,
             strata_weights, metric, n_resamples, confidence_level, method, seed, backend,
             progress, resampling="classic", ids=None) -> Run:
    """Check the arguments, build the design of ``systems``, draw the resamples (seed
    derived when none is given) and set up the estimands; ``display`` names the systems
    in messages (default ``names``)."""
    args = check_arguments(
        paired=paired, group_weighting=group_weighting, n_resamples=n_resamples,
        confidence_level=confidence_level, method=method, seed=seed, backend=backend,
        resampling=resampling,
    )
    design = build_design(
        systems, names=tuple(names), metric=metric, paired=args.paired, groups=groups,
        group_weighting=args.group_weighting, strata=strata, strata_weights=strata_weights,
        ids=ids, poisson=args.resampling == "poisson",
    )
    seed = args.seed if args.seed is not None else derived_seed(design, args)
    plan, cross = design.plan, None
    if args.method == "studentized":
        plan, cross = with_cross_products(design.plan)
    sums, engine = resample_sums(
        plan, args.n_resamples, seed, scheme=args.resampling, backend=args.backend,
        progress=progress,
    )
    core = Estimands(design, sums, observed_sums(plan), cross, names=display)
    run = make_run(args, design, seed, engine, core)
    draws = args.n_resamples * len(plan.x)
    slow = "numpy" in engine and args.backend == "auto" and draws > _SLOW_DRAWS
    if slow and importlib.util.find_spec("numba") is None:  # (numpy may be the engine's choice)
        run.notes.append((
            PairbootWarning,
            "numba is not installed, so the pure-numpy kernel ran (several times slower, "
            'same draws); for the fast path: pip install "pairboot[fast]"',
        ))
    return run


def make_run(args: Arguments, design: Design, seed: int, engine: str, core: Estimands) -> Run:
    """A :class:`Run` of estimands already set up: the design's notes, and how the
    strata combine."""
    notes = design_notes(design, args, core.names, empty_draws(core, args))
    ranges = score_ranges(design)
    if ranges is not None:
        notes += scale_notes(zip(core.names, ranges), "scores" if design.n_groups is None
                             else "groups' mean scores")
    combined = design.n_strata > 1 and not design.metric.mean_like
    coef = design.weights / design.shares if combined else design.weights
    return Run(args, design, seed, engine, core, notes, coef, combined)


def system_score(e: Estimate, method: str, alpha: float, defined: bool = True
                 ) -> SystemScore:
    """A system's own value and interval (NaN when there are too few units for any:
    ``defined`` False)."""
    low, high = bounds(method, e.boot, alpha) if defined else (math.nan, math.nan)
    return SystemScore(e.boot.estimate, ConfidenceInterval(low, high), e.boot.sd)


def _stratum_result(core: Estimands, design: Design, h: int, method, alpha, bca):
    """The difference within stratum ``h``, and each system's own value there, on the
    same resamples."""
    w = np.zeros(len(design.weights))
    w[h] = 1.0
    e = core.estimate(_B_MINUS_A, w, bca=bca, combined=False)
    defined = too_few_units(design, core.names, h) is None
    low, high = bounds(method, e.boot, alpha) if defined else (math.nan, math.nan)
    p = (p_value(method, e.boot) if defined and not (math.isnan(low) or math.isnan(high))
         else math.nan)
    return StratumResult(
        name=design.strata_names[h],
        weight=float(design.weights[h]),
        n_items=int(design.items_per_stratum[h]),
        n_groups=int(design.units_per_stratum[h]) if design.n_groups is not None else None,
        estimate=e.boot.estimate,
        confidence_interval=ConfidenceInterval(low, high),
        standard_error=e.boot.sd,
        p_value=p,
        score_a=_stratum_score(core, 0, w, method, alpha, bca, defined),
        score_b=_stratum_score(core, 1, w, method, alpha, bca, defined),
    )


def _stratum_score(core: Estimands, system: int, w: np.ndarray, method, alpha, bca,
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

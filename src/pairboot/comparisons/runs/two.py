"""compare() with several runs per system (``runs="seeds"`` or ``"samples"``).

The analysis (the variance ``V``, its degrees of freedom, the components, projections) is
:mod:`pairboot.comparisons.runs.analysis`; this module draws the bootstrap and builds the result.
For
``"seeds"`` every run of every system is a column of the items' units, so one draw of
the items serves all of them (the engine's usual path, with its seed and speed); each
replicate then weighs each system's runs by a multinomial draw of its runs (one draw for
both systems under ``paired_runs``), and the replicates are rescaled to ``V``.  For
``"samples"`` the items' mean scores go through :func:`pairboot.compare` unchanged, or,
for a metric of k trials (``"pass^4"``), each item's unbiased estimate of it
(:class:`pairboot.metrics.Trials`).
"""

from __future__ import annotations

import dataclasses
import math
import warnings as _warnings

import numpy as np

from pairboot.comparisons.runs.analysis import (
    ONE_RUN_EACH,
    RunsInfo,
    analyse,
    as_table,
    small_runs_note,
)
from pairboot.comparisons.runs.variance import Layout
from pairboot.core.design import as_floats
from pairboot.core.diagnostics import design_notes
from pairboot.core.pipeline import compare_answer, compare_items, resample
from pairboot.core.scales import scale_notes, table_range
from pairboot.errors import InputError, SmallSampleWarning
from pairboot.metrics import resolve_metric, trials_metric
from pairboot.metrics.base import central_gradient
from pairboot.options import Arguments, Data
from pairboot.results.compare import CompareResult, ConfidenceInterval, StratumResult, SystemScore
from pairboot.stats.hypotheses import claim_p_values, less_tie, read_test, tie_tolerance
from pairboot.stats.tdist import t_quantile

__all__ = ["compare_runs"]

_RUN_STREAM = 0x72756E73  # "runs": SeedSequence spawn key of the run weights


def compare_runs(a, b, args: Arguments, data: Data, *, stacklevel: int = 3,
                 top_items: int | None = None) -> CompareResult:
    """:func:`pairboot.compare` for items x runs tables (see
    :mod:`pairboot.comparisons.runs.analysis`), on checked options; ``top_items``: the
    items listed for a metric of k trials (an item has one estimate then)."""
    runs, paired_runs, metric = args.runs, args.paired_runs, data.metric
    if args.estimand == "suite":
        from pairboot.comparisons.runs.suite import compare_suite

        return compare_suite(a, b, args, data, stacklevel=stacklevel + 1,
                             top_items=top_items)
    trials = trials_metric(metric)
    if trials is not None:
        xa, xb, data = trials_values((a, b), ("a", "b"), trials, args, data)
        return compare_items(xa, xb, args, data, stacklevel=stacklevel + 1,
                             top_items=top_items)
    pooled = not _mean_like(metric) or np.ndim(a) == 3  # (3-D: statistics per item-run)
    if pooled and runs == "samples":
        if paired_runs:
            raise InputError("`paired_runs` is for runs='seeds': samples have no meaning "
                             "across items", param="paired_runs")
        xa, xb = (_sample_means(v, name) for v, name in ((a, "a"), (b, "b")))
        return compare_items(xa, xb, args, data, stacklevel=stacklevel + 1)
    if pooled:
        return _pooled(a, b, args, data, stacklevel=stacklevel + 1)
    ya, yb = as_table(a, "a", runs), as_table(b, "b", runs)
    if runs == "samples":
        if paired_runs:
            raise InputError("`paired_runs` is for runs='seeds': samples have no meaning "
                             "across items", param="paired_runs")
        info = analyse(ya, yb, runs, False, layout_of(len(ya), args, data))
        res = compare_items(np.nanmean(ya, axis=1), np.nanmean(yb, axis=1), args, data,
                            stacklevel=stacklevel + 1)
        return dataclasses.replace(res, runs=info)
    seeds_only(args)
    if ya.shape[1] == 1 and yb.shape[1] == 1 and not paired_runs:
        res = compare_items(ya[:, 0], yb[:, 0], args, data, stacklevel=stacklevel + 1)
        _warnings.warn(ONE_RUN_EACH, SmallSampleWarning, stacklevel=stacklevel)
        return dataclasses.replace(res, warnings=(*res.warnings, ONE_RUN_EACH))
    layout = layout_of(len(ya), args, data)
    info = analyse(ya, yb, runs, paired_runs, layout, alpha=df_alpha(args))
    return _seeds(ya, yb, info, args, data, stacklevel, layout=layout)


def trials_values(tables, names, trials, args: Arguments, data: Data):
    """A metric of k trials (pass^k ...): every system's items x trials table as its
    items' unbiased estimates, and ``data`` with the metric that compares them (their
    mean, named ``"pass^4"``): the rest is compare()'s on per-item scores."""
    if args.runs != "samples":
        raise InputError(f"`metric='{trials.name}'` takes `runs='samples'` (the trials of "
                         f"every item), not `runs='{args.runs}'`", param="metric")
    if args.paired_runs:
        raise InputError("`paired_runs` is for runs='seeds': samples have no meaning "
                         "across items", param="paired_runs")
    values = [trials.values(as_table(t, name, "samples"), name, data.ids)
              for t, name in zip(tables, names)]
    return (*values, dataclasses.replace(data, metric=trials.metric()))


def df_alpha(args: Arguments) -> float:
    """The two-sided alpha whose degrees of freedom the result reports: that of the
    interval (``1 - level``; one-sided, its end is the two-sided one at twice that, as
    is equivalence's ``1 - 2 alpha`` interval)."""
    alpha = 1.0 - args.confidence_level
    two = args.alternative == "two-sided" and args.hypothesis != "equivalence"
    return alpha if two else min(1.0, 2.0 * alpha)


def _mean_like(metric) -> bool:
    """Whether ``metric`` is a mean of one score per item (then runs are items x runs)."""
    try:
        return bool(resolve_metric(metric, 1).mean_like)
    except InputError:  # a metric of several statistics per item
        return False


def seeds_only(args: Arguments) -> None:
    """What runs='seeds' cannot honour: an unpaired comparison, another interval."""
    if not args.paired:
        raise InputError("several runs per system are compared paired (the items' draw is "
                         "shared); `paired=False` is not supported with runs",
                         param="paired")
    if args.method != "percentile":
        raise InputError("with runs='seeds' the interval is a t interval on the two-way "
                         "variance; leave `method` at its default", param="method")


def layout_of(n: int, args: Arguments, data: Data) -> Layout:
    """The runs' layout of ``n`` items: ``data``'s groups and strata."""
    return Layout.of(n, groups=data.groups, group_weighting=args.group_weighting,
                     strata=data.strata,
                     strata_weights=data.strata_weights)


def _statistics_table(values, name: str) -> np.ndarray:
    """A pooled metric's items x runs (or samples) x statistics, as float64."""
    x = as_floats(values, name)
    if x.ndim != 3:
        raise InputError(f"`{name}` must be items x runs x statistics for a pooled "
                         f"metric with runs, got {x.ndim} dimensions (with one score "
                         "per item and run, e.g. 0/1 correctness, leave the metric at "
                         "its default, the mean)", param=name)
    return x


def _sample_means(values, name: str) -> np.ndarray:
    """A pooled metric's items x samples x statistics as every item's mean statistics
    over its samples (NaN for a missing sample): each item weighs the same, as the mean's
    path takes the items' mean scores."""
    x = _statistics_table(values, name)
    if np.isinf(x).any():
        raise InputError(f"`{name}` has a value that is not finite", param=name)
    missing = np.isnan(x).any(axis=2)
    partial = missing & ~np.isnan(x).all(axis=2)
    if partial.any():
        i, j = np.argwhere(partial)[0]
        raise InputError(f"`{name}` item {i}, sample {j} has some statistics missing, not "
                         "all", param=name)
    empty = missing.all(axis=1)
    if empty.any():
        raise InputError(f"`{name}` item {int(np.argmax(empty))} has no sample", param=name)
    return np.nanmean(x, axis=1)


def _run_weights(seed: int, ra: int, rb: int, paired: bool, n_resamples: int):
    """Each replicate's weights of A's and B's runs: multinomial draws of the runs, over
    the number of runs (one draw for both systems when the runs are paired)."""
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(
        seed, spawn_key=(_RUN_STREAM,))))
    wa = rng.multinomial(ra, np.full(ra, 1.0 / ra), size=n_resamples) / ra
    wb = wa if paired else rng.multinomial(rb, np.full(rb, 1.0 / rb), size=n_resamples) / rb
    return wa, wb


def _item_draws(columns, names, metric, args: Arguments, data: Data):
    """One draw of the items (or groups, within strata) for every (system, run) column:
    the engine's usual run (paired, its percentile replicates)."""
    return resample(columns, dataclasses.replace(args, paired=True, method="percentile"),
                    dataclasses.replace(data, names=tuple(names), display=None, metric=metric))


def _seeds(ya, yb, info: RunsInfo, args: Arguments, data: Data, stacklevel, *,
           estimate=None, boot=None, run=None, scores=None, metric="mean",
           layout: Layout | None = None, per_stratum=None) -> CompareResult:
    """compare()'s result for seeds: the t interval on the two-way variance ``info``,
    the item draws' replicates (``boot``, else drawn here) rescaled to its variance."""
    ra, rb = ya.shape[1], yb.shape[1]
    layout = Layout.plain(len(ya)) if layout is None else layout
    if boot is None:
        columns = [ya[:, j] for j in range(ra)] + [yb[:, j] for j in range(rb)]
        names = [f"A{j}" for j in range(ra)] + [f"B{j}" for j in range(rb)]
        run = _item_draws(columns, names, "mean", args, data)
        # (R, runs): every run's mean over each replicate's draw of the items
        per_run = np.stack([run.core.value(j, run.coef, run.combined)
                            for j in range(ra + rb)], axis=1)
        wa, wb = _run_weights(run.seed, ra, rb, info.paired_runs, args.n_resamples)
        boot = (per_run[:, ra:] * wb).sum(axis=1) - (per_run[:, :ra] * wa).sum(axis=1)
        estimate = difference(ya, yb, layout)
    args = run.args
    design = run.design
    se = math.sqrt(info.variance)
    spread = boot.std(ddof=1) if len(boot) > 1 else 0.0
    info = dataclasses.replace(info, bootstrap_variance=float(spread * spread))
    rescaled = (np.full_like(boot, estimate) if spread == 0 or se == 0
                else estimate + (boot - boot.mean()) * (se / spread))
    alpha = 1.0 - args.confidence_level
    tol = tie_tolerance(estimate, se)  # (on a boundary but for rounding: on it)

    def p_at(sides, null):
        return info.p_value(less_tie(estimate - null, tol), sides)

    (low, high), p, parts = read_test(
        args.hypothesis, args.margin, args.alternative, alpha,
        lambda at, sides: info.interval(estimate, at, sides), p_at,
        args.lower_is_better, tol=tol)
    claims = tuple((b, float(min(1.0, q))) for b, q in claim_p_values(
        args.hypothesis, args.margin, args.alternative, p_at, args.lower_is_better))
    notes = list(design_notes(run.design, args, ("A", "B"))) + small_runs_note(info)
    if metric == "mean":  # (a pooled metric's tables are its linearised values)
        notes += scale_notes((("A", table_range(ya)), ("B", table_range(yb))))
    # the smallest difference detected with 80% power at this size, with t quantiles at
    # the present df: the runs' df do not grow with the items, so z quantiles would
    # promise too much with few seeds
    df = info.degrees_of_freedom
    tail = alpha / 2.0 if args.alternative == "two-sided" else alpha
    mde = ((t_quantile(1.0 - tail, df) + t_quantile(0.8, df)) * se
           if math.isfinite(se) and se > 0 else None)
    return compare_answer(
        run, notes, stacklevel=stacklevel, estimate=estimate, interval=(low, high),
        se=se, p=float(min(1.0, p)), boot=rescaled,
        scores=tuple(runs_score(y, t_for=alpha, at=scores[s] if scores else None,
                                layout=layout) for s, y in enumerate((ya, yb))),
        strata=_strata_results(per_stratum or _mean_tables(ya, yb), info, design, layout,
                               args, data, alpha),
        mc=(0.0, 0.0), p_values=parts, mde=mde, claims=claims, method="t", metric=metric,
        runs=info)


def _mean_tables(ya, yb):
    """A stratum's ``(estimate, a, b, scores)`` for the mean: its rows' tables."""
    def tables(rows, sub: Layout):
        a, b = ya[rows], yb[rows]
        return difference(a, b, sub), a, b, (None, None)
    return tables


def _strata_results(tables_of, info: RunsInfo, design, layout: Layout, args: Arguments,
                    data: Data, alpha: float) -> tuple:
    """Each stratum's difference alone: the same analysis on its items (its groups kept
    whole), a t interval with its own degrees of freedom; ``tables_of(rows, layout)``
    gives the stratum's estimate, tables to analyse and the systems' values."""
    if not layout.stratified:
        return ()
    stratum = layout.unit_stratum[layout.units]
    out = []
    for h, name in enumerate(design.strata_names):
        rows = np.flatnonzero(stratum == h)
        sub = Layout.of(len(rows), groups=None if data.groups is None else layout.units[rows],
                        group_weighting=args.group_weighting)
        estimate, a, b, (at_a, at_b) = tables_of(rows, sub)
        try:
            own = analyse(a, b, "seeds", info.paired_runs, sub, alpha=alpha)
        except InputError:  # one unit: no variance within the stratum
            se, interval, p = math.nan, (math.nan, math.nan), math.nan
        else:
            se = math.sqrt(own.variance)
            side = args.alternative
            interval, p = own.interval(estimate, alpha, side), own.p_value(estimate, side)
        out.append(StratumResult(
            name=name, weight=float(design.weights[h]), n_items=len(rows),
            n_groups=int(design.units_per_stratum[h]) if data.groups is not None else None,
            estimate=estimate, confidence_interval=ConfidenceInterval(*interval),
            standard_error=se, p_value=float(p),
            score_a=runs_score(a, t_for=alpha, at=at_a, layout=sub),
            score_b=runs_score(b, t_for=alpha, at=at_b, layout=sub)))
    return tuple(out)


def runs_score(y: np.ndarray, t_for: float, at: float | None = None,
                  layout: Layout | None = None) -> SystemScore:
    """A system's grand mean (or its pooled metric ``at``, with ``y`` its linearised
    values), with the one-table variance ``(MS_item + MS_run - MS_res) / (n R)`` (its
    design form with groups or strata) and its t interval."""
    layout = Layout.plain(len(y)) if layout is None else layout
    mean = float(layout.estimate(y.mean(axis=1))) if at is None else float(at)
    if layout.degrees_of_freedom < 1:
        return SystemScore(mean, ConfidenceInterval(math.nan, math.nan), math.nan)
    if y.shape[1] > 1:
        info = analyse(np.zeros_like(y), y, "seeds", True, layout, alpha=t_for)
        se, interval = math.sqrt(info.variance), info.interval(mean, t_for)
    else:
        se = math.sqrt(layout.variance(y[:, 0]))
        half = t_quantile(1.0 - t_for / 2.0, layout.degrees_of_freedom) * se
        interval = (mean - half, mean + half)
    return SystemScore(mean, ConfidenceInterval(*interval), se)


def _pooled(a, b, args: Arguments, data: Data, *, stacklevel: int) -> CompareResult:
    """A pooled metric (F1, BLEU, ...) over every item and run: the variance from the
    two-way analysis of its linearised values (:func:`_linearise`), the replicates from
    the metric on the resampled, run-weighted sums (strata reweighted to the population,
    as :func:`pairboot.compare` pools them)."""
    seeds_only(args)
    xa, xb = (_statistics_table(v, name) for v, name in ((a, "a"), (b, "b")))
    for name, x in (("a", xa), ("b", xb)):
        if not np.isfinite(x).all():
            raise InputError(f"`{name}` has a value that is not a finite number", param=name)
    if xa.shape[0] != xb.shape[0] or xa.shape[2] != xb.shape[2]:
        raise InputError(f"`a` and `b` must have the same items and statistics: "
                         f"{xa.shape} and {xb.shape}", param="b")
    m = resolve_metric(data.metric, xa.shape[2])
    layout = layout_of(len(xa), args, data)
    (va, la), (vb, lb) = (_linearise(x, m, layout.weights) for x in (xa, xb))
    info = analyse(la, lb, args.runs, args.paired_runs, layout, alpha=df_alpha(args))
    ra, rb = xa.shape[1], xb.shape[1]
    columns = [xa[:, j, :] for j in range(ra)] + [xb[:, j, :] for j in range(rb)]
    names = [f"A{j}" for j in range(ra)] + [f"B{j}" for j in range(rb)]
    run = _item_draws(columns, names, data.metric, args, data)
    core, k = run.core, run.design.k
    # (R, runs x k): every run's resampled sums, the strata reweighted to the population
    sums = np.einsum("h,bhc->bc", run.coef, core.M) if run.combined else core.M[:, 0, :]
    wa, wb = _run_weights(run.seed, ra, rb, info.paired_runs, args.n_resamples)
    pooled = []
    for w, first, count in ((wa, 0, ra), (wb, ra, rb)):
        per_run = sums[:, first * k:(first + count) * k].reshape(len(sums), count, k)
        pooled.append(m.evaluate((per_run * w[:, :, None]).sum(axis=1))[0])

    def per_stratum(rows, sub: Layout):  # the stratum's own pooled values, linearised
        (sa, ta), (sb, tb) = (_linearise(x[rows], m, sub.weights) for x in (xa, xb))
        return sb - sa, ta, tb, (sa, sb)

    return _seeds(la, lb, info, args, data, stacklevel, estimate=vb - va,
                  boot=pooled[1] - pooled[0], run=run, scores=(va, vb), metric=m.name,
                  layout=layout, per_stratum=per_stratum)


def _linearise(x: np.ndarray, m, weights: np.ndarray) -> tuple[float, np.ndarray]:
    """A pooled metric on items x runs x statistics: its value on the sums of every
    item-run's statistics, item ``i`` weighted ``n w_i`` (1 without strata; the strata
    reweighted to the population), and the linearised values ``L_ir = n R g . x_ir``
    (``g`` the metric's gradient at those sums, by central differences), whose weighted
    mean moves as the metric does."""
    n, r, k = x.shape
    stats = m.per_item(x.reshape(n * r, k)).reshape(n, r, -1)
    total = np.einsum("i,irk->k", weights * n, stats)
    value = float(m.evaluate(total[None])[0][0])
    grad = central_gradient(lambda sums: m.evaluate(sums[None])[0][0], total,
                            range(len(total)), np.abs(stats).mean(axis=(0, 1)) * n * r)
    return value, (stats @ grad) * (n * r)


def difference(ya: np.ndarray, yb: np.ndarray, layout: Layout) -> float:
    """The estimate: B's weighted mean over items and runs less A's."""
    return float(layout.estimate(yb.mean(axis=1) - ya.mean(axis=1)))

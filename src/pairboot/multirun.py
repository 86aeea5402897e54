"""compare() with several runs per system (``runs="seeds"`` or ``"samples"``).

The analysis (the variance ``V``, its degrees of freedom, the components, projections) is
:mod:`pairboot.runs`; this module draws the bootstrap and builds the result.  For
``"seeds"`` every run of every system is a column of the items' units, so one draw of
the items serves all of them (the engine's usual path, with its seed and speed); each
replicate then weighs each system's runs by a multinomial draw of its runs (one draw for
both systems under ``paired_runs``), and the replicates are rescaled to ``V``.  For
``"samples"`` the items' mean scores go through :func:`pairboot.compare` unchanged.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import warnings as _warnings

import numpy as np

from pairboot._version import __version__
from pairboot.compare import compare, resample
from pairboot.design import check_arguments
from pairboot.diagnostics import design_notes
from pairboot.errors import InputError, SmallSampleWarning
from pairboot.intervals import normal_quantile
from pairboot.layout import Layout
from pairboot.metrics import resolve_metric
from pairboot.multiple import max_t
from pairboot.result import CompareResult, ConfidenceInterval, StratumResult, SystemScore
from pairboot.runs import (
    RUNS,
    RunsInfo,
    analyse,
    as_table,
    run_terms,
    small_runs_note,
)
from pairboot.tdist import t_quantile

__all__ = ["compare_runs"]

_RUN_STREAM = 0x72756E73  # "runs": SeedSequence spawn key of the run weights
_MAX_T_STREAM = 0x6D617874  # "maxt": spawn key of a runs family's max-t draws


def compare_runs(a, b, *, runs: str, paired_runs: bool, groups, strata, metric,
                 n_resamples, confidence_level, method, seed, stacklevel: int = 3,
                 **keywords) -> CompareResult:
    """:func:`pairboot.compare` for items x runs tables (see :mod:`pairboot.runs`)."""
    _check(runs, n_resamples, confidence_level, method, seed, keywords)
    pooled = not _mean_like(metric) or np.ndim(a) == 3  # (3-D: statistics per item-run)
    if pooled and runs == "samples":
        if paired_runs:
            raise InputError("`paired_runs` is for runs='seeds': samples have no meaning "
                             "across items", param="paired_runs")
        xa, xb = (_sample_means(v, name) for v, name in ((a, "a"), (b, "b")))
        res = compare(xa, xb, groups=groups, strata=strata, metric=metric,
                      n_resamples=n_resamples, confidence_level=confidence_level,
                      method=method, seed=seed, **keywords)
        return res
    if pooled:
        return _pooled(a, b, runs=runs, paired_runs=paired_runs, groups=groups,
                       strata=strata, metric=metric, n_resamples=n_resamples,
                       confidence_level=confidence_level, method=method, seed=seed,
                       stacklevel=stacklevel + 1, keywords=keywords)
    ya, yb = as_table(a, "a", runs), as_table(b, "b", runs)
    if runs == "samples":
        if paired_runs:
            raise InputError("`paired_runs` is for runs='seeds': samples have no meaning "
                             "across items", param="paired_runs")
        info = analyse(ya, yb, runs, False, _layout(len(ya), groups, strata, keywords))
        res = compare(np.nanmean(ya, axis=1), np.nanmean(yb, axis=1), groups=groups,
                      strata=strata, metric=metric, n_resamples=n_resamples,
                      confidence_level=confidence_level, method=method, seed=seed,
                      **keywords)
        return dataclasses.replace(res, runs=info)
    _seeds_only(method, keywords)
    if ya.shape[1] == 1 and yb.shape[1] == 1 and not paired_runs:
        return compare(ya[:, 0], yb[:, 0], groups=groups, strata=strata, metric=metric,
                       n_resamples=n_resamples, confidence_level=confidence_level,
                       method=method, seed=seed, **keywords)
    layout = _layout(len(ya), groups, strata, keywords)
    info = analyse(ya, yb, runs, paired_runs, layout, alpha=1.0 - float(confidence_level))
    return _seeds(ya, yb, info, n_resamples, confidence_level, seed, stacklevel, keywords,
                  layout=layout, groups=groups, strata=strata)


def _check(runs, n_resamples, confidence_level, method, seed, keywords) -> int | None:
    """The arguments compare() checks, checked before the analysis uses them; the seed
    as an integer (``'random'`` and a ``SeedSequence`` drawn from), or None."""
    if runs not in RUNS:
        raise InputError(f"`runs` must be one of {', '.join(RUNS)} or None, got {runs!r}",
                         param="runs")
    return check_arguments(
        paired=keywords.get("paired", True),
        group_weighting=keywords.get("group_weighting", "items"), n_resamples=n_resamples,
        confidence_level=confidence_level, method=method, seed=seed,
        backend=keywords.get("backend", "auto"),
        resampling=keywords.get("resampling", "classic")).seed


def _mean_like(metric) -> bool:
    """Whether ``metric`` is a mean of one score per item (then runs are items x runs)."""
    try:
        return bool(resolve_metric(metric, 1).mean_like)
    except InputError:  # a metric of several statistics per item
        return False


def _seeds_only(method: str, keywords) -> None:
    """What runs='seeds' cannot honour: an unpaired comparison, another interval."""
    if not keywords.get("paired", True):
        raise InputError("several runs per system are compared paired (the items' draw is "
                         "shared); `paired=False` is not supported with runs",
                         param="paired")
    if method != "percentile":
        raise InputError("with runs='seeds' the interval is a t interval on the two-way "
                         "variance; leave `method` at its default", param="method")


def _layout(n: int, groups, strata, keywords) -> Layout:
    return Layout.of(n, groups=groups, group_weighting=keywords.get("group_weighting",
                                                                     "items"),
                     strata=strata, strata_weights=keywords.get("strata_weights"))


def _sample_means(values, name: str) -> np.ndarray:
    """A pooled metric's items x samples x statistics as every item's mean statistics
    over its samples (NaN for a missing sample): each item weighs the same, as the mean's
    path takes the items' mean scores."""
    x = np.asarray(values.to_numpy() if hasattr(values, "to_numpy") else values,
                   dtype=np.float64)
    if x.ndim != 3:
        raise InputError(f"`{name}` must be items x samples x statistics for a pooled "
                         f"metric with runs, got {x.ndim} dimensions", param=name)
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


def _item_draws(columns, names, metric, n_resamples, confidence_level, seed, keywords,
                groups=None, strata=None):
    """One draw of the items (or groups, within strata) for every (system, run) column:
    the engine's usual run."""
    engine = {k: keywords[k] for k in ("resampling", "ids", "backend", "progress")
              if k in keywords}
    return resample(columns, names=names, paired=True, groups=groups,
                    group_weighting=keywords.get("group_weighting", "items"), strata=strata,
                    strata_weights=keywords.get("strata_weights"), metric=metric,
                    n_resamples=n_resamples, confidence_level=confidence_level,
                    method="percentile", seed=seed, **engine)


def _seeds(ya, yb, info: RunsInfo, n_resamples, confidence_level, seed, stacklevel,
           keywords, *, estimate=None, boot=None, run=None, scores=None,
           metric="mean", layout: Layout | None = None, groups=None,
           strata=None, per_stratum=None) -> CompareResult:
    ra, rb = ya.shape[1], yb.shape[1]
    layout = Layout.plain(len(ya)) if layout is None else layout
    if boot is None:
        columns = [ya[:, j] for j in range(ra)] + [yb[:, j] for j in range(rb)]
        names = [f"A{j}" for j in range(ra)] + [f"B{j}" for j in range(rb)]
        run = _item_draws(columns, names, "mean", n_resamples, confidence_level, seed,
                          keywords, groups, strata)
        # (R, runs): every run's mean over each replicate's draw of the items
        per_run = np.stack([run.core.value(j, run.coef, run.combined)
                            for j in range(ra + rb)], axis=1)
        wa, wb = _run_weights(run.seed, ra, rb, info.paired_runs, n_resamples)
        boot = (per_run[:, ra:] * wb).sum(axis=1) - (per_run[:, :ra] * wa).sum(axis=1)
        estimate = _difference(ya, yb, layout)
    args = run.args
    design = run.design
    se = math.sqrt(info.variance)
    spread = boot.std(ddof=1) if len(boot) > 1 else 0.0
    info = dataclasses.replace(info, bootstrap_variance=float(spread * spread))
    rescaled = (np.full_like(boot, estimate) if spread == 0 or se == 0
                else estimate + (boot - boot.mean()) * (se / spread))
    alpha = 1.0 - args.confidence_level
    low, high = info.interval(estimate, alpha)
    p = info.p_value(estimate)
    notes = list(design_notes(run.design, args, ("A", "B"))) + small_runs_note(info)
    units_needed = None
    if not (low > 0 or high < 0) and estimate != 0:
        # the variance at u units is floor + per_unit / u (items' and residual parts)
        # 80% power with the t quantiles at the present df: the runs' df do not grow
        # with the items, so z quantiles would promise too much with few seeds
        df = info.degrees_of_freedom
        target = (estimate / (t_quantile(1.0 - alpha / 2.0, df) + t_quantile(0.8, df))) ** 2
        floor = info.projection(n_items=10**12)["floor"]
        per_unit = (info.variance - floor) * info.n_items
        if floor < target and per_unit > 0:
            units_needed = max(info.n_items + 1, int(math.ceil(per_unit / (target - floor))))
        elif floor >= target:
            units = "groups" if layout.grouped else "items"
            notes.append((SmallSampleWarning, (
                f"more {units} alone cannot detect a difference this large: the runs' own "
                f"variation (variance floor {floor:.3g}) needs more runs")))
    for category, text in notes:
        _warnings.warn(text, category, stacklevel=stacklevel)
    return CompareResult(
        estimate=estimate, confidence_interval=ConfidenceInterval(low, high),
        confidence_level=args.confidence_level, method="t", standard_error=se,
        p_value=float(min(1.0, p)), bootstrap_distribution=rescaled,
        score_a=_system_score(ya, t_for=alpha, at=scores[0] if scores else None,
                              layout=layout),
        score_b=_system_score(yb, t_for=alpha, at=scores[1] if scores else None,
                              layout=layout),
        n_items=design.n_items, n_groups=design.n_groups,
        n_strata=None if design.strata_names is None else len(design.strata_names),
        n_resamples=args.n_resamples, seed=run.seed,
        warnings=tuple(text for _, text in notes), metric=metric, paired=True,
        group_weighting=args.group_weighting if design.n_groups is not None else None,
        strata=_strata_results(per_stratum or _mean_tables(ya, yb), info, design, layout,
                               groups, keywords, alpha),
        monte_carlo_error=ConfidenceInterval(0.0, 0.0),
        items_needed=(units_needed if units_needed is None or not layout.grouped
                      else int(math.ceil(units_needed * design.n_items / layout.n_units))),
        groups_needed=units_needed if layout.grouped else None, engine=run.engine,
        version=__version__, resampling=args.resampling, runs=info,
    )


def _mean_tables(ya, yb):
    """A stratum's ``(estimate, a, b, scores)`` for the mean: its rows' tables."""
    def tables(rows, sub: Layout):
        a, b = ya[rows], yb[rows]
        return _difference(a, b, sub), a, b, (None, None)
    return tables


def _strata_results(tables_of, info: RunsInfo, design, layout: Layout, groups, keywords,
                    alpha: float) -> tuple:
    """Each stratum's difference alone: the same analysis on its items (its groups kept
    whole), a t interval with its own degrees of freedom; ``tables_of(rows, layout)``
    gives the stratum's estimate, tables to analyse and the systems' values."""
    if not layout.stratified:
        return ()
    stratum = layout.unit_stratum[layout.units]
    out = []
    for h, name in enumerate(design.strata_names):
        rows = np.flatnonzero(stratum == h)
        sub = _layout(len(rows), None if groups is None else layout.units[rows], None,
                      {"group_weighting": keywords.get("group_weighting", "items")})
        estimate, a, b, (at_a, at_b) = tables_of(rows, sub)
        try:
            own = analyse(a, b, "seeds", info.paired_runs, sub, alpha=alpha)
        except InputError:  # one unit: no variance within the stratum
            se, interval, p = math.nan, (math.nan, math.nan), math.nan
        else:
            se = math.sqrt(own.variance)
            interval, p = own.interval(estimate, alpha), own.p_value(estimate)
        out.append(StratumResult(
            name=name, weight=float(design.weights[h]), n_items=len(rows),
            n_groups=int(design.units_per_stratum[h]) if groups is not None else None,
            estimate=estimate, confidence_interval=ConfidenceInterval(*interval),
            standard_error=se, p_value=float(p),
            score_a=_system_score(a, t_for=alpha, at=at_a, layout=sub),
            score_b=_system_score(b, t_for=alpha, at=at_b, layout=sub)))
    return tuple(out)


def _system_score(y: np.ndarray, t_for: float, at: float | None = None,
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


def _pooled(a, b, *, runs, paired_runs, groups, strata, metric, n_resamples,
            confidence_level, method, seed, stacklevel, keywords) -> CompareResult:
    """A pooled metric (F1, BLEU, ...) over every item and run: the variance from the
    two-way analysis of its linearised values (:func:`_linearise`), the replicates from
    the metric on the resampled, run-weighted sums (strata reweighted to the population,
    as :func:`pairboot.compare` pools them)."""
    _seeds_only(method, keywords)
    tables = []
    for name, values in (("a", a), ("b", b)):
        x = np.asarray(values.to_numpy() if hasattr(values, "to_numpy") else values,
                       dtype=np.float64)
        if x.ndim != 3:
            raise InputError(f"`{name}` must be items x runs x statistics for a pooled "
                             f"metric with runs, got {x.ndim} dimensions (with one score "
                             "per item and run, e.g. 0/1 correctness, leave the metric at "
                             "its default, the mean)", param=name)
        if not np.isfinite(x).all():
            raise InputError(f"`{name}` has a value that is not a finite number", param=name)
        tables.append(x)
    xa, xb = tables
    if xa.shape[0] != xb.shape[0] or xa.shape[2] != xb.shape[2]:
        raise InputError(f"`a` and `b` must have the same items and statistics: "
                         f"{xa.shape} and {xb.shape}", param="b")
    m = resolve_metric(metric, xa.shape[2])
    layout = _layout(len(xa), groups, strata, keywords)
    (va, la), (vb, lb) = (_linearise(x, m, layout.weights) for x in (xa, xb))
    info = analyse(la, lb, runs, paired_runs, layout, alpha=1.0 - float(confidence_level))
    ra, rb = xa.shape[1], xb.shape[1]
    columns = [xa[:, j, :] for j in range(ra)] + [xb[:, j, :] for j in range(rb)]
    names = [f"A{j}" for j in range(ra)] + [f"B{j}" for j in range(rb)]
    run = _item_draws(columns, names, metric, n_resamples, confidence_level, seed, keywords,
                      groups, strata)
    core, k = run.core, run.design.k
    # (R, runs x k): every run's resampled sums, the strata reweighted to the population
    sums = np.einsum("h,bhc->bc", run.coef, core.M) if run.combined else core.M[:, 0, :]
    wa, wb = _run_weights(run.seed, ra, rb, info.paired_runs, n_resamples)
    pooled = []
    for w, first, count in ((wa, 0, ra), (wb, ra, rb)):
        per_run = sums[:, first * k:(first + count) * k].reshape(len(sums), count, k)
        pooled.append(m.evaluate((per_run * w[:, :, None]).sum(axis=1))[0])

    def per_stratum(rows, sub: Layout):  # the stratum's own pooled values, linearised
        (sa, ta), (sb, tb) = (_linearise(x[rows], m, sub.weights) for x in (xa, xb))
        return sb - sa, ta, tb, (sa, sb)

    return _seeds(la, lb, info, n_resamples, confidence_level, seed, stacklevel, keywords,
                  estimate=vb - va, boot=pooled[1] - pooled[0], run=run, scores=(va, vb),
                  metric=m.name, layout=layout, groups=groups, strata=strata,
                  per_stratum=per_stratum)


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
    grad = np.zeros_like(total)
    scale = np.abs(stats).mean(axis=(0, 1)) * n * r
    for j in range(len(total)):  # central differences, relative steps
        step = 6e-6 * max(abs(total[j]), 1e-3 * scale[j], 1e-12)
        up, down = total.copy(), total.copy()
        up[j] += step
        down[j] -= step
        grad[j] = (m.evaluate(up[None])[0][0] - m.evaluate(down[None])[0][0]) / (2 * step)
    return value, (stats @ grad) * (n * r)


def compare_many_runs(scores, *, runs: str, paired_runs: bool, baseline, pairs,
                      correction: str, lower_is_better: bool, metric, groups, strata,
                      n_resamples, confidence_level, method, seed, stacklevel: int = 3,
                      **keywords):
    """:func:`pairboot.compare_many` for items x runs tables (see :mod:`pairboot.runs`).

    ``"samples"``: the items' mean scores through :func:`pairboot.compare_many` (every
    correction).  ``"seeds"``: each comparison's ``V``, degrees of freedom and t interval
    as :func:`pairboot.compare` gives them (groups and strata included), with max-t
    (:func:`_max_t_runs`), Holm's or Bonferroni's correction (t intervals at
    ``alpha / m``), or none.
    """
    from pairboot.many import _WORDS, _family, _systems, compare_many, family_ranks  # noqa: PLC0415
    from pairboot.multiple import CORRECTIONS, bonferroni, holm  # noqa: PLC0415
    from pairboot.result import Comparison, FamilyResult  # noqa: PLC0415

    seed = _check(runs, n_resamples, confidence_level, method, seed, keywords)
    names, values = _systems(scores)
    tables = [as_table(v, name, runs) for name, v in zip(names, values)]
    if runs == "samples":
        if paired_runs:
            raise InputError("`paired_runs` is for runs='seeds'", param="paired_runs")
        means = {name: np.nanmean(t, axis=1) for name, t in zip(names, tables)}
        return compare_many(means, baseline=baseline, pairs=pairs, correction=correction,
                            lower_is_better=lower_is_better, metric=metric, groups=groups,
                            strata=strata, n_resamples=n_resamples,
                            confidence_level=confidence_level, method=method, seed=seed,
                            **keywords)
    if not (isinstance(metric, str) and metric == "mean"):
        raise InputError("a family with runs='seeds' supports metric 'mean' only",
                         param="metric")
    _seeds_only(method, keywords)
    if keywords.get("resampling", "classic") != "classic":
        raise InputError("a family with runs='seeds' is t intervals on the two-way "
                         "variance and draws no items: leave `resampling` at 'classic'",
                         param="resampling")
    if correction not in CORRECTIONS:
        raise InputError(f"`correction` must be one of {', '.join(CORRECTIONS)}, got "
                         f"{correction!r}", param="correction")
    if len({t.shape[0] for t in tables}) != 1:
        raise InputError("every system must score the same items", param="scores")
    if paired_runs and len({t.shape[1] for t in tables}) != 1:
        raise InputError("`paired_runs` needs as many runs of every system: "
                         f"{sorted({t.shape[1] for t in tables})}", param="paired_runs")
    layout = _layout(len(tables[0]), groups, strata, keywords)
    targets = _family(names, baseline, pairs)
    alpha = 1.0 - float(confidence_level)
    family_alpha = round(alpha, 12)  # as compare_many: a p of exactly 0.05 does not reject
    m = len(targets)
    # each row is compare()'s t interval; its df depend on the level a little
    # (runs._satterthwaite), so the corrected intervals take them at their own level and
    # the p-values are the smallest level whose interval excludes 0
    infos = [analyse(tables[i], tables[j], "seeds", paired_runs, layout, alpha=alpha)
             for i, j in targets]
    est = np.array([_difference(tables[i], tables[j], layout) for i, j in targets])
    se = np.sqrt([info.variance for info in infos])
    p_raw = np.array([info.p_value(e) for info, e in zip(infos, est)])
    marginal = [info.interval(e, alpha) for info, e in zip(infos, est)]
    p_single, critical = [None] * m, None
    if seed is None:
        seed = _table_seed(tables, n_resamples)
    if m == 1 or correction == "none":
        intervals, p_adj = marginal, p_raw
    elif correction == "max-t":
        mt = _max_t_runs(tables, targets, paired_runs, layout, p_raw, alpha, n_resamples,
                         seed)
        critical = mt.critical_value
        level = 2.0 * (0.5 * math.erfc(critical / math.sqrt(2.0)))  # each row's level
        intervals = [info.interval(e, level) for info, e in zip(infos, est)]
        p_adj = np.maximum(mt.p_stepdown, p_raw)
        p_single = np.maximum(mt.p_single_step, p_raw).tolist()
    else:
        intervals = [info.interval(e, alpha / m) for info, e in zip(infos, est)]
        p_adj = holm(p_raw) if correction == "holm" else bonferroni(p_raw)
    comparisons = []
    for k, (i, j) in enumerate(targets):
        low, high = intervals[k]
        significant = bool(p_adj[k] < family_alpha)
        note = None
        if significant != bool(low > 0 or high < 0):
            test, interval = _WORDS[correction if m > 1 else "none"]
            note = (f"{test} rejects, but {interval} includes 0" if significant else
                    f"{interval} excludes 0, but {test} does not reject")
        comparisons.append(Comparison(
            a=names[i], b=names[j], estimate=float(est[k]),
            confidence_interval=ConfidenceInterval(low, high),
            marginal_interval=ConfidenceInterval(*marginal[k]),
            standard_error=float(se[k]), p_value=float(p_raw[k]),
            p_adjusted=float(p_adj[k]),
            p_single_step=None if p_single[k] is None else float(p_single[k]),
            significant=significant, note=note))
    ranks, best = family_ranks(names, targets, comparisons, lower_is_better)
    notes = small_runs_note(min(infos, key=lambda x: x.degrees_of_freedom))
    for category, text in notes:
        _warnings.warn(text, category, stacklevel=stacklevel)
    return FamilyResult(
        comparisons=tuple(comparisons),
        systems={name: _system_score(t, t_for=alpha, layout=layout)
                 for name, t in zip(names, tables)},
        rank_intervals=ranks, best_set=best, correction=correction, family_size=m,
        critical_value=critical, confidence_level=float(confidence_level),
        n_resamples=int(n_resamples), seed=int(seed), method="t",
        metric="mean", lower_is_better=bool(lower_is_better), paired=True,
        group_weighting=(keywords.get("group_weighting", "items") if layout.grouped
                         else None),
        n_items=int(tables[0].shape[0]), n_groups=layout.n_units if layout.grouped else None,
        n_strata=(int(layout.unit_stratum.max()) + 1) if layout.stratified else None,
        engine="runs (t intervals)", version=__version__,
        warnings=tuple(text for _, text in notes))


def _difference(ya: np.ndarray, yb: np.ndarray, layout: Layout) -> float:
    """The estimate: B's weighted mean over items and runs less A's."""
    return float(layout.estimate(yb.mean(axis=1) - ya.mean(axis=1)))


def _contrast_model(tables, targets, paired_runs: bool, layout: Layout):
    """A model of the comparisons' estimates for max-t: ``(cov, items, own, dof)``.

    The systems' means have the items' design covariance of their run means plus a run
    variance ``own[s]`` per system (estimated from ``dof[s]`` degrees of freedom), the
    systems' run effects taken as independent.  Unpaired, ``own[s]`` is each system's
    run part.  With paired runs the shared seed effect cancels in every difference, and
    the rest is estimated from few runs: a sample covariance of the systems' run
    estimates from 3 runs has rank 2, its correlations come out near +-1, and max-t was
    too liberal (0.88 family coverage); so ``own`` is fitted by least squares to the
    pairs' run parts ``own[i] + own[j]``.  ``cov``: the comparisons' covariance;
    ``items``: each comparison's variance from the items."""
    n_sys = len(tables)
    items_cov = layout.covariance(np.column_stack([t.mean(axis=1) for t in tables]))
    own, dof = np.zeros(n_sys), np.array([t.shape[1] - 1.0 for t in tables])
    if paired_runs and tables[0].shape[1] > 1:
        r = tables[0].shape[1]
        per_run = np.stack([layout.estimate(t) for t in tables])  # (systems, runs)
        resid = [t - t.mean(axis=1)[:, None] - (e - e.mean())[None, :]
                 for t, e in zip(tables, per_run)]
        part = np.cov(per_run, ddof=1) - sum(
            layout.covariance(np.column_stack([e[:, c] for e in resid]))
            for c in range(r)) / (r - 1)
        pairs = [(i, j) for i in range(n_sys) for j in range(i + 1, n_sys)]
        design = np.zeros((len(pairs), n_sys))
        target = np.empty(len(pairs))
        for k, (i, j) in enumerate(pairs):
            design[k, [i, j]] = 1.0
            target[k] = max(0.0, part[i, i] + part[j, j] - 2.0 * part[i, j]) / r
        own = np.maximum(np.linalg.lstsq(design, target, rcond=None)[0], 0.0)
    elif not paired_runs:
        for s, t in enumerate(tables):
            if t.shape[1] > 1:
                spread, v_res = run_terms(t, layout)
                own[s] = max(0.0, spread - v_res) / t.shape[1]
    c = np.zeros((len(targets), n_sys))
    for k, (i, j) in enumerate(targets):
        c[k, i], c[k, j] = -1.0, 1.0
    return c @ (items_cov + np.diag(own)) @ c.T, np.diag(c @ items_cov @ c.T), own, dof


def _max_t_runs(tables, targets, paired_runs, layout, p_values, alpha, n_resamples, seed):
    """Max-t for t statistics with few degrees of freedom each, on the normal scale of
    their p-values (``z = Phi^-1(1 - p / 2)``: rows with different df become comparable).

    The maximum's law is drawn (seeded) from a normal law with the comparisons'
    correlation (:func:`_contrast_model`), but only the part of each comparison's
    variance that comes from the items (many degrees of freedom) correlates: the
    correlation is ``rho_kl sqrt(s_k s_l)``, ``s_k`` the items' share.  An exceedance of
    a t with few df comes mostly from a run variance that happened to be estimated small,
    and those estimates are not shared the way the numerators are: with the full
    correlation, max-t covered 0.92-0.94 for 4 systems at 3 paired seeds (Holm 0.95).
    Where the items dominate this is the usual max-t.  A row's single-step p-value is
    below alpha exactly when its own t interval at the two-sided level ``2 (1 - Phi(c))``
    excludes 0; the stepdown may reject more (a note says so)."""
    cov, items, _, _ = _contrast_model(tables, targets, paired_runs, layout)
    var = np.diag(cov)
    sd = np.sqrt(np.maximum(var, 0.0))
    share = np.where(var > 0, np.minimum(1.0, items / np.where(var > 0, var, 1.0)), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        corr = np.where(np.outer(sd, sd) > 0, cov / np.outer(sd, sd), 0.0)
    corr = corr * np.sqrt(np.outer(share, share))
    np.fill_diagonal(corr, 1.0)
    z = np.array([min(37.0, -normal_quantile(p / 2.0)) for p in p_values])
    values, vectors = np.linalg.eigh(corr)
    root = vectors * np.sqrt(np.maximum(values, 0.0))
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(
        int(seed), spawn_key=(_MAX_T_STREAM,))))
    draws = rng.standard_normal((int(n_resamples), len(z))) @ root.T
    return max_t(z, np.ones(len(z)), z + draws, alpha)


def _table_seed(tables, n_resamples: int) -> int:
    """The seed of a family given none: a hash of the tables, so the same inputs give
    the same output (as compare() derives its seed)."""
    h = hashlib.blake2b(digest_size=8, person=b"pairboot-runs")
    for t in tables:
        h.update(np.ascontiguousarray(t, dtype="<f8").tobytes())
        h.update(np.asarray(t.shape, dtype="<i8").tobytes())
    h.update(str(int(n_resamples)).encode())
    return int.from_bytes(h.digest(), "little") >> 1

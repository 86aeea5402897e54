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
import math
import warnings as _warnings

import numpy as np

from pairboot._version import __version__
from pairboot.compare import compare, resample
from pairboot.diagnostics import design_notes
from pairboot.errors import InputError, SmallSampleWarning
from pairboot.intervals import normal_quantile
from pairboot.metrics import resolve_metric
from pairboot.result import CompareResult, ConfidenceInterval, SystemScore
from pairboot.runs import RUNS, RunsInfo, analyse, as_table, small_runs_note, t_quantile, t_sf

__all__ = ["compare_runs"]

_RUN_STREAM = 0x72756E73  # "runs": SeedSequence spawn key of the run weights
POWER_Z = 0.8416212335729143


def compare_runs(a, b, *, runs: str, paired_runs: bool, groups, strata, metric,
                 n_resamples, confidence_level, method, seed, stacklevel: int = 3,
                 **keywords) -> CompareResult:
    """:func:`pairboot.compare` for items x runs tables (see :mod:`pairboot.runs`)."""
    if runs not in RUNS:
        raise InputError(f"`runs` must be one of {', '.join(RUNS)} or None, got {runs!r}",
                         param="runs")
    pooled = not (isinstance(metric, str) and metric == "mean")
    if pooled:
        if runs != "seeds":
            raise InputError("a pooled metric with runs='samples': not supported (compare "
                             "the items' statistics summed over their samples instead)",
                             param="metric")
        return _pooled(a, b, runs=runs, paired_runs=paired_runs, groups=groups,
                       strata=strata, metric=metric, n_resamples=n_resamples,
                       confidence_level=confidence_level, method=method, seed=seed,
                       stacklevel=stacklevel + 1, keywords=keywords)
    ya, yb = as_table(a, "a", runs), as_table(b, "b", runs)
    if runs == "samples":
        if paired_runs:
            raise InputError("`paired_runs` is for runs='seeds': samples have no meaning "
                             "across items", param="paired_runs")
        info = analyse(ya, yb, runs, False)
        res = compare(np.nanmean(ya, axis=1), np.nanmean(yb, axis=1), groups=groups,
                      strata=strata, metric=metric, n_resamples=n_resamples,
                      confidence_level=confidence_level, method=method, seed=seed,
                      **keywords)
        return dataclasses.replace(res, runs=info)
    if not keywords.get("paired", True):
        raise InputError("several runs per system are compared paired (the items' draw is "
                         "shared); `paired=False` is not supported with runs",
                         param="paired")
    if groups is not None or strata is not None:
        raise InputError("several runs per system with `groups` or `strata`: not yet "
                         "(the two-way variance is for plain items)",
                         param="groups" if groups is not None else "strata")
    if method != "percentile":
        raise InputError("with runs='seeds' the interval is a t interval on the two-way "
                         "variance; leave `method` at its default", param="method")
    if ya.shape[1] == 1 and yb.shape[1] == 1 and not paired_runs:
        return compare(ya[:, 0], yb[:, 0], metric=metric, n_resamples=n_resamples,
                       confidence_level=confidence_level, method=method, seed=seed,
                       **keywords)
    info = analyse(ya, yb, runs, paired_runs)
    return _seeds(ya, yb, info, n_resamples, confidence_level, seed, stacklevel, keywords)


def _run_weights(seed: int, ra: int, rb: int, paired: bool, n_resamples: int):
    """Each replicate's weights of A's and B's runs: multinomial draws of the runs, over
    the number of runs (one draw for both systems when the runs are paired)."""
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(
        seed, spawn_key=(_RUN_STREAM,))))
    wa = rng.multinomial(ra, np.full(ra, 1.0 / ra), size=n_resamples) / ra
    wb = wa if paired else rng.multinomial(rb, np.full(rb, 1.0 / rb), size=n_resamples) / rb
    return wa, wb


def _item_draws(columns, names, metric, n_resamples, confidence_level, seed, keywords):
    """One draw of the items for every (system, run) column: the engine's usual run."""
    engine = {k: keywords[k] for k in ("resampling", "ids", "backend", "progress")
              if k in keywords}
    return resample(columns, names=names, paired=True, groups=None, group_weighting="items",
                    strata=None, strata_weights=None, metric=metric, n_resamples=n_resamples,
                    confidence_level=confidence_level, method="percentile", seed=seed,
                    **engine)


def _seeds(ya, yb, info: RunsInfo, n_resamples, confidence_level, seed, stacklevel,
           keywords, *, estimate=None, boot=None, run=None, scores=None,
           metric="mean") -> CompareResult:
    ra, rb = ya.shape[1], yb.shape[1]
    if boot is None:
        columns = [ya[:, j] for j in range(ra)] + [yb[:, j] for j in range(rb)]
        names = [f"A{j}" for j in range(ra)] + [f"B{j}" for j in range(rb)]
        run = _item_draws(columns, names, "mean", n_resamples, confidence_level, seed,
                          keywords)
        # (R, runs): every run's mean over each replicate's draw of the items
        per_run = np.stack([run.core.value(j, run.coef, run.combined)
                            for j in range(ra + rb)], axis=1)
        wa, wb = _run_weights(run.seed, ra, rb, info.paired_runs, n_resamples)
        boot = (per_run[:, ra:] * wb).sum(axis=1) - (per_run[:, :ra] * wa).sum(axis=1)
        estimate = float(yb.mean() - ya.mean())
    args = run.args
    se = math.sqrt(info.variance)
    spread = boot.std(ddof=1) if len(boot) > 1 else 0.0
    info = dataclasses.replace(info, bootstrap_variance=float(spread * spread))
    rescaled = (np.full_like(boot, estimate) if spread == 0 or se == 0
                else estimate + (boot - boot.mean()) * (se / spread))
    alpha = 1.0 - args.confidence_level
    t = t_quantile(1.0 - alpha / 2.0, info.degrees_of_freedom)
    low, high = estimate - t * se, estimate + t * se
    if se > 0:
        p = 2.0 * t_sf(abs(estimate) / se, info.degrees_of_freedom)
    else:
        p = 1.0 if estimate == 0 else 0.0
    notes = list(design_notes(run.design, args, ("A", "B"))) + small_runs_note(info)
    items_needed = None
    if not (low > 0 or high < 0) and estimate != 0:
        target = (estimate / (normal_quantile(1.0 - alpha / 2.0) + POWER_Z)) ** 2
        sigma_item = info.item_part * info.n_items
        rest = info.projection(n_items=10**12)["variance"]
        if rest < target:
            items_needed = int(math.ceil(sigma_item / (target - rest)))
        else:
            floor = info.projection(n_items=10**12)["floor"]
            notes.append((SmallSampleWarning, (
                "more items alone cannot detect a difference this large: the runs' own "
                f"variation (variance floor {floor:.3g}) needs more runs")))
    for category, text in notes:
        _warnings.warn(text, category, stacklevel=stacklevel)
    return CompareResult(
        estimate=estimate, confidence_interval=ConfidenceInterval(low, high),
        confidence_level=args.confidence_level, method="t", standard_error=se,
        p_value=float(min(1.0, p)), bootstrap_distribution=rescaled,
        score_a=_system_score(ya, t_for=alpha, at=scores[0] if scores else None),
        score_b=_system_score(yb, t_for=alpha, at=scores[1] if scores else None),
        n_items=info.n_items, n_groups=None, n_strata=None, n_resamples=args.n_resamples,
        seed=run.seed, warnings=tuple(text for _, text in notes), metric=metric,
        paired=True, group_weighting=None, strata=(),
        monte_carlo_error=ConfidenceInterval(0.0, 0.0), items_needed=items_needed,
        groups_needed=None, engine=run.engine, version=__version__,
        resampling=args.resampling, runs=info,
    )


def _system_score(y: np.ndarray, t_for: float, at: float | None = None) -> SystemScore:
    """A system's grand mean (or its pooled metric ``at``, with ``y`` its linearised
    values), with the one-table variance ``(MS_item + MS_run - MS_res) / (n R)`` and its
    t interval."""
    info = analyse(np.zeros_like(y), y, "seeds", True) if y.shape[1] > 1 else None
    mean = float(y.mean()) if at is None else float(at)
    if info is None:
        n = len(y)
        var, df = y[:, 0].var(ddof=1) / n, n - 1
    else:
        var, df = info.variance, info.degrees_of_freedom
    se = math.sqrt(var)
    t = t_quantile(1.0 - t_for / 2.0, df)
    return SystemScore(mean, ConfidenceInterval(mean - t * se, mean + t * se), se)


def _pooled(a, b, *, runs, paired_runs, groups, strata, metric, n_resamples,
            confidence_level, method, seed, stacklevel, keywords) -> CompareResult:
    """A pooled metric (F1, BLEU, ...) over every item and run: the variance from the
    two-way analysis of its linearised values ``L_ir = N g . x_ir`` (``g`` the metric's
    gradient at the pooled sums, ``N = n R``), the replicates from the metric on the
    resampled, run-weighted sums."""
    if groups is not None or strata is not None or method != "percentile":
        raise InputError("a pooled metric with runs: plain items and the default method "
                         "only", param="metric")
    tables = []
    for name, values in (("a", a), ("b", b)):
        x = np.asarray(values.to_numpy() if hasattr(values, "to_numpy") else values,
                       dtype=np.float64)
        if x.ndim != 3:
            raise InputError(f"`{name}` must be items x runs x statistics for a pooled "
                             f"metric with runs, got {x.ndim} dimensions", param=name)
        if not np.isfinite(x).all():
            raise InputError(f"`{name}` has a value that is not a finite number", param=name)
        tables.append(x)
    xa, xb = tables
    if xa.shape[0] != xb.shape[0] or xa.shape[2] != xb.shape[2]:
        raise InputError(f"`a` and `b` must have the same items and statistics: "
                         f"{xa.shape} and {xb.shape}", param="b")
    m = resolve_metric(metric, xa.shape[2])
    linear, scores = [], []
    for x in (xa, xb):
        n, r, k = x.shape
        stats = m.per_item(x.reshape(n * r, k))
        total = stats.sum(axis=0)
        value = float(m.evaluate(total[None])[0][0])
        grad = np.zeros_like(total)
        for j in range(len(total)):  # central differences, relative steps
            step = 6e-6 * max(abs(total[j]), 1e-3 * abs(stats[:, j]).mean() * n * r, 1e-12)
            up, down = total.copy(), total.copy()
            up[j] += step
            down[j] -= step
            grad[j] = (m.evaluate(up[None])[0][0] - m.evaluate(down[None])[0][0]) / (2 * step)
        linear.append((stats @ grad).reshape(n, r) * (n * r))
        scores.append(value)
    info = analyse(linear[0], linear[1], runs, paired_runs)
    ra, rb = xa.shape[1], xb.shape[1]
    columns = [xa[:, j, :] for j in range(ra)] + [xb[:, j, :] for j in range(rb)]
    names = [f"A{j}" for j in range(ra)] + [f"B{j}" for j in range(rb)]
    run = _item_draws(columns, names, metric, n_resamples, confidence_level, seed, keywords)
    core, k = run.core, run.design.k
    sums = core.M[:, 0, :]  # (R, runs x k): every run's resampled sums
    wa, wb = _run_weights(run.seed, ra, rb, info.paired_runs, n_resamples)
    pooled = []
    for w, first, count in ((wa, 0, ra), (wb, ra, rb)):
        per_run = sums[:, first * k:(first + count) * k].reshape(len(sums), count, k)
        pooled.append(m.evaluate((per_run * w[:, :, None]).sum(axis=1))[0])
    boot = pooled[1] - pooled[0]
    return _seeds(linear[0], linear[1], info, n_resamples, confidence_level, seed,
                  stacklevel, keywords, estimate=scores[1] - scores[0], boot=boot, run=run,
                  scores=scores, metric=m.name)


def compare_many_runs(scores, *, runs: str, paired_runs: bool, baseline, pairs,
                      correction: str, lower_is_better: bool, metric, groups, strata,
                      n_resamples, confidence_level, method, seed, stacklevel: int = 3,
                      **keywords):
    """:func:`pairboot.compare_many` for items x runs tables (see :mod:`pairboot.runs`).

    ``"samples"``: the items' mean scores through :func:`pairboot.compare_many` (every
    correction).  ``"seeds"``: each comparison's ``V``, degrees of freedom and t interval
    as :func:`pairboot.compare` gives them, with Holm's or Bonferroni's correction (t
    intervals at ``alpha / m``) or none; max-t needs the joint law of roots that are t
    with different degrees of freedom, and is refused for now.
    """
    from pairboot.many import _family, _systems, compare_many, family_ranks  # noqa: PLC0415
    from pairboot.multiple import CORRECTIONS, bonferroni, holm  # noqa: PLC0415
    from pairboot.result import Comparison, FamilyResult  # noqa: PLC0415

    if runs not in RUNS:
        raise InputError(f"`runs` must be one of {', '.join(RUNS)} or None, got {runs!r}",
                         param="runs")
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
    if groups is not None or strata is not None or method != "percentile":
        raise InputError("a family with runs='seeds': plain items and the default method "
                         "only", param="groups" if groups is not None else "method")
    if correction not in CORRECTIONS:
        raise InputError(f"`correction` must be one of {', '.join(CORRECTIONS)}, got "
                         f"{correction!r}", param="correction")
    if correction == "max-t":
        raise InputError("`correction='max-t'` with runs='seeds' is not available yet "
                         "(each comparison is a t interval with its own degrees of "
                         "freedom); use `correction='holm'`", param="correction")
    targets = _family(names, baseline, pairs)
    alpha = 1.0 - float(confidence_level)
    m = len(targets)
    rows, p_raw = [], []
    for i, j in targets:
        info = analyse(tables[i], tables[j], "seeds", paired_runs)
        est = float(tables[j].mean() - tables[i].mean())
        se = math.sqrt(info.variance)
        p = (2.0 * t_sf(abs(est) / se, info.degrees_of_freedom) if se > 0
             else (1.0 if est == 0 else 0.0))
        rows.append((i, j, est, se, info))
        p_raw.append(min(1.0, p))
    p_raw = np.array(p_raw)
    level = alpha if correction == "none" or m == 1 else alpha / m
    p_adj = (p_raw if correction == "none" or m == 1
             else holm(p_raw) if correction == "holm" else bonferroni(p_raw))
    family_alpha = round(alpha, 12)
    comparisons = []
    for (i, j, est, se, info), p, q in zip(rows, p_raw, p_adj):
        t_m = t_quantile(1.0 - alpha / 2.0, info.degrees_of_freedom)
        t_f = t_quantile(1.0 - level / 2.0, info.degrees_of_freedom)
        significant = bool(q < family_alpha)
        low, high = est - t_f * se, est + t_f * se
        note = None
        if significant != bool(low > 0 or high < 0):
            note = ("Holm's test rejects, but the Bonferroni interval includes 0"
                    if significant else
                    "the Bonferroni interval excludes 0, but Holm's test does not reject")
        comparisons.append(Comparison(
            a=names[i], b=names[j], estimate=est,
            confidence_interval=ConfidenceInterval(low, high),
            marginal_interval=ConfidenceInterval(est - t_m * se, est + t_m * se),
            standard_error=se, p_value=float(p), p_adjusted=float(q), p_single_step=None,
            significant=significant, note=note))
    ranks, best = family_ranks(names, targets, comparisons, lower_is_better)
    notes = small_runs_note(min((r[4] for r in rows), key=lambda x: x.degrees_of_freedom))
    for category, text in notes:
        _warnings.warn(text, category, stacklevel=stacklevel)
    return FamilyResult(
        comparisons=tuple(comparisons),
        systems={name: _system_score(t, t_for=alpha) for name, t in zip(names, tables)},
        rank_intervals=ranks, best_set=best, correction=correction, family_size=m,
        critical_value=None, confidence_level=float(confidence_level),
        n_resamples=int(n_resamples), seed=0 if seed is None else int(seed), method="t",
        metric="mean", lower_is_better=bool(lower_is_better), paired=True,
        group_weighting=None, n_items=int(tables[0].shape[0]), n_groups=None, n_strata=None,
        engine="runs (t intervals)", version=__version__,
        warnings=tuple(text for _, text in notes))

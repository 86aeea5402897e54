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
    if not (isinstance(metric, str) and metric == "mean"):
        raise InputError("several runs per system support metric 'mean' only (pooled "
                         "metrics need per-run linearised values: not yet)", param="metric")
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


def _seeds(ya, yb, info: RunsInfo, n_resamples, confidence_level, seed, stacklevel,
           keywords) -> CompareResult:
    ra, rb = ya.shape[1], yb.shape[1]
    columns = [ya[:, j] for j in range(ra)] + [yb[:, j] for j in range(rb)]
    names = [f"A{j}" for j in range(ra)] + [f"B{j}" for j in range(rb)]
    engine = {k: keywords[k] for k in ("resampling", "ids", "backend", "progress")
              if k in keywords}
    run = resample(columns, names=names, paired=True, groups=None, group_weighting="items",
                   strata=None, strata_weights=None, metric="mean", n_resamples=n_resamples,
                   confidence_level=confidence_level, method="percentile", seed=seed,
                   **engine)
    core, args = run.core, run.args
    # (R, runs): every run's mean over each replicate's draw of the items
    per_run = np.stack([core.value(j, run.coef, run.combined) for j in range(ra + rb)],
                       axis=1)
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(
        run.seed, spawn_key=(_RUN_STREAM,))))
    wa = rng.multinomial(ra, np.full(ra, 1.0 / ra), size=n_resamples) / ra
    wb = wa if info.paired_runs else rng.multinomial(
        rb, np.full(rb, 1.0 / rb), size=n_resamples) / rb
    boot = (per_run[:, ra:] * wb).sum(axis=1) - (per_run[:, :ra] * wa).sum(axis=1)
    estimate = float(yb.mean() - ya.mean())
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
        score_a=_system_score(ya, t_for=alpha), score_b=_system_score(yb, t_for=alpha),
        n_items=info.n_items, n_groups=None, n_strata=None, n_resamples=args.n_resamples,
        seed=run.seed, warnings=tuple(text for _, text in notes), metric="mean",
        paired=True, group_weighting=None, strata=(),
        monte_carlo_error=ConfidenceInterval(0.0, 0.0), items_needed=items_needed,
        groups_needed=None, engine=run.engine, version=__version__,
        resampling=args.resampling, runs=info,
    )


def _system_score(y: np.ndarray, t_for: float) -> SystemScore:
    """A system's grand mean, with the one-table variance ``(MS_item + MS_run -
    MS_res) / (n R)`` and its t interval."""
    info = analyse(np.zeros_like(y), y, "seeds", True) if y.shape[1] > 1 else None
    mean = float(y.mean())
    if info is None:
        n = len(y)
        var, df = y[:, 0].var(ddof=1) / n, n - 1
    else:
        var, df = info.variance, info.degrees_of_freedom
    se = math.sqrt(var)
    t = t_quantile(1.0 - t_for / 2.0, df)
    return SystemScore(mean, ConfidenceInterval(mean - t * se, mean + t * se), se)

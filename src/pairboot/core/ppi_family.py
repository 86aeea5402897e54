"""A family of prediction-powered comparisons (:func:`pairboot.compare_ppi_many`): M
systems' judge scores on every item and gold labels on one random subset, all pairs
or every system against a baseline, on one set of draws.

Every comparison's corrected difference is read off the same PPBoot resamples
(:class:`pairboot.core.ppi_engine.Judged`: the labelled and the unlabelled units drawn
apart, the same draws for every system), so their joint distribution is known and
max-t (:func:`pairboot.stats.multiple.max_t`) gives simultaneous intervals
``estimate +- c se``, ``c`` the quantile of the largest standardised root over the
family (:func:`pairboot.core.family.simultaneous`), its single-step p-values (below
alpha exactly when the interval excludes 0) and Romano-Wolf's stepdown ones.
Bonferroni's intervals (each at ``alpha / m``) are the alternative that
the closed form can give too.  Each comparison has its own ``lam``, tuned on its own
per-item differences, as :func:`pairboot.compare_ppi`'s B - A: a family of two
systems is compare_ppi's answer (its draws, seed and interval).
"""

from __future__ import annotations

import math
import warnings as _warnings

import numpy as np

from pairboot._version import __version__
from pairboot.core.family import family_systems, family_targets, simultaneous
from pairboot.core.ppi import (
    effective_gold,
    gold_notes,
    ppi_bootstrap,
    ppi_metric,
    undefined_note,
)
from pairboot.core.ppi_engine import evaluated, judged
from pairboot.errors import InputError
from pairboot.inputs.gold import check_judged
from pairboot.options import Arguments, Data
from pairboot.results.compare import ConfidenceInterval, SystemScore
from pairboot.results.ppi import PPIComparison, PPIFamilyResult
from pairboot.stats.hypotheses import verdict_of
from pairboot.stats.intervals import bounds, p_value
from pairboot.stats.multiple import max_t
from pairboot.stats.ppi import normal_bounds, normal_p_value

__all__ = ["CORRECTIONS", "compare_ppi_family"]

CORRECTIONS = ("max-t", "bonferroni", "none")
"""How a family of prediction-powered comparisons holds its error rate."""


def _systems(judge, gold) -> tuple[list[str], list, list]:
    """The systems' names (the judge's order) and their judge and gold scores."""
    out = []
    for param, value in (("judge", judge), ("gold", gold)):
        try:
            out.append(family_systems(value))
        except InputError as exc:  # (compare_many's `scores` is this function's `param`)
            raise InputError(str(exc).replace("`scores`", f"`{param}`"),
                             param=param) from None
    (names, judges), (gold_names, golds) = out
    by_name = dict(zip(gold_names, golds))
    if set(gold_names) != set(names):
        odd = sorted(set(gold_names) ^ set(names))[0]
        raise InputError(f"`gold` and `judge` name different systems ({odd!r} is in one "
                         "only): the gold labels of every system the judge scored",
                         param="gold")
    return names, judges, [by_name[name] for name in names]


def compare_ppi_family(judge, gold, args: Arguments, data: Data, method: str, *,
                       correction: str = "max-t", lam: float | None = None,
                       clip: bool = True, stacklevel: int = 2) -> PPIFamilyResult:
    """compare_ppi_many()'s answer on checked options; its notes are warned
    ``stacklevel`` frames up."""
    if correction not in CORRECTIONS:
        raise InputError(f"`correction` of a prediction-powered family is one of "
                         f"{', '.join(CORRECTIONS)}, got {correction!r}", param="correction")
    names, judges, golds = _systems(judge, gold)
    targets = family_targets(names, data.baseline, data.pairs, args.n_resamples)
    if correction == "max-t" and method == "clt" and len(targets) > 1:
        raise InputError("`correction='max-t'` reads the bootstrap's joint draws: give a "
                         "bootstrap `method`, or `correction='bonferroni'` with the closed "
                         "form", param="correction")
    metric, k = ppi_metric(data.metric, args.runs, judges[0])
    try:
        scores = check_judged(
            [(f"judge[{n!r}]", v) for n, v in zip(names, judges)],
            [(f"gold[{n!r}]", v) for n, v in zip(names, golds)], data.groups, data.strata,
            k=k, prepare=None if metric is None else metric.per_item, runs=args.runs)
    except InputError as exc:  # (the argument, not the system, is the parameter)
        param = (exc.param or "").split("[")[0] or None
        raise InputError(str(exc), param=param) from None
    design = judged(scores, data.groups, data.strata, data.strata_weights,
                    None if metric is None else evaluated(metric))
    systems = [("s", i) for i in range(len(names))]
    pairs = [("d", i, j) for i, j in targets]
    keys = systems + pairs
    lams = design.power_weights(keys, lam, clip)
    undefined = undefined_note(design, metric, [lams[key] for key in systems], names,
                               [f"gold[{name!r}]" for name in names])
    closed = design.closed_forms(keys, lams)
    alpha = 1.0 - args.confidence_level
    side = args.alternative
    notes: list = []
    boots: dict = {}
    seed = args.seed
    if method != "clt":
        boots, seed, reps = ppi_bootstrap(design, keys, lams, closed, args, notes)

    def interval(kind, key, at: float, sides: str = "two-sided"):
        est, se = closed[kind, key]
        if method == "clt":
            return ConfidenceInterval(*normal_bounds(est, se, at, sides)), se
        boot = boots[kind, key]
        return ConfidenceInterval(*bounds(method, boot, at, sides)), boot.sd

    def own_p(key) -> float:
        est, se = closed["ppi", key]
        if method == "clt":
            return normal_p_value(est, se, side)
        return p_value(method, boots["ppi", key], side)

    def score(kind, key) -> SystemScore:
        ci, se = interval(kind, key, alpha)
        return SystemScore(closed[kind, key][0], ci, se)

    m = len(pairs)
    est = np.array([closed["ppi", key][0] for key in pairs])
    marginal = [interval("ppi", key, alpha, side) for key in pairs]
    se = np.array([s for _, s in marginal])
    p_own = np.array([own_p(key) for key in pairs])
    critical = None
    floor = 0.0 if method == "clt" else 1.0 / (args.n_resamples + 1)
    stepdown = None
    if m == 1:  # (a family of one comparison is compare_ppi's answer)
        rows_ci, p_adj = [ci for ci, _ in marginal], p_own
    elif correction == "max-t":
        replicates = np.column_stack([reps["ppi", key] for key in pairs])
        tol = np.array([boots["ppi", key].tolerance for key in pairs])
        mt = max_t(est, se, replicates, alpha, side, tol=tol)
        critical = mt.critical_value
        rows_ci = [ConfidenceInterval(*map(float, _open(
            simultaneous(e, s, t, critical, side, d), side)))
            for e, s, t, d in zip(est, se, mt.t, tol)]
        p_adj, stepdown = mt.p_single_step, mt.p_stepdown
    elif correction == "bonferroni":
        rows_ci = [interval("ppi", key, alpha / m, side)[0] for key in pairs]
        p_adj = np.minimum(1.0, m * np.maximum(p_own, floor))
    else:
        rows_ci = [ci for ci, _ in marginal]
        p_adj = p_own
    n_gold = int(scores.labelled.sum())
    rows = []
    for r, (key, (i, j)) in enumerate(zip(pairs, targets)):
        effective = effective_gold(n_gold, closed["gold", key][1], closed["ppi", key][1])
        rows.append(PPIComparison(
            a=names[i], b=names[j], estimate=float(est[r]), confidence_interval=rows_ci[r],
            standard_error=float(se[r]), p_value=float(p_adj[r]),
            p_stepdown=float(p_adj[r] if stepdown is None else stepdown[r]),
            p_marginal=float(p_own[r]), marginal_interval=marginal[r][0],
            lam=float(lams[key]), effective_gold=float(effective),
            judge_only=score("judge", key), gold_only=score("gold", key),
            bias=score("bias", key), verdict=verdict_of(
                "difference", None, rows_ci[r], args.lower_is_better)))
    notes += gold_notes(design, family=True)
    if undefined is not None:
        notes.append(undefined)
    for category, text in notes:
        _warnings.warn(text, category, stacklevel=stacklevel + 1)
    return PPIFamilyResult(
        comparisons=tuple(rows), names=tuple(names),
        scores={name: score("ppi", key) for name, key in zip(names, systems)},
        lams={name: float(lams[key]) for name, key in zip(names, systems)},
        judge_bias={name: score("bias", key) for name, key in zip(names, systems)},
        correction=correction, critical_value=critical,
        confidence_level=args.confidence_level, method=method, alternative=side,
        lower_is_better=args.lower_is_better, n_items=len(scores.labelled), n_gold=n_gold,
        n_groups=design.n_groups, n_strata=design.n_strata,
        n_resamples=args.n_resamples if method != "clt" else 0,
        seed=None if method == "clt" else int(seed), metric="mean" if metric is None
        else metric.name, tuning="fixed" if lam is not None else "clipped" if clip
        else "free", judge_calls=design.judge_calls(), version=__version__,
        warnings=tuple(text for _, text in notes))


def _open(interval, side: str):
    """A one-sided simultaneous interval's far end open (``simultaneous`` gives both)."""
    low, high = interval
    if side == "greater":
        return low, math.inf
    if side == "less":
        return -math.inf, high
    return low, high

"""compare()'s fixed-suite interval of repeated trials (``runs="samples"``,
``estimand="suite"``): the test set is the whole population, only the trials vary.

Every item's estimate (its mean score, pass@1, or a metric of k trials) comes with the
unbiased variance of that estimate over redraws of the item's trials: ``s_i^2 / n_i``
for the mean (``s_i^2`` the trials' sample variance), and for pass@k, pass^k, maj@k the
only unbiased one from a binomial count
(:func:`pairboot.stats.trials.estimate_variance`, ``n_i >= 2 k``).  The suite's
difference ``sum_i w_i (B_i - A_i)`` (``w_i`` the items' weights, strata and groups
as compare() weighs them) then has the variance ``sum_i w_i^2 (v_Ai + v_Bi)``: given
the items, A's and B's trials are drawn independently, so there is no covariance term,
and pairing gains nothing here.  The interval is the normal one on it.  The items'
design (the population bootstrap's, built but never drawn from) supplies the rest of
the result: the derived seed, the items behind the estimate, the strata, the notes on
the data (:func:`suite_notes`).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from pairboot.comparisons.runs.analysis import as_table
from pairboot.comparisons.runs.variance import Layout
from pairboot.core.design import Design, derived_seed
from pairboot.core.diagnostics import group_size_notes, no_verdict_text
from pairboot.core.items import items_summary
from pairboot.core.pipeline import Run, compare_answer, design_of
from pairboot.core.scales import scale_notes, score_ranges
from pairboot.errors import DegenerateDataWarning, InputError, SmallSampleWarning
from pairboot.metrics import trials_metric
from pairboot.options import Arguments, Data
from pairboot.results.compare import (
    CompareResult,
    ConfidenceInterval,
    StratumResult,
    SystemScore,
)
from pairboot.stats.hypotheses import claim_p_values, less_tie, read_test, tie_tolerance
from pairboot.stats.intervals import normal_quantile
from pairboot.stats.pvalues import units_for
from pairboot.stats.trials import estimate_variance

__all__ = ["ENGINE", "compare_suite", "item_estimates", "normal_interval", "normal_p",
           "refuse_suite_options", "suite_notes", "suite_score"]

_DRAWS = 0x73756974  # "suit": SeedSequence spawn key of the normal draws

ENGINE = "suite (normal intervals on the trials' variance)"
"""What computed a suite result (its ``engine``): no resampling of the items."""


def compare_suite(a, b, args: Arguments, data: Data, *, stacklevel: int,
                  top_items: int | None = None) -> CompareResult:
    """The fixed-suite comparison of two items x trials tables (see the module)."""
    refuse_suite_options(args)
    (xa, va), (xb, vb) = (item_estimates(t, name, data) for t, name in ((a, "a"), (b, "b")))
    if len(xa) != len(xb):
        raise InputError(f"`a` and `b` must have the same items: {len(xa)} and {len(xb)}",
                         param="b")
    trials = trials_metric(data.metric)
    shown = data if trials is None else dataclasses.replace(data, metric=trials.metric())
    # (the items' design, as the population bootstrap would draw from: its seed, its
    # items and strata; nothing is drawn from it)
    design = design_of((xa, xb), args, dataclasses.replace(shown, names=("a", "b")),
                       keep_items=top_items is not None)
    seed = args.seed if args.seed is not None else derived_seed(design, args)
    layout = Layout.of(len(xa), groups=data.groups, group_weighting=args.group_weighting,
                       strata=data.strata, strata_weights=data.strata_weights)
    w = layout.weights
    estimate = float(w @ (xb - xa))
    se = math.sqrt(float(w ** 2 @ (va + vb)))
    alpha = 1.0 - args.confidence_level
    tol = tie_tolerance(estimate, se)

    def p_at(sides, null):
        return normal_p(less_tie(estimate - null, tol), se, sides)

    (low, high), p, parts = read_test(
        args.hypothesis, args.margin, args.alternative, alpha,
        lambda at, sides: normal_interval(estimate, se, at, sides), p_at,
        args.lower_is_better, tol=tol)
    claims = claim_p_values(args.hypothesis, args.margin, args.alternative, p_at,
                            args.lower_is_better)
    tail = alpha / 2.0 if args.alternative == "two-sided" else alpha
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(
        seed, spawn_key=(_DRAWS,))))
    run = Run(args, design, seed, ENGINE, None, [], np.ones(1), False)  # (no estimands)
    res = compare_answer(
        run, suite_notes(design, args, va + vb), stacklevel=stacklevel, estimate=estimate,
        interval=(low, high), se=se, p=float(min(1.0, p)),
        boot=estimate + se * rng.standard_normal(args.n_resamples),
        scores=(suite_score(xa, va, w, alpha), suite_score(xb, vb, w, alpha)),
        strata=_strata(design, layout, xa, xb, va, vb, args, alpha), mc=(0.0, 0.0),
        p_values=parts, claims=claims, method="normal",
        mde=((normal_quantile(1.0 - tail) + normal_quantile(0.8)) * se if se > 0 else None),
        items_summary=None if design.items is None else items_summary(
            design.items, top=top_items, group_weighting=args.group_weighting))
    return dataclasses.replace(res, estimand="suite")


FEW_VARYING = 30
"""Below this many items whose trials vary, the suite's standard error rests on a few
items' variances and its normal interval is rough: a note says so."""


def suite_notes(design: Design, args: Arguments, variances=None) -> list:
    """The notes of a suite result: what its data say (too few items for a verdict,
    very unequal groups, systems on different scales, and with ``variances``, every
    item's ``v_A + v_B``: no trial that varies, or few items whose trials do).  Not the
    population bootstrap's (its resamples and their Monte Carlo error, its rough or
    degenerate intervals on few, 0/1, skewed or rounded item scores, with the options
    that mend them): the suite interval reads none of it, and refuses those options."""
    unit = "groups" if design.n_groups is not None else "items"
    n_units = design.n_groups if design.n_groups is not None else design.n_items
    notes = []
    if n_units < units_for(args.confidence_level, args.alternative):
        notes.append((SmallSampleWarning, no_verdict_text(n_units, unit, args)))
    varying = None if variances is None else int(np.count_nonzero(variances > 0))
    if varying == 0:
        notes.append((DegenerateDataWarning, (
            "no item's trials vary, for A or for B: the suite's interval is the estimate "
            "alone (width 0), its variance being estimated from trials that showed none; "
            "an item that fails once in many runs needs more trials to show")))
    elif varying is not None and varying < FEW_VARYING:
        notes.append((SmallSampleWarning, (
            f"only {varying} of {design.n_items} items' trials vary: the suite's standard "
            "error rests on their variances, and its normal interval is rough; more "
            "trials per item (or items) steady it")))
    notes += group_size_notes(design, args)
    ranges = score_ranges(design)
    if ranges is not None:
        notes += scale_notes(zip(("A", "B"), ranges),
                             "scores" if design.n_groups is None else "groups' mean scores")
    return notes


def refuse_suite_options(args: Arguments) -> None:
    """What the fixed-suite interval does not honour, in one line each."""
    if args.paired_runs:
        raise InputError("`paired_runs` is for runs='seeds': samples have no meaning "
                         "across items", param="paired_runs")
    if args.test is not None:
        raise InputError(f"`test={args.test!r}` tests the population estimand; "
                         "`estimand='suite'` takes none", param="test")
    if args.method != "percentile" or args.resampling != "classic":
        param = "method" if args.method != "percentile" else "resampling"
        raise InputError("with `estimand='suite'` the interval is the normal one on the "
                         f"trials' variance; leave `{param}` at its default", param=param)
    if not args.paired:
        raise InputError("`estimand='suite'` compares the same suite's items: "
                         "`paired=False` is not supported", param="paired")


def item_estimates(table, name: str, data: Data) -> tuple[np.ndarray, np.ndarray]:
    """Every item's estimate and the unbiased variance of it over its trials: the mean
    and ``s^2 / n`` (every item needs 2 trials), or a metric of k trials and
    :func:`~pairboot.stats.trials.estimate_variance` (every item needs 2 k)."""
    y = as_table(table, name, "samples")
    n = (~np.isnan(y)).sum(axis=1)
    trials = trials_metric(data.metric)
    if trials is None and not (isinstance(data.metric, str) and data.metric == "mean"):
        raise InputError("`estimand='suite'` takes the mean (pass@1) or a metric of k "
                         f"trials (pass^k, pass@k, maj@k), not {data.metric!r}",
                         param="metric")
    need = 2 if trials is None else 2 * trials.k
    short = n < need
    if short.any():
        i = int(np.argmax(short))
        ids = data.ids
        label = (repr(ids[i]) if ids is not None and not isinstance(ids, str)
                 and len(ids) == len(y) else str(i))
        what = "the mean" if trials is None else f"metric {trials.name!r}"
        raise InputError(f"`{name}` item {label} has {int(n[i])} trial(s): the suite "
                         f"interval of {what} needs {need} per item (an unbiased variance "
                         "of its estimate)", param=name)
    if trials is None:
        return np.nanmean(y, axis=1), np.nanvar(y, axis=1, ddof=1) / n
    x = trials.values(y, name, data.ids)
    c = np.nansum(y, axis=1).astype(np.int64)
    return x, estimate_variance(trials.kind, n, c, trials.k)


def normal_interval(estimate: float, se: float, alpha: float, sides: str
                    ) -> tuple[float, float]:
    """``estimate +- z se`` at ``1 - alpha`` (one-sided: ``[low, inf)`` for "greater")."""
    if sides == "two-sided":
        half = normal_quantile(1.0 - alpha / 2.0) * se
        return estimate - half, estimate + half
    q = normal_quantile(1.0 - alpha) * se
    return (estimate - q, math.inf) if sides == "greater" else (-math.inf, estimate + q)


def normal_p(distance: float, se: float, sides: str) -> float:
    """The normal p-value of ``distance`` (the estimate less the null) at ``se``: the
    one :func:`normal_interval` matches at every level."""
    if se == 0 or distance == 0:
        if distance == 0:
            return 1.0 if sides == "two-sided" or se == 0 else 0.5
        return 0.0 if sides == "two-sided" or (distance > 0) == (sides == "greater") else 1.0
    z = distance / se
    if sides == "two-sided":
        return math.erfc(abs(z) / math.sqrt(2.0))
    return 0.5 * math.erfc((z if sides == "greater" else -z) / math.sqrt(2.0))


def suite_score(x: np.ndarray, v: np.ndarray, w: np.ndarray, alpha: float) -> SystemScore:
    """A system's weighted mean with its suite variance and normal interval."""
    mean, se = float(w @ x), math.sqrt(float(w ** 2 @ v))
    return SystemScore(mean, ConfidenceInterval(*normal_interval(mean, se, alpha,
                                                                 "two-sided")), se)


def _strata(design: Design, layout: Layout, xa, xb, va, vb, args: Arguments,
            alpha: float) -> tuple:
    """Each stratum's own suite difference (its items' weights renormalised)."""
    if design.strata_names is None:
        return ()
    stratum = layout.unit_stratum[layout.units]
    out = []
    for h, name in enumerate(design.strata_names):
        rows = stratum == h
        w = layout.weights[rows] / layout.weights[rows].sum()
        est = float(w @ (xb[rows] - xa[rows]))
        se = math.sqrt(float(w ** 2 @ (va[rows] + vb[rows])))
        out.append(StratumResult(
            name=name, weight=float(design.weights[h]),
            n_items=int(design.items_per_stratum[h]),
            n_groups=int(design.units_per_stratum[h]) if design.n_groups is not None else None,
            estimate=est, standard_error=se,
            confidence_interval=ConfidenceInterval(*normal_interval(
                est, se, alpha, args.alternative)),
            p_value=normal_p(est, se, args.alternative),
            score_a=suite_score(xa[rows], va[rows], w, alpha),
            score_b=suite_score(xb[rows], vb[rows], w, alpha)))
    return tuple(out)

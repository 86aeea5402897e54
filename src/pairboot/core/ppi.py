"""The prediction-powered comparison (:func:`pairboot.compare_ppi`): B - A of the gold
metric from a judge's scores on every item and gold labels on a random subset.

Three estimates on the same data: the judge's B - A on every item (biased by its
errors), the gold labels' B - A on the labelled items, and the prediction-powered one
(PPI++, :mod:`pairboot.stats.ppi`), whose weight ``lam`` is tuned on the per-item
differences ``gold_b - gold_a`` against ``judge_b - judge_a``; each system's corrected
score has its own ``lam``, and the judge's bias (gold - judge) its own interval.

The closed form (``method="clt"``) is PPI++'s normal interval.  The bootstrap
(PPBoot, Zrnic 2024) draws the units through the engine: the labelled and the
unlabelled items are two draw strata, each drawn with replacement to its own size, the
same draws for A and B and for every estimate (the gold subset was a random sample of
fixed size, so a resample keeps ``n`` labelled and ``N`` unlabelled items, as the
closed form's two independent means assume).  With groups the units are groups: two
strata when every group is labelled whole or not at all, else one stratum of groups
carrying both their labelled and unlabelled items (the labelled count then varies from
resample to resample, as it did when the items were drawn).  ``lam`` is held at its
value on the data in every resample, as PPI++'s interval holds it.
"""

from __future__ import annotations

import math
import numbers
import warnings as _warnings

import numpy as np

from pairboot._version import __version__
from pairboot.core.ppi_engine import evaluated, judged, ppi_seed
from pairboot.engine import resample_sums
from pairboot.errors import (
    DegenerateDataWarning,
    InputError,
    PairbootWarning,
    SmallSampleWarning,
)
from pairboot.inputs.gold import check_gold
from pairboot.metrics import Metric, resolve_metric
from pairboot.options import Arguments, Data
from pairboot.results.compare import ConfidenceInterval, SystemScore
from pairboot.results.ppi import PPIEstimate, PPIResult
from pairboot.stats.hypotheses import interval_alpha, read_test
from pairboot.stats.intervals import Bootstrap, bounds, monte_carlo_error, p_value
from pairboot.stats.ppi import normal_bounds, normal_p_value, selection_p_value

__all__ = ["PPI_METHODS", "check_lam", "check_ppi_method", "compare_ppi_items", "ppi_metric"]

PPI_METHODS = ("percentile", "basic", "normal", "clt")
"""The intervals of a prediction-powered comparison: the bootstrap's, or the closed form."""

FEW_GOLD = 30
"""Below this many labelled items (groups, with groups) the normal and bootstrap
intervals of a mean cover less than their level: a warning says so."""

SELECTED_BELOW = 0.001
"""A selection p-value below this flags the labels as chosen, not drawn at random
(:func:`selection_note`): a random sample is flagged once in a thousand."""


def gold_notes(design, *, family: bool = False) -> list:
    """The notes on the gold labels of a (``family``: several) comparison: too few
    labelled items (groups) for the intervals' level, and labels that look chosen by
    the scores (:func:`selection_note`)."""
    lab, codes = design.scores.labelled, design.codes
    units = int(lab.sum()) if codes is None else len(np.unique(codes[lab]))
    notes = []
    if units < FEW_GOLD:
        them = ("intervals may cover less than their level (their variance is" if family
                else "interval may cover less than its level (its variance is")
        notes.append((SmallSampleWarning, (
            f"only {units} labelled {'items' if codes is None else 'groups'}: the {them} "
            f"estimated from them); label {FEW_GOLD} or more")))
    selected = selection_note(design)
    if selected is not None:
        notes.append(selected)
    return notes


def selection_note(design) -> tuple | None:
    """The warning for gold labels that look chosen by the scores: the judge's scores
    (each system's statistics, their differences from the first system's, and the
    squared deviations of both) on the labelled items against the unlabelled ones,
    within strata and by group (:func:`pairboot.stats.ppi.selection_p_value`); None
    when they look random."""
    judge = design.scores.judge  # (n, M, k)
    columns = [judge[:, m, :] for m in range(judge.shape[1])]
    columns += [judge[:, m, :] - judge[:, 0, :] for m in range(1, judge.shape[1])]
    values = np.concatenate(columns, axis=1)
    # and their squared deviations: labels chosen at both ends (where the judges
    # disagree most, either way) move the spread, not the mean
    values = np.concatenate([values, (values - values.mean(axis=0)) ** 2], axis=1)
    p = selection_p_value(values, design.scores.labelled, design.strata, design.weights)
    if not p < SELECTED_BELOW:
        return None
    return (PairbootWarning, (
        f"the judge's scores on the labelled items differ from those on the unlabelled "
        f"ones more than a random sample's would (p = {p:.2g}, the smallest of "
        f"{values.shape[1]} z tests times their number): gold labels "
        "chosen by the scores (the disagreements, the hard items) void the interval; "
        "label a random sample (within strata, give `strata`)"))



def undefined_note(design, metric, lams: list, names, params) -> tuple | None:
    """The warning for a pooled metric undefined on the data (its convention's value
    taken, as compare warns of it), naming the systems and the estimates; None when
    it is defined everywhere (or for a mean).  A metric without a convention (its
    ``undefined`` NaN) undefined on the gold labels or the corrected statistics is
    refused, naming ``params[s]`` (system s's gold argument): NaN is no answer."""
    if metric is None:
        return None
    where = design.undefined(metric, lams)
    if not where:
        return None
    what = {"gold": "gold labels", "judge": "judge's scores",
            "ppi": "prediction-powered statistics"}
    if math.isnan(metric.undefined):
        for kind, s in where:
            if kind != "judge":
                raise InputError(
                    f"`{params[s]}`: metric {metric.name!r} is undefined (e.g. 0/0) on "
                    f"{names[s]}'s {what[kind]} and has no value for that case: no "
                    "estimate; label more items", param=params[s].split("[")[0])
    said = ", ".join(
        f"{names[s]}'s " + " and ".join(what[kind] for kind, t in where if t == s)
        for s in dict.fromkeys(t for _, t in where))
    return (DegenerateDataWarning, (
        f"metric {metric.name!r} is undefined (e.g. 0/0) on {said}; taken as "
        f"{metric.undefined:g} (the metric's convention), which the interval does not "
        "know: label more items, or choose a metric defined there"))


def ppi_metric(metric, runs, judge) -> tuple[Metric | None, int | None]:
    """The metric of a prediction-powered comparison, from the registry: None for the
    mean (one score per item, corrected as it is), else the pooled :class:`Metric`
    whose statistics are corrected count by count; and its input columns (None: 1-D).
    ``judge`` is one system's judge scores, whose shape says the columns (with
    ``runs="samples"``: items x calls, x statistics for a pooled metric)."""
    if runs not in (None, "samples"):
        raise InputError(f"`runs={runs!r}`: a judge's several calls per item are samples "
                         "of the judge; give `runs='samples'`", param="runs")
    shape = np.shape(judge)
    lead = 2 if runs else 1
    n_columns = shape[lead] if len(shape) > lead else 1
    mean = getattr(metric, "mean_like", False) or (
        isinstance(metric, str) and metric.strip().lower() == "mean")
    if mean and n_columns != 1:
        raise InputError(f"`judge_a` has {n_columns} columns and the mean reads one score "
                         "per item" + ("" if runs else ": several judge calls per item are "
                                       "`runs='samples'`, a pooled metric's statistics "
                                       "`metric=`"), param="judge_a")
    m = resolve_metric(metric, n_columns)
    return (None, None) if m.mean_like else (m, n_columns)


def effective_gold(n_gold: int, gold_se: float, ppi_se: float) -> float:
    """How many gold labels the prediction-powered estimate is worth: the labelled
    items times the gold-only variance over the prediction-powered one."""
    if ppi_se > 0:
        return n_gold * (gold_se / ppi_se) ** 2
    return math.inf if gold_se > 0 else float(n_gold)


def ppi_bootstrap(design, keys, lams: dict, closed: dict, args: Arguments, notes: list):
    """PPBoot on one set of draws for every estimate of ``keys``: ``(boots, seed,
    replicates)``, each keyed ``(kind, key)`` as ``closed`` (the closed forms, whose
    estimates the bootstraps centre on), the seed derived from the units when none is
    given; the resamples whose estimate is undefined are left out of its
    :class:`Bootstrap`, and a note in ``notes`` says how many."""
    plan, home = design.plan()
    seed = args.seed if args.seed is not None else ppi_seed(plan, args.n_resamples)
    sums, _ = resample_sums(plan, args.n_resamples, seed, backend=args.backend,
                            progress=args.progress)
    reps = design.replicates(sums, home, keys, lams)
    boots, dropped = {}, 0
    for key, theta in reps.items():
        ok = np.isfinite(theta)
        dropped = max(dropped, int((~ok).sum()))
        boots[key] = Bootstrap.from_replicates(closed[key][0], theta[ok])
    if dropped:
        notes.append((DegenerateDataWarning, (
            f"{dropped} of {args.n_resamples} resamples drew no labelled (or no "
            "unlabelled) item, or left the metric undefined: left out of the intervals; "
            "label whole groups, or more of them")))
    return boots, seed, reps


def compare_ppi_items(judge_a, judge_b, gold_a, gold_b, args: Arguments, data: Data,
                      method: str, *, lam: float | None = None, clip: bool = True,
                      stacklevel: int = 2) -> PPIResult:
    """compare_ppi()'s answer on checked options (``method`` one of
    :data:`PPI_METHODS`; ``lam`` a fixed weight, else tuned, within [0, 1] with
    ``clip``); its notes are warned ``stacklevel`` frames up."""
    metric, k = ppi_metric(data.metric, args.runs, judge_a)
    scores = check_gold(judge_a, judge_b, gold_a, gold_b, data.groups, data.strata, k=k,
                        prepare=None if metric is None else metric.per_item, runs=args.runs)
    design = judged(scores, data.groups, data.strata, data.strata_weights,
                    None if metric is None else evaluated(metric))
    n = len(scores.labelled)
    n_groups, n_strata = design.n_groups, design.n_strata
    notes: list = []
    lab = scores.labelled
    keys = {"a": ("s", 0), "b": ("s", 1), "d": ("d", 0, 1)}
    tuned = design.power_weights(list(keys.values()), lam, clip)
    lams = {name: tuned[key] for name, key in keys.items()}
    undefined = undefined_note(design, metric, [lams["a"], lams["b"]], ("A", "B"),
                               ("gold_a", "gold_b"))

    def by_name(values: dict) -> dict:
        """``(kind, key)`` -> ``(kind, "a" | "b" | "d")``."""
        return {(kind, name): v for (kind, key), v in values.items()
                for name in keys if keys[name] == key}

    raw_closed = design.closed_forms(list(keys.values()), tuned)
    closed = by_name(raw_closed)
    n_gold = int(lab.sum())
    effective = effective_gold(n_gold, closed["gold", "d"][1], closed["ppi", "d"][1])

    # the bootstrap, on the same draws for every estimate
    boots: dict = {}
    seed = args.seed
    if method != "clt":
        raw, seed, raw_reps = ppi_bootstrap(design, list(keys.values()), tuned, raw_closed,
                                            args, notes)
        boots, reps = by_name(raw), by_name(raw_reps)

    alpha = 1.0 - args.confidence_level

    def row_interval(key) -> tuple[ConfidenceInterval, float]:
        est, se = closed[key]
        if method == "clt":
            return ConfidenceInterval(*normal_bounds(est, se, alpha)), se
        boot = boots[key]
        return ConfidenceInterval(*bounds(method, boot, alpha)), boot.sd

    def score(kind, key) -> SystemScore:
        interval, se = row_interval((kind, key))
        return SystemScore(closed[kind, key][0], interval, se)

    def estimate_row(kind, name, n_read) -> PPIEstimate:
        interval, se = row_interval((kind, "d"))
        return PPIEstimate(name, closed[kind, "d"][0], interval, se, score(kind, "a"),
                           score(kind, "b"), n_read)

    bias_est, bias_se = closed["bias", "d"]  # (does the judge's error differ by system?)
    bias_p = (normal_p_value(bias_est, bias_se) if method == "clt"
              else p_value(method, boots["bias", "d"]))
    est, se = closed["ppi", "d"]
    if method == "clt":
        (low, high), p, parts = read_test(
            args.hypothesis, args.margin, args.alternative, alpha,
            lambda at, sides: normal_bounds(est, se, at, sides),
            lambda sides, null: normal_p_value(est, se, sides, null), args.lower_is_better)
        mc = (0.0, 0.0)
        boot_dist = np.empty(0)
    else:
        boot = boots["ppi", "d"]
        (low, high), p, parts = read_test(
            args.hypothesis, args.margin, args.alternative, alpha,
            lambda at, sides: bounds(method, boot, at, sides),
            lambda sides, null: p_value(method, boot, sides, null), args.lower_is_better,
            tol=boot.tolerance)
        mc = monte_carlo_error(method, boot, interval_alpha(args.hypothesis, alpha),
                               args.alternative)
        se = boot.sd
        boot_dist = reps["ppi", "d"]
    notes += gold_notes(design)
    if undefined is not None:
        notes.append(undefined)
    if lams["d"] == 0.0 and lam is None:
        notes.append((DegenerateDataWarning, (
            "the judge's differences do not track the gold ones on the labelled items "
            "(lam = 0): the prediction-powered B - A is the gold labels' alone")))
    for category, text in notes:
        _warnings.warn(text, category, stacklevel=stacklevel + 1)
    return PPIResult(
        estimate=est, confidence_interval=ConfidenceInterval(low, high),
        confidence_level=args.confidence_level, method=method, standard_error=se,
        p_value=p, lam=lams["d"], lam_a=lams["a"], lam_b=lams["b"],
        effective_gold=float(effective), score_a=score("ppi", "a"),
        score_b=score("ppi", "b"),
        judge_only=estimate_row("judge", "judge", n),
        gold_only=estimate_row("gold", "gold", n_gold),
        prediction_powered=estimate_row("ppi", "prediction-powered", n),
        bias_a=score("bias", "a"), bias_b=score("bias", "b"), bias=score("bias", "d"),
        bias_p_value=bias_p,
        n_items=n, n_gold=n_gold, n_groups=n_groups, n_strata=n_strata,
        bootstrap_distribution=boot_dist,
        n_resamples=args.n_resamples if method != "clt" else 0,
        seed=None if method == "clt" else int(seed),
        alternative=args.alternative, hypothesis=args.hypothesis, margin=args.margin,
        lower_is_better=args.lower_is_better, p_values=parts,
        monte_carlo_error=ConfidenceInterval(*mc), version=__version__,
        tuning="fixed" if lam is not None else "clipped" if clip else "free",
        warnings=tuple(text for _, text in notes),
        metric="mean" if metric is None else metric.name,
        judge_calls=design.judge_calls())


def check_lam(lam, clip) -> tuple[float | None, bool]:
    """``lam``: None (tuned) or a finite number; ``clip``: True or False."""
    if lam is not None and (isinstance(lam, bool) or not isinstance(lam, numbers.Real)
                            or not math.isfinite(lam)):
        raise InputError(f"`lam` must be None (tuned from the data) or a finite number, "
                         f"got {lam!r}", param="lam")
    if not isinstance(clip, (bool, np.bool_)):
        raise InputError(f"`clip` must be True or False, got {clip!r}", param="clip")
    return (None if lam is None else float(lam)), bool(clip)


def check_ppi_method(method) -> str:
    """``method`` one of :data:`PPI_METHODS` (bca and the studentized bootstrap need
    the jackknife and per-resample standard errors this comparison does not keep)."""
    if method not in PPI_METHODS:
        raise InputError(f"`method` of a prediction-powered comparison is one of "
                         f"{', '.join(PPI_METHODS)}, got {method!r}", param="method")
    return method

"""One family procedure, for the bootstrap's families (:mod:`pairboot.core.family`) and
the runs' (:mod:`pairboot.comparisons.runs.family`) alike: the corrections as one table
(:data:`CORRECTIONS`), the decision of every row (:func:`decide`, :func:`decide_rows`)
and the one assembly of a :class:`~pairboot.results.family.FamilyResult`
(:func:`family_answer`).

A family describes its rows once (:class:`Rows`): their estimates, standard errors and
tie tolerances, how a row's interval and p-value are read at a level, and its own
max-t (the bootstrap's on its replicates, the runs' on their t model).  A new
correction is one entry of :data:`CORRECTIONS`: its function and its words.
"""

from __future__ import annotations

import math
import warnings as _warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from pairboot._version import __version__
from pairboot.errors import PairbootWarning
from pairboot.options import Arguments
from pairboot.results.compare import ConfidenceInterval
from pairboot.results.family import Comparison, FamilyResult
from pairboot.stats.fdr import fdr_family
from pairboot.stats.hypotheses import SHOWN, claim_boundary, interval_alpha, verdict_of
from pairboot.stats.multiple import MaxT, bonferroni, holm, rank_intervals

UNCORRECTED_MAX = 3
"""More uncorrected comparisons than this are warned about."""


@dataclass(frozen=True)
class Rows:
    """A family's rows as a correction reads them."""

    est: np.ndarray
    se: np.ndarray
    tol: list
    """Each row's tie tolerance (an estimate this close to a boundary is on it)."""
    margins: list
    hypothesis: str
    alternative: str
    lower_is_better: bool
    alpha: float
    """``1 - confidence_level``."""
    family_alpha: float
    """``alpha`` as the level is written (12 decimals): a p of exactly 0.05 does not
    reject at 95%."""
    read: Callable
    """``read(at)``: every row's ``read_test`` answer (interval, p-value, ...) at ``1 - at``."""
    max_t: Callable
    """``max_t(marginal, p_raw) -> Decision``: the family's own max-t."""
    floor: float = 0.0
    """The smallest p-value a row can have (a bootstrap count's ``1 / (B + 1)``; 0 for t
    p-values): the p-values a correction adjusts are raised to it."""
    errors_at: Callable = lambda at: None
    """``errors_at(at)``: every row's Monte Carlo error at ``1 - at`` (None: none)."""


@dataclass
class Decision:
    """What a correction makes of the rows."""

    intervals: list
    marginal: list
    p_raw: np.ndarray
    p_adjusted: np.ndarray
    at: float
    """The level each row's corrected interval is read at (a claim's p scales by it)."""
    errors: list | None = None
    p_used: np.ndarray | None = None
    """The p-values the correction adjusted, where it adjusts p-values."""
    p_single: list | None = None
    critical: float | None = None
    fcr: float | None = None
    claim_scale: float = 1.0
    """A claim beyond the hypothesis is read off the row's interval at the family's
    level: its p-value times this is below alpha exactly then."""
    max_t: MaxT | None = None
    notes: list = field(default_factory=list)


def _uncorrected(rows: Rows, marginal, p_raw) -> Decision:
    m = len(p_raw)
    notes = []
    if m > UNCORRECTED_MAX:
        notes.append((
            PairbootWarning,
            f"{m} comparisons without a correction: the chance that one of them "
            f"excludes 0 by luck is well above {rows.alpha:g}; use `correction='max-t'`",
        ))
    return Decision(marginal, marginal, p_raw, p_raw, rows.family_alpha,
                    errors=rows.errors_at(rows.alpha), notes=notes)


def _max_t(rows: Rows, marginal, p_raw) -> Decision:
    return rows.max_t(marginal, p_raw)


def _split_alpha(adjust):
    """Holm's or Bonferroni's: each row's interval at ``alpha / m``."""
    def correct(rows: Rows, marginal, p_raw) -> Decision:
        m = len(p_raw)
        p_used = np.maximum(p_raw, rows.floor)
        return Decision([r[0] for r in rows.read(rows.alpha / m)], marginal, p_raw,
                        adjust(p_used), rows.family_alpha / m,
                        errors=rows.errors_at(rows.alpha / m), p_used=p_used,
                        claim_scale=float(m))
    return correct


def _false_coverage(kind: str):
    """Benjamini & Yekutieli (2005): the R discoveries' intervals at ``1 - R q / m`` keep
    their false coverage rate at q (BY's dependence factor for "by")."""
    def correct(rows: Rows, marginal, p_raw) -> Decision:
        p_used = np.maximum(p_raw, rows.floor)
        p_adjusted, fcr = fdr_family(p_used, rows.family_alpha, kind)
        return Decision([r[0] for r in rows.read(fcr)], marginal, p_raw, p_adjusted, fcr,
                        errors=rows.errors_at(fcr), p_used=p_used, fcr=fcr,
                        claim_scale=rows.family_alpha / fcr)
    return correct


@dataclass(frozen=True)
class Correction:
    """One correction: what it makes of the rows, and how a row's note names its test
    and its interval."""

    correct: Callable
    test: str
    interval: str


CORRECTIONS = {
    "max-t": Correction(_max_t, "the stepdown", "the simultaneous interval"),
    "holm": Correction(_split_alpha(holm), "Holm's test", "the Bonferroni interval"),
    "bonferroni": Correction(_split_alpha(bonferroni), "the Bonferroni test",
                             "the Bonferroni interval"),
    "bh": Correction(_false_coverage("bh"), "Benjamini-Hochberg", "the FCR-adjusted interval"),
    "by": Correction(_false_coverage("by"), "Benjamini-Yekutieli",
                     "the FCR-adjusted interval"),
    "none": Correction(_uncorrected, "the test", "the interval"),
}
"""The corrections by name (:data:`pairboot.options.CORRECTIONS`); a family of one
takes "none": it needs no correction (compare()'s answer)."""


def decide(correction: str, rows: Rows, marginal, p_raw, defined=None) -> Decision:
    """The rows under ``correction``; a row not ``defined`` (nothing to decide there)
    has NaN intervals, errors and p-values."""
    m = len(p_raw)
    decision = CORRECTIONS["none" if m == 1 else correction].correct(rows, marginal, p_raw)
    if decision.p_single is None:
        decision.p_single = [None] * m
    nan2 = (math.nan, math.nan)
    for k in np.flatnonzero(~np.array(defined if defined is not None else [True] * m)):
        k = int(k)
        decision.intervals[k] = decision.marginal[k] = nan2
        if decision.errors is not None:
            decision.errors[k] = nan2
        decision.p_raw[k] = decision.p_adjusted[k] = math.nan
        if decision.p_used is not None:
            decision.p_used[k] = math.nan
        if decision.p_single[k] is not None:
            decision.p_single[k] = math.nan
    if decision.errors is not None:
        decision.errors = [nan2 if np.isnan(b).any() else e
                           for b, e in zip(decision.intervals, decision.errors)]
    return decision


def decide_rows(names, targets, rows: Rows, decision: Decision, correction: str,
                claim_p: Callable, *, units=None, fewest: int = 0, family_test=None,
                defined=None) -> list[Comparison]:
    """Every row's :class:`~pairboot.results.family.Comparison`: significant when its
    adjusted p-value is below the family's alpha, its verdict from its interval (the
    test's claim where the interval does not show it), a note where the two disagree;
    ``units`` (each row's units) below ``fewest`` decide nothing.  ``claim_p(k,
    boundary)``: row ``k``'s p-value of a claim beyond its hypothesis.
    ``family_test``: Westfall and Young's permutation test of the rows, beside them."""
    hyp, lower = rows.hypothesis, rows.lower_is_better
    family_alpha = rows.family_alpha
    words = CORRECTIONS[correction if len(targets) > 1 else "none"]
    comparisons = []
    for k, (i, j) in enumerate(targets):
        interval = decision.intervals[k]
        significant = bool(decision.p_adjusted[k] < family_alpha)
        verdict = verdict_of(hyp, rows.margins[k], interval, lower)
        excludes = verdict in SHOWN[hyp]
        note = None
        few = units is not None and units[k] < fewest
        if few:  # (too few for any test at the level: design_notes says why)
            significant = False
            note = (f"{units[k]} unit{' is' if units[k] == 1 else 's are'} too few for a "
                    "decision at this level")
        elif significant != excludes:
            what = "0" if hyp == "difference" else "the margin's boundary"
            note = (f"{words.test} rejects, but {words.interval} includes {what}"
                    if significant else
                    f"{words.interval} excludes {what}, but {words.test} does not reject")
        if few or np.isnan(interval).any():
            verdict = "undefined"
        elif not significant:
            verdict = "inconclusive"
        elif not excludes:  # (the test's claim, which its interval does not show)
            verdict = claim_of(hyp, rows.est[k], lower)
        boundary = claim_boundary(verdict, hyp, rows.margins[k], lower)
        tested = {}
        if family_test is not None:
            adjusted = float(family_test.p_adjusted[k])
            # (an uncorrected family is set beside the test's own p, not its adjusted one)
            held = float(family_test.p_values[k]) if correction == "none" else adjusted
            tested = dict(test_p_value=float(family_test.p_values[k]),
                          test_p_adjusted=adjusted,
                          test_disagrees=bool(math.isfinite(held) and defined[k]
                                              and (held < family_alpha) != significant))
        p_used = decision.p_raw if decision.p_used is None else decision.p_used
        p_single = decision.p_single[k]
        comparisons.append(Comparison(
            a=names[i], b=names[j], estimate=float(rows.est[k]),
            confidence_interval=ConfidenceInterval(*map(float, interval)),
            marginal_interval=ConfidenceInterval(*map(float, decision.marginal[k])),
            standard_error=float(rows.se[k]), p_value=float(decision.p_raw[k]),
            p_value_used=float(p_used[k]), p_adjusted=float(decision.p_adjusted[k]),
            p_single_step=None if p_single is None else float(p_single),
            significant=significant, note=note,
            monte_carlo_error=None if decision.errors is None else ConfidenceInterval(
                *map(float, decision.errors[k])),
            margin=rows.margins[k], verdict=verdict,
            claim_p_value=None if boundary is None else float(claim_p(k, boundary)),
            **tested,
        ))
    return comparisons


@dataclass(frozen=True, slots=True)
class Ran:
    """What a family's answer says ran, beside its options: the seed used (derived when
    none was given), the interval's method, the metric, the design's sizes and the
    engine (a bootstrap's or the runs' t intervals)."""

    seed: int
    method: str
    metric: str
    paired: bool
    group_weighting: str | None
    """The weighting of groups, None without groups."""
    n_items: int
    n_groups: int | None
    n_strata: int | None
    engine: str
    test: str | None = None
    """The family's test beside its intervals ("permutation": Westfall-Young's)."""


def family_answer(comparisons, names, targets, rows: Rows, decision: Decision, notes, *,
                  args: Arguments, ran: Ran, systems, stacklevel: int, ranked: bool = True,
                  partial_conjunction=None, strata_family=None) -> FamilyResult:
    """The one assembly of a family's answer: its rows, their ranks (all pairs of a
    two-sided difference, where ``ranked``), its options (``args``) and what ran;
    ``notes`` are issued as warnings ``stacklevel`` frames up."""
    side, hyp, margins = rows.alternative, rows.hypothesis, rows.margins
    ranks = best = None
    if ranked and side == "two-sided" and hyp == "difference":
        # (one-sided rows cannot rank both ways; equivalence says nothing of order)
        ranks, best = family_ranks(names, targets, comparisons, rows.lower_is_better)
    for category, text in notes:
        _warnings.warn(text, category, stacklevel=stacklevel)
    fcr = decision.fcr
    return FamilyResult(
        comparisons=tuple(comparisons), systems=systems, rank_intervals=ranks,
        best_set=best, correction=args.correction, family_size=len(targets),
        critical_value=decision.critical, confidence_level=args.confidence_level,
        n_resamples=args.n_resamples, seed=ran.seed, method=ran.method, metric=ran.metric,
        lower_is_better=bool(rows.lower_is_better), paired=ran.paired,
        group_weighting=ran.group_weighting, n_items=ran.n_items, n_groups=ran.n_groups,
        n_strata=ran.n_strata, engine=ran.engine, resampling=args.resampling,
        alternative=side, hypothesis=hyp,
        margin=margins[0] if len(set(margins)) == 1 else None,
        fcr_level=None if fcr is None else round(1.0 - interval_alpha(hyp, fcr), 12),
        partial_conjunction=partial_conjunction, test=ran.test,
        strata_family=strata_family, version=__version__,
        warnings=tuple(text for _, text in notes),
    )


def family_ranks(names, targets, comparisons, lower_is_better: bool):
    """``(rank intervals, best set)`` when every pair was decided, else ``(None, None)``:
    a system's rank lies between 1 + the systems surely better and M - the systems surely
    worse (the family's decisions, as the report's letters)."""
    m = len(names)
    if len(targets) != m * (m - 1) // 2 or len({frozenset(t) for t in targets}) != len(
            targets):  # (every pair once: M(M-1)/2 distinct pairs of M systems)
        return None, None
    better = np.zeros((len(names), len(names)), dtype=bool)
    for (i, j), c in zip(targets, comparisons):
        if c.significant and c.estimate != 0:
            b_wins = (c.estimate > 0) != lower_is_better
            better[(j, i) if b_wins else (i, j)] = True
    ranks = rank_intervals(names, better)
    return ranks, tuple(name for name in names if ranks[name][0] == 1)


def claim_of(hypothesis: str, estimate: float, lower_is_better: bool) -> str:
    """The verdict a rejection of ``hypothesis``'s null claims, whatever the interval
    shows beyond it (a difference: better or worse by the estimate's sign)."""
    if hypothesis == "difference":
        return "better" if (estimate > 0) != lower_is_better else "worse"
    return {"non-inferiority": "non-inferior", "superiority": "better-by-margin",
            "equivalence": "equivalent"}[hypothesis]

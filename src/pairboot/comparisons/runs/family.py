"""compare_many() with several runs per system (``runs="seeds"`` or ``"samples"``).

``"samples"``: the items' mean scores (or their pass^k ...) through
:func:`pairboot.compare_many`.  ``"seeds"``:
each comparison is :func:`pairboot.compare`'s t interval on the two-way variance
(:mod:`pairboot.comparisons.runs.analysis`, :mod:`pairboot.comparisons.runs.two`), and the
family's error rate is
controlled by max-t on the rows' p-values (:func:`_max_t_runs`), Holm, Bonferroni, or
not at all.
"""

from __future__ import annotations

import hashlib
import math

import numpy as np

from pairboot.comparisons.runs.analysis import analyse, as_table, run_terms, small_runs_note
from pairboot.comparisons.runs.two import (
    difference,
    layout_of,
    runs_score,
    seeds_only,
    trials_values,
)
from pairboot.comparisons.runs.variance import Layout
from pairboot.core.corrections import Decision, Ran, Rows, decide, decide_rows, family_answer
from pairboot.core.family import compare_family, family_systems, family_targets, row_margins
from pairboot.core.pipeline import check_margin
from pairboot.core.scales import scale_notes, table_range
from pairboot.errors import InputError
from pairboot.metrics import trials_metric
from pairboot.options import Arguments, Data
from pairboot.stats.hypotheses import (
    claim_tests,
    less_tie,
    read_test,
    tie_tolerance,
)
from pairboot.stats.intervals import normal_quantile
from pairboot.stats.multiple import max_t

__all__ = ["compare_many_runs"]

_MAX_T_STREAM = 0x6D617874  # "maxt": spawn key of a runs family's max-t draws


def compare_many_runs(scores, args: Arguments, data: Data, *, stacklevel: int = 3):
    """:func:`pairboot.compare_many` for items x runs tables (see
    :mod:`pairboot.comparisons.runs.analysis`), on checked options.

    ``"samples"``: the items' mean scores through :func:`pairboot.compare_many` (every
    correction).  ``"seeds"``: each comparison's ``V``, degrees of freedom and t interval
    as :func:`pairboot.compare` gives them (groups and strata included), with max-t
    (:func:`_max_t_runs`), Holm's or Bonferroni's correction (t intervals at
    ``alpha / m``), or none.
    """
    runs, paired_runs, correction = args.runs, args.paired_runs, args.correction
    lower_is_better = args.lower_is_better
    names, values = family_systems(scores)
    trials = trials_metric(data.metric)
    if trials is not None:  # (pass^k ...: the items' estimates, a family of scores)
        *estimates, data = trials_values(values, names, trials, args, data)
        return compare_family(dict(zip(names, estimates)), args, data,
                              stacklevel=stacklevel + 1)
    tables = [as_table(v, name, runs) for name, v in zip(names, values)]
    if runs == "samples":
        if paired_runs:
            raise InputError("`paired_runs` is for runs='seeds'", param="paired_runs")
        means = {name: np.nanmean(t, axis=1) for name, t in zip(names, tables)}
        return compare_family(means, args, data, stacklevel=stacklevel + 1)
    _check_seeds(tables, args, data)
    layout = layout_of(len(tables[0]), args, data)
    targets = family_targets(names, data.baseline, data.pairs,  # (max-t resamples the family)
                             args.n_resamples if correction == "max-t" else None)
    alpha = 1.0 - args.confidence_level
    family_alpha = round(alpha, 12)  # as compare_many: a p of exactly 0.05 does not reject
    m = len(targets)
    # each row is compare()'s t interval; its df depend on the level a little
    # (runs._satterthwaite), so the corrected intervals take them at their own level and
    # the p-values are the smallest level whose interval excludes 0
    infos = [analyse(tables[i], tables[j], "seeds", paired_runs, layout, alpha=alpha)
             for i, j in targets]
    est = np.array([difference(tables[i], tables[j], layout) for i, j in targets])
    se = np.sqrt([info.variance for info in infos])
    tol = [tie_tolerance(e, s) for e, s in zip(est, se)]  # (as compare()'s runs)
    side, hyp = args.alternative, args.hypothesis
    margins = row_margins(args, names, targets)
    if args.margin is not None:  # (the mean of the runs' scores: their span)
        check_margin(max(margins), None, [(float(t.min()), float(t.max())) for t in tables])
    if hyp == "equivalence" and correction == "max-t" and m > 1:
        raise InputError("equivalence with runs='seeds' takes `correction` 'holm', "
                         "'bonferroni', 'bh', 'by' or 'none' (max-t on the runs' t "
                         "statistics tests one boundary per row)", param="correction")

    def read(at: float):  # every row's t interval, p and TOST parts at 1 - at
        return [read_test(hyp, mk, side, at,
                          lambda a, s, info=info, e=e: info.interval(e, a, s),
                          lambda s, v, info=info, e=e, d=d: info.p_value(
                              less_tie(e - v, d), s),
                          lower_is_better, tol=d)
                for info, e, mk, d in zip(infos, est, margins, tol)]

    own = read(alpha)
    seed = args.seed if args.seed is not None else _table_seed(tables, args.n_resamples)

    def runs_max_t(marginal, p_raw) -> Decision:
        """Max-t on the rows' t p-values (:func:`_max_t_runs`): each row's interval at
        the two-sided level ``2 (1 - Phi(c))`` (one-sided: one tail)."""
        mt = _max_t_runs(tables, targets, paired_runs, layout, p_raw, alpha,
                         args.n_resamples, seed, one_sided=side != "two-sided")
        tail = 0.5 * math.erfc(mt.critical_value / math.sqrt(2.0))  # each row's: 2 tails
        level = tail if side != "two-sided" else 2.0 * tail  # (one, one-sided)
        return Decision([r[0] for r in read(level)], marginal, p_raw,
                        np.maximum(mt.p_stepdown, p_raw), level,
                        p_single=np.maximum(mt.p_single_step, p_raw).tolist(),
                        critical=mt.critical_value)

    rows = Rows(est, se, tol, margins, hyp, side, lower_is_better, alpha, family_alpha,
                read, runs_max_t)
    decision = decide(correction, rows, [r[0] for r in own], np.array([r[1] for r in own]))

    def claim_p(k: int, boundary: float) -> float:
        """Row ``k``'s claim against ``boundary`` (beyond its hypothesis), adjusted as
        its interval is: its t p-value over the share of alpha that interval is read
        at."""
        ((sides, _),) = [t for t in claim_tests(hyp, margins[k], side, lower_is_better)
                         if t[1] == boundary]
        raw = float(infos[k].p_value(less_tie(est[k] - boundary, tol[k]), sides))
        at = decision.at
        return min(1.0, raw * family_alpha / at) if at != family_alpha else raw

    comparisons = decide_rows(names, targets, rows, decision, correction, claim_p)
    notes = decision.notes + small_runs_note(min(infos, key=lambda x: x.degrees_of_freedom))
    notes += scale_notes((name, table_range(t)) for name, t in zip(names, tables))
    ran = Ran(seed=int(seed), method="t", metric="mean", paired=True,
              group_weighting=args.group_weighting if layout.grouped else None,
              n_items=int(tables[0].shape[0]),
              n_groups=layout.n_units if layout.grouped else None,
              n_strata=(int(layout.unit_stratum.max()) + 1) if layout.stratified else None,
              engine="runs (t intervals)")
    return family_answer(
        comparisons, names, targets, rows, decision, notes, args=args, ran=ran,
        systems={name: runs_score(t, t_for=alpha, layout=layout)
                 for name, t in zip(names, tables)},
        stacklevel=stacklevel)


def _check_seeds(tables, args: Arguments, data: Data) -> None:
    """What a seeds family needs, and the options it would otherwise ignore."""
    if not (isinstance(data.metric, str) and data.metric == "mean"):
        raise InputError("a family with runs='seeds' supports metric 'mean' only",
                         param="metric")
    seeds_only(args)
    if args.resampling != "classic":
        raise InputError("a family with runs='seeds' is t intervals on the two-way "
                         "variance and draws no items: leave `resampling` at 'classic'",
                         param="resampling")
    if len({t.shape[0] for t in tables}) != 1:
        raise InputError("every system must score the same items", param="scores")
    if args.paired_runs and len({t.shape[1] for t in tables}) != 1:
        raise InputError("`paired_runs` needs as many runs of every system: "
                         f"{sorted({t.shape[1] for t in tables})}", param="paired_runs")


def _contrast_model(tables, targets, paired_runs: bool, layout: Layout):
    """A model of the comparisons' estimates for max-t: ``(cov, items, own, dof)``.

    The systems' means have the items' design covariance of their run means plus a run
    variance ``own[s]`` per system (estimated from ``dof[s]`` degrees of freedom), the
    systems' run effects taken as independent.  Unpaired, ``own[s]`` is each system's
    run part.  With paired runs the shared seed effect cancels in every difference, and
    the rest is estimated from few runs (a sample covariance of 3 runs has rank 2:
    docs/runs.md), so ``own`` is fitted by least squares to the pairs' run parts
    ``own[i] + own[j]``.  ``cov``: the comparisons' covariance;
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


def _max_t_runs(tables, targets, paired_runs, layout, p_values, alpha, n_resamples, seed,
                one_sided: bool = False):
    """Max-t for t statistics with few degrees of freedom each, on the normal scale of
    their p-values (``z = Phi^-1(1 - p / 2)``: rows with different df become comparable).

    The maximum's law is drawn (seeded) from a normal law with the comparisons'
    correlation (:func:`_contrast_model`), but only the part of each comparison's
    variance that comes from the items (many degrees of freedom) correlates: the
    correlation is ``rho_kl sqrt(s_k s_l)``, ``s_k`` the items' share.  An exceedance of
    a t with few df comes mostly from a run variance that happened to be estimated small,
    and those estimates are not shared the way the numerators are (the coverage with
    and without the shrinking: docs/runs.md).  Where the items dominate this is the
    usual max-t.  A row's single-step p-value is
    below alpha exactly when its own t interval at the two-sided level ``2 (1 - Phi(c))``
    excludes 0; the stepdown may reject more (a note says so).  ``one_sided``: the
    p-values are one-sided, ``z = Phi^-1(1 - p)`` signed, and the maximum is signed."""
    cov, items, _, _ = _contrast_model(tables, targets, paired_runs, layout)
    var = np.diag(cov)
    sd = np.sqrt(np.maximum(var, 0.0))
    share = np.where(var > 0, np.minimum(1.0, items / np.where(var > 0, var, 1.0)), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        corr = np.where(np.outer(sd, sd) > 0, cov / np.outer(sd, sd), 0.0)
    corr = corr * np.sqrt(np.outer(share, share))
    np.fill_diagonal(corr, 1.0)
    z = np.array([max(-37.0, min(37.0, -normal_quantile(p if one_sided else p / 2.0)))
                  for p in p_values])
    values, vectors = np.linalg.eigh(corr)
    root = vectors * np.sqrt(np.maximum(values, 0.0))
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(
        int(seed), spawn_key=(_MAX_T_STREAM,))))
    draws = rng.standard_normal((int(n_resamples), len(z))) @ root.T
    return max_t(z, np.ones(len(z)), z + draws, alpha,
                 "greater" if one_sided else "two-sided")


def _table_seed(tables, n_resamples: int) -> int:
    """The seed of a family given none: a hash of the tables, so the same inputs give
    the same output (as compare() derives its seed)."""
    h = hashlib.blake2b(digest_size=8, person=b"pairboot-runs")
    for t in tables:
        h.update(np.ascontiguousarray(t, dtype="<f8").tobytes())
        h.update(np.asarray(t.shape, dtype="<i8").tobytes())
    h.update(str(int(n_resamples)).encode())
    return int.from_bytes(h.digest(), "little") >> 1

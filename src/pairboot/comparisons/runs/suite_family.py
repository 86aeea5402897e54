"""compare_many()'s fixed-suite intervals of repeated trials (``runs="samples"``,
``estimand="suite"``): every comparison of the family on the suite's items, only the
trials varying (:mod:`pairboot.comparisons.runs.suite` for one pair).

System s's score is ``T_s = sum_i w_i x_si`` (``x_si`` item i's estimate, its mean or
its pass^k ...), with the variance ``V_s = sum_i w_i^2 v_si`` over redraws of the
trials (``v_si`` the unbiased variance of ``x_si``,
:func:`~pairboot.comparisons.runs.suite.item_estimates`).  Given the items, every
system's trials are drawn independently of the others', so the systems' scores are
independent and the comparisons ``D_k = T_j - T_i`` are a normal vector whose
covariance is known exactly from the same variances: ``Cov(D_k, D_l) = sum_s c_ks c_ls
V_s`` (``c_k`` the contrast: +1 at j, -1 at i), i.e. two comparisons correlate through
the systems they share (a baseline's variance, for every row against it).  Each row is
:func:`pairboot.compare`'s suite interval on its own; the corrections read those
normal intervals and p-values: max-t's critical value is the quantile of the largest
``|Z_k|`` for ``Z ~ N(0, corr)`` (``n_resamples`` seeded draws: its only Monte Carlo
error), Holm and Bonferroni at ``alpha / m``, BH and BY, or none.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from pairboot.comparisons.runs.suite import (
    item_estimates,
    normal_interval,
    normal_p,
    refuse_suite_options,
    suite_score,
)
from pairboot.comparisons.runs.variance import Layout
from pairboot.core.corrections import Decision, Ran, Rows, decide, decide_rows, family_answer
from pairboot.core.design import as_floats, seed_hasher
from pairboot.core.family import family_systems, family_targets, row_margins
from pairboot.core.pipeline import check_margin
from pairboot.errors import InputError
from pairboot.metrics import trials_metric
from pairboot.options import Arguments, Data
from pairboot.stats.hypotheses import claim_tests, less_tie, read_test, tie_tolerance
from pairboot.stats.intervals import normal_quantile
from pairboot.stats.multiple import max_t

__all__ = ["compare_many_suite", "suite_covariance"]

_MAX_T_STREAM = 0x73756D74  # "sumt": spawn key of a suite family's max-t draws


def suite_covariance(targets, variances) -> np.ndarray:
    """The comparisons' covariance ``C diag(V) C^T``: ``targets`` (i, j) pairs (system
    j minus system i), ``variances`` every system's ``V_s``."""
    c = np.zeros((len(targets), len(variances)))
    for k, (i, j) in enumerate(targets):
        c[k, i], c[k, j] = -1.0, 1.0
    return c @ np.diag(np.asarray(variances, dtype=np.float64)) @ c.T


def compare_many_suite(scores, args: Arguments, data: Data, *, stacklevel: int = 3):
    """:func:`pairboot.compare_many` with ``estimand="suite"`` (see the module), on
    checked options."""
    refuse_suite_options(args)
    names, tables = family_systems(scores)
    pairs = [item_estimates(t, name, data) for name, t in zip(names, tables)]
    if len({len(x) for x, _ in pairs}) != 1:
        raise InputError("every system must score the same items: "
                         f"{sorted({len(x) for x, _ in pairs})}", param="scores")
    correction, side, hyp = args.correction, args.alternative, args.hypothesis
    targets = family_targets(names, data.baseline, data.pairs,
                             args.n_resamples if correction == "max-t" else None)
    m = len(targets)
    if hyp == "equivalence" and correction == "max-t" and m > 1:
        raise InputError("equivalence with `estimand='suite'` takes `correction` 'holm', "
                         "'bonferroni', 'bh', 'by' or 'none' (max-t on the rows' normal "
                         "p-values tests one boundary per row)", param="correction")
    layout = Layout.of(len(pairs[0][0]), groups=data.groups,
                       group_weighting=args.group_weighting, strata=data.strata,
                       strata_weights=data.strata_weights)
    w = layout.weights
    variances = np.array([float(w ** 2 @ v) for _, v in pairs])
    # (each row as compare()'s suite interval computes it, to the bit)
    est = np.array([float(w @ (pairs[j][0] - pairs[i][0])) for i, j in targets])
    se = np.array([math.sqrt(float(w ** 2 @ (pairs[i][1] + pairs[j][1])))
                   for i, j in targets])
    tol = [tie_tolerance(e, s) for e, s in zip(est, se)]
    margins = row_margins(args, names, targets)
    if args.margin is not None:  # (the items' estimates: their span)
        check_margin(max(margins), None, [(float(x.min()), float(x.max())) for x, _ in pairs])
    alpha = 1.0 - args.confidence_level
    family_alpha = round(alpha, 12)  # as compare_many: a p of exactly 0.05 does not reject

    def read(at: float):  # every row's normal interval, p and TOST parts at 1 - at
        return [read_test(hyp, mk, side, at,
                          lambda a, s, e=e, sd=sd: normal_interval(e, sd, a, s),
                          lambda s, v, e=e, sd=sd, d=d: normal_p(less_tie(e - v, d), sd, s),
                          args.lower_is_better, tol=d)
                for e, sd, mk, d in zip(est, se, margins, tol)]

    own = read(alpha)
    seed = args.seed if args.seed is not None else _tables_seed(tables, args.n_resamples)

    def suite_max_t(marginal, p_raw) -> Decision:
        """Max-t on the rows' normal statistics with their exact correlation: each
        simultaneous interval is its normal interval at ``2 (1 - Phi(c))`` (one-sided:
        one tail), i.e. ``estimate +- c se``."""
        one = side != "two-sided"
        z = np.array([max(-37.0, min(37.0, -normal_quantile(p if one else p / 2.0)))
                      for p in p_raw])
        draws = _normal_draws(suite_covariance(targets, variances), args.n_resamples, seed)
        mt = max_t(z, np.ones(m), z + draws, alpha, "greater" if one else "two-sided")
        tail = 0.5 * math.erfc(mt.critical_value / math.sqrt(2.0))
        level = tail if one else 2.0 * tail
        return Decision([r[0] for r in read(level)], marginal, p_raw,
                        np.maximum(mt.p_stepdown, p_raw), level,
                        p_single=np.maximum(mt.p_single_step, p_raw).tolist(),
                        critical=mt.critical_value)

    rows = Rows(est, se, tol, margins, hyp, side, args.lower_is_better, alpha, family_alpha,
                read, suite_max_t)
    decision = decide(correction, rows, [r[0] for r in own], np.array([r[1] for r in own]))

    def claim_p(k: int, boundary: float) -> float:
        """Row ``k``'s claim against ``boundary``: its normal p-value over the share of
        alpha its interval is read at."""
        ((sides, _),) = [t for t in claim_tests(hyp, margins[k], side, args.lower_is_better)
                         if t[1] == boundary]
        raw = normal_p(less_tie(est[k] - boundary, tol[k]), se[k], sides)
        at = decision.at
        return min(1.0, raw * family_alpha / at) if at != family_alpha else raw

    comparisons = decide_rows(names, targets, rows, decision, correction, claim_p)
    trials = trials_metric(data.metric)
    ran = Ran(seed=int(seed), method="normal",
              metric="mean" if trials is None else trials.name, paired=True,
              group_weighting=args.group_weighting if layout.grouped else None,
              n_items=len(w), n_groups=layout.n_units if layout.grouped else None,
              n_strata=(int(layout.unit_stratum.max()) + 1) if layout.stratified else None,
              engine="suite (normal intervals on the trials' variance)")
    answer = family_answer(
        comparisons, names, targets, rows, decision, decision.notes, args=args, ran=ran,
        systems={name: suite_score(x, v, w, alpha) for name, (x, v) in zip(names, pairs)},
        stacklevel=stacklevel)
    return dataclasses.replace(answer, estimand="suite")


def _normal_draws(cov: np.ndarray, n: int, seed: int) -> np.ndarray:
    """``n`` seeded draws (n, m) of ``N(0, corr)``, ``corr`` the correlation of ``cov``
    (a row without variance: 0 with the others)."""
    sd = np.sqrt(np.maximum(np.diag(cov), 0.0))
    scale = np.outer(sd, sd)
    with np.errstate(divide="ignore", invalid="ignore"):
        corr = np.where(scale > 0, cov / np.where(scale > 0, scale, 1.0), 0.0)
    np.fill_diagonal(corr, 1.0)
    values, vectors = np.linalg.eigh(corr)
    root = vectors * np.sqrt(np.maximum(values, 0.0))
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(
        int(seed), spawn_key=(_MAX_T_STREAM,))))
    return rng.standard_normal((int(n), len(cov))) @ root.T


def _tables_seed(tables, n_resamples: int) -> int:
    """The seed of a family given none: a hash of the tables, so the same inputs give
    the same output (as compare() derives its seed)."""
    h = seed_hasher(b"pairboot-suite")
    for t in tables:
        y = np.ascontiguousarray(as_floats(t, "scores"), dtype="<f8")
        h.update(y.tobytes())
        h.update(np.asarray(y.shape, dtype="<i8").tobytes())
    h.update(str(int(n_resamples)).encode())
    return int.from_bytes(h.digest(), "little") >> 1

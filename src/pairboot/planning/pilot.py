"""A plan from a pilot, or an earlier evaluation: the inputs :func:`pairboot.compare`
takes, read through the design the engine builds (:func:`pairboot.core.design.build_design`).

Every contrast's variance is the delta method's on the pilot's units
(:func:`contrast_covariance`): each unit's statistics ``x_u`` times the gradient of the
contrast at the data's sums (:func:`pairboot.metrics.base.central_gradient`, as the
studentized interval's standard errors take it), whose spread within each stratum,
weighted by the stratum's squared coefficient, is the estimate's variance.  For a mean
this is the variance of the per-item differences over ``n`` (with groups, the
cluster-robust variance of the ratio; with strata, ``sum_h W_h^2 sigma_h^2 / n_h``); for a
pooled metric (F1, BLEU) the delta-method variance.  The variance per unit is that times
the pilot's units, and a planned size of ``N`` units, allocated to the strata as in the
pilot, has ``1 / N`` of it.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from pairboot.comparisons.runs.analysis import analyse, as_table
from pairboot.comparisons.runs.variance import Layout
from pairboot.core.design import Design, build_design
from pairboot.core.estimands import Estimands, observed_sums
from pairboot.core.scales import score_ranges
from pairboot.engine import weighted_sum
from pairboot.errors import InputError
from pairboot.metrics.base import central_gradient
from pairboot.options import Arguments, Data
from pairboot.planning.known import SPREAD, zero_one_caps
from pairboot.planning.model import ProportionModel, Setup, TModel, TwoProportionModel
from pairboot.planning.seeds import SeedsModel

__all__ = ["NO_SPREAD", "check_spread", "contrast_covariance", "from_pilot", "no_spread",
           "pilot_design"]

NO_SPREAD = ("the pilot's differences have no spread (every item's difference is the "
             "same): no size can be planned from it; give `sd` for the spread you expect")


def pilot_design(systems, names, args: Arguments, data: Data) -> Design:
    """The pilot's paired design, as compare() builds it."""
    return build_design(systems, names=tuple(names), metric=data.metric, paired=True,
                        groups=data.groups, group_weighting=args.group_weighting,
                        strata=data.strata, strata_weights=data.strata_weights, ids=data.ids)


def contrast_covariance(design: Design, targets) -> tuple[np.ndarray, np.ndarray]:
    """The delta-method covariance of the ``targets`` (contrasts ``(i, j)`` or systems
    ``j``) at the pilot: ``(cov (T, T), per_stratum (H, T))`` -- the second holds each
    stratum's part of every target's variance.  Within stratum ``h`` of ``m_h`` units,
    ``coef_h^2 m_h / (m_h - 1) sum_u (z_u - zbar_h)(z_u - zbar_h)'`` with ``z_u`` the
    gradient times the unit's statistics (``m_h / (m_h - 1)``: the unbiased variance;
    for a mean, the sample variance of the differences over ``n``)."""
    plan = design.plan
    observed = observed_sums(plan)
    core = Estimands(design, observed, observed)
    coef, combined = design.combination()
    x = plan.rows(0, len(plan.x))
    at = weighted_sum(core.M_hat, coef, axis=-2) if combined else core.M_hat
    typical = np.abs(core.M_hat).mean(axis=tuple(range(core.M_hat.ndim - 1)))
    z = np.empty((len(x), len(targets)))
    for k, target in enumerate(targets):
        with np.errstate(all="ignore"):
            grad = central_gradient(lambda sums, t=target: core.phi(t, sums), at,
                                    range(at.shape[-1]), typical)[0]
        for h, (s, m) in enumerate(zip(plan.starts.tolist(), plan.sizes.tolist())):
            g = grad if combined else grad[h]
            z[s:s + m, k] = x[s:s + m] @ g
    cov = np.zeros((len(targets), len(targets)))
    parts = np.zeros((design.n_strata, len(targets)))
    for h, (s, m) in enumerate(zip(plan.starts.tolist(), plan.sizes.tolist())):
        if m < 2:
            continue
        dev = z[s:s + m] - z[s:s + m].mean(axis=0)
        with np.errstate(over="ignore", invalid="ignore"):  # (refused: check_spread)
            c = coef[h] ** 2 * m / (m - 1.0) * (dev.T @ dev)
        cov += c
        parts[h] = np.diag(c)
    return cov, parts


ROUNDING = 1e-20
"""A difference's variance below this share of the systems' own is rounding: the
differences are constant (``b = a + 0.1`` computed in doubles)."""


def no_spread(variance: float, systems: float) -> bool:
    """Whether a contrast's ``variance`` is none, or only the rounding of its systems'
    (``systems``: the sum of their variances)."""
    return not variance > ROUNDING * systems or not variance > 0


def check_spread(variance: float, systems: float, units: int, *, param: str = "b",
                 what: str = "") -> None:
    """Refuse a pilot whose contrast's ``variance`` (of the estimate, over ``units``;
    ``systems``: the sum of the systems' own) has no spread (:data:`NO_SPREAD`), or whose
    per-unit variance is beyond what the planner computes with (the square of
    :data:`pairboot.planning.known.SPREAD`): scores on a scale the floats' squares do
    not hold.  ``what`` starts the message (a family's comparison)."""
    low, high = (v * v for v in SPREAD)
    per_unit = variance * units
    if not (math.isfinite(per_unit) and math.isfinite(systems)) or per_unit > high:
        raise InputError(f"{what}the pilot's differences spread too widely to plan with "
                         f"(a variance per unit above {high:g}): rescale the scores (the "
                         "plan is the same on any scale)", param=param)
    if no_spread(variance, systems):
        raise InputError(what + NO_SPREAD, param=param)
    if per_unit < low:
        raise InputError(f"{what}the pilot's differences spread too little to plan with "
                         f"(a variance per unit below {low:g}): rescale the scores (the "
                         "plan is the same on any scale)", param=param)


def _zero_one(design: Design) -> np.ndarray | None:
    """The 0/1 scores of two systems (items x 2) of a plain mean, else None."""
    if not design.metric.mean_like or design.n_groups is not None or design.n_strata > 1:
        return None
    rows = design.plan.rows(0, len(design.plan.x))
    scores = rows[:, [0, design.k]]
    return scores if np.isin(scores, (0.0, 1.0)).all() else None


def _cap(design: Design) -> float:
    """The largest difference the metric allows: the scores' range for a mean, the
    metric's span (accuracy, F1: 1; BLEU: 100), else none."""
    ranges = score_ranges(design)
    if ranges is not None:
        span = max(h for _, h in ranges) - min(lo for lo, _ in ranges)
        return span if span > 0 else math.inf
    return design.metric.span if design.metric.span is not None else math.inf


def from_pilot(a, b, args: Arguments, data: Data) -> Setup:
    """The planner's :class:`~pairboot.planning.model.Setup` from a pilot of two systems."""
    if args.runs == "seeds":
        return _seeds(a, b, args, data)
    if args.runs == "samples":
        a, b = (np.nanmean(as_table(v, n, "samples"), axis=1) for v, n in ((a, "a"), (b, "b")))
    design = pilot_design((a, b), ("a", "b"), args, data)
    cov, parts = contrast_covariance(design, [(0, 1), 0, 1])
    units = int(design.units_per_stratum.sum())
    variance = float(cov[0, 0])
    check_spread(variance, float(cov[1, 1] + cov[2, 2]), units)
    unit_variance = variance * units
    facts = {"pilot_items": design.n_items, "pilot_groups": design.n_groups,
             "metric": design.metric.name, "unit_variance": unit_variance}
    unpaired = TModel((cov[1, 1] + cov[2, 2]) * units, samples=2)
    assumptions = [f"from a pilot of {design.n_items:,} items"
                   + (f" in {design.n_groups:,} group{'' if design.n_groups == 1 else 's'}"
                      if design.n_groups else "")]
    cap = _cap(design)
    zero_one = _zero_one(design)
    if zero_one is not None:
        psi = float(np.mean(zero_one[:, 0] != zero_one[:, 1]))
        pa, pb = (float(v) for v in zero_one.mean(axis=0))
        facts.update(discordant=psi, accuracy_a=pa, sd=math.sqrt(unit_variance),
                     correlation=_correlation(zero_one))
        assumptions.append(f"0/1 scores: Connor's (1987) asymptotic McNemar test, {psi:.3g} "
                           "of the items discordant as in the pilot, which the bootstrap "
                           "interval follows")
        return Setup(ProportionModel(psi), TwoProportionModel(pa), "connor", cap=min(cap, psi),
                     caps=zero_one_caps(pa, psi), facts=facts, assumptions=tuple(assumptions),
                     cap_what="the pilot's share of discordant items")
    if design.metric.mean_like:
        rows = design.plan.rows(0, len(design.plan.x))
        facts["correlation"] = _correlation(rows[:, [0, design.k]] if design.n_groups is None
                                            else None)
    name = "paired t"
    if design.n_groups is not None:
        srs = pilot_design((a, b), ("a", "b"), dataclasses.replace(args, group_weighting="items"),
                           dataclasses.replace(data, groups=None))
        item_cov, _ = contrast_covariance(srs, [(0, 1)])
        deff = variance / float(item_cov[0, 0])
        m = design.n_items / design.n_groups
        sizes = np.asarray(design.group_sizes, dtype=np.float64)
        cv = float(sizes.std() / sizes.mean()) if len(sizes) else 0.0
        # deff = 1 + ((cv^2 + 1) m - 1) ICC (Eldridge et al. 2006), solved for the ICC
        denom = (cv * cv + 1.0) * m - 1.0
        icc = (deff - 1.0) / denom if denom > 0 else math.nan
        facts.update(design_effect=deff, icc=icc, group_size=m, group_size_cv=cv,
                     sd=math.sqrt(float(item_cov[0, 0]) * design.n_items))
        assumptions.append(f"groups of {m:.3g} item{'' if m == 1 else 's'} on average "
                           f"(cv {cv:.2g}): design "
                           f"effect {deff:.3g}, intra-cluster correlation {icc:.3g}")
        name = "design effect"
    else:
        facts["sd"] = math.sqrt(unit_variance)
    strata_plans = ()
    if design.strata_names is not None and design.n_strata > 1:
        shares = design.units_per_stratum / units
        coef = (design.weights / design.shares if not design.metric.mean_like
                else design.weights)
        strata_plans = tuple(
            (str(nm), float(w), float(f), float(p[0] * design.units_per_stratum[h]
                                                  / coef[h] ** 2) if coef[h] else math.nan)
            for h, (nm, w, f, p) in enumerate(zip(design.strata_names, design.weights,
                                                  shares, parts)))
        assumptions.append(f"{design.n_strata} strata, allocated as in the pilot: "
                           "variance sum_h W_h^2 sigma_h^2 / n_h")
        name = "stratified" if name == "paired t" else name
    facts["strata"] = strata_plans
    if not design.metric.mean_like:
        assumptions.append(f"{design.metric.name}: the delta method's variance of the "
                           "pooled metric")
        name = "delta method"
    assumptions.append("a t test on the planned estimate (noncentral t)")
    unit = "groups" if design.n_groups is not None else "items"
    items_per_unit = design.n_items / design.n_groups if design.n_groups else 1.0
    n_strata = design.n_strata
    return Setup(TModel(unit_variance, n_strata=n_strata),
                 TModel(unpaired.unit_variance, n_strata=n_strata, samples=2), name,
                 unit=unit, items_per_unit=items_per_unit, cap=cap, minimum=n_strata + 1,
                 facts=facts, assumptions=tuple(assumptions))


def _correlation(scores) -> float | None:
    """The correlation of two systems' per-item scores (None when one is constant)."""
    if scores is None:
        return None
    sd = scores.std(axis=0)
    if not (sd > 0).all():
        return None
    return float(np.corrcoef(scores[:, 0], scores[:, 1])[0, 1])


def _seeds(a, b, args: Arguments, data: Data) -> Setup:
    """Several seeds per system: the two-way analysis's components
    (:func:`pairboot.comparisons.runs.analysis.analyse`)."""
    if data.metric != "mean":
        raise InputError("planning seeds from a pilot takes one score per item and run "
                         "(the mean); a pooled metric with runs is not planned yet",
                         param="metric")
    ya, yb = as_table(a, "a", "seeds"), as_table(b, "b", "seeds")
    layout = Layout.of(len(ya), groups=data.groups, group_weighting=args.group_weighting,
                       strata=data.strata, strata_weights=data.strata_weights)
    info = analyse(ya, yb, "seeds", args.paired_runs, layout)
    unit_variance = info.item_part * info.n_items
    parts = sum(info.run_parts) + sum(info.residual_parts)  # (too wide: refused below)
    check_spread(info.variance, info.variance + parts, info.n_items)
    facts = {"pilot_items": len(ya), "pilot_groups": info.n_items if layout.grouped else None,
             "unit_variance": unit_variance, "sd": math.sqrt(unit_variance),
             "run_variance": tuple(float(v) for v in info.run_parts),
             "residual_variance": tuple(float(v) for v in info.residual_parts),
             "metric": "mean"}
    assumptions = (
        f"from a pilot of {len(ya):,} items x {info.runs_a:g} and {info.runs_b:g} runs",
        "seeds: var(delta)/n + sum var(b_s)/R + sum var(e_s)/(n R) (docs/runs.md); "
        "Satterthwaite's degrees of freedom for the planned mean squares")
    unit = "groups" if layout.grouped else "items"
    return Setup(SeedsModel(unit_variance, tuple(info.run_parts), tuple(info.residual_parts)),
                 None, "two-way runs", unit=unit,
                 items_per_unit=len(ya) / info.n_items, facts=facts,
                 assumptions=assumptions)


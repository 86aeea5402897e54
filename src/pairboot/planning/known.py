"""A plan from what the user knows: the spread of the per-item differences (``sd``, or
``sd_a``, ``sd_b`` and ``correlation``), or for 0/1 scores the accuracies and the share
of items where the systems disagree; groups (``group_size``, ``icc``) and seeds
(``run_sd``, ``residual_sd``).

* Groups: the design effect ``1 + (m - 1) ICC`` (Kish 1965, section 5.4) for groups of
  ``m`` items, or with unequal sizes of coefficient of variation ``cv`` ``1 + ((cv^2 + 1)
  m - 1) ICC`` (Eldridge, Ashby and Kerry 2006, Int. J. Epidemiol. 35:1292, eq. 3);
  the estimate's variance is ``sd^2 deff / (G m)`` with ``G`` groups.
* 0/1 scores: Connor (1987), Biometrics 43:207, with ``psi`` the discordant share;
  unpaired, the two-proportion size (Fleiss, Levin and Paik 2003, eq. 4.14).
* Seeds: ``var(delta) / n + sum_s var(b_s) / R + sum_s var(e_s) / (n R)``
  (docs/runs.md), ``sd`` the standard deviation of an item's true difference
  ``delta_i``, ``run_sd`` the seed effect's and ``residual_sd`` the noise's (one number
  for both systems, or a pair).
"""

from __future__ import annotations

import math
import numbers

from pairboot.errors import InputError
from pairboot.planning.model import NEVER, ProportionModel, Setup, TModel, TwoProportionModel
from pairboot.planning.seeds import SeedsModel

__all__ = ["SPREAD", "correlated_discordance", "design_effect", "from_parameters", "number",
           "positive", "spread", "zero_one_caps"]


def positive(value, name: str, *, zero: bool = False, upper: float | None = None) -> float:
    """``value`` as a finite float above 0 (or at 0 with ``zero``; below ``upper``)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(
            float(value)):
        raise InputError(f"`{name}` must be a finite number, got {value!r}", param=name)
    value = float(value)
    if value < 0 or (value == 0 and not zero):
        raise InputError(f"`{name}` must be {'at least' if zero else 'above'} 0, got {value:g}",
                         param=name)
    if upper is not None and value >= upper:
        raise InputError(f"`{name}` must be below {upper:g}, got {value:g}", param=name)
    return value


SPREAD = (1e-50, 1e50)
"""The standard deviations the planner computes with: their variances, and those over up
to :data:`~pairboot.planning.model.NEVER` units, stay normal floats, squared too (the
seeds' degrees of freedom square them).  Scores on a scale
beyond are rescaled by the user (the sizes and powers do not change)."""


def spread(value, name: str, *, zero: bool = False) -> float:
    """A standard deviation: :func:`positive`, and within :data:`SPREAD` (or 0 with
    ``zero``)."""
    value = positive(value, name, zero=zero)
    if value != 0 and not SPREAD[0] <= value <= SPREAD[1]:
        raise InputError(f"`{name}` must be between {SPREAD[0]:g} and {SPREAD[1]:g}, got "
                         f"{value:g}: rescale the scores (the plan is the same on any "
                         "scale)", param=name)
    return value


def number(value, name: str, low: float, high: float, what: str) -> float:
    """A real number in ``[low, high]`` (``what`` says the range in words)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not (
            low <= float(value) <= high):
        raise InputError(f"`{name}` must be {what}, got {value!r}", param=name)
    return float(value)


def share(value, name: str) -> float:
    """A proportion in [0, 1]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not (
            0.0 <= float(value) <= 1.0):
        raise InputError(f"`{name}` must be a proportion between 0 and 1, got {value!r}",
                         param=name)
    return float(value)


def design_effect(group_size: float, icc: float, cv: float | None = None) -> float:
    """Kish's ``1 + (m - 1) ICC``, or with unequal group sizes (coefficient of variation
    ``cv``) Eldridge, Ashby and Kerry's ``1 + ((cv^2 + 1) m - 1) ICC``."""
    cv2 = 0.0 if cv is None else cv * cv
    return 1.0 + ((cv2 + 1.0) * group_size - 1.0) * icc


def correlated_discordance(pa: float, pb: float, correlation: float) -> float:
    """The share of items where two 0/1 systems disagree, from their accuracies and the
    correlation (phi) of their scores: ``pa + pb - 2 p11``, ``p11 = pa pb + r sqrt(pa qa
    pb qb)``."""
    p11 = pa * pb + correlation * math.sqrt(pa * (1 - pa) * pb * (1 - pb))
    return pa + pb - 2.0 * p11


def zero_one_caps(pa: float, psi: float) -> tuple[float, float]:
    """The largest difference B - A of 0/1 scores with B worse and with B better, given
    A's accuracy ``pa`` and the discordant share ``psi``: ``p_10 = (psi - d) / 2`` and
    ``p_01 = (psi + d) / 2`` must lie within ``[0, pa]`` and ``[0, 1 - pa]``."""
    return (round(min(psi, 2.0 * pa - psi), 12),  # (rounding: 2 * 0.95 - 1.9 is not 0)
            round(min(psi, 2.0 * (1.0 - pa) - psi), 12))


def _pair(value, name: str) -> tuple[float, ...]:
    """A variance component given as an sd for both systems, or a pair (A, B) of sds."""
    if isinstance(value, (tuple, list)):
        if len(value) not in (1, 2):
            raise InputError(f"`{name}` must be a number or a pair (A, B), got {value!r}",
                             param=name)
        return tuple(spread(v, name, zero=True) ** 2 for v in value)
    v = spread(value, name, zero=True) ** 2
    return (v, v)


def from_parameters(*, sd=None, sd_a=None, sd_b=None, correlation=None, accuracy_a=None,
                    accuracy_b=None, discordant=None, group_size=None, icc=None,
                    group_size_cv=None, run_sd=None, residual_sd=None,
                    delta=None) -> Setup:
    """The planner's :class:`~pairboot.planning.model.Setup` from parameters."""
    grouped = group_size is not None or icc is not None or group_size_cv is not None
    deff, facts, assumptions = 1.0, {}, []
    m = 1.0
    if grouped:
        if group_size is None or icc is None:
            missing = "group_size" if group_size is None else "icc"
            raise InputError(f"groups need `group_size` (the mean items per group) and "
                             f"`icc`: `{missing}` is missing", param=missing)
        m = number(group_size, "group_size", 1.0, NEVER, f"at least 1 item and at most "
                   f"{NEVER:.0e}")
        rho = number(icc, "icc", -1.0 / max(m - 1.0, 1.0), 1.0,
                     "between -1/(group_size - 1) and 1")
        cv = None if group_size_cv is None else number(
            group_size_cv, "group_size_cv", 0.0, 1e6, "between 0 and 1e6")
        deff = design_effect(m, rho, cv)
        if not deff > 0:
            raise InputError(f"`icc` {rho:g} with groups of {m:g} item{'' if m == 1 else 's'}"
                             f" (cv {cv or 0:g}) "
                             f"gives a design effect of {deff:.3g}: a variance must be "
                             "above 0", param="icc")
        facts.update(group_size=m, icc=rho, group_size_cv=cv, design_effect=deff)
        assumptions.append(
            f"groups of {m:g} item{'' if m == 1 else 's'} on average, intra-cluster "
            f"correlation {rho:g}: design "
            f"effect {deff:.3g} ({'Eldridge et al. 2006, unequal sizes' if cv else 'Kish'})")
    if accuracy_a is not None or accuracy_b is not None or discordant is not None:
        if sd is not None or sd_a is not None or sd_b is not None:
            raise InputError("give the accuracies (0/1 scores) or a standard deviation, "
                             "not both", param="sd")
        if run_sd is not None or residual_sd is not None:
            raise InputError("seeds are planned from standard deviations (`sd`, "
                             "`run_sd`, `residual_sd`), not accuracies", param="run_sd")
        return _proportions(accuracy_a, accuracy_b, discordant, correlation, delta, deff, m,
                            facts, assumptions)
    if sd is not None and (sd_a is not None or sd_b is not None):
        raise InputError("give `sd` (of the differences) or `sd_a`, `sd_b` and "
                         "`correlation`, not both", param="sd")
    unpaired = None
    if sd is not None:
        if correlation is not None:
            raise InputError("`correlation` goes with `sd_a` and `sd_b` (or the "
                             "accuracies); `sd` is already the differences'",
                             param="correlation")
        variance = spread(sd, "sd") ** 2
    elif sd_a is not None or sd_b is not None:
        if sd_a is None or sd_b is None or correlation is None:
            missing = next(n for n, v in (("sd_a", sd_a), ("sd_b", sd_b),
                                          ("correlation", correlation)) if v is None)
            raise InputError(f"`sd_a`, `sd_b` and `correlation` go together: `{missing}` "
                             "is missing", param=missing)
        va, vb = spread(sd_a, "sd_a") ** 2, spread(sd_b, "sd_b") ** 2
        r = number(correlation, "correlation", -1.0, 1.0, "between -1 and 1")
        variance = va + vb - 2.0 * r * math.sqrt(va * vb)
        if variance <= 0:
            raise InputError("`sd_a`, `sd_b` and `correlation` leave the differences no "
                             "spread (the systems agree on every item): no size can be "
                             "planned", param="correlation")
        facts.update(sd_a=math.sqrt(va), sd_b=math.sqrt(vb), correlation=r)
        unpaired = TModel((va + vb) * deff / m, samples=2)
        assumptions.append(f"standard deviations {math.sqrt(va):.3g} (A) and "
                           f"{math.sqrt(vb):.3g} (B), correlation {r:g}")
    else:
        raise InputError("say what is known of the spread: `sd` (of the per-item "
                         "differences), `sd_a`, `sd_b` and `correlation`, or for 0/1 "
                         "scores `accuracy_a` and `discordant`; or give a pilot (`a`, `b`)",
                         param="sd")
    facts["sd"] = math.sqrt(variance)
    if run_sd is not None or residual_sd is not None:
        if grouped:
            raise InputError("plan seeds with groups from a pilot (`a`, `b`, `groups`, "
                             "`runs='seeds'`)", param="run_sd")
        runs = _pair(0.0 if run_sd is None else run_sd, "run_sd")
        residual = _pair(0.0 if residual_sd is None else residual_sd, "residual_sd")
        if len(runs) != len(residual):
            raise InputError("`run_sd` and `residual_sd` must both be one number or both "
                             "pairs", param="residual_sd")
        facts.update(run_variance=runs, residual_variance=residual)
        assumptions.append("seeds: var(delta)/n + sum var(b_s)/R + sum var(e_s)/(n R) "
                           "(docs/runs.md); Satterthwaite's degrees of freedom")
        return Setup(SeedsModel(variance, runs, residual), unpaired, "two-way runs", facts=facts,
                     assumptions=tuple(assumptions))
    if grouped:
        return Setup(TModel(variance * deff / m), unpaired, "design effect", unit="groups",
                     items_per_unit=m, facts=facts, assumptions=tuple(assumptions))
    assumptions.append("paired t on the per-item differences (noncentral t)")
    return Setup(TModel(variance), unpaired, "paired t", facts=facts,
                 assumptions=tuple(assumptions))


def _proportions(accuracy_a, accuracy_b, discordant, correlation, delta, deff, m, facts,
                 assumptions) -> Setup:
    """0/1 scores: Connor's paired size, and the unpaired two-proportion one."""
    if accuracy_a is None:
        raise InputError("0/1 scores need `accuracy_a` (system A's accuracy)",
                         param="accuracy_a")
    pa = share(accuracy_a, "accuracy_a")
    pb = None if accuracy_b is None else share(accuracy_b, "accuracy_b")
    if pb is not None and delta is not None and not math.isclose(pb - pa, delta,
                                                                 abs_tol=1e-12):
        raise InputError(f"`delta` ({delta:g}) contradicts the accuracies (`accuracy_b` - "
                         f"`accuracy_a` = {pb - pa:g}): give one of them", param="delta")
    implied = None if pb is None else pb - pa
    if discordant is not None and correlation is not None:
        raise InputError("give `discordant` or `correlation`, not both",
                         param="correlation")
    if discordant is None:
        if correlation is None or pb is None:
            raise InputError("paired 0/1 scores need `discordant` (the share of items "
                             "where the systems disagree), or `accuracy_b` and "
                             "`correlation`", param="discordant")
        r = number(correlation, "correlation", -1.0, 1.0, "between -1 and 1")
        psi = correlated_discordance(pa, pb, r)
        facts["correlation"] = r
    else:
        psi = share(discordant, "discordant")
    if psi <= 0:
        raise InputError("`discordant` is 0: systems that agree on every item show no "
                         "difference, and no size can be planned", param="discordant")
    d = implied if implied is not None else delta
    if d is not None and not 0.0 <= pa + d <= 1.0:
        raise InputError(f"`delta` {d:+g} is beyond what 0/1 scores allow with "
                         f"`accuracy_a` {pa:g} (B's accuracy would be {pa + d:g})",
                         param="delta")
    if d is not None:
        # p_01 (only B right) = (psi + d)/2 <= 1 - pa ; p_10 (only A right) = (psi - d)/2 <= pa
        if abs(d) > psi or (psi + d) / 2 > 1 - pa + 1e-12 or (psi - d) / 2 > pa + 1e-12:
            given = "discordant" if correlation is None else "correlation"
            what = (f"`discordant` ({psi:g})" if correlation is None else
                    f"the share of items the systems disagree on ({psi:g}, from "
                    f"`correlation` {float(correlation):g})")
            raise InputError(f"{what} cannot hold a "
                             f"difference of {d:+g} with `accuracy_a` {pa:g}: it must be at "
                             f"least |delta| and at most {min(2 * pa + d, 2 - 2 * pa - d):g}",
                             param=given)
        facts["sd"] = math.sqrt(max(psi - d * d, 0.0))
    facts.update(accuracy_a=pa, accuracy_b=pb, discordant=psi)
    assumptions.append(f"0/1 scores: Connor's (1987) asymptotic McNemar test, {psi:.3g} of "
                       "the items discordant (a normal approximation, no t), which the "
                       "bootstrap interval follows")
    unit = "items"
    return Setup(ProportionModel(psi, deff), TwoProportionModel(pa, deff), "connor",
                 unit=unit, items_per_unit=m, cap=min(psi, 1.0), delta=implied,
                 caps=zero_one_caps(pa, psi),
                 cap_what="the share of discordant items (`discordant`)",
                 facts=facts, assumptions=tuple(assumptions))

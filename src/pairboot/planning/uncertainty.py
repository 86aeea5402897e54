"""How far a pilot's plan can be trusted: the answer at both ends of the 95% interval of
the spread the pilot estimates, and compare()'s warning for a pilot too small to
estimate it.

A pilot of ``m`` units (items, or groups) in ``H`` strata estimates the variance of a
unit's difference on ``m - H`` degrees of freedom; for normal differences ``(m - H) s^2 /
sigma^2`` is chi-square, so ``sigma^2`` lies in ``[(m - H) s^2 / chi2_{0.975}, (m - H)
s^2 / chi2_{0.025}]`` with 95% confidence, and the plan is solved again at both ends
(the size grows with the variance; the power and the smallest difference move with it).
For 0/1 scores the spread is the share of discordant items, a binomial proportion of
the pilot's items: Wilson's interval.  A k-trial metric's two parts (between tasks,
within at n trials) are scaled alike, as their sum at the pilot's trials, the tasks'
sample variance, on ``m - 1`` degrees of freedom.  Seeds (several variance components on
few degrees of freedom) and families are not given an interval.
"""

from __future__ import annotations

import dataclasses
import math

from pairboot.core.diagnostics import FEW_DISCORDANT, SMALL_N
from pairboot.errors import SmallSampleWarning
from pairboot.planning.mcnemar import ExactMcNemarModel
from pairboot.planning.model import (
    ProportionModel,
    Setup,
    Test,
    TModel,
    mde_for,
    power_of,
    size_for,
)
from pairboot.stats.proportions import wilson_interval
from pairboot.stats.tdist import chi2_quantile

__all__ = ["LEVEL", "pilot_notes", "pilot_range", "span_words"]

LEVEL = 0.95
"""The level of the spread's interval."""


def _models(setup: Setup, facts: dict) -> tuple[object, object] | None:
    """The model at the low and the high end of the spread's interval (None: not
    given for this model)."""
    model = setup.model
    if isinstance(model, TModel):
        units = facts.get("pilot_groups") or facts.get("pilot_items")
        df = (units or 0) - model.n_strata
        if df < 1:
            return None
        low = df / chi2_quantile(1.0 - (1.0 - LEVEL) / 2.0, df)
        high = df / chi2_quantile((1.0 - LEVEL) / 2.0, df)
        return tuple(dataclasses.replace(model, unit_variance=model.unit_variance * f)
                     for f in (low, high))
    if hasattr(model, "scaled") and facts.get("pilot_items"):  # (a k-trial metric's
        df = facts["pilot_items"] - 1  # tasks: both parts scaled as their sum at the
        low = df / chi2_quantile(1.0 - (1.0 - LEVEL) / 2.0, df)  # pilot's trials, S^2)
        high = df / chi2_quantile((1.0 - LEVEL) / 2.0, df)
        return model.scaled(low), model.scaled(high)
    if isinstance(model, (ProportionModel, ExactMcNemarModel)):
        n = facts.get("pilot_items")
        psi = model.discordant
        low, high = wilson_interval(round(psi * n), n, LEVEL)
        return tuple(dataclasses.replace(model, discordant=max(p, 1e-12))
                     for p in (low, high))
    return None


def pilot_range(setup: Setup, test: Test, solved: str, delta, target, units, n_runs,
                least: int) -> tuple | None:
    """The solved quantity (units, power or difference) at the two ends of the 95%
    interval of the pilot's spread, ``(low, high)`` in increasing order (None in it: no
    size reaches the power there, or no difference is detected); None for a plan from
    parameters, of seeds or of a family (a k-trial metric's trials are not seeds)."""
    facts = setup.facts or {}
    if facts.get("pilot_items") is None or setup.model.runs and not hasattr(
            setup.model, "scaled"):
        return None
    models = _models(setup, facts)
    if models is None:
        return None
    answers = []
    for model in models:
        if isinstance(model, (ProportionModel, ExactMcNemarModel)) and delta is not None \
                and abs(delta) >= model.discordant:
            # (fewer discordant items than the difference needs: all go one way)
            model = dataclasses.replace(model, discordant=min(1.0, abs(delta) * (1 + 1e-9)))
        if solved in ("n_items", "n_groups"):
            answers.append(size_for(model, test, delta, target, n_runs, least))
        elif solved == "power":
            answers.append(power_of(model, test, units, delta, n_runs))
        elif solved == "delta":
            cap = setup.side_cap(test.direction)
            if isinstance(model, (ProportionModel, ExactMcNemarModel)):
                cap = min(cap, model.discordant)
            answers.append(mde_for(model, test, units, target, n_runs, cap))
        else:
            return None
    if solved == "delta":
        answers = [None if a is None else abs(a) * math.copysign(1.0, test.direction)
                   for a in answers]
    known = sorted(a for a in answers if a is not None)
    return tuple(known + [None] * (2 - len(known)))


def span_words(span: tuple | None, solved: str, unit: str) -> str | None:
    """:func:`pilot_range`'s answer in words: ``"420 to 41,000 items"``, ``"61.2% to
    93.4% power"``, ``"+0.021 to +0.05"``; None without one."""
    if span is None:
        return None
    low, high = span
    if solved in ("n_items", "n_groups"):
        if low is None:
            return f"no number of {unit} up to 10^12"
        return f"{low:,} to " + (f"{high:,} {unit}" if high is not None else
                                 f"more than 10^12 {unit}")
    if solved == "power":
        return f"{100 * low:.3g}% to {100 * high:.3g}% power"
    if low is None:
        return "no difference the metric allows"
    return f"{low:+.3g} to " + (f"{high:+.3g}" if high is not None else "none detected")


def pilot_notes(setup: Setup, words: str | None) -> list:
    """compare()'s small-sample policy, for the pilot: fewer than
    :data:`~pairboot.core.diagnostics.SMALL_N` units, or fewer than
    :data:`~pairboot.core.diagnostics.FEW_DISCORDANT` discordant 0/1 items, and the plan
    is rough; ``words`` (:func:`span_words`) say how rough."""
    facts = setup.facts or {}
    items, groups = facts.get("pilot_items"), facts.get("pilot_groups")
    if items is None:
        return []
    n, what = (groups, "groups") if groups else (items, "items")
    reasons = []
    if n < SMALL_N:
        reasons.append(f"a pilot of only {n:,} {what[:-1] if n == 1 else what}: with "
                       f"fewer than {SMALL_N} its spread is a rough estimate")
    psi = getattr(setup.model, "discordant", None)
    if psi is not None and round(psi * items) < FEW_DISCORDANT:
        k = round(psi * items)
        reasons.append(f"the pilot's systems differ on only {k} of its {items:,} items, "
                       "and the plan rests on that share")
    if not reasons:
        return []
    text = "; ".join(reasons)
    if words is not None:
        text += (f"; within the 95% interval of the pilot's spread the plan would be "
                 f"anywhere from {words}: plan with a larger pilot")
    return [(SmallSampleWarning, text)]

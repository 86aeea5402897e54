"""The planner's :class:`~pairboot.planning.model.Setup` for a k-trial metric (pass@k,
pass^k, maj@k with ``runs="samples"``): from a pilot's items x trials tables, or from
parameters of the tasks' success probabilities (:mod:`pairboot.planning.trials`).

From a pilot of m tasks, with ``d_i`` task i's estimated B - A and ``w_i`` the unbiased
estimate of its variance over redraws of its trials:

- ``between = S^2(d) - mean(w_i)`` (``E S^2(d) = between + mean E w_i`` for independent
  tasks): unbiased, truncated at 0;
- ``W(n) = sum_c w_c(n) mean_i(zeta_c,i)`` at any n, from each task's components: the
  unbiased ones when every task has at least 2k trials, else the posterior means under
  a Beta fitted to each system's tasks (empirical Bayes: biased as far as the Beta
  misfits the tasks; docs/power.md says so).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from pairboot.comparisons.runs.analysis import as_table
from pairboot.errors import InputError
from pairboot.metrics.trials import Trials
from pairboot.options import Arguments, Data
from pairboot.planning.model import Setup, mde_for, power_of, size_for
from pairboot.planning.pilot import NO_SPREAD
from pairboot.planning.trials import (
    BetaTasks,
    TrialsModel,
    fit_beta,
    hoeffding_weights,
    pilot_components,
    posterior_components,
    trials_grid,
)
from pairboot.results.power import TrialsPlan

__all__ = ["TRIALS_PARAMETERS", "plan_grid", "trials_parameters", "trials_pilot"]

TRIALS_PARAMETERS = ("rate_a", "rate_sd", "shift_sd")
"""What the user knows of the tasks, for a k-trial metric without a pilot."""


def trials_pilot(a, b, metric: Trials, args: Arguments, data: Data) -> Setup:
    """The setup from a pilot's items x trials tables of 0/1 scores."""
    for name, value in (("groups", data.groups), ("strata", data.strata)):
        if value is not None:
            raise InputError(f"`{name}` with metric {metric.name!r}: a k-trial metric is "
                             "planned for tasks without groups or strata (not yet planned)",
                             param=name)
    ya, yb = as_table(a, "a", "samples"), as_table(b, "b", "samples")
    if len(ya) != len(yb):
        raise InputError(f"`a` has {len(ya):,} items and `b` {len(yb):,}: a paired pilot "
                         "scores the same tasks", param="b")
    if len(ya) < 2:
        raise InputError("the pilot has fewer than 2 tasks: no spread can be read off it",
                         param="a")
    ea, eb = metric.values(ya, "a", data.ids), metric.values(yb, "b", data.ids)
    k, kind = metric.k, metric.kind
    counts = []
    for y in (ya, yb):
        done = ~np.isnan(y)
        counts.append((done.sum(axis=1), np.where(done, y, 0.0).sum(axis=1).astype(np.int64)))
    fewest = int(min(n.min() for n, _ in counts))
    unbiased = fewest >= 2 * k
    parts, priors = [], []
    for n, s in counts:
        if unbiased:
            parts.append(pilot_components(kind, k, n, s))
        else:
            prior = fit_beta(n, s)
            priors.append(prior)
            parts.append(posterior_components(kind, k, n, s, prior))
    at_pilot = sum(np.einsum("ic,ic->i", z, np.stack([hoeffding_weights(int(v), k)
                                                      for v in n]))
                   for z, (n, _) in zip(parts, counts))
    d = eb - ea
    spread = float(np.var(d, ddof=1))
    between = max(spread - float(at_pilot.mean()), 0.0)
    zeta = parts[0].mean(axis=0) + parts[1].mean(axis=0)
    if not (between > 0 or zeta[1:].max() > 0):
        raise InputError(NO_SPREAD.replace("give `sd`", "give `rate_a` and `rate_sd`"),
                         param="b")
    model = TrialsModel(kind, k, lambda delta: (between, zeta))
    how = (f"each task's within variance unbiased from its >= {2 * k} trials"
           if unbiased else
           f"fewer than 2k = {2 * k} trials in some task: the within variance is each "
           "task's posterior mean under a Beta fitted to each system's tasks "
           f"(A: a {priors[0][0]:.3g}, b {priors[0][1]:.3g}; B: a {priors[1][0]:.3g}, "
           f"b {priors[1][1]:.3g}), biased as far as a Beta misfits the tasks")
    assumptions = (
        f"from a pilot of {len(ya):,} tasks x {_trials_words(counts)} trials",
        f"{metric.name}: the variance over tasks of the true B - A plus the mean "
        "within-task variance at the planned trials (Hoeffding), over the tasks; "
        "a t test on the mean of the tasks' estimates",
        "between-task variance: the tasks' estimated differences' variance minus their "
        "unbiased within variances" + (" (below 0 in the pilot: taken as 0)"
                                       if spread < at_pilot.mean() else ""),
        how)
    facts = {"pilot_items": len(ya), "metric": metric.name, "between_variance": between,
             "pilot_trials": fewest}
    return Setup(model, None, "trials", cap=1.0, minimum=2, facts=facts,
                 assumptions=assumptions, cap_what=f"the metric {metric.name}")


def _trials_words(counts) -> str:
    ns = sorted({int(v) for n, _ in counts for v in n})
    return f"{ns[0]}" if len(ns) == 1 else f"{ns[0]} to {ns[-1]}"


def _number(value, name: str, low: float, high: float, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not (
            math.isfinite(float(value)) and low < float(value) < high):
        raise InputError(f"`{name}` must be {what}, got {value!r}", param=name)
    return float(value)


def trials_parameters(metric: Trials, delta: float | None, *, rate_a=None, rate_sd=None,
                      shift_sd=None) -> Setup:
    """The setup from parameters: A's tasks' success probabilities a Beta of mean
    ``rate_a`` and standard deviation ``rate_sd``; B's moved on the logit scale by a
    shift that sets the metric's B - A to the planned difference, spread over tasks
    with standard deviation ``shift_sd`` (0: every task moved alike)."""
    if rate_a is None or rate_sd is None:
        missing = "rate_a" if rate_a is None else "rate_sd"
        raise InputError(f"metric {metric.name!r} without a pilot needs `rate_a` (A's mean "
                         "success rate over tasks) and `rate_sd` (its standard deviation "
                         f"over tasks): `{missing}` is missing", param=missing)
    mu = _number(rate_a, "rate_a", 0.0, 1.0, "strictly between 0 and 1")
    top = math.sqrt(mu * (1 - mu))
    sd = _number(rate_sd, "rate_sd", 0.0, top, f"above 0 and below sqrt(rate_a (1 - "
                 f"rate_a)) = {top:.4g} (the most a rate of that mean can spread)")
    tau = 0.0 if shift_sd is None else _number(shift_sd, "shift_sd", -1e-300, 10.0,
                                               "between 0 and 10 (a logit's sd)")
    tasks = BetaTasks(metric.kind, metric.k, mu, sd, tau)
    pa = tasks.metric(1.0 / (1.0 + np.exp(-tasks.grid[0])))
    base = float(tasks.grid[1] @ pa)
    caps = (base * (1 - 1e-6), (1 - base) * (1 - 1e-6))
    if delta is not None and not -caps[0] <= delta <= caps[1]:
        raise InputError(f"`delta` {delta:+g} is beyond what {metric.name} allows with A "
                         f"at {base:.4g} (B - A from {-base:+.4g} to {1 - base:+.4g})",
                         param="delta")
    model = TrialsModel(metric.kind, metric.k, tasks.parts)
    facts = {"metric": metric.name, "rate_a": mu, "rate_sd": sd, "shift_sd": tau,
             "metric_a": base}
    assumptions = (
        f"A's tasks: success probabilities Beta with mean {mu:g} and sd {sd:g} "
        f"({metric.name} of A {base:.4g}); B's: A's moved on the logit scale to the "
        f"planned difference, spread over tasks with sd {tau:g}"
        + (" (every task moved alike: the least between-task spread)" if tau == 0 else ""),
        f"{metric.name}: the variance over tasks of the true B - A plus the mean "
        "within-task variance at the planned trials (Hoeffding); a t test on the mean of "
        "the tasks' estimates")
    return Setup(model, None, "trials", cap=1.0, minimum=2, facts=facts,
                 assumptions=assumptions, caps=caps, cap_what=f"the metric {metric.name}")


def plan_grid(setup: Setup, test, solved: str, delta, power, n_items, n_runs,
              fewest: int, extra: int | None = None) -> tuple[TrialsPlan, ...]:
    """The plan at trials per task k, 1.5k, 2k, 3k, 4k (and ``n_runs``, ``extra``):
    the quantity solved for (tasks, power or difference; solving for the trials, the
    power at the planned tasks) at each, the others as planned."""
    model, rows = setup.model, []
    for n in trials_grid(model.k, n_runs, extra):
        items, p, d = n_items, power, delta
        if solved == "n_items":
            items = size_for(model, test, delta, power, n, fewest)
        elif solved in ("power", "n_runs"):
            p = power_of(model, test, n_items, delta, n)
        else:
            d = mde_for(model, test, n_items, power, n, setup.side_cap(test.direction))
        rows.append(TrialsPlan(n, items, p, d, None if items is None else items * n,
                               model.within(n, d)))
    return tuple(rows)

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

import dataclasses
import math
import numbers

import numpy as np

from pairboot.comparisons.runs.analysis import as_table
from pairboot.errors import InputError
from pairboot.metrics.trials import NEEDS_SAMPLES, Trials
from pairboot.options import Arguments, Data
from pairboot.planning.model import Setup, Test, mde_for, power_of, size_for
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
from pairboot.results.power import PowerResult, TrialsPlan
from pairboot.stats.pvalues import units_for
from pairboot.stats.trials import ESTIMATORS

__all__ = ["TRIALS_PARAMETERS", "plan_grid", "trials_parameters", "trials_pilot",
           "task_parts", "trials_setup", "with_grid"]

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
    metric.values(ya, "a", data.ids), metric.values(yb, "b", data.ids)  # (the checks)
    k, kind = metric.k, metric.kind
    counts = []
    for y in (ya, yb):
        done = ~np.isnan(y)
        counts.append((done.sum(axis=1), np.where(done, y, 0.0).sum(axis=1).astype(np.int64)))
    fewest = int(min(n.min() for n, _ in counts))
    raw, zeta, priors = task_parts(kind, k, *counts[0], *counts[1])
    unbiased = not priors
    between = max(raw, 0.0)
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
                                       if raw < 0 else ""),
        how)
    facts = {"pilot_items": len(ya), "metric": metric.name, "between_variance": between,
             "pilot_trials": fewest}
    return Setup(model, None, "trials", cap=1.0, minimum=2, facts=facts,
                 assumptions=assumptions, cap_what=f"the metric {metric.name}")


def task_parts(kind: str, k: int, n_a, s_a, n_b, s_b):
    """A pilot's ``(between, zeta, priors)``: the between part before its truncation at
    0 (``S^2`` of the tasks' estimated differences minus the mean of their within
    variances at their own trials), both systems' mean components, and the Beta priors
    fitted per system (empty when every task has 2k trials or more: the unbiased
    components)."""
    counts = ((np.asarray(n_a), np.asarray(s_a)), (np.asarray(n_b), np.asarray(s_b)))
    unbiased = min(int(n.min()) for n, _ in counts) >= 2 * k
    parts, priors = [], []
    for n, s in counts:
        if unbiased:
            parts.append(pilot_components(kind, k, n, s))
        else:
            priors.append(fit_beta(n, s))
            parts.append(posterior_components(kind, k, n, s, priors[-1]))
    at_pilot = sum(np.einsum("ic,ic->i", z, np.stack([hoeffding_weights(int(v), k)
                                                      for v in n]))
                   for z, (n, _) in zip(parts, counts))
    estimate = ESTIMATORS[kind]
    d = estimate(counts[1][0], counts[1][1], k) - estimate(counts[0][0], counts[0][1], k)
    raw = float(np.var(d, ddof=1)) - float(at_pilot.mean())
    return raw, parts[0].mean(axis=0) + parts[1].mean(axis=0), tuple(priors)


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


def trials_setup(trials, a, b, scores, known, given, args: Arguments, data: Data, delta,
                  n_items, n_runs, target, simulate):
    """A k-trial metric's setup (pilot or parameters) and the trials per task planned."""
    if trials is None:
        name = next(iter(given))
        raise InputError(f"`{name}` describes the tasks of a k-trial metric: give "
                         "`metric` ('pass^4', 'pass@4', 'maj@5') with `runs='samples'`",
                         param=name)
    if args.runs != "samples":
        raise InputError(f"`metric={trials.name!r}` needs {NEEDS_SAMPLES}", param="runs")
    for value, name, why in (
            (scores, "scores", "a family with a k-trial metric is not planned yet: plan "
                               "each pair with `a` and `b`"),
            (args.test, "test", "`test` is not planned with a k-trial metric"),
            (simulate or None, "simulate", "`simulate=True` is not available for a "
                                           "k-trial metric yet (docs/power.md checks the "
                                           "planner by simulation)")):
        if value is not None:
            raise InputError(why, param=name)
    if known:
        name = next(iter(known))
        raise InputError(f"`{name}` with metric {trials.name!r}: the tasks are described by "
                         "`rate_a`, `rate_sd` and `shift_sd` (or a pilot)", param=name)
    if a is not None or b is not None:
        if given:
            name = next(iter(given))
            raise InputError(f"`{name}` with a pilot: the pilot gives the tasks; leave it "
                             "out (or plan from parameters without the pilot)", param=name)
        if a is None or b is None:
            raise InputError(f"a pilot needs both systems: `{'a' if a is None else 'b'}` "
                             "is missing", param="a" if a is None else "b")
        setup = trials_pilot(a, b, trials, args, data)
    else:
        setup = trials_parameters(trials, delta, **given)
    if n_runs is not None and n_runs < trials.k:
        raise InputError(f"`n_runs` {n_runs} trials per task: metric {trials.name!r} needs "
                         f"at least k = {trials.k}", param="n_runs")
    if n_runs is None and not (delta is not None and target is not None
                               and n_items is not None):
        n_runs = setup.facts.get("pilot_trials") or trials.k
    return setup, n_runs


def with_grid(res: PowerResult, setup: Setup, test: Test, args: Arguments) -> PowerResult:
    """A k-trial metric's plan with its variance parts and the grid of trials."""
    model = setup.model
    fewest = max(setup.minimum, units_for(args.confidence_level, args.alternative))
    runs, delta = res.n_runs, res.delta
    within = variance = None
    if runs is not None:
        within = model.within(runs, delta)
        if res.n_items is not None:
            variance = model.variance(res.n_items, runs, delta)
    grid = plan_grid(setup, test, "n_items" if res.solved == "n_items" else res.solved,
                     delta, res.power, res.n_items, runs, fewest,
                     setup.facts.get("pilot_trials"))
    planner = res.planner
    if res.unit == "runs" and planner is not None:  # (no estimate below k trials: NaN)
        def planner(size, d, inner=res.planner):
            return inner(size, d) if size >= model.k else math.nan
    return dataclasses.replace(
        res, between_variance=model.parts(delta)[0], within_variance=within, floor=None,
        planner=planner,
        variance=variance, unit_variance=None if within is None else
        model.parts(delta)[0] + within, trials_grid=grid)

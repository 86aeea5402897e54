"""A release gate: a declared policy of rows over metrics and tasks, one verdict.

A :class:`~pairboot.plans.policy.Gate` lists :class:`~pairboot.plans.policy.Rule` rows
(non-inferior, superior, equivalent, better on at least u of K tasks, a rate's upper
bound, the share of regressions), each on a metric of :func:`pairboot.compare_metrics`
and on the whole test set or on tasks (strata). :func:`check_gate` runs one
:func:`~pairboot.compare_metrics` per task and one over the whole set (stratified by
task), reads every row off those draws, and decides:

- rows that must all hold (``require="all"``, the default) form an intersection-union
  test: the gate passes only if every one rejects its own null at ``alpha``, so its
  chance of passing when any row's null is true is at most ``alpha`` with no correction;
- rows of which any one suffices (``require="any"``) are corrected by Holm (valid under
  any dependence among them): the group holds when the smallest p-value is below
  ``alpha / m``.

Each row is *pass* (its claim shown at ``alpha``), *fail* (its claim's opposite shown at
``alpha``, Holm across the tasks of a row over tasks) or *inconclusive* (neither: the
test set cannot decide it; the row says about how many items would, at 80% power, if the
difference is what was estimated).  The gate is *fail* when a row that must hold fails or
every row of the "any" group fails, *pass* when every row that must hold passes and the
"any" group holds, *inconclusive* otherwise.  Bootstrap rows read the percentile
bootstrap of ``B - A`` on B's better side; a rate's bound and the regressions' share are
exact (Clopper-Pearson) on 0/1 columns.  docs/gates.md.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Mapping, Sequence

import numpy as np

from pairboot.comparisons.metrics import compare_metrics
from pairboot.errors import InputError
from pairboot.metrics.joint import Criterion, criterion_columns
from pairboot.plans.policy import Gate, Rule
from pairboot.results.metrics import GateResult, GateRow, MetricsResult
from pairboot.stats.binomial import binomial_tail, clopper_pearson
from pairboot.stats.fdr import partial_conjunction
from pairboot.stats.intervals import Bootstrap, bounds, normal_quantile, p_value
from pairboot.stats.multiple import holm, max_t

POWER = 0.8
"""The power at which an inconclusive row's deciding size is given."""


# --------------------------------------------------------------------------- checking

def check_gate(a, b, gate: Gate, *, tasks=None, groups=None, names=("A", "B"),
               n_resamples: int = 10_000, seed=None, backend: str = "auto") -> GateResult:
    """Decide ``gate`` on systems A and B (each a DataFrame or mapping of per-item
    columns, paired by position), ``tasks`` each item's task (or None: one task).

    Every bootstrap row is read off :func:`pairboot.compare_metrics` of the gate's
    metrics at the level ``1 - 2 alpha`` (its two-sided interval's ends are the one-sided
    bounds at ``alpha``), with the same ``seed`` for the whole set and each task."""
    if not isinstance(gate, Gate):
        raise InputError(f"`gate` must be a pairboot.Gate (or read_gate(path)), got "
                         f"{type(gate).__name__}", param="gate")
    alpha = round(1.0 - gate.confidence_level, 12)
    columns = _columns(a, b, gate)
    n = len(next(iter(columns["a"].values())))
    labels = None if tasks is None else np.asarray(tasks).astype(str)
    if labels is not None and labels.shape != (n,):
        raise InputError(f"`tasks` must give one task per item ({n}), got shape "
                         f"{labels.shape}", param="tasks")
    task_names = [] if labels is None else list(dict.fromkeys(labels.tolist()))
    for r in gate.rules:
        if r.tasks is not None and labels is None:
            raise InputError(f"gate row {r.label!r} is over tasks, and no tasks were given "
                             "(`tasks=`, the command line's --task)", param="tasks")
        if isinstance(r.tasks, tuple):
            missing = [t for t in r.tasks if t not in task_names]
            if missing:
                raise InputError(f"gate row {r.label!r} names task {missing[0]!r}, which is "
                                 f"not in the data (tasks: {', '.join(task_names[:12])})",
                                 param="gate")
    common = dict(names=names, n_resamples=n_resamples, seed=seed, backend=backend,
                  confidence_level=1.0 - 2.0 * alpha)
    said: dict[str, type] = {}  # (each run's notes, once, the task's named)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        whole = compare_metrics(columns["a"], columns["b"], metrics=gate.criteria,
                                strata=labels, groups=groups, **common)
    said.update((str(w.message), w.category) for w in caught)
    per_task: dict[str, MetricsResult] = {}
    if any(r.tasks is not None for r in gate.rules):
        for t in task_names:
            on = labels == t
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                per_task[t] = compare_metrics(
                    {c: v[on] for c, v in columns["a"].items()},
                    {c: v[on] for c, v in columns["b"].items()}, metrics=gate.criteria,
                    groups=None if groups is None else np.asarray(groups)[on],
                    seed=whole.seed, **{k: v for k, v in common.items() if k != "seed"})
            said.update((f"task {t}: {w.message}", w.category) for w in caught)
    for text, category in said.items():
        warnings.warn(text, category, stacklevel=2)
    rows = [_row(r, gate, alpha, whole, per_task, task_names, columns, groups)
            for r in gate.rules]
    rows = _any_group(rows, alpha, gate.rules, gate, whole)
    verdict = _verdict(rows)
    return GateResult(
        rows=tuple(rows), verdict=verdict, confidence_level=gate.confidence_level,
        inconclusive=gate.inconclusive, policy_sha256=gate.sha256, names=tuple(names),
        n_items=n, tasks=tuple(task_names), n_resamples=whole.n_resamples, seed=whole.seed,
        metrics=whole, warnings=tuple(said))


def _columns(a, b, gate: Gate) -> dict:
    """Each system's needed columns as float arrays (the gate's metrics' columns)."""
    needed = list(dict.fromkeys(c for name, crit in gate.criteria.items()
                                for c in criterion_columns(name, crit)))
    out = {}
    for which, x in (("a", a), ("b", b)):
        have = list(x.keys()) if isinstance(x, Mapping) else (
            list(x.columns) if hasattr(x, "columns") else None)
        if have is None:
            raise InputError(f"`{which}` must be a DataFrame or a mapping from a column's "
                             f"name to its per-item values, got {type(x).__name__}",
                             param=which)
        missing = [c for c in needed if c not in have]
        if missing:
            raise InputError(f"`{which}` has no column {missing[0]!r}, which the gate's "
                             "metrics read", param=which)
        out[which] = {c: np.asarray(x[c], dtype=np.float64) for c in needed}
    return out


def _boot(result: MetricsResult, metric: str) -> tuple[Bootstrap, float]:
    """B's gain (``B - A`` on the metric's better side) with its replicates, and the
    sign that turns it back to ``B - A``."""
    k = result.metrics.index(metric)
    row = result.rows[k]
    sign = -1.0 if row.lower_is_better else 1.0
    reps = sign * result.bootstrap_distribution[:, k]  # (B - A there: B's gain here)
    return Bootstrap.from_replicates(sign * row.estimate, reps[np.isfinite(reps)]), sign


def _p_pass_fail(boot: Bootstrap, test: str, margin: float) -> tuple[float, float]:
    """The p-values of the claim (H0: not the claim) and of its opposite, on B's gain,
    at least ``1 / (B + 1)`` (the (1 + count) / (B + 1) convention)."""
    floor = 1.0 / (len(boot.theta) + 1)

    def above(c):  # H0: gain <= c
        return max(floor, float(p_value("percentile", boot, "greater", c)))

    def below(c):  # H0: gain >= c
        return max(floor, float(p_value("percentile", boot, "less", c)))

    if test == "non-inferior":
        return above(-margin), below(-margin)
    if test == "superior":
        return above(margin), below(margin)
    # equivalent: TOST; shown outside when either side is shown beyond its margin
    return max(above(-margin), below(margin)), min(below(-margin), above(margin))


def _needed(n: int, se: float, distance: float, alpha: float) -> int | None:
    """About how many items decide a one-sided test at ``alpha`` with 80% power when
    ``distance`` (estimate to boundary) is the truth and the standard error ``se`` at
    ``n`` items shrinks as ``1 / sqrt(n)``; None when it cannot say."""
    if not (math.isfinite(se) and se > 0 and math.isfinite(distance) and distance != 0):
        return None
    z = normal_quantile(1.0 - alpha) + normal_quantile(POWER)
    return int(math.ceil(n * (z * se / abs(distance)) ** 2))


def _row(r: Rule, gate: Gate, alpha: float, whole, per_task, task_names, columns, groups
         ) -> GateRow:
    crit = gate.criteria[r.metric]
    if r.test in ("upper-bound", "regressions"):
        return _exact_row(r, crit, alpha, columns, groups)
    margin = r.margin or 0.0
    if r.tasks is None:
        results = {None: whole}
    else:
        chosen = task_names if r.tasks == "each" else list(r.tasks)
        results = {t: per_task[t] for t in chosen}
    parts = []
    for t, res in results.items():
        boot, sign = _boot(res, r.metric)
        test = "superior" if r.test == "at-least" else r.test
        p_pass, p_fail = _p_pass_fail(boot, test, margin)
        # no test of n units can say more than 2**-n (all n favour one side): a task of
        # 4 items, all of them ties or gains, is no evidence at 5% (docs/gates.md)
        units = res.n_groups if res.n_groups is not None else res.n_items
        p_pass, p_fail = max(p_pass, 2.0 ** -units), max(p_fail, 2.0 ** -units)
        low, high = bounds("percentile", boot, 2.0 * alpha)
        interval = (low, high) if sign > 0 else (-high, -low)
        parts.append((t, sign * boot.estimate, interval, p_pass, p_fail, boot.sd,
                      res.n_items))
    k = len(parts)
    p_pass = np.array([x[3] for x in parts])
    p_fail = np.array([x[4] for x in parts])
    if r.test == "at-least":
        if r.at_least > k:
            raise InputError(f"gate row {r.label!r} asks for {r.at_least} task(s) of "
                             f"{k}", param="gate")
        p = partial_conjunction(p_pass, r.at_least)
        shown_not = int((holm(p_fail) < alpha).sum())
        verdict = "pass" if p < alpha else "fail" if shown_not > k - r.at_least else \
            "inconclusive"
        why = (f"better on at least {r.at_least} of {k} tasks (partial conjunction, Simes)"
               if verdict == "pass" else
               f"{shown_not} of {k} tasks shown not better (Holm)" if verdict == "fail"
               else "neither shown")
    else:
        p = float(p_pass.max())  # (intersection-union over the tasks: the largest p)
        failed = holm(p_fail) < alpha if k > 1 else p_fail < alpha
        verdict = "pass" if p < alpha else "fail" if failed.any() else "inconclusive"
        why = None
        if verdict == "fail" and k > 1:
            why = "shown otherwise on " + ", ".join(str(parts[i][0]) for i in
                                                    np.flatnonzero(failed))
        elif verdict == "inconclusive" and k > 1:
            why = "not shown on " + ", ".join(
                f"{parts[i][0]} ({parts[i][6]} items)" for i in np.flatnonzero(p_pass >= alpha))
    needed = None
    if verdict == "inconclusive":
        sizes = []
        for _, est, _, pp, _, se, n in parts:
            if pp < alpha:
                continue
            boundary = {"non-inferior": -margin, "superior": margin, "at-least": margin,
                        "equivalent": margin}[r.test]
            gain = est if not crit.lower_is_better else -est
            distance = (margin - abs(gain)) if r.test == "equivalent" else gain - boundary
            size = _needed(n, se, distance, alpha)
            # (and at least the units whose 2**-n can be below alpha at all)
            sizes.append(None if size is None else max(size, math.ceil(-math.log2(alpha))))
        needed = None if not sizes or None in sizes else max(sizes)
    one = parts[0] if k == 1 else None
    return GateRow(
        name=r.label, metric=r.metric, test=r.test, require=r.require, verdict=verdict,
        p_value=float(p), estimate=None if one is None else float(one[1]),
        interval=None if one is None else tuple(map(float, one[2])),
        margin=r.margin, bound=None, tasks=tuple(str(x[0]) for x in parts) if k > 1 or
        r.tasks is not None else (),
        task_estimates=tuple(float(x[1]) for x in parts) if r.tasks is not None else (),
        task_intervals=tuple(tuple(map(float, x[2])) for x in parts)
        if r.tasks is not None else (),
        task_p_values=tuple(float(x) for x in p_pass) if r.tasks is not None else (),
        lower_is_better=crit.lower_is_better, method="percentile bootstrap",
        needed_items=needed, why=why)


def _binary(values: np.ndarray, r: Rule, which: str) -> np.ndarray:
    bad = ~np.isin(values, (0.0, 1.0))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"gate row {r.label!r} reads {r.metric!r} as 0/1 outcomes, and "
                         f"{which} has {values[i]:g} at item {i}", param="gate")
    return values


def _exact_row(r: Rule, crit: Criterion, alpha: float, columns, groups) -> GateRow:
    """A rate's one-sided upper bound (Clopper-Pearson) against ``bound``: pass when it
    is below, fail when the lower bound is above; the same for the regressions' share."""
    if groups is not None:
        raise InputError(f"gate row {r.label!r} is an exact binomial bound of independent "
                         "items: with groups it is not built yet; gate the metric's "
                         "difference instead", param="gate")
    column = crit.columns[0] if crit.columns else r.metric
    if crit.columns is not None and len(crit.columns) != 1 or str(crit.metric) != "mean":
        raise InputError(f"gate row {r.label!r} needs a metric that is the mean of one 0/1 "
                         "column", param="gate")
    if r.test == "upper-bound":
        x = _binary(columns[r.system.lower()][column], r, r.system)
        count, n = int(x.sum()), len(x)
    else:
        xa = _binary(columns["a"][column], r, "A")
        xb = _binary(columns["b"][column], r, "B")
        good_a = xa == (0.0 if crit.lower_is_better else 1.0)
        n = int(good_a.sum())
        count = int((good_a & (xb != xa)).sum())
        if n == 0:
            raise InputError(f"gate row {r.label!r}: A passed no item, so no regression "
                             "can be counted", param="gate")
    tau = r.bound
    p_pass = binomial_tail(0, count, n, tau)  # H0: rate >= tau
    p_fail = binomial_tail(count, n, n, tau)  # H0: rate <= tau
    verdict = "pass" if p_pass < alpha else "fail" if p_fail < alpha else "inconclusive"
    low, high = clopper_pearson(count, n, 1.0 - 2.0 * alpha)
    rate = count / n
    needed = None
    if verdict == "inconclusive" and rate < tau:
        needed = _needed(n, math.sqrt(max(rate * (1 - rate), 1.0 / n) / n), tau - rate, alpha)
    return GateRow(
        name=r.label, metric=r.metric, test=r.test, require=r.require, verdict=verdict,
        p_value=float(p_pass), estimate=rate, interval=(low, high), margin=None,
        bound=tau, tasks=(), task_estimates=(), task_intervals=(), task_p_values=(),
        lower_is_better=crit.lower_is_better,
        method=f"exact (Clopper-Pearson), {count} of {n}", needed_items=needed, why=None)


def _any_group(rows: list[GateRow], alpha: float, rules, gate: Gate, whole: MetricsResult
               ) -> list[GateRow]:
    """The "any" rows' verdicts, corrected together: by max-t on the joint draws when
    every one of them is a non-inferior or superior row over the whole test set (read
    off the same resamples: the correlation of the metrics is used, so it is more
    powerful than Bonferroni on correlated metrics), else by Holm (valid under any
    dependence).  A row passes when its adjusted p-value is below ``alpha``."""
    idx = [k for k, r in enumerate(rows) if r.require == "any"]
    if not idx:
        return rows
    joint = len(idx) > 1 and all(rules[k].tasks is None and rules[k].test in (
        "non-inferior", "superior") for k in idx)
    if joint:
        adjusted, how = _max_t_any([rules[k] for k in idx], gate, whole, alpha), "max-t"
    else:
        adjusted, how = holm(np.array([rows[k].p_value for k in idx])), "Holm"
    out = list(rows)
    for k, p in zip(idx, adjusted):
        r = out[k]
        verdict = "pass" if p < alpha else ("fail" if r.verdict == "fail" else "inconclusive")
        out[k] = dataclasses.replace(r, verdict=verdict, p_adjusted=float(p),
                                     correction=how)
    return out


def _max_t_any(rules, gate: Gate, whole: MetricsResult, alpha: float) -> np.ndarray:
    """Romano-Wolf stepdown p-values of the one-sided claims ``gain > boundary`` of
    rows over the whole set, on B's gain's joint replicates (each row's root its
    resample less its estimate, over its standard error; NaN resamples left out)."""
    gains = whole.gain_distribution
    cols, est, null = [], [], []
    for r in rules:
        k = whole.metrics.index(r.metric)
        cols.append(gains[:, k])
        est.append(-whole.rows[k].estimate if whole.rows[k].lower_is_better
                   else whole.rows[k].estimate)
        m = r.margin or 0.0
        null.append(-m if r.test == "non-inferior" else m)
    reps = np.column_stack(cols)
    ok = np.isfinite(reps).all(axis=1)
    se = reps[ok].std(axis=0, ddof=1) if ok.sum() > 1 else np.full(len(cols), np.nan)
    mt = max_t(np.array(est), se, reps, alpha, "greater", null=np.array(null),
               tol=[0.0] * len(cols))
    return np.maximum(mt.p_stepdown, 1.0 / (mt.n_used + 1))


def _verdict(rows: Sequence[GateRow]) -> str:
    must = [r.verdict for r in rows if r.require == "all"]
    anys = [r.verdict for r in rows if r.require == "any"]
    if "fail" in must or (anys and all(v == "fail" for v in anys)):
        return "fail"
    if all(v == "pass" for v in must) and (not anys or "pass" in anys):
        return "pass"
    return "inconclusive"

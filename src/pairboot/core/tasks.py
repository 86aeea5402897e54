"""Many systems scored on several tasks: every task's score of every system on the same
replicates (:func:`task_draws`), then an aggregate over the tasks with its intervals,
the comparisons of systems on it and the ranks (:func:`tasks_result`).

What varies is named by ``resample`` (docs/rankings.md):

- ``"items"``: the tasks are fixed ("this suite") and the items are drawn again within
  each task.  A task's score is the metric on its stratum's sums, so this is the
  engine's stratified bootstrap (one draw of units per resample for every system,
  the tasks the strata) read per stratum: ``(R, T, M)`` task scores.
- ``"tasks"``: the tasks are a sample of a population of tasks; their observed scores
  are fixed and the tasks are drawn again with replacement (T draws of T).
- ``"both"``: two levels, as rliable's ``task_bootstrap=True``: the tasks are drawn
  again, and each drawn task brings an item-level replicate of its own (a replicate of
  the items bootstrap picked at random for every drawn slot, so a task drawn twice
  brings two independent draws of its items).

The task draws are numpy's, one ``SeedSequence`` child per fixed block of replicates
of the run's seed, so the answer does not depend on memory.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from pairboot._version import __version__
from pairboot.core.corrections import CORRECTIONS
from pairboot.core.design import build_design, derived_seed
from pairboot.core.diagnostics import SMALL_N
from pairboot.core.estimands import Estimands, observed_sums
from pairboot.core.family import simultaneous
from pairboot.core.pipeline import resample
from pairboot.errors import DegenerateDataWarning, InputError, SmallSampleWarning
from pairboot.options import TASK_RESAMPLES, Arguments, Data
from pairboot.results.compare import ConfidenceInterval, SystemScore
from pairboot.results.family import Comparison
from pairboot.results.tasks import TasksResult
from pairboot.stats.aggregates import AGGREGATES, best_shares, tie_groups
from pairboot.stats.intervals import Bootstrap, bounds, p_value
from pairboot.stats.multiple import bonferroni, holm, max_t, rank_intervals

RESAMPLES = TASK_RESAMPLES
"""What varies: the items within each task, the tasks, or both."""

RANK_CORRECTIONS = ("max-t", "holm", "bonferroni")
"""Corrections whose all-pairs decisions hold together (family-wise): the rank
intervals are read off one of them (max-t under the others)."""

TASK_BLOCK = 1024
"""Replicates per SeedSequence child of the task draws (fixed: the answer never depends
on memory)."""

_TASK_KEY = 0x7A5C
"""The spawn key that keeps the task draws apart from the engine's."""


@dataclass(frozen=True)
class TaskDraws:
    """Every task's score of every system, observed and on every replicate."""

    names: tuple[str, ...]
    tasks: tuple[str, ...]
    n_items: tuple[int, ...]
    observed: np.ndarray
    """(T, M): each task's score of each system."""
    replicates: np.ndarray
    """(R, T, M): the task scores on every replicate, as ``resample`` says."""
    seed: int
    engine: str
    notes: list


def task_draws(systems, names, labels, args: Arguments, data: Data, level: str
               ) -> TaskDraws:
    """The task scores of ``systems`` (per-item scores, ``labels`` their tasks), and
    their replicates under ``level`` (:data:`RESAMPLES`)."""
    data = dataclasses.replace(data, names=tuple(names), strata=labels, strata_weights=None)
    args = dataclasses.replace(args, runs=None, paired_runs=False)
    notes: list = []
    if level == "tasks":  # (no item is drawn: the tasks' observed scores are the units)
        design = build_design(systems, names=tuple(names), metric=data.metric, paired=True,
                              groups=data.groups, group_weighting=args.group_weighting,
                              strata=labels, strata_weights=None, ids=data.ids)
        observed = observed_sums(design.plan)
        core = Estimands(design, observed, observed)
        seed = args.seed if args.seed is not None else derived_seed(design, args)
        engine = "numpy (tasks)"
        item_replicates = None
    else:
        run = resample(systems, args, data, family=True)
        design, core, seed, engine = run.design, run.core, run.seed, run.engine
        # (compare()'s note on the strata's own intervals is about result.strata: the
        # tasks' scores have their own note here)
        notes += [n for n in run.notes if "`result.strata`" not in n[1]]
        small = [f"{t} ({int(k)})" for t, k in zip(design.strata_names,
                                                  design.units_per_stratum) if k < SMALL_N]
        if small:
            notes.append((SmallSampleWarning, (
                f"tasks with fewer than {SMALL_N} units drawn: {', '.join(small[:10])}"
                + (" ..." if len(small) > 10 else "") + "; a bootstrap of so few units "
                "tends to give intervals that are too narrow")))
        item_replicates = np.stack([core.phi(j, core.M) for j in range(len(names))],
                                   axis=-1)  # (R, T, M)
    with np.errstate(all="ignore"):
        observed_scores = np.stack([core.phi(j, core.M_hat)[0] for j in range(len(names))],
                                   axis=-1)  # (T, M)
    n_tasks = observed_scores.shape[0]
    if level == "items":
        replicates = item_replicates
    else:
        picks, slots = _task_picks(n_tasks, args.n_resamples, seed)
        if level == "tasks":
            replicates = observed_scores[picks]
        else:
            replicates = item_replicates[slots, picks]
        if n_tasks < SMALL_N:
            notes.append((SmallSampleWarning, (
                f"the tasks are drawn again and there are only {n_tasks}: a bootstrap of "
                f"fewer than {SMALL_N} units gives intervals that tend to be too narrow, "
                "and an aggregate over so few tasks moves with each one")))
    tasks = tuple(design.strata_names)
    return TaskDraws(tuple(names), tasks, tuple(int(n) for n in design.items_per_stratum),
                     observed_scores, replicates, int(seed), engine, notes)


def _task_picks(n_tasks: int, n_resamples: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``(picks, slots)``, each (R, T): the task drawn into every slot of every
    replicate, and the item-level replicate it brings (two levels)."""
    root = np.random.SeedSequence(seed, spawn_key=(_TASK_KEY,))
    blocks = root.spawn(max(1, math.ceil(n_resamples / TASK_BLOCK)))
    picks = np.empty((n_resamples, n_tasks), dtype=np.intp)
    slots = np.empty((n_resamples, n_tasks), dtype=np.intp)
    for b, child in enumerate(blocks):
        rng = np.random.default_rng(child)
        lo, hi = b * TASK_BLOCK, min(n_resamples, (b + 1) * TASK_BLOCK)
        picks[lo:hi] = rng.integers(0, n_tasks, size=(hi - lo, n_tasks))
        slots[lo:hi] = rng.integers(0, n_resamples, size=(hi - lo, n_tasks))
    return picks, slots


def tasks_result(draws: TaskDraws, *, aggregate: str, gamma: float, level: str,
                 targets: list[tuple[int, int]], args: Arguments, metric: str,
                 runs: str | None) -> TasksResult:
    """The aggregate of every system with its interval, the comparisons ``targets``
    ((i, j): system j minus system i) under ``args.correction``, and the ranks."""
    agg = AGGREGATES[aggregate]
    lower = args.lower_is_better
    sign = -1.0 if (agg.counts_wins and lower) else 1.0  # (wins of losses: the smaller)
    with np.errstate(all="ignore"):
        estimate = agg.function(sign * draws.observed[None], gamma)[0]  # (M,)
        replicates = agg.function(sign * draws.replicates, gamma)  # (R, M)
    agg_lower = lower if agg.lower_is_better is None else agg.lower_is_better
    alpha = 1.0 - args.confidence_level
    notes = list(draws.notes)
    bad = int(np.isnan(replicates).any(axis=1).sum())
    if bad:
        notes.append((DegenerateDataWarning, (
            f"{bad} of {len(replicates)} resamples leave some system's aggregate undefined "
            "(a task's score undefined on the drawn items): they are left out")))

    systems = {}
    for j, name in enumerate(draws.names):
        boot = Bootstrap.from_replicates(estimate[j], _finite(replicates[:, j]))
        systems[name] = SystemScore(float(estimate[j]),
                                    ConfidenceInterval(*bounds(args.method, boot, alpha)),
                                    boot.sd)
    comparisons, critical = _comparisons(draws.names, targets, estimate, replicates,
                                         args, args.correction, agg_lower)
    m = len(draws.names)
    all_pairs = [(i, j) for i in range(m) for j in range(i + 1, m)]
    rank_correction = (args.correction if args.correction in RANK_CORRECTIONS
                       else "max-t")
    if sorted(targets) == all_pairs and rank_correction == args.correction:
        decided, pairs = comparisons, targets
    else:  # (the ranks need every pair, decided together)
        (decided, _), pairs = _comparisons(draws.names, all_pairs, estimate, replicates,
                                           args, rank_correction, agg_lower), all_pairs
    better = np.zeros((m, m), dtype=bool)
    for (i, j), c in zip(pairs, decided):
        if c.significant and c.estimate != 0:
            b_wins = (c.estimate > 0) != agg_lower
            better[(j, i) if b_wins else (i, j)] = True
    ranks = rank_intervals(list(draws.names), better)
    key = estimate if agg_lower else -estimate
    order = [int(k) for k in np.argsort(key, kind="stable")]
    observed_rank = {draws.names[i]: 1 + int((key < key[i]).sum()) for i in range(m)}
    groups = tie_groups(order, better)
    shares = best_shares(replicates, agg_lower)
    return TasksResult(
        names=draws.names, tasks=draws.tasks, n_items=draws.n_items, aggregate=aggregate,
        resample=level, gamma=gamma if aggregate == "optimality-gap" else None,
        metric=metric, runs=runs, lower_is_better=bool(lower),
        aggregate_lower_is_better=bool(agg_lower), systems=systems,
        task_scores={name: tuple(float(v) for v in draws.observed[:, j])
                     for j, name in enumerate(draws.names)},
        comparisons=tuple(comparisons), rank=observed_rank, rank_intervals=ranks,
        tie_groups=tuple(tuple(draws.names[i] for i in g) for g in groups),
        p_best={name: float(shares[j]) for j, name in enumerate(draws.names)},
        correction=args.correction, rank_correction=rank_correction,
        critical_value=critical, confidence_level=args.confidence_level,
        n_resamples=args.n_resamples, seed=draws.seed, method=args.method,
        engine=draws.engine, version=__version__,
        warnings=tuple(text for _, text in notes), bootstrap_distribution=replicates,
    ), notes


def _finite(x: np.ndarray) -> np.ndarray:
    return x[np.isfinite(x)]


def _comparisons(names, targets, estimate, replicates, args: Arguments, correction: str,
                 agg_lower: bool):
    """Each target's B - A of the aggregate: its own interval and p, and the family's
    under ``correction``.  Max-t: ``estimate +- c se`` on the replicates' roots and
    Romano-Wolf's stepdown p, the row's own the symmetric bootstrap-t interval and p on
    the same roots (as compare_many's max-t rows); Holm and Bonferroni: the method's
    interval at ``alpha / m``, its own by ``args.method``; none: its own."""
    alpha = 1.0 - args.confidence_level
    m = len(targets)
    if not m:
        return [], None
    est = np.array([estimate[j] - estimate[i] for i, j in targets])
    diffs = np.column_stack([replicates[:, j] - replicates[:, i] for i, j in targets])
    boots = [Bootstrap.from_replicates(e, _finite(d)) for e, d in zip(est, diffs.T)]
    se = np.array([b.sd for b in boots])
    own = [bounds(args.method, b, alpha) for b in boots]
    p_raw = np.array([p_value(args.method, b) for b in boots])
    floor = 1.0 / (args.n_resamples + 1)
    critical, p_single = None, [None] * m
    if correction == "max-t":  # (bootstrap-t on the same roots: p <= p adjusted)
        mt = max_t(est, se, diffs, alpha)
        critical = float(mt.critical_value)
        family = [simultaneous(e, s, t, critical, "two-sided", b.tolerance)
                  for e, s, t, b in zip(est, se, mt.t, boots)]
        own = [simultaneous(e, s, t, c, "two-sided", b.tolerance)
               for e, s, t, c, b in zip(est, se, mt.t, mt.marginal_critical, boots)]
        p_raw, p_adj = mt.p_marginal, mt.p_stepdown
        p_single = [float(p) for p in mt.p_single_step]
    elif correction in ("holm", "bonferroni"):
        family = [bounds(args.method, b, alpha / m) for b in boots]
        lifted = np.maximum(p_raw, floor)
        p_adj = holm(lifted) if correction == "holm" else bonferroni(lifted)
    elif correction == "none":
        family, p_adj = own, p_raw
    else:
        raise InputError(f"`correction` {correction!r} is not available for an aggregate "
                         "over tasks: choose max-t, holm, bonferroni or none (the rank "
                         "intervals need the family-wise error rate)", param="correction")
    words = CORRECTIONS[correction if m > 1 else "none"]
    rows = []
    for k, (i, j) in enumerate(targets):
        significant = bool(p_adj[k] < round(alpha, 12))
        low, high = map(float, family[k])
        note = None  # (the stepdown can reject where the simultaneous interval has 0)
        if not (math.isnan(low) or math.isnan(high)) and significant != (low > 0 or high < 0):
            note = (f"{words.test} rejects, but {words.interval} includes 0" if significant
                    else f"{words.interval} excludes 0, but {words.test} does not reject")
        rows.append(Comparison(
            a=names[i], b=names[j], estimate=float(est[k]),
            confidence_interval=ConfidenceInterval(low, high),
            marginal_interval=ConfidenceInterval(*map(float, own[k])),
            standard_error=float(se[k]), p_value=float(p_raw[k]),
            p_adjusted=float(p_adj[k]), p_single_step=p_single[k],
            significant=significant, note=note,
        ))
    return rows, critical

"""compare_tasks(): many systems scored on several tasks, summarised by an aggregate
over the tasks, compared on it and ranked with honest uncertainty."""

from __future__ import annotations

import dataclasses
import math
import numbers
import warnings as _warnings
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from pairboot.core.family import family_systems, family_targets
from pairboot.core.tasks import RESAMPLES, task_draws, tasks_result
from pairboot.errors import InputError
from pairboot.inputs.pairing import frame_ids
from pairboot.metrics import Metric
from pairboot.options import check_options
from pairboot.progress import Progress
from pairboot.results.tasks import TasksResult
from pairboot.stats.aggregates import AGGREGATES

__all__ = ["compare_tasks"]

TASK_METHODS = ("percentile", "basic", "normal")
"""The intervals an aggregate over tasks is read off (no jackknife of a median of
tasks, no per-replicate standard error)."""


def compare_tasks(
    scores,
    *,
    tasks=None,
    aggregate: str = "mean",
    resample: str = "items",
    gamma: float = 1.0,
    baseline: str | None = None,
    pairs: Sequence[tuple[str, str]] | None = None,
    correction: str = "max-t",
    lower_is_better: bool = False,
    groups=None,
    group_weighting: str = "items",
    metric: str | Metric = "mean",
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    method: str = "percentile",
    seed=None,
    ids=None,
    runs: str | None = None,
    backend: str = "auto",
    progress: Callable[[int], None] | Progress | None = None,
) -> TasksResult:
    """Many systems scored per item on several tasks: an aggregate over the tasks for
    every system with its interval, the comparisons of systems on it, every system's
    simultaneous rank interval, the tie groups and the share of resamples in which each
    system is the best.

    Parameters
    ----------
    scores : mapping or DataFrame
        ``system -> per-item scores`` (a DataFrame: a column per system) with ``tasks``
        one label per item; or, with ``tasks`` None, ``task -> {system -> per-item
        scores}`` (or ``task -> DataFrame``), every task with the same systems (one
        file per task).  Items are paired across systems by position within a task.
    tasks : array_like or str, optional
        Every item's task (a column name of the DataFrame ``scores``).
    aggregate : {"mean", "median", "iqm", "optimality-gap", "win-rate", "borda"}
        The aggregate over the tasks of each task's score (the metric on its items):
        the macro mean, the median, the interquartile mean, the optimality gap (the
        mean shortfall below ``gamma``; lower is better), HELM's mean win rate or the
        Borda count (a tie counts half; :mod:`pairboot.stats.aggregates`).
    resample : {"items", "tasks", "both"}
        What varies.  ``"items"``: the items within each task, the tasks fixed (the
        answer is about this suite: the stratified bootstrap, tasks as strata);
        ``"tasks"``: the tasks, as a sample of a population of tasks (their scores
        fixed); ``"both"``: two levels, tasks drawn and the items within every drawn
        task (rliable's ``task_bootstrap=True``).  The report states which.
    gamma : float
        The optimality gap's target score (rliable's default 1).
    baseline, pairs, correction
        The comparisons (``b - a`` of the aggregate) as for
        :func:`pairboot.compare_many` (default all pairs); ``correction`` is max-t,
        holm, bonferroni or none.  The rank intervals always come from all pairs
        decided together (under ``correction``, or max-t when it is none).
    lower_is_better : bool
        The scores are losses: the win counts count the smaller score as the win, and
        the ranks read the means the other way (not with the optimality gap).
    groups, group_weighting, metric, ids
        As for :func:`pairboot.compare` (groups within tasks are drawn whole; a
        task's score is ``metric`` on its items).
    n_resamples, confidence_level, seed, backend, progress
        As for :func:`pairboot.compare`.
    method : {"percentile", "basic", "normal"}
        The interval of every aggregate and of a comparison's own interval.
    runs : {None, "seeds", "samples"}
        Per-item scores with several runs (items x runs, 1-D metrics): ``"seeds"``
        (rliable's setting: training seeds or runs per task): a run's task score is its
        mean over the task's items, and the runs are the units drawn within a task;
        ``"samples"``: each item's mean over its runs is its score, the items drawn.

    Returns
    -------
    TasksResult

    Examples
    --------
    >>> import numpy as np, pairboot
    >>> rng = np.random.default_rng(0)
    >>> tasks = np.repeat(["t1", "t2", "t3", "t4"], 50)
    >>> level = np.repeat([0.2, 0.4, 0.6, 0.8], 50)
    >>> scores = {"a": (rng.random(200) < level) * 1.0,
    ...           "b": (rng.random(200) < level + 0.15) * 1.0,
    ...           "c": (rng.random(200) < level + 0.16) * 1.0}
    >>> res = pairboot.compare_tasks(scores, tasks=tasks, seed=1, n_resamples=2000)
    >>> res.rank_intervals["a"], res.tie_groups
    ((3, 3), (('b', 'c'), ('a',)))
    """
    args, data = check_options(locals(), family=True)
    if aggregate not in AGGREGATES:
        raise InputError(f"`aggregate` must be one of {', '.join(AGGREGATES)}, got "
                         f"{aggregate!r}", param="aggregate")
    if resample not in RESAMPLES:
        raise InputError(f"`resample` must be one of {', '.join(RESAMPLES)}, got "
                         f"{resample!r}", param="resample")
    if (isinstance(gamma, bool) or not isinstance(gamma, numbers.Real)
            or not math.isfinite(gamma)):
        raise InputError(f"`gamma` must be a finite number, got {gamma!r}", param="gamma")
    if aggregate == "optimality-gap" and lower_is_better:
        raise InputError("`aggregate='optimality-gap'` is the shortfall of higher-is-better "
                         "scores below `gamma`: not with `lower_is_better`",
                         param="aggregate")
    if args.method not in TASK_METHODS:
        raise InputError(f"`method` for an aggregate over tasks must be one of "
                         f"{', '.join(TASK_METHODS)}, got {args.method!r}", param="method")
    names, systems, labels = _task_columns(scores, tasks, data.ids, args.runs, groups)
    if len(set(labels)) < 2 and resample != "items":
        raise InputError(f"`resample={resample!r}` draws tasks: give at least two tasks",
                         param="tasks")
    if args.runs is not None:
        data = _without_ids(data)
    targets = family_targets(names, data.baseline, data.pairs, args.n_resamples)
    draws = task_draws(systems, names, labels, args, data, resample)
    result, notes = tasks_result(
        draws, aggregate=aggregate, gamma=float(gamma), level=resample, targets=targets,
        args=args, metric=data.metric if isinstance(data.metric, str) else data.metric.name,
        runs=args.runs)
    for category, text in notes:
        _warnings.warn(text, category, stacklevel=2)
    return result


def _without_ids(data):
    return dataclasses.replace(data, ids=None)


def _task_columns(scores, tasks, ids, runs, groups):
    """``(names, systems, labels)``: every system's per-unit scores in one column, and
    every unit's task, from either layout of ``scores`` (with ``runs``, each task's
    items x runs reduced to its units first)."""
    nested = tasks is None and isinstance(scores, Mapping) and scores and all(
        isinstance(v, Mapping) or hasattr(v, "columns") for v in scores.values())
    if tasks is None and not nested:
        raise InputError("`tasks` is required (one task label per item), unless `scores` "
                         "maps every task to its systems' scores", param="tasks")
    if nested:
        if groups is not None or ids is not None:
            raise InputError("`groups` and `ids` go with one table of items and `tasks`, "
                             "not with a mapping of tasks", param="groups" if groups
                             is not None else "ids")
        names = None
        columns: dict = {}
        labels: list = []
        for task, table in scores.items():
            task_names, values = family_systems(table, minimum=1)
            if names is None:
                names = task_names
            elif sorted(task_names) != sorted(names):
                raise InputError(f"`scores`: task {task!r} has the systems "
                                 f"{task_names}, another task {names}: every task needs "
                                 "the same systems", param="scores")
            arrays = dict(zip(task_names, (_array(v, n, task) for n, v in
                                           zip(task_names, values))))
            units = _units(arrays, names, runs, task)
            for n in names:
                columns.setdefault(n, []).append(units[n])
            labels += [str(task)] * len(units[names[0]])
        return names, [np.concatenate(columns[n]) for n in names], labels
    if isinstance(tasks, str) and hasattr(scores, "columns"):
        if tasks not in [str(c) for c in scores.columns]:
            raise InputError(f"`tasks={tasks!r}` names no column of `scores`",
                             param="tasks")
        labels_in = [str(v) for v in scores[tasks]]
        scores = scores[[c for c in scores.columns if str(c) != tasks]]
    else:
        labels_in = [str(v) for v in np.asarray(tasks, dtype=object).ravel()]
    scores, _ = frame_ids(scores, ids)
    names, values = family_systems(scores)
    arrays = {n: _array(v, n, None) for n, v in zip(names, values)}
    for n, x in arrays.items():
        if len(x) != len(labels_in):
            raise InputError(f"`tasks` has {len(labels_in)} labels but system {n!r} has "
                             f"{len(x)} items", param="tasks")
    if runs is None:
        return names, [arrays[n] for n in names], labels_in
    labels_arr = np.array(labels_in, dtype=object)
    columns, labels = {n: [] for n in names}, []
    for task in dict.fromkeys(labels_in):  # (first-seen order)
        rows = labels_arr == task
        units = _units({n: arrays[n][rows] for n in names}, names, runs, task)
        for n in names:
            columns[n].append(units[n])
        labels += [task] * len(units[names[0]])
    return names, [np.concatenate(columns[n]) for n in names], labels


def _array(values, name, task) -> np.ndarray:
    where = f"system {name!r}" + ("" if task is None else f" on task {task!r}")
    try:
        x = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"`scores`: {where} has scores that are not numbers",
                         param="scores") from None
    if x.ndim == 0 or x.ndim > 2:
        raise InputError(f"`scores`: {where} must be per-item scores (1-D, or items x "
                         f"runs with `runs`), got shape {x.shape}", param="scores")
    return x


def _units(arrays: dict, names, runs, task) -> dict:
    """One task's units per system: the items (``runs`` None or "samples": each item's
    mean over its runs) or the runs (``"seeds"``: each run's mean over the items)."""
    shapes = {n: arrays[n].shape for n in names}
    if runs is None:
        return arrays
    bad = [n for n in names if arrays[n].ndim != 2]
    if bad:
        raise InputError(f"`runs={runs!r}`: system {bad[0]!r}"
                         + ("" if task is None else f" on task {task!r}")
                         + f" must be items x runs, got shape {shapes[bad[0]]}",
                         param="scores")
    if any(np.isnan(arrays[n]).any() for n in names):
        raise InputError("`scores`: a missing (NaN) run score"
                         + ("" if task is None else f" on task {task!r}")
                         + ": every item needs every run", param="scores")
    if runs == "samples":
        return {n: arrays[n].mean(axis=1) for n in names}
    counts = {shapes[n][1] for n in names}
    if len(counts) != 1:
        raise InputError(f"`runs='seeds'`: the systems have different numbers of runs "
                         f"({sorted(counts)})" + ("" if task is None else f" on task "
                                                  f"{task!r}") + ": run r is drawn for "
                         "every system at once", param="scores")
    return {n: arrays[n].mean(axis=0) for n in names}

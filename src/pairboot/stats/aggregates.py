"""Aggregates of many systems' per-task scores over the tasks (a leaderboard's summary),
and the ranks read off them: pure functions of arrays, vectorised over replicates.

Every aggregate takes ``values`` of shape ``(..., T, M)`` (T tasks, M systems: the
systems on the last axis, as the engine's sums hold them side by side) and returns
``(..., M)``.  Scores are higher-is-better here; a caller with losses negates them
first (the win counts) or reads the aggregate the other way (the means).

- ``mean``: the macro mean over tasks (each task weighs the same);
- ``median``: the median over tasks;
- ``iqm``: the interquartile mean over tasks, ``scipy.stats.trim_mean(x, 0.25)``
  (``int(0.25 T)`` tasks cut at each end, as rliable's ``aggregate_iqm``);
- ``optimality-gap``: the mean over tasks of ``max(gamma - score, 0)`` (rliable's
  ``aggregate_optimality_gap``; lower is better);
- ``win-rate``: HELM's mean win rate, per task the share of the other systems a system
  beats (a tie counts half), averaged over tasks;
- ``borda``: the Borda count over tasks, per task the number of other systems a system
  beats (a tie counts half), summed: ``T (M - 1)`` times the mean win rate when every
  system has every task (MTEB's ranking rule).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["AGGREGATES", "Aggregate", "best_shares", "borda", "interquartile_mean",
           "mean_win_rate", "optimality_gap", "task_points", "tie_groups"]


def interquartile_mean(values: np.ndarray) -> np.ndarray:
    """The mean of the middle half over tasks (axis -2): ``int(0.25 T)`` values cut at
    each end, as ``scipy.stats.trim_mean(values, 0.25, axis=-2)``.

    >>> interquartile_mean(np.array([[1.0], [2.0], [3.0], [10.0]])).tolist()
    [2.5]
    """
    n = values.shape[-2]
    cut = int(0.25 * n)
    ordered = np.sort(values, axis=-2)
    return ordered[..., cut : n - cut, :].mean(axis=-2)


def optimality_gap(values: np.ndarray, gamma: float = 1.0) -> np.ndarray:
    """The mean over tasks of how far each score falls short of ``gamma``.

    >>> optimality_gap(np.array([[0.5], [1.2]])).tolist()
    [0.25]
    """
    return np.maximum(gamma - values, 0.0).mean(axis=-2)


def task_points(values: np.ndarray) -> np.ndarray:
    """Per task, the number of other systems each system beats, a tie counting half
    (its average ascending rank less one): shape ``(..., T, M)``.  NaN where its own
    score is NaN (a NaN score beats nothing and ties nothing).

    >>> task_points(np.array([[0.1, 0.5, 0.5]])).tolist()
    [[0.0, 1.5, 1.5]]
    """
    points = np.zeros(values.shape, dtype=np.float64)
    for j in range(values.shape[-1]):  # (M passes over (..., T, M): no (M, M) block)
        other = values[..., j : j + 1]
        points += (other < values) + 0.5 * (other == values)
    points -= 0.5  # (each system ties itself once)
    points[np.isnan(values)] = np.nan
    return points


def mean_win_rate(values: np.ndarray) -> np.ndarray:
    """HELM's mean win rate: per task the share of the M - 1 other systems a system
    beats (ties half), averaged over the tasks.

    >>> mean_win_rate(np.array([[0.1, 0.5, 0.5], [0.3, 0.2, 0.1]])).tolist()
    [0.5, 0.625, 0.375]
    """
    m = values.shape[-1]
    if m < 2:
        return np.full(values.shape[:-2] + (m,), np.nan)
    return task_points(values).mean(axis=-2) / (m - 1)


def borda(values: np.ndarray) -> np.ndarray:
    """The Borda count over tasks: per task the number of other systems a system beats
    (ties half), summed over the tasks.

    >>> borda(np.array([[0.1, 0.5, 0.5], [0.3, 0.2, 0.1]])).tolist()
    [2.0, 2.5, 1.5]
    """
    return task_points(values).sum(axis=-2)


@dataclass(frozen=True, slots=True)
class Aggregate:
    """One aggregate over tasks: its function of ``(..., T, M)`` values (``gamma`` given
    to those that take it) and which way it is better."""

    name: str
    function: Callable
    lower_is_better: bool | None
    """True: a smaller aggregate is better whatever the scores' direction (the
    optimality gap); False: a larger one (the win counts, on scores turned
    higher-is-better first); None: as the scores are (the means)."""
    counts_wins: bool = False
    """Read off each task's order of the systems (the scores of losses are negated)."""
    words: str = ""


AGGREGATES: dict[str, Aggregate] = {a.name: a for a in (
    Aggregate("mean", lambda v, gamma: v.mean(axis=-2), None,
              words="the macro mean over tasks (each task weighs the same)"),
    Aggregate("median", lambda v, gamma: np.median(v, axis=-2), None,
              words="the median over tasks"),
    Aggregate("iqm", lambda v, gamma: interquartile_mean(v), None,
              words="the interquartile mean over tasks (the middle half of the tasks' "
                    "scores, 25% cut at each end)"),
    Aggregate("optimality-gap", optimality_gap, True,
              words="the optimality gap: the mean over tasks of how far a score falls "
                    "short of gamma (lower is better)"),
    Aggregate("win-rate", lambda v, gamma: mean_win_rate(v), False, counts_wins=True,
              words="the mean win rate (HELM): per task the share of the other systems "
                    "beaten, a tie counting half, averaged over tasks"),
    Aggregate("borda", lambda v, gamma: borda(v), False, counts_wins=True,
              words="the Borda count: per task the number of other systems beaten, a "
                    "tie counting half, summed over tasks"),
)}
"""Every aggregate over tasks, by name."""


def best_shares(replicates: np.ndarray, lower_is_better: bool) -> np.ndarray:
    """Per system, the share of replicates (rows of ``replicates``, (R, M)) in which it
    is the best, a tie for the best shared equally; rows with a NaN are left out (all
    NaN: every share NaN).

    >>> best_shares(np.array([[1.0, 2.0], [3.0, 3.0]]), False).tolist()
    [0.25, 0.75]
    """
    kept = replicates[~np.isnan(replicates).any(axis=1)]
    if not len(kept):
        return np.full(replicates.shape[1], np.nan)
    top = kept.min(axis=1) if lower_is_better else kept.max(axis=1)
    best = kept == top[:, None]
    return (best / best.sum(axis=1, keepdims=True)).mean(axis=0)


def tie_groups(order: list[int], better: np.ndarray) -> list[list[int]]:
    """The systems in ``order`` (best estimate first) cut into groups wherever every
    system above the cut is surely better than every one below (``better[i, j]``: i
    surely better than j): systems of different groups are all told apart, and each
    system's rank interval lies within its group's places.

    >>> better = np.array([[0, 1, 1], [0, 0, 0], [0, 0, 0]], dtype=bool)
    >>> tie_groups([0, 1, 2], better)
    [[0], [1, 2]]
    """
    groups, current = [], []
    for k, i in enumerate(order):
        current.append(i)
        above, below = order[: k + 1], order[k + 1 :]
        if below and better[np.ix_(above, below)].all():
            groups.append(current)
            current = []
    if current:
        groups.append(current)
    return groups

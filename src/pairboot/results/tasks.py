"""Many systems on many tasks (:func:`pairboot.compare_tasks`): an aggregate over the
tasks with its intervals, the comparisons on it and the ranks.  Data only: its prose is
the report layer's (:mod:`pairboot.report.tasks`)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np

from pairboot.errors import InputError
from pairboot.rendering import rendered
from pairboot.results.compare import json_safe
from pairboot.results.family import Comparison

__all__ = ["TasksResult"]


@dataclass(frozen=True, slots=True)
class TasksResult:
    """An aggregate over tasks of M systems, its comparisons and ranks.

    Attributes
    ----------
    names, tasks : tuple of str
        The systems and the tasks.
    n_items : tuple of int
        Each task's units (items; with ``runs="seeds"``, runs).
    aggregate : str
        ``"mean"``, ``"median"``, ``"iqm"``, ``"optimality-gap"``, ``"win-rate"`` or
        ``"borda"`` (:mod:`pairboot.stats.aggregates`).
    resample : str
        What varies: ``"items"`` (within each task, the tasks fixed), ``"tasks"`` (the
        tasks a sample of a population of tasks) or ``"both"`` (two levels).
    gamma : float or None
        The optimality gap's target (None for the other aggregates).
    lower_is_better : bool
        The scores' direction.
    aggregate_lower_is_better : bool
        The aggregate's: a smaller optimality gap is better whatever the scores'.
    systems : dict of str to SystemScore
        Every system's aggregate, its percentile (``method``) interval and bootstrap
        standard error.
    task_scores : dict of str to tuple of float
        Every system's observed score on every task (in ``tasks``' order).
    comparisons : tuple of Comparison
        ``b - a`` of the aggregate for every comparison asked for, under ``correction``.
    rank : dict of str to int
        Every system's rank on the observed aggregate (1 the best; ties share the best).
    rank_intervals : dict of str to (int, int)
        A simultaneous confidence set for every system's rank (Mogstad, Romano, Shaikh
        & Wilhelm), from all pairs decided under ``rank_correction``.
    tie_groups : tuple of tuple of str
        The systems cut, best first, wherever every system above the cut is surely
        better than every one below: systems in different groups are all told apart.
    p_best : dict of str to float
        The share of resamples in which the system is the best (a tie shared): a
        bootstrap quantity, not a posterior probability.
    correction, rank_correction : str
        The comparisons' correction, and the all-pairs one the ranks are read off.
    critical_value : float or None
        Max-t's ``c`` of the comparisons (None under the other corrections).
    bootstrap_distribution : numpy.ndarray
        (n_resamples, M): every system's aggregate on every resample.
    """

    names: tuple[str, ...]
    tasks: tuple[str, ...]
    n_items: tuple[int, ...]
    aggregate: str
    resample: str
    gamma: float | None
    metric: str
    runs: str | None
    lower_is_better: bool
    aggregate_lower_is_better: bool
    systems: dict
    task_scores: dict
    comparisons: tuple[Comparison, ...]
    rank: dict
    rank_intervals: dict
    tie_groups: tuple[tuple[str, ...], ...]
    p_best: dict
    correction: str
    rank_correction: str
    critical_value: float | None
    confidence_level: float
    n_resamples: int
    seed: int
    method: str
    engine: str
    version: str
    warnings: tuple[str, ...]
    bootstrap_distribution: np.ndarray = field(repr=False, compare=False)

    def to_dict(self) -> dict:
        """The fields as JSON's types (without the bootstrap distribution)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)
               if f.name != "bootstrap_distribution"}
        out["systems"] = {n: s.to_dict() for n, s in self.systems.items()}
        out["comparisons"] = [c.to_dict() for c in self.comparisons]
        out["rank_intervals"] = {n: list(v) for n, v in self.rank_intervals.items()}
        out["tie_groups"] = [list(g) for g in self.tie_groups]
        return json_safe(out)

    def to_frame(self, *, what: str = "systems"):
        """A pandas DataFrame (needs pandas): ``"systems"``, a row per system (its
        aggregate, interval, rank, rank interval, tie group and share of resamples
        where it is best), best first; ``"comparisons"``, a row per comparison;
        ``"tasks"``, a row per task and a column per system."""
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - depends on the environment
            raise ImportError("to_frame() needs pandas: pip install pandas") from None
        if what == "comparisons":
            return pd.DataFrame([{
                "a": c.a, "b": c.b, "estimate": c.estimate,
                "low": c.confidence_interval.low, "high": c.confidence_interval.high,
                "marginal_low": c.marginal_interval.low,
                "marginal_high": c.marginal_interval.high,
                "standard_error": c.standard_error, "p_value": c.p_value,
                "p_adjusted": c.p_adjusted, "significant": c.significant,
            } for c in self.comparisons])
        if what == "tasks":
            return pd.DataFrame(self.task_scores, index=pd.Index(self.tasks, name="task"))
        if what != "systems":
            raise InputError(f"`what` must be 'systems', 'comparisons' or 'tasks', got "
                             f"{what!r}", param="what")
        group_of = {n: k + 1 for k, g in enumerate(self.tie_groups) for n in g}
        rows = [{
            "system": n, self.aggregate: s.estimate, "low": s.confidence_interval.low,
            "high": s.confidence_interval.high, "standard_error": s.standard_error,
            "rank": self.rank[n], "rank_low": self.rank_intervals[n][0],
            "rank_high": self.rank_intervals[n][1], "tie_group": group_of[n],
            "p_best": self.p_best[n],
        } for n, s in self.systems.items()]
        return pd.DataFrame(sorted(rows, key=lambda r: (r["rank"], r["rank_low"])))

    def summary(self) -> str:
        """The text report (``print(result)``)."""
        return rendered(self, "text")

    def to_html(self) -> str:
        """One self-contained HTML page, with the rank plot as inline SVG when
        matplotlib is installed."""
        return rendered(self, "html")

    def _repr_html_(self) -> str:
        return rendered(self, "html-fragment")

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        best = [n for n, (low, _) in self.rank_intervals.items() if low == 1]
        return (f"TasksResult(aggregate={self.aggregate!r}, resample={self.resample!r}, "
                f"systems={len(self.names)}, tasks={len(self.tasks)}, could_be_best={best}, "
                f"n_resamples={self.n_resamples}, seed={self.seed})")

"""Several metrics of one comparison on the same draws: one :class:`MetricRow` per
metric, the :class:`MetricsResult` of :func:`pairboot.compare_metrics`.  Data only: its
prose is the report layer's."""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from pairboot.rendering import rendered
from pairboot.results.compare import ConfidenceInterval, SystemScore, json_safe
from pairboot.tracking import Tracked, Tracking, verdict_code


@dataclass(frozen=True, slots=True)
class MetricRow:
    """One metric of the comparison: B against A on its own scale and direction.

    Attributes
    ----------
    name : str
        The metric's name as given (the key of ``metrics``, the command line's column).
    metric : str
        The formula's name (``"mean"``, ``"f1"``).
    columns : tuple of str
        The per-item columns it read.
    lower_is_better : bool
    margin : float or None
        Its margin, a size >= 0 (its side set by the direction).
    estimate : float
        ``B - A`` on the metric's scale (negative is better when lower is better).
    confidence_interval : ConfidenceInterval
        ``B - A``'s interval under the result's correction (the row's own under "none").
    marginal_interval : ConfidenceInterval
        The row's own interval by ``method``, as :func:`pairboot.compare` of this metric
        alone gives it.
    standard_error : float
    p_value : float
        The row's own p-value of the result's hypothesis.
    p_adjusted : float
        Under the correction (``p_value`` under "none").
    significant : bool
        ``p_adjusted < 1 - confidence_level``.
    verdict : str
        As :meth:`pairboot.CompareResult.verdict`, in the metric's direction.
    p_better : float
        One-sided p-value of "B is better" (H0: B not better than A), on the metric's
        better side, by ``method``, uncorrected.
    p_non_inferior, p_better_by_margin : float or None
        One-sided p-values, uncorrected, against the margin on the better side: H0 "B is
        worse by the margin or more", and H0 "B is not better by more than the margin"
        (None without a margin).
    score_a, score_b : SystemScore
        Each system's own value of the metric, with its interval.
    note : str or None
        Where the corrected test and interval disagree.
    """

    name: str
    metric: str
    columns: tuple[str, ...]
    lower_is_better: bool
    margin: float | None
    estimate: float
    confidence_interval: ConfidenceInterval
    marginal_interval: ConfidenceInterval
    standard_error: float
    p_value: float
    p_adjusted: float
    significant: bool
    verdict: str
    p_better: float
    p_non_inferior: float | None
    p_better_by_margin: float | None
    score_a: SystemScore
    score_b: SystemScore
    note: str | None = None

    def to_dict(self) -> dict:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        for key in ("confidence_interval", "marginal_interval"):
            out[key] = out[key]._asdict()
        out["score_a"], out["score_b"] = self.score_a.to_dict(), self.score_b.to_dict()
        return json_safe(out)


@dataclass(frozen=True, slots=True, repr=False)
class MetricsResult(Tracked):
    """The answer of :func:`pairboot.compare_metrics`: several metrics of systems A and B
    read off one set of resamples of the items, so the joint distribution of their
    differences is known.

    Attributes
    ----------
    rows : tuple of MetricRow
        One per metric, in the order given.
    names : (str, str)
        The systems' names, A then B.
    bootstrap_distribution : ndarray, shape (n_resamples, n_metrics)
        Every resample's ``B - A`` of every metric (column m: ``rows[m]``), on the same
        draws: what a gate reads for max-t or Holm across metrics (a row's standardized
        root is ``(column - estimate) / standard_error``).  NaN where a resample left a
        metric undefined.
    correction : str
        Across the metrics' rows: "none" (each row as compare() of that metric alone
        gives it), or a family's ("max-t", "holm", ...: the rows' error rate controlled
        together).
    critical_value : float or None
        Max-t's ``c`` across the metrics (None under the other corrections).
    hypothesis : str
        What every row tests (each against its own margin, in its own direction).
    confidence_level, n_resamples, seed, method, n_items, n_groups, n_strata, engine,
    resampling, version, warnings
    """

    rows: tuple[MetricRow, ...]
    names: tuple[str, str]
    bootstrap_distribution: np.ndarray
    correction: str
    critical_value: float | None
    hypothesis: str
    confidence_level: float
    n_resamples: int
    seed: int
    method: str
    n_items: int
    n_groups: int | None
    n_strata: int | None
    engine: str
    resampling: str
    version: str
    warnings: tuple[str, ...] = ()

    def __getitem__(self, name: str) -> MetricRow:
        """The row of the metric ``name``."""
        for row in self.rows:
            if row.name == name:
                return row
        raise KeyError(name)

    @property
    def metrics(self) -> tuple[str, ...]:
        """The metrics' names, in the rows' order."""
        return tuple(r.name for r in self.rows)

    @property
    def gain_distribution(self) -> np.ndarray:
        """:attr:`bootstrap_distribution` as B's gain: each lower-is-better metric's
        column negated (``A - B``), so that "B is better" is the upper side of every
        column, as the rows' one-sided tests and a correction across the metrics read
        them (the gains' estimates: ``[r.estimate * (-1 if r.lower_is_better else 1)]``;
        their standard errors the rows')."""
        signs = np.array([-1.0 if r.lower_is_better else 1.0 for r in self.rows])
        return self.bootstrap_distribution * signs

    @property
    def correlation(self) -> np.ndarray:
        """The correlations of the metrics' resampled differences (n_metrics x
        n_metrics; NaN for a metric without spread)."""
        x = self.bootstrap_distribution
        x = x[np.all(np.isfinite(x), axis=1)]
        k = x.shape[1]
        sd = x.std(axis=0) if len(x) else np.zeros(k)
        out = np.full((k, k), np.nan)
        ok = sd > 0
        if ok.any() and len(x) > 1:
            out[np.ix_(ok, ok)] = np.corrcoef(x[:, ok], rowvar=False).reshape(
                int(ok.sum()), int(ok.sum()))
        return out

    def to_dict(self) -> dict:
        out = {f.name: getattr(self, f.name) for f in fields(self)
               if f.name != "bootstrap_distribution"}
        out["rows"] = [r.to_dict() for r in self.rows]
        out["correlation"] = self.correlation.tolist()
        return json_safe(out)

    def to_frame(self):
        """One row per metric, as a pandas DataFrame (needs pandas)."""
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - depends on the environment
            raise ImportError("to_frame() needs pandas: pip install pandas") from None
        return pd.DataFrame([{
            "metric": r.name, "lower_is_better": r.lower_is_better, "margin": r.margin,
            "a": r.score_a.estimate, "b": r.score_b.estimate, "estimate": r.estimate,
            "low": r.confidence_interval.low, "high": r.confidence_interval.high,
            "standard_error": r.standard_error, "p_value": r.p_value,
            "p_adjusted": r.p_adjusted, "verdict": r.verdict, "p_better": r.p_better,
            "p_non_inferior": r.p_non_inferior, "p_better_by_margin": r.p_better_by_margin,
        } for r in self.rows])

    report_format = "markdown"  # (no HTML report yet: the trackers log the Markdown)

    def tracked(self) -> Tracking:
        """What :meth:`log_to_mlflow` and :meth:`log_to_wandb` log (pairboot.tracking):
        each metric's numbers (``NAME/estimate``, ``ci_low``, ``ci_high``, ``p_value``,
        ``p_adjusted``, ``verdict_code``, ``score_a``, ``score_b``) and verdict, the
        signature."""
        metrics: dict[str, float] = {}
        tags = {"result": "metrics", "name_a": self.names[0], "name_b": self.names[1]}
        for r in self.rows:
            metrics.update({f"{r.name}/estimate": r.estimate,
                            f"{r.name}/ci_low": r.confidence_interval.low,
                            f"{r.name}/ci_high": r.confidence_interval.high,
                            f"{r.name}/p_value": r.p_value,
                            f"{r.name}/p_adjusted": r.p_adjusted,
                            f"{r.name}/verdict_code": verdict_code(r.verdict),
                            f"{r.name}/score_a": r.score_a.estimate,
                            f"{r.name}/score_b": r.score_b.estimate})
            tags[f"{r.name}/verdict"] = r.verdict
        params = {name: getattr(self, name) for name in (
            "correction", "hypothesis", "confidence_level", "n_resamples", "seed",
            "method", "n_items", "n_groups", "n_strata", "resampling", "engine", "version")}
        return Tracking(metrics, params, tags)

    def summary(self) -> str:
        """The text report (``print(result)``)."""
        return rendered(self, "text")

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        return (f"MetricsResult(metrics={self.metrics}, correction={self.correction!r}, "
                f"verdicts={tuple(r.verdict for r in self.rows)}, "
                f"n_resamples={self.n_resamples}, seed={self.seed})")


@dataclass(frozen=True, slots=True)
class GateRow:
    """One row of a gate (:class:`pairboot.Rule`) and its verdict.

    Attributes
    ----------
    name, metric, test, require : str
        The row's name, its metric, its test (:data:`pairboot.plans.gate.TESTS`), and
        "all" (must hold) or "any" (one of the rows of which any one suffices).
    verdict : str
        "pass" (the claim shown at the gate's level), "fail" (its opposite shown), or
        "inconclusive" (neither).
    p_value : float
        The claim's p-value (H0: not the claim): over tasks the largest of the tasks'
        (intersection-union), or the partial conjunction's; exact for a rate's bound.
    estimate : float or None
        ``B - A`` on the metric's scale (a rate for an upper bound and the regressions);
        None for a row over several tasks (see ``task_estimates``).
    interval : (float, float) or None
        Its two-sided interval at ``1 - 2 alpha``: each end is the one-sided bound at
        ``alpha`` the row's test reads.
    margin, bound : float or None
    tasks, task_estimates, task_intervals, task_p_values : tuples
        A row over tasks: each task's ``B - A``, interval and claim p-value.
    lower_is_better : bool
    method : str
        How the row was tested.
    needed_items : int or None
        Inconclusive: about how many items would decide it at 80% power if the
        difference is as estimated (None: cannot say, e.g. the estimate is on the
        failing side).
    why : str or None
        What decided a fail over tasks, or a partial conjunction's count.
    p_adjusted : float or None
        An "any" row's adjusted p-value (``correction``: "max-t" on the joint draws, or
        "Holm").
    correction : str or None
        How an "any" row's p-value was adjusted.
    """

    name: str
    metric: str
    test: str
    require: str
    verdict: str
    p_value: float
    estimate: float | None
    interval: tuple[float, float] | None
    margin: float | None
    bound: float | None
    tasks: tuple[str, ...]
    task_estimates: tuple[float, ...]
    task_intervals: tuple[tuple[float, float], ...]
    task_p_values: tuple[float, ...]
    lower_is_better: bool
    method: str
    needed_items: int | None
    why: str | None
    p_adjusted: float | None = None
    correction: str | None = None

    def to_dict(self) -> dict:
        return json_safe({f.name: getattr(self, f.name) for f in fields(self)})


GATE_EXIT = {"pass": 0, "fail": 1}
"""The exit status of a gate's verdict (an inconclusive one as the gate says; 2 is bad
input and 3 an internal error, as for every command)."""


@dataclass(frozen=True, slots=True, repr=False)
class GateResult:
    """The answer of :func:`pairboot.check_gate`: every row's verdict and the policy's.

    Attributes
    ----------
    rows : tuple of GateRow
    verdict : str
        "pass", "fail" or "inconclusive" (docs/gates.md: how the rows combine).
    confidence_level : float
    inconclusive : str
        What an inconclusive verdict does to :attr:`exit_status` ("pass" or "fail").
    policy_sha256 : str
        The policy's hash (of its file's text when read from one).
    names, n_items, tasks, n_resamples, seed
    metrics : MetricsResult
        The whole test set's metrics (stratified by task), at ``1 - 2 alpha``.
    warnings : tuple of str
    """

    rows: tuple[GateRow, ...]
    verdict: str
    confidence_level: float
    inconclusive: str
    policy_sha256: str
    names: tuple[str, str]
    n_items: int
    tasks: tuple[str, ...]
    n_resamples: int
    seed: int
    metrics: MetricsResult
    warnings: tuple[str, ...] = ()

    @property
    def exit_status(self) -> int:
        """0 when the gate passes, 1 when it fails (an inconclusive verdict as
        :attr:`inconclusive` says)."""
        return GATE_EXIT[self.inconclusive if self.verdict == "inconclusive" else self.verdict]

    def to_dict(self) -> dict:
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "metrics"}
        out["rows"] = [r.to_dict() for r in self.rows]
        out["exit_status"] = self.exit_status
        out["metrics"] = self.metrics.to_dict()
        return json_safe(out)

    def summary(self) -> str:
        """The text report (``print(result)``)."""
        return rendered(self, "text")

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        return (f"GateResult(verdict={self.verdict!r}, rows="
                f"{tuple((r.name, r.verdict) for r in self.rows)})")

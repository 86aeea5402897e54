"""Several metrics of one comparison on the same draws: what each is (:class:`Criterion`:
its formula, its columns, its direction and its margin, or the command line's text
``NAME[:lower][:MARGIN]``), and the one metric that evaluates them all on one design
(:func:`joint_metric`).

The family engine evaluates one metric on each system's columns of the sums.  Several
metrics share it by padding: the "system" ``(A, metric m)`` carries metric m's per-item
statistics in its block of a unit's row, zeros in the other metrics' blocks, and a 1 in
its selector column; the joint formula evaluates every metric on its block and keeps the
one whose selector summed above 0.  The zeros and ones are constant columns, which the
design drops before it draws (:func:`pairboot.engine.split_constant`), so the padding
costs no work in the kernel.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pairboot.errors import InputError
from pairboot.metrics.base import Metric
from pairboot.metrics.names import builtin_stats


@dataclass(frozen=True, slots=True)
class Criterion:
    """One metric of a comparison of several (:func:`pairboot.compare_metrics`).

    Parameters
    ----------
    metric : str or Metric
        A built-in metric's name (``"mean"``, ``"f1"``, ...) or a :class:`Metric`.
    columns : sequence of str, optional
        The per-item columns of its statistics, in the metric's order; default: the
        metric's own statistic names for a metric of several (``f1``: ``tp, fp, fn``),
        and the criterion's name for a metric of one (``"cost": Criterion(...)`` reads
        the column ``cost``).
    lower_is_better : bool
        A cost, a latency, an error or violation rate: B is better when B - A < 0.
    margin : float, optional
        How much worse B may be (non-inferiority), or must be better by (superiority),
        on the metric's scale: a non-negative number whatever the direction (the
        direction says on which side it lies).
    """

    metric: str | Metric = "mean"
    columns: tuple[str, ...] | None = None
    lower_is_better: bool = False
    margin: float | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.metric, (str, Metric)):
            raise InputError("a criterion's `metric` must be a metric's name or a "
                             f"pairboot.Metric, got {type(self.metric).__name__}",
                             param="metrics")
        if self.columns is not None:
            cols = (self.columns,) if isinstance(self.columns, str) else tuple(self.columns)
            if not cols or not all(isinstance(c, str) and c for c in cols):
                raise InputError(f"a criterion's `columns` must be column names, got "
                                 f"{self.columns!r}", param="metrics")
            object.__setattr__(self, "columns", cols)
        if not isinstance(self.lower_is_better, (bool, np.bool_)):
            raise InputError("a criterion's `lower_is_better` must be True or False, got "
                             f"{self.lower_is_better!r}", param="metrics")
        object.__setattr__(self, "lower_is_better", bool(self.lower_is_better))
        if self.margin is not None:
            if isinstance(self.margin, bool) or not isinstance(self.margin, numbers.Real) \
                    or not math.isfinite(float(self.margin)):
                raise InputError(f"a criterion's `margin` must be a finite number, got "
                                 f"{self.margin!r}", param="metrics")
            object.__setattr__(self, "margin", float(self.margin))


def criterion_of(name: str, spec) -> Criterion:
    """``metrics[name]`` as a :class:`Criterion`: a metric's name or a :class:`Metric`
    (higher is better, no margin), or a Criterion; a negative margin is refused here,
    naming the metric and its direction."""
    if not isinstance(name, str) or not name:
        raise InputError(f"`metrics` is keyed by the metrics' names (text), got {name!r}",
                         param="metrics")
    if isinstance(spec, (str, Metric)):
        spec = Criterion(spec)
    elif not isinstance(spec, Criterion):
        raise InputError(f"`metrics[{name!r}]` must be a metric's name, a pairboot.Metric or "
                         f"a pairboot.Criterion, got {type(spec).__name__}", param="metrics")
    if spec.margin is not None and spec.margin < 0:
        side = "higher" if spec.lower_is_better else "lower"
        raise InputError(
            f"`metrics[{name!r}]` margin {spec.margin:g} is negative: a margin is how far "
            f"B may be worse, a size >= 0 on the metric's scale; the direction "
            f"({'lower' if spec.lower_is_better else 'higher'} is better) already puts it "
            f"on the {side} side", param="metrics")
    return spec


def criterion_columns(name: str, crit: Criterion) -> tuple[str, ...]:
    """The per-item columns the criterion ``name`` reads: its own, else its name (a
    metric of one statistic) or its metric's statistics (``f1``: ``tp, fp, fn``)."""
    if crit.columns is not None:
        return crit.columns
    if isinstance(crit.metric, Metric):
        stats = crit.metric.stats
    else:
        try:
            stats = builtin_stats(crit.metric)
        except ValueError as exc:
            raise InputError(f"`metrics[{name!r}]`: {exc}", param="metrics") from None
        if stats is None:
            raise InputError(f"`metrics[{name!r}]`: metric {crit.metric!r} reads as many "
                             "columns as the data have classes; name them with "
                             "Criterion(columns=...)", param="metrics")
    return (name,) if len(stats) == 1 else tuple(stats)


def parse_criterion(text: str) -> tuple[str, Criterion]:
    """The command line's ``NAME[:lower][:MARGIN]`` (``cost:lower``,
    ``latency_ms:lower:50``, ``correct::0.01`` or ``correct:0.01``): the column, and its
    criterion (the mean of that column).

    >>> parse_criterion("latency_ms:lower:50")
    ('latency_ms', Criterion(metric='mean', columns=None, lower_is_better=True, margin=50.0))
    """
    name, *rest = str(text).split(":")
    if not name.strip():
        raise InputError(f"--score {text!r}: no column name before ':'", param="metrics")
    lower, margin = False, None
    for part in rest:
        word = part.strip().lower()
        if word == "":
            continue
        if word in ("lower", "higher") and margin is None and not lower:
            lower = word == "lower"
            continue
        try:
            value = float(word)
        except ValueError:
            raise InputError(f"--score {text!r}: {part!r} is neither 'lower', 'higher' nor "
                             "a margin (a number); write NAME[:lower][:MARGIN]",
                             param="metrics") from None
        if margin is not None:
            raise InputError(f"--score {text!r} gives two margins", param="metrics")
        if not math.isfinite(value) or value < 0:
            raise InputError(f"--score {text!r}: the margin {value:g} must be a finite size "
                             ">= 0 (how far B may be worse); ':lower' already puts it on "
                             "the side of lower values", param="metrics")
        margin = value
    crit = Criterion("mean", lower_is_better=lower, margin=margin)
    return name.strip(), criterion_of(name.strip(), crit)


def joint_metric(names: Sequence[str], metrics: Sequence[Metric], widths: Sequence[int]
                 ) -> Metric:
    """One metric evaluating ``metrics`` (named ``names``), each on its block of
    ``widths[m]`` statistics, selected by the selector columns after the blocks
    (:func:`padded`): where metric m's selector summed to more than 0, the value is
    metric m's (its own ``undefined`` convention applied), else NaN.  Mean-like when
    every metric is (the strata's means then combine as compare()'s do)."""
    offsets = np.concatenate([[0], np.cumsum(widths)]).astype(int)
    first_selector = int(offsets[-1])
    parts = [(m, int(offsets[j]), int(offsets[j + 1]), first_selector + j)
             for j, m in enumerate(metrics)]

    def formula(S):
        S = np.asarray(S, dtype=np.float64)
        out = np.full(S.shape[:-1], np.nan)
        for metric, lo, hi, selector in parts:
            on = S[..., selector] > 0
            if not np.any(on):
                continue
            values = np.asarray(metric.formula(S[..., lo:hi]), dtype=np.float64)
            if not math.isnan(metric.undefined):
                values = np.where(np.isfinite(values), values, metric.undefined)
            out = np.where(on, values, out)
        return out

    stats = tuple(f"{n}.{s}" for n, m, w in zip(names, metrics, widths)
                  for s in (m.stats if len(m.stats) == w else
                            [*m.stats, *(f"_{i}" for i in range(w - len(m.stats)))]))
    return Metric("metrics(" + ", ".join(names) + ")", stats + tuple(
        f"{n}.selected" for n in names), formula, mean_like=all(m.mean_like for m in metrics))


def padded(stats: np.ndarray, which: int, widths: Sequence[int]) -> np.ndarray:
    """Metric ``which``'s per-item statistics ``(n, widths[which])`` in its block of the
    joint row, the other blocks 0, its selector 1 (:func:`joint_metric`)."""
    offsets = np.concatenate([[0], np.cumsum(widths)]).astype(int)
    out = np.zeros((len(stats), int(offsets[-1]) + len(widths)))
    out[:, offsets[which]:offsets[which + 1]] = stats
    out[:, int(offsets[-1]) + which] = 1.0
    return out

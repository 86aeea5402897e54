"""A metric as a formula on summed sufficient statistics: :class:`Metric`, and the
checks its per-item statistics go through."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from pairboot.errors import InputError


@dataclass(frozen=True, slots=True)
class Metric:
    """A metric defined by its per-item statistics and a formula on their sums.

    Parameters
    ----------
    name : str
        Short name, shown in reports.
    stats : tuple of str
        Names of the per-item input columns (``("tp", "fp", "fn")``).  The inputs ``a``
        and ``b`` of :func:`pairboot.compare` have one column per name (a 1-D input is
        one column).
    formula : callable
        ``formula(S) -> values``: ``S`` has shape ``(..., k)`` where ``k`` is the number
        of columns that ``prepare`` returns (``len(stats)`` by default); it returns an
        array of shape ``(...)``.  Return NaN where the metric is undefined (0/0).
    undefined : float
        The value that replaces NaN from ``formula`` (the metric's own convention, e.g.
        0 for F1 with no true positives, as scikit-learn's ``zero_division=0``).  The
        number of replaced values is reported in the warnings.  With the default NaN,
        undefined resamples are left out of the interval and reported.
    prepare : callable, optional
        ``prepare(values) -> stats``: maps the ``(n, len(stats))`` input to the
        ``(n, k)`` per-item sufficient statistics that are summed.  The mean uses it to
        append a count column; the count metrics use it to check that the counts are
        finite and non-negative (raise ``ValueError`` for bad input).
    description : str
        One line for reports.
    partly_undefined : callable, optional
        ``partly_undefined(S) -> bool array (...)``: marks sums where *part* of the metric
        was undefined and replaced inside ``formula`` while the value stays finite
        (macro-F1's class with no tp, fp or fn).  Those sums are counted with the NaN
        ones by :meth:`evaluate`.
    span : float, optional
        How far apart two systems' values can be: 1 for a metric in [0, 1], 100 for
        BLEU.  A ``margin`` larger than it is refused.
    gradient : callable, optional
        ``gradient(S) -> (..., k)``: the formula's gradient at the sums ``S`` (shape
        ``(..., k)``), NaN where the metric is undefined or takes a convention's value
        (F1 with no tp, fp or fn).  The delta method of a confidence sequence
        (:func:`pairboot.sequential`) uses it; without it, central differences.

    Examples
    --------
    A length-weighted mean, the sum of numerators over the sum of denominators:

    >>> import numpy as np
    >>> m = Metric("weighted_mean", ("numerator", "denominator"),
    ...            lambda S: S[..., 0] / S[..., 1])
    >>> values, n_undefined = m.evaluate(np.array([[3.0, 4.0], [1.0, 4.0]]).sum(axis=0))
    >>> values, n_undefined
    (array([0.5]), 0)

    The F-beta score with beta = 2 on pooled counts, 0 when there are no positives:

    >>> def f2(S):
    ...     tp, fp, fn = S[..., 0], S[..., 1], S[..., 2]
    ...     return 5 * tp / (5 * tp + 4 * fn + fp)
    >>> m = Metric("f2", ("tp", "fp", "fn"), f2, undefined=0.0)
    >>> values, n_undefined = m.evaluate(np.array([[3.0, 1.0, 2.0], [0.0, 0.0, 0.0]]))
    >>> values.round(4).tolist(), n_undefined
    ([0.625, 0.0], 1)
    """

    name: str
    stats: tuple[str, ...]
    formula: Callable[[np.ndarray], np.ndarray]
    undefined: float = float("nan")
    prepare: Callable[[np.ndarray], np.ndarray] | None = None
    description: str = ""
    mean_like: bool = field(default=False, repr=False)
    """True for the plain mean, the one metric that ``group_weighting="groups"`` fits."""
    partly_undefined: Callable[[np.ndarray], np.ndarray] | None = field(default=None, repr=False)
    span: float | None = field(default=None, repr=False)
    """How far apart two systems' values can be (1 for a rate in [0, 1], 100 for BLEU;
    None: unbounded or unknown): a larger margin is refused."""
    gradient: Callable[[np.ndarray], np.ndarray] | None = field(default=None, repr=False)
    """The formula's gradient at the sums, analytic (None: central differences)."""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"`name` must be a non-empty string, got {self.name!r}")
        if isinstance(self.stats, str):
            raise TypeError(
                f"`stats` must be a sequence of column names, got the string {self.stats!r}"
            )
        stats = tuple(self.stats)
        if not stats or not all(isinstance(s, str) and s for s in stats):
            raise TypeError(f"`stats` must be non-empty column names, got {self.stats!r}")
        object.__setattr__(self, "stats", stats)
        for attr in ("formula", "prepare", "partly_undefined", "gradient"):
            value = getattr(self, attr)
            if value is not None and not callable(value):
                raise TypeError(f"`{attr}` must be callable, got {type(value).__name__}")
        if self.formula is None:
            raise TypeError("`formula` must be callable, got None")
        object.__setattr__(self, "undefined", float(self.undefined))
        if self.span is not None and not (isinstance(self.span, (int, float))
                                          and self.span > 0):
            raise TypeError(f"`span` must be a positive number or None, got {self.span!r}")

    def per_item(self, values: np.ndarray) -> np.ndarray:
        """The (n, k) per-item sufficient statistics for (n, len(stats)) input values."""
        values = np.asarray(values, dtype=np.float64)
        if self.prepare is None:
            return values
        try:
            stats = np.asarray(self.prepare(values), dtype=np.float64)
        except InputError:
            raise
        except Exception as exc:  # the user's prepare: say whose it is
            raise InputError(
                f"metric {self.name!r} failed to prepare per-item values of shape "
                f"{values.shape}: {type(exc).__name__}: {exc}"
            ) from exc
        if stats.ndim != 2 or stats.shape[0] != values.shape[0] or not stats.shape[1]:
            raise InputError(
                f"metric {self.name!r}: prepare returned shape {stats.shape} for "
                f"{values.shape[0]} items; it must give one row of statistics per item, "
                "shape (n, k)"
            )
        return stats

    def evaluate(self, sums: np.ndarray) -> tuple[np.ndarray, int]:
        """``formula`` on ``sums`` (shape (..., k)), with undefined values replaced.

        Returns the values (always at least 1-D) and how many were undefined (NaN or
        infinite from ``formula``, or flagged by ``partly_undefined``).
        """
        sums = np.asarray(sums, dtype=np.float64)
        try:
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                values = np.asarray(self.formula(sums), dtype=np.float64)
        except Exception as exc:  # the user's formula: say whose it is
            raise InputError(
                f"metric {self.name!r} failed on summed statistics of shape {sums.shape}: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        if values.shape != sums.shape[:-1]:
            raise InputError(
                f"metric {self.name!r} returned shape {values.shape} for summed statistics of "
                f"shape {sums.shape}; its formula must give one value per row of sums, "
                "vectorised over the leading dimensions (S[..., j] for column j)"
            )
        values = np.atleast_1d(values)
        bad = ~np.isfinite(values)
        n_bad = int(bad.sum())
        if n_bad and not np.isnan(self.undefined):
            values = np.where(bad, self.undefined, values)
        if self.partly_undefined is not None:
            partly = np.atleast_1d(np.asarray(self.partly_undefined(sums), dtype=bool))
            n_bad += int((partly & ~bad).sum())
        return values, n_bad


def central_gradient(phi: Callable[[np.ndarray], np.ndarray], at: np.ndarray,
                     columns: range, typical: np.ndarray) -> np.ndarray:
    """Central differences of ``phi`` at the sums ``at`` (shape (..., K)) in ``columns``
    (0 in the others), one column moved at a time.  Relative steps, ``6e-6`` of the sum,
    down to a thousandth of the column's ``typical`` size (1 when that is 0): the
    gradient does not depend on the scale of the statistics.  The delta method of the
    studentized interval and the linearisation of pooled metrics with runs share it."""
    grad = np.zeros_like(at)
    moved = at.copy()  # one column moved at a time, then put back
    for j in columns:
        floor = 1e-3 * typical[j] if typical[j] > 0 else 1.0
        step = 6e-6 * np.maximum(np.abs(at[..., j]), floor)
        moved[..., j] = at[..., j] + step
        up = phi(moved)
        moved[..., j] = at[..., j] - step
        grad[..., j] = (up - phi(moved)) / (2 * step)
        moved[..., j] = at[..., j]
    return grad


def with_count(values: np.ndarray) -> np.ndarray:
    return np.column_stack([values[:, 0], np.ones(len(values))])


def ratio_of_sums(S: np.ndarray) -> np.ndarray:
    """The first summed statistic over the second (a mean: the scores over the count),
    a module-level function so that a metric built on it pickles (a part sent between
    processes, as the Spark recipe of docs/distributed.md does)."""
    return safe_ratio(S[..., 0], S[..., 1])


def safe_ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator as float, NaN where the denominator is 0, without warnings."""
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator != 0, numerator / denominator, np.nan)


class StatisticError(InputError):
    """A per-item statistic that the metric refuses: ``item`` (0-based), ``stat`` (its
    column among the metric's statistics) and ``reason`` let a caller that knows where
    the values came from (the command line: file, line, column) say so."""

    def __init__(self, message: str, item: int, stat: int, reason: str) -> None:
        super().__init__(message)
        self.item, self.stat, self.reason = item, stat, reason


def checked_counts(metric: str, stats: tuple[str, ...]) -> Callable[[np.ndarray], np.ndarray]:
    """A ``prepare`` that returns the counts unchanged after checking them."""

    def prepare(values: np.ndarray) -> np.ndarray:
        values = np.asarray(values, dtype=np.float64)
        ok = np.isfinite(values) & (values >= 0)
        if not ok.all():
            row, col = (int(i) for i in np.argwhere(~ok)[0])
            bad = float(values[row, col])
            raise StatisticError(
                f"metric {metric!r} needs finite, non-negative counts; "
                f"statistic {stats[col]!r} (column {col}) of item {row} is {bad!r}",
                row, col, f"metric {metric!r} needs finite, non-negative counts, got {bad!r}",
            )
        return values

    return prepare

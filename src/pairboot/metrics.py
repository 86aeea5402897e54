"""Metrics as formulas on summed sufficient statistics.

A metric maps the *sums* of per-item sufficient statistics to a score, vectorised over
replicates: ``formula(S)`` takes an array of shape ``(..., k)`` and returns ``(...)``.
Because the engine only ever sums statistic vectors, the same metric works for items,
groups (a group's vector is the sum of its items'), strata and every interval method, and
it is recomputed on every resample, as the spec asks for metrics that are not a mean over
items.

The formula must be homogeneous of degree zero in ``S`` where that makes sense (ratios of
sums are): that is what makes pooled metrics comparable across resamples of equal size.

Built-in metrics (``builtin_metrics()``), with their per-item input columns:

============  ==========================================  ===============================
name          per-item columns                            value on the summed columns
============  ==========================================  ===============================
mean          score                                       mean of the scores
ratio         numerator, denominator                      sum(numerator) / sum(denominator)
accuracy      correct, total                              sum(correct) / sum(total)
f1            tp, fp, fn                                  2 TP / (2 TP + FP + FN)
precision     tp, fp                                      TP / (TP + FP)
recall        tp, fn                                      TP / (TP + FN)
macro_f1      tp_1, fp_1, fn_1, ..., tp_C, fp_C, fn_C     mean over the C classes of F1_c
bleu          sys_len, ref_len, correct_1..N, total_1..N  sacrebleu's corpus BLEU (0-100)
============  ==========================================  ===============================

``macro_f1`` and ``bleu`` take their number of classes / n-gram order from the number of
input columns (``3 C`` and ``2 + 2 N``); :func:`macro_f1_metric` and :func:`bleu_metric`
build them explicitly.

Degenerate sums
---------------
A formula returns NaN where the metric is undefined on the sums (0/0); :meth:`Metric.evaluate`
replaces those values by :attr:`Metric.undefined` and counts them.  The built-in conventions
are scikit-learn's ``zero_division=0`` and sacrebleu's:

- ``f1``: 0 when TP = FP = FN = 0 (no positives at all, predicted or true), which is what
  ``sklearn.metrics.f1_score`` returns by default.  F1 is *defined* (and 0) when TP = 0 but
  FP + FN > 0, even when precision or recall alone is 0/0.
- ``precision``: 0 when TP + FP = 0; ``recall``: 0 when TP + FN = 0.
- ``macro_f1``: a class with TP = FP = FN = 0 in the sums counts as F1 = 0 in the mean
  (scikit-learn's ``f1_score(average="macro", labels=all classes, zero_division=0)``); the
  sums where that happens are counted as undefined although the value stays finite.
- ``bleu``: 0 when some n-gram order has no n-grams at all (``total_n = 0``: sacrebleu's 0);
  a corpus with n-grams but no match at all scores 0 as in sacrebleu, and is not undefined.
- ``mean``, ``ratio``, ``accuracy``: a zero denominator is undefined and left as NaN (those
  replicates are left out of the interval and reported).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from .errors import InputError

__all__ = [
    "Metric",
    "MEAN",
    "RATIO",
    "ACCURACY",
    "F1",
    "PRECISION",
    "RECALL",
    "macro_f1_metric",
    "bleu_metric",
    "builtin_metrics",
    "builtin_stats",
    "resolve_metric",
    "match_statistics",
    "statistics_for",
]


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
        for attr in ("formula", "prepare", "partly_undefined"):
            value = getattr(self, attr)
            if value is not None and not callable(value):
                raise TypeError(f"`{attr}` must be callable, got {type(value).__name__}")
        if self.formula is None:
            raise TypeError("`formula` must be callable, got None")
        object.__setattr__(self, "undefined", float(self.undefined))

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


def _with_count(values: np.ndarray) -> np.ndarray:
    return np.column_stack([values[:, 0], np.ones(len(values))])


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
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


def _checked_counts(metric: str, stats: tuple[str, ...]) -> Callable[[np.ndarray], np.ndarray]:
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


MEAN = Metric(
    "mean",
    ("score",),
    lambda S: _ratio(S[..., 0], S[..., 1]),
    prepare=_with_count,
    description="mean of the per-item scores",
    mean_like=True,
)

RATIO = Metric(
    "ratio",
    ("numerator", "denominator"),
    lambda S: _ratio(S[..., 0], S[..., 1]),
    description="sum of numerators / sum of denominators (e.g. a token-weighted mean)",
)

_accuracy_nonnegative = _checked_counts("accuracy", ("correct", "total"))


def _accuracy_counts(values: np.ndarray) -> np.ndarray:
    """Counts of correct and total, checked: non-negative, and correct <= total."""
    values = _accuracy_nonnegative(values)
    over = values[:, 0] > values[:, 1] * (1.0 + 2.0**-50)  # (a few ulps: fractional counts)
    if over.any():
        row = int(np.argmax(over))
        got = f"correct {float(values[row, 0])!r} and total {float(values[row, 1])!r}"
        raise StatisticError(
            f"metric 'accuracy' needs correct <= total; item {row} has {got}",
            row, 0, f"metric 'accuracy' needs correct <= total, got {got}",
        )
    return values


ACCURACY = Metric(
    "accuracy",
    ("correct", "total"),
    lambda S: _ratio(S[..., 0], S[..., 1]),
    prepare=_accuracy_counts,
    description="pooled accuracy: sum of correct / sum of total",
)


# --- pooled (micro) F1, precision, recall ---------------------------------------------

_PRF_STATS = ("tp", "fp", "fn")


def _f1(S: np.ndarray) -> np.ndarray:
    S = np.asarray(S, dtype=np.float64)
    tp, fp, fn = S[..., 0], S[..., 1], S[..., 2]
    return _ratio(2.0 * tp, 2.0 * tp + fp + fn)


def _share_of_tp(S: np.ndarray) -> np.ndarray:
    """TP / (TP + X) for columns (tp, X): precision with X = fp, recall with X = fn."""
    S = np.asarray(S, dtype=np.float64)
    if S.shape[-1] != 2:  # (tp, fp, fn) sums would give precision for recall, silently
        raise ValueError(f"precision and recall take 2 summed columns, got {S.shape[-1]}")
    return _ratio(S[..., 0], S[..., 0] + S[..., 1])


F1 = Metric(
    "f1",
    _PRF_STATS,
    _f1,
    undefined=0.0,
    prepare=_checked_counts("f1", _PRF_STATS),
    description="pooled (micro) F1 = 2TP / (2TP + FP + FN); 0 when TP = FP = FN = 0",
)

PRECISION = Metric(
    "precision",
    ("tp", "fp"),
    _share_of_tp,
    undefined=0.0,
    prepare=_checked_counts("precision", ("tp", "fp")),
    description="pooled (micro) precision = TP / (TP + FP); 0 when TP + FP = 0",
)

RECALL = Metric(
    "recall",
    ("tp", "fn"),
    _share_of_tp,
    undefined=0.0,
    prepare=_checked_counts("recall", ("tp", "fn")),
    description="pooled (micro) recall = TP / (TP + FN); 0 when TP + FN = 0",
)


# --- macro F1 ---------------------------------------------------------------------------


def _per_class(S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-class (..., C) F1 (0 where undefined) and the (..., C) undefined mask."""
    S = np.asarray(S, dtype=np.float64)
    counts = S.reshape(*S.shape[:-1], S.shape[-1] // 3, 3)
    tp, fp, fn = counts[..., 0], counts[..., 1], counts[..., 2]
    denominator = 2.0 * tp + fp + fn
    absent = denominator == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        f1 = np.where(absent, 0.0, 2.0 * tp / denominator)
    return f1, absent


def _macro_f1(S: np.ndarray) -> np.ndarray:
    return _per_class(S)[0].mean(axis=-1)


def _macro_f1_partly_undefined(S: np.ndarray) -> np.ndarray:
    return _per_class(S)[1].any(axis=-1)


def macro_f1_metric(n_classes: int) -> Metric:
    """Macro-averaged F1 over ``n_classes`` classes from per-item, per-class counts.

    The per-item input columns are ``tp_1, fp_1, fn_1, ..., tp_C, fp_C, fn_C`` (class by
    class).  On the summed counts, each class's F1 is ``2 TP / (2 TP + FP + FN)``, 0 when
    the class has no tp, fp or fn (scikit-learn's ``zero_division=0``), and the metric is
    the unweighted mean over all ``n_classes`` classes: scikit-learn's
    ``f1_score(y_true, y_pred, average="macro", labels=range(C), zero_division=0)``,
    which is its default ``average="macro"`` when every class occurs in ``y_true`` or
    ``y_pred``.  Sums where some class had no tp, fp or fn are counted as undefined.

    Examples
    --------
    >>> import numpy as np
    >>> m = macro_f1_metric(2)
    >>> m.stats
    ('tp_1', 'fp_1', 'fn_1', 'tp_2', 'fp_2', 'fn_2')
    >>> float(m.evaluate(np.array([3.0, 1.0, 0.0, 2.0, 0.0, 1.0]))[0][0])
    0.8285714285714285
    """
    if isinstance(n_classes, bool) or not isinstance(n_classes, (int, np.integer)):
        raise TypeError(f"`n_classes` must be an integer, got {type(n_classes).__name__}")
    if n_classes < 1:
        raise ValueError(f"`n_classes` must be at least 1, got {n_classes}")
    stats = tuple(f"{s}_{c}" for c in range(1, n_classes + 1) for s in _PRF_STATS)
    return Metric(
        "macro_f1",
        stats,
        _macro_f1,
        undefined=0.0,
        prepare=_checked_counts("macro_f1", stats),
        description=(
            f"macro F1: unweighted mean of the per-class pooled F1 over {n_classes} classes; "
            "a class with no tp, fp or fn counts as 0"
        ),
        partly_undefined=_macro_f1_partly_undefined,
    )


# --- corpus BLEU --------------------------------------------------------------------------


def _bleu(S: np.ndarray, max_order: int) -> np.ndarray:
    """sacrebleu's ``BLEU.compute_bleu`` with ``smooth_method='exp'``, vectorised.

    NaN where some order has no n-grams (``total_n = 0``), which sacrebleu scores 0.
    """
    S = np.asarray(S, dtype=np.float64)
    sys_len, ref_len = S[..., 0], S[..., 1]
    correct = S[..., 2 : 2 + max_order]
    total = S[..., 2 + max_order : 2 + 2 * max_order]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # Brevity penalty: exp(1 - ref/sys) for a short system output, 0 for an empty one.
        bp = np.where(
            sys_len < ref_len,
            np.where(sys_len > 0, np.exp(1.0 - ref_len / sys_len), 0.0),
            1.0,
        )
        # Precisions in percent; the k-th order without a match gets 100 / (2^k total_n)
        # (the NIST "exp" smoothing, mteval-v13a.pl).
        no_match = correct == 0
        k = np.cumsum(no_match, axis=-1)
        precisions = np.where(no_match, 100.0 / (np.exp2(k) * total), 100.0 * correct / total)
        log_mean = np.log(precisions).sum(axis=-1) / max_order
        score = bp * np.exp(log_mean)
    any_match = (~no_match).any(axis=-1)
    no_ngrams = (total == 0).any(axis=-1)
    # sacrebleu: 0 when nothing matched at all (its early stop), and 0 ("technically
    # undefined") when an order has no n-grams; we report the latter as undefined.
    return np.where(no_ngrams, np.nan, np.where(any_match, score, 0.0))


def bleu_metric(max_ngram_order: int = 4) -> Metric:
    """Corpus BLEU from sacrebleu's per-sentence sufficient statistics.

    The per-item input columns are sacrebleu's, in its order:
    ``sys_len, ref_len, correct_1, ..., correct_N, total_1, ..., total_N`` with
    ``N = max_ngram_order`` (``2 + 2 N`` columns; 10 for sacrebleu's default N = 4).
    The value on the summed statistics is ``sacrebleu.metrics.BLEU()``'s corpus score
    (0-100) with its default ``smooth_method='exp'``: the brevity penalty
    ``exp(1 - ref_len / sys_len)`` when ``sys_len < ref_len``, n-gram precisions
    ``100 correct_n / total_n`` where the k-th order with no match gets
    ``100 / (2**k total_n)``, and their geometric mean.  It is 0 when nothing matched, and
    0 (counted as undefined) when some order has no n-grams at all.

    Examples
    --------
    >>> import numpy as np
    >>> m = bleu_metric()
    >>> m.stats[:4], len(m.stats)
    (('sys_len', 'ref_len', 'correct_1', 'correct_2'), 10)
    >>> stats = np.array([[6, 6, 5, 3, 1, 0, 6, 5, 4, 3]])  # 'the cat sat on the mat'
    >>> round(float(m.evaluate(stats.sum(axis=0))[0][0]), 4)
    37.9918
    """
    if isinstance(max_ngram_order, bool) or not isinstance(max_ngram_order, (int, np.integer)):
        raise TypeError(
            f"`max_ngram_order` must be an integer, got {type(max_ngram_order).__name__}"
        )
    if max_ngram_order < 1:
        raise ValueError(f"`max_ngram_order` must be at least 1, got {max_ngram_order}")
    n = int(max_ngram_order)
    stats = (
        ("sys_len", "ref_len")
        + tuple(f"correct_{i}" for i in range(1, n + 1))
        + tuple(f"total_{i}" for i in range(1, n + 1))
    )
    return Metric(
        "bleu",
        stats,
        lambda S: _bleu(S, n),
        undefined=0.0,
        prepare=_checked_counts("bleu", stats),
        description=f"corpus BLEU (sacrebleu, {n}-gram, smooth 'exp', 0-100)",
    )


# --- name registry ------------------------------------------------------------------------


def _macro_f1_for(n_columns: int) -> Metric:
    if n_columns < 3 or n_columns % 3:
        raise InputError(
            "metric 'macro_f1' needs 3 per-item statistics per class "
            "(tp_1, fp_1, fn_1, ..., tp_C, fp_C, fn_C), a multiple of 3 columns; "
            f"got {n_columns} column(s)"
        )
    return macro_f1_metric(n_columns // 3)


def _bleu_for(n_columns: int) -> Metric:
    if n_columns < 4 or n_columns % 2:
        raise InputError(
            "metric 'bleu' needs sacrebleu's per-sentence statistics, 2 + 2N columns "
            "(sys_len, ref_len, correct_1..N, total_1..N; 10 for N = 4); "
            f"got {n_columns} column(s)"
        )
    return bleu_metric((n_columns - 2) // 2)


_BUILTIN: dict[str, Metric] = {m.name: m for m in (MEAN, RATIO, ACCURACY, F1, PRECISION, RECALL)}

_FACTORIES: dict[str, Callable[[int], Metric]] = {
    "macro_f1": _macro_f1_for,
    "bleu": _bleu_for,
}
"""Metrics whose number of statistics follows from the input's number of columns."""


def builtin_metrics() -> tuple[str, ...]:
    """Names of the built-in metrics."""
    return (*_BUILTIN, *_FACTORIES)


def _key(name: str) -> str:
    return name.strip().lower().replace("-", "_")


def builtin_stats(name: str) -> tuple[str, ...] | None:
    """Default per-item statistic names of a built-in metric (e.g. the CLI's columns).

    ``"bleu"`` gives sacrebleu's default 4-gram names; ``"macro_f1"`` gives None, since
    its columns depend on the number of classes (name them explicitly).  Raises
    ``ValueError`` for an unknown name.

    >>> builtin_stats("f1")
    ('tp', 'fp', 'fn')
    >>> builtin_stats("bleu")[-2:], builtin_stats("macro_f1")
    (('total_3', 'total_4'), None)
    """
    key = _key(name)
    if key in _BUILTIN:
        return _BUILTIN[key].stats
    if key == "bleu":
        return bleu_metric().stats
    if key in _FACTORIES:
        return None
    raise InputError(f"unknown metric {name!r}; choose one of {', '.join(builtin_metrics())}")


def load_metric(spec: str) -> Metric:
    """A user's :class:`Metric` named as ``"path/to/file.py:NAME"`` or ``"package.module:NAME"``.

    This is how the command line takes a user-defined metric (``--metric
    my_metrics.py:token_f1``).  Raises ``ValueError`` naming what could not be loaded.
    """
    import importlib
    import importlib.util
    import os
    import sys

    where, sep, attr = spec.rpartition(":")
    if not sep or not where or not attr:
        raise InputError(f"a metric must be named FILE.py:NAME or MODULE:NAME, got {spec!r}")
    if (where.endswith(".py") or os.sep in where) and not os.path.isfile(where):
        raise InputError(f"metric file {where} does not exist")
    try:
        if where.endswith(".py") or os.sep in where:
            name = "pairboot_user_metric_" + os.path.splitext(os.path.basename(where))[0]
            module_spec = importlib.util.spec_from_file_location(name, where)
            module = importlib.util.module_from_spec(module_spec)
            module_spec.loader.exec_module(module)
        else:
            # As `python -m` does, the current folder is importable.
            if os.getcwd() not in sys.path and "" not in sys.path:
                sys.path.insert(0, os.getcwd())
            module = importlib.import_module(where)
    except Exception as exc:  # the user's code: any error becomes one message
        raise InputError(f"cannot load metric {spec!r}: {type(exc).__name__}: {exc}") from None
    metric = getattr(module, attr, None)
    if not isinstance(metric, Metric):
        raise InputError(
            f"{where} has no pairboot.Metric named {attr!r}"
            + (f" (found {type(metric).__name__})" if metric is not None else "")
        )
    return metric


def resolve_metric(metric: str | Metric, n_columns: int) -> Metric:
    """The :class:`Metric` for a name or object, checked against the input's columns.

    ``n_columns`` is the number of per-item input columns of ``a`` (1 for a 1-D input).
    ``"macro_f1"`` and ``"bleu"`` are built for that many columns.  Raises ``ValueError``
    naming the expected statistics when the count does not fit.
    """
    if isinstance(metric, Metric):
        m = metric
    elif isinstance(metric, str):
        key = _key(metric)
        if key in _FACTORIES:
            return _FACTORIES[key](n_columns)
        if key not in _BUILTIN:
            raise InputError(
                f"unknown metric {metric!r}; choose one of {', '.join(builtin_metrics())} "
                "or pass a pairboot.Metric"
            )
        m = _BUILTIN[key]
    else:
        raise TypeError(f"`metric` must be a name or a pairboot.Metric, got {type(metric)!r}")
    if len(m.stats) != n_columns:
        raise InputError(
            f"metric {m.name!r} needs {len(m.stats)} per-item statistic(s) "
            f"({', '.join(m.stats)}), got {n_columns} column(s)"
        )
    return m


def statistics_for(metric: str | Metric, n_columns: int) -> tuple[str, ...]:
    """The statistic names ``metric`` reads: a fixed metric's own (whatever ``n_columns``),
    and for ``macro_f1`` and ``bleu``, whose size follows the input, those of
    ``n_columns`` columns (``ValueError`` when no size fits)."""
    if isinstance(metric, Metric):
        return metric.stats
    if _key(str(metric)) in _FACTORIES:
        return resolve_metric(metric, n_columns).stats
    stats = builtin_stats(metric)
    assert stats is not None  # only the factories have no fixed names
    return stats


def _name_parts(name: str) -> list[str]:
    return re.split(r"[_\-. ]+", name.strip().lower())


def match_statistics(
    stats: Sequence[str], names: Sequence[str], *, extra: bool = False
) -> tuple[int, ...] | None:
    """Which of ``names`` (column names) holds each of ``stats``, judged by the names.

    A statistic is held by the one name that is it exactly, in another case, or as a
    ``_``/``-``/``.``-separated part (``base_tp`` holds ``tp``), every name holding one
    (with ``extra``, names that hold none are allowed and left out).  Otherwise, names
    that keep the statistics' order and each carry its kind (``tp_cat, fp_cat, fn_cat``
    for macro-F1's ``tp_1, fp_1, fn_1``) are taken in that order.  None when the names
    do not say: the caller must not guess by position then.

    >>> match_statistics(("tp", "fp", "fn"), ["fn", "fp", "tp"])
    (2, 1, 0)
    >>> match_statistics(("correct", "total"), ["c", "t"]) is None
    True
    """
    if len(stats) > len(names) or (len(stats) < len(names) and not extra):
        return None
    if len(stats) == len(names) == 1:
        return (0,)
    chosen: list[int] = []
    for stat in stats:
        found = [j for j, c in enumerate(names) if c == stat]
        found = found or [j for j, c in enumerate(names) if c.lower() == stat.lower()]
        found = found or [j for j, c in enumerate(names) if stat.lower() in _name_parts(c)]
        if len(found) != 1 or found[0] in chosen:
            break
        chosen.append(found[0])
    else:
        return tuple(chosen)
    kinds = (_name_parts(s)[0] in _name_parts(c) for s, c in zip(stats, names))
    if len(stats) == len(names) and all(kinds):
        return tuple(range(len(stats)))
    return None

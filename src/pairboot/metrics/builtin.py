"""The built-in metrics: mean, ratio, accuracy, pooled F1, precision and recall, macro-F1
and corpus BLEU.  A new built-in goes here, and into the registry in
:mod:`pairboot.metrics.names`."""

from __future__ import annotations

import functools
import math

import numpy as np

from pairboot.metrics.base import (
    Metric,
    StatisticError,
    checked_counts,
    ratio_of_sums,
    safe_ratio,
    with_count,
)

MEAN = Metric(
    "mean",
    ("score",),
    ratio_of_sums,
    prepare=with_count,
    description="mean of the per-item scores",
    mean_like=True,
)

def _ratio_gradient(S: np.ndarray) -> np.ndarray:
    """d(N / D) = (1 / D, -N / D^2); NaN where D = 0."""
    S = np.asarray(S, dtype=np.float64)
    n, d = S[..., 0], S[..., 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        g = np.stack([1.0 / d, -n / (d * d)], axis=-1)
    return np.where((d != 0)[..., None], g, np.nan)


RATIO = Metric(
    "ratio",
    ("numerator", "denominator"),
    ratio_of_sums,
    description="sum of numerators / sum of denominators (e.g. a token-weighted mean)",
    gradient=_ratio_gradient,
)

_accuracy_nonnegative = checked_counts("accuracy", ("correct", "total"))


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
    lambda S: safe_ratio(S[..., 0], S[..., 1]),
    prepare=_accuracy_counts,
    description="pooled accuracy: sum of correct / sum of total",
    span=1.0,
    gradient=_ratio_gradient,
)


# --- pooled (micro) F1, precision, recall ---------------------------------------------

_PRF_STATS = ("tp", "fp", "fn")


def _f1(S: np.ndarray) -> np.ndarray:
    S = np.asarray(S, dtype=np.float64)
    tp, fp, fn = S[..., 0], S[..., 1], S[..., 2]
    return safe_ratio(2.0 * tp, 2.0 * tp + fp + fn)


def _share_of_tp(S: np.ndarray) -> np.ndarray:
    """TP / (TP + X) for columns (tp, X): precision with X = fp, recall with X = fn."""
    S = np.asarray(S, dtype=np.float64)
    if S.shape[-1] != 2:  # (tp, fp, fn) sums would give precision for recall, silently
        raise ValueError(f"precision and recall take 2 summed columns, got {S.shape[-1]}")
    return safe_ratio(S[..., 0], S[..., 0] + S[..., 1])


def _f1_gradient(S: np.ndarray) -> np.ndarray:
    """d(2 TP / D), D = 2 TP + FP + FN: (2 (FP + FN), -2 TP, -2 TP) / D^2; NaN where D = 0
    (F1's convention value)."""
    S = np.asarray(S, dtype=np.float64)
    tp, fp, fn = S[..., 0], S[..., 1], S[..., 2]
    d = 2.0 * tp + fp + fn
    with np.errstate(divide="ignore", invalid="ignore"):
        g = np.stack([2.0 * (fp + fn), -2.0 * tp, -2.0 * tp], axis=-1) / (d * d)[..., None]
    return np.where((d != 0)[..., None], g, np.nan)


def _share_of_tp_gradient(S: np.ndarray) -> np.ndarray:
    """d(TP / (TP + X)) = (X, -TP) / (TP + X)^2; NaN where TP + X = 0."""
    S = np.asarray(S, dtype=np.float64)
    tp, x = S[..., 0], S[..., 1]
    d = tp + x
    with np.errstate(divide="ignore", invalid="ignore"):
        g = np.stack([x, -tp], axis=-1) / (d * d)[..., None]
    return np.where((d != 0)[..., None], g, np.nan)


F1 = Metric(
    "f1",
    _PRF_STATS,
    _f1,
    undefined=0.0,
    prepare=checked_counts("f1", _PRF_STATS),
    description="pooled (micro) F1 = 2TP / (2TP + FP + FN); 0 when TP = FP = FN = 0",
    span=1.0,
    gradient=_f1_gradient,
)

PRECISION = Metric(
    "precision",
    ("tp", "fp"),
    _share_of_tp,
    undefined=0.0,
    prepare=checked_counts("precision", ("tp", "fp")),
    description="pooled (micro) precision = TP / (TP + FP); 0 when TP + FP = 0",
    span=1.0,
    gradient=_share_of_tp_gradient,
)

RECALL = Metric(
    "recall",
    ("tp", "fn"),
    _share_of_tp,
    undefined=0.0,
    prepare=checked_counts("recall", ("tp", "fn")),
    description="pooled (micro) recall = TP / (TP + FN); 0 when TP + FN = 0",
    span=1.0,
    gradient=_share_of_tp_gradient,
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


def _macro_f1_gradient(S: np.ndarray) -> np.ndarray:
    """Each class's F1 gradient (:func:`_f1_gradient`) over the number of classes; 0 for
    a class with no tp, fp or fn (its F1 is the constant 0 of the convention)."""
    S = np.asarray(S, dtype=np.float64)
    counts = S.reshape(*S.shape[:-1], S.shape[-1] // 3, 3)
    g = np.nan_to_num(_f1_gradient(counts), nan=0.0)
    return g.reshape(S.shape) / counts.shape[-2]


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
        prepare=checked_counts("macro_f1", stats),
        description=(
            f"macro F1: unweighted mean of the per-class pooled F1 over {n_classes} classes; "
            "a class with no tp, fp or fn counts as 0"
        ),
        partly_undefined=_macro_f1_partly_undefined,
        span=1.0,
        gradient=_macro_f1_gradient,
    )


# --- corpus BLEU --------------------------------------------------------------------------


def _libm(fn, x: np.ndarray) -> np.ndarray:
    """``fn`` (``math.log`` or ``math.exp``) of every element, through the C library:
    numpy's own exp and log take a vectorised kernel on processors with AVX-512 whose
    last bit differs from the C library's, so the same seed would give other bits on
    another machine.  Infinities, NaN and the logarithm's domain edges go to numpy (they
    are exact there)."""
    x = np.asarray(x, dtype=np.float64)
    out = np.array(np.exp(x) if fn is math.exp else np.log(x))
    usual = np.isfinite(x) & ((x > 0) if fn is math.log else (np.abs(x) < 700.0))
    if usual.any():
        out[usual] = np.fromiter(map(fn, x[usual].tolist()), dtype=np.float64,
                                 count=int(usual.sum()))
    return out


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
            np.where(sys_len > 0, _libm(math.exp, 1.0 - ref_len / sys_len), 0.0),
            1.0,
        )
        # Precisions in percent; the k-th order without a match gets 100 / (2^k total_n)
        # (the NIST "exp" smoothing, mteval-v13a.pl).
        no_match = correct == 0
        k = np.cumsum(no_match, axis=-1)
        precisions = np.where(no_match, 100.0 / (np.exp2(k) * total), 100.0 * correct / total)
        log_mean = _libm(math.log, precisions).sum(axis=-1) / max_order
        score = bp * _libm(math.exp, log_mean)
    any_match = (~no_match).any(axis=-1)
    no_ngrams = (total == 0).any(axis=-1)
    # sacrebleu: 0 when nothing matched at all (its early stop), and 0 ("technically
    # undefined") when an order has no n-grams; we report the latter as undefined.
    return np.where(no_ngrams, np.nan, np.where(any_match, score, 0.0))


def _bleu_gradient(S: np.ndarray, max_order: int) -> np.ndarray:
    """BLEU's gradient, BLEU times that of its logarithm: ``(ref/sys^2, -1/sys)`` for
    the brevity penalty of a short output (0 otherwise), ``1 / (N correct_n)`` and
    ``-1 / (N total_n)`` for the precisions (0 for a smoothed order's correct_n, on
    which it does not depend).  NaN where BLEU is undefined or takes sacrebleu's
    convention value (no n-gram of an order, an empty output, no match at all)."""
    S = np.asarray(S, dtype=np.float64)
    sys_len, ref_len = S[..., 0], S[..., 1]
    correct = S[..., 2 : 2 + max_order]
    total = S[..., 2 + max_order : 2 + 2 * max_order]
    short = sys_len < ref_len
    with np.errstate(divide="ignore", invalid="ignore"):
        d_log = np.concatenate([
            np.where(short, ref_len / (sys_len * sys_len), 0.0)[..., None],
            np.where(short, -1.0 / sys_len, 0.0)[..., None],
            np.where(correct > 0, 1.0 / (max_order * correct), 0.0),
            -1.0 / (max_order * total)], axis=-1)
        g = _bleu(S, max_order)[..., None] * d_log
    regular = (sys_len > 0) & (total > 0).all(axis=-1) & (correct > 0).any(axis=-1)
    return np.where(regular[..., None], g, np.nan)


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
        prepare=checked_counts("bleu", stats),
        description=f"corpus BLEU (sacrebleu, {n}-gram, smooth 'exp', 0-100)",
        span=100.0,
        gradient=functools.partial(_bleu_gradient, max_order=n),
    )

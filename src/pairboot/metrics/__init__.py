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

Metrics of k repeated trials per item, ``pass@k``, ``pass^k`` and ``maj@k`` (named so, or
built by :func:`pass_at`, :func:`pass_hat`, :func:`maj_at`), are not formulas on sums:
with ``runs="samples"`` each item's trials become its unbiased estimate, and the items'
estimates are compared by their mean (:mod:`pairboot.metrics.trials`, docs/trials.md).

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

from typing import TYPE_CHECKING

from pairboot.lazy import lazy_attribute
from pairboot.metrics.base import Metric, StatisticError
from pairboot.metrics.builtin import (
    ACCURACY,
    F1,
    MEAN,
    PRECISION,
    RATIO,
    RECALL,
    bleu_metric,
    macro_f1_metric,
)
from pairboot.metrics.names import (
    builtin_metrics,
    builtin_stats,
    holds,
    load_metric,
    match_statistics,
    metric_file,
    resolve_metric,
    statistics_for,
)
from pairboot.metrics.trials import Trials, maj_at, pass_at, pass_hat, trials_metric

if TYPE_CHECKING:  # (at run time imported on first use: see __getattr__)
    from pairboot.metrics.joint import Criterion, criterion_columns, parse_criterion

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
    "load_metric",
    "metric_file",
    "StatisticError",
    "match_statistics",
    "holds",
    "statistics_for",
    "Trials",
    "pass_at",
    "pass_hat",
    "maj_at",
    "trials_metric",
    "Criterion",
    "criterion_columns",
    "parse_criterion",
]


def __getattr__(name: str):
    """Several metrics' criteria (:mod:`pairboot.metrics.joint`), imported on first use
    (PEP 562): a comparison of one metric does not load them."""
    return lazy_attribute(__name__, globals(), name,
                          dict.fromkeys(("Criterion", "criterion_columns", "parse_criterion"),
                                        "joint"), submodules=())

"""Metrics on summed sufficient statistics (issue 4).

Three kinds of checks:

- each built-in's value on the full data equals an independent computation
  (scikit-learn's f1/precision/recall scores, sacrebleu's corpus BLEU on real sentences),
  to 1e-12;
- degenerate sums follow the stated policy: replaced by the metric's convention and
  counted, never NaN, never a numpy warning;
- ``compare()``'s bootstrap distribution and percentile interval for each metric agree with
  a slow reference that resamples item indices with numpy and recomputes the metric from
  the per-item *labels* (not from the summed statistics), within Monte Carlo error.
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest

import pairboot
from pairboot.metrics import (
    ACCURACY,
    F1,
    MEAN,
    PRECISION,
    RATIO,
    RECALL,
    Metric,
    bleu_metric,
    builtin_metrics,
    builtin_stats,
    macro_f1_metric,
    resolve_metric,
)

# --- data -----------------------------------------------------------------------------


def _labels(n, rng, p_true=0.3, flip=0.2):
    y = rng.random(n) < p_true
    pred = np.where(rng.random(n) < flip, ~y, y)
    return y, pred


def _prf_stats(y_true, y_pred):
    """Per-item tp, fp, fn from (n,) binary or (n, L) multilabel indicator arrays."""
    y_true = np.asarray(y_true, bool)
    y_pred = np.asarray(y_pred, bool)
    if y_true.ndim == 1:
        y_true, y_pred = y_true[:, None], y_pred[:, None]
    tp = (y_true & y_pred).sum(axis=1)
    fp = (~y_true & y_pred).sum(axis=1)
    fn = (y_true & ~y_pred).sum(axis=1)
    return np.column_stack([tp, fp, fn]).astype(float)


def _class_stats(y_true, y_pred, n_classes):
    """Per-item tp_1, fp_1, fn_1, ..., tp_C, fp_C, fn_C from multiclass labels."""
    n = len(y_true)
    out = np.zeros((n, n_classes, 3))
    rows = np.arange(n)
    hit = y_true == y_pred
    out[rows[hit], y_true[hit], 0] = 1
    out[rows[~hit], y_pred[~hit], 1] = 1
    out[rows[~hit], y_true[~hit], 2] = 1
    return out.reshape(n, 3 * n_classes)


HYPOTHESES = [
    "The cat sat on the mat.",
    "A quick brown fox jumps over the lazy dog.",
    "I would like a cup of tea, please.",
    "The meeting was postponed until next week because of the storm.",
    "He did not know what to say.",
    "Prices rose sharply in the second quarter.",
    "She has lived in Paris for ten years.",
    "The results are shown in table two.",
    "Please close the door when you leave.",
    "The children played in the garden all afternoon.",
    "We need more time to finish the project.",
    "It is raining.",
    "The government announced new measures to support small businesses.",
    "My brother works at a hospital in the city centre.",
]
REFERENCES = [
    "The cat is sitting on the mat.",
    "The quick brown fox jumped over the lazy dog.",
    "I would like a cup of tea, please.",
    "Because of the storm, the meeting was postponed to next week.",
    "He didn't know what to say.",
    "Prices increased sharply in the second quarter.",
    "She has been living in Paris for ten years.",
    "Table 2 shows the results.",
    "Please shut the door when you go out.",
    "The kids were playing in the garden the whole afternoon.",
    "We need more time to complete the project.",
    "It's raining.",
    "The government unveiled new measures to help small businesses.",
    "My brother is working in a hospital in the city center.",
]
OTHER = [
    "A cat sat on a mat.",
    "The fast brown fox jumps over a lazy dog.",
    "I want tea.",
    "The meeting was moved to next week due to the storm.",
    "He did not know what he should say.",
    "Prices went up sharply in the second quarter.",
    "She lives in Paris since ten years.",
    "The results are in table 2.",
    "Close the door when you leave, please.",
    "Children played in the garden the whole afternoon.",
    "We need more time for finishing the project.",
    "It rains.",
    "Government announced new measures to support the small businesses.",
    "My brother works in a hospital in the city centre.",
]


def _sentence_stats(hypotheses, references):
    sacrebleu = pytest.importorskip("sacrebleu")
    bleu = sacrebleu.metrics.BLEU(effective_order=True)  # counts do not depend on it
    rows = []
    for hyp, ref in zip(hypotheses, references):
        s = bleu.sentence_score(hyp, [ref])
        rows.append([s.sys_len, s.ref_len, *s.counts, *s.totals])
    return np.array(rows, dtype=float)


def _value(metric, per_item):
    values, n_undefined = metric.evaluate(metric.per_item(per_item).sum(axis=0))
    assert values.shape == (1,)
    return float(values[0]), n_undefined


# --- values on the full data against scikit-learn and sacrebleu ---------------------------


def _prf(metric, stats: np.ndarray) -> np.ndarray:
    """The columns of ``metric`` (f1: tp, fp, fn; precision: tp, fp; recall: tp, fn)
    among per-item ``tp, fp, fn`` counts."""
    return stats[..., [("tp", "fp", "fn").index(s) for s in metric.stats]]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_binary_f1_precision_recall_match_sklearn(seed):
    skm = pytest.importorskip("sklearn.metrics")
    y, pred = _labels(200, np.random.default_rng(seed))
    stats = _prf_stats(y, pred)
    for metric, reference in [
        (F1, skm.f1_score),
        (PRECISION, skm.precision_score),
        (RECALL, skm.recall_score),
    ]:
        value, n_undefined = _value(metric, _prf(metric, stats))
        assert value == pytest.approx(reference(y, pred), rel=1e-12, abs=1e-15)
        assert n_undefined == 0


def test_micro_f1_over_multilabel_items_matches_sklearn():
    skm = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(3)
    Y = rng.random((150, 5)) < [0.5, 0.2, 0.1, 0.05, 0.3]
    P = np.where(rng.random(Y.shape) < 0.15, ~Y, Y)
    stats = _prf_stats(Y, P)  # one row per item: counts summed over its labels
    for metric, reference in [
        (F1, skm.f1_score),
        (PRECISION, skm.precision_score),
        (RECALL, skm.recall_score),
    ]:
        expected = reference(Y, P, average="micro")
        assert _value(metric, _prf(metric, stats))[0] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    ("y_true", "y_pred"),
    [
        ([0, 0, 0], [0, 0, 0]),  # no positives at all: tp = fp = fn = 0
        ([1, 0, 0], [0, 0, 0]),  # tp = fp = 0 < fn: precision 0/0, F1 = 0 defined
        ([0, 0, 0], [1, 0, 0]),  # tp = fn = 0 < fp: recall 0/0, F1 = 0 defined
        ([1, 1, 0], [1, 0, 1]),
    ],
)
def test_zero_division_follows_sklearn(y_true, y_pred):
    skm = pytest.importorskip("sklearn.metrics")
    stats = _prf_stats(y_true, y_pred)
    tp, fp, fn = stats.sum(axis=0)
    for metric, reference, undefined in [
        (F1, skm.f1_score, 2 * tp + fp + fn == 0),
        (PRECISION, skm.precision_score, tp + fp == 0),
        (RECALL, skm.recall_score, tp + fn == 0),
    ]:
        value, n_undefined = _value(metric, _prf(metric, stats))
        assert value == reference(y_true, y_pred, zero_division=0)
        assert n_undefined == int(undefined)


def test_f1_with_no_positives_is_sklearn_default_zero():
    skm = pytest.importorskip("sklearn.metrics")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sklearn's UndefinedMetricWarning
        assert skm.f1_score([0, 0], [0, 0]) == 0.0  # its default zero_division="warn"
    values, n_undefined = F1.evaluate(np.zeros(3))
    assert values.tolist() == [0.0]
    assert n_undefined == 1


@pytest.mark.parametrize("seed", [0, 1])
def test_macro_f1_matches_sklearn(seed):
    skm = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(seed)
    n_classes = 4
    y = rng.choice(n_classes, size=300, p=[0.5, 0.3, 0.15, 0.05])
    pred = np.where(rng.random(300) < 0.3, rng.integers(0, n_classes, 300), y)
    stats = _class_stats(y, pred, n_classes)
    metric = resolve_metric("macro_f1", stats.shape[1])
    value, n_undefined = _value(metric, stats)
    assert value == pytest.approx(skm.f1_score(y, pred, average="macro"), rel=1e-12)
    assert n_undefined == 0


def test_macro_f1_absent_class_counts_as_zero_and_undefined():
    skm = pytest.importorskip("sklearn.metrics")
    y = np.array([0, 0, 1, 1, 1, 0])
    pred = np.array([0, 1, 1, 1, 0, 0])
    stats = _class_stats(y, pred, 3)  # class 3 never occurs
    value, n_undefined = _value(macro_f1_metric(3), stats)
    expected = skm.f1_score(y, pred, average="macro", labels=[0, 1, 2], zero_division=0)
    assert value == pytest.approx(expected, rel=1e-12)
    assert n_undefined == 1
    # sklearn's default drops the absent class; with it present, both agree (above)
    assert value == pytest.approx(skm.f1_score(y, pred, average="macro") * 2 / 3)


def test_bleu_matches_sacrebleu_corpus_bleu_on_real_sentences():
    sacrebleu = pytest.importorskip("sacrebleu")
    for hypotheses in (HYPOTHESES, OTHER):
        stats = _sentence_stats(hypotheses, REFERENCES)
        assert stats.shape == (len(REFERENCES), 10)
        metric = resolve_metric("bleu", stats.shape[1])
        value, n_undefined = _value(metric, stats)
        expected = sacrebleu.corpus_bleu(hypotheses, [REFERENCES]).score
        assert value == pytest.approx(expected, rel=1e-12)
        assert n_undefined == 0


def test_bleu_stats_order_is_sacrebleus_own():
    sacrebleu = pytest.importorskip("sacrebleu")
    bleu = sacrebleu.metrics.BLEU()
    own = np.array(bleu._extract_corpus_statistics(HYPOTHESES, [REFERENCES]), dtype=float)
    np.testing.assert_array_equal(own, _sentence_stats(HYPOTHESES, REFERENCES))


@pytest.mark.parametrize(
    ("hypotheses", "references", "undefined"),
    [
        (["a b c", "d e"], ["a b c", "d e"], 1),  # no 4-grams at all: sacrebleu's 0
        (["x y z w v"], ["a b c d e"], 0),  # 4-grams but no match: 0, defined
        (["the cat sat on the mat today"], ["the cat sat on the mat"], 0),  # long
        (["on the mat"], ["the cat sat on the mat"], 1),  # short, no 4-gram
        (["the cat sat on"], ["the cat sat on the mat"], 0),  # brevity penalty
        (["the mat sat on the cat"], ["the cat sat on the mat"], 0),  # exp smoothing
        ([""], ["the cat sat on the mat"], 1),  # empty output
    ],
)
def test_bleu_zero_count_cases_match_sacrebleu(hypotheses, references, undefined):
    sacrebleu = pytest.importorskip("sacrebleu")
    stats = _sentence_stats(hypotheses, references)
    value, n_undefined = _value(bleu_metric(), stats)
    assert value == pytest.approx(sacrebleu.corpus_bleu(hypotheses, [references]).score)
    assert n_undefined == undefined


def test_bleu_matches_compute_bleu_on_random_statistics():
    sacrebleu = pytest.importorskip("sacrebleu")
    rng = np.random.default_rng(7)
    for order in (1, 2, 4):
        metric = bleu_metric(order)
        rows = []
        for _ in range(400):
            total = np.sort(rng.integers(0, 8, order))[::-1]
            total[rng.integers(0, order + 1) :] *= rng.random() < 0.7
            correct = np.where(rng.random(order) < 0.6, rng.integers(0, total + 1), 0)
            sys_len = total[0] + rng.integers(0, 2)
            rows.append([sys_len, rng.integers(0, 12), *correct, *total])
        S = np.array(rows, dtype=np.int64)
        values, _ = metric.evaluate(S)  # vectorised over the 400 rows
        expected = [
            sacrebleu.metrics.BLEU.compute_bleu(
                r[2 : 2 + order].tolist(),
                r[2 + order :].tolist(),
                int(r[0]),
                int(r[1]),
                smooth_method="exp",
                max_ngram_order=order,
            ).score
            for r in S
        ]
        np.testing.assert_allclose(values, expected, rtol=1e-12, atol=0)


def test_bleu_other_order_matches_sacrebleu():
    sacrebleu = pytest.importorskip("sacrebleu")
    bleu2 = sacrebleu.metrics.BLEU(max_ngram_order=2)
    stats = np.array(bleu2._extract_corpus_statistics(OTHER, [REFERENCES]), dtype=float)
    metric = resolve_metric("bleu", stats.shape[1])
    assert metric.stats == ("sys_len", "ref_len", "correct_1", "correct_2", "total_1", "total_2")
    expected = bleu2.corpus_score(OTHER, [REFERENCES]).score
    assert _value(metric, stats)[0] == pytest.approx(expected, rel=1e-12)


# --- degenerate sums, vectorisation, no warnings ------------------------------------------


def _all_metrics():
    return [MEAN, RATIO, ACCURACY, F1, PRECISION, RECALL, macro_f1_metric(3), bleu_metric()]


@pytest.mark.parametrize("metric", _all_metrics(), ids=lambda m: m.name)
def test_formula_is_vectorised_over_leading_dimensions(metric):
    rng = np.random.default_rng(11)
    k = metric.per_item(np.ones((1, len(metric.stats)))).shape[1]
    S = rng.integers(0, 4, size=(7, 5, k)).astype(float)
    S[0, 0] = 0.0  # one degenerate row
    values, n_undefined = metric.evaluate(S)
    assert values.shape == (7, 5)
    rowwise = [metric.evaluate(row) for row in S.reshape(-1, k)]
    np.testing.assert_array_equal(values.ravel(), [v[0] for v, _ in rowwise])
    assert n_undefined == sum(n for _, n in rowwise)
    assert n_undefined >= 1


@pytest.mark.parametrize("metric", _all_metrics(), ids=lambda m: m.name)
def test_degenerate_sums_are_counted_and_never_warn(metric):
    k = metric.per_item(np.ones((1, len(metric.stats)))).shape[1]
    S = np.zeros((3, k))
    S[1] = 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        raw = metric.formula(S)  # called directly: NaN, not a numpy warning
        values, n_undefined = metric.evaluate(S)
    assert np.isnan(raw[0]) or metric.partly_undefined is not None
    assert np.isfinite(raw[1])
    assert n_undefined == 2
    if np.isnan(metric.undefined):
        assert np.isnan(values[0])  # left out of the interval and reported
    else:
        assert values[0] == metric.undefined
        assert np.isfinite(values).all()


def test_macro_f1_counts_resamples_with_an_absent_class():
    rng = np.random.default_rng(5)
    y = np.array([0] * 30 + [1] * 30 + [2])  # class 3 has a single item
    stats = _class_stats(y, y.copy(), 3)
    idx = rng.integers(0, len(y), size=(500, len(y)))
    S = stats[idx].sum(axis=1)
    values, n_undefined = macro_f1_metric(3).evaluate(S)
    absent = S[:, 6] == 0  # tp_3 (the only nonzero count of class 3)
    assert n_undefined == absent.sum() > 0
    np.testing.assert_allclose(values, np.where(absent, 2 / 3, 1.0))


def test_undefined_counts_include_nan_input_once():
    values, n_undefined = macro_f1_metric(1).evaluate(np.array([np.nan, 0.0, 0.0]))
    assert n_undefined == 1
    assert values[0] == 0.0


# --- names, columns and user-defined metrics -----------------------------------------------


def test_builtin_names_resolve():
    columns = {"mean": 1, "ratio": 2, "accuracy": 2, "f1": 3, "precision": 2, "recall": 2,
               "macro_f1": 9, "bleu": 10}  # fmt: skip
    assert set(builtin_metrics()) == set(columns)
    for name, k in columns.items():
        m = resolve_metric(name, k)
        assert m.name == name
        assert len(m.stats) == k
    assert resolve_metric(" Macro-F1 ", 6).stats[3:] == ("tp_2", "fp_2", "fn_2")
    assert resolve_metric("BLEU", 10).stats[-1] == "total_4"


def test_builtin_stats_names_the_default_columns():
    for name in builtin_metrics():
        stats = builtin_stats(name)
        if name == "macro_f1":
            assert stats is None
        else:
            assert resolve_metric(name, len(stats)).stats == stats
    assert builtin_stats("F1") == ("tp", "fp", "fn")
    with pytest.raises(ValueError, match="unknown metric 'auc'"):
        builtin_stats("auc")


@pytest.mark.parametrize(
    ("name", "n_columns", "match"),
    [
        ("f1", 2, r"needs 3 per-item statistic\(s\) \(tp, fp, fn\), got 2"),
        ("macro_f1", 7, "multiple of 3 columns; got 7"),
        ("macro_f1", 0, "multiple of 3"),
        ("bleu", 1, r"2 \+ 2N columns .* got 1 column"),
        ("bleu", 9, "got 9 column"),
        ("bleu", 2, "got 2 column"),
        ("micro_f1", 3, "unknown metric 'micro_f1'; choose one of .*macro_f1, bleu"),
    ],
)
def test_column_count_errors(name, n_columns, match):
    with pytest.raises(ValueError, match=match):
        resolve_metric(name, n_columns)


def test_factories_validate_their_argument():
    with pytest.raises(ValueError, match="at least 1"):
        macro_f1_metric(0)
    with pytest.raises(TypeError, match="integer"):
        bleu_metric(4.0)
    with pytest.raises(TypeError):
        resolve_metric(3, 1)


@pytest.mark.parametrize("metric", [F1, macro_f1_metric(1), bleu_metric(1)], ids=lambda m: m.name)
def test_count_metrics_reject_negative_or_nonfinite_counts(metric):
    k = len(metric.stats)
    good = np.ones((4, k))
    np.testing.assert_array_equal(metric.per_item(good), good)
    bad = good.copy()
    bad[2, k - 1] = -1
    with pytest.raises(ValueError, match=rf"'{metric.stats[-1]}' .* item 2 is -1"):
        metric.per_item(bad)
    bad[2, k - 1] = np.inf
    with pytest.raises(ValueError, match="finite, non-negative"):
        metric.per_item(bad)


def test_user_defined_metric():
    def f_beta2(S):
        tp, fp, fn = S[..., 0], S[..., 1], S[..., 2]
        return 5 * tp / (5 * tp + 4 * fn + fp)

    m = Metric("f2", ["tp", "fp", "fn"], f_beta2, undefined=0)
    assert m.stats == ("tp", "fp", "fn")
    assert m.undefined == 0.0 and isinstance(m.undefined, float)
    assert resolve_metric(m, 3) is m
    with pytest.raises(ValueError, match=r"'f2' needs 3 .* got 2 column"):
        resolve_metric(m, 2)
    values, n = m.evaluate(np.array([[2.0, 1.0, 1.0], [0.0, 0.0, 0.0]]))
    np.testing.assert_allclose(values, [10 / 15, 0.0])
    assert n == 1


def test_user_defined_metric_with_prepare():
    # a per-item score weighted by a per-item length: stats (score, length)
    m = Metric(
        "weighted",
        ("score", "length"),
        lambda S: S[..., 0] / S[..., 1],
        prepare=lambda v: np.column_stack([v[:, 0] * v[:, 1], v[:, 1]]),
    )
    x = np.array([[1.0, 3.0], [0.0, 1.0]])
    assert _value(m, x) == (0.75, 0)


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"name": "", "stats": ("x",)}, TypeError),
        ({"name": "m", "stats": "x"}, TypeError),
        ({"name": "m", "stats": ()}, TypeError),
        ({"name": "m", "stats": ("x",), "formula": 3}, TypeError),
        ({"name": "m", "stats": ("x",), "prepare": "no"}, TypeError),
    ],
)
def test_metric_rejects_bad_definitions(kwargs, error):
    kwargs.setdefault("formula", lambda S: S[..., 0])
    with pytest.raises(error):
        Metric(**kwargs)


# --- compare() against a slow reference that resamples item indices ----------------------

R_BOOT = 2000  # pairboot's resamples
R_REF = 4000  # the reference's resamples


def _ref_f1(y, p):
    """Textbook F1 from label vectors: harmonic mean of precision and recall (0 if 0/0)."""
    tp, fp, fn = np.sum(y & p), np.sum(~y & p), np.sum(y & ~p)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def _ref_precision(y, p):
    return np.sum(y & p) / np.sum(p) if np.sum(p) else 0.0


def _ref_recall(y, p):
    return np.sum(y & p) / np.sum(y) if np.sum(y) else 0.0


def _ref_macro_f1(y, p, n_classes):
    return np.mean([_ref_f1(y == c, p == c) for c in range(n_classes)])


def _reference(n, metric, seed, groups=None):
    """Resample item indices (or whole groups) with numpy; recompute the metric each time.

    ``metric(idx)`` -> (value A, value B) on the items ``idx``.  Returns the (R_REF, 3)
    replicates of (B - A, A, B).
    """
    rng = np.random.default_rng(seed)
    if groups is not None:
        labels = np.unique(groups)
        members = [np.flatnonzero(groups == g) for g in labels]
    out = np.empty((R_REF, 3))
    for r in range(R_REF):
        if groups is None:
            idx = rng.integers(0, n, size=n)
        else:
            idx = np.concatenate([members[g] for g in rng.integers(0, len(labels), len(labels))])
        va, vb = metric(idx)
        out[r] = vb - va, va, vb
    return out


def _quantile_se(ref, q, p):
    """Monte Carlo s.e. of the difference of two independent p-quantile estimates at q."""
    sd = ref.std(ddof=1)
    h = 0.25 * sd
    density = np.mean(np.abs(ref - q) <= h) / (2 * h)
    return np.sqrt(p * (1 - p) * (1 / R_BOOT + 1 / R_REF)) / density


def _assert_matches_reference(result, ref, z=5.0):
    """Bootstrap distribution and percentile intervals agree within z Monte Carlo s.e."""
    alpha = 1 - result.confidence_level
    boot = result.bootstrap_distribution
    assert len(boot) == R_BOOT and np.isfinite(boot).all()
    diff = ref[:, 0]
    sd = diff.std(ddof=1)
    kurtosis = np.mean((diff - diff.mean()) ** 4) / np.var(diff) ** 2
    se_mean = sd * np.sqrt(1 / R_BOOT + 1 / R_REF)
    se_sd = sd * np.sqrt((kurtosis - 1) / 4 * (1 / R_BOOT + 1 / R_REF))
    assert abs(boot.mean() - diff.mean()) < z * se_mean
    assert abs(boot.std(ddof=1) - sd) < z * se_sd
    assert abs(result.standard_error - sd) < z * se_sd
    scipy_stats = pytest.importorskip("scipy.stats")
    assert scipy_stats.ks_2samp(boot, diff).pvalue > 1e-3
    for ci, column in [
        (result.confidence_interval, diff),
        (result.score_a.confidence_interval, ref[:, 1]),
        (result.score_b.confidence_interval, ref[:, 2]),
    ]:
        for end, p in zip(ci, (alpha / 2, 1 - alpha / 2)):
            q = np.quantile(column, p)
            assert abs(end - q) < z * _quantile_se(column, q, p), (end, q)


def _binary_data(seed, n=200):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.3
    pa = np.where(rng.random(n) < 0.25, ~y, y)
    # B fixes a third of A's errors and makes a few new ones: strongly paired
    pb = np.where(rng.random(n) < 0.35, y, pa)
    pb = np.where(rng.random(n) < 0.04, ~pb, pb)
    return y, pa, pb


@pytest.mark.parametrize(
    ("name", "reference"),
    [("f1", _ref_f1), ("precision", _ref_precision), ("recall", _ref_recall)],
)
def test_compare_prf_matches_reference(name, reference):
    import pairboot

    y, pa, pb = _binary_data(1)
    metric = resolve_metric(name, len(builtin_stats(name)))
    res = pairboot.compare(
        _prf(metric, _prf_stats(y, pa)), _prf(metric, _prf_stats(y, pb)), metric=name,
        n_resamples=R_BOOT, seed=0,
    )
    assert res.estimate == pytest.approx(reference(y, pb) - reference(y, pa), abs=1e-12)
    assert res.score_a.estimate == pytest.approx(reference(y, pa), abs=1e-12)
    ref = _reference(len(y), lambda i: (reference(y[i], pa[i]), reference(y[i], pb[i])), 1)
    _assert_matches_reference(res, ref)


@pytest.mark.slow
def test_compare_f1_with_groups_matches_cluster_reference():
    import pairboot

    rng = np.random.default_rng(2)
    groups = np.repeat(np.arange(60), rng.integers(1, 6, 60))
    n = len(groups)
    effect = rng.normal(0, 0.15, 60)[groups]  # items of a group are alike
    y = rng.random(n) < 0.35
    pa = np.where(rng.random(n) < 0.25 + effect, ~y, y)
    pb = np.where(rng.random(n) < 0.2 + effect, ~y, y)
    res = pairboot.compare(
        _prf_stats(y, pa), _prf_stats(y, pb), metric="f1", groups=groups,
        n_resamples=R_BOOT, seed=0,
    )  # fmt: skip
    assert res.n_groups == 60
    ref = _reference(n, lambda i: (_ref_f1(y[i], pa[i]), _ref_f1(y[i], pb[i])), 2, groups)
    _assert_matches_reference(res, ref)


@pytest.mark.slow
def test_compare_macro_f1_matches_reference():
    import pairboot

    rng = np.random.default_rng(3)
    n, n_classes = 240, 4
    y = rng.choice(n_classes, size=n, p=[0.45, 0.3, 0.15, 0.1])
    pa = np.where(rng.random(n) < 0.35, rng.integers(0, n_classes, n), y)
    pb = np.where(rng.random(n) < 0.3, y, pa)  # B fixes some of A's errors, adds a few
    pb = np.where(rng.random(n) < 0.04, rng.integers(0, n_classes, n), pb)
    res = pairboot.compare(
        _class_stats(y, pa, n_classes), _class_stats(y, pb, n_classes),
        metric="macro_f1", n_resamples=R_BOOT, seed=0,
    )  # fmt: skip
    assert res.metric == "macro_f1"
    assert res.score_b.estimate == pytest.approx(_ref_macro_f1(y, pb, n_classes), abs=1e-12)
    ref = _reference(
        n,
        lambda i: (_ref_macro_f1(y[i], pa[i], n_classes), _ref_macro_f1(y[i], pb[i], n_classes)),
        3,
    )
    _assert_matches_reference(res, ref)


def _synthetic_corpus(n, seed):
    """Reference sentences and two noisy systems, as sacrebleu's per-sentence statistics."""
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(25)]
    refs, hyps_a, hyps_b = [], [], []
    for _ in range(n):
        ref = [str(w) for w in rng.choice(vocab, size=rng.integers(3, 16))]
        # A: words replaced or dropped; B: A with some of the replaced words restored
        a = [w if rng.random() > 0.35 else str(rng.choice(vocab)) for w in ref]
        b = [r if rng.random() < 0.4 else w for w, r in zip(a, ref)]
        keep = rng.random(len(ref)) > 0.08
        refs.append(" ".join(ref))
        hyps_a.append(" ".join(w for w, k in zip(a, keep) if k))
        hyps_b.append(" ".join(w for w, k in zip(b, keep) if k))
    return refs, hyps_a, hyps_b


@pytest.mark.slow
def test_compare_bleu_matches_reference():
    sacrebleu = pytest.importorskip("sacrebleu")
    import pairboot

    refs, hyps_a, hyps_b = _synthetic_corpus(150, 4)
    xa, xb = _sentence_stats(hyps_a, refs), _sentence_stats(hyps_b, refs)
    res = pairboot.compare(xa, xb, metric="bleu", n_resamples=R_BOOT, seed=0)
    expected_a = sacrebleu.corpus_bleu(hyps_a, [refs]).score
    expected_b = sacrebleu.corpus_bleu(hyps_b, [refs]).score
    assert res.score_a.estimate == pytest.approx(expected_a, rel=1e-12)
    assert res.estimate == pytest.approx(expected_b - expected_a, rel=1e-10)

    def corpus_bleu(stats):
        total = stats.sum(axis=0).astype(int).tolist()
        return sacrebleu.metrics.BLEU.compute_bleu(
            total[2:6], total[6:10], total[0], total[1], smooth_method="exp"
        ).score

    ref = _reference(len(refs), lambda i: (corpus_bleu(xa[i]), corpus_bleu(xb[i])), 4)
    _assert_matches_reference(res, ref)


@pytest.mark.slow
def test_compare_accuracy_and_ratio_match_reference():
    import pairboot

    rng = np.random.default_rng(5)
    n = 200
    length = rng.integers(1, 30, n).astype(float)
    sa, sb = rng.random(n), np.clip(rng.random(n) + 0.05, 0, 1)
    res = pairboot.compare(
        np.column_stack([sa * length, length]), np.column_stack([sb * length, length]),
        metric="ratio", n_resamples=R_BOOT, seed=0,
    )  # fmt: skip
    ref = _reference(n, lambda i: (np.average(sa[i], weights=length[i]),
                                   np.average(sb[i], weights=length[i])), 5)  # fmt: skip
    _assert_matches_reference(res, ref)

    y, pa, pb = _binary_data(6)
    ca, cb = (pa == y).astype(float), (pb == y).astype(float)
    res = pairboot.compare(
        np.column_stack([ca, np.ones(n)]), np.column_stack([cb, np.ones(n)]),
        metric="accuracy", n_resamples=R_BOOT, seed=0,
    )  # fmt: skip
    _assert_matches_reference(res, _reference(n, lambda i: (ca[i].mean(), cb[i].mean()), 6))


def test_compare_f1_bca_matches_scipy():
    scipy_stats = pytest.importorskip("scipy.stats")
    import pairboot

    y, pa, pb = _binary_data(7)

    def f1_diff(y, pa, pb, axis=-1):  # vectorised textbook F1 on resampled labels
        def f1(p):
            tp = np.sum(y * p, axis=axis)
            fp, fn = np.sum((1 - y) * p, axis=axis), np.sum(y * (1 - p), axis=axis)
            return 2 * tp / np.maximum(2 * tp + fp + fn, 1)

        return f1(pb) - f1(pa)

    data = tuple(v.astype(float) for v in (y, pa, pb))
    expected = scipy_stats.bootstrap(
        data, f1_diff, paired=True, vectorized=True, method="BCa", n_resamples=R_REF, rng=0
    )
    res = pairboot.compare(
        _prf_stats(y, pa), _prf_stats(y, pb), metric="f1", method="bca",
        n_resamples=R_BOOT, seed=0,
    )  # fmt: skip
    dist = expected.bootstrap_distribution
    for end, q in zip(res.confidence_interval, expected.confidence_interval):
        p = np.mean(dist <= q)
        assert abs(end - q) < 5 * _quantile_se(dist, q, p), (end, q)


@pytest.mark.filterwarnings(
    "ignore:the Monte Carlo error of the endpoints:pairboot.SmallSampleWarning"
)
def test_compare_counts_undefined_resamples_in_warnings(oracle):
    import pairboot

    # class 3 occurs once: resamples without it have an undefined class F1 (taken as 0)
    rng = np.random.default_rng(8)
    y = np.array([0] * 40 + [1] * 40 + [2])
    pa = np.where(rng.random(81) < 0.3, 1 - np.minimum(y, 1), y)
    xa, xb = _class_stats(y, pa, 3), _class_stats(y, y.copy(), 3)
    with pytest.warns(pairboot.DegenerateDataWarning, match="'macro_f1' was partly undefined"):
        res = pairboot.compare(xa, xb, metric="macro_f1", n_resamples=R_BOOT, seed=0)
    assert np.isfinite(res.bootstrap_distribution).all()
    assert any("undefined" in w for w in res.warnings)

    # precision with few predicted positives: resamples with none score 0 (about e^-1
    # of them for A, which predicts one item; e^-2 for B, which predicts two)
    y = np.array([1] + [0] * 59, dtype=bool)
    pa, pb = np.zeros(60, dtype=bool), np.zeros(60, dtype=bool)
    pa[0] = pb[0] = pb[1] = True
    with pytest.warns(pairboot.DegenerateDataWarning, match="'precision' was undefined") as rec:
        res = pairboot.compare(
            _prf(PRECISION, _prf_stats(y, pa)), _prf(PRECISION, _prf_stats(y, pb)),
            metric="precision", n_resamples=R_BOOT, seed=0,
        )
    counts = {}
    for w in rec:
        m = re.search(r"for system (A|B) in (\d+) of (\d+) resamples", str(w.message))
        if m:
            counts[m[1]] = int(m[2]) / int(m[3])
    # exactly: a resample misses A's one predicted item with probability (59/60)**60, both
    # of B's with (58/60)**60 (about e**-1 and e**-2); binomial s.e. over R_BOOT resamples
    for system, k in (("A", 1), ("B", 2)):
        p = (1 - k / 60) ** 60
        assert abs(counts[system] - p) <= oracle.K * math.sqrt(p * (1 - p) / R_BOOT), system
    assert np.isfinite(res.bootstrap_distribution).all()


@pytest.mark.parametrize("paired", [True, False])
def test_pooled_bca_leaves_a_unit_out_of_its_stratum(paired):
    """A ratio with unit denominators is the mean: with strata and population weights,
    its BCa interval (the pooled path's jackknife) is the mean's (the separate path's).
    The pooled jackknife once kept the stratum's weight on its remaining units fixed, as
    if the unit left were replaced by zeros."""
    rng = np.random.default_rng(0)
    n = 24
    a = rng.exponential(1, n)
    b = a + rng.exponential(1, n) - 0.8
    strata = np.array(["x"] * 4 + ["y"] * 20)
    kw = dict(strata=strata, strata_weights={"x": 0.5, "y": 0.5}, method="bca", seed=3,
              n_resamples=4000, paired=paired)
    one = np.ones(n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pairboot.PairbootWarning)
        mean = pairboot.compare(a, b, **kw)
        ratio = pairboot.compare(np.column_stack([a, one]), np.column_stack([b, one]),
                                 metric="ratio", **kw)
    assert ratio.confidence_interval == pytest.approx(mean.confidence_interval, abs=1e-9)
    assert ratio.score_a.confidence_interval == pytest.approx(
        mean.score_a.confidence_interval, abs=1e-9)


@pytest.mark.parametrize("prepare, message", [
    (lambda v: v[:3], r"prepare returned shape \(3, 1\) for 30 items"),
    (lambda v: v[:, 0], r"prepare returned shape \(30,\) for 30 items"),
    (lambda v: v.no_such_method(), "failed to prepare .* AttributeError"),
    (lambda v: int("x"), "failed to prepare .* ValueError"),
])
def test_a_user_prepare_that_fails_is_named(prepare, message):
    """A user's prepare that raises or returns the wrong shape is an InputError naming
    the metric (it was an IndexError or TypeError from inside the engine)."""
    a = np.random.default_rng(0).uniform(size=(30, 1))
    metric = Metric("mine", ("s",), lambda S: S[..., 0], prepare=prepare)
    with pytest.raises(pairboot.InputError, match="metric 'mine'.*" + message):
        pairboot.compare(a, a + 0.1, metric=metric, n_resamples=100)


@pytest.mark.parametrize("row, message", [
    ([3.0, 2.0], r"correct <= total; item 1 has correct 3.0 and total 2.0"),
    ([-1.0, 2.0], r"non-negative counts; statistic 'correct' \(column 0\) of item 1"),
])
def test_accuracy_counts_are_checked(row, message):
    """Correct above total made an accuracy of 1.2, and went through."""
    a = np.array([[1.0, 2.0], row, [2.0, 2.0]] * 10)
    with pytest.raises(pairboot.InputError, match=message):
        pairboot.compare(a, a, metric="accuracy", n_resamples=100)


@pytest.mark.filterwarnings("ignore:only 20 items:pairboot.SmallSampleWarning")
@pytest.mark.filterwarnings("ignore:100 resamples leave only:pairboot.SmallSampleWarning")
@pytest.mark.filterwarnings(  # a against itself
    "ignore:every resampled difference equals 0:pairboot.DegenerateDataWarning"
)
def test_accuracy_allows_rounding_in_fractional_counts():
    a = np.array([[(0.1 + 0.2) + 0.3, (0.3 + 0.2) + 0.1], [1.0, 2.0]] * 10)
    assert a[0, 0] > a[0, 1]  # by one ulp
    pairboot.compare(a, a, metric="accuracy", n_resamples=100)


def test_a_module_metric_leaves_the_path_as_it_was(tmp_path, monkeypatch):
    """``MODULE:NAME`` imports with the current folder on the path, as ``python -m``
    does, and takes it off again: a ./scipy.py there must not shadow scipy later."""
    import sys

    from pairboot.metrics.names import load_metric

    (tmp_path / "my_metrics.py").write_text("import pairboot\nM = pairboot.metrics.MEAN\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    before = list(sys.path)
    assert load_metric("my_metrics:M").name == "mean"
    assert sys.path == before
    monkeypatch.delitem(sys.modules, "my_metrics")

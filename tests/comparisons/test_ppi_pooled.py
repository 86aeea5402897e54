"""compare_ppi() on a pooled metric (F1 from per-item tp, fp, fn, corrected count by
count) and with several judge calls per item (``runs="samples"``).

References: an independent numpy implementation of PPI++ on F1's counts with the
analytic gradient of F1 (the tuned lam, the point estimate and the delta method's
interval); the mean of an item's calls; the bootstrap against the closed form within
its Monte Carlo error.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import pairboot
from pairboot.errors import InputError


def counts(n=800, share=0.25, seed=0, lenient=(0.4, 0.1), clusters=None):
    """Per-item gold tp, fp, fn of A and B (a tagger with recall 0.6 and 0.7), and a
    judge that misses 10% of the true positives and accepts ``lenient`` of each
    system's false positives as true (it favours A); gold on a random ``share`` (NaN
    rows elsewhere).  ``clusters``: items in clusters of that size sharing how many
    entities they hold."""
    rng = np.random.default_rng(seed)
    if clusters:
        t = np.repeat(rng.poisson(3, n // clusters), clusters) + rng.poisson(0.5, n) + 1
    else:
        t = rng.poisson(3, n) + 1
    gold, judge = [], []
    for s, (rec, fpr) in enumerate(((0.6, 1.0), (0.7, 0.9))):
        tp = rng.binomial(t, rec)
        fp = rng.poisson(fpr, n)
        miss, accept = rng.binomial(tp, 0.1), rng.binomial(fp, lenient[s])
        gold.append(np.column_stack([tp, fp, t - tp]).astype(float))
        judge.append(np.column_stack([tp - miss + accept, fp + miss - accept, t - tp])
                     .astype(float))
    lab = rng.random(n) < share
    return judge, [np.where(lab[:, None], g, np.nan) for g in gold], lab


def run(judge, gold, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pairboot.compare_ppi(judge[0], judge[1], gold_a=gold[0], gold_b=gold[1],
                                    metric="f1", **kw)


def f1(m):
    return 2 * m[..., 0] / (2 * m[..., 0] + m[..., 1] + m[..., 2])


def f1_gradient(m):
    d = 2 * m[0] + m[1] + m[2]
    return np.array([2 * (m[1] + m[2]), -2 * m[0], -2 * m[0]]) / d**2


def reference_f1(judge, gold, lab):
    """PPI++ on F1 of B - A written out: one lam for the six count columns, tuned on
    the linearisation at the gold means; the corrected means; the delta method."""
    g = [x[lab] for x in gold]
    jl, ju = [x[lab] for x in judge], [x[~lab] for x in judge]
    n, big_n = lab.sum(), (~lab).sum()
    grads = [f1_gradient(x.mean(axis=0)) for x in g]
    yg = g[1] @ grads[1] - g[0] @ grads[0]
    yj = jl[1] @ grads[1] - jl[0] @ grads[0]
    yall = judge[1] @ grads[1] - judge[0] @ grads[0]
    cov = np.mean((yg - yg.mean()) * (yj - yj.mean()))
    lam = float(np.clip(cov / ((1 + n / big_n) * np.var(yall, ddof=1)), 0, 1))
    point = [g[s].mean(axis=0) + lam * (ju[s].mean(axis=0) - jl[s].mean(axis=0))
             for s in (0, 1)]
    est = f1(point[1]) - f1(point[0])
    grads = [f1_gradient(p) for p in point]
    r = (g[1] @ grads[1] - g[0] @ grads[0]) - lam * (jl[1] @ grads[1] - jl[0] @ grads[0])
    u = lam * (ju[1] @ grads[1] - ju[0] @ grads[0])
    se = math.sqrt(np.var(r) / n + np.var(u) / big_n)
    return lam, est, se


def test_f1_s_estimate_and_closed_form_are_the_delta_method_s():
    judge, gold, lab = counts()
    res = run(judge, gold, method="clt")
    lam, est, se = reference_f1(judge, gold, lab)
    assert res.metric == "f1"
    assert res.lam == pytest.approx(lam, rel=1e-6)
    assert res.estimate == pytest.approx(est, rel=1e-9, abs=1e-12)
    assert res.standard_error == pytest.approx(se, rel=1e-5)
    z = 1.959963984540054
    assert res.confidence_interval == pytest.approx((est - z * se, est + z * se), rel=1e-5)
    # the gold labels alone and the judge alone: F1 of the pooled counts
    gold_only = f1(gold[1][lab].sum(axis=0)) - f1(gold[0][lab].sum(axis=0))
    assert res.gold_only.estimate == pytest.approx(gold_only, rel=1e-12)
    judge_only = f1(judge[1].sum(axis=0)) - f1(judge[0].sum(axis=0))
    assert res.judge_only.estimate == pytest.approx(judge_only, rel=1e-12)
    bias = [f1(gold[s][lab].sum(axis=0)) - f1(judge[s][lab].sum(axis=0)) for s in (0, 1)]
    assert res.bias.estimate == pytest.approx(bias[1] - bias[0], rel=1e-9)
    assert res.bias_a.estimate == pytest.approx(bias[0], rel=1e-9)
    # the judge accepts more of A's false positives: it favours A, and is caught
    assert res.bias.estimate > 0 and res.bias_p_value < 0.01
    assert res.judge_only.estimate < res.estimate


def test_f1_s_bootstrap_recomputes_it_per_resample_near_the_closed_form():
    judge, gold, lab = counts()
    clt = run(judge, gold, method="clt")
    boot = run(judge, gold, seed=3, n_resamples=2000)
    assert boot.estimate == clt.estimate  # (the same point: only the interval differs)
    # the bootstrap's sd within its Monte Carlo error (sd / sqrt(2 R): 1.6%) and the
    # delta method's approximation of the closed form
    assert boot.standard_error == pytest.approx(clt.standard_error, rel=0.08)
    assert len(boot.bootstrap_distribution) == 2000
    # every resample's F1 is F1 of its corrected means: within [-1, 1]
    assert np.abs(boot.bootstrap_distribution).max() < 1
    again = run(judge, gold, n_resamples=500)
    assert again.seed == run(judge, gold, n_resamples=500).seed  # (derived, stable)


def test_a_pooled_mean_of_one_statistic_is_the_mean_s_answer():
    """``ratio`` of (score, 1) is the mean: the pooled path (gradient, linearisation,
    summed columns) gives the mean's estimate, lam and interval."""
    rng = np.random.default_rng(4)
    q = rng.normal(0, 1, (300, 2))
    j = q + [0.2, 0] + rng.normal(0, 0.5, (300, 2))
    lab = rng.random(300) < 0.3
    g = np.where(lab[:, None], q, np.nan)
    ones = np.ones(300)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mean = pairboot.compare_ppi(j[:, 0], j[:, 1], gold_a=g[:, 0], gold_b=g[:, 1],
                                    method="clt", groups=np.arange(300) // 3)
        gone = np.where(lab, 1.0, np.nan)
        ratio = pairboot.compare_ppi(
            np.column_stack([j[:, 0], ones]), np.column_stack([j[:, 1], ones]),
            gold_a=np.column_stack([g[:, 0], gone]), gold_b=np.column_stack([g[:, 1], gone]),
            metric="ratio", method="clt", groups=np.arange(300) // 3)
    assert ratio.metric == "ratio"
    for x, y in ((mean.estimate, ratio.estimate), (mean.lam, ratio.lam),
                 (mean.lam_a, ratio.lam_a), (mean.standard_error, ratio.standard_error),
                 (mean.bias.estimate, ratio.bias.estimate),
                 (mean.score_b.standard_error, ratio.score_b.standard_error)):
        assert y == pytest.approx(x, rel=1e-6)


def test_pooled_inputs_are_checked_in_one_line():
    judge, gold, lab = counts(n=200)
    bad = gold[1].copy()
    bad[np.flatnonzero(lab)[0], 1] = np.nan  # (one count of a labelled row)
    with pytest.raises(InputError, match="some statistics of item") as info:
        run(judge, [gold[0], bad], method="clt")
    assert info.value.param == "gold_b"
    neg = judge[0].copy()
    neg[3, 1] = -1
    with pytest.raises(InputError, match="non-negative counts") as info:
        run([neg, judge[1]], gold, method="clt")
    assert info.value.param == "judge_a" and "\n" not in str(info.value)
    with pytest.raises(InputError, match="needs 3 per-item statistic"):
        run([judge[0][:, :2], judge[1][:, :2]], gold, method="clt")
    with pytest.raises(InputError, match="`gold_a` has 2 statistic"):
        run(judge, [gold[0][:, :2], gold[1]], method="clt")


# -- several judge calls per item --------------------------------------------------------

def called(n=400, calls=3, seed=5):
    """A judge that scores every item ``calls`` times (noise sd 0.5 per call), some
    calls missing (NaN), and gold on 30% of the items."""
    rng = np.random.default_rng(seed)
    q = rng.normal(0, 1, (n, 2)) + [0, 0.1]
    each = q[:, None, :] + 0.2 + rng.normal(0, 0.5, (n, calls, 2))
    each[rng.random((n, calls)) < 0.2] = np.nan
    each[:, 0] = np.where(np.isnan(each[:, 0]), q + 0.2, each[:, 0])  # (one call each)
    lab = rng.random(n) < 0.3
    return each, np.where(lab[:, None], q, np.nan)


def test_an_item_s_judge_score_is_the_mean_of_its_calls():
    each, gold = called()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = pairboot.compare_ppi(each[:, :, 0], each[:, :, 1], gold_a=gold[:, 0],
                                   gold_b=gold[:, 1], runs="samples", seed=2,
                                   n_resamples=999)
        mean = np.nanmean(each, axis=1)
        same = pairboot.compare_ppi(mean[:, 0], mean[:, 1], gold_a=gold[:, 0],
                                    gold_b=gold[:, 1], seed=2, n_resamples=999)
    assert res.estimate == same.estimate and res.lam == same.lam
    assert res.confidence_interval == same.confidence_interval
    calls = res.judge_calls
    present = ~np.isnan(each)
    assert calls.n_calls == tuple(int(present[:, :, s].sum()) for s in (0, 1))
    assert (calls.fewest, calls.most) == (1, 3)
    for s in (0, 1):  # pooled within-item sd, ddof 1 per item
        x = each[:, :, s]
        dev = np.nansum((x - np.nanmean(x, axis=1, keepdims=True)) ** 2)
        dof = (present[:, :, s].sum(axis=1) - 1).sum()
        assert calls.spread[s] == pytest.approx(math.sqrt(dev / dof), rel=1e-12)
        assert calls.spread[s] == pytest.approx(0.5, abs=0.05)  # (the simulated noise)
    assert "within-item standard deviation" in str(res) and same.judge_calls is None
    assert res.to_dict()["judge_calls"]["most"] == 3


def test_calls_of_a_pooled_metric_are_averaged_count_by_count():
    judge, gold, lab = counts(n=300)
    rng = np.random.default_rng(1)
    extra = [j + rng.integers(-1, 2, j.shape) * (j > 0) for j in judge]
    stacked = [np.stack([j, e], axis=1) for j, e in zip(judge, extra)]  # (n, 2, 3)
    res = run(stacked, gold, runs="samples", method="clt")
    mean = run([(j + e) / 2 for j, e in zip(judge, extra)], gold, method="clt")
    assert res.estimate == pytest.approx(mean.estimate, rel=1e-12)
    assert res.judge_calls.n_calls == (600, 600) and res.metric == "f1"


def test_calls_are_checked_in_one_line():
    each, gold = called(n=100)
    none = each.copy()
    none[7, :, 1] = np.nan
    for bad, match, param in ((none, "no call at item 7", "judge_b"),):
        with pytest.raises(InputError, match=match) as info:
            pairboot.compare_ppi(bad[:, :, 0], bad[:, :, 1], gold_a=gold[:, 0],
                                 gold_b=gold[:, 1], runs="samples", method="clt")
        assert info.value.param == param
    with pytest.raises(InputError, match="runs='samples'") as info:
        pairboot.compare_ppi(each[:, :, 0], each[:, :, 1], gold_a=gold[:, 0],
                             gold_b=gold[:, 1], runs="seeds")
    assert info.value.param == "runs"
    with pytest.raises(InputError, match="runs='samples'"):  # (calls without runs)
        pairboot.compare_ppi(each[:, :, 0], each[:, :, 1], gold_a=gold[:, 0],
                             gold_b=gold[:, 1])


def test_a_metric_undefined_on_the_gold_labels_is_said_or_refused():
    """F1 on labelled items with no tp, fp or fn is 0 by convention: said, as compare
    says it (it was silent, the interval [0, 0] read as certain).  A metric with no
    convention (the ratio, 0/0) was a NaN estimate and interval: refused, naming the
    gold argument."""
    judge, gold, lab = counts(n=200)
    empty = np.where(lab[:, None], np.zeros((200, 3)), np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = pairboot.compare_ppi(judge[0], judge[1], gold_a=empty, gold_b=gold[1],
                                   metric="f1", method="clt")
    said = [w for w in res.warnings if "undefined" in w]
    assert len(said) == 1 and "A's gold labels" in said[0] and "B's" not in said[0]
    ratio_judge = [j[:, :2] + [0.0, 1.0] for j in judge]
    ratio_gold = [np.where(lab[:, None], np.tile([1.0, 0.0], (200, 1)), np.nan),
                  gold[1][:, :2] + [0.0, 1.0]]
    with pytest.raises(InputError, match="undefined") as info:
        pairboot.compare_ppi(ratio_judge[1], ratio_judge[0], gold_a=ratio_gold[1],
                             gold_b=ratio_gold[0], metric="ratio", method="clt")
    assert info.value.param == "gold_b"
    with pytest.raises(InputError, match=r"gold\['y'\]") as info:
        pairboot.compare_ppi_many(dict(zip("xy", ratio_judge[::-1])),
                                  dict(zip("xy", ratio_gold[::-1])), metric="ratio",
                                  n_resamples=200, seed=1)
    assert info.value.param == "gold"

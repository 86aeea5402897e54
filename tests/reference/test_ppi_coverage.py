"""Coverage of the prediction-powered interval by simulation, with a judge biased
towards A: the judge's own interval misses the gold B - A most of the time, the gold
labels' and the prediction-powered ones cover at their level, and the
prediction-powered one is the narrower of the two (the judge tracks the gold scores).

Each count of covering intervals is binomial: the observed coverage is compared with
the level within a 99.9% band (3.29 standard errors) plus 0.01 for the normal
approximation at 150 labelled items.  Seeds are fixed: the outcome is deterministic.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import pairboot

pytestmark = pytest.mark.slow  # hundreds of simulated evaluations

LEVEL = 0.95
DELTA = 0.1  # the gold B - A of the population


def band(n_sim: int) -> float:
    return 3.29 * math.sqrt(LEVEL * (1 - LEVEL) / n_sim) + 0.01


def evaluation(rng, n=600, n_gold=150, groups=None):
    """One evaluation: gold scores of A and B (B better by DELTA), a judge that adds 0.2
    to A's scores and noise to both, gold kept on a uniform random sample of n_gold
    items (of whole groups, with ``groups``)."""
    shared = 0.0 if groups is None else rng.normal(0, 0.8, groups.max() + 1)[groups]
    u = rng.normal(size=n) + shared
    gold = np.column_stack([u + rng.normal(0, 0.5, n), u + DELTA + rng.normal(0, 0.5, n)
                            + (0.0 if groups is None else 0.5 * shared)])
    judge = gold + [0.2, 0.0] + rng.normal(0, 0.4, (n, 2))
    if groups is None:
        labelled = np.zeros(n, bool)
        labelled[rng.choice(n, n_gold, replace=False)] = True
    else:
        k = groups.max() + 1
        labelled = np.isin(groups, rng.choice(k, n_gold * k // n, replace=False))
    return judge, np.where(labelled[:, None], gold, np.nan)


def simulate(n_sim, sim_seed, method="clt", groups=None, analysed=True, **kw):
    """Coverage and mean width of the three intervals over ``n_sim`` evaluations;
    ``analysed`` False: the groups shape the data but the analysis ignores them."""
    rng = np.random.default_rng(sim_seed)
    cover = {"judge_only": 0, "gold_only": 0, "prediction_powered": 0}
    width = {"gold_only": 0.0, "prediction_powered": 0.0}
    for _ in range(n_sim):
        judge, gold = evaluation(rng, groups=groups)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = pairboot.compare_ppi(judge[:, 0], judge[:, 1], gold_a=gold[:, 0],
                                       gold_b=gold[:, 1], method=method,
                                       groups=groups if analysed else None,
                                       **kw)
        for kind in cover:
            low, high = getattr(res, kind).confidence_interval
            cover[kind] += low <= DELTA <= high
        for kind in width:
            low, high = getattr(res, kind).confidence_interval
            width[kind] += (high - low) / n_sim
    return {k: v / n_sim for k, v in cover.items()}, width


def test_the_closed_form_covers_and_the_biased_judge_does_not():
    n_sim = 1000
    cover, width = simulate(n_sim, 2024)
    assert cover["prediction_powered"] >= LEVEL - band(n_sim)
    assert cover["gold_only"] >= LEVEL - band(n_sim)
    assert cover["judge_only"] < 0.2  # (its B - A is off by 0.2: ten standard errors)
    assert width["prediction_powered"] < 0.85 * width["gold_only"]


def test_the_bootstrap_covers():
    n_sim = 300
    cover, width = simulate(n_sim, 7, method="percentile", n_resamples=999)
    assert cover["prediction_powered"] >= LEVEL - band(n_sim)
    assert cover["gold_only"] >= LEVEL - band(n_sim)
    assert cover["judge_only"] < 0.2
    assert width["prediction_powered"] < 0.85 * width["gold_only"]


def test_with_clusters_labelled_whole_the_clustered_interval_covers():
    n_sim = 600
    groups = np.repeat(np.arange(100), 6)
    cover, _ = simulate(n_sim, 11, groups=groups)
    assert cover["prediction_powered"] >= LEVEL - band(n_sim)
    assert cover["gold_only"] >= LEVEL - band(n_sim)
    naive, _ = simulate(n_sim, 11, groups=groups, analysed=False)  # (the same data)
    assert naive["prediction_powered"] < LEVEL - band(n_sim)


def test_with_labels_drawn_by_stratum_the_weighted_interval_covers():
    """Hard items (a noisier judge) labelled at 50%, easy ones at 10%: the stratified
    estimate covers the population's B - A; ignoring the strata, the gold-only mean of
    each system is pulled towards the hard items (B - A itself is the same in both)."""
    n_sim, rng = 600, np.random.default_rng(5)
    covers = {"ppi": 0, "gold": 0, "naive_a": 0}
    for _ in range(n_sim):
        judge, gold, strata = [], [], []
        for h, (m, p) in enumerate(((300, 0.5), (500, 0.1))):
            u = rng.normal(-1.0 if h == 0 else 1.0, 1.0, m)
            g = np.column_stack([u + rng.normal(0, 0.5, m),
                                 u + DELTA + rng.normal(0, 0.5, m)])
            j = g + [0.3, 0.0] + rng.normal(0, 0.9 if h == 0 else 0.4, (m, 2))
            judge.append(j)
            gold.append(np.where((rng.random(m) < p)[:, None], g, np.nan))
            strata += [h] * m
        judge, gold = np.concatenate(judge), np.concatenate(gold)
        kw = dict(gold_a=gold[:, 0], gold_b=gold[:, 1], method="clt")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = pairboot.compare_ppi(judge[:, 0], judge[:, 1], strata=strata, **kw)
            naive = pairboot.compare_ppi(judge[:, 0], judge[:, 1], **kw)
        covers["ppi"] += res.confidence_interval.low <= DELTA <= res.confidence_interval.high
        low, high = res.gold_only.confidence_interval
        covers["gold"] += low <= DELTA <= high
        mean_a = (300 * -1.0 + 500 * 1.0) / 800  # (the population's mean score of A)
        low, high = naive.gold_only.score_a.confidence_interval
        covers["naive_a"] += low <= mean_a <= high
    assert covers["ppi"] / n_sim >= LEVEL - band(n_sim)
    assert covers["gold"] / n_sim >= LEVEL - band(n_sim)
    assert covers["naive_a"] / n_sim < 0.2


# -- F1 corrected count by count ----------------------------------------------------------

RECALL, FALSE_POSITIVES = (0.6, 0.7), (1.0, 0.9)  # A's and B's tagger


def f1_truth(entities: float) -> float:
    """B - A of the population's F1, ``2 E tp / (2 E tp + E fp + E fn)``, with
    ``entities`` true entities per item on average."""
    f1 = [2 * entities * r / (2 * entities * r + fp + entities * (1 - r))
          for r, fp in zip(RECALL, FALSE_POSITIVES)]
    return f1[1] - f1[0]


def f1_evaluation(rng, n=800, n_gold=200, size=None):
    """Per-item gold tp, fp, fn of two taggers, and a judge that misses 10% of the true
    positives and takes 40% of A's false positives (10% of B's) for true ones: it
    favours A.  ``size``: items in clusters of that size sharing their number of
    entities (mean 4.5), labelled whole; else independent items (mean 4)."""
    if size is None:
        t = rng.poisson(3, n) + 1
        labelled = np.zeros(n, bool)
        labelled[rng.choice(n, n_gold, replace=False)] = True
    else:
        k = n // size
        t = np.repeat(rng.poisson(3, k), size) + rng.poisson(0.5, n) + 1
        labelled = np.repeat(np.isin(np.arange(k), rng.choice(k, n_gold // size,
                                                              replace=False)), size)
    judge, gold = [], []
    for rec, fpr, lenient in zip(RECALL, FALSE_POSITIVES, (0.4, 0.1)):
        tp, fp = rng.binomial(t, rec), rng.poisson(fpr, n)
        miss, accept = rng.binomial(tp, 0.1), rng.binomial(fp, lenient)
        gold.append(np.where(labelled[:, None], np.column_stack([tp, fp, t - tp]), np.nan))
        judge.append(np.column_stack([tp - miss + accept, fp + miss - accept, t - tp]))
    return judge, gold


def f1_simulate(n_sim, sim_seed, size=None):
    rng = np.random.default_rng(sim_seed)
    truth = f1_truth(4.0 if size is None else 4.5)
    groups = None if size is None else np.arange(800) // size
    cover = {"judge_only": 0, "gold_only": 0, "prediction_powered": 0}
    width = {"gold_only": 0.0, "prediction_powered": 0.0}
    for _ in range(n_sim):
        judge, gold = f1_evaluation(rng, size=size)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = pairboot.compare_ppi(judge[0], judge[1], gold_a=gold[0], gold_b=gold[1],
                                       metric="f1", method="clt", groups=groups)
        for kind in cover:
            low, high = getattr(res, kind).confidence_interval
            cover[kind] += low <= truth <= high
        for kind in width:
            low, high = getattr(res, kind).confidence_interval
            width[kind] += (high - low) / n_sim
    return {k: v / n_sim for k, v in cover.items()}, width


def test_f1_corrected_count_by_count_covers_and_the_lenient_judge_does_not():
    n_sim = 400
    cover, width = f1_simulate(n_sim, 38)
    assert cover["prediction_powered"] >= LEVEL - band(n_sim)
    assert cover["gold_only"] >= LEVEL - band(n_sim)
    assert cover["judge_only"] < 0.2  # (it takes A's false positives for true ones)
    assert width["prediction_powered"] < 0.85 * width["gold_only"]


def test_f1_with_clusters_labelled_whole_covers():
    n_sim = 400
    cover, width = f1_simulate(n_sim, 39, size=8)
    assert cover["prediction_powered"] >= LEVEL - band(n_sim)
    assert cover["gold_only"] >= LEVEL - band(n_sim)
    assert cover["judge_only"] < 0.2
    assert width["prediction_powered"] < 0.9 * width["gold_only"]

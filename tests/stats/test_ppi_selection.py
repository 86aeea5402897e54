"""The check that gold labels look like a random sample of the items
(:func:`pairboot.stats.ppi.selection_p_value`, the warning of compare_ppi)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats as sps

import pairboot
from pairboot.errors import PairbootWarning
from pairboot.stats.ppi import selection_p_value


def _one(values, labelled, codes=None, n_groups=0):
    return selection_p_value(values, labelled, [(np.arange(len(labelled)), codes, n_groups)],
                             np.ones(1))


def test_one_column_is_the_pooled_z_test():
    """Items alone: the z statistic with the variance of all items (the null's, of a
    random sample), so scipy's equal-variance t test at 6,000 items gives nearly the
    same p-value."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=6000)
    lab = rng.random(6000) < 0.3
    x[lab] += 0.08
    student = sps.ttest_ind(x[lab], x[~lab], equal_var=True).pvalue
    assert _one(x[:, None], lab) == pytest.approx(student, rel=0.05)


def test_several_columns_take_the_smallest_p_times_their_number():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(300, 3))
    lab = rng.random(300) < 0.5
    x[lab, 1] += 0.3
    each = [_one(x[:, [j]], lab) for j in range(3)]
    assert _one(x, lab) == pytest.approx(min(1.0, 3 * min(each)), rel=1e-12)


def test_random_labels_are_flagged_about_once_in_a_thousand():
    """2,000 random subsets of 200 items, three correlated columns: a flag at 0.001
    (Bonferroni: at most 0.001) is expected at most twice; 8 or more would have
    probability below 0.001 under Poisson(2)."""
    rng = np.random.default_rng(5)
    flags = 0
    for _ in range(2000):
        a = rng.normal(size=200)
        b = a + rng.normal(scale=0.5, size=200)
        lab = rng.random(200) < 0.25
        flags += _one(np.column_stack([a, b, b - a]), lab) < 0.001
    assert flags < 8


def _flagged(judge_a, judge_b, labelled) -> bool:
    gold_a, gold_b = (np.where(labelled, j, np.nan) for j in (judge_a, judge_b))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = pairboot.compare_ppi(judge_a, judge_b, gold_a=gold_a, gold_b=gold_b,
                                   method="clt")
    return any("random sample's would" in w for w in res.warnings)


def test_rare_verdicts_labelled_at_random_are_not_flagged():
    """0/1 verdicts positive on 5% of 1,000 items, 30 labelled at random: most such
    samples hold one or two positives, and the labelled items' own variance (often 0)
    made them look impossibly far from the rest (flagged in about 40%).  The null's
    variance, of all the items: 200 random samples, a flag expected 0.2 times; 4 or
    more has probability below 0.001 under Poisson(0.2)."""
    rng = np.random.default_rng(12)
    flags = 0
    for _ in range(200):
        judge_a = (rng.random(1000) < 0.05).astype(float)
        judge_b = (rng.random(1000) < 0.05).astype(float)
        labelled = np.zeros(1000, dtype=bool)
        labelled[rng.choice(1000, 30, replace=False)] = True
        flags += _flagged(judge_a, judge_b, labelled)
    assert flags < 4


def test_whole_groups_labelled_at_random_are_not_flagged_as_items_would_be():
    """Groups of 5 items sharing a large effect, whole groups labelled at random: with
    the groups the flag rate stays near 0.001; read as independent items, the spread of
    the labelled mean is underestimated and random labels are flagged far more often."""
    rng = np.random.default_rng(6)
    codes = np.repeat(np.arange(60), 5)
    grouped = items = 0
    for _ in range(400):
        x = (rng.normal(size=60)[codes] * 2 + rng.normal(size=300))[:, None]
        lab = (rng.random(60) < 0.3)[codes]
        grouped += _one(x, lab, codes, 60) < 0.001
        items += _one(x, lab) < 0.001
    assert grouped <= 3  # (expected about 0.4)
    assert items >= 20


def test_labels_chosen_by_the_judges_disagreement_are_flagged():
    """The usual mistake: people label where the judge's B - A is farthest from its
    mean, either way (the spread moves, not the mean)."""
    rng = np.random.default_rng(7)
    quality = rng.normal(0.5, 0.2, (400, 2)) + [0.0, 0.05]
    judge = quality + 0.1 + rng.normal(0, 0.05, (400, 2))
    d = judge[:, 1] - judge[:, 0]
    chosen = np.abs(d - d.mean()) > np.quantile(np.abs(d - d.mean()), 0.75)
    random = rng.random(400) < 0.25
    for labelled, flagged in ((chosen, True), (random, False)):
        gold = np.where(labelled[:, None], quality, np.nan)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            res = pairboot.compare_ppi(judge[:, 0], judge[:, 1], gold_a=gold[:, 0],
                                       gold_b=gold[:, 1], method="clt")
        says = [w for w in seen if issubclass(w.category, PairbootWarning)
                and "random sample's would" in str(w.message)]
        assert bool(says) is flagged
        assert any("random sample's would" in w for w in res.warnings) is flagged


def test_labels_drawn_at_different_rates_by_stratum_are_flagged_without_the_strata():
    """Labels drawn more where the judge scores low, stratum by stratum: a random
    sample within each stratum (given as `strata`), not of the items (without it)."""
    rng = np.random.default_rng(8)
    n = 600
    stratum = np.repeat([0, 1], n // 2)
    quality = rng.normal(0.0, 0.3, (n, 2)) + np.where(stratum == 0, 0.0, 1.0)[:, None]
    judge = quality + rng.normal(0, 0.1, (n, 2))
    lab = rng.random(n) < np.where(stratum == 0, 0.6, 0.1)
    gold = np.where(lab[:, None], quality, np.nan)
    args = dict(gold_a=gold[:, 0], gold_b=gold[:, 1], method="clt")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = pairboot.compare_ppi(judge[:, 0], judge[:, 1], **args)
        by_stratum = pairboot.compare_ppi(judge[:, 0], judge[:, 1], strata=stratum, **args)
    assert any("random sample's would" in w for w in plain.warnings)
    assert not any("random sample's would" in w for w in by_stratum.warnings)

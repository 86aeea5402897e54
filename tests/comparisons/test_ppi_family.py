"""compare_ppi_many(): a family of prediction-powered comparisons on one set of draws.

References: compare_ppi's answer for a family of two systems (the same draws, seed and
interval); Bonferroni's intervals, which max-t's on the same correlated comparisons
beat; the normal quantile of Bonferroni's level; the closed form's per-row numbers
against compare_ppi's on each pair.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import pairboot
from pairboot.errors import InputError
from pairboot.stats.intervals import normal_quantile

SHIFTS = (0.0, 0.1, 0.15, 0.3)


def systems(n=600, share=0.25, seed=0, names="abcd"):
    """Gold scores of len(names) systems sharing an item difficulty, a judge that
    favours the first, gold on a random ``share`` of the items."""
    rng = np.random.default_rng(seed)
    m = len(names)
    u = rng.normal(size=n)
    gold = u[:, None] + np.array(SHIFTS[:m]) + rng.normal(0, 0.5, (n, m))
    judge = gold + np.array([0.3] + [0.0] * (m - 1)) + rng.normal(0, 0.6, (n, m))
    lab = rng.random(n) < share
    gold = np.where(lab[:, None], gold, np.nan)
    return ({k: judge[:, i] for i, k in enumerate(names)},
            {k: gold[:, i] for i, k in enumerate(names)})


def many(judge, gold, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pairboot.compare_ppi_many(judge, gold, **kw)


def one(judge, gold, a, b, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pairboot.compare_ppi(judge[a], judge[b], gold_a=gold[a], gold_b=gold[b], **kw)


@pytest.mark.parametrize("kw", [dict(n_resamples=999), dict(method="clt"),
                                dict(method="basic", n_resamples=500, seed=4)])
def test_a_family_of_two_is_compare_ppi_s_answer(kw):
    judge, gold = systems(names="ab")
    fam = many(judge, gold, **kw)
    ref = one(judge, gold, "a", "b", **kw)
    (row,) = fam.comparisons
    assert (row.a, row.b) == ("a", "b") and fam.seed == ref.seed
    assert row.estimate == ref.estimate and row.lam == ref.lam
    assert row.confidence_interval == ref.confidence_interval
    assert row.p_value == ref.p_value and row.standard_error == ref.standard_error
    assert row.effective_gold == ref.effective_gold
    assert row.gold_only.confidence_interval == ref.gold_only.confidence_interval
    assert row.judge_only.estimate == ref.judge_only.estimate
    assert row.bias.estimate == ref.bias.estimate
    assert fam.scores["b"].estimate == ref.score_b.estimate
    assert fam.lams["a"] == ref.lam_a


def test_each_row_s_own_interval_is_compare_ppi_s_on_its_pair():
    judge, gold = systems()
    fam = many(judge, gold, method="clt", correction="none", baseline="a")
    assert [(r.a, r.b) for r in fam.comparisons] == [("a", "b"), ("a", "c"), ("a", "d")]
    for row in fam.comparisons:
        ref = one(judge, gold, row.a, row.b, method="clt")
        assert row.estimate == pytest.approx(ref.estimate, rel=1e-12)
        assert row.confidence_interval == pytest.approx(ref.confidence_interval, rel=1e-12)
        assert row.marginal_interval == row.confidence_interval


def test_max_t_is_narrower_than_bonferroni_and_wider_than_none():
    judge, gold = systems()
    kw = dict(n_resamples=2000, seed=5)
    fam = many(judge, gold, **kw)
    bonf = many(judge, gold, correction="bonferroni", method="normal", **kw)
    assert len(fam.comparisons) == 6 and fam.correction == "max-t"
    z_bonf = normal_quantile(1 - 0.05 / 12)
    # max-t's c below Bonferroni's quantile: the comparisons share systems, so their
    # roots are correlated and the largest of six is less extreme than Bonferroni assumes
    assert normal_quantile(0.975) < fam.critical_value < z_bonf
    for row, b in zip(fam.comparisons, bonf.comparisons):
        width = row.confidence_interval.high - row.confidence_interval.low
        assert width == pytest.approx(2 * fam.critical_value * row.standard_error)
        assert width < b.confidence_interval.high - b.confidence_interval.low
        low, high = row.marginal_interval
        assert high - low < width  # (each row's own interval, at 95%)
        assert row.p_value >= row.p_stepdown >= row.p_marginal
        # the single-step p-value and the simultaneous interval say the same
        excludes = not row.confidence_interval.low <= 0 <= row.confidence_interval.high
        assert (row.p_value < 0.05) == excludes
    assert bonf.critical_value is None
    # the judge favours a: its a-comparisons' bias rows say so
    assert all(fam["a", x].bias.estimate > 0 for x in "bcd")
    assert fam["a", "d"].verdict == "better"
    text = str(fam)
    assert "simultaneous" in text and "d - a" in text


def test_pooled_metrics_and_calls_in_a_family():
    rng = np.random.default_rng(2)
    n, names = 400, ("x", "y", "z")
    lab = rng.random(n) < 0.3
    judge, gold, calls = {}, {}, {}
    for s, name in enumerate(names):
        tp = rng.binomial(4, 0.5 + 0.1 * s, n)
        counts = np.column_stack([tp, rng.poisson(1, n), 4 - tp]).astype(float)
        judge[name] = counts + np.column_stack([rng.integers(0, 2, n), np.zeros(n),
                                                np.zeros(n)])
        gold[name] = np.where(lab[:, None], counts, np.nan)
        calls[name] = np.stack([judge[name], counts], axis=1)
    fam = many(judge, gold, metric="f1", method="clt", correction="bonferroni")
    ref = one(judge, gold, "x", "z", metric="f1", method="clt")
    assert fam.metric == "f1"
    assert fam["x", "z"].estimate == pytest.approx(ref.estimate, rel=1e-12)
    ran = many(calls, gold, metric="f1", runs="samples", n_resamples=300, seed=1)
    assert ran.judge_calls.n_calls == (800, 800, 800) and ran.judge_calls.most == 2
    assert "judge scored every item 2 times" in str(ran)


def test_refusals_are_one_line():
    judge, gold = systems(names="abc")
    with pytest.raises(InputError, match="max-t") as info:
        many(judge, gold, method="clt")
    assert info.value.param == "correction"
    with pytest.raises(InputError, match="one of max-t"):
        many(judge, gold, correction="holm")
    with pytest.raises(InputError, match="'c' is in one only") as info:
        many(judge, {k: gold[k] for k in "ab"})
    assert info.value.param == "gold"
    bad = dict(judge, b=np.where(np.arange(600) == 3, np.nan, judge["b"]))
    with pytest.raises(InputError, match=r"judge\['b'\]` has no finite score at item 3") \
            as info:
        many(bad, gold, method="clt", correction="none")
    assert info.value.param == "judge" and "\n" not in str(info.value)
    with pytest.raises(InputError, match="baseline"):
        many(judge, gold, baseline="q")


def test_the_reports_escape_names_and_say_what_was_corrected():
    judge, gold = systems(names="ab")
    judge = {"<b>x</b>": judge["a"], "y|z": judge["b"]}
    gold = {"<b>x</b>": gold["a"], "y|z": gold["b"]}
    fam = many(judge, gold, method="clt")
    page = fam.to_html()
    assert "<b>x" not in page and "&lt;b&gt;x" in page
    md = pairboot.report.render(fam, "markdown")
    assert r"y\|z - \<b>x\</b>" in md
    assert "1 comparison of 2 systems" in str(fam) and "its own interval" in str(fam)
    three = many(*systems(names="abc"), n_resamples=300, seed=1)
    assert "simultaneous" in str(three) and "c = " in str(three)


def test_too_few_systems_name_the_judge_argument():
    """It named `scores`, compare_many's argument, which compare_ppi_many does not have."""
    with pytest.raises(InputError, match="`judge` must hold at least two") as info:
        pairboot.compare_ppi_many({"a": np.ones(10)}, {"a": np.ones(10)})
    assert info.value.param == "judge"

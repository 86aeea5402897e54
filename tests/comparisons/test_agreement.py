"""agreement(): two raters' kappa, AC1, alpha, accuracy, sensitivity and specificity,
each equal to an independent implementation (scikit-learn's ``cohen_kappa_score`` and
``recall_score``, the ``krippendorff`` package, Gwet's published 2 x 2 example and a loop
over the items), with bootstrap intervals on the same resamples."""

from __future__ import annotations

import numpy as np
import pytest

import pairboot
from pairboot.errors import InputError


def ordinal(n=400, seed=0, noise=0.25):
    """Two raters on a 1-5 scale: B is A moved by a step now and then, or replaced."""
    rng = np.random.default_rng(seed)
    a = rng.integers(1, 6, n)
    b = np.clip(a + rng.integers(-1, 2, n), 1, 5)
    swap = rng.random(n) < noise
    b[swap] = rng.integers(1, 6, int(swap.sum()))
    return a, b


ALL = ("kappa", "kappa-linear", "kappa-quadratic", "ac1", "alpha-nominal",
       "alpha-ordinal", "alpha-interval")


def test_kappa_is_scikit_learn_s():
    metrics = pytest.importorskip("sklearn.metrics")
    a, b = ordinal()
    res = pairboot.agreement(a, b, statistics=ALL, n_resamples=200, seed=1)
    for name, weights in (("kappa", None), ("kappa-linear", "linear"),
                          ("kappa-quadratic", "quadratic")):
        assert res[name].estimate == pytest.approx(
            metrics.cohen_kappa_score(a, b, weights=weights), rel=1e-12)


def test_alpha_is_the_krippendorff_package_s():
    krippendorff = pytest.importorskip("krippendorff")
    a, b = ordinal(seed=3)
    res = pairboot.agreement(a, b, statistics=ALL, n_resamples=200, seed=1)
    data = np.vstack([a, b]).astype(float)
    for level in ("nominal", "ordinal", "interval"):
        assert res[f"alpha-{level}"].estimate == pytest.approx(
            krippendorff.alpha(reliability_data=data, level_of_measurement=level),
            rel=1e-10)


def test_ac1_on_gwet_s_example_and_by_a_loop_over_the_items():
    # Gwet (2008), the paradox of kappa: 118 agreements on "+", 5 and 2 disagreements,
    # none on "-": kappa -0.02, AC1 0.94
    a = ["+"] * 118 + ["+"] * 5 + ["-"] * 2
    b = ["+"] * 118 + ["-"] * 5 + ["+"] * 2
    res = pairboot.agreement(a, b, statistics=("kappa", "ac1"), n_resamples=200, seed=1)
    assert res["kappa"].estimate == pytest.approx(-0.0234, abs=5e-4)
    assert res["ac1"].estimate == pytest.approx(0.9408, abs=5e-4)
    x, y = ordinal(seed=5)
    cats = [1, 2, 3, 4, 5]
    p_a = np.mean(x == y)
    pi = [(np.sum(x == c) + np.sum(y == c)) / (2 * len(x)) for c in cats]
    p_e = sum(p * (1 - p) for p in pi) / (len(cats) - 1)
    got = pairboot.agreement(x, y, statistics="ac1", n_resamples=100, seed=1)["ac1"]
    assert got.estimate == pytest.approx((p_a - p_e) / (1 - p_e), rel=1e-12)


def test_a_judge_s_verdicts_against_people_s():
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(2)
    human = (rng.random(300) < 0.6).astype(int)
    judge = np.where(rng.random(300) < 0.85, human, 1 - human)
    res = pairboot.agreement(judge, human, n_resamples=500, seed=3,
                             statistics=("accuracy", "sensitivity", "specificity"))
    assert res["accuracy"].estimate == pytest.approx(np.mean(judge == human))
    assert res["sensitivity"].estimate == pytest.approx(metrics.recall_score(human, judge))
    assert res["specificity"].estimate == pytest.approx(
        metrics.recall_score(human, judge, pos_label=0))
    assert res.table[1][0] == int(np.sum((judge == 1) & (human == 0)))


def test_the_intervals_come_from_one_bootstrap_and_groups_widen_them():
    a, b = ordinal(n=600, seed=7)
    one = pairboot.agreement(a, b, n_resamples=2000, seed=4)
    again = pairboot.agreement(a, b, n_resamples=2000, seed=4)
    assert one.rows == again.rows
    for row in one.rows:
        low, high = row.confidence_interval
        assert low < row.estimate < high
    # (the same ratings, each rated item repeated 6 times as a group: the items'
    # information is that of 100 groups, the interval wider by about sqrt(6))
    grouped = pairboot.agreement(np.repeat(a[:100], 6), np.repeat(b[:100], 6),
                                 groups=np.repeat(np.arange(100), 6), n_resamples=2000,
                                 seed=4)
    plain = pairboot.agreement(np.repeat(a[:100], 6), np.repeat(b[:100], 6),
                               n_resamples=2000, seed=4)
    ratio = grouped["kappa"].standard_error / plain["kappa"].standard_error
    assert 2.0 < ratio < 3.0 and grouped.n_groups == 100


def test_the_reports():
    a, b = ordinal(n=120, seed=9)
    res = pairboot.agreement(a, b, n_resamples=300, seed=2)
    out = str(res)
    assert "Cohen's kappa" in out and "Gwet's AC1" in out and "A \\ B" in out
    md = pairboot.report.render(res, "markdown")
    assert "| Krippendorff's alpha, nominal |" in md
    js = pairboot.report.render(res, "json")
    assert '"statistic": "kappa"' in js and '"table"' in js
    assert "Gwet&#x27;s AC1" in res.to_html() or "Gwet's AC1" in res.to_html()
    assert res._repr_html_().startswith('<div class="pairboot pairboot-agreement">')


@pytest.mark.parametrize("kw, param, match", [
    (dict(rater_a=[1, 2, None], rater_b=[1, 2, 3]), "rater_a", "no rating at item 2"),
    (dict(rater_a=[1, 2, 3], rater_b=[1, 2]), "rater_b", "has 2 items"),
    (dict(rater_a=[1, 2, 3], rater_b=[1, 2, 7], categories=[1, 2, 3]), "rater_b",
     "not one of the `categories`"),
    (dict(rater_a=[1, 2, "3"], rater_b=[1, 2, 3]), "rater_b", "mix numbers and text"),
    (dict(rater_a=[1, 2, 3], rater_b=[1, 2, 3], statistics="accuracy"), "statistics",
     "0/1 verdicts"),
    (dict(rater_a=["x", "y"], rater_b=["y", "x"], statistics="alpha-interval"),
     "statistics", "numeric categories"),
    (dict(rater_a=[1, 2], rater_b=[1, 2], statistics="cronbach"), "statistics",
     "are among"),
    (dict(rater_a=[1, 2], rater_b=[1, 2], method="bca"), "method", "percentile"),
    (dict(rater_a=[1, 1], rater_b=[1, 1]), "categories", "1 categories"),
])
def test_bad_ratings_are_refused_in_one_line(kw, param, match):
    a, b = kw.pop("rater_a"), kw.pop("rater_b")
    with pytest.raises(InputError, match=match) as info:
        pairboot.agreement(a, b, n_resamples=10, **kw)
    assert info.value.param == param and "\n" not in str(info.value)

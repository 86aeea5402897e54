"""Every format says a margin's hypothesis in words, its verdict and the level of its
interval; a family's formats say its false discovery rate and its partial conjunction.

References: the hypothesis as the issue writes it ("H0: B is worse than A by 0.005 or
more"); the numbers against the result's own fields.
"""

from __future__ import annotations

import html
import json
import re

import numpy as np
import pytest

import pairboot
from pairboot.report import WRITERS, render, render_family
from pairboot.report.formats import md, tex
from pairboot.report.parts import format_p, p_cell

RNG = np.random.default_rng(24)
N = 400
A = RNG.random(N)
B = A + RNG.normal(0.01, 0.05, N)

H0 = {
    ("non-inferiority", False): "H0: B is worse than A by 0.02 or more (B - A <= -0.02)",
    ("non-inferiority", True): "H0: B is worse than A by 0.02 or more (B - A >= 0.02)",
    ("superiority", False): "H0: B is not better than A by more than 0.02 (B - A <= 0.02)",
    ("equivalence", False): "H0: B and A differ by 0.02 or more (|B - A| >= 0.02)",
}


@pytest.fixture(scope="module", params=sorted(H0), ids=lambda k: f"{k[0]}-{k[1]}")
def margined(request):
    hypothesis, lower = request.param
    res = pairboot.compare(A, B, n_resamples=2000, seed=3, hypothesis=hypothesis,
                           margin=0.02, lower_is_better=lower)
    return res, H0[request.param]


@pytest.mark.parametrize("fmt", ["text", "markdown", "latex"])
def test_every_format_says_h0_and_the_verdict(margined, fmt):
    res, h0 = margined
    out = " ".join(render(res, fmt).split())
    said = {"markdown": md, "latex": tex}.get(fmt, str)(h0)  # (as each format escapes)
    assert said in out, out[:2000]
    level = "90%" if res.hypothesis == "equivalence" else "95%"
    level = tex(level) if fmt == "latex" else level
    assert f"{level} paired bootstrap" in out
    if res.hypothesis == "equivalence":  # (the table's header says which row is 90%)
        assert ("(B - A: 90%)" in out or "(B $-$ A: 90\\%)" in out), out[:1500]
    assert f"hypothesis {res.hypothesis} | margin 0.02" in out  # (the signature)


def test_the_json_carries_the_decision(margined):
    res, h0 = margined
    out = json.loads(render(res, "json"))
    assert out["decision"]["null_hypothesis"] == h0
    assert out["verdict"] == out["decision"]["verdict"] == res.verdict()
    assert out["margin"] == 0.02 and out["hypothesis"] == res.hypothesis
    assert out["interval_level"] == res.interval_level
    if res.hypothesis == "equivalence":
        assert out["p_values"] == list(res.p_values)


def test_the_headline_reads_the_verdict(margined):
    res, _ = margined
    first = render(res, "text").splitlines()[0]
    words = {"non-inferior": "is not worse than A by 0.02 or more (non-inferiority, p ",
             "better-by-margin": "is better than A by more than 0.02",
             "equivalent": "is equivalent to A within +-0.02",
             "better": "is better than A", "inconclusive": "Not shown"}
    assert words[res.verdict()] in first, first


@pytest.mark.parametrize("lower_is_better", [False, True])
def test_each_p_beside_a_verdict_is_the_p_of_its_claim(lower_is_better):
    # non-inferiority's bound lies above 0: the headline says "better" with the p of
    # H0 B - A <= 0 (one-sided) and "not worse" with non-inferiority's, each named; the
    # p-value of H0 B - A <= -margin is not the p of "better" (issue 33)
    sign = -1.0 if lower_is_better else 1.0
    b = A + sign * (0.02 + np.random.default_rng(7).normal(0.0, 0.1, N))
    res = pairboot.compare(A, b, hypothesis="non-inferiority", margin=0.05, seed=1,
                           n_resamples=2000, lower_is_better=lower_is_better)
    assert res.verdict() == "better"
    side = "less" if lower_is_better else "greater"
    plain = pairboot.compare(A, b, alternative=side, seed=1, n_resamples=2000)
    assert res.verdict_p_value() == plain.p_value != res.p_value
    assert dict(res.claim_p_values)[0.0] == plain.p_value
    h0 = ">= 0" if lower_is_better else "<= 0"
    first = render(res, "text").splitlines()[0]
    one = {"alpha": 0.05, "sides": 1}
    assert (f"is better than A (H0: B - A {h0}, {format_p(plain.p_value, 2000, **one)}) "
            f"and not worse by 0.05 or more (non-inferiority, "
            f"{format_p(res.p_value, 2000, **one)})" in first), first
    assert len(re.findall(r"\bp [=<]", first)) == 2  # (no other p-value beside them)
    out = json.loads(render(res, "json"))
    assert out["verdict_p_value"] == plain.p_value
    assert out["claim_p_values"][0] == {"boundary": 0.0, "p_value": plain.p_value}


def test_better_by_more_than_a_difference_margin_gives_its_own_p():
    b = A + 0.056 + np.random.default_rng(8).normal(0.0, 0.05, N)
    res = pairboot.compare(A, b, margin=0.05, seed=1, n_resamples=2000)
    assert res.verdict() == "better-by-margin"
    against = dict(res.claim_p_values)[0.05]
    assert res.verdict_p_value() == against and against != res.p_value
    first = render(res, "text").splitlines()[0]
    assert f"(H0: B - A = +0.05, {format_p(against, 2000, alpha=0.05)})" in first, first
    assert len(re.findall(r"\bp [=<]", first)) == 1  # (not no difference's p beside it)


def test_writers_are_all_covered():
    assert set(WRITERS) == {"text", "json", "markdown", "latex", "html", "github"}


@pytest.fixture(scope="module")
def fdr_family():
    scores = {"base": A, "v1": B, "v2": A + np.random.default_rng(101).normal(0.0, 0.05, N),
              "v3": A + np.random.default_rng(102).normal(-0.02, 0.05, N)}
    return pairboot.compare_many(scores, baseline="base", correction="bh",
                                 n_resamples=2000, seed=3)


@pytest.mark.parametrize("fmt", ["text", "markdown", "latex"])
def test_a_bh_family_says_its_rate_and_fcr_level(fdr_family, fmt):
    out = " ".join(render_family(fdr_family, fmt).split())
    assert "Benjamini-Hochberg" in out
    level = f"{fdr_family.fcr_level * 100:g}%"
    assert f"{level} FCR-adjusted" in out or "false-coverage-rate adjusted" in out
    assert "q-values" in out


def test_a_bh_family_json(fdr_family):
    out = json.loads(render_family(fdr_family, "json"))
    found = sum(c["significant"] for c in out["comparisons"])
    assert out["fcr_level"] == pytest.approx(1 - max(found, 1) * 0.05 / 3)


@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_a_family_rows_better_is_given_its_own_p(fmt):
    # the p columns are non-inferiority's; "better" beside them carries its own
    rng = np.random.default_rng(104)
    scores = {"base": A, "v1": A + rng.normal(0.02, 0.05, N), "v2": A + rng.normal(0, 0.05, N)}
    fam = pairboot.compare_many(scores, baseline="base", hypothesis="non-inferiority",
                                margin=0.05, correction="holm", n_resamples=2000, seed=3)
    row = next(c for c in fam.comparisons if c.b == "v1")
    assert row.verdict == "better" and row.claim_p_value is not None
    out = " ".join(html.unescape(render_family(fam, fmt)).split())
    cell = p_cell(row.claim_p_value, 2000, alpha=0.05, sides=1, resampled=True)
    assert f"better (p = {cell})" in out or f"better (p {cell})" in out, out[:3000]
    assert "the p columns test non-inferiority" in out
    assert "(b - a <= -margin)" in out  # (not "-the margin")


@pytest.fixture(scope="module")
def tasks():
    strata = np.repeat(np.arange(5), N // 5)
    b = A + np.where(strata < 2, 0.05, 0.0) + np.random.default_rng(103).normal(0, 0.02, N)
    return pairboot.compare_strata(A, b, strata=strata, n_resamples=2000, seed=3)


@pytest.mark.parametrize("fmt", ["text", "markdown", "latex"])
def test_a_tasks_family_says_on_how_many_b_is_better(tasks, fmt):
    pc = tasks.partial_conjunction
    assert pc is not None and pc.of == 5 and pc.count >= 2
    out = " ".join(render_family(tasks, fmt).split())
    assert f"On at least {pc.count} of 5 strata, B is better than A" in out


def test_a_tasks_family_json(tasks):
    pc = json.loads(render_family(tasks, "json"))["partial_conjunction"]
    assert pc["count"] == tasks.partial_conjunction.count and pc["of"] == 5
    assert pc["combination"] == "simes"
    assert all(x <= y for x, y in zip(pc["p_values"], pc["p_values"][1:]))


def test_an_equivalence_family_labels_its_rows_at_1_minus_2_alpha():
    scores = {"base": A, "v1": B, "v2": A + np.random.default_rng(104).normal(0.0, 0.05, N)}
    for correction, family in (("holm", "90% Bonferroni"), ("max-t", "95% simultaneous")):
        fam = pairboot.compare_many(scores, baseline="base", correction=correction,
                                    hypothesis="equivalence", margin=0.05,
                                    n_resamples=2000, seed=3)
        assert fam.interval_level == 0.9
        text = render_family(fam, "text")
        assert "90% marginal" in text and family in text, text[:1500]
        # the 90% marginal interval is compare()'s two-sided interval at 90%
        c = fam.comparisons[0]
        ref = pairboot.compare(A, B, n_resamples=2000, seed=fam.seed, confidence_level=0.9)
        if correction == "holm":
            assert c.marginal_interval == pytest.approx(ref.confidence_interval, abs=1e-12)


def test_a_margin_s_family_marks_no_win_for_a_non_inferior_row():
    scores = {"base": A, "same": A + np.random.default_rng(105).normal(0.0, 0.03, N)}
    fam = pairboot.compare_many(scores, baseline="base", hypothesis="non-inferiority",
                                margin=0.05, n_resamples=2000, seed=3)
    (c,) = fam.comparisons
    assert c.significant and c.verdict == "non-inferior"
    assert "<sup>" not in render_family(fam, "markdown")  # (non-inferior is no win)


def test_detectability_is_said_only_beside_an_inconclusive_verdict():
    shown = pairboot.compare(A, B, n_resamples=2000, seed=3, hypothesis="non-inferiority",
                             margin=0.003)
    assert shown.detectable is False and shown.verdict() in ("better", "better-by-margin")
    assert "too small to detect" not in render(shown, "text")
    near = A + np.random.default_rng(106).normal(0.0, 0.05, N)
    blind = pairboot.compare(A, near, n_resamples=2000, seed=3, hypothesis="equivalence",
                             margin=0.004)
    assert blind.verdict() == "inconclusive" and blind.detectable is False
    assert "too small to detect 0.004" in " ".join(render(blind, "text").split())


def test_tost_json_bounds_its_two_p_values_one_sided():
    res = pairboot.compare(A, B, n_resamples=2000, seed=3, hypothesis="equivalence",
                           margin=0.5)
    out = json.loads(render(res, "json"))
    assert out["p_values"] == [0.0, 0.0]
    assert out["p_values_text"] == ["< 0.0015"] * 2  # (one-sided: about 3 / R)
    assert out["p_text"] == "< 0.0015"


def test_no_task_shown_better_says_so():
    strata = np.repeat(np.arange(3), N // 3 + 1)[:N]
    fam = pairboot.compare_strata(A, A - 0.02, strata=strata, n_resamples=500, seed=3)
    assert fam.partial_conjunction.count == 0
    assert len(fam.partial_conjunction.task_p_values) == 3
    assert "On no stratum is B shown better than A" in " ".join(
        render_family(fam, "text").split())

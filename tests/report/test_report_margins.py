"""Every format says a margin's hypothesis in words, its verdict and the level of its
interval; a family's formats say its false discovery rate and its partial conjunction.

References: the hypothesis as the issue writes it ("H0: B is worse than A by 0.005 or
more"); the numbers against the result's own fields.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import pairboot
from pairboot.report import WRITERS, render, render_family
from pairboot.report.formats import md, tex

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
    words = {"non-inferior": "is not worse than A by 0.02 or more (non-inferior)",
             "better-by-margin": "is better than A by more than 0.02",
             "equivalent": "is equivalent to A within +-0.02",
             "better": "is better than A", "inconclusive": "Not shown"}
    assert words[res.verdict()] in first, first


def test_writers_are_all_covered():
    assert set(WRITERS) == {"text", "json", "markdown", "latex"}


@pytest.fixture(scope="module")
def fdr_family():
    scores = {"base": A, "v1": B, "v2": A + RNG.normal(0.0, 0.05, N),
              "v3": A + RNG.normal(-0.02, 0.05, N)}
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


@pytest.fixture(scope="module")
def tasks():
    strata = np.repeat(np.arange(5), N // 5)
    b = A + np.where(strata < 2, 0.05, 0.0) + RNG.normal(0, 0.02, N)
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

"""The reports of a prediction-powered comparison: the three estimates side by side in
text, Markdown and JSON, the judge's bias, lam and the labels the judge is worth."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import pairboot
from pairboot.report import formats_of, render
from pairboot.report.ppi import ppi_annotations


@pytest.fixture(scope="module")
def result():
    rng = np.random.default_rng(0)
    quality = rng.normal(0.5, 0.2, (400, 2)) + [0.0, 0.05]
    judge = quality + [0.1, 0.0] + rng.normal(0, 0.05, (400, 2))  # (A's flattered)
    gold = np.where(rng.random(400)[:, None] < 0.25, quality, np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pairboot.compare_ppi(judge[:, 0], judge[:, 1], gold_a=gold[:, 0],
                                    gold_b=gold[:, 1], seed=1, n_resamples=1000)


def test_its_formats_are_every_report():
    assert formats_of(pairboot.PPIResult) == ("text", "json", "markdown", "latex", "github",
                                              "html")


def test_the_latex_is_a_float_of_both_tables_in_math_mode(result):
    out = render(result, "latex", name_a="base_1", name_b="new")
    lines = out.splitlines()
    assert lines[0].startswith("% pairboot ") and "| ppi percentile |" in lines[0]
    assert lines[1] == r"% needs \usepackage{booktabs}"
    assert out.count(r"\begin{tabular}") == 2 and out.count(r"\begin{table}") == 1
    row = next(line for line in lines if line.startswith("judge only (biased) &"))
    assert r"$-0.034$ & [$-0.064$, $-0.008$]" in row  # (a minus, not a hyphen)
    assert r"new - base\_1" in out and "base_1" not in out.replace(r"base\_1", "")
    caption = next(line for line in lines if line.startswith(r"\caption{"))
    assert "worth 320 gold labels" in caption and r"95\% interval" in caption
    assert r"base\_1 & $-0.1009$" in out  # (the judge's bias, per system)
    note = lines[lines.index(r"\par\smallskip") + 1]
    assert note.startswith(r"{\footnotesize The gold labels must be a random sample")


def test_the_latex_escapes_the_names_and_notes_the_warnings(result):
    import dataclasses

    warned = dataclasses.replace(result, warnings=("only 7% of items & 50$ labelled",))
    out = render(warned, "latex", name_a="a&b", name_b="50%")
    assert r"a\&b" in out and r"50\%" in out and "a&b" not in out
    assert r"\emph{Warning: only 7\% of items \& 50\$ labelled}" in out
    assert out.rstrip().splitlines()[-1] == "% warning: only 7% of items & 50$ labelled"


def test_the_github_summary_and_its_annotation(result):
    from pairboot.report.ppi import ppi_annotations

    out = render(result, "github", name_a="base", name_b="new|x")
    assert out.startswith("### pairboot: new\\|x (B) against base (A), prediction-powered\n\n")
    assert out.endswith(render(result, "markdown", name_a="base", name_b="new|x"))
    # The judge flatters A (its bias of B - A excludes 0): one warning on the run.
    (line,) = ppi_annotations(result)
    assert line.startswith("::warning title=pairboot judge::The judge favours A")
    import dataclasses

    fair = dataclasses.replace(result, bias_p_value=0.5)
    assert ppi_annotations(fair) == []


def test_the_html_page_and_fragment(result):
    page = result.to_html(name_a="<base>")
    assert page.startswith("<!DOCTYPE html>") and "&lt;base&gt;" in page
    assert "judge only (biased)" in page and "prediction-powered" in page
    fragment = result._repr_html_()
    assert fragment.startswith('<div class="pairboot pairboot-ppi">')
    assert "judge&#x27;s bias" in fragment or "judge's bias" in fragment


def test_the_text_shows_the_three_estimates_side_by_side(result):
    out = render(result, "text", name_a="base", name_b="new")
    lines = out.splitlines()
    assert lines[0].startswith("Prediction-powered new - base = +0.071")
    assert "new is better than base" in lines[0]
    rows = {line.split("  ")[1].strip(): line for line in lines
            if line.startswith("  ") and ("only" in line or "powered" in line)}
    assert set(rows) == {"judge only (biased)", "gold labels only", "prediction-powered"}
    assert "-0.034" in rows["judge only (biased)"]  # (the judge flips the sign)
    assert "+0.105" in rows["gold labels only"] and "117" in rows["gold labels only"]
    assert "117 gold of 400" in rows["prediction-powered"]
    assert f"lam = {result.lam:.3g}" in out and "worth 320 gold labels" in out
    assert "random sample" in out and "judge's bias (gold - judge)" in out
    assert str(result) == render(result, "text")


def test_the_markdown_has_both_tables(result):
    out = render(result, "markdown")
    assert "| judge only (biased) | -0.034 |" in out
    assert "| B - A | +0.099" in out  # (the judge's bias of B - A: it favours A)
    assert out.splitlines()[0].startswith("**Prediction-powered B - A")


def test_the_json_holds_every_estimate(result):
    out = json.loads(render(result, "json", name_a="x"))
    assert out["name_a"] == "x" and out["verdict"] == "better"
    assert out["estimate"] == pytest.approx(result.estimate)
    for kind in ("judge_only", "gold_only", "prediction_powered"):
        assert set(out[kind]) >= {"estimate", "confidence_interval", "score_a", "score_b"}
    assert out["lam"] == result.lam and out["n_gold"] == 117
    assert out["bias"]["estimate"] == pytest.approx(result.bias.estimate)
    assert "bootstrap_distribution" not in out


def test_the_p_value_reads_as_compare_s_report_writes_one():
    """A p-value below what the resamples resolve is "p < X", never "p = 0 (< X)"; the
    closed form's tiny one "p < 0.0001"; others with compare's decimals."""
    rng = np.random.default_rng(0)
    quality = rng.normal(0.5, 0.2, (400, 2)) + [0.0, 0.15]
    judge = quality + [0.1, 0.0] + rng.normal(0, 0.05, (400, 2))
    gold = np.where(rng.random(400)[:, None] < 0.25, quality, np.nan)
    kw = dict(gold_a=gold[:, 0], gold_b=gold[:, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        boot = pairboot.compare_ppi(judge[:, 0], judge[:, 1], seed=1, n_resamples=1000, **kw)
        clt = pairboot.compare_ppi(judge[:, 0], judge[:, 1], method="clt", **kw)
    assert boot.p_value == 0.0 and boot.bias_p_value == 0.0
    first = str(boot).splitlines()[0]
    assert ", p < 0.006 (difference):" in first and "p = 0" not in str(boot)
    assert "(gold - judge +0.0994, p < 0.006)" in str(boot)
    assert ", p < 0.0001 (difference):" in str(clt).splitlines()[0]
    import dataclasses

    some = dataclasses.replace(boot, p_value=0.0123456, bias_p_value=float("nan"))
    assert ", p = 0.012 (difference)" in str(some) and "p = n/a)" in str(some)


def test_a_judge_on_another_scale_is_not_said_to_favour_a_system():
    """With clip=False (chrF against MQM) gold - judge subtracts one scale from another:
    no 'favours' sentence and no GitHub warning, whatever its p-value."""
    rng = np.random.default_rng(3)
    gold = rng.normal(-5.0, 2.0, (300, 2)) + [0.0, 1.0]
    judge = 0.02 * gold + 0.9 + rng.normal(0, 0.01, (300, 2))
    gold = np.where(rng.random(300)[:, None] < 0.3, gold, np.nan)
    res = pairboot.compare_ppi(judge[:, 0], judge[:, 1], gold_a=gold[:, 0],
                               gold_b=gold[:, 1], clip=False, method="clt")
    assert res.tuning == "free" and res.bias_p_value < 0.05
    text = str(res)
    assert "The judge favours" not in text
    assert "says nothing of whether the judge favours" in text
    assert ppi_annotations(res) == []
    clipped = pairboot.compare_ppi(judge[:, 0], judge[:, 1], gold_a=gold[:, 0],
                                   gold_b=gold[:, 1], method="clt")
    assert "The judge favours A: its B - A lies" in str(clipped) and ppi_annotations(clipped)

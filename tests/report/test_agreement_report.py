"""The reports of two raters' agreement beyond text (tests/comparisons/test_agreement.py
has those): LaTeX and GitHub's step summary, and the raters' names from a context."""

from __future__ import annotations

import dataclasses
import json

import pytest

import pairboot
from pairboot.report import formats_of, render

JUDGE = [1, 1, 0, 1, 0, 1, 1, 0, 1, 1] * 10
HUMAN = [1, 1, 0, 1, 1, 1, 0, 0, 1, 1] * 10


@pytest.fixture(scope="module")
def result():
    return pairboot.agreement(JUDGE, HUMAN, statistics=("kappa", "accuracy"), seed=1,
                              n_resamples=300)


def test_its_formats_are_every_report():
    assert formats_of(pairboot.AgreementResult) == ("text", "json", "markdown", "latex",
                                                    "github", "html")


def test_the_default_text_names_no_rater(result):
    out = render(result, "text")
    assert out.startswith("Agreement of two raters on 100 items") and "A \\ B" in out
    assert out == str(result)


def test_the_raters_names(result):
    out = render(result, "text", name_a="judge", name_b="human")
    assert out.startswith("Agreement of two raters (judge and human) on 100 items")
    assert "judge \\ human" in out
    js = json.loads(render(result, "json", name_a="judge", name_b="human"))
    assert (js["name_a"], js["name_b"]) == ("judge", "human")
    assert "name_a" not in json.loads(render(result, "json"))


def test_the_latex(result):
    out = render(result, "latex", name_a="gpt_4", name_b="people")
    lines = out.splitlines()
    assert lines[0].startswith("% pairboot ") and "agreement percentile" in lines[0]
    assert lines[1] == r"% needs \usepackage{booktabs}"
    assert "Cohen's kappa & $0.524$ & [$" in out and "accuracy & $0.800$" in out
    assert r"gpt\_4 \textbackslash{} people & 0 & 1 \\" in out
    assert r"0 & $20$ & $10$ \\" in out  # (a category names its row: text)
    assert r"\caption{Agreement of two raters (gpt\_4 and people) on 100 items" in out
    warned = dataclasses.replace(result, warnings=("50% & more",))
    out = render(warned, "latex")
    assert r"\emph{Warning: 50\% \& more}" in out and out.endswith("% warning: 50% & more\n")


def test_the_github_summary(result):
    out = render(result, "github", name_a="judge", name_b="<b>")
    assert out.startswith("### pairboot: agreement of two raters: judge and \\<b>\n\n")
    assert out.endswith(render(result, "markdown", name_a="judge", name_b="<b>"))
    assert render(result, "github").startswith("### pairboot: agreement of two raters\n\n")

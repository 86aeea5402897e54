"""The reports of a family of prediction-powered comparisons (compare_ppi_many): the
LaTeX float and GitHub's step summary beside the text, Markdown, JSON and HTML."""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest

import pairboot
from pairboot.report import formats_of, render


@pytest.fixture(scope="module")
def family():
    rng = np.random.default_rng(3)
    n = 300
    u = rng.normal(size=n)
    gold = u[:, None] + [0.0, 0.2, 0.25] + rng.normal(0, 0.5, (n, 3))
    judge = gold + [0.3, 0.0, 0.0] + rng.normal(0, 0.5, (n, 3))
    gold = np.where(rng.random(n)[:, None] < 0.3, gold, np.nan)
    names = ("base_1", "a&b", "50%")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pairboot.compare_ppi_many(dict(zip(names, judge.T)), dict(zip(names, gold.T)),
                                         n_resamples=400, seed=2)


def test_its_formats_are_every_report():
    assert formats_of(pairboot.PPIFamilyResult) == ("text", "json", "markdown", "latex",
                                                    "github", "html")


def test_the_latex_is_a_float_of_both_tables_in_math_mode(family):
    out = render(family, "latex")
    lines = out.splitlines()
    assert lines[0].startswith("% pairboot ") and "| ppi family percentile |" in lines[0]
    assert lines[1] == r"% needs \usepackage{booktabs}"
    assert out.count(r"\begin{tabular}") == 2 and out.count(r"\begin{table}") == 1
    # the names escaped, every number in math mode (a minus, not a hyphen)
    row = next(line for line in lines if line.startswith(r"a\&b - base\_1 &"))
    cells = [c.strip() for c in row.removesuffix(r"\\").split("&")][2:]  # (after a\&b)
    assert all(c.startswith(("$", "[$")) for c in cells[:-1]), cells
    assert r"\%" in out and "base_1" not in out.replace(r"base\_1", "")
    caption = next(line for line in lines if line.startswith(r"\caption{"))
    assert "3 comparisons of 3 systems" in caption and "simultaneous" in caption
    assert "random sample" not in caption  # (a note under the tables)
    note = lines[lines.index(r"\par\smallskip") + 1]
    assert note.startswith(r"{\footnotesize The gold labels must be a random sample")
    system = next(line for line in lines if line.startswith(r"base\_1 &"))
    assert "$-0." in system  # (the judge flatters base_1: its bias is negative)


def test_the_latex_notes_the_warnings(family):
    warned = dataclasses.replace(family, warnings=("only 7% of items & 50$ labelled",))
    out = render(warned, "latex")
    assert r"\emph{Warning: only 7\% of items \& 50\$ labelled}" in out
    assert out.rstrip().splitlines()[-1] == "% warning: only 7% of items & 50$ labelled"


def test_the_github_summary_is_the_markdown_under_a_heading(family):
    out = render(family, "github")
    assert out.startswith("### pairboot: prediction-powered comparisons\n\n")
    assert out.endswith(render(family, "markdown"))
    assert "3 comparisons of 3 systems" in out.splitlines()[2]


def test_the_p_values_read_as_compare_s_tables_write_them(family):
    """An adjusted p-value the resamples cannot resolve is "< X" (in math mode in the
    LaTeX), never "0"; the others with compare's decimals, not ``.3g``'s."""
    rows = (dataclasses.replace(family.comparisons[0], p_value=0.0),
            dataclasses.replace(family.comparisons[1], p_value=0.02332),
            dataclasses.replace(family.comparisons[2], p_value=0.4421))
    res = dataclasses.replace(family, comparisons=rows)
    from pairboot.report.ppi_family import comparisons_table

    table = comparisons_table(res)
    k = table.head.index("p (adjusted)")
    assert [r[k] for r in table.rows] == ["< 0.015", "0.023", "0.442"]  # (400 resamples)
    assert "< 0.015" in str(res) and "0.0233" not in str(res)
    first = next(line for line in render(res, "latex").splitlines()
                 if line.startswith(r"a\&b - base\_1 &"))
    assert r"& $< 0.015$ &" in first

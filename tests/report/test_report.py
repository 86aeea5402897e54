"""The reports of two systems (text, Markdown, LaTeX, JSON) and how a result prints.

- a p-value the resamples cannot resolve prints as its bound in every format, and the
  JSON carries the bound and the text beside the number;
- a p-value near the level is printed with the digits that keep it on its side;
- the LaTeX table is a booktabs table whose caption names the design;
- the Markdown report carries the runs' variance table; the reading of several runs
  says when the runs, not the items, are the limit.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import re

import numpy as np
import pytest
from helpers import PROJECT_ROOT
from scipy.stats import t as t_dist

import pairboot
from pairboot import report
from pairboot.report.formats import tex_p
from pairboot.report.parts import p_cell
from pairboot.results.compare import (
    CompareResult,
    ConfidenceInterval,
    StratumResult,
    SystemScore,
)
from pairboot.stats.pvalues import p_resolution, p_upper_bound

EXAMPLES = PROJECT_ROOT / "examples"


def result(**changes) -> CompareResult:
    """A result whose fields are set by hand (no resampling)."""
    fields = dict(
        estimate=0.03, confidence_interval=ConfidenceInterval(0.01, 0.05),
        confidence_level=0.95, method="percentile", standard_error=0.01, p_value=0.0,
        bootstrap_distribution=np.zeros(3),
        score_a=SystemScore(0.5, ConfidenceInterval(0.45, 0.55), 0.02),
        score_b=SystemScore(0.53, ConfidenceInterval(0.48, 0.58), 0.02),
        n_items=100, n_groups=None, n_strata=None, n_resamples=10_000, seed=12345,
        warnings=(), metric="mean", paired=True, group_weighting=None, strata=(),
        monte_carlo_error=ConfidenceInterval(0.001, 0.001), engine="numpy",
        version=pairboot.__version__,
    )
    fields.update(changes)
    return CompareResult(**fields)


# --------------------------------------------------------------- p below the resolution


@pytest.mark.parametrize("r", [20, 100, 1_000, 2_000, 9_999, 10_000, 123_457])
def test_the_resolution_is_the_exact_binomial_bound_rounded_up(r):
    """0 of R resamples beyond 0 is as likely as 5% when the share beyond is
    ``1 - 0.05^(1/R)``; the two-sided p doubles the share.  The printed bound is that,
    rounded up to two significant digits: never below it, at most 10% above."""
    exact = 2 * (1 - 0.05 ** (1 / r))
    bound = p_resolution(r)
    assert exact <= bound <= min(1.0, exact * 1.1)
    assert (1 - bound / 2) ** r <= 0.05  # a share of bound / 2 shows 0 of R at most 5%
    assert len(f"{bound:.2g}") >= len(repr(bound))  # two significant digits, exactly


def test_a_p_of_zero_is_never_printed_as_zero_or_as_one_over_r():
    res = result(strata=(StratumResult(
        "web", 1.0, 100, None, 0.03, ConfidenceInterval(0.01, 0.05), 0.01, 0.0,
        SystemScore(0.5, ConfidenceInterval(0.45, 0.55), 0.02),
        SystemScore(0.53, ConfidenceInterval(0.48, 0.58), 0.02)),), n_strata=1)
    text, md, tex = (report.render(res, f) for f in ("text", "markdown", "latex"))
    for out in (text, md):
        assert "p < 0.0006" in out and "1/10,000" not in out and "p = 0" not in out
        assert "none of the 10,000 resamples" in out  # what the bound means, once
    assert report.headline(res).endswith(", p < 0.0006.")
    assert "$< 0.0006$" in tex and "10,000$" not in tex
    assert "p_value=0 (< 0.0006)" in repr(res) and "\n" not in repr(res)
    data = json.loads(report.write_json(res))
    assert data["p_value"] == 0.0  # the number computed, as the scripts read it
    assert (data["p_value_upper_bound"], data["p_text"]) == (0.0006, "< 0.0006")
    stratum = data["strata"][0]
    assert (stratum["p_value_upper_bound"], stratum["p_text"]) == (0.0006, "< 0.0006")
    # a p the resamples resolve is its own bound and text
    data = json.loads(report.write_json(result(p_value=0.0123)))
    assert (data["p_value_upper_bound"], data["p_text"]) == (0.0123, "0.012")
    assert "p_value=0.0123," in repr(result(p_value=0.0123))


def test_every_p_below_the_resolution_prints_one_way():
    """0, a p interpolated between two resamples, and max-t's 1 / (R + 1): one text."""
    r = 10_000
    cells = {p_cell(p, r) for p in (0.0, 3e-5, 1 / (r + 1), 0.0003, 0.000599)}
    assert cells == {"< 0.0006"}
    assert p_cell(0.0007, r) == "0.0007"
    # a closed form (the normal interval, several runs' t) is exact however small
    assert p_cell(3e-6, r, resampled=False) == "< 0.0001"
    assert p_upper_bound(3e-6, r, resampled=False) == 3e-6
    tiny = result(method="normal", p_value=3e-6)
    assert "p < 0.0001" in report.write_text(tiny)
    assert json.loads(report.write_json(tiny))["p_value_upper_bound"] == 3e-6
    # with few resamples the bound is loose, and says so: no p < 0.05 from 100 resamples
    assert (p_cell(0.0, 50), p_cell(0.0, 100)) == ("< 0.12", "< 0.06")


@pytest.mark.parametrize(("p", "text"), [
    (0.0498, "0.0498"), (0.04996, "0.04996"), (0.049999, "0.049999"), (0.05, "0.050"),
    (0.05004, "0.050"), (0.0512, "0.051"), (0.43, "0.430"),
])
def test_a_p_near_the_level_keeps_its_side(p, text):
    cell = p_cell(p, 10_000, alpha=0.05)
    assert cell == text
    assert (float(cell) < 0.05) == (p < 0.05)


def test_the_headline_p_keeps_its_side_of_the_level():
    res = result(p_value=0.0498, confidence_interval=ConfidenceInterval(0.0001, 0.05))
    assert report.headline(res).endswith("p = 0.0498.")
    res = result(p_value=0.00996, confidence_level=0.99,
                 confidence_interval=ConfidenceInterval(0.0001, 0.05))
    assert "p = 0.00996" in report.headline(res)


# --------------------------------------------------------------------------------- latex


@pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")
def test_latex_is_a_booktabs_table_with_a_caption_naming_the_design():
    rng = np.random.default_rng(5)
    n = 120
    a = rng.random(n)
    b = a + rng.normal(0.05, 0.1, n)
    docs = np.repeat(np.arange(30), 4)
    strata = np.where(docs < 15, "web", "news")
    res = pairboot.compare(a, b, groups=docs, strata=strata, n_resamples=500, seed=1)
    ctx = report.ReportContext(name_a="base", name_b="new", group="doc", stratum="source")
    tex = report.write_latex(res, ctx)
    assert r"\hline" not in tex and r"% needs \usepackage{booktabs}" in tex
    for rule in (r"\toprule", r"\midrule", r"\bottomrule", r"\begin{table}",
                 r"\end{table}", r"\caption{"):
        assert rule in tex, rule
    caption = tex[tex.index(r"\caption{"):]
    assert "cluster bootstrap over 30 groups (doc) in 2 strata (source)" in caption
    assert "500 resamples, seed 1" in caption
    # every brace closes, and no comma sits in math mode (it would print as "10, 000")
    body = tex.replace(r"\{", "").replace(r"\}", "")
    assert body.count("{") == body.count("}")
    assert not any("," in m for m in re.findall(r"\$([^$]*)\$", tex))
    assert tex_p("< 1/10,000") == "$< 1/10{,}000$" and tex_p("<= 1") == r"$\leq 1$"


# -------------------------------------------------------------------------------- runs


def seed_runs():
    """examples/seed_runs.csv as items x runs tables of systems a and b."""
    with open(EXAMPLES / "seed_runs.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    ids = sorted({r["id"] for r in rows})
    runs = sorted({r["run"] for r in rows})
    index = {(r["id"], r["run"]): r for r in rows}
    table = {s: np.array([[float(index[i, k][s]) for k in runs] for i in ids])
             for s in ("a", "b")}
    return table["a"], table["b"]


@pytest.fixture(scope="module")
def runs_result():
    a, b = seed_runs()
    return pairboot.compare(a, b, runs="seeds", n_resamples=2000, seed=3)


def test_the_reading_says_what_no_number_of_items_can_detect(runs_result):
    """With few seeds the runs' variance floor bounds what more items can detect: the
    reading gives that smallest difference, by hand from the components (t quantiles at
    the df), and the headline the one this size detects; neither reasons from the
    observed difference."""
    res = runs_result
    assert not res.excludes_zero and not hasattr(res, "items_needed")
    runs = res.runs
    floor = runs.projection(n_items=10**12)["floor"]
    df = runs.degrees_of_freedom
    limit = (t_dist.ppf(0.975, df) + t_dist.ppf(0.8, df)) * math.sqrt(floor)
    d = report.decimals(res.standard_error)
    reading = res.reading
    assert (f"With 5 seeds each, no number of items detects a difference smaller than "
            f"+-{limit:.{d}f} 80% of the time") in reading and "more seeds can" in reading
    assert "300 items and 5 seeds each do not tell A and B apart" in reading
    mde = (t_dist.ppf(0.975, df) + t_dist.ppf(0.8, df)) * res.standard_error
    assert res.minimum_detectable == pytest.approx(mde, rel=1e-9)
    headline = report.headline(res)
    assert f"this size detects a difference of +-{mde:.{d}f} or more" in headline
    assert "would be needed" not in headline + reading
    assert "95% interval over 300 items and 5 seeds each" in headline


@pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")
def test_the_reading_says_when_more_seeds_narrow_more_than_more_items():
    """More items would detect the difference, but twice the seeds narrow the interval
    more than twice the items: the reading says both."""
    rng = np.random.default_rng(4)
    n, r = 200, 3
    item = rng.normal(0, 0.3, (n, 1))
    a = item + rng.normal(0, 0.3, (n, r)) + rng.normal(0, 0.03, (1, r))
    b = item + 0.03 + rng.normal(0, 0.3, (n, r)) + rng.normal(0, 0.03, (1, r))
    res = pairboot.compare(a, b, runs="seeds", n_resamples=500, seed=2)
    items = res.projection(n_items=2 * n)["width_ratio"]
    seeds = res.projection(runs_factor=2.0)["width_ratio"]
    assert not res.excludes_zero and seeds < items
    df = res.runs.degrees_of_freedom
    mde = (t_dist.ppf(0.975, df) + t_dist.ppf(0.8, df)) * res.standard_error
    assert res.minimum_detectable == pytest.approx(mde, rel=1e-9)
    d = report.decimals(res.standard_error)
    assert (f"At this size and 3 seeds each a true difference of +-{mde:.{d}f} or more would "
            "be detected 80% of the time") in res.reading
    assert "More seeds narrow the interval more than more items" in res.reading
    assert f"{(1 - seeds) * 100:.0f}% narrower" in res.reading
    assert "The runs are the limit" not in res.reading


def test_markdown_carries_the_runs_variance_table(runs_result):
    md = report.write_markdown(runs_result)
    assert "**Runs: 5 seeds each; variance of B - A" in md
    assert "|  | component | variance | share of V |" in md
    for system, part in (("A", "run"), ("B", "residual"), ("B - A", "item")):
        assert re.search(rf"^\| {re.escape(system)} \| {part} \| ", md, re.M), (system, part)
    assert "With twice the items the interval would be" in md
    # the text report has the same table
    assert "Runs: 5 seeds each; variance of B - A" in report.write_text(runs_result)


def test_a_t_interval_p_is_a_closed_form(runs_result):
    """Several runs' p is the t interval's: no resolution of the resamples applies."""
    tiny = dataclasses.replace(runs_result, p_value=1e-7)
    data = json.loads(report.write_json(tiny))
    assert data["p_value_upper_bound"] == 1e-7 and data["p_text"] == "< 0.0001"
    assert math.isclose(data["p_value"], 1e-7)

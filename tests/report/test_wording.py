"""Numbers and words that read wrong (issue 33): a level printed to ten digits, "No
verdict" above a p-value that reads as significant, "1.0 times narrower", "1 item
are too few".  Each test builds the case the issue found and reads every format that
prints it."""

from __future__ import annotations

import html
import json
import re
import warnings

import numpy as np
import pytest

import pairboot
from pairboot.report import render, render_family
from pairboot.report.numbers import percent


def quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(*args, **kwargs)


@pytest.mark.parametrize(("level", "text"), [
    (0.95, "95%"), (0.999, "99.9%"), (0.9, "90%"), (0.5, "50%"), (0.99999, "99.999%"),
    (1 - 0.05 / 1.2, "95.83%"), (1 - 2 * 0.05 / 3, "96.67%"), (1 - 0.05 / 12, "99.583%"),
    (1 - 0.05 / 1200, "99.99583%"), (2 * 0.95 - 1, "90%")])
def test_a_level_prints_with_sensible_digits(level, text):
    # a level as given prints as given; one computed from others (a false-coverage
    # level) with three significant digits of its complement, never rounded to 100%
    assert percent(level) == text


@pytest.mark.parametrize("fmt", ["text", "markdown", "latex", "html"])
def test_the_fcr_level_is_not_printed_to_ten_digits(fmt):
    rng = np.random.default_rng(0)
    a = rng.random(300)
    scores = {"base": a, "v1": a + rng.normal(0.05, 0.1, 300),
              "v2": a + rng.normal(0.01, 0.1, 300), "v3": a + rng.normal(0.0, 0.1, 300)}
    fam = pairboot.compare_many(scores, baseline="base", correction="bh", seed=1,
                                n_resamples=999)
    assert fam.fcr_level == pytest.approx(1 - 0.05 / 3)  # (R = 1 of m = 3: 98.333...%)
    out = html.unescape(render_family(fam, fmt))
    assert re.search(r"\d\.\d{5,}\s*\\?%", out) is None, out
    assert percent(fam.fcr_level).replace("%", "") in out


FEW_A, FEW_B = [0.1, 0.2, 0.3, 0.4], [0.5, 0.6, 0.7, 0.9]


@pytest.mark.parametrize("fmt", ["text", "markdown", "latex", "json", "html", "github"])
def test_no_verdict_is_not_printed_above_a_p_that_reads_significant(fmt):
    # 4 items that all favour B: every resample favours B, so the bootstrap's p is 0
    # ("< 0.0006"), while no test of 4 items can reject at 95% (the smallest exact p is
    # 2^(1 - 4) = 0.125) and the verdict is undefined: the p-value is not given
    res = quiet(pairboot.compare, FEW_A, FEW_B, seed=1)
    assert res.verdict() == "undefined" and res.p_value == 0.0
    out = html.unescape(render(res, fmt))
    if fmt == "json":
        data = json.loads(out)
        assert data["p_text"].startswith("n/a") and data["p_value_upper_bound"] is None
        out = data["p_text"] + data["decision"]["headline"]
    assert "No verdict" in out or fmt == "latex"  # (LaTeX: a table, no headline)
    assert "< 0.0006" not in out and "p < " not in out
    if fmt != "latex":
        assert "4 items are too few for any test at the 95% level" in out
    else:
        assert "& n/a \\\\" in out


@pytest.mark.parametrize("fmt", ["text", "markdown", "latex", "json", "html", "github"])
def test_a_stratum_with_too_few_items_prints_no_p(fmt):
    """A stratum of 4 items beside one of 36: the whole comparison has its test, the
    small stratum's row does not (its bootstrap p of 0.009 read as evidence that no
    test of 4 items can give), as a comparison of 4 items says n/a."""
    rng = np.random.default_rng(0)
    a = rng.random(40)
    b = a + rng.normal(0.05, 0.1, 40)
    res = quiet(pairboot.compare, a, b, strata=["big"] * 36 + ["tiny"] * 4, seed=1)
    tiny = res.strata[1]
    assert tiny.n_items == 4 and 0 < tiny.p_value < 0.05  # (kept as data)
    out = html.unescape(render(res, fmt))
    if fmt == "json":
        rows = {s["name"]: s for s in json.loads(out)["strata"]}
        assert rows["tiny"]["p_value_upper_bound"] is None
        assert rows["tiny"]["p_text"] == (
            "n/a: 4 items are too few for any test at the 95% level")
        assert rows["big"]["p_text"] == "< 0.0006"
        return
    row = next(line for line in out.splitlines() if "tiny" in line and "0.100" in line)
    assert "n/a" in row and "0.009" not in row, row


def test_a_margins_test_with_too_few_items_does_not_say_it_rejects():
    res = quiet(pairboot.compare, FEW_A, FEW_B, seed=1, hypothesis="non-inferiority",
                margin=0.05)
    text = " ".join(render(res, "text").split())
    assert "rejects H0" not in text and "(no verdict)" in text


@pytest.mark.parametrize(("r", "gain", "said"), [
    (0.03, 1.02, "pairing made little or no difference"),
    (-0.03, 0.97, "pairing made little or no difference"),
    (0.03, 1.049, "pairing made little or no difference"),
    (0.2, 1.06, "1.1 times narrower"),
    (-0.3, 0.8, "1.2 times wider"),
    (0.7, 1.8, "1.8 times narrower")])
def test_what_pairing_did_to_the_interval(r, gain, said):
    from pairboot.report.reading import pairing_text

    text = pairing_text(r, gain)
    assert said in text and "1.0 times" not in text


def test_the_pairing_line_of_a_weak_correlation():
    # independent scores (r near 0): the gain rounds to 1.0, "1.0 times narrower" it was
    rng = np.random.default_rng(0)
    a, b = rng.random(200), rng.random(200)
    res = pairboot.compare(a, b, seed=1, n_resamples=2000)
    # (r = -0.03, gain 0.98: "1.0 times wider" it was)
    assert abs(res.correlation) < 0.1 and f"{1 / res.pairing_gain:.1f}" == "1.0"
    assert "pairing made little or no difference" in res.reading
    assert "1.0 times" not in res.reading


def test_one_item_is_too_few_in_the_singular():
    res = quiet(pairboot.compare, [0.1], [0.5], seed=1)
    text = render(res, "text")
    assert text.startswith("No verdict: 1 item is too few")
    assert "1 item are" not in text and "of the 1 items" not in text
    assert "of the 1 item " in text  # (the items behind the number)
    # a family's row of one unit, within a stratum of one item
    rng = np.random.default_rng(0)
    a = rng.random(41)
    fam = quiet(pairboot.compare_strata, a, a + rng.normal(0.05, 0.1, 41),
                strata=np.r_[np.zeros(40), np.ones(1)], seed=1, n_resamples=999)
    assert fam.comparisons[1].note == "1 unit is too few for a decision at this level"


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_a_family_row_with_too_few_units_gives_no_p(fmt):
    # a stratum of 3 items that all favour B: p = 0 off its resamples, but no test of 3
    # can reject; the row's verdict is undefined and its p-values are not given
    rng = np.random.default_rng(1)
    a = rng.random(43)
    b = a + np.r_[rng.normal(0.0, 0.1, 40), [0.3, 0.4, 0.5]]
    fam = quiet(pairboot.compare_strata, a, b, strata=["x"] * 40 + ["y"] * 3, seed=1,
                n_resamples=999)
    row = fam.comparisons[1]
    assert row.verdict == "undefined" and row.p_value <= 1 / 1000  # (none beyond 0)
    assert row.note == "3 units are too few for a decision at this level"
    out = render_family(fam, fmt)
    if fmt == "json":
        got = json.loads(out)["comparisons"][1]
        assert got["p_text"] == got["p_adjusted_text"] == "n/a"
    else:
        line = next(x for x in out.splitlines() if "B [y] - A [y]" in x)
        assert "n/a" in line and "<" not in line, line

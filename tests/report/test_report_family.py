"""The reports of a family of comparisons (text, Markdown, LaTeX, JSON) and its forest plot.

The expected letters, counts and numbers are worked out here from the result's
comparisons (their ``significant`` flags, estimates and intervals), not by the report's
own helpers.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re

import numpy as np
import pytest

import pairboot
from pairboot.report import (
    FAMILY_WRITERS,
    UNPLANNED,
    WRITERS,
    FamilyContext,
    render_family,
)
from pairboot.report.numbers import decimals
from pairboot.results.compare import ConfidenceInterval
from pairboot.stats.pvalues import p_resolution

pytestmark = pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")

RNG = np.random.default_rng(13)
N = 120
BASE = RNG.random(N)
SCORES = {
    "base": BASE,
    "v1": BASE + RNG.normal(0.06, 0.08, N),
    "v2": BASE + RNG.normal(-0.005, 0.08, N),
    "v3": BASE + RNG.normal(0.02, 0.08, N),
}
R = 400
SEED = 5
HASH = "3f" * 32


def family(scores=SCORES, **kw):
    return pairboot.compare_many(scores, seed=SEED, n_resamples=R, backend="numpy", **kw)


@pytest.fixture(scope="module")
def pairs():
    return family()


@pytest.fixture(scope="module")
def baseline():
    return family(baseline="base")


def expected_beaten(result) -> dict[str, set[str]]:
    """Who is significantly better than whom, from the comparisons' flags and signs."""
    out = {name: set() for name in result.systems}
    for c in result.comparisons:
        if not c.significant:
            continue
        b_better = c.estimate < 0 if result.lower_is_better else c.estimate > 0
        winner, loser = (c.b, c.a) if b_better else (c.a, c.b)
        out[winner].add(loser)
    return out


def latex_letters(tex: str) -> dict[str, str]:
    """system -> its superscript letters, read off the LaTeX rows ``letter & name & $score$``."""
    out = {}
    for line in tex.splitlines():
        m = re.match(r"^([a-z]) & (.+?) & \$([^$]*)\$ & ", line)
        if m:
            sup = re.search(r"\^\{\\mathrm\{([^}]*)\}\}", m.group(3))
            out[m.group(2)] = sup.group(1) if sup else ""
    return out


def letters_to_names(result, text: str) -> set[str]:
    names = list(result.systems)
    return {names[ord(ch) - ord("a")] for ch in text}


# --- superscript letters ---------------------------------------------------------------------


@pytest.mark.parametrize("lower_is_better", [False, True])
def test_superscripts_name_the_systems_beaten_after_correction(lower_is_better):
    result = family(lower_is_better=lower_is_better)
    # the fixture must have both kinds of comparison, or the test could not fail
    assert 0 < sum(c.significant for c in result.comparisons) < len(result.comparisons)
    expected = expected_beaten(result)
    tex = render_family(result, "latex")
    found = latex_letters(tex)
    assert set(found) == set(result.systems)
    for name in result.systems:
        assert letters_to_names(result, found[name]) == expected[name], name
    md = render_family(result, "markdown")
    for name, beaten in expected.items():
        row = next(line for line in md.splitlines() if line.startswith("| ")
                   and line.split(" | ")[1] == name)
        sup = re.search(r"<sup>([a-z]+)</sup>", row)
        assert letters_to_names(result, sup.group(1) if sup else "") == beaten


def test_lower_is_better_turns_the_letters_around():
    higher = latex_letters(render_family(family(), "latex"))
    lower = latex_letters(render_family(family(lower_is_better=True), "latex"))
    assert higher["v1"] and not lower["v1"]  # the highest score beats all when higher is better
    assert "b" in lower["base"]  # and is beaten by the baseline when lower is better


def test_a_comparison_not_significant_gives_no_letter(pairs):
    # flip one significant comparison: its letter must go
    k = next(k for k, c in enumerate(pairs.comparisons) if c.significant)
    c = pairs.comparisons[k]
    flipped = dataclasses.replace(pairs, comparisons=tuple(
        dataclasses.replace(x, significant=False) if j == k else x
        for j, x in enumerate(pairs.comparisons)))
    winner = c.b if c.estimate > 0 else c.a
    loser = c.a if winner == c.b else c.b
    before = letters_to_names(pairs, latex_letters(render_family(pairs, "latex"))[winner])
    after = letters_to_names(pairs, latex_letters(render_family(flipped, "latex"))[winner])
    assert before - after == {loser}


# --- layouts ---------------------------------------------------------------------------------


def test_baseline_family_gets_the_baseline_layout(baseline, pairs):
    tex = render_family(baseline, "latex")
    assert r"$\Delta$ vs base" in tex and r"\mathrm{" not in tex
    assert r"\Delta" not in render_family(pairs, "latex")
    d = decimals(min(c.standard_error for c in baseline.comparisons))
    for c in baseline.comparisons:
        row = next(line for line in tex.splitlines() if line.startswith(f"{c.b} & "))
        star = "^{*}" if c.significant else ""
        assert f"${c.estimate:+.{d}f}{star}$" in row
        low, high = c.confidence_interval
        assert f"[${low:+.{d}f}$, ${high:+.{d}f}$]" in row
    assert any(not c.significant for c in baseline.comparisons)
    assert any(c.significant for c in baseline.comparisons)


def test_latex_is_a_booktabs_table_with_a_caption(pairs, baseline):
    for result in (pairs, baseline):
        tex = render_family(result, "latex")
        for rule in (r"\toprule", r"\midrule", r"\bottomrule"):
            assert tex.count(rule) == 1
        assert r"\usepackage{booktabs}" in tex
        caption = re.search(r"\\caption\{(.*)\}", tex).group(1)
        assert f"{len(result.comparisons)} comparisons" in caption
        assert "max-t" in caption and r"95\%" in caption
        assert f"{R} resamples" in caption and f"seed {SEED}" in caption


def test_latex_specials_in_names_are_escaped():
    names = ["a_1", "b&c", "50%", "x#y", "p$q", "t~u"]
    scores = {name: BASE + RNG.normal(0.02 * k, 0.08, N) for k, name in enumerate(names)}
    for result in (family(scores), family(scores, baseline="a_1")):
        tex = render_family(result, "latex")
        body = [line for line in tex.splitlines() if not line.startswith("%")]
        for escaped in (r"a\_1", r"b\&c", r"50\%", r"x\#y", r"p\$q", r"t\textasciitilde{}u"):
            assert escaped in tex
        for line in body:  # no special left bare: every & is a column separator
            bare = re.sub(r"\\[&%#$_]|\\textasciitilde\{\}", "", line)
            bare = re.sub(r"\$[^$]*\$", "", bare)  # (math: the numbers)
            assert not re.search(r"[_%#~]", bare), line
        rows = [line for line in body if line.endswith(r"\\")]
        columns = {len(re.findall(r"(?<!\\)&", line)) for line in rows}
        assert len(columns) == 1


# --- text ------------------------------------------------------------------------------------


def test_first_line_counts_the_significant_comparisons(pairs):
    first = render_family(pairs, "text").splitlines()[0]
    count = sum(c.significant for c in pairs.comparisons)
    assert 0 < count < len(pairs.comparisons)
    assert re.search(r": (\d+) significant", first).group(1) == str(count)
    assert first.startswith(f"4 systems, {len(pairs.comparisons)} comparisons (all pairs)")
    assert first.endswith(f"best: {pairs.best_set[0]}")
    fewer = dataclasses.replace(pairs, comparisons=tuple(
        dataclasses.replace(c, significant=False) for c in pairs.comparisons[:2]
    ) + pairs.comparisons[2:])
    drop = sum(c.significant for c in pairs.comparisons[:2])
    first = render_family(fewer, "text").splitlines()[0]
    assert re.search(r": (\d+) significant", first).group(1) == str(count - drop)


def test_text_marks_each_comparison_and_gives_its_numbers(pairs):
    text = render_family(pairs, "text")
    d = decimals(min(c.standard_error for c in pairs.comparisons))
    for c in pairs.comparisons:
        row = next(line for line in text.splitlines()
                   if line.startswith(f"  {c.b} - {c.a} "))
        assert f"{c.estimate:+.{d}f}" in row
        low, high = c.marginal_interval
        assert f"[{low:+.{d}f}, {high:+.{d}f}]" in row
        assert ("*" in row.split("]")[-1]) == c.significant  # (after the intervals)


def test_rows_notes_are_printed():
    result = family()
    noted = dataclasses.replace(result, comparisons=(
        dataclasses.replace(result.comparisons[0], note="a note for this row"),
        *result.comparisons[1:]))
    assert "a note for this row" not in render_family(result, "text")
    text = render_family(noted, "text")
    row = next(line for line in text.splitlines() if line.startswith("  v1 - base "))
    assert row.endswith("(1)")
    assert "(1) a note for this row" in text


def test_signature_line_ends_the_text(pairs):
    last = render_family(pairs, "text").rstrip("\n").splitlines()[-1]
    assert last.startswith(f"pairboot {pairs.version} | correction max-t")
    for part in (f"resamples {R}", "level 0.95", f"seed {SEED}", f"numpy {np.__version__}"):
        assert part in last


# --- plan, family note -----------------------------------------------------------------------


@pytest.mark.parametrize("fmt", sorted(FAMILY_WRITERS))
def test_plan_hash_printed_when_given(pairs, fmt):
    assert HASH not in render_family(pairs, fmt)
    assert UNPLANNED not in render_family(pairs, fmt)
    assert HASH in render_family(pairs, fmt, FamilyContext(plan_sha256=HASH))
    assert UNPLANNED in render_family(pairs, fmt, FamilyContext(family_note=UNPLANNED))


# --- json ------------------------------------------------------------------------------------


def test_json_round_trips(pairs):
    out = json.loads(render_family(pairs, "json", FamilyContext(plan_sha256=HASH)))
    for key, value in pairs.to_dict().items():
        if key == "comparisons":  # (each row adds its p-values' bounds and texts)
            value = [{**row, **{k: v for k, v in mine.items() if k not in row}}
                     for row, mine in zip(value, out[key])]
        assert out[key] == value, key
    assert out["plan_sha256"] == HASH
    assert out["signature"].startswith("pairboot ")
    assert {k: set(v) for k, v in out["better_than"].items()} == expected_beaten(pairs)


def test_json_writes_nan_as_null(pairs):
    c = pairs.comparisons[0]
    broken = dataclasses.replace(pairs, comparisons=(
        dataclasses.replace(c, confidence_interval=ConfidenceInterval(math.nan, math.inf)),
        *pairs.comparisons[1:]))
    text = render_family(broken, "json")
    assert "NaN" not in text and "Infinity" not in text
    assert json.loads(text)["comparisons"][0]["confidence_interval"] == {
        "low": None, "high": None}


# --- p-values: the resolution, the level, the JSON -----------------------------------------


def test_every_p_below_the_resolution_prints_one_way_in_every_table(pairs, baseline):
    """Max-t's smallest p is 1 / (R + 1); under holm and none a raw p can be 0: both are
    below what R resamples resolve and print as the same bound, in every format."""
    resolution = p_resolution(R)  # (0.015 for 400 resamples)
    bound = f"< {resolution:g}"
    holm = family(correction="holm", baseline="base")
    for result in (pairs, baseline, holm):
        assert any(min(c.p_value, c.p_adjusted) < 1 / R  # (0, or max-t's 1 / (R + 1))
                   for c in result.comparisons)
        text = render_family(result, "text")
        md = render_family(result, "markdown")
        for c in result.comparisons:
            row = next(line for line in text.splitlines()
                       if line.startswith(f"  {c.b} - {c.a} "))
            below = (c.p_value < resolution) + (c.p_adjusted < resolution)
            assert row.count(bound) == below and "1/" not in row
            md_row = next(line for line in md.splitlines()
                          if line.startswith(f"| {c.b} - {c.a} |"))
            assert md_row.count(bound) == below
        assert f"{bound}: below what {R} resamples can resolve" in text
        assert "1/400" not in md and "< 0.0001" not in md
    tex = render_family(baseline, "latex")
    assert f"${bound}$" in tex and not any(
        "," in m for m in re.findall(r"\$([^$]*)\$", tex))


def test_json_gives_each_p_its_bound_and_text(pairs):
    out = json.loads(render_family(pairs, "json"))
    bound = p_resolution(R)
    for row, c in zip(out["comparisons"], pairs.comparisons):
        assert row["p_value"] == c.p_value and row["p_adjusted"] == c.p_adjusted
        for name in ("p_value", "p_adjusted"):
            text = row["p_text" if name == "p_value" else "p_adjusted_text"]
            upper = row[f"{name}_upper_bound"]
            if row[name] < bound:
                assert (upper, text) == (bound, f"< {bound:g}")
            else:
                assert upper == row[name] and float(text) == pytest.approx(row[name], abs=6e-4)
        keys = list(row)  # each bound and text right after its p-value
        assert keys[keys.index("p_value") + 1:keys.index("p_value") + 3] == [
            "p_value_upper_bound", "p_text"]
        assert keys[keys.index("p_adjusted") + 1:keys.index("p_adjusted") + 3] == [
            "p_adjusted_upper_bound", "p_adjusted_text"]


def test_an_adjusted_p_just_below_the_level_is_not_printed_as_the_level(baseline):
    """0.0498 starred as "< 0.05" must not read "0.050"."""
    c = baseline.comparisons[0]
    near = dataclasses.replace(baseline, comparisons=(
        dataclasses.replace(c, p_value=0.031, p_adjusted=0.0498, significant=True),
        dataclasses.replace(baseline.comparisons[1], p_value=0.04, p_adjusted=0.0502,
                            significant=False),
        *baseline.comparisons[2:]))
    text = render_family(near, "text")
    first = next(line for line in text.splitlines() if line.startswith(f"  {c.b} - {c.a} "))
    assert "0.0498" in first and first.rstrip().endswith("*")
    second = near.comparisons[1]
    row = next(line for line in text.splitlines()
               if line.startswith(f"  {second.b} - {second.a} "))
    assert "0.050" in row and not row.rstrip().endswith("*")
    assert "0.0498" in render_family(near, "markdown")
    assert "$0.0498$" in render_family(near, "latex")
    assert json.loads(render_family(near, "json"))["comparisons"][0]["p_adjusted_text"] == (
        "0.0498")


# --- the design in the caption, print(result) -------------------------------------------------


@pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")
def test_caption_names_the_resampled_groups_and_strata():
    docs = np.repeat(np.arange(30), 4)
    strata = np.where(docs < 15, "web", "news")
    scores = {name: v for name, v in SCORES.items()}
    grouped = family(scores, groups=docs, strata=strata, baseline="base")
    ctx = FamilyContext(group="doc", stratum="source")
    for fmt in ("markdown", "latex"):
        out = render_family(grouped, fmt, ctx)
        assert "paired stratified cluster bootstrap over 30 groups (doc) in 2 strata " \
               "(source)" in out, fmt
    # without the context's column names, the counts still
    assert "over 30 groups in 2 strata" in render_family(grouped, "markdown")
    assert f"bootstrap over {N} items" in render_family(family(), "latex")


@pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")
def test_print_of_every_family_shows_its_report(pairs):
    strata = np.where(np.arange(N) < N // 2, "web", "news")
    by_stratum = pairboot.compare_strata(SCORES["base"], SCORES["v1"], strata=strata,
                                         n_resamples=R, seed=SEED, backend="numpy")
    rng = np.random.default_rng(2)
    runs = pairboot.compare_many(
        {name: v[:, None] + rng.normal(0, 0.05, (N, 3)) for name, v in SCORES.items()},
        runs="seeds", n_resamples=R, seed=SEED)
    for result in (pairs, by_stratum, runs):
        assert str(result) == result.summary() == render_family(result, "text")
        assert str(result).startswith(summary_line(result))
        assert "\n" not in repr(result) and repr(result).startswith("FamilyResult(")


def summary_line(result) -> str:
    from pairboot.report.family import summary

    return summary(result) + "\n"


# --- registry --------------------------------------------------------------------------------


def test_family_writers_have_the_two_system_formats(pairs):
    assert set(FAMILY_WRITERS) == set(WRITERS)
    with pytest.raises(ValueError, match="unknown report format 'pdf'"):
        render_family(pairs, "pdf")


# --- the forest plot -------------------------------------------------------------------------


matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")


@pytest.fixture
def plt():
    import matplotlib.pyplot as plt

    yield plt
    plt.close("all")


@pytest.mark.parametrize("kind", ["pairs", "baseline"])
def test_forest_plot_has_a_row_per_comparison_and_every_interval(plt, kind, request):
    from pairboot.plot import plot_family

    result = request.getfixturevalue(kind)
    ax = plot_family(result)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == [f"{c.b} − {c.a}" for c in result.comparisons]
    low, high = ax.get_xlim()
    for c in result.comparisons:
        for interval in (c.confidence_interval, c.marginal_interval):
            assert low < interval.low and interval.high < high
    assert low < 0 < high  # (0 is near enough here to be drawn)
    assert "max-t" in ax.get_title() and "95%" in ax.get_title()


@pytest.mark.slow
def test_forest_plot_keeps_its_labels_inside_the_figure(plt, pairs):
    import io

    from pairboot.plot import plot_family

    ax = plot_family(pairs)
    fig = ax.figure
    fig.savefig(io.BytesIO(), format="png")
    inside = fig.bbox
    for artist in [ax.title, ax.xaxis.label, *ax.texts, *fig.legends,
                   *ax.get_yticklabels()]:
        box = artist.get_window_extent()
        assert inside.x0 <= box.x0 and box.x1 <= inside.x1, artist
        assert inside.y0 <= box.y0 and box.y1 <= inside.y1, artist
    assert len(ax.texts) == len(pairs.comparisons)


def test_forest_plot_in_given_axes_keeps_the_legend_off_the_rows(plt, pairs):
    from pairboot.plot import plot_family

    fig, ax = plt.subplots(figsize=(6, 4))
    assert plot_family(pairs, ax) is ax
    assert fig.get_layout_engine() is None and not ax.texts
    fig.canvas.draw()
    legend = ax.get_legend().get_window_extent()
    rows = ax.transData.transform([(0, y) for y in range(len(pairs.comparisons))])[:, 1]
    assert all(not (legend.y0 <= y <= legend.y1) for y in rows)


def test_headers_do_not_borrow_the_systems_letters():
    """Systems named a and b: the only "b - a" in the report is the comparison's row, not
    a header that reads like it (the family's line says what each row subtracts)."""
    rng = np.random.default_rng(2)
    base = rng.random(60)
    res = pairboot.compare_many({"b": base, "a": base + rng.normal(0.02, 0.05, 60),
                                 "c": base + rng.normal(0, 0.05, 60)}, baseline="b",
                                n_resamples=1000, seed=1)
    for fmt in ("text", "markdown"):
        text = render_family(res, fmt)
        assert "b - a" not in text and "a - b" in text and "c - b" in text
    assert "(each minus b)" in render_family(res, "text")

"""The HTML report and the notebook's display, without a browser: well-formed HTML (an
HTML parser, not a regex), ``_repr_html_`` equal to ``to_html()``'s body, every name
escaped, nothing that would be fetched, the text report's digits, the tables alone
without matplotlib, ``--format html`` through the CLI's output, and ``to_frame()`` of
every result.  The browser's checks are in test_html_browser.py."""

from __future__ import annotations

import json
import re
import sys
from html.parser import HTMLParser

import numpy as np
import pytest

import pairboot
from pairboot.report import FamilyContext, ReportContext, render, render_family, render_power
from pairboot.report.html import STYLE, breakable, items_section

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
        "source", "track", "wbr"}
URL_ATTRS = {"src", "href", "xlink:href", "action", "poster", "srcset", "data", "formaction",
             "background", "cite", "longdesc", "manifest", "ping"}


class Checker(HTMLParser):
    """Tags balanced (void elements aside; SVG's ``<path/>`` close themselves), every
    URL-bearing attribute an in-page reference (``#...``) or inline data (``data:``: the
    matrix's colour bar is a PNG in the SVG), no script, no external
    stylesheet, no ``@import`` nor ``url()`` but ``url(#...)``; the texts of the
    ``data-field`` cells."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.fields: dict[str, str] = {}
        self._field: list[tuple[str, list[str]]] = []
        self.tags: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self._check(tag, attrs)
        if tag in VOID:
            return
        self.stack.append(tag)
        self._in_style = tag == "style"
        field = dict(attrs).get("data-field")
        self._field.append((field, []) if field else (None, []))

    def handle_startendtag(self, tag, attrs):
        self.tags.append(tag)
        self._check(tag, attrs)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else None}>")
            return
        self.stack.pop()
        self._in_style = False
        field, texts = self._field.pop()
        if field:
            self.fields[field] = "".join(texts)
        if self._field:  # (a field's text includes its children's)
            self._field[-1][1].extend(texts)

    def handle_data(self, data):
        if self._in_style:
            for bad in re.findall(r"@import|url\((?!#)", data):
                self.errors.append(f"style fetches: {bad}")
        if self._field:
            self._field[-1][1].append(data)

    def _check(self, tag, attrs):
        if tag in ("script", "iframe", "object", "embed", "base", "img", "link"):
            self.errors.append(f"<{tag}>")
        for name, value in attrs:
            if name in URL_ATTRS and not (value or "").startswith(("#", "data:")):
                self.errors.append(f"<{tag} {name}={value!r}>")
            if name.startswith("on"):
                self.errors.append(f"<{tag} {name}>")
            if name == "style" and value and re.search(r"url\((?!#)|@import", value):
                self.errors.append(f"<{tag} style={value!r}>")


def check_html(text: str) -> Checker:
    parser = Checker()
    parser.feed(text)
    parser.close()
    assert parser.errors == []
    assert parser.stack == [] or parser.stack == ["html", "body"] or parser.stack == ["html"]
    return parser


def body_of(page: str) -> str:
    return page.split("<body>\n", 1)[1].rsplit("</body>", 1)[0]


# ------------------------------------------------------------------------- the results

rng = np.random.default_rng(0)
A = rng.random(120)
B = A + rng.normal(0.04, 0.1, 120)
BIN_A = (rng.random(150) < 0.6).astype(float)
BIN_B = np.where(rng.random(150) < 0.2, 1 - BIN_A, BIN_A)
STRATA = np.repeat(["easy", "hard", "mid"], 40)


@pytest.fixture(scope="module")
def results():
    runs_a = A[:, None] + rng.normal(0, 0.05, (120, 3))
    runs_b = B[:, None] + rng.normal(0, 0.05, (120, 3))
    scores = {f"s{k}": A + rng.normal(0.02 * k, 0.1, 120) for k in range(4)}
    test = pairboot.compare(BIN_A, BIN_B, n_resamples=500, seed=3, test="mcnemar")
    return {
        "two": pairboot.compare(A, B, n_resamples=500, seed=1),
        "strata": pairboot.compare(A, B, strata=STRATA, n_resamples=500, seed=1),
        "runs": pairboot.compare(runs_a, runs_b, runs="seeds", n_resamples=500, seed=1),
        "test": test,
        "mcnemar": test.test,
        "family": pairboot.compare_many(scores, n_resamples=500, seed=1),
        "baseline": pairboot.compare_many(scores, baseline="s0", n_resamples=500, seed=1),
        "power": pairboot.power(sd=0.5, delta=0.1, power=0.8),
        "power_bin": pairboot.power(accuracy_a=0.7, accuracy_b=0.75, discordant=0.2,
                                    n_items=500),
    }


KINDS = ["two", "strata", "runs", "test", "mcnemar", "family", "baseline", "power",
         "power_bin"]


@pytest.mark.parametrize("kind", KINDS)
def test_repr_html_is_valid_and_is_the_pages_body(results, kind):
    res = results[kind]
    fragment = res._repr_html_()
    check_html(fragment)
    page = res.to_html()
    assert page.startswith("<!DOCTYPE html>")
    check_html(page)
    assert body_of(page) == fragment  # (the plot's SVG too: its ids are fixed)
    assert "http://" not in fragment and "https://" not in fragment
    assert repr(res).count("\n") == 0  # the one-line repr stays


@pytest.mark.parametrize("kind", ["two", "strata", "runs", "test"])
def test_the_verdict_comes_first_and_the_signature_last(results, kind):
    res = results[kind]
    fragment = res._repr_html_()
    assert re.search(r'</style><p class="verdict" data-field="headline">', fragment)
    assert fragment.index("headline") < fragment.index("<table")
    assert fragment.rstrip().endswith('</p></div>')
    assert 'class="signature"' in fragment


def test_the_formats_registries_have_html(results):
    assert render(results["two"], "html") == results["two"].to_html()
    assert render_family(results["family"], "html") == results["family"].to_html()
    assert render_power(results["power"], "html") == results["power"].to_html()


def test_names_are_escaped(results):
    evil = '<script>alert("x")</script>&'
    page = render(results["two"], "html", ReportContext(name_a=evil, name_b="b<b>"))
    check_html(page)
    assert "<script" not in page.lower()
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;" in page
    scores = {evil: A, "ok": B}
    fam = pairboot.compare_many(scores, n_resamples=500, seed=1)
    page = render_family(fam, "html", FamilyContext(layout=evil, notes=(evil,)))
    check_html(page)
    assert "<script" not in page.lower()


@pytest.mark.parametrize(("name_a", "name_b"), [
    ("baseline-model-v2-long", "candidate"),  # (A's name was left out past 16 characters)
    ("a", "runs/2024-07-candidate/predictions.jsonl"),
])
def test_both_names_are_in_their_rows_whatever_their_length(results, name_a, name_b):
    page = render(results["two"], "html", ReportContext(name_a=name_a, name_b=name_b))
    rows = dict(re.findall(r'<tr data-row="([ab])"><th[^>]*>(.*?)</th>', page))
    plain = {side: re.sub(r"<[^>]+>", "", label) for side, label in rows.items()}
    assert plain == {"a": f"A {name_a}", "b": f"B {name_b}"}


def test_names_wrap_at_separators_never_mid_word(results):
    """On a phone a row's name wraps after a separator (or at a space or hyphen, as the
    browser does), never inside a word: the cells of names say so to the browser."""
    assert breakable("meta-llama/Llama-3.1_70B:it,x=1") == \
        "meta-llama/<wbr>Llama-3.1_<wbr>70B:<wbr>it,<wbr>x=<wbr>1"
    assert breakable("a/<b>") == "a/<wbr>&lt;b&gt;"
    assert "tbody th{white-space:normal;overflow-wrap:normal;word-break:normal}" in STYLE
    scores = {"mistralai/Mixtral-8x22B": A, "Qwen/Qwen2.5-72B": B}
    page = pairboot.compare_many(scores, n_resamples=500, seed=1).to_html()
    assert '<th class="named">mistralai/<wbr>Mixtral-8x22B</th>' in page
    assert ('<th class="named">Qwen/<wbr>Qwen2.5-72B - mistralai/<wbr>Mixtral-8x22B</th>'
            in page)  # (the comparison: the later system minus the earlier)


def test_the_numbers_are_the_text_reports(results):
    """Every number the page shows sits in the text report, digit for digit."""
    for kind in ("two", "strata", "runs"):
        res = results[kind]
        text = str(res)
        fields = check_html(res.to_html()).fields
        assert {"estimate", "confidence_interval", "p_text", "score_a.estimate"} <= set(fields)
        for key, shown in fields.items():
            if key in ("headline", "signature"):
                assert shown in text  # (whole lines of the text report)
            else:
                assert shown in text, (key, shown)
    fam = results["family"]
    fields = check_html(fam.to_html()).fields
    text = str(fam)
    assert sum(k.startswith("comparisons.") for k in fields) == 6 * 5
    for key, shown in fields.items():
        assert shown in text, (key, shown)


def test_the_numbers_are_the_jsons(results):
    res = results["strata"]
    out = json.loads(render(res, "json"))
    fields = check_html(res.to_html()).fields
    assert fields["p_text"] in (f"p {out['p_text']}", f"p = {out['p_text']}")
    for k, s in enumerate(out["strata"]):
        assert fields[f"strata.{k}.p_text"] == s["p_text"]
    fam = results["family"]
    out = json.loads(render_family(fam, "json"))
    fields = check_html(fam.to_html()).fields
    for k, c in enumerate(out["comparisons"]):
        assert fields[f"comparisons.{k}.p_text"] == c["p_text"]
        assert fields[f"comparisons.{k}.p_adjusted_text"] == c["p_adjusted_text"]


@pytest.mark.parametrize("open_before", [0, 2])
def test_plots_are_inline_svg(results, open_before):
    """Each figure drawn is closed (a notebook would show it a second time), whatever
    figures are open already: it counts the figures the HTML leaves, not all."""
    plt = pytest.importorskip("matplotlib.pyplot")
    others = [plt.figure() for _ in range(open_before)]  # (a notebook's own figures)
    before = set(plt.get_fignums())
    try:
        assert results["two"]._repr_html_().count("<svg") == 1
        assert results["family"]._repr_html_().count("<svg") == 2  # forest and matrix
        assert results["baseline"]._repr_html_().count("<svg") == 1
        assert results["power"]._repr_html_().count("<svg") == 1
        assert "<svg" not in results["runs"]._repr_html_()  # (a t interval: no distribution)
        assert set(plt.get_fignums()) == before
    finally:
        for figure in others:
            plt.close(figure)


def test_without_matplotlib_the_tables_alone(results, monkeypatch):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # (import raises ImportError)
    for kind in ("two", "family", "power"):
        fragment = results[kind]._repr_html_()
        check_html(fragment)
        assert "<svg" not in fragment and "<table" in fragment


def test_the_items_section_is_the_text_report_s(results):
    section = items_section(results["two"], ReportContext())
    summary = results["two"].items_summary
    assert section.startswith('<section class="items">')
    assert (f"B wins {summary.items.wins}, ties {summary.items.ties} and loses "
            f"{summary.items.losses} of the {summary.n:,} items") in section


def test_warnings_are_shown():
    with pytest.warns(pairboot.errors.PairbootWarning):
        res = pairboot.compare([0.0, 1.0, 1.0], [1.0, 1.0, 1.0], n_resamples=500, seed=1)
    assert res.warnings
    fragment = res._repr_html_()
    assert '<section class="warnings">' in fragment
    assert fragment.index("warnings") < fragment.index('class="signature"')


@pytest.mark.slow
def test_a_45_pair_family_is_written_whole():
    """Every comparison once, the forest of all 45, the same page at every call.  (Its
    time is benchmarks/reports.py's: a wall-clock limit is no test.)"""
    pytest.importorskip("matplotlib")
    scores = {f"system-{k}": A + rng.normal(0.01 * k, 0.1, 120) for k in range(10)}
    fam = pairboot.compare_many(scores, n_resamples=2000, seed=1)
    assert fam.family_size == 45
    page = fam.to_html()
    check_html(page)
    rows = re.findall(r'data-field="comparisons\.(\d+)\.estimate"', page)
    assert sorted(map(int, rows)) == list(range(45))
    assert all(f">{name}<" in page for name in scores)
    assert page.count('<figure class="plot-figure">') == page.count("<svg") == 1
    assert fam.to_html() == page


# ----------------------------------------------------------------------------- the CLI


def test_cli_writes_html_atomically_and_never_over_an_input(tmp_path, capsys):
    from pairboot.cli import main

    data = tmp_path / "runs.csv"
    data.write_text("id,base,new\n" + "".join(f"{k},{a:.4f},{b:.4f}\n"
                                               for k, (a, b) in enumerate(zip(A, B))))
    out = tmp_path / "report.html"
    assert main(["compare", str(data), "--a", "base", "--b", "new", "--format", "html",
                 "--output", str(out), "--seed", "1", "--resamples", "300",
                 "--no-progress"]) == 0
    page = out.read_text(encoding="utf-8")
    check_html(page)
    assert "base" in page and "new" in page
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    assert main(["compare", str(data), "--a", "base", "--b", "new", "--format", "html",
                 "--output", str(data), "--no-progress"]) == 2
    assert "would be overwritten" in capsys.readouterr().err
    family = tmp_path / "family.html"
    data.write_text("id,base,new,other\n" + "".join(
        f"{k},{a:.4f},{b:.4f},{(a + b) / 2:.4f}\n" for k, (a, b) in enumerate(zip(A, B))))
    assert main(["compare", str(data), "--systems", "base,new,other", "--id", "id",
                 "--format", "html", "--output", str(family), "--seed", "1",
                 "--resamples", "500", "--no-progress"]) == 0
    page = family.read_text(encoding="utf-8")
    check_html(page)
    assert 'data-field="summary">3 systems, 3 comparisons (all pairs)' in page


# ------------------------------------------------------------------------- to_frame


def test_to_frame_of_two_systems_is_tidy(results):
    pytest.importorskip("pandas")
    res = results["strata"]
    frame = res.to_frame()
    assert list(frame.columns) == ["row", "stratum", "estimate", "low", "high",
                                   "standard_error", "p_value", "p_adjusted", "significant"]
    assert len(frame) == 3 * (1 + len(res.strata))
    whole = frame[frame.stratum.isna() & (frame.row == "B - A")].iloc[0]
    assert whole.estimate == res.estimate and whole.low == res.confidence_interval.low
    assert whole.p_value == res.p_value and bool(whole.significant) == res.excludes_zero
    hard = frame[(frame.stratum == "hard") & (frame.row == "A")].iloc[0]
    assert hard.estimate == res.strata[1].score_a.estimate


def test_to_frame_of_a_test_a_plan_and_a_family(results):
    pytest.importorskip("pandas")
    t = results["mcnemar"].to_frame()
    assert t.loc[0, "p_value"] == results["mcnemar"].p_value
    assert {"p_adjusted", "significant", "only_a", "only_b"} <= set(t.columns)
    plan = results["power"]
    row = plan.to_frame()
    assert len(row) == 1 and row.loc[0, "n_items"] == plan.n_items
    curve = plan.to_frame(curve=True, points=5)
    assert list(curve.columns) == ["x", "value", "power"] and len(curve) == 5
    with pytest.raises(ValueError):
        plan.to_frame(points=5)
    fam = results["family"].to_frame()
    assert {"a", "b", "estimate", "low", "high", "p_value", "p_adjusted",
            "significant"} <= set(fam.columns)


def test_the_page_lists_the_items_behind_the_number_as_the_text_does():
    rng = np.random.default_rng(1)
    a = (rng.random(60) < 0.6).astype(float)
    b = np.where(rng.random(60) < 0.8, a, 1 - a)
    res = pairboot.compare(a, b, seed=1, ids=[f"q{i}" for i in range(60)])
    page = res.to_html()
    text = " ".join(str(res).split())
    tally = f"B wins {res.items_summary.items.wins}, ties {res.items_summary.items.ties}"
    assert tally in text and tally in page
    assert "both right 25, only A right 10, only B right 2, both wrong 23" in page
    assert page.count("<td>B loses</td>") == min(5, res.items_summary.items.losses)
    none = pairboot.compare(a, b, seed=1, paired=False).to_html()
    assert "Items: none listed:" in none

"""The HTML report in a real browser: headless Chromium (Debian's ``chromium``; the
README's test command installs it with ``.ci/chromium``, so these run there) renders
each kind of report to a screenshot at 375 and 1280 px and to PDF, and checks, in the
page itself:

- **nothing was fetched**: Resource Timing (``performance.getEntriesByType("resource")``)
  lists every request a document makes, failed ones included (the network is closed
  here, so a fetch could only fail); it must be empty.  The page's source is also
  checked statically (test_html.py's parser: no script, no URL but ``#`` and ``data:``).
  Chromium's own NetLog was not used: it also logs the browser's requests (updates,
  accounts), which no flag fully silences, so it cannot tell the page's from them.  A
  control page that does fetch and does overflow shows the checker sees both;
- **no text overflows its box** at 375 and 1280 px: the report is loaded in an
  ``<iframe srcdoc>`` of that width (headless Chromium's ``--dump-dom`` lays a page out
  at least 500 px wide, whatever ``--window-size`` says; a frame has the width we give
  it, and its media queries follow), and a script of the outer page walks every
  element of the report: none may be wider than its box unless it is a scroll
  container (the wide tables and plots scroll on a phone), and the page never scrolls
  sideways.  The results go into the DOM as JSON, which ``--dump-dom`` prints;
- **the numbers in the DOM are the JSON's**: the DOM as Chromium built it
  (``--dump-dom``), parsed with an HTML parser, its ``data-field`` cells equal to the
  JSON report's values written by the report layer's functions;
- **the SVG plot is there** and has a size on the page.

The screenshots land in ``$PAIRBOOT_SCREENSHOTS`` when set (to look at them), else in a
temporary folder.
"""

from __future__ import annotations

import html
import json
import math
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from test_html import check_html

import pairboot
from pairboot.report import ReportContext, render, render_family, render_power
from pairboot.report.family import family_decimals
from pairboot.report.numbers import decimals
from pairboot.report.parts import interval_text, num

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed here (the "
                                                "README's test command installs it: "
                                                "sh .ci/chromium)"),
]

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--allow-file-access-from-files"]

CHECKER = """
document.getElementById('report').addEventListener('load', function () {
  var w = this.contentWindow, d = this.contentDocument;
  var out = {width: w.innerWidth, pageWidth: d.documentElement.scrollWidth,
             phone: w.matchMedia('(max-width: 480px)').matches,
             overflow: [], scrolls: [], svg: [], resources: [], names: []};
  d.querySelectorAll('.pairboot, .pairboot *').forEach(function (el) {
    if (el.closest('svg') || el.tagName === 'STYLE') return;
    var cs = w.getComputedStyle(el);
    if (cs.display === 'inline' || el.clientWidth === 0) return;
    if (el.scrollWidth > el.clientWidth + 1) {
      var what = {tag: el.tagName.toLowerCase(), cls: String(el.className),
                  text: el.textContent.slice(0, 80), scrollWidth: el.scrollWidth,
                  clientWidth: el.clientWidth};
      (cs.overflowX === 'visible' ? out.overflow : out.scrolls).push(what);
    }
  });
  d.querySelectorAll('.pairboot tbody th').forEach(function (th) {
    // where the row's name wraps: [character before, character after] at each new line
    var walk = d.createTreeWalker(th, NodeFilter.SHOW_TEXT), node, top = null, last = '';
    var range = d.createRange(), breaks = [];
    while ((node = walk.nextNode())) {
      for (var i = 0; i < node.data.length; i++) {
        range.setStart(node, i); range.setEnd(node, i + 1);
        var rects = range.getClientRects();
        if (!rects.length) continue;
        if (top !== null && rects[0].top > top + 1) breaks.push([last, node.data[i]]);
        top = rects[0].top; last = node.data[i];
      }
    }
    var shown = (th.querySelector('.name') || th).getBoundingClientRect();
    out.names.push({text: th.textContent, width: shown.width, height: shown.height,
                    breaks: breaks});
  });
  d.querySelectorAll('.pairboot .plot svg').forEach(function (s) {
    var r = s.getBoundingClientRect(); out.svg.push([r.width, r.height]);
  });
  out.resources = w.performance.getEntriesByType('resource').map(function (e) {
    return e.name; });
  var pre = document.createElement('pre');
  pre.id = 'check';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
"""
"""Run by the outer page once the report's frame has loaded; writes what it found into
``<pre id="check">``."""


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    where = os.environ.get("PAIRBOOT_SCREENSHOTS")
    if where:
        Path(where).mkdir(parents=True, exist_ok=True)
        return Path(where)
    return tmp_path_factory.mktemp("screenshots")


def chromium(tmp: Path, *args: str) -> str:
    """Run headless Chromium with a fresh profile; its standard output."""
    profile = tmp / f"profile-{len(list(tmp.glob('profile-*')))}"
    done = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def check_in_frame(tmp: Path, page: str, width: int) -> dict:
    """The checker's findings for ``page`` laid out ``width`` px wide."""
    outer = tmp / f"frame-{width}.html"
    outer.write_text(
        '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:0">'
        f'<iframe id="report" style="width:{width}px;height:4000px;border:0" '
        f'srcdoc="{html.escape(page, quote=True)}"></iframe><script>{CHECKER}</script>'
        "</body></html>", encoding="utf-8")
    dom = chromium(tmp, f"--window-size={max(width, 500) + 100},1000", "--dump-dom",
                   outer.as_uri())
    found = re.search(r'<pre id="check">(.*?)</pre>', dom, re.S)
    assert found, "the checker did not run"
    return json.loads(html.unescape(found.group(1)))


BREAKS_AT = frozenset(" /\\_:,=-")
"""The characters after which a row's name may wrap (spaces, separators, hyphens): never
between two letters or digits of one word (``Mix|tral``) or inside ``Qwen2.|5``."""


def mid_word(found: dict) -> list:
    """The row names that wrap other than after a space, separator or hyphen."""
    return [(n["text"], before + "|" + after) for n in found["names"]
            for before, after in n["breaks"]
            if before not in BREAKS_AT and not after.isspace()]


def browse(tmp: Path, shots: Path, name: str, page: str, *, plots: int,
           rows: tuple = ()) -> dict:
    """Everything the browser checks of one report; the fields of the DOM it built.
    ``rows``: names each shown, whole, in a row's header at both widths."""
    check_html(page)  # (the source: well formed, nothing to fetch)
    path = tmp / f"{name}.html"
    path.write_text(page, encoding="utf-8")
    for width in (375, 1280):
        found = check_in_frame(tmp, page, width)
        assert found["width"] == width and found["phone"] == (width < 480)
        assert found["resources"] == []
        assert found["overflow"] == [], found["overflow"]
        assert found["pageWidth"] <= width, "the page scrolls sideways"
        allowed = ("scroll", "plot") if width < 480 else ()
        assert [s for s in found["scrolls"] if s["cls"] not in allowed] == []
        if width > 480:  # (a wide screen shows every table whole)
            assert found["scrolls"] == [], found["scrolls"]
        assert len(found["svg"]) == plots
        assert all(w > 200 and h > 100 for w, h in found["svg"])
        assert mid_word(found) == [], f"names broken mid-word at {width} px"
        for row in rows:
            shown = [n for n in found["names"] if row in n["text"]]
            assert shown and all(n["width"] > 0 and n["height"] > 0 for n in shown), \
                f"{row!r} is not shown in a row at {width} px"
        shot = shots / f"{name}-{width}.png"
        chromium(tmp, f"--window-size={width},2400", f"--screenshot={shot}", path.as_uri())
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 5000
    pdf = shots / f"{name}.pdf"
    chromium(tmp, "--no-pdf-header-footer", f"--print-to-pdf={pdf}", path.as_uri())
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF") and len(re.findall(rb"/Type\s*/Page\b", data)) >= 1
    dom = chromium(tmp, "--dump-dom", path.as_uri())
    return check_html(dom).fields  # (the DOM Chromium built, parsed)


# ------------------------------------------------------------------------------ reports

rng = np.random.default_rng(7)
N = 200
A = rng.random(N)
B = A + rng.normal(0.03, 0.12, N)


def expect_compare(fields: dict, out: dict) -> None:
    """The page's numbers against the JSON's, written by the report layer."""
    d = decimals(out["standard_error"])

    def ci(x):
        return (-math.inf if x["low"] is None else x["low"],
                math.inf if x["high"] is None else x["high"])

    assert fields["estimate"] == num(out["estimate"], d, signed=True)
    assert fields["confidence_interval"] == interval_text(ci(out["confidence_interval"]), d,
                                                          signed=True)
    assert fields["p_text"] in (f"p {out['p_text']}", f"p = {out['p_text']}")
    for side in ("score_a", "score_b"):
        assert fields[f"{side}.estimate"] == num(out[side]["estimate"], d)
        assert fields[f"{side}.confidence_interval"] == interval_text(
            ci(out[side]["confidence_interval"]), d)
    for k, s in enumerate(out["strata"]):
        assert fields[f"strata.{k}.estimate"] == num(s["estimate"], d, signed=True)
        assert fields[f"strata.{k}.confidence_interval"] == interval_text(
            ci(s["confidence_interval"]), d, signed=True)
        assert fields[f"strata.{k}.p_text"] == s["p_text"]
    assert fields["headline"] == out["decision"]["headline"]
    assert fields["signature"] == out["signature"]


@pytest.mark.parametrize(("kind", "name_a", "name_b"), [
    ("paths", "runs/2024-06-baseline/predictions.jsonl",
     "runs/2024-07-candidate <large>/predictions.jsonl"),
    ("long-a", "baseline-model-v2-long", "candidate"),  # (A's was left out past 16)
])
def test_two_systems(tmp_path, shots, kind, name_a, name_b):
    res = pairboot.compare(A, B, n_resamples=4000, seed=1)
    ctx = ReportContext(name_a=name_a, name_b=name_b)
    fields = browse(tmp_path, shots, f"two-{kind}", render(res, "html", ctx), plots=1,
                    rows=(f"A {name_a}", f"B {name_b}"))
    expect_compare(fields, json.loads(render(res, "json", ctx)))


def test_strata(tmp_path, shots):
    strata = np.array(["arithmetic", "reading comprehension", "code"])[np.arange(N) % 3]
    res = pairboot.compare(A, B, strata=strata, n_resamples=4000, seed=1)
    fields = browse(tmp_path, shots, "strata", render(res, "html"), plots=1)
    assert sum(k.startswith("strata.") for k in fields) == 3 * 3
    expect_compare(fields, json.loads(render(res, "json")))


def test_runs(tmp_path, shots):
    runs_a = A[:, None] + rng.normal(0, 0.05, (N, 4))
    runs_b = B[:, None] + rng.normal(0, 0.05, (N, 4))
    res = pairboot.compare(runs_a, runs_b, runs="seeds", n_resamples=2000, seed=1)
    fields = browse(tmp_path, shots, "runs", render(res, "html"), plots=0)
    expect_compare(fields, json.loads(render(res, "json")))


HUB_NAMES = ["meta-llama/Llama-3.1-70B-Instruct", "Qwen/Qwen2.5-72B-Instruct",
             "mistralai/Mixtral-8x22B-Instruct-v0.1", "gpt-4o-mini-2024-07-18"]
"""Names as a model hub writes them: at 375 px they wrap (they broke as ``Mix|tral``)."""


@pytest.mark.parametrize("systems", [4, 10])
def test_family_of_all_pairs(tmp_path, shots, systems):
    names = HUB_NAMES if systems == 4 else [f"model-{k}-instruct" for k in range(systems)]
    scores = {name: A + rng.normal(0.012 * k, 0.1, N) for k, name in enumerate(names)}
    res = pairboot.compare_many(scores, n_resamples=2000, seed=1)
    plots = 2 if res.family_size <= 15 else 1  # (the forest too, for a few pairs)
    fields = browse(tmp_path, shots, f"family-{systems}", render_family(res, "html"),
                    plots=plots, rows=names)
    out = json.loads(render_family(res, "json"))
    d = family_decimals(res)
    for k, c in enumerate(out["comparisons"]):
        assert fields[f"comparisons.{k}.estimate"] == num(c["estimate"], d, signed=True)
        ci = c["confidence_interval"]
        assert fields[f"comparisons.{k}.confidence_interval"] == interval_text(
            (ci["low"], ci["high"]), d, signed=True)
        assert fields[f"comparisons.{k}.p_text"] == c["p_text"]
        assert fields[f"comparisons.{k}.p_adjusted_text"] == c["p_adjusted_text"]
    for name, s in out["systems"].items():
        assert fields[f"systems.{name}.estimate"] == num(s["estimate"], d)
    assert fields["summary"] == out["summary"]
    assert fields["signature"] == out["signature"]


def test_power_plan(tmp_path, shots):
    res = pairboot.power(accuracy_a=0.72, accuracy_b=0.75, discordant=0.18, power=0.8)
    fields = browse(tmp_path, shots, "power", render_power(res, "html"), plots=1)
    assert fields["summary"] == json.loads(render_power(res, "json"))["summary"]


def test_the_checker_sees_a_fetch_and_an_overflow(tmp_path):
    """A control: a page that fetches and overflows, and a name broken mid-word and one
    not shown, are caught, so a clean page's empty findings mean something."""
    res = pairboot.compare(A, B, n_resamples=1000, seed=1)
    page = render(res, "html").replace(
        "</body>", '<img src="http://127.0.0.1:9/x.png"><div class="pairboot">'
        '<p style="white-space:nowrap;width:100px">' + "wide " * 80 + "</p>"
        '<table><tbody><tr><th style="overflow-wrap:anywhere;width:3em">Mixtral-8x22B</th>'
        '<th>B <span class="name" style="display:none">hidden</span></th></tr></tbody>'
        "</table></div></body>")
    found = check_in_frame(tmp_path, page, 375)
    assert found["resources"] == ["http://127.0.0.1:9/x.png"]
    assert "p" in [o["tag"] for o in found["overflow"]]
    assert found["pageWidth"] > 375
    assert [t for t, _ in mid_word(found)][:1] == ["Mixtral-8x22B"]  # (3em: mid-word)
    hidden = [n for n in found["names"] if "hidden" in n["text"]]
    assert hidden and hidden[0]["width"] == 0

"""The HTML report: one self-contained page (``--format html``, ``result.to_html()``) and
the notebook's display (``_repr_html_``), for every kind of result.

One fragment per result (:func:`fragment`): a ``<div class="pairboot">`` holding its own
style (every rule scoped to ``.pairboot``, so a notebook shows it styled), the verdict
first, the tables, the plot as inline SVG when matplotlib is installed, the warnings, the
method in words and the reproducibility line.  :func:`document` wraps the same fragment in
a page: nothing is fetched (no script, font, stylesheet or image from anywhere), it reads
on a phone and on a wide screen, prints cleanly, and follows a dark colour scheme.

Every number is written by the functions the text report uses (:mod:`~pairboot.report.parts`,
:mod:`~pairboot.report.numbers`, :mod:`~pairboot.report.verdicts`,
:mod:`~pairboot.report.family`), so the page shows the text report's digits; every text
goes through :func:`html.escape` (names come from files).  Cells that hold a number carry
``data-field`` (the JSON key they show) so that a reader of the DOM finds them.

A family's fragment is :mod:`pairboot.report.html_family`'s; a planned comparison's and a
test's are here.
"""

from __future__ import annotations

import html
import io
import re
from collections.abc import Callable, Iterable

from pairboot.report.escape import visible
from pairboot.report.figures import power_panels
from pairboot.report.items import flaky_sections, no_items_reason, sections
from pairboot.report.noise import noise_floor_lines
from pairboot.report.numbers import decimals, percent
from pairboot.report.parts import (
    ReportContext,
    describe_method,
    interval_text,
    kept_line,
    null_text,
    num,
    p_cell,
    resolution_note,
    result_p,
    runs_section,
    signature,
    strata_table,
    unresolved,
)
from pairboot.report.power import (
    family_rows,
    power_facts,
    power_summary,
    simulation_line,
    trials_table,
)
from pairboot.report.registry import writes
from pairboot.report.table import Table
from pairboot.report.text import design_lines, error_text
from pairboot.report.verdicts import headline, margin_lines, paired_test_lines
from pairboot.results.compare import CompareResult, TestResult
from pairboot.results.power import PowerResult

__all__ = ["STYLE", "breakable", "document", "esc", "fragment_compare", "fragment_power",
           "fragment_test", "items_section", "name_cell", "svg_of", "table"]

STYLE = """
.pairboot{--pb-line:rgba(127,127,127,.45);--pb-soft:rgba(127,127,127,.12);
--pb-accent:#1f77b4;--pb-warn:#b35900;font:15px/1.45 system-ui,-apple-system,"Segoe UI",
Roboto,"Helvetica Neue",Arial,sans-serif;max-width:84rem;overflow-wrap:anywhere}
.pairboot p,.pairboot ul,.pairboot h2,.pairboot h3{max-width:52rem}
.pairboot *{box-sizing:border-box}
.pairboot .verdict{font-size:1.12em;font-weight:600;margin:.2em 0 .8em;padding:.6em .8em;
border-left:4px solid var(--pb-accent);background:rgba(31,119,180,.12);border-radius:4px}
.pairboot h2{font-size:1.05em;margin:1.2em 0 .4em}
.pairboot h3{font-size:1em;margin:1em 0 .3em}
.pairboot p{margin:.4em 0}
.pairboot .scroll{overflow-x:auto;max-width:100%;margin:.4em 0}
.pairboot table{border-collapse:collapse;font-variant-numeric:tabular-nums}
.pairboot th,.pairboot td{padding:.25em .6em;border-bottom:1px solid var(--pb-line);
vertical-align:top;text-align:right;overflow-wrap:normal;white-space:nowrap}
.pairboot th{font-weight:600}
.pairboot thead th{border-bottom-width:2px}
.pairboot tbody th,.pairboot .left{text-align:left}
.pairboot tbody th{white-space:normal;overflow-wrap:normal;word-break:normal}
.pairboot tbody th.named{min-width:8.5em}
.pairboot tr.difference th,.pairboot tr.difference td{font-weight:700;background:var(--pb-soft)}
.pairboot .name{font-weight:400;opacity:.85}
.pairboot .note{font-size:.9em;opacity:.85}
.pairboot .warnings{border-left:4px solid var(--pb-warn);padding:.1em .8em;margin:1em 0;
background:rgba(179,89,0,.10);border-radius:4px}
.pairboot .warnings ul{margin:.3em 0;padding-left:1.2em}
.pairboot figure{margin:1em 0}
.pairboot .plot{background:#fff;border-radius:6px;padding:4px;max-width:100%}
.pairboot .plot svg{display:block;width:100%;height:auto}
.pairboot figcaption{font-size:.9em;opacity:.85}
.pairboot .signature{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;
opacity:.8;overflow-wrap:anywhere;margin-top:1.2em}
.pairboot sup{font-size:.7em}
@media (max-width:480px){.pairboot{font-size:14px}.pairboot th,.pairboot td{padding:.2em .35em}
.pairboot .plot{overflow-x:auto}.pairboot .plot svg{min-width:34rem}}
@media print{.pairboot{max-width:none;color:#000}.pairboot .scroll{overflow:visible}
.pairboot table{font-size:10px}.pairboot .plot svg{max-height:60vh}
.pairboot .plot{overflow:visible}.pairboot .plot svg{min-width:0}
.pairboot tr,.pairboot figure,.pairboot .warnings{break-inside:avoid}
.pairboot thead{display:table-header-group}
.pairboot .verdict{background:none;border:1px solid #000}}
"""
"""The fragment's own style: every rule scoped to ``.pairboot``; colours that read on a
light and on a dark page alike (the text's colour is the page's; the plots sit on white)."""

PAGE_STYLE = """
:root{color-scheme:light dark}
body{margin:0;padding:16px;background:#fff;color:#1a1a1a}
@media (prefers-color-scheme:dark){body{background:#15171a;color:#e6e6e6}
.pairboot{--pb-accent:#6cb4ee;--pb-warn:#f0a050}}
@media print{body{background:#fff;color:#000;padding:0}@page{margin:14mm}}
"""
"""The page around the fragment (:func:`document`)."""


def esc(text) -> str:
    """``text`` escaped for HTML (quotes too: it may sit in an attribute), as
    :func:`~pairboot.report.escape.visible` shows it (a bidi override or a control
    character of the data is written out, not obeyed)."""
    return html.escape(visible(text), quote=True)


BREAK_AFTER = re.compile(r"([/\\_:,=])")
"""Where a name may break across lines besides spaces and hyphens: after a path's or an
identifier's separators (``meta-llama/`` ``Llama-3.1-70B-Instruct``), never inside a
word (``Mix|tral``)."""


def breakable(name) -> str:
    """``name`` escaped, with a line-break opportunity (``<wbr>``) after each separator
    of :data:`BREAK_AFTER`: a table's names wrap there on a phone, never mid-word."""
    return BREAK_AFTER.sub(r"\1<wbr>", esc(name))


def name_cell(name) -> str:
    """A row's name (a system, a comparison, a stratum) as its header cell,
    :func:`breakable`; a long one keeps a readable width (``named``)."""
    named = ' class="named"' if len(str(name)) > 8 else ""
    return f"<th{named}>{breakable(name)}</th>"


def cell(text: str, tag: str = "td", *, field: str | None = None, cls: str = "") -> str:
    """One table cell; ``field`` names the JSON key it shows (``data-field``)."""
    attrs = f' data-field="{esc(field)}"' if field else ""
    attrs += f' class="{cls}"' if cls else ""
    return f"<{tag}{attrs}>{esc(text)}</{tag}>"


def table(head: list[str], rows: Iterable[list[str]], *, cls: str = "",
          row_attrs: Iterable[str] | None = None, align: str = "l") -> str:
    """A table in a horizontally scrolling box: ``head`` as text, ``rows`` as cells
    already written (:func:`cell`); ``align`` says which header cells are left-aligned
    ("l", else right-aligned as numbers; the first by default), as their columns."""
    heads = "".join(cell(h, "th", cls="left" if align[j:j + 1] == "l" else "num")
                    for j, h in enumerate(head))
    attrs = list(row_attrs) if row_attrs is not None else None
    body = "".join(f"<tr{attrs[k] if attrs else ''}>{''.join(r)}</tr>"
                   for k, r in enumerate(rows))
    klass = f' class="{cls}"' if cls else ""
    return (f'<div class="scroll"><table{klass}><thead><tr>{heads}</tr></thead>'
            f"<tbody>{body}</tbody></table></div>")


def plain_table(rows: Table, *, cls: str = "", fields: list | None = None) -> str:
    """:func:`table` of a :class:`~pairboot.report.table.Table`'s text cells: the first
    column as row headers, the others as numbers; ``fields``: per row, the
    ``data-field`` of its cells (or None)."""
    out = []
    for k, r in enumerate(rows.rows):
        names = fields[k] if fields else [None] * len(r)
        out.append([name_cell(r[0])]
                   + [cell(c, field=f, cls="num")
                                        for c, f in zip(r[1:], names[1:])])
    return table(list(rows.head), out, cls=cls)


def paragraphs(lines: Iterable[str], cls: str = "") -> str:
    klass = f' class="{cls}"' if cls else ""
    return "".join(f"<p{klass}>{esc(line)}</p>" for line in lines)


def warnings_section(warnings: Iterable[str], title: str = "Warnings") -> str:
    items = [f"<li>{esc(w)}</li>" for w in warnings]
    if not items:
        return ""
    return (f'<section class="warnings"><h3>{esc(title)}</h3><ul>{"".join(items)}</ul>'
            "</section>")


def signature_line(text: str) -> str:
    return f'<p class="signature" data-field="signature">{esc(text)}</p>'


def wrap_fragment(kind: str, body: str) -> str:
    """The fragment: its style, then ``body`` in ``<div class="pairboot">``."""
    return (f'<div class="pairboot pairboot-{kind}"><style>{STYLE.strip()}</style>'
            f"{body}</div>\n")


def document(fragment: str, title: str) -> str:
    """A whole page around ``fragment``: UTF-8, a viewport for phones, the page's colours
    and print margins; nothing loaded from anywhere."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{esc(title)}</title><style>{PAGE_STYLE.strip()}</style></head>\n"
            f"<body>\n{fragment}</body></html>\n")


# ------------------------------------------------------------------------------- plots

_SVG_START = re.compile(r"<svg\b")
_METADATA = re.compile(r"<metadata>.*?</metadata>\s*", re.S)
_ROOT = re.compile(r"<svg\b([^>]*)>")


def svg_of(draw: Callable[[], object], caption: str = "") -> str:
    """``draw()`` (a function of :mod:`pairboot.plot` returning axes) as an inline
    ``<figure>`` of SVG; "" when matplotlib is not installed.

    Text stays text (``svg.fonttype`` none: small, fast, searchable), ids are the same
    at every call (a fixed hash salt: the notebook's fragment equals the page's body),
    and the XML prologue, the metadata and the namespace declarations are left out (an
    SVG inside HTML needs none of them, and they name web addresses).
    """
    try:
        import matplotlib
        import matplotlib.pyplot as plt
    except ImportError:
        return ""
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "pairboot"}):
        ax = draw()
        figure = ax.figure
        buffer = io.StringIO()
        try:
            figure.savefig(buffer, format="svg")
        finally:
            plt.close(figure)  # (a notebook would show it a second time)
    text = buffer.getvalue()
    text = _METADATA.sub("", text[_SVG_START.search(text).start():])

    def root(match: re.Match) -> str:
        attrs = re.sub(r'\s+xmlns(:\w+)?="[^"]*"', "", match.group(1))
        width = re.search(r'\swidth="([^"]+)"', attrs)
        attrs = re.sub(r'\s(width|height)="[^"]*"', "", attrs)
        limit = f' style="max-width:{width.group(1)}"' if width else ""
        return f'<svg role="img"{attrs}{limit}>'

    text = _ROOT.sub(root, text, count=1)
    said = f"<figcaption>{esc(caption)}</figcaption>" if caption else ""
    return f'<figure class="plot-figure"><div class="plot">{text.strip()}</div>{said}</figure>'


# ------------------------------------------------------------------- two systems


def items_section(result, context) -> str:
    """The items behind the number (wins, ties and losses of B against A, the 2 x 2
    table, the items with the largest differences each way, per stratum and per group):
    the parts every format prints (:func:`pairboot.report.items.sections`), or the line
    that says why there are none."""
    summary = getattr(result, "items_summary", None)
    flaky = getattr(result, "flaky", None)
    more = ("" if flaky is None else
            '<section class="flaky">' + _parts_html(flaky_sections(flaky)) + "</section>")
    if summary is None:
        why = no_items_reason(result)
        return (paragraphs([f"Items: none listed: {why}."], "note") if why else "") + more
    return '<section class="items">' + _parts_html(sections(summary)) + "</section>" + more


def _parts_html(parts) -> str:
    """A report's ``(kind, payload)`` parts (:func:`pairboot.report.items.sections`) as
    HTML: a heading, a paragraph or a table each."""
    out = []
    for kind, payload in parts:
        if kind == "title":
            out.append(f"<h3>{esc(payload)}</h3>")
        elif kind == "line":
            out.append(paragraphs([payload]))
        else:
            align = payload.align
            out.append(table(list(payload.head),
                             [[cell(c, cls="" if a == "l" else "num")
                               for c, a in zip(r, align)] for r in payload.rows],
                             align=align))
    return "".join(out)


@writes(CompareResult, "html-fragment", part=True)
def fragment_compare(result: CompareResult, context: ReportContext | None = None) -> str:
    """The fragment of a comparison of two systems (with strata, runs or a test too): the
    verdict, the systems and the difference, the p-value, the strata, the runs, the
    bootstrap distribution, the warnings, the method and reading, the signature."""
    ctx = context or ReportContext()
    d = decimals(result.standard_error)
    level = percent(result.confidence_level)
    out = [f'<p class="verdict" data-field="headline">{esc(headline(result, ctx))}</p>']
    kept = kept_line(ctx)
    if kept is not None:  # (the items --common-items kept: beside the verdict)
        out.append(f'<p class="note" data-field="common_items">{esc(kept)}</p>')
    title = "pairboot compare: {} vs {}".format(
        "B" if ctx.name_b == "B" else f"{ctx.name_b} (B)",
        "A" if ctx.name_a == "A" else f"{ctx.name_a} (A)")
    if ctx.layout:
        title += f", {ctx.layout}"
    out.append(f"<h2>{esc(title)}</h2>")
    tost = (f" (B - A: {percent(result.interval_level)})"
            if result.interval_level != result.confidence_level else "")
    rows, attrs = [], []
    for side, name, default, score in (("A", ctx.name_a, "A", result.score_a),
                                       ("B", ctx.name_b, "B", result.score_b)):
        key = f"score_{side.lower()}"
        # (every name is shown, A's as B's, wrapping at its separators on a phone)
        label = (f'{esc(side)} <span class="name">{breakable(name)}</span>'
                 if name != default else esc(side))
        named = ' class="named"' if name != default else ""
        rows.append([f"<th{named}>{label}</th>",
                     cell(num(score.estimate, d), field=f"{key}.estimate", cls="num"),
                     cell(interval_text(score.confidence_interval, d),
                          field=f"{key}.confidence_interval", cls="num")])
        attrs.append(f' data-row="{side.lower()}"')
    rows.append([cell("B - A", "th"),
                 cell(num(result.estimate, d, signed=True), field="estimate", cls="num"),
                 cell(interval_text(result.confidence_interval, d, signed=True),
                      field="confidence_interval", cls="num")])
    attrs.append(' class="difference" data-row="difference"')
    out.append(table(["", result.metric, f"{level} interval{tost}"], rows, cls="numbers",
                     row_attrs=attrs))
    p_line = (f'<span data-field="p_text">{esc(result_p(result))}</span> '
              f"({esc(null_text(result))})")
    out.append(f'<p class="p">{p_line}</p>')
    if unresolved(result):
        out.append(paragraphs([f"({resolution_note(result)})"], "note"))
    out.append(paragraphs(margin_lines(result, ctx) + paired_test_lines(result)
                          + noise_floor_lines(result)))
    out.append(paragraphs([error_text(result, d)], "note"))
    for line in design_lines(result, ctx):
        out.append(paragraphs([line], "note"))
    out.append(items_section(result, ctx))
    if result.strata:
        col = f" (column {ctx.stratum!r})" if ctx.stratum else ""
        how = ("its own t interval" if result.runs is not None else "same resamples")
        out.append(f"<h3>{esc(f'Strata{col}: the difference within each stratum, {how}')}"
                   "</h3>")
        cells = strata_table(result, d)
        n = len(cells.align)
        fields = [[None] * (n - 3) + [f"strata.{k}.estimate",
                                      f"strata.{k}.confidence_interval",
                                      f"strata.{k}.p_text"] for k in range(len(result.strata))]
        out.append(plain_table(cells, cls="strata", fields=fields))
    section = runs_section(result)
    if section is not None:
        title, cells, text = section
        out.append(f"<h3>{esc(title)}</h3>")
        out.append(plain_table(cells, cls="runs"))
        if text:
            out.append(paragraphs([text], "note"))
    out.append(_histogram(result, ctx))
    out.append(warnings_section(ctx.say(w) for w in result.warnings))
    out.append(warnings_section(ctx.notes, "Notes"))
    out.append(f"<p><b>Method:</b> {esc(describe_method(result, ctx))}</p>")
    out.append(f"<p><b>Reading:</b> {esc(ctx.say(result.reading))}</p>")
    out.append(signature_line(signature(result, ctx)))
    return wrap_fragment("compare", "".join(out))


def _histogram(result: CompareResult, ctx: ReportContext) -> str:
    if result.runs is not None and result.runs.kind == "seeds":
        return ""  # (a t interval: the resamples only estimate a variance)

    def draw():
        from pairboot.report.plot.histogram import plot

        return plot(result, name_a=ctx.name_a, name_b=ctx.name_b)

    return svg_of(draw, "The bootstrap distribution of B - A, its interval and estimate.")


@writes(CompareResult, "html")
def compare_html(result: CompareResult, context: ReportContext | None = None) -> str:
    """``--format html`` of a comparison: :func:`fragment_compare` in a page."""
    ctx = context or ReportContext()
    return document(fragment_compare(result, ctx), f"pairboot: {ctx.name_b} vs {ctx.name_a}")


# ------------------------------------------------------------------------------- a test


@writes(TestResult, "html-fragment", part=True)
def fragment_test(test: TestResult, context=None) -> str:
    """A test's fragment (``TestResult``): its p-value first, then its numbers."""
    sides = 2 if test.alternative == "two-sided" else 1
    counted = test.null_distribution is not None and not test.exact

    def p_text(p):  # (a closed form, or (1 + c) / (R + 1) over the permutations)
        n = len(test.null_distribution) if test.null_distribution is not None else 1
        return p_cell(p, n, resampled=counted, sides=1 if counted else sides)

    p = p_text(test.p_value)
    words = "p " + p if p.startswith("<") else f"p = {p}"
    out = [f'<p class="verdict" data-field="headline">{esc(test.method)}: {esc(words)}</p>']
    rows = [["test", test.name], ["alternative", test.alternative],
            ["statistic", f"{test.statistic:g}"], ["n", f"{test.n:,}"],
            ["p", p], ["exact", "yes" if test.exact else "no"]]
    if test.p_value_mid is not None:
        rows.append(["mid-p", p_text(test.p_value_mid)])
    if test.null_distribution is not None:
        rows.append(["permutations", f"{len(test.null_distribution):,}"])
    t = test.table
    if t is not None:
        rows += [["both scored 1", f"{t.both:,}"], ["only A scored 1", f"{t.only_a:,}"],
                 ["only B scored 1", f"{t.only_b:,}"], ["both scored 0", f"{t.neither:,}"]]
    fields = [[None, None] for _ in rows]
    fields[4] = [None, "p_text"]
    out.append(plain_table(Table(("", "value"), rows, "lr"), cls="test", fields=fields))
    return wrap_fragment("test", "".join(out))


# ------------------------------------------------------------------- a planned comparison


@writes(PowerResult, "html-fragment", part=True)
def fragment_power(res: PowerResult, context=None) -> str:
    """A planned comparison's fragment: the answer in a sentence, the power curve, the
    inputs and what was read off them, the simulation check, the assumptions."""
    out = [f'<p class="verdict" data-field="summary">{esc(power_summary(res))}</p>']
    rows = power_facts(res) + family_rows(res)
    out.append(plain_table(Table(("", "value"), rows, "ll"), cls="facts"))
    grid = trials_table(res)
    if grid is not None:  # (a k-trial metric: the plan at each number of trials)
        out.append(plain_table(grid, cls="trials"))
    out.append(_power_curve(res))
    line = simulation_line(res)
    if line:
        out.append(paragraphs([line]))
    if res.assumptions:
        out.append("<h3>Assumes</h3><ul>" + "".join(f"<li>{esc(a)}</li>"
                                                    for a in res.assumptions) + "</ul>")
    return wrap_fragment("power", "".join(out))


def _power_curve(res: PowerResult) -> str:
    if res.planner is None or "size" not in power_panels(res):
        return ""  # (nothing to draw the curve around)

    def draw():
        from pairboot.report.plot.power import plot_power

        return plot_power(res, against="size")

    return svg_of(draw, "The power against the size (or the difference), the plan marked.")


@writes(PowerResult, "html")
def power_html(res: PowerResult, context=None) -> str:
    """``render_power(res, "html")``: :func:`fragment_power` in a page."""
    return document(fragment_power(res, context), "pairboot: a planned comparison")


@writes(TestResult, "html")
def test_html(test: TestResult, context=None) -> str:
    return document(fragment_test(test, context), f"pairboot: {test.name} test")


test_html.__test__ = False  # (not a pytest test)

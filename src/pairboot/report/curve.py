"""Reports of a pass^k / pass@k curve (:class:`pairboot.TrialsCurve`): one table, a row
per k, with each system's value and pointwise interval and ``B - A`` with its pointwise
and simultaneous intervals; text, Markdown, JSON and HTML (the table and the two
panels of :func:`pairboot.plot.plot_curve` as inline SVG when matplotlib is installed)."""

from __future__ import annotations

from pairboot.report.escape import lines_text, md
from pairboot.report.html import (
    document,
    paragraphs,
    plain_table,
    signature_line,
    svg_of,
    warnings_section,
    wrap_fragment,
)
from pairboot.report.parts import alpha_of, p_cell
from pairboot.report.registry import writes
from pairboot.report.schemas import json_report
from pairboot.report.table import Table, markdown, text
from pairboot.results.family import TrialsCurve

__all__ = ["curve_fragment", "curve_html", "curve_json", "curve_markdown", "curve_table",
           "curve_text"]


def _ci(low: float, high: float, sign: str = "") -> str:
    return f"[{low:{sign}.3f}, {high:{sign}.3f}]"


def _p(res: TrialsCurve, p: float) -> str:
    """A p-value as the other reports write it (``< 0.0006`` below what the resamples
    resolve, digits enough to show its side of the level)."""
    return p_cell(p, res.n_resamples, alpha=alpha_of(res.confidence_level))


def curve_table(res: TrialsCurve) -> Table:
    """A row per k: A, B (each with its interval), B - A, its pointwise and simultaneous
    intervals, its own p and the stepdown p over the ks."""
    a, b = res.names
    level = f"{100 * res.confidence_level:g}%"
    head = ("k", a, f"{level} interval", b, f"{level} interval", f"{b} - {a}",
            "pointwise", "simultaneous", "p", "p adjusted")
    rows = [(str(p.k), f"{p.a.estimate:.3f}", _ci(*p.a.confidence_interval),
             f"{p.b.estimate:.3f}", _ci(*p.b.confidence_interval), f"{p.difference:+.3f}",
             _ci(*p.interval, "+"), _ci(*p.simultaneous, "+"), _p(res, p.p_value),
             _p(res, p.p_adjusted)) for p in res.points]
    return Table(head, rows, "rrlrlrllrr")


def _words(res: TrialsCurve) -> list[str]:
    head = (f"{res.kind} of {res.names[0]} and {res.names[1]} over k = "
            f"{', '.join(map(str, res.ks))} ({res.n_items:,} items), from one bootstrap of "
            "the items for every k and both systems.")
    systems = (f"{res.names[0]}'s and {res.names[1]}'s intervals are pointwise "
               f"({res.method}).")
    if res.critical_value is None:  # (one k: nothing to hold together)
        return [head, "B - A: one k, so its simultaneous interval is its pointwise one, "
                f"compare(runs='samples', metric=...)'s ({res.method}) with the same seed, "
                f"and p (= p adjusted) is compare()'s p, which inverts it. {systems}"]
    return [
        head,
        "B - A: pointwise, each k's interval on its own (the bootstrap-t on the draws "
        "compare(runs='samples', metric=...) makes with the same seed); simultaneous, "
        f"max-t over the ks (c = {res.critical_value:.3f}): all hold together at the "
        f"level. {systems}",
        "p: B - A's own bootstrap-t p on the same roots, below 1 - level exactly when the "
        "pointwise interval excludes 0; p adjusted: Romano-Wolf's stepdown over the ks, "
        "which may reject where the simultaneous interval (single-step) still holds 0.",
    ]


def _signature(res: TrialsCurve) -> str:
    return (f"pairboot {res.version} | paired {res.method} | curve {res.kind} | "
            f"resamples {res.n_resamples} | level {res.confidence_level:g} | seed {res.seed}")


@writes(TrialsCurve, "text")
def curve_text(res: TrialsCurve, context=None) -> str:
    """The plain-text report (``print(result)``)."""
    lines = _words(res) + [""] + text(curve_table(res))
    lines += [""] + [f"warning: {w}" for w in res.warnings] + [_signature(res)]
    return lines_text(line for line in lines)


@writes(TrialsCurve, "markdown")
def curve_markdown(res: TrialsCurve, context=None) -> str:
    """The Markdown report: the words, the table, the signature."""
    lines = [md(w) for w in _words(res)] + [""] + markdown(curve_table(res))
    lines += [""] + [f"- warning: {md(w)}" for w in res.warnings] + [f"`{_signature(res)}`"]
    return lines_text(lines)


@writes(TrialsCurve, "json", schema="pairboot.curve/1")
def curve_json(res: TrialsCurve, context=None) -> str:
    """The result's fields as JSON, with the signature."""

    out = res.to_dict()
    out["signature"] = _signature(res)
    return json_report(res, out)


@writes(TrialsCurve, "html-fragment", part=True)
def curve_fragment(res: TrialsCurve, context=None) -> str:
    """The curve's fragment (a notebook's display): the words, the table, the two
    panels, the warnings, the signature."""
    out = [paragraphs(_words(res)), plain_table(curve_table(res), cls="curve")]

    def draw():
        from pairboot.report.plot.curve import plot_curve

        return plot_curve(res)[0]

    out.append(svg_of(draw, f"{res.kind} of each system over k with its pointwise band; "
                            f"{res.names[1]} - {res.names[0]} with its pointwise and "
                            "simultaneous bands."))
    out.append(warnings_section(res.warnings))
    out.append(signature_line(_signature(res)))
    return wrap_fragment("curve", "".join(out))


@writes(TrialsCurve, "html")
def curve_html(res: TrialsCurve, context=None) -> str:
    """One self-contained page: :func:`curve_fragment` in a document."""
    return document(curve_fragment(res, context), f"pairboot: {res.kind} over k")

"""The machine and document formats: JSON (the result object and more), Markdown, LaTeX.

Each writer takes ``(result, context=None)`` and returns the whole report as text, with the
same verdict, numbers, warnings and signature as the text report.
"""

from __future__ import annotations

import math

from pairboot.report.escape import lines_text, md, tex
from pairboot.report.items import items_latex, items_markdown, no_items_reason
from pairboot.report.noise import noise_floor_lines
from pairboot.report.numbers import decimals, percent
from pairboot.report.parts import (
    SCORE_WORDS,
    ReportContext,
    alpha_of,
    describe_method,
    design,
    interval_text,
    kept_line,
    num,
    p_fields,
    resolution_note,
    result_p,
    result_p_cell,
    runs_section,
    sides_of,
    sides_text,
    signature,
    strata_table,
    too_few_units,
    unresolved,
)
from pairboot.report.registry import writes
from pairboot.report.schemas import json_report
from pairboot.report.table import Markup, Table, latex_float, markdown
from pairboot.report.verdicts import decision, headline, margin_lines, paired_test_lines
from pairboot.results.compare import CompareResult, json_safe
from pairboot.stats.pvalues import CLOSED_FORM_P

# ------------------------------------------------------------------------------ json


@writes(CompareResult, "json", schema="pairboot.compare/1")
def write_json(result: CompareResult, context: ReportContext | None = None) -> str:
    """``result.to_dict()`` as indented JSON, plus the inputs, the notes and the signature.

    Beside every p-value (the comparison's and each stratum's) it writes
    ``p_value_upper_bound`` (the p-value, or the resolution of the resamples where they
    cannot resolve it: :func:`pairboot.stats.pvalues.p_upper_bound`) and ``p_text``, the
    p-value as the other formats print it (``"0.0123"``, ``"< 0.0006"``; ``"n/a: ..."``
    with too few units for any test at the level); ``p_value`` itself stays the number
    computed, the p-value of the hypothesis tested.  ``verdict_p_value`` is the p-value
    of what ``verdict`` claims (``claim_p_values``: those of "better" and "better by the
    margin" beyond a margin's hypothesis), as the headline prints it beside the verdict.
    NaN and infinities are written as ``null`` (JSON has no spelling for them).
    """
    ctx = context or ReportContext()
    own = _p_fields(result, result.p_value)
    if too_few_units(result) is not None:  # (no test at this level: p decides nothing)
        own = {**own, "p_value_upper_bound": None, "p_text": f"n/a: {too_few_units(result)}"}
    out = _after(result.to_dict(), "p_value", own)
    strata_sides = 2 if result.alternative == "two-sided" else 1  # (a difference each)
    out["strata"] = [_after(s, "p_value", _p_fields(result, s["p_value"], strata_sides)
                            if (few := too_few_units(result, row)) is None else
                            {"p_value_upper_bound": None, "p_text": f"n/a: {few}"})
                     for s, row in zip(out["strata"], result.strata)]
    if result.p_values is not None:  # (TOST's two one-sided p-values, as the text writes)
        parts = [_p_fields(result, p, 1) for p in result.p_values]
        out = _after(out, "p_values", {
            "p_values_upper_bound": [f["p_value_upper_bound"] for f in parts],
            "p_values_text": [f["p_text"] for f in parts]})
    out = _after(out, "method", {"method_text": describe_method(result, ctx)})
    out["warnings"] = [ctx.say(w) for w in result.warnings]
    out["reading"] = ctx.say(out["reading"])
    out["input"] = {
        "a": ctx.name_a,
        "b": ctx.name_b,
        "files": list(ctx.files),
        "layout": ctx.layout or None,
        "group": ctx.group,
        "stratum": ctx.stratum,
    }
    out["items_note"] = (None if result.items_summary is not None
                         else f"none listed: {no_items_reason(result)}")
    out["notes"] = list(ctx.notes)
    kept = getattr(ctx, "items_kept", None)
    out["common_items"] = None if kept is None else {**kept.to_dict(), "text": kept_line(ctx)}
    out["decision"] = decision(result, ctx)
    out["signature"] = signature(result, ctx)
    return json_report(result, json_safe(out))


def own_p_cell(result: CompareResult) -> str:
    """The comparison's own p-value as a table cell: "n/a" with too few units for any
    test at its level (its verdict is undefined; the text says why)."""
    if too_few_units(result) is not None:
        return "n/a"
    return result_p_cell(result, result.p_value)


def _p_fields(result: CompareResult, p, sides: int | None = None) -> dict:
    """A p-value's bound and text; ``sides`` default: the result's own test's."""
    return p_fields(p, result.n_resamples, alpha=alpha_of(result.confidence_level),
                    resampled=result.method not in CLOSED_FORM_P,
                    sides=sides_of(result) if sides is None else sides)


def _after(mapping: dict, key: str, extra: dict) -> dict:
    """``mapping`` with ``extra``'s items inserted right after ``key`` (the JSON's
    reader sees a p-value's bound and text beside it)."""
    out = {}
    for k, v in mapping.items():
        out[k] = v
        if k == key:
            out.update(extra)
    return out


# -------------------------------------------------------------------------- markdown


@writes(CompareResult, "markdown")
def write_markdown(result: CompareResult, context: ReportContext | None = None) -> str:
    """A Markdown table of both systems and the difference, then the details."""
    ctx = context or ReportContext()
    d = decimals(result.standard_error)
    level = percent(result.confidence_level)
    resolution = f"; {resolution_note(result)}" if unresolved(result) else ""
    kept = kept_line(ctx)
    lines = [
        f"**{md(headline(result, ctx))}**",
        *(["", md(kept)] if kept is not None else []),
        "",
        *markdown(Table(("system", result.metric, f"{level} interval" + (
            f" (B - A: {percent(result.interval_level)})"
            if result.interval_level != result.confidence_level else "")), [
            (Markup(f"A ({md(ctx.name_a)})"), num(result.score_a.estimate, d),
             interval_text(result.score_a.confidence_interval, d)),
            (Markup(f"B ({md(ctx.name_b)})"), num(result.score_b.estimate, d),
             interval_text(result.score_b.confidence_interval, d)),
            (Markup("**B - A**"), Markup(f"**{num(result.estimate, d, signed=True)}**"),
             Markup(f"**{interval_text(result.confidence_interval, d, signed=True)}**")),
        ], "lrc")),
        "",
        f"{result_p(result)} ({sides_text(result)}{resolution}), standard error "
        f"{num(result.standard_error, d)}. Method: {md(describe_method(result, ctx))}",
        *(x for line in (margin_lines(result, ctx) + paired_test_lines(result)
                         + noise_floor_lines(result))
          for x in ("", md(line))),
        "",
        md(ctx.say(result.reading)),
    ]
    runs = runs_section(result)
    if runs is not None:
        title, table, text = runs
        lines += ["", f"**{md(title)}**", "", *markdown(table)]
        if text:
            lines += ["", md(text)]
    if result.strata:
        lines += ["", *markdown(strata_table(result, d))]
    lines += ["", *items_markdown(result, md)]
    if result.warnings:
        lines += ["", "**Warnings**", ""] + [f"- {md(ctx.say(w))}" for w in result.warnings]
    if ctx.notes:
        lines += ["", "**Notes**", ""] + [f"- {md(n)}" for n in ctx.notes]
    lines += ["", f"`{signature(result, ctx)}`"]
    return lines_text(lines)


# ----------------------------------------------------------------------------- latex

def tex_num(x, d: int, *, signed: bool = False) -> str:
    """A number in math mode (``n/a`` as text)."""
    s = num(x, d, signed=signed)
    return "n/a" if s == "n/a" else f"${s}$"


def tex_interval(ci, d: int, *, signed: bool = False) -> str:
    low, high = ci
    left = "($-\\infty$" if low == -math.inf else f"[{tex_num(low, d, signed=signed)}"
    right = ("$+\\infty$)" if signed else "$\\infty$)") if high == math.inf else (
        f"{tex_num(high, d, signed=signed)}]")
    return f"{left}, {right}"


def tex_p(cell: str) -> str:
    """A p-value's cell (:func:`pairboot.report.parts.p_cell`) in math mode: ``<=`` as
    ``\\leq``, a comma braced so that math mode does not space it; ``n/a`` as text."""
    if cell == "n/a":
        return cell
    return "$" + cell.replace("<=", r"\leq").replace(",", "{,}") + "$"


@writes(CompareResult, "latex")
def write_latex(result: CompareResult, context: ReportContext | None = None) -> str:
    """A ``table`` with a booktabs ``tabular`` (``\\usepackage{booktabs}``) and a caption
    naming the systems and the design, ready to ``\\input``, as a family's.

    The result's warnings follow the table twice: as ``% warning: ...`` comments (for
    whoever reads the source) and as a visible small italic note under it.
    """
    ctx = context or ReportContext()
    d = decimals(result.standard_error)
    rows = [
        (Markup(f"A ({tex(ctx.name_a)})"), Markup(tex_num(result.score_a.estimate, d)),
         Markup(tex_interval(result.score_a.confidence_interval, d)), ""),
        (Markup(f"B ({tex(ctx.name_b)})"), Markup(tex_num(result.score_b.estimate, d)),
         Markup(tex_interval(result.score_b.confidence_interval, d)), ""),
        (Markup("B $-$ A"), Markup(tex_num(result.estimate, d, signed=True)),
         Markup(tex_interval(result.confidence_interval, d, signed=True)),
         Markup(tex_p(own_p_cell(result)))),
    ]
    rows += [(Markup(f"\\quad {tex(s.name)} ($w={s.weight:.3f}$)"),
              Markup(tex_num(s.estimate, d, signed=True)),
              Markup(tex_interval(s.confidence_interval, d, signed=True)),
              Markup("n/a" if too_few_units(result, s) else
                     tex_p(result_p_cell(result, s.p_value)))) for s in result.strata]
    table = Table((
        "System", result.metric.capitalize(), Markup(
            f"{tex(percent(result.confidence_level))} interval"
            + (f" (B $-$ A: {tex(percent(result.interval_level))})"
               if result.interval_level != result.confidence_level else "")),
        Markup("$p$")), rows, "lrcr", caption=_caption(result, ctx), rules=(2,))
    warnings = [" ".join(ctx.say(w).split()) for w in result.warnings]
    notes = [r"\par\smallskip"] if warnings else []
    notes += [f"{{\\footnotesize\\emph{{Warning: {tex(w)}}}\\par}}" for w in warnings]
    lines = [f"% {signature(result, ctx)}", r"% needs \usepackage{booktabs}",
             *latex_float(table, after=[*items_latex(result, tex), *notes])]
    lines += [f"% {tex(describe_method(result, ctx))}"]
    lines += [f"% warning: {w}" for w in warnings]
    return lines_text(lines)


def _caption(result: CompareResult, ctx: ReportContext) -> str:
    """B against A, the design, resamples and seed, in one sentence (after the items
    ``common_items`` kept)."""
    kept = kept_line(ctx)
    text = (("" if kept is None else kept + " ")
            + f"B ({ctx.name_b}) against A ({ctx.name_a}): {design(result, ctx)}; "
            f"{result.n_resamples:,} resamples, seed {result.seed}.")
    if result.method == "score":
        text += f" {SCORE_WORDS}."
    if unresolved(result):
        note = resolution_note(result)
        text += f" {note[0].upper()}{note[1:]}."
    text += "".join(" " + line for line in margin_lines(result, ctx)
                    + paired_test_lines(result) + noise_floor_lines(result))
    return tex(text) + f" $p$ {tex(sides_text(result))}."

"""The machine and document formats: JSON (the result object and more), Markdown, LaTeX.

Each writer takes ``(result, context=None)`` and returns the whole report as text, with the
same verdict, numbers, warnings and signature as the text report.
"""

from __future__ import annotations

import json

from pairboot.report.parts import (
    ReportContext,
    decision,
    describe_method,
    format_p,
    headline,
    interval_text,
    num,
    p_cell,
    signature,
    strata_table,
)
from pairboot.result import CompareResult, _json_safe, decimals, percent

# ------------------------------------------------------------------------------ json


def write_json(result: CompareResult, context: ReportContext | None = None) -> str:
    """``result.to_dict()`` as indented JSON, plus the inputs, the notes and the signature.

    NaN and infinities are written as ``null`` (JSON has no spelling for them).
    """
    ctx = context or ReportContext()
    out = result.to_dict()
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
    out["notes"] = list(ctx.notes)
    out["decision"] = decision(result, ctx)
    out["signature"] = signature(result, ctx)
    return json.dumps(_json_safe(out), indent=2, allow_nan=False) + "\n"


# -------------------------------------------------------------------------- markdown


def _md(text: str) -> str:
    return str(text).replace("\\", "\\\\").replace("|", "\\|")


def write_markdown(result: CompareResult, context: ReportContext | None = None) -> str:
    """A Markdown table of both systems and the difference, then the details."""
    ctx = context or ReportContext()
    d = decimals(result.standard_error)
    level = percent(result.confidence_level)
    lines = [
        f"**{_md(headline(result, ctx))}**",
        "",
        f"| system | {_md(result.metric)} | {level} interval |",
        "|---|---:|:---:|",
        f"| A ({_md(ctx.name_a)}) | {num(result.score_a.estimate, d)} | "
        f"{interval_text(result.score_a.confidence_interval, d)} |",
        f"| B ({_md(ctx.name_b)}) | {num(result.score_b.estimate, d)} | "
        f"{interval_text(result.score_b.confidence_interval, d)} |",
        f"| **B - A** | **{num(result.estimate, d, signed=True)}** | "
        f"**{interval_text(result.confidence_interval, d, signed=True)}** |",
        "",
        f"{format_p(result.p_value, result.n_resamples)} (two-sided), standard error "
        f"{num(result.standard_error, d)}. Method: {_md(describe_method(result, ctx))}",
        "",
        _md(ctx.say(result.reading)),
    ]
    if result.strata:
        head, *rows = strata_table(result, d, name=_md)
        lines += ["", "| " + " | ".join(head) + " |",
                  "|---|" + "---:|" * (len(head) - 2) + ":---:|"]
        lines += ["| " + " | ".join(cells) + " |" for cells in rows]
    if result.warnings:
        lines += ["", "**Warnings**", ""] + [f"- {_md(ctx.say(w))}" for w in result.warnings]
    if ctx.notes:
        lines += ["", "**Notes**", ""] + [f"- {_md(n)}" for n in ctx.notes]
    lines += ["", f"`{signature(result, ctx)}`"]
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- latex

_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
    "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    # characters the default (OT1) font encoding lacks or prints as something else
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
    "\u00b1": r"$\pm$", "\u2212": r"$-$", "\u00b7": r"$\cdot$", "\u00d7": r"$\times$",
    "\u2264": r"$\leq$", "\u2265": r"$\geq$", "\u2248": r"$\approx$",
}


def _tex(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(c, c) for c in str(text))


def _tex_num(x, d: int, *, signed: bool = False) -> str:
    s = num(x, d, signed=signed)
    return "n/a" if s == "n/a" else f"${s}$"


def _tex_interval(ci, d: int, *, signed: bool = False) -> str:
    return f"[{_tex_num(ci[0], d, signed=signed)}, {_tex_num(ci[1], d, signed=signed)}]"


def write_latex(result: CompareResult, context: ReportContext | None = None) -> str:
    """A ``tabular`` (plain ``\\hline`` rules, no extra package) ready to ``\\input``.

    The result's warnings follow the table twice: as ``% warning: ...`` comments (for
    whoever reads the source) and as a visible small italic note under the table.
    """
    ctx = context or ReportContext()
    d = decimals(result.standard_error)
    p_tex = f"${p_cell(result.p_value, result.n_resamples)}$"
    lines = [
        f"% {signature(result, ctx)}",
        r"\begin{tabular}{lrcr}",
        r"\hline",
        f"System & {_tex(result.metric.capitalize())} & "
        f"{_tex(percent(result.confidence_level))} interval & $p$ \\\\",
        r"\hline",
        f"A ({_tex(ctx.name_a)}) & {_tex_num(result.score_a.estimate, d)} & "
        f"{_tex_interval(result.score_a.confidence_interval, d)} & \\\\",
        f"B ({_tex(ctx.name_b)}) & {_tex_num(result.score_b.estimate, d)} & "
        f"{_tex_interval(result.score_b.confidence_interval, d)} & \\\\",
        r"\hline",
        f"B $-$ A & {_tex_num(result.estimate, d, signed=True)} & "
        f"{_tex_interval(result.confidence_interval, d, signed=True)} & {p_tex} \\\\",
    ]
    for s in result.strata:
        lines.append(
            f"\\quad {_tex(s.name)} ($w={s.weight:.3f}$) & {_tex_num(s.estimate, d, signed=True)}"
            f" & {_tex_interval(s.confidence_interval, d, signed=True)} & "
            f"${p_cell(s.p_value, result.n_resamples)}$ \\\\"
        )
    lines += [
        r"\hline",
        r"\end{tabular}",
        f"% {_tex(describe_method(result, ctx))}",
    ]
    warnings = [" ".join(ctx.say(w).split()) for w in result.warnings]
    lines += [f"% warning: {w}" for w in warnings]
    if warnings:
        lines.append(r"\par\smallskip")
        lines += [f"{{\\footnotesize\\emph{{Warning: {_tex(w)}}}\\par}}" for w in warnings]
    return "\n".join(lines) + "\n"

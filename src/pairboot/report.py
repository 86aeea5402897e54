"""Reports of a comparison: text, JSON, Markdown and LaTeX, from one :class:`CompareResult`.

Every writer has the signature ``writer(result, context=None) -> str`` and is registered in
:data:`WRITERS` under its format name; :func:`render` picks one.  ``context`` carries what
the result does not know: the names of the inputs, the grouping and stratum columns, and
notes (such as the nudge towards the cluster bootstrap) that the command line adds.

Every format ends with the same reproducibility line (:func:`signature`), in the manner of
sacrebleu's signature::

    pairboot 0.1.0 | paired percentile | metric mean | resamples 10000 | level 0.95 | seed 1
    | engine numba | numpy 2.4.6

(on one line).

Numbers are shown with as many decimals as the standard error of the difference warrants,
the same for every number of one report: ``max(2, 1 - floor(log10(se)))``, at most 6 (4
when the standard error is 0 or undefined).  That rule is one function,
:func:`pairboot.result.decimals`, which the reading of the result uses too.
"""

from __future__ import annotations

import json
import math
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pairboot.result import CompareResult, _json_safe, decimals, percent

__all__ = [
    "FAIL_IF",
    "ReportContext",
    "decision",
    "headline",
    "WRITERS",
    "render",
    "signature",
    "decimals",
    "format_p",
    "write_text",
    "write_json",
    "write_markdown",
    "write_latex",
]

WIDTH = 88
"""Line width the text report wraps its prose to."""


@dataclass(frozen=True, slots=True)
class ReportContext:
    """What a report says about the inputs, beyond the result itself.

    Attributes
    ----------
    name_a, name_b : str
        How systems A and B are labelled (a file name or a column name).
    files : tuple of str
        The input files, as given.
    layout : str
        One phrase on how items were aligned ("joined on column 'id'").
    group, stratum : str or None
        The grouping and stratum columns, when used.
    notes : tuple of str
        Extra remarks, printed after the warnings.
    id : str or None
        The id column the inputs were joined on (``--id``), for the signature.
    stats : tuple of str or None
        The statistic columns asked for (``--stats``), for the signature.
    metric_source : str or None
        Where a user-defined metric came from (``FILE.py:NAME`` as given), for the
        signature.
    stratum_weights : str or None
        The population weights as given (``--stratum-weights``), for the signature.
    reword : callable or None
        Applied to every message taken from the result (its warnings and reading), so
        that the command line can use its own spelling of the options.
    lower_is_better : bool
        The metric is an error rate or a loss: B is better when B - A is negative.
    fail_if : str or None
        The verdicts that fail the run (a key of :data:`FAIL_IF`), when asked for.
    """

    name_a: str = "A"
    name_b: str = "B"
    files: tuple[str, ...] = ()
    layout: str = ""
    group: str | None = None
    stratum: str | None = None
    notes: tuple[str, ...] = ()
    id: str | None = None
    stats: tuple[str, ...] | None = None
    metric_source: str | None = None
    stratum_weights: str | None = None
    reword: Callable[[str], str] | None = None
    lower_is_better: bool = False
    fail_if: str | None = None

    def say(self, text: str) -> str:
        """``text`` (a warning or the reading) as this report's reader should see it."""
        return self.reword(text) if self.reword is not None else text


# ------------------------------------------------------------------------ formatting


def _finite(x) -> bool:
    return x is not None and isinstance(x, (int, float)) and math.isfinite(x)


def _num(x, d: int, *, signed: bool = False) -> str:
    if not _finite(x):
        return "n/a"
    return f"{x:+.{d}f}" if signed else f"{x:.{d}f}"


def _interval(ci, d: int, *, signed: bool = False) -> str:
    return f"[{_num(ci[0], d, signed=signed)}, {_num(ci[1], d, signed=signed)}]"


def format_p(p: float | None, n_resamples: int) -> str:
    """``"p = 0.0123"``, ``"p < 0.0001"``, or ``"p < 1/10000"`` when ``p`` is 0.

    A p-value of exactly 0 means no resample fell on the other side of 0, so all the
    resamples can tell is that p is below ``1 / n_resamples``.
    """
    if not _finite(p):
        return "p = n/a"
    if p == 0:
        return f"p < 1/{n_resamples}"
    if p < 1e-4:
        return "p < 0.0001"
    if p < 0.01:
        return f"p = {p:.4f}"
    return f"p = {p:.3f}"


def _p_cell(p: float | None, n_resamples: int) -> str:
    """format_p without the leading "p" (and "="), for a table cell."""
    return format_p(p, n_resamples).removeprefix("p ").removeprefix("= ")


FAIL_IF: dict[str, frozenset[str]] = {
    "worse": frozenset({"worse"}),
    "not-better": frozenset({"worse", "inconclusive", "undefined"}),
    "different": frozenset({"better", "worse"}),
}
"""For each ``--fail-if`` choice, the verdicts (:meth:`CompareResult.verdict`) that fail
the run: B surely worse; B not surely better (an undefined interval is not a yes); B
surely different."""


def decision(result: CompareResult, context: ReportContext | None = None) -> dict:
    """The verdict and, when ``context.fail_if`` asks, whether it fails the run."""
    ctx = context or ReportContext()
    verdict = result.verdict(lower_is_better=ctx.lower_is_better)
    return {
        "verdict": verdict,
        "lower_is_better": ctx.lower_is_better,
        "fail_if": ctx.fail_if,
        "failed": ctx.fail_if is not None and verdict in FAIL_IF[ctx.fail_if],
        "headline": headline(result, ctx),
    }


def headline(result: CompareResult, context: ReportContext | None = None) -> str:
    """The verdict in one sentence, the first line of the text report.

    >>> import pairboot
    >>> res = pairboot.compare([0.2, 0.5, 0.4, 0.7] * 10, [0.3, 0.6, 0.4, 0.9] * 10)
    >>> print(headline(res))
    B is better than A by +0.100 [+0.078, +0.122], 95% paired bootstrap, p < 1/10000.
    """
    ctx = context or ReportContext()
    d = decimals(result.standard_error)
    a = "A" if ctx.name_a == "A" else f"A ({ctx.name_a})"
    b = "B" if ctx.name_b == "B" else f"B ({ctx.name_b})"
    how = (f"{percent(result.confidence_level)} {'paired' if result.paired else 'unpaired'}"
           f"{'' if result.method == 'percentile' else ' ' + result.method} bootstrap, "
           f"{format_p(result.p_value, result.n_resamples)}")
    numbers = (f"{_num(result.estimate, d, signed=True)} "
               f"{_interval(result.confidence_interval, d, signed=True)}, {how}")
    lower = " (lower is better)" if ctx.lower_is_better else ""
    verdict = result.verdict(lower_is_better=ctx.lower_is_better)
    if verdict in ("better", "worse"):
        return f"{b} is {verdict} than {a} by {numbers}{lower}."
    if verdict == "undefined":
        return (f"No verdict: the {result.method} interval is undefined for these data "
                f"(B - A = {_num(result.estimate, d, signed=True)}; see the warnings).")
    unit = f"{result.n_groups:,} groups" if result.n_groups is not None else (
        f"{result.n_items:,} items")
    needed = ""
    if result.items_needed is not None:
        more = (f"{result.groups_needed:,} groups" if result.groups_needed is not None
                else f"{result.items_needed:,} items")
        needed = f"; about {more} would be needed to detect a difference this large"
    return (f"No difference detected at this test-set size ({unit}): B - A = {numbers}"
            f"{needed}.")


def signature(result: CompareResult, context: ReportContext | None = None) -> str:
    """The reproducibility line: everything needed to repeat the run exactly.

    Besides the result's own settings it names, when the context knows them, the id
    column, the ``--stats`` columns, where a user-defined metric came from, the stratum
    weights as given, and numpy's version (the exact multinomial path draws with
    numpy's generator).
    """
    context = context or ReportContext()
    metric = f"metric {result.metric}"
    if context.metric_source:
        metric += f" ({context.metric_source})"
    parts = [
        f"pairboot {result.version}",
        f"{'paired' if result.paired else 'unpaired'} {result.method}",
        metric,
    ]
    if context.stats:
        parts.append(f"stats {','.join(context.stats)}")
    parts += [
        f"resamples {result.n_resamples}",
        f"level {result.confidence_level:g}",
        f"seed {result.seed}",
    ]
    if context.id:
        parts.append(f"id {context.id}")
    if result.n_groups is not None:
        parts.append(f"groups {context.group or 'yes'} ({result.group_weighting})")
    if result.n_strata is not None:
        strata = f"strata {context.stratum or 'yes'}"
        if context.stratum_weights:
            strata += f" (weights {context.stratum_weights})"
        parts.append(strata)
    parts.append(f"engine {result.engine}")
    parts.append(f"numpy {np.__version__}")
    return " | ".join(" ".join(p.replace("|", "/").split()) for p in parts)


_METHOD_WORDS = {
    "percentile": "percentile interval",
    "basic": "basic (reverse percentile) interval",
    "normal": "normal interval, bias-corrected as R boot's norm.ci (centred at "
    "2 * estimate - mean of the resamples, +/- z * standard error)",
    "bca": "BCa (bias-corrected and accelerated) interval",
    "studentized": "studentized (bootstrap-t) interval",
}


def describe_method(result: CompareResult, context: ReportContext | None = None) -> str:
    """One sentence: what was resampled, and which interval."""
    context = context or ReportContext()
    if result.n_groups is not None:
        col = f" of {context.group!r}" if context.group else ""
        unit = f"{result.n_groups:,} whole groups{col} ({result.n_items:,} items)"
        units = "groups"
    else:
        unit = f"{result.n_items:,} items"
        units = "items"
    within = f", within each of {result.n_strata:,} strata" if result.n_strata is not None else ""
    if result.paired:
        how = (
            f"paired bootstrap: each resample draws {unit} with replacement{within}, and "
            "scores both systems on the same draw"
        )
    else:
        how = f"unpaired bootstrap: A's and B's {units} are drawn independently{within}"
    words = _METHOD_WORDS.get(result.method, f"{result.method} interval")
    return f"{how}; {words}, {result.n_resamples:,} resamples."


# ------------------------------------------------------------------------------ text


def write_text(result: CompareResult, context: ReportContext | None = None) -> str:
    """A plain-text report that reads like the spec's example."""
    ctx = context or ReportContext()
    d = decimals(result.standard_error)
    level = percent(result.confidence_level)
    label_a = "A" if ctx.name_a == "A" else f"A  {ctx.name_a}"
    label_b = "B" if ctx.name_b == "B" else f"B  {ctx.name_b}"
    label_d = "B - A"
    width = max(len(label_a), len(label_b), len(label_d), 8)
    value_w = max(len(_num(v, d, signed=True)) for v in
                  (result.score_a.estimate, result.score_b.estimate, result.estimate))
    value_w = max(value_w, len(result.metric))

    lines = [headline(result, ctx)]  # one line, whatever its length: easy to grep or quote
    title = "pairboot compare: {} vs {}".format(
        "B" if ctx.name_b == "B" else f"{ctx.name_b} (B)",
        "A" if ctx.name_a == "A" else f"{ctx.name_a} (A)",
    )
    if ctx.layout:
        title += f", {ctx.layout}"
    lines.append("")
    lines.extend(_wrap(title))
    lines.append("")
    lines.append(f"  {'':<{width}}  {result.metric:>{value_w}}   {level} interval")
    for label, score in ((label_a, result.score_a), (label_b, result.score_b)):
        lines.append(
            f"  {label:<{width}}  {_num(score.estimate, d):>{value_w}}   "
            f"{_interval(score.confidence_interval, d)}"
        )
    lines.append(
        f"  {label_d:<{width}}  {_num(result.estimate, d, signed=True):>{value_w}}   "
        f"{_interval(result.confidence_interval, d, signed=True)}"
    )
    lines.append("")
    lines.append(
        f"  {format_p(result.p_value, result.n_resamples)} (two-sided; null hypothesis: "
        "no difference between A and B)"
    )
    mc = result.monte_carlo_error
    lines.append(
        f"  standard error {_num(result.standard_error, d)}; Monte Carlo error of the "
        f"endpoints +/-{_num(mc[0], d + 1)} / +/-{_num(mc[1], d + 1)}"
    )
    if result.n_groups is not None:
        col = f" (column {ctx.group!r})" if ctx.group else ""
        estimand = "items" if result.group_weighting == "items" else "groups"
        lines.append(
            f"  groups: {result.n_groups:,}{col}, resampled whole; estimand: the mean over "
            f"{estimand}"
        )
    if result.n_strata is not None:
        col = f" (column {ctx.stratum!r})" if ctx.stratum else ""
        lines.append(
            f"  strata: {result.n_strata:,}{col}, resampled within each; weights in the table "
            "below"
        )
    lines.append("")
    lines.extend(_wrap("Method: " + describe_method(result, ctx)))
    lines.extend(_wrap("Reading: " + ctx.say(result.reading)))
    if result.strata:
        lines.append("")
        col = f" (column {ctx.stratum!r})" if ctx.stratum else ""
        lines.append(f"Strata{col}: the difference within each stratum, same resamples")
        lines.extend("  " + row for row in _strata_rows(result, d))
    if result.warnings:
        lines.append("")
        lines.append("Warnings:")
        for w in result.warnings:
            lines.extend(_wrap(ctx.say(w), bullet="  - "))
    if ctx.notes:
        lines.append("")
        lines.append("Notes:")
        for note in ctx.notes:
            lines.extend(_wrap(note, bullet="  - "))
    lines.append("")
    lines.append(signature(result, ctx))
    return "\n".join(lines) + "\n"


def _wrap(text: str, bullet: str = "") -> list[str]:
    indent = " " * len(bullet)
    return textwrap.wrap(
        text, WIDTH, initial_indent=bullet, subsequent_indent=indent or "  ",
        break_on_hyphens=False, break_long_words=False,
    ) or [bullet]


def _strata_table(result: CompareResult, d: int, name=str) -> list[list[str]]:
    """The per-stratum table's cells, header first (``name`` renders a stratum's name)."""
    grouped = any(s.n_groups is not None for s in result.strata)
    header = ["stratum", "weight", "items"] + (["groups"] if grouped else []) + [
        "A", "B", "B - A", f"{percent(result.confidence_level)} interval", "p"]
    rows = [header]
    for s in result.strata:
        row = [name(s.name), f"{s.weight:.3f}", f"{s.n_items:,}"]
        if grouped:
            row.append("" if s.n_groups is None else f"{s.n_groups:,}")
        row += [
            _num(s.score_a, d),
            _num(s.score_b, d),
            _num(s.estimate, d, signed=True),
            _interval(s.confidence_interval, d, signed=True),
            _p_cell(s.p_value, result.n_resamples),
        ]
        rows.append(row)
    return rows


def _strata_rows(result: CompareResult, d: int) -> list[str]:
    rows = _strata_table(result, d)
    header = rows[0]
    widths = [max(len(r[j]) for r in rows) for j in range(len(header))]
    out = []
    for r in rows:
        cells = [r[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:])]
        out.append("  ".join(cells).rstrip())
    return out


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
        f"| A ({_md(ctx.name_a)}) | {_num(result.score_a.estimate, d)} | "
        f"{_interval(result.score_a.confidence_interval, d)} |",
        f"| B ({_md(ctx.name_b)}) | {_num(result.score_b.estimate, d)} | "
        f"{_interval(result.score_b.confidence_interval, d)} |",
        f"| **B - A** | **{_num(result.estimate, d, signed=True)}** | "
        f"**{_interval(result.confidence_interval, d, signed=True)}** |",
        "",
        f"{format_p(result.p_value, result.n_resamples)} (two-sided), standard error "
        f"{_num(result.standard_error, d)}. Method: {_md(describe_method(result, ctx))}",
        "",
        _md(ctx.say(result.reading)),
    ]
    if result.strata:
        head, *rows = _strata_table(result, d, name=_md)
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
    s = _num(x, d, signed=signed)
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
    p_tex = f"${_p_cell(result.p_value, result.n_resamples)}$"
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
            f"${_p_cell(s.p_value, result.n_resamples)}$ \\\\"
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


# -------------------------------------------------------------------------- registry

Writer = Callable[[CompareResult, "ReportContext | None"], str]

WRITERS: dict[str, Writer] = {
    "text": write_text,
    "json": write_json,
    "markdown": write_markdown,
    "latex": write_latex,
}
"""Format name -> writer; the command line's ``--format`` choices are its keys."""


def render(
    result: CompareResult, format: str = "text", context: ReportContext | None = None
) -> str:
    """The report of ``result`` in ``format`` (a key of :data:`WRITERS`)."""
    try:
        writer = WRITERS[format]
    except KeyError:
        raise ValueError(
            f"unknown report format {format!r}; choose one of {', '.join(WRITERS)}"
        ) from None
    return writer(result, context)

"""The writers of a family's report: text, JSON, Markdown and LaTeX.

Each is ``writer(result, context=None) -> str``, registered for :class:`FamilyResult`
(``@writes``); what they all say comes from :mod:`pairboot.report.family`, and the
comparisons table every format shows (the HTML one too) is :func:`comparisons_table`.
"""

from __future__ import annotations

import dataclasses

from pairboot.report.escape import lines_text, md, tex
from pairboot.report.family import (
    TEST_COLUMN,
    FamilyContext,
    baseline_of,
    better_than,
    comparison_cells,
    family_decimals,
    family_kind,
    family_p_fields,
    family_test_lines,
    hypothesis_lines,
    interval_name,
    is_corrected,
    letters,
    level_words,
    marginal_name,
    margined,
    plural,
    procedure,
    rank_text,
    row_p,
    strata_count,
    summary,
    superscripts,
    unresolved_note,
)
from pairboot.report.family_method import (
    describe_family,
    family_design,
    family_line,
    family_signature,
)
from pairboot.report.formats import tex_interval, tex_num, tex_p
from pairboot.report.numbers import percent
from pairboot.report.parts import interval_text, kept_line, num
from pairboot.report.parts import wrap as _wrap
from pairboot.report.registry import writes
from pairboot.report.schemas import json_report
from pairboot.report.table import Markup, Table, latex_float, markdown, text
from pairboot.results.compare import json_safe
from pairboot.results.family import FamilyResult


def comparison_head(result: FamilyResult) -> list[str]:
    """The comparisons table's columns: b - a, the estimate, the family's interval, and
    (corrected) the marginal interval, p and adjusted p, else p; a margin's and the
    verdict with a margin's hypothesis; the family test's p; a last one for the row's
    mark."""
    head = ["comparison", "estimate", interval_name(result)]
    head += [marginal_name(result), "p", "adjusted p"] if is_corrected(result) else ["p"]
    if margined(result):
        head += (["margin"] if result.margin is None else []) + ["verdict"]
    head += [TEST_COLUMN] if result.test is not None else []
    return head + [""]


def comparisons_table(result: FamilyResult, d: int, marks: list[str]) -> Table:
    """The comparisons, a row each (:func:`comparison_cells`, then its entry of
    ``marks``: significant, its note), aligned for Markdown: the intervals centred, the
    verdict and the mark left."""
    corrected = is_corrected(result)
    align = ("lrc" + "c" * corrected + "r" + "r" * corrected
             + "r" * (margined(result) and result.margin is None) + "l" * margined(result)
             + "r" * (result.test is not None) + "l")
    rows = [comparison_cells(c, d, result) + [mark]
            for c, mark in zip(result.comparisons, marks)]
    return Table(comparison_head(result), rows, align)


# ---------------------------------------------------------------------------------- text


@writes(FamilyResult, "text")
def family_text(result: FamilyResult, context: FamilyContext | None = None) -> str:
    """The plain-text report: the summary line, the systems, the comparisons, the method,
    the warnings and notes, the signature."""
    ctx = context or FamilyContext()
    d = family_decimals(result)
    level = percent(result.confidence_level)
    corrected = is_corrected(result)
    alpha = 1 - result.confidence_level

    kept = kept_line(ctx)
    lines = [summary(result), *([kept] if kept is not None else []), ""]
    lines += _wrap(f"Family: {family_line(result)}")
    if ctx.family_note:  # (one line, whatever its length: easy to grep or quote)
        lines.append(f"Note: {ctx.family_note}")
    if ctx.plan_sha256:
        lines.append(f"Plan: sha256 {ctx.plan_sha256}")
    if ctx.layout:
        lines += _wrap(f"Inputs: {ctx.layout}")

    # the systems
    ranked = result.rank_intervals is not None
    best = set(result.best_set or ())
    head = ["system", result.metric, f"{level} interval"]
    if ranked:
        head += ["rank", ""]
    rows = []
    for name, score in result.systems.items():
        row = [name, num(score.estimate, d), interval_text(score.confidence_interval, d)]
        if ranked:
            row += [rank_text(result, name), "could be best" if name in best else ""]
        rows.append(row)
    lines.append("")
    lines += text(Table(head, rows, "lrrrl"[:len(head)]))
    if ranked:
        lower = ", lower is better" if result.lower_is_better else ""
        kind = ("simultaneous confidence set" if corrected or result.family_size == 1
                else "confidence set (from uncorrected intervals: not simultaneous)")
        lines += _wrap(f"  rank: a {level} {kind} for the system's rank (1 is the best{lower})")

    # the comparisons
    notes: list[str] = []
    marks = []
    for c in result.comparisons:
        mark = "*" if c.significant else ""
        if c.note:
            notes.append(ctx.say(c.note))
            mark += f" ({len(notes)})"
        marks.append(mark.strip())
    table = comparisons_table(result, d, marks)
    n = len(table.align)  # (text right-aligns all but the first and the mark)
    lines.append("")
    lines += text(dataclasses.replace(table, align="l" + "r" * (n - 2) + "l"))
    p_name = ("q" if result.fcr_level is not None else "adjusted p") if corrected else "p"
    after = "after the correction" if corrected else "without a correction"
    lines += _wrap(f"  * significant {after}: {p_name} < {alpha:g}")
    for line in hypothesis_lines(result, ctx) + family_test_lines(result, rows=False):
        lines += _wrap(line, bullet="  ")
    resolution = unresolved_note(result)
    if resolution:
        lines += _wrap(f"  {resolution}")
    for k, note in enumerate(notes, 1):
        lines += _wrap(f"({k}) {note}", bullet="  ")

    lines.append("")
    lines += _wrap("Method: " + describe_family(result))
    if result.warnings:
        lines += ["", "Warnings:"]
        for w in result.warnings:
            lines += _wrap(ctx.say(w), bullet="  - ")
    if ctx.notes:
        lines += ["", "Notes:"]
        for note in ctx.notes:
            lines += _wrap(note, bullet="  - ")
    lines += ["", family_signature(result, ctx)]
    return lines_text(lines)


# ---------------------------------------------------------------------------------- json


@writes(FamilyResult, "json", schema="pairboot.family/1")
def family_json(result: FamilyResult, context: FamilyContext | None = None) -> str:
    """``result.to_dict()`` as indented JSON, plus the summary, who beats whom, the
    inputs, the plan's hash or the family's note, the notes and the signature.

    NaN and infinities are written as ``null`` (JSON has no spelling for them).
    """
    ctx = context or FamilyContext()
    out = result.to_dict()
    out["warnings"] = [ctx.say(w) for w in result.warnings]
    out["comparisons"] = [_with_p_fields(row, family_p_fields(result, c))
                          for row, c in zip(out["comparisons"], result.comparisons)]
    for row in out["comparisons"]:
        if row.get("note"):
            row["note"] = ctx.say(row["note"])
    out["summary"] = summary(result)
    out["better_than"] = {name: list(v) for name, v in better_than(result).items()}
    out["input"] = {"files": list(ctx.files), "layout": ctx.layout or None}
    out["plan_sha256"] = ctx.plan_sha256
    out["family_note"] = ctx.family_note
    out["notes"] = list(ctx.notes)
    kept = getattr(ctx, "items_kept", None)
    out["common_items"] = None if kept is None else {**kept.to_dict(), "text": kept_line(ctx)}
    out["signature"] = family_signature(result, ctx)
    return json_report(result, json_safe(out))


def _with_p_fields(row: dict, fields: dict) -> dict:
    """A comparison's JSON with each p-value's bound and text right after it."""
    out = {}
    for key, value in row.items():
        out[key] = value
        if key in ("p_value", "p_adjusted"):
            out.update({k: v for k, v in fields.items()
                        if k.startswith(key + "_") or (key == "p_value" and k == "p_text")})
    return out


# ------------------------------------------------------------------------------ markdown


def _explain(result: FamilyResult) -> str:
    """What the superscripts, the bold scores and the ranks of a systems table mean."""
    corrected = is_corrected(result)
    text = ("A superscript names the systems a score is significantly better than "
            f"{'after the correction' if corrected else '(no correction)'}")
    if result.best_set:
        text += "; bold: could be the best"
    if result.rank_intervals is not None:
        kind = "simultaneous " if corrected or result.family_size == 1 else ""
        text += (f"; rank: a {percent(result.confidence_level)} {kind}confidence set "
                 "(1 is the best)")
    return text


def _caption(result: FamilyResult, ctx: FamilyContext, *, p_shown: bool = True) -> str:
    """Family size, procedure, level, the design (what was resampled: items or groups,
    within strata), resamples and seed, in one sentence; and, when the table shows
    p-values (``p_shown``) that the resamples cannot resolve, what their bound means."""
    m = len(result.comparisons)
    kind = "" if m == 1 else f" ({family_kind(result)})"
    systems = plural(len(result.systems), "system")
    if getattr(result, "strata_family", None):  # (as the summary line counts them)
        systems = f"2 systems in {strata_count(len(result.strata_family))}"
    text = (f"{systems}, {plural(m, 'comparison')}{kind}; "
            f"{procedure(result)}, {level_words(result)}; {family_design(result, ctx)}; "
            f"{result.n_resamples:,} resamples, seed {result.seed}.")
    resolution = unresolved_note(result) if p_shown else None
    return text + (f" {resolution}." if resolution else "")


@writes(FamilyResult, "markdown")
def family_markdown(result: FamilyResult, context: FamilyContext | None = None) -> str:
    """A table of the systems (score with the letters of the systems it is significantly
    better than), the comparisons table, a caption line, then the details."""
    ctx = context or FamilyContext()
    d = family_decimals(result)
    level = percent(result.confidence_level)
    mark = letters(result.systems)
    sup = superscripts(result)
    ranked = result.rank_intervals is not None
    best = set(result.best_set or ())

    kept = kept_line(ctx)
    lines = [f"**{md(summary(result))}**", *(["", md(kept)] if kept is not None else []),
             ""]
    head = ["", "system", result.metric, f"{level} interval"] + (["rank"] if ranked else [])
    rows = []
    for name, score in result.systems.items():
        value = num(score.estimate, d) + (f"<sup>{sup[name]}</sup>" if sup[name] else "")
        if name in best:
            value = f"**{value}**"
        row = [mark[name], name, Markup(value), interval_text(score.confidence_interval, d)]
        if ranked:
            row.append(rank_text(result, name))
        rows.append(row)
    lines += markdown(Table(head, rows, "llrcc"[:len(head)]))

    marks = []
    for c in result.comparisons:
        cell = "**significant**" if c.significant else ""
        if c.note:
            cell = (cell + "; " if cell else "") + md(ctx.say(c.note))
        marks.append(Markup(cell))
    lines += ["", *markdown(comparisons_table(result, d, marks))]

    lines += ["", f"*{md(_caption(result, ctx))} {_explain(result)}.*"]
    lines += [x for line in hypothesis_lines(result, ctx)
              + family_test_lines(result, rows=False) for x in ("", md(line))]
    if ctx.plan_sha256:
        lines += ["", f"Plan: sha256 `{ctx.plan_sha256}`"]
    if ctx.family_note:
        lines += ["", f"Family: {md(ctx.family_note)}"]
    if result.warnings:
        lines += ["", "**Warnings**", ""] + [f"- {md(ctx.say(w))}" for w in result.warnings]
    if ctx.notes:
        lines += ["", "**Notes**", ""] + [f"- {md(n)}" for n in ctx.notes]
    lines += ["", f"`{family_signature(result, ctx)}`"]
    return lines_text(lines)


# --------------------------------------------------------------------------------- latex


def _tex_caption(result: FamilyResult, ctx: FamilyContext, extra: str, *,
                 p_shown: bool = True) -> str:
    said = "".join(" " + line
                   for line in hypothesis_lines(result, ctx) + family_test_lines(result))
    kept = kept_line(ctx)  # (the items --common-items kept: first)
    return (tex(("" if kept is None else kept + " ") + _caption(result, ctx, p_shown=p_shown)
                + said) + " " + extra)


@writes(FamilyResult, "latex")
def family_latex(result: FamilyResult, context: FamilyContext | None = None) -> str:
    """A ``table`` with a booktabs ``tabular`` and a caption, ready to ``\\input``.

    A baseline family (every comparison shares the same ``a``) gets the baseline layout:
    each system's score, its difference from the baseline, the family's interval and the
    adjusted p-value.  Any other family gets ranx's layout: each system's score with
    superscript letters naming the systems it is significantly better than after the
    correction, its interval and, for all pairs, its rank interval.
    """
    ctx = context or FamilyContext()
    lines = [
        f"% {family_signature(result, ctx)}",
        r"% needs \usepackage{booktabs}",
    ]
    if ctx.plan_sha256:
        lines.append(f"% plan sha256 {ctx.plan_sha256}")
    if ctx.family_note:
        lines.append(f"% {' '.join(tex(ctx.family_note).split())}")
    base = baseline_of(result)
    body = (_latex_baseline(result, base, ctx) if base is not None
            else _latex_letters(result, ctx))
    lines += body
    warnings = [" ".join(ctx.say(w).split()) for w in result.warnings]
    lines += [f"% warning: {tex(w)}" for w in warnings]
    return lines_text(lines)


def _latex_letters(result: FamilyResult, ctx: FamilyContext) -> list[str]:
    d = family_decimals(result)
    level = percent(result.confidence_level)
    mark = letters(result.systems)
    sup = superscripts(result)
    ranked = result.rank_intervals is not None
    best = set(result.best_set or ())
    head = ["", "System", result.metric.capitalize(), f"{level} interval"] + (
        ["Rank"] if ranked else [])
    rows = []
    for name, score in result.systems.items():
        value = num(score.estimate, d)
        if name in best and value != "n/a":
            value = rf"\mathbf{{{value}}}"
        if sup[name]:
            value += rf"^{{\mathrm{{{sup[name]}}}}}"
        cell = "n/a" if value == "n/a" else f"${value}$"
        row = [mark[name], name, Markup(cell), Markup(tex_interval(score.confidence_interval, d))]
        if ranked:
            row.append(Markup(rank_text(result, name).replace("-", "--")))
        rows.append(row)
    caption = _tex_caption(result, ctx, tex(_explain(result)) + ".", p_shown=False)
    return latex_float(Table(head, rows, "llrcc"[:len(head)], caption=caption))


def _latex_baseline(result: FamilyResult, base: str, ctx: FamilyContext) -> list[str]:
    d = family_decimals(result)
    corrected = is_corrected(result)
    against = {c.b: c for c in result.comparisons}
    head = ["System", result.metric.capitalize(), Markup(f"$\\Delta$ vs {tex(base)}"),
            interval_name(result), Markup("adjusted $p$" if corrected else "$p$")]
    rows = [[Markup(f"{tex(base)} (baseline)"),
             Markup(tex_num(result.systems[base].estimate, d)), "", "", ""]]
    for name, score in result.systems.items():
        if name == base:
            continue
        c = against.get(name)
        if c is None:  # (a system outside the family)
            rows.append([name, Markup(tex_num(score.estimate, d)), "", "", ""])
            continue
        delta = num(c.estimate, d, signed=True)
        if delta != "n/a":
            delta = f"${delta}{'^{*}' if c.significant else ''}$"
        p = tex_p(row_p(result, c, c.p_adjusted, adjusted=True))
        rows.append([name, Markup(tex_num(score.estimate, d)), Markup(delta),
                     Markup(tex_interval(c.confidence_interval, d, signed=True)), Markup(p)])
    alpha = 1 - result.confidence_level
    star = (f"$^{{*}}$: {'adjusted ' if corrected else ''}$p < {alpha:g}$"
            + (" after the correction" if corrected else " (no correction)"))
    caption = _tex_caption(result, ctx, star + ".")
    return latex_float(Table(head, rows, "lrrcr", caption=caption))

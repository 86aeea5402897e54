"""The HTML fragment and page of a family of comparisons (:class:`FamilyResult`): the
summary line first, the systems, the comparisons (one per stratum for
:func:`pairboot.compare_strata`), what the family tests, the forest plot (and the
matrix of an all-pairs family), the warnings, the method and the signature.

The same cells as the text and Markdown reports (:mod:`pairboot.report.family`), written
by :mod:`pairboot.report.html`'s helpers.
"""

from __future__ import annotations

from pairboot.report.family import (
    FamilyContext,
    better_than,
    comparison_cells,
    family_decimals,
    family_kind,
    family_test_lines,
    hypothesis_lines,
    is_corrected,
    letters,
    rank_text,
    summary,
    unresolved_note,
)
from pairboot.report.family_formats import comparison_head
from pairboot.report.family_method import describe_family, family_line, family_signature
from pairboot.report.html import (
    cell,
    document,
    esc,
    name_cell,
    paragraphs,
    signature_line,
    svg_of,
    table,
    warnings_section,
    wrap_fragment,
)
from pairboot.report.numbers import percent
from pairboot.report.parts import interval_text, kept_line, num
from pairboot.report.registry import writes
from pairboot.results.family import FamilyResult

__all__ = ["family_html", "fragment_family", "family_items_section"]

FOREST_MOST = 15
"""An all-pairs family of more comparisons shows only its matrix (a forest of more rows
reads badly on a phone and costs time to draw)."""


def family_items_section(result: FamilyResult, context) -> str:
    """The items behind each comparison of a family: not listed yet (a family's result
    carries no items; compare() of a pair lists them), so nothing."""
    return ""


@writes(FamilyResult, "html-fragment", part=True)
def fragment_family(result: FamilyResult, context: FamilyContext | None = None) -> str:
    """A family's fragment (see the module's docstring)."""
    ctx = context or FamilyContext()
    d = family_decimals(result)
    level = percent(result.confidence_level)
    corrected = is_corrected(result)
    out = [f'<p class="verdict" data-field="summary">{esc(summary(result))}</p>']
    kept = kept_line(ctx)
    if kept is not None:  # (the items --common-items kept: beside the verdict)
        out.append(f'<p class="note" data-field="common_items">{esc(kept)}</p>')
    out.append(f"<p>Family: {esc(family_line(result))}</p>")
    if ctx.family_note:
        out.append(f'<p class="note">Note: {esc(ctx.family_note)}</p>')
    if ctx.plan_sha256:
        out.append(f'<p class="note">Plan: sha256 <code>{esc(ctx.plan_sha256)}</code></p>')
    if ctx.layout:
        out.append(f'<p class="note">Inputs: {esc(ctx.layout)}</p>')

    # the systems, with the letters of those each is significantly better than
    ranked = result.rank_intervals is not None
    best = set(result.best_set or ())
    mark = letters(result.systems)
    beats = better_than(result)
    head = ["", "system", result.metric, f"{level} interval"] + (
        ["rank", ""] if ranked else []) + ["better than"]
    rows = []
    for name, score in result.systems.items():
        row = [cell(mark[name], cls="left"), name_cell(name),
               cell(num(score.estimate, d), field=f"systems.{name}.estimate", cls="num"),
               cell(interval_text(score.confidence_interval, d),
                    field=f"systems.{name}.confidence_interval", cls="num")]
        if ranked:
            row += [cell(rank_text(result, name), field=f"rank_intervals.{name}", cls="num"),
                    cell("could be best" if name in best else "", cls="left")]
        row.append(cell(" ".join(mark[b] for b in beats.get(name, ())), cls="left"))
        rows.append(row)
    out.append(table(head, rows, cls="systems", align="ll" + "r" * (2 + ranked) + "ll"))
    after = "after the correction" if corrected else "(no correction)"
    note = f"better than: the letters of the systems it is significantly better than {after}"
    if ranked:
        lower = ", lower is better" if result.lower_is_better else ""
        kind = ("simultaneous confidence set" if corrected or result.family_size == 1
                else "confidence set (from uncorrected intervals: not simultaneous)")
        note += f"; rank: a {level} {kind} for the system's rank (1 is the best{lower})"
    out.append(paragraphs([note], "note"))

    # the comparisons
    head = comparison_head(result)
    names = (["estimate", "confidence_interval"]
             + (["marginal_interval", "p_text", "p_adjusted_text"] if corrected
                else ["p_text"]))
    rows, attrs, notes = [], [], []
    for k, c in enumerate(result.comparisons):
        cells = comparison_cells(c, d, result)
        row = [name_cell(cells[0])]
        for j, text in enumerate(cells[1:]):
            field = f"comparisons.{k}.{names[j]}" if j < len(names) else None
            row.append(cell(text, field=field, cls="num"))
        flag = "significant" if c.significant else ""
        if c.note:
            notes.append(ctx.say(c.note))
            flag += f" ({len(notes)})"
        row.append(cell(flag.strip(), cls="left"))
        rows.append(row)
        attrs.append(' class="significant"' if c.significant else "")
    out.append(table(head, rows, cls="comparisons", row_attrs=attrs,
                     align="l" + "r" * (len(head) - 2) + "l"))
    alpha = 1 - result.confidence_level
    p_name = ("q" if result.fcr_level is not None else "adjusted p") if corrected else "p"
    lines = [f"significant {'after the correction' if corrected else 'without a correction'}"
             f": {p_name} < {alpha:g}"]
    lines += hypothesis_lines(result, ctx) + family_test_lines(result, rows=False)
    resolution = unresolved_note(result)
    if resolution:
        lines.append(resolution)
    lines += [f"({k}) {n}" for k, n in enumerate(notes, 1)]
    out.append(paragraphs(lines, "note"))
    out.append(family_items_section(result, ctx))
    out.append(_plots(result))
    out.append(warnings_section(ctx.say(w) for w in result.warnings))
    out.append(warnings_section(ctx.notes, "Notes"))
    out.append(f"<p><b>Method:</b> {esc(describe_family(result))}</p>")
    out.append(signature_line(family_signature(result, ctx)))
    return wrap_fragment("family", "".join(out))


def _plots(result: FamilyResult) -> str:
    """The forest plot; for all pairs the matrix too (only the matrix beyond
    :data:`FOREST_MOST` comparisons)."""
    all_pairs = family_kind(result) == "all pairs"
    out = []
    if not (all_pairs and len(result.comparisons) > FOREST_MOST):
        def forest():
            from pairboot.report.plot.forest import plot_family

            return plot_family(result, kind="forest")

        out.append(svg_of(forest, "Each comparison's estimate and intervals (forest plot)."))
    if all_pairs:
        def matrix():
            from pairboot.report.plot.matrix import plot_pairs

            return plot_pairs(result)

        out.append(svg_of(matrix, "Every pair: the cell in row r and column c shows r - c."))
    return "".join(out)


@writes(FamilyResult, "html")
def family_html(result: FamilyResult, context: FamilyContext | None = None) -> str:
    """``--format html`` of a family: :func:`fragment_family` in a page."""
    return document(fragment_family(result, context),
                    f"pairboot: {len(result.systems)} systems")

"""The plain-text report: the verdict first, then a table, the method, the reading, notes.

It reads like the spec's example, wraps its prose to :data:`~pairboot.report.parts.WIDTH`
columns and ends with the reproducibility line; ``print(result)`` shows it.
"""

from __future__ import annotations

from pairboot.report.escape import lines_text
from pairboot.report.items import items_text
from pairboot.report.numbers import decimals, percent
from pairboot.report.parts import (
    ReportContext,
    describe_method,
    describe_runs,
    interval_text,
    kept_line,
    null_text,
    num,
    resolution_note,
    result_p,
    signature,
    strata_table,
    unresolved,
)
from pairboot.report.parts import wrap as _wrap
from pairboot.report.registry import writes
from pairboot.report.table import Table
from pairboot.report.table import text as table_text
from pairboot.report.verdicts import headline, margin_lines, paired_test_lines
from pairboot.results.compare import CompareResult


@writes(CompareResult, "text")
def write_text(result: CompareResult, context: ReportContext | None = None) -> str:
    """A plain-text report that reads like the spec's example."""
    ctx = context or ReportContext()
    d = decimals(result.standard_error)
    level = percent(result.confidence_level)
    label_a = "A" if ctx.name_a == "A" else f"A  {ctx.name_a}"
    label_b = "B" if ctx.name_b == "B" else f"B  {ctx.name_b}"
    label_d = "B - A"
    width = max(len(label_a), len(label_b), len(label_d), 8)
    value_w = max(len(num(v, d, signed=True)) for v in
                  (result.score_a.estimate, result.score_b.estimate, result.estimate))
    value_w = max(value_w, len(result.metric))

    lines = [headline(result, ctx)]  # one line, whatever its length: easy to grep or quote
    kept = kept_line(ctx)
    if kept is not None:  # (the items --common-items kept: beside the verdict)
        lines.append(kept)
    title = "pairboot compare: {} vs {}".format(
        "B" if ctx.name_b == "B" else f"{ctx.name_b} (B)",
        "A" if ctx.name_a == "A" else f"{ctx.name_a} (A)",
    )
    if ctx.layout:
        title += f", {ctx.layout}"
    lines.append("")
    lines.extend(_wrap(title))
    lines.append("")
    tost = (f" (B - A: {percent(result.interval_level)})"
            if result.interval_level != result.confidence_level else "")
    table = Table(("", result.metric, f"{level} interval{tost}"), [
        (label, num(score.estimate, d), interval_text(score.confidence_interval, d))
        for label, score in ((label_a, result.score_a), (label_b, result.score_b))
    ] + [(label_d, num(result.estimate, d, signed=True),
          interval_text(result.confidence_interval, d, signed=True))], "lrl")
    # (the lines are made visible whole: cells measured as given)
    lines += table_text(table, gaps=("  ", "   "), widths=(width, value_w), raw=True)
    lines.append("")
    lines.extend(_wrap(f"{result_p(result)} ({null_text(result)})", bullet="  "))
    if unresolved(result):
        lines.extend(_wrap(f"({resolution_note(result)})", bullet="  "))
    for line in (margin_lines(result, ctx) + paired_test_lines(result)
                 + _floor_lines(result)):
        lines.extend(_wrap(line, bullet="  "))
    error = error_text(result, d)
    if result.method == "score":
        lines.extend(_wrap(error, bullet="  "))
    else:
        lines.append(f"  {error}")
    lines.extend(f"  {line}" for line in design_lines(result, ctx))
    lines.append("")
    lines.extend(_wrap("Method: " + describe_method(result, ctx)))
    lines.extend(_wrap("Reading: " + ctx.say(result.reading)))
    runs = describe_runs(result)
    if runs:
        lines.append("")
        lines.extend(runs)
    if result.strata:
        lines.append("")
        col = f" (column {ctx.stratum!r})" if ctx.stratum else ""
        how = ("its own t interval" if getattr(result, "runs", None) is not None
               else "same resamples")  # with runs, each stratum's analysis alone
        lines.append(f"Strata{col}: the difference within each stratum, {how}")
        lines.extend(table_text(strata_table(result, d)))
    lines.append("")
    lines.extend(items_text(result))
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
    return lines_text(lines)


def design_lines(result: CompareResult, ctx: ReportContext) -> list[str]:
    """The groups and strata, as the text report says them under its table."""
    out = []
    if result.n_groups is not None:
        col = f" (column {ctx.group!r})" if ctx.group else ""
        estimand = "items" if result.group_weighting == "items" else "groups"
        out.append(f"groups: {result.n_groups:,}{col}, resampled whole; estimand: the "
                   f"mean over {estimand}")
    if result.n_strata is not None:
        col = f" (column {ctx.stratum!r})" if ctx.stratum else ""
        out.append(f"strata: {result.n_strata:,}{col}, resampled within each; weights in "
                   "the table below")
    return out


def error_text(result: CompareResult, d: int) -> str:
    """The standard error and the Monte Carlo error of the interval's ends, in a line
    (the text and HTML reports')."""
    mc = result.monte_carlo_error
    runs = getattr(result, "runs", None)
    if runs is not None and runs.kind == "seeds":  # (a t interval: no Monte Carlo error)
        return (f"standard error {num(result.standard_error, d)} (items and runs, "
                f"{runs.degrees_of_freedom:.1f} degrees of freedom)")
    if getattr(result, "estimand", "population") == "suite":  # (a closed form too)
        return (f"standard error {num(result.standard_error, d)} (the trials' alone); a "
                "closed form, without Monte Carlo error")
    if result.method == "score":  # (closed forms: no Monte Carlo error)
        return (f"standard error {num(result.standard_error, d)} (bootstrap); the score "
                "intervals are closed forms, without Monte Carlo error")
    if result.alternative != "two-sided":  # (the open end does not move)
        end = mc[0] if result.alternative == "greater" else mc[1]
        return (f"standard error {num(result.standard_error, d)}; Monte Carlo error of the "
                f"endpoint {_mc_text(end, d)}")
    return (f"standard error {num(result.standard_error, d)}; Monte Carlo error of the "
            f"endpoints {_mc_text(mc[0], d)} / {_mc_text(mc[1], d)}")


def _mc_text(error: float, d: int) -> str:
    """An endpoint's Monte Carlo error with the interval's ``d`` decimals, so that it
    reads against the digits shown: ``+/-0.0021``, or ``<0.0001`` where it rounds to 0
    but is not 0."""
    if _finite_positive(error) and round(error, d) == 0:
        return f"<{10.0**-d:.{d}f}"
    return f"+/-{num(error, d)}"


def _finite_positive(x) -> bool:
    return isinstance(x, (int, float)) and 0 < x < float("inf")



def _floor_lines(result) -> list[str]:
    """The noise floor beside the verdict (:func:`pairboot.report.noise.noise_floor_lines`),
    its module imported only when there is a floor (it loads the A/A result's type)."""
    if getattr(result, "noise_floor", None) is None:
        return []
    from pairboot.report.noise import noise_floor_lines

    return noise_floor_lines(result)

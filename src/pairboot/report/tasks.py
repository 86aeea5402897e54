"""Reports of an aggregate over tasks (:class:`pairboot.TasksResult`): the words (what
was aggregated and what varied), the systems' table (aggregate, interval, rank, rank
interval, tie group, share of resamples where best), the comparisons' table, the
warnings and the signature; text, Markdown, LaTeX, JSON and HTML (with the rank plot of
:func:`pairboot.plot.plot_ranks` as inline SVG when matplotlib is installed)."""

from __future__ import annotations

import textwrap

from pairboot.report.escape import lines_text, md, tex
from pairboot.report.html import (
    document,
    paragraphs,
    plain_table,
    signature_line,
    svg_of,
    warnings_section,
    wrap_fragment,
)
from pairboot.report.numbers import percent, plural
from pairboot.report.parts import alpha_of, p_cell
from pairboot.report.registry import writes
from pairboot.report.schemas import json_report
from pairboot.report.table import Table, latex, markdown, text
from pairboot.results.tasks import TasksResult
from pairboot.stats.aggregates import AGGREGATES

__all__ = ["comparisons_table", "systems_table", "tasks_fragment", "tasks_html",
           "tasks_json", "tasks_latex", "tasks_markdown", "tasks_text", "tasks_words"]

VARIED = {
    "items": "the items within each task were drawn again, the tasks fixed: the "
             "intervals are about this suite of tasks",
    "tasks": "the tasks were drawn again (their scores fixed): the intervals are about "
             "the population of tasks these are a sample of, not about the items",
    "both": "two levels: the tasks were drawn again and the items within every drawn "
            "task: the intervals are about a population of tasks, each measured on a "
            "sample of items",
}
"""What varied, as every format says it."""

CORRECTED = {
    "max-t": "max-t (simultaneous intervals, Romano-Wolf stepdown p)",
    "holm": "Holm (Bonferroni's intervals)",
    "bonferroni": "Bonferroni",
    "none": "none (each comparison on its own)",
}


def _digits(res: TasksResult) -> int:
    return 2 if res.aggregate == "borda" else 3


def _ci(low: float, high: float, d: int, sign: str = "") -> str:
    return f"[{low:{sign}.{d}f}, {high:{sign}.{d}f}]"


def _order(res: TasksResult) -> list[str]:
    """The systems best first (their observed rank, then the rank interval)."""
    return sorted(res.names, key=lambda n: (res.rank[n], res.rank_intervals[n], n))


def systems_table(res: TasksResult) -> Table:
    """A row per system, best first."""
    d = _digits(res)
    group_of = {n: k + 1 for k, g in enumerate(res.tie_groups) for n in g}
    level = percent(res.confidence_level)
    head = ("rank", "system", res.aggregate, f"{level} interval", "rank interval",
            "tie group", "P(best)")
    rows = []
    for n in _order(res):
        s = res.systems[n]
        low, high = res.rank_intervals[n]
        rows.append((str(res.rank[n]), n, f"{s.estimate:.{d}f}",
                     _ci(*s.confidence_interval, d),
                     str(low) if low == high else f"{low}-{high}", str(group_of[n]),
                     f"{res.p_best[n]:.3f}"))
    return Table(head, rows, "rlrlrrr")


def comparisons_table(res: TasksResult) -> Table:
    """A row per comparison: B - A of the aggregate, the family's interval, its own p
    and the adjusted p."""
    d = _digits(res)
    level = percent(res.confidence_level)
    head = ("B - A", "difference", f"{level} interval", "p", "p adjusted", "")
    alpha = alpha_of(res.confidence_level)
    rows = [(f"{c.b} - {c.a}", f"{c.estimate:+.{d}f}",
             _ci(*c.confidence_interval, d, "+"),
             p_cell(c.p_value, res.n_resamples, alpha=alpha),
             p_cell(c.p_adjusted, res.n_resamples, alpha=alpha),
             "*" if c.significant else "") for c in res.comparisons]
    return Table(head, rows, "lrlrrl")


def tasks_words(res: TasksResult) -> list[str]:
    """What the report says in words: the aggregate, what varied, how the ranks and
    the best are read."""
    agg = AGGREGATES[res.aggregate]
    words = agg.words if res.gamma is None else f"{agg.words}; gamma = {res.gamma:g}"
    units = "runs" if res.runs == "seeds" else "items"
    head = (f"{res.aggregate} of {plural(len(res.names), 'system')} over "
            f"{plural(len(res.tasks), 'task')} ({sum(res.n_items):,} {units}; each task's "
            f"score the {res.metric} of its {units}"
            + (", each item's mean over its runs" if res.runs == "samples" else "")
            + f"): {words}.")
    varied = f"What varied: {VARIED[res.resample]} ({res.n_resamples:,} resamples)."
    kind = ("simultaneous" if res.rank_correction in ("max-t", "holm", "bonferroni")
            else "")
    ranks = (f"Rank interval: a {percent(res.confidence_level)} {kind} confidence set "
             f"for every system's rank (1 is the best), from all pairs decided together "
             f"under {res.rank_correction}; tie groups: the systems cut, best first, only "
             "where every system above is surely better than every one below. P(best): "
             "the share of resamples in which the system is the best (ties shared), a "
             "bootstrap quantity, not the probability that it is the best.")
    if res.comparisons:
        ranks += (f" Comparisons: B - A of the {res.aggregate} under "
                  f"{CORRECTED[res.correction]}" + (
                      f", c = {res.critical_value:.3f}"
                      if res.critical_value is not None else "") + "; p: the row's own"
                  + (" (bootstrap-t on the same roots)" if res.correction == "max-t" else "")
                  + "; * significant.")
    return [head, varied, " ".join(ranks.split())]


def _signature(res: TasksResult) -> str:
    gamma = "" if res.gamma is None else f" | gamma {res.gamma:g}"
    runs = "" if res.runs is None else f" | runs {res.runs}"
    return (f"pairboot {res.version} | tasks {res.aggregate}{gamma} | resample "
            f"{res.resample}{runs} | {res.method} | metric {res.metric} | resamples "
            f"{res.n_resamples} | level {res.confidence_level:g} | correction "
            f"{res.correction} | seed {res.seed} | engine {res.engine}")


@writes(TasksResult, "text")
def tasks_text(res: TasksResult, context=None) -> str:
    """The plain-text report (``print(result)``)."""
    lines = [line for w in tasks_words(res)
             for line in textwrap.wrap(w, 88, subsequent_indent="  ")]
    lines += [""] + text(systems_table(res))
    if res.comparisons:
        lines += [""] + text(comparisons_table(res))
        lines += [line for c in res.comparisons if c.note
                  for line in textwrap.wrap(f"note: {c.b} - {c.a}: {c.note}", 88,
                                            subsequent_indent="  ")]
    lines += [""] + [line for w in res.warnings
                     for line in textwrap.wrap(f"warning: {w}", 88,
                                               subsequent_indent="  ")] + [_signature(res)]
    return lines_text(lines)


@writes(TasksResult, "markdown")
def tasks_markdown(res: TasksResult, context=None) -> str:
    """The Markdown report: the words, the two tables, the warnings, the signature."""
    lines = [md(w) for w in tasks_words(res)] + [""] + markdown(systems_table(res))
    if res.comparisons:
        lines += [""] + markdown(comparisons_table(res))
        lines += [f"- note: {md(f'{c.b} - {c.a}: {c.note}')}" for c in res.comparisons
                  if c.note]
    lines += [""] + [f"- warning: {md(w)}" for w in res.warnings]
    return lines_text(lines + [f"`{_signature(res)}`"])


@writes(TasksResult, "latex")
def tasks_latex(res: TasksResult, context=None) -> str:
    """The two tables as booktabs LaTeX, the words and the signature as comments."""
    lines = [f"% {tex(w)}" for w in tasks_words(res)] + latex(systems_table(res))
    if res.comparisons:
        lines += [""] + latex(comparisons_table(res))
    lines += [f"% warning: {tex(w)}" for w in res.warnings]
    return lines_text([*lines, f"% {tex(_signature(res))}"])


@writes(TasksResult, "json", schema="pairboot.compare_tasks/1")
def tasks_json(res: TasksResult, context=None) -> str:
    """The result's fields as JSON (the bootstrap distribution left out), with the
    signature."""
    out = res.to_dict()
    out["signature"] = _signature(res)
    return json_report(res, out)


@writes(TasksResult, "html-fragment", part=True)
def tasks_fragment(res: TasksResult, context=None) -> str:
    """The report's fragment (a notebook's display): the words, the systems' table, the
    rank plot, the comparisons, the warnings, the signature."""
    out = [paragraphs(tasks_words(res)), plain_table(systems_table(res), cls="systems")]

    def draw():
        from pairboot.report.plot.ranks import plot_ranks

        return plot_ranks(res)[0]

    out.append(svg_of(draw, f"Left: every system's {res.aggregate} with its interval; "
                            "right: its rank interval (the observed rank marked), tie "
                            "groups shaded, best first."))
    if res.comparisons:
        out.append(plain_table(comparisons_table(res), cls="comparisons"))
    out.append(warnings_section(res.warnings))
    out.append(signature_line(_signature(res)))
    return wrap_fragment("tasks", "".join(out))


@writes(TasksResult, "html")
def tasks_html(res: TasksResult, context=None) -> str:
    """One self-contained page: :func:`tasks_fragment` in a document."""
    return document(tasks_fragment(res, context),
                    f"pairboot: {res.aggregate} over {plural(len(res.tasks), 'task')}")

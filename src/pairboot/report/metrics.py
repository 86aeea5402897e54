"""Reports of several metrics of one comparison (:class:`pairboot.MetricsResult`): one
table, a row per metric, with its direction and margin, each system's value, ``B - A``
with its interval, its p-values and its verdict; text, Markdown, GitHub's step summary,
LaTeX and JSON."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pairboot.report.escape import lines_text, md, tex
from pairboot.report.numbers import decimals, percent, plural
from pairboot.report.parts import wrap
from pairboot.report.registry import context_class, writes
from pairboot.report.schemas import json_report
from pairboot.report.table import Table, latex, markdown, text
from pairboot.results.metrics import MetricRow, MetricsResult

__all__ = ["MetricsContext", "metrics_json", "metrics_markdown", "metrics_table",
           "metrics_text"]


@dataclass(frozen=True)
class MetricsContext:
    """What a report of several metrics is told beside the result: the files read, how
    their items were paired, notes of the reading, and the columns named (for the
    signature)."""

    files: tuple[str, ...] = ()
    layout: str | None = None
    notes: tuple[str, ...] = ()
    id: str | None = None
    group: str | None = None
    stratum: str | None = None
    scores: tuple[str, ...] = ()
    """The metrics as the command line gave them (``cost:lower:0.01``)."""
    reword: Callable[[str], str] | None = None
    """How the warnings name the arguments (the command line's options), or as given."""


def _warnings(res: MetricsResult, ctx: MetricsContext) -> list[str]:
    return [ctx.reword(w) if ctx.reword is not None else w for w in res.warnings]


context_class(MetricsResult, MetricsContext)


def _num(x: float | None, d: int, sign: str = "") -> str:
    if x is None:
        return ""
    if not math.isfinite(x):
        return "NaN" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    return f"{x:{sign}.{d}f}"


def _p(p: float | None) -> str:
    if p is None:
        return ""
    return "NaN" if math.isnan(p) else f"{p:.3g}"


def _digits(row: MetricRow) -> int:
    se = row.standard_error
    if not (math.isfinite(se) and se > 0):
        se = max(row.score_a.standard_error, row.score_b.standard_error)
    return decimals(se)


def metrics_table(res: MetricsResult) -> Table:
    """A row per metric: its better direction and margin, A's and B's values, B - A with
    its interval, p (and p adjusted under a correction) and the verdict."""
    a, b = res.names
    corrected = res.correction != "none"
    head = ["metric", "better", "margin", a, b, f"{b} - {a}",
            f"{percent(res.confidence_level)} interval", "p"]
    head += ["p adjusted"] if corrected else []
    head += ["verdict"]
    rows = []
    for r in res.rows:
        d = _digits(r)
        low, high = r.confidence_interval
        cells = [r.name, "lower" if r.lower_is_better else "higher",
                 "" if r.margin is None else f"{r.margin:g}",
                 _num(r.score_a.estimate, d), _num(r.score_b.estimate, d),
                 _num(r.estimate, d, "+"), f"[{_num(low, d, '+')}, {_num(high, d, '+')}]",
                 _p(r.p_value)]
        cells += [_p(r.p_adjusted)] if corrected else []
        cells += [r.verdict]
        rows.append(tuple(cells))
    align = "llrrrrlr" + ("r" if corrected else "") + "l"
    return Table(tuple(head), tuple(rows), align)


def _words(res: MetricsResult) -> list[str]:
    a, b = res.names
    units = (plural(res.n_groups, "group") + f" of {plural(res.n_items, 'item')}"
             if res.n_groups is not None else plural(res.n_items, "item"))
    who = f"{b} (B) against {a} (A)" if (a, b) != ("A", "B") else "B against A"
    lines = [f"{plural(len(res.rows), 'metric')} of {who} on {units}"
             + (", every one read off the same resamples of the items (their "
                "differences' joint distribution is known)." if len(res.rows) > 1 else ".")]
    if res.correction == "none":
        lines.append("Each row is its own test, as compare() of that metric alone gives "
                     "it (no correction across the metrics: rows that must all hold need "
                     "none).")
    else:
        c = ("" if res.critical_value is None or not math.isfinite(res.critical_value)
             else f" (c = {res.critical_value:.3f})")
        lines.append(f"Corrected across the metrics by {res.correction}{c}: the rows' "
                     "intervals and adjusted p-values hold together at the level.")
    if res.hypothesis != "difference":
        lines.append(f"Every row tests {res.hypothesis} against its own margin, on its "
                     "metric's better side.")
    return lines


def _signature(res: MetricsResult, ctx: MetricsContext) -> str:
    specs = ctx.scores or tuple(
        r.name + (":lower" if r.lower_is_better else "")
        + ("" if r.margin is None else f":{r.margin:g}") for r in res.rows)
    parts = [f"pairboot {res.version}", f"paired {res.method}",
             *(["poisson weights"] if res.resampling == "poisson" else []),
             "metrics " + ",".join(specs),
             *([f"correction {res.correction}"] if res.correction != "none" else []),
             *([f"hypothesis {res.hypothesis}"] if res.hypothesis != "difference" else []),
             f"resamples {res.n_resamples}", f"level {res.confidence_level:g}",
             f"seed {res.seed}", *([f"id {ctx.id}"] if ctx.id else []),
             *([f"groups {ctx.group or 'yes'}"] if res.n_groups is not None else []),
             *([f"strata {ctx.stratum or 'yes'}"] if res.n_strata is not None else []),
             f"engine {res.engine}", f"numpy {np.__version__}"]
    return " | ".join(" ".join(str(p).replace("|", "/").split()) for p in parts)


def _inputs(ctx: MetricsContext) -> list[str]:
    out = []
    if ctx.files:
        out.append("Read: " + ", ".join(ctx.files) + (f" ({ctx.layout})" if ctx.layout
                                                      else ""))
    return out + list(ctx.notes)


@writes(MetricsResult, "text")
def metrics_text(res: MetricsResult, context: MetricsContext | None = None) -> str:
    """The plain-text report (``print(result)``)."""
    ctx = context or MetricsContext()
    lines = [w for line in _words(res) for w in wrap(line)] + [""] + text(metrics_table(res))
    notes = [r for r in res.rows if r.note]
    lines += [""] + [w for r in notes for w in wrap(f"{r.name}: {r.note}", "note: ")]
    lines += [w for line in _inputs(ctx) for w in wrap(line)]
    lines += [w for x in _warnings(res, ctx) for w in wrap(x, "warning: ")]
    return lines_text([*lines, _signature(res, ctx)])


@writes(MetricsResult, "markdown")
def metrics_markdown(res: MetricsResult, context: MetricsContext | None = None) -> str:
    """The Markdown report: the words, the table, the notes, the signature."""
    ctx = context or MetricsContext()
    lines = [md(" ".join(_words(res))), ""] + markdown(metrics_table(res)) + [""]
    lines += [f"- note: {md(r.name)}: {md(r.note)}" for r in res.rows if r.note]
    lines += [f"- {md(x)}" for x in _inputs(ctx)]
    lines += [f"- warning: {md(w)}" for w in _warnings(res, ctx)]
    return lines_text([*lines, *([""] if lines[-1] else []), f"`{_signature(res, ctx)}`"])


@writes(MetricsResult, "github")
def metrics_github(res: MetricsResult, context: MetricsContext | None = None) -> str:
    """A step summary: a heading, then the Markdown report."""
    a, b = res.names
    return (f"### pairboot: {md(b)} (B) against {md(a)} (A) on "
            f"{plural(len(res.rows), 'metric')}\n\n" + metrics_markdown(res, context))


@writes(MetricsResult, "latex")
def metrics_latex(res: MetricsResult, context: MetricsContext | None = None) -> str:
    """The table as booktabs LaTeX, with the signature as a comment."""
    ctx = context or MetricsContext()
    table = metrics_table(res)
    lines = [f"% {tex(w)}" for w in _words(res)] + latex(table)
    return lines_text([*lines, f"% {_signature(res, ctx)}"])


@writes(MetricsResult, "json", schema="pairboot.metrics/1")
def metrics_json(res: MetricsResult, context: MetricsContext | None = None) -> str:
    """The result's fields as JSON (the resampled differences left out: their
    correlations in ``correlation``), with the signature."""

    ctx = context or MetricsContext()
    out = res.to_dict()
    if ctx.files:
        out["files"] = list(ctx.files)
    out["signature"] = _signature(res, ctx)
    return json_report(res, out)

"""Reports of two raters' agreement (:class:`pairboot.AgreementResult`): a row per
statistic with its interval, the table of counts; text, Markdown, JSON, LaTeX, GitHub's
step summary and HTML.  :class:`AgreementContext` names the raters (the command line's
columns)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from pairboot.report.escape import lines_text, md, tex
from pairboot.report.html import (
    document,
    paragraphs,
    plain_table,
    signature_line,
    warnings_section,
    wrap_fragment,
)
from pairboot.report.numbers import percent
from pairboot.report.registry import context_class, writes
from pairboot.report.schemas import json_report
from pairboot.report.table import Table, latex, latex_float, latex_numbers, markdown, text
from pairboot.results.agreement import AgreementResult

__all__ = ["AgreementContext", "agreement_fragment", "agreement_github", "agreement_html",
           "agreement_json", "agreement_latex", "agreement_markdown", "agreement_text"]

NAMES = {
    "kappa": "Cohen's kappa", "kappa-linear": "Cohen's kappa, linear weights",
    "kappa-quadratic": "Cohen's kappa, quadratic weights", "ac1": "Gwet's AC1",
    "alpha-nominal": "Krippendorff's alpha, nominal",
    "alpha-ordinal": "Krippendorff's alpha, ordinal",
    "alpha-interval": "Krippendorff's alpha, interval", "accuracy": "accuracy",
    "sensitivity": "sensitivity", "specificity": "specificity",
}


@dataclass(frozen=True, slots=True)
class AgreementContext:
    """What an agreement's report is told beside the result: the raters' names (the
    first is the one whose accuracy is measured against the second) and the files
    read."""

    name_a: str = "A"
    name_b: str = "B"
    files: tuple[str, ...] = ()


context_class(AgreementResult, AgreementContext)


def _f(x: float) -> str:
    return "nan" if math.isnan(x) else f"{x:.3f}"


def statistics_table(res: AgreementResult) -> Table:
    level = percent(res.confidence_level)
    rows = [(NAMES[r.statistic], _f(r.estimate),
             f"[{_f(r.confidence_interval.low)}, {_f(r.confidence_interval.high)}]",
             _f(r.standard_error)) for r in res.rows]
    return Table(("statistic", "estimate", f"{level} interval", "standard error"),
                 tuple(rows), "lrlr")


def counts_table(res: AgreementResult, context: AgreementContext | None = None) -> Table:
    """The first rater's categories down, the second's across."""
    c = context or AgreementContext()
    cats = [str(c) for c in res.categories]
    rows = [(c, *(f"{v:,}" for v in row)) for c, row in zip(cats, res.table)]
    return Table((f"{c.name_a} \\ {c.name_b}", *cats), tuple(rows), "l" + "r" * len(cats))


def _words(res: AgreementResult, context: AgreementContext | None = None) -> str:
    c = context or AgreementContext()
    units = ("" if res.n_groups is None
             else f" in {res.n_groups:,} groups (whole groups resampled)")
    named = "" if (c.name_a, c.name_b) == ("A", "B") else f" ({c.name_a} and {c.name_b})"
    return (f"Agreement of two raters{named} on {res.n_items:,} items{units}: {res.method} "
            f"bootstrap intervals, {res.n_resamples:,} resamples, the same for every "
            "statistic.")


def _signature(res: AgreementResult) -> str:
    return (f"pairboot {res.version} | agreement {res.method} | resamples "
            f"{res.n_resamples} | level {res.confidence_level:g} | seed {res.seed}")


@writes(AgreementResult, "text")
def agreement_text(res: AgreementResult, context=None) -> str:
    lines = [_words(res, context), ""] + text(statistics_table(res)) + [""]
    lines += text(counts_table(res, context)) + [""]
    lines += [f"warning: {w}" for w in res.warnings] + [_signature(res)]
    return lines_text(lines)


@writes(AgreementResult, "markdown")
def agreement_markdown(res: AgreementResult, context=None) -> str:
    lines = [md(_words(res, context)), ""] + markdown(statistics_table(res)) + [""]
    lines += markdown(counts_table(res, context)) + [""]
    lines += [f"- warning: {md(w)}" for w in res.warnings] + [f"`{_signature(res)}`"]
    return lines_text(lines)


@writes(AgreementResult, "json", schema="pairboot.agreement/1")
def agreement_json(res: AgreementResult, context=None) -> str:
    out = res.to_dict()
    if context is not None:
        out["name_a"], out["name_b"] = context.name_a, context.name_b
    out["signature"] = _signature(res)
    return json_report(res, out)


@writes(AgreementResult, "latex")
def agreement_latex(res: AgreementResult, context: AgreementContext | None = None) -> str:
    """A ``table`` float (booktabs): the statistics with the words as the caption, the
    table of counts below; the signature and the warnings as comments, the warnings
    also as a note."""
    table = latex_numbers(statistics_table(res))
    table = Table(table.head, table.rows, table.align, caption=tex(_words(res, context)))
    notes = [r"\par\medskip", *latex(latex_numbers(counts_table(res, context)))]
    notes += [f"{{\\footnotesize\\emph{{Warning: {tex(w)}}}\\par}}" for w in res.warnings]
    out = [f"% {_signature(res)}", r"% needs \usepackage{booktabs}",
           *latex_float(table, notes)]
    return lines_text(out + [f"% warning: {w}" for w in res.warnings])


@writes(AgreementResult, "github")
def agreement_github(res: AgreementResult, context: AgreementContext | None = None) -> str:
    """A step summary: a heading, then the Markdown report."""
    c = context or AgreementContext()
    named = "" if (c.name_a, c.name_b) == ("A", "B") else f": {md(c.name_a)} and {md(c.name_b)}"
    return (f"### pairboot: agreement of two raters{named}\n\n"
            + agreement_markdown(res, context))


@writes(AgreementResult, "html-fragment", part=True)
def agreement_fragment(res: AgreementResult, context=None) -> str:
    """The notebook's display (``_repr_html_``)."""
    return wrap_fragment("agreement", "".join([
        paragraphs([_words(res, context)]),
        plain_table(statistics_table(res), cls="agreement"),
        plain_table(counts_table(res, context), cls="counts"), warnings_section(res.warnings),
        signature_line(_signature(res))]))


@writes(AgreementResult, "html")
def agreement_html(res: AgreementResult, context=None) -> str:
    """The self-contained page (``result.to_html()``)."""
    return document(agreement_fragment(res, context), "pairboot: agreement of two raters")

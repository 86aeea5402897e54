"""Reports of two raters' agreement (:class:`pairboot.AgreementResult`): a row per
statistic with its interval, the table of counts; text, Markdown, JSON and HTML."""

from __future__ import annotations

import math

from pairboot.report.escape import lines_text, md
from pairboot.report.html import (
    document,
    paragraphs,
    plain_table,
    signature_line,
    warnings_section,
    wrap_fragment,
)
from pairboot.report.numbers import percent
from pairboot.report.registry import writes
from pairboot.report.schemas import json_report
from pairboot.report.table import Table, markdown, text
from pairboot.results.agreement import AgreementResult

__all__ = ["agreement_fragment", "agreement_html", "agreement_json", "agreement_markdown",
           "agreement_text"]

NAMES = {
    "kappa": "Cohen's kappa", "kappa-linear": "Cohen's kappa, linear weights",
    "kappa-quadratic": "Cohen's kappa, quadratic weights", "ac1": "Gwet's AC1",
    "alpha-nominal": "Krippendorff's alpha, nominal",
    "alpha-ordinal": "Krippendorff's alpha, ordinal",
    "alpha-interval": "Krippendorff's alpha, interval", "accuracy": "accuracy",
    "sensitivity": "sensitivity", "specificity": "specificity",
}


def _f(x: float) -> str:
    return "nan" if math.isnan(x) else f"{x:.3f}"


def statistics_table(res: AgreementResult) -> Table:
    level = percent(res.confidence_level)
    rows = [(NAMES[r.statistic], _f(r.estimate),
             f"[{_f(r.confidence_interval.low)}, {_f(r.confidence_interval.high)}]",
             _f(r.standard_error)) for r in res.rows]
    return Table(("statistic", "estimate", f"{level} interval", "standard error"),
                 tuple(rows), "lrlr")


def counts_table(res: AgreementResult) -> Table:
    """The first rater's categories down, the second's across."""
    cats = [str(c) for c in res.categories]
    rows = [(c, *(f"{v:,}" for v in row)) for c, row in zip(cats, res.table)]
    return Table(("A \\ B", *cats), tuple(rows), "l" + "r" * len(cats))


def _words(res: AgreementResult) -> str:
    units = ("" if res.n_groups is None
             else f" in {res.n_groups:,} groups (whole groups resampled)")
    return (f"Agreement of two raters on {res.n_items:,} items{units}: {res.method} "
            f"bootstrap intervals, {res.n_resamples:,} resamples, the same for every "
            "statistic.")


def _signature(res: AgreementResult) -> str:
    return (f"pairboot {res.version} | agreement {res.method} | resamples "
            f"{res.n_resamples} | level {res.confidence_level:g} | seed {res.seed}")


@writes(AgreementResult, "text")
def agreement_text(res: AgreementResult, context=None) -> str:
    lines = [_words(res), ""] + text(statistics_table(res)) + [""]
    lines += text(counts_table(res)) + [""]
    lines += [f"warning: {w}" for w in res.warnings] + [_signature(res)]
    return lines_text(lines)


@writes(AgreementResult, "markdown")
def agreement_markdown(res: AgreementResult, context=None) -> str:
    lines = [md(_words(res)), ""] + markdown(statistics_table(res)) + [""]
    lines += markdown(counts_table(res)) + [""]
    lines += [f"- warning: {md(w)}" for w in res.warnings] + [f"`{_signature(res)}`"]
    return lines_text(lines)


@writes(AgreementResult, "json", schema="pairboot.agreement/1")
def agreement_json(res: AgreementResult, context=None) -> str:
    out = res.to_dict()
    out["signature"] = _signature(res)
    return json_report(res, out)


@writes(AgreementResult, "html-fragment", part=True)
def agreement_fragment(res: AgreementResult, context=None) -> str:
    """The notebook's display (``_repr_html_``)."""
    return wrap_fragment("agreement", "".join([
        paragraphs([_words(res)]), plain_table(statistics_table(res), cls="agreement"),
        plain_table(counts_table(res), cls="counts"), warnings_section(res.warnings),
        signature_line(_signature(res))]))


@writes(AgreementResult, "html")
def agreement_html(res: AgreementResult, context=None) -> str:
    """The self-contained page (``result.to_html()``)."""
    return document(agreement_fragment(res, context), "pairboot: agreement of two raters")

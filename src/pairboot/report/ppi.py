"""Reports of a prediction-powered comparison (:class:`pairboot.PPIResult`): the three
estimates of B - A side by side (the judge's alone, biased; the gold labels' alone;
prediction-powered), so the reader sees what the correction did; the power-tuning
weight and the gold labels the judge is worth; the judge's bias.  Text, Markdown, JSON,
LaTeX, GitHub's step summary and HTML (a page, and the fragment a notebook shows)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from pairboot.report.escape import lines_text, md, tex
from pairboot.report.html import (
    document,
    esc,
    paragraphs,
    plain_table,
    signature_line,
    warnings_section,
    wrap_fragment,
)
from pairboot.report.numbers import fixed, interval_text, percent, places_for
from pairboot.report.parts import alpha_of, format_p, sides_of
from pairboot.report.registry import context_class, writes
from pairboot.report.schemas import json_report
from pairboot.report.table import Table, latex, latex_float, latex_numbers, markdown, text
from pairboot.report.workflow import command
from pairboot.results.ppi import PPIResult

__all__ = ["PPIContext", "ppi_annotations", "ppi_fragment", "ppi_github", "ppi_html",
           "ppi_json", "ppi_latex", "ppi_markdown", "ppi_table", "ppi_text"]

ROWS = (("judge_only", "judge only (biased)"), ("gold_only", "gold labels only"),
        ("prediction_powered", "prediction-powered"))

RANDOM_SUBSET = ("The gold labels must be a random sample of the items (uniform, or of "
                 "whole groups), chosen before any score was seen: a subset chosen by "
                 "the scores voids the guarantee.")

TUNING = {"clipped": "tuned on the per-item differences within [0, 1]",
          "free": "tuned on the per-item differences (not clipped)",
          "fixed": "fixed (given)"}

VERDICT_WORDS = {
    "better": "{b} is better than {a} on the gold metric",
    "better-by-margin": "{b} is better than {a} by more than the margin on the gold metric",
    "worse": "{b} is worse than {a} on the gold metric",
    "non-inferior": "{b} is not worse than {a} by the margin or more on the gold metric",
    "equivalent": "{b} and {a} are within the margin of each other on the gold metric",
    "inconclusive": "the gold metric does not tell {a} and {b} apart at this level",
    "undefined": "no interval: see the warnings",
}


@dataclass(frozen=True, slots=True)
class PPIContext:
    """What a prediction-powered report is told beside the result: the systems'
    names, the files and the columns read (the command line's)."""

    name_a: str = "A"
    name_b: str = "B"
    files: tuple[str, ...] = ()
    columns: tuple[str, ...] = ()
    """The judge's and the gold columns, as ``judge_a, judge_b, gold_a, gold_b`` (one
    file), or ``judge, gold`` (a file per system)."""


context_class(PPIResult, PPIContext)





def ppi_table(res: PPIResult, context: PPIContext | None = None) -> Table:
    """A row per estimate: B - A and its interval, each system's score and interval,
    the items it reads."""
    c = context or PPIContext()
    level = percent(res.confidence_level)
    head = ("estimate", f"{c.name_b} - {c.name_a}", f"{level} interval", c.name_a,
            f"{level} interval", c.name_b, f"{level} interval", "items")
    rows = []
    for field, label in ROWS:
        e = getattr(res, field)
        k = places_for(e.standard_error)  # (the judge's scale may not be the gold's)
        items = (f"{res.n_gold:,} gold of {res.n_items:,}" if field == "prediction_powered"
                 else f"{e.n_items:,}")
        rows.append((label, fixed(e.estimate, k, "+"), interval_text(e.confidence_interval, k, "+"),
                     fixed(e.score_a.estimate, k), interval_text(e.score_a.confidence_interval, k),
                     fixed(e.score_b.estimate, k), interval_text(e.score_b.confidence_interval, k),
                     items))
    return Table(head, tuple(rows), "lrlrlrlr")


def bias_table(res: PPIResult, context: PPIContext | None = None) -> Table:
    """The judge's bias, gold minus judge on the labelled items: each system's and
    that of B - A (a judge that favours one system)."""
    c = context or PPIContext()
    level = percent(res.confidence_level)
    rows = [(name, fixed(b.estimate, places_for(b.standard_error), "+"),
             interval_text(b.confidence_interval, places_for(b.standard_error), "+"))
            for name, b in ((c.name_a, res.bias_a), (c.name_b, res.bias_b),
                            (f"{c.name_b} - {c.name_a}", res.bias))]
    return Table(("judge's bias (gold - judge)", "estimate", f"{level} interval"),
                 tuple(rows), "lrl")


def _method(res: PPIResult) -> str:
    if res.method == "clt":
        return "closed form (PPI++'s normal interval)"
    return (f"{res.method} bootstrap, {res.n_resamples:,} resamples of the labelled and "
            "the unlabelled " + ("groups" if res.n_groups is not None else "items")
            + " drawn apart")


def _p(res: PPIResult, p: float, sides: int) -> str:
    """``p = 0.0123``, or ``p < 0.0006`` where the bootstrap's resamples cannot resolve
    ``p`` (never ``p = 0``), ``p = n/a`` when undefined: as compare's reports write a
    p-value (:func:`pairboot.report.parts.format_p`); the closed form's is exact."""
    return format_p(p, res.n_resamples, alpha=alpha_of(res.confidence_level),
                    resampled=res.method != "clt", sides=sides)


def headline(res: PPIResult, context: PPIContext | None = None) -> str:
    """The verdict and the prediction-powered B - A with its interval and p-value."""
    c = context or PPIContext()
    k = places_for(res.standard_error)
    words = VERDICT_WORDS[res.verdict()].format(a=c.name_a, b=c.name_b)
    sides = "" if res.alternative == "two-sided" else f", one-sided ({res.alternative})"
    test = res.hypothesis + ("" if res.margin is None else f", margin {res.margin:g}")
    return (f"Prediction-powered {c.name_b} - {c.name_a} = {fixed(res.estimate, k, '+')}, "
            f"{percent(res.confidence_level)} interval "
            f"{interval_text(res.confidence_interval, k, '+')}{sides}, "
            f"{_p(res, res.p_value, sides_of(res))} ({test}): {words}.")


def _words(res: PPIResult, context: PPIContext | None = None) -> list[str]:
    c = context or PPIContext()
    groups = "" if res.n_groups is None else f" in {res.n_groups:,} groups"
    if res.n_strata is not None:
        groups += (f", {res.n_strata:,} strata (each stratum's estimate, weighted; one lam "
                   "for all)")
    saved = res.effective_gold - res.n_gold
    worth = (f"worth {res.effective_gold:,.0f} gold labels to this comparison "
             f"({'+' if saved >= 0 else ''}{saved:,.0f} over the {res.n_gold:,} labelled)")
    tuning = TUNING[res.tuning]
    if res.metric != "mean":
        tuning = tuning.replace("the per-item differences", "the metric's linearisation")
    return [
        f"Prediction-powered inference (PPI++): {res.n_items:,} items{groups} scored by the "
        f"judge, {res.n_gold:,} of them also by gold labels; interval: {_method(res)}.",
        f"lam = {res.lam:.3g} (0: the gold labels alone, 1: classic PPI), "
        f"{tuning}; {c.name_a}'s score lam = {res.lam_a:.3g}, "
        f"{c.name_b}'s lam = {res.lam_b:.3g}. The judge's scores are {worth}.",
        *_more(res, c),
        _favours(res, c),
        RANDOM_SUBSET,
    ]


def _more(res: PPIResult, c: PPIContext) -> list[str]:
    """The pooled metric and the judge's several calls, when there are."""
    out = []
    if res.metric != "mean":
        out.append(f"Metric: {res.metric}, pooled: each of its summed statistics' means "
                   "prediction-powered (one lam for all), the metric recomputed from the "
                   "corrected means" + (" (closed form: the delta method)."
                                        if res.method == "clt" else "."))
    calls = res.judge_calls
    if calls is not None:
        per = (f"{calls.most}" if calls.fewest == calls.most
               else f"{calls.fewest} to {calls.most}")
        spread = ", ".join(f"{name} {sd:.3g}" for name, sd in zip((c.name_a, c.name_b),
                                                                  calls.spread))
        out.append(f"The judge scored every item {per} times ({sum(calls.n_calls):,} "
                   "calls); an item's judge score is the mean of its calls. The calls' "
                   f"within-item standard deviation: {spread}.")
    return out


def _favours(res: PPIResult, c: PPIContext) -> str:
    """Whether the judge's error differs between the systems (the bias of B - A)."""
    shown = _p(res, res.bias_p_value, 2)
    if res.tuning == "free":  # (clip=False: a judge on another scale than the gold's)
        return (f"The judge's scale is not the gold's (lam tuned without clipping): gold - "
                "judge subtracts one scale from another, and says nothing of whether the "
                f"judge favours {c.name_a} or {c.name_b}.")
    if not _favoured(res):
        return (f"The judge's error does not differ between {c.name_a} and {c.name_b} at "
                f"this level (gold - judge of {c.name_b} - {c.name_a}: "
                f"{res.bias.estimate:+.3g}, {shown}).")
    favoured = c.name_a if res.bias.estimate > 0 else c.name_b
    side = "below" if res.bias.estimate > 0 else "above"
    return (f"The judge favours {favoured}: its {c.name_b} - {c.name_a} lies "
            f"{abs(res.bias.estimate):.3g} {side} the gold one (gold - judge "
            f"{res.bias.estimate:+.3g}, {shown}), which the correction removes.")


def _favoured(res: PPIResult) -> bool:
    """Whether the judge's error differs between the systems at the level (not read
    when the judge's scale is another's: ``tuning`` free)."""
    p = res.bias_p_value
    return res.tuning != "free" and not math.isnan(p) and p < 1.0 - res.confidence_level


def _signature(res: PPIResult, context: PPIContext | None = None) -> str:
    c = context or PPIContext()
    parts = [f"pairboot {res.version}", f"ppi {res.method}"]
    if res.metric != "mean":
        parts.append(f"metric {res.metric}")
    if res.judge_calls is not None:
        parts.append(f"calls {res.judge_calls.fewest}-{res.judge_calls.most}")
    parts.append(f"lam {res.tuning}" + (f" {res.lam:g}" if res.tuning == "fixed" else ""))
    if res.method != "clt":  # (the closed form draws nothing)
        parts.append(f"resamples {res.n_resamples}")
    parts.append(f"level {res.confidence_level:g}")
    if res.method != "clt":
        parts.append(f"seed {res.seed}")
    if res.n_groups is not None:
        parts.append(f"groups {res.n_groups}")
    if res.n_strata is not None:
        parts.append(f"strata {res.n_strata}")
    if c.columns:
        parts.append("columns " + ",".join(c.columns))
    return " | ".join(parts)


@writes(PPIResult, "text")
def ppi_text(res: PPIResult, context: PPIContext | None = None) -> str:
    """The plain-text report (``print(result)``)."""
    lines = [headline(res, context), ""] + _words(res, context) + [""]
    lines += text(ppi_table(res, context)) + [""] + text(bias_table(res, context))
    lines += [""] + [f"warning: {w}" for w in res.warnings] + [_signature(res, context)]
    return lines_text(lines)


@writes(PPIResult, "markdown")
def ppi_markdown(res: PPIResult, context: PPIContext | None = None) -> str:
    """The Markdown report: the headline, the words, both tables, the signature."""
    lines = [f"**{md(headline(res, context))}**", ""]
    lines += [md(w) for w in _words(res, context)] + [""]
    lines += markdown(ppi_table(res, context)) + [""] + markdown(bias_table(res, context))
    lines += [""] + [f"- warning: {md(w)}" for w in res.warnings]
    lines += [f"`{_signature(res, context)}`"]
    return lines_text(lines)


@writes(PPIResult, "json", schema="pairboot.compare_ppi/1")
def ppi_json(res: PPIResult, context: PPIContext | None = None) -> str:
    """The result's fields as JSON, with the systems' names and the signature."""
    c = context or PPIContext()
    out = res.to_dict()
    out["name_a"], out["name_b"] = c.name_a, c.name_b
    out["signature"] = _signature(res, context)
    return json_report(res, out)


@writes(PPIResult, "latex")
def ppi_latex(res: PPIResult, context: PPIContext | None = None) -> str:
    """A ``table`` float (booktabs): the three estimates, the headline and the words as
    its caption, the judge's bias below; the signature and the warnings as comments,
    the warnings also as a note under the tables."""
    words = _words(res, context)  # (the last: the random subset's condition, a note)
    table = latex_numbers(ppi_table(res, context))
    table = Table(table.head, table.rows, table.align,
                  caption=tex(" ".join([headline(res, context), *words[:-1]])))
    notes = [r"\par\medskip", *latex(latex_numbers(bias_table(res, context))),
             r"\par\smallskip", r"{\footnotesize " + tex(words[-1]) + r"\par}"]
    notes += [f"{{\\footnotesize\\emph{{Warning: {tex(w)}}}\\par}}" for w in res.warnings]
    out = [f"% {_signature(res, context)}", r"% needs \usepackage{booktabs}",
           *latex_float(table, notes)]
    return lines_text(out + [f"% warning: {w}" for w in res.warnings])


@writes(PPIResult, "github")
def ppi_github(res: PPIResult, context: PPIContext | None = None) -> str:
    """A step summary: a heading naming B and A, then the Markdown report (the command
    line prints :func:`ppi_annotations` and the warnings on standard error)."""
    c = context or PPIContext()
    return (f"### pairboot: {md(c.name_b)} (B) against {md(c.name_a)} (A), "
            "prediction-powered\n\n" + ppi_markdown(res, context))


def ppi_annotations(res: PPIResult, context: PPIContext | None = None) -> list[str]:
    """GitHub workflow commands beside a ``github`` report: a ``::warning::`` when the
    judge's error differs between the systems at the level (a judge that favours one
    system's style: its own B - A, elsewhere, is not to be trusted); none otherwise."""
    c = context or PPIContext()
    return [command("warning", _favours(res, c), title="pairboot judge")] if _favoured(
        res) else []


@writes(PPIResult, "html-fragment", part=True)
def ppi_fragment(res: PPIResult, context: PPIContext | None = None) -> str:
    """The notebook's display (``_repr_html_``): the headline, the words, both tables,
    the warnings, the signature."""
    out = [f'<p class="verdict" data-field="summary">{esc(headline(res, context))}</p>',
           paragraphs(_words(res, context)),
           plain_table(ppi_table(res, context), cls="ppi"),
           plain_table(bias_table(res, context), cls="bias"),
           warnings_section(res.warnings),
           signature_line(_signature(res, context))]
    return wrap_fragment("ppi", "".join(out))


@writes(PPIResult, "html")
def ppi_html(res: PPIResult, context: PPIContext | None = None) -> str:
    """The self-contained page (``result.to_html()``)."""
    return document(ppi_fragment(res, context), "pairboot: a prediction-powered comparison")

"""Reports of a family of prediction-powered comparisons
(:class:`pairboot.PPIFamilyResult`): a row per comparison with its corrected difference
and interval under the family's correction, the judge's and the gold labels' own
differences beside it, and every system's corrected score and the judge's bias on it.
Text, Markdown, JSON, LaTeX, GitHub's step summary and HTML (a page, and the fragment a
notebook shows)."""

from __future__ import annotations

from pairboot.report.escape import lines_text, md, tex
from pairboot.report.html import (
    document,
    paragraphs,
    plain_table,
    signature_line,
    warnings_section,
    wrap_fragment,
)
from pairboot.report.numbers import fixed, interval_text, percent, places_for
from pairboot.report.parts import alpha_of, p_cell, sides_of
from pairboot.report.registry import writes
from pairboot.report.schemas import json_report
from pairboot.report.table import (
    Markup,
    Table,
    latex,
    latex_float,
    latex_numbers,
    markdown,
    text,
)
from pairboot.results.ppi import PPIFamilyResult

__all__ = ["ppi_family_fragment", "ppi_family_github", "ppi_family_html",
           "ppi_family_json", "ppi_family_latex", "ppi_family_markdown", "ppi_family_text"]

CORRECTION_WORDS = {
    "max-t": "simultaneous (max-t on the joint resamples of the corrected differences; "
             "p-values single-step, as the intervals; Romano-Wolf's stepdown in the JSON)",
    "bonferroni": "Bonferroni's (each at alpha / m)",
    "none": "each comparison's own (no correction for the family)",
}





def _p(res: PPIFamilyResult, p: float) -> str:
    """A comparison's adjusted p-value as compare's tables write one
    (:func:`pairboot.report.parts.p_cell`): ``0.013``, ``0.0033``, ``< 0.006`` where the
    resamples cannot resolve it (max-t counts them whatever the method), ``n/a``."""
    counted = res.correction == "max-t" and len(res.comparisons) > 1
    return p_cell(p, res.n_resamples, alpha=alpha_of(res.confidence_level),
                  resampled=res.method != "clt" or counted, sides=sides_of(res))


def comparisons_table(res: PPIFamilyResult) -> Table:
    """A row per comparison: the corrected difference, its interval under the
    correction, its adjusted p-value, lam, the judge's and the gold labels' own."""
    level = percent(res.confidence_level)
    head = ("comparison", "estimate", f"{level} interval", "p (adjusted)", "lam",
            "judge only", "gold only", "labels worth", "verdict")
    rows = []
    for r in res.comparisons:
        k = places_for(r.standard_error)
        rows.append((f"{r.b} - {r.a}", fixed(r.estimate, k, "+"),
                     interval_text(r.confidence_interval, k, "+"), _p(res, r.p_value),
                     f"{r.lam:.3g}",
                     fixed(r.judge_only.estimate, k, "+"), fixed(r.gold_only.estimate, k, "+"),
                     f"{r.effective_gold:,.0f}", r.verdict))
    return Table(head, tuple(rows), "lrlrrrrrl")


def systems_table(res: PPIFamilyResult) -> Table:
    """Every system's prediction-powered score and the judge's bias on it."""
    level = percent(res.confidence_level)
    rows = []
    for name in res.names:
        s, b = res.scores[name], res.judge_bias[name]
        k = places_for(s.standard_error)
        rows.append((name, fixed(s.estimate, k), interval_text(s.confidence_interval, k),
                     f"{res.lams[name]:.3g}", fixed(b.estimate, k, "+"),
                     interval_text(b.confidence_interval, k, "+")))
    return Table(("system", "score", f"{level} interval", "lam", "judge's bias",
                  f"{level} interval"), tuple(rows), "lrlrrl")


def _words(res: PPIFamilyResult) -> list[str]:
    groups = "" if res.n_groups is None else f" in {res.n_groups:,} groups"
    if res.n_strata is not None:
        groups += f", {res.n_strata:,} strata"
    method = ("closed form (PPI++'s normal interval)" if res.method == "clt" else
              f"{res.method} bootstrap, {res.n_resamples:,} resamples of the labelled and "
              "the unlabelled units drawn apart, the same draws for every system")
    m = len(res.comparisons)
    correction = ("one comparison: its own interval" if m == 1
                  else CORRECTION_WORDS[res.correction])
    out = [f"Prediction-powered inference (PPI++) for {m} comparison{'s' * (m != 1)} "
           f"of {len(res.names)} systems: {res.n_items:,} items{groups} scored by the "
           f"judge, {res.n_gold:,} of them also by gold labels; intervals: {method}; "
           f"{correction}" + ("" if res.critical_value is None else
                              f", c = {res.critical_value:.3f} standard errors") + "."]
    if res.metric != "mean":
        out.append(f"Metric: {res.metric}, pooled: its summed statistics corrected count "
                   "by count, the metric recomputed from the corrected means.")
    calls = res.judge_calls
    if calls is not None:
        per = (f"{calls.most}" if calls.fewest == calls.most
               else f"{calls.fewest} to {calls.most}")
        spread = ", ".join(f"{n} {sd:.3g}" for n, sd in zip(res.names, calls.spread))
        out.append(f"The judge scored every item {per} times; an item's judge score is the "
                   f"mean of its calls (within-item standard deviation: {spread}).")
    out.append("The gold labels must be a random sample of the items, chosen before any "
               "score was seen: a subset chosen by the scores voids the guarantee.")
    return out


def _signature(res: PPIFamilyResult) -> str:
    parts = [f"pairboot {res.version}", f"ppi family {res.method}",
             f"correction {res.correction}", f"lam {res.tuning}"]
    if res.metric != "mean":
        parts.append(f"metric {res.metric}")
    if res.method != "clt":
        parts += [f"resamples {res.n_resamples}", f"seed {res.seed}"]
    parts.append(f"level {res.confidence_level:g}")
    if res.n_groups is not None:
        parts.append(f"groups {res.n_groups}")
    if res.n_strata is not None:
        parts.append(f"strata {res.n_strata}")
    return " | ".join(parts)


@writes(PPIFamilyResult, "text")
def ppi_family_text(res: PPIFamilyResult, context=None) -> str:
    """The plain-text report (``print(result)``)."""
    lines = _words(res) + [""] + text(comparisons_table(res)) + [""]
    lines += text(systems_table(res)) + [""]
    lines += [f"warning: {w}" for w in res.warnings] + [_signature(res)]
    return lines_text(lines)


@writes(PPIFamilyResult, "markdown")
def ppi_family_markdown(res: PPIFamilyResult, context=None) -> str:
    """The Markdown report: the words, both tables, the signature."""
    lines = [md(w) for w in _words(res)] + [""] + markdown(comparisons_table(res))
    lines += [""] + markdown(systems_table(res)) + [""]
    lines += [f"- warning: {md(w)}" for w in res.warnings] + [f"`{_signature(res)}`"]
    return lines_text(lines)


@writes(PPIFamilyResult, "json", schema="pairboot.compare_ppi_many/1")
def ppi_family_json(res: PPIFamilyResult, context=None) -> str:
    """The result's fields as JSON, with the signature."""
    out = res.to_dict()
    out["signature"] = _signature(res)
    return json_report(res, out)


@writes(PPIFamilyResult, "latex")
def ppi_family_latex(res: PPIFamilyResult, context=None) -> str:
    """A ``table`` float (booktabs), as a single comparison's: the comparisons, the
    words as its caption, the systems' scores and the judge's bias below; the random
    subset's condition and the warnings as notes under the tables, the signature and
    the warnings as comments."""
    words = _words(res)  # (the last: the random subset's condition, a note)
    table = _tex_p(latex_numbers(comparisons_table(res)))
    table = Table(table.head, table.rows, table.align, caption=tex(" ".join(words[:-1])))
    notes = [r"\par\medskip", *latex(latex_numbers(systems_table(res))),
             r"\par\smallskip", r"{\footnotesize " + tex(words[-1]) + r"\par}"]
    notes += [f"{{\\footnotesize\\emph{{Warning: {tex(w)}}}\\par}}" for w in res.warnings]
    out = [f"% {_signature(res)}", r"% needs \usepackage{booktabs}",
           *latex_float(table, notes)]
    return lines_text(out + [f"% warning: {w}" for w in res.warnings])


def _tex_p(table: Table) -> Table:
    """``table`` with its p-values' bounds (``< 0.006``, ``<= 1``) in math mode too
    (:func:`latex_numbers` writes the plain numbers so)."""
    k = table.head.index("p (adjusted)")

    def cell(c):
        return (Markup("$" + c.replace("<=", r"\leq") + "$")
                if not isinstance(c, Markup) and c.startswith("<") else c)

    return Table(table.head, tuple((*r[:k], cell(r[k]), *r[k + 1:]) for r in table.rows),
                 table.align)


@writes(PPIFamilyResult, "github")
def ppi_family_github(res: PPIFamilyResult, context=None) -> str:
    """A step summary: a heading, then the Markdown report (whose first line counts
    the comparisons and the systems)."""
    return ("### pairboot: prediction-powered comparisons\n\n"
            + ppi_family_markdown(res, context))


@writes(PPIFamilyResult, "html-fragment", part=True)
def ppi_family_fragment(res: PPIFamilyResult, context=None) -> str:
    """The notebook's display (``_repr_html_``)."""
    out = [paragraphs(_words(res)),
           plain_table(comparisons_table(res), cls="ppi"),
           plain_table(systems_table(res), cls="bias"),
           warnings_section(res.warnings),
           signature_line(_signature(res))]
    return wrap_fragment("ppi-family", "".join(out))


@writes(PPIFamilyResult, "html")
def ppi_family_html(res: PPIFamilyResult, context=None) -> str:
    """The self-contained page (``result.to_html()``)."""
    return document(ppi_family_fragment(res), "pairboot: prediction-powered comparisons")

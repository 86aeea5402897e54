"""A confidence sequence in words (:class:`SequentialResult`'s text, Markdown, JSON,
LaTeX and GitHub's step summary):
the verdict and where the rule stopped, the sequence beside a fixed-size interval at the
same size and why it is wider, and when a fixed size is the better choice."""

from __future__ import annotations

import math

from pairboot.report.escape import lines_text, md, tex
from pairboot.report.numbers import decimals, percent, plural
from pairboot.report.parts import interval_text, num
from pairboot.report.parts import wrap as _wrap
from pairboot.report.registry import writes
from pairboot.report.schemas import json_report
from pairboot.report.table import Table, latex_float, latex_numbers
from pairboot.results.sequential import SEQUENTIAL_VERDICTS, SequentialResult

__all__ = ["SEQUENTIAL_FAIL_IF", "sequential_failed", "sequential_sentences",
           "sequential_status"]

SEQUENTIAL_FAIL_IF: dict[str, frozenset[str]] = {
    "worse": frozenset({"worse", "inferior"}),
    "not-better": frozenset(SEQUENTIAL_VERDICTS) - {"better", "better-by-margin"},
    "different": frozenset({"better", "better-by-margin", "worse", "different"}),
    "inferior": frozenset(SEQUENTIAL_VERDICTS) - {"non-inferior", "better",
                                                   "better-by-margin"},
    "not-equivalent": frozenset(SEQUENTIAL_VERDICTS) - {"equivalent"},
    "not-better-by-margin": frozenset(SEQUENTIAL_VERDICTS) - {"better-by-margin"},
}
"""``--fail-if``'s choices as compare's (:data:`pairboot.report.FAIL_IF`), for a
sequence's verdicts: B shown worse (or inferior); not shown better; shown different;
not shown non-inferior; not shown equivalent; not shown better by the margin.  An
undecided or futile sequence fails every gate that asks for something shown."""


def sequential_failed(result: SequentialResult, fail_if: str | None) -> bool:
    """Whether the verdict fails ``--fail-if`` (never without one)."""
    return fail_if is not None and result.verdict in SEQUENTIAL_FAIL_IF[fail_if]

_SAYS = {
    "better": "B is better than A",
    "worse": "B is worse than A",
    "better-by-margin": "B is better than A by more than the margin",
    "non-inferior": "B is non-inferior to A (not worse by the margin or more)",
    "inferior": "B is worse than A by more than the margin (inferior)",
    "equivalent": "B and A are equivalent (within the margin)",
    "different": "B and A differ by more than the margin",
    "futile": "futile: B - A is smaller than the margin matters",
}

METHOD_WORDS = {
    "betting": "a betting confidence sequence (Waudby-Smith & Ramdas 2024), valid at "
               "every size for scores within the declared bounds",
    "asymptotic": "an asymptotic confidence sequence (Waudby-Smith et al. 2024), valid as "
                  "the size grows, for scores with a finite variance",
}


def _decimals(r: SequentialResult) -> int:
    fixed = r.fixed_interval
    if r.n_units >= 2 and math.isfinite(fixed.high - fixed.low):
        return decimals((fixed.high - fixed.low) / 4)
    return decimals(math.nan)


def sequential_status(r: SequentialResult) -> str:
    """One line: the verdict (or undecided), the units, the estimate and the sequence
    (what ``pairboot watch`` updates in place)."""
    d = _decimals(r)
    what = _SAYS.get(r.verdict, "undecided")
    if r.stopped_by == "budget":
        what = "undecided, budget spent"
    return (f"{what} after {plural(r.n_units, r.unit[:-1])}: B - A "
            f"{num(r.estimate, d, signed=True)}, {percent(r.confidence_level)} sequence "
            f"{interval_text(r.confidence_sequence, d, signed=True)}")


def sequential_sentences(r: SequentialResult) -> list[str]:
    """The report's sentences: the verdict, the price of looking, the method."""
    d = _decimals(r)
    level = percent(r.confidence_level)
    error = percent(round(1 - r.confidence_level, 12))
    unit = r.unit[:-1]
    if r.decided:
        head = f"Decided after {plural(r.n_units, unit)}: {_SAYS[r.verdict]}."
    elif r.stopped_by == "budget":
        head = f"Undecided: the budget of {plural(r.n_units, unit)} is spent."
    else:
        head = f"Undecided after {plural(r.n_units, unit)}: keep going, or stop undecided."
    out = [head + f" B - A = {num(r.estimate, d, signed=True)}, {level} confidence "
           f"sequence {interval_text(r.confidence_sequence, d, signed=True)}"
           + (f" ({plural(r.n_items, 'item')})." if r.unit == "groups" else ".")]
    if r.decided:
        out.append("The estimate at a stop tends to overstate the difference (a rule that "
                   "stops when the difference looks large stops on lucky runs): the "
                   "sequence, not the point, is what holds.")
    if r.n_unused:
        out.append(f"{plural(r.n_unused, 'item')} given after the stop were not used.")
    if math.isfinite(r.width_ratio):
        out.append(
            f"A fixed-size {level} interval at the same size would be "
            f"{interval_text(r.fixed_interval, d, signed=True)}: the sequence is "
            f"{r.width_ratio:.2f} times as wide. That is the price of looking as often as "
            f"one likes: the sequence covers B - A at every size at once, so stopping "
            f"when it decides keeps the error rate at {error}; "
            "a fixed-size interval holds only at a size fixed in advance and read once, "
            "and read after every item it excludes a true zero far more often.")
        out.append(
            "When the whole test set is run anyway, or its size can be fixed in advance and "
            "the result read once, a fixed-size analysis at that pre-registered size "
            "(pairboot compare) is the better choice: it is narrower by this ratio. The "
            "sequence pays off when stopping early saves items.")
    margin = "" if r.margin is None else f", margin {r.margin:g}"
    pooled = ("" if r.metric == "mean" else
              "; of a difference of ratios of sums, by the delta method (asymptotic)"
              if r.metric == "ratio" else
              f"; of the difference of {r.metric} on each system's summed statistics, by "
              "the delta method (asymptotic)")
    out.append(f"Method: {METHOD_WORDS[r.method]}{pooled}; {r.alternative}, {r.hypothesis}"
               f"{margin}, tuned for {plural(r.n_target, unit)}"
               + ("" if r.budget is None else f", budget {r.budget:,}")
               + ". The items must arrive in an order independent of their outcomes "
               "(a random order of the test set).")
    return out


def _signature(r: SequentialResult) -> str:
    bounds = "" if r.bounds is None else f" | bounds [{r.bounds[0]:g}, {r.bounds[1]:g}]"
    metric = "" if r.metric == "mean" else f" | metric {r.metric}"
    return (f"pairboot {r.version} | sequence {r.method}{bounds}{metric} | level "
            f"{r.confidence_level:g} | {r.alternative} | n_target {r.n_target}")


@writes(SequentialResult, "text")
def sequential_text(r: SequentialResult, context=None) -> str:
    """The plain-text report (``print(result)``)."""
    lines = []
    for sentence in sequential_sentences(r):
        lines.extend(_wrap(sentence))
    lines.append(_signature(r))
    return lines_text(lines)


@writes(SequentialResult, "markdown")
def sequential_markdown(r: SequentialResult, context=None) -> str:
    """The Markdown report: the sentences as paragraphs, the signature."""
    lines = []
    for sentence in sequential_sentences(r):
        lines += [md(sentence), ""]
    lines.append(f"`{_signature(r)}`")
    return lines_text(lines)


@writes(SequentialResult, "json", schema="pairboot.sequential/1")
def sequential_json(r: SequentialResult, context=None) -> str:
    """The fields as JSON, with the signature, led by its schema's name."""
    out = r.to_dict()
    out["signature"] = _signature(r)
    return json_report(r, out)


@writes(SequentialResult, "latex")
def sequential_latex(r: SequentialResult, context=None) -> str:
    """A ``table`` float (booktabs): B - A with the sequence and the fixed-size interval
    at the same size, the first sentence as the caption, the others under it; the
    signature as a comment."""
    d = _decimals(r)
    level = percent(r.confidence_level)
    rows = [(f"{level} confidence sequence", num(r.estimate, d, signed=True),
             interval_text(r.confidence_sequence, d, signed=True)),
            (f"fixed-size {level} interval, the same size", num(r.estimate, d, signed=True),
             interval_text(r.fixed_interval, d, signed=True))]
    sentences = sequential_sentences(r)
    table = latex_numbers(Table(("", "B - A", "interval"), rows, "lrl"))
    table = Table(table.head, table.rows, table.align, caption=tex(sentences[0]))
    notes = [r"\par\smallskip"] + [r"{\footnotesize " + tex(x) + r"\par}"
                                    for x in sentences[1:]]
    return lines_text([f"% {_signature(r)}", r"% needs \usepackage{booktabs}",
                       *latex_float(table, notes)])


@writes(SequentialResult, "github")
def sequential_github(r: SequentialResult, context=None) -> str:
    """A step summary: a heading with the status, then the Markdown report (``pairboot
    watch`` prints a failed ``--fail-if`` as an ``::error::`` on standard error)."""
    return (f"### pairboot watch: {md(sequential_status(r))}\n\n"
            + sequential_markdown(r, context))

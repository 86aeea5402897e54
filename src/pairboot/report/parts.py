"""What every report format says: its context, its numbers, the verdict, the method, the signature.

``ReportContext`` carries what the result does not know (the names of the inputs, the
grouping and stratum columns, notes the command line adds, and how to reword the result's
messages for the reader).  The helpers here are shared by every writer, so that the text,
Markdown, LaTeX and JSON reports give the same verdict, numbers and reproducibility line.

Numbers are shown with as many decimals as the standard error of the difference warrants,
the same for every number of one report: ``max(2, 1 - floor(log10(se)))``, at most 6 (4
when the standard error is 0 or undefined).  That rule is one function,
:func:`pairboot.result.decimals`, which the reading of the result uses too.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pairboot.result import CompareResult, decimals, percent


@dataclass(frozen=True, slots=True)
class ReportContext:
    """What a report says about the inputs, beyond the result itself.

    Attributes
    ----------
    name_a, name_b : str
        How systems A and B are labelled (a file name or a column name).
    files : tuple of str
        The input files, as given.
    layout : str
        One phrase on how items were aligned ("joined on column 'id'").
    group, stratum : str or None
        The grouping and stratum columns, when used.
    notes : tuple of str
        Extra remarks, printed after the warnings.
    id : str or None
        The id column the inputs were joined on (``--id``), for the signature.
    stats : tuple of str or None
        The statistic columns asked for (``--stats``), for the signature.
    metric_source : str or None
        Where a user-defined metric came from (``FILE.py:NAME`` as given), for the
        signature.
    stratum_weights : str or None
        The population weights as given (``--stratum-weights``), for the signature.
    reword : callable or None
        Applied to every message taken from the result (its warnings and reading), so
        that the command line can write the API's arguments as its options (with
        :func:`pairboot.errors.spell`).
    lower_is_better : bool
        The metric is an error rate or a loss: B is better when B - A is negative.
    fail_if : str or None
        The verdicts that fail the run (a key of :data:`FAIL_IF`), when asked for.
    """

    name_a: str = "A"
    name_b: str = "B"
    files: tuple[str, ...] = ()
    layout: str = ""
    group: str | None = None
    stratum: str | None = None
    notes: tuple[str, ...] = ()
    id: str | None = None
    stats: tuple[str, ...] | None = None
    metric_source: str | None = None
    stratum_weights: str | None = None
    reword: Callable[[str], str] | None = None
    lower_is_better: bool = False
    fail_if: str | None = None

    def say(self, text: str) -> str:
        """``text`` (a warning or the reading) as this report's reader should see it."""
        return self.reword(text) if self.reword is not None else text


# ------------------------------------------------------------------------ numbers


def _finite(x) -> bool:
    return x is not None and isinstance(x, (int, float)) and math.isfinite(x)


def num(x, d: int, *, signed: bool = False) -> str:
    if not _finite(x):
        return "n/a"
    return f"{x:+.{d}f}" if signed else f"{x:.{d}f}"


def interval_text(ci, d: int, *, signed: bool = False) -> str:
    return f"[{num(ci[0], d, signed=signed)}, {num(ci[1], d, signed=signed)}]"


def format_p(p: float | None, n_resamples: int) -> str:
    """``"p = 0.0123"``, ``"p < 0.0001"``, or ``"p < 1/10,000"`` when ``p`` is 0.

    A p-value of exactly 0 means no resample fell on the other side of 0, so all the
    resamples can tell is that p is below ``1 / n_resamples``.
    """
    if not _finite(p):
        return "p = n/a"
    if p == 0:
        return f"p < 1/{n_resamples:,}"
    if p < 1e-4:
        return "p < 0.0001"
    if p < 0.01:
        return f"p = {p:.4f}"
    return f"p = {p:.3f}"


def p_cell(p: float | None, n_resamples: int) -> str:
    """format_p without the leading "p" (and "="), for a table cell."""
    return format_p(p, n_resamples).removeprefix("p ").removeprefix("= ")


FAIL_IF: dict[str, frozenset[str]] = {
    "worse": frozenset({"worse"}),
    "not-better": frozenset({"worse", "inconclusive", "undefined"}),
    "different": frozenset({"better", "worse"}),
}
"""For each ``--fail-if`` choice, the verdicts (:meth:`CompareResult.verdict`) that fail
the run: B surely worse; B not surely better (an undefined interval is not a yes); B
surely different."""


def decision(result: CompareResult, context: ReportContext | None = None) -> dict:
    """The verdict and, when ``context.fail_if`` asks, whether it fails the run."""
    ctx = context or ReportContext()
    verdict = result.verdict(lower_is_better=ctx.lower_is_better)
    return {
        "verdict": verdict,
        "lower_is_better": ctx.lower_is_better,
        "fail_if": ctx.fail_if,
        "failed": ctx.fail_if is not None and verdict in FAIL_IF[ctx.fail_if],
        "headline": headline(result, ctx),
    }


def headline(result: CompareResult, context: ReportContext | None = None) -> str:
    """The verdict in one sentence, the first line of the text report.

    >>> import pairboot
    >>> res = pairboot.compare([0.2, 0.5, 0.4, 0.7] * 10, [0.3, 0.6, 0.4, 0.9] * 10)
    >>> print(headline(res))
    B is better than A by +0.100 [+0.078, +0.122], 95% paired bootstrap, p < 1/10,000.
    """
    ctx = context or ReportContext()
    d = decimals(result.standard_error)
    a = "A" if ctx.name_a == "A" else f"A ({ctx.name_a})"
    b = "B" if ctx.name_b == "B" else f"B ({ctx.name_b})"
    method = _METHOD_NAMES.get(result.method, result.method)
    how = (f"{percent(result.confidence_level)} {'paired' if result.paired else 'unpaired'}"
           f"{'' if result.method == 'percentile' else ' ' + method} bootstrap, "
           f"{format_p(result.p_value, result.n_resamples)}")
    runs = getattr(result, "runs", None)
    if runs is not None and runs.kind == "seeds":
        how = (f"{percent(result.confidence_level)} interval over items and "
               f"{_runs_text(runs)}, {format_p(result.p_value, result.n_resamples)}")
    numbers = (f"{num(result.estimate, d, signed=True)} "
               f"{interval_text(result.confidence_interval, d, signed=True)}, {how}")
    lower = " (lower is better)" if ctx.lower_is_better else ""
    verdict = result.verdict(lower_is_better=ctx.lower_is_better)
    if verdict in ("better", "worse"):
        return f"{b} is {verdict} than {a} by {numbers}{lower}."
    if verdict == "undefined":
        return (f"No verdict: the {method} interval is undefined for these data "
                f"(B - A = {num(result.estimate, d, signed=True)}; see the warnings).")
    unit = f"{result.n_groups:,} groups" if result.n_groups is not None else (
        f"{result.n_items:,} items")
    if runs is not None and runs.kind == "seeds":
        unit += f", {_runs_text(runs)}"  # (more runs may be what it takes)
    needed = ""
    if result.items_needed is not None:
        more = (f"{result.groups_needed:,} groups" if result.groups_needed is not None
                else f"{result.items_needed:,} items")
        needed = f"; about {more} would be needed to detect a difference this large"
    size = "test-set size" if runs is None or runs.kind != "seeds" else "size"
    return (f"No difference detected between {b} and {a} at this {size} ({unit}): "
            f"B - A = {numbers}{needed}.")


_METHOD_NAMES = {"bca": "BCa"}
"""How a method's name is written in a sentence."""


def _runs_text(runs) -> str:
    """``"3 seeds each"`` or ``"3 and 5 seeds"`` (runs of A and B)."""
    what = "seeds" if runs.kind == "seeds" else "samples per item"
    if runs.runs_a == runs.runs_b:
        return f"{runs.runs_a:g} {what} each"
    return f"{runs.runs_a:g} and {runs.runs_b:g} {what}"


def describe_runs(result) -> list[str]:
    """The variance split and the projection of a comparison with several runs: the
    lines of the text report's ``Runs`` section (none without runs)."""
    runs = getattr(result, "runs", None)
    if runs is None:
        return []
    lines = []
    for system, parts in runs.variance_components.items():
        for name, c in parts.items():
            share = c["share"]
            lines.append([system, name, f"{c['variance']:.4g}",
                          "" if share != share else f"{share * 100:.0f}%"])
    table = pad_table([["", "component", "variance", "share of V"], *lines], "llrr")
    twice_items = result.projection(n_items=2 * runs.n_items)
    most = max(runs.runs_a, runs.runs_b)
    twice_runs = result.projection(n_runs=int(2 * most))
    unit = "seeds" if runs.kind == "seeds" else "samples per item"
    how = (f"{runs.degrees_of_freedom:.1f} degrees of freedom" if runs.kind == "seeds"
           else "the interval is the item bootstrap of the items' means")
    out = [f"Runs: {_runs_text(runs)}; variance of B - A {runs.variance:.4g} ({how})",
           *("  " + r for r in table)]
    if not runs.variance > 0:  # every difference alike: nothing to project
        return out
    items = "groups" if result.n_groups is not None else "items"  # what is drawn
    text = (f"With twice the {items} the interval would be "
            f"{(1 - twice_items['width_ratio']) * 100:.0f}% narrower; with twice the {unit}, "
            f"{(1 - twice_runs['width_ratio']) * 100:.0f}%.")
    if twice_items["floor"] > 0:
        text += (f" More {items} cannot bring the variance below "
                 f"{twice_items['floor']:.3g} (the runs' own variation).")
    out.extend(wrap(text, bullet="  "))
    return out


def signature(result, context=None, *, first=(), after_seed=()) -> str:
    """The reproducibility line: everything needed to repeat the run exactly.

    Besides the result's own settings it names, when the context knows them, the id
    column, the ``--stats`` columns, where a user-defined metric came from, the stratum
    weights as given, and numpy's version (the exact multinomial path draws with
    numpy's generator).  ``result`` is a :class:`CompareResult` or a family's result,
    ``context`` any context with those fields; ``first`` and ``after_seed`` are parts a
    family's line adds (its correction; lower-is-better and the plan).
    """
    context = context or ReportContext()
    metric = f"metric {result.metric}"
    if context.metric_source:
        metric += f" ({context.metric_source})"
    parts = [
        f"pairboot {result.version}",
        *first,
        f"{'paired' if result.paired else 'unpaired'} {result.method}",
        *(["poisson weights"] if getattr(result, "resampling", "classic") == "poisson" else []),
        metric,
    ]
    if context.stats:
        parts.append(f"stats {','.join(context.stats)}")
    runs = getattr(result, "runs", None)
    if runs is not None:
        parts.append(f"runs {runs.kind}{' paired' if runs.paired_runs else ''} "
                     f"({runs.runs_a:g}, {runs.runs_b:g})")
    parts += [
        f"resamples {result.n_resamples}",
        f"level {result.confidence_level:g}",
        f"seed {result.seed}",
        *after_seed,
    ]
    if context.id:
        parts.append(f"id {context.id}")
    if result.n_groups is not None:
        parts.append(f"groups {context.group or 'yes'} ({result.group_weighting})")
    if result.n_strata is not None:
        strata = f"strata {context.stratum or 'yes'}"
        if context.stratum_weights:
            strata += f" (weights {context.stratum_weights})"
        parts.append(strata)
    parts.append(f"engine {result.engine}")
    parts.append(f"numpy {np.__version__}")
    return " | ".join(" ".join(str(p).replace("|", "/").split()) for p in parts)


WIDTH = 88
"""Line width the text reports wrap their prose to."""


def wrap(text: str, bullet: str = "") -> list[str]:
    """``text`` wrapped to :data:`WIDTH`, after ``bullet`` (continued under it, or two
    spaces in)."""
    indent = " " * len(bullet)
    return textwrap.wrap(
        text, WIDTH, initial_indent=bullet, subsequent_indent=indent or "  ",
        break_on_hyphens=False, break_long_words=False,
    ) or [bullet]


def pad_table(rows: list[list[str]], align: str) -> list[str]:
    """Rows of cells as lines, each column padded to its widest cell and left- or
    right-aligned as ``align`` says ("l" or "r" per column)."""
    widths = [max(len(r[j]) for r in rows) for j in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) if a == "l" else c.rjust(w)
                      for c, w, a in zip(r, widths, align)).rstrip() for r in rows]


_METHOD_WORDS = {
    "percentile": "percentile interval",
    "basic": "basic (reverse percentile) interval",
    "normal": "normal interval, bias-corrected as R boot's norm.ci (centred at "
    "2 * estimate - mean of the resamples, +/- z * standard error)",
    "bca": "BCa (bias-corrected and accelerated) interval",
    "studentized": "studentized (bootstrap-t) interval",
}


def describe_method(result: CompareResult, context: ReportContext | None = None) -> str:
    """One sentence: what was resampled, and which interval."""
    context = context or ReportContext()
    if result.n_groups is not None:
        col = f" of {context.group!r}" if context.group else ""
        unit = f"{result.n_groups:,} whole groups{col} ({result.n_items:,} items)"
        units = "groups"
    else:
        unit = f"{result.n_items:,} items"
        units = "items"
    within = f", within each of {result.n_strata:,} strata" if result.n_strata is not None else ""
    runs = getattr(result, "runs", None)
    if runs is not None and runs.kind == "seeds":
        share = "one draw for both systems" if runs.paired_runs else "a draw per system"
        return (f"paired bootstrap over {unit}{within} and {_runs_text(runs)}: each "
                f"resample draws the {units} once for every run and system, and the "
                f"runs with replacement ({share}); its replicates are rescaled to the "
                f"two-way variance V (the run term, which the bootstrap shrinks), and the "
                f"interval is estimate +/- t * sqrt(V) with Satterthwaite's "
                f"{runs.degrees_of_freedom:.1f} degrees of freedom; "
                f"{result.n_resamples:,} resamples.")
    poisson = getattr(result, "resampling", "classic") == "poisson"
    if result.paired and poisson:
        key = "label" if result.n_groups is not None else "id, or position"
        how = (
            f"paired Poisson bootstrap: each resample gives each of the {unit} an "
            f"independent Poisson(1) weight (from its {key}){within}, the same for both "
            "systems"
        )
    elif result.paired:
        how = (
            f"paired bootstrap: each resample draws {unit} with replacement{within}, and "
            "scores both systems on the same draw"
        )
    else:
        how = f"unpaired bootstrap: A's and B's {units} are drawn independently{within}"
        if poisson:
            how += " (Poisson(1) weights)"
    words = _METHOD_WORDS.get(result.method, f"{result.method} interval")
    return f"{how}; {words}, {result.n_resamples:,} resamples."


def strata_table(result: CompareResult, d: int, name=str) -> list[list[str]]:
    """The per-stratum table's cells, header first (``name`` renders a stratum's name)."""
    grouped = any(s.n_groups is not None for s in result.strata)
    header = ["stratum", "weight", "items"] + (["groups"] if grouped else []) + [
        "A", "B", "B - A", f"{percent(result.confidence_level)} interval", "p"]
    rows = [header]
    for s in result.strata:
        row = [name(s.name), f"{s.weight:.3f}", f"{s.n_items:,}"]
        if grouped:
            row.append("" if s.n_groups is None else f"{s.n_groups:,}")
        row += [
            num(s.score_a.estimate, d),
            num(s.score_b.estimate, d),
            num(s.estimate, d, signed=True),
            interval_text(s.confidence_interval, d, signed=True),
            p_cell(s.p_value, result.n_resamples),
        ]
        rows.append(row)
    return rows

"""What every report format says: its context, its numbers, the verdict, the method, the signature.

``ReportContext`` carries what the result does not know (the names of the inputs, the
grouping and stratum columns, notes the command line adds, and how to reword the result's
messages for the reader).  The helpers here are shared by every writer, so that the text,
Markdown, LaTeX and JSON reports give the same verdict, numbers and reproducibility line.

Numbers are shown with as many decimals as the standard error of the difference warrants,
the same for every number of one report: ``max(2, 1 - floor(log10(se)))``, at most 6 (4
when the standard error is 0 or undefined).  That rule is one function,
:func:`pairboot.report.numbers.decimals`, which the reading of the result uses too.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pairboot.report.escape import visible
from pairboot.report.numbers import percent, plural
from pairboot.report.registry import context_class
from pairboot.report.table import Table
from pairboot.report.table import text as table_text
from pairboot.results.compare import CompareResult
from pairboot.stats.hypotheses import nulls
from pairboot.stats.pvalues import CLOSED_FORM_P, p_upper_bound, units_for


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
    labels : str or None
        The file the group and stratum labels were joined from (``--labels``), for the
        signature.
    common_items : bool
        The items every file scores were compared (``--common-items``), for the
        signature.
    items_kept : CommonItems or None
        With ``common_items``: how many items were kept, of how many
        (:class:`pairboot.io.CommonItems`, ``Aligned.common``), written under the
        headline with a warning when a source lost a large share (:func:`kept_line`).
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
    labels: str | None = None
    common_items: bool = False
    items_kept: object | None = None
    reword: Callable[[str], str] | None = None
    lower_is_better: bool = False
    fail_if: str | None = None

    def say(self, text: str) -> str:
        """``text`` (a warning or the reading) as this report's reader should see it."""
        return self.reword(text) if self.reword is not None else text


context_class(CompareResult, ReportContext)


def kept_line(context) -> str | None:
    """With ``common_items``: how many items were compared, of how many, and a warning
    naming the sources that lost most when one lost more than 10% of its items; the line
    every format writes under its headline (None without)."""
    kept = getattr(context, "items_kept", None)
    if kept is None:
        return None
    warning = kept.warning()
    text = kept.summary() + (f" Warning: {warning}." if warning else "")
    return context.say(text)


def kept_warnings(context) -> tuple[str, ...]:
    """The warning of :func:`kept_line` alone (for the command line's standard error)."""
    kept = getattr(context, "items_kept", None)
    warning = None if kept is None else kept.warning()
    return () if warning is None else (context.say(warning),)


# ------------------------------------------------------------------------ numbers


def _finite(x) -> bool:
    return x is not None and isinstance(x, (int, float)) and math.isfinite(x)


def num(x, d: int, *, signed: bool = False) -> str:
    if not _finite(x):
        return "n/a"
    return f"{x:+.{d}f}" if signed else f"{x:.{d}f}"


def interval_text(ci, d: int, *, signed: bool = False) -> str:
    """``[low, high]``; a one-sided interval's open end as ``(-inf`` or ``inf)``."""
    low, high = ci
    left = "(-inf" if low == -math.inf else f"[{num(low, d, signed=signed)}"
    right = (("+inf)" if signed else "inf)") if high == math.inf
             else f"{num(high, d, signed=signed)}]")
    return f"{left}, {right}"


def alpha_of(confidence_level: float) -> float:
    """``1 - confidence_level`` as the level is written (``1 - 0.95`` is
    0.050000000000000044 in binary; the families' decisions round it the same way)."""
    return round(1.0 - float(confidence_level), 12)


def p_cell(p: float | None, n_resamples: int, *, alpha: float | None = None,
           resampled: bool = True, sides: int = 2) -> str:
    """A p-value as every table, the JSON's ``p_text`` and :func:`format_p` write it.

    ``"0.430"``, ``"0.0046"``; ``"< 0.0006"`` for a p-value read off the resamples that
    they cannot resolve (below :func:`pairboot.stats.pvalues.p_resolution`: 0 when no resample
    fell beyond 0), ``"< 0.0001"`` for a smaller closed-form one (``resampled`` False);
    ``"n/a"`` when undefined.  With ``alpha`` (the level the report's decisions use),
    digits are added until the printed value lies on the same side of ``alpha`` as
    ``p``: 0.0498 prints as ``"0.0498"``, not ``"0.050"``, beside a star for ``< 0.05``.

    >>> p_cell(0.0, 10_000), p_cell(0.43, 10_000), p_cell(0.04996, 10_000, alpha=0.05)
    ('< 0.0006', '0.430', '0.04996')
    """
    if not _finite(p):
        return "n/a"
    bound = p_upper_bound(p, n_resamples, resampled=resampled, sides=sides)
    if bound != p:
        return f"< {_plain(bound)}" if bound < 1 else "<= 1"
    if p < 1e-4:
        return "< 0.0001"
    d = 3 if p >= 0.01 else 4
    text = f"{p:.{d}f}"
    while alpha is not None and (float(text) < alpha) != (p < alpha) and d < 15:
        d += 1
        text = f"{p:.{d}f}"
    return text


def format_p(p: float | None, n_resamples: int, *, alpha: float | None = None,
             resampled: bool = True, sides: int = 2) -> str:
    """``"p = 0.0123"`` or ``"p < 0.0006"``: :func:`p_cell` in a sentence."""
    cell = p_cell(p, n_resamples, alpha=alpha, resampled=resampled, sides=sides)
    return f"p {cell}" if cell.startswith("<") else f"p = {cell}"


def result_p(result, p: float | None = None) -> str:
    """:func:`format_p` of ``result``'s p-value (or of ``p``, one of its strata's), with
    its resamples, level and method; its own p-value with too few units for any test at
    its level (:func:`too_few_units`) is "p = n/a" and why, as its verdict is
    undefined: the bootstrap's p-value of so few units (0 when they all favour one
    system) is no test."""
    if p is None and (why := too_few_units(result)) is not None:
        return f"p = n/a: {why}"
    return format_p(result.p_value if p is None else p, result.n_resamples,
                    alpha=alpha_of(result.confidence_level),
                    resampled=result.method not in CLOSED_FORM_P, sides=sides_of(result))


def too_few_units(result, stratum=None) -> str | None:
    """Why a comparison's own p-value, or that of one of its strata, decides nothing --
    fewer units than any test at its level needs (the rule of
    :attr:`CompareResult.enough_units`, on the stratum's items or groups) -- in words;
    None when there are enough, or for a result without that rule."""
    if stratum is None and not hasattr(result, "enough_units"):
        return None
    held = result if stratum is None else stratum
    units = held.n_groups if held.n_groups is not None else held.n_items
    if units >= units_for(result.confidence_level, result.alternative):
        return None
    unit = "group" if held.n_groups is not None else "item"
    return (f"{plural(units, unit)} {'is' if units == 1 else 'are'} too few for any test "
            f"at the {percent(result.confidence_level)} level")


def sides_of(result) -> int:
    """1 for a one-sided ``alternative`` of ``result`` (a comparison or a family), and
    for equivalence (its p-value is the larger of two one-sided ones), else 2."""
    if getattr(result, "hypothesis", "difference") == "equivalence":
        return 1
    return 2 if getattr(result, "alternative", "two-sided") == "two-sided" else 1


def sides_text(result) -> str:
    """How the p-value is read: "two-sided", or "one-sided, B - A > 0" (``< 0``; a
    margin's boundary for non-inferiority and superiority), or "two one-sided tests"."""
    side = getattr(result, "alternative", "two-sided")
    kind = getattr(result, "hypothesis", "difference")
    if kind == "equivalence":
        return f"two one-sided tests, |B - A| < {result.margin:g}"
    if kind != "difference":
        ((sides, boundary),) = nulls(kind, result.margin, side, result.lower_is_better)
        return f"one-sided, B - A {'>' if sides == 'greater' else '<'} {boundary:g}"
    return {"greater": "one-sided, B - A > 0", "less": "one-sided, B - A < 0"}.get(
        side, "two-sided")


def null_text(result) -> str:
    """The p-value's sides and null hypothesis, as the text report writes them."""
    kind = getattr(result, "hypothesis", "difference")
    if kind != "difference":
        m = f"{result.margin:g}"
        return {"non-inferiority": f"one-sided; null hypothesis: B worse than A by {m} "
                                   "or more",
                "superiority": f"one-sided; null hypothesis: B not better than A by more "
                               f"than {m}",
                "equivalence": f"two one-sided tests; null hypothesis: B and A differ by "
                               f"{m} or more"}[kind]
    side = getattr(result, "alternative", "two-sided")
    if side == "greater":
        return "one-sided; null hypothesis: B - A <= 0"
    if side == "less":
        return "one-sided; null hypothesis: B - A >= 0"
    return "two-sided; null hypothesis: no difference between A and B"


def result_p_cell(result, p: float) -> str:
    """:func:`p_cell` of a p-value of ``result`` (its own, or a stratum's)."""
    return p_cell(p, result.n_resamples, alpha=alpha_of(result.confidence_level),
                  resampled=result.method not in CLOSED_FORM_P, sides=sides_of(result))


def p_fields(p: float | None, n_resamples: int, *, alpha: float | None = None,
             resampled: bool = True, name: str = "p_value", sides: int = 2) -> dict:
    """The JSON's companions of a p-value ``name``: ``{name}_upper_bound`` (``p``, or
    the resolution of the resamples where they cannot resolve ``p``) and its text
    (``p_text`` for ``p_value``, else ``{name}_text``), as the tables print it."""
    text = "p_text" if name == "p_value" else f"{name}_text"
    if not _finite(p):
        return {f"{name}_upper_bound": None, text: "n/a"}
    return {f"{name}_upper_bound": p_upper_bound(p, n_resamples, resampled=resampled,
                                                 sides=sides),
            text: p_cell(p, n_resamples, alpha=alpha, resampled=resampled, sides=sides)}


def unresolved(result) -> bool:
    """Whether ``result``'s p-value was read off its resamples and lies below what they
    can resolve (:func:`pairboot.stats.pvalues.p_resolution`)."""
    p = result.p_value
    return (_finite(p) and result.method not in CLOSED_FORM_P
            and too_few_units(result) is None  # (then no p-value is given: said why)
            and p_upper_bound(p, result.n_resamples, sides=sides_of(result)) != p)


def resolution_note(result) -> str:
    """What an unresolved p-value's bound means, in one sentence."""
    r = result.n_resamples
    bound = _plain(p_upper_bound(result.p_value, r, sides=sides_of(result)))
    if result.p_value == 0:
        where = ("0" if getattr(result, "hypothesis", "difference") == "difference"
                 else "the margin's boundary")
        return (f"none of the {r:,} resamples fell on the other side of {where}; {bound} is "
                "the largest p-value consistent with that, at 95% confidence")
    return f"{r:,} resamples cannot resolve a p-value below {bound}"


def _plain(x: float) -> str:
    """A positive number in positional notation, without trailing zeros."""
    return np.format_float_positional(x, trim="-")


def design(result: CompareResult, context: ReportContext | None = None) -> str:
    """The design in a few words, as the headline names it: "95% paired bootstrap over
    200 items", "95% paired stratified cluster bootstrap over 130 groups (doc) in 3
    strata (domain)", "95% interval over 300 items and 5 seeds each"."""
    ctx = context or ReportContext()
    level = percent(getattr(result, "interval_level", result.confidence_level))
    if result.n_groups is not None:
        units = plural(result.n_groups, "group") + (f" ({ctx.group})" if ctx.group else "")
    else:
        units = plural(result.n_items, "item")
    if result.n_strata is not None:
        units += f" in {plural(result.n_strata, 'stratum', 'strata')}"
        units += f" ({ctx.stratum})" if ctx.stratum else ""
    runs = getattr(result, "runs", None)
    if getattr(result, "estimand", "population") == "suite":
        return f"{level} fixed-suite interval over {units} (only the trials vary)"
    if runs is not None and runs.kind == "seeds":
        return f"{level} interval over {units} and {_runs_text(runs)}"
    if runs is not None:  # samples: the items' means
        counts = (f"{runs.runs_a:g}" if runs.runs_a == runs.runs_b
                  else f"{runs.runs_a:g} and {runs.runs_b:g}")
        units += f" (each the mean of {counts} samples)"
    words = ["paired" if result.paired else "unpaired"]
    words += ["stratified"] if result.n_strata is not None else []
    if result.method == "score":  # (closed forms, not read off the bootstrap)
        words += ["cluster-adjusted"] if result.n_groups is not None else []
        return f"{level} {' '.join(words)} score interval over {units}"
    words += ["cluster"] if result.n_groups is not None else []
    if result.method != "percentile":
        words.append(METHOD_NAMES.get(result.method, result.method))
    return f"{level} {' '.join(words)} bootstrap over {units}"


METHOD_NAMES = {"bca": "BCa"}
"""How a method's name is written in a sentence."""


def _runs_text(runs) -> str:
    """``"3 seeds each"`` or ``"3 and 5 seeds"`` (runs of A and B)."""
    what = "seeds" if runs.kind == "seeds" else "samples per item"
    if runs.runs_a == runs.runs_b:
        if runs.runs_a == 1:  # ("1 seed each", "1 sample per item each")
            what = "seed" if runs.kind == "seeds" else "sample per item"
        return f"{runs.runs_a:g} {what} each"
    return f"{runs.runs_a:g} and {runs.runs_b:g} {what}"


def runs_section(result) -> tuple[str, Table, str] | None:
    """A comparison with several runs: its title line, the variance split as a
    :class:`~pairboot.report.table.Table` and the projection in a sentence ("" when
    there is nothing to project); None without runs.  Every format lays them out."""
    runs = getattr(result, "runs", None)
    if runs is None:
        return None
    rows = []
    for system, parts in runs.variance_components.items():
        for name, c in parts.items():
            share = c["share"]
            rows.append([system, name, f"{c['variance']:.4g}",
                         "" if share != share else f"{share * 100:.0f}%"])
    unit = "seeds" if runs.kind == "seeds" else "samples per item"
    how = (f"{runs.degrees_of_freedom:.1f} degrees of freedom" if runs.kind == "seeds"
           else "the interval is the item bootstrap of the items' means")
    title = f"Runs: {_runs_text(runs)}; variance of B - A {runs.variance:.4g} ({how})"
    table = Table(("", "component", "variance", "share of V"), rows, "llrr")
    if not runs.variance > 0:  # every difference alike: nothing to project
        return title, table, ""
    twice_items = result.projection(n_items=2 * runs.n_items)
    twice_runs = result.projection(runs_factor=2.0)
    items = "groups" if result.n_groups is not None else "items"  # what is drawn
    text = (f"With twice the {items} the interval would be "
            f"{(1 - twice_items['width_ratio']) * 100:.0f}% narrower; with twice the {unit}, "
            f"{(1 - twice_runs['width_ratio']) * 100:.0f}%.")
    if twice_items["floor"] > 0:
        text += (f" More {items} cannot bring the variance below "
                 f"{twice_items['floor']:.3g} (the runs' own variation).")
    return title, table, text


def describe_runs(result) -> list[str]:
    """The variance split and the projection of a comparison with several runs: the
    lines of the text report's ``Runs`` section (none without runs)."""
    section = runs_section(result)
    if section is None:
        return []
    title, table, text = section
    out = [title, *table_text(table)]
    if text:
        out.extend(wrap(text, bullet="  "))
    return out


def signature(result, context=None, *, first=(), after_seed=()) -> str:
    """The reproducibility line: everything needed to repeat the run exactly.

    Besides the result's own settings it names, when the context knows them, the id
    column (and ``--common-items``), the file of labels, the ``--stats`` columns, where
    a user-defined metric came from, the stratum weights as given, and numpy's version
    (the exact multinomial path draws with numpy's generator).  ``result`` is a
    :class:`CompareResult` or a family's result, ``context`` any context with those
    fields; ``first`` and ``after_seed`` are parts a family's line adds (its correction;
    lower-is-better and the plan).
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
        *([f"alternative {result.alternative}"]
          if getattr(result, "alternative", "two-sided") != "two-sided" else []),
        *([f"hypothesis {result.hypothesis}"]
          if getattr(result, "hypothesis", "difference") != "difference" else []),
        *([f"margin {result.margin:g}"] if getattr(result, "margin", None) is not None
          else []),
        *(["lower is better"] if isinstance(result, CompareResult) and result.lower_is_better
          else []),
        f"seed {result.seed}",
        *after_seed,
    ]
    if context.id:
        parts.append(f"id {context.id}")
    if getattr(context, "common_items", False):
        parts.append("common items")
    if getattr(context, "labels", None):
        parts.append(f"labels {context.labels}")
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
    spaces in); :func:`visible` first, so that a line break of the data is shown, not
    turned into a space."""
    indent = " " * len(bullet)
    return textwrap.wrap(
        visible(text), WIDTH, initial_indent=bullet, subsequent_indent=indent or "  ",
        break_on_hyphens=False, break_long_words=False,
    ) or [bullet]


_METHOD_WORDS = {
    "percentile": "percentile interval",
    "basic": "basic (reverse percentile) interval",
    "normal": "normal interval, bias-corrected as R boot's norm.ci (centred at "
    "2 * estimate - mean of the resamples, +/- z * standard error)",
    "bca": "BCa (bias-corrected and accelerated) interval",
    "studentized": "studentized (bootstrap-t) interval",
}


SUITE_METHOD = (
    "fixed suite (estimand='suite'): the items are held fixed and only their trials "
    "vary; each item's estimate has the unbiased variance v_i of its trials (s_i^2 / n_i "
    "for the mean), and B - A = sum_i w_i (B_i - A_i) has the variance sum_i w_i^2 "
    "(v_Ai + v_Bi) (A's and B's trials are independent given the items: no covariance "
    "term); normal interval. The population interval resamples the items instead, so it "
    "also covers which tasks were drawn (NIST AI 800-3's generalized accuracy, against "
    "this benchmark accuracy).")
"""The fixed-suite interval's method, in every format."""


def describe_method(result: CompareResult, context: ReportContext | None = None) -> str:
    """One sentence: what was resampled, and which interval."""
    context = context or ReportContext()
    if result.method == "score":
        return _describe_score(result, context)
    if getattr(result, "estimand", "population") == "suite":
        return SUITE_METHOD
    if result.n_groups is not None:
        col = f" of {context.group!r}" if context.group else ""
        unit = (f"{result.n_groups:,} whole group{'' if result.n_groups == 1 else 's'}{col}"
                f" ({result.n_items:,} item{'' if result.n_items == 1 else 's'})")
        units = "groups"
    else:
        unit = f"{result.n_items:,} item{'' if result.n_items == 1 else 's'}"
        units = "items"
    within = (f", within each of {plural(result.n_strata, 'stratum', 'strata')}"
              if result.n_strata is not None else "")
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
    if getattr(result, "hypothesis", "difference") == "equivalence":
        words = (f"{words} at {percent(result.interval_level)} (two one-sided tests, "
                 f"|B - A| < {result.margin:g})")
    elif sides_of(result) == 1:
        words = f"one-sided {words} ({sides_text(result)[11:]})"
    return f"{how}; {words}, {result.n_resamples:,} resamples."


SCORE_WORDS = ("Tango's score interval for the paired difference of proportions; "
               "Wilson intervals per system")
"""``method="score"`` in words."""


def _describe_score(result: CompareResult, context: ReportContext) -> str:
    """:func:`describe_method` of ``method="score"``: the closed forms, their design
    effects with groups, and what the bootstrap still gives."""
    words = SCORE_WORDS
    if getattr(result, "hypothesis", "difference") == "equivalence":
        words += (f" (Tango's at {percent(result.interval_level)}: two one-sided score "
                  f"tests, |B - A| < {result.margin:g})")
    elif sides_of(result) == 1:
        words += f" (one-sided: {sides_text(result)[11:]})"
    items = f"{result.n_items:,} item{'' if result.n_items == 1 else 's'}"
    if result.n_groups is not None:
        col = f" of {context.group!r}" if context.group else ""
        words += (f", cluster-adjusted by the design effects of the {result.n_groups:,} "
                  f"groups{col} (the {items}' counts divided by them, as Rao and Scott's)")
    else:
        words += f", on the 2 x 2 table of the {items}"
    return (f"{words}; the p-value is Tango's score test, so it agrees with the interval; "
            "closed forms, without Monte Carlo error; the standard error is that of "
            f"{result.n_resamples:,} paired bootstrap resamples.")


def strata_table(result: CompareResult, d: int) -> Table:
    """The per-stratum table: a stratum's weight, size, scores, difference, interval and
    p-value (centred: a column apart from the numbers in Markdown)."""
    grouped = any(s.n_groups is not None for s in result.strata)
    header = ["stratum", "weight", "items"] + (["groups"] if grouped else []) + [
        "A", "B", "B - A", f"{percent(result.confidence_level)} interval", "p"]
    rows = []
    for s in result.strata:
        row = [str(s.name), f"{s.weight:.3f}", f"{s.n_items:,}"]
        if grouped:
            row.append("" if s.n_groups is None else f"{s.n_groups:,}")
        row += [
            num(s.score_a.estimate, d),
            num(s.score_b.estimate, d),
            num(s.estimate, d, signed=True),
            interval_text(s.confidence_interval, d, signed=True),
            "n/a" if too_few_units(result, s) else p_cell(s.p_value, result.n_resamples),
        ]
        rows.append(row)
    return Table(header, rows, "l" + "r" * (len(header) - 2) + "c")

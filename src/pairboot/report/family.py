"""Reports of a family of comparisons (:class:`~pairboot.result.FamilyResult`): text, JSON,
Markdown and LaTeX.

Every writer has the signature ``writer(result, context=None) -> str`` and is registered in
:data:`pairboot.report.FAMILY_WRITERS`; :func:`pairboot.report.render_family` picks one.
``context`` (:class:`FamilyContext`) carries what the result does not know: the inputs,
the plan's SHA-256 when a plan fixed the family, or a note that it did not.

What every format says:

- one line (:func:`summary`): how many systems and comparisons, the procedure and level,
  how many comparisons are significant after the correction, and the best set;
- the systems: each one's score and interval, its rank interval and whether it could be
  the best (all pairs only), and the letters of the systems it is significantly better
  than after the correction (:func:`better_than`; ranx's layout with corrected decisions);
- the comparisons (``b - a``): estimate, the family's interval, the marginal one, p,
  adjusted p, a marker of significance after the correction, and the row's note;
- the reproducibility line (:func:`family_signature`).

One rule for the decimals of the whole report: :func:`pairboot.result.decimals` of the
smallest standard error among the comparisons.
"""

from __future__ import annotations

import json
import math
import string
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pairboot.report.formats import _md, _tex, _tex_interval, _tex_num
from pairboot.report.parts import interval_text, num, p_cell
from pairboot.result import FamilyResult, _json_safe, decimals, percent

WIDTH = 88
"""Line width the text report wraps its prose to."""

UNPLANNED = "the family was chosen when the command was run, not fixed in advance by a plan"
"""A ``family_note`` for a family that no plan fixed."""


@dataclass(frozen=True, slots=True)
class FamilyContext:
    """What a family's report says beyond the result itself.

    Attributes
    ----------
    plan_sha256 : str or None
        The SHA-256 of the plan file that fixed the family in advance; printed in full so
        a reader can check it against the published plan.
    family_note : str or None
        How the family was chosen when no plan fixed it (e.g. :data:`UNPLANNED`).
    files : tuple of str
        The input files, as given.
    layout : str
        One phrase on how items were aligned ("joined on column 'id'").
    notes : tuple of str
        Extra remarks, printed after the warnings.
    id, stats, metric_source, group, stratum, stratum_weights : str or None
        As :class:`pairboot.report.ReportContext`'s, for the signature.
    reword : callable or None
        Applied to every message taken from the result (its warnings and notes), so
        that the command line can write the API's arguments as its options.
    """

    plan_sha256: str | None = None
    family_note: str | None = None
    files: tuple[str, ...] = ()
    layout: str = ""
    notes: tuple[str, ...] = ()
    id: str | None = None
    stats: tuple[str, ...] | None = None
    metric_source: str | None = None
    group: str | None = None
    stratum: str | None = None
    stratum_weights: str | None = None
    reword: Callable[[str], str] | None = None

    def say(self, text: str) -> str:
        """``text`` (a warning or a row's note) as this report's reader should see it."""
        return self.reword(text) if self.reword is not None else text


# ----------------------------------------------------------------- what every format says


_PROCEDURES = {
    "max-t": "max-t (Romano-Wolf stepdown)",
    "holm": "Holm (Bonferroni intervals)",
    "bonferroni": "Bonferroni",
    "none": "no correction",
}
"""The correction as the reports name it."""


def procedure(result: FamilyResult) -> str:
    """The correction in a few words ("max-t (Romano-Wolf stepdown)")."""
    if result.family_size == 1:
        return "no correction needed (one comparison)"
    return _PROCEDURES.get(result.correction, result.correction)


def _corrected(result: FamilyResult) -> bool:
    """Whether the family's intervals and p-values differ from the marginal ones."""
    return result.family_size > 1 and result.correction != "none"


def interval_name(result: FamilyResult) -> str:
    """The family's interval, as a column header: "95% simultaneous", "95% Bonferroni",
    or "95% interval" when there is no correction."""
    level = percent(result.confidence_level)
    if not _corrected(result):
        return f"{level} interval"
    return f"{level} {'simultaneous' if result.correction == 'max-t' else 'Bonferroni'}"


def _level_words(result: FamilyResult) -> str:
    level = percent(result.confidence_level)
    if not _corrected(result):
        return f"{level} interval" if result.family_size == 1 else f"{level} per comparison"
    return f"{level} {'simultaneous' if result.correction == 'max-t' else 'family-wise'}"


def baseline_of(result: FamilyResult) -> str | None:
    """The baseline when every comparison shares the same ``a`` ("baseline vs k")."""
    firsts = {c.a for c in result.comparisons}
    return next(iter(firsts)) if len(firsts) == 1 else None


def _all_pairs(result: FamilyResult) -> bool:
    names = list(result.systems)
    pairs = {frozenset((c.a, c.b)) for c in result.comparisons}
    return len(names) > 2 and len(pairs) == len(names) * (len(names) - 1) // 2


def family_kind(result: FamilyResult) -> str:
    """The family in a few words: "all pairs", "vs baseline base" or "chosen pairs"."""
    if _all_pairs(result):
        return "all pairs"
    base = baseline_of(result)
    if base is not None:
        return f"vs baseline {base}"
    return "chosen pairs"


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _names(names) -> str:
    names = list(names)
    if len(names) == 1:
        return names[0]
    if len(names) == 2:
        return f"{names[0]} or {names[1]}"
    return "one of " + ", ".join(names)


def _comparison_cells(c, d: int, corrected: bool, n_resamples: int, name=str) -> list[str]:
    """A comparison's cells: b - a, the estimate, the family's interval, and (corrected)
    the marginal interval, p and adjusted p, else p; ``name`` renders a system's name."""
    row = [f"{name(c.b)} - {name(c.a)}", num(c.estimate, d, signed=True),
           interval_text(c.confidence_interval, d, signed=True)]
    if corrected:
        return row + [interval_text(c.marginal_interval, d, signed=True),
                      p_cell(c.p_value, n_resamples), p_cell(c.p_adjusted, n_resamples)]
    return row + [p_cell(c.p_value, n_resamples)]


def summary(result: FamilyResult) -> str:
    """The report's first line.

    "4 systems, 6 comparisons (all pairs), max-t (Romano-Wolf stepdown), 95% simultaneous:
    5 significant; best: v1" (on one line).
    """
    m = len(result.comparisons)
    kind = "" if m == 1 else f" ({family_kind(result)})"
    significant = sum(c.significant for c in result.comparisons)
    line = (f"{_plural(len(result.systems), 'system')}, {_plural(m, 'comparison')}{kind}, "
            f"{procedure(result)}, {_level_words(result)}: {significant} significant")
    if result.best_set:
        lower = " (lower is better)" if result.lower_is_better else ""
        line += f"; best{lower}: {_names(result.best_set)}"
    return line


def family_decimals(result: FamilyResult) -> int:
    """Decimals for every number of the report: from the smallest standard error among
    the comparisons (4 when none is positive and finite)."""
    se = [c.standard_error for c in result.comparisons
          if math.isfinite(c.standard_error) and c.standard_error > 0]
    return decimals(min(se) if se else math.nan)


def _b_better(estimate: float, lower_is_better: bool) -> bool | None:
    """Whether ``b`` is the better system of a comparison (None when the estimate is 0 or
    undefined)."""
    if not (math.isfinite(estimate) and estimate != 0):
        return None
    return (estimate < 0) if lower_is_better else (estimate > 0)


def better_than(result: FamilyResult) -> dict[str, tuple[str, ...]]:
    """For each system, the systems it is significantly better than after the
    correction: the comparison between them is significant and its estimate favours it
    (``result.lower_is_better`` respected).  Systems in the systems' order."""
    beaten: dict[str, set[str]] = {name: set() for name in result.systems}
    for c in result.comparisons:
        b_wins = _b_better(c.estimate, result.lower_is_better)
        if not c.significant or b_wins is None:
            continue
        winner, loser = (c.b, c.a) if b_wins else (c.a, c.b)
        beaten[winner].add(loser)
    order = list(result.systems)
    return {name: tuple(sorted(s, key=order.index)) for name, s in beaten.items()}


def letters(names) -> dict[str, str]:
    """A letter per system, in order: a, b, ..., z, then A, ..., Z, then numbers."""
    names = list(names)
    pool = string.ascii_lowercase + string.ascii_uppercase
    if len(names) <= len(pool):
        return {name: pool[k] for k, name in enumerate(names)}
    return {name: str(k + 1) for k, name in enumerate(names)}


def superscripts(result: FamilyResult) -> dict[str, str]:
    """For each system, the letters of the systems it is significantly better than
    (ranx's layout, with the corrected decisions); "" for none."""
    mark = letters(result.systems)
    sep = "" if all(len(v) == 1 for v in mark.values()) else ","
    return {name: sep.join(mark[o] for o in others)
            for name, others in better_than(result).items()}


def _rank(result: FamilyResult, name: str) -> str:
    if result.rank_intervals is None or name not in result.rank_intervals:
        return ""
    low, high = result.rank_intervals[name]
    return f"{low}" if low == high else f"{low}-{high}"


def family_signature(result: FamilyResult, context: FamilyContext | None = None) -> str:
    """The reproducibility line: version, correction, method, metric, resamples, level,
    seed, what the context knows (plan, id, columns, metric source), engine and numpy.

    The family itself (which comparisons) is in the report, or in the plan.
    """
    ctx = context or FamilyContext()
    metric = f"metric {result.metric}"
    if ctx.metric_source:
        metric += f" ({ctx.metric_source})"
    parts = [
        f"pairboot {result.version}",
        f"correction {result.correction} ({result.family_size})",
        f"{'paired' if result.paired else 'unpaired'} {result.method}",
        metric,
    ]
    if ctx.stats:
        parts.append(f"stats {','.join(ctx.stats)}")
    parts += [
        f"resamples {result.n_resamples}",
        f"level {result.confidence_level:g}",
        f"seed {result.seed}",
    ]
    if result.lower_is_better:
        parts.append("lower is better")
    if ctx.plan_sha256:
        parts.append(f"plan sha256:{ctx.plan_sha256[:12]}")
    if ctx.id:
        parts.append(f"id {ctx.id}")
    if result.n_groups is not None:
        parts.append(f"groups {ctx.group or 'yes'} ({result.group_weighting})")
    if result.n_strata is not None:
        strata = f"strata {ctx.stratum or 'yes'}"
        if ctx.stratum_weights:
            strata += f" (weights {ctx.stratum_weights})"
        parts.append(strata)
    parts.append(f"engine {result.engine}")
    parts.append(f"numpy {np.__version__}")
    return " | ".join(" ".join(str(p).replace("|", "/").split()) for p in parts)


def describe_family(result: FamilyResult) -> str:
    """One sentence: what was resampled, and how the family's error rate is controlled."""
    m = result.family_size
    alpha = 1 - result.confidence_level
    if result.n_groups is not None:
        unit = f"{result.n_groups:,} whole groups ({result.n_items:,} items)"
    else:
        unit = f"{result.n_items:,} items"
    within = f" within each of {result.n_strata:,} strata" if result.n_strata else ""
    draws = ("the same draws for every system" if result.paired
             else "each system's units drawn independently (unpaired)")
    marginal = ("the marginal ones are symmetric bootstrap-t intervals on the same roots"
                if result.correction == "max-t" and m > 1 else "for the marginal ones")
    shared = (f"{result.n_resamples:,} resamples of {unit}{within}, {draws}; "
              f"{result.method} intervals for each system, {marginal}")
    if m == 1:
        how = "a family of one comparison needs no correction"
    elif result.correction == "max-t":
        c = result.critical_value
        c_text = (f"{c:.3f}" if c is not None and math.isfinite(c)
                  else "infinite (too few resamples for the level)")
        how = (f"max-t: simultaneous intervals are estimate +/- c * se with c = {c_text}, the "
               f"{percent(result.confidence_level)} quantile of the largest standardised "
               f"root |(resample - estimate) / se| over the {m} comparisons; adjusted "
               "p-values by the Romano-Wolf stepdown on the same roots")
    elif result.correction == "holm":
        how = (f"Holm's step-down adjusted p-values; intervals at level 1 - {alpha:g}/{m} "
               "(Bonferroni's)")
    elif result.correction == "bonferroni":
        how = (f"Bonferroni: p-values times {m} (at most 1), intervals at level "
               f"1 - {alpha:g}/{m}")
    else:
        how = (f"no correction: with {m} comparisons the chance that one of them excludes 0 "
               f"by luck is above {alpha:g}")
    return f"{shared}; {how}."


def _family_line(result: FamilyResult) -> str:
    m = len(result.comparisons)
    kind = family_kind(result)
    n = len(result.systems)
    if kind == "all pairs":
        return f"all pairs of {n} systems ({_plural(m, 'comparison')}, b - a)"
    base = baseline_of(result)
    if base is not None:
        return f"{_plural(m, 'system')} against the baseline {base} (b - {base})"
    return f"{_plural(m, 'chosen pair')} of {n} systems (b - a)"


# ---------------------------------------------------------------------------------- text


def _table(rows: list[list[str]], align: str) -> list[str]:
    """Columns padded to their widest cell, each left- or right-aligned as ``align`` says
    ("l" or "r" per column)."""
    widths = [max(len(r[j]) for r in rows) for j in range(len(rows[0]))]
    out = []
    for r in rows:
        cells = [c.ljust(w) if a == "l" else c.rjust(w)
                 for c, w, a in zip(r, widths, align)]
        out.append("  " + "  ".join(cells).rstrip())
    return out


def _wrap(text: str, bullet: str = "") -> list[str]:
    indent = " " * len(bullet)
    return textwrap.wrap(
        text, WIDTH, initial_indent=bullet, subsequent_indent=indent or "  ",
        break_on_hyphens=False, break_long_words=False,
    ) or [bullet]


def family_text(result: FamilyResult, context: FamilyContext | None = None) -> str:
    """The plain-text report: the summary line, the systems, the comparisons, the method,
    the warnings and notes, the signature."""
    ctx = context or FamilyContext()
    d = family_decimals(result)
    level = percent(result.confidence_level)
    corrected = _corrected(result)
    alpha = 1 - result.confidence_level

    lines = [summary(result), ""]
    lines += _wrap(f"Family: {_family_line(result)}")
    if ctx.family_note:  # (one line, whatever its length: easy to grep or quote)
        lines.append(f"Note: {ctx.family_note}")
    if ctx.plan_sha256:
        lines.append(f"Plan: sha256 {ctx.plan_sha256}")
    if ctx.layout:
        lines += _wrap(f"Inputs: {ctx.layout}")

    # the systems
    ranked = result.rank_intervals is not None
    best = set(result.best_set or ())
    head = ["system", result.metric, f"{level} interval"]
    if ranked:
        head += ["rank", ""]
    rows = [head]
    for name, score in result.systems.items():
        row = [name, num(score.estimate, d), interval_text(score.confidence_interval, d)]
        if ranked:
            row += [_rank(result, name), "could be best" if name in best else ""]
        rows.append(row)
    lines.append("")
    lines += _table(rows, "lrrrl")
    if ranked:
        lower = ", lower is better" if result.lower_is_better else ""
        kind = ("simultaneous confidence set" if corrected or result.family_size == 1
                else "confidence set (from uncorrected intervals: not simultaneous)")
        lines += _wrap(f"  rank: a {level} {kind} for the system's rank (1 is the best{lower})")

    # the comparisons
    head = ["b - a", "estimate", interval_name(result)]
    if corrected:
        head += [f"{level} marginal", "p", "adjusted p"]
    else:
        head += ["p"]
    head.append("")
    rows = [head]
    notes: list[str] = []
    for c in result.comparisons:
        row = _comparison_cells(c, d, corrected, result.n_resamples)
        mark = "*" if c.significant else ""
        if c.note:
            notes.append(ctx.say(c.note))
            mark += f" ({len(notes)})"
        row.append(mark.strip())
        rows.append(row)
    lines.append("")
    lines += _table(rows, "l" + "r" * (len(head) - 2) + "l")
    p_name = "adjusted p" if corrected else "p"
    after = "after the correction" if corrected else "without a correction"
    lines += _wrap(f"  * significant {after}: {p_name} < {alpha:g}")
    for k, note in enumerate(notes, 1):
        lines += _wrap(f"({k}) {note}", bullet="  ")

    lines.append("")
    lines += _wrap("Method: " + describe_family(result))
    if result.warnings:
        lines += ["", "Warnings:"]
        for w in result.warnings:
            lines += _wrap(ctx.say(w), bullet="  - ")
    if ctx.notes:
        lines += ["", "Notes:"]
        for note in ctx.notes:
            lines += _wrap(note, bullet="  - ")
    lines += ["", family_signature(result, ctx)]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------- json


def family_json(result: FamilyResult, context: FamilyContext | None = None) -> str:
    """``result.to_dict()`` as indented JSON, plus the summary, who beats whom, the
    inputs, the plan's hash or the family's note, the notes and the signature.

    NaN and infinities are written as ``null`` (JSON has no spelling for them).
    """
    ctx = context or FamilyContext()
    out = result.to_dict()
    out["warnings"] = [ctx.say(w) for w in result.warnings]
    for row in out["comparisons"]:
        if row.get("note"):
            row["note"] = ctx.say(row["note"])
    out["summary"] = summary(result)
    out["better_than"] = {name: list(v) for name, v in better_than(result).items()}
    out["input"] = {"files": list(ctx.files), "layout": ctx.layout or None}
    out["plan_sha256"] = ctx.plan_sha256
    out["family_note"] = ctx.family_note
    out["notes"] = list(ctx.notes)
    out["signature"] = family_signature(result, ctx)
    return json.dumps(_json_safe(out), indent=2, allow_nan=False) + "\n"


# ------------------------------------------------------------------------------ markdown


def _explain(result: FamilyResult) -> str:
    """What the superscripts, the bold scores and the ranks of a systems table mean."""
    corrected = _corrected(result)
    text = ("A superscript names the systems a score is significantly better than "
            f"{'after the correction' if corrected else '(no correction)'}")
    if result.best_set:
        text += "; bold: could be the best"
    if result.rank_intervals is not None:
        kind = "simultaneous " if corrected or result.family_size == 1 else ""
        text += (f"; rank: a {percent(result.confidence_level)} {kind}confidence set "
                 "(1 is the best)")
    return text


def _caption(result: FamilyResult) -> str:
    """Family size, procedure, level, resamples and seed, in one sentence."""
    m = len(result.comparisons)
    kind = "" if m == 1 else f" ({family_kind(result)})"
    return (f"{_plural(len(result.systems), 'system')}, {_plural(m, 'comparison')}{kind}; "
            f"{procedure(result)}, {_level_words(result)}; "
            f"{result.n_resamples:,} resamples, seed {result.seed}.")


def family_markdown(result: FamilyResult, context: FamilyContext | None = None) -> str:
    """A table of the systems (score with the letters of the systems it is significantly
    better than), the comparisons table, a caption line, then the details."""
    ctx = context or FamilyContext()
    d = family_decimals(result)
    level = percent(result.confidence_level)
    corrected = _corrected(result)
    mark = letters(result.systems)
    sup = superscripts(result)
    ranked = result.rank_intervals is not None
    best = set(result.best_set or ())

    lines = [f"**{_md(summary(result))}**", ""]
    head = ["", "system", _md(result.metric), f"{level} interval"] + (["rank"] if ranked else [])
    lines += ["| " + " | ".join(head) + " |",
              "|---|---|---:|:---:|" + (":---:|" if ranked else "")]
    for name, score in result.systems.items():
        value = num(score.estimate, d) + (f"<sup>{sup[name]}</sup>" if sup[name] else "")
        if name in best:
            value = f"**{value}**"
        row = [mark[name], _md(name), value, interval_text(score.confidence_interval, d)]
        if ranked:
            row.append(_rank(result, name))
        lines.append("| " + " | ".join(row) + " |")

    head = ["b - a", "estimate", interval_name(result)]
    head += [f"{level} marginal", "p", "adjusted p"] if corrected else ["p"]
    head.append("")
    lines += ["", "| " + " | ".join(head) + " |",
              "|---|" + "---:|" + ":---:|" * (2 if corrected else 1)
              + "---:|" * (2 if corrected else 1) + "---|"]
    for c in result.comparisons:
        row = _comparison_cells(c, d, corrected, result.n_resamples, name=_md)
        cell = "**significant**" if c.significant else ""
        if c.note:
            cell = (cell + "; " if cell else "") + _md(ctx.say(c.note))
        row.append(cell)
        lines.append("| " + " | ".join(row) + " |")

    lines += ["", f"*{_md(_caption(result))} {_explain(result)}.*"]
    if ctx.plan_sha256:
        lines += ["", f"Plan: sha256 `{ctx.plan_sha256}`"]
    if ctx.family_note:
        lines += ["", f"Family: {_md(ctx.family_note)}"]
    if result.warnings:
        lines += ["", "**Warnings**", ""] + [f"- {_md(ctx.say(w))}" for w in result.warnings]
    if ctx.notes:
        lines += ["", "**Notes**", ""] + [f"- {_md(n)}" for n in ctx.notes]
    lines += ["", f"`{family_signature(result, ctx)}`"]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------- latex


def _tex_caption(result: FamilyResult, extra: str) -> str:
    return _tex(_caption(result)) + " " + extra


def family_latex(result: FamilyResult, context: FamilyContext | None = None) -> str:
    """A ``table`` with a booktabs ``tabular`` and a caption, ready to ``\\input``.

    A baseline family (every comparison shares the same ``a``) gets the baseline layout:
    each system's score, its difference from the baseline, the family's interval and the
    adjusted p-value.  Any other family gets ranx's layout: each system's score with
    superscript letters naming the systems it is significantly better than after the
    correction, its interval and, for all pairs, its rank interval.
    """
    ctx = context or FamilyContext()
    lines = [
        f"% {family_signature(result, ctx)}",
        r"% needs \usepackage{booktabs}",
    ]
    if ctx.plan_sha256:
        lines.append(f"% plan sha256 {ctx.plan_sha256}")
    if ctx.family_note:
        lines.append(f"% {' '.join(_tex(ctx.family_note).split())}")
    base = baseline_of(result)
    body = _latex_baseline(result, base) if base is not None else _latex_letters(result)
    lines += body
    warnings = [" ".join(ctx.say(w).split()) for w in result.warnings]
    lines += [f"% warning: {_tex(w)}" for w in warnings]
    return "\n".join(lines) + "\n"


def _latex_letters(result: FamilyResult) -> list[str]:
    d = family_decimals(result)
    level = percent(result.confidence_level)
    mark = letters(result.systems)
    sup = superscripts(result)
    ranked = result.rank_intervals is not None
    best = set(result.best_set or ())
    lines = [
        r"\begin{table}[htbp]",
        r"\centering",
        r"\begin{tabular}{ll" + "r" + "c" + ("c" if ranked else "") + "}",
        r"\toprule",
        f" & System & {_tex(result.metric.capitalize())} & {_tex(level)} interval"
        + (" & Rank" if ranked else "") + r" \\",
        r"\midrule",
    ]
    for name, score in result.systems.items():
        value = num(score.estimate, d)
        if name in best and value != "n/a":
            value = rf"\mathbf{{{value}}}"
        if sup[name]:
            value += rf"^{{\mathrm{{{sup[name]}}}}}"
        cell = "n/a" if value == "n/a" else f"${value}$"
        row = f"{mark[name]} & {_tex(name)} & {cell} & " + _tex_interval(
            score.confidence_interval, d)
        if ranked:
            row += f" & {_rank(result, name).replace('-', '--')}"
        lines.append(row + r" \\")
    lines += [
        r"\bottomrule",
        r"\end{tabular}",
        rf"\caption{{{_tex_caption(result, _tex(_explain(result)) + '.')}}}",
        r"\end{table}",
    ]
    return lines


def _latex_baseline(result: FamilyResult, base: str) -> list[str]:
    d = family_decimals(result)
    corrected = _corrected(result)
    interval = interval_name(result)
    against = {c.b: c for c in result.comparisons}
    lines = [
        r"\begin{table}[htbp]",
        r"\centering",
        r"\begin{tabular}{lrrcr}",
        r"\toprule",
        f"System & {_tex(result.metric.capitalize())} & $\\Delta$ vs {_tex(base)} & "
        f"{_tex(interval)} & " + ("adjusted $p$" if corrected else "$p$") + r" \\",
        r"\midrule",
        f"{_tex(base)} (baseline) & {_tex_num(result.systems[base].estimate, d)} & & & \\\\",
    ]
    for name, score in result.systems.items():
        if name == base:
            continue
        c = against.get(name)
        if c is None:  # (a system outside the family)
            lines.append(f"{_tex(name)} & {_tex_num(score.estimate, d)} & & & \\\\")
            continue
        delta = num(c.estimate, d, signed=True)
        if delta != "n/a":
            delta = f"${delta}{'^{*}' if c.significant else ''}$"
        p = p_cell(c.p_adjusted, result.n_resamples)
        lines.append(f"{_tex(name)} & {_tex_num(score.estimate, d)} & {delta} & "
                     f"{_tex_interval(c.confidence_interval, d, signed=True)} & ${p}$ \\\\")
    alpha = 1 - result.confidence_level
    star = (f"$^{{*}}$: {'adjusted ' if corrected else ''}$p < {alpha:g}$"
            + (" after the correction" if corrected else " (no correction)"))
    lines += [
        r"\bottomrule",
        r"\end{tabular}",
        rf"\caption{{{_tex_caption(result, star + '.')}}}",
        r"\end{table}",
    ]
    return lines

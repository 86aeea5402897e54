"""What every report of a family of comparisons (:class:`~pairboot.results.family.FamilyResult`)
says; the writers (text, JSON, Markdown, LaTeX) are in :mod:`pairboot.report.family_formats`.

``context`` (:class:`FamilyContext`) carries what the result does not know: the inputs,
the plan's SHA-256 when a plan fixed the family, or a note that it did not.

What every format says:

- one line (:func:`summary`): how many systems and comparisons, the procedure and level,
  how many comparisons are significant after the correction, and the best set;
- the systems: each one's score and interval, its rank interval and whether it could be
  the best (all pairs only), and the letters of the systems it is significantly better
  than after the correction (:func:`better_than`; ranx's layout with corrected decisions);
- the comparisons (the second system minus the first): estimate, the family's
  interval, the marginal one, p, adjusted p, a marker of significance after the
  correction, and the row's note;
- the reproducibility line and the method in words: :mod:`pairboot.report.family_method`.

One rule for the decimals of the whole report: :func:`pairboot.report.numbers.decimals` of the
smallest standard error among the comparisons.
"""

from __future__ import annotations

import math
import string
from collections.abc import Callable
from dataclasses import dataclass

from pairboot.report.numbers import decimals, percent
from pairboot.report.numbers import plural as count_of
from pairboot.report.parts import (
    alpha_of,
    format_p,
    interval_text,
    num,
    p_cell,
    p_fields,
    sides_of,
)
from pairboot.report.registry import context_class
from pairboot.report.verdicts import hypothesis_text
from pairboot.results.family import FamilyResult
from pairboot.stats.pvalues import CLOSED_FORM_P

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
    id, labels, common_items, stats, metric_source, group, stratum, stratum_weights
        As :class:`pairboot.report.ReportContext`'s, for the signature (the group and
        stratum columns also for the caption's design).
    items_kept : CommonItems or None
        As :class:`pairboot.report.ReportContext`'s: the items ``common_items`` kept,
        under the headline.
    reword : callable or None
        Applied to every message taken from the result (its warnings and notes), so
        that the command line can write the API's arguments as its options.
    strata_are : str
        What a stratum family's strata are called ("strata"; "tasks" for the tasks of
        harness logs), in the partial conjunction's sentence.
    """

    plan_sha256: str | None = None
    family_note: str | None = None
    files: tuple[str, ...] = ()
    layout: str = ""
    notes: tuple[str, ...] = ()
    id: str | None = None
    labels: str | None = None
    common_items: bool = False
    items_kept: object | None = None
    stats: tuple[str, ...] | None = None
    metric_source: str | None = None
    group: str | None = None
    stratum: str | None = None
    stratum_weights: str | None = None
    reword: Callable[[str], str] | None = None
    strata_are: str = "strata"

    def say(self, text: str) -> str:
        """``text`` (a warning or a row's note) as this report's reader should see it."""
        return self.reword(text) if self.reword is not None else text


context_class(FamilyResult, FamilyContext)


# ----------------------------------------------------------------- what every format says


_PROCEDURES = {
    "max-t": "max-t (Romano-Wolf stepdown)",
    "holm": "Holm (Bonferroni intervals)",
    "bonferroni": "Bonferroni",
    "bh": "Benjamini-Hochberg (false discovery rate)",
    "by": "Benjamini-Yekutieli (false discovery rate, any dependence)",
    "none": "no correction",
}
"""The correction as the reports name it."""


def procedure(result: FamilyResult) -> str:
    """The correction in a few words ("max-t (Romano-Wolf stepdown)")."""
    if result.family_size == 1:
        return "no correction needed (one comparison)"
    return _PROCEDURES.get(result.correction, result.correction)


def is_corrected(result: FamilyResult) -> bool:
    """Whether the family's intervals and p-values differ from the marginal ones."""
    return result.family_size > 1 and result.correction != "none"


def interval_name(result: FamilyResult) -> str:
    """The family's interval, as a column header: "95% simultaneous", "95% Bonferroni",
    or "95% interval" when there is no correction."""
    level = percent(result.interval_level)  # (equivalence: the 1 - 2 alpha rows)
    if not is_corrected(result):
        return f"{level} interval"
    if result.fcr_level is not None:
        return f"{percent(result.fcr_level)} FCR-adjusted"
    if result.correction == "max-t":  # (equivalence too: simultaneous at the level)
        return f"{percent(result.confidence_level)} simultaneous"
    return f"{level} Bonferroni"


def marginal_name(result: FamilyResult) -> str:
    """The rows' own intervals, as a column header: "95% marginal" (90% for
    equivalence, whose rows read the 1 - 2 alpha interval)."""
    return f"{percent(result.interval_level)} marginal"


def level_words(result: FamilyResult) -> str:
    level = percent(result.confidence_level)
    if not is_corrected(result):
        return f"{level} interval" if result.family_size == 1 else f"{level} per comparison"
    if getattr(result, "fcr_level", None) is not None:
        return f"false discovery rate {percent(1 - result.confidence_level)}"
    return f"{level} {'simultaneous' if result.correction == 'max-t' else 'family-wise'}"


def margined(result: FamilyResult) -> bool:
    """Whether the family tests a margin's hypothesis (its rows then show their verdict)."""
    return getattr(result, "hypothesis", "difference") != "difference"


def hypothesis_lines(result: FamilyResult, context: FamilyContext | None = None
                     ) -> list[str]:
    """What a family tests beyond a difference, and what it found across tasks: the
    margin's hypothesis for every row, the false discovery rate's reading, the partial
    conjunction count (none of these: no lines)."""
    out = []
    kind = getattr(result, "hypothesis", "difference")
    if kind != "difference":
        margins = {c.margin for c in result.comparisons}
        m = (f"margin {next(iter(margins)):g}" if len(margins) == 1
             else "each comparison's own margin")
        h0 = hypothesis_text(result, a="a", b="b", m="the margin")
        out.append(f"Hypothesis: {kind}, {m}; for each comparison {h0}.")
        claims = claims_line(result)
        if claims is not None:
            out.append(claims)
    if result.fcr_level is not None and result.family_size > 1:
        q = percent(1 - result.confidence_level)
        out.append(f"False discovery rate {q}: the adjusted p-values are q-values, and the "
                   f"expected share of false discoveries among the significant rows is at "
                   f"most {q}; the intervals are at {percent(result.fcr_level)} "
                   "(false-coverage-rate adjusted, Benjamini & Yekutieli 2005), so the "
                   f"discoveries' intervals miss at a rate of at most {q}.")
    pc = getattr(result, "partial_conjunction", None)
    if pc is not None:
        what = {"better": "better than A", "non-inferior": "not worse than A by the margin",
                "better-by-margin": "better than A by more than the margin",
                "equivalent": "equivalent to A within the margin"}[pc.claim]
        many = (context or FamilyContext()).strata_are
        one = {"strata": "stratum", "tasks": "task"}.get(many, many)
        how = (f"partial conjunction, Benjamini & Heller 2008, with Simes' rule over each "
               f"{one}'s one-sided {result.method} p-value of the claim (not the table's "
               "p-values)")
        if pc.count == 0:
            out.append(f"On no {one} is B shown {what} ({how}).")
        else:
            out.append(f"On at least {pc.count} of {pc.of} {many}, B is {what} ({how}: the "
                       f"count exceeds the truth with probability at most "
                       f"{percent(pc.alpha)}).")
    return out


def test_p_cell(result: FamilyResult, p: float) -> str:
    """A p-value of the family's permutation test as a table cell: exact (a count over
    every relabelling) or ``(1 + c) / (R + 1)``; either is a p-value as it stands (never
    0, so no bound)."""
    n = len(result.test.null_distribution)
    return p_cell(p, n, alpha=alpha_of(result.confidence_level), resampled=False)


def test_p_text(result: FamilyResult, p: float) -> str:
    """:func:`test_p_cell` in a sentence: ``"p = 0.0123"``."""
    n = len(result.test.null_distribution)
    return format_p(p, n, alpha=alpha_of(result.confidence_level), resampled=False)


TEST_COLUMN = "permutation p (adj.)"
"""The comparisons table's column of the family test's stepdown p-values."""


def family_test_lines(result: FamilyResult, *, rows: bool = True) -> list[str]:
    """The family's permutation test in sentences (none without one): the global test,
    each row's adjusted p-value (``rows``; a table with :data:`TEST_COLUMN` shows them
    instead), and the rows where the test and the family's decision disagree at the
    level."""
    t = result.test
    if t is None:
        return []
    side = {"greater": "one-sided, B - A > 0", "less": "one-sided, B - A < 0"}.get(
        t.alternative, "two-sided")
    unit = "group" if result.n_groups is not None else "item"
    m = len(result.systems)
    n = len(t.null_distribution)
    how = (f"all {math.factorial(m) ** t.n:,} relabellings, exact" if t.exact
           else f"{n:,} random relabellings of the {m} systems per {unit}")
    each = ("; adjusted per comparison: "
            + "; ".join(f"{c.b} - {c.a} {test_p_text(result, c.test_p_adjusted)}"
                        for c in result.comparisons) if rows
            else f"; each comparison's stepdown p in the column \"{TEST_COLUMN}\"")
    out = [f"Westfall-Young permutation test ({side}, {how}) of H0 \"the systems are "
           f"exchangeable on every {unit}\": {test_p_text(result, t.p_value)}{each}."]
    split = [c for c in result.comparisons if c.test_disagrees]
    if split:
        level = f"{alpha_of(result.confidence_level) * 100:g}%"
        names = ", ".join(f"{c.b} - {c.a}" for c in split[:5]) + (
            ", ..." if len(split) > 5 else "")
        out.append(f"The test and the family's decision disagree at {level} on {names}. "
                   "The permutation test asks whether the systems are exchangeable on "
                   "every unit; the intervals estimate each difference: they answer "
                   "different questions.")
    return out


def baseline_of(result: FamilyResult) -> str | None:
    """The baseline when every comparison shares the same ``a`` ("baseline vs k")."""
    firsts = {c.a for c in result.comparisons}
    return next(iter(firsts)) if len(firsts) == 1 else None


def _all_pairs(result: FamilyResult) -> bool:
    names = list(result.systems)
    pairs = {frozenset((c.a, c.b)) for c in result.comparisons}
    return len(names) > 2 and len(pairs) == len(names) * (len(names) - 1) // 2


def family_kind(result: FamilyResult) -> str:
    """The family in a few words: "all pairs", "vs baseline base", "chosen pairs" or
    "one per stratum"."""
    if getattr(result, "strata_family", None):
        return "one per stratum"
    if _all_pairs(result):
        return "all pairs"
    base = baseline_of(result)
    if base is not None:
        return f"vs baseline {base}"
    return "chosen pairs"


def strata_count(n: int) -> str:
    return count_of(n, "stratum", "strata")


def plural(n: int, word: str) -> str:
    return count_of(n, word)


def _names(names) -> str:
    names = list(names)
    if len(names) == 1:
        return names[0]
    if len(names) == 2:
        return f"{names[0]} or {names[1]}"
    return "one of " + ", ".join(names)


def p_resampled(result: FamilyResult) -> tuple[bool, bool]:
    """Whether the comparisons' p-values and adjusted p-values were read off the
    resamples (then a value below their resolution prints as a bound) rather than from
    a closed form: max-t counts them, ``(1 + count) / (B + 1)``, whatever the method;
    the t intervals of several runs and the normal interval give closed forms (and the
    fixed suite's normal rows keep theirs under max-t, as the t intervals do)."""
    counted = result.correction == "max-t" and result.family_size > 1
    closed_rows = result.method == "t" or getattr(result, "estimand", "") == "suite"
    raw = result.method not in CLOSED_FORM_P or (counted and not closed_rows)
    return raw, raw or counted


def family_p(result: FamilyResult, p: float, *, adjusted: bool = False) -> str:
    """A comparison's p-value (``adjusted``: its adjusted one) as every table and the
    JSON's text write it (:func:`pairboot.report.parts.p_cell`, with the family's
    level and resamples)."""
    resampled = p_resampled(result)[1 if adjusted else 0]
    return p_cell(p, result.n_resamples, alpha=alpha_of(result.confidence_level),
                  sides=sides_of(result),
                  resampled=resampled)


def row_p(result: FamilyResult, c, p: float, *, adjusted: bool = False) -> str:
    """:func:`family_p` of one of row ``c``'s p-values, "n/a" where its verdict is
    undefined (too few units for any test at the level: its note says why, and a
    bootstrap p-value of so few units is no test)."""
    if c.verdict == "undefined":
        return "n/a"
    return family_p(result, p, adjusted=adjusted)


def family_p_fields(result: FamilyResult, c) -> dict:
    """The JSON's bound and text of a comparison's p-value and adjusted p-value ("n/a",
    without a bound, where the row's verdict is undefined)."""
    if c.verdict == "undefined":
        return {"p_value_upper_bound": None, "p_text": "n/a",
                "p_adjusted_upper_bound": None, "p_adjusted_text": "n/a"}
    raw, adjusted = p_resampled(result)
    alpha = alpha_of(result.confidence_level)
    sides = sides_of(result)
    return {**p_fields(c.p_value, result.n_resamples, alpha=alpha, resampled=raw,
                       sides=sides),
            **p_fields(c.p_adjusted, result.n_resamples, alpha=alpha, resampled=adjusted,
                       sides=sides,
                       name="p_adjusted")}


def unresolved_note(result: FamilyResult) -> str | None:
    """What a p-value printed as ``< x`` means, when one of the table's is (else None)."""
    shown = [row_p(result, c, c.p_value) for c in result.comparisons]
    if is_corrected(result):
        shown += [row_p(result, c, c.p_adjusted, adjusted=True) for c in result.comparisons]
    bounds = sorted({cell for cell in shown if cell.startswith("<") and cell != "< 0.0001"})
    if not bounds:
        return None
    where = "0" if result.hypothesis == "difference" else "the margin's boundary"
    return (f"{', '.join(bounds)}: below what {result.n_resamples:,} resamples can "
            f"resolve (few or none fell beyond {where}; the bound is the largest p-value "
            "consistent with none, at 95% confidence)")


def comparison_cells(c, d: int, result: FamilyResult, name=str) -> list[str]:
    """A comparison's cells: b - a, the estimate, the family's interval, and (corrected)
    the marginal interval, p and adjusted p, else p; ``name`` renders a system's name."""
    row = [f"{name(c.b)} - {name(c.a)}", num(c.estimate, d, signed=True),
           interval_text(c.confidence_interval, d, signed=True)]
    if is_corrected(result):
        row += [interval_text(c.marginal_interval, d, signed=True),
                row_p(result, c, c.p_value), row_p(result, c, c.p_adjusted, adjusted=True)]
    else:
        row += [row_p(result, c, c.p_value)]
    if margined(result):
        if result.margin is None:  # (each row its own margin)
            row.append(f"{c.margin:g}")
        row.append(verdict_cell(result, c))
    if result.test is not None:  # (the family test's stepdown p)
        row.append(test_p_cell(result, c.test_p_adjusted))
    return row


def verdict_cell(result: FamilyResult, c) -> str:
    """A row's verdict, with the p-value of its own claim when it claims more than the
    hypothesis tests ("better (p = 0.012)" under non-inferiority): the p columns are the
    hypothesis's."""
    claim = getattr(c, "claim_p_value", None)
    if claim is None:
        return c.verdict or ""
    cell = family_p(result, claim, adjusted=True)
    return f"{c.verdict} (p {cell})" if cell.startswith("<") else f"{c.verdict} (p = {cell})"


def claims_line(result: FamilyResult) -> str | None:
    """What a verdict's own p-value beside it means, when a row has one (else None)."""
    rows = [c for c in result.comparisons if getattr(c, "claim_p_value", None) is not None]
    if not rows:
        return None
    lower = result.lower_is_better
    how = ("single-step max-t" if result.correction == "max-t" and result.family_size > 1
           else "adjusted as the row's interval is" if is_corrected(result) else "its own")
    return (f"A verdict beyond the hypothesis (better: the row's interval lies "
            f"{'below' if lower else 'above'} 0; better by the margin: beyond the margin) "
            f"is given with that claim's p-value (H0: b - a {'>=' if lower else '<='} 0, or "
            f"the margin), {how}; the p columns test {result.hypothesis}.")


def summary(result: FamilyResult) -> str:
    """The report's first line.

    "4 systems, 6 comparisons (all pairs), max-t (Romano-Wolf stepdown), 95% simultaneous:
    5 significant; best: v1" (on one line).
    """
    m = len(result.comparisons)
    kind = "" if m == 1 else f" ({family_kind(result)})"
    significant = sum(c.significant for c in result.comparisons)
    systems = plural(len(result.systems), "system")
    if getattr(result, "strata_family", None):
        systems = f"2 systems in {strata_count(len(result.strata_family))}"
    side = {"greater": ", one-sided (B - A > 0)", "less": ", one-sided (B - A < 0)"}.get(
        getattr(result, "alternative", "two-sided"), "")
    tested = getattr(result, "hypothesis", "difference")
    if tested != "difference":
        margin = f" {result.margin:g}" if result.margin is not None else "s"
        side = f", {tested} (margin{margin})"
    line = (f"{systems}, {plural(m, 'comparison')}{kind}, "
            f"{procedure(result)}{side}, {level_words(result)}: {significant} significant")
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
    (``result.lower_is_better`` respected); with a margin's hypothesis, only the rows
    whose verdict is better.  Systems in the systems' order."""
    beaten: dict[str, set[str]] = {name: set() for name in result.systems}
    for c in result.comparisons:
        b_wins = _b_better(c.estimate, result.lower_is_better)
        if not c.significant or b_wins is None:
            continue
        if margined(result) and c.verdict not in ("better", "better-by-margin"):
            continue  # (non-inferior or equivalent is no win; a margin's test shows no loss)
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


def rank_text(result: FamilyResult, name: str) -> str:
    if result.rank_intervals is None or name not in result.rank_intervals:
        return ""
    low, high = result.rank_intervals[name]
    return f"{low}" if low == high else f"{low}-{high}"

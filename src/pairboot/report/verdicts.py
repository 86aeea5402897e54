"""The verdict of a comparison of two systems in words, and the gates that act on it.

:func:`headline` is the first line of every report; :func:`decision` the verdict and
whether ``--fail-if`` fails the run (:data:`FAIL_IF`); :func:`gate_hypothesis` and
:func:`gate_conflict` refuse a gate that could not check what it guards.  A margin's
hypothesis is written here too (:func:`hypothesis_text`, :func:`margin_lines`): what
H0 says, how the interval decides it, and whether the test set could detect the
margin at all.
"""

from __future__ import annotations

import math

from pairboot.errors import InputError
from pairboot.report.numbers import decimals, percent, plural
from pairboot.report.parts import (
    METHOD_NAMES,
    ReportContext,
    alpha_of,
    design,
    format_p,
    interval_text,
    num,
    result_p,
    too_few_units,
)
from pairboot.results.compare import CompareResult
from pairboot.stats.hypotheses import VERDICTS, claim_boundary, half_width, nulls
from pairboot.stats.pvalues import CLOSED_FORM_P

FAIL_IF: dict[str, frozenset[str]] = {
    "worse": frozenset({"worse", "undefined"}),
    "not-better": frozenset(VERDICTS) - {"better", "better-by-margin"},
    "different": frozenset({"better", "better-by-margin", "worse", "undefined"}),
    "inferior": frozenset(VERDICTS) - {"non-inferior", "better", "better-by-margin"},
    "not-equivalent": frozenset(VERDICTS) - {"equivalent"},
    "not-better-by-margin": frozenset(VERDICTS) - {"better-by-margin"},
}
"""For each ``--fail-if`` choice, the verdicts (:meth:`CompareResult.verdict`) that fail
the run: B surely worse; B not surely better; B surely different; with a margin, B not
shown non-inferior, not shown equivalent, not shown better by more than the margin.
Every gate fails on an undefined verdict (one item, an interval that cannot be
computed): the run could not check what the gate asks, and a gate that cannot check
must not pass."""

MARGIN_GATES = {"inferior": "non-inferiority", "not-equivalent": "equivalence",
                "not-better-by-margin": "superiority"}
"""The hypothesis each margin's gate tests."""


def gate_hypothesis(fail_if: str | None, hypothesis: str | None, margin: float | None
                    ) -> str:
    """The hypothesis a run with the gate ``fail_if`` tests: a margin's gate sets its
    own (it needs a margin, and refuses another hypothesis); the other gates gate a
    difference.  ``hypothesis`` None: not given."""
    wanted = MARGIN_GATES.get(fail_if)
    if wanted is None:
        if fail_if is not None and hypothesis not in (None, "difference"):
            gate = next(g for g, h in MARGIN_GATES.items() if h == hypothesis)
            raise InputError(f"`fail_if={fail_if!r}` gates a difference from 0; a "
                             f"{hypothesis} test is gated by `fail_if={gate!r}`",
                             param="fail_if")
        return hypothesis or "difference"
    if margin is None:
        raise InputError(f"`fail_if={fail_if!r}` needs a `margin` (the difference that "
                         "matters, on the metric's scale)", param="margin")
    if hypothesis not in (None, wanted):
        raise InputError(f"`fail_if={fail_if!r}` tests {wanted}, not "
                         f"`hypothesis={hypothesis!r}`", param="hypothesis")
    return wanted


def gate_conflict(fail_if: str | None, alternative: str, lower_is_better: bool = False
                  ) -> str | None:
    """Why the gate ``fail_if`` cannot work with a one-sided ``alternative`` (None when
    it can): a one-sided test can only show B - A on its own side, so a gate on the
    other side, or on any difference, would pass whatever the data.  (A margin's gate
    sets its own sides: :func:`gate_hypothesis`.)"""
    if fail_if is None or alternative == "two-sided" or fail_if in MARGIN_GATES:
        return None
    better = "less" if lower_is_better else "greater"  # (the side on which B is better)
    wanted = {"worse": "less" if better == "greater" else "greater",
              "not-better": better}.get(fail_if)
    if wanted == alternative:
        return None
    shows = "B better" if alternative == better else "B worse"
    return (f"`fail_if={fail_if!r}` with `alternative={alternative!r}`: a one-sided test "
            f"can only show {shows}, so the gate could not fail on what it guards; use "
            + (f"`alternative={wanted!r}` or " if wanted else "")
            + "`alternative='two-sided'`")


def decision(result: CompareResult, context: ReportContext | None = None) -> dict:
    """The verdict and, when ``context.fail_if`` asks, whether it fails the run."""
    ctx = context or ReportContext()
    lower = lower_of(result, ctx)
    verdict = result.verdict(lower_is_better=lower)
    failed = ctx.fail_if is not None and verdict in FAIL_IF[ctx.fail_if]
    return {
        "verdict": verdict,
        "hypothesis": result.hypothesis,
        "margin": result.margin,
        "null_hypothesis": hypothesis_text(result),
        "detectable": result.detectable,
        "lower_is_better": lower,
        "fail_if": ctx.fail_if,
        "failed": failed,
        "reason": (None if not failed else "undefined" if verdict == "undefined"
                   else "verdict"),
        "headline": headline(result, ctx),
    }


def headline(result: CompareResult, context: ReportContext | None = None) -> str:
    """The verdict in one sentence, the first line of the text report.

    It names the design (:func:`design`) and, where B - A has the sign its word does
    not suggest (B worse, or better with lower-is-better), says "by" the size of the
    difference and gives B - A signed beside it.

    >>> import pairboot
    >>> res = pairboot.compare([0.2, 0.5, 0.4, 0.7] * 10, [0.3, 0.6, 0.4, 0.9] * 10)
    >>> print(headline(res).replace(", 95%", ",\\n95%"))
    B is better than A by +0.100 [+0.078, +0.122],
    95% paired bootstrap over 40 items, p < 0.0006.
    >>> print(headline(res, ReportContext(lower_is_better=True)).replace(", 95%", ",\\n95%"))
    B is worse than A by 0.100 (B - A = +0.100 [+0.078, +0.122]),
    95% paired bootstrap over 40 items, p < 0.0006 (lower is better).
    """
    ctx = context or ReportContext()
    lib = lower_of(result, ctx)
    d = decimals(result.standard_error)
    a = "A" if ctx.name_a == "A" else f"A ({ctx.name_a})"
    b = "B" if ctx.name_b == "B" else f"B ({ctx.name_b})"
    signed = (f"{num(result.estimate, d, signed=True)} "
              f"{interval_text(result.confidence_interval, d, signed=True)}")
    how = f"{design(result, ctx)}, {result_p(result)}"
    lower = " (lower is better)" if lib else ""
    verdict = result.verdict(lower_is_better=lib)
    m = None if result.margin is None else margin_text(result.margin)
    if verdict in ("better-by-margin", "non-inferior", "equivalent") or (
            result.hypothesis != "difference" and verdict in ("better", "inconclusive")):
        # each claim with the p-value of its own test, named (the hypothesis's p is not
        # the p of "better")
        own = f"{TEST_NAMES[result.hypothesis]}, {result_p(result)}"
        claim = claim_text(result, verdict, lib)
        what = {
            "better-by-margin": f"{b} is better than {a} by more than {m}",
            "better": f"{b} is better than {a}",
            "non-inferior": f"{b} is not worse than {a} by {m} or more",
            "equivalent": f"{b} is equivalent to {a} within +-{m}",
        }.get(verdict) or {
            "non-inferiority": f"Not shown non-inferior: {b} may be worse than {a} by {m} "
                               "or more",
            "superiority": f"Not shown: {b} better than {a} by more than {m}",
            "equivalence": f"Not shown equivalent: {b} and {a} may differ by {m} or more",
        }[result.hypothesis]
        if claim is not None:  # (a claim beyond the hypothesis's, then the hypothesis's)
            what += f" ({claim})"
            if result.hypothesis == "non-inferiority":
                what += f" and not worse by {m} or more ({own})"
        else:
            what += f" ({own})"
        blind = ("; this test set is too small to detect " + m + " ("
                 + reach_text(result, d) + ")"
                 ) if verdict == "inconclusive" and result.detectable is False else ""
        return f"{what}: B - A = {signed}, {design(result, ctx)}{lower}{blind}."
    if verdict in ("better", "worse"):
        if verdict == "better" and not lib:  # B - A > 0 reads as it is
            return f"{b} is better than {a} by {signed}, {how}{lower}."
        return (f"{b} is {verdict} than {a} by {num(abs(result.estimate), d)} "
                f"(B - A = {signed}), {how}{lower}.")
    if point_at_zero(result):  # (no spread at all: not evidence of anything)
        if verdict == "undefined":  # (a margin's test: nothing to read it off)
            return (f"No verdict: {b} and {a} do not differ on any resample (every one "
                    "gives B - A = 0), a point from which no margin can be tested and no "
                    f"evidence that they do not differ; {design(result, ctx)}{lower} (see "
                    "the warnings).")
        return (f"{b} and {a} do not differ on any resample: the bootstrap interval "
                "[0, 0] is degenerate and no evidence that they do not differ; "
                f"{design(result, ctx)}, {result_p(result)}{lower} (see the warnings).")
    if verdict == "undefined":
        method = METHOD_NAMES.get(result.method, result.method)
        if not getattr(result, "enough_units", True):
            units = result.n_groups if result.n_groups is not None else result.n_items
            unit = "group" if result.n_groups is not None else "item"
            return (f"No verdict: {units} {unit}{' is' if units == 1 else 's are'} too few for "
                    f"any verdict at the {percent(result.confidence_level)} level (B - A = "
                    f"{num(result.estimate, d, signed=True)} "
                    f"{interval_text(result.confidence_interval, d, signed=True)}; see the "
                    "warnings).")
        return (f"No verdict: the {method} interval is undefined for these data "
                f"(B - A = {num(result.estimate, d, signed=True)}; see the warnings).")
    runs = getattr(result, "runs", None)
    seeds = runs is not None and runs.kind == "seeds"
    needed = ""
    mde = getattr(result, "minimum_detectable", None)
    if mde is not None and result.hypothesis == "difference":
        needed = f"; this {'size' if seeds else 'test set'} detects {detectable_text(result, d)}"
    size = "size" if seeds else "test-set size"
    side = {"greater": ">", "less": "<"}.get(getattr(result, "alternative", "two-sided"))
    if side is not None:  # (one-sided: only its own side could be shown)
        other = (result.estimate < 0) == (side == ">") and result.estimate != 0
        return (f"Not shown: B - A {side} 0 (one-sided) for {b} against {a}: "
                f"B - A = {signed}, {how}{needed}"
                + ("; the estimate lies on the other side" if other else "") + ".")
    if result.detectable is False:  # (a margin: the difference that matters)
        needed = (f"; this test set is too small to detect a difference of {m} "
                  f"({reach_text(result, d)})")
    return (f"No difference detected between {b} and {a} at this {size}: "
            f"B - A = {signed}, {how}{needed}.")


TEST_NAMES = {"non-inferiority": "non-inferiority", "superiority": "superiority",
              "equivalence": "two one-sided tests", "difference": "no difference"}
"""How a headline names the test whose p-value it gives beside a margin's verdict."""


def claim_text(result, verdict: str, lower_is_better: bool) -> str | None:
    """A verdict's claim beyond the hypothesis's own test, named with its own p-value
    ("H0: B - A <= 0, p = 0.040" beside "better" under non-inferiority); None when the
    verdict claims what the hypothesis tests."""
    boundary = claim_boundary(verdict, result.hypothesis, result.margin, lower_is_better)
    if boundary is None:
        return None
    sides = result.alternative
    if result.hypothesis == "difference" and sides == "two-sided":
        h0, count = f"B - A = {boundary:+g}", 2
    else:
        h0, count = f"B - A {'<=' if sides == 'greater' else '>='} {boundary:+g}", 1
    if boundary == 0:
        h0 = h0.replace("+0", "0")
    p = format_p(result.verdict_p_value(lower_is_better=lower_is_better),
                 result.n_resamples, alpha=alpha_of(result.confidence_level),
                 resampled=result.method not in CLOSED_FORM_P, sides=count)
    return f"H0: {h0}, {p}"


def point_at_zero(result) -> bool:
    """Whether every resample gave B - A = 0 (a bootstrap interval, not the score
    method's or the runs' t): the interval is the point [0, 0] -- or, for a margin's
    test, undefined -- and shows nothing either way."""
    low, high = result.confidence_interval
    point = (low == high == 0.0) or (math.isnan(low) and math.isnan(high))
    return (result.method != "score" and getattr(result, "runs", None) is None
            and result.estimate == 0.0 and result.standard_error == 0.0 and point)


def lower_of(result, context: ReportContext) -> bool:
    """Whether lower is better: as the report's context or the result says."""
    return bool(context.lower_is_better or getattr(result, "lower_is_better", False))


def margin_text(margin: float) -> str:
    """A margin as given (``0.005``, ``0.5``), without rounding it to the report's digits."""
    return f"{margin:g}"


def hypothesis_text(result, *, a: str = "A", b: str = "B", m: str | None = None) -> str:
    """The null hypothesis in words: "H0: B is worse than A by 0.005 or more (B - A <=
    -0.005)"; for a difference, by the sides of ``alternative``.  ``a``, ``b`` and ``m``
    name the systems and the margin (a family's rows: "a", "b", "the margin")."""
    kind = result.hypothesis
    if kind == "difference":
        return {"greater": f"H0: {b} - {a} <= 0", "less": f"H0: {b} - {a} >= 0"}.get(
            result.alternative, f"H0: no difference between {a} and {b}")
    given = m is None
    m = margin_text(result.margin) if given else m
    sym = m if given else "margin"  # (in a formula: "b - a <= -margin", not "-the margin")
    if kind == "equivalence":
        return f"H0: {b} and {a} differ by {m} or more (|{b} - {a}| >= {sym})"
    ((sides, boundary),) = nulls(kind, 1.0, result.alternative, result.lower_is_better)
    sign = "-" if boundary < 0 else ""
    bound = f"{'>=' if sides == 'less' else '<='} {sign}{sym}"
    words = (f"is worse than {a} by {m} or more" if kind == "non-inferiority"
             else f"is not better than {a} by more than {m}")
    return f"H0: {b} {words} ({b} - {a} {bound})"


def reach_text(result, d: int) -> str:
    """How far the interval reaches from the estimate, against the margin."""
    reach = half_width(result.estimate, result.confidence_interval)
    return (f"the interval reaches {num(reach, d)} from the estimate, more than the margin "
            f"{margin_text(result.margin)}")


def margin_lines(result: CompareResult, context: ReportContext | None = None) -> list[str]:
    """A margin's test in sentences (none without a margin): the hypothesis, how its
    interval decides it, and, when the test set could not detect the margin, why an
    inconclusive answer is then no evidence of no difference."""
    if result.margin is None:
        return []
    ctx = context or ReportContext()
    d = decimals(result.standard_error)
    m = margin_text(result.margin)
    kind = result.hypothesis
    level = percent(result.interval_level)
    alpha = percent(1.0 - result.confidence_level)
    low, high = result.confidence_interval
    out = []
    if kind == "difference":
        out.append(f"Margin {m}: the difference that matters; the test is of B - A against "
                   f"0 ({hypothesis_text(result)}).")
    elif math.isnan(low) or math.isnan(high):  # (nothing to read H0 off: said why)
        out.append(f"{kind.capitalize()} with margin {m}: {hypothesis_text(result)}. The "
                   "interval is undefined for these data, so H0 is not tested (see the "
                   "warnings).")
    elif kind == "equivalence":
        p_low, p_high = result.p_values or (math.nan, math.nan)
        inside = -result.margin < low and high < result.margin
        out.append(
            f"Equivalence within +-{m}, two one-sided tests at {alpha}: "
            f"{hypothesis_text(result)}. The {level} interval "
            f"{interval_text(result.confidence_interval, d, signed=True)} "
            + (f"lies within +-{m}" if inside else f"reaches beyond +-{m}" if (
                low < -result.margin or high > result.margin)
               else f"ends on +-{m} (a tie, which is not within)") + "; p is the larger "
            f"of the two one-sided p-values ({result_p(result, p_low)} and "
            f"{result_p(result, p_high)}).")
    else:
        ((sides, boundary),) = nulls(kind, result.margin, result.alternative,
                                     result.lower_is_better)
        upper = sides == "less"  # (lower is better: the test's bound is the upper end)
        end, word = (high, "upper") if upper else (low, "lower")
        beyond = (end < boundary) if upper else (end > boundary)
        where = "below" if upper else "above"
        out.append(
            f"{kind.capitalize()} with margin {m}: {hypothesis_text(result)}. The one-sided "
            f"{level} {word} bound {num(end, d, signed=True)} "
            + (f"lies {where}" if beyond else "is on" if end == boundary
               else f"does not lie {where}")
            + f" {num(boundary, max(d, _digits(result.margin)), signed=True)}"
            + (", which rejects H0." if beyond and result.enough_units
               else "." if beyond else ", so H0 stands."))
    verdict = result.verdict(lower_is_better=lower_of(result, ctx))
    claim = claim_text(result, verdict, lower_of(result, ctx))
    if claim is not None:  # (what the interval shows beyond the hypothesis, and its p)
        what = ("better than A" if verdict == "better"
                else f"better than A by more than {m}")
        lower = lower_of(result, ctx)
        at = claim_boundary(verdict, kind, result.margin, lower)
        out.append(f"The interval lies {'below' if lower else 'above'} "
                   f"{'0' if at == 0 else f'{at:+g}'}{'' if kind == 'difference' else ' too'}"
                   f": B is {what} ({claim}).")
    few = too_few_units(result)
    if few is not None:  # (the interval is shown, but decides nothing: no verdict)
        out.append(f"But {few}: the interval decides nothing (no verdict).")
    if result.detectable is False and result.verdict(lower_is_better=lower_of(
            result, ctx)) == "inconclusive":
        out.append(f"This test set is too small to detect {m}: {reach_text(result, d)}, so "
                   f"{UNDETECTED[kind].format(m=m)}; an inconclusive answer here is no "
                   "evidence of no difference.")
    return out


UNDETECTED = {
    "non-inferiority": "with no true difference B would most likely not be shown "
                       "non-inferior",
    "equivalence": "with no true difference equivalence would most likely not be shown",
    "superiority": "even a true gain of twice the margin would be missed more often than "
                   "not",
    "difference": "a true difference of {m} would be missed more often than not",
}
"""What an interval that reaches further than the margin cannot do, by hypothesis."""


def _digits(x: float) -> int:
    """The decimals ``x`` is written with (0.005: 3)."""
    text = margin_text(x)
    return len(text.split(".")[1]) if "." in text and "e" not in text else 0




def detectable_text(result, d: int) -> str:
    """The minimum detectable difference in words: "a difference of +-0.021 or more 80%
    of the time" (one-sided: its sign)."""
    sign = {"greater": "+", "less": "-"}.get(result.alternative, "+-")
    return (f"a difference of {sign}{num(result.minimum_detectable, d)} or more 80% of "
            "the time")


def paired_test_lines(result: CompareResult) -> list[str]:
    """The test beside the interval in sentences (none without one): its p-value, the
    2 x 2 table of agreements, and, when the two decide differently at the level, that
    they do and why they may."""
    t = result.test
    if t is None:
        return []
    alpha = alpha_of(result.confidence_level)
    sides = 2 if t.alternative == "two-sided" else 1
    p = format_p(t.p_value, result.n_resamples, alpha=alpha, resampled=False, sides=sides)
    mid = format_p(t.p_value_mid, result.n_resamples, resampled=False, sides=sides)
    side = {"greater": "one-sided, B - A > 0", "less": "one-sided, B - A < 0"}.get(
        t.alternative, "two-sided")
    if t.name == "mcnemar":
        table = t.table
        out = [f"McNemar's exact test ({side}): {p} (mid-{mid}) on the "
               f"{plural(t.n, 'item')} the "
               f"systems disagree on: only A scored 1 on {table.only_a:,}, only B on "
               f"{table.only_b:,}; both scored 1 on {table.both:,}, both 0 on "
               f"{table.neither:,}."]
        who = "McNemar's"
        why = "McNemar's is exact given the discordant items; the bootstrap's p-value " \
              "of 0/1 scores is approximate"
        why += (", and smaller than the exact one when the items that differ are few."
                if result.p_value < t.p_value else ".")
    else:
        unit = "groups" if result.n_groups is not None else "items"
        if t.exact:
            p = format_p(t.p_value, 2 ** t.n, alpha=alpha, resampled=False, sides=sides)
            how = f"all {2 ** t.n:,} swaps of the {t.n} {unit}, exact"
        else:  # ((1 + c) / (R + 1): a p-value as it is, never 0, so no bound to print)
            p = format_p(t.p_value, len(t.null_distribution), alpha=alpha, resampled=False)
            how = f"{len(t.null_distribution):,} random swaps of A and B per {unit[:-1]}"
        out = [f"Paired permutation test ({side}, {how}): {p}."]
        who = "the permutation test's"
        why = ("The permutation test asks whether A and B are exchangeable on every unit; "
               "the bootstrap's interval estimates the difference: they answer different "
               "questions.")
    if result.test_disagrees:
        level = f"{alpha * 100:g}%"
        rejects = "rejects" if result.p_value < alpha else "does not reject"
        other = "does not" if result.p_value < alpha else "does"
        out.append(f"The test and the interval disagree at {level}: the bootstrap's "
                   f"{result_p(result)} {rejects} no difference, {who} {other}. {why}")
    return out

"""The reading of a comparison: its interval in plain words (:attr:`CompareResult.reading`,
which every report quotes), and what it says of several training runs per system; and
the p-value a comparison's repr shows."""

from __future__ import annotations

import math

from pairboot.report.numbers import decimals, p_repr, percent, plural
from pairboot.report.registry import writes
from pairboot.results.compare import CompareResult
from pairboot.stats.pvalues import units_for
from pairboot.stats.tdist import t_quantile

NOT_COVERED = (
    "It covers the sampling of test {unit} only: not training randomness (run several "
    "seeds), noise in the labels, or the gap between the test set and real traffic."
)
"""What an interval does not cover (``{unit}``: items or groups)."""

SUITE_READING = (
    "It is the fixed-suite interval: these items are the whole population (a regression "
    "suite) and only their trials vary; the population interval (items a sample of tasks) "
    "adds the spread of the items' true differences, so it is wider in expectation and "
    "answers another question.")
"""The fixed suite's reading: what it covers, and why it differs from the population's."""


@writes(CompareResult, "reading", part=True)
def reading_text(result: CompareResult, context=None) -> str:
    """The interval of ``result`` in plain words, as the spec reads it."""
    low, high = result.confidence_interval
    pct = percent(result.interval_level)
    unit = "groups" if result.n_groups is not None else "items"
    size = (
        f"{plural(result.n_groups, 'group')}, {plural(result.n_items, 'item')}"
        if result.n_groups is not None
        else plural(result.n_items, "item")
    )
    d = decimals(result.standard_error)
    left = "(-inf" if low == -math.inf else f"[{low:.{d}f}"
    right = "inf)" if high == math.inf else f"{high:.{d}f}]"
    span = f"{left}, {right}"
    if result.alternative != "two-sided":
        pct = f"one-sided {pct}"
    parts = []
    if math.isnan(low) or math.isnan(high):
        parts.append(  # (with one item no method helps: the warning says so)
            f"The {pct} {result.method} interval is undefined for these data "
            "(see the warnings)"
            + ("." if result.method == "percentile" else "; try `method='percentile'`.")
        )
    elif not result.enough_units:
        parts.append(
            f"The {pct} interval {span} rests on {size}: too few "
            f"for any test at this level to tell A and B apart (at least "
            f"{units_for(result.confidence_level, result.alternative)} {unit} are needed), "
            "so it decides "
            "nothing.")
    elif (low == high == 0.0 and result.standard_error == 0.0 and result.runs is None
          and result.method != "score"):  # (every resample: B - A = 0)
        parts.append(
            f"The {pct} interval {span} is a point: every resample gives B - A = 0, so it "
            f"is degenerate and says nothing of how far apart A and B could be (on "
            f"{size}, not evidence that they do not differ).")
    elif result.hypothesis != "difference":
        parts.append(_margin_reading(result, pct, span, size))
    elif result.excludes_zero:
        higher = "B" if result.estimate > 0 else "A"
        parts.append(
            f"The {pct} interval {span} excludes 0: on {size} the "
            f"data show that {higher} scores higher."
        )
    else:
        runs = result.runs if result.runs is not None and result.runs.kind == "seeds" else None
        if runs is not None:
            size += f" and {seeds_text(runs)}"
        side = {"greater": ">", "less": "<"}.get(result.alternative)
        parts.append(
            f"The {pct} interval {span} includes 0: {size} do not "
            "tell A and B apart." if side is None else
            f"The {pct} interval {span} includes 0: {size} do not show B - A {side} 0"
            + (" (the estimate lies on the other side)"
               if (result.estimate < 0) == (side == ">") and result.estimate != 0 else "")
            + "."
        )
        mde = result.minimum_detectable
        if mde is not None:
            sign = {"greater": "+", "less": "-"}.get(result.alternative, "+-")
            at = f" and {seeds_text(runs)}" if runs is not None else ""
            parts.append(
                f"At this size{at} a true difference of {sign}{mde:.{d}f} or more would be "
                "detected 80% of the time (plan a larger test set with pairboot.power, "
                "for the difference that matters: the observed one is no guide).")
        if runs is not None:
            parts += runs_limit_text(result, runs, unit)
    if result.pairing_gain is not None and result.correlation is not None:
        parts.append(pairing_text(result.correlation, result.pairing_gain))
    if result.n_groups is not None:
        est = (
            "the mean over items (larger groups count more)"
            if result.group_weighting == "items"
            else "the mean of the group means (every group counts the same)"
        )
        parts.append(f"Whole groups were resampled; the estimate is {est}.")
    if result.n_strata is not None:
        parts.append(
            f"Resampled within {plural(result.n_strata, 'stratum', 'strata')}, combined "
            "with the population weights."
        )
    runs = result.runs
    if runs is not None and runs.kind == "seeds":
        parts.append(
            f"It covers the sampling of test {unit} and of training runs (the run-to-run "
            "variation of the seeds given): not noise in the labels, or the gap between "
            "the test set and real traffic.")
    elif getattr(result, "estimand", "population") == "suite":
        parts.append(SUITE_READING)
    elif runs is not None:
        parts.append(
            f"It covers the sampling of test {unit}, and the sampled generations through "
            "each item's mean: " + NOT_COVERED.format(unit=unit).split(": ", 1)[1])
    else:
        parts.append(NOT_COVERED.format(unit=unit))
    return " ".join(parts)


def _margin_reading(result: CompareResult, pct: str, span: str, size: str) -> str:
    """A margin's test in a sentence: where the interval lies against the margin, and
    what that shows (or does not) on this test set."""
    m = f"{result.margin:g}"
    verdict = result.verdict()
    if result.hypothesis == "equivalence":
        if verdict == "equivalent":
            return (f"The {pct} interval {span} lies within +-{m}: on {size} the data show "
                    f"that A and B differ by less than {m}.")
        low, high = result.confidence_interval
        beyond = low < -result.margin or high > result.margin
        return (f"The {pct} interval {span} "
                + (f"reaches beyond +-{m}" if beyond
                   else f"ends on +-{m} (a tie, which is not within)")
                + f": {size} do not show that A and B differ by less than {m}.")
    lower = result.lower_is_better
    sign = "-" if lower else "+"
    shown = {"better-by-margin": f"B is better than A by more than {m}",
             "better": "B is better than A", "non-inferior":
             f"B is not worse than A by {m} or more"}.get(verdict)
    wanted = (f"B is not worse than A by {m} or more" if result.hypothesis == "non-inferiority"
              else f"B is better than A by more than {m}")
    boundary = (f"-{m}" if not lower else f"+{m}") if result.hypothesis == "non-inferiority" \
        else f"{sign}{m}"
    where = "below" if lower else "above"
    if shown is not None:  # (the boundary of what is shown: 0 for "better")
        beyond = {"better": "0", "better-by-margin": f"{sign}{m}"}.get(verdict, boundary)
        return (f"The {pct} interval {span} lies {where} {beyond}: on {size} the data "
                f"show that {shown}.")
    end = result.confidence_interval[1 if lower else 0]
    at = float(boundary)
    reach = ("ends on" if end == at else f"reaches {'above' if lower else 'below'}")
    return (f"The {pct} interval {span} {reach} {boundary}"
            + (" (a tie, which does not exclude it)" if end == at else "")
            + f": {size} do not show that {wanted}.")


def pairing_text(r: float, gain: float) -> str:
    """What pairing did to the interval, from the correlation ``r`` of A's and B's
    scores over the resamples and ``gain``, the unpaired interval's width over the
    paired one: "1.8 times narrower", "1.3 times wider", or, where the ratio rounds to
    1.0 either way, that pairing made little or no difference."""
    said = f"A's and B's scores correlate (r = {r:.2f} over the resamples)"
    if not (math.isfinite(gain) and gain > 0):
        return f"{said}."
    ratio = gain if gain >= 1 else 1.0 / gain
    if f"{ratio:.1f}" == "1.0":
        return (f"{said}: pairing made little or no difference to the interval's width "
                "(an unpaired one of the same data is as wide).")
    return (f"{said}: the paired interval is {ratio:.1f} times "
            f"{'narrower' if gain >= 1 else 'wider'} than an unpaired one of the same "
            "data.")


def seeds_text(runs) -> str:
    """``"3 seeds each"`` or ``"3 and 5 seeds"`` (the runs of A and B)."""
    if runs.runs_a == runs.runs_b:
        return f"{runs.runs_a:g} seed{'' if runs.runs_a == 1 else 's'} each"
    return f"{runs.runs_a:g} and {runs.runs_b:g} seeds"


def floor_detectable(result: CompareResult) -> tuple[float, float] | None:
    """With several training runs (``runs='seeds'``): the smallest difference that any
    number of items detects 80% of the time with these runs, and the runs' variance
    floor under it (t quantiles at the present degrees of freedom); None otherwise."""
    runs = result.runs
    if runs is None or runs.kind != "seeds" or not runs.variance > 0:
        return None
    floor = runs.projection(n_items=10**12)["floor"]
    if not floor > 0:
        return None
    alpha = 1.0 - result.confidence_level
    tail = alpha / 2.0 if result.alternative == "two-sided" else alpha
    df = runs.degrees_of_freedom
    return (t_quantile(1.0 - tail, df) + t_quantile(0.8, df)) * math.sqrt(floor), floor


def runs_limit_text(result: CompareResult, runs, unit: str) -> list[str]:
    """What the reading says of the runs when the interval includes 0: the smallest
    difference that more items alone could ever detect with these runs, and whether more
    seeds narrow the interval more than more items do."""
    out = []
    limit = floor_detectable(result)
    if limit is not None:
        sign = {"greater": "+", "less": "-"}.get(result.alternative, "+-")
        d = decimals(result.standard_error)
        out.append(f"With {seeds_text(runs)}, no number of {unit} detects a difference "
                   f"smaller than {sign}{limit[0]:.{d}f} 80% of the time (the run-to-run "
                   f"variation keeps the variance of B - A above {limit[1]:.3g}); more "
                   "seeds can.")
    if not runs.variance > 0:
        return out
    items = runs.projection(n_items=2 * runs.n_items)["width_ratio"]
    seeds = runs.projection(runs_factor=2.0)["width_ratio"]
    if seeds < items:  # (width ratios: smaller is narrower)
        out.append(f"More seeds narrow the interval more than more {unit}: twice the seeds "
                   f"would make it {(1 - seeds) * 100:.0f}% narrower, twice the {unit} "
                   f"{(1 - items) * 100:.0f}%.")
    return out


@writes(CompareResult, "p-repr", part=True)
def repr_p(result: CompareResult, context=None) -> str:
    """The p-value in ``repr(result)``: :func:`~pairboot.report.numbers.p_repr` of the
    result's own test (one-sided or two)."""
    sides = 2 if result.alternative == "two-sided" else 1
    return p_repr(result.p_value, result.n_resamples, result.method, sides)

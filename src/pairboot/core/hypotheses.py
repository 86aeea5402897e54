"""What a comparison tests, and the interval and p-value each hypothesis is read off.

A hypothesis is one or two one-sided tests of B - A against a boundary (:func:`nulls`):
a difference against 0 (by ``alternative``); non-inferiority against ``-margin`` (B not
worse by the margin or more: H0 B - A <= -margin); superiority against ``+margin``;
equivalence against both (two one-sided tests, TOST: H0 |B - A| >= margin).  With lower
is better, "better" is B - A < 0 and the boundaries change sign.

Each is read off one interval (:func:`read_test`): the interval at the level for a
difference, the one-sided interval on the better side for non-inferiority and
superiority, the two-sided ``1 - 2 alpha`` interval for equivalence (whose ends are the
two one-sided bounds).  Its p-value is the smallest alpha at which that interval
excludes the boundary, so the verdict (:func:`verdict_of`) and ``p < alpha`` never
disagree; TOST's is the larger of its two.
"""

from __future__ import annotations

import math
from collections.abc import Callable

VERDICTS = ("better-by-margin", "better", "non-inferior", "equivalent", "worse",
            "inconclusive", "undefined")
"""Every verdict a comparison can give (:func:`verdict_of`)."""

SHOWN = {
    "difference": frozenset({"better-by-margin", "better", "worse"}),
    "non-inferiority": frozenset({"better-by-margin", "better", "non-inferior"}),
    "superiority": frozenset({"better-by-margin"}),
    "equivalence": frozenset({"equivalent"}),
}
"""The verdicts that reject each hypothesis's null (``p < alpha``)."""


def nulls(hypothesis: str, margin: float | None, alternative: str,
          lower_is_better: bool = False) -> tuple[tuple[str, float], ...]:
    """The one-sided (or, for a difference, ``alternative``-sided) tests of
    ``hypothesis`` as ``(sides, boundary)`` pairs: the p-value of each is that of
    B - A against its boundary on its sides."""
    if hypothesis == "difference":
        return ((alternative, 0.0),)
    sign = -1.0 if lower_is_better else 1.0
    better = "less" if lower_is_better else "greater"
    if hypothesis == "non-inferiority":
        return ((better, -sign * margin),)
    if hypothesis == "superiority":
        return ((better, sign * margin),)
    return (("greater", -margin), ("less", margin))


def read_test(hypothesis: str, margin: float | None, alternative: str, alpha: float,
              interval_at: Callable[[float, str], tuple[float, float]],
              p_at: Callable[[str, float], float], lower_is_better: bool = False):
    """``(interval, p, parts)`` of ``hypothesis`` at ``1 - alpha``: ``interval_at(alpha,
    sides)`` gives an interval, ``p_at(sides, boundary)`` a p-value; ``parts`` holds
    TOST's two p-values (lower boundary, upper), else None."""
    tests = nulls(hypothesis, margin, alternative, lower_is_better)
    if hypothesis == "equivalence":
        interval = interval_at(min(1.0, 2.0 * alpha), "two-sided")
        parts = tuple(p_at(sides, boundary) for sides, boundary in tests)
        p = math.nan if any(math.isnan(x) for x in parts) else max(parts)
        return interval, p, parts
    ((sides, boundary),) = tests
    return interval_at(alpha, sides), p_at(sides, boundary), None


def interval_alpha(hypothesis: str, alpha: float) -> float:
    """The two-sided alpha of the interval a hypothesis is read off: ``2 alpha`` for
    equivalence, else ``alpha`` (one-sided intervals take their own)."""
    return min(1.0, 2.0 * alpha) if hypothesis == "equivalence" else alpha


def verdict_of(hypothesis: str, margin: float | None, interval, lower_is_better: bool = False
               ) -> str:
    """The verdict an interval (read off by :func:`read_test`) gives for ``hypothesis``.

    The interval is turned into B's gain over A (``-(B - A)`` with lower is better).  A
    difference: "better-by-margin" (its low end above the margin), "better", "worse" or
    "inconclusive".  Non-inferiority reads one one-sided bound and claims the most it
    shows: "better-by-margin", "better", "non-inferior" (above ``-margin``), else
    "inconclusive" -- every claim is "the gain exceeds c" for a c below the bound, so all
    hold together at the level (switching from non-inferiority to superiority on the same
    interval is sound).  Superiority: "better-by-margin" or "inconclusive".
    Equivalence: "equivalent" when the interval lies within ``(-margin, margin)``, else
    "inconclusive".  "undefined" for a NaN end.

    >>> verdict_of("non-inferiority", 0.05, (-0.01, math.inf))
    'non-inferior'
    >>> verdict_of("non-inferiority", 0.05, (-math.inf, 0.01), lower_is_better=True)
    'non-inferior'
    >>> verdict_of("equivalence", 0.05, (-0.02, 0.06))
    'inconclusive'
    """
    low, high = interval
    if math.isnan(low) or math.isnan(high):
        return "undefined"
    gain_low, gain_high = (-high, -low) if lower_is_better else (low, high)
    m = margin
    if hypothesis == "equivalence":
        return "equivalent" if -m < gain_low and gain_high < m else "inconclusive"
    if m is not None and m > 0 and gain_low > m:
        return "better-by-margin"
    if hypothesis == "superiority":  # (the one question it asks)
        return "inconclusive"
    if gain_low > 0:
        return "better"
    if hypothesis == "non-inferiority":
        return "non-inferior" if gain_low > -m else "inconclusive"
    return "worse" if gain_high < 0 else "inconclusive"


def half_width(estimate: float, interval) -> float:
    """How far the interval reaches from the estimate: half its width, or a one-sided
    interval's distance to its finite end (NaN when undefined)."""
    low, high = interval
    if math.isinf(low) and math.isinf(high):
        return math.inf
    if math.isinf(high):
        return estimate - low
    if math.isinf(low):
        return high - estimate
    return 0.5 * (high - low)


def detectable(margin: float | None, estimate: float, interval) -> bool | None:
    """Whether the test set could detect the margin: the interval reaches less far from
    its estimate than the margin (None without a margin or an interval).  When it
    reaches further, even a true difference of 0 could not be shown non-inferior or
    equivalent, and a true difference of the margin would be missed more often than
    not: an inconclusive answer is then no evidence of "no difference"."""
    if margin is None or margin == 0:
        return None
    reach = half_width(estimate, interval)
    return None if math.isnan(reach) else bool(reach < margin)

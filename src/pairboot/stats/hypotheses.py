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

A value on a boundary does not exclude it, and rounding must not move it off: a value
within :func:`tie_tolerance` of a boundary counts as on it (:data:`TIE`, relative to the
largest magnitude compared).  :func:`read_test` puts such interval ends on the boundary
(:func:`snap`), the p-values count such replicates as on it, and every comparison after
that is exact -- so "the interval excludes the boundary" and ``p < alpha`` stay one
decision, and a tie goes to H0 (docs/decisions.md, "Ties at a boundary").
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

TIE = 1e-9
"""Two numbers closer than ``TIE`` times the largest magnitude compared are equal: what
differs by rounding alone (a replicate computed as ``5/60 - 8/60`` against a margin of
0.05) is a tie, and a tie at a boundary goes to H0.  Far below a lattice's step (0/1
scores: ``1/n``) for any test set under 10^8 items, far above the rounding of a sum of
as many terms."""


def tie_tolerance(*values: float) -> float:
    """How close to a boundary a value counts as on it: :data:`TIE` times the largest
    finite ``|value|`` (0 when there is none: values computed without rounding)."""
    scale = max((abs(float(v)) for v in values if math.isfinite(v)), default=0.0)
    return TIE * scale


def snap(value: float, points, tol: float) -> float:
    """``value``, or the point of ``points`` it lies within ``tol`` of (the nearest):
    a number that differs from a boundary by rounding alone is the boundary."""
    near = [(abs(value - p), p) for p in points if abs(value - p) <= tol]
    return float(min(near)[1]) if near else value


def less_tie(distance: float, tol: float) -> float:
    """A distance from a boundary less the tie tolerance ``tol`` (0 within it): a test
    whose interval is ``estimate -+ q se`` excludes the boundary beyond ``tol`` exactly
    when ``|less_tie(estimate - boundary, tol)| > q se``, as :func:`snap` reads its
    ends."""
    if abs(distance) <= tol:
        return 0.0
    return math.copysign(abs(distance) - tol, distance)


def snap_interval(interval, points, tol: float) -> tuple[float, float]:
    """Both ends of ``interval`` through :func:`snap`."""
    low, high = interval
    return snap(low, points, tol), snap(high, points, tol)


def claim_points(margin: float | None) -> tuple[float, ...]:
    """Every boundary a verdict compares an interval with: 0 and, with a margin,
    ``-margin`` and ``+margin``."""
    if margin is None or margin == 0:
        return (0.0,)
    return (0.0, -float(margin), float(margin))


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
              p_at: Callable[[str, float], float], lower_is_better: bool = False, *,
              tol: float = 0.0):
    """``(interval, p, parts)`` of ``hypothesis`` at ``1 - alpha``: ``interval_at(alpha,
    sides)`` gives an interval, ``p_at(sides, boundary)`` a p-value; ``parts`` holds
    TOST's two p-values (lower boundary, upper), else None.  The interval's ends within
    ``tol`` of a boundary (:func:`claim_points`) are put on it; ``p_at`` must count a
    value within the same ``tol`` as on its boundary."""
    tests = nulls(hypothesis, margin, alternative, lower_is_better)
    points = claim_points(margin)
    if hypothesis == "equivalence":
        interval = interval_at(min(1.0, 2.0 * alpha), "two-sided")
        parts = tuple(p_at(sides, boundary) for sides, boundary in tests)
        p = math.nan if any(math.isnan(x) for x in parts) else max(parts)
        return snap_interval(interval, points, tol), p, parts
    ((sides, boundary),) = tests
    return snap_interval(interval_at(alpha, sides), points, tol), p_at(sides, boundary), None


def claim_tests(hypothesis: str, margin: float | None, alternative: str,
                lower_is_better: bool = False) -> tuple[tuple[str, float], ...]:
    """The tests of the claims a verdict may make beyond ``hypothesis``'s own, as
    ``(sides, boundary)`` on the sides of the interval the hypothesis reads: "better"
    (B - A against 0) and "better-by-margin" (against ``+-margin``; for a difference,
    on both sides, as lower-is-better may be read either way) -- each p-value is the
    smallest alpha at which that same interval lies beyond the boundary."""
    if hypothesis in ("superiority", "equivalence"):
        return ()
    ((sides, own),) = nulls(hypothesis, margin, alternative, lower_is_better)
    points = [b for b in claim_points(margin) if b != own]
    if hypothesis == "difference":
        points = [b for b in points if b != 0.0]
    return tuple((sides, b) for b in points)


def claim_p_values(hypothesis: str, margin: float | None, alternative: str,
                   p_at: Callable[[str, float], float], lower_is_better: bool = False
                   ) -> tuple[tuple[float, float], ...]:
    """``(boundary, p)`` for every test of :func:`claim_tests`, each p-value by ``p_at``
    (as :func:`read_test`'s)."""
    return tuple((float(b), float(p_at(sides, b)))
                 for sides, b in claim_tests(hypothesis, margin, alternative,
                                             lower_is_better))


def claim_boundary(verdict: str, hypothesis: str, margin: float | None,
                   lower_is_better: bool = False) -> float | None:
    """The boundary whose test decides ``verdict`` when it claims more than the
    hypothesis's own test ("better" under non-inferiority: 0; "better-by-margin" under
    a difference or non-inferiority: the margin on B's better side), else None (the
    hypothesis's own p-value is the verdict's)."""
    sign = -1.0 if lower_is_better else 1.0
    if verdict == "better" and hypothesis == "non-inferiority" and margin:
        return 0.0  # (a margin of 0: "better" is the hypothesis's own claim)
    if (verdict == "better-by-margin" and hypothesis in ("difference", "non-inferiority")
            and margin):
        return sign * float(margin)
    return None


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

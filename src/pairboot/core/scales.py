"""Scores on two scales, and differences rounded away: the notes a comparison gives when
its systems' scores are not on one scale (a percentage against a fraction) or when the
differences of large scores lost their digits.

Each function returns ``(category, text)`` pairs, as :mod:`pairboot.core.diagnostics`'s.
"""

from __future__ import annotations

import math

import numpy as np

from pairboot.core.design import Design
from pairboot.errors import DegenerateDataWarning, PairbootWarning

Note = tuple[type[Warning], str]

CHUNK = 1 << 16
"""Units read at a time for their scores' range (no copy of all of them)."""


SCALE_RATIO = 50.0
"""Systems whose largest absolute scores, and the spreads of their scores, differ by
this factor or more (about two orders of magnitude) are warned about: two scales, not
two systems (a fraction and a percentage, seconds and milliseconds)."""

UNIT_BEYOND = 5.0
"""A system whose scores all lie in [0, 1] against one whose scores reach this far, and
spread :data:`UNIT_SPREAD` times as wide, is warned about (a fraction against a 1-5
rating or a 0-10 score)."""

UNIT_SPREAD = 3.0
"""How many times wider than the [0, 1] system's the other's spread must be (a shift of
the same scores, 0-1 against 10-11, is no other scale)."""

def score_ranges(design: Design) -> list[tuple[float, float]] | None:
    """Every system's smallest and largest score of a unit (an item's score, a group's
    mean), for the mean; None for a pooled metric (its statistics are counts, not
    scores) or a design without its units (finished from parts' sums)."""
    plan = design.plan
    if not design.metric.mean_like or design.k != 2 or len(plan.x) < int(plan.sizes.sum()):
        return None
    lo = np.full(design.n_systems, np.inf)
    hi = np.full(design.n_systems, -np.inf)
    for c in range(0, len(plan.x), CHUNK):
        rows = plan.rows(c, min(c + CHUNK, len(plan.x)))
        for j in range(design.n_systems):
            total, count = rows[:, 2 * j], rows[:, 2 * j + 1]
            held = count > 0  # (unpaired: the rows of another system's sample are 0)
            if held.any():
                score = total[held] / count[held]
                lo[j], hi[j] = min(lo[j], score.min()), max(hi[j], score.max())
    return [(float(a), float(b)) for a, b in zip(lo, hi)]


def rounding_notes(design: Design, names: tuple[str, ...]) -> list[Note]:
    """A note when two systems' per-unit differences vary by no more than the rounding
    of the scores they came from, unit by unit (:attr:`Design.rounded`: scores near
    1e15 are held to steps of 1/8, near 1e3 to 1e-13): what the interval shows is then
    mostly that rounding.  The differences are summed as given; this says what they
    can hold."""
    if design.rounded is None:
        return []
    spread, level, step = design.rounded
    text = (f"the per-item differences are constant ({names[1]} - {names[0]}) to within "
            f"the rounding of the scores they came from: they vary by {spread:.3g} "
            f"(standard deviation), and scores near {level:.3g} are held to steps of "
            f"{step:.3g}; the interval's width is mostly that rounding")
    if step > 1e-9 * spread:
        text += ("; a common offset taken off the scores before they are written keeps "
                 "more of their digits")
    return [(DegenerateDataWarning, text)]


def table_range(values: np.ndarray) -> tuple[float, float]:
    """The smallest and largest score of an items x runs table (NaN: a missing run)."""
    finite = values[np.isfinite(values)]
    return (float(finite.min()), float(finite.max())) if finite.size else (math.nan, math.nan)


def scale_notes(ranges, what: str = "scores") -> list[Note]:
    """Systems (``(name, (lowest, highest))`` pairs) whose ``what`` lie on very different
    scales: their largest absolute scores and their spreads :data:`SCALE_RATIO` times
    apart, or one in [0, 1] and another reaching :data:`UNIT_BEYOND` and spread wider.
    A difference of such scores mixes the two units.  Two systems in [0, 1] are on one
    scale (one that scored 0.3% against one that scored 90%); a system that scored the
    same everywhere (0, or 1 on every item) has no scale to compare; a shift is no other
    scale (scores of 0-1 against 10-11 spread alike), and log-likelihoods of -1500 on
    both sides are one scale however large their difference."""
    ranges = [(name, r) for name, r in ranges]
    on_two = _on_two_scales([r for _, r in ranges])
    if not on_two.any():
        return []
    shown = [f"{name}'s in [{r[0]:.3g}, {r[1]:.3g}]" for (name, r), two in zip(ranges, on_two)
             if two]
    listed = ", ".join(shown[:6]) + (", ..." if len(shown) > 6 else "")
    return [(PairbootWarning,
             f"the {what} lie on very different scales ({listed}): if they are in "
             "different units (a fraction and a percentage), the difference mixes the two "
             "and means nothing; put them on one scale")]


def _on_two_scales(ranges) -> np.ndarray:
    """Which of the systems' ``(lowest, highest)`` ranges lie on another scale than
    some other system's (:func:`scale_notes`' rule), in O(M log M): ``small`` and
    ``big`` are apart when ``big`` is :data:`SCALE_RATIO` times ``small`` in size (the
    largest absolute score) and in spread and not within [0, 1], or ``small`` is within
    [0, 1], ``big`` reaches :data:`UNIT_BEYOND` and spreads :data:`UNIT_SPREAD` times
    as wide.  Either rule makes ``big`` the larger in size, so each is a search over
    the systems sorted by size (a running least spread below, a running widest above),
    where testing every pair is M^2 / 2 (5 * 10^9 for 10^5 systems)."""
    with np.errstate(over="ignore", invalid="ignore"):  # (as Python's floats: inf)
        return _on_two_scales_of(np.array(ranges, dtype=np.float64).reshape(-1, 2))


def _on_two_scales_of(r: np.ndarray) -> np.ndarray:
    lo, hi = r[:, 0], r[:, 1]
    ok = np.isfinite(r).all(axis=1) & (lo != hi)  # (no scale: constant, or undefined)
    lo, hi = lo[ok], hi[ok]
    size, spread = np.maximum(np.abs(lo), np.abs(hi)), hi - lo
    unit = (lo >= 0.0) & (hi <= 1.0)
    out = np.zeros(len(ok), dtype=bool)
    if len(size) < 2:
        return out
    found = np.zeros(len(size), dtype=bool)
    # rule 1, as the larger: some system R times smaller in size and in spread
    key = SCALE_RATIO * size
    order = np.argsort(key, kind="stable")
    least = np.minimum.accumulate((SCALE_RATIO * spread)[order])
    k = np.searchsorted(key[order], size, side="right")
    found |= ~unit & (k > 0) & (least[np.maximum(k - 1, 0)] <= spread)
    # rule 1, as the smaller: some system outside [0, 1] R times larger in both
    big = np.flatnonzero(~unit)
    if len(big):
        order = big[np.argsort(size[big], kind="stable")]
        widest = np.maximum.accumulate(spread[order][::-1])[::-1]
        k = np.searchsorted(size[order], SCALE_RATIO * size, side="left")
        found |= (k < len(order)) & (widest[np.minimum(k, len(order) - 1)]
                                     >= SCALE_RATIO * spread)
    # rule 2: a system within [0, 1] against one reaching UNIT_BEYOND, spread wider
    reach = size >= UNIT_BEYOND
    if unit.any() and reach.any():
        found |= reach & ((UNIT_SPREAD * spread[unit]).min() <= spread)
        found |= unit & (spread[reach].max() >= UNIT_SPREAD * spread)
    out[ok] = found
    return out

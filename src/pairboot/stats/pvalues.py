"""What a test's numbers can vouch for: the resolution of a p-value read off the
resamples, and the fewest units any paired test needs at a level.

Pure numbers, below both the results and the reports (it imports nothing of the package):
:mod:`pairboot.results.compare` uses :func:`units_for` for :attr:`CompareResult.enough_units`, the
reports print p-values no smaller than :func:`p_upper_bound`.
"""

from __future__ import annotations

import math

P_BOUND_LEVEL = 0.95
"""The confidence of :func:`p_resolution`'s bound."""

CLOSED_FORM_P = ("normal", "t", "score")
"""The methods whose p-value is a closed form, not read off the resamples (the normal
interval's ``2 Phi(-|z|)``, the t interval's of several runs, Tango's score test)."""


def p_resolution(n_resamples: int, sides: int = 2) -> float:
    """The smallest two-sided p-value (one-sided: ``sides`` 1) that ``n_resamples``
    resamples can vouch for.

    When no resample falls beyond the interval's cut-off (0 for the percentile
    interval), the p-value read off the resamples is 0, but the p-value of infinitely
    many resamples need not be.  The share of resamples beyond it has the exact
    binomial upper bound ``1 - 0.05^(1/R)`` at 95% for 0 of ``R`` (about ``3 / R``, the
    rule of three), and the two-sided p-value doubles the share: about ``6 / R``
    (the one-sided p-value is the share).  It
    is rounded up to two significant digits (so that it prints as it is) and is at
    most 1.

    >>> p_resolution(10_000), p_resolution(1_000), p_resolution(100)
    (0.0006, 0.006, 0.06)
    """
    r = int(n_resamples)
    if r < 1:
        return 1.0
    share = -math.expm1(math.log(1.0 - P_BOUND_LEVEL) / r)  # 1 - 0.05^(1/R), accurately
    return min(1.0, round_up(sides * share))


def round_up(x: float, digits: int = 2) -> float:
    """``x`` (positive) rounded up to ``digits`` significant digits.

    >>> round_up(0.000599146), round_up(0.0123)
    (0.0006, 0.013)
    """
    scale = 10.0 ** (math.floor(math.log10(x)) - digits + 1)
    return float(f"{math.ceil(round(x / scale, 9)) * scale:.{digits}g}")


def p_upper_bound(p: float, n_resamples: int, *, resampled: bool = True, sides: int = 2
                  ) -> float:
    """``p`` as a number that is never too small: ``p`` itself, or, for a p-value read
    off the resamples (``resampled``) that lies below :func:`p_resolution` (0 when no
    resample fell beyond the cut-off), that resolution.  NaN stays NaN.

    ``resampled`` is False for a p-value from a closed form (the normal interval's,
    the t interval's of several runs): it is then exact for its model, however small.

    >>> p_upper_bound(0.0, 10_000), p_upper_bound(0.0123, 10_000)
    (0.0006, 0.0123)
    >>> p_upper_bound(0.0, 10_000, resampled=False)
    0.0
    """
    if not (isinstance(p, (int, float)) and math.isfinite(p)):
        return p
    if resampled:
        floor = p_resolution(n_resamples, sides)
        if p < floor:
            return floor
    return float(p)


def units_for(level: float, alternative: str = "two-sided") -> int:
    """The fewest units (items, or groups) that can show a difference at ``level``:
    ``n`` units that all favour one system do so by chance with probability
    ``2**(1 - n)`` (the exact sign-flip test), so below ``1 + log2(1 / (1 - level))``
    units (6 at 95%, 8 at 99%) no paired test could reject, and an interval that
    excludes 0 would claim what the data cannot show.  One-sided (``alternative``
    "greater" or "less"), the chance is ``2**-n``: one unit fewer.

    >>> units_for(0.95), units_for(0.99), units_for(0.95, "greater")
    (6, 8, 5)
    """
    two = 1 if alternative == "two-sided" else 0
    return max(2, two + math.ceil(math.log2(1.0 / (1.0 - level)) - 1e-9))

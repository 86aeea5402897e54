"""How the reports write numbers: a level as a percentage, the decimals a standard error
warrants, and a p-value beside the bound its resamples can vouch for.

One rule for the decimals of every report, the plots and the reading of a result:
:func:`decimals`.
"""

from __future__ import annotations

import math

from pairboot.stats.pvalues import CLOSED_FORM_P, p_upper_bound


def percent(level: float) -> str:
    """A confidence level as people write it: 0.95 -> "95%", 0.999 -> "99.9%"; a level
    computed from others (a false-coverage level ``1 - 0.05 / 1.2``) with three
    significant digits of what it leaves out: "95.83%", not "95.83333333%".

    >>> percent(0.95), percent(0.999), percent(1 - 0.05 / 1.2), percent(1 - 0.05 / 1200)
    ('95%', '99.9%', '95.83%', '99.99583%')
    """
    x = level * 100
    given = f"{x:.10g}"
    if "e" in given or len(given.partition(".")[2]) <= 4 or not 0 < x < 100:
        return f"{given}%"
    d = max(0, 2 - math.floor(math.log10(100 - x)))
    return f"{float(f'{x:.{d}f}'):.10g}%"


def plural(n: int, word: str, many: str | None = None) -> str:
    """``"1 item"``, ``"5 items"`` (``many``: the plural when not ``word + "s"``:
    ``plural(1, "stratum", "strata")``)."""
    return f"{n:,} {word if n == 1 else (many or word + 's')}"


def decimals(se: float) -> int:
    """Decimals worth printing for values whose standard error is ``se``.

    Two significant digits of the standard error, at least 2 and at most 6 decimals
    (4 when ``se`` is 0 or undefined).  Reports and :attr:`CompareResult.reading` share it.
    """
    if not (isinstance(se, (int, float)) and math.isfinite(se) and se > 0):
        return 4
    return min(6, max(2, 1 - math.floor(math.log10(se))))


def p_repr(p: float, n_resamples: int, method: str, sides: int = 2) -> str:
    """``0.0123``, or ``0 (< 0.0006)`` where the resamples cannot resolve ``p`` (the
    p-value in a result's ``repr``)."""
    bound = p_upper_bound(p, n_resamples, resampled=method not in CLOSED_FORM_P, sides=sides)
    if bound != p:
        return f"{p:.4g} (< {bound:g})"
    return f"{p:.4g}"


def fixed(x: float, places: int, sign: str = "") -> str:
    """``x`` with ``places`` decimals (``sign="+"``: signed); NaN and the infinities
    spelt out."""
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:{sign}.{places}f}"


def interval_text(interval, places: int, sign: str = "") -> str:
    """``[low, high]``, each :func:`fixed`."""
    return f"[{fixed(interval[0], places, sign)}, {fixed(interval[1], places, sign)}]"


def places_for(se: float) -> int:
    """The decimals a number with standard error ``se`` deserves (:func:`decimals`; 3
    when the error is 0 or not finite)."""
    return decimals(se) if math.isfinite(se) and se > 0 else 3

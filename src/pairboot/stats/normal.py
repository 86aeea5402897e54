"""The standard normal distribution as ``statistics.NormalDist()`` computes it, without
importing :mod:`statistics` (with fractions, decimal and random: several ms of a small
command, docs/performance.md "Start-up").

The same operations as ``NormalDist(0.0, 1.0)``'s methods, and its own inverse (the C
function ``NormalDist.inv_cdf`` calls, where the interpreter has it; else NormalDist
itself), so the same numbers: ``tests/stats/test_normal.py`` compares them.
"""

from __future__ import annotations

import math

try:  # (CPython's accelerator of statistics; what NormalDist.inv_cdf calls)
    from _statistics import _normal_dist_inv_cdf
except ImportError:  # pragma: no cover  (another interpreter: NormalDist's own)
    _normal_dist_inv_cdf = None

_SQRT2 = math.sqrt(2.0)


def inv_cdf(p: float) -> float:
    """``NormalDist().inv_cdf(p)``: the quantile, for ``0 < p < 1``."""
    if _normal_dist_inv_cdf is None:  # pragma: no cover
        from statistics import NormalDist

        return NormalDist().inv_cdf(p)
    if p <= 0.0 or p >= 1.0:
        raise ValueError("p must be in the range 0.0 < p < 1.0")
    return _normal_dist_inv_cdf(p, 0.0, 1.0)


def cdf(x: float) -> float:
    """``NormalDist().cdf(x)``."""
    return 0.5 * (1.0 + math.erf((x - 0.0) / (1.0 * _SQRT2)))


def pdf(x: float) -> float:
    """``NormalDist().pdf(x)``."""
    diff = x - 0.0
    return math.exp(diff * diff / (-2.0 * 1.0)) / math.sqrt(math.tau * 1.0)

"""gold_labels(): how many gold labels a prediction-powered comparison needs.

With ``T`` items scored by the judge and ``n`` of them labelled at random, PPI++ at its
best weight gives B - A the variance ``sd^2 (1 - rho^2) / n + sd^2 rho^2 / T``
(``sd``: of the gold per-item differences; ``rho``: the judge's differences'
correlation with them; ``N = T - n`` unlabelled), against ``sd^2 / n`` for the gold
labels alone.  The smallest ``n`` whose normal interval is as narrow as asked is read
off in closed form; none when the judge's part, ``sd^2 rho^2 / T``, alone is wider.
"""

from __future__ import annotations

import math
import numbers

from pairboot.errors import InputError
from pairboot.options import check_options
from pairboot.results.labels import LabelPlan
from pairboot.stats.intervals import normal_quantile

__all__ = ["gold_labels"]


def _number(value, name: str, low: float, high: float, *, closed: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not (
            low <= value <= high if closed else low < value < high):
        span = f"[{low:g}, {high:g}]" if closed else f"between {low:g} and {high:g}"
        raise InputError(f"`{name}` must be a number {span}, got {value!r}", param=name)
    return float(value)


def gold_labels(
    *,
    sd: float,
    correlation: float,
    n_items: int,
    half_width: float | None = None,
    delta: float | None = None,
    power: float = 0.8,
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
) -> LabelPlan:
    """How many gold labels a prediction-powered B - A needs, and how many without the
    judge.

    Parameters
    ----------
    sd : float
        The standard deviation of the gold per-item differences B - A (from a pilot:
        ``np.std(gold_b - gold_a)`` on its labelled items).
    correlation : float
        The correlation of the judge's per-item differences with the gold ones (a
        pilot's ``np.corrcoef(judge_b - judge_a, gold_b - gold_a)`` on its labelled
        items); its sign does not matter.
    n_items : int
        The items of the evaluation, every one scored by the judge.
    half_width : float, optional
        The interval's half-width wanted (on the gold metric's scale).
    delta : float, optional
        Instead: the difference to detect with probability ``power``.
    power : float, default 0.8
    confidence_level : float, default 0.95
    alternative : {"two-sided", "greater", "less"}

    Returns
    -------
    LabelPlan

    Examples
    --------
    >>> import pairboot
    >>> plan = pairboot.gold_labels(sd=1.0, correlation=0.7, n_items=5000,
    ...                             half_width=0.1)
    >>> plan.n_gold, plan.n_gold_alone
    (204, 385)
    """
    sd = _number(sd, "sd", 0.0, math.inf)
    rho = abs(_number(correlation, "correlation", -1.0, 1.0, closed=True))
    if isinstance(n_items, bool) or not isinstance(n_items, numbers.Integral) or n_items < 4:
        raise InputError(f"`n_items` must be a whole number of at least 4, got {n_items!r}",
                         param="n_items")
    args, _ = check_options(dict(confidence_level=confidence_level,
                                 alternative=alternative))
    level, alternative = args.confidence_level, args.alternative
    if (half_width is None) == (delta is None):
        raise InputError("give one of `half_width` (the interval's) and `delta` (a "
                         "difference to detect, with `power`)", param="half_width")
    sides = 1 if alternative != "two-sided" else 2
    z = normal_quantile(1.0 - (1.0 - level) / sides)
    if delta is not None:
        delta = _number(delta, "delta", 0.0, math.inf)
        power = _number(power, "power", 0.0, 1.0)
        width = delta * z / (z + normal_quantile(power))
    else:
        width = _number(half_width, "half_width", 0.0, math.inf)
        power = None
    target = (width / z) ** 2  # (the variance the interval allows)
    floor = sd * sd * rho * rho / n_items  # (the judge's part: no label removes it)
    n_gold = None
    if target > floor:
        n_gold = max(2, math.ceil(sd * sd * (1.0 - rho * rho) / (target - floor) - 1e-9))
        n_gold = n_gold if n_gold <= n_items else None
    alone = max(2, math.ceil(sd * sd / target - 1e-9))
    return LabelPlan(n_gold=n_gold, n_gold_alone=alone if alone <= n_items else None,
                     n_items=int(n_items), half_width=width, delta=delta, power=power,
                     sd=sd, correlation=float(correlation), confidence_level=level,
                     alternative=alternative)

"""gold_labels(): how many gold labels a prediction-powered comparison needs.

With ``T`` items scored by the judge and ``n`` of them labelled at random, PPI++ at its
best weight gives B - A the variance ``sd^2 (1 - rho^2) / n + sd^2 rho^2 / T``
(``sd``: of the gold per-item differences; ``rho``: the judge's differences'
correlation with them; ``N = T - n`` unlabelled), against ``sd^2 / n`` for the gold
labels alone.  The smallest ``n`` whose normal interval is as narrow as asked is read
off in closed form; none when the judge's part, ``sd^2 rho^2 / T``, alone is wider.
``sd`` and ``rho`` are given, or read off a pilot's labelled items (:func:`pilot_spread`).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from pairboot.errors import InputError
from pairboot.inputs.gold import score_array
from pairboot.options import check_options
from pairboot.results.labels import LabelPlan
from pairboot.stats.intervals import normal_quantile

__all__ = ["gold_labels", "pilot_spread"]

MIN_PILOT = 3
"""The fewest labelled items of a pilot: a correlation needs three."""


def _number(value, name: str, low: float, high: float, *, closed: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not (
            low <= value <= high if closed else low < value < high):
        span = f"[{low:g}, {high:g}]" if closed else f"between {low:g} and {high:g}"
        raise InputError(f"`{name}` must be a number {span}, got {value!r}", param=name)
    return float(value)


def _pilot_column(values, name: str) -> np.ndarray:
    arr = score_array(values, name)
    if arr.ndim != 1:
        raise InputError(f"`{name}` must be one score per item (1-D), got shape "
                         f"{arr.shape}", param=name)
    return arr


def pilot_spread(judge_a, judge_b, gold_a, gold_b) -> tuple[float, float, int]:
    """A pilot's ``(sd, correlation, n_labelled)``: on its labelled items (gold not NaN,
    for both systems or neither), the standard deviation (ddof 1) of the gold per-item
    differences B - A and their correlation with the judge's.  Unlike
    :func:`pairboot.compare_ppi`, a pilot may be labelled whole."""
    named = {"judge_a": judge_a, "judge_b": judge_b, "gold_a": gold_a, "gold_b": gold_b}
    arrays = {k: _pilot_column(v, k) for k, v in named.items()}
    n = len(arrays["judge_a"])
    for name, arr in arrays.items():
        if len(arr) != n:
            raise InputError(f"`{name}` has {len(arr)} items and `judge_a` {n}: every "
                             "column holds one score per item, in the same order",
                             param=name)
    ga, gb = arrays["gold_a"], arrays["gold_b"]
    one = np.isnan(ga) != np.isnan(gb)
    if one.any():
        i = int(np.argmax(one))
        name = "gold_b" if np.isnan(gb[i]) else "gold_a"
        raise InputError(f"`{name}` is NaN at item {i} where the other system's gold "
                         "score is not: label both systems' outputs of an item, or neither",
                         param=name)
    lab = ~np.isnan(ga)
    for name in ("judge_a", "judge_b", "gold_a", "gold_b"):
        bad = ~np.isfinite(arrays[name][lab])
        if bad.any():
            raise InputError(f"`{name}` is not a finite number at a labelled item of the "
                             "pilot", param=name)
    if lab.sum() < MIN_PILOT:
        raise InputError(f"the pilot has {int(lab.sum())} labelled items: a correlation "
                         f"needs at least {MIN_PILOT} (tens for a useful plan)",
                         param="gold_a")
    d_gold = gb[lab] - ga[lab]
    d_judge = arrays["judge_b"][lab] - arrays["judge_a"][lab]
    sd = float(np.std(d_gold, ddof=1))
    if not sd > 0 or not np.std(d_judge) > 0:
        which = "gold" if not sd > 0 else "judge's"
        raise InputError(f"the {which} per-item differences B - A do not vary on the "
                         "pilot's labelled items: no spread to plan with", param="gold_a")
    rho = float(np.corrcoef(d_judge, d_gold)[0, 1])
    return sd, max(-1.0, min(1.0, rho)), int(lab.sum())


def gold_labels(
    judge_a=None,
    judge_b=None,
    *,
    gold_a=None,
    gold_b=None,
    sd: float | None = None,
    correlation: float | None = None,
    n_items: int | None = None,
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
    judge_a, judge_b, gold_a, gold_b : array_like, optional
        A pilot, as :func:`pairboot.compare_ppi` takes its inputs (gold NaN where
        unlabelled; it may be labelled whole): ``sd`` and ``correlation`` are read off
        its labelled items (:func:`pilot_spread`), and ``n_items`` defaults to its items.
    sd : float, optional
        Without a pilot: the standard deviation of the gold per-item differences B - A
        (a pilot's ``np.std(gold_b - gold_a, ddof=1)`` on its labelled items).
    correlation : float, optional
        Without a pilot: the correlation of the judge's per-item differences with the
        gold ones (``np.corrcoef(judge_b - judge_a, gold_b - gold_a)`` on a pilot's
        labelled items); its sign does not matter.
    n_items : int
        The items of the evaluation, every one scored by the judge (default with a
        pilot: its items).
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
    pilot = [judge_a, judge_b, gold_a, gold_b]
    n_pilot = None
    if any(x is not None for x in pilot):
        missing = [k for k, x in zip(("judge_a", "judge_b", "gold_a", "gold_b"), pilot)
                   if x is None]
        if missing:
            raise InputError(f"a pilot is `judge_a`, `judge_b`, `gold_a` and `gold_b`: "
                             f"`{missing[0]}` is missing", param=missing[0])
        given = [k for k, x in (("sd", sd), ("correlation", correlation)) if x is not None]
        if given:
            raise InputError(f"`{given[0]}` with a pilot: the pilot's labelled items give "
                             "it; leave it out (or plan without the pilot)", param=given[0])
        sd, correlation, n_pilot = pilot_spread(*pilot)
        if n_items is None:
            n_items = len(np.asarray(judge_a))
    elif sd is None or correlation is None:
        name = "sd" if sd is None else "correlation"
        raise InputError(f"give `sd` and `correlation` (or a pilot: `judge_a`, `judge_b`, "
                         f"`gold_a`, `gold_b`): `{name}` is missing", param=name)
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
                     alternative=alternative, n_pilot=n_pilot)

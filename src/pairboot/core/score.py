"""``method="score"``: closed-form score intervals for two systems' 0/1 scores.

The difference ``p_B - p_A`` takes Tango's (1998) score interval and its p-value is
Tango's score test (:mod:`pairboot.stats.proportions`), against 0 or a margin's
boundary, so the interval and the p-value never disagree; each system's accuracy takes
Wilson's interval, which is never ``[1, 1]`` at 100%.  With ``groups`` both are made
cluster-aware through design effects (Rao and Scott, 1992; Obuchowski, 1998): a system's
Wilson interval through the design effect of its scores, Tango's through that of the
per-item differences, each estimated from the groups' sums (CR1 cluster-robust variance
over the simple-random-sampling one, as :func:`pairboot.stats.proportions.design_effect`)
and never taken below 1.

The bootstrap still runs: its replicates give ``standard_error``,
``bootstrap_distribution`` and the plots; the interval and p-value are the score
method's, whose Monte Carlo error is 0.

What the score method cannot honour is refused before any resample, in one line that
names ``method``: scores other than 0 and 1, unpaired, strata, a mean of group means,
metrics other than a mean (or accuracy) of one 0/1 score per item.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pairboot.core.design import Design
from pairboot.core.paired_tests import unit_table
from pairboot.errors import InputError
from pairboot.options import Arguments
from pairboot.stats.proportions import (
    Table2x2,
    paired_score_p_value,
    tango_interval,
    wilson_interval,
)

_WHAT = "`method='score'`"
_INSTEAD = "use a bootstrap `method` (percentile, bca, ...)"


@dataclass(frozen=True, slots=True)
class ScoreMethod:
    """The score method's intervals and p-values for one comparison of 0/1 scores.

    Attributes
    ----------
    table : Table2x2
        The paired 2 x 2 table of the items.
    design_effect : float
        Of the per-item differences (1.0 without groups): Tango's counts are divided by it.
    design_effects : tuple of float
        Of A's and of B's scores (1.0 without groups): each Wilson interval's.

    >>> m = ScoreMethod(Table2x2(both=59, only_a=16, only_b=6, neither=80))
    >>> [round(x, 4) for x in m.interval(0.05)]  # Fagerland et al. (2017), chapter 8
    [-0.124, -0.0054]
    >>> round(m.p_value(), 6), m.interval(0.05, "less")[0]
    (0.033006, -inf)
    """

    table: Table2x2
    design_effect: float = 1.0
    design_effects: tuple[float, float] = (1.0, 1.0)

    def interval(self, alpha: float, sides: str = "two-sided") -> tuple[float, float]:
        """Tango's interval at ``1 - alpha``: two-sided, or one-sided ("greater":
        ``[low, inf)``, "less": ``(-inf, high]``) with the two-sided end at
        ``1 - 2 alpha``."""
        if sides == "two-sided":
            return tango_interval(self.table, 1.0 - alpha, design_effect=self.design_effect)
        low, high = tango_interval(self.table, 1.0 - 2.0 * alpha,
                                   design_effect=self.design_effect)
        return (low, math.inf) if sides == "greater" else (-math.inf, high)

    def p_value(self, sides: str = "two-sided", null: float = 0.0) -> float:
        """Tango's score test of ``B - A = null`` on ``sides``: below ``alpha`` exactly
        when :meth:`interval` at ``alpha`` excludes ``null``."""
        return paired_score_p_value(self.table, sides, null=null,
                                    design_effect=self.design_effect)

    def system_interval(self, system: int, alpha: float) -> tuple[float, float]:
        """Wilson's interval at ``1 - alpha`` of system ``system``'s accuracy (0: A,
        1: B), with its design effect."""
        t = self.table
        right = t.both + (t.only_a if system == 0 else t.only_b)
        return wilson_interval(right, t.n, 1.0 - alpha,
                               design_effect=self.design_effects[system])


def score_method(design: Design, args: Arguments,
                 items: Callable[[], Design] | None = None) -> ScoreMethod | None:
    """The score method of ``design`` when ``args.method`` is "score" (None otherwise),
    refused in one line naming ``method`` when it does not hold.  ``items`` builds the
    same data's design without groups (one unit per item), for the 2 x 2 table when
    the design's units are groups."""
    if args.method != "score":
        return None
    why = None
    if not args.paired:
        why = ("it compares the same items of both systems: leave `paired` True (the "
               "unpaired bootstrap has no paired table)")
    elif design.strata_names is not None:
        why = ("Tango's interval is not combined over strata here: leave out `strata`, "
               f"or {_INSTEAD}")
    elif design.n_groups is not None and args.group_weighting != "items":
        why = ("a mean of the groups' means is no proportion of items: use "
               "`group_weighting='items'`")
    elif not (design.n_systems == 2 and design.k == 2
              and (design.metric.mean_like or design.metric.name == "accuracy")):
        why = ("it compares two systems' 0/1 scores: use `metric='mean'` (or "
               f"'accuracy'), one score per item, or {_INSTEAD}")
    elif args.alternative != "two-sided" and args.confidence_level <= 0.5:
        why = ("a one-sided interval is the two-sided one at 2 L - 1: `confidence_level` "
               "must be above 0.5")
    if why is not None:
        raise InputError(f"{_WHAT}: {why}", param="method")
    if design.n_groups is None:
        return ScoreMethod(unit_table(design, _WHAT, "method", _INSTEAD))
    if items is None:
        raise InputError(f"{_WHAT} with `groups` needs the items' scores", param="method")
    table = unit_table(items(), _WHAT, "method", _INSTEAD)
    sums = design.plan.rows(0, len(design.plan.x))  # (the groups': A, items, B, items)
    size, right_a, right_b = sums[:, 1], sums[:, 0], sums[:, 2]
    n = table.n
    effects = (
        grouped_design_effect(right_a, size, table.both + table.only_a, n),
        grouped_design_effect(right_b, size, table.both + table.only_b, n),
    )
    diff = grouped_design_effect(right_b - right_a, size, table.only_b - table.only_a, n,
                                 squares=table.discordant)
    return ScoreMethod(table, diff, effects)


def grouped_design_effect(group_sums: np.ndarray, sizes: np.ndarray, total: float,
                          n: int, squares: float | None = None) -> float:
    """The design effect of the mean of per-item values from their groups' sums (and
    sizes), taken no lower than 1: ``G / (G-1) * (n-1) / n * sum_g r_g^2 / ss`` with
    ``r_g`` a group's sum of residuals from the mean ``total / n`` and ``ss`` the items'
    sum of squared residuals, ``squares - total^2 / n`` from the sum of the squared
    values ``squares`` (0/1 values: ``total``, their own squares).  The same number as
    :func:`pairboot.stats.proportions.design_effect` on the items; 1 when there is one
    group, or no variance."""
    g = len(group_sums)
    squares = total if squares is None else squares
    ss = squares - total * total / n
    if g < 2 or n < 2 or ss <= 1e-12 * max(squares, 1.0):
        return 1.0
    r = group_sums - sizes * (total / n)
    deff = g / (g - 1) * (n - 1) / n * float(r @ r) / ss
    return max(1.0, deff)


def refuse_score(method, where: str, why: str) -> None:
    """Refuse ``method="score"`` (in any case) ``where`` it is not computed, in one line
    naming ``method`` with the reason ``why``."""
    if isinstance(method, str) and method.lower() == "score":
        raise InputError(f"{_WHAT} is not available {where}: {why}; {_INSTEAD}",
                         param="method")

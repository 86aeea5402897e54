"""What a planned comparison's power depends on, and the three answers read off it.

A :class:`Test` says what is tested (level, sides, a margin's offset); a model says how
the estimate's variance falls with the size:

* :class:`TModel` -- the paired t (or its design-based form): ``V(N) = unit_variance /
  N`` with ``N`` units (items, or groups); the power is a noncentral t's
  (:func:`pairboot.planning.noncentral.t_power`) with ``N - n_strata`` degrees of
  freedom (seeds: :class:`pairboot.planning.seeds.SeedsModel`);
* :class:`ProportionModel` -- 0/1 scores, Connor's (1987) normal formula for paired
  proportions with the share of discordant items ``psi``: the variance of the
  McNemar statistic under the null (``psi``) and under the alternative (``psi -
  delta^2``).

Each gives :meth:`power` at a size and difference; :func:`size_for`, :func:`mde_for`
and :func:`runs_for` invert it (the power grows with the size and the difference).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from pairboot.planning.noncentral import normal_cdf, t_power
from pairboot.stats.intervals import normal_quantile

__all__ = ["DOUBLINGS", "NEVER", "ProportionModel", "TModel", "Test", "TwoProportionModel",
           "mde_for", "power_of", "runs_for", "size_for"]

NEVER = 10**12
"""A size beyond any evaluation: the limit at which "no size reaches it" is judged."""


@dataclass(frozen=True, slots=True)
class Test:
    """What is tested: level ``alpha``; ``two_sided``; ``direction`` +1 when B is better
    by a larger value (-1: lower is better), the side a one-sided test looks at;
    ``offset``: the margin's (non-inferiority ``+margin``, superiority ``-margin``, 0
    for a difference), so that the shift the test sees is ``direction * delta +
    offset``."""

    __test__ = False  # (not a pytest test class, whatever its name)

    alpha: float
    two_sided: bool
    direction: int = 1
    offset: float = 0.0

    def shift(self, delta: float) -> float:
        """The true shift the test detects (two-sided: its size)."""
        if self.two_sided:
            return abs(delta)
        return self.direction * delta + self.offset

    def delta_of(self, shift: float) -> float:
        """The difference whose :meth:`shift` is ``shift`` (two-sided: on the better side)."""
        if self.two_sided:
            return self.direction * shift
        return self.direction * (shift - self.offset)


@dataclass(frozen=True, slots=True)
class TModel:
    """The paired t's variance at a size: ``unit_variance / N`` (see the module's
    docstring).

    ``unit_variance`` is the variance of one unit's difference (per-item differences'
    variance; a group's, design effect included; a stratified design's ``sum_h W_h^2
    sigma_h^2 / f_h``); ``n_strata`` the degrees of freedom the strata take; ``normal``:
    z instead of t; ``samples``: 2 for an unpaired comparison (``2 (n - 1)`` degrees of
    freedom, the two-sample t's)."""

    unit_variance: float
    n_strata: int = 1
    normal: bool = False
    samples: int = 1

    runs = False

    def variance(self, n: float, runs: float | None = None) -> float:
        """The estimate's variance with ``n`` units."""
        return self.unit_variance / n

    def df(self, n: float) -> float:
        """The t's degrees of freedom: ``samples (n - n_strata)`` (at least 1)."""
        if self.normal:
            return math.inf
        return max(1.0, self.samples * (n - self.n_strata))

    def power(self, test: Test, n: float, delta: float, runs: float | None = None) -> float:
        v = self.variance(n)
        if v <= 0:
            return 1.0 if test.shift(delta) > 0 else 0.0
        lam = test.shift(delta) / math.sqrt(v)
        return t_power(lam, self.df(n), test.alpha, test.two_sided)


@dataclass(frozen=True, slots=True)
class ProportionModel:
    """Connor's (1987) normal formula for paired 0/1 scores: ``discordant`` the share
    ``psi`` of items on which the systems disagree (``psi = p_10 + p_01``, ``delta =
    p_01 - p_10``).  Two-sided, its power is ``Phi((|delta| sqrt(n) - z_{1-alpha/2}
    sqrt(psi)) / sqrt(psi - delta^2))`` (the other tail left out, as Connor does);
    with a margin's offset, the Wald form with the alternative's variance.
    ``design_effect`` multiplies the variance (items in groups)."""

    discordant: float
    design_effect: float = 1.0

    runs = False

    def power(self, test: Test, n: float, delta: float, runs: float | None = None) -> float:
        psi = self.discordant
        return score_power(test, n / self.design_effect, delta, psi, psi - delta * delta)

    def size(self, test: Test, delta: float, power: float) -> float:
        """Connor's closed form, ``n = (z_a sqrt(psi) + z_b sqrt(psi - delta^2))^2 /
        delta^2`` (times the design effect), unrounded."""
        psi = self.discordant
        return self.design_effect * score_size(test, delta, power, psi, psi - delta * delta)


@dataclass(frozen=True, slots=True)
class TwoProportionModel:
    """Two independent samples of 0/1 scores, ``accuracy_a`` and ``accuracy_a + delta``:
    the per-system size without a continuity correction (Fleiss, Levin and Paik 2003,
    eq. 4.14), ``n = (z_a sqrt(2 pbar qbar) + z_b sqrt(p_a q_a + p_b q_b))^2 /
    delta^2``, for contrast with the paired size."""

    accuracy_a: float
    design_effect: float = 1.0

    runs = False

    def _parts(self, delta: float) -> tuple[float, float]:
        pa, pb = self.accuracy_a, self.accuracy_a + delta
        pbar = (pa + pb) / 2.0
        return 2.0 * pbar * (1.0 - pbar), pa * (1.0 - pa) + pb * (1.0 - pb)

    def power(self, test: Test, n: float, delta: float, runs: float | None = None) -> float:
        return score_power(test, n / self.design_effect, delta, *self._parts(delta))

    def size(self, test: Test, delta: float, power: float) -> float:
        return self.design_effect * score_size(test, delta, power, *self._parts(delta))


def score_power(test: Test, n: float, delta: float, null: float, alt: float) -> float:
    """The power of a z test of ``n`` units whose per-unit variance is ``null`` under
    the null and ``alt`` under the alternative (a proportions' score test: Connor's,
    Fleiss'); against a margin's boundary (``test.offset``), the alternative's alone."""
    if alt <= 0:
        return 1.0
    z = -normal_quantile(test.alpha / 2.0 if test.two_sided else test.alpha)
    root_n = math.sqrt(n)
    if test.offset == 0:
        return normal_cdf((test.shift(delta) * root_n - z * math.sqrt(null)) / math.sqrt(alt))
    return normal_cdf(test.shift(delta) * root_n / math.sqrt(alt) - z)


def score_size(test: Test, delta: float, power: float, null: float, alt: float) -> float:
    """The units at which :func:`score_power` reaches ``power``, unrounded:
    ``(z_a sqrt(null) + z_b sqrt(alt))^2 / shift^2``."""
    z = -normal_quantile(test.alpha / 2.0 if test.two_sided else test.alpha)
    zb = normal_quantile(power)
    root = (z * math.sqrt(null) + zb * math.sqrt(alt) if test.offset == 0
            else (z + zb) * math.sqrt(alt))
    ratio = root / test.shift(delta)
    return ratio * ratio  # (inf beyond the floats: no size)


def power_of(model, test: Test, n: float, delta: float, runs: float | None = None) -> float:
    """``model.power(...)``, refused when it is not a number: a NaN never becomes a plan
    (the planner refuses the inputs that would give one before it searches)."""
    p = model.power(test, n, delta, runs)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"the power at {n} units and a difference of {delta!r} is {p!r}")
    return p


def size_for(model, test: Test, delta: float, power: float, runs: float | None = None,
             minimum: int = 2) -> int | None:
    """The fewest units (at least ``minimum``) at which ``model`` reaches ``power``;
    None when no number of units up to :data:`NEVER` does (a variance floor of the runs,
    or a shift on the wrong side).  At most 41 doublings and as many halvings."""
    if test.shift(delta) <= 0:
        return None
    if hasattr(model, "size"):  # (a closed form)
        n = model.size(test, delta, power)
        if not n <= NEVER:  # (beyond any evaluation, or not a number)
            return None
        return max(minimum, math.ceil(n - 1e-9))
    if power_of(model, test, math.inf if model.runs else NEVER, delta, runs) < power:
        return None
    lo, hi = minimum - 1, minimum
    while power_of(model, test, hi, delta, runs) < power:
        lo, hi = hi, min(hi * 2, NEVER)  # (reached at NEVER: checked above)
    return fewest(lambda k: power_of(model, test, k, delta, runs) >= power, lo, hi)


def fewest(reached, lo: int, hi: int) -> int:
    """The smallest integer in ``(lo, hi]`` at which ``reached`` holds, by bisection
    (it is monotone, false at ``lo`` and true at ``hi``)."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if reached(mid):
            hi = mid
        else:
            lo = mid
    return hi


def runs_for(model, test: Test, delta: float, power: float, n: float | None,
             limit: int = 10_000) -> int | None:
    """The fewest runs per system (at least 2; 1 when the model has no run variance) at
    which ``model`` reaches ``power`` with ``n`` units (None: with units without end, the
    fewest runs at which some number of units would); None when no number of runs up to
    ``limit`` does."""
    at = math.inf if n is None else n
    if power_of(model, test, at, delta, limit) < power:
        return None
    first = getattr(model, "fewest_runs", None)  # (k trials for a k-trial metric)
    if first is not None:
        lo, hi = first - 1, first
    else:
        lo, hi = (0, 1) if model.floor(1) == 0 else (1, 2)
    while power_of(model, test, at, delta, hi) < power:
        lo, hi = hi, min(hi * 2, limit)
    return fewest(lambda r: power_of(model, test, at, delta, r) >= power, lo, hi)


DOUBLINGS = 2100
"""The most doublings of a difference :func:`mde_for` tries: from 1e-300 past the
largest float."""


def mde_for(model, test: Test, n: float, power: float, runs: float | None = None,
            cap: float = math.inf) -> float | None:
    """The smallest difference (on the better side) that ``model`` detects with
    ``power`` at ``n`` units; None when none up to ``cap`` (the largest difference on
    that side: 0/1 scores, what the accuracy and discordant share allow), or none a float
    holds, is.  Bounded: at most
    :data:`DOUBLINGS` doublings, then 200 halvings."""
    def reached(shift: float) -> bool:
        return power_of(model, test, n, test.delta_of(shift), runs) >= power

    lo = 0.0
    scale = math.sqrt(model.variance(n, runs)) if hasattr(model, "variance") else 0.01
    limit = cap + test.offset  # (the largest shift: ``cap`` on the side looked at)
    if not limit > 0:
        return None
    top = limit * (1 - 1e-12) if math.isfinite(limit) else math.inf
    hi = min(max(scale, 1e-300), top)
    for _ in range(DOUBLINGS):
        if reached(hi):
            break
        if hi >= top:
            return None
        lo, hi = hi, min(hi * 2, top)
        if not math.isfinite(hi):
            return None
    else:
        return None
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if reached(mid):
            hi = mid
        else:
            lo = mid
        if hi - lo <= 1e-12 * hi:
            break
    return test.delta_of(hi)


@dataclass(frozen=True)
class Setup:
    """What a source (parameters, or a pilot) gives the planner: the paired ``model``
    and the unpaired one (None when the systems' own variances are not known), the
    unit the model's size counts (``"items"`` or ``"groups"``, ``items_per_unit`` items
    each), the largest difference the metric allows (``cap``), a difference the inputs
    imply (``delta``: two accuracies), the fewest units (``minimum``), the model's
    name, the facts the result shows and the assumptions made."""

    model: object
    unpaired: object | None
    name: str
    unit: str = "items"
    items_per_unit: float = 1.0
    cap: float = math.inf
    delta: float | None = None
    minimum: int = 2
    facts: dict | None = None
    assumptions: tuple[str, ...] = ()
    cap_what: str = "the metric"
    """What sets ``cap``, for the message refusing a larger difference."""
    caps: tuple[float, float] | None = None
    """0/1 scores: the largest difference with B worse, and with B better (the
    discordant share, and the accuracies' room: ``min(psi, 2 p_A - psi)`` and ``min(psi,
    2 (1 - p_A) - psi)``); None: ``cap`` either way."""

    def side_cap(self, sign: float) -> float:
        """The largest size of a difference of ``sign`` (B better: positive)."""
        if self.caps is None:
            return self.cap
        return self.caps[1] if sign > 0 else self.caps[0]

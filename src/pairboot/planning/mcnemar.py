"""The exact McNemar test's power: what a plan of paired 0/1 scores is when the test run
is ``compare(..., test="mcnemar")`` (Connor's formula sizes the asymptotic test).

Of ``n`` paired items, the number ``D`` on which the systems disagree is Binomial(n,
psi); given ``D = d``, the number ``X`` that only B gets right is Binomial(d, p), ``p =
p_01 / psi = (psi + delta) / (2 psi)``.  The exact test (two-sided: twice the smaller tail
of Binomial(d, 1/2), as :func:`pairboot.stats.proportions.mcnemar_exact`) rejects at level
alpha when ``min(X, d - X) <= k(d)``, the largest ``k`` with ``2 P(Bin(d, 1/2) <= k) <=
alpha`` (one-sided, B better: ``d - X <= k(d)`` with ``P(Bin(d, 1/2) <= k) <= alpha``).
Its power is ``sum_d P(D = d) [P(X <= k(d)) + P(d - X <= k(d))]``.

The sum runs over the ``d`` within :data:`SPAN` standard deviations of ``n psi`` (the rest
weighs below 1e-16), in order, each term updated from the one before in O(1): ``k(d + 1)``
is ``k(d)`` or one more, and a binomial tail gains one trial, ``F_{d+1}(k) = F_d(k) - r
f_d(k)``.  The first terms are summed directly, and a critical value within 1e-9 of the
level is checked against mcnemar_exact itself.  Tested against an enumeration with
``scipy.stats.binom`` (tests/planning/test_mcnemar_plan.py).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from pairboot.errors import InputError
from pairboot.planning.model import (
    NEVER,
    ProportionModel,
    Setup,
    Test,
    fewest,
    mde_for,
    score_size,
    size_for,
)
from pairboot.stats.proportions import mcnemar_exact

__all__ = ["DISCORDANT_MAX", "OFFER_MAX", "SPAN", "ExactMcNemarModel", "exact_mcnemar_power",
           "exact_offer", "exact_setup"]

SPAN = 8.5
"""Standard deviations of the discordant count either side of its mean that are summed."""

DISCORDANT_MAX = 10**6
"""The most discordant items expected at a size whose exact power is computed (a sum of
about 17,000 terms, a third of a second); beyond, the exact and asymptotic tests agree to
about 3e-4 in power (their difference falls as ``1 / sqrt(n psi)``: 0.002 at 20,000
discordant items, docs/power.md)."""

OFFER_MAX = 10**5
"""A plan for the asymptotic test gives the exact test's answer beside it up to this many
expected discordant items (a second at most)."""


def _half_cdf(k: int, d: int) -> float:
    """``P(Bin(d, 1/2) <= k)``, exactly (mcnemar_exact's one-sided p-value)."""
    return 0.0 if k < 0 else mcnemar_exact(d - k, k, alternative="less")


def _critical(d: int, level: float) -> int:
    """The largest ``k`` with ``P(Bin(d, 1/2) <= k) <= level`` (-1: none), by bisection."""
    lo, hi = -1, d // 2 + 1  # (P(Bin(d, 1/2) <= k) > 1/2 > level from k = d/2 on)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _half_cdf(mid, d) <= level:
            lo = mid
        else:
            hi = mid
    return lo


def _log_pmf(j: int, d: int, r: float) -> float:
    """``log P(Bin(d, r) = j)`` (``0 < r < 1``)."""
    return (math.lgamma(d + 1) - math.lgamma(j + 1) - math.lgamma(d - j + 1)
            + j * math.log(r) + (d - j) * math.log1p(-r))


class _Tail:
    """``P(Bin(d, r) <= k)`` as ``d`` grows by one and ``k`` by none or one: the tail
    ``F``, and the terms ``f0 = P(= k)`` and ``f1 = P(= k + 1)``."""

    def __init__(self, r: float, d: int, k: int) -> None:
        self.r, self.d, self.k = r, d, k
        self.edge = r <= 0.0 or r >= 1.0
        if self.edge:
            return
        self.f0 = math.exp(_log_pmf(k, d, r)) if 0 <= k <= d else 0.0
        self.f1 = math.exp(_log_pmf(k + 1, d, r)) if 0 <= k + 1 <= d else 0.0
        total, term = 0.0, self.f0
        for j in range(k, -1, -1):  # (down from k until the terms no longer count)
            total += term
            if term < 1e-18 * total or j == 0:
                break
            term *= j / (d - j + 1) * (1.0 - r) / r
        self.F = total

    def value(self) -> float:
        if self.edge:  # (every trial a failure, or every one a success)
            return float(self.k >= (0 if self.r <= 0.0 else self.d))
        return self.F

    def _next(self) -> tuple[float, float, float]:
        """``F_{d+1}(k)`` and the terms ``P(= k)``, ``P(= k + 1)`` after one more trial."""
        d, k, r = self.d, self.k, self.r
        q = 1.0 - r
        f0 = self.f0 * q * (d + 1) / (d + 1 - k) if k >= 0 else 0.0
        f1 = self.f1 * q * (d + 1) / (d - k) if k + 1 <= d else r ** (d + 1)
        return self.F - r * self.f0, f0, f1  # (F_{d+1}(k) = F_d(k) - r f_d(k))

    def peek(self) -> float:
        """``P(Bin(d + 1, r) <= k + 1)``: the tail after one more trial, if ``k`` rose."""
        F, _, f1 = self._next()
        return F + f1

    def step(self, up: bool) -> None:
        """One more trial; ``up``: the bound ``k`` rises by one."""
        d, k, r = self.d, self.k, self.r
        if not self.edge:
            F, f0, f1 = self._next()
        self.d, self.k = d + 1, k + up
        if self.edge:
            return
        if up:
            F += f1
            f0, f1 = f1, f1 * r / (1.0 - r) * (d - k) / (k + 2)
        self.F, self.f0, self.f1 = min(max(F, 0.0), 1.0), f0, f1


def exact_mcnemar_power(n: int, psi: float, delta: float, test: Test) -> float:
    """The power of the exact McNemar test of ``n`` paired items with discordant share
    ``psi`` and true difference ``delta = p_01 - p_10`` (see the module's docstring)."""
    if test.offset != 0:
        raise ValueError("the exact McNemar test has no margin")
    n = int(n)
    p = min(1.0, max(0.0, (psi + delta) / (2.0 * psi)))  # (a discordant item is B's)
    level = test.alpha / 2.0 if test.two_sided else test.alpha
    # the tails' success chances: B's items small (two-sided, or A better) and A's small
    rs = [p, 1.0 - p] if test.two_sided else [1.0 - p if test.direction > 0 else p]
    mean, sd = n * psi, math.sqrt(n * psi * (1.0 - psi))
    lo = max(0, math.floor(mean - SPAN * sd))
    hi = min(n, math.ceil(mean + SPAN * sd))
    if psi >= 1.0:
        weight, ratio = 1.0, 0.0
    else:
        weight = math.exp(_log_pmf(lo, n, psi))
        ratio = psi / (1.0 - psi)
    k = _critical(lo, level)
    tails = [_Tail(r, lo, k) for r in rs]
    half = _Tail(0.5, lo, k)
    total = 0.0
    for d in range(lo, hi + 1):
        total += weight * sum(t.value() for t in tails)
        if d == hi:
            break
        weight *= (n - d) / (d + 1) * ratio
        nxt = half.peek()  # P(Bin(d + 1, 1/2) <= k + 1)
        up = nxt <= level
        if abs(nxt - level) <= 1e-9 * level:  # (too close to trust the recursion)
            up = _half_cdf(k + 1, d + 1) <= level
        k += up
        for t in (half, *tails):
            t.step(up)
    return min(1.0, total)


@dataclass(frozen=True, slots=True)
class ExactMcNemarModel:
    """Paired 0/1 scores tested by the exact McNemar test: ``discordant`` the share
    ``psi`` of items on which the systems disagree (items independent: no design
    effect)."""

    discordant: float

    runs = False

    def power(self, test: Test, n: float, delta: float, runs: float | None = None) -> float:
        n = int(n)
        if n * self.discordant > DISCORDANT_MAX:
            raise InputError(
                f"the exact McNemar test's plan is computed up to {DISCORDANT_MAX:.0e} "
                f"discordant items, and {n:,} items hold about {n * self.discordant:.2g}; "
                "there the exact and asymptotic tests agree: plan without `test`",
                param="test")
        return exact_mcnemar_power(n, self.discordant, delta, test)

    def size(self, test: Test, delta: float, power: float) -> float:
        """The fewest items at which the exact test reaches ``power``: from Connor's
        asymptotic size, up by a quarter at a time (at most 200 steps), then bisection
        (the power, averaged over the binomial discordant count, is near enough
        monotone in ``n``; see docs/power.md)."""
        psi = self.discordant
        start = score_size(test, delta, power, psi, psi - delta * delta)
        if not start <= NEVER:
            return math.inf
        reached = lambda n: self.power(test, n, delta) >= power  # noqa: E731
        hi = max(1, math.ceil(start))
        lo = 0
        for _ in range(200):
            if reached(hi):
                break
            lo, hi = hi, math.ceil(hi * 1.25)
            if hi > NEVER:
                return math.inf
        else:
            return math.inf
        # (below the asymptotic size: down by halves while still reached)
        while lo == 0 and hi > 1:
            half = hi // 2
            if reached(half):
                hi = half
            else:
                lo = half
        return float(fewest(reached, lo, hi))


def exact_setup(setup: Setup, test: str, hypothesis: str, family: bool) -> Setup:
    """The plan of ``compare(..., test=test)``: the exact McNemar test in place of
    Connor's asymptotic one; refused where compare() refuses the test (or where it is
    not planned: the permutation test)."""
    why = None
    if test != "mcnemar":
        why = ("the permutation test is not planned: plan without `test` (the interval's "
               "plan, which the paired permutation test follows closely)")
    elif family:
        why = "`test='mcnemar'` compares two systems: plan a family without `test`"
    elif not isinstance(setup.model, ProportionModel):
        why = ("`test='mcnemar'` compares 0/1 scores: give `accuracy_a` and `discordant`, "
               "or a pilot of 0/1 scores")
    elif setup.model.design_effect != 1.0:
        why = ("`test='mcnemar'` takes the items as independent, and groups say they are "
               "not: plan the interval (without `test`)")
    elif hypothesis != "difference":
        why = "`test='mcnemar'` tests for a difference, not a margin"
    if why is not None:
        raise InputError(why, param="test")
    psi = setup.model.discordant
    words = (f"0/1 scores: the exact McNemar test (binomial, given the {psi:.3g} of the "
             "items that are discordant), its power summed over their binomial count")
    assumptions = tuple(words if "Connor" in a else a for a in setup.assumptions)
    return dataclasses.replace(setup, model=ExactMcNemarModel(psi), name="exact mcnemar",
                               assumptions=assumptions)


def exact_offer(setup: Setup, test: Test, solved: str, delta, target, units,
                least: int) -> float | None:
    """Beside a plan for Connor's asymptotic test, the exact McNemar test's answer to
    the same question (its items, power or smallest difference); None where the plan
    is not Connor's (or has a margin or groups), or beyond :data:`OFFER_MAX` expected
    discordant items."""
    model = setup.model
    if (not isinstance(model, ProportionModel) or model.design_effect != 1.0
            or test.offset != 0 or units is None):
        return None
    psi = model.discordant
    exact = ExactMcNemarModel(psi)
    if solved == "n_items":
        if delta is None or units * psi * 1.25 > OFFER_MAX:
            return None
        return size_for(exact, test, delta, target, None, least)
    if units * psi > OFFER_MAX:
        return None
    if solved == "power":
        return exact.power(test, units, delta)
    if solved == "delta":
        return mde_for(exact, test, units, target, None, setup.side_cap(test.direction))
    return None

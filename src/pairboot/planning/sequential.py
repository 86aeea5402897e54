"""How many items a confidence sequence takes to decide (:func:`items_to_decision`), by
simulation: streams of paired differences at a true difference ``delta`` fed to the
rule of :func:`pairboot.sequential` item by item, until it stops or ``max_items``.

The differences are 0/1 scores' (``discordant``: the share of items the two systems
disagree on, ``delta`` of them more for B; each difference is -1, 0 or +1) or normal
ones (``sd``).  The answer is the distribution of the stopping size: its mean (with the
simulation's standard error), quantiles, and the share of streams each verdict ended.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pairboot.comparisons.sequential import sequential
from pairboot.errors import InputError

__all__ = ["ItemsToDecision", "items_to_decision"]


@dataclass(frozen=True, slots=True)
class ItemsToDecision:
    """The simulated stopping size of a confidence sequence at a true difference.

    Attributes
    ----------
    delta : float
        The true B - A the streams were drawn at.
    mean_items, standard_error : float
        The mean stopping size (undecided streams count ``max_items``) and its Monte
        Carlo standard error.
    quantiles : dict
        The stopping size's 10%, 50% and 90% quantiles.
    items : numpy.ndarray
        Each stream's stopping size.
    verdicts : dict
        The share of streams each verdict ended (``"undecided"``: ``max_items`` reached).
    max_items, n_simulations, seed : int
        The simulation's.
    """

    delta: float
    mean_items: float
    standard_error: float
    quantiles: dict
    items: np.ndarray
    verdicts: dict
    max_items: int
    n_simulations: int
    seed: int

    def __repr__(self) -> str:
        return (f"ItemsToDecision(delta={self.delta:g}, mean_items={self.mean_items:.1f} "
                f"+- {self.standard_error:.1f}, median={self.quantiles[0.5]:g}, "
                f"verdicts={self.verdicts})")


def draw_differences(rng: np.random.Generator, delta: float, size: int, *,
                     sd: float | None = None, discordant: float | None = None) -> np.ndarray:
    """``size`` paired differences at mean ``delta``: 0/1 scores' -1/0/+1 with
    ``P(+1) = (discordant + delta) / 2`` and ``P(-1) = (discordant - delta) / 2``, or
    normal with standard deviation ``sd``."""
    if discordant is not None:
        u = rng.random(size)
        down = (discordant - delta) / 2
        return np.where(u < down, -1.0, np.where(u < discordant, 1.0, 0.0))
    return rng.normal(delta, sd, size)


def items_to_decision(delta: float, *, sd: float | None = None,
                      discordant: float | None = None, max_items: int = 10_000,
                      n_simulations: int = 500, seed: int = 0,
                      confidence_level: float = 0.95, alternative: str = "two-sided",
                      hypothesis: str = "difference", margin: float | None = None,
                      sequence: str | None = None, n_target: int | None = None,
                      bounds: tuple[float, float] | None = None, min_units: int | None = None,
                      grid_size: int = 2000) -> ItemsToDecision:
    """The stopping size of :func:`pairboot.sequential`'s rule at a true difference
    ``delta``, simulated ``n_simulations`` times (seeded: the same answer every run).

    Give ``discordant`` (0/1 scores: the share of items the systems disagree on; the
    sequence's ``bounds`` default to (0, 1)) or ``sd`` (normal differences).  The rest
    are :func:`pairboot.sequential`'s; its budget is ``max_items``.
    """
    if (sd is None) == (discordant is None):
        raise InputError("give one of `sd` (normal differences) and `discordant` (0/1 "
                         "scores)", param="sd")
    if discordant is not None:
        if not (0 < discordant <= 1 and abs(delta) <= discordant):
            raise InputError(f"`discordant` must be in (0, 1] and at least |delta|, got "
                             f"{discordant!r}", param="discordant")
        bounds = (0, 1) if bounds is None else bounds
    elif not (isinstance(sd, (int, float)) and sd > 0 and math.isfinite(sd)):
        raise InputError(f"`sd` must be a positive number, got {sd!r}", param="sd")
    if not (isinstance(max_items, int) and max_items >= 1):
        raise InputError(f"`max_items` must be a positive integer, got {max_items!r}",
                         param="max_items")
    if not (isinstance(n_simulations, int) and n_simulations >= 2):
        raise InputError(f"`n_simulations` must be an integer >= 2, got {n_simulations!r}",
                         param="n_simulations")
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 40]))
    items = np.empty(n_simulations)
    counts: dict[str, int] = {}
    for i in range(n_simulations):  # (bounded: n_simulations streams)
        s = sequential(budget=max_items, confidence_level=confidence_level,
                       alternative=alternative, hypothesis=hypothesis, margin=margin,
                       sequence=sequence, n_target=n_target, bounds=bounds,
                       min_units=min_units, grid_size=grid_size)
        stream = draw_differences(rng, delta, max_items, sd=sd, discordant=discordant)
        a = (stream < 0).astype(float) if discordant is not None else np.zeros(max_items)
        b = stream + a  # (0/1: B's 1 where B alone is right, A's where A alone is)
        s.update(a, b)  # (read in growing chunks: stops without computing the rest)
        result = s.result
        items[i] = result.n_units
        counts[result.verdict] = counts.get(result.verdict, 0) + 1
    return ItemsToDecision(
        delta=float(delta), mean_items=float(items.mean()),
        standard_error=float(items.std(ddof=1) / math.sqrt(n_simulations)),
        quantiles={q: float(np.quantile(items, q)) for q in (0.1, 0.5, 0.9)},
        items=items, verdicts={k: v / n_simulations for k, v in sorted(counts.items())},
        max_items=max_items, n_simulations=n_simulations, seed=int(seed))

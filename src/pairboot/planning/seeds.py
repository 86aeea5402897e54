"""The power of ``compare(..., runs="seeds")``'s t interval at a planned size.

The interval is ``estimate +- t(df) sqrt(V)`` with ``V`` and ``df`` read off the two-way
mean squares (:mod:`pairboot.comparisons.runs.analysis`): with a few seeds both are
estimated from a few degrees of freedom, so a noncentral t with fixed degrees of freedom
promises too much (at 3 seeds and a small seed effect, 0.80 planned, 0.70 simulated).
Here the power is the expectation over the mean squares themselves: in the normal
two-way model each is its expectation times an independent ``chi2_df / df`` and is
independent of the estimate, so

    power = E[ Phi((shift - q(df_hat) sqrt(V_hat)) / sqrt(V)) (+ the other tail) ]

with ``V`` the true variance (docs/runs.md), ``V_hat`` and ``df_hat`` the analysis's own
rules applied to the drawn mean squares (run terms truncated at 0, taken at the upper end
of their interval for the degrees of freedom, floored at ``R - 1``), averaged over
:data:`N_DRAWS` draws with a fixed seed (common to every size, so the power grows
smoothly with it).  The t quantiles come from a table over ``log df``
(:func:`t_quantiles`).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from pairboot.comparisons.runs.analysis import run_term_level
from pairboot.planning.model import Test
from pairboot.planning.noncentral import normal_cdf, t_power
from pairboot.stats.intervals import normal_quantile
from pairboot.stats.tdist import chi2_quantile, t_quantile

__all__ = ["N_DRAWS", "SeedsModel", "t_quantiles"]

N_DRAWS = 20_000
"""Draws of the mean squares: the power's Monte Carlo error is below 0.003."""

_SEED = 0x7365656473  # "seeds"
_GRID = np.exp(np.linspace(0.0, math.log(1e4), 500))


@functools.lru_cache(maxsize=16)
def _table(p: float) -> np.ndarray:
    return np.array([t_quantile(p, float(df)) for df in _GRID])


def t_quantiles(p: float, df: np.ndarray) -> np.ndarray:
    """Student's t ``p`` quantile at every ``df`` (interpolated in ``log df`` on a table
    of 500 exact values up to 10,000; beyond, the normal's with the first terms of its
    expansion in ``1 / df``)."""
    df = np.asarray(df, dtype=np.float64)
    out = np.interp(np.log(np.maximum(df, 1.0)), np.log(_GRID), _table(p))
    big = df > _GRID[-1]
    if big.any():
        z = normal_quantile(p)
        d = df[big]
        out[big] = z + (z ** 3 + z) / (4 * d) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * d * d)
    return out


@dataclass(frozen=True)
class SeedsModel:
    """Several seeds per system (see the module's docstring): ``unit_variance`` is
    ``var(delta)`` per unit, ``run_parts`` and ``residual_parts`` every system's run and
    residual variance (one of each: the paired runs' differences)."""

    unit_variance: float
    run_parts: tuple[float, ...]
    residual_parts: tuple[float, ...]

    runs = True

    @property
    def paired(self) -> bool:
        return len(self.run_parts) == 1

    def variance(self, n: float, runs: float) -> float:
        """``var(delta) / n + sum_s var(b_s) / R + sum_s var(e_s) / (n R)``."""
        return (self.unit_variance / n + sum(self.run_parts) / runs
                + sum(self.residual_parts) / (n * runs))

    def floor(self, runs: float) -> float:
        """The variance no number of units lowers: ``sum_s var(b_s) / R``."""
        return sum(self.run_parts) / runs

    def _chi(self, key: int, df: float) -> np.ndarray:
        """``chi2_df / df`` draws for term ``key`` (the same stream for every size:
        common random numbers)."""
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(_SEED,
                                                                       spawn_key=(key,))))
        return rng.gamma(df / 2.0, 2.0 / df, N_DRAWS)

    def power(self, test: Test, n: float, delta: float, runs: float | None = None) -> float:
        """The power with ``n`` units and ``runs`` runs per system.  One run per system
        only without a run variance (:meth:`floor` 0): compare(runs="seeds") then gives
        the items' t interval, whose variance is the model's; with one, no interval at
        the stated level exists (the run variance cannot be estimated), and it is
        refused (ValueError: the planner says so before it asks)."""
        if runs is None or runs < 1 or (runs < 2 and self.floor(1) > 0):
            raise ValueError(f"no t interval at the stated level with {runs!r} runs per "
                             "system and a run variance")
        n = 1e15 if math.isinf(n) else float(n)
        r = float(runs)
        v_true = self.variance(n, r)
        shift = test.shift(delta)
        if v_true <= 0:
            return 1.0 if shift > 0 else 0.0
        if r < 2:  # (the items' paired t: S2_D / n on n - 1 degrees of freedom)
            return t_power(shift / math.sqrt(v_true), n - 1.0, test.alpha, test.two_sided)
        alpha_df = test.alpha if test.two_sided else min(1.0, 2.0 * test.alpha)
        upper = (r - 1.0) / chi2_quantile(run_term_level(alpha_df), r - 1.0)
        # the items' term: S2_D / n, the residual noise's share of the items' differences
        item = (self.unit_variance + sum(self.residual_parts) / r) / n
        a_hat = item * self._chi(0, n - 1.0)
        v_hat = a_hat.copy()
        total = a_hat.copy()
        denom = a_hat ** 2 / (n - 1.0)
        has_run = np.zeros(N_DRAWS, dtype=bool)
        for s, (run, res) in enumerate(zip(self.run_parts, self.residual_parts)):
            b_hat = (run / r + res / (n * r)) * self._chi(2 * s + 1, r - 1.0)
            c_hat = (res / (n * r)) * self._chi(2 * s + 2, (n - 1.0) * (r - 1.0))
            keep = np.ones(N_DRAWS, dtype=bool) if self.paired else b_hat > c_hat
            v_hat += np.where(keep, b_hat - c_hat, 0.0)
            scaled = upper * b_hat
            total += np.where(keep, scaled - c_hat, 0.0)
            denom += np.where(keep, scaled ** 2 / (r - 1.0)
                              + c_hat ** 2 / ((n - 1.0) * (r - 1.0)), 0.0)
            has_run |= keep
        v_hat = np.maximum(v_hat, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            df = np.where(denom > 0, total * total / denom, np.inf)
        floor = np.where(has_run, r - 1.0, 1.0)
        df = np.maximum(np.maximum(df, floor), 1.0)
        p = 1.0 - (test.alpha / 2.0 if test.two_sided else test.alpha)
        q = t_quantiles(p, df)
        sd = math.sqrt(v_true)
        out = normal_cdf((shift - q * np.sqrt(v_hat)) / sd)
        if test.two_sided:
            out = out + normal_cdf((-shift - q * np.sqrt(v_hat)) / sd)
        return float(np.mean(out))

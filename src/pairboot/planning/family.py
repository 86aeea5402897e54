"""A family of comparisons planned together: the size at which each comparison, or all of
them at once, reach the power under Bonferroni's or max-t's correction.

The contrasts' per-unit covariance comes from the pilot
(:func:`pairboot.planning.pilot.contrast_covariance`).  Bonferroni tests each at
``alpha / m``.  Max-t's critical value is the ``1 - alpha`` quantile of the largest
standardised contrast (``max |Z_k|``, or ``max Z_k`` one-sided) with ``Z`` multivariate
normal under the contrasts' correlations, simulated with a fixed seed; its Monte Carlo
error is read off the order statistics (the binomial interval of the quantile's rank).
Each comparison's size is then the paired t's at the per-comparison level the critical
value implies; the joint power -- every true difference detected on its side -- is the
share of the simulated ``Z`` with ``Z_k + lambda_k > c`` for all ``k``.
"""

from __future__ import annotations

import math

import numpy as np

from pairboot.planning.model import NEVER, Test, TModel, size_for
from pairboot.planning.noncentral import normal_cdf
from pairboot.stats.intervals import normal_quantile

__all__ = ["FAMILY_SEED", "FamilyPlanner", "N_SIMULATIONS"]

FAMILY_SEED = 20_260_426
"""The fixed seed of the multivariate normal draws (the same plan on every run)."""

N_SIMULATIONS = 100_000
"""Draws of the contrasts' multivariate normal: the joint power's Monte Carlo error is
at most 0.0016."""


class FamilyPlanner:
    """The family's sizes and powers (``variances``: each contrast's per-unit variance,
    ``correlations`` their correlation matrix; ``test`` the family's level and sides)."""

    def __init__(self, variances, correlations, test: Test, names=(), n_strata: int = 1,
                 n_draws: int = N_SIMULATIONS, seed: int = FAMILY_SEED) -> None:
        self.n_strata = n_strata
        self.names = tuple(names)
        """The comparisons ``(a, b)``, by the systems' names."""
        self.variances = np.asarray(variances, dtype=np.float64)
        self.correlations = np.asarray(correlations, dtype=np.float64)
        self.test = test
        m = len(self.variances)
        self.m = m
        vals, vecs = np.linalg.eigh(self.correlations)
        root = vecs * np.sqrt(np.clip(vals, 0.0, None))
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))
        self.draws = rng.standard_normal((n_draws, m)) @ root.T
        self.n_draws = n_draws
        stat = np.abs(self.draws) if test.two_sided else self.draws
        maxima = np.sort(stat.max(axis=1))
        alpha = test.alpha
        rank = (1.0 - alpha) * (n_draws - 1)
        self.max_t = float(np.quantile(maxima, 1.0 - alpha))
        spread = math.sqrt(n_draws * alpha * (1.0 - alpha))
        lo = maxima[max(0, int(math.floor(rank - spread)))]
        hi = maxima[min(n_draws - 1, int(math.ceil(rank + spread)))]
        self.max_t_error = float(hi - lo) / 2.0
        tails = 2.0 if test.two_sided else 1.0
        self.bonferroni = -normal_quantile(alpha / (tails * m))

    def alpha_each(self, correction: str) -> float:
        """The level each comparison is tested at."""
        if correction == "bonferroni":
            return self.test.alpha / self.m
        tails = 2.0 if self.test.two_sided else 1.0
        return tails * (1.0 - normal_cdf(self.max_t))

    def critical(self, correction: str) -> float:
        return self.bonferroni if correction == "bonferroni" else self.max_t

    def _each_test(self, correction: str) -> Test:
        t = self.test
        return Test(self.alpha_each(correction), t.two_sided, t.direction, t.offset)

    def n_each(self, correction: str, delta: float, power: float) -> int | None:
        """Units at which every comparison alone reaches ``power`` (the paired t at the
        per-comparison level; the largest variance decides)."""
        return size_for(self._worst(), self._each_test(correction), delta, power,
                        minimum=self.n_strata + 1)

    def power_each(self, correction: str, n: float, delta: float) -> float:
        """The smallest per-comparison power at ``n`` units."""
        return self._worst().power(self._each_test(correction), n, delta)

    def _worst(self) -> TModel:
        """The paired t of the comparison with the largest variance."""
        return TModel(float(self.variances.max()), n_strata=self.n_strata)

    def power_all(self, correction: str, n: float, delta: float) -> float:
        """The chance that every comparison detects ``delta`` on its side at ``n`` units
        (simulated; Monte Carlo error :meth:`power_error`)."""
        shift = self.test.shift(delta)
        lam = shift / np.sqrt(self.variances / n)
        c = self.critical(correction)
        return float(np.mean(np.all(self.draws + lam > c, axis=1)))

    def power_error(self, p: float) -> float:
        return math.sqrt(max(p * (1.0 - p), 0.0) / self.n_draws)

    def n_all(self, correction: str, delta: float, power: float) -> int | None:
        """Units at which all the comparisons are detected together with ``power``."""
        if self.test.shift(delta) <= 0:
            return None
        lo = 1
        hi = self.n_each(correction, delta, power) or self.n_strata + 1
        while self.power_all(correction, hi, delta) < power:
            lo, hi = hi, hi * 2
            if hi > NEVER:
                return None
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if self.power_all(correction, mid, delta) >= power:
                hi = mid
            else:
                lo = mid
        return hi

"""The items' layout for estimates linear in their scores: weights, groups and strata.

With several runs per system (:mod:`pairboot.comparisons.runs.analysis`) the estimate is ``sum_i
w_i v_i``
over the items' (run-averaged) scores ``v``.  ``w_i`` is ``W_h / N_h`` for an item of
stratum ``h`` (``W_h`` its population weight, ``N_h`` its items), or ``W_h / (G_h n_g)``
for the mean of group means (``G_h`` groups, ``n_g`` items in the item's group); one
stratum and no groups give ``1 / n``.  :meth:`Layout.variance` is the design-based
variance of such an estimate when whole units (items, or groups) are drawn within
strata, the variance the bootstrap's draws of :func:`pairboot.compare` estimate::

    sum_h G_h / (G_h - 1) sum_{g in h} (sum_{i in g} w_i (v_i - vbar_h))^2

``vbar_h`` the weighted mean of stratum ``h``.  Without groups and strata it is
``s^2 / n``; with groups and a mean over items it is the ratio estimator's linearised
variance (the cluster-robust one); with strata, ``sum_h W_h^2 s_h^2 / n_h``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pairboot.core.units import units_of

__all__ = ["Layout"]


@dataclass(frozen=True)
class Layout:
    """Weights, units and strata of ``n`` items (see the module's docstring)."""

    weights: np.ndarray
    """``w_i`` of every item (they sum to 1)."""
    units: np.ndarray
    """The unit (group, or the item itself) of every item, as codes ``0..U-1``."""
    unit_stratum: np.ndarray
    """The stratum of every unit, as codes ``0..H-1``."""
    grouped: bool = False
    stratified: bool = False

    @classmethod
    def plain(cls, n: int) -> Layout:
        return cls(np.full(n, 1.0 / n), np.arange(n), np.zeros(n, dtype=np.intp))

    @classmethod
    def of(cls, n: int, *, groups=None, group_weighting: str = "items", strata=None,
           strata_weights=None) -> Layout:
        """The layout of ``n`` items with ``groups`` and ``strata`` labels (one per item)
        as :func:`pairboot.compare` reads them (:func:`pairboot.core.units.units_of`)."""
        units = units_of(n, groups=groups, group_weighting=group_weighting, strata=strata,
                         strata_weights=strata_weights)
        stratum = units.item_stratum
        if units.by_groups:
            weights = units.weights[stratum] / (units.units_per_stratum[stratum]
                                                * units.group_sizes[units.item_unit])
        else:
            weights = units.weights[stratum] / units.items_per_stratum[stratum]
        return cls(weights, np.arange(n) if units.item_unit is None else units.item_unit,
                   units.unit_stratum, units.grouped, units.stratified)

    @property
    def n_units(self) -> int:
        return len(self.unit_stratum)

    @property
    def degrees_of_freedom(self) -> int:
        """Units less strata (of the strata with two units or more)."""
        per = np.bincount(self.unit_stratum)
        return int((per[per > 1] - 1).sum())

    def estimate(self, v: np.ndarray) -> np.ndarray:
        """``sum_i w_i v_i`` (of every column of ``v``)."""
        return self.weights @ v

    def variance(self, v: np.ndarray) -> np.ndarray | float:
        """The design-based variance of :meth:`estimate` (per column of ``v``; a stratum
        of one unit adds 0, as its draws do)."""
        dev = self._deviations(v)
        out = (dev ** 2).sum(axis=0)
        return float(out[0]) if np.ndim(v) == 1 else out

    def covariance(self, v: np.ndarray) -> np.ndarray:
        """The design-based covariance matrix of the estimates of ``v``'s columns."""
        dev = self._deviations(v)
        return dev.T @ dev

    def _deviations(self, v: np.ndarray) -> np.ndarray:
        """Every unit's ``sum_{i in g} w_i (v_i - vbar_h)``, times ``sqrt(G_h / (G_h - 1))``
        (0 in a stratum of one unit): (units, columns)."""
        v = np.asarray(v, dtype=np.float64)
        v = v[:, None] if v.ndim == 1 else v
        stratum = self.unit_stratum[self.units]
        n_strata = int(self.unit_stratum.max()) + 1
        weight_h = np.bincount(stratum, weights=self.weights, minlength=n_strata)
        mean_h = np.stack([np.bincount(stratum, weights=self.weights * v[:, j],
                                       minlength=n_strata) for j in range(v.shape[1])],
                          axis=1) / weight_h[:, None]
        unit_sums = np.zeros((self.n_units, v.shape[1]))
        np.add.at(unit_sums, self.units, self.weights[:, None] * (v - mean_h[stratum]))
        per = np.bincount(self.unit_stratum, minlength=n_strata).astype(np.float64)
        factor = np.where(per > 1, per / np.maximum(per - 1, 1), 0.0)[self.unit_stratum]
        return np.sqrt(factor)[:, None] * unit_sums

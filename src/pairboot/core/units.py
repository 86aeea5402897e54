"""Items turned into units, by one set of rules for memory, runs and parts.

:func:`units_of` reads one group and one stratum label per item and returns the
:class:`Units`: every item's unit (its group, or the item itself), every unit's stratum
(a group lies within one), the strata's labels, the items and units of every stratum,
the strata's shares and population weights, the units' keys under Poisson weights, and
the draw order (the units by stratum).  :func:`pairboot.core.design.build_design` (in
memory), :meth:`pairboot.comparisons.runs.variance.Layout.of` (runs) and
:func:`pairboot.partitioned.parts.part_from_arrays` (a part of the data) read it; parts,
whose labels arrive piecewise, add their counts and take the weights of the totals
(:func:`shares_and_weights`), their strata's labels merged by
:func:`pairboot.inputs.labels.merged_labels`.  Every refusal has one message, whichever
path meets it.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from pairboot.errors import InputError
from pairboot.inputs.itemkeys import group_keys
from pairboot.inputs.labels import group_strata, item_labels

__all__ = ["Units", "units_of", "shares_and_weights", "population_weights"]


@dataclass(slots=True, eq=False)
class Units:
    """The units of ``n_items`` items and their strata (see :func:`units_of`)."""

    n_items: int
    item_unit: np.ndarray | None
    """Every item's unit, as codes ``0..U-1`` (its group); None: every item is a unit."""
    item_stratum: np.ndarray
    """Every item's stratum, as codes ``0..H-1`` (zeros without strata)."""
    unit_stratum: np.ndarray
    """Every unit's stratum (in the units' own order, not the draw order)."""
    strata: np.ndarray | None
    """The strata's distinct labels, sorted as ``numpy.unique`` sorts (None without
    strata)."""
    group_sizes: np.ndarray | None
    """The items of every group (None without groups)."""
    items_per_stratum: np.ndarray
    units_per_stratum: np.ndarray
    by_groups: bool
    """A mean of group means (``group_weighting='groups'``): a unit's statistics are
    its items' mean, and the strata's shares count units."""
    shares: np.ndarray
    """Every stratum's share of the sample (items, or groups for a mean of group
    means): the default population weights."""
    weights: np.ndarray
    """Every stratum's population weight (they sum to 1)."""
    keys: np.ndarray | None
    """Every unit's key under Poisson weights (an item's, or its group label's); None
    when the units are not keyed."""
    order: np.ndarray | None
    """The draw order: the units sorted by stratum, stably (None without strata: as
    they are)."""

    @property
    def n_units(self) -> int:
        return len(self.unit_stratum)

    @property
    def n_strata(self) -> int:
        return len(self.items_per_stratum)

    @property
    def grouped(self) -> bool:
        return self.item_unit is not None

    @property
    def stratified(self) -> bool:
        return self.strata is not None

    @property
    def strata_names(self) -> tuple[str, ...] | None:
        return None if self.strata is None else tuple(str(s) for s in self.strata)

    @property
    def starts(self) -> np.ndarray:
        """Where every stratum's units start in the draw order."""
        return np.concatenate([[0], np.cumsum(self.units_per_stratum)[:-1]]).astype(np.int64)

    @property
    def keys_in_order(self) -> np.ndarray | None:
        """The units' keys in the draw order (None without keys)."""
        if self.keys is None or self.order is None:
            return self.keys
        return self.keys[self.order]

    def statistics(self, x: np.ndarray) -> np.ndarray:
        """The units' statistics ``(U, k)`` in the draw order, from their items' ``x``
        ``(n, k)``: a group's sum (its mean for a mean of group means); the items' own
        rows without groups."""
        if self.item_unit is not None:
            sums = np.empty((self.n_units, x.shape[1]))
            for j in range(x.shape[1]):
                sums[:, j] = np.bincount(self.item_unit, weights=x[:, j],
                                         minlength=self.n_units)
            if self.by_groups:
                sums /= self.group_sizes[:, None]
            x = sums
        return x if self.order is None else x[self.order]


def units_of(n: int, *, groups=None, strata=None, group_weighting: str = "items",
             strata_weights=None, keys: np.ndarray | None = None,
             keyed: bool = False) -> Units:
    """The units of ``n`` items with one ``groups`` and one ``strata`` label per item
    (either may be None), as every comparison reads them.

    A group is a unit (its statistics the sum of its items', or their mean with
    ``group_weighting='groups'``, which needs groups) and lies within one stratum;
    without groups every item is a unit.  ``strata_weights`` maps every stratum's
    label to its population weight (default: the strata's shares).  ``keyed``: the
    units carry keys for Poisson weights, the items' ``keys`` without groups, a key of
    every group's label with them.
    """
    if groups is None and group_weighting == "groups":
        raise InputError(
            "`group_weighting='groups'` (the mean of group means) needs `groups`, the "
            "group label of every item", param="group_weighting",
        )
    item_unit = group_labels = group_sizes = None
    n_units = n
    if groups is not None:
        item_unit, group_labels = item_labels(groups, "groups", n)
        n_units = len(group_labels)
        group_sizes = np.bincount(item_unit, minlength=n_units)
    unit_keys = None
    if keyed:
        unit_keys = keys if item_unit is None else group_keys(group_labels)
    labels = order = None
    if strata is not None:
        item_stratum, labels = item_labels(strata, "strata", n)
        unit_stratum = (item_stratum if item_unit is None else
                        group_strata(item_unit, group_labels, item_stratum, labels))
        order = np.argsort(unit_stratum, kind="stable")
    else:
        item_stratum = np.zeros(n, dtype=np.intp)
        unit_stratum = np.zeros(n_units, dtype=np.intp)
    n_strata = 1 if labels is None else len(labels)
    items_per_stratum = np.bincount(item_stratum, minlength=n_strata)
    units_per_stratum = np.bincount(unit_stratum, minlength=n_strata)
    by_groups = group_weighting == "groups"
    shares, weights = shares_and_weights(
        units_per_stratum if by_groups else items_per_stratum, labels, strata_weights)
    return Units(
        n_items=n, item_unit=item_unit, item_stratum=item_stratum,
        unit_stratum=unit_stratum, strata=labels, group_sizes=group_sizes,
        items_per_stratum=items_per_stratum, units_per_stratum=units_per_stratum,
        by_groups=by_groups, shares=shares, weights=weights, keys=unit_keys, order=order,
    )


def shares_and_weights(counts: np.ndarray, labels, strata_weights
                       ) -> tuple[np.ndarray, np.ndarray]:
    """The strata's shares of ``counts`` (items or units per stratum) and their
    population weights (:func:`population_weights`; ``labels`` None without strata):
    of one sample's labels, or of the totals of parts."""
    shares = counts / counts.sum()
    return shares, population_weights(strata_weights, labels, shares)


def population_weights(given, names, shares: np.ndarray) -> np.ndarray:
    """Every stratum's population weight: ``given`` (a mapping from stratum label to a
    positive number, labels matched as text, every stratum in ``names`` and no other),
    normalised to sum 1; the ``shares`` when it is None."""
    if given is None:
        return shares / shares.sum()
    if names is None:
        raise InputError("`strata_weights` was given without `strata`", param="strata_weights")
    if not isinstance(given, Mapping):
        raise InputError(
            "`strata_weights` must be a mapping from stratum label to weight",
            param="strata_weights",
        )
    lookup = {str(k): v for k, v in given.items()}
    if len(lookup) != len(given):
        raise InputError(
            "`strata_weights` has labels that are equal as text (e.g. 1 and '1')",
            param="strata_weights",
        )
    labels = [str(s) for s in names]
    missing = [s for s in labels if s not in lookup]
    known = set(labels)
    extra = [k for k in lookup if k not in known]
    if extra:
        raise InputError(
            f"`strata_weights` names {len(extra)} stratum/strata not in the data: "
            f"{', '.join(map(repr, extra[:5]))}",
            param="strata_weights",
        )
    if missing:
        raise InputError(
            f"`strata_weights` has no weight for {len(missing)} stratum/strata in the data: "
            f"{', '.join(map(repr, missing[:5]))}",
            param="strata_weights",
        )
    w = []
    for s in labels:
        v = lookup[s]
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v):
            raise InputError(
                f"`strata_weights` for stratum {s!r} must be a number, got {v!r}",
                param="strata_weights",
            )
        if v <= 0:
            raise InputError(
                f"`strata_weights` for stratum {s!r} must be positive, got {v}",
                param="strata_weights",
            )
        w.append(float(v))
    w = np.asarray(w)
    return w / w.sum()

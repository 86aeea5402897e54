"""The Poisson bootstrap from parts of the data that are never in one place.

Under Poisson weights a unit's weight in every replicate is a pure function of the seed
and the unit's key (:mod:`pairboot.engine.keys`), so each part of the items (a file, a
Dask partition, a Spark partition) computes its own replicate sums, and the sums of the
parts add up to the sums of the whole.  :func:`part_from_arrays` computes one part's
:class:`PoissonPart`; parts of disjoint items are added (``a + b``, :func:`merge`) in any
order and grouping; :func:`finish` and :func:`finish_many` read the answer of
:func:`pairboot.compare` and :func:`pairboot.compare_many` off the total, with
``resampling="poisson"``, the same ``ids`` and seed: the same bootstrap distribution and
interval (bit for bit for integer-valued statistics, to rounding otherwise).

Only the sums travel: per stratum the replicate sums (R x M k), the observed sums, the
item count, and with groups every group's key and item count; with ``test=`` the
test's sums too (:mod:`pairboot.partitioned.part_tests`).  What needs every item in
one place is refused: BCa (its jackknife leaves out one unit at a time), the studentized
interval (per-unit cross products), unpaired draws, and ``group_weighting='groups'``
(a group's mean needs all its items).
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from pairboot.core.design import Design, as_statistics, difference_block
from pairboot.core.estimands import Estimands, column_sums
from pairboot.core.family import family_result, family_systems, row_margins
from pairboot.core.pipeline import check_margin, compare_result, make_run
from pairboot.core.units import shares_and_weights, units_of
from pairboot.engine import DrawPlan, split_constant
from pairboot.engine.keys import key_checksum, position_keys, seed_word
from pairboot.engine.poisson import partial_sums
from pairboot.errors import InputError
from pairboot.inputs.itemkeys import item_keys
from pairboot.inputs.labels import merged_labels, spans_strata
from pairboot.inputs.pairing import by_name
from pairboot.inputs.precision import exact_sums
from pairboot.metrics import Metric, resolve_metric
from pairboot.options import Arguments, Data, check_options
from pairboot.partitioned.checks import check_family, refuse_unavailable
from pairboot.partitioned.part_tests import (
    add_tables,
    check_part_test,
    family_null,
    finished_test,
    part_test_sums,
)
from pairboot.partitioned.trials import per_item_values
from pairboot.results.compare import CompareResult
from pairboot.results.family import FamilyResult

__all__ = ["PoissonPart", "part_from_arrays", "merge", "finish", "finish_many"]

ENGINE = "poisson+partitioned"
"""The result's ``engine`` when it was finished from parts."""


@dataclass(frozen=True, slots=True, eq=False)
class PoissonPart:
    """One part's contribution to a Poisson bootstrap: sums only, never the items.

    Parts of disjoint items add up (``a + b`` or :func:`merge`), strata aligned by label;
    the sum is the same whatever the order and grouping of the additions (exactly for
    integer-valued statistics, to rounding otherwise).

    Attributes
    ----------
    names : tuple of str
        The systems, in order.
    metric : Metric
    k : int
        Logical columns per system (the metric's statistics, a mean's count included).
    n_resamples, seed : int
    stratified, grouped : bool
        Whether the part was given strata and groups.
    strata : numpy.ndarray
        The stratum labels seen, sorted as ``numpy.unique`` sorts them (one ``None``
        label without strata; none in an empty part).
    sums : numpy.ndarray
        (R, H, M k): every replicate's sums of every system's logical columns.
    totals : numpy.ndarray
        (R, H): every replicate's total weight of the items.
    observed, absolute : numpy.ndarray
        (H, M k): the sums of the statistics, and of their absolute values.
    constant : numpy.ndarray
        (M k,): a column's common value over the part's items, NaN where it varies.
    items : numpy.ndarray
        (H,): the items of every stratum.
    groups : tuple of (keys, counts), or None
        Per stratum: the sorted keys of its groups and their item counts.
    checksum : (int, int) or None
        :func:`~pairboot.engine.keys.key_checksum` of the items' ids (None without ids).
    differences : int
        Columns of differences after the systems' own (a mean of two or more systems:
        :func:`pairboot.core.design.difference_block`), so that contrasts keep the precision of
        the differences whatever the systems' level; 0 otherwise.
    exact : tuple or None
        Per stratum, every column's exact sum (:func:`pairboot.inputs.precision.exact_sums`),
        for a mean's part of one system (a file of a system streamed apart), so that a
        contrast of separate sums can be checked against its exact value; else None.
    test : str or None
        The test the part carries sums for: ``"permutation"``, ``"mcnemar"`` or None.
    swapped : numpy.ndarray or None
        (R, H, width) with ``test="permutation"``: in permutation r and stratum h, the
        sums of the full rows of the items whose unit swaps A and B (as large as
        ``sums``); for three or more systems, the sums of every item's row with its
        systems relabelled (a family's test: :mod:`pairboot.core.westfall_young`).
    swapped_units : numpy.ndarray or None
        (R, H): how many of the part's items swap (a constant column's sums).
    table : Table2x2 or None
        With ``test="mcnemar"``: the part's paired 2 x 2 table of 0/1 scores.
    """

    names: tuple[str, ...]
    metric: Metric
    k: int
    n_resamples: int
    seed: int
    stratified: bool
    grouped: bool
    strata: np.ndarray
    sums: np.ndarray
    totals: np.ndarray
    observed: np.ndarray
    absolute: np.ndarray
    constant: np.ndarray
    items: np.ndarray
    groups: tuple | None
    checksum: tuple[int, int] | None
    differences: int = 0
    exact: tuple | None = None
    extremes: np.ndarray | None = None
    """``(2, width)``: every column's smallest and largest value over the items (None
    for no items), so that a margin beyond the scores' range is refused on parts too."""
    test: str | None = None
    swapped: np.ndarray | None = None
    swapped_units: np.ndarray | None = None
    table: object | None = None

    @property
    def n_items(self) -> int:
        return int(self.items.sum())

    @property
    def n_groups(self) -> int | None:
        return None if self.groups is None else sum(len(g[0]) for g in self.groups)

    def __add__(self, other: PoissonPart) -> PoissonPart:
        if not isinstance(other, PoissonPart):
            return NotImplemented
        return merge([self, other])

    def __repr__(self) -> str:
        return (f"PoissonPart(names={self.names!r}, metric={self.metric.name!r}, "
                f"n_items={self.n_items}, strata={len(self.strata)}, "
                f"n_resamples={self.n_resamples}, seed={self.seed})")


def column_names(spec, name: str) -> list[str]:
    """A system's column, or its list of columns (a pooled metric's statistics): what
    :mod:`pairboot.partitioned.files` and :mod:`pairboot.dask` read a system from."""
    if isinstance(spec, str):
        return [spec]
    if isinstance(spec, Sequence) and spec and all(isinstance(c, str) for c in spec):
        return list(spec)
    raise InputError(f"`{name}` must be a column name or a list of column names, got "
                     f"{spec!r}", param=name)


def _check_count(value, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        what = "a positive" if minimum > 0 else "a non-negative"
        raise InputError(f"`{name}` must be {what} integer, got {value!r}", param=name)
    return int(value)


def _width(values) -> int:
    """Columns of one system's (possibly empty) per-item input."""
    arr = np.asarray(values.to_numpy() if hasattr(values, "to_numpy") else values)
    return 1 if arr.ndim == 1 else int(arr.shape[1])


def part_from_arrays(
    systems,
    *,
    ids=None,
    keys=None,
    id_offset: int | None = None,
    groups=None,
    strata=None,
    metric: str | Metric = "mean",
    n_resamples: int = 10_000,
    seed: int,
    backend: str = "auto",
    test: str | None = None,
    runs: str | None = None,
) -> PoissonPart:
    """One part's replicate sums, keyed as :func:`pairboot.compare` keys the items under
    ``resampling="poisson"``, so that the parts of any split add up to the whole.

    Parameters
    ----------
    systems : mapping or DataFrame
        ``name -> per-item scores`` of the part's items (1-D, or items x statistics for
        pooled metrics), as for :func:`pairboot.compare_many`; every part names the same
        systems in the same order.
    ids : array_like
        One id per item (text or integers, no two alike in the whole data): the keys of
        the weights.  Required unless ``groups`` is given (then a group's label is its
        key) or ``id_offset`` says where the part's rows sit in the whole.
    id_offset : int, optional
        Without ids: the position of the part's first row in the whole data (its items
        are keyed by their global row positions, as compare() keys items without ids).
        Only meaningful when every part knows its offset; prefer ids.
    keys : numpy.ndarray, optional
        The ids' keys already computed (:func:`pairboot.inputs.itemkeys.item_keys`, which also
        refuses an id twice), instead of ``ids``.
    groups, strata : array_like, optional
        One group and one stratum label per item, as for :func:`pairboot.compare`.  A
        group may be spread over several parts, but must lie in one stratum.
    metric, n_resamples
        As for :func:`pairboot.compare`; the same in every part.
    seed : int
        The run's seed, the same in every part (there is no data to derive one from).
    backend : {"auto", "numba", "numpy"}
        The kernel of the sums.
    test : {None, "permutation", "mcnemar"}
        The test whose sums the part carries too, as ``compare(..., test=...)``
        (:mod:`pairboot.partitioned.part_tests`); the same in every part.  McNemar's needs
        two systems' 0/1 scores, without groups or strata.
    runs : {None, "samples"}
        ``"samples"``: every system's value is an items x trials table (NaN for a
        missing trial), each item's trials all in this part; its items are reduced to
        their mean, or to their estimate of a metric of k trials (``metric="pass^4"``),
        before the sums, as :func:`pairboot.compare` reduces them
        (:mod:`pairboot.partitioned.trials`).  ``"seeds"`` is refused.
    """
    seed = _check_count(seed, "seed", 0)  # (every part's: one integer, never drawn)
    args, data = check_options(locals(), fixed={"seed": seed})
    return arrays_part(systems, args, data, keys=keys, id_offset=id_offset)


def arrays_part(systems, args: Arguments, data: Data, *, keys=None,
                id_offset: int | None = None, item_ids=None) -> PoissonPart:
    """:func:`part_from_arrays` on checked options: how the chunks of a file and the
    partitions of a Dask DataFrame sum theirs (``item_ids``: how a message names an
    item of a trials table, when ``keys`` are given instead of ids)."""
    names, values = family_systems(systems, minimum=1)  # (a file per system: one each)
    values, data = per_item_values(names, values, args, data, item_ids)
    n_resamples, seed, backend, test = args.n_resamples, args.seed, args.backend, args.test
    ids, groups, strata, metric = data.ids, data.groups, data.strata, data.metric
    n = len(values[0])
    for name, v in zip(names, values):
        if len(v) != n:
            raise InputError(f"`{names[0]}` and `{name}` must score the same items: got "
                             f"{n} and {len(v)} items", param=name)
    if ids is not None and keys is not None:
        raise InputError("give `ids` or `keys`, not both", param="keys")
    if ids is None and keys is None and id_offset is None and groups is None:
        raise InputError(
            "`ids` is required for partitioned data: the weights are keyed by id, and "
            "row positions mean nothing across parts (or give `id_offset`, the part's "
            "first row in the whole data)", param="ids")
    if n == 0:
        return _empty_part(names, values, metric, n_resamples, seed, groups, strata, test)
    stats = [as_statistics(by_name(v, metric, name), name) for name, v in zip(names, values)]
    for name, X in zip(names[1:], stats[1:]):
        if X.shape[1] != stats[0].shape[1]:
            raise InputError(f"`{names[0]}` and `{name}` must have the same statistics per "
                             f"item, got {stats[0].shape[1]} and {X.shape[1]} columns",
                             param=name)
    m = resolve_metric(metric, stats[0].shape[1])
    per_item = [m.per_item(X) for X in stats]
    k = per_item[0].shape[1]
    if _with_differences(m, k, len(names)):  # (every part alike, whatever its data)
        per_item.append(difference_block(per_item))
    x = np.concatenate(per_item, axis=1)
    differences = x.shape[1] - k * len(names)
    test = check_part_test(test, names=names, grouped=groups is not None,
                           stratified=strata is not None, zero_one=m.mean_like and k == 2)

    checksum = None
    if ids is not None or keys is not None:
        if keys is None:
            keys = item_keys(ids, n, True)
        elif np.shape(keys) != (n,):
            raise InputError(f"`keys` must have one key per item ({n}), got shape "
                             f"{np.shape(keys)}", param="keys")
        keys = np.asarray(keys, dtype=np.uint64)
        checksum = key_checksum(keys)
    elif groups is None:
        keys = position_keys(_check_count(id_offset, "id_offset", 0), n)
        checksum = key_checksum(keys)
    units = units_of(n, groups=groups, strata=strata, keys=keys, keyed=True)
    scodes, n_strata = units.item_stratum, units.n_strata
    labels = units.strata if units.stratified else np.array([None], dtype=object)
    group_list = None
    if units.grouped:  # (the weights are the groups': every item takes its group's key)
        keys = units.keys[units.item_unit]
        sizes = units.group_sizes.astype(np.int64)
        group_list = tuple(_sorted_groups(units.keys[units.unit_stratum == h],
                                          sizes[units.unit_stratum == h])
                           for h in range(n_strata))

    xv, constant = split_constant(x)
    words = np.full(n_strata, seed_word(seed, 0), dtype=np.uint64)
    varying_sums, totals = partial_sums(xv, keys, scodes, n_strata, words, n_resamples,
                                        backend=backend)
    sums = np.empty((n_resamples, n_strata, x.shape[1]))
    varying = np.isnan(constant)
    sums[..., varying] = varying_sums
    sums[..., ~varying] = totals[..., None] * constant[~varying]
    observed = np.zeros((n_strata, x.shape[1]))
    absolute = np.zeros((n_strata, x.shape[1]))
    # one system's part (a file of a system, streamed beside the others'): its exact
    # sums too, against which a contrast of separate sums is checked (finish())
    exact = [] if len(names) == 1 and m.mean_like else None
    for h in range(n_strata):
        rows = x[scodes == h] if n_strata > 1 else x
        observed[h] = column_sums(rows)
        absolute[h] = np.abs(rows).sum(axis=0)
        if exact is not None:
            exact.append(tuple(exact_sums(rows)))
    return PoissonPart(
        names=tuple(names), metric=m, k=k, n_resamples=n_resamples, seed=seed,
        stratified=strata is not None, grouped=groups is not None, strata=labels,
        sums=sums, totals=totals, observed=observed, absolute=absolute, constant=constant,
        items=np.bincount(scodes, minlength=n_strata).astype(np.int64), groups=group_list,
        checksum=checksum, differences=differences,
        exact=None if exact is None else tuple(exact),
        extremes=np.stack([x.min(axis=0), x.max(axis=0)]) if n else None, test=test,
        **part_test_sums(test, x=x, xv=xv, constant=constant, keys=keys, scodes=scodes,
                         n_strata=n_strata, seed=seed, n_resamples=n_resamples,
                         backend=backend, k=k, ids=ids, n_systems=len(names),
                         differences=differences),
    )


def part_ranges(part: PoissonPart) -> list[tuple[float, float]] | None:
    """Every system's smallest and largest item score, for a mean (None otherwise, or
    without the extremes)."""
    if part.extremes is None or not part.metric.mean_like or part.k != 2:
        return None
    return [(float(part.extremes[0, 2 * j]), float(part.extremes[1, 2 * j]))
            for j in range(len(part.names))]


def _with_differences(metric, k: int, n_systems: int) -> bool:
    """Whether a part carries the differences: for a mean of two or more systems,
    always (parts of one run must be alike, and large data need the digits most)."""
    return bool(metric.mean_like) and k == 2 and n_systems > 1


def _sorted_groups(keys: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Group keys (duplicates' counts added) in sorted order."""
    uniq, inverse = np.unique(keys, return_inverse=True)
    return uniq, np.bincount(inverse.reshape(-1), weights=counts,
                             minlength=len(uniq)).astype(np.int64)


def _empty_part(names, values, metric, n_resamples, seed, groups, strata, test
                ) -> PoissonPart:
    """A part without items: the identity of :func:`merge`."""
    m = resolve_metric(metric, _width(by_name(values[0], metric, names[0])))
    k = m.per_item(np.ones((1, len(m.stats)))).shape[1]
    differences = (0 if not _with_differences(m, k, len(names)) else
                   1 if len(names) == 2 else len(names))
    width = k * len(names) + differences
    test = check_part_test(test, names=names, grouped=groups is not None,
                           stratified=strata is not None, zero_one=m.mean_like and k == 2)
    return PoissonPart(
        names=tuple(names), metric=m, k=k, n_resamples=n_resamples, seed=seed,
        stratified=strata is not None, grouped=groups is not None,
        strata=np.array([], dtype=object), sums=np.zeros((n_resamples, 0, width)),
        totals=np.zeros((n_resamples, 0)), observed=np.zeros((0, width)),
        absolute=np.zeros((0, width)), constant=np.full(width, np.nan),
        items=np.zeros(0, dtype=np.int64), groups=() if groups is not None else None,
        checksum=(0, 0), differences=differences, test=test,  # (merge skips its sums)
    )


_SETTINGS = ("names", "k", "n_resamples", "seed", "stratified", "grouped", "differences",
             "test")


def _same_settings(a: PoissonPart, b: PoissonPart) -> None:
    if (a.metric.name, a.metric.stats) != (b.metric.name, b.metric.stats):
        raise InputError(f"the parts differ in `metric` ({a.metric.name!r} and "
                         f"{b.metric.name!r}): only parts of one run can be added",
                         param="parts")
    for field in _SETTINGS:
        if getattr(a, field) != getattr(b, field):
            raise InputError(
                f"the parts differ in `{field}` ({getattr(a, field)!r} and "
                f"{getattr(b, field)!r}): only parts of one run can be added", param="parts")


def merge(parts: Sequence[PoissonPart]) -> PoissonPart:
    """The sum of parts of disjoint items (strata aligned by label).

    What is detected: parts of different runs (systems, metric, resamples, seed, strata
    or groups given or not), a group found in two strata, and the same set of ids added
    twice (equal id checksums: the same part added again).  What is not: an id in two
    parts among other ids, since a checksum of disjoint sets adds up like any other;
    only a comparison of id sets known to be equal (each system's file of the same items)
    or a pass over the ids (``pairboot.dask`` does one) can prove the parts disjoint.
    """
    parts = list(parts)
    if not parts or not all(isinstance(p, PoissonPart) for p in parts):
        raise InputError("`parts` must be one or more PoissonParts", param="parts")
    first = parts[0]
    for p in parts[1:]:
        _same_settings(first, p)
    full = [p for p in parts if len(p.strata)]
    if len(full) <= 1:
        return full[0] if full else first
    seen = set()
    for p in full:
        if p.checksum is not None and p.checksum in seen:
            raise InputError(
                f"two parts hold the same {p.checksum[0]} ids (equal checksums): the same "
                "part was added twice", param="parts")
        seen.add(p.checksum)
    if first.stratified:
        labels, positions = merged_labels([p.strata for p in full], "strata")
    else:
        labels, positions = np.array([None], dtype=object), [np.zeros(1, int)] * len(full)
    R, width = first.n_resamples, first.sums.shape[2]
    sums, totals = np.zeros((R, len(labels), width)), np.zeros((R, len(labels)))
    observed, absolute = np.zeros((len(labels), width)), np.zeros((len(labels), width))
    exact = ([[0] * width for _ in labels]
             if all(p.exact is not None for p in full) else None)
    items = np.zeros(len(labels), dtype=np.int64)
    constant = full[0].constant.copy()
    count, total = 0, 0
    group_parts = [[] for _ in labels]
    swapped = np.zeros_like(sums) if first.test == "permutation" else None
    swapped_units = np.zeros_like(totals) if first.test == "permutation" else None
    for p, at in zip(full, positions):
        sums[:, at] += p.sums
        totals[:, at] += p.totals
        if swapped is not None:  # (the permutation test's sums add like the Poisson sums)
            swapped[:, at] += p.swapped
            swapped_units[:, at] += p.swapped_units
        observed[at] += p.observed
        absolute[at] += p.absolute
        if exact is not None:
            for h, sums_h in zip(at.tolist(), p.exact):
                exact[h] = [u + v for u, v in zip(exact[h], sums_h)]
        items[at] += p.items
        constant[constant != p.constant] = np.nan  # (NaN stays NaN)
        if p.checksum is None or count is None:
            count = None
        else:
            count, total = count + p.checksum[0], (total + p.checksum[1]) % 2**64
        if p.groups is not None:
            for h, g in zip(at.tolist(), p.groups):
                group_parts[h].append(g)
    extremes = None
    if all(p.extremes is not None for p in full):
        extremes = np.stack([np.min([p.extremes[0] for p in full], axis=0),
                             np.max([p.extremes[1] for p in full], axis=0)])
    groups = None
    if first.grouped:
        groups = tuple(_sorted_groups(np.concatenate([g[0] for g in gs]),
                                      np.concatenate([g[1] for g in gs])) for gs in group_parts)
        uniq, seen_in = np.unique(np.concatenate([g[0] for g in groups]), return_counts=True)
        if (seen_in > 1).any():
            key = uniq[np.argmax(seen_in > 1)]
            first_h, second_h = [h for h, g in enumerate(groups) if key in g[0]][:2]
            raise spans_strata("a group of the parts", labels[first_h], labels[second_h])
    return PoissonPart(
        names=first.names, metric=first.metric, k=first.k, n_resamples=R, seed=first.seed,
        stratified=first.stratified, grouped=first.grouped, strata=labels, sums=sums,
        totals=totals, observed=observed, absolute=absolute, constant=constant,
        items=items, groups=groups, checksum=None if count is None else (count, total),
        differences=first.differences,
        exact=None if exact is None else tuple(tuple(e) for e in exact),
        extremes=extremes, test=first.test, swapped=swapped, swapped_units=swapped_units,
        table=add_tables(p.table for p in full) if first.test == "mcnemar" else None,
    )


def _design(part: PoissonPart, strata_weights) -> tuple[Design, np.ndarray, np.ndarray,
                                                         np.ndarray]:
    """The design of the whole data, from its sums: what the estimands and the notes
    read (the plan has the units' layout but no rows); and the sums, observed sums and
    sums of |x| with every column constant over all items computed as compare() does."""
    n_strata = len(part.strata)
    sums, observed, absolute = part.sums, part.observed[None], part.absolute[None]
    constant = part.constant if not part.grouped else np.full(len(part.constant), np.nan)
    fixed = ~np.isnan(constant)
    if part.grouped:
        units = np.array([len(g[0]) for g in part.groups], dtype=np.int64)
        group_sizes = np.concatenate([g[1] for g in part.groups])
    else:
        units, group_sizes = part.items, None
    if fixed.any():  # (the plan's constant columns: value times the weights, exactly)
        sums, observed, absolute = sums.copy(), observed.copy(), absolute.copy()
        sums[..., fixed] = part.totals[..., None] * constant[fixed]
        for h, m in enumerate(units.tolist()):
            observed[0, h, fixed] = constant[fixed] * m
            absolute[0, h, fixed] = np.abs(constant[fixed]) * m
    snames = part.strata if part.stratified else None
    shares, weights = shares_and_weights(part.items, snames, strata_weights)
    starts = np.concatenate([[0], np.cumsum(units)[:-1]]).astype(np.int64)
    plan = DrawPlan(np.empty((0, int((~fixed).sum()))), starts, units, constant, None,
                    np.zeros(n_strata, dtype=np.int64))
    design = Design(
        metric=part.metric, k=part.k, n_systems=len(part.names), names=part.names,
        plan=plan, draw_to_stratum=np.arange(n_strata),
        strata_names=tuple(str(s) for s in snames) if snames is not None else None,
        weights=weights, shares=shares, n_items=part.n_items, n_groups=part.n_groups,
        items_per_stratum=part.items, units_per_stratum=units, group_sizes=group_sizes,
        differences=part.differences,
    )
    return design, sums, observed, absolute


def _run(part: PoissonPart, args: Arguments, data: Data, *, family: bool = False):
    """The :class:`~pairboot.core.pipeline.Run` of the added ``part`` on checked
    options (the part's own resamples and seed, Poisson weights)."""
    if part.n_items == 0:
        raise InputError("the parts hold no items: there is nothing to compare", param="part")
    args = dataclasses.replace(args, n_resamples=part.n_resamples, seed=part.seed,
                               resampling="poisson")
    design, sums, observed, absolute = _design(part, data.strata_weights)
    check_margin(args.margin, design, part_ranges(part))
    core = Estimands(design, sums, observed, None, names=data.display, absolute=absolute,
                     exact=None if part.exact is None else part.exact)
    run = make_run(args, design, part.seed, ENGINE, core)
    if part.test is None:
        return run
    read = family_null if family else finished_test  # (a family: its rows are read later)
    return dataclasses.replace(run, test=read(part, design, args, observed, absolute))


def finish(part: PoissonPart, *, confidence_level: float = 0.95, method: str = "percentile",
           alternative: str = "two-sided", hypothesis: str = "difference",
           margin: float | None = None, lower_is_better: bool = False,
           strata_weights: Mapping | None = None,
           paired: bool = True, group_weighting: str = "items") -> CompareResult:
    """:func:`pairboot.compare`'s result for the two systems of ``part`` (B minus A, in
    the part's order): what ``compare(a, b, ids=..., resampling="poisson", seed=...)``
    gives on the whole data.  ``paired`` and ``group_weighting`` take their defaults
    only; ``method`` is ``"percentile"``, ``"basic"`` or ``"normal"``."""
    args, data = check_options(locals())
    return finished(part, args, data, stacklevel=3)


def finish_many(part: PoissonPart, *, baseline: str | None = None,
                pairs: Sequence[tuple[str, str]] | None = None, correction: str = "max-t",
                lower_is_better: bool = False, confidence_level: float = 0.95,
                method: str = "percentile", alternative: str = "two-sided",
                hypothesis: str = "difference", margin=None,
                strata_weights: Mapping | None = None, paired: bool = True,
                group_weighting: str = "items") -> FamilyResult:
    """:func:`pairboot.compare_many`'s result for the systems of ``part``: what
    ``compare_many(scores, ids=..., resampling="poisson", seed=...)`` gives on the whole
    data (the arguments as there)."""
    args, data = check_options(locals(), family=True)
    return finished(part, args, data, family=True, stacklevel=3)


def finished(part: PoissonPart, args: Arguments, data: Data, *, family: bool = False,
             stacklevel: int = 2) -> CompareResult | FamilyResult:
    """:func:`finish` (``family``: :func:`finish_many`) on checked options: what the
    files and Dask finish their total part with; notes are warned ``stacklevel`` frames
    up."""
    if not isinstance(part, PoissonPart):
        raise InputError(f"`part` must be a PoissonPart, got {type(part).__name__}",
                         param="part")
    refuse_unavailable(args)
    if not family:
        if len(part.names) != 2:
            raise InputError(f"`part` holds {len(part.names)} systems: finish() compares "
                             "two; use finish_many()", param="part")
        run = _run(part, args, dataclasses.replace(data, display=("A", "B")))
        return compare_result(run, stacklevel=stacklevel + 1)
    targets = check_family(part.names, data)
    margins = row_margins(args, list(part.names), targets)
    run = _run(part, args, data, family=True)
    return family_result(run, targets, stacklevel=stacklevel + 1, margins=margins)

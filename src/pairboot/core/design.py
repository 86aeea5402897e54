"""The units to resample, and the seed derived from them.

``build_design`` turns the aligned per-item statistics of M systems into units (items, or
groups whose vector is the sum of their items': :mod:`pairboot.core.units`), each carrying
every system's statistics side by side, grouped by draw stratum for the engine; one
function per layout draws them (:func:`_paired`, :func:`_unpaired`, and
:func:`_different_sizes` for unpaired samples of different sizes).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pairboot.core.units import Units, units_of
from pairboot.engine import DrawPlan, split_constant
from pairboot.engine.keys import position_keys
from pairboot.errors import InputError
from pairboot.inputs.itemkeys import item_keys, take
from pairboot.inputs.pairing import pair_items
from pairboot.inputs.precision import refuse_inexact_integers
from pairboot.metrics import Metric, resolve_metric
from pairboot.options import Arguments


def derived_seed(design: Design, args: Arguments) -> int:
    """The seed of a run given none: a hash of the units and the options that shape the
    draws and the answer, so the same inputs and options give the same output.

    BLAKE2b over the units' statistics (little-endian float64), the strata's layout,
    weights and names, the metric's name and statistics, and the options that decide
    what is drawn (``paired``, ``group_weighting``, ``n_resamples``); it is the same on
    every platform and Python version.  Any change of those (an item, its order) gives
    another seed; the level and the method do not, so they read the same draws.
    """
    plan = design.plan
    if design.seed_hash is not None:
        h = design.seed_hash.copy()
    else:
        h = hash_arrays(seed_hasher(), ((plan.x, "<f8"), (plan.constant, "<f8")))
    hash_arrays(h, ((plan.starts, "<i8"), (plan.sizes, "<i8"),
                     (design.draw_to_stratum, "<i8"), (design.weights, "<f8")))
    words = (
        design.metric.name, *design.metric.stats, str(design.k),
        *(design.strata_names or ()), str(design.n_groups), str(args.paired),
        args.group_weighting, str(args.n_resamples),
    ) + (("poisson",) if args.resampling == "poisson" else ())
    # (not the level or the method: they read the same draws differently)
    h.update("\x1f".join(words).encode("utf-8", "surrogatepass"))
    return int.from_bytes(h.digest(), "little") % 2**32


try:  # (hashlib's blake2b itself, without hashlib's OpenSSL: a ms or two of a command)
    from _blake2 import blake2b as _blake2b
except ImportError:  # pragma: no cover  (an interpreter without the module)
    from hashlib import blake2b as _blake2b


def seed_hasher(person: bytes = b"pairboot-seed"):
    """A BLAKE2b of 8 bytes personalised by ``person`` (one per kind of run, so that two
    kinds never share a seed), for a seed derived from the data: hashlib's blake2b
    without importing hashlib (its OpenSSL costs a command a millisecond or two)."""
    return _blake2b(digest_size=8, person=person)


def hash_arrays(h, arrays):
    """``h`` updated with every array's shape and little-endian bytes, in order."""
    for arr, dtype in arrays:
        arr = np.ascontiguousarray(arr, dtype=dtype)
        h.update(str(arr.shape).encode())
        h.update(arr.tobytes())  # (the same bytes; memoryview.cast refuses a 0-size array)
    return h


def seed_of(arrays, words=(), person: bytes = b"pairboot-seed") -> int:
    """A seed in [0, 2**32): BLAKE2b (personalised by ``person``) over every ``(array,
    dtype)``'s shape and little-endian bytes, then ``words`` joined by ``\\x1f``, as
    :func:`derived_seed` hashes a design (for the comparisons with their own units)."""
    h = hash_arrays(seed_hasher(person), arrays)
    h.update("\x1f".join(words).encode("utf-8", "surrogatepass"))
    return int.from_bytes(h.digest(), "little") % 2**32


def difference_block(xs: list[np.ndarray]) -> np.ndarray:
    """The columns of differences a mean's paired units carry beside the systems' own
    (:attr:`Design.differences`), from M systems' per-item statistics ``(n, 2)`` (a
    score and a count): ``b - a`` for two systems (one column); for more, every system's
    score minus the item's median score (M columns), so that a contrast of two systems
    whose scores agree is a sum of small numbers even where a third scores hugely.

    Summed apart, ``S_b - S_a`` keeps only the digits that the systems' common level
    leaves (an offset of 1e9, an item both score 1e17); summed as differences, a contrast
    keeps the precision of the differences themselves.
    """
    scores = np.column_stack([x[:, 0] for x in xs])
    with np.errstate(over="ignore", invalid="ignore"):  # (said where the sums are read)
        if len(xs) == 2:
            return scores[:, 1:] - scores[:, :1]
        return scores - np.median(scores, axis=1, keepdims=True)


DIGITS_TO_LOSE = 20
"""Bits of a contrast's resolution that its systems' separate sums may lose before the
units also carry the differences (:func:`needs_differences`): 2**20 leaves 33 of 53."""

_SAMPLE_UNITS = 1 << 14
"""Units the choice of :func:`needs_differences` looks at (the first ones; enough for
the sizes it compares)."""


def needs_differences(units: list[np.ndarray]) -> bool:
    """Whether summing M systems' unit scores apart (``units``: each system's ``(n, 2)``
    unit statistics, score and count) loses more than :data:`DIGITS_TO_LOSE` bits of
    some contrast's resolution: when the scores' level, times the square root of the
    number of units, exceeds the contrast's spread (or its mean) by more than 2**20.
    Scores in [0, 1] whose differences spread by 0.01 need it from about 1e8 units;
    latencies of 1e9 ns differing by 1 ns at once."""
    n = len(units[0])
    if n < 2:
        return False
    scores = np.column_stack([u[:_SAMPLE_UNITS, 0] for u in units])
    with np.errstate(all="ignore"):
        size = np.mean(np.abs(scores), axis=0)
        for i in range(scores.shape[1] - 1):  # system i against every later one at once
            d = scores[:, i + 1:] - scores[:, i:i + 1]
            resolution = np.maximum(np.std(d, axis=0), np.abs(np.mean(d, axis=0)))
            level = (size[i] + size[i + 1:]) * math.sqrt(n)
            # (the same scores, resolution 0, have nothing to resolve)
            if np.any((resolution > 0) & ~(level <= 2.0**DIGITS_TO_LOSE * resolution)):
                return True
    return False


def rounded_differences(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float] | None:
    """Whether the per-unit differences ``b - a`` vary by no more than the rounding of
    the scores they came from, unit by unit (scores near 1e15 are held to steps of 1/8,
    near 1e3 to 1e-13): ``(their spread, the scores' level, the typical step)`` when
    every unit's difference lies within :data:`ROUNDED_STEPS` steps of its own scores
    (and of the centre's) of the difference of the units that round least, and they are
    not all equal; else None."""
    with np.errstate(all="ignore"):
        d = b - a
        if len(d) < 2 or not np.all(np.isfinite(d)) or not np.ptp(d) > 0:
            return None
        for part in (slice(0, _SAMPLE_UNITS), slice(None)):  # (most data fail at once)
            step = np.spacing(np.maximum(np.abs(a[part]), np.abs(b[part])))
            # the common difference, from the units whose scores round least
            precise = step <= lower_quartile(step)
            centre, slack = finite_median(d[part][precise]), np.max(step[precise])
            if not np.all(np.abs(d[part] - centre) <= ROUNDED_STEPS * (step + slack)):
                return None
        top = float(np.max(np.abs(d)))  # (scaled: the squares of 1e+-300 do not hold)
        spread = top * float(np.std(d / top))
        return spread, float(finite_median(np.maximum(np.abs(a), np.abs(b)))), float(
            finite_median(step))


def lower_quartile(values: np.ndarray) -> np.float64:
    """``np.quantile(values, 0.25)`` (its linear interpolation, the same operations in
    the same order, so the same number) for finite values, ``len(values) >= 2``: the
    two order statistics around the quartile by ``np.partition``.  np.quantile and
    np.median import numpy.ma (np.unique and the check for NaN), 10 ms or more of a
    small command."""
    virtual = (len(values) - 1) * 0.25
    k = int(virtual)
    t = np.float64(virtual - k)
    below, above = np.partition(values, [k, k + 1])[[k, k + 1]]
    diff = above - below
    return above - diff * (1.0 - t) if t >= 0.5 else below + diff * t


def finite_median(values: np.ndarray) -> np.float64:
    """``np.median(values)`` of finite values (the mean of the same middle order
    statistics), without its check for NaN, which imports numpy.ma (see
    :func:`lower_quartile`)."""
    half = len(values) // 2
    middle = [half - 1, half] if len(values) % 2 == 0 else [half]
    return np.mean(np.partition(values, middle)[middle[0]:half + 1])


ROUNDED_STEPS = 4.0
"""How many steps of double precision of its own scores a unit's difference may lie from
the others' for the differences to count as rounding (:func:`rounded_differences`)."""


def as_floats(values, name: str) -> np.ndarray:
    """``values`` (a list, an array, a pandas or polars Series or DataFrame) as float64,
    any shape; an error naming ``name`` when they are not numbers."""
    if hasattr(values, "to_numpy"):  # pandas / polars Series and DataFrames
        values = values.to_numpy()
    fields = getattr(getattr(values, "dtype", None), "names", None)
    if fields:  # a numpy structured array: which field holds the scores is not ours to guess
        raise InputError(f"`{name}` is a structured array (fields {', '.join(fields)}): pass "
                         f"the field of the scores, e.g. {name}[{fields[-1]!r}]", param=name)
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError(f"`{name}` must hold numbers: {exc}", param=name) from None
    refuse_inexact_integers(values, arr, name)  # (integers beyond 2**53 would round)
    return arr


def as_statistics(values, name: str) -> np.ndarray:
    """Per-item values as an (n, c) float64 array; names the first bad item."""
    arr = as_floats(values, name)
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise InputError(
            f"`{name}` must be 1-D (one score per item) or 2-D (items x statistics), "
            f"got {arr.ndim} dimensions",
            param=name,
        )
    if arr.shape[0] == 0:
        raise InputError(f"`{name}` is empty: there are no items to compare", param=name)
    bad = ~np.isfinite(arr)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        where = f"item {i}" + (f", column {j}" if arr.shape[1] > 1 else "")
        raise InputError(
            f"`{name}` has a non-finite value ({arr[i, j]}) at {where}; "
            f"{int(bad.any(axis=1).sum())} item(s) are affected",
            param=name,
        )
    return arr


@dataclass(slots=True, eq=False)
class ItemScores:
    """Two systems' per-item scores in the order given, with what labels the items:
    ``ids`` (None: positions), ``groups`` and ``strata`` as passed (aligned)."""

    a: np.ndarray
    b: np.ndarray
    ids: object = None
    groups: object = None
    strata: object = None


@dataclass(slots=True, eq=False)
class Design:
    """Everything the engine and the statistic need, derived from the inputs once."""

    metric: Metric
    k: int
    """Sufficient statistics per system; ``x`` holds ``[system 0's k, system 1's k,
    ...]`` (A's, then B's for a comparison)."""
    n_systems: int
    names: tuple[str, ...]
    """The systems' names as given (``("a", "b")`` for compare()'s arguments)."""
    plan: DrawPlan
    draw_to_stratum: np.ndarray
    """Analysis stratum of every draw stratum (paired: the identity; unpaired: each
    stratum is drawn once per system, with that system's columns)."""
    strata_names: tuple[str, ...] | None
    weights: np.ndarray
    """Population weight of every analysis stratum (sums to 1)."""
    shares: np.ndarray
    """Every analysis stratum's share of the sample (items, or groups for a mean over
    groups): the default weights."""
    n_items: int
    n_groups: int | None
    items_per_stratum: np.ndarray
    units_per_stratum: np.ndarray
    group_sizes: np.ndarray | None
    differences: int = 0
    """Columns of differences after the systems' own (:func:`difference_block`): 1 for
    two systems, M for more, 0 where the systems' separate sums keep enough digits."""
    seed_hash: object = None
    """BLAKE2b over the systems' own statistics, before the differences were added:
    where :func:`derived_seed` starts (None: it hashes the plan itself)."""
    rounded: tuple[float, float, float] | None = None
    """Two systems' differences that vary only by the rounding of their scores
    (:func:`rounded_differences`), for the note that says so."""
    items: ItemScores | None = None
    """Two systems' per-item scores in the order given, with their ids and labels
    (``keep_items``: a paired mean of two systems), for the items behind the number."""

    @property
    def n_strata(self) -> int:
        return len(self.weights)

    @property
    def paired(self) -> bool:
        return len(self.draw_to_stratum) == self.n_strata

    def columns(self, system: int) -> slice:
        """System ``system``'s columns among a unit's statistics."""
        return slice(system * self.k, (system + 1) * self.k)

    def combination(self) -> tuple[np.ndarray, bool]:
        """How the strata combine, ``(coef, combined)``: a mean combines the strata's
        means with the population weights (the spec's rule, ``combined`` False); a pooled
        metric is computed once on the statistics reweighted to the population (each
        stratum's by weight over share, ``combined`` True)."""
        combined = self.n_strata > 1 and not self.metric.mean_like
        return (self.weights / self.shares if combined else self.weights), combined

    @property
    def width(self) -> int:
        """A unit's statistics: every system's own, then the differences."""
        return self.n_systems * self.k + self.differences


def build_design(
    systems, *, names=("a", "b"), metric, paired: bool, groups, group_weighting: str,
    strata, strata_weights, ids=None, poisson: bool = False, keep_items: bool = False,
) -> Design:
    """The units of M systems' per-item scores (``systems``, in ``names``' order).

    Paired: one draw of units serves every system, whose statistics sit side by side in
    each unit.  Unpaired: every stratum is drawn once per system (the other systems'
    columns zero), and samples of different sizes are allowed without groups or strata.

    The systems' inputs are paired first (:func:`pairboot.inputs.pairing.pair_items`: by
    position, or DataFrames joined on their ``ids`` column); the units are the
    :func:`pairboot.core.units.units_of` of their labels.

    ``poisson``: the plan carries every unit's key (:mod:`pairboot.engine.keys`: an item's
    id, or its position without ``ids``; a group's label) and the items are taken in the
    order of their keys, so that the answer does not depend on the order of the rows.

    ``keep_items``: the design keeps two systems' per-item scores, ids and labels
    (:attr:`Design.items`) when they are a paired mean's (one score per item).
    """
    stats, keys, groups, strata, given = _items(
        systems, names, metric=metric, paired=paired, groups=groups, strata=strata,
        ids=ids, poisson=poisson)
    m = resolve_metric(metric, stats[0].shape[1])
    kept = None
    if keep_items and paired and len(stats) == 2 and m.mean_like and stats[0].shape[1] == 1:
        (xa, xb), *labels = given
        kept = ItemScores(xa[:, 0].copy(), xb[:, 0].copy(), *labels)
    if groups is not None and group_weighting == "groups" and not m.mean_like:
        raise InputError(
            "`group_weighting='groups'` (the mean of group means) is defined for "
            f"metric 'mean' only, not {m.name!r}; use `group_weighting='items'`",
            param="group_weighting",
        )
    units = units_of(len(stats[0]), groups=groups, strata=strata,
                     group_weighting=group_weighting, strata_weights=strata_weights,
                     keys=keys, keyed=poisson)
    fields = dict(
        metric=m, n_systems=len(stats), names=tuple(names), strata_names=units.strata_names,
        weights=units.weights, shares=units.shares, n_items=units.n_items,
        n_groups=units.n_units if units.grouped else None,
        items_per_stratum=units.items_per_stratum, units_per_stratum=units.units_per_stratum,
        group_sizes=units.group_sizes, items=kept,
    )
    if len({len(X) for X in stats}) > 1:
        fields.update(_different_sizes([m.per_item(X) for X in stats], poisson))
    elif paired:
        fields.update(_paired([m.per_item(X) for X in stats], m, units, poisson))
    else:
        fields.update(_unpaired([m.per_item(X) for X in stats], units, poisson))
    return Design(**fields)


def _items(systems, names, *, metric, paired, groups, strata, ids, poisson):
    """The systems' per-item statistics ``(n, c)`` (paired, checked), the items' keys
    (under Poisson weights or with ``ids``), the labels, and the statistics and labels
    as given (before the Poisson order of the keys)."""
    systems, groups, strata, ids = pair_items(systems, names, groups=groups, strata=strata,
                                              ids=ids, metric=metric, paired=paired)
    stats = [as_statistics(v, name) for v, name in zip(systems, names)]
    given = (stats, ids, groups, strata)  # (in the order given, before any reordering)
    keys = None
    if ids is not None or poisson:
        keys = item_keys(ids, len(stats[0]), len({len(X) for X in stats}) == 1)
    if poisson and keys is not None:
        canon = np.argsort(keys, kind="stable")
        stats = [X[canon] for X in stats]
        keys = keys[canon]
        groups = None if groups is None else take(groups, canon, "groups", len(canon))
        strata = None if strata is None else take(strata, canon, "strata", len(canon))
    for name, X in zip(names[1:], stats[1:]):
        if X.shape[1] != stats[0].shape[1]:
            raise InputError(
                f"`{names[0]}` and `{name}` must have the same statistics per item, got "
                f"{stats[0].shape[1]} and {X.shape[1]} columns", param=name,
            )
    if len({X.shape[0] for X in stats}) > 1 and (
            paired or groups is not None or strata is not None):
        why = "a paired comparison" if paired else "groups or strata"
        other = next(j for j, X in enumerate(stats) if X.shape[0] != stats[0].shape[0])
        raise InputError(
            f"`{names[0]}` and `{names[other]}` must score the same items in the same order "
            f"for {why}: got {stats[0].shape[0]} and {stats[other].shape[0]} items",
            param=names[other],
        )
    return stats, keys, groups, strata, given


def _different_sizes(xs: list[np.ndarray], poisson: bool) -> dict:
    """Unpaired samples of different sizes (no groups or strata): every system's items
    drawn apart, as one stratum per system (by position under Poisson weights)."""
    n_systems, k = len(xs), xs[0].shape[1]
    lengths = [len(x) for x in xs]
    x = np.zeros((sum(lengths), n_systems * k))
    row = 0
    for j, xj in enumerate(xs):
        x[row : row + len(xj), j * k : (j + 1) * k] = xj
        row += len(xj)
    keys = salts = None
    if poisson:  # each system's items by position, drawn independently
        keys = np.concatenate([position_keys(0, m) for m in lengths])
        salts = np.arange(n_systems, dtype=np.int64)
    n = sum(lengths)
    return dict(
        k=k, plan=DrawPlan.from_columns(x, np.cumsum([0, *lengths[:-1]]), lengths, keys, salts),
        draw_to_stratum=np.zeros(n_systems, dtype=np.intp), n_items=n,
        items_per_stratum=np.array([n]), units_per_stratum=np.array([n]),
    )


def _paired(per_item: list[np.ndarray], m: Metric, units: Units, poisson: bool) -> dict:
    """One draw of the units for every system, their statistics side by side; a mean's
    units also carry the differences where the systems' sums would lose a contrast's
    digits (always under Poisson weights, as the parts of partitioned data do)."""
    # Memory: each system's constant columns are dropped before they are joined.
    own = [units.statistics(x) for x in per_item]
    parts = [split_constant(u) for u in own]
    k = len(parts[0][1])
    differences, seed_hash, rounded = 0, None, None
    if m.mean_like and k == 2 and len(per_item) > 1:
        if len(per_item) == 2:
            rounded = rounded_differences(own[0][:, 0] / own[0][:, 1],
                                          own[1][:, 0] / own[1][:, 1])
        # Poisson weights: always, as the parts of partitioned data carry them (the
        # same answer in memory as from parts, bit for bit on integer scores)
        if poisson or needs_differences(own):  # (the seed: of their own statistics)
            seed_hash = hash_arrays(seed_hasher(), (
                (np.concatenate([p[0] for p in parts], axis=1), "<f8"),
                (np.concatenate([p[1] for p in parts]), "<f8")))
            parts.append(split_constant(units.statistics(difference_block(per_item))))
            differences = len(parts[-1][1])
    del per_item[:], own
    x = np.concatenate([p[0] for p in parts], axis=1)
    plan = DrawPlan(np.ascontiguousarray(x), units.starts,
                    units.units_per_stratum.astype(np.int64),
                    np.concatenate([p[1] for p in parts]), units.keys_in_order,
                    np.zeros(units.n_strata, dtype=np.int64) if poisson else None)
    return dict(k=k, plan=plan, draw_to_stratum=np.arange(units.n_strata),
                differences=differences, seed_hash=seed_hash, rounded=rounded)


def _unpaired(per_item: list[np.ndarray], units: Units, poisson: bool) -> dict:
    """Every stratum drawn once per system: its units, the other systems' columns 0
    (under Poisson weights the same keys, salted by the system)."""
    us = [units.statistics(x) for x in per_item]
    n_systems, k, n_strata = len(us), us[0].shape[1], units.n_strata
    starts, sizes = units.starts, units.units_per_stratum
    blocks, draw_sizes = [], []
    for h in range(n_strata):
        sl = slice(starts[h], starts[h] + sizes[h])
        for j, own in enumerate(us):
            block = np.zeros((sizes[h], n_systems * k))
            block[:, j * k : (j + 1) * k] = own[sl]
            blocks.append(block)
        draw_sizes += [sizes[h]] * n_systems
    draw_starts = np.concatenate([[0], np.cumsum(draw_sizes)[:-1]])
    keys = salts = None
    if poisson:  # the same keys, drawn independently for every system
        in_order = units.keys_in_order
        keys = np.concatenate([in_order[starts[h] : starts[h] + sizes[h]]
                               for h in range(n_strata) for _ in range(n_systems)])
        salts = np.tile(np.arange(n_systems, dtype=np.int64), n_strata)
    return dict(
        k=k, plan=DrawPlan.from_columns(np.concatenate(blocks), draw_starts, draw_sizes,
                                        keys, salts),
        draw_to_stratum=np.repeat(np.arange(n_strata), n_systems),
    )

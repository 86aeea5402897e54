"""The data sets a planned size is checked on: a pilot read once (:func:`read_pilot`),
the planned size (:func:`planned_size`), how B is moved to the difference to detect
(:func:`difference_shift`), and one simulated evaluation drawn (:func:`draw_evaluation`).
What is drawn, and why so: :mod:`pairboot.planning.simulation`."""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from pairboot.errors import InputError

CELLS = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
"""The cells of a paired 0/1 table as (A, B) rows: both wrong, only B right, only A
right, both right."""


@dataclass(frozen=True, slots=True)
class Runs:
    """A system's items x runs scores split as ``y_ir = item_i + run_r + e_ir`` (the
    two-way model of docs/runs.md): the item means, the residuals, and the standard
    deviation of the run effects (their variance, net of the residuals' share)."""

    item_means: np.ndarray
    residuals: np.ndarray
    run_sd: float

    @classmethod
    def of(cls, y: np.ndarray) -> Runs:
        n, k = y.shape
        item_means = y.mean(axis=1)
        run_means = y.mean(axis=0)
        residuals = y - item_means[:, None] - (run_means - y.mean())[None, :]
        residual_var = float((residuals**2).sum()) / ((n - 1) * (k - 1))
        run_var = max(0.0, float(np.var(run_means, ddof=1)) - residual_var / n)
        return cls(item_means, residuals, math.sqrt(run_var))

    def draw(self, items: np.ndarray, n_runs: int, rng: np.random.Generator,
             pick: np.ndarray | None = None) -> np.ndarray:
        """``len(items)`` x ``n_runs`` scores: the items' means, new run effects from a
        normal with the run variance, and each cell a residual of its item's row (scaled
        by ``sqrt(k / (k - 1))``: a row's residuals sum to 0, losing a share 1/k of
        their variance), from the pilot's runs ``pick`` (drawn when None)."""
        k = self.residuals.shape[1]
        runs = rng.normal(0.0, self.run_sd, n_runs)
        if pick is None:
            pick = rng.integers(0, k, (len(items), n_runs))
        noise = self.residuals[items[:, None], pick] * math.sqrt(k / (k - 1))
        return self.item_means[items][:, None] + runs[None, :] + noise


def deflated(split: tuple[Runs, Runs]) -> tuple[Runs, Runs]:
    """A's and B's item means with the spread of their differences brought down to the
    two-way model's item variance: a pilot item's mean over its k runs carries its
    residuals' variance over k, which drawing the item again with new residuals would
    count twice.  The differences' deviations from their mean are scaled by ``sqrt(max(0,
    var(d) - sum_s s_e^2 / k_s) / var(d))`` (the method of moments of docs/runs.md, as
    the planner reads the pilot); the items' mean level, which cancels in B - A, stays."""
    a, b = split
    d = b.item_means - a.item_means
    noise = sum(float((s.residuals**2).sum()) / ((s.residuals.shape[0] - 1)
                                                 * (s.residuals.shape[1] - 1))
                / s.residuals.shape[1] for s in split)
    var = float(np.var(d, ddof=1)) if len(d) > 1 else 0.0
    if not var > 0:
        return split
    scale = math.sqrt(max(0.0, var - noise) / var)
    level = 0.5 * (a.item_means + b.item_means)
    shrunk = d.mean() + scale * (d - d.mean())
    return (Runs(level - shrunk / 2, a.residuals, a.run_sd),
            Runs(level + shrunk / 2, b.residuals, b.run_sd))


@dataclass(frozen=True, slots=True)
class Pilot:
    """The pilot as the simulation draws it: scores, and the units of every stratum."""

    a: np.ndarray
    b: np.ndarray
    runs: str | None
    binary: bool
    """1-D scores all 0 or 1 (flipped, not shifted)."""
    difference: float
    """The pilot's B - A (of the item means with runs)."""
    units: tuple[np.ndarray, ...]
    """Per stratum (one without strata): the units to draw from (items, or groups)."""
    group_items: np.ndarray | None
    """With groups: the items ordered by group; group g's are
    ``group_items[group_starts[g]:group_starts[g] + group_sizes[g]]``."""
    group_starts: np.ndarray | None
    group_sizes: np.ndarray | None
    split: tuple[Runs, Runs] | None
    """With ``runs="seeds"``: A's and B's scores split into items, runs and residuals."""
    metric: object | None = None
    """A pooled metric of :data:`MOVES` (a :class:`pairboot.Metric`), or None: a mean."""

    @property
    def n_items(self) -> int:
        return len(self.a)

    @property
    def n_units(self) -> int:
        return sum(len(u) for u in self.units)

    @property
    def grouped(self) -> bool:
        return self.group_items is not None

    @property
    def stratified(self) -> bool:
        return len(self.units) > 1


def count(name: str, value, least: int) -> int:
    """An integer argument of at least ``least``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < least:
        raise InputError(f"`{name}` must be an integer >= {least}, got {value!r}", param=name)
    return int(value)


WRONG = -1
"""The pseudo-column of accuracy's wrong answers, ``total - correct``."""

MOVES = {
    "f1": (((2, 0), (1, None)), ((0, 2),)),
    "precision": (((1, None),), ((0, None),)),
    "recall": (((1, 0),), ((0, 1),)),
    "accuracy": (((WRONG, 0),), ((0, None),)),
}
"""How B's counts move for each pooled metric the simulation takes: ``(up, down)``, each
a tuple of ``(source, target)`` columns; every count of the source moves to the target
(None: it is dropped) with probability ``share``.  Up fixes B's errors (F1: a false
negative becomes a true positive, a false positive is dropped; precision: a false
positive is dropped; recall: a false negative becomes a true positive; accuracy: a wrong
answer, ``total - correct``, becomes right); down makes B miss (a true positive becomes a
false negative, or is dropped for precision; a right answer becomes wrong)."""


def scores(values, name: str, runs: str | None, pooled: bool = False) -> np.ndarray:
    """A system's pilot scores as floats: 1-D, items x runs with ``runs``, items x
    statistics with ``pooled`` (counts: whole numbers)."""
    try:
        x = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"`{name}` must hold numbers", param=name) from None
    want = 1 if runs is None and not pooled else 2
    if x.ndim != want:
        shape = ("items x statistics (a pooled `metric`)" if pooled else
                 "items x runs (with `runs`)" if runs else "one score per item (1-D)")
        raise InputError(f"`{name}` must be {shape}, got {x.ndim} dimensions", param=name)
    if len(x) < 2:
        raise InputError(f"`{name}` must hold at least 2 items, got {len(x)}", param=name)
    bad = np.isinf(x) if runs == "samples" else ~np.isfinite(x)
    if bad.any():
        raise InputError(f"`{name}` holds a value that is not finite (item "
                         f"{int(np.argmax(bad.reshape(len(x), -1).any(axis=1)))})", param=name)
    if pooled and np.any(x != np.round(x)):
        raise InputError(f"`{name}` holds counts that are not whole numbers: the "
                         "simulation moves counts one by one", param=name)
    return x


def influence(metric, x: np.ndarray) -> np.ndarray:
    """Every item's influence on a pooled metric: its statistics times the metric's
    gradient at the sums (central differences), the linearisation of the metric's
    variance.  The difference of two systems' has no spread exactly when no resample
    could move the difference."""
    sums = x.sum(axis=0)
    grad = np.empty(len(sums))
    for j in range(len(sums)):
        h = 1e-6 * max(1.0, abs(float(sums[j])))
        up, down = sums.copy(), sums.copy()
        up[j] += h
        down[j] -= h
        grad[j] = (metric.evaluate(up)[0][0] - metric.evaluate(down)[0][0]) / (2 * h)
    return x @ grad


def labels(values, name: str, n: int) -> tuple[np.ndarray, int]:
    """Integer codes of one label per item, and how many labels there are."""
    x = np.asarray(values)
    if x.ndim != 1 or len(x) != n:
        raise InputError(f"`{name}` must hold one label per item ({n}), got shape "
                         f"{x.shape}", param=name)
    names, codes = np.unique(x, return_inverse=True)
    return codes.reshape(-1).astype(np.int64), len(names)


def read_pilot(a, b, *, groups=None, strata=None, runs=None, metric=None) -> Pilot:
    """The pilot, checked: paired, finite, with differences that spread.  ``metric``: a
    pooled metric of :data:`MOVES` (its :class:`pairboot.Metric`), or None for a mean."""
    if runs not in (None, "seeds", "samples"):
        raise InputError(f"`runs` must be None, 'seeds' or 'samples', got {runs!r}",
                         param="runs")
    if metric is not None and runs is not None:
        raise InputError(f"`metric={metric.name!r}` with `runs`: the simulation of runs "
                         "takes a mean of per-item scores", param="metric")
    xa, xb = scores(a, "a", runs, metric is not None), scores(b, "b", runs, metric is not None)
    if len(xa) != len(xb):
        raise InputError(f"`a` and `b` must be paired item by item: {len(xa)} and "
                         f"{len(xb)} items", param="b")
    n = len(xa)
    split = None
    if runs == "seeds":
        if min(xa.shape[1], xb.shape[1]) < 2:
            raise InputError("`runs='seeds'` needs at least 2 runs per system in the pilot "
                             "(the run variance is read off them)", param="runs")
        split = (Runs.of(xa), Runs.of(xb))
        item_diff = split[1].item_means - split[0].item_means
        split = deflated(split)
    elif runs == "samples":
        item_diff = np.nanmean(xb, axis=1) - np.nanmean(xa, axis=1)
    elif metric is not None:
        if xa.shape[1] != len(metric.stats) or xb.shape[1] != len(metric.stats):
            raise InputError(f"`metric={metric.name!r}` takes {len(metric.stats)} columns "
                             f"({', '.join(metric.stats)}), got {xa.shape[1]} and "
                             f"{xb.shape[1]}", param="metric")
        metric.per_item(xa), metric.per_item(xb)  # (its checks: counts, correct <= total)
        item_diff = influence(metric, xb) - influence(metric, xa)
    else:
        item_diff = xb - xa
    # (differences equal but for the rounding of b - a have no spread either)
    scale = max(1.0, float(np.nanmax(np.abs(xa))), float(np.nanmax(np.abs(xb))))
    rounding = 2.0**-40 * scale
    spread = np.ptp(item_diff) > rounding or (split is not None and any(
        s.run_sd > rounding or np.abs(s.residuals).max() > rounding for s in split))
    if not spread:
        what = (f"items all weigh alike on B - A of {metric.name}" if metric is not None
                else f"differences B - A are all {item_diff[0]:.6g}")
        raise InputError(f"`b`: the pilot's {what}, with no spread: no size can be "
                         "planned from it", param="b")
    binary = runs is None and metric is None and bool(np.isin(xa, (0.0, 1.0)).all()
                                   and np.isin(xb, (0.0, 1.0)).all())

    unit_of = np.arange(n)
    group_items = group_starts = group_sizes = None
    if groups is not None:
        unit_of, n_groups = labels(groups, "groups", n)
        group_items = np.argsort(unit_of, kind="stable")
        group_sizes = np.bincount(unit_of, minlength=n_groups)
        group_starts = np.concatenate([[0], np.cumsum(group_sizes)[:-1]])
    n_units = int(unit_of.max()) + 1
    if strata is None:
        units = (np.arange(n_units),)
    else:
        codes, n_strata = labels(strata, "strata", n)
        stratum_of_unit = np.full(n_units, -1)
        stratum_of_unit[unit_of] = codes
        if groups is not None and np.any(stratum_of_unit[unit_of] != codes):
            raise InputError("`groups`: a group spans two strata (a group must lie in "
                             "one stratum)", param="groups")
        units = tuple(np.flatnonzero(stratum_of_unit == h) for h in range(n_strata))
    difference = (float(metric.evaluate(xb.sum(axis=0))[0][0]
                        - metric.evaluate(xa.sum(axis=0))[0][0])
                  if metric is not None else float(np.mean(item_diff)))
    return Pilot(xa, xb, runs, binary, difference, units, group_items, group_starts,
                 group_sizes, split, metric)


@dataclass(frozen=True, slots=True)
class PlannedSize:
    """How much one simulated evaluation draws."""

    n_items: int
    """Items (with groups: the pilot's mean group size times ``n_groups``, rounded)."""
    n_groups: int | None
    n_runs: tuple[int, int] | None
    """With ``runs="seeds"``: A's and B's runs."""
    per_stratum: tuple[int, ...]
    """Units drawn in every stratum."""


def planned_size(pilot: Pilot, n_items, n_groups, n_runs) -> PlannedSize:
    """The planned size, checked against the pilot: units per stratum at the pilot's
    proportions (largest remainders), at least 2 in each."""
    if n_items is not None:
        n_items = count("n_items", n_items, 2)
    if pilot.grouped:
        if n_groups is not None and n_items is not None:
            raise InputError("`n_items`: with `groups`, give the planned `n_groups` or "
                             "`n_items` (turned into groups), not both", param="n_items")
        if n_groups is not None:
            n_groups = count("n_groups", n_groups, 2)
        elif n_items is None:
            raise InputError("`n_groups`: give the planned number of groups (or `n_items`)",
                             param="n_groups")
        else:
            n_groups = max(2, round(n_items * pilot.n_units / pilot.n_items))
        units, name = n_groups, "n_groups"
    else:
        if n_groups is not None:
            raise InputError("`n_groups` is the planned number of groups: it needs `groups`",
                             param="n_groups")
        if n_items is None:
            raise InputError("`n_items`: give the planned number of items", param="n_items")
        units, name = n_items, "n_items"
    if pilot.runs == "seeds":
        runs = ((pilot.a.shape[1], pilot.b.shape[1]) if n_runs is None
                else (count("n_runs", n_runs, 2),) * 2)
    elif n_runs is not None:
        raise InputError("`n_runs` is the planned number of runs: it needs `runs='seeds'`",
                         param="n_runs")
    else:
        runs = None
    sizes = np.array([len(u) for u in pilot.units], dtype=np.float64)
    exact = units * sizes / sizes.sum()
    per = np.floor(exact).astype(np.int64)
    rest = units - int(per.sum())
    per[np.argsort(-(exact - per), kind="stable")[:rest]] += 1
    if pilot.stratified and per.min() < 2:
        raise InputError(f"`{name}`: {units} leaves a stratum fewer than 2 "
                         f"{'groups' if pilot.grouped else 'items'} at the pilot's "
                         "proportions; plan more", param=name)
    items = (round(n_groups * pilot.n_items / pilot.n_units) if pilot.grouped else n_items)
    return PlannedSize(items, n_groups if pilot.grouped else None, runs,
                       tuple(per.tolist()))


@dataclass(frozen=True, slots=True)
class Shift:
    """How B is moved so that the simulated evaluations' true B - A is ``delta``: 0/1
    scores flipped (``flip``: B's wrong answers to right when ``up``, right to wrong
    otherwise, with the probabilities ``flips`` per cell: in ``share`` of them in all,
    half where the systems agree and half where they disagree, keeping the pilot's
    discordant share), other scores shifted by ``amount``."""

    delta: float
    flip: bool
    up: bool = True
    share: float = 0.0
    amount: float = 0.0
    cells: np.ndarray | None = None
    """0/1 scores: the cells' probabilities (:data:`CELLS`) after the flip."""
    moves: tuple | None = None
    """A pooled metric: B's counts moved (:data:`MOVES`), each with probability ``share``."""
    flips: np.ndarray | None = None
    """0/1 scores: the probability that B's answer flips, per cell (:data:`CELLS`)."""


def moved_counts(x: np.ndarray, moves, share: float, rng=None) -> np.ndarray:
    """Counts ``x`` (items x statistics, or one row of sums) with ``moves`` applied: each
    count of a source moves with probability ``share`` (drawn with ``rng``; without, the
    expected counts)."""
    x = np.array(x, dtype=np.float64)
    for source, target in moves:
        pool = x[..., 1] - x[..., 0] if source == WRONG else x[..., source]
        moved = (pool * share if rng is None
                 else rng.binomial(pool.astype(np.int64), share).astype(np.float64))
        if source != WRONG:
            x[..., source] -= moved
        if target is not None:
            x[..., target] += moved
    return x


def pooled_shift(pilot: Pilot, delta: float) -> Shift:
    """B's counts moved so that the metric of B's expected sums is A's plus ``delta``
    (the share found by bisection: the metric is monotone in it)."""
    metric = pilot.metric
    value = lambda sums: float(metric.evaluate(sums)[0][0])  # noqa: E731
    sums_a, sums_b = pilot.a.sum(axis=0), pilot.b.sum(axis=0)
    target = value(sums_a) + delta
    now = value(sums_b)
    up = target >= now
    moves = MOVES[metric.name][0 if up else 1]
    reach = value(moved_counts(sums_b, moves, 1.0))
    if not (min(now, reach) - 1e-12 <= target <= max(now, reach) + 1e-12):
        raise InputError(
            f"`delta` {delta:g} would take B's {metric.name} to {target:.4g} (A's is "
            f"{value(sums_a):.4g} in the pilot), beyond what moving B's counts reaches "
            f"({reach:.4g})", param="delta")
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if (value(moved_counts(sums_b, moves, mid)) < target) == up:
            lo = mid
        else:
            hi = mid
    return Shift(delta, flip=False, up=bool(up), share=0.5 * (lo + hi), moves=moves)


def difference_shift(pilot: Pilot, delta: float) -> Shift:
    """B moved to the true difference ``delta``; refused beyond the scores' range."""
    if pilot.metric is not None:
        return pooled_shift(pilot, delta)
    if not pilot.binary:
        values = np.concatenate([pilot.a.ravel(), pilot.b.ravel()])
        span = float(np.nanmax(values) - np.nanmin(values))
        if abs(delta) > span:
            raise InputError(f"`delta` {delta:g} is beyond the scores' range ({span:g}): "
                             "no difference between the systems can reach it",
                             param="delta")
        return Shift(delta, flip=False, amount=delta - pilot.difference)
    n = pilot.n_items
    p_a, p_b = float(pilot.a.mean()), float(pilot.b.mean())
    target = p_a + delta
    if not 0.0 <= target <= 1.0:
        raise InputError(f"`delta` {delta:g} would take B's accuracy to {target:.4g} (A's "
                         f"is {p_a:.4g} in the pilot), beyond [0, 1]", param="delta")
    codes = (2 * pilot.a + pilot.b).astype(np.int64)
    p = np.bincount(codes, minlength=4) / n
    up = target >= p_b
    # B's answers flip in two cells, by equal masses: one flip makes the systems agree,
    # the other disagree, so the pilot's discordant share stays (Connor's model keeps
    # it); where a cell runs out, the other takes the rest (the share then moves)
    cells = (2, 0) if up else (1, 3)  # (only A right -> both right, both wrong -> only B
    # right; only B right -> both wrong, both right -> only A right)
    need = abs(target - p_b)
    half = 0.5 * need
    take = [min(half, p[cells[0]]), min(half, p[cells[1]])]
    take[0] = min(p[cells[0]], need - take[1])
    take[1] = min(p[cells[1]], need - take[0])
    flips = np.zeros(4)
    for c, t in zip(cells, take):
        flips[c] = t / p[c] if p[c] > 0 else 0.0
    moved = p * (1.0 - flips)
    for c in cells:
        moved[c ^ 1] += p[c] * flips[c]  # (B's bit flipped: the cell's neighbour)
    moved /= moved.sum()
    return Shift(delta, flip=True, up=bool(up), share=float(need / (1 - p_b if up else p_b))
                 if (1 - p_b if up else p_b) > 0 else 0.0, cells=moved, flips=flips)


def draw_evaluation(pilot: Pilot, size: PlannedSize, shift: Shift,
                    rng: np.random.Generator):
    """One simulated evaluation ``(a, b, groups, strata)`` (None where the pilot has
    none): units drawn with replacement within each stratum, B moved by ``shift``."""
    chosen = [u[rng.integers(0, len(u), m)] for u, m in zip(pilot.units, size.per_stratum)]
    if pilot.grouped:
        drawn = np.concatenate(chosen)
        sizes = pilot.group_sizes[drawn]
        ends = np.cumsum(sizes)
        offsets = np.repeat(pilot.group_starts[drawn] - (ends - sizes), sizes)
        items = pilot.group_items[offsets + np.arange(int(ends[-1]))]
        groups = np.repeat(np.arange(len(drawn)), sizes)
        per_stratum = [int(pilot.group_sizes[c].sum()) for c in chosen]
    else:
        items = np.concatenate(chosen)
        groups = None
        per_stratum = [len(c) for c in chosen]
    strata = (np.repeat(np.arange(len(chosen)), per_stratum) if pilot.stratified
              else None)
    if pilot.split is not None:
        # (the same pilot run's residuals for A and B where both have as many: a part of
        # an item's noise that the systems share in a run, as scores of one seed's data
        # order or of one sampled prompt share it, cancels in B - A as in the pilot)
        ka, kb = (s.residuals.shape[1] for s in pilot.split)
        pick = (rng.integers(0, ka, (len(items), size.n_runs[0]))
                if ka == kb and size.n_runs[0] == size.n_runs[1] else None)
        a = pilot.split[0].draw(items, size.n_runs[0], rng, pick)
        b = pilot.split[1].draw(items, size.n_runs[1], rng, pick)
    else:
        a, b = pilot.a[items], pilot.b[items]
    if shift.moves is not None:
        b = moved_counts(b, shift.moves, shift.share, rng)
    elif shift.flip:
        if shift.flips.any():
            codes = (2 * a + b).astype(np.int64)
            turn = rng.random(len(b)) < shift.flips[codes]
            b = np.where(turn, 1.0 - b, b)
    else:
        b = b + shift.amount
    return a, b, groups, strata

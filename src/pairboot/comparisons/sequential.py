"""Anytime-valid comparisons: a confidence sequence for B - A, read after every item.

``s = pairboot.sequential(bounds=(0, 1))`` starts one; ``s.update(a_new, b_new)`` adds a
batch of paired items (any size: the rule looks after each item of it, and stops at
the first that decides); ``s.result`` is where it stands (:class:`SequentialResult`).
The error rate holds however often one looks, provided the items arrive in an order
independent of their outcomes (a random order of the test set, or the order the run
happens to finish them in if that does not depend on the scores).

The sequence is of the mean difference per unit: an item, or with ``groups`` a whole
group (its mean difference, each group counting once), the groups arriving whole.
Bounded scores (``bounds``) get the betting sequence, valid at every size; otherwise
the asymptotic one (:mod:`pairboot.stats.sequences`).  A pooled metric (``"ratio"``,
``"f1"``, ``"bleu"``, any registered metric or :class:`~pairboot.metrics.Metric` whose
value is a smooth function of summed per-unit statistics): the difference of its
values on each system's sums, by the delta method (asymptotic); with groups, a group's
summed statistics are its unit.
"""

from __future__ import annotations

import math
import numbers
from statistics import NormalDist

import numpy as np

from pairboot._version import __version__
from pairboot.errors import InputError
from pairboot.inputs.labels import item_labels
from pairboot.metrics import MEAN, RATIO, Metric, StatisticError, resolve_metric
from pairboot.metrics.base import central_gradient
from pairboot.metrics.names import builtin_stats
from pairboot.metrics.trials import trials_metric
from pairboot.options import DEFAULTS, OPTIONS
from pairboot.results.compare import ConfidenceInterval
from pairboot.results.sequential import SequentialResult
from pairboot.stats import sequences as cs

__all__ = ["Sequential", "sequential"]

SEQUENTIAL_METHODS = ("betting", "asymptotic")
FIRST_CHUNK, LAST_CHUNK = 256, 65_536
"""A large batch is read in chunks growing from the first size to the last, so that a
rule that stops early does not compute the rest (the answer is the same either way)."""
NEEDS_MARGIN = ("non-inferiority", "superiority", "equivalence")


def sequential(*, confidence_level: float = DEFAULTS["confidence_level"],
               bounds: tuple[float, float] | None = None,
               alternative: str = DEFAULTS["alternative"],
               hypothesis: str = DEFAULTS["hypothesis"],
               margin: float | None = DEFAULTS["margin"],
               lower_is_better: bool = DEFAULTS["lower_is_better"],
               budget: int | None = None, n_target: int | None = None,
               sequence: str | None = None, min_units: int | None = None,
               metric: str | Metric = DEFAULTS["metric"],
               grid_size: int = 2000) -> Sequential:
    """A confidence sequence for B - A and its stopping rule, fed with :meth:`update`.

    Parameters
    ----------
    confidence_level : float
        The sequence covers the mean difference at every size at once with this
        probability: the rule's error rate is at most ``1 - confidence_level`` however
        often it is read.
    bounds : (low, high) or None
        The scores' bounds (0/1 and [0, 1] scores: ``(0, 1)``): the betting sequence,
        valid at every size.  None: the asymptotic sequence (any scores with a finite
        variance; valid as the size grows).
    alternative : str
        ``"two-sided"`` (both ends: the rule can stop either way, or for futility), or a
        one-sided sequence, ``"greater"`` (a lower end only: tighter, it stops only when
        B - A is shown above the boundary) or ``"less"``.
    hypothesis, margin : str, float
        What stops the rule (the sequence excludes the boundary): ``"difference"`` (0;
        with a margin, also "futile" once the sequence lies within +-margin),
        ``"non-inferiority"`` (-margin: non-inferior, or inferior), ``"superiority"``
        (+margin: better-by-margin, or futile), ``"equivalence"`` (within +-margin).
    lower_is_better : bool
        Lower scores are better (the verdicts' sides).
    budget : int or None
        The most units the rule uses: it stops there undecided.
    n_target : int or None
        The size the sequence is tightest near (its ``rho``, its bets); default the
        budget, else 500.
    sequence : str or None
        ``"betting"`` or ``"asymptotic"``; default betting with bounds.
    min_units : int or None
        Units before the rule may stop (default 0 for betting; 30 for the asymptotic
        sequence, whose guarantee is for large sizes and whose standard deviation is
        0 after a few equal differences).
    metric : str or Metric
        ``"mean"`` (the mean difference per unit), or a pooled metric: ``"ratio"``
        (``sum(num_b) / sum(den_b) - sum(num_a) / sum(den_a)``: micro-averaged
        accuracy over parts, tokens per item...), ``"f1"``, ``"precision"``,
        ``"recall"``, ``"accuracy"``, ``"macro_f1"``, ``"bleu"`` or a
        :class:`~pairboot.metrics.Metric`: the difference of its values on each
        system's summed statistics, each update's ``a`` and ``b`` one column per
        statistic and item (the metric's ``stats``, in order).  The asymptotic sequence
        on the units' influence values by the delta method (asymptotic twice over),
        with the metric's analytic ``gradient`` or central differences; no bounds.
    grid_size : int
        The betting sequence's candidate means (its resolution: 2 / grid_size of the
        bounds' width, each end moved out by one step).
    """
    return Sequential(confidence_level=confidence_level, bounds=bounds,
                      alternative=alternative, hypothesis=hypothesis, margin=margin,
                      lower_is_better=lower_is_better, budget=budget, n_target=n_target,
                      sequence=sequence, min_units=min_units, metric=metric,
                      grid_size=grid_size)


def _positive_int(name: str, value, *, allow_none: bool = True, least: int = 1):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < least:
        raise InputError(f"`{name}` must be an integer >= {least}, got {value!r}",
                         param=name)
    return int(value)


def _bounds(bounds):
    if bounds is None:
        return None
    try:
        low, high = (float(v) for v in bounds)
    except (TypeError, ValueError):
        raise InputError(f"`bounds` must be (low, high), got {bounds!r}",
                         param="bounds") from None
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise InputError(f"`bounds` must be finite with low < high, got {bounds!r}",
                         param="bounds")
    return low, high


class Sequential:
    """A running confidence sequence for B - A (:func:`sequential` makes one)."""

    def __init__(self, *, confidence_level, bounds, alternative, hypothesis, margin,
                 lower_is_better, budget, n_target, sequence, min_units, metric,
                 grid_size):
        self.confidence_level = OPTIONS["confidence_level"].check(confidence_level)
        self.alternative = OPTIONS["alternative"].check(alternative)
        self.hypothesis = OPTIONS["hypothesis"].check(hypothesis)
        self.margin = OPTIONS["margin"].check(margin)
        self.lower_is_better = OPTIONS["lower_is_better"].check(lower_is_better)
        if self.hypothesis in NEEDS_MARGIN and self.margin is None:
            raise InputError(f"`hypothesis` {self.hypothesis!r} needs a `margin`",
                             param="margin")
        self.bounds = _bounds(bounds)
        self._metric = _pooled_metric(metric)
        self.metric = ("mean" if self._metric is None else self._metric
                       if isinstance(self._metric, str) else self._metric.name)
        self._kind = ("mean" if self._metric is None else
                      "ratio" if self._metric is RATIO else "pooled")
        self._width = (len(self._metric.stats) if isinstance(self._metric, Metric)
                       else None)  # (a pooled metric's columns: BLEU's at its first update)
        if self._kind != "mean" and (sequence == "betting" or self.bounds is not None):
            raise InputError(f"`metric` {self.metric!r} has the asymptotic sequence only "
                             "(by the delta method): give no `bounds`", param="bounds")
        method = sequence
        if method is None:
            method = "asymptotic" if self.bounds is None else "betting"
        if method not in SEQUENTIAL_METHODS:
            raise InputError(f"`sequence` must be one of {', '.join(SEQUENTIAL_METHODS)}, "
                             f"got {method!r}", param="sequence")
        if method == "betting" and self.bounds is None:
            raise InputError("`sequence` 'betting' needs the scores' `bounds`",
                             param="bounds")
        self.method = method
        self.budget = _positive_int("budget", budget)
        self.n_target = _positive_int("n_target", n_target) or self.budget or 500
        self.min_units = _positive_int("min_units", min_units, least=0)
        if self.min_units is None:
            self.min_units = 30 if method == "asymptotic" else 0
        grid_size = _positive_int("grid_size", grid_size, allow_none=False, least=10)
        alpha = 1.0 - self.confidence_level
        self._alpha = alpha
        if method == "betting":
            self._state = cs.betting_start(alpha, self.alternative, grid_size,
                                           self.n_target)
        else:  # (the mean's asymptotic sequence reads the moments: no state of its own;
            # a pooled metric's starts at the first update, which says its width)
            self._state = cs.ratio_start() if self._kind == "ratio" else None
            self._rho2 = cs.rho2_for(self.n_target, alpha)
        self._moments = (0, 0.0, 0.0)
        """The mean's moments of the units used (:func:`~pairboot.stats.sequences.
        moments_update`), merged once per chunk, up to the stop."""
        self._n_units = 0
        self._n_items = 0
        self._n_unused = 0
        self._seen_groups: set = set()
        self._seen_ids: set = set()
        self._stop: dict | None = None
        self._last = {"low": -math.inf, "high": math.inf}

    # --- the data -------------------------------------------------------------------
    def _scores(self, values, name: str) -> np.ndarray:
        arr = np.asarray(values, dtype=float) if not isinstance(values, np.ndarray) \
            else values.astype(float, copy=False)
        if self._kind == "ratio":
            if arr.ndim != 2 or arr.shape[1] != 2:
                raise InputError(f"`{name}` must be two columns (numerator, denominator) "
                                 f"per item for `metric` 'ratio', got shape {arr.shape}",
                                 param=name)
        elif self._kind == "pooled":
            return self._statistics(arr, name)
        elif arr.ndim != 1:
            raise InputError(f"`{name}` must be one-dimensional, got shape {arr.shape}",
                             param=name)
        self._finite(arr, name)
        if self.bounds is not None and self.method == "betting":
            low, high = self.bounds
            out = np.flatnonzero((arr < low) | (arr > high))
            if out.size:
                raise InputError(f"`{name}` has a score outside the declared `bounds` "
                                 f"[{low:g}, {high:g}] at position {int(out[0])}: "
                                 f"{arr[out[0]]:g}", param=name)
        return arr

    @staticmethod
    def _finite(arr: np.ndarray, name: str) -> None:
        bad = np.flatnonzero(~np.isfinite(arr))
        if bad.size:
            raise InputError(f"`{name}` has a missing or infinite score at position "
                             f"{int(bad[0]) // max(arr[:1].size, 1)}", param=name)

    def _statistics(self, arr: np.ndarray, name: str) -> np.ndarray:
        """A pooled metric's per-item statistics (its ``prepare``: counts checked), one
        column per statistic; the metric's size (BLEU's order) from the first update."""
        arr = arr[:, None] if arr.ndim == 1 else arr
        if arr.ndim != 2:
            raise InputError(f"`{name}` must be one column per statistic of metric "
                             f"{self.metric!r} and one row per item, got shape "
                             f"{arr.shape}", param=name)
        if not isinstance(self._metric, Metric) or arr.shape[1] != self._width:
            try:
                self._metric = resolve_metric(self._metric, arr.shape[1])
            except InputError as exc:
                raise InputError(f"`{name}`: {exc}", param=name) from None
            self._width = arr.shape[1]
        self._finite(arr, name)
        try:
            stats = self._metric.per_item(arr)
        except StatisticError as exc:
            raise InputError(f"`{name}` item {exc.item}: {exc.reason} (statistic "
                             f"{self._metric.stats[exc.stat]!r})", param=name) from None
        if self._state is None:
            self._state = cs.pooled_start(stats.shape[1])
        elif self._state[2].size != 2 * stats.shape[1]:
            raise InputError(f"`{name}` has {arr.shape[1]} columns; the first update had "
                             f"{self._width}", param=name)
        return stats

    def _units(self, d: np.ndarray, groups, ids) -> tuple[np.ndarray, np.ndarray, set, set]:
        """The batch's units (differences, or whole groups' mean differences in order
        of first appearance; a pooled metric's statistics, or whole groups' sums), each
        unit's items, and the batch's ids and groups (kept by :meth:`update` once it
        has taken the batch)."""
        grouped = self._n_units > 0 and bool(self._seen_groups)
        if self._n_units > 0 and grouped != (groups is not None):
            raise InputError("`groups`: give them in every update or in none (the units "
                             f"so far are {'groups' if grouped else 'items'})",
                             param="groups")
        n = d.shape[0]
        fresh: set = set()
        if ids is not None:
            ids = list(ids)
            if len(ids) != n:
                raise InputError(f"`ids` has {len(ids)} entries for {n} items", param="ids")
            for i in ids:
                if i in self._seen_ids or i in fresh:
                    raise InputError(f"`ids` repeats the id {i!r}", param="ids")
                fresh.add(i)
        if groups is None:
            return d, np.ones(n, dtype=np.int64), fresh, set()
        labels = list(groups)
        if len(labels) != n:
            raise InputError(f"`groups` has {len(labels)} labels for {n} items",
                             param="groups")
        item_labels(labels, "groups", n)  # (a missing label refused, as compare does)
        order: dict = {}
        for label in labels:
            order.setdefault(label, len(order))
        again = [g for g in order if g in self._seen_groups]
        if again:
            raise InputError(f"`groups`: the group {again[0]!r} arrived in an earlier "
                             "update; groups must arrive whole", param="groups")
        codes = np.fromiter((order[g] for g in labels), dtype=np.int64, count=n)
        sizes = np.bincount(codes, minlength=len(order))
        if d.ndim == 2:  # (a pooled metric: the group's summed statistics)
            return np.column_stack([np.bincount(codes, weights=col, minlength=len(order))
                                    for col in d.T]), sizes, fresh, set(order)
        return (np.bincount(codes, weights=d, minlength=len(order)) / sizes, sizes, fresh,
                set(order))

    # --- the rule -------------------------------------------------------------------
    def update(self, a, b, *, groups=None, ids=None) -> SequentialResult:
        """Add paired items (A's and B's scores, in arrival order) and read the rule
        after each: the result (:attr:`result`).  Items after a stop are counted, not
        used.  ``groups``: one label per item, each group whole within one update;
        ``ids``: one id per item, refused if repeated."""
        a = self._scores(a, "a")
        b = self._scores(b, "b")
        if a.shape[0] != b.shape[0]:
            raise InputError(f"`a` and `b` must pair item by item: {a.shape[0]} and "
                             f"{b.shape[0]} items", param="b")
        if self._stop is not None:
            self._n_unused += int(a.shape[0])
            return self.result
        d = np.column_stack([b, a]) if self._kind != "mean" else b - a
        units, sizes, fresh, new_groups = self._units(d, groups, ids)
        if units.shape[0] == 0:
            return self.result
        self._seen_ids |= fresh
        self._seen_groups |= new_groups
        before = (self._state, self._n_units, self._n_items, self._last)
        start, step = 0, FIRST_CHUNK
        while start < units.shape[0]:  # (bounded: chunks doubling up to LAST_CHUNK)
            chunk, chunk_sizes = units[start:start + step], sizes[start:start + step]
            low, high, extra = self._path(chunk)
            t = self._n_units + np.arange(1, chunk.shape[0] + 1)
            stop = self._first_stop(low, high, t)
            refused = extra.pop("refused", None)
            if refused is not None and (stop is None or stop[0] >= refused):
                self._state, self._n_units, self._n_items, self._last = before
                self._seen_ids -= fresh
                self._seen_groups -= new_groups
                raise self._not_differentiable(int(t[refused]),
                                               int(sizes[:start + refused + 1].sum()) - 1)
            k = chunk.shape[0] - 1 if stop is None else stop[0]
            self._n_units += k + 1
            if self._kind == "mean":
                self._moments = cs.moments_update(self._moments, chunk[:k + 1])
            self._n_items += int(chunk_sizes[:k + 1].sum())
            self._last = {"low": float(low[k]), "high": float(high[k]),
                          **{key: float(v[k]) for key, v in extra.items()}}
            if stop is not None:
                self._n_unused = int(sizes[start + k + 1:].sum())
                self._stop = {"by": stop[1], "verdict": stop[2]}
                break
            start += chunk.shape[0]
            step = min(2 * step, LAST_CHUNK)
        return self.result

    def _path(self, units: np.ndarray):
        """The sequence's ends (on B - A's scale) after each unit, and (a ratio) the
        estimate and the influence values' standard deviation after each.  The
        betting and ratio states move past the units; the mean's moments are merged by
        :meth:`update`, for the units it uses."""
        if self.method == "betting":
            width = self.bounds[1] - self.bounds[0]
            x = np.clip((units + width) / (2.0 * width), 0.0, 1.0)
            self._state, low, high = cs.betting_update(self._state, x)
            return 2.0 * width * low - width, 2.0 * width * high - width, {}
        if self._kind == "ratio":
            self._state, est, sd, low, high = cs.ratio_path(
                self._state, units, self._rho2, self._alpha, self.alternative)
            return low, high, {"estimate": est, "sd": sd}
        if self._kind == "pooled":
            return self._pooled_path(units)
        _, low, high = cs.asymptotic_ends(self._moments, units, self._rho2, self._alpha,
                                          self.alternative)
        return low, high, {}

    def _pooled_path(self, units: np.ndarray):
        """:func:`~pairboot.stats.sequences.pooled_path` with the metric's value (its
        convention where undefined, for the estimate) and gradient (analytic, else
        central differences); ``"refused"``: the first unit, from ``min_units`` on, where
        central differences are not finite though the metric's values are (it is not
        differentiable there)."""
        m = self._metric
        analytic = m.gradient is not None
        gradient = m.gradient if analytic else self._central_gradient
        self._state, est, sd, low, high, defined, smooth = cs.pooled_path(
            self._state, units, m.formula, gradient, self._rho2, self._alpha,
            self.alternative)
        if not np.isnan(m.undefined):
            est = np.where(np.isfinite(est), est, m.undefined)
        out = {"estimate": est, "sd": sd}
        t = self._state[0] - units.shape[0] + np.arange(1, units.shape[0] + 1)
        bad = (np.flatnonzero(defined & ~smooth & (t >= self.min_units)) if not analytic
               else ())  # (before the rule may stop, the whole line: the first units'
        if len(bad):    # sums often sit on a boundary, a count of 0)
            out["refused"] = int(bad[0])
        return low, high, out

    def _central_gradient(self, at: np.ndarray) -> np.ndarray:
        """Central differences of the metric's formula at the mean statistics ``at``
        (:func:`pairboot.metrics.base.central_gradient`: steps relative to each sum)."""
        typical = np.abs(at).max(axis=0)

        def phi(S):
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                return np.asarray(self._metric.formula(S), dtype=float)

        return central_gradient(phi, np.array(at, dtype=float), range(at.shape[1]), typical)

    def _not_differentiable(self, t: int, position: int) -> InputError:
        error = InputError(
            f"metric {self.metric!r}: its gradient by central differences is not finite "
            f"at the summed statistics after {t} units, where its value is: the delta "
            "method needs a metric differentiable at the data's sums (give the "
            "pairboot.Metric its `gradient`)", param="metric")
        error.position = position  # (the update's item at fault: watch names its record)
        return error

    def _first_stop(self, low, high, t):
        """The first unit at which the rule stops: ``(index, why, verdict)``, or None."""
        verdicts = self.verdicts(low, high)
        allowed = t >= self.min_units
        for k in range(t.size):  # (bounded: the batch's units)
            if allowed[k] and verdicts[k] != "undecided":
                return k, "decision", verdicts[k]
            if self.budget is not None and t[k] >= self.budget:
                return k, "budget", "undecided"
        return None

    def verdicts(self, low, high) -> list[str]:
        """The verdict of each interval ``(low[i], high[i])`` of B - A under this
        rule's hypothesis and margin (``"undecided"`` when it decides nothing)."""
        low, high = np.atleast_1d(low), np.atleast_1d(high)
        if self.lower_is_better:
            low, high = -high, -low
        m = self.margin
        rules: list[tuple[str, np.ndarray]]
        if self.hypothesis == "difference":
            rules = [("better", low > 0), ("worse", high < 0)]
            if m is not None and m > 0:
                rules.append(("futile", (low > -m) & (high < m)))
        elif self.hypothesis == "non-inferiority":
            rules = [("non-inferior", low > -m), ("inferior", high < -m)]
        elif self.hypothesis == "superiority":
            rules = [("better-by-margin", low > m), ("futile", high < m)]
        else:
            rules = [("equivalent", (low > -m) & (high < m)),
                     ("different", (low > m) | (high < -m))]
        out = ["undecided"] * low.size
        for name, hit in reversed(rules):  # (the first rule wins)
            for i in np.flatnonzero(hit):
                out[i] = name
        return out

    # --- the reading ----------------------------------------------------------------
    @property
    def stopped(self) -> bool:
        """The rule has stopped (decided, or the budget spent)."""
        return self._stop is not None

    @property
    def result(self) -> SequentialResult:
        """Where the sequence stands now (or where it stopped)."""
        n = self._n_units
        if self._kind != "mean":
            mean = self._last.get("estimate", math.nan)
            sd = self._last.get("sd", math.nan)
        else:
            _, mean, m2 = self._moments
            sd = math.sqrt(max(m2, 0.0) / (n - 1)) if n >= 2 else math.nan
        low, high = self._last["low"], self._last["high"]
        if self.bounds is not None:
            w = self.bounds[1] - self.bounds[0]
            low, high = max(low, -w), min(high, w)
        fixed = ConfidenceInterval(math.nan, math.nan)
        ratio = math.nan
        if n >= 2 and math.isfinite(sd):
            two = self.alternative == "two-sided"
            z = NormalDist().inv_cdf(1 - self._alpha / (2 if two else 1))
            half = z * sd / math.sqrt(n)
            fixed = ConfidenceInterval(mean - half if self.alternative != "less" else -math.inf,
                                       mean + half if self.alternative != "greater" else math.inf)
            seq_half = {"two-sided": (high - low) / 2, "greater": mean - low,
                        "less": high - mean}[self.alternative]
            ratio = seq_half / half if half > 0 and math.isfinite(seq_half) else math.nan
        stop = self._stop or {}
        return SequentialResult(
            verdict=stop.get("verdict", "undecided"),
            decided=stop.get("by") == "decision", stopped_by=stop.get("by"),
            estimate=mean if n else math.nan,
            confidence_sequence=ConfidenceInterval(low, high), fixed_interval=fixed,
            width_ratio=ratio, n_units=n, n_items=self._n_items, n_unused=self._n_unused,
            unit="groups" if self._seen_groups else "items", method=self.method,
            bounds=self.bounds, n_target=self.n_target, budget=self.budget,
            confidence_level=self.confidence_level, alternative=self.alternative,
            hypothesis=self.hypothesis, margin=self.margin,
            lower_is_better=self.lower_is_better, version=__version__, metric=self.metric)


def _pooled_metric(metric) -> Metric | str | None:
    """None for the mean; :data:`~pairboot.metrics.RATIO` for a ratio; else the pooled
    metric (a name whose size follows the data, ``"bleu"``, is resolved at the first
    update).  A metric without summed statistics (``pass@k``) is refused."""
    if isinstance(metric, str) and metric.strip().lower() == "mean" or metric is MEAN:
        return None
    if trials_metric(metric) is not None:
        raise InputError(f"`metric` {metric!r} is not a formula on summed per-item "
                         "statistics (it reads k trials per item): its per-item values "
                         "are a sequence's scores with `metric='mean'`", param="metric")
    if isinstance(metric, Metric):
        return metric
    if not isinstance(metric, str):
        raise InputError(f"`metric` must be a metric's name or a pairboot.Metric, got "
                         f"{type(metric).__name__}", param="metric")
    stats = builtin_stats(metric)  # (an unknown name: one line naming the metric)
    if stats is None or metric.strip().lower() == "bleu":
        return metric.strip().lower().replace("-", "_")
    return resolve_metric(metric, len(stats))

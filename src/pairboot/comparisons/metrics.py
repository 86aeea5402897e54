"""compare_metrics(): several metrics of one comparison (quality, cost, latency, a
violation rate, a pooled F1) on the same draws of the items.

Each metric is a pair of "systems" of one family, ``"A metric"`` and ``"B metric"``,
whose statistics sit side by side in every unit (:func:`pairboot.metrics.joint.joint_metric`),
so one draw of the units serves every metric of both systems and the family's engine
(:func:`pairboot.core.family.family_result`) reads every metric's difference off the same
replicates.  A lower-is-better metric's comparison is drawn as ``A - B`` (B's gain), so
that every row of the family tests "B is better" on the same side; the rows are turned
back to ``B - A`` on the metric's own scale when the answer is assembled.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Callable, Mapping

import numpy as np

from pairboot.comparisons.many import FAMILY_SCORE
from pairboot.core.design import as_floats
from pairboot.core.family import family_result
from pairboot.core.pipeline import resample
from pairboot.core.score import refuse_score
from pairboot.errors import InputError
from pairboot.inputs.pairing import pair_items
from pairboot.metrics import Metric, resolve_metric
from pairboot.metrics.joint import (
    Criterion,
    criterion_columns,
    criterion_of,
    joint_metric,
    padded,
)
from pairboot.options import HYPOTHESES, check_options, hypothesis_sides
from pairboot.progress import Progress
from pairboot.results.compare import ConfidenceInterval
from pairboot.results.metrics import MetricRow, MetricsResult
from pairboot.stats.intervals import p_value

_COLUMN = "pairboot.column.{}"
"""A column's name in the frames handed to the pairing (exact: no other name holds it)."""


def compare_metrics(
    a,
    b,
    *,
    metrics: Mapping[str, str | Metric | Criterion],
    names: tuple[str, str] = ("A", "B"),
    hypothesis: str = "difference",
    correction: str = "none",
    groups=None,
    group_weighting: str = "items",
    strata=None,
    strata_weights=None,
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    method: str = "percentile",
    seed=None,
    resampling: str = "classic",
    ids=None,
    backend: str = "auto",
    progress: Callable[[int], None] | Progress | None = None,
) -> MetricsResult:
    """Several metrics of systems A and B (``B - A`` each), from one bootstrap of the
    items: every metric's difference with its interval and p-values, each in its own
    direction and against its own margin, and their joint resampled distribution.

    Parameters
    ----------
    a, b : DataFrame or mapping
        Each system's per-item columns (a pandas or polars DataFrame, or a mapping
        ``column -> values``), paired by position, or joined on ``ids`` when it names a
        column of both DataFrames.
    metrics : mapping of str to str, Metric or Criterion
        The metrics, by name, in the rows' order: a metric's name or a
        :class:`pairboot.Metric` (higher is better, no margin, the column of that name
        for a metric of one statistic, the metric's own statistic columns otherwise),
        or a :class:`pairboot.Criterion` with its columns, direction and margin:
        ``{"correct": "mean", "cost": Criterion(lower_is_better=True, margin=0.01),
        "f1": Criterion("f1", columns=("tp", "fp", "fn"))}``.
    names : (str, str)
        The systems' names in the report.
    hypothesis : {"difference", "non-inferiority", "superiority", "equivalence"}
        What every row tests, each against its own margin on its own better side
        (every metric needs a margin for the last three).  Each row also carries the
        one-sided p-values of "better", "non-inferior" and "better by the margin"
        (:class:`pairboot.results.metrics.MetricRow`), whatever the hypothesis.
    correction : {"none", "max-t", "holm", "bonferroni", "bh", "by"}, default "none"
        Across the metrics' rows.  "none": each row is its own test (what a gate of
        rows that must all hold needs: an intersection-union test is at the level
        without a correction); the others as for :func:`pairboot.compare_many`, on the
        metrics' joint draws (max-t: the largest standardized root across metrics).
    groups, group_weighting, strata, strata_weights, n_resamples, confidence_level,
    method, seed, resampling, ids, backend, progress
        As for :func:`pairboot.compare`.  With the same seed, a row draws the same units
        as ``compare()`` of that metric alone wherever the units are drawn by index (not
        the exact multinomial path of a few distinct rows, such as 0/1 scores alone):
        the same estimate and, to rounding, the same interval.

    Returns
    -------
    MetricsResult
        ``result["cost"]`` is a metric's row; ``result.bootstrap_distribution`` the
        resampled differences of every metric, column by column, on the same draws.

    Examples
    --------
    >>> import numpy as np, pairboot
    >>> rng = np.random.default_rng(0)
    >>> q = rng.random(400)
    >>> a = {"quality": q, "cost": rng.gamma(2.0, 0.01, 400)}
    >>> b = {"quality": q + rng.normal(0.05, 0.1, 400), "cost": a["cost"] * 1.01}
    >>> res = pairboot.compare_metrics(a, b, seed=1, n_resamples=2000, metrics={
    ...     "quality": "mean",
    ...     "cost": pairboot.Criterion(lower_is_better=True, margin=0.002)})
    >>> [(r.name, r.verdict) for r in res.rows]
    [('quality', 'better'), ('cost', 'worse')]
    >>> res.bootstrap_distribution.shape
    (2000, 2)
    """
    criteria = _criteria(metrics)
    for name, crit in criteria.items():
        if hypothesis in HYPOTHESES[1:] and crit.margin is None:
            raise InputError(f"`hypothesis={hypothesis!r}` tests every metric against "
                             f"its margin: `metrics[{name!r}]` has none", param="metrics")
    given = max((c.margin for c in criteria.values() if c.margin is not None), default=None)
    args, data = check_options(dict(locals(), margin=given), family=True)
    refuse_score(args.method, "for several metrics", FAMILY_SCORE)
    na, nb = _names(names)
    for crit in criteria.values():
        if crit.margin is not None:
            hypothesis_sides(args.hypothesis, crit.margin, "two-sided", False,
                             args.confidence_level)
    columns = {name: criterion_columns(name, crit) for name, crit in criteria.items()}
    needed = list(dict.fromkeys(c for cols in columns.values() for c in cols))
    xa, xb, pairing = _paired_columns(a, b, needed, data, (na, nb))
    resolved, stats_a, stats_b = [], [], []
    for name, crit in criteria.items():
        where = [needed.index(c) for c in columns[name]]
        metric = _resolve(name, crit, len(where))
        stats_a.append(_prepared(metric, xa[:, where], name, "a"))
        stats_b.append(_prepared(metric, xb[:, where], name, "b"))
        _check_margin(name, crit, metric, stats_a[-1], stats_b[-1])
        resolved.append(metric)
    widths = [s.shape[1] for s in stats_a]
    joint = joint_metric(list(criteria), resolved, widths)
    systems, system_names, targets = [], [], []
    for j, (name, crit) in enumerate(criteria.items()):
        systems += [padded(stats_a[j], j, widths), padded(stats_b[j], j, widths)]
        system_names += [f"{na} {name}", f"{nb} {name}"]
        targets.append((2 * j + 1, 2 * j) if crit.lower_is_better else (2 * j, 2 * j + 1))
    if len(set(system_names)) != len(system_names):  # ("x" "y z" and "x y" "z")
        raise InputError(f"`names` {names!r} and the metrics' names run together "
                         "(a system's name, a space, a metric's): rename one",
                         param="names")
    del stats_a, stats_b, xa, xb
    data = dataclasses.replace(data, metric=joint, names=tuple(system_names), **pairing)
    run = resample(systems, args, data, family=True)
    del systems
    margins = [c.margin for c in criteria.values()]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimates = []
        family = family_result(run, targets, margins=margins, estimates_into=estimates,
                               turned=[c.lower_is_better for c in criteria.values()])
    # (no correction is this answer's default, not an oversight: its note is left out)
    kept = [w for w in caught if not str(w.message).endswith(_UNCORRECTED)]
    for w in kept:
        warnings.warn(w.message, w.category, stacklevel=2)
    family = dataclasses.replace(family, warnings=tuple(str(w.message) for w in kept))
    return _answer(run, family, estimates, criteria, columns, resolved, (na, nb))


_UNCORRECTED = "use `correction='max-t'`"
"""How the note on a family of many uncorrected rows ends
(:func:`pairboot.core.corrections.decide`)."""


def _criteria(metrics) -> dict[str, Criterion]:
    if not isinstance(metrics, Mapping) or not metrics:
        raise InputError("`metrics` must be a non-empty mapping from a metric's name to "
                         "its metric or pairboot.Criterion, e.g. {'correct': 'mean', "
                         "'cost': Criterion(lower_is_better=True)}", param="metrics")
    return {name: criterion_of(name, spec) for name, spec in metrics.items()}


def _names(names) -> tuple[str, str]:
    if (isinstance(names, str) or len(tuple(names)) != 2
            or len({str(n) for n in names}) != 2):
        raise InputError(f"`names` must be two different names, A's then B's, got "
                         f"{names!r}", param="names")
    return str(names[0]), str(names[1])


def _resolve(name: str, crit: Criterion, n_columns: int) -> Metric:
    try:
        return resolve_metric(crit.metric, n_columns)
    except InputError as exc:
        raise InputError(f"`metrics[{name!r}]`: {exc}", param="metrics") from None


def _prepared(metric: Metric, values: np.ndarray, name: str, which: str) -> np.ndarray:
    try:
        return metric.per_item(values)
    except InputError as exc:
        raise InputError(f"`{which}`, metric {name!r}: {exc}", param=which) from None


def _check_margin(name: str, crit: Criterion, metric: Metric, xa, xb) -> None:
    """A margin no difference of the metric can reach is refused (as compare()'s):
    beyond a mean's range of scores, or a bounded metric's span."""
    if crit.margin is None:
        return
    if metric.mean_like and xa.shape[1] == 2:
        both = np.concatenate([xa[:, 0], xb[:, 0]])
        span, what = float(both.max() - both.min()), "the scores' range"
    elif metric.span is not None:
        span, what = float(metric.span), f"{metric.name}'s range"
    else:
        return
    if crit.margin > span:
        raise InputError(f"`metrics[{name!r}]` margin {crit.margin:g} is larger than {what} "
                         f"({span:g}): no difference between the systems can reach it",
                         param="metrics")


def _table(x, which: str, needed: list[str], ids) -> tuple[object, list]:
    """A system's needed columns, renamed (:data:`_COLUMN`), as a frame of its own type
    (the id column kept), or as an array from a mapping; and its column names."""
    if isinstance(x, Mapping):
        have = [str(k) for k in x]
        by_name = {str(k): k for k in x}
    elif hasattr(x, "columns") and hasattr(x, "__getitem__"):
        have = [str(c) for c in x.columns]
        by_name = {str(c): c for c in x.columns}
    else:
        raise InputError(f"`{which}` must be a DataFrame or a mapping from a column's name "
                         f"to its per-item values, got {type(x).__name__}", param=which)
    missing = [c for c in needed if c not in by_name]
    if missing:
        raise InputError(f"`{which}` has no column {missing[0]!r} (columns: "
                         f"{', '.join(map(repr, have[:12]))}{', ...' if len(have) > 12 else ''})",
                         param=which)
    if isinstance(x, Mapping):
        if isinstance(ids, str):
            raise InputError("`ids` as a column name joins two DataFrames; with mappings give "
                             "the ids themselves, one per item", param="ids")
        cols = []
        for c in needed:
            v = as_floats(x[by_name[c]], which)
            if v.ndim != 1:
                raise InputError(f"`{which}[{c!r}]` must be one value per item (1-D), got "
                                 f"shape {v.shape}", param=which)
            cols.append(v)
        if len({len(v) for v in cols}) > 1:
            raise InputError(f"`{which}`'s columns have different lengths "
                             f"({', '.join(str(len(v)) for v in cols)})", param=which)
        return np.column_stack(cols), have
    frame = {_COLUMN.format(j): x[by_name[c]] for j, c in enumerate(needed)}
    if isinstance(ids, str) and ids in by_name:
        frame = {ids: x[by_name[ids]], **frame}
    return type(x)(frame), have


def _paired_columns(a, b, needed: list[str], data, names) -> tuple:
    """The needed columns of A and B as float arrays (n, len(needed)), their items
    paired (:func:`pairboot.inputs.pairing.pair_items`: by position, or joined on the
    ``ids`` column), each value finite; and the design's labels and ids."""
    ta, _ = _table(a, "a", needed, data.ids)
    tb, _ = _table(b, "b", needed, data.ids)
    stand_in = Metric("columns", tuple(_COLUMN.format(j) for j in range(len(needed))),
                      lambda S: S[..., 0])
    (va, vb), groups, strata, ids = pair_items(
        [ta, tb], ("a", "b"), groups=data.groups, strata=data.strata, ids=data.ids,
        metric=stand_in)
    out = []
    for v, which in ((va, "a"), (vb, "b")):
        x = as_floats(v, which).reshape(len(v), -1)
        bad = ~np.isfinite(x)
        if bad.any():
            i, j = (int(k) for k in np.argwhere(bad)[0])
            raise InputError(f"`{which}` column {needed[j]!r} has a non-finite value "
                             f"({x[i, j]}) at item {i}; {int(bad.any(axis=1).sum())} "
                             "item(s) are affected", param=which)
        out.append(x)
    if len(out[0]) != len(out[1]):
        raise InputError(f"`a` has {len(out[0])} items and `b` {len(out[1])}: the metrics "
                         "of a paired comparison score the same items", param="b")
    if len(out[0]) == 0:
        raise InputError("`a` is empty: there are no items to compare", param="a")
    return out[0], out[1], dict(groups=groups, strata=strata, ids=ids)


def _answer(run, family, estimates, criteria, columns, resolved, names) -> MetricsResult:
    """The rows turned back to ``B - A`` on each metric's scale, with their one-sided
    p-values and the joint replicates (``estimates``: the family's rows')."""
    args = run.args
    rows, replicates = [], []
    for k, ((name, crit), c) in enumerate(zip(criteria.items(), family.comparisons)):
        e = estimates[k]
        sign = -1.0 if crit.lower_is_better else 1.0
        replicates.append(sign * e.replicates)
        defined = not math.isnan(c.p_value)

        def one_sided(boundary, e=e, defined=defined):  # (on B's gain: "greater")
            return float(p_value(args.method, e.boot, "greater", boundary)) if defined \
                else math.nan

        m = crit.margin
        rows.append(MetricRow(
            name=name, metric=resolved[k].name, columns=columns[name],
            lower_is_better=crit.lower_is_better, margin=m,
            estimate=sign * c.estimate + 0.0,
            confidence_interval=_turned(c.confidence_interval, sign),
            marginal_interval=_turned(c.marginal_interval, sign),
            standard_error=c.standard_error, p_value=c.p_value, p_adjusted=c.p_adjusted,
            significant=c.significant, verdict=c.verdict, p_better=one_sided(0.0),
            p_non_inferior=None if m is None else one_sided(-m),
            p_better_by_margin=None if m is None else one_sided(m),
            score_a=family.systems[f"{names[0]} {name}"],
            score_b=family.systems[f"{names[1]} {name}"], note=c.note))
    design = run.design
    return MetricsResult(
        rows=tuple(rows), names=names, bootstrap_distribution=np.column_stack(replicates),
        correction=family.correction if len(rows) > 1 else "none",
        critical_value=family.critical_value, hypothesis=args.hypothesis,
        confidence_level=args.confidence_level, n_resamples=args.n_resamples,
        seed=run.seed, method=args.method, n_items=design.n_items,
        n_groups=design.n_groups, n_strata=family.n_strata, engine=run.engine,
        resampling=args.resampling, version=family.version, warnings=family.warnings)


def _turned(interval: ConfidenceInterval, sign: float) -> ConfidenceInterval:
    """``interval`` of B's gain as ``B - A`` (negated and swapped when lower is better)."""
    if sign > 0:
        return interval
    return ConfidenceInterval(-interval.high + 0.0, -interval.low + 0.0)

"""The judge's and the gold columns of a prediction-powered comparison beyond one score
column per system (:mod:`pairboot.cli.ppi` reads the plain ones):

- a pooled metric's statistics (``--metric f1``, ``--stats tp,fp,fn``): the judge's
  columns are found as ``compare`` finds a system's (one file: ``--a`` and ``--b`` name
  the systems, their columns ``{a}_{stat}``, ``{stat}_{a}``, ...; a file per system:
  the statistics' own columns), and the gold's the same way, ``--gold-a``/``--gold-b``
  or ``--gold-score`` in the place of a system's name (``{gold}_{stat}``, ...);
- several judge calls per item (``--runs samples --run COL --id COL``): one row per
  item and call, as ``compare`` reads samples (:mod:`pairboot.cli.runs`); the gold score
  is the item's, on each of its rows or on one of them (empty on the others), and rows
  of an item that disagree on it are refused.

A gold row is all of an item's statistics or none of them; an item is labelled for both
systems or for neither.  Each refusal names the file, the row or the id, and the column.
"""

from __future__ import annotations

import warnings

import numpy as np

import pairboot.io as pbio
from pairboot.cli.stats import find_system_column, metric_option, stat_names
from pairboot.errors import InputError

__all__ = ["gold_stats", "judge_gold_columns", "read_runs", "read_stacked"]


def gold_stats(args) -> list[str] | None:
    """The statistics' columns of a pooled metric (``--stats``, or the metric's own
    names when it reads several), in the metric's order; None for one score column per
    system (the mean, or a metric of one statistic without ``--stats``).  Sets
    ``args.metric_object``."""
    metric = getattr(args, "metric", "mean")
    args.metric_object = metric_option(metric)
    given = getattr(args, "stats", None)
    if given is None and metric == "mean":
        return None
    if given is not None and getattr(args, "score", None) is not None:
        raise InputError("--score names the judge's one column; with --stats the judge's "
                         "columns are the statistics' (and --gold-score the gold's prefix)")
    stats = stat_names(args)
    if given is None and (stats is None or len(stats) == 1):
        return None
    return list(stats)


def judge_gold_columns(table, systems: tuple[str, ...], stats: list[str] | None
                       ) -> list[list[str]]:
    """Each of ``systems``' columns in ``table``: itself (one column), or the column of
    every statistic found as ``compare`` finds a system's
    (:func:`pairboot.cli.stats.find_system_column`)."""
    if stats is None:
        return [[s] for s in systems]
    return [[find_system_column(table, s, st) for st in stats] for s in systems]


def read_stacked(table, columns: list[str], *, missing: bool = False) -> np.ndarray:
    """The columns as items (one column) or items x statistics; ``missing``: the gold's,
    NaN where empty, a row empty in some columns and not in others refused."""
    values = np.column_stack([pbio.numeric_column(table, c, missing=missing)
                              for c in columns])
    if missing and len(columns) > 1:
        empty = np.isnan(values)
        partial = empty.any(axis=1) & ~empty.all(axis=1)
        if partial.any():
            i = int(np.argmax(partial))
            column = columns[int(np.argmax(empty[i]))]
            raise InputError(f"{table.path}, {table.where(i)}: the gold statistics are "
                             f"given in part (column {column!r} is empty): give all of an "
                             "item's statistics, or none where it is unlabelled")
    return values[:, 0] if len(columns) == 1 else values


def _item_gold(values: np.ndarray, ids, path: str, columns: list[str]) -> np.ndarray:
    """items x calls (x statistics) of gold cells -> the items' gold (items, or items x
    statistics): the value its rows give, NaN where none does; rows that disagree, or a
    row of statistics given in part, refused naming the id and the column."""
    cube = values.reshape(values.shape[0], values.shape[1], -1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (an unlabelled item: all NaN)
        low, high = np.nanmin(cube, axis=1), np.nanmax(cube, axis=1)
    differ = np.isfinite(low) & (low != high)
    if differ.any():
        i, s = (int(x[0]) for x in np.nonzero(differ))
        raise InputError(f"{path}, id {ids[i]!r}, column {columns[s]!r}: the item's rows "
                         f"give two gold scores ({low[i, s]:g} and {high[i, s]:g}): one "
                         "gold score per item, on each of its rows or on one")
    empty = np.isnan(low)
    partial = empty.any(axis=1) & ~empty.all(axis=1)
    if partial.any():
        i = int(np.argmax(partial))
        column = columns[int(np.argmax(empty[i]))]
        raise InputError(f"{path}, id {ids[i]!r}: the gold statistics are given in part "
                         f"(column {column!r} is empty on all the item's rows): give all "
                         "of an item's statistics, or none where it is unlabelled")
    return low[:, 0] if low.shape[1] == 1 else low


def _split(values: np.ndarray, k: int):
    """An items x calls x (judge's k columns + gold's k) table -> the judge's items x
    calls (x k) and the gold cells (items x calls x k)."""
    judge, gold = values[..., :k], values[..., k:]
    return (judge[..., 0] if k == 1 else judge), gold


def read_runs(args, stats: list[str] | None):
    """``--runs samples --run COL --id COL`` with gold labels: the judge's items x calls
    (x statistics) tables of A and B, the items' gold (NaN where unlabelled), the
    groups and strata (or None), the files read, the ids and the columns read."""
    if args.runs != "samples" or args.run is None or args.id is None:
        raise InputError("the judge's calls with gold labels need --runs samples, --run "
                         "COL (the judge's call of every row) and --id COL (the item of "
                         "every row)")
    files = list(args.files)
    tables = [pbio.read_table(f) for f in files]
    if args.gold_score is not None:  # (a file per system: its judge's and gold columns)
        judge = [args.score or "score"] if stats is None else stats
        gold = judge_gold_columns(tables[0], (args.gold_score,), stats)[0]
        for t in tables[1:]:
            t.check_columns(gold)
        found = pbio.runs_per_system({"a": tables[0], "b": tables[1]}, id=args.id,
                                     run=args.run, score=judge + gold, kind="samples",
                                     group=args.group, stratum=args.stratum)
        gold_columns = (gold, gold)
        paths = tuple(t.path for t in tables)
        columns = (*judge, *gold)
    else:
        table = tables[0]
        cols = judge_gold_columns(table, (args.a, args.b, args.gold_a, args.gold_b), stats)
        found = pbio.runs_table(table, id=args.id, run=args.run,
                                score={"a": cols[0] + cols[2], "b": cols[1] + cols[3]},
                                kind="samples", group=args.group, stratum=args.stratum)
        gold_columns = (cols[2], cols[3])
        paths = (table.path,) * 2
        columns = tuple(c for cs in cols for c in cs)
    k = 1 if stats is None else len(stats)
    judges, golds = [], []
    for key, path, gcols in zip(("a", "b"), paths, gold_columns):
        j, g = _split(found.values[key], k)
        judges.append(j)
        golds.append(_item_gold(g, found.ids, path, gcols))
    one = np.isnan(golds[0]).reshape(len(found.ids), -1)[:, 0] != np.isnan(
        golds[1]).reshape(len(found.ids), -1)[:, 0]
    if one.any():
        i = int(np.argmax(one))
        empty = 1 if np.isnan(golds[1].reshape(len(found.ids), -1)[i, 0]) else 0
        raise InputError(f"{paths[empty]}, id {found.ids[i]!r}: no gold score in column "
                         f"{gold_columns[empty][0]!r}, but {paths[1 - empty]} has one in "
                         f"{gold_columns[1 - empty][0]!r} for this item: label both "
                         "systems' outputs of an item, or neither")
    labels = [None if v is None else np.asarray(list(v), dtype=object)
              for v in (found.groups, found.strata)]
    return (judges, golds, labels[0], labels[1], tuple(dict.fromkeys(paths)),
            list(found.ids), columns)

"""``pairboot compare --run COL --runs seeds|samples``: long tables of several runs.

One row per item and run: one file with the systems' columns (``--a`` and ``--b``, or
``--systems`` for a family) or a file per system (``--score``; more than two files, or a
family option, make a family), each with the item id (``--id``) and the run (``--run``).
The rows become each system's items x runs table, items in the first file's order, runs
in order of first appearance; for ``seeds`` every item must have every run (the message
names the first missing cell), for ``samples`` a missing cell is NaN.  Files may have
different runs, unless ``--paired-runs`` (then every file must have the first file's run
labels, and runs are matched by them).  ``--group`` and ``--stratum`` name columns of
the first file whose value is the same on all of an item's rows.  A family goes to
:func:`pairboot.compare_many` with ``runs=``.
"""

from __future__ import annotations

import os

import numpy as np

import pairboot.io as pbio
from pairboot.cli.inputs import (
    ManyInputs,
    file_systems,
    find_system_column,
    report_context,
    stat_names,
    strata_weights_arg,
    system_columns,
)
from pairboot.errors import InputError
from pairboot.metrics import resolve_metric

__all__ = ["load_runs", "load_runs_many", "samples_note"]


def _pivot(table, id_col: str, run_col: str, score_cols: list[str], kind: str,
           order: dict | None):
    """Per score column an items x runs table (runs in order of first appearance); the
    items' order (``order``, when given: the first file's); the runs' labels; every
    row's item (its index in the order)."""
    table.check_columns([id_col, run_col, *score_cols])
    ids = [str(v) if v is not None else None for v in pbio.label_column(table, id_col)]
    labels = [str(v) if v is not None else None for v in pbio.label_column(table, run_col)]
    for name, col in ((id_col, ids), (run_col, labels)):
        if None in col:
            i = col.index(None)
            raise InputError(f"{table.path}, {table.where(i)}, column {name!r}: missing value")
    if order is None:
        order = {}
        for v in ids:
            order.setdefault(v, len(order))
    runs = list(dict.fromkeys(labels))
    run_index = {r: j for j, r in enumerate(runs)}
    # samples: an empty cell is a sample the system does not have (NaN)
    values = [pbio.numeric_column(table, c, missing=kind == "samples") for c in score_cols]
    out = [np.full((len(order), len(runs)), np.nan) for _ in score_cols]
    seen = np.zeros((len(order), len(runs)), dtype=bool)
    for row, (item, run) in enumerate(zip(ids, labels)):
        i, j = order.get(item), run_index[run]
        if i is None:
            raise InputError(f"{table.path}, {table.where(row)}: item {item!r} is not in the "
                             "first file")
        if seen[i, j]:
            raise InputError(f"{table.path}, {table.where(row)}: item {item!r}, run {run!r} "
                             "appears twice")
        seen[i, j] = True
        for table_out, v in zip(out, values):
            table_out[i, j] = v[row]
    if kind == "seeds" and not seen.all():
        i, j = np.argwhere(~seen)[0]
        item = next(k for k, v in order.items() if v == i)
        raise InputError(f"{table.path}: item {item!r} has no score for run {runs[j]!r} "
                         f"({int((~seen).sum())} cell(s) missing); with --runs seeds every "
                         "run scores every item")
    return out, order, runs, [order[item] for item in ids]


def _check(args) -> None:
    """What every long table of runs needs, and the options it cannot honour."""
    if args.runs is None:
        raise InputError("--run needs --runs seeds or --runs samples")
    if args.id is None:
        raise InputError("--run needs --id (the item of every row)")
    for flag, given in (("--labels", args.labels), ("--common-items", args.common_items)):
        if given:
            raise InputError(f"{flag} with --run: long tables of runs do not take it yet")


def _item_labels(table, column: str, rows: list[int], order: dict) -> list[str]:
    """Every item's label in ``column`` (a group or stratum), which must be the same on
    all of the item's rows (runs); ``rows``: every row's item, from :func:`_pivot`."""
    table.check_columns([column])
    values = pbio.label_column(table, column)
    items = list(order)
    out: list = [None] * len(order)
    for row, (i, value) in enumerate(zip(rows, values)):
        if value is None:
            raise InputError(f"{table.path}, {table.where(row)}, column {column!r}: missing "
                             "value")
        item, label = items[i], str(value)
        if out[i] is None:
            out[i] = label
        elif out[i] != label:
            raise InputError(f"{table.path}, {table.where(row)}, column {column!r}: item "
                             f"{item!r} is {label!r} here but {out[i]!r} on an earlier row "
                             "(an item's group and stratum are the same in every run)")
    return out


def _design(args, table, rows: list[int], order: dict) -> tuple[list | None, list | None]:
    """The items' groups and strata (``--group``, ``--stratum``) from the first table."""
    groups = None if args.group is None else _item_labels(table, args.group, rows, order)
    strata = (None if args.stratum is None
              else _item_labels(table, args.stratum, rows, order))
    return groups, strata


def _pooled(args) -> bool:
    """Whether the metric pools statistics (a metric such as F1): then every system's
    table is items x runs x statistics."""
    k = len(stat_names(args) or ["score"])
    return not resolve_metric(args.metric_object, k).mean_like


def _stacked(values: list, k: int, pooled: bool) -> list:
    """Per system its items x runs table, or items x runs x statistics (``k`` columns
    each, in order) for a pooled metric."""
    if not pooled:
        return values
    return [np.ascontiguousarray(np.stack(values[i:i + k], axis=2))
            for i in range(0, len(values), k)]


def _per_file(args, files: list[str]):
    """A file per system: each one's items x runs table (items x runs x statistics for a
    pooled metric; the first file's items and, under --paired-runs, its runs' labels),
    the items' order, the tables read, and the first table's rows' items."""
    stats = stat_names(args) or ["score"]
    pooled = _pooled(args)
    tables = [pbio.read_table(f) for f in files]
    first, order, runs, rows = _pivot(tables[0], args.id, args.run, stats, args.runs, None)
    (first,) = _stacked(first, len(stats), pooled)
    values = [first]
    for path, table in zip(files[1:], tables[1:]):
        v, _, own, _ = _pivot(table, args.id, args.run, stats, args.runs, order)
        (v,) = _stacked(v, len(stats), pooled)
        if args.paired_runs:  # run r of every file: the runs with the first file's labels
            if set(own) != set(runs):
                raise InputError(f"{path} has the runs {', '.join(map(repr, own))} but "
                                 f"{files[0]} {', '.join(map(repr, runs))}: --paired-runs "
                                 "matches runs by label, so every file needs the same runs")
            v = np.ascontiguousarray(v[:, [own.index(r) for r in runs]])
        missing = len(order) - int((~np.isnan(v)).reshape(len(v), -1).any(axis=1).sum())
        if missing:
            raise InputError(f"{path} scores {len(order) - missing} of the {len(order)} "
                             f"items of {files[0]}: the files must score the same items")
        values.append(v)
    return values, order, tables, rows


def samples_note(tables) -> tuple[str, ...]:
    """For ``--runs samples``: what the items' scores are, and how many samples they have
    (the family's report says nothing else about the runs)."""
    counts = [int(c) for t in tables for c in (~np.isnan(t)).sum(axis=1)]
    spread = f"{min(counts)}" if min(counts) == max(counts) else \
        f"{min(counts)} to {max(counts)}"
    return (f"--runs samples: each system's score on an item is the mean of its samples "
            f"({spread} per item and system), and the items' means are compared",)


def load_runs(args):
    """``(a, b, ids, groups, strata, context)``: the systems' items x runs tables of the
    command line, and the items' groups and strata (None without them)."""
    _check(args)
    files = list(args.files)
    if len(files) == 1:
        if args.a is None or args.b is None:
            raise InputError("with one file, give --a COL and --b COL")
        first = pbio.read_table(files[0])
        stats = stat_names(args)
        columns = [args.a, args.b] if stats is None else [
            find_system_column(first, system, st) for system in (args.a, args.b)
            for st in stats]
        values, order, _, rows = _pivot(first, args.id, args.run, columns, args.runs,
                                        None)
        a, b = _stacked(values, 1 if stats is None else len(stats), _pooled(args))
        names = (args.a, args.b)
    elif len(files) == 2:
        (a, b), order, tables, rows = _per_file(args, files)
        first = tables[0]
        names = tuple(os.path.basename(f) for f in files)
    else:
        raise InputError("--run compares two systems: one file with --a and --b, or two")
    groups, strata = _design(args, first, rows, order)
    context = report_context(args, stat_names(args), name_a=names[0], name_b=names[1],
                       files=tuple(files), layout=f"one row per item and run ({args.run!r})",
                       notes=())
    return a, b, list(order), groups, strata, context


def load_runs_many(args) -> ManyInputs:
    """A family of systems with several runs each: one file with ``--systems`` (a column
    per system) or a file per system (``--score``), as :class:`ManyInputs` whose values
    are the systems' items x runs tables."""
    _check(args)
    files = list(args.files)
    if args.a is not None or args.b is not None:
        raise InputError("--a/--b name two systems; with several, give --systems COLS or "
                         "a file per system")
    if args.stats is not None or _pooled(args):
        raise InputError("--stats or a pooled --metric with --run compares two systems; a "
                         "family of several systems with runs takes one score column per "
                         "system (not yet a pooled metric)")
    if args.systems is not None:
        columns, names = system_columns(args, files)
        table = pbio.read_table(files[0])
        values, order, _, rows = _pivot(table, args.id, args.run, columns, args.runs, None)
        groups, strata = _design(args, table, rows, order)
        paths = (table.path,)
        layout = f"one row per item and run ({args.run!r}), a column per system"
    else:
        names = file_systems(args, files)
        values, order, tables, rows = _per_file(args, files)
        groups, strata = _design(args, tables[0], rows, order)
        paths = tuple(t.path for t in tables)
        layout = f"one row per item and run ({args.run!r}), a file per system"
    return ManyInputs(
        names=tuple(names), values=tuple(values), groups=groups, strata=strata,
        strata_weights=strata_weights_arg(args), files=paths, layout=layout,
        notes=samples_note(values) if args.runs == "samples" else (), ids=list(order))

"""``pairboot compare --run COL --runs seeds|samples``: long tables of several runs.

One row per item and run: one file with both systems' columns (``--a``, ``--b``) or a file
per system (``--score``), each with the item id (``--id``) and the run (``--run``).  The
rows become each system's items x runs table, items in the first file's order, runs in
order of first appearance; for ``seeds`` every item must have every run (the message names
the first missing cell), for ``samples`` a missing cell is NaN.  Two files may have
different runs, unless ``--paired-runs`` (then runs are matched by their labels).
"""

from __future__ import annotations

import os

import numpy as np

import pairboot.io as pbio
from pairboot.cli.inputs import _context
from pairboot.errors import InputError

__all__ = ["load_runs"]


def _pivot(table, id_col: str, run_col: str, score_cols: list[str], kind: str,
           order: dict | None, runs: list | None):
    """Per score column an items x runs table; the items' order; the runs' labels."""
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
    if runs is None:
        runs = list(dict.fromkeys(labels))
    run_index = {r: j for j, r in enumerate(runs)}
    values = [pbio.numeric_column(table, c) for c in score_cols]
    out = [np.full((len(order), len(runs)), np.nan) for _ in score_cols]
    seen = np.zeros((len(order), len(runs)), dtype=bool)
    for row, (item, run) in enumerate(zip(ids, labels)):
        i, j = order.get(item), run_index.get(run)
        if i is None:
            raise InputError(f"{table.path}, {table.where(row)}: item {item!r} is not in the "
                             "first file")
        if j is None:
            raise InputError(f"{table.path}, {table.where(row)}: run {run!r} is not a run of "
                             "the first file (--paired-runs matches runs by label)")
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
    return out, order, runs


def load_runs(args):
    """``(a, b, ids, context)``: the systems' items x runs tables of the command line."""
    if args.runs is None:
        raise InputError("--run needs --runs seeds or --runs samples")
    if args.id is None:
        raise InputError("--run needs --id (the item of every row)")
    files = list(args.files)
    tables = [pbio.read_table(f) for f in files]
    if len(tables) == 1:
        if args.a is None or args.b is None:
            raise InputError("with one file, give --a COL and --b COL")
        (a, b), order, _ = _pivot(tables[0], args.id, args.run, [args.a, args.b], args.runs,
                                  None, None)
        names = (args.a, args.b)
    elif len(tables) == 2:
        score = args.score or "score"
        (a,), order, runs = _pivot(tables[0], args.id, args.run, [score], args.runs, None,
                                   None)
        (b,), order_b, _ = _pivot(tables[1], args.id, args.run, [score], args.runs, order,
                                  runs if args.paired_runs else None)
        missing = len(order) - int((~np.isnan(b)).any(axis=1).sum())
        if missing:
            raise InputError(f"{files[1]} scores {len(order) - missing} of the {len(order)} "
                             f"items of {files[0]}: the files must score the same items")
        names = tuple(os.path.basename(f) for f in files)
    else:
        raise InputError("--run compares two systems: one file with --a and --b, or two")
    context = _context(args, None, name_a=names[0], name_b=names[1], files=tuple(files),
                       layout=f"one row per item and run ({args.run!r})", notes=())
    return a, b, list(order), context

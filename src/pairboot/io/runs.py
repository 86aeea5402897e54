"""Long tables of runs into each system's items x runs table (what ``--run COL`` does).

A long table has one row per item and run: a column of item ids, a column naming the run
(a seed, a sample) and the systems' scores, either a column per system in one table
(:func:`runs_table`) or one table per system (:func:`runs_per_system`).  The rows become
each system's items x runs table, ready for ``pairboot.compare(a, b, runs=...)`` or
``pairboot.compare_many(..., runs=...)``:

- items in order of first appearance (with a table per system: the first table's), runs
  in order of first appearance in each table;
- ``kind="seeds"``: every item has a score in every run (the message names the first
  missing cell); ``kind="samples"``: a missing cell (no row, or an empty score) is NaN;
- a metric's statistics (several columns for one system) give items x runs x statistics;
- ``group`` and ``stratum`` name columns whose value is the same on all of an item's rows.

The tables may be pairboot's own :class:`~pairboot.io.tables.Table` (what
:func:`~pairboot.io.tables.read_table` returns), a pandas DataFrame (a missing value,
NaN or None, is an empty cell; rows are numbered from 1 in messages) or a mapping of
column name to values.  Every bad row is an :class:`~pairboot.errors.InputError` naming
the table, the row, the column and the id.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from pairboot.errors import InputError
from pairboot.io.columns import label_column, numeric_column
from pairboot.io.tables import Table

__all__ = ["KINDS", "RunsTables", "runs_per_system", "runs_table", "samples_note"]

KINDS = ("seeds", "samples")
"""What a table's runs are: retrained seeds (every run scores every item) or samples."""


@dataclass(frozen=True, slots=True)
class RunsTables:
    """Every system's items x runs table, read from a long table of runs.

    Attributes
    ----------
    values : dict of str to ndarray
        System name -> float64 array of shape ``(n_items, n_runs)``, or ``(n_items,
        n_runs, n_statistics)`` for a system given several columns (a pooled metric's
        statistics, in the order given); NaN where an item lacks a sample (``samples``).
    ids : tuple of str
        The items' ids, in the arrays' row order.
    runs : dict of str to tuple of str
        System name -> its runs' labels, in the arrays' column order.
    groups, strata : tuple of str, or None
        Each item's group and stratum label (None when no column was named).
    kind : str
        ``"seeds"`` or ``"samples"``: pass it on as ``runs=``.
    notes : tuple of str
        What a report should say that the arrays do not (for ``samples``: how many
        samples the items have).
    """

    values: dict[str, np.ndarray]
    ids: tuple[str, ...]
    runs: dict[str, tuple[str, ...]]
    groups: tuple[str, ...] | None
    strata: tuple[str, ...] | None
    kind: str
    notes: tuple[str, ...]


def runs_table(data, *, id: str, run: str, score, kind: str = "seeds",
               group: str | None = None, stratum: str | None = None) -> RunsTables:
    """Each system's items x runs table from one long table holding every system.

    Parameters
    ----------
    data : Table, pandas.DataFrame or mapping of str to sequence
        One row per item and run.
    id, run : str
        The columns of the item's id and of the run's label.
    score : str, sequence of str, or mapping of str to str or sequence of str
        The systems' score columns: a column (or a list of columns) is a system named by
        its column; a mapping names the systems, each given one column (items x runs) or
        a list of its metric's statistics columns (items x runs x statistics).
    kind : {"seeds", "samples"}
        ``"seeds"``: every item needs a score in every run; ``"samples"``: a missing
        cell is NaN.
    group, stratum : str, optional
        Columns of each item's group and stratum label (the same on all its rows).

    Returns
    -------
    RunsTables

    Raises
    ------
    InputError
        A missing column, id or run label; a score that is not a finite number; an
        (id, run) pair on two rows; under ``seeds``, an item without a score in a run;
        an item whose group or stratum differs between its rows.

    Examples
    --------
    >>> import pandas as pd
    >>> import pairboot
    >>> from pairboot.io import runs_table
    >>> rows = [(f"q{i}", f"s{s}", a, a + 0.3 + 0.02 * i)  # B beats A by 0.3 + 0.02 i
    ...         for s in range(3) for i in range(12) for a in [0.1 * (i % 4) + 0.05 * s]]
    >>> df = pd.DataFrame(rows, columns=["id", "seed", "A", "B"])
    >>> r = runs_table(df, id="id", run="seed", score=["A", "B"], kind="seeds")
    >>> r.values["A"].shape, r.ids[:3], r.runs["A"]
    ((12, 3), ('q0', 'q1', 'q2'), ('s0', 's1', 's2'))
    >>> import warnings
    >>> with warnings.catch_warnings():  # (12 items and 3 seeds: pairboot says "rough")
    ...     warnings.simplefilter("ignore", pairboot.SmallSampleWarning)
    ...     res = pairboot.compare(r.values["A"], r.values["B"], runs="seeds", seed=0)
    >>> round(res.estimate, 2)
    0.41
    """
    _check_kind(kind)
    table = _as_table(data)
    systems = _systems(score)
    flat = [c for cols in systems.values() for c in _columns(cols)]
    values, order, runs, rows = _pivot(table, id, run, flat, kind, None)
    by_system = dict(zip(systems, _stacked(values, systems.values())))
    groups, strata = _design(table, group, stratum, rows, order)
    return _result(by_system, order, {name: tuple(runs) for name in systems}, groups,
                   strata, kind)


def runs_per_system(tables: Mapping, *, id: str, run: str, score="score",
                    kind: str = "seeds", group: str | None = None,
                    stratum: str | None = None, paired_runs: bool = False) -> RunsTables:
    """Each system's items x runs table from a long table per system.

    Parameters
    ----------
    tables : mapping of str to Table, pandas.DataFrame or mapping of columns
        System name -> its long table (one row per item and run).  The first table
        fixes the items and their order; every other must score the same items.
    id, run : str
        The columns of the item's id and of the run's label (in every table).
    score : str or sequence of str
        The score column of every table (items x runs), or a metric's statistics columns
        (items x runs x statistics).
    kind : {"seeds", "samples"}
        As in :func:`runs_table`.
    group, stratum : str, optional
        Columns of the first table labelling each item (the same on all its rows).
    paired_runs : bool
        Every table must have the first table's run labels, and each system's columns
        are put in the first table's run order (run r of every system is the same run:
        pass ``paired_runs=True`` to :func:`pairboot.compare` too).

    Returns
    -------
    RunsTables

    Raises
    ------
    InputError
        As :func:`runs_table`; also an item the first table lacks, a table without a
        score for an item of the first, and (``paired_runs``) other run labels.

    Examples
    --------
    >>> import pandas as pd
    >>> from pairboot.io import runs_per_system
    >>> a = pd.DataFrame({"id": ["q1", "q2", "q1", "q2"], "seed": [1, 1, 2, 2],
    ...                   "score": [0.5, 0.25, 0.75, 0.5]})
    >>> b = a.iloc[::-1].assign(score=[1.0, 0.0, 0.5, 0.5])  # (rows in another order)
    >>> r = runs_per_system({"A": a, "B": b}, id="id", run="seed", paired_runs=True)
    >>> r.values["B"].tolist(), r.runs["B"]  # A's items and runs, in A's order
    ([[0.5, 0.0], [0.5, 1.0]], ('1', '2'))
    """
    _check_kind(kind)
    if not isinstance(tables, Mapping) or not tables:
        raise InputError("`tables` maps each system's name to its long table of runs",
                         param="tables")
    names = list(tables)
    read = [_as_table(t, name) for name, t in tables.items()]
    columns = _columns(score)
    first, order, runs, rows = _pivot(read[0], id, run, columns, kind, None)
    (first,) = _stacked(first, [score])
    values, labels = [first], [tuple(runs)]
    for table in read[1:]:
        v, _, own, _ = _pivot(table, id, run, columns, kind, order)
        (v,) = _stacked(v, [score])
        if paired_runs:  # run r of every table: the runs with the first table's labels
            if set(own) != set(runs):
                raise InputError(f"{table.path} has the runs {', '.join(map(repr, own))} "
                                 f"but {read[0].path} {', '.join(map(repr, runs))}: "
                                 "`paired_runs` matches runs by label, so every file needs "
                                 "the same runs")
            v = np.ascontiguousarray(v[:, [own.index(r) for r in runs]])
            own = runs
        missing = len(order) - int((~np.isnan(v)).reshape(len(v), -1).any(axis=1).sum())
        if missing:
            raise InputError(f"{table.path} scores {len(order) - missing} of the "
                             f"{len(order)} items of {read[0].path}: the files must score "
                             "the same items")
        values.append(v)
        labels.append(tuple(own))
    groups, strata = _design(read[0], group, stratum, rows, order)
    return _result(dict(zip(names, values)), order, dict(zip(names, labels)), groups,
                   strata, kind)


def samples_note(values, trials: str | None = None) -> tuple[str, ...]:
    """For ``runs="samples"``: what the items' scores are, and how many samples they
    have (a family's report says nothing else about the runs); ``values``: the systems'
    items x runs arrays; ``trials``: the metric of k trials the samples give each item
    (``"pass^4"``, ``"pass^k"`` for a curve), None for their mean."""
    counts = [int(c) for t in values  # (a run counts when any of its statistics is there)
              for c in (~np.isnan(t)).reshape(*t.shape[:2], -1).any(axis=2).sum(axis=1)]
    spread = f"{min(counts)}" if min(counts) == max(counts) else \
        f"{min(counts)} to {max(counts)}"
    if trials is None:
        return (f"`runs='samples'`: each system's score on an item is the mean of its "
                f"samples ({spread} per item and system), and the items' means are "
                "compared",)
    return (f"`runs='samples'`: each system's score on an item is its unbiased estimate "
            f"of {trials} from its samples ({spread} per item and system), and the items' "
            "estimates are compared",)


# ------------------------------------------------------------------------------ helpers


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise InputError(f"`kind` must be 'seeds' or 'samples', got {kind!r}", param="kind")


def _as_table(data, system: str | None = None) -> Table:
    """``data`` as a :class:`Table` (a DataFrame's or a mapping's columns as lists,
    missing values None; rows numbered from 1, as a Parquet file's), named in messages
    ``DataFrame`` or ``table`` (with the system's name, for a table per system)."""
    if isinstance(data, Table):
        return data
    frame = hasattr(data, "columns") and hasattr(data, "iloc")  # a pandas DataFrame
    path = ("DataFrame" if frame else "table") + ("" if system is None else f" {system!r}")
    if frame:
        names = [str(c) for c in data.columns]
        if len(set(names)) != len(names):
            twice = next(c for c in names if names.count(c) > 1)
            raise InputError(f"{path}: column {twice!r} appears twice")
        columns = {}
        for name, (_, series) in zip(names, data.items()):
            missing = series.isna().tolist()
            columns[name] = [None if m else v for v, m in zip(series.tolist(), missing)]
        n = len(data)
    elif isinstance(data, Mapping):
        columns = {str(k): list(v) for k, v in data.items()}
        lengths = {len(v) for v in columns.values()}
        if len(lengths) > 1:
            raise InputError(f"{path}: the columns have different lengths "
                             f"({', '.join(map(str, sorted(lengths)))})")
        n = lengths.pop() if lengths else 0
    else:
        raise InputError(f"a long table of runs is a pandas DataFrame, a pairboot.io.Table "
                         f"or a mapping of columns, not {type(data).__name__}")
    return Table(path=path, columns=columns, n_rows=n, format="parquet",
                 lines=range(1, n + 1))


def _systems(score) -> dict:
    """``score`` as system name -> its column or columns."""
    if isinstance(score, str):
        return {score: score}
    if isinstance(score, Mapping):
        systems = dict(score)
    else:
        systems = {c: c for c in score}
    if not systems:
        raise InputError("`score` names no column", param="score")
    return systems


def _columns(cols) -> list[str]:
    return [cols] if isinstance(cols, str) else list(cols)


def _stacked(values: list, systems) -> list:
    """Per system its items x runs table (a column given as a string), or items x runs x
    statistics (a list of columns, in order)."""
    out, i = [], 0
    for cols in systems:
        if isinstance(cols, str):
            out.append(values[i])
            i += 1
        else:
            k = len(cols)
            out.append(np.ascontiguousarray(np.stack(values[i:i + k], axis=2)))
            i += k
    return out


def _pivot(table: Table, id_col: str, run_col: str, score_cols: list[str], kind: str,
           order: dict | None):
    """Per score column an items x runs table (runs in order of first appearance); the
    items' order (``order``, when given: the first table's); the runs' labels; every
    row's item (its index in the order)."""
    table.check_columns([id_col, run_col, *score_cols])
    ids = [str(v) if v is not None else None for v in label_column(table, id_col)]
    labels = [str(v) if v is not None else None for v in label_column(table, run_col)]
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
    values = [numeric_column(table, c, missing=kind == "samples") for c in score_cols]
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
                         f"({int((~seen).sum())} cell(s) missing); with `runs='seeds'` "
                         "every run scores every item")
    return out, order, runs, [order[item] for item in ids]


def _item_labels(table: Table, column: str, rows: list[int], order: dict) -> list[str]:
    """Every item's label in ``column`` (a group or stratum), which must be the same on
    all of the item's rows (runs); ``rows``: every row's item, from :func:`_pivot`."""
    table.check_columns([column])
    values = label_column(table, column)
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


def _design(table: Table, group: str | None, stratum: str | None, rows: list[int],
            order: dict) -> tuple[tuple | None, tuple | None]:
    """The items' groups and strata from ``table`` (None for a column not named)."""
    return tuple(None if col is None else tuple(_item_labels(table, col, rows, order))
                 for col in (group, stratum))


def _result(values: dict, order: dict, runs: dict, groups, strata, kind: str) -> RunsTables:
    notes = samples_note(list(values.values())) if kind == "samples" else ()
    return RunsTables(values=values, ids=tuple(order), runs=runs, groups=groups,
                      strata=strata, kind=kind, notes=notes)

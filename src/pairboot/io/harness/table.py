"""Plain tables as per-item scores: files, and pandas, polars and pyarrow tables.

A file (CSV, TSV, JSON Lines, Parquet, a JSON array) is read by
:func:`pairboot.io.read_table`; a DataFrame or Arrow table is read as it is, by
:func:`read_table_scores` (``read`` takes either).  Three layouts:

- one system per table (the default): ``score`` (or ``correct``) gives its per-item
  scores, and the system is named by the file's stem;
- wide: ``system`` names columns, one per system, in one table;
- long: ``system_column`` names the column saying which system a row is of (one row per
  system and item); each system's rows are aligned on the id.  ``system`` then picks
  systems out of that column, in its order (the notes say which rows are left).

``correct="pred=answer"`` scores 1 where column ``pred`` equals column ``answer`` and 0
elsewhere; ``correct="grade=A"`` compares with the value ``A``.  The right-hand side is
a column when a column has that name, a value otherwise; only ``=``, no expressions.
Values are compared as text, stripped (``3`` and ``3.0`` are both "3").  A missing
left-hand value is refused unless ``null="wrong"`` counts it as wrong; the notes say
how many.  No row is ever skipped.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from pairboot.errors import InputError
from pairboot.inputs.labels import shown
from pairboot.io import ID_HINTS, Table, read_table
from pairboot.io.alignment import MOSTLY_IDS
from pairboot.io.columns import (
    distinct_fraction,
    id_column,
    label_column,
    numeric_column,
    show_values,
    stats_columns,
)
from pairboot.io.harness import Scores
from pairboot.metrics.names import builtin_metrics, builtin_stats

NAME = "table"
OPTIONS = ("id", "score", "system", "system_column", "group", "stratum", "correct", "null")
NULLS = ("refuse", "wrong")
"""What ``null`` may say about a missing value on the left of ``correct``."""


def detect(path) -> bool:
    """Never: every file is a table of some kind, so a plain table is what ``--from
    table`` asks for, never what a file is recognised as (logs stay the logs' readers')."""
    return False


def read(path, **options) -> Scores:
    """A file, or a pandas, polars or pyarrow table, as :class:`Scores`."""
    return read_table_scores(path, **options)


class _FrameTable(Table):
    """A table passed as an object: its rows are ``row N`` (1-based) in messages."""

    __slots__ = ()

    def where(self, i: int) -> str:
        return f"row {int(i) + 1}"


def read_table_scores(obj, *, id: str | None = None, score=None, system=None,
                      system_column: str | None = None, group: str | None = None,
                      stratum: str | None = None, correct: str | None = None,
                      null: str | None = None) -> Scores:
    """Per-item scores from a table file or object (see the module's docstring).

    Parameters
    ----------
    obj : str, os.PathLike, pandas.DataFrame, polars.DataFrame, pyarrow.Table or mapping
        The table (a mapping: column name -> values).
    id : str, optional
        The id column.  Default: a column named like ids (``question_id``, ``qid``, ...;
        :data:`pairboot.io.ID_HINTS`) whose values are distinct, else the row position
        (``"1"``, ``"2"``, ...; not with ``system_column``).
    score : str or sequence of str, optional
        The score column (default ``score``), or the columns of a pooled metric's
        statistics (comma-separated or a list).
    system : str or sequence of str, optional
        The wide layout: one column per system.  With ``correct``, each is compared with
        ``correct`` (a column or a value).  With ``system_column``: the systems to read
        out of that column, in this order (default all, in the file's order).
    system_column : str, optional
        The long layout: the column naming each row's system.
    group, stratum : str, optional
        Columns of labels, one per item.
    correct : str, optional
        ``"left=right"``: 1 where column ``left`` equals column (or value) ``right``.
    null : {"refuse", "wrong"}, optional
        A missing left-hand value of ``correct``: an error (the default) or 0.
    """
    table, stem = _as_table(obj)
    columns = _names(score, "score")
    systems = _names(system, "system")
    long = system_column is not None
    if correct is not None and columns:
        raise InputError("give `score` or `correct`, not both: `correct` makes the score",
                         param="correct")
    if systems and columns and not long:
        raise InputError("with `system` the systems' columns hold the scores: drop `score`",
                         param="score")
    if null is not None and null not in NULLS:
        raise InputError(f"`null` must be one of {', '.join(NULLS)}, got {null!r}",
                         param="null")
    if null is not None and correct is None:
        raise InputError("`null` says how a missing value of `correct` counts; give "
                         "`correct` too", param="null")
    null = null or "refuse"
    notes: list[str] = []
    if correct is not None:
        left, right = _split_correct(table, correct, bool(systems) and not long)
        columns = None
    else:
        left = right = None
        if (long or not systems) and not columns:
            if "score" not in table.columns:
                raise InputError(f"{table.path}: no column 'score': give `score` (the score "
                                 f"column) or `correct` (columns: {table.describe_columns()})",
                                 param="score")
            columns = ["score"]
    table.check_columns([id, system_column, group, stratum, *(columns or ()),
                         *(() if long else systems), left])
    if long:
        ids, values, groups, strata = _long(table, system_column, id, columns, left, right,
                                            null, group, stratum, notes, systems)
    else:
        ids, where = _ids(table, id)
        notes.append(f"{table.path}: ids {where}")
        if systems:
            values = {s: _scores(table, None if correct else [s], s if correct else None,
                                 right, null, notes, name=s) for s in systems}
        else:
            values = {stem: _scores(table, columns, left, right, null, notes)}
        groups = _labels(table, group, "group", None)
        strata = _labels(table, stratum, "stratum", None)
    stats = tuple(columns) if columns and len(columns) > 1 else None
    what = (f"correct = {correct!r}" if correct is not None else
            f"columns {', '.join(map(repr, columns))}" if stats else
            f"column {columns[0]!r}" if columns else "the systems' columns")
    notes.insert(0, f"{table.path}: {table.n_rows:,} rows read: {len(ids):,} items, "
                    f"{len(values)} system(s) ({', '.join(values)}), scores from {what}"
                    + (f"; groups from {group!r}" if group else "")
                    + (f"; strata from {stratum!r}" if stratum else ""))
    return Scores(path=table.path, format=NAME, ids=np.asarray(ids, dtype=object),
                  systems=values, score=correct or (",".join(columns) if columns else None),
                  metric=_metric(stats), stats=stats, groups=groups, strata=strata,
                  notes=tuple(notes))


# ------------------------------------------------------------------------ the table


def _as_table(obj) -> tuple[Table, str]:
    """The :class:`~pairboot.io.Table` of a file or table object, and its system name."""
    if isinstance(obj, (str, os.PathLike)):
        table = read_table(obj)
        base = os.path.basename(os.fspath(obj))
        stem, ext = os.path.splitext(base)
        if ext.lower() == ".gz":
            stem = os.path.splitext(stem)[0]
        return table, stem or base
    kind = type(obj).__module__.split(".")[0]
    if kind == "pandas" and hasattr(obj, "columns") and hasattr(obj, "index"):
        display = "<pandas DataFrame>"
        if any(n is not None for n in obj.index.names):
            obj = obj.reset_index()  # a named index is a column (often the ids)
        columns = {}
        for name in obj.columns:
            s = obj[name]
            if not isinstance(name, str) or hasattr(s, "columns"):
                raise InputError(f"{display}: column {name!r}: column names must be "
                                 "distinct strings")
            columns[name] = s.astype(object).where(s.notna(), None).tolist()
    elif kind == "polars" and hasattr(obj, "get_column"):
        display = "<polars DataFrame>"
        columns = {name: obj.get_column(name).to_list() for name in obj.columns}
    elif kind == "polars":
        raise InputError("a polars LazyFrame is not read: pass its .collect()", param="path")
    elif kind == "pyarrow" and hasattr(obj, "column_names"):
        import pyarrow as pa

        from pairboot.io.arrow import ArrowColumns

        display = "<pyarrow Table>"
        if isinstance(obj, pa.RecordBatch):
            obj = pa.Table.from_batches([obj])
        if len(set(obj.column_names)) != len(obj.column_names):
            raise InputError(f"{display}: column names must be distinct")
        columns = ArrowColumns({n: obj.column(n) for n in obj.column_names})
        return _FrameTable(display, columns, obj.num_rows, "arrow",
                           range(1, obj.num_rows + 1)), "table"
    elif isinstance(obj, Mapping):
        display = "<mapping>"
        columns = {}
        for k, v in obj.items():
            if isinstance(v, (str, bytes, Mapping)) or not isinstance(v, Iterable):
                raise InputError(f"{display}: column {shown(k)} is {shown(v)}, not a list of "
                                 "values (a mapping is read as a table: column -> values)")
            columns[str(k)] = list(v)
    else:
        name = type(obj).__name__
        article = "an" if name[:1] in "aeiouAEIOU" else "a"
        raise InputError(f"{article} {name} is neither a table (a file name, a pandas, "
                         "polars or pyarrow table, a mapping of columns) nor a log in memory "
                         "(an Inspect EvalLog: `eval` and `samples`; the dict lm-eval's "
                         "simple_evaluate returns)", param="path")
    sizes = {len(v) for v in columns.values()}
    if len(sizes) > 1:
        raise InputError(f"{display}: the columns differ in length ({sorted(sizes)})")
    n = sizes.pop() if sizes else 0
    if not n:
        raise InputError(f"{display}: the table has no rows")
    return _FrameTable(display, columns, n, "frame", range(1, n + 1)), "table"


def _names(value, what: str) -> list[str]:
    """An option naming one or more columns: a list, or a comma-separated string."""
    if value is None:
        return []
    if isinstance(value, str):
        names = [v.strip() for v in value.split(",")]
    elif isinstance(value, Sequence):
        names = [str(v).strip() for v in value]
    else:
        raise InputError(f"`{what}` must name columns, got {value!r}", param=what)
    if not names or not all(names) or len(set(names)) != len(names):
        raise InputError(f"`{what}` must name distinct columns, got {value!r}", param=what)
    return names


def _metric(stats: tuple[str, ...] | None) -> str:
    """The built-in metric whose statistics the columns are, by name and in order (f1:
    ``tp, fp, fn``), else "custom" (then give the metric to :func:`pairboot.compare`)."""
    if stats is None:
        return "mean"
    for name in builtin_metrics():
        known = builtin_stats(name)
        if known is not None and tuple(known) == stats:
            return name
    return "custom"


# ---------------------------------------------------------------------------- values


def _split_correct(table: Table, correct: str, wide: bool) -> tuple[str | None, str]:
    """``(left column, right column or value)`` of ``correct``; with ``system`` (wide),
    ``correct`` is the right-hand side alone and the left is each system's column."""
    if wide:
        if "=" in correct:
            raise InputError(f"with `system`, `correct` is what each system's column is "
                             f"compared with (a column or a value), got {correct!r}",
                             param="correct")
        return None, correct.strip()
    cuts = [i for i, c in enumerate(correct) if c == "="]
    if not cuts:
        raise InputError(f"`correct` must read LEFT=RIGHT (a column, '=', a column or a "
                         f"value), got {correct!r}", param="correct")
    for i in cuts:  # a column name may itself hold '='
        left, right = correct[:i].strip(), correct[i + 1:].strip()
        if left in table.columns:
            return left, right
    left = correct[:cuts[0]].strip()
    table.check_columns([left])  # raises, naming the columns there
    return left, correct[cuts[0] + 1:].strip()


def _scores(table: Table, columns: list[str] | None, left: str | None, right: str | None,
            null: str, notes: list[str], rows: np.ndarray | None = None,
            name: str | None = None) -> np.ndarray:
    """A system's scores in ``rows`` of ``table`` (all rows when None): the score
    column(s), or 0/1 from comparing ``left`` with ``right``; ``name``: the system, for
    the notes of a table of several."""
    if columns is not None and left is None:
        values = stats_columns(table, columns) if len(columns) > 1 else \
            numeric_column(table, columns[0])
        return values if rows is None else values[rows]
    index = range(table.n_rows) if rows is None else rows.tolist()
    who = f"system {name!r}: " if name is not None else ""
    got = label_column(table, left)
    literal = right not in table.columns
    want = None if literal else label_column(table, right)
    out = np.empty(len(index), dtype=np.float64)
    nulls = []
    for k, i in enumerate(index):
        value = got[i]
        expected = right if literal else want[i]
        if expected is None:
            raise InputError(f"{table.path}: {table.where(i)}: column {right!r}: missing "
                             f"value, so {left!r} cannot be compared with it")
        if value is None:
            nulls.append(i)
            out[k] = 0.0
        else:
            out[k] = float(value == expected)
    if nulls:
        if null == "refuse":
            raise InputError(
                f"{table.path}: {table.where(nulls[0])}: {who}column {left!r}: missing value "
                f"({len(nulls):,} in all); give `null='wrong'` to count them as wrong",
                param="null")
        notes.append(f"{table.path}: {who}{len(nulls):,} missing value(s) in column {left!r} "
                     f"counted as wrong (`null='wrong'`; first at {table.where(nulls[0])})")
    side = f"value {right!r}" if literal else f"column {right!r}"
    notes.append(f"{table.path}: {who}score 1 where column {left!r} equals {side}, else 0: "
                 f"{int(out.sum()):,} of {len(out):,}")
    return out


def _ids(table: Table, id: str | None) -> tuple[list[str], str]:
    """The items' ids (each once) and how they were found, for the notes."""
    if id is not None:
        return list(id_column(table, id)), f"from column {id!r}"
    hinted = _hinted_id(table)
    if hinted is not None:
        return list(id_column(table, hinted)), f"from column {hinted!r} (named like ids)"
    return [str(i) for i in range(1, table.n_rows + 1)], \
        "are the row positions 1.." + f"{table.n_rows:,} (no id column; give `id`)"


def _hinted_id(table: Table) -> str | None:
    for name in table.columns:
        if name.strip().lower() in ID_HINTS and \
                distinct_fraction(label_column(table, name)) >= MOSTLY_IDS:
            return name
    return None


def _labels(table: Table, column: str | None, what: str, rows: np.ndarray | None,
            read: list | None = None):
    """One label per item from ``column`` (rows: the items' rows; ``read``: the column
    already read); missing: an error."""
    if column is None:
        return None
    labels = list(label_column(table, column)) if read is None else read
    if rows is not None:
        labels = [labels[i] for i in rows.tolist()]
    missing = [i for i, v in enumerate(labels) if v is None]
    if missing:
        i = missing[0] if rows is None else int(rows[missing[0]])
        raise InputError(f"{table.path}: {table.where(i)}: column {column!r}: missing "
                         f"{what} label ({len(missing):,} row(s) without one); every item "
                         f"needs a {what}", param=what)
    return np.asarray(labels, dtype=object)


# ------------------------------------------------------------------------ long layout


def _long(table: Table, system_column: str, id: str | None, columns, left, right, null,
          group, stratum, notes, chosen=()):
    """The long layout: a row per system and item, each system aligned on the ids;
    ``chosen``: the systems to read, in this order (default all, in file order)."""
    names = list(label_column(table, system_column))
    if None in names:
        i = names.index(None)
        raise InputError(f"{table.path}: {table.where(i)}: column {system_column!r}: "
                         "missing system name")
    if chosen:
        held = list(dict.fromkeys(names))
        absent = [s for s in chosen if s not in held]
        if absent:
            raise InputError(f"{table.path}: column {system_column!r} names no system "
                             f"{absent[0]!r}; it holds {show_values(held)}", param="system")
        if len(chosen) < len(held):
            notes.append(f"{table.path}: {len(chosen)} of the {len(held)} systems in column "
                         f"{system_column!r} read ({', '.join(chosen)}): the rows of "
                         f"{', '.join(s for s in held if s not in chosen)} are not")
    if id is None:
        id = next((c for c in table.columns if c.strip().lower() in ID_HINTS), None)
        if id is None:
            raise InputError(f"{table.path}: with `system_column` the items are matched on "
                             f"an id: give `id` (columns: {table.describe_columns()})",
                             param="id")
    ids = list(label_column(table, id))
    rows_of: dict[str, dict[str, int]] = {}
    wanted = set(chosen)
    for i, (name, item) in enumerate(zip(names, ids)):
        if wanted and name not in wanted:
            continue  # (another system's row: not read)
        if item is None:
            raise InputError(f"{table.path}: {table.where(i)}: column {id!r}: missing id")
        mine = rows_of.setdefault(name, {})
        if item in mine:
            raise InputError(f"{table.path}: column {id!r}: system {name!r} has id {shown(item)} "
                             f"twice ({table.where(mine[item])} and {table.where(i)})")
        mine[item] = i
    systems = list(chosen) if chosen else list(rows_of)
    first = rows_of[systems[0]]
    order = list(first)
    for name in systems[1:]:
        mine = rows_of[name]
        lacking = [v for v in order if v not in mine]
        extra = [v for v in mine if v not in first]
        if lacking or extra:
            who, what, which = ((name, systems[0], lacking) if lacking
                                else (systems[0], name, extra))
            raise InputError(
                f"{table.path}: system {who!r} has no row for {len(which):,} id(s) that "
                f"system {what!r} has ({show_values(which)}); every system needs every item")
    # a score column is read once for all systems (once per system is M x N)
    every = (_scores(table, columns, left, right, null, notes)
             if columns is not None and left is None else None)
    values = {}
    for name in systems:
        rows = np.array([rows_of[name][v] for v in order], dtype=np.intp)
        values[name] = (every[rows] if every is not None else
                        _scores(table, columns, left, right, null, notes, rows, name))
    notes.append(f"{table.path}: long layout: {len(systems)} systems in column "
                 f"{system_column!r}, matched on column {id!r}")
    labels = []
    for column, what in ((group, "group"), (stratum, "stratum")):
        read = list(label_column(table, column)) if column else None  # (once)
        per = [_labels(table, column, what, np.array([rows_of[s][v] for v in order]), read)
               for s in systems] if column else [None]
        for name, other in zip(systems[1:], per[1:]):
            differ = [k for k in range(len(order)) if other[k] != per[0][k]]
            if differ:
                k = differ[0]
                raise InputError(
                    f"{table.path}: column {column!r}: id {shown(order[k])} is {what} "
                    f"{shown(per[0][k])} for system {systems[0]!r} but {shown(other[k])} for "
                    f"{name!r}")
        labels.append(per[0])
    return order, values, labels[0], labels[1]

"""Line up the items of several systems' tables: the per-item inputs of :func:`pairboot.compare`.

Every reader of scores (files given on the command line, and later the adapters of
evaluation harnesses' logs) ends with tables of per-item values; :func:`align` turns them
into one array per system in a common item order, with the group and stratum labels, and
refuses what would pair the wrong items: ids that differ between files, or rows paired by
position when both files carry an id column that says they are not the same items.

Messages write :func:`align`'s own arguments as `` `id` `` / `` `id='qid'` `` (see
:func:`pairboot.errors.spell`), so that the command line can show its option instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from pairboot.errors import InputError
from pairboot.io import arrow
from pairboot.io.columns import (
    ArrowLabels,
    distinct_fraction,
    id_column,
    label_column,
    merge_labels,
    same_labels,
    show_values,
    sorted_ids,
    stats_columns,
    take_labels,
)
from pairboot.io.tables import Table

ID_HINTS = (
    "id", "item_id", "example_id", "sample_id", "query_id", "qid", "question_id", "uid",
    "guid", "key",
)
"""Column names (case-insensitive) that hold item ids: without ``id``, two tables that
both have one must list the same ids in the same order, or the pairing by position is
refused."""

_ARROW_JOIN_MIN = 10_000
"""Fewer ids than this are joined by a Python dict (as fast, nothing to convert)."""

MOSTLY_IDS = 0.9
"""Distinct values per row from which an id-named column is taken for a column of ids."""

Check = Callable[[np.ndarray, Table, Sequence[str]], None]
"""``check(values, table, columns)``: a system's values, rows in ``table``'s order."""


@dataclass(frozen=True, slots=True)
class Aligned:
    """Per-item inputs in one item order, ready for :func:`pairboot.compare`.

    Attributes
    ----------
    values : tuple of numpy.ndarray
        One per system, in the order of ``columns``: ``(n,)`` for one column, else
        ``(n, k)``.  Without pairing (``paired=False``, no ``id``) their lengths may
        differ.
    ids : sequence of str or None
        The item ids in item order (the first table's), when aligned on ``id``.
    groups, strata : sequence of str or None
        One label per item, when asked for.
    layout : str
        One phrase on how the items were aligned ("1,000 items joined on column 'id'").
    notes : tuple of str
        Remarks for the report (id columns found to agree when rows were paired by
        position).
    """

    values: tuple[np.ndarray, ...]
    ids: Sequence[str] | None
    groups: Sequence[str] | None
    strata: Sequence[str] | None
    layout: str
    notes: tuple[str, ...]


def align(
    tables: Sequence[Table],
    *,
    columns: Sequence[Sequence[str]],
    id: str | None = None,
    groups: str | None = None,
    strata: str | None = None,
    paired: bool = True,
    check: Check | None = None,
) -> Aligned:
    """Align the systems' values on their items.

    Parameters
    ----------
    tables : sequence of Table
        One table holding every system (``columns[i]`` are system ``i``'s columns in
        it), or one table per system.
    columns : sequence of sequence of str
        For each system, the columns of its per-item values (one score, or a metric's
        statistics).
    id : str, optional
        The column of item ids: the tables are joined on it (each id once in each
        table, the same ids in all).  Without it, rows are paired by position: the row
        counts must match (unless unpaired), and an id-like column (:data:`ID_HINTS`)
        in every table must agree row by row.
    groups, strata : str, optional
        Columns of group and stratum labels, read from every table that has them (they
        must agree where several do, and label every item).
    paired : bool
        False: the systems' items are drawn independently, so without ``id`` or labels
        their counts may differ.
    check : callable, optional
        Called as ``check(values, table, columns)`` for each system before its rows are
        reordered, so that an InputError it raises can name the line (a metric's own
        checks of its statistics).

    Examples
    --------
    >>> import os, tempfile
    >>> from pairboot.io import read_table
    >>> folder = tempfile.mkdtemp()
    >>> for name, text in (("a.csv", "id,score\\nq1,1\\nq2,0\\n"),
    ...                    ("b.csv", "id,score\\nq2,1\\nq1,1\\n")):
    ...     with open(os.path.join(folder, name), "w") as f:
    ...         _ = f.write(text)
    >>> tables = [read_table(os.path.join(folder, n)) for n in ("a.csv", "b.csv")]
    >>> aligned = align(tables, columns=[["score"], ["score"]], id="id")
    >>> [v.tolist() for v in aligned.values], aligned.layout
    ([[1.0, 0.0], [1.0, 1.0]], "2 items joined on column 'id'")
    """
    tables = tuple(tables)
    columns = tuple(tuple(c) for c in columns)
    if not columns or len(tables) not in (1, len(columns)):
        raise InputError(
            f"`tables` must hold one table, or one per system ({len(columns)}), got "
            f"{len(tables)}", param="tables"
        )
    one = len(tables) == 1
    owners = tables * len(columns) if one else tables
    if one:
        tables[0].check_columns([id, *(c for cols in columns for c in cols)])
    else:
        for table, cols in zip(tables, columns):
            table.check_columns([id, *cols])
    first = tables[0]
    notes: list[str] = []
    ids = None
    orders: list[np.ndarray | None] = [None] * len(tables)
    if one:  # the systems' values are already side by side
        ids = id_column(first, id) if id is not None else None
        layout = f"{first.n_rows:,} items in {first.path}"
    elif id is not None:
        ids = id_column(first, id, to_join=True)
        for k, table in enumerate(tables[1:], 1):
            orders[k] = join_on_ids(ids, id_column(table, id, to_join=True), first.path,
                                    table.path)
        layout = f"{first.n_rows:,} items joined on column {id!r}"
    else:
        for table in tables[1:]:
            if table.n_rows != first.n_rows and (paired or groups or strata):
                raise InputError(
                    f"{first.path} has {first.n_rows} rows but {table.path} has "
                    f"{table.n_rows}: without `id` the rows are paired by position, so the "
                    f"counts must match (give `id={_join_column(first, table)}` to join the "
                    "files on an id column)", param="id"
                )
            if paired:
                for note in _check_position_pairing(_shared_id_columns(first, table)):
                    if note not in notes:
                        notes.append(note)
        rows = {t.n_rows for t in tables}
        layout = (f"{first.n_rows:,} items paired by row position (no `id`)" if len(rows) == 1
                  else " and ".join(f"{t.n_rows:,}" for t in tables) + " items")
    values = [_values(table, cols) for table, cols in zip(owners, columns)]
    if check is not None:
        for v, table, cols in zip(values, owners, columns):
            check(v, table, cols)
    if not one:
        values = [v if order is None else v[order] for v, order in zip(values, orders)]
    sources = tuple(zip(tables, orders))
    return Aligned(
        values=tuple(values),
        ids=ids,
        groups=_item_labels(sources, ids, groups, "group", "groups"),
        strata=_item_labels(sources, ids, strata, "stratum", "strata"),
        layout=("" if paired else "unpaired, ") + layout,
        notes=tuple(notes),
    )


def _values(table: Table, columns: Sequence[str]) -> np.ndarray:
    values = stats_columns(table, columns)
    return values[:, 0] if values.shape[1] == 1 else values


def join_on_ids(
    ids_a: Sequence[str], ids_b: Sequence[str], name_a: str, name_b: str
) -> np.ndarray:
    """For each id of ``ids_a`` (in order), its position in ``ids_b``.

    Both must hold the same ids (each unique, see :func:`pairboot.io.id_column`).
    Otherwise the InputError says how many ids are only in each file and shows up to
    five of each.
    """
    if len(ids_a) == len(ids_b):
        order = (np.arange(len(ids_a), dtype=np.intp) if same_labels(ids_a, ids_b)
                 else _arrow_join(ids_a, ids_b))
        for ids in (ids_a, ids_b):  # the join is the last use of their sorts
            if isinstance(ids, ArrowLabels):
                ids.forget_sort()
        arrow.release_arrow_memory()
        if order is not None:
            return order
    ids_a, ids_b = list(ids_a), list(ids_b)
    where_b = {v: j for j, v in enumerate(ids_b)}
    only_a = [v for v in ids_a if v not in where_b]
    if only_a or len(ids_a) != len(ids_b):
        set_a = set(ids_a)
        only_b = [v for v in ids_b if v not in set_a]
        parts = []
        for only, name in ((only_a, name_a), (only_b, name_b)):
            if only:
                parts.append(f"{len(only)} only in {name} ({show_values(only)})")
        raise InputError(
            f"the ids of {name_a} and {name_b} differ: {'; '.join(parts)}; "
            "every item needs a score from both systems"
        )
    return np.fromiter((where_b[v] for v in ids_a), dtype=np.intp, count=len(ids_a))


def _arrow_join(ids_a: Sequence[str], ids_b: Sequence[str]) -> np.ndarray | None:
    """join_on_ids for two lists of the same unique ids, by sorting both with pyarrow;
    None otherwise (few ids, pyarrow missing, or ids that differ)."""
    if len(ids_a) < _ARROW_JOIN_MIN:
        return None
    sorted_a = sorted_ids(ids_a)
    sorted_b = sorted_ids(ids_b) if sorted_a is not None else None
    if sorted_b is None:
        return None
    return arrow.join_sorted(sorted_a, sorted_b)


def _item_labels(
    sources: Sequence[tuple[Table, np.ndarray | None]],
    ids: Sequence[str] | None,
    column: str | None,
    what: str,
    param: str,
) -> Sequence[str] | None:
    """One ``what`` label per item from ``column`` of the tables that have it.

    ``sources`` are ``(table, order)``: ``order`` puts a table's rows in the items'
    order (None: they are).  Tables that both label an item must agree."""
    if column is None:
        return None
    present = [(t, order) for t, order in sources if column in t.columns]
    if not present:
        if len(sources) == 1:
            sources[0][0].check_columns([column])  # raises, naming the columns there
        first = sources[0][0]
        shared = [c for c in first.columns if all(c in t.columns for t, _ in sources)]
        raise InputError(
            f"no column {column!r} in {' or '.join(t.path for t, _ in sources)}; columns in "
            f"{'both' if len(sources) == 2 else 'all'}: "
            f"{', '.join(map(repr, shared)) or '(none)'}", param=param
        )
    labels = []
    for table, order in present:
        values = label_column(table, column)
        if order is not None:
            values = take_labels(values, order)
        labels.append((table.path, values))
    return merge_labels(labels, ids, column=column, what=what)


def _join_column(ta: Table, tb: Table) -> str:
    """An id column both tables share that ``id`` could join on (as Python writes it),
    or COL."""
    return next((repr(c) for c, (*_, unique) in _shared_id_columns(ta, tb).items() if unique),
                "COL")


def _shared_id_columns(
    ta: Table, tb: Table
) -> dict[str, tuple[Sequence[str], Sequence[str], bool]]:
    """Columns of both tables named like an item id (:data:`ID_HINTS`) whose values are
    (nearly) all distinct in each: their values in each table, and whether they are
    unique in both (so that ``id`` could join on them); unique ones first.  A column of
    few distinct values (a 'key' of 3 kinds) is not an id; one with a repeated or blank
    id among hundreds is a column of ids with a flaw."""
    found = {}
    for col in ta.columns:
        if col.strip().lower() not in ID_HINTS or col not in tb.columns:
            continue
        ids_a = label_column(ta, col)
        share = distinct_fraction(ids_a)
        if share < MOSTLY_IDS:
            continue
        ids_b = label_column(tb, col)
        share = min(share, distinct_fraction(ids_b))
        if share >= MOSTLY_IDS:  # (1.0: every row has an id, and no two the same)
            found[col] = (ids_a, ids_b, share == 1.0)
    return dict(sorted(found.items(), key=lambda kv: not kv[1][2]))


def _check_position_pairing(
    id_cols: dict[str, tuple[Sequence[str], Sequence[str], bool]],
) -> list[str]:
    """Refuse to pair rows by position when both tables' id columns say otherwise.

    Returns the report's notes for the id columns that agree row by row; raises
    InputError for the first one that does not (other order, or other ids), also when it
    has repeated or blank ids (it cannot join the tables, but it shows they differ).
    """
    notes = []
    for col, (ids_a, ids_b, unique) in id_cols.items():
        if not same_labels(ids_a, ids_b):
            fix = (f"give `id={col!r}` to join the files on it" if unique else
                   "it has repeated or blank ids, so it cannot join them: fix the ids (or "
                   "rename the column if it does not identify items)")
            raise InputError(
                f"both files have an id column {col!r} but its rows are in a different "
                f"order (or hold different ids): {fix}", param="id"
            )
        notes.append(f"rows paired by position; their {col!r} columns agree")
    return notes

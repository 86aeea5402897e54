"""Line up the items of several systems' tables: the per-item inputs of :func:`pairboot.compare`.

Every reader of scores (files given on the command line, and later the adapters of
evaluation harnesses' logs) ends with tables of per-item values; :func:`align` turns them
into one array per system in a common item order, with the group and stratum labels (from
the score files, or from a file of labels joined on the ids), and refuses what would pair
the wrong items: ids that differ between files (unless asked to keep the items every file
scores, saying how many each lost), or rows paired by position when a column both files
share shows that they are not the same items (:func:`pairboot.inputs.pairing.position_check`:
judged by the column's content, compared with Arrow when pyarrow read the files).

Messages write :func:`align`'s own arguments as `` `id` `` / `` `id='qid'` `` (see
:func:`pairboot.errors.spell`), so that the command line can show its option instead.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from pairboot.errors import InputError
from pairboot.inputs.labels import normalisation_hint
from pairboot.inputs.pairing import (
    ID_HINTS,
    MOSTLY_IDS,
    counts_rows,
    is_id_name,
    misaligned_message,
    position_check,
)
from pairboot.io import arrow
from pairboot.io.columns import (
    ArrowLabels,
    all_distinct,
    distinct_fraction,
    field_labels,
    has_field,
    id_column,
    label_column,
    labels_evidence,
    merge_labels,
    pairing_labels,
    positions_in,
    same_labels,
    show_values,
    sorted_ids,
    stats_columns,
    take_labels,
)
from pairboot.io.common import CommonItems, warn_lost
from pairboot.io.tables import Table

__all__ = ["ID_HINTS", "MOSTLY_IDS", "Aligned", "align", "check_row_pairing", "join_on_ids",
           "labels_by_id"]

_ARROW_JOIN_MIN = 10_000
"""Fewer ids than this are joined by a Python dict (as fast, nothing to convert)."""

Check = Callable[[np.ndarray, Table, Sequence[str]], None]
"""``check(values, table, columns)``: a system's values, rows in ``table``'s order."""


@dataclass(slots=True, eq=False)
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
    common : CommonItems or None
        With ``common_items``: how many items were kept, of how many, and what each
        table lost (every report writes it under its headline:
        ``ReportContext(items_kept=...)``).
    """

    values: tuple[np.ndarray, ...]
    ids: Sequence[str] | None
    groups: Sequence[str] | None
    strata: Sequence[str] | None
    layout: str
    notes: tuple[str, ...]
    common: CommonItems | None = None


def align(
    tables: Sequence[Table],
    *,
    columns: Sequence[Sequence[str]],
    id: str | None = None,
    groups: str | None = None,
    strata: str | None = None,
    labels: Table | None = None,
    common_items: bool = False,
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
        counts must match (unless unpaired), and no column the tables share besides
        the values may show that the rows are other items (a column of distinct values
        in another order, or partly other ones; labels in a random order; any
        difference in a column named like ids, :data:`ID_HINTS`: see
        :func:`pairboot.inputs.pairing.judge`).
    groups, strata : str, optional
        Columns of group and stratum labels, read from every table that has them (they
        must agree where several do, and label every item).  ``COLUMN.KEY`` reads the
        field ``KEY`` of a column of objects (or of their text, as SimpleQA's
        ``metadata``) where no column has that name.
    labels : Table, optional
        A table of labels (a question file: ids, topics, sources) joined on ``id``:
        ``groups`` and ``strata`` are read from it too.  It may hold more ids than the
        items; each once.
    common_items : bool
        With ``id``: compare on the ids that every table holds, in the first table's
        order, instead of refusing tables whose ids differ; the layout, the notes and
        ``common`` say how many items each table lost, and a
        :class:`~pairboot.errors.PairbootWarning` names the tables that lost more than
        10% of their items.  Never the default: the items dropped are the ones a system
        did not score (a failure, a time-out), and leaving them out can favour it.
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
    _check_options(tables, id, groups, strata, labels, common_items)
    owners = tables * len(columns) if one else tables
    if one:
        tables[0].check_columns([id, *(c for cols in columns for c in cols)])
    else:
        for table, cols in zip(tables, columns):
            table.check_columns([id, *cols])
    first = tables[0]
    notes: list[str] = []
    ids = None
    common = None
    orders: list[np.ndarray | None] = [None] * len(tables)
    if one:  # the systems' values are already side by side
        ids = id_column(first, id) if id is not None else None
        layout = f"{first.n_rows:,} item{'' if first.n_rows == 1 else 's'} in {first.path}"
    elif id is not None and common_items:
        ids, orders, layout, note, common = _common_items(tables, id)
        notes.append(note)
        warn_lost(common)
    elif id is not None:
        ids = id_column(first, id, to_join=True)
        for k, table in enumerate(tables[1:], 1):
            orders[k] = join_on_ids(ids, id_column(table, id, to_join=True), first.path,
                                    table.path)
        layout = f"{first.n_rows:,} items joined on column {id!r}"
    else:
        read = {c for cols in columns for c in cols}
        for table in tables[1:]:
            if table.n_rows != first.n_rows and (paired or groups or strata):
                raise InputError(
                    f"{first.path} has {first.n_rows} rows but {table.path} has "
                    f"{table.n_rows}: without `id` the rows are paired by position, so the "
                    f"counts must match (give `id={_join_column(first, table)}` to join the "
                    "files on an id column)", param="id"
                )
            if paired:
                for note in _check_position_pairing(first, table, read):
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
    sources = list(zip(tables, orders))
    if labels is not None:
        sources.append((labels, positions_in(ids, id_column(labels, id))))
        named = " and ".join(f"{what} labels (column {c!r})" for what, c in
                             (("group", groups), ("stratum", strata)) if c is not None)
        notes.append(f"{named} from {labels.path}, joined on column {id!r}")
    return Aligned(
        values=tuple(values),
        ids=ids,
        groups=_item_labels(sources, ids, groups, "group", "groups"),
        strata=_item_labels(sources, ids, strata, "stratum", "strata"),
        layout=("" if paired else "unpaired, ") + layout,
        notes=tuple(notes),
        common=common,
    )


def check_row_pairing(tables: Sequence[Table], read: Iterable[str]) -> tuple[str, ...]:
    """Refuse to pair the rows of ``tables`` by position when a column they share
    besides ``read`` (the values) shows other items, as :func:`align` does without
    ``id`` (for readers that pair rows by position themselves); the notes of the
    columns found to agree."""
    notes: list[str] = []
    for table in tables[1:]:
        if table.n_rows == tables[0].n_rows:
            notes += [n for n in _check_position_pairing(tables[0], table, set(read))
                      if n not in notes]
    return tuple(notes)


def labels_by_id(table: Table, id: str, ids: Sequence[str], column: str, *, what: str,
                 param: str) -> Sequence[str]:
    """One ``what`` label per item of ``ids`` from ``column`` of ``table`` (a file of
    labels, joined on its column ``id``): :func:`align`'s ``labels``, for items aligned
    elsewhere (harness logs).  Every item needs a label; the file may hold more ids."""
    table.check_columns([id])
    return _item_labels([(table, positions_in(ids, id_column(table, id)))], ids, column,
                        what, param)


def _check_options(tables, id, groups, strata, labels, common_items) -> None:
    """What ``labels`` and ``common_items`` need: ``id``, and for labels a column of
    them to read; both for a table per system."""
    if labels is not None:
        if id is None:
            raise InputError("`labels` is joined on the items' ids: give `id` (its column, "
                             "in the labels and in the scores)", param="labels")
        if groups is None and strata is None:
            raise InputError("`labels` holds group or stratum labels: name their column "
                             "with `groups` or `strata`", param="labels")
        labels.check_columns([id])
    if common_items:
        if id is None:
            raise InputError("`common_items` keeps the items whose ids every file holds: "
                             "give `id`", param="common_items")
        if len(tables) == 1:
            raise InputError("`common_items` is for a file per system; in one file every "
                             "item has every system's value", param="common_items")


def _common_items(tables: Sequence[Table], id: str):
    """The ids every table holds, in the first's order, and each table's rows of them:
    ``(ids, orders, layout, note, common)``; the note and ``common`` say how many items
    each table lost."""
    first = tables[0]
    all_ids = [id_column(t, id) for t in tables]
    where = [positions_in(all_ids[0], other) for other in all_ids[1:]]
    kept = np.ones(first.n_rows, dtype=bool)
    for w in where:
        kept &= w >= 0
    rows = np.flatnonzero(kept)
    if not len(rows):
        raise InputError(f"no id of column {id!r} is in every file "
                         f"({', '.join(t.path for t in tables)}): there are no items to "
                         "compare", param="common_items")
    orders = [rows, *(w[rows] for w in where)]
    ids = take_labels(all_ids[0], rows)
    lost = [f"{t.n_rows - len(rows):,} of the {t.n_rows:,} items of {t.path}"
            for t in tables]
    layout = (f"{len(rows):,} items joined on column {id!r}, the items every file scores "
              "(`common_items`)")
    note = (f"compared on the {len(rows):,} items that every file scores (`common_items`): "
            f"dropped {', '.join(lost[:-1])} and {lost[-1]}; the items a system did not "
            "score may be the hard ones, so the comparison can favour it")
    every = set()
    for held in all_ids:
        every.update(list(held))
    common = CommonItems(kept=len(rows), total=len(every),
                         sources=tuple(t.path for t in tables),
                         sizes=tuple(t.n_rows for t in tables))
    return ids, orders, layout, note, common


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
            f"the ids of {name_a} and {name_b} differ: {'; '.join(parts)}"
            f"{normalisation_hint(only_a, only_b, name_a, name_b)}; "
            "every item needs a score from both systems (`common_items` compares on the "
            "items both score, saying how many each lost)"
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
    """One ``what`` label per item from ``column`` of the tables that have it (or its
    field, ``COLUMN.KEY``: :func:`pairboot.io.columns.field_labels`).

    ``sources`` are ``(table, order)``: ``order`` puts a table's rows in the items'
    order (None: they are; -1: the table has no row for that item).  Tables that both
    label an item must agree."""
    if column is None:
        return None
    present = [(t, order) for t, order in sources if has_field(t, column)]
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
        values = field_labels(table, column)
        if order is not None:
            values = take_labels(values, order)
        labels.append((table.path, values))
    return merge_labels(labels, ids, column=column, what=what)


def _join_column(ta: Table, tb: Table) -> str:
    """A column both tables share, named like ids (:data:`ID_HINTS`), that ``id`` could
    join on (as Python writes it), or COL."""
    for col in ta.columns:
        if is_id_name(col) and col in tb.columns and all_distinct(label_column(ta, col)) \
                and all_distinct(label_column(tb, col)):
            return repr(col)
    return "COL"


def _check_position_pairing(ta: Table, tb: Table, read: set[str]) -> list[str]:
    """Refuse to pair the rows of ``ta`` and ``tb`` by position when a column both have
    (other than the values ``read``) shows they are not the same items in the same
    order: :func:`pairboot.inputs.pairing.position_check` on their labels, compared with
    Arrow when pyarrow read both.

    Returns the report's notes: the columns named like ids whose values are ids and
    agree, and the column that showed the rows to be the same items when others
    differ."""
    shared = [c for c in ta.columns if c in tb.columns and c not in read]

    def pair(col: str):
        la = pairing_labels(ta, col)
        lb = None if la is None else pairing_labels(tb, col)
        return None if lb is None else (la[0], lb[0], la[1] or lb[1])

    def agrees(col: str) -> bool | None:
        got = pair(col)
        return None if got is None else same_labels(got[0], got[1])

    def weigh(col: str):
        got = pair(col)
        if got is None:
            return None
        return labels_evidence(got[0], got[1]), counts_rows(got[0]), got[2]

    found = position_check(shared, agrees, weigh)
    if found is not None and found.verdict == "misaligned":
        col, ev = found.column, found.evidence
        if ev.unique:
            fix = f"give `id={col!r}` to join the files on it"
        elif found.id_named and ev.distinct >= MOSTLY_IDS:
            fix = ("it has repeated or blank ids, so it cannot join them: fix the ids (or "
                   "rename the column if it does not identify items)")
        else:
            fix = (f"give `id={_join_column(ta, tb)}` to join the files on a column of ids "
                   "both hold")
        raise InputError(misaligned_message(found, "both files", tb.path, fix), param="id")
    notes = []
    for col in shared:
        if is_id_name(col) and distinct_fraction(label_column(ta, col)) >= MOSTLY_IDS \
                and same_labels(label_column(ta, col), label_column(tb, col)):
            notes.append(f"rows paired by position; their {col!r} columns agree")
    if found is not None and not found.id_named:
        notes.append(f"rows paired by position; their {found.column!r} columns agree (a "
                     "different value in every row)")
    return notes

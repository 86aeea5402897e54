"""A table's raw columns into what the API takes: numbers, ids and labels, each checked.

Every bad value is refused here, once, with the file, the line (or row), the column and
the value; nothing is skipped.  A column that pyarrow read is converted in bulk by the
twins in :mod:`pairboot.io.arrow` and its labels stay an Arrow array (a few bytes a row
rather than a Python string each); whatever the twins cannot convert exactly goes value by
value here, so the values and the messages do not depend on which reader ran.

Examples
--------
>>> import os, tempfile
>>> from pairboot.io import read_table
>>> path = os.path.join(tempfile.mkdtemp(), "base.csv")
>>> with open(path, "w") as f:
...     _ = f.write("id,score\\nq1,0.5\\nq2,0.25\\n")
>>> table = read_table(path)
>>> numeric_column(table, "score").tolist()
[0.5, 0.25]
>>> id_column(table, "id")
['q1', 'q2']
"""

from __future__ import annotations

import ast
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence

import numpy as np

from pairboot.engine.keys import text_keys
from pairboot.errors import InputError
from pairboot.inputs.labels import shown
from pairboot.inputs.pairing import Evidence, codes, evidence
from pairboot.inputs.precision import EXACT_INTEGERS, integer_problem, is_integer_text
from pairboot.io import arrow
from pairboot.io.tables import Table

_BOOLEANS = {"true": 1.0, "false": 0.0}  # as pandas writes a boolean column
_SHOW = 5  # how many offending ids an error message lists

# --------------------------------------------------------------------------- numbers


def numeric_column(table: Table, name: str, *, missing: bool = False) -> np.ndarray:
    """Column ``name`` as float64, every value a finite number.

    A missing, non-numeric, NaN or infinite value raises InputError naming the file, the
    line (or row), the column and the value, and how many more bad values follow.
    ``missing``: a missing (empty) value is NaN instead (a system without that cell).
    """
    column = table.arrow_array(name)
    if column is not None:
        values = arrow.numbers(column)
        arrow.release_arrow_memory()  # the text trimmed and cast: about twice the column
        if values is not None:
            return values
    raw = table.column(name)
    out = np.empty(len(raw), dtype=np.float64)
    first: tuple[int, str] | None = None
    n_bad = 0
    for i, value in enumerate(raw):
        number, problem = to_number(value)
        if problem is None:
            out[i] = number
            continue
        if missing and problem.startswith("missing value"):
            out[i] = np.nan
            continue
        n_bad += 1
        if first is None:
            first = (i, problem)
    if first is not None:
        i, problem = first
        more = f" ({n_bad - 1} more bad value(s) in this column)" if n_bad > 1 else ""
        raise InputError(f"{table.path}, {table.where(i)}, column {name!r}: {problem}{more}")
    return out


def to_number(value: object, what: str = "scores") -> tuple[float, str | None]:
    """``(number, None)``, or ``(anything, problem)`` naming the value; ``what`` says
    what the number is for in the message ("scores must be finite numbers").

    Text is stripped; ``true``/``false`` (any case) read 1 and 0; Python's ``float``
    decides the rest, but only plain ASCII digits (no ``1_000``, no other scripts).  An
    integer beyond 2**53, given as a number or as digits, is refused
    (:mod:`pairboot.inputs.precision`): float64 would round it.
    """
    if value is None:
        return 0.0, "missing value"
    if isinstance(value, bool):
        return float(value), None
    if isinstance(value, (int, float, np.integer, np.floating)):
        if not (isinstance(value, (float, np.floating))
                or -EXACT_INTEGERS <= value <= EXACT_INTEGERS):
            return 0.0, integer_problem(int(value))  # (float() would round it, or overflow)
        number = float(value)
    elif isinstance(value, str):
        text = value.strip()
        if not text:
            return 0.0, "missing value (empty)"
        if text.lower() in _BOOLEANS:
            return _BOOLEANS[text.lower()], None
        try:
            number = float(text)
        except ValueError:
            return 0.0, f"{shown(value)} is not a number"
        if not text.isascii() or "_" in text:  # float() takes 1_000, ١٢ and １
            return 0.0, f"{shown(value)} is not a number"
        if abs(number) >= EXACT_INTEGERS and is_integer_text(text):
            problem = integer_problem(int(text))
            if problem is not None:
                return 0.0, problem
    else:
        return 0.0, f"{shown(value)} is not a number"
    if math.isnan(number):
        return number, f"{shown(value)} is NaN; {what} must be finite numbers"
    if math.isinf(number):
        return number, f"{shown(value)} is infinite; {what} must be finite numbers"
    return number, None


def stats_columns(table: Table, names: Sequence[str]) -> np.ndarray:
    """Columns ``names`` as an ``(n_rows, len(names))`` float64 array (each checked)."""
    return np.column_stack([numeric_column(table, n) for n in names])


# ---------------------------------------------------------------------------- labels


def to_label(value: object) -> str | None:
    """An id or label as a string (``None`` when missing); ``3`` and ``3.0`` both read "3"."""
    if value is None:
        return None
    if isinstance(value, float):
        if math.isnan(value):
            return None
        if value.is_integer():
            return str(int(value))
        return repr(value)
    try:
        text = str(value).strip()
    except ValueError:  # an integer of more digits than Python writes as text
        raise InputError(f"an id or label of {value.bit_length():,} bits: ids and labels "
                         "must be text or integers of at most 4,300 digits") from None
    return text or None


def label_column(table: Table, name: str) -> Sequence[str | None]:
    """Column ``name`` as strings, ``None`` where the value is missing (blank or null).

    A list; for a column read by pyarrow, a sequence kept as an Arrow array
    (:class:`ArrowLabels`), that the functions below handle in bulk.
    """
    column = table.arrow_array(name)
    if column is not None:
        labels = arrow.labels(column)
        arrow.release_arrow_memory()
        if labels is not None:
            return ArrowLabels(labels)
    return [to_label(v) for v in table.column(name)]


class LabelSequence(Sequence):
    """A sequence of labels that compares equal to a list of the same labels."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (list, LabelSequence)):
            return NotImplemented
        return same_labels(self, other)

    __hash__ = None  # type: ignore[assignment]  # as a list


class ArrowLabels(LabelSequence):
    """Labels as an Arrow string array (null where missing), read as a sequence of
    ``str | None``: one value at a time for messages, a chunk at a time when iterated."""

    __slots__ = ("array", "_order", "_sorted")

    def __init__(self, array):
        self.array = array
        self._order = self._sorted = None

    def sort_order(self):
        """The indices that sort the labels, and the sorted labels, kept until
        :meth:`forget_sort` (ids to be joined: checking that they are distinct and
        joining them both use it; :func:`pairboot.io.join_on_ids` forgets it)."""
        if self._order is None:
            self._order, self._sorted = arrow.sort(self.array)
        return self._order, self._sorted

    def forget_sort(self) -> None:
        """Drop the kept sort (the size of the labels again, and eight bytes each)."""
        self._order = self._sorted = None

    def __len__(self) -> int:
        return len(self.array)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return self.array[i].to_pylist()
        return self.array[i].as_py()

    def __iter__(self) -> Iterator[str | None]:
        chunks = getattr(self.array, "chunks", [self.array])
        for chunk in chunks:
            for start in range(0, len(chunk), 1 << 16):
                yield from chunk.slice(start, 1 << 16).to_pylist()

    def __repr__(self) -> str:
        return f"ArrowLabels({len(self)} labels)"


class CodedLabels(LabelSequence):
    """Labels as codes into the distinct labels (``categories[codes[i]]`` is item ``i``'s),
    as pandas' Categorical has them: :func:`pairboot.compare` reads them as they are."""

    __slots__ = ("codes", "categories")

    def __init__(self, codes: np.ndarray, categories: list[str]):
        self.codes, self.categories = codes, categories

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self.categories[c] for c in self.codes[i].tolist()]
        return self.categories[self.codes[i]]

    def __iter__(self) -> Iterator[str]:
        categories = self.categories
        return (categories[c] for c in self.codes.tolist())

    def __repr__(self) -> str:
        return f"CodedLabels({len(self)} labels, {len(self.categories)} distinct)"


def sorted_ids(ids: Sequence[str | None]):
    """The Arrow sort of ``ids`` (:func:`pairboot.io.arrow.sort`); None when some id is
    missing or pyarrow cannot have them."""
    if isinstance(ids, ArrowLabels):
        return None if ids.array.null_count else ids.sort_order()
    return arrow.sort_texts(list(ids))


def _counts(labels: Sequence[str | None]) -> tuple[int, int]:
    """``(labels present, distinct labels)``: missing ones (None) are not counted."""
    if isinstance(labels, ArrowLabels):
        return arrow.count(labels.array, labels._sorted)  # (kept for a join: id_column)
    present_labels = [v for v in labels if v is not None]
    return len(present_labels), len(set(present_labels))


def distinct_fraction(labels: Sequence[str | None]) -> float:
    """Distinct labels per item (missing ones not counted): 1 for a column of ids."""
    return _counts(labels)[1] / len(labels) if len(labels) else 1.0


def all_distinct(labels: Sequence[str | None]) -> bool:
    """Whether every item has a label and no two share one (a column of ids)."""
    return _counts(labels) == (len(labels), len(labels))


def has_repeats(labels: Sequence[str | None]) -> bool:
    """Whether some label (not counting missing ones) is given to more than one item."""
    first = [v for v in labels[:4096] if v is not None]  # a column of repeats: seen here
    if len(set(first)) < len(first):
        return True
    present, distinct = _counts(labels)
    return distinct < present


def same_labels(a: Sequence[str | None], b: Sequence[str | None]) -> bool:
    """Whether ``a`` and ``b`` hold the same labels in the same order."""
    if len(a) != len(b):
        return False
    if not len(a):
        return True
    if isinstance(a, ArrowLabels) and isinstance(b, ArrowLabels):
        same = arrow.equal(a.array, b.array)
        if same is not None:
            return same
    return list(a) == list(b)


def take_labels(labels: Sequence[str | None], order: np.ndarray) -> Sequence[str | None]:
    """``labels`` reordered: item ``i`` of the result is ``labels[order[i]]`` (missing
    where ``order[i]`` is -1)."""
    order = np.asarray(order)
    absent = order < 0
    if isinstance(labels, ArrowLabels):
        import pyarrow as pa

        where = pa.array(order, mask=absent) if absent.any() else order
        return ArrowLabels(labels.array.take(where))
    return [None if j < 0 else labels[j] for j in order.tolist()]


def positions_in(ids_a: Sequence[str], ids_b: Sequence[str]) -> np.ndarray:
    """For each of ``ids_a``, its position in ``ids_b`` (each id once there), or -1."""
    if isinstance(ids_a, ArrowLabels) and isinstance(ids_b, ArrowLabels):
        import pyarrow.compute as pc

        found = pc.index_in(ids_a.array, value_set=_one_array(ids_b.array))
        return np.asarray(found.fill_null(-1), dtype=np.intp)
    where = {v: j for j, v in enumerate(ids_b)}
    return np.fromiter((where.get(v, -1) for v in ids_a), dtype=np.intp, count=len(ids_a))


def _one_array(array):
    """An Arrow array of one chunk (a value set must be one)."""
    return array.combine_chunks() if hasattr(array, "combine_chunks") else array


# ---------------------------------------------------- columns compared between tables


def pairing_labels(table: Table, name: str) -> tuple[Sequence[str | None], bool] | None:
    """Column ``name`` as labels (:func:`label_column`) for comparing two tables' rows,
    and whether it holds measurements: numbers with fractions (scores, costs, times,
    a human z-score), which count as evidence only when their values are (nearly) all
    distinct and reappear at other rows (:func:`pairboot.inputs.pairing.judge`); None for
    booleans, which say nothing of which items the rows are.  (Text that all reads as
    numbers counts as numbers, so that a file read by pyarrow and one read value by
    value agree.)"""
    measured = False
    column = table.arrow_array(name)
    if column is not None:
        kind = str(column.type)
        if kind == "bool":
            return None
        if kind in ("double", "float", "halffloat") or (
                kind == "string" and _numbers_first(column.slice(0, 64).to_pylist())):
            values = arrow.numbers(column)  # (None unless every value is a number)
            measured = values is not None and _has_fractions(values)
    labels = label_column(table, name)
    if not isinstance(labels, ArrowLabels):
        head = labels[:64]
        if _numbers_first(head):
            try:
                values = np.array([v for v in labels if v is not None], dtype=np.float64)
            except (TypeError, ValueError):  # (text that is not a number, further down)
                values = None
            measured = measured or (values is not None and _has_fractions(values))
        if any(v in ("True", "False") for v in head) and \
                set(labels) <= {"True", "False", None}:
            return None  # (JSON booleans, as to_label writes them)
    return labels, measured


def _numbers_first(values: list) -> bool:
    """Whether the first values present read as numbers (so the column may be numbers:
    the whole column is then converted)."""
    present = [v for v in values if v is not None and (not isinstance(v, str) or v.strip())]
    try:
        return bool(present) and all(isinstance(float(v), float) for v in present)
    except (TypeError, ValueError):
        return False


def _has_fractions(values: np.ndarray) -> bool:
    finite = values[np.isfinite(values)]
    return bool((finite != np.round(finite)).any())


def labels_evidence(a: Sequence[str | None], b: Sequence[str | None]) -> Evidence:
    """:func:`pairboot.inputs.pairing.evidence` of two tables' labels of a column: from the 64-bit
    keys of the texts when pyarrow read both (hashed from Arrow's buffers), else from
    codes into the distinct labels."""
    if isinstance(a, ArrowLabels) and isinstance(b, ArrowLabels):
        keys_a, keys_b = _text_keys(a.array), _text_keys(b.array)
        if keys_a is not None and keys_b is not None:
            return evidence(keys_a[0], keys_b[0], keys_a[1], keys_b[1])
    return evidence(*codes(list(a), list(b)))


def _text_keys(array) -> tuple[np.ndarray, np.ndarray] | None:
    """The 64-bit keys of an Arrow string array's texts (:func:`pairboot.engine.keys.
    text_keys`, hashed from its buffers, no Python object per text) and where it is
    null; None for another type.  Two texts alike have one key; two texts unlike share
    one with a chance of about n^2 / 2^65 over n texts, which no judgement of a column
    here can notice."""
    keys, missing = [], []
    for chunk in getattr(array, "chunks", [array]):
        if str(chunk.type) != "string":
            return None
        bufs = chunk.buffers()
        n = len(chunk)
        offsets = np.frombuffer(bufs[1], dtype=np.int32)[chunk.offset : chunk.offset + n + 1]
        data = (np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None
                else np.zeros(0, np.uint8))
        keys.append(text_keys(offsets.astype(np.int64), data))
        missing.append(np.asarray(chunk.is_null(), dtype=bool) if chunk.null_count
                       else np.zeros(n, dtype=bool))
    if not keys:
        return np.zeros(0, np.uint64), np.zeros(0, bool)
    return np.concatenate(keys), np.concatenate(missing)


def has_field(table: Table, name: str) -> bool:
    """Whether ``name`` is a column of ``table``, or a field ``COLUMN.KEY`` of one
    (:func:`field_labels`)."""
    return name in table.columns or _field(table, name) is not None


def _field(table: Table, name: str) -> tuple[str, str] | None:
    """``(column, key)`` when ``name`` is no column but ``COLUMN.KEY`` of one (the
    longest column that fits)."""
    if name in table.columns:
        return None
    cuts = [i for i, c in enumerate(name) if c == "."]
    for i in reversed(cuts):
        if name[:i] in table.columns and name[i + 1:]:
            return name[:i], name[i + 1:]
    return None


def field_labels(table: Table, name: str) -> Sequence[str | None]:
    """Column ``name`` as labels (:func:`label_column`); or, when ``name`` is
    ``COLUMN.KEY`` and no column, the field ``KEY`` of every row's value of
    ``COLUMN``: a JSON object, or its text (JSON, or a Python dict as ``str(dict)``
    writes it, as SimpleQA's ``metadata``).  A row without the field has no label; a
    value that is no object is an error naming the line."""
    found = _field(table, name)
    if found is None:
        return label_column(table, name)
    column, key = found
    out: list[str | None] = []
    for i, value in enumerate(table.column(column)):
        mapping = _mapping(value)
        if mapping is None:
            if value is None or (isinstance(value, str) and not value.strip()):
                out.append(None)
                continue
            text = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
            raise InputError(f"{table.path}, {table.where(i)}, column {column!r}: {text} is "
                             f"not an object, so it has no field {key!r}")
        out.append(to_label(mapping.get(key)))
    return out


def _mapping(value) -> Mapping | None:
    """A JSON object, or the text of one (JSON, or a Python dict literal), else None."""
    if isinstance(value, Mapping):
        return value
    if not isinstance(value, str) or not value.strip().startswith("{"):
        return None
    import json  # (a cell that looks like JSON: imported when there is one)

    try:
        parsed = json.loads(value)
    except ValueError:
        try:
            parsed = ast.literal_eval(value.strip())
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
    return parsed if isinstance(parsed, Mapping) else None


def id_column(table: Table, name: str, *, to_join: bool = False) -> Sequence[str]:
    """Column ``name`` as string ids (see :func:`label_column`); missing or duplicate
    ids raise InputError.  ``to_join``: keep the sort that checks them for
    :func:`pairboot.io.join_on_ids`.

    A duplicate names the id and the lines (or rows) of its first two occurrences.
    """
    ids = label_column(table, name)
    if to_join and isinstance(ids, ArrowLabels) and not ids.array.null_count:
        ids.sort_order()
    if all_distinct(ids):
        return ids  # type: ignore[return-value]
    ids = list(ids)  # for the message
    missing = [i for i, v in enumerate(ids) if v is None]
    if missing:
        raise InputError(
            f"{table.path}, {table.where(missing[0])}, column {name!r}: missing id"
            + (f" ({len(missing) - 1} more row(s) without an id)" if len(missing) > 1 else "")
        )
    seen: dict[str, int] = {}
    duplicates: list[tuple[str, int, int]] = []
    for i, v in enumerate(ids):
        if v in seen:
            duplicates.append((v, seen[v], i))
        else:
            seen[v] = i
    if duplicates:
        v, i, j = duplicates[0]
        more = (
            f"; {len(duplicates) - 1} more duplicate row(s)" if len(duplicates) > 1 else ""
        )
        raise InputError(
            f"{table.path}, column {name!r}: duplicate id {shown(v)} "
            f"({table.where(i)} and {table.where(j)}){more}; ids must be unique"
        )
    return ids  # type: ignore[return-value]


def merge_labels(
    sources: Sequence[tuple[str, Sequence[str | None]]],
    ids: Sequence[str] | None,
    *,
    column: str,
    what: str,
) -> Sequence[str]:
    """One label per item from one or more files' columns (already aligned).

    ``sources`` is ``[(file name, labels), ...]`` with labels in the common item order.
    Two files that both give a label for an item must agree (else an InputError names
    the id); an item with no label in any file is an error too.  A list; for labels
    read by pyarrow, codes into the distinct labels (:class:`CodedLabels`), which
    :func:`pairboot.compare` reads as they are.
    """
    if all(isinstance(labels, ArrowLabels) for _, labels in sources):
        coded = arrow.merge([labels.array for _, labels in sources])
        if coded is not None:
            return CodedLabels(*coded)
    n = len(sources[0][1])
    merged: list[str | None] = [None] * n
    origin: list[str | None] = [None] * n
    for file, labels in sources:
        for i, v in enumerate(labels):
            if v is None:
                continue
            if merged[i] is None:
                merged[i], origin[i] = v, file
            elif merged[i] != v:
                item = f"id {shown(ids[i])}" if ids is not None else f"item {i + 1}"
                raise InputError(
                    f"conflicting {what} labels in column {column!r} for {item}: "
                    f"{shown(merged[i])} in {origin[i]} but {shown(v)} in {file}"
                )
    missing = [i for i, v in enumerate(merged) if v is None]
    if missing:
        listed = [ids[i] for i in missing] if ids is not None else [str(i + 1) for i in missing]
        files = " and ".join(f for f, _ in sources)
        noun = "ids" if ids is not None else "items (by position)"
        raise InputError(
            f"{what} labels missing in column {column!r} of {files} for {len(missing)} of "
            f"{n} {noun} ({show_values(listed)}); every item needs a {what}"
        )
    return merged  # type: ignore[return-value]


def show_values(values: Iterable[str], limit: int = _SHOW) -> str:
    """The first ``limit`` values for a message: ``'q1', 'q2', ...`` (a long one cut,
    :func:`pairboot.inputs.labels.shown`)."""
    values = list(values)
    text = ", ".join(shown(v) for v in values[:limit])
    return text + (", ..." if len(values) > limit else "")

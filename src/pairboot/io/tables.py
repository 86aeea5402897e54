"""Files into tables: the formats, how a file's format is found, and the pure-Python readers.

A :class:`Table` holds a file's columns as read, before any conversion, and knows where
each row is in the file, so that every later message can name the file, the line and the
column.  Large CSV, TSV and JSON Lines files go to pyarrow when it is installed
(:mod:`pairboot.io.arrow`); whatever it might read otherwise comes here.

Formats are chosen by extension (:data:`pairboot.io.formats.FORMATS`, the table every
reader shares): ``.csv``, ``.tsv`` / ``.tab``, ``.jsonl`` / ``.ndjson``, ``.json`` (an array
of objects, or JSON Lines) and ``.parquet`` / ``.pq`` (each may end in ``.gz``).  ``-``
reads standard input, and a file with any other extension is sniffed: Parquet by its
magic bytes, JSON Lines when the first character is ``{``, a JSON array when it is ``[``,
TSV when the header has tabs and no commas, CSV otherwise.  Text must be UTF-8 (a
byte-order mark is fine).  Blank lines are not rows; no other row is ever dropped.

Where a value is
    CSV, TSV and JSON Lines: ``line N`` is the line number in the file, counting the header
    as line 1 (so the first data row of a CSV is line 2, of a JSON Lines file line 1).
    Parquet: ``row N`` is the 1-based data row; a JSON array: ``record N``, 1-based.
"""

from __future__ import annotations

import array
import csv
import io
import itertools
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from pairboot.errors import InputError
from pairboot.io import arrow, guards
from pairboot.io.formats import GZIP_MAGIC, compression_of, format_of, sniff

ARROW_FORMATS = ("csv", "tsv", "jsonl")
"""The text formats pyarrow reads when it is installed (and the file is plain enough)."""

STDIN = "-"
"""The file name that reads standard input."""

PROGRESS_ROWS = 50_000
"""How many lines (records) the pure-Python readers parse between two progress calls."""


@dataclass(frozen=True, slots=True, eq=False)
class Table:
    """The columns of one input file, as read (no conversion yet).

    Attributes
    ----------
    path : str
        The file name as given (``"<stdin>"`` for ``-``); every message uses it.
    columns : mapping of str to list
        Column name -> one raw value per row, in file order: strings for CSV/TSV, JSON
        values for JSON Lines (``None`` where a row lacks the key; a whole number may
        come as a float when its column also holds fractions), Python values for
        Parquet.  For a file read by pyarrow, the lists are made on first use from the
        Arrow arrays, which :mod:`pairboot.io.columns` converts in bulk instead.
    n_rows : int
        Number of data rows.
    format : str
        ``"csv"``, ``"tsv"``, ``"jsonl"``, ``"json"`` (an array of objects) or
        ``"parquet"``.
    lines : sequence of int
        Where each row is: its line number in the file (CSV, TSV, JSON Lines) or its
        1-based row number (Parquet, a JSON array); see :meth:`where`.  An int64 array
        (or a ``range``): eight bytes a row at most, not a Python int each.
    """

    path: str
    columns: Mapping[str, list]
    n_rows: int
    format: str
    lines: np.ndarray | range

    @property
    def read_by_pyarrow(self) -> bool:
        """Whether pyarrow read the file (its columns are Arrow arrays)."""
        return isinstance(self.columns, arrow.ArrowColumns)

    def arrow_array(self, name: str):
        """Column ``name`` as an Arrow array when read by pyarrow, else None."""
        return self.columns.arrays.get(name) if self.read_by_pyarrow else None

    def where(self, i: int) -> str:
        """``"line 7"`` / ``"row 7"`` for the 0-based data row ``i``."""
        unit = {"parquet": "row", "json": "record"}.get(self.format, "line")
        return f"{unit} {int(self.lines[i])}"

    def column(self, name: str) -> list:
        """The raw values of column ``name``; a missing column lists those available."""
        try:
            return self.columns[name]
        except KeyError:
            raise InputError(
                f"{self.path}: no column {name!r}{_suggest(name, self.columns)}; "
                f"available columns: {self.describe_columns()}"
            ) from None

    def check_columns(self, names: Iterable[str | None]) -> None:
        """Raise :meth:`column`'s error for the first of ``names`` (None: skipped) that
        the table lacks."""
        for name in names:
            if name is not None and name not in self.columns:
                self.column(name)

    def describe_columns(self, limit: int = 20) -> str:
        """The column names for a message: ``'id', 'score'`` (at most ``limit``)."""
        names = list(self.columns)
        shown = ", ".join(repr(c) for c in names[:limit]) or "(none)"
        return shown + (f", ... ({len(names) - limit} more)" if len(names) > limit else "")


def read_table(
    path: str | os.PathLike, *, progress: Callable[[int], None] | None = None
) -> Table:
    """Read a CSV, TSV, JSON Lines or Parquet file (``"-"``: standard input) into a Table.

    Raises :class:`~pairboot.errors.InputError` naming the file when it is missing, a
    directory, unreadable, empty, binary, not UTF-8, or malformed (with the line: also
    a CSV or TSV header repeated further down, as when files are concatenated).
    Parquet needs the optional pyarrow (``pip install "pairboot[parquet]"``).

    ``progress``, if given, is called as ``progress(rows)`` with the number of data rows
    read so far: every :data:`PROGRESS_ROWS` lines while the pure-Python reader parses
    CSV, TSV or JSON Lines, and once when the table is read.  The counts increase and
    the last is the table's ``n_rows``; a file that pyarrow reads, a Parquet file and a
    JSON array are parsed in one go, so for them that last call is the only one.  Rows
    only, no bytes: the whole file is in memory before parsing starts (standard input
    too), so the bytes read say nothing about the parsing.  A file that fails to read
    gets no final call.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "base.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("id,score\\nq1,0.5\\nq2,0.25\\n")
    >>> table = read_table(path)
    >>> table.n_rows, list(table.columns), table.where(0)
    (2, ['id', 'score'], 'line 2')
    """
    if progress is None:
        return _read_table(os.fspath(path), None)
    last = 0

    def report(rows: int) -> None:
        nonlocal last
        if rows > last:
            last = rows
            progress(rows)

    table = _read_table(os.fspath(path), report)
    report(table.n_rows)
    return table


def _read_table(name: str, progress: Callable[[int], None] | None) -> Table:
    if name == STDIN:
        display = "<stdin>"
        data = sys.stdin.buffer.read()
        fmt = None
    else:
        display = name
        data = _read_bytes(name)
        if compression_of(name, b"") == "gzip":  # (by the name; the bytes below)
            data = guards.gunzip(data, display)
        fmt = format_of(name)
    if data.startswith(GZIP_MAGIC):  # gzip without a .gz extension (or on stdin)
        data = guards.gunzip(data, display)
    if fmt is None:
        fmt = sniff(data)
    if fmt == "parquet":
        return _read_parquet(data, display)
    _check_text(data, display)
    delimiter = "\t" if fmt == "tsv" else ","
    if fmt in ("csv", "tsv"):
        # before decoding: Arrow checks the UTF-8 of every field (all read as text)
        table = _arrow_table(arrow.read_delimited(data, delimiter), display, fmt)
        if table is not None:
            return table
    text = _decode(data, display)
    if fmt == "json":
        fmt = "json" if text.lstrip().startswith("[") else "jsonl"
    if fmt == "json":
        return _read_json_array(text, display)
    if fmt == "jsonl":  # (the depth checked before a parser can crash on it)
        checked = []

        def check(lines: bytes, spans) -> None:
            guards.check_json_lines(lines, display, spans=spans)
            checked.append(True)

        table = _arrow_table(arrow.read_jsonl(data, check), display, fmt)
        if table is None and not checked:
            guards.check_json_lines(data, display)
        return table or _read_jsonl(text, display, progress)
    return _read_delimited(text, display, delimiter, fmt, progress)


def _arrow_table(parsed: arrow.Parsed | None, display: str, fmt: str) -> Table | None:
    """The Table of what pyarrow parsed; None (the pure-Python reader then raises its
    own message) when it read nothing or the header is not one :func:`_check_header`
    accepts."""
    if parsed is None:
        return None
    header, arrays, lines = parsed
    try:
        check_header(header, display)
    except InputError:
        return None
    columns = arrow.ArrowColumns(dict(zip(header, arrays)))
    return Table(display, columns, len(lines), fmt, lines)


def _read_bytes(name: str) -> bytes:
    if not os.path.exists(name):
        raise InputError(f"{name}: no such file")
    if os.path.isdir(name):
        raise InputError(f"{name}: is a directory, not a file")
    try:
        with open(name, "rb") as f:
            return f.read()
    except OSError as exc:
        raise InputError(f"{name}: cannot read the file ({exc.strerror or exc})") from None


def _check_text(data: bytes, display: str) -> None:
    """The checks of :func:`_decode` that need no decoding: a binary file or UTF-16."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputError(f"{display}: the text is UTF-16; save the file as UTF-8")
    if data.startswith(b"PAR1"):
        raise InputError(
            f"{display}: a binary file, Parquet by its first bytes, not CSV, TSV or JSON "
            "text; give it the .parquet extension"
        )
    nul = data.find(b"\x00")
    if nul >= 0:
        head = data[:4096]
        utf16 = len(head) >= 4 and max(head[0::2].count(0), head[1::2].count(0)) > len(head) // 4
        raise InputError(
            f"{display}: looks like a binary file (NUL byte at byte {nul}), not CSV, TSV or "
            "JSON text" + ("; if it is UTF-16 text, save it as UTF-8" if utf16 else "")
        )


def _decode(data: bytes, display: str) -> str:
    """``data`` as text (after :func:`_check_text`); not UTF-8 or empty: InputError."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            f"{display}: not valid UTF-8 text (byte 0x{data[exc.start]:02x} on line {line}); "
            "save the file as UTF-8"
        ) from None
    if not text or text.isspace():  # (not strip(): it would copy the whole text)
        raise InputError(f"{display}: the file is empty")
    return text


_END = object()


def _in_batches(
    records: Iterable, progress: Callable[[int], None] | None, rows: Callable[[], int]
) -> Iterator[Iterable]:
    """``records`` in runs of :data:`PROGRESS_ROWS`, with ``progress(rows())`` called
    between two runs (not after the last: :func:`read_table` reports the total).

    Without ``progress``, one run of everything: the reading loops cost nothing more.
    With it, each run is the record that showed there are more, then an ``islice`` of
    the rest: one C iterator a record, no Python code per row.
    """
    if progress is None:
        yield records
        return
    records = iter(records)
    started = False
    while (first := next(records, _END)) is not _END:
        if started:
            progress(rows())
        started = True
        yield (first,)
        yield itertools.islice(records, PROGRESS_ROWS - 1)


# ------------------------------------------------------------------------ CSV and TSV


def _read_delimited(text: str, display: str, delimiter: str, fmt: str,
                    progress: Callable[[int], None] | None = None) -> Table:
    # A long text field is no reason to refuse a file: csv's limit (131,072 characters
    # by default, one setting for the whole process) is raised to the file's length and
    # never lowered again, so that two threads reading files cannot undo each other.
    if len(text) > csv.field_size_limit():
        csv.field_size_limit(min(len(text), 2**31 - 1))
    return _read_delimited_rows(text, display, delimiter, fmt, progress)


class _QuotedLines:
    """Which lines (1-based, as csv counts them) of ``text`` hold a quote: a field of
    spaces in quotes is a value, not a blank line.  Found in one pass, the first time a
    line of spaces is met (rare)."""

    def __init__(self, text: str):
        self.text, self.lines = text, None

    def __contains__(self, line: int) -> bool:
        if self.lines is None:
            self.lines, number = set(), 1
            for match in _LINE_OR_QUOTE.finditer(self.text):
                if match.group() == '"':
                    self.lines.add(number)
                else:
                    number += 1
        return line in self.lines


_LINE_OR_QUOTE = re.compile(r'\r\n|\r|\n|"')


def _read_delimited_rows(text: str, display: str, delimiter: str, fmt: str,
                         progress: Callable[[int], None] | None = None) -> Table:
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    quoted = _QuotedLines(text)
    header: list[str] | None = None
    header_line = 0
    fields: list[list[str]] = []  # column by column: no list per row
    lines = array.array("q")  # eight bytes a row
    end = 0  # the last line consumed so far
    try:
        for batch in _in_batches(reader, progress, lambda: len(lines)):
            for record in batch:
                start, end = end + 1, reader.line_num
                if not record or (len(record) == 1 and record[0].isspace()
                                  and start not in quoted):
                    continue  # a blank line is not a row ('""': a row of one empty field)
                if header is None:
                    header, header_line = [h.strip() for h in record], start
                    raw_header = record
                    fields = [[] for _ in header]
                    continue
                if len(record) != len(header):
                    raise InputError(
                        f"{display}, line {start}: {len(record)} field(s), but the header "
                        f"(line {header_line}) has {len(header)}"
                        + (_delimiter_hint(header, delimiter) if len(header) == 1 else "")
                    )
                for column, value in zip(fields, record):
                    column.append(value)
                lines.append(start)
    except csv.Error as exc:
        raise InputError(
            f"{display}, line {reader.line_num}: malformed {fmt.upper()} ({exc})"
        ) from None
    if header is None:  # only blank lines (normally caught by _decode)
        raise InputError(f"{display}: the file is empty")
    check_header(header, display)
    if not lines:
        raise InputError(f"{display}: has a header (line {header_line}) but no data rows")
    _check_repeated_header(fields, header, raw_header, lines, header_line, display)
    columns = dict(zip(header, fields))
    return Table(display, columns, len(lines), fmt, np.frombuffer(lines, dtype=np.int64))


def _delimiter_hint(header: list[str], delimiter: str) -> str:
    other = "," if delimiter == "\t" else "\t"
    if other in header[0]:
        kind = "CSV" if other == "," else "TSV"
        return f" (the file looks like {kind}: give it a .{kind.lower()} extension)"
    return ""


def _check_repeated_header(fields: list[list[str]], header: list[str], raw: list[str],
                           lines, header_line: int, display: str) -> None:
    """Refuse a data row that is the header again (two files concatenated): read as
    data it would only show up later as a value that is "not a number".  The first
    column is searched in C (``list.index``), the rows it finds compared whole."""
    column = fields[0]
    for name in dict.fromkeys((header[0], raw[0])):
        start = 0
        while True:
            try:
                i = column.index(name, start)
            except ValueError:
                break
            if all(values[i].strip() == h for values, h in zip(fields, header)):
                raise InputError(
                    f"{display}, line {lines[i]} repeats the header (line {header_line}), "
                    "as when files are concatenated: remove that line, or give the files "
                    "separately"
                )
            start = i + 1


PANDAS_INDEX_HINT = ("pandas' to_csv() writes the row index as a first column without a "
                     "name unless given index=False ('Unnamed: 0' once read back and "
                     "written again), and R's write.csv() unless row.names=FALSE")
"""Why a table may start with a column of row numbers that no one named."""


def is_index_column(table: Table, name: str) -> bool:
    """Whether column ``name`` looks like a row index that pandas (or R) wrote: named
    ``""`` or ``Unnamed: N``, or first and unnamed, holding 0, 1, 2, ... (or 1, 2, ...)
    row by row."""
    if not (name == "" or re.fullmatch(r"Unnamed: \d+", name)):
        return False
    values = table.columns[name]
    if not len(values):
        return False
    start = str(values[0]).strip()
    if start not in ("0", "1"):
        return False
    first = int(start)
    return all(str(v).strip() == str(first + k) for k, v in enumerate(values))


def check_header(header: Sequence[str], display: str, what: str = "the header") -> None:
    """Refuse a column without a name, or a name given to two columns (``what`` names
    them: the header of a CSV file, the schema of a Parquet file), whether the run
    reads those columns or not, in memory and in chunks alike."""
    seen: dict[str, int] = {}
    for j, h in enumerate(header, 1):
        if not h:
            raise InputError(
                f"{display}: column {j} of {what} has no name"
                + (f": a row index? {PANDAS_INDEX_HINT}" if j == 1 else "")
            )
        if h in seen:
            raise InputError(
                f"{display}: {what} names column {h!r} twice (columns {seen[h]} and {j})"
            )
        seen[h] = j


# ------------------------------------------------------------------------------ JSON

_JSONL_BREAK = re.compile(r"\r\n|\r|\n")


class _DuplicateKey(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """json's object_pairs_hook: an object naming a key twice is refused (json.loads
    would keep the last value, silently), as a CSV header naming a column twice is."""
    record = dict(pairs)
    if len(record) != len(pairs):
        seen: set[str] = set()
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise _DuplicateKey(f"key {twice!r} appears twice in one object")
    return record


def _loads(text: str, display: str, where, first_line: int = 1) -> object:
    """json.loads with duplicate keys refused; ``where(exc)`` says where, for messages
    (``text`` starts on line ``first_line``)."""
    import json  # (JSON files only: not imported to read a CSV file)

    try:
        return guards.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise InputError(f"{display}, {where(exc)}: not valid JSON ({exc.msg})") from None
    except RecursionError:  # (a JSON array: its lines are not checked beforehand)
        raise guards.too_deep(text, display, first_line) from None
    except (_DuplicateKey, ValueError) as exc:
        place = where(None)
        what = (str(exc) if isinstance(exc, _DuplicateKey) else
                f"not valid JSON ({guards.json_value_problem(exc)})")
        raise InputError(f"{display}{', ' + place if place else ''}: {what}") from None


def _read_jsonl(text: str, display: str,
                progress: Callable[[int], None] | None = None) -> Table:
    columns = _ColumnBuilder()
    lines = array.array("q")
    # Lines end at \n, \r\n or \r only: a JSON string may hold U+2028 or U+0085 as is
    # (str.splitlines would cut it there); any other control character is invalid JSON.
    numbered = enumerate(_JSONL_BREAK.split(text), 1)
    for batch in _in_batches(numbered, progress, lambda: len(lines)):
        for number, line in batch:
            if not line.strip():
                continue
            record = _loads(line, display, lambda exc, number=number: f"line {number}",
                            number)
            if not isinstance(record, dict):
                raise InputError(
                    f"{display}, line {number}: expected a JSON object per line, "
                    f"got {type(record).__name__}"
                )
            columns.add(record)
            lines.append(number)
    return columns.table(display, "jsonl", np.frombuffer(lines, dtype=np.int64))


def _read_json_array(text: str, display: str) -> Table:
    records = _loads(text, display,
                     lambda exc: f"line {exc.lineno}" if exc is not None else None)
    if not isinstance(records, list):
        raise InputError(f"{display}: expected a JSON array of objects (one per item)")
    if not records:
        raise InputError(f"{display}: the JSON array is empty")
    for number, record in enumerate(records, 1):
        if not isinstance(record, dict):
            raise InputError(
                f"{display}, record {number}: expected a JSON object, "
                f"got {type(record).__name__}"
            )
    columns = _ColumnBuilder()
    for record in records:
        columns.add(record)
    return columns.table(display, "json", range(1, len(records) + 1))


class _ColumnBuilder:
    """Columns of JSON objects, filled one object at a time (no object is kept): a key
    first seen in a later object is None before it, and None where an object lacks it."""

    def __init__(self):
        self.columns: dict[str, list] = {}
        self.n = 0

    def add(self, record: dict) -> None:
        n = self.n
        for key, value in record.items():
            column = self.columns.get(key)
            if column is None:
                column = self.columns[key] = [None] * n
            column.append(value)
        self.n = n + 1
        if len(record) != len(self.columns):
            for column in self.columns.values():
                if len(column) == n:
                    column.append(None)

    def table(self, display: str, fmt: str, lines: np.ndarray | range) -> Table:
        if not self.columns:
            raise InputError(f"{display}: the JSON objects have no fields")
        return Table(display, self.columns, self.n, fmt, lines)


# --------------------------------------------------------------------------- Parquet


def _read_parquet(data: bytes, display: str) -> Table:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ImportError(
            f'{display}: reading Parquet needs pyarrow: pip install "pairboot[parquet]"'
        ) from None
    try:  # (a ParquetFile reads two columns of one name; read_table would not say which)
        table = pq.ParquetFile(pa.BufferReader(data)).read()
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise InputError(f"{display}: not a readable Parquet file ({exc})") from None
    check_header(table.column_names, display, "the schema")
    if table.num_rows == 0:
        raise InputError(f"{display}: the Parquet file has no rows")
    columns = arrow.ArrowColumns({name: table.column(name) for name in table.column_names})
    return Table(display, columns, table.num_rows, "parquet", range(1, table.num_rows + 1))


def _suggest(name: str, columns: Mapping[str, object]) -> str:
    """" (did you mean 'Score'?)" for a near miss, or a hint about the delimiter."""
    if len(columns) == 1:
        (only,) = columns
        for sep in (";", "|", "\t", ","):
            if sep in only:
                return f" (the header is one column {only!r}: is the file delimited by {sep!r}?)"
    import difflib  # (a message's: imported when there is one)

    by_case = [c for c in columns if c.lower() == name.lower()]
    close = by_case or difflib.get_close_matches(name, list(columns), n=1, cutoff=0.75)
    if close:
        return f" (did you mean {close[0]!r}?)"
    return ""

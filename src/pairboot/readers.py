"""Read per-item scores from files into columns, and check them on the way in.

The command line reads every input through this module, so that a bad file is caught
once, at the edge, with a message that names the file, the place in it and the column.

Formats are chosen by extension: ``.csv``, ``.tsv``, ``.jsonl`` / ``.ndjson``, ``.json``
(an array of objects, or JSON Lines) and ``.parquet`` (each may end in ``.gz``).  ``-``
reads standard input, and a file with any other extension is sniffed the same way:
Parquet by its magic bytes, JSON Lines when the first character is ``{``, a JSON array
when it is ``[``, TSV when the header has tabs and no commas, CSV otherwise.  Parquet
needs the optional ``pyarrow`` (``pip install "pairboot[parquet]"``).  Text must be UTF-8
(a byte-order mark is fine).

Where a value is
    CSV, TSV and JSON Lines: ``line N`` is the line number in the file, counting the header
    as line 1 (so the first data row of a CSV is line 2, of a JSON Lines file line 1).
    Parquet: ``row N`` is the 1-based data row; a JSON array: ``record N``, 1-based.

Nothing is ever written to an input file, and no row is dropped: a row that cannot be
used is an error (:class:`pairboot.errors.InputError`, a ``ValueError``), never skipped.
Blank lines are not rows and are ignored.

Speed: when ``pyarrow`` is installed (``pip install "pairboot[fast]"`` installs it with
the numba kernel, ``"pairboot[parquet]"`` alone), large CSV and TSV files without quote
characters are parsed by ``pyarrow.csv`` (every column as text), large JSON Lines files
by ``pyarrow.json``, and their columns converted with vectorised Arrow kernels.  That path
gives exactly the values of the pure-Python one (Arrow's text-to-number cast accepts
only text that Python's ``float`` accepts, and rounds it the same way; its JSON numbers
are Python's), and whenever a file or a column holds anything it does not handle
(quotes, a stray carriage return, a ragged row, mixed types, a bad value...), the
pure-Python reader runs instead, so every message is the same too.

Examples
--------
>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> path = os.path.join(folder, "base.csv")
>>> with open(path, "w") as f:
...     _ = f.write("id,score\\nq1,0.5\\nq2,0.25\\n")
>>> table = read_table(path)
>>> table.n_rows, list(table.columns)
(2, ['id', 'score'])
>>> numeric_column(table, "score").tolist()
[0.5, 0.25]
>>> id_column(table, "id")
['q1', 'q2']
"""

from __future__ import annotations

import array
import csv
import difflib
import gzip
import io
import itertools
import json
import math
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from pairboot.errors import InputError

__all__ = [
    "Table",
    "read_table",
    "numeric_column",
    "stats_columns",
    "id_column",
    "label_column",
    "all_distinct",
    "has_repeats",
    "same_labels",
    "take_labels",
    "join_on_ids",
    "merge_labels",
    "find_system_column",
    "parse_stratum_weights",
]

FORMATS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
    ".parquet": "parquet",
    ".pq": "parquet",
}
"""Extensions and the format each one means."""

ARROW_FORMATS = ("csv", "tsv", "jsonl")
"""The text formats pyarrow reads when it is installed (and the file is plain enough)."""

STDIN = "-"
_BOOLEANS = {"true": 1.0, "false": 0.0}  # as pandas writes a boolean column
_SHOW = 5  # how many offending ids an error message lists

_ARROW_MIN_BYTES = 1 << 20
"""Files smaller than this are read in pure Python (fast enough, and nothing to import)."""

PROGRESS_ROWS = 50_000
"""How many lines (records) the pure-Python readers parse between two progress calls."""

_PY_WHITESPACE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004"
    "\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
"""Every character ``str.strip()`` removes, for Arrow's ``utf8_trim`` to remove the same."""


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
        Arrow arrays, which the functions below convert in bulk instead.
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
        return isinstance(self.columns, _ArrowColumns)

    def _arrow(self, name: str):
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
                f"available columns: {_names(self.columns)}"
            ) from None


# --------------------------------------------------------------------------- reading


def read_table(
    path: str | os.PathLike, *, progress: Callable[[int], None] | None = None
) -> Table:
    """Read a CSV, TSV, JSON Lines or Parquet file (``"-"``: standard input) into a Table.

    Raises :class:`~pairboot.errors.InputError` naming the file when it is missing, a
    directory, unreadable, empty, binary, not UTF-8, or malformed (with the line).

    ``progress``, if given, is called as ``progress(rows)`` with the number of data rows
    read so far: every :data:`PROGRESS_ROWS` lines while the pure-Python reader parses
    CSV, TSV or JSON Lines, and once when the table is read.  The counts increase and
    the last is the table's ``n_rows``; a file that pyarrow reads, a Parquet file and a
    JSON array are parsed in one go, so for them that last call is the only one.  Rows
    only, no bytes: the whole file is in memory before parsing starts (standard input
    too), so the bytes read say nothing about the parsing.  A file that fails to read
    gets no final call.
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
        stem, ext = os.path.splitext(name.lower())
        if ext == ".gz":
            data = _gunzip(data, display)
            ext = os.path.splitext(stem)[1]
        fmt = FORMATS.get(ext)
    if data.startswith(b"\x1f\x8b"):  # gzip without a .gz extension (or on stdin)
        data = _gunzip(data, display)
    if fmt is None:
        fmt = _sniff(data)
    if fmt == "parquet":
        return _read_parquet(data, display)
    _check_text(data, display)
    if fmt in ("csv", "tsv"):
        # before decoding: Arrow checks the UTF-8 of every field (all read as text)
        table = _read_delimited_arrow(data, display, "\t" if fmt == "tsv" else ",", fmt)
        if table is not None:
            return table
    text = _decode(data, display)
    if fmt == "json":
        fmt = "json" if text.lstrip().startswith("[") else "jsonl"
    if fmt == "json":
        return _read_json_array(text, display)
    if fmt == "jsonl":
        return _read_jsonl_arrow(data, display) or _read_jsonl(text, display, progress)
    return _read_delimited(text, display, "\t" if fmt == "tsv" else ",", fmt, progress)


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


def _gunzip(data: bytes, display: str) -> bytes:
    try:
        return gzip.decompress(data)
    except (OSError, EOFError) as exc:
        raise InputError(f"{display}: not a readable gzip file ({exc})") from None


def _sniff(data: bytes) -> str:
    if data.startswith(b"PAR1"):
        return "parquet"
    head = data[:65536].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"{"):
        return "jsonl"
    if head.startswith(b"["):
        return "json"
    first = head.split(b"\n", 1)[0]
    if b"\t" in first and b"," not in first:
        return "tsv"
    return "csv"


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
    _check_header(header, display)
    if not lines:
        raise InputError(f"{display}: has a header (line {header_line}) but no data rows")
    columns = dict(zip(header, fields))
    return Table(display, columns, len(lines), fmt, np.frombuffer(lines, dtype=np.int64))


class _ArrowColumns(Mapping):
    """Column name -> list of raw values, made from Arrow arrays on first use.

    ``arrays`` keeps the Arrow arrays, for the vectorised conversions of
    :func:`numeric_column` and :func:`label_column`.
    """

    __slots__ = ("arrays", "_lists")

    def __init__(self, arrays: dict):
        self.arrays = arrays
        self._lists: dict[str, list] = {}

    def __getitem__(self, name: str) -> list:
        if name not in self._lists:
            self._lists[name] = self.arrays[name].to_pylist()
        return self._lists[name]

    def __contains__(self, name: object) -> bool:  # without converting the column
        return name in self.arrays

    def __iter__(self) -> Iterator[str]:
        return iter(self.arrays)

    def __len__(self) -> int:
        return len(self.arrays)


def _line_spans(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    """Start and end (without the newline and a CRLF's CR) of every line of ``data``."""
    buf = np.frombuffer(data, dtype=np.uint8)
    breaks = np.flatnonzero(buf == 10)
    starts = np.concatenate(([0], breaks + 1))
    ends = np.concatenate((breaks, [len(buf)]))
    crlf = (ends > starts) & (buf[np.maximum(ends - 1, 0)] == 13)
    return starts, ends - crlf


def _arrow_ready(data: bytes, extra: tuple[bytes, ...] = ()) -> bool:
    """Whether ``data`` is large, and its lines are the lines Python would split it into."""
    if len(data) < _ARROW_MIN_BYTES:
        return False
    if any(c in data for c in extra):
        return False
    return b"\r" not in data or data.count(b"\r") == data.count(b"\r\n")  # lone CR: a line


def _arrow_input(data: bytes, extra: tuple[bytes, ...]) -> bytes | None:
    """``data`` without its BOM for the Arrow readers, or None when the file is not for
    them (see :func:`_arrow_ready`) or pyarrow is missing."""
    if not _arrow_ready(data, extra):
        return None
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        return None
    data = data.removeprefix(b"\xef\xbb\xbf")
    if data.startswith(b"\xef\xbb\xbf"):
        return None  # a second BOM: text to Python, dropped by Arrow
    return data


def release_arrow_memory() -> None:
    """Hand back to the system what Arrow's allocator keeps of freed memory (reading a
    file keeps about its size again; freeing a Table, its columns).  Nothing to do when
    pyarrow was never imported."""
    pa = sys.modules.get("pyarrow")
    if pa is not None:
        pa.default_memory_pool().release_unused()


def arrow_available() -> bool:
    """Whether pyarrow can be imported (without importing it)."""
    import importlib.util

    return importlib.util.find_spec("pyarrow") is not None


def _nonempty_lines(data: bytes) -> tuple[np.ndarray | range, int, int]:
    """The 1-based numbers of the lines that are not empty (nothing but a CRLF's CR),
    and where the first one starts and ends.

    A file without empty lines (the usual case) needs no array: its lines are a range.
    """
    if not (data.startswith((b"\n", b"\r\n")) or b"\n\n" in data or b"\n\r\n" in data):
        last = bool(data) and not data.endswith(b"\n")  # a last line without a newline
        numbers: np.ndarray | range = range(1, data.count(b"\n") + last + 1)
        start = 0
    else:
        starts, ends = _line_spans(data)
        numbers = np.flatnonzero(ends > starts) + 1
        if not len(numbers):
            return numbers, 0, 0
        start = int(starts[numbers[0] - 1])
    end = data.find(b"\n", start)
    end = len(data) if end < 0 else end
    return numbers, start, end - (end > start and data[end - 1] == 13)


def _read_delimited_arrow(data: bytes, display: str, delimiter: str, fmt: str) -> Table | None:
    """:func:`_read_delimited`'s Table, parsed by pyarrow; None whenever that might differ.

    Only for a large file (``_ARROW_MIN_BYTES``) of two or more columns without quote
    characters or lone carriage returns: there every non-empty line is one record and
    line numbers are those of the non-empty lines.  Anything unusual (a ragged row, a
    bad header, no data rows) returns None, and the pure-Python reader then raises its
    own message.
    """
    prepared = _arrow_input(data, (b'"',))
    if prepared is None:
        return None
    import pyarrow as pa
    import pyarrow.csv as pacsv

    data = prepared
    line_numbers, start, end = _nonempty_lines(data)  # the first is the header
    if len(line_numbers) < 2:
        return None
    n_fields = data[start:end].count(delimiter.encode()) + 1
    if n_fields < 2:
        return None  # a line of blanks is a row to Arrow, but no row to the csv module
    names = [f"f{j}" for j in range(n_fields)]
    try:
        table = pacsv.read_csv(
            pa.py_buffer(data),
            read_options=pacsv.ReadOptions(autogenerate_column_names=True),
            parse_options=pacsv.ParseOptions(
                delimiter=delimiter, quote_char=False, newlines_in_values=False,
                ignore_empty_lines=True,
            ),
            convert_options=pacsv.ConvertOptions(
                column_types={n: pa.string() for n in names}, strings_can_be_null=False,
                quoted_strings_can_be_null=False, null_values=[], true_values=[],
                false_values=[],
            ),
        )
    except (pa.ArrowException, ValueError):
        return None
    if (
        table.num_columns != n_fields
        or table.num_rows != len(line_numbers)
        or table.column_names != names
        or any(table.column(n).null_count for n in names)
    ):
        return None
    header = [str(table.column(n)[0]).strip() for n in names]
    try:
        _check_header(header, display)
    except InputError:
        return None
    arrays = {h: table.column(n).slice(1) for h, n in zip(header, names)}
    lines = line_numbers[1:]
    del table
    release_arrow_memory()
    return Table(display, _ArrowColumns(arrays), len(lines), fmt, lines)


_NOT_BLANK = np.ones(256, dtype=bool)
_NOT_BLANK[list(b" \t\r\n")] = False

_JSON_TYPES = ("string", "int64", "double", "bool", "null")
"""Arrow types whose values are exactly json.loads's; any other (a timestamp that Arrow
inferred from a string, a nested object) sends the file to the pure-Python reader."""


def _read_jsonl_arrow(data: bytes, display: str) -> Table | None:
    """:func:`_read_jsonl`'s Table, parsed by pyarrow; None whenever that might differ.

    Only for a large file without the line breaks the two might count differently (form
    feed, NEL, line or paragraph separator, lone CR) and where Arrow reads one record
    per non-blank line, with columns of plain types and no integer beyond 2**53 that
    Arrow would have turned into a float.
    """
    odd_breaks = (b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e", b"\xc2\x85", b"\xe2\x80\xa8",
                  b"\xe2\x80\xa9")
    prepared = _arrow_input(data, odd_breaks)
    if prepared is None:
        return None
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.json as pajson

    data = prepared
    starts, ends = _line_spans(data)
    buf = np.frombuffer(data, dtype=np.uint8)
    has_text = ends > starts
    has_text[has_text] = _NOT_BLANK[buf[starts[has_text]]]  # most lines start with '{'
    for i in np.flatnonzero((ends > starts) & ~has_text).tolist():  # a line of blanks?
        has_text[i] = bool(data[starts[i] : ends[i]].strip(b" \t\r\n"))
    line_numbers = np.flatnonzero(has_text) + 1
    try:
        table = pajson.read_json(
            pa.py_buffer(data),
            parse_options=pajson.ParseOptions(
                newlines_in_values=False, unexpected_field_behavior="infer"),
        )
    except (pa.ArrowException, ValueError):
        return None
    if table.num_rows != len(line_numbers) or not table.num_columns:
        return None
    try:
        _check_header(table.column_names, display)
    except InputError:
        return None
    for name in table.column_names:
        column = table.column(name)
        if str(column.type) not in _JSON_TYPES:
            return None
        if column.type == pa.float64():  # an integer too large for a double, rounded?
            big = pc.and_(pc.greater_equal(pc.abs(column), 2.0**53),
                          pc.equal(pc.floor(column), column))
            if pc.any(big).as_py():
                return None
    arrays = {name: table.column(name) for name in table.column_names}
    del table
    release_arrow_memory()
    return Table(display, _ArrowColumns(arrays), len(line_numbers), "jsonl", line_numbers)


def _delimiter_hint(header: list[str], delimiter: str) -> str:
    other = "," if delimiter == "\t" else "\t"
    if other in header[0]:
        kind = "CSV" if other == "," else "TSV"
        return f" (the file looks like {kind}: give it a .{kind.lower()} extension)"
    return ""


def _check_header(header: Sequence[str], display: str) -> None:
    seen: dict[str, int] = {}
    for j, h in enumerate(header, 1):
        if not h:
            raise InputError(f"{display}: column {j} of the header has no name")
        if h in seen:
            raise InputError(
                f"{display}: the header names column {h!r} twice (columns {seen[h]} and {j})"
            )
        seen[h] = j


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


def _loads(text: str, display: str, where) -> object:
    """json.loads with duplicate keys refused; ``where(exc)`` says where, for messages."""
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise InputError(f"{display}, {where(exc)}: not valid JSON ({exc.msg})") from None
    except _DuplicateKey as exc:
        place = where(None)
        raise InputError(f"{display}{', ' + place if place else ''}: {exc}") from None


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
            record = _loads(line, display, lambda exc, number=number: f"line {number}")
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


def _read_parquet(data: bytes, display: str) -> Table:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ImportError(
            f'{display}: reading Parquet needs pyarrow: pip install "pairboot[parquet]"'
        ) from None
    try:
        table = pq.read_table(pa.BufferReader(data))
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise InputError(f"{display}: not a readable Parquet file ({exc})") from None
    _check_header(table.column_names, display)
    if table.num_rows == 0:
        raise InputError(f"{display}: the Parquet file has no rows")
    columns = _ArrowColumns({name: table.column(name) for name in table.column_names})
    return Table(display, columns, table.num_rows, "parquet", range(1, table.num_rows + 1))


# ------------------------------------------------------------------------ extracting


def numeric_column(table: Table, name: str) -> np.ndarray:
    """Column ``name`` as float64, every value a finite number.

    A missing, non-numeric, NaN or infinite value raises InputError naming the file, the
    line (or row), the column and the value, and how many more bad values follow.
    """
    column = table._arrow(name)
    if column is not None:
        values = _arrow_numbers(column)
        release_arrow_memory()  # the text trimmed and cast: about twice the column
        if values is not None:
            return values
    raw = table.column(name)
    out = np.empty(len(raw), dtype=np.float64)
    first: tuple[int, str] | None = None
    n_bad = 0
    for i, value in enumerate(raw):
        number, problem = _to_number(value)
        if problem is None:
            out[i] = number
            continue
        n_bad += 1
        if first is None:
            first = (i, problem)
    if first is not None:
        i, problem = first
        more = f" ({n_bad - 1} more bad value(s) in this column)" if n_bad > 1 else ""
        raise InputError(f"{table.path}, {table.where(i)}, column {name!r}: {problem}{more}")
    return out


def _arrow_numbers(column) -> np.ndarray | None:
    """An Arrow column as float64, exactly as :func:`_to_number` reads each value.

    Text is trimmed as ``str.strip`` trims and cast (``true``/``false`` as 1/0); JSON
    numbers and booleans are converted.  None when some value is missing or not a finite
    number, or the column has another type: the caller then goes value by value, and
    names the first bad one.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = column.type
    if column.null_count:
        return None
    if pa.types.is_string(kind):
        text = _strip(column)
        try:
            numbers = pc.cast(text, pa.float64())
        except pa.ArrowInvalid:
            lower = pc.utf8_lower(text)
            text = pc.if_else(pc.equal(lower, "true"), "1",
                              pc.if_else(pc.equal(lower, "false"), "0", text))
            try:
                numbers = pc.cast(text, pa.float64())
            except pa.ArrowInvalid:
                return None
    elif pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind):
        try:
            numbers = pc.cast(column, pa.float64())
        except pa.ArrowInvalid:  # an integer a double cannot hold exactly
            return None
    else:
        return None
    if numbers.null_count:
        return None
    out = np.array(numbers.to_numpy(), dtype=np.float64)
    return out if np.isfinite(out).all() else None


_FIRST_MAYBE_SPACE = np.zeros(256, dtype=bool)
_LAST_MAYBE_SPACE = np.zeros(256, dtype=bool)
for _c in _PY_WHITESPACE:  # the first and last UTF-8 byte of every whitespace character
    _FIRST_MAYBE_SPACE[_c.encode()[0]] = _LAST_MAYBE_SPACE[_c.encode()[-1]] = True
del _c


def _strip(column):
    """``str.strip`` of every value of an Arrow text column: the column itself when no
    value can start or end with whitespace (the first and last bytes say so), which
    spares a copy of the column."""
    import pyarrow as pa
    import pyarrow.compute as pc

    for chunk in getattr(column, "chunks", [column]):
        if chunk.type != pa.string():
            break
        _, offsets, data = chunk.buffers()
        if data is None:
            continue  # only empty or missing values
        ends = np.frombuffer(offsets, dtype=np.int32)[chunk.offset : chunk.offset + len(chunk) + 1]
        starts, ends = ends[:-1], ends[1:]
        full = starts < ends
        raw = np.frombuffer(data, dtype=np.uint8)
        if (_FIRST_MAYBE_SPACE[raw[starts[full]]].any()
                or _LAST_MAYBE_SPACE[raw[ends[full] - 1]].any()):
            break
    else:
        return column
    return pc.utf8_trim(column, characters=_PY_WHITESPACE)


def _to_number(value: object, what: str = "scores") -> tuple[float, str | None]:
    """``(number, None)``, or ``(anything, problem)`` naming the value; ``what`` says
    what the number is for in the message ("scores must be finite numbers")."""
    if value is None:
        return 0.0, "missing value"
    if isinstance(value, bool):
        return float(value), None
    if isinstance(value, (int, float, np.integer, np.floating)):
        try:
            number = float(value)
        except OverflowError:  # a JSON integer of hundreds of digits
            return 0.0, f"an integer of {int(value).bit_length()} bits is too large for a number"
        shown = repr(value)
    elif isinstance(value, str):
        text = value.strip()
        if not text:
            return 0.0, "missing value (empty)"
        if text.lower() in _BOOLEANS:
            return _BOOLEANS[text.lower()], None
        try:
            number = float(text)
        except ValueError:
            return 0.0, f"{value!r} is not a number"
        if not text.isascii() or "_" in text:  # float() takes 1_000, ١٢ and １
            return 0.0, f"{value!r} is not a number"
        shown = repr(value)
    else:
        return 0.0, f"{value!r} is not a number"
    if math.isnan(number):
        return number, f"{shown} is NaN; {what} must be finite numbers"
    if math.isinf(number):
        return number, f"{shown} is infinite; {what} must be finite numbers"
    return number, None


def stats_columns(table: Table, names: Sequence[str]) -> np.ndarray:
    """Columns ``names`` as an ``(n_rows, len(names))`` float64 array (each checked)."""
    return np.column_stack([numeric_column(table, n) for n in names])


def _label(value: object) -> str | None:
    """An id or label as a string (``None`` when missing); ``3`` and ``3.0`` both read "3"."""
    if value is None:
        return None
    if isinstance(value, float):
        if math.isnan(value):
            return None
        if value.is_integer():
            return str(int(value))
        return repr(value)
    text = str(value).strip()
    return text or None


def label_column(table: Table, name: str) -> Sequence[str | None]:
    """Column ``name`` as strings, ``None`` where the value is missing (blank or null).

    A list; for a column read by pyarrow, a sequence kept as an Arrow array (a few bytes
    a row rather than a Python string each), that the functions below handle in bulk.
    """
    column = table._arrow(name)
    if column is not None:
        labels = _arrow_labels(column)
        release_arrow_memory()
        if labels is not None:
            return _ArrowLabels(labels)
    return [_label(v) for v in table.column(name)]


class _LabelSequence(Sequence):
    """A sequence of labels that compares equal to a list of the same labels."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (list, _LabelSequence)):
            return NotImplemented
        return same_labels(self, other)

    __hash__ = None  # type: ignore[assignment]  # as a list


class _ArrowLabels(_LabelSequence):
    """Labels as an Arrow string array (null where missing), read as a sequence of
    ``str | None``: one value at a time for messages, a chunk at a time when iterated."""

    __slots__ = ("array", "_order", "_sorted")

    def __init__(self, array):
        self.array = array
        self._order = self._sorted = None

    def sort_order(self):
        """The indices that sort the labels, and the sorted labels, kept until
        :meth:`forget_sort` (ids to be joined: checking that they are distinct and
        joining them both use it; :func:`join_on_ids` forgets it)."""
        if self._order is None:
            self._order, self._sorted = _sort(self.array)
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
        return f"_ArrowLabels({len(self)} labels)"


def _sort(array):
    """The indices that sort an Arrow array, and the array sorted."""
    import pyarrow.compute as pc

    order = pc.sort_indices(array)
    return order, array.take(order)


def _repeats(ordered) -> int:
    """How many values of a sorted Arrow array (without nulls) equal the one before."""
    import pyarrow.compute as pc

    if len(ordered) < 2:
        return 0
    return pc.sum(pc.equal(ordered[1:], ordered[:-1])).as_py()


def _counts(labels: Sequence[str | None]) -> tuple[int, int]:
    """``(labels present, distinct labels)``: missing ones (None) are not counted."""
    if isinstance(labels, _ArrowLabels):
        import pyarrow.compute as pc

        # by sorting: an eighth of the memory of Arrow's hash (count_distinct), and faster
        if labels.array.null_count:
            present = pc.drop_null(labels.array)
            _, ordered = _sort(present)
        elif labels._sorted is not None:  # kept for a join (id_column)
            present, ordered = labels.array, labels._sorted
        else:
            present, (_, ordered) = labels.array, _sort(labels.array)
        repeats = _repeats(ordered)
        del ordered
        release_arrow_memory()
        return len(present), len(present) - repeats
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
    if isinstance(a, _ArrowLabels) and isinstance(b, _ArrowLabels):
        import pyarrow.compute as pc

        if a.array.null_count or b.array.null_count:
            return list(a) == list(b)
        return bool(pc.all(pc.equal(a.array, b.array)).as_py())
    return list(a) == list(b)


def take_labels(labels: Sequence[str | None], order: np.ndarray) -> Sequence[str | None]:
    """``labels`` reordered: item ``i`` of the result is ``labels[order[i]]``."""
    if isinstance(labels, _ArrowLabels):
        return _ArrowLabels(labels.array.take(order))
    return [labels[j] for j in order]


def _arrow_labels(column):
    """:func:`_label` of every value of an Arrow text or integer column, vectorised
    (null where missing); None for another type."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_integer(column.type):
        return pc.cast(column, pa.string())  # str(int), as _label
    if not pa.types.is_string(column.type):
        return None
    text = _strip(column)
    blank = pc.equal(text, "")
    if not pc.any(blank).as_py():
        return text  # no copy
    return pc.if_else(blank, pa.scalar(None, pa.string()), text)


def id_column(table: Table, name: str, *, to_join: bool = False) -> Sequence[str]:
    """Column ``name`` as string ids (see :func:`label_column`); missing or duplicate
    ids raise InputError.  ``to_join``: keep the sort that checks them for
    :func:`join_on_ids`.

    A duplicate names the id and the lines (or rows) of its first two occurrences.
    """
    ids = label_column(table, name)
    if to_join and isinstance(ids, _ArrowLabels) and not ids.array.null_count:
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
            f"{table.path}, column {name!r}: duplicate id {v!r} "
            f"({table.where(i)} and {table.where(j)}){more}; ids must be unique"
        )
    return ids  # type: ignore[return-value]


def join_on_ids(
    ids_a: Sequence[str], ids_b: Sequence[str], name_a: str, name_b: str
) -> np.ndarray:
    """For each id of ``ids_a`` (in order), its position in ``ids_b``.

    Both must hold the same ids (each unique, see :func:`id_column`).  Otherwise the
    InputError says how many ids are only in each file and shows up to five of each.
    """
    if len(ids_a) == len(ids_b):
        order = (np.arange(len(ids_a), dtype=np.intp) if same_labels(ids_a, ids_b)
                 else _arrow_join(ids_a, ids_b))
        for ids in (ids_a, ids_b):  # the join is the last use of their sorts
            if isinstance(ids, _ArrowLabels):
                ids.forget_sort()
        release_arrow_memory()
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
                parts.append(f"{len(only)} only in {name} ({_show(only)})")
        raise InputError(
            f"the ids of {name_a} and {name_b} differ: {'; '.join(parts)}; "
            "every item needs a score from both systems"
        )
    return np.fromiter((where_b[v] for v in ids_a), dtype=np.intp, count=len(ids_a))


def _arrow_join(ids_a: Sequence[str], ids_b: Sequence[str]) -> np.ndarray | None:
    """join_on_ids for two lists of the same unique ids, by pyarrow; None otherwise.

    Both are sorted (less memory than a hash of the ids, and as fast): equal when sorted,
    the position in ``b`` of ``a``'s ``i``-th smallest id is that of ``b``'s.
    """
    if len(ids_a) < 10_000:
        return None
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
    except ImportError:
        return None

    def sort(ids):
        if isinstance(ids, _ArrowLabels):
            if ids.array.null_count:
                return None
            return ids.sort_order()
        array = pa.array(ids, pa.string())
        return None if array.null_count else _sort(array)

    try:
        sorted_a, sorted_b = sort(ids_a), sort(ids_b)
        if sorted_a is None or sorted_b is None:
            return None
        (order_a, a), (order_b, b) = sorted_a, sorted_b
        if not pc.all(pc.equal(a, b)).as_py():
            return None
        if _repeats(b):  # a permutation only when the ids of b are unique too
            return None
    except (pa.ArrowException, TypeError, ValueError):
        return None
    order = np.empty(len(a), dtype=np.intp)
    order[order_a.to_numpy()] = order_b.to_numpy()
    return order


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
    read by pyarrow, codes into the distinct labels (:class:`_CodedLabels`), which
    :func:`pairboot.compare` reads as they are.
    """
    if all(isinstance(labels, _ArrowLabels) for _, labels in sources):
        coded = _arrow_merge([labels for _, labels in sources])
        if coded is not None:
            return coded  # type: ignore[return-value]
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
                item = f"id {ids[i]!r}" if ids is not None else f"item {i + 1}"
                raise InputError(
                    f"conflicting {what} labels in column {column!r} for {item}: "
                    f"{merged[i]!r} in {origin[i]} but {v!r} in {file}"
                )
    missing = [i for i, v in enumerate(merged) if v is None]
    if missing:
        shown = [ids[i] for i in missing] if ids is not None else [str(i + 1) for i in missing]
        files = " and ".join(f for f, _ in sources)
        noun = "ids" if ids is not None else "items (by position)"
        raise InputError(
            f"{what} labels missing in column {column!r} of {files} for {len(missing)} of "
            f"{n} {noun} ({_show(shown)}); every item needs a {what}"
        )
    return merged  # type: ignore[return-value]


def _arrow_merge(sources: list[_ArrowLabels]) -> _CodedLabels | None:
    """merge_labels of Arrow labels that agree and leave no item without one, as codes
    into the distinct labels; None otherwise (the Python loop then names the item)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    merged = sources[0].array
    for labels in sources[1:]:
        other = labels.array
        if pc.any(pc.not_equal(merged, other)).as_py():  # null where either is missing
            return None
        merged = pc.coalesce(merged, other)
    if merged.null_count:
        return None
    if isinstance(merged, pa.ChunkedArray):
        merged = merged.combine_chunks()
    encoded = merged.dictionary_encode()
    coded = _CodedLabels(encoded.indices.to_numpy(), encoded.dictionary.to_pylist())
    del merged, encoded
    release_arrow_memory()
    return coded


class _CodedLabels(_LabelSequence):
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
        return f"_CodedLabels({len(self)} labels, {len(self.categories)} distinct)"


def find_system_column(table: Table, system: str, stat: str) -> str:
    """The column of statistic ``stat`` for ``system`` in a one-file layout.

    Tries ``{system}_{stat}``, ``{stat}_{system}``, ``{system}{stat}`` and
    ``{stat}{system}``; exactly one must exist.
    """
    candidates = dict.fromkeys(
        (f"{system}_{stat}", f"{stat}_{system}", f"{system}{stat}", f"{stat}{system}")
    )
    found = [c for c in candidates if c in table.columns]
    if len(found) == 1:
        return found[0]
    if not found:
        raise InputError(
            f"{table.path}: no column for statistic {stat!r} of system {system!r} "
            f"(looked for {', '.join(map(repr, candidates))}); available columns: "
            f"{_names(table.columns)}"
        )
    raise InputError(
        f"{table.path}: several columns could hold statistic {stat!r} of system {system!r} "
        f"({', '.join(map(repr, found))}); rename the columns so only one matches"
    )


def parse_stratum_weights(spec: str) -> dict[str, float]:
    """Stratum weights from ``"name=w,name=w"`` or from a file of two columns.

    The file (any format :func:`read_table` reads) has a column of stratum names and a
    column of weights, with or without a header.  Every weight must be a finite number
    above zero, and every stratum named once.
    """
    if os.path.isdir(spec):
        raise InputError(f"--stratum-weights {spec}: is a directory")
    if os.path.isfile(spec) or (spec != STDIN and os.path.splitext(spec)[1].lower() in FORMATS):
        pairs, source = _weights_from_file(spec)
    elif "=" not in spec and "," not in spec:  # one name: a file that is not there
        raise InputError(
            f"--stratum-weights: no file {spec!r}, and not 'name=weight,...' either"
            + (" (standard input is not read for weights)" if spec == STDIN else "")
        )
    else:
        source = "--stratum-weights"
        pairs = []
        for part in spec.split(","):
            if not part.strip():
                continue
            name, sep, weight = part.rpartition("=")
            if not sep or not name.strip():
                raise InputError(
                    f"--stratum-weights: cannot read {part.strip()!r}; give 'name=weight,"
                    "name=weight' or a file with two columns, stratum and weight"
                )
            pairs.append((name.strip(), weight.strip(), None))
        if not pairs:
            raise InputError("--stratum-weights: no weights given")
    weights: dict[str, float] = {}
    for name, raw, place in pairs:
        where = f"{source}, {place}" if place else source
        number, problem = _to_number(raw, "stratum weights")
        if problem is not None:
            raise InputError(f"{where}: weight of stratum {name!r}: {problem}")
        if number <= 0:
            raise InputError(
                f"{where}: weight of stratum {name!r} must be positive, got {raw}"
            )
        if name in weights:
            raise InputError(f"{where}: stratum {name!r} is given more than one weight")
        weights[name] = number
    return weights


def _weights_from_file(path: str) -> tuple[list[tuple[str, object, str]], str]:
    table = read_table(path)
    if len(table.columns) != 2:
        raise InputError(
            f"{table.path}: a stratum weights file needs exactly two columns (stratum, "
            f"weight), found {len(table.columns)}: {_names(table.columns)}"
        )
    (name_col, names), (weight_col, weights) = table.columns.items()
    pairs: list[tuple[str, object, str]] = []
    if table.format in ("csv", "tsv") and _to_number(weight_col)[1] is None:
        pairs.append((name_col, weight_col, "line 1"))  # no header: line 1 is data
    for i, (name, weight) in enumerate(zip(names, weights)):
        label = _label(name)
        if label is None:
            raise InputError(f"{table.path}, {table.where(i)}: missing stratum name")
        pairs.append((label, weight, table.where(i)))
    return pairs, table.path


# ------------------------------------------------------------------------- helpers


def _show(values: Iterable[str], limit: int = _SHOW) -> str:
    values = list(values)
    shown = ", ".join(repr(v) for v in values[:limit])
    return shown + (", ..." if len(values) > limit else "")


def _suggest(name: str, columns: Mapping[str, object]) -> str:
    """" (did you mean 'Score'?)" for a near miss, or a hint about the delimiter."""
    if len(columns) == 1:
        (only,) = columns
        for sep in (";", "|", "\t", ","):
            if sep in only:
                return f" (the header is one column {only!r}: is the file delimited by {sep!r}?)"
    by_case = [c for c in columns if c.lower() == name.lower()]
    close = by_case or difflib.get_close_matches(name, list(columns), n=1, cutoff=0.75)
    if close:
        return f" (did you mean {close[0]!r}?)"
    return ""


def _names(columns: Mapping[str, object], limit: int = 20) -> str:
    names = list(columns)
    shown = ", ".join(repr(c) for c in names[:limit]) or "(none)"
    return shown + (f", ... ({len(names) - limit} more)" if len(names) > limit else "")

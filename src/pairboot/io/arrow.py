"""The Arrow fast path: pyarrow's readers and vectorised twins of the column conversions.

Every function here works on Arrow arrays and returns None whenever its answer might
differ from the pure-Python code's (a quote inside a CSV field, a missing value, an odd
type): the caller then runs the pure-Python code, so values and messages are the same
either way and only the speed and memory change.  pyarrow is optional: it is imported inside the
functions, and a large file is only handed to it when :func:`arrow_available` says so.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator, Mapping

import numpy as np

_ARROW_MIN_BYTES = 1 << 20
"""Files smaller than this are read in pure Python (fast enough, and nothing to import)."""

_PY_WHITESPACE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004"
    "\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
"""Every character ``str.strip()`` removes, for Arrow's ``utf8_trim`` to remove the same."""

_JSON_TYPES = ("string", "int64", "double", "bool", "null")
"""Arrow types whose values are exactly json.loads's; any other (a timestamp that Arrow
inferred from a string, a nested object) sends the file to the pure-Python reader."""

def arrow_available() -> bool:
    """Whether pyarrow can be imported (without importing it)."""
    return importlib.util.find_spec("pyarrow") is not None


def release_arrow_memory() -> None:
    """Hand back to the system what Arrow's allocator keeps of freed memory (reading a
    file keeps about its size again; freeing a Table, its columns).  Nothing to do when
    pyarrow was never imported."""
    pa = sys.modules.get("pyarrow")
    if pa is not None:
        pa.default_memory_pool().release_unused()


class ArrowColumns(Mapping):
    """Column name -> list of raw values, made from Arrow arrays on first use.

    ``arrays`` keeps the Arrow arrays, for the vectorised conversions of
    :func:`numbers` and :func:`labels`.
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


# --------------------------------------------------------------------------- reading

Parsed = tuple[list[str], list, "np.ndarray | range"]
"""What a reader returns: the header, one Arrow array per column, and each row's line."""


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


def read_delimited(data: bytes, delimiter: str) -> Parsed | None:
    """A CSV or TSV file parsed by pyarrow (every column as text); None whenever the
    pure-Python reader might read it otherwise.

    Only for a large file (``_ARROW_MIN_BYTES``) of two or more columns without lone
    carriage returns, whose quotes (if any) only enclose whole fields
    (:func:`simply_quoted`, as R's ``write.csv`` and pyarrow write them): there every
    non-empty line is one record and line numbers are those of the non-empty lines.
    Anything unusual (a ragged row, no data rows, a row that may repeat the header)
    returns None, and the pure-Python reader then raises its own message.  The header
    is as read (unquoted, stripped), not yet checked.
    """
    prepared = _arrow_input(data, ())
    if prepared is None:
        return None
    data = prepared
    quoted = b'"' in data
    if quoted and not simply_quoted(data, delimiter):
        return None
    import pyarrow as pa
    import pyarrow.csv as pacsv

    line_numbers, start, end = _nonempty_lines(data)  # the first is the header
    if len(line_numbers) < 2:
        return None
    n_fields = data[start:end].count(delimiter.encode()) + 1
    if n_fields < 2:
        return None  # a line of blanks is a row to Arrow, but no row to the csv module
    names = [f"f{j}" for j in range(n_fields)]

    def read(block_size: int):
        return pacsv.read_csv(
            pa.py_buffer(data),
            read_options=pacsv.ReadOptions(autogenerate_column_names=True,
                                           block_size=block_size),
            parse_options=pacsv.ParseOptions(
                delimiter=delimiter, quote_char='"' if quoted else False,
                double_quote=False, newlines_in_values=False,
                ignore_empty_lines=True,
            ),
            convert_options=pacsv.ConvertOptions(
                column_types={n: pa.string() for n in names}, strings_can_be_null=False,
                quoted_strings_can_be_null=False, null_values=[], true_values=[],
                false_values=[],
            ),
        )

    table = _with_long_lines(read, data)
    if table is None:
        return None
    if (
        table.num_columns != n_fields
        or table.num_rows != len(line_numbers)
        or table.column_names != names
        or any(table.column(n).null_count for n in names)
    ):
        return None
    header = [str(table.column(n)[0]).strip() for n in names]
    arrays = [table.column(n).slice(1) for n in names]
    del table
    release_arrow_memory()
    if _may_repeat_header(arrays[0], header[0]):
        return None
    return header, arrays, line_numbers[1:]


_BLOCK = 1 << 20
"""pyarrow's block of text (its default): a line must fit in one."""


def _with_long_lines(read, data: bytes):
    """``read(block_size)`` (a pyarrow reader on ``data``), in blocks of 1 MiB, or of
    the longest line when a line is longer; None when pyarrow cannot read it."""
    import pyarrow as pa

    try:
        return read(_BLOCK)
    except (pa.ArrowException, ValueError) as exc:
        if "straddl" not in str(exc) and "Empty CSV file or block" not in str(exc):
            return None
    starts, ends = _line_spans(data)
    try:
        return read(max(_BLOCK, int((ends - starts).max()) + 2))
    except (pa.ArrowException, ValueError):
        return None


def simply_quoted(data: bytes, delimiter: str) -> bool:
    """Whether every quote of ``data`` opens or closes a whole field, and no quoted
    field holds a quote or a line break: ``"q1",0.5`` or ``"a, b",1``, not a doubled
    quote inside quotes, ``ab"c`` or ``"x"y``.  Then Python's csv module and pyarrow read
    the same fields, one record per line.

    The quotes pair up in order: an opening one starts the file or follows a line break
    or the delimiter, the closing one ends the file or comes before one of them (or a
    CR), and no line break lies between the two.
    """
    buf = np.frombuffer(data, dtype=np.uint8)
    quotes = np.flatnonzero(buf == 34)
    if len(quotes) % 2:
        return False
    opens, closes = quotes[0::2], quotes[1::2]
    del quotes
    sep = ord(delimiter)
    before = buf[np.maximum(opens - 1, 0)]
    if not ((opens == 0) | (before == sep) | (before == 10)).all():
        return False
    after = buf[np.minimum(closes + 1, len(buf) - 1)]
    if not ((closes == len(buf) - 1) | (after == sep) | (after == 10) | (after == 13)).all():
        return False
    del before, after
    breaks = np.flatnonzero(buf == 10)
    return bool((np.searchsorted(breaks, opens) == np.searchsorted(breaks, closes)).all())


def _may_repeat_header(first_column, name: str) -> bool:
    """Whether some row's first value is the first column's name: perhaps the header
    again (two files joined), which the pure-Python reader then names."""
    import pyarrow.compute as pc

    return bool(pc.any(pc.equal(strip(first_column), name)).as_py())


_NOT_BLANK = np.ones(256, dtype=bool)
_NOT_BLANK[list(b" \t\r\n")] = False


def read_jsonl(data: bytes, check_lines=None) -> Parsed | None:
    """A JSON Lines file parsed by pyarrow; None whenever the pure-Python reader might
    read it otherwise.

    Only for a large file without the line breaks the two might count differently (form
    feed, NEL, line or paragraph separator, lone CR) and where Arrow reads one record
    per non-blank line, with columns of plain types and no integer beyond 2**53 that
    Arrow would have turned into a float.  The keys are not yet checked.
    ``check_lines(data, spans)``, if given, is called with where each line starts and
    ends before pyarrow parses them (:func:`pairboot.io.guards.check_json_lines`).
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
    if check_lines is not None:
        check_lines(data, (starts, ends))
    buf = np.frombuffer(data, dtype=np.uint8)
    has_text = ends > starts
    has_text[has_text] = _NOT_BLANK[buf[starts[has_text]]]  # most lines start with '{'
    for i in np.flatnonzero((ends > starts) & ~has_text).tolist():  # a line of blanks?
        has_text[i] = bool(data[starts[i] : ends[i]].strip(b" \t\r\n"))
    line_numbers = np.flatnonzero(has_text) + 1
    table = _with_long_lines(lambda block_size: pajson.read_json(
        pa.py_buffer(data), read_options=pajson.ReadOptions(block_size=block_size),
        parse_options=pajson.ParseOptions(
            newlines_in_values=False, unexpected_field_behavior="infer"),
    ), data)
    if table is None:
        return None
    if table.num_rows != len(line_numbers) or not table.num_columns:
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
    header = list(table.column_names)
    arrays = [table.column(name) for name in header]
    del table
    release_arrow_memory()
    return header, arrays, line_numbers


# ------------------------------------------------------------------------ converting


def numbers(column) -> np.ndarray | None:
    """An Arrow column as float64, exactly as :func:`pairboot.io.to_number` reads each
    value.

    Text is trimmed as ``str.strip`` trims and cast (``true``/``false`` as 1/0); JSON
    numbers and booleans are converted.  None when some value is missing or not a finite
    number, text or an integer reaches 2**53 (where a double no longer holds every
    integer), or the column has another type: the caller then goes value by value, and
    names the first bad one.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = column.type
    if column.null_count:
        return None
    if pa.types.is_string(kind):
        text = strip(column)
        try:
            out = pc.cast(text, pa.float64())
        except pa.ArrowInvalid:
            lower = pc.utf8_lower(text)
            text = pc.if_else(pc.equal(lower, "true"), "1",
                              pc.if_else(pc.equal(lower, "false"), "0", text))
            try:
                out = pc.cast(text, pa.float64())
            except pa.ArrowInvalid:
                return None
    elif pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind):
        try:
            out = pc.cast(column, pa.float64())
        except pa.ArrowInvalid:  # an integer a double cannot hold exactly
            return None
    else:
        return None
    if out.null_count:
        return None
    values = np.array(out.to_numpy(), dtype=np.float64)
    if not np.isfinite(values).all():
        return None
    if not pa.types.is_floating(kind) and len(values) and np.abs(values).max() >= 2.0**53:
        return None  # (perhaps an integer a double rounds: the caller checks it exactly)
    return values


_FIRST_MAYBE_SPACE = np.zeros(256, dtype=bool)
_LAST_MAYBE_SPACE = np.zeros(256, dtype=bool)
for _c in _PY_WHITESPACE:  # the first and last UTF-8 byte of every whitespace character
    _FIRST_MAYBE_SPACE[_c.encode()[0]] = _LAST_MAYBE_SPACE[_c.encode()[-1]] = True
del _c


def strip(column):
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


def labels(column):
    """:func:`pairboot.io.to_label` of every value of an Arrow text or integer column,
    vectorised (null where missing); None for another type."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_integer(column.type):
        return pc.cast(column, pa.string())  # str(int), as to_label
    if not pa.types.is_string(column.type):
        return None
    text = strip(column)
    blank = pc.equal(text, "")
    if not pc.any(blank).as_py():
        return text  # no copy
    return pc.if_else(blank, pa.scalar(None, pa.string()), text)


# ---------------------------------------------------------------------------- labels


def sort(array):
    """The indices that sort an Arrow array, and the array sorted."""
    import pyarrow.compute as pc

    order = pc.sort_indices(array)
    return order, array.take(order)


def sort_texts(values: list):
    """:func:`sort` of a list of strings as an Arrow array; None when pyarrow is
    missing, or some value is missing or not a string."""
    try:
        import pyarrow as pa
    except ImportError:
        return None
    try:
        array = pa.array(values, pa.string())
    except (pa.ArrowException, TypeError, ValueError):
        return None
    return None if array.null_count else sort(array)


def repeats(ordered) -> int:
    """How many values of a sorted Arrow array (without nulls) equal the one before."""
    import pyarrow.compute as pc

    if len(ordered) < 2:
        return 0
    return pc.sum(pc.equal(ordered[1:], ordered[:-1])).as_py()


def count(array, ordered=None) -> tuple[int, int]:
    """``(values present, distinct values)`` of an Arrow array; ``ordered`` is the
    array already sorted, when known (and it has no nulls)."""
    import pyarrow.compute as pc

    # by sorting: an eighth of the memory of Arrow's hash (count_distinct), and faster
    if array.null_count:
        array = pc.drop_null(array)
        _, ordered = sort(array)
    elif ordered is None:
        _, ordered = sort(array)
    found = repeats(ordered)
    del ordered
    release_arrow_memory()
    return len(array), len(array) - found


def equal(a, b) -> bool | None:
    """Whether two Arrow arrays of the same length hold the same values in the same
    order; None when either has a null (the caller compares them as lists)."""
    import pyarrow.compute as pc

    if a.null_count or b.null_count:
        return None
    return bool(pc.all(pc.equal(a, b)).as_py())


def join_sorted(sorted_a, sorted_b) -> np.ndarray | None:
    """For each value of ``a`` (in order), its position in ``b``, from the sorts of both
    (:func:`sort`: ``(order, sorted values)``); None unless they hold the same values,
    each once.

    Sorted, two lists of the same unique ids are equal, and the position in ``b`` of
    ``a``'s ``i``-th smallest id is that of ``b``'s (less memory than a hash, as fast).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    (order_a, a), (order_b, b) = sorted_a, sorted_b
    if len(a) != len(b):
        return None
    try:
        if not pc.all(pc.equal(a, b)).as_py():
            return None
        if repeats(b):  # a permutation only when the ids of b are unique too
            return None
    except (pa.ArrowException, TypeError, ValueError):
        return None
    order = np.empty(len(a), dtype=np.intp)
    order[order_a.to_numpy()] = order_b.to_numpy()
    return order


def merge(arrays: list) -> tuple[np.ndarray, list[str]] | None:
    """One label per item from several Arrow arrays of labels in the same item order,
    as codes into the distinct labels; None when two disagree or some item has none (the
    Python loop then names the item)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    merged = arrays[0]
    for other in arrays[1:]:
        if pc.any(pc.not_equal(merged, other)).as_py():  # null where either is missing
            return None
        merged = pc.coalesce(merged, other)
    if merged.null_count:
        return None
    if isinstance(merged, pa.ChunkedArray):
        merged = merged.combine_chunks()
    encoded = merged.dictionary_encode()
    codes, categories = encoded.indices.to_numpy(), encoded.dictionary.to_pylist()
    del merged, encoded
    release_arrow_memory()
    return codes, categories

"""Reading a file in bounded chunks, for files larger than memory (needs pyarrow).

:func:`scan` yields the named columns of a CSV, TSV, JSONL (gzipped or not) or Parquet
file, a chunk of rows at a time, as checked numpy arrays: scores as float64 (a missing or
non-numeric value, or an integer beyond 2**53, is an error naming the file, row and
column: no row is dropped), ids and labels as 64-bit keys (:mod:`pairboot.engine.keys`),
hashed from Arrow's buffers without a Python object per row.  Memory holds one chunk; the
file is read once.

CSV, TSV and JSONL are read in blocks of whole lines, each parsed by pyarrow on its own
(ids and labels read as text, so ``007`` stays ``007``; for JSONL only the wanted fields,
with their types given); Parquet through ``ParquetFile.iter_batches``.  What pyarrow
cannot read exactly as the in-memory readers do goes to them block by block (to_number,
to_label).  A JSON array file (``[...]``) has no streaming reader and is refused here.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from pairboot.engine.keys import id_keys, text_keys
from pairboot.errors import InputError
from pairboot.inputs.precision import EXACT_INTEGERS, integer_problem
from pairboot.io import arrow
from pairboot.io.columns import to_label, to_number
from pairboot.io.formats import SNIFF_BYTES, compression_of, format_of, sniff
from pairboot.io.guards import check_json_lines, json_value_problem, loads
from pairboot.io.tables import check_header

__all__ = ["Chunk", "column_names", "scan", "stream_format"]

CHUNK_ROWS = 1 << 18
"""Rows per chunk by default: 2 MiB per numeric column; with the reader's blocks in flight
and the keys' scratch, a process holds about 250 MB at most, whatever the file."""

_BLOCK_BYTES = 4 << 20
"""Bytes of text parsed at a time (whole lines: a longer line is a block of its own);
larger blocks cost memory and save no time.  Batches are then joined into chunks of
``chunk_rows``."""

_ARROW_BLOCK = 1 << 20
"""pyarrow's own block within one (parsed in parallel); a block with a longer line is
parsed again as one."""


@dataclass(frozen=True, slots=True)
class Chunk:
    """Rows ``first .. first + n - 1`` (0-based data rows) of a file's columns."""

    first: int
    n: int
    numbers: dict
    """Column name -> float64 array."""
    keys: dict
    """Column name -> uint64 keys of the values (ids, group and stratum labels)."""
    labels: dict
    """Column name -> the distinct labels of the chunk, as text, and each row's code."""


def stream_format(path: str) -> str:
    """``csv``, ``tsv``, ``jsonl`` or ``parquet``: :func:`pairboot.io.formats.format_of`'s
    answer (the in-memory reader's), else the first bytes'.  A JSON array, and a gzipped
    Parquet file, cannot be read in chunks: refused."""
    fmt = format_of(path)
    if fmt == "parquet" and compression_of(path, b"") is not None:
        raise InputError(f"{path}: a gzipped Parquet file cannot be read in chunks; gunzip "
                         "it (Parquet compresses its own columns)")
    if fmt in ("csv", "tsv", "jsonl", "parquet"):
        return fmt
    with _open(path) as f:
        head = f.read(SNIFF_BYTES)
    sniffed = sniff(head)
    if fmt == "json":  # (an array of objects, else JSON Lines: as in memory)
        sniffed = "json" if sniffed == "json" else "jsonl"
    if sniffed == "json":
        raise InputError(f"{path}: a JSON array cannot be read in chunks; write it as JSONL "
                         "(one object per line) or Parquet")
    return sniffed


def column_names(path: str) -> list[str]:
    """The file's column names, without reading its rows: a CSV or TSV header, the keys
    of a JSON Lines file's first line, a Parquet file's schema."""
    fmt = stream_format(path)
    if fmt == "parquet":
        try:
            from pyarrow import parquet as pq

            return list(pq.ParquetFile(path).schema_arrow.names)
        except (ImportError, OSError, ValueError):
            return []  # (scan names the problem)
    with _open(path) as f:
        first = _first_line(f)
    if fmt == "jsonl":
        row = _first_record(first)
        return list(row) if isinstance(row, dict) else []
    return _header(first, "\t" if fmt == "tsv" else ",")


def _first_line(f) -> bytes:
    """The first line of ``f`` that is not blank (without its BOM)."""
    while line := f.readline():
        line = line.removeprefix(b"\xef\xbb\xbf")
        if line.strip():
            return line
    return b""


def _first_record(line: bytes):
    """The first line of a JSON Lines file as Python, or None when it is no JSON (or
    too deep to parse: the reading names the problem)."""
    try:
        return json.loads(line)
    except (ValueError, RecursionError):
        return None


def _header(line: bytes, delimiter: str) -> list[str]:
    """A CSV or TSV header's names as the in-memory reader reads them (quotes taken off
    by the csv module, each name stripped)."""
    text = line.decode("utf-8", "replace").rstrip("\r\n")
    try:
        fields = next(csv.reader([text], delimiter=delimiter), [])
    except csv.Error:
        fields = text.split(delimiter)
    return [h.strip() for h in fields]


def _open(path: str):
    if not os.path.exists(path):
        raise InputError(f"{path}: no such file")
    if os.path.isdir(path):
        raise InputError(f"{path}: is a directory, not a file")
    with open(path, "rb") as f:
        gz = f.read(2) == b"\x1f\x8b"
    return gzip.open(path, "rb") if gz else open(path, "rb")


def scan(path: str, *, numbers: Sequence[str] = (), keys: Sequence[str] = (),
         labels: Sequence[str] = (), chunk_rows: int = CHUNK_ROWS) -> Iterator[Chunk]:
    """The file's chunks: ``numbers`` as floats, ``keys`` hashed, ``labels`` as text codes.

    Only the named columns are parsed: another column may hold anything (a type that
    changes from row to row, a value nested deep), as the in-memory readers allow, save
    what they refuse in every column (a header naming a column twice or one without a
    name, JSON nested deeper than :data:`pairboot.io.guards.MAX_DEPTH`).  A line may be
    of any length.
    """
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise InputError('reading a file in chunks needs pyarrow: pip install "pairboot[fast]"'
                         ) from None
    wanted = list(dict.fromkeys([*numbers, *keys, *labels]))
    texts = set(keys) | set(labels)
    fmt = stream_format(path)
    if fmt != "parquet":
        with _open(path) as f:
            if f.read(2) in (b"\xff\xfe", b"\xfe\xff"):  # (as the in-memory readers say)
                raise InputError(f"{path}: the text is UTF-16; save the file as UTF-8")
    reader = {"csv": _csv, "tsv": _csv, "jsonl": _jsonl, "parquet": _parquet}[fmt]
    batches = reader(path, wanted, [c for c in wanted if c not in texts], texts,
                     "\t" if fmt == "tsv" else ",")
    first = 0
    for batch in _rechunk(batches, chunk_rows):
        n = batch.num_rows
        cols = {name: batch.column(name) for name in wanted}
        yield Chunk(
            first, n,
            {c: np.asarray(cols[c], dtype=np.float64) for c in numbers},  # (checked)
            {c: _keys(cols[c], path, c, first) for c in keys},
            {c: _labels(cols[c], path, c, first) for c in labels},
        )
        first += n


def _rechunk(batches, rows: int):
    """Record batches joined into batches of about ``rows`` rows (the last one shorter)."""
    import pyarrow as pa

    held, count = [], 0
    for batch in batches:
        if batch.num_rows == 0:
            continue
        held.append(batch)
        count += batch.num_rows
        if count >= rows:
            yield pa.Table.from_batches(held).combine_chunks().to_batches()[0]
            held, count = [], 0
    if held:
        yield pa.Table.from_batches(held).combine_chunks().to_batches()[0]


def _missing_column(path: str, names: Sequence[str], wanted: Sequence[str]) -> None:
    absent = [c for c in wanted if c not in names]
    if absent:
        raise InputError(f"{path}: no column {absent[0]!r} (columns: {', '.join(names[:20])})")


def _line_blocks(f) -> Iterator[bytes]:
    """``f`` in blocks of whole lines, of about :data:`_BLOCK_BYTES` (a longer line whole)."""
    held = bytearray()
    while block := f.read(_BLOCK_BYTES):
        start = len(held)
        held += block
        cut = held.rfind(b"\n", start) + 1
        if cut:
            yield bytes(held[:cut])
            del held[:cut]
    if held:
        yield bytes(held)


def _too_long(exc: Exception) -> bool:
    """Whether pyarrow failed on a line longer than its block."""
    return "straddl" in str(exc) or "Empty CSV file or block" in str(exc)


def _batches(columns: dict, wanted: Sequence[str]):
    """The wanted columns (arrays or chunked arrays of one length) as record batches."""
    import pyarrow as pa

    return pa.Table.from_arrays([columns[c] for c in wanted], names=list(wanted)).to_batches()


def _csv(path, wanted, numbers, texts, delimiter):
    """A CSV or TSV file in batches of its wanted columns: numbers checked as float64,
    the rest as text.  Each block of whole lines is parsed on its own, its size that of
    its lines, so that no line or header is too long."""
    import pyarrow as pa
    from pyarrow import csv as pacsv

    with _open(path) as f:
        names = _header(_first_line(f), delimiter)
        check_header(names, path)
        _missing_column(path, names, wanted)
        auto = [f"f{j}" for j in range(len(names))]
        where = {name: auto[j] for j, name in enumerate(names)}
        parse = pacsv.ParseOptions(delimiter=delimiter)
        rows = 0
        for block in _line_blocks(f):
            if not block.strip():
                continue

            def read(as_text, block=block):
                convert = pacsv.ConvertOptions(
                    include_columns=[where[c] for c in wanted],
                    column_types={where[c]: pa.string() for c in as_text},
                    strings_can_be_null=False, quoted_strings_can_be_null=False)
                for size in (_ARROW_BLOCK, len(block) + 1):  # (a line longer than one: whole)
                    options = pacsv.ReadOptions(column_names=auto, block_size=size)
                    try:
                        return pacsv.read_csv(pa.py_buffer(block), read_options=options,
                                              parse_options=parse, convert_options=convert)
                    except pa.ArrowInvalid as exc:
                        if size == len(block) + 1 or not _too_long(exc):
                            raise InputError(f"{path}: {_arrow_message(exc)}") from None

            table = read(texts)
            columns = {c: table.column(where[c]) for c in wanted}
            try:
                out = {c: _numbers(columns[c], path, c, rows, exact=True) for c in numbers}
            except _Inexact:  # (a float column beyond 2**53: its text decides)
                table = read(set(wanted))
                out = {c: _numbers(table.column(where[c]), path, c, rows) for c in numbers}
            out.update({c: columns[c] for c in texts})
            rows += table.num_rows
            yield from _batches(out, wanted)


def _jsonl(path, wanted, numbers, texts, delimiter):
    """A JSON Lines file in batches of its wanted columns, each block of whole lines
    parsed by pyarrow with those columns' types given and every other field skipped;
    a block that pyarrow cannot read so (a value of another type, a string of digits,
    an integer beyond 2**53, a bad line) is read by Python's ``json``, as the in-memory
    reader reads it, and names the row at fault."""
    import pyarrow as pa
    from pyarrow import json as pj

    schema = None
    rows, line = 0, 1
    with _open(path) as f:
        for block in _line_blocks(f):
            block = block.removeprefix(b"\xef\xbb\xbf") if line == 1 else block
            breaks = np.flatnonzero(np.frombuffer(block, dtype=np.uint8) == 10)
            spans = np.concatenate(([0], breaks + 1)), np.append(breaks, len(block))
            check_json_lines(block, path, line, spans)
            line += len(breaks)
            if not block.strip():
                continue
            if schema is None:
                first = _first_record(_first_line(io.BytesIO(block)))
                if isinstance(first, dict):
                    _missing_column(path, list(first), wanted)
                schema = pa.schema([(c, _json_type(first, c, c in texts)) for c in wanted])
            options = pj.ParseOptions(explicit_schema=schema, newlines_in_values=False,
                                      unexpected_field_behavior="ignore")
            try:
                try:
                    table = pj.read_json(pa.py_buffer(block), parse_options=options,
                                         read_options=pj.ReadOptions(block_size=_ARROW_BLOCK))
                except pa.ArrowInvalid as exc:
                    if not _too_long(exc):
                        raise
                    table = pj.read_json(pa.py_buffer(block), parse_options=options,
                                         read_options=pj.ReadOptions(block_size=len(block) + 1))
                columns = {c: table.column(c) for c in wanted}
                out = {c: _numbers(columns[c], path, c, rows, exact=True) for c in numbers}
                out.update({c: columns[c].cast(pa.string()) for c in texts})  # (as Python's)
                n = table.num_rows
            except (pa.ArrowInvalid, _Inexact):
                out, n = _json_rows(block, path, wanted, numbers, rows)
            rows += n
            yield from _batches(out, wanted)


def _json_type(first, column: str, text: bool):
    """The Arrow type a JSON Lines file's column is read as: float64 for numbers; for
    ids and labels, the type of the first line's value (int64 or text)."""
    import pyarrow as pa

    if not text:
        return pa.float64()
    value = first.get(column) if isinstance(first, dict) else None
    is_int = isinstance(value, int) and not isinstance(value, bool)
    return pa.int64() if is_int else pa.string()


def _json_rows(block: bytes, path: str, wanted, numbers, first: int):
    """A block of JSON Lines read by Python (:func:`pairboot.io.to_number` and
    :func:`pairboot.io.to_label`, as in memory): the wanted columns as Arrow arrays,
    numbers checked, and the number of rows."""
    import pyarrow as pa

    values: dict = {c: [] for c in wanted}
    for raw in _JSONL_BREAK.split(block):
        if not raw.strip():
            continue
        row = first + len(values[wanted[0]]) + 1
        try:
            record = loads(raw)
        except RecursionError:
            raise InputError(f"{path}: data row {row}: JSON nested too deep") from None
        except ValueError as exc:
            what = exc.msg if isinstance(exc, json.JSONDecodeError) else json_value_problem(exc)
            raise InputError(f"{path}: data row {row}: not valid JSON ({what})") from None
        if not isinstance(record, dict):
            raise InputError(f"{path}: data row {row}: expected a JSON object per line, got "
                             f"{type(record).__name__}")
        for c in wanted:
            values[c].append(record.get(c))
    n = len(values[wanted[0]])
    out = {}
    for c in wanted:
        if c in numbers:
            out[c] = pa.array(_python_numbers(values[c], path, c, first), pa.float64())
        else:
            out[c] = pa.array([to_label(v) for v in values[c]], pa.string())
    return out, n


_JSONL_BREAK = re.compile(rb"\r\n|\r|\n")


def _python_numbers(values: list, path: str, name: str, first: int) -> np.ndarray:
    """``values`` as the in-memory readers read them (:func:`pairboot.io.to_number`),
    the first bad one an error naming its row."""
    out = np.empty(len(values), dtype=np.float64)
    for i, v in enumerate(values):
        if v is None:
            raise _row(path, name, first, i, "no value (a missing score is an error, never "
                       "dropped)")
        out[i], problem = to_number(v)
        if problem is not None and isinstance(v, str) and v.strip() == name:
            raise _row(path, name, first, i, f"{v!r} is the column's name: the header "
                       "repeated, as when files are concatenated? Remove that line")
        if problem is not None:
            raise _row(path, name, first, i, problem)
    return out


def _parquet(path, wanted, numbers, texts, delimiter):
    import pyarrow as pa
    from pyarrow import parquet as pq

    try:
        pf = pq.ParquetFile(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(f"{path}: not a readable Parquet file ({exc})") from None
    names = pf.schema_arrow.names
    check_header(names, path, "the schema")
    _missing_column(path, names, wanted)
    rows = 0
    for batch in pf.iter_batches(batch_size=1 << 16, columns=wanted):
        out = {c: batch.column(c) for c in texts}
        out.update({c: _numbers(batch.column(c), path, c, rows) for c in numbers})
        rows += batch.num_rows
        yield from _batches(out, wanted)


def _arrow_message(exc: Exception) -> str:
    return " ".join(str(exc).split())[:300]


def _row(path: str, column: str, first: int, i: int, what: str) -> InputError:
    return InputError(f"{path}: data row {first + i + 1}, column {column!r}: {what}")


class _Inexact(Exception):
    """A float column with a value beyond 2**53: perhaps an integer that pyarrow rounded
    (the text, or Python's ``json``, decides)."""


def _numbers(col, path: str, name: str, first: int, *, exact: bool = False):
    """A column as float64 (an Arrow array), every value checked: missing, not a number,
    not finite, or an integer beyond 2**53 (:mod:`pairboot.inputs.precision`) is an error
    naming the row.  ``exact``: a float beyond 2**53 raises :class:`_Inexact` (pyarrow
    may have rounded an integer of the text to it)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if col.null_count:
        i = int(np.flatnonzero(np.asarray(col.is_null()))[0])
        raise _row(path, name, first, i, "no value (a missing score is an error, never dropped)")
    if pa.types.is_boolean(col.type):
        col = pc.cast(col, pa.int8())
    if not (pa.types.is_integer(col.type) or pa.types.is_floating(col.type)):
        return pa.array(_python_numbers(col.to_pylist(), path, name, first), pa.float64())
    if pa.types.is_integer(col.type):
        ints = np.asarray(col)
        big = np.flatnonzero((ints > EXACT_INTEGERS) | (ints < -EXACT_INTEGERS)
                             if ints.dtype.kind == "i" else ints > EXACT_INTEGERS)
        if len(big):
            i = int(big[0])
            raise _row(path, name, first, i, integer_problem(int(ints[i])))
    arr = np.asarray(pc.cast(col, pa.float64()), dtype=np.float64)
    bad = ~np.isfinite(arr)
    if exact and bad.any() and pa.types.is_floating(col.type):
        raise _Inexact  # (a number pyarrow overflowed: the in-memory reader's message)
    if bad.any():
        i = int(np.argmax(bad))
        raise _row(path, name, first, i, f"{arr[i]} is not a finite number")
    if exact and pa.types.is_floating(col.type) and len(arr) and \
            float(np.abs(arr).max()) >= EXACT_INTEGERS:
        raise _Inexact
    return pa.array(arr, pa.float64())


def _text_array(col, path: str, name: str, first: int):
    """The column as :func:`pairboot.io.to_label` reads it (:func:`pairboot.io.arrow.labels`:
    text stripped, integers as their decimal text), integral decimals as integers; a
    missing or blank value is an error naming the row."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if col.null_count:
        i = int(np.flatnonzero(np.asarray(col.is_null()))[0])
        raise _row(path, name, first, i, "no value (every row needs one)")
    if pa.types.is_floating(col.type):
        values = np.asarray(col)
        whole = np.isfinite(values) & (values == np.round(values))
        if not whole.all():
            i = int(np.argmin(whole))
            raise _row(path, name, first, i, f"{values[i]!r}: ids and labels must be text or "
                       "integers to be read in chunks")
        col = pa.array(values.astype(np.int64))
    elif pa.types.is_large_string(col.type):
        col = pc.cast(col, pa.string())
    text = arrow.labels(col)
    if text is None:
        raise _row(path, name, first, 0, f"holds {col.type} values; ids and labels must be "
                   "text or integers")
    if text.null_count:  # (arrow.labels: blank text is missing)
        i = int(np.flatnonzero(np.asarray(text.is_null()))[0])
        raise _row(path, name, first, i, "is blank (every row needs a value)")
    return text


def _keys(col, path: str, name: str, first: int) -> np.ndarray:
    import pyarrow as pa

    if pa.types.is_integer(col.type) and not col.null_count:
        return id_keys(np.asarray(col))
    col = _text_array(col, path, name, first)
    bufs = col.buffers()
    offsets = np.frombuffer(bufs[1], dtype=np.int32)[col.offset : col.offset + len(col) + 1]
    data = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None else np.zeros(0, np.uint8)
    return text_keys(offsets.astype(np.int64), data)


def _labels(col, path: str, name: str, first: int) -> tuple[list[str], np.ndarray]:
    import pyarrow.compute as pc

    col = _text_array(col, path, name, first)
    encoded = pc.dictionary_encode(col)
    return ([str(v) for v in encoded.dictionary.to_pylist()],
            np.asarray(encoded.indices, dtype=np.int64))

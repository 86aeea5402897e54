"""Reading a file in bounded chunks, for files larger than memory (needs pyarrow).

:func:`scan` yields the named columns of a CSV, TSV, JSONL (gzipped or not) or Parquet
file, a chunk of rows at a time, as checked numpy arrays: scores as float64 (a missing or
non-numeric value is an error naming the file, row and column: no row is dropped), ids
and labels as 64-bit keys (:mod:`pairboot.engine.keys`), hashed from Arrow's buffers
without a Python object per row.  Memory holds one chunk; the file is read once.

CSV and TSV go through pyarrow's streaming CSV reader (ids and labels read as text, so
``007`` stays ``007``), Parquet through ``ParquetFile.iter_batches``, JSONL through
pyarrow's JSON reader on blocks of whole lines.  A JSON array file (``[...]``) has no
streaming reader and is refused here.
"""

from __future__ import annotations

import gzip
import io
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from pairboot.engine.keys import id_keys, text_keys
from pairboot.errors import InputError
from pairboot.io import arrow
from pairboot.io.columns import to_number

__all__ = ["Chunk", "scan", "stream_format"]

CHUNK_ROWS = 1 << 18
"""Rows per chunk by default: 2 MiB per numeric column; with the reader's blocks in flight
and the keys' scratch, a process holds about 250 MB at most, whatever the file."""

_BLOCK_BYTES = 1 << 20
"""Bytes of text parsed at a time (CSV blocks, JSONL lines): pyarrow's streaming CSV
reader holds many blocks in flight, so larger blocks cost memory (16 MiB blocks: about
700 MB at a time; 1 MiB: about 100 MB) and save no time.  Batches are then joined into
chunks of ``chunk_rows``."""


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
    """``csv``, ``tsv``, ``jsonl`` or ``parquet``, from the name, else the first bytes."""
    name = path.lower().removesuffix(".gz")
    for ext, fmt in ((".csv", "csv"), (".tsv", "tsv"), (".tab", "tsv"), (".jsonl", "jsonl"),
                     (".ndjson", "jsonl"), (".parquet", "parquet"), (".pq", "parquet")):
        if name.endswith(ext):
            return fmt
    with _open(path) as f:
        head = f.read(65536)
    if head.startswith(b"PAR1"):
        return "parquet"
    head = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith(b"{"):
        return "jsonl"
    if head.startswith(b"["):
        raise InputError(f"{path}: a JSON array cannot be read in chunks; write it as JSONL "
                         "(one object per line) or Parquet")
    first = head.split(b"\n", 1)[0]
    return "tsv" if b"\t" in first and b"," not in first else "csv"


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
    """The file's chunks: ``numbers`` as floats, ``keys`` hashed, ``labels`` as text codes."""
    try:
        import pyarrow  # noqa: F401, PLC0415
    except ImportError:
        raise InputError('reading a file in chunks needs pyarrow: pip install "pairboot[fast]"'
                         ) from None
    wanted = list(dict.fromkeys([*numbers, *keys, *labels]))
    fmt = stream_format(path)
    batches = {"csv": _csv, "tsv": _csv, "jsonl": _jsonl, "parquet": _parquet}[fmt](
        path, wanted, set(keys) | set(labels), chunk_rows, "\t" if fmt == "tsv" else ",")
    first = 0
    for batch in _rechunk(batches, chunk_rows):
        n = batch.num_rows
        cols = {name: batch.column(name) for name in wanted}
        yield Chunk(
            first, n,
            {c: _numbers(cols[c], path, c, first) for c in numbers},
            {c: _keys(cols[c], path, c, first) for c in keys},
            {c: _labels(cols[c], path, c, first) for c in labels},
        )
        first += n


def _rechunk(batches, rows: int):
    """Record batches joined into batches of about ``rows`` rows (the last one shorter)."""
    import pyarrow as pa  # noqa: PLC0415

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


def _csv(path, wanted, text_columns, chunk_rows, delimiter):
    import pyarrow as pa  # noqa: PLC0415
    from pyarrow import csv  # noqa: PLC0415

    with _open(path) as f:
        header = f.readline().decode("utf-8", "replace").lstrip("\ufeff").rstrip("\r\n")
    names = [h.strip().strip('"') for h in header.split(delimiter)]
    _missing_column(path, names, wanted)
    convert = csv.ConvertOptions(
        include_columns=wanted, column_types={c: pa.string() for c in text_columns},
        strings_can_be_null=False, quoted_strings_can_be_null=False)
    read = csv.ReadOptions(block_size=_BLOCK_BYTES, use_threads=True)
    parse = csv.ParseOptions(delimiter=delimiter)
    try:
        reader = csv.open_csv(_open(path), read_options=read, parse_options=parse,
                              convert_options=convert)
        while True:
            try:
                batch = reader.read_next_batch()
            except StopIteration:
                return
            yield batch
    except pa.ArrowInvalid as exc:
        raise InputError(f"{path}: {_arrow_message(exc)}") from None


def _jsonl(path, wanted, text_columns, chunk_rows, delimiter):
    import pyarrow as pa  # noqa: PLC0415
    from pyarrow import json as pj  # noqa: PLC0415

    with _open(path) as f:
        rest = b""
        while True:
            block = f.read(_BLOCK_BYTES)
            data = rest + block
            if not block:
                rest, whole = b"", data
            else:
                cut = data.rfind(b"\n") + 1
                rest, whole = data[cut:], data[:cut]
            if whole.strip():
                try:
                    table = pj.read_json(io.BytesIO(whole))
                except pa.ArrowInvalid as exc:
                    raise InputError(f"{path}: {_arrow_message(exc)}") from None
                _missing_column(path, table.column_names, wanted)
                yield from table.select(wanted).to_batches()
            if not block:
                return


def _parquet(path, wanted, text_columns, chunk_rows, delimiter):
    import pyarrow as pa  # noqa: PLC0415
    from pyarrow import parquet as pq  # noqa: PLC0415

    try:
        pf = pq.ParquetFile(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(f"{path}: not a readable Parquet file ({exc})") from None
    _missing_column(path, pf.schema_arrow.names, wanted)
    yield from pf.iter_batches(batch_size=chunk_rows, columns=wanted)


def _arrow_message(exc: Exception) -> str:
    return " ".join(str(exc).split())[:300]


def _row(path: str, column: str, first: int, i: int, what: str) -> InputError:
    return InputError(f"{path}: data row {first + i + 1}, column {column!r}: {what}")


def _numbers(col, path: str, name: str, first: int) -> np.ndarray:
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.compute as pc  # noqa: PLC0415

    if col.null_count:
        i = int(np.flatnonzero(np.asarray(col.is_null()))[0])
        raise _row(path, name, first, i, "no value (a missing score is an error, never dropped)")
    if pa.types.is_boolean(col.type):
        col = pc.cast(col, pa.int8())
    if not (pa.types.is_integer(col.type) or pa.types.is_floating(col.type)):
        out = np.empty(len(col), dtype=np.float64)
        for i, v in enumerate(col.to_pylist()):  # the in-memory readers' rule, to_number
            out[i], problem = to_number(v)
            if problem is not None:
                raise _row(path, name, first, i, problem)
        return out
    arr = np.asarray(pc.cast(col, pa.float64()), dtype=np.float64)
    bad = ~np.isfinite(arr)
    if bad.any():
        i = int(np.argmax(bad))
        raise _row(path, name, first, i, f"{arr[i]} is not a finite number")
    return arr


def _text_array(col, path: str, name: str, first: int):
    """The column as :func:`pairboot.io.to_label` reads it (:func:`pairboot.io.arrow.labels`:
    text stripped, integers as their decimal text), integral decimals as integers; a
    missing or blank value is an error naming the row."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.compute as pc  # noqa: PLC0415

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
    import pyarrow as pa  # noqa: PLC0415

    if pa.types.is_integer(col.type) and not col.null_count:
        return id_keys(np.asarray(col))
    col = _text_array(col, path, name, first)
    bufs = col.buffers()
    offsets = np.frombuffer(bufs[1], dtype=np.int32)[col.offset : col.offset + len(col) + 1]
    data = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None else np.zeros(0, np.uint8)
    return text_keys(offsets.astype(np.int64), data)


def _labels(col, path: str, name: str, first: int) -> tuple[list[str], np.ndarray]:
    import pyarrow.compute as pc  # noqa: PLC0415

    col = _text_array(col, path, name, first)
    encoded = pc.dictionary_encode(col)
    return ([str(v) for v in encoded.dictionary.to_pylist()],
            np.asarray(encoded.indices, dtype=np.int64))

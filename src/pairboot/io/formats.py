"""The one extension -> format table, for every reader (in memory, in chunks, on Dask).

A file's format comes from its name: the last extension, after one ``.gz`` (gzip) is
taken off, looked up in :data:`FORMATS` (case aside).  A name the table does not know
gives None: a reader that can look at the first bytes sniffs them (:func:`sniff`); one
that cannot (a remote file on a Dask cluster) refuses it with :func:`unknown_format`.
Nothing heavy is imported here: :mod:`pairboot.io.tables`, :mod:`pairboot.io.stream` and
:mod:`pairboot.partitioned.files` all read this table, and it reads none of them.
"""

from __future__ import annotations

import os

from pairboot.errors import InputError

__all__ = [
    "COMPRESSIONS",
    "FORMATS",
    "GZIP_MAGIC",
    "LOG_SIGNS",
    "LOG_SNIFF_BYTES",
    "SNIFF_BYTES",
    "compression_of",
    "file_stem",
    "format_of",
    "known_extensions",
    "may_be_log",
    "names_of_files",
    "sniff",
    "unknown_format",
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
"""Extensions and the format each one means (``json``: an array of objects, or JSON Lines
when the text does not start with ``[``)."""

COMPRESSIONS = {".gz": "gzip"}
"""Compressed suffixes (after the format's extension: ``scores.tsv.gz``)."""

GZIP_MAGIC = b"\x1f\x8b"
"""The first bytes of gzip data: such a file is inflated whatever its name."""

SNIFF_BYTES = 65536
"""How many leading bytes :func:`sniff` looks at."""

_LEAD = b"\xef\xbb\xbf \t\r\n"  # (a byte-order mark and blank space before the first value)


def _suffixes(path: str | os.PathLike) -> tuple[str, str | None]:
    """The format extension of the file name (lower case; ``""`` for none) and its
    compression (None for none), as ``os.path.splitext`` splits the last part of the
    name (a URL's too: the bucket's dots are not the file's)."""
    name = os.fspath(path).lower().rsplit("/", 1)[-1]
    stem, ext = os.path.splitext(name)
    compression = COMPRESSIONS.get(ext)
    if compression is not None:
        ext = os.path.splitext(stem)[1]
    return ext, compression


def format_of(path: str | os.PathLike) -> str | None:
    """``"csv"``, ``"tsv"``, ``"jsonl"``, ``"json"`` or ``"parquet"``, from the name's
    extension (after a ``.gz``); None when the table does not know it.

    >>> format_of("runs/base.TAB.gz"), format_of("s3://my.tsv.bucket/a.csv"), format_of("a.txt")
    ('tsv', 'csv', None)
    """
    return FORMATS.get(_suffixes(path)[0])


def compression_of(path: str | os.PathLike, head: bytes | None = None) -> str | None:
    """``"gzip"`` when the name ends in ``.gz`` or the file's first bytes are gzip data;
    None otherwise.  ``head``: those bytes, when the caller has them (``b""``: the name
    only); None reads them from a local file (a remote one, with ``://``: its name only).

    >>> compression_of("s3://bucket/runs.TSV.GZ"), compression_of("a.csv", b"")
    ('gzip', None)
    """
    compression = _suffixes(path)[1]
    if compression is None and head is None:
        name = os.fspath(path)
        head = b""
        if "://" not in name and os.path.isfile(name):
            with open(name, "rb") as f:
                head = f.read(len(GZIP_MAGIC))
    if compression is None and head.startswith(GZIP_MAGIC):
        compression = "gzip"
    return compression


def sniff(head: bytes) -> str:
    """The format of an unknown extension, from the first bytes (inflated): Parquet by its
    magic bytes, JSON Lines when the first character is ``{``, a JSON array (``"json"``)
    when it is ``[``, TSV when the first line has tabs and no commas, CSV otherwise."""
    if head.startswith(b"PAR1"):
        return "parquet"
    head = head[:SNIFF_BYTES].lstrip(_LEAD)
    if head.startswith(b"{"):
        return "jsonl"
    if head.startswith(b"["):
        return "json"
    first = head.split(b"\n", 1)[0]
    if b"\t" in first and b"," not in first:
        return "tsv"
    return "csv"


def file_stem(path: str | os.PathLike) -> str:
    """A file's name without its extension (and a ``.gz`` before it): ``runs/base.csv.gz``
    -> ``base``; standard input (``-``) is ``stdin``."""
    text = os.fspath(path)
    if text == "-":
        return "stdin"
    base = text.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] or text
    stem, ext = os.path.splitext(base)
    if ext.lower() in COMPRESSIONS:
        stem = os.path.splitext(stem)[0]
    return stem or base


def names_of_files(paths) -> list[str]:
    """Systems named by their files, one rule for two files and for a family: each
    file's stem (:func:`file_stem`); where two stems are alike, as many of their folders
    as tell them apart (``a/model``, ``b/model``), then their full names (``model.csv``,
    ``model.jsonl``); the paths as given where nothing else does (the same file twice).

    >>> names_of_files(["runs/a/model.csv", "runs/b/model.csv", "base.jsonl"])
    ['a/model', 'b/model', 'base']
    >>> names_of_files(["x/model.csv", "x/model.jsonl.gz"])
    ['model.csv', 'model.jsonl.gz']
    """
    paths = [os.fspath(p) for p in paths]

    def levels(path: str) -> list[str]:
        """The names of ``path``, from the shortest: the stem with 0, 1, ... folders,
        then the file's name with as many."""
        if path == "-" or "://" in path:
            folders = path.rstrip("/").split("/")[:-1] if "://" in path else []
        else:
            folders = os.path.abspath(path).replace("\\", "/").split("/")[:-1]
        folders = [f for f in folders if f]
        base = path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] or path
        return [("/".join(folders[len(folders) - k:] + [last]) if k else last)
                for last in (file_stem(path), base) for k in range(len(folders) + 1)]

    options = [levels(p) for p in paths]
    level = [0] * len(paths)
    for _ in range(max(map(len, options), default=0)):  # (each round moves a tie on)
        names = [o[min(k, len(o) - 1)] for o, k in zip(options, level)]
        tied = {n for n in names if names.count(n) > 1}
        if not tied:
            return names
        for i, n in enumerate(names):
            if n in tied:
                level[i] += 1
    names = [o[min(k, len(o) - 1)] for o, k in zip(options, level)]
    return [n if names.count(n) == 1 else p for n, p in zip(names, paths)]


def known_extensions() -> str:
    """The extensions of :data:`FORMATS`, for a message: ``.csv, .tsv, ...``."""
    return ", ".join(FORMATS)


def unknown_format(path: str | os.PathLike) -> InputError:
    """The one-line refusal of a file whose extension is not in the table, where its
    bytes cannot be sniffed."""
    return InputError(f"{os.fspath(path)}: unknown file extension; known extensions: "
                      f"{known_extensions()} (each may end in .gz)")


LOG_SIGNS = (b"{", b"\t", b"PK\x03\x04", b"mqm_avg_score", b"RAW.SCR")
"""What the start of every log a reader recognises holds: JSON (Inspect, lm-eval's
samples, COMET's and tau-bench's JSON, ir_measures), a tab (trec_eval, comet-score's
lines, WMT's TSV), a zip (Inspect's .eval) or a WMT header (MQM, DA, space-separated).
Each reader's ``detect`` looks no further than :data:`LOG_SNIFF_BYTES` (lm-eval's first
line of a ``samples_*`` file excepted, which is let through by its name)."""

LOG_SNIFF_BYTES = 1 << 18
"""How much of a file :func:`may_be_log` reads: the readers look at 64 KiB (of bytes, or
of characters: up to 4 bytes each)."""


def may_be_log(path) -> bool:
    """False only when no reader can recognise ``path``: a file whose name is not an
    lm-eval samples file's and whose first :data:`LOG_SNIFF_BYTES` hold none of
    :data:`LOG_SIGNS` (a plain CSV file).  Then neither :mod:`pairboot.io.harness` nor
    its readers are imported to look at it."""
    try:
        if not os.path.isfile(path) or os.path.basename(os.fspath(path)).startswith(
                "samples_"):
            return True
        with open(path, "rb") as f:
            head = f.read(LOG_SNIFF_BYTES)
    except (OSError, TypeError, ValueError):
        return True  # (the readers say what is wrong with it)
    return any(sign in head for sign in LOG_SIGNS)

"""Guards against hostile or odd input: nesting too deep to parse, and files that inflate
beyond what memory holds.

- **Depth.** Python's ``json`` raises RecursionError past about a thousand levels, and
  pyarrow's JSON reader overflows its stack (a segmentation fault) on a value nested
  some tens of thousands deep, even in a column no one reads.  JSON Lines are
  therefore checked before either parser sees them (:func:`check_json_lines`): no line
  may nest arrays and objects more than :data:`MAX_DEPTH` deep, in memory and in
  chunks alike.  Only a line long enough, with enough ``[`` and ``{``, is looked at
  closely (its strings taken out, the depth counted).  Other JSON
  read by Python (a JSON array, the harnesses' logs) is bounded by ``json`` itself:
  :func:`too_deep` turns its RecursionError into an InputError naming the line.
- **Size.** A gzip file is inflated piece by piece and refused once its text passes
  :func:`inflated_limit` (an eighth of the memory this process may use: the readers
  hold several times the text), with the sizes; ``--stream`` reads it in chunks.
"""

from __future__ import annotations

import io
import re
import sys

import numpy as np

from pairboot.engine.memory import memory_limit
from pairboot.errors import InputError

__all__ = ["MAX_DEPTH", "check_json_lines", "deepest", "gunzip", "inflated_limit",
           "json_value_problem", "loads", "too_deep"]

MAX_DEPTH = 512
"""How deep arrays and objects may nest in one JSON value (Python's ``json`` reads about
900 levels below the command line; pyarrow's reader more, until it crashes)."""

_STEP = np.zeros(256, dtype=np.int8)
_STEP[[ord("["), ord("{")]] = 1
_STEP[[ord("]"), ord("}")]] = -1
_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+"')
"""A JSON string (its brackets are no nesting)."""


def deepest(text: bytes) -> tuple[int, int]:
    """How deep the arrays and objects of JSON ``text`` nest, and on which line (0-based)
    they nest deepest.  Strings are taken out first (an unterminated one counts as text,
    so that invalid JSON is never found shallower than it is); a JSON string holds no
    line break, so the lines are counted on what is left."""
    bare = _STRING.sub(b'""', text)
    buf = np.frombuffer(bare, dtype=np.uint8)
    at = np.flatnonzero(_STEP[buf])
    if not len(at):
        return 0, 0
    depth = np.cumsum(_STEP[buf[at]], dtype=np.int64)
    i = int(np.argmax(depth))
    return int(depth[i]), bare.count(b"\n", 0, int(at[i]))


def check_json_lines(data: bytes, display: str, first_line: int = 1,
                     spans: tuple[np.ndarray, np.ndarray] | None = None) -> None:
    """Refuse JSON Lines ``data`` (bytes; a line is one value) in which a line nests
    deeper than :data:`MAX_DEPTH`, naming its line (``first_line`` is the number of the
    first line of ``data`` in the file); ``spans``, where its lines start and end, when
    the caller has them.

    A line can only nest that deep if it is over twice as long and holds that many
    ``[`` and ``{``: the lengths come from the line breaks, the counts from
    ``bytes.count`` on the long lines alone, and only a line that passes both is
    parsed for its depth (:func:`deepest`).
    """
    if len(data) <= 2 * MAX_DEPTH:
        return
    if spans is None:
        if data.count(b"[") + data.count(b"{") < MAX_DEPTH:
            return  # (a small file or block: two counts in C)
        breaks = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
        spans = np.concatenate(([0], breaks + 1)), np.append(breaks, len(data))
    starts, ends = spans
    for k in np.flatnonzero(ends - starts > 2 * MAX_DEPTH).tolist():
        a, b = int(starts[k]), int(ends[k])
        if data.count(b"[", a, b) + data.count(b"{", a, b) > MAX_DEPTH:
            depth, _ = deepest(data[a:b])
            if depth > MAX_DEPTH:
                raise _deep_error(display, first_line + k, depth)


def _deep_error(display: str, line: int, depth: int | None) -> InputError:
    levels = f"{depth:,} levels" if depth is not None else f"more than {MAX_DEPTH} levels"
    return InputError(f"{display}, line {line}: JSON nested {levels} deep (arrays or objects "
                      f"within one another); pairboot reads at most {MAX_DEPTH}")


def too_deep(text: str | bytes, display: str, first_line: int = 1) -> InputError:
    """The InputError for JSON ``text`` that ``json`` found too deep (RecursionError),
    naming the line where it nests deepest."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    depth, line = deepest(data)
    return _deep_error(display, first_line + line, depth if depth > MAX_DEPTH else None)


def _long_int(digits: str) -> int:
    """An integer of more digits than ``int(str)`` takes (through ``Decimal``, which has
    no such limit): read as it is, so that its column alone decides."""
    import decimal  # (rare: imported when needed, not by every command)

    return int(decimal.Decimal(digits))


def loads(text: str | bytes, **keywords):
    """``json.loads``, reading integers of any length: Python refuses to turn more than
    4,300 digits into an integer (a ValueError for the whole line), and such a number is
    read exactly on a second try instead, so that a column no one reads does not refuse
    the file (as pyarrow, reading the used columns alone, does not)."""
    import json  # (JSON only: not imported to read a CSV file)

    try:
        return json.loads(text, **keywords)
    except ValueError as exc:
        if isinstance(exc, json.JSONDecodeError) or "integer string conversion" not in str(exc):
            raise
    return json.loads(text, parse_int=_long_int, **keywords)


def json_value_problem(exc: ValueError) -> str:
    """What a ValueError of ``json.loads`` other than a syntax error means: an integer
    of more digits than Python turns into a number (``sys.get_int_max_str_digits``)."""
    if "integer string conversion" in str(exc):
        return f"an integer of more than {sys.get_int_max_str_digits():,} digits"
    return " ".join(str(exc).split())[:200]


def inflated_limit() -> int:
    """The most text a gzip file may inflate to for the in-memory readers: an eighth of
    the memory this process may use (they hold the text and its values several times
    over); 4 GiB where that is unknown."""
    limit = memory_limit()
    return limit // 8 if limit is not None else 4 << 30


_PIECE = 16 << 20


def gunzip(data: bytes, display: str, limit: int | None = None) -> bytes:
    """The inflated text of gzip ``data``, inflated piece by piece and refused as soon
    as it passes ``limit`` bytes (default :func:`inflated_limit`), with both sizes."""
    import gzip  # (only a gzip input needs it)

    limit = inflated_limit() if limit is None else limit
    pieces, total = [], 0
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as f:
            while piece := f.read(min(_PIECE, limit + 1 - total)):
                total += len(piece)
                if total > limit:
                    pieces.clear()
                    raise InputError(
                        f"{display}: inflates to more than {_size(limit)} (from "
                        f"{_size(len(data))} compressed), more than the in-memory reader "
                        "takes (an eighth of the memory this process may use): read it in "
                        "chunks (`stream`), or inflate it and pass the file", param="stream")
                pieces.append(piece)
    except (OSError, EOFError) as exc:
        raise InputError(f"{display}: not a readable gzip file ({exc})") from None
    return b"".join(pieces)


def _size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:,.1f} {unit}"
    return f"{n:,} bytes"

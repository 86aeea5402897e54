"""``--stratum-weights``: the population weights of the strata, from the command line.

Three spellings: ``name=w,name=w``; a JSON object ``{"name": w, ...}``; or a file, of two
columns (stratum, weight; any format :func:`pairboot.io.read_table` reads, with or
without a header) or holding one JSON object.  Every weight is checked (a finite number
above zero) and every stratum named once, with messages naming the file and line.
"""

from __future__ import annotations

import os

import pairboot.io as pbio
from pairboot.errors import InputError

__all__ = ["parse_stratum_weights", "strata_weights_arg"]


def parse_stratum_weights(spec: str) -> dict[str, float]:
    """Stratum weights from ``"name=w,name=w"``, a JSON object ``{"name": w, ...}``, or
    a file: of two columns, or holding one JSON object.

    The file of two columns (any format :func:`pairboot.io.read_table` reads) has a
    column of stratum names and a column of weights, with or without a header.  Every
    weight must be a finite number above zero, and every stratum named once.
    """
    if spec.lstrip().startswith("{"):
        pairs, source = _weights_from_json(spec, "--stratum-weights"), "--stratum-weights"
    elif os.path.isdir(spec):
        raise InputError(f"--stratum-weights {spec}: is a directory")
    elif os.path.isfile(spec) or (spec != pbio.STDIN
                                  and pbio.format_of(spec) is not None):
        pairs, source = _weights_from_file(spec)
    elif "=" not in spec and "," not in spec:  # one name: a file that is not there
        raise InputError(
            f"--stratum-weights: no file {spec!r}, and not 'name=weight,...' either"
            + (" (standard input is not read for weights)" if spec == pbio.STDIN else "")
        )
    else:
        source = "--stratum-weights"
        pairs = []
        for part in spec.split(","):
            if not part.strip():
                continue
            name, sep, weight = part.rpartition("=")
            if "=" in name:  # ('a=1;b=2': which '=' ends the name cannot be told)
                raise InputError(
                    f"--stratum-weights: cannot read {part.strip()!r}: separate the "
                    "weights with commas ('a=1,b=2'); a stratum named with '=' needs a "
                    "file of two columns, stratum and weight"
                )
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
        number, problem = pbio.to_number(raw, "stratum weights")
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


def _weights_from_json(text: str, source: str) -> list[tuple[str, object, None]]:
    """The ``(name, weight, None)`` pairs of a JSON object of weights (a key given twice
    is kept twice, for the caller to refuse)."""
    import json  # (weights given as JSON only)

    try:
        pairs = json.loads(text, object_pairs_hook=lambda items: items)
    except json.JSONDecodeError as exc:
        raise InputError(f"{source}: not a valid JSON object of weights ({exc.msg}, line "
                         f"{exc.lineno} column {exc.colno})") from None
    if not isinstance(pairs, list) or not all(isinstance(p, tuple) for p in pairs):
        raise InputError(f"{source}: expected a JSON object of weights, "
                         '{"stratum": weight, ...}')
    if not pairs:
        raise InputError(f"{source}: no weights given")
    return [(str(name), weight, None) for name, weight in pairs]


def _json_object(path: str) -> str | None:
    """The text of ``path`` when it is one JSON object (``{"web": 2, ...}``), else None
    (a table, or JSON Lines of several objects)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
        if data.startswith(b"\x1f\x8b"):
            import gzip  # (only a gzip file needs it)

            data = gzip.decompress(data)
        text = data.decode("utf-8-sig").strip()
    except (OSError, EOFError, UnicodeDecodeError):
        return None  # (the table reader says what is wrong)
    if not (text.startswith("{") and text.endswith("}")):
        return None
    import json  # (a file that may be a JSON object only)

    try:
        return text if isinstance(json.loads(text), dict) else None
    except json.JSONDecodeError:
        return None


def _weights_from_file(path: str) -> tuple[list[tuple[str, object, str | None]], str]:
    text = _json_object(path)
    if text is not None:
        return _weights_from_json(text, path), path
    table = pbio.read_table(path)
    if len(table.columns) != 2:
        index = next((c for c in table.columns if pbio.is_index_column(table, c)), None)
        raise InputError(
            f"{table.path}: a stratum weights file needs exactly two columns (stratum, "
            f"weight), found {len(table.columns)}: {table.describe_columns()}"
            + (f"; {index!r} holds the row numbers: a row index? {pbio.PANDAS_INDEX_HINT}"
               if index is not None else "")
        )
    (name_col, names), (weight_col, weights) = table.columns.items()
    pairs: list[tuple[str, object, str]] = []
    if table.format in ("csv", "tsv") and pbio.to_number(weight_col)[1] is None:
        pairs.append((name_col, weight_col, "line 1"))  # no header: line 1 is data
    for i, (name, weight) in enumerate(zip(names, weights)):
        label = pbio.to_label(name)
        if label is None:
            raise InputError(f"{table.path}, {table.where(i)}: missing stratum name")
        pairs.append((label, weight, table.where(i)))
    return pairs, table.path


def strata_weights_arg(args) -> dict[str, float] | None:
    """The API's ``strata_weights`` from ``--stratum-weights`` (None without it)."""
    if args.stratum_weights is None:
        return None
    return parse_stratum_weights(args.stratum_weights)

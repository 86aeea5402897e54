"""Inspect AI logs loaded: the JSON format, the ``.eval`` zip, an ``EvalLog`` in memory.

Each becomes a :class:`Log`: the header's ``eval`` and ``status`` and the samples, each
with its place (``samples[3]``, ``samples/3_epoch_1.json``) for messages; what a sample
holds is :mod:`pairboot.io.harness.inspect_log`'s to read.  The layout followed is
inspect_ai's ``log/_log.py`` and ``log/_recorders/eval.py``: ``header.json`` (or
``_journal/start.json`` for a run that did not finish) and ``samples/<id>_epoch_<n>.json``
in the zip; ``eval``, ``status`` and ``samples`` at the top level of the JSON log.  A bad
log raises :class:`~pairboot.errors.InputError` naming the file (or object) and the field.
"""

from __future__ import annotations

import json
import os
import re
import zipfile
import zlib
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from pairboot.errors import InputError
from pairboot.inputs.labels import shown
from pairboot.io.guards import json_value_problem, too_deep

__all__ = ["Log", "detect", "load", "load_object", "is_log_object", "object_label",
           "reducer", "kind"]

START = "_journal/start.json"
SAMPLE_MEMBER = re.compile(r"samples/[^/]+\.json")
JSON_HEAD = re.compile(
    rb'\A(?:\xef\xbb\xbf)?\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:\s*"[a-z]+"\s*,'
    rb'\s*"eval"\s*:\s*\{')
"""The start of a JSON log as Inspect writes it (EvalLog's fields in their fixed order)."""
SNIFF_BYTES = 1 << 16
PARSE_TO_DETECT = 4 << 20
"""A JSON file up to this size that does not start as Inspect writes it is parsed whole
to detect it (a log rewritten with its keys in another order)."""


# --- detection ---------------------------------------------------------------------------


def detect(path) -> bool:
    """True when ``path`` is unmistakably an Inspect log: a zip holding Inspect's
    ``_journal/start.json``, or ``header.json`` and ``samples/``; or a JSON object whose
    top level has ``eval`` (with ``task`` and ``model``) beside ``samples`` or ``status``."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        return False
    try:
        with open(path, "rb") as f:
            head = f.read(SNIFF_BYTES)
        if head.startswith(b"PK\x03\x04"):
            with zipfile.ZipFile(path) as z:
                names = set(z.namelist())
            return START in names or ("header.json" in names and any(
                SAMPLE_MEMBER.fullmatch(n) for n in names))
        if JSON_HEAD.match(head):
            return True
        if head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] != b"{" or \
                os.path.getsize(path) > PARSE_TO_DETECT:
            return False
        with open(path, encoding="utf-8-sig") as f:
            data = json.load(f)
        return _looks_like_log(data)
    except (OSError, ValueError, RecursionError, zipfile.BadZipFile, zlib.error, EOFError):
        return False


def _looks_like_log(data) -> bool:
    spec = data.get("eval") if isinstance(data, dict) else None
    return (isinstance(spec, dict) and "task" in spec and "model" in spec
            and ("samples" in data or "status" in data))


# --- loading the two formats -------------------------------------------------------------


@dataclass(frozen=True)
class Log:
    """What the reader needs of a log: its header's ``eval`` and ``status``, its samples
    (each a dict with its place in the file, for messages), and how it was stored."""

    spec: dict
    status: str | None
    samples: list
    kind: str
    notes: tuple[str, ...] = ()


def load(path: str) -> Log:
    try:
        with open(path, "rb") as f:
            head = f.read(SNIFF_BYTES)
    except OSError as exc:
        raise InputError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    if not head:
        raise InputError(f"{path}: empty file, not an Inspect log")
    if head.startswith(b"PK") or path.endswith(".eval"):
        return _load_eval(path)
    if head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] in (b"{", b"["):
        return _load_json(path)
    raise InputError(f"{path}: not an Inspect log (neither a .eval zip nor a JSON log)")


def _parse(path: str, text: bytes | str, where: str = ""):
    """JSON from ``text``, or a one-line error naming the file, member, line and column."""
    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8-sig")
        return json.loads(text)
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: {where}not UTF-8 text (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        cut = " (the file ends early: truncated?)" if exc.pos >= len(text.rstrip()) else ""
        raise InputError(f"{path}: {where}malformed JSON at line {exc.lineno}, column "
                         f"{exc.colno}: {exc.msg}{cut}") from None
    except RecursionError:
        raise too_deep(text, f"{path}: {where}".rstrip(": ")) from None
    except ValueError as exc:
        raise InputError(f"{path}: {where}malformed JSON ({json_value_problem(exc)})"
                         ) from None


def _load_json(path: str) -> Log:
    with open(path, "rb") as f:
        data = _parse(path, f.read())
    if not isinstance(data, dict) or not isinstance(data.get("eval"), dict):
        raise InputError(f"{path}: not an Inspect log (a JSON log has an 'eval' object at "
                         f"its top level)")
    samples = data.get("samples")
    if samples is None:
        raise InputError(f"{path}: the log holds no samples (was it written with "
                         f"log_samples=False?)")
    if not isinstance(samples, list):
        raise InputError(f"{path}: 'samples' is {kind(samples)}, not a list")
    if not samples:
        raise InputError(f"{path}: 'samples' is empty: the log holds no samples")
    places = [f"samples[{i}]" for i in range(len(samples))]
    return Log(data["eval"], data.get("status"), list(zip(places, samples)), "JSON")


def _load_eval(path: str) -> Log:
    try:
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
            notes = []
            if "header.json" in names:
                header = _parse(path, z.read("header.json"), "header.json: ")
            elif START in names:
                header = _parse(path, z.read(START), f"{START}: ")
                notes.append(f"no header.json (the run did not finish): read {START}")
            else:
                raise InputError(f"{path}: a zip but not an Inspect .eval log (no "
                                 f"header.json or {START})")
            members = sorted(n for n in names if SAMPLE_MEMBER.fullmatch(n))
            samples = [(n, _parse(path, z.read(n), f"{n}: ")) for n in members]
    except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
        raise InputError(f"{path}: not a readable zip archive: a .eval log truncated or "
                         f"damaged ({exc})") from None
    except NotImplementedError as exc:
        raise InputError(f"{path}: this Python cannot decompress it ({exc})") from None
    if not isinstance(header, dict) or not isinstance(header.get("eval"), dict):
        raise InputError(f"{path}: header.json has no 'eval' object: not an Inspect log")
    if not samples:
        raise InputError(f"{path}: the log holds no samples/ (was it written with "
                         f"log_samples=False?)")
    return Log(header["eval"], header.get("status"), samples, ".eval", tuple(notes))


# --- an EvalLog object in memory ---------------------------------------------------------


def is_log_object(obj) -> bool:
    """Whether ``obj`` is an Inspect ``EvalLog`` in memory (what ``inspect_ai.eval()``
    returns), duck-typed: attributes ``eval`` and ``samples``; or its dict form
    (``log.model_dump()``, a JSON log loaded): a mapping whose ``eval`` is a mapping.
    Whether their fields hold what a log holds is the reader's to check, naming them."""
    if isinstance(obj, (str, bytes, os.PathLike)):
        return False
    if isinstance(obj, Mapping):
        return isinstance(obj.get("eval"), Mapping)
    if type(obj).__module__.split(".")[0] in _TABLE_MODULES:
        return False  # (a DataFrame has an ``eval`` method, and maybe a ``samples`` column)
    return hasattr(obj, "eval") and hasattr(obj, "samples")


_TABLE_MODULES = ("pandas", "polars", "pyarrow")


def kind(value) -> str:
    """A value's type as a message names it: ``a list``, ``null``, ``an int``."""
    if value is None:
        return "null"
    name = type(value).__name__
    return f"{'an' if name[:1] in 'aeiouAEIOU' else 'a'} {name}"


def _get(obj, name: str, default=None):
    """A field of an Inspect object (pydantic model) or of its dict form."""
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def _data(value):
    """An Inspect object's field as JSON-like data: pydantic models as their dict, an
    object's public attributes as a dict, lists and dicts element by element, numpy
    numbers as Python's."""
    if isinstance(value, np.generic):
        return value.item()
    if hasattr(value, "model_dump"):
        value = value.model_dump()
    elif not isinstance(value, (dict, list, tuple, str, bytes, int, float, bool)) and (
            value is not None and hasattr(value, "__dict__")):
        value = {k: v for k, v in vars(value).items() if not k.startswith("_")}
    if isinstance(value, dict):
        return {k: _data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_data(v) for v in value]
    return value


def object_label(log) -> str:
    """How messages name a log in memory."""
    task = _get(_get(log, "eval"), "task")
    what = "EvalLog dict" if isinstance(log, Mapping) else "EvalLog"
    return f"{what} of task {task if isinstance(task, str) else shown(task)}"


def load_object(log) -> Log:
    """The fields the reader needs of an ``EvalLog`` object (or its dict form), read one
    sample at a time (a sample's messages and events are never converted)."""
    where = object_label(log)
    spec = _get(log, "eval")
    if spec is None or isinstance(spec, (str, bytes, int, float, list, tuple)):
        raise InputError(f"{where}: 'eval' is {kind(spec)}, not the log's EvalSpec")
    config = _get(spec, "config")
    if isinstance(config, (str, bytes, int, float, list, tuple)):
        raise InputError(f"{where}: 'eval.config' is {kind(config)}, not an object")
    spec = {"model": _get(spec, "model"), "task": _get(spec, "task"),
            "config": {"epochs_reducer": _data(_get(config, "epochs_reducer"))}}
    samples = _get(log, "samples")
    if samples is None:
        raise InputError(f"{where}: the log holds no samples (was it run with "
                         "log_samples=False?)")
    if not isinstance(samples, (list, tuple)):
        raise InputError(f"{where}: 'samples' is {kind(samples)}, not a list of samples")
    if not samples:
        raise InputError(f"{where}: 'samples' is empty: the log holds no samples")
    out = []
    for i, raw in enumerate(samples):
        if raw is None or isinstance(raw, (str, bytes, int, float, list, tuple)):
            out.append((f"samples[{i}]", raw))  # (refused by _epoch, naming it)
            continue
        try:
            fields = {name: _data(_get(raw, name)) for name in
                      ("id", "epoch", "scores", "score", "metadata", "error")}
        except RecursionError:
            raise InputError(f"{where}: samples[{i}]: its fields nest too deeply (or hold "
                             "themselves)") from None
        out.append((f"samples[{i}]", {k: v for k, v in fields.items() if v is not None}))
    return Log(spec, _data(_get(log, "status")), out, "in-memory")


def reducer(path: str, spec: dict) -> list[str] | None:
    """The log's ``eval.config.epochs_reducer`` (names), None when it names none."""
    config = spec.get("config")
    if config is None:
        return None
    if not isinstance(config, dict):
        raise InputError(f"{path}: 'eval.config' is {kind(config)}, not an object")
    reducer = config.get("epochs_reducer")
    if reducer is None:
        return None
    if isinstance(reducer, str):
        return [reducer]
    if not isinstance(reducer, list) or not all(isinstance(r, str) for r in reducer):
        raise InputError(f"{path}: 'eval.config.epochs_reducer' is {shown(reducer)}, not a "
                         "list of reducer names")
    return reducer

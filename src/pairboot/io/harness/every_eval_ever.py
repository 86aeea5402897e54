"""Every Eval Ever instance-level files (EvalEval's schema) as per-item scores.

A file holds one record per sample (JSON Lines, or a JSON list of them), each with
``schema_version``, ``model_id`` (the system), ``evaluation_name`` (the task),
``sample_id`` (the item), ``evaluation.score`` and ``evaluation.is_correct``, and where
the log has them ``token_usage``, ``performance`` (latency, generation time) and
``error``.  Schema versions 0.2.x and 0.3.x are read (0.3 adds ``evaluation_result_id``:
records of one sample for several aggregate results, which become tasks
``NAME:RESULT_ID``); another version is refused, as is an aggregate file (its
``evaluation_results`` hold no per-item records).  Field names follow
``every_eval_ever/schemas/instance_level_eval.schema.json`` (evaleval/every_eval_ever).
"""

from __future__ import annotations

import json
import os

from pairboot.errors import InputError
from pairboot.inputs.labels import shown
from pairboot.io.common import parse_json_text, read_text_file
from pairboot.io.harness.records import Record, json_number, scores_of

__all__ = ["NAME", "OPTIONS", "VERSIONS", "detect", "read"]

NAME = "every-eval-ever"
OPTIONS = ("score", "system", "task")
"""``score``: the field compared (``score``, the default; ``is_correct``; or a number
such as ``latency_ms``; several separated by commas for a custom metric); ``system``,
``task``: the models and evaluation names kept (all by default)."""

VERSIONS = ("0.2", "0.3")
"""The schema versions read (major.minor)."""

_HEAD = 65536

_NUMBERS = {
    "evaluation": ("score", "num_turns", "tool_calls_count"),
    "token_usage": ("input_tokens", "output_tokens", "total_tokens", "reasoning_tokens",
                    "input_tokens_cache_read", "input_tokens_cache_write"),
    "performance": ("latency_ms", "time_to_first_token_ms", "generation_time_ms"),
}
"""The numbers of a record, by the object that holds them; each becomes a field."""


def _first_object(path: str) -> dict | None:
    """The first JSON object of the file (its first line, or the first of a list), when
    it is whole within the first bytes."""
    with open(path, "rb") as f:
        head = f.read(_HEAD).decode("utf-8", errors="replace")
    text = head.lstrip()
    if text.startswith("["):
        text = text[1:].lstrip()
    try:
        first, _ = json.JSONDecoder().raw_decode(text)
    except (ValueError, RecursionError):
        return None
    return first if isinstance(first, dict) else None


def detect(path) -> bool:
    """True for a ``.json`` or ``.jsonl`` file whose first record has ``schema_version``
    and either ``sample_id`` and ``model_id`` (instance level) or ``evaluation_results``
    (an aggregate file: recognised so that it is refused in one line)."""
    path = os.fspath(path)
    if not os.path.isfile(path) or not path.lower().endswith((".json", ".jsonl")):
        return False
    try:
        first = _first_object(path)
    except OSError:
        return False
    if first is None or "schema_version" not in first:
        return False
    return ("sample_id" in first and "model_id" in first) or "evaluation_results" in first


def _load(path: str) -> list[tuple[str, object]]:
    text = read_text_file(path)
    stripped = text.lstrip()
    if not stripped:
        raise InputError(f"{path}: the file is empty: no Every Eval Ever records")
    if stripped[0] == "[" or (stripped[0] == "{" and "\n" not in stripped.strip()):
        data = parse_json_text(text, path)
        data = data if isinstance(data, list) else [data]
        return [(f"record {i + 1}", r) for i, r in enumerate(data)]
    if stripped[0] == "{":
        try:  # (one object over several lines: an aggregate file, or one record)
            data = json.loads(text)
        except (ValueError, RecursionError):
            data = None
        if isinstance(data, dict):
            return [("record 1", data)]
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append((f"line {number}", json.loads(line)))
        except (ValueError, RecursionError):
            raise InputError(f"{path}: line {number}: not a JSON record") from None
    return out


def _version(path: str, place: str, record: dict) -> str:
    version = record.get("schema_version")
    if not isinstance(version, str) or not version:
        raise InputError(f"{path}: {place}: no 'schema_version' (not an Every Eval Ever "
                         "record)")
    if ".".join(version.split(".")[:2]) not in VERSIONS:
        raise InputError(f"{path}: {place}: schema version {version!r} not understood "
                         f"(this reader knows {', '.join(v + '.x' for v in VERSIONS)})")
    return version


def _text(path: str, place: str, record: dict, name: str) -> str:
    value = record.get(name)
    if not isinstance(value, str) or not value:
        raise InputError(f"{path}: {place}: field {name!r} is "
                         f"{'missing' if name not in record else shown(value)}, not text")
    return value


def _record(path: str, place: str, raw) -> tuple[Record, str, str | None]:
    if not isinstance(raw, dict):
        raise InputError(f"{path}: {place}: not a record object")
    if "evaluation_results" in raw and "sample_id" not in raw:
        raise InputError(f"{path}: an aggregate Every Eval Ever file (evaluation_results, "
                         "no per-item records): give its instance-level file (one record "
                         "per sample, *_samples.jsonl)")
    version = _version(path, place, raw)
    evaluation = raw.get("evaluation")
    if not isinstance(evaluation, dict):
        raise InputError(f"{path}: {place}: field 'evaluation' is "
                         f"{'missing' if 'evaluation' not in raw else shown(evaluation)}, "
                         "not an object")
    fields: dict = {}
    for holder, names in _NUMBERS.items():
        obj = raw.get(holder) or {}
        if not isinstance(obj, dict):
            raise InputError(f"{path}: {place}: field {holder!r} is not an object")
        for name in names:
            fields[name] = json_number(path, place, f"{holder}.{name}", obj.get(name))
    correct = evaluation.get("is_correct")
    if correct is not None and not isinstance(correct, bool):
        raise InputError(f"{path}: {place}: field 'evaluation.is_correct' is "
                         f"{shown(correct)}, not true or false")
    fields["is_correct"] = None if correct is None else float(correct)
    error = raw.get("error")
    if error is not None and not isinstance(error, str):
        raise InputError(f"{path}: {place}: field 'error' is {shown(error)}, not text")
    result_id = raw.get("evaluation_result_id")
    if result_id is not None and not isinstance(result_id, str):
        raise InputError(f"{path}: {place}: field 'evaluation_result_id' is "
                         f"{shown(result_id)}, not text")
    record = Record(id=_text(path, place, raw, "sample_id"),
                    system=_text(path, place, raw, "model_id"),
                    task=_text(path, place, raw, "evaluation_name"), fields=fields,
                    error=None if not error else "error", message=error or None,
                    place=place)
    return record, version, result_id


def read(path, *, score=None, system=None, task=None):
    """Read an Every Eval Ever instance-level file into :class:`Scores`: a system per
    ``model_id``, a task per ``evaluation_name``, an item per ``sample_id``; ``score``
    the compared field (``evaluation.score`` by default), the other numbers (tokens,
    latency, generation time, ``is_correct``) per-item columns; a record with
    ``error`` set is an errored item (its recorded score kept, as the file has it)."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise InputError(f"{path}: not a file (an Every Eval Ever instance-level file is one "
                         "JSON or JSON Lines file)")
    read_ = [_record(path, place, raw) for place, raw in _load(path)]
    per_task: dict = {}
    for r, _, rid in read_:
        per_task.setdefault(r.task, set()).add(rid)
    records = []
    for r, _, rid in read_:
        if rid is not None and len(per_task[r.task]) > 1:
            r = Record(r.id, r.system, f"{r.task}:{rid}", r.fields, r.error, r.message,
                       r.place)
        records.append(r)
    versions = sorted({v for _, v, _ in read_})
    errored = [r for r in records if r.error is not None]
    notes = [f"schema version{'s' * (len(versions) > 1)} {', '.join(versions)}"]
    if errored:
        texts = ", ".join(f"{m!r} ({c})" for m, c in _common([r.message for r in errored]))
        notes.append(f"{len(errored)} record{'s' * (len(errored) > 1)} with an error "
                     f"(the log gives no category; their scores kept as recorded): {texts}")
    return scores_of(path, NAME, records, score=score, default="score", system=system,
                     task=task, shape="Every Eval Ever instance-level records", notes=notes)


def _common(messages, limit: int = 3) -> list[tuple[str, int]]:
    counts: dict[str, int] = {}
    for m in messages:
        counts[m[:60]] = counts.get(m[:60], 0) + 1
    return sorted(counts.items(), key=lambda kv: -kv[1])[:limit]

"""promptfoo eval exports (``promptfoo export``, ``promptfoo eval -o out.json``) as
per-item scores.

The file is ``{"evalId", "results": {"version", "prompts", "results": [...], "stats"},
"config", ...}``; each result is one test case (``testIdx``, the item) run by one prompt
and provider (``promptIdx``, ``provider.id``: the system), with ``score``, ``success``,
``latencyMs``, ``cost``, ``response.tokenUsage`` and ``failureReason`` (0 none, 1 an
assertion failed: the model's failure, scored; 2 an error: the provider call failed, an
errored item of category ``infrastructure``).  A system is a provider, or
``provider [prompt label]`` when the file runs several prompts through one provider.
Field names follow promptfoo's ``src/types/index.ts`` (``EvaluateResult``,
``EvaluateSummaryV3``, ``ResultFailureReason``); results versions 2 and 3 are read.
"""

from __future__ import annotations

import os

from pairboot.errors import InputError
from pairboot.inputs.labels import shown
from pairboot.io.common import load_json_file
from pairboot.io.harness.records import Record, json_number, scores_of

__all__ = ["NAME", "OPTIONS", "VERSIONS", "detect", "read"]

NAME = "promptfoo"
OPTIONS = ("score", "system")
"""``score``: the field compared (``score``, the default; ``success``: pass 1, fail 0;
a named score; ``cost``, ``latency_ms`` or a token count; several separated by commas
for a custom metric); ``system``: the systems kept (all by default)."""

VERSIONS = (2, 3)
"""The ``results.version`` read."""

FAILURE_ERROR = 2
"""promptfoo's ``ResultFailureReason.ERROR``: the provider call failed."""

_TOKENS = (("prompt", "input_tokens"), ("completion", "output_tokens"),
           ("total", "total_tokens"), ("cached", "cached_tokens"))


def detect(path) -> bool:
    """True for a ``.json`` file that opens with promptfoo's ``evalId`` and has a
    ``results`` object."""
    path = os.fspath(path)
    if not os.path.isfile(path) or not path.lower().endswith(".json"):
        return False
    try:
        with open(path, "rb") as f:
            head = f.read(4096).decode("utf-8", errors="replace")
    except OSError:
        return False
    text = head.lstrip()
    return text.startswith("{") and '"evalId"' in head and '"results"' in head


def _load(path: str) -> dict:
    data = load_json_file(path)
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        raise InputError(f"{path}: not a promptfoo export (no 'results' object)")
    results = data["results"]
    version = results.get("version")
    if version not in VERSIONS:
        raise InputError(f"{path}: promptfoo results version {shown(version)} not understood "
                         f"(this reader knows {', '.join(map(str, VERSIONS))})")
    if not isinstance(results.get("results"), list):
        raise InputError(f"{path}: 'results.results' is not a list: no per-test results")
    return data


def _systems(path: str, rows: list) -> dict:
    """``(promptIdx, provider id)`` -> the system's name."""
    pairs = []
    for i, r in enumerate(rows):
        place = f"results[{i}]"
        if not isinstance(r, dict):
            raise InputError(f"{path}: {place}: not a result object")
        provider = r.get("provider")
        pid = provider.get("id") if isinstance(provider, dict) else provider
        if not isinstance(pid, str) or not pid:
            raise InputError(f"{path}: {place}: no provider id ('provider.id')")
        label = provider.get("label") if isinstance(provider, dict) else None
        prompt = r.get("prompt") if isinstance(r.get("prompt"), dict) else {}
        pairs.append((r.get("promptIdx"), pid, label or pid, prompt.get("label")))
    keys = list(dict.fromkeys((p, pid) for p, pid, _, _ in pairs))
    per_provider: dict = {}
    for p, pid in keys:
        per_provider.setdefault(pid, []).append(p)
    names = {}
    for p, pid, shown_as, label in pairs:
        several = len(per_provider[pid]) > 1
        names[p, pid] = f"{shown_as} [{label or f'prompt {p}'}]" if several else shown_as
    return names


def _prompt_order(key) -> tuple:
    """A system's place: by its prompt's index (``promptIdx``), else as first seen."""
    p = key[0]
    return (0, p) if isinstance(p, int) and not isinstance(p, bool) else (1, 0)


def _record(path: str, i: int, r: dict, names: dict) -> Record:
    place = f"results[{i}]"
    test = r.get("testIdx")
    if isinstance(test, bool) or not isinstance(test, int) or test < 0:
        raise InputError(f"{path}: {place}: 'testIdx' is {shown(test)}, not a test number")
    provider = r["provider"]
    pid = provider.get("id") if isinstance(provider, dict) else provider
    success = r.get("success")
    if success is not None and not isinstance(success, bool):
        raise InputError(f"{path}: {place}: 'success' is {shown(success)}, not true or false")
    fields = {"score": json_number(path, place, "score", r.get("score")),
              "success": None if success is None else float(success),
              "cost": json_number(path, place, "cost", r.get("cost")),
              "latency_ms": json_number(path, place, "latencyMs", r.get("latencyMs"))}
    response = r.get("response") if isinstance(r.get("response"), dict) else {}
    usage = response.get("tokenUsage") if isinstance(response.get("tokenUsage"), dict) else {}
    for key, name in _TOKENS:
        fields[name] = json_number(path, place, f"response.tokenUsage.{key}", usage.get(key))
    details = usage.get("completionDetails")
    if isinstance(details, dict):
        fields["reasoning_tokens"] = json_number(path, place, "completionDetails.reasoning",
                                             details.get("reasoning"))
    named = r.get("namedScores")
    if isinstance(named, dict):
        for key, value in named.items():
            if key not in fields:
                fields[key] = json_number(path, place, f"namedScores.{key}", value)
    reason = r.get("failureReason")
    errored = reason == FAILURE_ERROR
    message = r.get("error") if isinstance(r.get("error"), str) else None
    return Record(id=str(test), system=names[r.get("promptIdx"), pid], task=None,
                  fields=fields, error="infrastructure" if errored else None,
                  message=message if errored else None, place=place)


def read(path, *, score=None, system=None):
    """Read a promptfoo export into :class:`Scores`: an item per test (``testIdx``), a
    system per provider (and prompt, when several share a provider); ``score`` the
    compared field, the other numbers (cost, latency, tokens, ``success``) per-item
    columns; a result that failed on an error (``failureReason`` 2) is an errored item,
    its recorded score kept."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise InputError(f"{path}: not a file (a promptfoo export is one JSON file)")
    data = _load(path)
    rows = data["results"]["results"]
    names = _systems(path, rows)
    records = [_record(path, i, r, names) for i, r in enumerate(rows)]
    errored = [r for r in records if r.error is not None]
    failed = sum(1 for r in rows if r.get("failureReason") == 1)
    version = data["results"]["version"]
    notes = [f"promptfoo results version {version}"
             + (f" (eval {data['evalId']})" if isinstance(data.get("evalId"), str) else ""),
             f"{failed} result{'s' * (failed != 1)} failed an assertion (the model's "
             f"failure, scored), {len(errored)} failed on an error (infrastructure)"]
    config = data.get("config") if isinstance(data.get("config"), dict) else {}
    shape = "promptfoo results"
    if isinstance(config.get("description"), str):
        shape += f": {config['description']}"
    ranked = sorted(names, key=_prompt_order)
    order = {names[k]: i for i, k in reversed(list(enumerate(ranked)))}
    records.sort(key=lambda r: (int(r.id), order[r.system]))  # (tests, then prompts)
    return scores_of(path, NAME, records, score=score, default="score", system=system,
                     shape=shape, notes=notes)

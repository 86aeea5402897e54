"""Unbabel COMET's outputs as per-item scores: ``comet-score`` and ``comet-compare``.

Three shapes, as COMET's ``comet/cli/score.py`` and ``comet/cli/compare.py`` write them:

- ``comet-score``'s printed output (saved with ``> scores.txt``): a line
  ``FILE<TAB>Segment I<TAB>score: X`` per segment and translation file (``<TAB>variance:
  V`` with MC dropout), then ``FILE<TAB>score: X`` per file; COMET before 1.1 printed
  ``Segment I<TAB>score: X`` and ``System score: X`` for its one file.  Scores have 4
  decimals there: ``--to_json`` keeps them whole.
- ``comet-score --to_json``: ``{FILE: [{"src", "mt", "ref", "COMET": X, ...}, ...]}``.
- ``comet-compare --to_json``: ``{"model", "statistical_results", "source",
  "translations": [{"name", "mt", "scores": [X, ...]}, ...], "reference"}``.

A system is a translation file, named as COMET names it (a printed log without names
takes the log's file stem).  An item is the segment's index, 0-based as COMET counts
("Segment 0"); every system must score the same segments.  The system score line is
checked against the mean of the segments (a log cut short fails there).
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter

import numpy as np

from pairboot.errors import InputError
from pairboot.io.guards import json_value_problem, too_deep
from pairboot.io.harness import Scores, score_number

NAME = "comet"
OPTIONS = ("system",)

_SEGMENT = re.compile(
    r"^(?:(?P<system>[^\t]*)\t)?Segment (?P<index>\d+)\tscore: (?P<score>\S+)"
    r"(?:\tvariance: (?P<variance>\S+))?$")
_SYSTEM = re.compile(r"^(?:(?P<system>[^\t]*)\tscore|System score): (?P<score>\S+)$")
_OTHER = ("Predictions saved in: ", "CacheInfo(")
"""Lines comet-score also prints (the JSON file written, the embedding cache's use)."""
_TOLERANCE = 1.5e-4
"""|system score - mean of the segment scores| allowed: both are printed to 4 decimals."""
_COMPARE_HEAD = re.compile(r'^\s*\{\s*"model"\s*:\s*"[^"]*"\s*,\s*"statistical_results"\s*:')
_SCORE_HEAD = re.compile(r'^\s*\{\s*"(?:[^"\\]|\\.)*"\s*:\s*\[\s*\{')


def _head(path: str, size: int = 65536) -> str:
    try:
        with open(path, encoding="utf-8", newline="") as f:
            return f.read(size)
    except (OSError, UnicodeDecodeError):
        return ""


def detect(path: str) -> bool:
    """True for a printed comet-score log (its first line is a segment's) or a COMET JSON
    (comet-compare's, or comet-score's with a "COMET" score in its first record)."""
    if not os.path.isfile(path):
        return False
    head = _head(path)
    if _COMPARE_HEAD.match(head):
        return True
    if _SCORE_HEAD.match(head):
        return '"COMET":' in head
    first = next((line for line in head.splitlines() if line.strip()), "")
    return bool(_SEGMENT.match(first.rstrip("\r")))


def _read_printed(path: str, notes: list) -> dict:
    """System name -> segment scores in index order, from comet-score's printed lines."""
    stem = os.path.splitext(os.path.basename(path))[0]
    segments, totals, other, variance = {}, {}, 0, False
    with open(path, encoding="utf-8", newline="") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if not line.strip():
                continue
            m = _SEGMENT.match(line)
            if m:
                system = m["system"] if m["system"] is not None else stem
                table = segments.setdefault(system, {})
                i = int(m["index"])
                if i in table:
                    raise InputError(f"{path}: line {n}: a second score of segment {i} of "
                                     f"{system!r} (the first is at line {table[i][1]})")
                table[i] = (score_number(path, f"line {n}", m["score"]), n)
                variance = variance or m["variance"] is not None
                continue
            m = _SYSTEM.match(line)
            if m:
                system = m["system"] if m["system"] is not None else stem
                if system not in segments:
                    raise InputError(f"{path}: line {n}: system score of {system!r}, which "
                                     "has no segment scores before it")
                totals[system] = (score_number(path, f"line {n}", m["score"]), n)
                continue
            if line.startswith(_OTHER):
                other += 1
                continue
            raise InputError(f"{path}: line {n}: not a comet-score line (expected "
                             f"'FILE<TAB>Segment I<TAB>score: X' or 'FILE<TAB>score: X'): "
                             f"{line[:60]!r}")
    if not segments:
        raise InputError(f"{path}: no segment scores (is it comet-score's output, "
                         "without --quiet / --only_system?)")
    out = {}
    for system, table in segments.items():
        n = len(table)
        gaps = sorted(set(range(n)) - set(table))
        if gaps:
            raise InputError(f"{path}: system {system!r} has {n:,} segment scores but no "
                             f"segment {gaps[0]} (indices must run 0 to {n - 1})")
        values = np.array([table[i][0] for i in range(n)])
        if system not in totals:
            raise InputError(f"{path}: no system score line for {system!r} after its "
                             f"{n:,} segments: the log looks cut short")
        total, line_no = totals[system]
        if abs(values.mean() - total) > _TOLERANCE:
            raise InputError(f"{path}: line {line_no}: system score {total:.4f} of "
                             f"{system!r} is not the mean of its {n:,} segment scores "
                             f"({values.mean():.4f}): segments are missing or extra")
        out[system] = values
    notes.append(f"{path}: comet-score's printed scores (4 decimals; --to_json keeps more)"
                 + (", variance (MC dropout) not used" if variance else "")
                 + (f"; {other} other comet-score lines skipped" if other else ""))
    return out


def _load_json(path: str):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}: line {exc.lineno}: not valid JSON ({exc.msg})") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    except RecursionError:
        with open(path, "rb") as f:
            raise too_deep(f.read(), path) from None
    except ValueError as exc:
        raise InputError(f"{path}: not valid JSON ({json_value_problem(exc)})") from None


def _from_compare(path: str, data: dict, notes: list) -> dict:
    translations = data.get("translations")
    if not isinstance(translations, list) or not translations:
        raise InputError(f"{path}: comet-compare JSON without a list of \"translations\"")
    out = {}
    for k, entry in enumerate(translations):
        where = f"translations[{k}]"
        if not isinstance(entry, dict) or "scores" not in entry or "name" not in entry:
            raise InputError(f"{path}: {where} has no \"name\" and \"scores\"")
        name = str(entry["name"])
        if name in out:
            raise InputError(f"{path}: {where}: system {name!r} appears twice")
        if not isinstance(entry["scores"], list):
            raise InputError(f"{path}: {where}.scores is not a list")
        out[name] = np.array([score_number(path, f"{where}.scores[{i}]", v)
                              for i, v in enumerate(entry["scores"])])
    notes.append(f"{path}: comet-compare JSON, model {data.get('model', '?')}; its own "
                 "tests (statistical_results) not used")
    return out


def _from_score_json(path: str, data: dict, notes: list) -> dict:
    out = {}
    for name, records in data.items():
        if not isinstance(records, list):
            raise InputError(f"{path}: {name!r} is not a list of segments")
        values = []
        for i, record in enumerate(records):
            if not isinstance(record, dict) or "COMET" not in record:
                raise InputError(f"{path}: {name!r}[{i}] has no \"COMET\" score")
            values.append(score_number(path, f"{name!r}[{i}]", record["COMET"]))
        out[str(name)] = np.array(values)
    notes.append(f"{path}: comet-score --to_json segment scores")
    return out


def _select(path: str, systems: dict, system, notes: list) -> list[str]:
    found = list(systems)
    if system is None:
        return found
    names = [s.strip() for s in system.split(",")] if isinstance(system, str) else system
    names = [str(s) for s in names if str(s).strip()]
    twice = [s for s, k in Counter(names).items() if k > 1]
    if not names or twice:
        raise InputError(f"`system` must name each system once, got {system!r}",
                         param="system")
    missing = [s for s in names if s not in systems]
    if missing:
        raise InputError(f"{path}: no system {missing[0]!r}; it holds {', '.join(found)}",
                         param="system")
    notes.append(f"{len(names)} of the {len(found)} systems read")
    return names


def read(path: str, system=None) -> Scores:
    """Read comet-score's printed output, its ``--to_json`` file or comet-compare's JSON.

    ``system``: the translation files (systems) to keep, in that order (a list, or
    names separated by commas); by default every one the file holds.
    """
    notes = []
    if _head(path, 4096).lstrip().startswith("{"):
        data = _load_json(path)
        if not isinstance(data, dict):
            raise InputError(f"{path}: a COMET JSON file is an object")
        if "translations" in data:
            systems = _from_compare(path, data, notes)
        else:
            systems = _from_score_json(path, data, notes)
    else:
        systems = _read_printed(path, notes)
    names = _select(path, systems, system, notes)
    sizes = Counter(len(systems[s]) for s in names)
    if len(sizes) > 1:
        listed = ", ".join(f"{s} {len(systems[s]):,}" for s in names)
        raise InputError(f"{path}: the systems score different numbers of segments "
                         f"({listed}); COMET scores every system on the same segments")
    n = len(systems[names[0]])
    if n == 0:
        raise InputError(f"{path}: no segments")
    notes.append(f"COMET: {n:,} segments (ids 0 to {n - 1}), {len(names)} systems: "
                 f"{', '.join(names)}")
    return Scores(path=path, format=NAME, ids=np.array([str(i) for i in range(n)],
                                                      dtype=object),
                  systems={s: systems[s] for s in names}, score="COMET", notes=tuple(notes))

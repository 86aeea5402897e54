"""Inspect AI logs (the JSON format and the ``.eval`` zip) as per-item scores.

One item per sample id, one system per log (its model, ``eval.model``).  A sample's score
is its chosen scorer's value mapped to a number as Inspect's ``value_to_float`` maps it
(``C`` 1, ``P`` 0.5, ``I`` and ``N`` 0, yes/true 1, no/false 0, numeric text and numbers
as numbers), except that a value Inspect could only turn into 0 with a warning is refused
here.  Several epochs of a sample are averaged into its item, and the notes say how many.
A sample without the score, or one that stopped on an error, is refused unless
``missing`` says what to do with it: it never disappears silently.

The log is loaded by :mod:`pairboot.io.harness.inspect_load` (files, or an ``EvalLog``
in memory); the samples follow inspect_ai's ``log/_log.py`` (EvalSample, Score).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np

from pairboot.errors import InputError
from pairboot.inputs.labels import shown
from pairboot.io.harness import Scores, trials_note
from pairboot.io.harness.inspect_load import (
    Log,
    detect,
    is_log_object,
    load,
    load_object,
    object_label,
    reducer,
)

__all__ = ["NAME", "OPTIONS", "MISSING", "detect", "read", "is_log_object",
           "object_label", "to_float"]

NAME = "inspect"
OPTIONS = ("score", "group", "stratum", "missing", "epochs")
"""``score``: the scorer (``"name"``, or ``"name/key"`` for a scorer whose value is a
dict); ``group``, ``stratum``: a sample metadata field labelling the items; ``missing``:
what to do with a sample epoch without the score or stopped by an error (:data:`MISSING`)."""

MISSING = {
    "error": "refused (the default)",
    "wrong": "counted as 0",
    "skip": "left out",
}
"""The choices of ``missing``, and what each does with a sample epoch that has no score."""

LETTERS = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}
"""Inspect's CORRECT, PARTIAL, INCORRECT and NOANSWER, as its ``value_to_float`` maps them."""

WORDS = {"yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}
"""Text ``value_to_float`` maps after lower-casing it."""

# --- samples -----------------------------------------------------------------------------


_ID_DIGITS = 100
"""A numeric sample id longer than this is refused (Python will not print one of over
4,300 digits; no dataset numbers its samples so)."""


@dataclass(frozen=True)
class _Epoch:
    """One sample epoch: its id as text, the epoch, its scores (scorer -> Score dict),
    metadata, whether it stopped on an error, and where it is in the file."""

    id: str
    key: tuple
    epoch: int
    scores: dict
    metadata: dict
    error: bool
    place: str


def _epoch(path: str, place: str, raw) -> _Epoch:
    if not isinstance(raw, dict) or "id" not in raw:
        raise InputError(f"{path}: {place}: not an Inspect sample (no 'id')")
    sid = raw["id"]
    if not isinstance(sid, int | str) or isinstance(sid, bool):
        raise InputError(f"{path}: {place}: sample id {shown(sid)} is neither a number nor text")
    if isinstance(sid, int) and abs(sid) >= 10**_ID_DIGITS:
        raise InputError(f"{path}: {place}: sample id {shown(sid)} has over {_ID_DIGITS} "
                         "digits: not an Inspect sample id")
    epoch = raw.get("epoch", 1)
    if not isinstance(epoch, int) or isinstance(epoch, bool):
        raise InputError(f"{path}: {place}: sample {shown(sid)} has epoch {epoch!r}, not a number")
    scores = raw.get("scores")
    if scores is None and isinstance(raw.get("score"), dict):  # log format version 1
        scores = {"score": raw["score"]}
    if scores is None:
        scores = {}
    if not isinstance(scores, dict):
        raise InputError(f"{path}: {place}: sample {shown(sid)}: 'scores' is not an object")
    metadata = raw.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise InputError(f"{path}: {place}: sample {shown(sid)}: 'metadata' is not an object")
    # Inspect's own order (sort_samples): text ids as they are, numbers zero-padded
    key = (sid,) if isinstance(sid, str) else (str(sid).zfill(20),)
    return _Epoch(str(sid), key, epoch, scores, metadata, raw.get("error") is not None,
                  place)


def _items(path: str, log: Log) -> dict[str, list[_Epoch]]:
    """The sample epochs grouped by id (as text), in Inspect's order of ids."""
    epochs = sorted((_epoch(path, place, raw) for place, raw in log.samples),
                    key=lambda e: (e.key, e.epoch))
    items: dict[str, list[_Epoch]] = {}
    raw_of: dict[str, tuple] = {}
    for e in epochs:
        if e.id in raw_of and raw_of[e.id] != e.key:
            raise InputError(f"{path}: the ids {e.id!r} (text) and {e.id} (a number) are "
                             f"both sample {e.id}: ids must differ as text")
        raw_of[e.id] = e.key
        same = items.setdefault(e.id, [])
        if same and same[-1].epoch == e.epoch:
            raise InputError(f"{path}: sample {e.id} epoch {e.epoch} appears twice "
                             f"({same[-1].place} and {e.place})")
        same.append(e)
    return items


# --- the scorer and its values -----------------------------------------------------------


def _scorers(items) -> list[str]:
    seen: dict[str, None] = {}
    for epochs in items.values():
        for e in epochs:
            seen.update(dict.fromkeys(e.scores))
    return list(seen)


def _choose(path: str, items, score: str | None) -> tuple[str, str | None, str]:
    """The scorer, the key into a dict value (or None), and a note on the choice."""
    names = _scorers(items)
    if not names:
        raise InputError(f"{path}: the log holds no scores: no sample was scored (score "
                         f"it first with Inspect's 'inspect score')")
    listed = ", ".join(repr(n) for n in names)
    if score is None:
        if len(names) > 1:
            raise InputError(f"{path}: the log has {len(names)} scorers ({listed}): "
                             f"choose one with `score` (e.g. `score='{names[0]}'`)",
                             param="score")
        scorer, key, note = names[0], None, f"scorer {names[0]!r} (the log's only one)"
    elif score in names:
        scorer, key = score, None
        others = [n for n in names if n != score]
        note = f"scorer {score!r}" + (f" (the log also has {', '.join(map(repr, others))})"
                                      if others else "")
    elif "/" in score and score.rsplit("/", 1)[0] in names:
        scorer, key = score.rsplit("/", 1)
        note = f"scorer {scorer!r}, its value {key!r}"
    else:
        raise InputError(f"{path}: no scorer {score!r} in the log; its scorers: {listed}",
                         param="score")
    values = [e.scores[scorer].get("value") for es in items.values() for e in es
              if isinstance(e.scores.get(scorer), dict)]
    dicts = [v for v in values if isinstance(v, dict)]
    if key is None and dicts:
        keys = list(dict.fromkeys(k for d in dicts for k in d))
        raise InputError(f"{path}: scorer {scorer!r} gives several values per sample "
                         f"({', '.join(map(repr, keys))}): choose one with "
                         f"`score='{scorer}/{keys[0] if keys else 'KEY'}'`", param="score")
    if key is not None and len(dicts) < len(values):
        raise InputError(f"{path}: scorer {scorer!r} gives one value per sample, not "
                         f"several: choose it with `score='{scorer}'`", param="score")
    return scorer, key, note


def to_float(value):
    """A Score value as a number, as Inspect's ``value_to_float`` maps it; None for no
    value (``null``, or NaN: Inspect's "unscored"); ValueError for what has no number.

    >>> [to_float(v) for v in ("C", "P", "I", "N", "Yes", "false", "0.25", True, 3)]
    [1.0, 0.5, 0.0, 0.0, 1.0, 0.0, 0.25, 1.0, 3.0]
    """
    if value is None:
        return None
    if isinstance(value, bool | int | float):
        try:
            number = float(value)
        except OverflowError:
            raise ValueError(f"{shown(value)}, too large for a number") from None
    elif isinstance(value, str):
        if value in LETTERS:
            return LETTERS[value]
        if value.lower() in WORDS:
            return WORDS[value.lower()]
        try:
            number = float(value)
        except ValueError:
            raise ValueError(f"the text {value!r}, which Inspect maps to no number") from None
        if not math.isfinite(number):
            raise ValueError(f"the text {value!r}, not a finite number")
    else:
        kind = "a list" if isinstance(value, list) else type(value).__name__
        raise ValueError(f"{kind} ({shown(value)[:40]}), not one number")
    if math.isnan(number):
        return None
    if not math.isfinite(number):
        raise ValueError(f"{value!r}, not a finite number")
    return number


def _value(path: str, e: _Epoch, scorer: str, key: str | None):
    """The epoch's number, or None when it has none (no score, no value, an error)."""
    if e.error:
        return None
    entry = e.scores.get(scorer)
    if entry is None:
        return None
    if not isinstance(entry, dict):
        raise InputError(f"{path}: {e.place}: sample {e.id}: score {scorer!r} is not an "
                         f"object with a 'value'")
    value = entry.get("value")
    if key is not None:
        value = value.get(key) if isinstance(value, dict) else None
    try:
        return to_float(value)
    except ValueError as exc:
        name = scorer if key is None else f"{scorer}/{key}"
        raise InputError(f"{path}: sample {e.id} (epoch {e.epoch}): the {name!r} value "
                         f"is {exc}") from None


def _ids_shown(ids, limit: int = 5) -> str:
    """``samples 2, 3`` (the first ``limit`` ids and how many more), ``sample 2``."""
    shown = ", ".join(str(i) for i in ids[:limit])
    more = f" and {len(ids) - limit} more" if len(ids) > limit else ""
    return f"sample{'s' * (len(ids) > 1)} {shown}{more}"


def _scored(path: str, items, scorer: str, key: str | None, missing: str):
    """Per-item means over the epochs kept, the epochs per item, and the missing note."""
    name = scorer if key is None else f"{scorer}/{key}"
    means, counts, lacking, errored, kept_ids, per_epoch = [], [], [], 0, [], []
    marks = []
    for sid, epochs in items.items():
        values, scored, stopped = [], 0, False
        for e in epochs:
            v = _value(path, e, scorer, key)
            if v is None:
                lacking.append(e)
                errored += e.error
                stopped |= e.error
                if missing == "wrong":
                    values.append(0.0)
                continue
            values.append(v)
            scored += 1
        if values:
            # (an item no epoch scored: errored, or without a score, in the accounting)
            marks.append(None if scored else "error" if stopped else "no score")
            kept_ids.append(sid)
            means.append(math.fsum(values) / len(values))
            counts.append(len(values))
            per_epoch.append(values)
    note = None
    if lacking:
        ids = list(dict.fromkeys(e.id for e in lacking))
        what = (f"{len(lacking)} sample epoch{'s' * (len(lacking) > 1)} without a {name!r} "
                f"score" + (f" ({errored} stopped by an error)" if errored else ""))
        if missing == "error":
            first = lacking[0]
            why = "stopped on an error" if first.error else f"has no {name!r} score"
            raise InputError(
                f"{path}: sample {first.id} (epoch {first.epoch}) {why}; {what}, "
                f"{_ids_shown(ids)}: give `missing='wrong'` to count them as 0 or "
                f"`missing='skip'` to leave them out")
        note = f"{what}, {_ids_shown(ids)}: {MISSING[missing]} (`missing='{missing}'`)"
        if missing == "skip" and len(kept_ids) < len(items):
            gone = len(items) - len(kept_ids)
            note += f"; {gone} sample{'s' * (gone > 1)} with no score left dropped"
    if not kept_ids:
        raise InputError(f"{path}: no sample has a {name!r} score")
    table = np.full((len(per_epoch), max(counts, default=0)), np.nan)
    for i, values in enumerate(per_epoch):
        table[i, : len(values)] = values
    return kept_ids, np.array(means, dtype=np.float64), counts, note, table, marks


def _epoch_note(counts: list[int], reducers: list[str] | None, kept: bool = False) -> str:
    """How many epochs a sample has, and what became of them: averaged, or each kept
    (``kept``: ``epochs="runs"``)."""
    tally: dict[int, int] = {}
    for c in counts:
        tally[c] = tally.get(c, 0) + 1
    if len(tally) == 1:
        n = counts[0]
        note = ("1 epoch per sample" if n == 1
                else trials_note(f"{n} epochs per sample", kept))
    elif kept:
        parts = ", ".join(f"{k} for {v}" for k, v in sorted(tally.items(), reverse=True))
        note = trials_note(f"unequal epochs per sample ({parts} samples)", True)
    else:
        parts = ", ".join(f"{k} for {v}" for k, v in sorted(tally.items(), reverse=True))
        note = f"unequal epochs per sample ({parts} samples), each sample's averaged"
    if max(counts) > 1 and reducers and reducers != ["mean"]:
        note += (f"; the log's own epochs_reducer is {', '.join(reducers)}, "
                 f"so its headline score may differ from the mean")
    return note


def _values_note(path: str, items, scorer: str, key: str | None) -> str:
    """What the values were: letter and word tallies, or 'numbers'."""
    tally: dict[str, int] = {}
    for epochs in items.values():
        for e in epochs:
            entry = e.scores.get(scorer)
            v = entry.get("value") if isinstance(entry, dict) and not e.error else None
            if key is not None:
                v = v.get(key) if isinstance(v, dict) else None
            if v is None:
                continue
            label = v if isinstance(v, str) else "number"
            tally[label] = tally.get(label, 0) + 1
    texts = [k for k in tally if k != "number"]
    if not texts:
        return "values: numbers"
    shown = ", ".join(f"{k}={to_float(k):g} ({tally[k]})" for k in sorted(texts)[:8])
    more = f", numbers ({tally['number']})" if "number" in tally else ""
    return f"values mapped as Inspect's value_to_float does: {shown}{more}"


# --- labels from metadata ----------------------------------------------------------------


def _labels(path: str, items, ids: list[str], field: str, option: str) -> np.ndarray:
    """A label per item from the sample metadata ``field`` (every epoch must agree)."""
    out = []
    for sid in ids:
        seen = set()
        for e in items[sid]:
            if field not in e.metadata or e.metadata[field] is None:
                raise InputError(f"{path}: sample {sid} has no metadata field {field!r}, "
                                 f"named as the {option}", param=option)
            value = e.metadata[field]
            if not isinstance(value, str | int | float | bool):
                raise InputError(f"{path}: sample {sid}: metadata {field!r} is "
                                 f"{type(value).__name__}, not a label", param=option)
            try:
                seen.add(str(value))
            except ValueError:  # (an integer of over 4,300 digits)
                raise InputError(f"{path}: sample {sid}: metadata {field!r} is "
                                 f"{shown(value)}, not a label", param=option) from None
        if len(seen) > 1:
            raise InputError(f"{path}: sample {sid}: metadata {field!r} differs between "
                             f"its epochs ({', '.join(sorted(seen))})", param=option)
        out.append(seen.pop())
    return np.array(out, dtype=object)


# --- the reader --------------------------------------------------------------------------


def read(path, *, score: str | None = None, group: str | None = None,
         stratum: str | None = None, missing: str = "error", epochs: str = "mean") -> Scores:
    """Read an Inspect log (JSON or ``.eval``, or an ``EvalLog`` object in memory, as
    ``inspect_ai.eval()`` returns it) into :class:`Scores` of one system.

    ``score`` names the scorer (required when the log has several; ``"name/key"`` picks
    one value of a scorer whose value is a dict); ``group`` and ``stratum`` name a sample
    metadata field; ``missing`` is what to do with a sample epoch without the score or
    stopped by an error: ``"error"`` (refuse, the default), ``"wrong"`` (count it as 0)
    or ``"skip"`` (leave it out; a sample left with no epoch is dropped).  ``epochs="runs"``
    also keeps every epoch's value (``Scores.runs``: items x epochs, NaN where a sample
    has fewer), for ``compare(..., runs="samples")``.
    """
    if epochs not in ("mean", "runs"):
        raise InputError(f"`epochs` must be 'mean' or 'runs', got {epochs!r}", param="epochs")
    log = None
    if is_log_object(path):
        log, path = load_object(path), object_label(path)
    path = os.fspath(path)
    for option, value in (("score", score), ("group", group), ("stratum", stratum)):
        if value is not None and (not isinstance(value, str) or not value):
            raise InputError(f"`{option}` must be a non-empty name, got {value!r}",
                             param=option)
    if missing not in MISSING:
        raise InputError(f"`missing` must be one of {', '.join(map(repr, MISSING))}, got "
                         f"{missing!r}", param="missing")
    log = load(path) if log is None else log
    model = log.spec.get("model")
    if not isinstance(model, str) or not model:
        raise InputError(f"{path}: the log names no model (eval.model is "
                         f"{'null' if model is None else shown(model)})")
    reducers = reducer(path, log.spec)
    items = _items(path, log)
    scorer, key, choice = _choose(path, items, score)
    ids, values, counts, missing_note, table, marks = _scored(path, items, scorer, key,
                                                              missing)
    task = log.spec.get("task", "?")
    task = task if isinstance(task, str) else shown(task)
    notes = [f"{len(ids)} samples of {model} on task {task} ({log.kind} log)", choice,
             _values_note(path, items, scorer, key),
             _epoch_note(counts, reducers, epochs == "runs")]
    if missing_note:
        notes.append(missing_note)
    if log.status not in (None, "success"):
        notes.append(f"the run's status is {shown(log.status)}, not 'success'")
    notes.extend(log.notes)
    groups = strata = None
    if group is not None:
        groups = _labels(path, items, ids, group, "group")
        notes.append(f"groups: metadata {group!r} ({len(set(groups))} groups)")
    if stratum is not None:
        strata = _labels(path, items, ids, stratum, "stratum")
        notes.append(f"strata: metadata {stratum!r} ({len(set(strata))} strata)")
    name = scorer if key is None else f"{scorer}/{key}"
    return Scores(path=path, format=NAME, ids=np.array(ids, dtype=object),
                  systems={model: values}, score=name, groups=groups, strata=strata,
                  notes=tuple(notes), runs={model: table} if epochs == "runs" else None,
                  outcomes={model: np.array(marks, dtype=object)})

"""Per-item records of LLM-evaluation logs as :class:`~pairboot.io.harness.Scores`.

The readers of Every Eval Ever, HELM and promptfoo files each turn their file into
:class:`Record` s (one per system, task and item: its numbers by name, and its error when
the log recorded one) and call :func:`scores_of`, which picks the score (``score``: a
field, or several separated by commas as a custom metric's statistics), keeps the other
numbers that every record has as per-item columns (cost, tokens, latency), names the
systems by their model and the items by their ids (``task/id`` when a file holds several
tasks, the tasks then strata), and marks each item's outcome: scored, errored (by the
log's category), without a score, or missing.  A duplicated record is refused.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pairboot.errors import InputError
from pairboot.inputs.labels import shown
from pairboot.io.harness import Scores
from pairboot.io.harness.outcomes import MISSING, UNSCORED

__all__ = ["Record", "scores_of", "names_option", "json_number", "MISSING", "UNSCORED"]

# (the outcomes' markers are the accounting's: one spelling, read by settle())


@dataclass(frozen=True)
class Record:
    """One system's record of one item: its numbers by name (None where the log has
    none), the error category when the log recorded an error (its message beside), and
    where it is in the file."""

    id: str
    system: str
    task: str | None
    fields: dict
    error: str | None
    message: str | None
    place: str


def names_option(value, what: str) -> list[str] | None:
    """An option naming one or more things: a list, or text separated by commas."""
    if value is None:
        return None
    names = value.split(",") if isinstance(value, str) else list(value)
    names = [str(n).strip() for n in names]
    if not names or not all(names) or len(set(names)) != len(names):
        raise InputError(f"`{what}` must name distinct {what}s, got {value!r}", param=what)
    return names


def _keep(path: str, records: list[Record], wanted: list[str] | None, attr: str,
          option: str) -> list[Record]:
    if wanted is None:
        return records
    held = list(dict.fromkeys(getattr(r, attr) for r in records))
    for name in wanted:
        if name not in held:
            raise InputError(f"{path}: no {attr} {name!r}; the file's: "
                             f"{', '.join(map(repr, held))}", param=option)
    return [r for r in records if getattr(r, attr) in wanted]


def scores_of(path: str, fmt: str, records: Sequence[Record], *, score=None,
              default: str, system=None, task=None, shape: str,
              notes: Sequence[str] = ()) -> Scores:
    """The :class:`Scores` of ``records``: ``score`` (default ``default``) the compared
    field(s), ``system`` and ``task`` the systems and tasks kept (all by default)."""
    records = list(records)
    if not records:
        raise InputError(f"{path}: no per-item records ({shape}): nothing to compare")
    records = _keep(path, records, names_option(system, "system"), "system", "system")
    records = _keep(path, records, names_option(task, "task"), "task", "task")
    known = list(dict.fromkeys(k for r in records for k in r.fields))
    chosen = names_option(score, "score") or [default]
    for name in chosen:
        if name not in known:
            raise InputError(f"{path}: no field {name!r} in the records; their fields: "
                             f"{', '.join(map(repr, known))}", param="score")
    tasks = list(dict.fromkeys(r.task for r in records))
    several = len(tasks) > 1
    order: dict = {}
    cells: dict = {}
    systems = list(dict.fromkeys(r.system for r in records))
    for r in records:
        key = (r.task, r.id)
        order.setdefault(key, len(order))
        if (r.system, key) in cells:
            what = f"item {r.id!r}" + (f" of task {r.task!r}" if several else "")
            raise InputError(f"{path}: {r.place}: {what} of {r.system} appears twice (also "
                             f"{cells[r.system, key].place})")
        cells[r.system, key] = r
    keys = list(order)
    ids = np.array([f"{t}/{i}" if several else i for t, i in keys], dtype=object)
    n, k = len(keys), len(chosen)
    values, outcomes, columns = {}, {}, {}
    extra = [c for c in known if c not in chosen]
    complete = [c for c in extra if all(r.fields.get(c) is not None for r in records)]
    for s in systems:
        table = np.full((n, k), np.nan)
        marks = np.full(n, None, dtype=object)
        cols = {c: np.full(n, np.nan) for c in complete}
        for i, key in enumerate(keys):
            r = cells.get((s, key))
            if r is None:
                marks[i] = MISSING
                continue
            got = [r.fields.get(c) for c in chosen]
            if r.error is not None:
                marks[i] = r.error
            elif any(v is None for v in got):
                lacking = chosen[[v is None for v in got].index(True)]
                raise InputError(f"{path}: {r.place}: item {r.id!r} of {s} has no "
                                 f"{lacking!r} (null) and no error", param="score")
            if not any(v is None for v in got):
                table[i] = got
            elif marks[i] is None:
                marks[i] = UNSCORED
            for c in complete:
                cols[c][i] = r.fields[c]
        values[s] = table[:, 0] if k == 1 else table
        outcomes[s] = marks
        columns[s] = cols
    on = "" if tasks == [None] else \
        f" on {'tasks' if several else 'task'} {', '.join(map(str, tasks))}"
    out = [f"{n} items x {len(systems)} system{'s' * (len(systems) > 1)} "
           f"({', '.join(systems)}){on} ({shape})",
           f"score: {', '.join(repr(c) for c in chosen)}"
           + ("" if score is not None else " (the default)")]
    if several:
        out.append(f"{len(tasks)} tasks: the items are TASK/ID, the tasks strata")
    if complete:
        out.append("per-item columns: " + ", ".join(complete))
    partial = [c for c in extra if c not in complete
               and any(r.fields.get(c) is not None for r in records)]
    if partial:
        counts = Counter(c for r in records for c in partial if r.fields.get(c) is None)
        out.append("not columns (null in some records): " + ", ".join(
            f"{c} ({counts[c]} of {len(records)})" for c in partial))
    stats = None if k == 1 else tuple(chosen)
    return Scores(path=path, format=fmt, ids=ids, systems=values,
                  score=",".join(chosen), metric="mean" if k == 1 else "custom",
                  stats=stats, strata=np.array([t for t, _ in keys], dtype=object)
                  if several else None, notes=(*notes, *out), columns=columns,
                  outcomes=outcomes)


def json_number(path: str, place: str, where: str, value, *, optional: bool = True):
    """A JSON record's number as a float: None when absent (``optional``), else one line
    naming the file, the record and the field when it is not a finite number (a bool is
    not one; an integer beyond float's range is not finite)."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(f"{path}: {place}: field {where!r} is {shown(value)}, not a number")
    try:
        v = float(value)
    except OverflowError:
        v = math.inf
    if not math.isfinite(v):
        raise InputError(f"{path}: {place}: field {where!r} is {shown(value)}, not a finite "
                         "number")
    return v

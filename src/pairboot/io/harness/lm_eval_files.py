"""Finding lm-eval's files: a samples file, or a directory in lm-eval's ``--output_path``
layout, its task runs (the newest samples file of each task, with the results file beside
it) and the tasks several directories share (:func:`common_tasks`); what
:mod:`pairboot.io.harness.lm_eval` reads.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from pairboot.errors import InputError
from pairboot.inputs.labels import shown

SAMPLES = re.compile(
    r"^samples_(?P<task>.+)_(?P<time>\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)\.jsonl$")
"""lm-eval's samples file name: the task, then ``datetime.isoformat()`` with ``:`` -> ``-``."""


@dataclass(frozen=True)
class Run:
    """One task's chosen samples file, its timestamp, and the results read beside it."""

    task: str
    path: str
    time: str
    results: dict | None
    results_path: str | None


class TaskList(list):
    """The tasks every directory holds (a list of names), with ``notes`` about the rest."""

    notes: tuple[str, ...] = ()


def _first_record(path: str) -> dict | None:
    try:
        with open(path, encoding="utf-8") as f:
            line = f.readline()
        record = json.loads(line)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    return record if isinstance(record, dict) else None


def _is_samples(path: str) -> bool:
    return (SAMPLES.match(os.path.basename(path)) is not None
            and "doc_id" in (_first_record(path) or {}))


def _samples_in(folder: str) -> list[str]:
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    return [os.path.join(folder, n) for n in names if SAMPLES.match(n)]


def _folders(path: str) -> list[str]:
    """The folders of ``path`` (itself, or its subfolders: lm-eval's layout) holding samples."""
    if _samples_in(path):
        return [path]
    subs = [os.path.join(path, n) for n in sorted(os.listdir(path))]
    return [s for s in subs if os.path.isdir(s) and _samples_in(s)]


def detect(path) -> bool:
    """True for a samples file whose first line has ``doc_id``, or a directory holding
    such files (directly or one level down, as lm-eval's ``--output_path`` does)."""
    path = os.fspath(path)
    if os.path.isfile(path):
        return _is_samples(path)
    if os.path.isdir(path):
        return any(_is_samples(f) for folder in _folders(path) for f in _samples_in(folder))
    return False


def _runs(path: str) -> tuple[dict[str, list[tuple[str, str]]], str]:
    """Every task's samples files, ``{task: [(time, file), ...]}`` oldest first, and the
    folder they are in."""
    if os.path.isfile(path):
        m = SAMPLES.match(os.path.basename(path))
        if m is None:
            raise InputError(f"{path}: not an lm-eval samples file (its name is not "
                             "samples_<task>_<time>.jsonl)")
        return {m["task"]: [(m["time"], path)]}, os.path.dirname(path) or "."
    folders = _folders(path)
    if not folders:
        raise InputError(f"{path}: no lm-eval samples files (samples_<task>_<time>.jsonl) "
                         "in it or in its subdirectories")
    if len(folders) > 1:
        which = ", ".join(os.path.basename(f) for f in folders)
        raise InputError(f"{path}: holds the samples of several models ({which}); "
                         "give one of these directories")
    found: dict[str, list[tuple[str, str]]] = {}
    for f in _samples_in(folders[0]):
        m = SAMPLES.match(os.path.basename(f))
        found.setdefault(m["task"], []).append((m["time"], f))
    for runs in found.values():
        runs.sort()
    return found, folders[0]


def _results(samples: str, time: str) -> tuple[dict | None, str | None, str | None]:
    """The results JSON written with ``samples`` (same folder, name ending ``_<time>.json``;
    ``results_<time>.json`` preferred), its path, and a note when it cannot be read."""
    folder = os.path.dirname(samples) or "."
    names = [n for n in sorted(os.listdir(folder)) if n.endswith(f"_{time}.json")]
    if not names:
        return None, None, None
    name = f"results_{time}.json" if f"results_{time}.json" in names else names[0]
    where = os.path.join(folder, name)
    try:
        with open(where, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        return None, None, f"{where}: not read ({type(exc).__name__}); the run is unnamed"
    if not isinstance(data, dict):
        return None, None, f"{where}: not a results object; the run is unnamed"
    return data, where, None


def task_names(tasks) -> list[str]:
    """The ``tasks`` option as a list of names (a name, or an iterable of names)."""
    if isinstance(tasks, str):
        return [tasks]
    wanted = list(tasks) if isinstance(tasks, Iterable) and not isinstance(
        tasks, (bytes, Mapping)) else None
    if wanted is None or not all(isinstance(t, str) for t in wanted):
        raise InputError(f"`tasks` must be a task's name or a list of names, got "
                         f"{shown(tasks)}", param="tasks")
    return wanted


def select(path: str, tasks) -> tuple[list[Run], str, list[str]]:
    """The runs to read (the latest per task, restricted to ``tasks``) and notes."""
    found, folder = _runs(path)
    notes = []
    if tasks is not None:
        wanted = task_names(tasks)
        missing = [t for t in wanted if t not in found]
        if missing:
            raise InputError(f"{path}: no task {missing[0]!r} (it holds "
                             f"{', '.join(sorted(found))})", param="tasks")
        if not wanted:
            raise InputError(f"{path}: `tasks` is empty", param="tasks")
        order = list(dict.fromkeys(wanted))
    else:
        order = sorted(found)
    runs = []
    for task in order:
        time, file = found[task][-1]
        if len(found[task]) > 1:
            older = ", ".join(t for t, _ in found[task][:-1])
            notes.append(f"task {task}: {len(found[task])} runs; read the latest ({time}), "
                         f"not {older}")
        results, where, problem = _results(file, time)
        if problem:
            notes.append(problem)
        runs.append(Run(task, file, time, results, where))
    return runs, folder, notes


def _tasks_of(path) -> list[str]:
    return sorted(_runs(os.fspath(path))[0])


def common_tasks(paths: Sequence) -> TaskList:
    """The tasks every one of ``paths`` (directories or samples files) holds, sorted.

    The result is a list of task names for ``read(path, tasks=...)``; its ``notes`` name
    the tasks only some paths hold, which are left out.  No common task is an error.
    """
    paths = [os.fspath(p) for p in paths]
    for p in paths:
        if not os.path.exists(p):
            raise InputError(f"{p}: no such file or directory")
    each = {p: _tasks_of(p) for p in paths}
    common = sorted(set.intersection(*(set(t) for t in each.values())))
    if not common:
        which = "; ".join(f"{p}: {', '.join(t)}" for p, t in each.items())
        raise InputError(f"the lm-eval runs share no task ({which})", param="tasks")
    out = TaskList(common)
    notes = []
    for p, tasks in each.items():
        left = [t for t in tasks if t not in common]
        if left:
            notes.append(f"{p}: left out {len(left)} task(s) the other runs lack: "
                         f"{', '.join(left)}")
    out.notes = tuple(notes)
    return out

"""Evaluation-harness logs as per-item scores: one reader per format, one shared table.

Each reader (a module of this package, named in :data:`READERS`) turns a log into
:class:`Scores`: item ids, one or more systems' per-item scores (or sufficient statistics
for a pooled metric), and group and stratum labels where the log has them, with notes on
what was read (items, systems, the field chosen, rows skipped and why).  :func:`read`
dispatches on ``format`` (or detects it where the file leaves no doubt); :func:`join`
aligns several reads on their ids for :func:`pairboot.compare` and
:func:`pairboot.compare_many`.

A reader module defines ``NAME`` (the format's name for ``--from``), ``OPTIONS`` (the
keyword options it takes, among ``score``, ``group``, ``stratum``, ``system`` and its
own), ``FILES`` when some of them name files it opens besides ``path`` (the command
line never writes a report over them: :func:`files_named`), ``detect(path) -> bool``
(True only when the file or directory is unmistakably in its format) and
``read(path, **options) -> Scores``.  A bad log raises
:class:`~pairboot.errors.InputError` naming the file and, where there is one, the line.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from pairboot.errors import InputError
from pairboot.inputs.labels import shown
from pairboot.io.common import CommonItems, warn_lost
from pairboot.io.formats import file_stem, may_be_log, names_of_files
from pairboot.io.harness.outcomes import settle

__all__ = ["Scores", "Joined", "READERS", "read", "detect", "may_be_log", "join", "formats",
           "common_tasks", "object_format", "files_named"]

READERS = {
    "table": "table",
    "lm-eval": "lm_eval",
    "inspect": "inspect_log",
    "comet": "comet",
    "sacrebleu": "sacrebleu",
    "wmt": "wmt",
    "trec": "trec",
    "tau-bench": "tau_bench",
    "every-eval-ever": "every_eval_ever",
    "helm": "helm",
    "promptfoo": "promptfoo",
}
"""Format name (``--from``) -> the module of this package that reads it."""


@dataclass(frozen=True)
class Scores:
    """Per-item scores read from a log: the table every reader returns.

    ``systems`` maps a system's name to its values in item order: 1-D scores, or
    (items x statistics) for a pooled metric, whose statistic names are ``stats`` and
    whose pairboot metric is ``metric``.  ``ids`` are the items' ids as text, each once.
    ``groups`` and ``strata`` hold a label per item (None when the log has none).
    ``notes`` say what was read: items, systems, the field chosen, what was skipped and why.
    """

    path: str
    format: str
    ids: np.ndarray
    systems: dict
    score: str | None = None
    metric: str = "mean"
    stats: tuple[str, ...] | None = None
    groups: np.ndarray | None = None
    strata: np.ndarray | None = None
    notes: tuple[str, ...] = field(default=())
    runs: dict | None = None
    """Per system, items x runs (epochs, samples; NaN where an item has fewer), when the
    reader was asked to keep them."""
    columns: dict | None = None
    """Per system, its other per-item numbers by name (cost, tokens, latency): columns a
    metric or a gate can use, NaN where the system has no record of an item."""
    outcomes: dict | None = None
    """Per system, each item's outcome: None when scored, else why not (the log's error
    category, ``"no score"``, ``"missing"``); a score is NaN where there is none
    (:mod:`pairboot.io.harness.outcomes` counts them and applies ``errors=``)."""

    def __post_init__(self) -> None:
        ids = np.asarray(self.ids, dtype=object)
        object.__setattr__(self, "ids", ids)
        n = len(ids)
        for name, values in self.systems.items():
            if len(values) != n:
                raise ValueError(f"system {name!r} has {len(values)} values for {n} ids")
        for system, marks in (self.outcomes or {}).items():
            if len(marks) != n:
                raise ValueError(f"outcomes of {system!r}: {len(marks)} for {n} ids")
        for system, extra in (self.columns or {}).items():
            for column, values in extra.items():
                if len(values) != n:
                    raise ValueError(f"column {column!r} of {system!r}: {len(values)} "
                                     f"values for {n} ids")
        for name in ("groups", "strata"):
            labels = getattr(self, name)
            if labels is not None:
                labels = np.asarray(labels, dtype=object)
                if len(labels) != n:
                    raise ValueError(f"{name}: {len(labels)} labels for {n} ids")
                object.__setattr__(self, name, labels)

    @property
    def n_items(self) -> int:
        return len(self.ids)

    def to_frame(self):
        """A pandas DataFrame: ``id``, a column per system (per statistic for a pooled
        metric: ``system:stat``), and ``group``/``stratum`` when present."""
        import pandas as pd

        columns = {"id": self.ids}
        for name, values in self.systems.items():
            if np.ndim(values) == 1:
                columns[name] = values
            else:
                for j, stat in enumerate(self.stats or range(np.shape(values)[1])):
                    columns[f"{name}:{stat}"] = np.asarray(values)[:, j]
        for name, extra in (self.columns or {}).items():
            for column, values in extra.items():
                columns[f"{name}:{column}"] = values
        if self.groups is not None:
            columns["group"] = self.groups
        if self.strata is not None:
            columns["stratum"] = self.strata
        return pd.DataFrame(columns)


def trials_note(count: str, kept: bool) -> str:
    """What a reader did with an item's repeated trials (``count``: "4 trials per
    task"): averaged into its score, or each kept as a trial (``Scores.runs``) for
    ``runs="samples"``, whose metric reads them (pass^k from them, or their mean)."""
    return f"{count}, each kept as a trial (for `runs='samples'`)" if kept else f"{count}, averaged"


def score_number(path: str, where: str, value) -> float:
    """A finite score read from a log; ``where`` says where it is (``line N`` or a JSON
    path) in the error.  The readers of metric files (COMET, WMT) share it."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{path}: {where}: score {shown(value)} is not a number") from None
    except OverflowError:  # (an integer too large for a float)
        v = math.inf
    if isinstance(value, bool) or not math.isfinite(v):
        raise InputError(f"{path}: {where}: score {shown(value)} is not a finite number")
    return v


def _module(name: str):
    if name not in READERS:
        raise InputError(f"unknown log format {name!r}; known: {', '.join(formats())}",
                         param="format")
    return importlib.import_module(f"{__name__}.{READERS[name]}")


def files_named(format: str, options: Mapping) -> list[str]:
    """The files a reader of ``format`` opens besides its input, as ``options`` name
    them: the values of its ``FILES`` options (a path, a list of them, or paths
    separated by commas, as the readers split them).  An unknown format names none (the
    reader refuses it)."""
    try:
        module = _module(format)
    except (InputError, ImportError):
        return []
    out = []
    for key in getattr(module, "FILES", ()):
        value = options.get(key)
        if value is None:
            continue
        values = value.split(",") if isinstance(value, str) else list(value)
        out += [os.fspath(v).strip() if isinstance(v, (str, os.PathLike)) else str(v)
                for v in values]
    return [v for v in out if v]


def formats() -> list[str]:
    """The formats there is a reader for."""
    out = []
    for name, module in READERS.items():
        try:
            importlib.import_module(f"{__name__}.{module}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{module}":
                raise
            continue
        out.append(name)
    return out


def detect(path: str) -> str | None:
    """The format of ``path`` when one reader recognises it unmistakably, else None
    (without importing the readers when :func:`may_be_log` says none can)."""
    if not may_be_log(path):
        return None
    found = [name for name in formats() if _module(name).detect(path)]
    return found[0] if len(found) == 1 else None


IN_MEMORY = {
    "inspect": "an Inspect EvalLog (attributes `eval` and `samples`) or its dict form",
    "lm-eval": "the dict lm-eval's simple_evaluate returns (its `results` and `samples` "
               "mappings)",
}
"""The logs read from memory, as messages describe them."""


def object_format(obj) -> str:
    """The format of a log in memory: ``"inspect"`` for an Inspect ``EvalLog`` object
    (attributes ``eval`` and ``samples``) or its dict form (a mapping whose ``eval`` is a
    mapping), ``"lm-eval"`` for lm-evaluation-harness's results dict (a mapping whose
    ``results`` or ``samples`` is a mapping, as ``lm_eval.simple_evaluate(...,
    log_samples=True)`` returns it), else ``"table"`` (a pandas, polars or Arrow table,
    or a mapping of columns)."""
    if _module("inspect").is_log_object(obj):
        return "inspect"
    if isinstance(obj, Mapping) and (isinstance(obj.get("results"), Mapping)
                                     or isinstance(obj.get("samples"), Mapping)):
        return "lm-eval"
    return "table"


def read(path, format: str | None = None, **options) -> Scores:
    """Read one log (or an lm-evaluation-harness output directory, or a pandas, polars or
    Arrow table: ``format="table"``) into :class:`Scores`.

    A log in memory is read as its file would be (:func:`object_format`): an Inspect
    ``EvalLog`` object (``inspect_ai.eval(...)[0]``, read duck-typed: ``eval.model``,
    ``eval.task``, ``samples`` with ``id``, ``epoch``, ``scores``, ``metadata``,
    ``error``), or the dict ``lm_eval.simple_evaluate(..., log_samples=True)`` returns
    (its ``samples`` per task beside ``results`` and ``configs``), so that a notebook
    that has just run an evaluation compares it without writing files.

    ``format`` is a name of :data:`READERS` (``--from``); without it, the format is
    detected where the file leaves no doubt.  ``options`` are the reader's (``score``:
    the metric, scorer or measure to read; ``group``, ``stratum``: which field labels
    the items; ``system``: which systems of a file holding several); an option the
    reader does not take is an error, as is an option given as None.
    """
    if not isinstance(path, (str, os.PathLike)):  # a log in memory, or a table
        kind = object_format(path)
        format = format or kind
        if format != kind:
            name = type(path).__name__
            name = f"{'an' if name[:1] in 'aeiouAEIOU' else 'a'} {name}"
            if kind == "table" and format in IN_MEMORY:
                raise InputError(f"{name} is not {IN_MEMORY[format]}", param="format")
            what = "a table" if kind == "table" else f"a {kind} log"
            raise InputError(f"{name} is read as {what} (format={kind!r}), not as "
                             f"{format!r}", param="format")
    elif not os.path.exists(path):
        raise InputError(f"{path}: no such file or directory")
    if format is None:
        format = detect(path)
        if format is None:
            raise InputError(f"{path}: cannot tell which harness wrote it; give the format "
                             f"(one of {', '.join(formats())})", param="format")
    module = _module(format)
    given = {k: v for k, v in options.items() if v is not None}
    unknown = sorted(set(given) - set(module.OPTIONS))
    if unknown:
        takes = ", ".join(f"`{o}`" for o in sorted(module.OPTIONS)) or "none"
        where = path if isinstance(path, (str, os.PathLike)) else f"a {type(path).__name__}"
        raise InputError(f"{where}: the {format} reader takes no option `{unknown[0]}` (it "
                         f"takes {takes})", param=unknown[0])
    return module.read(path, **given)


def common_tasks(paths: Sequence[str]) -> list[str]:
    """The lm-evaluation-harness tasks every one of ``paths`` holds."""
    return list(_module("lm-eval").common_tasks(paths))


@dataclass(frozen=True)
class Joined:
    """Several reads aligned on their ids: the systems' names and values in one item
    order (the first read's), with its groups and strata, and every read's notes."""

    names: tuple[str, ...]
    values: tuple
    ids: np.ndarray
    metric: str
    stats: tuple[str, ...] | None
    groups: np.ndarray | None
    strata: np.ndarray | None
    notes: tuple[str, ...]
    runs: tuple | None = None
    """Every system's items x runs table, when every read kept them."""
    common: CommonItems | None = None
    """With ``common_items``: how many items were kept, of how many, and what each log
    lost."""
    outcomes: object = None
    """The systems' errored and missing items, and the ``errors`` policy that settled
    them (:class:`pairboot.io.harness.outcomes.Outcomes`); None when every log scored
    every item."""
    columns: tuple | None = None
    """Every system's per-item columns (cost, tokens, latency) in item order, when its
    log has them (an empty mapping when not)."""


def _common_items(reads: Sequence[Scores]) -> tuple[list[Scores], CommonItems]:
    """``reads`` cut to the ids every one holds (in the first's order), the first's
    notes saying how many items each lost; and those counts."""
    held = set(reads[0].ids.tolist())
    every = set(held)
    for r in reads[1:]:
        held &= set(r.ids.tolist())
        every |= set(r.ids.tolist())
    if not held:
        raise InputError(f"no item is in every log ({', '.join(r.path for r in reads)}): "
                         "there are no items to compare", param="common_items")
    out = []
    for r in reads:
        rows = np.array([i for i, v in enumerate(r.ids.tolist()) if v in held], dtype=np.intp)

        def cut(values, rows=rows):
            return None if values is None else np.asarray(values)[rows]

        out.append(dataclasses.replace(
            r, ids=r.ids[rows], systems={k: cut(v) for k, v in r.systems.items()},
            groups=cut(r.groups), strata=cut(r.strata),
            runs=None if r.runs is None else {k: cut(v) for k, v in r.runs.items()},
            columns=None if r.columns is None else
            {k: {c: cut(x) for c, x in cols.items()} for k, cols in r.columns.items()},
            outcomes=None if r.outcomes is None else
            {k: cut(v) for k, v in r.outcomes.items()}))
    lost = [f"{len(r.ids) - len(held):,} of the {len(r.ids):,} items of {r.path}"
            for r in reads]
    note = (f"compared on the {len(held):,} items that every log scores (`common_items`): "
            f"dropped {', '.join(lost[:-1])} and {lost[-1]}; the items a system did not "
            "score may be the hard ones, so the comparison can favour it")
    out[0] = dataclasses.replace(out[0], notes=(*out[0].notes, note))
    common = CommonItems(kept=len(held), total=len(every), sources=tuple(r.path for r in reads),
                         sizes=tuple(len(r.ids) for r in reads), unit="log")
    return out, common


def join(reads: Sequence[Scores], names: Sequence[str] | None = None, *,
         common_items: bool = False, errors: str | None = None) -> Joined:
    """The systems of ``reads`` on the items they all score, in the first read's order.

    Every read must hold the same ids (a clear error says how many differ and shows
    some), unless ``common_items``: then the items are the ids every read holds, a note
    and ``common`` say how many each read lost, and a
    :class:`~pairboot.errors.PairbootWarning` names the logs that lost more than 10%.
    The metric and statistics must agree; systems are named by ``names`` (one per
    system, in order) or by their reads, with the file's stem added when two reads name
    a system alike; systems named by their files (a table's) are named as a family's
    files are (:func:`pairboot.io.names_of_files`: the stems, with folders where two
    are alike).

    ``errors`` says how the items a system errored on or did not score count: None
    (as the harness recorded them), ``"exclude"``, ``"fail"`` or ``"common"``
    (:mod:`pairboot.io.harness.outcomes`); ``Joined.outcomes`` counts them per system,
    and the notes say so.
    """
    reads, outcomes = settle(reads, errors)
    common = None
    if common_items:
        reads, common = _common_items(reads)
        warn_lost(common)
    first = reads[0]
    base = {v: i for i, v in enumerate(first.ids.tolist())}
    for r in reads[1:]:
        if (r.metric, r.stats) != (first.metric, first.stats):
            raise InputError(f"{r.path} holds {r.metric} ({r.score}) but {first.path} "
                             f"{first.metric} ({first.score}): they do not compare")
        other = set(r.ids.tolist())
        if other != set(base):
            only_a = [v for v in base if v not in other]
            only_b = [v for v in r.ids.tolist() if v not in base]
            shown = ", ".join(repr(v) for v in (only_a[:2] + only_b[:2]))
            raise InputError(
                f"{first.path} and {r.path} do not score the same items: {len(only_a):,} "
                f"ids only in the first, {len(only_b):,} only in the second (e.g. {shown}); "
                "`common_items` compares on the items both score, saying how many each "
                "lost")
    raw_names, values, tables, columns = [], [], [], []
    for r in reads:
        order = None if r is first else np.array([base[v] for v in r.ids.tolist()])
        inverse = None
        if order is not None:
            inverse = np.empty(len(order), dtype=np.intp)
            inverse[order] = np.arange(len(order))
        for name, v in r.systems.items():
            raw_names.append((name, r.path))
            arr = np.asarray(v, dtype=np.float64)
            values.append(arr if inverse is None else arr[inverse])
            extra = (r.columns or {}).get(name, {})
            columns.append({c: np.asarray(x) if inverse is None else np.asarray(x)[inverse]
                            for c, x in extra.items()})
            if r.runs is not None and name in r.runs:
                t = np.asarray(r.runs[name], dtype=np.float64)
                tables.append(t if inverse is None else t[inverse])
    if names is None:  # (a name two reads share gets its file's name, or path, added)
        plain = [n for n, _ in raw_names]
        own = [i for i, (n, p) in enumerate(raw_names) if n == file_stem(p)]
        for i, name in zip(own, names_of_files([raw_names[i][1] for i in own])):
            plain[i] = name  # (named by its file, as a table's system: the files' rule)
        counts = Counter(plain)  # (counted once: list.count is M^2)
        for shown in (os.path.basename, str):
            names = [n if counts[n] == 1 else f"{n} ({shown(p)})"
                     for n, (_, p) in zip(plain, raw_names)]
            if len(set(names)) == len(names):
                break
        else:
            counts = Counter(names)
            twice = next(n for n in names if counts[n] > 1)
            raise InputError(f"two systems read are both {twice!r}: one log given twice? "
                             "Give each log once, or `names` to tell them apart",
                             param="names")
    names = tuple(str(n) for n in names)
    if len(names) != len(values) or len(set(names)) != len(names):
        raise InputError(f"the logs hold {len(values)} systems; name each once "
                         f"(got {', '.join(names)})", param="names")
    notes = tuple(note for r in reads for note in r.notes)
    if outcomes is not None:  # (named as the systems; the items left after the join)
        outcomes = dataclasses.replace(outcomes.renamed(names), kept=len(first.ids))
        notes += tuple(outcomes.notes())
    runs = tuple(tables) if len(tables) == len(values) else None
    return Joined(names, tuple(values), first.ids, first.metric, first.stats, first.groups,
                  first.strata, notes, runs, common, outcomes, tuple(columns))

"""lm-evaluation-harness ``--log_samples`` output as per-item scores.

lm-eval writes one ``samples_<task>_<time>.jsonl`` per task (a JSON object per document and
filter: ``doc_id``, ``filter``, ``metrics`` and one field per metric) and a
``results_<time>.json`` beside it (the aggregated scores, configs, ``n-shot``, the model).
This reader takes a samples file, or a directory in lm-eval's ``--output_path`` layout
(``<dir>/<model_name_sanitized>/samples_*.jsonl``, or the samples files directly in it),
and returns one system's per-document scores: the item id is ``doc_id`` (``<task>/<doc_id>``
when several tasks are read, each task then a stratum).

Only metrics that lm-eval averages over documents are read as scores.  A pooled metric (its
aggregation is not ``mean``, or its per-sample field holds a list such as ``[gold, pred]``)
is refused, since the mean of per-item values is not the task's score; ``counts="span-f1"``
turns the span-F1 fields of MasakhaNER-style tasks into per-document ``tp, fp, fn``
(checked against the F1 in the results file), compared with ``metric="f1"``.
"""

from __future__ import annotations

import ast
import json
import math
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from pairboot.errors import InputError
from pairboot.inputs.labels import shown
from pairboot.io.guards import json_value_problem, too_deep
from pairboot.io.harness import Scores
from pairboot.io.harness.lm_eval_files import (
    Run,
    TaskList,
    common_tasks,
    detect,
    select,
    task_names,
)
from pairboot.io.harness.span_f1 import span_counts

__all__ = ["NAME", "OPTIONS", "detect", "read", "common_tasks", "TaskList", "span_counts"]

NAME = "lm-eval"
OPTIONS = ("score", "filter", "tasks", "counts")
"""``score``: the metric field (``acc``, ``acc_norm``, ``exact_match``...); ``filter``: the
filter whose rows to read when a task logs several; ``tasks``: the tasks to read from a
directory; ``counts``: ``"span-f1"`` derives per-document span-F1 counts."""

DOCS = "docs/harnesses/lm-eval.md, section \"Pooled metrics\""
COUNTS = ("span-f1",)

_ID_DIGITS = 100
"""A doc_id of more digits is refused (Python will not print one of over 4,300)."""

LOGGED = frozenset({"doc_id", "doc", "target", "arguments", "resps", "filtered_resps",
                    "filter", "metrics", "doc_hash", "prompt_hash", "target_hash"})
"""The fields lm-eval logs per sample besides the metrics (read when ``metrics`` is absent)."""


@dataclass(frozen=True)
class _Rows:
    """A samples file's rows: line number, doc_id, filter and metric fields of each."""

    path: str
    lines: list
    doc_ids: list
    filters: list
    metrics: list
    names: tuple  # the metric names of the first row, in order


# --- reading a samples file ------------------------------------------------------------


def _rows(path: str) -> _Rows:
    """Parse every line of a samples file; a bad line is an error naming it."""
    return _rows_of(path, _records(path))


def _records(path: str):
    """A samples file's records with their line numbers; a bad line is an error."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    all_lines = text.split("\n")
    for number, line in enumerate(all_lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except RecursionError:
            raise too_deep(line, path, number) from None
        except ValueError as exc:
            if not isinstance(exc, json.JSONDecodeError):
                raise InputError(f"{path}: line {number}: not JSON "
                                 f"({json_value_problem(exc)})") from None
            if number == len(all_lines):
                raise InputError(f"{path}: line {number}: truncated (the file ends inside "
                                 "a record)") from None
            raise InputError(f"{path}: line {number}: not JSON ({exc.msg})") from None
        yield number, record


def _rows_of(path: str, records) -> _Rows:
    """The rows of ``records`` (``(line, record)`` pairs: a file's, or a results dict's
    samples numbered from 1); ``path`` names them in messages."""
    lines, doc_ids, filters, metrics = [], [], [], []
    names: tuple = ()
    for number, record in records:
        if not isinstance(record, dict):
            raise InputError(f"{path}: line {number}: expected a JSON object, got "
                             f"{type(record).__name__}")
        if "doc_id" not in record:
            raise InputError(f"{path}: line {number}: no doc_id")
        doc, filter_, listed = record["doc_id"], record.get("filter"), record.get("metrics")
        if isinstance(doc, bool) or not isinstance(doc, (int, str)) or (
                isinstance(doc, int) and abs(doc) >= 10**_ID_DIGITS):
            raise InputError(f"{path}: line {number}: doc_id {shown(doc)} is not a "
                             "document's number")
        if filter_ is not None and not isinstance(filter_, str):
            raise InputError(f"{path}: line {number}: filter {shown(filter_)} is not a "
                             "filter's name")
        if listed is not None and not (isinstance(listed, list) and all(
                isinstance(k, str) for k in listed)):
            raise InputError(f"{path}: line {number}: 'metrics' is {shown(listed)}, not a "
                             "list of metric names")
        keys = listed if listed is not None else [k for k in record if k not in LOGGED]
        if not names:
            names = tuple(str(k) for k in keys)
        lines.append(number)
        doc_ids.append(doc)
        filters.append(filter_)
        metrics.append({k: record[k] for k in keys if k in record})
    if not lines:
        raise InputError(f"{path}: no samples (the file is empty)")
    return _Rows(path, lines, doc_ids, filters, metrics, names)


def _pick_filter(rows: _Rows, task: str, wanted, notes: list) -> str | None:
    seen = list(dict.fromkeys(rows.filters))
    if len(seen) == 1:
        if wanted is not None and wanted != seen[0]:
            notes.append(f"task {task}: logs only filter {seen[0]!r}; read it "
                         f"(not {wanted!r})")
        return seen[0]
    which = ", ".join(repr(f) for f in seen)
    if wanted is None:
        raise InputError(f"{rows.path}: task {task} logs several filters ({which}); choose "
                         "one with `filter`", param="filter")
    if wanted not in seen:
        raise InputError(f"{rows.path}: no filter {wanted!r} (it logs {which})",
                         param="filter")
    skipped = sum(f != wanted for f in rows.filters)
    notes.append(f"task {task}: read filter {wanted!r}; skipped {skipped} rows of the "
                 "other filters")
    return wanted


def _is_number(v) -> bool:
    return isinstance(v, (int, float))  # bool too: lm-eval logs some 0/1 metrics as bools


def _section(run: Run, key: str, task: bool = True):
    """The run's task entry in the results' object ``key`` (``configs``, ``n-shot``,
    ``n-samples``, ``results``), or the object itself (``task=False``); None when absent.
    A section that is not an object is an error naming it."""
    value = (run.results or {}).get(key)
    if value is not None and not isinstance(value, Mapping):
        raise InputError(f"{run.results_path}: {key!r} is {shown(value)}, not an object")
    return value if not task or value is None else value.get(run.task)


def _float(v) -> float:
    """A logged number as a float; inf for an integer too large for one."""
    try:
        return float(v)
    except OverflowError:
        return math.inf


def _aggregation(run: Run, metric: str) -> str | None:
    """The task's aggregation of ``metric`` from the results file's configs: ``"mean"``,
    another name, ``"custom"`` for a function, or None when unknown."""
    config = _section(run, "configs")
    if config is None:
        return None
    if not isinstance(config, Mapping):
        raise InputError(f"{run.results_path}: 'configs' of task {run.task} is "
                         f"{shown(config)}, not an object")
    listed = config.get("metric_list")
    if isinstance(listed, str):
        try:
            listed = ast.literal_eval(listed)
        except (ValueError, SyntaxError):
            m = re.search(r"['\"]metric['\"]:\s*['\"]" + re.escape(metric)
                          + r"['\"],\s*['\"]aggregation['\"]:\s*['\"](\w+)", listed)
            return None if m is None else ("custom" if m[1] == "def" else m[1])
    for entry in listed if isinstance(listed, list) else ():
        if isinstance(entry, dict) and entry.get("metric") == metric:
            agg = entry.get("aggregation")
            if agg is None:
                return None
            agg = str(agg)
            return "custom" if agg.lstrip().startswith("def ") or "<function" in agg else agg
    return None


def _pooled(path: str, task: str, metric: str, why: str) -> InputError:
    return InputError(
        f"{path}: metric {metric!r} of task {task} is pooled ({why}): the mean of "
        "per-item values is not the task's score; compare per-item counts (tp, fp, fn per "
        f"doc) with `metric='f1'` instead (see {DOCS}; span F1: `counts='span-f1'`)",
        param="score")


def _pick_metric(rows: _Rows, run: Run, wanted, counts, notes: list) -> str:
    names = rows.names
    if wanted is not None:
        if wanted not in names:
            raise InputError(f"{rows.path}: no metric {wanted!r} in task {run.task} (it logs "
                             f"{', '.join(names) or 'none'})", param="score")
        return wanted
    first = rows.metrics[0]
    numeric = [n for n in names if _is_number(first.get(n))]
    candidates = [n for n in names if n not in numeric] if counts else numeric
    if len(candidates) == 1:
        notes.append(f"task {run.task}: read metric {candidates[0]!r}, its only per-sample "
                     f"{'[gold, predictions] field' if counts else 'numeric metric'}")
        return candidates[0]
    if candidates:
        raise InputError(f"{rows.path}: task {run.task} logs several metrics "
                         f"({', '.join(candidates)}); choose one with `score`", param="score")
    if counts:
        raise InputError(f"{rows.path}: task {run.task} logs no [gold, predictions] field for "
                         f"`counts={counts!r}` (it logs {', '.join(names) or 'none'})",
                         param="counts")
    if not names:
        raise InputError(f"{rows.path}: line {rows.lines[0]}: no metric fields")
    if first.get(names[0]) is None:
        raise InputError(f"{rows.path}: line {rows.lines[0]}: metric {names[0]!r} is "
                         f"{'null' if names[0] in first else 'missing'}")
    raise _pooled(rows.path, run.task, ", ".join(names), "its per-sample field is a "
                  f"{type(first.get(names[0])).__name__}, not a number")


def _values(rows: _Rows, run: Run, metric: str, filter_, counts) -> tuple[list, list]:
    """The chosen filter's doc ids and per-doc values (scores, or span counts)."""
    ids, values, where = [], [], {}
    aggregation = _aggregation(run, metric)
    if counts is None and aggregation not in (None, "mean"):
        raise _pooled(rows.path, run.task, metric, f"lm-eval aggregates it with "
                      f"{aggregation!r}, not the mean")
    for line, doc, filt, fields in zip(rows.lines, rows.doc_ids, rows.filters, rows.metrics):
        if filt != filter_:
            continue
        key = str(doc)
        if key in where:
            raise InputError(f"{rows.path}: line {line}: doc_id {shown(doc)} again (first on line "
                             f"{where[key]}) for filter {filter_!r}")
        where[key] = line
        if metric not in fields:
            raise InputError(f"{rows.path}: line {line}: no metric {metric!r}")
        v = fields[metric]
        if counts is not None:
            value = _counts_of(v, rows.path, line, metric)
        elif _is_number(v):
            value = _float(v)
            if not math.isfinite(value):
                raise InputError(f"{rows.path}: line {line}: {metric} is {shown(v)}, not a "
                                 "finite number")
        elif v is None:
            raise InputError(f"{rows.path}: line {line}: {metric} is null")
        else:
            raise _pooled(rows.path, run.task, metric, f"line {line} holds a "
                          f"{type(v).__name__}, not a number")
        ids.append(key)
        values.append(value)
    return ids, values


def _check_size(run: Run, n: int) -> None:
    """A file with fewer docs than its results file counts was cut short."""
    sizes = _section(run, "n-samples")
    effective = sizes.get("effective") if isinstance(sizes, Mapping) else None
    if isinstance(effective, int) and not isinstance(effective, bool) and effective != n:
        raise InputError(f"{run.path}: {n} docs, but {run.results_path} says {effective} "
                         "were evaluated (a truncated or mismatched file)")


# --- span F1 counts --------------------------------------------------------------------

def _counts_of(value, path: str, line: int, metric: str) -> tuple[int, int, int]:
    if not (isinstance(value, list) and len(value) == 2
            and isinstance(value[0], (str, list)) and isinstance(value[1], (str, list))):
        raise InputError(f"{path}: line {line}: {metric} is not [gold, predictions] "
                         "(`counts='span-f1'` needs the span strings)")
    return span_counts(value[0], value[1])


def _check_f1(run: Run, metric: str, filter_, values: list, notes: list) -> None:
    """The summed counts must give the F1 the harness reported, when it is known."""
    tp, fp, fn = np.sum(np.asarray(values, dtype=np.float64), axis=0)
    f1 = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0
    reported = _section(run, "results")
    reported = reported.get(f"{metric},{filter_}") if isinstance(reported, Mapping) else None
    if not (_is_number(reported) and abs(_float(reported)) <= 1):  # (NaN is no F1)
        notes.append(f"task {run.task}: span counts give F1 {f1:.5f} (no reported F1 to "
                     "check them against)")
        return
    if abs(f1 - reported) > 1e-6:
        raise InputError(f"{run.path}: the span counts give F1 {f1:.5f} but the harness "
                         f"reported {reported:.5f}: this task's {metric} is not the span F1 "
                         f"`counts='span-f1'` computes (see {DOCS})", param="counts")
    notes.append(f"task {run.task}: span counts (tp, fp, fn) give F1 {f1:.5f}, as reported")


# --- the system's name -----------------------------------------------------------------


def _model(results: dict) -> str | None:
    config = results.get("config") if isinstance(results.get("config"), dict) else {}
    for name in (results.get("model_name"), config.get("model_name")):
        if isinstance(name, str) and name:
            return name
    args = config.get("model_args")
    if isinstance(args, dict):
        return str(args.get("pretrained") or args.get("model") or "") or None
    if isinstance(args, str) and args:
        m = re.search(r"(?:pretrained|model)=([^,]+)", args)
        return m[1] if m else args
    return None


def _system(runs: list[Run], fallback: str, notes: list) -> str:
    models = {r.task: _model(r.results) for r in runs if r.results is not None}
    named = {m for m in models.values() if m}
    if len(named) > 1:
        which = ", ".join(f"{t}: {m}" for t, m in models.items())
        raise InputError(f"{fallback}: its tasks come from different models ({which})")
    if not named:
        notes.append(f"no model named in a results file; the system is called {fallback!r}")
        return fallback
    name = named.pop()
    shots = [_section(r, "n-shot") for r in runs]
    if all(isinstance(k, int) and not isinstance(k, bool) for k in shots) and \
            len(set(shots)) == 1:
        name = f"{name} {shots[0]}-shot"
    return name


# --- the results dict in memory -------------------------------------------------------

RESULTS_LABEL = "lm-eval results"
"""How messages name the results dict of ``simple_evaluate`` (in memory)."""


def _select_results(results: Mapping, tasks) -> tuple[list[Run], None, list[str]]:
    """The tasks of ``simple_evaluate``'s results dict to read (``tasks``, or all that
    have samples), each a :class:`Run` whose results are the dict itself."""
    samples = results.get("samples")
    if samples is None or (isinstance(samples, Mapping) and not samples):
        raise InputError(f"{RESULTS_LABEL}: no samples (run simple_evaluate with "
                         "log_samples=True)")
    if not isinstance(samples, Mapping):
        raise InputError(f"{RESULTS_LABEL}: 'samples' is {shown(samples)}, not an object "
                         "of tasks' samples")
    for task, rows in samples.items():
        if not isinstance(task, str):
            raise InputError(f"{RESULTS_LABEL}: 'samples' has a task named {shown(task)}, "
                             "not text")
        if not isinstance(rows, (list, tuple)):
            raise InputError(f"{RESULTS_LABEL}: samples[{task!r}] is {shown(rows)}, not a "
                             "list of samples")
    if tasks is not None:
        wanted = task_names(tasks)
        if not wanted:
            raise InputError(f"{RESULTS_LABEL}: `tasks` is empty", param="tasks")
        missing = [t for t in wanted if t not in samples]
        if missing:
            raise InputError(f"{RESULTS_LABEL}: no samples of task {missing[0]!r} (it holds "
                             f"{', '.join(sorted(samples))})", param="tasks")
        order = list(dict.fromkeys(wanted))
    else:
        order = sorted(samples)
    label = f"{RESULTS_LABEL} (in memory)"
    return ([Run(t, f"{RESULTS_LABEL}: samples[{t!r}]", "", dict(results), label)
             for t in order], None, [])


def _sample_records(samples):
    """A task's samples in memory as ``(number, record)`` pairs, numbered from 1, their
    numpy numbers as Python's (as the samples file would hold them)."""
    for number, record in enumerate(samples, start=1):
        if isinstance(record, Mapping):
            record = {k: v.item() if isinstance(v, np.generic) else v
                      for k, v in record.items()}
        yield number, record


# --- read ------------------------------------------------------------------------------


def read(path, *, score: str | None = None, filter: str | None = None,
         tasks: Iterable[str] | str | None = None, counts: str | None = None) -> Scores:
    """Read an lm-eval samples file, or every task (or ``tasks``) of an output directory,
    or of the results dict ``lm_eval.simple_evaluate(..., log_samples=True)`` returns
    (in memory: its ``samples`` per task, its ``configs`` and model as the results file's).

    ``score`` names the metric field; without it, the task's one per-sample numeric
    metric is read (several: an error listing them).  ``filter`` picks the rows of one
    filter where a task logs several.  Each task's latest run is read; several tasks are
    strata, their items ``<task>/<doc_id>``.  ``counts="span-f1"`` reads span-F1 fields
    as per-document ``tp, fp, fn`` for ``metric="f1"``.
    """
    in_memory = isinstance(path, Mapping)
    if in_memory:
        results, path = path, RESULTS_LABEL
    path = os.fspath(path)
    for option, value in (("score", score), ("filter", filter)):
        if value is not None and (not isinstance(value, str) or not value):
            raise InputError(f"`{option}` must be a non-empty name, got {shown(value)}",
                             param=option)
    if counts is not None and counts not in COUNTS:
        raise InputError(f"`counts` must be one of {', '.join(COUNTS)}, got {counts!r}",
                         param="counts")
    if in_memory:
        runs, folder, notes = _select_results(results, tasks)
    else:
        runs, folder, notes = select(path, tasks)
    several = len(runs) > 1
    all_ids, all_values, strata, metrics = [], [], [], {}
    for run in runs:
        rows = (_rows_of(run.path, _sample_records(results["samples"][run.task]))
                if in_memory else _rows(run.path))
        filter_ = _pick_filter(rows, run.task, filter, notes)
        metric = _pick_metric(rows, run, score, counts, notes)
        ids, values = _values(rows, run, metric, filter_, counts)
        _check_size(run, len(ids))
        if counts is not None:
            _check_f1(run, metric, filter_, values, notes)
        metrics[run.task] = metric
        notes.append(f"task {run.task}: {len(ids)} docs of "
                     f"{run.path if in_memory else os.path.basename(run.path)}"
                     f" (filter {filter_!r}, metric {metric!r}"
                     + (f", results {os.path.basename(run.results_path)})"
                        if run.results_path else ", no results file beside it)"))
        all_ids += [f"{run.task}/{i}" for i in ids] if several else ids
        all_values += values
        strata += [run.task] * len(ids)
    if len(set(metrics.values())) > 1:
        which = ", ".join(f"{t}: {m}" for t, m in metrics.items())
        raise InputError(f"{path}: the tasks' metrics differ ({which}); choose one with "
                         "`score` or restrict `tasks`", param="score")
    # (lm-eval's folder: the model's name)
    fallback = "lm-eval" if in_memory else os.path.basename(os.path.abspath(folder))
    name = _system(runs, fallback, notes)
    values = np.asarray(all_values, dtype=np.float64)
    metric = next(iter(metrics.values()))
    return Scores(
        path=path, format=NAME, ids=np.asarray(all_ids, dtype=object),
        systems={name: values}, score=metric,
        metric="f1" if counts else "mean", stats=("tp", "fp", "fn") if counts else None,
        strata=np.asarray(strata, dtype=object) if several else None,
        notes=tuple(notes))

"""HELM per-instance statistics (``per_instance_stats.json``) as per-item scores.

A HELM run directory (``benchmark_output/runs/<suite>/<run spec>/``) holds
``per_instance_stats.json``: a list of ``{"instance_id", "train_trial_index",
"perturbation", "stats": [Stat, ...]}``, each Stat ``{"name": {"name", "split",
"perturbation"?}, "count", "sum", ...}`` (helm ``benchmark/metrics/statistic.py``,
``metrics/metric.py: PerInstanceStats``).  One system per run: ``adapter_spec.model`` of
the ``run_spec.json`` beside it (else the ``model=`` of the run's name); the task is the
run spec's name without its model.  A stat's per-instance value is its mean
(``sum / count``); ``score`` names the stat compared (``exact_match`` by default), and
every other stat is a per-item column, with ``input_tokens`` (``num_prompt_tokens``),
``output_tokens`` (``num_output_tokens``) and ``latency_ms`` (``inference_runtime`` x
1000) under the names the other readers use.  Perturbed instances (robustness and
fairness variants) are left out, and the notes say how many; several train trials of an
instance are averaged into its item.  HELM records no per-instance errors here.
"""

from __future__ import annotations

import math
import os

from pairboot.errors import InputError
from pairboot.inputs.labels import shown
from pairboot.io.common import load_json_file
from pairboot.io.harness.records import Record, scores_of

__all__ = ["NAME", "OPTIONS", "STATS_FILE", "detect", "read"]

NAME = "helm"
OPTIONS = ("score",)
"""``score``: the stat compared (``exact_match`` by default; several separated by
commas for a custom metric)."""

STATS_FILE = "per_instance_stats.json"

ALIASES = {"num_prompt_tokens": ("input_tokens", 1.0),
           "num_output_tokens": ("output_tokens", 1.0),
           "inference_runtime": ("latency_ms", 1000.0)}
"""HELM stats also given under the names the other readers use (and the factor)."""


def _file(path: str) -> str:
    return os.path.join(path, STATS_FILE) if os.path.isdir(path) else path


def detect(path) -> bool:
    """True for a ``per_instance_stats.json`` file or a directory holding one."""
    path = os.fspath(path)
    return os.path.basename(_file(path)) == STATS_FILE and os.path.isfile(_file(path))


def _run(stats_path: str) -> tuple[str, str | None, str]:
    """The system, the task and where they came from."""
    folder = os.path.dirname(os.path.abspath(stats_path))
    spec_path = os.path.join(folder, "run_spec.json")
    run = os.path.basename(folder)
    model = task = None
    source = "the run directory's name"
    if os.path.isfile(spec_path):
        spec = load_json_file(spec_path)
        adapter = spec.get("adapter_spec") if isinstance(spec, dict) else None
        model = adapter.get("model") if isinstance(adapter, dict) else None
        if isinstance(spec, dict) and isinstance(spec.get("name"), str):
            run = spec["name"]
        source = "run_spec.json"
    parts = [p for p in run.replace(":", ",").split(",") if p]
    if not isinstance(model, str) or not model:
        model = next((p[len("model="):] for p in parts if p.startswith("model=")), None)
    if "model=" in run or ":" in run:
        task = ",".join(p for p in run.split(",") if not p.startswith("model="))
    if not model:
        raise InputError(f"{stats_path}: no model named (no run_spec.json beside it with "
                         "adapter_spec.model, and no model= in the directory's name)")
    return model, task or None, source


def _stat_value(path: str, place: str, stat) -> tuple[str, float | None] | None:
    """A stat's name and mean (None when it counted nothing, as HELM's unset costs), or
    None for a perturbed variant's stat."""
    if not isinstance(stat, dict) or not isinstance(stat.get("name"), dict):
        raise InputError(f"{path}: {place}: a stat without a 'name' object")
    name = stat["name"].get("name")
    if not isinstance(name, str) or not name:
        raise InputError(f"{path}: {place}: a stat's name is {shown(name)}, not text")
    if stat["name"].get("perturbation") is not None:
        return None
    total, count = stat.get("sum"), stat.get("count")
    for field, value in (("sum", total), ("count", count)):
        if isinstance(value, bool) or not isinstance(value, int | float) or \
                not math.isfinite(float(value)):
            raise InputError(f"{path}: {place}: stat {name!r}: '{field}' is {shown(value)}, "
                             "not a finite number")
    if count < 0:
        raise InputError(f"{path}: {place}: stat {name!r}: 'count' is {count}, negative")
    return name, float(total) / float(count) if count else None


def read(path, *, score=None):
    """Read a HELM run's ``per_instance_stats.json`` (the file, or its run directory)
    into :class:`Scores` of one system: an item per ``instance_id``, ``score`` the stat
    compared (``exact_match`` by default), the other stats per-item columns."""
    path = os.fspath(path)
    stats_path = _file(path)
    if not os.path.isfile(stats_path):
        raise InputError(f"{path}: no {STATS_FILE} (a HELM run directory holds one)")
    data = load_json_file(stats_path)
    if not isinstance(data, list):
        raise InputError(f"{stats_path}: not a list of per-instance stats (HELM's "
                         f"{STATS_FILE} is a JSON list)")
    model, task, source = _run(stats_path)
    trials: dict = {}
    perturbed = 0
    for i, raw in enumerate(data):
        place = f"record {i + 1}"
        if not isinstance(raw, dict) or not isinstance(raw.get("stats"), list):
            raise InputError(f"{stats_path}: {place}: not a per-instance record (with "
                             "'instance_id' and 'stats')")
        iid = raw.get("instance_id")
        if not isinstance(iid, str) or not iid:
            raise InputError(f"{stats_path}: {place}: 'instance_id' is {shown(iid)}, not text")
        if raw.get("perturbation") is not None:
            perturbed += 1
            continue
        trial = raw.get("train_trial_index", 0)
        values = {}
        for stat in raw["stats"]:
            got = _stat_value(stats_path, place, stat)
            if got is not None:
                values[got[0]] = got[1]
        for helm_name, (alias, factor) in ALIASES.items():
            if values.get(helm_name) is not None:
                values[alias] = values[helm_name] * factor
        seen = trials.setdefault(iid, {})
        if trial in seen:
            raise InputError(f"{stats_path}: {place}: instance {iid} train trial {trial} "
                             f"appears twice (also {seen[trial][1]})")
        seen[trial] = (values, place)
    records = []
    counts = set()
    for iid, seen in trials.items():
        counts.add(len(seen))
        names = list(dict.fromkeys(k for values, _ in seen.values() for k in values))
        fields = {}
        for k in names:
            got = [values.get(k) for values, _ in seen.values()]
            fields[k] = None if None in got else math.fsum(got) / len(got)
        place = next(iter(seen.values()))[1]
        records.append(Record(id=iid, system=model, task=task, fields=fields, error=None,
                              message=None, place=place))
    notes = [f"system {model} (from {source})"]
    if perturbed:
        notes.append(f"{perturbed} perturbed instance record{'s' * (perturbed > 1)} left "
                     "out (robustness or fairness variants: compare them separately)")
    if counts and max(counts) > 1:
        notes.append(f"{max(counts)} train trials per instance, averaged into its item")
    notes.append("HELM's per-instance stats record no errors (a failed request is scored "
                 "by HELM's metrics as an answer)")
    default = "exact_match"
    if records and score is None and not any(default in r.fields for r in records):
        found = sorted({k for r in records for k in r.fields})
        raise InputError(f"{stats_path}: no 'exact_match' stat: name the stat compared with "
                         f"`score` (the stats: {', '.join(found[:12])}"
                         f"{', ...' if len(found) > 12 else ''})", param="score")
    return scores_of(stats_path, NAME, records, score=score, default=default,
                     shape="HELM per-instance stats", notes=notes)

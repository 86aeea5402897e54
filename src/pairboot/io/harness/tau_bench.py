"""tau-bench and tau2-bench results as per-task scores, keeping every trial.

Three shapes are read, one system per file:

- tau-bench's results (``historical_trajectories/*.json``, or what its ``run.py`` writes): a
  JSON list of records ``{"task_id", "trial", "reward", "info", "traj"}``;
- the same records as JSON Lines (one per line; ``info`` and ``traj`` may be dropped);
- tau2-bench's ``Results`` JSON: ``{"info", "tasks", "simulations": [...]}``, each simulation
  a ``SimulationRun`` with ``task_id``, ``trial`` and ``reward_info.reward``; the system is
  ``info.agent_info.llm`` when present.

An item is a task; its score is the mean of its trials' rewards, and with
``trials="runs"`` every trial's reward is kept (``Scores.runs``: tasks x trials, in trial
order) for ``compare(..., runs="samples", metric="pass^k")``.  Rewards are 0.0/1.0 in
both benchmarks; other finite numbers are kept as scores (pass^k then refuses them).
A duplicated (task, trial), a trial some task lacks, or a malformed record is refused in
one line naming the file, the record (or line) and the field.  Field names follow
sierra-research/tau-bench (``tau_bench/types.py: EnvRunResult``) and tau2-bench
(``src/tau2/data_model/simulation.py: Results, SimulationRun, RewardInfo``).
"""

from __future__ import annotations

import json
import os

import numpy as np

from pairboot.errors import InputError
from pairboot.inputs.labels import shown
from pairboot.io.common import parse_json_text, read_text_file
from pairboot.io.formats import file_stem
from pairboot.io.harness import Scores, trials_note
from pairboot.io.harness.records import json_number

__all__ = ["NAME", "OPTIONS", "detect", "read"]

NAME = "tau-bench"
OPTIONS = ("trials",)
"""``trials``: ``"mean"`` (a task's mean reward, the default) or ``"runs"`` (also every
trial's reward, for ``runs="samples"``)."""

_HEAD = 4096
"""Bytes of a file :func:`detect` looks at."""

_TAU_FIELDS = ("task_id", "trial", "reward")
_ID_DIGITS = 100
"""A numeric task id longer than this is refused (no benchmark numbers its tasks so)."""


def _head(path: str) -> str:
    with open(path, "rb") as f:
        return f.read(_HEAD).decode("utf-8", errors="replace")


def detect(path) -> bool:
    """True for a tau-bench results list (its first record has ``task_id``, ``trial``,
    ``reward`` and ``info`` or ``traj``) or a tau2-bench results file (``info``, ``tasks``
    and ``simulations`` at the top).  The slimmed JSON Lines form is not recognised (a
    plain table could look the same): give ``format="tau-bench"`` (``--from tau-bench``)."""
    path = os.fspath(path)
    if not os.path.isfile(path) or not path.lower().endswith(".json"):
        return False
    try:
        head = _head(path).lstrip()
    except OSError:
        return False
    if head.startswith("["):
        first = head[1:].lstrip()
        if not first.startswith("{"):
            return False
        return (all(f'"{f}"' in head for f in _TAU_FIELDS)
                and ('"info"' in head or '"traj"' in head))
    if head.startswith("{"):
        # (the whole file is parsed only when its head looks like tau2-bench's Results:
        # every JSON log passes through here when the format is detected)
        if '"simulations"' not in head and not ('"tasks"' in head and '"info"' in head):
            return False
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError, RecursionError):
            return False
        return (isinstance(data, dict) and isinstance(data.get("simulations"), list)
                and "info" in data and "tasks" in data)
    return False


# --- records -----------------------------------------------------------------------------


def _load(path: str) -> tuple[list[tuple[str, object]], str, str | None]:
    """The records with where each is (``record N`` or ``line N``), the shape read, and
    the system's name when the file gives one."""
    text = read_text_file(path)
    stripped = text.lstrip()
    if not stripped:
        raise InputError(f"{path}: the file is empty: no tau-bench records")
    if stripped[0] in "[{":
        if stripped[0] == "[":
            data = parse_json_text(text, path)
        else:
            try:
                data = parse_json_text(text, path)
            except InputError:
                data = None  # (JSON Lines: read below)
        if isinstance(data, list):
            return [(f"record {i + 1}", r) for i, r in enumerate(data)], "tau-bench results", None
        if isinstance(data, dict):
            if not isinstance(data.get("simulations"), list):
                raise InputError(f"{path}: a JSON object without a 'simulations' list: "
                                 "neither tau-bench nor tau2-bench results")
            return _tau2(path, data)
    records = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            records.append((f"line {number}", json.loads(line)))
        except (ValueError, RecursionError):
            raise InputError(f"{path}: line {number}: not a JSON record") from None
    return records, "tau-bench records (JSON Lines)", None


def _tau2(path: str, data: dict):
    """tau2-bench's simulations as tau-bench's records: ``reward_info.reward`` as ``reward``."""
    records = []
    for i, sim in enumerate(data["simulations"]):
        place = f"simulations[{i}]"
        if not isinstance(sim, dict):
            raise InputError(f"{path}: {place}: not a simulation object")
        info = sim.get("reward_info")
        if not isinstance(info, dict) or "reward" not in info:
            why = "is null (the simulation was not evaluated)" if info is None else \
                "has no 'reward'"
            raise InputError(f"{path}: {place} (task {shown(sim.get('task_id'))}, trial "
                             f"{shown(sim.get('trial'))}): field 'reward_info' {why}")
        records.append((place, {"task_id": sim.get("task_id"), "trial": sim.get("trial"),
                                "reward": info["reward"]}))
    agent = (data.get("info") or {}).get("agent_info") if isinstance(data.get("info"),
                                                                      dict) else None
    llm = agent.get("llm") if isinstance(agent, dict) else None
    return records, "tau2-bench results", llm if isinstance(llm, str) and llm else None


def _field(path: str, place: str, record: dict, name: str):
    if name not in record:
        raise InputError(f"{path}: {place}: no field {name!r}")
    return record[name]


def _task_id(path: str, place: str, value) -> tuple[str, tuple]:
    """The task id as text, and its sort key (numbers in numeric order, then text)."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise InputError(f"{path}: {place}: field 'task_id' is {shown(value)}, neither a "
                         "number nor text")
    if isinstance(value, int):
        if abs(value) >= 10**_ID_DIGITS:
            raise InputError(f"{path}: {place}: field 'task_id' has over {_ID_DIGITS} digits")
        return str(value), (0, value, "")
    if not value:
        raise InputError(f"{path}: {place}: field 'task_id' is empty")
    return value, (1, 0, value)


def _trial(path: str, place: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 10**6:
        raise InputError(f"{path}: {place}: field 'trial' is {shown(value)}, not a trial "
                         "number (0, 1, ...)")
    return value


def _table(path: str, records) -> tuple[list[str], list[int], np.ndarray]:
    """Task ids (sorted), trial numbers (sorted) and the tasks x trials rewards."""
    cells: dict[tuple[str, int], tuple[float, str]] = {}
    keys: dict[str, tuple] = {}
    for place, record in records:
        if not isinstance(record, dict):
            raise InputError(f"{path}: {place}: not a record object (with task_id, trial, "
                             "reward)")
        tid, key = _task_id(path, place, _field(path, place, record, "task_id"))
        trial = _trial(path, place, _field(path, place, record, "trial"))
        reward = json_number(path, place, "reward", _field(path, place, record, "reward"),
                             optional=False)
        if keys.setdefault(tid, key) != key:
            raise InputError(f"{path}: {place}: task ids {tid!r} (text) and {tid} (a number) "
                             "are both task " + tid + ": ids must differ as text")
        if (tid, trial) in cells:
            raise InputError(f"{path}: {place}: task {tid} trial {trial} appears twice "
                             f"(also {cells[tid, trial][1]}): field 'trial'")
        cells[tid, trial] = (reward, place)
    if not cells:
        raise InputError(f"{path}: no records: nothing to compare")
    ids = sorted(keys, key=keys.__getitem__)
    trials = sorted({t for _, t in cells})
    index = {t: j for j, t in enumerate(trials)}
    table = np.full((len(ids), len(trials)), np.nan)
    for i, tid in enumerate(ids):
        for t in trials:
            if (tid, t) not in cells:
                held = sorted(u for (v, u) in cells if v == tid)
                raise InputError(
                    f"{path}: task {tid} has no trial {t} (it has trials "
                    f"{', '.join(map(str, held))}; others have {len(trials)}): field "
                    "'trial'; every task needs the same trials")
            table[i, index[t]] = cells[tid, t][0]
    return ids, trials, table


# --- the reader --------------------------------------------------------------------------


def read(path, *, trials: str = "mean") -> Scores:
    """Read tau-bench results (a JSON list, or JSON Lines) or tau2-bench results into
    :class:`Scores` of one system: a task's mean reward over its trials, and with
    ``trials="runs"`` the tasks x trials rewards (``Scores.runs``).  The system is
    named by tau2-bench's ``info.agent_info.llm``, else by the file's name."""
    if trials not in ("mean", "runs"):
        raise InputError(f"`trials` must be 'mean' or 'runs', got {trials!r}", param="trials")
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise InputError(f"{path}: not a file (tau-bench results are one JSON file)")
    records, shape, system = _load(path)
    ids, numbers, table = _table(path, records)
    system = system or file_stem(path)
    values = table.mean(axis=1)
    binary = bool(np.isin(table, (0.0, 1.0)).all())
    notes = [f"{len(ids)} tasks x {len(numbers)} trials ({', '.join(map(str, numbers[:8]))}"
             f"{', ...' if len(numbers) > 8 else ''}) of {system} ({shape})",
             "reward: 0/1 per trial" if binary else
             "reward: not only 0 and 1, kept as scores (pass^k and the other k-trial "
             "metrics need 0/1 rewards)",
             trials_note(f"{len(numbers)} trials per task", trials == "runs")]
    return Scores(path=path, format=NAME, ids=np.array(ids, dtype=object),
                  systems={system: values}, score="reward", notes=tuple(notes),
                  runs={system: table} if trials == "runs" else None)

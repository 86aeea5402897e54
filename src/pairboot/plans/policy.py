"""A release gate's policy: its rows (:class:`Rule`) over metrics and tasks, and the
gate (:class:`Gate`) with its metrics, level and what an inconclusive verdict does, in
Python or read from a TOML file's ``[gate]`` table (:func:`read_gate`).  How a gate is
checked and decided: :mod:`pairboot.plans.gate`."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from pairboot.errors import InputError
from pairboot.metrics.joint import Criterion, criterion_of
from pairboot.plans.plan_file import read_toml

TESTS = ("non-inferior", "superior", "equivalent", "at-least", "upper-bound", "regressions")
"""What a rule claims: B not worse by more than its margin; B better (by its margin, 0
by default); ``|B - A|`` within the margin; B better on at least ``at_least`` of the
tasks; the system's rate below ``bound`` (its one-sided upper bound); the share of the
items A passed that B fails below ``bound``."""

@dataclass(frozen=True, slots=True)
class Rule:
    """One row of a gate.

    Parameters
    ----------
    metric : str
        A metric of the gate's ``metrics`` (its direction says which side is better).
    test : str
        One of :data:`TESTS`.
    margin : float, optional
        A size >= 0 on the metric's scale: how much worse B may be (non-inferior), must
        be better by (superior; default 0), or may differ by (equivalent).
    tasks : "each", sequence of str, or None
        None: the whole test set (stratified by task when there are tasks); "each" or a
        list: every one of those tasks must hold the claim (an intersection-union test:
        "no task worse by the margin"), or, for "at-least", the K tasks counted.
    at_least : int, optional
        For "at-least": u, the tasks of the K on which B must be shown better.
    bound : float, optional
        For "upper-bound" and "regressions": the rate the one-sided upper bound must be
        below (e.g. 0.01).
    system : "A" or "B"
        For "upper-bound": whose rate (default B, the candidate).
    require : "all" or "any"
        Must hold, or one of the rows of which any one suffices.
    name : str, optional
        The row's name in the reports (default: made from the rest).
    """

    metric: str
    test: str
    margin: float | None = None
    tasks: str | tuple[str, ...] | None = None
    at_least: int | None = None
    bound: float | None = None
    system: str = "B"
    require: str = "all"
    name: str | None = None

    def __post_init__(self) -> None:
        where = f"gate row {self.name or self.metric!r}"
        if self.test not in TESTS:
            raise InputError(f"{where}: test {self.test!r} is not one of "
                             f"{', '.join(TESTS)}", param="gate")
        if self.require not in ("all", "any"):
            raise InputError(f"{where}: require {self.require!r} must be 'all' or 'any'",
                             param="gate")
        if self.system not in ("A", "B"):
            raise InputError(f"{where}: system {self.system!r} must be 'A' or 'B'",
                             param="gate")
        for key in ("margin", "bound"):
            v = getattr(self, key)
            if v is None:
                continue
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise InputError(f"{where}: {key} must be a finite number, got {v!r}",
                                 param="gate")
            if v < 0:
                raise InputError(f"{where}: {key} {v:g} is negative: a {key} is a size "
                                 ">= 0 on the metric's scale (its direction already says "
                                 "which side is better)", param="gate")
            object.__setattr__(self, key, float(v))
        if self.test in ("non-inferior", "equivalent") and self.margin is None:
            raise InputError(f"{where}: a {self.test} row needs a margin", param="gate")
        if self.test in ("upper-bound", "regressions"):
            if self.bound is None:
                raise InputError(f"{where}: a {self.test} row needs a bound (the rate its "
                                 "upper bound must be below)", param="gate")
            if not 0.0 < self.bound < 1.0:
                raise InputError(f"{where}: bound {self.bound:g} must be a rate between "
                                 "0 and 1", param="gate")
            if self.tasks is not None:
                raise InputError(f"{where}: a {self.test} row is over the whole test set "
                                 "(no tasks)", param="gate")
        elif self.bound is not None:
            raise InputError(f"{where}: bound is for upper-bound and regressions rows; a "
                             f"{self.test} row takes a margin", param="gate")
        tasks = self.tasks
        if isinstance(tasks, str) and tasks != "each":
            tasks = (tasks,)
        if tasks is not None and not isinstance(tasks, str):
            tasks = tuple(str(t) for t in tasks)
            if not tasks:
                raise InputError(f"{where}: tasks is empty", param="gate")
        object.__setattr__(self, "tasks", tasks)
        if self.test == "at-least":
            if tasks is None:
                raise InputError(f"{where}: an at-least row counts tasks: give tasks "
                                 "('each' or a list)", param="gate")
            u = self.at_least
            if isinstance(u, bool) or not isinstance(u, int) or u < 1:
                raise InputError(f"{where}: at_least must be a whole number >= 1, got "
                                 f"{u!r}", param="gate")
        elif self.at_least is not None:
            raise InputError(f"{where}: at_least is for at-least rows", param="gate")

    @property
    def label(self) -> str:
        """The row's name, or one made from the rule."""
        if self.name:
            return self.name
        m = self.margin or 0.0
        size = {"non-inferior": f" by {m:g}", "equivalent": f" within +-{m:g}",
                "superior": f" by {m:g}" if m else ""}.get(self.test, "")
        if self.bound is not None:
            size = f" below {self.bound:g}"
        where = ("" if self.tasks is None else " on every task" if self.tasks == "each"
                 else f" on {', '.join(self.tasks)}")
        if self.test == "at-least":
            return f"{self.metric}: better on at least {self.at_least} task(s)" + (
                "" if self.tasks == "each" else f" of {', '.join(self.tasks)}")
        if self.test == "upper-bound":
            return f"{self.metric} of {self.system}: upper bound{size}"
        if self.test == "regressions":
            return f"{self.metric}: regressions{size}"
        return f"{self.metric}: {self.test}{size}{where}"


@dataclass(frozen=True)
class Gate:
    """A release policy: its metrics (by name: a metric's name, a :class:`Metric` or a
    :class:`~pairboot.Criterion` with its columns and direction), its rows, its level,
    and what an inconclusive verdict does to the exit status ("fail" by default: a gate
    that cannot decide does not let a release through)."""

    metrics: Mapping[str, object]
    rules: tuple[Rule, ...]
    confidence_level: float = 0.95
    inconclusive: str = "fail"
    source: str | None = None
    """The policy's text (a plan file's bytes, decoded) when read from one: its hash."""
    criteria: dict = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.metrics, Mapping) or not self.metrics:
            raise InputError("a gate needs its metrics: a mapping from a metric's name to "
                             "its metric or pairboot.Criterion", param="gate")
        criteria = {name: criterion_of(name, spec) for name, spec in self.metrics.items()}
        object.__setattr__(self, "criteria", criteria)
        rules = tuple(self.rules)
        if not rules:
            raise InputError("a gate needs at least one row", param="gate")
        for r in rules:
            if not isinstance(r, Rule):
                raise InputError(f"a gate's rows must be pairboot.Rule, got "
                                 f"{type(r).__name__}", param="gate")
            if r.metric not in criteria:
                raise InputError(f"gate row {r.label!r} names metric {r.metric!r}, which "
                                 f"is not among the gate's metrics ({', '.join(criteria)})",
                                 param="gate")
        labels = [r.label for r in rules]
        twice = sorted({x for x in labels if labels.count(x) > 1})
        if twice:
            raise InputError(f"gate row {twice[0]!r} is given twice", param="gate")
        _contradictions(rules, criteria)
        object.__setattr__(self, "rules", rules)
        level = self.confidence_level
        if isinstance(level, bool) or not isinstance(level, (int, float)) \
                or not 0.5 < float(level) < 1.0:
            raise InputError(f"a gate's confidence_level must be between 0.5 and 1, got "
                             f"{level!r}", param="gate")
        if self.inconclusive not in ("pass", "fail"):
            raise InputError(f"a gate's inconclusive must be 'pass' or 'fail', got "
                             f"{self.inconclusive!r}", param="gate")

    @property
    def sha256(self) -> str:
        """The policy's hash: of its file's text, or of its rows and metrics as JSON."""
        text = self.source
        if text is None:
            text = json.dumps({
                "metrics": {n: [str(getattr(c.metric, "name", c.metric)), c.columns,
                                c.lower_is_better] for n, c in self.criteria.items()},
                "rules": [[r.metric, r.test, r.margin, r.tasks, r.at_least, r.bound,
                           r.system, r.require, r.name] for r in self.rules],
                "confidence_level": self.confidence_level,
                "inconclusive": self.inconclusive}, sort_keys=True)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _contradictions(rules, criteria) -> None:
    """Rows no data can all pass: a metric required superior by more than another row's
    equivalence margin allows, on the same tasks."""
    for r in rules:
        for s in rules:
            if (r.metric == s.metric and r.tasks == s.tasks and r.require == s.require == "all"
                    and r.test == "superior" and s.test == "equivalent"
                    and (r.margin or 0.0) >= s.margin):
                raise InputError(f"gate rows {r.label!r} and {s.label!r} contradict each "
                                 f"other: B cannot be better by {r.margin or 0.0:g} and "
                                 f"within +-{s.margin:g}", param="gate")


# --------------------------------------------------------------------------- reading

def read_gate(path) -> Gate:
    """A gate from a TOML file's ``[gate]`` table (docs/gates.md)::

        [gate]
        confidence_level = 0.95
        inconclusive = "fail"
        [gate.metrics]
        correct = {}                                  # mean of the column, higher better
        cost = {lower_is_better = true}
        [[gate.rows]]
        metric = "correct"
        test = "non-inferior"
        margin = 0.005
        tasks = "each"
    """
    where, _, text, data = read_toml(path, "gate file", param="gate")
    table = data.get("gate")
    if not isinstance(table, dict):
        raise InputError(f"{where}: no [gate] table", param="gate")
    try:
        return gate_from_mapping(table, source=text)
    except InputError as exc:
        raise InputError(f"{where}: {exc}", param="gate") from None


_GATE_KEYS = {"metrics", "rows", "confidence_level", "inconclusive"}
_ROW_KEYS = {"metric", "test", "margin", "tasks", "at_least", "bound", "system", "require",
             "name"}
_METRIC_KEYS = {"metric", "columns", "lower_is_better"}


def gate_from_mapping(table: Mapping, *, source: str | None = None) -> Gate:
    """A gate from the ``[gate]`` table's mapping (keys as :func:`read_gate`'s)."""
    extra = sorted(set(table) - _GATE_KEYS)
    if extra:
        raise InputError(f"[gate] has an unknown key {extra[0]!r} (keys: "
                         f"{', '.join(sorted(_GATE_KEYS))})", param="gate")
    metrics = table.get("metrics")
    if not isinstance(metrics, Mapping) or not metrics:
        raise InputError("[gate.metrics] is missing: name every metric a row reads, e.g. "
                         "correct = {} and cost = {lower_is_better = true}", param="gate")
    criteria = {}
    for name, spec in metrics.items():
        if not isinstance(spec, Mapping):
            raise InputError(f"[gate.metrics] {name} must be a table, e.g. {{}} or "
                             "{lower_is_better = true}", param="gate")
        bad = sorted(set(spec) - _METRIC_KEYS)
        if bad:
            raise InputError(f"[gate.metrics] {name} has an unknown key {bad[0]!r} "
                             f"(keys: {', '.join(sorted(_METRIC_KEYS))})", param="gate")
        criteria[name] = Criterion(spec.get("metric", "mean"), columns=spec.get("columns"),
                                   lower_is_better=spec.get("lower_is_better", False))
    rows = table.get("rows")
    if not isinstance(rows, list) or not rows:
        raise InputError("[[gate.rows]] is missing: a gate needs at least one row",
                         param="gate")
    rules = []
    for k, row in enumerate(rows, 1):
        bad = sorted(set(row) - _ROW_KEYS)
        if bad:
            raise InputError(f"[[gate.rows]] number {k} has an unknown key {bad[0]!r} "
                             f"(keys: {', '.join(sorted(_ROW_KEYS))})", param="gate")
        for key in ("metric", "test"):
            if key not in row:
                raise InputError(f"[[gate.rows]] number {k} has no {key}", param="gate")
        tasks = row.get("tasks")
        rules.append(Rule(**{**row, "tasks": tuple(tasks) if isinstance(tasks, list)
                             else tasks}))
    return Gate(criteria, tuple(rules),
                confidence_level=table.get("confidence_level", 0.95),
                inconclusive=table.get("inconclusive", "fail"), source=source)

"""A plan file read and checked key by key (:func:`read_fields`), for
:mod:`pairboot.plans.plan`: every message names the file and the key, or the line when the
file is not TOML."""

from __future__ import annotations

import difflib
import hashlib
import json
import math
import numbers
import os
import re
import sys
from collections.abc import Mapping, Sequence
from types import MappingProxyType

from pairboot.errors import InputError
from pairboot.metrics.names import builtin_metrics
from pairboot.options import (
    ALTERNATIVES,
    CORRECTIONS,
    GROUP_WEIGHTINGS,
    HYPOTHESES,
    METHODS,
    hypothesis_sides,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # (Python 3.10 has no tomllib; tomli is the same parser)
    import tomli as tomllib

REQUIRED = ("systems", "metric", "confidence_level", "correction", "n_resamples", "seed")
"""The keys every plan states."""

OPTIONAL = ("baseline", "pairs", "method", "paired", "lower_is_better", "alternative",
            "hypothesis", "margin", "group", "group_weighting", "stratum", "stratum_weights")
"""The keys a plan may state; without them, the defaults of :func:`pairboot.compare_many`
(and without ``baseline`` and ``pairs``, all pairs)."""



def read_fields(path) -> tuple[str, str, dict]:
    """``(path as given, SHA-256 of the bytes, the checked keys)`` of a plan file."""
    where, raw, _, data = read_toml(path, "plan file")
    return where, hashlib.sha256(raw).hexdigest(), Checker(where, data).fields()


# --------------------------------------------------------------------------- reading


def read_toml(path, what: str, param: str | None = None) -> tuple[str, bytes, str, dict]:
    """``(path as given, its bytes, their text, the parsed TOML)`` of the file at
    ``path``; one that cannot be read (named as ``what`` and the path), is not UTF-8 or
    is not TOML (the line and column where it stops being) is one line naming it, the
    :class:`InputError`'s ``param`` being ``param``."""
    where = os.fspath(path)
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as exc:
        raise InputError(f"{what} {where}: cannot be read ({exc.strerror or exc})",
                         param=param) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{where}: not UTF-8 text (byte {exc.start})", param=param) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{where}{_toml_error(exc, text)}", param=param) from None
    return where, raw, text, data


def _toml_error(exc: Exception, text: str) -> str:
    """", line L, column C: not valid TOML: ..." from tomllib's message."""
    message = str(exc)
    found = re.search(r"\s*\(at line (\d+), column (\d+)\)$", message)
    if found:
        reason = message[:found.start()]
        place = f", line {found[1]}, column {found[2]}"
    elif message.endswith("(at end of document)"):
        reason = message[:-len("(at end of document)")].rstrip()
        place = f", line {max(1, len(text.splitlines()))} (the end)"
    else:
        reason, place = message, ""
    reason = reason[:1].lower() + reason[1:]
    return f"{place}: not valid TOML: {reason}"


class Checker:
    """The keys of one plan file, checked one by one with messages naming the key."""

    def __init__(self, where: str, data: dict) -> None:
        self.where = where
        self.data = data

    def fail(self, key: str, problem: str):
        raise InputError(f"{self.where}: key {key!r}: {problem}")

    def fields(self) -> dict:
        d = self.data
        known = REQUIRED + OPTIONAL
        for key in d:
            if key not in known:
                close = difflib.get_close_matches(key, known, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else (
                    f" (the keys: {', '.join(known)})")
                self.fail(key, f"not a plan key{hint}")
        for key in REQUIRED:
            if key not in d:
                raise InputError(f"{self.where}: key {key!r} is missing: a plan states "
                                 f"{', '.join(REQUIRED)}")
        out: dict = {}
        systems = out["systems"] = self.systems()
        if "baseline" in d and "pairs" in d:
            self.fail("pairs", "give 'baseline' or 'pairs', not both")
        if "baseline" in d:
            baseline = self.text("baseline")
            if baseline not in systems:
                self.fail("baseline", f"{baseline!r} is not one of the systems "
                                      f"({', '.join(systems)})")
            out["baseline"] = baseline
        if "pairs" in d:
            out["pairs"] = self.pairs(systems)
        out["metric"] = self.metric()
        out["confidence_level"] = self.level()
        out["correction"] = self.choice("correction", CORRECTIONS)
        out["n_resamples"] = self.integer("n_resamples", 1, "a positive integer")
        out["seed"] = self.integer("seed", 0, "a non-negative integer")
        if "method" in d:
            out["method"] = self.choice("method", METHODS)
        for key in ("paired", "lower_is_better"):
            if key in d:
                if not isinstance(d[key], bool):
                    self.fail(key, f"must be true or false, got {toml_text(d[key])}")
                out[key] = d[key]
        if "alternative" in d:
            out["alternative"] = self.choice("alternative", ALTERNATIVES)
        if "hypothesis" in d:
            out["hypothesis"] = self.choice("hypothesis", HYPOTHESES)
        if "margin" in d:
            out["margin"] = self.margin(family_of(systems, out.get("baseline"),
                                                out.get("pairs")))
        try:
            hypothesis_sides(out.get("hypothesis", "difference"), out.get("margin"),
                             out.get("alternative", "two-sided"),
                             out.get("lower_is_better", False), out["confidence_level"])
        except InputError as exc:
            self.fail(exc.param if exc.param in d else "hypothesis", str(exc))
        for key in ("group", "stratum"):
            if key in d:
                out[key] = self.text(key)
        if "group_weighting" in d:
            if "group" not in d:
                self.fail("group_weighting", "given without 'group' (the column of "
                                             "group labels)")
            out["group_weighting"] = self.choice("group_weighting", GROUP_WEIGHTINGS)
        if "stratum_weights" in d:
            if "stratum" not in d:
                self.fail("stratum_weights", "given without 'stratum' (the column of "
                                             "stratum labels)")
            out["stratum_weights"] = self.weights()
        return out

    def text(self, key: str) -> str:
        value = self.data[key]
        if not isinstance(value, str) or not value:
            self.fail(key, f"must be a non-empty string, got {toml_text(value)}")
        return value

    def choice(self, key: str, options: Sequence[str]) -> str:
        value = self.data[key]
        if value not in options:
            self.fail(key, f"must be one of {', '.join(options)}, got {toml_text(value)}")
        return value

    def integer(self, key: str, low: int, what: str) -> int:
        value = self.data[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            self.fail(key, f"must be {what}, got {toml_text(value)}")
        return value

    def level(self) -> float:
        value = self.data["confidence_level"]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            self.fail("confidence_level", f"must be a number, got {toml_text(value)}")
        if not 0.0 < value < 1.0:
            self.fail("confidence_level", f"must be between 0 and 1, got {toml_text(value)}")
        return float(value)

    def systems(self) -> tuple[str, ...]:
        value = self.data["systems"]
        if not isinstance(value, list) or not all(isinstance(s, str) and s for s in value):
            self.fail("systems", f"must be a list of system names, got {toml_text(value)}")
        if len(value) < 2:
            self.fail("systems", f"must name at least two systems, got {toml_text(value)}")
        for s in value:
            if value.count(s) > 1:
                self.fail("systems", f"names {s!r} twice")
        return tuple(value)

    def pairs(self, systems: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
        value = self.data["pairs"]
        if not isinstance(value, list):
            self.fail("pairs", f"must be a list of pairs [a, b], got {toml_text(value)}")
        if not value:
            self.fail("pairs", "empty; leave it out for all pairs")
        out: list[tuple[str, str]] = []
        for pair in value:
            if not (isinstance(pair, list) and len(pair) == 2
                    and all(isinstance(s, str) for s in pair)):
                self.fail("pairs", f"{toml_text(pair)} must be a pair of system names")
            for s in pair:
                if s not in systems:
                    self.fail("pairs", f"{toml_text(pair)}: {s!r} is not one of the systems "
                                       f"({', '.join(systems)})")
            a, b = pair
            if a == b:
                self.fail("pairs", f"{toml_text(pair)} compares a system with itself")
            if (a, b) in out or (b, a) in out:
                self.fail("pairs", f"{toml_text(pair)} is in the family twice")
            out.append((a, b))
        return tuple(out)

    def metric(self) -> str:
        value = self.text("metric")
        if ":" not in value:
            if metric_key(value) not in builtin_metrics():
                self.fail("metric", f"unknown metric {value!r}; choose one of "
                                    f"{', '.join(builtin_metrics())}, FILE.py:NAME or "
                                    "MODULE:NAME")
            return value
        where, _, name = value.rpartition(":")
        if not where or not name:
            self.fail("metric", f"must be a metric's name, FILE.py:NAME or MODULE:NAME, "
                                f"got {value!r}")
        if is_file(where):
            file = os.path.join(os.path.dirname(self.where), where)
            if not os.path.isfile(file):
                self.fail("metric", f"metric file {file} does not exist (a FILE.py is "
                                    "relative to the plan's folder)")
        return value

    def margin(self, comparisons) -> float | Mapping[tuple[str, str], float]:
        """One margin, or a table ``"b - a" = margin`` naming every comparison."""
        value = self.data["margin"]

        def number(v, what: str) -> float:
            if (isinstance(v, bool) or not isinstance(v, numbers.Real)
                    or not math.isfinite(v) or v < 0):
                self.fail("margin", f"{what} must be a finite number >= 0, got {toml_text(v)}")
            return float(v)

        if not isinstance(value, dict):
            return number(value, "the margin")
        names = {f"{b} - {a}": (a, b) for a, b in comparisons}
        for key in value:
            if key not in names:
                self.fail("margin", f"{key!r} is not a comparison of the plan (the "
                                    f"comparisons: {', '.join(names)})")
        missing = [k for k in names if k not in value]
        if missing:
            self.fail("margin", f"no margin for {missing[0]!r}: give every comparison one, "
                                "or one number for all")
        return MappingProxyType({names[k]: number(v, f"the margin of {k!r}")
                                 for k, v in value.items()})

    def weights(self) -> Mapping[str, float]:
        value = self.data["stratum_weights"]
        if not isinstance(value, dict) or not value:
            self.fail("stratum_weights", "must be a table of stratum = weight, got "
                                         f"{toml_text(value)}")
        for label, w in value.items():
            if (isinstance(w, bool) or not isinstance(w, numbers.Real)
                    or not math.isfinite(w) or w <= 0):
                self.fail("stratum_weights", f"the weight of stratum {label!r} must be a "
                                             f"positive number, got {toml_text(w)}")
        return MappingProxyType({label: float(w) for label, w in value.items()})


# --------------------------------------------------------------------------- helpers


def family_of(systems: Sequence[str], baseline, pairs, *, asked: str = "`pairs`"
            ) -> tuple[tuple[str, str], ...]:
    """The comparisons (a, b) of a family, as :func:`pairboot.compare_many` orders them."""
    if baseline is not None:
        if baseline not in systems:
            raise InputError(f"`baseline` {baseline!r} is not one of the systems "
                             f"({', '.join(systems)})", param="baseline")
        return tuple((baseline, s) for s in systems if s != baseline)
    if pairs is None:
        return tuple((a, b) for i, a in enumerate(systems) for b in systems[i + 1:])
    out = []
    for pair in pairs:
        if isinstance(pair, str) or len(pair) != 2:
            raise InputError(f"{asked}: {pair!r} must be a pair of system names",
                             param="pairs")
        out.append((str(pair[0]), str(pair[1])))
    return tuple(out)


def is_file(where: str) -> bool:
    """Whether a metric's ``where`` (before the ``:``) is a file rather than a module."""
    return where.endswith(".py") or os.sep in where or "/" in where


def metric_key(name: str) -> str:
    return name.strip().lower().replace("-", "_")



def toml_text(value) -> str:
    """``value`` as TOML writes it (for messages)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_text(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{json.dumps(_key(k))} = {toml_text(v)}"
                               for k, v in value.items()) + "}"
    return repr(value)


def _key(key) -> str:
    """A table's key as a plan writes it: a comparison ``(a, b)`` as ``"b - a"``."""
    return f"{key[1]} - {key[0]}" if isinstance(key, tuple) else str(key)

"""Preference data: battles of two systems on one prompt, read from the public formats.

A battle is one verdict of a judge on the answers of two systems to one prompt: the
system shown first (``a``), the one shown second (``b``), the verdict as ``a``'s share
of the win (1 ``a`` wins, 0 ``b`` wins, 0.5 a tie, or a fraction for a judge's
probability), a weight (a graded verdict ``A>>B`` may count several times) and the game
(0 the first judging, 1 the same pair judged again with the answers swapped, -1 not
known).  :class:`Battles` holds them; :func:`read` reads one of :data:`FORMATS`:

- ``arena-hard``: arena-hard-auto judgments (``model_judgment/<judge>/<model>.jsonl``,
  rows ``{"question_id", "model", "games": [{"score": "A>>B"}, ...]}``), a file or a
  folder of them; game 1 shows the baseline first, game 2 the model first (its
  ``gen_judgment.py``), so the baseline must be named;
- ``arena``: Chatbot Arena battle tables (``model_a``, ``model_b``, ``winner`` in
  ``model_a``, ``model_b``, ``tie``, ``tie (bothbad)``, and ``question_id`` when there);
- ``alpaca-eval``: AlpacaEval annotations (``annotations.json``: ``instruction``,
  ``generator_1``, ``generator_2``, ``preference`` in [1, 2], 2 = generator_2 wins);
- ``table``: any table with a prompt, two systems and a verdict (and a game) column.

These are not per-item scores of each system, so they are not a reader of
:mod:`pairboot.io.harness` (whose ``Scores`` hold one value per item and system): a
battle belongs to a pair.  Rows a format marks as not judged (a verdict of ``null``) and
a system judged against itself are kept out, and each such exclusion is a note.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from pairboot.errors import InputError
from pairboot.inputs.labels import shown
from pairboot.io.common import load_json_file

__all__ = ["Battles", "FORMATS", "GRADES", "battles_from_columns", "detect", "read",
           "verdict_share"]

FORMATS = ("arena-hard", "arena", "alpaca-eval", "table")
"""The formats :func:`read` knows (``--from``)."""

GRADES = {"A>>B": (1.0, True), "A>B": (1.0, False), "A=B": (0.5, False),
          "B>A": (0.0, False), "B>>A": (0.0, True)}
"""A graded verdict -> (the first system's share, strong): arena-hard's labels."""

STRONG_WEIGHT = 3.0
"""arena-hard-auto's weight of a strong verdict (``A>>B`` counts three times: its
``show_result.py``, ``WEIGHT = 3``)."""

_WORDS = {"a": 1.0, "b": 0.0, "tie": 0.5, "model_a": 1.0, "model_b": 0.0,
          "tie (bothbad)": 0.5, "both_bad": 0.5, "draw": 0.5}


@dataclass(frozen=True)
class Battles:
    """Battles of pairs of systems on prompts, one per row (see the module's words).

    Attributes
    ----------
    prompts, a, b : ndarray of str
        The prompt's id, the system shown first, the system shown second.
    outcome : ndarray of float
        ``a``'s share of the win, in [0, 1].
    weight : ndarray of float
        How many battles the row counts as (a strong graded verdict may count more).
    game : ndarray of int
        0 the first judging, 1 the swapped one, -1 not known.
    source, notes : what was read, and what was kept out and why.
    """

    prompts: np.ndarray
    a: np.ndarray
    b: np.ndarray
    outcome: np.ndarray
    weight: np.ndarray
    game: np.ndarray
    source: str = ""
    notes: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        n = len(self.prompts)
        for name in ("a", "b", "outcome", "weight", "game"):
            if len(getattr(self, name)) != n:
                raise ValueError(f"{name}: {len(getattr(self, name))} values for {n} battles")

    @property
    def n_battles(self) -> int:
        return len(self.prompts)

    @property
    def systems(self) -> tuple[str, ...]:
        """Every system, in order of first appearance."""
        return tuple(dict.fromkeys(x for pair in zip(self.a, self.b) for x in pair))

    def to_frame(self):
        """One row per battle, as a pandas DataFrame (needs pandas)."""
        import pandas as pd

        return pd.DataFrame({"prompt": self.prompts, "a": self.a, "b": self.b,
                             "outcome": self.outcome, "weight": self.weight,
                             "game": self.game})


def verdict_share(value, where: str, *, strong_weight: float = 1.0) -> tuple[float, float]:
    """``(a's share, weight)`` of one verdict: ``A``/``B``/``tie`` (and Chatbot Arena's
    ``model_a``, ...), a graded label (``A>>B`` ... ``B>>A``, the strong ones weighing
    ``strong_weight``), or a number in [0, 1].  ``where`` names the place in errors."""
    if isinstance(value, str):
        text = value.strip()
        if text in GRADES:
            share, strong = GRADES[text]
            return share, (strong_weight if strong else 1.0)
        if text.lower() in _WORDS:
            return _WORDS[text.lower()], 1.0
        try:
            value = float(text)
        except ValueError:
            raise InputError(f"{where}: verdict {shown(value)} is not A, B, tie, a graded "
                             "label (A>>B, A>B, A=B, B>A, B>>A) or a number in [0, 1]"
                             ) from None
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise InputError(f"{where}: verdict {shown(value)} is not A, B, tie or a number")
    v = float(value)
    if not (0.0 <= v <= 1.0):  # (NaN too)
        raise InputError(f"{where}: verdict {v:g} is not in [0, 1]")
    return v, 1.0


def battles_from_columns(prompts, a, b, verdicts, *, game=None, weight=None,
                         strong_weight: float = 1.0, source: str = "") -> Battles:
    """Battles from columns (a DataFrame's, a mapping's): each verdict read by
    :func:`verdict_share`; ``game`` 0/1 (or None: not known); ``weight`` >= 0 times
    the verdict's own weight.  Errors name the row (0-based)."""
    n = len(prompts)
    for name, col in (("a", a), ("b", b), ("verdicts", verdicts)):
        if len(col) != n:
            raise InputError(f"`{name}` has {len(col)} values for {n} prompts", param=name)
    out = np.empty(n)
    w = np.empty(n)
    for i, v in enumerate(verdicts):
        out[i], w[i] = verdict_share(v, f"row {i}", strong_weight=strong_weight)
    if weight is not None:
        given = np.asarray(weight, dtype=np.float64)
        if given.shape != (n,) or not np.all(np.isfinite(given)) or np.any(given < 0):
            raise InputError("`weight` must be one finite number >= 0 per battle",
                             param="weight")
        w = w * given
    if game is None:
        g = np.full(n, -1, dtype=np.int64)
    else:
        g = np.asarray([-1 if x is None or (isinstance(x, float) and math.isnan(x)) else x
                        for x in game], dtype=object)
        if len(g) != n or any(x not in (-1, 0, 1) for x in g):
            raise InputError("`game` must be 0 (first judging), 1 (swapped) or None per "
                             "battle", param="game")
        g = g.astype(np.int64)
    return Battles(_text(prompts), _text(a), _text(b), out, w, g, source)


def _text(values) -> np.ndarray:
    return np.asarray([str(v) for v in values], dtype=object)


def _rows_of_jsonl(path: str) -> list[tuple[int, dict]]:
    rows = []
    try:
        with open(path, encoding="utf-8") as f:
            for line_no, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except ValueError as exc:
                    raise InputError(f"{path}: line {line_no}: not JSON ({exc.msg})") from None
                if not isinstance(record, dict):
                    raise InputError(f"{path}: line {line_no}: not a JSON object")
                rows.append((line_no, record))
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return rows


def _head(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return f.read(4096).decode("utf-8", errors="replace")
    except OSError:
        return ""


def _files(path: str, ext: str) -> list[str]:
    if os.path.isdir(path):
        found = sorted(os.path.join(path, f) for f in os.listdir(path) if f.endswith(ext))
        if not found:
            raise InputError(f"{path}: a folder with no {ext} file")
        return found
    return [path]


def detect(path) -> str | None:
    """The format of ``path`` when its first record leaves no doubt, else None (a
    folder: the format of its first ``.jsonl`` file)."""
    path = os.fspath(path)
    if os.path.isdir(path):
        inner = sorted(f for f in os.listdir(path) if f.endswith(".jsonl"))
        return detect(os.path.join(path, inner[0])) if inner else None
    head = _head(path)
    if '"games"' in head and '"question_id"' in head:
        return "arena-hard"
    if '"generator_1"' in head and '"preference"' in head:
        return "alpaca-eval"
    first = head.splitlines()[0] if head else ""
    if all(k in first for k in ("model_a", "model_b", "winner")):
        return "arena"
    return None


def read(paths, format: str | None = None, *, baseline: str | None = None,
         strong_weight: float | None = None, columns: dict | None = None) -> Battles:
    """The battles of one or more files of one format (detected when not given).

    ``baseline``: arena-hard's, which its files do not name.  ``strong_weight``: what a
    strong graded verdict counts (arena-hard's 3 by default there, 1 elsewhere).
    ``columns``: the ``table`` format's column names, among ``prompt``, ``a``, ``b``,
    ``verdict``, ``game``, ``weight`` (default: those names).
    """
    paths = [os.fspath(p) for p in ([paths] if isinstance(paths, (str, os.PathLike))
                                    else paths)]
    if not paths:
        raise InputError("no file of battles given", param="paths")
    if format is None:
        found = {p: detect(p) or "table" for p in paths}
        kinds = set(found.values())
        if len(kinds) > 1:
            raise InputError("the files are of different formats: " + ", ".join(
                f"{p} ({k})" for p, k in found.items()) + "; give one format",
                param="format")
        format = kinds.pop()
    if format not in FORMATS:
        raise InputError(f"`format` must be one of {', '.join(FORMATS)}, got {format!r}",
                         param="format")
    if columns and format != "table":
        raise InputError(f"`columns` name the columns of the table format only, not of "
                         f"{format}'s files", param="columns")
    if strong_weight is None:
        strong_weight = STRONG_WEIGHT if format == "arena-hard" else 1.0
    if not (isinstance(strong_weight, (int, float)) and math.isfinite(strong_weight)
            and strong_weight > 0):
        raise InputError(f"`strong_weight` must be a number > 0, got {strong_weight!r}",
                         param="strong_weight")
    parts = []
    for path in paths:
        if format == "arena-hard":
            parts.append(_arena_hard(path, baseline, float(strong_weight)))
        elif format == "alpaca-eval":
            parts.append(_alpaca_eval(path))
        elif format == "arena":
            parts.append(_table(path, {"prompt": "question_id", "a": "model_a",
                                       "b": "model_b", "verdict": "winner"},
                                float(strong_weight), arena=True))
        else:
            parts.append(_table(path, columns or {}, float(strong_weight)))
    return _joined(parts, format)


def _joined(parts: list[tuple[list, list]], format: str) -> Battles:
    rows = [r for rs, _ in parts for r in rs]
    notes = [n for _, ns in parts for n in ns]
    if not rows:
        raise InputError("no battle in the files" + (f" ({'; '.join(notes)})" if notes
                                                     else ""))
    prompts, a, b, out, w, g = zip(*rows)
    battles = Battles(np.asarray(prompts, dtype=object), np.asarray(a, dtype=object),
                      np.asarray(b, dtype=object), np.asarray(out, dtype=np.float64),
                      np.asarray(w, dtype=np.float64), np.asarray(g, dtype=np.int64),
                      format, ())
    said = (f"{battles.n_battles:,} battles of {len(battles.systems)} systems on "
            f"{len(set(battles.prompts)):,} prompts ({format})")
    return Battles(battles.prompts, battles.a, battles.b, battles.outcome, battles.weight,
                   battles.game, format, (said, *_counted(notes)))


def _counted(notes: list[str]) -> list[str]:
    """Repeated notes once, with how many files said them."""
    return [n if k == 1 else f"{n} (x{k})" for n, k in Counter(notes).items()]


def _arena_hard(path: str, baseline: str | None, strong: float):
    if baseline is None:
        raise InputError(f"{path}: arena-hard judgments do not name the baseline the "
                         "models were judged against: give `baseline`", param="baseline")
    rows, notes = [], []
    unjudged = 0
    for file in _files(path, ".jsonl"):
        for line_no, rec in _rows_of_jsonl(file):
            where = f"{file}: line {line_no}"
            qid, model, games = rec.get("question_id"), rec.get("model"), rec.get("games")
            if qid is None or model is None or not isinstance(games, list):
                raise InputError(f"{where}: an arena-hard judgment has question_id, model "
                                 "and a list of games")
            if str(model) == baseline:
                notes.append(f"{os.path.basename(file)}: the baseline judged against "
                             "itself, kept out")
                break
            if len(games) > 2:
                raise InputError(f"{where}: {len(games)} games; arena-hard has two (the "
                                 "second with the answers swapped)")
            for k, game in enumerate(games):
                score = game.get("score") if isinstance(game, dict) else None
                if score is None:
                    unjudged += 1
                    continue
                share, w = verdict_share(score, f"{where}: game {k + 1}",
                                         strong_weight=strong)
                first, second = (baseline, str(model)) if k == 0 else (str(model), baseline)
                rows.append((str(qid), first, second, share, w, k))
    if unjudged:
        notes.append(f"{path}: {unjudged} game(s) with no verdict (score null), kept out")
    return rows, notes


def _alpaca_eval(path: str):
    data = load_json_file(path)
    if not isinstance(data, list):
        raise InputError(f"{path}: AlpacaEval annotations are a JSON list of records")
    rows, unjudged = [], 0
    for k, rec in enumerate(data):
        where = f"{path}: record {k + 1}"
        if not isinstance(rec, dict) or not all(
                key in rec for key in ("instruction", "generator_1", "generator_2")):
            raise InputError(f"{where}: an annotation has instruction, generator_1, "
                             "generator_2 and preference")
        p = rec.get("preference")
        if p is None or (isinstance(p, float) and math.isnan(p)):
            unjudged += 1
            continue
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 1.0 <= p <= 2.0:
            raise InputError(f"{where}: preference {shown(p)} is not a number in [1, 2]")
        rows.append((str(rec["instruction"]), str(rec["generator_1"]),
                     str(rec["generator_2"]), 2.0 - float(p), 1.0, -1))
    notes = [f"{path}: {unjudged} record(s) with no preference, kept out"] if unjudged else []
    return rows, notes


def _table(path: str, names: dict, strong: float, arena: bool = False):
    from pairboot.io.tables import read_table

    table = read_table(path)
    col = {key: names.get(key, key) for key in ("prompt", "a", "b", "verdict", "game",
                                                "weight")}
    table.check_columns([col["a"], col["b"], col["verdict"]])
    notes = []
    if col["prompt"] in table.columns:
        prompts = [str(p) for p in table.column(col["prompt"])]
    elif arena:
        prompts = [f"battle {table.where(i)}" for i in range(table.n_rows)]
        notes.append(f"{path}: no {col['prompt']!r} column: each battle is its own prompt")
    else:
        table.column(col["prompt"])  # (its error)
    a, b = table.column(col["a"]), table.column(col["b"])
    verdicts = table.column(col["verdict"])
    games = table.column(col["game"]) if col["game"] in table.columns else None
    weights = table.column(col["weight"]) if col["weight"] in table.columns else None
    rows, same = [], 0
    for i in range(table.n_rows):
        where = f"{path}: {table.where(i)}"
        if a[i] is None or b[i] is None or str(a[i]) == "" or str(b[i]) == "":
            raise InputError(f"{where}: a battle names both systems")
        if str(a[i]) == str(b[i]):
            same += 1
            continue
        share, w = verdict_share(verdicts[i], where, strong_weight=strong)
        g = -1
        if games is not None and games[i] not in (None, ""):
            g = _game(games[i], where)
        if weights is not None:
            w *= _weight(weights[i], where)
        rows.append((prompts[i], str(a[i]), str(b[i]), share, w, g))
    if same:
        notes.append(f"{path}: {same} battle(s) of a system against itself, kept out")
    return rows, notes


def _game(value, where: str) -> int:
    text = str(value).strip()
    if re.fullmatch(r"[01](\.0)?", text):
        return int(float(text))
    raise InputError(f"{where}: game {shown(value)} is not 0 (first judging) or 1 (swapped)")


def _weight(value, where: str) -> float:
    try:
        w = float(value)
    except (TypeError, ValueError):
        w = math.nan
    if not (math.isfinite(w) and w >= 0):
        raise InputError(f"{where}: weight {shown(value)} is not a number >= 0")
    return w

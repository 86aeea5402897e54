"""trec_eval ``-q`` and ir_measures per-query output: one run's score per query.

``trec_eval -q`` writes ``measure<TAB>qid<TAB>value`` with the measure padded with spaces
(``map                   <TAB>301<TAB>0.0324``); ``ir_measures ... -q`` writes
``qid<TAB>measure<TAB>value`` (``301<TAB>nDCG@10<TAB>0.6251``), or with ``-o jsonl`` an
object ``{"query_id", "measure", "value"}`` a line.  Both end with ``all`` rows, the
mean over the queries: they are not queries, so they are skipped and the notes say how
many.  One file is one run, one system, named by trec_eval's ``runid`` row when there is
one and by the file's stem otherwise; a query scored twice for a measure is refused.

``score`` chooses the measure by its name in the file, or by the other tool's name for
it: ``P@10`` finds trec_eval's ``P_10``, ``AP`` finds ``map`` and ``nDCG@10``
``ndcg_cut_10`` (and the other way round).  A file of one measure needs no ``score``.
"""

from __future__ import annotations

import json
import os
import re

import numpy as np

from pairboot.errors import InputError
from pairboot.io.columns import to_number
from pairboot.io.guards import json_value_problem, too_deep
from pairboot.io.harness import Scores

NAME = "trec"
OPTIONS = ("score",)

SUMMARY = "all"
"""The query id of the summary rows (the mean over queries), skipped."""

_IR_TO_TREC = {
    "AP": "map", "RR": "recip_rank", "nDCG": "ndcg", "Rprec": "Rprec", "Bpref": "bpref",
    "NumRet": "num_ret", "NumRel": "num_rel", "NumQ": "num_q", "infAP": "infAP",
    "SetP": "set_P", "SetR": "set_recall", "SetF": "set_F", "SetAP": "set_map",
    "NumRet(rel=1)": "num_rel_ret", "Judged": "judged",
}
"""ir_measures' names of trec_eval's measures without a cutoff."""

_IR_AT = {
    "P": "P", "R": "recall", "nDCG": "ndcg_cut", "AP": "map_cut", "Success": "success",
    "SetP": "set_P", "Judged": "judged",
}
"""ir_measures' ``NAME@k`` -> trec_eval's ``name_k``."""

_TREC_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.]*")
_IR_MEASURE = re.compile(r"[A-Za-z][A-Za-z0-9]*(\(.*\))?(@[0-9.]+)?")
_JSON_KEYS = {"query_id", "measure", "value"}


def canonical(name: str) -> str:
    """A measure's trec_eval name: ``P@10`` and ``P.10`` -> ``P_10``, ``AP`` -> ``map``."""
    name = name.strip()
    if name in _IR_TO_TREC:
        return _IR_TO_TREC[name]
    at = re.fullmatch(r"([A-Za-z]+)@(\d+)", name)
    if at:
        return f"{_IR_AT.get(at[1], at[1])}_{at[2]}"
    dotted = re.fullmatch(r"([A-Za-z_]+)\.(\d+)", name)  # trec_eval's -m P.10
    if dotted:
        return f"{dotted[1]}_{dotted[2]}"
    return name


# ---------------------------------------------------------------------------- detect


def detect(path) -> bool:
    """Whether ``path`` is a file of trec_eval or ir_measures per-query rows: every one
    of its first lines three tab-separated fields (or an ir_measures JSON object), with
    a sign of either tool (a padded measure, an ``all`` or ``runid`` row, a measure
    written as ir_measures writes it)."""
    try:
        if not os.path.isfile(path):
            return False
        with open(path, "rb") as f:
            head = f.read(65536)
        text = head.decode("utf-8")
    except (OSError, UnicodeDecodeError, TypeError, ValueError):
        return False
    lines = text.splitlines()
    if len(head) == 65536 and lines:
        lines = lines[:-1]  # the last may be cut
    lines = [line for line in lines if line.strip()][:50]
    if not lines:
        return False
    if lines[0].lstrip().startswith("{"):
        try:
            records = [json.loads(line) for line in lines]
        except (ValueError, RecursionError):
            return False
        return all(isinstance(r, dict) and set(r) == _JSON_KEYS for r in records)
    trec = ir = False
    for line in lines:
        fields = line.split("\t")
        if len(fields) != 3:
            return False
        first, second, value = (f.strip() for f in fields)
        if not first or not second or " " in first or " " in second:
            return False
        if to_number(value)[1] is not None and first not in ("runid", "relstring"):
            return False
        trec |= (fields[0] != first and bool(_TREC_NAME.fullmatch(first))) or \
            second == SUMMARY or first == "runid"
        ir |= first == SUMMARY or "@" in second or second in _IR_TO_TREC
    return trec != ir


# ------------------------------------------------------------------------------ read


def read(path, *, score: str | None = None) -> Scores:
    """One run's per-query values of measure ``score`` (see the module's docstring)."""
    path = os.fspath(path)
    rows, tool = _rows(path)
    runid = None
    by_measure: dict[str, dict[str, tuple[int, str]]] = {}
    summaries: dict[str, int] = {}
    seen: dict[tuple[str, str], int] = {}
    for line, measure, qid, value in rows:
        earlier = seen.get((measure, qid))
        if earlier is not None:
            raise InputError(
                f"{path}: line {line}: a second {measure!r} value for query {qid!r} (the "
                f"first is on line {earlier}); a file holds one run, each query once")
        seen[(measure, qid)] = line
        if qid == SUMMARY:
            summaries[measure] = line
            if measure == "runid":
                runid = value
            continue
        by_measure.setdefault(measure, {})[qid] = (line, value)
    if not by_measure:
        raise InputError(f"{path}: no per-query rows, only 'all' summaries: run "
                         f"{'trec_eval' if tool == 'trec_eval' else 'ir_measures'} with -q")
    measure, asked = _choose(path, list(by_measure),
                             [m for m in summaries if m not in by_measure], score)
    if measure not in by_measure:
        raise InputError(f"{path}: measure {measure!r} has only its 'all' summary row, no "
                         "per-query values: run the tool with -q", param="score")
    chosen = by_measure[measure]
    values = np.empty(len(chosen), dtype=np.float64)
    for i, (qid, (line, text)) in enumerate(chosen.items()):
        number, problem = to_number(text)
        if problem is not None:
            raise InputError(f"{path}: line {line}: measure {measure!r}, query {qid!r}: "
                             f"{problem}")
        values[i] = number
    name = runid or _stem(path)
    notes = [f"{path}: {tool} per-query output of run {name!r}: measure {measure!r}"
             + (f" (asked as {asked!r})" if asked != measure else "")
             + f", {len(chosen):,} queries"]
    if summaries:
        notes.append(f"{path}: skipped {len(summaries):,} 'all' row(s), the summaries "
                     "over queries (not queries)")
    others = sorted({q for m in by_measure.values() for q in m} - set(chosen))
    if others:
        notes.append(f"{path}: {len(others):,} query id(s) have other measures but no "
                     f"{measure!r}, not read (e.g. {', '.join(map(repr, others[:3]))})")
    return Scores(path=path, format=NAME, ids=np.array(list(chosen), dtype=object),
                  systems={name: values}, score=measure, metric="mean", notes=tuple(notes))


def _stem(path: str) -> str:
    base = os.path.basename(path)
    stem, ext = os.path.splitext(base)
    return stem or base


def _choose(path: str, measures: list[str], summary_only: list[str],
            score: str | None) -> tuple[str, str]:
    """The measure to read (among ``measures``, those with per-query rows, and
    ``summary_only``, whose reading then fails), and the name it was asked by."""
    listed = ", ".join(measures)
    if score is None:
        numeric = [m for m in measures if m not in ("runid", "relstring")]
        if len(numeric) == 1:
            return numeric[0], numeric[0]
        raise InputError(f"{path}: the file holds {len(numeric)} measures; choose one with "
                         f"`score` (one of {listed})", param="score")
    score = str(score).strip()
    known = measures + summary_only
    if score in known:
        return score, score
    for same in (lambda m: canonical(m) == canonical(score),
                 lambda m: canonical(m).lower() == canonical(score).lower()):
        found = [m for m in known if same(m)]
        if len(found) == 1:
            return found[0], score
        if len(found) > 1:
            raise InputError(f"{path}: `score={score!r}` could be any of "
                             f"{', '.join(found)}; give one exactly", param="score")
    raise InputError(f"{path}: no measure {score!r} in the file; it holds {listed}",
                     param="score")


def _rows(path: str) -> tuple[list[tuple[int, str, str, str]], str]:
    """``(line, measure, query id, value as text)`` for every row, and which tool's
    layout the file has."""
    try:
        with open(path, encoding="utf-8-sig") as f:
            text = f.read()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a file") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text, not trec_eval or ir_measures output") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read the file ({exc.strerror or exc})") from None
    numbered = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    if not numbered:
        raise InputError(f"{path}: the file is empty")
    if numbered[0][1].lstrip().startswith("{"):
        return _json_rows(path, numbered), "ir_measures"
    raw = []
    for n, line in numbered:
        fields = line.split("\t") if "\t" in line else line.split()
        if len(fields) != 3 or not all(f.strip() for f in fields):
            raise InputError(
                f"{path}: line {n}: expected 3 fields (measure, query id, value as "
                f"trec_eval -q writes them, or query id, measure, value as ir_measures "
                f"does), got {len([f for f in fields if f.strip()])}: {line.strip()[:60]!r}")
        raw.append((n, fields))
    measure_first = _measure_first(path, raw)
    rows = []
    for n, (a, b, value) in raw:
        a, b = a.strip(), b.strip()
        measure, qid = (a, b) if measure_first else (b, a)
        rows.append((n, measure, qid, value.strip()))
    return rows, "trec_eval" if measure_first else "ir_measures"


def _measure_first(path: str, raw: list) -> bool:
    """Whether the measure is the first field (trec_eval) or the second (ir_measures)."""
    firsts = {f[0].strip() for _, f in raw}
    seconds = {f[1].strip() for _, f in raw}
    if any(f[0] != f[0].rstrip() for _, f in raw) or SUMMARY in seconds \
            or "runid" in firsts:
        return True  # trec_eval pads its measures and writes 'runid all NAME'
    if SUMMARY in firsts or any("@" in s for s in seconds):
        return False
    if all(s.isdigit() for s in seconds):
        return True
    if all(s.isdigit() for s in firsts):
        return False
    if seconds <= set(_IR_TO_TREC) or all(_IR_MEASURE.fullmatch(s) and "@" in s
                                          for s in seconds):
        return False
    raise InputError(f"{path}: cannot tell which field holds the measure and which the "
                     "query id (no padded measure, 'all' row or numeric query ids)")


def _json_rows(path: str, numbered: list[tuple[int, str]]) -> list:
    rows = []
    for n, line in numbered:
        try:
            record = json.loads(line)
        except RecursionError:
            raise too_deep(line, path, n) from None
        except ValueError as exc:
            raise InputError(f"{path}: line {n}: not valid JSON ({json_value_problem(exc)})"
                             ) from None
        if not isinstance(record, dict) or not _JSON_KEYS <= set(record):
            raise InputError(f"{path}: line {n}: expected an ir_measures record with "
                             f"'query_id', 'measure' and 'value'")
        value = record["value"]
        rows.append((n, str(record["measure"]).strip(), str(record["query_id"]).strip(),
                     value if isinstance(value, str) else repr(value) if value is not None
                     else ""))
    return rows

"""WMT segment scores: the metrics task's score TSVs and the MQM average-score files.

Each shape holds many systems in one file, one row per system and segment:

- the metrics task's segment-level TSV (``metric lp testset ref system docid seg_no
  score``, tab-separated, no header, e.g. ``chrF.seg.score``).  An item is a segment,
  its id ``docid:seg_no`` (``seg_no`` counts within the document, so the id is unique);
  ``group="doc"`` (``--group doc``) labels each segment with its document, for the
  cluster bootstrap.  A file holding several metrics, language pairs, test sets or
  references must be narrowed with ``score``, ``lp``, ``testset`` and ``ref``.
- google/wmt-mqm-human-evaluation's ``*.avg_seg_scores.tsv`` (a ``system mqm_avg_score
  seg_id`` header, whitespace-separated).  An item is ``seg_id`` (the global segment
  number); ``group="doc"`` needs ``docs``, the WMT details file that maps it to a
  document (``global_seg_no testset lp docid seg_no_in_doc``).
- the news task's human evaluation, direct assessment: ``ad-seg-scores-*.csv`` (a ``SYS
  SID RAW.SCR Z.SCR N`` header, whitespace-separated: a segment's mean raw score, 0-100,
  and mean z-score over its ``N`` ratings).  An item is ``SID`` (``<docid>_<k>``, so
  ``group="doc"`` needs nothing more); ``score`` picks ``z`` or ``raw``.  Each system
  was rated on a sample of the segments, so two systems share only some: compare them
  on those with ``unrated="drop"``.

A segment some compared system did not score (the literal ``None`` of MQM files, or no
row at all) is refused, naming it, unless ``unrated="drop"``: then it is left out for
every system (a paired comparison needs all of them) and the notes say how many.
"""

from __future__ import annotations

import os
import re
from collections import Counter

import numpy as np

from pairboot.errors import InputError
from pairboot.io.harness import Scores, score_number

NAME = "wmt"
OPTIONS = ("score", "group", "system", "lp", "testset", "ref", "unrated", "docs")
FILES = ("docs",)
"""The options that name files this reader opens: the WMT details file."""

_TSV = ("metric", "lp", "testset", "ref", "system", "docid", "seg_no", "score")
_MQM_HEADER = ["system", "mqm_avg_score", "seg_id"]
_DA_HEADER = ["SYS", "SID", "RAW.SCR", "Z.SCR", "N"]
_DA_SCORES = {"z": 3, "raw": 2}
"""A DA file's scores by the name ``score`` gives (its column names work too)."""
_LP = re.compile(r"^[a-z]{2,3}-[a-z]{2,3}$")
_UNRATED = "None"
_CHOICES = (("metric", "score"), ("lp", "lp"), ("testset", "testset"), ("ref", "ref"))
"""The TSV's fields a file may hold several values of, and the option that picks one."""


def _head(path: str, size: int = 65536) -> list[str]:
    """The first complete non-empty lines of ``path`` (none if it is not UTF-8 text)."""
    try:
        with open(path, encoding="utf-8", newline="") as f:
            text = f.read(size)
    except (OSError, UnicodeDecodeError):
        return []
    lines = text.splitlines()
    if len(text) == size and lines:
        lines = lines[:-1]
    return [line for line in lines if line.strip()]


def _tsv_row(line: str) -> bool:
    parts = line.split("\t")
    if len(parts) != len(_TSV) or not _LP.match(parts[1]) or not parts[6].isdigit():
        return False
    try:
        float(parts[7])
    except ValueError:
        return parts[7] == _UNRATED
    return True


def detect(path: str) -> bool:
    """True for an MQM average-score file (its header) or a metrics-task TSV (rows of 8
    tab-separated fields with a language pair, a segment number and a score)."""
    if not os.path.isfile(path):
        return False
    lines = _head(path)[:20]
    if not lines:
        return False
    if lines[0].split() in (_MQM_HEADER, _DA_HEADER):
        return True
    return all(_tsv_row(line) for line in lines)


def _names(value, what: str) -> list[str]:
    """A comma-separated string or a sequence of names, each once, as a list."""
    names = [s.strip() for s in value.split(",")] if isinstance(value, str) else list(value)
    names = [str(s) for s in names if str(s).strip()]
    if not names:
        raise InputError(f"`{what}` names no system", param=what)
    twice = [s for s, k in Counter(names).items() if k > 1]
    if twice:
        raise InputError(f"`{what}` names {twice[0]!r} twice", param=what)
    return names


def _listing(counts: Counter, limit: int = 12) -> str:
    shown = [f"{k} ({n:,} rows)" for k, n in counts.items()][:limit]
    more = f", and {len(counts) - limit} more" if len(counts) > limit else ""
    return ", ".join(shown) + more


def _value(path: str, n: int, text: str) -> float | None:
    """A score, or None for an unrated segment; anything else is an error at line n."""
    return None if text == _UNRATED else score_number(path, f"line {n}", text)


def _read_tsv(path: str) -> tuple[list, int]:
    rows, blank = [], 0
    with open(path, encoding="utf-8", newline="") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if not line.strip():
                blank += 1
                continue
            parts = line.split("\t")
            if len(parts) != len(_TSV):
                known = "" if rows else (
                    "; the wmt reader reads metrics-task TSVs, MQM average-score files "
                    f"(header {' '.join(_MQM_HEADER)}) and DA segment scores (header "
                    f"{' '.join(_DA_HEADER)})")
                raise InputError(f"{path}: line {n}: {len(parts)} tab-separated fields, "
                                 f"expected {len(_TSV)} ({' '.join(_TSV)}){known}")
            if not parts[6].strip().isdigit():
                raise InputError(f"{path}: line {n}: seg_no {parts[6]!r} is not a "
                                 "segment number")
            rows.append((n, parts))
    return rows, blank


def _narrow(path: str, rows: list, options: dict, notes: list) -> tuple[list, dict]:
    """The rows of the one metric, lp, test set and reference chosen (or the only one)."""
    chosen = {}
    for j, (field, option) in enumerate(_CHOICES):
        counts = Counter(parts[j] for _, parts in rows)
        want = options.get(option)
        if want is None:
            if len(counts) > 1:
                raise InputError(
                    f"{path} holds {len(counts)} values of {field}: {_listing(counts)}; "
                    f"choose one with `{option}`", param=option)
            want = next(iter(counts))
        elif want not in counts:
            raise InputError(f"{path}: no rows with {field} {want!r}; it holds "
                             f"{_listing(counts)}", param=option)
        if len(counts) > 1:
            others = sum(counts.values()) - counts[want]
            notes.append(f"{others:,} rows of other {field} values than {want!r} not read "
                         f"(`{option}={want!r}`)")
        chosen[field] = want
        rows = [r for r in rows if r[1][j] == want]
    return rows, chosen


def _tables(path: str, records, key_of, label: str) -> tuple[dict, dict]:
    """Per system, item id -> (score or None, line); a second row for an item is an error."""
    scores, order = {}, {}
    for n, system, item, text in records:
        table = scores.setdefault(system, {})
        if item in table:
            raise InputError(f"{path}: line {n}: a second score of system {system!r} for "
                             f"{label} {key_of(item)} (the first is at line {table[item][1]})")
        table[item] = (_value(path, n, text), n)
        order.setdefault(item, len(order))
    return scores, order


def _select(path: str, scores: dict, system, notes: list) -> list[str]:
    found = list(scores)
    if system is None:
        notes.append(f"all {len(found)} systems of the file read: {', '.join(found)}")
        return found
    names = _names(system, "system")
    missing = [s for s in names if s not in scores]
    if missing:
        raise InputError(f"{path}: no system {missing[0]!r}; it holds {', '.join(found)}",
                         param="system")
    notes.append(f"{len(names)} of the {len(found)} systems of the file read: "
                 f"{', '.join(names)}")
    return names


def _paired(path: str, scores: dict, names: list, order: dict, unrated: str, label: str,
            key_of, notes: list) -> list:
    """The items every system in ``names`` scored, in file order: refuses (or, with
    ``unrated='drop'``, drops and counts) the others."""
    if unrated not in ("error", "drop"):
        raise InputError(f"`unrated` must be 'error' or 'drop', got {unrated!r}",
                         param="unrated")
    items = sorted({i for s in names for i in scores[s]}, key=order.__getitem__)
    keep, lost = [], Counter()
    for item in items:
        missing = [s for s in names if scores[s].get(item, (None,))[0] is None]
        if not missing:
            keep.append(item)
            continue
        if unrated == "error":
            s = missing[0]
            where = (f"line {scores[s][item][1]}: system {s!r} has {_UNRATED} for"
                     if item in scores[s] else f"system {s!r} has no row for")
            raise InputError(
                f"{path}: {where} {label} {key_of(item)}; the systems compared must all score "
                "every segment (`unrated='drop'` leaves such segments out for all)",
                param="unrated")
        lost.update(missing)
    if lost:
        per = ", ".join(f"{s} {lost[s]:,}" for s in names if lost[s])
        notes.append(f"{len(items) - len(keep):,} of {len(items):,} segments dropped "
                     f"(`unrated='drop'`): not scored by every compared system (unscored "
                     f"per system: {per})")
    if not keep:
        raise InputError(f"{path}: no segment is scored by every system compared"
                         + ("" if len(names) == 2 else "; compare fewer (`system`)"),
                         param="system")
    return keep


def _tsv_id(item: tuple) -> str:
    """A TSV segment's id: ``docid:seg_no``."""
    return f"{item[0]}:{item[1]}"


def _group_check(group) -> None:
    if group is not None and group != "doc":
        raise InputError(f"`group` must be 'doc' (each segment's document), got {group!r}",
                         param="group")


def _from_tsv(path: str, options: dict) -> Scores:
    rows, blank = _read_tsv(path)
    if not rows:
        raise InputError(f"{path}: no rows (expected {' '.join(_TSV)})")
    notes = [f"{path}: {len(rows):,} rows read"
             + (f" ({blank:,} blank lines skipped)" if blank else "")]
    rows, chosen = _narrow(path, rows, options, notes)
    records = ((n, p[4], (p[5], int(p[6])), p[7].strip()) for n, p in rows)
    scores, order = _tables(path, records, _tsv_id, "segment")
    names = _select(path, scores, options.get("system"), notes)
    items = _paired(path, scores, names, order, options.get("unrated", "error"),
                    "segment", _tsv_id, notes)
    ids = np.array([_tsv_id(i) for i in items], dtype=object)
    docs = np.array([d for d, _ in items], dtype=object)
    notes.append(f"metric {chosen['metric']}, lp {chosen['lp']}, testset "
                 f"{chosen['testset']}, ref {chosen['ref']}: {len(ids):,} segments "
                 f"(id docid:seg_no) in {len(set(docs.tolist())):,} documents")
    group = options.get("group")
    if group is None:
        notes.append("segments resampled one by one; `group='doc'` resamples documents")
    systems = {s: np.array([scores[s][i][0] for i in items]) for s in names}
    return Scores(path=path, format=NAME, ids=ids, systems=systems, score=chosen["metric"],
                  groups=docs if group == "doc" else None, notes=tuple(notes))


def _doc_map(path: str) -> dict:
    """global_seg_no -> docid from a WMT details file (``global_seg_no testset lp docid
    seg_no_in_doc``, tab-separated)."""
    if not os.path.isfile(path):
        raise InputError(f"{path}: no such file (`docs`)", param="docs")
    out = {}
    with open(path, encoding="utf-8", newline="") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            parts = line.split()
            if len(parts) != 5 or not parts[0].isdigit():
                raise InputError(f"{path}: line {n}: expected global_seg_no testset lp "
                                 "docid seg_no_in_doc (a WMT details file)", param="docs")
            out[parts[0]] = parts[3]
    return out


def _from_mqm(path: str, options: dict) -> Scores:
    for option in ("lp", "testset", "ref"):
        if option in options:
            raise InputError(f"{path} is an MQM average-score file: it has no {option} "
                             f"to choose (`{option}`)", param=option)
    score = options.get("score")
    if score is not None and score not in ("mqm", "mqm_avg_score"):
        raise InputError(f"{path} holds only mqm_avg_score, not {score!r}", param="score")
    group = options.get("group")
    if group == "doc" and "docs" not in options:
        raise InputError(f"{path} names no documents: give `docs`, the WMT details file "
                         "(global_seg_no testset lp docid seg_no_in_doc)", param="docs")
    records, blank = [], 0
    with open(path, encoding="utf-8", newline="") as f:
        for n, line in enumerate(f, 1):
            parts = line.split()
            if n == 1:
                if parts != _MQM_HEADER:
                    raise InputError(f"{path}: line 1: expected the header "
                                     f"{' '.join(_MQM_HEADER)!r}")
                continue
            if not parts:
                blank += 1
                continue
            if len(parts) != 3:
                raise InputError(f"{path}: line {n}: {len(parts)} fields, expected 3 "
                                 f"({' '.join(_MQM_HEADER)})")
            if not parts[2].isdigit():
                raise InputError(f"{path}: line {n}: seg_id {parts[2]!r} is not a number")
            records.append((n, parts[0], parts[2], parts[1]))
    if not records:
        raise InputError(f"{path}: no rows after the header")
    notes = [f"{path}: {len(records):,} rows of MQM average scores read"
             + (f" ({blank:,} blank lines skipped)" if blank else "")]
    unrated = sum(1 for r in records if r[3] == _UNRATED)
    if unrated:
        notes.append(f"{unrated:,} rows are {_UNRATED} (segments not rated)")
    scores, order = _tables(path, records, str, "seg_id")
    names = _select(path, scores, options.get("system"), notes)
    items = _paired(path, scores, names, order, options.get("unrated", "error"),
                    "seg_id", str, notes)
    groups = None
    if group == "doc":
        docs = _doc_map(options["docs"])
        unknown = [i for i in items if i not in docs]
        if unknown:
            raise InputError(f"{options['docs']}: no document for seg_id {unknown[0]} of "
                             f"{path} ({len(unknown):,} segments unmapped)", param="docs")
        groups = np.array([docs[i] for i in items], dtype=object)
        notes.append(f"documents from {options['docs']}: {len(set(groups.tolist())):,}")
    notes.append(f"mqm_avg_score (higher is better): {len(items):,} segments (id seg_id)")
    systems = {s: np.array([scores[s][i][0] for i in items]) for s in names}
    return Scores(path=path, format=NAME, ids=np.array(items, dtype=object), systems=systems,
                  score="mqm_avg_score", groups=groups, notes=tuple(notes))


def _da_score(path: str, score) -> tuple[int, str]:
    """The DA file's column that ``score`` picks (its index, its name)."""
    names = ", ".join(f"'{k}' ({_DA_HEADER[j]})" for k, j in _DA_SCORES.items())
    if score is None:
        raise InputError(
            f"{path} is a WMT DA segment-score file ({' '.join(_DA_HEADER)}: human direct "
            f"assessments): choose its score with `score`: {names}; WMT ranks systems by "
            "z", param="score")
    key = str(score).strip()
    j = _DA_SCORES.get(key.lower(), _DA_HEADER.index(key) if key in _DA_HEADER[2:4] else None)
    if j is None:
        raise InputError(f"{path} is a WMT DA file: its scores are {names}, not {score!r}",
                         param="score")
    return j, _DA_HEADER[j]


def _from_da(path: str, options: dict) -> Scores:
    for option in ("lp", "testset", "ref", "docs"):
        if option in options:
            raise InputError(f"{path} is a WMT DA file: it has no {option} to choose "
                             f"(`{option}`)", param=option)
    column, name = _da_score(path, options.get("score"))
    records, blank, ratings = [], 0, []
    with open(path, encoding="utf-8", newline="") as f:
        for n, line in enumerate(f, 1):
            parts = line.split()
            if n == 1:
                continue  # (the header, checked by read)
            if not parts:
                blank += 1
                continue
            if len(parts) != len(_DA_HEADER):
                raise InputError(f"{path}: line {n}: {len(parts)} fields, expected "
                                 f"{len(_DA_HEADER)} ({' '.join(_DA_HEADER)})")
            if not parts[4].isdigit():
                raise InputError(f"{path}: line {n}: N {parts[4]!r} is not a number of "
                                 "ratings")
            records.append((n, parts[0], parts[1], parts[column]))
            ratings.append(int(parts[4]))
    if not records:
        raise InputError(f"{path}: no rows after the header")
    notes = [f"{path}: {len(records):,} rows of WMT DA segment scores read"
             + (f" ({blank:,} blank lines skipped)" if blank else "")
             + f"; {name}, each the mean of a segment's N ratings (N = {min(ratings)} to "
               f"{max(ratings)}, unweighted here)"]
    scores, order = _tables(path, records, str, "SID")
    names = _select(path, scores, options.get("system"), notes)
    items = _paired(path, scores, names, order, options.get("unrated", "error"), "SID",
                    str, notes)
    docs = np.array([re.sub(r"_\d+$", "", i) for i in items], dtype=object)
    notes.append(f"{name} (higher is better): {len(items):,} segments (id SID) in "
                 f"{len(set(docs.tolist())):,} documents")
    group = options.get("group")
    if group is None:
        notes.append("segments resampled one by one; `group='doc'` resamples documents "
                     "(SID less its last _k)")
    systems = {s: np.array([scores[s][i][0] for i in items]) for s in names}
    return Scores(path=path, format=NAME, ids=np.array(items, dtype=object), systems=systems,
                  score=name, groups=docs if group == "doc" else None, notes=tuple(notes))


def read(path: str, **options) -> Scores:
    """Read a WMT metrics-task segment-score TSV, an MQM average-score file or a DA
    segment-score file.

    ``score``, ``lp``, ``testset``, ``ref``: which metric, language pair, test set and
    reference to read when the TSV holds several (an error lists them); ``system``:
    the systems to compare (a list, or names separated by commas), in that order, by
    default all; ``group="doc"``: documents as groups; ``unrated``: ``"error"``
    (default) or ``"drop"`` for segments not scored by every system compared;
    ``docs``: an MQM file's WMT details file, for ``group="doc"``.  A DA file needs
    ``score``: ``"z"`` or ``"raw"``.
    """
    _group_check(options.get("group"))
    lines = _head(path, 4096)
    if lines and lines[0].split() == _MQM_HEADER:
        return _from_mqm(path, options)
    if lines and lines[0].split() == _DA_HEADER:
        return _from_da(path, options)
    if "docs" in options:
        raise InputError(f"{path} is a metrics-task TSV: its rows name their documents, "
                         "`docs` is for MQM files", param="docs")
    return _from_tsv(path, options)

"""How the systems' items are paired, and the checks that refuse a wrong pairing.

Items are paired by position: item ``i`` of every system is the ``i``-th value passed,
whatever index or row labels the inputs carry, unless ``ids`` names a column of
DataFrames to join them on.  This module refuses what would pair other items than that
order says, or pair them wrongly while looking right:

- pandas inputs (systems, ``groups``, ``strata``, ``ids``) whose indexes hold the same
  labels at other positions (:func:`check_indexes`): pandas would align them by label,
  pairboot would not, so the user says which is meant;
- DataFrames joined on their id column (``ids='id'``), or, without it, refused when a
  column they share besides the scores shows their rows are other items
  (:func:`pair_items`);
- the rule that decides the last, for DataFrames and for files alike
  (:func:`position_check`, which :mod:`pairboot.io.alignment` applies to files): by the
  content of a shared column, not by its name.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from pairboot.errors import InputError
from pairboot.inputs.labels import normalisation_hint, shown
from pairboot.metrics import Metric, match_statistics, statistics_for

__all__ = [
    "ID_HINTS", "MOSTLY_IDS", "Evidence", "Finding", "by_name", "check_indexes",
    "codes", "counts_rows", "evidence", "frame_ids", "id_like", "is_id_name", "judge",
    "misaligned_message", "pair_items", "position_check",
]

ID_HINTS = (
    "id", "item_id", "example_id", "sample_id", "query_id", "qid", "question_id", "uid",
    "guid", "key",
)
"""Column names (case-insensitive) that hold item ids.  A shared column so named that
differs row by row is refused even when its values are disjoint (other items, or ids
written otherwise); any other column is judged by its content alone."""

MOSTLY_IDS = 0.9
"""Distinct values per row from which a column is taken to identify the rows (a column of
ids, with a flaw or two among hundreds)."""

MISSING = -1
"""The code of a missing value (blank, null, NaN)."""


# ------------------------------------------------------------- the content rule


@dataclass(frozen=True, slots=True)
class Evidence:
    """What one column that two inputs share says about pairing their rows by position.

    Computed from the values' codes (:func:`evidence`): ``n`` rows, of which
    ``matches`` hold the same value in both (two missing values agree); ``distinct``
    values per row (the smaller of the two inputs'); ``unique``: a value in every row of
    both, no two alike; ``moved``: rows that differ whose first value is at some other
    row of the second; ``same_values``: the same values as many times each;
    ``n_values`` distinct values in the first; ``chance``: the rows a random order
    would match (the sum over values of their counts' product, over ``n``).
    """

    n: int
    matches: int
    distinct: float
    unique: bool
    moved: int
    same_values: bool
    n_values: int
    chance: float

    @property
    def agrees(self) -> bool:
        return self.matches == self.n

    @property
    def differing(self) -> int:
        return self.n - self.matches


def codes(labels_a: Sequence, labels_b: Sequence) -> tuple[np.ndarray, np.ndarray]:
    """Two sequences of hashable labels (None: missing) as codes into their distinct
    labels, one code space for both (:data:`MISSING` where missing)."""
    index: dict = {}

    def code(v) -> int:
        return MISSING if v is None else index.setdefault(v, len(index))

    ca = np.fromiter(map(code, labels_a), dtype=np.int64, count=len(labels_a))
    cb = np.fromiter(map(code, labels_b), dtype=np.int64, count=len(labels_b))
    return ca, cb


def evidence(keys_a: np.ndarray, keys_b: np.ndarray, missing_a: np.ndarray | None = None,
             missing_b: np.ndarray | None = None) -> Evidence:
    """The :class:`Evidence` of a column from its values' keys in the two inputs (the
    same length): codes (:func:`codes`, :data:`MISSING` where missing) or 64-bit hashes
    with masks of the missing values.  By sorting, not by hashing: a few sorts of ``n``
    numbers whatever the values."""
    if missing_a is None:
        missing_a, missing_b = keys_a == MISSING, keys_b == MISSING
    n = len(keys_a)
    same = (keys_a == keys_b) & ~missing_a & ~missing_b | (missing_a & missing_b)
    matches = int(same.sum())
    sa, sb = np.sort(keys_a[~missing_a]), np.sort(keys_b[~missing_b])
    values_a, count_a = _runs(sa)
    values_b, count_b = _runs(sb)
    moved = 0
    if matches < n:
        rows = ~same & ~missing_a
        moved = int(_found(sb, np.sort(keys_a[rows])).sum())  # (sorted: in cache order)
    held = _found(values_b, values_a)
    at = np.searchsorted(values_b, values_a)[held]
    return Evidence(
        n=n, matches=matches,
        distinct=min(len(values_a), len(values_b)) / n if n else 1.0,
        unique=len(values_a) == len(values_b) == n,
        moved=moved,
        same_values=bool(np.array_equal(sa, sb) and missing_a.sum() == missing_b.sum()),
        n_values=len(values_a),
        chance=float(np.dot(count_a[held].astype(np.float64), count_b[at])) / n if n else 0.0,
    )


def _runs(ordered: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values of a sorted array and how many times each occurs."""
    if not len(ordered):
        return ordered, np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.concatenate([[True], ordered[1:] != ordered[:-1]]))
    return ordered[starts], np.diff(np.append(starts, len(ordered)))


def _found(ordered: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Which of ``values`` the sorted array ``ordered`` holds."""
    if not len(ordered):
        return np.zeros(len(values), dtype=bool)
    at = np.minimum(np.searchsorted(ordered, values), len(ordered) - 1)
    return ordered[at] == values


def judge(ev: Evidence, *, id_named: bool = False, counter: bool = False,
          measured: bool = False) -> str | None:
    """``"aligned"`` when the column shows the rows are the same items, ``"misaligned"``
    when it shows they are not, None when it says neither.

    - A column that agrees row by row and holds a different value in every row shows
      the same items (unless ``counter``: the row numbers, which any order keeps).
    - One whose values (nearly) all differ from each other identifies the rows: when it
      differs, and at least a tenth of the differing rows hold a value found at another
      row of the second input, the rows were reordered or are partly other items.  A
      value of each system's own (a model's output, a per-run request id) is rarely
      found in the other's file at all.  Named like an id (:data:`ID_HINTS`), any
      difference is refused: other ids are other items.
    - One with repeated values (a topic, a document, a reference answer) that holds
      the same values, as many times each, in both, but agrees in hardly more rows than
      a random order would (at most halfway from that to all of them) was reordered.
      A system's own repeated output (its predictions, a 1-5 rating) hardly ever has
      exactly the other's counts and hardly any rows in common; a value of two kinds
      is never taken for evidence (two systems often score as many items 1).
    - Numbers with fractions (``measured``: a human z-score, a latency) count by the
      first two rules only: repeated measurements say nothing of the items.
    """
    if ev.agrees:
        return "aligned" if ev.unique and not counter else None
    if ev.distinct >= MOSTLY_IDS:
        if id_named or (ev.moved and 10 * ev.moved >= ev.differing):
            return "misaligned"
        return None
    if (not measured and ev.same_values and ev.n_values >= 3
            and 2 * ev.matches <= ev.n + ev.chance):
        return "misaligned"
    return None


@dataclass(frozen=True, slots=True)
class Finding:
    """The column that decided a check of a pairing by position, and what it showed."""

    column: str
    verdict: str
    evidence: Evidence
    id_named: bool


def position_check(
    columns: Sequence[str],
    agrees: Callable[[str], bool | None],
    weigh: Callable[[str], tuple[Evidence, bool] | None],
) -> Finding | None:
    """Whether the shared ``columns`` of two inputs allow pairing their rows by position.

    ``agrees(col)`` is the cheap test (equal row by row; None: the column is never
    evidence, such as booleans); ``weigh(col)`` the column's :class:`Evidence`, whether
    it counts the rows (0.., 1..) and whether it holds measurements (numbers with
    fractions, :func:`judge`), or None.
    Columns named like ids are looked at first.  When every column agrees nothing more
    is computed (None).  Otherwise an agreeing column that shows the same items decides
    (``"aligned"``: what differs then is the systems' own); failing that, the first
    differing column that shows other items (``"misaligned"``), one that identifies the
    rows rather than labels them when there is one; else None.
    """
    ordered = sorted(columns, key=lambda c: not is_id_name(c))
    agreeing, differing = [], []
    for col in ordered:
        same = agrees(col)
        if same is not None:
            (agreeing if same else differing).append(col)
    if not differing:
        return None
    aligned = []  # (a measurement that agrees shows it too, but labels say it better)
    for col in agreeing:
        weighed = weigh(col)
        if weighed is not None and judge(weighed[0], counter=weighed[1]) == "aligned":
            measured = len(weighed) > 2 and weighed[2]
            aligned.append((measured, Finding(col, "aligned", weighed[0], is_id_name(col))))
            if not measured:
                break
    if aligned:
        return min(aligned, key=lambda found: found[0])[1]
    labels = None  # (a column of labels shows it too, but one of ids says which to join on)
    measurements = None  # (the last word: labels and ids say which items they are)
    for col in differing:
        weighed = weigh(col)
        if weighed is None:
            continue
        named = is_id_name(col)
        measured = len(weighed) > 2 and weighed[2]
        if judge(weighed[0], id_named=named, measured=measured) == "misaligned":
            found = Finding(col, "misaligned", weighed[0], named)
            if measured:
                measurements = measurements or found
            elif named or weighed[0].distinct >= MOSTLY_IDS:
                return found
            else:
                labels = labels or found
    return labels or measurements


def is_id_name(name: str) -> bool:
    return str(name).strip().lower() in ID_HINTS


def misaligned_message(finding: Finding, both: str, second: str, fix: str) -> str:
    """The refusal of a pairing by position that ``finding`` showed wrong: ``both``
    names the two inputs as a subject ("both files", "`a` and `b` both"), ``second``
    the one compared with the first; ``fix`` says what to do instead."""
    col, ev = finding.column, finding.evidence
    if finding.id_named and ev.distinct >= MOSTLY_IDS:
        return (f"{both} have an id column {col!r} but its rows are in a different order "
                f"(or hold different ids): {fix}")
    if ev.distinct >= MOSTLY_IDS:
        how = (f"{second} holds them in another order" if ev.same_values else
               f"{ev.moved:,} of the {ev.differing:,} rows where it differs hold a value "
               f"found at another row of {second}")
        what = (f"a column {col!r} that identifies the rows (a different value in each), "
                f"but {how}")
    else:
        what = (f"a column {col!r} with the same values, as many times each, but only "
                f"{ev.matches:,} of its {ev.n:,} rows agree, as in a random order")
    return (f"{both} have {what}: the rows are not the same items in the same order, so "
            f"they cannot be paired by position; {fix}")


def counts_rows(labels: Sequence) -> bool:
    """Whether ``labels`` are the row numbers ``0, 1, ...`` or ``1, 2, ...`` as text
    (a written index: any reordering of the rows keeps it)."""
    n = len(labels)
    if not n or labels[0] not in ("0", "1") or labels[n - 1] != str(n - 1 + int(labels[0])):
        return False
    start = int(labels[0])
    return all(v == str(start + i) for i, v in enumerate(labels))


# -------------------------------------------------------------- pandas and frames


def as_label(value) -> str | None:
    """A value of an input's column as text, for comparing two inputs' columns (None:
    missing): text stripped, ``3`` and ``3.0`` both "3"."""
    if value is None or type(value).__name__ in ("NAType", "NaTType"):  # (pandas' missing)
        return None
    if isinstance(value, (float, np.floating)):
        if math.isnan(value):
            return None
        return str(int(value)) if float(value).is_integer() else repr(float(value))
    if isinstance(value, (np.integer, bool, np.bool_)):
        value = value.item() if hasattr(value, "item") else value
    text = str(value).strip()
    return text or None


def column_labels(values) -> tuple[list, bool] | None:
    """A frame's column as labels (:func:`as_label`) and whether it holds measurements
    (numbers with fractions: :func:`judge` weighs them by fewer rules), or None for
    booleans, never evidence about the rows."""
    arr = values.to_numpy() if hasattr(values, "to_numpy") else np.asarray(values)
    if arr.dtype.kind == "b":
        return None
    measured = False
    if arr.dtype.kind == "f":
        finite = arr[np.isfinite(arr)]
        measured = bool((finite != np.round(finite)).any())
    return [as_label(v) for v in arr.tolist()], measured


def _positions_conflict(index_a, index_b) -> int:
    """How many labels both indexes hold at different positions (pandas would pair those
    otherwise than their positions); -1 when one repeats a label both hold."""
    if len(index_a) != len(index_b) or index_a.equals(index_b):
        return 0
    shared = index_a.intersection(index_b)
    if not len(shared):
        return 0  # nothing pandas could align: the positions are the only pairing
    if not (index_a.is_unique and index_b.is_unique):
        return -1
    where = index_b.get_indexer(index_a)
    held = where >= 0
    return int((where[held] != np.flatnonzero(held)).sum())


def check_indexes(systems: Sequence[tuple[str, object]],
                  labels: Sequence[tuple[str, object]] = (), *, paired: bool = True) -> None:
    """Refuse pandas inputs whose indexes hold the same labels at other positions.

    ``systems`` and ``labels`` (``groups``, ``strata``, ``ids``) are ``(argument,
    value)`` pairs (a value None: not given).  pandas would pair such inputs by label;
    pairboot pairs by position, the order passed (the documented rule), so the error says
    how to have either.  Indexes with no label in common pair nothing by label: the
    positions are the only pairing.  Unpaired (``paired=False``) the systems are not
    paired with each other, only the labels with every system.
    """
    def indexed(pairs):
        return [(name, v.index) for name, v in pairs
                if v is not None and hasattr(getattr(v, "index", None), "equals")]

    own, other = indexed(systems), indexed(labels)
    every = own + other
    checks = [(b, a) for k, b in enumerate(every) for a in every[:k]
              if paired or k >= len(own)]
    for (name_b, index_b), (name_a, index_a) in checks:
        conflict = _positions_conflict(index_a, index_b)
        if conflict:
            how = ("repeats a label that both hold" if conflict < 0 else
                   f"holds {conflict:,} labels of the index of `{name_a}` at other positions")
            raise InputError(
                f"the index of `{name_b}` {how}: pandas would pair them by label, but "
                "pairboot pairs items by position (the order passed); to pair by label, "
                f"pass {name_b}.reindex({name_a}.index); to pair by position, pass both "
                "with .reset_index(drop=True) (or .to_numpy())", param=name_b)


def by_name(values, metric, what: str):
    """A DataFrame's columns in the metric's order, found by their names.

    The names must say which statistic each column holds (:func:`match_statistics`:
    ``fn, fp, tp`` is read as ``tp, fp, fn``; columns no statistic names are left out);
    a DataFrame whose names do not is an error rather than a guess by position.  Plain
    arrays are taken in column order.
    """
    columns = getattr(values, "columns", None)
    if columns is None:
        return values
    names = [str(c) for c in columns]
    try:
        stats = statistics_for(metric, len(names))
    except ValueError:
        return values  # the count does not fit: resolve_metric will say so later
    if len(stats) > len(names):
        return values  # too few columns: the count check will say so
    if len(stats) == len(names) == 1:
        return values
    order = match_statistics(stats, names, extra=True)
    if order is None:
        name = metric.name if isinstance(metric, Metric) else metric
        raise InputError(
            f"the columns of `{what}` ({', '.join(names)}) do not name the statistics of "
            f"metric {name!r} ({', '.join(stats)}); rename them, or pass an array "
            "whose columns are in that order"
        )
    chosen = [names[j] for j in order]
    return values if chosen == names else values[[columns[names.index(c)] for c in chosen]]


def _columns(frame) -> list:
    return list(frame.columns)


def _without(frame, column):
    """``frame`` without ``column`` (pandas and polars)."""
    drop = frame.drop(columns=[column]) if hasattr(frame, "iloc") else frame.drop(column)
    return drop


def _join_order(ids_a: list, ids_b: list, name_a: str, name_b: str, column: str
                ) -> np.ndarray:
    """For each id of ``ids_a``, its row in ``ids_b``; both the same ids, each once."""
    for ids, name in ((ids_a, name_a), (ids_b, name_b)):
        seen: dict = {}
        for i, v in enumerate(ids):
            if v is None:
                raise InputError(f"`{name}`, column {column!r}: missing id at row {i}",
                                 param="ids")
            if v in seen:
                raise InputError(f"`{name}`, column {column!r}: duplicate id {shown(v)} (rows "
                                 f"{seen[v]} and {i}); ids must be unique", param="ids")
            seen[v] = i
    where = {v: j for j, v in enumerate(ids_b)}
    only_a = [v for v in ids_a if v not in where]
    if only_a or len(ids_a) != len(ids_b):
        held = set(ids_a)
        only_b = [v for v in ids_b if v not in held]
        examples = ", ".join(shown(v) for v in (only_a[:3] + only_b[:3]))
        raise InputError(
            f"the ids in column {column!r} of `{name_a}` and `{name_b}` differ: "
            f"{len(only_a):,} only in `{name_a}`, {len(only_b):,} only in `{name_b}` "
            f"(e.g. {examples}){normalisation_hint(only_a, only_b, name_a, name_b)}; "
            "every item needs a score from both systems", param="ids")
    return np.fromiter((where[v] for v in ids_a), dtype=np.intp, count=len(ids_a))


def pair_items(systems, names, *, groups, strata, ids, metric, paired: bool = True):
    """The systems' inputs paired: ``(systems, groups, strata, ids)`` as the design reads
    them (each system's statistics found by name, :func:`by_name`).

    ``ids`` a column name: every system is a DataFrame holding that column, and the
    systems' rows are joined on it, in the first's order (each id once in each, the same
    ids in all); ``groups`` and ``strata`` are then in the first's row order, and the
    ids become the items' ids.  Otherwise the items are paired by position, after
    :func:`check_indexes`, and two DataFrames' shared columns besides the statistics
    must not show that their rows are other items (:func:`position_check`).
    """
    systems = list(systems)
    if isinstance(ids, str):
        if not paired:
            raise InputError("`ids` as a column name joins the systems' rows: it needs "
                             "`paired=True`", param="ids")
        frames = [s for s in systems if hasattr(s, "columns")]
        if len(frames) != len(systems) or any(ids not in _columns(s) for s in systems):
            lacking = next(n for n, s in zip(names, systems)
                           if not hasattr(s, "columns") or ids not in _columns(s))
            raise InputError(f"`ids={ids!r}` names a column of the systems' DataFrames, "
                             f"but `{lacking}` has none of that name", param="ids")
        check_indexes([(names[0], systems[0])], [("groups", groups), ("strata", strata)])
        keys = [[as_label(v) for v in _column_values(s[ids])] for s in systems]
        out = []
        for j, (name, frame) in enumerate(zip(names, systems)):
            values = np.asarray(_numpy(by_name(_without(frame, ids), metric, name)))
            if j:
                values = values[_join_order(keys[0], keys[j], names[0], name, ids)]
            else:
                _join_order(keys[0], keys[0], name, name, ids)  # (each id once)
            out.append(values)
        return out, groups, strata, keys[0]
    check_indexes(list(zip(names, systems)),
                  [("groups", groups), ("strata", strata), ("ids", ids)], paired=paired)
    chosen = [by_name(s, metric, n) for s, n in zip(systems, names)]
    if paired:
        _check_frames(systems, chosen, names)
    return chosen, groups, strata, ids


def _column_values(column):
    return column.to_numpy().tolist() if hasattr(column, "to_numpy") else list(column)


def _numpy(frame):
    return frame.to_numpy() if hasattr(frame, "to_numpy") else frame


def _check_frames(systems, chosen, names) -> None:
    """Two DataFrames paired by position: refuse when a column both carry besides the
    statistics shows that their rows are other items (:func:`position_check`)."""
    frames = [(n, s, set(map(str, _columns(c))))
              for n, s, c in zip(names, systems, chosen) if hasattr(s, "columns")]
    if len(frames) < 2:
        return
    name_a, first, read_a = frames[0]
    for name_b, other, read_b in frames[1:]:
        if len(first) != len(other):
            continue  # (the design refuses different numbers of items)
        found = _frames_finding(first, other, read_a | read_b)
        if found is not None and found.verdict == "misaligned":
            col = found.column
            fix = (f"give `ids={col!r}` to join them on it" if found.evidence.unique
                   else "give `ids='COL'` to join them on a column of ids they share")
            raise InputError(misaligned_message(found, f"`{name_a}` and `{name_b}` both",
                                                f"`{name_b}`", fix), param="ids")


def _frames_finding(first, other, read: set[str]) -> Finding | None:
    """:func:`position_check` of the columns two DataFrames share, but those ``read``."""
    by_text = {str(c): c for c in _columns(other)}
    shared = [str(c) for c in _columns(first) if str(c) in by_text and str(c) not in read]
    labels: dict = {}

    def pair(col: str):
        if col not in labels:
            la = column_labels(first[col])
            lb = None if la is None else column_labels(other[by_text[col]])
            labels[col] = None if lb is None else (la[0], lb[0], la[1] or lb[1])
        return labels[col]

    def agrees(col: str) -> bool | None:
        got = pair(col)
        return None if got is None else got[0] == got[1]

    def weigh(col: str):
        got = pair(col)
        return None if got is None else (evidence(*codes(got[0], got[1])),
                                         counts_rows(got[0]), got[2])

    return position_check(shared, agrees, weigh)


def id_like(name: str, values) -> str | None:
    """Why a DataFrame's column looks like item ids rather than a system's scores (its
    name, :data:`ID_HINTS`; text; the numbers 0..n-1 or 1..n, each once; integers no two
    alike among :data:`ID_LIKE_INTEGERS` items or more), or None."""
    if is_id_name(name):
        return "is named like item ids"
    arr = values.to_numpy() if hasattr(values, "to_numpy") else np.asarray(values)
    if arr.dtype.kind in "OUS":
        return "holds text"
    if arr.dtype.kind in "iu" and len(arr):
        low = int(arr.min())
        distinct = len(np.unique(arr)) == len(arr)
        if low in (0, 1) and int(arr.max()) == low + len(arr) - 1 and distinct:
            return f"holds the numbers {low}..{low + len(arr) - 1}, each once"
        if distinct and len(arr) >= ID_LIKE_INTEGERS:
            return f"holds {len(arr)} integers, no two alike (ids, not scores)"
    return None


ID_LIKE_INTEGERS = 20
"""From this many items, a column of integers no two alike is taken for ids (problem
numbers with gaps), not a system's scores: scores of so many items repeat."""


def frame_ids(scores, ids):
    """compare_many's ``scores`` and ``ids``: with ``ids`` naming a column of a DataFrame
    of systems, that column as the ids and the frame without it; a column that looks
    like ids (:func:`id_like`) is never taken for a system."""
    if not hasattr(scores, "columns") or isinstance(scores, Mapping):
        return scores, ids
    columns = [str(c) for c in _columns(scores)]
    if isinstance(ids, str):
        if ids not in columns:
            raise InputError(f"`ids={ids!r}` names no column of `scores` (columns: "
                             f"{', '.join(map(repr, columns))})", param="ids")
        return _without(scores, ids), [as_label(v) for v in _column_values(scores[ids])]
    for col in _columns(scores):
        why = id_like(str(col), scores[col])
        if why is not None:
            raise InputError(
                f"column {str(col)!r} of `scores` {why}: it is no system's scores; give "
                f"`ids={str(col)!r}` if it holds the items' ids, labels as `groups` or "
                "`strata`, or drop it (scores that are whole numbers: pass them as floats)",
                param="scores")
    return scores, ids

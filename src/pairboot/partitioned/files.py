"""Files larger than memory: the Poisson bootstrap, reading each file once in chunks.

Under Poisson weights a unit's weights depend only on its key, so every chunk of rows
adds its own replicate sums (:func:`pairboot.partitioned.parts.part_from_arrays`) and the
file's sums are their total: memory holds one chunk and the R x k sums, whatever the
file's size.  Two files (a system each) need no join either: each file is summed on its
own, and the two are put side by side once their id sets are shown to be the same.

That check, and refusing an id twice, is exact and in bounded memory: every id's 64-bit
key goes to one of 256 temporary files by its top byte, and each bucket is sorted and
compared on its own at the end (8 bytes of temporary disk per row).

What streams: one file with both systems' columns, or two files with an id column;
metrics that are sums of per-item statistics (all built-in ones); groups (the mean over
items) and strata; the percentile, basic and normal intervals; the permutation test and
McNemar's beside them (``test=``; McNemar's from one file).  The rest needs the items
in memory (:func:`pairboot.compare`): BCa, studentized, unpaired, ``group_weighting=
"groups"``, and a JSON array file.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from pairboot.core.paired_tests import zero_one_counts
from pairboot.engine.memory import check_room
from pairboot.engine.poisson import preload
from pairboot.errors import InputError
from pairboot.inputs.labels import normalisation_hint, shown
from pairboot.io.columns import CodedLabels
from pairboot.io.formats import compression_of, format_of, names_of_files, unknown_format
from pairboot.io.stream import CHUNK_ROWS, scan, stream_format
from pairboot.metrics import Metric
from pairboot.options import Arguments, Data, check_options
from pairboot.partitioned.checks import check_before_reading, check_family
from pairboot.partitioned.part_tests import check_part_test, refuse_family_test
from pairboot.partitioned.parts import (
    PoissonPart,
    arrays_part,
    column_names,
    finished,
    merge,
)
from pairboot.partitioned.trials import refuse_trials_in_files
from pairboot.results.compare import CompareResult
from pairboot.results.family import FamilyResult

__all__ = ["compare_files"]

_BUCKETS = 256


class _KeyStore:
    """Every id's key, on disk in 256 buckets by its top byte: duplicates and the
    difference of two files' id sets, exactly, one bucket in memory at a time."""

    def __init__(self, folder: str, tag: str) -> None:
        self.paths = [os.path.join(folder, f"{tag}-{b:02x}.u64") for b in range(_BUCKETS)]

    def add(self, keys: np.ndarray) -> np.ndarray:
        """Store a chunk's keys, unless one of them repeats within the chunk: the keys
        that do (at most ten; empty when none does, and the keys are stored).  Sorted
        once, a chunk's keys show a repeat side by side and fall into the buckets in
        order."""
        ordered = np.sort(keys)
        same = np.flatnonzero(ordered[1:] == ordered[:-1])
        if len(same):
            return np.unique(ordered[same])[:10]
        edges = np.arange(_BUCKETS, dtype=np.uint64) << np.uint64(56)
        bounds = np.searchsorted(ordered, edges).tolist() + [len(ordered)]
        for b in range(_BUCKETS):
            if bounds[b + 1] > bounds[b]:
                with open(self.paths[b], "ab") as f:
                    ordered[bounds[b] : bounds[b + 1]].tofile(f)
        return ordered[:0]

    def bucket(self, b: int) -> np.ndarray:
        path = self.paths[b]
        if not os.path.exists(path):
            return np.zeros(0, dtype=np.uint64)
        return np.sort(np.fromfile(path, dtype=np.uint64))

    def repeated(self) -> np.ndarray:
        """The keys that occur more than once (at most ten)."""
        found = []
        for b in range(_BUCKETS):
            keys = self.bucket(b)
            found.extend(keys[1:][keys[1:] == keys[:-1]][:10].tolist())
            if len(found) >= 10:
                break
        return np.array(found[:10], dtype=np.uint64)

    def difference(self, other: _KeyStore, examples: int = 1000
                   ) -> tuple[int, int, np.ndarray, np.ndarray]:
        """How many keys only this store has and only ``other`` has, and up to
        ``examples`` of each (to show a few, and to see whether they differ only in
        Unicode normalisation)."""
        only_a = only_b = 0
        some_a, some_b = [], []
        for b in range(_BUCKETS):
            ka, kb = self.bucket(b), other.bucket(b)
            da, db = np.setdiff1d(ka, kb, True), np.setdiff1d(kb, ka, True)
            only_a += len(da)
            only_b += len(db)
            some_a.extend(da[: examples - len(some_a)].tolist())
            some_b.extend(db[: examples - len(some_b)].tolist())
        return only_a, only_b, np.array(some_a, np.uint64), np.array(some_b, np.uint64)


def _stack(chunk, cols: list[str]) -> np.ndarray:
    if len(cols) == 1:
        return chunk.numbers[cols[0]]
    return np.column_stack([chunk.numbers[c] for c in cols])


def _labels(chunk, col: str | None):
    if col is None:
        return None
    names, codes = chunk.labels[col]
    return CodedLabels(codes, names)  # (read as the labels, without an object per row)


def _file_part(path, systems: Mapping[str, list[str]], args: Arguments, data: Data, *, id,
               group, stratum, chunk_rows, store) -> PoissonPart:
    """One file's sums: its chunks' parts, added as they come."""
    numbers = [c for cols in systems.values() for c in cols]
    keys = [id] if id is not None else []
    labels = [c for c in (group, stratum) if c is not None]
    total = None
    for chunk in scan(path, numbers=numbers, keys=keys, labels=labels,
                      chunk_rows=chunk_size(chunk_rows, len(numbers))):
        item_keys = chunk.keys[id] if id is not None else None
        if store is not None:
            repeated = store.add(item_keys)
            if len(repeated):  # (refused at once: no more keys are written to disk)
                _refuse_repeats(path, id, repeated, chunk_rows)
        scores = {name: _stack(chunk, cols) for name, cols in systems.items()}
        if args.test == "mcnemar" and len(systems) == 2 and all(
                len(cols) == 1 for cols in systems.values()):  # (the file's rows named)
            zero_one_counts(*scores.values(),
                            lambda i, at=chunk.first: f"{path}, data row {at + i + 1},")
        labels = dataclasses.replace(data, groups=_labels(chunk, group),
                                     strata=_labels(chunk, stratum))
        part = arrays_part(scores, args, labels, keys=item_keys,
                           id_offset=None if id is not None else chunk.first)
        total = part if total is None else merge([total, part])
        if args.progress is not None:
            args.progress(path, chunk.first + chunk.n)
    if total is None:
        raise InputError(f"{path}: no rows: there are no items to compare")
    return total


CHUNK_NUMBERS = 2 * CHUNK_ROWS
"""Scores per chunk (rows x numeric columns): a chunk's working set (the scores, each
system's statistics, the differences, their copies on the way to the sums) is about 16
times this in bytes whatever the number of systems, so a file of 20 systems' columns is
read in chunks a tenth as long as a file of two (docs/performance.md)."""

_FEWEST_ROWS = 4096
"""Rows per chunk however many columns a file has (each chunk costs a kernel call)."""


KERNEL_BYTES = 170 << 20
"""What numba and the compiled Poisson kernel take once loaded (measured:
docs/performance.md, "`--stream`'s peak memory")."""

READER_BYTES = 100 << 20
"""What pyarrow takes once imported, with pandas, which it imports (measured: ibid.)."""

CHUNK_BYTES = 160 << 20
"""A chunk of :data:`CHUNK_NUMBERS` scores read, keyed and summed, with the reader's
blocks and pyarrow's pool, ids included (measured: ibid.)."""


def check_room_for_chunks(n_numbers: int, n_resamples: int, backend: str) -> None:
    """Refuse, before anything is loaded or read, a run in chunks that would take this
    process past the memory it may use (a container's or CI job's cgroup limit: the
    kernel kills a process past it without a word): the kernel and pyarrow not yet
    loaded, a chunk, and the resampled sums of ``n_numbers`` score columns in all (a
    part's, the total and their sum)."""
    needed = CHUNK_BYTES + 8 * 3 * n_resamples * (3 * n_numbers + 2)
    if backend != "numpy" and "numba" not in sys.modules:
        needed += KERNEL_BYTES
    if "pyarrow" not in sys.modules:
        needed += READER_BYTES
    check_room(needed, "reading the files in chunks needs about {size} (the compiled "
               "kernel, pyarrow, a chunk of rows and the resampled sums)",
               "this is the least a run in chunks holds; raise the memory limit",
               param="n_resamples")


def chunk_size(chunk_rows: int, n_numbers: int) -> int:
    """Rows per chunk for ``n_numbers`` numeric columns: ``chunk_rows`` at most, and no
    more than :data:`CHUNK_NUMBERS` scores in all (at least :data:`_FEWEST_ROWS`)."""
    return min(chunk_rows, max(_FEWEST_ROWS, CHUNK_NUMBERS // max(n_numbers, 1)))


def _id_text(path: str, id: str, wanted: np.ndarray, chunk_rows: int) -> dict:
    """The ids (and data rows) whose keys are ``wanted``: a second read, for a message."""
    found: dict = {}
    for chunk in scan(path, labels=[id], keys=[id], chunk_rows=chunk_rows):
        hit = np.flatnonzero(np.isin(chunk.keys[id], wanted))
        names, codes = chunk.labels[id]
        for i in hit.tolist():
            found.setdefault(int(chunk.keys[id][i]), (names[codes[i]], []))[1].append(
                chunk.first + i + 1)
        if len(found) == len(wanted) and all(len(v[1]) > 1 for v in found.values()):
            break
    return found


def _refuse_repeats(path, id, repeated: np.ndarray, chunk_rows) -> None:
    """Refuse the ids of keys ``repeated`` (a store's :meth:`_KeyStore.repeated`, or a
    chunk's), naming the first and two of its rows (a second read of the file)."""
    if len(repeated):
        text, rows = next(iter(_id_text(path, id, repeated[:1], chunk_rows).values()))
        where = " and ".join(str(r) for r in rows[:2])
        raise InputError(f"{path}, column {id!r}: duplicate id {shown(text)} (data rows "
                         f"{where}); ids must be unique", param="id")


def _side_by_side(parts: Sequence[PoissonPart], files: Sequence[str]) -> PoissonPart:
    """Parts of the same items holding different systems, as one part of all systems."""
    first = parts[0]
    for path, p in zip(files[1:], parts[1:]):
        same = (np.array_equal(p.strata, first.strata) and np.array_equal(p.items, first.items)
                and np.array_equal(p.totals, first.totals)
                and np.array_equal(p.swapped_units, first.swapped_units))
        if same and first.groups is not None:
            same = all(np.array_equal(ga[0], gb[0]) and np.array_equal(ga[1], gb[1])
                       for ga, gb in zip(first.groups, p.groups))
        if not same:
            raise InputError(f"{files[0]} and {path} have the same ids but not the same "
                             "groups or strata: give each file the same group and stratum "
                             "of every item")
    return dataclasses.replace(
        first, names=tuple(n for p in parts for n in p.names),
        sums=np.concatenate([p.sums for p in parts], axis=2),
        observed=np.concatenate([p.observed for p in parts], axis=1),
        absolute=np.concatenate([p.absolute for p in parts], axis=1),
        constant=np.concatenate([p.constant for p in parts]),
        extremes=None if any(p.extremes is None for p in parts) else np.concatenate(
            [p.extremes for p in parts], axis=1),
        exact=None if any(p.exact is None for p in parts) else tuple(
            tuple(u for p in parts for u in p.exact[h]) for h in range(len(first.strata))),
        swapped=None if first.swapped is None else np.concatenate(
            [p.swapped for p in parts], axis=2))


def compare_files(
    files: Sequence[str],
    *,
    a=None,
    b=None,
    systems: Mapping[str, Sequence[str] | str] | None = None,
    score=None,
    names: Sequence[str] | None = None,
    id: str | None = None,
    group: str | None = None,
    stratum: str | None = None,
    strata_weights: Mapping | None = None,
    metric: str | Metric = "mean",
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    method: str = "percentile",
    alternative: str = "two-sided",
    hypothesis: str = "difference",
    margin: float | Mapping | None = None,
    lower_is_better: bool = False,
    seed: int | str | None = None,
    family: Mapping | None = None,
    chunk_rows: int = CHUNK_ROWS,
    backend: str = "auto",
    progress: Callable[[str, int], None] | None = None,
    scheduler: str | None = None,
    timeout: float | None = None,
    test: str | None = None,
) -> CompareResult | FamilyResult:
    """The Poisson bootstrap of files read once in chunks (see the module's docstring).

    One file: ``a`` and ``b`` (a column each, or the columns of the metric's statistics)
    or ``systems`` (name -> columns) in it.  Several files, a system each: ``score`` (the
    column, or the statistics' columns, in every file), ``names`` (default the files'
    stems) and ``id`` (required).  ``family`` (keywords of :func:`pairboot.compare_many`:
    ``baseline``, ``pairs``, ``correction``, ``lower_is_better``) makes it a family;
    without it, two systems give :func:`pairboot.compare`'s result (B minus A).
    The answer is ``compare(..., ids=..., resampling="poisson", seed=...)``'s on the same
    data (to rounding; exactly for integer-valued statistics).  Without ``seed`` a fresh
    one is drawn (there is no data to derive one from before reading); it is reported.
    ``progress(path, rows)`` is told the rows of file ``path`` read so far;
    ``alternative``, ``hypothesis``, ``margin`` and ``lower_is_better`` as for
    :func:`pairboot.compare` (a family's ``margin`` as for :func:`pairboot.compare_many`;
    ``family``'s ``lower_is_better``, where given, is the same option).

    ``scheduler``: the address of a Dask scheduler (``tcp://host:8786``): the workers
    read the files (paths they can reach: a shared disk, ``s3://...``) with
    ``dask.dataframe`` and sum their partitions (:mod:`pairboot.dask`); the same answer.
    Two files' id sets are then compared by their checksums (count and an
    order-independent hash), not id by id.  ``timeout`` bounds the wait for the cluster.

    ``test`` (``"permutation"`` or ``"mcnemar"``, two systems): the test beside the
    interval, as ``compare(..., test=...)`` reports it: every chunk adds its sums for it
    (:mod:`pairboot.partitioned.part_tests`).  McNemar's needs each item's two 0/1
    scores in one file; a family's permutation test (Westfall-Young's) needs the
    systems' columns in one file.
    """
    files = list(files)
    own = {**locals(), **_family_keywords(family)}
    many = family is not None or (len(files) > 2 if len(files) > 1 else
                                  systems is not None and len(systems) != 2)
    args, data = check_options(own, family=many)
    args = check_before_reading(args)
    refuse_trials_in_files(data.metric)
    if len(files) == 1:
        if systems is None:
            if a is None or b is None:
                raise InputError("one file needs `a` and `b` (or `systems`): the columns of "
                                 "the systems", param="a")
            if column_names(a, "a") == column_names(b, "b"):
                raise InputError(f"`a` and `b` are the same column {shown(a)}", param="a")
            systems = {"A": a, "B": b}
        systems = {str(k): column_names(v, str(k)) for k, v in systems.items()}
        _refuse_shared_columns(systems)
    else:
        if id is None:
            raise InputError("several files need `id`: the column that pairs their items",
                             param="id")
        cols = column_names(score if score is not None else "score", "score")
        if names is None and family is None and len(files) == 2:
            names = ["A", "B"]  # (two systems: their files' stems may well agree)
        names = list(names) if names is not None else names_of_files(files)
        if len(names) != len(files) or len(set(names)) != len(names):
            raise InputError(f"`names` must name the {len(files)} files, each once",
                             param="names")
        if family is None and len(files) == 2:
            names = ["A", "B"]
        systems = None
        if args.test == "mcnemar":
            raise InputError("`test='mcnemar'` needs each item's two 0/1 scores side by "
                             "side (its 2 x 2 table), and a file per system holds them "
                             "apart: put both systems' columns in one file", param="test")
    if many:  # (before any file is read)
        refuse_family_test(args.test, apart=systems is None)
        check_family(list(systems) if systems is not None else names, data,
                     args.n_resamples)
    else:
        check_part_test(args.test, names=("A", "B"), grouped=group is not None,
                        stratified=stratum is not None)
    if scheduler is not None:
        part = _on_dask(files, systems, cols if systems is None else None, names, scheduler,
                        timeout, args, data, id=id, group=group, stratum=stratum)
        return finished(part, args, data, family=many, stacklevel=3)
    check_room_for_chunks(len(cols) * len(files) if systems is None else
                          sum(len(c) for c in systems.values()), args.n_resamples,
                          args.backend)
    preload(args.backend)
    with tempfile.TemporaryDirectory(prefix="pairboot-ids-") as folder:
        common = dict(id=id, group=group, stratum=stratum, chunk_rows=chunk_rows)
        if systems is not None:
            store = _KeyStore(folder, "0") if id is not None else None
            part = _file_part(files[0], systems, args, data, store=store, **common)
            if store is not None:
                _refuse_repeats(files[0], id, store.repeated(), chunk_rows)
        else:
            parts, stores = [], []
            for j, (path, name) in enumerate(zip(files, names)):
                stores.append(_KeyStore(folder, str(j)))
                parts.append(_file_part(path, {name: cols}, args, data, store=stores[-1],
                                        **common))
                _refuse_repeats(path, id, stores[-1].repeated(), chunk_rows)
            for path, store in zip(files[1:], stores[1:]):
                only_a, only_b, some_a, some_b = stores[0].difference(store)
                if only_a or only_b:
                    ids_a = [t for t, _ in _id_text(files[0], id, some_a, chunk_rows).values()]
                    ids_b = [t for t, _ in _id_text(path, id, some_b, chunk_rows).values()]
                    raise InputError(
                        f"{files[0]} and {path} do not hold the same ids: {only_a:,} only in "
                        f"the first, {only_b:,} only in the second (e.g. "
                        f"{', '.join(map(shown, ids_a[:2] + ids_b[:2]))})"
                        + normalisation_hint(ids_a, ids_b, files[0], path,
                                             every=(only_a, only_b)), param="id")
            part = _side_by_side(parts, files)
    return finished(part, args, data, family=many, stacklevel=3)


FAMILY_KEYWORDS = ("baseline", "pairs", "correction", "lower_is_better")
"""What ``compare_files(family=...)`` may hold: :func:`pairboot.compare_many`'s own."""


def _family_keywords(family: Mapping | None) -> dict:
    """``family``'s keywords (its ``lower_is_better`` the same option as the one given
    beside it), refusing any other."""
    for key in family or {}:
        if key not in FAMILY_KEYWORDS:
            raise TypeError(f"compare_files(family=...) takes {', '.join(FAMILY_KEYWORDS)}, "
                            f"not {key!r}")
    return dict(family or {})


def _refuse_shared_columns(systems: Mapping[str, list[str]]) -> None:
    """One file needs two systems or more, each of its own columns."""
    if len(systems) < 2:
        raise InputError("one file needs the columns of two systems or more (`systems`), "
                         f"got {len(systems)}", param="systems")
    seen: dict = {}
    for name, cols in systems.items():
        other = seen.setdefault(tuple(cols), name)
        if other != name:
            raise InputError(f"systems {shown(other)} and {shown(name)} are the same "
                             f"column(s) {', '.join(map(shown, cols))}", param="systems")


def _dask_frame(path: str, text: list[str]):
    """A file as a Dask DataFrame (read by the workers), its id and label columns as
    stripped text or integers, as the chunked reader reads them."""
    import dask.dataframe as dd

    local = "://" not in path  # (a remote file's format is its name's: no bytes to sniff)
    fmt = stream_format(path) if local else format_of(path)
    if fmt is None:
        raise unknown_format(path)
    gz = compression_of(path) == "gzip"  # (a local file: by its bytes too)
    if fmt == "parquet":
        ddf = dd.read_parquet(path)
    elif fmt in ("jsonl", "json"):  # (remote ``.json``: JSON Lines, as Dask reads it)
        ddf = dd.read_json(path, lines=True, blocksize=None if gz else 2**26,
                           compression="gzip" if gz else "infer")
    else:
        ddf = dd.read_csv(path, sep="\t" if fmt == "tsv" else ",",
                          dtype={c: "string" for c in text},
                          blocksize=None if gz else "64MB",
                          compression="gzip" if gz else None)
    missing = [c for c in text if c not in ddf.columns]
    if missing:
        raise InputError(f"{path}: no column {missing[0]!r}")
    for c in text:
        if str(ddf[c].dtype) in ("string", "object", "str"):
            ddf[c] = ddf[c].str.strip()
    return ddf


def _on_dask(files, systems, cols, names, scheduler, timeout, args: Arguments, data: Data,
             *, id, group, stratum) -> PoissonPart:
    """The total part of the files, summed by a Dask cluster's workers."""
    try:
        from distributed import Client

        from pairboot.partitioned import dask as pdask
    except ImportError:
        raise ImportError('--scheduler needs dask: pip install "pairboot[dask]"') from None
    text = [c for c in (id, group, stratum) if c]
    spec = dict(id=id, groups=group, strata=stratum)
    with Client(scheduler, timeout=timeout or 30, set_as_default=False) as client:
        if systems is not None:
            total = pdask.delayed_parts(_dask_frame(files[0], text), systems, args, data,
                                        **spec)
            return client.compute(total).result(timeout=timeout)
        pending = [pdask.delayed_parts(_dask_frame(path, text), {name: cols}, args, data,
                                       **spec) for path, name in zip(files, names)]
        parts = client.compute(pending, sync=False)
        parts = [f.result(timeout=timeout) for f in parts]
    for path, part in zip(files[1:], parts[1:]):
        if (part.n_items, part.checksum) != (parts[0].n_items, parts[0].checksum):
            raise InputError(
                f"{files[0]} and {path} do not hold the same ids ({parts[0].n_items:,} and "
                f"{part.n_items:,} rows; their ids' checksums differ)", param="id")
    return _side_by_side(parts, files)

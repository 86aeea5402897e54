"""The Poisson bootstrap on Dask DataFrames: each partition's sums on the workers.

Every partition becomes a :class:`~pairboot.partitioned.parts.PoissonPart` where it lies (its
replicate sums, R x M k numbers per stratum), the parts are added in a tree, and the
client reads the interval off the total.  The answer is
``pairboot.compare(a, b, ids=..., resampling="poisson", seed=...)``'s on the whole data
computed in memory, whatever the number of partitions, the order of the rows or the
cluster (the weights depend on the seed and the ids only).  Dask is imported when a
function is called; any active ``distributed.Client`` is used, else Dask's local
scheduler.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import numpy as np

from pairboot.errors import InputError
from pairboot.inputs.itemkeys import item_keys
from pairboot.io.runs import runs_table
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
from pairboot.partitioned.trials import check_runs
from pairboot.results.compare import CompareResult
from pairboot.results.family import FamilyResult

__all__ = ["compare", "compare_many", "parts"]

FAN_IN = 8
"""Parts added per task of the tree (the sums are small: a wide tree is cheap)."""

MAX_CHECK_BUCKETS = 16
"""The id check sorts the keys in at most this many buckets (by their top bits)."""


def _dask():
    try:
        import dask
        import dask.dataframe
    except ImportError:
        raise ImportError(
            'pairboot.dask needs Dask: pip install "pairboot[dask]"') from None
    return dask


def _check_columns(ddf, wanted: dict[str, list[str]]) -> None:
    have = {str(c) for c in ddf.columns}
    for param, cols in wanted.items():
        for c in cols:
            if c not in have:
                raise InputError(f"`{param}`: the DataFrame has no column {c!r} (it has "
                                 f"{', '.join(sorted(have)[:10])})", param=param)


def _where(df, row: int, number: int) -> str:
    """A row of partition ``number`` as a message names it: its row there, its index."""
    return f"partition {number}, its row {row} (index {df.index[row]!r})"


def _numbers(df, name: str, cols: list[str], number: int, trials: bool = False
             ) -> np.ndarray:
    """A system's columns of one partition as float64, (n,) or (n, k); an error naming
    the column, the partition and the row of the first value that is not a number.
    ``trials``: the columns are an item's trials, where a missing value is a trial not
    run (NaN), as in memory."""
    values = np.empty((len(df), len(cols)))
    for j, col in enumerate(cols):
        column = df[col]
        try:
            values[:, j] = column.to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError):  # text: find the first row that is not a number
            import pandas

            bad = (pandas.to_numeric(column, errors="coerce").isna()
                   & column.notna()).to_numpy()
            row = int(np.argmax(bad))
            raise InputError(
                f"system {name!r}, column {col!r}, {_where(df, row, number)}: "
                f"{column.iloc[row]!r} is not a number ({int(bad.sum())} such value(s) in "
                "this partition)") from None
        bad = np.isinf(values[:, j]) if trials else ~np.isfinite(values[:, j])
        if bad.any():
            row = int(np.argmax(bad))
            raise InputError(
                f"system {name!r}, column {col!r}, {_where(df, row, number)}: a missing or "
                f"non-finite value ({values[row, j]}; {int(bad.sum())} in this partition)")
    return values[:, 0] if len(cols) == 1 else values


def _partition(df, spec: dict, n_buckets: int, number: int = 0):
    """One partition's part, and (with ``n_buckets``) its id keys sorted into buckets by
    their top bits, for the check across partitions.  ``number``: the partition's, for
    messages."""
    try:
        return _partition_part(df, spec, n_buckets, number)
    except InputError as exc:
        if str(exc).startswith("system ") or "partition" in str(exc):
            raise
        raise InputError(f"partition {number} (rows counted within it): {exc}",
                         param=exc.param) from None


def _long(df, spec: dict):
    """A long table's partition (one row per item and trial, every row of an item here)
    as every system's items x trials table, the items' ids, groups and strata
    (:func:`pairboot.io.runs_table`: an (item, trial) twice, or an item whose group or
    stratum differs between its rows, is refused naming them)."""
    table = runs_table(df, id=spec["id"], run=spec["run"], kind="samples",
                       score={name: cols[0] for name, cols in spec["systems"].items()},
                       group=spec["groups"], stratum=spec["strata"])
    return table.values, np.array(table.ids, dtype=object), table.groups, table.strata


def _partition_part(df, spec: dict, n_buckets: int, number: int):
    trials = spec["args"].runs is not None
    if spec["run"] is not None:
        systems, ids, groups, strata = _long(df, spec)
    else:
        systems = {name: _numbers(df, name, cols, number, trials)
                   for name, cols in spec["systems"].items()}
        ids = None if spec["id"] is None else df[spec["id"]]
        groups = None if spec["groups"] is None else df[spec["groups"]]
        strata = None if spec["strata"] is None else df[spec["strata"]]
    keys = None
    if ids is not None:
        try:
            keys = item_keys(ids, len(ids), True)
        except InputError as exc:
            raise InputError(f"`id` (column {spec['id']!r}), partition {number} (rows "
                             f"counted within it): {exc}", param="id") from None
    labels = dataclasses.replace(spec["data"], groups=groups, strata=strata)
    item_ids = None if ids is None or not trials else np.asarray(ids)
    part = arrays_part(systems, spec["args"], labels, keys=keys, item_ids=item_ids)
    if not n_buckets:
        return part, ()
    keys = np.sort(keys)
    shift = np.uint64(64 - (n_buckets.bit_length() - 1))  # (n_buckets: a power of 2, > 1)
    edges = np.searchsorted(keys >> shift, np.arange(n_buckets + 1, dtype=np.uint64))
    return part, tuple(keys[edges[j]:edges[j + 1]] for j in range(n_buckets))


def _repeats(*arrays) -> int:
    """How many keys repeat among sorted arrays (of one bucket)."""
    keys = np.sort(np.concatenate(arrays)) if arrays else np.zeros(0, np.uint64)
    return int(np.count_nonzero(keys[1:] == keys[:-1]))


def _total(part: PoissonPart, id_column, *repeats) -> PoissonPart:
    n = sum(repeats)
    if n:
        raise InputError(f"`id`: {n} id(s) of column {id_column!r} are on more than one row "
                         "(in different partitions); every item needs its own id", param="id")
    return part


def _merge(*parts) -> PoissonPart:
    return merge(parts)


def parts(ddf, systems: Mapping[str, str | Sequence[str]], *, id: str | None = "id",
          groups: str | None = None, strata: str | None = None,
          metric: str | Metric = "mean", n_resamples: int = 10_000, seed: int,
          check_ids: bool = True, test: str | None = None, runs: str | None = None,
          run: str | None = None):
    """A Dask ``Delayed`` of the sum of every partition's :class:`PoissonPart`.

    ``systems``: system name -> its column (or list of columns, in the order of the
    metric's statistics).  ``check_ids`` also proves that no id is on two rows across
    partitions: every partition sorts its ids' 64-bit keys into buckets by their top
    bits and each bucket is checked on its own (8 bytes per row travel once; within a
    partition the check is always made).  ``test``: the test whose sums the parts
    carry too, and ``runs="samples"`` (a system's columns its trials; with ``run``, a
    long table's trial column, :func:`compare`) as there
    (:func:`pairboot.partitioned.parts.part_from_arrays`).  Compute it with
    any scheduler, e.g. ``client.compute(p).result(timeout=600)``, and read the answer with
    :func:`pairboot.partitioned.parts.finish`.
    """
    args, data = check_options(locals())
    return delayed_parts(ddf, systems, args, data, id=id, groups=groups, strata=strata,
                         check_ids=check_ids, run=run)


def delayed_parts(ddf, systems: Mapping[str, str | Sequence[str]], args: Arguments,
                  data: Data, *, id: str | None, groups: str | None, strata: str | None,
                  check_ids: bool = True, run: str | None = None):
    """:func:`parts` on checked options: ``id``, ``groups``, ``strata`` and ``run``
    are columns (each partition's labels replace ``data``'s)."""
    check_runs(args, data)  # (before any partition is read)
    dask = _dask()
    spec_systems = {str(name): column_names(cols, str(name)) for name, cols in systems.items()}
    if run is not None:
        _check_long(spec_systems, args, id)
    wanted = dict(spec_systems)
    for param, col in (("id", id), ("groups", groups), ("strata", strata), ("run", run)):
        if col is not None and not isinstance(col, str):
            raise InputError(f"`{param}` must be a column name, got {col!r}", param=param)
        if col is not None:
            wanted[param] = [col]
    if id is None and groups is None:
        raise InputError("`id` is required (the column of item ids that key the weights), "
                         "unless `groups` is given", param="id")
    _check_columns(ddf, wanted)
    used = list(dict.fromkeys(c for cols in wanted.values() for c in cols))
    spec = {"systems": spec_systems, "id": id, "groups": groups, "strata": strata,
            "run": run, "args": dataclasses.replace(args, progress=None), "data": data}
    frame = ddf[used]
    if run is not None:  # (every row of an item to one partition, where it is reduced)
        frame = frame.shuffle(on=id)
    chunks = frame.to_delayed()
    check = check_ids and id is not None and len(chunks) > 1
    n_buckets = 1 << (min(len(chunks), MAX_CHECK_BUCKETS) - 1).bit_length() if check else 0
    task = dask.delayed(_partition, nout=2, pure=False)
    outputs = [task(chunk, spec, n_buckets, j) for j, chunk in enumerate(chunks)]
    level = [out[0] for out in outputs]
    while len(level) > 1:
        level = [dask.delayed(_merge, pure=False)(*level[i:i + FAN_IN])
                 for i in range(0, len(level), FAN_IN)]
    repeats = [dask.delayed(_repeats, pure=False)(*[out[1][j] for out in outputs])
               for j in range(n_buckets)]
    return dask.delayed(_total, pure=False)(level[0], id, *repeats)


def _check_long(systems: dict, args: Arguments, id: str | None) -> None:
    """What a long table of trials (``run``: one row per item and trial) needs."""
    if args.runs != "samples":
        raise InputError("`run` names the trial column of a long table (one row per item "
                         "and trial): give `runs='samples'` too", param="run")
    if id is None:
        raise InputError("`run` needs `id`: an item's trials are gathered by its id",
                         param="id")
    for name, cols in systems.items():
        if len(cols) != 1:
            raise InputError(f"`{name}`: with `run` a system is one column of scores (one "
                             f"row per item and trial), got {len(cols)} columns", param=name)


def _compute(obj, timeout: float | None):
    """``obj`` computed on the active distributed Client (waiting at most ``timeout``
    seconds), else on Dask's default scheduler."""
    try:
        from distributed import default_client
        client = default_client()
    except (ImportError, ValueError):
        client = None
    if client is not None:
        return client.compute(obj).result(timeout=timeout)
    return _dask().compute(obj)[0]


def compare(ddf, a: str | Sequence[str], b: str | Sequence[str], *, id: str | None = "id",
            groups: str | None = None, strata: str | None = None, strata_weights=None,
            metric: str | Metric = "mean", n_resamples: int = 10_000,
            confidence_level: float = 0.95, method: str = "percentile",
            alternative: str = "two-sided", hypothesis: str = "difference",
            margin: float | None = None, lower_is_better: bool = False, seed=None,
            paired: bool = True, group_weighting: str = "items", check_ids: bool = True,
            timeout: float | None = None, test: str | None = None,
            runs: str | None = None, run: str | None = None) -> CompareResult:
    """:func:`pairboot.compare` with ``resampling="poisson"`` on a Dask DataFrame.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
        One row per item.
    a, b : str or list of str
        System A's and B's column; a pooled metric's columns as a list, in the order of
        its statistics (``["tp_a", "fp_a", "fn_a"]`` for ``metric="f1"``).
    id : str or None
        The column of item ids (text or integers, no two alike): the keys of the weights.
        May be None with ``groups`` (a group's key is its label).
    groups, strata : str, optional
        Columns of group and stratum labels, as for :func:`pairboot.compare`.  A group
        may be spread over partitions.
    strata_weights, metric, n_resamples, confidence_level, method, alternative,
    hypothesis, margin, lower_is_better
        As for :func:`pairboot.compare`; ``method`` is ``"percentile"``, ``"basic"`` or
        ``"normal"`` (BCa and the studentized interval need every item in one place).
    seed : int, "random" or None
        Without one a seed is drawn (there is no data in one place to derive it from),
        and reported as ``result.seed``.
    paired, group_weighting
        Their defaults only (an unpaired draw and a mean of group means need the items
        in one place).
    check_ids : bool, default True
        Prove that no id is on two rows in different partitions (:func:`parts`).
    timeout : float, optional
        Seconds to wait for a distributed Client's result.
    test : {None, "permutation", "mcnemar"}
        A test beside the interval, as for :func:`pairboot.compare`: every partition
        adds its sums for it, and the p-value is the in-memory one (the permutation
        test's swaps always random on parts, never enumerated).
    runs : {None, "samples"}
        ``"samples"``: ``a`` and ``b`` are lists of columns, an item's trials (a missing
        value: a trial not run), and ``metric`` the mean (pass@1) or a metric of k
        trials (``"pass^4"``, ``"pass@4"``, ``"maj@5"``): every row is reduced to its
        estimate where it lies, then summed, as :func:`pairboot.compare` with
        ``runs="samples"`` does (:mod:`pairboot.partitioned.trials`).
    run : str, optional
        With ``runs="samples"``, a long table instead: one row per item and trial,
        ``run`` the trial's column and ``a``, ``b`` a column of scores each.  The rows
        are shuffled by ``id`` so that every item's trials meet in one partition, then
        reduced there as above (:func:`pairboot.io.runs_table`: an (item, trial) on two
        rows is refused, naming them; an item's groups and strata are the same on all
        its rows).
    """
    args, data = check_options(locals())
    args = check_before_reading(args)
    check_runs(args, data)
    check_part_test(args.test, names=("a", "b"), grouped=groups is not None,
                    stratified=strata is not None)  # (before any partition is read)
    total = delayed_parts(ddf, {"a": a, "b": b}, args, data, id=id, groups=groups,
                          strata=strata, check_ids=check_ids, run=run)
    return finished(_compute(total, timeout), args, data, stacklevel=3)


def compare_many(ddf, systems: Sequence[str] | Mapping[str, str | Sequence[str]], *,
                 id: str | None = "id", baseline: str | None = None,
                 pairs: Sequence[tuple[str, str]] | None = None, correction: str = "max-t",
                 lower_is_better: bool = False, groups: str | None = None,
                 strata: str | None = None, strata_weights=None,
                 metric: str | Metric = "mean", n_resamples: int = 10_000,
                 confidence_level: float = 0.95, method: str = "percentile",
                 alternative: str = "two-sided", hypothesis: str = "difference",
                 margin=None, seed=None,
                 paired: bool = True, group_weighting: str = "items",
                 check_ids: bool = True, timeout: float | None = None,
                 test: str | None = None, runs: str | None = None,
                 run: str | None = None) -> FamilyResult:
    """:func:`pairboot.compare_many` with ``resampling="poisson"`` on a Dask DataFrame.

    ``systems``: a list of columns (one per system, named by its column), or a mapping
    from system name to its column or list of columns (a pooled metric's statistics, in
    the metric's order).  The other arguments as for :func:`compare` and
    :func:`pairboot.compare_many` (``margin`` one number, or one per pair); ``test``:
    ``"permutation"``, Westfall-Young's max-T over random relabellings of the systems
    per item (as in memory with ``resampling="poisson"`` and the same seed); ``runs``:
    ``"samples"``, every system's list of columns its trials, or with ``run`` its
    column of a long table (:func:`compare`).
    """
    args, data = check_options(locals(), family=True)
    refuse_family_test(args.test)
    if isinstance(systems, Mapping):
        spec = {str(k): v for k, v in systems.items()}
    elif isinstance(systems, Sequence) and not isinstance(systems, str):
        spec = {str(c): c for c in systems}
    else:
        raise InputError(f"`systems` must be a list of columns or a mapping from system "
                         f"name to columns, got {type(systems).__name__}", param="systems")
    if len(spec) < 2:
        raise InputError(f"`systems` must name at least two systems, got {len(spec)}",
                         param="systems")
    check_family(list(spec), data, args.n_resamples)  # (before any partition is read)
    args = check_before_reading(args)
    total = delayed_parts(ddf, spec, args, data, id=id, groups=groups, strata=strata,
                          check_ids=check_ids, run=run)
    return finished(_compute(total, timeout), args, data, family=True, stacklevel=3)

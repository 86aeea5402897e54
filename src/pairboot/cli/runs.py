"""``pairboot compare --run COL --runs seeds|samples``: long tables of several runs.

One row per item and run: one file with the systems' columns (``--a`` and ``--b``, or
``--systems`` for a family) or a file per system (``--score``; more than two files, or a
family option, make a family), each with the item id (``--id``) and the run (``--run``).
The rows become each system's items x runs table, items in the first file's order, runs
in order of first appearance; for ``seeds`` every item must have every run (the message
names the first missing cell), for ``samples`` a missing cell is NaN.  Files may have
different runs, unless ``--paired-runs`` (then every file must have the first file's run
labels, and runs are matched by them).  ``--group`` and ``--stratum`` name columns of
the first file whose value is the same on all of an item's rows.  A family goes to
:func:`pairboot.compare_many` with ``runs=``.
"""

from __future__ import annotations

import os

import pairboot.io as pbio
from pairboot.cli.inputs import (
    ManyInputs,
    file_systems,
    report_context,
    system_columns,
)
from pairboot.cli.parser import cli_spelling
from pairboot.cli.stats import find_system_column, stat_names
from pairboot.cli.weights import strata_weights_arg
from pairboot.errors import InputError
from pairboot.metrics import resolve_metric, trials_metric

__all__ = ["load_runs", "load_runs_many", "samples_note"]


def _check(args) -> None:
    """What every long table of runs needs, and the options it cannot honour."""
    if args.runs is None:
        raise InputError("--run needs --runs seeds or --runs samples")
    if args.id is None:
        raise InputError("--run needs --id (the item of every row)")
    for flag, given in (("--labels", args.labels), ("--common-items", args.common_items)):
        if given:
            raise InputError(f"{flag} with --run: long tables of runs do not take it yet")


def _pooled(args) -> bool:
    """Whether the metric pools statistics (a metric such as F1): then every system's
    table is items x runs x statistics; a metric of k trials (pass^4) reads one 0/1
    score per item and trial."""
    if trials_metric(args.metric_object) is not None:
        return False
    k = len(stat_names(args) or ["score"])
    return not resolve_metric(args.metric_object, k).mean_like


def _score(columns: list[str], pooled: bool):
    """A system's score columns as :func:`pairboot.io.runs_table` takes them: one column
    (items x runs), or a list of statistics (items x runs x statistics, a pooled metric)."""
    return columns if pooled or len(columns) > 1 else columns[0]


def _per_file(args, files: list[str], names: list[str]):
    """A file per system (``names``, in order): each one's items x runs table (items x
    runs x statistics for a pooled metric; the first file's items and, under
    --paired-runs, its runs' labels), and the tables read."""
    stats = stat_names(args) or ["score"]
    pooled = _pooled(args)
    tables = [pbio.read_table(f) for f in files]
    found = pbio.runs_per_system(
        dict(zip(names, tables)), id=args.id, run=args.run, score=_score(stats, pooled),
        kind=args.runs, group=args.group, stratum=args.stratum,
        paired_runs=args.paired_runs)
    return found, tables


def _labels(labels) -> list | None:
    """The items' groups or strata as the inputs hold them (a list, or None)."""
    return None if labels is None else list(labels)


def samples_note(tables, args) -> tuple[str, ...]:
    """For ``--runs samples``: what the items' scores are (the mean of the samples, or
    the metric of k trials ``--metric`` or ``--curve`` names), and how many samples they
    have (the family's report says nothing else about the runs)."""
    trials = getattr(args, "curve", None)
    if trials is None and trials_metric(getattr(args, "metric_object", None)) is not None:
        trials = trials_metric(args.metric_object).name
    return tuple(cli_spelling(note) for note in pbio.samples_note(tables, trials))


def load_runs(args):
    """``(a, b, ids, groups, strata, context)``: the systems' items x runs tables of the
    command line, and the items' groups and strata (None without them)."""
    _check(args)
    files = list(args.files)
    if len(files) == 1:
        if args.a is None or args.b is None:
            raise InputError("with one file, give --a COL and --b COL")
        first = pbio.read_table(files[0])
        stats = stat_names(args)
        pooled = _pooled(args)
        score = {key: _score([system] if stats is None else [
            find_system_column(first, system, st) for st in stats], pooled)
            for key, system in (("a", args.a), ("b", args.b))}
        found = pbio.runs_table(first, id=args.id, run=args.run, score=score,
                                kind=args.runs, group=args.group, stratum=args.stratum)
        names = (args.a, args.b)
    elif len(files) == 2:
        found, _ = _per_file(args, files, ["a", "b"])
        names = tuple(os.path.basename(f) for f in files)
    else:
        raise InputError("--run compares two systems: one file with --a and --b, or two")
    a, b = found.values.values()
    # (found.notes: the two systems' report says itself how many samples an item has)
    context = report_context(args, stat_names(args), name_a=names[0], name_b=names[1],
                       files=tuple(files), layout=f"one row per item and run ({args.run!r})",
                       notes=())
    return a, b, list(found.ids), _labels(found.groups), _labels(found.strata), context


def load_runs_many(args) -> ManyInputs:
    """A family of systems with several runs each: one file with ``--systems`` (a column
    per system) or a file per system (``--score``), as :class:`ManyInputs` whose values
    are the systems' items x runs tables."""
    _check(args)
    files = list(args.files)
    if args.a is not None or args.b is not None:
        raise InputError("--a/--b name two systems; with several, give --systems COLS or "
                         "a file per system")
    if args.stats is not None or _pooled(args):
        raise InputError("--stats or a pooled --metric with --run compares two systems; a "
                         "family of several systems with runs takes one score column per "
                         "system (not yet a pooled metric)")
    if args.systems is not None:
        columns, names = system_columns(args, files)
        table = pbio.read_table(files[0])
        found = pbio.runs_table(table, id=args.id, run=args.run,
                                score=dict(zip(names, columns)), kind=args.runs,
                                group=args.group, stratum=args.stratum)
        paths = (table.path,)
        layout = f"one row per item and run ({args.run!r}), a column per system"
    else:
        names = file_systems(args, files)
        found, tables = _per_file(args, files, names)
        paths = tuple(t.path for t in tables)
        layout = f"one row per item and run ({args.run!r}), a file per system"
    return ManyInputs(
        names=tuple(names), values=tuple(found.values.values()),
        groups=_labels(found.groups), strata=_labels(found.strata),
        strata_weights=strata_weights_arg(args), files=paths, layout=layout,
        notes=tuple(cli_spelling(note) for note in found.notes), ids=list(found.ids))

"""``pairboot compare --stream``: files larger than memory, read once in chunks.

A thin shell over :func:`pairboot.compare_files` (the Poisson bootstrap, summed chunk by
chunk): the options name the columns, the status line counts the rows read, and the
report is the usual one.  Layouts: one file with ``--a``/``--b`` (or ``--systems``), or a
file per system with ``--id`` and ``--score`` (or ``--stats``).
"""

from __future__ import annotations

import pairboot
import pairboot.io as pbio
from pairboot.cli import signals
from pairboot.cli.inputs import (
    GROUP_HINTS,
    file_systems,
    input_notes,
    many_systems,
    report_context,
    system_columns,
)
from pairboot.cli.options import api_options, family_options
from pairboot.cli.parser import cli_spelling
from pairboot.cli.stats import find_system_column, stat_names
from pairboot.cli.weights import strata_weights_arg
from pairboot.errors import InputError

__all__ = ["stream_compare"]

_REFUSED = {
    "unpaired": "--unpaired",
    "plan": "--plan",
    "labels": "--labels",
    "common_items": "--common-items",
}

_NOT_SCORE_FILES = {
    "from_format": "--from",
    "log_option": "--log-option",
    "correct": "--correct",
    "null": "--null",
    "system_column": "--system-column",
    "tasks_as": "--tasks-as",
    "run": "--run",
    "runs": "--runs",
    "paired_runs": "--paired-runs",
}
"""Options of harness logs, long tables and several runs per system, which are read in
memory: --stream reads files of score columns (each refused, not ignored)."""


FILE_OPTIONS = ("metric", "n_resamples", "confidence_level", "method", "alternative",
                "hypothesis", "margin", "lower_is_better", "seed", "test")
"""The shared options a run on files takes (pairing and group weighting are refused)."""


def _refuse(args) -> None:
    if pbio.STDIN in args.files:
        raise InputError("--stream reads files from disk, not standard input ('-'): save "
                         "it to a file, or leave out --stream to read it into memory")
    for option, flag in _REFUSED.items():
        if getattr(args, option, None):
            raise InputError(f"--stream does not take {flag} (it needs the items in memory)")
    for option, flag in _NOT_SCORE_FILES.items():
        if getattr(args, option, None):
            raise InputError(f"--stream does not take {flag}: it reads files of score "
                             "columns (CSV, TSV, JSON Lines, Parquet) in chunks; harness "
                             "logs, long tables and runs are read in memory: leave out "
                             "--stream")
    if args.exact:  # (--no-exact: random swaps, what parts draw anyway)
        raise InputError("--stream does not take --exact: files read in chunks never "
                         "enumerate the swaps (their items are never in one place); leave "
                         "it out for the permutation test on random swaps")
    if args.resampling == "classic":
        raise InputError("--stream resamples with Poisson weights (--resampling poisson): "
                         "the classic bootstrap needs every item in memory")
    if args.group_weighting == "groups":
        raise InputError("--stream takes --group-weighting items only: a group's mean "
                         "needs all its items in memory")


def stream_compare(args, status):
    """Run the comparison of ``args`` on the files read in chunks: ``(result, context,
    family)`` with ``family`` True for a family of comparisons."""
    from pairboot.report import UNPLANNED, FamilyContext  # (a family's: on first use)

    _refuse(args)
    files = list(args.files)
    family = many_systems(args)  # (--plan is refused above)
    _check_layout(args, files, family)
    pair = _two_systems(args, files) if family else None
    if pair is not None:  # a family of two: one comparison, the two-system report
        family = False
        files, pair_names = pair
    keywords = dict(
        id=args.id, group=args.group, stratum=args.stratum,
        strata_weights=strata_weights_arg(args), progress=_progress(status),
        scheduler=args.scheduler, **api_options(args, FILE_OPTIONS),
    )
    if family:
        keywords["family"] = family_options(args)
    if len(files) == 1:
        if args.systems is not None:
            columns, names = system_columns(args, files)
        elif args.a is not None and args.b is not None:
            if args.a == args.b:  # (as in memory; a dict would keep one of them)
                raise InputError(f"--a and --b are the same column {args.a!r}")
            columns = names = [args.a, args.b]
        else:
            raise InputError("--stream with one file: give --a COL and --b COL (or --systems)")
        systems = dict(zip(names, _statistic_columns(args, files[0], columns)))
        name_a, name_b = args.a, args.b
        if pair is not None:
            systems = {n: systems[n] for n in pair_names}
            name_a, name_b = pair_names
        if not family:
            systems = dict(zip(("A", "B"), systems.values()))
        result = pairboot.compare_files(files, systems=systems, **keywords)
        used = {c for cols in systems.values() for c in cols}
        layout = (f"{result.n_items:,} items in {files[0]}, a column per system (read in "
                  "chunks)")
    else:
        stats = stat_names(args)
        result = pairboot.compare_files(
            files, score=stats if stats is not None else "score",
            names=file_systems(args, files) if family else None, **keywords)
        name_a, name_b = file_systems(args, files) if pair is None else pair_names
        used = set(stats) if stats is not None else {"score"}
        layout = (f"{result.n_items:,} items joined on column {args.id!r} (read in "
                  "chunks)")
    if family:
        context = FamilyContext(files=tuple(files), layout=layout,
                                notes=_input_notes(args, files, used), plan_sha256=None,
                                family_note=UNPLANNED if len(result.systems) >= 3 else None,
                                reword=cli_spelling, id=args.id, group=args.group,
                                stratum=args.stratum, stratum_weights=args.stratum_weights)
    else:
        context = report_context(args, stat_names(args), name_a=name_a, name_b=name_b,
                                 files=tuple(files), layout=layout,
                                 notes=_input_notes(args, files, used))
    return result, context, family


def _check_layout(args, files: list[str], family: bool) -> None:
    """The options of the other layout, refused as in memory (not ignored): --a/--b and
    --systems name one file's columns, --score the column of a file per system, and a
    family (--names, --baseline, --correction, more systems) is not --a/--b."""
    if len(files) == 1:
        if (args.a is not None or args.b is not None) and (family or args.systems):
            raise InputError("--a/--b name two systems; with several, give a file per "
                             "system or --systems COLS")
        if args.systems is None and args.score is not None:
            raise InputError("--score is for two files; with one file --a and --b name the "
                             "columns")
        return
    if args.a is not None or args.b is not None:
        raise InputError("--a/--b name the systems' columns in the one-file layout; with two "
                         "files give --score (or --stats) for the column in both")
    if args.systems is not None:
        raise InputError(f"--systems names the columns of one file, got {len(files)} files")


def _statistic_columns(args, path: str, columns: list[str]) -> list[list[str]]:
    """Each system's columns in a one-file layout: its column, or with a pooled metric
    (or --stats) the column of each statistic, found as in memory (``{system}_{stat}``
    and the like: :func:`pairboot.cli.stats.find_system_column`)."""
    stats = stat_names(args)
    if stats is None:
        return [[c] for c in columns]
    header = pbio.Table(path, dict.fromkeys(pbio.stream.column_names(path), ()), 0,
                        pbio.stream.stream_format(path), range(0))
    return [[find_system_column(header, c, st) for st in stats] for c in columns]


def _two_systems(args, files: list[str]) -> tuple[list[str], tuple[str, str]] | None:
    """A family of two systems is one comparison: the files (A's first) and the two
    names, A the baseline (else the first); None for a real family."""
    if len(files) == 1 and args.systems is not None:
        columns, names = system_columns(args, files)
    elif len(files) == 2:
        names = file_systems(args, files)
    else:
        return None
    if len(names) != 2:
        return None
    if args.baseline is not None and args.baseline == names[1]:
        names = names[::-1]
        files = files if len(files) == 1 else files[::-1]
    return files, (names[0], names[1])


_HEAD_ROWS = 4096
"""Rows of each file that the notes on the inputs look at."""


def _input_notes(args, files: list[str], used: set) -> tuple[str, ...]:
    """The in-memory run's notes on the inputs (:func:`pairboot.cli.inputs.input_notes`: the
    ``--group`` hint, the row-index ``--id``), from each file's first rows: a file read
    in chunks is not read a second time for them.  A column whose first rows cannot be
    read as labels (a blank value) gets no note; the comparison reports its own errors."""
    tables = []
    for path in files:
        names = pbio.stream.column_names(path)
        wanted = [c for c in names if c not in used and (
            c.strip().lower() in GROUP_HINTS or c == args.id)]
        columns = {}
        n = 0
        for name in wanted:
            try:
                chunk = next(pbio.stream.scan(path, labels=[name], chunk_rows=_HEAD_ROWS), None)
            except InputError:
                continue
            if chunk is not None:
                labels, codes = chunk.labels[name]
                columns[name], n = [labels[k] for k in codes], chunk.n
        tables.append(pbio.Table(path, columns, n, pbio.stream.stream_format(path), range(n)))
    return input_notes(args, tables, used | {args.id})


def _progress(status):
    """``progress(path, rows)`` for the reading's status line."""
    current = {"path": None}

    def progress(path: str, rows: int) -> None:
        signals.check()  # (a chunk read: stop here if a signal came)
        if path != current["path"]:
            current["path"] = path
            status.reading(path)
        status(rows)

    return progress

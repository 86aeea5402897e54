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
from pairboot.cli.stats import stat_names
from pairboot.cli.weights import strata_weights_arg
from pairboot.errors import InputError
from pairboot.report import UNPLANNED, FamilyContext

__all__ = ["stream_compare"]

_REFUSED = {
    "unpaired": "--unpaired",
    "plan": "--plan",
    "labels": "--labels",
    "common_items": "--common-items",
}


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
    if args.resampling == "classic":
        raise InputError("--stream resamples with Poisson weights (--resampling poisson): "
                         "the classic bootstrap needs every item in memory")
    if args.group_weighting == "groups":
        raise InputError("--stream takes --group-weighting items only: a group's mean "
                         "needs all its items in memory")


def stream_compare(args, status):
    """Run the comparison of ``args`` on the files read in chunks: ``(result, context,
    family)`` with ``family`` True for a family of comparisons."""
    _refuse(args)
    files = list(args.files)
    family = many_systems(args)  # (--plan is refused above)
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
            systems = dict(zip(names, columns))
        elif args.a is not None and args.b is not None:
            if args.a == args.b:  # (as in memory; a dict would keep one of them)
                raise InputError(f"--a and --b are the same column {args.a!r}")
            systems = {args.a: args.a, args.b: args.b}
        else:
            raise InputError("--stream with one file: give --a COL and --b COL (or --systems)")
        name_a, name_b = args.a, args.b
        if pair is not None:
            systems = {n: systems[n] for n in pair_names}
            name_a, name_b = pair_names
        if not family:
            systems = dict(zip(("A", "B"), systems.values()))
        result = pairboot.compare_files(files, systems=systems, **keywords)
        used = set(systems.values())
        layout = (f"{result.n_items:,} items in {files[0]}, a column per system (read in "
                  "chunks)")
    else:
        stats = stat_names(args)
        result = pairboot.compare_files(
            files, score=stats if stats is not None else "score",
            names=file_systems(args, files) if family else None, **keywords)
        name_a, name_b = (files[0], files[-1]) if pair is None else pair_names
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
        context = report_context(args, None, name_a=name_a, name_b=name_b, files=tuple(files),
                           layout=layout, notes=_input_notes(args, files, used))
    return result, context, family


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

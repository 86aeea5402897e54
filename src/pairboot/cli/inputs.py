"""From the command line's options to compare()'s inputs: which columns, read and aligned.

The options name files and columns; this module turns them into the per-item arrays,
labels and weights of :func:`pairboot.compare` through :mod:`pairboot.io` (which reads,
checks and aligns), and into the report's :class:`~pairboot.report.ReportContext`.  What
only the command line needs lives here or beside it: ``--stats`` matched to a metric's
statistics and ``--a``/``--b`` columns found by name (:mod:`~pairboot.cli.stats`),
``--stratum-weights`` parsed (:mod:`~pairboot.cli.weights`), the nudge towards
``--group``, and the refusal of a file given twice.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

import pairboot.io as pbio
from pairboot.cli.parser import cli_spelling
from pairboot.cli.progress import ReadProgress, read_progress, slow_read_note
from pairboot.cli.stats import find_system_column, split_names, stat_names, stats_mapping
from pairboot.cli.weights import strata_weights_arg
from pairboot.errors import InputError, PairbootWarning
from pairboot.metrics import (
    Metric,
    StatisticError,
    match_statistics,
    resolve_metric,
    statistics_for,
)
from pairboot.report import ReportContext

GROUP_HINTS = (
    "doc", "doc_id", "document", "document_id", "passage_id", "article_id", "group",
    "group_id", "cluster", "cluster_id", "thread", "thread_id", "conversation",
    "conversation_id", "dialog", "dialog_id", "dialogue", "dialogue_id", "session",
    "session_id", "user", "user_id", "topic", "topic_id", "query_group", "prompt_id",
    "task_id", "problem_id", "template", "template_id",
)
"""Column names (case-insensitive) that suggest items come in correlated groups."""


@dataclass(slots=True, eq=False)
class Inputs:
    """Aligned per-item inputs of compare(), and what the report says about them."""

    a: np.ndarray
    b: np.ndarray
    groups: Sequence[str] | None
    strata: Sequence[str] | None
    strata_weights: dict[str, float] | None
    context: ReportContext
    ids: Sequence[str] | None = None
    """The items' ids in item order (with --id): the Poisson weights' keys."""
    outcomes: object = None
    """Harness logs' errored and missing items (``Joined.outcomes``): the report bounds
    B - A with them."""


@dataclass(slots=True, eq=False)
class ManyInputs:
    """Aligned per-item inputs of compare_many(): the systems' names and values."""

    names: tuple[str, ...]
    values: tuple[np.ndarray, ...]
    groups: Sequence[str] | None
    strata: Sequence[str] | None
    strata_weights: dict[str, float] | None
    files: tuple[str, ...]
    layout: str
    notes: tuple[str, ...]
    ids: Sequence[str] | None = None
    common: pbio.CommonItems | None = None
    """With --common-items: the items kept, of how many, what each system lost."""


def align(tables, **options) -> pbio.Aligned:
    """:func:`pairboot.io.align`, its warning of the items --common-items dropped held
    back: the report writes them under its headline (``Aligned.common``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PairbootWarning)
        return pbio.align(tables, **options)


def many_systems(args) -> bool:
    """Whether the command compares a family of systems: more than two files, or
    --systems, --baseline, --names, --correction or --plan given."""
    return len(args.files) > 2 or any(
        getattr(args, option) is not None
        for option in ("systems", "baseline", "names", "correction", "plan"))


def load_many(args, status: ReadProgress | None = None) -> ManyInputs:
    """Read, check and align the systems of a family: a file per system (named by
    --names or the files' stems), or one file with --systems."""
    files = list(args.files)
    if args.a is not None or args.b is not None:
        raise InputError("--a/--b name two systems; with several, give a file per system "
                         "or --systems COLS")
    _check_common(args, files)
    stats = stat_names(args)
    if args.systems is not None:
        columns, names = system_columns(args, files)
        (table,) = _read_tables(args, files, status)
        per_system = [[c] if stats is None else [find_system_column(table, c, st)
                                                 for st in stats] for c in columns]
        tables = [table]
    else:
        names = file_systems(args, files)
        stats = stats if stats is not None else ["score"]
        tables = _read_tables(args, files, status)
        for t in tables:
            t.check_columns([args.id, *stats])
        per_system = [stats] * len(tables)
    aligned = align(tables, columns=per_system, id=args.id, groups=args.group,
                    strata=args.stratum, paired=not args.unpaired,
                    check=_statistics_check(args.metric_object), **pairing_options(args))
    used = {args.id, *(c for cols in per_system for c in cols)}
    return ManyInputs(
        names=tuple(names),
        values=tuple(aligned.values),
        groups=aligned.groups,
        strata=aligned.strata,
        strata_weights=strata_weights_arg(args),
        files=tuple(t.path for t in tables),
        layout=cli_spelling(aligned.layout),
        notes=(*map(cli_spelling, aligned.notes), *input_notes(args, tables, used),
               *slow_read_note(tables)),
        ids=aligned.ids,
        common=None if aligned.common is None else aligned.common.renamed(names),
    )


def as_two_systems(args, inputs: ManyInputs) -> Inputs | None:
    """A family of two systems (two files with ``--baseline``, ``--names`` or
    ``--correction``; ``--systems`` of two columns) is one comparison: the two-system
    comparison, with its report and ``--fail-if``; A is the baseline, else the first
    system.  None for a real family, or a ``--plan`` (its report carries the plan)."""
    if len(inputs.names) != 2 or args.plan is not None:
        return None
    i = inputs.names.index(args.baseline) if args.baseline is not None else 0
    stats = stat_names(args)
    context = report_context(args, stats, name_a=inputs.names[i], name_b=inputs.names[1 - i],
                             files=inputs.files, layout=inputs.layout, notes=inputs.notes,
                             items_kept=inputs.common)
    return Inputs(inputs.values[i], inputs.values[1 - i], inputs.groups, inputs.strata,
                  inputs.strata_weights, context, inputs.ids)


def check_distinct_files(args, named: Sequence[tuple[str, str]] | None = None) -> None:
    """Refuse an input given twice, in every layout: comparing a file with itself (or
    counting one log as two runs) is never a comparison.  The same file under two
    spellings (``./a.csv``, a symlink, a hard link) is the same file: paths that exist
    are compared by device and inode, others by their normalised absolute path.
    ``named``: the ``(NAME, PATH)`` pairs of inputs written ``NAME=PATH``."""
    if named is not None:
        inputs = [(path, f"a run of {name!r}") for name, path in named]
    else:
        files = [str(f) for f in args.files]
        given = [n.strip() for n in args.names.split(",")] if args.names else []
        if len(files) == 2 and not many_systems(args):
            roles = ["A", "B"]
        elif len(given) == len(files):
            roles = [f"system {n!r}" for n in given]
        else:
            roles = [f"input {k}" for k in range(1, len(files) + 1)]
        inputs = list(zip(files, roles))
    seen: dict[object, tuple[str, str]] = {}
    for path, role in inputs:
        if path == pbio.STDIN:
            continue  # (standard input twice: refused by the layouts, with its own words)
        try:
            info = os.stat(path)
            key: object = (info.st_dev, info.st_ino)
        except (OSError, ValueError):
            key = os.path.normpath(os.path.abspath(os.path.expanduser(path)))
        if key not in seen:
            seen[key] = (path, role)
            continue
        first, first_role = seen[key]
        what = (f"{path} is given twice" if path == first
                else f"{first} and {path} are the same file")
        if role == first_role:  # (two runs of one system)
            raise InputError(f"{what}, both as {role}: one log would count as two runs; "
                             "give each run its own log")
        raise InputError(f"{what} (as {first_role} and as {role}): a file compared with "
                         "itself tells nothing; give each system its own file")


def _check_common(args, files: Sequence[str]) -> None:
    """What every layout refuses: stdin twice, a weighting or weights without labels."""
    if files.count(pbio.STDIN) > 1:
        raise InputError("only one of the inputs can be standard input ('-')")
    if args.group_weighting is not None and args.group is None:
        raise InputError("--group-weighting needs --group (the column of group labels)")
    if args.stratum_weights is not None and args.stratum is None:
        raise InputError("--stratum-weights needs --stratum (the column of stratum labels)")


def file_systems(args, files: list[str]) -> list[str]:
    """A file per system: the systems' names (``--names``, or the files' stems, with as
    many folders as tell two alike apart: :func:`pairboot.io.names_of_files`), for two
    files as for a family."""
    if len(files) < 2:
        raise InputError("with one file, give --systems COLS (or --a and --b)")
    return system_names(args, pbio.names_of_files(files))


def system_columns(args, files: list[str]) -> tuple[list[str], list[str]]:
    """``--systems COLS`` of one file: the columns, and the systems' names (``--names``)."""
    if len(files) != 1:
        raise InputError(f"--systems names the columns of one file, got {len(files)} files")
    if args.score is not None:
        raise InputError("--score is for a file per system; with --systems the columns "
                         "are the systems'")
    columns = split_names(args.systems, "--systems")
    if len(columns) < 2:
        raise InputError("--systems needs at least two columns")
    return columns, system_names(args, columns)


def system_names(args, default: Sequence[str]) -> list[str]:
    """The systems' names: --names, else ``default``; each once."""
    if args.names is not None:
        names = [n.strip() for n in args.names.split(",")]
        if not all(names):
            raise InputError(f"--names: an empty name in {args.names!r}")
    else:
        names = list(default)
    if len(names) != len(default):
        raise InputError(f"--names gives {len(names)} names for {len(default)} systems")
    if len(set(names)) != len(names):
        twice = next(n for n in names if names.count(n) > 1)
        raise InputError(f"--names names {twice!r} twice" if args.names is not None else
                         f"two systems are named {twice!r}: give --names to tell them apart")
    if args.baseline is not None and args.baseline not in names:
        raise InputError(f"--baseline {args.baseline}: not one of the systems "
                         f"({', '.join(names)})")
    return names


def load_inputs(args, status: ReadProgress | None = None) -> Inputs:
    """Read, check and align the files named on the command line."""
    files = list(args.files)
    if len(files) > 2:
        raise InputError(
            f"compare takes two files (A then B) or one file with --a and --b, got {len(files)}"
        )
    _check_common(args, files)
    stats = stat_names(args)
    if len(files) == 2:
        if args.a is not None or args.b is not None:
            raise InputError(
                "--a/--b name the systems' columns in the one-file layout; with two files "
                "give --score (or --stats) for the column in both"
            )
        return _two_files(args, files, stats, status)
    if args.a is None or args.b is None:
        raise InputError(
            "with one file, give --a COL and --b COL (the columns of systems A and B); "
            "or give two files, A then B"
        )
    if args.a == args.b:
        raise InputError(f"--a and --b are the same column {args.a!r}")
    if args.score is not None:
        raise InputError("--score is for two files; with one file --a and --b name the columns")
    return _one_file(args, files[0], stats, status)


def _two_files(args, files: list[str], stats: list[str], status=None) -> Inputs:
    tables = _read_tables(args, files, status)
    for t in tables:
        missing = [s for s in stats if s not in t.columns]
        if missing and args.stats is None and len(stats) > 1:  # (--score: one stat)
            raise InputError(
                f"{t.path}: no column {missing[0]!r}; --metric {args.metric} reads the "
                f"columns {', '.join(stats)}: map yours with --stats "
                f"{stats_mapping(stats, [s.upper() for s in stats])} (your column names)"
            )
        t.check_columns([args.id, *stats])
    aligned = align(tables, columns=(stats, stats), id=args.id, groups=args.group,
                    strata=args.stratum, paired=not args.unpaired,
                    check=_statistics_check(args.metric_object), **pairing_options(args))
    ta, tb = tables
    name_a, name_b = pbio.names_of_files(files)
    context = report_context(
        args,
        stats,
        name_a=name_a,
        name_b=name_b,
        items_kept=None if aligned.common is None else aligned.common.renamed(
            [name_a, name_b]),
        files=(ta.path, tb.path),
        layout=cli_spelling(aligned.layout),
        notes=(*map(cli_spelling, aligned.notes), *input_notes(args, tables, {args.id, *stats}),
               *slow_read_note(tables)),
    )
    a, b = aligned.values
    return Inputs(a, b, aligned.groups, aligned.strata, strata_weights_arg(args), context,
                  aligned.ids)


def _one_file(args, file: str, stats: list[str] | None, status=None) -> Inputs:
    (table,) = _read_tables(args, [file], status)
    if stats is None:
        cols_a, cols_b = [args.a], [args.b]
    else:
        cols_a = [find_system_column(table, args.a, s) for s in stats]
        cols_b = [find_system_column(table, args.b, s) for s in stats]
    aligned = align([table], columns=(cols_a, cols_b), id=args.id, groups=args.group,
                    strata=args.stratum, paired=not args.unpaired,
                    check=_statistics_check(args.metric_object), **pairing_options(args))
    systems = (
        f"columns {args.a!r} and {args.b!r}"
        if stats is None
        else f"statistics {', '.join(stats)} of {args.a!r} and {args.b!r}"
    )
    context = report_context(
        args,
        stats,
        name_a=args.a,
        name_b=args.b,
        files=(table.path,),
        layout=f"{cli_spelling(aligned.layout)} ({systems})",
        notes=(*map(cli_spelling, aligned.notes),
               *input_notes(args, (table,), {args.id, *cols_a, *cols_b}),
               *slow_read_note((table,))),
    )
    a, b = aligned.values
    return Inputs(a, b, aligned.groups, aligned.strata, strata_weights_arg(args), context,
                  aligned.ids)


def _read_tables(args, files: Sequence[str], status: ReadProgress | None = None
                 ) -> list[pbio.Table]:
    """Read ``files``, with a :class:`ReadProgress` line on a terminal for slow reads.

    With the caller's ``status`` the line stays up, saying the columns are being
    prepared (numbers, ids, labels: the longer part without pyarrow), until the caller
    closes it; without, it is blanked here."""
    line = status if status is not None else read_progress(not args.no_progress)
    try:
        tables = [
            pbio.read_table(f, progress=line.reading("<stdin>" if f == pbio.STDIN else f))
            for f in files
        ]
    except BaseException:
        line.close()
        raise
    if status is None:
        line.close()
    else:
        line.preparing(sum(t.n_rows for t in tables))
    return tables


def pairing_options(args) -> dict:
    """:func:`pairboot.io.align`'s ``labels`` (the --labels file, read) and
    ``common_items`` (--common-items)."""
    labels = None
    if args.labels is not None:
        if args.labels == pbio.STDIN:
            raise InputError("--labels reads a file, not standard input")
        labels = pbio.read_table(args.labels)
    return {"labels": labels, "common_items": args.common_items}


def _statistics_check(metric: str | Metric):
    """:func:`pairboot.io.align`'s ``check``: the metric's own checks of the per-item
    statistics (counts must not be negative, ...), failing with the file, line and
    column of the value, in the file's row order."""

    def check(values: np.ndarray, table: pbio.Table, columns: Sequence[str]) -> None:
        values = values.reshape(len(values), -1)
        resolved = resolve_metric(metric, values.shape[1])
        if resolved.prepare is None or resolved.mean_like:  # (the mean's only adds a count)
            return
        try:
            resolved.per_item(values)
        except StatisticError as exc:
            raise InputError(
                f"{table.path}, {table.where(exc.item)}, column {columns[exc.stat]!r}: "
                f"{exc.reason}"
            ) from None

    return check


def report_context(args, stats: Sequence[str] | None, **fields) -> ReportContext:
    """The report's context: the given fields plus what the signature needs to rerun
    (``stats``: the statistic columns read, named in it when --stats named them, as
    ``STAT=COL`` where their names alone would not say which is which)."""
    shown = None
    if args.stats is not None:
        names = statistics_for(args.metric_object, len(stats))
        by_name = match_statistics(names, stats) == tuple(range(len(stats)))
        shown = tuple(stats) if by_name else tuple(stats_mapping(names, stats).split(","))
    return ReportContext(
        group=args.group,
        stratum=args.stratum,
        id=args.id,
        stats=shown,
        metric_source=args.metric if isinstance(args.metric_object, Metric) else None,
        stratum_weights=args.stratum_weights,
        labels=args.labels,
        common_items=args.common_items,
        reword=cli_spelling,
        lower_is_better=args.lower_is_better,
        fail_if=args.fail_if,
        **fields,
    )


def input_notes(args, tables: Sequence[pbio.Table], used: set) -> tuple[str, ...]:
    """A note suggesting --group when a column looks like a grouping of the items, and
    one when --id is a row index that pandas wrote (:func:`_index_id_note`).

    Only for a column whose name is in :data:`GROUP_HINTS` and in which some value
    repeats (a column of unique values groups nothing).
    """
    index = _index_id_note(args, tables)
    if args.group is not None:
        return index
    used = {c for c in used if c} | {args.stratum}
    seen: list[str] = []
    for t in tables:
        for col in t.columns:
            if col in used or col in seen or col.strip().lower() not in GROUP_HINTS:
                continue
            if pbio.has_repeats(pbio.label_column(t, col)):
                seen.append(col)
    return tuple(
        f"The input has a column {col!r}. If items that share a {col} are correlated "
        "(several questions about one document, turns of one conversation), resampling "
        "single items makes the interval too narrow: rerun with "
        f"`--group {col}` to resample whole groups (the cluster bootstrap)."
        for col in seen
    ) + index


def _index_id_note(args, tables: Sequence[pbio.Table]) -> tuple[str, ...]:
    """A note when the files are joined on a column that numbers their rows 0, 1, 2, ...
    and is named as pandas names its index ('Unnamed: 0'): joining on it pairs the rows
    by position, whatever items they hold."""
    if args.id is None or len(tables) < 2:
        return ()
    if not all(pbio.is_index_column(t, args.id) for t in tables):
        return ()
    return (f"--id {args.id}: the column numbers the rows of every file in order, as a "
            f"row index does ({pbio.PANDAS_INDEX_HINT}): joined on it, the rows are paired "
            "by position; if the files do not list the items in one order, join them on "
            "the items' own ids.",)


# ---------------------------------------------------------------------------- columns

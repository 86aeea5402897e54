"""The command line: ``pairboot compare ...``, a thin shell over :func:`pairboot.compare`.

It reads the inputs (:mod:`pairboot.readers`), aligns them, calls ``compare`` and writes a
report (:mod:`pairboot.report`).  Two layouts::

    pairboot compare base.csv new.csv --id id --score score     # a file per system
    pairboot compare runs.csv --a base --b new [--id id]        # a column per system

Exit status: 0 on success; 1 when ``--fail-if`` was given and the verdict fails it; 2
on bad input or usage, with one line ``error: ...`` on standard error and never a
traceback; 3 on an internal error (a bug: one line too).  The report carries
compare()'s warnings; when it is not a text or Markdown report on standard output
(``--output``, ``--format json`` or ``latex``), each warning is also one line
``warning: ...`` on standard error.  Every message uses the command line's option
names (``--resamples``, not ``n_resamples``).
"""

from __future__ import annotations

import argparse
import os
import re
import stat
import sys
import tempfile
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pairboot import readers
from pairboot._version import __version__
from pairboot.data import GROUP_WEIGHTINGS
from pairboot.errors import InputError
from pairboot.intervals import METHODS
from pairboot.metrics import (
    Metric,
    StatisticError,
    builtin_metrics,
    builtin_stats,
    load_metric,
    match_statistics,
    resolve_metric,
    statistics_for,
)
from pairboot.report import FAIL_IF, WRITERS, ReportContext, decision, render

EXIT_OK = 0
EXIT_FAILED = 1
"""``--fail-if`` was given and the verdict fails it."""
EXIT_USAGE = 2
EXIT_INTERNAL = 3

GROUP_HINTS = (
    "doc", "doc_id", "document", "document_id", "passage_id", "article_id", "group",
    "group_id", "cluster", "cluster_id", "thread", "thread_id", "conversation",
    "conversation_id", "dialog", "dialog_id", "dialogue", "dialogue_id", "session",
    "session_id", "user", "user_id", "topic", "topic_id", "query_group", "prompt_id",
    "task_id", "problem_id", "template", "template_id",
)
"""Column names (case-insensitive) that suggest items come in correlated groups."""

ID_HINTS = (
    "id", "item_id", "example_id", "sample_id", "query_id", "qid", "question_id", "uid",
    "guid", "key",
)
"""Column names (case-insensitive) that hold item ids: without --id, two files that both
have one must list the same ids in the same order, or the pairing by position is refused."""

_API_SPELLINGS: tuple[tuple[re.Pattern, str], ...] = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r"`?\bgroup_weighting\s*=\s*['\"](\w+)['\"]`?", r"--group-weighting \1"),
        (r"`?(?<![\w.])method\s*=\s*['\"](\w+)['\"]`?", r"--method \1"),
        (r"`?\bpaired\s*=\s*False`?", "--unpaired"),
        (r"`seed` must be a non-negative integer or None", "--seed must be a non-negative integer"),
        (r"`?\bn_resamples`?\s*=\s*", "--resamples "),
        (r"`?\bn_resamples\b`?", "--resamples"),
        (r"`confidence_level`", "--level"),
        (r"`method`", "--method"),
        (r"`seed`", "--seed"),
        (r"`strata_weights`", "--stratum-weights"),
        (r"`group_weighting`", "--group-weighting"),
        (r"`groups`", "--group"),
        (r"`strata`", "--stratum"),
        (r"\(result\.strata\)", "(in the strata table)"),
    )
)
"""compare()'s spellings of its arguments, and the command line's, for every message it
shows (errors, warnings, the reading): ``group_weighting='groups'`` reads
``--group-weighting groups``, ``n_resamples`` ``--resamples``, and so on."""


def cli_words(text: str) -> str:
    """``text`` with compare()'s argument spellings replaced by the command line's options.

    >>> cli_words("consider whether group_weighting='groups' is the estimand you want")
    'consider whether --group-weighting groups is the estimand you want'
    >>> cli_words("increase n_resamples (now 100)")
    'increase --resamples (now 100)'
    """
    for pattern, replacement in _API_SPELLINGS:
        text = pattern.sub(replacement, text)
    return text


class _Parser(argparse.ArgumentParser):
    """argparse, with usage errors on one line (``error: ...``) and exit status 2."""

    def error(self, message: str):
        self.exit(EXIT_USAGE, f"error: {message} (see '{self.prog} --help')\n")


class _Once(argparse.Action):
    """Store an option's value, refusing a second one: with argparse's default the later
    value wins silently (``--b new --b v2`` would compare only v2)."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault("_given", {})
        if self.dest in given:
            first, then = given[self.dest]
            parser.error(
                f"{option_string} given twice ({first} {then!r}, then {option_string} "
                f"{values!r}); give it once"
            )
        given[self.dest] = (option_string, values)
        setattr(namespace, self.dest, values)


def _seed(text: str) -> int | str:
    """--seed: a non-negative integer, or 'random' for a fresh one."""
    if text.strip().lower() == "random":
        return "random"
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a non-negative integer or 'random', got {text!r}"
        ) from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="pairboot",
        description="Paired bootstrap confidence intervals for comparing two systems "
        "on the same test items.",
    )
    parser.add_argument("--version", action="version", version=f"pairboot {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    p = sub.add_parser(
        "compare",
        help="compare system B with system A: the difference and its bootstrap interval",
        description="Compare system B with system A on the same test items: B - A, its\n"
        "bootstrap confidence interval and p-value.  Give two files (A then B, one row\n"
        "per item, joined on --id) or one file with a column per system (--a, --b).\n"
        "CSV, TSV, JSON Lines, JSON, Parquet by extension; '-' reads standard input.",
        epilog="examples:\n"
        "  pairboot compare base.csv new.csv --id id --score score\n"
        "  pairboot compare runs.csv --a base --b new --id id\n"
        "  pairboot compare base.csv new.csv --id id --group topic --stratum source\n"
        "  pairboot compare ner.csv --a base --b new --metric f1 --stats tp,fp,fn",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    for name in (None, "store"):  # every option with a value is given at most once
        p.register("action", name, _Once)
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="BASE NEW (one file per system) or RUNS (one file, with --a and --b)")
    data = p.add_argument_group("columns")
    data.add_argument("--id", metavar="COL",
                      help="item id column: two files are joined on it (without it, rows "
                      "are paired by position: the row counts must match, and an id-like "
                      "column in both files, such as 'id', must agree row by row)")
    data.add_argument("--score", metavar="COL",
                      help="score column in each of the two files (default: score); for a "
                      "metric of one statistic, that statistic's column")
    data.add_argument("--a", metavar="COL", help="one-file layout: system A's column (or "
                      "name prefix/suffix with --stats)")
    data.add_argument("--b", metavar="COL", help="one-file layout: system B's column")
    data.add_argument("--metric", default="mean", metavar="NAME",
                      help="metric recomputed on every resample: "
                      f"{', '.join(builtin_metrics())} (default mean), or your own "
                      "pairboot.Metric as FILE.py:NAME or MODULE:NAME")
    data.add_argument("--stats", metavar="COLS",
                      help="the columns of the metric's per-item statistics, matched by "
                      "name in any order (tp,fp,fn or fn,tp,fp), or mapped explicitly "
                      "(tp=TP,fp=FP,fn=FN); one file: found as {a}_{stat}, {stat}_{a}, ...")
    boot = p.add_argument_group("bootstrap")
    boot.add_argument("--resamples", type=int, default=10_000, metavar="R",
                      help="number of bootstrap resamples (default 10000)")
    boot.add_argument("--level", type=float, default=0.95, metavar="L",
                      help="confidence level, between 0 and 1 (default 0.95)")
    boot.add_argument("--method", default="percentile",
                      metavar="{" + ",".join(METHODS) + "}",
                      help="interval method (default percentile)")
    boot.add_argument("--seed", type=_seed, default=None, metavar="S",
                      help="random seed, >= 0, or 'random' for a fresh one (default: "
                      "derived from the data and options, so a rerun gives the same "
                      "output; always reported)")
    boot.add_argument("--unpaired", action="store_true",
                      help="draw A's and B's items independently (for contrast)")
    design = p.add_argument_group("clusters and strata")
    design.add_argument("--group", metavar="COL",
                        help="group column: resample whole groups (the cluster bootstrap)")
    design.add_argument("--group-weighting", choices=GROUP_WEIGHTINGS, default=None,
                        help="with --group: the mean over items (default) or over groups")
    design.add_argument("--stratum", metavar="COL",
                        help="stratum column: resample within each stratum")
    design.add_argument("--stratum-weights", metavar="W",
                        help="population weights: 'name=w,name=w' or a file with two "
                        "columns, stratum and weight (default: the sample shares)")
    gate = p.add_argument_group("verdict")
    gate.add_argument("--fail-if", choices=tuple(FAIL_IF), default=None,
                      help="exit with status 1 when B is surely worse than A, not surely "
                      "better, or surely different (the interval decides; 2 stays for "
                      "errors)")
    gate.add_argument("--lower-is-better", action="store_true",
                      help="the metric is an error rate or a loss: B is better when "
                      "B - A < 0")
    out = p.add_argument_group("output")
    out.add_argument("--format", choices=tuple(WRITERS), default="text",
                     help="report format (default text)")
    out.add_argument("--output", "-o", metavar="FILE",
                     help="write the report to FILE (atomically) instead of standard output")
    out.add_argument("--no-progress", action="store_true",
                     help="no progress bar (it only shows on a terminal, for long runs)")
    return parser


# --------------------------------------------------------------------------- inputs


@dataclass(frozen=True, slots=True)
class Inputs:
    """Aligned per-item inputs of compare(), and what the report says about them."""

    a: np.ndarray
    b: np.ndarray
    groups: Sequence[str] | None
    strata: Sequence[str] | None
    strata_weights: dict[str, float] | None
    context: ReportContext


def _split(text: str, option: str) -> list[str]:
    names = [s.strip() for s in text.split(",")]
    if not all(names):
        raise InputError(f"{option}: empty column name in {text!r}")
    if len(set(names)) != len(names):
        raise InputError(f"{option}: a column is named twice in {text!r}")
    return names


def _metric(text: str) -> str | Metric:
    """A built-in metric's name, or the user's Metric for ``FILE.py:NAME``/``MODULE:NAME``."""
    return load_metric(text) if ":" in text else text


def _metric_stats(metric: str | Metric) -> tuple[str, ...]:
    """The default statistic columns of a metric (``--stats`` when not given)."""
    if isinstance(metric, Metric):
        return metric.stats
    name = metric
    stats = builtin_stats(name)  # ValueError for an unknown metric
    if stats is None:
        raise InputError(
            f"--metric {name} needs --stats: the names of its per-item statistic columns "
            "(for macro_f1, tp, fp, fn of every class: tp_1,fp_1,fn_1,tp_2,...)"
        )
    return stats


def _stat_names(args) -> list[str] | None:
    """Statistic columns asked for by --stats/--score, or the metric's own names, in the
    metric's order.

    None means the one-file layout's plain --a/--b score columns.
    """
    if args.stats is not None and args.score is not None:
        raise InputError("give either --score (one score column) or --stats (several), not both")
    if args.stats is not None:
        return stats_columns(args.stats, args.metric_object)
    stats = _metric_stats(args.metric_object)
    if args.score is not None:  # the column of a metric's one statistic
        if len(stats) != 1:
            raise InputError(
                f"--metric {args.metric} needs --stats with its per-item statistics "
                f"({', '.join(stats)}), not --score"
            )
        return [args.score]
    if stats == ("score",):
        return None if len(args.files) == 1 else ["score"]
    return list(stats)


def _mapping(stats: Sequence[str], columns: Sequence[str]) -> str:
    return ",".join(f"{s}={c}" for s, c in zip(stats, columns))


def stats_columns(spec: str, metric: str | Metric) -> list[str]:
    """The columns ``--stats`` names, in the order of the metric's statistics.

    A list is matched by name, in any order (``fn,fp,tp``: see
    :func:`pairboot.metrics.match_statistics`); ``STAT=COL`` entries map every
    statistic explicitly.  A list whose names do not say which statistic each column
    holds is refused, showing the mapping a reading by position would have used: the
    statistics are never assigned by position silently.
    """
    entries = _split(spec, "--stats")
    name = metric.name if isinstance(metric, Metric) else metric
    if any("=" in e for e in entries):
        pairs = [tuple(x.strip() for x in e.partition("=")[::2]) for e in entries]
        if not all(s and c for s, c in pairs):
            raise InputError(
                f"--stats {spec}: give every statistic as STAT=COLUMN (e.g. tp=TP,fp=FP,"
                "fn=FN), or list the columns alone"
            )
        stats = statistics_for(metric, len(pairs))
        given = dict(pairs)
        unknown = [s for s, _ in pairs if s not in stats]
        if unknown or len(given) != len(pairs):
            what = (f"{unknown[0]!r} is not one of them" if unknown
                    else "a statistic is named twice")
            raise InputError(
                f"--stats {spec}: metric {name!r} reads the statistics "
                f"{', '.join(stats)}; {what}"
            )
        missing = [s for s in stats if s not in given]
        if missing:
            raise InputError(
                f"--stats {spec}: metric {name!r} also needs {', '.join(missing)} "
                f"(it reads {', '.join(stats)})"
            )
        return [given[s] for s in stats]
    stats = statistics_for(metric, len(entries))
    order = match_statistics(stats, entries)
    if order is not None:
        return [entries[j] for j in order]
    if len(entries) > len(stats):
        extra = match_statistics(stats, entries, extra=True)
        unused = [e for j, e in enumerate(entries) if extra is None or j not in extra]
        raise InputError(
            f"--stats {spec}: metric {name!r} reads {len(stats)} statistic(s) "
            f"({', '.join(stats)}), not {len(entries)}"
            + (f"; leave out {', '.join(unused)}" if extra is not None else "")
        )
    if len(entries) < len(stats):
        raise InputError(
            f"--stats {spec}: metric {name!r} reads {len(stats)} statistics "
            f"({', '.join(stats)}), got {len(entries)}"
        )
    raise InputError(
        f"--stats {spec}: the names do not say which statistic of metric {name!r} "
        f"({', '.join(stats)}) each column holds; by position they would be read as "
        f"{_mapping(stats, entries)}: if that is right, give --stats "
        f"{_mapping(stats, entries)}, or rename the columns"
    )


def load_inputs(args, status: ReadProgress | None = None) -> Inputs:
    """Read, check and align the files named on the command line."""
    files = list(args.files)
    if len(files) > 2:
        raise InputError(
            f"compare takes two files (A then B) or one file with --a and --b, got {len(files)}"
        )
    if files.count(readers.STDIN) > 1:
        raise InputError("only one of the inputs can be standard input ('-')")
    if args.group_weighting is not None and args.group is None:
        raise InputError("--group-weighting needs --group (the column of group labels)")
    if args.stratum_weights is not None and args.stratum is None:
        raise InputError("--stratum-weights needs --stratum (the column of stratum labels)")
    stats = _stat_names(args)
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


def _values(table: readers.Table, columns: Sequence[str]) -> np.ndarray:
    values = readers.stats_columns(table, columns)
    return values[:, 0] if values.shape[1] == 1 else values


def _check_statistics(metric: str | Metric, table: readers.Table, columns: Sequence[str],
                      values: np.ndarray) -> None:
    """The metric's own checks of the per-item statistics (counts must not be negative,
    ...), failing with the file, line and column of the value, in the file's row order."""
    values = values.reshape(len(values), -1)
    metric = resolve_metric(metric, values.shape[1])
    if metric.prepare is None or metric.mean_like:  # (the mean's only adds a count)
        return
    try:
        metric.per_item(values)
    except StatisticError as exc:
        raise InputError(
            f"{table.path}, {table.where(exc.item)}, column {columns[exc.stat]!r}: "
            f"{exc.reason}"
        ) from None


def _check_columns(table: readers.Table, names: Sequence[str | None]) -> None:
    for name in names:
        if name is not None and name not in table.columns:
            table.column(name)  # the error naming the columns there are


def _two_files(args, files: list[str], stats: list[str], status=None) -> Inputs:
    ta, tb = _read_tables(args, files, status)
    tables = (ta, tb)
    for t in tables:
        missing = [s for s in stats if s not in t.columns]
        if missing and args.stats is None and len(stats) > 1:  # (--score: one stat)
            raise InputError(
                f"{t.path}: no column {missing[0]!r}; --metric {args.metric} reads the "
                f"columns {', '.join(stats)}: map yours with --stats "
                f"{_mapping(stats, [s.upper() for s in stats])} (your column names)"
            )
        _check_columns(t, [args.id, *stats])
    layout_cols = {c for c in (args.id, *stats) if c}
    notes: list[str] = []
    ids = None
    if args.id is not None:
        ids = readers.id_column(ta, args.id, to_join=True)
        ids_b = readers.id_column(tb, args.id, to_join=True)
        order_b = readers.join_on_ids(ids, ids_b, ta.path, tb.path)
        layout = f"{ta.n_rows:,} items joined on column {args.id!r}"
    else:
        if ta.n_rows != tb.n_rows and (not args.unpaired or args.group or args.stratum):
            raise InputError(
                f"{ta.path} has {ta.n_rows} rows but {tb.path} has {tb.n_rows}: without --id "
                "the rows are paired by position, so the counts must match (give --id "
                f"{_join_column(ta, tb)} to join the files on an "
                "id column)"
            )
        if not args.unpaired:
            notes.extend(_check_position_pairing(_shared_id_columns(ta, tb)))
        order_b = None
        layout = (
            f"{ta.n_rows:,} items paired by row position (no --id)"
            if ta.n_rows == tb.n_rows
            else f"{ta.n_rows:,} and {tb.n_rows:,} items"
        )
    a, b = _values(ta, stats), _values(tb, stats)
    for table, values in ((ta, a), (tb, b)):
        _check_statistics(args.metric_object, table, stats, values)
    if order_b is not None:
        b = b[order_b]

    sources = ((ta, None), (tb, order_b))
    groups = _item_labels(sources, ids, args.group, "group")
    strata = _item_labels(sources, ids, args.stratum, "stratum")
    context = _context(
        args,
        stats,
        name_a=ta.path,
        name_b=tb.path,
        files=(ta.path, tb.path),
        layout=("unpaired, " if args.unpaired else "") + layout,
        notes=(*notes, *_nudge(args, tables, layout_cols), *_reader_note(tables)),
    )
    return Inputs(a, b, groups, strata, _weights(args), context)


def _item_labels(
    sources: Sequence[tuple[readers.Table, np.ndarray | None]],
    ids: Sequence[str] | None,
    column: str | None,
    what: str,
) -> Sequence[str] | None:
    """One ``what`` label per item from ``column`` of the files that have it.

    ``sources`` are ``(table, order)``: ``order`` puts a file's rows in the items'
    order (None: they are).  Files that both label an item must agree."""
    if column is None:
        return None
    present = [(t, order) for t, order in sources if column in t.columns]
    if not present:
        if len(sources) == 1:
            _check_columns(sources[0][0], [column])  # raises, naming the columns there
        (ta, _), (tb, _) = sources
        both = [c for c in ta.columns if c in tb.columns]
        raise InputError(
            f"no column {column!r} in {ta.path} or {tb.path}; columns in both: "
            f"{', '.join(map(repr, both)) or '(none)'}"
        )
    labels = []
    for table, order in present:
        values = readers.label_column(table, column)
        if order is not None:
            values = readers.take_labels(values, order)
        labels.append((table.path, values))
    return readers.merge_labels(labels, ids, column=column, what=what)


def _join_column(ta: readers.Table, tb: readers.Table) -> str:
    """An id column both files share that --id could join on, or 'COL'."""
    return next((c for c, (*_, unique) in _shared_id_columns(ta, tb).items() if unique),
                "COL")


MOSTLY_IDS = 0.9
"""Distinct values per row from which an id-named column is taken for a column of ids."""


def _shared_id_columns(
    ta: readers.Table, tb: readers.Table
) -> dict[str, tuple[Sequence[str], Sequence[str], bool]]:
    """Columns of both files named like an item id (:data:`ID_HINTS`) whose values are
    (nearly) all distinct in each: their values in each file, and whether they are
    unique in both (so that --id could join on them); unique ones first.  A column of
    few distinct values (a 'key' of 3 kinds) is not an id; one with a repeated or blank
    id among hundreds is a column of ids with a flaw."""
    found = {}
    for col in ta.columns:
        if col.strip().lower() not in ID_HINTS or col not in tb.columns:
            continue
        ids_a = readers.label_column(ta, col)
        share = readers.distinct_fraction(ids_a)
        if share < MOSTLY_IDS:
            continue
        ids_b = readers.label_column(tb, col)
        share = min(share, readers.distinct_fraction(ids_b))
        if share >= MOSTLY_IDS:  # (1.0: every row has an id, and no two the same)
            found[col] = (ids_a, ids_b, share == 1.0)
    return dict(sorted(found.items(), key=lambda kv: not kv[1][2]))


def _check_position_pairing(
    id_cols: dict[str, tuple[Sequence[str], Sequence[str], bool]],
) -> list[str]:
    """Refuse to pair rows by position when both files' id columns say otherwise.

    Returns the report's notes for the id columns that agree row by row; raises
    InputError for the first one that does not (other order, or other ids), also when it
    has repeated or blank ids (it cannot join the files, but it shows they differ).
    """
    notes = []
    for col, (ids_a, ids_b, unique) in id_cols.items():
        if not readers.same_labels(ids_a, ids_b):
            fix = (f"give --id {col} to join the files on it" if unique else
                   "it has repeated or blank ids, so it cannot join them: fix the ids (or "
                   "rename the column if it does not identify items)")
            raise InputError(
                f"both files have an id column {col!r} but its rows are in a different "
                f"order (or hold different ids): {fix}"
            )
        notes.append(f"rows paired by position; their {col!r} columns agree")
    return notes


def _one_file(args, file: str, stats: list[str] | None, status=None) -> Inputs:
    (table,) = _read_tables(args, [file], status)
    if stats is None:
        cols_a, cols_b = [args.a], [args.b]
    else:
        cols_a = [readers.find_system_column(table, args.a, s) for s in stats]
        cols_b = [readers.find_system_column(table, args.b, s) for s in stats]
    _check_columns(table, [args.id, *cols_a, *cols_b])
    ids = readers.id_column(table, args.id) if args.id is not None else None
    a, b = _values(table, cols_a), _values(table, cols_b)
    for columns, values in ((cols_a, a), (cols_b, b)):
        _check_statistics(args.metric_object, table, columns, values)

    systems = (
        f"columns {args.a!r} and {args.b!r}"
        if stats is None
        else f"statistics {', '.join(stats)} of {args.a!r} and {args.b!r}"
    )
    systems = f"{table.n_rows:,} items in {table.path} ({systems})"
    context = _context(
        args,
        stats,
        name_a=args.a,
        name_b=args.b,
        files=(table.path,),
        layout=("unpaired, " if args.unpaired else "") + systems,
        notes=(*_nudge(args, (table,), {args.id, *cols_a, *cols_b}), *_reader_note((table,))),
    )
    sources = ((table, None),)
    return Inputs(a, b, _item_labels(sources, ids, args.group, "group"),
                  _item_labels(sources, ids, args.stratum, "stratum"), _weights(args), context)


def _context(args, stats: Sequence[str] | None, **fields) -> ReportContext:
    """The report's context: the given fields plus what the signature needs to rerun
    (``stats``: the statistic columns read, named in it when --stats named them, as
    ``STAT=COL`` where their names alone would not say which is which)."""
    shown = None
    if args.stats is not None:
        names = statistics_for(args.metric_object, len(stats))
        by_name = match_statistics(names, stats) == tuple(range(len(stats)))
        shown = tuple(stats) if by_name else tuple(_mapping(names, stats).split(","))
    return ReportContext(
        group=args.group,
        stratum=args.stratum,
        id=args.id,
        stats=shown,
        metric_source=args.metric if isinstance(args.metric_object, Metric) else None,
        stratum_weights=args.stratum_weights,
        reword=cli_words,
        lower_is_better=args.lower_is_better,
        fail_if=args.fail_if,
        **fields,
    )


def _weights(args) -> dict[str, float] | None:
    if args.stratum_weights is None:
        return None
    return readers.parse_stratum_weights(args.stratum_weights)


def _nudge(args, tables: Sequence[readers.Table], used: set) -> tuple[str, ...]:
    """A note suggesting --group when a column looks like a grouping of the items.

    Only for a column whose name is in :data:`GROUP_HINTS` and in which some value
    repeats (a column of unique values groups nothing).
    """
    if args.group is not None:
        return ()
    used = {c for c in used if c} | {args.stratum}
    seen: list[str] = []
    for t in tables:
        for col in t.columns:
            if col in used or col in seen or col.strip().lower() not in GROUP_HINTS:
                continue
            if readers.has_repeats(readers.label_column(t, col)):
                seen.append(col)
    return tuple(
        f"The input has a column {col!r}. If items that share a {col} are correlated "
        "(several questions about one document, turns of one conversation), resampling "
        "single items makes the interval too narrow: rerun with "
        f"`--group {col}` to resample whole groups (the cluster bootstrap)."
        for col in seen
    )


SLOW_READ_ROWS = 200_000
"""Files of this many rows read in pure Python because pyarrow is missing get a note (and
a hint on the reading line while they are read, see :class:`ReadProgress`)."""

FAST_READER = 'pip install "pairboot[fast]"'
"""How to get pyarrow's reader: the ``fast`` extra installs it with the numba kernel
(``parquet`` installs pyarrow alone)."""


def _reader_note(tables: Sequence[readers.Table]) -> tuple[str, ...]:
    """A note that pyarrow would read these large files faster, when it is missing."""
    slow = [t for t in tables if t.n_rows >= SLOW_READ_ROWS and not t.read_by_pyarrow
            and t.format in readers.ARROW_FORMATS]
    if not slow or readers.arrow_available():
        return ()
    files = " and ".join(f"{t.path} ({t.n_rows:,} rows)" for t in slow)
    return (
        f"{files} read without pyarrow, which is not installed: with it (`{FAST_READER}`, "
        'which also brings the fast kernel, or `pip install "pairboot[parquet]"` for '
        "pyarrow alone) large CSV, TSV and JSON Lines files are read several times faster, "
        "in less memory.",
    )


def _read_progress(args) -> ReadProgress:
    """The reading's status line (off with --no-progress); it names :data:`FAST_READER`
    when pyarrow is missing."""
    hint = "" if args.no_progress or readers.arrow_available() else f"faster: {FAST_READER}"
    return ReadProgress(enabled=not args.no_progress, hint=hint)


def _read_tables(args, files: Sequence[str], status: ReadProgress | None = None
                 ) -> list[readers.Table]:
    """Read ``files``, with a :class:`ReadProgress` line on a terminal for slow reads.

    With the caller's ``status`` the line stays up, saying the columns are being
    prepared (numbers, ids, labels: the longer part without pyarrow), until the caller
    closes it; without, it is blanked here."""
    line = status if status is not None else _read_progress(args)
    try:
        tables = [
            readers.read_table(f, progress=line.reading("<stdin>" if f == readers.STDIN else f))
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


# ------------------------------------------------------------------------- progress


class _StatusLine:
    """One line on a terminal's standard error, redrawn in place and blanked by close().

    ``enabled`` is false when ``stream`` (standard error by default) is not a terminal
    or the caller said no: then nothing is ever drawn.
    """

    def __init__(self, stream=None, *, enabled: bool = True):
        self.stream = stream if stream is not None else sys.stderr
        isatty = getattr(self.stream, "isatty", None)
        self.enabled = enabled and callable(isatty) and isatty()
        self.shown = False
        self.width = 0  # of the line on screen, for close() to blank

    def _show(self, line: str) -> None:
        """Overwrite the line on screen (padding out a longer previous one)."""
        self.stream.write("\r" + line.ljust(self.width))
        self.stream.flush()
        self.width = max(self.width, len(line))
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.shown = False


class ProgressBar(_StatusLine):
    """A one-line progress bar on a terminal's standard error, for runs over ``delay`` s.

    Use as ``compare(..., progress=bar)``; it is called with the number of finished
    resamples, and its ``compiling()`` before numba compiles the kernel.  It draws
    nothing when ``stream`` is not a terminal or the run is quick.
    """

    def __init__(self, total: int, stream=None, *, delay: float = 1.5, enabled: bool = True):
        super().__init__(stream, enabled=enabled)
        self.total = max(int(total), 1)
        self.delay = delay
        self.start = time.monotonic()
        self.origin = (self.start, 0)  # the time left is estimated from here
        self.compiled = False
        self.last = 0.0

    def __call__(self, done: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if self.compiled:  # the compile's seconds say nothing about the time left
            self.compiled = False
            self.origin = (now, done)
        if now - self.start < self.delay or (now - self.last < 0.1 and done < self.total):
            return
        self.last = now
        frac = min(max(done / self.total, 0.0), 1.0)
        filled = int(30 * frac)
        elapsed = now - self.start
        t0, done0 = self.origin
        left = ""
        if done > done0:
            left = f", ~{(now - t0) * (self.total - done) / (done - done0):.0f}s left"
        self._show(
            f"resampling [{'#' * filled}{'.' * (30 - filled)}] {frac:4.0%} "
            f"{done}/{self.total}  {elapsed:4.0f}s elapsed{left} "
        )

    def compiling(self) -> None:
        """Called before numba compiles the kernel: the one slow start after installing."""
        if self.enabled:
            self._show("compiling the fast kernel (once after installing, ~10 s) ")
            self.compiled = True


class ReadProgress(_StatusLine):
    """``reading base.csv: 420,000 rows (85,000 rows/s)`` on a terminal's standard error,
    once the files have been read for ``delay`` s (counted from construction).

    ``reading(name)`` starts a file and returns the callback for
    ``readers.read_table(..., progress=...)``; ``close()`` blanks the line when all are
    read.  ``hint`` is added to the line of the first file that reaches
    :data:`SLOW_READ_ROWS` rows, and to no other file's (nor when the line would not fit
    the terminal's width: a wrapped line cannot be redrawn).
    """

    def __init__(self, stream=None, *, delay: float = 1.0, enabled: bool = True,
                 hint: str = ""):
        super().__init__(stream, enabled=enabled)
        self.delay = delay
        self.start = self.file_start = time.monotonic()
        self.name = ""
        self.file = 0  # how many files reading() has started
        self.hint = hint
        self.hinted = 0  # the file whose line carries the hint (0: none yet)
        self.columns = self._columns() if self.enabled else 0

    def _columns(self) -> int:
        try:
            return os.get_terminal_size(self.stream.fileno()).columns or 80  # 0: not set
        except (AttributeError, OSError, ValueError):  # not a real terminal
            return 80

    def reading(self, name: str) -> ReadProgress:
        """Start reading file ``name``: the line now counts its rows."""
        self.name, self.file_start = name, time.monotonic()
        self.file += 1
        if self.shown:  # not the last file's count any more
            self._show(f"reading {name} ")
        return self

    def preparing(self, rows: int) -> None:
        """All files read: the line, if up, says their columns are being prepared."""
        if self.shown:
            self._show(f"preparing {rows:,} rows: numbers, ids, labels ")

    def __call__(self, rows: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.start < self.delay:
            return
        line = f"reading {self.name}: {rows:,} rows"
        if now > self.file_start:
            line += f" ({rows / (now - self.file_start):,.0f} rows/s)"
        if self.hint and not self.hinted and rows >= SLOW_READ_ROWS:
            self.hinted = self.file
        if self.hinted == self.file and len(line) + len(self.hint) + 3 < self.columns:
            line += f"; {self.hint}"
        self._show(line + " ")


# --------------------------------------------------------------------------- output


def write_atomically(path: str, text: str) -> None:
    """Write ``text`` to ``path`` via a temporary file in the same folder and os.replace.

    A reader never sees a half-written report, and a failed run leaves any previous file
    untouched.
    """
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        try:
            mode = os.stat(path).st_mode & 0o777
        except FileNotFoundError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _check_output(path: str, inputs: Sequence[str]) -> str:
    """Refuse an --output that cannot be written or would overwrite an input, before the
    run; return how to write it: "atomic" (a file, through a temporary one) or "direct"
    (a device or pipe such as /dev/null, which must not be replaced by a file).

    ``inputs`` are every file the run reads (data, stratum weights, metric module);
    standard input counts when it is redirected from a file.
    """
    if path in (readers.STDIN, "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"):
        return "stdout"  # (through the link, a redirected stdout's file would be replaced)
    if not path.strip():
        raise InputError("--output: no file name given")
    if os.path.isdir(path) or path.endswith(("/", os.sep)):
        raise InputError(f"--output {path}: names a folder, not a file")
    if re.fullmatch(r"/dev/(fd/\d+|stderr)|/proc/self/fd/\d+", path):
        return "direct"  # a descriptor (>(gzip > x)): through its link, never replaced
    target = os.path.realpath(path)  # a symbolic link: its target is the report
    exists = os.path.exists(target)
    if exists and not stat.S_ISREG(os.stat(target).st_mode):
        return "direct"
    for f in inputs:
        if f == readers.STDIN:
            same = exists and _stdin_is(target)
        else:
            same = exists and os.path.exists(f) and os.path.samefile(target, f)
        if same:
            name = "standard input" if f == readers.STDIN else f
            raise InputError(f"--output {path} is an input ({name}); it would be overwritten")
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        raise InputError(f"--output {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise InputError(f"--output {path}: cannot write in the folder {folder} (permission "
                         "denied)")
    return "atomic"


def _stdin_is(path: str) -> bool:
    try:
        here, there = os.fstat(sys.stdin.fileno()), os.stat(path)
    except (OSError, ValueError, AttributeError):  # (no real stdin: nothing to overwrite)
        return False
    return stat.S_ISREG(here.st_mode) and (here.st_dev, here.st_ino) == (there.st_dev,
                                                                          there.st_ino)


def _read_files(args) -> list[str]:
    """Every file the run reads: the data, a stratum-weights file, a metric module."""
    files = list(args.files)
    if args.stratum_weights is not None and os.path.isfile(args.stratum_weights):
        files.append(args.stratum_weights)
    module = args.metric.rpartition(":")[0]
    if module.endswith(".py"):
        files.append(module)
    return files


# ----------------------------------------------------------------------------- main

_SHOWS_WARNINGS = ("text", "markdown")
"""Report formats a reader of standard output sees the warnings in; for the others, and
for a report written to a file, each warning is also one line ``warning: ...`` on
standard error."""


def run_compare(args) -> int:
    from pairboot import compare

    if 1 < args.level < 100:  # a percentage: compare() would reject it without the hint
        raise InputError(
            f"--level must be between 0 and 1, got {args.level:g} (for a {args.level:g}% "
            f"interval give --level {args.level / 100:g})"
        )
    how = _check_output(args.output, _read_files(args)) if args.output is not None else None
    args.metric_object = _metric(args.metric)
    status = _read_progress(args)
    try:
        inputs = load_inputs(args, status)
    finally:
        status.close()
    readers.release_arrow_memory()  # the tables are gone: their text columns too
    bar = ProgressBar(args.resamples, enabled=not args.no_progress)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the report shows result.warnings instead
            result = compare(
                inputs.a,
                inputs.b,
                paired=not args.unpaired,
                groups=inputs.groups,
                group_weighting=args.group_weighting or "items",
                strata=inputs.strata,
                strata_weights=inputs.strata_weights,
                metric=args.metric_object,
                n_resamples=args.resamples,
                confidence_level=args.level,
                method=args.method,
                seed=args.seed,
                progress=bar,
            )
    finally:
        bar.close()
    text = render(result, args.format, inputs.context)
    to_stdout = how in (None, "stdout")
    if to_stdout:
        sys.stdout.write(text)
        sys.stdout.flush()
    elif how == "direct":
        with open(args.output, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    else:
        write_atomically(os.path.realpath(args.output), text)
    if not (to_stdout and args.format in _SHOWS_WARNINGS):
        for w in result.warnings:  # a file or a machine format: say them where a user looks
            print(f"warning: {' '.join(cli_words(w).split())}", file=sys.stderr)
    verdict = decision(result, inputs.context)
    if verdict["failed"]:
        print(f"pairboot: --fail-if {args.fail_if}: {verdict['headline']}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def _cli_message(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror and exc.filename:
        text = f"{exc.filename}: {exc.strerror}"
    else:
        text = str(exc) or type(exc).__name__
    return " ".join(cli_words(text).split())  # one line


def run() -> None:
    """The ``pairboot`` command: :func:`main`, then exit.

    When pyarrow has read a file, the process leaves without the interpreter's teardown:
    Arrow's worker threads can abort it ("terminate called without an active
    exception", exit 134, after the report or the error line: apache/arrow#34314).
    Everything is written by then; the standard streams are flushed first.
    """
    code = main()
    if "pyarrow" in sys.modules:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):  # a closed pipe: nothing more to say
                pass
        os._exit(code)
    sys.exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 --fail-if failed, 2 bad
    input or usage, 3 internal error)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, usage errors
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    try:
        return run_compare(args)
    except (ValueError, OSError, ImportError) as exc:  # InputError is a ValueError
        print(f"error: {_cli_message(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except MemoryError as exc:
        detail = f" ({_cli_message(exc)})" if str(exc) else ""
        print(f"error: not enough memory{detail}; try fewer --resamples", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug: still one line, and say so
        print(
            f"error: internal error ({type(exc).__name__}: {_cli_message(exc)}); "
            "please report it with the command that caused it",
            file=sys.stderr,
        )
        return EXIT_INTERNAL

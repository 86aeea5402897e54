"""A judge's scores on every item and gold (human) scores on a random subset, empty
elsewhere: the prediction-powered interval of B - A (:func:`pairboot.compare_ppi`).
Two layouts, as ``compare``'s::

    pairboot compare FILE --a COL --b COL --gold-a COL --gold-b COL   # one file
    pairboot compare A.jsonl B.jsonl --score COL --gold-score COL      # a file per system

A file per system is aligned as ``compare`` aligns two files (on ``--id``, or by row
position: :func:`pairboot.io.align`), its gold column read where it holds a number.  A
pooled metric (``--metric f1 --stats tp,fp,fn``) and several judge calls per item
(``--runs samples --run COL``) read their columns as :mod:`pairboot.cli.gold_columns`
says.  A thin shell: the columns read, the API called, the report written."""

from __future__ import annotations

import sys
import warnings

import numpy as np

import pairboot
import pairboot.io as pbio
from pairboot.cli.gold_columns import gold_stats, judge_gold_columns, read_runs, read_stacked
from pairboot.cli.inputs import file_systems, pairing_options
from pairboot.cli.options import check_level
from pairboot.cli.output import deliver, report_text
from pairboot.cli.parser import EXIT_OK
from pairboot.cli.progress import ProgressBar
from pairboot.cli.weights import strata_weights_arg
from pairboot.errors import InputError
from pairboot.report import PPIContext, ppi_annotations

__all__ = ["check_layout", "read_gold", "run_ppi"]

NOT_WITH_GOLD = (
    ("test", "--test"), ("exact", "--exact"), ("systems", "--systems"), ("plan", "--plan"),
    ("fail_if", "--fail-if"), ("plot", "--plot"), ("correction", "--correction"),
    ("baseline", "--baseline"), ("group_weighting", "--group-weighting"),
    ("resampling", "--resampling"), ("from_format", "--from"), ("tasks_as", "--tasks-as"),
)
"""What a prediction-powered comparison does not take (yet), refused by name."""

ONE_FILE_ONLY = (("score", "--score"), ("labels", "--labels"),
                 ("common_items", "--common-items"))
"""What the one-file layout does not take: a file per system's (--gold-score's)."""


def check_layout(args) -> bool:
    """The layout of the judge's and the gold columns, given whole and once: True for a
    file per system (--score, --gold-score), False for one file (--a, --b, --gold-a,
    --gold-b).  ``pairboot gold-labels`` reads its pilot in the same layouts."""
    two = args.gold_score is not None
    if two and (args.gold_a is not None or args.gold_b is not None):
        raise InputError("--gold-score (a file per system, each with the judge's --score "
                         "column and the gold one) and --gold-a/--gold-b (one file with four "
                         "columns) are two layouts: give one")
    if two:
        if len(args.files) != 2 or args.a is not None or args.b is not None:
            raise InputError("--gold-score reads a file per system: give two files (A's "
                             "then B's), each with the judge's --score column and the gold "
                             "column, and no --a/--b")
        if getattr(args, "stats", None) is None and args.gold_score == (args.score
                                                                         or "score"):
            raise InputError(f"--gold-score {args.gold_score} is also the judge's --score "
                             "column: name the gold column")
        return True
    if args.gold_a is None or args.gold_b is None:
        raise InputError("give both --gold-a and --gold-b (the gold score columns of A "
                         "and B, empty where an item is unlabelled), or --gold-score "
                         "with a file per system")
    if len(args.files) != 1 or args.a is None or args.b is None:
        raise InputError("--gold-a and --gold-b read one file: give FILE with --a and "
                         "--b (the judge's score columns) beside them, or a file per "
                         "system with --score and --gold-score")
    for dest, flag in ONE_FILE_ONLY:
        if getattr(args, dest, None) not in (None, False, []):
            raise InputError(f"{flag} is for a file per system (--gold-score); one file "
                             "with --gold-a/--gold-b holds every item's row")
    if len({args.a, args.b, args.gold_a, args.gold_b}) < 4:
        raise InputError("--a, --b, --gold-a and --gold-b must name four different "
                         "columns")
    return False


def _refuse(args) -> None:
    """Options that do not go with a judge and gold labels, and a layout given half or
    twice."""
    flags = "--gold-score" if check_layout(args) else "--gold-a/--gold-b"
    for dest, flag in NOT_WITH_GOLD:
        if getattr(args, dest, None) not in (None, False, []):
            raise InputError(f"{flag} is not available with {flags} (a prediction-powered "
                             "comparison of one judge's means)")
    if len(getattr(args, "scores", None) or []) > 1:
        raise InputError(f"--score given twice: with {flags} it names the judge's one column")
    if args.unpaired or args.stream:
        flag = "--unpaired" if args.unpaired else "--stream"
        raise InputError(f"{flag} is not available with {flags}: the judge and the gold "
                         "scores are of paired outputs, read whole")
    if args.runs not in (None, "samples"):
        raise InputError(f"--runs {args.runs} is not available with {flags}: the judge's "
                         "several calls per item are --runs samples (with --run and --id)")
    if args.run is not None and args.runs is None:
        raise InputError(f"--run with {flags} needs --runs samples (the judge's several "
                         "calls per item)")


def _labels(table, column: str | None, what: str):
    """A label column (None when not asked for); a missing label is refused."""
    if column is None:
        return None
    labels = pbio.label_column(table, column)
    if any(x is None for x in labels):
        i = next(k for k, x in enumerate(labels) if x is None)
        raise InputError(f"{table.path}, {table.where(i)}, column {column!r}: missing "
                         f"{what} label")
    return np.asarray(list(labels), dtype=object)


def _names(args) -> tuple[str, str]:
    """The systems' names: --names A,B, else A and B (the columns are the judge's and
    the gold's, not the systems')."""
    if args.names is None:
        return "A", "B"
    names = [n.strip() for n in args.names.split(",")]
    if len(names) != 2 or not all(names):
        raise InputError(f"--names must name the two systems, A then B, got {args.names!r}")
    return names[0], names[1]


def _one_file(args, stats: list[str] | None):
    """--a, --b, --gold-a, --gold-b of one file (the systems' names, with ``stats``: a
    pooled metric's columns, :mod:`pairboot.cli.gold_columns`): the judge's and the gold
    scores (A's, B's), the groups and strata, the file read, the columns read."""
    table = pbio.read_table(args.files[0])
    table.check_columns([c for c in (args.id, args.group, args.stratum) if c is not None])
    cols = judge_gold_columns(table, (args.a, args.b, args.gold_a, args.gold_b), stats)
    table.check_columns([c for cs in cols for c in cs])
    judge = [read_stacked(table, c) for c in cols[:2]]
    gold = [read_stacked(table, c, missing=True) for c in cols[2:]]
    flat = [g.reshape(len(g), -1)[:, 0] for g in gold]
    one = np.isnan(flat[0]) != np.isnan(flat[1])
    if one.any():  # (the library says the same by position: here the file's row)
        i = int(np.argmax(one))
        empty = cols[3][0] if np.isnan(flat[1][i]) else cols[2][0]
        raise InputError(f"{table.path}, {table.where(i)}: a gold score for one system "
                         f"only (column {empty!r} is empty): label both systems' outputs "
                         "of an item, or neither")
    groups, strata = (_labels(table, c, what) for c, what in (
        (args.group, "group"), (args.stratum, "stratum")))
    if args.id is not None:
        ids = list(pbio.label_column(table, args.id))
        if any(i is None for i in ids) or len(set(ids)) != len(ids):
            raise InputError(f"{table.path}: column {args.id!r} must hold one distinct id "
                             "per row")
    return (judge, gold, groups, strata, (table.path,), _names(args),
            tuple(c for cs in cols for c in cs))


def _two_files(args, stats: list[str] | None):
    """A file per system, each with the judge's --score column and the --gold-score
    column (with ``stats``: the statistics' columns and the gold's,
    :mod:`pairboot.cli.gold_columns`), aligned as compare aligns two files: the judge's
    and the gold scores (A's, B's) in one item order, the groups and strata, the files
    read, the columns read.  An item labelled in one file and not in the other is
    refused, naming both rows."""
    names = file_systems(args, list(args.files))
    tables = [pbio.read_table(f) for f in args.files]
    judge_cols = [args.score or "score"] if stats is None else stats
    gold_cols = [judge_gold_columns(t, (args.gold_score,), stats)[0] for t in tables]
    for t, g in zip(tables, gold_cols):
        t.check_columns(g)
    aligned = pbio.align(tables, columns=[judge_cols, judge_cols], id=args.id,
                         groups=args.group, strata=args.stratum, **pairing_options(args))
    n = len(aligned.values[0])
    rows = [np.arange(n)] * 2
    if aligned.ids is not None:  # (each file's row of every item aligned)
        where = [{v: j for j, v in enumerate(pbio.id_column(t, args.id))} for t in tables]
        rows = [np.array([w[v] for v in aligned.ids], dtype=np.intp) for w in where]
    gold = [read_stacked(t, g, missing=True)[r] for t, g, r in zip(tables, gold_cols, rows)]
    flat = [g.reshape(len(g), -1)[:, 0] for g in gold]
    one = np.isnan(flat[0]) != np.isnan(flat[1])
    if one.any():
        k = int(np.argmax(one))
        empty = 1 if np.isnan(flat[1][k]) else 0
        item = "" if aligned.ids is None else f" (id {aligned.ids[k]!r})"
        there, here = tables[1 - empty], tables[empty]
        raise InputError(
            f"{here.path}, {here.where(int(rows[empty][k]))}{item}, column "
            f"{gold_cols[empty][0]!r}: no gold score, but {there.path}, "
            f"{there.where(int(rows[1 - empty][k]))} has one for this item: label both "
            "systems' outputs of an item, or neither")
    groups, strata = (None if v is None else np.asarray(list(v), dtype=object)
                      for v in (aligned.groups, aligned.strata))
    return (list(aligned.values), gold, groups, strata, tuple(t.path for t in tables),
            (names[0], names[1]), (*judge_cols, *dict.fromkeys(c for g in gold_cols
                                                                for c in g)))


def read_gold(args):
    """The judge's and the gold scores in the layout :func:`check_layout` checked: the
    judge's (A's, B's; items x statistics for a pooled metric, items x calls with
    --runs samples), the gold (NaN where unlabelled), the groups and strata (or None),
    the files read, the systems' names and the columns read."""
    stats = gold_stats(args)
    if getattr(args, "runs", None) is not None or getattr(args, "run", None) is not None:
        judge, gold, groups, strata, files, _, columns = read_runs(args, stats)
        names = (file_systems(args, list(args.files)) if args.gold_score is not None
                 else _names(args))
        return judge, gold, groups, strata, files, (names[0], names[1]), columns
    if args.gold_score is not None:
        return _two_files(args, stats)
    return _one_file(args, stats)


def run_ppi(args, how: str | None) -> int:
    """Read the judge's and the gold columns (one file, or a file per system; and
    --group, --stratum, --id), compare, report."""
    check_level(args)
    _refuse(args)
    judge, gold, groups, strata, files, (name_a, name_b), columns = read_gold(args)
    bar = ProgressBar(args.resamples, enabled=not args.no_progress and args.method != "clt")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (the report shows them)
            result = pairboot.compare_ppi(
                judge[0], judge[1], gold_a=gold[0], gold_b=gold[1], groups=groups,
                strata=strata, strata_weights=strata_weights_arg(args),
                metric=args.metric_object, runs=args.runs, lam=args.lam,
                clip=not args.no_clip,
                n_resamples=args.resamples, confidence_level=args.level,
                method=args.method, alternative=args.alternative,
                hypothesis=args.hypothesis or "difference", margin=args.margin,
                lower_is_better=args.lower_is_better, seed=args.seed,
                progress=bar)
    finally:
        bar.close()
    context = PPIContext(name_a=name_a, name_b=name_b, files=files, columns=columns)
    deliver(args, how, report_text(args, result, context), result.warnings,
            lambda plot: None)
    if args.format == "github":  # (beside the warnings: a judge that favours a system)
        for line in ppi_annotations(result, context):
            print(line, file=sys.stderr)
    return EXIT_OK

"""``pairboot compare FILE --a COL --b COL --gold-a COL --gold-b COL``: the judge's
scores of A and B on every row, the gold scores on a random subset (empty elsewhere),
and the prediction-powered interval of B - A (:func:`pairboot.compare_ppi`).  A thin
shell: the columns read, the API called, the report written."""

from __future__ import annotations

import warnings

import numpy as np

import pairboot
import pairboot.io as pbio
from pairboot.cli.options import check_level
from pairboot.cli.output import deliver
from pairboot.cli.parser import EXIT_OK
from pairboot.cli.progress import ProgressBar
from pairboot.cli.weights import strata_weights_arg
from pairboot.errors import InputError
from pairboot.report import render

__all__ = ["run_ppi"]

NOT_WITH_GOLD = (
    ("run", "--run"),
    ("runs", "--runs"), ("test", "--test"), ("exact", "--exact"), ("systems", "--systems"),
    ("plan", "--plan"), ("stats", "--stats"), ("score", "--score"), ("labels", "--labels"),
    ("fail_if", "--fail-if"), ("plot", "--plot"), ("correction", "--correction"),
    ("baseline", "--baseline"), ("group_weighting", "--group-weighting"),
    ("resampling", "--resampling"), ("from_format", "--from"), ("tasks_as", "--tasks-as"),
)
"""What a prediction-powered comparison does not take (yet), refused by name."""


def _refuse(args) -> None:
    if args.gold_a is None or args.gold_b is None:
        raise InputError("give both --gold-a and --gold-b (the gold score columns of A and "
                         "B, empty where an item is unlabelled)")
    if len(args.files) != 1 or args.a is None or args.b is None:
        raise InputError("--gold-a and --gold-b read one file: give FILE with --a and --b "
                         "(the judge's score columns) beside them")
    for dest, flag in NOT_WITH_GOLD:
        if getattr(args, dest, None) not in (None, False, []):
            raise InputError(f"{flag} is not available with --gold-a/--gold-b (a "
                             "prediction-powered comparison of one judge's means)")
    if args.unpaired or args.stream or args.metric != "mean":
        flag = "--unpaired" if args.unpaired else "--stream" if args.stream else "--metric"
        raise InputError(f"{flag} is not available with --gold-a/--gold-b: the judge and the "
                         "gold scores are per-item means of paired outputs")
    columns = [args.a, args.b, args.gold_a, args.gold_b]
    if len(set(columns)) < 4:
        raise InputError("--a, --b, --gold-a and --gold-b must name four different columns")


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


def run_ppi(args, how: str | None) -> int:
    """Read the file's four columns (and --group, --id), compare, report."""
    check_level(args)
    _refuse(args)
    table = pbio.read_table(args.files[0])
    columns = [c for c in (args.id, args.group, args.stratum, args.a, args.b, args.gold_a,
                           args.gold_b) if c is not None]
    table.check_columns(columns)
    judge = [pbio.numeric_column(table, c) for c in (args.a, args.b)]
    gold = [pbio.numeric_column(table, c, missing=True) for c in (args.gold_a, args.gold_b)]
    one = np.isnan(gold[0]) != np.isnan(gold[1])
    if one.any():  # (the library says the same by position: here the file's row)
        i = int(np.argmax(one))
        empty = args.gold_b if np.isnan(gold[1][i]) else args.gold_a
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
    bar = ProgressBar(args.resamples, enabled=not args.no_progress and args.method != "clt")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (the report shows them)
            result = pairboot.compare_ppi(
                judge[0], judge[1], gold_a=gold[0], gold_b=gold[1], groups=groups,
                strata=strata, strata_weights=strata_weights_arg(args),
                lam=args.lam, clip=not args.no_clip,
                n_resamples=args.resamples, confidence_level=args.level,
                method=args.method, alternative=args.alternative,
                hypothesis=args.hypothesis or "difference", margin=args.margin,
                lower_is_better=args.lower_is_better, seed=args.seed,
                progress=bar)
    finally:
        bar.close()
    name_a, name_b = _names(args)
    text = render(result, args.format, name_a=name_a, name_b=name_b,
                  files=(table.path,), columns=(args.a, args.b, args.gold_a, args.gold_b))
    deliver(args, how, text, result.warnings, lambda plot: None)
    return EXIT_OK

"""``pairboot agreement`` and ``pairboot gold-labels``: how far a judge agrees with people
(:func:`pairboot.agreement`) and how many gold labels a prediction-powered comparison
needs (:func:`pairboot.gold_labels`), thin shells over the two functions.

``agreement`` reads one file, a column per rater: numbers when every rated cell of both
columns is one (a 1-5 scale, 0/1 verdicts), else text categories.  ``gold-labels`` plans
from ``--sd`` and ``--correlation``, or from a pilot read as ``compare`` reads a judge
and gold labels (:func:`pairboot.cli.ppi.read_gold`).
"""

from __future__ import annotations

import warnings

import numpy as np

import pairboot
import pairboot.io as pbio
from pairboot.cli.options import check_level
from pairboot.cli.output import check_output, check_stdout, deliver, report_text
from pairboot.cli.paths import input_files
from pairboot.cli.progress import ProgressBar
from pairboot.cli.status import EXIT_OK
from pairboot.errors import InputError

__all__ = ["run_agreement", "run_gold_labels"]


def _seed(text: str | None):
    if text is None or text.strip().lower() == "random":
        return text
    try:
        return int(text)
    except ValueError:
        raise InputError(f"--seed must be a whole number >= 0 or 'random', got {text!r}"
                         ) from None


def _list(text: str | None, flag: str) -> list[str] | None:
    if text is None:
        return None
    items = [x.strip() for x in text.split(",")]
    if not all(items):
        raise InputError(f"{flag}: an empty entry in {text!r}")
    return items


def _ratings(table, columns: tuple[str, str]):
    """Both raters' cells, numbers when every cell given of both columns is one (NaN
    where empty), else text (None where empty); and whether they are numbers."""
    try:
        values = [pbio.numeric_column(table, c, missing=True) for c in columns]
    except InputError:  # (a cell that is no number: the ratings are categories)
        values = [np.asarray(list(pbio.label_column(table, c)), dtype=object)
                  for c in columns]
        return values, [np.array([v is None for v in col]) for col in values], False
    return values, [np.isnan(v) for v in values], True


def _number(value) -> int | float:
    """A rating or a category as a number: whole ones as int (``3``, not ``3.0``, in the
    report's table)."""
    value = float(value)
    return int(value) if value.is_integer() else value


def run_agreement(args) -> int:
    """Read the two raters' columns (and --group), measure, report."""
    check_level(args)
    read = input_files(args)
    how = check_output(args.output, read) if args.output is not None else None
    if how in (None, "stdout"):
        check_stdout()
    if args.a == args.b:
        raise InputError(f"--a and --b name the same column ({args.a!r}): give each rater's")
    names = _list(args.names, "--names") or [args.a, args.b]
    if len(names) != 2:
        raise InputError(f"--names names the two raters, A's then B's, got {args.names!r}")
    statistics = _list(args.statistics, "--statistics")
    table = pbio.read_table(args.files[0])
    table.check_columns([c for c in (args.a, args.b, args.group) if c is not None])
    values, empty, numeric = _ratings(table, (args.a, args.b))
    unrated = empty[0] | empty[1]
    kept = ~unrated
    notes: list[str] = []
    if unrated.any() and not args.skip_unrated:
        i = int(np.argmax(unrated))
        column = args.a if empty[0][i] else args.b
        raise InputError(f"{table.path}, {table.where(i)}, column {column!r}: no rating "
                         f"({int(unrated.sum()):,} row(s) lack one); give --skip-unrated "
                         "to leave those rows out (the report says how many)")
    if unrated.any():
        notes.append(f"{int(unrated.sum()):,} of the {len(kept):,} rows of {table.path} "
                     f"left out: a rater's cell is empty (--skip-unrated)")
    a, b = (v[kept] for v in values)
    if numeric:
        a, b = (np.array([_number(x) for x in v.tolist()], dtype=object) for v in (a, b))
    categories = _list(args.categories, "--categories")
    if categories is not None and numeric:
        try:
            categories = [_number(c) for c in categories]
        except ValueError:
            raise InputError(f"--categories {args.categories}: the ratings are numbers, "
                             "so are the categories") from None
    if categories is not None:  # (a rating off the scale: its file, line and column)
        rows = np.flatnonzero(kept)
        for column, v in zip((args.a, args.b), (a, b)):
            off = [k for k, x in enumerate(v.tolist()) if x not in categories]
            if off:
                raise InputError(f"{table.path}, {table.where(int(rows[off[0]]))}, column "
                                 f"{column!r}: rating {v[off[0]]!r} is not one of "
                                 f"--categories {args.categories}")
    groups = None
    if args.group is not None:
        labels = list(pbio.label_column(table, args.group))
        missing = [i for i, g in enumerate(labels) if g is None and kept[i]]
        if missing:
            raise InputError(f"{table.path}, {table.where(missing[0])}, column "
                             f"{args.group!r}: missing group label")
        groups = np.asarray(labels, dtype=object)[kept]
    bar = ProgressBar(args.resamples, enabled=not args.no_progress)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (the report shows them)
            result = pairboot.agreement(
                a, b, **({} if statistics is None else {"statistics": statistics}),
                categories=categories, groups=groups, n_resamples=args.resamples,
                confidence_level=args.level, method=args.method, seed=_seed(args.seed),
                progress=bar)
    finally:
        bar.close()
    if notes:
        import dataclasses  # (the rows left out: said wherever the warnings are)

        result = dataclasses.replace(result, warnings=(*result.warnings, *notes))
    from pairboot.report import AgreementContext  # (the agreement's writers: on first use)

    context = AgreementContext(name_a=names[0], name_b=names[1], files=(table.path,))
    deliver(args, how, report_text(args, result, context), result.warnings,
            lambda plot: None)
    return EXIT_OK


def run_gold_labels(args) -> int:
    """Plan from --sd and --correlation, or from a pilot's labelled items; report."""
    check_level(args)
    read = input_files(args)
    how = check_output(args.output, read) if args.output is not None else None
    if how in (None, "stdout"):
        check_stdout()
    goal = dict(n_items=args.n_items, half_width=args.half_width, delta=args.delta,
                power=args.power, confidence_level=args.level,
                alternative=args.alternative)
    if args.files:
        from pairboot.cli.ppi import check_layout, read_gold

        for value, flag in ((args.sd, "--sd"), (args.correlation, "--correlation")):
            if value is not None:
                raise InputError(f"{flag} with a pilot: the pilot's labelled items give it; "
                                 "leave it out (or plan without the files)")
        check_layout(args)
        judge, gold, *_ = read_gold(args)
        plan = pairboot.gold_labels(judge[0], judge[1], gold_a=gold[0], gold_b=gold[1],
                                    **goal)
    else:
        given = [flag for dest, flag in (
            ("a", "--a"), ("b", "--b"), ("gold_a", "--gold-a"), ("gold_b", "--gold-b"),
            ("score", "--score"), ("gold_score", "--gold-score"), ("id", "--id"))
            if getattr(args, dest) is not None]
        if given:
            raise InputError(f"{given[0]} describes a pilot's file, and none is given: give "
                             "the pilot, or plan without one with --sd and --correlation")
        if args.sd is None or args.correlation is None:
            raise InputError("give --sd and --correlation (what you know), or a pilot's "
                             "file with the judge's and the gold columns")
        plan = pairboot.gold_labels(sd=args.sd, correlation=args.correlation, **goal)
    deliver(args, how, report_text(args, plan, spelled=True), (), lambda plot: None)
    return EXIT_OK

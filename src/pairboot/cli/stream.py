"""``pairboot compare --stream``: files larger than memory, read once in chunks.

A thin shell over :func:`pairboot.compare_files` (the Poisson bootstrap, summed chunk by
chunk): the options name the columns, the status line counts the rows read, and the
report is the usual one.  Layouts: one file with ``--a``/``--b`` (or ``--systems``), or a
file per system with ``--id`` and ``--score`` (or ``--stats``).
"""

from __future__ import annotations

import pairboot
from pairboot.cli.inputs import (
    _context,
    _weights,
    file_systems,
    many_systems,
    stat_names,
    system_columns,
)
from pairboot.cli.parser import cli_spelling
from pairboot.errors import InputError
from pairboot.report import UNPLANNED, FamilyContext

__all__ = ["stream_compare"]

_REFUSED = {
    "unpaired": "--unpaired",
    "plan": "--plan",
}


def _refuse(args) -> None:
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
    keywords = dict(
        id=args.id, group=args.group, stratum=args.stratum,
        strata_weights=_weights(args), metric=args.metric_object,
        n_resamples=args.resamples, confidence_level=args.level, method=args.method,
        seed=args.seed, progress=_progress(status), scheduler=args.scheduler,
    )
    if family:
        keywords["family"] = {"baseline": args.baseline,
                              "correction": args.correction or "max-t",
                              "lower_is_better": args.lower_is_better}
    if len(files) == 1:
        if args.systems is not None:
            columns, names = system_columns(args, files)
            systems = dict(zip(names, columns))
        elif args.a is not None and args.b is not None:
            systems = {args.a: args.a, args.b: args.b}
        else:
            raise InputError("--stream with one file: give --a COL and --b COL (or --systems)")
        if not family:
            systems = dict(zip(("A", "B"), systems.values()))
        result = pairboot.compare_files(files, systems=systems, **keywords)
        name_a, name_b = args.a, args.b
        layout = "one file, a column per system (read in chunks)"
    else:
        stats = stat_names(args)
        result = pairboot.compare_files(
            files, score=stats if stats is not None else "score",
            names=file_systems(args, files) if family else None, **keywords)
        name_a, name_b = files[0], files[-1]
        layout = "a file per system, paired on --id (read in chunks)"
    if family:
        context = FamilyContext(files=tuple(files), layout=layout, notes=(),
                                plan_sha256=None,
                                family_note=UNPLANNED if len(result.systems) >= 3 else None,
                                reword=cli_spelling)
    else:
        context = _context(args, None, name_a=name_a, name_b=name_b, files=tuple(files),
                           layout=layout, notes=())
    return result, context, family


def _progress(status):
    """``progress(path, rows)`` for the reading's status line."""
    current = {"path": None}

    def progress(path: str, rows: int) -> None:
        if path != current["path"]:
            current["path"] = path
            status.reading(path)
        status(rows)

    return progress

"""``pairboot compare --from FORMAT``: evaluation-harness logs to compare()'s inputs.

Each input (a log, or an lm-evaluation-harness output directory) is read by
:func:`pairboot.io.harness.read` with the options the command line names (``--score``:
the metric, scorer or measure; ``--group``, ``--stratum``: the fields that label items;
``--systems``: the systems of a file holding several; and the plain-table options), the
reads are aligned on their ids (:func:`pairboot.io.harness.join`), and the result is the
inputs of a comparison of two systems or of a family.  lm-evaluation-harness outputs
and Inspect logs are recognised without ``--from``; other formats need it.
"""

from __future__ import annotations

import os

import pairboot.io as pbio
from pairboot.cli.inputs import Inputs, ManyInputs, _context, _names, _weights
from pairboot.cli.parser import cli_spelling
from pairboot.errors import InputError
from pairboot.metrics import resolve_metric

__all__ = ["wants_harness", "load_harness"]

_DETECTED = ("lm-eval", "inspect")
"""Formats recognised without ``--from`` (their files cannot be mistaken for tables)."""


def wants_harness(args) -> bool:
    """Whether the inputs go through a reader of :mod:`pairboot.io.harness`: ``--from``,
    the plain tables' ``--correct`` or ``--system-column``, or a log whose format is
    unmistakable."""
    if args.from_format is not None or args.correct is not None or args.system_column:
        return True
    for path in args.files:
        if path == pbio.STDIN:
            continue
        if os.path.exists(path) and pbio.harness.detect(path) in _DETECTED:
            return True
    return False


def _options(args, fmt: str) -> dict:
    systems = None
    if args.systems is not None:
        systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    options = dict(score=args.score, group=args.group, stratum=args.stratum, system=systems,
                   id=args.id, correct=args.correct, system_column=args.system_column,
                   null=args.null)
    if fmt == "lm-eval":
        options.pop("id")
    if getattr(args, "runs", None) == "samples":
        if fmt != "inspect":
            raise InputError(f"--runs samples with --from {fmt}: the log keeps no scores "
                             "per sampled generation (Inspect's epochs do)")
        options["epochs"] = "runs"
    elif getattr(args, "runs", None) == "seeds":
        raise InputError("--runs seeds reads long tables with --run; a harness log holds "
                         "one run (give each seed's log as its own system)")
    for text in args.log_option:
        key, sep, value = text.partition("=")
        if not sep or not key.strip():
            raise InputError(f"--log-option {text!r}: give KEY=VALUE")
        if options.get(key.strip()) is not None:
            raise InputError(f"--log-option {key.strip()}: given twice (or by its own option)")
        options[key.strip()] = value.strip()
    return options


def load_harness(args, status=None) -> Inputs | ManyInputs:
    """The inputs of ``args.files`` read as harness logs: :class:`Inputs` for two
    systems, :class:`ManyInputs` for a family (more systems, or a family option)."""
    paths = list(args.files)
    if pbio.STDIN in paths:
        raise InputError("--from reads files and directories, not standard input")
    fmt = args.from_format
    if fmt is None:
        found = {pbio.harness.detect(p) for p in paths}
        if found == {None} and (args.correct is not None or args.system_column):
            found = {"table"}  # (--correct and --system-column: the plain tables' options)
        if len(found) != 1 or None in found:
            raise InputError("cannot tell which harness wrote the inputs; give --from "
                             f"({', '.join(pbio.harness.formats())})")
        fmt = found.pop()
    options = _options(args, fmt)
    if fmt == "lm-eval":
        if options.get("tasks") is None:
            options["tasks"] = _common_tasks(paths)
        else:  # --log-option tasks=a,b
            options["tasks"] = [t.strip() for t in options["tasks"].split(",") if t.strip()]
    reads = []
    for path in paths:
        if status is not None:
            status.reading(path)
        reads.append(pbio.harness.read(path, fmt, **options))
    joined = pbio.harness.join(reads)
    if joined.metric == "custom":  # statistics no built-in metric names: --metric says
        if args.metric == "mean":
            raise InputError("the logs hold several statistics per item that no built-in "
                             "metric names; give --metric (a built-in, or FILE.py:NAME)")
    elif joined.metric != "mean":
        if args.metric not in ("mean", joined.metric):
            raise InputError(f"the logs hold the statistics of metric {joined.metric!r}; "
                             f"--metric {args.metric} does not apply to them")
        args.metric = joined.metric
        args.metric_object = resolve_metric(joined.metric, len(joined.stats or ()) or 1)
    notes = tuple(cli_spelling(n) for n in joined.notes)
    layout = f"{fmt} logs" if len(paths) > 1 else f"one {fmt} log"
    names = list(joined.names)
    family = (len(names) > 2 or args.baseline is not None or args.plan is not None
              or (args.correction is not None and args.tasks_as != "family"))
    if family:
        return ManyInputs(
            names=tuple(_names(args, names)), values=joined.values, groups=joined.groups,
            strata=joined.strata, strata_weights=_weights(args), files=tuple(paths),
            layout=layout, notes=notes, ids=joined.ids)
    if len(names) != 2:
        raise InputError(f"the logs hold {len(names)} system(s): compare needs two (give "
                         "two logs, or --systems A,B for a file holding several)")
    if args.names is not None:
        names = _names(args, names)
    a, b = joined.runs if joined.runs is not None else joined.values
    context = _context(args, None, name_a=names[0], name_b=names[1], files=tuple(paths),
                       layout=layout, notes=notes)
    return Inputs(a, b, joined.groups, joined.strata, _weights(args), context, joined.ids)


def _common_tasks(paths) -> list[str] | None:
    """lm-eval: the tasks every input holds (None for single samples files); none in
    common is the reader's error."""
    if not any(os.path.isdir(p) for p in paths):
        return None
    return list(pbio.harness.common_tasks(paths))

"""``pairboot compare --from FORMAT``: evaluation-harness logs to compare()'s inputs.

Each input (a log, or an lm-evaluation-harness output directory) is read by
:func:`pairboot.io.harness.read` with the options the command line names (``--score``:
the metric, scorer or measure; ``--group``, ``--stratum``: the fields that label items;
``--systems``: the systems of a file holding several; and the plain-table options), the
reads are aligned on their ids (:func:`pairboot.io.harness.join`), and the result is the
inputs of a comparison of two systems or of a family.  lm-evaluation-harness outputs
and Inspect logs are recognised without ``--from``; other formats need it.

Several logs per system: inputs written ``NAME=PATH`` (:func:`named_inputs`) are runs,
the paths sharing a NAME one system's in command-line order (:func:`load_harness` with
``--runs``).  With ``--runs seeds`` each log is one run that scored every item (every log
must hold the same items); with ``--runs samples`` each log's per-item score is one
sample, and an Inspect log adds each of its epochs as a sample (a tau-bench file each of
its trials).  The systems' items x
runs tables then go to :func:`pairboot.compare` or :func:`pairboot.compare_many` with
``runs=``.
"""

from __future__ import annotations

import dataclasses
import os
import warnings

import numpy as np

import pairboot.io as pbio
from pairboot.cli.inputs import (
    Inputs,
    ManyInputs,
    pairing_options,
    report_context,
    system_names,
)
from pairboot.cli.parser import cli_spelling
from pairboot.cli.runs import samples_note
from pairboot.cli.weights import strata_weights_arg
from pairboot.errors import InputError, PairbootWarning
from pairboot.metrics import resolve_metric, trials_metric

__all__ = ["wants_harness", "load_harness", "named_inputs", "check_named", "reader_files"]

_DETECTED = ("lm-eval", "inspect", "tau-bench", "every-eval-ever", "helm", "promptfoo")
"""Formats recognised without ``--from`` (their files cannot be mistaken for tables)."""


def named_inputs(files) -> list[tuple[str, str]] | None:
    """The inputs as ``(NAME, PATH)`` pairs when they are written ``NAME=PATH``; None when
    none is.

    An input that exists as a file or folder is a path, even with ``=`` in its name; so
    is one whose part before the first ``=`` is empty or holds a path separator.  Either
    every input is written ``NAME=PATH`` or none is.
    """
    pairs: list[tuple[str | None, str]] = []
    for f in map(str, files):
        name, sep, path = f.partition("=")
        plain = (f == pbio.STDIN or not sep or not name or "/" in name or os.sep in name
                 or os.path.exists(f))
        if not plain and not path:
            raise InputError(f"{f}: no path after the system's name (give NAME=PATH)")
        pairs.append((None, f) if plain else (name, os.path.expanduser(path)))
    named = [f"{n}={p}" for n, p in pairs if n is not None]
    if not named:
        return None
    plain = next((p for n, p in pairs if n is None), None)
    if plain is not None:
        raise InputError(f"{plain}: give every input as NAME=PATH when one is ({named[0]}), "
                         "naming the system each log is a run of")
    return [(n, p) for n, p in pairs]


def check_named(args) -> None:
    """What ``NAME=PATH`` inputs need (``--runs``), and the options that do not apply."""
    if args.runs is None:
        raise InputError("NAME=PATH inputs are runs of the system NAME: give --runs seeds "
                         "(each log one run that scored every item) or --runs samples (each "
                         "log's scores one sample per item)")
    refused = (
        ("--run", args.run is not None, "--run reads long tables, where a column names "
         "each row's run"),
        ("--names", args.names is not None, "the NAME= parts name the systems"),
        ("--stream", args.stream, "logs are read whole"),
        ("--labels", args.labels is not None, "not supported yet"),
        ("--common-items", args.common_items, "not supported yet"),
        ("--errors", args.errors is not None, "not supported yet"),
        ("--tasks-as family", args.tasks_as == "family", "a family of tasks with several "
         "runs per system is not supported yet"),
    )
    for option, given, why in refused:
        if given:
            raise InputError(f"{option} with NAME=PATH inputs: {why}")


def wants_harness(args) -> bool:
    """Whether the inputs go through a reader of :mod:`pairboot.io.harness`: ``--from``,
    the plain tables' ``--correct`` or ``--system-column``, ``NAME=PATH`` inputs, or a
    log whose format is unmistakable."""
    if args.from_format is not None or args.correct is not None or args.system_column:
        return True
    if named_inputs(args.files) is not None:
        return True
    for path in args.files:
        if path == pbio.STDIN:
            continue
        if os.path.exists(path) and _detect(args, path) in _DETECTED:
            return True
    return False


def _detect(args, path: str) -> str | None:
    """``pbio.harness.detect(path)``, once per path and command (an Inspect log's check
    may parse the whole JSON file)."""
    seen = vars(args).setdefault("_detected", {})
    if path not in seen:  # (a plain table imports no reader: pbio.may_be_log)
        seen[path] = pbio.harness.detect(path) if pbio.may_be_log(path) else None
    return seen[path]


def reader_files(args) -> list[str]:
    """The files a harness reader opens besides the inputs, as ``--systems`` and
    ``--log-option`` name them (sacrebleu's hypotheses and references, WMT's details
    file: its ``FILES``): inputs too, which no report may replace.  None when no
    reader reads the inputs (``--systems`` then names columns)."""
    if not wants_harness(args):
        return []
    fmt = args.from_format
    if fmt is not None:
        found = {fmt}
    else:
        paths = [p for _, p in named_inputs(args.files) or [(None, f) for f in args.files]]
        found = {_detect(args, p) for p in paths if p != pbio.STDIN and os.path.exists(p)}
    options: dict = {"system": args.systems}
    for text in args.log_option:
        key, sep, value = text.partition("=")
        if sep:
            options[key.strip()] = value.strip()
    return [f for fmt in sorted(f for f in found if f is not None)
            for f in pbio.harness.files_named(fmt, options)]


def _options(args, fmt: str, named: bool = False) -> dict:
    systems = None
    if args.systems is not None:
        systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    options = dict(score=args.score, group=args.group, stratum=args.stratum, system=systems,
                   id=args.id, correct=args.correct, system_column=args.system_column,
                   null=args.null)
    if fmt == "lm-eval":
        options.pop("id")
    runs = getattr(args, "runs", None)
    if runs == "samples" and fmt == "inspect":
        options["epochs"] = "runs"  # (each epoch a sample)
    elif runs == "samples" and fmt == "tau-bench":
        options["trials"] = "runs"  # (each trial a sample)
    elif runs == "samples" and not named:
        raise InputError(_no_samples(args, fmt))
    elif runs == "seeds" and not named:
        raise InputError("--runs seeds with harness logs: a log holds one run; give each "
                         "run's log as NAME=PATH (base=seed1 base=seed2 new=seed1 "
                         "new=seed2), or a long table with --run")
    for text in args.log_option:
        key, sep, value = text.partition("=")
        if not sep or not key.strip():
            raise InputError(f"--log-option {text!r}: give KEY=VALUE")
        if options.get(key.strip()) is not None:
            raise InputError(f"--log-option {key.strip()}: given twice (or by its own option)")
        options[key.strip()] = value.strip()
    if fmt == "inspect" and getattr(args, "errors", None) is not None:
        options.setdefault("missing", None)
        if options["missing"] is None:  # (errored samples kept, for --errors to settle)
            options["missing"] = "wrong"
    return options


def _no_samples(args, fmt: str) -> str:
    """Why ``--runs samples`` cannot read one log per system of ``fmt``: the plain words
    for pass^k (``--metric pass^4``, ``--curve``) from lm-eval, whose samples keep one
    score per document, its repeats reduced before scoring."""
    metric = getattr(args, "metric", None)
    wanted = getattr(args, "curve", None) or (
        metric if trials_metric(getattr(args, "metric_object", None)) else None)
    runs = "give each run's log as NAME=PATH (base=run1 base=run2 new=run1 new=run2)"
    if wanted and fmt == "lm-eval":
        return (f"{wanted} cannot be read from lm-eval samples: they keep one score per "
                "document (a task's repeats are reduced to one answer before it is "
                f"scored), not each trial's; run lm-eval once per trial and {runs}")
    return (f"--runs samples with {fmt} logs: the log keeps no scores per sampled "
            f"generation (Inspect's epochs and tau-bench's trials do); {runs}")


def load_harness(args, status=None) -> Inputs | ManyInputs:
    """The inputs of ``args.files`` read as harness logs: :class:`Inputs` for two
    systems, :class:`ManyInputs` for a family (more systems, or a family option)."""
    named = named_inputs(args.files)
    paths = list(args.files) if named is None else [p for _, p in named]
    if pbio.STDIN in paths:
        raise InputError("--from reads files and directories, not standard input")
    for path in paths:
        if not os.path.exists(path):
            raise InputError(f"{path}: no such file or directory")
    fmt = args.from_format
    if fmt is None:
        found = {_detect(args, p) for p in paths}
        if found == {None} and (args.correct is not None or args.system_column):
            found = {"table"}  # (--correct and --system-column: the plain tables' options)
        if len(found) != 1 or None in found:
            raise InputError("cannot tell which harness wrote the inputs; give --from "
                             f"({', '.join(pbio.harness.formats())})")
        fmt = found.pop()
    options = _options(args, fmt, named is not None)
    if args.labels is not None:  # (--group and --stratum: the labels file's columns)
        options["group"] = options["stratum"] = None
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
    if named is not None:
        return _logs_as_runs(args, named, reads, fmt)
    rows = _row_pairing(args, fmt, paths, reads)
    with warnings.catch_warnings():  # (the items --common-items dropped: in the report)
        warnings.simplefilter("ignore", PairbootWarning)
        joined = _with_labels(args, pbio.harness.join(reads, common_items=args.common_items,
                                                      errors=args.errors))
    _take_metric(args, joined.metric, joined.stats)
    notes = tuple(cli_spelling(n) for n in (*joined.notes, *rows))
    layout = f"{fmt} logs" if len(paths) > 1 else f"one {fmt} log"
    names = list(joined.names)

    def kept(names):
        """The items --common-items kept; with a system per log, each named by it."""
        if joined.common is None or len(reads) != len(names):
            return joined.common
        return joined.common.renamed(names)

    family = (len(names) > 2 or args.baseline is not None or args.plan is not None
              or (args.correction is not None and args.tasks_as != "family"))
    if family:
        values = joined.values
        if joined.runs is not None:  # (Inspect's epochs, --runs samples)
            values = joined.runs
            notes += samples_note(values, args)
        names = system_names(args, names)
        return ManyInputs(
            names=tuple(names), values=values, groups=joined.groups,
            strata=joined.strata, strata_weights=strata_weights_arg(args), files=tuple(paths),
            layout=layout, notes=notes, ids=joined.ids, common=kept(names))
    if len(names) != 2:
        raise InputError(f"the logs hold {len(names)} system(s): compare needs two (give "
                         "two logs, or --systems A,B for a file holding several)")
    if args.names is not None:
        names = system_names(args, names)
    a, b = joined.runs if joined.runs is not None else joined.values
    if joined.runs is not None:  # (the trials kept: what each item's score is made of)
        notes += samples_note(joined.runs, args)
    context = report_context(args, None, name_a=names[0], name_b=names[1], files=tuple(paths),
                             layout=layout, notes=notes, items_kept=kept(names))
    return Inputs(a, b, joined.groups, joined.strata, strata_weights_arg(args), context,
                  joined.ids, joined.outcomes)


def _row_pairing(args, fmt: str, paths, reads) -> tuple[str, ...]:
    """Plain tables without an id column are paired by row position (their ids are the
    positions): the same check as two files without --id
    (:func:`pairboot.io.check_row_pairing`), on the tables read again; the scores and
    the left-hand side of --correct are each system's own."""
    if fmt != "table" or args.id is not None or args.system_column or len(paths) < 2:
        return ()
    if any(r.ids.tolist() != [str(i) for i in range(1, len(r.ids) + 1)] for r in reads):
        return ()  # (ids from a column named like ids: joined on them)
    read = {c.strip() for c in (args.score or "score").split(",")}
    if args.correct is not None:
        read |= {args.correct[:i].strip() for i, c in enumerate(args.correct) if c == "="}
    return pbio.check_row_pairing([pbio.read_table(p) for p in paths], read)


def _with_labels(args, joined):
    """``joined`` with its groups and strata from the --labels file, joined on --id."""
    if args.labels is None:
        return joined
    if args.id is None:
        raise InputError("--labels is joined on the items' ids: give --id (its column in "
                         "the labels file)")
    if args.group is None and args.stratum is None:
        raise InputError("--labels holds group or stratum labels: name their column with "
                         "--group or --stratum")
    table = pairing_options(args)["labels"]
    found = {what: None if col is None else pbio.labels_by_id(
        table, args.id, joined.ids, col, what=what, param=param)
        for what, col, param in (("group", args.group, "groups"),
                                 ("stratum", args.stratum, "strata"))}
    note = (f"labels from {table.path} (joined on column {args.id!r}): "
            + ", ".join(f"{w} from {c!r}" for w, c in (("groups", args.group),
                                                       ("strata", args.stratum)) if c))
    return dataclasses.replace(joined, groups=found["group"], strata=found["stratum"],
                               notes=(*joined.notes, note))


def _take_metric(args, metric: str, stats) -> None:
    """The logs' metric becomes the run's (a pooled metric's statistics need it); a
    --metric that does not apply to them is refused."""
    if metric == "custom":  # statistics no built-in metric names: --metric says
        if args.metric == "mean":
            raise InputError("the logs hold several statistics per item that no built-in "
                             "metric names; give --metric (a built-in, or FILE.py:NAME)")
    elif metric != "mean":
        if args.metric not in ("mean", metric):
            raise InputError(f"the logs hold the statistics of metric {metric!r}; "
                             f"--metric {args.metric} does not apply to them")
        args.metric = metric
        args.metric_object = resolve_metric(metric, len(stats or ()) or 1)


def _logs_as_runs(args, named: list[tuple[str, str]], reads, fmt: str) -> Inputs | ManyInputs:
    """``NAME=PATH`` logs as runs: each system's items x runs table (items x runs x
    statistics for a pooled metric), on the items every log scores (``--runs seeds``) or
    that every system scores in some log (``--runs samples``)."""
    first = reads[0]
    for (_, path), r in zip(named, reads):
        if len(r.systems) != 1:
            raise InputError(f"{path} holds {len(r.systems)} systems "
                             f"({', '.join(map(str, r.systems))}); a NAME=PATH input is one "
                             "run of one system")
        if (r.metric, r.stats) != (first.metric, first.stats):
            raise InputError(f"{path} holds {r.metric} ({r.score}) but {first.path} "
                             f"{first.metric} ({first.score}): they do not compare")
    _take_metric(args, first.metric, first.stats)
    names = list(dict.fromkeys(name for name, _ in named))
    if len(names) < 2:
        raise InputError(f"every NAME=PATH input names system {names[0]!r}: compare needs "
                         "two systems or more")
    system_names(args, names)  # (--baseline must be one of them)
    order: dict = {}
    for r in reads:
        for v in r.ids.tolist():
            order.setdefault(v, len(order))
    n = len(order)
    logs = {name: [(path, r) for (s, path), r in zip(named, reads) if s == name]
            for name in names}
    if args.runs == "seeds":
        for (name, path), r in zip(named, reads):
            if len(r.ids) < n:
                held = set(r.ids.tolist())
                lacking = [v for v in order if v not in held]
                raise InputError(
                    f"{path} (a run of {name!r}) lacks {len(lacking):,} of the {n:,} items "
                    f"the logs score (e.g. {', '.join(map(repr, lacking[:3]))}); with --runs "
                    "seeds every run scores every item")
        if args.paired_runs and len({len(v) for v in logs.values()}) > 1:
            counts = ", ".join(f"{name!r} {len(v)}" for name, v in logs.items())
            raise InputError(f"--paired-runs pairs run r of every system (their logs in "
                             f"command-line order): the logs per system differ ({counts})")
    else:
        for name, pairs in logs.items():
            held = set().union(*(r.ids.tolist() for _, r in pairs))
            if len(held) < n:
                lacking = [v for v in order if v not in held]
                raise InputError(
                    f"{name!r} has no sample of {len(lacking):,} of the {n:,} items the "
                    f"logs score (e.g. {', '.join(map(repr, lacking[:3]))}) in its "
                    f"{len(pairs)} log(s); every system needs a sample of every item")
    tables = []
    for pairs in logs.values():
        blocks = []
        for _, r in pairs:
            (system, values), = r.systems.items()
            block = np.asarray(values, dtype=np.float64)
            if args.runs == "samples" and r.runs is not None:
                block = np.asarray(r.runs[system], dtype=np.float64)  # (its epochs)
            else:
                block = block.reshape(len(block), 1, *block.shape[1:])
            full = np.full((n, *block.shape[1:]), np.nan)
            full[[order[v] for v in r.ids.tolist()]] = block
            blocks.append(full)
        tables.append(np.concatenate(blocks, axis=1))
    groups = _labels(reads, order, "groups", "group")
    strata = _labels(reads, order, "strata", "stratum")
    epochs = args.runs == "samples" and first.runs is not None
    per_log = "each epoch of each log a sample" if epochs else "a log per run"
    notes = [f"{name}: {len(pairs)} log(s) as {args.runs} ({per_log}): "
             f"{', '.join(path for path, _ in pairs)}" for name, pairs in logs.items()]
    if args.runs == "samples":
        notes += samples_note(tables, args)
    notes += dict.fromkeys(cli_spelling(note) for r in reads for note in r.notes)
    layout = f"{fmt} logs as runs ({args.runs}), a system's logs named NAME=PATH"
    paths = tuple(path for _, path in named)
    ids = list(order)
    family = (len(names) > 2 or args.baseline is not None or args.plan is not None
              or args.correction is not None)
    if family:
        return ManyInputs(names=tuple(names), values=tuple(tables), groups=groups,
                          strata=strata, strata_weights=strata_weights_arg(args), files=paths,
                          layout=layout, notes=tuple(notes), ids=ids)
    context = report_context(args, None, name_a=names[0], name_b=names[1], files=paths,
                       layout=layout, notes=tuple(notes))
    return Inputs(tables[0], tables[1], groups, strata, strata_weights_arg(args), context, ids)


def _labels(reads, order: dict, attr: str, what: str):
    """Each item's group or stratum label from the logs (None when they have none); a
    log that labels an item otherwise than an earlier one is refused."""
    have = [getattr(r, attr) is not None for r in reads]
    if not any(have):
        return None
    if not all(have):
        r = reads[have.index(False)]
        other = reads[have.index(True)]
        raise InputError(f"{r.path} has no {what} labels, but {other.path} has")
    out: list = [None] * len(order)
    source: list = [None] * len(order)
    for r in reads:
        for v, label in zip(r.ids.tolist(), getattr(r, attr).tolist()):
            i = order[v]
            if out[i] is None:
                out[i], source[i] = label, r.path
            elif out[i] != label:
                raise InputError(f"{r.path}: item {v!r} is in {what} {label!r}, but in "
                                 f"{out[i]!r} in {source[i]}")
    return np.array(out, dtype=object)


def _common_tasks(paths) -> list[str] | None:
    """lm-eval: the tasks every input holds (None for single samples files); none in
    common is the reader's error."""
    if not any(os.path.isdir(p) for p in paths):
        return None
    return list(pbio.harness.common_tasks(paths))

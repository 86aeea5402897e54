"""``pairboot compare --score NAME[:lower][:MARGIN] --score ...``: several metrics of one
comparison, read from two files (A then B, the same columns in each), one wide file with
``--a``/``--b`` naming each system's columns by prefix or suffix, or one long file (a row
per system and item, ``--system-column``, ``--a``/``--b`` two of its systems); the
inputs of :func:`pairboot.compare_metrics`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import pairboot.io as pbio
from pairboot.cli.arguments import given_options
from pairboot.cli.harness import wants_harness
from pairboot.cli.inputs import align, pairing_options
from pairboot.cli.parser import cli_spelling
from pairboot.cli.stats import find_system_column
from pairboot.cli.weights import strata_weights_arg
from pairboot.errors import InputError
from pairboot.metrics import Criterion, criterion_columns, parse_criterion

if TYPE_CHECKING:  # (the report's context: imported where several metrics are read)
    from pairboot.report import MetricsContext

OWN = (("metric", "--metric"), ("stats", "--stats"),
       ("lower_is_better", "--lower-is-better"), ("margin", "--margin"))
"""What each --score carries itself: the mean of its column, its direction, its margin."""

REFUSED = (
    ("fail_if", "--fail-if"), ("test", "--test"), ("unpaired", "--unpaired"),
    ("run", "--run"), ("runs", "--runs"), ("paired_runs", "--paired-runs"),
    ("systems", "--systems"), ("baseline", "--baseline"), ("plan", "--plan"),
    ("stream", "--stream"), ("tasks_as", "--tasks-as"), ("from_format", "--from"),
    ("correct", "--correct"), ("plot", "--plot"), ("estimand", "--estimand"),
    ("log_option", "--log-option"), ("null", "--null"),
)
"""What several metrics do not take yet: the gate over them (--fail-if's successor) is
a policy of its own; two systems, paired, in memory, from plain tables."""


@dataclass(frozen=True, slots=True)
class MetricsInputs:
    """The inputs of :func:`pairboot.compare_metrics`: each system's columns by name,
    the criteria, the labels, and what the report says about the reading."""

    a: dict
    b: dict
    metrics: dict[str, Criterion]
    groups: object
    strata: object
    strata_weights: object
    ids: object
    names: tuple[str, str]
    context: MetricsContext


def _refuse(args) -> None:
    given = given_options(args)
    for dest, option in (*OWN, *REFUSED):
        value = "metric" in given if dest == "metric" else getattr(args, dest, None)
        if value in (None, False, [], ""):
            continue
        if (dest, option) in OWN:
            raise InputError(f"{option} does not go with several --score metrics: each "
                             "--score NAME[:lower][:MARGIN] carries its own direction and "
                             "margin, and is the mean of its column")
        raise InputError(f"{option} does not go with several --score metrics (not yet: "
                         "they compare two systems' plain tables, paired, in memory)")
    if args.alternative != "two-sided":
        raise InputError("--alternative with several --score metrics: every metric's "
                         "one-sided p-values, on its own better side, are in the report "
                         "(--format json)")


def load_metrics(args, gate_metrics: dict[str, Criterion] | None = None) -> MetricsInputs:
    """Read and align the files named on the command line for several metrics: those of
    --score, or ``gate_metrics`` (a --gate policy's, each reading the column of its name
    or its one column)."""
    _refuse(args)
    if args.system_column is None and wants_harness(args):
        raise InputError("several --score metrics read plain tables (a row per item, a "
                         "column per metric), not harness logs")
    metrics: dict[str, Criterion] = {}
    for text in getattr(args, "scores", None) or []:
        name, crit = parse_criterion(text)
        if name in metrics:
            raise InputError(f"--score {name!r} is given twice: give each column once")
        metrics[name] = crit
    if gate_metrics is not None:
        metrics = dict(gate_metrics)
    columns = list(dict.fromkeys(c for n, crit in metrics.items()
                                 for c in criterion_columns(n, crit)))
    files = list(args.files)
    if args.group_weighting is not None and args.group is None:
        raise InputError("--group-weighting needs --group (the column of group labels)")
    if args.stratum_weights is not None and args.stratum is None:
        raise InputError("--stratum-weights needs --stratum (the column of stratum labels)")
    if args.system_column is not None:
        return _long(args, metrics, files, columns)
    if len(files) == 2:
        if args.a is not None or args.b is not None:
            raise InputError("--a/--b name the systems' columns in the one-file layout; with "
                             "two files each --score names a column of both")
        tables = [pbio.read_table(f) for f in files]
        for t in tables:
            t.check_columns([args.id, *columns])
        per_system = (columns, columns)
        names = tuple(pbio.names_of_files(files))
    elif len(files) == 1:
        if args.a is None or args.b is None:
            raise InputError("with one file, give --a and --b (each system's columns: "
                             "{a}_{score}, {score}_{a}, ...), or two files, A then B")
        tables = [pbio.read_table(files[0])]
        per_system = tuple([find_system_column(tables[0], s, c) for c in columns]
                           for s in (args.a, args.b))
        names = (args.a, args.b)
    else:
        raise InputError(f"several --score metrics compare two systems: two files (A then "
                         f"B) or one file with --a and --b, got {len(files)} files")
    names = _names(args, names)
    aligned = align(tables, columns=per_system, id=args.id, groups=args.group,
                    strata=args.stratum, paired=True, **pairing_options(args))
    a, b = (v.reshape(len(v), -1) for v in aligned.values)
    from pairboot.report import MetricsContext

    context = MetricsContext(
        files=tuple(t.path for t in tables), layout=cli_spelling(aligned.layout),
        notes=tuple(map(cli_spelling, aligned.notes)), id=args.id, group=args.group,
        stratum=args.stratum, scores=tuple(getattr(args, "scores", None) or ()),
        reword=cli_spelling)
    return MetricsInputs(
        a={c: a[:, j] for j, c in enumerate(columns)},
        b={c: b[:, j] for j, c in enumerate(columns)},
        metrics=metrics, groups=aligned.groups, strata=aligned.strata,
        strata_weights=strata_weights_arg(args), ids=aligned.ids, names=names,
        context=context)


def _names(args, names: tuple[str, str]) -> tuple[str, str]:
    """--names, else ``names``."""
    if args.names is None:
        return names
    given = tuple(n.strip() for n in args.names.split(","))
    if len(given) != 2 or not all(given) or given[0] == given[1]:
        raise InputError(f"--names: two different names, A's then B's, got {args.names!r}")
    return given


def _long(args, metrics: dict[str, Criterion], files: list[str], columns: list[str]
          ) -> MetricsInputs:
    """The long layout: one file, a row per system and item, --system-column naming the
    system, --a and --b two of its values, --id the items (the table reader's)."""
    if len(files) != 1 or args.a is None or args.b is None:
        raise InputError("--system-column reads one file, a row per system and item: give "
                         "one file, and --a and --b (two of the systems it names)")
    if args.labels is not None or args.common_items:
        raise InputError("--labels and --common-items are for files joined on --id, not "
                         "the long layout")
    read = pbio.harness.read(files[0], "table", id=args.id, score=columns,
                             system=[args.a, args.b], system_column=args.system_column,
                             group=args.group, stratum=args.stratum)
    a, b = (read.systems[s].reshape(len(read.ids), -1) for s in (args.a, args.b))
    from pairboot.report import MetricsContext

    context = MetricsContext(
        files=(read.path,), layout=f"long layout, systems in column "
                                   f"{args.system_column!r}",
        notes=tuple(map(cli_spelling, read.notes)), id=args.id, group=args.group,
        stratum=args.stratum, scores=tuple(getattr(args, "scores", None) or ()),
        reword=cli_spelling)
    return MetricsInputs(
        a={c: a[:, j] for j, c in enumerate(columns)},
        b={c: b[:, j] for j, c in enumerate(columns)},
        metrics=metrics, groups=read.groups, strata=read.strata,
        strata_weights=strata_weights_arg(args), ids=list(read.ids),
        names=_names(args, (args.a, args.b)), context=context)

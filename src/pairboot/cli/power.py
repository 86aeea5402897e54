"""``pairboot power``: plan an evaluation, a thin shell over :func:`pairboot.power`.

Two forms::

    pairboot power --accuracy-a 0.72 --accuracy-b 0.74 --discordant 0.15 --power 0.8
    pairboot power pilot.csv --a base --b new --id id --delta 0.02 --power 0.8 [--simulate]

Without files, the plan rests on what the user knows (:data:`~pairboot.cli.parser.KNOWN`);
with files, on a pilot read exactly as ``pairboot compare`` reads its inputs (two
systems, a family with ``--systems``/``--baseline``, groups, strata, runs, harness logs).
The report is :func:`pairboot.report.render`'s; ``--plot`` draws
:func:`pairboot.plot.plot_power`; ``--simulate`` shows a progress bar on a terminal.
"""

from __future__ import annotations

import sys
import warnings

import pairboot
import pairboot.io as pbio
from pairboot.cli.harness import check_named, load_harness, named_inputs, wants_harness
from pairboot.cli.inputs import (
    ManyInputs,
    as_two_systems,
    check_distinct_files,
    load_inputs,
    load_many,
    many_systems,
)
from pairboot.cli.options import check_level
from pairboot.cli.output import (
    check_output,
    check_plot,
    check_stdout,
    deliver,
    input_files,
    one_line,
    report_text,
)
from pairboot.cli.parser import EXIT_OK, KNOWN, PLANNED, SIMULATIONS
from pairboot.cli.progress import ProgressBar, read_progress
from pairboot.cli.runs import load_runs, load_runs_many
from pairboot.cli.stats import metric_option
from pairboot.cli.weights import strata_weights_arg
from pairboot.errors import InputError
from pairboot.metrics import trials_metric
from pairboot.options import DEFAULTS
from pairboot.report import power_panels

__all__ = ["run_power"]

PILOT_OPTIONS = (
    ("id", "--id"), ("a", "--a"), ("b", "--b"), ("systems", "--systems"),
    ("names", "--names"), ("baseline", "--baseline"), ("correction", "--correction"),
    ("group", "--group"), ("group_weighting", "--group-weighting"),
    ("stratum", "--stratum"), ("stratum_weights", "--stratum-weights"), ("run", "--run"),
    ("runs", "--runs"), ("labels", "--labels"), ("score", "--score"), ("stats", "--stats"),
    ("from_format", "--from"), ("correct", "--correct"), ("system_column", "--system-column"),
    ("null", "--null"), ("tasks_as", "--tasks-as"))
"""Options that describe a pilot's files: refused without files."""

WITHOUT_DATA = {"group": "--group-size and --icc", "group_weighting": "--group-size and --icc",
                "run": "--run-sd and --residual-sd", "runs": "--run-sd and --residual-sd"}
"""What replaces a pilot's option when planning without data."""


def run_power(args) -> int:
    """``pairboot power``: check, read the pilot (if any), plan, report."""
    check_level(args)
    if len(getattr(args, "scores", None) or []) > 1:
        raise InputError("--score given twice: the planner plans one metric (several "
                         "--score metrics are compare's)")
    if getattr(args, "estimand", None) == "suite":
        raise InputError("--estimand suite: the planner plans the population interval "
                         "only (for now)")
    if args.files:
        named = named_inputs(args.files)
        if named is not None:
            check_named(args)
        check_distinct_files(args, named)
        read = input_files(args)
    else:
        if args.runs == "samples" and trials_metric(metric_option(args.metric)) is not None:
            args.trials_runs, args.runs = args.runs, None  # (a k-trial metric's, below)
        _check_without_data(args)
        read = []
    how = check_output(args.output, read) if args.output is not None else None
    if how in (None, "stdout"):
        check_stdout()
    args.plot_kind = check_plot(args.plot, read, args.output) if args.plot else None
    args.metric_object = metric_option(args.metric)
    keywords = {name: getattr(args, name) for name in PLANNED}
    keywords.update(
        confidence_level=args.level, alternative=args.alternative,
        hypothesis=args.hypothesis or DEFAULTS["hypothesis"], margin=args.margin,
        lower_is_better=args.lower_is_better, test=args.test)
    if args.files:
        keywords.update(_pilot(args))
    else:
        keywords.update({name: getattr(args, name) for name in KNOWN
                         if getattr(args, name) is not None})
        if getattr(args, "trials_runs", None) is not None or trials_metric(
                args.metric_object) is not None:
            keywords.update(metric=args.metric_object,
                            runs=getattr(args, "trials_runs", None))
    result, caught = _planned(args, keywords)
    if args.plot and not power_panels(result):  # (said before the report is written)
        raise InputError(f"--plot {args.plot}: this plan has no curve to draw (it needs a "
                         "size, a difference and a power): " + result.summary())
    text = report_text(args, result, spelled=True)
    deliver(args, how, text, [], lambda plot: _first(plot.plot_power(result)))
    for w in caught:
        print(f"warning: {one_line(w)}", file=sys.stderr)
    return EXIT_OK


def _check_without_data(args) -> None:
    """Without files: no option that reads them, no --simulate (it resamples a pilot)."""
    for dest, flag in PILOT_OPTIONS:
        if getattr(args, dest) is not None:
            instead = WITHOUT_DATA.get(dest, "--sd, or --accuracy-a, --accuracy-b and "
                                             "--discordant")
            raise InputError(f"{flag} describes a pilot's files, and none is given: give "
                             f"the files, or plan without data with {instead}")
    if args.paired_runs:
        raise InputError("--paired-runs describes a pilot's runs, and no file is given")
    if args.simulate is not None:
        raise InputError("--simulate checks the plan on a pilot's data: give the pilot's "
                         "files (a plan from parameters is not simulated)")


def _pilot(args) -> dict:
    """The pilot read as compare reads its inputs: ``a``, ``b`` (or a family's
    ``scores``) and the design keywords of :func:`pairboot.power`."""
    known = [name for name in KNOWN if getattr(args, name) is not None]
    if known:
        raise InputError(f"--{known[0].replace('_', '-')} with a pilot: the pilot's files "
                         "give the spread; leave it out (or plan without the files)")
    if args.tasks_as == "family":
        raise InputError("--tasks-as family is not planned: plan the tasks as strata (the "
                         "default), or each task on its own")
    design = {"metric": args.metric_object,
              "group_weighting": args.group_weighting or DEFAULTS["group_weighting"]}
    if args.run is not None and not many_systems(args):
        a, b, ids, groups, strata, _ = load_runs(args)
        named = {"ids": ids} if args.runs == "samples" else {}  # (a trials metric's items)
        return {"a": a, "b": b, "groups": groups, "strata": strata, **named,
                "strata_weights": strata_weights_arg(args), "runs": args.runs,
                "paired_runs": args.paired_runs, **design}
    logs = wants_harness(args)
    if args.run is not None:
        inputs = load_runs_many(args)
    elif (args.runs is not None or args.paired_runs) and not logs:
        raise InputError("--runs and --paired-runs need --run (the column naming each "
                         "row's run) or harness logs written NAME=PATH (a log per run)")
    else:
        status = read_progress(not args.no_progress)
        try:
            if many_systems(args) and not logs:
                inputs = load_many(args, status)
            else:
                inputs = load_harness(args, status) if logs else load_inputs(args, status)
        finally:
            status.close()
    pbio.release_arrow_memory()
    if isinstance(inputs, ManyInputs):
        two = as_two_systems(args, inputs)
        if two is None:
            if args.simulate is not None:
                raise InputError("--simulate checks a plan of two systems; a family's "
                                 "plan is not simulated (plan a pair to simulate it)")
            return {"scores": dict(zip(inputs.names, inputs.values)),
                    "baseline": args.baseline,
                    "correction": args.correction or "max-t", "groups": inputs.groups,
                    "strata": inputs.strata, "strata_weights": inputs.strata_weights,
                    **design}
        inputs = two
    runs = {} if args.runs is None else {"runs": args.runs, "paired_runs": args.paired_runs}
    return {"a": inputs.a, "b": inputs.b, "groups": inputs.groups, "strata": inputs.strata,
            "strata_weights": inputs.strata_weights, **runs, **design}


def _planned(args, keywords: dict):
    """:func:`pairboot.power` with a progress bar of the simulations (a terminal only);
    the result, and the library's warnings as text."""
    simulate = args.simulate is not None
    bar = (ProgressBar(args.simulate, enabled=not args.no_progress, what="simulating")
           if simulate else None)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = pairboot.power(
                **keywords, simulate=simulate,
                n_simulations=args.simulate if simulate else SIMULATIONS,
                seed=args.seed, progress=bar)
    finally:
        if bar is not None:
            bar.close()
    return result, list(dict.fromkeys(str(w.message) for w in caught))


def _first(axes):
    """The first of the plot's axes (their figure is saved)."""
    return axes[0] if isinstance(axes, tuple) else axes

"""``pairboot compare ... --aggregate NAME``: many systems on several tasks, a thin shell
over :func:`pairboot.compare_tasks`.

The inputs are read as for a family (files, one file with --systems, a long table with
--system-column, harness logs of several tasks); the tasks are --stratum's labels (or
the logs' tasks), and the report is the aggregate's writer for --format, --plot drawing
:func:`pairboot.plot.plot_ranks`.  What the aggregate does not take is refused before
anything is read, naming the option.
"""

from __future__ import annotations

import pairboot
from pairboot import TasksResult
from pairboot.cli.arguments import given_options
from pairboot.cli.options import api_options
from pairboot.cli.output import deliver, report_text
from pairboot.cli.parser import EXIT_OK
from pairboot.errors import InputError
from pairboot.report import formats_of

__all__ = ["check_tasks", "run_tasks"]

_VALUED = {"alternative": "--alternative", "hypothesis": "--hypothesis",
           "margin": "--margin", "test": "--test", "resampling": "--resampling",
           "scheduler": "--scheduler", "estimand": "--estimand", "fail_if": "--fail-if",
           "plan": "--plan", "stratum_weights": "--stratum-weights", "curve": "--curve",
           "gate": "--gate", "noise_floor": "--noise-floor", "tasks_as": "--tasks-as"}
"""Options with a value that an aggregate over tasks does not take (given: refused)."""

_FLAGS = {"stream": "--stream", "unpaired": "--unpaired", "paired_runs": "--paired-runs"}
"""Flags it does not take (set: refused)."""

_ONLY_WITH = {"vary": "--vary", "gamma": "--gamma"}
"""Options that mean something only with --aggregate."""


def check_tasks(args) -> None:
    """Refuse, before reading, what --aggregate cannot do (and its own options
    without it)."""
    given = given_options(args)
    if args.aggregate is None:
        alone = [flag for name, flag in _ONLY_WITH.items() if name in given]
        if alone:
            raise InputError(f"{alone[0]} goes with --aggregate (an aggregate over tasks)")
        return
    if args.alternative == "two-sided":
        given.discard("alternative")
    refused = [flag for name, flag in _VALUED.items() if name in given]
    refused += [flag for name, flag in _FLAGS.items() if getattr(args, name, None)]
    if refused:
        raise InputError(f"--aggregate does not take {', '.join(refused)}: it summarises "
                         "many systems over tasks, two-sided, on paired classic draws")
    if args.gamma is not None and args.aggregate != "optimality-gap":
        raise InputError("--gamma is the optimality gap's target: give --aggregate "
                         "optimality-gap")
    if args.format not in formats_of(TasksResult):
        raise InputError(f"--format {args.format} is not written for an aggregate over "
                         f"tasks; choose one of {', '.join(formats_of(TasksResult))}")


def run_tasks(args, how: str | None, names, values, inputs, resampled) -> int:
    """compare_tasks() of the systems' aligned values, the tasks being the inputs'
    strata, and its report; ``resampled(args, total, run)`` runs it (compare's: its
    progress bar, the library's warnings held back for the report)."""
    if inputs.strata is None:
        raise InputError("--aggregate needs tasks: --stratum COL (the task of every item), "
                         "or harness logs of several tasks")
    keywords = api_options(args, ("group_weighting", "metric", "n_resamples",
                                  "confidence_level", "method", "lower_is_better", "seed",
                                  "correction", "baseline"))
    if args.runs is not None:
        keywords["runs"] = args.runs
    result = resampled(args, args.resamples, lambda bar: pairboot.compare_tasks(
        dict(zip(names, values)), tasks=inputs.strata, groups=inputs.groups,
        aggregate=args.aggregate, resample=args.vary or "items",
        gamma=1.0 if args.gamma is None else args.gamma, progress=bar, **keywords))
    deliver(args, how, report_text(args, result), result.warnings,
            lambda plot: plot.plot_ranks(result)[0])
    return EXIT_OK

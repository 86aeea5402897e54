"""Every file a command reads, collected in one place from the options that name them.

A report (``--output``) or a picture (``--plot``) must never replace one of the run's
inputs (:func:`pairboot.cli.output.check_output`).  So every option of the command line
is declared here: in :data:`READS` with the files its value names, in :data:`WRITES`, or
in :data:`NAMES_NO_FILE`.  A test holds every option of every subcommand to exactly one
of the three, so that a new option cannot be forgotten; a harness reader's options that
name files are its ``FILES`` (:func:`pairboot.io.harness.files_named`).
"""

from __future__ import annotations

import os
from collections.abc import Callable

from pairboot.cli.harness import named_inputs, reader_files
from pairboot.metrics import metric_file

__all__ = ["READS", "WRITES", "NAMES_NO_FILE", "input_files"]


def _data(args) -> list[str]:
    """The data and logs (the paths of ``NAME=PATH`` inputs; a folder of logs stands
    for every file in it; ``-``, standard input, for the file it is redirected from)."""
    files = getattr(args, "files", None) or []
    named = named_inputs(files)
    return [str(f) for f in files] if named is None else [path for _, path in named]


def _value(dest: str) -> Callable[[object], list[str]]:
    """An option whose value is one file."""
    return lambda args: [] if getattr(args, dest, None) is None else [str(getattr(args, dest))]


def _stratum_weights(args) -> list[str]:
    """``--stratum-weights``: a file when one is there (else ``name=w,...`` text)."""
    spec = args.stratum_weights
    return [spec] if spec is not None and os.path.isfile(spec) else []


def _metric(args) -> list[str]:
    """``--metric FILE.py:NAME`` (or ``MODULE:NAME``): the file that is run."""
    path = metric_file(args.metric) if ":" in str(args.metric) else None
    return [] if path is None else [path]


READS: dict[str, Callable[[object], list[str]]] = {
    "files": _data,
    "plan": _value("plan"),
    "gate": _value("gate"),
    "plan_file": _value("plan_file"),
    "labels": _value("labels"),
    "stratum_weights": _stratum_weights,
    "metric": _metric,
    "systems": reader_files,  # (sacrebleu's hypotheses are files; a table's are columns)
    "log_option": reader_files,
}
"""Option (its ``dest``) -> the files its value names, which the run reads."""

WRITES = ("output", "plot")
"""Options naming files the run writes: checked against every file of :data:`READS`."""

NAMES_NO_FILE = frozenset({
    # the inputs' columns and layout
    "id", "score", "a", "b", "stats", "group", "stratum", "run", "names", "baseline",
    "correct", "system_column", "null", "from_format", "tasks_as", "group_weighting",
    "common_items", "errors", "unpaired", "runs", "paired_runs", "estimand", "curve",
    "ks", "noise_floor", "gold_a", "gold_b", "gold_score", "aggregate", "vary", "gamma",
    # the computation and what is tested
    "resamples", "level", "method", "alternative", "margin", "hypothesis", "test",
    "exact", "seed", "resampling", "stream", "scheduler", "correction", "fail_if",
    "lower_is_better", "inconclusive", "lam", "no_clip",
    # the report
    "format", "top", "no_progress",
    # pairboot power's plan and what is known without data
    "delta", "power", "n_items", "n_groups", "n_runs", "simulate", "sd", "sd_a", "sd_b",
    "correlation", "accuracy_a", "accuracy_b", "discordant", "group_size", "icc",
    "group_size_cv", "run_sd", "residual_sd", "rate_a", "rate_sd", "shift_sd",
    # pairboot plan
    "action",
    # pairboot battles (its columns, the ratings)
    "strong_weight", "prompt", "verdict", "game", "weight", "model", "ties", "orders",
    "cluster", "anchor", "anchor_rating", "ridge",
    # pairboot watch: the sequence and the waiting
    "bounds", "budget", "n_target", "sequence", "min_units", "follow", "timeout", "poll",
    "every",
    # pairboot agreement and pairboot gold-labels
    "statistics", "categories", "skip_unrated", "half_width",
})
"""Options whose values name no file (columns, numbers, choices, flags, an address)."""


def input_files(args) -> list[str]:
    """Every file the command reads, as the options name them (each once, in the order
    of :data:`READS`); ``-`` stands for the file standard input is redirected from."""
    out: list[str] = []
    for dest, files in READS.items():
        if hasattr(args, dest):
            out += [f for f in files(args) if f not in out]
    return out

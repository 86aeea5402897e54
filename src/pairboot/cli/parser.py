"""The command line's options: the argparse parser.

The library writes an argument in its messages as `` `n_resamples` `` or
`` `n_resamples=100` `` (:mod:`pairboot.errors`); how this command line writes each one
(:data:`~pairboot.cli.spelling.OPTIONS`, :func:`~pairboot.cli.spelling.cli_spelling`) is
:mod:`pairboot.cli.spelling`'s, re-exported here.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from pairboot import CORRECTIONS, METHODS, RESAMPLINGS
from pairboot._version import __version__
from pairboot.cli.arguments import (
    OnceFlag,
    Parser,
    add_design,
    add_family,
    add_inputs,
    add_level,
    add_lower_is_better,
    add_output,
    add_seed,
    add_test,
    count_value,
    finite_number,
    once,
    one_or_two_numbers,
)
from pairboot.cli.battles_args import add_battles
from pairboot.cli.gold_options import add_gold, add_tasks
from pairboot.cli.judge_args import add_agreement, add_gold_labels
from pairboot.cli.spelling import KNOWN, OPTIONS, PLANNED, cli_spelling  # noqa: F401
from pairboot.cli.status import EXIT_FAILED, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE  # noqa: F401
from pairboot.cli.watch_parser import add_watch
from pairboot.options import TESTS
from pairboot.report import FAIL_IF, formats_of

_COMPARE, _FAMILY, _CURVE, _GATE, _TASKS, _POWER, _PREFERENCES, _AGREEMENT, _LABELS = (
    f"pairboot.results.{m}" for m in (
        "compare.CompareResult", "family.FamilyResult", "family.TrialsCurve",
        "metrics.GateResult", "tasks.TasksResult", "power.PowerResult",
        "preferences.PreferenceResult", "agreement.AgreementResult", "labels.LabelPlan"))
"""The result types whose formats ``--format`` offers, by name: listed without importing
the family's and the planner's result types (:func:`pairboot.report.formats_of`)."""


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with ``command`` (one of :data:`COMMANDS`), that
    subcommand's options alone: building every subcommand's hundreds of options is
    start-up a small command would wait for, and the others' cannot be parsed once the
    command is named (``pairboot --help`` and an unknown command build them all)."""
    parser = Parser(
        prog="pairboot",
        description="Paired bootstrap confidence intervals for comparing two systems "
        "on the same test items.",
    )
    parser.add_argument("--version", action="version", version=f"pairboot {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    for name, add in COMMANDS.items():
        if command is None or command == name:
            built = add(sub)
            built.set_defaults(command_parser=built)  # (unknown options are its to report)
    return parser


def _add_compare(sub) -> argparse.ArgumentParser:
    """``pairboot compare``: two systems, a family, runs, tasks, a judge, a gate."""
    p = sub.add_parser(
        "compare",
        help="compare system B with system A: the difference and its bootstrap interval",
        description="Compare system B with system A on the same test items: B - A, its\n"
        "bootstrap confidence interval and p-value.  Give two files (A then B, one row\n"
        "per item, joined on --id) or one file with a column per system (--a, --b).\n"
        "CSV, TSV, JSON Lines, JSON, Parquet by extension; '-' reads standard input.",
        epilog="examples:\n"
        "  pairboot compare base.csv new.csv --id id --score score\n"
        "  pairboot compare runs.csv --a base --b new --id id\n"
        "  pairboot compare base.csv new.csv --id id --group topic --stratum source\n"
        "  pairboot compare ner.csv --a base --b new --metric f1 --stats tp,fp,fn\n"
        "  pairboot compare base.jsonl v1.jsonl v2.jsonl --id id --score acc --baseline base\n"
        "  pairboot compare runs.csv --systems base,v1,v2 --id id\n"
        "  pairboot compare long.csv --systems base,v1,v2 --id id --run seed \\\n"
        "                   --runs seeds --correction holm\n"
        "\n"
        "several logs per system, written NAME=PATH (paths sharing a NAME are the runs of\n"
        "one system, in this order; any format --from reads; needs --runs):\n"
        "  pairboot compare base=out/base_seed1 base=out/base_seed2 new=out/new_seed1 \\\n"
        "                   new=out/new_seed2 --runs seeds --score acc",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    once(p)
    add_inputs(p, required=True)
    add_gold(p)
    boot = p.add_argument_group("bootstrap")
    boot.add_argument("--resamples", type=int, default=10_000, metavar="R",
                      help="number of bootstrap resamples (default 10000)")
    add_level(boot)
    boot.add_argument("--method", default="percentile",
                      metavar="{" + ",".join(METHODS) + "}",
                      help="interval method (default percentile)")
    add_test(boot)
    boot.add_argument("--test", choices=TESTS, default=None,
                      help="a test reported beside the interval: mcnemar (the exact McNemar "
                      "test of 0/1 scores, with its mid-p and the 2 x 2 table) or "
                      "permutation (the paired permutation test: A and B swapped per item, "
                      "or per group, the metric recomputed)")
    boot.add_argument("--exact", action=OnceFlag, default=None,
                      help="with --test permutation: enumerate every swap (refused beyond "
                      "20 units), or --no-exact for random ones (default: every swap when "
                      "there are 20 units or fewer)")
    add_seed(boot, "default: derived from the data and options, so a rerun gives the "
              "same output; always reported")
    boot.add_argument("--resampling", choices=RESAMPLINGS, default=None,
                      help="classic (default: n draws with replacement) or poisson "
                      "(Poisson(1) weights keyed by --id: the same answer for any row "
                      "order; what distributed runs compute)")
    boot.add_argument("--stream", action="store_true",
                      help="read the files once in chunks, for files larger than memory "
                      "(Poisson weights; needs pyarrow; percentile, basic or normal)")
    boot.add_argument("--scheduler", metavar="ADDRESS",
                      help="with --stream: a Dask scheduler (tcp://host:8786) whose workers "
                      "read the files (paths they can reach, e.g. s3://...) and sum them")
    boot.add_argument("--unpaired", action="store_true",
                      help="draw A's and B's items independently (for contrast)")
    add_design(p, curve=True)
    many = add_family(p)
    many.add_argument("--plan", metavar="FILE",
                      help="a plan (TOML) fixed in advance: its systems, family, metric, "
                      "level, correction, resamples and seed; anything else is refused, and "
                      "the report carries the plan's SHA-256")
    many.add_argument("--correction", choices=CORRECTIONS, default=None,
                      help="max-t (default: simultaneous intervals, stepdown p-values), "
                      "holm, bonferroni, bh or by (the false discovery rate: q-values and "
                      "false-coverage-rate intervals), or none")
    gate = p.add_argument_group("verdict")
    gate.add_argument("--fail-if", choices=tuple(FAIL_IF), default=None,
                      help="exit with status 1 when B is surely worse than A, not surely "
                      "better, or surely different; with --margin: not shown non-inferior "
                      "(inferior), not shown equivalent, or not shown better by more than "
                      "the margin (the interval decides; an undefined verdict fails every "
                      "gate; 2 stays for errors)")
    gate.add_argument("--gate", metavar="FILE",
                      help="a release gate (TOML [gate] table: its metrics and rows): each "
                      "row's verdict, and exit 0 when it passes, 1 when it fails "
                      "(docs/gates.md); --stratum gives the tasks")
    gate.add_argument("--inconclusive", choices=("pass", "fail"), default=None,
                      help="with --gate: the exit status of an inconclusive gate (default: "
                      "the policy's, else fail)")
    add_lower_is_better(gate)
    gate.add_argument("--noise-floor", metavar="COL,COL",
                      help="one file with --a/--b: two columns of A's scores from two runs "
                      "of the same build (with --run, of its trials); the report states "
                      "how far re-running alone moves B - A at this size beside the verdict")
    add_tasks(p)
    add_output(p, formats_of(_COMPARE, _FAMILY, _CURVE, _GATE, _TASKS),
               plot="the bootstrap distribution of B - A, or a family's forest plot (all "
               "pairs of 7 systems or more: a matrix)",
               progress="neither the reading nor the resampling progress")
    return p


def _add_plan(sub) -> argparse.ArgumentParser:
    plan = sub.add_parser(
        "plan", help="plans of comparisons fixed in advance",
        description="pairboot plan hash FILE: the SHA-256 of a plan file's bytes, which "
        "reports of runs with --plan FILE carry.")
    plan.add_argument("action", choices=("hash",), help="hash: print the plan's SHA-256")
    plan.add_argument("plan_file", metavar="FILE", help="the plan (TOML)")
    return plan


def _add_battles(sub) -> argparse.ArgumentParser:
    battles = add_battles(sub, formats_of(_PREFERENCES))
    once(battles)
    return battles


def _add_agreement(sub) -> argparse.ArgumentParser:
    agreement = add_agreement(sub, formats_of(_AGREEMENT))
    once(agreement)
    return agreement


def _add_gold_labels(sub) -> argparse.ArgumentParser:
    labels = add_gold_labels(sub, formats_of(_LABELS))
    once(labels)
    return labels


def _add_mcp(sub) -> argparse.ArgumentParser:
    return sub.add_parser("mcp", help="serve compare, compare_many and power to coding "
                          "agents (Model Context Protocol, stdio; needs pairboot[mcp])",
                          description="An MCP server on standard input and output: "
                          "docs/integrations.md says how to register it with an agent.")


def _add_watch(sub) -> argparse.ArgumentParser:
    return add_watch(sub)


COMPARE_ONLY = {"unpaired": False, "plan": None, "stream": False, "fail_if": None,
                "test": None, "exact": None, "resampling": None}
"""The values ``pairboot power`` takes for compare's options that it has not (the
readers of the inputs consult them)."""

SIMULATIONS = 1000
"""--simulate without a number: this many simulated evaluations."""


def _add_power(sub) -> argparse.ArgumentParser:
    """``pairboot power``: compare's inputs (a pilot), or the parameters without data."""
    p = sub.add_parser(
        "power",
        help="plan an evaluation: the items (groups, seeds) needed to detect a difference, "
        "the power at a size, or the smallest difference a size detects",
        description="Plan a paired comparison before running it.  Give two of --delta,\n"
        "--power and the size (--n-items, or --n-groups with groups, --n-runs with seeds):\n"
        "the third is solved for.  The spread comes from a pilot (the inputs compare\n"
        "takes: files, columns, harness logs, groups, strata, runs, a family) or, without\n"
        "data, from what you know (--sd; --accuracy-a/--accuracy-b/--discordant for 0/1\n"
        "scores; --group-size/--icc; --run-sd/--residual-sd).",
        epilog="examples:\n"
        "  pairboot power --accuracy-a 0.72 --accuracy-b 0.74 --discordant 0.15 --power 0.8\n"
        "  pairboot power --sd 0.5 --delta 0.05 --n-items 400\n"
        "  pairboot power trials.csv --id task --run trial --a A --b B --runs samples \\\n"
        "                 --metric 'pass^4' --delta 0.05 --power 0.8\n"
        "  pairboot power pilot.csv --a base --b new --id id --delta 0.02 --power 0.8\n"
        "  pairboot power base.csv new.csv --id id --group doc --delta 0.02 --power 0.8 \\\n"
        "                 --simulate --plot power.png\n"
        "  pairboot power runs.csv --systems base,v1,v2 --baseline base --delta 0.02 \\\n"
        "                 --power 0.8 --correction bonferroni",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    once(p)
    p.set_defaults(**COMPARE_ONLY)
    add_inputs(p, required=False)
    goal = p.add_argument_group("the plan", "give two of the difference, the power and "
                                "the size; the third is solved for")
    goal.add_argument("--delta", type=finite_number, metavar="D",
                      help="the true difference B - A to detect, on the metric's scale "
                      "(0.02: two points of accuracy): the smallest that matters, not a "
                      "pilot's observed one")
    goal.add_argument("--power", type=finite_number, metavar="P",
                      help="the chance of detecting it (0.8 is usual)")
    goal.add_argument("--n-items", type=count_value, metavar="N",
                      help="the planned items, each scored by both systems")
    goal.add_argument("--n-groups", type=count_value, metavar="N",
                      help="with groups: the planned groups")
    goal.add_argument("--n-runs", type=count_value, metavar="N",
                      help="with seeds: the planned runs per system; with a k-trial "
                      "metric (--runs samples --metric 'pass^4'), the trials per task")
    add_level(goal)
    add_test(goal)
    add_lower_is_better(goal)
    goal.add_argument("--test", choices=("mcnemar",), default=None,
                      help="0/1 scores: plan for the exact McNemar test compare's --test "
                      "mcnemar runs (default: the interval, sized by Connor's asymptotic "
                      "test, with the exact test's answer beside it)")
    goal.add_argument("--correction", choices=("max-t", "bonferroni"), default=None,
                      help="a family: the size under max-t (default: the pilot's "
                      "correlations) or Bonferroni")
    known = p.add_argument_group(
        "without data", "what you know instead of a pilot (no files)")
    for name, metavar, what in (
            ("sd", "S", "the standard deviation of the per-item differences B - A"),
            ("sd-a", "S", "or system A's standard deviation, with --sd-b and "
                          "--correlation"),
            ("sd-b", "S", "system B's standard deviation"),
            ("correlation", "R", "the correlation of A's and B's per-item scores"),
            ("accuracy-a", "P", "0/1 scores: A's accuracy (Connor's formula)"),
            ("accuracy-b", "P", "B's accuracy (or --delta)"),
            ("discordant", "P", "the share of items where the systems disagree (or "
                                "--correlation)"),
            ("group-size", "M", "items in groups: the mean group size, with --icc"),
            ("icc", "R", "the intra-cluster correlation of the differences"),
            ("group-size-cv", "CV", "the group sizes' coefficient of variation"),
            ("rate-a", "P", "a k-trial metric (--metric 'pass^4' --runs samples): A's "
                            "mean success rate over tasks, with --rate-sd"),
            ("rate-sd", "S", "the standard deviation of A's tasks' success rates (a Beta)"),
            ("shift-sd", "S", "the spread over tasks of B's gain on the logit scale "
                              "(default 0: every task gains alike)")):
        known.add_argument(f"--{name}", type=finite_number, metavar=metavar, help=what)
    for name, what in (("run-sd", "seeds: the seed effect's standard deviation"),
                       ("residual-sd", "seeds: the noise's standard deviation")):
        known.add_argument(f"--{name}", type=one_or_two_numbers, metavar="S[,S]",
                           help=f"{what} (one for both systems, or A's,B's)")
    add_design(p)
    add_family(p)
    check = p.add_argument_group("simulation check")
    check.add_argument("--simulate", type=count_value, nargs="?", const=SIMULATIONS,
                       default=None, metavar="N",
                       help="check the planned size by simulation (a pilot of two "
                       f"systems): N simulated evaluations (default {SIMULATIONS}) of the "
                       "planned size drawn from the pilot with B - A set to --delta, each "
                       "through compare")
    add_seed(check, "default: a fresh one; always reported")
    add_output(p, formats_of(_POWER), plot="the power curve against the size and "
               "against the difference, the target and the planned size marked",
               progress="neither the reading nor the simulation's progress")
    return p


COMMANDS: dict[str, Callable[[Any], argparse.ArgumentParser]] = {
    "compare": _add_compare, "plan": _add_plan, "battles": _add_battles,
    "agreement": _add_agreement, "gold-labels": _add_gold_labels, "mcp": _add_mcp,
    "watch": _add_watch, "power": _add_power}
"""The subcommands, in the order ``pairboot --help`` lists them, and what adds each."""


def parse(parser: argparse.ArgumentParser, argv) -> argparse.Namespace:
    """The command line's arguments; an unknown option is reported by the subcommand's
    parser, whose --help lists the options (the top-level one would point to its own)."""
    args, extra = parser.parse_known_args(argv)
    if extra:
        getattr(args, "command_parser", parser).error(f"unrecognized arguments: {' '.join(extra)}")
    return args

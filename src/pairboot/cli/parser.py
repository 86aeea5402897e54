"""The command line's options: the argparse parser.

The library writes an argument in its messages as `` `n_resamples` `` or
`` `n_resamples=100` `` (:mod:`pairboot.errors`); how this command line writes each one
(:data:`~pairboot.cli.spelling.OPTIONS`, :func:`~pairboot.cli.spelling.cli_spelling`) is
:mod:`pairboot.cli.spelling`'s, re-exported here.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Callable
from typing import Any

from pairboot import CORRECTIONS, GROUP_WEIGHTINGS, METHODS, RESAMPLINGS
from pairboot._version import __version__
from pairboot.cli.battles_args import add_battles
from pairboot.cli.gold_options import add_gold, add_tasks
from pairboot.cli.judge_args import add_agreement, add_gold_labels
from pairboot.cli.spelling import CURVES, KNOWN, OPTIONS, PLANNED, cli_spelling  # noqa: F401
from pairboot.cli.status import EXIT_FAILED, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE  # noqa: F401
from pairboot.cli.watch_parser import add_watch
from pairboot.metrics import builtin_metrics
from pairboot.options import ALTERNATIVES, HYPOTHESES, TESTS
from pairboot.options import OPTIONS as SHARED
from pairboot.report import FAIL_IF, formats_of

_COMPARE, _FAMILY, _CURVE, _GATE, _TASKS, _POWER, _PREFERENCES, _AGREEMENT, _LABELS = (
    f"pairboot.results.{m}" for m in (
        "compare.CompareResult", "family.FamilyResult", "family.TrialsCurve",
        "metrics.GateResult", "tasks.TasksResult", "power.PowerResult",
        "preferences.PreferenceResult", "agreement.AgreementResult", "labels.LabelPlan"))
"""The result types whose formats ``--format`` offers, by name: listed without importing
the family's and the planner's result types (:func:`pairboot.report.formats_of`)."""


class _Parser(argparse.ArgumentParser):
    """argparse, with usage errors on one line (``error: ...``) and exit status 2, and
    its help as wide as the terminal, read without :mod:`shutil`: argparse makes a help
    formatter for every option it adds, and the one that formatter imports to ask the
    width (with bz2, lzma and zlib) is 2% of a small comparison's start-up."""

    def __init__(self, *args, formatter_class=argparse.HelpFormatter, **kwargs):
        super().__init__(*args, formatter_class=functools.partial(
            formatter_class, width=_columns() - 2), **kwargs)

    def error(self, message: str):
        self.exit(EXIT_USAGE, f"error: {message} (see '{self.prog} --help')\n")


def _columns() -> int:
    """The terminal's width as :func:`shutil.get_terminal_size` reads it (the environment's
    ``COLUMNS``, else standard output's terminal, else 80), which argparse would ask."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Once(argparse.Action):
    """Store an option's value, refusing a second one: with argparse's default the later
    value wins silently (``--b new --b v2`` would compare only v2)."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault("_given", {})
        if self.dest in given:
            first, then = given[self.dest]
            parser.error(
                f"{option_string} given twice ({first} {then!r}, then {option_string} "
                f"{values!r}); give it once"
            )
        given[self.dest] = (option_string, values)
        setattr(namespace, self.dest, values)


class _Scores(argparse.Action):
    """--score: the first value is the score column (``args.score``, as :class:`_Once`
    records it); every value given, in order, is in ``args.scores``: repeated, or
    written ``NAME[:lower][:MARGIN]``, they are several metrics of one comparison."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault("_given", {})
        given.setdefault(self.dest, (option_string, values))
        if getattr(namespace, self.dest, None) is None:
            setattr(namespace, self.dest, values)
        namespace.scores = [*(getattr(namespace, "scores", None) or []), values]


class _OnceFlag(argparse.BooleanOptionalAction):
    """``--exact``/``--no-exact``: one of the two, once.  argparse's own action lets the
    later one win silently, so ``--exact --no-exact`` would run without enumerating."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault("_given", {})
        if self.dest in given:
            first, _ = given[self.dest]
            parser.error(f"{option_string} given twice; give it once" if first == option_string
                         else f"{first} and {option_string} contradict each other; give one")
        given[self.dest] = (option_string, None)
        super().__call__(parser, namespace, values, option_string)


def given_options(args: argparse.Namespace) -> set[str]:
    """The destinations of the options with a value that the command line gave (as
    :class:`_Once` records them), as opposed to their defaults."""
    return set(getattr(args, "_given", {}))


def _seed(text: str) -> int | str:
    """--seed: a non-negative integer, or 'random' for a fresh one."""
    if text.strip().lower() == "random":
        return "random"
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a non-negative integer or 'random', got {text!r}"
        ) from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {value}")
    return value


def _margin(text: str) -> float:
    """--margin: the API's check of a number (its range is checked against the data)."""
    try:
        return SHARED["margin"].check(float(text))
    except ValueError:  # (an InputError is one too)
        raise argparse.ArgumentTypeError(f"must be a finite non-negative number, got "
                                         f"{text}") from None


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with ``command`` (one of :data:`COMMANDS`), that
    subcommand's options alone: building every subcommand's hundreds of options is
    start-up a small command would wait for, and the others' cannot be parsed once the
    command is named (``pairboot --help`` and an unknown command build them all)."""
    parser = _Parser(
        prog="pairboot",
        description="Paired bootstrap confidence intervals for comparing two systems "
        "on the same test items.",
    )
    parser.add_argument("--version", action="version", version=f"pairboot {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
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
    _once(p)
    add_inputs(p, required=True)
    add_gold(p)
    boot = p.add_argument_group("bootstrap")
    boot.add_argument("--resamples", type=int, default=10_000, metavar="R",
                      help="number of bootstrap resamples (default 10000)")
    _add_level(boot)
    boot.add_argument("--method", default="percentile",
                      metavar="{" + ",".join(METHODS) + "}",
                      help="interval method (default percentile)")
    _add_test(boot)
    boot.add_argument("--test", choices=TESTS, default=None,
                      help="a test reported beside the interval: mcnemar (the exact McNemar "
                      "test of 0/1 scores, with its mid-p and the 2 x 2 table) or "
                      "permutation (the paired permutation test: A and B swapped per item, "
                      "or per group, the metric recomputed)")
    boot.add_argument("--exact", action=_OnceFlag, default=None,
                      help="with --test permutation: enumerate every swap (refused beyond "
                      "20 units), or --no-exact for random ones (default: every swap when "
                      "there are 20 units or fewer)")
    _add_seed(boot, "default: derived from the data and options, so a rerun gives the "
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
    _add_lower_is_better(gate)
    gate.add_argument("--noise-floor", metavar="COL,COL",
                      help="one file with --a/--b: two columns of A's scores from two runs "
                      "of the same build (with --run, of its trials); the report states "
                      "how far re-running alone moves B - A at this size beside the verdict")
    add_tasks(p, _number)
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
    _once(battles)
    return battles


def _add_agreement(sub) -> argparse.ArgumentParser:
    agreement = add_agreement(sub, formats_of(_AGREEMENT))
    _once(agreement)
    return agreement


def _add_gold_labels(sub) -> argparse.ArgumentParser:
    labels = add_gold_labels(sub, formats_of(_LABELS))
    _once(labels)
    return labels


def _add_mcp(sub) -> argparse.ArgumentParser:
    return sub.add_parser("mcp", help="serve compare, compare_many and power to coding "
                          "agents (Model Context Protocol, stdio; needs pairboot[mcp])",
                          description="An MCP server on standard input and output: "
                          "docs/integrations.md says how to register it with an agent.")


def _add_watch(sub) -> argparse.ArgumentParser:
    return add_watch(sub, level=_add_level, tests=_add_test,
                     lower_is_better=_add_lower_is_better, metric=_add_metric)


def _once(p: argparse.ArgumentParser) -> None:
    """Every option with a value is given at most once (:class:`_Once`)."""
    for name in (None, "store"):
        p.register("action", name, _Once)


def add_inputs(p: argparse.ArgumentParser, *, required: bool) -> None:
    """The inputs, as ``compare`` reads them: the files (``required``: at least one),
    harness logs, and the columns (ids, labels, scores, the systems' columns, metric)."""
    p.add_argument("files", nargs="+" if required else "*", metavar="FILE",
                   help="BASE NEW [MORE...] (one file per system) or RUNS (one file, with "
                   "--a and --b, or --systems); harness logs as NAME=PATH with --runs: "
                   "the logs sharing a NAME are one system's runs")
    logs = p.add_argument_group(
        "harness logs", "lm-evaluation-harness, Inspect AI, COMET, sacrebleu, WMT and "
        "trec_eval outputs, and plain tables; --score names the metric, scorer or measure")
    logs.add_argument("--from", dest="from_format", metavar="FORMAT",
                      help="the inputs' format: lm-eval, inspect, comet, sacrebleu, wmt, trec, "
                      "tau-bench, every-eval-ever, helm, promptfoo, table (directories, "
                      ".eval logs and most LLM-eval files are recognised without it)")
    logs.add_argument("--log-option", action="append", default=[], metavar="KEY=VALUE",
                      help="an option of the --from reader (e.g. filter=strict-match for "
                      "lm-eval, missing=wrong for inspect); repeatable")
    logs.add_argument("--errors", choices=("exclude", "fail", "common"), default=None,
                      help="how items a system errored on or did not score count: left "
                      "out, failures, or only the items every system scored (default: as "
                      "the harness recorded them); the report counts them per system and "
                      "bounds B - A as if they were all failures or all successes")
    logs.add_argument("--tasks-as", choices=("strata", "family"), default=None,
                      help="several tasks (lm-eval) or --stratum: strata of one comparison "
                      "(default), or a family of one comparison per task with --correction "
                      "(default max-t)")
    logs.add_argument("--correct", metavar="COL=COL|COL=VALUE",
                      help="a 0/1 score from comparing a column with another column or a "
                      "value (pred=answer, grade=A); no expressions")
    logs.add_argument("--system-column", metavar="COL",
                      help="the long layout: one row per system and item, COL names the system")
    logs.add_argument("--null", choices=("refuse", "wrong"), default=None,
                      help="with --correct: a missing prediction is refused (default) or "
                      "counted as wrong")
    data = p.add_argument_group("columns")
    data.add_argument("--id", metavar="COL",
                      help="item id column: two files are joined on it (without it, rows "
                      "are paired by position: the row counts must match, and no column "
                      "both files share besides the scores may show other items in a row, "
                      "such as ids or questions in another order)")
    data.add_argument("--labels", metavar="FILE",
                      help="a file of labels joined on --id (a benchmark's question file): "
                      "--group and --stratum are read from it too; COL.KEY reads the field "
                      "KEY of a column of objects (--stratum metadata.topic)")
    data.add_argument("--common-items", action="store_true",
                      help="with --id: compare on the items every file scores instead of "
                      "refusing files whose ids differ; the report says how many items each "
                      "file lost (the unscored ones may be the hard ones)")
    data.add_argument("--score", metavar="COL", action=_Scores,
                      help="score column in each of the two files (default: score); for a "
                      "metric of one statistic, that statistic's column; repeated, "
                      "NAME[:lower][:MARGIN] each (cost:lower, latency_ms:lower:50), "
                      "several metrics of one comparison on the same draws (each the mean "
                      "of its column; two files, one file with --a/--b as the columns' "
                      "prefixes or suffixes, or a long file with --system-column)")
    data.add_argument("--a", metavar="COL", help="one-file layout: system A's column (or "
                      "name prefix/suffix with --stats)")
    data.add_argument("--b", metavar="COL", help="one-file layout: system B's column")
    _add_metric(data)


def _add_metric(group, what: str = "recomputed on every resample") -> None:
    """--metric and --stats: the metric and the columns of its per-item statistics."""
    group.add_argument("--metric", default="mean", metavar="NAME",
                       help=f"metric {what}: "
                       f"{', '.join(builtin_metrics())} (default mean), or your own "
                       "pairboot.Metric as FILE.py:NAME or MODULE:NAME (this runs that "
                       "file's code, as Python's import does)")
    group.add_argument("--stats", metavar="COLS",
                       help="the columns of the metric's per-item statistics, matched by "
                       "name in any order (tp,fp,fn or fn,tp,fp), or mapped explicitly "
                       "(tp=TP,fp=FP,fn=FN); one file: found as {a}_{stat}, {stat}_{a}, ...")


def _add_level(group) -> None:
    group.add_argument("--level", type=float, default=0.95, metavar="L",
                       help="confidence level, between 0 and 1 (default 0.95)")


def _add_test(group) -> None:
    """What is tested, beside --level: --alternative, --margin, --hypothesis."""
    group.add_argument("--alternative", choices=ALTERNATIVES, default="two-sided",
                       help="two-sided (default), or one-sided as scipy's: greater tests B "
                       "- A > 0 with the interval [low, inf), less B - A < 0 with "
                       "(-inf, high]")
    group.add_argument("--margin", type=_margin, default=None, metavar="D",
                       help="the difference that matters, on the metric's scale (0.005: half "
                       "a point of accuracy): with --hypothesis, or a margin's --fail-if")
    group.add_argument("--hypothesis", choices=HYPOTHESES, default=None,
                       help="difference (default: B - A against 0), non-inferiority (B not "
                       "worse by the margin or more), superiority (B better by more than "
                       "it) or equivalence (within +-margin, two one-sided tests)")


def _add_seed(group, default: str) -> None:
    """--seed, whose default the command says."""
    group.add_argument("--seed", type=_seed, default=None, metavar="S",
                       help=f"random seed, >= 0, or 'random' for a fresh one ({default})")


def _add_lower_is_better(group) -> None:
    group.add_argument("--lower-is-better", action="store_true",
                       help="the metric is an error rate or a loss: B is better when "
                       "B - A < 0")


def add_design(p: argparse.ArgumentParser, *, curve: bool = False) -> None:
    """Several runs per system, clusters and strata: the design of the items (with
    ``curve``, compare's ``--curve`` and ``--ks`` too)."""
    several = p.add_argument_group(
        "several runs per system", "training seeds or sampled generations: one row per "
        "item and run (--run), or a harness log per run (NAME=PATH); the interval covers "
        "the run-to-run variation too")
    several.add_argument("--run", metavar="COL", help="the column naming each row's run")
    several.add_argument("--runs", choices=("seeds", "samples"), default=None,
                         help="seeds: separate runs that scored every item; samples: "
                         "sampled generations per item (items' means compared)")
    several.add_argument("--paired-runs", action="store_true",
                         help="with --runs seeds: run r of A and of B share their seed "
                         "(runs matched by label; NAME=PATH logs by their order)")
    several.add_argument("--estimand", choices=("population", "suite"), default=None,
                         help="with --runs samples: population (default: the items are a "
                         "sample of tasks) or suite (the test set is the whole population, "
                         "a fixed regression suite: only the trials vary)")
    if curve:
        several.add_argument("--curve", choices=CURVES, default=None,
                             help="with --runs samples: pass^k or pass@k at every k (1 to "
                             "the fewest trials of any item, or --ks), pointwise and "
                             "simultaneous intervals, from one bootstrap (instead of --metric)")
        several.add_argument("--ks", metavar="K,K,...",
                             help="with --curve: the ks, comma-separated (default 1 ... n)")
    design = p.add_argument_group("clusters and strata")
    design.add_argument("--group", metavar="COL",
                        help="group column: resample whole groups (the cluster bootstrap)")
    design.add_argument("--group-weighting", choices=GROUP_WEIGHTINGS, default=None,
                        help="with --group: the mean over items (default) or over groups")
    design.add_argument("--stratum", metavar="COL",
                        help="stratum column: resample within each stratum")
    design.add_argument("--stratum-weights", metavar="W",
                        help="population weights: 'name=w,name=w' or a file with two "
                        "columns, stratum and weight (default: the sample shares)")


def add_family(p: argparse.ArgumentParser):
    """Many systems: --systems, --names, --baseline; the group, for more."""
    many = p.add_argument_group(
        "many systems", "more than two files, or one file with --systems: a family of "
        "comparisons on shared draws, with the error rate controlled")
    many.add_argument("--systems", metavar="COLS",
                      help="one-file layout: the systems' columns (or name prefixes with "
                      "--stats), comma-separated")
    many.add_argument("--names", metavar="NAMES",
                      help="the systems' names, comma-separated, in the files' order "
                      "(default: the file names without their extension)")
    many.add_argument("--baseline", metavar="NAME",
                      help="compare every other system with this one (default: all pairs)")
    return many


def add_output(p: argparse.ArgumentParser, formats, *, plot: str, progress: str) -> None:
    """--format (one of ``formats``: the registry's for the results the command writes,
    :func:`pairboot.report.formats_of`), --output, --plot (``plot``: what it draws),
    --no-progress (``progress``: the lines it silences)."""
    out = p.add_argument_group("output")
    out.add_argument("--format", choices=formats, default="text",
                     help="report format (default text)")
    out.add_argument("--top", type=int, default=5, metavar="N",
                     help="the items behind the number: list the N items with the largest "
                     "differences each way (and groups, with --group; default 5); two "
                     "systems, metric mean")
    out.add_argument("--output", "-o", metavar="FILE",
                     help="write the report to FILE (atomically) instead of standard output")
    out.add_argument("--plot", metavar="FILE",
                     help="also draw the result to FILE (.png, .svg or .pdf; needs "
                     f"matplotlib): {plot}")
    out.add_argument("--no-progress", action="store_true",
                     help=f"no status lines: {progress} (they only show on a terminal, for "
                     "long runs)")


def _number(text: str) -> float:
    """A finite number (its range is the API's to check, naming the option)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text}")
    return value


def _numbers(text: str) -> float | tuple[float, float]:
    """One number for both systems, or two (A's, B's) separated by a comma."""
    parts = text.split(",")
    if len(parts) > 2:
        raise argparse.ArgumentTypeError(f"one number, or two separated by a comma (A's, "
                                         f"B's), got {text!r}")
    values = tuple(_number(part) for part in parts)
    return values[0] if len(values) == 1 else values


def _count(text: str) -> int:
    """A positive integer (the API checks it again, naming the option)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}") from None


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
    _once(p)
    p.set_defaults(**COMPARE_ONLY)
    add_inputs(p, required=False)
    goal = p.add_argument_group("the plan", "give two of the difference, the power and "
                                "the size; the third is solved for")
    goal.add_argument("--delta", type=_number, metavar="D",
                      help="the true difference B - A to detect, on the metric's scale "
                      "(0.02: two points of accuracy): the smallest that matters, not a "
                      "pilot's observed one")
    goal.add_argument("--power", type=_number, metavar="P",
                      help="the chance of detecting it (0.8 is usual)")
    goal.add_argument("--n-items", type=_count, metavar="N",
                      help="the planned items, each scored by both systems")
    goal.add_argument("--n-groups", type=_count, metavar="N",
                      help="with groups: the planned groups")
    goal.add_argument("--n-runs", type=_count, metavar="N",
                      help="with seeds: the planned runs per system; with a k-trial "
                      "metric (--runs samples --metric 'pass^4'), the trials per task")
    _add_level(goal)
    _add_test(goal)
    _add_lower_is_better(goal)
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
        known.add_argument(f"--{name}", type=_number, metavar=metavar, help=what)
    for name, what in (("run-sd", "seeds: the seed effect's standard deviation"),
                       ("residual-sd", "seeds: the noise's standard deviation")):
        known.add_argument(f"--{name}", type=_numbers, metavar="S[,S]",
                           help=f"{what} (one for both systems, or A's,B's)")
    add_design(p)
    add_family(p)
    check = p.add_argument_group("simulation check")
    check.add_argument("--simulate", type=_count, nargs="?", const=SIMULATIONS,
                       default=None, metavar="N",
                       help="check the planned size by simulation (a pilot of two "
                       f"systems): N simulated evaluations (default {SIMULATIONS}) of the "
                       "planned size drawn from the pilot with B - A set to --delta, each "
                       "through compare")
    _add_seed(check, "default: a fresh one; always reported")
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

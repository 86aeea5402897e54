"""The pieces every command's options are built from: the parser class (usage errors on
one line), the actions that take an option once, the types of its values, and the groups
of options ``compare`` shares with ``power`` and ``watch`` (the inputs, the design, the
family, the test, the output).  :mod:`pairboot.cli.parser` puts the commands together."""

from __future__ import annotations

import argparse
import functools
import os
import sys

from pairboot import GROUP_WEIGHTINGS
from pairboot.cli.status import EXIT_USAGE
from pairboot.metrics import builtin_metrics
from pairboot.options import ALTERNATIVES, HYPOTHESES
from pairboot.options import OPTIONS as SHARED

CURVES = ("pass^k", "pass@k")
"""--curve's choices: :func:`pairboot.trials_curve`'s kinds."""


class Parser(argparse.ArgumentParser):
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

class Once(argparse.Action):
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

class Scores(argparse.Action):
    """--score: the first value is the score column (``args.score``, as :class:`Once`
    records it); every value given, in order, is in ``args.scores``: repeated, or
    written ``NAME[:lower][:MARGIN]``, they are several metrics of one comparison."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = namespace.__dict__.setdefault("_given", {})
        given.setdefault(self.dest, (option_string, values))
        if getattr(namespace, self.dest, None) is None:
            setattr(namespace, self.dest, values)
        namespace.scores = [*(getattr(namespace, "scores", None) or []), values]

class OnceFlag(argparse.BooleanOptionalAction):
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
    :class:`Once` records them), as opposed to their defaults."""
    return set(getattr(args, "_given", {}))

def seed_value(text: str) -> int | str:
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

def margin_value(text: str) -> float:
    """--margin: the API's check of a number (its range is checked against the data)."""
    try:
        return SHARED["margin"].check(float(text))
    except ValueError:  # (an InputError is one too)
        raise argparse.ArgumentTypeError(f"must be a finite non-negative number, got "
                                         f"{text}") from None

def once(p: argparse.ArgumentParser) -> None:
    """Every option with a value is given at most once (:class:`Once`)."""
    for name in (None, "store"):
        p.register("action", name, Once)

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
    data.add_argument("--score", metavar="COL", action=Scores,
                      help="score column in each of the two files (default: score); for a "
                      "metric of one statistic, that statistic's column; repeated, "
                      "NAME[:lower][:MARGIN] each (cost:lower, latency_ms:lower:50), "
                      "several metrics of one comparison on the same draws (each the mean "
                      "of its column; two files, one file with --a/--b as the columns' "
                      "prefixes or suffixes, or a long file with --system-column)")
    data.add_argument("--a", metavar="COL", help="one-file layout: system A's column (or "
                      "name prefix/suffix with --stats)")
    data.add_argument("--b", metavar="COL", help="one-file layout: system B's column")
    add_metric(data)

def add_metric(group, what: str = "recomputed on every resample") -> None:
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

def add_level(group) -> None:
    group.add_argument("--level", type=float, default=0.95, metavar="L",
                       help="confidence level, between 0 and 1 (default 0.95)")

def add_test(group) -> None:
    """What is tested, beside --level: --alternative, --margin, --hypothesis."""
    group.add_argument("--alternative", choices=ALTERNATIVES, default="two-sided",
                       help="two-sided (default), or one-sided as scipy's: greater tests B "
                       "- A > 0 with the interval [low, inf), less B - A < 0 with "
                       "(-inf, high]")
    group.add_argument("--margin", type=margin_value, default=None, metavar="D",
                       help="the difference that matters, on the metric's scale (0.005: half "
                       "a point of accuracy): with --hypothesis, or a margin's --fail-if")
    group.add_argument("--hypothesis", choices=HYPOTHESES, default=None,
                       help="difference (default: B - A against 0), non-inferiority (B not "
                       "worse by the margin or more), superiority (B better by more than "
                       "it) or equivalence (within +-margin, two one-sided tests)")

def add_seed(group, default: str) -> None:
    """--seed, whose default the command says."""
    group.add_argument("--seed", type=seed_value, default=None, metavar="S",
                       help=f"random seed, >= 0, or 'random' for a fresh one ({default})")

def add_lower_is_better(group) -> None:
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

def finite_number(text: str) -> float:
    """A finite number (its range is the API's to check, naming the option)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text}")
    return value

def one_or_two_numbers(text: str) -> float | tuple[float, float]:
    """One number for both systems, or two (A's, B's) separated by a comma."""
    parts = text.split(",")
    if len(parts) > 2:
        raise argparse.ArgumentTypeError(f"one number, or two separated by a comma (A's, "
                                         f"B's), got {text!r}")
    values = tuple(finite_number(part) for part in parts)
    return values[0] if len(values) == 1 else values

def count_value(text: str) -> int:
    """A positive integer (the API checks it again, naming the option)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}") from None

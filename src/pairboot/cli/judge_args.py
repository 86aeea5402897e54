"""The options of ``pairboot agreement`` and ``pairboot gold-labels`` (:mod:`pairboot.cli.judges`
runs them), apart from :mod:`pairboot.cli.parser`, which adds the subcommands and their
spellings from here: nothing here imports the statistics or the planner."""

from __future__ import annotations

import argparse

from pairboot.errors import Spelling

__all__ = ["SPELLINGS", "add_agreement", "add_gold_labels"]

METHODS = ("percentile", "basic", "normal")
"""--method's choices for an agreement (:data:`pairboot.core.agreement.AGREEMENT_METHODS`,
not imported: the parser loads no statistics)."""


def _option(flag: str) -> Spelling:
    return lambda value: flag if value is None else f"{flag} {value}"


SPELLINGS: dict[str, Spelling] = {
    "statistics": _option("--statistics"), "categories": _option("--categories"),
    "rater_a": _option("--a"), "rater_b": _option("--b"),
    "half_width": _option("--half-width")}
"""How the command line writes :func:`pairboot.agreement`'s and
:func:`pairboot.gold_labels`' own arguments (the others are compare's and power's)."""


def _fraction(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None


def _output(p: argparse.ArgumentParser, formats, progress: str | None) -> None:
    out = p.add_argument_group("output")
    out.add_argument("--format", choices=formats, default="text",
                     help="report format (default text)")
    out.add_argument("--output", "-o", metavar="FILE",
                     help="write the report to FILE (atomically) instead of standard output")
    if progress is not None:
        out.add_argument("--no-progress", action="store_true", help=progress)
    p.set_defaults(plot=None)  # (what the report's delivery reads: nothing is drawn)


def add_agreement(sub, formats) -> argparse.ArgumentParser:
    """``pairboot agreement``: its parser, with ``formats`` the --format choices."""
    p = sub.add_parser(
        "agreement",
        help="how far two raters agree (a judge and people, or two judges): kappa, AC1, "
        "alpha, accuracy, with bootstrap intervals",
        description="Agreement of two raters on the same items: Cohen's kappa (weighted\n"
        "for ordinal scales), Gwet's AC1, Krippendorff's alpha, and for 0/1 verdicts the\n"
        "first rater's accuracy, sensitivity and specificity against the second, each\n"
        "with a bootstrap interval on the same resamples (whole groups with --group).\n"
        "One file, a column per rater (numbers or text categories).",
        epilog="examples:\n"
        "  pairboot agreement judged.csv --a judge --b human\n"
        "  pairboot agreement scores.jsonl --a gpt4 --b rater1 --categories 1,2,3,4,5 \\\n"
        "                     --statistics kappa-quadratic,ac1,alpha-ordinal --group doc\n"
        "  pairboot agreement verdicts.csv --a judge --b human --skip-unrated \\\n"
        "                     --statistics accuracy,sensitivity,specificity",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("files", nargs=1, metavar="FILE",
                   help="one table (CSV, TSV, JSON Lines, JSON, Parquet), a row per item")
    data = p.add_argument_group("the raters")
    data.add_argument("--a", metavar="COL", required=True,
                      help="the first rater's column (the judge: its accuracy is measured "
                      "against the second)")
    data.add_argument("--b", metavar="COL", required=True,
                      help="the second rater's column (people, or another judge)")
    data.add_argument("--names", metavar="A,B",
                      help="the raters' names in the report (default: the columns')")
    data.add_argument("--statistics", metavar="LIST",
                      help="comma-separated, among kappa, kappa-linear, kappa-quadratic, "
                      "ac1, alpha-nominal, alpha-ordinal, alpha-interval, accuracy, "
                      "sensitivity, specificity (default kappa,ac1,alpha-nominal)")
    data.add_argument("--categories", metavar="LIST",
                      help="the scale's categories in order, comma-separated (default: the "
                      "ratings seen, sorted); unused points change AC1 and the weights")
    data.add_argument("--group", metavar="COL",
                      help="group column: resample whole groups (documents, cases)")
    data.add_argument("--skip-unrated", action="store_true",
                      help="leave out the rows where either rater's cell is empty (a judge "
                      "against gold labels on a subset); the report says how many (default: "
                      "an empty cell is an error)")
    boot = p.add_argument_group("bootstrap")
    boot.add_argument("--resamples", type=int, default=10_000, metavar="R",
                      help="number of bootstrap resamples (default 10000)")
    boot.add_argument("--level", type=float, default=0.95, metavar="L",
                      help="confidence level, between 0 and 1 (default 0.95)")
    boot.add_argument("--method", choices=METHODS, default="percentile",
                      help="interval method (default percentile)")
    boot.add_argument("--seed", default=None, metavar="S",
                      help="random seed, >= 0, or 'random' (default: from the data)")
    _output(p, formats, "no status line while resampling")
    return p


def add_gold_labels(sub, formats) -> argparse.ArgumentParser:
    """``pairboot gold-labels``: its parser, with ``formats`` the --format choices."""
    p = sub.add_parser(
        "gold-labels",
        help="plan the gold (human) labels a prediction-powered comparison needs, with a "
        "judge scoring every item, against labelling without it",
        description="How many items to label by hand when a judge scores every item, for\n"
        "an interval of B - A on the gold metric within +-HALF_WIDTH (or to detect\n"
        "--delta with --power), and how many the gold labels alone would need.  The\n"
        "spread comes from what you know (--sd, --correlation) or from a pilot: the\n"
        "labelled items of a file with compare's gold layouts (one file with --a, --b,\n"
        "--gold-a, --gold-b; or a file per system with --score and --gold-score).",
        epilog="examples:\n"
        "  pairboot gold-labels --sd 1.0 --correlation 0.7 --n-items 5000 --half-width 0.1\n"
        "  pairboot gold-labels --sd 1.0 --correlation 0.7 --n-items 5000 --delta 0.15\n"
        "  pairboot gold-labels pilot.csv --a ja --b jb --gold-a ga --gold-b gb \\\n"
        "                       --n-items 5000 --half-width 0.1\n"
        "  pairboot gold-labels base.jsonl new.jsonl --score judge --gold-score human \\\n"
        "                       --id id --half-width 0.05",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("files", nargs="*", metavar="FILE",
                   help="a pilot: one file (with --a, --b, --gold-a, --gold-b) or a file "
                   "per system (with --score, --gold-score); none with --sd and "
                   "--correlation")
    pilot = p.add_argument_group("a pilot", "its labelled items give the sd of the gold "
                                 "per-item differences B - A and the judge's correlation "
                                 "with them")
    for flag, what in (("--a", "one file: the judge's column of A"),
                       ("--b", "one file: the judge's column of B"),
                       ("--gold-a", "one file: A's gold column (empty where unlabelled)"),
                       ("--gold-b", "one file: B's gold column"),
                       ("--score", "a file per system: the judge's column"),
                       ("--gold-score", "a file per system: the gold column"),
                       ("--id", "a file per system: the item id column the files are "
                        "joined on (default: rows paired by position)")):
        pilot.add_argument(flag, metavar="COL", help=what)
    known = p.add_argument_group("without a pilot")
    known.add_argument("--sd", type=_fraction, metavar="S",
                       help="the standard deviation of the gold per-item differences B - A")
    known.add_argument("--correlation", type=_fraction, metavar="R",
                       help="the correlation of the judge's per-item differences with the "
                       "gold ones")
    goal = p.add_argument_group("the plan", "give --half-width, or --delta (and --power)")
    goal.add_argument("--n-items", type=int, metavar="N",
                      help="the items of the evaluation, every one scored by the judge "
                      "(default: the pilot's)")
    goal.add_argument("--half-width", type=_fraction, metavar="H",
                      help="the interval's half-width wanted, on the gold metric's scale")
    goal.add_argument("--delta", type=_fraction, metavar="D",
                      help="instead: the difference B - A to detect")
    goal.add_argument("--power", type=_fraction, default=0.8, metavar="P",
                      help="with --delta: the chance of detecting it (default 0.8)")
    goal.add_argument("--level", type=float, default=0.95, metavar="L",
                      help="confidence level, between 0 and 1 (default 0.95)")
    goal.add_argument("--alternative", choices=("two-sided", "greater", "less"),
                      default="two-sided", help="two-sided (default), or one-sided")
    _output(p, formats, None)
    p.set_defaults(no_progress=True, group=None, stratum=None, labels=None,
                   common_items=False, names=None, baseline=None)  # (compare's readers')
    return p

"""``pairboot watch``'s options (its parser; :mod:`~pairboot.cli.watch` runs it)."""

from __future__ import annotations

import argparse

from pairboot.cli.arguments import add_level, add_lower_is_better, add_metric, add_test
from pairboot.report import formats_of

__all__ = ["ORDER_NOTE", "WATCH_OPTIONS", "add_watch"]

WATCH_OPTIONS = ("bounds", "budget", "n_target", "sequence", "min_units", "follow",
                 "timeout", "poll", "every")
"""``watch``'s own options (their names: none names a file)."""

SEQUENTIAL_GATES = ("worse", "not-better", "different", "inferior", "not-equivalent",
                    "not-better-by-margin")
"""--fail-if's choices: :data:`pairboot.report.sequential.SEQUENTIAL_FAIL_IF`'s keys,
named here so that building the parser loads no report (a test holds them equal)."""

ORDER_NOTE = ("The items must arrive in an order independent of their outcomes (a random "
              "order of the test set, not the easy items first): the guarantee is for "
              "that order.")


def _bounds(text: str) -> tuple[float, float]:
    try:
        low, high = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be LOW,HIGH, got {text!r}") from None
    return low, high


def add_watch(sub) -> argparse.ArgumentParser:
    """``pairboot watch``'s parser (the options it shares with compare written as
    compare writes them: :mod:`pairboot.cli.arguments`)."""
    p = sub.add_parser(
        "watch", help="a confidence sequence over records as they arrive: stop an "
        "evaluation as soon as B - A is decided, looking as often as you like",
        description="Read paired JSON Lines records with ids (from FILEs, or standard\n"
        "input), pair A's and B's scores by id, and update a confidence sequence for\n"
        "B - A with every pair: valid however often it is read.  Exit when it decides\n"
        "(0, or 1 when the verdict fails --fail-if; 2 for bad input), or when the input\n"
        "ends or --timeout passes without a record (undecided).\n\n" + ORDER_NOTE,
        epilog="examples:\n"
        "  harness | pairboot watch --id id --a base --b new --bounds 0,1 --fail-if worse\n"
        "  pairboot watch base.jsonl new.jsonl --id id --score correct --bounds 0,1 \\\n"
        "                 --follow --timeout 600 --budget 2000\n"
        "  pairboot watch log.jsonl --id id --system-column model --a gpt --b agent \\\n"
        "                 --score score --margin 0.02 --hypothesis non-inferiority\n"
        "  pairboot watch ner.jsonl --id id --a base --b new --metric f1  # base_tp, ...",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="*", metavar="FILE",
                   help="JSON Lines: one file (both systems' records), or two (A's, then "
                   "B's); none or '-': standard input")
    data = p.add_argument_group("records")
    data.add_argument("--id", default="id", metavar="KEY", help="the item id (default id)")
    data.add_argument("--a", metavar="KEY", help="A's score key (with --system-column: "
                      "the value naming A)")
    data.add_argument("--b", metavar="KEY", help="B's score key (or the value naming B)")
    data.add_argument("--score", metavar="KEY", help="the score key of a record of one "
                      "system (two files, or --system-column; default score)")
    data.add_argument("--system-column", metavar="KEY",
                      help="the key naming a record's system (its values --a and --b)")
    data.add_argument("--group", metavar="KEY",
                      help="groups arriving whole, one after another: each group's mean "
                      "difference (a pooled metric's: its summed statistics) is one "
                      "unit, counted once")
    add_metric(data, "of each system's summed statistics, by the delta method (a pooled "
               "metric: its statistics' keys per system, as compare reads their columns)")
    seq = p.add_argument_group("the sequence")
    seq.add_argument("--bounds", type=_bounds, metavar="LOW,HIGH",
                     help="the scores' bounds (0,1 for 0/1 or [0, 1] scores): a betting "
                     "sequence, valid at every size; a score outside is bad input. "
                     "Without: the asymptotic sequence (valid as the size grows)")
    seq.add_argument("--sequence", choices=("betting", "asymptotic"), default=None,
                     help="the kind of sequence (default: betting with --bounds)")
    add_level(seq)
    add_test(seq)
    seq.add_argument("--budget", type=int, metavar="N",
                     help="stop undecided after N units")
    seq.add_argument("--n-target", type=int, metavar="N",
                     help="the size the sequence is tightest near (default the budget, "
                     "else 500)")
    seq.add_argument("--min-units", type=int, metavar="N",
                     help="units before the rule may stop (default 0 betting, 30 "
                     "asymptotic)")
    gate = p.add_argument_group("verdict")
    gate.add_argument("--fail-if", choices=SEQUENTIAL_GATES, default=None,
                      help="exit with status 1 when the verdict fails this gate, as "
                      "compare's --fail-if (an undecided end fails every gate that asks "
                      "for something shown)")
    add_lower_is_better(gate)
    wait = p.add_argument_group("waiting")
    wait.add_argument("--follow", action="store_true",
                      help="files: wait for appended records (tail -f) instead of ending "
                      "at their end")
    wait.add_argument("--timeout", type=float, default=600.0, metavar="SECONDS",
                      help="end undecided after this long without a new record "
                      "(default 600)")
    wait.add_argument("--poll", type=float, default=0.5, metavar="SECONDS",
                      help="how often to look for new records (default 0.5)")
    wait.add_argument("--every", type=int, default=100, metavar="N",
                      help="not on a terminal: a status line every N units (default 100)")
    out = p.add_argument_group("output")
    out.add_argument("--format", choices=formats_of("pairboot.results.sequential.SequentialResult"),
                     default="text", help="the report's format at the end (default text)")
    out.add_argument("--output", "-o", metavar="FILE",
                     help="write the report to FILE (atomically) instead of standard output")
    out.add_argument("--no-progress", action="store_true",
                     help="no verdict line on standard error while watching")
    return p

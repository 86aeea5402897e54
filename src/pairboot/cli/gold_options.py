"""The options of ``pairboot compare`` for a judge and gold labels (--gold-a, --gold-b,
--gold-score, --lam, --no-clip: :mod:`pairboot.cli.ppi` reads them) and for an aggregate over many
tasks (--aggregate, --vary, --gamma: :func:`pairboot.compare_tasks`), kept out of the
parser's module for its length."""

from __future__ import annotations

import argparse

from pairboot.cli.arguments import finite_number
from pairboot.options import TASK_AGGREGATES, TASK_RESAMPLES

__all__ = ["add_gold", "add_tasks"]


def add_gold(p: argparse.ArgumentParser) -> None:
    """The group "judge and gold labels" of ``compare``'s options."""
    gold = p.add_argument_group(
        "judge and gold labels", "one file: --a and --b are the judge's score columns of "
        "systems A and B on every item; --gold-a and --gold-b the gold (human) scores, "
        "empty where the item is unlabelled. Or a file per system: --score is the judge's "
        "column, --gold-score the gold one. With --metric (and --stats) each names the "
        "statistics' columns as --a/--b do (human_tp, tp_human, ...); with --runs samples "
        "--run COL --id COL a row per item and judge call, the gold score the item's. The "
        "interval of B - A on the gold metric, prediction-powered (--method percentile, "
        "basic, normal, or clt)")
    gold.add_argument("--gold-a", metavar="COL", help="one file: system A's gold score "
                      "column")
    gold.add_argument("--gold-b", metavar="COL", help="one file: system B's gold score "
                      "column")
    gold.add_argument("--gold-score", metavar="COL",
                      help="a file per system: the gold score column of each (empty or "
                      "null where unlabelled; an item labelled in both files or neither)")
    gold.add_argument("--lam", type=float, metavar="L",
                      help="a fixed power-tuning weight (0: the gold labels alone, 1: "
                      "classic PPI; default tuned from the data)")
    gold.add_argument("--no-clip", action="store_true",
                      help="tune the weight on the real line, not within [0, 1] (a judge "
                      "on another scale than the gold's)")


def add_tasks(p: argparse.ArgumentParser) -> None:
    """The group "many tasks" of ``compare``'s options."""
    tasks = p.add_argument_group("many tasks", "an aggregate over the tasks (--stratum, "
                                 "or logs of several tasks), ranked (docs/rankings.md)")
    tasks.add_argument("--aggregate", choices=TASK_AGGREGATES, help="the aggregate over "
                       "tasks the systems are compared and ranked on (win-rate: HELM's)")
    tasks.add_argument("--vary", choices=TASK_RESAMPLES, help="with --aggregate, what "
                       "varies: items (default; the tasks fixed), tasks, or both")
    tasks.add_argument("--gamma", type=finite_number, metavar="G",
                       help="--aggregate optimality-gap's target score (default 1)")

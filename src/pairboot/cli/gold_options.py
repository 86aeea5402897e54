"""The options of ``pairboot compare`` for a judge and gold labels (--gold-a, --gold-b,
--lam, --no-clip: :mod:`pairboot.cli.ppi` reads them), kept out of the parser's module
for its length."""

from __future__ import annotations

import argparse

__all__ = ["add_gold"]


def add_gold(p: argparse.ArgumentParser) -> None:
    """The group "judge and gold labels" of ``compare``'s options."""
    gold = p.add_argument_group(
        "judge and gold labels", "one file: --a and --b are the judge's score columns of "
        "systems A and B on every item; --gold-a and --gold-b the gold (human) scores, "
        "empty where the item is unlabelled: the interval of B - A on the gold metric, "
        "prediction-powered (--method percentile, basic, normal, or clt)")
    gold.add_argument("--gold-a", metavar="COL", help="system A's gold score column")
    gold.add_argument("--gold-b", metavar="COL", help="system B's gold score column")
    gold.add_argument("--lam", type=float, metavar="L",
                      help="a fixed power-tuning weight (0: the gold labels alone, 1: "
                      "classic PPI; default tuned from the data)")
    gold.add_argument("--no-clip", action="store_true",
                      help="tune the weight on the real line, not within [0, 1] (a judge "
                      "on another scale than the gold's)")

"""Ten WMT20 English-German systems compared all at once, with documents as groups.

Reads the MQM scores per segment (google/wmt-mqm-human-evaluation) and the segments'
documents (WMT20 metrics task) from the project's shared data, not shipped here:

    python examples/wmt20_family.py [FOLDER]     # default ../shared/data/real/wmt20_ende

MQM is an error score (0 is perfect, higher is better). Every system is compared with
every other on the same resampled documents; max-t controls the family-wise error rate,
and the rank intervals say which systems could be the best.
"""

from __future__ import annotations

import csv
import sys
from collections import defaultdict
from pathlib import Path

import pairboot
from pairboot.report import render_family

HERE = Path(__file__).resolve().parent
SHARED = HERE.parent.parent / "shared/data/real/wmt20_ende"
FOLDER = Path(sys.argv[1]) if len(sys.argv) > 1 else SHARED


def main() -> None:
    scores: dict[str, dict[int, float]] = defaultdict(dict)
    with open(FOLDER / "mqm_newstest2020_ende.avg_seg_scores.tsv") as f:
        next(f)
        for line in f:
            system, score, seg = line.split()
            scores[system.rsplit(".", 1)[0]][int(seg)] = float(score)
    with open(FOLDER / "wmt20_details_en-de.txt", newline="") as f:
        doc = {int(row[0]): row[3] for row in csv.reader(f, delimiter="\t")}
    segments = sorted(doc)
    systems = {name: [by_seg[s] for s in segments] for name, by_seg in sorted(scores.items())}
    result = pairboot.compare_many(systems, groups=[doc[s] for s in segments], seed=2020)
    print(render_family(result, "text"), end="")


if __name__ == "__main__":
    main()

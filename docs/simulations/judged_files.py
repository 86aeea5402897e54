"""Files for the command-line examples of docs/judges.md, from OpinSummEval.

OpinSummEval's scores.jsonl holds, per case, every system's scores as a nested object;
the command line reads flat tables.  This writes, into FOLDER:

- ``gpt3.jsonl``, ``pegasus.jsonl``: a file per system, a row per case: ``case``, the
  judge's readability (ChatGPT, CoT prompt, 1-5) as ``judge``, and the people's (the
  mean of the two raters, 1-5) as ``human`` on a uniform random 30% of the cases (seed
  1), ``null`` elsewhere;
- ``readability.csv``: the same in one file, ``judge_pegasus, judge_gpt3,
  human_pegasus, human_gpt3`` (empty where unlabelled);
- ``ratings.csv``: the 1,400 summaries (14 systems x 100 cases), ``case, system,
  judge, rater1, rater2`` on readability, for the agreement.

Run: python docs/simulations/judged_files.py FOLDER [DATA_DIR] (default
../shared/data/real from the repository's root).
"""
import json
import os
import sys

import numpy as np

JUDGE, GOLD = "chatgpt_CoT_Readability", "readblty"


def human(system: dict) -> float:
    return (system["annot1"][GOLD] + system["annot2"][GOLD]) / 2


def main(folder: str, data: str) -> None:
    with open(f"{data}/opinsummeval/scores.jsonl") as f:
        rows = [json.loads(line) for line in f]
    labelled = np.random.default_rng(1).random(len(rows)) < 0.3
    os.makedirs(folder, exist_ok=True)
    for name in ("gpt3", "pegasus"):
        with open(f"{folder}/{name}.jsonl", "w") as f:
            for k, r in enumerate(rows):
                f.write(json.dumps({"case": k + 1, "judge": r[name][JUDGE],
                                    "human": human(r[name]) if labelled[k] else None})
                        + "\n")
    with open(f"{folder}/readability.csv", "w") as f:
        f.write("case,judge_pegasus,judge_gpt3,human_pegasus,human_gpt3\n")
        for k, r in enumerate(rows):
            gold = (f"{human(r['pegasus'])},{human(r['gpt3'])}" if labelled[k] else ",")
            f.write(f"{k + 1},{r['pegasus'][JUDGE]},{r['gpt3'][JUDGE]},{gold}\n")
    with open(f"{folder}/ratings.csv", "w") as f:
        f.write("case,system,judge,rater1,rater2\n")
        for k, r in enumerate(rows):
            for name in sorted(k for k in r if isinstance(r[k], dict)):
                s = r[name]
                f.write(f"{k + 1},{name},{int(s[JUDGE])},{int(s['annot1'][GOLD])},"
                        f"{int(s['annot2'][GOLD])}\n")
    print(f"{int(labelled.sum())} of {len(rows)} cases labelled; files in {folder}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "../shared/data/real")

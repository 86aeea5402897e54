"""Write the example data files in this folder (deterministic: same files on every run).

    python examples/make_example_data.py

- ``base.csv``, ``new.csv``: per-query nDCG-like scores in [0, 1] of two retrieval systems
  on 200 queries (columns ``id,topic,source,score``).  Queries come in 40 topics of unequal
  size (several queries about one topic are correlated: use ``--group topic``), and each
  topic belongs to one of three sources (``--stratum source``).  B is better by about 0.02
  on average, by more on some topics than others.
- ``runs.csv``: the same scores in the one-file layout, ``id,base,new``.
- ``ner_counts.csv``: per-sentence entity counts of two taggers for pooled F1,
  ``id,base_tp,base_fp,base_fn,new_tp,new_fp,new_fn`` (``--metric f1 --stats tp,fp,fn``).
"""

from __future__ import annotations

import csv
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = ("web", "news", "forum")


def clip(x: float) -> float:
    return min(1.0, max(0.0, x))


def retrieval_scores(rng: random.Random) -> list[dict]:
    sizes = [rng.randint(2, 8) for _ in range(40)]
    while sum(sizes) != 200:  # adjust to exactly 200 queries, keeping sizes in 1..10
        k = rng.randrange(40)
        step = 1 if sum(sizes) < 200 else -1
        if 1 <= sizes[k] + step <= 10:
            sizes[k] += step
    rows = []
    query = 0
    for t, size in enumerate(sizes, 1):
        source = SOURCES[rng.choices(range(3), weights=(5, 3, 2))[0]]
        ease = rng.betavariate(2.2, 2.0)  # how easy the topic is for both systems
        gain = rng.gauss(0.025, 0.035)  # B's advantage on this topic
        for _ in range(size):
            query += 1
            item = clip(ease + rng.gauss(0, 0.15))
            a = clip(item + rng.gauss(0, 0.06))
            b = clip(item + gain + rng.gauss(0, 0.06))
            rows.append(
                {
                    "id": f"q{query:03d}",
                    "topic": f"T{t:02d}",
                    "source": source,
                    "a": round(a, 4),
                    "b": round(b, 4),
                }
            )
    return rows


def ner_counts(rng: random.Random, n: int = 300) -> list[dict]:
    rows = []
    for i in range(1, n + 1):
        gold = rng.choice((0, 1, 1, 2, 2, 3, 4))
        row = {"id": f"s{i:03d}"}
        for system, recall, spurious in (("base", 0.78, 0.25), ("new", 0.82, 0.22)):
            tp = sum(rng.random() < recall for _ in range(gold))
            fp = sum(rng.random() < spurious for _ in range(2))
            row.update({f"{system}_tp": tp, f"{system}_fp": fp, f"{system}_fn": gold - tp})
        rows.append(row)
    return rows


def write(name: str, header: list[str], rows: list[list]) -> None:
    with open(os.path.join(HERE, name), "w", newline="", encoding="utf-8") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(header)
        out.writerows(rows)


def main() -> None:
    rng = random.Random(20240607)
    rows = retrieval_scores(rng)
    write("base.csv", ["id", "topic", "source", "score"],
          [[r["id"], r["topic"], r["source"], r["a"]] for r in rows])
    write("new.csv", ["id", "topic", "source", "score"],
          [[r["id"], r["topic"], r["source"], r["b"]] for r in rows])
    write("runs.csv", ["id", "base", "new"], [[r["id"], r["a"], r["b"]] for r in rows])
    ner = ner_counts(rng)
    header = ["id", "base_tp", "base_fp", "base_fn", "new_tp", "new_fp", "new_fn"]
    write("ner_counts.csv", header, [[r[h] for h in header] for r in ner])


if __name__ == "__main__":
    main()

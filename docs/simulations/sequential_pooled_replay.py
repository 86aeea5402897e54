"""A replay of a real pooled metric through pairboot.sequential (docs/sequential.md):
MasakhaNER-luo span F1 of gemma-2b, 0-shot against 5-shot (lm-evaluation-harness
samples in the project's shared data), each document's tp, fp, fn counted as the task's
``span_f1_agg`` counts them (``counts="span-f1"``).

Puts the 185 documents in a fixed random order, feeds them one by one to the F1
sequence and prints where it would have stopped beside the fixed-size verdict on all
documents; then the stopping size over 200 random orders; then, with A's and B's counts
swapped at random per document (a true difference of 0), how often the sequence and a
fixed-size delta-method interval read after every document (from the 30th) declare a
difference.

    python docs/simulations/sequential_pooled_replay.py [FOLDER]  # default ../shared/data/real
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np

import pairboot
from pairboot.io import harness
from pairboot.metrics import F1
from pairboot.stats import sequences as cs

HERE = Path(__file__).resolve().parent
FOLDER = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parents[2] / "shared/data/real"
Z95 = 1.959963984540054
RUNS = ("samples_masakhaner_luo_prompt_4_2026-01-16T20-57-28.313639.jsonl",  # 0-shot
        "samples_masakhaner_luo_prompt_4_2026-01-16T21-18-16.842863.jsonl")  # 5-shot


def counts() -> tuple[np.ndarray, np.ndarray]:
    reads = [harness.read(FOLDER / "lm_eval" / r, "lm-eval", counts="span-f1") for r in RUNS]
    joined = harness.join(reads)
    return joined.values[0], joined.values[1]


def replay(a: np.ndarray, b: np.ndarray) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (its small-sample note: printed in the docs)
        fixed = pairboot.compare(a, b, metric="f1", seed=1)
    print(f"{len(a)} documents: F1 A {F1.evaluate(a.sum(0))[0][0]:.4f}, "
          f"B {F1.evaluate(b.sum(0))[0][0]:.4f}; fixed-size on all: B - A "
          f"{fixed.estimate:+.4f} [{fixed.confidence_interval.low:+.4f}, "
          f"{fixed.confidence_interval.high:+.4f}] -> {fixed.verdict()}")
    order = np.random.default_rng(2026).permutation(len(a))
    for label, options in (("n_target 500", {}), ("n_target 185", {"n_target": 185})):
        s = pairboot.sequential(metric="f1", **options)
        for i in order:  # (one document at a time, as a harness would)
            s.update(a[i:i + 1], b[i:i + 1])
            if s.stopped:
                break
        r = s.result
        print(f"{label}: {r.verdict} after {r.n_units} documents, B - A {r.estimate:+.4f} "
              f"[{r.confidence_sequence.low:+.4f}, {r.confidence_sequence.high:+.4f}], "
              f"{r.width_ratio:.2f} x the fixed interval's half-width there")


def orders(a: np.ndarray, b: np.ndarray, n_orders: int = 200) -> None:
    rng = np.random.default_rng(7)
    sizes, verdicts = [], {}
    for _ in range(n_orders):
        o = rng.permutation(len(a))
        r = pairboot.sequential(metric="f1", n_target=185).update(a[o], b[o])
        sizes.append(r.n_units)
        verdicts[r.verdict] = verdicts.get(r.verdict, 0) + 1
    q = np.quantile(sizes, [0.1, 0.5, 0.9])
    print(f"{n_orders} random orders: stops at {q[0]:.0f} / {q[1]:.0f} / {q[2]:.0f} "
          f"documents (10% / 50% / 90%); verdicts {verdicts}")


def null_monitoring(a: np.ndarray, b: np.ndarray, n_streams: int = 300) -> None:
    rng = np.random.default_rng(11)
    seq = fixed = 0
    t = np.arange(1, len(a) + 1)
    for _ in range(n_streams):
        swap = rng.random(len(a)) < 0.5
        o = rng.permutation(len(a))
        x, y = np.where(swap[:, None], b, a)[o], np.where(swap[:, None], a, b)[o]
        seq += pairboot.sequential(metric="f1", n_target=185).update(x, y).decided
        _, est, sd, *_ = cs.pooled_path(cs.pooled_start(3), np.hstack([y, x]), F1.formula,
                                        F1.gradient, 1.0, 0.05)
        half = Z95 * sd / np.sqrt(t)
        fixed += bool(((np.abs(est) > half) & (t >= 30)).any())
    print(f"swapped at random ({n_streams} streams): the sequence declared a difference "
          f"on {seq / n_streams:.1%}, a fixed-size interval read after every document on "
          f"{fixed / n_streams:.1%}")


if __name__ == "__main__":
    a, b = counts()
    replay(a, b)
    orders(a, b)
    null_monitoring(a, b)

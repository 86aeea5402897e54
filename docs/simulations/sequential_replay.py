"""Replays of real per-item logs through pairboot.sequential (docs/sequential.md).

Reads MMLU-Pro's per-question predictions (TIGER-AI-Lab/MMLU-Pro) and FastChat's
SimpleQA-250 grades from the project's shared data, puts the items in a fixed random
order, feeds them one by one to the confidence sequence, and prints where it would have
stopped beside the fixed-size verdict on all items.  Then the same over many random
orders (the stopping size's spread), and, on the same items with the differences' signs
flipped at random (a true difference of 0), how often the sequence and a fixed-size
interval read after every item declare a difference.

    python docs/simulations/sequential_replay.py [FOLDER]   # default ../shared/data/real
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

import pairboot

HERE = Path(__file__).resolve().parent
FOLDER = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parents[2] / "shared/data/real"
Z95 = 1.959963984540054


def mmlu_pro(model: str) -> dict:
    path = FOLDER / "mmlu_pro" / f"model_outputs_{model}_5shots.slim.jsonl"
    rows = (json.loads(line) for line in path.open())
    return {r["question_id"]: float(r["pred"] == r["answer"]) for r in rows}


def simpleqa(system: str) -> dict:
    path = FOLDER / "fastchat_simpleqa250" / f"simple_qa_250_{system}_results.jsonl"
    rows = (json.loads(line) for line in path.open())
    return {r["question_id"]: float(r["grade"] == "A") for r in rows}


def paired(a: dict, b: dict) -> tuple[np.ndarray, np.ndarray]:
    ids = sorted(set(a) & set(b), key=str)
    return np.array([a[i] for i in ids]), np.array([b[i] for i in ids])


def replay(name: str, a: np.ndarray, b: np.ndarray, seed: int = 2026) -> None:
    order = np.random.default_rng(seed).permutation(a.size)
    fixed = pairboot.compare(a, b, seed=1)
    print(f"## {name}: {a.size:,} items, A {a.mean():.4f}, B {b.mean():.4f}")
    print(f"fixed-size on all items: B - A {fixed.estimate:+.4f} "
          f"[{fixed.confidence_interval.low:+.4f}, {fixed.confidence_interval.high:+.4f}] "
          f"-> {fixed.verdict()}")
    for label, options in (("betting", {"bounds": (0, 1)}),
                           ("betting, n_target 2000", {"bounds": (0, 1), "n_target": 2000}),
                           ("asymptotic", {})):
        s = pairboot.sequential(**options)
        for i in order:  # (one item at a time, as a harness would)
            s.update(a[i:i + 1], b[i:i + 1])
            if s.stopped:
                break
        r = s.result
        print(f"{label:>24}: {r.verdict} after {r.n_units:,} items, B - A {r.estimate:+.4f} "
              f"[{r.confidence_sequence.low:+.4f}, {r.confidence_sequence.high:+.4f}], "
              f"{r.width_ratio:.2f} x the fixed interval's half-width there")


def orders(name: str, a: np.ndarray, b: np.ndarray, n_orders: int = 200) -> None:
    rng = np.random.default_rng(7)
    sizes, verdicts = [], {}
    for _ in range(n_orders):
        order = rng.permutation(a.size)
        r = pairboot.sequential(bounds=(0, 1)).update(a[order], b[order])
        sizes.append(r.n_units)
        verdicts[r.verdict] = verdicts.get(r.verdict, 0) + 1
    q = np.quantile(sizes, [0.1, 0.5, 0.9])
    print(f"{name}, {n_orders} random orders: stops at {q[0]:,.0f} / {q[1]:,.0f} / {q[2]:,.0f} "
          f"items (10% / 50% / 90%), mean {np.mean(sizes):,.0f}; verdicts {verdicts}")


def null_monitoring(name: str, a: np.ndarray, b: np.ndarray, n_streams: int = 300) -> None:
    """The items' own differences with random signs (B - A = 0 in truth), read after
    every item from the 30th: how often each rule declares a difference."""
    rng = np.random.default_rng(11)
    d0 = b - a
    t = np.arange(1, d0.size + 1)
    seq = fixed = 0
    for _ in range(n_streams):
        d = d0[rng.permutation(d0.size)] * rng.choice([-1.0, 1.0], d0.size)
        aa = np.where(d < 0, 1.0, 0.0)
        r = pairboot.sequential(bounds=(0, 1)).update(aa, aa + d)
        seq += r.decided
        mean = np.cumsum(d) / t
        sd = np.sqrt(np.maximum(np.cumsum(d * d) - t * mean ** 2, 0) / np.maximum(t - 1, 1))
        fixed += bool(((np.abs(mean) > Z95 * sd / np.sqrt(t)) & (t >= 30)).any())
    print(f"{name}, signs flipped (no true difference), {n_streams} streams read after every "
          f"item: sequence {seq / n_streams:.3f}, fixed-size 95% interval "
          f"{fixed / n_streams:.3f}")


def main() -> None:
    llama3, llama31, mistral = (mmlu_pro(m) for m in
                                ("Meta-Llama-3-8B", "Meta-Llama-3_1-8B", "Mistral-7B-v0.1"))
    a, b = paired(llama3, llama31)
    replay("MMLU-Pro, Llama-3-8B (A) vs Llama-3.1-8B (B)", a, b)
    orders("MMLU-Pro, Llama-3-8B vs Llama-3.1-8B", a, b)
    null_monitoring("MMLU-Pro, Llama-3-8B vs Llama-3.1-8B", a, b)
    a2, b2 = paired(mistral, llama3)
    replay("MMLU-Pro, Mistral-7B (A) vs Llama-3-8B (B)", a2, b2)
    orders("MMLU-Pro, Mistral-7B vs Llama-3-8B", a2, b2)
    a3, b3 = paired(simpleqa("gpt-4o"), simpleqa("gpt-4o-agent"))
    replay("SimpleQA-250, gpt-4o (A) vs gpt-4o-agent (B)", a3, b3)
    a4, b4 = paired(simpleqa("gpt-4o-mini"), simpleqa("gpt-4o"))
    replay("SimpleQA-250, gpt-4o-mini (A) vs gpt-4o (B)", a4, b4)


if __name__ == "__main__":
    main()

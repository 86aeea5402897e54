"""compare_preferences() against its recorded answers: the ratings, intervals, rank
sets, chances of being best, win rates and position bias of a few battle sets, as
``float.hex``, so that a change of the code that computes them (shared helpers in place
of local copies) shows any change of the numbers.

Recorded from commit 6db818c, and re-recorded when the rank sets took max_t's critical
value (an order statistic of the maxima, not np.quantile's interpolation: two rank sets
of bt-m6-close widen by a place) and the percentile ends stats.intervals.bounds' (one
win-interval end of bt-ridged and bt-ridge-given moves by its last bit), with::

    PYTHONPATH=src python tests/comparisons/test_preferences_golden.py --record

Re-record only when a change of results is meant, and say so in the commit.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import pairboot

GOLDEN = Path(__file__).with_name("golden") / "preferences.json"


def _battles(m: int, prompts: int, per_prompt: int, seed: int, ties: float,
             spread: float = 1.0, swapped: bool = False) -> dict:
    """Battles of m systems with true ratings over ``2 * spread`` logits; ``swapped``:
    every battle judged twice, the second game with the answers swapped."""
    rng = np.random.default_rng(seed)
    theta = np.linspace(-spread, spread, m)
    cols = {"prompt": [], "a": [], "b": [], "verdict": [], "game": []}
    for p in range(prompts):
        for _ in range(per_prompt):
            i, j = (int(k) for k in rng.choice(m, 2, replace=False))
            for game, (x, y) in enumerate([(i, j), (j, i)] if swapped else [(i, j)]):
                d = theta[x] - theta[y] + (0.3 if swapped else 0.0)
                u = rng.random()
                v = "tie" if u < ties else ("A" if rng.random() < 1 / (1 + np.exp(-d))
                                            else "B")
                cols["prompt"].append(f"p{p}")
                cols["a"].append(f"s{x}")
                cols["b"].append(f"s{y}")
                cols["verdict"].append(v)
                cols["game"].append(game if swapped else None)
    return cols


def cases():
    """(name, battles, keywords) of every recorded comparison."""
    yield "bt-m6-close", _battles(6, 60, 5, 1, 0.1, spread=0.4), {}
    yield "bt-m4-battle", _battles(4, 80, 4, 2, 0.1), {"cluster": "battle",
                                                       "baseline": "s0"}
    yield "davidson-separate", _battles(4, 80, 5, 3, 0.3), {
        "model": "davidson", "ties": "separate", "anchor": "s1"}
    # few battles and a wide spread: some resamples have no finite maximum (refitted
    # with the small ridge)
    yield "bt-ridged", _battles(4, 12, 2, 4, 0.0, spread=2.0), {"ridge": None}
    yield "davidson-ridged", _battles(4, 14, 2, 5, 0.25, spread=2.0), {"model": "davidson"}
    yield "bt-ridge-given", _battles(4, 12, 2, 4, 0.0, spread=2.0), {"ridge": 0.5}
    yield "position", _battles(5, 50, 3, 6, 0.1, swapped=True), {"baseline": "s2"}


def _hex(value):
    if isinstance(value, float):
        return "nan" if math.isnan(value) else value.hex()
    if isinstance(value, dict):
        return {k: _hex(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_hex(v) for v in value]
    return value


def run(battles: dict, keywords: dict) -> dict:
    res = pairboot.compare_preferences(battles, n_resamples=400, seed=7, **keywords)
    out = res.to_dict()
    for drop in ("version", "bootstrap_distribution"):
        out.pop(drop, None)
    return _hex(out)


@pytest.fixture(scope="module")
def golden() -> dict:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name, battles, keywords", list(cases()),
                         ids=[c[0] for c in cases()])
def test_the_answers_are_the_recorded_ones(golden, name, battles, keywords):
    assert run(battles, keywords) == golden[name]


def test_the_recorded_cases_exercise_the_ridge_and_the_position_bias(golden):
    assert golden["bt-ridged"]["n_ridged"] > 0 and golden["davidson-ridged"]["n_ridged"] > 0
    assert golden["position"]["position_bias"] is not None
    for name in ("bt-ridge-given", "position"):  # (some pairs told apart, some not)
        sets = [tuple(s["rank_interval"]) for s in golden[name]["systems"]]
        assert any(low < high for low, high in sets) and len(set(sets)) > 2


if __name__ == "__main__" and "--record" in sys.argv:
    print(pairboot.__file__)
    GOLDEN.write_text(json.dumps({name: run(b, k) for name, b, k in cases()}, indent=1,
                                 sort_keys=True) + "\n", encoding="utf-8")

"""The seeds derived when none is given, recorded: compare_preferences' and a suite
family's (compare_many with ``estimand="suite"``), so that the hashing behind them may
move to one helper while every derived seed stays bit for bit (recorded from commit
6db818c)."""

from __future__ import annotations

import numpy as np
import pytest

import pairboot


def _battles(seed: int, n: int = 40) -> dict:
    rng = np.random.default_rng(seed)
    names = ["x", "y", "z", "é"]
    a = rng.integers(0, 4, n)
    b = (a + rng.integers(1, 4, n)) % 4
    return {"prompt": [f"p{k // 2}" for k in range(n)], "a": [names[i] for i in a],
            "b": [names[i] for i in b],
            "verdict": rng.choice(["A", "B", "tie"], n).tolist()}


PREFERENCES = [
    (0, {}, 4277216901),
    (1, {}, 1667401205),
    (1, {"n_resamples": 200}, 1457635629),
    (1, {"cluster": "battle"}, 832747644),
    (2, {"model": "davidson", "orders": "both"}, 276597038),
]


@pytest.mark.parametrize("data_seed, keywords, seed", PREFERENCES)
def test_compare_preferences_derives_its_recorded_seed(data_seed, keywords, seed):
    keywords = {"n_resamples": 20, **keywords}
    assert pairboot.compare_preferences(_battles(data_seed), **keywords).seed == seed


def _tables(seed: int, m: int = 3, n: int = 30, t: int = 4) -> dict:
    rng = np.random.default_rng(seed)
    return {f"s{j}": (rng.random((n, t)) < 0.5).astype(float) for j in range(m)}


SUITES = [
    (0, {}, 8253548747664383660),
    (1, {}, 3770677830409586240),
    (1, {"n_resamples": 500}, 8444328553722804515),
    (2, {"metric": "pass^2"}, 2743317067154842709),
]


@pytest.mark.filterwarnings("ignore::pairboot.errors.SmallSampleWarning")
@pytest.mark.parametrize("data_seed, keywords, seed", SUITES)
def test_a_suite_family_derives_its_recorded_seed(data_seed, keywords, seed):
    keywords = {"runs": "samples", "metric": "pass@2", "estimand": "suite",
                "n_resamples": 200, **keywords}
    assert pairboot.compare_many(_tables(data_seed), **keywords).seed == seed

"""One family procedure: the corrections are one table, read by the bootstrap's
families and the runs' alike."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import pairboot
from pairboot.core import corrections
from pairboot.options import CORRECTIONS


def test_the_table_holds_every_correction_the_option_takes():
    assert set(corrections.CORRECTIONS) == set(CORRECTIONS)
    words = [(c.test, c.interval) for c in corrections.CORRECTIONS.values()]
    assert all(test and interval for test, interval in words)


@pytest.mark.filterwarnings("ignore")  # (few resamples and seeds)
def test_bootstrap_and_runs_families_take_their_correction_from_the_table(monkeypatch):
    """A correction's entry is the only place it is computed: replacing Holm's entry
    changes both kinds of family."""
    seen = []
    holm = corrections.CORRECTIONS["holm"]

    def spy(rows, marginal, p_raw):
        seen.append(len(p_raw))
        return holm.correct(rows, marginal, p_raw)

    monkeypatch.setitem(corrections.CORRECTIONS, "holm", dataclasses.replace(holm, correct=spy))
    rng = np.random.default_rng(2)
    items = {name: rng.random(30) for name in "xyz"}
    runs = {name: rng.random((30, 3)) for name in "xyz"}
    pairboot.compare_many(items, correction="holm", n_resamples=200, seed=1)
    pairboot.compare_many(runs, correction="holm", runs="seeds", n_resamples=200, seed=1)
    assert seen == [3, 3]

"""Coverage of the simultaneous rank intervals of an aggregate over tasks, by simulation
on systems whose true ranks are known: every system's true rank inside its interval, all
at once, in at least the level's share of the data sets (a binomial guard)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import pairboot

SHIFTS = np.array([0.0, 0.15, 0.3, 0.6])
"""The systems' true advantages: true ranks 4, 3, 2, 1 (no true ties)."""
TRUE_RANK = {f"s{m}": len(SHIFTS) - m for m in range(len(SHIFTS))}


def suite(rng, n_tasks, n_items, interaction=0.0):
    """Scores of every system on every item: a task's level, the system's shift, a
    system-by-task interaction (its mean 0 over the population of tasks) and noise."""
    level = rng.normal(0.0, 0.5, n_tasks)
    labels = np.repeat([f"t{t}" for t in range(n_tasks)], n_items)
    scores = {}
    for m, shift in enumerate(SHIFTS):
        per_task = level + shift + rng.normal(0.0, interaction, n_tasks)
        scores[f"s{m}"] = np.repeat(per_task, n_items) + rng.normal(0, 1, n_tasks * n_items)
    return scores, labels


def covered(res) -> bool:
    return all(lo <= TRUE_RANK[n] <= hi for n, (lo, hi) in res.rank_intervals.items())


def coverage(n_sets, *, resample="items", n_tasks=5, n_items=60, interaction=0.0,
             n_resamples=299, aggregate="mean"):
    rng = np.random.default_rng(2024)
    hits = 0
    for _ in range(n_sets):
        scores, labels = suite(rng, n_tasks, n_items, interaction)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = pairboot.compare_tasks(scores, tasks=labels, resample=resample,
                                         aggregate=aggregate, n_resamples=n_resamples,
                                         seed=int(rng.integers(2**32)))
        hits += covered(res)
    return hits


def test_rank_intervals_cover_the_true_ranks_reduced():
    """25 data sets: at 95% coverage, 21 or more covered but with probability 0.993."""
    assert coverage(25) >= 21


def test_rank_intervals_are_not_all_wide():
    """The guard above could pass with every interval 1-M: here the best and the worst
    system are each told apart from the rest."""
    rng = np.random.default_rng(7)
    scores, labels = suite(rng, 5, 60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (299 resamples, 60 items a task: noted)
        res = pairboot.compare_tasks(scores, tasks=labels, n_resamples=299, seed=1)
    assert res.rank_intervals["s3"] == (1, 1) and res.rank_intervals["s0"][0] > 1


@pytest.mark.slow
@pytest.mark.parametrize(("resample", "aggregate"), [("items", "mean"),
                                                     ("items", "median")])
def test_rank_intervals_cover_the_true_ranks_of_this_suite(resample, aggregate):
    """Tasks fixed, items drawn (the true per-task means are the shifts: the median's
    true ranks are the mean's)."""
    n = 300
    # (499 resamples: what is checked is the design, which units are drawn; measured,
    # 300 of 300 covered at 299, 499 and 999 resamples alike)
    hits = coverage(n, resample=resample, aggregate=aggregate, n_resamples=499)
    assert hits / n >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / n)


@pytest.mark.slow
def test_rank_intervals_cover_the_population_of_tasks_with_two_levels():
    """Tasks drawn from a population (a system-by-task interaction), each measured on
    items: the two-level bootstrap's intervals cover the population's ranks (30 tasks:
    a bootstrap of fewer tasks covers less, as the note says).  The interaction is large
    enough that drawing the items alone, the tasks fixed, misses the tasks' share of the
    spread and covers far less on the same data sets (measured: 75 of 100; the
    two-level one 100 of 100), so the check would fail if the tasks were not drawn."""
    n = 200
    bound = 0.95 - 3 * math.sqrt(0.95 * 0.05 / n)
    # (499 resamples: the design is checked, which units are drawn)
    design = dict(n_tasks=30, n_items=40, interaction=0.7, n_resamples=499)
    assert coverage(n, resample="both", **design) / n >= bound
    assert coverage(n, resample="items", **design) / n < bound

"""The aggregates over tasks against independent references: scipy's trim_mean and
rliable's aggregates (IQM, optimality gap, mean, median), and HELM's own win-rate
algorithm and a rank-based Borda count written out in plain numpy."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

from pairboot.stats.aggregates import (
    AGGREGATES,
    best_shares,
    borda,
    interquartile_mean,
    mean_win_rate,
    optimality_gap,
    task_points,
    tie_groups,
)


def helm_win_rates(table: np.ndarray) -> np.ndarray:
    """HELM's ``compute_aggregate_row_win_rates`` (helm/benchmark/presentation/
    summarize.py), transcribed: per column, each value's wins are the values below it
    plus half the other values equal to it, over (count - 1); averaged over columns.
    ``table``: tasks x systems (the rows of HELM's table are the systems)."""
    n_tasks, n_systems = table.shape
    per_row = [[] for _ in range(n_systems)]
    for t in range(n_tasks):
        value_to_count = defaultdict(int)
        for m in range(n_systems):
            value_to_count[table[t, m]] += 1
        value_to_wins, acc = {}, 0
        for value, count in sorted(value_to_count.items()):
            value_to_wins[value] = acc + (count - 1) / 2
            acc += count
        for m in range(n_systems):
            per_row[m].append(value_to_wins[table[t, m]] / (acc - 1))
    return np.array([np.mean(r) for r in per_row])


def ranks_borda(table: np.ndarray) -> np.ndarray:
    """The Borda count from average ranks (scipy's rankdata): M - rank points per task
    (rank 1 the best), summed."""
    from scipy.stats import rankdata

    m = table.shape[1]
    return sum(m - rankdata(-row, method="average") for row in table)


@pytest.mark.parametrize("seed", range(5))
def test_win_rate_and_borda_equal_helm_and_a_rank_count_with_ties(seed):
    rng = np.random.default_rng(seed)
    table = rng.integers(0, 4, size=(7, 5)).astype(float)  # (many ties)
    assert np.allclose(mean_win_rate(table), helm_win_rates(table), atol=1e-12)
    assert np.allclose(borda(table), ranks_borda(table), atol=1e-12)
    assert np.allclose(borda(table), mean_win_rate(table) * 7 * 4)


def test_the_aggregates_are_vectorised_over_replicates():
    rng = np.random.default_rng(1)
    values = rng.random((6, 9, 4))
    for agg in AGGREGATES.values():
        stacked = agg.function(values, 0.8)
        one_by_one = np.stack([agg.function(v[None], 0.8)[0] for v in values])
        assert stacked.shape == (6, 4) and np.allclose(stacked, one_by_one)


@pytest.mark.parametrize("n_tasks", [1, 3, 4, 7, 8, 13])
def test_iqm_is_scipy_s_trim_mean_and_rliable_s_iqm(n_tasks):
    from scipy.stats import trim_mean

    rliable = pytest.importorskip("rliable.metrics")
    rng = np.random.default_rng(n_tasks)
    values = rng.normal(size=(n_tasks, 3))
    got = interquartile_mean(values)
    assert np.allclose(got, trim_mean(values, 0.25, axis=0), atol=1e-12)
    # rliable's IQM of one run per task (a 1 x T matrix: its runs x tasks layout)
    assert np.allclose(got, [rliable.aggregate_iqm(values[None, :, m]) for m in range(3)],
                       atol=1e-12)


def test_optimality_gap_mean_and_median_are_rliable_s():
    rliable = pytest.importorskip("rliable.metrics")
    rng = np.random.default_rng(2)
    values = rng.uniform(0.2, 1.4, size=(11, 3))
    for gamma in (1.0, 0.7):
        assert np.allclose(optimality_gap(values, gamma), [
            rliable.aggregate_optimality_gap(values[None, :, m], gamma) for m in range(3)],
            atol=1e-12)
    assert np.allclose(AGGREGATES["mean"].function(values, 1.0),
                       [rliable.aggregate_mean(values[None, :, m]) for m in range(3)])
    assert np.allclose(AGGREGATES["median"].function(values, 1.0),
                       [rliable.aggregate_median(values[None, :, m]) for m in range(3)])


def test_task_points_leave_a_nan_score_out():
    points = task_points(np.array([[1.0, np.nan, 0.0]]))
    assert points[0, 0] == 1.0 and np.isnan(points[0, 1]) and points[0, 2] == 0.0


def test_best_shares_split_ties_and_follow_the_direction():
    reps = np.array([[1.0, 2.0, 2.0], [3.0, 1.0, 0.0], [np.nan, 1.0, 1.0]])
    assert best_shares(reps, False).tolist() == [0.5, 0.25, 0.25]
    assert best_shares(reps, True).tolist() == [0.5, 0.0, 0.5]


def test_tie_groups_cut_only_where_everything_above_beats_everything_below():
    better = np.zeros((4, 4), dtype=bool)
    better[0, 2] = better[0, 3] = better[1, 2] = better[1, 3] = True  # {0, 1} > {2, 3}
    better[2, 3] = True
    assert tie_groups([0, 1, 2, 3], better) == [[0, 1], [2], [3]]
    better[1, 3] = False  # (1 is not surely better than 3: 1, 2, 3 cannot be cut apart)
    assert tie_groups([0, 1, 2, 3], better) == [[0, 1, 2, 3]]

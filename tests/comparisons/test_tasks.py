"""compare_tasks(): the stratified (items), task and two-level bootstraps against rliable
and numpy references, the comparisons, the layouts and the refusals."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import pairboot
from pairboot.errors import InputError
from pairboot.stats.aggregates import AGGREGATES, interquartile_mean

REPS = 4000

pytestmark = pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")
"""(rliable's setting: a dozen runs per task, and a few tasks)"""


def rliable_layout(n_runs=12, n_tasks=9, seed=0):
    """rliable's setting: every algorithm's runs x tasks matrix of scores, and the same
    scores as compare_tasks takes them (one column per system, a task label per run)."""
    rng = np.random.default_rng(seed)
    task_level = rng.uniform(0.2, 1.2, n_tasks)
    dict_ = {name: task_level + shift + rng.normal(0, 0.25, (n_runs, n_tasks))
             for name, shift in (("a", 0.0), ("b", 0.08), ("c", 0.3))}
    flat = {name: m.T.ravel() for name, m in dict_.items()}  # (task-major)
    labels = np.repeat([f"task{t}" for t in range(n_tasks)], n_runs)
    return dict_, flat, labels


def _close(ours, theirs, se):
    """Two percentile intervals of independent bootstraps of REPS replicates agree
    within Monte Carlo error: an end's error is about 2.7 se / sqrt(REPS) at 95%
    (Var of a quantile: p (1 - p) / (R f(q)^2)); the difference of two, times 5."""
    tol = 5 * math.sqrt(2) * 2.7 * se / math.sqrt(REPS)
    assert abs(ours[0] - theirs[0]) < tol and abs(ours[1] - theirs[1]) < tol, (
        ours, theirs, tol)


@pytest.fixture(autouse=True)
def numpy_global_state():
    """rliable draws with numpy's global state (its ``random_state`` does not reach arch
    8's bootstrap): seeded for each test, and put back after it."""
    state = np.random.get_state()
    np.random.seed(5)
    yield
    np.random.set_state(state)


def rliable_estimates(score_dict, func, task_bootstrap=False):
    """rliable's ``get_interval_estimates`` (percentile, REPS replicates).  rliable 1.2
    hands arch its ``random_state=None`` as data, which arch >= 8 refuses: then the same
    loop on rliable's own ``StratifiedBootstrap`` draws (its ``update_indices``), built
    as its ``__init__`` builds it without that keyword."""
    library = pytest.importorskip("rliable.library")
    try:
        return library.get_interval_estimates(score_dict, func, reps=REPS,
                                              task_bootstrap=task_bootstrap)
    except TypeError:
        import arch.bootstrap as arch_bs

    class Stratified(library.StratifiedBootstrap):
        def __init__(self, scores):  # (rliable's __init__, less ``random_state``)
            arch_bs.IIDBootstrap.__init__(self, scores, seed=np.random.default_rng(0))
            self._args_shape = scores.shape
            self._num_tasks = self._args_shape[1]
            self._parameters = [self._num_tasks, task_bootstrap]
            self._task_bootstrap = task_bootstrap
            self._strata_indices = self._get_strata_indices()

    points, intervals = {}, {}
    for key, scores in score_dict.items():
        points[key] = func(scores)
        intervals[key] = Stratified(scores).conf_int(func, reps=REPS, size=0.95,
                                                     method="percentile")
    return points, intervals


RLIABLE_AGGREGATES = {
    # rliable's own aggregates where they are of the per-task means; IQM and the gap of
    # the per-task means: rliable's functions applied to them (rliable pools the runs)
    "mean": lambda m: m.aggregate_mean,
    "median": lambda m: m.aggregate_median,
    "iqm": lambda m: (lambda x: m.aggregate_iqm(x.mean(axis=0, keepdims=True))),
    "optimality-gap": lambda m: (lambda x: m.aggregate_optimality_gap(
        x.mean(axis=0, keepdims=True), 1.0)),
}


@pytest.mark.parametrize(("aggregate", "resample"), [
    (agg, level) if (agg, level) == ("median", "both")
    else pytest.param(agg, level, marks=pytest.mark.slow)
    for agg in RLIABLE_AGGREGATES for level in ("items", "both")])
def test_intervals_agree_with_rliable_s_stratified_bootstrap(aggregate, resample):
    metrics = pytest.importorskip("rliable.metrics")
    dict_, flat, labels = rliable_layout()
    func = RLIABLE_AGGREGATES[aggregate](metrics)
    points, intervals = rliable_estimates(dict_, lambda x: np.array([func(x)]),
                                          resample == "both")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = pairboot.compare_tasks(flat, tasks=labels, aggregate=aggregate,
                                     resample=resample, n_resamples=REPS, seed=3)
    for name in dict_:
        s = res.systems[name]
        assert s.estimate == pytest.approx(points[name][0], abs=1e-12)
        _close(s.confidence_interval, intervals[name][:, 0], s.standard_error)


def test_runs_as_seeds_are_rliable_s_runs():
    """rliable's setting with items: every run's task score is its mean over the task's
    items, and the runs are drawn within each task."""
    metrics = pytest.importorskip("rliable.metrics")
    rng = np.random.default_rng(4)
    n_items, n_runs, n_tasks = 20, 10, 6
    level = rng.uniform(0.3, 0.7, n_tasks)
    nested = {f"t{t}": {name: level[t] + shift + rng.normal(0, 0.4, (n_items, n_runs))
                        for name, shift in (("x", 0.0), ("y", 0.1))}
              for t in range(n_tasks)}
    dict_ = {name: np.column_stack([nested[f"t{t}"][name].mean(axis=0)
                                    for t in range(n_tasks)]) for name in ("x", "y")}
    points, intervals = rliable_estimates(dict_,
                                          lambda x: np.array([metrics.aggregate_mean(x)]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = pairboot.compare_tasks(nested, runs="seeds", n_resamples=REPS, seed=1)
    assert res.n_items == (n_runs,) * n_tasks
    for name in dict_:
        s = res.systems[name]
        assert s.estimate == pytest.approx(points[name][0], abs=1e-12)
        _close(s.confidence_interval, intervals[name][:, 0], s.standard_error)


def test_a_paired_difference_of_macro_means_is_rliable_s_interval_of_the_differences():
    """The mean is linear: B - A of the macro means is the macro mean of the paired
    differences, whose interval rliable gives on the differences' matrix."""
    metrics = pytest.importorskip("rliable.metrics")
    dict_, flat, labels = rliable_layout(seed=3)
    _, intervals = rliable_estimates({"b-a": dict_["b"] - dict_["a"]},
                                     lambda x: np.array([metrics.aggregate_mean(x)]))
    res = pairboot.compare_tasks(flat, tasks=labels, pairs=[("a", "b")], correction="none",
                                 n_resamples=REPS, seed=2)
    (c,) = res.comparisons
    assert c.confidence_interval == c.marginal_interval
    _close(c.confidence_interval, intervals["b-a"][:, 0], c.standard_error)


def test_the_task_bootstrap_draws_the_observed_task_scores():
    """resample="tasks": every replicate is the aggregate of T task scores drawn with
    replacement from the observed ones; a numpy bootstrap of the task means agrees."""
    _, flat, labels = rliable_layout(seed=6)
    res = pairboot.compare_tasks(flat, tasks=labels, aggregate="iqm", resample="tasks",
                                 n_resamples=REPS, seed=4)
    observed = np.column_stack([
        np.array([flat[n][labels == t].mean() for t in dict.fromkeys(labels)])
        for n in res.names])
    assert np.allclose(np.column_stack([res.task_scores[n] for n in res.names]), observed)
    rng = np.random.default_rng(0)
    picks = rng.integers(0, len(observed), size=(REPS, len(observed)))
    reference = interquartile_mean(observed[picks])
    for j, name in enumerate(res.names):
        low, high = np.quantile(reference[:, j], [0.025, 0.975])
        _close(res.systems[name].confidence_interval, (low, high),
               res.systems[name].standard_error)


def test_two_levels_spread_more_than_either_level_alone():
    _, flat, labels = rliable_layout(seed=8)
    se = {}
    for level in ("items", "tasks", "both"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = pairboot.compare_tasks(flat, tasks=labels, resample=level,
                                         n_resamples=2000, seed=1)
        se[level] = res.systems["a"].standard_error
    # Var(both) ~ Var(items) + Var(tasks) for a macro mean
    assert se["both"] > max(se["items"], se["tasks"])
    assert se["both"] == pytest.approx(math.hypot(se["items"], se["tasks"]), rel=0.15)


def test_the_same_seed_gives_the_same_answer_and_the_report_states_what_varied():
    _, flat, labels = rliable_layout(seed=9)
    one = pairboot.compare_tasks(flat, tasks=labels, aggregate="win-rate", resample="both",
                                 n_resamples=500, seed=11)
    two = pairboot.compare_tasks(flat, tasks=labels, aggregate="win-rate", resample="both",
                                 n_resamples=500, seed=11)
    assert np.array_equal(one.bootstrap_distribution, two.bootstrap_distribution)
    assert one.resample == "both" and "two levels" in str(one)


def test_the_comparisons_and_ranks_read_the_aggregate_s_replicates():
    _, flat, labels = rliable_layout(seed=10)
    res = pairboot.compare_tasks(flat, tasks=labels, aggregate="median", correction="none",
                                 n_resamples=2000, seed=5)
    reps = res.bootstrap_distribution
    for c in res.comparisons:
        i, j = res.names.index(c.a), res.names.index(c.b)
        assert c.estimate == pytest.approx(res.systems[c.b].estimate
                                           - res.systems[c.a].estimate)
        d = np.sort(reps[:, j] - reps[:, i])
        # (no correction: the percentile interval of these differences, numpy's quantiles
        # to the rounding of the interpolation)
        assert tuple(c.marginal_interval) == pytest.approx(
            tuple(np.quantile(d, [0.025, 0.975])), rel=1e-12, abs=1e-15)
    # best: the share of replicates where each is the largest
    top = reps.argmax(axis=1)
    ties = (reps == reps.max(axis=1, keepdims=True)).sum(axis=1) > 1
    if not ties.any():
        assert res.p_best == {n: float(np.mean(top == k)) for k, n in enumerate(res.names)}
    assert sum(res.p_best.values()) == pytest.approx(1.0)


def test_max_t_and_holm_decide_the_ranks_of_all_pairs_even_with_a_baseline():
    _, flat, labels = rliable_layout(seed=1)
    res = pairboot.compare_tasks(flat, tasks=labels, baseline="a", n_resamples=2000, seed=1)
    assert [(c.a, c.b) for c in res.comparisons] == [("a", "b"), ("a", "c")]
    assert res.rank_intervals["c"] == (1, 1) and res.tie_groups[0] == ("c",)
    holm = pairboot.compare_tasks(flat, tasks=labels, correction="holm", n_resamples=2000,
                                  seed=1)
    assert holm.rank_correction == "holm" and holm.critical_value is None
    none = pairboot.compare_tasks(flat, tasks=labels, correction="none", n_resamples=2000,
                                  seed=1)
    assert none.rank_correction == "max-t"


def test_the_nested_layout_is_the_flat_one():
    _, flat, labels = rliable_layout(n_tasks=4, seed=2)
    nested = {t: {n: flat[n][labels == t] for n in flat} for t in dict.fromkeys(labels)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = pairboot.compare_tasks(flat, tasks=labels, n_resamples=300, seed=1)
        b = pairboot.compare_tasks(nested, n_resamples=300, seed=1)
    assert a.tasks == b.tasks and np.array_equal(a.bootstrap_distribution,
                                                 b.bootstrap_distribution)


def test_a_dataframe_with_a_task_column():
    pd = pytest.importorskip("pandas")
    _, flat, labels = rliable_layout(n_tasks=3, seed=2)
    frame = pd.DataFrame({**flat, "task": labels})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = pairboot.compare_tasks(frame, tasks="task", n_resamples=300, seed=1)
    assert res.names == ("a", "b", "c") and len(res.tasks) == 3
    table = res.to_frame()
    assert list(table["system"]) == ["c", "b", "a"] and table["rank"].tolist() == [1, 2, 3]
    assert res.to_frame(what="tasks").shape == (3, 3)
    assert len(res.to_frame(what="comparisons")) == 3


def test_losses_count_the_smaller_score_as_the_win():
    _, flat, labels = rliable_layout(n_tasks=5, seed=3)
    losses = {n: -v for n, v in flat.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        up = pairboot.compare_tasks(flat, tasks=labels, aggregate="win-rate",
                                    n_resamples=300, seed=1)
        down = pairboot.compare_tasks(losses, tasks=labels, aggregate="win-rate",
                                      lower_is_better=True, n_resamples=300, seed=1)
        mean_down = pairboot.compare_tasks(losses, tasks=labels, lower_is_better=True,
                                           n_resamples=300, seed=1)
    assert up.systems["c"].estimate == down.systems["c"].estimate
    assert up.rank == down.rank == mean_down.rank


@pytest.mark.parametrize(("kwargs", "param"), [
    ({"aggregate": "mode"}, "aggregate"),
    ({"resample": "runs"}, "resample"),
    ({"aggregate": "optimality-gap", "lower_is_better": True}, "aggregate"),
    ({"method": "bca"}, "method"),
    ({"correction": "bh"}, "correction"),
    ({"gamma": float("nan")}, "gamma"),
    ({"tasks": ["x"] * 3}, "tasks"),
    ({"tasks": None}, "tasks"),
    ({"runs": "seeds"}, "scores"),
])
def test_bad_input_is_one_line_naming_the_argument(kwargs, param):
    scores = {"a": [0.1, 0.2, 0.3, 0.4], "b": [0.2, 0.3, 0.4, 0.5]}
    given = {"tasks": ["x", "x", "y", "y"], "n_resamples": 99, **kwargs}
    with pytest.raises(InputError) as err, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pairboot.compare_tasks(scores, **given)
    assert err.value.param == param and "\n" not in str(err.value)


def test_tasks_with_different_systems_are_refused():
    with pytest.raises(InputError, match="same systems"):
        pairboot.compare_tasks({"t1": {"a": [1, 0], "b": [0, 1]},
                                "t2": {"a": [1, 0], "c": [0, 1]}})


def test_every_aggregate_runs_on_0_1_scores_with_few_items():
    rng = np.random.default_rng(3)
    labels = np.repeat(["p", "q", "r"], 8)
    scores = {n: (rng.random(24) < 0.5) * 1.0 for n in "abcd"}
    for name in AGGREGATES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = pairboot.compare_tasks(scores, tasks=labels, aggregate=name,
                                         resample="both", n_resamples=200, seed=1)
        assert all(1 <= lo <= hi <= 4 for lo, hi in res.rank_intervals.values())
        assert sum(len(g) for g in res.tie_groups) == 4


def test_under_max_t_a_row_s_own_p_is_at_most_its_adjusted_p():
    """The rows' own p and interval are the bootstrap-t ones on max-t's roots (as
    compare_many's): never a percentile p above the stepdown p (which read 0.329 against
    0.277 on a win rate before)."""
    _, flat, labels = rliable_layout(n_tasks=6, seed=11)
    res = pairboot.compare_tasks(flat, tasks=labels, aggregate="win-rate",
                                 resample="both", n_resamples=999, seed=1)
    for c in res.comparisons:
        assert c.p_value <= c.p_adjusted <= c.p_single_step
        assert (c.confidence_interval.low <= c.marginal_interval.low
                and c.marginal_interval.high <= c.confidence_interval.high)


def test_a_row_whose_test_and_interval_disagree_says_so():
    """The stepdown's p can be below alpha while the simultaneous interval still holds
    0 (or the reverse): such a row carries compare_many's note, every other row none
    (SimpleQA's topics gave a significant row with 0 in its interval, without a word)."""
    notes = 0
    for seed, aggregate in ((1, "mean"), (3, "win-rate"), (4, "win-rate")):
        _, flat, labels = rliable_layout(n_tasks=6, seed=seed)
        res = pairboot.compare_tasks(flat, tasks=labels, aggregate=aggregate,
                                     n_resamples=199, seed=seed)
        for c in res.comparisons:
            excludes = c.confidence_interval.low > 0 or c.confidence_interval.high < 0
            assert (c.note is None) == (c.significant == excludes), c
            if c.note is not None:
                notes += 1
                assert ("rejects, but" in c.note) == c.significant
        if any(c.note for c in res.comparisons):
            text = " ".join(str(res).split())
            assert all(c.note in text for c in res.comparisons if c.note)
    assert notes == 3  # (these data: one disagreeing row each)

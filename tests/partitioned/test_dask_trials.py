"""pairboot.dask with ``runs="samples"``: a system's columns are an item's trials, each
row reduced to its estimate where it lies; against ``pairboot.compare(...,
runs="samples", resampling="poisson")`` in memory, to rounding (the estimates are
fractions).  Dask's synchronous scheduler: the partitions are what is tested here, the
cluster in tests/partitioned/test_dask.py."""

from __future__ import annotations

import numpy as np
import pytest

import pairboot
from pairboot.errors import InputError

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")
pbd = pytest.importorskip("pairboot.dask")

pytestmark = pytest.mark.filterwarnings(
    "ignore::pairboot.errors.SmallSampleWarning")  # (few items and resamples, on purpose)

R = 200
N = 120
T = 5


@pytest.fixture(scope="module")
def trials():
    rng = np.random.default_rng(361)
    p = rng.beta(2, 2, N)
    tables = {s: (rng.random((N, T)) < np.clip(p + d, 0, 1)[:, None]).astype(float)
              for s, d in (("a", 0.0), ("b", 0.08), ("c", -0.04))}
    tables["a"][10, 4] = np.nan  # (an item with four trials)
    frame = pd.DataFrame({"task": [f"t{i}" for i in rng.permutation(N)],
                          "suite": rng.choice(["x", "y", "z"], N)})
    for s, t in tables.items():
        for j in range(T):
            frame[f"{s}{j}"] = t[:, j]
    cols = {s: [f"{s}{j}" for j in range(T)] for s in tables}
    return tables, frame.sample(frac=1.0, random_state=2), cols


def assert_close(got, want):
    got, want = np.asarray(got, float), np.asarray(want, float)
    np.testing.assert_allclose(got, want, rtol=1e-12,
                               atol=1e-12 * float(np.max(np.abs(want))))


@pytest.mark.parametrize("npartitions", [1, 4])
@pytest.mark.parametrize("metric", ["pass^3", "pass@1"])
def test_compare_of_trial_columns_equals_memory(trials, npartitions, metric):
    tables, frame, cols = trials
    order = frame.index.to_numpy()  # (the frame is shuffled: memory takes its rows' order)
    ref = pairboot.compare(tables["a"][order], tables["b"][order], runs="samples",
                           metric=metric, ids=frame["task"], strata=frame["suite"],
                           resampling="poisson", seed=9, n_resamples=R)
    with dask.config.set(scheduler="sync"):
        res = pbd.compare(dd.from_pandas(frame, npartitions=npartitions, sort=False),
                          cols["a"], cols["b"], id="task", strata="suite", runs="samples",
                          metric=metric, seed=9, n_resamples=R)
    assert res.metric == ref.metric == metric
    assert_close(res.bootstrap_distribution, ref.bootstrap_distribution)
    assert_close([*res.confidence_interval, res.p_value],
                 [*ref.confidence_interval, ref.p_value])


def test_compare_many_of_trial_columns_equals_memory(trials):
    tables, frame, cols = trials
    order = frame.index.to_numpy()
    ref = pairboot.compare_many({s: t[order] for s, t in tables.items()}, runs="samples",
                                metric="maj@3", baseline="a", ids=frame["task"],
                                resampling="poisson", seed=4, n_resamples=R)
    with dask.config.set(scheduler="sync"):
        res = pbd.compare_many(dd.from_pandas(frame, npartitions=3, sort=False), cols,
                               id="task", baseline="a", runs="samples", metric="maj@3",
                               seed=4, n_resamples=R)
    for got, want in zip(res.comparisons, ref.comparisons):
        assert (got.a, got.b) == (want.a, want.b)
        assert_close([*got.confidence_interval, got.p_adjusted],
                     [*want.confidence_interval, want.p_adjusted])


def test_refusals_before_any_partition_is_read(trials):
    _, frame, cols = trials
    ddf = dd.from_pandas(frame, npartitions=2)
    for kw, param in ((dict(metric="pass^2"), "metric"), (dict(runs="seeds"), "runs"),
                      (dict(runs="samples", metric="f1"), "metric")):
        with pytest.raises(InputError) as err:
            pbd.compare(ddf, cols["a"], cols["b"], id="task", seed=1, **kw)
        assert err.value.param == param and "\n" not in str(err.value)


def test_an_item_with_too_few_trials_names_its_partition_and_id(trials):
    _, frame, cols = trials
    with dask.config.set(scheduler="sync"), pytest.raises(
            InputError, match=r"partition \d.*`a` item 't\d+' has 4 trial\(s\), fewer "
                              "than k = 5"):
        pbd.compare(dd.from_pandas(frame, npartitions=3), cols["a"], cols["b"], id="task",
                    runs="samples", metric="pass^5", seed=1, n_resamples=R)


def long_table(tables, frame):
    """One row per item and trial (a missing trial: no row), the rows shuffled."""
    rows = []
    for i, (task, suite) in enumerate(zip(frame["task"], frame["suite"])):
        row = frame.index[i]
        for j in range(T):
            if not np.isnan(tables["a"][row, j]):
                rows.append((task, f"trial-{j}", suite, tables["a"][row, j],
                             tables["b"][row, j]))
    out = pd.DataFrame(rows, columns=["task", "trial", "suite", "A", "B"])
    return out.sample(frac=1.0, random_state=5)


@pytest.mark.parametrize("npartitions", [1, 5])
def test_a_long_table_gathered_by_id_equals_memory(trials, npartitions):
    tables, frame, _ = trials
    order = frame.index.to_numpy()
    a, b = tables["a"][order], tables["b"][order].copy()
    b[np.isnan(a)] = np.nan  # (a missing trial has no row: for both systems)
    ref = pairboot.compare(a, b, runs="samples", metric="pass^2", ids=frame["task"],
                           strata=frame["suite"], resampling="poisson", seed=6,
                           n_resamples=R)
    long = long_table(tables, frame)
    with dask.config.set(scheduler="sync"):
        res = pbd.compare(dd.from_pandas(long, npartitions=npartitions, sort=False), "A",
                          "B", id="task", run="trial", strata="suite", runs="samples",
                          metric="pass^2", seed=6, n_resamples=R)
    assert (res.n_items, res.n_strata) == (N, 3)
    assert_close(res.bootstrap_distribution, ref.bootstrap_distribution)
    assert_close([*res.confidence_interval, res.p_value],
                 [*ref.confidence_interval, ref.p_value])


def test_a_long_table_refuses_in_one_line(trials):
    tables, frame, _ = trials
    long = long_table(tables, frame)
    twice = pd.concat([long, long.iloc[[3]]])
    task, trial = long.iloc[3]["task"], long.iloc[3]["trial"]
    with dask.config.set(scheduler="sync"), pytest.raises(
            InputError, match=f"item '{task}', run '{trial}' appears twice"):
        pbd.compare(dd.from_pandas(twice, npartitions=3), "A", "B", id="task",
                    run="trial", runs="samples", seed=1, n_resamples=R)
    ddf = dd.from_pandas(long, npartitions=2)
    for kw, param in ((dict(), "run"), (dict(runs="samples", id=None, groups="suite"), "id")):
        with pytest.raises(InputError) as err:
            pbd.compare(ddf, "A", "B", **{"id": "task", **kw}, run="trial", seed=1)
        assert err.value.param == param
    with pytest.raises(InputError, match="one column of scores") as err:
        pbd.compare(ddf, ["A", "B"], "B", id="task", run="trial", runs="samples", seed=1)
    assert err.value.param == "a"

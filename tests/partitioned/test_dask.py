"""pairboot.dask on a real two-process LocalCluster: the in-memory Poisson answer, whatever
the partitioning.

The cluster is started once for the module and closed at its end; every distributed
call has a timeout, since a worker that cannot import pairboot hangs rather than fails.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

import pairboot
from pairboot.errors import InputError

distributed = pytest.importorskip("distributed")
dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")
pbd = pytest.importorskip("pairboot.dask")

pytestmark = pytest.mark.filterwarnings(
    "ignore::pairboot.errors.SmallSampleWarning")  # (few items and resamples, on purpose)

TIMEOUT = 120
R = 300
N = 600


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0", timeout=TIMEOUT) as cluster, \
            distributed.Client(cluster, timeout=TIMEOUT) as c:
        # a worker that cannot import pairboot fails here, within the timeout
        versions = c.run(lambda: __import__("pairboot").__version__)
        assert set(versions.values()) == {pairboot.__version__}
        yield c


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(14)
    a = (rng.random(N) < 0.6).astype(float)
    strata = rng.choice(["news", "chat", "code"], N)
    df = pd.DataFrame({
        "id": [f"q{i}" for i in rng.permutation(N)],
        "a": a,
        "b": np.where(rng.random(N) < 0.8, a, 1 - a),
        "x": rng.normal(size=N),
        "stratum": strata,
        "doc": [f"{s}/{g}" for s, g in zip(strata, rng.integers(0, 50, N))],
    })
    df["y"] = df["x"] + rng.normal(0.1, 0.5, N)
    for side in ("a", "b"):
        for stat in ("tp", "fp", "fn"):
            df[f"{stat}_{side}"] = rng.integers(0, 5, N).astype(float)
    return df


@pytest.mark.slow
@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_compare_equals_in_memory_for_any_partitioning(client, frame, npartitions):
    ref = pairboot.compare(frame["a"], frame["b"], ids=frame["id"], resampling="poisson",
                           seed=3, n_resamples=R)
    ddf = dd.from_pandas(frame, npartitions=npartitions)
    res = pbd.compare(ddf, "a", "b", id="id", seed=3, n_resamples=R, timeout=TIMEOUT)
    np.testing.assert_array_equal(res.bootstrap_distribution, ref.bootstrap_distribution)
    assert res.confidence_interval == ref.confidence_interval
    assert (res.p_value, res.n_items, res.seed) == (ref.p_value, ref.n_items, 3)


@pytest.mark.slow
@pytest.mark.parametrize("offset", [0.0, 1e9])
def test_real_valued_scores_agree_to_rounding_whatever_their_level(client, frame, offset):
    """What docs/distributed.md states: every resampled difference within 1e-12 of the
    bootstrap standard deviation, also when both systems carry a level of 1e9."""
    x, y = frame["x"] + offset, frame["y"] + offset
    ref = pairboot.compare(x, y, ids=frame["id"], resampling="poisson", seed=3,
                           n_resamples=R)
    data = frame.assign(x=x, y=y)
    res = pbd.compare(dd.from_pandas(data, npartitions=7), "x", "y", id="id", seed=3,
                      n_resamples=R, timeout=TIMEOUT)
    sd = float(np.std(ref.bootstrap_distribution))
    np.testing.assert_allclose(res.bootstrap_distribution, ref.bootstrap_distribution,
                               rtol=0, atol=1e-12 * sd)


@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_groups_and_strata_to_rounding(client, frame, npartitions):
    ref = pairboot.compare(frame["x"], frame["y"], ids=frame["id"], groups=frame["doc"],
                           strata=frame["stratum"], resampling="poisson", seed=4,
                           n_resamples=R, method="basic")
    shuffled = frame.sample(frac=1.0, random_state=1)
    res = pbd.compare(dd.from_pandas(shuffled, npartitions=npartitions, sort=False), "x",
                      "y", id="id", groups="doc", strata="stratum", seed=4, n_resamples=R,
                      method="basic", timeout=TIMEOUT)
    scale = np.abs(ref.bootstrap_distribution).max()
    np.testing.assert_allclose(res.bootstrap_distribution, ref.bootstrap_distribution,
                               rtol=1e-12, atol=1e-12 * scale)
    np.testing.assert_allclose(res.confidence_interval, ref.confidence_interval, rtol=1e-12)
    assert (res.n_groups, res.n_strata) == (ref.n_groups, ref.n_strata)


def test_compare_many_with_f1_columns(client, frame):
    cols = {side: [f"{s}_{side}" for s in ("tp", "fp", "fn")] for side in ("a", "b")}
    ref = pairboot.compare_many(
        {"a": frame[cols["a"]].to_numpy(), "b": frame[cols["b"]].to_numpy()}, metric="f1",
        ids=frame["id"], strata=frame["stratum"], resampling="poisson", seed=5,
        n_resamples=R)
    res = pbd.compare_many(dd.from_pandas(frame, npartitions=3), cols, id="id",
                           strata="stratum", metric="f1", seed=5, n_resamples=R,
                           timeout=TIMEOUT)
    [got], [want] = res.comparisons, ref.comparisons
    assert got.confidence_interval == want.confidence_interval
    assert got.p_value == want.p_value and res.systems == ref.systems


def test_pass_k_of_trial_columns_on_the_cluster(client, frame):
    """A k-trial metric's parts travel between worker processes (they pickle) and give
    the in-memory answer to rounding (tests/partitioned/test_dask_trials.py: the rest)."""
    rng = np.random.default_rng(36)
    trials = (rng.random((N, 4)) < frame["a"].to_numpy()[:, None] * 0.5 + 0.3).astype(float)
    data = frame.assign(**{f"t{j}": trials[:, j] for j in range(4)})
    cols_a, cols_b = ["a", "t0"], ["t1", "t2", "t3"]  # (two and three trials an item)
    ref = pairboot.compare(data[cols_a].to_numpy(), data[cols_b].to_numpy(),
                           runs="samples", metric="pass^2", ids=frame["id"],
                           resampling="poisson", seed=7, n_resamples=R)
    res = pbd.compare(dd.from_pandas(data, npartitions=3), cols_a, cols_b, id="id",
                      runs="samples", metric="pass^2", seed=7, n_resamples=R,
                      timeout=TIMEOUT)
    assert res.metric == "pass^2"
    np.testing.assert_allclose(res.confidence_interval, ref.confidence_interval,
                               rtol=1e-12)


def test_parts_computed_with_a_timeout(client, frame):
    from pairboot.partitioned.parts import finish  # noqa: PLC0415
    total = pbd.parts(dd.from_pandas(frame, npartitions=4), {"a": "a", "b": "b"}, id="id",
                      n_resamples=R, seed=6)
    part = client.compute(total).result(timeout=TIMEOUT)
    assert part.n_items == N and part.checksum[0] == N
    ref = pairboot.compare(frame["a"], frame["b"], ids=frame["id"], resampling="poisson",
                           seed=6, n_resamples=R)
    assert finish(part).confidence_interval == ref.confidence_interval


def test_an_id_on_two_rows_of_different_partitions_is_refused(client, frame):
    doubled = pd.concat([frame, frame.iloc[[0, 1]]], ignore_index=True)
    with pytest.raises(InputError, match="2 id\\(s\\) of column 'id' are on more than one"):
        pbd.compare(dd.from_pandas(doubled, npartitions=3), "a", "b", id="id", seed=1,
                    n_resamples=R, timeout=TIMEOUT)


@pytest.mark.slow
def test_a_bad_value_names_its_partition_row_and_index(client, frame):
    """A missing score or a text in a partition: the column, the partition, its row
    there and the row's index label (the global row of a default index)."""
    n = len(frame)
    row = n - 7  # in the last partition
    for bad in (np.nan, "abc"):
        data = frame.astype({"a": object}) if isinstance(bad, str) else frame.copy()
        data.loc[row, "a"] = bad
        ddf = dd.from_pandas(data, npartitions=3)
        with pytest.raises(InputError) as err:
            pbd.compare(ddf, "a", "b", id="id", seed=1, n_resamples=R, timeout=TIMEOUT)
        offset = len(ddf.partitions[:2].compute())  # the rows of the first two
        message = str(err.value)
        assert "column 'a'" in message and "partition 2" in message
        assert f"its row {row - offset}" in message and f"(index {row})" in message
        assert ("'abc' is not a number" if isinstance(bad, str) else "nan") in message


def test_refusals_before_any_partition_is_read(frame):
    ddf = dd.from_pandas(frame, npartitions=2)
    with pytest.raises(InputError, match="not available on partitioned data"):
        pbd.compare(ddf, "a", "b", method="bca", seed=1)
    with pytest.raises(InputError, match="no column 'nope'") as err:
        pbd.compare(ddf, "a", "nope", seed=1)
    assert err.value.param == "b"
    with pytest.raises(InputError, match="`id` is required"):
        pbd.compare(ddf, "a", "b", id=None, seed=1)
    with pytest.raises(InputError, match="`baseline`"):
        pbd.compare_many(ddf, ["a", "b"], baseline="c", seed=1)


def test_without_dask_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask", None)
    ddf = pd.DataFrame({"id": [1, 2], "a": [0.1, 0.2], "b": [0.3, 0.4]})
    with pytest.raises(ImportError, match=r'pip install "pairboot\[dask\]"'):
        pbd.compare(ddf, "a", "b", seed=1)  # (the public call, before any dask is needed)


@pytest.mark.slow
def test_local_scheduler_without_a_client(monkeypatch, frame):
    import dask  # noqa: PLC0415

    def no_client():
        raise ValueError("No clients found")

    monkeypatch.setattr(distributed, "default_client", no_client)
    ref = pairboot.compare(frame["a"], frame["b"], ids=frame["id"], resampling="poisson",
                           seed=8, n_resamples=R)
    with dask.config.set(scheduler="threads"):
        res = pbd.compare(dd.from_pandas(frame, npartitions=3), "a", "b", id="id", seed=8,
                          n_resamples=R)
    np.testing.assert_array_equal(res.bootstrap_distribution, ref.bootstrap_distribution)

"""A family's permutation test (Westfall-Young) on parts of the data: parts added by
hand, a file read in chunks, Dask partitions and ``--stream`` on the command line.

Reference: ``pairboot.compare_many(scores, ids=..., resampling="poisson", seed=S,
test="permutation")`` on the whole data in memory.  A unit's relabelling depends on the
seed, its key and the permutation only, so every part's sums of its relabelled rows add
up to the in-memory ones whatever the split and the row order: each row's p-values (a
count) are equal, the statistics equal to rounding.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import assert_one_line_error, run_in_process

import pairboot
from pairboot.partitioned import finish_many, merge, part_from_arrays

pytestmark = pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")

N, SEED, R = 240, 13, 999
_rng = np.random.default_rng(31)
_BASE = _rng.random(N)
SCORES = {"base": np.round(_BASE, 4),
          "v1": np.round(_BASE + _rng.normal(0.025, 0.12, N), 4),
          "v2": np.round(_BASE + _rng.normal(0.0, 0.12, N), 4),
          "v3": np.round(_BASE + _rng.normal(0.01, 0.12, N), 4)}
F1 = {name: np.clip(_rng.integers(0, 4, (N, 3)) + j * (_rng.random((N, 3)) < 0.1), 0, None
                    ).astype(float) for j, name in enumerate(("x", "y", "z"))}
IDS = np.array([f"q{i}" for i in range(N)])
GROUPS = np.array([f"doc{g}" for g in _rng.integers(0, 60, N)])
STRATA = np.array(["news", "chat"])[np.array([int(g[3:]) % 2 for g in GROUPS])]
KW = {"seed": SEED, "n_resamples": R}


def memory(scores=SCORES, **extra):
    return pairboot.compare_many(scores, ids=IDS, resampling="poisson", test="permutation",
                                 **KW, **extra)


def added(scores, n_parts, *, family=None, metric="mean", **columns):
    """finish_many of ``n_parts`` parts of the rows in a shuffled order."""
    cuts = np.array_split(np.random.default_rng(n_parts).permutation(N), n_parts)
    parts = [part_from_arrays({k: v[c] for k, v in scores.items()}, ids=IDS[c],
                              test="permutation", metric=metric, **KW,
                              **{k: v[c] for k, v in columns.items()}) for c in cuts]
    return finish_many(merge(parts), **(family or {}))


def same_family_test(got, want):
    """Every row's own and adjusted p (counts over R + 1) equal; the global test too."""
    rows = [(c.a, c.b, c.test_p_value, c.test_p_adjusted) for c in want.comparisons]
    assert [(c.a, c.b, c.test_p_value, c.test_p_adjusted) for c in got.comparisons] == rows
    assert any(0.02 < c.test_p_adjusted < 0.98 for c in want.comparisons)  # (p's that move)
    assert got.test.p_value == want.test.p_value
    assert got.test.statistic == pytest.approx(want.test.statistic, rel=1e-9, abs=1e-12)
    np.testing.assert_allclose(got.test.null_distribution, want.test.null_distribution,
                               rtol=1e-9, atol=1e-12)
    assert not got.test.exact and "never enumerated" in got.test.method


@pytest.mark.parametrize("n_parts", [1, 3, 7])
def test_parts_added_by_hand_give_the_in_memory_family_test(n_parts):
    same_family_test(added(SCORES, n_parts), memory())
    same_family_test(added(SCORES, n_parts, family={"baseline": "base"}),
                     memory(baseline="base"))


@pytest.mark.parametrize("n_parts", [1, 3, 7])
def test_groups_across_parts_strata_and_a_pooled_metric(n_parts):
    # (a group's items in several parts relabel as one: its key is its label)
    same_family_test(added(SCORES, n_parts, groups=GROUPS, strata=STRATA),
                     memory(groups=GROUPS, strata=STRATA))
    same_family_test(added(F1, n_parts, metric="f1", strata=STRATA),
                     memory(F1, metric="f1", strata=STRATA))


def test_a_family_of_two_on_parts_is_the_two_system_test():
    two = {k: SCORES[k] for k in ("base", "v1")}
    got = added(two, 3)
    want = pairboot.compare(two["base"], two["v1"], ids=IDS, resampling="poisson",
                            test="permutation", **KW).test
    assert got.comparisons[0].test_p_value == want.p_value


def _write(path, header, rows):
    path.write_text(header + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows))
    return str(path)


def test_a_file_in_chunks_and_the_command_line(tmp_path):
    order = np.random.default_rng(5).permutation(N)
    path = _write(tmp_path / "four.csv", "id," + ",".join(SCORES),
                  [(IDS[i], *(v[i] for v in SCORES.values())) for i in order])
    got = pairboot.compare_files([path], systems={k: k for k in SCORES}, id="id",
                                 chunk_rows=37, test="permutation", **KW)
    same_family_test(got, memory())
    args = ["compare", path, "--systems", ",".join(SCORES), "--id", "id", "--resamples",
            str(R), "--seed", str(SEED), "--resampling", "poisson", "--format", "json"]
    streamed = run_in_process(*args, "--test", "permutation", "--stream")
    in_memory = run_in_process(*args, "--test", "permutation")
    assert streamed.returncode == 0 and in_memory.returncode == 0, streamed.stderr
    rows = [c["test_p_adjusted"] for c in json.loads(streamed.stdout)["comparisons"]]
    assert rows == [c["test_p_adjusted"] for c in json.loads(in_memory.stdout)["comparisons"]]
    assert rows == [c.test_p_adjusted for c in memory().comparisons]
    assert_one_line_error(run_in_process(*args, "--stream", "--test", "mcnemar"),
                          "compares two systems")


@pytest.mark.slow  # (importing dask.dataframe takes about 2 s)
@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_dask_partitions_give_the_in_memory_family_test(npartitions):
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    pbd = pytest.importorskip("pairboot.dask")
    order = np.random.default_rng(npartitions).permutation(N)
    frame = pd.DataFrame({"id": IDS[order], "doc": GROUPS[order],
                          **{k: v[order] for k, v in SCORES.items()}})
    ddf = dd.from_pandas(frame, npartitions=npartitions, sort=False)
    with dask.config.set(scheduler="synchronous"):
        got = pbd.compare_many(ddf, list(SCORES), id="id", test="permutation", **KW)
        same_family_test(got, memory())
        got = pbd.compare_many(ddf, list(SCORES), id=None, groups="doc", baseline="base",
                               test="permutation", **KW)
        want = pairboot.compare_many(SCORES, groups=GROUPS, resampling="poisson",
                                     baseline="base", test="permutation", **KW)
        same_family_test(got, want)

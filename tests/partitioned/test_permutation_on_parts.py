"""The tests beside the interval on parts of the data (issue 25): the permutation test
and McNemar's from parts added by hand, files read in chunks (one file, and a file per
system side by side), Dask partitions and ``--stream`` on the command line.

Reference: ``pairboot.compare(a, b, ids=..., resampling="poisson", seed=S, test=...)`` on
the whole data in memory.  The swap of a unit depends on the seed, its key and the
permutation only, so the parts' swapped sums add up to the in-memory ones whatever the
split and the order of the rows: the p-value (a count) is equal, the statistic equal to
rounding.  More than 20 units throughout: in memory 20 or fewer are enumerated, which
parts never do.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import assert_one_line_error, run_in_process

import pairboot
from pairboot.errors import InputError
from pairboot.partitioned import finish, finish_many, merge, part_from_arrays
from pairboot.partitioned.part_tests import ON_PARTS

pytestmark = pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")

N = 240
SEED = 11
R = 999
_rng = np.random.default_rng(25)
A = np.round(_rng.random(N), 4)
B = np.round(A + _rng.normal(0.012, 0.15, N), 4)  # (p near 0.2: neither 0 nor 1)
IDS = np.array([f"q{i}" for i in range(N)])
GROUPS = np.array([f"doc{g}" for g in _rng.integers(0, 40, N)])
STRATA = np.array(["news", "chat", "code"])[_rng.integers(0, 3, N)]
F1_A = _rng.integers(0, 4, (N, 3)).astype(float)
F1_B = np.clip(F1_A + _rng.integers(-1, 2, (N, 3)) * (_rng.random((N, 3)) < 0.3), 0, None)
A01 = (_rng.random(N) < 0.6).astype(float)
B01 = np.where(_rng.random(N) < 0.85, A01, 1 - A01)
KW = {"seed": SEED, "n_resamples": R}

CASES = {
    "mean": dict(a=A, b=B),
    "f1": dict(a=F1_A, b=F1_B, metric="f1"),
    "groups": dict(a=A, b=B, groups=GROUPS),
    "strata": dict(a=A, b=B, strata=STRATA),
    "f1 strata": dict(a=F1_A, b=F1_B, metric="f1", strata=STRATA),
}


def memory(case, test="permutation", **extra):
    c = dict(CASES[case])
    return pairboot.compare(c.pop("a"), c.pop("b"), ids=IDS, resampling="poisson",
                            test=test, **KW, **c, **extra).test


def parts_of(case, n_parts, order, test="permutation"):
    c = dict(CASES[case])
    a, b = c.pop("a"), c.pop("b")
    cuts = np.linspace(0, N, n_parts + 1).astype(int)
    parts = []
    for i, j in zip(cuts, cuts[1:]):
        rows = order[i:j]
        keywords = {k: v[rows] for k, v in c.items() if k in ("groups", "strata")}
        if "metric" in c:
            keywords["metric"] = c["metric"]
        parts.append(part_from_arrays({"A": a[rows], "B": b[rows]}, ids=IDS[rows],
                                      test=test, **KW, **keywords))
    return parts


def same_test(got, want):
    assert got.p_value == want.p_value  # (a count over R + 1)
    assert 0.02 < want.p_value < 0.98 or want.name == "mcnemar"  # (a p that can move)
    assert got.statistic == pytest.approx(want.statistic, rel=1e-12, abs=1e-15)
    np.testing.assert_allclose(np.sort(got.null_distribution),
                               np.sort(want.null_distribution), rtol=1e-9, atol=1e-12)
    assert (got.name, got.alternative, got.n, got.exact) == (
        want.name, want.alternative, want.n, want.exact)


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("n_parts", [1, 3, 7])
def test_parts_in_any_order_give_the_in_memory_permutation_test(case, n_parts):
    order = np.random.default_rng(n_parts).permutation(N)
    got = finish(merge(parts_of(case, n_parts, order)))
    want = memory(case)
    same_test(got.test, want)
    # the same words, and that parts never enumerate the swaps
    assert got.test.method == want.method.replace(", each unit's", ON_PARTS + ", each unit's")
    # the bootstrap beside it is the in-memory one too
    full = dict(CASES[case])
    base = pairboot.compare(full.pop("a"), full.pop("b"), ids=IDS, resampling="poisson",
                            **KW, **full)
    assert got.p_value == pytest.approx(base.p_value, rel=1e-9)


@pytest.mark.parametrize("side", ["greater", "less"])
def test_one_sided_permutation_tests_on_parts(side):
    order = np.random.default_rng(5).permutation(N)
    got = finish(merge(parts_of("mean", 3, order)), alternative=side).test
    same_test(got, memory("mean", alternative=side))


def test_a_group_spread_over_parts_swaps_as_one():
    order = np.argsort(IDS)  # (rows in id order: most groups lie in several parts)
    parts = parts_of("groups", 7, order)
    spread = sum(len(set(GROUPS[order[i:j]]) & set(GROUPS[order[j:]]))
                 for i, j in zip(range(0, N, N // 7), range(N // 7, N, N // 7)))
    assert spread > 10
    got = finish(merge(parts)).test
    same_test(got, memory("groups"))
    assert got.n == len(set(GROUPS))


@pytest.mark.parametrize("backend", ["numpy", "numba"])
def test_the_kernels_give_the_same_swaps(backend):
    pytest.importorskip(backend)
    order = np.random.default_rng(12).permutation(N)
    cuts = (0, 100, N)
    parts = [part_from_arrays({"A": F1_A[order[i:j]], "B": F1_B[order[i:j]]},
                              ids=IDS[order[i:j]], strata=STRATA[order[i:j]], metric="f1",
                              test="permutation", backend=backend, **KW)
             for i, j in zip(cuts, cuts[1:])]
    same_test(finish(merge(parts)).test, memory("f1 strata"))


def test_a_system_constant_over_every_item():
    """A column constant over all items is taken as the value times the swaps' count,
    as in memory (here every statistic of A's pooled F1)."""
    a = np.tile([3.0, 2.0, 4.0], (N, 1))  # (F1 = 0.5, near B's)
    b = F1_A
    want = pairboot.compare(a, b, ids=IDS, metric="f1", resampling="poisson",
                            test="permutation", **KW).test
    cuts = (0, 50, 51, 170, N)
    got = finish(merge([part_from_arrays({"A": a[i:j], "B": b[i:j]}, ids=IDS[i:j],
                                         metric="f1", test="permutation", **KW)
                        for i, j in zip(cuts, cuts[1:])])).test
    same_test(got, want)


def test_parts_never_enumerate_even_a_few_units():
    a, b, ids = A[:12], B[:12], IDS[:12]
    want = pairboot.compare(a, b, ids=ids, resampling="poisson", test="permutation",
                            **KW).test
    got = finish(merge([part_from_arrays({"A": a[:5], "B": b[:5]}, ids=ids[:5],
                                         test="permutation", **KW),
                        part_from_arrays({"A": a[5:], "B": b[5:]}, ids=ids[5:],
                                         test="permutation", **KW)])).test
    assert want.exact and len(want.null_distribution) == 2 ** 12
    assert not got.exact and len(got.null_distribution) == R
    assert "never enumerated" in got.method
    assert got.statistic == pytest.approx(want.statistic, rel=1e-12)


def test_mcnemar_from_parts_is_the_in_memory_test():
    want = pairboot.compare(A01, B01, ids=IDS, resampling="poisson", test="mcnemar",
                            **KW).test
    cuts = (0, 1, 100, 170, N)
    order = np.random.default_rng(2).permutation(N)
    parts = [part_from_arrays({"A": A01[order[i:j]], "B": B01[order[i:j]]},
                              ids=IDS[order[i:j]], test="mcnemar", **KW)
             for i, j in zip(cuts, cuts[1:])]
    got = finish(merge(parts)).test
    assert got == want
    assert got.table.discordant > 10 and got.p_value < 1


def test_a_part_with_a_score_not_0_or_1_names_its_id():
    with pytest.raises(InputError) as info:
        part_from_arrays({"A": [1.0, 0.0, 0.5], "B": [1.0, 1.0, 0.0]}, ids=["x", "y", "z"],
                         test="mcnemar", **KW)
    assert info.value.param == "test"
    assert "id 'z' scores 0.5" in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("extra, words", [
    ({"groups": ["g1", "g1", "g2"]}, "it takes the items as independent"),
    ({"strata": ["s", "s", "t"]}, "it pools the items"),
])
def test_mcnemar_parts_refuse_what_memory_refuses(extra, words):
    with pytest.raises(InputError, match=words):
        part_from_arrays({"A": [1.0, 0.0, 1.0], "B": [1.0, 1.0, 0.0]}, ids=["x", "y", "z"],
                         test="mcnemar", **KW, **extra)


def test_parts_of_different_tests_refuse_to_merge():
    one = {"A": A[:5], "B": B[:5]}, IDS[:5]
    two = {"A": A01[5:9], "B": B01[5:9]}, IDS[5:9]
    for first, second in ((None, "permutation"), ("permutation", "mcnemar")):
        p = part_from_arrays(one[0], ids=one[1], test=first, **KW)
        q = part_from_arrays(two[0], ids=two[1], test=second, **KW)
        with pytest.raises(InputError, match="differ in `test`"):
            merge([p, q])


def test_an_empty_part_carries_the_test_and_adds_nothing():
    empty = part_from_arrays({"A": [], "B": []}, ids=[], test="permutation", **KW)
    whole = part_from_arrays({"A": A, "B": B}, ids=IDS, test="permutation", **KW)
    assert empty.test == "permutation"
    same_test(finish(merge([empty, whole, empty])).test, memory("mean"))
    with pytest.raises(InputError, match="differ in `test`"):
        merge([part_from_arrays({"A": [], "B": []}, ids=[], **KW), whole])
    with pytest.raises(InputError, match="it takes the items as independent"):
        part_from_arrays({"A": [], "B": []}, groups=[], test="mcnemar", **KW)


def test_what_parts_cannot_test_is_refused():
    part = part_from_arrays({"A": A, "B": B}, ids=IDS, test="permutation", **KW)
    with pytest.raises(InputError, match="tests for a difference, not a margin"):
        finish(part, hypothesis="non-inferiority", margin=0.01)
    # (a family of the two: compare()'s test, read off the same swapped sums)
    assert finish_many(part).comparisons[0].test_p_value == finish(part).test.p_value
    with pytest.raises(InputError, match="`test='mcnemar'` compares two systems"):
        part_from_arrays({"A": A01, "B": B01, "C": A01}, ids=IDS, test="mcnemar", **KW)
    with pytest.raises(InputError, match="`test` must be None or one of"):
        part_from_arrays({"A": A, "B": B}, ids=IDS, test="wilcoxon", **KW)
    with pytest.raises(InputError, match="a part of one system holds one score"):
        part_from_arrays({"A": A01}, ids=IDS, test="mcnemar", **KW)


def test_files_and_dask_refuse_before_reading(tmp_path):
    missing = str(tmp_path / "not-there.csv")  # (refused before any file is opened)
    with pytest.raises(InputError, match="it takes the items as independent"):
        pairboot.compare_files([missing], a="a", b="b", group="doc", test="mcnemar", **KW)
    with pytest.raises(InputError, match="tests for a difference, not a margin"):
        pairboot.compare_files([missing], a="a", b="b", test="permutation",
                               hypothesis="superiority", margin=0.01, **KW)
    import pairboot.dask as pbd  # (no Dask needed to refuse)

    with pytest.raises(InputError, match="it pools the items"):
        pbd.compare(None, "a", "b", strata="s", test="mcnemar", **KW)
    with pytest.raises(InputError, match="`test='mcnemar'` compares two systems"):
        pbd.compare_many(None, ["a", "b", "c"], test="mcnemar", **KW)


def _write(path, header, rows):
    path.write_text(header + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows))
    return str(path)


def test_a_file_in_chunks_gives_the_in_memory_tests(tmp_path):
    order = np.random.default_rng(3).permutation(N)
    one = _write(tmp_path / "one.csv", "id,a,b,a01,b01",
                 [(IDS[i], A[i], B[i], int(A01[i]), int(B01[i])) for i in order])
    got = pairboot.compare_files([one], a="a", b="b", id="id", chunk_rows=37,
                                 test="permutation", **KW)
    same_test(got.test, memory("mean"))
    got = pairboot.compare_files([one], a="a01", b="b01", id="id", chunk_rows=37,
                                 test="mcnemar", **KW)
    assert got.test == pairboot.compare(A01, B01, ids=IDS, resampling="poisson",
                                        test="mcnemar", **KW).test


def test_f1_groups_and_strata_in_chunks(tmp_path):
    order = np.random.default_rng(4).permutation(N)
    cols = "id,doc,stratum,tp_a,fp_a,fn_a,tp_b,fp_b,fn_b"
    path = _write(tmp_path / "f1.csv", cols,
                  [(IDS[i], GROUPS[i], STRATA[i], *map(int, F1_A[i]), *map(int, F1_B[i]))
                   for i in order])
    got = pairboot.compare_files([path], a=["tp_a", "fp_a", "fn_a"],
                                 b=["tp_b", "fp_b", "fn_b"], id="id", stratum="stratum",
                                 metric="f1", chunk_rows=50, test="permutation", **KW)
    same_test(got.test, memory("f1 strata"))
    got = pairboot.compare_files([path], a=["tp_a", "fp_a", "fn_a"],
                                 b=["tp_b", "fp_b", "fn_b"], group="doc", metric="f1",
                                 chunk_rows=50, test="permutation", **KW)
    want = pairboot.compare(F1_A, F1_B, groups=GROUPS, metric="f1", resampling="poisson",
                            test="permutation", **KW).test
    same_test(got.test, want)


def test_a_file_per_system_side_by_side(tmp_path):
    fa = _write(tmp_path / "a.csv", "id,score",
                [(IDS[i], A[i]) for i in np.random.default_rng(6).permutation(N)])
    fb = _write(tmp_path / "b.csv", "id,score",
                [(IDS[i], B[i]) for i in np.random.default_rng(7).permutation(N)])
    got = pairboot.compare_files([fa, fb], id="id", chunk_rows=41, test="permutation", **KW)
    same_test(got.test, memory("mean"))
    with pytest.raises(InputError, match="a file per system holds them apart"):
        pairboot.compare_files([fa, fb], id="id", test="mcnemar", **KW)


def test_files_refuse_what_a_family_cannot_test_and_name_a_bad_row(tmp_path):
    path = _write(tmp_path / "three.csv", "id,a,b,c",
                  [(IDS[i], A01[i], B01[i], A01[i]) for i in range(N)])
    with pytest.raises(InputError, match="`test='mcnemar'` compares two systems"):
        pairboot.compare_files([path], systems={"a": "a", "b": "b", "c": "c"}, id="id",
                               test="mcnemar", **KW)
    with pytest.raises(InputError, match="a file per system holds them apart"):
        pairboot.compare_files([path, path, path], id="id", names=["a", "b", "c"],
                               test="permutation", **KW)
    bad = _write(tmp_path / "bad.csv", "id,a,b",
                 [(IDS[i], A01[i] if i != 57 else 2, B01[i]) for i in range(N)])
    with pytest.raises(InputError, match=r"bad.csv, data row 58, scores 2"):
        pairboot.compare_files([bad], a="a", b="b", id="id", chunk_rows=20,
                               test="mcnemar", **KW)


def test_the_command_line_streams_the_test(tmp_path):
    order = np.random.default_rng(8).permutation(N)
    path = _write(tmp_path / "one.csv", "id,a,b",
                  [(IDS[i], A[i], B[i]) for i in order])
    args = ["compare", path, "--a", "a", "--b", "b", "--id", "id", "--resamples", str(R),
            "--seed", str(SEED), "--resampling", "poisson", "--format", "json"]
    streamed = run_in_process(*args, "--test", "permutation", "--stream")
    in_memory = run_in_process(*args, "--test", "permutation")
    assert streamed.returncode == 0 and in_memory.returncode == 0, streamed.stderr
    p = json.loads(streamed.stdout)["test"]["p_value"]
    assert p == json.loads(in_memory.stdout)["test"]["p_value"] == memory("mean").p_value
    assert_one_line_error(run_in_process(*args, "--stream", "--test", "mcnemar"),
                          "needs 0/1 scores", "data row")
    assert_one_line_error(run_in_process(*args, "--stream", "--test", "permutation",
                                         "--hypothesis", "non-inferiority", "--margin",
                                         "0.01"), "tests for a difference")


@pytest.mark.slow  # (importing dask.dataframe takes about 2 s)
@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_dask_partitions_give_the_in_memory_tests(npartitions):
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    pbd = pytest.importorskip("pairboot.dask")
    order = np.random.default_rng(npartitions).permutation(N)
    frame = pd.DataFrame({"id": IDS[order], "a": A[order], "b": B[order],
                          "doc": GROUPS[order], "a01": A01[order], "b01": B01[order],
                          "stratum": STRATA[order]})
    for j, stat in enumerate(("tp", "fp", "fn")):
        frame[f"{stat}_a"], frame[f"{stat}_b"] = F1_A[order, j], F1_B[order, j]
    ddf = dd.from_pandas(frame, npartitions=npartitions, sort=False)
    with dask.config.set(scheduler="synchronous"):
        got = pbd.compare(ddf, "a", "b", id="id", test="permutation", **KW)
        same_test(got.test, memory("mean"))
        got = pbd.compare(ddf, "a", "b", id=None, groups="doc", test="permutation", **KW)
        same_test(got.test, memory("groups"))
        got = pbd.compare(ddf, ["tp_a", "fp_a", "fn_a"], ["tp_b", "fp_b", "fn_b"],
                          id="id", strata="stratum", metric="f1", test="permutation", **KW)
        same_test(got.test, memory("f1 strata"))
        got = pbd.compare(ddf, "a01", "b01", id="id", test="mcnemar", **KW)
        assert got.test == pairboot.compare(A01, B01, ids=IDS, resampling="poisson",
                                            test="mcnemar", **KW).test


@pytest.mark.slow  # (a Dask cluster in this process: a few seconds)
@pytest.mark.filterwarnings("ignore:The inplace keyword:Warning")  # (dask's parquet reader)
def test_files_on_a_dask_cluster_give_the_in_memory_tests(tmp_path):
    distributed = pytest.importorskip("distributed")
    pytest.importorskip("dask.dataframe")
    order = np.random.default_rng(9).permutation(N)
    one = _write(tmp_path / "one.csv", "id,a,b,a01,b01",
                 [(IDS[i], A[i], B[i], int(A01[i]), int(B01[i])) for i in order])
    fa = _write(tmp_path / "a.csv", "id,score", [(IDS[i], A[i]) for i in order])
    fb = _write(tmp_path / "b.csv", "id,score", [(IDS[i], B[i]) for i in order[::-1]])
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=":0") as cluster:
        on = {"scheduler": cluster.scheduler_address, "timeout": 120}
        got = pairboot.compare_files([one], a="a", b="b", id="id", test="permutation",
                                     **on, **KW)
        same_test(got.test, memory("mean"))
        got = pairboot.compare_files([fa, fb], id="id", test="permutation", **on, **KW)
        same_test(got.test, memory("mean"))
        got = pairboot.compare_files([one], a="a01", b="b01", id="id", test="mcnemar",
                                     **on, **KW)
        assert got.test == pairboot.compare(A01, B01, ids=IDS, resampling="poisson",
                                            test="mcnemar", **KW).test

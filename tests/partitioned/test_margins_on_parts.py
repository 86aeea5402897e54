"""A margin's test on parts of the data (files read in chunks, parts added by hand, Dask
partitions) gives the in-memory Poisson answer: the same replicates, interval, p-value
and verdict, for every hypothesis and a family with per-pair margins.

Reference: pairboot.compare / compare_many with resampling="poisson" and the same ids and
seed on the whole data in memory.
"""

from __future__ import annotations

import numpy as np
import pytest

import pairboot
from pairboot.partitioned import finish, finish_many, merge, part_from_arrays

N = 400
_rng = np.random.default_rng(24)
A = np.round(_rng.random(N), 6)
B = np.round(A + _rng.normal(0.01, 0.05, N), 6)
C = np.round(A + _rng.normal(-0.005, 0.05, N), 6)
IDS = np.array([f"q{i}" for i in range(N)])
KW = {"seed": 3, "n_resamples": 400}
CASES = [("non-inferiority", 0.02, False), ("non-inferiority", 0.02, True),
         ("superiority", 0.005, False), ("equivalence", 0.03, False)]


def same(got, want):
    np.testing.assert_allclose(got.bootstrap_distribution, want.bootstrap_distribution,
                               rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(got.confidence_interval, want.confidence_interval,
                               rtol=1e-12, atol=1e-15)
    assert got.p_value == pytest.approx(want.p_value, rel=1e-9, abs=1e-12)
    assert got.verdict() == want.verdict()
    assert (got.hypothesis, got.margin, got.p_values is None) == (
        want.hypothesis, want.margin, want.p_values is None)


@pytest.mark.parametrize("hypothesis, margin, lower", CASES)
def test_parts_added_by_hand_give_the_in_memory_test(hypothesis, margin, lower):
    test = {"hypothesis": hypothesis, "margin": margin, "lower_is_better": lower}
    memory = pairboot.compare(A, B, ids=IDS, resampling="poisson", **KW, **test)
    cuts = (0, 150, 151, 400)  # (1, 3 parts: a one-item part too)
    parts = [part_from_arrays({"A": A[i:j], "B": B[i:j]}, ids=IDS[i:j], **KW)
             for i, j in zip(cuts, cuts[1:])]
    same(finish(merge(parts), **test), memory)


@pytest.mark.parametrize("hypothesis, margin, lower", CASES[:1] + CASES[3:])
def test_a_file_in_chunks_gives_the_in_memory_test(tmp_path, hypothesis, margin, lower):
    path = tmp_path / "one.csv"
    path.write_text("id,a,b\n" + "".join(f"{i},{x},{y}\n" for i, x, y in zip(IDS, A, B)))
    test = {"hypothesis": hypothesis, "margin": margin, "lower_is_better": lower}
    memory = pairboot.compare(A, B, ids=IDS, resampling="poisson", **KW, **test)
    same(pairboot.compare_files([str(path)], a="a", b="b", id="id", chunk_rows=130, **KW,
                                **test), memory)


def test_a_family_with_per_pair_margins_on_parts():
    margins = {("A", "B"): 0.02, ("A", "C"): 0.01}
    test = {"hypothesis": "non-inferiority", "margin": margins, "correction": "bh"}
    memory = pairboot.compare_many({"A": A, "B": B, "C": C}, baseline="A", ids=IDS,
                                   resampling="poisson", **KW, **test)
    parts = [part_from_arrays({"A": A[i:j], "B": B[i:j], "C": C[i:j]}, ids=IDS[i:j], **KW)
             for i, j in ((0, 200), (200, 400))]
    got = finish_many(merge(parts), baseline="A", **test)
    assert got.fcr_level == memory.fcr_level
    for g, w in zip(got.comparisons, memory.comparisons):
        assert (g.b, g.margin, g.verdict, g.significant) == (w.b, w.margin, w.verdict,
                                                             w.significant)
        assert g.p_adjusted == pytest.approx(w.p_adjusted, rel=1e-9, abs=1e-12)


@pytest.mark.slow  # (importing dask.dataframe takes about 2 s)
def test_dask_partitions_give_the_in_memory_test():
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    pbd = pytest.importorskip("pairboot.dask")
    test = {"hypothesis": "equivalence", "margin": 0.03}
    memory = pairboot.compare(A, B, ids=IDS, resampling="poisson", **KW, **test)
    frame = pd.DataFrame({"id": IDS, "a": A, "b": B})
    for npartitions in (1, 3, 7):
        with dask.config.set(scheduler="synchronous"):
            got = pbd.compare(dd.from_pandas(frame, npartitions=npartitions), "a", "b",
                              id="id", **KW, **test)
        same(got, memory)

"""The Poisson bootstrap: its keys and weights as documented, their law, and its answers.

- the key hash and the weights against a pure-Python transcription of the definitions in
  ``pairboot.engine.keys`` and against recorded values (they must never change: a
  distributed run and a local one rely on them);
- the thresholds recomputed with exact rationals; the weights' law (chi-square against
  Poisson(1)), no correlation across replicates or neighbouring keys;
- the numba kernel against the numpy reference (same weights: totals bit for bit), for
  any thread count and batch;
- the exact law of the sums of three units (every weight pattern's frequency);
- answers that do not depend on the order of the rows; agreement with the classic
  bootstrap within Monte Carlo error at large n; refusals and the CLI.
"""

from __future__ import annotations

import json
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from helpers import assert_one_line_error, run_in_process
from scipy import stats

import pairboot
from pairboot.engine import DrawPlan, resample_sums
from pairboot.engine import keys as K
from pairboot.engine.poisson import weight_sums_numpy
from pairboot.errors import InputError, SmallSampleWarning

P_FAIL = 1e-6
M64 = (1 << 64) - 1


# --- the definitions, transcribed from the docstring in plain Python -------------------------


def _mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def _key(text: str) -> int:
    data = text.encode("utf-8")
    h = _mix((0x70616972626F6F74 + len(data)) & M64)
    padded = data + b"\0" * (-len(data) % 8)
    for i in range(0, len(padded), 8):
        h = _mix(h ^ int.from_bytes(padded[i : i + 8], "little"))
    return h


def _weight(key: int, word: int, r: int) -> int:
    z = _mix(key ^ word)
    v = _mix((z + (r + 1) * 0x9E3779B97F4A7C15) & M64)
    return sum(v >= int(t) for t in K.POISSON_THRESHOLDS)


IDS = ["", "q1", "doc-17/seg 3", "é", "x" * 17, "a\0"]


def test_keys_follow_the_documented_hash():
    got = K.id_keys(IDS)
    assert [int(v) for v in got] == [_key(t) for t in IDS]
    ints = np.array([0, 17, -1, -(2**63), 2**63 - 1, 1234567890123])
    assert [int(v) for v in K.id_keys(ints)] == [_key(str(v)) for v in ints.tolist()]
    # the same id as a number and as text: one key (a CSV and a JSONL reader may differ)
    np.testing.assert_array_equal(K.id_keys(ints), K.id_keys([str(v) for v in ints.tolist()]))
    np.testing.assert_array_equal(K.id_keys(np.array([3.0, -2.0])), K.id_keys(["3", "-2"]))
    np.testing.assert_array_equal(K.id_keys(np.array([2**64 - 1], dtype=np.uint64)),
                                  K.id_keys([str(2**64 - 1)]))
    np.testing.assert_array_equal(K.position_keys(5, 3), K.id_keys(["5", "6", "7"]))


def test_keys_and_weights_are_pinned():
    """Recorded when the definitions were written: changing them changes every answer."""
    assert [hex(int(v)) for v in K.id_keys(IDS[:5])] == [
        "0x39240d66b92bc81b", "0x15962e75421d51c0", "0x2f4c4db32b8a0f4d",
        "0x6c2faa0d1a9a9606", "0xce4130870f526e30"]
    assert hex(int(K.seed_word(0))) == "0xcf2bf430bea52629"
    assert hex(int(K.seed_word(0, 1))) == "0xea3ec1def91ad480"
    w = K.poisson_weights(K.id_keys(["q1", "q2", "q3"]), K.seed_word(0), np.arange(8))
    assert w.T.tolist() == [[1, 2, 1, 1, 0, 0, 2, 0], [0, 0, 1, 1, 2, 0, 1, 1],
                            [0, 0, 1, 1, 0, 0, 0, 1]]
    keys = K.id_keys(["q1", "q2", "q3"])
    word = int(K.seed_word(0))
    assert [[_weight(int(k), word, r) for r in range(8)] for k in keys] == w.T.tolist()


def test_text_keys_of_mixed_lengths():
    """Short ids around one very long one, in Arrow's layout with offsets that do not
    start at 0: every key is the documented hash (the long one recorded as well)."""
    rng = np.random.default_rng(7)
    long_id = "é" * 1000 + "z"  # 2,001 bytes
    texts = [IDS[i % len(IDS)] + "y" * int(rng.integers(0, 20)) for i in range(300)]
    texts.insert(137, long_id)
    encoded = [t.encode("utf-8") for t in texts]
    data = np.frombuffer(b"pad" + b"".join(encoded) + b"tail", dtype=np.uint8)
    offsets = 3 + np.concatenate([[0], np.cumsum([len(e) for e in encoded])])
    got = K.text_keys(offsets, data)
    assert [int(v) for v in got] == [_key(t) for t in texts]
    assert hex(int(got[137])) == "0x699cfd694fdf1ebf"
    np.testing.assert_array_equal(K.id_keys(texts), got)
    assert K.text_keys(np.zeros(1, dtype=np.int64), data).shape == (0,)


@pytest.mark.parametrize("bad", [[1.5], [True], [None], [float("nan")], [b"x", object()]])
def test_keys_refuse_what_is_not_an_id(bad):
    with pytest.raises(ValueError, match="text or integers"):
        K.id_keys(np.array(bad, dtype=object) if len(bad) > 1 else bad)


def test_thresholds_are_the_poisson_cdf():
    e_inv = sum(Fraction((-1) ** j, math.factorial(j)) for j in range(60))
    cdf = Fraction(0)
    for j, t in enumerate(K.POISSON_THRESHOLDS.tolist()):
        cdf += e_inv / math.factorial(j)
        assert t == math.ceil(cdf * 2**64), j
    assert math.ceil((cdf + e_inv / math.factorial(20)) * 2**64) == 2**64


# --- the weights' law --------------------------------------------------------------------


def test_weights_are_poisson_and_independent():
    keys = K.position_keys(0, 20_000)
    w = K.poisson_weights(keys, K.seed_word(3), np.arange(50)).astype(np.int64)
    counts = np.bincount(w.ravel(), minlength=21)
    pmf = stats.poisson.pmf(np.arange(21), 1.0)
    # pool the tail (expected counts below 5) into one cell
    cut = int(np.flatnonzero(pmf * w.size >= 5)[-1])
    observed = np.append(counts[:cut], counts[cut:].sum())
    expected = np.append(pmf[:cut], 1 - pmf[:cut].sum()) * w.size
    assert stats.chisquare(observed, expected).pvalue > P_FAIL
    # no correlation between consecutive replicates, or between neighbouring keys
    z = 5.0 / math.sqrt(w.size)
    assert abs(np.corrcoef(w[:-1].ravel(), w[1:].ravel())[0, 1]) < z
    assert abs(np.corrcoef(w[:, :-1].ravel(), w[:, 1:].ravel())[0, 1]) < z
    # another salt: independent weights for the same keys
    w2 = K.poisson_weights(keys, K.seed_word(3, 1), np.arange(50)).astype(np.int64)
    assert abs(np.corrcoef(w.ravel(), w2.ravel())[0, 1]) < z


def test_exact_law_of_three_units():
    """Every weight pattern (w1, w2, w3) of three units, read off the sums of x = (1, 32,
    1024) (weights below 32 are recovered exactly), against the product of Poisson pmfs."""
    x = np.array([[1.0], [32.0], [1024.0]])
    plan = DrawPlan.from_columns(np.hstack([x, np.ones((3, 1))]), [0], [3],
                                 keys=K.id_keys(["a", "b", "c"]))
    R = 40_000
    sums, _ = resample_sums(plan, R, 11, scheme="poisson", backend="numpy")
    s = sums[:, 0, 0].astype(np.int64)
    w = np.stack([s % 32, (s // 32) % 32, s // 1024], axis=1)
    np.testing.assert_array_equal(w.sum(axis=1), sums[:, 0, 1])  # the count column: sum w
    pattern = w[:, 0] * 10_000 + w[:, 1] * 100 + w[:, 2]
    patterns, counts = np.unique(pattern, return_counts=True)
    p = (stats.poisson.pmf(patterns // 10_000, 1) * stats.poisson.pmf(patterns // 100 % 100, 1)
         * stats.poisson.pmf(patterns % 100, 1))
    big = p * R >= 5
    observed = np.append(counts[big], R - counts[big].sum())
    expected = np.append(p[big], 1 - p[big].sum()) * R
    assert stats.chisquare(observed, expected).pvalue > P_FAIL


# --- kernels --------------------------------------------------------------------------------


def test_numba_kernel_gives_the_reference_weights():
    pytest.importorskip("numba")
    import numba  # noqa: PLC0415

    from pairboot.engine import poisson_kernels  # noqa: PLC0415

    rng = np.random.default_rng(4)
    x = rng.normal(size=(3000, 3)) * [1.0, 1000.0, 1e-3]
    keys = K.id_keys([f"u{i}" for i in range(3000)])
    starts, sizes = np.array([0, 10, 10, 1500]), np.array([10, 0, 1490, 1500])
    words = np.array([K.seed_word(9, s) for s in (0, 0, 1, 0)], dtype=np.uint64)
    ref, ref_t = np.empty((130, 4, 3)), np.empty((130, 4))
    weight_sums_numpy(x, keys, starts, sizes, words, 70, 200, ref, ref_t)
    before = numba.get_num_threads()
    results = []
    try:
        for threads in (1, 2):
            numba.set_num_threads(threads)
            for cut in (70, 71, 134, 200):  # batches starting anywhere
                out, tot = np.empty((130, 4, 3)), np.empty((130, 4))
                poisson_kernels.weight_sums(x, keys, starts, sizes, words, 70, cut,
                                            out[: cut - 70], tot[: cut - 70])
                poisson_kernels.weight_sums(x, keys, starts, sizes, words, cut, 200,
                                            out[cut - 70 :], tot[cut - 70 :])
                results.append(out)
                np.testing.assert_array_equal(tot, ref_t)
                np.testing.assert_allclose(out, ref, rtol=1e-12, atol=1e-9)
    finally:
        numba.set_num_threads(before)
    for other in results[1:]:
        np.testing.assert_array_equal(other, results[0])


# --- answers ------------------------------------------------------------------------------


def _data(n, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.random(n)
    return a, a + rng.normal(0.02, 0.1, n)


@pytest.mark.filterwarnings("ignore::pairboot.errors.SmallSampleWarning")
def test_answer_does_not_depend_on_the_order_of_rows():
    a, b = _data(600)
    ids = np.array([f"q{i}" for i in range(600)])
    groups = np.repeat(np.arange(150), 4)
    strata = np.tile(["x", "y", "z"], 200)
    perm = np.random.default_rng(1).permutation(600)
    for kw in ({}, {"groups": groups}, {"strata": strata},
               {"groups": groups, "strata": np.repeat(["x", "y"], 300)},
               {"method": "studentized"}, {"method": "bca"}):
        kw_perm = {k: (v[perm] if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
        r1 = pairboot.compare(a, b, ids=ids, resampling="poisson", seed=5, **kw)
        r2 = pairboot.compare(a[perm], b[perm], ids=ids[perm], resampling="poisson", seed=5,
                              **kw_perm)
        np.testing.assert_array_equal(r1.bootstrap_distribution, r2.bootstrap_distribution)
        assert r1.confidence_interval == r2.confidence_interval and r1.estimate == r2.estimate
    # the derived seed too (it hashes the units, taken in key order)
    r1 = pairboot.compare(a, b, ids=ids, resampling="poisson", n_resamples=200)
    r2 = pairboot.compare(a[perm], b[perm], ids=ids[perm], resampling="poisson",
                          n_resamples=200)
    assert r1.seed == r2.seed and r1.confidence_interval == r2.confidence_interval


def test_family_on_poisson_weights_is_order_free():
    a, b = _data(400)
    c = a + np.random.default_rng(5).normal(0.01, 0.02, 400)
    ids = np.arange(400) * 7
    perm = np.random.default_rng(2).permutation(400)
    f1 = pairboot.compare_many({"a": a, "b": b, "c": c}, ids=ids, resampling="poisson",
                               seed=3, n_resamples=500)
    f2 = pairboot.compare_many({"a": a[perm], "b": b[perm], "c": c[perm]}, ids=ids[perm],
                               resampling="poisson", seed=3, n_resamples=500)
    assert f1.to_dict() == f2.to_dict() and f1.resampling == "poisson"


def test_poisson_agrees_with_classic_at_large_n():
    """Both estimate the same sampling distribution; with n = 4,000 their endpoints and
    standard errors differ by Monte Carlo error (5 combined standard errors)."""
    a, b = _data(4000, seed=8)
    R = 4000
    classic = pairboot.compare(a, b, n_resamples=R, seed=1)
    poisson = pairboot.compare(a, b, n_resamples=R, seed=1, resampling="poisson")
    for end in (0, 1):
        mc = math.hypot(classic.monte_carlo_error[end], poisson.monte_carlo_error[end])
        assert abs(classic.confidence_interval[end] - poisson.confidence_interval[end]) < 5 * mc
    se_mc = classic.standard_error * math.sqrt(2 / (2 * (R - 1)))  # sd of an sd, two runs
    assert abs(classic.standard_error - poisson.standard_error) < 5 * se_mc
    assert poisson.estimate == pytest.approx(classic.estimate, rel=1e-12)
    # a system's own mean is sum w x / sum w: its spread shows a wrong denominator, which
    # the difference (mean 0.02, sd 0.1) barely does (a mean over n: ratio 2.0, not 1)
    ratio = poisson.score_a.standard_error / classic.score_a.standard_error
    assert abs(ratio - 1) < 5 * math.sqrt(1 / (R - 1))


def test_pooled_metric_and_unpaired():
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 4, size=(2000, 3)).astype(float)
    other = rng.integers(0, 4, size=(2000, 3)).astype(float)
    r = pairboot.compare(counts, other, metric="f1", resampling="poisson", seed=2,
                         n_resamples=500)
    c = pairboot.compare(counts, other, metric="f1", seed=2, n_resamples=500)
    assert r.estimate == pytest.approx(c.estimate, rel=1e-12)
    assert abs(r.standard_error / c.standard_error - 1) < 5 * math.sqrt(1 / 499)
    a, b = _data(1000)
    u = pairboot.compare(a, b[:800], paired=False, resampling="poisson", seed=1,
                         n_resamples=2000)
    cu = pairboot.compare(a, b[:800], paired=False, seed=1, n_resamples=2000)
    assert abs(u.standard_error / cu.standard_error - 1) < 5 * math.sqrt(1 / 1999)


def test_small_samples_warn():
    a, b = _data(49)
    with pytest.warns(SmallSampleWarning, match="Poisson weights on 49 items"):
        pairboot.compare(a, b, resampling="poisson", seed=1, n_resamples=1000)
    a, b = _data(50)  # from 50 units, no Poisson warning (docs/poisson.md's simulation)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pairboot.compare(a, b, resampling="poisson", seed=1, n_resamples=1000)


@pytest.mark.parametrize("kwargs, message", [
    ({"ids": ["q1", "q2", "q1", "q4"]}, r"`ids` has the id 'q1' twice \(items 0 and 2\)"),
    ({"ids": ["q1", "q2"]}, r"`ids` must have one id per item \(4\)"),
    ({"ids": [1.5, 2, 3, 4]}, "text or integers"),
    # the length is told before a bad id; int lists go to the keys as they are
    ({"ids": ["q1", None]}, r"`ids` must have one id per item \(4\), got shape \(2,\)"),
    ({"ids": [[1, 2], [3, 4]]}, r"one id per item \(4\), got shape \(2, 2\)"),
    ({"ids": [7, 8, 9, 8]}, r"`ids` has the id 8 twice \(items 1 and 3\)"),
    ({"ids": (7, 8, 9, 10, 11)}, r"one id per item \(4\), got shape \(5,\)"),
    ({"resampling": "bayes"}, "`resampling` must be one of classic, poisson"),
])
def test_refusals(kwargs, message):
    kwargs.setdefault("resampling", "poisson")
    with pytest.raises(InputError, match=message):
        pairboot.compare([0.1, 0.2, 0.3, 0.4], [0.2, 0.2, 0.4, 0.4], seed=1, **kwargs)


def test_cli_poisson(tmp_path):
    path = tmp_path / "scores.csv"
    a, b = _data(300)
    rows = [f"q{i},{x:.6f},{y:.6f}" for i, (x, y) in enumerate(zip(a, b))]
    path.write_text("id,a,b\n" + "\n".join(rows) + "\n")
    shuffled = tmp_path / "shuffled.csv"
    order = np.random.default_rng(0).permutation(300)
    shuffled.write_text("id,a,b\n" + "\n".join(rows[i] for i in order) + "\n")
    outs = []
    for p in (path, shuffled):
        proc = run_in_process("compare", p, "--id", "id", "--a", "a", "--b", "b",
                              "--resampling", "poisson", "--seed", "4", "--resamples", "500",
                              "--format", "json", "--no-progress")
        assert proc.returncode == 0, proc.stderr
        outs.append(json.loads(proc.stdout))
    assert outs[0]["resampling"] == "poisson"
    assert outs[0]["confidence_interval"] == outs[1]["confidence_interval"]
    proc = run_in_process("compare", path, "--id", "id", "--a", "a", "--b", "b",
                          "--resampling", "poisson", "--seed", "4", "--resamples", "200",
                          "--no-progress")
    text = proc.stdout.decode()
    assert proc.returncode == 0 and "Poisson(1) weight" in text, proc.stderr
    assert "poisson weights" in text
    proc = run_in_process("compare", path, "--a", "a", "--b", "b", "--resampling", "nope")
    assert_one_line_error(proc, "--resampling")


@pytest.mark.slow
def test_poisson_coverage_iid_and_clusters():
    """Coverage of the 95% percentile interval with Poisson weights: 200 iid items, and
    120 clusters of 5-20 items; within the 99.9% binomial band of the percentile
    interval's expected coverage (as in test_coverage.py), with 0.01 allowance for iid
    items and 0.02 below for clusters (a ratio estimator over 120 clusters)."""
    n_sim, R = 1500, 1000
    z = stats.norm.ppf(0.975)

    def expected(m):
        return 1 - 2 * stats.t.sf(z * math.sqrt((m - 1) / m), m - 1)

    rng = np.random.default_rng(5)
    hits = {"iid": 0, "clusters": 0}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        for i in range(n_sim):
            d = rng.beta(2, 2, 200)
            a = d + rng.normal(0, 0.1, 200)
            b = d + 0.05 + rng.normal(0, 0.1, 200)
            res = pairboot.compare(a, b, n_resamples=R, seed=i, resampling="poisson")
            hits["iid"] += res.confidence_interval.low <= 0.05 <= res.confidence_interval.high
            sizes = rng.integers(5, 21, 120)
            labels = np.repeat(np.arange(120), sizes)
            u = rng.normal(0, 0.15, 120)
            a = rng.beta(2, 2, len(labels))
            b = a + 0.05 + u[labels] + rng.normal(0, 0.05, len(labels))
            res = pairboot.compare(a, b, groups=labels, n_resamples=R, seed=i,
                                   resampling="poisson")
            hits["clusters"] += res.confidence_interval.low <= 0.05 <= res.confidence_interval.high
    for name, m in (("iid", 200), ("clusters", 120)):
        p0 = expected(m)
        half = 3.29 * math.sqrt(p0 * (1 - p0) / n_sim)
        low = p0 - half - (0.02 if name == "clusters" else 0.01)
        assert low <= hits[name] / n_sim <= max(p0, 0.95) + half, (name, hits)


@pytest.mark.parametrize("n_units", [10, 300_000, 5_000_000])
def test_a_part_is_summed_in_calls_a_signal_can_come_between(monkeypatch, n_units):
    """A part's sums are drawn in batches of replicates of about _CALL_WEIGHTS weights
    per core (at least a block of 64 per core), covering every replicate once: between
    calls the interpreter runs a signal's handler.  One call per part kept a SIGTERM
    waiting for all of a chunk's replicates (15 s of a 2M-row --stream, issue 33)."""
    import os

    from pairboot.engine import poisson

    calls = []

    def kernel(x, keys, starts, sizes, words, r0, r1, out, totals):
        assert out.shape[0] == totals.shape[0] == r1 - r0
        calls.append((r0, r1))

    monkeypatch.setattr(poisson, "_kernel", lambda backend, n: (kernel, "fake"))
    r = 10_000
    x = np.zeros((n_units, 1))
    poisson.partial_sums(x, np.arange(n_units, dtype=np.uint64), np.zeros(n_units, int), 1,
                         [1], r)
    assert [c[0] for c in calls] == [0, *[c[1] for c in calls[:-1]]] and calls[-1][1] == r
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    widest = max(b - a for a, b in calls)
    assert widest <= max(64 * cores, poisson._CALL_WEIGHTS * cores // n_units + 64)
    assert len(calls) > 1

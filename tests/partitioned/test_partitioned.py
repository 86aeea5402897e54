"""Parts of the data, added: the in-memory Poisson bootstrap, whatever the split.

Every statistical check here is an identity: ``finish(merge(parts))`` against
``pairboot.compare(..., resampling="poisson")`` with the same seed, bit for bit for
integer-valued statistics and within 1e-12 relative otherwise (the sums are added in
another order).  Small data and few resamples keep it fast; their warnings are expected.
"""

from __future__ import annotations

import numpy as np
import pytest

import pairboot
from pairboot.errors import InputError
from pairboot.partitioned.parts import PoissonPart, finish, finish_many, merge, part_from_arrays

pytestmark = pytest.mark.filterwarnings(
    "ignore::pairboot.errors.SmallSampleWarning")  # (few items and resamples, on purpose)

R = 300
N = 400


def split(systems: dict, rows_of, cuts, **kw) -> list[PoissonPart]:
    """Parts of ``systems`` (and of every per-item keyword) taken at ``rows_of[s:e]``."""
    out = []
    for s, e in zip(cuts[:-1], cuts[1:]):
        rows = rows_of[s:e]
        sub = {k: v[rows] for k, v in systems.items()}
        args = {k: (v[rows] if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
        out.append(part_from_arrays(sub, **args))
    return out


def assert_same(res, ref, exact: bool) -> None:
    """The same distribution, interval, p-value and scores: bit for bit, or to 1e-12."""
    pairs = [(res.bootstrap_distribution, ref.bootstrap_distribution),
             (res.confidence_interval, ref.confidence_interval),
             ([res.estimate, res.standard_error, res.p_value],
              [ref.estimate, ref.standard_error, ref.p_value]),
             ([res.score_a.estimate, *res.score_a.confidence_interval],
              [ref.score_a.estimate, *ref.score_a.confidence_interval]),
             ([res.score_b.estimate, *res.score_b.confidence_interval],
              [ref.score_b.estimate, *ref.score_b.confidence_interval])]
    for got, want in pairs:
        got, want = np.asarray(got, float), np.asarray(want, float)
        if exact:
            np.testing.assert_array_equal(got, want)
        else:
            scale = float(np.max(np.abs(want)))
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * scale)
    assert (res.n_items, res.n_groups, res.n_strata) == (ref.n_items, ref.n_groups,
                                                         ref.n_strata)
    assert res.warnings == ref.warnings


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(20261201)
    a = (rng.random(N) < 0.6).astype(float)
    b = np.where(rng.random(N) < 0.8, a, 1 - a)
    x = rng.normal(size=N)
    y = x + rng.normal(0.1, 0.5, N)
    strata = rng.choice(["news", "chat", "code"], N)
    groups = np.array([f"{s}-{g}" for s, g in zip(strata, rng.integers(0, 40, N))])
    ids = np.array([f"item-{i:05d}" for i in rng.permutation(N)])
    counts_a = rng.integers(0, 5, (N, 3)).astype(float)
    counts_b = rng.integers(0, 5, (N, 3)).astype(float)
    return dict(a=a, b=b, x=x, y=y, strata=strata, groups=groups, ids=ids,
                counts_a=counts_a, counts_b=counts_b, perm=rng.permutation(N))


SPLITS = {
    "one": [0, N],
    "uneven": [0, 1, 150, 151, 390, N],
    "many": list(range(0, N, 37)) + [N],
}


@pytest.mark.parametrize("shuffled", [False, True])
@pytest.mark.parametrize("cuts", SPLITS.values(), ids=SPLITS.keys())
def test_binary_scores_bit_identical_for_any_split(data, cuts, shuffled):
    ref = pairboot.compare(data["a"], data["b"], ids=data["ids"], resampling="poisson",
                           seed=7, n_resamples=R)
    rows = data["perm"] if shuffled else np.arange(N)
    parts = split({"a": data["a"], "b": data["b"]}, rows, cuts, ids=data["ids"],
                  n_resamples=R, seed=7)
    assert_same(finish(merge(parts[::-1])), ref, exact=True)
    assert finish(merge(parts)).engine == "poisson+partitioned"


def test_continuous_scores_with_groups_and_strata(data):
    kw = dict(groups=data["groups"], strata=data["strata"])
    ref = pairboot.compare(data["x"], data["y"], ids=data["ids"], resampling="poisson",
                           seed=11, n_resamples=R, **kw)
    parts = split({"a": data["x"], "b": data["y"]}, data["perm"], SPLITS["uneven"],
                  ids=data["ids"], n_resamples=R, seed=11, **kw)
    res = finish(merge(parts))
    assert_same(res, ref, exact=False)
    for got, want in zip(res.strata, ref.strata, strict=True):
        assert got.name == want.name
        assert (got.n_items, got.n_groups) == (want.n_items, want.n_groups)
        np.testing.assert_allclose([got.estimate, *got.confidence_interval],
                                   [want.estimate, *want.confidence_interval], rtol=1e-12)


def test_groups_without_ids_and_strata_weights(data):
    weights = {"news": 0.5, "chat": 0.3, "code": 0.2}
    kw = dict(groups=data["groups"], strata=data["strata"])
    ref = pairboot.compare(data["a"], data["b"], resampling="poisson", seed=5,
                           n_resamples=R, strata_weights=weights, **kw)
    parts = split({"a": data["a"], "b": data["b"]}, data["perm"], SPLITS["many"],
                  n_resamples=R, seed=5, **kw)
    assert_same(finish(merge(parts), strata_weights=weights), ref, exact=True)


def test_f1_counts_bit_identical_pooled_over_strata(data):
    ref = pairboot.compare(data["counts_a"], data["counts_b"], metric="f1", ids=data["ids"],
                           strata=data["strata"], resampling="poisson", seed=3,
                           n_resamples=R)
    parts = split({"a": data["counts_a"], "b": data["counts_b"]}, data["perm"],
                  SPLITS["uneven"], ids=data["ids"], strata=data["strata"], metric="f1",
                  n_resamples=R, seed=3)
    assert_same(finish(merge(parts)), ref, exact=True)


def test_positions_with_offsets_equal_compare_without_ids(data):
    ref = pairboot.compare(data["x"], data["y"], resampling="poisson", seed=2, n_resamples=R)
    cuts = SPLITS["uneven"]
    parts = [part_from_arrays({"a": data["x"][s:e], "b": data["y"][s:e]}, id_offset=s,
                              n_resamples=R, seed=2) for s, e in zip(cuts[:-1], cuts[1:])]
    assert_same(finish(merge(parts)), ref, exact=False)


@pytest.mark.parametrize("correction", ["max-t", "holm", "none"])
def test_family_equals_compare_many(data, correction):
    scores = {"base": data["a"], "b": data["b"], "c": 1 - data["a"] * data["b"]}
    ref = pairboot.compare_many(scores, ids=data["ids"], resampling="poisson", seed=9,
                                n_resamples=R, correction=correction, strata=data["strata"])
    parts = split(scores, data["perm"], SPLITS["uneven"], ids=data["ids"],
                  strata=data["strata"], n_resamples=R, seed=9)
    res = finish_many(merge(parts), correction=correction)
    assert res.critical_value == ref.critical_value
    assert res.rank_intervals == ref.rank_intervals and res.best_set == ref.best_set
    for got, want in zip(res.comparisons, ref.comparisons, strict=True):
        assert (got.a, got.b) == (want.a, want.b)
        assert got.confidence_interval == want.confidence_interval
        assert (got.p_value, got.p_adjusted) == (want.p_value, want.p_adjusted)
    for name in scores:
        assert res.systems[name] == ref.systems[name]


def test_merge_algebra(data):
    kw = dict(ids=data["ids"], strata=data["strata"], groups=data["groups"], n_resamples=R,
              seed=1)
    p, q, r, s = split({"a": data["a"], "b": data["b"]}, data["perm"], [0, 50, 51, 300, N],
                       **kw)
    left, right, flat = (p + q) + r + s, p + (q + (r + s)), merge([s, r, q, p])
    for other in (right, flat):
        for field in ("sums", "totals", "observed", "absolute", "items"):
            np.testing.assert_array_equal(getattr(left, field), getattr(other, field))
        assert list(left.strata) == list(other.strata)
        assert left.checksum == other.checksum and left.n_groups == other.n_groups
    empty = part_from_arrays({"a": data["a"][:0], "b": data["b"][:0]}, **{
        **kw, "ids": data["ids"][:0], "strata": data["strata"][:0],
        "groups": data["groups"][:0]})
    assert empty.n_items == 0
    np.testing.assert_array_equal((empty + p + empty).sums, p.sums)
    assert merge([p]) is p
    assert left.n_items == N


def test_parts_of_different_runs_are_refused(data):
    rows = slice(0, 100), slice(100, 200)
    def part(j, **kw):
        args = dict(ids=data["ids"][rows[j]], n_resamples=R, seed=1) | kw
        return part_from_arrays({"a": data["a"][rows[j]], "b": data["b"][rows[j]]}, **args)
    base = part(0)
    for other, field in ((part(1, seed=2), "seed"), (part(1, n_resamples=R + 1), "n_resamples"),
                         (part(1, strata=data["strata"][rows[1]]), "stratified"),
                         (part(1, metric=pairboot.Metric("total", ("score",), lambda S: S[..., 0])),
                          "metric")):
        with pytest.raises(InputError, match=f"differ in `{field}`"):
            base + other
    renamed = part_from_arrays({"b": data["a"][rows[1]], "a": data["b"][rows[1]]},
                               ids=data["ids"][rows[1]], n_resamples=R, seed=1)
    with pytest.raises(InputError, match="differ in `names`"):
        merge([base, renamed])
    with pytest.raises(InputError, match="the same part was added twice"):
        base + base


def test_what_needs_every_item_is_refused(data):
    part = part_from_arrays({"a": data["a"], "b": data["b"]}, ids=data["ids"],
                            n_resamples=R, seed=1)
    for kw, param in ((dict(method="bca"), "method"), (dict(method="studentized"), "method"),
                      (dict(paired=False), "paired"),
                      (dict(group_weighting="groups"), "group_weighting")):
        with pytest.raises(InputError, match="not available on partitioned data") as err:
            finish(part, **kw)
        assert err.value.param == param
    with pytest.raises(InputError, match="`ids` is required for partitioned data"):
        part_from_arrays({"a": data["a"], "b": data["b"]}, n_resamples=R, seed=1)
    with pytest.raises(InputError, match="twice"):
        part_from_arrays({"a": data["a"][:3], "b": data["b"][:3]}, ids=["x", "y", "x"],
                         n_resamples=R, seed=1)
    with pytest.raises(InputError, match="`seed`"):
        part_from_arrays({"a": data["a"], "b": data["b"]}, ids=data["ids"], seed=None)
    with pytest.raises(InputError, match="`baseline`"):
        finish_many(part, baseline="c")


def test_group_in_two_strata_across_parts_is_refused():
    one = part_from_arrays({"a": [1.0, 0.0], "b": [1.0, 1.0]}, ids=[1, 2], groups=["g", "h"],
                           strata=["s", "s"], n_resamples=10, seed=1)
    two = part_from_arrays({"a": [1.0], "b": [0.0]}, ids=[3], groups=["g"], strata=["t"],
                           n_resamples=10, seed=1)
    with pytest.raises(InputError, match=r"a group of the parts spans more than one "
                       r"stratum \('s' and 't'\); a group must lie within one") as err:
        one + two
    assert err.value.param == "groups"
    text = part_from_arrays({"a": [1.0], "b": [0.0]}, ids=[4], strata=["1"],
                            n_resamples=10, seed=1)
    number = part_from_arrays({"a": [1.0], "b": [0.0]}, ids=[5], strata=[1],
                              n_resamples=10, seed=1)
    with pytest.raises(InputError, match=r"`strata` mixes label types \(number, text\)"):
        text + number

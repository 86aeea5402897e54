"""Repeated trials on parts (``runs="samples"``): each item's trials reduced to its
estimate in its part, then the sums; against ``pairboot.compare(..., runs="samples",
metric=..., ids=..., resampling="poisson", seed=...)`` in memory.

The per-item estimates are fractions, so the sums of parts agree with the in-memory
sums to rounding (1e-12 relative), as for any real-valued score; the permutation
test's p-value, a count, exactly.
"""

from __future__ import annotations

import numpy as np
import pytest

import pairboot
from pairboot.errors import InputError
from pairboot.partitioned.parts import finish, finish_many, merge, part_from_arrays

pytestmark = pytest.mark.filterwarnings(
    "ignore::pairboot.errors.SmallSampleWarning")  # (few items and resamples, on purpose)

R = 300
N = 90
T = 6


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(36)
    p = rng.beta(1.5, 1.5, N)
    a = (rng.random((N, T)) < p[:, None]).astype(float)
    b = (rng.random((N, T)) < np.clip(p + 0.1, 0, 1)[:, None]).astype(float)
    c = (rng.random((N, T)) < np.clip(p - 0.05, 0, 1)[:, None]).astype(float)
    a[4, 5] = b[7, 4] = b[7, 5] = np.nan  # (items with fewer trials)
    strata = rng.choice(["easy", "hard"], N)
    groups = np.array([f"{s}-{g}" for s, g in zip(strata, rng.integers(0, 20, N))])
    ids = np.array([f"task-{i:03d}" for i in rng.permutation(N)])
    return dict(a=a, b=b, c=c, strata=strata, groups=groups, ids=ids)


def parts_of(d, systems, cuts, **kw):
    """Parts of ``systems`` (names of ``d``) at the rows between ``cuts``, shuffled."""
    order = np.random.default_rng(1).permutation(N)
    use = kw.pop("_use", ())
    out = []
    for s, e in zip(cuts[:-1], cuts[1:]):
        rows = order[s:e]
        labels = {k: d[k][rows] for k in use}
        out.append(part_from_arrays({name: d[name][rows] for name in systems},
                                    ids=d["ids"][rows], runs="samples", **labels, **kw))
    return out


def assert_close(got, want):
    """Equal to rounding (1e-12 relative to the largest value); infinite ends equal."""
    got, want = np.asarray(got, float), np.asarray(want, float)
    finite = np.isfinite(want)
    np.testing.assert_array_equal(got[~finite], want[~finite])
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-12,
                               atol=1e-12 * float(np.max(np.abs(want[finite]))))


def same(res, ref):
    assert res.metric == ref.metric
    assert_close(res.bootstrap_distribution, ref.bootstrap_distribution)
    assert_close([*res.confidence_interval, res.estimate, res.standard_error, res.p_value],
                 [*ref.confidence_interval, ref.estimate, ref.standard_error, ref.p_value])
    assert_close([res.score_a.estimate, *res.score_a.confidence_interval,
                  res.score_b.estimate, *res.score_b.confidence_interval],
                 [ref.score_a.estimate, *ref.score_a.confidence_interval,
                  ref.score_b.estimate, *ref.score_b.confidence_interval])
    assert (res.n_items, res.n_groups, res.n_strata) == (ref.n_items, ref.n_groups,
                                                         ref.n_strata)


@pytest.mark.parametrize("metric", ["pass^4", "pass@2", "maj@3", "pass@1", "mean"])
@pytest.mark.parametrize("cuts", [[0, N], [0, 1, 1, 40, N]])
def test_parts_equal_memory_for_every_metric_and_split(data, metric, cuts):
    ref = pairboot.compare(data["a"], data["b"], runs="samples", metric=metric,
                           ids=data["ids"], resampling="poisson", seed=7, n_resamples=R)
    res = finish(merge(parts_of(data, ("a", "b"), cuts, metric=metric, seed=7,
                                n_resamples=R)))
    same(res, ref)
    assert res.flaky is None  # (the per-item lists need every item: docs/trials.md)


def test_groups_strata_one_sided_and_a_margin(data):
    kw = dict(metric="pass^2", n_resamples=R, seed=11)
    ref = pairboot.compare(data["a"], data["b"], runs="samples", ids=data["ids"],
                           groups=data["groups"], strata=data["strata"],
                           strata_weights={"easy": 0.3, "hard": 0.7},
                           hypothesis="non-inferiority", margin=0.05, method="basic",
                           resampling="poisson", **kw)
    res = finish(merge(parts_of(data, ("a", "b"), [0, 30, 61, N],
                                _use=("groups", "strata"), **kw)),
                 strata_weights={"easy": 0.3, "hard": 0.7}, hypothesis="non-inferiority",
                 margin=0.05, method="basic")
    same(res, ref)
    assert res.alternative == ref.alternative == "greater"
    assert res.verdict() == ref.verdict()


def test_a_family_of_trials_under_max_t_and_holm(data):
    scores = {name: data[name] for name in ("a", "b", "c")}
    for correction in ("max-t", "holm"):
        ref = pairboot.compare_many(scores, runs="samples", metric="maj@3", baseline="a",
                                    correction=correction, ids=data["ids"],
                                    resampling="poisson", seed=2, n_resamples=R)
        res = finish_many(merge(parts_of(data, ("a", "b", "c"), [0, 45, N],
                                         metric="maj@3", seed=2, n_resamples=R)),
                          baseline="a", correction=correction)
        assert res.metric == ref.metric == "maj@3"
        for got, want in zip(res.comparisons, ref.comparisons):
            assert (got.a, got.b) == (want.a, want.b)
            assert_close([*got.confidence_interval, got.estimate, got.p_adjusted],
                         [*want.confidence_interval, want.estimate, want.p_adjusted])


def test_the_permutation_test_of_pass_k_has_the_memory_p(data):
    ref = pairboot.compare(data["a"], data["b"], runs="samples", metric="pass^2",
                           ids=data["ids"], resampling="poisson", seed=5, n_resamples=R,
                           test="permutation")
    res = finish(merge(parts_of(data, ("a", "b"), [0, 50, N], metric="pass^2", seed=5,
                                n_resamples=R, test="permutation")))
    assert res.test.p_value == ref.test.p_value


def test_an_empty_part_of_maj_k_adds_nothing(data):
    """An empty part's trials (maj@k's log-factorials once failed on no items)."""
    one = parts_of(data, ("a", "b"), [0, N], metric="maj@3", seed=3, n_resamples=R)
    empty = part_from_arrays({"a": np.zeros((0, T)), "b": np.zeros((0, T))}, ids=[],
                             runs="samples", metric="maj@3", seed=3, n_resamples=R)
    assert empty.n_items == 0
    same(finish(merge([empty, *one])), finish(one[0]))


@pytest.mark.parametrize("kw, param, words", [
    (dict(metric="pass^2"), "metric", "needs `runs='samples'`"),
    (dict(runs="seeds"), "runs", "`runs='seeds'` is not available on partitioned data"),
    (dict(runs="samples", metric="f1"), "metric", "the mean (pass@1) or a metric of k"),
    (dict(runs="samples", test="mcnemar"), "test", "one run per system"),
    (dict(runs="samples", test="permutation"), "test", "not exchangeable"),
])
def test_what_parts_cannot_honour_is_one_line(data, kw, param, words):
    with pytest.raises(InputError, match=words.replace("(", r"\(").replace(")", r"\)")
                       .replace("^", r"\^")) as err:
        part_from_arrays({"a": data["a"], "b": data["b"]}, ids=data["ids"], seed=1,
                         n_resamples=10, **kw)
    assert err.value.param == param and "\n" not in str(err.value)


def test_an_item_with_too_few_trials_is_named_by_its_id(data):
    with pytest.raises(InputError, match=f"`b` item '{data['ids'][7]}' has 4 trial"):
        part_from_arrays({"a": data["a"], "b": data["b"]}, ids=data["ids"], seed=1,
                         runs="samples", metric="pass^5", n_resamples=10)
    b = data["b"].copy()
    b[9] = np.nan
    with pytest.raises(InputError, match=f"`b` item '{data['ids'][9]}' has no sample"):
        part_from_arrays({"a": data["a"], "b": b}, ids=data["ids"], seed=1,
                         runs="samples", n_resamples=10)


def test_parts_of_different_metrics_are_not_added(data):
    p4 = parts_of(data, ("a", "b"), [0, 40], metric="pass^4", seed=1, n_resamples=R)
    p2 = part_from_arrays({"a": data["a"][:5], "b": data["b"][:5]}, ids=["x1", "x2", "x3",
                          "x4", "x5"], runs="samples", metric="pass^2", seed=1,
                          n_resamples=R)
    with pytest.raises(InputError, match="differ in `metric`"):
        merge([*p4, p2])


def test_compare_files_refuses_a_trials_metric_naming_where_it_is_read(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text("id,a,b\nq1,1,0\nq2,0,1\n")
    with pytest.raises(InputError, match="compare_files does not take") as err:
        pairboot.compare_files([str(path)], a="a", b="b", id="id", metric="pass^2", seed=1)
    assert err.value.param == "metric"


@pytest.mark.parametrize("metric", ["pass^2", "mean"])
def test_a_part_pickles_as_the_spark_recipe_ships_it(data, metric):
    """docs/distributed.md's Spark recipe sends ``pickle.dumps(part)``: the metric's
    formula is a module-level function, not a lambda."""
    import pickle  # noqa: PLC0415

    [part] = parts_of(data, ("a", "b"), [0, N], metric=metric, seed=4, n_resamples=R)
    back = pickle.loads(pickle.dumps(part))
    assert back.metric.name == metric
    np.testing.assert_array_equal(finish(back).bootstrap_distribution,
                                  finish(part).bootstrap_distribution)

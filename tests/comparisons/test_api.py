"""compare()'s arguments: every bad one is a ValueError that names it; results are frozen."""

import dataclasses
import json
import math
import warnings

import numpy as np
import pytest

import pairboot
from pairboot import InputError

A = np.linspace(0.2, 0.8, 40)
B = A + np.sin(np.arange(40)) * 0.05 + 0.01

# pairboot's notes for tests that use few resamples or small strata for speed, not about them
FEW_RESAMPLES = pytest.mark.filterwarnings(
    r"ignore:(\d+ resamples leave only|the Monte Carlo error of the endpoints)"
    ":pairboot.SmallSampleWarning"
)
SMALL_STRATA = pytest.mark.filterwarnings(
    "ignore:strata with fewer than 30 items:pairboot.SmallSampleWarning"
)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"confidence_level": 1.5}, "`confidence_level` must be between 0 and 1, got 1.5"),
        ({"confidence_level": 0}, "`confidence_level` must be between 0 and 1"),
        ({"n_resamples": 0}, "`n_resamples` must be a positive integer, got 0"),
        ({"n_resamples": 10.5}, "`n_resamples` must be a positive integer"),
        ({"method": "magic"}, "`method` must be one of percentile, basic, normal, bca"),
        ({"seed": -1}, "`seed` must be a non-negative integer, a SeedSequence, 'random' or "
                       "None, got -1"),
        ({"seed": 1.5}, "`seed` must be a non-negative integer"),
        ({"paired": "yes"}, "`paired` must be True or False"),
        ({"group_weighting": "docs"}, "`group_weighting` must be one of items, groups"),
        ({"metric": "nope"}, "unknown metric 'nope'"),
        ({"backend": "gpu"}, "`backend` must be one of auto, numba, numpy"),
    ],
)
def test_bad_arguments_name_themselves(kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        pairboot.compare(A, B, **kwargs)


@pytest.mark.parametrize(
    ("a", "b", "message"),
    [
        ([], [], "`a` is empty"),
        ([1.0, np.nan, 2.0], [1.0, 2.0, 3.0], r"`a` has a non-finite value \(nan\) at item 1"),
        ([1.0, 2.0, 3.0], [1.0, 2.0, np.inf], r"`b` has a non-finite value \(inf\) at item 2"),
        ([1.0, 2.0], [1.0, 2.0, 3.0], "same items in the same order"),
        (["x", "y"], [1.0, 2.0], "`a` must hold numbers"),
        (np.ones((2, 2, 2)), np.ones((2, 2, 2)), "must be 1-D"),
    ],
)
def test_bad_scores(a, b, message):
    with pytest.raises(InputError, match=message):
        pairboot.compare(a, b, seed=0)


def test_groups_and_strata_errors():
    groups = np.repeat(np.arange(10), 4)
    strata = np.where(np.arange(40) < 20, "s1", "s2")
    with pytest.raises(InputError, match="`groups` has no label for item 3"):
        pairboot.compare(A, B, groups=[*groups[:3], None, *groups[4:]], seed=0)
    with pytest.raises(InputError, match="one label per item"):
        pairboot.compare(A, B, groups=groups[:-1], seed=0)
    split = groups.copy()
    split[20] = 0  # group 0 now has an item in stratum s2 too
    with pytest.raises(InputError, match="group 0 spans more than one stratum"):
        pairboot.compare(A, B, groups=split, strata=strata, seed=0)
    with pytest.raises(InputError, match="not in the data: 's3'"):
        pairboot.compare(A, B, strata=strata, strata_weights={"s1": 1, "s2": 1, "s3": 1})
    with pytest.raises(InputError, match="no weight for 1 stratum"):
        pairboot.compare(A, B, strata=strata, strata_weights={"s1": 1})
    with pytest.raises(InputError, match="must be positive, got 0"):
        pairboot.compare(A, B, strata=strata, strata_weights={"s1": 1, "s2": 0})
    with pytest.raises(InputError, match="without `strata`"):
        pairboot.compare(A, B, strata_weights={"s1": 1})
    with pytest.raises(InputError, match="metric 'mean' only"):
        pairboot.compare(
            np.ones((40, 2)), np.ones((40, 2)), metric="ratio", groups=groups,
            group_weighting="groups",
        )


def test_result_is_frozen_and_json_ready():
    res = pairboot.compare(A, B, seed=3, n_resamples=2000)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.estimate = 0.0
    d = res.to_dict()
    for key in (
        "estimate", "confidence_interval", "confidence_level", "method", "standard_error",
        "p_value", "n_items", "n_resamples", "seed", "score_a", "score_b", "warnings",
        "n_groups", "n_strata",
    ):
        assert key in d
    assert d["confidence_interval"] == {"low": res.confidence_interval.low,
                                        "high": res.confidence_interval.high}
    json.dumps(d, allow_nan=False)
    assert "values>" in repr(res)  # the bootstrap distribution is elided


@FEW_RESAMPLES  # with some seeds
@pytest.mark.parametrize("seed", [None, "random"])
def test_seed_used_is_reported(seed):
    res = pairboot.compare(A, B, n_resamples=500, seed=seed)
    again = pairboot.compare(A, B, n_resamples=500, seed=res.seed)
    assert isinstance(res.seed, int) and res.seed >= 0
    np.testing.assert_array_equal(res.bootstrap_distribution, again.bootstrap_distribution)


@FEW_RESAMPLES
def test_seed_zero_is_a_seed():
    r1 = pairboot.compare(A, B, n_resamples=500, seed=0)
    r2 = pairboot.compare(A, B, n_resamples=500, seed=0)
    assert r1.seed == 0
    np.testing.assert_array_equal(r1.bootstrap_distribution, r2.bootstrap_distribution)


def test_series_inputs():
    pd = pytest.importorskip("pandas")
    ref = pairboot.compare(A, B, seed=5, n_resamples=500)
    res = pairboot.compare(pd.Series(A), pd.Series(B), seed=5, n_resamples=500)
    assert res.confidence_interval == ref.confidence_interval
    res = pairboot.compare(list(A), tuple(B), seed=5, n_resamples=500)
    assert res.confidence_interval == ref.confidence_interval


def test_warnings_are_issued_and_collected():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = pairboot.compare(A[:10], B[:10], seed=1, n_resamples=100)
    texts = [str(w.message) for w in caught]
    assert any("rough" in t for t in texts)
    assert any("beyond each end" in t for t in texts)
    assert set(texts) == set(res.warnings)
    assert any(issubclass(w.category, pairboot.SmallSampleWarning) for w in caught)


@FEW_RESAMPLES
def test_numpy_and_numba_backends_draw_the_same_items():
    pytest.importorskip("numba")
    r1 = pairboot.compare(A, B, seed=11, n_resamples=300, backend="numpy")
    r2 = pairboot.compare(A, B, seed=11, n_resamples=300, backend="numba")
    np.testing.assert_allclose(r1.bootstrap_distribution, r2.bootstrap_distribution, rtol=1e-12)


@FEW_RESAMPLES
def test_prefix_property():
    """The first resamples do not depend on how many are asked for."""
    r1 = pairboot.compare(A, B, seed=2, n_resamples=100)
    r2 = pairboot.compare(A, B, seed=2, n_resamples=1000)
    np.testing.assert_array_equal(r1.bootstrap_distribution, r2.bootstrap_distribution[:100])


@FEW_RESAMPLES
@pytest.mark.filterwarnings(  # b is a's data, reordered: the differences are all 0
    "ignore:every resampled difference equals 0:pairboot.DegenerateDataWarning"
)
def test_dataframe_columns_are_matched_by_name():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(4)
    counts = rng.integers(0, 5, size=(60, 3)).astype(float)
    a = pd.DataFrame(counts, columns=["tp", "fp", "fn"])
    b = pd.DataFrame(counts[:, [2, 0, 1]], columns=["fn", "tp", "fp"])  # same data, reordered
    res = pairboot.compare(a, b, metric="f1", seed=0, n_resamples=200)
    assert res.estimate == 0.0
    # A plain array carries no names: its columns are taken in order, so this differs.
    res = pairboot.compare(a, b.to_numpy(), metric="f1", seed=0, n_resamples=200)
    assert res.estimate != 0.0
    # Other cases and prefixed names are found too; names that do not fit are an error.
    c = pd.DataFrame(counts, columns=["base_TP", "base_FP", "base_FN"])
    assert pairboot.compare(a, c[["base_FN", "base_TP", "base_FP"]], metric="f1",
                            seed=0, n_resamples=200).estimate == 0.0
    with pytest.raises(InputError, match=r"do not name the statistics of metric 'f1'"):
        pairboot.compare(a, pd.DataFrame(counts, columns=["x", "y", "z"]), metric="f1")


@FEW_RESAMPLES
def test_pandas_inputs_are_paired_by_position_never_by_their_index():
    """The order passed pairs the items (issue 21; pandas inputs were re-aligned on their
    index, silently): indexes that would pair otherwise are refused, saying how to pair
    by label or by position; with no label in common there is only the position."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    d = rng.random(120)
    a = pd.Series(d)
    b = pd.Series(d + 0.02 + rng.normal(0, 0.05, 120))
    groups = pd.Series(np.arange(120) // 4)
    ref = pairboot.compare(a, b, groups=groups, seed=0, n_resamples=500)
    shuffled = b.sample(frac=1, random_state=0)
    with pytest.raises(InputError, match="pairs items by position") as info:
        pairboot.compare(a, shuffled, groups=groups.loc[shuffled.index], seed=0)
    assert ".reindex(" in str(info.value) and "reset_index(drop=True)" in str(info.value)
    res = pairboot.compare(a, shuffled.reindex(a.index), groups=groups, seed=0,
                           n_resamples=500)
    assert res.confidence_interval == ref.confidence_interval
    moved = pairboot.compare(a, b.set_axis(b.index + 1000), groups=groups, seed=0,
                             n_resamples=500)
    assert moved.confidence_interval == ref.confidence_interval


@FEW_RESAMPLES
@SMALL_STRATA
def test_labels_as_codes_into_categories_are_the_labels():
    """A pandas Categorical (or category Series) is read as its labels: unused categories
    make no stratum, a missing label and mixed types are the same errors as in a list."""
    pd = pytest.importorskip("pandas")
    labels = ["web", "news", "web", "forum"] * 10
    categories = ["forum", "unused", "web", "news"]
    ref = pairboot.compare(A, B, strata=labels, seed=4, n_resamples=300)
    for coded in (pd.Categorical(labels, categories=categories),
                  pd.Series(labels, dtype=pd.CategoricalDtype(categories))):
        res = pairboot.compare(A, B, strata=coded, seed=4, n_resamples=300)
        assert res.confidence_interval == ref.confidence_interval
        assert res.strata == ref.strata
    for bad, message in (
        (["a", "b", "c", None, None] * 8, r"`groups` has no label for item 3 \(16 item"),
        (["a", " "] * 20, r"`groups` has no label for item 1 \(20 item"),
        ([1, "1"] * 20, "mixes label types"),
        (["a", "  ", None, "a"] * 10, r"`groups` has no label for item 1 \(20 item"),
        ([1, "x", None, "x"] * 10, "mixes label types"),
        ([1, "x", " ", "x"] * 10, "mixes label types"),
        (["a", "\u00a0", "a", "\x1c"] * 10, r"`groups` has no label for item 1 \(20 item"),
        ([None] * 40, r"`groups` has no label for item 0 \(40 item"),
        (["x", pd.NA] * 20, r"`groups` has no label for item 1 \(20 item"),
        ([np.float32("nan"), 1.0] * 20, r"`groups` has no label for item 0 \(20 item"),
        ([b"a", b" \t"] * 20, r"`groups` has no label for item 1 \(20 item"),
        ([b"a", "a"] * 20, "mixes label types"),
    ):
        for groups in (bad, pd.Categorical(bad), pd.Categorical(bad, categories=["unused"])
                       if all(v is None for v in bad) else pd.Series(bad, dtype=object)):
            with pytest.raises(InputError, match=message):
                pairboot.compare(A, B, groups=groups, seed=0)
    # blank bytes are missing in a list as in a numpy bytes array
    with pytest.raises(InputError, match=r"`groups` has no label for item 1 \(20 item"):
        pairboot.compare(A, B, groups=np.array([b"a", b" \t"] * 20), seed=0)


@pytest.mark.filterwarnings("ignore:only 4 groups:pairboot.SmallSampleWarning")
def test_labels_that_differ_by_a_nul_stay_different():
    """numpy's strings drop trailing NULs: "a\\0" and "a" must not become one group."""
    groups = ["a\0", "a", "b", "\0"] * 10
    res = pairboot.compare(A, B, groups=groups, seed=0, n_resamples=400)
    assert res.n_groups == 4


def test_mixed_label_types_are_an_error():
    with pytest.raises(InputError, match="mixes label types"):
        pairboot.compare(A, B, groups=[1, "1"] * 20, seed=0)
    with pytest.raises(InputError, match="equal as text"):
        pairboot.compare(A, B, strata=[1, 2] * 20, strata_weights={1: 1.0, "1": 1.0, 2: 1.0})


@pytest.mark.parametrize("method", ["percentile", "basic", "normal", "bca", "studentized"])
def test_a_stratum_alone_is_its_own_result(method):
    """A stratum's own interval is that of its items alone (its draws are the same), even
    when another stratum's metric is undefined (0/0) in most resamples."""
    rng = np.random.default_rng(0)
    n1 = 60
    num_a = np.concatenate([rng.random(n1), [0, 0, 0, 0.5]])
    num_b = num_a + np.concatenate([0.1 * rng.random(n1), [0, 0, 0, 0.2]])
    den = np.concatenate([np.ones(n1), [0, 0, 0, 1]])
    a, b = np.column_stack([num_a, den]), np.column_stack([num_b, den])
    strata = ["x"] * n1 + ["y"] * 4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both = pairboot.compare(a, b, metric="ratio", strata=strata, method=method,
                                n_resamples=400, seed=1)
        alone = pairboot.compare(a[:n1], b[:n1], metric="ratio", method=method,
                                 n_resamples=400, seed=1)
    assert both.strata[0].name == "x"
    assert both.strata[0].confidence_interval == alone.confidence_interval


@FEW_RESAMPLES
def test_strata_keep_a_pooled_metric_pooled():
    """With the sample shares as weights, stratifying does not change micro F1 itself;
    population weights reweight the strata's counts before F1 is computed once."""
    rng = np.random.default_rng(8)
    n = 300
    strata = np.where(np.arange(n) < 100, "rare", "common")
    tp = rng.integers(0, 4, n)
    fa = np.column_stack([tp, rng.integers(0, 3, n), rng.integers(0, 3, n)]).astype(float)
    fb = np.column_stack([tp + (strata == "rare"), rng.integers(0, 3, n),
                          rng.integers(0, 2, n)]).astype(float)

    def f1(x):
        s = x.sum(axis=0)
        return 2 * s[0] / (2 * s[0] + s[1] + s[2])

    plain = pairboot.compare(fa, fb, metric="f1", seed=1, n_resamples=500)
    strat = pairboot.compare(fa, fb, metric="f1", strata=strata, seed=1, n_resamples=500)
    assert plain.estimate == pytest.approx(f1(fb) - f1(fa), abs=1e-12)
    assert strat.estimate == pytest.approx(plain.estimate, abs=1e-12)
    assert strat.score_a.estimate == pytest.approx(f1(fa), abs=1e-12)
    # Population weights 0.5/0.5: each stratum's counts scaled to half the population.
    w = {"rare": 0.5, "common": 0.5}
    res = pairboot.compare(fa, fb, metric="f1", strata=strata, strata_weights=w, seed=1,
                           n_resamples=500)
    rare = strata == "rare"

    def weighted_f1(x):
        return f1(np.vstack([x[rare] * (0.5 / rare.mean()), x[~rare] * (0.5 / (~rare).mean())]))

    assert res.estimate == pytest.approx(weighted_f1(fb) - weighted_f1(fa), abs=1e-12)
    # The strata's own results are each stratum's F1 difference.
    by_name = {s.name: s for s in res.strata}
    assert by_name["rare"].estimate == pytest.approx(f1(fb[rare]) - f1(fa[rare]), abs=1e-12)


@pytest.mark.slow
def test_import_is_light():
    """import pairboot (and its CLI module) loads none of the optional heavy packages."""
    import subprocess
    import sys

    heavy = ("numba", "pandas", "pyarrow", "matplotlib", "dask", "scipy", "polars")
    code = (
        "import sys, pairboot, pairboot.cli; "
        f"print([m for m in {heavy!r} if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_failing_user_metric_is_named():
    def boom(S):
        raise ZeroDivisionError("oops")

    bad = pairboot.Metric("mine", ("num", "den"), boom)
    with pytest.raises(InputError, match=r"metric 'mine' failed .*ZeroDivisionError: oops"):
        pairboot.compare(np.ones((40, 2)), np.ones((40, 2)), metric=bad, seed=0)
    flat = pairboot.Metric("flat", ("num", "den"), lambda S: S.sum())
    with pytest.raises(InputError, match=r"metric 'flat' returned shape \(\)"):
        pairboot.compare(np.ones((40, 2)), np.ones((40, 2)), metric=flat, seed=0)


@pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")  # (A: 0 on every item)
def test_studentized_with_zero_standard_errors_warns():
    a = np.zeros(100)
    b = a.copy()
    b[:4] = 1.0  # 4 disagreements: some resamples draw none of them
    with pytest.warns(pairboot.DegenerateDataWarning, match="too few distinct items"):
        res = pairboot.compare(a, b, method="studentized", seed=1, n_resamples=2000)
    assert all(np.isfinite(res.confidence_interval))


def test_bca_is_undefined_on_a_point_distribution():
    # A ratio whose resamples all give the same value though the items differ.
    num = np.column_stack([np.arange(1.0, 41.0), 2 * np.arange(1.0, 41.0)])
    den = np.column_stack([2 * np.arange(1.0, 41.0), 4 * np.arange(1.0, 41.0)])
    with pytest.warns(pairboot.DegenerateDataWarning):
        res = pairboot.compare(num, den, metric="ratio", method="bca", seed=0, n_resamples=500)
    assert np.isnan(res.confidence_interval.low) and np.isnan(res.confidence_interval.high)


# --- regressions found reading the change -------------------------------------------------


def test_bca_is_finite_when_the_jackknife_spread_is_below_rounding():
    """Leave-one-out values of 100,000 items differ by ~1e-10 here, below the rounding
    tolerance of the replicates; the acceleration is still defined (it used to be NaN)."""
    rng = np.random.default_rng(0)
    a = rng.random(100_000)
    b = a + 0.001 + 1e-5 * rng.normal(size=a.size)
    res = pairboot.compare(a, b, method="bca", n_resamples=500, seed=0)
    low, high = res.confidence_interval
    assert math.isfinite(low) and math.isfinite(high) and low < 0.001 < high


def test_no_numba_warning_when_numba_is_installed():
    """The numpy kernel may be the engine's own choice (a small index stratum next to
    a multinomial one): that is no reason to say numba is missing."""
    pytest.importorskip("numba")
    rng = np.random.default_rng(1)
    a = np.concatenate([(rng.random(6000) < 0.7).astype(float), rng.random(100)])
    b = np.concatenate([(rng.random(6000) < 0.72).astype(float), rng.random(100)])
    strata = np.array(["binary"] * 6000 + ["continuous"] * 100)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = pairboot.compare(a, b, strata=strata, n_resamples=10_000, seed=0)
    assert res.engine == "multinomial+numpy"
    assert not any("numba is not installed" in str(w.message) for w in caught)


@FEW_RESAMPLES
@SMALL_STRATA
def test_undefined_pooled_metric_counts_resamples_not_strata():
    """A pooled F1 with strata is one value per resample: "k of R resamples"."""
    y = np.zeros(40, bool)
    y[0] = True
    pa = y.copy()
    pb = y.copy()
    pb[1] = True

    def counts(p):
        return np.column_stack([y & p, ~y & p, y & ~p]).astype(float)

    strata = np.array(["x"] * 20 + ["y"] * 20)
    with pytest.warns(pairboot.DegenerateDataWarning) as caught:
        pairboot.compare(counts(pa), counts(pb), metric="f1", strata=strata,
                         n_resamples=1000, seed=0)
    messages = [str(w.message) for w in caught if "undefined" in str(w.message)]
    assert messages and all(" of 1000 resamples" in m for m in messages)


@pytest.mark.parametrize("method", ["percentile", "basic", "normal", "bca", "studentized"])
def test_a_common_offset_changes_no_interval(method):
    """``b - a`` is the same with 1e9 added to both systems, and so must every interval
    be.  (Resampled differences spreading less than 1e-9 of the scores' size were once
    taken for constant ones, and the studentized variance, from raw sums of squares,
    lost all its digits.)"""
    rng = np.random.default_rng(0)
    x, d = rng.normal(0, 1, 100), rng.normal(0.2, 1, 100)
    ref = pairboot.compare(x, x + d, seed=0, method=method, n_resamples=2000)
    res = pairboot.compare(x + 1e9, x + 1e9 + d, seed=0, method=method, n_resamples=2000)
    # b - a is off by about 1e9 * 2**-53 ~ 1e-7 per item at this offset
    assert res.confidence_interval == pytest.approx(ref.confidence_interval, abs=1e-5)
    assert res.p_value == pytest.approx(ref.p_value, abs=1e-3)


def test_tiny_differences_are_not_constant():
    """Two nearly equal systems (differences of 1e-10 on scores of 1) get the interval
    of their differences, not the zero width of constant ones."""
    rng = np.random.default_rng(0)
    a, d = rng.uniform(0, 1, 200), rng.normal(0, 1e-10, 200)
    ref = pairboot.compare(np.zeros(200), d, seed=0).confidence_interval
    with warnings.catch_warnings():
        warnings.simplefilter("error", pairboot.DegenerateDataWarning)
        got = pairboot.compare(a, a + d, seed=0).confidence_interval
    assert got.high - got.low == pytest.approx(ref.high - ref.low, rel=1e-4)
    assert got.low < 0 < got.high


def test_studentized_rounding_is_not_a_standard_error():
    """The per-item differences are 0.5, 0.5, 2.5 in all three: a resample of the first
    two items has a standard error of 0 (its t infinite), whatever rounding the scores
    carry; left at 1e-9 it made t about 1e8 and the interval (0.5, 4e7).  A third of the
    resamples are such, so the interval rests on them: undefined."""
    cases = [([0, 0, 0], [0.5, 0.5, 2.5]), ([0, 1, 2], [0.5, 1.5, 4.5]),
             ([0.1, 0.7, 0.3], [0.6, 1.2, 2.8])]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pairboot.PairbootWarning)
        results = [pairboot.compare(np.array(a) + offset, np.array(b) + offset, seed=0,
                                    method="studentized", n_resamples=2000)
                   for a, b in cases for offset in (0.0, 1e4, 1e8)]
    counts = set()
    for res in results:  # (b - a carries 1e8 * 2**-53 ~ 1e-8 of rounding at the largest offset)
        assert all(math.isnan(v) for v in res.confidence_interval)
        counts |= {int(w.split()[0]) for w in res.warnings if "drew too few distinct" in w}
    assert len(counts) == 1 and 600 < counts.pop() < 800  # the same resamples in every case


def test_studentized_keeps_the_variance_of_highly_correlated_systems():
    """b = a + d with d a million times smaller than a: Var(b - a) is tiny next to
    Var(a) and Var(b) but real; it must not be taken for rounding (an interval off by
    5-15% and half the resamples dropped)."""
    rng = np.random.default_rng(0)
    a, d = rng.uniform(0, 1, 200), rng.normal(0, 1e-7, 200)
    kw = dict(seed=0, method="studentized", n_resamples=2000)
    ref = pairboot.compare(np.zeros(200), d, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("error", pairboot.DegenerateDataWarning)
        got = pairboot.compare(a, a + d, **kw)
    assert got.confidence_interval == pytest.approx(ref.confidence_interval, rel=1e-2)


def test_studentized_ratio_does_not_depend_on_the_scale():
    """A ratio of sums is the same on statistics scaled by 1e-9, and so must its
    studentized interval be (the gradient's step had an absolute floor of 1, which
    swamped sums below 1e-6)."""
    rng = np.random.default_rng(0)
    den = rng.uniform(1, 5, 60)
    num_a = den * rng.uniform(0.3, 0.7, 60)
    num_b = num_a + den * rng.normal(0.05, 0.1, 60)
    res = [pairboot.compare(np.column_stack([num_a, den]) * s,
                            np.column_stack([num_b, den]) * s, metric="ratio",
                            method="studentized", seed=0, n_resamples=2000)
           for s in (1.0, 1e-9)]
    for get in (lambda r: r.confidence_interval, lambda r: r.score_a.confidence_interval):
        assert get(res[1]) == pytest.approx(get(res[0]), rel=1e-6)


def test_unpaired_samples_of_different_sizes_warn_on_the_smaller():
    """n_items counts both samples when their sizes differ; the warning about few items
    is about the smaller sample (5 items against 50 said nothing)."""
    rng = np.random.default_rng(0)
    for n_a, n_b, who in ((20, 21, "A"), (50, 5, "B")):
        with pytest.warns(pairboot.SmallSampleWarning,
                          match=f"only {min(n_a, n_b)} items in {who}'s sample"):
            pairboot.compare(rng.normal(0, 1, n_a), rng.normal(0.1, 1, n_b), paired=False,
                             seed=0)


@pytest.mark.parametrize("scale", [1e160, 1e-200])
def test_standard_error_at_extreme_scales(scale):
    """Scores scaled by 1e160 or 1e-200 scale the standard error and the normal interval
    (the replicates' squares overflowed to an infinite s.e., or underflowed to 0)."""
    rng = np.random.default_rng(0)
    x, d = rng.normal(0, 1, 100), rng.normal(0.2, 1, 100)
    ref = pairboot.compare(x, x + d, seed=0, method="normal", n_resamples=2000)
    res = pairboot.compare(x * scale, (x + d) * scale, seed=0, method="normal",
                           n_resamples=2000)
    assert res.standard_error / scale == pytest.approx(ref.standard_error, rel=1e-9)
    ci = np.array(res.confidence_interval) / scale
    assert ci == pytest.approx(np.array(ref.confidence_interval), rel=1e-9)
    assert res.p_value == pytest.approx(ref.p_value, rel=1e-6)


def test_one_resample_is_not_called_constant_differences():
    rng = np.random.default_rng(0)
    a = rng.uniform(size=40)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pairboot.compare(a, a + rng.normal(0, 0.1, 40), n_resamples=1, seed=0)
    messages = [str(w.message) for w in caught]
    assert any("1 resamples leave only" in m for m in messages), messages
    assert not any("differences are constant" in m for m in messages), messages


@pytest.mark.filterwarnings("ignore:only 2 items:pairboot.SmallSampleWarning")
@pytest.mark.filterwarnings(  # two items whose differences are both 0.5
    "ignore:every resampled difference equals 0.5:pairboot.DegenerateDataWarning"
)
def test_studentized_systems_say_what_they_dropped():
    """A system's studentized interval resting on resamples whose standard error is 0
    (one distinct value drawn) is undefined: that is said, as for the difference."""
    with pytest.warns(pairboot.DegenerateDataWarning,
                      match="A's and B's studentized intervals rest on them"):
        pairboot.compare(np.array([0.0, 1.0]), np.array([0.5, 1.5]), method="studentized",
                         seed=0, n_resamples=500)


@pytest.mark.slow
def test_the_constant_snap_follows_the_rounding_not_the_mean():
    """Differences of 1e-3 on scores of +-1e3 vary by the scores' rounding (1e-13): they
    are summed as they are, exactly, and said to be mostly rounding; tiny but real
    differences among 200,000 items (1e-9 on scores of 1) are not snapped either (a
    tolerance growing with sqrt(n) once snapped them, p = 0)."""
    rng = np.random.default_rng(0)
    base = rng.normal(0, 1e3, 500)
    a = np.concatenate([base, -base])
    d = (a + 1e-3) - a
    assert 0 < np.ptp(d) < 1e-12
    with pytest.warns(pairboot.DegenerateDataWarning,
                      match="constant .B - A. to within the rounding"):
        res = pairboot.compare(a, a + 1e-3, seed=0, n_resamples=500)
    ci = res.confidence_interval
    assert d.min() <= ci.low < ci.high <= d.max()
    a, d = rng.uniform(0, 1, 200_000), rng.normal(0, 1e-9, 200_000)
    ref = pairboot.compare(np.zeros_like(d), d, seed=0, n_resamples=500).confidence_interval
    got = pairboot.compare(a, a + d, seed=0, n_resamples=500).confidence_interval
    assert got.high - got.low == pytest.approx(ref.high - ref.low, rel=1e-3)


def test_resamples_beyond_memory_are_refused_before_drawing(monkeypatch):
    """The memory the sums need is checked against what the process may use, in memory
    and per part of the Poisson bootstrap, before anything is allocated."""
    from pairboot.engine import memory

    a, b = [0.2, 0.5, 0.4, 0.7] * 10, [0.3, 0.6, 0.4, 0.9] * 10
    monkeypatch.setattr(memory, "memory_limit", lambda: 50 * 2**20)  # 50 MiB
    monkeypatch.setattr(memory, "resident_bytes", lambda: 10 * 2**20)  # 10 held
    with pytest.raises(pairboot.errors.InputError, match="MiB for the resampled sums") as err:
        pairboot.compare(a, b, n_resamples=1_000_000, seed=1)
    assert err.value.param == "n_resamples"
    with pytest.raises(pairboot.errors.InputError, match="give fewer resamples"):
        pairboot.compare(a, b, n_resamples=1_000_000, seed=1, resampling="poisson",
                         ids=[str(i) for i in range(40)])
    assert pairboot.compare(a, b, n_resamples=2000, seed=1).n_resamples == 2000

"""compare_metrics(): several metrics of one comparison on the same draws.

Each row is checked against an independent computation on the same data and seed:
compare() of that metric alone (the same units drawn by index, so the same replicates),
compare_many() of the same columns for a correction across metrics, and the
replicates' correlation where two metrics move together by construction."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest

import pairboot
from pairboot import Criterion
from pairboot.errors import InputError
from pairboot.report import formats_of, render
from pairboot.results.metrics import MetricsResult

R = 1999


def data(n=300, seed=0):
    """Continuous per-item columns (every unit distinct: drawn by index, alone or
    together), B better on quality, cheaper, as fast, and a pooled ratio."""
    rng = np.random.default_rng(seed)
    q = rng.random(n)
    cost = rng.gamma(2.0, 0.01, n)
    lat = rng.gamma(3.0, 100.0, n)
    num, den = rng.random(n), rng.random(n) + 0.5
    a = {"quality": q, "cost": cost, "latency": lat, "num": num, "den": den}
    b = {"quality": q + rng.normal(0.04, 0.1, n), "cost": cost * rng.normal(0.9, 0.05, n),
         "latency": lat + rng.normal(0.0, 20.0, n), "num": num + rng.normal(0.02, 0.1, n),
         "den": den}
    return a, b


def spec(margins=True):
    return {
        "quality": Criterion(margin=0.02 if margins else None),
        "cost": Criterion(lower_is_better=True, margin=0.001 if margins else None),
        "latency": Criterion(lower_is_better=True, margin=10.0 if margins else None),
        "ratio": Criterion("ratio", columns=("num", "den"), margin=0.01 if margins else None),
    }


def alone(a, b, name, crit, **kw):
    cols = crit.columns or (name,)
    x = np.column_stack([a[c] for c in cols]) if len(cols) > 1 else a[cols[0]]
    y = np.column_stack([b[c] for c in cols]) if len(cols) > 1 else b[cols[0]]
    return pairboot.compare(x, y, metric=crit.metric, lower_is_better=crit.lower_is_better,
                            margin=crit.margin, seed=3, n_resamples=R, **kw)


@pytest.mark.parametrize("hypothesis", ["difference", "non-inferiority"])
def test_each_row_is_compare_of_that_metric_alone_on_the_same_draws(hypothesis):
    a, b = data()
    res = pairboot.compare_metrics(a, b, metrics=spec(), seed=3, n_resamples=R,
                                   hypothesis=hypothesis)
    assert res.metrics == ("quality", "cost", "latency", "ratio")
    for k, (name, crit) in enumerate(spec().items()):
        one = alone(a, b, name, crit, hypothesis=hypothesis)
        row = res[name]
        assert row.estimate == pytest.approx(one.estimate, rel=1e-12, abs=1e-15)
        np.testing.assert_allclose(res.bootstrap_distribution[:, k],
                                   one.bootstrap_distribution, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(row.confidence_interval, one.confidence_interval,
                                   rtol=1e-9, atol=1e-12)
        assert row.p_value == pytest.approx(one.p_value, abs=1e-12)
        assert row.verdict == one.verdict()
        assert row.score_a.estimate == pytest.approx(one.score_a.estimate, rel=1e-12)
        np.testing.assert_allclose(row.score_b.confidence_interval,
                                   one.score_b.confidence_interval, rtol=1e-9)


@pytest.mark.parametrize("method, resampling", [
    ("basic", "classic"), ("bca", "classic"), ("studentized", "classic"),
    ("percentile", "poisson")])
def test_every_method_and_poisson_weights_give_compare_s_row(method, resampling):
    """A lower-is-better row is drawn as A - B and turned back: BCa's bias correction and
    the studentized roots are the same on either side."""
    a, b = data(seed=6)
    metrics = spec(False)
    res = pairboot.compare_metrics(a, b, metrics=metrics, seed=3, n_resamples=R,
                                   method=method, resampling=resampling)
    for name, crit in metrics.items():
        one = alone(a, b, name, crit, method=method, resampling=resampling)
        np.testing.assert_allclose(res[name].confidence_interval, one.confidence_interval,
                                   rtol=1e-9, atol=1e-12)
        assert res[name].p_value == pytest.approx(one.p_value, abs=1e-12)


def test_the_one_sided_p_values_are_compare_s_against_the_margin_on_the_better_side():
    a, b = data(seed=1)
    res = pairboot.compare_metrics(a, b, metrics=spec(), seed=3, n_resamples=R)
    for name, crit in spec().items():
        row = res[name]
        better = "less" if crit.lower_is_better else "greater"
        assert row.p_better == pytest.approx(
            alone(a, b, name, crit, alternative=better).p_value, abs=1e-12)
        assert row.p_non_inferior == pytest.approx(
            alone(a, b, name, crit, hypothesis="non-inferiority").p_value, abs=1e-12)
        assert row.p_better_by_margin == pytest.approx(
            alone(a, b, name, crit, hypothesis="superiority").p_value, abs=1e-12)


def test_lower_is_better_rows_are_b_minus_a_on_the_metric_s_scale():
    a, b = data()
    res = pairboot.compare_metrics(a, b, metrics=spec(False), seed=3, n_resamples=R)
    cost = res["cost"]
    assert cost.estimate == pytest.approx(np.mean(b["cost"]) - np.mean(a["cost"]))
    assert cost.estimate < 0 and cost.confidence_interval.high < 0
    assert cost.verdict == "better" and cost.p_better < 0.01
    assert cost.p_non_inferior is None and cost.p_better_by_margin is None


def test_max_t_across_metrics_is_compare_many_on_the_same_columns():
    """A correction across the metrics reads the same joint draws as a family of the
    same columns (lower-is-better rows as A - B: B's gain)."""
    a, b = data(seed=2)
    metrics = {"quality": "mean", "cost": Criterion(lower_is_better=True),
               "latency": Criterion(lower_is_better=True)}
    for correction in ("max-t", "holm"):
        res = pairboot.compare_metrics(a, b, metrics=metrics, seed=5, n_resamples=R,
                                       correction=correction)
        scores = {f"{s} {m}": x[m] for m in metrics for s, x in (("A", a), ("B", b))}
        pairs = [("A quality", "B quality"), ("B cost", "A cost"), ("B latency", "A latency")]
        with warnings.catch_warnings():  # (its note on the systems' different scales)
            warnings.simplefilter("ignore")
            fam = pairboot.compare_many(scores, pairs=pairs, seed=5, n_resamples=R,
                                        correction=correction)
        assert res.correction == correction
        if correction == "max-t":
            assert res.critical_value == pytest.approx(fam.critical_value, rel=1e-9)
        for row, c, sign in zip(res.rows, fam.comparisons, (1, -1, -1)):
            assert row.p_adjusted == pytest.approx(c.p_adjusted, abs=1e-12)
            assert row.estimate == pytest.approx(sign * c.estimate, rel=1e-12)
            low, high = c.confidence_interval
            expect = (low, high) if sign > 0 else (-high, -low)
            np.testing.assert_allclose(row.confidence_interval, expect, rtol=1e-9)


def test_a_gate_reads_max_t_across_metrics_off_the_gains():
    """The joint draws on the gain scale are what the family's max-t read: its critical
    value from them, one-sided too (simultaneous lower bounds of B's gains)."""
    from pairboot.stats.multiple import max_t

    a, b = data(seed=8)
    metrics = spec(False)
    res = pairboot.compare_metrics(a, b, metrics=metrics, seed=5, n_resamples=R,
                                   correction="max-t")
    gains = res.gain_distribution
    est = np.array([-r.estimate if r.lower_is_better else r.estimate for r in res.rows])
    se = np.array([r.standard_error for r in res.rows])
    assert np.all(gains[:, 1] == -res.bootstrap_distribution[:, 1])
    assert max_t(est, se, gains, 0.05).critical_value == pytest.approx(
        res.critical_value, rel=1e-12)
    one_sided = max_t(est, se, gains, 0.05, "greater")
    assert one_sided.critical_value < res.critical_value  # (one side: a smaller c)


def test_the_draws_are_shared_across_metrics():
    """Two metrics that move together item by item move together resample by resample
    (independent draws would give a correlation near 0)."""
    a, b = data()
    a2 = {**a, "twice": 2 * a["quality"] + 1.0}
    b2 = {**b, "twice": 2 * b["quality"] + 1.0}
    res = pairboot.compare_metrics(a2, b2, metrics={"quality": "mean", "twice": "mean",
                                                    "cost": "mean"},
                                   seed=1, n_resamples=R)
    x = res.bootstrap_distribution
    np.testing.assert_allclose(x[:, 1], 2 * x[:, 0], rtol=1e-9, atol=1e-12)
    assert res.correlation[0, 1] == pytest.approx(1.0, abs=1e-9)
    assert res.correlation.shape == (3, 3)


def test_a_pooled_metric_among_them():
    """F1 on 0/1 counts: compare() alone takes the exact multinomial path of its few
    distinct rows (other draws), so the row has its estimate and, within the Monte Carlo
    error, its standard error."""
    rng = np.random.default_rng(4)
    n = 500
    truth = rng.random(n) < 0.4
    pa, pb = truth ^ (rng.random(n) < 0.25), truth ^ (rng.random(n) < 0.15)

    def counts(pred):
        return {"tp": (pred & truth) * 1.0, "fp": (pred & ~truth) * 1.0,
                "fn": (~pred & truth) * 1.0}

    a = {**counts(pa), "cost": rng.gamma(2.0, 0.01, n)}
    b = {**counts(pb), "cost": a["cost"] * 1.1}
    res = pairboot.compare_metrics(a, b, metrics={"f1": "f1", "cost": Criterion(
        lower_is_better=True)}, seed=2, n_resamples=R)
    one = pairboot.compare(np.column_stack([a[c] for c in ("tp", "fp", "fn")]),
                           np.column_stack([b[c] for c in ("tp", "fp", "fn")]),
                           metric="f1", seed=2, n_resamples=R)
    row = res["f1"]
    assert row.metric == "f1" and row.columns == ("tp", "fp", "fn")
    assert row.estimate == pytest.approx(one.estimate, rel=1e-12)
    # (the sd of R resamples has a relative Monte Carlo error near 1 / sqrt(2 R): 1.6%)
    assert row.standard_error == pytest.approx(one.standard_error, rel=0.1)
    assert row.verdict == "better" and res["cost"].verdict == "worse"


def test_frames_joined_on_ids_give_the_rows_of_the_frames_in_one_order():
    pd = pytest.importorskip("pandas")
    a, b = data(n=120)
    fa = pd.DataFrame({"id": [f"q{i}" for i in range(120)], **a})
    fb = pd.DataFrame({"id": [f"q{i}" for i in range(120)], **b})
    shuffled = fb.sample(frac=1.0, random_state=0)
    metrics = {"quality": "mean", "cost": Criterion(lower_is_better=True)}
    joined = pairboot.compare_metrics(fa, shuffled, ids="id", metrics=metrics, seed=1,
                                      n_resamples=499)
    ordered = pairboot.compare_metrics(fa, fb, ids="id", metrics=metrics, seed=1,
                                       n_resamples=499)
    np.testing.assert_allclose(joined.bootstrap_distribution,
                               ordered.bootstrap_distribution, rtol=1e-12)


def test_strata_and_groups_are_each_metric_s_as_compare_gives_them():
    a, b = data(n=480, seed=5)
    strata = np.repeat(["x", "y", "z"], 160)
    groups = np.repeat(np.arange(120), 4)
    metrics = {"quality": "mean", "latency": Criterion(lower_is_better=True)}
    res = pairboot.compare_metrics(a, b, metrics=metrics, strata=strata, groups=groups,
                                   seed=2, n_resamples=R)
    assert res.n_groups == 120 and res.n_strata == 3
    for k, name in enumerate(metrics):
        one = pairboot.compare(a[name], b[name], strata=strata, groups=groups, seed=2,
                               n_resamples=R, lower_is_better=name == "latency")
        np.testing.assert_allclose(res.bootstrap_distribution[:, k],
                                   one.bootstrap_distribution, rtol=1e-9, atol=1e-12)


def test_every_format_is_written():
    a, b = data(n=80)
    res = pairboot.compare_metrics(a, b, metrics=spec(), seed=1, n_resamples=999,
                                   correction="max-t")
    assert isinstance(res, MetricsResult)
    assert set(formats_of(MetricsResult)) >= {"text", "json", "markdown", "github", "latex"}
    for fmt in formats_of(MetricsResult):
        out = render(res, fmt)
        assert "quality" in out and "latency" in out
    loaded = json.loads(render(res, "json"))
    assert [r["name"] for r in loaded["rows"]] == list(res.metrics)
    assert loaded["rows"][1]["lower_is_better"] is True
    assert "metrics quality:0.02,cost:lower:0.001" in loaded["signature"]
    assert "max-t" in str(res) and "p adjusted" in str(res)
    pd = pytest.importorskip("pandas")
    frame = res.to_frame()
    assert isinstance(frame, pd.DataFrame) and list(frame["metric"]) == list(res.metrics)
    assert "MetricsResult(metrics=" in repr(res)


@pytest.mark.parametrize("metrics, kw, message, param", [
    ({"cost": Criterion(lower_is_better=True, margin=-0.01)}, {}, "margin -0.01 is negative",
     "metrics"),
    ({"quality": Criterion(margin=-1)}, {}, "negative", "metrics"),
    ({"nope": "mean"}, {}, "`a` has no column 'nope'", "a"),
    ({"quality": "mean", "cost": Criterion(margin=0.001)},
     {"hypothesis": "non-inferiority"}, "`metrics['quality']` has none", "metrics"),
    ({}, {}, "non-empty mapping", "metrics"),
    ({"quality": Criterion(margin=5.0)}, {}, "larger than the scores' range", "metrics"),
    ({"quality": "macro_f1"}, {}, "name them with Criterion(columns=...)", "metrics"),
    ({"quality": "mean"}, {"method": "score"}, "method", "method"),
    ({"quality": "mean"}, {"names": ("x", "x")}, "two different names", "names"),
    ({"quality": 3}, {}, "must be a metric's name", "metrics"),
    ({"y z": Criterion(columns=("quality",)), "z": Criterion(columns=("cost",))},
     {"names": ("x", "x y")}, "run together", "names"),
])
def test_bad_input_is_one_line_naming_the_argument(metrics, kw, message, param):
    a, b = data(n=40)
    with pytest.raises(InputError, match=None) as info:
        pairboot.compare_metrics(a, b, metrics=metrics, n_resamples=99, seed=1, **kw)
    assert message in str(info.value) and "\n" not in str(info.value)
    assert info.value.param == param


def test_a_non_finite_value_is_named_by_its_column_and_item():
    a, b = data(n=40)
    b["cost"] = b["cost"].copy()
    b["cost"][7] = np.nan
    with pytest.raises(InputError, match="`b` column 'cost' has a non-finite value "
                                         r"\(nan\) at item 7"):
        pairboot.compare_metrics(a, b, metrics={"quality": "mean", "cost": "mean"},
                                 n_resamples=99, seed=1)


def test_parse_criterion_reads_the_command_line_s_spelling():
    from pairboot.metrics.joint import parse_criterion

    assert parse_criterion("correct") == ("correct", Criterion())
    assert parse_criterion("cost:lower") == ("cost", Criterion(lower_is_better=True))
    assert parse_criterion("latency_ms:lower:50") == (
        "latency_ms", Criterion(lower_is_better=True, margin=50.0))
    assert parse_criterion("correct:0.01") == ("correct", Criterion(margin=0.01))
    for bad, message in (("cost:lower:-1", "finite size >= 0"), ("cost:cheap", "neither"),
                         (":lower", "no column"), ("x:1:2", "two margins")):
        with pytest.raises(InputError, match=message):
            parse_criterion(bad)


def test_the_notes_name_a_lower_is_better_row_b_minus_a_as_its_row_does():
    """A lower-is-better row is computed as A - B (a gain positive) but reported as
    B - A: its notes name it "B cost - A cost", with B - A's skewness (that of the same
    differences on a higher-is-better row)."""
    rng = np.random.default_rng(2)
    a = rng.uniform(2, 8, 50)
    b = a + rng.lognormal(0.0, 1.0, 50) - math.exp(0.5)  # (B - A skews right)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = pairboot.compare_metrics(
            {"cost": a, "q": a}, {"cost": b, "q": b}, seed=1, n_resamples=R,
            metrics={"cost": Criterion(lower_is_better=True), "q": "mean"})
    (note,) = [w for w in res.warnings if "skewed" in w]
    assert "A cost - B cost" not in note
    assert "B cost - A cost: 3.1, B q - A q: 3.1" in note

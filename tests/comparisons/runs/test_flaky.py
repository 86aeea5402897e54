"""The flaky items of repeated 0/1 trials (``compare(..., runs="samples")``,
:attr:`CompareResult.flaky`): the rates and intervals against scipy, the lists on a
constructed table (exact items and order), every format showing them, and where there
are none."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

import pairboot
from pairboot.report import render

pytestmark = [pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning"),
              pytest.mark.filterwarnings("ignore::pairboot.errors.DegenerateDataWarning")]

N = math.nan
# items x 6 trials (NaN: not run); the comment says what each item is
A = np.array([
    [1, 1, 1, 1, N, N],  # t0: always, both
    [0, 0, 0, 0, N, N],  # t1: never -> always (4 trials): p = 1/35
    [1, 0, 1, 0, N, N],  # t2: 2/4 both: stochastic, rate 1/2
    [1, 1, 1, 0, N, N],  # t3: A 3/4 -> B 0/4: p = 8/56, not flagged
    [1, 0, 0, 0, N, N],  # t4: A 1/4 -> B 3/3
    [0, 1, N, N, N, N],  # t5: A 1/2 (2 trials) -> B 0/4
    [1, 1, 1, 1, N, N],  # t6: always -> never: p = 1/35
    [0, 0, 0, 0, 0, 0],  # t7: 0/6 -> 6/6: p = 2/924
])
B = np.array([
    [1, 1, 1, 1, N, N],
    [1, 1, 1, 1, N, N],
    [1, 1, 0, 0, N, N],
    [0, 0, 0, 0, N, N],
    [1, 1, 1, N, N, N],
    [0, 0, 0, 0, N, N],
    [0, 0, 0, 0, N, N],
    [1, 1, 1, 1, 1, 1],
])
IDS = [f"t{i}" for i in range(8)]


def _result(metric="pass@1", **kw):
    kw = {"runs": "samples", "n_resamples": 200, "seed": 1, "ids": IDS, **kw}
    metric = {"metric": metric} if metric != "pass@1" else {}
    return pairboot.compare(A, B, **metric, **kw)


def test_the_lists_on_a_constructed_table():
    f = _result("pass^2").flaky
    ids = lambda idx: [IDS[i] for i in idx]  # noqa: E731
    # A: at 1/2, 4 trials before 2; then 1/4 off, in the order given
    assert ids(f.stochastic[0]) == ["t2", "t5", "t3", "t4"]
    assert ids(f.stochastic[1]) == ["t2"]
    assert ids(f.stochastic_any) == ["t2", "t5", "t3", "t4"]
    # smallest p first; equal p and change: the order given
    assert ids(f.flipped) == ["t7", "t1", "t6"]
    assert f.p_values[7] == pytest.approx(2 / 924)
    assert f.p_values[1] == pytest.approx(1 / 35) and f.p_values[6] == pytest.approx(1 / 35)
    assert f.trials[:, 0].tolist() == [4, 4, 4, 4, 4, 2, 4, 6]
    assert f.successes[:, 1].tolist() == [4, 4, 2, 0, 3, 0, 0, 6]
    d = f.to_dict()
    assert d["flipped"] == ["t7", "t1", "t6"] and d["stochastic_a"] == ["t2", "t5", "t3", "t4"]
    assert len(d["items"]) == 8 and d["items"][4]["b"]["trials"] == 3


def test_rates_intervals_and_tests_against_scipy():
    f = _result(confidence_level=0.9).flaky
    assert f.confidence_level == 0.9
    for i in range(len(A)):
        for s, table in enumerate((A, B)):
            row = table[i][~np.isnan(table[i])].astype(int)
            ci = stats.binomtest(int(row.sum()), len(row)).proportion_ci(0.9, method="exact")
            assert f.rates[i, s] == row.mean()
            assert f.low[i, s] == pytest.approx(ci.low, rel=1e-8, abs=1e-300)
            assert f.high[i, s] == pytest.approx(ci.high, rel=1e-8)
        (ca, cb), (na, nb) = f.successes[i], f.trials[i]
        p = stats.fisher_exact([[ca, na - ca], [cb, nb - cb]])[1]
        assert f.p_values[i] == pytest.approx(p, rel=1e-12)
    assert np.allclose(f.q_values, stats.false_discovery_control(f.p_values), rtol=1e-12)
    # chance flips: each item's null chance of p <= alpha given its total successes
    want = 0.0
    for (ca, cb), (na, nb) in zip(f.successes, f.trials):
        law = stats.hypergeom(na + nb, na, ca + cb)
        for x in range(max(0, ca + cb - nb), min(ca + cb, na) + 1):
            y = ca + cb - x
            if stats.fisher_exact([[x, na - x], [y, nb - y]])[1] <= 0.1:
                want += law.pmf(x)
    assert f.expected_flips == pytest.approx(want, rel=1e-10)


def test_every_k_trial_metric_and_the_mean_have_them_alike():
    base = _result().flaky
    assert base is not None
    for metric in ("pass^2", "pass@2", "maj@1"):
        assert _result(metric).flaky == base


@pytest.mark.parametrize("fmt", ["text", "markdown", "latex", "github", "html",
                                 "html-fragment"])
def test_every_format_shows_them(fmt):
    out = render(_result("pass^2", top_items=2), fmt)
    assert "Flaky items (repeated trials)" in out
    assert "t7" in out and "t1" in out
    assert "t6" not in out.split("Flaky items")[1]  # (2 at most listed)
    assert "2 of 3; the JSON report has every item" in " ".join(out.split())


def test_json_has_every_item():
    out = json.loads(render(_result("pass^2", top_items=1), "json"))
    assert out["flaky"]["flipped"] == ["t7", "t1", "t6"]
    assert out["flaky"]["top"] == 1 and len(out["flaky"]["items"]) == 8
    assert out["flaky"]["items"][7]["b"] == {"trials": 6, "successes": 6, "rate": 1.0,
                                             "low": pytest.approx(0.025 ** (1 / 6)),
                                             "high": 1.0, "stochastic": False}


def test_none_without_zero_one_trials():
    rng = np.random.default_rng(0)
    x, y = rng.random((10, 3)), rng.random((10, 3))
    assert pairboot.compare(x, y, runs="samples", n_resamples=50).flaky is None
    full = [0, 1, 2, 3, 6, 7]
    assert pairboot.compare(A[full, :4], B[full, :4], runs="seeds",
                            n_resamples=50).flaky is None
    res = pairboot.compare(x, y, runs="samples", n_resamples=50)
    assert "flaky" not in res.to_dict() and "Flaky" not in str(res)


def test_no_flip_says_so():
    f = pairboot.compare(A, A, runs="samples", n_resamples=50).flaky
    assert len(f.flipped) == 0 and f.p_values == pytest.approx(np.ones(8))
    assert "No item flipped between A and B beyond its trial noise" in render(
        pairboot.compare(A, A, runs="samples", n_resamples=50), "text")


def test_frame():
    pytest.importorskip("pandas")
    frame = _result().flaky.frame()
    assert list(frame["id"]) == IDS and frame["rate_b"].tolist()[4] == 1.0

"""compare(..., test="mcnemar"): the exact McNemar test beside the bootstrap interval.

References: statsmodels' ``mcnemar(table, exact=True)`` for the two-sided p-value (to
1e-12), scipy's ``binomtest`` for the one-sided ones; the 2 x 2 table counted by hand;
the reports' words against the result's fields.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import assert_one_line_error, run_in_process
from scipy.stats import binomtest
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

import pairboot
from pairboot.errors import InputError
from pairboot.report import render

KW = {"n_resamples": 999, "seed": 1}


def zero_one(n: int, flips: float, gain: int, seed: int):
    rng = np.random.default_rng(seed)
    a = (rng.random(n) < 0.6).astype(float)
    b = a.copy()
    flip = rng.random(n) < flips
    b[flip] = 1 - b[flip]
    b[:gain] = 1.0
    return a, b


@pytest.mark.filterwarnings("ignore::pairboot.DegenerateDataWarning")  # (no flip: constant)
@pytest.mark.parametrize("n, flips, gain, seed", [(40, 0.2, 3, 1), (200, 0.1, 8, 2),
                                                  (5_000, 0.05, 40, 3), (30, 0.0, 0, 4)])
def test_the_p_value_and_table_are_statsmodels_and_scipy(n, flips, gain, seed):
    a, b = zero_one(n, flips, gain, seed)
    both = int(np.sum((a == 1) & (b == 1)))
    only_a = int(np.sum((a == 1) & (b == 0)))
    only_b = int(np.sum((a == 0) & (b == 1)))
    neither = n - both - only_a - only_b
    res = pairboot.compare(a, b, test="mcnemar", **KW)
    t = res.test
    assert (t.table.both, t.table.only_a, t.table.only_b, t.table.neither) == (
        both, only_a, only_b, neither)
    assert t.n == only_a + only_b and t.exact and t.name == "mcnemar"
    want = sm_mcnemar([[both, only_a], [only_b, neither]], exact=True).pvalue
    assert t.p_value == pytest.approx(want, rel=1e-12, abs=1e-15)
    for side in ("greater", "less"):
        one = pairboot.compare(a, b, test="mcnemar", alternative=side, **KW).test
        if only_a + only_b == 0:
            assert one.p_value == 1.0
            continue
        # "greater": B better, the count of items only B got right is large
        ref = binomtest(only_b, only_a + only_b, 0.5, alternative=side).pvalue
        assert one.p_value == pytest.approx(ref, rel=1e-12)
    assert t.p_value_mid <= t.p_value  # (the mid-p takes half the observed count's mass)


def test_the_interval_is_the_bootstrap_s_whatever_the_test():
    a, b = zero_one(200, 0.1, 8, 2)
    plain = pairboot.compare(a, b, **KW)
    tested = pairboot.compare(a, b, test="mcnemar", **KW)
    assert tested.confidence_interval == plain.confidence_interval
    assert tested.p_value == plain.p_value and plain.test is None


@pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")  # (A: 0 on every item)
def test_a_disagreement_is_said_plainly():
    # few discordant items, all one way: the bootstrap's p is below 0.05, McNemar's is
    # 2 / 2^5 = 0.0625 (the 0.0099 against 0.0124 is the same effect)
    a = np.zeros(60)
    b = np.zeros(60)
    b[:5] = 1.0
    res = pairboot.compare(a, b, test="mcnemar", **KW)
    assert res.test.p_value == pytest.approx(0.0625)
    assert res.p_value < 0.05 and res.test_disagrees
    text = " ".join(render(res, "text").split())
    assert "The test and the interval disagree at 5%" in text
    assert "McNemar's exact test (two-sided): p = 0.062" in text  # (0.0625, to 3 digits)
    out = json.loads(render(res, "json"))
    assert out["test"]["table"] == {"both": 0, "only_a": 0, "only_b": 5, "neither": 55}
    assert out["test"]["p_value"] == pytest.approx(0.0625)


@pytest.mark.parametrize("kwargs, words", [
    ({"b": np.linspace(0, 1, 40)}, "needs 0/1 scores"),
    ({"groups": np.repeat(np.arange(20), 2)}, "takes the items as independent"),
    ({"strata": np.repeat(["x", "y"], 20)}, "pools the items"),
    ({"paired": False}, "not `paired=False`"),
    ({"hypothesis": "non-inferiority", "margin": 0.1}, "not a margin"),
    ({"metric": "accuracy", "a": np.ones((40, 2)), "b": np.ones((40, 2))}, "0/1 scores"),
    ({"test": "wilcoxon"}, "`test` must be None or one of mcnemar"),
])
def test_where_mcnemar_does_not_hold_it_is_refused(kwargs, words):
    a, b = zero_one(40, 0.2, 3, 1)
    call = {"a": a, "b": b, "test": "mcnemar", **KW, **kwargs}
    with pytest.raises(InputError) as info:
        pairboot.compare(**call)
    assert info.value.param == "test" and words in str(info.value), str(info.value)


def test_runs_refuse_a_test():
    a, b = zero_one(40, 0.2, 3, 1)
    with pytest.raises(InputError) as info:
        pairboot.compare(np.stack([a, a], 1), np.stack([b, b], 1), runs="seeds",
                         test="mcnemar")
    assert info.value.param == "test"


def test_the_command_line_reports_and_refuses(tmp_path):
    a, b = zero_one(200, 0.1, 8, 2)
    fa, fb = tmp_path / "a.csv", tmp_path / "b.csv"
    for path, v in ((fa, a), (fb, b)):
        path.write_text("id,score\n" + "".join(f"q{i},{int(x)}\n" for i, x in enumerate(v)))
    args = ["compare", fa, fb, "--id", "id", "--score", "score", "--resamples", "999",
            "--seed", "1"]
    out = json.loads(run_in_process(*args, "--test", "mcnemar", "--format", "json").stdout)
    assert out["test"]["p_value"] == pytest.approx(
        pairboot.compare(a, b, test="mcnemar", **KW).test.p_value, rel=1e-12)
    md = run_in_process(*args, "--test", "mcnemar", "--format", "markdown").stdout.decode()
    assert "McNemar's exact test (two-sided)" in md
    assert_one_line_error(run_in_process(*args, "--test", "mcnemar", "--group", "id"),
                          "--test mcnemar: it takes the items as independent")
    assert_one_line_error(run_in_process(*args, "--test", "mcnemar", "--stream",
                                         "--resampling", "poisson"),
                          "--test mcnemar needs each item's two 0/1 scores side by side")

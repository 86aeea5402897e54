"""compare_strata: each stratum's difference as a family (lm-eval's --tasks-as family).

The rows must be the per-stratum differences of the one stratified resampling that
compare() does (the same draws): under ``correction="none"`` each row's interval and
p-value are compare()'s stratum results exactly; max-t's simultaneous intervals contain
the marginal ones; the command line's --tasks-as family gives the same rows.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from helpers import assert_one_line_error, run_in_process

import pairboot
from pairboot.errors import InputError


def _data():
    rng = np.random.default_rng(4)
    n = 900
    strata = np.array(["arc", "hellaswag", "mmlu"])[np.arange(n) % 3]
    a = (rng.random(n) < 0.6).astype(float)
    b = (rng.random(n) < np.where(strata == "arc", 0.72, 0.6)).astype(float)
    return a, b, strata


def test_rows_are_compares_strata():
    a, b, strata = _data()
    whole = pairboot.compare(a, b, strata=strata, seed=3, n_resamples=2000)
    fam = pairboot.compare_strata(a, b, strata=strata, seed=3, n_resamples=2000,
                                  correction="none", names=("base", "new"))
    assert [c.b for c in fam.comparisons] == ["new [arc]", "new [hellaswag]", "new [mmlu]"]
    for row, s in zip(fam.comparisons, whole.strata, strict=True):
        assert row.estimate == s.estimate
        assert tuple(row.confidence_interval) == tuple(s.confidence_interval)
        assert row.p_value == s.p_value
    assert fam.systems["base [arc]"].estimate == whole.strata[0].score_a.estimate


def test_max_t_is_wider_than_marginal_and_decides():
    a, b, strata = _data()
    fam = pairboot.compare_strata(a, b, strata=strata, seed=3, n_resamples=2000)
    assert fam.critical_value > 1.96 and fam.family_size == 3
    for c in fam.comparisons:
        assert c.confidence_interval.low <= c.marginal_interval.low
        assert c.confidence_interval.high >= c.marginal_interval.high
        assert c.p_value <= c.p_adjusted <= c.p_single_step
    with pytest.raises(InputError, match="`strata` is required"):
        pairboot.compare_strata(a, b, strata=None)
    with pytest.raises(TypeError, match="baseline"):
        pairboot.compare_strata(a, b, strata=strata, baseline="A")


def test_cli_tasks_as_family(tmp_path):
    a, b, strata = _data()
    path = tmp_path / "runs.csv"
    path.write_text("id,task,a,b\n" + "".join(
        f"q{i},{t},{int(x)},{int(y)}\n" for i, (t, x, y) in enumerate(zip(strata, a, b))))
    proc = run_in_process("compare", path, "--a", "a", "--b", "b", "--stratum", "task",
                          "--tasks-as", "family", "--seed", "3", "--resamples", "2000",
                          "--format", "json", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    fam = pairboot.compare_strata(a, b, strata=strata, seed=3, n_resamples=2000,
                                  names=("a", "b"))
    assert [c["p_adjusted"] for c in got["comparisons"]] == [c.p_adjusted
                                                             for c in fam.comparisons]
    proc = run_in_process("compare", path, "--a", "a", "--b", "b", "--tasks-as", "family",
                          "--no-progress")
    assert_one_line_error(proc, "--tasks-as family needs tasks")


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")
def test_studentized_max_t_holds_the_error_rate_over_small_strata():
    # No difference anywhere, 10 strata of 8 items: the percentile method's max-t flags
    # some stratum far more often than 5% (its roots have normal tails where a mean of 8
    # has a t's); the studentized method's max-t, on each resample's own standard error,
    # holds 5% within the Monte Carlo error (docs/small_samples.md)
    n_data, k, size = 80, 10, 8
    bound = 0.05 + 3 * math.sqrt(0.05 * 0.95 / n_data)
    strata = np.repeat([f"s{j}" for j in range(k)], size)
    flagged = {"percentile": 0, "studentized": 0}
    rng = np.random.default_rng(11)
    for r in range(n_data):
        a, b = rng.normal(size=(2, k * size))
        for method in flagged:
            res = pairboot.compare_strata(a, b, strata=strata, n_resamples=499, seed=r,
                                          method=method)
            flagged[method] += any(bool(c.significant) for c in res.comparisons)
    assert flagged["studentized"] / n_data <= bound
    assert flagged["percentile"] / n_data > bound

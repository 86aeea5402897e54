"""``compare(a, b, runs="samples", metric="pass^4")`` and its kin: each item's trials
become its unbiased estimate (checked against enumeration in tests/stats/test_trials.py),
then compare()'s pipeline runs on the per-item values, so every design is compare()'s
own: the same seed gives the same answer as compare() of the estimates."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction

import numpy as np
import pytest

import pairboot
from pairboot.errors import InputError
from pairboot.metrics import maj_at, pass_at, pass_hat, trials_metric
from pairboot.rendering import rendered

# (small fixtures: the notes on few items or groups, and on skew, are not what is tested)
pytestmark = pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")


def _tables(seed: int = 5, n: int = 40, trials: int = 5):
    """Two systems' items x trials 0/1 tables (B a little better), NaN for a few trials
    B's items did not run (every item keeps 4 or more)."""
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    a = (rng.random((n, trials)) < p[:, None]).astype(float)
    b = (rng.random((n, trials)) < np.clip(p[:, None] + 0.2, 0, 1)).astype(float)
    b[[2, 7, 11], -1] = np.nan
    return a, b


def _enumerated(row, k: int, event) -> float:
    done = [int(v) for v in row if not np.isnan(v)]
    subsets = list(itertools.combinations(done, k))
    return float(Fraction(sum(bool(event(s)) for s in subsets), len(subsets)))


@pytest.mark.parametrize(("metric", "event"), [
    ("pass^3", all), ("pass@3", any), ("maj@3", lambda s: 2 * sum(s) > len(s)),
    ("PASS^2", all), ("maj@4", lambda s: 2 * sum(s) > len(s))])
def test_same_answer_as_compare_of_the_estimates(metric, event):
    a, b = _tables()
    res = pairboot.compare(a, b, runs="samples", metric=metric, n_resamples=2000, seed=11)
    trials = trials_metric(metric)
    va, vb = (np.array([_enumerated(r, trials.k, event) for r in t]) for t in (a, b))
    plain = pairboot.compare(va, vb, n_resamples=2000, seed=11)
    assert res.metric == trials.name
    assert res.estimate == pytest.approx(plain.estimate, rel=1e-12, abs=1e-14)
    assert res.confidence_interval == pytest.approx(plain.confidence_interval, rel=1e-12)
    assert res.p_value == plain.p_value
    assert res.score_b.estimate == pytest.approx(vb.mean(), rel=1e-12)


def test_pass_hat_is_not_the_mean_to_the_power_k():
    a = np.array([[1, 1, 0, 0]] * 10, dtype=float)  # every item: 2 of 4
    b = np.array([[1, 0, 0, 0]] * 5 + [[1, 1, 1, 1]] * 5, dtype=float)  # 1/4 or 4/4
    res = pairboot.compare(a, b, runs="samples", metric="pass^2", n_resamples=500, seed=1)
    assert res.score_a.estimate == pytest.approx(1 / 6)  # C(2,2)/C(4,2), not 0.25
    assert res.score_b.estimate == pytest.approx(0.5)
    mean = pairboot.compare(a, b, runs="samples", n_resamples=500, seed=1)
    assert mean.estimate == pytest.approx(0.125) and mean.metric == "mean"


def test_objects_name_the_same_metric():
    a, b = _tables()
    by_name = pairboot.compare(a, b, runs="samples", metric="pass^4", n_resamples=500,
                               seed=2)
    by_object = pairboot.compare(a, b, runs="samples", metric=pass_hat(4),
                                 n_resamples=500, seed=2)
    assert by_object.confidence_interval == by_name.confidence_interval
    assert (pass_at(2).name, pass_hat(4).name, maj_at(5).name) == ("pass@2", "pass^4", "maj@5")


def test_designs_come_from_compare():
    a, b = _tables(n=60)
    va, vb = pass_hat(3).values(a), pass_hat(3).values(b, "b")
    groups = np.repeat(np.arange(20), 3)
    strata = np.tile(["x", "y"], 30)
    for kw in (dict(groups=groups), dict(strata=strata), dict(alternative="greater"),
               dict(hypothesis="non-inferiority", margin=0.05),
               dict(method="bca"), dict(test="permutation"),
               dict(resampling="poisson", ids=[f"t{i}" for i in range(60)])):
        res = pairboot.compare(a, b, runs="samples", metric="pass^3", n_resamples=400,
                               seed=4, **kw)
        plain = pairboot.compare(va, vb, n_resamples=400, seed=4, **kw)
        assert res.confidence_interval == pytest.approx(plain.confidence_interval), kw
        assert res.p_value == pytest.approx(plain.p_value), kw
        if "test" in kw:
            assert res.test.p_value == plain.test.p_value


def test_family_with_samples():
    a, b = _tables(n=50)
    c = a.copy()
    res = pairboot.compare_many({"A": a, "B": b, "C": c}, runs="samples", metric="pass^2",
                                baseline="A", n_resamples=500, seed=3)
    est = {name: pass_hat(2).values(t) for name, t in (("A", a), ("B", b), ("C", c))}
    plain = pairboot.compare_many(est, baseline="A", n_resamples=500, seed=3)
    assert res.metric == "pass^2"
    assert [x.estimate for x in res.comparisons] == [x.estimate for x in plain.comparisons]
    assert ([x.confidence_interval for x in res.comparisons]
            == [x.confidence_interval for x in plain.comparisons])


def test_reports_name_the_metric():
    a, b = _tables()
    res = pairboot.compare(a, b, runs="samples", metric="pass^4", n_resamples=500, seed=2)
    assert json.loads(rendered(res, "json"))["metric"] == "pass^4"
    text = rendered(res, "text")
    header = next(line for line in text.splitlines() if "95% interval" in line)
    assert header.split()[0] == "pass^4"  # the systems' table
    assert "metric pass^4" in text  # the signature


@pytest.mark.parametrize(("kw", "words"), [
    (dict(metric="pass^6"), r"`a` item 0 has 5 trial\(s\), fewer than k = 6"),
    (dict(metric="pass^5"), r"`b` item 2 has 4 trial\(s\), fewer than k = 5"),
    (dict(metric="pass^5", ids=[f"t{i}" for i in range(40)]), r"`b` item 't2' has 4"),
    (dict(metric="pass^0"), "k must be a whole number >= 1"),
    (dict(metric="pass^2.5"), "k must be a whole number >= 1"),
    (dict(metric=pass_at(2), runs="seeds"), "`metric='pass@2'` takes `runs='samples'`"),
    (dict(metric="maj@3", runs=None), "`metric='maj@3'` needs `runs='samples'`"),
    (dict(metric="pass^2", paired_runs=True), "`paired_runs` is for runs='seeds'"),
])
def test_bad_input_is_one_line(kw, words):
    a, b = _tables()
    options = dict(runs="samples", n_resamples=100) | kw
    with pytest.raises(InputError, match=words) as err:
        pairboot.compare(a, b, **options)
    assert "\n" not in str(err.value)


def test_items_with_no_trial_or_scores_beyond_0_1_are_named():
    a, b = _tables()
    b[5, :] = np.nan
    with pytest.raises(InputError, match="`b` item 5 has no sample"):
        pairboot.compare(a, b, runs="samples", metric="pass^2")
    a2 = a.copy()
    a2[3, 1] = 0.5
    with pytest.raises(InputError, match=r"`a` item 3, trial 1 is 0.5: metric 'pass\^2' "
                       "takes 0/1 scores"):
        pairboot.compare(a2, b, runs="samples", metric="pass^2")
    with pytest.raises(InputError, match="`x` item 'q1' has no trial"):
        pass_hat(1).values(np.array([[1.0], [np.nan]]), "x", ids=["q0", "q1"])


def test_family_without_samples_is_refused():
    a, b = _tables()
    with pytest.raises(InputError, match="`metric='pass@2'` needs `runs='samples'`"):
        pairboot.compare_many({"A": a, "B": b}, metric="pass@2")
    with pytest.raises(InputError, match="`metric='pass@2'` takes `runs='samples'`"):
        pairboot.compare_many({"A": a, "B": b}, metric="pass@2", runs="seeds")

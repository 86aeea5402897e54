"""gold_labels(): the gold labels a prediction-powered B - A needs, in closed form,
checked against its own variance formula at n and n - 1 and by running compare_ppi on
simulated evaluations of the planned size."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import pairboot
from pairboot.errors import InputError

Z = 1.959963984540054


def variance(n, sd, rho, total):
    return sd**2 * (1 - rho**2) / n + sd**2 * rho**2 / total


@pytest.mark.parametrize("sd, rho, total, h", [(1.0, 0.7, 5000, 0.1), (2.0, 0.3, 800, 0.3),
                                               (0.5, 0.95, 1000, 0.05)])
def test_the_plan_is_the_smallest_n_whose_interval_is_narrow_enough(sd, rho, total, h):
    plan = pairboot.gold_labels(sd=sd, correlation=rho, n_items=total, half_width=h)
    n = plan.n_gold
    assert Z * math.sqrt(variance(n, sd, rho, total)) <= h + 1e-12
    assert Z * math.sqrt(variance(n - 1, sd, rho, total)) > h
    m = plan.n_gold_alone
    assert Z * sd / math.sqrt(m) <= h + 1e-12 < Z * sd / math.sqrt(m - 1)
    assert plan.saved == pytest.approx(1 - n / m)


def test_the_planned_labels_give_the_planned_width_in_simulation():
    sd_d, rho, total = 1.0, 0.7, 2000
    plan = pairboot.gold_labels(sd=sd_d, correlation=rho, n_items=total, half_width=0.12)
    rng = np.random.default_rng(3)
    widths, covered = [], 0
    for _ in range(200):
        # per-item gold differences d ~ N(0.1, 1); the judge's: rho d + noise
        d = 0.1 + rng.normal(size=total)
        dj = rho * (d - 0.1) + math.sqrt(1 - rho**2) * rng.normal(size=total)
        lab = np.zeros(total, bool)
        lab[rng.choice(total, plan.n_gold, replace=False)] = True
        gold_b = np.where(lab, d, np.nan)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = pairboot.compare_ppi(np.zeros(total), dj, gold_a=np.where(lab, 0.0, np.nan),
                                       gold_b=gold_b, method="clt", clip=False)
        low, high = res.confidence_interval
        widths.append((high - low) / 2)
        covered += low <= 0.1 <= high
    assert np.mean(widths) == pytest.approx(0.12, rel=0.03)
    assert covered / 200 >= 0.95 - 3.29 * math.sqrt(0.95 * 0.05 / 200) - 0.01


def test_a_difference_to_detect_and_what_cannot_be_reached():
    plan = pairboot.gold_labels(sd=1.0, correlation=0.5, n_items=3000, delta=0.2,
                                power=0.8)
    assert plan.half_width == pytest.approx(0.2 * Z / (Z + 0.8416212335729143))
    far = pairboot.gold_labels(sd=1.0, correlation=0.99, n_items=100, half_width=0.05)
    assert far.n_gold is None and far.n_gold_alone is None and far.saved is None
    assert "more than the 100 items" in str(far)


@pytest.mark.parametrize("kw, param", [
    (dict(half_width=0.1, delta=0.1), "half_width"),
    (dict(), "half_width"),
    (dict(half_width=0.1, correlation=1.5), "correlation"),
    (dict(half_width=-1), "half_width"),
    (dict(half_width=0.1, n_items=2.5), "n_items"),
    (dict(half_width=0.1, confidence_level=95), "confidence_level"),
])
def test_bad_plans_are_refused(kw, param):
    given = dict(sd=1.0, correlation=0.5, n_items=1000) | kw
    with pytest.raises(InputError) as info:
        pairboot.gold_labels(**given)
    assert info.value.param == param


def _pilot(n=300, labelled=0.4, seed=5):
    rng = np.random.default_rng(seed)
    q = rng.normal(0.5, 0.3, (n, 2))
    judge = q + rng.normal(0, 0.2, (n, 2)) + [0.1, 0.0]
    lab = rng.random(n) < labelled
    return judge, np.where(lab[:, None], q, np.nan), lab


def test_a_pilots_labelled_items_give_the_sd_and_correlation():
    judge, gold, lab = _pilot()
    d_gold = gold[lab, 1] - gold[lab, 0]
    d_judge = judge[lab, 1] - judge[lab, 0]
    sd = math.sqrt(sum((x - d_gold.mean()) ** 2 for x in d_gold) / (lab.sum() - 1))
    cov = sum((x - d_gold.mean()) * (y - d_judge.mean()) for x, y in zip(d_gold, d_judge))
    rho = cov / math.sqrt(sum((x - d_gold.mean()) ** 2 for x in d_gold)
                          * sum((y - d_judge.mean()) ** 2 for y in d_judge))
    plan = pairboot.gold_labels(judge[:, 0], judge[:, 1], gold_a=gold[:, 0],
                                gold_b=gold[:, 1], half_width=0.05)
    assert plan.sd == pytest.approx(sd, rel=1e-12)
    assert plan.correlation == pytest.approx(rho, rel=1e-12)
    assert plan.n_items == 300 and plan.n_pilot == lab.sum()  # (the pilot's items)
    same = pairboot.gold_labels(sd=sd, correlation=rho, n_items=300, half_width=0.05)
    assert (plan.n_gold, plan.n_gold_alone) == (same.n_gold, same.n_gold_alone)
    assert f"from a pilot's {lab.sum()} labelled items" in str(plan)
    assert "pilot" not in str(same) and same.n_pilot is None
    whole = pairboot.gold_labels(judge[:, 0], judge[:, 1], gold_a=judge[:, 0] + 0.1,
                                 gold_b=judge[:, 1] * 0.9, n_items=1000,
                                 half_width=0.1)  # (a pilot labelled whole)
    assert whole.n_pilot == 300 and whole.n_items == 1000


@pytest.mark.parametrize("change, param, words", [
    (lambda kw: kw.update(sd=1.0), "sd", "with a pilot"),
    (lambda kw: kw.pop("judge_b"), "judge_b", "is missing"),
    (lambda kw: kw["gold_b"].__setitem__(np.flatnonzero(~np.isnan(kw["gold_b"]))[0],
                                         np.nan), "gold_b", "label both"),
    (lambda kw: kw.update(gold_a=np.full(300, np.nan), gold_b=np.full(300, np.nan)),
     "gold_a", "0 labelled items"),
    (lambda kw: kw.update(gold_a=np.where(np.isnan(kw["gold_a"]), np.nan, 1.0),
                          gold_b=np.where(np.isnan(kw["gold_b"]), np.nan, 1.0)),
     "gold_a", "do not vary"),
    (lambda kw: kw.update(judge_a=kw["judge_a"][:10]), "judge_b", "and `judge_a` 10"),
])
def test_a_bad_pilot_is_refused(change, param, words):
    judge, gold, _ = _pilot()
    kw = dict(judge_a=judge[:, 0], judge_b=judge[:, 1], gold_a=gold[:, 0].copy(),
              gold_b=gold[:, 1].copy(), half_width=0.1)
    change(kw)
    with pytest.raises(InputError, match=words) as info:
        pairboot.gold_labels(**kw)
    assert info.value.param == param


def test_without_a_pilot_sd_and_correlation_are_needed():
    with pytest.raises(InputError, match="give `sd` and `correlation`") as info:
        pairboot.gold_labels(sd=1.0, n_items=100, half_width=0.1)
    assert info.value.param == "correlation"

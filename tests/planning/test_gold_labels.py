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

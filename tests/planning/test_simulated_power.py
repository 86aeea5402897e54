"""At the planned size, the test the plan is for rejects as often as planned: simulated
data sets analysed by the test itself (the paired t, the t on groups' means, McNemar's z,
the runs' own t interval of ``compare(..., runs="seeds")``).  Tolerances are K_SIGMA
binomial standard errors of the simulated power (plus, for Connor's normal
approximation, the 0.02 it is known to be off at these sizes)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import pairboot
from pairboot.comparisons.runs.analysis import analyse

K_SIGMA = 4.5


def tolerance(p: float, n_sim: int) -> float:
    return K_SIGMA * math.sqrt(p * (1 - p) / n_sim)


def test_the_paired_t_at_the_planned_size():
    rng = np.random.default_rng(21)
    res = pairboot.power(sd=1.0, delta=0.25, power=0.8)
    n, sims = res.n_items, 20_000
    d = rng.normal(0.25, 1.0, (sims, n))
    t = d.mean(axis=1) / (d.std(axis=1, ddof=1) / math.sqrt(n))
    rate = np.mean(np.abs(t) > stats.t.isf(0.025, n - 1))
    exact = res.curve(sizes=[n])["power"][0]
    assert rate == pytest.approx(exact, abs=tolerance(0.8, sims))
    assert exact >= 0.8


def test_groups_at_the_planned_size():
    # groups of 8 items, ICC 0.1: the t on the groups' mean differences
    rng = np.random.default_rng(22)
    m, icc, delta = 8, 0.1, 0.1
    res = pairboot.power(sd=1.0, delta=delta, power=0.8, group_size=m, icc=icc)
    g, sims = res.n_groups, 10_000
    group = rng.normal(0, math.sqrt(icc), (sims, g))
    items = rng.normal(0, math.sqrt(1 - icc), (sims, g, m)).mean(axis=2)
    means = delta + group + items
    t = means.mean(axis=1) / (means.std(axis=1, ddof=1) / math.sqrt(g))
    rate = np.mean(np.abs(t) > stats.t.isf(0.025, g - 1))
    assert rate == pytest.approx(0.8, abs=tolerance(0.8, sims) + 0.01)


def test_connor_at_the_planned_size():
    rng = np.random.default_rng(23)
    psi, d = 0.2, 0.03
    res = pairboot.power(accuracy_a=0.7, delta=d, discordant=psi, power=0.8)
    n, sims = res.n_items, 20_000
    cells = rng.multinomial(n, [(psi + d) / 2, (psi - d) / 2, 1 - psi], size=sims)
    only_b, only_a = cells[:, 0], cells[:, 1]
    z = (only_b - only_a) / np.sqrt(np.maximum(only_b + only_a, 1))
    rate = np.mean(np.abs(z) > stats.norm.isf(0.025))
    assert rate == pytest.approx(0.8, abs=tolerance(0.8, sims) + 0.02)


@pytest.mark.slow
@pytest.mark.parametrize("run_sd,runs,delta", [(0.05, 5, 0.15), (0.1, 10, 0.15),
                                               (0.02, 3, 0.1)])
def test_seeds_at_the_planned_size(run_sd, runs, delta):
    # the issue-16 model of docs/runs.md (item-difference sd 0.5, noise sd 1), analysed
    # by compare(..., runs="seeds")'s own variance, degrees of freedom and t interval
    rng = np.random.default_rng(24)
    res = pairboot.power(sd=0.5, run_sd=run_sd, residual_sd=1.0, n_runs=runs, delta=delta,
                         power=0.8)
    n, sims, hits = res.n_items, 1500, 0
    for _ in range(sims):
        item = rng.normal(0, 1, (n, 1))
        ya = item + rng.normal(0, run_sd, (1, runs)) + rng.normal(0, 1, (n, runs))
        yb = (item + delta + rng.normal(0, 0.5, (n, 1)) + rng.normal(0, run_sd, (1, runs))
              + rng.normal(0, 1, (n, runs)))
        low, high = analyse(ya, yb, "seeds", False).interval(float(yb.mean() - ya.mean()),
                                                            0.05)
        hits += low > 0 or high < 0
    assert hits / sims == pytest.approx(0.8, abs=tolerance(0.8, sims))

"""Plans for the exact McNemar test (issue 33): Connor's formula sizes the asymptotic
test, whose exact counterpart (``compare(..., test="mcnemar")``) has 0.77-0.79 power at
Connor's sizes.  The exact power is checked against an independent enumeration (the
binomial count of discordant items, and within it the binomial split, each rejection by
``scipy.stats.binomtest``), and by simulation of the test itself."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import error, run_in_process
from scipy import stats

import pairboot
from pairboot.planning.mcnemar import exact_mcnemar_power
from pairboot.planning.model import Test


def binomial_p(x, d, alternative):
    """The binomial test's p-value of ``x`` of ``d`` against 1/2 (scipy's tails): what
    ``scipy.stats.binomtest`` gives, for every ``x`` at once."""
    low, high = stats.binom.cdf(x, d, 0.5), stats.binom.sf(x - 1, d, 0.5)
    if alternative == "greater":
        return high
    if alternative == "less":
        return low
    return np.minimum(1.0, 2.0 * np.minimum(low, high))


def test_the_reference_tails_are_scipy_s_binomial_test():
    for d in (1, 7, 30, 101):
        for alternative in ("two-sided", "greater", "less"):
            x = np.arange(d + 1)
            ref = [stats.binomtest(int(k), d, 0.5, alternative=alternative).pvalue
                   for k in x]
            assert binomial_p(x, d, alternative) == pytest.approx(ref, abs=1e-14)


def enumerated_power(n, psi, delta, alpha, alternative):
    """The exact test's power by enumeration: every discordant count d, every split x
    of it, rejected when the binomial test gives p <= alpha."""
    p = (psi + delta) / (2 * psi)
    total = 0.0
    for d in range(1, n + 1):
        weight = stats.binom.pmf(d, n, psi)
        if weight < 1e-18:
            continue
        x = np.arange(d + 1)
        reject = binomial_p(x, d, alternative) <= alpha
        total += weight * stats.binom.pmf(x, d, p)[reject].sum()
    return total


@pytest.mark.parametrize("n, psi, delta, alpha, alternative", [
    (50, 0.3, 0.1, 0.05, "two-sided"),
    (200, 0.15, 0.05, 0.05, "two-sided"),
    (23, 0.5, 0.4, 0.05, "greater"),      # (Connor's worked example: one-sided, 23 pairs)
    (100, 0.2, -0.05, 0.05, "two-sided"),
    (100, 0.2, -0.05, 0.05, "less"),
    (300, 0.1, 0.02, 0.01, "two-sided"),
    (10, 0.9, 0.1, 0.1, "two-sided"),
    (60, 1.0, 0.3, 0.05, "two-sided"),    # (every item discordant)
    (40, 0.25, 0.25, 0.05, "two-sided"),  # (every discordant item B's)
])
def test_the_exact_power_is_the_enumerated_one(n, psi, delta, alpha, alternative):
    test = Test(alpha, alternative == "two-sided", -1 if alternative == "less" else 1)
    assert exact_mcnemar_power(n, psi, delta, test) == pytest.approx(
        enumerated_power(n, psi, delta, alpha, alternative), abs=1e-12)


@pytest.mark.parametrize("pa, pb, psi, connor, exact", [
    (0.72, 0.74, 0.15, 2941, 3028),
    (0.70, 0.72, 0.20, 3923, 4016),
])
def test_the_exact_plan_reaches_the_power_where_connor_s_does_not(pa, pb, psi, connor, exact):
    asymptotic = pairboot.power(accuracy_a=pa, accuracy_b=pb, discordant=psi, power=0.8)
    assert asymptotic.n_items == connor and asymptotic.test is None
    test = Test(0.05, True)
    delta = pb - pa
    # the finding: the exact test at Connor's size falls short of 0.80
    assert 0.77 < exact_mcnemar_power(connor, psi, delta, test) < 0.795
    res = pairboot.power(accuracy_a=pa, accuracy_b=pb, discordant=psi, power=0.8,
                         test="mcnemar")
    assert res.n_items == exact and res.test == "mcnemar" and res.model == "exact mcnemar"
    assert exact_mcnemar_power(exact, psi, delta, test) >= 0.8
    assert exact_mcnemar_power(exact - 1, psi, delta, test) < 0.8
    assert asymptotic.exact_mcnemar == exact  # (offered beside the asymptotic plan)
    assert "exact McNemar test, two-sided, 95%" in res.summary()


def test_the_three_questions_invert_one_another():
    res = pairboot.power(accuracy_a=0.72, discordant=0.15, n_items=3028, power=0.8,
                         test="mcnemar")
    assert res.delta == pytest.approx(0.02, abs=2e-4)
    at = pairboot.power(accuracy_a=0.72, discordant=0.15, n_items=3028, delta=res.delta,
                        test="mcnemar")
    assert at.power == pytest.approx(0.8, abs=1e-9)
    offered = pairboot.power(accuracy_a=0.72, discordant=0.15, n_items=2941,
                             delta=0.02).exact_mcnemar
    assert offered == pytest.approx(exact_mcnemar_power(2941, 0.15, 0.02, Test(0.05, True)))


def test_a_0_1_pilot_plans_the_exact_test_and_simulates_it():
    rng = np.random.default_rng(1)
    a = (rng.random(4000) < 0.7).astype(float)
    b = np.where(rng.random(4000) < 0.2, 1 - a, a)
    res = pairboot.power(a, b, delta=0.03, power=0.8, test="mcnemar", simulate=True,
                         n_simulations=2000, seed=2)
    psi = float(np.mean(a != b))
    planned = exact_mcnemar_power(res.n_items, psi, 0.03, Test(0.05, True))
    sim = res.simulation
    assert "exact McNemar test" in sim.method_words
    # the flips keep the pilot's discordant share: the simulated tables are the model's
    assert abs(sim.power - planned) <= 4 * math.sqrt(planned * (1 - planned) / 2000)


@pytest.mark.parametrize("keywords, words", [
    (dict(sd=0.5, delta=0.1, power=0.8), "compares 0/1 scores"),
    (dict(accuracy_a=0.7, discordant=0.2, delta=0.03, power=0.8, group_size=5, icc=0.1),
     "independent"),
    (dict(accuracy_a=0.7, discordant=0.2, delta=0.0, power=0.8,
          hypothesis="non-inferiority", margin=0.03), "not a margin"),
])
def test_what_the_exact_test_does_not_take_is_refused(keywords, words):
    assert words in error(pairboot.power, test="mcnemar", **keywords)


def test_the_permutation_test_is_not_planned():
    assert "not planned" in error(pairboot.power, accuracy_a=0.7, discordant=0.2,
                                  delta=0.03, power=0.8, test="permutation")


def test_the_command_line_plans_the_exact_test():
    proc = run_in_process("power", "--accuracy-a", "0.72", "--accuracy-b", "0.74",
                          "--discordant", "0.15", "--power", "0.8", "--test", "mcnemar")
    assert proc.returncode == 0, proc.stderr.decode()
    text = proc.stdout.decode()
    assert "about 3,028 paired items" in text and "exact McNemar test" in text

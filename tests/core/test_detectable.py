"""compare()'s report of what the test set can detect and what pairing bought: the
minimum detectable difference at 80% power (by hand from normal quantiles, and by
simulation), the correlation of A and B, and the paired interval against an unpaired
run of the same data."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pytest

import pairboot

Z = NormalDist().inv_cdf


@pytest.mark.parametrize("side", ["two-sided", "greater", "less"])
def test_the_minimum_detectable_difference_is_the_normal_formula(side):
    rng = np.random.default_rng(3)
    a = rng.random(300)
    b = a + rng.normal(0.0, 0.1, 300)
    res = pairboot.compare(a, b, seed=1, alternative=side, n_resamples=2000)
    tail = 0.025 if side == "two-sided" else 0.05
    assert res.minimum_detectable == pytest.approx(
        (Z(1 - tail) + Z(0.8)) * res.standard_error, rel=1e-12)


def test_the_correlation_and_the_gain_match_the_data_and_an_unpaired_run():
    rng = np.random.default_rng(5)
    n = 600
    item = rng.normal(0, 1, n)
    a = item + rng.normal(0, 0.5, n)
    b = item + 0.05 + rng.normal(0, 0.5, n)
    paired = pairboot.compare(a, b, seed=2, n_resamples=8000)
    unpaired = pairboot.compare(a, b, seed=2, n_resamples=8000, paired=False)
    # the correlation of the means over the resamples estimates that of the items
    assert paired.correlation == pytest.approx(np.corrcoef(a, b)[0, 1], abs=0.03)
    # the widths of two percentile intervals: each end's Monte Carlo error is about 1%
    ratio = np.diff(unpaired.confidence_interval)[0] / np.diff(paired.confidence_interval)[0]
    assert paired.pairing_gain == pytest.approx(ratio, rel=0.04)
    assert unpaired.correlation is None and unpaired.pairing_gain is None
    assert f"r = {paired.correlation:.2f}" in paired.reading
    assert f"{paired.pairing_gain:.1f} times narrower" in paired.reading


@pytest.mark.slow
def test_a_true_difference_at_the_minimum_detectable_is_found_80_percent_of_the_time():
    """Normal differences of sd 1 over 100 items: the minimum detectable difference
    reported on pilot data, taken as the true difference of new data sets of the same
    size, is detected in 80% of them (the percentile interval's SE is the sd's, to a
    few percent at n = 100: the tolerance adds 2 points for that to 3 Monte Carlo SEs)."""
    n, sims = 100, 400
    rng = np.random.default_rng(11)
    pilot = pairboot.compare(np.zeros(n), rng.normal(0, 1, n), seed=1, n_resamples=2000)
    # the formula at the true sd (1): the pilot's own SE is one draw of it
    delta = (Z(0.975) + Z(0.8)) / math.sqrt(n)
    assert pilot.minimum_detectable == pytest.approx(delta, rel=0.2)
    hits = 0
    for s in range(sims):
        d = rng.normal(delta, 1, n)
        res = pairboot.compare(np.zeros(n), d, seed=s, n_resamples=999)
        hits += res.excludes_zero
    rate = hits / sims
    assert abs(rate - 0.8) <= 3 * math.sqrt(0.8 * 0.2 / sims) + 0.02

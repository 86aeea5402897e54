"""0/1 scores (Connor 1987) and groups (the design effect)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import pairboot
from pairboot.planning.known import correlated_discordance, design_effect


def connor(p10, p01, alpha, power, two_sided=True):
    """Connor (1987), Biometrics 43:207-211, eq. for n (p. 209), written out again."""
    psi, d = p10 + p01, p01 - p10
    za = stats.norm.isf(alpha / 2 if two_sided else alpha)
    zb = stats.norm.ppf(power)
    return (za * math.sqrt(psi) + zb * math.sqrt(psi - d * d)) ** 2 / d ** 2


def test_connor_s_worked_example():
    # Connor (1987), Biometrics 43(1):207-211, p. 209, the worked example: p10 = 0.05,
    # p01 = 0.45 (psi = 0.5, delta = 0.4), alpha = 0.05 one-sided and power 0.90: 23 pairs
    # (22.8).  (Reproduced by the McNemar Z-test calculators of powerandsamplesize.com,
    # which cite that page; the paper's own table was not at hand to check further.)
    one = pairboot.power(accuracy_a=0.3, accuracy_b=0.7, discordant=0.5, power=0.9,
                         alternative="greater")
    assert one.n_items == 23 and one.model == "connor"
    assert connor(0.05, 0.45, 0.05, 0.9, two_sided=False) == pytest.approx(22.81, abs=0.01)
    # the same cells two-sided at power 0.8 (the calculators' two-sided page): 23 (22.0)
    two = pairboot.power(accuracy_a=0.3, delta=0.4, discordant=0.5, power=0.8)
    assert two.n_items == 23


@pytest.mark.parametrize("pa,pb,psi", [(0.7, 0.72, 0.2), (0.5, 0.55, 0.3), (0.9, 0.91, 0.05),
                                       (0.3, 0.2, 0.25)])
@pytest.mark.parametrize("alpha,power", [(0.05, 0.8), (0.01, 0.9)])
def test_connor_s_formula(pa, pb, psi, alpha, power):
    d = pb - pa
    p01, p10 = (psi + d) / 2, (psi - d) / 2
    res = pairboot.power(accuracy_a=pa, accuracy_b=pb, discordant=psi, power=power,
                         confidence_level=1 - alpha)
    assert res.n_items == math.ceil(connor(p10, p01, alpha, power) - 1e-9)
    assert res.discordant == psi and res.accuracy_b == pb
    # unpaired: Fleiss, Levin and Paik (2003) eq. 4.14, without continuity correction
    pbar = (pa + pb) / 2
    za, zb = stats.norm.isf(alpha / 2), stats.norm.ppf(power)
    unpaired = (za * math.sqrt(2 * pbar * (1 - pbar))
                + zb * math.sqrt(pa * (1 - pa) + pb * (1 - pb))) ** 2 / d ** 2
    assert res.n_items_unpaired == math.ceil(unpaired)
    # power and the detectable difference invert it
    assert pairboot.power(accuracy_a=pa, accuracy_b=pb, discordant=psi,
                          n_items=res.n_items, confidence_level=1 - alpha).power >= power
    mde = pairboot.power(accuracy_a=pa, discordant=psi, n_items=res.n_items, power=power,
                         confidence_level=1 - alpha, lower_is_better=d < 0).delta
    assert abs(mde) <= abs(d) + 1e-12


def test_discordance_from_a_correlation():
    # independent systems disagree on pa qb + pb qa of the items
    assert correlated_discordance(0.7, 0.8, 0.0) == pytest.approx(0.7 * 0.2 + 0.8 * 0.3)
    rng = np.random.default_rng(3)
    a = (rng.random(200_000) < 0.7).astype(float)
    b = np.where(rng.random(len(a)) < 0.3, 1 - a, a)
    r = np.corrcoef(a, b)[0, 1]
    assert correlated_discordance(a.mean(), b.mean(), r) == pytest.approx(
        np.mean(a != b), abs=1e-9)
    res = pairboot.power(accuracy_a=0.7, accuracy_b=0.75, correlation=0.5, power=0.8)
    assert res.discordant == pytest.approx(correlated_discordance(0.7, 0.75, 0.5))


def test_the_design_effect_formulas():
    assert design_effect(10, 0.1) == pytest.approx(1.9)  # Kish: 1 + (m - 1) ICC
    assert design_effect(10, 0.1, cv=0.5) == pytest.approx(1 + (1.25 * 10 - 1) * 0.1)
    res = pairboot.power(sd=0.5, delta=0.05, power=0.8, group_size=10, icc=0.1)
    # the variance of a group's contribution: sd^2 deff / m; the t on the groups
    plain = pairboot.power(sd=0.5 * math.sqrt(1.9 / 10), delta=0.05, power=0.8)
    assert res.n_groups == plain.n_items and res.n_items == 10 * res.n_groups
    assert res.design_effect == pytest.approx(1.9) and res.model == "design effect"
    unequal = pairboot.power(sd=0.5, delta=0.05, power=0.8, group_size=10, icc=0.1,
                             group_size_cv=0.5)
    assert unequal.design_effect == pytest.approx(2.15) and unequal.n_groups > res.n_groups
    # given groups, the power; given items, the groups they make
    assert pairboot.power(sd=0.5, delta=0.05, n_groups=res.n_groups, group_size=10,
                          icc=0.1).power >= 0.8
    assert pairboot.power(sd=0.5, delta=0.05, n_items=1000, group_size=10, icc=0.1
                          ).n_groups == 100


def test_a_clustered_pilot_gives_back_its_icc():
    # groups of 5 items whose differences share a group effect: ICC 0.2.  The ICC
    # estimate's standard error is about sqrt(2 (1-r)^2 (1+(m-1)r)^2 / (m (m-1) G)),
    # 0.0072 with 4,000 groups: the tolerance is 4.5 of them.
    rng = np.random.default_rng(11)
    g, m, icc = 4000, 5, 0.2
    groups = np.repeat(np.arange(g), m)
    d = (rng.normal(0, math.sqrt(icc), g)[groups]
         + rng.normal(0, math.sqrt(1 - icc), g * m))
    a = rng.normal(0, 1, g * m)
    res = pairboot.power(a, a + d, groups=groups, delta=0.05, power=0.8)
    assert res.icc == pytest.approx(icc, abs=0.033)
    assert res.group_size == m and res.group_size_cv == 0.0
    assert res.design_effect == pytest.approx(1 + (m - 1) * res.icc)
    # the planned groups are the parameter form's with the pilot's sd and icc
    again = pairboot.power(sd=res.sd, icc=res.icc, group_size=m, delta=0.05, power=0.8)
    assert again.n_groups == res.n_groups

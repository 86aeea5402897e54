"""stats/normal.py is ``statistics.NormalDist()``, number for number: the intervals and
McNemar's and Tango's tests read their normal quantiles from it instead of importing
statistics (docs/performance.md, "Start-up")."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pytest

from pairboot.stats import normal


def _same(a: float, b: float) -> bool:
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b) or (a != a and b != b)


def test_the_same_numbers_as_normaldist():
    n = NormalDist()
    rng = np.random.default_rng(0)
    ps = [*rng.random(2000).tolist(), 1e-300, 5e-324, 0.5, 0.975, 1 - 2**-53, 2**-1074]
    for p in ps:
        assert _same(normal.inv_cdf(p), n.inv_cdf(p)), p
    xs = [*(rng.normal(size=2000) * 5).tolist(), 0.0, -0.0, 40.0, -40.0, math.inf, -math.inf]
    for x in xs:
        assert _same(normal.cdf(x), n.cdf(x)), x
        assert _same(normal.pdf(x), n.pdf(x)), x
    assert math.isnan(normal.cdf(math.nan)) and math.isnan(n.cdf(math.nan))


@pytest.mark.parametrize("p", [0.0, 1.0, -0.5, 2.0])
def test_a_quantile_outside_zero_and_one_is_refused_as_normaldist_refuses_it(p):
    with pytest.raises(ValueError, match="0.0 < p < 1.0"):
        normal.inv_cdf(p)
    with pytest.raises(ValueError, match="0.0 < p < 1.0"):
        NormalDist().inv_cdf(p)

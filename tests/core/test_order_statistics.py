"""The order statistics computed without numpy.ma equal numpy's own, bit for bit.

``lower_quartile``, ``finite_median`` (core/design.py) and ``sorted_distinct``
(engine/multinomial.py) stand in for ``np.quantile(x, 0.25)``, ``np.median`` and
``np.unique`` on a small command's path, because numpy's functions import numpy.ma
(docs/performance.md, "Start-up"); the reports depend on them being the same numbers.
"""

from __future__ import annotations

import numpy as np
import pytest

from pairboot.core.design import finite_median, lower_quartile
from pairboot.engine.multinomial import sorted_distinct


def _samples(seed: int, count: int):
    rng = np.random.default_rng(seed)
    for t in range(count):
        n = int(rng.integers(2, 70))
        kind = t % 4
        if kind == 0:
            x = rng.random(n)
        elif kind == 1:  # steps of double precision over the whole range, subnormal too
            x = np.spacing(rng.random(n) * 10.0 ** rng.integers(-320, 300, n))
        elif kind == 2:  # the two smallest steps (numpy's interpolation rounds there)
            x = np.spacing(rng.integers(0, 4, n) * 5e-324)
        else:  # ties, signed zeros, large magnitudes
            x = rng.integers(-1, 3, n).astype(float) * rng.random() * 1e300
        yield x


def _same(a, b) -> bool:
    return type(a) is type(b) and a == b and np.signbit(a) == np.signbit(b)


@pytest.mark.parametrize("seed", [0, 1])
def test_lower_quartile_is_numpys(seed):
    for x in _samples(seed, 1500):
        assert _same(lower_quartile(x), np.quantile(x, 0.25)), x


@pytest.mark.parametrize("seed", [0, 1])
def test_finite_median_is_numpys(seed):
    for x in _samples(seed, 1500):
        for part in (x, x[:1], x[:2], x[:3]):
            assert _same(finite_median(part), np.median(part)), part


def test_sorted_distinct_is_numpys_unique():
    rng = np.random.default_rng(2)
    for t in range(3000):
        n = int(rng.integers(0, 40))
        x = rng.integers(0, 5, n).astype(float)
        if t % 3 == 1:
            x[rng.random(n) < 0.3] = np.nan
            x[rng.random(n) < 0.2] = -0.0
        elif t % 3 == 2:
            x = rng.integers(-3, 3, n)
        ours, theirs = sorted_distinct(x), np.unique(x)
        assert ours.dtype == theirs.dtype
        assert np.array_equal(ours, theirs, equal_nan=True), x


def test_the_inputs_are_left_as_they_were():
    x = np.array([3.0, 1.0, 2.0, 0.5])
    for f in (lower_quartile, finite_median, sorted_distinct):
        f(x)
        assert x.tolist() == [3.0, 1.0, 2.0, 0.5]

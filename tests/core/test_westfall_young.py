"""A family's permutation test reads only the columns its contrasts need: the kernel
skips the others, and the p-values are those of relabelling every column, bit for bit."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import pairboot
from pairboot.core import westfall_young


def _scores(m, n, seed, huge=None):
    rng = np.random.default_rng(seed)
    base = rng.random(n)
    out = {f"s{j}": np.round(base + rng.normal(0.01 * j, 0.1, n), 3) for j in range(m)}
    for j in huge or ():  # (half the systems score 1e9 more: the median, between them
        # and the others, makes the differences dwarf the small systems' own scores)
        out[f"s{j}"] = out[f"s{j}"] + 1e9
    return out


def _family(scores, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = pairboot.compare_many(scores, test="permutation", n_resamples=300, seed=3,
                                    backend="numpy", **kw)
    return ([c.test_p_value for c in res.comparisons],
            [c.test_p_adjusted for c in res.comparisons], res.test.null_distribution)


@pytest.mark.parametrize(("m", "huge", "baseline"), [(4, None, None), (5, None, "s0"),
                                                     (4, (2, 3), None)])
def test_reading_only_the_needed_columns_changes_no_p_value(monkeypatch, m, huge, baseline):
    scores = _scores(m, 80, m, huge)
    asked = []
    real = westfall_young.read_columns

    def spy(core):
        asked.append(real(core))
        return asked[-1]

    monkeypatch.setattr(westfall_young, "read_columns", spy)
    raw, adjusted, maxima = _family(scores, baseline=baseline)
    (needed,) = asked
    k = 2  # (a mean: score and count)
    scores_read = needed[0:m * k:k]
    assert needed[m * k:].all() and needed[1:m * k:k].all()
    if huge is None:  # (every contrast off the differences: no system's own score)
        assert not scores_read.any()
    else:  # (s1 - s0 off the systems' own sums: theirs are read)
        assert scores_read[:2].all()
    monkeypatch.setattr(westfall_young, "read_columns", lambda core: None)
    raw_all, adjusted_all, maxima_all = _family(scores, baseline=baseline)
    assert raw == raw_all and adjusted == adjusted_all
    np.testing.assert_array_equal(maxima, maxima_all)


def test_two_systems_and_metrics_without_differences_read_every_column(monkeypatch):
    asked = []
    real = westfall_young.read_columns
    monkeypatch.setattr(westfall_young, "read_columns",
                        lambda core: asked.append(real(core)) or asked[-1])
    rng = np.random.default_rng(1)
    f1 = {f"s{j}": rng.integers(0, 4, (60, 3)).astype(float) for j in range(3)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pairboot.compare_many(f1, metric="f1", test="permutation", n_resamples=50, seed=1,
                              backend="numpy")
    assert asked == [None]

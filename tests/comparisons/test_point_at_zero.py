"""Two systems that agree on every item: every resample gives B - A = 0.

With 0/1 scores and no item on which the systems differ, the bootstrap interval is the
point [0, 0] (its coverage at n = 20 in docs/score.md's setting is 0.443): it is no
evidence of "no difference".  The reports say it is degenerate and point to Tango's
interval (``method="score"``); a margin's test, which the point would pass at any
margin, is undefined.  The reference for Tango's interval is the score method itself,
checked against published values in tests/stats/test_proportions.py.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import pairboot
from pairboot.report import ReportContext, render, render_family
from pairboot.report.verdicts import decision

A = np.r_[np.ones(12), np.zeros(8)]


def quiet(call, *args, **kwargs):
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        res = call(*args, **kwargs)
    return res, [str(w.message) for w in said]


def test_the_point_is_said_to_be_degenerate_and_the_score_interval_named():
    res, said = quiet(pairboot.compare, A, A.copy(), seed=1, n_resamples=2000)
    tango = pairboot.compare(A, A.copy(), seed=1, n_resamples=2000, method="score")
    low, high = tango.confidence_interval
    assert tuple(res.confidence_interval) == (0.0, 0.0) and res.verdict() == "inconclusive"
    note = next(t for t in said if "agree on all 20 items" in t)
    assert "degenerate" in note and "method='score'" in note
    assert f"[{low:+.3f}, {high:+.3f}]" in note and low < -0.15
    first = str(res).splitlines()[0]
    assert "No difference detected" not in first
    assert "degenerate" in first and "no evidence that they do not differ" in first
    assert "not evidence that they do not differ" in res.reading
    # the score method answers: no such note
    _, said = quiet(pairboot.compare, A, A.copy(), seed=1, n_resamples=2000, method="score")
    assert not any("agree on all" in t for t in said)


@pytest.mark.parametrize("hypothesis", ["non-inferiority", "equivalence"])
def test_a_margins_test_on_the_point_is_undefined(hypothesis):
    # [0, 0] lies within any margin: it showed "equivalent" and "non-inferior"
    res, said = quiet(pairboot.compare, A, A.copy(), hypothesis=hypothesis, margin=0.1,
                      seed=1, n_resamples=2000)
    assert res.verdict() == "undefined"
    assert math.isnan(res.p_value) and np.isnan(res.confidence_interval).all()
    assert any("cannot be read off a point interval" in t for t in said)
    first = render(res, "text").splitlines()[0]
    assert first.startswith("No verdict") and "no evidence that they do not differ" in first
    gate = "inferior" if hypothesis == "non-inferiority" else "not-equivalent"
    assert decision(res, ReportContext(fail_if=gate))["failed"]
    # Tango's interval can be read: within 0.1 is not shown at n = 20
    score = pairboot.compare(A, A.copy(), hypothesis=hypothesis, margin=0.1, seed=1,
                             n_resamples=2000, method="score")
    assert score.verdict() == "inconclusive"


def test_a_family_row_on_the_point_is_undefined():
    c = np.r_[np.ones(16), np.zeros(4)]
    fam, said = quiet(pairboot.compare_many, {"A": A, "B": A.copy(), "C": c}, baseline="A",
                      hypothesis="equivalence", margin=0.3, seed=1, n_resamples=2000,
                      correction="holm")
    row = next(r for r in fam.comparisons if r.b == "B")
    assert row.verdict == "undefined" and not row.significant and math.isnan(row.p_value)
    assert any("every resample gives B - A = 0" in t for t in said)
    assert "undefined" in render_family(fam, "text")

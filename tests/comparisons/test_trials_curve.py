"""pass^k / pass@k over k (:func:`pairboot.trials_curve`): one bootstrap of the items for
every k and both systems; each k's B - A is compare()'s (runs="samples", same seed: the
same estimate and standard error, so the same draws), the simultaneous band holds the
pointwise one, bad input is one line, the writers and the plot work."""

from __future__ import annotations

import json
import math
import re
import warnings

import numpy as np
import pytest

import pairboot
from pairboot import TrialsCurve
from pairboot.errors import InputError
from pairboot.report import formats_of, render
from pairboot.stats.trials import pass_at_k, pass_hat_k

R = 999


def tables(n=80, trials=5, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 2, n)[:, None]
    a = (rng.random((n, trials)) < p) * 1.0
    b = (rng.random((n, trials)) < np.minimum(p + 0.1, 1.0)) * 1.0
    a[3, 4] = np.nan  # (an item with fewer trials)
    b[7, 4] = np.nan
    return a, b


@pytest.fixture(scope="module")
def curve():
    a, b = tables()
    return a, b, pairboot.trials_curve(a, b, seed=1, n_resamples=R)


def test_default_ks_are_one_to_the_fewest_trials(curve):
    assert curve[2].ks == (1, 2, 3, 4)


@pytest.mark.parametrize("kind", ["pass^k", "pass@k"])
def test_each_k_is_compares_answer_on_the_same_draws(kind):
    a, b = tables()
    res = pairboot.trials_curve(a, b, kind=kind, seed=1, n_resamples=R)
    est = pass_hat_k if kind == "pass^k" else pass_at_k
    n_a, c_a = (~np.isnan(a)).sum(1), np.nansum(a, 1)
    for pt in res.points:
        one = pairboot.compare(a, b, runs="samples", metric=kind.replace("k", str(pt.k)),
                               seed=1, n_resamples=R)
        assert pt.difference == pytest.approx(one.estimate, abs=1e-12)
        assert pt.a.estimate == pytest.approx(est(n_a, c_a, pt.k).mean(), abs=1e-12)
        # the same draws: the same bootstrap standard error and per-system intervals
        assert pt.standard_error == pytest.approx(one.standard_error, rel=1e-9)
        assert pt.a.confidence_interval == pytest.approx(one.score_a.confidence_interval,
                                                         abs=1e-12)
        assert pt.b.confidence_interval == pytest.approx(one.score_b.confidence_interval,
                                                         abs=1e-12)
        # the pointwise interval is the symmetric bootstrap-t on those draws, not the
        # percentile one: close to compare()'s, not equal (docs/trials.md)
        low, high = one.confidence_interval
        assert abs(pt.interval.low - low) < 0.3 * pt.standard_error
        assert abs(pt.interval.high - high) < 0.3 * pt.standard_error


def test_the_simultaneous_band_holds_the_pointwise_one_and_is_wider(curve):
    res = curve[2]
    assert res.critical_value > 1.96
    for pt in res.points:
        assert pt.simultaneous.low < pt.interval.low <= pt.difference
        assert pt.difference <= pt.interval.high < pt.simultaneous.high
        assert pt.simultaneous.low == pytest.approx(
            pt.difference - res.critical_value * pt.standard_error, abs=1e-12)
        assert pt.p_value <= pt.p_adjusted <= 1.0


def test_the_seed_repeats_the_curve(curve):
    a, b, res = curve
    a0, b0 = a.copy(), b.copy()
    again = pairboot.trials_curve(a, b, seed=1, n_resamples=R)
    assert again.to_dict() == res.to_dict()
    np.testing.assert_array_equal(a, a0)  # (the inputs are left as they were)
    np.testing.assert_array_equal(b, b0)


@pytest.mark.parametrize("kwargs, words", [
    ({"ks": [5]}, ["item 3", "fewer than k = 5"]),
    ({"ks": [0]}, ["`ks`"]),
    ({"ks": [2, 2]}, ["`ks`"]),
    ({"kind": "maj@k"}, ["`kind`"]),
])
def test_bad_input_is_one_line(curve, kwargs, words):
    a, b, _ = curve
    with pytest.raises(InputError) as info:
        pairboot.trials_curve(a, b, n_resamples=R, **kwargs)
    message = str(info.value)
    assert "\n" not in message
    for w in words:
        assert w in message


def test_a_score_other_than_0_and_1_is_refused_naming_the_item():
    a, b = tables()
    a[2, 1] = 0.5
    with pytest.raises(InputError, match=r"`a` item 'x2', trial 1 is 0.5"):
        pairboot.trials_curve(a, b, ids=[f"x{i}" for i in range(len(a))], n_resamples=R)


def _with(a, at, value):
    a = a.astype(object if isinstance(value, str) else float)
    a[at] = value
    return a


@pytest.mark.parametrize("change, words", [
    (lambda a: _with(a, (2, 1), "x"), "`a` must hold numbers"),  # (was a traceback)
    (lambda a: _with(a, (2, 1), np.inf), "`a` item 2, run 1 is not finite"),
    (lambda a: _with(a, 2, np.nan), "`a` item 2 has no sample"),
    (lambda a: a[:, :, None], "items x trials table (2-D"),
    (lambda a: a[:0], "not empty"),
])
def test_a_table_is_checked_as_compare_checks_its_trials(change, words):
    a, b = tables()
    with pytest.raises(InputError, match=re.escape(words)) as info:
        pairboot.trials_curve(change(a), b, n_resamples=R)
    assert info.value.param == "a"


def test_unpaired_tables_are_refused():
    a, b = tables()
    with pytest.raises(InputError, match="items"):
        pairboot.trials_curve(a, b[:-1], n_resamples=R)
    with pytest.raises(InputError, match="items x trials"):
        pairboot.trials_curve(a[:, 0], b[:, 0], n_resamples=R)


def test_the_writers(curve):
    res = curve[2]
    assert formats_of(type(res))[:3] == ("text", "json", "markdown")
    out = str(res)
    assert out == render(res, "text")
    assert "simultaneous" in out and f"seed {res.seed}" in out
    row = next(line for line in out.splitlines() if line.strip().startswith("2 "))
    pt = res.points[1]
    assert f"{pt.difference:+.3f}" in row and f"[{pt.simultaneous.low:+.3f}," in row
    data = json.loads(render(res, "json"))
    assert [p["k"] for p in data["points"]] == [1, 2, 3, 4]
    assert math.isclose(data["points"][1]["simultaneous"]["low"], pt.simultaneous.low)
    assert "| k |" in render(res, "markdown")
    page = res.to_html()
    assert page.startswith("<!DOCTYPE html>") and res._repr_html_() in page
    assert f"[{pt.simultaneous.low:+.3f}," in res._repr_html_()


def test_the_plot_draws_both_panels(curve):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pairboot.plot import plot_curve

    res = curve[2]
    left, right = plot_curve(res)
    try:
        assert left.figure is right.figure
        assert len(left.get_lines()) == 2 and len(left.collections) == 2
        line = next(x for x in right.get_lines() if x.get_label() == "B - A")
        assert list(line.get_ydata()) == [p.difference for p in res.points]
        assert len(right.collections) == 2  # (the two bands)
    finally:
        plt.close(left.figure)


@pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")
def test_p_inverts_the_pointwise_interval_shown():
    """The p column is the p-value of the interval shown beside it: the pointwise
    interval at level 1 - alpha excludes 0 exactly when p < alpha (p on the grid of
    (1 + count) / (R + 1); a level half a step either side of p decides it), not
    compare()'s percentile p on the same draws."""
    a, b = tables(n=60, seed=3)
    b[:, :] = np.where(np.random.default_rng(9).random(b.shape) < 0.2, a, b)  # (closer)
    res = pairboot.trials_curve(a, b, seed=2, n_resamples=R)
    step = 1.0 / (R + 1)
    inside = [p for p in res.points if 2 * step < p.p_value < 0.5]
    assert len(inside) >= 2, [p.p_value for p in res.points]  # (the check has teeth)
    for pt in inside:
        for alpha, excludes in ((pt.p_value + step / 2, True), (pt.p_value - step / 2, False)):
            at = pairboot.trials_curve(a, b, seed=2, n_resamples=R,
                                       confidence_level=1 - alpha).points[pt.k - 1]
            assert at.p_value == pt.p_value  # (the level does not move p)
            low, high = at.interval
            assert (not low <= 0.0 <= high) == excludes, (pt.k, alpha, at.interval)


def test_the_adjusted_p_is_the_stepdown_between_p_and_the_simultaneous_interval(curve):
    """p <= p adjusted, and a simultaneous interval that excludes 0 has p adjusted below
    alpha (the single-step p that inverts it is at least the stepdown one)."""
    res = curve[2]
    alpha = 1 - res.confidence_level
    for pt in res.points:
        assert pt.p_value <= pt.p_adjusted
        if not pt.simultaneous.low <= 0.0 <= pt.simultaneous.high:
            assert pt.p_adjusted < alpha


def test_one_k_is_compares_interval_and_p_and_its_report_says_so(curve):
    """A curve of one k has nothing to hold together: its intervals (pointwise and
    simultaneous alike) and p are compare()'s, and every report writes it (the text one
    once failed on the missing critical value)."""
    a, b, _ = curve
    res = pairboot.trials_curve(a, b, ks=[2], seed=1, n_resamples=R)
    one = pairboot.compare(a, b, runs="samples", metric="pass^2", seed=1, n_resamples=R)
    (pt,) = res.points
    assert res.critical_value is None
    assert tuple(pt.interval) == tuple(pt.simultaneous) == tuple(one.confidence_interval)
    assert pt.p_value == pt.p_adjusted == one.p_value
    for fmt in formats_of(TrialsCurve):
        assert ("k = 2" if fmt != "json" else '"k": 2') in render(res, fmt)
    assert "its simultaneous interval is its pointwise one" in str(res)


def test_the_skew_note_names_what_a_curve_can_do():
    """A curve has no correction to choose: its note on skewed differences says to give
    one k alone (whose interval is the method's), not `correction='holm'`."""
    rng = np.random.default_rng(0)
    p = rng.beta(0.5, 0.5, 60)
    a = (rng.random((60, 6)) < p[:, None]) * 1.0
    b = a.copy()
    b[rng.choice(60, 4, replace=False)] = 1.0  # (four items gain a lot: B - A skews)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = pairboot.trials_curve(a, b, n_resamples=400, seed=1)
    (note,) = [w for w in res.warnings if "skewed" in w]
    assert "correction" not in note and "give that k alone (`ks`)" in note

"""Reports of ratings from battles: every format the registry lists for a
PreferenceResult, the JSON mirroring the result, to_frame's rows, the HTML page with
its plot, the position bias in words."""

from __future__ import annotations

import json

import numpy as np
import pytest

import pairboot
from pairboot.report import formats_of, render


def _result(**options):
    rng = np.random.default_rng(0)
    rows = {"prompt": [], "a": [], "b": [], "verdict": [], "game": []}
    strength = {"x": 0.8, "y": 0.0, "z_under_score": -0.6}
    names = list(strength)
    for p in range(60):
        i, j = rng.choice(3, 2, replace=False)
        for game, (first, second) in enumerate(((names[i], names[j]), (names[j], names[i]))):
            d = strength[first] - strength[second] + 0.3  # (the first shown is favoured)
            u = rng.random()
            v = "A=B" if u < 0.1 else ("A>B" if rng.random() < 1 / (1 + np.exp(-d)) else "B>A")
            for key, value in zip(rows, (f"q{p}", first, second, v, game)):
                rows[key].append(value)
    return pairboot.compare_preferences(rows, n_resamples=200, seed=3, **options)


def test_every_format_is_written():
    res = _result(baseline="y", ties="separate")
    assert formats_of(type(res)) == ("text", "json", "markdown", "latex", "html")
    for fmt in formats_of(type(res)):
        out = render(res, fmt)
        assert "z_under_score" in out or "z\\_under\\_score" in out


def test_the_text_says_what_was_rated_and_the_position_bias():
    out = str(_result())
    assert "Bradley-Terry" in out and "resamples of the prompts" in out
    assert "Position bias: of 60 pairs of games judged in both orders" in out
    assert out.rstrip().splitlines()[-1].startswith("pairboot ")


def test_the_json_mirrors_the_result():
    res = _result(model="davidson", ties="separate", baseline="y")
    out = json.loads(render(res, "json"))
    assert out["model"] == "davidson" and out["tie_parameter"] == pytest.approx(
        res.tie_parameter)
    assert [s["name"] for s in out["systems"]] == [s.name for s in res.systems]
    y = next(s for s in out["systems"] if s["name"] == "y")
    assert y["win_rate"] is None  # (the baseline against itself: NaN written as null)
    assert out["position_bias"]["n_swapped"] == 60


def test_to_frame_has_a_row_per_system_best_first():
    pytest.importorskip("pandas")
    res = _result(ties="separate")
    frame = res.to_frame()
    assert frame["system"].tolist() == [s.name for s in res.systems]
    assert {"rating", "low", "high", "rank_low", "rank_high", "p_best", "tie_rate"} <= set(
        frame.columns)


def test_the_html_page_draws_the_ratings():
    pytest.importorskip("matplotlib")
    page = _result().to_html()
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page


def test_plot_ratings_draws_a_row_per_system():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pairboot.plot import plot_ratings

    ax = plot_ratings(_result())
    try:
        assert len(ax.get_yticks()) == 3
    finally:
        plt.close(ax.figure)

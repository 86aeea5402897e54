"""The reports of an aggregate over tasks: every format, what they say, and the rank plot
(figures closed)."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import pairboot
from pairboot.report import formats_of, render


@pytest.fixture(scope="module")
def result():
    rng = np.random.default_rng(0)
    tasks = np.repeat(["t1", "t2", "t3", "t4", "t5"], 40)
    level = np.repeat([0.2, 0.4, 0.5, 0.6, 0.8], 40)
    scores = {name: (rng.random(200) < level + shift) * 1.0
              for name, shift in (("base", 0.0), ("a|b", 0.2), ("new", 0.22))}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pairboot.compare_tasks(scores, tasks=tasks, aggregate="win-rate",
                                      resample="both", baseline="base", n_resamples=999,
                                      seed=1)


def test_every_format_is_written(result):
    assert {"text", "markdown", "latex", "json", "html"} <= set(formats_of(type(result)))
    for fmt in ("text", "markdown", "latex", "json", "html"):
        out = render(result, fmt)
        assert "win-rate" in out and "seed 1" in out, fmt


def test_the_text_states_what_varied_and_how_the_ranks_are_read(result):
    out = str(result)
    assert "What varied: two levels" in out
    assert "simultaneous confidence set" in out and "P(best)" in out
    assert "not the probability" in out
    first = next(line for line in out.splitlines() if line.strip().startswith("1 "))
    assert result.tie_groups[0][0] in first


def test_the_json_round_trips_without_nan(result):
    out = json.loads(render(result, "json"))
    assert out["resample"] == "both" and out["aggregate"] == "win-rate"
    assert out["rank_intervals"]["base"] == list(result.rank_intervals["base"])
    assert out["tie_groups"] == [list(g) for g in result.tie_groups]
    assert set(out["p_best"]) == set(result.names)
    assert "bootstrap_distribution" not in out


def test_markdown_escapes_a_system_s_name(result):
    assert "a\\|b" in render(result, "markdown")


def test_the_page_has_the_rank_plot_and_leaves_no_figure_open(result):
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    page = render(result, "html")
    assert "<svg" in page and "rank interval" in page
    assert plt.get_fignums() == []


def test_plot_ranks_draws_a_row_per_system_best_first(result):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pairboot.plot import plot_ranks

    left, right = plot_ranks(result)
    try:
        labels = [t.get_text() for t in left.get_yticklabels()]
        assert len(labels) == 3 and labels[0].startswith(result.tie_groups[0][0])
        assert right.get_xlim() == (0.4, 3.6)
    finally:
        plt.close(left.figure)


def test_repr_names_the_aggregate_and_who_could_be_best(result):
    text = repr(result)
    assert "aggregate='win-rate'" in text and "could_be_best" in text

"""plot(): what the picture says (title, value labels, legend) and that nothing is cut off."""

import dataclasses
import io
import math

import numpy as np
import pytest

import pairboot
from pairboot.result import decimals

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.text import Text  # noqa: E402

from pairboot.plot import plot  # noqa: E402

N = 40
A = np.linspace(0.2, 0.8, N)
B = A + np.sin(np.arange(N)) * 0.3 + 0.1  # standard error about 0.03: 3 decimals, not 4


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def result():
    return pairboot.compare(A, B, n_resamples=2000, seed=1)


def legend_texts(ax) -> list[str]:
    return [t.get_text() for t in ax.get_legend().get_texts()]


def test_title_names_metric_and_systems(result):
    title = plot(result, name_a="base.csv", name_b="new.csv").get_title()
    assert title == "B − A: new.csv vs base.csv (mean)"
    assert plot(result).get_title() == "B − A (mean)"


def test_long_names_keep_their_distinct_ends(result):
    name_a = "/data/experiments/2024-06-run-baseline/predictions.csv"
    name_b = "/data/experiments/2024-07-run-candidate-large/predictions.csv"
    lines = plot(result, name_a=name_a, name_b=name_b).get_title().split("\n")
    assert lines[0] == "B − A (mean)"
    assert lines[1].startswith("B: …") and lines[1].endswith("candidate-large/predictions.csv")
    assert lines[2].startswith("A: …") and lines[2].endswith("run-baseline/predictions.csv")
    assert max(len(line) for line in lines) <= 60


def test_dollar_signs_in_names_are_literal(result):
    ax = plot(result, name_a="cost_$1_$.csv", name_b="b")
    ax.figure.canvas.draw()  # mathtext would refuse "$1_$"


def test_value_labels_use_the_reports_decimals(result):
    d = decimals(result.standard_error)
    assert d == 3  # the data are chosen so that the default of 4 would be wrong
    low, high = result.confidence_interval
    ax = plot(result)
    labels = {t.get_text(): t.xy[0] for t in ax.texts}
    assert labels == {
        f"{low:.{d}f}": low,
        f"{high:.{d}f}": high,
        f"{result.estimate:.{d}f}": result.estimate,
    }
    assert legend_texts(ax) == ["95% percentile interval", "estimate", "no difference"]


def test_plain_savefig_keeps_every_label_inside_the_figure_and_apart(result):
    ax = plot(result, name_a="base.csv", name_b="new.csv")
    fig = ax.figure
    fig.savefig(io.BytesIO(), format="png")
    fig.canvas.draw()
    inside = fig.bbox
    artists = [ax.xaxis.label, ax.yaxis.label, ax.title, ax.get_legend(), *ax.texts]
    for artist in artists:
        box = artist.get_window_extent()
        assert inside.x0 <= box.x0 and box.x1 <= inside.x1, artist
        assert inside.y0 <= box.y0 and box.y1 <= inside.y1, artist
    # nor on each other: the title above the value labels, the legend beside the axes
    title = ax.title.get_window_extent()
    assert not any(title.overlaps(Text.get_window_extent(t)) for t in ax.texts)
    assert not ax.get_legend().get_window_extent().overlaps(ax.bbox)


@pytest.mark.filterwarnings(
    "ignore:the Monte Carlo error of the endpoints:pairboot.SmallSampleWarning"
)
def test_value_labels_do_not_overlap_when_the_interval_is_narrow():
    narrow = pairboot.compare(A, B, n_resamples=2000, seed=1, confidence_level=0.05)
    ax = plot(narrow)
    ax.figure.canvas.draw()
    boxes = [Text.get_window_extent(t) for t in ax.texts]  # the words, not the estimate's stem
    assert len(boxes) == 3
    for i, first in enumerate(boxes):
        for second in boxes[i + 1 :]:
            assert not first.overlaps(second)


def test_undefined_endpoints_are_said_not_drawn(result):
    undefined = dataclasses.replace(
        result, method="bca", confidence_interval=pairboot.ConfidenceInterval(math.nan, math.nan)
    )
    ax = plot(undefined)
    ax.figure.canvas.draw()
    assert legend_texts(ax)[0] == "95% bca interval: undefined"
    assert [t.get_text() for t in ax.texts] == [f"{result.estimate:.3f}"]


def test_zero_far_outside_is_left_off_the_axis():
    far = pairboot.compare(A, A + 5 + np.cos(np.arange(N)) * 0.1, n_resamples=2000, seed=1)
    ax = plot(far)
    assert ax.get_xlim()[0] > 4
    assert legend_texts(ax)[2] == "no difference\n(0, off to the left)"


def test_zero_nearby_stretches_the_axis():
    near = pairboot.compare(A, A + 0.05 + np.cos(np.arange(N)) * 0.1, n_resamples=2000, seed=1)
    assert near.confidence_interval.low > 0  # 0 is outside the interval, yet near
    ax = plot(near)
    assert ax.get_xlim()[0] < 0 < ax.get_xlim()[1]
    assert legend_texts(ax)[2] == "no difference"


def test_given_axes_are_drawn_into_and_the_layout_left_alone(result):
    fig, (left, right) = plt.subplots(1, 2)
    assert plot(result, right) is right
    assert right.patches and not left.patches
    assert right.get_title() == "B − A (mean)"
    assert fig.get_layout_engine() is None


def test_in_given_axes_the_legend_stays_inside_the_figure(result):
    # (outside the axes, a plain savefig of the caller's figure cut it off)
    fig, ax = plt.subplots()
    plot(result, ax)
    fig.canvas.draw()
    legend = ax.get_legend().get_window_extent()
    assert fig.bbox.x0 <= legend.x0 and legend.x1 <= fig.bbox.x1
    assert ax.bbox.x0 <= legend.x0 and legend.x1 <= ax.bbox.x1

"""The pictures: what they say (titles, value labels, legends, names), that nothing is cut
off or drawn over another label, histogram bins on the lattice of gridded scores, and a
family's forest or matrix (the forest's basics are in test_report_family.py)."""

import dataclasses
import io
import math

import numpy as np
import pytest

import pairboot
from pairboot.report.numbers import decimals

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from helpers import run_in_process  # noqa: E402
from matplotlib.text import Text  # noqa: E402

from pairboot.errors import InputError  # noqa: E402
from pairboot.plot import plot, plot_family, plot_pairs  # noqa: E402
from pairboot.report.figures import disagrees, lattice_step, shown_names  # noqa: E402

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


def test_long_names_keep_their_distinct_parts(result):
    name_a = "/data/experiments/2024-06-run-baseline/predictions.csv"
    name_b = "/data/experiments/2024-07-run-candidate-large/predictions.csv"
    ax = plot(result, name_a=name_a, name_b=name_b)
    lines = ax.get_title().split("\n")
    assert lines[0] == "B − A (mean)"
    assert lines[1].startswith("B: ") and "2024-07-run-candidate-large" in lines[1]
    assert lines[2].startswith("A: ") and "2024-06-run-baseline" in lines[2]
    assert max(len(line) for line in lines) <= 60
    assert "/predictions.csv" in ax.get_xlabel()  # what was left out is said


def test_long_model_names_keep_the_model_and_say_what_they_share(result):
    # (cut from the left, both kept only their shared end: "…__seed-1234__2024-06-01")
    tail = "__mmlu_pro__5-shot__temperature-0__seed-1234__2024-06-01"
    name_a = f"meta-llama/Llama-3.1-8B-Instruct{tail}"
    name_b = f"meta-llama/Llama-3.1-70B-Instruct{tail}"
    ax = plot(result, name_a=name_a, name_b=name_b)
    title = ax.get_title()
    assert "Llama-3.1-70B-Instruct" in title.split("\n")[1]
    assert "Llama-3.1-8B-Instruct" in title.split("\n")[2]
    assert "shared suffix" in ax.get_xlabel() and "seed-1234__2024-06-01”" in ax.get_xlabel()


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


@pytest.mark.slow
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
    # (on one scale: scores in [0.2, 1.1])
    far = pairboot.compare(A, A + 0.3 + np.cos(np.arange(N)) * 0.01, n_resamples=2000, seed=1)
    ax = plot(far)
    assert ax.get_xlim()[0] > 0.25
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


# --- the x ticks of a small difference ------------------------------------------------------


def tick_boxes(ax):
    """The drawn boxes of the x tick labels in view, left to right."""
    ax.figure.canvas.draw()
    labels = [t for t in ax.get_xticklabels() if t.get_visible() and t.get_text()]
    return sorted((t.get_window_extent() for t in labels), key=lambda box: box.x0)


def assert_apart(boxes):
    assert len(boxes) >= 3  # (still an axis to read)
    for left, right in zip(boxes, boxes[1:]):
        assert left.x1 < right.x0, (left, right)


@pytest.fixture(scope="module")
def small_difference():
    """A difference of about 0.0007 with an interval about 0.001 wide: labels such as
    −0.00025, which matplotlib's default ticks ran into each other."""
    rng = np.random.default_rng(0)
    a = rng.random(2000)
    return a, a + rng.normal(0.0005, 0.012, 2000)


@pytest.mark.slow
def test_tick_labels_of_a_small_difference_stand_apart(small_difference):
    res = pairboot.compare(*small_difference, n_resamples=2000, seed=1)
    assert res.confidence_interval.high - res.confidence_interval.low < 0.002
    assert_apart(tick_boxes(plot(res)))
    _, (left, right) = plt.subplots(1, 2, figsize=(8, 3.5))  # a caller's narrow axes
    assert_apart(tick_boxes(plot(res, left)))


def test_tick_labels_of_a_family_of_small_differences_stand_apart(small_difference):
    a, b = small_difference
    scores = {"base": a, "v1": b, "v2": a + (b - a) * 1.5}
    family = pairboot.compare_many(scores, baseline="base", n_resamples=500, seed=1,
                                   backend="numpy")
    assert_apart(tick_boxes(plot_family(family)))


def test_ticks_that_stand_apart_are_matplotlibs(result):
    from matplotlib.ticker import AutoLocator

    ax = plot(result)
    ax.figure.canvas.draw()
    default = AutoLocator()
    default.set_axis(ax.xaxis)
    assert list(ax.xaxis.get_majorticklocs()) == list(default())


@pytest.mark.slow
def test_ticks_stay_apart_when_the_figure_is_resized_later(small_difference):
    res = pairboot.compare(*small_difference, n_resamples=2000, seed=1)
    ax = plot(res)
    ax.figure.canvas.draw()
    ax.figure.set_size_inches(5, 3)  # (matplotlib's ticks for 5 inches touch)
    assert_apart(tick_boxes(ax))


# --- histogram bins on the lattice ----------------------------------------------------------


def bars(ax):
    return ax.containers[0].patches


def bin_edges(ax) -> np.ndarray:
    patches = bars(ax)
    return np.array([p.get_x() for p in patches] + [patches[-1].get_x()
                                                    + patches[-1].get_width()])


def assert_halfway_between_lattice_points(edges, step):
    k = edges / step - 0.5  # halfway between two multiples of step: k whole
    assert np.allclose(k, np.round(k), rtol=0, atol=1e-6)
    widths = np.diff(edges) / step  # a whole number of steps, the same for every bin
    assert np.allclose(widths, widths[0]) and round(widths[0]) >= 1
    assert np.isclose(widths[0], round(widths[0]), rtol=0, atol=1e-6)


def test_bins_of_0_1_scores_sit_between_the_multiples_of_1_over_n():
    rng = np.random.default_rng(3)
    n = 80
    a = (rng.random(n) < 0.6).astype(float)
    b = np.where(rng.random(n) < 0.3, 1 - a, a)
    res = pairboot.compare(a, b, n_resamples=2000, seed=2)
    assert lattice_step(res.bootstrap_distribution) == pytest.approx(1 / n, rel=1e-9)
    ax = plot(res)
    assert_halfway_between_lattice_points(bin_edges(ax), 1 / n)
    assert sum(p.get_height() for p in bars(ax)) == 2000  # every resample counted once


def test_the_lattice_is_found_in_the_data_not_assumed():
    # scores in halves: the differences are multiples of 1/(2n), not of 1/n
    rng = np.random.default_rng(4)
    n = 60
    a = rng.integers(0, 3, n) / 2
    b = np.clip(a + rng.integers(-1, 2, n) / 2, 0, 1)
    res = pairboot.compare(a, b, n_resamples=2000, seed=2)
    step = lattice_step(res.bootstrap_distribution)
    assert step == pytest.approx(1 / (2 * n), rel=1e-9)
    assert_halfway_between_lattice_points(bin_edges(plot(res)), step)
    # a wide lattice: several steps per bin, still whole ones
    wide = pairboot.compare(a, a + rng.normal(0, 1, n).round(2), n_resamples=2000, seed=2)
    step = lattice_step(wide.bootstrap_distribution)
    assert step == pytest.approx(0.01 / n, rel=1e-6)
    edges = bin_edges(plot(wide))
    assert_halfway_between_lattice_points(edges, step)
    assert 40 <= len(edges) - 1 <= 90  # about the 60 bins asked for


def test_values_on_no_lattice_keep_the_bins_asked_for():
    rng = np.random.default_rng(5)
    a = (rng.random(300) < 0.5).astype(float)
    b = (rng.random(300) < 0.55).astype(float)
    unequal = rng.integers(0, 40, 300)  # a ratio of sums over clusters: no lattice
    res = pairboot.compare(a, b, groups=unequal, n_resamples=1000, seed=0)
    assert lattice_step(res.bootstrap_distribution) is None
    assert len(bars(plot(res, bins=30))) == 30
    assert lattice_step(np.random.default_rng(0).random(500)) is None
    assert lattice_step([0.25]) is None


@pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning",
                            "ignore::pairboot.DegenerateDataWarning")
def test_one_value_is_at_the_centre_of_its_bin():
    a = np.tile([0.0, 1.0], 10)
    res = pairboot.compare(a, a, n_resamples=400, seed=0)
    (bar,) = [p for p in bars(plot(res)) if p.get_height() > 0]
    assert bar.get_x() + bar.get_width() / 2 == pytest.approx(0.0, abs=1e-12)


# --- long names -----------------------------------------------------------------------------


LLAMA_8B = "meta-llama/Llama-3.1-8B-Instruct__mmlu_pro__2024-06-01"
LLAMA_70B = "meta-llama/Llama-3.1-70B-Instruct__mmlu_pro__2024-06-01"
MISTRAL = "mistralai/Mistral-7B-v0.1__mmlu_pro__2024-06-01"


def test_forest_rows_keep_the_model_names():
    rng = np.random.default_rng(6)
    base = rng.random(100)
    scores = {LLAMA_8B: base, LLAMA_70B: base + rng.normal(0.05, 0.1, 100),
              MISTRAL: base + rng.normal(-0.02, 0.1, 100)}
    ax = plot_family(pairboot.compare_many(scores, n_resamples=400, seed=1,
                                           backend="numpy"))
    labels = [t.get_text() for t in ax.get_yticklabels()]
    # (cut from the left, every name was "…truct__mmlu_pro__2024-06-01")
    assert labels[0] == "meta-llama/Llama-3.1-70B-Instruct − meta-llama/Llama-3.1-8B-Instruct"
    assert labels[1].startswith("mistralai/Mistral-7B-v0.1 − ")
    assert "“__mmlu_pro__2024-06-01”" in ax.get_xlabel()


def test_shown_names_drop_shared_ends_at_separators_and_say_so():
    shown, said = shown_names([LLAMA_8B, LLAMA_70B], 20)
    assert shown == {LLAMA_8B: "Llama-3.1-8B", LLAMA_70B: "Llama-3.1-70B"}
    assert "“meta-llama/”" in said and "“-Instruct__mmlu_pro__2024-06-01”" in said
    # names that fit are left whole, even when they share a beginning
    assert shown_names(["gpt-4o-mini", "gpt-4o-agent"], 20) == (
        {"gpt-4o-mini": "gpt-4o-mini", "gpt-4o-agent": "gpt-4o-agent"}, None)


def test_names_cut_in_the_middle_stay_distinct():
    a = "alpha" + "m" * 40 + "1" + "z" * 40
    b = "beta" + "m" * 40 + "2" + "z" * 40
    shown, said = shown_names([a, b], 24)
    assert said is None and shown[a] != shown[b]
    assert shown[a].startswith("alpha") and "…" in shown[a] and shown[a].endswith("zzz")
    short, _ = shown_names(["alpha" + "x" * 40, "beta" + "y" * 40], 24)
    assert max(map(len, short.values())) == 24


# --- the stepdown's rejections whose simultaneous interval includes 0 -----------------------


@pytest.fixture(scope="module")
def stepdown_only():
    """A family where the stepdown rejects v3 - base while its simultaneous interval
    includes 0 (the strong v1 and v2 leave a smaller critical value for the rest)."""
    rng = np.random.default_rng(7)
    base = rng.normal(0, 1, 100)
    scores = {"base": base, "v1": base + rng.normal(1, 1, 100),
              "v2": base + rng.normal(1, 1, 100), "v3": base + rng.normal(0.24, 1, 100)}
    return pairboot.compare_many(scores, baseline="base", seed=7, n_resamples=1000,
                                 backend="numpy")


def estimate_marks(ax) -> dict[int, tuple[str, object]]:
    """Row -> (marker, face colour) of the estimate's mark in a forest plot."""
    from matplotlib.colors import to_hex

    return {round(line.get_ydata()[0]): (line.get_marker(), to_hex(line.get_markerfacecolor()))
            for line in ax.lines if line.get_marker() in ("o", "D")}


def test_a_stepdown_only_rejection_is_marked_apart(stepdown_only):
    rows = {c.b: c for c in stepdown_only.comparisons}
    v1, v3 = rows["v1"], rows["v3"]
    assert v1.significant and v1.confidence_interval.low > 0  # both ways significant
    assert v3.significant and v3.confidence_interval.low <= 0  # by the stepdown only
    assert disagrees(v3) and not disagrees(v1)
    ax = plot_family(stepdown_only)
    marks = estimate_marks(ax)
    order = [c.b for c in stepdown_only.comparisons]
    one, only = marks[order.index("v1")], marks[order.index("v3")]
    assert one[0] == "o" and only[0] == "D"
    assert one[1] == only[1]  # filled alike: significant by the adjusted p, both
    legend = [t.get_text() for t in ax.figure.legends[0].get_texts()]
    assert any("stepdown p < 0.05" in t and t.startswith("significant") for t in legend)
    assert any("simultaneous interval includes 0" in t for t in legend)
    assert [t.get_text().endswith("◆") for t in ax.texts] == [c is v3 for c in rows.values()]


def test_the_opposite_disagreement_is_an_open_diamond(stepdown_only):
    c = stepdown_only.comparisons[0]
    odd = dataclasses.replace(c, significant=False)  # (interval above 0, not significant)
    family = dataclasses.replace(stepdown_only, comparisons=(odd,
                                                             *stepdown_only.comparisons[1:]))
    fig, ax = plt.subplots()
    plot_family(family, ax)
    assert estimate_marks(ax)[0] == ("D", "#ffffff")
    assert any("excludes 0" in t.get_text() for t in ax.get_legend().get_texts())
    assert not any("includes 0" in t.get_text() for t in ax.get_legend().get_texts()
                   if "not" in t.get_text())


def test_without_disagreements_the_legend_has_no_diamond(result):
    scores = {"base": A, "v1": B}
    ax = plot_family(pairboot.compare_many(scores, n_resamples=400, seed=1, backend="numpy"))
    assert not any("includes 0" in t.get_text() for t in ax.figure.legends[0].get_texts())


# --- the matrix of an all-pairs family ------------------------------------------------------


@pytest.fixture(scope="module")
def nineteen():
    """All 171 pairs of 19 systems (0/1 scores)."""
    rng = np.random.default_rng(8)
    skill = np.linspace(0.2, 0.8, 19)
    scores = {f"system-{k:02d}-with-a-longish-name": (rng.random(60) < p).astype(float)
              for k, p in enumerate(skill)}
    return pairboot.compare_many(scores, n_resamples=400, seed=1, backend="numpy")


@pytest.mark.slow
def test_a_large_all_pairs_family_is_drawn_as_a_bounded_matrix(nineteen):
    assert len(nineteen.comparisons) == 171
    ax = plot_family(nineteen)  # (as a forest: 5,662 pixels tall)
    fig = ax.figure
    assert ax.images and fig.get_size_inches()[1] * fig.dpi <= 1600
    fig.savefig(io.BytesIO(), format="png")
    rows = [t.get_text() for t in ax.get_yticklabels()]
    columns = [t.get_text() for t in ax.get_xticklabels()]
    assert len(rows) == len(columns) == 19
    scores = [float(nineteen.systems[name].estimate) for name in columns]
    assert scores == sorted(scores, reverse=True)  # the best first
    assert all(row.startswith(column) for row, column in zip(rows, columns))
    inside = fig.bbox
    for artist in [ax.title, ax.xaxis.label, *fig.legends, *ax.get_yticklabels(),
                   *ax.get_xticklabels()]:
        box = artist.get_window_extent()
        assert inside.x0 <= box.x0 and box.x1 <= inside.x1, artist
        assert inside.y0 <= box.y0 and box.y1 <= inside.y1, artist


def cell_marks(ax) -> dict[tuple[int, int], str]:
    """(row, column) -> the marker drawn in the cell (a matrix without values)."""
    out = {}
    for line in ax.lines:
        for x, y in zip(line.get_xdata(), line.get_ydata()):
            out[round(y), round(x)] = line.get_marker()
    return out


def test_the_matrix_marks_each_pair_as_the_forest_does(stepdown_only):
    a_pairs = dataclasses.replace(stepdown_only)  # (a baseline family: blank cells too)
    fig, ax = plt.subplots(figsize=(5, 5))
    plot_pairs(a_pairs, ax)
    order = [t.get_text() for t in ax.get_xticklabels()]
    marks = cell_marks(ax)
    for c in stepdown_only.comparisons:
        i, j = order.index(c.b), order.index(c.a)
        expected = "D" if disagrees(c) else ("o" if c.significant else None)
        assert marks.get((i, j)) == marks.get((j, i)) == expected
    assert any("includes 0" in line for line in ax.get_xlabel().split("\n"))


def test_a_small_matrix_writes_row_minus_column_in_its_cells(stepdown_only):
    ax = plot_pairs(stepdown_only)
    order = [t.get_text() for t in ax.get_xticklabels()]
    texts = {(round(t.get_position()[1]), round(t.get_position()[0])): t.get_text()
             for t in ax.texts}
    d = decimals(min(c.standard_error for c in stepdown_only.comparisons))
    for c in stepdown_only.comparisons:
        i, j = order.index(c.b), order.index(c.a)
        assert texts[i, j] == f"{c.estimate:+.{d}f}" and texts[j, i] == f"{-c.estimate:+.{d}f}"


def test_small_all_pairs_families_stay_forests_and_kind_chooses(pairs_of_six):
    ax = plot_family(pairs_of_six)  # 15 comparisons: a forest is still readable
    assert not ax.images and len(ax.get_yticklabels()) == 15
    assert plot_family(pairs_of_six, kind="matrix").images
    with pytest.raises(InputError, match="`kind`"):
        plot_family(pairs_of_six, kind="heatmap")


@pytest.fixture(scope="module")
def pairs_of_six():
    rng = np.random.default_rng(9)
    base = rng.random(80)
    scores = {f"s{k}": base + rng.normal(0.02 * k, 0.1, 80) for k in range(6)}
    return pairboot.compare_many(scores, n_resamples=400, seed=1, backend="numpy")


@pytest.mark.slow
def test_cli_plot_of_all_pairs_of_19_systems_is_a_matrix(tmp_path):
    rng = np.random.default_rng(10)
    files = []
    for k in range(19):
        path = tmp_path / f"system{k:02d}.csv"
        rows = "".join(f"q{i},{int(rng.random() < 0.2 + 0.03 * k)}\n" for i in range(40))
        path.write_text("id,score\n" + rows)
        files.append(path)
    picture = tmp_path / "family.png"
    proc = run_in_process("compare", *files, "--id", "id", "--resamples", "400", "--seed",
                          "1", "--plot", picture)
    assert proc.returncode == 0, proc.stderr
    png = picture.read_bytes()
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert height <= 1600 and width <= 1600  # (the forest of 171 rows: 5,662 pixels tall)


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_a_one_sided_interval_is_shaded_to_the_edge_of_the_axes(alternative):
    res = pairboot.compare(A, A + 0.05 + np.cos(np.arange(N)) * 0.1, n_resamples=2000,
                           seed=1, alternative=alternative)
    ax = plot(res)
    (span,) = [p for p in ax.patches if p.get_label().startswith("one-sided")]
    x0, x1 = ax.get_xlim()
    left, right = span.get_x(), span.get_x() + span.get_width()
    low, high = res.confidence_interval
    if alternative == "greater":
        assert left == pytest.approx(low) and right == pytest.approx(x1)
    else:
        assert left == pytest.approx(x0) and right == pytest.approx(high)
    assert legend_texts(ax)[0] == "one-sided 95% percentile interval"


def _dotted_at(ax) -> list[float]:
    """The x of every dotted vertical line in ``ax`` (the margin's marks)."""
    return sorted(float(line.get_xdata()[0]) for line in ax.get_lines()
                  if line.get_linestyle() == ":" and len(set(line.get_xdata())) == 1)


@pytest.mark.parametrize("hypothesis, lower, expected", [
    ("non-inferiority", False, [-0.05]), ("non-inferiority", True, [0.05]),
    ("superiority", False, [0.05]), ("equivalence", False, [-0.05, 0.05]),
    ("difference", False, [-0.05, 0.05]),
])
def test_the_margin_is_drawn_at_its_boundaries(hypothesis, lower, expected):
    res = pairboot.compare(A, B, n_resamples=500, seed=1, hypothesis=hypothesis, margin=0.05,
                           lower_is_better=lower)
    ax = plot(res)
    assert _dotted_at(ax) == pytest.approx(expected)
    x0, x1 = ax.get_xlim()
    assert x0 <= min(expected) and max(expected) <= x1  # (in view, however far)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("margin" in t for t in labels), labels


def test_a_family_draws_each_row_s_margin_and_marks_no_false_disagreement():
    rng = np.random.default_rng(5)
    base = rng.random(300)
    scores = {"base": base, "v1": base + rng.normal(0.0, 0.05, 300),
              "v2": base + rng.normal(-0.005, 0.05, 300)}
    margins = {("base", "v1"): 0.02, ("base", "v2"): 0.04}
    fam = pairboot.compare_many(scores, baseline="base", hypothesis="non-inferiority",
                                margin=margins, n_resamples=500, seed=1)
    ax = plot_family(fam)
    assert _dotted_at(ax) == pytest.approx([-0.04, -0.02])
    # non-inferior rows whose intervals include 0 are no disagreement: the boundary decides
    for c in fam.comparisons:
        assert not disagrees(c, fam)
        assert c.significant == (c.confidence_interval.low > -c.margin)


def test_importing_the_plots_loads_no_matplotlib():
    """matplotlib is imported by the functions that draw, never by importing
    ``pairboot.plot`` (the public face) or ``pairboot.report.plot``."""
    import subprocess
    import sys

    import pairboot.report.plot.histogram

    code = ("import sys, pairboot.plot, pairboot.report.plot; "
            "print('matplotlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
    assert pairboot.plot.plot is pairboot.report.plot.histogram.plot

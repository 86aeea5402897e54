"""The power curve (:func:`pairboot.plot.plot_power`): its lines are the plan's
:meth:`~pairboot.PowerResult.curve` and its marks the plan's size, difference and power
(read off the Line2D data, not pixels); without matplotlib, an ImportError naming the
extra."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from helpers import assert_one_line_error, run_in_process

import pairboot
from pairboot.report import power_panels

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from pairboot.plot import plot_power  # noqa: E402


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def lines(ax):
    """The axes' lines by label (the planned point, unlabelled, as "point")."""
    out = {}
    for line in ax.get_lines():
        label = line.get_label()
        out["point" if label.startswith("_") and line.get_marker() == "o" else label] = line
    return out


def by_start(found: dict, start: str):
    (line,) = [v for k, v in found.items() if k.startswith(start)]
    return line


@pytest.fixture
def connor():
    return pairboot.power(accuracy_a=0.72, accuracy_b=0.74, discordant=0.15, power=0.8)


def test_the_size_panel_is_the_curve_with_the_plan_marked(connor):
    ax = plot_power(connor, against="size")
    found = lines(ax)
    curve = connor.curve()
    x, y = found["power"].get_data()
    assert list(x) == pytest.approx(curve["values"]) and list(y) == pytest.approx(
        curve["power"])
    planned = by_start(found, "planned:")
    assert list(planned.get_xdata()) == [connor.n_items] * 2
    target = by_start(found, "target power")
    assert list(target.get_ydata()) == [0.8, 0.8]
    px, py = found["point"].get_data()
    assert px[0] == connor.n_items
    assert py[0] == pytest.approx(connor.curve(sizes=[connor.n_items])["power"][0])
    assert py[0] >= 0.8  # (the size is rounded up)
    assert f"planned: {connor.n_items:,} paired items" in planned.get_label()
    assert ax.get_xlabel() == "paired items"
    assert "+2.0 points" in ax.get_title()


def test_the_difference_panel_is_the_curve_at_the_planned_size(connor):
    ax = plot_power(connor, against="delta")
    found = lines(ax)
    deltas = np.linspace(0.0, 2 * connor.delta, 25)[1:]
    curve = connor.curve(deltas=deltas)
    x, y = found["power"].get_data()
    assert list(x) == pytest.approx(curve["values"])
    assert list(y) == pytest.approx(curve["power"])
    assert list(by_start(found, "planned difference").get_xdata()) == pytest.approx(
        [connor.delta] * 2)
    assert "points" in ax.get_xlabel()  # (0/1 scores: the ticks in points)
    ax.figure.canvas.draw()
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert "0" in labels and "+2" in labels


def test_both_panels_by_default(connor):
    axes = plot_power(connor)
    assert isinstance(axes, tuple) and len(axes) == 2
    assert axes[0].figure is axes[1].figure
    assert list(lines(axes[0])["power"].get_xdata()) == pytest.approx(
        connor.curve()["values"])
    assert lines(axes[1])["power"].get_xdata()[-1] == pytest.approx(2 * connor.delta)


def test_given_axes_are_drawn_into(connor):
    fig, (left, right) = plt.subplots(1, 2)
    assert plot_power(connor, (left, right)) == (left, right)
    assert plot_power(connor, left, against="size") is left
    with pytest.raises(ValueError, match="2 panels to draw, 1 axes given"):
        plot_power(connor, left)


def test_groups_are_counted_in_groups():
    res = pairboot.power(sd=0.5, group_size=10, icc=0.1, delta=0.05, power=0.8)
    ax = plot_power(res, against="size")
    found = lines(ax)
    assert list(found["power"].get_xdata()) == res.curve()["values"]
    assert list(by_start(found, "planned:").get_xdata()) == [res.n_groups] * 2
    assert ax.get_xlabel().startswith("groups (about 10 items each)")


def test_a_solved_power_is_marked_as_the_power_at_the_plan():
    res = pairboot.power(sd=0.5, n_items=100, delta=0.1)
    ax = plot_power(res, against="size")
    line = by_start(lines(ax), "power at the plan")
    assert list(line.get_ydata()) == pytest.approx([res.power] * 2)
    assert f"{res.power:.1%}" in line.get_label()


def test_a_difference_of_zero_has_no_difference_panel():
    res = pairboot.power(sd=0.5, delta=0.0, power=0.8, hypothesis="non-inferiority",
                         margin=0.05)
    assert power_panels(res) == ("size",)
    (ax,) = plot_power(res)
    assert list(lines(ax)["power"].get_xdata()) == res.curve()["values"]
    with pytest.raises(ValueError, match="difference is 0"):
        plot_power(res, against="delta")


def test_a_plan_without_a_size_is_refused():
    res = pairboot.power(sd=0.5, run_sd=0.3, residual_sd=1.0, n_runs=3, delta=0.3,
                         power=0.8)
    assert res.n_items is None and power_panels(res) == ()
    with pytest.raises(ValueError, match="no planned size"):
        plot_power(res)


def test_the_simulation_is_drawn_at_the_plan():
    rng = np.random.default_rng(0)
    a = (rng.random(300) < 0.7).astype(float)
    b = np.where(a == 1, rng.random(300) < 0.85, rng.random(300) < 0.3).astype(float)
    res = pairboot.power(a, b, delta=0.03, power=0.8, simulate=True, n_simulations=50,
                         seed=1)
    ax = plot_power(res, against="size")
    (bars,) = ax.containers
    x, y = bars.lines[0].get_data()
    assert x[0] == res.n_items and y[0] == pytest.approx(res.simulation.power)
    assert "simulated" in bars.get_label()


def test_the_cli_writes_the_curve(tmp_path):
    out = tmp_path / "curve.png"
    proc = run_in_process("power", "--sd", "0.5", "--delta", "0.1", "--power", "0.8",
                          "--plot", out)
    assert proc.returncode == 0, proc.stderr.decode()
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = tmp_path / "curve.svg"
    assert run_in_process("power", "--sd", "0.5", "--delta", "0.1", "--power", "0.8",
                          "--plot", svg).returncode == 0
    assert b"<svg" in svg.read_bytes()[:500]


def test_the_cli_without_matplotlib_says_which_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    proc = run_in_process("power", "--sd", "0.5", "--delta", "0.1", "--power", "0.8",
                          "--plot", tmp_path / "c.png")
    assert_one_line_error(proc, 'pip install "pairboot[plot]"')


@pytest.mark.slow
def test_import_without_matplotlib():
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "import pairboot, pairboot.plot\n"
        "res = pairboot.power(sd=0.5, delta=0.1, power=0.8)\n"
        "try:\n"
        "    pairboot.plot.plot_power(res)\n"
        "except ImportError as e:\n"
        "    print(e)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert 'pip install "pairboot[plot]"' in proc.stdout


def test_compare_without_matplotlib_fails_before_its_report(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    data = tmp_path / "d.csv"
    data.write_text("a,b\n" + "".join(f"{i % 3},{(i + 1) % 3}\n" for i in range(30)))
    proc = run_in_process("compare", data, "--a", "a", "--b", "b", "--resamples", "200",
                          "--plot", tmp_path / "c.png")
    assert_one_line_error(proc, 'pip install "pairboot[plot]"')

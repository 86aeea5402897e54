"""The bootstrap distribution of B - A with its interval, the estimate, 0 and the margin
(:func:`plot`)."""

from __future__ import annotations

import math

import numpy as np

from pairboot.report.figures import (
    histogram_bins,
    margin_marks,
)
from pairboot.report.numbers import decimals, percent
from pairboot.report.plot.common import (
    BLUE,
    MARGIN,
    NAME_WIDTH,
    ROW,
    ZERO_STRETCH,
    escaped_names,
    pair_title,
    space_ticks,
)
from pairboot.results.compare import CompareResult


def plot(result: CompareResult, ax=None, *, name_a: str = "A", name_b: str = "B", bins: int = 60):
    """Histogram of ``result.bootstrap_distribution``, the interval, the estimate and 0
    (and, with a margin, its boundaries, dotted).

    The interval's endpoints and the estimate are labelled with their values above the
    axes, with the reports' decimals.  The axis stretches to 0 when that at most doubles its
    range; otherwise 0 is left out and the legend says on which side it lies.  An undefined
    (NaN) endpoint is not drawn and the legend calls the interval undefined.

    When the resampled differences lie on a lattice (0/1 or other gridded scores: the
    differences of means are multiples of ``1/n``), found from the values themselves, each
    bin is a whole number of lattice steps wide with its edges halfway between lattice
    points, so that no bin catches one point more than its neighbours.  Long system names
    lose the prefix and suffix they share (the x label says what was left out), then their
    middle.  The x ticks are fewer when their labels would run into each other.

    Needs matplotlib (``pip install "pairboot[plot]"``).

    Parameters
    ----------
    result : CompareResult
    ax : matplotlib.axes.Axes, optional
        Draw into these axes (the figure's layout is left alone, and the legend goes
        inside the axes).  By default a new
        figure with the constrained layout, so a plain ``fig.savefig(path)`` keeps every
        label.
    name_a, name_b : str
        The systems' names for the title, e.g. their file names.
    bins : int, default 60
        About this many bins (on a lattice: the nearest whole number of steps per bin).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pairboot
    >>> from pairboot.plot import plot
    >>> res = pairboot.compare([0.1, 0.4, 0.35, 0.8] * 10, [0.2, 0.4, 0.4, 0.9] * 10, seed=0)
    >>> ax = plot(res, name_a="base", name_b="new")
    >>> ax.get_title()
    'B − A: new vs base (mean)'
    >>> ax.get_xlabel()
    'B − A (mean), 10,000 resamples'
    """
    try:
        import matplotlib.pyplot as plt
        from matplotlib.colors import to_rgba
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError('plotting needs matplotlib: pip install "pairboot[plot]"') from None
    own_figure = ax is None
    if own_figure:
        _, ax = plt.subplots(figsize=(7.2, 4), layout="constrained")
    values = np.asarray(result.bootstrap_distribution, dtype=float)
    values = values[np.isfinite(values)]
    ax.hist(values, bins=histogram_bins(values, bins), color="0.8", edgecolor="0.65")
    x0, x1 = ax.get_xlim()

    low, high = result.confidence_interval
    marks, mark_label = margin_marks(result)
    if marks:  # (the margin's boundaries in view, however far from the resamples)
        x0, x1 = min(x0, *marks), max(x1, *marks)
        ax.set_xlim(x0, x1)
    interval = f"{percent(result.interval_level)} {result.method} interval"
    if getattr(result, "alternative", "two-sided") != "two-sided":
        interval = f"one-sided {interval}"
    if not (math.isnan(low) or math.isnan(high)) and (math.isfinite(low)
                                                        or math.isfinite(high)):
        # Opaque edges mark the endpoints even when the span is thin; a one-sided
        # interval's open end runs to the edge of the axes.
        shade = to_rgba(BLUE, 0.15)
        span = ax.axvspan(max(low, x0), min(high, x1), facecolor=shade, edgecolor=BLUE,
                          label=interval)
        if math.isinf(low) or math.isinf(high):
            ax.set_xlim(x0, x1)  # (the open end stops at the histogram's range)
    else:
        span = Patch(facecolor="none", edgecolor="none", label=f"{interval}: undefined")
    estimate = ax.axvline(result.estimate, color=BLUE, linewidth=2, label="estimate")
    zero_style = {"color": "black", "linestyle": "--", "linewidth": 1}
    if max(x1, 0.0) - min(x0, 0.0) <= ZERO_STRETCH * (x1 - x0):
        zero = ax.axvline(0.0, label="no difference", **zero_style)
    else:
        side = "left" if x0 > 0 else "right"
        zero = Line2D([], [], label=f"no difference\n(0, off to the {side})", **zero_style)

    handles = [span, estimate, zero]
    for k, at in enumerate(marks):
        line = ax.axvline(at, color=MARGIN, linestyle=":", linewidth=1.6,
                          label=mark_label if k == 0 else None)
        if k == 0:
            handles.append(line)

    # The values above the axes: each endpoint on the first row, outside its line so the
    # two never meet however narrow the interval; the estimate on the row above, on a stem.
    d = decimals(result.standard_error)
    label_style = {
        "xycoords": ax.get_xaxis_transform(),  # x in data, y as a fraction of the axes
        "textcoords": "offset points",
        "va": "bottom",
        "color": BLUE,
        "fontsize": "small",
        "annotation_clip": False,
    }
    for value, ha, dx in ((low, "right", -2), (high, "left", 2)):
        if math.isfinite(value):
            ax.annotate(f"{value:.{d}f}", (value, 1), xytext=(dx, 2), ha=ha, **label_style)
    if math.isfinite(result.estimate):
        ax.annotate(
            f"{result.estimate:.{d}f}",
            (result.estimate, 1),
            xytext=(0, 2 + ROW),
            ha="center",
            fontweight="bold",
            arrowprops={"arrowstyle": "-", "color": BLUE, "shrinkA": 0, "shrinkB": 0},
            **label_style,
        )

    if (name_a, name_b) == ("A", "B"):
        title, left_out = f"B − A ({result.metric})", None
    else:
        shown, left_out = escaped_names([name_a, name_b], NAME_WIDTH)
        title = pair_title(result.metric, shown[str(name_a)], shown[str(name_b)])
    ax.set_title(title, pad=2 * ROW + 6)
    ax.set_xlabel(f"B − A ({result.metric}), {result.n_resamples:,} resamples"
                  + (f"\n{left_out}" if left_out else ""))
    ax.set_ylabel("resamples")
    if own_figure:  # on the right, outside the axes, where no bar or label can be
        ax.legend(handles=handles, fontsize="small", frameon=False,
                  loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    else:  # the caller's layout may leave no room outside: inside, where it fits best
        ax.legend(handles=handles, fontsize="small", framealpha=0.85, loc="best")
    space_ticks(ax.xaxis)
    return ax

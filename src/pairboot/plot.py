"""A picture of a comparison: the bootstrap distribution of B - A with its interval."""

from __future__ import annotations

import math

import numpy as np

from pairboot.result import CompareResult, decimals, percent

_NAME_WIDTH = 48
"""Longer system names keep their last characters (paths differ at the end)."""
_TITLE_WIDTH = 56
"""A longer title puts each system's name on a line of its own."""
_ZERO_STRETCH = 2.0
"""0 is drawn when reaching it at most multiplies the histogram's x range by this."""
_ROW = 12.0
"""Height in points of one row of value labels above the axes."""
_BLUE = "tab:blue"


def plot(result: CompareResult, ax=None, *, name_a: str = "A", name_b: str = "B", bins: int = 60):
    """Histogram of ``result.bootstrap_distribution``, the interval, the estimate and 0.

    The interval's endpoints and the estimate are labelled with their values above the
    axes, with the reports' decimals.  The axis stretches to 0 when that at most doubles its
    range; otherwise 0 is left out and the legend says on which side it lies.  An undefined
    (NaN) endpoint is not drawn and the legend calls the interval undefined.

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
    ax.hist(values[np.isfinite(values)], bins=bins, color="0.8", edgecolor="0.65")
    x0, x1 = ax.get_xlim()

    low, high = result.confidence_interval
    interval = f"{percent(result.confidence_level)} {result.method} interval"
    if math.isfinite(low) and math.isfinite(high):
        # Opaque edges mark the endpoints even when the span is thin.
        shade = to_rgba(_BLUE, 0.15)
        span = ax.axvspan(low, high, facecolor=shade, edgecolor=_BLUE, label=interval)
    else:
        span = Patch(facecolor="none", edgecolor="none", label=f"{interval}: undefined")
    estimate = ax.axvline(result.estimate, color=_BLUE, linewidth=2, label="estimate")
    zero_style = {"color": "black", "linestyle": "--", "linewidth": 1}
    if max(x1, 0.0) - min(x0, 0.0) <= _ZERO_STRETCH * (x1 - x0):
        zero = ax.axvline(0.0, label="no difference", **zero_style)
    else:
        side = "left" if x0 > 0 else "right"
        zero = Line2D([], [], label=f"no difference\n(0, off to the {side})", **zero_style)

    # The values above the axes: each endpoint on the first row, outside its line so the
    # two never meet however narrow the interval; the estimate on the row above, on a stem.
    d = decimals(result.standard_error)
    label_style = {
        "xycoords": ax.get_xaxis_transform(),  # x in data, y as a fraction of the axes
        "textcoords": "offset points",
        "va": "bottom",
        "color": _BLUE,
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
            xytext=(0, 2 + _ROW),
            ha="center",
            fontweight="bold",
            arrowprops={"arrowstyle": "-", "color": _BLUE, "shrinkA": 0, "shrinkB": 0},
            **label_style,
        )

    ax.set_title(_title(result.metric, name_a, name_b), pad=2 * _ROW + 6)
    ax.set_xlabel(f"B − A ({result.metric}), {result.n_resamples:,} resamples")
    ax.set_ylabel("resamples")
    if own_figure:  # on the right, outside the axes, where no bar or label can be
        ax.legend(handles=[span, estimate, zero], fontsize="small", frameon=False,
                  loc="upper left", bbox_to_anchor=(1.01, 1), borderaxespad=0)
    else:  # the caller's layout may leave no room outside: inside, where it fits best
        ax.legend(handles=[span, estimate, zero], fontsize="small", framealpha=0.85,
                  loc="best")
    return ax


def _title(metric: str, name_a: str, name_b: str) -> str:
    """The title, as "B − A: new vs base (mean)", or one line per system when that is long."""
    if (name_a, name_b) == ("A", "B"):
        return f"B − A ({metric})"
    a, b = _short(name_a), _short(name_b)
    title = f"B − A: {b} vs {a} ({metric})"
    return title if len(title) <= _TITLE_WIDTH else f"B − A ({metric})\nB: {b}\nA: {a}"


def _short(name: str) -> str:
    """``name`` in at most ``_NAME_WIDTH`` characters, with ``$`` taken literally."""
    name = str(name)
    if len(name) > _NAME_WIDTH:
        name = "…" + name[1 - _NAME_WIDTH :]
    return name.replace("$", r"\$")  # matplotlib reads $...$ as mathematics

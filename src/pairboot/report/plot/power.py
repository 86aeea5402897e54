"""A planned comparison's power curve (:func:`plot_power`): power against the size at the
planned difference, and against the true difference at the planned size."""

from __future__ import annotations

from pairboot.report.figures import power_panel, power_panels
from pairboot.report.plot.common import BLUE, GREY, MARGIN
from pairboot.results.power import PowerResult


def plot_power(result: PowerResult, ax=None, *, against=None):
    """The power curve of a plan (:func:`pairboot.power`), with the target power and the
    planned size (or difference) marked.

    ``against="size"``: the power at a range of sizes (items, groups or runs, as the
    plan counts them: :attr:`~pairboot.PowerResult.unit`) from a tenth to twice the
    planned one, at the planned difference.  ``against="delta"``: the power at true
    differences from 0 to twice the planned one, at the planned size (differences of
    0/1 scores in percentage points).  The points are
    :meth:`~pairboot.PowerResult.curve`'s.  By default both, side by side (only the
    size's when the planned difference is 0).

    Needs matplotlib (``pip install "pairboot[plot]"``).

    Parameters
    ----------
    result : PowerResult
        With a planned size, difference and power (a plan that no size reaches has no
        curve to draw).
    ax : matplotlib.axes.Axes or sequence of them, optional
        Draw into these axes, one per panel.  By default a new figure.
    against : {"size", "delta"} or sequence of them, optional
        The panels (default: every one the plan has).

    Returns
    -------
    matplotlib.axes.Axes, or a tuple of them when ``against`` is not one name

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pairboot
    >>> from pairboot.plot import plot_power
    >>> res = pairboot.power(sd=0.5, delta=0.1, power=0.8)
    >>> ax = plot_power(res, against="size")
    >>> ax.get_xlabel()
    'paired items'
    """
    try:
        import matplotlib.pyplot as plt
        from matplotlib.ticker import FuncFormatter, PercentFormatter
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError('plotting needs matplotlib: pip install "pairboot[plot]"') from None
    one = isinstance(against, str)
    names = (against,) if one else tuple(against) if against is not None else power_panels(
        result)
    if not names:  # (no size or no difference: power_panel says why)
        power_panel(result, "size")
    panels = [power_panel(result, name) for name in names]
    if ax is None:
        width = 5.2 * len(panels) + 0.4
        _, axes = plt.subplots(1, len(panels), figsize=(width, 4), layout="constrained",
                               squeeze=False)
        axes = list(axes[0])
    else:
        axes = [ax] if not isinstance(ax, (list, tuple)) and not hasattr(ax, "shape") else \
            list(getattr(ax, "flat", ax))
        if len(axes) != len(panels):
            raise ValueError(f"{len(panels)} panels to draw, {len(axes)} axes given")
    for name, panel, a in zip(names, panels, axes):
        a.plot(panel.x, panel.power, color=BLUE, linewidth=2, label="power")
        a.axhline(panel.target, color=GREY, linestyle="--", linewidth=1,
                  label=panel.target_label)
        a.axvline(panel.planned, color=MARGIN, linestyle=":", linewidth=1.6,
                  label=panel.planned_label)
        a.plot([panel.planned], [panel.at_plan], "o", color=MARGIN, markersize=6,
               zorder=3)
        if panel.simulated is not None:  # (two Monte Carlo errors either side)
            power, error = panel.simulated
            a.errorbar([panel.planned], [power], yerr=[[2 * error], [2 * error]], fmt="s",
                       color="black", markersize=5, capsize=4, zorder=4,
                       label=panel.simulated_label)
        a.set_ylim(0, 1.02)
        a.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
        if name == "size":
            a.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
        elif panel.points:
            a.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{100 * v:+.3g}" if v else "0"))
        a.set_xlim(min(0.0, min(panel.x)), max(0.0, max(panel.x)))
        a.set_title(panel.title, fontsize="medium")
        a.set_xlabel(panel.xlabel)
        a.set_ylabel("power")
        a.grid(True, color="0.9", linewidth=0.8)
        # (where the curve is high: on the right, but for differences below 0 on the left)
        low_side = "lower left" if name == "delta" and panel.planned < 0 else "lower right"
        a.legend(fontsize="small", loc=low_side, framealpha=0.9)
    return axes[0] if one else tuple(axes)

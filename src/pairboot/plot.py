"""Pictures: the bootstrap distribution of B - A with its interval (:func:`plot`), and a
family's forest plot (:func:`plot_family`)."""

from __future__ import annotations

import math

import numpy as np

from pairboot.result import CompareResult, FamilyResult, decimals, percent

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


def _short(name: str, width: int = _NAME_WIDTH) -> str:
    """``name`` in at most ``width`` characters, with ``$`` taken literally."""
    name = str(name)
    if len(name) > width:
        name = "…" + name[1 - width :]
    return name.replace("$", r"\$")  # matplotlib reads $...$ as mathematics


_FOREST_NAME_WIDTH = 28
"""In a forest plot's row labels, longer system names keep their last characters."""
_FOREST_ROW = 0.32
"""Height in inches of one comparison's row in a forest plot's own figure."""
_LABEL_INCH = 0.08
"""Width in inches of one character of a row label (the figure widens for long ones)."""
_GREY = "0.45"


def plot_family(result: FamilyResult, ax=None, *, values: bool | None = None):
    """A forest plot of a family of comparisons: one row per comparison ``b − a``.

    Each row shows the family's interval (outer, thin: simultaneous under max-t,
    Bonferroni's under holm and bonferroni), the comparison's marginal interval (inner,
    thick), and the estimate as a dot, filled when the comparison is significant after
    the correction; a dashed line marks 0.  The axis stretches to 0 when that at most
    doubles its range; otherwise the legend says on which side 0 lies.  An infinite
    endpoint (too few resamples for the level) is drawn to the edge of the axes with an
    arrow head; an undefined (NaN) one is not drawn.

    Needs matplotlib (``pip install "pairboot[plot]"``).

    Parameters
    ----------
    result : FamilyResult
    ax : matplotlib.axes.Axes, optional
        Draw into these axes (the figure's layout is left alone, and the legend goes
        inside the axes).  By default a new figure with the constrained layout, sized to
        the number of comparisons, so a plain ``fig.savefig(path)`` keeps every label.
    values : bool, optional
        Write each row's estimate and family interval right of the axes, with the
        reports' decimals.  By default only in a figure of its own (in a caller's
        layout there may be no room for them).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, pairboot
    >>> from pairboot.plot import plot_family
    >>> rng = np.random.default_rng(0)
    >>> base = rng.random(200)
    >>> scores = {"base": base, "v1": base + rng.normal(0.05, 0.1, 200),
    ...           "v2": base + rng.normal(0.0, 0.1, 200)}
    >>> res = pairboot.compare_many(scores, baseline="base", seed=1, n_resamples=2000)
    >>> ax = plot_family(res)
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['v1 − base', 'v2 − base']
    >>> ax.get_title()
    'b − a (mean): max-t, 95% simultaneous intervals'
    """
    try:
        import matplotlib.pyplot as plt
        from matplotlib.lines import Line2D
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError('plotting needs matplotlib: pip install "pairboot[plot]"') from None
    from pairboot.report.family import family_decimals, interval_name

    comparisons = result.comparisons
    m = len(comparisons)
    family = interval_name(result)
    corrected = not family.endswith(" interval")  # else the marginal interval is the family's
    own_figure = ax is None
    if values is None:
        values = own_figure
    labels = [f"{_short(c.b, _FOREST_NAME_WIDTH)} − {_short(c.a, _FOREST_NAME_WIDTH)}"
              for c in comparisons]
    if own_figure:  # wider for long labels, so that the axes keep their width
        longest = max(len(label) for label in labels)
        width = 7.2 + _LABEL_INCH * max(0, longest - 20)
        _, ax = plt.subplots(figsize=(width, 1.9 + _FOREST_ROW * m), layout="constrained")

    # the x range: every finite endpoint and estimate, then 0 when it is near enough
    finite = [v for c in comparisons
              for v in (c.estimate, *c.confidence_interval, *c.marginal_interval)
              if math.isfinite(v)]
    x0, x1 = (min(finite), max(finite)) if finite else (-1.0, 1.0)
    if x1 - x0 <= 0:
        x0, x1 = x0 - max(abs(x0), 1.0) * 0.05, x1 + max(abs(x1), 1.0) * 0.05
    zero_shown = max(x1, 0.0) - min(x0, 0.0) <= _ZERO_STRETCH * (x1 - x0)
    if zero_shown:
        x0, x1 = min(x0, 0.0), max(x1, 0.0)
    pad = 0.06 * (x1 - x0)
    x0, x1 = x0 - pad, x1 + pad
    ax.set_xlim(x0, x1)
    ax.set_ylim(m - 0.5, -0.5)  # the first comparison at the top

    for y, c in enumerate(comparisons):
        color = _BLUE if c.significant else _GREY
        low, high = c.confidence_interval
        if not (math.isnan(low) or math.isnan(high)):
            ax.plot([max(low, x0), min(high, x1)], [y, y], color=color, linewidth=1.2,
                    solid_capstyle="butt", zorder=2)
            for end, edge, marker in ((low, x0, "<"), (high, x1, ">")):
                if math.isinf(end):
                    ax.plot([edge], [y], marker=marker, color=color, markersize=6,
                            clip_on=False, zorder=2)
                else:  # a short tick closes the outer interval
                    ax.plot([end], [y], marker="|", color=color, markersize=8, zorder=2)
        low, high = c.marginal_interval
        if corrected and math.isfinite(low) and math.isfinite(high):
            ax.plot([low, high], [y, y], color=color, linewidth=5, alpha=0.45,
                    solid_capstyle="butt", zorder=3)
        if math.isfinite(c.estimate):
            ax.plot([c.estimate], [y], marker="o", markersize=6, zorder=4,
                    markeredgecolor=color, markeredgewidth=1.3,
                    markerfacecolor=color if c.significant else "white")

    zero_style = {"color": "black", "linestyle": "--", "linewidth": 1}
    if zero_shown:
        ax.axvline(0.0, zorder=1, **zero_style)
        zero_label = "no difference"
    else:
        zero_label = f"no difference\n(0, off to the {'left' if x0 > 0 else 'right'})"

    ax.set_yticks(range(m))
    ax.set_yticklabels(labels)
    ax.tick_params(axis="y", length=0)
    ax.grid(axis="y", color="0.92", linewidth=0.8, zorder=0)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)

    marginal = f"{percent(result.confidence_level)} marginal"
    if not corrected:
        what = "no correction needed" if result.family_size == 1 else "no correction"
        title = f"{what}, {family}s"
    else:
        what = {"max-t": "max-t", "holm": "Holm", "bonferroni": "Bonferroni"}.get(
            result.correction, result.correction)
        title = f"{what}, {family} intervals"
    ax.set_title(f"b − a ({result.metric}): {title}")
    lower = "; lower is better" if result.lower_is_better else ""
    ax.set_xlabel(f"b − a ({result.metric}{lower}), {result.n_resamples:,} resamples")

    if values:
        d = family_decimals(result)
        for y, c in enumerate(comparisons):
            low, high = c.confidence_interval
            text = (f"{_signed(c.estimate, d)} [{_signed(low, d)}, {_signed(high, d)}]"
                    + (" *" if c.significant else ""))
            ax.annotate(text, (1, y), xycoords=ax.get_yaxis_transform(),
                        xytext=(6, 0), textcoords="offset points", va="center",
                        ha="left", fontsize="small", family="monospace",
                        color=_BLUE if c.significant else "0.3", annotation_clip=False)

    handles = [
        Line2D([], [], color="0.3", linewidth=1.2, marker="|", markersize=8,
               label=f"{family} interval" if corrected else family),
        Line2D([], [], color="0.3", linewidth=5, alpha=0.45, label=f"{marginal} interval"),
        Line2D([], [], linestyle="none", marker="o", color=_BLUE,
               label="significant after correction"),
        Line2D([], [], linestyle="none", marker="o", markerfacecolor="white",
               markeredgecolor=_GREY, label="not significant"),
        Line2D([], [], label=zero_label, **zero_style),
    ]
    if not corrected:
        del handles[1]
        handles[1].set_label("significant")
    if own_figure:  # below the axes, where no row or label can be
        ax.figure.legend(handles=handles, loc="outside lower center", ncols=3,
                         fontsize="small", frameon=False)
    else:  # the caller's layout may leave no room outside: inside, above the first row
        legend = ax.legend(handles=handles, fontsize="small", framealpha=0.85,
                           loc="upper right", ncols=2)
        _make_headroom(ax, legend, m)
    return ax


def _make_headroom(ax, legend, rows: int) -> None:
    """Extend the y axis above the first row so that ``legend`` (in the upper corner)
    covers no row; left alone when the axes are too short for that."""
    renderer = ax.figure.canvas.get_renderer()
    needed = legend.get_window_extent(renderer).height + 8.0  # (pixels, with a margin)
    height = ax.get_window_extent(renderer).height
    if needed < 0.75 * height:
        extra = needed * rows / (height - needed)
        ax.set_ylim(rows - 0.5, -0.5 - extra)


def _signed(x: float, d: int) -> str:
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return f"{x:+.{d}f}" if math.isfinite(x) else "n/a"

"""Pictures: the bootstrap distribution of B - A with its interval (:func:`plot`), a
family's forest plot (:func:`plot_family`), and an all-pairs family as a matrix
(:func:`plot_pairs`, which :func:`plot_family` draws for large all-pairs families)."""

from __future__ import annotations

import math

import numpy as np

from pairboot.errors import InputError
from pairboot.report.figures import (
    disagrees,
    histogram_bins,
    margin_marks,
    mark_meanings,
    procedure_words,
    shown_names,
)
from pairboot.report.numbers import decimals, percent
from pairboot.report.parts import interval_text
from pairboot.result import CompareResult, FamilyResult

_NAME_WIDTH = 48
"""Longer system names lose the parts they all share, then their middle."""
_TITLE_WIDTH = 56
"""A longer title puts each system's name on a line of its own."""
_ZERO_STRETCH = 2.0
"""0 is drawn when reaching it at most multiplies the histogram's x range by this."""
_ROW = 12.0
"""Height in points of one row of value labels above the axes."""
_BLUE = "tab:blue"
_MARGIN = "tab:orange"
"""The margin's boundaries: dotted, in a colour of their own."""
_TICK_GAP = 0.5
"""Tick labels closer than this many font sizes are too close: the ticks are thinned."""


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
        shade = to_rgba(_BLUE, 0.15)
        span = ax.axvspan(max(low, x0), min(high, x1), facecolor=shade, edgecolor=_BLUE,
                          label=interval)
        if math.isinf(low) or math.isinf(high):
            ax.set_xlim(x0, x1)  # (the open end stops at the histogram's range)
    else:
        span = Patch(facecolor="none", edgecolor="none", label=f"{interval}: undefined")
    estimate = ax.axvline(result.estimate, color=_BLUE, linewidth=2, label="estimate")
    zero_style = {"color": "black", "linestyle": "--", "linewidth": 1}
    if max(x1, 0.0) - min(x0, 0.0) <= _ZERO_STRETCH * (x1 - x0):
        zero = ax.axvline(0.0, label="no difference", **zero_style)
    else:
        side = "left" if x0 > 0 else "right"
        zero = Line2D([], [], label=f"no difference\n(0, off to the {side})", **zero_style)

    handles = [span, estimate, zero]
    for k, at in enumerate(marks):
        line = ax.axvline(at, color=_MARGIN, linestyle=":", linewidth=1.6,
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

    if (name_a, name_b) == ("A", "B"):
        title, left_out = f"B − A ({result.metric})", None
    else:
        shown, left_out = _shown([name_a, name_b], _NAME_WIDTH)
        title = _title(result.metric, shown[str(name_a)], shown[str(name_b)])
    ax.set_title(title, pad=2 * _ROW + 6)
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


def _shown(names, width: int) -> tuple[dict[str, str], str | None]:
    """:func:`~pairboot.report.figures.shown_names` with ``$`` escaped (matplotlib reads
    ``$...$`` as mathematics)."""
    shown, left_out = shown_names(names, width)
    return ({name: text.replace("$", r"\$") for name, text in shown.items()},
            left_out and left_out.replace("$", r"\$"))


def _title(metric: str, a: str, b: str) -> str:
    """The title, as "B − A: new vs base (mean)", or one line per system when that is long."""
    title = f"B − A: {b} vs {a} ({metric})"
    return title if len(title) <= _TITLE_WIDTH else f"B − A ({metric})\nB: {b}\nA: {a}"


def space_ticks(axis) -> None:
    """Give ``axis`` (an x axis) matplotlib's ticks, fewer whenever their labels would
    come closer than half their font size.

    The labels of a small difference are long (``−0.00025``) and matplotlib's count of
    ticks does not allow for that.  The ticks are chosen again at every draw, from the
    axis' length then and the labels' widths in their font, so a figure resized later
    keeps them apart too.
    """
    from matplotlib.textpath import text_to_path
    from matplotlib.ticker import AutoLocator, MaxNLocator

    class ApartLocator(AutoLocator):
        def tick_values(self, vmin, vmax):
            ticks = super().tick_values(vmin, vmax)
            low, high = min(vmin, vmax), max(vmin, vmax)
            if self.axis is None or not high > low:
                return ticks
            length = self.axis.axes.bbox.width * 72 / self.axis.axes.figure.dpi
            font = self.axis.get_major_ticks(1)[0].label1.get_fontproperties()
            gap = _TICK_GAP * font.get_size_in_points()
            # fewer, then steps of 1, 2 and 5 (not 2.5): the shortest labels for the span
            fewer = (MaxNLocator(nbins=n, steps=[1, 2, 5, 10]).tick_values(vmin, vmax)
                     for n in range(len(ticks) - 2, 0, -1))
            for candidate in (ticks, *fewer):
                slack = 1e-9 * (high - low)
                shown = candidate[(candidate >= low - slack) & (candidate <= high + slack)]
                if len(shown) < 2:
                    return candidate
                labels = self.axis.get_major_formatter().format_ticks(list(shown))
                widest = max(text_to_path.get_text_width_height_descent(t, font, False)[0]
                             for t in labels)
                if widest + gap <= length * (shown[1] - shown[0]) / (high - low):
                    return candidate
            return candidate

    axis.set_major_locator(ApartLocator())


_FOREST_NAME_WIDTH = 36
"""In a forest plot's row labels, longer system names are shortened."""
_FOREST_ROW = 0.32
"""Height in inches of one comparison's row in a forest plot's own figure."""
_LABEL_INCH = 0.08
"""Width in inches of one character of a row label (the figure widens for long ones)."""
_GREY = "0.45"
_MATRIX_ABOVE = 15
"""All-pairs families of more comparisons (7 systems or more) are drawn as a matrix."""
_KINDS = ("auto", "forest", "matrix")


def plot_family(result: FamilyResult, ax=None, *, values: bool | None = None,
                kind: str = "auto"):
    """A forest plot of a family of comparisons (one row per comparison ``b − a``), or
    for a large all-pairs family the matrix of :func:`plot_pairs`.

    Each row shows the family's interval (outer, thin: simultaneous under max-t,
    Bonferroni's under holm and bonferroni), the comparison's marginal interval (inner,
    thick), and the estimate as a dot, filled when the comparison is significant after
    the correction (its adjusted p below ``1 - confidence_level``).  A diamond instead of
    the dot marks a row whose adjusted p and family interval disagree: the stepdown (or
    Holm) rejects while the interval includes 0, or the other way round; the legend says
    which.  A dashed line marks 0.  The axis stretches to 0 when that at most doubles its
    range; otherwise the legend says on which side 0 lies.  An infinite endpoint (too few
    resamples for the level) is drawn to the edge of the axes with an arrow head; an
    undefined (NaN) one is not drawn.  Long system names lose the prefix and suffix they
    all share (the x label says what was left out), then their middle.

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
        reports' decimals (the matrix: each cell's estimate).  By default only in a figure
        of its own (in a caller's layout there may be no room for them), and in a matrix
        only when its cells are large enough.
    kind : {"auto", "forest", "matrix"}, default "auto"
        "auto" draws the matrix for an all-pairs family of more than 15 comparisons
        (7 systems or more), whose forest would be too tall to read, and the forest
        otherwise.

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
    'difference (mean): max-t, 95% simultaneous intervals'
    """
    if kind not in _KINDS:
        raise InputError(f"`kind` must be one of {', '.join(map(repr, _KINDS))}, got "
                         f"{kind!r}", param="kind")
    from pairboot.report.family import family_decimals, family_kind, interval_name

    comparisons = result.comparisons
    m = len(comparisons)
    if kind == "matrix" or (kind == "auto" and m > _MATRIX_ABOVE
                            and family_kind(result) == "all pairs"):
        return plot_pairs(result, ax, values=values)
    try:
        import matplotlib.pyplot as plt
        from matplotlib.lines import Line2D
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError('plotting needs matplotlib: pip install "pairboot[plot]"') from None

    family = interval_name(result)
    corrected = not family.endswith(" interval")  # else the marginal interval is the family's
    own_figure = ax is None
    if values is None:
        values = own_figure
    names = [*result.systems, *(name for c in comparisons for name in (c.a, c.b))]
    shown, left_out = _shown(names, _FOREST_NAME_WIDTH)
    labels = [f"{shown[c.b]} − {shown[c.a]}" for c in comparisons]
    if own_figure:  # wider for long labels, so that the axes keep their width
        longest = max(len(label) for label in labels)
        width = 7.2 + _LABEL_INCH * max(0, longest - 20)
        _, ax = plt.subplots(figsize=(width, 1.9 + _FOREST_ROW * m), layout="constrained")

    # the x range: every finite endpoint and estimate, then 0 when it is near enough
    finite = [v for c in comparisons
              for v in (c.estimate, *c.confidence_interval, *c.marginal_interval)
              if math.isfinite(v)]
    rows_marks = [margin_marks(result, c.margin)[0] if c.margin is not None else ()
                  for c in comparisons]
    finite += [v for at in rows_marks for v in at]
    x0, x1 = (min(finite), max(finite)) if finite else (-1.0, 1.0)
    if x1 - x0 <= 0:
        x0, x1 = x0 - max(abs(x0), 1.0) * 0.05, x1 + max(abs(x1), 1.0) * 0.05
    zero_shown = max(x1, 0.0) - min(x0, 0.0) <= _ZERO_STRETCH * (x1 - x0)
    if zero_shown:
        x0, x1 = min(x0, 0.0), max(x1, 0.0)
    pad = 0.06 * (x1 - x0)
    x0, x1 = x0 - pad, x1 + pad
    side = getattr(result, "alternative", "two-sided")  # (room for the open ends' arrows)
    if side == "greater":
        x1 += 3 * pad
    elif side == "less":
        x0 -= 3 * pad
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
        if corrected and not (math.isnan(low) or math.isnan(high)) and (
                math.isfinite(low) or math.isfinite(high)):  # (one-sided: to the edge)
            ax.plot([max(low, x0), min(high, x1)], [y, y], color=color, linewidth=5, alpha=0.45,
                    solid_capstyle="butt", zorder=3)
        if math.isfinite(c.estimate):
            ax.plot([c.estimate], [y], marker="D" if disagrees(c, result) else "o",
                    markersize=6, zorder=4, markeredgecolor=color, markeredgewidth=1.3,
                    markerfacecolor=color if c.significant else "white")

    for y, at in enumerate(rows_marks):  # each row's margin, across its own row
        for value in at:
            ax.plot([value, value], [y - 0.4, y + 0.4], color=_MARGIN, linestyle=":",
                    linewidth=1.6, zorder=1)
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

    marginal = f"{percent(result.interval_level)} marginal"
    ax.set_title(f"difference ({result.metric}): {procedure_words(result)}")
    lower = "; lower is better" if result.lower_is_better else ""
    ax.set_xlabel(f"difference ({result.metric}{lower}), {result.n_resamples:,} resamples"
                  + (f"\n{left_out}" if left_out else ""))

    if values:
        d = family_decimals(result)
        for y, c in enumerate(comparisons):
            low, high = c.confidence_interval
            text = (f"{_signed(c.estimate, d)} {interval_text((low, high), d, signed=True)}"
                    + (" *" if c.significant else "") + (" ◆" if disagrees(c, result) else ""))
            ax.annotate(text, (1, y), xycoords=ax.get_yaxis_transform(),
                        xytext=(6, 0), textcoords="offset points", va="center",
                        ha="left", fontsize="small", family="monospace",
                        color=_BLUE if c.significant else "0.3", annotation_clip=False)

    meanings = [(marker, filled, label.replace(", though", ",\nthough"))
                for marker, filled, label in mark_meanings(result)]
    meanings.insert(1, ("o", False, "not significant"))
    mark = {"linestyle": "none", "markersize": 6, "markeredgewidth": 1.3}
    handles = [
        Line2D([], [], color="0.3", linewidth=1.2, marker="|", markersize=8,
               label=f"{family} interval" if corrected else family),
        Line2D([], [], color="0.3", linewidth=5, alpha=0.45, label=f"{marginal} interval"),
        *(Line2D([], [], marker=marker, label=label, markeredgecolor=_BLUE if filled
                 else _GREY, markerfacecolor=_BLUE if filled else "white", **mark)
          for marker, filled, label in meanings),
        Line2D([], [], label=zero_label, **zero_style),
        *([Line2D([], [], color=_MARGIN, linestyle=":", linewidth=1.6,
                  label=margin_marks(result, next(c.margin for c in comparisons
                                                  if c.margin is not None))[1]
                  if result.margin is not None else "each comparison's margin")]
          if any(rows_marks) else []),
    ]
    if not corrected:
        del handles[1]
    if own_figure:  # below the axes, where no row or label can be
        ax.figure.legend(handles=handles, loc="outside lower center",
                         ncols=3 if len(handles) <= 5 else 2, fontsize="small",
                         frameon=False)
    else:  # the caller's layout may leave no room outside: inside, above the first row
        legend = ax.legend(handles=handles, fontsize="small", framealpha=0.85,
                           loc="upper right", ncols=2)
        _make_headroom(ax, legend, m)
    space_ticks(ax.xaxis)
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


_CELL = 0.32
"""Side in inches of a matrix cell in :func:`plot_pairs`' own figure (larger when few)."""
_CELL_VALUES = 0.42
"""Cells at least this wide (inches) have room for their estimate."""
_CHAR_INCH = 0.065
"""Width in inches of one character of a matrix's small labels."""


def plot_pairs(result: FamilyResult, ax=None, *, values: bool | None = None):
    """A family of pairs as a matrix: the cell in row r and column c shows r − c.

    The systems are ordered by their score, the best first (the lowest when
    ``result.lower_is_better``), down the rows and across the columns alike, each row
    labelled with its score.  A cell's colour is its estimate, on one scale centred at 0
    (blue: the row's system is the better, red: the column's); a dot marks a significant
    pair (adjusted p below ``1 - confidence_level``), a diamond one whose adjusted p and
    family interval disagree (filled: significant, though the interval includes 0), as
    the legend says.  Pairs the family does not compare are grey.  The figure grows
    with the number of systems, not of pairs: 19 systems (171 pairs) fit on a page.

    Needs matplotlib (``pip install "pairboot[plot]"``).

    Parameters
    ----------
    result : FamilyResult
    ax : matplotlib.axes.Axes, optional
        Draw into these axes (the figure's layout is left alone; the marks' meanings go
        in the x label, where they cover no cell, the colour bar beside the axes).  By
        default a new figure with the constrained layout, sized to the number of systems.
    values : bool, optional
        Write each cell's estimate in it, with the reports' decimals.  By default when
        the cells of the figure's own layout are large enough (about 12 systems or fewer).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, pairboot
    >>> from pairboot.plot import plot_pairs
    >>> rng = np.random.default_rng(0)
    >>> base = rng.random(200)
    >>> scores = {"base": base, "v1": base + 0.1 + rng.normal(0, 0.1, 200),
    ...           "v2": base + rng.normal(0.0, 0.1, 200)}
    >>> ax = plot_pairs(pairboot.compare_many(scores, seed=1, n_resamples=2000))
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['v1', 'v2', 'base']
    """
    try:
        import matplotlib.pyplot as plt
        from matplotlib.lines import Line2D
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError('plotting needs matplotlib: pip install "pairboot[plot]"') from None
    from pairboot.report.family import family_decimals

    sign = -1.0 if result.lower_is_better else 1.0
    names = list(dict.fromkeys([*result.systems, *(n for c in result.comparisons
                                                   for n in (c.a, c.b))]))

    def rank_key(name):
        score = result.systems.get(name)
        value = float(score.estimate) if score is not None else math.nan
        return (0, -sign * value) if math.isfinite(value) else (1, 0.0)

    order = sorted(names, key=rank_key)  # (stable: ties keep the family's order)
    k = len(order)
    at = {name: i for i, name in enumerate(order)}
    estimate = np.full((k, k), np.nan)
    cell = {}  # (row, column) -> the comparison, as row − column
    for c in result.comparisons:
        i, j = at[c.b], at[c.a]
        estimate[i, j], estimate[j, i] = c.estimate, -c.estimate
        cell[i, j] = cell[j, i] = c

    shown, left_out = _shown(order, _NAME_WIDTH)
    d = family_decimals(result)  # (the reports' decimals, for the scores too)
    rows = []
    for name in order:
        score = result.systems.get(name)
        rows.append(shown[name] if score is None
                    else f"{shown[name]} ({float(score.estimate):.{d}f})")
    own_figure = ax is None
    side = min(0.6, max(_CELL, 6.0 / k)) if k else _CELL
    if values is None:
        values = own_figure and side >= _CELL_VALUES
    if own_figure:
        row_label = _CHAR_INCH * max(map(len, rows), default=0)
        column_label = _CHAR_INCH * max((len(shown[n]) for n in order), default=0)
        width = 0.6 + row_label + k * side + 1.3
        height = 1.6 + column_label + k * side + (0.25 if left_out else 0.0)
        figure, ax = plt.subplots(figsize=(max(width, 5.0), height), layout="constrained")
        # (a margin: the layout places the title before it rises above the column labels)
        figure.get_layout_engine().set(h_pad=0.12)

    finite = estimate[np.isfinite(estimate)]
    top = float(np.max(np.abs(finite))) if finite.size else 1.0
    top = top * 1.15 if top > 0 else 1.0  # (the darkest colours would hide the marks)
    colours = plt.get_cmap("RdBu" if sign > 0 else "RdBu_r").with_extremes(bad="0.9")
    image = ax.imshow(np.ma.masked_invalid(estimate), cmap=colours, vmin=-top, vmax=top,
                      aspect="equal", interpolation="nearest")

    small = "small" if k <= 12 else "x-small"
    marks: dict[tuple[str, bool], list[tuple[float, float]]] = {}  # one line per kind
    for (i, j), c in cell.items():
        offset = 0.0
        if values and math.isfinite(estimate[i, j]):
            strong = abs(estimate[i, j]) > 0.6 * top
            ax.text(j, i + 0.12, f"{estimate[i, j]:+.{d}f}", ha="center", va="center",
                    fontsize="x-small", color="white" if strong else "black")
            offset = -0.22
        if c.significant or disagrees(c, result):
            kind = ("D" if disagrees(c, result) else "o", c.significant)
            marks.setdefault(kind, []).append((j, i + offset))
    for (marker, significant), points in sorted(marks.items()):
        xs, ys = zip(*points)
        ax.plot(xs, ys, linestyle="none", marker=marker, markersize=4 if values else 5,
                markeredgewidth=1.0, markeredgecolor="black",
                markerfacecolor="black" if significant else "white")

    ax.set_xticks(range(k))
    ax.set_xticklabels([shown[n] for n in order], rotation=90, fontsize=small)
    ax.set_yticks(range(k))
    ax.set_yticklabels(rows, fontsize=small)
    ax.xaxis.tick_top()
    ax.tick_params(length=0)
    ax.set_xticks(np.arange(k + 1) - 0.5, minor=True)
    ax.set_yticks(np.arange(k + 1) - 0.5, minor=True)
    ax.grid(which="minor", color="white", linewidth=1.0)
    ax.tick_params(which="minor", length=0)
    for spine in ax.spines.values():
        spine.set_visible(False)

    ax.set_title(f"row − column ({result.metric}): {procedure_words(result)}",
                 fontsize="medium")
    lower = "; lower is better" if result.lower_is_better else ""
    bar = ax.figure.colorbar(image, ax=ax, shrink=min(1.0, 4.0 / max(k * side, 1e-9)),
                             aspect=15, pad=0.02)
    bar.set_label(f"row − column ({result.metric}{lower})\nblue: the row's system is better",
                  fontsize="small")
    bar.ax.tick_params(labelsize="x-small")

    meanings = mark_meanings(result)
    lines = [f"{result.n_resamples:,} resamples; systems by their score, the best first"]
    lines += [left_out] if left_out else []
    if own_figure:
        mark = {"linestyle": "none", "markersize": 5, "markeredgewidth": 1.0,
                "markeredgecolor": "black"}
        handles = [Line2D([], [], marker=marker, label=label, **mark,
                          markerfacecolor="black" if filled else "white")
                   for marker, filled, label in meanings]
        handles.append(Line2D([], [], linestyle="none", label="no mark: not significant"))
        ax.figure.legend(handles=handles, loc="outside lower center", ncols=1,
                         fontsize="small", frameon=False)
    else:  # a legend on the cells would hide some: the marks' meanings under the axes
        glyph = {("o", True): "●", ("D", True): "◆", ("D", False): "◇"}
        lines += [f"{glyph[marker, filled]} {label}" for marker, filled, label in meanings]
        lines.append("no mark: not significant")
    ax.set_xlabel("\n".join(lines), fontsize="small")
    ax.xaxis.set_label_position("bottom")
    return ax

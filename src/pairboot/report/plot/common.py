"""What the pictures share: colours, widths, the systems' names as drawn, the title,
ticks spaced by their labels, room above a forest's rows."""

from __future__ import annotations

import math

from pairboot.report.figures import (
    shown_names,
)

NAME_WIDTH = 48
"""Longer system names lose the parts they all share, then their middle."""
TITLE_WIDTH = 56
"""A longer title puts each system's name on a line of its own."""
ZERO_STRETCH = 2.0
"""0 is drawn when reaching it at most multiplies the histogram's x range by this."""
ROW = 12.0
"""Height in points of one row of value labels above the axes."""
BLUE = "tab:blue"
MARGIN = "tab:orange"
"""The margin's boundaries: dotted, in a colour of their own."""
TICK_GAP = 0.5
"""Tick labels closer than this many font sizes are too close: the ticks are thinned."""


GREY = "0.45"
"""Grey for what is not significant."""


def escaped_names(names, width: int) -> tuple[dict[str, str], str | None]:
    """:func:`~pairboot.report.figures.shown_names` with ``$`` escaped (matplotlib reads
    ``$...$`` as mathematics)."""
    shown, left_out = shown_names(names, width)
    return ({name: text.replace("$", r"\$") for name, text in shown.items()},
            left_out and left_out.replace("$", r"\$"))


def pair_title(metric: str, a: str, b: str) -> str:
    """The title, as "B − A: new vs base (mean)", or one line per system when that is long."""
    title = f"B − A: {b} vs {a} ({metric})"
    return title if len(title) <= TITLE_WIDTH else f"B − A ({metric})\nB: {b}\nA: {a}"


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
            gap = TICK_GAP * font.get_size_in_points()
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


def make_headroom(ax, legend, rows: int) -> None:
    """Extend the y axis above the first row so that ``legend`` (in the upper corner)
    covers no row; left alone when the axes are too short for that."""
    renderer = ax.figure.canvas.get_renderer()
    needed = legend.get_window_extent(renderer).height + 8.0  # (pixels, with a margin)
    height = ax.get_window_extent(renderer).height
    if needed < 0.75 * height:
        extra = needed * rows / (height - needed)
        ax.set_ylim(rows - 0.5, -0.5 - extra)


def signed_text(x: float, d: int) -> str:
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return f"{x:+.{d}f}" if math.isfinite(x) else "n/a"

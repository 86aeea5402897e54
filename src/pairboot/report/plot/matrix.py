"""An all-pairs family as a matrix: row minus column (:func:`plot_pairs`)."""

from __future__ import annotations

import math

import numpy as np

from pairboot.report.figures import (
    disagrees,
    mark_meanings,
    procedure_words,
)
from pairboot.report.plot.common import (
    NAME_WIDTH,
    escaped_names,
)
from pairboot.results.family import FamilyResult

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

    shown, left_out = escaped_names(order, NAME_WIDTH)
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

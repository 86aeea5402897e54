"""A family's forest plot (:func:`plot_family`), or its matrix for a large all-pairs
family."""

from __future__ import annotations

import math

from pairboot.errors import InputError
from pairboot.report.figures import (
    disagrees,
    margin_marks,
    mark_meanings,
    procedure_words,
)
from pairboot.report.numbers import percent
from pairboot.report.parts import interval_text
from pairboot.report.plot.common import (
    BLUE,
    GREY,
    MARGIN,
    ZERO_STRETCH,
    escaped_names,
    make_headroom,
    signed_text,
    space_ticks,
)
from pairboot.report.plot.matrix import plot_pairs
from pairboot.results.family import FamilyResult

_FOREST_NAME_WIDTH = 36
"""In a forest plot's row labels, longer system names are shortened."""
_FOREST_ROW = 0.32
"""Height in inches of one comparison's row in a forest plot's own figure."""
_LABEL_INCH = 0.08
"""Width in inches of one character of a row label (the figure widens for long ones)."""
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
    shown, left_out = escaped_names(names, _FOREST_NAME_WIDTH)
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
    zero_shown = max(x1, 0.0) - min(x0, 0.0) <= ZERO_STRETCH * (x1 - x0)
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
        color = BLUE if c.significant else GREY
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
            ax.plot([value, value], [y - 0.4, y + 0.4], color=MARGIN, linestyle=":",
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
            text = (f"{signed_text(c.estimate, d)} {interval_text((low, high), d, signed=True)}"
                    + (" *" if c.significant else "") + (" ◆" if disagrees(c, result) else ""))
            ax.annotate(text, (1, y), xycoords=ax.get_yaxis_transform(),
                        xytext=(6, 0), textcoords="offset points", va="center",
                        ha="left", fontsize="small", family="monospace",
                        color=BLUE if c.significant else "0.3", annotation_clip=False)

    meanings = [(marker, filled, label.replace(", though", ",\nthough"))
                for marker, filled, label in mark_meanings(result)]
    meanings.insert(1, ("o", False, "not significant"))
    mark = {"linestyle": "none", "markersize": 6, "markeredgewidth": 1.3}
    handles = [
        Line2D([], [], color="0.3", linewidth=1.2, marker="|", markersize=8,
               label=f"{family} interval" if corrected else family),
        Line2D([], [], color="0.3", linewidth=5, alpha=0.45, label=f"{marginal} interval"),
        *(Line2D([], [], marker=marker, label=label, markeredgecolor=BLUE if filled
                 else GREY, markerfacecolor=BLUE if filled else "white", **mark)
          for marker, filled, label in meanings),
        Line2D([], [], label=zero_label, **zero_style),
        *([Line2D([], [], color=MARGIN, linestyle=":", linewidth=1.6,
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
        make_headroom(ax, legend, m)
    space_ticks(ax.xaxis)
    return ax

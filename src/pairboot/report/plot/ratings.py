"""Ratings of systems judged against each other (:func:`plot_ratings`): each system's
Elo-scale rating with its interval, best at the top, and its rank set beside it."""

from __future__ import annotations

from pairboot.report.plot.common import BLUE, GREY, escaped_names
from pairboot.results.preferences import PreferenceResult


def plot_ratings(result: PreferenceResult, ax=None, *, top: int | None = None):
    """A row per system, best at the top: its rating (a dot), its interval (a bar) and
    its simultaneous rank set written at the right; the anchor's rating dashed.

    Needs matplotlib (``pip install "pairboot[plot]"``).

    Parameters
    ----------
    result : PreferenceResult
        From :func:`pairboot.compare_preferences`.
    ax : matplotlib.axes.Axes, optional
        Draw into this.  By default a new figure.
    top : int, optional
        Only the best ``top`` systems.

    Returns
    -------
    matplotlib.axes.Axes
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError('plotting needs matplotlib: pip install "pairboot[plot]"') from None
    systems = result.systems[:top] if top else result.systems
    if ax is None:
        _, ax = plt.subplots(figsize=(7.5, 1.2 + 0.28 * len(systems)), layout="constrained")
    shown, _ = escaped_names([s.name for s in systems], 40)
    ys = list(range(len(systems)))[::-1]
    for y, s in zip(ys, systems):
        ax.plot([s.interval.low, s.interval.high], [y, y], color=BLUE, linewidth=2,
                solid_capstyle="butt")
        ax.plot([s.rating], [y], "o", color=BLUE, markersize=4)
        lo, hi = s.rank_interval
        ax.annotate(f"{lo}" if lo == hi else f"{lo}-{hi}", (1.0, y),
                    xycoords=("axes fraction", "data"), xytext=(4, 0),
                    textcoords="offset points", va="center", fontsize="x-small")
    ax.axvline(result.anchor_rating, color=GREY, linestyle="--", linewidth=1)
    ax.set_yticks(ys, [shown.get(s.name, s.name) for s in systems], fontsize="small")
    ax.set_xlabel(f"{'Davidson' if result.model == 'davidson' else 'Bradley-Terry'} "
                  "rating (Elo scale)")
    level = f"{100 * result.confidence_level:g}%"
    ax.set_title(f"ratings with {level} intervals; ranks at the right (simultaneous)",
                 fontsize="medium")
    ax.grid(True, axis="x", color="0.9", linewidth=0.8)
    return ax

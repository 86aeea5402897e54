"""An aggregate over tasks and its ranks (:func:`plot_ranks`): every system's aggregate
with its interval, and its rank interval with the tie groups shaded."""

from __future__ import annotations

import math

from pairboot.report.plot.common import BLUE, GREY, escaped_names
from pairboot.results.tasks import TasksResult


def plot_ranks(result: TasksResult, ax=None):
    """Two panels, a row per system, best first: left, the aggregate with its
    interval; right, the rank interval as a bar with the observed rank marked, each
    tie group on a shaded band of its own, and the share of resamples where the system
    is the best beside its name.

    Needs matplotlib (``pip install "pairboot[plot]"``).

    Parameters
    ----------
    result : TasksResult
        From :func:`pairboot.compare_tasks`.
    ax : sequence of two matplotlib.axes.Axes, optional
        Draw into these.  By default a new figure.

    Returns
    -------
    (matplotlib.axes.Axes, matplotlib.axes.Axes)

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np, pairboot
    >>> from pairboot.plot import plot_ranks
    >>> rng = np.random.default_rng(0)
    >>> tasks = np.repeat(["t1", "t2", "t3"], 40)
    >>> scores = {n: rng.random(120) + k / 10 for k, n in enumerate("abc")}
    >>> left, right = plot_ranks(pairboot.compare_tasks(scores, tasks=tasks, seed=1,
    ...                                                 n_resamples=499))
    >>> right.get_xlabel()
    'rank (1 is the best)'
    >>> import matplotlib.pyplot as plt; plt.close(left.figure)
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError('plotting needs matplotlib: pip install "pairboot[plot]"') from None
    order = sorted(result.names, key=lambda n: (result.rank[n], result.rank_intervals[n], n))
    m = len(order)
    if ax is None:
        _, axes = plt.subplots(1, 2, figsize=(10.4, 1.2 + 0.36 * m), sharey=True,
                               layout="constrained")
        left, right = axes
    else:
        left, right = ax
    shown, _ = escaped_names(order, 36)
    rows = list(range(m))
    group_of = {n: k for k, g in enumerate(result.tie_groups) for n in g}
    for a in (left, right):  # (every other tie group shaded, across both panels)
        for k, name in enumerate(order):
            if group_of[name] % 2 == 1:
                a.axhspan(k - 0.5, k + 0.5, color="0.93", linewidth=0, zorder=0)
    level = f"{100 * result.confidence_level:g}%"
    for k, name in enumerate(order):
        s = result.systems[name]
        low, high = s.confidence_interval
        left.plot([low, high], [k, k], color=BLUE, linewidth=2, solid_capstyle="butt")
        left.plot([s.estimate], [k], "o", color=BLUE)
        r_low, r_high = result.rank_intervals[name]
        right.plot([r_low - 0.3, r_high + 0.3], [k, k], color=BLUE if r_low == 1 else GREY,
                   linewidth=6, alpha=0.5, solid_capstyle="butt")
        right.plot([result.rank[name]], [k], "o", color="black", markersize=4)
    left.set_yticks(rows, [f"{shown.get(n, n)}  (P best {result.p_best[n]:.2f})"
                           for n in order])
    left.invert_yaxis()
    left.set_xlabel(f"{result.aggregate} ({level} interval, resampling {result.resample})")
    right.set_xlabel("rank (1 is the best)")
    right.set_xlim(0.4, m + 0.6)
    right.set_xticks(range(1, m + 1, max(1, math.ceil(m / 10))))
    right.set_title(f"rank intervals ({level}, simultaneous)", fontsize="medium")
    left.set_title(f"{result.aggregate} over {len(result.tasks)} tasks", fontsize="medium")
    for a in (left, right):
        a.grid(True, axis="x", color="0.9", linewidth=0.8)
    return left, right

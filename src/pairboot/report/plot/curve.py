"""A pass^k / pass@k curve (:func:`plot_curve`): each system's curve over k with its
pointwise band, and B - A with its pointwise and simultaneous bands."""

from __future__ import annotations

from pairboot.report.plot.common import BLUE, GREY, MARGIN, escaped_names
from pairboot.results.family import TrialsCurve


def plot_curve(result: TrialsCurve, ax=None):
    """Two panels: left, each system's pass^k (pass@k) over k with its pointwise
    interval as a band; right, ``B - A`` with its pointwise band (dark) inside its
    simultaneous one (light), and 0 marked.

    Needs matplotlib (``pip install "pairboot[plot]"``).

    Parameters
    ----------
    result : TrialsCurve
        From :func:`pairboot.trials_curve`.
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
    >>> from pairboot.plot import plot_curve
    >>> rng = np.random.default_rng(0)
    >>> a, b = (rng.random((60, 3)) < 0.5) * 1.0, (rng.random((60, 3)) < 0.6) * 1.0
    >>> left, right = plot_curve(pairboot.trials_curve(a, b, seed=1, n_resamples=499))
    >>> right.get_xlabel()
    'k'
    >>> import matplotlib.pyplot as plt; plt.close(left.figure)
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError('plotting needs matplotlib: pip install "pairboot[plot]"') from None
    if ax is None:
        _, axes = plt.subplots(1, 2, figsize=(10.4, 4), layout="constrained")
        left, right = axes
    else:
        left, right = ax
    shown, _ = escaped_names(result.names, 30)
    na, nb = (shown.get(n, n) for n in result.names)
    ks = list(result.ks)
    level = f"{100 * result.confidence_level:g}%"
    for name, pick, colour in ((na, lambda p: p.a, BLUE), (nb, lambda p: p.b, MARGIN)):
        scores = [pick(p) for p in result.points]
        left.plot(ks, [s.estimate for s in scores], "o-", color=colour, label=name)
        left.fill_between(ks, [s.confidence_interval.low for s in scores],
                          [s.confidence_interval.high for s in scores], color=colour,
                          alpha=0.2, linewidth=0)
    left.set_ylim(0, 1.02)
    left.set_title(f"{result.kind} ({level} pointwise bands)", fontsize="medium")
    left.set_ylabel(result.kind)
    diff = [p.difference for p in result.points]
    right.fill_between(ks, [p.simultaneous.low for p in result.points],
                       [p.simultaneous.high for p in result.points], color=BLUE, alpha=0.15,
                       linewidth=0, label=f"simultaneous {level}")
    right.fill_between(ks, [p.interval.low for p in result.points],
                       [p.interval.high for p in result.points], color=BLUE, alpha=0.3,
                       linewidth=0, label=f"pointwise {level}")
    right.plot(ks, diff, "o-", color=BLUE, label=f"{nb} - {na}")
    right.axhline(0.0, color=GREY, linestyle="--", linewidth=1)
    right.set_title(f"{nb} - {na}", fontsize="medium")
    right.set_ylabel(f"difference in {result.kind}")
    for a in (left, right):
        a.set_xlabel("k")
        a.set_xticks(ks)
        a.grid(True, color="0.9", linewidth=0.8)
        a.legend(fontsize="small", framealpha=0.9)
    return left, right

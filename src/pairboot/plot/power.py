"""A planned comparison's power curve (:func:`plot_power`)."""

from __future__ import annotations

from pairboot.plot.common import BLUE, GREY
from pairboot.power_result import PowerResult
from pairboot.report.power import difference


def plot_power(res: PowerResult, ax=None):
    """The power of the planned test against the size (in ``res.unit``, at ``res.delta``)
    or, when no size was planned, against the true difference; the plan marked.

    Needs matplotlib (``pip install "pairboot[plot]"``).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pairboot
    >>> from pairboot.plot.power import plot_power
    >>> ax = plot_power(pairboot.power(sd=0.5, delta=0.1, power=0.8))
    >>> ax.get_ylabel()
    'power'
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError('plotting needs matplotlib: pip install "pairboot[plot]"') from None
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 3.4), layout="constrained")
    curve = res.curve()
    ax.plot(curve["values"], curve["power"], color=BLUE, linewidth=2)
    if curve["x"] == "delta":
        ax.set_xlabel(f"true difference B - A ({res.metric}), at {res.size:,} {res.unit}")
        at = res.delta
    else:
        ax.set_xlabel(f"{res.unit}, for B - A = {difference(res, res.delta)}")
        at = res.size
    if at is not None and res.power is not None:
        ax.axhline(res.power, color=GREY, linestyle=":", linewidth=1)
        ax.axvline(at, color=GREY, linestyle=":", linewidth=1)
        ax.plot([at], [res.power], "o", color=BLUE)
    ax.set_ylim(0, 1.02)
    ax.set_ylabel("power")
    ax.grid(alpha=0.3)
    return ax

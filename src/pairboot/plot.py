"""A picture of a comparison: the bootstrap distribution of B - A with its interval."""

from __future__ import annotations

from pairboot.result import CompareResult, percent


def plot(result: CompareResult, ax=None, *, bins: int = 60):
    """Histogram of ``result.bootstrap_distribution``, the interval, the estimate and 0.

    Needs matplotlib (``pip install "pairboot[plot]"``).  Returns the matplotlib Axes.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pairboot
    >>> from pairboot.plot import plot
    >>> res = pairboot.compare([0.1, 0.4, 0.35, 0.8] * 10, [0.2, 0.4, 0.4, 0.9] * 10, seed=0)
    >>> ax = plot(res)
    >>> ax.get_xlabel()
    'B - A (mean), 10000 resamples'
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError('plotting needs matplotlib: pip install "pairboot[plot]"') from None
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.5))
    low, high = result.confidence_interval
    ax.hist(result.bootstrap_distribution, bins=bins, color="0.75", edgecolor="0.6")
    level = percent(result.confidence_level)
    ax.axvspan(low, high, color="tab:blue", alpha=0.15, label=f"{level} {result.method} interval")
    ax.axvline(result.estimate, color="tab:blue", label=f"estimate {result.estimate:+.4g}")
    ax.axvline(0.0, color="black", linestyle="--", linewidth=1, label="no difference")
    ax.set_xlabel(f"B - A ({result.metric}), {result.n_resamples} resamples")
    ax.set_ylabel("resamples")
    ax.legend(frameon=False, fontsize="small")
    return ax

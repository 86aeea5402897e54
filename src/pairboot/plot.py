"""Pictures of a result (needs matplotlib: ``pip install "pairboot[plot]"``): the
bootstrap distribution of B - A with its interval (:func:`plot`), a family's forest plot
(:func:`plot_family`), an all-pairs family as a matrix (:func:`plot_pairs`), a planned
comparison's power curve (:func:`plot_power`), a pass^k / pass@k curve over k
(:func:`plot_curve`), an aggregate over tasks with its rank intervals (:func:`plot_ranks`),
ratings of systems judged against each other (:func:`plot_ratings`).

The public face of :mod:`pairboot.report.plot`, where the drawing lives beside the
reports whose HTML pages show the same pictures; matplotlib is imported only by the
functions that draw.
"""

from pairboot.report.plot import (
    plot,
    plot_curve,
    plot_family,
    plot_pairs,
    plot_power,
    plot_ranks,
    plot_ratings,
)

__all__ = ["plot", "plot_curve", "plot_family", "plot_pairs", "plot_power", "plot_ranks",
           "plot_ratings"]

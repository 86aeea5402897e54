"""Pictures: the bootstrap distribution of B - A with its interval (:func:`plot`), a
family's forest plot (:func:`plot_family`), an all-pairs family as a matrix
(:func:`plot_pairs`, which :func:`plot_family` draws for large all-pairs families), and a
planned comparison's power curve (:func:`plot_power`), and a pass^k / pass@k curve over k
(:func:`plot_curve`), an aggregate over tasks with its rank intervals
(:func:`plot_ranks`), and ratings of systems judged against each other
(:func:`plot_ratings`)."""

from pairboot.report.plot.curve import plot_curve
from pairboot.report.plot.forest import plot_family
from pairboot.report.plot.histogram import plot
from pairboot.report.plot.matrix import plot_pairs
from pairboot.report.plot.power import plot_power
from pairboot.report.plot.ranks import plot_ranks
from pairboot.report.plot.ratings import plot_ratings

__all__ = ["plot", "plot_curve", "plot_family", "plot_pairs", "plot_power", "plot_ranks",
           "plot_ratings"]

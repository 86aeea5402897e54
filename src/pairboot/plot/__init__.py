"""Pictures: the bootstrap distribution of B - A with its interval (:func:`plot`), a
family's forest plot (:func:`plot_family`), and an all-pairs family as a matrix
(:func:`plot_pairs`, which :func:`plot_family` draws for large all-pairs families)."""

from pairboot.plot.forest import plot_family
from pairboot.plot.histogram import plot
from pairboot.plot.matrix import plot_pairs

__all__ = ["plot", "plot_family", "plot_pairs"]

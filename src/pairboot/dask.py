"""The Poisson bootstrap on Dask DataFrames (the public face of
:mod:`pairboot.partitioned.dask`): :func:`compare`, :func:`compare_many` and
:func:`parts` of a ``dask.dataframe``, each partition's sums on the workers, the answer
of ``pairboot.compare(..., resampling="poisson")`` on the whole data.  Dask is imported
when a function is called."""

from pairboot.partitioned.dask import compare, compare_many, parts

__all__ = ["compare", "compare_many", "parts"]

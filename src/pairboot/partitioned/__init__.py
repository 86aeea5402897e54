"""Sums from parts of the data that are never in one place, finished through the same
pipeline: the parts API (:func:`part_from_arrays`, :func:`merge`, :func:`finish`,
:func:`finish_many`; :mod:`pairboot.partitioned.parts`) and files read in chunks or on
Dask (:func:`pairboot.compare_files`; :mod:`pairboot.partitioned.files`)."""

from pairboot.partitioned.checks import check_before_reading, check_family
from pairboot.partitioned.parts import (
    PoissonPart,
    finish,
    finish_many,
    merge,
    part_from_arrays,
)

__all__ = ["PoissonPart", "part_from_arrays", "merge", "finish", "finish_many",
           "check_before_reading", "check_family"]

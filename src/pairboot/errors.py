"""Exceptions and warnings: the stated policy for bad and degenerate data."""

from __future__ import annotations


class InputError(ValueError):
    """Bad input: the message names the argument, file, row, column or id at fault."""


class PairbootWarning(UserWarning):
    """Base class of pairboot's warnings."""


class SmallSampleWarning(PairbootWarning):
    """Too few items, groups or resamples for the interval to be more than rough."""


class DegenerateDataWarning(PairbootWarning, RuntimeWarning):
    """The data leave part of the answer undefined (constant differences, 0/0 metrics).

    BCa bounds are NaN when its bias correction or acceleration is undefined.
    """

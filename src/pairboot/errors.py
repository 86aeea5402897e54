"""Exceptions and warnings: the stated policy for bad and degenerate data.

Every message of the library (errors, warnings, the reading) writes an argument of the
API in backticks, as `` `name` `` or `` `name=value` `` (``value`` as Python writes it:
`` `group_weighting='groups'` ``).  :func:`spell` rewrites those tokens for another
audience: the command line maps them to its options with a table of names, never by
guessing at the words around them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping


class InputError(ValueError):
    """Bad input: the message names the argument, file, row, column or id at fault.

    ``param`` is the argument the error is about (``"groups"``, ``"confidence_level"``),
    or None for the content of a file, whose message names the file, row and column.
    """

    def __init__(self, message: str, *, param: str | None = None) -> None:
        super().__init__(message)
        self.param = param


class PairbootWarning(UserWarning):
    """Base class of pairboot's warnings."""


class SmallSampleWarning(PairbootWarning):
    """Too few items, groups or resamples for the interval to be more than rough."""


class DegenerateDataWarning(PairbootWarning, RuntimeWarning):
    """The data leave part of the answer undefined (constant differences, 0/0 metrics).

    BCa bounds are NaN when its bias correction or acceleration is undefined.
    """


ARGUMENT = re.compile(r"`([a-z_.]+)(?:=([^`]*))?`")
"""An argument in a message: `` `name` `` or `` `name=value` `` (or a result's field,
`` `result.strata` ``)."""

Spelling = Callable[[str | None], str]
"""How an audience writes an argument, given its value as written (or None)."""


def spell(text: str, names: Mapping[str, Spelling]) -> str:
    """``text`` with each argument token whose name ``names`` knows rewritten by it.

    >>> options = {"n_resamples": lambda v: "--resamples" + (f" {v}" if v else "")}
    >>> spell("increase `n_resamples` (now `n_resamples=100`)", options)
    'increase --resamples (now --resamples 100)'
    >>> spell("`seed` is unknown here", options)
    '`seed` is unknown here'
    """

    def one(match: re.Match) -> str:
        name, value = match[1], match[2]
        if name not in names:
            return match[0]
        if value is not None:
            value = value.strip("'\"")
        return names[name](value)

    return ARGUMENT.sub(one, text)

"""What float64 holds exactly: every integer up to 2**53, and no longer all of them beyond.

Scores are float64 from the reading on.  An integer score beyond 2**53 is rounded when it
becomes a float (9007199254740993 reads 9007199254740992), and the sums of the bootstrap
lose as much again, so that near 2**63 a true difference of -1 per item reads as none.
Such a value is refused rather than rounded silently: subtracting an offset (or
rescaling) brings it back to where every integer is exact.  The readers and the API use
the one rule here (:func:`integer_problem`, :func:`refuse_inexact_integers`).
"""

from __future__ import annotations

import re

import numpy as np

from pairboot.errors import InputError

__all__ = ["EXACT_INTEGERS", "integer_problem", "is_integer_text", "refuse_inexact_integers"]

EXACT_INTEGERS = 2**53
"""The largest magnitude up to which float64 holds every integer."""

_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")


def is_integer_text(text: str) -> bool:
    """Whether ``text`` (stripped) is written as an integer: digits, perhaps a sign."""
    return _INTEGER_TEXT.fullmatch(text) is not None


def integer_problem(value: int) -> str | None:
    """Why the integer ``value`` cannot be a score (None when float64 holds it and every
    integer around it exactly)."""
    if -EXACT_INTEGERS <= value <= EXACT_INTEGERS:
        return None
    fix = "subtract an offset or rescale the column"
    if value.bit_length() > 1024:  # (float() overflows)
        return (f"an integer of {value.bit_length():,} bits is too large for a number "
                f"(float64, the scores' type, holds every integer only up to 2**53): {fix}")
    subject = (f"{value} is an integer" if value.bit_length() <= 96 else
               f"an integer of {len(str(value))} digits is")
    reads = "" if int(float(value)) == value else f", and it reads {float(value):.17g}"
    return (f"{subject} beyond 2**53 = 9,007,199,254,740,992, past which "
            f"float64 (the scores' type) rounds integers and their sums{reads}: {fix}")


def refuse_inexact_integers(values, converted: np.ndarray, name: str) -> None:
    """Refuse integer ``values`` beyond 2**53 (:data:`EXACT_INTEGERS`), given as
    ``name``, once ``converted`` to float64: an InputError naming the item.

    The float64 ``converted`` decides at no cost whether to look (an integer beyond
    2**53 rounds to 2**53 or more); only then are the original values looked at, as
    integers: numpy integer arrays, Python ints, numpy integer scalars.  Floats are
    what they were given as, and pass.
    """
    if not converted.size or not np.isfinite(converted).any():
        return
    finite = converted[np.isfinite(converted)]
    if float(np.abs(finite).max()) < EXACT_INTEGERS:
        return
    arr = values if isinstance(values, np.ndarray) else np.asarray(values, dtype=object)
    if arr.shape != converted.shape:
        return  # (a ragged list: as_floats names the problem)
    if arr.dtype.kind in "iu":
        big = (arr > EXACT_INTEGERS) if arr.dtype.kind == "u" else (
            (arr > EXACT_INTEGERS) | (arr < -EXACT_INTEGERS))
        found = np.argwhere(big)
    elif arr.dtype.kind == "O":
        found = [index for index, v in np.ndenumerate(arr)
                 if isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                 and integer_problem(int(v)) is not None]
    else:
        return
    if len(found):
        index = tuple(int(i) for i in found[0])
        value = int(arr[index])
        where = f"item {index[0]}" + (f", column {index[1]}" if len(index) > 1 else "")
        raise InputError(f"`{name}` at {where}: {integer_problem(value)}", param=name)

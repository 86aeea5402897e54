"""What float64 holds exactly: every integer up to 2**53, and no longer all of them beyond.

Scores are float64 from the reading on.  An integer score beyond 2**53 is rounded when it
becomes a float (9007199254740993 reads 9007199254740992), and the sums of the bootstrap
lose as much again, so that near 2**63 a true difference of -1 per item reads as none.
Such a value is refused rather than rounded silently: subtracting an offset (or
rescaling) brings it back to where every integer is exact.  The readers and the API use
the one rule here (:func:`integer_problem`, :func:`refuse_inexact_integers`).

The sums of float64 values can be had exactly too (:func:`exact_sums`, as integers in
units of 2**-1126): a contrast of two systems summed apart is then checked against its
exact value, so that digits lost to the systems' common level are found, not guessed.
"""

from __future__ import annotations

import re

import numpy as np

from pairboot.errors import InputError

__all__ = ["EXACT_INTEGERS", "EXACT_SCALE", "exact_sums", "exact_value", "integer_problem",
           "is_integer_text", "refuse_inexact_integers"]

EXACT_SCALE = 1126
""":func:`exact_sums` counts in units of ``2**-EXACT_SCALE``: every finite float64 is a
whole number of them (the smallest subnormal is 2**-1074 = 2**52 units)."""

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


def exact_sums(x: np.ndarray) -> list[int]:
    """The exact sum of every column of ``x`` (n, k) of finite float64, as a Python int
    in units of ``2**-EXACT_SCALE``.

    Each value is its 53-bit integer mantissa times a power of two; the mantissas are
    split in halves of 27 and 26 bits and summed per exponent in float64, which holds
    those sums exactly for up to 2**26 values at a time; the exponents' sums are then
    shifted into one integer.  Non-finite values count as 0 (their sums are refused
    where they are read).
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 1:
        x = x[:, None]
    out = []
    for j in range(x.shape[1]):
        total = 0
        for lo in range(0, len(x), 1 << 26):
            col = x[lo : lo + (1 << 26), j]
            col = col[np.isfinite(col) & (col != 0)]
            if not col.size:
                continue
            mantissa, exponent = np.frexp(col)
            whole = (mantissa * 2.0**53).astype(np.int64)  # (exact: |mantissa| < 1)
            shift = exponent.astype(np.int64) - 53 + EXACT_SCALE  # (>= 0 for all floats)
            high = whole >> 26
            low = whole - (high << 26)
            bins = int(shift.max()) + 1
            his = np.bincount(shift, weights=high.astype(np.float64), minlength=bins)
            los = np.bincount(shift, weights=low.astype(np.float64), minlength=bins)
            for s in np.flatnonzero((his != 0) | (los != 0)).tolist():
                total += ((int(his[s]) << 26) + int(los[s])) << s
        out.append(total)
    return out


def exact_value(units: int) -> float:
    """An exact sum of :func:`exact_sums` as the nearest float64."""
    from fractions import Fraction

    return float(Fraction(units, 1 << EXACT_SCALE))

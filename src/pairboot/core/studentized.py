"""The studentized (bootstrap-t) interval's standard errors, from the engine's sums.

Every replicate's standard error comes by the delta method from sums the engine adds up
with the statistics: the centred values and their cross products, appended as extra
columns (:func:`with_cross_products`), so no nested bootstrap is needed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pairboot.engine import DrawPlan, weighted_sum
from pairboot.errors import InputError

VARIANCE_ULPS = 16.0
"""A delta-method variance within this many units of rounding of its terms is 0."""


@dataclass(frozen=True, slots=True)
class CrossProducts:
    """Where the extra columns are: ``pairs[p] = (i, j)`` is product column
    ``width + p`` (``width``: the columns of the statistics themselves), and
    ``centred[i]`` the column of varying column ``i``'s centred sum."""

    pairs: list[tuple[int, int]]
    centred: dict[int, int]
    count: int | None = None
    """The column of the resample's size (a constant 1, summed by Poisson weights, whose
    resamples vary in size); None: the size is the draw stratum's."""


def _pairs(k: int) -> list[tuple[int, int]]:
    return [(i, j) for i in range(k) for j in range(i, k)]


def with_cross_products(plan: DrawPlan) -> tuple[DrawPlan, CrossProducts]:
    """Append, for the varying columns, ``x_i - c_i`` and ``(x_i - c_i) (x_j - c_j)``
    (i <= j; ``c`` the column's mean in the unit's draw stratum), so that every
    replicate's covariance comes with its sums.

    Centred, the sums carry the covariance itself: from raw sums it would be the
    difference of two sums of squares, and a common offset of the scores (1e8 on
    differences of 1) takes all its digits.
    """
    varying = np.flatnonzero(np.isnan(plan.constant))
    pairs = [(int(varying[i]), int(varying[j])) for i, j in _pairs(len(varying))]
    xc = np.empty_like(plan.x)
    with np.errstate(over="ignore", invalid="ignore"):
        for s, m in zip(plan.starts.tolist(), plan.sizes.tolist()):
            if m:
                np.subtract(plan.x[s : s + m], plan.x[s : s + m].mean(axis=0),
                            out=xc[s : s + m])
    _check_squares(xc)
    prods = np.empty((len(plan.x), len(pairs)))
    for p, (i, j) in enumerate(_pairs(len(varying))):
        np.multiply(xc[:, i], xc[:, j], out=prods[:, p])
    x = np.concatenate([plan.x, prods, xc], axis=1)
    first = plan.n_columns + len(pairs)
    centred = {int(v): first + n for n, v in enumerate(varying)}
    constant = np.concatenate([plan.constant, np.full(len(pairs) + len(varying), np.nan)])
    count = None
    if plan.keys is not None:  # Poisson weights: each resample's size is its total weight
        count = len(constant)
        constant = np.append(constant, 1.0)
    return (DrawPlan(x, plan.starts, plan.sizes, constant, plan.keys, plan.salts),
            CrossProducts(pairs, centred, count))


SQUARES_RANGE = (1e-140, 1e140)
"""The magnitudes of the centred statistics whose products float64 holds with room for
the sums of a resample: beyond them the squares overflow or underflow."""


def _check_squares(xc: np.ndarray) -> None:
    """Refuse statistics whose squares float64 cannot hold (scores near 1e+-300): the
    variances would be infinite or 0, and read as data that do not vary."""
    if not xc.size:
        return
    with np.errstate(invalid="ignore"):
        top = np.max(np.abs(xc), axis=0)
    low, high = SQUARES_RANGE
    size = float(np.max(top)) if np.all(np.isfinite(top)) else math.inf
    if size >= high:
        problem = "overflow"
    elif 0 < size <= low:  # (every column tiny: one tiny beside others is theirs to say)
        problem = "underflow"
    else:
        return
    raise InputError(
        f"`method='studentized'` needs the squares of the scores, and these (spread up to "
        f"{size:.3g}) {problem} double precision when squared: rescale the scores (e.g. "
        "by a power of ten) or use `method='bca'` or 'percentile'", param="method")


def variance_terms(grad: np.ndarray, draw: np.ndarray, cross: CrossProducts, width: int,
                   sizes: np.ndarray, draw_to_stratum: np.ndarray) -> np.ndarray:
    """``m_d g' Cov_d g`` for every replicate and draw stratum ``d``, shape (R, D).

    ``grad`` is the gradient at every analysis stratum's sums, ``draw`` the sums per draw
    stratum.  ``Cov_d`` is zero but for two varying columns (i <= j): a column constant
    within the stratum does not vary.  Their mean product comes from the sums of the
    centred products ``P_ij`` and centred values ``s_i``, so the term is the sum over
    those pairs of ``(2 - [i = j]) g_i g_j (P_ij - s_i s_j / m)``.
    """
    m = sizes.astype(np.float64) if cross.count is None else draw[..., cross.count]
    paired = len(draw_to_stratum) == grad.shape[-2]
    g = grad if paired else grad[:, draw_to_stratum, :]  # paired: the identity
    out = np.zeros(draw.shape[:2])
    size = np.zeros(draw.shape[:2])  # what the terms' rounding is relative to
    for p, (i, j) in enumerate(cross.pairs):
        mean_part = draw[..., cross.centred[i]] * draw[..., cross.centred[j]] / m
        gg = (1.0 if i == j else 2.0) * g[..., i] * g[..., j]
        out += gg * (draw[..., width + p] - mean_part)
        size += np.abs(gg) * (np.abs(draw[..., width + p]) + np.abs(mean_part))
    # Where the variance is 0 (a resample of units whose differences are equal: one
    # distinct unit, or constant differences) only rounding is left, which must not
    # pass for a tiny standard error (it would make t huge).  A few units of rounding
    # of the terms: two highly correlated systems keep a small genuine variance.
    out[np.abs(out) <= VARIANCE_ULPS * 2.0**-53 * size] = 0.0
    return out


def combine_terms(terms: np.ndarray, coef: np.ndarray, draw_to_stratum: np.ndarray
                  ) -> np.ndarray:
    """The delta-method variance ``sum_d c_h^2 m_d g' Cov_d g``: each draw stratum's
    term weighted by its stratum's squared coefficient."""
    return np.maximum(weighted_sum(terms, coef[draw_to_stratum] ** 2), 0.0)

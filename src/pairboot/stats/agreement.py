"""Agreement between two raters (a judge and people, or two judges) from their table of
counts: Cohen's kappa (weighted for ordinal scales), Gwet's AC1, Krippendorff's alpha,
and for 0/1 verdicts the first rater's accuracy, sensitivity and specificity against the
second.

Every statistic is a function of the ``k x k`` table ``T[i, j]``, the number of items
the first rater put in category ``i`` and the second in ``j`` -- a sum over the items
of one-hot cells, so the bootstrap resamples it as any other sum.  Each function takes
tables of shape ``(..., k, k)`` (one per resample) and returns one value per table.
"""

from __future__ import annotations

import numpy as np

__all__ = ["STATISTICS", "agreement_statistic"]

STATISTICS = ("kappa", "kappa-linear", "kappa-quadratic", "ac1", "alpha-nominal",
              "alpha-ordinal", "alpha-interval", "accuracy", "sensitivity", "specificity")
"""The statistics by name: kappa unweighted or with linear or quadratic weights (on the
categories' ranks, as scikit-learn's ``cohen_kappa_score``), AC1 (unweighted), alpha
with the nominal, ordinal or interval metric (on the categories' values), and the first
rater's accuracy, sensitivity and specificity against the second (0/1 categories)."""


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den != 0, num / np.where(den != 0, den, 1.0), np.nan)


def _kappa(t: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``1 - sum W * O / sum W * E``, ``E`` the margins' outer product over n (as
    scikit-learn: ``W`` the disagreement weights)."""
    n = t.sum(axis=(-2, -1))
    expected = t.sum(axis=-1)[..., :, None] * t.sum(axis=-2)[..., None, :]
    expected = _ratio(expected, n[..., None, None])
    return 1.0 - _ratio((weights * t).sum(axis=(-2, -1)),
                        (weights * expected).sum(axis=(-2, -1)))


def _ac1(t: np.ndarray) -> np.ndarray:
    """Gwet's AC1 for two raters: ``(p_a - p_e) / (1 - p_e)``, ``p_e = sum_k pi_k (1 -
    pi_k) / (K - 1)``, ``pi_k`` the share of both raters' ratings in category k."""
    k = t.shape[-1]
    n = t.sum(axis=(-2, -1))
    p_a = _ratio(np.trace(t, axis1=-2, axis2=-1), n)
    pi = _ratio(t.sum(axis=-1) + t.sum(axis=-2), 2.0 * n[..., None])
    p_e = (pi * (1.0 - pi)).sum(axis=-1) / (k - 1)
    return _ratio(p_a - p_e, 1.0 - p_e)


def _alpha(t: np.ndarray, metric: str, values: np.ndarray) -> np.ndarray:
    """Krippendorff's alpha for two raters who rated every item: the coincidence matrix
    ``o = T + T'``, ``1 - (n.. - 1) sum o d / sum n_c n_k d`` with ``d`` the metric's
    squared difference (ordinal: of the categories' cumulative counts, from the
    coincidences' margins, so it varies with the table)."""
    o = t + np.swapaxes(t, -1, -2)
    n_c = o.sum(axis=-1)
    total = n_c.sum(axis=-1)
    k = t.shape[-1]
    if metric == "nominal":
        d = np.broadcast_to(1.0 - np.eye(k), o.shape)
    elif metric == "interval":
        d = np.broadcast_to((values[:, None] - values[None, :]) ** 2, o.shape)
    else:  # ordinal: (sum_{g between c and k} n_g - (n_c + n_k) / 2)^2
        cum = np.cumsum(n_c, axis=-1)
        lo = np.minimum.outer(np.arange(k), np.arange(k))
        hi = np.maximum.outer(np.arange(k), np.arange(k))
        between = cum[..., hi] - cum[..., lo] + n_c[..., lo]  # (sum over lo..hi)
        d = (between - (n_c[..., :, None] + n_c[..., None, :]) / 2.0) ** 2
    observed = (o * d).sum(axis=(-2, -1))
    expected = (n_c[..., :, None] * n_c[..., None, :] * d).sum(axis=(-2, -1))
    return 1.0 - _ratio((total - 1.0) * observed, expected)


def agreement_statistic(name: str, tables: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Statistic ``name`` (one of :data:`STATISTICS`) of every table ``(..., k, k)``;
    ``values`` the categories' values in order (their ranks weigh kappa, their values
    alpha's interval metric).  NaN where it is undefined (no item, one category only
    where the statistic needs two)."""
    t = np.asarray(tables, dtype=np.float64)
    k = t.shape[-1]
    ranks = np.arange(k, dtype=np.float64)
    if name == "kappa":
        return _kappa(t, 1.0 - np.eye(k))
    if name == "kappa-linear":
        return _kappa(t, np.abs(ranks[:, None] - ranks[None, :]))
    if name == "kappa-quadratic":
        return _kappa(t, (ranks[:, None] - ranks[None, :]) ** 2)
    if name == "ac1":
        return _ac1(t)
    if name.startswith("alpha-"):
        return _alpha(t, name.removeprefix("alpha-"), np.asarray(values, np.float64))
    n = t.sum(axis=(-2, -1))
    if name == "accuracy":
        return _ratio(np.trace(t, axis1=-2, axis2=-1), n)
    if name == "sensitivity":  # (the first rater's 1s among the second's)
        return _ratio(t[..., 1, 1], t[..., :, 1].sum(axis=-1))
    if name == "specificity":
        return _ratio(t[..., 0, 0], t[..., :, 0].sum(axis=-1))
    raise ValueError(f"unknown agreement statistic {name!r}")

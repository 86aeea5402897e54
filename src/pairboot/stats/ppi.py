"""Prediction-powered inference for a mean (PPI++, Angelopoulos, Duchi and Zrnic 2024):
closed forms on numbers.

A judge scores every item; gold labels exist on a random subset (``n`` labelled items,
``N`` unlabelled ones).  The estimate of the gold mean is

    theta(lam) = mean_l(gold) + lam * (mean_u(judge) - mean_l(judge))

the gold mean corrected by how far the judge's mean on the unlabelled items lies from
its mean on the labelled ones.  ``lam = 0`` is the gold labels alone, ``lam = 1``
classic PPI; :func:`stratified_power_weight` is PPI++'s data-tuned ``lam`` (for one
stratum ppi_py's formula, clipped to [0, 1]).  Its standard error
(:func:`ppi_standard_error`) is the influence of every cluster summed and squared (an
item is its own cluster without groups: then exactly ppi_py's ``ppi_mean_ci``).  Any
fixed ``lam`` gives a valid interval; the tuned one makes it narrowest (its own noise is
of a smaller order, as in PPI++'s interval).
"""

from __future__ import annotations

import math

import numpy as np

from pairboot.stats.intervals import normal_quantile

__all__ = ["ppi_estimate", "ppi_standard_error", "mean_standard_error",
           "stratified_power_weight", "normal_bounds", "normal_p_value", "selection_p_value"]


def stratified_power_weight(parts, weights: np.ndarray, clip: bool = True) -> float:
    """The one ``lam`` that makes the variance of ``sum_h w_h theta_h(lam)`` smallest,
    ``parts`` every stratum's ``(gold, judge, judge_unlabelled)``: ``sum_h w_h^2
    cov_h / n_h`` over ``sum_h w_h^2 var_h (1 / n_h + 1 / N_h)``, ``cov_h`` the
    covariance of gold and judge over the stratum's labelled items (ddof 0), ``var_h``
    the judge's variance over all its items (ddof 1).  For one stratum this is PPI++'s
    ``cov_l(gold, judge) / ((1 + n / N) var(judge))``; with ``clip``, within [0, 1]
    (ppi_py's ``_calc_lam_glm`` with ``clip=True``: right when the judge predicts the
    gold score on its scale).  0 when the judge does not vary (it says nothing)."""
    num = den = 0.0
    for (gold, judge, judge_unlabelled), w in zip(parts, weights):
        n, big_n = len(gold), len(judge_unlabelled)
        every = np.concatenate([judge, judge_unlabelled])
        var = float(np.var(every, ddof=1)) if len(every) > 1 else 0.0
        cov = float(np.mean((gold - gold.mean()) * (judge - judge.mean())))
        num += w * w * cov / n
        den += w * w * var * (1.0 / n + 1.0 / big_n)
    if not den > 0.0:
        return 0.0
    lam = num / den
    return float(min(max(lam, 0.0), 1.0)) if clip else float(lam)


def ppi_estimate(gold: np.ndarray, judge: np.ndarray, judge_unlabelled: np.ndarray,
                 lam: float) -> float:
    """``mean_l(gold) + lam * (mean_u(judge) - mean_l(judge))``."""
    return float(gold.mean() + lam * (judge_unlabelled.mean() - judge.mean()))


def _cluster_sums(values: np.ndarray, clusters: np.ndarray | None, n_clusters: int
                  ) -> np.ndarray:
    if clusters is None:
        return values
    return np.bincount(clusters, weights=values, minlength=n_clusters)


def ppi_standard_error(gold: np.ndarray, judge: np.ndarray, judge_unlabelled: np.ndarray,
                       lam: float, clusters: tuple[np.ndarray, np.ndarray] | None = None,
                       n_clusters: int = 0) -> float:
    """The standard error of :func:`ppi_estimate` at a fixed ``lam``: the square root of
    ``sum_c psi_c^2``, ``psi_c`` cluster ``c``'s influence, ``sum over its labelled
    items of (r - mean_l r) / n`` (``r = gold - lam judge``) plus ``sum over its
    unlabelled items of lam (judge - mean_u judge) / N``.  ``clusters``: the labelled and
    the unlabelled items' cluster codes (0 .. ``n_clusters`` - 1), None without groups,
    when this is ppi_py's ``sqrt(var0(lam judge_u) / N + var0(gold - lam judge) / n)``."""
    n, big_n = len(gold), len(judge_unlabelled)
    r = gold - lam * judge
    psi_l = (r - r.mean()) / n
    psi_u = lam * (judge_unlabelled - judge_unlabelled.mean()) / big_n
    if clusters is None:
        return math.sqrt(float(np.sum(psi_l**2) + np.sum(psi_u**2)))
    psi = (_cluster_sums(psi_l, clusters[0], n_clusters)
           + _cluster_sums(psi_u, clusters[1], n_clusters))
    return math.sqrt(float(np.sum(psi**2)))


def mean_standard_error(values: np.ndarray, clusters: np.ndarray | None = None,
                        n_clusters: int = 0) -> float:
    """The standard error of a plain mean (the gold labels' alone is
    :func:`ppi_standard_error` at ``lam = 0``): ``sqrt(var0(values) / n)`` without
    groups, each group's summed influence squared with them."""
    psi = _cluster_sums((values - values.mean()) / len(values), clusters, n_clusters)
    return math.sqrt(float(np.sum(psi**2)))


def normal_bounds(estimate: float, se: float, alpha: float, alternative: str = "two-sided"
                  ) -> tuple[float, float]:
    """The normal (CLT) ``1 - alpha`` interval ``estimate -+ z se``: two-sided, or
    one-sided as :func:`pairboot.stats.intervals.bounds` ("greater": ``[low, inf)``)."""
    if not (math.isfinite(estimate) and math.isfinite(se)):
        return math.nan, math.nan
    if alternative == "two-sided":
        z = normal_quantile(1.0 - alpha / 2.0)
        return estimate - z * se, estimate + z * se
    z = normal_quantile(1.0 - alpha)
    return (estimate - z * se, math.inf) if alternative == "greater" else (
        -math.inf, estimate + z * se)


def normal_p_value(estimate: float, se: float, alternative: str = "two-sided",
                   null: float = 0.0) -> float:
    """The z test's p-value of ``estimate`` against ``null``: the smallest alpha whose
    :func:`normal_bounds` interval excludes it (a standard error of 0: 0 or 1)."""
    if not (math.isfinite(estimate) and math.isfinite(se)):
        return math.nan
    diff = estimate - null
    if se == 0.0:
        side = {"two-sided": diff != 0.0, "greater": diff > 0.0, "less": diff < 0.0}
        return 0.0 if side[alternative] else 1.0
    z = diff / se
    upper = 0.5 * math.erfc(z / math.sqrt(2.0))  # P(Z > z)
    lower = 0.5 * math.erfc(-z / math.sqrt(2.0))  # P(Z < z)
    if alternative == "greater":
        return upper
    if alternative == "less":
        return lower
    return min(1.0, 2.0 * min(upper, lower))


def selection_p_value(values: np.ndarray, labelled: np.ndarray, parts, weights) -> float:
    """How surprising the labelled items' judge scores are for a random sample of the
    items: for every column of ``values`` (n, c), the z test of the labelled items'
    mean minus the unlabelled items' (within each stratum, combined with ``weights``;
    ``parts`` every stratum's ``(rows, group codes or None, n_groups)``), and the
    smallest p-value times c (Bonferroni).  NaN when no column can be tested.

    The variance is the difference's under the null, over the random draws of the
    labels (design-based): with ``e`` the items' deviations from the stratum's mean,
    ``S^2 (1 / n_l + 1 / n_u)``, ``S^2`` the variance of all the stratum's items (a
    simple random sample of ``n_l`` items, exact); with groups labelled whole,
    ``(1 / n_l + 1 / n_u)^2 G_l (G - G_l) / G`` times the variance of the groups' sums
    of ``e`` (a random sample of ``G_l`` whole groups); with groups labelled in part
    (items drawn at random, or within groups drawn at random), the larger of the two,
    ``G_l`` the groups with a label.  Not the two samples' own variances: a small labelled sample
    that happens to show one value (0/1 verdicts, a dominant rating) would then look
    impossibly far from the rest.  A subset chosen by the scores (the disagreements,
    the hard items) moves these means; a random one rarely does."""
    diff = np.zeros(values.shape[1])
    var = np.zeros(values.shape[1])
    for (rows, codes, n_groups), w in zip(parts, weights):
        x, lab = values[rows], labelled[rows]
        n_l, n_u = int(lab.sum()), int((~lab).sum())
        diff += w * (x[lab].mean(axis=0) - x[~lab].mean(axis=0))
        e = x - x.mean(axis=0)
        scale = 1.0 / n_l + 1.0 / n_u
        items = (e ** 2).sum(axis=0) / (len(rows) - 1) * scale
        if codes is None:
            var += w * w * items
            continue
        size = np.bincount(codes, minlength=n_groups)
        n_lab = np.bincount(codes, lab, minlength=n_groups)[size > 0]
        sums = np.stack([np.bincount(codes, e[:, j], minlength=n_groups)
                         for j in range(e.shape[1])], axis=1)[size > 0]
        big_g, g_l = len(sums), int((n_lab > 0).sum())
        whole = (scale ** 2 * g_l * (big_g - g_l) / big_g
                 * (sums ** 2).sum(axis=0) / max(big_g - 1, 1))
        partly = ((n_lab > 0) & (n_lab < size[size > 0])).any()
        var += w * w * (np.maximum(whole, items) if partly else whole)
    ok = var > 0
    if not ok.any():
        return math.nan
    z = np.abs(diff[ok]) / np.sqrt(var[ok])
    p = float(np.min([math.erfc(v / math.sqrt(2.0)) for v in z]))
    return min(1.0, p * values.shape[1])

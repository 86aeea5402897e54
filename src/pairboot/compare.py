"""compare(): one system against another on the same test set, with a bootstrap interval."""

from __future__ import annotations

import importlib.util
import math
import warnings as _warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pairboot._version import __version__
from pairboot.data import Design, build_design, check_arguments, derived_seed
from pairboot.engine import DrawPlan, resample_sums
from pairboot.errors import (
    DegenerateDataWarning,
    InputError,
    PairbootWarning,
    SmallSampleWarning,
)
from pairboot.intervals import Bootstrap, bounds, monte_carlo_error, normal_quantile, p_value
from pairboot.metrics import Metric
from pairboot.result import CompareResult, ConfidenceInterval, StratumResult, SystemScore

SMALL_N = 30
"""Below this many independent units the interval is rough (the spec: 'a few dozen')."""

_JACK_CHUNK = 1 << 16
_SLOW_DRAWS = 50_000_000  # draws above which the numpy kernel takes seconds
_VARIANCE_ULPS = 16.0
"""A delta-method variance within this many units of rounding of its terms is 0."""
_ROUNDING_ULPS = 16.0
"""Resampled values count as equal when they spread less than this many units of
rounding (2**-53) times sqrt(items) times the size of the scores: the rounding of the
resampled sums grows like sqrt(n) (worst case n, on data that then do not vary)."""
_POWER_Z = 0.8416212335729143  # standard normal quantile at 0.8: 80% power


def compare(
    a,
    b,
    *,
    paired: bool = True,
    groups=None,
    group_weighting: str = "items",
    strata=None,
    strata_weights=None,
    metric: str | Metric = "mean",
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    method: str = "percentile",
    seed: int | str | None = None,
    backend: str = "auto",
    progress: Callable[[int], None] | None = None,
) -> CompareResult:
    """Bootstrap confidence interval for the difference ``metric(b) - metric(a)``.

    The paired bootstrap of the spec: resample the test items (or whole groups, within
    strata) with replacement, with the *same* draws for both systems, recompute the
    metric of each system on every resample, and read the interval off the resampled
    differences.

    Parameters
    ----------
    a, b : array_like
        Per-item scores of systems A and B, in the same item order: 1-D (one score per
        item, for ``metric="mean"``) or 2-D (items x sufficient statistics, e.g. the
        ``tp, fp, fn`` columns for ``metric="f1"``).  Lists, numpy arrays and pandas or
        polars Series/DataFrames are accepted; a DataFrame whose columns carry the
        metric's statistic names is read by name, any other in column order.
    paired : bool, default True
        ``False`` draws A's and B's items independently (the unpaired bootstrap, for
        contrast; then ``a`` and ``b`` may have different lengths).
    groups : array_like, optional
        One group label per item (document, conversation, user...).  Whole groups are
        resampled (the cluster bootstrap): items of a group are not independent.  A
        pandas ``Categorical`` (or category Series) is read as its labels, without a
        Python object per item.
    group_weighting : {"items", "groups"}
        With ``groups``: ``"items"`` estimates the mean over items (each drawn group
        carries the sum of its items' statistics and its item count); ``"groups"`` the
        mean of the group means (``metric="mean"`` only).  They differ when group sizes
        differ.
    strata : array_like, optional
        One stratum label per item (as for ``groups``): resampling is done within each
        stratum (groups kept whole inside their stratum) and the stratum differences are
        combined with ``strata_weights``.
    strata_weights : mapping, optional
        Population weight of every stratum (normalised).  Default: the sample shares,
        which reproduce the plain estimate.
    metric : str or Metric, default "mean"
        ``"mean"``, ``"ratio"``, ``"accuracy"`` or another built-in name (see
        :func:`pairboot.builtin_metrics`), or a :class:`pairboot.Metric`.  The metric is
        recomputed on every resample from the summed statistics.
    n_resamples : int, default 10_000
    confidence_level : float, default 0.95
    method : {"percentile", "basic", "normal", "bca", "studentized"}
        ``percentile`` is the spec's.  ``bca`` corrects bias and skewness (acceleration
        from the jackknife over units); ``studentized`` is the bootstrap-t with a
        delta-method standard error per resample; both help for skewed or bounded
        metrics and small samples.
    seed : int or "random", optional
        Non-negative.  Without one, the seed is derived from a hash of the data and the
        options, so the same inputs give the same answer on every run; ``"random"``
        draws a fresh one.  Either way it is reported as ``result.seed``.  The same seed
        gives the same answer whatever the machine's thread count.
    backend : {"auto", "numba", "numpy"}
        The resampling kernel; ``auto`` uses numba when it is installed and the job is
        large enough to repay its start-up (a deterministic rule on the job's size).
        Both draw the same items; their sums differ only by rounding.
    progress : callable, optional
        Called as ``progress(done)`` with the number of finished resamples.  If it
        has a ``compiling()`` method, that is called first when numba is about to
        compile its kernel (the first large run after installing: about 10 s).

    Returns
    -------
    CompareResult

    Examples
    --------
    >>> import pairboot
    >>> a = [0.61, 0.42, 0.55, 0.70, 0.38, 0.49, 0.66, 0.58] * 5
    >>> b = [0.66, 0.45, 0.57, 0.74, 0.37, 0.55, 0.69, 0.61] * 5
    >>> res = pairboot.compare(a, b, seed=1)
    >>> round(res.estimate, 4)
    0.0313
    >>> res.excludes_zero
    True
    """
    args = check_arguments(
        paired=paired, group_weighting=group_weighting, n_resamples=n_resamples,
        confidence_level=confidence_level, method=method, seed=seed, backend=backend,
    )
    design = build_design(
        a, b, metric=metric, paired=args.paired, groups=groups,
        group_weighting=args.group_weighting, strata=strata, strata_weights=strata_weights,
    )
    seed = args.seed if args.seed is not None else derived_seed(design, args)
    studentized = args.method == "studentized"
    plan, pairs, centred = (_with_cross_products(design.plan) if studentized
                            else (design.plan, None, None))
    sums, engine = resample_sums(
        plan, args.n_resamples, seed, backend=args.backend, progress=progress
    )
    observed = _observed_sums(plan)
    stat = _Statistic(design, sums, observed, pairs, centred)
    notes: list[tuple[type[Warning], str]] = []
    notes += _design_notes(design, args)
    draws = args.n_resamples * len(plan.x)
    slow = "numpy" in engine and args.backend == "auto" and draws > _SLOW_DRAWS
    if slow and importlib.util.find_spec("numba") is None:  # (numpy may be the engine's choice)
        notes.append((
            PairbootWarning,
            "numba is not installed, so the pure-numpy kernel ran (several times slower, "
            'same draws); for the fast path: pip install "pairboot[fast]"',
        ))

    alpha = 1.0 - args.confidence_level
    bca = args.method == "bca"
    # A mean combines the strata's means with the population weights (the spec's rule);
    # a pooled metric is computed once on the statistics reweighted to the population.
    combined = design.n_strata > 1 and not design.metric.mean_like
    coef = design.weights / design.shares if combined else design.weights
    diff = stat.estimand("diff", coef, bca, combined)
    score_a = stat.estimand("a", coef, bca, combined)
    score_b = stat.estimand("b", coef, bca, combined)
    notes += stat.undefined_notes()

    low, high = bounds(args.method, diff.boot, alpha)
    p = p_value(args.method, diff.boot)
    mc = monte_carlo_error(args.method, diff.boot, alpha)
    notes += _interval_notes(diff, design, args, (low, high), mc, (score_a, score_b))

    strata_results = ()
    if design.strata_names is not None:
        strata_results = tuple(
            _stratum_result(stat, design, h, args.method, alpha, bca)
            for h in range(len(design.strata_names))
        )

    estimate = diff.boot.estimate
    excludes = low > 0 or high < 0
    items_needed = groups_needed = None
    se = diff.boot.sd
    if not excludes and estimate != 0 and math.isfinite(se) and se > 0:
        factor = ((normal_quantile(1 - alpha / 2) + _POWER_Z) * se / abs(estimate)) ** 2
        units = design.n_groups if design.n_groups is not None else design.n_items
        items_needed = math.ceil(design.n_items * factor)
        if design.n_groups is not None:
            groups_needed = math.ceil(units * factor)

    for category, text in notes:
        _warnings.warn(text, category, stacklevel=2)

    return CompareResult(
        estimate=estimate,
        confidence_interval=ConfidenceInterval(low, high),
        confidence_level=args.confidence_level,
        method=args.method,
        standard_error=se,
        p_value=p,
        bootstrap_distribution=diff.replicates,
        score_a=_system_score(score_a, args.method, alpha),
        score_b=_system_score(score_b, args.method, alpha),
        n_items=design.n_items,
        n_groups=design.n_groups,
        n_strata=len(design.strata_names) if design.strata_names is not None else None,
        n_resamples=args.n_resamples,
        seed=seed,
        warnings=tuple(text for _, text in notes),
        metric=design.metric.name,
        paired=args.paired,
        group_weighting=args.group_weighting if design.n_groups is not None else None,
        strata=strata_results,
        monte_carlo_error=ConfidenceInterval(*mc),
        items_needed=items_needed,
        groups_needed=groups_needed,
        engine=engine,
        version=__version__,
    )


# --- sums -------------------------------------------------------------------------------


def _pairs(k: int) -> list[tuple[int, int]]:
    return [(i, j) for i in range(k) for j in range(i, k)]


def _with_cross_products(plan: DrawPlan):
    """Append, for the varying columns, ``x_i - c_i`` and ``(x_i - c_i) (x_j - c_j)``
    (i <= j; ``c`` the column's mean in the unit's draw stratum), so that every
    replicate's covariance comes with its sums.

    Centred, the sums carry the covariance itself: from raw sums it would be the
    difference of two sums of squares, and a common offset of the scores (1e8 on
    differences of 1) takes all its digits.  Returns the plan, the (i, j) of every
    product column, and the column of each varying column's centred sum.
    """
    varying = np.flatnonzero(np.isnan(plan.constant))
    pairs = [(int(varying[i]), int(varying[j])) for i, j in _pairs(len(varying))]
    xc = np.empty_like(plan.x)
    for s, m in zip(plan.starts.tolist(), plan.sizes.tolist()):
        if m:
            np.subtract(plan.x[s : s + m], plan.x[s : s + m].mean(axis=0), out=xc[s : s + m])
    prods = np.empty((len(plan.x), len(pairs)))
    for p, (i, j) in enumerate(_pairs(len(varying))):
        np.multiply(xc[:, i], xc[:, j], out=prods[:, p])
    x = np.concatenate([plan.x, prods, xc], axis=1)
    first = plan.n_columns + len(pairs)
    centred = {int(v): first + n for n, v in enumerate(varying)}
    constant = np.concatenate([plan.constant, np.full(len(pairs) + len(varying), np.nan)])
    return DrawPlan(x, plan.starts, plan.sizes, constant), pairs, centred


def _observed_sums(plan: DrawPlan, absolute: bool = False) -> np.ndarray:
    """(1, D, K): every draw stratum's sums on the data themselves (of ``|x|`` with
    ``absolute``, taken in chunks: no copy of all of x)."""
    out = np.zeros((1, len(plan.starts), plan.n_columns))
    varying = np.isnan(plan.constant)
    constant = np.abs(plan.constant) if absolute else plan.constant
    for d, (s, m) in enumerate(zip(plan.starts.tolist(), plan.sizes.tolist())):
        if absolute:
            for c in range(s, s + m, _JACK_CHUNK):
                out[0, d, varying] += np.abs(plan.x[c : min(c + _JACK_CHUNK, s + m)]).sum(0)
        else:
            out[0, d, varying] = plan.x[s : s + m].sum(axis=0)
        out[0, d, ~varying] = constant[~varying] * m
    return out


# --- the statistic on the sums -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Estimand:
    replicates: np.ndarray  # (R,) possibly with NaN where undefined
    boot: Bootstrap


class _Statistic:
    """Metric differences on summed statistics: replicates, jackknife, standard errors.

    ``M_h`` are the merged sums of analysis stratum ``h`` (paired: one draw stratum;
    unpaired: A's and B's), and ``phi`` is ``metric(B) - metric(A)``, ``metric(A)`` or
    ``metric(B)``.  An estimand with coefficients ``c`` over the strata is either

    - *separate*: ``sum_h c_h phi(M_h)`` -- the spec's rule for a mean: combine the
      stratum means with the population weights; or
    - *combined*: ``phi(sum_h c_h M_h)`` -- a pooled metric computed once on the
      statistics reweighted to the population, so that with the sample shares it is the
      same pooled value (micro F1, say) as without strata.
    """

    def __init__(self, design: Design, sums, observed, cross_pairs, centred=None):
        self.design = design
        self.k2 = 2 * design.k
        self.n_strata = len(design.weights)
        self.draw_sums = sums  # (R, D, K)
        self.draw_observed = observed  # (1, D, K)
        self.M = self._merge(sums[..., : self.k2])  # (R, H, 2k)
        self.M_hat = self._merge(observed[..., : self.k2])  # (1, H, 2k)
        self.cross_pairs = cross_pairs  # None unless studentized
        self.centred = centred  # column of each varying column's centred sum (studentized)
        self.undefined = {"a": [0, 0], "b": [0, 0]}  # per system: undefined, evaluated
        self._separate: dict = {}
        self._uncounted: dict = {}
        # the metric on the sums of |x| too: scores of +-1e3 with a mean near 0 round
        # like scores of 1e3
        M_abs = self._merge(_observed_sums(design.plan, absolute=True)[..., : self.k2])
        with np.errstate(all="ignore"):
            sizes = np.abs(np.concatenate([self.phi(w, M).ravel() for w in ("a", "b")
                                           for M in (self.M_hat, M_abs)]))
        finite = sizes[np.isfinite(sizes)]
        self.scale = float(finite.max()) if finite.size else 0.0
        """The size of the scores, against which rounding is judged."""

    def _merge(self, s: np.ndarray) -> np.ndarray:
        """Sums per analysis stratum from sums per draw stratum (unpaired: A's + B's)."""
        d2h = self.design.draw_to_stratum
        if len(d2h) == self.n_strata:  # paired: one draw stratum per stratum
            return s
        # unpaired: draw strata come in pairs (A's units, B's units) per stratum
        return s.reshape(s.shape[:-2] + (self.n_strata, 2, s.shape[-1])).sum(axis=-2)

    def phi(self, which: str, M: np.ndarray, count: bool = False) -> np.ndarray:
        k, metric = self.design.k, self.design.metric
        out = None
        for system, sl in (("a", slice(0, k)), ("b", slice(k, 2 * k))):
            if which not in (system, "diff"):
                continue
            values, n_bad = metric.evaluate(M[..., sl])
            values = values.reshape(M.shape[:-1])
            if count:
                self._count_undefined(system, n_bad, values.size)
            out = values if out is None else values - out
        return out

    def _count_undefined(self, system: str, n_bad: int, n_values: int) -> None:
        self.undefined[system][0] += n_bad
        self.undefined[system][1] += n_values

    def _value(self, which, M, coef, combined, count=False) -> np.ndarray:
        """The estimand on merged sums ``M`` of shape (..., H, 2k)."""
        if combined:
            pooled, key = self._pooled(M, coef)
            return self._system_values(which, pooled, key, count)
        values = self._system_values(which, M, ("separate", M is self.M), count)
        nonzero = np.flatnonzero(coef)  # (one stratum's own estimand: one column)
        return values[..., nonzero] @ coef[nonzero]

    def _pooled(self, M, coef) -> tuple[np.ndarray, tuple]:
        """The sums of all strata weighted by ``coef``, computed once, and their key."""
        key = ("pooled", M is self.M, coef.tobytes())
        if key not in self._separate:
            self._separate[key] = np.einsum("...hk,h->...k", M, coef)
        return self._separate[key], key

    def _system_values(self, which: str, sums: np.ndarray, key: tuple, count: bool):
        """``phi(which, sums)``, computed once per system and kept under ``key``.

        Every estimand on the same sums reuses them (every stratum's own, on separate
        sums), and "diff" is B's values minus A's, as in ``phi``.  Undefined values are
        counted once per system, at the first request that counts them.
        """
        key = (which, *key)
        if which == "diff":
            if key not in self._separate:
                b = self._system_values("b", sums, key[1:], False)
                self._separate[key] = b - self._system_values("a", sums, key[1:], False)
            return self._separate[key]
        if key not in self._separate:
            sl = slice(0, self.design.k) if which == "a" else slice(self.design.k, self.k2)
            values, n_bad = self.design.metric.evaluate(sums[..., sl])
            self._separate[key] = values.reshape(sums.shape[:-1])
            self._uncounted[key] = n_bad
        if count and key in self._uncounted:
            self._count_undefined(which, self._uncounted.pop(key), self._separate[key].size)
        return self._separate[key]

    def _jackknife(self, which, coef, combined, est) -> list[np.ndarray]:
        """The estimand with each unit left out: one array per draw stratum of non-zero
        weight (leaving out a unit of a stratum without weight changes nothing, and adds
        nothing to the acceleration).  The stratum's other ``m - 1`` units keep its
        population weight: for a pooled estimand its sums are scaled by ``m / (m - 1)``,
        as a mean over them would be."""
        plan, d2h = self.design.plan, self.design.draw_to_stratum
        M_hat = self.M_hat[0]
        pooled = coef @ M_hat if combined else None
        base = None if combined else self._system_values(
            which, self.M_hat, ("separate", False), False)[0]
        out = []
        for d in np.flatnonzero(coef[d2h]).tolist():
            h, s, m = int(d2h[d]), int(plan.starts[d]), int(plan.sizes[d])
            # pooled: the stratum's m - 1 other units keep its population weight
            own = self.draw_observed[0, d, : self.k2]
            grow = m / (m - 1) if m > 1 else 1.0
            vals = np.empty(m)
            for c in range(0, m, _JACK_CHUNK):
                rows = plan.rows(s + c, s + min(c + _JACK_CHUNK, m))[:, : self.k2]
                if combined:
                    v = self.phi(which, pooled + coef[h] * ((own - rows) * grow - own))
                else:
                    v = est + coef[h] * (self.phi(which, M_hat[h] - rows) - base[h])
                vals[c : c + len(rows)] = v
            out.append(vals)
        return out

    def _gradient(self, which, M, coef, combined) -> np.ndarray:
        """Gradient of phi at every stratum's sums (combined: at the pooled sums, the same
        for every stratum)."""
        grad = self._kept_gradient(which, M, coef, combined)
        return np.broadcast_to(grad, M.shape) if combined else grad

    def _kept_gradient(self, which, M, coef, combined) -> np.ndarray:
        """:meth:`_gradient`, computed once per system and sums and kept: for the whole
        estimand and every stratum's own ("diff": B's minus A's)."""
        if combined:
            pooled, key = self._pooled(M, coef)
            at = pooled[..., None, :]
        else:
            at, key = M, ("separate", M is self.M)
        key = ("gradient", which, *key)
        if key not in self._separate:
            if which == "diff":
                self._separate[key] = (self._kept_gradient("b", M, coef, combined)
                                       - self._kept_gradient("a", M, coef, combined))
            else:
                self._separate[key] = self._gradient_at(which, at)
        return self._separate[key]

    def _gradient_at(self, which, at) -> np.ndarray:
        """Central differences of a system's phi at the sums ``at``, column by column
        (it depends on its own k columns only: the gradient is exactly zero in the other
        system's)."""
        k = self.design.k
        grad = np.zeros_like(at)
        moved = at.copy()  # one column moved at a time, then put back
        for j in range(0, k) if which == "a" else range(k, 2 * k):
            # relative steps, down to a thousandth of the column's typical sum: the
            # gradient does not depend on the scale of the statistics
            typical = float(np.abs(self.M_hat[..., j]).mean())
            floor = 1e-3 * typical if typical > 0 else 1.0
            step = 6e-6 * np.maximum(np.abs(at[..., j]), floor)
            moved[..., j] = at[..., j] + step
            up = self.phi(which, moved)
            moved[..., j] = at[..., j] - step
            grad[..., j] = (up - self.phi(which, moved)) / (2 * step)
            moved[..., j] = at[..., j]
        return grad

    def _variance(self, grad: np.ndarray, draw: np.ndarray, coef: np.ndarray,
                  key=None) -> np.ndarray:
        """Delta-method variance ``sum_d c_h^2 m_d g' Cov_d g``: each draw stratum's term
        (:meth:`_variance_terms`, kept under ``key`` when the gradient does not depend
        on ``coef``) weighted by its stratum's squared coefficient."""
        if key is None or key not in self._separate:
            terms = self._variance_terms(grad, draw)
            if key is not None:
                self._separate[key] = terms
        else:
            terms = self._separate[key]
        weight = coef[self.design.draw_to_stratum] ** 2
        used = np.flatnonzero(weight)  # another stratum's NaN must not reach this one
        return np.maximum(terms[:, used] @ weight[used], 0.0)

    def _variance_terms(self, grad: np.ndarray, draw: np.ndarray) -> np.ndarray:
        """``m_d g' Cov_d g`` for every replicate and draw stratum ``d``, shape (R, D).

        ``Cov_d`` is zero but for two varying columns (i <= j, the ``cross_pairs``):
        a column constant within the stratum does not vary.  Their mean product comes
        from the engine's sums of the centred products ``P_ij`` and centred values
        ``s_i``, so the term is the sum over those pairs of
        ``(2 - [i = j]) g_i g_j (P_ij - s_i s_j / m)``.
        """
        k2, d2h = self.k2, self.design.draw_to_stratum
        m = self.design.plan.sizes.astype(np.float64)
        g = grad if len(d2h) == self.n_strata else grad[:, d2h, :]  # paired: d2h = identity
        out = np.zeros(draw.shape[:2])
        size = np.zeros(draw.shape[:2])  # what the terms' rounding is relative to
        for p, (i, j) in enumerate(self.cross_pairs):
            mean_part = draw[..., self.centred[i]] * draw[..., self.centred[j]] / m
            gg = (1.0 if i == j else 2.0) * g[..., i] * g[..., j]
            out += gg * (draw[..., k2 + p] - mean_part)
            size += np.abs(gg) * (np.abs(draw[..., k2 + p]) + np.abs(mean_part))
        # Where the variance is 0 (a resample of units whose differences are equal: one
        # distinct unit, or constant differences) only rounding is left, which must not
        # pass for a tiny standard error (it would make t huge).  A few units of rounding
        # of the terms: two highly correlated systems keep a small genuine variance.
        out[np.abs(out) <= _VARIANCE_ULPS * 2.0**-53 * size] = 0.0
        return out

    def estimand(self, which: str, coef: np.ndarray, bca: bool, combined: bool) -> _Estimand:
        theta = self._value(which, self.M, coef, combined, count=which != "diff")
        est = float(self._value(which, self.M_hat, coef, combined)[0])
        if not math.isfinite(est):
            raise InputError(
                f"metric {self.design.metric.name!r} is undefined on the full data "
                f"({'system ' + which.upper() if which != 'diff' else 'a system'}): "
                "check the statistics (e.g. a zero denominator)"
            )
        ok = np.isfinite(theta)
        # Values that differ only by rounding (constant differences computed as
        # metric(B) - metric(A) from two sums) are one value: snap them to the estimate.
        tol = _ROUNDING_ULPS * 2.0**-53 * math.sqrt(self.design.n_items) * max(
            abs(est), self.scale)
        if ok.any() and np.ptp(theta[ok]) <= tol and abs(theta[ok][0] - est) <= tol:
            theta = np.where(ok, est, theta)
        influence = None
        if bca:
            influence = self._jackknife(which, coef, combined, est)
        se_hat, se_star = math.nan, None
        if self.cross_pairs is not None:
            keys = (None, None) if combined else (("terms", which, True),
                                                 ("terms", which, False))
            grad = self._gradient(which, self.M, coef, combined)
            se_star = np.sqrt(self._variance(grad, self.draw_sums, coef, keys[0]))[ok]
            grad_hat = self._gradient(which, self.M_hat, coef, combined)
            se_hat = float(
                np.sqrt(self._variance(grad_hat, self.draw_observed, coef, keys[1]))[0]
            )
        boot = Bootstrap.from_replicates(
            est, theta[ok], influence=influence, se_hat=se_hat, se_star=se_star
        )
        return _Estimand(theta, boot)

    def undefined_notes(self) -> list[tuple[type[Warning], str]]:
        m = self.design.metric
        notes = []
        for system, (n_bad, total) in self.undefined.items():
            if not n_bad:
                continue
            where = "resamples" if total == self.M.shape[0] else "resampled strata"
            if m.partly_undefined is not None:
                what = "partly undefined (e.g. a class with no tp, fp or fn)"
                fate = f"that part was taken as {m.undefined:g} (the metric's convention)"
            else:
                what = "undefined (e.g. 0/0)"
                fate = (
                    f"taken as {m.undefined:g} (the metric's convention)"
                    if not math.isnan(m.undefined)
                    else "left out of the interval"
                )
            notes.append((
                DegenerateDataWarning,
                f"metric {m.name!r} was {what} for system {system.upper()} in "
                f"{n_bad} of {total} {where}; {fate}",
            ))
        return notes


def _system_score(e: _Estimand, method: str, alpha: float) -> SystemScore:
    low, high = bounds(method, e.boot, alpha)
    return SystemScore(e.boot.estimate, ConfidenceInterval(low, high), e.boot.sd)


def _stratum_result(stat: _Statistic, design: Design, h: int, method, alpha, bca):
    w = np.zeros(len(design.weights))
    w[h] = 1.0
    e = stat.estimand("diff", w, bca, combined=False)
    low, high = bounds(method, e.boot, alpha)
    return StratumResult(
        name=design.strata_names[h],
        weight=float(design.weights[h]),
        n_items=int(design.items_per_stratum[h]),
        n_groups=int(design.units_per_stratum[h]) if design.n_groups is not None else None,
        estimate=e.boot.estimate,
        confidence_interval=ConfidenceInterval(low, high),
        standard_error=e.boot.sd,
        p_value=p_value(method, e.boot),
        score_a=float(stat._value("a", stat.M_hat, w, False)[0]),
        score_b=float(stat._value("b", stat.M_hat, w, False)[0]),
    )


# --- warnings ----------------------------------------------------------------------------


def _design_notes(design: Design, args) -> list[tuple[type[Warning], str]]:
    notes = []
    unit = "groups" if design.n_groups is not None else "items"
    n_units = design.n_groups if design.n_groups is not None else design.n_items
    where = ""
    sizes = design.plan.sizes
    if not args.paired and design.strata_names is None and sizes.min() != sizes.max():
        # unpaired samples of different sizes (n_items counts both): the smaller one
        n_units, where = int(sizes.min()), f" in {'AB'[int(sizes.argmin())]}'s sample"
    if n_units < SMALL_N:
        notes.append((
            SmallSampleWarning,
            f"only {n_units} {unit}{where}: with fewer than a few dozen independent {unit} the "
            "bootstrap interval and p-value are rough (treat as rough: they tend to be too "
            "narrow and too small)",
        ))
    if design.strata_names is not None:
        small = []
        for name, m in zip(design.strata_names, design.units_per_stratum.tolist()):
            if m == 1:
                notes.append((
                    SmallSampleWarning,
                    f"stratum {name!r} has a single {unit[:-1]}: its variance cannot be "
                    "estimated, so it adds nothing to the interval's width",
                ))
            elif m < SMALL_N:
                small.append(f"{name} ({m})")
        if small and n_units >= SMALL_N:  # (below, the overall warning says it all)
            notes.append((
                SmallSampleWarning,
                f"strata with fewer than {SMALL_N} {unit}: {', '.join(small[:10])}"
                + (" ..." if len(small) > 10 else "")
                + "; their own intervals (result.strata) are rough",
            ))
    sizes = design.group_sizes
    if sizes is not None and len(sizes) > 1:
        cv = float(sizes.std() / sizes.mean())
        if sizes.max() > 10 * np.median(sizes) or cv > 1.0:
            spread = (f"group sizes are very unequal (from {sizes.min():,} to "
                      f"{sizes.max():,} items, coefficient of variation {cv:.2f})")
            if args.group_weighting == "items":
                advice = ("the largest groups dominate; consider whether "
                          "group_weighting='groups' is the estimand you want")
            else:
                advice = ("each group's mean counts the same however few items it has; "
                          "consider whether group_weighting='items' is the estimand you want")
            notes.append((SmallSampleWarning, f"{spread}: {advice}"))
    tail = args.n_resamples * (1 - args.confidence_level) / 2
    if tail < 10:
        notes.append((
            SmallSampleWarning,
            f"{args.n_resamples} resamples leave only {tail:.3g} beyond each end of the "
            f"{args.confidence_level:g} interval; use at least "
            f"{math.ceil(20 / (1 - args.confidence_level)):,} resamples",
        ))
    return notes


def _interval_notes(diff: _Estimand, design, args, interval, mc, systems=()):
    notes = []
    theta = diff.boot.theta
    n_dropped = len(diff.replicates) - len(theta)
    if n_dropped:
        notes.append((
            DegenerateDataWarning,
            f"{n_dropped} of {len(diff.replicates)} resampled differences were undefined "
            "and are left out of the interval",
        ))
    units = "groups" if design.n_groups is not None else "items"
    # the studentized interval's dropped resamples: the difference's, else a system's
    for which, est in (("the", diff), *zip(("A's", "B's"), systems)):
        if est.boot.t_dropped:
            notes.append((
                DegenerateDataWarning,
                f"{est.boot.t_dropped} of {len(est.boot.theta)} resamples drew too few "
                f"distinct {units} to estimate a standard error (or their differences vary "
                "below what double precision resolves next to the scores) and are left out "
                f"of {which} studentized interval; prefer method='bca' or 'percentile'",
            ))
            break
    if any(math.isinf(v) for v in interval):
        notes.append((
            DegenerateDataWarning,
            f"the {args.method} interval is unbounded for these data; prefer "
            "method='bca' or 'percentile'",
        ))
    if len(theta) > 1 and theta[0] == theta[-1]:  # (one resample: the tail warning says it)
        notes.append((
            DegenerateDataWarning,
            f"every resampled difference equals {theta[0]:.6g}: the per-item differences "
            "are constant, so the interval has no width"
            + ("; BCa bounds are undefined (NaN)" if args.method == "bca" else ""),
        ))
    elif any(math.isnan(v) for v in interval):
        notes.append((
            DegenerateDataWarning,
            f"the {args.method} interval is undefined for these data (NaN); "
            "its bias correction or acceleration cannot be computed",
        ))
    low, high = interval
    if all(math.isfinite(v) for v in (*mc, low, high)) and high > low:
        if max(mc) > 0.05 * (high - low):
            notes.append((
                SmallSampleWarning,
                f"the Monte Carlo error of the endpoints (about ±{max(mc):.2g}) is over 5% of "
                f"the interval's width; increase the number of resamples (now "
                f"{args.n_resamples})",
            ))
    return notes

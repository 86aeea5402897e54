"""compare(): one system against another on the same test set, with a bootstrap interval."""

from __future__ import annotations

import math
import warnings as _warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pairboot._version import __version__
from pairboot.data import Design, build_design, check_arguments
from pairboot.engine import DrawPlan, resample_sums
from pairboot.errors import (
    DegenerateDataWarning,
    InputError,
    PairbootWarning,
    SmallSampleWarning,
)
from pairboot.intervals import Bootstrap, bounds, monte_carlo_error, p_value
from pairboot.metrics import Metric
from pairboot.result import CompareResult, ConfidenceInterval, StratumResult, SystemScore

SMALL_N = 30
"""Below this many independent units the interval is rough (the spec: 'a few dozen')."""

_JACK_CHUNK = 1 << 16
_SLOW_DRAWS = 50_000_000  # draws above which the numpy kernel takes seconds
_ROUNDING = 1e-9  # relative spread below which resampled values count as equal
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
    seed: int | None = None,
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
        resampled (the cluster bootstrap): items of a group are not independent.
    group_weighting : {"items", "groups"}
        With ``groups``: ``"items"`` estimates the mean over items (each drawn group
        carries the sum of its items' statistics and its item count); ``"groups"`` the
        mean of the group means (``metric="mean"`` only).  They differ when group sizes
        differ.
    strata : array_like, optional
        One stratum label per item: resampling is done within each stratum (groups kept
        whole inside their stratum) and the stratum differences are combined with
        ``strata_weights``.
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
    seed : int, optional
        Non-negative.  Without one, a seed is drawn and reported as ``result.seed``.
        The same seed gives the same answer whatever the machine's thread count.
    backend : {"auto", "numba", "numpy"}
        The resampling kernel; ``auto`` uses numba when it is installed and the job is
        large enough to repay its start-up (a deterministic rule on the job's size).
        Both draw the same items; their sums differ only by rounding.
    progress : callable, optional
        Called as ``progress(done)`` with the number of finished resamples.

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
    studentized = args.method == "studentized"
    plan = _with_cross_products(design.plan) if studentized else design.plan
    sums, engine = resample_sums(
        plan, args.n_resamples, args.seed, backend=args.backend, progress=progress
    )
    observed = _observed_sums(plan)
    stat = _Statistic(design, sums, observed, plan if studentized else None)
    notes: list[tuple[type[Warning], str]] = []
    notes += _design_notes(design, args)
    draws = args.n_resamples * len(plan.x)
    if "numpy" in engine and args.backend == "auto" and draws > _SLOW_DRAWS:
        notes.append((
            PairbootWarning,
            "numba is not installed, so the pure-numpy kernel ran (several times slower, "
            'same draws); for the fast path: pip install "pairboot[fast]"',
        ))

    alpha = 1.0 - args.confidence_level
    bca = args.method == "bca"
    diff = stat.estimand("diff", design.weights, bca)
    score_a = stat.estimand("a", design.weights, bca)
    score_b = stat.estimand("b", design.weights, bca)
    notes += stat.undefined_notes()

    low, high = bounds(args.method, diff.boot, alpha)
    p = p_value(args.method, diff.boot)
    mc = monte_carlo_error(args.method, diff.boot, alpha)
    notes += _interval_notes(diff, args, (low, high), mc)

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
        factor = ((_z(1 - alpha / 2) + _POWER_Z) * se / abs(estimate)) ** 2
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
        seed=args.seed,
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


def _z(p: float) -> float:
    from statistics import NormalDist

    return NormalDist().inv_cdf(p)


# --- sums -------------------------------------------------------------------------------


def _pairs(k: int) -> list[tuple[int, int]]:
    return [(i, j) for i in range(k) for j in range(i, k)]


def _with_cross_products(plan: DrawPlan) -> DrawPlan:
    """Append ``x_i * x_j`` (i <= j) so every replicate's covariance comes with its sums."""
    x = plan.rows(0, len(plan.x))
    prods = [x[:, i] * x[:, j] for i, j in _pairs(x.shape[1])]
    return DrawPlan.from_columns(np.column_stack([x, *prods]), plan.starts, plan.sizes)


def _observed_sums(plan: DrawPlan) -> np.ndarray:
    """(1, D, K): every draw stratum's sums on the data themselves."""
    out = np.empty((1, len(plan.starts), plan.n_columns))
    varying = np.isnan(plan.constant)
    for d, (s, m) in enumerate(zip(plan.starts.tolist(), plan.sizes.tolist())):
        out[0, d, varying] = plan.x[s : s + m].sum(axis=0)
        out[0, d, ~varying] = plan.constant[~varying] * m
    return out


# --- the statistic on the sums -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Estimand:
    replicates: np.ndarray  # (R,) possibly with NaN where undefined
    boot: Bootstrap


class _Statistic:
    """Metric differences on summed statistics: replicates, jackknife, standard errors.

    Every estimand is ``sum_h w_h * phi(M_h)`` over analysis strata ``h``, where ``M_h``
    are the merged sums of the stratum (paired: one draw stratum; unpaired: A's and B's)
    and ``phi`` is ``metric(B) - metric(A)``, ``metric(A)`` or ``metric(B)``.
    """

    def __init__(self, design: Design, sums, observed, cross_plan: DrawPlan | None):
        self.design = design
        self.k2 = 2 * design.k
        self.n_strata = len(design.weights)
        self.draw_sums = sums  # (R, D, K)
        self.draw_observed = observed  # (1, D, K)
        self.M = self._merge(sums[..., : self.k2])  # (R, H, 2k)
        self.M_hat = self._merge(observed[..., : self.k2])  # (1, H, 2k)
        self.cross_plan = cross_plan
        self.undefined = {"a": 0, "b": 0}
        self._phi_star: dict[str, np.ndarray] = {}
        self._phi_hat: dict[str, np.ndarray] = {}
        self._jack: dict[str, list[np.ndarray]] = {}
        self._grad_star: dict[str, np.ndarray] = {}
        self._grad_hat: dict[str, np.ndarray] = {}

    def _merge(self, s: np.ndarray) -> np.ndarray:
        out = np.zeros(s.shape[:-2] + (self.n_strata, s.shape[-1]))
        for d, h in enumerate(self.design.draw_to_stratum.tolist()):
            out[..., h, :] += s[..., d, :]
        return out

    def phi(self, which: str, M: np.ndarray, count: bool = False) -> np.ndarray:
        k, metric = self.design.k, self.design.metric
        out = None
        for system, sl in (("a", slice(0, k)), ("b", slice(k, 2 * k))):
            if which not in (system, "diff"):
                continue
            values, n_bad = metric.evaluate(M[..., sl])
            values = values.reshape(M.shape[:-1])
            if count:
                self.undefined[system] += n_bad
            if which == "diff":
                out = values if out is None else values - out
            else:
                out = values
        return out

    def phi_star(self, which: str) -> np.ndarray:
        if which not in self._phi_star:
            self._phi_star[which] = self.phi(which, self.M, count=which != "diff")
        return self._phi_star[which]

    def phi_hat(self, which: str) -> np.ndarray:
        if which not in self._phi_hat:
            self._phi_hat[which] = self.phi(which, self.M_hat)[0]
        return self._phi_hat[which]

    def jackknife(self, which: str) -> list[np.ndarray]:
        """phi of every unit's stratum with that unit left out: one array per draw stratum."""
        if which not in self._jack:
            plan, d2h = self.design.plan, self.design.draw_to_stratum
            out = []
            for d, (s, m) in enumerate(zip(plan.starts.tolist(), plan.sizes.tolist())):
                h = d2h[d]
                vals = np.empty(m)
                for c in range(0, m, _JACK_CHUNK):
                    rows = plan.rows(s + c, s + min(c + _JACK_CHUNK, m))[:, : self.k2]
                    vals[c : c + len(rows)] = self.phi(which, self.M_hat[0, h] - rows)
                out.append(vals)
            self._jack[which] = out
        return self._jack[which]

    def _gradient(self, which: str, M: np.ndarray) -> np.ndarray:
        """Central-difference gradient of phi with respect to the merged sums."""
        grad = np.empty_like(M)
        for j in range(M.shape[-1]):
            step = 6e-6 * np.maximum(np.abs(M[..., j]), 1.0)
            up, down = M.copy(), M.copy()
            up[..., j] += step
            down[..., j] -= step
            grad[..., j] = (self.phi(which, up) - self.phi(which, down)) / (2 * step)
        return grad

    def _variance(self, grad: np.ndarray, draw: np.ndarray, w: np.ndarray) -> np.ndarray:
        """Delta-method variance ``sum_d w_h^2 m_d g' Cov_d g`` from the summed products."""
        k2, sizes = self.k2, self.design.plan.sizes
        pairs = _pairs(k2)
        var = np.zeros(draw.shape[0])
        for d, h in enumerate(self.design.draw_to_stratum.tolist()):
            if w[h] == 0:
                continue
            m = float(sizes[d])
            mean = draw[:, d, :k2] / m
            second = np.empty((draw.shape[0], k2, k2))
            for p, (i, j) in enumerate(pairs):
                second[:, i, j] = second[:, j, i] = draw[:, d, k2 + p] / m
            cov = second - mean[:, :, None] * mean[:, None, :]
            g = grad[:, h, :]
            var += w[h] ** 2 * m * np.einsum("ri,rij,rj->r", g, cov, g)
        return np.maximum(var, 0.0)

    def estimand(self, which: str, w: np.ndarray, bca: bool) -> _Estimand:
        theta = self.phi_star(which) @ w
        est = float(self.phi_hat(which) @ w)
        if not math.isfinite(est):
            raise InputError(
                f"metric {self.design.metric.name!r} is undefined on the full data "
                f"({'system ' + which.upper() if which != 'diff' else 'a system'}): "
                "check the statistics (e.g. a zero denominator)"
            )
        ok = np.isfinite(theta)
        # Values that differ only by rounding (constant differences computed as
        # metric(B) - metric(A) from two sums) are one value: snap them to the estimate.
        tol = _ROUNDING * max(abs(est), float(np.max(np.abs(self.phi_hat("b")))),
                              float(np.max(np.abs(self.phi_hat("a")))))
        if ok.any() and np.ptp(theta[ok]) <= tol and abs(theta[ok][0] - est) <= tol:
            theta = np.where(ok, est, theta)
        influence = None
        if bca:
            base = self.phi_hat(which)
            influence = [
                est + w[h] * (jack - base[h])
                for jack, h in zip(self.jackknife(which), self.design.draw_to_stratum.tolist())
            ]
            if all(len(j) == 0 or np.ptp(j) <= tol for j in influence):
                influence = [np.full(len(j), est) for j in influence]
        se_hat, se_star = math.nan, None
        if self.cross_plan is not None:
            if which not in self._grad_star:
                self._grad_star[which] = self._gradient(which, self.M)
                self._grad_hat[which] = self._gradient(which, self.M_hat)
            se_star = np.sqrt(self._variance(self._grad_star[which], self.draw_sums, w))[ok]
            se_hat = float(np.sqrt(self._variance(self._grad_hat[which], self.draw_observed, w))[0])
        boot = Bootstrap.from_replicates(
            est, theta[ok], influence=influence, se_hat=se_hat, se_star=se_star
        )
        return _Estimand(theta, boot)

    def undefined_notes(self) -> list[tuple[type[Warning], str]]:
        m = self.design.metric
        notes = []
        total = self.M.shape[0] * self.n_strata
        for system, n_bad in self.undefined.items():
            if not n_bad:
                continue
            where = "resamples" if self.n_strata == 1 else "resampled strata"
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
    e = stat.estimand("diff", w, bca)
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
        score_a=float(stat.phi_hat("a")[h]),
        score_b=float(stat.phi_hat("b")[h]),
    )


# --- warnings ----------------------------------------------------------------------------


def _design_notes(design: Design, args) -> list[tuple[type[Warning], str]]:
    notes = []
    unit = "groups" if design.n_groups is not None else "items"
    n_units = design.n_groups if design.n_groups is not None else design.n_items
    if n_units < SMALL_N:
        notes.append((
            SmallSampleWarning,
            f"only {n_units} {unit}: with fewer than a few dozen independent {unit} the "
            "bootstrap interval is rough (treat as rough; it tends to be too narrow)",
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
            notes.append((
                SmallSampleWarning,
                f"group sizes are very unequal (from {sizes.min()} to {sizes.max()} items, "
                f"coefficient of variation {cv:.2f}): the largest groups dominate; "
                "consider whether group_weighting='groups' is the estimand you want",
            ))
    tail = args.n_resamples * (1 - args.confidence_level) / 2
    if tail < 10:
        notes.append((
            SmallSampleWarning,
            f"n_resamples={args.n_resamples} leaves only {tail:.3g} resamples beyond each "
            f"end of the {args.confidence_level:g} interval; use at least "
            f"{math.ceil(20 / (1 - args.confidence_level)):,}",
        ))
    return notes


def _interval_notes(diff: _Estimand, args, interval, mc) -> list[tuple[type[Warning], str]]:
    notes = []
    theta = diff.boot.theta
    n_dropped = len(diff.replicates) - len(theta)
    if n_dropped:
        notes.append((
            DegenerateDataWarning,
            f"{n_dropped} of {len(diff.replicates)} resampled differences were undefined "
            "and are left out of the interval",
        ))
    if len(theta) and theta[0] == theta[-1]:
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
                f"the interval's width; increase n_resamples (now {args.n_resamples})",
            ))
    return notes

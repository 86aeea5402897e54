"""Several runs per system: intervals that cover training seeds and sampled generations.

``compare(a, b, runs="seeds" | "samples")`` takes each system's scores as items x runs.
The estimate is the difference of the grand means; its variance comes from the two-way
(items x runs) analysis of variance, and the interval is a t interval with Satterthwaite's
degrees of freedom (the run mean squares taken at an upper bound that depends on the
level, see :func:`_satterthwaite`):

* ``"seeds"``, runs unpaired (system s has ``R_s`` runs)::

      V = S2_D / n + sum_s max(0, MS_run,s - MS_res,s) / (n R_s)

  ``D_i`` the item's difference of run means.  In the random-effects model ``y_ir = mu +
  a_i + b_r + e_ir`` of each system (item effects shared between systems), ``E[S2_D] =
  var(a_B - a_A) + sum_s var(e_s) / R_s`` and ``E[MS_run - MS_res] = n var(b)``: ``V``
  is unbiased for the variance of the estimate (before the truncation at 0).
* ``"seeds"`` with ``paired_runs`` (run r of A and of B share a seed): on the differences
  ``d_ir``, ``V = (MS_item + MS_run - MS_res) / (n R)``.
* ``"samples"`` (sampled generations, no meaning across items): the items' mean scores are
  the items' scores (Miller 2024), ``V = S2_D / n``, and the interval is the item
  bootstrap of :func:`pairboot.compare` on the item means.

For ``"seeds"``, the bootstrap draws the items (one draw shared by every system and run)
and each system's runs (one draw shared by both systems under ``paired_runs``); a crossed
table has no exact bootstrap (McCullagh 2000) and this one shrinks the run term by
``(R - 1) / R``, so its replicates are rescaled to ``V`` and the interval is ``estimate +-
t(df) sqrt(V)``.  Pooled metrics (``"seeds"``) use the linearised values of
:mod:`pairboot.comparisons.runs.two`.  With groups and strata the mean squares become design
variances
(:mod:`pairboot.comparisons.runs.variance`, :func:`analyse`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pairboot.comparisons.runs.variance import Layout
from pairboot.core.design import as_floats
from pairboot.errors import InputError, SmallSampleWarning
from pairboot.stats.tdist import chi2_quantile, t_quantile, t_sf

__all__ = ["RUNS", "RunsInfo", "analyse", "run_term_level"]

RUNS = ("seeds", "samples")


# --- the analysis of variance ----------------------------------------------------------


def run_term_level(alpha: float) -> float:
    """The level at which a run mean square enters the degrees of freedom, for a two-sided
    interval at ``1 - alpha``: ``sqrt(2 alpha)``, at most 1/2 (0.32 at 95%, 0.13 at
    99.2%).  See :func:`_satterthwaite`."""
    return min(0.5, math.sqrt(2.0 * alpha))


def _satterthwaite(terms: list[tuple[float, float, bool]], floor: float = 1.0,
                   alpha: float = 0.05) -> float:
    """Degrees of freedom of ``sum c_k MS_k`` given ``(c_k MS_k, df_k, is_run)`` triples:
    Satterthwaite's formula, at least ``floor``.

    The plug-in formula is too large exactly when a few-df run term happens to come out
    small, and then the t interval under-covers (0.924 for paired runs at 3 seeds).  So a
    run mean square enters the formula (not ``V``) at the upper end of a one-sided
    interval for its expectation, ``MS df / chi2_df(p)`` with ``p = sqrt(2 alpha)``
    (:func:`run_term_level`; 2.6 MS at 2 df and 95%, 1.1 MS at 50): 0.94-0.95 there,
    0.96 instead of 0.95 in the issue's design.  A fixed ``p = 1/3`` did as well at 95%
    but covered 0.986 at 99.2% (Bonferroni's level for 6 comparisons); ``sqrt(2 alpha)``
    covers 0.991-0.993 there (docs/runs.md).  The callers floor it at the fewest degrees of freedom
    of a run term (``R_s - 1``): with the subtracted ``MS_res`` the formula falls far
    below that when the run variance is small next to the residual one (0.16 at three
    runs: an interval of +-750,000 on scores of sd 1)."""
    level = run_term_level(alpha)
    scaled = [(value * dof / chi2_quantile(level, dof) if is_run else value, dof)
              for value, dof, is_run in terms]
    total = sum(value for value, _ in scaled)
    denom = sum(value * value / dof for value, dof in scaled if dof > 0)
    return max(floor, 1.0, total * total / denom) if denom > 0 else math.inf


@dataclass(frozen=True)
class RunsInfo:
    """What several runs per system add to a result.

    ``variance_components``: per system (``"A"``, ``"B"``, or ``"B - A"`` for the paired
    differences) the estimated variances ``item``, ``run`` and ``residual`` (``within``
    for ``"samples"``) of one score (with groups: of a group's mean, roughly) and each
    part's share of the estimate's variance.  ``variance``: ``V``;
    ``degrees_of_freedom``: Satterthwaite's, at the result's level; ``runs_a``,
    ``runs_b``: each system's number of runs (for ``"samples"``, the mean number per
    item); ``n_items``: the units drawn (items, or groups with groups).
    """

    kind: str
    paired_runs: bool
    runs_a: float
    runs_b: float
    n_items: int
    variance: float
    degrees_of_freedom: float
    variance_components: dict
    item_part: float
    """The estimate's variance from the items (``sigma2_item / n``), for projections."""
    run_parts: tuple[float, ...]
    """Per system (or the paired differences): ``sigma2_run``."""
    residual_parts: tuple[float, ...]
    """Per system: ``sigma2_res`` (or ``within`` for samples)."""
    bootstrap_variance: float = math.nan
    """``"seeds"``: the two-way bootstrap's own variance of the replicates, before they
    are rescaled to ``variance`` (it shrinks the run term by about ``(R - 1) / R``)."""
    terms: tuple = ()
    """``"seeds"``: the ``(c_k MS_k, df_k, is_run)`` terms of ``V`` (for :meth:`df_at`)."""
    df_floor: float = 1.0

    def df_at(self, alpha: float) -> float:
        """The degrees of freedom for a two-sided interval at ``1 - alpha`` (they depend on
        the level a little: :func:`_satterthwaite`)."""
        if not self.terms:
            return self.degrees_of_freedom
        return _satterthwaite(list(self.terms), floor=self.df_floor, alpha=alpha)

    def interval(self, estimate: float, alpha: float, alternative: str = "two-sided"
                 ) -> tuple[float, float]:
        """``estimate +- t(1 - alpha / 2; df_at(alpha)) sqrt(V)`` (the point when ``V`` is
        0; infinite when ``alpha`` is 0).  One-sided ("greater": ``[low, inf)``, "less":
        ``(-inf, high]``), the finite end is the two-sided one at ``1 - 2 alpha``:
        ``t(1 - alpha; df_at(2 alpha))``."""
        if alternative == "two-sided":
            return self._two_sided(estimate, alpha)
        se = math.sqrt(self.variance)
        if se == 0 or alpha <= 0:
            end = float(estimate) if se == 0 else math.inf
            return (float(estimate) if se == 0 else -math.inf, math.inf) if (
                alternative == "greater") else (-math.inf, end)
        q = t_quantile(1.0 - alpha, self.df_at(min(1.0, 2.0 * alpha))) * se
        return ((float(estimate - q), math.inf) if alternative == "greater"
                else (-math.inf, float(estimate + q)))

    def _two_sided(self, estimate: float, alpha: float) -> tuple[float, float]:
        se = math.sqrt(self.variance)
        if se == 0:
            return float(estimate), float(estimate)
        if alpha <= 0:
            return -math.inf, math.inf
        half = t_quantile(1.0 - alpha / 2.0, self.df_at(alpha)) * se
        return float(estimate - half), float(estimate + half)

    def p_value(self, estimate: float, alternative: str = "two-sided") -> float:
        """The p-value that matches :meth:`interval` at every level; one-sided, half the
        two-sided one on the estimate's side of 0, else its complement (``P(T > t)``
        with fixed degrees of freedom)."""
        p = self._p_two_sided(estimate)
        if alternative == "two-sided" or math.isnan(p):
            return p
        if estimate == 0:
            return 0.5 if math.sqrt(self.variance) > 0 else 1.0
        on_side = (estimate > 0) == (alternative == "greater")
        return 0.5 * p if on_side else 1.0 - 0.5 * p

    def _p_two_sided(self, estimate: float) -> float:
        """The two-sided p-value that matches :meth:`interval` at every level: the
        smallest ``alpha`` whose interval excludes 0 (bisected on ``log alpha``; with
        fixed degrees of freedom it is ``2 P(T > |t|)``)."""
        se = math.sqrt(self.variance)
        if se == 0:
            return 1.0 if estimate == 0 else 0.0
        t = abs(estimate) / se

        def excludes(alpha: float) -> bool:  # the interval at 1 - alpha excludes 0
            return 2.0 * t_sf(t, self.df_at(alpha)) < alpha

        if not self.terms:
            return min(1.0, 2.0 * t_sf(t, self.degrees_of_freedom))
        if not excludes(1.0 - 1e-12):
            return 1.0
        lo, hi = -40.0, math.log(1.0 - 1e-12)  # log alpha: excludes at hi, maybe not lo
        if excludes(math.exp(lo)):
            return 2.0 * t_sf(t, self.df_at(math.exp(lo)))
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            if excludes(math.exp(mid)):
                hi = mid
            else:
                lo = mid
            if hi - lo < 1e-10:
                break
        return math.exp(hi)

    def projection(self, n_items: int | None = None, n_runs: int | None = None, *,
                   runs_factor: float | None = None) -> dict:
        """The variance and interval width with ``n_items`` units (items, or groups) and
        ``n_runs`` runs per system, or each system's runs times ``runs_factor`` (default:
        as now): ``{"variance", "width_ratio", "floor"}``; ``floor`` is the variance more
        items cannot lower (``sum sigma2_run / R``).  ``width_ratio`` is against the same
        components at the present design (the t quantile's change left out)."""
        now = [self.runs_a, self.runs_b] if not self.paired_runs else [self.runs_a]
        runs = list(now)
        if n_runs is not None:
            runs = [float(n_runs)] * len(runs)
        if runs_factor is not None:
            runs = [r * float(runs_factor) for r in runs]
        n = self.n_items if n_items is None else int(n_items)
        if n < 2 or any(r < 1 for r in runs):
            raise InputError("projection needs at least 2 items and 1 run", param="n_items")
        variance, floor = self._variance_at(n, runs)
        present, _ = self._variance_at(self.n_items, now)
        ratio = math.sqrt(variance / present) if present > 0 else math.nan
        return {"variance": float(variance), "width_ratio": float(ratio),
                "floor": float(floor)}

    def _variance_at(self, n: float, runs: list[float]) -> tuple[float, float]:
        floor = sum(s / r for s, r in zip(self.run_parts, runs))
        variance = self.item_part * self.n_items / n + floor + sum(
            s / (n * r) for s, r in zip(self.residual_parts, runs))
        return variance, floor

    def to_dict(self) -> dict:
        return {
            "kind": self.kind, "paired_runs": self.paired_runs, "runs_a": self.runs_a,
            "runs_b": self.runs_b, "variance": self.variance,
            "degrees_of_freedom": self.degrees_of_freedom, "n_units": self.n_items,
            "bootstrap_variance": (None if math.isnan(self.bootstrap_variance)
                                   else self.bootstrap_variance),
            "variance_components": self.variance_components,
            "projection": {"twice_the_items": self.projection(n_items=2 * self.n_items),
                           "twice_the_runs": self.projection(runs_factor=2.0)},
        }


def as_table(values, name: str, kind: str) -> np.ndarray:
    """A system's items x runs scores as a float array (NaN allowed for ``"samples"``)."""
    y = as_floats(values, name)
    if y.ndim == 1:
        y = y[:, None]
    y = np.ascontiguousarray(y)  # the same answer, to the bit, whatever the memory layout
    if y.ndim != 2:
        raise InputError(f"`{name}` must be items x runs (2-D) with `runs`, got "
                         f"{y.ndim} dimensions (a pooled metric takes items x runs x "
                         "statistics, with `metric`)",
                         param=name)
    bad = np.isinf(y) | (np.isnan(y) if kind == "seeds" else np.zeros_like(y, dtype=bool))
    if bad.any():
        i, j = np.argwhere(bad)[0]
        why = "missing (NaN: every run scores every item with runs='seeds')" \
            if np.isnan(y[i, j]) else "not finite"
        raise InputError(f"`{name}` item {i}, run {j} is {why}", param=name)
    if kind == "samples":
        empty = np.isnan(y).all(axis=1)
        if empty.any():
            raise InputError(f"`{name}` item {int(np.argmax(empty))} has no sample", param=name)
    return y


def run_terms(y: np.ndarray, layout: Layout) -> tuple[float, float]:
    """``(S2_r, V_res)`` of one items x runs table: the variance across runs of the runs'
    estimates, and what the residual (item x run) noise adds to one run's estimate.

    The residuals are ``y_ir - ybar_i. - (est_r - mean(est))``; ``V_res`` is their design
    variance summed over runs over ``R - 1``.  Plainly, ``S2_r = MS_run / n`` and ``V_res
    = MS_res / n``, so ``(S2_r - V_res) / R`` is the run part of the two-way analysis."""
    r = y.shape[1]
    per_run = layout.estimate(y)
    resid = y - y.mean(axis=1)[:, None] - (per_run - per_run.mean())[None, :]
    return float(per_run.var(ddof=1)), float(layout.variance(resid).sum() / (r - 1))


def analyse(ya: np.ndarray, yb: np.ndarray, kind: str, paired_runs: bool,
            layout: Layout | None = None, alpha: float = 0.05) -> RunsInfo:
    """``V``, its degrees of freedom (for a two-sided interval at ``1 - alpha``) and the
    variance components of ``B - A``.

    ``layout``: the items' weights, groups and strata (:mod:`pairboot.comparisons.runs.variance`;
    plain items
    by default).  The two-way mean squares become design variances: the items' term is
    the design variance of the items' differences ``D``, a run term is the spread of the
    runs' estimates less what the residual noise adds to it (:func:`run_terms`), and the
    items' degrees of freedom are the units' less the strata."""
    n = ya.shape[0]
    if yb.shape[0] != n:
        raise InputError(f"`a` and `b` must score the same items: {n} and {yb.shape[0]}",
                         param="b")
    if n < 2:
        raise InputError("several runs per system need at least two items", param="a")
    layout = Layout.plain(n) if layout is None else layout
    if layout.degrees_of_freedom < 1:
        if layout.grouped:
            raise InputError("several runs per system with `groups` need at least two "
                             "groups in a stratum", param="groups")
        raise InputError("several runs per system need at least two items in a stratum",
                         param="strata")
    if kind == "samples":
        return _samples(ya, yb, layout)
    if paired_runs:
        return _paired(ya, yb, layout, alpha)
    return _unpaired(ya, yb, layout, alpha)


def _samples(ya: np.ndarray, yb: np.ndarray, layout: Layout) -> RunsInfo:
    """``"samples"``: ``V`` is the design variance of the items' mean differences; the
    split shows what the samples' own noise (``within``) adds to it."""
    units = layout.n_units
    variance = layout.variance(np.nanmean(yb, axis=1) - np.nanmean(ya, axis=1))
    within, noise = [], []
    for y in (ya, yb):
        k = (~np.isnan(y)).sum(axis=1)
        dev = y - np.nanmean(y, axis=1)[:, None]
        dof_w = (k - 1).sum()
        within.append(float(np.nansum(dev ** 2) / dof_w) if dof_w > 0 else 0.0)
        noise.append(float((layout.weights ** 2 / k).sum()))  # sum_i w_i^2 / k_i
    parts_w = [w * c for w, c in zip(within, noise)]
    if sum(parts_w) > variance:  # the within parts, estimated apart, exceed V: scaled
        parts_w = [p * variance / sum(parts_w) for p in parts_w]
    item_part = variance - sum(parts_w)
    item_part = item_part if item_part > 1e-12 * variance else 0.0  # (rounding)
    total = variance if variance > 0 else math.nan
    components = {
        "B - A": {"item": _share(item_part * units, item_part, total)},
        "A": {"within": _share(within[0], parts_w[0], total)},
        "B": {"within": _share(within[1], parts_w[1], total)},
    }
    counts = [float((~np.isnan(y)).sum(axis=1).mean()) for y in (ya, yb)]
    # for projections: part = residual / (units k), k the mean samples per item
    residual = tuple(p * units * k for p, k in zip(parts_w, counts))
    return RunsInfo("samples", False, counts[0], counts[1], units, variance,
                    float(layout.degrees_of_freedom), components, item_part, (0.0, 0.0),
                    residual)


def _paired(ya: np.ndarray, yb: np.ndarray, layout: Layout, alpha: float) -> RunsInfo:
    """``"seeds"`` with paired runs: the analysis of the table of differences."""
    if ya.shape[1] != yb.shape[1]:
        raise InputError(f"`paired_runs` needs as many runs of A as of B: "
                         f"{ya.shape[1]} and {yb.shape[1]}", param="paired_runs")
    r = ya.shape[1]
    if r < 2:
        raise InputError("`paired_runs` needs at least two runs", param="paired_runs")
    units, dof = layout.n_units, layout.degrees_of_freedom
    v_items = layout.variance(yb.mean(axis=1) - ya.mean(axis=1))
    spread, v_res = run_terms(yb - ya, layout)
    # V = (MS_item + MS_run - MS_res) / (n R) in the plain case, the run term kept in V
    # and in the df even when it comes out negative: truncating it at 0 dropped the run
    # df exactly when the run variance was underestimated, and max-t's family coverage
    # fell from 0.94 to 0.84 (4 systems, 3 paired seeds)
    variance = max(0.0, v_items + (spread - v_res) / r)
    terms = [(v_items, dof, False), (spread / r, r - 1, True),
             (-v_res / r, dof * (r - 1), False)]
    run = max(0.0, spread - v_res)
    # the split shown adds up to V: the residual's part, then the items' rest
    res_part = min(v_res / r, variance - run / r)
    item_part = variance - run / r - res_part
    res = res_part * r * units
    total = variance if variance > 0 else math.nan
    components = {"B - A": {"item": _share(item_part * units, item_part, total),
                            "run": _share(run, run / r, total),
                            "residual": _share(res, res_part, total)}}
    df = _satterthwaite(terms, floor=r - 1, alpha=alpha)
    return RunsInfo("seeds", True, float(r), float(r), units, variance, df, components,
                    item_part, (run,), (res,), terms=tuple(terms), df_floor=r - 1)


def _unpaired(ya: np.ndarray, yb: np.ndarray, layout: Layout, alpha: float) -> RunsInfo:
    """``"seeds"``, runs unpaired: the items' term of the differences, and each system's
    run term (truncated at 0: a system whose runs spread no more than its noise explains
    adds nothing, to ``V`` or to the df)."""
    units, dof = layout.n_units, layout.degrees_of_freedom
    v_items = layout.variance(yb.mean(axis=1) - ya.mean(axis=1))
    variance, terms = v_items, [(v_items, dof, False)]
    runs, res_parts, run_parts = [], [], []
    for y in (ya, yb):
        r = y.shape[1]
        runs.append(float(r))
        run = res = 0.0  # one run: its residual cannot be told from the items'
        if r > 1:
            spread, v_res = run_terms(y, layout)
            run, res = max(0.0, spread - v_res), v_res * units
            if run > 0:
                variance += run / r
                terms += [(spread / r, r - 1, True), (-v_res / r, dof * (r - 1), False)]
        run_parts.append(run)
        res_parts.append(res)
    # The residuals' parts are part of the items' term Vd(D); estimated apart, they can
    # exceed it, and are then scaled down to it, so that the parts add up to V and a
    # projection to the present design is the present V.
    noise = sum(s / (units * r) for s, r in zip(res_parts, runs))
    if noise > v_items:
        res_parts = [s * v_items / noise for s in res_parts]
    item_part = max(0.0, v_items - sum(s / (units * r) for s, r in zip(res_parts, runs)))
    total = variance if variance > 0 else math.nan
    components = {name: {"run": _share(run, run / r, total),
                         "residual": _share(res, res / (units * r), total)}
                  for name, run, res, r in zip(("A", "B"), run_parts, res_parts, runs)}
    components["B - A"] = {"item": _share(item_part * units, item_part, total)}
    floor = min((r - 1 for r, run in zip(runs, run_parts) if r > 1 and run > 0),
                default=1.0)
    df = _satterthwaite(terms, floor=floor, alpha=alpha)
    return RunsInfo("seeds", False, runs[0], runs[1], units, variance, df, components,
                    item_part, tuple(run_parts), tuple(res_parts), terms=tuple(terms),
                    df_floor=floor)


def _share(value: float, part: float, total: float) -> dict:
    """A component: its variance (of one score), its part of ``V``, and its share."""
    return {"variance": float(value), "part": float(part),
            "share": float(part / total) if math.isfinite(total) else math.nan}


ONE_RUN_EACH = (
    "`runs='seeds'` with one run of each system: the run-to-run variation cannot be "
    "estimated, so the interval covers the sampling of test items only, as without "
    "`runs`; give several runs (seeds) per system")
"""The warning of a seeds comparison whose systems have one run each."""


def small_runs_note(info: RunsInfo) -> list:
    """Warnings when the runs leave few degrees of freedom, or a system has one run."""
    if info.kind != "seeds":
        return []
    notes = []
    runs = (f"{info.runs_a:g} run(s)" if info.runs_a == info.runs_b
            else f"{info.runs_a:g} and {info.runs_b:g} runs")
    if info.degrees_of_freedom < 5:
        notes.append((SmallSampleWarning,
                      f"about {info.degrees_of_freedom:.1f} degrees of freedom from {runs}: "
                      "the run-to-run variation is estimated from few runs, so the interval "
                      "is wide (t quantile); more runs narrow it more than more items"))
    lone = [name for name, r in (("A", info.runs_a), ("B", info.runs_b)) if r == 1]
    if len(lone) == 2 and not info.paired_runs:
        notes.append((SmallSampleWarning, ONE_RUN_EACH))
    if lone and not info.paired_runs and len(lone) < 2:
        notes.append((SmallSampleWarning,
                      f"{lone[0]} has one run: its run-to-run variation cannot be estimated "
                      "and is counted as 0, so the interval covers the other system's runs "
                      "only"))
    return notes

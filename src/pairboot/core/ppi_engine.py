"""The prediction-powered estimates of M systems on one set of draws, for
:func:`pairboot.compare_ppi` and :func:`pairboot.compare_ppi_many`.

Every system has ``k`` per-item statistics: the score itself for a mean, the metric's
sufficient statistics for a pooled one (F1: the judge's tp, fp, fn on every item, the
gold's on the labelled ones).  Each statistic's mean is prediction-powered,
``mean_l(gold) + lam (mean_u(judge) - mean_l(judge))``, one ``lam`` for all of an
estimate's statistics, and the metric is its formula on the corrected means.  A *key*
is what is estimated: ``("s", i)`` system i's score, ``("d", i, j)`` system j minus
system i.  Each key has four estimates (*kinds*): ``"ppi"``, ``"gold"`` (the labelled
items' gold alone), ``"judge"`` (the judge on every item) and ``"bias"`` (gold minus
judge on the labelled items).

``lam`` is tuned (PPI++) on a key's per-item *linearisation*: the statistics times the
metric's gradient at the gold labels' means (the mean: the scores themselves, and for
B - A the per-item differences), so one rule tunes a mean and a pooled metric.  The
closed form's standard error is the delta method's: the same linearisation at the
estimate, through :func:`pairboot.stats.ppi.ppi_standard_error` (a mean's exactly
PPI++'s).  The bootstrap (PPBoot) sums the statistics of the labelled and the
unlabelled units of each resample (two draw strata per stratum, as
:mod:`pairboot.core.ppi` says) and recomputes every estimate of every key from them,
``lam`` held at its value on the data.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pairboot.core.design import seed_of
from pairboot.core.units import population_weights
from pairboot.engine import DrawPlan
from pairboot.errors import InputError
from pairboot.inputs.gold import MIN_GOLD, GoldScores
from pairboot.inputs.labels import group_strata, item_labels, plain, shown
from pairboot.metrics.base import Metric, central_gradient
from pairboot.results.ppi import JudgeCalls
from pairboot.stats.ppi import (
    mean_standard_error,
    ppi_estimate,
    ppi_standard_error,
    stratified_power_weight,
)

__all__ = ["KINDS", "Judged", "evaluated", "judged", "ppi_seed"]

KINDS = ("ppi", "gold", "judge", "bias")


@dataclass(frozen=True, slots=True)
class Judged:
    """The checked scores and their design: :func:`judged`."""

    scores: GoldScores
    strata: list
    """Every stratum's ``(rows, local group codes or None, local group count)``."""
    weights: np.ndarray
    n_strata: int | None
    codes: np.ndarray | None
    n_groups: int | None
    formula: Callable[[np.ndarray], np.ndarray] | None
    """The metric on mean statistics ``(..., k) -> (...)``; None: the mean (linear)."""

    def _f(self, mu: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return np.asarray(self.formula(mu), dtype=np.float64).reshape(mu.shape[:-1])

    def _grad(self, mu: np.ndarray, s: int) -> np.ndarray:
        typical = np.abs(self.scores.judge[:, s]).mean(axis=0)
        return central_gradient(self._f, np.asarray(mu, dtype=np.float64),
                                range(mu.shape[-1]), typical)

    def linear(self, x: np.ndarray, key, at: dict | None) -> np.ndarray:
        """Key ``key``'s per-item values of the statistics ``x`` (n, M, k): a mean's
        scores (or differences); a pooled metric's statistics times its gradient at
        ``at[s]`` (system s's mean statistics)."""
        if self.formula is None:
            if key[0] == "s":
                return x[:, key[1], 0]
            return x[:, key[2], 0] - x[:, key[1], 0]
        if key[0] == "s":
            return x[:, key[1]] @ self._grad(at[key[1]], key[1])
        i, j = key[1], key[2]
        return x[:, j] @ self._grad(at[j], j) - x[:, i] @ self._grad(at[i], i)

    # -- the means of every stratum, combined with the weights ------------------------

    def _means(self) -> dict:
        """``{"g", "l", "u", "all"}``: the weighted sums over the strata of each
        stratum's gold mean, judge mean on the labelled and unlabelled items, and
        judge mean on all items, each (M, k)."""
        lab, j, g = self.scores.labelled, self.scores.judge, self.scores.gold
        out = {name: 0.0 for name in ("g", "l", "u", "all")}
        for (rows, _, _), w in zip(self.strata, self.weights):
            lr = lab[rows]
            out["g"] = out["g"] + w * g[rows][lr].mean(axis=0)
            out["l"] = out["l"] + w * j[rows][lr].mean(axis=0)
            out["u"] = out["u"] + w * j[rows][~lr].mean(axis=0)
            out["all"] = out["all"] + w * j[rows].mean(axis=0)
        return out

    def power_weights(self, keys, lam: float | None, clip: bool) -> dict:
        """Every key's ``lam``: ``lam`` when given, else tuned on its linearisation at
        the gold labels' means (:func:`pairboot.stats.ppi.stratified_power_weight`)."""
        if lam is not None:
            return {key: lam for key in keys}
        lab = self.scores.labelled
        at = None if self.formula is None else self._means()["g"]
        out = {}
        for key in keys:
            jj = self.linear(self.scores.judge, key, at)
            gg = self.linear(np.where(lab[:, None, None], self.scores.gold, 0.0), key, at)
            parts = [(gg[rows][lab[rows]], jj[rows][lab[rows]], jj[rows][~lab[rows]])
                     for rows, _, _ in self.strata]
            out[key] = stratified_power_weight(parts, self.weights, clip)
        return out

    def undefined(self, metric: Metric, lams: list) -> list[tuple[str, int]]:
        """Where the pooled ``metric`` is undefined on the data (0/0: F1 with no tp, fp
        or fn), its convention's value taken: ``(kind, system)`` for the gold labels'
        means, the judge's on every item and the prediction-powered ones (system s
        corrected with ``lams[s]``)."""
        m = self._means()
        out = []
        for s, lam in enumerate(lams):
            points = {"gold": m["g"][s], "judge": m["all"][s],
                      "ppi": m["g"][s] + lam * (m["u"][s] - m["l"][s])}
            out += [(kind, s) for kind, at in points.items() if metric.evaluate(at)[1]]
        return out

    # -- the closed form ---------------------------------------------------------------

    def closed_forms(self, keys, lams: dict) -> dict:
        """``{(kind, key): (estimate, standard error)}``: every stratum's, combined with
        the weights (variances with the weights squared)."""
        lab = self.scores.labelled
        gold = np.where(lab[:, None, None], self.scores.gold, 0.0)
        means = None if self.formula is None else self._means()
        out: dict = {}
        for key in keys:
            for kind in KINDS:
                if self.formula is None:
                    est, at, at2 = None, None, None
                else:
                    est, at, at2 = self._pooled_point(kind, key, lams[key], means)
                gg = self.linear(gold, key, at)
                jj = self.linear(self.scores.judge, key, at2 if kind == "bias" else at)
                e0, v0 = 0.0, 0.0
                for (rows, local, n_local), w in zip(self.strata, self.weights):
                    e, se = _closed_form(kind, jj[rows], gg[rows], lab[rows], local,
                                         n_local, lams[key])
                    e0, v0 = e0 + w * e, v0 + (w * se) ** 2
                out[kind, key] = (float(e0 if est is None else est), float(np.sqrt(v0)))
        return out

    def _pooled_point(self, kind: str, key, lam: float, m: dict):
        """A pooled metric's estimate of ``kind`` for ``key``, and the points (system
        -> mean statistics) of its gradient (a second set for the judge's part of the
        bias)."""
        systems = [(key[1], 1.0)] if key[0] == "s" else [(key[1], -1.0), (key[2], 1.0)]
        at = {"ppi": m["g"] + lam * (m["u"] - m["l"]), "gold": m["g"],
              "judge": m["all"], "bias": m["g"]}[kind]
        est = sum(sign * self._f(at[s]) for s, sign in systems)
        if kind == "bias":
            est = est - sum(sign * self._f(m["l"][s]) for s, sign in systems)
        return float(est), at, m["l"]

    # -- the bootstrap -----------------------------------------------------------------

    def plan(self) -> tuple[DrawPlan, np.ndarray]:
        """The units and their draw strata, stratum by stratum: items, or groups; and
        the stratum of every draw stratum.  A unit's columns: its labelled and
        unlabelled counts, every system's gold and labelled judge sums, then every
        system's unlabelled judge sums."""
        lab, j = self.scores.labelled, self.scores.judge
        g = np.where(lab[:, None, None], self.scores.gold, 0.0)
        n, n_sys, k = j.shape
        jl, ju = np.where(lab[:, None, None], j, 0.0), np.where(lab[:, None, None], 0.0, j)
        x = np.concatenate([lab[:, None], ~lab[:, None],
                            np.concatenate([g, jl], axis=2).reshape(n, 2 * n_sys * k),
                            ju.reshape(n, n_sys * k)], axis=1).astype(np.float64)
        blocks, home = [], []
        for h, (rows, local, n_local) in enumerate(self.strata):
            xs = x[rows]
            if local is not None:
                xs = np.stack([np.bincount(local, weights=xs[:, c], minlength=n_local)
                               for c in range(xs.shape[1])], axis=1)
            labelled = xs[:, 0] > 0
            if (labelled & (xs[:, 1] > 0)).any():  # (a group with items of both kinds)
                blocks.append(xs)
                home.append(h)
                continue
            blocks += [xs[labelled], xs[~labelled]]
            home += [h, h]
        sizes = [len(b) for b in blocks]
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        return (DrawPlan.from_columns(np.concatenate(blocks), starts, sizes),
                np.asarray(home))

    def judge_calls(self) -> JudgeCalls | None:
        """The judge's calls per item and their within-item spread (None with one
        call per item): each call linearised as an item is (a mean: its score), the
        squared deviations from the item's mean pooled over the items."""
        calls = self.scores.calls
        if calls is None:
            return None
        at = None if self.formula is None else self._means()["all"]
        counts, spread = [], []
        for s, each in enumerate(calls):
            x = np.zeros(each.shape[:2] + (len(calls),) + each.shape[2:])
            x[:, :, s] = np.nan_to_num(each)
            present = ~np.isnan(each).all(axis=2)
            v = np.stack([self.linear(x[:, c], ("s", s), at) for c in range(x.shape[1])],
                         axis=1)
            v = np.where(present, v, np.nan)
            n_i = present.sum(axis=1)
            dev = np.nansum((v - np.nanmean(v, axis=1, keepdims=True)) ** 2)
            dof = int((n_i - 1).sum())
            counts.append(n_i)
            spread.append(float(np.sqrt(dev / dof)) if dof > 0 else float("nan"))
        every = np.concatenate(counts)
        return JudgeCalls(tuple(int(c.sum()) for c in counts), int(every.min()),
                          int(every.max()), tuple(spread))

    def replicates(self, sums: np.ndarray, home: np.ndarray, keys, lams: dict) -> dict:
        """Every estimate of every key in every resample, ``{(kind, key): (R,)}``, from
        the summed statistics ``sums`` (R, draw strata, columns) of :meth:`plan`."""
        n_sys, k = self.scores.judge.shape[1:]
        out: dict = {}
        acc: dict = {}
        for h, w in enumerate(self.weights):
            t = sums[:, home == h].sum(axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                nl, nu = t[:, 0, None, None], t[:, 1, None, None]
                pairs = t[:, 2:2 + 2 * n_sys * k].reshape(-1, n_sys, 2, k)
                unl = t[:, 2 + 2 * n_sys * k:].reshape(-1, n_sys, k)
                m = {"g": pairs[:, :, 0] / nl, "l": pairs[:, :, 1] / nl, "u": unl / nu,
                     "all": (pairs[:, :, 1] + unl) / (nl + nu)}
            if self.formula is not None:  # (the means combined, the metric after)
                for name, v in m.items():
                    acc[name] = acc.get(name, 0.0) + w * v
                continue
            for key in keys:  # (a mean: every stratum's estimate, combined)
                for kind, theta in _linear_estimates(m, key, lams[key]).items():
                    out[kind, key] = out.get((kind, key), 0.0) + w * theta
        if self.formula is not None:
            for key in keys:
                for kind in KINDS:
                    out[kind, key] = self._pooled_replicates(kind, key, lams[key], acc)
        return out

    def _pooled_replicates(self, kind: str, key, lam: float, m: dict) -> np.ndarray:
        systems = [(key[1], 1.0)] if key[0] == "s" else [(key[1], -1.0), (key[2], 1.0)]
        at = {"ppi": lambda s: m["g"][:, s] + lam * (m["u"][:, s] - m["l"][:, s]),
              "gold": lambda s: m["g"][:, s], "judge": lambda s: m["all"][:, s],
              "bias": lambda s: m["g"][:, s]}[kind]
        theta = sum(sign * self._f(at(s)) for s, sign in systems)
        if kind == "bias":
            theta = theta - sum(sign * self._f(m["l"][:, s]) for s, sign in systems)
        return theta


def _linear_estimates(m: dict, key, lam: float) -> dict:
    """A mean's four estimates of ``key`` in every resample, from one stratum's means
    ``m`` (each (R, M, 1))."""
    if key[0] == "s":
        v = {name: arr[:, key[1], 0] for name, arr in m.items()}
    else:
        v = {name: arr[:, key[2], 0] - arr[:, key[1], 0] for name, arr in m.items()}
    return {"ppi": v["g"] + lam * (v["u"] - v["l"]), "gold": v["g"], "judge": v["all"],
            "bias": v["g"] - v["l"]}


def _closed_form(kind: str, jj: np.ndarray, gg: np.ndarray, lab: np.ndarray,
                 codes: np.ndarray | None, n_groups: int, lam: float
                 ) -> tuple[float, float]:
    """One stratum's estimate and standard error of ``kind`` from its per-item
    (linearised) judge values ``jj`` and gold values ``gg`` (meaningful where
    labelled); ``codes`` its items' groups (None without)."""
    unl = ~lab
    cl = None if codes is None else (codes[lab], codes[unl])
    if kind == "ppi":
        return (ppi_estimate(gg[lab], jj[lab], jj[unl], lam),
                ppi_standard_error(gg[lab], jj[lab], jj[unl], lam, cl, n_groups))
    if kind == "gold":
        return float(gg[lab].mean()), mean_standard_error(
            gg[lab], None if cl is None else cl[0], n_groups)
    if kind == "judge":
        return float(jj.mean()), mean_standard_error(jj, codes, n_groups)
    return float((gg[lab] - jj[lab]).mean()), mean_standard_error(
        gg[lab] - jj[lab], None if cl is None else cl[0], n_groups)


def evaluated(metric: Metric) -> Callable[[np.ndarray], np.ndarray]:
    """The metric's value on mean statistics ``(..., k)``, undefined values replaced
    as :meth:`pairboot.Metric.evaluate` does (F1 with no positives: 0)."""
    def formula(mu: np.ndarray) -> np.ndarray:
        return metric.evaluate(mu)[0]
    return formula


def judged(scores: GoldScores, groups, strata, strata_weights, formula=None) -> Judged:
    """The design of checked scores: groups, and strata (each needs 2 labelled and 2
    unlabelled items) with their weights."""
    n = len(scores.labelled)
    codes, n_groups = None, None
    if groups is not None:
        codes, names = item_labels(groups, "groups", n)
        n_groups = len(names)
    if strata is None:
        if strata_weights is not None:
            population_weights(strata_weights, None, np.ones(1))  # (refused)
        return Judged(scores, [(np.arange(n), codes, n_groups or 0)], np.ones(1), None,
                      codes, n_groups, formula)
    scodes, snames = item_labels(strata, "strata", n)
    if codes is not None:
        group_strata(codes, np.arange(n_groups), scodes, snames)
    counts = np.bincount(scodes, minlength=len(snames)).astype(float)
    weights = population_weights(strata_weights, snames, counts / n)
    out = []
    for h, name in enumerate(snames):
        rows = np.flatnonzero(scodes == h)
        n_lab = int(scores.labelled[rows].sum())
        if min(n_lab, len(rows) - n_lab) < MIN_GOLD:
            raise InputError(f"`strata`: stratum {shown(plain(name))} has {n_lab} labelled of "
                             f"{len(rows)} items: each stratum needs {MIN_GOLD} labelled "
                             f"and {MIN_GOLD} unlabelled", param="strata")
        local, n_local = None, 0
        if codes is not None:
            _, local = np.unique(codes[rows], return_inverse=True)
            local = local.reshape(-1)
            n_local = int(local.max()) + 1
        out.append((rows, local, n_local))
    return Judged(scores, out, weights, len(snames), codes, n_groups, formula)


def ppi_seed(plan: DrawPlan, n_resamples: int) -> int:
    """The seed given none: a hash of the units, their strata and the resamples, so the
    same inputs give the same answer (:func:`pairboot.core.design.seed_of`)."""
    return seed_of(((plan.x, "<f8"), (plan.constant, "<f8"), (plan.starts, "<i8"),
                    (plan.sizes, "<i8")), (str(n_resamples),), person=b"pairboot-ppi")

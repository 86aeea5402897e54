"""Per-system values and contrasts on the replicates' sums: the M-system core.

The engine sums every replicate's unit statistics per draw stratum; merged per analysis
stratum they hold every system's statistics side by side, shape (R, H, M k).  A system's
value is its metric on its own k columns, computed once per set of sums and kept; a
contrast ``(i, j)`` is system j's value minus system i's on the same draws, so a family
of contrasts costs a subtraction each.  An estimand combines the strata with
coefficients ``c``, either

- *separately*: ``sum_h c_h phi(M_h)``, the spec's rule for a mean (the strata's means
  combined with the population weights); or
- *pooled*: ``phi(sum_h c_h M_h)``, a pooled metric computed once on the statistics
  reweighted to the population (with the sample shares, the plain pooled value).

The jackknife (BCa) and the studentized standard errors work per system and contrast.

A paired contrast among M systems draws the same units as compare() of the two systems
with the same seed (its replicates equal to rounding) wherever the units are drawn by
index.  The exact multinomial path draws counts over the distinct rows of all M systems'
statistics, and an unpaired design draws each system in its own draw stratum, so there a
contrast has compare()'s distribution but other draws.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from pairboot.core import studentized
from pairboot.core.design import Design
from pairboot.engine import DrawPlan, weighted_sum
from pairboot.errors import InputError
from pairboot.inputs.precision import exact_sums
from pairboot.metrics.base import central_gradient
from pairboot.stats.intervals import Bootstrap

Target = int | tuple[int, int]
"""System ``j``, or the contrast ``(i, j)``: system j's value minus system i's."""

JACK_CHUNK = 1 << 16
LOST_SHARE = 1e-3
"""A contrast snapped within a rounding larger than this share of its estimate has lost
its digits (:attr:`Estimate.digits_lost`)."""
ROUNDING_ULPS = 16.0
"""Resampled values count as equal when they spread less than this many units of
rounding (2**-53) times sqrt(items) times the size of the scores: the rounding of the
resampled sums grows like sqrt(n) (worst case n, on data that then do not vary)."""


def observed_sums(plan: DrawPlan, absolute: bool = False) -> np.ndarray:
    """(1, D, K): every draw stratum's sums on the data themselves (of ``|x|`` with
    ``absolute``, taken in chunks: no copy of all of x)."""
    out = np.zeros((1, len(plan.starts), plan.n_columns))
    varying = np.isnan(plan.constant)
    constant = np.abs(plan.constant) if absolute else plan.constant
    for d, (s, m) in enumerate(zip(plan.starts.tolist(), plan.sizes.tolist())):
        if absolute:
            for c in range(s, s + m, JACK_CHUNK):
                with np.errstate(over="ignore"):
                    out[0, d, varying] += np.abs(plan.x[c : min(c + JACK_CHUNK, s + m)]
                                                 ).sum(0)
        else:
            out[0, d, varying] = column_sums(plan.x[s : s + m])
        out[0, d, ~varying] = constant[~varying] * m
    return out


def column_sums(x: np.ndarray) -> np.ndarray:
    """Every column's sum, each column summed on its own (numpy's pairwise sum): the
    same bits whatever the other columns, so that swapping two systems negates their
    difference exactly (``x.sum(axis=0)`` adds row by row, in an order that depends
    on the number of columns)."""
    with np.errstate(over="ignore"):  # (an overflow is said where the sums are read)
        return np.array([x[:, j].sum() for j in range(x.shape[1])], dtype=np.float64)


@dataclass(slots=True, eq=False)
class Estimate:
    """An estimand's resampled values (NaN where undefined) and their summary."""

    replicates: np.ndarray
    boot: Bootstrap
    rounding: float = 0.0
    """How far the replicates may be off by the rounding of their sums."""
    snapped: bool = False
    """The replicates differed by no more than ``rounding`` and were made one value."""
    digits_lost: bool = False
    """A contrast of two systems' separate sums, snapped, whose rounding is not small
    against the estimate: its digits went to the systems' common level."""
    checked: bool = False
    """Snapped, and the data's exact value confirmed it (the differences are constant)."""
    se_star: np.ndarray | None = None
    """Every replicate's own standard error, aligned with :attr:`replicates` (NaN where
    it is undefined); None unless the studentized interval's sums were added."""


class Estimands:
    """Systems' values and contrasts on one set of replicates' sums.

    ``sums`` (R, D, K) and ``observed`` (1, D, K) are per draw stratum; ``cross`` says
    where the studentized interval's cross products are (None without).  ``names`` name
    the systems in messages (by default the design's).  ``absolute`` (1, D, K): the sums
    of ``|x|`` (by default from the design's plan), for the scale of rounding.
    ``exact``: per draw stratum, every column's exact sum
    (:func:`pairboot.inputs.precision.exact_sums`; by default from the plan's units when they
    are there), against which a contrast of separate sums is checked.
    """

    def __init__(self, design: Design, sums: np.ndarray, observed: np.ndarray,
                 cross: studentized.CrossProducts | None = None, names=None,
                 absolute: np.ndarray | None = None, exact=None):
        self.design = design
        self._exact = exact  # (per draw stratum, every column's exact sum; or None)
        self.names = tuple(design.names if names is None else names)
        if len(self.names) != design.n_systems:
            raise ValueError(f"{design.n_systems} systems need as many names, got {names!r}")
        self.width = design.width
        self.draw_sums = sums
        self.draw_observed = observed
        self.M = self._merge(sums[..., : self.width])  # (R, H, M k)
        self.M_hat = self._merge(observed[..., : self.width])  # (1, H, M k)
        self.cross = cross
        self.undefined = np.zeros((design.n_systems, 2), dtype=np.int64)
        """Per system: how many values were undefined, of how many evaluated."""
        self._kept: dict = {}
        self._uncounted: dict = {}
        # the metric on the sums of |x| too: scores of +-1e3 with a mean near 0 round
        # like scores of 1e3
        if absolute is None:
            absolute = observed_sums(design.plan, absolute=True)
        self.M_abs = self._merge(absolute[..., : self.width])
        self._through_differences: dict = {}
        self.scales = [self._size(j) for j in range(design.n_systems)]
        """Every system's size of scores, against which rounding is judged."""

    def _size(self, target: Target) -> float:
        """The largest size of the target's value on the data and on the sums of
        ``|x|``: the scale of its rounding.  A contrast read off the differences is
        judged by their sizes, not by the systems' level."""
        if isinstance(target, tuple) and not self.through_differences(target):
            return max(self.scales[j] for j in target)
        with np.errstate(all="ignore"):
            at_abs = self.metric_sums(target, self.M_abs, absolute=True)
            values = [self.phi(target, self.M_hat).ravel()]
            values.append(self.phi(target, self.M_abs).ravel() if at_abs is None else
                          self.design.metric.evaluate(at_abs)[0].ravel())
            sizes = np.abs(np.concatenate(values))
        finite = sizes[np.isfinite(sizes)]
        return float(finite.max()) if finite.size else 0.0

    def _merge(self, s: np.ndarray) -> np.ndarray:
        """Sums per analysis stratum from sums per draw stratum (unpaired: every
        system's draw of the stratum)."""
        if self.design.paired:  # one draw stratum per stratum
            return s
        n_strata, n_systems = self.design.n_strata, self.design.n_systems
        return s.reshape(s.shape[:-2] + (n_strata, n_systems, s.shape[-1])).sum(axis=-2)

    def through_differences(self, target: tuple[int, int]) -> bool:
        """Whether the contrast is read off the units' differences
        (:attr:`Design.differences`) rather than its systems' separate sums: always for
        two systems; for more, where the differences' sizes are the smaller (a third
        system's huge score makes the item's median, and so the differences, huge)."""
        if not self.design.differences:
            return False
        if target not in self._through_differences:
            design = self.design
            if design.n_systems == 2:
                use = True
            else:
                total = self.M_abs.sum(axis=tuple(range(self.M_abs.ndim - 1)))
                block = design.n_systems * design.k
                own = sum(float(total[design.columns(q).start]) for q in target)
                diff = sum(float(total[block + q]) for q in target)
                use = diff <= own
            self._through_differences[target] = use
        return self._through_differences[target]

    def metric_sums(self, target: Target, M: np.ndarray, absolute: bool = False
                    ) -> np.ndarray | None:
        """The sums the metric is evaluated on for ``target``, from the stored sums ``M``
        (..., width): a system's own columns; a contrast read off the differences
        (:meth:`through_differences`), system j's columns with its score replaced by
        the differences' contrast (``absolute``: their sizes added, for the scale of
        rounding).  None for a contrast otherwise (the difference of the two values)."""
        design = self.design
        if not isinstance(target, tuple):
            return M[..., design.columns(target)]
        if not self.through_differences(target):
            return None
        i, j = target
        block = design.n_systems * design.k
        if design.n_systems == 2:  # one column, b - a
            d = M[..., block]
            score = np.abs(d) if absolute else (d if (i, j) == (0, 1) else -d)
        else:
            di, dj = M[..., block + i], M[..., block + j]
            score = (np.abs(dj) + np.abs(di)) if absolute else dj - di
        out = M[..., design.columns(j)].copy()
        out[..., 0] = score
        return out

    def phi(self, target: Target, M: np.ndarray) -> np.ndarray:
        """The target's value on sums ``M`` (..., M k), uncached."""
        at = self.metric_sums(target, M)
        if at is None:
            i, j = target
            return self.phi(j, M) - self.phi(i, M)
        values, _ = self.design.metric.evaluate(at)
        return values.reshape(M.shape[:-1])

    # --- values, kept per system and set of sums ---------------------------------------

    def value(self, target: Target, coef: np.ndarray, combined: bool, *,
              observed: bool = False, count: bool = False) -> np.ndarray:
        """The estimand with stratum coefficients ``coef``: on every replicate's sums,
        shape (R,), or on the data's (``observed``), shape (1,)."""
        M = self.M_hat if observed else self.M
        if combined:
            pooled, key = self._pooled(observed, coef)
            return self._values(target, pooled, key, count)
        values = self._values(target, M, ("separate", observed), count)
        return weighted_sum(values, coef)

    def systems(self, coef: np.ndarray, combined: bool, observed: bool = False) -> np.ndarray:
        """Every system's estimand side by side: shape (R, M), or (1, M) on the data
        (``observed``); the values any set of contrasts is read from."""
        return np.stack([self.value(j, coef, combined, observed=observed)
                         for j in range(self.design.n_systems)], axis=-1)

    def _pooled(self, observed: bool, coef) -> tuple[np.ndarray, tuple]:
        """The sums of all strata weighted by ``coef``, computed once, and their key."""
        key = ("pooled", observed, coef.tobytes())
        if key not in self._kept:
            M = self.M_hat if observed else self.M
            self._kept[key] = weighted_sum(M, coef, axis=-2)
        return self._kept[key], key

    def _values(self, target: Target, sums: np.ndarray, key: tuple, count: bool):
        """``phi(target, sums)``, each system's computed once and kept under ``key``;
        a contrast is its systems' values subtracted.  A system's undefined values on a
        set of sums are counted once, at the first request that counts them (a counting
        request for a contrast counts both its systems)."""
        if isinstance(target, tuple):
            kept = ("contrast", target, *key)
            i, j = target
            if kept not in self._kept:
                at = self.metric_sums(target, sums)
                if at is None:
                    with np.errstate(invalid="ignore", over="ignore"):  # (inf: said later)
                        self._kept[kept] = (self._values(j, sums, key, count)
                                            - self._values(i, sums, key, count))
                else:  # (its systems' values are still counted, as they would be)
                    self._kept[kept] = self.design.metric.evaluate(at)[0].reshape(
                        sums.shape[:-1])
                    if count:
                        for system in target:
                            self._values(system, sums, key, True)
            elif count:
                for system in target:
                    self._values(system, sums, key, True)
            return self._kept[kept]
        kept = ("system", target, *key)
        if kept not in self._kept:
            values, n_bad = self.design.metric.evaluate(self.metric_sums(target, sums))
            self._kept[kept] = values.reshape(sums.shape[:-1])
            self._uncounted[kept] = n_bad
        if count and kept in self._uncounted:
            self.undefined[target] += (self._uncounted.pop(kept), self._kept[kept].size)
        return self._kept[kept]

    # --- the estimand --------------------------------------------------------------------

    def estimate(self, target: Target, coef: np.ndarray, *, bca: bool, combined: bool,
                 count: bool | None = None) -> Estimate:
        """The target's replicates and their :class:`Bootstrap` summary (with the
        jackknife for BCa and the standard errors for the studentized interval).

        ``count``: whether a system's undefined values count in :attr:`undefined` (by
        default for a system, never for a contrast, whose systems count their own)."""
        if count is None:
            count = not isinstance(target, tuple)
        theta = self.value(target, coef, combined, count=count)
        est = float(self.value(target, coef, combined, observed=True)[0])
        if not math.isfinite(est):
            who = ("a system" if isinstance(target, tuple)
                   else f"system {self.names[target]}")
            if not np.all(np.isfinite(self.M_hat)):
                raise InputError(
                    "the sums of the scores overflow double precision (beyond 1.8e308; "
                    f"{who}): rescale the scores, e.g. by a power of ten", param="metric")
            raise InputError(
                f"metric {self.design.metric.name!r} is undefined on the full data "
                f"({who}): check the statistics (e.g. a zero denominator)", param="metric",
            )
        ok = np.isfinite(theta)
        # Values that differ only by rounding (constant differences computed as
        # metric(B) - metric(A) from two sums) are one value: snap them to the estimate.
        # A contrast read off the differences rounds like them, not like its systems.
        scale = self._size(target) if isinstance(target, tuple) else self.scales[target]
        tol = ROUNDING_ULPS * 2.0**-53 * math.sqrt(self.design.n_items) * max(abs(est), scale)
        snapped = bool(ok.any() and np.ptp(theta[ok]) <= tol and abs(theta[ok][0] - est) <= tol)
        if snapped:
            snapped = bool(np.ptp(theta[ok]) > 0)
            theta = np.where(ok, est, theta)
        influence = self.jackknife(target, coef, combined, est) if bca else None
        se_hat, se_star, se_all = math.nan, None, None
        if self.cross is not None:
            keys = (None, None) if combined else (("terms", target, True),
                                                 ("terms", target, False))
            grad = self._gradient(target, False, coef, combined)
            se_all = np.sqrt(self._variance(grad, self.draw_sums, coef, keys[0]))
            se_star = se_all[ok]
            grad_hat = self._gradient(target, True, coef, combined)
            se_hat = float(
                np.sqrt(self._variance(grad_hat, self.draw_observed, coef, keys[1]))[0]
            )
        boot = Bootstrap.from_replicates(
            est, theta[ok], influence=influence, se_hat=se_hat, se_star=se_star
        )
        lost = checked = False
        if snapped and isinstance(target, tuple) and not self.through_differences(target):
            exact = None if combined else self._exact_estimate(target, coef)
            if exact is not None:  # (constant and exact, or lost to the systems' level)
                lost = exact != 0 and tol > LOST_SHARE * abs(exact)
                checked = not lost
                if lost:  # (the estimate at least is known exactly)
                    boot = Bootstrap.from_replicates(exact, theta[ok])
            else:
                lost = tol > LOST_SHARE * abs(est)
        return Estimate(theta, boot, tol, snapped, lost, checked, se_all)

    def _exact_estimate(self, target: tuple[int, int], coef: np.ndarray) -> float | None:
        """A mean contrast's exact value on the data, from the exact sums of the two
        systems' columns in every stratum (None for another metric, or without the
        units or their exact sums)."""
        from fractions import Fraction

        design = self.design
        if not (design.metric.mean_like and design.k == 2):
            return None
        exact = self._exact
        if exact is None:
            plan = design.plan
            if len(plan.x) < int(plan.sizes.sum()):
                return None
            exact = [exact_sums(plan.rows(s, s + m))
                     for s, m in zip(plan.starts.tolist(), plan.sizes.tolist())]
            self._exact = exact
        n_strata = design.n_strata
        merged = [[0] * self.width for _ in range(n_strata)]  # (unpaired: add the draws)
        for d, sums_d in enumerate(exact):
            h = int(design.draw_to_stratum[d])
            merged[h] = [u + v for u, v in zip(merged[h], sums_d)]
        i, j = target
        total = Fraction(0)
        for h in np.flatnonzero(coef).tolist():
            ci, cj = design.columns(i), design.columns(j)
            if merged[h][cj.start + 1] == 0 or merged[h][ci.start + 1] == 0:
                return None
            total += Fraction(float(coef[h])) * (
                Fraction(merged[h][cj.start], merged[h][cj.start + 1])
                - Fraction(merged[h][ci.start], merged[h][ci.start + 1]))
        return float(total)

    def jackknife(self, target, coef, combined, est) -> list[np.ndarray]:
        """The estimand with each unit left out: one array per draw stratum of non-zero
        weight (leaving out a unit of a stratum without weight changes nothing, and adds
        nothing to the acceleration).  The stratum's other ``m - 1`` units keep its
        population weight: for a pooled estimand its sums are scaled by ``m / (m - 1)``,
        as a mean over them would be.  ``est``: the target's estimate, which strata
        combined separately add to (BCa's acceleration does not depend on it)."""
        plan, d2h = self.design.plan, self.design.draw_to_stratum
        M_hat = self.M_hat[0]
        pooled = weighted_sum(M_hat, coef, axis=0) if combined else None
        base = None if combined else self._values(
            target, self.M_hat, ("separate", True), False)[0]
        out = []
        for d in np.flatnonzero(coef[d2h]).tolist():
            h, s, m = int(d2h[d]), int(plan.starts[d]), int(plan.sizes[d])
            own = self.draw_observed[0, d, : self.width]
            grow = m / (m - 1) if m > 1 else 1.0
            vals = np.empty(m)
            for c in range(0, m, JACK_CHUNK):
                rows = plan.rows(s + c, s + min(c + JACK_CHUNK, m))[:, : self.width]
                if combined:
                    v = self.phi(target, pooled + coef[h] * ((own - rows) * grow - own))
                else:
                    v = est + coef[h] * (self.phi(target, M_hat[h] - rows) - base[h])
                vals[c : c + len(rows)] = v
            out.append(vals)
        return out

    # --- studentized ---------------------------------------------------------------------

    def _gradient(self, target, observed: bool, coef, combined) -> np.ndarray:
        """Gradient of phi at every stratum's sums, of the replicates or of the data
        (pooled: at the pooled sums, the same for every stratum)."""
        grad = self._kept_gradient(target, observed, coef, combined)
        shape = (self.M_hat if observed else self.M).shape
        return np.broadcast_to(grad, shape) if combined else grad

    def _kept_gradient(self, target, observed: bool, coef, combined) -> np.ndarray:
        """:meth:`_gradient`, computed once per system and sums and kept (a contrast's:
        its systems' subtracted)."""
        if combined:
            pooled, key = self._pooled(observed, coef)
            at = pooled[..., None, :]
        else:
            at, key = (self.M_hat if observed else self.M), ("separate", observed)
        key = ("gradient", target, *key)
        if key not in self._kept:
            if isinstance(target, tuple) and not self.through_differences(target):
                i, j = target
                self._kept[key] = (self._kept_gradient(j, observed, coef, combined)
                                   - self._kept_gradient(i, observed, coef, combined))
            else:  # (a contrast read off the differences: of those, directly)
                self._kept[key] = self._gradient_at(target, at)
        return self._kept[key]

    def _gradient_at(self, target: Target, at) -> np.ndarray:
        """Central differences of the target's phi at the sums ``at``, column by column:
        of a system's own columns, or of the differences a contrast is read off and
        its second system's count; the gradient is exactly zero in the others'."""
        design = self.design
        if isinstance(target, tuple):  # (read off the differences)
            block = design.n_systems * design.k
            own = design.columns(target[1])
            columns = [*range(own.start + 1, own.stop),
                       *(block + q for q in ((0,) if design.n_systems == 2 else target))]
        else:
            own = design.columns(target)
            columns = list(range(own.start, own.stop))
        typical = np.zeros(at.shape[-1])
        for j in columns:  # the column's typical sum
            typical[j] = float(np.abs(self.M_hat[..., j]).mean())
        return central_gradient(lambda sums: self.phi(target, sums), at, columns, typical)

    def _variance(self, grad, draw, coef, key=None) -> np.ndarray:
        """Delta-method variance: the draw strata's terms (kept under ``key`` when the
        gradient does not depend on ``coef``) weighted by their squared coefficients."""
        if key is None or key not in self._kept:
            terms = studentized.variance_terms(
                grad, draw, self.cross, self.width, self.design.plan.sizes,
                self.design.draw_to_stratum)
            if key is not None:
                self._kept[key] = terms
        else:
            terms = self._kept[key]
        return studentized.combine_terms(terms, coef, self.design.draw_to_stratum)

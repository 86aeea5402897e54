"""Planning a comparison of a k-trial metric (pass@k, pass^k, maj@k) with
``runs="samples"``: how many tasks, and how many trials each.

Each task i has a success probability per system (``p_Ai``, ``p_Bi``); its estimate from
n trials (:mod:`pairboot.stats.trials`) is a U-statistic of kernel size k, whose
variance given p is Hoeffding's (1948)

    v_n(p) = sum_{c=1..k} C(k, c) C(n - k, k - c) / C(n, k) zeta_c(p),

``zeta_c`` the covariance of the kernel on two k-subsets of the trials sharing c of
them.  The mean over N tasks of B's estimate minus A's then has the variance

    V(N, n) = (between + W(n)) / N,   W(n) = mean over tasks of v_n(p_A) + v_n(p_B),

``between`` the variance over tasks of the true per-task difference: more trials per
task shrink only ``W``.  ``zeta_c = P(both) - P(both, disjoint)`` where ``P(both)`` is
the chance that the kernel holds on two k-subsets sharing c trials; it is the mean of a
function ``phi_c`` of the successes among the ``2k - c`` trials involved
(:func:`pair_table`), so it is computed

- exactly at a given p (``X ~ Binomial(2k - c, p)``: :func:`components`);
- without bias from a pilot task's n0 >= 2k trials with s successes (``X`` the
  hypergeometric successes among ``2k - c`` of its trials drawn without replacement:
  the only unbiased estimate, ``s`` being complete and sufficient;
  :func:`pilot_components`);
- with fewer pilot trials, as the posterior mean under a Beta prior fitted to the
  pilot's tasks (empirical Bayes, ``X`` beta-binomial: :func:`posterior_components`).

The power is the paired t's on ``N - 1`` degrees of freedom with the variance ``V``
(:class:`TrialsModel`), as :class:`~pairboot.planning.model.TModel` for per-item scores.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from pairboot.planning.model import Test
from pairboot.planning.noncentral import t_power
from pairboot.stats.trials import KERNELS

__all__ = ["BetaTasks", "TrialsModel", "components", "fit_beta", "hoeffding_weights",
           "pair_table", "pilot_components", "posterior_components", "trials_grid",
           "within_variance"]


@functools.lru_cache(maxsize=64)
def pair_table(kind: str, k: int) -> tuple[tuple[float, ...], ...]:
    """``phi_c(j)`` for ``c = 0 ... k`` and ``j = 0 ... 2k - c``: the chance that the
    kernel of ``kind`` holds on both of two k-subsets sharing c trials, given j
    successes among their ``2k - c`` trials (each split of the j successes into the
    shared c and the two private ``k - c`` equally likely, hypergeometric)."""
    h = [bool(KERNELS[kind](x, k)) for x in range(k + 1)]
    out = []
    for c in range(k + 1):
        m, rest = 2 * k - c, k - c
        row = []
        for j in range(m + 1):
            hits = sum(math.comb(c, x) * math.comb(rest, y) * math.comb(rest, z)
                       for x in range(c + 1) for y in range(rest + 1) for z in range(rest + 1)
                       if x + y + z == j and h[x + y] and h[x + z])
            row.append(hits / math.comb(m, j))
        out.append(tuple(row))
    return tuple(out)


def hoeffding_weights(n: int, k: int) -> np.ndarray:
    """``C(k, c) C(n - k, k - c) / C(n, k)`` for ``c = 0 ... k``: the weight of
    ``zeta_c`` in the variance of a U-statistic of kernel size k on n trials."""
    total = math.comb(n, k)
    return np.array([math.comb(k, c) * math.comb(n - k, k - c) / total
                     for c in range(k + 1)])


def _binomial(m: int, p) -> np.ndarray:
    """``P(X = j)``, ``X ~ Binomial(m, p)``, for ``j = 0 ... m``: (len(p), m + 1)."""
    p = np.asarray(p, dtype=np.float64)
    up, down = np.ones((m + 1,) + p.shape), np.ones((m + 1,) + p.shape)
    for j in range(1, m + 1):  # (p^j and (1 - p)^j by products: exact at 0 and 1)
        up[j] = up[j - 1] * p
        down[j] = down[j - 1] * (1.0 - p)
    comb = np.array([math.comb(m, j) for j in range(m + 1)], dtype=np.float64)
    return (comb[:, None] * up * down[::-1]).T


def components(kind: str, k: int, p) -> np.ndarray:
    """``zeta_c(p)`` for ``c = 0 ... k`` at every success probability ``p``
    (len(p), k + 1); ``zeta_0`` is 0 and ``zeta_k = g (1 - g)``, ``g`` the metric's
    value at p."""
    table = pair_table(kind, k)
    p = np.atleast_1d(np.asarray(p, dtype=np.float64))
    both = np.stack([_binomial(2 * k - c, p) @ np.array(table[c]) for c in range(k + 1)],
                    axis=1)
    return np.maximum(both - both[:, :1], 0.0)  # (below 0 by rounding only)


def within_variance(kind: str, k: int, n: int, p) -> np.ndarray:
    """The variance of a task's estimate from n trials at success probability ``p``
    (Hoeffding's sum; equal to the sum over ``c ~ Binomial(n, p)``)."""
    return components(kind, k, p) @ hoeffding_weights(n, k)


def _hypergeometric(n0: int, s: int, m: int) -> np.ndarray:
    """``P(j successes)`` in m of n0 trials (s successes) drawn without replacement,
    ``j = 0 ... m`` (exact integers, then one division)."""
    total = math.comb(n0, m)
    return np.array([math.comb(s, j) * math.comb(n0 - s, m - j) / total
                     for j in range(m + 1)])


def pilot_components(kind: str, k: int, n, s) -> np.ndarray:
    """The unbiased estimate of ``zeta_c`` (c = 0 ... k) from each task's ``n`` >= 2k
    trials and ``s`` successes (tasks, k + 1).  With ``c = k`` weights it is, exactly,
    :func:`pairboot.stats.trials.estimate_variance` at n trials (both unbiased
    functions of the complete statistic s)."""
    table = pair_table(kind, k)
    n, s = np.asarray(n, dtype=np.int64), np.asarray(s, dtype=np.int64)
    out = np.zeros((len(n), k + 1))
    cache: dict[tuple[int, int], np.ndarray] = {}
    for i, (ni, si) in enumerate(zip(n.tolist(), s.tolist())):
        if (ni, si) not in cache:
            both = np.array([_hypergeometric(ni, si, 2 * k - c) @ np.array(table[c])
                             for c in range(k + 1)])
            cache[ni, si] = both - both[0]
        out[i] = cache[ni, si]
    return out


def fit_beta(n, s) -> tuple[float, float]:
    """A Beta(alpha, beta) law of the tasks' success probabilities, by moments of the
    rates ``s / n``: mean ``mu`` and ``var(s / n) = mu (1 - mu) (rho + (1 - rho) mean(1 /
    n))`` with ``rho = 1 / (alpha + beta + 1)``, rho kept within [1e-6, 1 - 1e-6]."""
    n, s = np.asarray(n, dtype=np.float64), np.asarray(s, dtype=np.float64)
    rate = s / n
    mu = float(np.clip(rate.mean(), 1e-9, 1 - 1e-9))
    inv = float(np.mean(1.0 / n))
    ratio = float(rate.var(ddof=1)) / (mu * (1 - mu)) if len(n) > 1 else 0.0
    rho = (ratio - inv) / (1.0 - inv) if inv < 1 else 1.0
    rho = min(max(rho, 1e-6), 1 - 1e-6)
    total = 1.0 / rho - 1.0
    return mu * total, (1 - mu) * total


def _beta_binomial(m: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``P(X = j)``, X beta-binomial(m, a, b), ``j = 0 ... m`` (tasks, m + 1)."""
    from math import lgamma
    lg = np.vectorize(lgamma, otypes=[np.float64])
    j = np.arange(m + 1)[None, :]
    a, b = np.asarray(a, dtype=np.float64)[:, None], np.asarray(b, dtype=np.float64)[:, None]
    log_comb = np.array([math.log(math.comb(m, int(i))) for i in range(m + 1)])[None, :]
    log = (log_comb + lg(j + a) + lg(m - j + b) - lg(m + a + b)
           - (lg(a) + lg(b) - lg(a + b)))
    return np.exp(log)


def posterior_components(kind: str, k: int, n, s, prior: tuple[float, float]) -> np.ndarray:
    """The posterior mean of ``zeta_c`` (c = 0 ... k) for each task given its ``n``
    trials and ``s`` successes, under the Beta ``prior`` (tasks, k + 1): what a pilot
    with fewer than 2k trials per task allows (no unbiased estimate exists)."""
    table = pair_table(kind, k)
    n, s = np.asarray(n, dtype=np.float64), np.asarray(s, dtype=np.float64)
    a, b = prior[0] + s, prior[1] + n - s
    both = np.stack([_beta_binomial(2 * k - c, a, b) @ np.array(table[c])
                     for c in range(k + 1)], axis=1)
    return np.maximum(both - both[:, :1], 0.0)


@dataclass(frozen=True)
class TrialsModel:
    """``V(N, n) = (between + sum_c w_c(n) zeta_c) / N`` with N tasks and n trials each
    (the module's docstring); ``parts(delta)`` gives ``(between, zeta)`` (zeta: both
    systems' mean components, k + 1), from a pilot the same for every delta, from
    parameters those of the tasks with B moved to ``delta``."""

    kind: str
    k: int
    parts: Callable[[float | None], tuple[float, np.ndarray]]

    runs = True

    @property
    def fewest_runs(self) -> int:
        """The fewest trials per task: k."""
        return self.k

    def within(self, runs: float, delta: float | None = None) -> float:
        """``W(n)``: the mean within-task variance of a task's difference at n trials."""
        zeta = self.parts(delta)[1]
        return float(hoeffding_weights(int(runs), self.k) @ zeta)

    def variance(self, n: float, runs: float, delta: float | None = None) -> float:
        between, zeta = self.parts(delta)
        return (between + float(hoeffding_weights(int(runs), self.k) @ zeta)) / n

    def floor(self, runs: float) -> float:
        """No variance is left at any number of tasks: 0."""
        return 0.0

    def scaled(self, factor: float) -> TrialsModel:
        """The model with both parts times ``factor`` (a pilot's range)."""
        parts = self.parts
        return dataclasses.replace(self, parts=lambda delta: tuple(
            factor * v for v in parts(delta)))

    def power(self, test: Test, n: float, delta: float, runs: float | None = None) -> float:
        if runs is None or runs < self.k:
            raise ValueError(f"{runs!r} trials per task: fewer than k = {self.k}")
        if math.isinf(n):
            return 1.0 if test.shift(delta) > 0 else 0.0
        v = self.variance(n, runs, delta)
        if v <= 0:
            return 1.0 if test.shift(delta) > 0 else 0.0
        return t_power(test.shift(delta) / math.sqrt(v), max(1.0, n - 1.0), test.alpha,
                       test.two_sided)


def trials_grid(k: int, *given: int | None) -> tuple[int, ...]:
    """The trials per task a plan shows: k, 1.5k, 2k, 3k and 4k, and those ``given``."""
    grid = {k, int(math.ceil(1.5 * k)), 2 * k, 3 * k, 4 * k}
    grid.update(int(g) for g in given if g is not None)
    return tuple(sorted(grid))


_NODES = 12
_POINTS = 801


@dataclass(frozen=True)
class BetaTasks:
    """Tasks from parameters: A's success probability ``p_A ~ Beta`` of mean ``rate``
    and standard deviation ``sd``; B's ``logit p_B = logit p_A + theta + shift_sd Z``
    (Z standard normal: tasks gain unequally), ``theta`` set so that the metric's mean
    B - A is ``delta``.  The expectations over tasks are integrals on a grid of the
    logit (the Beta's density there is smooth and decays exponentially) times
    Gauss-Hermite nodes for Z."""

    kind: str
    k: int
    rate: float
    sd: float
    shift_sd: float = 0.0

    @functools.cached_property
    def grid(self):
        """``(u, w, z, wz)``: the logit grid and its weights, the normal nodes and theirs."""
        total = self.rate * (1 - self.rate) / (self.sd * self.sd) - 1.0
        a, b = self.rate * total, (1 - self.rate) * total
        # the density of u = logit p is expit(u)^a expit(-u)^b / B(a, b): its mode at
        # log(a / b), about sqrt(1 / a + 1 / b) wide, e^(a u) on the left and e^(-b u)
        # on the right; the grid reaches e^-40 of its peak on both sides
        mode, width = math.log(a / b), math.sqrt(1.0 / a + 1.0 / b)
        low, high = mode - 40.0 / a - 12.0 * width, mode + 40.0 / b + 12.0 * width
        u = np.linspace(low, high, _POINTS)
        log_w = -a * np.logaddexp(0, -u) - b * np.logaddexp(0, u)
        w = np.exp(log_w - log_w.max())
        w /= w.sum()
        z, wz = np.polynomial.hermite_e.hermegauss(_NODES if self.shift_sd > 0 else 1)
        return u, w, z, wz / wz.sum()

    def _values(self, theta: float):
        """A's success probabilities on the grid, B's (grid x nodes) and the weights."""
        u, w, z, wz = self.grid
        pa = 1.0 / (1.0 + np.exp(-u))
        pb = 1.0 / (1.0 + np.exp(-(u[:, None] + theta + self.shift_sd * z[None, :])))
        return pa, pb, w, wz

    def metric(self, p: np.ndarray) -> np.ndarray:
        """The metric's value at success probability p (the kernel's mean)."""
        p = np.ravel(p)
        if self.kind == "pass^":
            return p ** self.k
        if self.kind == "pass@":
            return 1.0 - (1.0 - p) ** self.k
        h = np.array([float(KERNELS[self.kind](x, self.k)) for x in range(self.k + 1)])
        return _binomial(self.k, p) @ h

    @functools.lru_cache(maxsize=256)  # noqa: B019 (a frozen value: its cache is its own)
    def theta(self, delta: float) -> float:
        """The logit shift that sets B - A to ``delta`` (200 steps at most; the
        largest shift either way when none does)."""
        pa, _, w, wz = self._values(0.0)
        base = float(w @ self.metric(pa))

        def gap(theta: float) -> float:
            _, pb, _, _ = self._values(theta)
            mb = self.metric(pb).reshape(pb.shape) @ wz
            return float(w @ mb) - base - delta

        reach = 60.0 + 8.0 * self.shift_sd  # (past every task's logit and node)
        lo, hi = -reach, reach
        f_lo, f_hi = gap(lo), gap(hi)
        if not f_lo < 0 < f_hi:  # (beyond what the tasks allow: B as far as it goes;
            return lo if f_lo >= 0 else hi  # the planner's caps keep delta within)
        side = 0
        for _ in range(200):  # (the Illinois method: regula falsi that halves a stale end)
            mid = (lo * f_hi - hi * f_lo) / (f_hi - f_lo)
            f_mid = gap(mid)
            if f_mid == 0 or hi - lo < 1e-12 or abs(f_mid) < 1e-13:
                return mid
            if f_mid < 0:
                lo, f_lo = mid, f_mid
                if side == -1:
                    f_hi /= 2
                side = -1
            else:
                hi, f_hi = mid, f_mid
                if side == 1:
                    f_lo /= 2
                side = 1
        return 0.5 * (lo + hi)

    def parts(self, delta: float | None) -> tuple[float, np.ndarray]:
        """``(between, zeta)`` of the tasks with B - A set to ``delta``, taken to 6
        significant digits (they vary slowly with it; a search for the smallest
        detectable difference then reuses them as it narrows)."""
        return self._parts(0.0 if delta is None else float(f"{float(delta):.6g}"))

    @functools.lru_cache(maxsize=1024)  # noqa: B019 (a frozen value: its cache is its own)
    def _parts(self, delta: float) -> tuple[float, np.ndarray]:
        theta = self.theta(delta)
        pa, pb, w, wz = self._values(theta)
        ga = self.metric(pa)
        gb = self.metric(pb).reshape(pb.shape)
        diff = gb - ga[:, None]
        weights = w[:, None] * wz[None, :]
        mean = float(np.sum(weights * diff))
        between = float(np.sum(weights * (diff - mean) ** 2))
        za = components(self.kind, self.k, pa)
        zb = components(self.kind, self.k, pb.ravel()).reshape(pb.shape + (self.k + 1,))
        zeta = w @ za + np.tensordot(weights, zb, axes=([0, 1], [0, 1]))
        return between, zeta

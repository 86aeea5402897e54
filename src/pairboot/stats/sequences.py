"""Confidence sequences for a mean: intervals valid at every sample size at once.

A confidence sequence (CS) ``C_1, C_2, ...`` covers the mean at every ``t``
simultaneously with probability ``1 - alpha``, so it may be read after every item and the
reading stopped whenever it says so (a stopping rule is a stopping time).  Two kinds:

- **asymptotic** (Waudby-Smith, Arbour, Sinha, Kennedy & Ramdas, "Time-uniform central
  limit theory and asymptotic confidence sequences", 2021/2024, Theorem 2.2): the sample
  mean plus or minus the sample standard deviation times Robbins' normal-mixture
  boundary, ``sqrt(2 (t rho^2 + 1) / (t^2 rho^2) log(sqrt(t rho^2 + 1) / alpha))``
  (two-sided; one-sided: ``log(1 + sqrt(t rho^2 + 1) / (2 alpha))``, Howard et al. 2021's
  closed-form bound on the one-sided normal mixture).  ``rho`` is tuned so the sequence
  is tightest near a target size ``n``: ``rho^2 = (-2 log alpha + log(-2 log alpha +
  1)) / n`` (the paper's approximation).  Valid as ``t`` grows (an asymptotic
  guarantee, as a CLT interval is) for any scores with a finite variance.
- **betting** (Waudby-Smith & Ramdas 2024, "Estimating means of bounded random variables
  by betting", the hedged capital process with predictable plug-in bets): for values in
  ``[0, 1]``, a candidate mean ``m`` is excluded once a gambler betting against it has
  multiplied its capital by ``1 / alpha`` (Ville's inequality: valid at every ``t`` and
  every size, no asymptotics).  Computed on a grid of candidates; the reported ends are
  moved out by one grid step, so the grid never makes the sequence narrower.

A pooled metric's difference (F1, BLEU: a smooth function of each system's summed
per-unit statistics) gets the asymptotic sequence on the units' influence values by
the delta method (:func:`pooled_path`; a ratio of sums: :func:`ratio_path`).

Each is a running state updated by a batch of any size (:class:`BettingState`,
:func:`moments_update`): an update by one batch and by its items one at a time agree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = [
    "BettingState",
    "asymptotic_ends",
    "asymptotic_path",
    "betting_path",
    "betting_start",
    "betting_update",
    "log_capital",
    "mixture_radius",
    "moments_update",
    "pooled_path",
    "pooled_start",
    "ratio_path",
    "ratio_start",
    "rho2_for",
]

TRUNCATION = 0.5
"""The bets' cap ``c``: ``lambda(m) <= c / m`` (``c / (1 - m)`` betting down), so the
capital never loses more than half of itself on one item (the paper's ``c = 1/2``)."""


def rho2_for(n: float, alpha: float) -> float:
    """The mixture's ``rho^2`` that makes the asymptotic sequence tightest near ``n``
    items: ``(-2 log alpha + log(-2 log alpha + 1)) / n`` (Waudby-Smith et al.)."""
    la = -2.0 * math.log(alpha)
    return (la + math.log(la + 1.0)) / float(n)


def mixture_radius(t, rho2: float, alpha: float, *, one_sided: bool = False):
    """The normal-mixture radius of a unit-variance mean after ``t`` values: the
    half-width is ``sd * mixture_radius(t, ...)``.  Two-sided: ``sqrt(2 (t rho^2 + 1) /
    (t^2 rho^2) log(sqrt(t rho^2 + 1) / alpha))``; one-sided: ``log(1 + sqrt(t rho^2 +
    1) / (2 alpha))`` in place of the log."""
    t = np.asarray(t, dtype=float)
    s = t * rho2 + 1.0
    log_term = (np.log1p(np.sqrt(s) / (2.0 * alpha)) if one_sided
                else np.log(np.sqrt(s) / alpha))
    return np.sqrt(2.0 * s / (t * t * rho2) * log_term)


def asymptotic_path(state: tuple[int, float, float], x, rho2: float, alpha: float,
                    sides: str = "two-sided"):
    """The asymptotic sequence after each of the values ``x``: ``(state, mean, low,
    high)``, arrays over the values (the state's moments after all of them:
    :func:`asymptotic_ends`, then :func:`moments_update`)."""
    x = np.asarray(x, dtype=float)
    mean, low, high = asymptotic_ends(state, x, rho2, alpha, sides)
    return moments_update(state, x), mean, low, high


def asymptotic_ends(state: tuple[int, float, float], x, rho2: float, alpha: float,
                    sides: str = "two-sided"):
    """The asymptotic sequence after each of the values ``x`` from the moments
    ``state`` of the values before them: ``(mean, low, high)``, arrays over the values;
    the state is not moved (a caller that stops part-way merges only the values it
    used, once: :func:`moments_update`).  The standard deviation is the sample one
    (divisor ``t - 1``); before two values the sequence is the whole line, and a
    one-sided sequence's other end is infinite."""
    x = np.asarray(x, dtype=float)
    n0, mean0, m20 = state
    t = n0 + np.arange(1, x.size + 1, dtype=float)
    mean = (n0 * mean0 + np.cumsum(x)) / t
    m2 = m20 + np.cumsum((x - mean0) ** 2) - t * (mean - mean0) ** 2
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.sqrt(np.maximum(m2, 0.0) / (t - 1.0))
        radius = np.where(t >= 2, sd * mixture_radius(t, rho2, alpha,
                                                      one_sided=sides != "two-sided"),
                          np.inf)
    low = np.full(x.shape, -np.inf) if sides == "less" else mean - radius
    high = np.full(x.shape, np.inf) if sides == "greater" else mean + radius
    return mean, low, high


def ratio_start() -> tuple[int, np.ndarray, np.ndarray]:
    """A ratio difference's running sums before any item: ``(t, sums (4,), cross
    products (4, 4))`` of the columns (B's numerator, B's denominator, A's numerator,
    A's denominator)."""
    return 0, np.zeros(4), np.zeros((4, 4))


def ratio_path(state, stats, rho2: float, alpha: float, sides: str = "two-sided"):
    """The asymptotic sequence of ``sum(num_b)/sum(den_b) - sum(num_a)/sum(den_a)``
    after each item, by the delta method (an asymptotic statement on top of an
    asymptotic sequence): the estimate plus or minus the standard deviation of the
    items' influence values ``psi_i = (num_b_i - R_b den_b_i) / mean(den_b) - (num_a_i
    - R_a den_a_i) / mean(den_a)``, at the running estimates, times the mixture radius.
    ``stats``: one row per item, the columns of :func:`ratio_start`.  Returns ``(state,
    estimate, sd, low, high)``, arrays over the items."""
    x = np.asarray(stats, dtype=float).reshape(-1, 4)
    t0, sums0, cross0 = state
    t = t0 + np.arange(1, x.shape[0] + 1, dtype=float)
    sums = sums0 + np.cumsum(x, axis=0)
    cross = cross0 + np.cumsum(x[:, :, None] * x[:, None, :], axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        r_b, r_a = sums[:, 0] / sums[:, 1], sums[:, 2] / sums[:, 3]
        m_b, m_a = sums[:, 1] / t, sums[:, 3] / t
        c = np.stack([1 / m_b, -r_b / m_b, -1 / m_a, r_a / m_a], axis=1)
        var = np.einsum("ti,tij,tj->t", c, cross, c) / np.maximum(t - 1.0, 1.0)
        sd = np.sqrt(np.maximum(var, 0.0))  # (the psi sum to 0 at the estimates)
        estimate = r_b - r_a
        radius = sd * mixture_radius(t, rho2, alpha, one_sided=sides != "two-sided")
    ok = (t >= 2) & np.isfinite(radius) & np.isfinite(estimate)
    low = np.where(ok & (sides != "less"), estimate - np.where(ok, radius, 0.0), -np.inf)
    high = np.where(ok & (sides != "greater"), estimate + np.where(ok, radius, 0.0), np.inf)
    new = (int(t[-1]), sums[-1], cross[-1]) if x.shape[0] else state
    return new, estimate, sd, low, high


POOLED_BLOCK = 2_000_000
"""Cross products computed at once by :func:`pooled_path` (memory: 8 bytes each)."""


def pooled_start(k: int):
    """A pooled metric's difference before any unit: ``(t, origin, sums, cross)``, the
    running sums and cross products of the units' ``2 k`` statistics (B's, then A's)
    less the first unit's (``origin``, None until it comes: shifted data, so the
    covariance is not the small difference of two large numbers)."""
    return 0, None, np.zeros(2 * k), np.zeros((2 * k, 2 * k))


def pooled_path(state, stats, value, gradient, rho2: float, alpha: float,
                sides: str = "two-sided"):
    """The asymptotic sequence of ``g(S_B) - g(S_A)``, a metric ``g`` of each system's
    summed statistics, after each unit, by the delta method (an asymptotic statement on
    top of an asymptotic sequence): the estimate plus or minus the standard deviation
    of the units' influence values ``psi_i = grad g(m_B) . (x_B,i - m_B) - grad g(m_A)
    . (x_A,i - m_A)`` (``m`` the mean statistics so far, divisor ``t - 1``) times the
    mixture radius.

    ``stats``: one row per unit, B's ``k`` statistics then A's; ``value(S)`` the metric
    on sums ``(..., k)`` (NaN where undefined), ``gradient(m)`` its gradient ``(..., k)``
    at the means.  Returns ``(state, estimate, sd, low, high, defined, differentiable)``,
    arrays over the units: the sequence is the whole line where the estimate is not
    ``defined`` (either value NaN) or the gradient not finite (``differentiable``
    False), and before two units."""
    x = np.asarray(stats, dtype=float)
    t0, origin, sums0, cross0 = state
    width = sums0.size
    k = width // 2
    x = x.reshape(-1, width)
    if x.shape[0] == 0:
        empty = np.empty(0)
        return state, empty, empty, empty, empty, empty.astype(bool), empty.astype(bool)
    origin = x[0].copy() if origin is None else origin
    parts = []
    step = max(1, POOLED_BLOCK // (width * width))
    for start in range(0, x.shape[0], step):  # (bounded: rows / step blocks)
        d = x[start:start + step] - origin
        t = t0 + np.arange(1, d.shape[0] + 1, dtype=float)
        sums = sums0 + np.cumsum(d, axis=0)
        cross = cross0 + np.cumsum(d[:, :, None] * d[:, None, :], axis=0)
        shift = sums / t[:, None]
        means = origin + shift
        totals = origin * t[:, None] + sums
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            v_b = np.asarray(value(totals[:, :k]), dtype=float)
            v_a = np.asarray(value(totals[:, k:]), dtype=float)
            c = np.concatenate([np.asarray(gradient(means[:, :k]), dtype=float),
                                -np.asarray(gradient(means[:, k:]), dtype=float)], axis=1)
            differentiable = np.isfinite(c).all(axis=1)
            c = np.where(differentiable[:, None], c, 0.0)
            var = (np.einsum("ti,tij,tj->t", c, cross, c)
                   - t * np.einsum("ti,ti->t", c, shift) ** 2) / np.maximum(t - 1.0, 1.0)
            sd = np.where(differentiable, np.sqrt(np.maximum(var, 0.0)), np.nan)
            radius = sd * mixture_radius(t, rho2, alpha, one_sided=sides != "two-sided")
        estimate = v_b - v_a
        defined = np.isfinite(v_b) & np.isfinite(v_a)
        ok = (t >= 2) & defined & differentiable & np.isfinite(radius)
        low = np.where(ok & (sides != "less"), estimate - np.where(ok, radius, 0.0), -np.inf)
        high = np.where(ok & (sides != "greater"), estimate + np.where(ok, radius, 0.0),
                        np.inf)
        parts.append((estimate, sd, low, high, defined, differentiable))
        t0, sums0, cross0 = int(t[-1]), sums[-1], cross[-1]
    out = [np.concatenate(p) for p in zip(*parts)]
    return (t0, origin, sums0, cross0), *out


def moments_update(state: tuple[int, float, float], x) -> tuple[int, float, float]:
    """``(n, mean, m2)`` (Welford's: ``m2`` the sum of squared deviations) after the
    values ``x``, merged by Chan's rule so that a batch and its items one by one agree
    to rounding."""
    n0, mean0, m20 = state
    x = np.asarray(x, dtype=float)
    if x.size == 0:
        return state
    n1 = int(x.size)
    mean1 = float(x.mean())
    m21 = float(((x - mean1) ** 2).sum())
    n = n0 + n1
    delta = mean1 - mean0
    return n, mean0 + delta * n1 / n, m20 + m21 + delta * delta * n0 * n1 / n


NEVER = np.iinfo(np.int64).max
"""A candidate's exclusion time when it was never excluded."""


@dataclass(frozen=True, slots=True)
class BettingState:
    """The betting sequence after ``t`` values in ``[0, 1]``.

    ``total`` is their sum; ``spread`` the plug-in variance's sum, ``sum (x_i -
    mu_i)^2`` with ``mu_i = (1/2 + x_1 + ... + x_i) / (i + 1)``; ``grid`` the candidate
    means; ``up`` and ``down`` the log capital betting that the mean is above (below)
    each; ``first_out`` the first ``t`` at which each candidate's capital reached ``1 /
    alpha`` (:data:`NEVER` if it has not): the sequence at ``t`` is the candidates not
    out by ``t``, the running intersection (once out, always out), so its whole history
    is kept and a batch's update says where every item of it left the sequence.
    ``sides``: ``"two-sided"``, ``"greater"`` (a lower bound only) or ``"less"``.
    """

    t: int
    total: float
    spread: float
    grid: np.ndarray
    up: np.ndarray
    down: np.ndarray
    first_out: np.ndarray
    alpha: float
    sides: str
    target: int | None = None


def betting_start(alpha: float, sides: str = "two-sided", grid_size: int = 2000,
                  target: int | None = None) -> BettingState:
    """The betting sequence before any value: the candidates ``k / grid_size`` for
    ``k = 1 .. grid_size - 1`` (0 and 1 need none: the ends are moved out one step).

    ``target``: None bets the paper's predictable plug-in ``sqrt(2 log(2/alpha) /
    (sigma^2_{t-1} t log(1 + t)))``; a size ``n`` bets ``sqrt(2 log(2/alpha) /
    (sigma^2_{t-1} max(t, n)))``: the paper's fixed-size bets at ``n`` until then, so
    the sequence is tightest near ``n`` (as the asymptotic one's ``rho``).  Every
    predictable bet keeps the guarantee; only the width moves."""
    grid = np.arange(1, grid_size) / grid_size
    zeros = np.zeros_like(grid)
    return BettingState(0, 0.0, 0.0, grid, zeros, zeros.copy(),
                        np.full(grid.shape, NEVER, dtype=np.int64), float(alpha), sides,
                        None if target is None else int(target))


def _bets(state: BettingState, x: np.ndarray) -> tuple[np.ndarray, float, float]:
    """The predictable plug-in bets of the values ``x`` (each from the values before
    it), and the running sums after them."""
    i = state.t + np.arange(1, x.size + 1, dtype=float)  # (the values' times)
    before_total = state.total + np.concatenate(([0.0], np.cumsum(x)[:-1]))
    mu = (0.5 + before_total + x) / (i + 1.0)  # (mu_i: with x_i)
    sq = (x - mu) ** 2
    before_spread = state.spread + np.concatenate(([0.0], np.cumsum(sq)[:-1]))
    var = (0.25 + before_spread) / i  # (sigma^2_{i-1}: the values before x_i)
    log_alpha = math.log((2.0 if state.sides == "two-sided" else 1.0) / state.alpha)
    scale = i * np.log1p(i) if state.target is None else np.maximum(i, state.target)
    bets = np.sqrt(2.0 * log_alpha / (var * scale))
    return bets, state.total + float(x.sum()), state.spread + float(sq.sum())


def log_capital(x, m, alpha: float, sides: str = "two-sided", target: int | None = None
                ) -> np.ndarray:
    """The log capital at candidate mean ``m`` after each of the values ``x`` (in
    ``[0, 1]``): two-sided, the hedged ``log((K+ + K-) / 2)`` (a martingale too, and at
    least the paper's ``max(K+, K-) / 2``); ``"greater"``, ``log K+`` (betting that the
    mean is above ``m``); ``"less"``, ``log K-``.  The candidate is excluded at the
    first ``t`` where it reaches ``log(1 / alpha)``."""
    state = betting_start(alpha, sides, 2, target)
    x = np.asarray(x, dtype=float)
    bets, _, _ = _bets(state, x)
    up = np.cumsum(np.log1p(np.minimum(bets, TRUNCATION / m) * (x - m)))
    down = np.cumsum(np.log1p(-np.minimum(bets, TRUNCATION / (1.0 - m)) * (x - m)))
    return _level(up, down, sides)


def _level(up, down, sides: str):
    if sides == "greater":
        return up
    if sides == "less":
        return down
    return np.logaddexp(up, down) - math.log(2.0)


CHUNK = 2_000_000
"""Values times candidates computed at once (memory: 16 bytes each)."""


def betting_update(state: BettingState, x) -> tuple[BettingState, np.ndarray, np.ndarray]:
    """The betting sequence after the values ``x`` (in ``[0, 1]``, in arrival order),
    and its ends after each of them (:func:`betting_path`)."""
    x = np.asarray(x, dtype=float)
    if x.size == 0:
        return state, np.empty(0), np.empty(0)
    bets, total, spread = _bets(state, x)
    up, down, first_out = state.up.copy(), state.down.copy(), state.first_out.copy()
    live = np.flatnonzero(first_out == NEVER)  # (an excluded candidate stays out:
    grid = state.grid[live]                    # its capital is no longer needed)
    threshold = math.log(1.0 / state.alpha)
    cap_up = TRUNCATION / grid
    cap_down = TRUNCATION / (1.0 - grid)
    lu, ld, lf = up[live], down[live], first_out[live]
    step = max(1, CHUNK // max(grid.size, 1))
    for start in range(0, x.size if grid.size else 0, step):  # (bounded: x.size / step)
        xs = x[start:start + step, None]
        b = bets[start:start + step, None]
        dev = xs - grid[None, :]
        cu = lu + np.cumsum(np.log1p(np.minimum(b, cap_up) * dev), axis=0)
        cd = ld + np.cumsum(np.log1p(-np.minimum(b, cap_down) * dev), axis=0)
        out = _level(cu, cd, state.sides) >= threshold
        hit = out.any(axis=0)
        when = state.t + start + 1 + out.argmax(axis=0)
        lf = np.where(hit & (lf == NEVER), when, lf)
        lu, ld = cu[-1], cd[-1]
    up[live], down[live], first_out[live] = lu, ld, lf
    new = BettingState(state.t + int(x.size), total, spread, state.grid, up, down, first_out,
                       state.alpha, state.sides, state.target)
    low, high = betting_path(new, np.arange(state.t + 1, new.t + 1))
    return new, low, high


def betting_path(state: BettingState, times) -> tuple[np.ndarray, np.ndarray]:
    """The sequence's ends on ``[0, 1]`` at each of ``times`` (up to ``state.t``): the
    smallest and largest candidates not out by then, moved out by one grid step (a
    mean between two candidates is inside); a one-sided sequence's other end is 0 or 1.
    If every candidate is out (a grid too coarse for the data), ``[0, 1]``: the grid
    never makes the sequence narrower."""
    grid = state.grid
    step = grid[0]
    times = np.asarray(times, dtype=np.int64)
    below = np.maximum.accumulate(state.first_out)  # (first kept from below: > t)
    above = np.maximum.accumulate(state.first_out[::-1])
    lo_index = np.searchsorted(below, times, side="right")
    hi_index = grid.size - 1 - np.searchsorted(above, times, side="right")
    empty = lo_index >= grid.size
    low = np.where(empty, 0.0, grid[np.minimum(lo_index, grid.size - 1)] - step)
    high = np.where(empty, 1.0, grid[np.maximum(hi_index, 0)] + step)
    low, high = np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)
    if state.sides == "greater":
        high = np.ones_like(high)
    elif state.sides == "less":
        low = np.zeros_like(low)
    return low, high

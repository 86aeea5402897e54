"""Bradley-Terry and Davidson ratings by maximum likelihood, for a stack of data sets.

Both take, per replicate, a pair list ``(i, j)`` (each unordered pair once) and the
pair's weighted counts: ``i``'s wins, the ties and ``j``'s wins.  Bradley-Terry:
``P(i beats j) = 1 / (1 + exp(theta_j - theta_i))``, a tie counted as half a win each
(fractional wins are soft labels: the likelihood is their cross-entropy).  Davidson
(1970): ``P(i wins) : P(tie) : P(j wins) = e^theta_i : nu e^((theta_i+theta_j)/2) :
e^theta_j``, with one tie parameter ``nu = e^eta`` for every pair.

Both log-likelihoods are concave; :func:`fit` maximises them by Newton's method with
step halving, at most :data:`MAX_ITERATIONS` steps, every replicate of a stack at once.
The ratings are centred (``sum theta = 0``): the likelihood does not see a common shift,
so each Newton step is solved with ``H - 1 1^T`` (no pseudo-inverse).  The maximum is
finite only when the comparisons connect the systems and no set of them beats the rest
in every battle (Ford 1957: the graph of "i won or tied against j" strongly connected);
:func:`finite_maximum` tells which replicates have one, and ``ridge`` (a penalty
``ridge / 2 * sum theta^2``) makes every maximum finite.
"""

from __future__ import annotations

import numpy as np

__all__ = ["MAX_ITERATIONS", "TOLERANCE", "fit", "finite_maximum", "win_matrix"]

MAX_ITERATIONS = 200
"""Newton steps at most (a concave problem from 0 takes 5-15)."""

TOLERANCE = 1e-11
"""Stop when every rating moves less than this in a step (logits)."""

_HALVINGS = 40


def win_matrix(pairs: np.ndarray, counts: np.ndarray, m: int) -> np.ndarray:
    """``(R, m, m)``: ``W[r, i, j]`` is i's wins over j in replicate r, ties half each.
    ``counts`` is ``(R, P, 3)``: per pair, i's wins, ties, j's wins."""
    w = np.zeros((counts.shape[0], m, m))
    i, j = pairs[:, 0], pairs[:, 1]
    w[:, i, j] = counts[:, :, 0] + counts[:, :, 1] / 2
    w[:, j, i] = counts[:, :, 2] + counts[:, :, 1] / 2
    return w


def finite_maximum(pairs: np.ndarray, counts: np.ndarray, m: int) -> np.ndarray:
    """``(R,)`` bool: whether each replicate's maximum is finite (without a ridge): the
    graph with an edge i -> j where i won or tied a battle against j is strongly
    connected (its reachability by repeated squaring of the boolean matrix)."""
    beat = win_matrix(pairs, counts, m) > 0
    reach = beat | np.eye(m, dtype=bool)[None]
    steps = 0
    while (1 << steps) < m:
        reach = np.matmul(reach.astype(np.float64), reach.astype(np.float64)) > 0
        steps += 1
    return reach.all(axis=(1, 2))


def _incidence(pairs: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    p = len(pairs)
    ei, ej = np.zeros((p, m)), np.zeros((p, m))
    ei[np.arange(p), pairs[:, 0]] = 1.0
    ej[np.arange(p), pairs[:, 1]] = 1.0
    return ei, ej


def _bt(x, pairs, counts, ei, ej, ridge):
    """Bradley-Terry's log-likelihood, gradient and Hessian at ``x`` (R, m)."""
    i, j = pairs[:, 0], pairs[:, 1]
    wi = counts[:, :, 0] + counts[:, :, 1] / 2
    wj = counts[:, :, 2] + counts[:, :, 1] / 2
    n = wi + wj
    d = x[:, i] - x[:, j]
    log_pi = -np.logaddexp(0.0, -d)
    log_pj = -np.logaddexp(0.0, d)
    ll = (wi * log_pi + wj * log_pj).sum(axis=1) - ridge / 2 * (x * x).sum(axis=1)
    pi = np.exp(log_pi)
    r = wi - n * pi  # (d ll / d d)
    grad = r @ ei - r @ ej - ridge * x
    c = n * pi * (1 - pi)
    hess = np.zeros((x.shape[0], x.shape[1], x.shape[1]))
    hess[:, i, j] = c
    hess[:, j, i] = c
    diag = c @ ei + c @ ej
    k = np.arange(x.shape[1])
    hess[:, k, k] = -diag - ridge
    return ll, grad, hess


def _davidson(x, pairs, counts, ei, ej, ridge):
    """Davidson's log-likelihood, gradient and Hessian at ``x`` (R, m + 1): the ratings,
    then ``eta = log nu``."""
    m = x.shape[1] - 1
    i, j = pairs[:, 0], pairs[:, 1]
    th, eta = x[:, :m], x[:, m:]
    wi, t, wj = counts[:, :, 0], counts[:, :, 1], counts[:, :, 2]
    n = wi + t + wj
    a = np.stack([th[:, i], th[:, j], eta + (th[:, i] + th[:, j]) / 2], axis=-1)
    lse = np.logaddexp.reduce(a, axis=-1)
    logp = a - lse[..., None]
    ll = (wi * logp[..., 0] + wj * logp[..., 1] + t * logp[..., 2]).sum(axis=1)
    ll = ll - ridge / 2 * (th * th).sum(axis=1)
    p = np.exp(logp)
    r = np.stack([wi, wj, t], axis=-1) - n[..., None] * p  # (d ll / d a)
    u = np.array([[1.0, 0.0, 0.5], [0.0, 1.0, 0.5], [0.0, 0.0, 1.0]])  # theta_i, theta_j, eta
    g = r @ u.T  # (R, P, 3): the pair's gradient on theta_i, theta_j, eta
    grad = np.concatenate([g[..., 0] @ ei + g[..., 1] @ ej - ridge * th,
                           g[..., 2].sum(axis=1, keepdims=True)], axis=1)
    cov = p[..., :, None] * (np.eye(3) - p[..., None, :])  # diag(p) - p p^T
    h = -n[..., None, None] * np.einsum("ak,rpkl,bl->rpab", u, cov, u)
    hess = np.zeros((x.shape[0], m + 1, m + 1))
    hess[:, i, j] = h[..., 0, 1]
    hess[:, j, i] = h[..., 0, 1]
    k = np.arange(m)
    hess[:, k, k] = h[..., 0, 0] @ ei + h[..., 1, 1] @ ej - ridge
    hess[:, :m, m] = h[..., 0, 2] @ ei + h[..., 1, 2] @ ej
    hess[:, m, :m] = hess[:, :m, m]
    hess[:, m, m] = h[..., 2, 2].sum(axis=1)
    return ll, grad, hess


def fit(pairs, counts, m: int, *, model: str = "bradley-terry", ridge: float = 0.0,
        start: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Maximum-likelihood ratings of every replicate: ``(theta (R, m) centred on 0,
    log nu (R,) or NaNs for Bradley-Terry, converged (R,) bool)``.

    ``pairs`` (P, 2) int, each unordered pair once; ``counts`` (R, P, 3) or (P, 3): per
    pair, the first's wins, the ties, the second's wins (weighted, >= 0).  A replicate
    whose maximum is infinite (:func:`finite_maximum`, with ``ridge = 0``) does not
    converge: its ratings grow at every step until the bound on the steps.  ``start``:
    where every replicate's steps begin (the ratings, then log nu; default 0).
    """
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    counts = np.asarray(counts, dtype=np.float64)
    if counts.ndim == 2:
        counts = counts[None]
    davidson = model == "davidson"
    step_of = _davidson if davidson else _bt
    size = m + 1 if davidson else m
    x = np.zeros((counts.shape[0], size))
    if start is not None:
        x[:] = np.asarray(start, dtype=np.float64)
    ei, ej = _incidence(pairs, m)
    centre = np.zeros(size)
    centre[:m] = 1.0
    shift = np.outer(centre, centre)  # (H - 1 1^T on the ratings: the null direction)
    done = np.zeros(counts.shape[0], dtype=bool)
    for _ in range(MAX_ITERATIONS):
        live = np.flatnonzero(~done)
        if live.size == 0:
            break
        xs, cs = x[live], counts[live]
        ll, grad, hess = step_of(xs, pairs, cs, ei, ej, ridge)
        try:
            delta = np.linalg.solve(shift[None] - hess, grad[..., None])[..., 0]
        except np.linalg.LinAlgError:  # (some replicate's system is unconnected: each its own)
            delta = np.stack([np.linalg.lstsq(shift - h, g, rcond=None)[0]
                              for h, g in zip(hess, grad)])
        t = np.ones(live.size)
        for _ in range(_HALVINGS):
            trial = xs + t[:, None] * delta
            worse = step_of(trial, pairs, cs, ei, ej, ridge)[0] < ll - 1e-12 * (1 + abs(ll))
            if not worse.any():
                break
            t[worse] /= 2
        moved = t[:, None] * delta
        x[live] = xs + moved
        done[live] = np.abs(moved).max(axis=1) < TOLERANCE
    x[:, :m] -= x[:, :m].mean(axis=1, keepdims=True)
    eta = x[:, m] if davidson else np.full(x.shape[0], np.nan)
    return x[:, :m], eta, done

"""Bradley-Terry and Davidson maximum likelihood (pairboot.stats.bradley_terry) against
independent references: choix's optimiser for Bradley-Terry, scipy's for the soft-label
and Davidson likelihoods, each to 1e-6 on incomplete comparison graphs."""

from __future__ import annotations

import numpy as np
import pytest

from pairboot.stats.bradley_terry import finite_maximum, fit


def _battles(m, n, seed, missing=()):
    """Random battles of m systems, a tie now and then, never on the pairs ``missing``."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(scale=0.8, size=m)
    pairs = [(i, j) for i in range(m) for j in range(i + 1, m) if (i, j) not in missing]
    counts = np.zeros((len(pairs), 3))
    for _ in range(n):
        k = rng.integers(len(pairs))
        i, j = pairs[k]
        p = 1 / (1 + np.exp(theta[j] - theta[i]))
        u = rng.random()
        counts[k, 1 if u < 0.15 else (0 if u < 0.15 + 0.85 * p else 2)] += 1
    return np.array(pairs), counts


def _centred(x):
    return x - x.mean()


def test_bradley_terry_equals_choix_on_an_incomplete_graph():
    choix = pytest.importorskip("choix")
    m = 7
    pairs, counts = _battles(m, 500, 3, missing={(0, 1), (0, 2), (2, 5), (3, 6), (1, 4)})
    counts[:, 1] = 0  # (choix has no ties)
    data = [(i, j) for (i, j), c in zip(pairs.tolist(), counts) for _ in range(int(c[0]))]
    data += [(j, i) for (i, j), c in zip(pairs.tolist(), counts) for _ in range(int(c[2]))]
    reference = _centred(choix.opt_pairwise(m, data, alpha=0.0, tol=1e-13))
    theta, _, done = fit(pairs, counts, m)
    assert done.all()
    assert np.max(np.abs(theta[0] - reference)) < 1e-6


def _minimise(negative_loglik, size):
    from scipy.optimize import minimize

    res = minimize(negative_loglik, np.zeros(size), method="BFGS",
                   options={"gtol": 1e-12, "maxiter": 10_000})
    return res.x


def test_ties_as_half_wins_equal_a_scipy_maximisation():
    pytest.importorskip("scipy")
    m = 6
    pairs, counts = _battles(m, 400, 5, missing={(0, 5), (1, 3)})
    wi, wj = counts[:, 0] + counts[:, 1] / 2, counts[:, 2] + counts[:, 1] / 2

    def nll(z):
        t = np.r_[0.0, z]
        d = t[pairs[:, 0]] - t[pairs[:, 1]]
        return (wi * np.logaddexp(0, -d) + wj * np.logaddexp(0, d)).sum()

    reference = _centred(np.r_[0.0, _minimise(nll, m - 1)])
    theta, eta, _ = fit(pairs, counts, m)
    assert np.max(np.abs(theta[0] - reference)) < 1e-6
    assert np.isnan(eta).all()


def test_davidson_equals_a_scipy_maximisation():
    pytest.importorskip("scipy")
    m = 5
    pairs, counts = _battles(m, 600, 8, missing={(0, 4)})

    def nll(z):
        t, eta = np.r_[0.0, z[: m - 1]], z[-1]
        i, j = pairs[:, 0], pairs[:, 1]
        a = np.stack([t[i], t[j], eta + (t[i] + t[j]) / 2], axis=1)
        lse = np.logaddexp.reduce(a, axis=1)
        return -(counts[:, 0] * (a[:, 0] - lse) + counts[:, 2] * (a[:, 1] - lse)
                 + counts[:, 1] * (a[:, 2] - lse)).sum()

    z = _minimise(nll, m)
    theta, eta, done = fit(pairs, counts, m, model="davidson")
    assert done.all()
    assert np.max(np.abs(theta[0] - _centred(np.r_[0.0, z[: m - 1]]))) < 1e-6
    assert abs(eta[0] - z[-1]) < 1e-6


def test_a_stack_of_replicates_is_fitted_as_each_alone():
    m = 5
    pairs, counts = _battles(m, 300, 1)
    rng = np.random.default_rng(0)
    stack = counts[None] * rng.poisson(1.0, size=(6, *counts.shape)) + counts[None]
    together = fit(pairs, stack, m)[0]
    for r in range(len(stack)):
        assert np.allclose(together[r], fit(pairs, stack[r], m)[0], atol=1e-10)


def test_an_unbeaten_system_has_no_finite_maximum_and_a_ridge_gives_one():
    pairs = np.array([[0, 1], [0, 2], [1, 2]])
    counts = np.array([[3.0, 0, 0], [2, 0, 0], [1, 0, 1]])  # system 0 never loses
    assert not finite_maximum(pairs, counts[None], 3)[0]
    theta, _, done = fit(pairs, counts, 3, ridge=1e-3)
    assert done.all() and np.isfinite(theta).all() and theta[0, 0] == theta[0].max()
    counts[0] = [3, 1, 0]  # a tie: 1 reaches 0
    assert finite_maximum(pairs, counts[None], 3)[0]


def test_the_ridge_is_the_penalised_maximum():
    pytest.importorskip("scipy")
    m, ridge = 4, 0.5
    pairs, counts = _battles(m, 80, 11)
    wi, wj = counts[:, 0] + counts[:, 1] / 2, counts[:, 2] + counts[:, 1] / 2

    def nll(t):
        d = t[pairs[:, 0]] - t[pairs[:, 1]]
        return (wi * np.logaddexp(0, -d) + wj * np.logaddexp(0, d)).sum() + ridge / 2 * (
            t @ t)

    reference = _minimise(nll, m)  # (the penalty fixes the shift: already centred)
    assert abs(reference.sum()) < 1e-6
    assert np.max(np.abs(fit(pairs, counts, m, ridge=ridge)[0][0] - reference)) < 1e-6

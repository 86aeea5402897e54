"""Exact references for the cluster and the stratified bootstrap (issue 3).

- Cluster bootstrap: every multiset of drawn groups is enumerated for a handful of groups
  of unequal sizes, giving the exact bootstrap distribution of both estimands (the mean
  over items, ``group_weighting="items"``, and the mean of group means, ``"groups"``).
- Stratified bootstrap: the analytic variance ``sum_h W_h^2 var_pop_h(d) / n_h``, the
  same draws for A and B, the weights, the per-stratum results; groups within strata by
  enumeration again.
- BCa with the jackknife over the resampled units (groups, within strata) recomputed by
  hand with Davison & Hinkley's stratified acceleration.

Tolerances are ``oracle.K`` (4.5) Monte Carlo standard errors, derived where used.
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest

import pairboot
from pairboot.errors import InputError, PairbootWarning, SmallSampleWarning


def quiet_compare(*args, **kwargs):
    """compare() with pairboot's warnings (few groups, unequal sizes) silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PairbootWarning)
        return pairboot.compare(*args, **kwargs)


def clustered_data(sizes, seed, effects=None, strata_of_group=None):
    """Items in groups of the given sizes, shuffled so that groups are not contiguous.

    The per-item difference is the group's effect plus small noise; returns a, b, the
    group label of every item and (if ``strata_of_group``) its stratum label.
    """
    rng = np.random.default_rng(seed)
    g = len(sizes)
    effects = rng.normal(0, 0.2, g) if effects is None else np.asarray(effects)
    gidx = np.repeat(np.arange(g), sizes)
    n = len(gidx)
    a = rng.uniform(0.2, 0.8, n)
    b = a + effects[gidx] + rng.normal(0, 0.05, n)
    perm = rng.permutation(n)
    a, b, gidx = a[perm], b[perm], gidx[perm]
    labels = np.array([f"doc{i}" for i in gidx], dtype=object)
    strata = None
    if strata_of_group is not None:
        strata = np.array([strata_of_group[i] for i in gidx], dtype=object)
    return a, b, labels, strata


def units_of(d, groups, strata):
    """Per unit (group, or item when groups is None): stratum label, sum of d, count, mean."""
    n = len(d)
    groups = np.arange(n) if groups is None else np.asarray(groups)
    strata = np.zeros(n, dtype=object) if strata is None else np.asarray(strata)
    out = {}
    for i in range(n):
        u = out.setdefault(groups[i], {"stratum": strata[i], "sum": 0.0, "count": 0})
        u["sum"] += d[i]
        u["count"] += 1
    units = list(out.values())
    for u in units:
        u["mean"] = u["sum"] / u["count"]
    return units


def by_stratum(units):
    names = sorted({u["stratum"] for u in units}, key=str)
    return names, [[u for u in units if u["stratum"] == h] for h in names]


def stratum_value(us, weighting, counts=None):
    """A stratum's estimand when unit j is drawn counts[j] times (default once each)."""
    c = np.ones(len(us)) if counts is None else np.asarray(counts, float)
    if weighting == "items":
        return c @ [u["sum"] for u in us] / (c @ [u["count"] for u in us])
    return c @ [u["mean"] for u in us] / c.sum()


def estimate_and_jackknife(d, groups, strata, weighting, weights=None):
    """The estimand and, per stratum, its jackknife values (population weights fixed)."""
    units = units_of(d, groups, strata)
    names, strata_units = by_stratum(units)
    if weights is None:
        key = "count" if weighting == "items" else None
        shares = [sum(u[key] for u in us) if key else len(us) for us in strata_units]
    else:
        shares = [weights[h] for h in names]
    w = np.asarray(shares, float) / np.sum(shares)
    theta = np.array([stratum_value(us, weighting) for us in strata_units])
    est = float(w @ theta)
    jack = []
    for h, us in enumerate(strata_units):
        vals = []
        for j in range(len(us)):
            c = np.ones(len(us))
            c[j] = 0
            vals.append(est + w[h] * (stratum_value(us, weighting, c) - theta[h]))
        jack.append(np.array(vals))
    return est, jack, w, names, strata_units


def exact_distribution(oracle, strata_units, w, weighting):
    """Enumerate every multiset of drawn units, independently within each stratum."""
    per_stratum = []
    for us in strata_units:
        per_stratum.append(
            [(stratum_value(us, weighting, c), p) for c, p in oracle.multisets(len(us))]
        )
    vals, probs = [], []
    for combo in itertools.product(*per_stratum):
        vals.append(sum(w[h] * v for h, (v, _) in enumerate(combo)))
        probs.append(math.prod(p for _, p in combo))
    return oracle.merge_atoms(vals, probs)


# --- the cluster bootstrap, exactly ------------------------------------------------------


SIZES = [1, 2, 4, 7]
EFFECTS = [0.40, -0.10, 0.05, -0.05]  # mean over items ~0.004, mean of group means 0.075


@pytest.mark.parametrize("weighting", ["items", "groups"])
def test_cluster_exact_enumeration(oracle, weighting):
    # 4 groups of 1, 2, 4 and 7 items: C(7, 4) = 35 multisets of drawn groups.  Compared:
    # every resampled value is a possible one, mean, sd (standard_error), a chi-square
    # over the atoms, the percentile endpoints (K Monte Carlo s.e.; conftest).
    a, b, groups, _ = clustered_data(SIZES, seed=2, effects=EFFECTS)
    d = b - a
    est, _, w, _, strata_units = estimate_and_jackknife(d, groups, None, weighting)
    values, probs = exact_distribution(oracle, strata_units, w, weighting)
    mean, var, mu4 = oracle.moments(values, probs)

    r = 20_000
    res = quiet_compare(a, b, groups=groups, group_weighting=weighting, n_resamples=r, seed=5)
    assert res.n_groups == 4 and res.n_items == 14
    assert res.group_weighting == weighting
    assert res.estimate == pytest.approx(est, abs=1e-14)
    oracle.check_against_exact(
        res.bootstrap_distribution, values, probs, endpoints=res.confidence_interval
    )
    # standard_error is a sample sd: s.e. ~ sqrt((mu4 - var^2) / R) / (2 sd).
    sd_se = math.sqrt((mu4 - var**2) / r) / (2 * math.sqrt(var))
    assert abs(res.standard_error - math.sqrt(var)) <= oracle.K * sd_se


def test_cluster_estimands_differ_with_unequal_sizes():
    # Mean over items (14 items, the big group dominates) versus mean of the 4 group means.
    a, b, groups, _ = clustered_data(SIZES, seed=2, effects=EFFECTS)
    d = b - a
    items = quiet_compare(a, b, groups=groups, group_weighting="items", n_resamples=2000, seed=1)
    means = quiet_compare(a, b, groups=groups, group_weighting="groups", n_resamples=2000, seed=1)
    group_means = [d[groups == f"doc{i}"].mean() for i in range(4)]
    assert items.estimate == pytest.approx(d.mean(), abs=1e-14)
    assert means.estimate == pytest.approx(np.mean(group_means), abs=1e-14)
    assert abs(items.estimate - means.estimate) > 0.03
    assert items.score_a.estimate == pytest.approx(a.mean(), abs=1e-14)


def test_cluster_estimands_coincide_with_equal_sizes():
    # Equal sizes: sum / count over the drawn groups == mean of their means, draw by draw.
    a, b, groups, _ = clustered_data([3, 3, 3, 3, 3, 3], seed=4)
    items = quiet_compare(a, b, groups=groups, group_weighting="items", n_resamples=3000, seed=8)
    means = quiet_compare(a, b, groups=groups, group_weighting="groups", n_resamples=3000, seed=8)
    assert items.estimate == pytest.approx(means.estimate, abs=1e-14)
    np.testing.assert_allclose(
        items.bootstrap_distribution, means.bootstrap_distribution, rtol=1e-10, atol=1e-14
    )
    assert tuple(items.confidence_interval) == pytest.approx(
        tuple(means.confidence_interval), abs=1e-12
    )


def test_cluster_single_items_is_the_item_bootstrap(oracle):
    # One item per group: the cluster bootstrap is the item bootstrap (same units, same
    # order of first appearance); its distribution has the item bootstrap's variance.
    rng = np.random.default_rng(3)
    a, b = rng.uniform(0, 1, 50), rng.uniform(0, 1, 50)
    groups = [f"q{i}" for i in range(50)]
    res = quiet_compare(a, b, groups=groups, n_resamples=20_000, seed=2)
    var, k4 = np.var(b - a) / 50, oracle.kappa4(b - a) / 50**3
    assert abs(res.standard_error**2 - var) <= oracle.K * oracle.var_se(var, k4, 20_000)
    assert res.n_groups == 50


# --- stratified ------------------------------------------------------------------------------


def stratified_data(seed):
    """Three strata of 15, 25 and 40 items (interleaved) with different spreads."""
    rng = np.random.default_rng(seed)
    sizes, sds, shifts = [15, 25, 40], [0.05, 0.2, 0.1], [0.1, -0.05, 0.02]
    labels = np.repeat(["s0", "s1", "s2"], sizes)
    d = np.concatenate([rng.normal(m, s, k) for m, s, k in zip(shifts, sds, sizes)])
    a = rng.uniform(0.2, 0.8, len(d))
    perm = rng.permutation(len(d))
    return a[perm], (a + d)[perm], labels[perm].astype(object)


@pytest.mark.parametrize("weights", [None, {"s0": 1, "s1": 2, "s2": 7}])
def test_stratified_analytic_variance(oracle, weights):
    # Var(sum_h W_h mean*_h) = sum_h W_h^2 var_pop_h(d) / n_h exactly (independent strata);
    # standard_error^2 is a sample variance of R values: s.e. sqrt((2 var^2 + kappa4) / R),
    # kappa4 = sum_h W_h^4 kappa4_h / n_h^3 the bootstrap mean's fourth cumulant.
    a, b, strata = stratified_data(seed=1)
    d = b - a
    names = ["s0", "s1", "s2"]
    n_h = np.array([np.sum(strata == h) for h in names])
    if weights is None:
        w = n_h / n_h.sum()
    else:
        w = np.array([weights[h] for h in names], float)
        w /= w.sum()
    means = np.array([d[strata == h].mean() for h in names])
    var_h = np.array([np.var(d[strata == h]) for h in names])
    k4_h = np.array([oracle.kappa4(d[strata == h]) for h in names])
    var = float(np.sum(w**2 * var_h / n_h))
    k4 = float(np.sum(w**4 * k4_h / n_h**3))

    r = 20_000
    res = quiet_compare(a, b, strata=strata, strata_weights=weights, n_resamples=r, seed=3)
    assert res.n_strata == 3 and res.n_items == 80
    assert res.estimate == pytest.approx(float(w @ means), abs=1e-14)
    if weights is None:  # the sample shares reproduce the plain mean
        assert res.estimate == pytest.approx(d.mean(), abs=1e-14)
    assert abs(res.standard_error**2 - var) <= oracle.K * oracle.var_se(var, k4, r)
    # Each stratum's mean is unbiased under resampling, so is the combination.
    assert abs(res.bootstrap_distribution.mean() - res.estimate) <= oracle.K * math.sqrt(var / r)


def test_stratified_same_draws_for_both_systems():
    # Paired within strata: A and B use the same drawn items, so the resampled differences
    # are those of (0, b - a) with the same seed (float rounding of the sums aside).
    # Independent draws for A and B would give different values and a larger variance.
    a, b, strata = stratified_data(seed=2)
    r1 = quiet_compare(a, b, strata=strata, n_resamples=3000, seed=4)
    r2 = quiet_compare(np.zeros_like(a), b - a, strata=strata, n_resamples=3000, seed=4)
    np.testing.assert_allclose(r1.bootstrap_distribution, r2.bootstrap_distribution, atol=1e-12)
    assert r1.paired


def test_stratified_per_stratum_results(oracle):
    a, b, strata = stratified_data(seed=3)
    d = b - a
    weights = {"s0": 2.0, "s1": 1.0, "s2": 1.0}
    r = 20_000
    res = quiet_compare(a, b, strata=strata, strata_weights=weights, n_resamples=r, seed=6)
    assert len(res.strata) == 3
    found = {s.name: s for s in res.strata}
    assert set(found) == {"s0", "s1", "s2"}
    for h, s in found.items():
        mask = strata == h
        n = int(mask.sum())
        assert s.n_items == n and s.n_groups is None
        assert s.weight == pytest.approx(weights[h] / 4.0, rel=1e-12)
        assert s.estimate == pytest.approx(d[mask].mean(), abs=1e-14)
        assert s.score_a.estimate == pytest.approx(a[mask].mean(), abs=1e-14)
        assert s.score_b.estimate == pytest.approx(b[mask].mean(), abs=1e-14)
        # each system's own stratum interval: the percentile interval of its resampled
        # stratum means, which lies around its mean
        for score, x in ((s.score_a, a[mask]), (s.score_b, b[mask])):
            low, high = score.confidence_interval
            assert low < x.mean() < high
            assert score.standard_error == pytest.approx(x.std() / math.sqrt(n), rel=0.15)
        # The stratum's own bootstrap sd: sqrt(var_pop_h / n_h) within K s.e. of a sample
        # sd (a sample variance's s.e. over 2 sd, the delta method).
        sd = math.sqrt(np.var(d[mask]) / n)
        se = oracle.var_se(sd**2, oracle.kappa4(d[mask]) / n**3, r) / (2 * sd)
        assert abs(s.standard_error - sd) <= oracle.K * se
        assert s.confidence_interval.low < s.estimate < s.confidence_interval.high
    assert sum(s.weight for s in res.strata) == pytest.approx(1.0)


@pytest.mark.filterwarnings("ignore:strata with fewer than 30 items:pairboot.SmallSampleWarning")
def test_single_unit_stratum_warns_and_runs():
    a, b, strata = stratified_data(seed=4)
    strata = strata.copy()
    strata[0] = "lonely"
    with pytest.warns(SmallSampleWarning, match="lonely"):
        res = pairboot.compare(a, b, strata=strata, n_resamples=1000, seed=1)
    lonely = next(s for s in res.strata if s.name == "lonely")
    assert lonely.n_items == 1 and lonely.standard_error == 0.0
    assert math.isfinite(res.confidence_interval.low)


def test_group_spanning_strata_is_an_error():
    a, b, groups, strata = clustered_data(
        [3, 4, 5], seed=1, strata_of_group={0: "x", 1: "x", 2: "y"}
    )
    strata = strata.copy()
    i = int(np.flatnonzero(groups == "doc1")[0])
    strata[i] = "y"
    with pytest.raises(InputError, match="doc1"):
        pairboot.compare(a, b, groups=groups, strata=strata, n_resamples=100, seed=1)


@pytest.mark.parametrize(
    "weighting, weights",
    [("items", None), ("items", {"x": 1, "y": 1}), ("groups", {"x": 1, "y": 3})],
)
def test_groups_within_strata_exact_enumeration(oracle, weighting, weights):
    # Stratum x: groups of 1 and 3 items; stratum y: groups of 2, 2 and 5 items.  Whole
    # groups are drawn within their stratum: 3 x 10 multisets, the exact distribution of
    # sum_h W_h theta_h.  Same checks as the cluster enumeration.
    a, b, groups, strata = clustered_data(
        [1, 3, 2, 2, 5],
        seed=6,
        effects=[0.2, -0.1, 0.05, 0.15, -0.02],
        strata_of_group={0: "x", 1: "x", 2: "y", 3: "y", 4: "y"},
    )
    d = b - a
    est, _, w, _, strata_units = estimate_and_jackknife(d, groups, strata, weighting, weights)
    values, probs = exact_distribution(oracle, strata_units, w, weighting)
    mean, var, mu4 = oracle.moments(values, probs)

    r = 20_000
    res = quiet_compare(
        a,
        b,
        groups=groups,
        group_weighting=weighting,
        strata=strata,
        strata_weights=weights,
        n_resamples=r,
        seed=7,
    )
    assert res.n_groups == 5 and res.n_strata == 2 and res.n_items == 13
    assert res.estimate == pytest.approx(est, abs=1e-14)
    if weights is None:
        assert res.estimate == pytest.approx(d.mean(), abs=1e-14)
    oracle.check_against_exact(
        res.bootstrap_distribution, values, probs, endpoints=res.confidence_interval
    )
    sd_se = math.sqrt((mu4 - var**2) / r) / (2 * math.sqrt(var))
    assert abs(res.standard_error - math.sqrt(var)) <= oracle.K * sd_se
    found = {s.name: s for s in res.strata}
    assert found["x"].n_groups == 2 and found["y"].n_groups == 3


# --- BCa with the jackknife over units, by hand ------------------------------------------------


BCA_CASES = {
    "groups-items": dict(groups=True, strata=False, weighting="items", weights=None),
    "groups-groups": dict(groups=True, strata=False, weighting="groups", weights=None),
    "strata": dict(groups=False, strata=True, weighting="items", weights={"x": 1, "y": 4}),
    "strata-default": dict(groups=False, strata=True, weighting="items", weights=None),
    "strata-groups": dict(groups=True, strata=True, weighting="items", weights={"x": 3, "y": 1}),
}


@pytest.mark.parametrize("case", BCA_CASES)
def test_bca_by_hand(oracle, case):
    # BCa from result.bootstrap_distribution: z0 from the mid-rank proportion below the
    # estimate; the acceleration from the jackknife over the resampled units (groups, or
    # items), within strata, population weights fixed (Davison & Hinkley's stratified
    # form, see conftest).  Only float rounding separates the two.
    cfg = BCA_CASES[case]
    rng = np.random.default_rng(12)
    sizes = list(rng.integers(1, 9, 14))
    strata_of_group = {i: ("x" if i < 5 else "y") for i in range(14)}
    a, b, groups, strata = clustered_data(sizes, seed=13, strata_of_group=strata_of_group)
    d = b - a
    b = a + d + np.where(d > 0, d**2, 0.0)  # a little skew, so the acceleration matters
    d = b - a
    groups = groups if cfg["groups"] else None
    strata = strata if cfg["strata"] else None
    est, jack, *_ = estimate_and_jackknife(d, groups, strata, cfg["weighting"], cfg["weights"])
    res = quiet_compare(
        a,
        b,
        groups=groups,
        group_weighting=cfg["weighting"],
        strata=strata,
        strata_weights=cfg["weights"],
        method="bca",
        n_resamples=4000,
        seed=17,
    )
    assert res.estimate == pytest.approx(est, abs=1e-14)
    expected = oracle.bca_interval(res.bootstrap_distribution, est, jack, 0.95)
    acc = oracle.jackknife_acceleration(jack)
    assert abs(acc) > 1e-3
    if strata is not None and groups is None:
        # An anchor for the stratified acceleration independent of the jackknife: for a
        # weighted mean of stratum means it is the skewness of the bootstrap mean over 6,
        # k3 / (6 k2**1.5), k2 = sum w_h**2 var_h / n_h, k3 = sum w_h**3 mu3_h / n_h**2.
        names = sorted(set(strata))
        n_h = np.array([np.sum(strata == h) for h in names], float)
        w = n_h if cfg["weights"] is None else np.array([cfg["weights"][h] for h in names], float)
        w = w / w.sum()
        dev = [d[strata == h] - d[strata == h].mean() for h in names]
        k2 = sum(w[i] ** 2 * np.mean(x**2) / n_h[i] for i, x in enumerate(dev))
        k3 = sum(w[i] ** 3 * np.mean(x**3) / n_h[i] ** 2 for i, x in enumerate(dev))
        assert acc == pytest.approx(k3 / (6 * k2**1.5), rel=1e-10)
    np.testing.assert_allclose(tuple(res.confidence_interval), expected, rtol=1e-10, atol=1e-14)

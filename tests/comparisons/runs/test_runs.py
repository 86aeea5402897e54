"""Several runs per system: ``compare(a, b, runs="seeds" | "samples", paired_runs=...)``.

Tiers, as elsewhere in the suite:

* external reference: Student's t and the chi-square quantile of :mod:`pairboot.stats.tdist`
  against ``scipy.stats``;
* oracles: the two-way analysis of variance, Satterthwaite's degrees of freedom and the
  projections recomputed here with plain loops (never with pairboot), and the exact
  bootstrap variance of a tiny items x runs table by enumerating every draw of the items
  and of each system's runs;
* simulations (``slow``): coverage of the 95% interval in the random-effects model of
  issue 16 at 3, 5 and 10 training seeds, the under-coverage of "average the runs, then
  bootstrap the items", and the projection against the variance simulated at the
  projected design.

Every test is seeded; Monte Carlo tolerances are ``K_SIGMA`` standard errors.
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from scipy import stats

import pairboot
from pairboot.stats.tdist import chi2_quantile, t_quantile, t_sf

K_SIGMA = 4.5  # as in conftest: a two-sided false alarm rate of about 7e-6 per check
small_sample = pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")

# --- hand-chosen tables -----------------------------------------------------------------
# 5 items; A has 3 runs, B has 4 (the systems may have different numbers of runs).  The
# run effects are large enough that no run term is truncated at 0 (checked below).
A = np.array([
    [0.61, 0.70, 0.52],
    [0.33, 0.41, 0.30],
    [0.90, 0.95, 0.81],
    [0.12, 0.26, 0.07],
    [0.55, 0.71, 0.49],
])
B = np.array([
    [0.72, 0.60, 0.83, 0.70],
    [0.41, 0.29, 0.52, 0.33],
    [0.88, 0.80, 0.97, 0.91],
    [0.30, 0.15, 0.39, 0.22],
    [0.69, 0.52, 0.80, 0.61],
])
B3 = np.array([  # 3 runs, paired with A's: item, run and residual parts all positive
    [0.75, 0.74, 0.68],
    [0.33, 0.33, 0.28],
    [1.12, 1.11, 1.09],
    [0.17, 0.27, 0.14],
    [0.72, 0.78, 0.68],
])


# --- the oracle: two-way mean squares with loops -----------------------------------------


def mean_squares(y):
    """``(MS_item, MS_run, MS_res)`` of an items x runs table, one loop per sum."""
    rows, cols = len(y), len(y[0])
    grand = sum(sum(row) for row in y) / (rows * cols)
    item = [sum(row) / cols for row in y]
    run = [sum(y[i][j] for i in range(rows)) / rows for j in range(cols)]
    ss_item = cols * sum((m - grand) ** 2 for m in item)
    ss_run = rows * sum((m - grand) ** 2 for m in run)
    ss_res = sum((y[i][j] - item[i] - run[j] + grand) ** 2
                 for i in range(rows) for j in range(cols))
    return (ss_item / (rows - 1), ss_run / (cols - 1),
            ss_res / ((rows - 1) * (cols - 1)))


def sample_variance(values):
    m = sum(values) / len(values)
    return sum((v - m) ** 2 for v in values) / (len(values) - 1)


def satterthwaite(terms, floor, runs=(), alpha=0.05):
    """Degrees of freedom of ``sum_k c_k MS_k`` from ``(c_k MS_k, df_k)`` pairs, as
    pairboot defines them for a two-sided interval at ``1 - alpha``: Satterthwaite's
    formula (the subtracted ``MS_res`` included) with the run terms (positions ``runs``)
    at ``MS df / chi2_df(min(1/2, sqrt(2 alpha)))``, at least ``floor`` (the fewest degrees of
    freedom of a run term) and 1."""
    terms = [(v * d / stats.chi2.ppf(min(0.5, math.sqrt(2 * alpha)), d) if k in runs else v, d)
             for k, (v, d) in enumerate(terms)]
    return max(floor, 1.0, sum(v for v, _ in terms) ** 2 / sum(v * v / d for v, d in terms))


def unpaired_oracle(ya, yb):
    """``V``, its degrees of freedom and the components, for runs='seeds' unpaired."""
    n = len(ya)
    d = [sum(yb[i]) / len(yb[i]) - sum(ya[i]) / len(ya[i]) for i in range(n)]
    s2d = sample_variance(d)
    variance, terms, run, res = s2d / n, [(s2d / n, n - 1)], [], []
    for y in (ya, yb):
        r = len(y[0])
        _, ms_run, ms_res = mean_squares(y)
        assert ms_run > ms_res  # the hand tables keep every run term (no truncation)
        variance += (ms_run - ms_res) / (n * r)
        terms += [(ms_run / (n * r), r - 1), (-ms_res / (n * r), (n - 1) * (r - 1))]
        run.append((ms_run - ms_res) / n)
        res.append(ms_res)
    item = s2d - res[0] / len(ya[0]) - res[1] / len(yb[0])
    floor = min(len(ya[0]), len(yb[0])) - 1
    return {"variance": variance, "df": satterthwaite(terms, floor, runs=(1, 3)), "item": item,
            "run": run, "res": res,
            "df_at": lambda alpha: satterthwaite(terms, floor, runs=(1, 3), alpha=alpha)}


def paired_oracle(ya, yb, truncated=False):
    n, r = len(ya), len(ya[0])
    d = [[yb[i][j] - ya[i][j] for j in range(r)] for i in range(n)]
    ms_item, ms_run, ms_res = mean_squares(d)
    if truncated:  # a negative run term: V alone, the one-table form
        assert ms_run < ms_res
        return (ms_item + ms_run - ms_res) / (n * r)
    assert ms_item > ms_res and ms_run > ms_res  # no truncation in the hand table
    c = 1.0 / (n * r)
    return {"variance": (ms_item + ms_run - ms_res) * c,
            "df": satterthwaite([(ms_item * c, n - 1), (ms_run * c, r - 1),
                                 (-ms_res * c, (n - 1) * (r - 1))], r - 1, runs=(1,)),
            "item": (ms_item - ms_res) / r, "run": [(ms_run - ms_res) / n], "res": [ms_res]}


def projected(oracle, n_items, runs):
    """The variance of the estimate at ``n_items`` items and ``runs`` runs per system."""
    return (oracle["item"] / n_items
            + sum(s / r for s, r in zip(oracle["run"], runs))
            + sum(s / (n_items * r) for s, r in zip(oracle["res"], runs)))


# --- Student's t against scipy -----------------------------------------------------------


@pytest.mark.parametrize("df", [1, 2.5, 3, 10, 1e6])
def test_t_against_scipy(df):
    # the lower tail is bisected on p itself: through 1 - (1 - p) it lost digits (relative
    # error 3e-8 at p = 1e-10, df = 3, before the fix)
    for p in (1e-10, 1e-8, 1e-3, 0.025, 0.2, 0.5, 0.6, 0.975, 0.999, 1 - 1e-8):
        want = stats.t.ppf(p, df)
        assert abs(t_quantile(p, df) - want) <= max(1e-10 * abs(want), 1e-9), p
    for t in (-50.0, -4.0, -1.0, 0.0, 0.3, 1.96, 2.5, 12.0, 200.0):
        want = stats.t.sf(t, df)
        assert abs(t_sf(t, df) - want) <= max(1e-10 * want, 1e-9), t


def test_t_quantile_refuses_p_outside_0_1():
    with pytest.raises(ValueError, match="p must be in"):
        t_quantile(1.0, 3)
    with pytest.raises(ValueError, match="p must be in"):
        chi2_quantile(0.0, 3)


@pytest.mark.parametrize("df", [0.5, 1, 2, 2.7, 4, 49, 199, 10_000])
def test_chi2_quantile_against_scipy(df):
    for p in (1e-10, 1e-6, 0.01, 1 / 3, 0.5, 0.975, 1 - 1e-9):
        want = stats.chi2.ppf(p, df)
        assert chi2_quantile(p, df) == pytest.approx(want, rel=1e-10), p


# --- the analysis of variance against the oracle -----------------------------------------


@small_sample
def test_seeds_variance_and_df_match_the_anova():
    res = pairboot.compare(A, B, runs="seeds", n_resamples=500, seed=1)
    want = unpaired_oracle(A.tolist(), B.tolist())
    info = res.runs
    assert info.variance == pytest.approx(want["variance"], rel=1e-12, abs=0)
    assert res.standard_error == pytest.approx(math.sqrt(want["variance"]), rel=1e-12)
    assert info.degrees_of_freedom == pytest.approx(want["df"], rel=1e-12)
    assert (info.runs_a, info.runs_b, info.n_items) == (3, 4, 5)
    assert res.estimate == pytest.approx(B.mean() - A.mean(), rel=1e-15)
    comp = info.variance_components
    assert comp["B - A"]["item"]["variance"] == pytest.approx(want["item"], rel=1e-12)
    for k, name in enumerate("AB"):
        assert comp[name]["run"]["variance"] == pytest.approx(want["run"][k], rel=1e-12)
        assert comp[name]["residual"]["variance"] == pytest.approx(want["res"][k], rel=1e-12)
    shares = [c["share"] for system in comp.values() for c in system.values()]
    assert sum(shares) == pytest.approx(1.0, rel=1e-12)  # nothing truncated: parts add to V
    # the interval is the t interval on V with those degrees of freedom
    half = stats.t.ppf(0.975, want["df"]) * math.sqrt(want["variance"])
    assert res.confidence_interval.low == pytest.approx(res.estimate - half, rel=1e-9)
    assert res.confidence_interval.high == pytest.approx(res.estimate + half, rel=1e-9)
    # the p-value is the level whose interval ends at 0: 2 P(T > |t|) with the df at it
    t = abs(res.estimate) / math.sqrt(want["variance"])
    assert res.p_value == pytest.approx(2 * stats.t.sf(t, want["df_at"](res.p_value)),
                                        rel=1e-8)
    assert 2 * stats.t.sf(t, want["df_at"](res.p_value * 1.001)) < res.p_value * 1.001
    assert 2 * stats.t.sf(t, want["df_at"](res.p_value / 1.001)) > res.p_value / 1.001
    # the replicates are rescaled to V
    assert np.var(res.bootstrap_distribution, ddof=1) == pytest.approx(want["variance"],
                                                                       rel=1e-12)


@small_sample
def test_paired_runs_variance_and_df_match_the_anova():
    res = pairboot.compare(A, B3, runs="seeds", paired_runs=True, n_resamples=500, seed=2)
    want = paired_oracle(A.tolist(), B3.tolist())
    assert res.runs.paired_runs
    assert res.runs.variance == pytest.approx(want["variance"], rel=1e-12, abs=0)
    assert res.runs.degrees_of_freedom == pytest.approx(want["df"], rel=1e-12)
    comp = res.runs.variance_components["B - A"]
    assert comp["item"]["variance"] == pytest.approx(want["item"], rel=1e-12)
    assert comp["run"]["variance"] == pytest.approx(want["run"][0], rel=1e-12)
    assert comp["residual"]["variance"] == pytest.approx(want["res"][0], rel=1e-12)


@small_sample
def test_samples_with_missing_cells_match_the_item_means():
    a = A.copy()
    b = B.copy()
    a[1, 2] = a[3, 0] = np.nan
    b[0, 3] = b[2, 1] = b[2, 3] = np.nan
    res = pairboot.compare(a, b, runs="samples", n_resamples=500, seed=3)
    n = len(a)
    means = []
    for y in (a, b):
        rows = [[v for v in row if not math.isnan(v)] for row in y.tolist()]
        means.append([sum(row) / len(row) for row in rows])
    d = [mb - ma for ma, mb in zip(*means)]
    assert res.runs.variance == pytest.approx(sample_variance(d) / n, rel=1e-12, abs=0)
    assert res.runs.degrees_of_freedom == n - 1
    for name, y in (("A", a), ("B", b)):
        rows = [[v for v in row if not math.isnan(v)] for row in y.tolist()]
        ss = sum((v - sum(row) / len(row)) ** 2 for row in rows for v in row)
        within = ss / sum(len(row) - 1 for row in rows)
        got = res.runs.variance_components[name]["within"]["variance"]
        assert got == pytest.approx(within, rel=1e-12)
    # the interval is the item bootstrap of compare() on the items' means
    plain = pairboot.compare(np.array(means[0]), np.array(means[1]), n_resamples=500,
                             seed=3)
    assert res.confidence_interval == plain.confidence_interval
    np.testing.assert_array_equal(res.bootstrap_distribution, plain.bootstrap_distribution)


# --- the two-way bootstrap against the enumeration of every draw -------------------------

TINY_A = np.array([[0.2, 0.5], [0.9, 0.6], [0.4, 0.8]])
TINY_B = np.array([[0.7, 0.3], [1.0, 1.2], [0.1, 0.9]])


def enumerated_bootstrap(ya, yb, paired):
    """Every draw (items with replacement x each system's runs with replacement), all
    equally likely: the exact mean, variance and fourth central moment of the replicate
    ``grand mean of B - grand mean of A``."""
    n, ra, rb = len(ya), len(ya[0]), len(yb[0])
    values = []
    for items in itertools.product(range(n), repeat=n):
        for runs_a in itertools.product(range(ra), repeat=ra):
            runs_b_all = [runs_a] if paired else itertools.product(range(rb), repeat=rb)
            for runs_b in runs_b_all:
                mb = sum(yb[i][j] for i in items for j in runs_b) / (n * rb)
                ma = sum(ya[i][j] for i in items for j in runs_a) / (n * ra)
                values.append(mb - ma)
    m = sum(values) / len(values)
    var = sum((v - m) ** 2 for v in values) / len(values)
    mu4 = sum((v - m) ** 4 for v in values) / len(values)
    return var, mu4


def closed_form_bootstrap_variance(tables):
    """The two-way bootstrap's variance of the replicate, derived by conditioning on the
    items' draw: ``(n-1)/n S2_D / n + sum_s (R_s-1)/R_s [MS_run,s + (n-1)/n MS_res,s] /
    (n R_s)`` over the systems' tables (one table of differences under paired runs, with
    ``S2_D = MS_item / R``).  The run variance is shrunk by ``(R-1)/R`` and the residual
    is counted a second time through the runs' draw."""
    n = len(tables[0][1])
    d = [sum(sign * sum(y[i]) / len(y[i]) for sign, y in tables) for i in range(n)]
    total = (n - 1) / n * sample_variance(d) / n
    for _, y in tables:
        r = len(y[0])
        _, ms_run, ms_res = mean_squares(y)
        total += (r - 1) / r * (ms_run + (n - 1) / n * ms_res) / (n * r)
    return total


@pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")
@pytest.mark.filterwarnings("ignore::pairboot.DegenerateDataWarning")
@pytest.mark.parametrize("paired", [False, True])
def test_bootstrap_variance_against_enumeration(paired):
    ya, yb = TINY_A.tolist(), TINY_B.tolist()
    exact, mu4 = enumerated_bootstrap(ya, yb, paired)
    if paired:
        tables = [(1, [[b - a for a, b in zip(ra, rb)] for ra, rb in zip(ya, yb)])]
    else:
        tables = [(-1, ya), (1, yb)]
    assert exact == pytest.approx(closed_form_bootstrap_variance(tables), rel=1e-12)
    r = 20_000
    res = pairboot.compare(TINY_A, TINY_B, runs="seeds", paired_runs=paired, n_resamples=r,
                           seed=11)
    # variance of a sample variance (ddof=1) of r iid draws
    se = math.sqrt((mu4 - exact**2 * (r - 3) / (r - 1)) / r)
    assert abs(res.runs.bootstrap_variance - exact) <= K_SIGMA * se
    # ... and it is not V: the interval rescales it
    assert res.runs.variance != pytest.approx(exact, rel=0.05)


# --- exact cases ---------------------------------------------------------------------------


@small_sample
def test_one_run_each_is_the_plain_comparison():
    plain = pairboot.compare(A[:, 0], B[:, 0], n_resamples=2000, seed=7)
    for kind in ("seeds", "samples"):
        res = pairboot.compare(A[:, :1], B[:, :1], runs=kind, n_resamples=2000, seed=7)
        assert res.estimate == plain.estimate
        assert res.confidence_interval == plain.confidence_interval
        assert res.p_value == plain.p_value
        np.testing.assert_array_equal(res.bootstrap_distribution,
                                      plain.bootstrap_distribution)


@small_sample
def test_paired_runs_with_a_constant_shift_is_a_point():
    # dyadic numbers and 4 x 4 cells: every sum and mean is exact in binary
    rng = np.random.default_rng(5)
    a = rng.integers(0, 64, size=(4, 4)) / 64.0
    c = 0.375
    res = pairboot.compare(a, a + c, runs="seeds", paired_runs=True, n_resamples=500,
                           seed=5)
    assert res.estimate == c
    assert tuple(res.confidence_interval) == (c, c)
    assert res.runs.variance == 0.0


@pytest.mark.parametrize(
    ("keywords", "param"),
    [
        ({"runs": "samples", "metric": "f1"}, "a"),  # a pooled metric needs statistics
        ({"runs": "seeds", "metric": "f1"}, "a"),
        ({"runs": "seeds", "groups": np.array([0, 0, 0, 0, 0])}, "groups"),  # one group
        ({"runs": "seeds", "method": "bca"}, "method"),
        ({"runs": "seeds", "paired_runs": True}, "paired_runs"),  # 3 runs and 4
        ({"runs": "samples", "paired_runs": True}, "paired_runs"),
        ({"runs": "epochs"}, "runs"),
        ({"paired_runs": True}, "paired_runs"),  # without runs
    ],
)
def test_refusals_name_the_argument(keywords, param):
    with pytest.raises(pairboot.InputError) as info:
        pairboot.compare(A, B, n_resamples=100, seed=0, **keywords)
    assert info.value.param == param
    assert param in str(info.value)


def test_missing_cell_with_seeds_is_refused():
    b = B.copy()
    b[2, 1] = np.nan
    with pytest.raises(pairboot.InputError, match="item 2, run 1") as info:
        pairboot.compare(A, b, runs="seeds", n_resamples=100, seed=0)
    assert info.value.param == "b"


@small_sample
def test_to_dict_and_projection():
    res = pairboot.compare(A, B, runs="seeds", n_resamples=500, seed=4)
    out = res.to_dict()
    json.dumps(out)  # plain JSON
    runs = out["runs"]
    assert set(runs["variance_components"]) == {"A", "B", "B - A"}
    assert runs["degrees_of_freedom"] == res.runs.degrees_of_freedom
    want = unpaired_oracle(A.tolist(), B.tolist())
    n = len(A)
    items2 = projected(want, 2 * n, [3, 4])
    runs2x = projected(want, n, [6, 8])  # each system's runs doubled
    assert runs["projection"]["twice_the_items"]["variance"] == pytest.approx(items2,
                                                                               rel=1e-12)
    assert runs["projection"]["twice_the_runs"]["variance"] == pytest.approx(runs2x,
                                                                              rel=1e-12)
    got = res.projection(n_items=2 * n)
    assert got["variance"] == pytest.approx(items2, rel=1e-12)
    assert got["width_ratio"] == pytest.approx(math.sqrt(items2 / want["variance"]),
                                               rel=1e-12)
    assert got["floor"] == pytest.approx(want["run"][0] / 3 + want["run"][1] / 4, rel=1e-12)
    got = res.projection(n_runs=6)
    assert got["variance"] == pytest.approx(projected(want, n, [6, 6]), rel=1e-12)
    assert got["floor"] == pytest.approx((want["run"][0] + want["run"][1]) / 6, rel=1e-12)
    assert res.projection()["variance"] == pytest.approx(want["variance"], rel=1e-12)
    # paired runs: one table of differences
    res = pairboot.compare(A, B3, runs="seeds", paired_runs=True, n_resamples=500, seed=4)
    want = paired_oracle(A.tolist(), B3.tolist())
    got = res.projection(n_items=40, n_runs=9)
    assert got["variance"] == pytest.approx(projected(want, 40, [9]), rel=1e-12)
    assert res.projection()["variance"] == pytest.approx(want["variance"], rel=1e-12)


# --- simulations (slow) ----------------------------------------------------------------------
# Issue 16's model, per system s, item i, run r:
#     y_s,ir = mu_s + a_i + [s = B] delta_i + b_s,r + e_s,ir
# a_i ~ N(0, 1) (shared item difficulty), delta_i ~ N(0, 0.5^2) (the paired item
# difference), b_s,r ~ N(0, 0.3^2) (the training seed), e ~ N(0, 1) (noise).  The
# estimand is mu_B - mu_A = 0 (items and seeds both random); the estimate's variance is
#     0.5^2 / n + 2 * 0.3^2 / R + 2 * 1 / (n R).

N_ITEMS = 200
SD_ITEM, SD_DELTA, SD_SEED, SD_NOISE = 1.0, 0.5, 0.3, 1.0
N_SIM = 2000  # data sets per design: binomial sd of a coverage near 0.95 is 0.0049
R_SEEDS = 100  # a seeds interval is a t interval on V: R only moves the (unused) replicates
R_BOOT = 1000  # the plain percentile interval of the run means


def simulate(rng, n, runs, paired=False, sd_seed_a=SD_SEED):
    """One data set: A and B, items x runs each.  With ``paired``, run r of A and of B
    share a seed effect (sd 0.3) and add their own (sd 0.2); ``sd_seed_a`` is A's seed
    effect (unpaired)."""
    item = rng.normal(0, SD_ITEM, n)
    delta = rng.normal(0, SD_DELTA, n)
    if paired:
        shared = rng.normal(0, SD_SEED, runs)
        seed_a, seed_b = shared + rng.normal(0, 0.2, runs), shared + rng.normal(0, 0.2, runs)
    else:
        seed_a, seed_b = rng.normal(0, sd_seed_a, runs), rng.normal(0, SD_SEED, runs)
    a = item[:, None] + seed_a[None, :] + rng.normal(0, SD_NOISE, (n, runs))
    b = (item + delta)[:, None] + seed_b[None, :] + rng.normal(0, SD_NOISE, (n, runs))
    return a, b


def covers(res, truth=0.0):
    return res.confidence_interval.low <= truth <= res.confidence_interval.high


def simulated_variance(rng, n, runs, n_sim=4000):
    """The variance of the estimate over ``n_sim`` data sets at the design (n, runs)."""
    est = [float(np.subtract(*(y.mean() for y in simulate(rng, n, runs)[::-1])))
           for _ in range(n_sim)]
    return float(np.var(est, ddof=1)), math.sqrt(2.0 / (n_sim - 1))


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")
@pytest.mark.parametrize("runs", [3, 5, 10])
def test_seeds_coverage_and_projection(runs):
    rng = np.random.default_rng(16_000 + runs)
    hits = hits_items = 0
    proj_items, proj_runs = [], []
    for k in range(N_SIM):
        a, b = simulate(rng, N_ITEMS, runs)
        res = pairboot.compare(a, b, runs="seeds", n_resamples=R_SEEDS, seed=k)
        hits += covers(res)
        proj_items.append(res.projection(n_items=2 * N_ITEMS)["variance"])
        proj_runs.append(res.projection(n_items=N_ITEMS // 2, n_runs=2 * runs)["variance"])
        if runs == 3:  # the common practice: average the runs, bootstrap the items
            plain = pairboot.compare(a.mean(axis=1), b.mean(axis=1), n_resamples=R_BOOT,
                                     seed=k)
            hits_items += covers(plain)
    coverage = hits / N_SIM
    print(f"\n{runs} seeds: coverage {coverage:.4f}", end="")
    assert 0.93 <= coverage <= 0.97
    if runs == 3:
        print(f", items only {hits_items / N_SIM:.4f}", end="")
        assert hits_items / N_SIM < 0.85
    # the projection: its mean over the data sets against the variance simulated at the
    # projected design (Monte Carlo error of both well under the 10% allowed: printed)
    for projections, design in ((proj_items, (2 * N_ITEMS, runs)),
                                (proj_runs, (N_ITEMS // 2, 2 * runs))):
        truth, truth_rel_se = simulated_variance(rng, *design)
        mean = float(np.mean(projections))
        mc = math.hypot(float(np.std(projections, ddof=1)) / math.sqrt(N_SIM) / mean,
                        truth_rel_se)
        print(f", projection to {design}: ratio {mean / truth:.3f} (mc {mc:.3f})", end="")
        assert abs(mean / truth - 1.0) <= 0.10
        assert 3.29 * mc < 0.10  # the check can tell a 10% error from noise


# Satterthwaite's degrees of freedom are estimated from the data.  When one run term with
# few degrees of freedom carries most of V (paired runs; or one system's seeds alone), the
# plug-in df are too large exactly when that term comes out small, and the t interval
# under-covered at 3 seeds (paired runs 0.924, a seed effect in B only 0.929, on 3,000
# data sets).  With the run mean squares at the upper end of a one-sided interval in the
# df formula (pairboot.comparisons.runs.analysis._satterthwaite), these tests measure 0.9465 and
# 0.9435; the
# issue's band [0.93, 0.97] holds for these designs too.


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")
@pytest.mark.parametrize("runs", [3, 10])
def test_paired_runs_coverage(runs):
    rng = np.random.default_rng(16_100 + runs)
    hits = sum(covers(pairboot.compare(*simulate(rng, N_ITEMS, runs, paired=True),
                                       runs="seeds", paired_runs=True, n_resamples=R_SEEDS,
                                       seed=k))
               for k in range(N_SIM))
    print(f"\npaired runs, {runs} seeds: coverage {hits / N_SIM:.4f}", end="")
    assert 0.93 <= hits / N_SIM <= 0.97


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")
def test_seeds_coverage_when_one_system_alone_has_a_seed_effect():
    rng = np.random.default_rng(16_200)
    hits = 0
    for k in range(N_SIM):
        a, b = simulate(rng, N_ITEMS, 3, sd_seed_a=0.0)  # e.g. A is not trained
        hits += covers(pairboot.compare(a, b, runs="seeds", n_resamples=R_SEEDS, seed=k))
    print(f"\nseed effect in B only, 3 seeds: coverage {hits / N_SIM:.4f}", end="")
    assert 0.93 <= hits / N_SIM <= 0.97


# --- the split of V adds up, and the projection starts at 1 ---------------------------------


def _shares(res):
    return sum(c["share"] for parts in res.runs.variance_components.values()
               for c in parts.values())


@pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")
@pytest.mark.parametrize("keywords", [
    {"runs": "samples", "groups": [f"g{i // 3}" for i in range(30)]},
    {"runs": "samples", "strata": [f"s{i % 3}" for i in range(30)],
     "strata_weights": {"s0": 1, "s1": 5, "s2": 2}},
    {"runs": "samples"},
    {"runs": "seeds", "paired_runs": True},
    {"runs": "seeds", "groups": [f"g{i // 3}" for i in range(30)]},
])
def test_projection_at_the_present_design_is_the_present_width(keywords):
    rng = np.random.default_rng(7)
    a = rng.normal(size=(30, 4))
    b = a + rng.normal(0, 0.3, (30, 1)) + rng.normal(size=(30, 4))
    b[::4, 3] = np.nan if keywords["runs"] == "samples" else b[::4, 3]
    res = pairboot.compare(a, b, n_resamples=1000, seed=1, **keywords)
    assert res.projection()["width_ratio"] == pytest.approx(1.0, rel=1e-12)
    assert _shares(res) <= 1.0 + 1e-12
    doubled = res.projection(runs_factor=2.0)
    assert doubled["width_ratio"] <= 1.0


@pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")
def test_paired_runs_split_adds_up_when_the_run_term_is_negative():
    rng = np.random.default_rng(3)
    a = rng.normal(size=(40, 3))
    b = a + 0.2 + rng.normal(0, 1, (40, 3))
    d = b - a
    b -= d.mean(axis=0) - d.mean()  # every run of the differences has the same mean
    res = pairboot.compare(a, b, runs="seeds", paired_runs=True, n_resamples=1000, seed=2)
    assert res.runs.variance_components["B - A"]["run"]["variance"] == 0.0
    assert _shares(res) == pytest.approx(1.0, rel=1e-12)  # the parts shown add up to V
    want = paired_oracle(a.tolist(), b.tolist(), truncated=True)
    assert res.runs.variance == pytest.approx(want, rel=1e-12)  # the one-table form


def test_one_run_in_one_system_is_said():
    rng = np.random.default_rng(4)
    a, b = rng.normal(size=(50, 1)), rng.normal(size=(50, 3))
    with pytest.warns(pairboot.SmallSampleWarning) as record:
        pairboot.compare(a, b, runs="seeds", n_resamples=1000, seed=1)
    assert any("A has one run" in str(w.message) for w in record)


def test_one_run_of_each_system_is_said():
    """runs='seeds' with one run each is the plain comparison (no run-to-run variation to
    estimate): it says so, as a warning on the result, for two systems and a family."""
    rng = np.random.default_rng(4)
    a, b, c = (rng.normal(size=(50, 1)) for _ in range(3))
    with pytest.warns(pairboot.SmallSampleWarning, match="one run of each system"):
        res = pairboot.compare(a, b, runs="seeds", n_resamples=1000, seed=1)
    assert any("one run of each system" in w and "covers the sampling of test items only"
               in w for w in res.warnings)
    with pytest.warns(pairboot.SmallSampleWarning, match="one run of each system"):
        fam = pairboot.compare_many({"a": a, "b": b, "c": c}, runs="seeds",
                                    n_resamples=1000, seed=1)
    assert any("one run of each system" in w for w in fam.warnings)

"""Coverage of the bootstrap intervals (percentile, basic, normal, BCa, studentized) and of
the paired t on skewed differences, by the number of units n (pairboot).

The tables of docs/small_samples.md come from this script with 4,000 data sets per cell
(2,000 at n = 500): about 10 minutes per setting on one shared core, 13 settings.  Run:

    python docs/simulations/skew_coverage.py run [SETTING ...] [--n-data N]
    python docs/simulations/skew_coverage.py table
    python docs/simulations/skew_coverage.py check
    python docs/simulations/skew_coverage.py family

``run`` simulates the settings named (default: all; see SETTINGS) and writes one
``skew_coverage/<setting>.npz`` per setting in the working directory; ``table`` reads them
and prints the tables of docs/small_samples.md (coverage by method, how often the note
of pairboot.core.skew fires and the coverage where it does, the one-sided errors a
margin's test inherits, the widths); ``check`` compares this script's bootstrap with
compare()'s; ``family`` is the three-system family of docs/small_samples.md.

Each data set's units are resampled here, R = 2,000 times, in numpy (pairboot's own
pipeline per data set took ten times as long); the replicates, the delta-method standard
errors of the studentized interval and BCa's jackknife are put in pairboot's Bootstrap,
and every method's interval is read off it by pairboot.stats.intervals.bounds, as
compare(method=...) reads it (``check``: the estimate, standard error and acceleration
equal compare()'s, the ends within Monte Carlo error).  The paired t is
``mean +- t_{n-1} s / sqrt(n)`` (groups: the ratio estimator's linearised standard error
with ``G / (G - 1)``, on ``G - 1`` degrees of freedom).  An interval covers when
``low <= truth <= high``; an undefined one (NaN: a studentized interval resting on
resamples without a standard error) does not.  The one-sided 95% bounds are the ends of
the two-sided 90% interval (as compare() reads a margin's test).  The statistic of the
note, recorded per data set, is ``6 a``, BCa's acceleration times six: the skewness of
the units' influence values over sqrt(n) (for a mean of items: the sample skewness g1 of
the differences over sqrt(n)).
"""
import os
import sys
import time
import warnings

import numpy as np

N_DATA = 4000  # data sets per cell (--n-data); half as many at n = 500 (see n_for)
R = 2000
SIZES = (20, 30, 50, 100, 200, 500)
METHODS = ("percentile", "basic", "normal", "bca", "studentized", "t")
OUT = "skew_coverage"
ALPACA = os.environ.get("ALPACA_EVAL_DIR", "/work/shared/data/real/alpaca_eval")
ALPACA_PAIRS = {  # setting: (A, B); the per-item difference of the preference for B over A
    "alpaca 7b vs gpt-3.5": ("alpaca-7b", "gpt-3.5-turbo-1106"),
    "alpaca davinci vs vicuna": ("text_davinci_003", "vicuna-13b"),
    "alpaca gpt-3.5 vs qwen": ("gpt-3.5-turbo-1106", "Qwen-14B-Chat"),
}
ZERO_ONE = {  # setting: (P(both), P(only A), P(only B), P(neither))
    "0/1 symmetric": (0.50, 0.10, 0.10, 0.30),
    "0/1 skewed": (0.60, 0.03, 0.15, 0.22),
    "0/1 sparse": (0.90, 0.005, 0.04, 0.055),
}
SETTINGS = ("normal", "exponential", "lognormal 0.5", "lognormal 1", "lognormal 1.5",
            *ZERO_ONE, *ALPACA_PAIRS, "cluster normal", "cluster lognormal")
GROUP_MEAN = 10  # cluster settings: group sizes 1 + Poisson(9)


def n_for(n, n_data):
    """Data sets at n units: half as many at 500 (coverage is near its limit there, and
    each data set takes ten times as long as at 50)."""
    return n_data // 2 if n >= 500 else n_data


def alpaca_differences(a: str, b: str) -> np.ndarray:
    import json

    def pref(model):
        path = os.path.join(ALPACA, f"{model}.weighted_alpaca_eval_gpt4_turbo.annotations"
                            ".slim.json")
        with open(path) as f:
            return np.array([r["preference"] for r in json.load(f)], dtype=float) - 1.0

    return pref(b) - pref(a)


def make(setting, n, rng, population=None):
    """``(a, b, groups, truth)``: n units of ``setting`` and the population's B - A."""
    base = rng.random(n)
    if setting == "normal":
        return base, base + rng.normal(size=n), None, 0.0
    if setting == "exponential":
        return base, base + rng.exponential(size=n), None, 1.0
    if setting.startswith("lognormal"):
        s = float(setting.split()[1])
        return base, base + rng.lognormal(0.0, s, n), None, float(np.exp(s * s / 2))
    if setting in ZERO_ONE:
        p = ZERO_ONE[setting]
        cells = rng.choice(4, size=n, p=p)
        a = np.isin(cells, (0, 1)).astype(float)
        b = np.isin(cells, (0, 2)).astype(float)
        return a, b, None, p[2] - p[1]
    if setting in ALPACA_PAIRS:  # items drawn from the 805 (the population)
        d = population[rng.integers(0, len(population), n)]
        return base, base + d, None, float(population.mean())
    sizes = 1 + rng.poisson(GROUP_MEAN - 1, n)
    if setting == "cluster normal":
        u, truth = rng.normal(size=n), 0.0
    else:
        u, truth = rng.lognormal(0.0, 1.0, n), float(np.exp(0.5))
    groups = np.repeat(np.arange(n), sizes)
    m = len(groups)
    a = rng.random(m)
    return a, a + u[groups] + rng.normal(size=m), groups, truth


T_QUANTILES = {}  # (n, alpha): Student's t quantile (scipy's ppf takes a millisecond)


def paired_t(a, b, groups, alpha):
    from scipy import stats
    d = b - a
    if groups is None:
        n, est = len(d), float(d.mean())
        se = float(d.std(ddof=1)) / np.sqrt(n)
    else:
        tot = np.bincount(groups, weights=d)
        cnt = np.bincount(groups).astype(float)
        n, est = len(tot), float(tot.sum() / cnt.sum())
        se = float(np.sqrt(np.sum((tot - est * cnt) ** 2) * n / (n - 1))) / cnt.sum()
    if (n, alpha) not in T_QUANTILES:
        T_QUANTILES[n, alpha] = float(stats.t.ppf(1 - alpha / 2, n - 1))
    q = T_QUANTILES[n, alpha]
    return est - q * se, est + q * se


def where(interval, truth):
    """0: covers; 1: the interval lies above the truth; 2: below it; 3: undefined."""
    low, high = interval
    if np.isnan(low) or np.isnan(high):
        return 3
    return 1 if truth < low else 2 if truth > high else 0


def units(a, b, groups):
    """Each unit's sum of differences and its number of items (items: 1 each)."""
    d = b - a
    if groups is None:
        return d, np.ones(len(d))
    return np.bincount(groups, weights=d), np.bincount(groups).astype(float)


def bootstrap(total, count, rng):
    """pairboot's Bootstrap of the difference (a ratio of sums: the mean over items),
    from R resamples of the units drawn here: the replicates, the delta-method standard
    errors of the studentized interval and BCa's jackknife, as pairboot computes them
    (``check`` compares them with compare()'s)."""
    from pairboot.stats.intervals import Bootstrap
    n = len(total)
    est = float(total.sum() / count.sum())
    idx = rng.integers(0, n, size=(R, n))
    t, c = total[idx], count[idx]
    theta = t.sum(axis=1) / c.sum(axis=1)
    se_star = np.sqrt(np.sum((t - theta[:, None] * c) ** 2, axis=1)) / c.sum(axis=1)
    se_hat = float(np.sqrt(np.sum((total - est * count) ** 2)) / count.sum())
    jack = (total.sum() - total) / (count.sum() - count)
    return Bootstrap.from_replicates(est, theta, influence=[jack], se_hat=se_hat,
                                     se_star=se_star)


def moments(total, count):
    """The skewness g1 and excess kurtosis g2 of the units' influence values
    ``total - estimate * count`` (items: the differences less their mean)."""
    lv = total - total.sum() / count.sum() * count
    m2 = np.mean(lv**2)
    if m2 == 0:
        return np.nan, np.nan
    return float(np.mean(lv**3) / m2**1.5), float(np.mean(lv**4) / m2**2 - 3.0)


def sample_moments(setting, n, count, si):
    """:func:`moments` of the data sets :func:`run_setting` drew (drawn again: the data
    come first from each data set's generator), shape (count, 2)."""
    population = (alpaca_differences(*ALPACA_PAIRS[setting])
                  if setting in ALPACA_PAIRS else None)
    out = np.empty((count, 2))
    for k in range(count):
        rng = np.random.default_rng([si, n, k, 20261207])
        out[k] = moments(*units(*make(setting, n, rng, population)[:3]))
    return out


def run_setting(setting, n_data, si):
    from pairboot.stats.intervals import bounds
    population = None
    if setting in ALPACA_PAIRS:
        population = alpaca_differences(*ALPACA_PAIRS[setting])
    out = {}
    for n in SIZES:
        t0 = time.time()
        count = n_for(n, n_data)
        g = np.empty(count)
        code = np.zeros((count, len(METHODS), 2), dtype=np.int8)  # at 95% and at 90%
        width = np.empty((count, len(METHODS)))
        for k in range(count):
            rng = np.random.default_rng([si, n, k, 20261207])
            a, b, groups, truth = make(setting, n, rng, population)
            boot = bootstrap(*units(a, b, groups), rng)
            g[k] = 6.0 * boot.acceleration
            for j, m in enumerate(METHODS):
                for c, alpha in enumerate((0.05, 0.10)):
                    iv = (paired_t(a, b, groups, alpha) if m == "t"
                          else bounds(m, boot, alpha))
                    code[k, j, c] = where(iv, truth)
                    if c == 0:
                        width[k, j] = iv[1] - iv[0]
        out[f"g_{n}"], out[f"code_{n}"], out[f"width_{n}"] = g, code, width
        print(f"{setting:26s} n={n:4d} {time.time() - t0:6.0f}s  percentile "
              f"{np.mean(code[:, 0, 0] == 0):.3f}  studentized {np.mean(code[:, 4, 0] == 0):.3f}"
              f"  t {np.mean(code[:, 5, 0] == 0):.3f}", flush=True)
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, setting.replace(" ", "_").replace("/", "") + ".npz")
    np.savez_compressed(path + ".tmp.npz", n_data=n_data, **out)
    os.replace(path + ".tmp.npz", path)


def check(n_data=20):
    """This script's bootstrap against compare()'s on the same data: the estimate, the
    standard error and BCa's acceleration equal; the intervals (other draws) within a
    few Monte Carlo errors (the largest gap over the data sets, in widths)."""
    import pairboot
    from pairboot.core.pipeline import B_MINUS_A, resample
    from pairboot.stats.intervals import bounds
    warnings.simplefilter("ignore")
    worst = {}
    for si, setting in enumerate(SETTINGS):
        population = (alpaca_differences(*ALPACA_PAIRS[setting])
                      if setting in ALPACA_PAIRS else None)
        for k in range(n_data):
            rng = np.random.default_rng([si, 50, k, 1])
            a, b, groups, _ = make(setting, 50, rng, population)
            mine = bootstrap(*units(a, b, groups), rng)
            run = resample((a, b), names=("a", "b"), paired=True, groups=groups,
                           group_weighting="items", strata=None, strata_weights=None,
                           metric="mean", n_resamples=R, confidence_level=0.95,
                           method="studentized", seed=k, backend="auto", progress=None)
            e = run.core.estimate(B_MINUS_A, run.coef, bca=True, combined=run.combined)
            for x, y in ((mine.estimate, e.boot.estimate), (mine.se_hat, e.boot.se_hat),
                         (mine.acceleration, e.boot.acceleration)):
                assert np.isclose(x, y, rtol=1e-9, atol=1e-12) or (np.isnan(x) and np.isnan(y)), (
                    setting, k, x, y)
            for m in METHODS[:-1]:
                ours, theirs = bounds(m, mine, 0.05), bounds(m, e.boot, 0.05)
                r = pairboot.compare(a, b, groups=groups, method=m, n_resamples=R, seed=k)
                assert np.allclose(theirs, tuple(r.confidence_interval), equal_nan=True)
                w = theirs[1] - theirs[0]
                if w > 0 and np.isfinite(w):
                    gap = float(np.nanmax(np.abs(np.subtract(ours, theirs)))) / w
                    if gap > worst.get(m, (0.0,))[0]:
                        worst[m] = (round(gap, 3), setting)
    print("estimate, standard error, acceleration: equal; largest gap of the ends "
          "(other draws), in widths, and where:", worst)


def load():
    """The settings simulated so far: ``{setting: {n: (codes, 6a)}}``, each n's data sets
    cut to :func:`n_for`'s count (a run with more gives the same first ones)."""
    found = {}
    for s in SETTINGS:
        path = os.path.join(OUT, s.replace(" ", "_").replace("/", "") + ".npz")
        if os.path.exists(path):
            d = np.load(path)
            found[s] = {n: (d[f"code_{n}"][:n_for(n, int(d["n_data"]))],
                            np.nan_to_num(d[f"g_{n}"][:n_for(n, int(d["n_data"]))]))
                        for n in SIZES}
    return found


POPULATION = {  # setting: (score type, the population's skewness of the unit differences)
    "normal": ("continuous", "0"), "exponential": ("continuous", "2"),
    "lognormal 0.5": ("continuous", "1.75"), "lognormal 1": ("continuous", "6.2"),
    "lognormal 1.5": ("continuous", "33"), "0/1 symmetric": ("0/1", "0"),
    "0/1 skewed": ("0/1", "0.87"), "0/1 sparse": ("0/1", "3.3"),
    "alpaca 7b vs gpt-3.5": ("AlpacaEval", "2.3"),
    "alpaca davinci vs vicuna": ("AlpacaEval", "3.2"),
    "alpaca gpt-3.5 vs qwen": ("AlpacaEval", "-0.49"),
    "cluster normal": ("groups of ~10", "0"), "cluster lognormal": ("groups of ~10", "6.2"),
}


def _grid(data, value, title):
    print(f"\n{title}\n")
    print("| setting | scores | skewness | " + " | ".join(f"n = {n}" for n in SIZES) + " |")
    print("|---|---|---|" + "---|" * len(SIZES))
    for s, cells in data.items():
        kind, skew = POPULATION[s]
        print(f"| {s} | {kind} | {skew} | "
              + " | ".join(value(*cells[n], n) for n in SIZES) + " |")


def table():
    """The tables of docs/small_samples.md, in Markdown."""
    from pairboot.core.skew import SKEW_LIMIT
    data = load()
    for j, m in enumerate(METHODS):
        _grid(data, lambda code, g, n, j=j: f"{np.mean(code[:, j, 0] == 0):.3f}",
              f"Two-sided 95% coverage: {m}")
    _grid(data, lambda code, g, n: f"{np.mean(np.abs(g) > SKEW_LIMIT):.2f}",
          f"The rule |6a| > {SKEW_LIMIT} fires (the note itself skips 0/1 data and fewer "
          "than 30 units): share of the data sets")

    def split(code, g, n):  # (- : fewer than 20 data sets on that side)
        fire = np.abs(g) > SKEW_LIMIT
        part = [f"{np.mean(code[m, 0, 0] == 0):.2f}" if m.sum() >= 20 else "-"
                for m in (fire, ~fire)]
        return " / ".join(part)

    _grid(data, split, "Percentile coverage where the rule fires / where it is quiet "
          "(-: fewer than 20 data sets)")
    for j in (0, 3, 4, 5):
        _grid(data, lambda code, g, n, j=j: (f"{np.mean(code[:, j, 1] == 1):.3f} / "
                                             f"{np.mean(code[:, j, 1] == 2):.3f}"),
              f"One-sided 95% bounds, {METHODS[j]}: P(truth below the lower bound) / "
              "P(truth above the upper bound), each nominal 0.05")
    widths = {}
    for s in data:
        path = os.path.join(OUT, s.replace(" ", "_").replace("/", "") + ".npz")
        d = np.load(path)
        widths[s] = {n: d[f"width_{n}"][:n_for(n, int(d["n_data"]))] for n in SIZES}
    print("\nMedian width of the studentized interval over the percentile's\n")
    print("| setting | " + " | ".join(f"n = {n}" for n in SIZES) + " |")
    print("|---|" + "---|" * len(SIZES))
    for s, w in widths.items():
        with np.errstate(divide="ignore", invalid="ignore"):  # (0/1 data: zero widths)
            ratios = [np.nanmedian(w[n][:, 4] / w[n][:, 0]) for n in SIZES]
        print(f"| {s} | " + " | ".join(f"{v:.2f}" for v in ratios) + " |")


def family(n_data=1000, n=50):
    """A family of three systems at n items, B - A and C - A each a lognormal gain
    (sigma 1; and normal gains, for comparison): how often both rows' intervals cover
    (family-wise, nominal 95%) with max-t (the default), Holm's percentile intervals
    and Holm's studentized ones; and how often the note fires on the max-t family."""
    import pairboot
    warnings.simplefilter("ignore")
    truth = float(np.exp(0.5))
    hits = dict.fromkeys(("max-t", "holm", "holm studentized", "max-t, normal gains"), 0)
    fired = 0
    for i in range(n_data):
        rng = np.random.default_rng([7, i])
        a = rng.uniform(2, 8, n)
        b, c = a + rng.lognormal(0, 1, n), a + rng.lognormal(0, 1, n)
        for key, kw in (("max-t", {}), ("holm", {"correction": "holm"}),
                        ("holm studentized", {"correction": "holm", "method": "studentized"})):
            f = pairboot.compare_many({"A": a, "B": b, "C": c}, baseline="A", n_resamples=R,
                                      seed=i, **kw)
            hits[key] += all(x.confidence_interval.low <= truth <= x.confidence_interval.high
                             for x in f.comparisons)
            fired += key == "max-t" and any("skewed" in w for w in f.warnings)
        b, c = a + rng.normal(0, 1, n), a + rng.normal(0, 1, n)
        f = pairboot.compare_many({"A": a, "B": b, "C": c}, baseline="A", n_resamples=R, seed=i)
        hits["max-t, normal gains"] += all(
            x.confidence_interval.low <= 0 <= x.confidence_interval.high for x in f.comparisons)
    print(f"{n_data} families of 3 systems, {n} items: both rows covered",
          {k: round(v / n_data, 3) for k, v in hits.items()},
          f"; the note fired on {fired / n_data:.3f} of the max-t families")


if __name__ == "__main__":  # (nothing runs on import: pytest collects docs/)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    args = sys.argv[1:]
    if not args or args[0] not in ("run", "table", "check", "family"):
        sys.exit(__doc__)
    if args[0] == "family":
        family()
        sys.exit(0)
    if args[0] == "check":
        check()
        sys.exit(0)
    if args[0] == "table":
        table()
        sys.exit(0)
    n_data = N_DATA
    if "--n-data" in args:
        i = args.index("--n-data")
        n_data = int(args[i + 1])
        del args[i:i + 2]
    for name in args[1:] or SETTINGS:
        if name not in SETTINGS:
            sys.exit(f"unknown setting {name!r}; one of {', '.join(SETTINGS)}")
        run_setting(name, n_data, SETTINGS.index(name))

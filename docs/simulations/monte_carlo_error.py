"""Monte Carlo error of the interval's endpoints: estimators against the spread over seeds.

For each data set, the bootstrap is run with many seeds; the spread (standard deviation)
of an endpoint over the seeds is the truth that an estimator computed from one run must
match.  Estimators compared:

- ``band``: the 68% band of order statistics (half the distance between the quantiles at
  ``p -/+ sqrt(p (1 - p) / R)``), pairboot's estimator before issue 21;
- ``batch``: batch means, the endpoint by the interval's own method on each of 20
  contiguous batches of replicates, its standard deviation times sqrt(batch / R);
- ``max``: the larger of the two;
- ``new``: :func:`pairboot.stats.intervals.monte_carlo_error` as it is now (the smoothed order
  statistic, ``order_statistic_error``).

The bootstrap of the mean difference is drawn directly (multinomial counts over the items,
or over the four kinds of 0/1 pairs): the same distribution as pairboot's engine, faster.
The tables in docs/performance.md ("The Monte Carlo error of the endpoints") come from
``python docs/simulations/monte_carlo_error.py`` (about 10 minutes on one core).
"""
import math
import sys
import time

import numpy as np

from pairboot.stats.intervals import (
    Bootstrap,
    bca_level,
    bounds,
    monte_carlo_error,
    normal_quantile,
    quantile_sorted,
)

SEEDS = 100
BATCHES = 20
ALPHA = 0.05
ACTIVE = 0.05  # on a lattice, a data set whose endpoint moves less than this many steps
# (standard deviation over seeds) is "stuck": the endpoint is the same for nearly every seed
P_JOINT = np.array([0.50, 0.12, 0.20, 0.18])  # P(a, b) = (1,1), (1,0), (0,1), (0,0)
METHODS = ("percentile", "bca", "studentized", "normal")


def old_monte_carlo_error(method, boot, alpha):
    """pairboot's estimator before issue 21 (the 68% band of order statistics)."""
    r = len(boot.theta)

    def qerr(values, p):
        s = math.sqrt(max(p * (1 - p), 0.0) / r)
        return 0.5 * (quantile_sorted(values, p + s) - quantile_sorted(values, p - s))

    lo_p, hi_p = alpha / 2.0, 1.0 - alpha / 2.0
    if method == "percentile":
        return qerr(boot.theta, lo_p), qerr(boot.theta, hi_p)
    if method == "normal":
        z = normal_quantile(hi_p)
        e = boot.sd * math.sqrt((1.0 + z * z / 2.0) / r)
        return e, e
    if method == "bca":
        z0, a = boot.z0, boot.acceleration
        return (qerr(boot.theta, bca_level(z0, a, normal_quantile(lo_p))),
                qerr(boot.theta, bca_level(z0, a, normal_quantile(hi_p))))
    t = boot.t_sorted[np.isfinite(boot.t_sorted)]
    return boot.se_hat * qerr(t, hi_p), boot.se_hat * qerr(t, lo_p)


class Data:
    """Per-unit differences ``d`` (with multiplicities ``count``) of a paired mean."""

    def __init__(self, d, count):
        self.d, self.count = np.asarray(d, float), np.asarray(count, float)
        self.n = int(self.count.sum())
        self.est = float(self.d @ self.count / self.n)
        # jackknife of the mean: leave one unit of each kind out
        jack = (self.est * self.n - self.d) / (self.n - 1)
        self.influence = [np.repeat(jack, self.count.astype(int))]
        ss = float(((self.d - self.est) ** 2) @ self.count)
        self.se_hat = math.sqrt(ss) / self.n

    def draw(self, r, rng):
        if (self.count == 1).all():  # items drawn by index
            idx = rng.integers(0, self.n, size=(r, self.n))
            theta = self.d[idx].mean(axis=1)
            sq = (self.d**2)[idx].sum(axis=1)
            ss = sq - self.n * theta**2
            return theta, self._se(ss, sq + self.n * theta**2)
        # multinomial counts, one category at a time (binomials given what is left)
        w = np.empty((r, len(self.d)))
        left = np.full(r, self.n, dtype=np.int64)
        rest = 1.0
        for j, c in enumerate(self.count):
            share = min(1.0, c / self.n / rest) if rest > 0 else 0.0
            w[:, j] = rng.binomial(left, share) if j < len(self.d) - 1 else left
            left -= w[:, j].astype(np.int64)
            rest -= c / self.n
        theta = w @ self.d / self.n
        ss = w @ self.d**2 - self.n * theta**2
        return theta, self._se(ss, w @ self.d**2 + self.n * theta**2)

    def _se(self, ss, size):
        se = np.sqrt(np.maximum(ss, 0.0)) / self.n
        se[np.abs(ss) <= 16 * 2.0**-53 * size] = 0.0  # as pairboot: rounding of 0 is 0
        return se

    def boot(self, theta, se, method):
        return Bootstrap.from_replicates(
            self.est, theta, influence=self.influence if method == "bca" else None,
            se_hat=self.se_hat, se_star=se if method == "studentized" else None)


def binary_data(n, rng):
    c = rng.multinomial(n, P_JOINT)
    return Data([0.0, -1.0, 1.0, 0.0], c), 1.0 / n


def continuous_data(kind, n, rng):
    d = rng.normal(0.2, 1.0, n) if kind == "normal" else rng.lognormal(0.0, 1.2, n) - 1.0
    return Data(d, np.ones(n)), None


def batch_error(data, theta, se, method, alpha):
    m = len(theta) // BATCHES
    ends = []
    for b in range(BATCHES):
        sl = slice(b * m, (b + 1) * m)
        ends.append(bounds(method, data.boot(theta[sl], se[sl], method), alpha))
    ends = np.array(ends)
    return tuple(np.std(ends, axis=0, ddof=1) * math.sqrt(m / len(theta)))


def one_data_set(data, r, seeds, tag):
    """For every method: the endpoints' spread over seeds, and every estimator's values."""
    ends = {m: [] for m in METHODS}
    est = {m: {k: [] for k in ("band", "batch", "max", "new")} for m in METHODS}
    for s in range(seeds):
        rng = np.random.default_rng([tag, r, s])
        theta, se = data.draw(r, rng)
        for method in METHODS:
            boot = data.boot(theta, se, method)
            ends[method].append(bounds(method, boot, ALPHA))
            band = old_monte_carlo_error(method, boot, ALPHA)
            batch = batch_error(data, theta, se, method, ALPHA)
            e = est[method]
            e["band"].append(band)
            e["batch"].append(batch)
            e["max"].append(np.maximum(band, batch))
            e["new"].append(monte_carlo_error(method, boot, ALPHA))
    return {m: (np.std(np.array(ends[m]), axis=0, ddof=1),
                {k: np.array(v) for k, v in est[m].items()}) for m in METHODS}


def summarize(results, step):
    """Per method and estimator, over data sets and both endpoints."""
    rows = []
    for method in METHODS:
        for name in ("band", "batch", "max", "new"):
            ratio, under, zero, stuck = [], [], [], []
            for res in results:
                truth, est = res[method]
                for end in (0, 1):
                    e, t = est[name][:, end], truth[end]
                    if step is not None and method != "normal" and t < ACTIVE * step:
                        stuck.append(np.sqrt(np.mean(e**2)) / step)
                        continue
                    ratio.append(np.sqrt(np.mean(e**2)) / t)
                    under.append(np.mean(e < t / 2))
                    zero.append(np.mean(e == 0))
            rows.append((method, name, np.median(ratio), np.quantile(ratio, 0.1),
                         np.quantile(ratio, 0.9), np.mean(under), np.mean(zero),
                         np.sqrt(np.mean(np.square(stuck))) if stuck else math.nan,
                         len(ratio), len(stuck)))
    return rows


def main():
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else SEEDS
    cells = [("binary", 53, 2000, 20), ("binary", 53, 20000, 20), ("binary", 200, 20000, 10),
             ("normal", 53, 500, 4), ("normal", 53, 2000, 4), ("normal", 53, 20000, 4),
             ("lognormal", 53, 2000, 4), ("lognormal", 53, 20000, 4)]
    print("| data | R | method | estimator | RMS estimate / truth: median (10%-90%) | "
          "P(estimate < truth / 2) | P(estimate = 0) | stuck: RMS estimate / step |")
    print("|---|---|---|---|---|---|---|---|")
    for kind, n, r, n_data in cells:
        t0 = time.time()
        rng = np.random.default_rng(2024)
        results, step = [], None
        for k in range(n_data):
            if kind == "binary":
                data, step = binary_data(n, rng)
            else:
                data, step = continuous_data(kind, n, rng)
            results.append(one_data_set(data, r, seeds, k))
        for (method, name, med, q10, q90, under, zero, stuck, n_act, n_stuck) in summarize(
                results, step):
            stuck_text = "" if math.isnan(stuck) else f"{stuck:.3f} ({n_stuck} ends)"
            print(f"| {kind} n={n} | {r:,} | {method} | {name} | {med:.2f} ({q10:.2f}-{q90:.2f}),"
                  f" {n_act} ends | {under:.3f} | {zero:.3f} | {stuck_text} |", flush=True)
        print(f"<!-- {kind} n={n} R={r}: {time.time() - t0:.0f} s -->", flush=True)


if __name__ == "__main__":
    main()

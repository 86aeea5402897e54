"""Coverage of method="score" (Tango's interval for B - A, Wilson's per system) against the
paired percentile bootstrap, on 0/1 scores (pairboot).

The tables in docs/score.md come from this script with 4,000 data sets per cell (about
9 minutes on 2 shared cores).  Run: python docs/simulations/score_coverage.py [N_DATASETS]
(writes score_coverage.json in the working directory).

Independent items: each item's pair of scores is drawn from a joint law
``P(both), P(only A), P(only B), P(neither)`` (SETTINGS); the truth is ``p_B - p_A``.
Clustered items: groups of 10 items share a difficulty and B's gain; the truth is the
population's ``p_B - p_A`` over items (CLUSTER, exact: see ``cluster_truth``).  Every
interval is at 95%; the bootstrap takes R = 1,000 resamples (classic, paired; whole
groups with groups).  An interval covers when ``low <= truth <= high``.
"""
import json
import os
import sys
import time
import warnings
from multiprocessing import Pool

import numpy as np

N_DATA = 4000  # data sets per cell (the first argument)
CHUNK = 250
R = 1000
LEVEL = 0.95
SETTINGS = {  # name: (P(both), P(only A), P(only B), P(neither))
    "0.70 vs 0.75, discordant 0.25": (0.60, 0.10, 0.15, 0.15),
    "0.80 vs 0.80, discordant 0.10": (0.75, 0.05, 0.05, 0.15),
    "0.95 vs 0.97, discordant 0.04": (0.94, 0.01, 0.03, 0.02),
    "0.98 vs 0.99, discordant 0.02": (0.975, 0.005, 0.015, 0.005),
}
SIZES = (20, 50, 100, 200)
GROUP_SIZE = 10
GROUPS = (20, 50, 100)
CELLS = ([("items", name, n) for name in SETTINGS for n in SIZES]
         + [("cluster", "groups of 10", g) for g in GROUPS])
COPY = 0.3  # clustered: B copies A's score with this probability, else its own draw


def cluster_probabilities(rng, g):
    """Each group's P(A right) and B's own P(right): A's uniform on [0.5, 0.8], B's
    gain uniform on [-0.15, 0.20] (so B's within [0.35, 1])."""
    p_a = 0.5 + 0.3 * rng.random(g)
    return p_a, p_a + rng.uniform(-0.15, 0.20, g)


def cluster_truth():
    """P(A right) = E p_a = 0.65; P(B right) = COPY E p_a + (1 - COPY) E p_b =
    0.65 + (1 - COPY) * 0.025."""
    return 0.65, 0.65 + (1 - COPY) * 0.025


def make(kind, name, n, rng):
    if kind == "items":
        cells = rng.choice(4, size=n, p=SETTINGS[name])
        a = np.isin(cells, (0, 1)).astype(float)
        b = np.isin(cells, (0, 2)).astype(float)
        both, only_a, only_b, _ = SETTINGS[name]
        return a, b, None, (both + only_a, both + only_b)
    p_a, p_b = (np.repeat(p, GROUP_SIZE) for p in cluster_probabilities(rng, n))
    m = n * GROUP_SIZE
    a = (rng.random(m) < p_a).astype(float)
    own = (rng.random(m) < p_b).astype(float)
    b = np.where(rng.random(m) < COPY, a, own)
    return a, b, np.repeat(np.arange(n), GROUP_SIZE), cluster_truth()


def covers(interval, truth):
    low, high = interval
    return float(low <= truth <= high)


def width(interval):
    return float(interval[1] - interval[0])


def run_chunk(args):
    kind, name, n, ci, start, stop = args
    import pairboot
    from pairboot.stats.proportions import discordance, tango_interval, wilson_interval
    warnings.simplefilter("ignore")
    out = []
    for k in range(start, stop):
        rng = np.random.default_rng([ci, k, 20261205])
        a, b, groups, (t_a, t_b) = make(kind, name, n, rng)
        truth = t_b - t_a
        seed = 1_000_000 * ci + k
        score = pairboot.compare(a, b, groups=groups, method="score", n_resamples=R,
                                 seed=seed, confidence_level=LEVEL)
        boot = pairboot.compare(a, b, groups=groups, method="percentile", n_resamples=R,
                                seed=seed, confidence_level=LEVEL)
        row = [covers(score.confidence_interval, truth), covers(boot.confidence_interval, truth),
               width(score.confidence_interval), width(boot.confidence_interval)]
        for sa, ba, t in ((score.score_a, boot.score_a, t_a), (score.score_b, boot.score_b, t_b)):
            row += [covers(sa.confidence_interval, t), covers(ba.confidence_interval, t)]
        if groups is not None:  # the same intervals ignoring the groups
            table = discordance(a, b)
            row += [covers(tango_interval(table, LEVEL), truth),
                    covers(wilson_interval(int(a.sum()), len(a), LEVEL), t_a),
                    covers(wilson_interval(int(b.sum()), len(b), LEVEL), t_b)]
        out.append(row)
    return (kind, name, n), out


def cell(values):
    """A coverage and its Monte Carlo standard error."""
    p = float(np.mean(values))
    return round(p, 4), round(float(np.sqrt(p * (1 - p) / len(values))), 4)


if __name__ == "__main__":  # (nothing runs on import: pytest collects docs/)
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # a thread each for the 2 workers
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    N_DATA = int(sys.argv[1]) if len(sys.argv) > 1 else N_DATA
    t0 = time.time()
    tasks = [(kind, name, n, ci, s, min(s + CHUNK, N_DATA))
             for ci, (kind, name, n) in enumerate(CELLS) for s in range(0, N_DATA, CHUNK)]
    res = {}
    with Pool(2) as pool:
        for key, rows in pool.imap_unordered(run_chunk, tasks):
            res.setdefault(key, []).extend(rows)
    print(f"elapsed {time.time() - t0:.0f}s, {N_DATA} data sets per cell, R={R}, "
          f"level {LEVEL}")
    table = []
    print("\nB - A (independent items): coverage (MC s.e.), median width")
    print(f"{'setting':32s} {'n':>4s} {'Tango':>15s} {'percentile':>15s} "
          f"{'w Tango':>8s} {'w pct':>8s}")
    for kind, name, n in CELLS:
        rows = np.array(res[(kind, name, n)])
        entry = {"kind": kind, "setting": name, "n": n, "tango": cell(rows[:, 0]),
                 "percentile": cell(rows[:, 1]),
                 "median_width_tango": round(float(np.median(rows[:, 2])), 4),
                 "median_width_percentile": round(float(np.median(rows[:, 3])), 4),
                 "wilson_a": cell(rows[:, 4]), "percentile_a": cell(rows[:, 5]),
                 "wilson_b": cell(rows[:, 6]), "percentile_b": cell(rows[:, 7])}
        if kind == "cluster":
            entry.update(tango_ignoring_groups=cell(rows[:, 8]),
                         wilson_a_ignoring_groups=cell(rows[:, 9]),
                         wilson_b_ignoring_groups=cell(rows[:, 10]))
        table.append(entry)
        if kind == "items":
            print(f"{name:32s} {n:4d} {entry['tango'][0]:.3f} ({entry['tango'][1]:.3f}) "
                  f"{entry['percentile'][0]:.3f} ({entry['percentile'][1]:.3f}) "
                  f"{entry['median_width_tango']:8.3f} {entry['median_width_percentile']:8.3f}")
    print("\nEach system (independent items): coverage of Wilson / percentile")
    for e in table:
        if e["kind"] == "items":
            print(f"{e['setting']:32s} {e['n']:4d}  A: {e['wilson_a'][0]:.3f} / "
                  f"{e['percentile_a'][0]:.3f}   B: {e['wilson_b'][0]:.3f} / "
                  f"{e['percentile_b'][0]:.3f}")
    print(f"\nClustered (groups of {GROUP_SIZE}): coverage of B - A and of A, B")
    print(f"{'groups':>6s} {'Tango+deff':>15s} {'Tango, no deff':>15s} {'cluster pct':>15s}"
          f"   A: Wilson+deff / no deff / pct   B: Wilson+deff / no deff / pct")
    for e in table:
        if e["kind"] == "cluster":
            print(f"{e['n']:6d} {e['tango'][0]:.3f} ({e['tango'][1]:.3f}) "
                  f"{e['tango_ignoring_groups'][0]:.3f} ({e['tango_ignoring_groups'][1]:.3f}) "
                  f"{e['percentile'][0]:.3f} ({e['percentile'][1]:.3f})   "
                  f"{e['wilson_a'][0]:.3f} / {e['wilson_a_ignoring_groups'][0]:.3f} / "
                  f"{e['percentile_a'][0]:.3f}   {e['wilson_b'][0]:.3f} / "
                  f"{e['wilson_b_ignoring_groups'][0]:.3f} / {e['percentile_b'][0]:.3f}")
    with open("score_coverage.json", "w") as f:
        json.dump({"n_data": N_DATA, "resamples": R, "level": LEVEL, "cells": table}, f,
                  indent=1)

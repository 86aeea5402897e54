"""Coverage of the 95% paired percentile interval: classic vs Poisson bootstrap (pairboot).

The table in docs/poisson.md ("How small is small") and the Poisson warning's threshold
(diagnostics.POISSON_MIN_UNITS) come from this script with 10,000 data sets per cell
(about 6 minutes on 2 cores).  Run: python docs/simulations/poisson_small_n.py [N_DATASETS]
(writes poisson_small_n.json beside the working directory).
"""
import json
import os
import sys
import time
import warnings
from multiprocessing import Pool

import numpy as np

N_DATA = 4000  # data sets per cell (the first argument; docs/poisson.md used 10,000)
CHUNK = 500
R = 1000
MU_NORMAL = 0.3
# binary: P(A=1,B=0)=0.10, P(A=0,B=1)=0.15, P(1,1)=0.60, P(0,0)=0.15 -> acc 0.70 / 0.75, corr 0.378
P_JOINT = {(1, 1): 0.60, (1, 0): 0.10, (0, 1): 0.15, (0, 0): 0.15}
MU_BIN = 0.05
SD_GROUP, SD_ITEM, MU_CL = 0.7, 0.7, 0.3   # cluster: d = mu + u_g + e_i, ICC 0.5

CELLS = ([("normal", n) for n in (10, 20, 30, 50, 100, 200)]
         + [("binary", n) for n in (10, 20, 30, 50, 100, 200)]
         + [("cluster", g) for g in (10, 20, 50, 100)])   # g = number of groups of 5


def make(design, n, rng):
    if design == "normal":
        a = rng.normal(size=n)
        return a, a + MU_NORMAL + rng.normal(size=n), None, MU_NORMAL
    if design == "binary":
        keys = list(P_JOINT)
        p = [P_JOINT[k] for k in keys]
        idx = rng.choice(len(keys), size=n, p=p)
        ab = np.array(keys)[idx]
        return ab[:, 0].astype(float), ab[:, 1].astype(float), None, MU_BIN
    g = n
    groups = np.repeat(np.arange(g), 5)
    d = MU_CL + np.repeat(rng.normal(0, SD_GROUP, g), 5) + rng.normal(0, SD_ITEM, 5 * g)
    a = rng.normal(size=5 * g)
    return a, a + d, groups, MU_CL


def run_chunk(args):
    design, n, ci, start, stop = args
    import pairboot
    warnings.simplefilter("ignore")
    out = []
    for k in range(start, stop):
        rng = np.random.default_rng([ci, k, 20240611])
        a, b, groups, truth = make(design, n, rng)
        ids = np.arange(len(a))
        row = []
        for res in ("classic", "poisson"):
            r = pairboot.compare(a, b, groups=groups, resampling=res, ids=ids,
                                 n_resamples=R, seed=1_000_000 * ci + k, method="percentile")
            lo, hi = r.confidence_interval.low, r.confidence_interval.high
            row += [lo, hi, float(lo <= truth <= hi)]
        out.append(row)
    return (design, n), out


if __name__ == "__main__":  # (nothing runs on import: pytest collects docs/)
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # a thread each for the 2 workers
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    N_DATA = int(sys.argv[1]) if len(sys.argv) > 1 else N_DATA
    t0 = time.time()
    tasks = [(d, n, ci, s, min(s + CHUNK, N_DATA))
             for ci, (d, n) in enumerate(CELLS) for s in range(0, N_DATA, CHUNK)]
    res = {}
    with Pool(2) as pool:
        for key, rows in pool.imap_unordered(run_chunk, tasks):
            res.setdefault(key, []).extend(rows)
    print(f"elapsed {time.time()-t0:.0f}s, {N_DATA} data sets per cell, R={R}")
    hdr = ("design", "n_items", "units", "cov_classic", "cov_poisson", "diff(P-C)", "se_diff",
           "med_width_ratio", "ratio_med_widths", "nan_P")
    print(" ".join(f"{h:>11}" for h in hdr))
    summary = []
    for d, n in CELLS:
        x = np.array(res[(d, n)])
        cc, cp = x[:, 2], x[:, 5]
        wc, wp = x[:, 1] - x[:, 0], x[:, 4] - x[:, 3]
        ok = (wc > 0) & np.isfinite(wp)
        ratio = np.median(wp[ok] / wc[ok])
        rmed = np.nanmedian(wp) / np.median(wc)
        dif = cp - cc
        se_d = dif.std(ddof=1) / np.sqrt(len(dif))
        items = n * 5 if d == "cluster" else n
        row = (d, items, n, cc.mean(), cp.mean(), dif.mean(), se_d, ratio, rmed,
               int(np.isnan(wp).sum()))
        summary.append(row)
        print(" ".join(f"{v:>11.4f}" if isinstance(v, float) else f"{v!s:>11}"
                       for v in row))
    print("binomial MC se at 0.95:", np.sqrt(0.95 * 0.05 / N_DATA))
    with open("poisson_small_n.json", "w") as f:
        json.dump({"N": N_DATA, "R": R, "rows": summary,
                   "raw": {f"{d}_{n}": res[(d, n)] for d, n in CELLS}}, f)

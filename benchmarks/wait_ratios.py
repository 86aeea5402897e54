"""What a user waits for, as ratios side by side in one run (issue 35's targets).

1. A family's permutation test (Westfall-Young, ``compare_many(..., test="permutation")``)
   against the family's bootstrap at the same n, R and systems: 5 and 10 systems, all
   pairs and against a baseline.  The test alone is the run with the test less the run
   without it; target: at most 2x the bootstrap.
2. The first 200,000-row comparison of a new process (a fresh Python, as every CI job
   and every command starts): with an empty kernel cache (*cold*: numba compiles), in
   another environment (*fresh env*: pairboot's sources copied elsewhere, the per-user
   cache warm) and in the same one (*warm*).  Target: fresh env within 2x warm.
3. Start-up of new processes (``import pairboot``, ``pairboot --version``, a small
   ``pairboot compare``) against ``import numpy``.
4. Repeated trials (issue 36): a ``--tasks`` x ``--trials`` pair of 0/1 tables compared
   on pass^4 (``compare(a, b, runs="samples", metric="pass^4")``) against ``compare`` of
   the items' means (two 1-D arrays) at R = ``--resamples``; target: within 2x.  The
   curve over every k (``trials_curve``, 2 x trials systems on one draw) beside them,
   for information.

Runs are interleaved, best of ``--repeat``; the machine's load average is printed with
each part, as the targets are ratios on a machine others may share.  The family's
ratios are also given in CPU time (both threads' seconds), which waiting for a busy
processor does not inflate.

    python benchmarks/wait_ratios.py [--n 100000] [--resamples 10000] [--repeat 3]
                                      [--rows 200000] [--tasks 10000] [--trials 16]
                                      [--parts family,first-run,startup,trials]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

import pairboot

FIRST_RUN = """
import json, time
start = time.perf_counter()
import numpy as np
import pairboot
imported = time.perf_counter()
rng = np.random.default_rng(0)
a = rng.random({rows})
b = a + rng.normal(0.001, 0.1, {rows})
t = time.perf_counter()
pairboot.compare(a, b, seed=1)
done = time.perf_counter()
print(json.dumps({{"compare": done - t, "process": done - start,
                  "import": imported - start}}))
"""


def load() -> str:
    one, five, _ = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    return f"load average {one:.1f} (5 min {five:.1f})"


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import numba

    return (f"{cpu}, {os.cpu_count()} cores; Python {platform.python_version()}, numpy "
            f"{np.__version__}, numba {numba.__version__}, pairboot {pairboot.__version__}")


def family(args) -> None:
    rng = np.random.default_rng(0)
    base = rng.random(args.n)
    print(f"1. family test / family bootstrap, n = {args.n:,}, R = {args.resamples:,}, "
          f"best of {args.repeat} ({load()})")
    for m in (5, 10):
        scores = {f"s{j}": base + rng.normal(0.001 * j, 0.1, args.n) for j in range(m)}
        for baseline in (None, "s0"):
            kw = {"baseline": baseline, "seed": 1}
            for test in (None, "permutation"):  # (kernels loaded or compiled first)
                pairboot.compare_many(scores, n_resamples=100, test=test, backend="numba",
                                      **kw)
            boot, both = [], []
            for _ in range(args.repeat):
                for times, test in ((boot, None), (both, "permutation")):
                    wall, cpu = time.perf_counter(), time.process_time()
                    pairboot.compare_many(scores, n_resamples=args.resamples, test=test,
                                          **kw)
                    times.append((time.perf_counter() - wall, time.process_time() - cpu))
            (b, bc), (t, tc) = (np.min(boot, axis=0),
                                np.min(both, axis=0) - np.min(boot, axis=0))
            which = "all pairs" if baseline is None else "baseline "
            print(f"   {m:2d} systems, {which}  bootstrap {b:6.2f} s   test {t:6.2f} s   "
                  f"test / bootstrap {t / b:5.2f} (CPU time {tc / bc:4.2f})  (target <= 2)")
    print(f"   ({load()})")


def first_run(args) -> None:
    """Each case in a new process; the kernel cache in a temporary directory."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        source = Path(pairboot.__file__).resolve().parent
        copy = tmp / "env2"
        shutil.copytree(source, copy / "pairboot",
                        ignore=shutil.ignore_patterns("__pycache__"))
        script = tmp / "first_run.py"
        script.write_text(FIRST_RUN.format(rows=args.rows))
        base_env = {k: v for k, v in os.environ.items() if k != "PAIRBOOT_NO_CACHE"}

        def run(cache: Path, package_parent: Path) -> dict:
            env = dict(base_env, PAIRBOOT_CACHE_DIR=str(cache),
                       PYTHONPATH=str(package_parent))
            out = subprocess.run([sys.executable, str(script)], capture_output=True,
                                 text=True, env=env, check=True, cwd=tmp)
            return json.loads(out.stdout.strip().splitlines()[-1])

        print(f"2. first {args.rows:,}-row compare() of a new process ({load()})")
        cold = run(tmp / "cache", source.parent)
        warm, fresh = [], []
        for _ in range(args.repeat):
            warm.append(run(tmp / "cache", source.parent))
            fresh.append(run(tmp / "cache", copy))
        w = min(warm, key=lambda r: r["compare"])
        f = min(fresh, key=lambda r: r["compare"])
        for name, r in (("cold (empty cache)", cold), ("fresh env (warm cache)", f),
                        ("warm", w)):
            print(f"   {name:24s} compare {r['compare']:6.2f} s   whole process "
                  f"{r['process']:6.2f} s (import {r['import']:.2f} s)")
        print(f"   fresh env / warm {f['compare'] / w['compare']:5.2f} (target <= 2; whole "
              f"process {f['process'] / w['process']:.2f})   cold / warm "
              f"{cold['compare'] / w['compare']:5.2f}")
        print(f"   ({load()})")


def startup(args) -> None:
    """New processes, interleaved, best of ``5 * repeat``; bytecode written once first
    (``PYTHONDONTWRITEBYTECODE`` would make every run compile the package's sources)."""
    root = Path(__file__).resolve().parent.parent
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    cli = [sys.executable, "-m", "pairboot"]
    example = ["compare", "examples/base.csv", "examples/new.csv", "--id", "id", "--score",
               "score"]
    cases = {"import numpy": [sys.executable, "-c", "import numpy"],
             "import pairboot": [sys.executable, "-c", "import pairboot"],
             "pairboot --version": [*cli, "--version"],
             "pairboot compare (200 items)": [*cli, *example]}
    targets = {"import pairboot": 1.3, "pairboot --version": 2.0,
               "pairboot compare (200 items)": 2.0}
    for command in cases.values():  # (bytecode written, files cached)
        subprocess.run(command, env=env, cwd=root, capture_output=True, check=True)
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(5 * args.repeat):
        for name, command in cases.items():
            start = time.perf_counter()
            subprocess.run(command, env=env, cwd=root, capture_output=True, check=True)
            times[name].append(time.perf_counter() - start)
    base = min(times["import numpy"])
    print(f"3. start-up, new processes, best of {5 * args.repeat} ({load()})")
    for name, t in times.items():
        target = f"  (target <= {targets[name]})" if name in targets else ""
        print(f"   {name:30s} {min(t) * 1000:6.0f} ms   / import numpy "
              f"{min(t) / base:5.2f}{target}")
    print(f"   ({load()})")


def trials(args) -> None:
    """pass^4 of an items x trials pair against the items' means; interleaved, best of
    ``--repeat``, each after a warm-up run (the kernels loaded or compiled)."""
    rng = np.random.default_rng(0)
    p = rng.beta(2, 2, args.tasks)[:, None]
    a = (rng.random((args.tasks, args.trials)) < p) * 1.0
    b = (rng.random((args.tasks, args.trials)) < np.minimum(p + 0.02, 1.0)) * 1.0
    cases = {
        "compare, the items' means": lambda r: pairboot.compare(
            a.mean(axis=1), b.mean(axis=1), n_resamples=r, seed=1),
        "compare, pass^4": lambda r: pairboot.compare(
            a, b, runs="samples", metric="pass^4", n_resamples=r, seed=1),
        "compare, pass@1 (--runs samples)": lambda r: pairboot.compare(
            a, b, runs="samples", n_resamples=r, seed=1),
        f"trials_curve, k = 1..{args.trials}": lambda r: pairboot.trials_curve(
            a, b, n_resamples=r, seed=1),
    }
    for run in cases.values():
        run(100)
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.repeat):
        for name, run in cases.items():
            start = time.perf_counter()
            run(args.resamples)
            times[name].append(time.perf_counter() - start)
    base = min(times["compare, the items' means"])
    print(f"4. repeated trials, {args.tasks:,} tasks x {args.trials} trials, R = "
          f"{args.resamples:,}, best of {args.repeat} ({load()})")
    for name, t in times.items():
        target = "  (target <= 2)" if name == "compare, pass^4" else ""
        print(f"   {name:36s} {min(t):6.2f} s   / means {min(t) / base:5.2f}{target}")
    print(f"   ({load()})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--tasks", type=int, default=10_000)
    parser.add_argument("--trials", type=int, default=16)
    parser.add_argument("--parts", default="family,first-run,startup,trials")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    print(machine())
    parts = args.parts.split(",")
    if "family" in parts:
        family(args)
    if "first-run" in parts:
        first_run(args)
    if "startup" in parts:
        startup(args)
    if "trials" in parts:
        trials(args)


if __name__ == "__main__":
    main()

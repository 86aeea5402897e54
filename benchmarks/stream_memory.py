"""Peak memory of a family read in chunks (``--stream``) beside the same family in memory.

Issue 33: a 20-system ``--stream`` family peaked at 696 MB against 454 MB in memory.
This writes one CSV of ``--rows`` rows with an id and ``--systems`` score columns, runs
``pairboot compare FILE --systems ... --id id`` three ways, each in a fresh process
(the classic bootstrap in memory, Poisson weights in memory, ``--stream``), and prints
each run's peak resident set size (``ru_maxrss``) and time side by side.

    python benchmarks/stream_memory.py [--rows 200000] [--systems 20] [--resamples 10000]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

RUN = """
import resource, sys
from pairboot.cli import main
code = main(sys.argv[1:])
print(code, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
"""


def write_csv(path: str, rows: int, systems: int) -> None:
    rng = np.random.default_rng(2)
    with open(path, "w") as f:
        f.write("id," + ",".join(f"s{j}" for j in range(systems)) + "\n")
        for start in range(0, rows, 50_000):
            block = np.round(rng.random((min(50_000, rows - start), systems)), 2)
            f.writelines(f"q{start + i}," + ",".join(map(str, row)) + "\n"
                         for i, row in enumerate(block.tolist()))


def peak(path: str, systems: int, resamples: int, extra: list[str]) -> tuple[float, float]:
    """The run's peak RSS in MiB and its time in seconds."""
    names = ",".join(f"s{j}" for j in range(systems))
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", RUN, "compare", path, "--systems", names,
                           "--id", "id", "--resamples", str(resamples), "--seed", "1",
                           "--no-progress", *extra],
                          capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    last = proc.stderr.strip().splitlines()[-1].split()
    if last[0] != "0":
        raise SystemExit(f"the run {extra} failed: {proc.stderr.strip()[-500:]}")
    return int(last[1]) / 1024, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--systems", type=int, default=20)
    parser.add_argument("--resamples", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "wide.csv")
        write_csv(path, args.rows, args.systems)
        size = os.path.getsize(path) / 2**20
        print(f"{args.rows:,} rows x {args.systems} systems ({size:,.0f} MiB), "
              f"{args.resamples:,} resamples")
        for label, extra in (("in memory (classic)", []),
                             ("in memory (poisson)", ["--resampling", "poisson"]),
                             ("--stream", ["--stream"])):
            mib, seconds = peak(path, args.systems, args.resamples, extra)
            print(f"  {label:<22} peak {mib:7,.0f} MiB   {seconds:6.1f} s")


if __name__ == "__main__":
    main()

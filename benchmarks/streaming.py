"""A file several times larger than the memory the run may use, compared by streaming.

Issue 14's target: memory bounded by the chunk plus the replicate sums, whatever the file
size.  This writes a CSV of ``--rows`` rows (about 27 bytes each: 40 million rows is about
1.1 GB), then runs ``pairboot compare --stream`` on it inside a cgroup (v1 memory
controller; needs root) limited to ``--limit-mb``, and prints the file's size, the
cgroup's peak usage, the time and the interval.  ``--contrast`` also runs the in-memory
path under the same limit (it is expected to be killed).  Without a writable cgroup the
script says so and runs without the limit, reporting the peak RSS instead.

    python benchmarks/streaming.py [--rows 40000000] [--limit-mb 300] [--resamples 200]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import numpy as np

CGROUP = "/sys/fs/cgroup/memory/pairboot-streaming-bench"


def write_csv(path: str, rows: int) -> None:
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.csv as pacsv  # noqa: PLC0415

    rng = np.random.default_rng(0)
    step = 5_000_000
    with pacsv.CSVWriter(path, pa.schema([("id", pa.string()), ("a", pa.float64()),
                                          ("b", pa.float64())])) as writer:
        for start in range(0, rows, step):
            m = min(step, rows - start)
            a = np.round(rng.random(m), 4)
            b = np.round(a + rng.normal(0.001, 0.1, m), 4)
            ids = np.char.add("i", np.arange(start, start + m).astype(str))
            writer.write_table(pa.table({"id": ids, "a": a, "b": b}))


def cgroup(limit: int) -> bool:
    try:
        os.makedirs(CGROUP, exist_ok=True)
        with open(f"{CGROUP}/memory.limit_in_bytes", "w") as f:
            f.write(str(limit))
        with open(f"{CGROUP}/memory.max_usage_in_bytes", "w") as f:
            f.write("0")
        return True
    except OSError:
        return False


def run(cmd: list[str], limited: bool) -> tuple[int, float, str]:
    def enter() -> None:
        with open(f"{CGROUP}/cgroup.procs", "w") as f:
            f.write(str(os.getpid()))

    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True,
                          preexec_fn=enter if limited else None)
    return proc.returncode, time.perf_counter() - start, proc.stdout + proc.stderr


def peak(limited: bool) -> str:
    if not limited:
        return "n/a"
    with open(f"{CGROUP}/memory.max_usage_in_bytes") as f:
        return f"{int(f.read()) / 2**20:,.0f} MB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=40_000_000)
    parser.add_argument("--limit-mb", type=int, default=300)
    parser.add_argument("--resamples", type=int, default=200)
    parser.add_argument("--path", default="/tmp/pairboot-streaming-bench.csv")
    parser.add_argument("--contrast", action="store_true")
    args = parser.parse_args()
    if not os.path.exists(args.path):
        print(f"writing {args.path} ...", flush=True)
        write_csv(args.path, args.rows)
    size = os.path.getsize(args.path) / 2**20
    limited = cgroup(args.limit_mb << 20)
    print(f"file {size:,.0f} MB; memory limit {args.limit_mb} MB "
          f"({'cgroup' if limited else 'NOT ENFORCED: no writable cgroup'})")
    base = [sys.executable, "-m", "pairboot", "compare", args.path, "--a", "a", "--b", "b",
            "--id", "id", "--seed", "1", "--resamples", str(args.resamples), "--no-progress",
            "--format", "json"]
    code, seconds, out = run([*base, "--stream"], limited)
    print(f"--stream: exit {code}, {seconds:.1f} s, peak {peak(limited)}, "
          f"{size / seconds:.1f} MB/s")
    if code == 0:
        import json  # noqa: PLC0415

        result = json.loads(out[out.index("{"):out.rindex("}") + 1])
        print(f"  {result['n_items']:,} items, interval {result['confidence_interval']}")
    else:
        print(out[-2000:])
    if args.contrast:
        cgroup(args.limit_mb << 20)
        code, seconds, out = run(base, limited)
        print(f"in memory: exit {code} after {seconds:.1f} s (killed when negative)")


if __name__ == "__main__":
    main()

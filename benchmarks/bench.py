"""pairboot against its peers, on the same data, in one process.

Run from the repository root (pairboot installed, plus the ``bench`` extra)::

    python benchmarks/bench.py                  # the default cases, about 5 minutes
    python benchmarks/bench.py --quick          # smaller sizes, about a minute
    python benchmarks/bench.py --cases memory   # n = 10M, R = 10k: peak memory (slow)
    python benchmarks/bench.py --cases cli      # the command line on two 2M-row CSVs

Every case generates its data once, runs each tool on it, prints the intervals (they
must agree within Monte Carlo error, and the script says whether they do) and a table
of wall-clock seconds, CPU seconds, the ratio to pairboot and the peak memory.

Notes on the method, printed again with the results:

- pairboot runs ``pairboot.compare(a, b, n_resamples=R, seed=0)``: it resamples both
  systems' scores (k = 2 statistics per item) and returns the difference's interval
  plus each system's own.  The peers bootstrap the mean of ``d = b - a`` (arch,
  resample, numpy) or ``mean(b) - mean(a)`` with ``paired=True`` (scipy).
- The ``bleu`` case resamples corpus BLEU from sacrebleu's per-sentence statistics
  (``metric="bleu"``) against sacrebleu's own paired bootstrap loop on the same
  statistics (``significance._paired_bs_test`` without the text processing).
- numba compiles (or loads from its cache) before anything is timed; that one-off
  time is reported on its own line.
- Times are medians over ``--repeat`` runs, except that a tool whose first run takes
  more than 5 s runs once.  The kernel, its in-L1 run and the two draw-only runs take
  turns (one run of each per round, one round when one of them takes over 5 s), so that
  their ratios do not depend on when each ran: this machine has slow spells.  Peers too
  slow for the full R at large n run fewer resamples and their time is scaled up
  linearly (marked ``*``): their cost per resample is constant, so this is accurate to a
  few per cent.
- Peak memory is the peak resident set size during the call minus the resident size
  before it (Linux: ``VmHWM`` after resetting it through ``/proc/self/clear_refs``), so
  it covers numba's and numpy's allocations alike; the input arrays already exist.
  Elsewhere it falls back to tracemalloc's peak (Python and numpy allocations only).
- The machine limit is the time to draw the same n * R random indices with pairboot's
  generator on all cores and do nothing else (``benchmarks/draw_only.py``).  For
  context, the same with xoshiro256** and Lemire's bounded draw (the generator the
  issue's targets assumed), compiled here with numba; and the kernel itself making the
  same number of draws on its counting path among 1,000 rows (rows and counts in L1),
  which shows what using the drawn indices costs the core when memory costs nothing.
"""

from __future__ import annotations

import argparse
import functools
import math
import os
import platform
import re
import sys
import time
import tracemalloc
import warnings
from dataclasses import dataclass, field

import numpy as np

import pairboot
from pairboot import engine
from pairboot.engine.spec import replicate_keys

SLOW = 5.0
"""Seconds above which a tool is not repeated."""

L1_ROWS = 1_000
"""Rows of the kernel's in-cache run: two float64 columns (16 KiB) and their byte counts,
in any core's L1 with the index buffer."""

MEMORY_BUDGET = 1 << 28
"""Bytes per batch for the peers that materialise resamples (scipy, numpy gather)."""


# --- measuring -----------------------------------------------------------------------------------


def _status_mb(field_name: str) -> float | None:
    try:
        with open("/proc/self/status") as fh:
            m = re.search(rf"^{field_name}:\s+(\d+) kB", fh.read(), re.MULTILINE)
    except OSError:
        return None
    return int(m.group(1)) / 1024 if m else None


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:
        return False
    return _status_mb("VmHWM") is not None


PEAK_KIND = "RSS" if _reset_peak() else "tracemalloc"


@dataclass
class Run:
    seconds: float
    cpu: float
    peak_mb: float
    value: object


def measure(fn) -> Run:
    """Wall and CPU time, peak memory above the start, and the return value of ``fn()``."""
    if PEAK_KIND == "RSS":
        _reset_peak()
        base = _status_mb("VmRSS")
    else:
        tracemalloc.start()
    t0, c0 = time.perf_counter(), time.process_time()
    value = fn()
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    if PEAK_KIND == "RSS":
        peak = _status_mb("VmHWM") - base
    else:
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return Run(seconds, cpu, max(peak, 0.0), value)


def timed(fn, repeat: int) -> Run:
    """Median of ``repeat`` runs (one run when the first is slow)."""
    return timed_together([fn], repeat)[0]


def timed_together(fns, repeat: int) -> list[Run]:
    """:func:`timed` for several functions whose times are compared, run in turns (one
    run of each per round), so that a slower or faster spell of the machine falls on
    all of them alike.  One round when any of them first takes more than ``SLOW``."""
    rounds = [[measure(fn) for fn in fns]]
    while len(rounds) < repeat and max(r.seconds for r in rounds[0]) < SLOW:
        rounds.append([measure(fn) for fn in fns])
    result = []
    for runs in zip(*rounds):
        runs = sorted(runs, key=lambda r: r.seconds)
        mid = runs[len(runs) // 2]
        result.append(Run(mid.seconds, mid.cpu, max(r.peak_mb for r in runs), mid.value))
    return result


# --- the tools -----------------------------------------------------------------------------------


@dataclass
class Row:
    tool: str
    seconds: float
    cpu: float
    peak_mb: float
    interval: tuple[float, float] | None = None
    resamples: int = 0
    scaled: float = 1.0
    note: str = ""


@dataclass
class Case:
    name: str
    title: str
    a: np.ndarray
    b: np.ndarray
    resamples: int
    method: str = "percentile"
    metric: str = "mean"
    rows: list[Row] = field(default_factory=list)
    mc_error: tuple[float, float] | None = None
    notes: list[str] = field(default_factory=list)


def _stat_diff(a, b, axis=-1):
    return np.mean(b, axis=axis) - np.mean(a, axis=axis)


def run_pairboot(case: Case, repeat: int) -> None:
    a, b, r = case.a, case.b, case.resamples
    run = timed(
        lambda: pairboot.compare(
            a, b, n_resamples=r, seed=0, method=case.method, metric=case.metric
        ),
        repeat,
    )
    res = run.value
    case.mc_error = tuple(res.monte_carlo_error)
    case.rows.append(
        Row(
            "pairboot.compare",
            run.seconds,
            run.cpu,
            run.peak_mb,
            tuple(res.confidence_interval),
            r,
            note=f"engine: {res.engine}",
        )
    )


def run_engine_parts(case: Case, repeat: int, numba_ok: bool) -> None:
    """The engine alone, the numba kernel alone and the machine limit, for index cases."""
    a, b, r = case.a, case.b, case.resamples
    x = np.column_stack([a, b])
    plan = engine.DrawPlan.from_columns(x, [0], [len(a)])
    run = timed(lambda: engine.resample_sums(plan, r, 0, backend="auto"), repeat)
    case.rows.append(
        Row(
            "  engine.resample_sums",
            run.seconds,
            run.cpu,
            run.peak_mb,
            resamples=r,
            note=f"path: {run.value[1]}",
        )
    )
    if not numba_ok:
        return
    from draw_only import draw_only  # noqa: PLC0415

    from pairboot.engine import numba_kernels as nb  # noqa: PLC0415

    keys = replicate_keys(0, 0, r)
    starts, sizes = np.array([0]), np.array([len(a)])
    out = np.empty((r, 1, 2))
    xc = np.ascontiguousarray(x)
    # The same number of draws, counted, among L1_ROWS rows: what using an index costs the
    # core when memory costs nothing.  The keys are reused (the sums are not looked at).
    small, r_small = L1_ROWS, r * len(a) // L1_ROWS
    xs = np.ascontiguousarray(x[:small])
    keys_small = replicate_keys(0, 0, min(r_small, 1 << 16))
    out_small = np.empty((len(keys_small), 1, 2))
    sizes_small = np.array([small])

    def in_l1():
        for r0 in range(0, r_small, len(keys_small)):
            m = min(len(keys_small), r_small - r0)
            nb.index_sums(xs, starts, sizes_small, keys_small[:m], out_small[:m],
                          count_bytes=0)

    xoshiro = _xoshiro_draw_only()
    xoshiro(16, len(a), keys[:2])  # compile outside the timing
    parts = [
        ("  numba kernel (index_sums)", r, "",
         lambda: nb.index_sums(xc, starts, sizes, keys, out)),
        ("  numba kernel, rows in L1", r_small,
         f"{small:,} rows counted, {r_small:,} resamples: the same number of draws",
         in_l1),
        ("  machine limit (draw_only)", r, "draws only, all cores",
         lambda: draw_only(len(a), keys)),
        ("  xoshiro256** draw only", r,
         "the issue's reference generator with Lemire's bounded draw, all cores",
         lambda: xoshiro(len(a), len(a), keys)),
    ]
    runs = timed_together([fn for *_, fn in parts], repeat)
    for (tool, resamples, note, _), run in zip(parts, runs):
        case.rows.append(
            Row(tool, run.seconds, run.cpu, run.peak_mb, resamples=resamples, note=note)
        )


@functools.cache
def _xoshiro_draw_only():
    """The issue's reference generator, compiled once: xoshiro256** seeded per replicate
    by SplitMix64, n bounded draws each by Lemire's multiply-shift with rejection, all
    cores, summed so the compiler keeps them.  For context only: pairboot's kernel uses
    its own counter-based generator."""
    from llvmlite import ir  # noqa: PLC0415
    from numba import njit, prange, types, uint64  # noqa: PLC0415
    from numba.extending import intrinsic  # noqa: PLC0415

    from pairboot.engine.numba_kernels import mix  # noqa: PLC0415
    from pairboot.engine.spec import GAMMA as gamma  # noqa: PLC0415

    @intrinsic
    def mul128(typingctx, a, b):
        """(high, low) 64 bits of a * b: one multiply instruction."""
        if a != types.uint64 or b != types.uint64:
            return None

        def codegen(context, builder, sig, args):
            wide = ir.IntType(128)
            p = builder.mul(builder.zext(args[0], wide), builder.zext(args[1], wide))
            hi = builder.trunc(builder.lshr(p, ir.Constant(wide, 64)), ir.IntType(64))
            lo = builder.trunc(p, ir.IntType(64))
            return context.make_tuple(builder, sig.return_type, (hi, lo))

        return types.UniTuple(types.uint64, 2)(types.uint64, types.uint64), codegen

    @njit(inline="always")
    def rotl(x, k):
        return (x << uint64(k)) | (x >> uint64(64 - k))

    @njit(nogil=True)
    def one_replicate(z, n, m, threshold):
        # SplitMix64 seeding, as xoshiro's authors advise (pairboot's own mixer)
        s0, s1 = mix(z + gamma), mix(z + uint64(2) * gamma)
        s2, s3 = mix(z + uint64(3) * gamma), mix(z + uint64(4) * gamma)
        acc = uint64(0)
        for _ in range(n):
            while True:  # Lemire: reject the low part below 2**64 mod m (rarely)
                out = rotl(s1 * uint64(5), 7) * uint64(9)
                t = s1 << uint64(17)
                s2 ^= s0
                s3 ^= s1
                s1 ^= s2
                s0 ^= s3
                s2 ^= t
                s3 = rotl(s3, 45)
                hi, lo = mul128(out, m)
                if lo >= threshold:
                    break
            acc += hi
        return acc

    @njit(parallel=True, nogil=True)
    def draw(n, m, keys):
        sums = np.zeros(keys.shape[0], dtype=np.uint64)
        mm = uint64(m)
        threshold = (uint64(0) - mm) % mm
        for r in prange(keys.shape[0]):
            sums[r] = one_replicate(keys[r], n, mm, threshold)
        return sums.sum()

    return draw


def run_numpy_backend(case: Case, r_peer: int, repeat: int) -> None:
    a, b = case.a, case.b
    run = timed(
        lambda: pairboot.compare(
            a, b, n_resamples=r_peer, seed=0, backend="numpy", method=case.method
        ),
        repeat,
    )
    case.rows.append(
        Row(
            "pairboot, numpy backend",
            run.seconds,
            run.cpu,
            run.peak_mb,
            tuple(run.value.confidence_interval),
            r_peer,
            note="fallback without numba",
        )
    )


def numpy_gather(d: np.ndarray, r: int, seed: int = 0) -> np.ndarray:
    """The straightforward chunked numpy bootstrap of a mean."""
    n = len(d)
    rng = np.random.default_rng(seed)
    chunk = max(1, MEMORY_BUDGET // (16 * n))
    out = np.empty(r)
    for r0 in range(0, r, chunk):
        r1 = min(r, r0 + chunk)
        idx = rng.integers(0, n, size=(r1 - r0, n))
        out[r0:r1] = np.take(d, idx).mean(axis=1)
    return out


def run_numpy(case: Case, r_peer: int, repeat: int) -> None:
    d = case.b - case.a
    run = timed(lambda: np.percentile(numpy_gather(d, r_peer), [2.5, 97.5]), repeat)
    case.rows.append(
        Row("numpy gather (chunked)", run.seconds, run.cpu, run.peak_mb, tuple(run.value), r_peer)
    )


def run_scipy(case: Case, r_peer: int, repeat: int) -> None:
    from scipy import stats  # noqa: PLC0415

    a, b, n = case.a, case.b, len(case.a)
    batch = max(1, MEMORY_BUDGET // (32 * n))
    method = "BCa" if case.method == "bca" else "percentile"

    def go():
        res = stats.bootstrap(
            (a, b),
            _stat_diff,
            paired=True,
            vectorized=True,
            method=method,
            n_resamples=r_peer,
            batch=batch,
            rng=0,
        )
        return tuple(res.confidence_interval)

    run = timed(go, repeat)
    case.rows.append(
        Row(
            f"scipy.stats.bootstrap {method}",
            run.seconds,
            run.cpu,
            run.peak_mb,
            run.value,
            r_peer,
            note=f"batch={batch}",
        )
    )


def run_arch(case: Case, r_peer: int, repeat: int) -> None:
    try:
        from arch.bootstrap import IIDBootstrap  # noqa: PLC0415
    except ImportError:
        case.notes.append("arch is not installed: skipped")
        return
    d = case.b - case.a
    method = "bca" if case.method == "bca" else "percentile"

    def go():
        ci = IIDBootstrap(d, seed=0).conf_int(np.mean, reps=r_peer, method=method)
        return float(ci[0, 0]), float(ci[1, 0])

    run = timed(go, repeat)
    case.rows.append(
        Row(f"arch IIDBootstrap {method}", run.seconds, run.cpu, run.peak_mb, run.value, r_peer)
    )


def run_resample(case: Case, r_peer: int, repeat: int) -> None:
    try:
        from resample.bootstrap import confidence_interval  # noqa: PLC0415
    except ImportError:
        case.notes.append("resample is not installed: skipped")
        return
    d = case.b - case.a
    method = "bca" if case.method == "bca" else "percentile"

    def go():
        low, high = confidence_interval(
            np.mean, d, size=r_peer, ci_method=method, method="ordinary", random_state=0
        )
        return float(low), float(high)

    run = timed(go, repeat)
    case.rows.append(
        Row(
            f"resample {method}",
            run.seconds,
            run.cpu,
            run.peak_mb,
            run.value,
            r_peer,
            note='method="ordinary"',
        )
    )


def run_sacrebleu(case: Case, r_peer: int, repeat: int) -> None:
    """sacrebleu's paired bootstrap loop (``significance._paired_bs_test``) on our statistics.

    Its code minus the extraction of the statistics from text: indices from
    ``rng.choice``, the statistics as float32, ``metric._compute_score_from_stats`` on
    each resample's sums for both systems.  The difference's interval is taken from the
    same resampled scores, as pairboot's.
    """
    try:
        from sacrebleu.metrics import BLEU  # noqa: PLC0415
    except ImportError:
        case.notes.append("sacrebleu is not installed: skipped")
        return
    metric = BLEU()

    def go():
        rng = np.random.default_rng(0)
        n = len(case.a)
        idxs = rng.choice(n, size=(r_peer, n), replace=True)
        bl_stats = np.array(case.a, dtype="float32")
        sys_stats = np.array(case.b, dtype="float32")
        scores_bl = np.array(
            [metric._compute_score_from_stats(s.sum(0)).score for s in bl_stats[idxs]]
        )
        scores_sys = np.array(
            [metric._compute_score_from_stats(s.sum(0)).score for s in sys_stats[idxs]]
        )
        low, high = np.percentile(scores_sys - scores_bl, [2.5, 97.5])
        return float(low), float(high)

    run = timed(go, repeat)
    case.rows.append(
        Row(
            "sacrebleu paired bootstrap loop",
            run.seconds,
            run.cpu,
            run.peak_mb,
            run.value,
            r_peer,
            note="significance._paired_bs_test's loop on the same statistics",
        )
    )


# --- data and cases ------------------------------------------------------------------------------


def continuous(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-item scores in [0, 1] sharing each item's difficulty; B better by 0.01."""
    rng = np.random.default_rng(seed)
    difficulty = rng.beta(2, 2, size=n)
    a = np.clip(difficulty + rng.normal(0.0, 0.08, n), 0, 1)
    b = np.clip(difficulty + rng.normal(0.01, 0.08, n), 0, 1)
    return a, b


def binary(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """0/1 correctness: B right on 71% of items, A on 70%, agreeing on most."""
    rng = np.random.default_rng(seed)
    a = (rng.uniform(size=n) < 0.70).astype(np.float64)
    flip = rng.uniform(size=n) < 0.10
    b = np.where(flip, rng.uniform(size=n) < 0.80, a).astype(np.float64)
    return a, b


def bleu_statistics(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """sacrebleu's per-sentence BLEU statistics for two systems on the same n sentences.

    ``[sys_len, ref_len, correct_1..4, total_1..4]``; sentence lengths and difficulty are
    shared, and B's n-gram precisions are a little higher (about +1 BLEU).
    """
    rng = np.random.default_rng(seed)
    ref_len = rng.poisson(24, n) + 3
    ease = rng.beta(4, 4, n)
    out = []
    for boost in (0.0, 0.015):
        sys_len = np.maximum(1, ref_len + rng.integers(-3, 4, n))
        totals = np.stack([np.maximum(sys_len - k, 0) for k in range(4)], axis=1)
        p = np.clip(ease[:, None] * np.array([1.3, 0.8, 0.55, 0.38]) + boost, 0, 1)
        correct = rng.binomial(totals, p)
        out.append(np.column_stack([sys_len, ref_len, correct, totals]).astype(np.float64))
    return out[0], out[1]


def run_case(case: Case, args, numba_ok: bool, peers: list[str], r_peer: int) -> None:
    print(f"\n== {case.name}: {case.title}", flush=True)
    run_pairboot(case, args.repeat)
    if case.name in ("continuous", "large", "memory"):
        run_engine_parts(case, args.repeat, numba_ok)
    runners = {
        "numpy": run_numpy,
        "scipy": run_scipy,
        "arch": run_arch,
        "resample": run_resample,
        "pairboot-numpy": run_numpy_backend,
        "sacrebleu": run_sacrebleu,
    }
    for peer in peers:
        rp = case.resamples if case.method == "bca" else r_peer
        runners[peer](case, rp, args.repeat)
        row = case.rows[-1] if case.rows else None
        if row is not None and row.resamples and row.resamples != case.resamples:
            row.scaled = case.resamples / row.resamples
        print(f"   {peer} done", flush=True)
    report(case)


# --- output --------------------------------------------------------------------------------------


_PEAK_AT_EXIT = (
    "import atexit, sys\n"
    "def peak():\n"
    "    for line in open('/proc/self/status'):\n"
    "        if line.startswith('VmHWM:'):\n"
    "            print('peak-kB', line.split()[1], file=sys.stderr)\n"
    "atexit.register(peak)\n"
    "from pairboot.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)
"""Runs the command line and prints its own peak resident size as it exits: VmHWM
counts this process's memory only (a child's ru_maxrss also counts the parent's memory
it was forked from)."""


def _run_cli(args: list[str]) -> tuple[float, float]:
    """Wall seconds and peak resident MB of ``pairboot <args>`` in a new process."""
    import subprocess  # noqa: PLC0415

    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _PEAK_AT_EXIT, *args],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    wall = time.perf_counter() - t0
    err = proc.stderr.decode()
    found = re.search(r"^peak-kB (\d+)$", err, re.M)
    if proc.returncode or not found:
        raise RuntimeError(f"pairboot {' '.join(args)} failed: {err}")
    return wall, int(found.group(1)) / 1024


def run_cli_case(n: int, r: int) -> None:
    """``pairboot compare`` on two CSV files of ``n`` rows: time and peak memory.

    B's rows are shuffled, so the ids are joined; a third column groups the items.  R is
    small: this case measures reading, checking and joining, not the kernel.
    """
    import tempfile  # noqa: PLC0415

    if not os.path.exists("/proc/self/status"):
        print("\n== cli: needs /proc/self/status (Linux) for the peak memory: skipped")
        return
    rng = np.random.default_rng(12)
    doc = rng.integers(0, n // 10, n)
    with tempfile.TemporaryDirectory() as folder:
        files = []
        for name, order in (("a.csv", np.arange(n)), ("b.csv", rng.permutation(n))):
            score = np.round(rng.random(n), 6)
            path = os.path.join(folder, name)
            with open(path, "w") as f:
                f.write("id,doc,score\n")
                for start in range(0, n, 1 << 18):
                    part = order[start : start + (1 << 18)]
                    f.write("".join(f"q{i},d{doc[i]},{score[i]}\n" for i in part.tolist()))
            files.append(path)
        size_mb = sum(os.path.getsize(f) for f in files) / 2**20
        command = ["compare", *files, "--score", "score", "--resamples", str(r), "--seed", "0",
                   "--no-progress"]
        example = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")
        base = ["compare", os.path.join(example, "base.csv"), os.path.join(example, "new.csv"),
                "--id", "id", "--score", "score"]
        print(f"\n== cli: pairboot compare on two CSVs of {n:,} rows ({size_mb:.0f} MB), "
              f"R = {r:,}")
        _run_cli(command + ["--id", "id"])  # warm the file cache and numba's
        runs = [("the 60-item example (start-up)", base),
                ("--id id", command + ["--id", "id"]),
                ("--id id --group doc", command + ["--id", "id", "--group", "doc"])]
        print(f"   {'command':36s} {'seconds':>8s} {'peak MB':>8s} {'peak / files':>13s}")
        for label, argv in runs:
            wall, peak = _run_cli(argv)
            print(f"   {label:36s} {wall:8.2f} {peak:8.0f} {peak / size_mb:12.1f}x")
        print("   - peak: the process's own peak resident size (VmHWM), Python and its libraries "
              "included;\n     importing numba and loading its cached kernels is about 130 MB "
              "of it (the 60-item example runs without numba)")


def _agreement(case: Case, row: Row) -> str:
    """Whether ``row``'s interval is within 5 Monte Carlo s.e. of pairboot's, per end."""
    ref = next(r for r in case.rows if r.tool == "pairboot.compare")
    if row is ref or row.interval is None or case.mc_error is None:
        return ""
    # Both ends carry Monte Carlo error; the peer's scales with 1/sqrt(its resamples).
    out = []
    for j in range(2):
        se = case.mc_error[j] * math.sqrt(1 + case.resamples / max(row.resamples, 1))
        z = abs(row.interval[j] - ref.interval[j]) / se if se > 0 else math.inf
        out.append(z)
    verdict = "yes" if max(out) <= 5 else "NO"
    return f"{verdict} ({max(out):.1f} se)"


def report(case: Case) -> None:
    ref = next(r for r in case.rows if r.tool == "pairboot.compare")
    n = len(case.a)
    print(f"   n = {n:,}, R = {case.resamples:,}, method = {case.method}")
    print(
        f"   pairboot interval {fmt_ci(ref.interval)}, Monte Carlo s.e. of the ends "
        f"({case.mc_error[0]:.2e}, {case.mc_error[1]:.2e})"
    )
    header = (
        f"   {'tool':34s} {'seconds':>9s} {'cpu s':>8s} {'x pairboot':>10s} "
        f"{'peak MB':>8s}  {'interval':27s} agrees"
    )
    print(header)
    for row in case.rows:
        secs = row.seconds * row.scaled
        star = "*" if row.scaled != 1 else " "
        ratio = secs / ref.seconds
        ci = fmt_ci(row.interval) if row.interval is not None else ""
        print(
            f"   {row.tool:34s} {secs:8.2f}{star} {row.cpu * row.scaled:8.2f} "
            f"{ratio:10.2f} {row.peak_mb:8.0f}  {ci:27s} {_agreement(case, row)}"
        )
    for row in case.rows:
        if row.scaled != 1:
            print(
                f"   * {row.tool}: ran R = {row.resamples:,} in {row.seconds:.2f} s, "
                f"time scaled by {row.scaled:g}"
            )
        if row.note:
            print(f"   - {row.tool.strip()}: {row.note}")
    for note in case.notes:
        print(f"   - {note}")
    RESULTS.append(case)


def fmt_ci(ci) -> str:
    return f"[{ci[0]:.6f}, {ci[1]:.6f}]"


def summary() -> None:
    print("\n== summary (wall-clock ratios; * = peer time scaled from fewer resamples)")
    for case in RESULTS:
        ref = next(r for r in case.rows if r.tool == "pairboot.compare")
        parts = {r.tool.strip(): r for r in case.rows if r.tool.startswith("  ")}
        for row in case.rows:
            if row is ref or row.tool.startswith("  "):
                continue
            star = "*" if row.scaled != 1 else ""
            ratio = row.seconds * row.scaled / ref.seconds
            print(f"   {case.name:10s} pairboot is {ratio:8.1f}x faster than {row.tool}{star}")
        kern = parts.get("numba kernel (index_sums)")
        lim = parts.get("machine limit (draw_only)")
        if kern and lim:
            draws = case.resamples * len(case.a)
            print(
                f"   {case.name:10s} numba kernel / machine limit = "
                f"{kern.seconds / lim.seconds:.2f}  ({draws / kern.seconds / 1e6:.0f} vs "
                f"{draws / lim.seconds / 1e6:.0f} M draws/s); compare() spends "
                f"{kern.seconds / ref.seconds:.0%} of its time in the kernel"
            )
        l1 = parts.get("numba kernel, rows in L1")
        if l1 and lim:
            print(
                f"   {case.name:10s} the same with the rows in L1 = "
                f"{l1.seconds / lim.seconds:.2f}  (counting among {L1_ROWS:,} rows: what using "
                "the indices costs the core when memory costs nothing)"
            )
        xo = parts.get("xoshiro256** draw only")
        if kern and xo:
            print(
                f"   {case.name:10s} numba kernel / xoshiro256** draws alone = "
                f"{kern.seconds / xo.seconds:.2f}  (the whole resampling against merely "
                "drawing the indices with the issue's reference generator)"
            )


RESULTS: list[Case] = []

CASES = ("continuous", "binary", "large", "bca", "bleu", "memory", "cli")
DEFAULT_CASES = ("continuous", "binary", "large", "bca", "bleu")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--n",
        type=int,
        default=None,
        help="items in the 'continuous' case (default 100,000; --quick 20,000)",
    )
    p.add_argument("--resamples", type=int, default=10_000, help="R (default 10,000)")
    p.add_argument(
        "--quick",
        action="store_true",
        help="smaller sizes and peers at R/10: a one-minute smoke run",
    )
    p.add_argument(
        "--cases",
        default=",".join(DEFAULT_CASES),
        help=f"comma-separated, from {', '.join(CASES)} "
        f"(default {','.join(DEFAULT_CASES)}; 'memory' is slow: n = 10M; 'cli' writes "
        "two 2M-row CSVs to a temporary folder)",
    )
    p.add_argument(
        "--peers",
        default="numpy,arch,resample,scipy",
        help="comma-separated peers (also: pairboot-numpy, the fallback kernel)",
    )
    p.add_argument(
        "--peer-resamples",
        type=int,
        default=None,
        help="R for peers at n >= 1M (default R/10; times are scaled up)",
    )
    p.add_argument(
        "--bca-n",
        type=int,
        default=None,
        help="items in the 'bca' case (default 20,000; --quick 5,000); scipy's "
        "time grows as n^2, pairboot's as n",
    )
    p.add_argument("--repeat", type=int, default=3, help="runs per fast tool (median)")
    args = p.parse_args(argv)
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    unknown = set(cases) - set(CASES)
    if unknown:
        p.error(f"unknown cases: {', '.join(sorted(unknown))}")
    peers = [s.strip() for s in args.peers.split(",") if s.strip()]

    r = args.resamples
    quick = args.quick
    big = 200_000 if quick else 1_000_000
    n_cont = args.n or (20_000 if quick else 100_000)
    r_small_peer = r // 10 if quick else r
    r_big_peer = args.peer_resamples or max(100, r // 10)

    print(
        f"pairboot {pairboot.__version__}, numpy {np.__version__}, python "
        f"{platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs"
    )
    print(
        f"load average before: {os.getloadavg()[0]:.2f} (times are only comparable on a "
        "quiet machine; ratios within one run are what counts)"
    )
    print(f"peak memory: {PEAK_KIND}")

    numba_ok = True
    try:
        import numba  # noqa: PLC0415

        t0 = time.perf_counter()
        from draw_only import draw_only  # noqa: PLC0415

        from pairboot.engine import numba_kernels as nb  # noqa: PLC0415

        tiny = replicate_keys(0, 0, 2)
        nb.index_sums(np.zeros((4, 2)), np.array([0]), np.array([4]), tiny, np.empty((2, 1, 2)))
        nb.index_sums(np.zeros((4, 1)), np.array([0]), np.array([4]), tiny, np.empty((2, 1, 1)))
        nb.index_sums(np.zeros((4, 2)), np.array([0]), np.array([4]), tiny, np.empty((2, 1, 2)),
                      tree_units=4, cell_bits=2)  # the tree scheme's kernel
        draw_only(4, tiny)
        warm = time.perf_counter() - t0
        hits = [bool(k.stats.cache_hits) for k in (nb._flat_sums, nb._tree_sums)]
        cached = ("loaded from the on-disk cache" if all(hits) else
                  "partly compiled (one was not in the cache)" if any(hits) else
                  "compiled (cache was cold)")
        print(
            f"numba {numba.__version__}: {numba.get_num_threads()} threads, layer "
            f"{numba.threading_layer()}; kernels {cached} in {warm:.2f} s (not timed below)"
        )
    except ImportError:
        numba_ok = False
        print("numba is not installed: pairboot runs its numpy kernel")
    for peer in ("arch", "resample", "scipy"):
        if peer in peers:
            try:
                mod = __import__(peer)
                print(f"{peer} {getattr(mod, '__version__', '?')}")
            except ImportError:
                print(f"{peer} is not installed: skipped")
                peers.remove(peer)

    # Warm up pairboot's Python paths (imports, first-call costs) on a small problem.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pairboot.compare(*continuous(2000, 9), n_resamples=200, seed=0)
        pairboot.compare(*continuous(2000, 9), n_resamples=200, seed=0, method="bca")

    for name in cases:
        if name == "continuous":
            case = Case(name, "continuous scores, percentile", *continuous(n_cont, 1), r)
            run_case(case, args, numba_ok, peers, r_small_peer)
        elif name == "binary":
            case = Case(name, "0/1 scores (the exact multinomial path)", *binary(big, 2), r)
            run_case(case, args, numba_ok, peers, r_big_peer)
        elif name == "large":
            case = Case(
                name, "continuous scores, index space beyond the caches", *continuous(big, 3), r
            )
            run_case(case, args, numba_ok, peers, r_big_peer)
        elif name == "bca":
            n_bca = args.bca_n or (5_000 if quick else 20_000)
            case = Case(
                name,
                "BCa (scipy's jackknife is O(n^2): n kept at "
                f"{n_bca:,} so that it finishes in seconds)",
                *continuous(n_bca, 4),
                r,
                method="bca",
            )
            run_case(case, args, numba_ok, [p_ for p_ in peers if p_ != "numpy"], r)
        elif name == "bleu":
            n_bleu = 1_000 if quick else 3_000
            case = Case(
                name,
                "corpus BLEU from per-sentence statistics (a WMT-sized test set)",
                *bleu_statistics(n_bleu, 6),
                r,
                metric="bleu",
            )
            run_case(case, args, numba_ok, ["sacrebleu"], max(100, r // 10))
        elif name == "memory":
            n_mem = 2_000_000 if quick else 10_000_000
            a, b = continuous(n_mem, 5)
            case = Case(name, "peak memory", a, b, r)
            input_mb = (a.nbytes + b.nbytes) / 2**20
            print(
                f"\n== memory: n = {n_mem:,}, R = {r:,}; input arrays {input_mb:.0f} MB; "
                f"target: peak below 2 x input + 200 MB = {2 * input_mb + 200:.0f} MB, "
                f"i.e. below {input_mb + 200:.0f} MB above the inputs"
            )
            run_pairboot(case, 1)
            report(case)
            peak = case.rows[0].peak_mb
            verdict = "met" if peak < input_mb + 200 else "NOT met"
            print(f"   pairboot.compare peak {peak:.0f} MB above the inputs: target {verdict}")
        elif name == "cli":
            run_cli_case(200_000 if quick else 2_000_000, max(100, r // 10))
    summary()
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

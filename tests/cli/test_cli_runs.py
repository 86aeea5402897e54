"""``pairboot compare --run COL --runs seeds|samples``: long tables of several runs.

The command line's answer equals ``pairboot.compare(a, b, runs=...)`` on the same items x
runs tables; missing cells, repeated cells and missing options are one error line.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import assert_one_line_error, f1_counts, run_in_process

import pairboot

pytestmark = pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")


def _tables(n=80, runs=3, seed=0):
    rng = np.random.default_rng(seed)
    item = rng.normal(0, 1, n)
    a = item[:, None] + rng.normal(0, 0.3, runs) + rng.normal(0, 1, (n, runs))
    b = item[:, None] + 0.3 + rng.normal(0, 0.3, runs) + rng.normal(0, 1, (n, runs))
    return np.round(a, 6).tolist(), np.round(b, 6).tolist()


def _long(path, a, b, order):
    rows = [f"q{i},s{r},{a[i][r]!r},{b[i][r]!r}" for r in range(len(a[0])) for i in order]
    path.write_text("id,run,a,b\n" + "\n".join(rows) + "\n")


def _json(*args):
    proc = run_in_process("compare", *args, "--seed", "5", "--resamples", "1000",
                          "--format", "json", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("kind", ["seeds", "samples"])
def test_one_file_equals_python(tmp_path, kind):
    a, b = _tables()
    _long(tmp_path / "runs.csv", a, b, range(80))
    got = _json(tmp_path / "runs.csv", "--a", "a", "--b", "b", "--id", "id", "--run",
                "run", "--runs", kind)
    res = pairboot.compare(a, b, runs=kind, seed=5, n_resamples=1000)
    assert got["confidence_interval"] == res.confidence_interval._asdict()
    assert got["runs"]["kind"] == kind
    assert got["runs"]["variance"] == pytest.approx(res.runs.variance, rel=1e-12)


def test_two_files_paired_runs(tmp_path):
    a, b = _tables()
    (tmp_path / "a.csv").write_text("id,run,score\n" + "".join(
        f"q{i},s{r},{a[i][r]!r}\n" for r in range(3) for i in range(80)))
    (tmp_path / "b.csv").write_text("id,run,score\n" + "".join(
        f"q{i},s{r},{b[i][r]!r}\n" for r in (2, 0, 1) for i in reversed(range(80))))
    got = _json(tmp_path / "a.csv", tmp_path / "b.csv", "--id", "id", "--run", "run",
                "--score", "score", "--runs", "seeds", "--paired-runs")
    res = pairboot.compare(a, b, runs="seeds", paired_runs=True, seed=5, n_resamples=1000)
    assert got["confidence_interval"] == res.confidence_interval._asdict()
    assert got["runs"]["paired_runs"] is True


@pytest.mark.parametrize("paired_runs", [False, True])
def test_groups_and_strata_equal_python(tmp_path, paired_runs):
    a, b = _tables(n=60)
    doc = [f"d{i // 4}" for i in range(60)]  # 15 documents of 4 items
    source = [f"src{(i // 4) % 3}" for i in range(60)]  # documents within 3 sources
    rows = [f"q{i},s{r},{doc[i]},{source[i]},{a[i][r]!r},{b[i][r]!r}"
            for r in range(3) for i in range(60)]
    (tmp_path / "runs.csv").write_text("id,run,doc,source,a,b\n" + "\n".join(rows) + "\n")
    flags = ["--paired-runs"] if paired_runs else []
    got = _json(tmp_path / "runs.csv", "--a", "a", "--b", "b", "--id", "id", "--run", "run",
                "--runs", "seeds", "--group", "doc", "--stratum", "source",
                "--stratum-weights", "src0=1,src1=2,src2=1", *flags)
    res = pairboot.compare(a, b, runs="seeds", paired_runs=paired_runs, groups=doc,
                           strata=source, strata_weights={"src0": 1, "src1": 2, "src2": 1},
                           seed=5, n_resamples=1000)
    assert got["confidence_interval"] == res.confidence_interval._asdict()
    assert got["runs"]["variance"] == res.runs.variance
    assert got["n_groups"] == 15 and len(got["strata"]) == 3


def test_samples_with_an_empty_cell_in_one_file(tmp_path):
    # one file, both systems' columns: a sample only A has leaves B's cell empty (NaN)
    a, b = _tables(n=30)
    b[4][2] = b[9][1] = None
    rows = [f"q{i},s{r},{a[i][r]!r}," + ("" if b[i][r] is None else repr(b[i][r]))
            for r in range(3) for i in range(30)]
    (tmp_path / "samples.csv").write_text("id,run,a,b\n" + "\n".join(rows) + "\n")
    got = _json(tmp_path / "samples.csv", "--a", "a", "--b", "b", "--id", "id", "--run",
                "run", "--runs", "samples")
    nan_b = np.array([[np.nan if v is None else v for v in row] for row in b])
    res = pairboot.compare(a, nan_b, runs="samples", seed=5, n_resamples=1000)
    assert got["confidence_interval"] == res.confidence_interval._asdict()


@pytest.mark.parametrize("layout", ["one file", "a file per system", "--stats"])
def test_pooled_f1_with_runs(tmp_path, layout):
    # tp, fp, fn per item and run: the command equals compare(..., metric="f1") on the
    # items x runs x statistics arrays
    rng = np.random.default_rng(12)
    n, r = 50, 3
    a, b = f1_counts(rng, n, r, 0.5), f1_counts(rng, n, r, 0.6)
    cells = [(i, j) for j in range(r) for i in range(n)]
    if layout in ("one file", "--stats"):
        rows = [f"q{i},s{j}," + ",".join(str(int(v)) for v in (*a[i, j], *b[i, j]))
                for i, j in cells]
        (tmp_path / "f1.csv").write_text(
            "id,run,A_tp,A_fp,A_fn,B_tp,B_fp,B_fn\n" + "\n".join(rows) + "\n")
        args = [tmp_path / "f1.csv", "--a", "A", "--b", "B"]
        if layout == "--stats":  # the statistics named (and reported in the signature)
            args += ["--stats", "tp,fp,fn"]
    else:
        for name, x in (("A", a), ("B", b)):
            rows = [f"q{i},s{j}," + ",".join(str(int(v)) for v in x[i, j]) for i, j in cells]
            (tmp_path / f"{name}.csv").write_text("id,run,tp,fp,fn\n" + "\n".join(rows)
                                                  + "\n")
        args = [tmp_path / "A.csv", tmp_path / "B.csv"]
    got = _json(*args, "--id", "id", "--run", "run", "--runs", "seeds", "--metric", "f1")
    res = pairboot.compare(a, b, runs="seeds", metric="f1", seed=5, n_resamples=1000)
    assert got["estimate"] == pytest.approx(res.estimate, rel=1e-12)
    assert got["confidence_interval"] == pytest.approx(res.confidence_interval._asdict(),
                                                       rel=1e-12)
    assert got["metric"] == "f1"


def test_bad_long_tables(tmp_path):
    a, b = _tables(n=10)
    path = tmp_path / "runs.csv"
    _long(path, a, b, range(10))
    lines = path.read_text().splitlines()
    (tmp_path / "hole.csv").write_text("\n".join(lines[:-1]) + "\n")
    assert_one_line_error(run_in_process("compare", tmp_path / "hole.csv", "--a", "a",
                                         "--b", "b", "--id", "id", "--run", "run",
                                         "--runs", "seeds"), "'q9'", "'s2'")
    (tmp_path / "twice.csv").write_text("\n".join(lines + [lines[1]]) + "\n")
    assert_one_line_error(run_in_process("compare", tmp_path / "twice.csv", "--a", "a",
                                         "--b", "b", "--id", "id", "--run", "run",
                                         "--runs", "seeds"), "appears twice")
    assert_one_line_error(run_in_process("compare", path, "--a", "a", "--b", "b", "--id",
                                         "id", "--run", "run"), "--runs")
    assert_one_line_error(run_in_process("compare", path, "--a", "a", "--b", "b", "--runs",
                                         "seeds"), "--run")
    assert_one_line_error(run_in_process("compare", path, "--a", "a", "--b", "b", "--run",
                                         "run", "--runs", "seeds"), "--id")

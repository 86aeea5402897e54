"""Files read once in chunks (pairboot.compare_files, ``pairboot compare --stream``).

The answer must be the in-memory Poisson run's on the same data (``compare(a, b, ids=...,
resampling="poisson", seed=...)``) whatever the chunk size and the file format: bit for
bit for integer-valued statistics, to 1e-12 otherwise.  Bad files fail with one message
naming the file, the row and the column; duplicate ids and files that do not hold the
same ids are refused, with counts.  Memory stays bounded by the chunk, not the file.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from helpers import assert_one_line_error, run_in_process

import pairboot
from pairboot.errors import InputError

pytest.importorskip("pyarrow")

N = 3000
R = 400


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """Two systems' scores on N items (ids, documents of 4, three strata), written as one
    CSV, a CSV and a JSONL file in another row order, and Parquet; and 0/1 scores."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.parquet as pq  # noqa: PLC0415

    folder = tmp_path_factory.mktemp("stream")
    rng = np.random.default_rng(0)
    a = np.round(rng.random(N), 6)
    b = np.round(a + rng.normal(0.02, 0.1, N), 6)
    ids = np.array([f"q{i}" for i in range(N)])
    docs = np.array([f"d{i // 4}" for i in range(N)])
    strata = np.array(["easy", "mid", "hard"])[(np.arange(N) // 4) % 3]  # documents whole
    ca = (rng.random(N) < 0.6).astype(int)
    cb = (rng.random(N) < 0.65).astype(int)
    perm = rng.permutation(N)
    one = folder / "one.csv"
    one.write_text("id,doc,level,a,b,ca,cb\n" + "".join(
        f"{i},{d},{s},{x},{y},{u},{v}\n" for i, d, s, x, y, u, v
        in zip(ids, docs, strata, a, b, ca, cb)))
    fa = folder / "sys_a.csv"
    fa.write_text("id,doc,level,score\n" + "".join(
        f"{ids[i]},{docs[i]},{strata[i]},{a[i]}\n" for i in range(N)))
    fb = folder / "sys_b.jsonl"
    fb.write_text("".join(json.dumps({"id": str(ids[i]), "doc": str(docs[i]),
                                      "level": str(strata[i]), "score": float(b[i])}) + "\n"
                          for i in perm))
    pb = folder / "sys_b.parquet"
    pq.write_table(pa.table({"id": ids[perm], "doc": docs[perm], "level": strata[perm],
                             "score": b[perm]}), pb)
    return dict(a=a, b=b, ids=ids, docs=docs, strata=strata, ca=ca, cb=cb, one=str(one),
                fa=str(fa), fb=str(fb), pb=str(pb), folder=folder)


def _same(r1, r2, exact=False):
    if exact:
        np.testing.assert_array_equal(r1.bootstrap_distribution, r2.bootstrap_distribution)
        assert r1.confidence_interval == r2.confidence_interval
    else:
        np.testing.assert_allclose(r1.bootstrap_distribution, r2.bootstrap_distribution,
                                   rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(r1.confidence_interval, r2.confidence_interval, rtol=1e-12)
    assert r1.estimate == pytest.approx(r2.estimate, rel=1e-12)
    assert (r1.n_items, r1.n_groups) == (r2.n_items, r2.n_groups)


@pytest.mark.parametrize("chunk", [1, 257, 100_000])
def test_one_file_equals_in_memory_poisson(data, chunk):
    d = data
    memory = pairboot.compare(d["a"], d["b"], ids=d["ids"], resampling="poisson", seed=3,
                              n_resamples=R)
    streamed = pairboot.compare_files([d["one"]], a="a", b="b", id="id", seed=3,
                                      n_resamples=R, chunk_rows=chunk)
    _same(memory, streamed)
    assert streamed.resampling == "poisson"


@pytest.mark.parametrize("other", ["fb", "pb"])
@pytest.mark.parametrize("design", [{}, {"group": "doc"}, {"stratum": "level"},
                                    {"group": "doc", "stratum": "level"}])
def test_two_files_equal_in_memory_poisson(data, other, design):
    d = data
    kw = {}
    if "group" in design:
        kw["groups"] = d["docs"]
    if "stratum" in design:
        kw["strata"] = d["strata"]
    memory = pairboot.compare(d["a"], d["b"], ids=d["ids"], resampling="poisson", seed=5,
                              n_resamples=R, **kw)
    streamed = pairboot.compare_files([d["fa"], d[other]], score="score", id="id", seed=5,
                                      n_resamples=R, chunk_rows=1000, **design)
    _same(memory, streamed)


@pytest.mark.filterwarnings("ignore::pairboot.errors.SmallSampleWarning")
def test_integer_statistics_are_bit_identical(data):
    d = data
    memory = pairboot.compare(d["ca"], d["cb"], ids=d["ids"], resampling="poisson", seed=8,
                              n_resamples=R, groups=d["docs"])
    for chunk in (333, 5000):
        streamed = pairboot.compare_files([d["one"]], a="ca", b="cb", id="id", group="doc",
                                          seed=8, n_resamples=R, chunk_rows=chunk)
        _same(memory, streamed, exact=True)


def test_a_family_of_files(data):
    d = data
    c_path = d["folder"] / "sys_c.csv"
    c = np.round(d["a"] + 0.01, 6)
    c_path.write_text("id,score\n" + "".join(f"{i},{v}\n" for i, v in zip(d["ids"], c)))
    memory = pairboot.compare_many({"sys_a": d["a"], "sys_b": d["b"], "sys_c": c},
                                   ids=d["ids"], resampling="poisson", seed=2,
                                   n_resamples=R, baseline="sys_a")
    streamed = pairboot.compare_files([d["fa"], d["fb"], str(c_path)], score="score", id="id",
                                      seed=2, n_resamples=R, family={"baseline": "sys_a"})
    for m, s in zip(memory.comparisons, streamed.comparisons):
        assert (m.a, m.b) == (s.a, s.b)
        np.testing.assert_allclose(m.confidence_interval, s.confidence_interval, rtol=1e-12)
        assert m.p_adjusted == s.p_adjusted


def test_a_bad_family_fails_before_reading(data, monkeypatch):
    """baseline, pairs and correction are checked against the systems' names before any
    file is read (the second file does not exist; the reader is never called)."""
    d = data

    def no_reading(*args, **kwargs):
        raise AssertionError("a file was read")

    monkeypatch.setattr("pairboot.streaming.scan", no_reading)
    files = [d["fa"], d["fb"], str(d["folder"] / "no such file.csv")]
    cases = [({"baseline": "sys_z"}, r"`baseline` 'sys_z' is not one of the systems"),
             ({"pairs": [("sys_a", "sys_a")]}, r"compares a system with itself"),
             ({"correction": "nope"}, r"`correction` must be one of")]
    for family, message in cases:
        with pytest.raises(InputError, match=message):
            pairboot.compare_files(files, score="score", id="id", seed=1, n_resamples=50,
                                   family=family)
    with pytest.raises(InputError, match=r"`baseline` 'c' is not one of the systems"):
        pairboot.compare_files([d["one"]], systems={"a": "a", "b": "b"}, seed=1,
                               n_resamples=50, family={"baseline": "c"})


def _write(folder, name, text):
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def test_bad_files_are_named(data, tmp_path):
    good = _write(tmp_path, "good.csv", "id,score\nx,1\ny,2\nz,3\n")
    cases = [
        (_write(tmp_path, "dup.csv", "id,score\nx,1\ny,2\nx,3\n"),
         r"dup.csv, column 'id': duplicate id 'x' \(data rows 1 and 3\)"),
        (_write(tmp_path, "other.csv", "id,score\nx,1\ny,2\nw,3\n"),
         r"do not hold the same ids: 1 only in the first, 1 only in the second"),
        (_write(tmp_path, "hole.csv", "id,score\nx,1\ny,\nz,3\n"),
         r"hole.csv: data row 2, column 'score': no value"),
        (_write(tmp_path, "word.csv", "id,score\nx,1\ny,abc\nz,3\n"),
         r"word.csv: data row 2, column 'score': 'abc' is not a number"),
        # the in-memory readers' rule (io.columns.to_number): float() took '1_000'
        (_write(tmp_path, "under.csv", "id,score\nx,1\ny,1_000\nz,3\n"),
         r"under.csv: data row 2, column 'score': '1_000' is not a number"),
        (_write(tmp_path, "noid.csv", "id,score\nx,1\n ,2\nz,3\n"),
         r"noid.csv: data row 2, column 'id': is blank"),
        (_write(tmp_path, "cols.csv", "key,score\nx,1\n"), r"cols.csv: no column 'id'"),
        (_write(tmp_path, "array.json", '[{"id": "x", "score": 1}]'),
         r"a JSON array cannot be read in chunks"),
    ]
    for path, message in cases:
        with pytest.raises(InputError, match=message):
            pairboot.compare_files([good, path], score="score", id="id", seed=1,
                                   n_resamples=50)
    with pytest.raises(InputError, match="BCa's jackknife"):  # (before reading the files)
        pairboot.compare_files([good, "no such file"], score="score", id="id", seed=1,
                               n_resamples=50, method="bca")


def test_cli_stream_family_of_columns(tmp_path):
    """--stream with --systems on one file: compare_many with Poisson weights keyed by
    the ids, as in memory; a one-column --systems is refused as without --stream."""
    rng = np.random.default_rng(31)
    n = 300
    base = rng.random(n)
    cols = {"base": base, "v1": base + rng.normal(0.02, 0.1, n),
            "v2": base + rng.normal(0.0, 0.1, n)}
    ids = [f"q{i}" for i in range(n)]
    path = tmp_path / "three.csv"
    path.write_text("id,base,v1,v2\n" + "".join(
        f"{ids[i]},{float(cols['base'][i])!r},{float(cols['v1'][i])!r},"
        f"{float(cols['v2'][i])!r}\n"
        for i in range(n)))
    proc = run_in_process("compare", path, "--id", "id", "--systems", "base,v1,v2",
                          "--stream", "--seed", "5", "--resamples", R, "--format", "json",
                          "--no-progress")
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    memory = pairboot.compare_many(cols, ids=ids, resampling="poisson", seed=5,
                                   n_resamples=R)
    for row, want in zip(got["comparisons"], memory.comparisons):
        assert (row["a"], row["b"]) == (want.a, want.b)
        assert row["estimate"] == pytest.approx(want.estimate, rel=1e-12)
        assert row["confidence_interval"]["low"] == pytest.approx(
            want.confidence_interval.low, rel=1e-12)
    assert_one_line_error(run_in_process("compare", path, "--id", "id", "--systems", "base",
                                         "--stream", "--no-progress"),
                          "--systems needs at least two columns")


def test_cli_stream(data):
    d = data
    proc = run_in_process("compare", d["fa"], d["fb"], "--id", "id", "--score", "score",
                          "--stream", "--seed", "5", "--resamples", R, "--format", "json",
                          "--no-progress")
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    memory = pairboot.compare(d["a"], d["b"], ids=d["ids"], resampling="poisson", seed=5,
                              n_resamples=R)
    assert got["confidence_interval"]["low"] == pytest.approx(memory.confidence_interval.low,
                                                              rel=1e-12)
    assert got["resampling"] == "poisson"
    proc = run_in_process("compare", d["one"], "--a", "a", "--b", "b", "--stream",
                          "--unpaired", "--no-progress")
    assert_one_line_error(proc, "--unpaired")
    proc = run_in_process("compare", d["fa"], d["fb"], "--id", "id", "--score", "score",
                          "--stream", "--method", "bca", "--no-progress")
    assert_one_line_error(proc, "bca")


@pytest.mark.slow
def test_memory_is_bounded_by_the_chunk(tmp_path):
    """A 6,000,000-row file (about 160 MB) read in chunks of 50,000 rows: the process's
    peak memory grows by a constant of the chunk (about 40 MB here, the same at 1,000,000
    rows), not with the file; reading it whole would take several times the file."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.csv as pacsv  # noqa: PLC0415

    n = 6_000_000
    rng = np.random.default_rng(1)
    a = np.round(rng.random(n), 5)
    path = tmp_path / "big.csv"
    pacsv.write_csv(pa.table({"id": pa.array(np.char.add("i", np.arange(n).astype(str))),
                              "a": a, "b": np.round(a + rng.normal(0.01, 0.1, n), 5)}), path)
    small = tmp_path / "small.csv"
    small.write_text("id,a,b\n" + "".join(f"s{i},0.5,0.{i % 10}\n" for i in range(60_000)))
    script = textwrap.dedent(f"""
        import resource, warnings, pairboot
        warnings.simplefilter("ignore")
        def run(path):
            return pairboot.compare_files([path], a="a", b="b", id="id", seed=1,
                                          n_resamples=200, chunk_rows=50_000, backend="numba")
        run({str(small)!r})  # everything imported and compiled: the baseline
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        res = run({str(path)!r})
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(res.n_items, (after - before) // 1024)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, timeout=600).stdout.split()
    size_mb = path.stat().st_size / 2**20
    assert int(out[0]) == n
    assert int(out[1]) < 0.4 * size_mb, (out, size_mb)


@pytest.fixture(scope="module")
def scheduler():
    """An in-process Dask cluster's address (the workers are threads of this process)."""
    distributed = pytest.importorskip("distributed")
    pytest.importorskip("dask.dataframe")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        yield cluster.scheduler_address


@pytest.mark.filterwarnings("ignore:The inplace keyword:Warning")  # (dask's parquet reader)
def test_files_on_a_dask_cluster(data, scheduler):
    d = data
    memory = pairboot.compare(d["a"], d["b"], ids=d["ids"], resampling="poisson", seed=5,
                              n_resamples=R, groups=d["docs"], strata=d["strata"])
    for files, kw in (([d["one"]], {"a": "a", "b": "b"}),
                      ([d["fa"], d["fb"]], {"score": "score"}),
                      ([d["fa"], d["pb"]], {"score": "score"})):
        got = pairboot.compare_files(files, id="id", group="doc", stratum="level", seed=5,
                                     n_resamples=R, scheduler=scheduler, timeout=120, **kw)
        _same(memory, got)
    other = d["folder"] / "fewer.csv"
    other.write_text("id,score\n" + "".join(f"{i},1\n" for i in d["ids"][:-1]))
    with pytest.raises(InputError, match="do not hold the same ids"):
        pairboot.compare_files([d["fa"], str(other)], score="score", id="id", seed=5,
                               n_resamples=50, scheduler=scheduler, timeout=120)


def test_cli_scheduler(data, scheduler):
    d = data
    proc = run_in_process("compare", d["fa"], d["fb"], "--id", "id", "--score", "score",
                          "--stream", "--scheduler", scheduler, "--seed", "5",
                          "--resamples", R, "--format", "json", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    memory = pairboot.compare(d["a"], d["b"], ids=d["ids"], resampling="poisson", seed=5,
                              n_resamples=R)
    got = json.loads(proc.stdout)["confidence_interval"]
    assert got["high"] == pytest.approx(memory.confidence_interval.high, rel=1e-12)
    proc = run_in_process("compare", d["fa"], d["fb"], "--id", "id", "--score", "score",
                          "--scheduler", scheduler, "--no-progress")
    assert_one_line_error(proc, "--stream")

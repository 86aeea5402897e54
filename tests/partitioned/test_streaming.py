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
from pathlib import Path

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


@pytest.mark.slow
def test_a_family_of_files(data):
    d = data
    c_path = d["folder"] / "sys_c.csv"
    c = np.round(d["a"] + np.random.default_rng(5).normal(0.01, 0.02, len(d["a"])), 6)
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

    monkeypatch.setattr("pairboot.partitioned.files.scan", no_reading)
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
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
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
        (_write(tmp_path, "cat.csv", "id,score\nx,1\nid,score\nz,3\n"),
         r"cat.csv: data row 2, column 'score': 'score' is the column's name: the header "
         r"repeated"),
        (_write(tmp_path, "noid.csv", "id,score\nx,1\n ,2\nz,3\n"),
         r"noid.csv: data row 2, column 'id': is blank"),
        (_write(tmp_path, "cols.csv", "key,score\nx,1\n"), r"cols.csv: no column 'id'"),
        (_write(tmp_path, "utf16.csv", "id,score\nx,1\n".encode("utf-16")),
         r"utf16.csv: the text is UTF-16; save the file as UTF-8"),
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


@pytest.mark.slow
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
def test_two_files_of_the_same_stem(data, tmp_path):
    """A's scores as sys_b.csv against sys_b.jsonl: two systems are A and B, whatever
    their files' names, through the API and the command line (it said "`names` must
    name the 2 files")."""
    d = data
    same_stem = tmp_path / "sys_b.csv"
    same_stem.write_bytes(open(d["fa"], "rb").read())
    want = pairboot.compare_files([d["fa"], d["fb"]], id="id", score="score", seed=2,
                                  n_resamples=R)
    got = pairboot.compare_files([str(same_stem), d["fb"]], id="id", score="score", seed=2,
                                 n_resamples=R)
    _same(got, want, exact=True)
    proc = run_in_process("compare", same_stem, d["fb"], "--id", "id", "--stream",
                          "--resamples", R, "--seed", "2", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    # a family is named by what tells its files apart (their folders here), as two are
    fam = pairboot.compare_files([str(same_stem), d["fb"], d["fa"]], id="id", score="score",
                                 n_resamples=R, seed=2)
    names = list(fam.systems)
    assert names == [f"{same_stem.parent.name}/sys_b", f"{Path(d['fb']).parent.name}/sys_b",
                     "sys_a"], names


def test_stream_refuses_a_file_given_twice_and_standard_input(data):
    d = data
    for args, words in (((d["fa"], d["fa"]), "is given twice (as A and as B)"),
                        (("-", d["fa"]), "not standard input")):
        proc = run_in_process("compare", *args, "--id", "id", "--stream", "--no-progress")
        assert_one_line_error(proc, "--stream" if "-" in args else d["fa"], words)


@pytest.mark.parametrize("extra, words", [
    (["--test", "permutation", "--exact"], ["--stream does not take --exact",
                                            "never enumerate the swaps"]),
    (["--run", "run"], ["--stream does not take --run"]),
    (["--runs", "seeds"], ["--stream does not take --runs"]),
    (["--paired-runs"], ["--stream does not take --paired-runs"]),
    (["--from", "table"], ["--stream does not take --from"]),
    (["--log-option", "x=y"], ["--stream does not take --log-option"]),
    (["--correct", "a=b"], ["--stream does not take --correct"]),
    (["--null", "wrong"], ["--stream does not take --null"]),
    (["--system-column", "a"], ["--stream does not take --system-column"]),
    (["--tasks-as", "family"], ["--stream does not take --tasks-as"]),
    (["--score", "a"], ["--score is for two files"]),
    (["--names", "x,y"], ["--a/--b name two systems"]),
    (["--correction", "holm"], ["--a/--b name two systems"]),
])
def test_stream_refuses_what_it_would_ignore(data, extra, words):
    """Every option --stream cannot honour is refused in one line, as in memory where
    memory refuses it (issue 33: --exact, --run, --runs, the harness options, --score
    with one file, --names and --correction with --a/--b were silently dropped)."""
    proc = run_in_process("compare", data["one"], "--a", "a", "--b", "b", "--stream",
                          "--no-progress", *extra)
    assert_one_line_error(proc, *words)


def test_stream_refuses_the_other_layouts_options(data):
    d = data
    for args, words in (([d["fa"], d["fb"], "--id", "id", "--a", "score", "--b", "score"],
                         "--a/--b name the systems' columns in the one-file layout"),
                        ([d["fa"], d["fb"], "--id", "id", "--systems", "score"],
                         "--systems names the columns of one file, got 2 files")):
        proc = run_in_process("compare", *args, "--stream", "--no-progress")
        assert_one_line_error(proc, words)


def test_stream_honours_no_exact_and_a_pooled_metric_in_one_file(tmp_path):
    """--no-exact is what parts do (random swaps): taken.  A pooled metric's statistics
    in one file (``a_tp``, ...) are found as in memory: the same answer as the Poisson
    bootstrap in memory (it said "no column 'a'"; --stats gave an internal error)."""
    rng = np.random.default_rng(8)
    counts = rng.integers(0, 4, (300, 6))
    path = tmp_path / "f1.csv"
    path.write_text("a_tp,a_fp,a_fn,b_tp,b_fp,b_fn\n"
                    + "".join(",".join(map(str, row)) + "\n" for row in counts.tolist()))
    common = ["compare", path, "--a", "a", "--b", "b", "--metric", "f1", "--seed", "3",
              "--resamples", "300", "--format", "json", "--no-progress"]
    memory = run_in_process(*common, "--resampling", "poisson")
    assert memory.returncode == 0, memory.stderr
    for extra in ([], ["--stats", "tp,fp,fn"]):
        got = run_in_process(*common, "--stream", *extra)
        assert got.returncode == 0, got.stderr
        assert (json.loads(got.stdout)["confidence_interval"]
                == json.loads(memory.stdout)["confidence_interval"])
    proc = run_in_process("compare", path, "--a", "a_tp", "--b", "b_tp", "--stream",
                          "--test", "permutation", "--no-exact", "--resamples", "200",
                          "--no-progress")
    assert proc.returncode == 0, proc.stderr


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
                                  dashboard_address=":0") as cluster:
        yield cluster.scheduler_address


@pytest.mark.slow
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


@pytest.mark.slow  # (a fresh Python process, where numba is not loaded yet)
def test_the_kernel_is_loaded_before_the_first_chunk(tmp_path):
    """numba's first load of the kernel imports scipy's BLAS, which spins forever under a
    memory limit once the chunks hold the memory: it is loaded before any is read."""
    import subprocess
    import sys

    for name in ("a.csv", "b.csv"):
        (tmp_path / name).write_text("id,score\n" + "".join(f"q{i},{i % 3}\n"
                                                           for i in range(50)))
    script = """if True:
        import sys
        import pairboot.partitioned.files as streaming
        read = streaming.scan
        def scan(*args, **kwargs):
            assert "scipy.linalg" in sys.modules, "the kernel loads after a chunk is read"
            yield from read(*args, **kwargs)
        streaming.scan = scan
        res = streaming.compare_files(["a.csv", "b.csv"], id="id", n_resamples=200, seed=1,
                                      backend="numba")
        print(res.estimate)
    """
    proc = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr.decode()


@pytest.mark.slow
def test_cli_stream_keeps_the_notes_of_the_in_memory_run(data, tmp_path):
    """The notes on the inputs (here: the 'doc' column that looks like a grouping) and
    the items counted in the layout, as without --stream, in both layouts."""
    d = data
    for files in ([d["fa"], d["fb"], "--score", "score"], [d["one"], "--a", "a", "--b", "b"]):
        common = ("compare", *files, "--id", "id", "--resampling", "poisson", "--seed", "5",
                  "--resamples", R, "--format", "json", "--no-progress")
        memory = json.loads(run_in_process(*common).stdout)
        proc = run_in_process(*common, "--stream")
        assert proc.returncode == 0, proc.stderr
        streamed = json.loads(proc.stdout)
        assert streamed["notes"] == memory["notes"] and memory["notes"]
        assert any("--group doc" in note for note in streamed["notes"])
        assert streamed["input"]["layout"].startswith(f"{N:,} items ")
    # a hint column the first rows cannot read as labels (a blank) gets no note, no error
    blank = tmp_path / "blank.csv"
    blank.write_text("id,doc,a,b\n" + "".join(f"q{i},,{i % 2},{(i // 2) % 2}\n"
                                              for i in range(60)))
    proc = run_in_process("compare", blank, "--a", "a", "--b", "b", "--id", "id", "--stream",
                          "--resamples", R, "--format", "json", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["notes"] == []


# ------------------------------ files the in-memory readers take, read in chunks (issue 22)


def _in_memory(path, a="a", b="b", id="id"):
    """The in-memory run of a file (pairboot.io, then compare under Poisson weights)."""
    import pairboot.io as pbio  # noqa: PLC0415

    t = pbio.read_table(path)
    return pairboot.compare(pbio.numeric_column(t, a), pbio.numeric_column(t, b),
                            ids=list(pbio.id_column(t, id)), resampling="poisson", seed=4,
                            n_resamples=R)


def _rows(n=300, seed=9):
    rng = np.random.default_rng(seed)
    a = np.round(rng.random(n), 3)
    return [f"q{i}" for i in range(n)], a, np.round(a + rng.normal(0.05, 0.1, n), 3)


def _odd_files(folder):
    """Files that the in-memory readers read and --stream refused: a CSV row and header,
    and a JSONL line, over 1 MiB; a JSONL column no one reads whose type changes, or
    that is nested deep (but within the bound); ids of JSON numbers and text mixed."""
    ids, a, b = _rows()
    long = "x" * (3 << 20)
    out = {}
    rows = [f"{i},{x},{y},{long if k == 7 else 'n'}" for k, (i, x, y) in enumerate(zip(ids, a, b))]
    out["long_row.csv"] = "id,a,b,note\n" + "\n".join(rows) + "\n"
    out["long_header.csv"] = (f"id,a,b,{long}\n"
                              + "".join(f"{i},{x},{y},n\n" for i, x, y in zip(ids, a, b)))
    out["long_line.jsonl"] = "".join(json.dumps({"id": i, "a": x, "b": y, "note": long if k == 7
                                                 else "n"}) + "\n"
                                     for k, (i, x, y) in enumerate(zip(ids, a, b)))
    out["type_change.jsonl"] = "".join(json.dumps({"id": i, "a": x, "b": y,
                                                   "x": "t" if k < 150 else [k, {"k": k}]})
                                       + "\n" for k, (i, x, y) in enumerate(zip(ids, a, b)))
    out["nested.jsonl"] = "".join(json.dumps({"id": i, "a": x, "b": y}).rstrip("}")
                                  + ', "x": ' + "[" * 400 + "]" * 400 + "}\n"
                                  for i, x, y in zip(ids, a, b))
    out["mixed_ids.jsonl"] = "".join(json.dumps({"id": k if k < 150 else f"q{k}", "a": x,
                                                 "b": str(y) if k == 5 else y}) + "\n"
                                     for k, (x, y) in enumerate(zip(a, b)))
    paths = {}
    for name, text in out.items():
        paths[name] = str(folder / name)
        (folder / name).write_text(text)
    return paths


@pytest.mark.parametrize("block", [None, 300])
@pytest.mark.parametrize("name", ["long_row.csv", "long_header.csv", "long_line.jsonl",
                                  "type_change.jsonl", "nested.jsonl", "mixed_ids.jsonl"])
@pytest.mark.slow
def test_stream_reads_what_memory_reads(tmp_path, monkeypatch, name, block):
    """(``block``: blocks of text of 300 bytes, so that blocks read by pyarrow and by
    Python's json meet in one chunk.)"""
    from pairboot.io import stream  # noqa: PLC0415

    if block is not None:
        monkeypatch.setattr(stream, "_BLOCK_BYTES", block)
    path = _odd_files(tmp_path)[name]
    streamed = pairboot.compare_files([path], a="a", b="b", id="id", seed=4, n_resamples=R,
                                      chunk_rows=100)
    _same(_in_memory(path), streamed)


@pytest.mark.slow
def test_stream_refuses_json_nested_too_deep(tmp_path):
    """pyarrow's JSON reader crashed (a segmentation fault) on a value nested 30,000
    deep in a column no one reads; in memory it was an internal error.  Both: one line,
    exit 2.  (Run in a subprocess: before the fix it killed the process.)"""
    from helpers import run_cli  # noqa: PLC0415

    ids, a, b = _rows(20)
    rows = [json.dumps({"id": i, "a": x, "b": y}) for i, x, y in zip(ids, a, b)]
    rows[5] = rows[5][:-1] + ', "x": ' + "[" * 30_000 + "]" * 30_000 + "}"
    path = tmp_path / "deep.jsonl"
    path.write_text("\n".join(rows) + "\n")
    for stream in (["--stream"], []):
        proc = run_cli("compare", path, "--a", "a", "--b", "b", "--resamples", "200",
                       "--seed", "1", *stream)
        assert_one_line_error(proc, "line 6: JSON nested 30,001 levels deep")


def test_stream_same_column_twice_and_a_parquet_column_named_twice(tmp_path):
    """--a X --b X said "need at least one array to concatenate"; a Parquet schema naming
    a column twice was an internal error (KeyError) streamed, another message in memory."""
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.parquet as pq  # noqa: PLC0415

    ids, a, b = _rows(50)
    path = tmp_path / "s.csv"
    path.write_text("id,a,b\n" + "".join(f"{i},{x},{y}\n" for i, x, y in zip(ids, a, b)))
    for stream in (["--stream"], []):
        assert_one_line_error(run_in_process("compare", path, "--a", "a", "--b", "a", *stream),
                              "--a and --b are the same column 'a'")
    with pytest.raises(InputError, match="`a` and `b` are the same column 'a'"):
        pairboot.compare_files([str(path)], a="a", b="a", seed=1)
    dup = tmp_path / "dup.parquet"
    pq.write_table(pa.Table.from_arrays([pa.array(ids), pa.array(a), pa.array(b),
                                         pa.array(a)], names=["id", "a", "b", "a"]), dup)
    for cols in (("a", "b"), ("b", "id")):
        for stream in (["--stream"], []):
            assert_one_line_error(
                run_in_process("compare", dup, "--a", cols[0], "--b", cols[1], *stream),
                f"{dup}: the schema names column 'a' twice (columns 2 and 4)")


def test_a_duplicate_within_a_chunk_is_refused_before_the_next(tmp_path, monkeypatch):
    """A gzip of one id repeated wrote hundreds of MB of keys to disk before the
    duplicate was reported: a chunk's keys are checked before they are stored."""
    import gzip  # noqa: PLC0415

    from pairboot.partitioned import files as streaming  # noqa: PLC0415

    path = tmp_path / "dups.csv.gz"
    with gzip.open(path, "wt") as f:
        f.write("id,a,b\n" + "x,1,0\n" * 5000)
    written = []
    real_add = streaming._KeyStore.add

    def add(self, keys):
        out = real_add(self, keys)
        written.append(len(keys) if not len(out) else 0)
        return out

    monkeypatch.setattr(streaming._KeyStore, "add", add)
    seen = []
    with pytest.raises(InputError, match=r"duplicate id 'x' \(data rows 1 and 2\)"):
        pairboot.compare_files([str(path)], a="a", b="b", id="id", seed=1, n_resamples=50,
                               chunk_rows=500, progress=lambda p, rows: seen.append(rows))
    assert sum(written) == 0 and seen == []  # (nothing stored, refused in the first chunk)


@pytest.mark.parametrize("kind", ["csv", "jsonl", "parquet"])
def test_stream_refuses_integers_beyond_2_53(tmp_path, kind):
    import pyarrow as pa  # noqa: PLC0415
    import pyarrow.parquet as pq  # noqa: PLC0415

    big = 2**62
    n = 40
    path = tmp_path / f"s.{kind}"
    a = [big + i for i in range(n)]
    b = [big + i - 1 for i in range(n)]
    a[0] = 0.5  # (a float column: pyarrow would have rounded the integers silently)
    if kind == "csv":
        path.write_text("id,a,b\n" + "".join(f"q{i},{x},{y}\n" for i, (x, y)
                                             in enumerate(zip(a, b))))
    elif kind == "jsonl":
        path.write_text("".join(json.dumps({"id": f"q{i}", "a": x, "b": y}) + "\n"
                                for i, (x, y) in enumerate(zip(a, b))))
    else:
        pq.write_table(pa.table({"id": [f"q{i}" for i in range(n)], "a": pa.array(b),
                                 "b": pa.array(b)}), path)
    msg = str(pytest.raises(InputError, pairboot.compare_files, [str(path)], a="a", b="b",
                            seed=1, n_resamples=50).value)
    row, value = ("1", big - 1) if kind == "parquet" else ("2", big + 1)
    assert f"data row {row}, column 'a': {value} is an integer beyond 2**53" in msg, msg


def test_stream_ids_that_differ_only_in_normalisation(tmp_path):
    import unicodedata  # noqa: PLC0415

    fa, fb = tmp_path / "a.csv", tmp_path / "b.csv"
    names = ["café", "naïve", "q3"]
    fa.write_text("id,score\n" + "".join(f"{unicodedata.normalize('NFC', v)},1\n"
                                         for v in names))
    fb.write_text("id,score\n" + "".join(f"{unicodedata.normalize('NFD', v)},0\n"
                                         for v in names))
    for stream in (["--stream"], []):
        assert_one_line_error(
            run_in_process("compare", fa, fb, "--id", "id", "--resamples", "50", *stream),
            "only in Unicode normalisation (NFC in", "U+00E9", "U+0065 U+0301",
            "unicodedata.normalize('NFC', id)")


def test_memory_run_out_in_chunks_is_one_line(data, monkeypatch):
    """A MemoryError while the chunks are read and summed ends the run with one line,
    exit 2, naming --resamples (not a traceback)."""
    def short_of_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr("pairboot.partitioned.files.arrays_part", short_of_memory)
    proc = run_in_process("compare", data["one"], "--a", "a", "--b", "b", "--stream",
                          "--no-progress")
    assert_one_line_error(proc, "not enough memory", "reading in chunks", "--resamples")

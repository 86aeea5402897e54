"""One extension -> format table (pairboot.io.formats) for every reader: in memory
(read_table), in chunks (--stream: io.stream.stream_format) and on Dask (streaming's
_dask_frame, a local file or a URL), gzipped or not.  A ``.tab`` file given to Dask as a
URL was read as CSV (issue 23)."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

import pairboot
import pairboot.io as pbio
from pairboot.errors import InputError
from pairboot.io import formats
from pairboot.io.stream import stream_format
from pairboot.partitioned import files as streaming

ROWS = [("q1", 0.5, 0.25), ("q2", 1.0, 0.75), ("q3", 0.0, 0.5)]


def _content(fmt: str) -> bytes:
    if fmt in ("csv", "tsv"):
        sep = "\t" if fmt == "tsv" else ","
        return "".join(sep.join(map(str, r)) + "\n" for r in [("id", "a", "b"), *ROWS]).encode()
    if fmt in ("jsonl", "json"):  # (a .json of JSON Lines: what every reader reads)
        return "".join(json.dumps(dict(zip(("id", "a", "b"), r))) + "\n" for r in ROWS).encode()
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    sink = pa.BufferOutputStream()
    pq.write_table(pa.table({k: [r[i] for r in ROWS] for i, k in enumerate("id a b".split())}),
                   sink)
    return sink.getvalue().to_pybytes()


class _Stop(Exception):
    pass


def _dask_choice(monkeypatch, path: str) -> tuple[str, str | None]:
    """The format (and compression) streaming's Dask reader chooses for ``path``: the
    Dask reader it calls, stopped there."""
    dd = pytest.importorskip("dask.dataframe")
    seen = []

    def reader(kind):
        def read(p, **kw):
            fmt = kind if kind != "csv" else ("tsv" if kw.get("sep") == "\t" else "csv")
            compression = kw.get("compression", "infer" if kind == "jsonl" else None)
            if compression == "infer":  # (Dask's read_json: by the name)
                compression = "gzip" if p.lower().endswith(".gz") else None
            seen.append((fmt, compression))
            raise _Stop
        return read

    for name, kind in (("read_csv", "csv"), ("read_json", "jsonl"),
                       ("read_parquet", "parquet")):
        monkeypatch.setattr(dd, name, reader(kind))
    with pytest.raises(_Stop):
        streaming._dask_frame(path, ["id"])
    return seen[0]


CASES = [ext + gz for ext in formats.FORMATS for gz in ("", ".gz")
         if not (gz and formats.FORMATS[ext] == "parquet")]  # (Parquet compresses itself)


def test_the_table_is_the_io_layers_one():
    assert pbio.FORMATS is formats.FORMATS
    assert formats.FORMATS[".tab"] == "tsv"
    assert {formats.format_of(f"x{e}") for e in CASES} == set(formats.FORMATS.values())


@pytest.mark.parametrize("ext", CASES)
def test_every_reader_answers_the_tables_format(tmp_path, monkeypatch, ext):
    fmt = formats.FORMATS[ext.removesuffix(".gz")]
    data = _content(fmt)
    path = tmp_path / f"scores{ext.upper() if ext == '.tab' else ext}"
    path.write_bytes(gzip.compress(data) if ext.endswith(".gz") else data)
    read = "jsonl" if fmt == "json" else fmt  # (JSON Lines in a .json file)
    gz = "gzip" if ext.endswith(".gz") else None
    assert formats.format_of(str(path)) == fmt
    assert pbio.read_table(str(path)).format == read
    assert stream_format(str(path)) == read
    assert _dask_choice(monkeypatch, str(path)) == (read, gz if read != "parquet" else None)
    assert _dask_choice(monkeypatch, path.as_uri()) == (read, gz if read != "parquet" else None)


def test_gzip_without_its_extension_is_inflated_everywhere(tmp_path, monkeypatch):
    path = tmp_path / "scores.tsv"
    path.write_bytes(gzip.compress(_content("tsv")))
    assert pbio.read_table(str(path)).format == "tsv"
    assert stream_format(str(path)) == "tsv"
    assert _dask_choice(monkeypatch, str(path)) == ("tsv", "gzip")


def test_an_unknown_extension_is_sniffed_where_the_bytes_are_read(tmp_path, monkeypatch):
    path = tmp_path / "scores.txt"
    path.write_bytes(_content("tsv"))
    assert formats.format_of(str(path)) is None
    assert pbio.read_table(str(path)).format == "tsv"
    assert stream_format(str(path)) == "tsv"
    assert _dask_choice(monkeypatch, str(path)) == ("tsv", None)
    # a URL: no bytes to sniff, refused in one line naming the file and the table
    with pytest.raises(InputError) as info:
        streaming._dask_frame(path.as_uri(), ["id"])
    message = str(info.value)
    assert "\n" not in message and message.startswith(path.as_uri())
    assert all(ext in message for ext in formats.FORMATS)
    assert message == str(formats.unknown_format(path.as_uri()))


def test_names_are_split_at_the_file_not_the_folder():
    assert formats.format_of("s3://my.tsv.bucket/runs/a.csv") == "csv"
    assert formats.format_of("s3://bucket/a.pqx.csv") == "csv"
    assert formats.format_of("a.csv.gz.txt") is None
    assert formats.compression_of("s3://b/a.TAB.GZ") == "gzip"


@pytest.fixture(scope="module")
def scheduler():
    """An in-process Dask cluster's address (the workers are threads of this process)."""
    distributed = pytest.importorskip("distributed")
    pytest.importorskip("dask.dataframe")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster:
        yield cluster.scheduler_address


@pytest.mark.slow  # (a Dask cluster: about 2 s)
@pytest.mark.filterwarnings("ignore::pairboot.errors.SmallSampleWarning")
@pytest.mark.parametrize("ext", [".tab", ".tab.gz"])
def test_a_tab_file_on_dask_is_read_as_in_memory(tmp_path, scheduler, ext):
    rng = np.random.default_rng(23)
    a, b = np.round(rng.random(60), 3), np.round(rng.random(60), 3)
    text = "id\ta\tb\n" + "".join(f"q{i}\t{x}\t{y}\n" for i, (x, y) in enumerate(zip(a, b)))
    path = tmp_path / f"scores{ext}"
    path.write_bytes(gzip.compress(text.encode()) if ext.endswith(".gz") else text.encode())
    table = pbio.read_table(str(path))
    assert table.format == "tsv"
    memory = pairboot.compare(pbio.numeric_column(table, "a"), pbio.numeric_column(table, "b"),
                              ids=pbio.id_column(table, "id"), resampling="poisson", seed=7,
                              n_resamples=200)
    for given in (str(path), path.as_uri()):  # (a URL: the format from the name alone)
        got = pairboot.compare_files([given], a="a", b="b", id="id", seed=7, n_resamples=200,
                                     scheduler=scheduler, timeout=60)
        np.testing.assert_allclose(got.bootstrap_distribution, memory.bootstrap_distribution,
                                   rtol=1e-12, atol=1e-15)
        assert got.estimate == pytest.approx(memory.estimate, rel=1e-12)
        assert got.n_items == memory.n_items == 60

"""The corpus of hostile and odd inputs (issues 21 and 22): every case through the command
line, in memory and read in chunks (``--stream``) where it applies.

Each case has its expected outcome in :data:`CASES`: the exit status and the key words of
the one-line error, or of the report.  Whatever a case expects, no run may end in an
internal error (exit 3), a traceback, or a crash (a crash of pyarrow takes this process
down with it: loud enough).  The small files are in ``tests/io/fuzz/``; the large or deep
ones are written into ``tmp_path`` by the generators below, never kept in the
repository.  A new odd input that once broke a reader belongs here.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import run_in_process

CORPUS = Path(__file__).resolve().parent / "fuzz"
FAST = ("--resamples", "200", "--seed", "1")
MIB = 1 << 20


# --- the generated cases -------------------------------------------------------------------


def _rows(n=24):
    return [(f"q{i}", round((i * 7 % 10) / 10, 1), round((i * 3 % 10) / 10, 1)) for i in range(n)]


def _jsonl(path: Path, extra=None) -> None:
    """A JSON Lines file of _rows(); ``extra(k)``, when given, is text added to line k's
    object (or None)."""
    lines = []
    for k, (i, a, b) in enumerate(_rows()):
        line = json.dumps({"id": i, "a": a, "b": b})
        more = extra(k) if extra is not None else None
        lines.append(line if more is None else line[:-1] + ", " + more + "}")
    path.write_text("\n".join(lines) + "\n")


def deep_jsonl(folder: Path) -> list[str]:
    """A value nested 30,000 deep in a column no one reads (pyarrow crashed)."""
    path = folder / "deep.jsonl"
    _jsonl(path, lambda k: '"x": ' + "[" * 30_000 + "]" * 30_000 if k == 5 else None)
    return [str(path)]


def deep_json(folder: Path) -> list[str]:
    path = folder / "deep.json"
    records = [json.dumps({"id": i, "a": a, "b": b}) for i, a, b in _rows()]
    records[3] = records[3][:-1] + ', "x": ' + "[" * 30_000 + "]" * 30_000 + "}"
    path.write_text("[\n" + ",\n".join(records) + "\n]\n")
    return [str(path)]


def deep_lm_eval(folder: Path) -> list[str]:
    """Two lm-eval output folders, one samples line nested 30,000 deep."""
    out = []
    for model in ("base", "new"):
        run = folder / model / "org__m"
        run.mkdir(parents=True)
        lines = []
        for k in range(20):
            line = json.dumps({"doc_id": k, "filter": "none", "metrics": ["acc"],
                               "acc": float(k % 2)})
            if model == "new" and k == 3:
                line = line[:-1] + ', "doc": ' + "[" * 30_000 + "]" * 30_000 + "}"
            lines.append(line)
        (run / "samples_t_2026-01-01T00-00-00.000000.jsonl").write_text("\n".join(lines) + "\n")
        out.append(str(folder / model))
    return out


def long_row_csv(folder: Path) -> list[str]:
    path = folder / "long_row.csv"
    path.write_text("id,a,b,note\n" + "".join(
        f"{i},{a},{b},{'x' * (2 * MIB) if k == 7 else 'n'}\n"
        for k, (i, a, b) in enumerate(_rows())))
    return [str(path)]


def long_header_csv(folder: Path) -> list[str]:
    path = folder / "long_header.csv"
    path.write_text(f"id,a,b,{'h' * (2 * MIB)}\n" + "".join(
        f"{i},{a},{b},n\n" for i, a, b in _rows()))
    return [str(path)]


def long_line_jsonl(folder: Path) -> list[str]:
    path = folder / "long_line.jsonl"
    _jsonl(path, lambda k: f'"note": "{"x" * (2 * MIB)}"' if k == 7 else None)
    return [str(path)]


def duplicate_parquet_columns(folder: Path) -> list[str]:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    rows = _rows()
    path = folder / "dup.parquet"
    pq.write_table(pa.Table.from_arrays(
        [pa.array([r[0] for r in rows]), pa.array([r[1] for r in rows]),
         pa.array([r[2] for r in rows]), pa.array([0.0] * len(rows))],
        names=["id", "a", "b", "a"]), path)
    return [str(path)]


def gzip_bomb(folder: Path) -> list[str]:
    """50 MiB of text in about 50 KB (the reader's bound is set to 4 MiB for this case)."""
    path = folder / "bomb.csv.gz"
    with gzip.open(path, "wb") as f:
        f.write(b"id,a,b\n")
        for _ in range(50):
            f.write(b"q,0,1\n" * (MIB // 6))
    return [str(path)]


def duplicate_ids_gzip(folder: Path) -> list[str]:
    path = folder / "dups.csv.gz"
    with gzip.open(path, "wt") as f:
        f.write("id,a,b\n" + "x,1,0\n" * 20_000)
    return [str(path)]


def long_id(folder: Path) -> list[str]:
    path = folder / "long_id.csv"
    long = "y" * 100_000
    path.write_text(f"id,a,b\n{long},1,0\nq2,0,1\n{long},1,1\n")
    return [str(path)]


def file_twice(folder: Path) -> list[str]:
    return [str(CORPUS / "plain.csv"), str(CORPUS / "plain.csv")]


def file_twice_by_another_name(folder: Path) -> list[str]:
    """The same file as a copy and a hard link to it."""
    copy = folder / "plain.csv"
    shutil.copy(CORPUS / "plain.csv", copy)
    os.link(copy, folder / "link.csv")
    return [str(copy), str(folder / "link.csv")]


# --- the cases -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One input and what the command line must do with it: ``files`` (names in
    tests/io/fuzz/, or a generator writing into tmp_path), ``args`` after them, ``code``
    and ``words`` (in the error line, or in the report) in each of ``modes``."""

    name: str
    files: object
    args: tuple[str, ...]
    code: int
    words: tuple[str, ...]
    modes: tuple[str, ...] = ("memory", "stream")
    slow: bool = False
    limit: int | None = None  # the in-memory reader's bound on inflated text, if set


ONE = ("--a", "a", "--b", "b")
CASES = [
    # issue 22
    Case("json nested 30,000 deep", deep_jsonl, ONE, 2, ("deep.jsonl, line 6: JSON nested",
                                                          "at most 512")),
    Case("a JSON array nested deep", deep_json, ONE, 2, ("deep.json, line 5: JSON nested",),
         modes=("memory",)),
    Case("lm-eval samples nested deep", deep_lm_eval, ("--from", "lm-eval"), 2,
         ("line 4: JSON nested",), modes=("memory",)),
    Case("a CSV row over 1 MiB", long_row_csv, ONE, 0, ("24 items",)),
    Case("a CSV header over 1 MiB", long_header_csv, ONE, 0, ("24 items",)),
    Case("a JSONL line over 1 MiB", long_line_jsonl, ONE, 0, ("24 items",)),
    Case("an unused JSONL column whose type changes", ["type_change.jsonl"], ONE, 0,
         ("24 items",)),
    Case("--a and --b the same column", ["plain.csv"], ("--a", "a", "--b", "a"), 2,
         ("--a and --b are the same column 'a'",)),
    Case("a Parquet schema naming a column twice", duplicate_parquet_columns, ONE, 2,
         ("the schema names column 'a' twice (columns 2 and 4)",)),
    Case("a gzip that inflates 1,000 times", gzip_bomb, ONE, 2,
         ("inflates to more than 4.0 MiB", "--stream"), modes=("memory",), limit=4 * MIB),
    Case("a gzip of one id repeated", duplicate_ids_gzip, (*ONE, "--id", "id"), 2,
         ("duplicate id 'x'", "ids must be unique")),
    Case("integers beyond 2**53 (CSV)", ["big_int.csv"], ONE, 2,
         ("column 'a': 4611686018427387904 is an integer beyond 2**53", "rescale")),
    Case("integers beyond 2**53 (JSONL)", ["big_int.jsonl"], ONE, 2,
         ("column 'a': 4611686018427387905 is an integer beyond 2**53", "rescale")),
    Case("an unused JSON integer of 5,000 digits", ["huge_json_int.jsonl"], ONE, 0,
         ("24 items",)),
    Case("an id of 100 KB", long_id, (*ONE, "--id", "id"), 2,
         ("duplicate id 'yyyy", "…' (100,000 characters)")),
    Case("ids in NFC and NFD", ["nfc_ids.csv", "nfd_ids.csv"], ("--id", "id"), 2,
         ("only in Unicode normalisation (NFC in", "U+00E9", "U+0065 U+0301")),
    # issue 21
    Case("the same file twice", file_twice, ("--id", "id", "--score", "a"), 2,
         ("given twice",)),
    Case("the same file by another name", file_twice_by_another_name,
         ("--id", "id", "--score", "a"), 2, ("are the same file",)),
    Case("quoted headers", ["quoted_header.csv"], ONE, 0, ("24 items",)),
    Case("a header repeated mid-file", ["repeated_header.csv"], ONE, 2,
         ("repeated_header.csv", "header"), ),
    Case("a byte-order mark", ["bom.csv"], (*ONE, "--id", "id"), 0, ("24 items",)),
    Case("CRLF line ends", ["crlf.csv"], (*ONE, "--id", "id"), 0, ("24 items",)),
    Case("a pandas index column without a name", ["pandas_index.csv"], ONE, 2,
         ("column 1 of the header has no name: a row index?", "index=False")),
    Case("'Unnamed: 0' as the id", ["unnamed_0_a.csv", "unnamed_0_b.csv"],
         ("--id", "Unnamed: 0"), 0, ("the rows are paired by position",)),
    Case("ids that disagree row by row under another name",
         ["rows_disagree_a.csv", "rows_disagree_b.csv"], (), 2,
         ("'key'", "different order", "--id key"), modes=("memory",)),
    Case("a WMT DA file", ["da.csv"], ("--from", "wmt", "--score", "z"), 0,
         ("SysB.2", "24 items"), modes=("memory",)),
    Case("a WMT DA file without --score", ["da.csv"], ("--from", "wmt"), 2,
         ("is a WMT DA segment-score file", "--score"), modes=("memory",)),
]


def _params():
    for case in CASES:
        for mode in case.modes:
            marks = [pytest.mark.slow] if case.slow else []
            yield pytest.param(case, mode, id=f"{case.name} [{mode}]", marks=marks)


@pytest.mark.filterwarnings("ignore::pairboot.errors.PairbootWarning")
@pytest.mark.parametrize(("case", "mode"), list(_params()))
def test_the_corpus(case: Case, mode: str, tmp_path, monkeypatch):
    if mode == "stream":
        pytest.importorskip("pyarrow")
    if case.limit is not None:
        from pairboot.io import guards  # noqa: PLC0415

        monkeypatch.setattr(guards, "inflated_limit", lambda: case.limit)
    files = (case.files(tmp_path) if callable(case.files)
             else [str(CORPUS / name) for name in case.files])
    stream = ["--stream"] if mode == "stream" else []
    proc = run_in_process("compare", *files, *case.args, *FAST, *stream)
    err, out = proc.stderr.decode(), proc.stdout.decode()
    assert proc.returncode != 3 and "Traceback" not in err + out, err
    assert proc.returncode == case.code, err or out[-500:]
    if case.code == 2:
        assert err.startswith("error: ") and err.count("\n") == 1, err
        assert len(err) < 1000, err[:300]  # (one line a person can read)
        text = err
    else:
        assert "pairboot " in out, out[-300:]
        text = out
    for word in case.words:
        assert word in text, (word, text[:600])


def test_every_corpus_file_is_used():
    used = {name for case in CASES if not callable(case.files) for name in case.files}
    used.add("plain.csv")  # (through the generators of the same file twice)
    assert {p.name for p in CORPUS.iterdir() if p.name != "README.md"} == used

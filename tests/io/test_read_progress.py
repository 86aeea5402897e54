"""Progress while reading a file: ``pairboot.io.read_table(..., progress=...)`` and the command
line's ``reading base.csv: 420,000 rows (85,000 rows/s)`` line (:class:`progress.ReadProgress`),
and the ``[fast]`` extra that brings pyarrow's reader."""

from __future__ import annotations

import io
import json
import math
import re
from pathlib import Path

import pytest
from helpers import PROJECT_ROOT

import pairboot.io as pbio
from pairboot import cli
from pairboot.cli import progress
from pairboot.errors import InputError
from pairboot.io import arrow, tables

EVERY = 10  # PROGRESS_ROWS in these tests: a progress call every 10 lines


class Terminal(io.StringIO):
    """A stream that says it is a terminal, as the progress line asks."""

    def isatty(self):
        return True


@pytest.fixture
def python_reader(monkeypatch):
    """The pure-Python readers, reporting every EVERY lines."""
    monkeypatch.setattr(arrow, "_ARROW_MIN_BYTES", math.inf)
    monkeypatch.setattr(tables, "PROGRESS_ROWS", EVERY)


def write(folder: Path, name: str, n: int, *, blank_after: int = 0) -> str:
    """A file of ``n`` rows (id, score) in the format its extension names, with
    ``blank_after`` blank lines at the end."""
    if name.endswith(".jsonl"):
        lines = [json.dumps({"id": f"q{i}", "score": i / 8}) for i in range(n)]
    else:
        sep = "\t" if name.endswith(".tsv") else ","
        lines = [f"id{sep}score"] + [f"q{i}{sep}{i / 8}" for i in range(n)]
    path = folder / name
    path.write_text("\n".join(lines) + "\n" * (1 + blank_after))
    return str(path)


def read_counting(path: str) -> tuple[pbio.Table, list[int]]:
    calls: list[int] = []
    table = pbio.read_table(path, progress=calls.append)
    return table, calls


# ----------------------------------------------------------------------- read_table


@pytest.mark.parametrize(
    "name, expected",
    [
        # the header is the first line of a CSV: 9 rows in the first 10 lines
        ("s.csv", [9, 19, 29, 35]),
        ("s.tsv", [9, 19, 29, 35]),
        ("s.jsonl", [10, 20, 30, 35]),
    ],
)
def test_python_reader_reports_every_batch_and_the_total(tmp_path, python_reader, name,
                                                         expected):
    table, calls = read_counting(write(tmp_path, name, 35))
    assert not table.read_by_pyarrow
    assert calls == expected
    assert calls[-1] == table.n_rows == 35


def test_counts_only_increase_when_a_batch_holds_no_rows(tmp_path, python_reader):
    """Blank lines after the last row make a batch of no rows: no repeated count."""
    for name in ("s.csv", "s.jsonl"):
        table, calls = read_counting(write(tmp_path, name, 20, blank_after=2 * EVERY))
        assert table.n_rows == 20
        assert calls == sorted(set(calls)) and calls[-1] == 20, (name, calls)


def test_progress_does_not_change_the_table_or_the_errors(tmp_path, python_reader):
    path = write(tmp_path, "s.csv", 35)
    table, _ = read_counting(path)
    plain = pbio.read_table(path)
    assert dict(table.columns) == dict(plain.columns)
    assert list(table.lines) == list(plain.lines) and table.n_rows == plain.n_rows

    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(f'{{"id": "q{i}", "score": 1}}\n' for i in range(25)) + "{oops\n")
    calls: list[int] = []
    with pytest.raises(InputError) as with_progress:
        pbio.read_table(str(bad), progress=calls.append)
    with pytest.raises(InputError) as without:
        pbio.read_table(str(bad))
    assert str(with_progress.value) == str(without.value)
    assert "line 26" in str(without.value)
    assert calls == [10, 20]  # no final call for a file that failed


@pytest.mark.parametrize("name", ["s.csv", "s.tsv", "s.jsonl"])
def test_pyarrow_reader_reports_the_total_once(tmp_path, monkeypatch, name):
    pytest.importorskip("pyarrow")
    monkeypatch.setattr(arrow, "_ARROW_MIN_BYTES", 0)
    monkeypatch.setattr(tables, "PROGRESS_ROWS", EVERY)
    table, calls = read_counting(write(tmp_path, name, 35))
    assert table.read_by_pyarrow
    assert calls == [35]


def test_one_call_for_what_is_parsed_in_one_go(tmp_path):
    """A JSON array and a Parquet file: the total, once."""
    array = tmp_path / "s.json"
    array.write_text(json.dumps([{"id": f"q{i}", "score": i} for i in range(7)]))
    assert read_counting(str(array))[1] == [7]
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "s.parquet"
    pq.write_table(pa.table({"id": [f"q{i}" for i in range(6)], "score": [0.5] * 6}), str(path))
    assert read_counting(str(path))[1] == [6]


# ------------------------------------------------------------------ the progress line


def test_read_progress_draws_rows_and_rate_then_blanks_the_line():
    tty = Terminal()
    line = progress.ReadProgress(tty, delay=0.0)
    callback = line.reading("base.csv")
    callback(50_000)
    callback(420_000)
    drawn = tty.getvalue()
    widest = max(len(part) for part in drawn.split("\r"))
    assert re.search(r"\rreading base\.csv: 420,000 rows \([\d,]+ rows/s\) *$", drawn), drawn
    line.close()
    assert tty.getvalue() == drawn + "\r" + " " * widest + "\r"  # the whole line blanked


@pytest.mark.parametrize("how", ["not a terminal", "--no-progress", "quick"])
def test_read_progress_draws_nothing(how):
    stream = io.StringIO() if how == "not a terminal" else Terminal()
    line = progress.ReadProgress(stream, delay=3600 if how == "quick" else 0.0,
                                 enabled=how != "--no-progress", hint="faster: get pyarrow")
    for rows in (50_000, 1_000_000):
        line.reading("base.csv")(rows)
    line.close()
    assert stream.getvalue() == ""


def test_rate_is_per_file(monkeypatch):
    clock = iter([0.0, 0.0, 2.0, 2.0, 3.0])
    monkeypatch.setattr(progress.time, "monotonic", lambda: next(clock))
    tty = Terminal()
    line = progress.ReadProgress(tty, delay=1.0)  # start: 0 s
    line.reading("a.csv")  # 0 s
    line(100_000)  # 2 s: 50,000 rows/s
    assert tty.getvalue().endswith("reading a.csv: 100,000 rows (50,000 rows/s) ")
    line.reading("b.csv")  # 2 s: shown at once, past the delay
    assert tty.getvalue().split("\r")[-1].rstrip() == "reading b.csv"
    line(30_000)  # 3 s: b's own rate
    assert tty.getvalue().split("\r")[-1].rstrip() == "reading b.csv: 30,000 rows (30,000 rows/s)"


def test_hint_on_the_first_slow_file_only(monkeypatch):
    monkeypatch.setattr(progress, "SLOW_READ_ROWS", 100)
    hint = 'faster: pip install "pairboot[fast]"'
    tty = Terminal()
    line = progress.ReadProgress(tty, delay=0.0, hint=hint)
    line.columns = 200
    small = line.reading("small.csv")
    small(99)
    assert hint not in tty.getvalue()  # not slow yet
    small(150)
    assert tty.getvalue().split("\r")[-1].rstrip().endswith("rows/s); " + hint)
    small(200)  # kept on that file's line
    assert tty.getvalue().split("\r")[-1].rstrip().endswith(hint)
    line.reading("next.csv")(500)
    assert hint not in tty.getvalue().split("\r")[-1]  # once
    assert tty.getvalue().split("\r")[-1].startswith("reading next.csv: 500 rows")

    narrow = Terminal()
    line = progress.ReadProgress(narrow, delay=0.0, hint=hint)
    line.columns = 60  # a wrapped line could not be redrawn in place
    line.reading("base.csv")(150)
    assert "reading base.csv: 150 rows" in narrow.getvalue() and hint not in narrow.getvalue()

    # on 80 columns the hint shows, in place of the rate if need be; a long path is cut
    usual = Terminal()
    line = progress.ReadProgress(usual, delay=0.0, hint=hint)
    line.columns = 80
    line.reading("/data/evaluations/2026/november/very-long-folder/base.csv")(1_000_000)
    shown = usual.getvalue().split("\r")[-1].rstrip()
    assert shown == "reading base.csv: 1,000,000 rows; " + hint
    assert len(shown) < 80


# ------------------------------------------------------------------ the command line


def write_pair(folder: Path, n: int = 60) -> tuple[str, str]:
    base, new = folder / "base.csv", folder / "new.csv"
    base.write_text("id,score\n" + "".join(f"q{i},{i % 3}\n" for i in range(n)))
    new.write_text("id,score\n" + "".join(f"q{i},{i % 5}\n" for i in range(n)))
    return str(base), str(new)


def test_cli_draws_the_reading_line_unless_no_progress(tmp_path, capsys, monkeypatch,
                                                       python_reader):
    base, new = write_pair(tmp_path)
    tty = Terminal()
    real = progress.ReadProgress

    def on_the_terminal(stream=None, **kwargs):  # at once, on a terminal
        return real(tty, **{**kwargs, "delay": 0.0})

    monkeypatch.setattr(progress, "ReadProgress", on_the_terminal)
    args = ["compare", base, new, "--id", "id", "--score", "score", "--resamples", "200",
            "--seed", "1"]
    assert cli.main(args) == 0
    drawn = tty.getvalue()
    base, new = progress._short(base), progress._short(new)  # (long temporary paths)
    assert f"reading {base}: 60 rows" in drawn and f"reading {new}: 60 rows" in drawn
    assert f"reading {base}: 9 rows" in drawn  # a batch before the end
    # then, until the inputs are ready, what takes the time without pyarrow
    assert "\rpreparing 120 rows: numbers, ids, labels" in drawn
    assert drawn.index("preparing") > drawn.index(f"reading {new}: 60 rows")
    assert drawn.endswith("\r")  # blanked
    tty.seek(0)
    tty.truncate()
    assert cli.main([*args, "--no-progress"]) == 0
    assert tty.getvalue() == ""
    capsys.readouterr()


def test_cli_hints_at_the_fast_reader_only_without_pyarrow(tmp_path, capsys, monkeypatch):
    base, new = write_pair(tmp_path)
    hints = []
    real = progress.ReadProgress

    def spy(stream=None, **kwargs):
        hints.append(kwargs.get("hint", ""))
        return real(stream, **kwargs)

    monkeypatch.setattr(progress, "ReadProgress", spy)
    args = ["compare", base, new, "--score", "score", "--resamples", "200", "--seed", "1"]
    for installed in (False, True):
        monkeypatch.setattr(pbio, "arrow_available", lambda installed=installed: installed)
        assert cli.main(args) == 0
    assert hints == [f"faster: {progress.FAST_READER}", ""]
    capsys.readouterr()


def test_slow_read_note_once_and_names_the_fast_extra(tmp_path, capsys, monkeypatch,
                                                      python_reader):
    base, new = write_pair(tmp_path)
    monkeypatch.setattr(progress, "SLOW_READ_ROWS", 10)
    monkeypatch.setattr(pbio, "arrow_available", lambda: False)
    assert cli.main(["compare", base, new, "--id", "id", "--score", "score", "--resamples",
                     "200", "--seed", "1", "--format", "json"]) == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    about = [n for n in notes if "pyarrow" in n]
    assert len(about) == 1, notes
    assert progress.FAST_READER in about[0] and f"{base} (60 rows)" in about[0]
    assert progress.FAST_READER == 'pip install "pairboot[fast]"'


def test_the_fast_extra_brings_pyarrow():
    """The note and the hint send users to ``[fast]`` for pyarrow's reader."""
    tomllib = pytest.importorskip("tomllib")
    pyproject = PROJECT_ROOT / "pyproject.toml"
    extras = tomllib.loads(pyproject.read_text())["project"]["optional-dependencies"]
    assert any(req.startswith("pyarrow") for req in extras["fast"])
    assert any(req.startswith("numba") for req in extras["fast"])

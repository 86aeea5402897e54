"""pairboot.io: every format reads the same columns, and bad files are named errors."""

from __future__ import annotations

import gzip
import io
import json
import math

import numpy as np
import pytest
from helpers import error

import pairboot.io as pbio
from pairboot.cli import stats, weights
from pairboot.io import arrow

ROWS = [("q1", "0.5", "d1"), ("q2", "0.25", "d1"), ("q3", "1", "d2")]


def write_csv(path, rows=ROWS, header=("id", "score", "doc"), sep=","):
    path.write_text(
        "\n".join(sep.join(r) for r in [header, *rows]) + "\n", encoding="utf-8"
    )
    return str(path)


def write_jsonl(path, rows=ROWS, header=("id", "score", "doc")):
    lines = [json.dumps(dict(zip(header, (r[0], float(r[1]), r[2])))) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def write_parquet(path, rows=ROWS):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    table = pa.table({
        "id": [r[0] for r in rows],
        "score": [float(r[1]) for r in rows],
        "doc": [r[2] for r in rows],
    })
    pq.write_table(table, str(path))
    return str(path)


@pytest.fixture(autouse=True, params=["python", "arrow"])
def reader(request, monkeypatch):
    """Every test of this module runs twice: with the pure-Python readers, and with
    pyarrow's fast path taken for every file it can take (not only large ones), so both
    give the same tables and the same messages.  The tests that set the path themselves
    or read no file are in test_readers_arrow.py, and run once."""
    if request.param == "arrow":
        pytest.importorskip("pyarrow")
        monkeypatch.setattr(arrow, "_ARROW_MIN_BYTES", 0)
    else:
        monkeypatch.setattr(arrow, "_ARROW_MIN_BYTES", math.inf)
    return request.param


# --------------------------------------------------------------------------- formats


@pytest.mark.parametrize("kind", ["csv", "tsv", "jsonl", "ndjson", "parquet", "csv.gz"])
def test_every_format_gives_the_same_columns(tmp_path, kind):
    path = tmp_path / f"s.{kind}"
    if kind == "tsv":
        write_csv(path, sep="\t")
    elif kind in ("jsonl", "ndjson"):
        write_jsonl(path)
    elif kind == "parquet":
        write_parquet(path)
    elif kind == "csv.gz":
        path.write_bytes(gzip.compress(b"id,score,doc\nq1,0.5,d1\nq2,0.25,d1\nq3,1,d2\n"))
    else:
        write_csv(path)
    table = pbio.read_table(str(path))
    assert table.n_rows == 3
    assert list(table.columns) == ["id", "score", "doc"]
    assert pbio.numeric_column(table, "score").tolist() == [0.5, 0.25, 1.0]
    assert pbio.id_column(table, "id") == ["q1", "q2", "q3"]
    assert pbio.label_column(table, "doc") == ["d1", "d1", "d2"]


def test_line_numbers_count_the_header_and_blank_lines(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("id,score\n\nq1,0.5\n\nq2,x\n", encoding="utf-8")
    table = pbio.read_table(str(path))
    assert list(table.lines) == [3, 5]
    msg = error(pbio.numeric_column, table, "score")
    assert msg.startswith(f"{path}, line 5, column 'score': 'x' is not a number")


def test_a_quoted_empty_field_is_a_row_not_a_blank_line(tmp_path):
    """In a one-column CSV, '""' is a row whose score is missing (it was skipped as a
    blank line, and the next rows were paired with the wrong ones); spaces alone are a
    blank line."""
    for quoted in ('""', '"  "'):
        path = tmp_path / "s.csv"
        path.write_text(f'score\n0.1\n{quoted}\n   \n0.3\n', encoding="utf-8")
        table = pbio.read_table(str(path))
        assert table.n_rows == 3 and list(table.lines) == [2, 3, 5]
        assert "line 3" in error(pbio.numeric_column, table, "score")


def test_long_text_fields_and_unicode_line_separators_in_json(tmp_path):
    """A 200,000-character text field (csv's default limit is 131,072) and a raw U+2028
    or U+0085 inside a JSON string (valid JSON; str.splitlines cut the line there)."""
    path = tmp_path / "s.csv"
    path.write_text("id,note,score\nq1," + "x" * 200_000 + ",0.5\nq2,short,0.25\n",
                    encoding="utf-8")
    assert pbio.numeric_column(pbio.read_table(str(path)), "score").tolist() == [0.5, 0.25]
    path = tmp_path / "s.jsonl"
    path.write_text('{"id": "q1", "note": "a\u2028b\u0085c", "score": 0.5}\n'
                    '{"id": "q2", "note": "d", "score": 0.25}\n', encoding="utf-8")
    table = pbio.read_table(str(path))
    assert pbio.numeric_column(table, "score").tolist() == [0.5, 0.25]
    assert list(table.lines) == [1, 2]


@pytest.mark.parametrize("text", ["1_000", "\u0661\u0662", "\uff11", "0x10", "1e"])
def test_numbers_are_written_in_ascii_decimal(tmp_path, text):
    """float() takes underscores and any script's digits: a data file's numbers are
    ASCII decimals, and anything else is named."""
    path = tmp_path / "s.csv"
    path.write_text(f"id,score\nq1,0.5\nq2,{text}\n", encoding="utf-8")
    msg = error(pbio.numeric_column, pbio.read_table(str(path)), "score")
    assert "line 3, column 'score'" in msg and "is not a number" in msg


def test_a_json_integer_too_large_for_a_float(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text('{"score": 0.5}\n{"score": 1' + "0" * 400 + "}\n", encoding="utf-8")
    msg = error(pbio.numeric_column, pbio.read_table(str(path)), "score")
    assert "line 2, column 'score'" in msg and "too large for a number" in msg


def test_a_json_key_named_twice_is_refused(tmp_path):
    """json.loads keeps the last of two values of one key, silently; a CSV header that
    names a column twice is refused, and so is this."""
    path = tmp_path / "s.jsonl"
    path.write_text('{"id": "q1", "score": 0.5}\n{"id": "q2", "score": 0.1, "score": 0.9}\n')
    assert "line 2: key 'score' appears twice" in error(pbio.read_table, str(path))
    path = tmp_path / "s.json"
    path.write_text('[{"id": "q1", "score": 0.5, "id": "q2"}]')
    assert "key 'id' appears twice" in error(pbio.read_table, str(path))


def test_quoted_fields_with_newlines_keep_their_start_line(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text('id,note,score\nq1,"two\nlines",0.5\nq2,plain,bad\n', encoding="utf-8")
    table = pbio.read_table(str(path))
    assert table.n_rows == 2
    assert list(table.lines) == [2, 4]
    assert "line 4" in error(pbio.numeric_column, table, "score")


def test_jsonl_line_numbers_and_missing_keys(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text('{"id": 1, "score": 0.5}\n\n{"id": 2}\n', encoding="utf-8")
    table = pbio.read_table(str(path))
    assert list(table.lines) == [1, 3]
    assert pbio.id_column(table, "id") == ["1", "2"]
    msg = error(pbio.numeric_column, table, "score")
    assert "line 3" in msg and "'score'" in msg and "missing" in msg


def test_parquet_reports_rows(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "s.parquet"
    pq.write_table(pa.table({"id": ["a", "b"], "score": [0.5, float("nan")]}), str(path))
    msg = error(pbio.numeric_column, pbio.read_table(str(path)), "score")
    assert "row 2" in msg and "NaN" in msg


def test_parquet_without_pyarrow_names_the_extra(tmp_path, monkeypatch):
    path = write_parquet(tmp_path / "s.parquet")
    import builtins

    real_import = builtins.__import__

    def no_pyarrow(name, *args, **kwargs):
        if name.startswith("pyarrow"):
            raise ImportError("no pyarrow")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pyarrow)
    with pytest.raises(ImportError, match=r'pip install "pairboot\[parquet\]"'):
        pbio.read_table(path)


@pytest.mark.parametrize(
    "data, fmt",
    [
        (b"id,score\nq1,0.5\n", "csv"),
        (b"id\tscore\nq1\t0.5\n", "tsv"),
        (b'{"id": "q1", "score": 0.5}\n', "jsonl"),
        (b"\xef\xbb\xbf  \n{\"id\": \"q1\", \"score\": 0.5}\n", "jsonl"),
    ],
)
def test_stdin_is_sniffed(monkeypatch, data, fmt):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
    table = pbio.read_table("-")
    assert table.path == "<stdin>"
    assert table.format == fmt
    assert pbio.numeric_column(table, "score").tolist() == [0.5]


def test_stdin_parquet(monkeypatch, tmp_path):
    src = tmp_path / "s.parquet"
    write_parquet(src)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(src.read_bytes())))
    assert pbio.read_table("-").format == "parquet"


def test_unknown_extension_is_sniffed(tmp_path):
    path = tmp_path / "scores.txt"
    path.write_text("id\tscore\nq1\t0.5\n", encoding="utf-8")
    assert pbio.read_table(str(path)).format == "tsv"


# ---------------------------------------------------------------------- bad files


def test_missing_file(tmp_path):
    path = str(tmp_path / "nope.csv")
    assert error(pbio.read_table, path) == f"{path}: no such file"


def test_directory(tmp_path):
    assert "is a directory" in error(pbio.read_table, str(tmp_path))


@pytest.mark.parametrize("content", [b"", b"\n\n  \n"])
def test_empty_file(tmp_path, content):
    path = tmp_path / "e.csv"
    path.write_bytes(content)
    assert error(pbio.read_table, str(path)) == f"{path}: the file is empty"


def test_header_only(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text("id,score\n", encoding="utf-8")
    assert "no data rows" in error(pbio.read_table, str(path))


def test_binary_file(tmp_path):
    path = tmp_path / "b.csv"
    path.write_bytes(b"id,score\nq1,\x00\x01\x02\n")
    msg = error(pbio.read_table, str(path))
    assert str(path) in msg and "binary" in msg


def test_parquet_named_csv_is_binary(tmp_path):
    src = tmp_path / "s.parquet"
    write_parquet(src)
    path = tmp_path / "s.csv"
    path.write_bytes(src.read_bytes())
    assert "binary" in error(pbio.read_table, str(path))


@pytest.mark.parametrize("encoding, words", [
    ("latin-1", ("UTF-8", "line 2")),
    ("utf-16-le", ("binary file", "UTF-16")),  # no BOM: its NULs look binary, with a hint
])
def test_not_utf8(tmp_path, encoding, words):
    path = tmp_path / "l.csv"
    path.write_bytes("id,score\nq\xe9,0.5\n".encode(encoding))
    msg = error(pbio.read_table, str(path))
    assert all(w in msg for w in words), msg


def test_corrupt_parquet(tmp_path):
    pytest.importorskip("pyarrow")
    path = tmp_path / "c.parquet"
    path.write_bytes(b"PAR1 this is not parquet")
    assert "not a readable Parquet file" in error(pbio.read_table, str(path))


def test_ragged_row(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("id,score\nq1,0.5\nq2,0.5,extra\n", encoding="utf-8")
    msg = error(pbio.read_table, str(path))
    assert "line 3" in msg and "3 field(s)" in msg


def test_duplicate_header(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("id,score,score\nq1,1,2\n", encoding="utf-8")
    assert "twice" in error(pbio.read_table, str(path))


def test_a_header_repeated_mid_file_is_named(tmp_path):
    """Two CSVs concatenated: the second header is named as such (not "'score' is not a
    number" later), with its line; a value that merely equals a column name is data."""
    path = tmp_path / "cat.csv"
    path.write_text("id,score\nq1,0.5\n\nid,score\nq2,1\n", encoding="utf-8")
    msg = error(pbio.read_table, str(path))
    assert f"{path}, line 4 repeats the header (line 1)" in msg and "concatenated" in msg
    path.write_text(" id , score \r\nq1,0.5\r\n id , score \r\n", encoding="utf-8")
    assert "line 3 repeats the header" in error(pbio.read_table, str(path))
    path.write_text("id\tscore\nq1\t0.5\nid\tscore\n", encoding="utf-8")
    assert "line 3 repeats the header" in error(pbio.read_table, str(path))
    path.write_text("id,score\nid,0.5\nq2,score\n", encoding="utf-8")
    assert pbio.read_table(str(path)).columns["id"] == ["id", "q2"]


def test_an_unnamed_first_column_is_said_to_be_a_row_index(tmp_path):
    """pandas' to_csv() without index=False (and R's write.csv) start the header with an
    empty name: the message says what the column probably is."""
    path = tmp_path / "pd.csv"
    path.write_text(",score\n0,0.5\n1,0.25\n", encoding="utf-8")
    msg = error(pbio.read_table, str(path))
    assert "column 1 of the header has no name" in msg
    assert "row index" in msg and "index=False" in msg
    path.write_text("score,\n0.5,0\n", encoding="utf-8")
    assert "row index" not in error(pbio.read_table, str(path))  # (not the first column)


def test_an_index_column_is_recognised(tmp_path):
    t = table_of(tmp_path, "Unnamed: 0,idx,score\n0,0,0.5\n1,1,0.25\n2,5,1\n")
    assert pbio.is_index_column(t, "Unnamed: 0")
    assert not pbio.is_index_column(t, "idx") and not pbio.is_index_column(t, "score")
    t = table_of(tmp_path, "Unnamed: 3,score\n0,0.5\n2,0.25\n")
    assert not pbio.is_index_column(t, "Unnamed: 3")


def test_bad_json_line(tmp_path):
    path = tmp_path / "j.jsonl"
    path.write_text('{"id": 1, "score": 1}\n{"id": 2, "score": \n', encoding="utf-8")
    assert "line 2: not valid JSON" in error(pbio.read_table, str(path))


def test_json_line_that_is_not_an_object(tmp_path):
    path = tmp_path / "j.jsonl"
    path.write_text('{"id": 1, "score": 1}\n[1, 2]\n', encoding="utf-8")
    assert "line 2: expected a JSON object" in error(pbio.read_table, str(path))


def test_input_file_is_not_modified(tmp_path):
    path = tmp_path / "s.csv"
    write_csv(path)
    before = path.read_bytes(), path.stat().st_mtime_ns
    pbio.numeric_column(pbio.read_table(str(path)), "score")
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


# ---------------------------------------------------------------------- values


def table_of(tmp_path, text, name="t.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return pbio.read_table(str(path))


def test_missing_column_lists_the_available_ones(tmp_path):
    t = table_of(tmp_path, "id,score\nq1,1\n")
    msg = error(pbio.numeric_column, t, "ndcg")
    assert msg == f"{t.path}: no column 'ndcg'; available columns: 'id', 'score'"


def test_missing_column_lists_at_most_twenty(tmp_path):
    t = table_of(tmp_path, ",".join(f"c{i}" for i in range(30)) + "\n" + "1," * 29 + "1\n")
    msg = error(pbio.numeric_column, t, "score")
    assert "'c19', ... (10 more)" in msg and "'c20'" not in msg


def test_missing_column_suggests_a_near_miss(tmp_path):
    t = table_of(tmp_path, "id,Score\nq1,1\n")
    assert "(did you mean 'Score'?)" in error(pbio.numeric_column, t, "score")


def test_missing_column_hints_at_the_delimiter(tmp_path):
    t = table_of(tmp_path, "id;score\nq1;1\n")
    assert "delimited by ';'" in error(pbio.numeric_column, t, "score")


def test_windows_line_endings_and_boolean_text(tmp_path):
    path = tmp_path / "w.csv"
    path.write_bytes(b"\xef\xbb\xbfid,correct\r\nq1,True\r\nq2,false\r\n")
    t = pbio.read_table(str(path))
    assert list(t.columns) == ["id", "correct"] and list(t.lines) == [2, 3]
    assert pbio.numeric_column(t, "correct").tolist() == [1.0, 0.0]


def test_json_array(tmp_path):
    t = table_of(tmp_path, '[{"id": "a", "s": 0.5},\n {"id": "b", "s": "x"}]', "t.json")
    assert t.format == "json" and t.n_rows == 2
    assert "record 2, column 's'" in error(pbio.numeric_column, t, "s")
    lines = table_of(tmp_path, '{"id": "a", "s": 0.5}\n', "l.json")
    assert lines.format == "jsonl"


def test_utf16(tmp_path):
    path = tmp_path / "u.csv"
    path.write_bytes("id,score\nq1,1\n".encode("utf-16"))
    assert "UTF-16" in error(pbio.read_table, str(path))


@pytest.mark.parametrize(
    "value, words",
    [
        ("", "missing value"),
        ("  ", "missing value"),
        ("abc", "'abc' is not a number"),
        ("nan", "NaN"),
        ("NaN", "NaN"),
        ("inf", "infinite"),
        ("-Infinity", "infinite"),
    ],
)
def test_bad_numbers_name_file_line_column_and_value(tmp_path, value, words):
    t = table_of(tmp_path, f"id,score\nq1,0.5\nq2,{value}\nq3,0.1\n")
    msg = error(pbio.numeric_column, t, "score")
    assert msg.startswith(f"{t.path}, line 3, column 'score': ")
    assert words in msg


def test_bad_numbers_are_counted(tmp_path):
    t = table_of(tmp_path, "id,score\nq1,x\nq2,y\nq3,z\n")
    assert "(2 more bad value(s) in this column)" in error(pbio.numeric_column, t, "score")


def test_numbers_accept_whitespace_exponents_and_json_booleans(tmp_path):
    t = table_of(tmp_path, "id,score\nq1, 1e-3 \nq2,-2\n")
    assert pbio.numeric_column(t, "score").tolist() == [0.001, -2.0]
    j = table_of(tmp_path, '{"c": true}\n{"c": false}\n{"c": "0.5"}\n', "t.jsonl")
    assert pbio.numeric_column(j, "c").tolist() == [1.0, 0.0, 0.5]


def test_json_nan_literal_is_rejected(tmp_path):
    j = table_of(tmp_path, '{"s": 1}\n{"s": NaN}\n', "t.jsonl")
    assert "line 2" in error(pbio.numeric_column, j, "s")


def test_duplicate_ids_name_the_id_and_both_lines(tmp_path):
    t = table_of(tmp_path, "id,score\nq1,1\nq2,1\nq1,0\n")
    msg = error(pbio.id_column, t, "id")
    assert "duplicate id 'q1'" in msg and "line 2 and line 4" in msg


def test_missing_id(tmp_path):
    t = table_of(tmp_path, "id,score\nq1,1\n,1\n")
    assert "line 3" in error(pbio.id_column, t, "id")


def test_json_numeric_ids_match_csv_ids(tmp_path):
    j = table_of(tmp_path, '{"id": 1}\n{"id": 2.0}\n', "t.jsonl")
    assert pbio.id_column(j, "id") == ["1", "2"]

@pytest.mark.parametrize(
    "columns, found",
    [
        (["base_tp", "new_tp"], "base_tp"),
        (["tp_base", "tp_new"], "tp_base"),
        (["basetp", "newtp"], "basetp"),
        (["tpbase"], "tpbase"),
    ],
)
def test_find_system_column(tmp_path, columns, found):
    t = table_of(tmp_path, ",".join(columns) + "\n" + ",".join("1" for _ in columns) + "\n")
    assert stats.find_system_column(t, "base", "tp") == found


def test_find_system_column_none_or_several(tmp_path):
    t = table_of(tmp_path, "base_tp,tp_base,x\n1,1,1\n")
    assert "several columns" in error(stats.find_system_column, t, "base", "tp")
    assert "no column for statistic 'fp'" in error(stats.find_system_column, t, "base", "fp")


# ------------------------------------------------------------------ stratum weights


@pytest.mark.parametrize("value, words", [
    ("nan", "'nan' is NaN; stratum weights must be finite numbers"),
    ("-inf", "'-inf' is infinite; stratum weights must be finite numbers"),
])
def test_stratum_weight_errors_name_the_weight_and_the_value(tmp_path, value, words):
    msg = error(weights.parse_stratum_weights, f"news=1,web={value}")
    assert msg == f"--stratum-weights: weight of stratum 'web': {words}"
    path = tmp_path / "w.csv"
    path.write_text(f"stratum,weight\nweb,{value}\n", encoding="utf-8")
    msg = error(weights.parse_stratum_weights, str(path))
    assert msg == f"{path}, line 2: weight of stratum 'web': {words}"
    assert "scores" not in msg


@pytest.mark.parametrize("header", ["stratum,weight\n", ""])
def test_stratum_weights_file(tmp_path, header):
    path = tmp_path / "w.csv"
    path.write_text(header + "web,3\nnews,1\n", encoding="utf-8")
    assert weights.parse_stratum_weights(str(path)) == {"web": 3.0, "news": 1.0}


def test_stratum_weights_file_errors(tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("stratum,weight\nweb,3\nnews,0\n", encoding="utf-8")
    msg = error(weights.parse_stratum_weights, str(path))
    assert str(path) in msg and "line 3" in msg and "positive" in msg
    path.write_text("stratum,weight,x\nweb,3,1\n", encoding="utf-8")
    assert "exactly two columns" in error(weights.parse_stratum_weights, str(path))
    assert "no such file" in error(weights.parse_stratum_weights, str(tmp_path / "none.csv"))


def test_stratum_weights_as_json(tmp_path):
    want = {"web": 3.0, "news": 1.0}
    assert weights.parse_stratum_weights(' {"web": 3, "news": "1"} ') == want
    path = tmp_path / "w.json"
    path.write_text('\ufeff{\n  "web": 3,\n  "news": 1\n}\n', encoding="utf-8")
    assert weights.parse_stratum_weights(str(path)) == want
    path.write_text('{"web": 3}\n{"news": 1}\n')  # JSON Lines: a table, not an object
    assert error(weights.parse_stratum_weights, str(path)).startswith(f"{path}, line 2")
    msg = error(weights.parse_stratum_weights, '{"web": 0}')
    assert msg == "--stratum-weights: weight of stratum 'web' must be positive, got 0"
    assert "not a number" in error(weights.parse_stratum_weights, '{"web": [1, 2]}')
    assert "not a valid JSON object" in error(weights.parse_stratum_weights, '{"web": 1,}')


def test_stratum_weights_file_with_a_pandas_index(tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("Unnamed: 0,stratum,weight\n0,web,3\n1,news,1\n", encoding="utf-8")
    msg = error(weights.parse_stratum_weights, str(path))
    assert "exactly two columns" in msg and "'Unnamed: 0' holds the row numbers" in msg
    assert "index=False" in msg


def test_numeric_column_is_float64(tmp_path):
    t = table_of(tmp_path, "s\n1\n2\n")
    values = pbio.numeric_column(t, "s")
    assert values.dtype == np.float64



# ------------------------------------------- hostile and odd inputs (issue 22, in memory)

DEEP = "[" * 30_000 + "]" * 30_000


def test_json_nested_too_deep_is_an_input_error(tmp_path):
    """A value nested 30,000 deep (in a column no one reads) was a RecursionError in
    Python's json (an internal error), and crashed pyarrow's reader."""
    rows = [json.dumps({"id": f"q{i}", "score": 0.5}) for i in range(8)]
    rows[5] = rows[5][:-1] + f', "x": {DEEP}}}'
    path = tmp_path / "deep.jsonl"
    path.write_text("\n".join(rows) + "\n")
    msg = error(pbio.read_table, str(path))
    assert msg.startswith(f"{path}, line 6: JSON nested 30,001 levels deep"), msg
    array = tmp_path / "deep.json"
    array.write_text("[\n" + ",\n".join(rows) + "\n]\n")
    msg = error(pbio.read_table, str(array))
    assert msg.startswith(f"{array}, line 7: JSON nested") and "at most 512" in msg


def test_json_nesting_up_to_the_bound_is_read(tmp_path):
    """512 levels (the bound) are read; 513 are refused, whichever reader runs."""
    def line(depth):
        return '{"id": "q1", "score": 1, "x": ' + "[" * (depth - 1) + "]" * (depth - 1) + "}"
    path = tmp_path / "s.jsonl"
    path.write_text(line(512) + '\n{"id": "q2", "score": 0}\n')
    assert pbio.read_table(str(path)).n_rows == 2
    path.write_text(line(513) + '\n{"id": "q2", "score": 0}\n')
    assert "513 levels deep" in error(pbio.read_table, str(path))


def test_a_json_integer_of_thousands_of_digits(tmp_path):
    """Python refuses to parse an integer of more than 4,300 digits: a ValueError for the
    whole line that named no file (and spoke of sys.set_int_max_str_digits), whereas
    --stream, reading the used columns alone, read the file.  It is read, and only its
    column refuses it."""
    path = tmp_path / "s.jsonl"
    path.write_text('{"score": 0.5, "x": 1}\n{"score": 1, "x": ' + "9" * 5000 + "}\n")
    table = pbio.read_table(str(path))
    assert pbio.numeric_column(table, "score").tolist() == [0.5, 1.0]
    msg = error(pbio.numeric_column, table, "x")
    assert msg.startswith(f"{path}, line 2, column 'x': an integer of 16,610 bits is too "
                          "large for a number")


def test_a_gzip_that_inflates_too_far_is_refused_early(tmp_path, monkeypatch):
    """A small .csv.gz that inflates to gigabytes was inflated whole in memory; now it is
    inflated piece by piece and refused once past the bound, with both sizes."""
    import tracemalloc  # noqa: PLC0415

    from pairboot.io import guards  # noqa: PLC0415

    path = tmp_path / "bomb.csv.gz"
    with gzip.open(path, "wb") as f:
        f.write(b"id,score\n")
        for _ in range(50):
            f.write(b"q,0\n" * (1 << 18))  # 50 MiB of text in all
    assert path.stat().st_size < 1 << 20
    monkeypatch.setattr(guards, "inflated_limit", lambda: 4 << 20)
    tracemalloc.start()
    try:
        msg = error(pbio.read_table, str(path))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert msg.startswith(f"{path}: inflates to more than 4.0 MiB (from ") and "`stream`" in msg
    assert peak < 30 << 20, peak  # (never the 50 MiB)


@pytest.mark.parametrize("kind", ["csv", "jsonl", "parquet"])
def test_integers_beyond_2_53_are_refused(tmp_path, kind):
    """9007199254740993 read as 9007199254740992 silently, and near 2**63 a difference of
    -1 per item read as none: an error naming the line, the column and what to do."""
    big = 2**62
    rows = [(f"q{i}", big + i) for i in range(3)]
    path = tmp_path / f"s.{kind}"
    if kind == "csv":
        path.write_text("id,score\nq0,0.5\n" + "".join(f"{i},{v}\n" for i, v in rows[1:]))
        where = "line 3"
    elif kind == "jsonl":
        path.write_text('{"id": "q0", "score": 1}\n' + "".join(
            json.dumps({"id": i, "score": v}) + "\n" for i, v in rows[1:]))
        where = "line 2"
    else:
        pa = pytest.importorskip("pyarrow")
        pq = pytest.importorskip("pyarrow.parquet")
        pq.write_table(pa.table({"id": [r[0] for r in rows],
                                 "score": pa.array([1] + [v for _, v in rows[1:]], pa.int64())}),
                       str(path))
        where = "row 2"
    msg = error(pbio.numeric_column, pbio.read_table(str(path)), "score")
    assert f"{where}, column 'score': {big + 1} is an integer beyond 2**53" in msg, msg
    assert "subtract an offset or rescale" in msg and "1 more bad value" in msg


def test_integers_up_to_2_53_and_large_floats_are_read(tmp_path):
    t = table_of(tmp_path, "s\n9007199254740992\n-9007199254740992\n1e300\n4.5e18\n")
    assert pbio.numeric_column(t, "s").tolist() == [2.0**53, -(2.0**53), 1e300, 4.5e18]
    msg = error(pbio.numeric_column, table_of(tmp_path, "s\n1\n 9007199254740993 \n"), "s")
    assert "line 3, column 's'" in msg and "it reads 9007199254740992" in msg


def test_a_parquet_schema_naming_a_column_twice(tmp_path):
    """Was "not a readable Parquet file (Multiple matches for FieldRef...)"."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "s.parquet"
    pq.write_table(pa.Table.from_arrays([pa.array(["q1"]), pa.array([1]), pa.array([2])],
                                        names=["id", "a", "a"]), str(path))
    assert error(pbio.read_table, str(path)) == (
        f"{path}: the schema names column 'a' twice (columns 2 and 3)")


def test_a_long_id_is_shown_cut(tmp_path):
    """A 100 KB id made a 100 KB error line."""
    long = "x" * 100_000
    t = table_of(tmp_path, f"id,s\n{long},1\nq2,1\n{long},0\n")
    msg = error(pbio.id_column, t, "id")
    assert len(msg) < 400 and "…' (100,000 characters)" in msg and "line 2 and line 4" in msg

"""pairboot.readers: every format reads the same columns, and bad files are named errors."""

from __future__ import annotations

import gzip
import io
import json
import math
import os

import numpy as np
import pytest

from pairboot import readers
from pairboot.errors import InputError

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
    """Every test runs twice: with the pure-Python readers, and with pyarrow's fast path
    taken for every file it can take (not only large ones), so both give the same
    tables and the same messages."""
    if request.param == "arrow":
        pytest.importorskip("pyarrow")
        monkeypatch.setattr(readers, "_ARROW_MIN_BYTES", 0)
    else:
        monkeypatch.setattr(readers, "_ARROW_MIN_BYTES", math.inf)
    return request.param


def error(call, *args, **kwargs) -> str:
    with pytest.raises(InputError) as info:
        call(*args, **kwargs)
    assert isinstance(info.value, ValueError)
    return str(info.value)


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
    table = readers.read_table(str(path))
    assert table.n_rows == 3
    assert list(table.columns) == ["id", "score", "doc"]
    assert readers.numeric_column(table, "score").tolist() == [0.5, 0.25, 1.0]
    assert readers.id_column(table, "id") == ["q1", "q2", "q3"]
    assert readers.label_column(table, "doc") == ["d1", "d1", "d2"]


def test_line_numbers_count_the_header_and_blank_lines(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("id,score\n\nq1,0.5\n\nq2,x\n", encoding="utf-8")
    table = readers.read_table(str(path))
    assert list(table.lines) == [3, 5]
    msg = error(readers.numeric_column, table, "score")
    assert msg.startswith(f"{path}, line 5, column 'score': 'x' is not a number")


def test_quoted_fields_with_newlines_keep_their_start_line(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text('id,note,score\nq1,"two\nlines",0.5\nq2,plain,bad\n', encoding="utf-8")
    table = readers.read_table(str(path))
    assert table.n_rows == 2
    assert list(table.lines) == [2, 4]
    assert "line 4" in error(readers.numeric_column, table, "score")


def test_jsonl_line_numbers_and_missing_keys(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text('{"id": 1, "score": 0.5}\n\n{"id": 2}\n', encoding="utf-8")
    table = readers.read_table(str(path))
    assert list(table.lines) == [1, 3]
    assert readers.id_column(table, "id") == ["1", "2"]
    msg = error(readers.numeric_column, table, "score")
    assert "line 3" in msg and "'score'" in msg and "missing" in msg


def test_parquet_reports_rows(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "s.parquet"
    pq.write_table(pa.table({"id": ["a", "b"], "score": [0.5, float("nan")]}), str(path))
    msg = error(readers.numeric_column, readers.read_table(str(path)), "score")
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
        readers.read_table(path)


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
    table = readers.read_table("-")
    assert table.path == "<stdin>"
    assert table.format == fmt
    assert readers.numeric_column(table, "score").tolist() == [0.5]


def test_stdin_parquet(monkeypatch, tmp_path):
    data = open(write_parquet(tmp_path / "s.parquet"), "rb").read()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert readers.read_table("-").format == "parquet"


def test_unknown_extension_is_sniffed(tmp_path):
    path = tmp_path / "scores.txt"
    path.write_text("id\tscore\nq1\t0.5\n", encoding="utf-8")
    assert readers.read_table(str(path)).format == "tsv"


# ---------------------------------------------------------------------- bad files


def test_missing_file(tmp_path):
    path = str(tmp_path / "nope.csv")
    assert error(readers.read_table, path) == f"{path}: no such file"


def test_directory(tmp_path):
    assert "is a directory" in error(readers.read_table, str(tmp_path))


@pytest.mark.parametrize("content", [b"", b"\n\n  \n"])
def test_empty_file(tmp_path, content):
    path = tmp_path / "e.csv"
    path.write_bytes(content)
    assert error(readers.read_table, str(path)) == f"{path}: the file is empty"


def test_header_only(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text("id,score\n", encoding="utf-8")
    assert "no data rows" in error(readers.read_table, str(path))


def test_binary_file(tmp_path):
    path = tmp_path / "b.csv"
    path.write_bytes(b"id,score\nq1,\x00\x01\x02\n")
    msg = error(readers.read_table, str(path))
    assert str(path) in msg and "binary" in msg


def test_parquet_named_csv_is_binary(tmp_path):
    src = write_parquet(tmp_path / "s.parquet")
    path = tmp_path / "s.csv"
    path.write_bytes(open(src, "rb").read())
    assert "binary" in error(readers.read_table, str(path))


def test_not_utf8(tmp_path):
    path = tmp_path / "l.csv"
    path.write_bytes("id,score\nq\xe9,0.5\n".encode("latin-1"))
    msg = error(readers.read_table, str(path))
    assert "UTF-8" in msg and "line 2" in msg


def test_corrupt_parquet(tmp_path):
    pytest.importorskip("pyarrow")
    path = tmp_path / "c.parquet"
    path.write_bytes(b"PAR1 this is not parquet")
    assert "not a readable Parquet file" in error(readers.read_table, str(path))


def test_ragged_row(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("id,score\nq1,0.5\nq2,0.5,extra\n", encoding="utf-8")
    msg = error(readers.read_table, str(path))
    assert "line 3" in msg and "3 field(s)" in msg


def test_duplicate_header(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("id,score,score\nq1,1,2\n", encoding="utf-8")
    assert "twice" in error(readers.read_table, str(path))


def test_bad_json_line(tmp_path):
    path = tmp_path / "j.jsonl"
    path.write_text('{"id": 1, "score": 1}\n{"id": 2, "score": \n', encoding="utf-8")
    assert "line 2: not valid JSON" in error(readers.read_table, str(path))


def test_json_line_that_is_not_an_object(tmp_path):
    path = tmp_path / "j.jsonl"
    path.write_text('{"id": 1, "score": 1}\n[1, 2]\n', encoding="utf-8")
    assert "line 2: expected a JSON object" in error(readers.read_table, str(path))


def test_input_file_is_not_modified(tmp_path):
    path = write_csv(tmp_path / "s.csv")
    before = open(path, "rb").read(), os.stat(path).st_mtime_ns
    readers.numeric_column(readers.read_table(path), "score")
    assert (open(path, "rb").read(), os.stat(path).st_mtime_ns) == before


# ---------------------------------------------------------------------- values


def table_of(tmp_path, text, name="t.csv"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return readers.read_table(str(path))


def test_missing_column_lists_the_available_ones(tmp_path):
    t = table_of(tmp_path, "id,score\nq1,1\n")
    msg = error(readers.numeric_column, t, "ndcg")
    assert msg == f"{t.path}: no column 'ndcg'; available columns: 'id', 'score'"


def test_missing_column_lists_at_most_twenty(tmp_path):
    t = table_of(tmp_path, ",".join(f"c{i}" for i in range(30)) + "\n" + "1," * 29 + "1\n")
    msg = error(readers.numeric_column, t, "score")
    assert "'c19', ... (10 more)" in msg and "'c20'" not in msg


def test_missing_column_suggests_a_near_miss(tmp_path):
    t = table_of(tmp_path, "id,Score\nq1,1\n")
    assert "(did you mean 'Score'?)" in error(readers.numeric_column, t, "score")


def test_missing_column_hints_at_the_delimiter(tmp_path):
    t = table_of(tmp_path, "id;score\nq1;1\n")
    assert "delimited by ';'" in error(readers.numeric_column, t, "score")


def test_windows_line_endings_and_boolean_text(tmp_path):
    path = tmp_path / "w.csv"
    path.write_bytes(b"\xef\xbb\xbfid,correct\r\nq1,True\r\nq2,false\r\n")
    t = readers.read_table(str(path))
    assert list(t.columns) == ["id", "correct"] and list(t.lines) == [2, 3]
    assert readers.numeric_column(t, "correct").tolist() == [1.0, 0.0]


def test_json_array(tmp_path):
    t = table_of(tmp_path, '[{"id": "a", "s": 0.5},\n {"id": "b", "s": "x"}]', "t.json")
    assert t.format == "json" and t.n_rows == 2
    assert "record 2, column 's'" in error(readers.numeric_column, t, "s")
    lines = table_of(tmp_path, '{"id": "a", "s": 0.5}\n', "l.json")
    assert lines.format == "jsonl"


def test_utf16(tmp_path):
    path = tmp_path / "u.csv"
    path.write_bytes("id,score\nq1,1\n".encode("utf-16"))
    assert "UTF-16" in error(readers.read_table, str(path))


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
    msg = error(readers.numeric_column, t, "score")
    assert msg.startswith(f"{t.path}, line 3, column 'score': ")
    assert words in msg


def test_bad_numbers_are_counted(tmp_path):
    t = table_of(tmp_path, "id,score\nq1,x\nq2,y\nq3,z\n")
    assert "(2 more bad value(s) in this column)" in error(readers.numeric_column, t, "score")


def test_numbers_accept_whitespace_exponents_and_json_booleans(tmp_path):
    t = table_of(tmp_path, "id,score\nq1, 1e-3 \nq2,-2\n")
    assert readers.numeric_column(t, "score").tolist() == [0.001, -2.0]
    j = table_of(tmp_path, '{"c": true}\n{"c": false}\n{"c": "0.5"}\n', "t.jsonl")
    assert readers.numeric_column(j, "c").tolist() == [1.0, 0.0, 0.5]


def test_json_nan_literal_is_rejected(tmp_path):
    j = table_of(tmp_path, '{"s": 1}\n{"s": NaN}\n', "t.jsonl")
    assert "line 2" in error(readers.numeric_column, j, "s")


def test_duplicate_ids_name_the_id_and_both_lines(tmp_path):
    t = table_of(tmp_path, "id,score\nq1,1\nq2,1\nq1,0\n")
    msg = error(readers.id_column, t, "id")
    assert "duplicate id 'q1'" in msg and "line 2 and line 4" in msg


def test_missing_id(tmp_path):
    t = table_of(tmp_path, "id,score\nq1,1\n,1\n")
    assert "line 3" in error(readers.id_column, t, "id")


def test_json_numeric_ids_match_csv_ids(tmp_path):
    j = table_of(tmp_path, '{"id": 1}\n{"id": 2.0}\n', "t.jsonl")
    assert readers.id_column(j, "id") == ["1", "2"]


def test_join_on_ids_reorders_b():
    order = readers.join_on_ids(["a", "b", "c"], ["c", "a", "b"], "A.csv", "B.csv")
    assert order.tolist() == [1, 2, 0]


def test_join_reports_ids_on_each_side():
    ids_a = [f"q{i}" for i in range(10)]
    ids_b = [f"q{i}" for i in range(3, 10)] + ["x1", "x2"]
    msg = error(readers.join_on_ids, ids_a, ids_b, "A.csv", "B.csv")
    assert "3 only in A.csv ('q0', 'q1', 'q2')" in msg
    assert "2 only in B.csv ('x1', 'x2')" in msg


def test_join_shows_at_most_five():
    msg = error(readers.join_on_ids, [str(i) for i in range(20)], ["0"], "A", "B")
    assert "19 only in A" in msg and "'1', '2', '3', '4', '5', ..." in msg
    assert "'6'" not in msg


def test_arrow_labels_merge_into_codes_like_python():
    """Labels of large files (Arrow arrays) merge in bulk into codes and categories; a
    conflict or a missing label gets the Python loop's message."""
    pa = pytest.importorskip("pyarrow")

    def arrow(values, chunks=1):
        cut = len(values) // chunks
        parts = [values[i * cut: None if i == chunks - 1 else (i + 1) * cut]
                 for i in range(chunks)]
        return readers._ArrowLabels(pa.chunked_array([pa.array(p, pa.string()) for p in parts]))

    a = ["g2", None, "g1", "g2", None, "g3"]
    b = [None, "g1", "g1", "g2", "g3", None]
    ids = ["q1", "q2", "q3", "q4", "q5", "q6"]
    expected = readers.merge_labels([("A", a), ("B", b)], ids, column="c", what="group")
    merged = readers.merge_labels([("A", arrow(a)), ("B", arrow(b, 2))], ids, column="c",
                                  what="group")
    assert isinstance(merged, readers._CodedLabels) and merged == expected
    assert [merged.categories[c] for c in merged.codes] == expected == merged[:]
    for sources in ([("A", a), ("B", ["g1"] * 6)], [("A", a)]):
        msg = error(readers.merge_labels, sources, ids, column="c", what="group")
        fast = [(f, arrow(v)) for f, v in sources]
        assert error(readers.merge_labels, fast, ids, column="c", what="group") == msg


def test_distinct_and_repeated_labels_in_bulk():
    """all_distinct / has_repeats of Arrow labels are Python's, wherever the repeat is."""
    pa = pytest.importorskip("pyarrow")
    distinct = [f"id{i}" for i in range(6_000)]
    cases = [distinct, distinct[:5_000] + ["id7"] + distinct[5_001:],  # a late repeat
             distinct[:3] + [None] * 3 + distinct[3:], [None, "a", None], ["a"], [None],
             ["b", "a", "b"]]
    for values in cases:
        present = [v for v in values if v is not None]
        want = (None not in values and len(set(values)) == len(values),
                len(set(present)) < len(present))
        arrow = readers._ArrowLabels(pa.array(values, pa.string()))
        assert (readers.all_distinct(arrow), readers.has_repeats(arrow)) == want
        assert (readers.all_distinct(values), readers.has_repeats(values)) == want


@pytest.mark.parametrize("chunks", [1, 3])
def test_strip_is_str_strip(chunks):
    """The Arrow strip skips its copy only when no value can start or end with a space."""
    pa = pytest.importorskip("pyarrow")
    cases = [
        ["a", "bc", "d e"],  # nothing to strip: the column itself
        ["a", " b", "c"], ["a", "b\t", "c"], ["\u3000x", "y"], ["x\x85", "y"],
        ["\u00e9t\u00e9", "caf\u00e9"], ["", "a", None, "  "], ["x", "\u2003"],
        ["\u65e5\u672c", "\u6771\u4eac"],  # CJK: no byte a space starts or ends with
    ]
    for values in cases:
        column = pa.chunked_array([pa.array(values[i::chunks], pa.string())
                                   for i in range(chunks)])
        sliced = pa.array(["  pad  ", *values], pa.string()).slice(1)  # an offset
        for col in (column, sliced):
            out = readers._strip(col)
            want = [v.strip() if v is not None else None for v in col.to_pylist()]
            assert out.to_pylist() == want
            if values in (["a", "bc", "d e"], ["\u65e5\u672c", "\u6771\u4eac"]):
                assert out is col  # nothing can start or end with a space: no copy


def test_merge_labels_conflict_names_the_id():
    msg = error(
        readers.merge_labels,
        [("A.csv", ["g1", "g2"]), ("B.csv", ["g1", "g3"])],
        ["q1", "q2"],
        column="doc",
        what="group",
    )
    assert "id 'q2'" in msg and "'g2' in A.csv" in msg and "'g3' in B.csv" in msg


def test_merge_labels_fills_from_either_file_and_reports_missing():
    merged = readers.merge_labels(
        [("A", ["g1", None]), ("B", [None, "g2"])], ["q1", "q2"], column="c", what="group"
    )
    assert merged == ["g1", "g2"]
    msg = error(
        readers.merge_labels, [("A", ["g1", None, None])], ["q1", "q2", "q3"],
        column="doc", what="group",
    )
    assert "missing" in msg and "2 of 3" in msg and "'q2', 'q3'" in msg


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
    assert readers.find_system_column(t, "base", "tp") == found


def test_find_system_column_none_or_several(tmp_path):
    t = table_of(tmp_path, "base_tp,tp_base,x\n1,1,1\n")
    assert "several columns" in error(readers.find_system_column, t, "base", "tp")
    assert "no column for statistic 'fp'" in error(readers.find_system_column, t, "base", "fp")


# ------------------------------------------------------------------ stratum weights


def test_stratum_weights_inline():
    assert readers.parse_stratum_weights("web=0.5, news = 2") == {"web": 0.5, "news": 2.0}


@pytest.mark.parametrize(
    "spec, words",
    [
        ("web=0", "must be positive"),
        ("web=-1", "must be positive"),
        ("web=x", "not a number"),
        ("web=nan", "NaN"),
        ("web", "cannot read"),
        ("web=1,web=2", "more than one weight"),
        (",", "no weights"),
    ],
)
def test_stratum_weights_inline_errors(spec, words):
    assert words in error(readers.parse_stratum_weights, spec)


@pytest.mark.parametrize("value, words", [
    ("nan", "'nan' is NaN; stratum weights must be finite numbers"),
    ("-inf", "'-inf' is infinite; stratum weights must be finite numbers"),
])
def test_stratum_weight_errors_name_the_weight_and_the_value(tmp_path, value, words):
    msg = error(readers.parse_stratum_weights, f"news=1,web={value}")
    assert msg == f"--stratum-weights: weight of stratum 'web': {words}"
    path = tmp_path / "w.csv"
    path.write_text(f"stratum,weight\nweb,{value}\n", encoding="utf-8")
    msg = error(readers.parse_stratum_weights, str(path))
    assert msg == f"{path}, line 2: weight of stratum 'web': {words}"
    assert "scores" not in msg


@pytest.mark.parametrize("header", ["stratum,weight\n", ""])
def test_stratum_weights_file(tmp_path, header):
    path = tmp_path / "w.csv"
    path.write_text(header + "web,3\nnews,1\n", encoding="utf-8")
    assert readers.parse_stratum_weights(str(path)) == {"web": 3.0, "news": 1.0}


def test_stratum_weights_file_errors(tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("stratum,weight\nweb,3\nnews,0\n", encoding="utf-8")
    msg = error(readers.parse_stratum_weights, str(path))
    assert str(path) in msg and "line 3" in msg and "positive" in msg
    path.write_text("stratum,weight,x\nweb,3,1\n", encoding="utf-8")
    assert "exactly two columns" in error(readers.parse_stratum_weights, str(path))
    assert "no such file" in error(readers.parse_stratum_weights, str(tmp_path / "none.csv"))


def test_numeric_column_is_float64(tmp_path):
    t = table_of(tmp_path, "s\n1\n2\n")
    values = readers.numeric_column(t, "s")
    assert values.dtype == np.float64


# ------------------------------------------------------- the pyarrow fast path is exact


def summary(path: str, monkeypatch, fast: bool):
    """Everything the readers say about a file: the table, every column's numbers, labels
    and ids, or the messages instead."""
    monkeypatch.setattr(readers, "_ARROW_MIN_BYTES", 0 if fast else math.inf)
    try:
        t = readers.read_table(path)
    except InputError as exc:
        return ("error", str(exc))
    out = {"n_rows": t.n_rows, "format": t.format, "lines": list(t.lines),
           "columns": repr({k: [_plain(v) for v in t.columns[k]] for k in t.columns}),
           "arrow": isinstance(t.columns, readers._ArrowColumns)}
    for name in t.columns:
        for what, call in (("numbers", readers.numeric_column), ("labels", readers.label_column),
                           ("ids", readers.id_column)):
            try:
                value = call(t, name)
                out[what, name] = repr(value.tolist() if what == "numbers" else list(value))
            except InputError as exc:
                out[what, name] = ("error", str(exc))
        labels = readers.label_column(t, name)  # Arrow's bulk checks, or Python's
        out["counts", name] = (readers.all_distinct(labels), readers.has_repeats(labels))
    return out


def _plain(value):
    """1.0 as 1: pyarrow.json reads a column that mixes 1 and 0.5 as floats (the numbers
    and labels made of them are the same)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def same_both_ways(tmp_path, monkeypatch, name: str, data: bytes) -> str:
    """Both readers say the same of the file; return which path the fast setting took:
    "arrow", "python" (pyarrow declined the file) or "error" (both refuse it)."""
    pytest.importorskip("pyarrow")
    path = tmp_path / name
    path.write_bytes(data)
    slow = summary(str(path), monkeypatch, fast=False)
    fast = summary(str(path), monkeypatch, fast=True)
    taken = "error"
    if isinstance(slow, dict):
        assert slow.pop("arrow") is False
        taken = "arrow" if fast.pop("arrow") else "python"
    assert fast == slow
    return taken


# Each case names the path the fast setting takes (arrow, python or error; the sets
# below), so that a change in what pyarrow accepts shows, instead of quietly comparing
# the Python reader with itself.
CSV_CASES = {
    "plain": b"id,score,doc\nq1,0.5,d1\nq2,0.25,d1\nq3,1,d2\n",
    "bom_crlf_blank_lines_no_final_newline":
        b"\xef\xbb\xbfid,score,doc\r\n\r\nq1, 0.5 ,d1\r\n\r\n\r\nq2,1e-3,\r\nq3,TRUE,d2",
    "padded_header_and_leading_blank_lines": b"\n\n id , score ,doc\nq1,1,d\nq2,-0,e\n",
    "unicode_whitespace": "id,score\nq1,\u00a01.5\u3000\nq2,\u20092\x1c\n".encode(),
    "bad_values": b"id,score\nq1,1\nq2,x\nq3,nan\nq4,\n",
    "underscores_and_unicode_digits": "id,score\nq1,1_000\nq2,\u0661\u0662\n".encode(),
    "booleans_and_numbers": b"id,c\nq1,true\nq2,0\nq3,False\nq4, TRUE \n",
    "huge_and_tiny": b"id,s\nq1,1e308\nq2,4.9e-324\nq3,1e-400\nq4,1e400\n",
    "infinities": b"id,s\nq1,1\nq2,-Infinity\n",
    "missing_and_duplicate_ids": b"id,s\nq1,1\n ,2\nq1,3\nq4,4\n",
    "numeric_ids": b"id,s\n1,1\n01,2\n1.0,3\n",
    "whitespace_only_line": b"id,score\nq1,1\n   \nq2,2\n",
    "single_column_with_blank_line": b"s\n1\n  \n2\n",
    "ragged_row": b"id,score\nq1,1\nq2,1,2\n",
    "quoted_fields": b'id,score\n"q1",1\n"q,2",2\n',
    "lone_cr": b"id,score\rq1,1\rq2,2\r",
    "duplicate_header": b"a,a\n1,2\n",
    "empty_header_name": b"a,\n1,2\n",
    "header_only": b"a,b\n\n",
    "not_utf8": b"id,score\nq1,0.5\nq\xe9,0.5\n",  # Arrow reads before any decoding
    "not_utf8_in_the_header": b"id,sc\xffore\nq1,0.5\n",
    "nul_byte": b"id,score\nq1,0\x00\n",
    "double_bom": b"\xef\xbb\xbf\xef\xbb\xbfid,score\nq1,1\nq2,2\n",
}


CSV_PATHS = {
    "arrow": {"plain", "bom_crlf_blank_lines_no_final_newline",
              "padded_header_and_leading_blank_lines", "unicode_whitespace", "bad_values",
              "underscores_and_unicode_digits", "booleans_and_numbers", "huge_and_tiny",
              "infinities", "missing_and_duplicate_ids", "numeric_ids"},
    "python": {"whitespace_only_line", "single_column_with_blank_line", "quoted_fields",
               "lone_cr", "double_bom"},
    "error": {"ragged_row", "duplicate_header", "empty_header_name", "header_only",
              "not_utf8", "not_utf8_in_the_header", "nul_byte"},
}


def test_arrow_tsv_reader_is_exact(tmp_path, monkeypatch):
    data = b"id\tscore\tnote\nq1\t0.5\ta, b\n\nq2\t 2 \t\n"
    assert same_both_ways(tmp_path, monkeypatch, "s.tsv", data) == "arrow"


JSONL_CASES = {
    "plain": b'{"id": "q1", "score": 0.5}\n{"id": "q2", "score": 1}\n',
    "blank_lines_crlf": b'\r\n{"id": "q1", "score": 0.5}\r\n  \r\n{"id": "q2", "score": 2}',
    "ints_floats_nulls_missing": b'{"id": 1, "s": 1}\n{"id": 2.0, "s": null}\n{"id": 3}\n',
    "big_ints": b'{"id": 9007199254740993, "s": 1}\n{"id": 2, "s": 0.5}\n',
    "big_int_among_floats": b'{"id": 9007199254740993, "s": 1}\n{"id": 0.5, "s": 0.5}\n',
    "huge_int": b'{"id": 123456789012345678901234567890, "s": 1}\n',
    "nan_and_infinity": b'{"s": 1}\n{"s": NaN}\n{"s": Infinity}\n',
    "strings_and_booleans": b'{"s": "0.5", "c": true}\n{"s": " 2 ", "c": false}\n',
    "mixed_types": b'{"s": 1}\n{"s": "x"}\n',
    "nested": b'{"s": 1, "meta": {"a": 1}}\n{"s": 2, "meta": {"b": 2}}\n',
    "timestamps": b'{"t": "2020-01-01", "s": 1}\n{"t": "2020-01-02", "s": 2}\n',
    "two_objects_on_one_line": b'{"s": 1}{"s": 2}\n{"s": 3}\n',
    "line_separator_in_a_string": '{"s": 1, "n": "a\u2028b"}\n{"s": 2, "n": "c"}\n'.encode(),
    "duplicate_key": b'{"s": 1, "s": 2}\n',
    "not_an_object": b'{"s": 1}\n[1, 2]\n',
    "bare_number": b'{"s": 1}\n3\n',
    "invalid_json": b'{"s": 1}\n{"s": \n',
    "key_order": b'{"b": 1, "a": 2}\n{"c": 3, "a": 1}\n',
    "empty_objects": b'{}\n{}\n',
    "empty_key": b'{"": 1, "s": 2}\n',
    "double_bom": b'\xef\xbb\xbf\xef\xbb\xbf{"s": 1}\n{"s": 2}\n',
}


JSONL_PATHS = {
    "arrow": {"plain", "blank_lines_crlf", "ints_floats_nulls_missing", "big_ints",
              "strings_and_booleans", "key_order"},
    "python": {"big_int_among_floats", "huge_int", "nan_and_infinity", "mixed_types",
               "nested", "timestamps", "duplicate_key", "empty_key"},
    "error": {"two_objects_on_one_line", "line_separator_in_a_string", "not_an_object",
              "bare_number", "invalid_json", "empty_objects", "double_bom"},
}


@pytest.mark.parametrize(("name", "case"), [("s.csv", c) for c in CSV_CASES]
                         + [("s.jsonl", c) for c in JSONL_CASES])
def test_arrow_reader_is_exact(tmp_path, monkeypatch, name, case):
    cases, paths = (CSV_CASES, CSV_PATHS) if name == "s.csv" else (JSONL_CASES, JSONL_PATHS)
    (expected,) = [path for path, names in paths.items() if case in names]  # listed once
    assert same_both_ways(tmp_path, monkeypatch, name, cases[case]) == expected


def test_arrow_readers_agree_on_random_files(tmp_path, monkeypatch):
    rng = np.random.default_rng(5)
    taken = []
    cells = ["1", "0.5", " 2 ", "-3e-2", "x", "", "nan", "inf", "True", "false", "1_0",
             "q1", "q2", " q1", "\u00a07", "+.5", "1e999"]
    for k in range(60):
        n_cols = int(rng.integers(1, 4))
        rows = [",".join(f"c{j}" for j in range(n_cols))]
        for _ in range(int(rng.integers(1, 8))):
            if rng.random() < 0.1:
                rows.append("" if rng.random() < 0.5 else "  ")
            else:
                rows.append(",".join(rng.choice(cells) for _ in range(n_cols)))
        eol = "\r\n" if k % 3 == 0 else "\n"
        taken.append(same_both_ways(tmp_path, monkeypatch, f"r{k}.csv", eol.join(rows).encode()))
    # most of them went through pyarrow (35 of 60 with this seed): the comparison is real
    assert taken.count("arrow") >= 20


def test_arrow_joins_like_python(monkeypatch):
    pytest.importorskip("pyarrow")
    ids = [f"q{i}" for i in range(20_000)]
    other = ids[::-1]
    fast = readers.join_on_ids(ids, other, "A", "B")
    assert fast.tolist() == list(range(19_999, -1, -1))
    monkeypatch.setattr(readers, "_arrow_join", lambda a, b: None)
    assert readers.join_on_ids(ids, other, "A", "B").tolist() == fast.tolist()
    msg = error(readers.join_on_ids, ids, ids[:-1] + ["x"], "A", "B")
    assert "1 only in A ('q19999')" in msg and "1 only in B ('x')" in msg


def test_arrow_joins_arrow_ids_like_python(tmp_path, monkeypatch):
    """Ids kept as Arrow arrays (a large file) are joined by sorting: any permutation."""
    pytest.importorskip("pyarrow")
    monkeypatch.setattr(readers, "_ARROW_MIN_BYTES", 0)
    rng = np.random.default_rng(3)
    names = [f"item-{i:05d}" for i in range(12_000)]
    shuffled = [names[j] for j in rng.permutation(len(names))]
    tables = []
    for k, ids in enumerate((names, shuffled)):
        path = tmp_path / f"{k}.csv"
        path.write_text("id,s\n" + "".join(f" {v},1\n" for v in ids), encoding="utf-8")
        tables.append(readers.read_table(str(path)))
    ids_a, ids_b = (readers.id_column(t, "id") for t in tables)
    assert isinstance(ids_a, readers._ArrowLabels) and ids_a == names and ids_b == shuffled
    order = readers.join_on_ids(ids_a, ids_b, "A", "B")
    assert [shuffled[j] for j in order] == names
    assert readers.join_on_ids(ids_a, ids_a, "A", "A").tolist() == list(range(len(names)))
    assert readers.take_labels(ids_b, order) == names
    # the same length but other ids: the sorted ids differ, and Python names them
    other = names[:-1] + ["x"]
    assert readers._arrow_join(other, ids_b) is None
    msg = error(readers.join_on_ids, other, ids_b, "A", "B")
    assert msg == ("the ids of A and B differ: 1 only in A ('x'); 1 only in B "
                   f"({names[-1]!r}); every item needs a score from both systems")
    assert readers._arrow_join(ids_a, names[:-1] + [names[0]]) is None  # b repeats an id


def test_same_labels():
    pa = pytest.importorskip("pyarrow")

    def arrow(values):
        return readers._ArrowLabels(pa.array(values, pa.string()))

    for a, b in ((["a", "b"], ["a", "b"]), (["a", "b"], ["b", "a"]), ([], []),
                 (["a", None], ["a", None]), (["a", None], ["a", "b"]), (["a"], ["a", "b"])):
        want = a == b
        for x, y in ((a, b), (arrow(a), arrow(b)), (arrow(a), b), (a, arrow(b))):
            assert readers.same_labels(x, y) is want, (x, y)
            assert (x == y) is want


@pytest.mark.parametrize("data", [
    b"a\nb\n", b"a\nb", b"a\r\nb\r\n", b"\na\n\nb", b"\r\na\r\n\r\nb\r\n\r\n", b"a\n\n",
    b" a\r\n\n b", b"",
])
def test_nonempty_lines(data):
    """The numbers of the non-empty lines, and the first one's span (without a CR)."""
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()
    expected = [i for i, line in enumerate(lines, 1) if line not in (b"", b"\r")]
    numbers, start, end = readers._nonempty_lines(data)
    assert list(numbers) == expected
    if expected:
        assert data[start:end] == lines[expected[0] - 1].removesuffix(b"\r")


def test_python_whitespace_is_what_str_strip_removes():
    every = "".join(chr(c) for c in range(0x110000) if chr(c).isspace())
    assert readers._PY_WHITESPACE == every

"""pairboot.io, each test runs once: the pyarrow fast path checked against the
pure-Python readers (each test picks the path, or builds the Arrow arrays, itself), and
the functions that read no file.

test_readers.py holds the tests that read files; each runs there under both paths.
"""

from __future__ import annotations

import json
import math
import sys

import numpy as np
import pytest
from helpers import error

import pairboot.io as pbio
from pairboot.cli import weights
from pairboot.errors import InputError
from pairboot.io import alignment, arrow, columns

# ---------------------------------------------------------------------- values


def test_join_on_ids_reorders_b():
    order = pbio.join_on_ids(["a", "b", "c"], ["c", "a", "b"], "A.csv", "B.csv")
    assert order.tolist() == [1, 2, 0]


def test_join_reports_ids_on_each_side():
    ids_a = [f"q{i}" for i in range(10)]
    ids_b = [f"q{i}" for i in range(3, 10)] + ["x1", "x2"]
    msg = error(pbio.join_on_ids, ids_a, ids_b, "A.csv", "B.csv")
    assert "3 only in A.csv ('q0', 'q1', 'q2')" in msg
    assert "2 only in B.csv ('x1', 'x2')" in msg


def test_join_shows_at_most_five():
    msg = error(pbio.join_on_ids, [str(i) for i in range(20)], ["0"], "A", "B")
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
        return columns.ArrowLabels(pa.chunked_array([pa.array(p, pa.string()) for p in parts]))

    a = ["g2", None, "g1", "g2", None, "g3"]
    b = [None, "g1", "g1", "g2", "g3", None]
    ids = ["q1", "q2", "q3", "q4", "q5", "q6"]
    expected = pbio.merge_labels([("A", a), ("B", b)], ids, column="c", what="group")
    merged = pbio.merge_labels([("A", arrow(a)), ("B", arrow(b, 2))], ids, column="c",
                               what="group")
    assert isinstance(merged, columns.CodedLabels) and merged == expected
    assert [merged.categories[c] for c in merged.codes] == expected == merged[:]
    for sources in ([("A", a), ("B", ["g1"] * 6)], [("A", a)]):
        msg = error(pbio.merge_labels, sources, ids, column="c", what="group")
        fast = [(f, arrow(v)) for f, v in sources]
        assert error(pbio.merge_labels, fast, ids, column="c", what="group") == msg


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
        arrow = columns.ArrowLabels(pa.array(values, pa.string()))
        assert (pbio.all_distinct(arrow), pbio.has_repeats(arrow)) == want
        assert (pbio.all_distinct(values), pbio.has_repeats(values)) == want


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
            out = arrow.strip(col)
            want = [v.strip() if v is not None else None for v in col.to_pylist()]
            assert out.to_pylist() == want
            if values in (["a", "bc", "d e"], ["\u65e5\u672c", "\u6771\u4eac"]):
                assert out is col  # nothing can start or end with a space: no copy


def test_merge_labels_conflict_names_the_id():
    msg = error(
        pbio.merge_labels,
        [("A.csv", ["g1", "g2"]), ("B.csv", ["g1", "g3"])],
        ["q1", "q2"],
        column="doc",
        what="group",
    )
    assert "id 'q2'" in msg and "'g2' in A.csv" in msg and "'g3' in B.csv" in msg


def test_merge_labels_fills_from_either_file_and_reports_missing():
    merged = pbio.merge_labels(
        [("A", ["g1", None]), ("B", [None, "g2"])], ["q1", "q2"], column="c", what="group"
    )
    assert merged == ["g1", "g2"]
    msg = error(
        pbio.merge_labels, [("A", ["g1", None, None])], ["q1", "q2", "q3"],
        column="doc", what="group",
    )
    assert "missing" in msg and "2 of 3" in msg and "'q2', 'q3'" in msg


# ------------------------------------------------------------------ stratum weights


def test_stratum_weights_inline():
    assert weights.parse_stratum_weights("web=0.5, news = 2") == {"web": 0.5, "news": 2.0}


@pytest.mark.parametrize(
    "spec, words",
    [
        ("web=0", "must be positive"),
        ("web=-1", "must be positive"),
        ("web=x", "not a number"),
        ("web=nan", "NaN"),
        ("web", "no file 'web', and not 'name=weight"),
        ("w.txt", "no file 'w.txt'"),
        ("-", "standard input is not read"),
        ("web=1,news", "cannot read 'news'"),
        ("web=1,web=2", "more than one weight"),
        (",", "no weights"),
    ],
)
def test_stratum_weights_inline_errors(spec, words):
    assert words in error(weights.parse_stratum_weights, spec)


# ------------------------------------------------------- the pyarrow fast path is exact


def summary(path: str, monkeypatch, fast: bool):
    """Everything the readers say about a file: the table, every column's numbers, labels
    and ids, or the messages instead."""
    monkeypatch.setattr(arrow, "_ARROW_MIN_BYTES", 0 if fast else math.inf)
    try:
        t = pbio.read_table(path)
    except InputError as exc:
        return ("error", str(exc))
    out = {"n_rows": t.n_rows, "format": t.format, "lines": list(t.lines),
           "columns": repr({k: [_plain(v) for v in t.columns[k]] for k in t.columns}),
           "arrow": isinstance(t.columns, arrow.ArrowColumns)}
    for name in t.columns:
        for what, call in (("numbers", pbio.numeric_column), ("labels", pbio.label_column),
                           ("ids", pbio.id_column)):
            try:
                value = call(t, name)
                out[what, name] = repr(value.tolist() if what == "numbers" else list(value))
            except InputError as exc:
                out[what, name] = ("error", str(exc))
        labels = pbio.label_column(t, name)  # Arrow's bulk checks, or Python's
        out["counts", name] = (pbio.all_distinct(labels), pbio.has_repeats(labels))
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
    # quotes around whole fields, as R's write.csv() and pyarrow's write_csv() put them
    "quoted_header_and_ids": b'"id","score"\n"q1",0.5\n"q2",1\n',
    "quoted_empty_crlf_last_line": b'"id","score","doc"\r\n"q1","0.5",""\r\n"q2",1,"d"',
    "doubled_quote_in_quotes": b'id,score\n"say ""hi""",1\nq2,2\n',
    "quote_inside_a_field": b'id,score\nq"1,1\nq2,2\n',
    "space_before_a_quote": b'id,score\n "q1",1\nq2,2\n',
    "line_break_in_quotes": b'id,score\n"q\n1",1\nq2,2\n',
    "text_after_a_closing_quote": b'id,score\n"q1"x,1\nq2,2\n',
    "unclosed_quote": b'id,score\n"q1,1\nq2,2\n',
    "r_row_names": b'"","id","score"\n"1","q1",0.5\n"2","q2",1\n',
    "repeated_header": b'id,score\nq1,1\nid,score\nq2,2\n',
    "repeated_quoted_padded_header": b'" id ",score\nq1,1\n" id ",score\nq2,2\n',
    "header_name_as_a_value": b'id,score\nid,1\nq2,2\n',
    "lone_cr": b"id,score\rq1,1\rq2,2\r",
    "duplicate_header": b"a,a\n1,2\n",
    "empty_header_name": b"a,\n1,2\n",
    "header_only": b"a,b\n\n",
    "not_utf8": b"id,score\nq1,0.5\nq\xe9,0.5\n",  # Arrow reads before any decoding
    "not_utf8_in_the_header": b"id,sc\xffore\nq1,0.5\n",
    "nul_byte": b"id,score\nq1,0\x00\n",
    "double_bom": b"\xef\xbb\xbf\xef\xbb\xbfid,score\nq1,1\nq2,2\n",
    "integers_beyond_2_53": b"id,score\nq1,9007199254740993\nq2,-9007199254740994\nq3,1\n",
    "integers_at_2_53": b"id,score\nq1,9007199254740992\nq2,1e20\nq3,1\n",
}


CSV_PATHS = {
    "arrow": {"plain", "bom_crlf_blank_lines_no_final_newline",
              "padded_header_and_leading_blank_lines", "unicode_whitespace", "bad_values",
              "underscores_and_unicode_digits", "booleans_and_numbers", "huge_and_tiny",
              "infinities", "missing_and_duplicate_ids", "numeric_ids", "quoted_fields",
              "quoted_header_and_ids", "quoted_empty_crlf_last_line",
              "integers_beyond_2_53", "integers_at_2_53"},
    "python": {"whitespace_only_line", "single_column_with_blank_line", "lone_cr",
               "double_bom", "doubled_quote_in_quotes", "quote_inside_a_field",
               "space_before_a_quote", "line_break_in_quotes", "header_name_as_a_value"},
    "error": {"ragged_row", "duplicate_header", "empty_header_name", "header_only",
              "not_utf8", "not_utf8_in_the_header", "nul_byte", "text_after_a_closing_quote",
              "unclosed_quote", "r_row_names", "repeated_header",
              "repeated_quoted_padded_header"},
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
    "nested_deep": b'{"s": 1, "x": ' + b"[" * 600 + b"]" * 600 + b'}\n{"s": 2}\n',
    "nested_to_the_bound": b'{"s": 1, "x": ' + b"[" * 511 + b"]" * 511 + b'}\n{"s": 2}\n',
}


JSONL_PATHS = {
    "arrow": {"plain", "blank_lines_crlf", "ints_floats_nulls_missing", "big_ints",
              "strings_and_booleans", "key_order"},
    "python": {"big_int_among_floats", "huge_int", "nan_and_infinity", "mixed_types",
               "nested", "timestamps", "empty_key", "line_separator_in_a_string",
               "nested_to_the_bound"},
    "error": {"two_objects_on_one_line", "not_an_object", "bare_number", "invalid_json",
              "empty_objects", "double_bom", "duplicate_key", "nested_deep"},
}


@pytest.mark.parametrize(("name", "case"), [("s.csv", c) for c in CSV_CASES]
                         + [("s.jsonl", c) for c in JSONL_CASES])
def test_arrow_reader_is_exact(tmp_path, monkeypatch, name, case):
    cases, paths = (CSV_CASES, CSV_PATHS) if name == "s.csv" else (JSONL_CASES, JSONL_PATHS)
    (expected,) = [path for path, names in paths.items() if case in names]  # listed once
    assert same_both_ways(tmp_path, monkeypatch, name, cases[case]) == expected


@pytest.mark.parametrize("name", ["s.csv", "s.jsonl"])
def test_arrow_reads_a_line_longer_than_its_block(tmp_path, monkeypatch, name):
    """A line (or a CSV header) over pyarrow's 1 MiB block ("straddling object", "Empty
    CSV file or block") sent the file to the slow Python reader; it takes a block of
    the longest line instead."""
    note = "x" * (3 << 20)
    if name == "s.csv":
        data = (f"id,score,note\nq1,0.5,{note}\nq2,1,n\n").encode()
    else:
        data = (json.dumps({"id": "q1", "score": 0.5, "note": note}) + "\n"
                + json.dumps({"id": "q2", "score": 1, "note": "n"}) + "\n").encode()
    assert same_both_ways(tmp_path, monkeypatch, name, data) == "arrow"
    if name == "s.csv":  # a header over 1 MiB
        data = f"id,score,{note}\nq1,0.5,n\nq2,1,m\n".encode()
        assert same_both_ways(tmp_path, monkeypatch, name, data) == "arrow"


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


def test_arrow_reads_quoted_files_like_python(tmp_path, monkeypatch):
    """Random files of quoted, half-quoted and oddly quoted cells: pyarrow takes those
    whose quotes enclose whole fields, and reads them as Python's csv module does."""
    rng = np.random.default_rng(11)
    cells = ['"q1"', '"a,b"', '""', '"0.5"', "1", "q2", '"x"y', 'a"b', '"say ""hi"""',
             ' "q3"', '"2" ', '"\tq"', "0.25"]
    taken = []
    for k in range(60):
        n_cols = int(rng.integers(2, 4))
        names = [f'"c{j}"' if rng.random() < 0.7 else f"c{j}" for j in range(n_cols)]
        rows = [",".join(names)]
        for _ in range(int(rng.integers(1, 6))):
            rows.append(",".join(rng.choice(cells, p=_QUOTED_WEIGHTS) for _ in range(n_cols)))
        eol = "\r\n" if k % 3 == 0 else "\n"
        taken.append(same_both_ways(tmp_path, monkeypatch, f"q{k}.csv",
                                    eol.join(rows).encode()))
    assert taken.count("arrow") >= 20 and taken.count("python") >= 5  # both paths seen


_QUOTED_WEIGHTS = np.array([4, 3, 2, 3, 3, 3, 0.3, 0.3, 0.3, 0.3, 0.3, 1, 3])
_QUOTED_WEIGHTS = _QUOTED_WEIGHTS / _QUOTED_WEIGHTS.sum()


def test_files_that_r_and_pyarrow_write_take_the_fast_reader(tmp_path, monkeypatch):
    """A large CSV with a quoted header and quoted text (``"id","score"`` /
    ``"q1",0.5``, as pyarrow's write_csv and R's write.csv(row.names=FALSE) write them)
    is read by pyarrow, not the pure-Python reader that takes three times the memory,
    and reads as that reader would."""
    pa = pytest.importorskip("pyarrow")
    pacsv = pytest.importorskip("pyarrow.csv")
    n = 60_000  # over arrow._ARROW_MIN_BYTES
    rng = np.random.default_rng(3)
    table = pa.table({"id": [f"q{i}" for i in range(n)], "score": rng.random(n).round(6),
                      "doc": [f"d, {i // 7}" for i in range(n)]})
    path = tmp_path / "pyarrow.csv"
    pacsv.write_csv(table, str(path))
    assert path.read_bytes().startswith(b'"id","score","doc"\n"q0",')
    assert path.stat().st_size > arrow._ARROW_MIN_BYTES
    fast = pbio.read_table(str(path))
    assert fast.read_by_pyarrow and fast.n_rows == n
    assert list(fast.columns) == ["id", "score", "doc"]
    monkeypatch.setattr(arrow, "_ARROW_MIN_BYTES", math.inf)
    slow = pbio.read_table(str(path))
    assert not slow.read_by_pyarrow
    assert fast.columns["doc"] == slow.columns["doc"] == table.column("doc").to_pylist()
    np.testing.assert_array_equal(pbio.numeric_column(fast, "score"),
                                  pbio.numeric_column(slow, "score"))
    assert list(fast.lines) == list(slow.lines)


def test_simply_quoted():
    yes = [b'"a","b"\n"1",2\n', b'a,b\n"",""\r\n', b'"a,b",c\n1,2', b"a,b\n1,2\n",
           b'a\t"b c"\n"1"\t2\n']
    no = [b'"a""b",c\n', b'a"b,c\n', b'"a"b,c\n', b' "a",b\n', b'"a\nb",c\n', b'"a,b\n',
          b'"a" ,b\n']
    for data in yes:
        assert arrow.simply_quoted(data, "\t" if b"\t" in data else ","), data
    for data in no:
        assert not arrow.simply_quoted(data, ","), data


def test_arrow_joins_like_python(monkeypatch):
    pytest.importorskip("pyarrow")
    ids = [f"q{i}" for i in range(20_000)]
    other = ids[::-1]
    fast = pbio.join_on_ids(ids, other, "A", "B")
    assert fast.tolist() == list(range(19_999, -1, -1))
    monkeypatch.setattr(alignment, "_arrow_join", lambda a, b: None)
    assert pbio.join_on_ids(ids, other, "A", "B").tolist() == fast.tolist()
    msg = error(pbio.join_on_ids, ids, ids[:-1] + ["x"], "A", "B")
    assert "1 only in A ('q19999')" in msg and "1 only in B ('x')" in msg


def test_arrow_joins_arrow_ids_like_python(tmp_path, monkeypatch):
    """Ids kept as Arrow arrays (a large file) are joined by sorting: any permutation."""
    pytest.importorskip("pyarrow")
    monkeypatch.setattr(arrow, "_ARROW_MIN_BYTES", 0)
    rng = np.random.default_rng(3)
    names = [f"item-{i:05d}" for i in range(12_000)]
    shuffled = [names[j] for j in rng.permutation(len(names))]
    tables = []
    for k, ids in enumerate((names, shuffled)):
        path = tmp_path / f"{k}.csv"
        path.write_text("id,s\n" + "".join(f" {v},1\n" for v in ids), encoding="utf-8")
        tables.append(pbio.read_table(str(path)))
    ids_a, ids_b = (pbio.id_column(t, "id") for t in tables)
    assert isinstance(ids_a, columns.ArrowLabels) and ids_a == names and ids_b == shuffled
    order = pbio.join_on_ids(ids_a, ids_b, "A", "B")
    assert [shuffled[j] for j in order] == names
    assert pbio.join_on_ids(ids_a, ids_a, "A", "A").tolist() == list(range(len(names)))
    assert pbio.take_labels(ids_b, order) == names
    # the same length but other ids: the sorted ids differ, and Python names them
    other = names[:-1] + ["x"]
    assert alignment._arrow_join(other, ids_b) is None
    msg = error(pbio.join_on_ids, other, ids_b, "A", "B")
    assert msg.startswith("the ids of A and B differ: 1 only in A ('x'); 1 only in B "
                          f"({names[-1]!r}); every item needs a score from both systems")
    assert alignment._arrow_join(ids_a, names[:-1] + [names[0]]) is None  # b repeats an id


def test_same_labels():
    pa = pytest.importorskip("pyarrow")

    def arrow(values):
        return columns.ArrowLabels(pa.array(values, pa.string()))

    for a, b in ((["a", "b"], ["a", "b"]), (["a", "b"], ["b", "a"]), ([], []),
                 (["a", None], ["a", None]), (["a", None], ["a", "b"]), (["a"], ["a", "b"])):
        want = a == b
        for x, y in ((a, b), (arrow(a), arrow(b)), (arrow(a), b), (a, arrow(b))):
            assert pbio.same_labels(x, y) is want, (x, y)
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
    numbers, start, end = arrow._nonempty_lines(data)
    assert list(numbers) == expected
    if expected:
        assert data[start:end] == lines[expected[0] - 1].removesuffix(b"\r")


def test_python_whitespace_is_what_str_strip_removes():
    every = "".join(chr(c) for c in range(0x110000) if chr(c).isspace())
    assert arrow._PY_WHITESPACE == every


def test_stratum_weights_from_a_directory(tmp_path):
    assert "is a directory" in error(weights.parse_stratum_weights, str(tmp_path))


def test_parquet_without_pyarrow_names_the_file(tmp_path, monkeypatch):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq  # noqa: PLC0415

    path = tmp_path / "s.parquet"
    pq.write_table(pa.table({"score": [0.5, 0.25]}), str(path))
    for name in ("pyarrow", "pyarrow.parquet"):
        monkeypatch.setitem(sys.modules, name, None)  # import fails, as if not installed
    with pytest.raises(ImportError, match=r"s\.parquet: reading Parquet needs pyarrow"):
        pbio.read_table(str(path))

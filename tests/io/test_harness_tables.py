"""The trec_eval / ir_measures reader and the plain-table reader of pairboot.io.harness.

Fixtures are written here, shaped like the real files (trec_eval's test/out.test.aq,
MMLU-Pro predictions, FastChat SimpleQA grades, AlpacaEval annotations); the tests that
read the real files skip when they are absent.
"""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from helpers import real_data

import pairboot
from pairboot.errors import InputError
from pairboot.io import align, harness, read_table
from pairboot.io.harness import table as table_reader
from pairboot.io.harness import trec

OPTIONS = {"n_resamples": 2000, "seed": 11}


def same_result(x, y):
    assert x.estimate == y.estimate
    assert x.confidence_interval == y.confidence_interval
    assert x.p_value == y.p_value
    np.testing.assert_array_equal(x.bootstrap_distribution, y.bootstrap_distribution)


# --- trec_eval and ir_measures --------------------------------------------------------------


def trec_eval_text(values: dict, runid: str | None = "run_a") -> str:
    """``trec_eval -q`` output: ``{qid: {measure: value}}``, measures padded to 22."""
    lines = []
    for qid, row in values.items():
        for measure, value in row.items():
            lines.append(f"{measure:<22}\t{qid}\t{value}")
    if runid is not None:
        lines.append(f"{'runid':<22}\tall\t{runid}")
    lines.append(f"{'num_q':<22}\tall\t{len(values)}")
    measures = next(iter(values.values()))
    for measure in measures:
        if measure != "relstring":
            mean = np.mean([float(row[measure]) for row in values.values()])
            lines.append(f"{measure:<22}\tall\t{mean:.4f}")
    return "\n".join(lines) + "\n"


def ir_measures_text(values: dict, summary: bool = True) -> str:
    """``ir_measures -q`` output: ``qid<TAB>measure<TAB>value``, then ``all`` rows."""
    lines = [f"{qid}\t{m}\t{v}" for qid, row in values.items() for m, v in row.items()]
    if summary:
        for m in next(iter(values.values())):
            lines.append(f"all\t{m}\t{np.mean([float(r[m]) for r in values.values()]):.4f}")
    return "\n".join(lines) + "\n"


def small_run(shift=0.0):
    return {
        "301": {"map": f"{0.0324 + shift:.4f}", "P_10": "0.2000", "ndcg_cut_10": "0.1518",
                "relstring": "'0000011000'"},
        "302": {"map": f"{0.4175 + shift:.4f}", "P_10": "0.7000", "ndcg_cut_10": "0.7530",
                "relstring": "'1101110110'"},
        "303": {"map": f"{0.0858 + shift:.4f}", "P_10": "0.0000", "ndcg_cut_10": "0.0000",
                "relstring": "'0000000000'"},
    }


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_trec_eval_padded_names_and_all_rows(tmp_path):
    path = write(tmp_path / "run_a.txt", trec_eval_text(small_run()))
    s = harness.read(path, "trec", score="map")
    assert s.format == "trec" and s.score == "map" and s.metric == "mean"
    assert s.ids.tolist() == ["301", "302", "303"]
    assert list(s.systems) == ["run_a"]  # the runid row names the run
    np.testing.assert_allclose(s.systems["run_a"], [0.0324, 0.4175, 0.0858])
    assert any("skipped 5 'all' row(s)" in n for n in s.notes)
    assert any("3 queries" in n and "trec_eval" in n for n in s.notes)


def test_trec_run_without_runid_is_named_by_the_file(tmp_path):
    path = write(tmp_path / "bm25.run.eval", trec_eval_text(small_run(), runid=None))
    assert list(trec.read(path, score="map").systems) == ["bm25.run"]


@pytest.mark.parametrize("asked, found", [
    ("P_10", "P_10"), ("P@10", "P_10"), ("P.10", "P_10"), ("AP", "map"),
    ("nDCG@10", "ndcg_cut_10"), ("MAP", "map"),
])
def test_trec_measure_by_either_tools_name(tmp_path, asked, found):
    path = write(tmp_path / "run.txt", trec_eval_text(small_run()))
    s = trec.read(path, score=asked)
    assert s.score == found
    if asked != found:
        assert any(f"asked as {asked!r}" in n for n in s.notes)


def test_trec_measure_errors(tmp_path):
    path = write(tmp_path / "run.txt", trec_eval_text(small_run()))
    with pytest.raises(InputError, match=r"no measure 'ndcg' in the file; it holds map, "
                                         r"P_10, ndcg_cut_10, relstring") as info:
        trec.read(path, score="ndcg")
    assert info.value.param == "score"
    with pytest.raises(InputError, match=r"holds 3 measures; choose one with `score`"):
        trec.read(path)
    with pytest.raises(InputError, match=r"run.txt: line 4: measure 'relstring', query "
                                         r"'301': .* is not a number"):
        trec.read(path, score="relstring")
    with pytest.raises(InputError, match=r"'num_q' has only its 'all' summary row"):
        trec.read(path, score="num_q")


def test_trec_single_measure_needs_no_score(tmp_path):
    values = {q: {"map": r["map"]} for q, r in small_run().items()}
    s = trec.read(write(tmp_path / "run.txt", trec_eval_text(values)))
    assert s.score == "map"


def test_trec_duplicates_and_malformed_lines_name_the_line(tmp_path):
    text = trec_eval_text(small_run())
    path = write(tmp_path / "two_runs.txt", text + text)
    with pytest.raises(InputError, match=r"two_runs.txt: line 18: a second 'map' value for "
                                         r"query '301' \(the first is on line 1\)"):
        trec.read(path, score="map")
    bad = write(tmp_path / "bad.txt", "map\t301\t0.5\nmap\t302\n")
    with pytest.raises(InputError, match=r"bad.txt: line 2: expected 3 fields"):
        trec.read(bad, score="map")
    summary = write(tmp_path / "summary.txt", "map                   \tall\t0.5\n")
    with pytest.raises(InputError, match=r"no per-query rows, only 'all' summaries.*-q"):
        trec.read(summary, score="map")
    with pytest.raises(InputError, match=r"empty"):
        trec.read(write(tmp_path / "empty.txt", "\n"), score="map")
    nan = write(tmp_path / "nan.txt", "map   \t301\t0.5\nmap   \t302\t-nan\n")
    with pytest.raises(InputError, match=r"nan.txt: line 2: measure 'map', query '302'"):
        trec.read(nan, score="map")


def test_ir_measures_per_query_output(tmp_path):
    values = {q: {"AP": r["map"], "P@10": r["P_10"], "nDCG@10": r["ndcg_cut_10"]}
              for q, r in small_run().items()}
    path = write(tmp_path / "bm25.tsv", ir_measures_text(values))
    s = harness.read(path, "trec", score="P@10")
    assert s.ids.tolist() == ["301", "302", "303"] and list(s.systems) == ["bm25"]
    np.testing.assert_allclose(s.systems["bm25"], [0.2, 0.7, 0.0])
    assert any("ir_measures" in n for n in s.notes)
    assert any("skipped 3 'all' row(s)" in n for n in s.notes)
    assert trec.read(path, score="map").score == "AP"  # trec_eval's name finds ir_measures'
    assert trec.read(path, score="P_10").score == "P@10"
    no_summary = write(tmp_path / "n.tsv", ir_measures_text(values, summary=False))
    assert trec.read(no_summary, score="nDCG@10").ids.tolist() == ["301", "302", "303"]


def test_ir_measures_jsonl_output(tmp_path):
    rows = [{"query_id": q, "measure": "nDCG@10", "value": float(r["ndcg_cut_10"])}
            for q, r in small_run().items()]
    rows.append({"query_id": "all", "measure": "nDCG@10", "value": 0.3})
    path = write(tmp_path / "run.jsonl", "\n".join(json.dumps(r) for r in rows) + "\n")
    assert harness.detect(path) == "trec"
    s = harness.read(path, "trec")
    np.testing.assert_allclose(s.systems["run"], [0.1518, 0.753, 0.0])
    bad = write(tmp_path / "bad.jsonl", '{"query_id": "1", "value": 1}\n')
    with pytest.raises(InputError, match=r"bad.jsonl: line 1: expected an ir_measures"):
        trec.read(bad)


def test_trec_detection(tmp_path):
    values = {q: {"AP": r["map"]} for q, r in small_run().items()}
    assert trec.detect(write(tmp_path / "a.txt", trec_eval_text(small_run())))
    assert trec.detect(write(tmp_path / "b.txt", ir_measures_text(values)))
    assert harness.detect(str(tmp_path / "a.txt")) == "trec"
    assert not trec.detect(write(tmp_path / "c.tsv", "qid\tmeasure\tvalue\n301\tAP\t0.5\n"))
    assert not trec.detect(write(tmp_path / "d.csv", "id,score\nq1,0.5\n"))
    assert not trec.detect(write(tmp_path / "e.txt", "301\t302\t0.5\n"))  # no sign of a tool
    assert not trec.detect(str(tmp_path))
    assert not trec.detect(str(tmp_path / "missing.txt"))


def test_trec_takes_no_table_options(tmp_path):
    path = write(tmp_path / "run.txt", trec_eval_text(small_run()))
    with pytest.raises(InputError, match=r"the trec reader takes no option `stratum`"):
        harness.read(path, "trec", score="map", stratum="x")


def test_trec_logs_and_csv_give_the_same_comparison(tmp_path):
    rng = np.random.default_rng(5)
    qids = [str(400 + i) for i in range(45)]
    a_map, b_map = rng.uniform(0, 0.6, 45), rng.uniform(0.05, 0.7, 45)
    a = write(tmp_path / "run_a.txt", trec_eval_text(
        {q: {"map": f"{v:.4f}", "P_10": "0.1000"} for q, v in zip(qids, a_map)}, "bm25"))
    b_rows = {q: {"nDCG@10": "0.5", "AP": f"{v:.4f}"} for q, v in zip(qids, b_map)}
    b = write(tmp_path / "run_b.tsv", ir_measures_text(dict(reversed(b_rows.items()))))
    joined = harness.join([harness.read(a, "trec", score="map"),
                           harness.read(b, "trec", score="map")])
    assert joined.names == ("bm25", "run_b")
    from_logs = pairboot.compare(joined.values[0], joined.values[1], **OPTIONS)

    scores = tmp_path / "scores.csv"
    with open(scores, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["qid", "a", "b"])
        w.writerows([q, f"{x:.4f}", f"{y:.4f}"] for q, x, y in zip(qids, a_map, b_map))
    aligned = align([read_table(scores)], columns=[["a"], ["b"]], id="qid")
    same_result(from_logs, pairboot.compare(aligned.values[0], aligned.values[1], **OPTIONS))


def test_the_real_files_are_found_beside_the_checkout(monkeypatch, tmp_path):
    """helpers.real_data looks in ../shared/data/real from the project root (wherever
    the checkout lives) and, when a file is not there, skips saying where it looked."""
    import helpers  # noqa: PLC0415

    assert helpers.REAL_DATA == helpers.PROJECT_ROOT.parent / "shared" / "data" / "real"
    assert (helpers.PROJECT_ROOT / "tests" / "helpers.py").is_file()
    monkeypatch.setattr(helpers, "REAL_DATA", tmp_path / "real")
    with pytest.raises(pytest.skip.Exception, match=r"\.\./shared.*no .*real beside"):
        helpers.real_data("trec_eval", "x.aq")
    (tmp_path / "real").mkdir()
    with pytest.raises(pytest.skip.Exception, match=r"x\.aq is not there"):
        helpers.real_data("trec_eval", "x.aq")


def test_real_trec_eval_output():
    path = str(real_data("trec_eval", "trec_eval_test_out.test.aq"))
    assert harness.detect(path) == "trec"
    s = harness.read(path, "trec", score="map")
    assert s.ids.tolist() == ["301", "302", "303"] and list(s.systems) == ["STANDARD"]
    np.testing.assert_allclose(s.systems["STANDARD"], [0.0324, 0.4175, 0.0858])
    np.testing.assert_allclose(harness.read(path, "trec", score="P@10").systems["STANDARD"],
                               [0.2, 0.7, 0.0])


# --- plain tables ---------------------------------------------------------------------------


def write_jsonl(path, rows):
    return write(path, "".join(json.dumps(r) + "\n" for r in rows))


def write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    return str(path)


MMLU = [  # question_id, category, answer, pred (None: extraction failed)
    (70, "business", "I", "I"), (71, "business", "F", "B"), (72, "law", "J", None),
    (73, "law", "A", "A"), (74, "math", "C", "C"), (75, "math", "D", None),
]


def mmlu_rows(rows=MMLU):
    return [{"question_id": q, "category": c, "src": f"ori_{c}", "answer": a,
             "answer_index": "ABCDEFGHIJ".index(a), "pred": p} for q, c, a, p in rows]


def test_score_column_with_id_found_by_its_name(tmp_path):
    path = write_csv(tmp_path / "model_a.csv", ["question_id", "acc", "topic"],
                     [["q2", "1", "x"], ["q1", "0", "y"]])
    s = harness.read(path, "table", score="acc", group="topic")
    assert s.ids.tolist() == ["q2", "q1"] and list(s.systems) == ["model_a"]
    assert s.systems["model_a"].tolist() == [1.0, 0.0] and s.groups.tolist() == ["x", "y"]
    assert any("'question_id' (named like ids)" in n for n in s.notes)
    assert any("2 rows read: 2 items, 1 system(s) (model_a)" in n for n in s.notes)
    default = write_csv(tmp_path / "d.csv", ["id", "score"], [["q1", "0.5"]])
    assert table_reader.read(default).systems["d"].tolist() == [0.5]
    with pytest.raises(InputError, match=r"no column 'score': give `score` .*or `correct` "
                                         r"\(columns: 'question_id', 'acc', 'topic'\)"):
        table_reader.read(path)


def test_correct_compares_two_columns_and_refuses_nulls(tmp_path):
    path = write_jsonl(tmp_path / "llama.jsonl", mmlu_rows())
    with pytest.raises(InputError, match=r"llama.jsonl: line 3: column 'pred': missing "
                                         r"value \(2 in all\); give `null='wrong'`") as info:
        harness.read(path, "table", correct="pred=answer")
    assert info.value.param == "null"
    s = harness.read(path, "table", correct="pred=answer", null="wrong", stratum="category")
    assert s.systems["llama"].tolist() == [1, 0, 0, 1, 1, 0]
    assert s.ids.tolist() == ["70", "71", "72", "73", "74", "75"]
    assert s.strata.tolist() == ["business", "business", "law", "law", "math", "math"]
    assert any("2 missing value(s) in column 'pred' counted as wrong" in n for n in s.notes)
    assert any("equals column 'answer'" in n and "3 of 6" in n for n in s.notes)
    # a number against its text: both read "3"
    rows = [{"id": "a", "gold": 3, "guess": "3"}, {"id": "b", "gold": 4, "guess": "3.0"}]
    s = table_reader.read(write_jsonl(tmp_path / "n.jsonl", rows), correct="guess=gold")
    assert s.systems["n"].tolist() == [1.0, 0.0]


def test_correct_with_a_value_and_the_column_rule(tmp_path):
    rows = [{"question_id": "simple_qa_2", "grade": "C"},
            {"question_id": "simple_qa_1", "grade": "B"},
            {"question_id": "simple_qa_3", "grade": "A"}]
    path = write_jsonl(tmp_path / "gpt-4o_results.jsonl", rows)
    s = harness.read(path, "table", correct="grade=A")
    assert s.systems["gpt-4o_results"].tolist() == [0.0, 0.0, 1.0]
    assert any("equals value 'A'" in n for n in s.notes)
    # a name that is a column is a column
    rows = [{"id": 1, "grade": "A", "A": "B"}, {"id": 2, "grade": "B", "A": "B"}]
    s = table_reader.read(write_jsonl(tmp_path / "t.jsonl", rows), correct="grade=A")
    assert s.systems["t"].tolist() == [0.0, 1.0]
    with pytest.raises(InputError, match=r"no column 'grd'"):
        table_reader.read(path, correct="grd=A")
    with pytest.raises(InputError, match=r"`correct` must read LEFT=RIGHT"):
        table_reader.read(path, correct="grade")
    with pytest.raises(InputError, match=r"`null` must be one of refuse, wrong"):
        table_reader.read(path, correct="grade=A", null="skip")
    with pytest.raises(InputError, match=r"give `score` or `correct`, not both"):
        table_reader.read(path, correct="grade=A", score="grade")
    with pytest.raises(InputError, match=r"give `correct` too"):
        table_reader.read(path, score="grade", null="wrong")


def test_wide_layout(tmp_path):
    path = write_csv(tmp_path / "wide.csv", ["id", "task", "sys_a", "sys_b", "answer"],
                     [["q1", "t1", "0.5", "1", "x"], ["q2", "t2", "0.25", "0", "y"]])
    s = harness.read(path, "table", system=["sys_a", "sys_b"], stratum="task")
    assert list(s.systems) == ["sys_a", "sys_b"]
    assert s.systems["sys_b"].tolist() == [1.0, 0.0] and s.strata.tolist() == ["t1", "t2"]
    assert table_reader.read(path, system="sys_a, sys_b").systems["sys_a"].tolist() == \
        [0.5, 0.25]
    picks = write_csv(tmp_path / "picks.csv", ["id", "pred_a", "pred_b", "answer"],
                      [["q1", "x", "y", "x"], ["q2", "y", "", "y"]])
    s = table_reader.read(picks, system="pred_a,pred_b", correct="answer", null="wrong")
    assert s.systems["pred_a"].tolist() == [1.0, 1.0]
    assert s.systems["pred_b"].tolist() == [0.0, 0.0]
    assert any("system 'pred_b': 1 missing value(s)" in n for n in s.notes)
    with pytest.raises(InputError, match=r"with `system` the systems' columns"):
        table_reader.read(path, system="sys_a", score="sys_b")


def test_long_layout_aligns_each_system_on_the_ids(tmp_path):
    rows = [["q1", "llama", "1", "math"], ["q2", "llama", "0", "law"],
            ["q2", "mistral", "1", "law"], ["q1", "mistral", "1", "math"],
            ["q1", "qwen", "0", "math"], ["q2", "qwen", "0", "law"]]
    path = write_csv(tmp_path / "long.csv", ["qid", "model", "acc", "category"], rows)
    s = harness.read(path, "table", system_column="model", score="acc", stratum="category")
    assert list(s.systems) == ["llama", "mistral", "qwen"] and s.ids.tolist() == ["q1", "q2"]
    assert s.systems["mistral"].tolist() == [1.0, 1.0]
    assert s.strata.tolist() == ["math", "law"]
    assert any("long layout: 3 systems in column 'model'" in n for n in s.notes)
    missing = write_csv(tmp_path / "m.csv", ["qid", "model", "acc"], [r[:3] for r in rows[:5]])
    with pytest.raises(InputError, match=r"m.csv: system 'qwen' has no row for 1 id\(s\) that "
                                         r"system 'llama' has \('q2'\)"):
        table_reader.read(missing, system_column="model", score="acc")
    twice = write_csv(tmp_path / "t.csv", ["qid", "model", "acc"], [*[r[:3] for r in rows],
                                                                     ["q1", "qwen", "1"]])
    with pytest.raises(InputError, match=r"system 'qwen' has id 'q1' twice \(line 6 and "
                                         r"line 8\)"):
        table_reader.read(twice, system_column="model", score="acc")
    conflict = write_csv(tmp_path / "c.csv", ["qid", "model", "acc", "category"],
                         [*rows[:5], ["q2", "qwen", "0", "math"]])
    with pytest.raises(InputError, match=r"id 'q2' is stratum 'law' for system 'llama' but "
                                         r"'math' for 'qwen'"):
        table_reader.read(conflict, system_column="model", score="acc", stratum="category")
    no_id = write_csv(tmp_path / "n.csv", ["model", "acc"], [["a", "1"], ["b", "0"]])
    with pytest.raises(InputError, match=r"with `system_column` the items are matched on an "
                                         r"id: give `id`"):
        table_reader.read(no_id, system_column="model", score="acc")


def test_a_long_table_reads_its_columns_once_not_once_per_system(tmp_path, monkeypatch):
    """The score and stratum columns are read once for all systems: once per system
    was M x N (10^4 systems of 3 items read for minutes; issue 33)."""
    import pairboot.io.harness.table as table_module

    reads = {"scores": 0, "labels": 0}
    real_numbers, real_labels = table_module.numeric_column, table_module.label_column

    def numbers(*args, **kwargs):
        reads["scores"] += 1
        return real_numbers(*args, **kwargs)

    def labels(table, name):
        reads["labels"] += name == "category"
        return real_labels(table, name)

    monkeypatch.setattr(table_module, "numeric_column", numbers)
    monkeypatch.setattr(table_module, "label_column", labels)
    rows = [[f"q{i}", f"m{j}", str((i + j) % 2), "law" if i % 2 else "math"]
            for j in range(40) for i in range(3)]
    path = write_csv(tmp_path / "long.csv", ["qid", "model", "acc", "category"], rows)
    s = table_reader.read(path, system_column="model", score="acc", stratum="category")
    assert len(s.systems) == 40 and s.systems["m1"].tolist() == [1.0, 0.0, 1.0]
    assert s.strata.tolist() == ["math", "law", "math"]
    assert reads == {"scores": 1, "labels": 1}


def test_long_layout_picks_the_systems_asked_for(tmp_path):
    """`system` with `system_column`: those systems out of the long table, in the order
    given; the other systems' rows are not read (a gap of theirs is no error), and the
    notes say so."""
    rows = [["q1", "llama", "1"], ["q2", "llama", "0"], ["q2", "mistral", "1"],
            ["q1", "mistral", "1"], ["q1", "qwen", "0"], ["", "qwen", "1"]]
    path = write_csv(tmp_path / "long.csv", ["qid", "model", "acc"], rows)
    s = harness.read(path, "table", system_column="model", score="acc",
                     system="mistral,llama")
    assert list(s.systems) == ["mistral", "llama"] and s.ids.tolist() == ["q2", "q1"]
    assert s.systems["llama"].tolist() == [0.0, 1.0]
    assert any("2 of the 3 systems in column 'model' read (mistral, llama): the rows of "
               "qwen are not" in n for n in s.notes)
    with pytest.raises(InputError, match=r"column 'model' names no system 'gemma'; it "
                                         r"holds 'llama', 'mistral', 'qwen'"):
        table_reader.read(path, system_column="model", score="acc", system="llama,gemma")
    with pytest.raises(InputError, match=r"line 7: column 'qid': missing id"):
        table_reader.read(path, system_column="model", score="acc")  # (qwen's row read)
    s = table_reader.read(path, system_column="model", correct="acc=1", system=["llama",
                                                                              "mistral"])
    assert s.systems["mistral"].tolist() == [1.0, 1.0]


def test_long_layout_with_correct(tmp_path):
    rows = [{"question_id": q, "model": m, "pred": p, "answer": a}
            for m, preds in (("a", ["I", None]), ("b", ["B", "F"]))
            for (q, a), p in zip(((70, "I"), (71, "F")), preds)]
    path = write_jsonl(tmp_path / "long.jsonl", rows)
    with pytest.raises(InputError, match=r"line 2: system 'a': column 'pred': missing"):
        table_reader.read(path, system_column="model", correct="pred=answer")
    s = table_reader.read(path, system_column="model", correct="pred=answer", null="wrong")
    assert s.systems["a"].tolist() == [1.0, 0.0] and s.systems["b"].tolist() == [0.0, 1.0]


def test_position_ids_json_array_and_missing_labels(tmp_path):
    records = [{"instruction": f"say {i}", "dataset": d, "preference": p}
               for i, (d, p) in enumerate([("koala", 1.0), ("oasst", 2.0), ("koala", 1.5)])]
    path = write(tmp_path / "alpaca-7b.json", json.dumps(records))
    s = harness.read(path, "table", score="preference", stratum="dataset")
    assert s.ids.tolist() == ["1", "2", "3"]
    assert any("row positions 1..3" in n for n in s.notes)
    assert table_reader.read(path, id="instruction", score="preference").ids[0] == "say 0"
    records[1]["dataset"] = None
    path = write(tmp_path / "gap.json", json.dumps(records))
    with pytest.raises(InputError, match=r"gap.json: record 2: column 'dataset': missing "
                                         r"stratum label"):
        table_reader.read(path, score="preference", stratum="dataset")
    dup = write_csv(tmp_path / "dup.csv", ["id", "score"], [["q1", "1"], ["q1", "0"]])
    with pytest.raises(InputError, match=r"duplicate id 'q1' \(line 2 and line 3\)"):
        table_reader.read(dup, id="id")


def test_statistics_columns_name_their_metric(tmp_path):
    path = write_csv(tmp_path / "f1.csv", ["id", "tp", "fp", "fn"],
                     [["a", "1", "0", "1"], ["b", "2", "1", "0"]])
    s = table_reader.read(path, score="tp,fp,fn")
    assert s.metric == "f1" and s.stats == ("tp", "fp", "fn")
    assert s.systems["f1"].shape == (2, 3)
    assert table_reader.read(path, score=["fn", "tp"]).metric == "custom"


def frame_tests():
    pd = pytest.importorskip("pandas")
    return pd.DataFrame({"question_id": [72, 70, 71], "category": ["law", "math", None],
                         "pred": ["J", None, "B"], "answer": ["J", "I", "F"],
                         "acc": [1.0, 0.0, 0.0]})


@pytest.mark.parametrize("kind", ["pandas", "polars", "pyarrow"])
def test_dataframes(kind):
    df = frame_tests()
    if kind == "polars":
        pl = pytest.importorskip("polars")
        df = pl.from_pandas(df) if _has_pyarrow() else pl.DataFrame(df.to_dict("list"))
    elif kind == "pyarrow":
        pa = pytest.importorskip("pyarrow")
        df = pa.Table.from_pandas(df, preserve_index=False)
    s = harness.read(df, "table", correct="pred=answer", null="wrong")
    assert s.format == "table"
    s = table_reader.read_table_scores(df, correct="pred=answer", null="wrong")
    assert s.ids.tolist() == ["72", "70", "71"]
    assert s.systems["table"].tolist() == [1.0, 0.0, 0.0]
    assert s.path.startswith("<") and any("1 missing value(s)" in n for n in s.notes)
    with pytest.raises(InputError, match=r"row 3: column 'category': missing stratum"):
        table_reader.read(df, score="acc", stratum="category")
    with pytest.raises(InputError, match=r"row 2: column 'pred': missing value"):
        table_reader.read(df, correct="pred=answer")


def _has_pyarrow():
    try:
        import pyarrow  # noqa: F401, PLC0415
    except ImportError:
        return False
    return True


def test_pandas_index_and_long_frame():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"qid": ["q1", "q2", "q1", "q2"], "model": ["a", "a", "b", "b"],
                       "acc": [1, 0, 1, 1]})
    s = table_reader.read_table_scores(df, system_column="model", score="acc")
    assert s.systems["b"].tolist() == [1.0, 1.0]
    wide = pd.DataFrame({"a": [0.5, 1.0]}, index=pd.Index(["x", "y"], name="item_id"))
    assert table_reader.read_table_scores(wide, score="a").ids.tolist() == ["x", "y"]
    with pytest.raises(InputError, match="an int is neither a table .* nor a log"):
        table_reader.read_table_scores(42)


def test_table_is_never_detected(tmp_path):
    path = write_csv(tmp_path / "a.csv", ["id", "score"], [["q1", "1"]])
    assert not table_reader.detect(path)


def mmlu_like(seed, n=120):
    rng = np.random.default_rng(seed)
    cats = ["math", "law", "business"]
    answers = rng.choice(list("ABCDEFGHIJ"), n)
    rows = []
    for hit, miss in ((0.35, 0.1), (0.45, 0.08)):
        preds = [a if rng.random() < hit else None if rng.random() < miss else "Z"
                 for a in answers]
        rows.append([(100 + i, cats[i % 3], a, p) for i, (a, p) in enumerate(zip(answers,
                                                                                 preds))])
    return rows


def test_table_logs_and_csv_give_the_same_comparison(tmp_path):
    llama, mistral = mmlu_like(3)
    a = write_jsonl(tmp_path / "llama.jsonl", mmlu_rows(llama))
    b = write_jsonl(tmp_path / "mistral.jsonl", mmlu_rows(mistral[::-1]))  # another order
    reads = [harness.read(p, "table", id="question_id", correct="pred=answer",
                          stratum="category", null="wrong") for p in (a, b)]
    joined = harness.join(reads)
    assert joined.names == ("llama", "mistral")
    from_logs = pairboot.compare(joined.values[0], joined.values[1], strata=joined.strata,
                                 **OPTIONS)
    scores = write_csv(tmp_path / "scores.csv", ["question_id", "category", "a", "b"],
                       [[q, c, int(p == ans), int(pb == ans)]
                        for (q, c, ans, p), (_, _, _, pb) in zip(llama, mistral)])
    aligned = align([read_table(scores)], columns=[["a"], ["b"]], id="question_id",
                    strata="category")
    same_result(from_logs, pairboot.compare(aligned.values[0], aligned.values[1],
                                            strata=aligned.strata, **OPTIONS))
    # the long layout of the same rows gives the same comparison too
    long_rows = [{**r, "model": m} for m, rows in (("llama", llama), ("mistral", mistral))
                 for r in mmlu_rows(rows)]
    s = harness.read(write_jsonl(tmp_path / "long.jsonl", long_rows), "table",
                     system_column="model", correct="pred=answer", stratum="category",
                     null="wrong")
    same_result(from_logs, pairboot.compare(s.systems["llama"], s.systems["mistral"],
                                            strata=s.strata, **OPTIONS))


def test_real_mmlu_pro_and_simpleqa():
    files = [str(real_data("mmlu_pro", f"model_outputs_{m}_5shots.slim.jsonl"))
             for m in ("Meta-Llama-3-8B", "Mistral-7B-v0.1")]
    qa = [str(real_data("fastchat_simpleqa250", f"simple_qa_250_{m}_results.jsonl"))
          for m in ("gpt-4o", "gpt-4o-agent")]
    reads = [harness.read(p, "table", correct="pred=answer", stratum="category",
                          null="wrong") for p in files]
    assert [round(float(r.systems[next(iter(r.systems))].mean()), 4) for r in reads] == \
        [0.3418, 0.2977]
    assert any("1,290 missing value(s)" in n for n in reads[0].notes)
    joined = harness.join(reads)
    assert len(joined.ids) == 12032 and len(set(joined.strata.tolist())) == 14
    grades = harness.join([harness.read(p, "table", correct="grade=A") for p in qa])
    assert len(grades.ids) == 250


def test_a_plain_table_is_not_shown_to_the_readers(tmp_path):
    """``may_be_log`` lets through whatever a reader might recognise (every reader's
    detection tests call ``harness.detect``) and nothing else: a plain CSV file is no
    log, without a reader imported to look at it."""
    plain = write(tmp_path / "scores.csv", "id,score\nq1,0.5\nq2,0.25\n")
    assert not harness.may_be_log(plain) and harness.detect(plain) is None
    for text in ('id,score\nq1,"{x}"\n', "id\tscore\nq1\t0.5\n",
                 "system mqm_avg_score seg_id\n"):
        assert harness.may_be_log(write(tmp_path / "other.csv", text)), text
    late = "id,score\n" + "q,0.5\n" * 50_000 + "{\n"  # (past what any reader looks at)
    assert not harness.may_be_log(write(tmp_path / "late.csv", late))
    named = write(tmp_path / "samples_arc_2024-01-01T00-00-00.jsonl", "id,score\n")
    assert harness.may_be_log(named)  # (lm-eval reads its first line whole)
    assert harness.may_be_log(str(tmp_path)) and harness.may_be_log(str(tmp_path / "none"))

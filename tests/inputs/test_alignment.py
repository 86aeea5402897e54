"""Pairing files' items (issue 21): by position only when no shared column says the rows
are other items, judged by its content; labels from a file joined on the ids; the items
every file scores, on request.  Unit cases of the rule (pairboot.inputs.pairing), files through
pairboot.io.align (pure Python and Arrow), the command line, and the real files of
shared/data/real."""

from __future__ import annotations

import itertools
import json
import math
import random

import numpy as np
import pytest
from helpers import assert_one_line_error, error, real_data, run_in_process

import pairboot.io as pbio
from pairboot import PairbootWarning
from pairboot.inputs import pairing
from pairboot.io import arrow, columns

FAST = ["--resamples", "300", "--seed", "3"]
FEW_RESAMPLES = pytest.mark.filterwarnings(
    r"ignore:(\d+ resamples leave only|the Monte Carlo error of the endpoints)"
    ":pairboot.SmallSampleWarning"
)


def write(path, header, rows) -> str:
    path.write_text(",".join(header) + "\n" + "".join(",".join(map(str, r)) + "\n"
                                                       for r in rows))
    return str(path)


def write_jsonl(path, rows) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def align(*paths, **options):
    tables = [pbio.read_table(p) for p in paths]
    return pbio.align(tables, columns=[["score"]] * len(tables), **options)


def refusal(*paths, **options) -> str:
    return error(align, *paths, **options)


def shuffled(rows, seed=0):
    rows = list(rows)
    random.Random(seed).shuffle(rows)
    return rows


# ------------------------------------------------------------------ the rule itself


def test_evidence_of_a_column_by_codes_and_by_arrow_hashes():
    """Exact counts by hand: 4 rows, A = x y z w, B = y x z q."""
    a, b = ["x", "y", "z", "w"], ["y", "x", "z", "q"]
    ev = pairing.evidence(*pairing.codes(a, b))
    assert ev == pairing.Evidence(n=4, matches=1, distinct=1.0, unique=True, moved=2,
                                  same_values=False, n_values=4, chance=0.75)
    pa = pytest.importorskip("pyarrow")
    arrow_ev = columns.labels_evidence(columns.ArrowLabels(pa.array(a)),
                                       columns.ArrowLabels(pa.array(b)))
    assert arrow_ev == ev
    # missing values: two missing agree, a missing value is no value (not distinct)
    ev = pairing.evidence(*pairing.codes(["x", None, "x", "y"], ["x", None, "y", "x"]))
    assert (ev.matches, ev.unique, ev.same_values, ev.n_values) == (2, False, True, 2)
    assert ev.distinct == 0.5 and ev.chance == (2 * 2 + 1 * 1) / 4


@pytest.mark.parametrize(("a", "b", "kwargs", "verdict"), [
    # distinct values
    ([f"q{i}" for i in range(20)], [f"q{i}" for i in range(20)], {}, "aligned"),
    ([str(i) for i in range(20)], [str(i) for i in range(20)], {"counter": True}, None),
    ([f"q{i}" for i in range(20)], [f"q{i}" for i in reversed(range(20))], {}, "misaligned"),
    ([f"q{i}" for i in range(20)], [f"q{i}" for i in [1, 0, *range(2, 20)]], {},
     "misaligned"),  # two rows swapped
    ([f"q{i}" for i in range(20)], [f"r{i}" for i in range(20)], {}, None),  # a system's own
    ([f"q{i}" for i in range(20)], [f"r{i}" for i in range(20)], {"id_named": True},
     "misaligned"),  # named like ids: other ids are other items
    # repeated values: a random order agrees in few rows
    (list("abcd" * 10), list("bcda" * 10), {}, "misaligned"),
    (list("abcd" * 10), list("abcd" * 9 + "abdc"), {}, None),  # near-identical runs
    (list("abcd" * 10), list("abcc" * 9 + "abdd"), {}, None),  # other counts: outputs
    (list("ab" * 20), list("ba" * 20), {}, None),  # two kinds: never evidence
])
def test_judge(a, b, kwargs, verdict):
    assert pairing.judge(pairing.evidence(*pairing.codes(a, b)), **kwargs) == verdict


# -------------------------------------------------------------------- files by position


def issue_files(tmp_path, column: str, *, distinct: bool = True, n: int = 300):
    """The issue's repro: 300 items, B's rows shuffled, ids in a column ``column``
    (distinct ids, or a document of 4 items)."""
    rng = np.random.default_rng(21)
    a = rng.integers(0, 2, n)
    b = np.where(rng.random(n) < 0.12, 1, a)
    keys = [f"k{i:04d}" if distinct else f"d{i // 4}" for i in range(n)]
    rows_a = [(k, x) for k, x in zip(keys, a)]
    rows_b = shuffled([(k, y) for k, y in zip(keys, b)], seed=5)
    return (write(tmp_path / "a.csv", [column, "score"], rows_a),
            write(tmp_path / "b.csv", [column, "score"], rows_b))


@pytest.mark.parametrize("column", [
    "uuid", "idx", "doc_id", "prompt_id", "instance_id", "row_id", "seg_id", "problem_id",
    "index", "hash", "prompt", "question",
])
def test_shuffled_rows_are_refused_whatever_the_column_is_named(tmp_path, column):
    """Before: only columns named like id, qid, uid, ... were looked at, and the verdict
    of the issue's repro flipped (better, p = 0.043, became no difference, p = 0.073)."""
    a, b = issue_files(tmp_path, column)
    msg = refusal(a, b)
    assert f"column {column!r}" in msg and "cannot be paired by position" in msg
    assert f"`id={column!r}`" in msg
    joined = align(a, b, id=column)  # joined on it, the rows are the same items
    assert joined.ids[:3] == ["k0000", "k0001", "k0002"]


@pytest.mark.parametrize("column", ["doc_id", "seg_id", "topic"])
def test_shuffled_rows_are_refused_by_a_column_of_repeated_labels(tmp_path, column):
    a, b = issue_files(tmp_path, column, distinct=False)
    msg = refusal(a, b)
    assert f"column {column!r} with the same values" in msg and "random order" in msg


def test_what_differs_between_systems_is_no_evidence(tmp_path):
    """A model's output (text, or letters), another score with fractions, a request id
    of each run: the rows are paired by position; an identifying column that agrees is
    noted."""
    n = 60
    rows = []
    for system in "ab":
        rows.append([(f"{system}-req-{i}", f"{system} says {i * 7 % 11}", "ABCD"[
            (i + (system == "b") * (i % 3 == 0)) % 4], round((i * 37 % 100) / 100 + 0.005, 3),
            f"Question {i}?", i % 2) for i in range(n)])
    header = ["request_id", "response", "prediction", "bleu", "question", "score"]
    a = write(tmp_path / "a.csv", header, rows[0])
    b = write(tmp_path / "b.csv", header, rows[1])
    aligned = align(a, b)
    assert "items paired by row position" in aligned.layout
    assert any("'question' columns agree" in note for note in aligned.notes)
    # shuffle B's rows together: the questions say so, the rest would not
    b2 = write(tmp_path / "b2.csv", header, shuffled(rows[1]))
    assert "column 'question' that identifies the rows" in refusal(a, b2)


def test_columns_named_like_ids_keep_their_stricter_rule(tmp_path):
    rows = [(f"q{i}", i % 2) for i in range(30)]
    a = write(tmp_path / "a.csv", ["qid", "score"], rows)
    b = write(tmp_path / "b.csv", ["qid", "score"], [(f"z{i}", s) for i, (_, s) in
                                                     enumerate(rows)])
    assert refusal(a, b).startswith("both files have an id column 'qid' but its rows are in "
                                    "a different order (or hold different ids)")
    c = write(tmp_path / "c.csv", ["uuid", "score"], [(f"z{i}", s) for i, (_, s) in
                                                      enumerate(rows)])
    d = write(tmp_path / "d.csv", ["uuid", "score"], rows)
    assert "paired by row position" in align(c, d).layout  # (disjoint: a per-run id)


def test_a_written_row_index_does_not_vouch_for_the_rows(tmp_path):
    """pandas' to_csv index (0, 1, ...) agrees whatever the order of the rows: the
    shuffled questions are still refused."""
    rows = [(f"Question {i}?", i % 2) for i in range(40)]
    a = write(tmp_path / "a.csv", ["Unnamed: 0", "question", "score"],
              [(i, *r) for i, r in enumerate(rows)])
    b = write(tmp_path / "b.csv", ["Unnamed: 0", "question", "score"],
              [(i, *r) for i, r in enumerate(shuffled(rows))])
    assert "column 'question'" in refusal(a, b)


@pytest.mark.parametrize("case", ["refused", "paired"])
def test_arrow_and_python_readers_decide_alike(tmp_path, monkeypatch, case):
    pytest.importorskip("pyarrow")
    n = 3000
    rows = [(f"id-{i:05d}", f"topic {i % 7}", f"the model's answer {i * 3}", i % 2)
            for i in range(n)]
    other = [(k, t, f"another answer {i}", s) for i, (k, t, _, s) in enumerate(rows)]
    header = ["uuid", "topic", "response", "score"]
    a = write(tmp_path / "a.csv", header, rows)
    b = write(tmp_path / "b.csv", header, shuffled(other) if case == "refused" else other)
    outcomes = []
    for limit in (math.inf, 0):
        monkeypatch.setattr(arrow, "_ARROW_MIN_BYTES", limit)
        assert pbio.read_table(a).read_by_pyarrow == (limit == 0)
        outcomes.append(refusal(a, b) if case == "refused" else align(a, b).notes)
    assert outcomes[0] == outcomes[1]
    assert ("column 'uuid'" in outcomes[0]) if case == "refused" else outcomes[0] == (
        "rows paired by position; their 'uuid' columns agree (a different value in every "
        "row)",)


def test_arrow_columns_are_compared_in_bulk(tmp_path, monkeypatch):
    """No Python object per row: the labels of a large file are compared and hashed as
    Arrow arrays (iterating them one by one would fail here)."""
    pytest.importorskip("pyarrow")
    n = 20_000
    rows = [(f"item-{i:06d}", f"doc-{i // 5}", i % 2) for i in range(n)]
    a = write(tmp_path / "a.csv", ["uuid", "doc", "score"], rows)
    b = write(tmp_path / "b.csv", ["uuid", "doc", "score"], shuffled(rows))
    monkeypatch.setattr(arrow, "_ARROW_MIN_BYTES", 0)

    def refuse(self):
        raise AssertionError("labels read one by one")

    monkeypatch.setattr(columns.ArrowLabels, "__iter__", refuse)
    assert "column 'uuid'" in refusal(a, b)
    assert "paired by row position" in align(a, a).layout  # (every column agrees)


# ------------------------------------------------------------- labels from their own file


def labels_files(tmp_path):
    a = write(tmp_path / "a.csv", ["id", "score"], [(f"q{i}", i % 2) for i in range(12)])
    b = write(tmp_path / "b.csv", ["id", "score"],
              shuffled([(f"q{i}", (i + 1) % 2) for i in range(12)]))
    meta = [{"id": f"q{i}", "topic": "TU"[i % 2],
             "metadata": str({"topic": "xyz"[i % 3], "urls": ["u"]})} for i in range(15)]
    return a, b, write_jsonl(tmp_path / "questions.jsonl", meta)


def test_labels_come_from_a_file_joined_on_the_ids(tmp_path):
    a, b, questions = labels_files(tmp_path)
    labels = pbio.read_table(questions)
    got = align(a, b, id="id", labels=labels, groups="topic", strata="metadata.topic")
    assert list(got.groups) == ["TU"[i % 2] for i in range(12)]
    assert list(got.strata) == ["xyz"[i % 3] for i in range(12)]
    assert any(f"from {questions}, joined on column 'id'" in n for n in got.notes)
    # what labels need, and what they refuse
    assert "give `id`" in error(align, a, b, labels=labels, groups="topic")
    assert "`groups` or `strata`" in error(align, a, b, id="id", labels=labels)
    few = pbio.read_table(write_jsonl(tmp_path / "few.jsonl",
                                      [{"id": f"q{i}", "topic": "T"} for i in range(10)]))
    assert "for 2 of 12 ids ('q10', 'q11')" in error(align, a, b, id="id", labels=few,
                                                      groups="topic")
    scored = write(tmp_path / "c.csv", ["id", "topic", "score"],
                   [(f"q{i}", "T", 1) for i in range(12)])
    assert "conflicting group labels" in error(align, a, scored, id="id", labels=labels,
                                               groups="topic")
    bad = pbio.read_table(write_jsonl(tmp_path / "bad.jsonl",
                                      [{"id": f"q{i}", "metadata": "Art"} for i in range(12)]))
    assert "not an object, so it has no field 'topic'" in error(
        align, a, b, id="id", labels=bad, strata="metadata.topic")


def test_simpleqa_topics_from_the_question_file():
    """SimpleQA-250 (FastChat): the grades are shuffled per file, the 10 topics live in
    the question file's `metadata` (a Python dict's text): SOURCES.md counts them."""
    folder = real_data("fastchat_simpleqa250")
    scores = pbio.harness.join([pbio.harness.read(folder / f"simple_qa_250_{s}_results.jsonl",
                                                  "table", correct="grade=A")
                                for s in ("gpt-4o", "gpt-4o-agent")])
    strata = pbio.labels_by_id(pbio.read_table(folder / "simple_qa_250.jsonl"), "question_id",
                               scores.ids, "metadata.topic", what="stratum", param="strata")
    counts = {t: list(strata).count(t) for t in set(strata)}
    assert len(counts) == 10
    assert (counts["Politics"], counts["Science and technology"], counts["Art"]) == (39, 38, 34)


# ------------------------------------------------------------------- the common items


def test_common_items_say_how_many_each_file_lost(tmp_path):
    a = write(tmp_path / "a.csv", ["id", "score"], [(f"q{i}", i) for i in range(10)])
    b = write(tmp_path / "b.csv", ["id", "score"],
              [(f"q{i}", 100 + i) for i in reversed(range(3, 13))])
    assert "`common_items` compares on the items both score" in refusal(a, b, id="id")
    with pytest.warns(PairbootWarning, match="more than 10% of the items of 2 of the 2 files"):
        got = align(a, b, id="id", common_items=True)
    assert (got.common.kept, got.common.total, got.common.sizes) == (7, 13, (10, 10))
    assert list(got.ids) == [f"q{i}" for i in range(3, 10)]
    assert [v.tolist() for v in got.values] == [list(range(3, 10)), list(range(103, 110))]
    (note,) = got.notes
    assert f"dropped 3 of the 10 items of {a} and 3 of the 10 items of {b}" in note
    assert "7 items" in got.layout and "`common_items`" in got.layout
    assert "give `id`" in refusal(a, b, common_items=True)
    one = pbio.read_table(a)
    assert "a file per system" in error(pbio.align, [one], columns=[["score"], ["score"]],
                                        id="id", common_items=True)
    c = write(tmp_path / "c.csv", ["id", "score"], [(f"z{i}", i) for i in range(4)])
    assert "no id of column 'id' is in every file" in refusal(a, c, id="id",
                                                                common_items=True)


@FEW_RESAMPLES
def test_common_items_on_the_command_line(tmp_path):
    rows = [(f"q{i}", (i * 7) % 10 / 10) for i in range(40)]
    a = write(tmp_path / "a.csv", ["id", "score"], rows)
    b = write(tmp_path / "b.csv", ["id", "score"], [(k, min(1, s + 0.1)) for k, s in
                                                    rows[5:]])
    assert_one_line_error(run_in_process("compare", a, b, "--id", "id", *FAST),
                          "--common-items compares on the items both score")
    proc = run_in_process("compare", a, b, "--id", "id", "--common-items", "--format",
                          "json", *FAST)
    data = json.loads(proc.stdout)
    assert data["n_items"] == 35
    assert any("(--common-items): dropped 5 of the 40 items" in n for n in data["notes"])
    assert "| common items |" in data["signature"]  # (the line that reruns it)
    assert_one_line_error(run_in_process("compare", a, b, "--common-items", *FAST),
                          "--common-items keeps the items", "give --id")
    for option in (["--stream"], ["--run", "seed", "--runs", "seeds"]):
        assert_one_line_error(run_in_process("compare", a, b, "--id", "id",
                                             "--common-items", *option, *FAST),
                              "--common-items")


@FEW_RESAMPLES
def test_labels_on_the_command_line(tmp_path):
    a, b, questions = labels_files(tmp_path)
    proc = run_in_process("compare", a, b, "--id", "id", "--labels", questions,
                          "--stratum", "metadata.topic", "--format", "json", *FAST)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["n_strata"] == 3
    assert f"| labels {questions} |" in data["signature"]
    assert_one_line_error(run_in_process("compare", a, b, "--labels", questions,
                                         "--stratum", "topic", *FAST),
                          "--labels is joined on the items' ids", "give --id")


@FEW_RESAMPLES
def test_harness_logs_take_labels_and_common_items():
    """SimpleQA's geminipro (61 items) and geminipro-agent (53): compared on the 53 both
    graded, with the topics of the question file."""
    folder = real_data("fastchat_simpleqa250")
    logs = [folder / f"simple_qa_250_{s}_results.jsonl" for s in ("geminipro",
                                                                   "geminipro-agent")]
    base = ("compare", "--from", "table", "--correct", "grade=A", *logs, "--id",
            "question_id", *FAST)
    assert_one_line_error(run_in_process(*base), "8 ids only in the first",
                          "--common-items")
    proc = run_in_process(*base, "--common-items", "--labels", folder / "simple_qa_250.jsonl",
                          "--stratum", "metadata.topic", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["n_items"] == 53
    assert any("dropped 8 of the 61 items" in n and "0 of the 53 items" in n
               for n in data["notes"])


def test_plain_tables_read_as_logs_are_checked_by_position(tmp_path):
    """`--from table` without an id column pairs the rows by position (their ids are the
    row numbers): the shuffled `uuid` column is refused there too."""
    rows = [{"uuid": f"u{i}", "grade": "AB"[i % 3 == 0]} for i in range(40)]
    a = write_jsonl(tmp_path / "a.jsonl", rows)
    b = write_jsonl(tmp_path / "b.jsonl", shuffled(rows))
    assert_one_line_error(run_in_process("compare", "--from", "table", "--correct",
                                         "grade=A", a, b, *FAST),
                          "column 'uuid' that identifies the rows", "give --id uuid")


# ---------------------------------------------------------------- the real files


def real_pair(tmp_path, rows_a, rows_b, name="x"):
    return (write_jsonl(tmp_path / f"{name}_a.jsonl", rows_a),
            write_jsonl(tmp_path / f"{name}_b.jsonl", rows_b))


@pytest.mark.slow
def test_real_files_paired_by_position_legitimately_are_not_refused(tmp_path):
    """AlpacaEval (805 records, one order in every file), lm-eval 0-shot vs 5-shot (their
    prompts differ: a system's own), two Qwen runs, SimpleQA's grades sorted by question
    and with no id at all (a grade A/B/C is each system's own)."""
    folder = real_data("alpaca_eval")
    alpaca = sorted(folder.iterdir())
    for fa, fb in itertools.combinations(alpaca, 2):
        a, b = real_pair(tmp_path, json.loads(fa.read_text()), json.loads(fb.read_text()))
        tables = [pbio.read_table(p) for p in (a, b)]
        got = pbio.align(tables, columns=[["preference"]] * 2)
        assert any("'instruction' columns agree" in n for n in got.notes), (fa, fb)
    lm = real_data("lm_eval")
    for zero, five, score in (("2026-01-16T20-57-28.313639", "2026-01-16T21-18-16.842863",
                               "doc_id"),
                              ("2026-07-08T16-04-34.219874", "2026-07-08T18-15-33.115417",
                               "acc")):
        task = "masakhaner_luo_prompt_4" if score == "doc_id" else "negotiationtom_belief"
        tables = [pbio.read_table(lm / f"samples_{task}_{t}.jsonl") for t in (zero, five)]
        got = pbio.align(tables, columns=[[score]] * 2)
        assert "paired by row position" in got.layout
    qa = real_data("fastchat_simpleqa250")
    graded = {}
    for f in sorted(qa.glob("*_results.jsonl")):
        rows = [json.loads(line) for line in f.read_text().splitlines()]
        if len(rows) == 250:
            rows.sort(key=lambda r: r["question_id"])
            graded[f.name] = [{"grade": r["grade"], "score": int(r["grade"] == "A")}
                              for r in rows]
    for x, y in itertools.combinations(sorted(graded), 2):
        assert "paired by row position" in align(*real_pair(tmp_path, graded[x],
                                                            graded[y])).layout


@pytest.mark.slow
def test_real_files_in_another_order_are_refused(tmp_path):
    """MMLU-Pro (12,032 questions; Llama-3.1's file lists them in another order), its
    question id renamed `uuid` or dropped (the category then shows the order); WMT20's
    chrF segments of one system sorted by document."""
    folder = real_data("mmlu_pro")

    def rows(model, drop=None, rename=None):
        out = []
        for line in (folder / f"model_outputs_{model}_5shots.slim.jsonl").open():
            r = json.loads(line)
            r["score"] = int(r["pred"] == r["answer"])
            if rename:
                r["uuid"] = r.pop("question_id")
            if drop:
                r.pop("question_id")
            out.append(r)
        return out

    a, b = real_pair(tmp_path, rows("Meta-Llama-3-8B", rename=True),
                     rows("Meta-Llama-3_1-8B", rename=True))
    assert "column 'uuid' that identifies the rows" in refusal(a, b)
    a, b = real_pair(tmp_path, rows("Meta-Llama-3-8B", drop=True),
                     rows("Meta-Llama-3_1-8B", drop=True))
    assert "column 'category' with the same values" in refusal(a, b)
    by_question = [sorted(rows(m), key=lambda r: r["question_id"])
                   for m in ("Meta-Llama-3-8B", "Meta-Llama-3_1-8B")]
    assert "'question_id' columns agree" in " ".join(
        align(*real_pair(tmp_path, *by_question)).notes)
    wmt = real_data("wmt20_ende", "wmt20_chrF.seg.score.en-de.ref-newstest2020.tsv")
    header = ["metric", "lp", "testset", "ref", "system", "docid", "seg_no", "score"]
    systems: dict = {}
    for line in wmt.read_text().splitlines():
        fields = line.split("\t")
        systems.setdefault(fields[4], []).append(fields)
    first, second = sorted(systems)[:2]
    a = write(tmp_path / "chrf_a.csv", header, systems[first])
    b = write(tmp_path / "chrf_b.csv", header, systems[second])
    assert "paired by row position" in align(a, b).layout
    c = write(tmp_path / "chrf_c.csv", header, sorted(systems[second], key=lambda r: r[5]))
    assert "column 'docid' with the same values" in refusal(a, c)


# ----------------------------------------------------- ids in messages (issue 22)


def test_ids_that_differ_only_in_unicode_normalisation():
    """'café' in NFC and in NFD print alike: the two lists of ids looked the same."""
    import unicodedata  # noqa: PLC0415

    nfc = ["café", "q2", "naïve"]
    nfd = [unicodedata.normalize("NFD", v) for v in nfc]
    msg = error(pbio.join_on_ids, nfc, nfd, "a.csv", "b.csv")
    assert "the ids differ only in Unicode normalisation (NFC in a.csv, NFD in b.csv)" in msg
    assert "U+00E9 at character 4 in a.csv, U+0065 U+0301 in b.csv" in msg
    msg = error(pbio.join_on_ids, [*nfc, "q9"], [*nfd, "q8"], "a.csv", "b.csv")
    assert "2 of them differ only in Unicode normalisation" in msg
    assert "normalisation" not in error(pbio.join_on_ids, ["q1"], ["q2"], "a.csv", "b.csv")


def test_dataframes_joined_on_ids_show_the_normalisation_and_cut_long_ids():
    pd = pytest.importorskip("pandas")
    import unicodedata  # noqa: PLC0415

    import pairboot  # noqa: PLC0415

    a = pd.DataFrame({"id": ["café", "q2"], "score": [1.0, 0.0]})
    b = pd.DataFrame({"id": [unicodedata.normalize("NFD", "café"), "q2"], "score": [0., 1.]})
    msg = error(pairboot.compare, a, b, ids="id", n_resamples=50, seed=1)
    assert "only in Unicode normalisation" in msg and "U+0065 U+0301" in msg
    long = "y" * 100_000
    msg = error(pairboot.compare, [0.5, 1.0], [1.0, 0.5], ids=[long, long], n_resamples=50,
                seed=1)
    assert len(msg) < 300 and "…' (100,000 characters) twice" in msg, msg


def test_a_shared_column_of_fractions_shows_shuffled_rows(tmp_path):
    """A column both files share that holds numbers with fractions, a different one in
    each row (a human z-score, a gold value) and reordered in B: refused; each system's
    own fractions (a latency) never reappear at other rows, and pass."""
    rng = np.random.default_rng(5)
    n = 80
    z, latency_a, latency_b = rng.normal(size=n), rng.random(n), rng.random(n)
    scores = rng.random(n)
    a = write(tmp_path / "a.csv", ["human_z", "latency", "score"],
              [(float(z[i]), float(latency_a[i]), float(scores[i])) for i in range(n)])
    order = rng.permutation(n)
    b = write(tmp_path / "b.csv", ["human_z", "latency", "score"],
              [(float(z[i]), float(latency_b[i]), float(scores[i])) for i in order])
    assert "column 'human_z' that identifies the rows" in refusal(a, b)
    c = write(tmp_path / "c.csv", ["human_z", "latency", "score"],
              [(float(z[i]), float(latency_b[i]), float(scores[i])) for i in range(n)])
    assert "items paired by row position" in align(a, c).layout

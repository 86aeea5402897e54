"""``pairboot compare --from FORMAT``: harness logs on the command line.

The commands of docs/harnesses.md and docs/harnesses/*.md, on fixtures shaped like the
logs: each gives the same result as the Python path (read, join, compare) and as an
equivalent plain CSV for the same seed; bad and mismatched logs give one ``error:`` line
naming the file, exit 2.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from helpers import PROJECT_ROOT, assert_one_line_error, inspect_log, run_in_process

import pairboot
from pairboot.io import harness

EXAMPLES = PROJECT_ROOT / "examples" / "lm_eval"


def _json(*args):
    proc = run_in_process("compare", *args, "--seed", "7", "--resamples", "2000",
                          "--format", "json", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_lm_eval_directories_as_strata():
    """The README's example: two lm-eval output folders, tasks as strata."""
    got = _json(EXAMPLES / "model_a", EXAMPLES / "model_b", "--score", "acc")
    reads = [harness.read(str(EXAMPLES / m), "lm-eval", score="acc")
             for m in ("model_a", "model_b")]
    joined = harness.join(reads)
    res = pairboot.compare(*joined.values, strata=joined.strata, seed=7, n_resamples=2000)
    assert got["confidence_interval"] == res.confidence_interval._asdict()
    assert [s["name"] for s in got["strata"]] == ["arc_easy_mini", "boolq_mini"]


def test_lm_eval_equals_the_plain_csv(tmp_path):
    reads = [harness.read(str(EXAMPLES / m), "lm-eval", score="acc")
             for m in ("model_a", "model_b")]
    joined = harness.join(reads)
    csv = tmp_path / "runs.csv"
    csv.write_text("id,task,a,b\n" + "".join(
        f"{i},{t},{a:g},{b:g}\n" for i, t, a, b in zip(joined.ids, joined.strata,
                                                       *joined.values)))
    from_logs = _json(EXAMPLES / "model_a", EXAMPLES / "model_b", "--score", "acc")
    from_csv = _json(csv, "--a", "a", "--b", "b", "--id", "id", "--stratum", "task")
    assert from_logs["confidence_interval"] == from_csv["confidence_interval"]
    assert from_logs["estimate"] == from_csv["estimate"]


def test_lm_eval_tasks_as_family():
    got = _json(EXAMPLES / "model_a", EXAMPLES / "model_b", "--score", "acc",
                "--tasks-as", "family", "--correction", "holm")
    assert got["correction"] == "holm" and got["family_size"] == 2
    assert [c["b"] for c in got["comparisons"]] == [
        "example/model-b 0-shot [arc_easy_mini]", "example/model-b 0-shot [boolq_mini]"]


def test_mismatched_and_bad_logs(tmp_path):
    a = tmp_path / "a"
    b = tmp_path / "b"
    shutil.copytree(EXAMPLES / "model_a", a)
    shutil.copytree(EXAMPLES / "model_b", b)
    samples = next((b / "example__model-b").glob("samples_arc_easy_mini_*.jsonl"))
    lines = samples.read_text().splitlines(keepends=True)
    # a truncated file: its results file counts 120 docs
    samples.write_text("".join(lines[:-1]))
    assert_one_line_error(run_in_process("compare", a, b, "--score", "acc"), str(samples))
    # a line cut in the middle
    samples.write_text("".join(lines[:-1]) + lines[-1][:40])
    assert_one_line_error(run_in_process("compare", a, b, "--score", "acc"), "line 120")
    samples.write_text("".join(lines))
    # a metric the logs do not have
    assert_one_line_error(run_in_process("compare", a, b, "--score", "f1"), "f1")
    # no task in common
    for path in (b / "example__model-b").glob("samples_*.jsonl"):
        path.rename(path.with_name(path.name.replace("_mini", "_other")))
    assert_one_line_error(run_in_process("compare", a, b, "--score", "acc"), "share no task")


def test_options_are_checked(tmp_path):
    proc = run_in_process("compare", EXAMPLES / "model_a", EXAMPLES / "model_b",
                          "--log-option", "filter")
    assert_one_line_error(proc, "--log-option 'filter'", "KEY=VALUE")
    proc = run_in_process("compare", EXAMPLES / "model_a", EXAMPLES / "model_b", "--score",
                          "acc", "--correct", "pred=answer")
    assert_one_line_error(proc, "--correct")
    proc = run_in_process("compare", EXAMPLES / "model_a", EXAMPLES / "model_b",
                          "--from", "nonsense")
    assert_one_line_error(proc, "nonsense")


def test_a_log_option_reaches_the_reader():
    got = _json(EXAMPLES / "model_a", EXAMPLES / "model_b", "--score", "acc",
                "--log-option", "tasks=boolq_mini")
    assert got["n_items"] == 80 and got["n_strata"] is None


@pytest.mark.parametrize(("metric", "difference"),
                         [("acc", (147 - 137) / 200), ("acc_norm", (149 - 142) / 200)])
def test_every_metric_field(metric, difference):
    # the examples' counts of correct answers (model_b's less model_a's, 200 documents)
    got = _json(EXAMPLES / "model_a", EXAMPLES / "model_b", "--score", metric)
    assert got["estimate"] == pytest.approx(difference, abs=1e-12)


def _trec(path, values, runid):
    lines = [f"map                   \t{q}\t{v:.4f}" for q, v in values.items()]
    lines += [f"P_10                  \t{q}\t0.5000" for q in values]
    lines += [f"runid                 \tall\t{runid}", "map                   \tall\t0.5"]
    path.write_text("\n".join(lines) + "\n")


def test_trec_runs_and_the_plain_csv(tmp_path):
    """docs/harnesses/tables.md: ``--from trec --score map``."""
    rng = np.random.default_rng(3)
    qids = [str(300 + i) for i in range(60)]
    a = dict(zip(qids, rng.random(60).round(4)))
    b = {q: round(min(1.0, v + rng.normal(0.03, 0.05)), 4) for q, v in a.items()}
    _trec(tmp_path / "run_a.txt", a, "bm25")
    _trec(tmp_path / "run_b.txt", dict(reversed(list(b.items()))), "dense")
    csv = tmp_path / "runs.csv"
    csv.write_text("qid,a,b\n" + "".join(f"{q},{a[q]:.4f},{b[q]:.4f}\n" for q in qids))
    got = _json(tmp_path / "run_a.txt", tmp_path / "run_b.txt", "--from", "trec",
                "--score", "map")
    plain = _json(csv, "--a", "a", "--b", "b", "--id", "qid")
    assert got["confidence_interval"] == plain["confidence_interval"]
    proc = run_in_process("compare", tmp_path / "run_a.txt", tmp_path / "run_b.txt",
                          "--from", "trec", "--score", "ndcg")
    assert_one_line_error(proc, "run_a.txt", "ndcg")


def test_tables_with_correct_and_the_long_layout(tmp_path):
    """docs/harnesses/tables.md: ``--correct pred=answer --null wrong`` and
    ``--system-column``."""
    rng = np.random.default_rng(8)
    n = 120
    answers = rng.choice(list("ABCD"), n)
    cats = rng.choice(["math", "law"], n)
    preds, orders = {}, {}
    for name, p in (("a", 0.5), ("b", 0.6)):
        right = rng.random(n) < p
        pred = np.where(right, answers, "Z").astype(object)
        pred[rng.random(n) < 0.05] = None
        preds[name] = pred
        order = orders[name] = rng.permutation(n)
        (tmp_path / f"{name}.jsonl").write_text("".join(
            json.dumps({"question_id": f"q{i}", "category": str(cats[i]),
                        "answer": str(answers[i]), "pred": preds[name][i]}) + "\n"
            for i in order))
    got = _json(tmp_path / "a.jsonl", tmp_path / "b.jsonl", "--from", "table", "--id",
                "question_id", "--correct", "pred=answer", "--stratum", "category",
                "--null", "wrong")
    score = {k: np.array([v == ans for v, ans in zip(p, answers)], dtype=float)
             for k, p in preds.items()}
    first = orders["a"]  # (the items in the first file's order, as the reader takes them)
    res = pairboot.compare(score["a"][first], score["b"][first], strata=cats[first], seed=7,
                           n_resamples=2000)
    assert got["confidence_interval"] == res.confidence_interval._asdict()
    proc = run_in_process("compare", tmp_path / "a.jsonl", tmp_path / "b.jsonl", "--id",
                          "question_id", "--correct", "pred=answer", "--no-progress")
    assert_one_line_error(proc, "a.jsonl", "--null wrong")
    long = tmp_path / "long.csv"
    rows = rng.permutation(n)
    long.write_text("qid,model,acc\n" + "".join(
        f"q{i},{m},{int(score[m][i])}\n" for m in ("a", "b") for i in rows))
    got = _json(long, "--system-column", "model", "--id", "qid", "--score", "acc")
    plain = pairboot.compare(score["a"][rows], score["b"][rows], seed=7, n_resamples=2000)
    assert got["confidence_interval"] == plain.confidence_interval._asdict()


def test_long_table_systems_picked_with_systems(tmp_path):
    """``--system-column model --systems c,a``: two of a long file's systems, A first;
    the same as the plain comparison of their scores."""
    rng = np.random.default_rng(21)
    n = 80
    score = {m: (rng.random(n) < p).astype(int) for m, p in (("a", .5), ("b", .6), ("c", .7))}
    long = tmp_path / "long.csv"
    long.write_text("qid,model,acc\n" + "".join(
        f"q{i},{m},{score[m][i]}\n" for m in score for i in range(n)))
    got = _json(long, "--system-column", "model", "--id", "qid", "--score", "acc",
                "--systems", "c,a")
    plain = pairboot.compare(score["c"], score["a"], seed=7, n_resamples=2000)
    assert got["confidence_interval"] == plain.confidence_interval._asdict()
    assert any("the rows of b are not" in note for note in got["notes"])
    assert_one_line_error(run_in_process("compare", long, "--system-column", "model",
                                         "--id", "qid", "--score", "acc", "--systems", "c,x"),
                          "names no system 'x'")


def test_wmt_da_file_on_the_command_line(tmp_path):
    """``--from wmt`` on a WMT DA file: one line saying it is one, asking for --score;
    with --score z, two systems on the segments both were rated on (--log-option
    unrated=drop) compare as their z-scores do."""
    rng = np.random.default_rng(4)
    sids = [f"doc{d}_{k}" for d in range(60) for k in range(4)]
    z = {name: rng.normal(0, 1, len(sids)).round(4) for name in ("SysA.1", "SysB.2")}
    rated = {"SysA.1": range(0, 200), "SysB.2": range(40, 240)}
    da = tmp_path / "ad-seg-scores-en-de.csv"
    da.write_text("SYS SID RAW.SCR Z.SCR N \n" + "".join(
        f"{name} {sids[i]} {50 + 10 * z[name][i]:.2f} {z[name][i]} 2 \n"
        for name in z for i in rated[name]))
    err = assert_one_line_error(run_in_process("compare", da, "--from", "wmt"),
                                str(da), "WMT DA segment-score file", "--score")
    assert "tab-separated" not in err
    assert_one_line_error(run_in_process("compare", da, "--from", "wmt", "--score", "z"),
                          "--log-option unrated=drop")
    got = _json(da, "--from", "wmt", "--score", "z", "--log-option", "unrated=drop",
                "--group", "doc")
    both = range(40, 200)
    plain = pairboot.compare(z["SysA.1"][both], z["SysB.2"][both], seed=7, n_resamples=2000,
                             groups=[sids[i].rpartition("_")[0] for i in both])
    assert got["confidence_interval"] == plain.confidence_interval._asdict()
    assert got["n_items"] == 160 and got["n_groups"] == 40


def test_mt_logs_on_the_command_line(tmp_path):
    """docs/harnesses/mt.md: --from wmt (documents as groups), --from comet, and
    --from sacrebleu (corpus BLEU on every resample), each equal to the same data given
    as a table."""
    rng = np.random.default_rng(11)
    docs = [f"doc{d}" for d in range(25) for _ in range(3)]
    segs = [s % 3 + 1 for s in range(75)]
    scores = {name: rng.random(75).round(4) for name in ("SysA.1", "SysB.2", "SysC.3")}
    wmt = tmp_path / "chrF.seg.score.tsv"
    wmt.write_text("".join(
        f"chrF\ten-de\tnewstest2020\tnewstest2020\t{name}\t{d}\t{s}\t{v}\n"
        for name, values in scores.items() for d, s, v in zip(docs, segs, values)))
    got = _json(wmt, "--from", "wmt", "--score", "chrF", "--systems", "SysA.1,SysB.2",
                "--group", "doc")
    csv = tmp_path / "wmt.csv"
    csv.write_text("id,doc,a,b\n" + "".join(
        f"{d}:{s},{d},{x},{y}\n" for d, s, x, y in zip(docs, segs, scores["SysA.1"],
                                                      scores["SysB.2"])))
    plain = _json(csv, "--a", "a", "--b", "b", "--id", "id", "--group", "doc")
    assert got["confidence_interval"] == plain["confidence_interval"]
    assert got["n_groups"] == 25

    comet = tmp_path / "comet.txt"
    lines = [f"{s}\tSegment {i}\tscore: {scores[s][i]:.4f}" for i in range(75)
             for s in ("SysA.1", "SysB.2")]
    lines += [f"{s}\tscore: {scores[s].mean():.4f}" for s in ("SysA.1", "SysB.2")]
    comet.write_text("\n".join(lines) + "\n")
    got = _json(comet, "--from", "comet", "--systems", "SysA.1,SysB.2")
    plain = pairboot.compare(scores["SysA.1"], scores["SysB.2"], seed=7, n_resamples=2000)
    assert got["confidence_interval"] == plain.confidence_interval._asdict()
    comet.write_text("\n".join(lines[:-3]) + "\n")  # cut short: the totals disagree
    assert_one_line_error(run_in_process("compare", comet, "--from", "comet", "--systems",
                                         "SysA.1,SysB.2"), str(comet))


def test_sacrebleu_on_the_command_line(tmp_path):
    sacrebleu = pytest.importorskip("sacrebleu")
    rng = np.random.default_rng(12)
    words = "the a cat dog sat on mat and ran fast slow house".split()
    refs = [" ".join(rng.choice(words, rng.integers(4, 12))) for _ in range(60)]
    hyps = {name: [" ".join(w if rng.random() < keep else rng.choice(words)
                            for w in r.split()) for r in refs]
            for name, keep in (("hyp_a.txt", 0.6), ("hyp_b.txt", 0.8))}
    (tmp_path / "ref.txt").write_text("\n".join(refs) + "\n")
    for name, lines in hyps.items():
        (tmp_path / name).write_text("\n".join(lines) + "\n")
    proc = run_in_process("compare", tmp_path / "ref.txt", "--from", "sacrebleu",
                          "--systems", f"{tmp_path / 'hyp_a.txt'},{tmp_path / 'hyp_b.txt'}",
                          "--seed", "7", "--resamples", "500", "--format", "json",
                          "--no-progress")
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    corpus = [sacrebleu.corpus_bleu(hyps[n], [refs]).score for n in ("hyp_a.txt", "hyp_b.txt")]
    assert got["metric"] == "bleu"
    assert got["estimate"] == pytest.approx(corpus[1] - corpus[0], abs=1e-9)


def _inspect_logs(tmp_path):
    """An .eval log (model/a) and a JSON log (model/b) of 60 samples, two epochs each,
    C/I/P values and a metadata ``subject``; their values (items x epochs) and subjects."""
    rng = np.random.default_rng(13)
    n = 60
    subjects = rng.choice(["math", "law", "art"], n)
    values = {m: rng.choice(["C", "I", "P"], (n, 2), p=[p, 0.8 - p, 0.2])
              for m, p in (("model/a", 0.4), ("model/b", 0.55))}
    inspect_log(tmp_path / "a.eval", "model/a", values["model/a"].tolist(), subjects)
    inspect_log(tmp_path / "b.json", "model/b", values["model/b"].tolist(), subjects)
    numbers = {m: np.vectorize({"C": 1.0, "I": 0.0, "P": 0.5}.get)(v)
               for m, v in values.items()}
    return tmp_path / "a.eval", tmp_path / "b.json", numbers, subjects


def test_inspect_logs_on_the_command_line(tmp_path):
    """docs/harnesses/inspect.md: an .eval log and a JSON log, recognised without --from,
    epochs averaged, a metadata field as the stratum; equal to the same scores as a CSV."""
    a_log, b_log, numbers, subjects = _inspect_logs(tmp_path)
    got = _json(a_log, b_log, "--score", "match", "--stratum", "subject")
    mean = {m: v.mean(axis=1) for m, v in numbers.items()}
    csv = tmp_path / "quiz.csv"
    csv.write_text("id,subject,a,b\n" + "".join(
        f"{i + 1},{s},{float(x)!r},{float(y)!r}\n" for i, (s, x, y) in enumerate(
            zip(subjects, mean["model/a"], mean["model/b"]))))
    plain = _json(csv, "--a", "a", "--b", "b", "--id", "id", "--stratum", "subject")
    assert got["confidence_interval"] == plain["confidence_interval"]
    proc = run_in_process("compare", a_log, b_log, "--score", "nope", "--no-progress")
    assert_one_line_error(proc, "a.eval", "nope")


def test_inspect_epochs_as_samples(tmp_path):
    """--runs samples: Inspect's epochs are the sampled generations, with no conversion."""
    a_log, b_log, numbers, _ = _inspect_logs(tmp_path)
    got = _json(a_log, b_log, "--score", "match", "--runs", "samples")
    res = pairboot.compare(numbers["model/a"], numbers["model/b"], runs="samples", seed=7,
                           n_resamples=2000)
    assert got["confidence_interval"] == res.confidence_interval._asdict()
    assert got["runs"]["kind"] == "samples" and got["runs"]["runs_a"] == 2
    proc = run_in_process("compare", a_log, b_log, "--score", "match", "--runs", "seeds",
                          "--no-progress")
    assert_one_line_error(proc, "--run")

"""The Inspect AI log reader: JSON and .eval logs written here, shaped like real ones.

The fixtures follow inspect_ai's layout (``log/_log.py``, ``log/_recorders/eval.py``):
a JSON log is ``{"version", "status", "eval", ..., "samples"}``; a .eval log is a zip of
``_journal/start.json``, ``samples/<id>_epoch_<n>.json``, ``summaries.json`` and
``header.json``.  The real logs of shared/data/real/inspect/ (``../shared`` beside the
checkout) are read only when present (the skip says why not).
"""

from __future__ import annotations

import csv
import json
import zipfile

import numpy as np
import pytest
from helpers import real_data, run_in_process

import pairboot
from pairboot.errors import InputError
from pairboot.io import harness, read_table
from pairboot.io.harness import inspect_log

MODEL = "openai/gpt-4o-mini"


# --- fixtures ----------------------------------------------------------------------------


def sample(sid, value=None, *, scorer="match", epoch=1, metadata=None, error=None,
           scores=None):
    """An EvalSample as Inspect writes it (the fields the reader uses, and a few others)."""
    if scores is None:
        scores = {} if value is None else {scorer: {"value": value, "answer": "Yes"}}
    out = {"id": sid, "epoch": epoch, "input": f"question {sid}", "target": "Yes",
           "messages": [], "scores": scores, "metadata": metadata or {}, "store": {},
           "events": [], "model_usage": {}, "attachments": {}}
    if error is not None:
        out["error"] = {"message": error, "traceback": "", "traceback_ansi": ""}
    return out


def spec(model=MODEL, epochs=1, reducer=("mean",)):
    return {"run_id": "r1", "created": "2025-02-11T15:18:04-05:00", "task": "popularity",
            "task_id": "t1", "dataset": {"name": "popularity", "samples": 10},
            "model": model, "config": {"epochs": epochs, "epochs_reducer": list(reducer)},
            "scorers": [{"name": "match", "options": {}, "metrics": []}]}


def header(eval_spec, status="success"):
    return {"version": 2, "status": status, "eval": eval_spec, "plan": {"steps": []},
            "results": {"total_samples": 0, "completed_samples": 0, "scores": []},
            "stats": {}}


def write_json(path, samples, *, eval_spec=None, status="success"):
    log = header(eval_spec or spec(), status)
    log["samples"] = samples
    path.write_text(json.dumps(log, indent=2))
    return path


def write_eval(path, samples, *, eval_spec=None, status="success", finished=True):
    head = header(eval_spec or spec(), status)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("_journal/start.json", json.dumps(
            {"version": 2, "eval": head["eval"], "plan": head["plan"]}))
        for s in samples:
            z.writestr(f"samples/{s['id']}_epoch_{s['epoch']}.json", json.dumps(s))
        if finished:
            summaries = [{k: s[k] for k in ("id", "epoch", "input", "target", "scores")}
                         for s in samples]
            z.writestr("summaries.json", json.dumps(summaries))
            z.writestr("header.json", json.dumps(head, indent=2))
    return path


WRITERS = {"json": write_json, "eval": write_eval}


@pytest.fixture(params=sorted(WRITERS))
def log(request, tmp_path):
    """Write a log in each format: ``log(samples, **kwargs) -> path``."""
    writer = WRITERS[request.param]
    return lambda samples, name="run", **kw: writer(
        tmp_path / f"{name}.{request.param}", samples, **kw)


def read(path, **options):
    return harness.read(str(path), format="inspect", **options)


def error_of(path, **options) -> InputError:
    """The InputError reading ``path`` raises, checked to be one line naming the file."""
    with pytest.raises(InputError) as info:
        read(path, **options)
    text = str(info.value)
    assert text.startswith(f"{path}: ") and "\n" not in text, text
    return info.value


# --- values ------------------------------------------------------------------------------


def test_letters_words_and_numbers_map_as_inspect_does(log):
    raw = ["C", "I", "P", "N", "yes", "No", "TRUE", "false", "0.25", True, False, 3, 0.5]
    path = log([sample(i + 1, v) for i, v in enumerate(raw)])
    got = read(path)
    assert got.systems[MODEL].tolist() == [1, 0, .5, 0, 1, 0, 1, 0, .25, 1, 0, 3, .5]
    assert got.ids.tolist() == [str(i + 1) for i in range(len(raw))]
    assert got.format == "inspect" and got.score == "match" and got.metric == "mean"
    assert "scorer 'match' (the log's only one)" in got.notes
    assert any("C=1 (1)" in n and "P=0.5 (1)" in n for n in got.notes)


def test_ids_as_text_in_inspects_order(log):
    path = log([sample(10, "C"), sample(9, "I"), sample("b", "C"), sample("a", "I")])
    assert read(path).ids.tolist() == ["9", "10", "a", "b"]


@pytest.mark.parametrize("value", ["c", "maybe", "inf", [1, 0]])
def test_a_value_without_a_number_is_refused(log, value):
    path = log([sample(1, "C"), sample(7, value)])
    message = str(error_of(path))
    assert "sample 7 (epoch 1)" in message and "'match'" in message


def test_nan_and_null_values_are_unscored(tmp_path):
    path = write_json(tmp_path / "nan.json", [sample(1, "C"), sample(2, float("nan")),
                                              sample(3, None, scores={"match": {"value": None}})])
    assert "sample 2 (epoch 1) has no 'match' score" in str(error_of(path))
    assert read(path, missing="skip").ids.tolist() == ["1"]


# --- scorers -----------------------------------------------------------------------------


def two_scorers(sid, a, b):
    return sample(sid, scores={"match": {"value": a}, "includes": {"value": b}})


def test_several_scorers_need_a_choice(log):
    path = log([two_scorers(1, "C", "I"), two_scorers(2, "I", "I")])
    err = error_of(path)
    assert err.param == "score" and "'match', 'includes'" in str(err)
    assert read(path, score="includes").systems[MODEL].tolist() == [0, 0]
    chosen = read(path, score="match")
    assert chosen.systems[MODEL].tolist() == [1, 0] and chosen.score == "match"
    assert any("also has 'includes'" in n for n in chosen.notes)
    unknown = error_of(path, score="exact")
    assert unknown.param == "score" and "no scorer 'exact'" in str(unknown)


def test_a_dict_value_needs_its_key(log):
    path = log([sample(1, {"acc": 1, "f1": 0.5}), sample(2, {"acc": 0, "f1": 0.25})])
    assert "score='match/acc'" in str(error_of(path))
    got = read(path, score="match/f1")
    assert got.systems[MODEL].tolist() == [0.5, 0.25] and got.score == "match/f1"
    assert "score='match'" in str(error_of(log([sample(1, "C")], "plain"), score="match/acc"))


def test_a_log_without_scores_is_refused(log):
    message = str(error_of(log([sample(1), sample(2)])))
    assert "holds no scores" in message


# --- epochs ------------------------------------------------------------------------------


def test_epochs_are_averaged_and_counted(log):
    path = log([sample(s, v, epoch=e) for s, vals in ((1, "CIC"), (2, "III"))
                for e, v in enumerate(vals, 1)], eval_spec=spec(epochs=3))
    got = read(path)
    np.testing.assert_allclose(got.systems[MODEL], [2 / 3, 0])
    assert "3 epochs per sample, averaged" in got.notes


def test_epochs_kept_as_trials_are_not_said_averaged(log):
    path = log([sample(s, v, epoch=e) for s, vals in ((1, "CIC"), (2, "III"))
                for e, v in enumerate(vals, 1)], eval_spec=spec(epochs=3))
    notes = read(path, epochs="runs").notes
    assert "3 epochs per sample, each kept as a trial (for `runs='samples'`)" in notes
    assert not [n for n in notes if "averaged" in n]
    uneven = log([sample(1, "C", epoch=1), sample(1, "I", epoch=2), sample(2, "C", epoch=1)],
                 eval_spec=spec(epochs=2))
    note = next(n for n in read(uneven, epochs="runs").notes if "epochs" in n)
    assert note == ("unequal epochs per sample (2 for 1, 1 for 1 samples), each kept as a "
                    "trial (for `runs='samples'`)")


def test_unequal_epochs_and_another_reducer_are_said(log):
    samples = [sample(1, "C", epoch=1), sample(1, "I", epoch=2), sample(2, "C", epoch=1)]
    got = read(log(samples, eval_spec=spec(epochs=2, reducer=("mode",))))
    assert got.systems[MODEL].tolist() == [0.5, 1.0]
    note = next(n for n in got.notes if "epochs" in n)
    assert "unequal epochs per sample (2 for 1, 1 for 1 samples)" in note
    assert "epochs_reducer is mode" in note


def test_a_repeated_epoch_is_refused(tmp_path):
    path = write_json(tmp_path / "dup.json", [sample(1, "C"), sample(1, "I")])
    assert "sample 1 epoch 1 appears twice" in str(error_of(path))


# --- metadata ----------------------------------------------------------------------------


def test_metadata_serves_as_stratum_and_group(log):
    path = log([sample(i, "C" if i % 2 else "I",
                       metadata={"subject": "math" if i < 3 else "art", "doc": i // 2})
                for i in range(1, 5)])
    got = read(path, stratum="subject", group="doc")
    assert got.strata.tolist() == ["math", "math", "art", "art"]
    assert got.groups.tolist() == ["0", "1", "1", "2"]
    assert any("strata: metadata 'subject' (2 strata)" == n for n in got.notes)
    err = error_of(path, stratum="level")
    assert err.param == "stratum" and "sample 1 has no metadata field 'level'" in str(err)


# --- missing scores and errors -----------------------------------------------------------


def test_missing_scores_are_refused_unless_told(log):
    path = log([sample(1, "C"), sample(2, "C", epoch=1), sample(2, None, epoch=2),
                sample(3, None, error="model timed out")])
    message = str(error_of(path))
    assert "sample 2 (epoch 2) has no 'match' score" in message
    assert "samples 2, 3" in message and "missing='wrong'" in message
    wrong = read(path, missing="wrong")
    assert wrong.ids.tolist() == ["1", "2", "3"] and wrong.systems[MODEL].tolist() == [1, .5, 0]
    assert any("2 sample epochs without a 'match' score (1 stopped by an error)" in n
               and "counted as 0" in n for n in wrong.notes)
    skip = read(path, missing="skip")
    assert skip.ids.tolist() == ["1", "2"] and skip.systems[MODEL].tolist() == [1, 1]
    assert any("1 sample with no score left dropped" in n for n in skip.notes)


def test_an_error_sample_is_refused_even_with_a_score(tmp_path):
    path = write_eval(tmp_path / "e.eval", [sample(1, "C"), sample(4, "C", error="boom")])
    assert "sample 4 (epoch 1) stopped on an error" in str(error_of(path))
    with pytest.raises(InputError, match="`missing` must be one of"):
        read(path, missing="zero")


# --- broken files and detection ----------------------------------------------------------


def test_malformed_and_truncated_logs_give_one_line(tmp_path):
    good = write_json(tmp_path / "good.json", [sample(i, "C") for i in range(1, 20)])
    cut = tmp_path / "cut.json"
    cut.write_bytes(good.read_bytes()[:500])
    assert "malformed JSON at line" in str(error_of(cut)) and "truncated" in str(error_of(cut))
    z = write_eval(tmp_path / "good.eval", [sample(i, "C") for i in range(1, 20)])
    short = tmp_path / "short.eval"
    short.write_bytes(z.read_bytes()[: z.stat().st_size // 2])
    assert "truncated or damaged" in str(error_of(short))
    other = tmp_path / "results.json"
    other.write_text(json.dumps({"results": {"arc": {"acc": 0.5}}, "versions": {}}))
    assert "not an Inspect log" in str(error_of(other))
    empty = tmp_path / "empty.json"
    empty.write_text("")
    assert "empty file" in str(error_of(empty))


def test_broken_members_of_an_eval_zip(tmp_path):
    plain = tmp_path / "plain.eval"
    with zipfile.ZipFile(plain, "w") as z:
        z.writestr("data.csv", "a,b\n")
    assert "not an Inspect .eval log" in str(error_of(plain))
    bad = tmp_path / "bad.eval"
    with zipfile.ZipFile(bad, "w") as z:
        z.writestr("header.json", json.dumps(header(spec())))
        z.writestr("samples/1_epoch_1.json", '{"id": 1, "epoch": ')
    assert "samples/1_epoch_1.json: malformed JSON" in str(error_of(bad))
    none = write_eval(tmp_path / "none.eval", [])
    assert "holds no samples" in str(error_of(none))


def test_an_unfinished_eval_log_is_read_from_its_journal(tmp_path):
    path = write_eval(tmp_path / "run.eval", [sample(1, "C"), sample(2, "I")],
                      finished=False)
    got = read(path)
    assert got.systems[MODEL].tolist() == [1, 0]
    assert any("no header.json" in n for n in got.notes)


def test_detection(tmp_path):
    assert inspect_log.detect(write_json(tmp_path / "a.json", [sample(1, "C")]))
    assert inspect_log.detect(write_eval(tmp_path / "a.eval", [sample(1, "C")]))
    reordered = tmp_path / "sorted.json"
    reordered.write_text(json.dumps({**header(spec()), "samples": []}, sort_keys=True))
    assert inspect_log.detect(reordered)
    for path in (tmp_path / "a.json", tmp_path / "a.eval", reordered):  # (may_be_log too)
        assert harness.detect(path) == "inspect", path
    table = tmp_path / "scores.csv"
    table.write_text("id,score\n1,0.5\n")
    other = tmp_path / "results.json"
    other.write_text(json.dumps({"results": {}, "eval": "not an object"}))
    plain = tmp_path / "data.zip"
    with zipfile.ZipFile(plain, "w") as z:
        z.writestr("header.json", "{}")
    cut = tmp_path / "cut.eval"
    cut.write_bytes((tmp_path / "a.eval").read_bytes()[:100])
    for path in (table, other, plain, cut, tmp_path, tmp_path / "absent.json"):
        assert not inspect_log.detect(path), path


# --- the same comparison from logs and from a table --------------------------------------


def test_two_logs_and_a_csv_give_the_same_interval(tmp_path):
    rng = np.random.default_rng(5)
    n = 40
    a = rng.random(n) < 0.6
    b = rng.random(n) < 0.75
    ids = [f"q{i:02d}" for i in range(n)]
    write_eval(tmp_path / "a.eval", [sample(s, "C" if x else "I") for s, x in zip(ids, a)])
    write_json(tmp_path / "b.json", [sample(s, "C" if x else "I") for s, x in zip(ids, b)],
               eval_spec=spec(model="anthropic/claude-sonnet-4-0"))
    reads = [harness.read(str(tmp_path / f), format="inspect", score="match")
             for f in ("a.eval", "b.json")]
    joined = harness.join(reads)
    assert joined.names == (MODEL, "anthropic/claude-sonnet-4-0")
    from_logs = pairboot.compare(joined.values[0], joined.values[1], seed=1)

    table = tmp_path / "scores.csv"
    with open(table, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["id", "a", "b"])
        out.writerows(zip(ids, a.astype(int), b.astype(int)))
    t = read_table(table)
    col = {name: [float(v) for v in t.column(name)] for name in ("a", "b")}
    from_csv = pairboot.compare(np.array(col["a"]), np.array(col["b"]), seed=1)
    assert from_logs.confidence_interval == from_csv.confidence_interval
    assert from_logs.estimate == from_csv.estimate


def test_logs_of_one_model_and_one_file_name_are_told_apart(tmp_path):
    """Two runs' logs, both ``log.eval`` of one model in their own folders: the systems
    are named by model and folder (it said "name each once"); on the command line too."""
    from helpers import inspect_log as make_log  # noqa: PLC0415 (the module's name is taken)

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = make_log(tmp_path / "a" / "log.eval", MODEL, [["C"], ["I"], ["C"]] * 10)
    second = make_log(tmp_path / "b" / "log.eval", MODEL, [["I"], ["I"], ["C"]] * 10)
    joined = harness.join([harness.read(str(p), format="inspect") for p in (first, second)])
    assert joined.names == (f"{MODEL} ({first})", f"{MODEL} ({second})")
    proc = run_in_process("compare", first, second, "--resamples", "400", "--seed", "1",
                          "--no-progress")
    assert proc.returncode == 0, proc.stderr
    assert f"{MODEL} ({second})" in proc.stdout.decode()
    same = harness.read(str(first), format="inspect")
    with pytest.raises(InputError, match="one log given twice"):
        harness.join([same, same])


# --- the real logs, when present ---------------------------------------------------------


def test_the_real_logs():
    real = real_data("inspect")
    scored = real / "2025-02-11T15-18-04-05-00_popularity_mj7khqpMM4GBCfVQozKgzB.eval"
    got = harness.read(str(scored), format="inspect")
    assert list(got.systems) == [MODEL] and got.n_items == 10
    assert got.systems[MODEL].mean() == pytest.approx(0.8)  # the header's accuracy
    unscored = real / "2025-02-11T15-17-00-05-00_popularity_dPiJifoWeEQBrfWsAopzWr.eval"
    assert "holds no scores" in str(error_of(unscored))
    qwen, sonnet = (harness.read(str(real / f"every_eval_ever_data_arc_{m}.json"),
                                 format="inspect") for m in ("qwen", "sonnet"))
    assert (qwen.n_items, sonnet.n_items, qwen.score) == (3, 5, "choice")
    with pytest.raises(InputError, match="do not score the same items"):
        harness.join([qwen, sonnet])
    assert all(inspect_log.detect(str(p)) and harness.detect(str(p)) == "inspect"
               for p in real.iterdir() if p.is_file())

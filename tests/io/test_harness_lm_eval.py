"""The lm-evaluation-harness reader: samples files and output directories as per-item scores.

Fixtures are written here, shaped like lm-eval's ``--log_samples`` output (see
``lm_eval/loggers/evaluation_tracker.py``: ``samples_<task>_<time>.jsonl`` and
``results_<time>.json`` in ``<output_path>/<model_name_sanitized>/``).  One test reads the
real files of shared/data/real/lm_eval (``../shared`` beside the checkout) when they are there.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import numpy as np
import pytest
from helpers import PROJECT_ROOT, real_data

import pairboot
from pairboot.errors import InputError
from pairboot.io import align, harness, read_table
from pairboot.io.harness import lm_eval

T1 = "2026-01-16T20-57-28.313639"
T2 = "2026-01-16T21-18-16.842863"


def sample(doc_id, filter="none", **metrics):
    """One logged sample, with the fields lm-eval writes around the metrics."""
    return {"doc_id": doc_id, "doc": {"question": f"q{doc_id}"}, "target": "1",
            "arguments": {"gen_args_0": {"arg_0": "prompt", "arg_1": " A"}},
            "resps": [[["-1.5", "False"]]], "filtered_resps": [["-1.5", "False"]],
            "filter": filter, "metrics": list(metrics), "doc_hash": "d",
            "prompt_hash": "p", "target_hash": "t", **metrics}


def write_samples(folder, task, time, rows, tail="\n"):
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"samples_{task}_{time}.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + tail, encoding="utf-8")
    return path


def write_results(folder, time, tasks, *, model="org/model-7b", shots=0, name=None,
                  metric_list=None, reported=None):
    """A results file: ``tasks`` maps each task to its number of docs."""
    results = {t: {"alias": t, **(reported or {})} for t in tasks}
    configs = {t: {"task": t, "num_fewshot": shots,
                   "metric_list": metric_list or [{"metric": "acc", "aggregation": "mean",
                                                   "higher_is_better": True}]}
               for t in tasks}
    data = {"results": results, "configs": configs, "versions": {t: 1 for t in tasks},
            "n-shot": {t: shots for t in tasks},
            "higher_is_better": {t: {"acc": True} for t in tasks},
            "n-samples": {t: {"original": n, "effective": n} for t, n in tasks.items()},
            "config": {"model": "hf", "model_args": {"pretrained": model}},
            "model_name": model, "model_name_sanitized": model.replace("/", "__")}
    path = Path(folder) / (name or f"results_{time}.json")
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def acc_rows(values, **extra):
    return [sample(i, acc=float(v), **extra) for i, v in enumerate(values)]


# --- one samples file ------------------------------------------------------------------


def test_single_file_reads_doc_ids_and_names_the_model(tmp_path):
    path = write_samples(tmp_path, "boolq", T1, acc_rows([1, 0, 1, 1]))
    write_results(tmp_path, T1, {"boolq": 4}, shots=5)
    s = lm_eval.read(path)
    assert s.format == "lm-eval" and s.metric == "mean" and s.score == "acc"
    assert s.ids.tolist() == ["0", "1", "2", "3"] and s.strata is None
    assert list(s.systems) == ["org/model-7b 5-shot"]
    assert s.systems["org/model-7b 5-shot"].tolist() == [1.0, 0.0, 1.0, 1.0]
    assert any("only per-sample numeric metric" in n for n in s.notes)


def test_without_results_file_the_file_names_the_system(tmp_path):
    path = write_samples(tmp_path, "boolq", T1, acc_rows([1, 0]))
    s = harness.read(path, "lm-eval")
    assert list(s.systems) == [tmp_path.name]
    assert any("no results file" in n for n in s.notes)


def test_results_file_found_by_timestamp_under_another_name(tmp_path):
    path = write_samples(tmp_path, "boolq", T1, acc_rows([1, 0]))
    write_results(tmp_path, T1, {"boolq": 2}, model="a/b", name=f"boolq_0shot_{T1}.json")
    write_results(tmp_path, T2, {"boolq": 2}, model="c/d")  # another run's
    assert list(lm_eval.read(path).systems) == ["a/b 0-shot"]


def test_metric_choice_and_errors(tmp_path):
    rows = [sample(i, acc=i % 2, acc_norm=1.0) for i in range(3)]
    path = write_samples(tmp_path, "hellaswag", T1, rows)
    with pytest.raises(InputError, match=r"several metrics \(acc, acc_norm\)") as err:
        lm_eval.read(path)
    assert err.value.param == "score" and str(path) in str(err.value)
    assert lm_eval.read(path, score="acc_norm").systems[tmp_path.name].tolist() == [1, 1, 1]
    assert lm_eval.read(path, score="acc").systems[tmp_path.name].tolist() == [0, 1, 0]
    with pytest.raises(InputError, match=r"no metric 'exact_match' .*acc, acc_norm"):
        lm_eval.read(path, score="exact_match")
    with pytest.raises(InputError, match="takes no option `metric`"):
        harness.read(path, "lm-eval", metric="acc")


def test_filters_choose_rows(tmp_path):
    rows = [sample(i, "strict-match", exact_match=0.0) for i in range(3)]
    rows += [sample(i, "flexible-extract", exact_match=1.0) for i in range(3)]
    path = write_samples(tmp_path, "gsm8k", T1, rows)
    with pytest.raises(InputError, match="several filters .*'strict-match', "
                                         "'flexible-extract'.*`filter`") as err:
        lm_eval.read(path)
    assert err.value.param == "filter"
    s = lm_eval.read(path, filter="flexible-extract")
    assert s.systems[tmp_path.name].tolist() == [1.0, 1.0, 1.0] and s.n_items == 3
    assert any("skipped 3 rows" in n for n in s.notes)
    with pytest.raises(InputError, match="no filter 'none'"):
        lm_eval.read(path, filter="none")


def test_a_single_filter_is_read_whatever_filter_says_and_noted(tmp_path):
    path = write_samples(tmp_path, "boolq", T1, acc_rows([1, 0]))
    s = lm_eval.read(path, filter="strict-match")
    assert s.n_items == 2 and any("logs only filter 'none'" in n for n in s.notes)


# --- directories -------------------------------------------------------------------------


def make_run(root, model, tasks, *, time=T1, shots=0):
    """lm-eval's layout: ``root/<model_name_sanitized>/samples_*`` and ``results_*``."""
    folder = Path(root) / model.replace("/", "__")
    for task, values in tasks.items():
        write_samples(folder, task, time, acc_rows(values))
    write_results(folder, time, {t: len(v) for t, v in tasks.items()}, model=model,
                  shots=shots)
    return Path(root)


def test_directory_reads_every_task_as_strata_and_the_latest_run(tmp_path):
    root = make_run(tmp_path / "a", "org/m", {"arc": [1, 1, 0], "boolq": [0, 1]})
    make_run(root, "org/m", {"boolq": [1, 1]}, time=T2)  # a later run of boolq
    s = lm_eval.read(root)
    assert s.ids.tolist() == ["arc/0", "arc/1", "arc/2", "boolq/0", "boolq/1"]
    assert s.strata.tolist() == ["arc"] * 3 + ["boolq"] * 2
    assert s.systems["org/m 0-shot"].tolist() == [1, 1, 0, 1, 1]
    assert any("boolq: 2 runs; read the latest" in n and T2 in n for n in s.notes)
    only = lm_eval.read(root, tasks=["boolq"])
    assert only.ids.tolist() == ["0", "1"] and only.strata is None
    with pytest.raises(InputError, match="no task 'mmlu' .*arc, boolq") as err:
        lm_eval.read(root, tasks=["mmlu"])
    assert err.value.param == "tasks"


def test_flat_directory_and_fallback_name(tmp_path):
    write_samples(tmp_path / "flat", "arc", T1, acc_rows([1, 0]))
    write_samples(tmp_path / "flat", "boolq", T1, acc_rows([0]))
    s = lm_eval.read(tmp_path / "flat")
    assert list(s.systems) == ["flat"] and s.n_items == 3


def test_directory_of_several_models_is_refused(tmp_path):
    make_run(tmp_path, "org/m1", {"arc": [1]})
    make_run(tmp_path, "org/m2", {"arc": [1]})
    with pytest.raises(InputError, match="several models .*org__m1, org__m2"):
        lm_eval.read(tmp_path)


def test_tasks_with_different_metrics_need_a_choice(tmp_path):
    write_samples(tmp_path, "arc", T1, acc_rows([1]))
    write_samples(tmp_path, "gsm8k", T1, [sample(0, exact_match=1.0)])
    with pytest.raises(InputError, match="metrics differ .*arc: acc, gsm8k: exact_match"):
        lm_eval.read(tmp_path)
    assert lm_eval.read(tmp_path, tasks="gsm8k").score == "exact_match"


def test_common_tasks(tmp_path):
    a = make_run(tmp_path / "a", "org/a", {"arc": [1], "boolq": [1], "piqa": [1]})
    b = make_run(tmp_path / "b", "org/b", {"boolq": [0], "arc": [0], "mmlu": [0]})
    tasks = lm_eval.common_tasks([a, b])
    assert tasks == ["arc", "boolq"]
    assert any("piqa" in n for n in tasks.notes) and any("mmlu" in n for n in tasks.notes)
    c = make_run(tmp_path / "c", "org/c", {"hellaswag": [1]})
    with pytest.raises(InputError, match="share no task"):
        lm_eval.common_tasks([a, c])


# --- detection -------------------------------------------------------------------------


def test_detect(tmp_path):
    path = write_samples(tmp_path / "run", "arc", T1, acc_rows([1]))
    assert lm_eval.detect(path) and lm_eval.detect(tmp_path / "run") and lm_eval.detect(tmp_path)
    assert all(harness.detect(p) == "lm-eval" for p in (path, tmp_path / "run", tmp_path))
    other = tmp_path / "x" / f"scores_{T1}.jsonl"  # right content, wrong name
    other.parent.mkdir()
    other.write_text(path.read_text())
    assert not lm_eval.detect(other) and not lm_eval.detect(other.parent)
    no_id = write_samples(tmp_path / "y", "arc", T1, [{"id": 0, "acc": 1}])
    assert not lm_eval.detect(no_id)
    assert not lm_eval.detect(tmp_path / "missing")


# --- bad logs ----------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "message"), [
    ('{"doc_id": 0, "acc": 1}\n{"doc_id": 1, "ac', r"line 2: truncated"),
    ('{"doc_id": 0, "acc": 1}\n{"doc_id": 1 "acc": 1}\n{"doc_id": 2, "acc": 1}\n',
     r"line 2: not JSON"),
    ('{"doc_id": 0, "acc": 1}\n[1, 2]\n', r"line 2: expected a JSON object"),
    ('{"doc_id": 0, "acc": 1}\n{"acc": 0}\n', r"line 2: no doc_id"),
    ('{"doc_id": 0, "acc": 1}\n{"doc_id": 1, "acc_norm": 0}\n', r"line 2: no metric 'acc'"),
    ('{"doc_id": 0, "acc": 1}\n{"doc_id": 0, "acc": 0}\n',
     r"line 2: doc_id 0 again \(first on line 1\)"),
    ('{"doc_id": 0, "acc": 1}\n{"doc_id": 1, "acc": null}\n', r"line 2: acc is null"),
    ('{"doc_id": 0, "acc": 1}\n{"doc_id": 1, "acc": NaN}\n', r"line 2: acc is nan"),
    ("", r"no samples"),
])
def test_bad_logs_name_the_file_and_line(tmp_path, text, message):
    path = tmp_path / f"samples_arc_{T1}.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message) as err:
        lm_eval.read(path, score="acc")
    assert str(err.value).startswith(f"{path}: ") and "\n" not in str(err.value)


def test_fewer_docs_than_the_results_file_counts(tmp_path):
    path = write_samples(tmp_path, "arc", T1, acc_rows([1, 0, 1]))
    write_results(tmp_path, T1, {"arc": 4})
    with pytest.raises(InputError, match="3 docs, but .* says 4 were evaluated"):
        lm_eval.read(path)


def test_same_doc_id_under_two_filters_is_fine(tmp_path):
    rows = [sample(0, "a", exact_match=1.0), sample(0, "b", exact_match=0.0)]
    path = write_samples(tmp_path, "gsm8k", T1, rows)
    assert lm_eval.read(path, filter="b").systems[tmp_path.name].tolist() == [0.0]


# --- pooled metrics ----------------------------------------------------------------------


def test_list_valued_metric_is_refused_with_the_docs(tmp_path):
    rows = [sample(i, f1=["PER: Ochieng", ["per: ochieng"]]) for i in range(2)]
    path = write_samples(tmp_path, "masakhaner_luo", T1, rows)
    for options in ({}, {"score": "f1"}):
        with pytest.raises(InputError) as err:
            lm_eval.read(path, **options)
        text = str(err.value)
        assert text.startswith(str(path)) and "'f1'" in text and "pooled" in text
        assert "docs/harnesses/lm-eval.md" in text and "Pooled metrics" in text


@pytest.mark.parametrize("metric_list", [
    [{"metric": "mcc", "aggregation": "matthews_corrcoef", "higher_is_better": True}],
    "[{'metric': 'mcc', 'aggregation': 'def agg(items):\\n    return 0\\n'}]",
])
def test_numeric_metric_with_a_pooled_aggregation_is_refused(tmp_path, metric_list):
    path = write_samples(tmp_path, "cola", T1, [sample(i, mcc=1.0) for i in range(2)])
    write_results(tmp_path, T1, {"cola": 2}, metric_list=metric_list)
    with pytest.raises(InputError, match="'mcc' of task cola is pooled .*aggregates it"):
        lm_eval.read(path)


SPANS = [  # (gold, prediction): tp, fp, fn
    ("PER: Ochieng $$ LOC: Kisumu", "per: ochieng $ date: 2020", (1, 1, 1)),
    ("DATE: kawuononi", "date: kawuononi", (1, 0, 0)),
    ("DATE: kawuononi", "date: kawuononi.", (0, 1, 1)),  # "." -> " ", kept (as lm-eval)
    ("ORG: KNUT", "none", (0, 0, 1)),
    ("LOC: Nairobi $$ LOC: Nairobi", "loc: nairobi $ loc: nairobi $ loc: nairobi", (2, 1, 0)),
]


def test_span_counts():
    for gold, pred, expected in SPANS:
        assert lm_eval.span_counts(gold, [pred]) == expected


def test_span_f1_counts_are_checked_against_the_reported_f1(tmp_path):
    rows = [sample(i, "flexible-extract", f1=[g, [p]]) for i, (g, p, _) in enumerate(SPANS)]
    path = write_samples(tmp_path, "masakhaner_luo", T1, rows)
    tp, fp, fn = np.sum([c for *_, c in SPANS], axis=0)
    f1 = 2 * tp / (2 * tp + fp + fn)
    n = {"masakhaner_luo": len(SPANS)}
    write_results(tmp_path, T1, n, reported={"f1,flexible-extract": f1},
                  metric_list="[{'metric': 'f1', 'aggregation': 'def span_f1_agg(x): ...'}]")
    s = lm_eval.read(path, counts="span-f1")
    assert (s.metric, s.stats, s.score) == ("f1", ("tp", "fp", "fn"), "f1")
    values = s.systems["org/model-7b 0-shot"]
    assert values.shape == (len(SPANS), 3) and values.tolist() == [list(c) for *_, c in SPANS]
    assert any("as reported" in n for n in s.notes)
    write_results(tmp_path, T1, n, reported={"f1,flexible-extract": 0.5})
    with pytest.raises(InputError, match=f"give F1 {f1:.5f} but .* reported 0.50000") as err:
        lm_eval.read(path, counts="span-f1")
    assert err.value.param == "counts"
    with pytest.raises(InputError, match="`counts` must be one of span-f1"):
        lm_eval.read(path, counts="bleu")


def test_span_counts_need_gold_and_predictions(tmp_path):
    path = write_samples(tmp_path, "arc", T1, acc_rows([1]))
    with pytest.raises(InputError, match=r"no \[gold, predictions\] field"):
        lm_eval.read(path, counts="span-f1")
    with pytest.raises(InputError, match=r"line 1: acc is not \[gold, predictions\]"):
        lm_eval.read(path, counts="span-f1", score="acc")


# --- the same comparison from lm-eval logs and from a CSV --------------------------------


def test_logs_and_csv_give_the_same_comparison(tmp_path):
    rng = np.random.default_rng(7)
    tasks = {"arc": 40, "boolq": 35, "piqa": 30}
    a_vals = {t: rng.integers(0, 2, n) for t, n in tasks.items()}
    b_vals = {t: np.clip(v + rng.integers(0, 2, len(v)), 0, 1) for t, v in a_vals.items()}
    a = make_run(tmp_path / "a", "org/a", {t: v for t, v in a_vals.items() if t != "piqa"})
    b = tmp_path / "b" / "org__b"
    for t, v in b_vals.items():  # B's docs in another order, and a task A lacks
        write_samples(b, t, T2, [sample(i, acc=float(v[i])) for i in reversed(range(len(v)))])
    tasks_both = lm_eval.common_tasks([a, b.parent])
    assert tasks_both == ["arc", "boolq"]
    reads = [harness.read(p, "lm-eval", score="acc", tasks=tasks_both) for p in (a, b.parent)]
    joined = harness.join(reads)
    assert joined.names == ("org/a 0-shot", "org__b")
    options = {"n_resamples": 2000, "seed": 11, "method": "bca"}
    from_logs = pairboot.compare(joined.values[0], joined.values[1], strata=joined.strata,
                                 **options)

    table = tmp_path / "scores.csv"
    with open(table, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "task", "a", "b"])
        for t in tasks_both:
            for i in range(tasks[t]):
                w.writerow([f"{t}/{i}", t, a_vals[t][i], b_vals[t][i]])
    aligned = align([read_table(table)], columns=[["a"], ["b"]], id="id", strata="task")
    from_csv = pairboot.compare(aligned.values[0], aligned.values[1], strata=aligned.strata,
                                **options)
    assert from_logs.estimate == from_csv.estimate
    assert from_logs.confidence_interval == from_csv.confidence_interval
    assert from_logs.p_value == from_csv.p_value
    np.testing.assert_array_equal(from_logs.bootstrap_distribution,
                                  from_csv.bootstrap_distribution)


def test_span_counts_compare_with_metric_f1(tmp_path):
    rng = np.random.default_rng(3)
    gold = [f"PER: p{i} $$ LOC: l{i}" for i in range(40)]
    reads = []
    for name, hit in (("a", 0.3), ("b", 0.6)):
        preds = [f"per: p{i}" if rng.random() < hit else f"per: x{i} $ loc: l{i}"
                 for i in range(40)]
        rows = [sample(i, f1=[g, [p]]) for i, (g, p) in enumerate(zip(gold, preds))]
        reads.append(lm_eval.read(write_samples(tmp_path / name, "ner", T1, rows),
                                  counts="span-f1"))
    joined = harness.join(reads)
    result = pairboot.compare(joined.values[0], joined.values[1], metric=joined.metric,
                              n_resamples=1000, seed=1)
    sums = [v.sum(axis=0) for v in joined.values]
    f1 = [2 * tp / (2 * tp + fp + fn) for tp, fp, fn in sums]
    assert result.estimate == pytest.approx(f1[1] - f1[0])


def docs_block(marker: str) -> str:
    """The Python block after ``marker`` in docs/harnesses/lm-eval.md."""
    text = (PROJECT_ROOT / "docs" / "harnesses" / "lm-eval.md").read_text()
    after = text[text.index(marker):]
    return after[after.index("```python\n") + 10:].split("```", 1)[0]


def test_docs_counts_csv_recipe_matches_the_reader(tmp_path):
    namespace = {}
    exec(docs_block("tested in tests/io/test_harness_lm_eval.py: counts_csv"), namespace)
    rows = [sample(i, "flexible-extract", f1=[g, [p]]) for i, (g, p, _) in enumerate(SPANS)]
    path = write_samples(tmp_path, "ner", T1, rows)
    out = tmp_path / "counts.csv"
    namespace["counts_csv"](path, out)
    aligned = align([read_table(out)], columns=[["tp", "fp", "fn"]], id="id")
    read = lm_eval.read(path, counts="span-f1")
    np.testing.assert_array_equal(aligned.values[0], read.systems[tmp_path.name])
    assert list(aligned.ids) == read.ids.tolist()


def test_docs_counts_csv_on_the_command_line(tmp_path, capsys):
    from pairboot import cli  # noqa: PLC0415

    namespace = {}
    exec(docs_block("tested in tests/io/test_harness_lm_eval.py: counts_csv"), namespace)
    gold = [f"PER: p{i} $$ LOC: l{i}" for i in range(40)]
    csvs = []
    for name, shift in (("zero", 0), ("five", 1)):
        preds = [f"per: p{i}" if (i + shift) % 3 else f"loc: l{i}" for i in range(40)]
        rows = [sample(i, f1=[g, [p]]) for i, (g, p) in enumerate(zip(gold, preds))]
        csvs.append(tmp_path / f"{name}.csv")
        namespace["counts_csv"](write_samples(tmp_path / name, "ner", T1, rows), csvs[-1])
    code = cli.main(["compare", str(csvs[0]), str(csvs[1]), "--id", "id", "--metric", "f1",
                     "--stats", "tp,fp,fn", "--resamples", "500", "--seed", "1"])
    assert code == 0 and "f1" in capsys.readouterr().out.lower()


# --- the real files, when present ----------------------------------------------------------


def test_real_files():
    real = real_data("lm_eval")
    ner = sorted(real.glob("samples_masakhaner_*.jsonl"))
    reads = [lm_eval.read(p, counts="span-f1") for p in ner]
    for r, f1 in zip(reads, (0.02424, 0.07637)):
        tp, fp, fn = next(iter(r.systems.values())).sum(axis=0)
        assert r.n_items == 185 and 2 * tp / (2 * tp + fp + fn) == pytest.approx(f1, abs=5e-6)
    assert [next(iter(r.systems)) for r in reads] == ["google/gemma-2b 0-shot",
                                                       "google/gemma-2b 5-shot"]
    with pytest.raises(InputError, match="pooled"):
        lm_eval.read(ner[0])
    tom = [lm_eval.read(p) for p in sorted(real.glob("samples_negotiationtom_*.jsonl"))]
    joined = harness.join(tom)
    assert len(joined.ids) == 20 and os.path.basename(tom[0].path) in joined.names[0]
    assert joined.names[0].startswith("Qwen/Qwen3-8B 0-shot")
    np.testing.assert_array_equal(joined.values[0], joined.values[1])

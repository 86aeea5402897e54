"""The readers of LLM-evaluation logs: Every Eval Ever instance files (schema 0.2.x and
0.3.x), HELM per-instance stats and promptfoo exports.

The fixtures are written here in the shapes of the real files (evaleval/every_eval_ever's
``instance_level_eval.schema.json`` and its HELM converter's outputs, HELM's
``per_instance_stats.json`` + ``run_spec.json``, promptfoo's ``sample-export.json``);
the real files of shared/data/real are read when present, every score, id, token count,
cost and latency checked against the values read with ``json`` and plain Python here
(the ``every-eval-ever`` package is no test dependency: no oracle but these).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import error, real_data, run_in_process

import pairboot
from pairboot.io import harness

# --- Every Eval Ever ---------------------------------------------------------------------


def eee(sid, score, *, model="org/model-a", task="gsm8k", version="0.2.1", error=None,
        latency=None, gen=120.5, tokens=(100, 7), result_id=None, correct=None):
    """One instance-level record, as the HELM converter writes it (nulls included)."""
    rec = {"schema_version": version, "evaluation_id": "run_samples", "model_id": model,
           "evaluation_name": task, "sample_id": sid, "sample_hash": "ab" * 32,
           "interaction_type": "single_turn",
           "input": {"raw": f"question {sid}", "formatted": None, "reference": ["A"],
                     "choices": ["A", "B"]},
           "output": {"raw": [" A"], "reasoning_trace": []}, "messages": None,
           "answer_attribution": [{"turn_idx": 0, "source": "output.raw",
                                   "extracted_value": "A", "extraction_method": "exact_match",
                                   "is_terminal": True}],
           "evaluation": {"score": score,
                          "is_correct": bool(score) if correct is None else correct,
                          "num_turns": None, "tool_calls_count": None},
           "token_usage": {"input_tokens": tokens[0], "output_tokens": tokens[1],
                           "total_tokens": tokens[0] + tokens[1],
                           "input_tokens_cache_write": None, "input_tokens_cache_read": None,
                           "reasoning_tokens": None},
           "performance": {"latency_ms": latency, "time_to_first_token_ms": None,
                           "generation_time_ms": gen, "additional_details": None},
           "error": error, "metadata": None}
    if result_id is not None:
        rec["evaluation_result_id"] = result_id
    return rec


def write_jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_eee_jsonl_both_versions(tmp_path):
    for version in ("0.2.1", "0.3.0"):
        recs = [eee("id3", 1.0, version=version, gen=680.25, tokens=(333, 1)),
                eee("id1", 0.0, version=version, gen=106.5, tokens=(420, 2)),
                eee("id2", 0.5, version=version, gen=82.0, tokens=(336, 1), correct=False)]
        path = write_jsonl(tmp_path / f"v{version}.jsonl", recs)
        assert harness.detect(path) == "every-eval-ever"
        s = harness.read(path)
        assert s.format == "every-eval-ever"
        assert s.ids.tolist() == ["id3", "id1", "id2"]  # (the file's order)
        assert list(s.systems) == ["org/model-a"]
        assert s.systems["org/model-a"].tolist() == [1.0, 0.0, 0.5]
        cols = s.columns["org/model-a"]
        assert cols["input_tokens"].tolist() == [333, 420, 336]
        assert cols["total_tokens"].tolist() == [334, 422, 337]
        assert cols["generation_time_ms"].tolist() == [680.25, 106.5, 82.0]
        assert cols["is_correct"].tolist() == [1.0, 0.0, 0.0]
        assert "latency_ms" not in cols  # (null in every record: no column)
        assert f"schema version {version}" in s.notes
        assert any("task gsm8k" in n for n in s.notes)
        assert s.outcomes["org/model-a"].tolist() == [None, None, None]


def test_eee_a_json_list_and_other_fields_as_the_score(tmp_path):
    recs = [eee("a", 1.0, latency=250.0), eee("b", 0.0, latency=1250.0)]
    path = tmp_path / "samples.json"
    path.write_text(json.dumps(recs, indent=1))
    assert harness.detect(path) == "every-eval-ever"
    assert harness.read(path, score="latency_ms").systems["org/model-a"].tolist() == \
        [250.0, 1250.0]
    assert harness.read(path, score="is_correct").systems["org/model-a"].tolist() == [1, 0]
    two = harness.read(path, score="score,total_tokens")
    assert two.metric == "custom" and two.stats == ("score", "total_tokens")
    assert two.systems["org/model-a"].tolist() == [[1.0, 107.0], [0.0, 107.0]]
    assert "no field 'cost'" in error(harness.read, path, score="cost")


def test_eee_several_models_and_tasks(tmp_path):
    recs = [eee("1", 1.0, task="mmlu"), eee("2", 0.0, task="mmlu"), eee("1", 1.0, task="arc"),
            eee("1", 0.0, task="mmlu", model="org/b"), eee("2", 1.0, task="mmlu", model="org/b"),
            eee("1", 0.0, task="arc", model="org/b")]
    s = harness.read(write_jsonl(tmp_path / "two.jsonl", recs))
    assert s.ids.tolist() == ["mmlu/1", "mmlu/2", "arc/1"]
    assert s.strata.tolist() == ["mmlu", "mmlu", "arc"]
    assert {k: v.tolist() for k, v in s.systems.items()} == {
        "org/model-a": [1.0, 0.0, 1.0], "org/b": [0.0, 1.0, 0.0]}
    only = harness.read(tmp_path / "two.jsonl", system="org/b", task="mmlu")
    assert list(only.systems) == ["org/b"] and only.ids.tolist() == ["1", "2"]
    assert "no task 'gsm8k'" in error(harness.read, tmp_path / "two.jsonl", task="gsm8k")


def test_eee_v03_result_ids_become_tasks(tmp_path):
    recs = [eee("1", 1.0, version="0.3.0", result_id="acc"),
            eee("1", 0.25, version="0.3.0", result_id="f1")]
    s = harness.read(write_jsonl(tmp_path / "r.jsonl", recs))
    assert s.ids.tolist() == ["gsm8k:acc/1", "gsm8k:f1/1"]
    assert s.systems["org/model-a"].tolist() == [1.0, 0.25]


def test_eee_errors_are_marked(tmp_path):
    recs = [eee("1", 1.0), eee("2", 0.0, error="API timeout"), eee("3", None, error="refusal")]
    recs[2]["evaluation"]["is_correct"] = None
    s = harness.read(write_jsonl(tmp_path / "e.jsonl", recs))
    assert s.outcomes["org/model-a"].tolist() == [None, "error", "error"]
    values = s.systems["org/model-a"]
    assert values[:2].tolist() == [1.0, 0.0] and np.isnan(values[2])
    assert any("2 records with an error" in n and "'API timeout' (1)" in n for n in s.notes)
    # a record without its score and without an error is refused
    bad = [eee("1", None)]
    assert "item '1' of org/model-a has no 'score' (null) and no error" in error(
        harness.read, write_jsonl(tmp_path / "n.jsonl", bad))


@pytest.mark.parametrize("change, message", [
    (lambda r: r.update(schema_version="0.4.0"),
     "schema version '0.4.0' not understood (this reader knows 0.2.x, 0.3.x)"),
    (lambda r: r.update(schema_version="1.0"), "schema version '1.0' not understood"),
    (lambda r: r.pop("schema_version"), "no 'schema_version'"),
    (lambda r: r.pop("sample_id"), "field 'sample_id' is missing, not text"),
    (lambda r: r["evaluation"].update(score="high"), "'evaluation.score' is 'high'"),
    (lambda r: r["token_usage"].update(input_tokens=float("inf")), "not a finite number"),
    (lambda r: r["evaluation"].update(is_correct=1), "is_correct' is 1, not true or false"),
    (lambda r: r.update(error=["x"]), "field 'error'"),
])
def test_eee_bad_records_are_one_line(tmp_path, change, message):
    recs = [eee("1", 1.0), eee("2", 0.0)]
    change(recs[1])
    got = error(harness.read, write_jsonl(tmp_path / "bad.jsonl", recs), "every-eval-ever")
    assert message in got and "line 2" in got and "\n" not in got


def test_eee_aggregate_file_and_no_records(tmp_path):
    agg = {"schema_version": "0.2.2", "evaluation_id": "helm/mmlu/gpt2/1",
           "retrieved_timestamp": "1700000000", "source_metadata": {},
           "model_info": {"name": "gpt2", "id": "openai/gpt2"},
           "eval_library": {"name": "helm", "version": "unknown"},
           "evaluation_results": [{"evaluation_name": "mmlu", "score_details": {"score": 0.1}}]}
    path = tmp_path / "aggregate.json"
    path.write_text(json.dumps(agg, indent=2))
    assert harness.detect(path) == "every-eval-ever"
    got = error(harness.read, path)
    assert "aggregate Every Eval Ever file" in got and "no per-item records" in got
    dup = write_jsonl(tmp_path / "dup.jsonl", [eee("1", 1.0), eee("1", 0.0)])
    assert "item '1' of org/model-a appears twice (also line 1)" in error(harness.read, dup)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    assert "empty" in error(harness.read, empty, "every-eval-ever")
    plain = write_jsonl(tmp_path / "plain.jsonl", [{"id": 1, "score": 0.5}])
    assert harness.detect(plain) is None


# --- HELM ----------------------------------------------------------------------------------


def stat(name, value, count=1, split="test", perturbation=None):
    key = {"name": name, "split": split}
    if perturbation is not None:
        key["perturbation"] = perturbation
    return {"name": key, "count": count, "sum": value * count, "sum_squared": value ** 2,
            "min": value, "max": value, "mean": value, "variance": 0.0, "stddev": 0.0}


def helm_run(folder, instances, *, model="openai/gpt2", name=None):
    """A HELM run directory: per_instance_stats.json and run_spec.json."""
    folder.mkdir(parents=True, exist_ok=True)
    name = name or ("mmlu:subject=philosophy,method=multiple_choice_joint,model="
                    + model.replace("/", "_"))
    (folder / "run_spec.json").write_text(json.dumps(
        {"name": name, "adapter_spec": {"method": "multiple_choice_joint", "model": model}}))
    (folder / "per_instance_stats.json").write_text(json.dumps(instances, indent=2))
    return folder


def instance(iid, em, runtime, prompt_tokens, *, trial=0, perturbation=None, extra=()):
    stats = [stat("num_prompt_tokens", prompt_tokens), stat("num_output_tokens", 1),
             stat("inference_runtime", runtime), stat("exact_match", em),
             stat("quasi_exact_match", em), stat("training_co2_cost", 0.0, count=0), *extra]
    out = {"instance_id": iid, "train_trial_index": trial, "stats": stats}
    if perturbation is not None:
        out["perturbation"] = perturbation
    return out


def test_helm_run_directory(tmp_path):
    run = helm_run(tmp_path / "mmlu_run", [
        instance("id147", 0, 0.6803672313690186, 333),
        instance("id11", 1, 0.25, 420),
        instance("id11", 0, 0.5, 400, perturbation={"name": "typos"}),
    ])
    assert harness.detect(run) == "helm"
    assert harness.detect(run / "per_instance_stats.json") == "helm"
    s = harness.read(run)
    assert s.ids.tolist() == ["id147", "id11"]
    assert s.systems == {"openai/gpt2": pytest.approx(np.array([0.0, 1.0]))}
    cols = s.columns["openai/gpt2"]
    assert cols["latency_ms"].tolist() == [0.6803672313690186 * 1000, 0.25 * 1000]
    assert cols["input_tokens"].tolist() == [333, 420]
    assert cols["output_tokens"].tolist() == [1, 1]
    assert "training_co2_cost" not in cols  # (count 0: no value)
    assert any("1 perturbed instance record left out" in n for n in s.notes)
    assert any("mmlu:subject=philosophy,method=multiple_choice_joint" in n for n in s.notes)
    assert harness.read(run, score="inference_runtime").systems["openai/gpt2"].tolist() == \
        [0.6803672313690186, 0.25]


def test_helm_trials_averaged_and_refusals(tmp_path):
    run = helm_run(tmp_path / "r", [instance("a", 1, 0.1, 10, trial=0),
                                    instance("a", 0, 0.3, 10, trial=1)])
    s = harness.read(run)
    assert s.systems["openai/gpt2"].tolist() == [0.5]
    assert any("2 train trials per instance, averaged" in n for n in s.notes)
    dup = helm_run(tmp_path / "d", [instance("a", 1, 0.1, 10), instance("a", 0, 0.1, 10)])
    assert "instance a train trial 0 appears twice" in error(harness.read, dup)
    none = helm_run(tmp_path / "n", [{"instance_id": "a", "stats": [stat("f1_score", 0.5)]}])
    assert "no 'exact_match' stat" in error(harness.read, none)
    assert harness.read(none, score="f1_score").systems["openai/gpt2"].tolist() == [0.5]
    empty = helm_run(tmp_path / "e", [])
    assert "no per-item records" in error(harness.read, empty)
    (tmp_path / "x").mkdir()
    assert "no per_instance_stats.json" in error(harness.read, tmp_path / "x", "helm")


# --- promptfoo -----------------------------------------------------------------------------


def pf_result(test, prompt, provider, score, *, cost=0.001, latency=1000, tokens=(40, 100),
              reason=None, label=""):
    failure = {None: 0, "assert": 1, "error": 2}[reason]
    return {"cost": cost, "error": None if reason is None else f"{reason} happened",
            "gradingResult": {"pass": reason is None, "score": score, "reason": "r"},
            "id": f"{test}-{prompt}", "latencyMs": latency, "namedScores": {"tone": score / 2},
            "prompt": {"raw": "Solve: {{riddle}}", "label": f"p{prompt}"},
            "promptId": "h", "promptIdx": prompt,
            "provider": {"id": provider, "label": label},
            "response": {"output": "x", "tokenUsage": {
                "total": sum(tokens), "prompt": tokens[0], "completion": tokens[1],
                "completionDetails": {"reasoning": tokens[1] // 2}}, "cost": cost},
            "score": score, "success": reason is None, "testCase": {"vars": {}},
            "testIdx": test, "vars": {}, "metadata": {}, "failureReason": failure}


def promptfoo_export(path, results, version=3):
    data = {"evalId": "eval-abc-2025-10-01T20:08:11",
            "results": {"version": version, "timestamp": "2025-10-01T20:08:11.168Z",
                        "prompts": [], "results": results, "stats": {}},
            "config": {"description": "riddles"}, "shareableUrl": None,
            "metadata": {"promptfooVersion": "0.118.10"}}
    path.write_text(json.dumps(data, indent=2))
    return path


def test_promptfoo_export(tmp_path):
    results = [pf_result(1, 1, "openai:gpt-5-mini", 0.5, cost=0.0003, latency=4669),
               pf_result(0, 0, "openai:gpt-5", 1.0, cost=0.002, latency=6197, tokens=(37, 204)),
               pf_result(0, 1, "openai:gpt-5-mini", 0.75, reason="assert"),
               pf_result(1, 0, "openai:gpt-5", 0.0, reason="error", cost=0.0, latency=30000),
               pf_result(2, 0, "openai:gpt-5", 1.0), pf_result(2, 1, "openai:gpt-5-mini", 1.0)]
    path = promptfoo_export(tmp_path / "export.json", results)
    assert harness.detect(path) == "promptfoo"
    s = harness.read(path)
    assert s.ids.tolist() == ["0", "1", "2"]
    assert list(s.systems) == ["openai:gpt-5", "openai:gpt-5-mini"]  # (prompt order)
    assert s.systems["openai:gpt-5"].tolist() == [1.0, 0.0, 1.0]
    assert s.systems["openai:gpt-5-mini"].tolist() == [0.75, 0.5, 1.0]
    big = s.columns["openai:gpt-5"]
    assert big["cost"].tolist() == [0.002, 0.0, 0.001]
    assert big["latency_ms"].tolist() == [6197, 30000, 1000]
    assert big["input_tokens"].tolist() == [37, 40, 40]
    assert big["reasoning_tokens"].tolist() == [102, 50, 50]
    assert big["success"].tolist() == [1.0, 0.0, 1.0]
    assert s.outcomes["openai:gpt-5"].tolist() == [None, "infrastructure", None]
    assert s.outcomes["openai:gpt-5-mini"].tolist() == [None, None, None]  # (assert: scored)
    assert harness.read(path, score="success").systems["openai:gpt-5-mini"].tolist() == \
        [0.0, 1.0, 1.0]
    assert harness.read(path, score="tone").systems["openai:gpt-5"].tolist() == [0.5, 0, 0.5]
    assert any("1 result failed an assertion" in n and "1 failed on an error" in n
               for n in s.notes)


def test_promptfoo_prompts_sharing_a_provider(tmp_path):
    results = [pf_result(t, p, "openai:gpt-4o", float(p)) for t in range(2) for p in range(2)]
    s = harness.read(promptfoo_export(tmp_path / "e.json", results))
    assert list(s.systems) == ["openai:gpt-4o [p0]", "openai:gpt-4o [p1]"]
    labelled = [pf_result(0, 0, "openai:gpt-4o", 1.0, label="base")]
    assert list(harness.read(promptfoo_export(tmp_path / "l.json", labelled)).systems) == \
        ["base"]


def test_promptfoo_refusals(tmp_path):
    got = error(harness.read, promptfoo_export(tmp_path / "v.json", [], version=4))
    assert "promptfoo results version 4 not understood (this reader knows 2, 3)" in got
    assert "no per-item records" in error(harness.read, promptfoo_export(tmp_path / "n.json", []))
    bad = pf_result(0, 0, "p", 1.0)
    bad["testIdx"] = "zero"
    assert "results[0]: 'testIdx' is 'zero'" in error(
        harness.read, promptfoo_export(tmp_path / "b.json", [bad]))


# --- the real files (shared/data/real) ------------------------------------------------------


def _jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("name", ["mmlu_openai_gpt2", "hellaswag_eleutherai_pythia-1b-v0",
                                  "narrativeqa_openai_gpt2"])
def test_real_every_eval_ever_files(name):
    path = real_data("every_eval_ever", "instance_level_helm_v0.2.1", f"{name}_samples.jsonl")
    recs = _jsonl(path)
    assert harness.detect(path) == "every-eval-ever"
    s = harness.read(path)
    model = recs[0]["model_id"]
    assert list(s.systems) == [model]
    assert s.ids.tolist() == [r["sample_id"] for r in recs]
    assert s.systems[model].tolist() == [r["evaluation"]["score"] for r in recs]
    cols = s.columns[model]
    for field in ("input_tokens", "output_tokens", "total_tokens"):
        assert cols[field].tolist() == [r["token_usage"][field] for r in recs]
    assert cols["generation_time_ms"].tolist() == \
        [r["performance"]["generation_time_ms"] for r in recs]
    assert cols["is_correct"].tolist() == [float(r["evaluation"]["is_correct"]) for r in recs]
    assert any(f"on task {recs[0]['evaluation_name']}" in n for n in s.notes)


def test_real_helm_run_matches_its_every_eval_ever_conversion():
    run = real_data("every_eval_ever", "helm_raw_mmlu_philosophy_gpt2")
    converted = real_data("every_eval_ever", "instance_level_helm_v0.2.1",
                          "mmlu_openai_gpt2_samples.jsonl")
    raw = json.loads((run / "per_instance_stats.json").read_text())

    def value(inst, name):
        (s,) = [s for s in inst["stats"] if s["name"]["name"] == name]
        return s["sum"] / s["count"]

    s = harness.read(run)
    assert list(s.systems) == ["openai/gpt2"]
    assert s.ids.tolist() == [i["instance_id"] for i in raw]
    assert s.systems["openai/gpt2"].tolist() == [value(i, "exact_match") for i in raw]
    cols = s.columns["openai/gpt2"]
    assert cols["latency_ms"].tolist() == [value(i, "inference_runtime") * 1000 for i in raw]
    assert cols["input_tokens"].tolist() == [value(i, "num_prompt_tokens") for i in raw]
    # the converter's file: the same items, correctness, tokens and generation time
    eee_rows = {r["sample_id"]: r for r in _jsonl(converted)}
    assert set(eee_rows) == set(s.ids.tolist())
    for k, iid in enumerate(s.ids.tolist()):
        r = eee_rows[iid]
        assert s.systems["openai/gpt2"][k] == float(r["evaluation"]["is_correct"])
        assert cols["input_tokens"][k] == r["token_usage"]["input_tokens"]
        assert cols["latency_ms"][k] == r["performance"]["generation_time_ms"]
    both = harness.join([s, harness.read(converted)])
    assert np.array_equal(both.values[0], both.values[1])


def test_real_promptfoo_export():
    path = real_data("promptfoo", "sample-export.json")
    data = json.loads(path.read_text())
    rows = data["results"]["results"]
    assert harness.detect(path) == "promptfoo"
    s = harness.read(path)
    assert list(s.systems) == ["openai:gpt-5", "openai:gpt-5-mini"]
    assert s.ids.tolist() == ["0", "1"]
    for name, cols in s.columns.items():
        mine = sorted((r for r in rows if r["provider"]["id"] == name),
                      key=lambda r: r["testIdx"])
        assert s.systems[name].tolist() == [r["score"] for r in mine]
        assert cols["cost"].tolist() == [r["cost"] for r in mine]
        assert cols["latency_ms"].tolist() == [r["latencyMs"] for r in mine]
        assert cols["output_tokens"].tolist() == \
            [r["response"]["tokenUsage"]["completion"] for r in mine]
    # the file's own totals (SOURCES.md): cost 0.0031575 and 0.0008235 per provider
    assert s.columns["openai:gpt-5"]["cost"].sum() == pytest.approx(0.0031575, abs=1e-12)
    assert s.columns["openai:gpt-5-mini"]["cost"].sum() == pytest.approx(0.0008235, abs=1e-12)
    assert s.columns["openai:gpt-5"]["latency_ms"].sum() == 11224
    assert all(o is None for v in s.outcomes.values() for o in v)  # (assertion failures)


# --- the command line and Python agree -------------------------------------------------------


@pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")
def test_cli_on_two_files_equals_python(tmp_path):
    rng = np.random.default_rng(3)
    a = (rng.random(30) < 0.5).astype(float)
    b = (rng.random(30) < 0.7).astype(float)
    pa = write_jsonl(tmp_path / "a.jsonl", [eee(f"s{i}", a[i]) for i in range(30)])
    pb = write_jsonl(tmp_path / "b.jsonl", [eee(f"s{i}", b[i], model="org/model-b")
                                            for i in reversed(range(30))])
    proc = run_in_process("compare", pa, pb, "--seed", "4", "--resamples", "1000",
                          "--no-progress", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    res = pairboot.compare(a, b, seed=4, n_resamples=1000)
    assert got["estimate"] == res.estimate
    assert got["confidence_interval"] == res.confidence_interval._asdict()
    # (the same with --from, and the system names are the models)
    text = run_in_process("compare", pa, pb, "--from", "every-eval-ever", "--seed", "4",
                          "--resamples", "1000", "--no-progress")
    assert b"org/model-a" in text.stdout and b"org/model-b" in text.stdout

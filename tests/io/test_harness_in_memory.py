"""Harness logs in memory: an Inspect ``EvalLog`` object and lm-eval's results dict
(``simple_evaluate(..., log_samples=True)``) read as their files are.

Neither inspect_ai nor lm_eval is installed here: the EvalLog is a stand-in built from the
JSON log the file tests write (objects with the attributes Inspect's pydantic models have:
``eval.model``, ``eval.task``, ``eval.config.epochs_reducer``, ``samples`` with ``id``,
``epoch``, ``scores`` of ``Score`` objects with ``value``, ``metadata``, ``error``), and
the results dict is the results file with its samples under ``samples``, as
``simple_evaluate`` returns it before the evaluation tracker writes it out.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
from test_harness_inspect import sample as inspect_sample
from test_harness_inspect import spec, write_json
from test_harness_lm_eval import T1, acc_rows, write_results, write_samples

import pairboot
from pairboot.errors import InputError
from pairboot.io import harness


class Score:  # (Inspect's Score: a pydantic model; attributes, no dict)
    def __init__(self, value, answer=None):
        self.value, self.answer = value, answer


class Model:  # (a pydantic model: read through model_dump, as Inspect's are)
    def __init__(self, **fields):
        self._fields = fields

    def model_dump(self):
        return dict(self._fields)


def eval_log(data: dict, score=Score):
    """A stand-in EvalLog from a JSON log's dict: objects all the way down."""
    def sample(s):
        scores = {k: score(value=v["value"], answer=v.get("answer"))
                  for k, v in s["scores"].items()}
        error = None if s.get("error") is None else SimpleNamespace(**s["error"])
        return SimpleNamespace(id=s["id"], epoch=s["epoch"], scores=scores,
                               metadata=s["metadata"], error=error, messages=[])
    e = data["eval"]
    spec_ = SimpleNamespace(model=e["model"], task=e["task"],
                            config=SimpleNamespace(**e["config"]))
    return SimpleNamespace(eval=spec_, status=data["status"], results=data["results"],
                           samples=[sample(s) for s in data["samples"]])


def inspect_logs(tmp_path, values, metadata=None):
    samples = [inspect_sample(i + 1, v, metadata=None if metadata is None else metadata[i])
               for i, v in enumerate(values)]
    path = tmp_path / f"log{len(list(tmp_path.iterdir()))}.json"
    write_json(path, samples, eval_spec=spec())
    return path, eval_log(json.loads(path.read_text()))


def same_scores(a, b):
    assert a.format == b.format and a.score == b.score and a.metric == b.metric
    assert a.ids.tolist() == b.ids.tolist()
    assert {k: v.tolist() for k, v in a.systems.items()} == {
        k: v.tolist() for k, v in b.systems.items()}
    for name in ("groups", "strata"):
        x, y = getattr(a, name), getattr(b, name)
        assert (x is None and y is None) or x.tolist() == y.tolist()


def test_an_inspect_evallog_object_reads_as_its_file(tmp_path):
    meta = [{"topic": t} for t in "xxyyzz"]
    path, log = inspect_logs(tmp_path, ["C", "I", "P", "C", 1, 0], meta)
    assert harness.object_format(log) == "inspect"
    from_file, in_memory = harness.read(path), harness.read(log, stratum="topic")
    same_scores(harness.read(path, stratum="topic"), in_memory)
    assert in_memory.systems[next(iter(in_memory.systems))].tolist() == [1, 0, 0.5, 1, 1, 0]
    assert "in-memory" in in_memory.notes[0] and "JSON" in from_file.notes[0]


def test_scores_as_pydantic_models_read_through_model_dump(tmp_path):
    path, _ = inspect_logs(tmp_path, ["C", "I", "P", 0.25])
    log = eval_log(json.loads(path.read_text()), score=Model)
    same_scores(harness.read(path), harness.read(log))


def test_two_evallog_objects_compare_as_their_files(tmp_path):
    rng = np.random.default_rng(3)
    a_values, b_values = rng.integers(0, 2, 40), rng.integers(0, 2, 40)
    pa, la = inspect_logs(tmp_path, [int(v) for v in a_values])
    pb, lb = inspect_logs(tmp_path, [int(v) for v in b_values])
    files = harness.join([harness.read(pa), harness.read(pb)], names=("a", "b"))
    objects = harness.join([harness.read(la), harness.read(lb)], names=("a", "b"))
    r1 = pairboot.compare(*files.values, ids=files.ids, seed=1, n_resamples=2000)
    r2 = pairboot.compare(*objects.values, ids=objects.ids, seed=1, n_resamples=2000)
    assert r1.estimate == r2.estimate and r1.confidence_interval == r2.confidence_interval
    assert r1.items_summary.items.top_wins == r2.items_summary.items.top_wins


def test_an_inspect_object_without_samples_and_a_wrong_format_are_refused(tmp_path):
    _, log = inspect_logs(tmp_path, [1, 0])
    with pytest.raises(InputError, match="a SimpleNamespace is read as a inspect log"):
        harness.read(log, "lm-eval")
    log.samples = None
    with pytest.raises(InputError, match="no samples"):
        harness.read(log)


def results_dict(tmp_path, tasks: dict) -> tuple:
    """An output directory and the results dict simple_evaluate returned for it."""
    out = tmp_path / "out" / "org__model-7b"
    samples = {}
    for task, values in tasks.items():
        rows = acc_rows(values)
        write_samples(out, task, T1, rows)
        samples[task] = [{**r, "acc": np.float64(r["acc"])} for r in rows]  # (numpy, live)
    results = json.loads(write_results(out, T1, {t: len(v) for t, v in tasks.items()},
                                       shots=5).read_text())
    return tmp_path / "out", {**results, "samples": samples}


def test_an_lm_eval_results_dict_reads_as_its_output_directory(tmp_path):
    folder, results = results_dict(tmp_path, {"boolq": [1, 0, 1, 1], "arc": [0, 0, 1]})
    assert harness.object_format(results) == "lm-eval"
    from_dir, in_memory = harness.read(folder), harness.read(results)
    same_scores(from_dir, in_memory)
    assert list(in_memory.systems) == ["org/model-7b 5-shot"]
    assert in_memory.strata.tolist() == ["arc"] * 3 + ["boolq"] * 4
    same_scores(harness.read(folder, tasks="arc"), harness.read(results, tasks="arc"))


def test_an_lm_eval_dict_without_samples_is_refused(tmp_path):
    _, results = results_dict(tmp_path, {"boolq": [1, 0]})
    del results["samples"]
    with pytest.raises(InputError, match="log_samples=True"):
        harness.read(results)
    with pytest.raises(InputError, match="no samples of task 'nope'"):
        harness.read({**results_dict(tmp_path / "x", {"boolq": [1]})[1]}, tasks="nope")


def test_a_table_is_still_a_table():
    assert harness.object_format({"id": [1, 2], "results": [0, 1]}) == "table"

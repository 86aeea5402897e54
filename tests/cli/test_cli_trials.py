"""``pairboot compare --runs samples --metric pass^4``: a long table of trials (or
Inspect's epochs) on the command line equals ``pairboot.compare(a, b, runs="samples",
metric="pass^4")`` on the same items x trials tables; bad input is one error line."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import assert_one_line_error, inspect_log, lm_eval_output, run_in_process

import pairboot

pytestmark = pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")


def _trials(n=30, trials=4, seed=2):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    a = (rng.random((n, trials)) < p[:, None]).astype(int)
    b = (rng.random((n, trials)) < np.clip(p[:, None] + 0.2, 0, 1)).astype(int)
    return a, b


def _long(path, a, b):
    """One row per task and trial, the trials in order, tasks interleaved."""
    rows = [f"task{i},t{t},{a[i, t]},{b[i, t]}" for t in range(a.shape[1])
            for i in range(len(a))]
    path.write_text("task,trial,A,B\n" + "\n".join(rows) + "\n")
    return path


def _run(*args):
    return run_in_process("compare", *args, "--seed", "5", "--resamples", "1000",
                          "--no-progress")


@pytest.mark.parametrize("metric", ["pass^2", "pass@3", "maj@3"])
def test_long_table_equals_python(tmp_path, metric):
    a, b = _trials()
    path = _long(tmp_path / "trials.csv", a, b)
    proc = _run(path, "--a", "A", "--b", "B", "--id", "task", "--run", "trial",
                "--runs", "samples", "--metric", metric, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    res = pairboot.compare(a, b, runs="samples", metric=metric, seed=5, n_resamples=1000)
    assert got["metric"] == metric
    assert got["confidence_interval"] == res.confidence_interval._asdict()
    assert got["estimate"] == res.estimate
    text = _run(path, "--a", "A", "--b", "B", "--id", "task", "--run", "trial",
                "--runs", "samples", "--metric", metric).stdout.decode()
    assert f"metric {metric} |" in text


def test_bad_input_is_one_line(tmp_path):
    a, b = _trials()
    path = _long(tmp_path / "trials.csv", a, b)
    common = (path, "--a", "A", "--b", "B", "--id", "task", "--run", "trial")
    assert_one_line_error(_run(*common, "--runs", "samples", "--metric", "pass^5"),
                          "'task0'", "4 trial(s), fewer than k = 5")
    assert_one_line_error(_run(*common, "--runs", "seeds", "--metric", "pass^2"),
                          "--metric pass^2", "--runs samples")
    assert_one_line_error(_run(path, "--a", "A", "--b", "B", "--metric", "pass^2"),
                          "--metric pass^2 needs --runs samples")
    assert_one_line_error(_run(*common, "--runs", "samples", "--metric", "pass^0"),
                          "pass^0", "whole number")
    a[3, 1] = 2
    path = _long(tmp_path / "bad.csv", a, b)
    assert_one_line_error(_run(path, *common[1:], "--runs", "samples", "--metric", "pass^2"),
                          "'task3'", "is 2.0", "0/1 scores")


def test_inspect_epochs_as_trials(tmp_path):
    """Inspect's epochs read as samples (--runs samples) are the trials of pass^k."""
    rng = np.random.default_rng(4)
    values = {m: rng.choice(["C", "I"], (40, 3), p=[p, 1 - p])
              for m, p in (("model/a", 0.5), ("model/b", 0.65))}
    inspect_log(tmp_path / "a.eval", "model/a", values["model/a"].tolist())
    inspect_log(tmp_path / "b.json", "model/b", values["model/b"].tolist())
    proc = _run(tmp_path / "a.eval", tmp_path / "b.json", "--score", "match", "--runs",
                "samples", "--metric", "pass^3", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    a, b = ((values[m] == "C").astype(float) for m in ("model/a", "model/b"))
    res = pairboot.compare(a, b, runs="samples", metric="pass^3", seed=5, n_resamples=1000)
    assert got["metric"] == "pass^3"
    assert got["confidence_interval"] == res.confidence_interval._asdict()


@pytest.mark.parametrize("metric", [None, "pass^2"])
def test_flaky_items_by_task_and_top(tmp_path, metric):
    """--runs samples lists the flaky items by their --id, at most --top of each list;
    the JSON has every item, as Python's."""
    a, b = _trials()
    path = _long(tmp_path / "trials.csv", a, b)
    common = (path, "--a", "A", "--b", "B", "--id", "task", "--run", "trial", "--runs",
              "samples", "--top", "1", *(() if metric is None else ("--metric", metric)))
    text = _run(*common).stdout.decode()
    section = " ".join(text[text.index("Flaky items"):].split())
    res = pairboot.compare(a, b, runs="samples", seed=5, n_resamples=1000)
    worst = f"task{res.flaky.stochastic_any[0]}"
    assert f"(1 of {len(res.flaky.stochastic_any)};" in section and f" {worst} " in section
    got = json.loads(_run(*common, "--format", "json").stdout)["flaky"]
    assert got["top"] == 1 and len(got["items"]) == 30
    assert got["stochastic_a"] == [f"task{i}" for i in res.flaky.stochastic[0]]
def test_estimand_suite_equals_python_and_bad_use_is_one_line(tmp_path):
    a, b = _trials(trials=6)
    path = _long(tmp_path / "trials.csv", a, b)
    common = (path, "--a", "A", "--b", "B", "--id", "task", "--run", "trial")
    proc = _run(*common, "--runs", "samples", "--metric", "pass^3", "--estimand", "suite",
                "--format", "json")
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    res = pairboot.compare(a, b, runs="samples", metric="pass^3", estimand="suite", seed=5,
                           n_resamples=1000)
    assert got["estimand"] == "suite"
    assert got["confidence_interval"] == res.confidence_interval._asdict()
    assert "fixed-suite interval" in _run(*common, "--runs", "samples", "--estimand",
                                          "suite").stdout.decode()
    assert_one_line_error(_run(*common, "--runs", "samples", "--metric", "pass^4",
                               "--estimand", "suite"), "'task0'", "needs 8 per item")
    assert_one_line_error(_run(*common, "--runs", "seeds", "--estimand", "suite"),
                          "--estimand suite needs --runs samples")
    assert_one_line_error(run_in_process("power", "--estimand", "suite", "--sd", "0.3"),
                          "--estimand suite")


def test_estimand_suite_says_nothing_of_the_population_bootstrap(tmp_path):
    """--resamples 100 is few for a bootstrap, and nothing to the suite's normal
    interval: no note on the resamples or their Monte Carlo error, the suite's engine."""
    a, b = _trials(trials=6)
    common = (_long(tmp_path / "trials.csv", a, b), "--a", "A", "--b", "B", "--id", "task",
              "--run", "trial", "--runs", "samples", "--metric", "pass^2", "--seed", "5",
              "--resamples", "100", "--no-progress")
    suite = run_in_process("compare", *common, "--estimand", "suite")
    assert suite.returncode == 0, suite.stderr
    text = " ".join(suite.stdout.decode().split())
    population = " ".join(run_in_process("compare", *common).stdout.decode().split())
    for words in ("100 resamples leave only 2.5 beyond each end",
                  "the Monte Carlo error of the endpoints"):
        assert words in population and words not in text
    assert "engine suite (normal intervals on the trials' variance)" in text
    got = json.loads(run_in_process("compare", *common, "--estimand", "suite", "--format",
                                    "json").stdout)
    assert got["engine"].startswith("suite")
    assert not [w for w in got["warnings"] if "resample" in w or "Monte Carlo" in w]


@pytest.mark.parametrize("extra, wanted", [(("--metric", "pass^4"), "pass^4"),
                                           (("--curve", "pass^k"), "pass^k")])
def test_lm_eval_samples_say_pass_k_cannot_be_read(tmp_path, extra, wanted):
    """lm-eval writes one score per document (its repeats reduced before scoring): one
    line saying that pass^k cannot be read from it, and how to give the trials."""
    for name, model in (("a", "org__a"), ("b", "org__b")):
        lm_eval_output(tmp_path / name, {"arc": [1, 0, 1, 1, 0] * 4}, model=model)
    proc = _run(tmp_path / "a", tmp_path / "b", "--runs", "samples", *extra)
    assert_one_line_error(proc, f"{wanted} cannot be read from lm-eval samples",
                          "one score per document", "NAME=PATH")

"""``pairboot compare`` on two tau-bench results files with ``--runs samples --metric
pass^2`` equals ``pairboot.compare(a, b, runs="samples", metric="pass^2")`` on the same
tasks x trials rewards: the trials are kept, not averaged away."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import assert_one_line_error, run_in_process

import pairboot

pytestmark = pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")


def _rewards(seed, shift=0.0, n=20, trials=4):
    rng = np.random.default_rng(seed)
    p = np.clip(np.random.default_rng(0).random(n) + shift, 0, 1)
    return (rng.random((n, trials)) < p[:, None]).astype(float)


def _write(path, rewards, jsonl=False):
    recs = [{"task_id": i, "trial": t, "reward": rewards[i, t], "info": {}, "traj": []}
            for t in range(rewards.shape[1]) for i in range(len(rewards))]
    if jsonl:
        path.write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    else:
        path.write_text(json.dumps(recs))
    return path


def _run(*args):
    return run_in_process("compare", *args, "--seed", "5", "--resamples", "1000",
                          "--no-progress", "--runs", "samples", "--metric", "pass^2",
                          "--format", "json")


@pytest.mark.parametrize("form", ["detected", "from", "named"])
def test_two_files_equal_python(tmp_path, form):
    a, b = _rewards(1), _rewards(2, shift=0.2)
    if form == "from":  # (the slim JSON Lines needs --from)
        pa, pb = _write(tmp_path / "a.jsonl", a, True), _write(tmp_path / "b.jsonl", b, True)
        args = (pa, pb, "--from", "tau-bench")
    else:
        pa, pb = _write(tmp_path / "a.json", a), _write(tmp_path / "b.json", b)
        args = (pa, pb) if form == "detected" else (f"A={pa}", f"B={pb}")
    proc = _run(*args)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    res = pairboot.compare(a, b, runs="samples", metric="pass^2", seed=5, n_resamples=1000)
    assert got["metric"] == "pass^2"
    assert got["estimate"] == res.estimate
    assert got["confidence_interval"] == res.confidence_interval._asdict()


def test_the_notes_say_what_became_of_the_trials(tmp_path):
    """Under --runs samples --metric pass^2 the trials are kept, each task's score its
    pass^2 estimate: no note says they were averaged; without --runs they are."""
    pa, pb = _write(tmp_path / "a.json", _rewards(1)), _write(tmp_path / "b.json", _rewards(2))
    notes = json.loads(_run(pa, pb).stdout)["notes"]
    assert "averaged" not in " ".join(notes)
    assert notes.count("4 trials per task, each kept as a trial (for --runs samples)") == 2
    assert "each system's score on an item is its unbiased estimate of pass^2" in notes[-1]
    mean = run_in_process("compare", pa, pb, "--seed", "5", "--resamples", "200",
                          "--no-progress", "--format", "json")
    assert json.loads(mean.stdout)["notes"].count("4 trials per task, averaged") == 2


def test_a_missing_trial_is_one_line(tmp_path):
    a = _rewards(1)
    pa = _write(tmp_path / "a.json", a)
    recs = json.loads(pa.read_text())
    bad = tmp_path / "b.json"
    bad.write_text(json.dumps(recs[:-1]))
    proc = _run(pa, bad)
    assert_one_line_error(proc, str(bad), "task 19 has no trial 3")


def _tau2(path, rewards, llm):
    """tau2-bench's Results JSON (simulations with reward_info)."""
    sims = [{"id": f"s{i}-{t}", "task_id": f"t{i:02d}", "trial": t, "reward_info":
             {"reward": float(rewards[i, t])}, "messages": []}
            for t in range(rewards.shape[1]) for i in range(len(rewards))]
    path.write_text(json.dumps({"info": {"num_trials": rewards.shape[1],
                                         "agent_info": {"llm": llm}},
                                "tasks": [{"id": f"t{i:02d}"} for i in range(len(rewards))],
                                "simulations": sims}))
    return path


def test_tau2_results_are_recognised_and_keep_their_trials(tmp_path):
    """tau2-bench's Results, without --from: pass^2 of the trials, the systems named
    by their llm."""
    a, b = _rewards(1), _rewards(2, shift=0.2)
    proc = _run(_tau2(tmp_path / "a.json", a, "gpt-4.1"),
                _tau2(tmp_path / "b.json", b, "claude"))
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    res = pairboot.compare(a, b, runs="samples", metric="pass^2", seed=5, n_resamples=1000)
    assert got["estimate"] == res.estimate
    assert got["confidence_interval"] == res.confidence_interval._asdict()


def test_a_family_of_pass_k_says_the_items_scores_are_its_estimates(tmp_path):
    paths = [_write(tmp_path / f"{n}.json", _rewards(s, shift=d))
             for n, s, d in (("a", 1, 0.0), ("b", 2, 0.2), ("c", 3, 0.1))]
    proc = run_in_process("compare", *paths, "--seed", "5", "--resamples", "200",
                          "--no-progress", "--runs", "samples", "--metric", "pass^2")
    assert proc.returncode == 0, proc.stderr
    text = " ".join(proc.stdout.decode().split())
    assert ("each system's score on an item is its unbiased estimate of pass^2 from its "
            "samples (4 per item and system), and the items' estimates are compared") in text
    assert "the mean of its samples" not in text

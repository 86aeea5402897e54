"""The tau-bench / tau2-bench reader: every task x trial reward kept, in the three shapes
the benchmarks write (a JSON list with info/traj, slimmed JSON Lines, tau2-bench's
Results), pass^k from them as the paper's estimator gives it, and bad records refused
in one line naming the file, the record and the field."""

from __future__ import annotations

import json

import numpy as np
import pytest

import pairboot
from pairboot.errors import InputError
from pairboot.io import harness
from pairboot.stats.trials import pass_hat_k

# 4 tasks x 3 trials; task 2 flaky, task 3 never solved
REWARDS = np.array([[1, 1, 1], [1, 0, 1], [0, 1, 0], [0, 0, 0]], dtype=float)


def _records(rewards=REWARDS, ids=None):
    ids = ids or list(range(len(rewards)))
    return [{"task_id": ids[i], "trial": t, "reward": float(rewards[i, t])}
            for t in range(rewards.shape[1]) for i in range(len(rewards))]


def _tau_json(path, rewards=REWARDS):
    """tau-bench's historical_trajectories shape: a JSON list with info and traj."""
    recs = [dict(r, info={"task": {"user_id": "u"}, "reward_info": {"reward": r["reward"]}},
                 traj=[{"role": "system", "content": "policy"}]) for r in _records(rewards)]
    path.write_text(json.dumps(recs, indent=2))
    return path


def _tau_jsonl(path, records):
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    return path


def _tau2(path, rewards=REWARDS, llm="gpt-4.1", edit=None):
    sims = [{"id": f"s{i}-{t}", "task_id": str(i), "trial": t, "termination_reason":
             "user_stop", "reward_info": {"reward": float(rewards[i, t]),
                                          "reward_basis": ["DB"]}, "messages": []}
            for t in range(rewards.shape[1]) for i in range(len(rewards))]
    if edit:
        edit(sims)
    data = {"timestamp": "2025-06-01", "info": {"num_trials": rewards.shape[1],
            "agent_info": {"implementation": "llm_agent", "llm": llm}},
            "tasks": [{"id": str(i)} for i in range(len(rewards))], "simulations": sims}
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("shape", ["json", "jsonl", "tau2"])
def test_keeps_every_trial(tmp_path, shape):
    if shape == "json":
        path, name = _tau_json(tmp_path / "agent.json"), "agent"
    elif shape == "jsonl":
        path, name = _tau_jsonl(tmp_path / "agent.jsonl", _records()[::-1]), "agent"
    else:
        path, name = _tau2(tmp_path / "results.json"), "gpt-4.1"
    s = harness.read(path, "tau-bench", trials="runs")
    assert s.ids.tolist() == ["0", "1", "2", "3"]
    assert list(s.systems) == [name]
    np.testing.assert_array_equal(s.runs[name], REWARDS)
    np.testing.assert_allclose(s.systems[name], REWARDS.mean(axis=1))
    assert harness.read(path, "tau-bench").runs is None


def test_detects_only_the_unmistakable(tmp_path):
    assert harness.detect(_tau_json(tmp_path / "a.json")) == "tau-bench"
    assert harness.detect(_tau2(tmp_path / "r.json")) == "tau-bench"
    # the slim JSON Lines could be any table: it needs the format named
    assert harness.detect(_tau_jsonl(tmp_path / "a.jsonl", _records())) is None
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps([{"task_id": 1, "trial": 0, "reward": 1.0}]))
    assert harness.detect(plain) is None


@pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")
@pytest.mark.filterwarnings("ignore::pairboot.PairbootWarning")
def test_pass_hat_k_as_the_paper_estimates_it(tmp_path):
    """pass^k = mean over tasks of C(c, k) / C(n, k), here by hand (n = 3)."""
    s = harness.read(_tau_json(tmp_path / "a.json"), "tau-bench", trials="runs")
    table = s.runs["a"]
    c = table.sum(axis=1)
    by_hand = {1: np.mean(c / 3), 2: np.mean(c * (c - 1) / 6), 3: np.mean(c == 3)}
    for k, want in by_hand.items():
        assert pass_hat_k(np.full(4, 3), c, k).mean() == pytest.approx(want)
    res = pairboot.compare(table, table[::-1], runs="samples", metric="pass^2", seed=1,
                           n_resamples=200)
    assert res.score_a.estimate == pytest.approx(by_hand[2])


def test_the_trials_note_says_averaged_or_kept(tmp_path):
    """The default averages a task's trials; ``trials="runs"`` keeps each as a trial
    (``runs="samples"``, pass^k), and the note says which, never "averaged" then."""
    path = _tau_json(tmp_path / "a.json")
    assert "3 trials per task, averaged" in harness.read(path, "tau-bench").notes
    kept = harness.read(path, "tau-bench", trials="runs").notes
    assert "3 trials per task, each kept as a trial (for `runs='samples'`)" in kept
    assert not [n for n in kept if "averaged" in n]


def test_rewards_other_than_0_1_are_scores(tmp_path):
    rewards = REWARDS * 0.5
    s = harness.read(_tau_json(tmp_path / "a.json", rewards), "tau-bench", trials="runs")
    np.testing.assert_array_equal(s.runs["a"], rewards)
    assert any("not only 0 and 1" in n for n in s.notes)


def _one_line(excinfo, *parts):
    msg = str(excinfo.value)
    assert "\n" not in msg
    for part in parts:
        assert part in msg, msg


def test_duplicated_trial(tmp_path):
    recs = _records()
    recs.append(dict(recs[5]))
    path = _tau_jsonl(tmp_path / "a.jsonl", recs)
    with pytest.raises(InputError) as e:
        harness.read(path, "tau-bench")
    _one_line(e, str(path), "line 13", "task 1 trial 1 appears twice", "line 6", "'trial'")


def test_missing_trial(tmp_path):
    recs = [r for r in _records() if not (r["task_id"] == 2 and r["trial"] == 1)]
    path = _tau_jsonl(tmp_path / "a.jsonl", recs)
    with pytest.raises(InputError) as e:
        harness.read(path, "tau-bench")
    _one_line(e, str(path), "task 2 has no trial 1", "'trial'")


@pytest.mark.parametrize("change, where, field", [
    (lambda r: r.pop("reward"), "record 3", "no field 'reward'"),
    (lambda r: r.update(reward="1.0"), "record 3", "field 'reward'"),
    (lambda r: r.update(reward=float("nan")), "record 3", "field 'reward'"),
    (lambda r: r.update(reward=True), "record 3", "field 'reward'"),
    (lambda r: r.update(trial=-1), "record 3", "field 'trial'"),
    (lambda r: r.update(trial=None), "record 3", "field 'trial'"),
    (lambda r: r.update(task_id=[1]), "record 3", "field 'task_id'"),
    (lambda r: r.pop("task_id"), "record 3", "no field 'task_id'"),
])
def test_malformed_record(tmp_path, change, where, field):
    recs = _records()
    change(recs[2])
    path = tmp_path / "a.json"
    path.write_text(json.dumps(recs))
    with pytest.raises(InputError) as e:
        harness.read(path, "tau-bench")
    _one_line(e, str(path), where, field)


def test_malformed_files(tmp_path):
    bad_line = tmp_path / "a.jsonl"
    bad_line.write_text('{"task_id": 0, "trial": 0, "reward": 1}\n{oops\n')
    not_record = tmp_path / "b.json"
    not_record.write_text("[1, 2]")
    empty = tmp_path / "c.json"
    empty.write_text("")
    no_reward = _tau2(tmp_path / "r.json",
                      edit=lambda sims: sims[4].update(reward_info=None))
    for path, part in ((bad_line, "line 2"), (not_record, "record 1"), (empty, "empty"),
                       (no_reward, "simulations[4] (task '0', trial 1): field "
                                   "'reward_info' is null")):
        with pytest.raises(InputError) as e:
            harness.read(path, "tau-bench")
        _one_line(e, str(path), part)
    with pytest.raises(InputError, match="`trials`"):
        harness.read(bad_line, "tau-bench", trials="all")

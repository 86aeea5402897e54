"""``pairboot compare A B --gate POLICY.toml``: the gate's rows and verdict, the same as
check_gate() on the same columns, its exit status, JUnit XML, and bad input in one line."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import assert_one_line_error, run_in_process

import pairboot

N = 240

POLICY = """
[gate]
confidence_level = 0.95
[gate.metrics]
correct = {}
cost = {lower_is_better = true}
[[gate.rows]]
metric = "correct"
test = "non-inferior"
margin = 0.1
tasks = "each"
[[gate.rows]]
metric = "cost"
test = "superior"
[[gate.rows]]
metric = "correct"
test = "regressions"
bound = 0.3
"""


def files(tmp_path, cost_factor=0.9):
    rng = np.random.default_rng(8)
    q = rng.random(N)
    task = np.array(["math", "code"])[np.arange(N) % 2]
    a = {"correct": (q < 0.6) * 1.0, "cost": rng.gamma(2.0, 0.01, N).round(6)}
    b = {"correct": (q < 0.62) * 1.0,
         "cost": (a["cost"] * cost_factor + rng.normal(0.0, 0.01, N)).round(6)}
    for name, x in (("a", a), ("b", b)):
        lines = ["id,task,correct,cost"] + [
            f"q{i},{task[i]},{x['correct'][i]:g},{float(x['cost'][i])!r}" for i in range(N)]
        (tmp_path / f"{name}.csv").write_text("\n".join(lines) + "\n")
    policy = tmp_path / "gate.toml"
    policy.write_text(POLICY)
    return tmp_path / "a.csv", tmp_path / "b.csv", policy, a, b, task


def test_the_gate_on_the_command_line_is_check_gates_answer(tmp_path):
    fa, fb, policy, a, b, task = files(tmp_path)
    proc = run_in_process("compare", fa, fb, "--id", "id", "--stratum", "task", "--gate",
                          policy, "--seed", "3", "--resamples", "999", "--format", "json",
                          "--no-progress")
    out = json.loads(proc.stdout)
    with pytest.warns(pairboot.PairbootWarning):
        res = pairboot.check_gate(a, b, pairboot.read_gate(policy), tasks=task, seed=3,
                                  n_resamples=999, names=("a", "b"))
    assert [r["verdict"] for r in out["rows"]] == [r.verdict for r in res.rows]
    assert [r["p_value"] for r in out["rows"]] == pytest.approx([r.p_value for r in res.rows])
    assert out["verdict"] == res.verdict and proc.returncode == res.exit_status
    assert out["policy_sha256"] == res.policy_sha256


def test_exit_status_follows_the_verdict_and_inconclusive(tmp_path):
    fa, fb, policy, *_ = files(tmp_path, cost_factor=1.5)  # B costs more: the cost row fails
    args = ["compare", fa, fb, "--id", "id", "--stratum", "task", "--gate", policy,
            "--seed", "3", "--resamples", "499", "--no-progress"]
    proc = run_in_process(*args)
    assert proc.returncode == 1 and b"Gate: FAIL" in proc.stdout
    junit = run_in_process(*args, "--format", "junit")
    assert junit.returncode == 1 and junit.stdout.startswith(b"<?xml")
    assert b'failures="1"' in junit.stdout


def test_a_gate_that_cannot_decide_exits_as_told(tmp_path):
    fa, fb, policy, *_ = files(tmp_path, cost_factor=0.999)
    base = ["compare", fa, fb, "--id", "id", "--stratum", "task", "--gate", policy,
            "--seed", "3", "--resamples", "499", "--no-progress", "--format", "json"]
    strict = run_in_process(*base)
    assert json.loads(strict.stdout)["verdict"] == "inconclusive"
    assert strict.returncode == 1
    assert run_in_process(*base, "--inconclusive", "pass").returncode == 0


@pytest.mark.parametrize(("extra", "says"), [
    (["--score", "correct"], "--score does not go with --gate"),
    (["--level", "0.9"], "--level does not go with --gate"),
    (["--inconclusive", "pass", "--gate", None], None),
])
def test_options_the_policy_decides_are_refused(tmp_path, extra, says):
    fa, fb, policy, *_ = files(tmp_path)
    if None in extra:
        proc = run_in_process("compare", fa, fb, "--id", "id", "--inconclusive", "pass")
        assert_one_line_error(proc, "--inconclusive is for --gate")
        return
    proc = run_in_process("compare", fa, fb, "--id", "id", "--stratum", "task", "--gate",
                          policy, *extra)
    assert_one_line_error(proc, says)


def test_a_bad_policy_file_is_one_line_naming_it(tmp_path):
    fa, fb, policy, *_ = files(tmp_path)
    policy.write_text(POLICY.replace('metric = "cost"', 'metric = "latency"'))
    proc = run_in_process("compare", fa, fb, "--id", "id", "--stratum", "task", "--gate",
                          policy)
    assert_one_line_error(proc, "names metric 'latency'")
    assert str(policy) in proc.stderr.decode()


@pytest.mark.parametrize(("cost_factor", "inconclusive", "kinds"), [
    (1.5, None, {"error"}),  # B costs more: the cost row fails
    (0.999, None, {"error"}),  # cannot decide, and the gate counts that as a failure
    (0.999, "pass", {"warning"}),
])
def test_github_format_is_a_table_per_row_and_annotations(tmp_path, cost_factor, inconclusive,
                                                          kinds):
    fa, fb, policy, *_ = files(tmp_path, cost_factor=cost_factor)
    extra = [] if inconclusive is None else ["--inconclusive", inconclusive]
    args = ["compare", fa, fb, "--id", "id", "--stratum", "task", "--gate", policy,
            "--seed", "3", "--resamples", "499", "--no-progress", *extra]
    summary = run_in_process(*args, "--format", "github")
    res = json.loads(run_in_process(*args, "--format", "json").stdout)
    assert summary.returncode == (0 if res["verdict"] == "pass" or inconclusive == "pass"
                                  else 1)
    out, err = summary.stdout.decode(), summary.stderr.decode()
    assert out.startswith(f"### pairboot gate: {res['verdict']} (b against a)\n")
    table = [line for line in out.splitlines() if line.startswith("| ")]
    assert len(table) == 1 + len(res["rows"])  # (the header, then a row per gate row)
    for row, line in zip(res["rows"], table[1:]):
        assert line.startswith(f"| {row['name']} |")
    commands = [line for line in err.splitlines() if "title=pairboot gate::" in line]
    not_passed = [r for r in res["rows"] if r["verdict"] != "pass"]
    assert len(commands) == len(not_passed) > 0
    assert {c[2:].split(" ")[0] for c in commands} == kinds  # (and ::warning:: for warnings)
    for c, row in zip(commands, not_passed):
        assert c.split("::")[2].startswith(f"{row['name']}: {row['verdict']}; B - A ")
    plain = run_in_process(*args)  # (the other formats print no workflow command)
    assert "::" not in plain.stderr.decode()

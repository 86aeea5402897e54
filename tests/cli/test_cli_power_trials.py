"""``pairboot power --metric 'pass^k' --runs samples``: the command line's trials plans
equal the API's (from parameters, and from a pilot's long table of trials), and its
errors are one line."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from helpers import assert_one_line_error, run_in_process

import pairboot


def planned(*args) -> dict:
    proc = run_in_process("power", *args, "--format", "json")
    assert proc.returncode == 0, proc.stderr.decode()
    return json.loads(proc.stdout)


def test_parameters_on_the_command_line_are_the_apis():
    out = planned("--rate-a", "0.5", "--rate-sd", "0.3", "--shift-sd", "0.5", "--metric",
                  "pass^3", "--runs", "samples", "--n-runs", "6", "--delta", "0.1",
                  "--power", "0.8")
    res = pairboot.power(rate_a=0.5, rate_sd=0.3, shift_sd=0.5, metric="pass^3",
                         runs="samples", n_runs=6, delta=0.1, power=0.8)
    assert out["n_items"] == res.n_items and out["n_runs"] == 6
    assert [g["n_items"] for g in out["trials_grid"]] == [g.n_items for g in res.trials_grid]
    assert out["summary"].endswith("tasks, 6 trials each")


@pytest.fixture(scope="module")
def trials_file(tmp_path_factory):
    """task, trial, A, B: 30 tasks x 4 trials of 0/1 outcomes."""
    rng = np.random.default_rng(2)
    p = rng.beta(0.7, 0.7, 30)
    a = rng.random((30, 4)) < p[:, None]
    b = rng.random((30, 4)) < np.clip(p[:, None] + rng.normal(0.1, 0.3, (30, 1)), 0, 1)
    path = tmp_path_factory.mktemp("trials") / "trials.csv"
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["task", "trial", "A", "B"])
        for i in range(30):
            for t in range(4):
                w.writerow([f"t{i}", t, int(a[i, t]), int(b[i, t])])
    return path, a.astype(float), b.astype(float)


def test_a_pilot_of_trials_on_the_command_line_is_the_apis(trials_file):
    path, a, b = trials_file
    out = planned(path, "--id", "task", "--run", "trial", "--a", "A", "--b", "B",
                  "--runs", "samples", "--metric", "pass^2", "--delta", "0.1", "--power",
                  "0.8")
    res = pairboot.power(a, b, runs="samples", metric="pass^2", delta=0.1, power=0.8)
    assert out["n_items"] == res.n_items and out["n_runs"] == 4
    assert out["between_variance"] == pytest.approx(res.between_variance, rel=1e-12)


@pytest.mark.parametrize("args, words", [
    (("--rate-a", "0.5", "--rate-sd", "0.3", "--metric", "pass^2", "--runs", "samples",
      "--n-runs", "1", "--delta", "0.1", "--power", "0.8"), ("--n-runs", "k = 2")),
    (("--rate-a", "0.5", "--rate-sd", "0.3", "--delta", "0.1", "--power", "0.8"),
     ("--rate-a", "--metric")),
    (("--rate-a", "0.5", "--rate-sd", "0.3", "--metric", "pass^2", "--delta", "0.1",
      "--power", "0.8"), ("--runs samples",)),
    (("--rate-a", "0.5", "--rate-sd", "0.9", "--metric", "pass^2", "--runs", "samples",
      "--delta", "0.1", "--power", "0.8"), ("--rate-sd",)),
])
def test_bad_trials_plans_are_one_line(args, words):
    assert_one_line_error(run_in_process("power", *args), *words)


def test_a_pilot_with_fewer_trials_than_k_names_the_task(trials_file):
    path, _, _ = trials_file
    proc = run_in_process("power", path, "--id", "task", "--run", "trial", "--a", "A",
                          "--b", "B", "--runs", "samples", "--metric", "pass^5",
                          "--delta", "0.1", "--power", "0.8")
    assert_one_line_error(proc, "t0", "fewer than k = 5")

"""``pairboot compare ... --stratum task --aggregate NAME``: the aggregate over tasks on
the command line equals :func:`pairboot.compare_tasks` on the same scores; every format,
``--plot``; what it does not take is one error line."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import assert_one_line_error, run_in_process

import pairboot

pytestmark = pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")

R = 999


def _table(path, n_tasks=5, n_items=30, seed=0):
    rng = np.random.default_rng(seed)
    rows, scores, labels = [], {"a": [], "b": [], "c": []}, []
    for t in range(n_tasks):
        for i in range(n_items):
            values = {n: int(rng.random() < 0.3 + 0.1 * t + shift)
                      for n, shift in (("a", 0.0), ("b", 0.1), ("c", 0.2))}
            rows.append(f"{t}-{i},task{t},{values['a']},{values['b']},{values['c']}")
            for n, v in values.items():
                scores[n].append(float(v))
            labels.append(f"task{t}")
    path.write_text("id,task,a,b,c\n" + "\n".join(rows) + "\n")
    return {n: np.array(v) for n, v in scores.items()}, labels


def _run(path, *args):
    return run_in_process("compare", path, "--systems", "a,b,c", "--stratum", "task",
                          "--seed", "3", "--resamples", str(R), "--no-progress", *args)


@pytest.mark.parametrize(("aggregate", "vary"), [("iqm", "items"), ("borda", "both")])
def test_the_json_report_is_compare_tasks(tmp_path, aggregate, vary):
    scores, labels = _table(tmp_path / "s.csv")
    proc = _run(tmp_path / "s.csv", "--aggregate", aggregate, "--vary", vary,
                "--format", "json")
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    got.pop("signature")
    assert got.pop("schema") == "pairboot.compare_tasks/1"
    res = pairboot.compare_tasks(scores, tasks=labels, aggregate=aggregate, resample=vary,
                                 seed=3, n_resamples=R)
    assert got == json.loads(json.dumps(res.to_dict()))


@pytest.mark.parametrize("fmt", ["text", "markdown", "latex", "html"])
def test_every_format(tmp_path, fmt):
    _table(tmp_path / "s.csv")
    proc = _run(tmp_path / "s.csv", "--aggregate", "win-rate", "--format", fmt)
    assert proc.returncode == 0, proc.stderr
    assert b"win-rate" in proc.stdout


def test_the_rank_plot_is_drawn(tmp_path):
    pytest.importorskip("matplotlib")
    _table(tmp_path / "s.csv")
    proc = _run(tmp_path / "s.csv", "--aggregate", "mean", "--baseline", "a",
                "--plot", tmp_path / "ranks.png")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "ranks.png").stat().st_size > 0
    assert b"b - a" in proc.stdout and b"c - b" not in proc.stdout


@pytest.mark.parametrize(("args", "words"), [
    (("--aggregate", "mean", "--margin", "0.1"), ("--margin",)),
    (("--aggregate", "mean", "--unpaired"), ("--unpaired",)),
    (("--aggregate", "mean", "--gamma", "0.9"), ("--gamma", "optimality-gap")),
    (("--vary", "tasks"), ("--vary", "--aggregate")),
    (("--aggregate", "mean", "--format", "github"), ("--format github",)),
    (("--aggregate", "optimality-gap", "--lower-is-better"), ("--lower-is-better",)),
    (("--aggregate", "mean", "--correction", "bh"), ("--correction",)),
])
def test_what_the_aggregate_does_not_take_is_one_error_line(tmp_path, args, words):
    _table(tmp_path / "s.csv")
    assert_one_line_error(_run(tmp_path / "s.csv", *args), *words)


def test_no_tasks_is_one_error_line(tmp_path):
    _table(tmp_path / "s.csv")
    proc = run_in_process("compare", tmp_path / "s.csv", "--systems", "a,b,c",
                          "--aggregate", "mean", "--no-progress")
    assert_one_line_error(proc, "--stratum")

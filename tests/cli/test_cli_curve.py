"""``pairboot compare ... --runs samples --curve pass^k``: the curve on the command line
equals :func:`pairboot.trials_curve` on the same items x trials tables, from a long
table, Inspect's epochs and tau-bench's trials; every format the curve has, ``--plot``;
what the curve does not take is one error line."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import assert_one_line_error, inspect_log, run_in_process

import pairboot

pytestmark = pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")

R = 1000


def _trials(n=30, trials=4, seed=2):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    a = (rng.random((n, trials)) < p[:, None]).astype(int)
    b = (rng.random((n, trials)) < np.clip(p[:, None] + 0.2, 0, 1)).astype(int)
    return a, b


def _long(path, a, b):
    rows = [f"task{i},t{t},{a[i, t]},{b[i, t]}" for t in range(a.shape[1])
            for i in range(len(a))]
    path.write_text("task,trial,A,B\n" + "\n".join(rows) + "\n")
    return path


def _run(*args):
    return run_in_process("compare", *args, "--seed", "5", "--resamples", str(R),
                          "--no-progress")


def _same(got: dict, res) -> None:
    """The JSON report is its schema's name, the result's fields and the signature."""
    assert got.pop("schema") == "pairboot.curve/1"
    got.pop("signature")
    assert got == json.loads(json.dumps(res.to_dict()))


@pytest.mark.parametrize("kind, ks", [("pass^k", None), ("pass@k", "1,3")])
def test_long_table_equals_python(tmp_path, kind, ks):
    a, b = _trials()
    path = _long(tmp_path / "trials.csv", a, b)
    proc = _run(path, "--a", "A", "--b", "B", "--id", "task", "--run", "trial", "--runs",
                "samples", "--curve", kind, *(() if ks is None else ("--ks", ks)),
                "--format", "json")
    assert proc.returncode == 0, proc.stderr
    res = pairboot.trials_curve(a, b, kind=kind, ks=None if ks is None else [1, 3],
                                seed=5, n_resamples=R)
    _same(json.loads(proc.stdout), res)


def test_every_format_and_one_k(tmp_path):
    a, b = _trials()
    path = _long(tmp_path / "trials.csv", a, b)
    common = (path, "--a", "A", "--b", "B", "--id", "task", "--run", "trial", "--runs",
              "samples", "--curve", "pass^k")
    text = _run(*common).stdout.decode()
    assert text.startswith("pass^k of A and B over k = 1, 2, 3, 4 (30 items)")
    assert "| k |" in _run(*common, "--format", "markdown").stdout.decode()
    out = tmp_path / "curve.html"
    assert _run(*common, "--format", "html", "--output", out).returncode == 0
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and "pairboot-curve" in page
    one = _run(*common, "--ks", "2")  # (one k: compare()'s interval, as the report says)
    assert one.returncode == 0, one.stderr
    assert "its simultaneous interval is its pointwise one" in one.stdout.decode()


def test_inspect_epochs_and_tau_bench_trials(tmp_path):
    """The readers that keep the trials feed the curve as they feed --metric pass^k."""
    rng = np.random.default_rng(4)
    values = {m: rng.choice(["C", "I"], (40, 3), p=[p, 1 - p])
              for m, p in (("model/a", 0.5), ("model/b", 0.65))}
    inspect_log(tmp_path / "a.eval", "model/a", values["model/a"].tolist())
    inspect_log(tmp_path / "b.json", "model/b", values["model/b"].tolist())
    proc = _run(tmp_path / "a.eval", tmp_path / "b.json", "--score", "match", "--runs",
                "samples", "--curve", "pass^k", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    a, b = ((values[m] == "C").astype(float) for m in ("model/a", "model/b"))
    got = json.loads(proc.stdout)
    res = pairboot.trials_curve(a, b, seed=5, n_resamples=R, names=got["names"])
    _same(got, res)
    ta, tb = _trials(n=20, trials=3, seed=7)
    for path, rewards in ((tmp_path / "ta.json", ta), (tmp_path / "tb.json", tb)):
        path.write_text(json.dumps([{"task_id": i, "trial": t, "reward": float(rewards[i, t]),
                                     "info": {}, "traj": []}
                                    for t in range(3) for i in range(20)]))
    proc = _run(tmp_path / "ta.json", tmp_path / "tb.json", "--runs", "samples", "--curve",
                "pass^k", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert got["names"] == ["ta", "tb"]
    _same(got, pairboot.trials_curve(ta, tb, seed=5, n_resamples=R, names=("ta", "tb")))


def test_plot(tmp_path):
    pytest.importorskip("matplotlib")
    a, b = _trials()
    path = _long(tmp_path / "trials.csv", a, b)
    picture = tmp_path / "curve.png"
    proc = _run(path, "--a", "A", "--b", "B", "--id", "task", "--run", "trial", "--runs",
                "samples", "--curve", "pass^k", "--plot", picture)
    assert proc.returncode == 0, proc.stderr
    assert picture.read_bytes().startswith(b"\x89PNG")
    page = tmp_path / "curve.html"
    assert _run(path, "--a", "A", "--b", "B", "--id", "task", "--run", "trial", "--runs",
                "samples", "--curve", "pass^k", "--format", "html", "-o", page).returncode == 0
    assert "<svg" in page.read_text()  # (the two panels, inline)


@pytest.mark.parametrize("extra, words", [
    (("--runs", "samples", "--ks", "1,9"), ["'task0'", "fewer than k = 9"]),
    (("--runs", "samples", "--ks", "1,x"), ["--ks", "'1,x'"]),
    (("--runs", "samples", "--ks", "2,2"), ["--ks", "distinct"]),
    (("--runs", "seeds",), ["--curve needs --runs samples"]),
    (("--runs", "samples", "--metric", "pass^2", "--top", "3", "--unpaired"),
     ["--curve does not take --metric, --top, --unpaired"]),
    (("--runs", "samples", "--alternative", "greater"), ["--alternative"]),
    (("--runs", "samples", "--no-exact"), ["--no-exact"]),
    (("--runs", "samples", "--format", "latex"), ["--format latex", "text, json"]),
])
def test_bad_input_is_one_line(tmp_path, extra, words):
    a, b = _trials()
    path = _long(tmp_path / "trials.csv", a, b)
    common = (path, "--a", "A", "--b", "B", "--id", "task", "--run", "trial")
    assert_one_line_error(_run(*common, "--curve", "pass^k", *extra), *words)


def test_ks_without_a_curve_and_a_family_are_one_line(tmp_path):
    a, b = _trials()
    path = _long(tmp_path / "trials.csv", a, b)
    common = (path, "--id", "task", "--run", "trial", "--runs", "samples")
    assert_one_line_error(_run(*common, "--a", "A", "--b", "B", "--ks", "2"),
                          "--ks", "--curve")
    three = tmp_path / "three.csv"
    rows = path.read_text().splitlines()
    three.write_text("\n".join([rows[0] + ",C"] + [r + ",1" for r in rows[1:]]) + "\n")
    assert_one_line_error(_run(three, "--systems", "A,B,C", "--id", "task", "--run",
                               "trial", "--runs", "samples", "--curve", "pass^k"),
                          "--curve compares two systems", "3")

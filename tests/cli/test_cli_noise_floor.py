"""``pairboot compare --noise-floor COL,COL``: two columns of A's runs in the file of --a
and --b give the report's noise floor, equal to ``pairboot.compare(a, b,
noise_floor=pairboot.noise_floor(base, rerun))`` on the same tables; bad input is one
error line."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import assert_one_line_error, run_in_process

import pairboot

pytestmark = pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")


def _trials(n=40, trials=4, seed=3):
    """A's trials twice (the same build: the same rates), and B's."""
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    a, a2 = ((rng.random((n, trials)) < p[:, None]).astype(int) for _ in range(2))
    b = (rng.random((n, trials)) < np.clip(p[:, None] + 0.2, 0, 1)).astype(int)
    return a, a2, b


def _long(path, a, a2, b):
    rows = [f"task{i},t{t},{a[i, t]},{a2[i, t]},{b[i, t]}" for t in range(a.shape[1])
            for i in range(len(a))]
    path.write_text("task,trial,A,A2,B\n" + "\n".join(rows) + "\n")
    return path


def _wide(path, a, a2, b):
    rows = [f"task{i},{a[i]},{a2[i]},{b[i]}" for i in range(len(a))]
    path.write_text("task,A,A2,B\n" + "\n".join(rows) + "\n")
    return path


def _run(*args):
    return run_in_process("compare", *args, "--seed", "5", "--resamples", "1000",
                          "--no-progress")


def test_long_table_s_floor_equals_python(tmp_path):
    a, a2, b = _trials()
    path = _long(tmp_path / "trials.csv", a, a2, b)
    proc = _run(path, "--a", "A", "--b", "B", "--id", "task", "--run", "trial", "--runs",
                "samples", "--metric", "pass^2", "--noise-floor", "A,A2", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)["noise_floor"]
    kw = dict(runs="samples", metric="pass^2", seed=5, n_resamples=1000)
    floor = pairboot.noise_floor(a, a2, **kw)
    res = pairboot.compare(a, b, noise_floor=floor, **kw)
    assert got == json.loads(json.dumps(res.noise_floor.to_dict()))
    assert got["n_trials"] == 4 and got["n_units"] == 40
    text = _run(path, "--a", "A", "--b", "B", "--id", "task", "--run", "trial", "--runs",
                "samples", "--noise-floor", "A,A2").stdout.decode()
    assert "re-running alone moves a difference by" in text


def test_one_score_per_item_floor_equals_python(tmp_path):
    a, a2, b = (x.mean(axis=1) for x in _trials())
    path = _wide(tmp_path / "scores.csv", a, a2, b)
    proc = _run(path, "--a", "A", "--b", "B", "--id", "task", "--noise-floor", "A,A2",
                "--format", "json")
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)["noise_floor"]
    ids = [f"task{i}" for i in range(len(a))]
    floor = pairboot.noise_floor(a, a2, seed=5, n_resamples=1000, ids=ids)
    assert got["floor"] == floor.floor._asdict()
    assert got["minimum_detectable"] == pytest.approx(floor.minimum_detectable, rel=1e-12)


def test_bad_input_is_one_line(tmp_path):
    a, a2, b = _trials()
    path = _long(tmp_path / "trials.csv", a, a2, b)
    common = (path, "--a", "A", "--b", "B", "--id", "task", "--run", "trial", "--runs",
              "samples")
    assert_one_line_error(_run(*common, "--noise-floor", "A"), "--noise-floor names two")
    assert_one_line_error(_run(*common, "--noise-floor", "A,Z"), "no column 'Z'")
    bad = path.read_text().replace("task0,t0,0,", "task0,t0,3,").replace(
        "task0,t0,1,", "task0,t0,3,")
    path.write_text(bad)
    assert_one_line_error(_run(*common, "--noise-floor", "A,A2", "--metric", "pass^2"),
                          "--noise-floor column 'A'", "item 'task0'")
    wide = _wide(tmp_path / "s.csv", *(x.mean(axis=1) for x in _trials()))
    other = tmp_path / "t.csv"
    other.write_text(wide.read_text())
    assert_one_line_error(_run(wide, other, "--score", "A", "--id", "task",
                               "--noise-floor", "A,A2"), "--noise-floor with two files")

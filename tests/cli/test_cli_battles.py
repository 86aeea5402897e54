"""``pairboot battles``: the command line equals compare_preferences() on the battles
read from the same files; bad input is one error line naming the file, option or
systems."""

from __future__ import annotations

import json

import pytest
from helpers import assert_one_line_error, run_in_process

import pairboot
from pairboot.io import preferences


def _folder(tmp_path):
    folder = tmp_path / "judgments"
    folder.mkdir()
    verdicts = ["A>>B", "A>B", "A=B", "B>A", "B>>A"]
    for k, model in enumerate(("m1", "m2", "m3")):
        with open(folder / f"{model}.jsonl", "w") as f:
            for q in range(40):
                games = [verdicts[(q + k) % 5], verdicts[(q * 3 + k) % 5]]
                f.write(json.dumps({"question_id": f"q{q}", "model": model,
                                    "games": [{"score": g} for g in games]}) + "\n")
    return folder


def test_the_command_line_is_the_api(tmp_path):
    folder = _folder(tmp_path)
    proc = run_in_process("battles", folder, "--baseline", "base", "--resamples", 200,
                          "--seed", 4, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    battles = preferences.read(folder, baseline="base")
    res = pairboot.compare_preferences(battles, baseline="base", n_resamples=200, seed=4)
    assert [s["rating"] for s in out["systems"]] == pytest.approx(
        [s.rating for s in res.systems], abs=1e-9)
    assert out["systems"][0]["interval"]["low"] == pytest.approx(
        res.systems[0].interval.low, abs=1e-9)


def test_a_plot_and_the_text_report(tmp_path):
    pytest.importorskip("matplotlib")
    folder = _folder(tmp_path)
    proc = run_in_process("battles", folder, "--baseline", "base", "--resamples", 50,
                          "--plot", tmp_path / "r.png", "--model", "davidson",
                          "--ties", "separate", "--anchor", "base")
    assert proc.returncode == 0, proc.stderr
    assert b"Davidson's tie parameter" in proc.stdout
    assert (tmp_path / "r.png").stat().st_size > 0


def test_bad_input_is_one_line(tmp_path):
    folder = _folder(tmp_path)
    assert_one_line_error(run_in_process("battles", folder), "do not name the baseline",
                          "--baseline")
    assert_one_line_error(run_in_process("battles", folder, "--baseline", "base",
                                         "--anchor", "nobody"), "--anchor 'nobody'")
    path = tmp_path / "b.csv"
    path.write_text("question_id,model_a,model_b,winner\np1,x,y,model_a\np2,u,v,tie\n")
    assert_one_line_error(run_in_process("battles", path),
                          "do not connect the systems", "'u', 'v' | 'x', 'y'")
    assert_one_line_error(run_in_process("battles", path, "--verdict", "w"),
                          "--verdict", "of the table format only")
    assert_one_line_error(run_in_process("battles", folder, "--baseline", "base",
                                         "--output", folder / "m1.jsonl"), "m1.jsonl")
    soft = tmp_path / "annotations.json"
    soft.write_text(json.dumps([{"instruction": f"i{k}", "generator_1": "r",
                                 "generator_2": "m", "preference": 1.3} for k in range(4)]))
    assert_one_line_error(run_in_process("battles", soft, "--model", "davidson"),
                          "--model davidson needs verdicts that are a win, a tie or a loss")

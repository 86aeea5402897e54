"""Readers of preference data (pairboot.io.preferences): arena-hard judgments, Chatbot
Arena battle tables, AlpacaEval annotations and plain tables, on small files shaped as
the public ones; what is kept out is said; bad rows are one line naming the place."""

from __future__ import annotations

import json

import numpy as np
from helpers import error, real_data

from pairboot.io import preferences


def _arena_hard(folder, rows_by_model):
    folder.mkdir(exist_ok=True)
    for model, rows in rows_by_model.items():
        with open(folder / f"{model}.jsonl", "w") as f:
            for qid, games in rows:
                f.write(json.dumps({"question_id": qid, "model": model, "judge": "j",
                                    "games": [{"score": g} for g in games]}) + "\n")
    return folder


def test_arena_hard_games_show_the_baseline_first_then_the_model(tmp_path):
    folder = _arena_hard(tmp_path / "j", {
        "m1": [("q1", ["A>>B", "B>A"]), ("q2", ["A=B", None])],
        "base": [("q1", ["A=B", "A=B"])]})
    b = preferences.read(folder, baseline="base")
    assert preferences.detect(folder) == "arena-hard"
    assert b.prompts.tolist() == ["q1", "q1", "q2"]
    assert b.a.tolist() == ["base", "m1", "base"]  # game 1: baseline first; game 2 swapped
    assert b.b.tolist() == ["m1", "base", "m1"]
    assert b.outcome.tolist() == [1.0, 0.0, 0.5]  # A>>B: the first (base) wins
    assert b.weight.tolist() == [3.0, 1.0, 1.0]  # arena-hard's weight of a strong verdict
    assert b.game.tolist() == [0, 1, 0]
    notes = " ".join(b.notes)
    assert "base.jsonl: the baseline judged against itself, kept out" in notes
    assert "1 game(s) with no verdict" in notes
    assert preferences.read(folder, baseline="base", strong_weight=1).weight.tolist() == [
        1.0, 1.0, 1.0]


def test_arena_hard_needs_its_baseline_named(tmp_path):
    folder = _arena_hard(tmp_path / "j", {"m1": [("q1", ["A>B", "B>A"])]})
    assert "do not name the baseline" in error(preferences.read, folder)


def test_a_bad_arena_hard_label_names_the_line_and_game(tmp_path):
    folder = _arena_hard(tmp_path / "j", {"m1": [("q1", ["A>B", "B>A"]),
                                                 ("q2", ["A>B", "better"])]})
    msg = error(preferences.read, folder, baseline="base")
    assert "m1.jsonl: line 2: game 2: verdict 'better'" in msg


def test_chatbot_arena_battles(tmp_path):
    path = tmp_path / "battles.csv"
    path.write_text("question_id,model_a,model_b,winner\n"
                    "p1,x,y,model_a\np1,y,z,tie (bothbad)\np2,z,x,model_b\np3,x,x,tie\n")
    b = preferences.read(path)
    assert preferences.detect(path) == "arena"
    assert b.outcome.tolist() == [1.0, 0.5, 0.0]
    assert (b.game == -1).all()
    assert any("1 battle(s) of a system against itself, kept out" in n for n in b.notes)


def test_chatbot_arena_without_prompts_makes_each_battle_its_own(tmp_path):
    path = tmp_path / "battles.jsonl"
    path.write_text("\n".join(json.dumps({"model_a": a, "model_b": b, "winner": w})
                              for a, b, w in (("x", "y", "model_a"), ("y", "x", "tie"))))
    b = preferences.read(path)
    assert len(set(b.prompts)) == 2
    assert any("each battle is its own prompt" in n for n in b.notes)


def test_alpaca_eval_preference_is_generator_2_s_share(tmp_path):
    path = tmp_path / "annotations.json"
    path.write_text(json.dumps([
        {"instruction": "i1", "generator_1": "ref", "generator_2": "m", "preference": 1.75},
        {"instruction": "i2", "generator_1": "ref", "generator_2": "m", "preference": None},
        {"instruction": "i3", "generator_1": "ref", "generator_2": "m", "preference": 1.0}]))
    b = preferences.read(path)
    assert preferences.detect(path) == "alpaca-eval"
    assert b.a.tolist() == ["ref", "ref"] and b.b.tolist() == ["m", "m"]
    assert np.allclose(b.outcome, [0.25, 1.0])
    assert any("1 record(s) with no preference, kept out" in n for n in b.notes)
    path.write_text(json.dumps([{"instruction": "i", "generator_1": "r", "generator_2": "m",
                                 "preference": 2.5}]))
    assert "record 1: preference 2.5 is not a number in [1, 2]" in error(preferences.read,
                                                                          path)


def test_a_table_with_named_columns_games_and_weights(tmp_path):
    path = tmp_path / "votes.csv"
    path.write_text("qid,left,right,who,swapped,w\n"
                    "q1,x,y,A,0,1\nq1,y,x,B>>A,1,2\nq2,x,y,0.25,,1\n")
    cols = {"prompt": "qid", "a": "left", "b": "right", "verdict": "who", "game": "swapped",
            "weight": "w"}
    b = preferences.read(path, "table", columns=cols, strong_weight=2)
    assert b.outcome.tolist() == [1.0, 0.0, 0.25]
    assert b.weight.tolist() == [1.0, 4.0, 1.0]
    assert b.game.tolist() == [0, 1, -1]
    path.write_text("prompt,a,b,verdict\nq1,x,y,maybe\n")
    assert "votes.csv: line 2: verdict 'maybe'" in error(preferences.read, path, "table")
    path.write_text("prompt,a,b\nq1,x,y\n")
    assert "no column 'verdict'" in error(preferences.read, path, "table")


def test_files_of_two_formats_are_refused(tmp_path):
    one = tmp_path / "a.csv"
    one.write_text("question_id,model_a,model_b,winner\np,x,y,tie\n")
    two = tmp_path / "b.csv"
    two.write_text("prompt,a,b,verdict\np,x,y,A\n")
    assert "different formats" in error(preferences.read, [one, two])


def test_the_real_ko_arena_hard_judgments():
    folder = real_data("ko_arena_hard", "model_judgment_ensemble")
    b = preferences.read(folder, baseline="claude-3.7-sonnet")
    assert len(b.systems) == 76 and len(set(b.prompts)) == 500
    assert set(b.game.tolist()) == {0, 1}

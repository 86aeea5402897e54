"""``pairboot agreement`` and ``pairboot gold-labels``: each equals its Python function
(:func:`pairboot.agreement`, :func:`pairboot.gold_labels`) on the same columns, and bad
input is one error line naming the file, the row, the column or the option."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from helpers import assert_one_line_error, run_in_process

import pairboot

N = 120


@pytest.fixture()
def ratings(tmp_path):
    """A judge's and a person's 1-5 ratings (the person's empty on a third of the rows),
    a verdict of each as text, documents of 4 items."""
    rng = np.random.default_rng(11)
    human = rng.integers(1, 6, N)
    judge = np.clip(human + rng.integers(-1, 2, N), 1, 5)
    rated = rng.random(N) < 0.67
    lines = [f"q{i},d{i // 4},{judge[i]},{human[i] if rated[i] else ''},"
             f"{'yes' if judge[i] > 2 else 'no'},{'yes' if human[i] > 2 else 'no'}"
             for i in range(N)]
    path = tmp_path / "rated.csv"
    path.write_text("id,doc,judge,human,jv,hv\n" + "\n".join(lines) + "\n")
    docs = np.array([f"d{i // 4}" for i in range(N)])
    return path, judge, human, rated, docs


def _json(*args):
    proc = run_in_process(*args, "--format", "json")
    assert proc.returncode == 0, proc.stderr.decode()
    return json.loads(proc.stdout)


def test_agreement_equals_python(ratings):
    path, judge, human, rated, docs = ratings
    out = _json("agreement", path, "--a", "judge", "--b", "human", "--skip-unrated",
                "--statistics", "kappa-quadratic,ac1,alpha-ordinal", "--categories",
                "1,2,3,4,5", "--group", "doc", "--resamples", 400, "--seed", 2,
                "--no-progress")
    res = pairboot.agreement(judge[rated], human[rated], statistics=(
        "kappa-quadratic", "ac1", "alpha-ordinal"), categories=[1, 2, 3, 4, 5],
        groups=docs[rated], n_resamples=400, seed=2)
    assert [r["estimate"] for r in out["rows"]] == [r.estimate for r in res.rows]
    assert [r["confidence_interval"]["low"] for r in out["rows"]] == [
        r.confidence_interval.low for r in res.rows]
    assert out["categories"] == [1, 2, 3, 4, 5] and out["n_groups"] == res.n_groups
    assert (out["name_a"], out["name_b"]) == ("judge", "human")
    left = N - rated.sum()
    assert out["warnings"] == [f"{left} of the {N} rows of {path} left out: a rater's "
                               "cell is empty (--skip-unrated)"]


def test_agreement_of_text_verdicts(ratings):
    path, judge, human, *_ = ratings
    out = _json("agreement", path, "--a", "jv", "--b", "hv", "--statistics",
                "accuracy,sensitivity,specificity", "--names", "gpt,people",
                "--resamples", 300, "--seed", 1, "--no-progress")
    jv, hv = np.where(judge > 2, "yes", "no"), np.where(human > 2, "yes", "no")
    res = pairboot.agreement(jv, hv, statistics=("accuracy", "sensitivity", "specificity"),
                             n_resamples=300, seed=1)
    assert [r["estimate"] for r in out["rows"]] == [r.estimate for r in res.rows]
    assert out["categories"] == ["no", "yes"] and out["name_a"] == "gpt"
    proc = run_in_process("agreement", path, "--a", "jv", "--b", "hv", "--resamples", 200,
                          "--no-progress", "--names", "gpt,people")
    text = proc.stdout.decode()
    assert text.startswith("Agreement of two raters (gpt and people) on 120 items")
    assert "gpt \\ people" in text and "Gwet's AC1" in text


def test_agreement_latex_and_github(ratings):
    path, *_ = ratings
    for fmt, start in (("latex", "% pairboot "), ("github", "### pairboot: agreement")):
        proc = run_in_process("agreement", path, "--a", "jv", "--b", "hv", "--resamples",
                              200, "--format", fmt, "--no-progress")
        assert proc.returncode == 0 and proc.stdout.decode().startswith(start)


@pytest.mark.parametrize("extra, words", [
    ((), ("rated.csv", "line FIRST,", "column 'human'", "no rating", "--skip-unrated")),
    (("--skip-unrated", "--statistics", "kappa,nope"), ("--statistics", "'nope'")),
    (("--skip-unrated", "--statistics", "accuracy"), ("0/1 verdicts", "5 categories")),
    (("--skip-unrated", "--categories", "1,2,x"), ("--categories", "numbers")),
    (("--skip-unrated", "--group", "nope"), ("no column 'nope'",)),
    (("--skip-unrated", "--names", "one"), ("--names",)),
    (("--skip-unrated", "--method", "bca"), ("--method",)),
    (("--skip-unrated", "--level", "95"), ("--level 0.95",)),
])
def test_bad_agreement_input_is_one_line(ratings, extra, words):
    path, _, _, rated, _ = ratings
    first = int(np.argmin(rated)) + 2  # (the first unrated row's line: after the header)
    assert_one_line_error(run_in_process("agreement", path, "--a", "judge", "--b", "human",
                                         "--resamples", 100, "--no-progress", *extra),
                          *(w.replace("FIRST", str(first)) for w in words))


def test_a_rating_off_the_scale_names_its_line_and_column(ratings):
    """It read "`rater_a` rates item 12 5": no file, line or column, and the item
    counted after the unrated rows were left out."""
    path, judge, _, rated, _ = ratings
    first = int(np.flatnonzero(rated & (judge == 5))[0]) + 2
    assert_one_line_error(run_in_process("agreement", path, "--a", "judge", "--b", "human",
                                         "--skip-unrated", "--categories", "1,2,3,4"),
                          "rated.csv", f"line {first},", "column 'judge'", "rating 5",
                          "--categories 1,2,3,4")


def test_the_same_column_twice_is_refused(ratings):
    path, *_ = ratings
    assert_one_line_error(run_in_process("agreement", path, "--a", "jv", "--b", "jv"),
                          "same column")


# ------------------------------------------------------------------ gold-labels


def test_gold_labels_without_data_equals_python():
    out = _json("gold-labels", "--sd", "1.0", "--correlation", "0.7", "--n-items", "5000",
                "--half-width", "0.1")
    plan = pairboot.gold_labels(sd=1.0, correlation=0.7, n_items=5000, half_width=0.1)
    assert (out["n_gold"], out["n_gold_alone"], out["n_pilot"]) == (204, 385, None)
    assert out == json.loads(pairboot.report.render(plan, "json"))
    out = _json("gold-labels", "--sd", "1.0", "--correlation", "0.5", "--n-items", "3000",
                "--delta", "0.2", "--power", "0.9", "--alternative", "greater")
    plan = pairboot.gold_labels(sd=1.0, correlation=0.5, n_items=3000, delta=0.2,
                                power=0.9, alternative="greater")
    assert out["n_gold"] == plan.n_gold and out["alternative"] == "greater"


@pytest.fixture()
def pilot(tmp_path):
    rng = np.random.default_rng(8)
    n = 200
    q = rng.normal(0.5, 0.3, (n, 2))
    judge = np.round(q + rng.normal(0, 0.2, (n, 2)), 4)
    lab = rng.random(n) < 0.5
    gold = np.where(lab[:, None], np.round(q, 4), np.nan)
    one = tmp_path / "pilot.csv"
    one.write_text("id,ja,jb,ga,gb\n" + "".join(
        f"q{i},{judge[i, 0]},{judge[i, 1]},"
        + ("," if not lab[i] else f"{gold[i, 0]},{gold[i, 1]}") + "\n" for i in range(n)))
    files = []
    for k in range(2):
        files.append(tmp_path / f"{'ab'[k]}.jsonl")
        files[-1].write_text("".join(json.dumps({
            "id": f"q{i}", "judge": judge[i, k],
            "human": None if not lab[i] else gold[i, k]}) + "\n" for i in range(n)[::-1 if k
                                                                                   else 1]))
    return one, files, judge, gold


def test_gold_labels_from_a_pilot_equals_python(pilot):
    one, files, judge, gold = pilot
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan = pairboot.gold_labels(judge[:, 0], judge[:, 1], gold_a=gold[:, 0],
                                    gold_b=gold[:, 1], n_items=4000, half_width=0.03)
    out = _json("gold-labels", one, "--a", "ja", "--b", "jb", "--gold-a", "ga", "--gold-b",
                "gb", "--n-items", "4000", "--half-width", "0.03")
    assert out == json.loads(pairboot.report.render(plan, "json"))
    assert out["n_pilot"] == int((~np.isnan(gold[:, 0])).sum())
    two = _json("gold-labels", *files, "--score", "judge", "--gold-score", "human", "--id",
                "id", "--n-items", "4000", "--half-width", "0.03")
    assert two == out  # (B's file in reverse order, joined on the ids)
    text = run_in_process("gold-labels", one, "--a", "ja", "--b", "jb", "--gold-a", "ga",
                          "--gold-b", "gb", "--half-width", "0.03").stdout.decode()
    assert "200 items scored by the judge" in text and "from a pilot's" in text


@pytest.mark.parametrize("args, words", [
    (("--sd", "1", "--n-items", "100", "--half-width", "0.1"),
     ("--sd and --correlation",)),
    (("--a", "ja", "--sd", "1", "--correlation", "0.5", "--n-items", "100",
      "--half-width", "0.1"), ("--a describes a pilot's file",)),
    (("--sd", "1", "--correlation", "0.5", "--half-width", "0.1"), ("--n-items",)),
    (("--sd", "1", "--correlation", "1.5", "--n-items", "100", "--half-width", "0.1"),
     ("--correlation",)),
    (("--sd", "1", "--correlation", "0.5", "--n-items", "100"), ("--half-width",)),
])
def test_bad_plans_are_one_line(args, words):
    assert_one_line_error(run_in_process("gold-labels", *args), *words)


def test_a_bad_pilot_is_one_line(pilot):
    one, files, *_ = pilot
    assert_one_line_error(run_in_process("gold-labels", one, "--a", "ja", "--b", "jb",
                                         "--gold-a", "ga", "--gold-b", "gb", "--sd", "1",
                                         "--half-width", "0.1"),
                          "--sd with a pilot")
    assert_one_line_error(run_in_process("gold-labels", one, "--a", "ja", "--b", "jb",
                                         "--gold-a", "ga", "--half-width", "0.1"),
                          "give both --gold-a and --gold-b")
    assert_one_line_error(run_in_process("gold-labels", *files, "--score", "judge",
                                         "--gold-score", "human", "--gold-a", "x",
                                         "--half-width", "0.1"), "two layouts")

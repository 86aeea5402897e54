"""``pairboot compare`` with gold labels and a pooled metric (``--metric f1``, ``--stats``)
or several judge calls per item (``--runs samples --run COL``): the command line equals
``pairboot.compare_ppi`` on the same arrays, both layouts give one answer, and bad input
is one error line naming the file, the row or the id, and the column."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from helpers import assert_one_line_error, run_in_process

import pairboot

N = 160
STATS = ("tp", "fp", "fn")


@pytest.fixture(scope="module")
def counts():
    """Per-item tp, fp, fn of A and B (gold) and a judge's (off by a count here and
    there), gold on a random 30% of the items."""
    rng = np.random.default_rng(11)
    gold = np.stack([rng.integers(0, 6, (N, 2)), rng.integers(0, 3, (N, 2)),
                     rng.integers(0, 3, (N, 2))], axis=-1).astype(float)  # items x 2 x 3
    judge = np.clip(gold + rng.integers(-1, 2, gold.shape), 0, None)
    lab = rng.random(N) < 0.3
    return judge, np.where(lab[:, None, None], gold, np.nan), lab


def _cell(x: float) -> str:
    return "" if np.isnan(x) else f"{x:g}"


@pytest.fixture()
def one_file(counts, tmp_path):
    judge, gold, _ = counts
    head = ["id"] + [f"{s}_{st}" for s in ("base", "new") for st in STATS]
    head += [f"{st}_{s}" for s in ("human_base", "human_new") for st in STATS]
    rows = [",".join([f"q{i}", *(_cell(judge[i, k, s]) for k in (0, 1) for s in range(3)),
                      *(_cell(gold[i, k, s]) for k in (0, 1) for s in range(3))])
            for i in range(N)]
    path = tmp_path / "spans.csv"
    path.write_text(",".join(head) + "\n" + "\n".join(rows) + "\n")
    return path


GOLD = ("--a", "base", "--b", "new", "--gold-a", "human_base", "--gold-b", "human_new")


def api(judge_a, judge_b, gold_a, gold_b, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pairboot.compare_ppi(judge_a, judge_b, gold_a=gold_a, gold_b=gold_b, **kw)


def json_of(*argv) -> dict:
    proc = run_in_process("compare", *argv, "--format", "json", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_a_pooled_metric_in_one_file_equals_python(counts, one_file):
    """--a/--b/--gold-a/--gold-b name the systems and the gold as compare's --a/--b do
    with a metric's statistics: base_tp, ..., tp_human_base, ..."""
    judge, gold, lab = counts
    out = json_of(one_file, *GOLD, "--metric", "f1", "--seed", 2, "--resamples", 400)
    res = api(judge[:, 0], judge[:, 1], gold[:, 0], gold[:, 1], metric="f1", seed=2,
              n_resamples=400)
    assert out["metric"] == "f1" and out["n_gold"] == int(lab.sum())
    assert out["estimate"] == res.estimate and out["lam"] == res.lam
    assert out["confidence_interval"]["low"] == res.confidence_interval[0]
    assert "columns base_tp,base_fp,base_fn," in out["signature"]
    # --stats names the statistics' columns (here mapped), found as compare finds them
    same = json_of(one_file, *GOLD, "--metric", "f1", "--stats", "fn=fn,tp=tp,fp=fp",
                   "--seed", 2, "--resamples", 400)
    assert same["estimate"] == out["estimate"]


def test_a_pooled_metric_with_a_file_per_system(counts, tmp_path):
    """--gold-score names the gold's columns as a system's: human_tp, ... beside the
    judge's tp, fp, fn; the answer is the one file's."""
    judge, gold, _ = counts
    paths = []
    for k, name in enumerate(("base.jsonl", "new.jsonl")):
        lines = [json.dumps({"id": f"q{i}", **{st: judge[i, k, s] for s, st in
                                               enumerate(STATS)},
                             **{f"human_{st}": None if np.isnan(gold[i, k, s])
                                else gold[i, k, s] for s, st in enumerate(STATS)}})
                 for i in range(N)]
        paths.append(tmp_path / name)
        paths[-1].write_text("\n".join(lines) + "\n")
    out = json_of(*paths, "--gold-score", "human", "--metric", "f1", "--id", "id",
                  "--method", "clt")
    res = api(judge[:, 0], judge[:, 1], gold[:, 0], gold[:, 1], metric="f1", method="clt")
    assert out["estimate"] == pytest.approx(res.estimate, abs=1e-12)
    assert out["standard_error"] == pytest.approx(res.standard_error, rel=1e-12)
    assert out["name_a"] == "base" and out["metric"] == "f1"


def test_a_gold_row_given_in_part_is_one_line(one_file, tmp_path):
    lines = one_file.read_text().splitlines()
    k = next(i for i, line in enumerate(lines[1:], 1) if not line.endswith(","))
    cells = lines[k].split(",")
    cells[-2] = ""  # (B's gold fp)
    lines[k] = ",".join(cells)
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join(lines) + "\n")
    assert_one_line_error(run_in_process("compare", bad, *GOLD, "--metric", "f1",
                                         "--no-progress"),
                          "bad.csv", f"line {k + 1}", "'fp_human_new' is empty",
                          "given in part")


def test_a_pooled_metric_refuses_what_it_cannot_read(one_file):
    assert_one_line_error(run_in_process("compare", one_file, *GOLD, "--metric", "f1",
                                         "--stats", "tp,fp,fn,extra", "--no-progress"),
                          "--stats")
    assert_one_line_error(run_in_process("compare", one_file, "--a", "base", "--b", "new",
                                         "--gold-a", "nobody", "--gold-b", "human_new",
                                         "--metric", "f1", "--no-progress"),
                          "statistic 'tp' of system 'nobody'")


# ------------------------------------------------------------------ judge calls


@pytest.fixture(scope="module")
def calls():
    """A judge called 1 to 3 times per item on A's and B's outputs, gold on 30%."""
    rng = np.random.default_rng(12)
    q = rng.normal(0.5, 0.2, (N, 2)) + [0.0, 0.06]
    judge = np.round(q[:, :, None] + 0.1 + rng.normal(0, 0.1, (N, 2, 3)), 3)
    n_calls = rng.integers(1, 4, N)
    judge[np.arange(3)[None, None, :] >= n_calls[:, None, None]
          + np.zeros((1, 2, 1), int)] = np.nan
    lab = rng.random(N) < 0.3
    gold = np.where(lab[:, None], np.round(q, 3), np.nan)
    return judge, gold, n_calls


def _long(judge, gold, n_calls, *, gold_once: bool = False) -> str:
    """One row per item and call; the gold score on each of the item's rows, or
    (``gold_once``) on its first only."""
    rows = ["id,call,ja,jb,ga,gb"]
    for i in range(N):
        for c in range(n_calls[i]):
            g = gold[i] if c == 0 or not gold_once else [np.nan, np.nan]
            rows.append(f"q{i},c{c},{judge[i, 0, c]:g},{judge[i, 1, c]:g},"
                        f"{_cell(g[0])},{_cell(g[1])}")
    return "\n".join(rows) + "\n"


CALLS = ("--a", "ja", "--b", "jb", "--gold-a", "ga", "--gold-b", "gb", "--runs", "samples",
         "--run", "call", "--id", "id")


def test_judge_calls_equal_python(calls, tmp_path):
    judge, gold, n_calls = calls
    path = tmp_path / "calls.csv"
    path.write_text(_long(judge, gold, n_calls))
    out = json_of(path, *CALLS, "--seed", 4, "--resamples", 400)
    res = api(judge[:, 0], judge[:, 1], gold[:, 0], gold[:, 1], runs="samples", seed=4,
              n_resamples=400)
    assert out["estimate"] == res.estimate and out["lam"] == res.lam
    assert out["judge_calls"]["fewest"] == 1 and out["judge_calls"]["most"] == 3
    once = tmp_path / "once.csv"
    once.write_text(_long(judge, gold, n_calls, gold_once=True))
    assert json_of(once, *CALLS, "--seed", 4, "--resamples", 400)["estimate"] == res.estimate


def test_judge_calls_in_a_file_per_system(calls, tmp_path):
    judge, gold, n_calls = calls
    paths = []
    for k, name in enumerate(("base.csv", "new.csv")):
        rows = ["id,call,judge,human"] + [
            f"q{i},c{c},{judge[i, k, c]:g},{_cell(gold[i, k])}"
            for i in range(N) for c in range(n_calls[i])]
        paths.append(tmp_path / name)
        paths[-1].write_text("\n".join(rows) + "\n")
    out = json_of(*paths, "--score", "judge", "--gold-score", "human", "--runs", "samples",
                  "--run", "call", "--id", "id", "--method", "clt")
    res = api(judge[:, 0], judge[:, 1], gold[:, 0], gold[:, 1], runs="samples",
              method="clt")
    assert out["estimate"] == pytest.approx(res.estimate, abs=1e-12)
    assert out["name_a"] == "base" and out["judge_calls"]["most"] == 3


def test_rows_that_disagree_on_the_gold_score_are_one_line(calls, tmp_path):
    judge, gold, n_calls = calls
    i = next(k for k in range(N) if n_calls[k] > 1 and not np.isnan(gold[k, 0]))
    text = _long(judge, gold, n_calls).splitlines()
    row = next(k for k, line in enumerate(text) if line.startswith(f"q{i},c1,"))
    cells = text[row].split(",")
    cells[4] = f"{gold[i, 0] + 0.5:g}"
    text[row] = ",".join(cells)
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join(text) + "\n")
    assert_one_line_error(run_in_process("compare", bad, *CALLS, "--no-progress"),
                          "bad.csv", f"id 'q{i}'", "column 'ga'", "two gold scores")
    # an item labelled for A only: gb empty on all its rows
    text = [line.rsplit(",", 1)[0] + "," if line.startswith(f"q{i},") else line
            for line in _long(judge, gold, n_calls).splitlines()]
    bad.write_text("\n".join(text) + "\n")
    assert_one_line_error(run_in_process("compare", bad, *CALLS, "--no-progress"),
                          f"id 'q{i}'", "column 'gb'", "label both")


@pytest.mark.parametrize("extra, words", [
    (("--run", "call", "--id", "id"), ("--run with --gold-a/--gold-b needs --runs samples",)),
    (("--runs", "seeds", "--run", "call", "--id", "id"), ("--runs seeds is not available",)),
    (("--runs", "samples", "--id", "id"), ("--run COL",)),
])
def test_bad_use_of_judge_calls_is_one_line(calls, tmp_path, extra, words):
    judge, gold, n_calls = calls
    path = tmp_path / "calls.csv"
    path.write_text(_long(judge, gold, n_calls))
    assert_one_line_error(run_in_process("compare", path, "--a", "ja", "--b", "jb",
                                         "--gold-a", "ga", "--gold-b", "gb", *extra,
                                         "--no-progress"), *words)


def test_judge_calls_of_a_pooled_metric(counts, tmp_path):
    """--metric f1 with --runs samples: each call's statistics, as compare_ppi takes
    items x calls x statistics; the gold's on one row of the item."""
    judge, gold, _ = counts
    second = np.clip(judge + np.random.default_rng(13).integers(-1, 2, judge.shape), 0, None)
    calls = np.stack([judge, second], axis=2)  # items x 2 systems x 2 calls x 3
    head = ["id", "call"] + [f"{s}_{st}" for s in ("base", "new", "hb", "hn")
                             for st in STATS]
    rows = [",".join([f"q{i}", f"c{c}", *(_cell(calls[i, k, c, s]) for k in (0, 1)
                                          for s in range(3)),
                      *(_cell(gold[i, k, s]) if c == 0 else "" for k in (0, 1)
                        for s in range(3))])
            for i in range(N) for c in (0, 1)]
    path = tmp_path / "calls.csv"
    path.write_text(",".join(head) + "\n" + "\n".join(rows) + "\n")
    out = json_of(path, "--a", "base", "--b", "new", "--gold-a", "hb", "--gold-b", "hn",
                  "--metric", "f1", "--runs", "samples", "--run", "call", "--id", "id",
                  "--method", "clt")
    res = api(calls[:, 0], calls[:, 1], gold[:, 0], gold[:, 1], metric="f1",
              runs="samples", method="clt")
    assert out["estimate"] == pytest.approx(res.estimate, abs=1e-12)
    assert out["judge_calls"]["n_calls"] == [2 * N, 2 * N]

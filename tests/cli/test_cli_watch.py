"""``pairboot watch``: records paired by id as they arrive (one input with both scores,
one system's records named by a key, or a file per system), the verdict equal to the
API's on the same pairs in the same order, the exit statuses of --fail-if, --follow on a
file being appended, and bad input as one line."""

from __future__ import annotations

import json
import threading
import time

import numpy as np
import pytest
from helpers import assert_one_line_error, run_cli, run_in_process

import pairboot


def records(n=600, seed=1, up=0.15, down=0.05):
    rng = np.random.default_rng(seed)
    u = rng.random(n)
    d = np.where(u < down, -1, np.where(u < down + up, 1, 0))
    a = np.where(d == 0, rng.random(n) < 0.6, d < 0).astype(int)
    return [{"id": f"q{i}", "a": int(a[i]), "b": int(a[i] + d[i])} for i in range(n)]


def write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def watch(*args):
    proc = run_in_process("watch", *args, "--no-progress", "--format", "json")
    return proc, (json.loads(proc.stdout) if proc.returncode in (0, 1) else None)


def test_the_verdict_is_the_apis_on_the_same_pairs(tmp_path):
    rows = records()
    proc, out = watch(write(tmp_path / "log.jsonl", rows), "--bounds", "0,1")
    assert proc.returncode == 0, proc.stderr.decode()
    s = pairboot.sequential(bounds=(0, 1))
    for r in rows:
        s.update([r["a"]], [r["b"]])
        if s.stopped:
            break
    assert out["verdict"] == s.result.verdict == "better"
    assert out["n_units"] == s.result.n_units < len(rows)
    assert out["confidence_sequence"]["low"] == pytest.approx(s.result.confidence_sequence.low)


@pytest.mark.parametrize("gate,status", [("worse", 0), ("not-better", 0), ("different", 1)])
def test_fail_if_sets_the_exit_status(tmp_path, gate, status):
    proc, out = watch(write(tmp_path / "log.jsonl", records()), "--bounds", "0,1",
                      "--fail-if", gate)
    assert (proc.returncode, out["verdict"]) == (status, "better")


def test_github_summary_and_a_failed_gates_error_command(tmp_path):
    log = write(tmp_path / "log.jsonl", records())
    proc = run_in_process("watch", log, "--bounds", "0,1", "--fail-if", "different",
                          "--no-progress", "--format", "github")
    assert proc.returncode == 1
    assert proc.stdout.decode().startswith("### pairboot watch: B is better than A after ")
    assert proc.stderr.decode().startswith(
        "::error title=pairboot::pairboot: --fail-if different: B is better than A after ")
    proc = run_in_process("watch", log, "--bounds", "0,1", "--fail-if", "worse",
                          "--no-progress", "--format", "github")
    assert (proc.returncode, proc.stderr) == (0, b"")


def test_an_undecided_end_fails_a_gate_that_asks_for_something_shown(tmp_path):
    rows = records(40, up=0.05, down=0.05)
    proc, out = watch(write(tmp_path / "log.jsonl", rows), "--bounds", "0,1",
                      "--fail-if", "not-better")
    assert (proc.returncode, out["verdict"], out["n_units"]) == (1, "undecided", 40)
    proc, _ = watch(tmp_path / "log.jsonl", "--bounds", "0,1", "--fail-if", "worse")
    assert proc.returncode == 0


def test_one_systems_records_pair_by_id_in_any_order(tmp_path):
    rows = records(300)
    long = []
    for r in rows:
        long.append({"id": r["id"], "model": "base", "s": r["a"]})
    for r in rows:  # (B's records after all of A's: each pair completes with B's)
        long.append({"id": r["id"], "model": "new", "s": r["b"], "extra": 1})
    long.insert(5, {"id": "q0", "model": "third", "s": 1})  # (a third system: ignored)
    proc, out = watch(write(tmp_path / "long.jsonl", long), "--system-column", "model",
                      "--a", "base", "--b", "new", "--score", "s", "--bounds", "0,1")
    _, both = watch(write(tmp_path / "both.jsonl", rows), "--bounds", "0,1")
    assert proc.returncode == 0, proc.stderr.decode()
    assert (out["verdict"], out["n_units"]) == (both["verdict"], both["n_units"])
    a = write(tmp_path / "a.jsonl", [{"id": r["id"], "score": r["a"]} for r in rows])
    b = write(tmp_path / "b.jsonl", [{"id": r["id"], "score": r["b"]} for r in rows])
    proc, two = watch(a, b, "--bounds", "0,1")
    assert (two["verdict"], two["n_units"]) == (both["verdict"], both["n_units"])


def test_groups_arrive_whole(tmp_path):
    rows = [dict(r, doc=i // 4) for i, r in enumerate(records(800))]
    proc, out = watch(write(tmp_path / "g.jsonl", rows), "--bounds", "0,1", "--group", "doc")
    assert proc.returncode == 0, proc.stderr.decode()
    assert out["unit"] == "groups" and out["n_items"] == 4 * out["n_units"]
    rows.append(dict(rows[0], id="late", doc=0))
    proc = run_in_process("watch", write(tmp_path / "bad.jsonl", rows), "--bounds", "0,1",
                          "--group", "doc", "--budget", "1000", "--min-units", "1000",
                          "--no-progress")
    assert_one_line_error(proc, "bad.jsonl line 801", "group 0 came back")


@pytest.mark.parametrize("lines,words", [
    (['{"id": 1, "a": 1, "b": 0}', '{"id": 1, "a": 0, "b": 0}'],
     ["line 2", "id 1 repeated"]),
    (['{"id": 1, "a": 1, "b": 0}', '{"id": 2, "a": 1}'],
     ["id 2 has only A's score", "line 2"]),
    (['{"id": 1, "a": 1, "b": 1.5}'], ["line 1", "B's score 1.5 is outside --bounds 0,1"]),
    (['{"id": 1, "a": 1, "b": 0}', "{oops"], ["line 2", "not a JSON record"]),
    (['{"a": 1, "b": 0}'], ["line 1", "no id (--id id)"]),
    (['{"id": 1, "a": 1, "b": null}'], ["line 1", "no score for B"]),
])
def test_bad_input_is_one_line(tmp_path, lines, words):
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n")
    proc = run_in_process("watch", path, "--bounds", "0,1", "--no-progress")
    assert_one_line_error(proc, "bad.jsonl", *words)


def test_follow_reads_records_as_they_are_appended(tmp_path):
    rows = records()
    path = tmp_path / "live.jsonl"
    path.write_text("")

    def append():
        with open(path, "a") as f:
            for i, r in enumerate(rows):
                f.write(json.dumps(r) + "\n")
                if i % 50 == 0:
                    f.flush()
                    time.sleep(0.02)

    writer = threading.Thread(target=append)
    writer.start()
    try:
        proc, out = watch(path, "--bounds", "0,1", "--follow", "--poll", "0.01",
                          "--timeout", "60")
    finally:
        writer.join()
    assert proc.returncode == 0, proc.stderr.decode()
    _, whole = watch(path, "--bounds", "0,1")
    assert (out["verdict"], out["n_units"]) == (whole["verdict"], whole["n_units"])


def test_follow_ends_undecided_after_the_timeout(tmp_path):
    path = write(tmp_path / "quiet.jsonl", records(20, up=0.05, down=0.05))
    proc, out = watch(path, "--bounds", "0,1", "--follow", "--poll", "0.01",
                      "--timeout", "0.2")
    assert (proc.returncode, out["verdict"], out["n_units"]) == (0, "undecided", 20)


def test_standard_input_and_the_status_line():
    rows = records()
    proc = run_cli("watch", "--bounds", "0,1", "--every", "50",
                   input="".join(json.dumps(r) + "\n" for r in rows).encode())
    err = proc.stderr.decode()
    assert proc.returncode == 0, err
    assert "Decided after" in proc.stdout.decode()
    assert err.splitlines()[-1].startswith("B is better than A after")
    assert "\r" not in err  # (not a terminal: plain lines)


def test_help_says_the_order_must_not_depend_on_the_outcomes():
    proc = run_in_process("watch", "--help")
    assert "order independent of their outcomes" in " ".join(proc.stdout.decode().split())


def test_a_margins_gate_sets_its_hypothesis_as_in_compare(tmp_path):
    path = write(tmp_path / "log.jsonl", records(2000, up=0.08, down=0.08))
    proc, out = watch(path, "--bounds", "0,1", "--margin", "0.1", "--fail-if", "inferior")
    assert (proc.returncode, out["hypothesis"], out["verdict"]) == (0, "non-inferiority",
                                                                    "non-inferior")
    proc = run_in_process("watch", path, "--bounds", "0,1", "--fail-if", "inferior",
                          "--no-progress")
    assert_one_line_error(proc, "--fail-if inferior", "--margin")


def test_the_parsers_fail_if_choices_are_the_reports_gates():
    # (named in the parser's module so that building it loads no report)
    from pairboot.cli.watch_parser import SEQUENTIAL_GATES
    from pairboot.report.sequential import SEQUENTIAL_FAIL_IF

    assert SEQUENTIAL_GATES == tuple(SEQUENTIAL_FAIL_IF)


def test_the_records_of_one_read_are_one_update(tmp_path, monkeypatch):
    """A file read at once is one update (the rule still looks after each record and
    stops at the first that decides: the same stop as record by record)."""
    from pairboot.comparisons.sequential import Sequential

    sizes = []
    update = Sequential.update
    monkeypatch.setattr(Sequential, "update",
                        lambda self, a, b, **k: sizes.append(len(a)) or update(self, a, b, **k))
    rows = records()
    proc, out = watch(write(tmp_path / "log.jsonl", rows), "--bounds", "0,1")
    assert proc.returncode == 0, proc.stderr.decode()
    assert sizes == [len(rows)]
    assert (out["verdict"], out["n_unused"]) == ("better", 0)


def test_a_refused_score_in_a_read_after_the_stop_is_not_reached(tmp_path):
    rows = [dict(r, doc=i // 4) for i, r in enumerate(records(800))]
    _, whole = watch(write(tmp_path / "g.jsonl", rows), "--bounds", "0,1", "--group", "doc")
    late = [dict(r) for r in rows]
    late[-3]["b"] = 5  # (in a group long after the stop)
    proc, out = watch(write(tmp_path / "late.jsonl", late), "--bounds", "0,1", "--group",
                      "doc")
    assert proc.returncode == 0 and out == whole
    early = [dict(r) for r in rows]
    early[13]["a"] = -1  # (group 3, before the stop: groups 0-2 are fed, then refused)
    proc = run_in_process("watch", write(tmp_path / "early.jsonl", early), "--bounds", "0,1",
                          "--group", "doc", "--no-progress")
    assert_one_line_error(proc, "early.jsonl line 14", "id 'q13'", "A's score -1")


def f1_records(n=1500, seed=7):
    """Per-item span counts of two systems, ``base_tp``, ``new_fp``... (compare's names
    for each system's columns in one file)."""
    rng = np.random.default_rng(seed)
    gold = rng.integers(0, 3, n)
    out = []
    for i in range(n):
        row = {"id": f"d{i}"}
        for system, p in (("base", 0.5), ("new", 0.64)):
            tp = int(rng.binomial(gold[i], p))
            row.update({f"{system}_tp": tp, f"{system}_fp": int(rng.binomial(2, 0.25)),
                        f"{system}_fn": int(gold[i] - tp)})
        out.append(row)
    return out


def test_a_pooled_metric_reads_each_systems_statistics_as_compare_does(tmp_path):
    rows = f1_records()
    proc, out = watch(write(tmp_path / "ner.jsonl", rows), "--a", "base", "--b", "new",
                      "--metric", "f1")
    assert proc.returncode == 0, proc.stderr.decode()
    stats = {s: np.array([[r[f"{s}_{k}"] for k in ("tp", "fp", "fn")] for r in rows])
             for s in ("base", "new")}
    api = pairboot.sequential(metric="f1").update(stats["base"], stats["new"])
    assert (out["metric"], out["verdict"], out["n_units"]) == ("f1", api.verdict, api.n_units)
    assert out["confidence_sequence"]["low"] == pytest.approx(api.confidence_sequence.low)
    # (a file per system, its keys named by --stats as compare names columns; and one
    # system's records named by --system-column)
    a = write(tmp_path / "a.jsonl", [{"id": r["id"], "TP": r["base_tp"], "FP": r["base_fp"],
                                      "FN": r["base_fn"]} for r in rows])
    b = write(tmp_path / "b.jsonl", [{"id": r["id"], "TP": r["new_tp"], "FP": r["new_fp"],
                                      "FN": r["new_fn"]} for r in rows])
    _, two = watch(a, b, "--metric", "f1", "--stats", "tp=TP,fp=FP,fn=FN")
    long = [{"id": r["id"], "sys": s, "tp": r[f"{s}_tp"], "fp": r[f"{s}_fp"],
             "fn": r[f"{s}_fn"]} for r in rows for s in ("new", "base")]
    _, by_key = watch(write(tmp_path / "long.jsonl", long), "--system-column", "sys",
                      "--a", "base", "--b", "new", "--metric", "f1")
    for other in (two, by_key):
        assert (other["verdict"], other["n_units"]) == (api.verdict, api.n_units)
    _, grouped = watch(tmp_path / "ner.jsonl", "--a", "base", "--b", "new", "--metric",
                       "f1", "--group", "id")
    assert (grouped["unit"], grouped["n_units"]) == ("groups", api.n_units)


@pytest.mark.parametrize("change,options,words", [
    ({"new_fp": -1}, (), ["line 1", "id 'd0'", "B's 'new_fp'", "non-negative"]),
    ({"new_fp": "x"}, (), ["line 1", "B's 'new_fp' must be a finite number"]),
    ({"new_fn": None, "new_fp": None, "new_tp": None}, (), ["id 'd0' has only A's"]),
    ({}, ("--bounds", "0,1"), ["--metric 'f1'", "give no --bounds"]),
    ({}, ("--score", "tp"), ["--metric f1 needs --stats"]),
])
def test_a_pooled_metrics_bad_input_is_one_line(tmp_path, change, options, words):
    rows = f1_records(40)
    rows[0] = {k: v for k, v in {**rows[0], **change}.items() if v is not None}
    proc = run_in_process("watch", write(tmp_path / "bad.jsonl", rows), "--a", "base", "--b",
                          "new", "--metric", "f1", "--no-progress", *options)
    assert_one_line_error(proc, *words)

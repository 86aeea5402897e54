"""Errored and missing items of harness logs: counted per system, settled by ``errors=``
(exclude, fail, common; None keeps what the harness recorded), the difference of two
systems' unscored rates tested (exact McNemar, against statsmodels), and B - A bounded
with every unscored item a failure or a success (values worked out by hand)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import error, run_in_process

import pairboot
from pairboot.io import harness
from pairboot.stats.proportions import mcnemar_exact

NAN = float("nan")


def scores(path, ids, values, marks, name):
    return harness.Scores(path=path, format="every-eval-ever", ids=np.array(ids, dtype=object),
                          systems={name: np.array(values, dtype=float)},
                          outcomes={name: np.array(marks, dtype=object)})


def two_logs():
    """A: items 1-5 (5 errored, its score recorded as 0), no record of 6; B: items 1-6,
    3 errored with no score."""
    a = scores("a.jsonl", ["1", "2", "3", "4", "5"], [1, 0, 1, 1, 0],
               [None, None, None, None, "error"], "A")
    b = scores("b.jsonl", ["1", "2", "3", "4", "5", "6"], [1, 1, NAN, 1, 1, 1],
               [None, None, "infrastructure", None, None, None], "B")
    return a, b


def test_counts_per_system():
    a, b = two_logs()
    j = harness.join([a, b], errors="fail")
    oa, ob = j.outcomes.systems
    assert (oa.name, oa.attempted, oa.scored, oa.errored, oa.unscored, oa.missing) == \
        ("A", 5, 4, {"error": 1}, 0, 1)
    assert (ob.name, ob.attempted, ob.scored, ob.errored, ob.unscored, ob.missing) == \
        ("B", 6, 5, {"infrastructure": 1}, 0, 0)
    assert j.outcomes.unscored[0].tolist() == [False] * 4 + [True, True]
    assert j.outcomes.unscored[1].tolist() == [False, False, True, False, False, False]
    assert any(n.startswith("outcomes per system: A: 5 attempted, 4 scored, 1 errored, "
                            "1 missing; B: 6 attempted, 5 scored, 1 errored "
                            "(infrastructure 1), 0 missing") for n in j.notes)


def test_policies():
    a, b = two_logs()
    fail = harness.join([a, b], errors="fail")
    assert fail.ids.tolist() == ["1", "2", "3", "4", "5", "6"]
    assert fail.values[0].tolist() == [1, 0, 1, 1, 0, 0]
    assert fail.values[1].tolist() == [1, 1, 0, 1, 1, 1]
    common = harness.join([a, b], errors="common")
    assert common.ids.tolist() == ["1", "2", "4"]
    assert [v.tolist() for v in common.values] == [[1, 0, 1], [1, 1, 1]]
    assert any("`errors='common'`" in n and "3 of 6 items compared" in n for n in common.notes)
    # exclude leaves out the errored items (3, 5); item 6, missing from A, is not an error
    assert "do not score the same items" in error(harness.join, [a, b], errors="exclude")
    with pytest.warns(pairboot.PairbootWarning, match="dropped more than 10%"):
        ex = harness.join([a, b], errors="exclude", common_items=True)
    assert ex.ids.tolist() == ["1", "2", "4"]
    assert any("`errors='exclude'`" in n and "3 of 6 items compared" in n for n in ex.notes)
    # as recorded: B's item 3 has no score to keep
    got = error(harness.join, [a, b])
    assert "1 item of B (e.g. '3') errored with no score recorded" in got and "errors" in got


def test_recorded_scores_kept_by_default():
    a = scores("a", ["1", "2", "3"], [1, 0, 1], [None, "error", None], "A")
    b = scores("b", ["1", "2", "3"], [1, 1, 1], [None, None, None], "B")
    j = harness.join([a, b])
    assert [v.tolist() for v in j.values] == [[1, 0, 1], [1, 1, 1]]
    assert j.outcomes.policy is None
    assert any(n.startswith("errors: as the harness recorded them") for n in j.notes)
    # no error anywhere: no accounting, nothing added
    clean = harness.join([scores("a", ["1"], [1], [None], "A"),
                          scores("b", ["1"], [0], [None], "B")])
    assert clean.outcomes is None and not any("outcomes" in n for n in clean.notes)


def test_rate_test_against_statsmodels():
    from statsmodels.stats.contingency_tables import mcnemar

    rng = np.random.default_rng(7)
    n = 60
    ua, ub = rng.random(n) < 0.08, rng.random(n) < 0.3
    ids = [str(i) for i in range(n)]
    a = scores("a", ids, np.where(ua, 0.0, 1.0), np.where(ua, "error", None), "A")
    b = scores("b", ids, np.where(ub, 0.0, 1.0), np.where(ub, "error", None), "B")
    t = harness.join([a, b]).outcomes.rate_test()
    table = [[int((~ua & ~ub).sum()), int((~ua & ub).sum())],
             [int((ua & ~ub).sum()), int((ua & ub).sum())]]
    assert (t.only_a, t.only_b, t.both, t.n) == (table[1][0], table[0][1], table[1][1], n)
    assert t.p_value == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-12)
    small = harness.join(list(two_logs()), errors="fail").outcomes.rate_test()
    assert (small.only_a, small.only_b) == (2, 1)
    assert small.p_value == mcnemar([[3, 1], [2, 0]], exact=True).pvalue == 1.0


def test_bounds_by_hand():
    out = harness.join(list(two_logs()), errors="fail").outcomes
    # worst: B's unscored (3) fails, A's unscored (5, 6) succeed:
    #   B = 1 1 0 1 1 1, A = 1 0 1 1 1 1 -> differences 0 1 -1 0 0 0 -> 0
    # best: B = 1 1 1 1 1 1, A = 1 0 1 1 0 0 -> differences 0 1 0 0 1 1 -> 0.5
    b = out.bounds(0.2, 0.05, 0.35)
    assert (b.worst, b.best) == (0.0, 0.5)
    assert b.worst_interval == pytest.approx((0.05 - 0.2, 0.35 - 0.2))
    assert b.best_interval == pytest.approx((0.05 + 0.3, 0.35 + 0.3))
    assert b.overturn and "could overturn the verdict" in b.note
    assert "with the 3 unscored items failures of B and successes of A" in b.note
    wide = out.bounds(0.0, -1.0, 1.0)
    assert not wide.overturn and "cannot overturn" in wide.note
    decides = out.bounds(0.0, -0.3, 0.3)  # (best case's interval above 0)
    assert decides.overturn and "could decide the verdict" in decides.note


def test_bad_policy_and_pooled_statistics():
    a, b = two_logs()
    got = error(harness.join, [a, b], errors="drop")
    assert "`errors` must be one of exclude, fail, common, got 'drop'" in got
    pooled = [harness.Scores(path=p, format="x", ids=np.array(["1", "2"], dtype=object),
                             systems={p: np.array([[1.0, 2.0], [NAN, NAN]])}, metric="custom",
                             stats=("tp", "fp")) for p in ("a", "b")]
    assert "needs one score per item" in error(harness.join, pooled, errors="fail")
    kept = harness.join(pooled, errors="common")
    assert kept.ids.tolist() == ["1"] and kept.outcomes.bounds(0, -1, 1) is None


# --- the command line ----------------------------------------------------------------------


def _eee(path, model, scores_, errors):
    rows = []
    for i, (s, e) in enumerate(zip(scores_, errors)):
        rows.append({"schema_version": "0.3.0", "evaluation_id": "e", "model_id": model,
                     "evaluation_name": "gsm8k", "sample_id": f"q{i}",
                     "interaction_type": "single_turn",
                     "input": {"raw": "q", "reference": ["1"]}, "answer_attribution": [],
                     "evaluation": {"score": s, "is_correct": bool(s)}, "error": e})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")
def test_cli_reports_the_accounting_and_bounds(tmp_path):
    n = 40
    a = [1.0 if i % 5 == 0 else 0.0 for i in range(n)]          # 8 of 40
    b = [1.0 if i < 30 and i % 3 else 0.0 for i in range(n)]    # 20 of the first 30
    b_err = [None] * 30 + ["timeout"] * 10                      # 10 errored, scored 0
    pa = _eee(tmp_path / "a.jsonl", "org/a", a, [None] * n)
    pb = _eee(tmp_path / "b.jsonl", "org/b", b, b_err)
    proc = run_in_process("compare", pa, pb, "--errors", "exclude", "--seed", "1",
                          "--resamples", "2000", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    text = " ".join(proc.stdout.decode().split())
    assert ("org/a: 40 attempted, 40 scored, 0 errored, 0 missing; org/b: 40 attempted, "
            "30 scored, 10 errored, 0 missing") in text
    assert "errors: --errors exclude: the items any system errored on left out; 30 of 40" in text
    assert f"p = {mcnemar_exact(0, 10):.4g} (0 unscored only by the first, 10 only" in text
    # worst case: B's 10 unscored fail, A's none: (20 - 8) / 40 = 0.3
    # best case: B's 10 succeed: (30 - 8) / 40 = 0.55
    assert "with the 10 unscored items failures of org/b and successes of org/a, B - A " \
           "would be 0.3" in text
    assert "the reverse 0.55" in text
    assert "the unscored items cannot overturn the verdict" in text
    # a score where lower is better has no failure value to put in: no bounds, said so
    proc = run_in_process("compare", pa, pb, "--errors", "exclude", "--lower-is-better",
                          "--seed", "1", "--resamples", "500", "--no-progress")
    text = " ".join(proc.stdout.decode().split())
    assert "no bounds with the unscored items as failures or successes" in text


def test_cli_refusals(tmp_path):
    for name in ("a.csv", "b.csv"):
        (tmp_path / name).write_text("id,score\n1,1\n")
    proc = run_in_process("compare", tmp_path / "a.csv", tmp_path / "b.csv", "--errors",
                          "fail", "--no-progress")
    assert proc.returncode == 2
    assert b"--errors settles the errored and missing items of harness logs" in proc.stderr
    pa = _eee(tmp_path / "a.jsonl", "org/a", [1.0, None], [None, "boom"])
    pb = _eee(tmp_path / "b.jsonl", "org/b", [1.0, 0.0], [None, None])
    proc = run_in_process("compare", pa, pb, "--no-progress")
    assert proc.returncode == 2
    assert b"errored with no score recorded: give --errors" in proc.stderr
    proc = run_in_process("compare", f"x={pa}", f"y={pb}", "--runs", "seeds", "--errors",
                          "fail", "--no-progress")
    assert proc.returncode == 2 and b"--errors with NAME=PATH inputs" in proc.stderr


# --- Inspect's errored samples feed the same accounting ------------------------------------


def _inspect_log(path, model, values, errored=()):
    samples = []
    for i, v in enumerate(values, 1):
        s = {"id": i, "epoch": 1, "input": "q", "target": "C", "messages": [],
             "scores": {} if i in errored else {"match": {"value": v}}, "metadata": {}}
        if i in errored:
            s["error"] = {"message": "RateLimitError", "traceback": "", "traceback_ansi": ""}
        samples.append(s)
    log = {"version": 2, "status": "success",
           "eval": {"task": "popularity", "model": model, "config": {"epochs": 1}},
           "plan": {"steps": []}, "results": {}, "stats": {}, "samples": samples}
    path.write_text(json.dumps(log))
    return path


def test_inspect_errors_feed_the_accounting(tmp_path):
    pa = _inspect_log(tmp_path / "a.json", "openai/a", ["C", "I", "C", "C"])
    pb = _inspect_log(tmp_path / "b.json", "openai/b", ["C", "C", "C", "C"], errored=(2, 4))
    b = harness.read(pb, missing="wrong")
    assert b.outcomes["openai/b"].tolist() == [None, "error", None, "error"]
    j = harness.join([harness.read(pa), b], errors="common")
    assert j.ids.tolist() == ["1", "3"]
    assert j.outcomes.systems[1].errored == {"error": 2}
    proc = run_in_process("compare", pa, pb, "--errors", "fail", "--no-progress",
                          "--resamples", "500", "--seed", "2")
    assert proc.returncode == 0, proc.stderr
    text = " ".join(proc.stdout.decode().split())
    assert "openai/b: 4 attempted, 2 scored, 2 errored, 0 missing" in text
    assert "--errors fail: every unscored item counted as a failure (0); 4 of 4" in text


def test_scores_refuse_columns_or_outcomes_of_another_length():
    ids = np.array(["1", "2"], dtype=object)
    with pytest.raises(ValueError, match="outcomes of 'A': 1 for 2 ids"):
        harness.Scores(path="a", format="x", ids=ids, systems={"A": np.zeros(2)},
                       outcomes={"A": np.array([None], dtype=object)})
    with pytest.raises(ValueError, match="column 'cost' of 'A': 3 values for 2 ids"):
        harness.Scores(path="a", format="x", ids=ids, systems={"A": np.zeros(2)},
                       columns={"A": {"cost": np.zeros(3)}})

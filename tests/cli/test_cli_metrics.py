"""``pairboot compare --score NAME[:lower][:MARGIN] --score ...``: several metrics of one
comparison on the command line, the same answer as compare_metrics() on the same columns,
and its refusals in one line."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import assert_one_line_error, run_in_process

import pairboot
from pairboot import Criterion

N = 150


def tables(tmp_path, shuffle=False):
    """Two files of per-item correct, cost and latency (B's rows in another order when
    ``shuffle``), and the same columns as arrays in A's order."""
    rng = np.random.default_rng(3)
    q = rng.random(N)
    a = {"correct": (q < 0.6) * 1.0, "cost": rng.gamma(2.0, 0.01, N).round(6),
         "latency_ms": rng.gamma(3.0, 100.0, N).round(3)}
    b = {"correct": (q < 0.7) * 1.0, "cost": (a["cost"] * 0.9).round(6),
         "latency_ms": (a["latency_ms"] + rng.normal(0.0, 20.0, N)).round(3)}
    ids = [f"q{i}" for i in range(N)]
    order = rng.permutation(N) if shuffle else np.arange(N)
    for name, x, rows in (("a", a, np.arange(N)), ("b", b, order)):
        lines = ["id,correct,cost,latency_ms"] + [
            f"{ids[i]},{x['correct'][i]:g},{float(x['cost'][i])!r},{float(x['latency_ms'][i])!r}"
            for i in rows]
        (tmp_path / f"{name}.csv").write_text("\n".join(lines) + "\n")
    return tmp_path / "a.csv", tmp_path / "b.csv", a, b


SCORES = ["--score", "correct", "--score", "cost:lower", "--score", "latency_ms:lower:50"]


def test_two_files_give_compare_metrics_answer_on_the_same_columns(tmp_path):
    fa, fb, a, b = tables(tmp_path, shuffle=True)
    proc = run_in_process("compare", fa, fb, "--id", "id", *SCORES, "--seed", "4",
                          "--resamples", "999", "--format", "json", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    with pytest.warns(pairboot.SmallSampleWarning, match="skewed"):  # (the report's too)
        res = pairboot.compare_metrics(a, b, seed=4, n_resamples=999, names=("a", "b"),
                                       metrics={"correct": "mean",
                                                "cost": Criterion(lower_is_better=True),
                                                "latency_ms": Criterion(
                                                    lower_is_better=True, margin=50.0)})
    assert out["warnings"] == list(res.warnings)
    assert [r["name"] for r in out["rows"]] == ["correct", "cost", "latency_ms"]
    for got, row in zip(out["rows"], res.rows):
        assert got["estimate"] == pytest.approx(row.estimate, rel=1e-12, abs=1e-15)
        assert got["confidence_interval"]["low"] == pytest.approx(
            row.confidence_interval.low, rel=1e-9, abs=1e-15)
        assert got["verdict"] == row.verdict
        assert got["lower_is_better"] == row.lower_is_better
    assert out["rows"][2]["margin"] == 50.0
    assert "metrics correct,cost:lower,latency_ms:lower:50" in out["signature"]


def test_one_file_with_a_and_b_as_the_columns_prefixes(tmp_path):
    rng = np.random.default_rng(1)
    lines = ["base_acc,new_acc,base_cost,new_cost"] + [
        f"{x:.4f},{x + 0.05:.4f},{c:.5f},{c * 1.2:.5f}"
        for x, c in zip(rng.random(80), rng.random(80))]
    path = tmp_path / "runs.csv"
    path.write_text("\n".join(lines) + "\n")
    proc = run_in_process("compare", path, "--a", "base", "--b", "new", "--score", "acc",
                          "--score", "cost:lower", "--seed", "1", "--resamples", "999",
                          "--no-progress")
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.decode()
    assert "2 metrics of new (B) against base (A)" in text
    assert "better" in text and "worse" in text


def test_a_long_table_gives_the_two_files_answer(tmp_path):
    """One file, a row per system and item (--system-column), B's rows in another
    order: the same rows as the two files joined on --id."""
    fa, fb, _, _ = tables(tmp_path, shuffle=True)
    head, *rows_a = fa.read_text().splitlines()
    _, *rows_b = fb.read_text().splitlines()
    long = tmp_path / "long.csv"
    long.write_text("\n".join([head + ",system", *(r + ",base" for r in rows_a),
                               *(r + ",new" for r in rows_b)]) + "\n")
    common = [*SCORES, "--seed", "2", "--resamples", "999", "--format", "json",
              "--no-progress"]
    one = run_in_process("compare", long, "--system-column", "system", "--a", "base",
                         "--b", "new", "--id", "id", *common)
    two = run_in_process("compare", fa, fb, "--id", "id", "--names", "base,new", *common)
    assert one.returncode == 0 and two.returncode == 0, (one.stderr, two.stderr)
    rows_one, rows_two = json.loads(one.stdout)["rows"], json.loads(two.stdout)["rows"]
    assert [r["confidence_interval"] for r in rows_one] == [
        r["confidence_interval"] for r in rows_two]
    assert json.loads(one.stdout)["names"] == ["base", "new"]


def test_every_format_of_the_command_line(tmp_path):
    fa, fb, _, _ = tables(tmp_path)
    for fmt in ("text", "markdown", "github", "latex", "json"):
        proc = run_in_process("compare", fa, fb, "--id", "id", *SCORES, "--seed", "1",
                              "--resamples", "999", "--format", fmt, "--no-progress",
                              "--correction", "holm")
        assert proc.returncode == 0, proc.stderr
        assert b"latency_ms" in proc.stdout


@pytest.mark.parametrize("extra, words", [
    (["--score", "cost:lower:-5"], ["--score 'cost:lower:-5'", "finite size >= 0"]),
    (["--score", "cost:cheap"], ["neither 'lower'"]),
    (["--score", "correct"], ["--score 'correct' is given twice"]),
    (["--score", "nope"], ["nope"]),
    (["--lower-is-better"], ["--lower-is-better does not go with several --score"]),
    (["--margin", "0.1"], ["--margin does not go with several --score"]),
    (["--metric", "f1"], ["--metric does not go with several --score"]),
    (["--fail-if", "worse"], ["--fail-if does not go with several --score", "not yet"]),
    (["--unpaired"], ["--unpaired does not go with several --score"]),
    (["--alternative", "greater"], ["--alternative with several --score"]),
    (["--hypothesis", "non-inferiority"], ["`metrics['correct']` has none"]),
])
def test_bad_input_is_one_line(tmp_path, extra, words):
    fa, fb, _, _ = tables(tmp_path)
    assert_one_line_error(run_in_process("compare", fa, fb, "--id", "id", *SCORES, *extra,
                                         "--resamples", "99", "--no-progress"), *words)


def test_the_planner_takes_one_score(tmp_path):
    fa, fb, _, _ = tables(tmp_path)
    assert_one_line_error(run_in_process("power", fa, fb, "--id", "id", "--score", "cost",
                                         "--score", "correct", "--power", "0.8"),
                          "--score given twice")

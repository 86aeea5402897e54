"""The command line's margins: --margin, --hypothesis, the margin gates and their exit
status, the JSON's decision, the reports' words, families with --correction bh, and every
bad input as one `error:` line.

References: the exit status against the verdict of pairboot.compare called by hand on the
same data (the gate's own rule: non-inferior when the one-sided lower bound is above
-margin); the words against the hypothesis as the issue writes it.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import PROJECT_ROOT, assert_one_line_error, run_cli, run_in_process

import pairboot

EXAMPLES = PROJECT_ROOT / "examples"
PAIR = ["compare", EXAMPLES / "base.csv", EXAMPLES / "new.csv", "--id", "id", "--score", "score"]
FAST = ["--resamples", "2000", "--seed", "7"]


def _by_hand(**keywords):
    """pairboot.compare on the example files, as the command line reads them."""
    base = np.genfromtxt(EXAMPLES / "base.csv", delimiter=",", names=True, dtype=None,
                         encoding="utf-8")
    new = np.genfromtxt(EXAMPLES / "new.csv", delimiter=",", names=True, dtype=None,
                        encoding="utf-8")
    order = {k: i for i, k in enumerate(new["id"])}
    b = new["score"][[order[k] for k in base["id"]]]
    return pairboot.compare(base["score"], b, n_resamples=2000, seed=7, **keywords)


@pytest.mark.parametrize("margin, gate, hypothesis", [
    (0.001, "inferior", "non-inferiority"), (0.05, "inferior", "non-inferiority"),
    (0.01, "not-better-by-margin", "superiority"), (0.03, "not-better-by-margin",
                                                   "superiority"),
    (0.02, "not-equivalent", "equivalence"), (0.05, "not-equivalent", "equivalence"),
])
def test_a_margin_gate_exits_1_exactly_when_its_claim_is_not_shown(margin, gate, hypothesis):
    proc = run_in_process(*PAIR, *FAST, "--margin", margin, "--fail-if", gate,
                          "--format", "json")
    out = json.loads(proc.stdout)
    res = _by_hand(hypothesis=hypothesis, margin=margin)
    shown = {"inferior": {"non-inferior", "better", "better-by-margin"},
             "not-better-by-margin": {"better-by-margin"},
             "not-equivalent": {"equivalent"}}[gate]
    assert out["hypothesis"] == hypothesis and out["margin"] == margin
    assert out["verdict"] == res.verdict() == out["decision"]["verdict"]
    assert out["p_value"] == pytest.approx(res.p_value, abs=1e-12)
    assert proc.returncode == (0 if res.verdict() in shown else 1), out["decision"]
    assert out["decision"]["failed"] == (proc.returncode == 1)
    assert out["decision"]["null_hypothesis"].startswith("H0: ")


def test_the_margins_exit_statuses_differ_on_these_data():
    # (the cases above pass and fail each gate; the inferior gate fails below)
    codes = {gate: {run_in_process(*PAIR, *FAST, "--margin", m, "--fail-if", gate,
                                   "--format", "json").returncode for m in margins}
             for gate, margins in (("inferior", (0.001, 0.05)),
                                   ("not-better-by-margin", (0.01, 0.03)),
                                   ("not-equivalent", (0.02, 0.05)))}
    assert codes == {"inferior": {0}, "not-better-by-margin": {0, 1},
                     "not-equivalent": {0, 1}}
    # B's +0.021 as a loss (lower is better) is not shown within 0.001: the gate fails
    worse = run_in_process(*PAIR, *FAST, "--margin", "0.001", "--fail-if", "inferior",
                           "--lower-is-better")
    assert worse.returncode == 1
    assert worse.stderr.decode().startswith("pairboot: --fail-if inferior: Not shown "
                                            "non-inferior")


@pytest.mark.slow  # (a fresh process)
def test_the_gate_s_exit_status_in_a_real_process():
    proc = run_cli(*PAIR, *FAST, "--margin", "0.03", "--fail-if", "not-better-by-margin")
    assert proc.returncode == 1
    err = proc.stderr.decode()
    assert err.startswith("pairboot: --fail-if not-better-by-margin: Not shown: B"), err
    assert "by more than 0.03" in err


def test_the_text_report_says_the_hypothesis_the_bound_and_the_verdict():
    proc = run_in_process(*PAIR, *FAST, "--margin", "0.005", "--hypothesis",
                          "non-inferiority")
    text = proc.stdout.decode()
    first = text.splitlines()[0]
    assert first.startswith("B (") and "is better than A" in first  # (the bound is > 0)
    assert "H0: B is worse than A by 0.005 or more (B - A <= -0.005)" in " ".join(
        text.split())
    assert "one-sided 95% lower bound" in text
    assert "hypothesis non-inferiority | margin 0.005" in text  # (the signature)


def test_lower_is_better_flips_the_margin_s_side():
    proc = run_in_process(*PAIR, *FAST, "--margin", "0.05", "--hypothesis",
                          "non-inferiority", "--lower-is-better", "--format", "json")
    out = json.loads(proc.stdout)
    assert out["alternative"] == "less" and out["confidence_interval"]["low"] is None
    assert "(B - A >= 0.05)" in out["decision"]["null_hypothesis"]
    # higher scores of B are worse here: its +0.021 is a loss, shown to be within 0.05
    # (the upper bound, about +0.031, below +0.05); read as higher-is-better it is better
    assert out["verdict"] == "non-inferior"
    assert out["confidence_interval"]["high"] < 0.05


def test_equivalence_prints_its_own_level():
    proc = run_in_process(*PAIR, *FAST, "--margin", "0.05", "--hypothesis", "equivalence",
                          "--format", "markdown")
    text = proc.stdout.decode()
    assert "95% interval (B - A: 90%)" in text
    assert "(two one-sided tests, p " in text and "90% paired bootstrap over 200 items" in text
    out = json.loads(run_in_process(*PAIR, *FAST, "--margin", "0.05", "--hypothesis",
                                    "equivalence", "--format", "json").stdout)
    assert out["interval_level"] == 0.9 and len(out["p_values"]) == 2
    assert out["p_value"] == max(out["p_values"])


def test_an_undetectable_margin_says_so():
    proc = run_in_process(*PAIR, *FAST, "--margin", "0.003", "--hypothesis", "equivalence")
    text = " ".join(proc.stdout.decode().split())
    assert "this test set is too small to detect 0.003" in text
    assert "no evidence of no difference" in text


def test_a_family_with_bh_and_a_margin(tmp_path):
    rng = np.random.default_rng(3)
    n = 300
    base = rng.random(n)
    path = tmp_path / "systems.csv"
    columns = {"base": base, "v1": base + rng.normal(0.03, 0.05, n),
               "v2": base + rng.normal(0.0, 0.05, n)}
    rows = ["id," + ",".join(columns)] + [
        f"q{i}," + ",".join(f"{v[i]:.6f}" for v in columns.values()) for i in range(n)]
    path.write_text("\n".join(rows) + "\n")
    proc = run_in_process("compare", path, "--id", "id", "--systems", "base,v1,v2", "--baseline",
                          "base", "--correction", "bh", "--margin", "0.02", "--hypothesis",
                          "non-inferiority", *FAST, "--format", "json")
    out = json.loads(proc.stdout)
    assert proc.returncode == 0
    assert out["correction"] == "bh" and out["hypothesis"] == "non-inferiority"
    assert out["fcr_level"] is not None
    assert [c["verdict"] for c in out["comparisons"]] == ["better-by-margin", "non-inferior"]


@pytest.mark.parametrize("extra, words", [
    (["--fail-if", "inferior"], ("--fail-if inferior needs a --margin",)),
    (["--hypothesis", "equivalence"], ("--hypothesis equivalence needs a --margin",)),
    (["--margin", "-0.1"], ("--margin", "non-negative")),
    (["--margin", "nan"], ("--margin", "finite")),
    (["--margin", "inf"], ("--margin", "finite")),
    (["--margin", "2"], ("--margin 2 is larger than the scores' range",)),
    (["--margin", "0.01", "--hypothesis", "equivalence", "--fail-if", "inferior"],
     ("--fail-if inferior tests non-inferiority, not --hypothesis equivalence",)),
    (["--margin", "0.01", "--hypothesis", "non-inferiority", "--fail-if", "worse"],
     ("--fail-if worse gates a difference", "--fail-if inferior")),
    (["--margin", "0.01", "--hypothesis", "non-inferiority", "--alternative", "less"],
     ("--alternative less", "non-inferiority")),
    (["--margin", "0", "--hypothesis", "superiority"], ("above 0",)),
])
def test_bad_margins_are_one_line_errors(extra, words):
    assert_one_line_error(run_in_process(*PAIR, *FAST, *extra), *words)


def test_a_margin_beyond_the_scores_is_refused_on_streamed_files_too():
    # (parts carry each column's extremes: the range is checked without the items)
    assert_one_line_error(run_in_process(*PAIR, *FAST, "--stream", "--resampling",
                                         "poisson", "--margin", "5", "--hypothesis",
                                         "equivalence"),
                          "--margin 5 is larger than the scores' range")


def test_a_plan_s_hypothesis_cannot_be_overridden_by_difference(tmp_path):
    rng = np.random.default_rng(9)
    n = 100
    base = rng.random(n)
    path = tmp_path / "systems.csv"
    rows = ["id,base,v1,v2"] + [f"q{i},{base[i]:.5f},{base[i] + 0.01:.5f},{base[i]:.5f}"
                                for i in range(n)]
    path.write_text("\n".join(rows) + "\n")
    plan = tmp_path / "plan.toml"
    plan.write_text('systems = ["base", "v1", "v2"]\nbaseline = "base"\nmetric = "mean"\n'
                    'confidence_level = 0.95\ncorrection = "holm"\nn_resamples = 500\n'
                    'seed = 1\nhypothesis = "non-inferiority"\nmargin = 0.05\n')
    base_args = ["compare", path, "--id", "id", "--systems", "base,v1,v2", "--plan", plan]
    assert run_in_process(*base_args).returncode == 0
    assert_one_line_error(run_in_process(*base_args, "--hypothesis", "difference"),
                          "--hypothesis difference differs from the plan")
